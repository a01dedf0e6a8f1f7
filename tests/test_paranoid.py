"""paranoid: one player against a coalition; minimax when there are two players."""

from __future__ import annotations

import dataclasses

import pytest
from aima_trees import FIG_5_4
from hypothesis import given, settings

from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.trees import deep_chain, trees
from gdl.lang.ir import Chance, Leaf
from gdl.protocol import CHANCE, GENERAL_SUM, TERMINAL, ZERO_SUM
from gdl.solvers.minimax import minimax
from gdl.solvers.paranoid import ParanoidView, paranoid
from gdl.solvers.result import SolverError

ABC = ("A", "B", "C")
FIG_5_4_GAME = TreeGame(FIG_5_4, tree_info("fig 5.4", ABC, FIG_5_4, GENERAL_SUM))


# Independent evaluator on the tree: the chosen player maximises its utility, everyone else
# minimises it.
def brute_force(tree, player):
    if isinstance(tree, Leaf):
        return tree.values[player]
    values = [brute_force(child, player) for _, child in tree.children]
    return max(values) if tree.player == player else min(values)


def test_figure_5_4_paranoid_for_a():
    # C's nodes give A min(1, 4) = 1, min(6, 7) = 6, min(5, 1) = 1, min(7, 5) = 5; B's nodes
    # min(1, 6) = 1 and min(1, 5) = 1; A is indifferent.
    result = paranoid(FIG_5_4_GAME, 0)
    assert result.extra["paranoid_value"] == 1
    assert result.best_actions == ("a1", "a2")
    assert result.pv == ("a1", "b1", "c1")
    assert result.values == (1, 2, 6)  # the leaf at the end of the principal variation
    assert result.algorithm == "paranoid"


def test_figure_5_4_paranoid_for_c():
    # For C: C's nodes max(6, 3) = 6, max(2, 1) = 2, max(1, 2) = 2, max(1, 5) = 5; B takes
    # min(6, 2) = 2 and min(2, 5) = 2; A, also against C, is indifferent.
    result = paranoid(FIG_5_4_GAME, 2)
    assert result.extra["paranoid_value"] == 2
    assert result.best_actions == ("a1", "a2")  # the coalition's optimal moves at the root
    assert result.pv == ("a1", "b2", "c1")
    assert result.values == (6, 1, 2)


def test_the_view_is_a_two_player_zero_sum_game():
    view = ParanoidView(FIG_5_4_GAME, 1)
    assert view.info.players == ("B", "coalition")
    assert view.info.sum_kind == ZERO_SUM and view.info.num_players == 2
    assert view.info.utility_bounds == (-7, 7)
    root = view.initial_state()
    assert view.current_player(root) == 1  # A belongs to the coalition against B
    b_node = view.apply(root, "a1")
    assert view.current_player(b_node) == 0
    leaf = view.apply(view.apply(b_node, "b1"), "c1")
    assert view.current_player(leaf) == TERMINAL
    assert view.returns(leaf) == (2, -2)
    chance_game = TreeGame(Chance((("x", 1, Leaf((1, 2, 3))),)),
                           tree_info("c", ABC, Chance((("x", 1, Leaf((1, 2, 3))),))))
    assert ParanoidView(chance_game, 0).current_player(0) == CHANCE


@settings(max_examples=150, deadline=None)
@given(trees())
def test_two_players_is_minimax(game):
    expected, result = minimax(game), paranoid(game, 0)
    assert (result.values, result.best_actions, result.pv) == (
        expected.values, expected.best_actions, expected.pv)
    assert result.stats.nodes <= expected.stats.nodes


@settings(max_examples=60, deadline=None)
@given(trees())
def test_two_players_from_the_second_players_side(game):
    expected, result = minimax(game), paranoid(game, 1)
    assert result.extra["paranoid_value"] == expected.values[1]
    assert result.best_actions == expected.best_actions


@settings(max_examples=150, deadline=None)
@given(trees(players=3, sum_kind=GENERAL_SUM, max_depth=5))
def test_agrees_with_brute_force_on_three_players(game):
    for player in range(3):
        result = paranoid(game, player)
        value = brute_force(game.root, player)
        assert result.extra["paranoid_value"] == value
        assert result.values[player] == value
        sign = 1 if game.root.player == player else -1
        children = dict(game.root.children)
        best = max(sign * brute_force(child, player) for child in children.values())
        assert result.best_actions == tuple(
            a for a, child in children.items() if sign * brute_force(child, player) == best)


class EvaluatedFigure(TreeGame):
    def __init__(self):
        super().__init__(FIG_5_4, dataclasses.replace(FIG_5_4_GAME.info, has_evaluate=True))

    def evaluate(self, state):
        return {1: (3, 0, 0), 8: (2, 0, 0)}[state]  # the two B nodes


def test_depth_limit():
    result = paranoid(EvaluatedFigure(), 0, depth=1)
    assert (result.extra["paranoid_value"], result.best_actions, result.pv) == (3, ("a1",), ("a1",))
    assert result.values == (3, 0, 0) and not result.proven


def test_refusals():
    with pytest.raises(SolverError, match="not a player"):
        paranoid(FIG_5_4_GAME, 3)
    chance_root = Chance((("x", 1, Leaf((1, 2, 3))),))
    with pytest.raises(SolverError, match="chance"):
        paranoid(TreeGame(chance_root, tree_info("c", ABC, chance_root)), 0)
    with pytest.raises(SolverError, match="evaluation"):
        paranoid(FIG_5_4_GAME, 0, depth=1)


def test_deep_chain_does_not_hit_the_recursion_limit():
    result = paranoid(deep_chain(5000), 0)
    assert result.values == (0, 0) and result.best_actions == ("go", "stop")
    assert len(result.pv) == 5000
