"""Plain minimax: the reference every faster two-player search is tested against.

Preconditions (checked on ``game.info`` before searching): exactly two players, zero-sum or
constant-sum, no chance (use ``expectiminimax`` for chance). A depth limit needs a declared
evaluation.

One recursion serves both players: every node returns the full value vector (v, total - v) and
the player to move picks the child that maximises *its own* component, so there is no separate
"min" branch. Every state is visited (no pruning): ``stats.nodes`` counts each visit, root
included, and ``stats.leaves`` counts terminal states plus depth cut-off evaluations.

Tie rule: a decision node keeps the *first* child, in declaration order, whose value for the
mover is the best; that child extends the principal variation. ``best_actions`` is the set of
all root actions whose value equals the best, in declaration order.

Depth: ``depth=N`` allows N plies below the root; a non-terminal state reached after N plies is
scored by ``game.evaluate`` and the result has ``proven=False`` if any such cut-off happened.
``depth=0`` evaluates the root itself. Quiescence (``game.is_quiet``) is not applied here.
"""

from __future__ import annotations

from ..protocol import CHANCE, TERMINAL, Action, State, Value
from .common import (Frontier, PvLink, best_of, no_legal_actions, pv_tuple, require_depth,
                     require_two_player_constant_sum, unexpected_chance)
from .deep import run_deep
from .repetition import guard_path
from .result import SolveResult, SolverError, Stats


def minimax(game, *, depth: int | None = None) -> SolveResult:
    """Exact minimax value, optimal root actions and principal variation (first best on ties)."""
    info = game.info
    total = require_two_player_constant_sum(info, "minimax")
    if info.has_chance:
        raise SolverError(f"minimax: game {info.name!r} has chance nodes; use expectiminimax")
    require_depth(info, depth, "minimax")
    stats = Stats()
    frontier = Frontier(game, stats, total=total)
    root_children: list[tuple[Action, tuple[Value, ...]]] = []
    current_player, apply, leaf_value = game.current_player, game.apply, frontier.value
    legal = game.legal_actions
    nodes = 0

    def search(state: State, depth_left: int | None, children: list | None
               ) -> tuple[tuple[Value, ...], PvLink]:
        nonlocal nodes
        nodes += 1
        player = current_player(state)
        if player == TERMINAL or depth_left is not None and depth_left <= 0:
            return leaf_value(state, player, depth_left), None
        if player == CHANCE:
            raise unexpected_chance(game, "minimax")
        best: tuple[Value, ...] | None = None
        best_pv: PvLink = None
        below = None if depth_left is None else depth_left - 1
        actions = legal(state)
        if not actions:
            raise no_legal_actions(game, state)
        for action in actions:
            values, pv = search(apply(state, action), below, None)
            if children is not None:
                children.append((action, values))
            if best is None or values[player] > best[player]:  # strict: first best wins ties
                best, best_pv = values, (action, pv)
        return best, best_pv

    search = guard_path(game, search, depth is None)  # a cycle: RepetitionError, not recursion
    root = game.initial_state()
    try:
        values, pv = run_deep(search, root, depth, root_children)
    finally:
        stats.nodes = nodes
    best_actions = best_of(root_children, game.current_player(root)) if root_children else ()
    return SolveResult(values=values, best_actions=best_actions, pv=pv_tuple(pv),
                       algorithm="minimax", stats=stats, proven=frontier.evaluations == 0,
                       depth=depth, extra={"action_values": tuple(root_children)})
