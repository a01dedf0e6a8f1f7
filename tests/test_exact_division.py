"""Exact division: `/` gives a rational number everywhere, `//` floors, and a rational number never
reaches a place that needs an integer (index, size, range bound, param, stored value).

Expected values are worked out by hand in each test (Python's Fraction only re-states them)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import gdl
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.moves import play

BACKENDS = ("interpret", "compile")

# A picks k in 1..4; the game ends at once. A's utility is 3/k - 3//k: the fractional part of 3/k,
# which is 0, 1/2, 0, 3/4 for k = 1, 2, 3, 4.
FRACTIONAL_PART = """
game "Fractional part"
players A, B
var k in 0..4 = 0
action pick(i in 1..4) effect k = i
terminal k > 0
utility A = 0 if k == 0 else 3 / k - 3 // k
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_slash_is_exact_and_double_slash_floors(backend):
    game = gdl.loads(FRACTIONAL_PART, backend=backend)
    root = game.initial_state()
    values = [game.returns(game.apply(root, a))[0] for a in game.legal_actions(root)]
    assert values == [0, Fraction(1, 2), 0, Fraction(3, 4)]
    assert all(type(v) in (int, Fraction) for v in values)   # exact, never a float


@pytest.mark.parametrize("backend", BACKENDS)
def test_solving_a_rational_utility(backend):
    # A maximises the fractional part: 3/4 (k = 4); B gets -3/4 (zero-sum).
    game = gdl.loads(FRACTIONAL_PART, backend=backend)
    result = gdl.solve(game)
    assert result.values == (Fraction(3, 4), Fraction(-3, 4))
    assert [game.action_name(a) for a in result.best_actions] == ["pick(4)"]


# A define used as a probability divides exactly (it used to floor to 0).
THIRDS = """
game "Thirds"
players A, B
var x in 0..2 = 0
var done in bool = false
define third = 1 / 3
action draw effect random d in {0: third, 2: 1 - third}; x = d; done = true
terminal done
utility A = x
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_define_divides_exactly_as_a_probability(backend):
    game = gdl.loads(THIRDS, backend=backend)
    chance = play(game, ["draw"])
    assert [p for _, p in game.chance_outcomes(chance)] == [Fraction(1, 3), Fraction(2, 3)]
    # 1/3 * 0 + 2/3 * 2 = 4/3
    assert gdl.solve(game).values[0] == Fraction(4, 3)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("expr, expected", [
    ("7 / 2", Fraction(7, 2)), ("-7 / 2", Fraction(-7, 2)), ("6 / 3", 2), ("7 // 2", 3),
    ("-7 // 2", -4), ("1 / 2 + 1 / 3", Fraction(5, 6)), ("(1 / 2) * 4", 2),
    ("max(1 / 3, 1 / 4)", Fraction(1, 3)), ("abs(-5 / 4)", Fraction(5, 4)),
    ("sum i in 1..3: 1 / i", Fraction(11, 6)), ("min i in 1..3: i / 2", Fraction(1, 2)),
    ("1 if 1 / 2 < 2 / 3 else 0", 1), ("1 if 2 / 4 == 1 / 2 else 0", 1),
    ("1 / 2 if x == 0 else 2", Fraction(1, 2)),
])
def test_rational_expressions(backend, expr, expected):
    # The value depends on the state (x), so the compiler cannot fold every expression away.
    text = (f'game "r"\nplayers A\nvar x in 0..1 = 0\naction go effect x = 1\nterminal x == 0\n'
            f'utility A = {expr}\n')
    game = gdl.loads(text, backend=backend)
    assert game.returns(game.initial_state()) == (expected,)


def test_a_constant_is_typed_by_its_value():
    # n / 2 is the integer 3 when n is 6, so it may size an array; with n = 5 it is 5/2 and may not.
    text = """
game "Halves"
players A, B
param n = 6
const half = n / 2
var cell[half] in 0..1 = 0
action mark(i in 0..half - 1) requires cell[i] == 0 effect cell[i] = 1
terminal all i in 0..half - 1: cell[i] == 1
utility A = 1
zero-sum
"""
    game = gdl.loads(text)
    assert len(game.legal_actions(game.initial_state())) == 3
    with pytest.raises(GdlError) as caught:
        gdl.loads(text, params={"n": 5})
    first = caught.value.diagnostics[0]
    assert first.code == "E203" and "5/2" in first.message and "`//`" in first.hint


@pytest.mark.parametrize("line, phrase", [
    ("param p = 1 / 2", "a parameter must be an integer"),
    ("max-length 7 / 2", "a length bound must be an integer"),
    ("var y in 0..5 / 2 = 0", "a range bound must be an integer"),
    ("action other requires 3 / 2 % 2 == 1", "'%' needs integers"),
])
def test_a_rational_in_an_integer_place_is_located(line, phrase):
    text = ('game "g"\nplayers A, B\nvar x in 0..1 = 0\naction go effect x = 1\n'
            f'{line}\nterminal x == 1\nutility A = 1\nzero-sum\n')
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    first = caught.value.diagnostics[0]
    assert first.code == "E203" and first.span.line == 5
    assert phrase in first.message and "`//`" in first.hint


@pytest.mark.parametrize("text", ["utility A = 7 / 2 + x // 3 * (y % 2)\n",
                                  "define f = (a / b) // c\n", "define g = a / (b / c)\n",
                                  "define h = a // b // c\n"])
def test_division_formats_and_reads_back(text):
    once = format_text(text, "<t>")
    assert parse(once) == parse(text)
    assert format_text(once, "<t>") == once
    assert "(" not in format_text("define h = a // b // c\n", "<t>")   # left-associative
