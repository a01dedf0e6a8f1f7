"""gdl: games written as text, solved by generic search.

    import gdl
    game = gdl.load("games/tictactoe.game")          # parse -> check -> build
    result = gdl.solve(game)                           # picks a solver from game.info
    print(result.values, result.best_actions)

Everything a user needs is importable from here: loading games (`load`, `loads`), solving them
(`solve`, `analyze`), the game protocol (`Game`, `GameInfo`, `CHANCE`, `TERMINAL`), the result
and option types (`SolveResult`, `Stats`, `SearchOptions`, `Budget`, `Analysis`) and the errors
(`GdlError`, `GameRuntimeError`, `SolverError`). The module layout behind it is described in
ARCHITECTURE.md; modules outside this list may change between versions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gdl.version import __version__

if TYPE_CHECKING:
    from gdl.backends.load import BACKENDS, load, loads
    from gdl.errors import Diagnostic, GameRuntimeError, GdlError
    from gdl.protocol import CHANCE, TERMINAL, Action, Game, GameInfo, State, Value
    from gdl.solvers import ALGORITHMS
    from gdl.solvers.alphabeta import Budget, SearchOptions
    from gdl.solvers.analysis import ActionValue, Analysis
    from gdl.solvers.result import SolverError, SolveResult, Stats

# Where each exported name lives. They are imported on first use (PEP 562), so that
# `import gdl.anything` (every `gdl` command does) does not pay for the solvers and the loader.
_EXPORTS = {
    "BACKENDS": "gdl.backends.load", "load": "gdl.backends.load", "loads": "gdl.backends.load",
    "Diagnostic": "gdl.errors", "GameRuntimeError": "gdl.errors", "GdlError": "gdl.errors",
    "CHANCE": "gdl.protocol", "TERMINAL": "gdl.protocol", "Action": "gdl.protocol",
    "Game": "gdl.protocol", "GameInfo": "gdl.protocol", "State": "gdl.protocol",
    "Value": "gdl.protocol", "ALGORITHMS": "gdl.solvers", "Budget": "gdl.solvers.alphabeta",
    "SearchOptions": "gdl.solvers.alphabeta", "ActionValue": "gdl.solvers.analysis",
    "Analysis": "gdl.solvers.analysis", "SolverError": "gdl.solvers.result",
    "SolveResult": "gdl.solvers.result", "Stats": "gdl.solvers.result",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gdl' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "ALGORITHMS", "BACKENDS", "CHANCE", "TERMINAL",
    "Action", "ActionValue", "Analysis", "Budget", "Diagnostic", "Game", "GameInfo",
    "GameRuntimeError", "GdlError", "SearchOptions", "SolveResult", "SolverError", "State",
    "Stats", "Value", "__version__", "analyze", "load", "loads", "solve",
]


def solve(game: Game, algorithm: str = "auto", *, depth: int | None = None,
          options: SearchOptions | None = None, budget: Budget | None = None, player: int = 0,
          shallow_pruning: bool | None = None, root_state: State | None = None,
          table: bool | None = None) -> SolveResult:
    """Solve ``game`` from its initial state (or ``root_state``) and return a `SolveResult`.

    ``algorithm`` is one of `ALGORITHMS` or ``"auto"``, which picks from ``game.info``: alpha-beta
    for two-player constant-sum games without chance, Star2 (or expectiminimax) with chance,
    max^n for more players or general-sum games. Every solver refuses a game it cannot handle
    with `SolverError`.

    ``depth`` limits the search to that many decision plies, valued by the game's ``evaluate``
    at the horizon (``result.proven`` is then False). ``options`` and ``budget`` configure the
    alpha-beta engine (`SearchOptions`: table, ordering, PVS, ...; `Budget`: time and node
    limits). ``player`` is the player paranoid search plays for; ``shallow_pruning`` switches
    max^n's pruning (default: on where it is sound). ``table`` gives every tree solver but
    alpha-beta (whose table is ``options.tt``) a transposition table keyed by position and depth
    left (default off; max^n's shallow pruning is then off unless asked for).

    The values are exact (``int`` or ``Fraction``), one per player; ``result.best_actions`` is
    the set of every optimal first action, in declaration order."""
    from gdl.solvers import solve as solve_with

    return solve_with(game, algorithm, depth=depth, options=options, budget=budget, player=player,
                      shallow_pruning=shallow_pruning, root_state=root_state, table=table)


def analyze(game: Game, state: State | None = None, *, algorithm: str = "auto",
            depth: int | None = None, options: SearchOptions | None = None,
            player: int = 0) -> Analysis:
    """The exact value of every legal action (or chance outcome) at ``state`` (default: the
    initial state), as an `Analysis`: who moves, each action's value vector and whether it is
    optimal, and the position's value. ``options`` go to alpha-beta (default: a table and move
    ordering); ``player`` is paranoid's chosen player."""
    from gdl.solvers.analysis import analyze_position

    return analyze_position(game, state, algorithm=algorithm, depth=depth, options=options,
                            player=player)
