"""Expectiminimax: minimax with chance nodes valued by their exact expectation.

Preconditions (checked on ``game.info``): exactly two players, zero-sum or constant-sum. Chance
is allowed anywhere, including several chance nodes in a row; a game without chance gives the
same answer as ``minimax``. A depth limit needs a declared evaluation.

One recursion serves both players and chance. Every vector is ``(v, total - v)``, so a node
returns player 0's value v alone: a decision node keeps the child that maximises the mover's own
component (player 0 the largest v, player 1 the smallest), a chance node returns the
probability-weighted sum of its children's values. The arithmetic is exact without ``Fraction``
in the hot path: values are integers over one common scale (gdl.solvers.scale), turned back into
exact values, Fraction or int as Fraction arithmetic would give them, at the root (the type is
read off the end of the value's principal variation, not carried per node: see ``_search``). A
leaf vector is checked against what the game declares the first time it is met, not at every
leaf. Every state is visited: ``stats.nodes`` counts each visit, root included.

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

import sys
from operator import is_
from typing import Any

from gdl.protocol import CHANCE, TERMINAL, Action, State, Value
from gdl.solvers.common import (
    Frontier,
    best_of,
    chance_outcomes,
    no_legal_actions,
    require_depth,
    require_two_player_constant_sum,
    unexpected_chance,
)
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolveResult, Stats
from gdl.solvers.scale import Rescale, Scale
from gdl.solvers.trace import Trace, tell_edges
from gdl.solvers.wide import refuse_wide


def expectiminimax(game, *, depth: int | None = None, table: bool = False,
                   trace: Trace | None = None) -> SolveResult:
    """Exact expectiminimax value, optimal root actions and principal variation. With
    ``table``, a transposition table keyed by (state, depth left) answers a position met again
    (``stats.tt_probes`` / ``tt_hits``): a horizon game then costs what its states cost, not its
    histories. The answer is the same either way (a position's value and first best child
    depend only on the position and the depth left). ``trace``: a gdl.solvers.trace.Trace that
    receives the search's events."""
    return search_game(game, depth, "expectiminimax", table, trace)


def search_game(game, depth: int | None, algorithm: str, table: bool = False,
                trace: Trace | None = None) -> SolveResult:
    """The one recursion behind expectiminimax and minimax (which is this on chance-free games:
    the chance branch is then never taken, so the two visit the same nodes).

    The hot path keeps player 0's value only, as an integer over one common scale
    (gdl.solvers.scale): both players' values are ``(v, total - v)``, so the mover 0 maximises
    v and the mover 1 minimises it, with the same strict comparison (first best wins ties).
    A scale too small for some value raises ``Rescale`` and the search starts again with a larger
    one (its counters too), so the answer and the counts are those of one exact search."""
    info = game.info
    refuse_wide(info, algorithm)
    total = require_two_player_constant_sum(info, algorithm)
    require_depth(info, depth, algorithm)
    scale = Scale()
    while True:
        try:
            return _search(game, depth, algorithm, table, total, scale, trace)
        except Rescale as rescale:
            scale = scale.again(rescale)
            if trace is not None:
                trace.restart()


# Starts of a decision node's best value, beyond every value (floats: an int compares with them
# exactly, and the first child always replaces them).
_BELOW_ALL = float("-inf")
_ABOVE_ALL = float("inf")

# How a principal variation ends tells the type of the value it belongs to (see _search):
# None for an int, FRACTIONAL for a Fraction. Both are false, so a walk stops at either.
FRACTIONAL: tuple[()] = ()

# A variation under construction: (action, rest), ending in None or FRACTIONAL.
Line = tuple[Action, "Line"] | tuple[()] | None


def _flatten(link: Line) -> tuple[Action, ...]:
    """The actions of a variation."""
    actions = []
    while link:
        action, link = link
        actions.append(action)
    return tuple(actions)


def _ends_fractional(link: Line) -> bool:
    while link:
        link = link[1]
    return link is FRACTIONAL


def _told(trace: Trace, game: Any, returns: Any, evaluate: Any) -> tuple:
    """The game's ``apply``, ``returns`` and ``evaluate`` as a traced search calls them: each
    move it applies to search a child is an edge of the trace (a chance outcome's with its
    probability), each utility or evaluation it reads a leaf."""
    def traced_returns(state: State) -> Any:
        values = returns(state)
        trace.leaf(values)
        return values

    def traced_evaluate(state: State) -> Any:
        values = evaluate(state)   # (only called with a depth: then there is one)
        trace.leaf(values, True)
        return values

    return (tell_edges(game, trace).apply, traced_returns,
            traced_evaluate if evaluate is not None else None)


def _search(game, depth: int | None, algorithm: str, table: bool, total: Value,
            scale: Scale, trace: Trace | None = None) -> SolveResult:
    """One exact search at one scale (Rescale when the scale is too small).

    Every node returns player 0's value as an integer over the scale, and leaves its principal
    variation in ``line`` (a variable of this function, not a second return value: one store
    instead of a tuple built and unpacked per node).

    The type a value would have under Fraction arithmetic (int or Fraction: the native tier and
    the tests compare types too) is not tracked per node either: it is read off the end of the
    value's variation, which is FRACTIONAL exactly when the value is a Fraction. By induction on
    the tree:
    - a leaf's variation is empty, ending in None when its value is an int, FRACTIONAL when a
      Fraction (the leaf sets it so);
    - a decision node's value is one of its children's values, the same number of the same type,
      and its variation is that child's with one action in front, so it ends as the child's does;
    - a chance node's value is ``sum(p_i * v_i)``, starting from the int 0. Under Fraction
      arithmetic that is a Fraction as soon as one term is (an int times a Fraction is a Fraction,
      even times 0, and so is an int plus a Fraction), and a term is a Fraction exactly when
      ``p_i`` or ``v_i`` is. The chance node's variation is empty (what comes next depends on
      the outcome) and it ends FRACTIONAL when some probability is a Fraction, or else when some
      child's variation ends FRACTIONAL (checked only then: with Fraction probabilities, as in
      nearly every game, the children's types cannot change the answer).
    """
    declared_chance = game.info.has_chance
    stats = Stats()
    frontier = Frontier(game, stats, total=total)
    check_leaf = frontier.check
    current_player, apply, legal = game.current_player, game.apply, game.legal_actions
    game_outcomes = getattr(game, "chance_outcomes", None)   # a chance-free game may have none
    returns = game.returns
    evaluate = game.evaluate if depth is not None else None   # (a depth needs one: checked)
    unit = scale.unit
    scaled = scale.scaled
    divisor = scale.denominator
    deeper = scale.deeper
    max_length = game.info.max_length
    weights_of = scale.weights
    # Leaf vectors already checked (validity depends on the values only). ``int_leaves`` maps an
    # all-int vector to player 0's scaled value: one lookup checks and scales a leaf met before.
    valid: set = set()
    int_leaves: dict[tuple, int] = {}
    # The distribution met last, as outcome pairs, its integer weights, and whether a probability
    # is a Fraction: a game that hands out the same pair objects again (compiled games do, for a
    # fixed distribution) needs no new weights and no second check.
    last_pairs: tuple = ()
    last_weights: list[int] = []
    last_fractional = False
    # Counters: a node is counted by its parent when it expands it (``len(children)`` at once),
    # the root by itself; a table hit is taken back (it is not a visit).
    nodes = terminals = evaluations = 0
    # A search without a depth limit counts down from a depth no path can reach, so one
    # comparison serves both (evaluate is then never called).
    unlimited = depth is None
    line: Line = None

    def vector(x: int, link: Line) -> tuple[Value, Value]:
        """Both players' exact values from player 0's scaled one and its variation's end."""
        v = scale.exact(x, _ends_fractional(link))
        return (v, -v if total == 0 else total - v)

    def leaf(state: State, values: Any, source: str) -> int:
        """A leaf vector not met before (or not all-int): checked against what the game
        declares, remembered, scaled; its type left in ``line``."""
        nonlocal line
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
        v = values[0]
        if type(v) is int:
            x = v * unit
            if type(values[1]) is int and len(int_leaves) < 4096:
                int_leaves[values] = x
            line = None
            return x
        x = scaled(v)
        line = FRACTIONAL
        return x

    def expand(state: State, depth_left: int) -> int:
        nonlocal nodes, terminals, evaluations, line, last_pairs, last_weights, last_fractional
        player = current_player(state)
        if player == TERMINAL:
            terminals += 1
            values = returns(state)
            # A hit needs an int first value too: (Fraction(1), ...) equals (1, ...) as a key.
            # (The lookup is written out here and for evaluations below: a call per leaf would
            # cost more than the lookup itself.)
            try:
                x = int_leaves.get(values)
            except TypeError:
                x = None
            if x is not None and type(values[0]) is int:
                line = None
                return x
            return leaf(state, values, "returns")
        if depth_left <= 0:
            evaluations += 1
            values = evaluate(state)  # type: ignore[misc]  # a depth needs an evaluation
            try:
                x = int_leaves.get(values)
            except TypeError:
                x = None
            if x is not None and type(values[0]) is int:
                line = None
                return x
            return leaf(state, values, "evaluate")
        if player == CHANCE:
            if not declared_chance:  # the game's info said no chance: a broken promise
                raise unexpected_chance(game, algorithm)
            outcomes = game_outcomes(state)  # type: ignore[misc]  # declared_chance: it has one
            if len(outcomes) == len(last_pairs) and all(map(is_, outcomes, last_pairs)):
                weights, fractional = last_weights, last_fractional
            else:
                outcomes = chance_outcomes(game, state, outcomes)   # checked
                weights = weights_of(outcomes)
                fractional = any(type(p) is not int for _, p in outcomes)
                if all(type(pair) is tuple for pair in outcomes):
                    last_pairs, last_weights = tuple(outcomes), weights
                    last_fractional = fractional
            nodes += len(outcomes)
            # Exact: sum(w_i * x_i) over the common denominator. Every vector sums to `total`
            # (leaves are checked) and the probabilities sum to 1, so the second player's
            # expectation is exactly total minus the first's.
            weighted = 0
            if fractional:
                for (outcome, _), w in zip(outcomes, weights):
                    weighted += w * search(apply(state, outcome), depth_left)
            else:
                for (outcome, _), w in zip(outcomes, weights):
                    weighted += w * search(apply(state, outcome), depth_left)
                    fractional = fractional or _ends_fractional(line)
            value, remainder = divmod(weighted, divisor)
            if remainder:
                raise deeper(max_length)
            line = FRACTIONAL if fractional else None
            return value
        below = depth_left - 1
        actions = legal(state)
        if not actions:
            raise no_legal_actions(game, state)
        nodes += len(actions)
        # A later child replaces the best so far only when strictly better for the mover (the
        # first best wins ties): player 0 maximises v, player 1 maximises total - v, i.e.
        # minimises v. One loop per mover keeps the comparison out of a branch. The first child
        # always replaces the start, which is beyond every value (a float: an int compares with
        # it exactly).
        if below <= 0 and leaves_here:
            # Every child is a leaf (terminal, or evaluated: no depth left, chance or not).
            # Most nodes of a depth-limited search are, so each is scored here, as expand would
            # score it, without a call of its own. (A table counts its probes: not then; nor
            # with a trace, which is told of each node expand is called for.)
            best = _BELOW_ALL if player == 0 else _ABOVE_ALL
            for action in actions:
                child = apply(state, action)
                if current_player(child) == TERMINAL:
                    terminals += 1
                    values = returns(child)
                    source = "returns"
                else:
                    evaluations += 1
                    values = evaluate(child)  # type: ignore[misc]  # a depth: it has one
                    source = "evaluate"
                try:
                    x = int_leaves.get(values)
                except TypeError:
                    x = None
                if x is None or type(values[0]) is not int:
                    x = leaf(child, values, source)     # sets line
                else:
                    line = None
                if x > best if player == 0 else x < best:
                    best, best_line = x, (action, line)
        elif player == 0:
            best = _BELOW_ALL
            for action in actions:
                value = search(apply(state, action), below)
                if value > best:
                    best, best_line = value, (action, line)
        else:
            best = _ABOVE_ALL
            for action in actions:
                value = search(apply(state, action), below)
                if value < best:
                    best, best_line = value, (action, line)
        line = best_line
        return best   # type: ignore[return-value]  # an int: the first child replaced the start

    def tabled(state: State, depth_left: int) -> int:
        """``expand`` with a transposition table keyed by (state, depth left): sound, as a
        position's value, variation and type depend only on the position and the depth left."""
        nonlocal nodes, line
        stats.tt_probes += 1
        key = (state, None if unlimited else depth_left)
        found = known.get(key)
        if found is None:
            found = known[key] = (expand(state, depth_left), line)
        else:
            stats.tt_hits += 1
            nodes -= 1
            line = found[1]
            if trace is not None:
                trace.table(vector(found[0], line))
        return found[0]

    def traced_expand(state: State, depth_left: int) -> int:
        """``expand`` telling the trace of the node (with a trace only: the search given none
        runs ``expand`` itself, with no test for one). The search tells it through the calls
        it makes: this is called for each node it enters; the game's ``apply``, ``returns``
        and ``evaluate`` below (the traced ones) for each edge it follows and each leaf it
        reads; a node still open when ``expand`` returns backs up the value returned."""
        assert trace is not None
        player = current_player(state)
        number = trace.enter(state, player)
        x = plain_expand(state, depth_left)
        if trace.is_open(number):
            values = vector(x, line)
            if player == CHANCE:
                trace.average([(a, p, v[0]) for a, p, v in trace.results()], values)
                trace.exit(values)
            else:
                trace.exit(values, best=line[0])  # type: ignore[index,misc]  # (a decision)
        return x

    known: dict[tuple[State, int | None], tuple[int, Line]] = {}
    plain_expand = expand
    leaves_here = not table     # children scored in place, without a call of expand each
    if trace is not None:
        expand = traced_expand
        leaves_here = False
        apply, returns, evaluate = _told(trace, game, returns, evaluate)
    # Without a table the recursion calls expand directly: no wrapper call per node.
    search = tabled if table else expand
    search = guard_path(game, search, unlimited)  # a cycle: RepetitionError, not recursion
    start = sys.maxsize if depth is None else depth   # more plies than any path can have

    def root(state: State) -> tuple[int, Line, list[tuple[Action, int, Line]]]:
        """The root: counted, never answered from the table, and kept off the path guard as
        alpha-beta's is (a cycle through it is found one state later); a decision root lists
        its children."""
        nonlocal nodes
        nodes += 1
        player = current_player(state)
        if player < 0 or start <= 0:   # terminal, chance or no depth left: nothing to list
            return expand(state, start), line, []
        if trace is not None:
            trace.enter(state, player)
        actions = legal(state)
        if not actions:
            raise no_legal_actions(game, state)
        nodes += len(actions)
        children = []
        for action in actions:
            value = search(apply(state, action), start - 1)
            children.append((action, value, line))
        # The first best: max and min return the first of equal keys.
        best_action, best, best_line = (max if player == 0 else min)(
            children, key=lambda child: child[1])
        if trace is not None:
            trace.exit(vector(best, best_line), best=best_action)
        return best, (best_action, best_line), children

    initial = game.initial_state()
    try:
        value, pv, children = run_deep(root, initial)
    finally:
        stats.nodes = nodes
        stats.leaves = terminals + evaluations
    frontier.evaluations = evaluations

    action_values = tuple((action, vector(x, link)) for action, x, link in children)
    best_actions = (best_of(list(action_values), current_player(initial))
                    if action_values else ())
    return SolveResult(values=vector(value, pv), best_actions=best_actions,
                       pv=_flatten(pv), algorithm=algorithm, stats=stats,
                       proven=evaluations == 0, depth=depth,
                       extra={"action_values": action_values})
