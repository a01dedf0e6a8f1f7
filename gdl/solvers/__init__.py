"""Generic solvers over the game protocol (gdl.protocol). They never see the parser.

``solve(game, algorithm="auto")`` picks from ``game.info``:
  chance, two players, constant-sum  → star2 if utility bounds are declared, else expectiminimax
  more than two players, general-sum → maxn (with shallow pruning where its conditions hold)
  otherwise                          → alphabeta with the engine's techniques on
Every solver refuses, with SolverError, a game it cannot handle.
"""

from __future__ import annotations

from typing import Any

from ..protocol import GameInfo
from .result import SolveResult, SolverError, Stats

ALGORITHMS = ("minimax", "alphabeta", "expectiminimax", "star1", "star2", "maxn", "paranoid")


def choose(info: GameInfo) -> str:
    """The algorithm ``auto`` uses for a game."""
    two_constant = info.num_players == 2 and info.is_constant_sum
    if info.has_chance:
        if two_constant:
            return "star2" if info.utility_bounds is not None else "expectiminimax"
        return "maxn"
    return "alphabeta" if two_constant else "maxn"


def shallow_pruning_applies(info: GameInfo) -> bool:
    bounds = info.utility_bounds
    return info.is_constant_sum and bounds is not None and bounds[0] >= 0


def solve(game: Any, algorithm: str = "auto", *, depth: int | None = None, options: Any = None,
          budget: Any = None, player: int = 0, shallow_pruning: bool | None = None,
          root_state: Any = None) -> SolveResult:
    """Solve ``game`` (from ``root_state``, default its initial state) with the named algorithm.

    ``options`` / ``budget`` go to alpha-beta (gdl.solvers.alphabeta.SearchOptions / Budget);
    ``player`` is paranoid's chosen player; ``shallow_pruning`` is max^n's switch (default: on
    where its conditions hold)."""
    if algorithm == "auto":
        algorithm = choose(game.info)
    if algorithm not in ALGORITHMS:
        raise SolverError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if root_state is not None:
        game = _Rooted(game, root_state)
    if algorithm == "alphabeta":
        from .alphabeta import SearchOptions, alphabeta

        if options is None:
            options = SearchOptions.engine()
        return alphabeta(game, depth=depth, options=options, budget=budget)
    if algorithm == "maxn":
        from .maxn import maxn

        if shallow_pruning is None:
            shallow_pruning = shallow_pruning_applies(game.info)
        return maxn(game, depth=depth, shallow_pruning=shallow_pruning)
    if algorithm == "paranoid":
        from .paranoid import paranoid

        return paranoid(game, player, depth=depth)
    module = {"minimax": "minimax", "expectiminimax": "expectiminimax", "star1": "star",
              "star2": "star"}[algorithm]
    import importlib

    function = getattr(importlib.import_module(f"{__name__}.{module}"), algorithm)
    return function(game, depth=depth)


class _Rooted:
    """A game seen from another starting state (after `--moves`)."""

    def __init__(self, game: Any, root: Any):
        self._game, self._root = game, root
        self.info = game.info

    def initial_state(self):
        return self._root

    def __getattr__(self, name: str):
        return getattr(self._game, name)


__all__ = ["ALGORITHMS", "SolveResult", "SolverError", "Stats", "choose", "solve"]
