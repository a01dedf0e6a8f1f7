"""Maps from symbols to values: `const worth = {pawn: 1, knight: 3}` and `worth[piece]`. Values
worked out by hand; every back end must give them."""

from __future__ import annotations

import pytest

import gdl
from gdl.backends.native.build import compiler
from gdl.errors import GameRuntimeError, GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.solvers import solve

BACKENDS = ("interpret", "compile", "native")
# as in test_native: the native tier is optional, and needs a C compiler
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")

MATERIAL = """
game "Material"
players A, B
var piece[players] in {pawn, knight, bishop, queen} = pawn
const worth = {pawn: 1, knight: 3, bishop: 3, queen: 9}
define value(p) = worth[piece[p]]
action promote(to in {knight, bishop, queen}) by A requires piece[A] == pawn effect piece[A] = to
action underpromote(to in {knight, bishop}) by B requires piece[B] == pawn effect piece[B] = to
terminal piece[A] != pawn and piece[B] != pawn
utility A = value(A) - worth[piece[B]]
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_map_reads_the_value_of_each_key(backend):
    game = gdl.loads(MATERIAL, backend=backend)
    root = game.initial_state()
    # after A's promotion, B's best reply is worth 3 either way: 3 - 3, 3 - 3, 9 - 3
    after = {game.action_name(a): solve(game, "alphabeta", root_state=game.apply(root, a)).values[0]
             for a in game.legal_actions(root)}
    assert after == {"promote(knight)": 0, "promote(bishop)": 0, "promote(queen)": 6}
    assert solve(game, "alphabeta").values == (6, -6)


@needs_cc
def test_the_native_tier_runs_a_map_step_by_step():
    game = gdl.loads(MATERIAL, backend="native")
    assert game.native is not None, game.native_note
    compiled = gdl.loads(MATERIAL, backend="compile")
    root = game.initial_state()
    for a in compiled.legal_actions(root):
        state = compiled.apply(root, a)
        for b in compiled.legal_actions(state):
            end = compiled.apply(state, b)
            assert game.native.returns(end, 2) == compiled.returns(end)


def test_a_literal_key_is_read_at_check_time():
    text = MATERIAL.replace("utility A = value(A) - worth[piece[B]]", "utility A = worth[queen] - 2")
    game = gdl.loads(text, backend="interpret")
    assert solve(game, "alphabeta").values == (7, -7)


@pytest.mark.parametrize("wrong, code, phrase", [
    ("{pawn: 1, knight: 3, bishop: 3}", "E220", "add `queen: ...`"),    # a key the var can hold
    ("{pawn: 1, knight: 3, bishop: 3, queen: 9, king: 0}", "E201", "unknown name 'king'"),
    ("{pawn: 1, knight: 3, bishop: 3, pawn: 9}", "E200", "twice"),
    ("{pawn: 1, knight: true, bishop: 3, queen: 9}", "E203", "one type"),
])
def test_map_mistakes_are_located(wrong, code, phrase):
    with pytest.raises(GdlError) as caught:
        gdl.loads(MATERIAL.replace("{pawn: 1, knight: 3, bishop: 3, queen: 9}", wrong))
    first = caught.value.diagnostics[0]
    assert first.code == code and phrase in (first.hint or "") + first.message
    assert first.span.line > 0


def test_a_key_missing_for_a_player_index_is_found_at_check_time():
    text = MATERIAL.replace("const worth", "const bonus = {A: 1}\nconst worth").replace(
        "utility A = value(A)", "utility A = bonus[mover] + value(A)")
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert caught.value.diagnostics[0].code == "E220"
    assert "no value for B" in caught.value.diagnostics[0].message


@pytest.mark.parametrize("backend", ("interpret", "compile"))
def test_a_key_missing_where_the_checker_cannot_see_is_a_run_time_error(backend):
    # Through a define's parameter the checker does not follow the value: a symbol without a key
    # is an index out of range when it is met, located at the map's use.
    text = MATERIAL.replace("define value(p) = worth[piece[p]]", "define value(s) = worth[s]").replace(
        "value(A) - worth[piece[B]]", "value(piece[A]) - value(piece[B])").replace(
        "{pawn: 1, knight: 3, bishop: 3, queen: 9}", "{pawn: 1, knight: 3, bishop: 3}")
    game = gdl.loads(text, backend=backend)
    root = game.initial_state()
    queen = next(a for a in game.legal_actions(root) if game.action_name(a) == "promote(queen)")
    state = game.apply(game.apply(root, queen), game.legal_actions(game.apply(root, queen))[0])
    with pytest.raises(GameRuntimeError) as caught:
        game.returns(state)
    assert caught.value.code == "E303"


@pytest.mark.parametrize("text", ["const worth = {pawn: 1, knight: 3 / 2}\n",
                                  "const long_map = {alpha: 1000000, beta: 2000000, gamma: 3000000, "
                                  "delta: 4000000, epsilon: 5000000, zeta: 6000000}\n"])
def test_maps_format_and_read_back(text):
    once = format_text(text, "<t>")
    assert parse(once) == parse(text)
    assert format_text(once, "<t>") == once
    assert all(len(line) <= 100 for line in once.splitlines())
