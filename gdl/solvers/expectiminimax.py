"""Expectiminimax: minimax with chance nodes valued by their exact expectation.

Preconditions (checked on ``game.info``): exactly two players, zero-sum or constant-sum. Chance
is allowed anywhere, including several chance nodes in a row; a game without chance gives the
same answer as ``minimax``. A depth limit needs a declared evaluation.

One recursion serves both players and chance: every node returns the full value vector; a
decision node keeps the child that maximises the mover's own component, a chance node returns
the probability-weighted sum of its children's vectors, in exact ``Fraction`` arithmetic.
Every state is visited: ``stats.nodes`` counts each visit, root included.

Tie rule: a decision node keeps the *first* best child in declaration order. ``best_actions``
is the set of all root actions whose value equals the best (empty if the root is a chance or
terminal state). The principal variation follows the first best action at each decision node
and stops at the first chance node, since what comes next depends on the outcome.

Depth: ``depth=N`` counts decision plies only; chance nodes do not consume depth. Once N
decision plies have been made, the next non-terminal state, decision or chance, is scored by
``game.evaluate`` (so a chance node with no depth left is evaluated, not expanded). This is
OpenSpiel's convention: Pig with a three-sided die at depth 2 with the score difference as
evaluation is worth 5/3, best action ``roll``. Any cut-off makes ``proven=False``.
"""

from __future__ import annotations

from fractions import Fraction

from gdl.protocol import CHANCE, TERMINAL, Action, State, Value
from gdl.solvers.common import (
    Frontier,
    PvLink,
    best_of,
    chance_outcomes,
    no_legal_actions,
    pv_tuple,
    require_depth,
    require_two_player_constant_sum,
    unexpected_chance,
)
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolveResult, Stats


def expectiminimax(game, *, depth: int | None = None, table: bool = False) -> SolveResult:
    """Exact expectiminimax value, optimal root actions and principal variation. With
    ``table``, a transposition table keyed by (state, depth left) answers a position met again
    (``stats.tt_probes`` / ``tt_hits``): a horizon game then costs what its states cost, not its
    histories. The answer is the same either way (a position's value and first best child
    depend only on the position and the depth left)."""
    return search_game(game, depth, "expectiminimax", table)


def search_game(game, depth: int | None, algorithm: str, table: bool = False) -> SolveResult:
    """The one recursion behind expectiminimax and minimax (which is this on chance-free games:
    the chance branch is then never taken, so the two visit the same nodes)."""
    info = game.info
    total = require_two_player_constant_sum(info, algorithm)
    require_depth(info, depth, algorithm)
    declared_chance = info.has_chance
    stats = Stats()
    frontier = Frontier(game, stats, total=total)
    root_children: list[tuple[Action, tuple[Value, ...]]] = []
    current_player, apply, leaf_value = game.current_player, game.apply, frontier.value
    legal = game.legal_actions
    nodes = 0
    known: dict | None = {} if table else None

    def search(state: State, depth_left: int | None, children: list | None
               ) -> tuple[tuple[Value, ...], PvLink]:
        if known is None or children is not None:   # the root always lists its children
            return expand(state, depth_left, children)
        stats.tt_probes += 1
        key = (state, depth_left)
        found = known.get(key)
        if found is not None:
            stats.tt_hits += 1
            return found
        found = known[key] = expand(state, depth_left, children)
        return found

    def expand(state: State, depth_left: int | None, children: list | None
               ) -> tuple[tuple[Value, ...], PvLink]:
        nonlocal nodes
        nodes += 1
        player = current_player(state)
        if player == TERMINAL or (depth_left is not None and depth_left <= 0):
            leaf = leaf_value(state, player, depth_left)
            assert leaf is not None  # a terminal state or the horizon always has a value
            return leaf, None
        if player == CHANCE:
            if not declared_chance:  # the game's info said no chance: a broken promise
                raise unexpected_chance(game, algorithm)
            # Exact: values of consecutive outcomes with the same probability (the same
            # object) are added before multiplying, p*a + p*b = p*(a + b). Every vector sums to
            # `total` (the frontier checks it) and the probabilities sum to 1, so the second
            # player's expectation is exactly total minus the first's.
            terms: list[Value] = []
            weight: Fraction | None = None
            subtotal: Value = 0
            for outcome, p in chance_outcomes(game, state):
                v = search(apply(state, outcome), depth_left, None)[0][0]
                if p is weight:
                    subtotal += v
                    continue
                if weight is not None:
                    terms.append(weight * subtotal)
                weight, subtotal = p, v
            assert weight is not None  # chance_outcomes never returns an empty distribution
            terms.append(weight * subtotal)
            expectation = terms[0] if len(terms) == 1 else sum(terms)
            return (expectation, -expectation if total == 0 else total - expectation), None
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
        assert best is not None  # there was at least one action
        return best, best_pv

    search = guard_path(game, search, depth is None)  # a cycle: RepetitionError, not recursion
    root = game.initial_state()
    try:
        values, pv = run_deep(search, root, depth, root_children)
    finally:
        stats.nodes = nodes
    best_actions = best_of(root_children, game.current_player(root)) if root_children else ()
    return SolveResult(values=values, best_actions=best_actions, pv=pv_tuple(pv),
                       algorithm=algorithm, stats=stats,
                       proven=frontier.evaluations == 0, depth=depth,
                       extra={"action_values": tuple(root_children)})
