"""Eager operands in the generated C (gdl/backends/native/emit.py): the right side of an `and`
that is cheap and pure is computed whether or not the left side holds, so a load in it may run
where the left side's proof of its index is false. Such a load is clamped into the state unless
the bounds that hold wherever it runs keep it there; the left side's proof must not count.

Checked on the C text (which loads keep their clamp, by hand from the offsets) and by running:
every step of a game whose eager loads leave the state where their guards are false agrees with
the interpreter. (`bash .ci/sanitize tests/test_native_eager.py` runs the same under
AddressSanitizer, which reports a read outside the state.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import reachable_states

from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.backends.native.emit import generate
from gdl.protocol import TERMINAL
from gdl.tools.native_solve import native_rules

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")

# The state is [mover, cell[0], cell[1], cell[2]]: cell[j] is s[1 + j]. `at`'s guard proves j
# within 0..2 for the load, which is eager (computed whatever the guard says). In `won`,
# at(k - 4, p) loads offset k - 3, outside the state for k in 0..1 (where the guard is false);
# at(k + 1, p) loads offset k + 2, within it for k in 0..1 (where the guard holds anyway).
GUARDS = """game "Guards"
players A, B
var cell[3] in {free, A, B} = free
define at(j, p) = j >= 0 and j < 3 and cell[j] == p
define won(p) = any k in 0..1: (at(k - 4, p) or at(k + 1, p))
action put(i in 0..2)
    requires cell[i] == free
    effect   cell[i] = mover
terminal all i in 0..2: cell[i] != free
utility A = -1 if won(B) else 1
zero-sum
"""


def loads_of(source: str, function: str) -> list[str]:
    """The state loads (``s[...]``) in one generated C function's body."""
    body = re.search(rf"^static \w+ {function}\(.*?^}}", source, re.S | re.M)
    assert body is not None, function
    return re.findall(r"\bs\[(?:[^\[\]]|\[[^\]]*\])*\]", body.group(0))


def test_a_load_that_may_leave_the_state_keeps_its_clamp():
    found = loads_of(generate(loads(GUARDS).ir), "rule_returns")
    clamped = [load for load in found if "GDL_CELL" in load]
    # at(k - 4, p) for k = 0 and 1 (each its own copy of the unrolled body); the other loads,
    # at(k + 1, p), are kept within the state by the constants alone
    assert len(found) == 4 and len(clamped) == 2, found


def test_constant_table_elements_fold_where_the_index_is_known():
    # Connect Four's line directions dc = [1, 0, 1, 1], dr = [0, 1, 1, -1] are read as dc[i]
    # inside `any i in 0..3`, which is unrolled: each copy reads one element, now a literal.
    source = generate(load(GAMES / "connect4.game", {"columns": 5, "rows": 4}).ir)
    assert "/* dc */" not in source and "/* dr */" not in source      # no table left


@needs_cc
def test_every_step_agrees_with_the_interpreter():
    game = loads(GUARDS, backend="native")
    native = native_rules(game)
    assert native is not None, game.native_note
    reference = loads(GUARDS, backend="interpret")
    seen = 0
    for state in reachable_states(reference, 1_000):
        player = reference.current_player(state)
        assert native.current_player(state) == player
        if player == TERMINAL:
            assert native.returns(state, 2) == reference.returns(state), state
            seen += 1
            continue
        actions = reference.legal_actions(state)
        assert native.legal_actions(state) == actions
        for action in actions:
            assert native.apply(state, action) == reference.apply(state, action)
    # A fills two of the three cells, B one: B wins where its one is cell[1] or cell[2]
    assert seen > 0
    assert {reference.returns(s) for s in reachable_states(reference, 1_000)
            if reference.current_player(s) == TERMINAL} == {(1, -1), (-1, 1)}
