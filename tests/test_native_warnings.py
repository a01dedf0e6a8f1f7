"""The generated C compiles without a single warning under ``-Wall -Wextra -Werror``.

The native build passes ``-w`` (gdl.backends.native.build.FLAGS: a user's compiler must never
turn a warning into a refusal), so a warning there would go unseen: an unused value the emitter
meant to use, or a value read before it was written (``-Wmaybe-uninitialized`` found the leaf
value read from an unset vector when a game has no evaluation). Here the C of every bundled game
(default parameters, through the same emitter, both with defines inlined and as functions, the
form gdl falls back to for large rules) and of a few generated games using the whole language is
compiled again in a scratch directory, with the build's flags less ``-w`` and with the warnings
on (the bundled games' all at once, on every core): the cached libraries are never touched. A compile takes a second or more each, so these
tests are marked slow (``pytest -m "not slow"`` leaves them out)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from gdl.backends.load import load
from gdl.backends.native.build import FLAGS, compiler
from gdl.backends.native.emit import CEmitter, TooLarge, Unsupported, generate
from gdl.generators.rules import rule_games
from gdl.tools.native_solve import native_rules

GAMES = Path(__file__).resolve().parent.parent / "games"
BUNDLED = sorted(GAMES.glob("*.game")) + sorted((GAMES / "cyclic").glob("*.game"))
# The bundled games written as explicit trees (`tree` blocks): no C exists for them; the test
# below checks that this is why.
TREES = {"aima-fig5-2.game", "aima-fig5-4.game", "chance-example.game", "knuth-moore.game"}
WARNINGS = ("-Wall", "-Wextra", "-Werror")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(compiler() is None, reason="no C compiler: there is no C to check")]


def compile_strictly(source: str, directory: Path, name: str) -> subprocess.CompletedProcess:
    c_file = directory / f"{name}.c"
    c_file.write_text(source, encoding="utf-8")
    flags = [flag for flag in FLAGS if flag != "-w"]
    assert len(flags) == len(FLAGS) - 1        # the build does silence warnings: else update this
    return subprocess.run([compiler(), *flags, *WARNINGS, "-o", str(directory / f"{name}.so"),
                           str(c_file)], capture_output=True, text=True, timeout=600, check=False)


def _source(path: Path, define_functions: bool):
    """The C of a bundled game in one of the two forms, or None where there is none (a tree,
    rules too large inlined, rules the native tier does not compile): the test says why."""
    game = load(path, backend="compile")
    if getattr(game, "ir", None) is None:
        return None
    try:
        return CEmitter(game.ir, str(path), define_functions=define_functions).unit()
    except (TooLarge, Unsupported):
        return None


@cache
def _strict_compiles() -> dict[str, subprocess.CompletedProcess]:
    """Every bundled game's C in both forms compiled strictly, all at once on every core (each
    compile takes a second or more, one process each): the outcome by source text. Only the
    wall time changes: each test below still checks its own game's source and outcome."""
    sources = {source for path in BUNDLED for functions in (False, True)
               if (source := _source(path, functions)) is not None}
    with tempfile.TemporaryDirectory(prefix="gdl-strict-") as scratch:

        def one(numbered):
            number, source = numbered
            return source, compile_strictly(source, Path(scratch), f"unit{number}")

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            return dict(pool.map(one, enumerate(sorted(sources))))


def test_every_bundled_game_is_here():
    # at least the dozen the README promises, cyclic ones included
    assert len(BUNDLED) >= 20 and any(p.parent.name == "cyclic" for p in BUNDLED)
    assert {p.name for p in BUNDLED} >= TREES


@pytest.mark.parametrize("define_functions", [False, True], ids=["inlined", "functions"])
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_bundled_game_compiles_without_warnings(path, define_functions):
    game = load(path, backend="compile")
    if path.name in TREES:
        assert getattr(game, "ir", None) is None         # an explicit tree: the emitter refuses it
        return
    try:
        source = CEmitter(game.ir, str(path), define_functions=define_functions).unit()
    except TooLarge:
        # inlined, the rules would pass MAX_SOURCE (Othello): generate gives the defines as
        # functions instead, which the "functions" case of this game compiles
        assert not define_functions
        assert generate(game.ir, str(path)) == CEmitter(game.ir, str(path), True).unit()
        return
    except Unsupported:
        # rules the native tier does not compile (a probability computed by a define, joint
        # moves): the game runs in Python, and says so
        native = load(path, backend="native")
        assert native_rules(native) is None and "native backend unavailable" in native.native_note
        return
    if not define_functions:
        assert source == generate(game.ir, str(path))   # what the native tier really compiles
    done = _strict_compiles()[source]
    assert done.returncode == 0, done.stderr[-4000:]
    assert "warning" not in done.stderr, done.stderr[-4000:]


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(rule_games(full_language=True))
def test_generated_games_using_the_whole_language_compile_without_warnings(rules):
    # `let`, `repeat`, chance, guards, dependent ranges: constructs no bundled game may use
    game = rules.load("compile")
    try:
        source = generate(game.ir, "<generated>")
    except Unsupported:
        return                                           # runs in Python: no C to check
    with tempfile.TemporaryDirectory() as scratch:
        done = compile_strictly(source, Path(scratch), "generated")
    assert done.returncode == 0, f"{done.stderr[-4000:]}\n{rules.text}"
    assert "warning" not in done.stderr, f"{done.stderr[-4000:]}\n{rules.text}"
