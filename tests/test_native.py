"""The native backend (gdl.backends.native): generated C for the rules and the search loops.

Expected values come from the literature (/work/shared/FACTS.md: tic-tac-toe's 549,946 minimax
nodes, 255,168 complete games, value 0 with every first move optimal, the OpenSpiel positions)
and from the Python tier, which is the independent oracle here: a second implementation of the
same protocol and the same minimax (gdl.solvers.minimax), compared result for result.

Compiling C costs a fraction of a second per game, so the games are built once per module. These
tests need a C compiler (the native tier's only requirement); without one, only the fallback
tests run, and they check that gdl then says so in one line and gives the Python tier's answer.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import reachable_states
from hypothesis import HealthCheck, given, settings
from test_untrusted import hostile_game

import gdl.backends.native.emit as emit
from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.cli import main
from gdl.generators.rules import rule_games
from gdl.moves import play
from gdl.protocol import TERMINAL
from gdl.solvers import default_options, solve
from gdl.tools.native_solve import native_rules, playouts, playouts_python, solve_native

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


@pytest.fixture(scope="module")
def ttt():
    game = load(GAMES / "tictactoe.game", backend="native")
    assert native_rules(game) is not None, game.native_note
    return game


@pytest.fixture(scope="module")
def c4():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, backend="native")
    assert native_rules(game) is not None, game.native_note
    return game


def same_result(native, python):
    assert native.values == python.values
    assert native.best_actions == python.best_actions
    assert native.pv == python.pv
    assert native.stats.nodes == python.stats.nodes
    assert native.stats.leaves == python.stats.leaves
    assert native.proven == python.proven


# ---- the textbook figures ------------------------------------------------------------------------

@needs_cc
def test_tictactoe_full_minimax_matches_the_literature(ttt):
    result = solve_native(ttt, "minimax")
    assert result is not None and result.extra["backend"] == "native"
    assert result.values == (0, 0)
    assert result.best_actions == tuple(range(9))        # every first move draws
    assert result.stats.nodes == 549_946                 # every history, root included
    assert result.stats.leaves == 255_168                # the complete games
    assert len(result.pv) == 9                           # a drawn game fills the board


@needs_cc
@pytest.mark.parametrize("moves, value", [("place(1,1) place(0,1)", 1),
                                          ("place(1,2) place(1,1) place(1,0) place(2,2)", -1)])
def test_openspiel_positions(ttt, moves, value):
    root = play(ttt, moves.split())
    native = solve_native(ttt, "minimax", root_state=root)
    assert native.values == (value, -value)
    same_result(native, solve(ttt, "minimax", root_state=root))


# ---- native = compiled Python, state by state and search by search -------------------------------

@needs_cc
@pytest.mark.parametrize("which, cap", [("ttt", 10_000), ("c4", 3_000)])
def test_every_step_agrees_with_the_compiled_rules(which, cap, request):
    game = request.getfixturevalue(which)
    native = native_rules(game)
    states = reachable_states(game, cap)
    assert len(states) == 5_478 if which == "ttt" else len(states) >= cap
    for state in states:
        player = game.current_player(state)
        assert native.current_player(state) == player
        if player == TERMINAL:
            assert native.returns(state, 2) == game.returns(state)
            continue
        actions = game.legal_actions(state)
        assert native.legal_actions(state) == actions
        for action in actions:
            assert native.apply(state, action) == game.apply(state, action)


@needs_cc
@pytest.mark.parametrize("depth", [0, 1, 3, 5])
def test_depth_limited_minimax_on_connect_four(c4, depth):
    native = solve_native(c4, "minimax", depth=depth)
    assert native is not None and native.proven is False
    same_result(native, solve(c4, "minimax", depth=depth))


@needs_cc
def test_a_position_near_the_end_is_proven(c4):
    root = play(c4, "drop(0) drop(1) drop(0) drop(1) drop(0) drop(2) drop(3) drop(2)".split())
    native = solve_native(c4, "minimax", root_state=root)
    assert native.proven
    assert native.values == (1, -1)     # Red completes the first column: drop(0) wins at once
    assert native.best_actions[0] == 0
    same_result(native, solve(c4, "minimax", root_state=root))


@needs_cc
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=False))
def test_generated_rule_files(rules):
    game = loads(rules.text, "<generated>", backend="native")
    assert native_rules(game) is not None, game.native_note
    depth = 2 if game.info.has_evaluate else None
    native = solve_native(game, "minimax", depth=depth)
    python = solve(loads(rules.text, "<generated>", backend="interpret"), "minimax", depth=depth)
    assert native is not None
    same_result(native, python)


# ---- alpha-beta: the engine's exact defaults, node for node ------------------------------------

def same_engine_result(native, python):
    same_result(native, python)
    assert native.stats == python.stats                  # cut-offs, table probes and hits too
    assert {k: v for k, v in native.extra.items() if k != "backend"} == python.extra
    assert native.depth == python.depth


@needs_cc
@pytest.mark.parametrize("which, depth", [("ttt", None), ("c4", None), ("c4", 3)])
def test_alphabeta_is_the_python_engine_node_for_node(which, depth, request):
    game = request.getfixturevalue(which)
    native = solve_native(game, "alphabeta", depth=depth)
    assert native is not None and native.extra["backend"] == "native"
    same_engine_result(native, solve(game, "alphabeta", depth=depth))
    if which == "ttt":
        assert native.values == (0, 0) and native.best_actions == tuple(range(9))   # FACTS
    if which == "c4" and depth is None:
        assert native.values == (0, 0)                   # Tromp: 4 x 4 is a draw


@needs_cc
@pytest.mark.parametrize("plies", [0, 1, 3, None])
@pytest.mark.parametrize("moves, value", [("", 0), ("drop(3) drop(0) drop(3) drop(0) drop(3) drop(1)", 1)])
def test_ranking_by_the_roots_order_counts_the_same_nodes_in_c(c4, plies, moves, value):
    # From ply `plies` on, both tiers rank actions by the root's order instead of evaluating
    # every child (gdl.solvers.ordering): the same order, so the same nodes and answers. The
    # empty board is a draw (Tromp); in the second position Red, to move, has three discs in
    # column 3 and wins at once there: a root whose order puts a win before declared moves.
    root = play(c4, moves.split())
    options = replace(default_options(), evaluation_plies=plies)
    python = solve(c4, "alphabeta", options=options, root_state=root)
    native = native_rules(c4).alphabeta(root, None, options.tt_size, plies)
    assert python.values == (native["value"], -native["value"]) == (value, -value)
    assert python.stats.nodes == native["nodes"] and python.stats.cutoffs == native["cutoffs"]
    assert list(python.pv) == native["pv"]
    legal = c4.legal_actions(root)
    assert python.best_actions == tuple(a for a, f in zip(legal, native["best_flags"]) if f)


@needs_cc
def test_alphabeta_from_the_openspiel_positions(ttt):
    for moves, value in (("place(1,1) place(0,1)", 1),
                         ("place(1,2) place(1,1) place(1,0) place(2,2)", -1)):
        root = play(ttt, moves.split())
        native = solve_native(ttt, "alphabeta", root_state=root)
        assert native.values == (value, -value)
        same_engine_result(native, solve(ttt, "alphabeta", root_state=root))


@needs_cc
def test_the_table_hashes_states_as_python_does(ttt, c4):
    # The table's buckets are hash(state) % buckets: the same hash gives the same node counts.
    for game in (ttt, c4):
        for state in list(reachable_states(game, 2_000)):
            assert native_rules(game).hash(state) == hash(state)
    odd = (0, -1, -2, 2 ** 61 - 1, 2 ** 61, -(2 ** 62), 2 ** 63 - 1, -(2 ** 63) + 1, 5, 6)
    assert native_rules(ttt).hash(odd) == hash(odd)      # the modular int hash, -1 as -2


@needs_cc
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=False))
def test_generated_rule_files_alphabeta(rules):
    game = loads(rules.text, "<generated>", backend="native")
    depth = 2 if game.info.has_evaluate and not game.info.has_quiescence else None
    native = solve_native(game, "alphabeta", depth=depth)
    assert native is not None
    same_engine_result(native, solve(loads(rules.text, "<generated>", backend="compile"),
                                     "alphabeta", depth=depth))


# ---- playouts ----------------------------------------------------------------------------------

@needs_cc
def test_playouts_make_the_same_choices_in_c_and_python(ttt, c4):
    for game, count in ((ttt, 300), (c4, 100)):
        native = playouts(game, count, seed=7)
        assert native == playouts_python(game, count, seed=7)
        assert sum(native["sums"]) == 0                      # zero-sum, game by game
        cells = 9 if game is ttt else 16
        assert 5 * count <= native["plies"] <= cells * count  # a win needs 5 moves at least


@needs_cc
def test_a_draw_the_pick_rejects_is_drawn_again_in_c_and_python(ttt):
    from gdl.tools.native_solve import _pick, _splitmix

    # splitmix64 gives 0 when its incremented state is 0 (each step of its mix keeps 0 at 0), so
    # from this seed the first draw is 0. At tic-tac-toe's first move (9 actions) the draw 0 leaves
    # the low word of 0 * 9, 0, below 2^64 mod 9 = 7 (2^6 = 64 = 1 mod 9, so 2^64 = 2^4 = 7 mod
    # 9): it is rejected, and the second draw r chooses, index floor(r * 9 / 2^64).
    seed = (1 << 64) - 0x9E3779B97F4A7C15
    assert _splitmix(seed)[1] == 0
    state, second = _splitmix(_splitmix(seed)[0])
    assert _pick(seed, 9) == (state, second * 9 >> 64)
    # the C takes the same path: a draw more or less would change every later choice
    assert playouts(ttt, 20, seed=seed) == playouts_python(ttt, 20, seed=seed)


# ---- overflow, rule errors and the fallback ------------------------------------------------------

BIG = """game "big" players A, B
param k = 18446744073709551616
var n in 0..1 = 0
action go effect n = 1
terminal n == 1
utility A = k / 4
zero-sum
"""

OVERFLOWS_AT_RUN_TIME = """game "wide" players A, B
param k = 3037000500
var n in 0..1 = 0
action go effect n = 1
terminal n == 1
utility A = k * k
zero-sum
"""


def test_an_overflowing_product_gives_the_exact_python_answer(capsys, tmp_path):
    # 3037000500² = 9223372037000250000 > 2**63 - 1: the C multiplication would overflow, so the
    # native search stops and the Python tier answers with the exact product.
    path = _write(tmp_path, OVERFLOWS_AT_RUN_TIME)
    assert main(["solve", str(path), "--algorithm", "minimax", "--backend", "native", "--json"]) == 0
    out = capsys.readouterr().out
    assert str(3037000500 ** 2) in out
    game = loads(OVERFLOWS_AT_RUN_TIME, backend="native")
    if native_rules(game) is not None:
        assert solve_native(game, "minimax") is None          # the native tier declined


def test_a_constant_beyond_64_bits_falls_back_with_a_note(capsys, tmp_path):
    path = _write(tmp_path, BIG)
    assert main(["solve", str(path), "--algorithm", "minimax", "--backend", "native"]) == 0
    captured = capsys.readouterr()
    assert "A 4611686018427387904," in captured.out         # 2**64 / 4, exactly
    notes = [line for line in captured.err.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "64 bits" in notes[0]


def test_no_compiler_falls_back_with_one_line(monkeypatch, capsys):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert main(["solve", str(GAMES / "tictactoe.game"), "--moves", "place(1,1) place(0,1)",
                 "--algorithm", "minimax", "--backend", "native"]) == 0
    captured = capsys.readouterr()
    assert "X 1, O -1" in captured.out                       # FACTS: a win for X
    assert captured.err.count("\n") == 1 and "no C compiler" in captured.err
    assert "Traceback" not in captured.err


@needs_cc
def test_a_rule_error_is_reported_located_as_in_python(capsys, tmp_path):
    text = ('game "oops" players A, B\nvar cell[2] in 0..1 = 0\nvar n in 0..3 = 0\n'
            'action go effect n = n + 1\n'
            'terminal cell[n] == 1\nutility A = 0\nzero-sum\n')
    path = _write(tmp_path, text)
    assert main(["solve", str(path), "--algorithm", "minimax", "--backend", "native"]) == 1
    native_err = capsys.readouterr().err
    assert main(["solve", str(path), "--algorithm", "minimax", "--backend", "compile"]) == 1
    assert capsys.readouterr().err == native_err
    assert "E303" in native_err and ":5:" in native_err


# ---- untrusted rule files stay data in the C source too ------------------------------------------

def _code_only(c_source: str) -> str:
    return re.sub(r"/\*.*?\*/", " ", c_source, flags=re.S)


@pytest.mark.parametrize("breaker", ["\r", "\x00", "\u2028", "*/"], ids=repr)
def test_hostile_names_and_strings_stay_comments(tmp_path, breaker):
    marker = tmp_path / "PWNED_FILE"
    # test_untrusted's hostile file, with the breaker where the rule language lets it stand;
    # `*/` (printable, so a title may hold it) goes into the title as well
    text = hostile_game(marker, breaker if breaker != "*/" else "\x0c")
    if breaker == "*/":
        text = text.replace('game "evil', 'game "evil*/', 1)
    from gdl.errors import Source
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    game = check(parse(text), Source("evil.game", text))
    c_source = emit.generate(game, f"evil{breaker}name*/.game")
    code = _code_only(c_source)
    for word in ("PWNED", "touch", "__import__", "__call__", "__getattr__", "x" * 50, "evil"):
        assert word not in code
    assert "\x00" not in c_source and "\r" not in c_source
    if compiler() is not None and breaker == "\r":    # one C compile is enough to play it
        played = loads(text, "evil.game", backend="native")
        assert native_rules(played) is not None, played.native_note
        same_result(solve_native(played, "minimax"), solve(played, "minimax"))
        assert not marker.exists()


def test_the_payload_would_escape_without_the_cleaning(monkeypatch):
    """The test above can fail: without comment cleaning, ``*/`` in the title ends the comment."""
    from gdl.errors import Source
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    text = ('game "evil */ int PWNED = 1; /*" players A, B var n in 0..1 = 0 action go effect n = 1 '
            'terminal n == 1 utility A = 0 zero-sum')
    game = check(parse(text), Source("<evil>", text))
    assert "PWNED" not in _code_only(emit.generate(game))
    monkeypatch.setattr(emit, "c_comment", lambda text: "/* " + text + " */")
    assert "PWNED" in _code_only(emit.generate(game))


def test_numbers_are_the_only_rule_values_in_code():
    assert emit.c_int(5) == "5LL" and emit.c_int(-3) == "(-3LL)" and emit.c_int(True) == "1"
    with pytest.raises(emit.Unsupported):
        emit.c_int(2 ** 63)
    with pytest.raises(AssertionError):
        emit.c_int("1; system('x')")


# ---- the cache -----------------------------------------------------------------------------------

@needs_cc
def test_cached_libraries_are_private_and_symlinks_are_refused(tmp_path, monkeypatch):
    from gdl.backends.native import build

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    source = emit.generate(load(GAMES / "tictactoe.game").ir, "tictactoe.game")
    build.library_for(source)
    libraries = list((tmp_path / "gdl" / "native").glob("*.so"))
    assert len(libraries) == 1
    assert libraries[0].stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "gdl" / "native").stat().st_mode & 0o777 == 0o700
    decoy = tmp_path / "decoy.so"
    decoy.write_bytes(libraries[0].read_bytes())
    decoy.chmod(0o600)
    libraries[0].unlink()
    os.symlink(decoy, libraries[0])
    assert build._load_private(libraries[0]) is None          # a symlink is never followed
    monkeypatch.setattr(build, "CACHE_ENTRIES", 1)
    build.library_for(source.replace("do not edit", "do not edit (2)"))
    assert len(list((tmp_path / "gdl" / "native").glob("*.so"))) == 1   # bounded


def _write(directory: Path, text: str) -> Path:
    path = directory / "game.game"
    path.write_text(text, encoding="utf-8")
    return path


# ---- the fuzzer compares the native tier too -----------------------------------------------------

@needs_cc
def test_the_fuzzer_compares_native_searches_and_catches_a_planted_bug(ttt, monkeypatch):
    from dataclasses import replace

    import gdl.tools.native_solve as native_solve
    from gdl.tools.fuzz import native_problems

    root = play(ttt, "place(1,1) place(0,1) place(0,0)".split())
    problems, compared = native_problems(ttt, root, None)
    # minimax, alpha-beta, expectiminimax (minimax's nodes without chance) and max^n: identical
    assert problems == [] and compared == 4
    honest = native_solve.solve_native

    def off_by_one(*args, **kwargs):
        found = honest(*args, **kwargs)     # (None for Star: native on chance games only)
        if found is None:
            return None
        return replace(found, stats=replace(found.stats, nodes=found.stats.nodes + 1))

    monkeypatch.setattr(native_solve, "solve_native", off_by_one)
    problems, compared = native_problems(ttt, root, None)
    assert compared == 4 and len(problems) == 4 and all("stats" in p.message for p in problems)


@needs_cc
def test_ctrl_c_stops_a_native_search_cleanly(c4):
    import _thread
    import threading
    import time

    native = native_rules(c4)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    # CPU seconds of this process (the search's worker thread included; the library was built
    # by the fixture, outside this count): a loaded machine stretches the wall clock only
    started = time.process_time()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        native.playouts(c4.initial_state(), 10 ** 10, 1, 100, 2)    # hours, unless stopped
    assert time.process_time() - started < 10
    cpu = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - cpu < 0.25       # the search has stopped, not run on unseen
    again = native.playouts(c4.initial_state(), 50, 3, 100, 2)    # the library still works
    assert again == playouts_python(c4, 50, seed=3)


@needs_cc
def test_a_time_limit_stops_a_native_search_too(c4):
    """The mutation fuzz's time limit (OutOfTime, a BaseException) met a native search that went
    on in its worker thread, writing into the library while the next run used it (CI crashed).
    Nothing of this process runs once the limit has been raised: no CPU time passes in a sleep."""
    import time

    from gdl.tools.mutate import OutOfTime, limit_time

    native = native_rules(c4)
    with pytest.raises(OutOfTime), limit_time(0.3):
        native.playouts(c4.initial_state(), 10 ** 10, 1, 100, 2)    # hours, unless stopped
    cpu = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - cpu < 0.25
    again = native.playouts(c4.initial_state(), 50, 3, 100, 2)
    assert again == playouts_python(c4, 50, seed=3)
