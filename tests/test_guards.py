"""Parameter guards, `action slide(fr in 0..3, fc in 0..3 if cell[fr][fc] == mover, ...)`: the
same legal moves as the guard written into `requires`, in every back end; guards are tested in
order, before `requires`, and the later parameters are enumerated only where a guard holds."""

from __future__ import annotations

import pytest

import gdl
from gdl.backends.native.build import compiler
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.tools.count import count

# Each player has one rook; a rook slides along its row or column, over anything, to an empty
# square. Four moves, then the rooks on the top row score.
GUARDED = """
game "Rooks"
players A, B
var cell[4][4] in {empty, A, B} = [[A, empty, empty, empty], [empty, empty, empty, empty],
                                   [empty, empty, empty, empty], [empty, empty, empty, B]]
var moves in 0..4 = 0
action slide(fr in 0..3, fc in 0..3 if cell[fr][fc] == mover, tr in 0..3,
             tc in 0..3 if (tr == fr) != (tc == fc))
    requires cell[tr][tc] == empty
    effect   cell[tr][tc] = mover; cell[fr][fc] = empty; moves = moves + 1
terminal moves == 4
utility A = count c in 0..3: cell[0][c] == A
zero-sum
"""

PLAIN = GUARDED.replace(" if cell[fr][fc] == mover", "").replace(
    " if (tr == fr) != (tc == fc)", "").replace(
    "requires cell[tr][tc] == empty",
    "requires cell[fr][fc] == mover and (tr == fr) != (tc == fc) and cell[tr][tc] == empty")

BACKENDS = ["interpret", "compile"] + (["native"] if compiler() is not None else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_guards_mean_the_same_as_requires(backend):
    guarded = gdl.loads(GUARDED, backend=backend)
    plain = gdl.loads(PLAIN, backend="interpret")
    root = guarded.initial_state()
    # by hand: A's rook in the corner has three squares along its row and three down its column
    assert [guarded.action_name(a) for a in guarded.legal_actions(root)] == [
        "slide(0,0,0,1)", "slide(0,0,0,2)", "slide(0,0,0,3)",
        "slide(0,0,1,0)", "slide(0,0,2,0)", "slide(0,0,3,0)"]
    assert count(guarded).per_ply == count(plain).per_ply
    assert gdl.solve(guarded).values == gdl.solve(plain).values


@pytest.mark.parametrize("backend", ["interpret", "compile"])
def test_a_guard_is_tested_before_requires(backend):
    # `requires` reads cell[0][fc + 1], out of range for fc = 3: the guard keeps it from running
    text = GUARDED.replace("fc in 0..3 if cell[fr][fc] == mover",
                           "fc in 0..3 if fc < 3 and cell[fr][fc] == mover").replace(
        "requires cell[tr][tc] == empty", "requires cell[0][fc + 1] != B and cell[tr][tc] == empty")
    game = gdl.loads(text, backend=backend)
    assert len(game.legal_actions(game.initial_state())) == 6


@pytest.mark.parametrize("wrong, code", [
    ("fc in 0..3 if cell[tr][fc] == mover", "E201"),     # a later parameter is not known yet
    ("fc in 0..3 if fc + 1", "E203"),                     # a guard is a condition
])
def test_guard_mistakes(wrong, code):
    with pytest.raises(GdlError) as caught:
        gdl.loads(GUARDED.replace("fc in 0..3 if cell[fr][fc] == mover", wrong))
    assert caught.value.diagnostics[0].code == code


def test_guards_format_and_read_back():
    once = format_text(GUARDED, "<t>")
    assert parse(once) == parse(GUARDED)
    assert format_text(once, "<t>") == once
    assert "fc in 0..3 if cell[fr][fc] == mover" in once
