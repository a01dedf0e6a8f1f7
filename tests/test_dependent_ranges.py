"""Ranges whose bounds use an action parameter, an outer binder or a define parameter: constant for
each ground action or binding, so allowed (E211 stays for ranges that read the state). Values are
counted by hand in each test; Chomp is checked against Gale's results."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl
from gdl.errors import GdlError

BACKENDS = ("interpret", "compile")
CHOMP = Path(__file__).resolve().parent.parent / "games" / "chomp.game"


def value_of(expr: str, backend: str, extra: str = ""):
    """The utility of a game that is over at once: the value of ``expr`` in the initial state."""
    text = (f'game "r"\nplayers A\nvar x in 0..5 = 2\naction go effect x = 1\n{extra}\n'
            f'terminal x == 2\nutility A = {expr}\n')
    game = gdl.loads(text, backend=backend)
    return game.returns(game.initial_state())[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("expr, expected", [
    # pairs i <= j in 0..3: 4 + 3 + 2 + 1
    ("count i in 0..3, j in i..3: true", 10),
    # sum of j over those pairs: (0+1+2+3) + (1+2+3) + (2+3) + 3
    ("sum i in 0..3, j in i..3: j", 20),
    ("1 if (any i in 0..3, j in i + 1..3: i == j) else 0", 0),          # j > i always
    ("1 if (all i in 0..3, j in 0..i: j <= i) else 0", 1),
    # nested quantifiers, the inner range from the outer binder: 1 + 2 + 3
    ("sum i in 1..3: (count j in 1..i: true)", 6),
    # empty ranges: j in 3..i is empty for i < 3
    ("count i in 0..4, j in 3..i: true", 1 + 2),
    # the range reads x only through a define parameter: 0..x-1 with x = 2 is {0, 1}
    ("upto(x)", 1),
])
def test_quantifier_ranges_from_binders(backend, expr, expected):
    assert value_of(expr, backend, "define upto(k) = sum j in 0..k - 1: j") == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_action_parameter_ranges_ground_to_the_pairs(backend):
    text = ('game "pairs"\nplayers A, B\nvar x in 0..9 = 0\n'
            'action pick(a in 0..3, b in a..3) effect x = 4 * a + b\n'
            'terminal x > 0\nutility A = 0\nzero-sum\n')
    game = gdl.loads(text, backend=backend)
    names = [game.action_name(a) for a in game.legal_actions(game.initial_state())]
    assert names == [f"pick({a},{b})" for a in range(4) for b in range(a, 4)]   # 10 actions


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_range_from_an_action_parameter(backend):
    # `for j in c..n - 1` marks the cells from c on.
    text = ('game "tail"\nplayers A, B\nparam n = 5\nvar m[n] in 0..1 = 0\nvar done in bool = false\n'
            'action mark(c in 0..n - 1) effect for j in c..n - 1 { m[j] = 1 } done = true\n'
            'terminal done\nutility A = sum j in 0..n - 1: m[j]\nzero-sum\n')
    game = gdl.loads(text, backend=backend)
    root = game.initial_state()
    assert [game.returns(game.apply(root, a))[0] for a in game.legal_actions(root)] == [5, 4, 3, 2, 1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cols", [2, 3, 5])
def test_chomp_two_rows_has_one_winning_bite(backend, cols):
    # Gale (1974): in 2 x n Chomp the positions (a, a - 1) (row lengths) are the losing ones for
    # the player to move, so from the full bar the only winning bite is the corner opposite the
    # poison, square (1, n - 1).
    game = gdl.load(CHOMP, {"rows": 2, "cols": cols}, backend=backend)
    result = gdl.solve(game)
    assert result.values == (1, -1)
    assert [game.action_name(a) for a in result.best_actions] == [f"bite(1,{cols - 1})"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_chomp_square_and_rectangles_are_first_player_wins(backend):
    # Strategy stealing (Gale): every rectangle but 1 x 1 is a first-player win; on a square,
    # biting (1, 1) leaves two equal arms, which the first player then mirrors.
    square = gdl.load(CHOMP, {"rows": 4, "cols": 4}, backend=backend)
    result = gdl.solve(square)
    assert result.values == (1, -1)
    assert "bite(1,1)" in [square.action_name(a) for a in result.best_actions]
    assert gdl.solve(gdl.load(CHOMP, backend=backend)).values == (1, -1)          # 3 x 4
    # 1 x 1: only the poison is left and the first player cannot move: it loses.
    assert gdl.solve(gdl.load(CHOMP, {"rows": 1, "cols": 1}, backend=backend)).values == (-1, 1)


def test_a_range_that_reads_the_state_is_still_refused():
    text = ('game "s"\nplayers A, B\nvar n in 0..3 = 0\n'
            'action add requires any k in 0..n: k == 2 effect n = n + 1\n'
            'terminal n == 3\nutility A = 1\nzero-sum\n')
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert caught.value.diagnostics[0].code == "E211"


def test_min_over_a_range_that_may_be_empty_is_refused():
    with pytest.raises(GdlError) as caught:
        value_of("min i in 0..3, j in i..3: j", "interpret")
    first = caught.value.diagnostics[0]
    assert first.code == "E210" and "constant range" in first.message
