"""Expectiminimax's hot path computes with integers over one common scale (gdl.solvers.scale),
not Fraction. These tests hold it to plain Fraction arithmetic written here, independently: the
same values (and value types), optimal sets, principal variations and node counts, on generated
trees and rule files; and to closed forms where the scale must grow (more chance levels than it
first holds, denominators it did not know)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdl.backends.load import load, loads
from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.rules import rule_games
from gdl.generators.trees import trees
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import CHANCE, TERMINAL, ZERO_SUM
from gdl.solvers.expectiminimax import expectiminimax
from gdl.solvers.scale import LEVELS, Rescale, Scale

F = Fraction
GAMES = Path(__file__).resolve().parent.parent / "games"


# ---- an independent reference: plain recursion in Fraction arithmetic ---------------------------

def plain(game, state, depth):
    """(player 0's value, principal variation, nodes, leaves): the textbook recursion, Fraction
    arithmetic, the first best child in declaration order, the variation stopping at chance."""
    player = game.current_player(state)
    if player == TERMINAL:
        return game.returns(state)[0], (), 1, 1
    if depth is not None and depth <= 0:
        return game.evaluate(state)[0], (), 1, 1
    nodes, leaves = 1, 0
    if player == CHANCE:
        value = 0
        for outcome, p in game.chance_outcomes(state):
            v, _, n, leaf = plain(game, game.apply(state, outcome), depth)
            value += p * v
            nodes, leaves = nodes + n, leaves + leaf
        return value, (), nodes, leaves
    best = line = None
    for action in game.legal_actions(state):
        v, rest, n, leaf = plain(game, game.apply(state, action), None if depth is None
                                 else depth - 1)
        nodes, leaves = nodes + n, leaves + leaf
        if best is None or (v > best if player == 0 else v < best):
            best, line = v, (action, *rest)
    return best, line, nodes, leaves


def root_set(game, state, depth):
    """Every root action whose value equals the best, by the plain recursion."""
    player = game.current_player(state)
    if player < 0:
        return ()
    below = None if depth is None else depth - 1
    values = [(a, plain(game, game.apply(state, a), below)[0]) for a in game.legal_actions(state)]
    best = (max if player == 0 else min)(v for _, v in values)
    return tuple(a for a, v in values if v == best)


def same_as_plain(game, depth=None):
    found = expectiminimax(game, depth=depth)
    root = game.initial_state()
    value, line, nodes, leaves = plain(game, root, depth)
    assert found.values[0] == value
    assert type(found.values[0]) is type(value)        # a Fraction exactly where Fraction gives one
    assert found.values[0] + found.values[1] == (game.info.utility_sum or 0)
    assert found.best_actions == root_set(game, root, depth)
    assert found.pv == line
    assert (found.stats.nodes, found.stats.leaves) == (nodes, leaves)


# ---- the scale itself ----------------------------------------------------------------------------

def test_weights_are_probabilities_over_the_common_denominator():
    scale = Scale(12, 2)
    assert scale.unit == 144
    assert scale.weights([("a", F(1, 3)), ("b", F(1, 4)), ("c", F(5, 12))]) == [4, 3, 5]
    assert scale.weights([("only", 1)]) == [12]


def test_a_denominator_the_scale_lacks_asks_for_a_larger_one():
    scale = Scale(6, 3)
    with pytest.raises(Rescale) as raised:
        scale.weights([("a", F(1, 4)), ("b", F(3, 4))])
    again = scale.again(raised.value)
    assert (again.denominator, again.levels) == (12, 3)
    with pytest.raises(Rescale) as raised:
        scale.scaled(F(1, 5))
    assert raised.value.denominator == 30
    assert Scale(6, 3).scaled(F(-5, 36)) == -5 * 6       # (-5/36) * 6^3


def test_more_levels_double_or_reach_the_declared_length_at_once():
    scale = Scale(2, 4)
    assert scale.deeper().levels == 8
    assert scale.deeper(plies=40).levels == 41


def test_back_to_exact_values_of_the_right_type():
    scale = Scale(6, 2)
    assert scale.exact(36 * 5, False) == 5 and type(scale.exact(36 * 5, False)) is int
    assert scale.exact(6, True) == F(1, 6)
    assert type(scale.exact(36, True)) is Fraction       # 1, as Fraction arithmetic gives it


# ---- the scale must grow: more chance levels than it first holds, new denominators ---------------

def chain(qs):
    """Chance nodes in a row: at level k, with probability 1 - q_k player 0 wins (1), else the
    next level; below the last, player 0 loses (-1). Player 0's value: 1 - 2 * prod(q_k)."""
    node = Leaf((-1, 1))
    for k, q in reversed(list(enumerate(qs))):
        node = Chance(((f"win{k}", 1 - q, Leaf((1, -1))), (f"on{k}", q, node)))
    return Decision(0, (("go", node), ("stay", Leaf((0, 0)))))


def test_a_chain_deeper_than_the_first_scale_with_mixed_denominators():
    qs = [F(1, 2), F(1, 3), F(2, 5), F(3, 7)] * 10          # 40 levels > LEVELS, four primes
    assert len(qs) > LEVELS
    root = chain(qs)
    game = TreeGame(root, tree_info("chain", ("P0", "P1"), root, ZERO_SUM))
    product = F(1)
    for q in qs:
        product *= q
    found = expectiminimax(game)
    assert found.values == (1 - 2 * product, 2 * product - 1)
    assert found.best_actions == ("go",) and found.pv == ("go",)
    assert (found.stats.nodes, found.stats.leaves) == (1 + 40 + 40 + 1 + 1, 40 + 1 + 1)


def test_textbook_expectation_and_pig_at_depth_two_on_the_compiled_game():
    # FACTS.md: (1/2)·8 + (1/3)·24 + (1/6)·(-12) = 10
    root = Chance((("x", F(1, 2), Leaf((8, -8))), ("y", F(1, 3), Leaf((24, -24))),
                   ("z", F(1, 6), Leaf((-12, 12)))))
    found = expectiminimax(TreeGame(root, tree_info("t", ("P0", "P1"), root, ZERO_SUM)))
    assert found.values == (10, -10) and type(found.values[0]) is Fraction
    # FACTS.md (OpenSpiel's test): Pig with a three-sided die, depth 2: 5/3, best action roll
    pig = load(GAMES / "pig.game", backend="compile")
    found = expectiminimax(pig, depth=2)
    assert found.values == (F(5, 3), F(-5, 3))
    assert [pig.action_name(a) for a in found.best_actions] == ["roll"]


# ---- generated games: the same answer as plain Fraction arithmetic -------------------------------

LEAF_VALUES = (-3, -1, 0, 2, F(1, 3), F(-5, 7), F(9, 4))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(players=2, max_depth=5, max_branching=3, chance=True, values=LEAF_VALUES))
def test_generated_trees_match_plain_fraction_arithmetic(game):
    same_as_plain(game)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_games(players=2, chance=True, sum_kinds=(ZERO_SUM, "constant-sum"), max_nodes=200,
                  second_edition=True), st.sampled_from([None, 1, 2, 3]))
def test_generated_rule_files_match_plain_fraction_arithmetic(generated, depth):
    game = loads(generated.text, "generated.game", backend="compile")
    if depth is not None and not game.info.has_evaluate:
        depth = None
    same_as_plain(game, depth)
