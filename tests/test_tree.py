"""`gdl tree` and gdl.tools.search_tree: the explored tree, its values, bounds and pruned branches.

Expected values come from ../shared/FACTS.md (AIMA figures 5.2 and 5.4, the expectation example,
Knuth & Moore's minimal tree), or are checked against an independent minimax at every node."""

import re
import shutil

import pytest
from helpers import GAMES

import gdl
from gdl.cli import main
from gdl.moves import play
from gdl.protocol import TERMINAL, format_value
from gdl.tools.search_tree import record, to_dot, to_text

FIG52 = str(GAMES / "aima-fig5-2.game")


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---- AIMA Figure 5.2 with alpha-beta (FACTS: value 3, best a1, c2 and c3 never looked at) -------

def test_fig52_dot_shows_root_value_and_the_two_pruned_leaves(capsys):
    code, dot, err = run(capsys, ["tree", FIG52, "--algorithm", "alphabeta", "--format", "dot"])
    assert code == 0, err
    assert dot.startswith("digraph")
    nodes = dict(re.findall(r'^\s*(\w+) \[label="([^"]*)"', dot, re.M))
    assert nodes["n0"] == "MAX\\n3"
    pruned_edges = re.findall(r'^\s*(\w+) -> (p\d+) \[label="(\w+)", style=dashed', dot, re.M)
    assert sorted(label for _, _, label in pruned_edges) == ["c2", "c3"]
    assert all(nodes[p] == "pruned" for _, p, _ in pruned_edges)
    # Both hang under the node reached by a2, whose value is then only an upper bound: <= 2.
    a2 = re.search(r'^\s*n0 -> (n\d+) \[label="a2"', dot, re.M)[1]
    assert {parent for parent, _, _ in pruned_edges} == {a2}
    assert nodes[a2] == "MIN\\n≤ 2"
    # The chosen action a1 is on the highlighted principal path.
    assert re.search(r'n0 -> n\d+ \[label="a1", color="#1f5fbf"', dot)


def test_fig52_txt_shows_root_value_and_the_two_pruned_leaves(capsys):
    code, txt, err = run(capsys, ["tree", FIG52, "--algorithm", "alphabeta", "--format", "txt"])
    assert code == 0, err
    lines = txt.splitlines()
    assert "MAX 3" in lines
    pruned = [line for line in lines if line.endswith("(pruned)")]
    assert [line.split()[-2] for line in pruned] == ["c2", "c3"]
    assert any(re.search(r"\* a1\s+MIN 3$", line) for line in lines)
    assert any(re.search(r"a2\s+MIN ≤ 2$", line) for line in lines)
    # every other leaf was looked at: b1..b3, c1, d1..d3 with their values
    for leaf, value in [("b1", 3), ("b2", 12), ("b3", 8), ("c1", 2), ("d1", 14), ("d2", 5),
                        ("d3", 2)]:
        assert any(re.search(rf"\b{leaf}\s+{value}$", line) for line in lines), leaf


def test_minimax_visits_every_node_of_fig52():
    tree = record(gdl.load(FIG52), "minimax")
    # 1 root + 3 MIN nodes + 9 leaves, nothing pruned; value 3 (FACTS).
    assert (tree.nodes, tree.pruned) == (13, 0)
    assert tree.root.value[0] == 3 and tree.root.chosen.name == "a1"


@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_recorded_nodes_are_the_solvers_nodes(algorithm):
    game = gdl.load(GAMES / "tictactoe.game")
    root = play(game, ["place(1,1)", "place(0,0)", "place(2,2)"])
    tree = record(game, algorithm, root=root)
    assert tree.nodes == tree.result.stats.nodes
    assert tree.root.value == tree.result.values


# ---- bounds are sound: every node's interval holds its true minimax value ---------------------

def _minimax(game, state):
    if game.current_player(state) == TERMINAL:
        return game.returns(state)[0]
    values = [_minimax(game, game.apply(state, a)) for a in game.legal_actions(state)]
    return max(values) if game.current_player(state) == 0 else min(values)


def test_alphabeta_bounds_contain_the_true_values():
    # An independent brute-force minimax at the state of every visited node.
    game = gdl.load(GAMES / "tictactoe.game")
    root = play(game, ["place(0,1)", "place(1,1)", "place(2,2)"])
    tree = record(game, "alphabeta", root=root)
    assert tree.pruned > 0
    exact = 0
    for node in tree.walk():
        true = _minimax(game, node.state)
        assert node.low <= true <= node.high
        exact += node.low == node.high
    assert tree.root.low == tree.root.high == _minimax(game, root)
    assert exact < tree.nodes        # some nodes really are only bounded


# ---- Knuth & Moore: perfect ordering visits b^ceil(d/2) + b^floor(d/2) - 1 leaves -------------

def _ordered_tree_text(b, d):
    """A uniform tree in the rule language whose first child is always strictly best for the
    mover: values are in MAX's terms; MAX's first child is worth t, later ones t - 1, t - 2...;
    MIN's first child t, later ones t + 1, t + 2, ..."""
    def node(ply, t, name):
        if ply == d:
            return str(t)
        player = "MAX" if ply % 2 == 0 else "MIN"
        step = -1 if player == "MAX" else 1
        children = [f"{name}{i}: {node(ply + 1, t + step * i, name + str(i))}" for i in range(b)]
        return f"{player} {{ {' '.join(children)} }}"
    return f'game "ordered"\nplayers MAX, MIN\ntree {node(0, 0, "x")}\nzero-sum\n'


@pytest.mark.parametrize("b,d,leaves", [(3, 3, 11), (2, 4, 7), (3, 4, 17)])
def test_knuth_moore_minimal_tree(b, d, leaves):
    game = gdl.loads(_ordered_tree_text(b, d))
    tree = record(game, "alphabeta")
    visited_leaves = sum(1 for n in tree.walk() if not n.children and n.leaf is not None)
    assert visited_leaves == leaves == b ** ((d + 1) // 2) + b ** (d // 2) - 1
    assert tree.root.value[0] == 0


# ---- n players and chance ----------------------------------------------------------------------

def test_fig54_maxn_backs_up_vectors_and_marks_both_root_actions(capsys):
    # FACTS: C's nodes (1,2,6) (6,1,2) (1,5,2) (5,4,5); B's (1,2,6) (1,5,2); root (1,2,6) and
    # both root actions are optimal for A.
    code, txt, err = run(capsys, ["tree", str(GAMES / "aima-fig5-4.game"), "--format", "txt"])
    assert code == 0, err
    lines = txt.splitlines()
    assert "A (1, 2, 6)" in lines
    for action, value in [("b1", "C (1, 2, 6)"), ("b2", "C (6, 1, 2)"), ("b3", "C (1, 5, 2)"),
                          ("b4", "C (5, 4, 5)"), ("a1", "B (1, 2, 6)"), ("a2", "B (1, 5, 2)")]:
        assert any(re.search(rf"\b{action}\s+{re.escape(value)}$", line) for line in lines)
    assert any("* a1" in line for line in lines) and any("+ a2" in line for line in lines)


def test_chance_node_shows_probabilities_and_the_expectation(capsys):
    # FACTS: (1/2)·8 + (1/3)·24 + (1/6)·(−12) = 10.
    code, txt, err = run(capsys, ["tree", str(GAMES / "chance-example.game"), "--format", "txt"])
    assert code == 0, err
    lines = txt.splitlines()
    assert "chance 10" in lines
    assert any(line.endswith("(1/2)  8") for line in lines)
    assert any(line.endswith("(1/6)  -12") for line in lines)


# ---- formats, limits ---------------------------------------------------------------------------

def test_svg_without_graphviz_says_how_to_get_it(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code, out, err = run(capsys, ["tree", FIG52, "--format", "svg", "-o", str(tmp_path / "t.svg")])
    assert code == 2 and out == ""
    assert "apt-get install graphviz" in err and "brew install graphviz" in err
    assert not (tmp_path / "t.svg").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_svg_with_graphviz(capsys, tmp_path):
    path = tmp_path / "t.svg"
    code, out, err = run(capsys, ["tree", FIG52, "--format", "svg", "-o", str(path)])
    assert code == 0, err
    svg = path.read_text()
    assert "<svg" in svg and ">pruned<" in svg


def test_too_large_a_tree_suggests_a_depth(capsys):
    # Plain minimax visits all 549,946 histories of tic-tac-toe (FACTS), far above the limit.
    code, out, err = run(capsys, ["tree", str(GAMES / "tictactoe.game"), "--algorithm", "minimax"])
    assert code == 2 and out == ""
    assert "more than 2,000 nodes" in err and "--depth" in err


def test_depth_limit_without_evaluation_uses_a_neutral_one(capsys):
    code, txt, err = run(capsys, ["tree", str(GAMES / "tictactoe.game"), "--depth", "1",
                                  "--format", "txt"])
    assert code == 0, err
    assert "declares no evaluation" in txt
    # 1 root + 9 children scored at the horizon, each worth 0 to everyone.
    assert sum(1 for line in txt.splitlines() if line.endswith("O 0 (evaluated)")) == 9


def test_dot_and_text_render_the_same_tree():
    tree = record(gdl.load(FIG52), "alphabeta")
    dot, txt = to_dot(tree), to_text(tree)
    assert dot.count(" -> ") == tree.nodes - 1 + tree.pruned
    assert txt.count("├── ") + txt.count("└── ") == tree.nodes - 1 + tree.pruned


# ---- a chance game whose exact search starts over (expectiminimax's finer scale) ---------------

def _expectimax(game, state):
    """Player 0's exact value by brute force: every chance outcome weighted by its probability
    (Fractions), every decision the mover's best. Independent of the solvers and the recorder."""
    from fractions import Fraction

    from gdl.protocol import CHANCE

    player = game.current_player(state)
    if player == TERMINAL:
        return Fraction(game.returns(state)[0])
    if player == CHANCE:
        return sum(Fraction(p) * _expectimax(game, game.apply(state, outcome))
                   for outcome, p in game.chance_outcomes(state))
    values = [_expectimax(game, game.apply(state, a)) for a in game.legal_actions(state)]
    return max(values) if player == 0 else min(values)


def test_pacman_random_tree_is_drawn_once_without_a_traceback(capsys):
    # The exact search of this game restarts at a finer scale (its probabilities are 1/2 and
    # 1/3); the restart is not a visit: no "(re-search)" and, expectiminimax pruning nothing,
    # no "(pruned)" outcome. The value is the brute-force expectation.
    game = gdl.load(GAMES / "pacman-random.game")
    truth = _expectimax(game, game.initial_state())
    code, txt, err = run(capsys, ["tree", str(GAMES / "pacman-random.game"), "--format", "txt"])
    assert code == 0, err
    assert "Traceback" not in err
    assert "(re-search)" not in txt
    assert not [line for line in txt.splitlines() if line.endswith("(pruned)")]
    assert f"value Pacman {format_value(truth)}, Ghost {format_value(-truth)}" in txt
    assert "started over from the root" in txt
    assert txt.splitlines()[3] == f"Pacman {format_value(truth)}"


@pytest.mark.parametrize("name", ["pacman-random", "kuhn"])
def test_a_restarted_search_is_recorded_as_the_final_search(name):
    from gdl.protocol import CHANCE

    text = (GAMES / f"{name}.game").read_text()
    # (Kuhn with both cards seen: expectiminimax is for games where everyone sees everything)
    game = gdl.loads(text.replace("\nprivate card", "\n# both cards seen"), f"{name}.game")
    tree = record(game, "expectiminimax")
    assert tree.nodes == tree.result.stats.nodes
    assert tree.pruned == 0
    for node in tree.walk():
        # Each visited node holds every move of its position exactly once, and its value is
        # the brute-force expectimax value of its state.
        if node.player == CHANCE:
            moves = [outcome for outcome, _ in game.chance_outcomes(node.state)]
        elif node.player == TERMINAL:
            moves = []
        else:
            moves = list(game.legal_actions(node.state))
        assert [c.action for c in node.children] == moves
        assert not node.repeat
        assert node.low == node.high == _expectimax(game, node.state)


def test_a_chance_node_with_an_outcome_never_valued_is_unknown_not_a_partial_sum():
    # Hand-built: a decision root whose first child is a chance node with two outcomes of 1/2,
    # only one of them valued (a search stopped inside the other), and a second child worth 1.
    # The expectation is unknown; the root may only say it is at least 1.
    from fractions import Fraction

    from gdl.protocol import CHANCE
    from gdl.tools.search_tree import Node, SearchTree, back_up, value_text

    root = Node(0, "r", 0, available=("a", "b"))
    chance = Node(1, "c", CHANCE, "a", "a", parent=root,
                  available=(("h", Fraction(1, 2)), ("t", Fraction(1, 2))))
    heads = Node(2, "h", TERMINAL, "h", "h", Fraction(1, 2), chance, leaf=(4, -4))
    tails = Node(3, "t", 1, "t", "t", Fraction(1, 2), chance, available=("x",))
    other = Node(4, "b", TERMINAL, "b", "b", parent=root, leaf=(1, -1))
    chance.children = [heads, tails]
    root.children = [chance, other]

    class Result:
        best_actions = ()

    tree = SearchTree(root, ("P", "Q"), "expectiminimax", Result(), True, 5, 0)
    back_up(tree)
    assert chance.value is None and value_text(tree, chance) == "?"
    assert value_text(tree, root) == "≥ 1"
