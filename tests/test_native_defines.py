"""Defines as C functions: rules whose C, with every define inlined at each use, would pass the
native tier's size cap (gdl.backends.native.emit.MAX_SOURCE) are emitted again with each define
as one static function. Othello at its default size (6x6) is the case: inlined, about 2.5 MB of C
(refused); as functions, about 0.13 MB, and it runs natively.

The oracles: the Python tiers (compiled and interpreted, independent implementations of the same
rules), step for step, over perft counts to depth 5 and over random playouts (the same generator
in C and in Python, so the same games to the end). The published perft tables are for 8x8
(tests/test_board_games.py); 6x6 is compared tier with tier, and its first plies (1, 4, 12) are
the opening's, the same on any board."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import reachable_states

import gdl.backends.native.emit as emit
from gdl.backends.load import load
from gdl.backends.native.build import compiler
from gdl.protocol import TERMINAL
from gdl.tools.native_solve import native_rules, playouts, playouts_python

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


def othello(backend: str, size: int = 6):
    return load(GAMES / "othello.game", {"size": size}, backend=backend)


def test_othello_6x6_defines_become_functions_and_tic_tac_toe_stays_inlined():
    checked = othello("compile").ir
    with pytest.raises(emit.TooLarge):              # inlined: over the cap
        emit.CEmitter(checked, "othello.game").unit()
    source = emit.generate(checked, "othello.game")
    assert len(source) < emit.MAX_SOURCE
    code = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    # one function per define, named by the compiler; the rule's names only in comments
    assert len(re.findall(r"^static V d\d+\(const V \*s[^;{]*\) \{", code, flags=re.M)) == 7
    for name in ("brackets", "can_place", "run_end", "discs"):
        assert f"define {name} */" in source and name not in code
    small = emit.generate(load(GAMES / "tictactoe.game", backend="compile").ir, "tictactoe.game")
    assert not re.search(r"^static V d\d+\(", small, flags=re.M)


def perft(step, state, depth: int) -> list[int]:
    """Nodes per ply to ``depth`` (a pass is a move, as in the published tables)."""
    counts = [0] * (depth + 1)
    layer = [state]
    for ply in range(depth + 1):
        counts[ply] = len(layer)
        if ply == depth:
            break
        layer = [child for s in layer for child in step(s)]
    return counts


@needs_cc
def test_othello_6x6_runs_natively_and_agrees_step_for_step():
    game = othello("native")
    native = native_rules(game)
    assert native is not None, game.native_note
    interpreted = othello("interpret")
    terminals = 0
    for state in reachable_states(game, 2_000):
        player = game.current_player(state)
        assert native.current_player(state) == player == interpreted.current_player(state)
        if player == TERMINAL:
            terminals += 1
            assert native.returns(state, 2) == game.returns(state)
            continue
        actions = game.legal_actions(state)
        assert native.legal_actions(state) == actions == interpreted.legal_actions(state)
        for action in actions:
            assert native.apply(state, action) == game.apply(state, action), (state, action)

    def native_children(state):
        if native.current_player(state) == TERMINAL:
            return []
        return [native.apply(state, a) for a in native.legal_actions(state)]

    def python_children(state):
        if interpreted.current_player(state) == TERMINAL:
            return []
        return [interpreted.apply(state, a) for a in interpreted.legal_actions(state)]

    root = game.initial_state()
    counts = perft(native_children, root, 5)
    assert counts == perft(python_children, root, 5)
    assert counts[:3] == [1, 4, 12]     # the opening is the 8x8 one: 4 moves, then 3 replies each


@needs_cc
def test_othello_6x6_playouts_are_the_python_tiers_to_the_end():
    game = othello("native")
    assert native_rules(game) is not None, game.native_note
    fast = playouts(game, 40, seed=7)
    slow = playouts_python(othello("compile"), 40, seed=7)
    assert fast == slow
    assert fast["plies"] >= 40 * 20     # whole games: most of the 32 empty squares get filled
