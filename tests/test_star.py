"""Star1 and Star2: exactly expectiminimax's answer, never more nodes, and real pruning."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings

from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.trees import deep_chain, trees, uniform_trees
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, ZERO_SUM
from gdl.solvers.expectiminimax import expectiminimax
from gdl.solvers.result import SolverError
from gdl.solvers.star import star1, star2

F = Fraction
STARS = [star1, star2]


def zero_sum_leaf(v):
    return Leaf((v, -v))


def game_of(root, bounds=None, sum_kind=ZERO_SUM, utility_sum=None):
    info = tree_info("test", ("P0", "P1"), root, sum_kind, utility_sum)
    if bounds is not None:
        info = dataclasses.replace(info, utility_bounds=bounds)
    return TreeGame(root, info)


def min_node(prefix, *values):
    return Decision(1, tuple((f"{prefix}{i}", zero_sum_leaf(v)) for i, v in enumerate(values, 1)))


FIG_5_2 = Decision(0, (("a1", min_node("b", 3, 12, 8)), ("a2", min_node("c", 2, 4, 6)),
                       ("a3", min_node("d", 14, 5, 2))))


def assert_same_answer(game, result):
    expected = expectiminimax(game)
    assert result.values == expected.values
    assert result.best_actions == expected.best_actions
    assert result.pv == expected.pv
    assert result.stats.nodes <= expected.stats.nodes
    assert result.stats.leaves <= expected.stats.leaves


@pytest.mark.parametrize("star", STARS)
def test_figure_5_2_prunes_like_alpha_beta(star):
    result = star(game_of(FIG_5_2))
    assert (result.values, result.best_actions, result.pv) == ((3, -3), ("a1",), ("a1", "b1"))
    assert result.algorithm == star.__name__
    # c2 and c3 are never looked at (after c1 = 2 < 3); d3 = 2 < 3 is still needed to rule a3
    # out, since d1 and d2 are above 3.
    assert result.stats.nodes == 13 - 2


# Root P0: a1 is worth 2 for sure; a2 is a fair coin between two MIN nodes with leaves (1, 4).
# The bounds are declared wider than the leaves, as a game would declare them.
COIN_OVER_MIN = Decision(0, (("a1", zero_sum_leaf(2)),
                             ("a2", Chance((("h", F(1, 2), min_node("p", 1, 4)),
                                            ("t", F(1, 2), min_node("q", 1, 4)))))))


def test_star1_and_star2_prune_chance_nodes():
    game = game_of(COIN_OVER_MIN, bounds=(-5, 5))
    assert expectiminimax(game).stats.nodes == 9
    one, two = star1(game), star2(game)
    for result in (one, two):
        assert (result.values, result.best_actions, result.pv) == ((2, -2), ("a1",), ("a1",))
    # Star1: the first MIN node is searched in full (1), which leaves the coin worth at most
    # (1/2)·1 + (1/2)·5 = 3 > 2; the second MIN node's first leaf (1) then caps it at 1.
    assert one.stats.nodes == 8
    # Star2: probing the first leaf of each MIN node caps both at 1, so the coin is worth at most
    # 1 < 2 without looking at any 4.
    assert two.stats.nodes == 7


@pytest.mark.parametrize("star", STARS)
def test_root_ties_are_all_found(star):
    # Both root actions are worth exactly 1; pruning must not hide the second one.
    coin = Chance((("h", F(1, 2), min_node("p", 0, 3)), ("t", F(1, 2), min_node("q", 2, 5))))
    root = Decision(0, (("a1", zero_sum_leaf(1)), ("a2", coin), ("a3", zero_sum_leaf(-4))))
    result = star(game_of(root, bounds=(-5, 5)))
    assert result.values == (1, -1)
    assert result.best_actions == ("a1", "a2")


@pytest.mark.parametrize("star", STARS)
def test_constant_sum_and_chance_root(star):
    root = Chance((("x", F(1, 4), Leaf((4, 0))), ("y", F(3, 4), Decision(1, (
        ("a", Leaf((1, 3))), ("b", Leaf((3, 1))))))))
    result = star(game_of(root, sum_kind=CONSTANT_SUM, utility_sum=4))
    assert result.values == (F(7, 4), F(9, 4))  # (1/4)·4 + (3/4)·1
    assert (result.best_actions, result.pv) == ((), ())


@pytest.mark.parametrize("star", STARS)
def test_all_equal_leaves(star):
    root = Decision(0, (("a", zero_sum_leaf(0)), ("b", Chance((("x", F(1), zero_sum_leaf(0)),)))))
    assert star(game_of(root)).best_actions == ("a", "b")


class EvaluatedTree(TreeGame):
    def __init__(self, root, evaluations, bounds):
        super().__init__(root, dataclasses.replace(
            tree_info("evaluated", ("P0", "P1"), root, ZERO_SUM), has_evaluate=True,
            utility_bounds=bounds))
        self.evaluations = evaluations

    def evaluate(self, state):
        v = self.evaluations[state]
        return (v, -v)


@pytest.mark.parametrize("star", STARS)
def test_depth_limit_with_evaluation(star):
    game = EvaluatedTree(FIG_5_2, {1: 5, 5: 7, 9: 1}, bounds=(-20, 20))
    result = star(game, depth=1)
    assert (result.values, result.best_actions, result.proven) == ((7, -7), ("a2",), False)


@pytest.mark.parametrize("star", STARS)
def test_an_evaluation_outside_the_bounds_is_an_error(star):
    game = EvaluatedTree(FIG_5_2, {1: 5, 5: 70, 9: 1}, bounds=(-20, 20))
    with pytest.raises(SolverError, match="bounds"):
        star(game, depth=1)


@pytest.mark.parametrize("star", STARS)
def test_returns_outside_the_bounds_are_an_error(star):
    with pytest.raises(SolverError, match="bounds"):
        star(game_of(FIG_5_2, bounds=(-10, 10)))


@pytest.mark.parametrize("star", STARS)
@pytest.mark.parametrize("info_change, message", [
    ({"utility_bounds": None}, "utility bounds"),
    ({"players": ("A", "B", "C")}, "exactly 2"),
    ({"sum_kind": GENERAL_SUM}, "general-sum"),
])
def test_refuses_games_it_cannot_solve(star, info_change, message):
    game = game_of(FIG_5_2)
    game.info = dataclasses.replace(game.info, **info_change)
    with pytest.raises(SolverError, match=message):
        star(game)


# Free movers: a player may move twice, chance nodes may follow each other (Star2 falls back).
@settings(max_examples=150, deadline=None)
@given(trees(chance=True, max_depth=5))
def test_same_answer_as_expectiminimax_on_irregular_trees(game):
    for star in STARS:
        assert_same_answer(game, star(game))


# Alternating movers: chance outcomes lead to decision nodes of one player, so Star2 probes.
@settings(max_examples=150, deadline=None)
@given(trees(chance=True, max_depth=5, min_branching=2, alternating=True))
def test_same_answer_as_expectiminimax_on_regular_trees(game):
    for star in STARS:
        assert_same_answer(game, star(game))


@settings(max_examples=40, deadline=None)
@given(trees(chance=True, sum_kind=CONSTANT_SUM, total=5, alternating=True, min_branching=2))
def test_same_answer_on_constant_sum_trees(game):
    for star in STARS:
        assert_same_answer(game, star(game))


@settings(max_examples=30, deadline=None)
@given(uniform_trees(3, 4))
def test_same_answer_on_uniform_trees(game):
    for star in STARS:
        assert_same_answer(game, star(game))


@pytest.mark.parametrize("star", STARS)
def test_deep_chain_does_not_hit_the_recursion_limit(star):
    result = star(deep_chain(5000))
    assert result.values == (0, 0)
    assert result.best_actions == ("go", "stop")
    assert len(result.pv) == 5000


def test_window_ends_order_and_arithmetic_exactly():
    from gdl.solvers.window import NEG_INFINITY, POS_INFINITY, just_above, just_below
    below, above = just_below(F(1, 3)), just_above(F(1, 3))
    assert F(1, 3) > below and not F(1, 3) <= below and F(1, 3) < above
    assert below > F(1, 3) - F(1, 10**9) and below < F(1, 3)
    assert max(below, 0) is below and max(below, F(1, 3)) == F(1, 3)
    assert (below - F(1, 3)) / F(1, 2) < 0 < (above - F(1, 3)) / F(1, 2)
    assert 1 - below == just_above(F(2, 3))
    assert NEG_INFINITY < -10**30 and POS_INFINITY > 10**30 and -POS_INFINITY == NEG_INFINITY
    assert NEG_INFINITY + 5 == NEG_INFINITY
