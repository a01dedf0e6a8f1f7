"""max^n: Figure 5.4, brute force on general-sum trees, minimax agreement, shallow pruning."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from aima_trees import C_NODES, FIG_5_4, leaves, node
from hypothesis import given, settings

from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.trees import deep_chain, trees
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM
from gdl.solvers.maxn import maxn
from gdl.solvers.minimax import minimax
from gdl.solvers.result import SolverError

F = Fraction
ABC = ("A", "B", "C")


def game_of(root, players=ABC, sum_kind=GENERAL_SUM, utility_sum=None):
    return TreeGame(root, tree_info("test", players, root, sum_kind, utility_sum))


# Independent evaluator on the tree: the mover takes the first child best for itself.
def brute_force(tree):
    if isinstance(tree, Leaf):
        return tree.values
    if isinstance(tree, Chance):
        vectors = [(p, brute_force(child)) for _, p, child in tree.children]
        return tuple(sum(p * v[k] for p, v in vectors) for k in range(len(vectors[0][1])))
    best = None
    for _, child in tree.children:
        v = brute_force(child)
        if best is None or v[tree.player] > best[tree.player]:
            best = v
    return best


def best_root_actions(tree):
    if not isinstance(tree, Decision):
        return ()
    values = {a: brute_force(child)[tree.player] for a, child in tree.children}
    return tuple(a for a, v in values.items() if v == max(values.values()))


def test_figure_5_4():
    result = maxn(game_of(FIG_5_4))
    assert result.values == (1, 2, 6)
    assert result.best_actions == ("a1", "a2")  # A is indifferent: 1 = 1
    assert result.pv == ("a1", "b1", "c1")
    assert dict(result.extra["action_values"]) == {"a1": (1, 2, 6), "a2": (1, 5, 2)}  # B's nodes
    assert [maxn(game_of(c)).values for c in C_NODES] == [(1, 2, 6), (6, 1, 2), (1, 5, 2),
                                                          (5, 4, 5)]
    assert result.stats.nodes == 15


def test_chance_nodes_average_vectors():
    coin = Chance((("h", F(1, 2), Leaf((4, 0, 2))), ("t", F(1, 2), Leaf((0, 4, 2)))))
    root = node(1, Leaf((1, 1, 4)), coin)
    result = maxn(game_of(root))
    assert result.values == (2, 2, 2)
    assert (result.best_actions, result.pv) == (("a2",), ("a2",))


@settings(max_examples=150, deadline=None)
@given(trees(players=3, chance=True, sum_kind=GENERAL_SUM))
def test_agrees_with_brute_force_on_general_sum_trees(game):
    result = maxn(game)
    assert result.values == brute_force(game.root)
    assert result.best_actions == best_root_actions(game.root)


@settings(max_examples=100, deadline=None)
@given(trees())
def test_two_player_zero_sum_is_minimax(game):
    expected, result = minimax(game), maxn(game)
    assert (result.values, result.best_actions, result.pv) == (
        expected.values, expected.best_actions, expected.pv)
    assert result.stats.nodes == expected.stats.nodes


# Shallow pruning.

def test_shallow_pruning_cuts_a_hopeless_child():
    # S = 10. A already has 6 from a1, so once B can get 5 > 10 - 6 under a2, A gets < 6 there.
    root = node(0, Leaf((6, 2, 2)), node(1, *leaves((0, 5, 5), (9, 0, 1)), prefix="b"))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    plain, pruned = maxn(game), maxn(game, shallow_pruning=True)
    assert pruned.values == plain.values == (6, 2, 2)
    assert pruned.best_actions == plain.best_actions == ("a1",)
    assert (plain.stats.nodes, pruned.stats.nodes, pruned.stats.cutoffs) == (5, 4, 1)


def test_shallow_pruning_keeps_root_ties():
    # Under a2, B's first reply gives B exactly 10 - 6 = 4, so A gets at most 6 there: a tie is
    # still possible, and indeed B's choice (6, 4, 0) ties with a1, so a2 is optimal too.
    root = node(0, Leaf((6, 2, 2)), node(1, *leaves((6, 4, 0), (3, 4, 3)), prefix="b"))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    pruned = maxn(game, shallow_pruning=True)
    assert pruned.values == (6, 2, 2)
    assert pruned.best_actions == ("a1", "a2")


def test_shallow_pruning_does_not_invent_root_ties():
    # B's first reply (6, 4, 0) looks like a tie for A, but B goes on to (5, 5, 0): stopping at
    # B's first reply (pruning on >= at the root) would wrongly call a2 optimal.
    root = node(0, Leaf((6, 2, 2)), node(1, *leaves((6, 4, 0), (5, 5, 0)), prefix="b"))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    assert maxn(game).best_actions == ("a1",)
    assert maxn(game, shallow_pruning=True).best_actions == ("a1",)


def test_shallow_pruning_prunes_ties_below_the_root():
    # One level down the tie rule makes >= safe: C (player 2) has 5 from c1, so under c2 once A
    # can get 10 - 5 = 5, C gets at most 5 there and keeps its first best c1.
    inner = node(2, Leaf((2, 3, 5)), node(0, *leaves((5, 0, 5), (7, 0, 3)), prefix="d"),
                 prefix="c")
    root = node(1, inner, Leaf((0, 0, 10)), prefix="b")
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    plain, pruned = maxn(game), maxn(game, shallow_pruning=True)
    assert (pruned.values, pruned.best_actions, pruned.pv) == (
        plain.values, plain.best_actions, plain.pv) == ((2, 3, 5), ("b1",), ("b1", "c1"))
    assert pruned.stats.nodes == plain.stats.nodes - 1


def test_no_pruning_when_the_same_player_moves_again_pruning_child_first():
    # Root A (0) has (6,2,2) in hand, so below its second action the cap is 10 - 6 = 4. That
    # child is A's own move again: its first grandchild (5,2,3) is over the cap, but A's gain
    # there is the root's gain, so nothing may be pruned: the next grandchild (9,0,1) is better
    # for A, and the root is worth (9,0,1). Pruning there would answer (6,2,2).
    root = node(0, Leaf((6, 2, 2)), node(0, *leaves((5, 2, 3), (9, 0, 1)), prefix="b"))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    assert maxn(game, shallow_pruning=True).values == (9, 0, 1)


def test_the_same_player_test_has_teeth(monkeypatch):
    import gdl.solvers.maxn as maxn_module

    def prunes_regardless(cap, player, own_best):
        parent, limit, strict = cap
        return own_best > limit if strict else own_best >= limit

    monkeypatch.setattr(maxn_module, "_beyond_cap", prunes_regardless)
    root = node(0, Leaf((6, 2, 2)), node(0, *leaves((5, 2, 3), (9, 0, 1)), prefix="b"))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    assert maxn(game, shallow_pruning=True).values == (6, 2, 2)    # the bug, seen


def test_no_pruning_when_the_same_player_moves_again():
    # The child belongs to the root's own mover: its gain is the parent's gain, no bound at all.
    root = node(0, Leaf((6, 2, 2)), node(0, *leaves((0, 5, 5), (9, 0, 1)), prefix="b"))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    assert maxn(game, shallow_pruning=True).values == (9, 0, 1)


@settings(max_examples=150, deadline=None)
@given(trees(players=3, chance=True, sum_kind=CONSTANT_SUM, total=6, max_depth=5))
def test_shallow_pruning_changes_nothing_but_the_node_count(game):
    plain, pruned = maxn(game), maxn(game, shallow_pruning=True)
    assert pruned.values == plain.values
    assert pruned.best_actions == plain.best_actions
    assert pruned.pv == plain.pv
    assert pruned.stats.nodes <= plain.stats.nodes


@settings(max_examples=60, deadline=None)
@given(trees(players=2, sum_kind=CONSTANT_SUM, total=4, alternating=True, min_branching=2))
def test_shallow_pruning_with_two_players(game):
    plain, pruned = maxn(game), maxn(game, shallow_pruning=True)
    assert (pruned.values, pruned.best_actions, pruned.pv) == (
        plain.values, plain.best_actions, plain.pv)
    assert pruned.stats.nodes <= plain.stats.nodes


@pytest.mark.parametrize("sum_kind, utility_sum, bounds, message", [
    (GENERAL_SUM, None, (0, 10), "constant-sum"),
    (CONSTANT_SUM, 10, (-1, 10), "non-negative"),
    (CONSTANT_SUM, 10, None, "non-negative"),
    (CONSTANT_SUM, None, (0, 10), "utility_sum"),
])
def test_shallow_pruning_refuses_games_without_its_conditions(sum_kind, utility_sum, bounds,
                                                              message):
    game = game_of(FIG_5_4)
    game.info = dataclasses.replace(game.info, sum_kind=sum_kind, utility_sum=utility_sum,
                                    utility_bounds=bounds)
    with pytest.raises(SolverError, match=message):
        maxn(game, shallow_pruning=True)


def test_shallow_pruning_checks_the_declared_sum():
    root = node(0, Leaf((6, 2, 2)), Leaf((1, 1, 1)))
    game = game_of(root, sum_kind=CONSTANT_SUM, utility_sum=10)
    with pytest.raises(SolverError, match="does not sum"):
        maxn(game, shallow_pruning=True)


def test_deep_chain_does_not_hit_the_recursion_limit():
    result = maxn(deep_chain(5000))
    assert result.values == (0, 0)
    assert len(result.pv) == 5000 and result.stats.nodes == 10001
