"""Strong solving: every reachable position of a game, valued (see docs/graph.md).

``strong_solve(game)`` enumerates the positions (``gdl.graph.positions``), finds the order in
which they can be solved (``gdl.graph.order``) and picks the method from what it finds:

  no cycle, two players, constant-sum, no chance  → backward induction, numpy (with remoteness)
  no cycle, any other game                        → backward induction, exact vectors
  cycles, two players, constant-sum, no chance    → retrograde analysis (win/lose/tie/draw)
  cycles and chance, two players, constant-sum    → value iteration, then an exact check
                                                    (gdl.graph.iteration)
  cycles, more players or general-sum             → a stationary equilibrium checked exactly,
                                                    forced wins, or refused with the reason
                                                    (gdl.graph.multiplayer)

A two-player constant-sum game without chance whose every move leaves its tier, with native
rules and at least RANKED_MIN positions, is valued on ranked tables instead (gdl.graph.rank,
gdl.graph.rank_solve): a code of a byte or two a slot, no key a position, the same answers.

Like the tree solvers it sees only the protocol (``gdl.protocol``); the answers agree with them
at every position (value vector and the set of optimal actions).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gdl.graph.order import levels as solve_order
from gdl.graph.positions import PositionGraph, TooManyPositions, default_max_states, enumerate_positions
from gdl.graph.solution import GraphSolution
from gdl.protocol import CHANCE, constant_sum_total
from gdl.solvers.result import SolverError
from gdl.solvers.wide import refuse_wide

BACKWARD_INDUCTION = "backward induction"
RETROGRADE = "retrograde analysis"
VALUE_ITERATION = "value iteration + exact policy check"


# Positions from which the ranked tables (gdl.graph.rank_solve) value a game instead of its
# position graph, where they apply: below, the graph is quicker to build and to read.
RANKED_MIN = 300_000


def strong_solve(game, *, max_states: int | None = None,
                 progress: Callable[[str, int, int], None] | None = None,
                 graph: PositionGraph | None = None, ranked: bool | None = None) -> GraphSolution:
    """Every reachable position of ``game``, valued. ``progress(stage, done, total)`` is called
    now and then (stage "enumerating": positions expanded and found so far). ``ranked``: value
    it on ranked tables (gdl.graph.rank_solve: a ``RankedSolution``, the same answers) where
    they apply and the game has at least RANKED_MIN positions (None), always (True: a
    SolverError where they do not apply), or never (False)."""
    refuse_wide(game.info, "strong solve")
    if graph is None and ranked is not False:
        solution = _ranked(game, max_states, progress, required=bool(ranked))
        if solution is not None:
            return solution
    seconds = {}
    started = time.perf_counter()
    if graph is None:
        report = None if progress is None else (lambda done, found: progress("enumerating", done,
                                                                             found))
        graph = enumerate_positions(game, max_states=max_states, progress=report)
    seconds["enumerate"] = time.perf_counter() - started
    started = time.perf_counter()
    solution = _solve_graph(game, graph, progress)
    seconds["solve"] = time.perf_counter() - started
    solution.seconds = seconds
    return solution


def _ranked(game, max_states: int | None, progress, required: bool) -> GraphSolution | None:
    """The ranked solve where it applies (see ``strong_solve``), else None."""
    from gdl.graph.rank_solve import NotRanked, ranked_solve, worth_ranking

    if not required and (not worth_ranking(game, RANKED_MIN)
                         or (max_states is not None and max_states < RANKED_MIN)):
        return None
    try:
        return ranked_solve(game, max_states=max_states, progress=progress,
                            min_positions=0 if required else RANKED_MIN)
    except NotRanked as why:
        if required:
            raise SolverError(f"strong solve: the ranked tables do not apply: {why}") from None
        return None


def _solve_graph(game, graph: PositionGraph, progress) -> GraphSolution:
    from gdl.graph.induction import two_player_induction, vector_induction

    info = game.info
    has_chance = bool((graph.player == CHANCE).any())
    two_player_constant_sum = info.num_players == 2 and info.is_constant_sum
    total = constant_sum_total(info, "strong solve") if two_player_constant_sum else None
    if two_player_constant_sum and not has_chance:
        from gdl.graph.induction import native_two_player_induction

        values = native_two_player_induction(graph, total)    # None: no native code, or a cycle
        if values is not None:
            return GraphSolution(graph, BACKWARD_INDUCTION, values)
    if progress is not None:
        progress("ordering", 0, len(graph))
    levels = solve_order(graph)
    if levels is not None:
        if two_player_constant_sum and not has_chance:
            values = two_player_induction(graph, levels, total)
            if values is not None:
                return GraphSolution(graph, BACKWARD_INDUCTION, values)
        return GraphSolution(graph, BACKWARD_INDUCTION, vector_induction(graph, levels))
    if two_player_constant_sum and not has_chance:
        from gdl.graph.retrograde import retrograde

        endless = None if info.endless_value is None else info.endless_value[0]
        values = retrograde(graph, total, endless=endless)
        if values is None:
            raise SolverError(f"strong solve: game {info.name!r} has utilities too large for "
                              "retrograde analysis's 64-bit integers")
        return GraphSolution(graph, RETROGRADE, values)
    if two_player_constant_sum:
        from gdl.graph.iteration import solve_stochastic
        from gdl.graph.tier_expand import byte_passes

        return solve_stochastic(graph, total, progress,
                                None if info.endless_value is None else info.endless_value[0],
                                native=byte_passes(game) if has_chance else None)
    from gdl.graph.multiplayer import solve_multiplayer

    return solve_multiplayer(graph, info, progress)   # or a SolverError with the reason


def solve_root(game, *, max_states: int | None = None):
    """The strong solve's answer at the initial state as a ``SolveResult`` (the tree solvers'
    type): value vector, optimal actions, a one-move principal variation; ``stats.nodes`` is
    the number of positions. A draw (endless play) is refused: it has no value vector."""
    from gdl.solvers.result import SolveResult, Stats

    solution = strong_solve(game, max_states=max_states)
    values = solution.value(0)
    if values is None:
        raise SolverError(f"strong solve: the start of {game.info.name!r} is a draw: its value "
                          "depends on what endless play is worth, which the rules do not say "
                          "(`when endless`)")
    best = solution.best_actions(0)
    return SolveResult(values=values, best_actions=best, pv=best[:1], algorithm="graph",
                       stats=Stats(nodes=len(solution.graph)), proven=solution.exact,
                       extra={"method": solution.method, "remoteness": solution.remoteness(0)})


__all__ = ["BACKWARD_INDUCTION", "RANKED_MIN", "RETROGRADE", "VALUE_ITERATION", "GraphSolution",
           "PositionGraph", "TooManyPositions", "default_max_states", "enumerate_positions",
           "solve_root", "strong_solve"]
