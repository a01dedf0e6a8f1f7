"""The compiled backend (gdl.backends.compiler) against the reference interpreter (gdl.backends.interpret).

Both must give the same answers everywhere: legal actions (ids and order), successor states,
terminal tests, returns, evaluations, quiet tests, chance outcomes, action names, and the same
run-time errors (code, span, state, action). Small games are compared at every reachable state
(up to a cap), large ones along seeded random playouts. Tic-tac-toe's published numbers
(../shared/FACTS.md) are checked through the compiled backend.
"""

from __future__ import annotations

import linecache
import os
import random
from collections import deque
from pathlib import Path

import pytest
from helpers import BUNDLED
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
from gdl.backends.compiler import build, generate
from gdl.backends.interpret import InterpretedGame
from gdl.backends.runtime import CompiledGame
from gdl.backends.tree import TreeGame
from gdl.errors import GameRuntimeError, Source
from gdl.lang.check import check
from gdl.lang.parse import parse
from gdl.protocol import CHANCE, TERMINAL
from gdl.solvers.minimax import minimax
from gdl.tools.count import count

ROOT = Path(__file__).resolve().parent.parent
GAMES = BUNDLED   # games/*.game and games/cyclic/*.game
DATA = Path(__file__).resolve().parent / "data"
ERROR_FILES = sorted((DATA / "runtime").glob("*.game")) + sorted((DATA / "deep").glob("*.game"))
STATE_CAP = 1500


def both(text: str, filename: str = "<test>", params=None):
    """(interpreted, compiled) for rule text; (None, None) for an explicit tree."""
    source = Source(filename, text)
    game = check(parse(text, filename), source, params)
    if game.tree is not None:
        return None, None
    return InterpretedGame(game, source), build(game, source)


def both_from(path: Path, params=None):
    return both(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), params)


def outcome(fn, *args):
    """What a call gives: its value, or the error with everything a caller can see of it."""
    try:
        return ("value", fn(*args))
    except GameRuntimeError as error:
        return ("error", error.code, error.span, getattr(error, "state", None),
                getattr(error, "action", None))
    except Exception as error:
        return ("exception", type(error).__name__)


def compare_state(ref, fast, state):
    """Compare every protocol answer at ``state``; return the moves to explore from it."""
    for method in ("current_player", "is_terminal", "returns", "is_quiet"):
        assert outcome(getattr(ref, method), state) == outcome(getattr(fast, method), state), \
            (method, state)
    if ref.info.has_evaluate:
        assert outcome(ref.evaluate, state) == outcome(fast.evaluate, state), ("evaluate", state)
    kind = outcome(ref.current_player, state)
    if kind[0] != "value" or kind[1] == TERMINAL:
        assert outcome(ref.legal_actions, state) == outcome(fast.legal_actions, state)
        return []
    if kind[1] == CHANCE:
        expected = outcome(ref.chance_outcomes, state)
        assert expected == outcome(fast.chance_outcomes, state), ("chance_outcomes", state)
        moves = [a for a, _ in expected[1]] if expected[0] == "value" else []
    else:
        expected = outcome(ref.legal_actions, state)
        assert expected == outcome(fast.legal_actions, state), ("legal_actions", state)
        moves = expected[1] if expected[0] == "value" else []
    for move in moves:
        assert ref.action_name(move) == fast.action_name(move)
    return moves


def explore(ref, fast, cap: int = STATE_CAP) -> int:
    """Breadth-first over reachable states, comparing everything; the number of states seen."""
    assert ref.initial_state() == fast.initial_state()
    start = ref.initial_state()
    seen, queue = {start}, deque([start])
    while queue and len(seen) < cap:
        state = queue.popleft()
        for move in compare_state(ref, fast, state):
            expected = outcome(ref.apply, state, move)
            assert expected == outcome(fast.apply, state, move), ("apply", state, move)
            if expected[0] == "value" and expected[1] not in seen:
                seen.add(expected[1])
                queue.append(expected[1])
    return len(seen)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_compiled_equals_interpreted_on_bundled_games(path):
    ref, fast = both_from(path)
    if ref is None:
        assert isinstance(gdl.load(path), TreeGame)
        assert isinstance(gdl.load(path, backend="interpret"), TreeGame)
        return
    if ref.info.simultaneous:
        # Joint moves are not compiled: such a game is the interpreter itself, and says so
        # (gdl.backends.compiler.build_compiled); nothing is left to compare.
        assert type(fast) is InterpretedGame
        assert "simultaneous moves run in the reference interpreter" in fast.compile_error
        return
    assert isinstance(fast, CompiledGame) and "python_source" in vars(fast)
    assert explore(ref, fast) >= 1


@pytest.mark.parametrize("path", ERROR_FILES, ids=lambda p: p.name)
def test_compiled_errors_equal_interpreted(path):
    """Files whose rules fail in play: the same error, with the same span, state and action."""
    ref, fast = both_from(path)
    explore(ref, fast)


def playout_compare(ref, fast, seed: int, limit: int = 400) -> None:
    rng = random.Random(seed)
    state = ref.initial_state()
    for _ in range(limit):
        moves = compare_state(ref, fast, state)
        if not moves:
            return
        move = rng.choice(moves)
        expected = outcome(ref.apply, state, move)
        assert expected == outcome(fast.apply, state, move), ("apply", state, move)
        if expected[0] != "value":
            return
        state = expected[1]


CONNECT4 = ROOT / "games" / "connect4.game"
PIG = ROOT / "games" / "pig.game"
_big = {}


def big_pair(key):
    if key not in _big:
        if key == "connect4-7x6":
            _big[key] = both_from(CONNECT4, {"columns": 7, "rows": 6})
        else:
            _big[key] = both_from(PIG, {"winscore": 20})
    return _big[key]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_playouts_connect4_7x6(seed):
    playout_compare(*big_pair("connect4-7x6"), seed)


@pytest.mark.skipif(not PIG.exists(), reason="games/pig.game not present")
@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_playouts_pig(seed):
    playout_compare(*big_pair("pig"), seed, limit=300)


# ---- run-time errors in every kind of rule ------------------------------------------------

ERRORS = {
    "requires divides by zero": """
        game "E" players A, B var n in 0..3 = 1
        action go(k in 0..1) requires 4 / (n - k) > 0 effect n = n + 1
        terminal n == 3 utility A = 0 zero-sum""",
    "terminal indexes out of range": """
        game "E" players A, B var n in 0..5 = 0 var row[3] in 0..1 = 0
        action go effect n = n + 1
        terminal row[n] == 1 utility A = 0 zero-sum""",
    "utility divides by zero": """
        game "E" players A, B var n in 0..3 = 0
        action go effect n = n + 1
        terminal n == 2 utility A = 6 / (n - 2) zero-sum""",
    "evaluation indexes out of range": """
        game "E" players A, B var n in 0..4 = 0 var row[2] in 0..1 = 0
        action go effect n = n + 1
        terminal n == 4 utility A = 0 zero-sum evaluate A = row[n]""",
    "a probability divides by zero": """
        game "E" players A, B var t in 0..2 = 0
        action roll effect random d in {0: 1/2, 1: 1/(1 - t) - 1/2}; t = t + 1
        terminal t == 2 utility A = 0 zero-sum""",
    "probabilities stop summing to 1": """
        game "E" players A, B var t in 0..3 = 0
        action roll effect random d in {0: 1/2, 1: 1/2 - t / 4}; t = t + 1
        terminal t == 3 utility A = 0 zero-sum""",
    "a value leaves its domain inside a loop": """
        game "E" players A, B var a[3] in 0..2 = 0 var n in 0..9 = 0
        action bump effect for i in 0..2 { a[i] = a[i] + i } n = n + 1
        terminal n == 9 utility A = 0 zero-sum""",
    "index written out of range after a chance outcome": """
        game "E" players A, B var p in 0..9 = 0 var row[4] in 0..1 = 0
        action step effect random d in 1..2; p = p + d; row[p] = 1
        terminal p >= 6 utility A = 0 zero-sum""",
    "dead end": """
        game "E" players A, B var n in 0..3 = 0
        action inc requires n < 2 effect n = n + 1
        terminal n == 3 utility A = 1 zero-sum""",
    "stuck players pass in rotation": """
        game "E" players A, B, C var n in 0..6 = 0
        action inc by A, C requires n < 5 effect n = n + 1
        action hop by B requires n % 2 == 1 effect n = n + 1
        when stuck pass
        terminal n >= 5 utility A = n utility B = 0 utility C = 0""",
    "next can hand the turn to the mover again": """
        game "E" players A, B var n in 0..4 = 0
        action again requires n < 3 effect n = n + 1; next mover
        action done effect n = 4
        terminal n == 4 utility A = n zero-sum""",
    "next names a symbol that is not a player": """
        game "E" players A, B var w in {nobody, A, B} = nobody var n in 0..3 = 0
        action go effect n = n + 1; w = A if n == 2 else nobody; next w
        action wait effect n = n + 1
        terminal n == 3 utility A = 0 zero-sum""",
    "quiet rule and a dynamic distribution": """
        game "E" players A, B var t in 0..3 = 0 var s in 0..9 = 0
        action roll requires t < 3 effect random d in {1: 1/(t + 1), 2: t/(t + 1)}; t = t + 1; s = s + d
        action stop effect t = 3
        terminal t == 3 utility A = s - 3 zero-sum evaluate A = s quiet when s % 2 == 0""",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_and_corners_agree(name):
    ref, fast = both(ERRORS[name], f"<{name}>")
    explore(ref, fast)


def test_the_error_files_do_fail():
    """The comparison above means something: these rules do raise their run-time errors."""
    codes = set()
    for text in ERRORS.values():
        ref, fast = both(text)
        seen, queue = {fast.initial_state()}, deque([fast.initial_state()])
        while queue:
            state = queue.popleft()
            try:
                kind = fast.current_player(state)
                fast.returns(state)
                if fast.info.has_evaluate and kind != TERMINAL:
                    fast.evaluate(state)
                if kind == TERMINAL:
                    continue
                moves = ([a for a, _ in fast.chance_outcomes(state)] if kind == CHANCE
                         else fast.legal_actions(state))
                for move in moves:
                    child = fast.apply(state, move)
                    if child not in seen:
                        seen.add(child)
                        queue.append(child)
            except GameRuntimeError as error:
                codes.add(error.code)
    assert {"E301", "E302", "E303", "E304", "E305"} <= codes


# ---- published numbers through the compiled backend -----------------------------------------

def test_tictactoe_facts_through_the_compiled_backend():
    game = gdl.load(ROOT / "games" / "tictactoe.game")
    assert isinstance(game, CompiledGame)
    result = count(game)
    assert result.nodes == 549_946
    assert result.per_ply == (1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872)
    assert result.games == 255_168
    assert result.states == 5_478 and result.terminal_states == 958
    assert minimax(game).values == (0, 0)


def test_caches_do_not_change_answers():
    text = (ROOT / "games" / "tictactoe.game").read_text()
    source = Source("games/tictactoe.game", text)
    game = check(parse(text, "games/tictactoe.game"), source)
    cached, plain = build(game, source), build(game, source, cache=False)
    assert "_TC.get(s)" in cached.python_source and "_TC.get(s)" not in plain.python_source
    assert count(cached).as_dict() == count(plain).as_dict()


# ---- the generated source ---------------------------------------------------------------------

def test_source_compiles_is_stable_and_points_at_the_rules():
    path = ROOT / "games" / "tictactoe.game"
    text = path.read_text()
    source = Source("games/tictactoe.game", text)
    first = generate(check(parse(text, "games/tictactoe.game"), source), source)
    second = generate(check(parse(text, "games/tictactoe.game"), source), source)
    assert first == second
    compile(first, "<test>", "exec")
    lines = text.splitlines()
    requires_line = next(i for i, line in enumerate(lines, 1) if "requires" in line)
    assert f"# games/tictactoe.game:{requires_line}: {lines[requires_line - 1].strip()}" in first
    assert "# games/tictactoe.game:" in first


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_every_bundled_game_generates_stable_source(path):
    text = path.read_text()
    source = Source(path.name, text)
    ir_game = check(parse(text, path.name), source)
    if ir_game.tree is not None:
        return
    a, b = generate(ir_game, source), generate(check(parse(text, path.name), source), source)
    assert a == b
    compile(a, "<test>", "exec")


def _free_names(source: str) -> set[str]:
    """Names the generated module reads but never binds itself."""
    import ast as pyast

    tree = pyast.parse(source)
    bound, used = set(), set()
    for node in pyast.walk(tree):
        if isinstance(node, pyast.Name):
            (used if isinstance(node.ctx, pyast.Load) else bound).add(node.id)
        elif isinstance(node, (pyast.FunctionDef, pyast.arg)):
            bound.add(node.name if isinstance(node, pyast.FunctionDef) else node.arg)
        elif isinstance(node, (pyast.Global, pyast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, pyast.ExceptHandler) and node.name:
            bound.add(node.name)
    return used - bound


@pytest.mark.parametrize("path", GAMES + ERROR_FILES, ids=lambda p: p.name)
def test_generated_code_needs_nothing_outside_its_namespace(path):
    game = gdl.load(path)
    if not isinstance(game, CompiledGame):
        return
    assert "compile_error" not in vars(game)
    namespace = game.current_player.__globals__
    missing = _free_names(game.python_source) - set(namespace) - set(namespace["__builtins__"])
    assert not missing


def test_tracebacks_show_generated_lines():
    game = gdl.load(ROOT / "games" / "tictactoe.game")
    name = game.pseudo_filename
    assert name.startswith("<gdl:tictactoe.game:")
    assert game.current_player.__code__.co_filename == name
    first = game.current_player.__code__.co_firstlineno
    assert linecache.getline(name, first).startswith("def current_player(s):")


# ---- choosing the backend -------------------------------------------------------------------

def test_backends_to_choose_from():
    path = ROOT / "games" / "nim.game"
    assert isinstance(gdl.load(path), CompiledGame)
    assert isinstance(gdl.load(path, backend="compile"), CompiledGame)
    assert isinstance(gdl.load(path, backend="interpret"), InterpretedGame)
    with pytest.raises(ValueError):
        gdl.load(path, backend="jit")


def test_cli_backend_option(capsys):
    import json

    from gdl.cli import main

    results = {}
    for backend in ("compile", "interpret"):
        assert main(["solve", str(ROOT / "games" / "splitting.game"), "--json",
                     "--backend", backend]) == 0
        document = json.loads(capsys.readouterr().out)
        document["stats"].pop("seconds")
        results[backend] = document
    assert results["compile"] == results["interpret"]
    assert results["compile"]["values"]["V"] == 12          # FACTS.md: board splitting
    assert main(["count", str(ROOT / "games" / "nim.game"), "--backend", "interpret"]) == 0


def test_reference_helpers_are_available():
    """Helpers for people that only the interpreter defines are reached through it."""
    game = gdl.load(ROOT / "games" / "tictactoe.game")
    # An attribute that neither backend defines is refused without building the interpreter
    # (a parse and a check): probing with getattr(game, name, None) must stay cheap.
    assert getattr(game, "no_such_helper", None) is None
    assert vars(game).get("_reference_game") is None
    assert game.variables(game.initial_state())["cell"][1][1] == "empty"
    assert vars(game).get("_reference_game") is not None
    assert game.display["cell"]["X"] == "X"   # tictactoe.game: display cell …


# ---- the per-user cache of compiled games ------------------------------------------------------

@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    return tmp_path / "gdl" / "compiled"


def test_a_cached_game_skips_parsing_and_plays_the_same(cache_home):
    path = ROOT / "games" / "hexapawn.game"
    first = gdl.load(path)
    assert len(list(cache_home.glob("*.json"))) == 1
    second = gdl.load(path)
    assert second._ir is None                     # nothing was parsed or checked
    assert second.python_source == first.python_source
    ref, _ = both_from(path)
    assert explore(ref, second) == explore(ref, first)
    assert second.ir.title == "Hexapawn"          # rebuilt on demand


def test_the_cache_key_covers_text_and_parameters(cache_home):
    path = ROOT / "games" / "nim.game"
    gdl.load(path)
    gdl.load(path, params={"a": 5})
    gdl.loads(path.read_text() + "\n# another comment\n", str(path))
    assert len(list(cache_home.glob("*.json"))) == 3
    assert gdl.load(path, params={"a": 5}).initial_state()[1] == 5


def test_the_cache_key_covers_the_compiler_in_every_subpackage(cache_home):
    # A changed compiler must not reuse modules generated by the old one: the key covers gdl's
    # sources at every depth (the compiler's work is in gdl/backends/pycompile/, the native
    # tier's in gdl/backends/native/).
    from gdl.backends.load import _gdl_stamp

    before = _gdl_stamp()
    for nested in (ROOT / "gdl" / "backends" / "pycompile" / "emit.py",
                   ROOT / "gdl" / "backends" / "native" / "search.c"):
        info = nested.stat()
        try:
            os.utime(nested, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
            assert _gdl_stamp() != before, nested
        finally:
            os.utime(nested, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert _gdl_stamp() == before


def test_the_cache_is_private_and_survives_damage(cache_home):
    path = ROOT / "games" / "splitting.game"
    gdl.load(path)
    (entry,) = cache_home.glob("*.json")
    entry.write_text("{ not json")
    assert gdl.load(path).initial_state() == both_from(path)[0].initial_state()
    entry.chmod(0o666)                            # writable by others: never read
    assert gdl.load(path)._ir is not None
    cache_home.chmod(0o777)                       # a shared directory: not used at all
    for old in cache_home.glob("*.json"):
        old.unlink()
    gdl.load(path)
    assert not list(cache_home.glob("*.json"))
