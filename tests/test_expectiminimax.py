"""expectiminimax: the textbook expectation, Pig at depth 2, brute-force expectation."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings

from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.trees import deep_chain, trees
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import CHANCE, GENERAL_SUM, TERMINAL, ZERO_SUM, GameInfo
from gdl.solvers.expectiminimax import expectiminimax
from gdl.solvers.minimax import minimax
from gdl.solvers.result import SolverError

F = Fraction


def zero_sum_leaf(v):
    return Leaf((v, -v))


def game_of(root):
    return TreeGame(root, tree_info("test", ("P0", "P1"), root, ZERO_SUM))


# Russell & Norvig's expectation example: (1/2)·8 + (1/3)·24 + (1/6)·(-12) = 10.
EXPECTATION = Chance((("x", F(1, 2), zero_sum_leaf(8)), ("y", F(1, 3), zero_sum_leaf(24)),
                      ("z", F(1, 6), zero_sum_leaf(-12))))


# Independent evaluator on the tree itself: player 0's value, max / min / expectation.
def brute_force(node):
    if isinstance(node, Leaf):
        return node.values[0]
    if isinstance(node, Chance):
        return sum(p * brute_force(child) for _, p, child in node.children)
    values = [brute_force(child) for _, child in node.children]
    return max(values) if node.player == 0 else min(values)


def test_textbook_expectation():
    result = expectiminimax(game_of(EXPECTATION))
    assert result.values == (10, -10)
    assert (result.best_actions, result.pv) == ((), ())
    assert (result.stats.nodes, result.stats.leaves) == (4, 3)


def test_a_decision_over_a_chance_node():
    root = Decision(0, (("safe", zero_sum_leaf(9)), ("gamble", EXPECTATION)))
    result = expectiminimax(game_of(root))
    assert result.values == (10, -10)
    assert result.best_actions == ("gamble",)
    assert result.pv == ("gamble",)  # the variation stops where chance takes over


def test_chance_nodes_in_a_row():
    inner = Chance((("h", F(1, 2), zero_sum_leaf(4)), ("t", F(1, 2), zero_sum_leaf(0))))
    root = Decision(1, (("a", Chance((("h", F(1, 2), inner), ("t", F(1, 2), zero_sum_leaf(6))))),
                        ("b", zero_sum_leaf(5))))
    result = expectiminimax(game_of(root))
    assert result.values == (4, -4)  # (1/2)·((1/2)·4 + (1/2)·0) + (1/2)·6 = 4 < 5
    assert result.best_actions == ("a",)


class EvaluatedTree(TreeGame):
    def __init__(self, root, evaluations):
        super().__init__(root, dataclasses.replace(
            tree_info("evaluated", ("P0", "P1"), root, ZERO_SUM), has_evaluate=True))
        self.evaluations = evaluations

    def evaluate(self, state):
        v = self.evaluations[state]
        return (v, -v)


def test_chance_nodes_do_not_consume_depth():
    # root (P0) -a-> chance -> P1 decision -> leaves: two decision plies.
    reply = Decision(1, (("r", zero_sum_leaf(2)), ("s", zero_sum_leaf(6))))
    root = Decision(0, (("a", Chance((("h", F(1, 2), reply), ("t", F(1, 2), zero_sum_leaf(4))))),))
    game = EvaluatedTree(root, {1: 100})  # state 1 is the chance node
    full = expectiminimax(game, depth=2)
    assert full.values == (3, -3) and full.proven  # (1/2)·2 + (1/2)·4
    cut = expectiminimax(game, depth=1)  # the chance node is reached with no depth left
    assert cut.values == (100, -100) and not cut.proven


class Pig:
    """Pig with an n-sided die (OpenSpiel's rules): roll to add the face to the turn total, a 1
    loses it and ends the turn; stop banks it. First to ``target`` wins. Evaluation: the
    difference of banked scores."""

    def __init__(self, faces=3, target=100):
        self.faces, self.target = faces, target
        self.info = GameInfo(name="pig", players=("P0", "P1"), has_chance=True,
                             sum_kind=ZERO_SUM, utility_bounds=(-1, 1), has_evaluate=True)

    def initial_state(self):
        return (0, 0, 0, 0, False)  # scores, turn total, player to move, die in the air

    def current_player(self, state):
        scores0, scores1, _, player, rolling = state
        if max(scores0, scores1) >= self.target:
            return TERMINAL
        return CHANCE if rolling else player

    def legal_actions(self, state):
        return ("roll", "stop")

    def chance_outcomes(self, state):
        return [(face, F(1, self.faces)) for face in range(1, self.faces + 1)]

    def apply(self, state, action):
        scores = list(state[:2])
        _, _, total, player, rolling = state
        if rolling:
            if action == 1:
                return (*scores, 0, 1 - player, False)
            return (*scores, total + action, player, False)
        if action == "roll":
            return (*scores, total, player, True)
        scores[player] += total
        return (*scores, 0, 1 - player, False)

    def returns(self, state):
        v = 1 if state[0] >= self.target else -1
        return (v, -v)

    def evaluate(self, state):
        return (state[0] - state[1], state[1] - state[0])


def test_pig_three_sided_die_depth_two():
    result = expectiminimax(Pig(faces=3), depth=2)
    assert result.values == (F(5, 3), F(-5, 3))
    assert result.best_actions == ("roll",)
    assert not result.proven


@pytest.mark.parametrize("info_change, message", [
    ({"players": ("A", "B", "C")}, "exactly 2"),
    ({"sum_kind": GENERAL_SUM}, "general-sum"),
])
def test_refuses_games_it_cannot_solve(info_change, message):
    game = game_of(EXPECTATION)
    game.info = dataclasses.replace(game.info, **info_change)
    with pytest.raises(SolverError, match=message):
        expectiminimax(game)


def test_probabilities_must_sum_to_one():
    root = Chance((("x", F(1, 2), zero_sum_leaf(1)), ("y", F(1, 3), zero_sum_leaf(2))))
    with pytest.raises(SolverError, match="sum to 1"):
        expectiminimax(game_of(root))


@settings(max_examples=150, deadline=None)
@given(trees(chance=True))
def test_agrees_with_brute_force_expectation(game):
    result = expectiminimax(game)
    value = brute_force(game.root)
    assert result.values == (value, -value)
    if isinstance(game.root, Decision):
        children = dict(game.root.children)
        sign = 1 if game.root.player == 0 else -1
        best = max(sign * brute_force(child) for child in children.values())
        assert result.best_actions == tuple(
            a for a, child in children.items() if sign * brute_force(child) == best)
        assert result.pv[0] == result.best_actions[0]
    else:
        assert result.best_actions == ()


@settings(max_examples=80, deadline=None)
@given(trees())
def test_equals_minimax_without_chance(game):
    # Not gdl's minimax (which is expectiminimax's own recursion): brute force, written here.
    result = expectiminimax(game)
    value = brute_force(game.root)
    assert result.values == (value, -value)
    if isinstance(game.root, Decision):
        sign = 1 if game.root.player == 0 else -1
        children = dict(game.root.children)
        best = max(sign * brute_force(child) for child in children.values())
        assert result.best_actions == tuple(
            a for a, child in children.items() if sign * brute_force(child) == best)
    assert minimax(game).values == result.values


def test_deep_chain_does_not_hit_the_recursion_limit():
    result = expectiminimax(deep_chain(5000))
    assert result.values == (0, 0)
    assert len(result.pv) == 5000 and result.stats.nodes == 10001
