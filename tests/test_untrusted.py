"""A rule file is untrusted input: compiling it must never run code of the file's choosing.

The compiler pastes nothing from the file into the generated source except numbers (``repr``)
and the file's own lines inside ``#`` comments, cleaned of every character that could end a
comment. These tests feed it names and strings written to break out (quotes, backslashes,
carriage returns, form feeds, NUL, Unicode line separators, ``__import__``, dunder names,
names of the generated code's own variables, very long names) with payloads that would leave a
trace if they ran: a file on disk, or a global in the generated module. The games must still
work, exactly as the reference interpreter plays them.
"""

from __future__ import annotations

import ast as pyast
import builtins
from pathlib import Path

import pytest
from test_compile import both, explore

import gdl
import gdl.backends.compiler as compiler
from gdl.backends.compiler import CompiledGame
from gdl.errors import is_control

# A payload that, if it ever ran as Python, would set a global and try to leave a file.
PAYLOAD = "PWNED = 1; __import__('os').system('touch {marker}'); open('{marker}', 'w')"
BREAKERS = ["\r", "\x0c", "\x00", "\x85", "\u2028", "\u2029", "\x1c", "\x0b"]


def hostile_game(marker: Path, breaker: str) -> str:
    """The breaker goes into strings where a string may hold it (control characters are refused
    there, E230: see test_terminal_safety.py) and into comments where it does not end the
    comment in rule text too (a lone CR is a line ending in rule text, gdl.lang.text)."""
    payload = PAYLOAD.format(marker=marker)
    in_string = "" if is_control(breaker) else breaker
    in_comment = "" if breaker == "\r" else breaker
    return "\n".join([
        f'game "evil{in_string}{payload}{in_string}"',
        f"# a comment that tries to end the generated comment {in_comment}{payload}",
        "players __class__, __builtins__          # dunder-looking players",
        "var __init__[2] in {s, _fail, __import__} = s     # symbols named like generated code",
        f"var {'x' * 3000} in 0..3 = 0                       # a very long name",
        "define __call__(__self__) = __init__[__self__] == _fail",
        f"action __getattr__(__globals__ in 0..1) requires not __call__(__globals__) and "
        f"{'x' * 3000} < 3 effect __init__[__globals__] = _fail; {'x' * 3000} = {'x' * 3000} + 1"
        f"   # {in_comment}{payload}",
        f"action finish effect {'x' * 3000} = 3",
        f"terminal {'x' * 3000} == 3 or all q in 0..1: __init__[q] == _fail",
        "utility __class__ = 1 if __init__[0] == __import__ else 0",
        "zero-sum",
        f'display __init__ as {{s: "{in_string}{payload}", _fail: "\'\'\'", __import__: "#"}}',
    ])


def assert_inert(game: CompiledGame, marker: Path) -> None:
    namespace = game.current_player.__globals__
    assert "PWNED" not in namespace
    assert not marker.exists()
    tree = pyast.parse(game.python_source)
    names = {node.id for node in pyast.walk(tree) if isinstance(node, pyast.Name)}
    assert "PWNED" not in names and "__import__" not in names and "open" not in names
    strings = [node.value for node in pyast.walk(tree)
               if isinstance(node, pyast.Constant) and isinstance(node.value, str)]
    assert not any("touch" in text for text in strings)


@pytest.mark.parametrize("breaker", BREAKERS, ids=repr)
def test_hostile_names_and_strings_stay_data(tmp_path, breaker):
    marker = tmp_path / "PWNED_FILE"
    text = hostile_game(marker, breaker)
    game = gdl.loads(text, filename=f"evil{breaker}name.game")
    assert isinstance(game, CompiledGame)
    assert_inert(game, marker)
    assert "\r" not in game.python_source.replace("\n", "") and "\x00" not in game.python_source
    assert len(max(game.python_source.splitlines(), key=len)) < 20_000
    ref, fast = both(text, "evil.game")
    assert explore(ref, fast) > 3               # and it plays exactly as interpreted
    assert_inert(fast, marker)
    assert game.info.name.startswith("evil")    # the title is kept, as data


def test_the_payload_would_run_without_the_cleaning(monkeypatch):
    """The tests above can fail: with comment cleaning switched off, a carriage return in the
    title ends the generated comment and the rest of the title runs as Python."""
    from gdl.errors import Source
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    text = ('game "evil PWNED = 1" players A, B var n in 0..1 = 0 action go effect n = 1 '
            'terminal n == 1 utility A = 0 zero-sum')
    game = check(parse(text), Source("<evil>", text))
    # A rule file can no longer carry a CR in its title (E230), but the compiler must not rely
    # on that: the title is set here as if it could.
    game.title = "evil\rPWNED = 1"
    namespace: dict = {"__builtins__": {}}
    clean: dict = dict(namespace)
    exec(compile(compiler.generate(game), "<clean>", "exec"), clean)
    assert "PWNED" not in clean
    monkeypatch.setattr(compiler, "_sanitize", lambda text, limit=160: text)
    dirty: dict = dict(namespace)
    exec(compile(compiler.generate(game), "<dirty>", "exec"), dirty)
    assert dirty["PWNED"] == 1


def test_generated_module_sees_only_what_it_needs():
    game = gdl.load(Path(__file__).resolve().parent.parent / "games" / "tictactoe.game")
    namespace = game.current_player.__globals__
    assert set(namespace["__builtins__"]) < set(dir(builtins))
    for dangerous in ("__import__", "open", "eval", "exec", "compile", "getattr", "globals"):
        assert dangerous not in namespace["__builtins__"]


def test_deep_nesting_works_or_is_refused_with_a_location():
    """Rules nested past what Python's compiler takes still work (the interpreter runs them),
    or the file is refused with a located error; never a crash."""
    for depth in (250, 400):
        for condition in ("(" * depth + "n == 2" + ")" * depth, "not " * depth + "n == 2",
                          "(" + "0 if n == 5 else " * depth + "1) == 1"):
            text = (f'game "deep" players A, B var n in 0..2 = 0 action go requires n < 2 '
                    f'effect n = n + 1 terminal {condition} utility A = 1 zero-sum')
            try:
                game = gdl.loads(text)
            except gdl.GdlError as error:
                assert error.span.line >= 1
                continue
            state = game.initial_state()
            while game.current_player(state) >= 0:
                state = game.apply(state, game.legal_actions(state)[0])
            assert game.returns(state) == (1, -1)
