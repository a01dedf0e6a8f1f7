"""`constant-sum` with a constant expression, and `max-length 0` (a game nobody moves in)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import gdl
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse

BACKENDS = ("interpret", "compile")

SPLIT = """
game "Split"
players A, B
param pot = 6
var x in 0..9 = 0
action take(k in 1..pot) effect x = k
terminal x > 0
utility A = x / 2
constant-sum pot / 2
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pot, values", [(6, (3, 0)), (5, (Fraction(5, 2), 0))])
def test_constant_sum_from_an_expression(backend, pot, values):
    # A takes the whole pot (x = pot) and gets pot / 2; B gets the rest of pot / 2: nothing.
    game = gdl.loads(SPLIT, params={"pot": pot}, backend=backend)
    assert game.info.utility_sum == Fraction(pot, 2)
    assert gdl.solve(game).values == values


def test_constant_sum_must_be_a_number():
    with pytest.raises(GdlError) as caught:
        gdl.loads(SPLIT.replace("constant-sum pot / 2", "constant-sum true"))
    assert caught.value.diagnostics[0].code == "E203"


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_length_zero(backend):
    text = ('game "Nothing"\nplayers A, B\naction wait requires false\nterminal true\n'
            'utility A = 0\nzero-sum\nmax-length 0\n')
    game = gdl.loads(text, backend=backend)
    assert game.info.max_length == 0
    assert game.current_player(game.initial_state()) < 0      # terminal at once
    assert gdl.solve(game).values == (0, 0)


@pytest.mark.parametrize("text", ["constant-sum pot / 2\n", "constant-sum -3\n", "constant-sum 7\n"])
def test_sums_format_and_read_back(text):
    once = format_text(text, "<t>")
    assert once == text and parse(once) == parse(text)
