"""Indices out of range whenever their rule is evaluated are found at check time (E220); indices
that only may be out of range (behind a guard, or past where `any` may stop) are left to play."""

from __future__ import annotations

import pytest

import gdl
from gdl.errors import GameRuntimeError, GdlError

GAME = """
game "Board"
players X, O
var cell[3][3] in {empty, X, O} = empty
var moves in 0..9 = 0
action place(r in 0..2, c in 0..2) requires cell[r][c] == empty effect cell[r][c] = mover; moves = moves + 1
terminal moves == 9 or TEST
utility X = 1
zero-sum
"""


def load(test: str, backend: str = "interpret"):
    return gdl.loads(GAME.replace("TEST", test), backend=backend)


@pytest.mark.parametrize("test, message", [
    ("all i in 0..2: cell[i][3 - i] == X", "index 3 is out of range 0..2 for 'cell' when i = 0"),
    ("(count i in 0..3: cell[i][0] == X) > 1", "when i = 3"),          # count reads every row
    ("(sum i in 0..2, j in 0..2: (1 if cell[i][j + i] == X else 0)) > 2", "when i = 1, j = 2"),
    ("any i in 0..2: (count j in 1..3: cell[i][j] == X) == 3", "when j = 3"),  # any: its first i
])
def test_an_index_out_of_range_for_a_sure_binding_is_a_check_error(test, message):
    with pytest.raises(GdlError) as caught:
        load(test)
    first = caught.value.diagnostics[0]
    assert first.code == "E220" and message in first.message
    assert first.span.line == 7


@pytest.mark.parametrize("test", [
    "all i in 0..2: cell[i][2 - i] == X",                       # the real anti-diagonal
    "all i in 0..2: (i > 0 and cell[i][3 - i] == X)",           # guarded: i = 0 never reads
    "any i in 0..3: cell[i][0] == X",                           # any may stop before i = 3
    "all i in 0..2: (all j in 1..3: cell[i][j] == X)",          # so may all, before j = 3
    "all i in 0..2: (cell[i][3 - i] == X if i > 0 else false)",
])
def test_a_guarded_or_possible_index_passes_the_check(test):
    load(test)


@pytest.mark.parametrize("backend", ["interpret", "compile"])
def test_what_the_check_leaves_is_still_caught_in_play(backend):
    # `any` over a column with no X reaches i = 3: a run-time error, as before
    game = load("any i in 0..3: cell[i][0] == X", backend)
    with pytest.raises(GameRuntimeError) as caught:
        game.current_player(game.initial_state())
    assert caught.value.code == "E303"


def test_action_parameters_in_requires_and_loops_in_effects():
    text = GAME.replace("TEST", "false")
    with pytest.raises(GdlError) as caught:       # every ground action's requires reads r + 1
        gdl.loads(text.replace("requires cell[r][c] == empty", "requires cell[r + 1][c] == empty"))
    assert "when r = 2" in caught.value.diagnostics[0].message
    with pytest.raises(GdlError) as caught:       # every iteration of a for loop runs
        gdl.loads(text.replace("moves = moves + 1", "moves = moves + 1; for k in 0..3 { cell[k][c] = mover }"))
    assert "when k = 3" in caught.value.diagnostics[0].message
    # behind the requires, an effect's parameters are not sure: only legal actions run it
    gdl.loads(text.replace("requires cell[r][c] == empty", "requires r < 2 and cell[r][c] == empty")
              .replace("effect cell[r][c] = mover", "effect cell[r + 1][c] = mover"))
