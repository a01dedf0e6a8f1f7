"""minimax: textbook values, tic-tac-toe facts, agreement with a brute-force evaluator."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.trees import deep_chain, trees
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, TERMINAL, ZERO_SUM, GameInfo
from gdl.solvers.minimax import minimax
from gdl.solvers.result import SolverError


def zero_sum_leaf(v):
    return Leaf((v, -v))


def min_node(prefix, *values):
    return Decision(1, tuple((f"{prefix}{i}", zero_sum_leaf(v)) for i, v in enumerate(values, 1)))


# Russell & Norvig, Figure 5.2.
FIG_5_2 = Decision(0, (("a1", min_node("b", 3, 12, 8)),
                       ("a2", min_node("c", 2, 4, 6)),
                       ("a3", min_node("d", 14, 5, 2))))


def game_of(root, sum_kind=ZERO_SUM, utility_sum=None):
    return TreeGame(root, tree_info("test", ("P0", "P1"), root, sum_kind, utility_sum))


class EvaluatedTree(TreeGame):
    """A tree with an evaluation given per state number, for depth-limited searches."""

    def __init__(self, root, evaluations):
        super().__init__(root, dataclasses.replace(
            tree_info("evaluated", ("P0", "P1"), root, ZERO_SUM), has_evaluate=True))
        self.evaluations = evaluations

    def evaluate(self, state):
        v = self.evaluations[state]
        return (v, -v)


# An independent evaluator, written on the tree itself: player 0 maximises its value, player 1
# minimises it (no vectors, no protocol).
def brute_force(node):
    if isinstance(node, Leaf):
        return node.values[0]
    values = [brute_force(child) for _, child in node.children]
    return max(values) if node.player == 0 else min(values)


def count_nodes(node):
    return 1 + sum(count_nodes(child) for _, child in getattr(node, "children", ()))


def test_figure_5_2():
    result = minimax(game_of(FIG_5_2))
    assert result.values == (3, -3)
    assert result.best_actions == ("a1",)
    assert result.pv == ("a1", "b1")
    assert result.algorithm == "minimax"
    assert result.proven
    assert (result.stats.nodes, result.stats.leaves) == (13, 9)


def test_ties_give_every_optimal_action_and_the_first_on_the_pv():
    root = Decision(0, (("x", min_node("p", 5, 1)), ("y", min_node("q", 1, 9)),
                        ("z", zero_sum_leaf(0))))
    result = minimax(game_of(root))
    assert result.values == (1, -1)
    assert result.best_actions == ("x", "y")
    assert result.pv == ("x", "p2")


def test_constant_sum_vector():
    root = Decision(1, (("a", Leaf((3, 1))), ("b", Leaf((1, 3)))))
    result = minimax(game_of(root, CONSTANT_SUM, 4))
    assert result.values == (1, 3)
    assert result.best_actions == ("b",)


def test_terminal_root():
    result = minimax(game_of(Leaf((2, -2))))
    assert (result.values, result.best_actions, result.pv) == ((2, -2), (), ())
    assert (result.stats.nodes, result.stats.leaves) == (1, 1)


def test_depth_limit_uses_the_evaluation_and_is_not_proven():
    game = EvaluatedTree(FIG_5_2, {0: 0, 1: 5, 5: 7, 9: 1})  # states of the three MIN nodes
    result = minimax(game, depth=1)
    assert result.values == (7, -7)
    assert result.best_actions == ("a2",)
    assert result.pv == ("a2",)
    assert not result.proven
    assert (result.stats.nodes, result.stats.leaves) == (4, 3)
    root_only = minimax(game, depth=0)
    assert (root_only.values, root_only.best_actions, root_only.pv) == ((0, 0), (), ())
    deep_enough = minimax(game, depth=2)
    assert deep_enough.values == (3, -3) and deep_enough.proven


@pytest.mark.parametrize("info_change, message", [
    ({"players": ("A", "B", "C")}, "exactly 2"),
    ({"sum_kind": GENERAL_SUM}, "general-sum"),
    ({"sum_kind": CONSTANT_SUM, "utility_sum": None}, "utility_sum"),
    ({"has_chance": True}, "expectiminimax"),
])
def test_refuses_games_it_cannot_solve(info_change, message):
    game = game_of(FIG_5_2)
    game.info = dataclasses.replace(game.info, **info_change)
    with pytest.raises(SolverError, match=message):
        minimax(game)


def test_refuses_a_depth_limit_without_evaluation():
    with pytest.raises(SolverError, match="evaluation"):
        minimax(game_of(FIG_5_2), depth=1)
    with pytest.raises(SolverError, match="non-negative"):
        minimax(EvaluatedTree(FIG_5_2, {}), depth=-1)


def test_a_game_breaking_its_declared_sum_is_an_error():
    root = Decision(0, (("a", Leaf((1, 1))),))
    with pytest.raises(SolverError, match="does not sum"):
        minimax(game_of(root))


def test_undeclared_chance_is_an_error():
    root = Decision(0, (("a", Chance((("h", 1, zero_sum_leaf(1)),))),))
    game = game_of(root)
    game.info = dataclasses.replace(game.info, has_chance=False)
    with pytest.raises(SolverError, match="chance"):
        minimax(game)


@settings(max_examples=150, deadline=None)
@given(trees())
def test_agrees_with_brute_force(game):
    result = minimax(game)
    assert result.values == (brute_force(game.root), -brute_force(game.root))
    children = dict(game.root.children)
    mover = 1 if game.root.player == 0 else -1
    best = max(mover * brute_force(children[a]) for a in children)
    assert result.best_actions == tuple(a for a in children if mover * brute_force(children[a]) == best)
    assert result.pv[0] == result.best_actions[0]
    assert result.stats.nodes == count_nodes(game.root)  # minimax visits every state once
    # The principal variation is a legal line ending at a leaf worth the minimax value.
    state = game.initial_state()
    for action in result.pv:
        state = game.apply(state, action)
    assert game.current_player(state) == TERMINAL and game.returns(state) == result.values


def test_deep_chain_does_not_hit_the_recursion_limit():
    result = minimax(deep_chain(5000))
    assert result.values == (0, 0)
    assert result.best_actions == ("go", "stop")
    assert result.pv == ("go",) * 4999 + ("stop",)
    assert result.stats.nodes == 10001


class TicTacToe:
    """3x3 tic-tac-toe, X (player 0) first; cells 0-8 row by row; +1/0/-1 for X."""

    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
             (2, 4, 6)]
    info = GameInfo(name="tic-tac-toe", players=("X", "O"), sum_kind=ZERO_SUM,
                    utility_bounds=(-1, 1), max_length=9)

    def __init__(self, moves=()):
        self.start = (0,) * 9
        for cell in moves:
            self.start = self.apply(self.start, cell)

    def initial_state(self):
        return self.start

    def winner(self, board):
        for a, b, c in self.LINES:
            if board[a] and board[a] == board[b] == board[c]:
                return board[a]
        return 0

    def current_player(self, board):
        if self.winner(board) or all(board):
            return TERMINAL
        return board.count(1) - board.count(2)  # X to move when the counts are equal

    def legal_actions(self, board):
        return [i for i in range(9) if not board[i]]

    def apply(self, board, cell):
        mark = 1 if board.count(1) == board.count(2) else 2
        return board[:cell] + (mark,) + board[cell + 1:]

    def returns(self, board):
        v = {0: 0, 1: 1, 2: -1}[self.winner(board)]
        return (v, -v)


def test_tic_tac_toe_from_the_empty_board():
    result = minimax(TicTacToe())
    assert result.values == (0, 0)
    assert result.best_actions == tuple(range(9))  # every first move draws
    assert result.stats.nodes == 549_946
    assert result.stats.leaves == 255_168  # complete games


def test_tic_tac_toe_positions_from_openspiel():
    assert minimax(TicTacToe(moves=(4, 1))).values == (1, -1)
    assert minimax(TicTacToe(moves=(5, 4, 3, 8))).values == (-1, 1)
