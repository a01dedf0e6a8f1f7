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

Like the tree solvers it sees only the protocol (``gdl.protocol``); the answers agree with them
at every position (value vector and the set of optimal actions).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gdl.graph.order import levels as solve_order
from gdl.graph.positions import PositionGraph, TooManyPositions, default_max_states, enumerate_positions
from gdl.graph.solution import GraphSolution
from gdl.protocol import CHANCE
from gdl.solvers.common import constant_sum_total
from gdl.solvers.result import SolverError
from gdl.solvers.wide import refuse_wide

BACKWARD_INDUCTION = "backward induction"
RETROGRADE = "retrograde analysis"
VALUE_ITERATION = "value iteration + exact policy check"


def strong_solve(game, *, max_states: int | None = None,
                 progress: Callable[[str, int, int], None] | None = None,
                 graph: PositionGraph | None = None) -> GraphSolution:
    """Every reachable position of ``game``, valued. ``progress(stage, done, total)`` is called
    now and then (stage "enumerating": positions expanded and found so far)."""
    refuse_wide(game.info, "strong solve")
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

        return solve_stochastic(graph, total, progress,
                                None if info.endless_value is None else info.endless_value[0])
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


__all__ = ["BACKWARD_INDUCTION", "RETROGRADE", "VALUE_ITERATION", "GraphSolution",
           "PositionGraph", "TooManyPositions", "default_max_states", "enumerate_positions",
           "solve_root", "strong_solve"]
