"""The native alpha-beta's transposition table entries (gdl/backends/native/search.c): compact
16-byte entries where emit.py proves the fields fit, 32-byte ones where they may not, and the
same search as the Python tier either way.

The compact layout rests on two facts emit.py derives: the key's size (the codec's product of
domain sizes) and bounds of player 0's value at a leaf (its utility and its evaluation, interval
arithmetic over the rules). Both are checked here against hand derivations, and the bounds
against the values the rules actually take.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.backends.native.emit import CEmitter, generate
from gdl.protocol import TERMINAL
from gdl.solvers import default_options, solve
from gdl.tools.native_solve import native_rules, solve_native

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")

# Take one to three of seven tokens; who takes the last one wins `stake`. Seven is not a multiple
# of four, so the first player wins (take three, then always make the heap a multiple of four).
STAKES = """game "Stakes"
players A, B
param stake = 1
var left in 0..7 = 7
var last in {nobody, A, B} = nobody
action take(k in 1..3)
    requires left >= k
    effect   left = left - k; last = mover
terminal left == 0
utility A = stake if last == A else -stake
zero-sum
"""


def layout(source: str) -> dict[str, str]:
    """The table's #defines in generated C, without their TT_ prefix."""
    return {line.split()[1][3:]: line.split()[2] for line in source.splitlines()
            if line.startswith("#define TT_") and len(line.split()) == 3}


def test_connect_four_5x4_leaf_values_have_the_hand_derived_bounds():
    # evaluate Red = sum over c in 0..4, r in 0..3 of lines_across(c) * lines_up(r) * disc(c, r)
    # with lines_across(c) = min(c, 1) - max(0, c - 3) + 1: min in [0, 1], max in [0, 1], so
    # [0, 2]; lines_up(r) = min(r, 0) - max(0, r - 3) + 1 = [1, 1] on rows 0..3; disc in [-1, 1].
    # A term is in [-2, 2], twenty of them in [-40, 40]; the utility is in [-1, 1].
    game = load(GAMES / "connect4.game", {"columns": 5, "rows": 4})
    assert CEmitter(game.ir, "c4").leaf_value_bounds() == (-40, 40)


def test_the_bounds_hold_for_the_values_the_rules_take():
    game = load(GAMES / "connect4.game", {"columns": 5, "rows": 4})
    low, high = CEmitter(game.ir, "c4").leaf_value_bounds()
    rng = random.Random(5)
    for _ in range(300):
        state = game.initial_state()
        while game.current_player(state) != TERMINAL:
            assert low <= game.evaluate(state)[0] <= high
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        assert low <= game.returns(state)[0] <= high


def test_the_compact_layout_where_the_key_and_values_leave_room():
    # Connect Four 5x4: a mover of 2, twenty cells of 3 values, five heights of 0..4, a winner
    # spanning 4 symbol values: 2 * 3^20 * 5^5 * 4 = 87,169,610,025,000 keys, 47 bits; the
    # value then has 17 bits, which hold [-40, 40]. Five actions: the best plus one in 3 bits.
    assert 2 * 3 ** 20 * 5 ** 5 * 4 == 87_169_610_025_000 < 2 ** 47
    source = generate(load(GAMES / "connect4.game", {"columns": 5, "rows": 4}).ir)
    found = layout(source)
    assert (found["COMPACT"], found["TAG_BITS"], found["BEST_BITS"]) == ("1", "47", "3")


def test_values_too_large_for_the_compact_entry_keep_the_wide_one():
    # A stake of 2^61 needs 63 bits with its sign; the key leaves 64 - 5 for the value.
    assert layout(generate(loads(STAKES).ir))["COMPACT"] == "1"
    big = STAKES.replace("param stake = 1", f"param stake = {2 ** 61}")
    assert layout(generate(loads(big).ir))["COMPACT"] == "0"


@needs_cc
@pytest.mark.parametrize("stake", [1, 2 ** 61])
@pytest.mark.parametrize("size", [2, 16, 1 << 20])
@pytest.mark.parametrize("optimal_set", [True, False])
def test_both_layouts_search_as_the_python_tier(stake, size, optimal_set):
    # Tiny tables make the TwoBig replacements happen, so the work kept in an entry decides.
    text = STAKES.replace("param stake = 1", f"param stake = {stake}")
    game = loads(text, backend="native")
    assert native_rules(game) is not None, game.native_note
    options = replace(default_options(), tt_size=size, optimal_set=optimal_set)
    native = solve_native(game, "alphabeta", options=options)
    python = solve(loads(text), "alphabeta", options=options)
    assert native is not None and native.values == (stake, -stake)
    assert (native.values, native.best_actions, native.pv, native.stats) == (
        python.values, python.best_actions, python.pv, python.stats)
    if optimal_set:
        assert native.best_actions == (2,)      # take(3): leave four


@needs_cc
@pytest.mark.parametrize("size", [2, 1000])
def test_connect_four_5x4_depth_limited_with_compact_entries(size):
    # Inexact entries (evaluations below them) keep their depth; small tables replace.
    game = load(GAMES / "connect4.game", {"columns": 5, "rows": 4}, backend="native")
    options = replace(default_options(6), tt_size=size)
    native = solve_native(game, "alphabeta", depth=6, options=options)
    python = solve(game, "alphabeta", depth=6, options=options)
    assert native is not None
    assert (native.values, native.best_actions, native.pv, native.stats) == (
        python.values, python.best_actions, python.pv, python.stats)
