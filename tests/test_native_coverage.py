"""The constructs the native tier compiles since issue 16's third session: `let` (expression and
statement), `repeat` (a bounded fixpoint), `when stuck lose | win`, parameter guards and binders
whose ranges depend on local names (gdl/backends/native/emit.py).

The oracle is the Python tier: a second implementation of the same rules (the compiled game,
itself tested against the interpreter) and of the same searches, compared step for step on every
reachable position (or a large prefix of them) and search for search, values and node counts.
Values that the literature knows are checked against it too (/work/shared/FACTS.md: Hexapawn is a
win for the second player; Nim is lost by the player to move exactly when the heaps XOR to 0).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers import reachable_states
from hypothesis import HealthCheck, given, settings

import gdl.backends.native.emit as emit
from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.errors import Source
from gdl.generators.rules import rule_games
from gdl.lang.check import check
from gdl.lang.parse import parse
from gdl.protocol import TERMINAL
from gdl.solvers import solve
from gdl.tools.native_solve import native_rules, solve_native

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")

# (game, parameters, what it uses that the native tier did not compile before)
NEWLY_NATIVE = [
    ("kalah", {}, "let (statement), a range bound by a let"),
    ("hex", {}, "repeat"),
    ("hexapawn", {}, "when stuck lose"),
    ("nim", {"a": 1, "b": 2, "c": 2}, "when stuck lose"),
    ("chomp", {"rows": 2, "cols": 3}, "when stuck lose"),
    ("breakthrough", {"rows": 4, "cols": 3, "home": 1}, "when stuck lose, parameter guards"),
    ("othello", {"size": 4}, "let in a define, ranges bound by locals"),
]


def _native(name, params):
    game = load(GAMES / f"{name}.game", params, backend="native")
    assert native_rules(game) is not None, game.native_note
    return game


@needs_cc
@pytest.mark.parametrize("name, params, uses", NEWLY_NATIVE, ids=[g[0] for g in NEWLY_NATIVE])
def test_every_step_agrees_with_the_python_tier(name, params, uses):
    game = _native(name, params)
    native = native_rules(game)
    players = len(game.info.players)
    terminals = 0
    for state in reachable_states(game, 3_000):
        player = game.current_player(state)
        assert native.current_player(state) == player, state
        if player == TERMINAL:
            terminals += 1
            assert native.returns(state, players) == game.returns(state), state
            continue
        actions = game.legal_actions(state)
        assert native.legal_actions(state) == actions, state
        for action in actions:
            assert native.apply(state, action) == game.apply(state, action), (state, action)
    assert terminals > 0


def _same(native, python):
    assert native is not None
    assert native.values == python.values
    assert native.best_actions == python.best_actions
    assert native.pv == python.pv
    assert native.stats.nodes == python.stats.nodes
    assert native.stats.leaves == python.stats.leaves


SOLVED_WHOLE = [("kalah", {"houses": 3, "seeds": 2}), ("hex", {}), ("hexapawn", {}),
                ("nim", {"a": 1, "b": 2, "c": 2}), ("chomp", {"rows": 2, "cols": 3}),
                ("breakthrough", {"rows": 4, "cols": 3, "home": 1}), ("othello", {"size": 4})]


@needs_cc
@pytest.mark.parametrize("name, params", SOLVED_WHOLE, ids=[g[0] for g in SOLVED_WHOLE])
def test_alphabeta_is_the_python_engine_node_for_node(name, params):
    game = _native(name, params)
    native = solve_native(game, "alphabeta")
    assert native is not None and native.extra["backend"] == "native"
    python = solve(game, "alphabeta")
    _same(native, python)
    assert native.stats == python.stats
    if name == "hexapawn":
        assert native.values == (-1, 1)          # FACTS: the second player (Black) wins
    if name == "nim":
        assert native.values[0] == 1             # heaps 1, 2, 2: XOR 1, the player to move wins
    if name in ("hex", "chomp"):
        # Strategy stealing (Nash for Hex, Gale for Chomp): the first player wins.
        assert native.values[0] > 0


@needs_cc
@pytest.mark.parametrize("name, params", [("hexapawn", {}), ("nim", {"a": 1, "b": 2, "c": 3}),
                                          ("chomp", {"rows": 2, "cols": 2}), ("hex", {"size": 2})])
def test_minimax_every_node_as_in_python(name, params):
    game = _native(name, params)
    _same(solve_native(game, "minimax"), solve(game, "minimax"))
    if name == "nim":
        assert solve_native(game, "minimax").values[0] == -1   # heaps 1, 2, 3: XOR 0, a loss


@needs_cc
def test_the_command_line_solves_hexapawn_natively(capsys):
    from gdl.cli import main

    assert main(["solve", str(GAMES / "hexapawn.game")]) == 0
    captured = capsys.readouterr()
    assert "native backend unavailable" not in captured.err
    assert "Black 1" in captured.out                  # FACTS: the second player wins


# ---- generated rule files with `let` and `repeat` (the second edition's constructs) ------------

@needs_cc
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=False,
                  second_edition=True))
def test_generated_rule_files_with_let_and_repeat(rules):
    game = loads(rules.text, "<generated>", backend="native")
    assert native_rules(game) is not None, game.native_note
    depth = 2 if game.info.has_evaluate else None
    python = solve(loads(rules.text, "<generated>", backend="interpret"), "minimax", depth=depth)
    native = solve_native(game, "minimax", depth=depth)
    if native is None:
        # Only a value the native integers cannot hold stops it: a rational utility (`/`).
        assert native_rules(game).stopped
        assert any(type(v).__name__ == "Fraction" and v.denominator != 1 for v in python.values) \
            or " / " in rules.text
        return
    _same(native, python)


# ---- untrusted input: rule-file names stay out of the code -------------------------------------

def _code_only(c_source: str) -> str:
    return re.sub(r"/\*.*?\*/", " ", c_source, flags=re.S)


# The new constructs, every name the rule file's own (all starting with zz).
NAMES_GAME = """game "names"
players A, B
var zzvar in 0..9 = 0
define zzdefine(zzparam) = let zzlet = zzparam + 1: zzlet * 2
action go(zzarg in 1..2) by A, B
    effect let zzstmt = zzarg; for zzloop in zzstmt..2 { zzvar = min(zzvar + zzloop, 9) }
           repeat 3 { zzvar = min(zzvar + 1, 9) }
terminal zzvar >= 9 or zzdefine(zzvar) > 12
utility A = zzvar - 5
zero-sum
when stuck lose
"""


def test_names_of_the_new_constructs_never_become_code():
    # Every name a rule file chooses (let names, binders of a computed range, define parameters,
    # variables) is replaced by the compiler's own; only numbers and those names are code.
    text = NAMES_GAME
    game = check(parse(text), Source("names.game", text))
    code = _code_only(emit.generate(game, "names.game"))
    assert "zz" not in code
    assert "names" not in code


@needs_cc
def test_the_names_game_plays_the_same_natively():
    text = NAMES_GAME
    game = loads(text, "names.game", backend="native")
    assert native_rules(game) is not None, game.native_note
    _same(solve_native(game, "minimax"), solve(loads(text, "names.game", backend="interpret"),
                                               "minimax"))


# ---- the agreement fuzzer compares them too ------------------------------------------------------

@needs_cc
@pytest.mark.parametrize("name, params", [("hexapawn", {}), ("kalah", {"houses": 2, "seeds": 2}),
                                          ("hex", {"size": 2}), ("nim", {"a": 1, "b": 2, "c": 2})])
def test_gdl_fuzz_compares_the_native_searches_on_them(name, params):
    from gdl.tools.fuzz import fuzz_file

    summary = fuzz_file(str(GAMES / f"{name}.game"), examples=3, seed=2, budget=1500,
                        params=params)
    assert summary.ok, [str(p) for f in summary.failures for p in f.problems]
    report = next(iter(summary.targets.values()))
    assert "native" in report.solvers       # the native searches ran and were compared


def test_the_fuzzer_renames_names_but_not_the_words_of_when():
    # Its metamorphic check renames every identifier; `lose` and `draw` here are words of the
    # language (before the fix, the renamed file failed to check: "unknown stuck rule 'n15'").
    from gdl.lang.format import format_file
    from gdl.tools.fuzz import rename_identifiers

    text = (GAMES / "cyclic" / "ring-chase.game").read_text().replace(
        "when endless draw", "when endless draw\nwhen stuck lose")
    renamed, mapping = rename_identifiers(parse(text), seed=1)
    again = format_file(renamed)
    assert "when stuck lose" in again and "when endless draw" in again
    assert "mouse" not in again and "mouse" in mapping
    check(parse(again), Source("renamed.game", again))     # still a valid game


# ---- parameter guards (folded into `requires` in declaration order: the meaning every back end
# can use, gdl.lang.ir.Action) ---------------------------------------------------------------------

ROOKS = """game "Rooks"
players A, B
var cell[3][3] in {empty, A, B} = [[A, empty, empty], [empty, empty, empty], [empty, empty, B]]
var moves in 0..2 = 0
action slide(fr in 0..2, fc in 0..2 if cell[fr][fc] == mover,
             tr in 0..2, tc in 0..2 if (tr == fr) != (tc == fc))
    requires cell[tr][tc] == empty
    effect   cell[tr][tc] = mover; cell[fr][fc] = empty; moves = moves + 1
terminal moves == 2
utility A = 1 if (any c in 0..2: cell[0][c] == A) else -1
zero-sum
"""


@needs_cc
def test_parameter_guards_run_natively():
    # docs/language.md's example: A's rook starts in the top row and slides along it (or down
    # its column); B cannot move it, so A wins (value 1). Its legal moves are the slides from
    # (0, 0) to another square of its row or of its column (the second guard), all empty: 2 + 2.
    game = loads(ROOKS, "rooks.game", backend="native")
    native = native_rules(game)
    assert native is not None, game.native_note
    root = game.initial_state()
    assert native.legal_actions(root) == game.legal_actions(root)
    names = [game.action_name(a) for a in native.legal_actions(root)]
    assert all(name.startswith("slide(0,0,") for name in names) and len(names) == 4
    interpreted = loads(ROOKS, "rooks.game", backend="interpret")
    for algorithm in ("minimax", "alphabeta"):
        found = solve_native(game, algorithm)
        _same(found, solve(interpreted, algorithm))
        assert found.values == (1, -1)


# ---- rules too large to compile quickly stay in Python, and that is remembered --------------------

# 3,000 ground actions, each with its own line in the legal actions and its own case in the
# effects (about 0.4 kB of C apiece, with no define to share): over a megabyte however it is made.
HUGE = """game "huge" players A, B
var x in 0..9 = 0
var y in 0..9 = 0
action a(i in 0..2999) requires (x * 7 + y * 3 + i) % 11 != 5
    effect x = (x + i) % 10; y = (y * 3 + i) % 10
terminal x == 9
utility A = 1 if y > 4 else -1
zero-sum
"""


@needs_cc
def test_rules_too_large_are_refused_once_and_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    path = tmp_path / "huge.game"
    path.write_text(HUGE, encoding="utf-8")
    game = load(path, backend="native")
    assert native_rules(game) is None and "kB of C" in game.native_note
    remembered = list((tmp_path / "gdl" / "native").glob("*.refused"))
    assert len(remembered) == 1 and remembered[0].stat().st_mode & 0o777 == 0o600
    # A second load does not make the C again: the refusal is read from the cache.
    monkeypatch.setattr(emit, "generate", lambda *a: pytest.fail("the C was made again"))
    again = load(path, backend="native")
    assert native_rules(again) is None and again.native_note == game.native_note
    assert again.info == game.info


@needs_cc
def test_a_remembered_refusal_is_read_only_from_a_private_file(tmp_path, monkeypatch):
    from gdl.backends.native import build

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    build._remember_refusal("k.refused", "a reason")
    native = tmp_path / "gdl" / "native"
    assert build._refusal("k.refused") == "a reason"
    decoy = tmp_path / "decoy"
    decoy.write_text("planted")
    decoy.chmod(0o600)
    (native / "k.refused").unlink()
    os.symlink(decoy, native / "k.refused")
    assert build._refusal("k.refused") is None           # a symlink is never followed
    (native / "k.refused").unlink()
    (native / "k.refused").write_text("planted")
    (native / "k.refused").chmod(0o622)                  # writable by others: not ours to trust
    assert build._refusal("k.refused") is None
    monkeypatch.setattr(build, "CACHE_ENTRIES", 2)
    for i in range(5):
        build._remember_refusal(f"{i}.refused", "why")
    assert len(list(native.glob("*.refused"))) <= 2       # bounded
