"""The strong solver's native passes (gdl/backends/native/graph.c, gdl/graph/packed.py).

The oracle is the protocol walk of gdl.graph.positions over the compiled Python game: a second,
independent implementation of the same rules and the same walk. The native walk must give the
same positions, the same moves (in the same order) at each, the same returns, the same values
and remoteness, and the same database bytes. Counts come from /work/shared/FACTS.md
(tic-tac-toe 5,478 positions, 958 terminal; Connect Four 4 x 4: 161,029, Tromp).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from helpers import GAMES
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.backends.native.codec import KeyCodec
from gdl.errors import GdlError
from gdl.generators.rules import rule_games
from gdl.graph import TooManyPositions, strong_solve
from gdl.graph.database import save
from gdl.graph.positions import enumerate_positions
from gdl.protocol import TERMINAL

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


def both(name, backend_params=None):
    """The same game loaded natively and compiled-only (the protocol walk's oracle)."""
    params = backend_params or {}
    return (load(GAMES / name, params, backend="native"),
            load(GAMES / name, params, backend="compile"))


def described(graph):
    """Each position by its state: player, children's states in move order, returns."""
    out = {}
    for position in range(len(graph)):
        returns = graph.returns(position) if graph.returns_index[position] >= 0 else None
        out[graph.state(position)] = (int(graph.player[position]),
                                      [graph.state(int(c)) for c in graph.children(position)],
                                      returns)
    return out


def assert_same_graph(native_game, python_game):
    native = enumerate_positions(native_game)
    python = enumerate_positions(python_game)
    assert native.stats["enumeration"] == "native"
    assert python.stats["enumeration"] == "protocol"
    assert native.state(0) == python.state(0) == tuple(python_game.initial_state())
    assert described(native) == described(python)
    # numbered deterministically: the root, then the others in increasing state order
    states = [native.state(p) for p in range(1, len(native))]
    assert states == sorted(states)
    for position in range(len(native)):
        assert native.position_id(native.state(position)) == position
    return native, python


def assert_same_solution(native_game, python_game, tmp_path):
    native, python = strong_solve(native_game), strong_solve(python_game)
    assert native.method == python.method
    for position in range(len(python.graph)):
        state = python.graph.state(position)
        mine = native.graph.position_id(state)
        assert native.value(mine) == python.value(position), state
        assert native.remoteness(mine) == python.remoteness(position), state
        assert native.best_actions(mine) == python.best_actions(position), state
    save(native, tmp_path / "native.db", {"test": 1})
    save(python, tmp_path / "python.db", {"test": 1})
    assert (tmp_path / "native.db").read_bytes() == (tmp_path / "python.db").read_bytes()


# ---- the codec ---------------------------------------------------------------------------------

@cache
def connect_four_5x4_codec():
    return KeyCodec.for_game(load(GAMES / "connect4.game", {"columns": 5, "rows": 4}).ir)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_codec_round_trips_and_keeps_the_order_of_states(data):
    codec = connect_four_5x4_codec()
    # 20 cells of 3 values, 5 heights of 0..4, a mover of 2, and a winner in {nobody, Red,
    # Yellow}: players' symbols are 0 and 1 and the others follow (empty 2, nobody 3), so its
    # digit spans 0..3
    assert isinstance(codec, KeyCodec) and codec.positions == 3**20 * 5**5 * 4 * 2

    def state():
        return tuple(data.draw(st.integers(low, low + size - 1))
                     for low, size in zip(codec.low, codec.size))

    a, b = state(), state()
    assert codec.decode(codec.encode(a)) == a
    assert (codec.encode(a) < codec.encode(b)) == (a < b)
    many = codec.decode_many(np.array([codec.encode(a), codec.encode(b)], dtype=np.uint64))
    assert [tuple(row) for row in many.tolist()] == [a, b]


def test_codec_refuses_what_is_not_a_state_and_wide_games():
    game = load(GAMES / "tictactoe.game", backend="compile")
    codec = KeyCodec.for_game(game.ir)
    assert isinstance(codec, KeyCodec)
    assert codec.encode((0,) * 9) is None                     # too short
    assert codec.encode((0,) * 9 + (3,)) is None              # a cell beyond its domain
    six = load(GAMES / "connect4.game", {"columns": 6, "rows": 4}, backend="compile")
    assert KeyCodec.for_game(six.ir).positions == 3**24 * 5**6 * 4 * 2    # below 2^63
    wide = load(GAMES / "connect4.game", {"columns": 7, "rows": 6}, backend="compile")
    reason = KeyCodec.for_game(wide.ir)
    # 3^42 * 7^7 * 4 * 2 keys: between 2^89 and 2^90
    assert 2**89 < 3**42 * 7**7 * 4 * 2 < 2**90
    assert isinstance(reason, str) and "90 bits" in reason


# ---- the same graph, values and database as the protocol walk --------------------------------

@needs_cc
def test_tictactoe_native_walk_counts_and_equals_the_protocol_walk(tmp_path):
    native_game, python_game = both("tictactoe.game")
    native, _ = assert_same_graph(native_game, python_game)
    census = native.census()     # FACTS: 5,478 positions, 4,520 non-terminal, 958 terminal
    assert (census["positions"], census["decision"], census["terminal"]) == (5478, 4520, 958)
    # players' symbols are 0 and 1 (X, O): a board full of X's cannot be reached
    assert native.position_id((0,) * 10) is None
    assert native.position_id((0,) * 9) is None                 # not a state of this game
    assert_same_solution(native_game, python_game, tmp_path)


@needs_cc
def test_connect_four_4x4_native_walk_and_induction(tmp_path):
    native_game, python_game = both("connect4.game", {"columns": 4, "rows": 4})
    solution = strong_solve(native_game)
    assert len(solution.graph) == 161_029                  # FACTS (Tromp)
    assert solution.graph.stats["enumeration"] == "native"
    assert solution.value(0) == (0, 0)                     # FACTS: a draw (a tie here)
    # the C induction against the numpy one, position by position, on the same graph
    from gdl.graph.induction import two_player_induction
    from gdl.graph.order import levels

    numpy_values = two_player_induction(solution.graph, levels(solution.graph), 0)
    assert np.array_equal(numpy_values.lower, solution.values.lower)
    assert np.array_equal(numpy_values.remoteness, solution.values.remoteness)


@needs_cc
@pytest.mark.parametrize("tokens, share_at", [(5, 2), (7, 3)])
def test_cyclic_game_native_walk_equals_the_protocol_walk(tmp_path, tokens, share_at):
    native_game, python_game = both("cyclic/give-and-take.game",
                                    {"tokens": tokens, "share_at": share_at})
    assert_same_graph(native_game, python_game)
    assert_same_solution(native_game, python_game, tmp_path)   # retrograde: the C pass sees a cycle


@needs_cc
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(chance=False))
def test_generated_games_native_walk_equals_the_protocol_walk(rules):
    native_game = loads(rules.text, "<generated>", backend="native")
    python_game = loads(rules.text, "<generated>", backend="compile")
    if native_game.native is None:          # e.g. a construct the native tier does not compile
        assert enumerate_positions(native_game).stats["enumeration"] == "protocol"
        return
    native, python = assert_same_graph(native_game, python_game)
    a, b = strong_solve(native_game, graph=native), strong_solve(python_game, graph=python)
    for position in range(len(python)):
        mine = native.position_id(python.state(position))
        assert a.value(mine) == b.value(position)
        assert a.best_actions(mine) == b.best_actions(position)


# ---- fallbacks ---------------------------------------------------------------------------------

def test_without_a_compiler_the_protocol_walks_with_a_one_line_note(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    game = load(GAMES / "tictactoe.game", backend="native")
    graph = enumerate_positions(game)
    assert len(graph) == 5478                               # FACTS
    assert graph.stats["enumeration"] == "protocol"
    note = graph.stats["enumeration_note"]
    assert "\n" not in note and "no C compiler" in note


@needs_cc
def test_a_rule_error_falls_back_and_is_reported_located(tmp_path):
    text = ('game "oops" players A, B\nvar cell[2] in 0..1 = 0\nvar n in 0..3 = 0\n'
            'action go effect n = n + 1\n'
            'terminal cell[n] == 1\nutility A = 0\nzero-sum\n')
    native_game = loads(text, "oops.game", backend="native")
    assert native_game.native is not None
    with pytest.raises(GdlError) as native_error:
        strong_solve(native_game)
    with pytest.raises(GdlError) as python_error:
        strong_solve(loads(text, "oops.game", backend="compile"))
    assert str(native_error.value) == str(python_error.value)
    assert "E303" in str(native_error.value) and ":5:" in str(native_error.value)


def assert_identical_graphs(native, python):
    """The byte-key walk's graph is the protocol walk's: the same ids, keys, moves,
    probabilities and returns (values and types)."""
    assert native.stats["enumeration"] == "native" and "enumeration_note" not in native.stats
    assert python.stats["enumeration"] == "protocol"
    assert native.keys == python.keys and native.index == python.index
    assert native.packed == python.packed
    for name in ("player", "first", "child", "probability_index", "returns_index"):
        mine, theirs = getattr(native, name), getattr(python, name)
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name
    assert native.probabilities == python.probabilities
    assert all(type(a) is type(b) for a, b in zip(native.probabilities, python.probabilities))
    assert native.returns_table == python.returns_table
    assert all(type(a) is type(b) for x, y in zip(native.returns_table, python.returns_table)
               for a, b in zip(x, y))


@needs_cc
@pytest.mark.parametrize("name, params", [("cyclic/piglet.game", {"goal": 3}),
                                          ("cyclic/pig100.game", {"goal": 12}),
                                          ("pig.game", {"winscore": 6, "horizon": 8})])
def test_a_chance_game_walks_over_byte_keys_numbered_as_the_protocol_walk(name, params):
    # the packed native walk has no chance positions; the byte keys of the tiered solve have
    native_game, python_game = both(name, params)
    assert native_game.native is not None and native_game.info.has_chance
    assert_identical_graphs(enumerate_positions(native_game), enumerate_positions(python_game))


@needs_cc
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(chance=True))
def test_generated_chance_games_walk_over_byte_keys_as_through_the_protocol(rules):
    assume("random" in rules.text)          # games without chance take the packed walk
    native_game = loads(rules.text, "<generated>", backend="native")
    python_game = loads(rules.text, "<generated>", backend="compile")
    python = enumerate_positions(python_game)
    native = enumerate_positions(native_game)
    if native.stats["enumeration"] == "protocol":   # no native rules, or the C declined
        return
    assert_identical_graphs(native, python)


@needs_cc
def test_the_byte_walk_refuses_too_many_positions_as_the_protocol_walk_does():
    native_game, python_game = both("cyclic/piglet.game", {"goal": 3})
    with pytest.raises(TooManyPositions) as native_error:
        enumerate_positions(native_game, max_states=10)
    with pytest.raises(TooManyPositions) as python_error:
        enumerate_positions(python_game, max_states=10)
    assert str(native_error.value) == str(python_error.value)
    assert "more than 10 reachable" in str(native_error.value)


@needs_cc
def test_too_many_positions_is_refused_by_the_native_walk():
    game, _ = both("tictactoe.game")
    with pytest.raises(TooManyPositions, match="more than 1,000 reachable"):
        enumerate_positions(game, max_states=1000)


# ---- the command line ----------------------------------------------------------------------------

@needs_cc
def test_cli_strong_walks_natively_from_a_position(capsys):
    import json

    from gdl.cli import main

    # X in the centre, O in a corner: the textbook reply, which holds the draw (an edge loses)
    argv = ["solve", str(GAMES / "tictactoe.game"), "--strong", "--json", "--moves",
            "place(1,1) place(0,0)"]
    assert main([*argv, "--backend", "native"]) == 0
    native = json.loads(capsys.readouterr().out)
    assert main([*argv, "--backend", "compile"]) == 0
    python = json.loads(capsys.readouterr().out)
    assert native["enumeration"] == "native" and python["enumeration"] == "protocol"
    assert native["values"] == python["values"] == {"X": 0, "O": 0}
    assert native["census"] == python["census"]
    assert native["best_actions"] == python["best_actions"]


@needs_cc
def test_ctrl_c_during_the_native_walk_leaves_nothing_behind():
    game, _ = both("connect4.game", {"columns": 4, "rows": 4})

    def interrupt(done, found):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        enumerate_positions(game, progress=interrupt)
    # the walk's memory was freed and nothing global was left half-done: walk again, in full
    assert len(enumerate_positions(game)) == 161_029        # FACTS (Tromp)


@needs_cc
def test_the_expand_primitive_against_the_protocol():
    """The tiers' primitive: any batch of keys, in any order and any batch size, gives each
    position's player, its children's keys in the order of its legal actions, its returns."""
    from gdl.backends.native import graph as native_graph

    game, python_game = both("tictactoe.game")
    expander = game.native.graph_expander(game)
    codec = expander.codec
    states = list(described(enumerate_positions(python_game)))
    keys = np.array([codec.encode(s) for s in reversed(states)], dtype=np.uint64)
    native_graph.BATCH_EDGES, saved = 64, native_graph.BATCH_EDGES    # many pieces
    try:
        expansion = expander.expand(keys)
    finally:
        native_graph.BATCH_EDGES = saved
    for i, state in enumerate(reversed(states)):
        player = python_game.current_player(state)
        assert expansion.player[i] == player
        children = [codec.decode(int(k))
                    for k in expansion.child[expansion.first[i]:expansion.first[i + 1]]]
        if player == TERMINAL:
            assert children == []
            assert tuple(expansion.returns[i]) == tuple(python_game.returns(state))
        else:
            assert children == [tuple(python_game.apply(state, a))
                                for a in python_game.legal_actions(state)]


def test_a_state_read_back_from_the_native_walk_is_the_games_own():
    # bools come back as bools (ring-chase's `caught`), so a state shows as the game shows it
    game = load(GAMES / "cyclic" / "ring-chase.game", backend="native")
    graph = strong_solve(game).graph
    assert graph.codec is not None
    start = graph.state(0)
    assert start == game.initial_state() and repr(start) == repr(game.initial_state())
    assert any(type(v) is bool for v in start)
