"""Membership: `v in {a, b}` for symbols, `x in lo..hi` for numbers. Values worked out by hand."""

from __future__ import annotations

import pytest

import gdl
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse

BACKENDS = ("interpret", "compile")

PIECES = """
game "Pieces"
players A, B
var piece in {pawn, knight, rook, queen} = pawn
var n in 0..9 = 4
action set(to in {knight, rook, queen}) effect piece = to
terminal piece != pawn
utility A = (1 if piece in {rook, queen} else 0) + (10 if n in 3..5 else 0) + (100 if n in 5..9 else 0)
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_membership_in_symbols_and_ranges(backend):
    game = gdl.loads(PIECES, backend=backend)
    root = game.initial_state()
    # n = 4 is in 3..5 (10) and not in 5..9; rook and queen are in the set (1), knight is not.
    values = {game.action_name(a): game.returns(game.apply(root, a))[0] for a in game.legal_actions(root)}
    assert values == {"set(knight)": 10, "set(rook)": 11, "set(queen)": 11}


@pytest.mark.parametrize("wrong, code, phrase", [
    ("piece in {rok, queen}", "E201", "did you mean 'rook'"),     # no new symbol by mistake
    ("n in {rook}", "E203", "a range"),                            # a number is not a symbol
    ("piece in 1..3", "E203", "needs a number"),
])
def test_membership_mistakes(wrong, code, phrase):
    with pytest.raises(GdlError) as caught:
        gdl.loads(PIECES.replace("piece in {rook, queen}", wrong))
    first = caught.value.diagnostics[0]
    assert first.code == code and phrase in (first.hint or "") + first.message


@pytest.mark.parametrize("text", ["define f = p in {a, b} and x + 1 in 0..n - 1\n",
                                  "define g = not q in {c}\n", "define h = (p in {a}) == done\n"])
def test_membership_formats_and_reads_back(text):
    once = format_text(text, "<t>")
    assert parse(once) == parse(text)
    assert format_text(once, "<t>") == once
