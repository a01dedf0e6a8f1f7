"""Generic solvers over the game protocol (gdl.protocol). They never see the parser.

``solve(game, algorithm="auto")`` picks from ``game.info``:
  hidden information, two players, constant-sum     → sequence-form (exact LP, verified)
  simultaneous moves, nothing hidden, two, constant → simultaneous (exact matrix games;
                                                      Shapley's iteration where positions repeat)
  hidden or simultaneous, otherwise                 → cfr (approximate, with NashConv)
  chance, two players, constant-sum  → star2 if utility bounds are declared, else expectiminimax
  more than two players, general-sum → maxn (with shallow pruning where its conditions hold)
  otherwise                          → alphabeta, with the techniques of default_options()
``cfr+`` and ``mccfr`` (approximate, two players) are there to be asked for
(gdl.solvers.imperfect). Every solver refuses, with SolverError, a game it cannot handle: the
perfect-information ones refuse hidden information and simultaneous moves by name
(gdl.solvers.wide).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gdl.protocol import GameInfo
from gdl.solvers.imperfect import WIDE_ALGORITHMS
from gdl.solvers.result import SolverError, SolveResult, Stats
from gdl.solvers.wide import is_wide, wide_algorithm

# The tree searches of perfect-information games (the CLI's --algorithm choices).
ALGORITHMS = ("minimax", "alphabeta", "expectiminimax", "star1", "star2", "maxn", "paranoid")
# Every algorithm ``solve`` knows: those, and the solvers of simultaneous moves and hidden
# information.
ALL_ALGORITHMS = ALGORITHMS + WIDE_ALGORITHMS


def choose(info: GameInfo) -> str:
    """The algorithm ``auto`` uses for a game."""
    if is_wide(info):
        return wide_algorithm(info)
    two_constant = info.num_players == 2 and info.is_constant_sum
    if info.has_chance:
        if two_constant:
            return "star2" if info.utility_bounds is not None else "expectiminimax"
        return "maxn"
    return "alphabeta" if two_constant else "maxn"


def shallow_pruning_applies(info: GameInfo) -> bool:
    bounds = info.utility_bounds
    return info.is_constant_sum and bounds is not None and bounds[0] >= 0


def default_options(depth: int | None = None, budget: Any = None) -> Any:
    """The alpha-beta techniques ``solve`` uses when it is given no ``options``.

    Exact solves (no ``depth``, no ``budget``): a transposition table, move ordering (the table's
    move, then the game's evaluation when it declares one, from ply EVALUATION_PLIES on the
    root's order instead: gdl.solvers.ordering) and PVS. Chosen by node counts on the
    bundled games (``python benchmarks/search.py``; every run exact, values and optimal root sets
    checked; Connect Four orders by its declared evaluation)::

                                    tic-tac-toe   C4 4x4      C4 5x4   Hexapawn
        TT + ordering + PVS (this)        6,987   16,632     286,126         91
          (before wins-first ordering)    6,987   21,930     454,402         91
        TT + ordering                     6,812   17,310           -         75
          (before wins-first ordering)    6,812   22,461     470,709         75
        TT + ordering + killers           5,705   46,461   1,115,462         75
        TT + ordering + history           4,950   44,515     509,103         82
        TT + ordering + killers + history 4,826   62,157   1,157,147         79
        engine() without ID / aspiration  5,130   54,386   1,127,174         97
        engine() (everything on)          5,130  107,284   1,978,549         97
        TT only                           6,842   26,829   1,270,853         75

    The rows below the first two were measured before the ordering tried a move that wins at
    once first (gdl.solvers.ordering), which cut Connect Four's nodes by a quarter to a third.
    PVS saves 2-3% on Connect Four and costs about as much on the two small games; killers and
    history help tic-tac-toe but double the work on Connect Four, whose good moves depend on the
    position (a move that refuted one line rarely refutes its sibling); iterative deepening
    (with or without aspiration) searches every shallower depth again and about doubles an exact
    solve (4x4: 52,556 nodes with it, 22,461 without). A bigger table (4M entries) changed
    Connect Four 5x4 by less than 0.1%.

    With a ``depth`` or a ``budget``: the same, plus quiescence (it acts only where the rules
    declare ``quiet when``), and iterative deepening when there is a budget (it is what makes a
    budget answer: the deepest completed iteration). Measured on Connect Four 7x6: at a fixed
    depth 8, iterative deepening costs 22,372 nodes against 12,345 without, so a depth alone does
    not switch it on; aspiration windows cost 2-16% more nodes than plain deepening (100,000 and
    300,000 node budgets both reach depths 10 and 12 either way: 42,955 against 41,099 nodes for
    depth 10, 128,390 against 110,376 for depth 12), since the evaluation swings between odd and
    even depths and a one-unit window fails, so they stay off. Every switch can be set on the
    command line (`gdl solve --aspiration`, `--killers`, ...)."""
    from gdl.solvers.alphabeta import SearchOptions
    from gdl.solvers.ordering import EVALUATION_PLIES

    exact = SearchOptions(tt=True, ordering=True, pvs=True)
    if depth is None and budget is None:
        return replace(exact, evaluation_plies=EVALUATION_PLIES)
    return replace(exact, quiescence=True, iterative_deepening=budget is not None)


def solve(game: Any, algorithm: str = "auto", *, depth: int | None = None, options: Any = None,
          budget: Any = None, player: int = 0, shallow_pruning: bool | None = None,
          root_state: Any = None, table: bool | None = None, iterations: int | None = None,
          seed: int = 0, target: float | None = None, trace: Any = None,
          progress: Any = None) -> SolveResult:
    """Solve ``game`` (from ``root_state``, default its initial state) with the named algorithm.

    ``options`` / ``budget`` go to alpha-beta (gdl.solvers.alphabeta.SearchOptions / Budget);
    ``player`` is paranoid's chosen player; ``shallow_pruning`` is max^n's switch (default: on
    where its conditions hold). ``table`` switches the transposition table of every other tree
    solver (keyed by position and depth left; default off: it grows with the positions met);
    alpha-beta's is ``options.tt``. With a table, max^n's shallow pruning is off unless asked
    for (a pruned vector depends on the parent's bound). ``iterations`` (default 1,000 for cfr+
    and cfr, 100,000 for mccfr), ``seed`` (mccfr's sampling) and ``target`` (cfr+ and cfr stop
    once the exploitability is at most this) go to the iterative solvers. ``trace`` (a
    gdl.solvers.trace.Trace) receives the events of a tree search as it runs (the solvers of
    simultaneous moves and hidden information emit none, and refuse one). ``progress(what, n)``
    is called now and then by the solvers of simultaneous moves and hidden information (the
    positions or histories walked, the iterations done)."""
    if algorithm == "auto":
        algorithm = choose(game.info)
    if algorithm not in ALL_ALGORITHMS:
        raise SolverError(f"unknown algorithm {algorithm!r}; choose from "
                          f"{', '.join(ALL_ALGORITHMS)}")
    if depth is not None and algorithm in WIDE_ALGORITHMS:
        raise SolverError(f"{algorithm}: solves the whole game; it takes no depth limit")
    if trace is not None and algorithm in WIDE_ALGORITHMS:
        raise SolverError(f"{algorithm}: emits no trace; the tree searches do "
                          f"({', '.join(ALGORITHMS)})")
    if root_state is not None:
        game = _Rooted(game, root_state)
    if algorithm in WIDE_ALGORITHMS:
        from gdl.solvers.imperfect import solve_wide

        return solve_wide(game, algorithm, iterations=iterations, seed=seed, target=target,
                          progress=progress)
    if algorithm == "alphabeta":
        from gdl.solvers.alphabeta import alphabeta

        if options is None:
            options = default_options(depth, budget)
        return alphabeta(game, depth=depth, options=options, budget=budget, trace=trace)
    if algorithm == "maxn":
        from gdl.solvers.maxn import maxn

        if shallow_pruning is None:
            shallow_pruning = not table and shallow_pruning_applies(game.info)
        return maxn(game, depth=depth, shallow_pruning=shallow_pruning, table=bool(table),
                    trace=trace)
    if algorithm == "paranoid":
        from gdl.solvers.paranoid import paranoid

        return paranoid(game, player, depth=depth, table=bool(table), trace=trace)
    module = {"minimax": "minimax", "expectiminimax": "expectiminimax", "star1": "star",
              "star2": "star"}[algorithm]
    import importlib

    function = getattr(importlib.import_module(f"{__name__}.{module}"), algorithm)
    return function(game, depth=depth, table=bool(table), trace=trace)


class _Rooted:
    """A game seen from another starting state (after `--moves`).

    The protocol's methods are bound once here: forwarding each call through ``__getattr__``
    would cost a lookup per node, which nearly doubles the time of a cheap compiled node."""

    def __init__(self, game: Any, root: Any):
        self._game, self._root = game, root
        self.info = game.info
        for name in ("current_player", "legal_actions", "apply", "chance_outcomes", "returns",
                     "evaluate", "action_name", "is_quiet"):
            setattr(self, name, getattr(game, name))

    def initial_state(self):
        return self._root

    def __getattr__(self, name: str):
        return getattr(self._game, name)


__all__ = ["ALGORITHMS", "ALL_ALGORITHMS", "WIDE_ALGORITHMS", "SolveResult", "SolverError", "Stats",
           "choose", "default_options", "solve"]
