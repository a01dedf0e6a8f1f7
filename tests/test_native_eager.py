"""Eager loads in the generated C (gdl/backends/native/emit.py): the right side of an `and` that is
cheap and pure is computed whether or not the left side holds, so a load in it may run where the
left side's proof of its index is false. In an effect (without chance) such a load goes without
a clamp where the bounds that hold wherever it runs keep it within STATE_PAD cells of the state,
and every state an effect writes lies in a buffer with that many cells on either side
(search.c); elsewhere, or further out, it is clamped into the state. The left side's proof must
not count for this.

Checked on the C text (STATE_PAD and which loads keep a clamp, derived by hand from the offsets)
and by running: every step of a game whose eager loads leave the state where their guards are
false agrees with the interpreter, and so do playouts. `bash .ci/sanitize
tests/test_native_eager.py` runs the same under AddressSanitizer, which reports any read outside
a buffer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import reachable_states

from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.backends.native.emit import CEmitter, generate
from gdl.protocol import TERMINAL
from gdl.tools.native_solve import native_rules, playouts, playouts_python

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")

# The state is [mover, cell[0], cell[1], cell[2], winner]: cell[j] is s[1 + j]. `at`'s guard
# proves j within 0..2 for its load, which is eager. In the effect, for k in 0..1:
#   at(k + 1, p) loads offsets 2..3, within the state;
#   at(k - 4, p) loads offsets -3..-2, three cells before it (where the guard is false);
#   at(k - 1000, p) loads offsets -999..-998, further than a pad may be (MAX_PAD).
GUARDS = """game "Guards"
players A, B
var cell[3] in {free, A, B} = free
var winner in {nobody, A, B} = nobody
define at(j, p) = j >= 0 and j < 3 and cell[j] == p
define won(p) = any k in 0..1: (at(k + 1, p) or at(k - 4, p) or at(k - 1000, p))
action put(i in 0..2)
    requires cell[i] == free
    effect   cell[i] = mover; if mover == B and won(mover) { winner = B }
terminal all i in 0..2: cell[i] != free
utility A = -1 if winner == B else 1
zero-sum
"""


def function_body(source: str, name: str) -> str:
    found = re.search(rf"^static \w+ {name}\(.*?^}}", source, re.S | re.M)
    assert found is not None, name
    return found.group(0)


def state_loads(c_text: str) -> list[str]:
    return re.findall(r"\bs\[(?:[^\[\]]|\[[^\]]*\])*\]", c_text)


def test_an_effect_pads_what_its_loads_need_and_clamps_the_rest():
    source = generate(loads(GUARDS).ir)
    assert "#define STATE_PAD 3\n" in source           # at(k - 4, p) at k = 0: offset -3
    effect = function_body(source, "rule_effect")
    guarded = [load for load in state_loads(effect) if "GDL_U" in load]   # the eager loads
    clamped = [load for load in guarded if "GDL_CELL" in load]
    # in each of the three actions' cases, each of the three `at` calls in each of the two
    # unrolled copies of won's body; only the two at(k - 1000, p) a case, beyond the pad, keep
    # their clamp
    assert len(guarded) == 3 * 3 * 2 and len(clamped) == 3 * 2, guarded
    far = set(re.findall(r"V (t\d+) = [^;]*1000LL", effect))      # at(k - 1000, p)'s j
    assert {re.search(r"GDL_U\((t\d+)\)", load).group(1) for load in clamped} == far


def test_loads_outside_effects_keep_their_clamps():
    # The same test in the utility: its states come from anywhere (the exported steps), unpadded.
    text = GUARDS.replace("utility A = -1 if winner == B else 1",
                          "utility A = -1 if won(B) else 1")
    returns = function_body(generate(loads(text).ir), "rule_returns")
    guarded = [load for load in state_loads(returns) if "GDL_U" in load]
    assert guarded and all("GDL_CELL" in load for load in guarded), guarded


def test_connect_four_pads_by_its_farthest_line():
    # cell[c + j*x][r + j*y] is at 1 + (c + j*x) * rows + r + j*y with c the column dropped
    # into, j in 1..3, x in -1..1 (dc and its negation), r (the height) in 0..rows and j*y in
    # -3..3. Farthest before the state (cell 0): c = 0, x = -1, r = 0, y = -1, at
    # 1 - 3 * rows - 3, so 3 * rows + 2 cells before it. Farthest after: c = columns - 1,
    # x = 1, r = rows, y = 1, at 1 + (columns + 2) * rows + rows + 3, past the last cell
    # (columns * rows + columns + 1) by 3 * rows - columns + 3: 10 on 5x4, 14 on 7x6, 11 on
    # 4x4, less.
    for columns, rows, pad in ((5, 4, 14), (7, 6, 20), (4, 4, 14)):
        game = load(GAMES / "connect4.game", {"columns": columns, "rows": rows})
        emitter = CEmitter(game.ir, "connect4")
        source = emitter.unit()
        assert emitter.state_pad == pad == 3 * rows + 2, (columns, rows)
        assert f"#define STATE_PAD {pad}\n" in source
        assert "GDL_CELL" not in function_body(source, "rule_effect")


def test_games_with_chance_keep_the_clamps():
    game = load(GAMES / "pig.game")
    assert "#define STATE_PAD 0\n" in generate(game.ir)


@needs_cc
def test_every_step_agrees_with_the_interpreter():
    game = loads(GUARDS, backend="native")
    native = native_rules(game)
    assert native is not None, game.native_note
    reference = loads(GUARDS, backend="interpret")
    outcomes = set()
    for state in reachable_states(reference, 1_000):
        player = reference.current_player(state)
        assert native.current_player(state) == player
        if player == TERMINAL:
            assert native.returns(state, 2) == reference.returns(state), state
            outcomes.add(reference.returns(state))
            continue
        actions = reference.legal_actions(state)
        assert native.legal_actions(state) == actions
        for action in actions:
            assert native.apply(state, action) == reference.apply(state, action)
    # A fills two of the three cells, B one: B wins where its one is cell[1] or cell[2]
    assert outcomes == {(1, -1), (-1, 1)}


@needs_cc
def test_playouts_agree_with_the_python_loop():
    game = loads(GUARDS, backend="native")
    reference = loads(GUARDS, backend="interpret")
    assert playouts(game, 300, seed=3) == playouts_python(reference, 300, seed=3)
    c4 = load(GAMES / "connect4.game", {"columns": 7, "rows": 6}, backend="native")
    assert playouts(c4, 200, seed=11) == playouts_python(c4, 200, seed=11)
