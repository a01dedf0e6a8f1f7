"""`let`: local names in expressions (`let a = e1, b = e2: body`) and in effects (`let h = e`, for
the rest of the block). Expected values are worked out by hand in each test."""

from __future__ import annotations

import pytest

import gdl
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.moves import play

BACKENDS = ("interpret", "compile")


def utility(expr: str, backend: str, extra: str = "") -> object:
    text = (f'game "l"\nplayers A\nvar x in 0..9 = 3\nconst w = [5, 7, 9]\n{extra}\n'
            f'action go effect x = 1\nterminal x == 3\nutility A = {expr}\n')
    game = gdl.loads(text, backend=backend)
    return game.returns(game.initial_state())[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("expr, expected", [
    ("let a = x + 1: a * a", 16),                              # x = 3: 4 * 4
    ("let a = x, b = a * 2: a + b", 9),                        # 3 + 6: b uses a
    ("(let a = x: a) + (let a = 2: a)", 5),                    # separate scopes
    ("let d = 2 - 0, e = 1 - 0: (1 if d * d + e * e == 5 else 0)", 1),   # a knight's step
    ("sum i in 0..2: (let v = w[i]: v - i)", 5 + 6 + 7),
    ("let k = x // 2: w[k]", 7),                               # 3 // 2 = 1
    ("let q = x / 2: q * 2", 3),                               # exact: (3/2) * 2
    ("f(4)", 4 * 4 + 3),
])
def test_let_in_expressions(backend, expr, expected):
    assert utility(expr, backend, "define f(n) = let m = n * n: m + x") == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_let_value_may_fail_only_where_the_interpreter_fails(backend):
    # The value is evaluated even if the body does not use it: both back ends report E303.
    with pytest.raises(gdl.GameRuntimeError) as caught:
        utility("let v = w[x]: 0", backend)
    assert caught.value.diagnostics[0].code == "E303"


SOW = """
game "Sowing"
players A, B
var pit[5] in 0..20 = [3, 1, 0, 2, 4]
var done in bool = false
action sow(k in 0..4)
    requires pit[k] > 0
    effect   let hand = pit[k];                 # the seeds in hand: no state variable
             pit[k] = 0;
             for j in 1..hand { pit[(k + j) % 5] = pit[(k + j) % 5] + 1 }
             done = true
terminal done
utility A = sum i in 0..4: pit[i] * i
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("move, pits", [
    ("sow(0)", [0, 2, 1, 3, 4]),        # 3 seeds into pits 1, 2, 3
    ("sow(4)", [4, 2, 1, 3, 0]),        # 4 seeds around the end: pits 0, 1, 2, 3
    ("sow(1)", [3, 0, 1, 2, 4]),
])
def test_let_in_an_effect_keeps_the_value_it_took(backend, move, pits):
    game = gdl.loads(SOW, backend=backend)
    state = play(game, [move])
    assert game.returns(state)[0] == sum(i * p for i, p in enumerate(pits))


@pytest.mark.parametrize("backend", BACKENDS)
def test_let_in_a_loop_that_is_not_unrolled(backend):
    # 100 iterations (too many to unroll): each takes t's value before changing it.
    text = ('game "loop"\nplayers A\nvar t in 0..200 = 0\nvar s in 0..9999 = 0\n'
            'action go effect for i in 1..100 { let old = t; t = t + 2; s = s + old }\n'
            'terminal t > 0\nutility A = s\n')
    game = gdl.loads(text, backend=backend)
    state = play(game, ["go"])
    assert game.returns(state) == (sum(2 * k for k in range(100)),)    # 0 + 2 + ... + 198


@pytest.mark.parametrize("text", [
    "define f = let a = 1, b = a + 1: a * b == 2\n",
    "define g = (let a = 1: a) + 2\n",
    "define h = not (let a = true: a) and true\n",
    "action go effect let h = x; x = 0; y = h\n",
])
def test_let_formats_and_reads_back(text):
    once = format_text(text, "<t>")
    assert parse(once) == parse(text)
    assert format_text(once, "<t>") == once


def test_a_let_name_may_not_hide_another():
    with pytest.raises(GdlError) as caught:
        utility("let x = 1: x", "interpret")
    assert caught.value.diagnostics[0].code == "E200"
