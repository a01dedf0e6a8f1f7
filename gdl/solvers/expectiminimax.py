"""Expectiminimax: minimax with chance nodes valued by their exact expectation.

Preconditions (checked on ``game.info``): exactly two players, zero-sum or constant-sum. Chance
is allowed anywhere, including several chance nodes in a row; a game without chance gives the
same answer as ``minimax``. A depth limit needs a declared evaluation.

One recursion serves both players and chance. Every vector is ``(v, total - v)``, so a node
returns player 0's value v alone: a decision node keeps the child that maximises the mover's own
component (player 0 the largest v, player 1 the smallest), a chance node returns the
probability-weighted sum of its children's values. The arithmetic is exact without ``Fraction``
in the hot path: values are integers over one common scale (gdl.solvers.scale), turned back into
exact values, Fraction or int as Fraction arithmetic would give them, at the root. A leaf vector
is checked against what the game declares the first time it is met, not at every leaf.
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

from operator import is_
from typing import Any

from gdl.protocol import CHANCE, TERMINAL, Action, State, Value
from gdl.solvers.common import (
    Frontier,
    PvLink,
    best_of,
    chance_outcomes,
    no_legal_actions,
    position_table,
    pv_tuple,
    require_depth,
    require_two_player_constant_sum,
    unexpected_chance,
)
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolveResult, Stats
from gdl.solvers.scale import Rescale, Scale


def expectiminimax(game, *, depth: int | None = None, table: bool = False) -> SolveResult:
    """Exact expectiminimax value, optimal root actions and principal variation. With
    ``table``, a transposition table keyed by (state, depth left) answers a position met again
    (``stats.tt_probes`` / ``tt_hits``): a horizon game then costs what its states cost, not its
    histories. The answer is the same either way (a position's value and first best child
    depend only on the position and the depth left)."""
    return search_game(game, depth, "expectiminimax", table)


def search_game(game, depth: int | None, algorithm: str, table: bool = False) -> SolveResult:
    """The one recursion behind expectiminimax and minimax (which is this on chance-free games:
    the chance branch is then never taken, so the two visit the same nodes).

    The hot path keeps player 0's value only, as an integer over one common scale
    (gdl.solvers.scale): both players' values are ``(v, total - v)``, so the mover 0 maximises
    v and the mover 1 minimises it, with the same strict comparison (first best wins ties).
    A scale too small for some value raises ``Rescale`` and the search starts again with a larger
    one (its counters too), so the answer and the counts are those of one exact search."""
    info = game.info
    total = require_two_player_constant_sum(info, algorithm)
    require_depth(info, depth, algorithm)
    scale = Scale()
    while True:
        try:
            return _search(game, depth, algorithm, table, total, scale)
        except Rescale as rescale:
            scale = scale.again(rescale)


def _search(game, depth: int | None, algorithm: str, table: bool, total: Value,
            scale: Scale) -> SolveResult:
    declared_chance = game.info.has_chance
    stats = Stats()
    frontier = Frontier(game, stats, total=total)
    check_leaf = frontier.check
    valid: set = set()     # leaf vectors already checked (validity depends on the values only)
    root_children: list[tuple[Action, int, bool]] = []
    current_player, apply, legal = game.current_player, game.apply, game.legal_actions
    returns = game.returns
    evaluate = game.evaluate if depth is not None else None   # (a depth needs one: checked)
    unit = scale.unit
    scaled = scale.scaled
    divisor = scale.denominator
    deeper = scale.deeper
    max_length = game.info.max_length
    weights_of = scale.weights
    # The distribution met last, as outcome pairs, its integer weights, and whether a probability
    # is a Fraction: a game that hands out the same pair objects again (compiled games do, for a
    # fixed distribution) needs no new weights (nor a second check: common.chance_outcomes).
    last_pairs: tuple = ()
    last_weights: list[int] = []
    last_fractional = False
    nodes = leaves = evaluations = 0
    horizon = depth is not None

    def admit(state: State, values: Any, source: str) -> tuple:
        """A leaf vector not met before: checked against what the game declares, remembered."""
        if type(values) is not tuple:
            values = tuple(values)
        try:
            known = values in valid
        except TypeError:       # unhashable: certainly not an exact value; the check says why
            known = False
        if not known:
            check_leaf(state, values, source)
            if len(valid) < 4096:
                valid.add(values)
        return values

    # Every node returns (player 0's scaled value, principal variation, whether the value is a
    # Fraction). The last is the type Fraction arithmetic would give the value: a Fraction once a
    # Fraction probability or leaf value went into it, else an int (the native tier, and tests,
    # compare types too).
    def expand(state: State, depth_left: int | None, children: list | None
               ) -> tuple[int, PvLink, bool]:
        nonlocal nodes, leaves, evaluations, last_pairs, last_weights, last_fractional
        nodes += 1
        player = current_player(state)
        if player == TERMINAL or (horizon and depth_left <= 0):  # type: ignore[operator]
            # A leaf: its vector is checked the first time it is met, not at every leaf.
            leaves += 1
            if player == TERMINAL:
                values = returns(state)
                if type(values) is not tuple or values not in valid:
                    values = admit(state, values, "returns")
            else:
                evaluations += 1
                values = evaluate(state)  # type: ignore[misc]  # a depth needs an evaluation
                if type(values) is not tuple or values not in valid:
                    values = admit(state, values, "evaluate")
            v = values[0]
            if type(v) is int:
                return v * unit, None, False
            return scaled(v), None, True
        if player == CHANCE:
            if not declared_chance:  # the game's info said no chance: a broken promise
                raise unexpected_chance(game, algorithm)
            outcomes = chance_outcomes(game, state)     # checked (once per distribution)
            if len(outcomes) == len(last_pairs) and all(map(is_, outcomes, last_pairs)):
                weights, fractional = last_weights, last_fractional
            else:
                weights = weights_of(outcomes)
                fractional = any(type(p) is not int for _, p in outcomes)
                if all(type(pair) is tuple for pair in outcomes):
                    last_pairs, last_weights = tuple(outcomes), weights
                    last_fractional = fractional
            # Exact: sum(w_i * x_i) over the common denominator. Every vector sums to `total`
            # (leaves are checked) and the probabilities sum to 1, so the second player's
            # expectation is exactly total minus the first's.
            weighted = 0
            for (outcome, _), w in zip(outcomes, weights):
                x, _, child_fractional = search(apply(state, outcome), depth_left, None)
                weighted += w * x
                fractional = fractional or child_fractional
            value, remainder = divmod(weighted, divisor)
            if remainder:
                raise deeper(max_length)
            return value, None, fractional
        below = depth_left - 1 if horizon else None  # type: ignore[operator]
        actions = legal(state)
        if not actions:
            raise no_legal_actions(game, state)
        # The first child is the best so far; a later one replaces it only when strictly better
        # for the mover (the first best wins ties): player 0 maximises v, player 1 maximises
        # total - v, i.e. minimises v. One loop per mover keeps the comparison out of a branch.
        first = actions[0]
        best, pv, best_fractional = search(apply(state, first), below, None)
        best_pv: PvLink = (first, pv)
        if children is not None:
            children.append((first, best, best_fractional))
            for action in actions[1:]:
                value, pv, fractional = search(apply(state, action), below, None)
                children.append((action, value, fractional))
                if value > best if player == 0 else value < best:
                    best, best_pv, best_fractional = value, (action, pv), fractional
        elif player == 0:
            for action in actions[1:]:
                value, pv, fractional = search(apply(state, action), below, None)
                if value > best:
                    best, best_pv, best_fractional = value, (action, pv), fractional
        else:
            for action in actions[1:]:
                value, pv, fractional = search(apply(state, action), below, None)
                if value < best:
                    best, best_pv, best_fractional = value, (action, pv), fractional
        return best, best_pv, best_fractional

    # Without a table the recursion calls expand directly: no wrapper call per node.
    search = position_table(expand, stats) if table else expand
    search = guard_path(game, search, depth is None)  # a cycle: RepetitionError, not recursion
    root = game.initial_state()
    try:
        value, pv, fractional = run_deep(search, root, depth, root_children)
    finally:
        stats.nodes = nodes
        stats.leaves = leaves
    frontier.evaluations = evaluations

    def vector(x: int, fractional: bool) -> tuple[Value, Value]:
        v = scale.exact(x, fractional)
        return (v, -v if total == 0 else total - v)

    action_values = tuple((action, vector(x, f)) for action, x, f in root_children)
    best_actions = (best_of(list(action_values), game.current_player(root))
                    if action_values else ())
    return SolveResult(values=vector(value, fractional), best_actions=best_actions, pv=pv_tuple(pv),
                       algorithm=algorithm, stats=stats,
                       proven=evaluations == 0, depth=depth,
                       extra={"action_values": action_values})
