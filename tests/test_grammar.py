"""The grammar: LALR(1) without conflicts, shipped in the package, cached safely."""

import os
import stat

import lark
import pytest

from gdl import cache
from gdl.errors import GdlError
from gdl.lang import grammar, parse


def test_grammar_builds_in_strict_mode():
    # strict=True makes Lark raise on any shift/reduce conflict and on colliding terminals
    # (interegular checks the regular expressions), so building proves there are none.
    grammar.build_parser.cache_clear()
    parser = grammar.build_parser(strict=True)
    assert isinstance(parser, lark.Lark)
    assert parser.options.parser == "lalr"


def test_grammar_is_read_from_the_installed_package():
    from importlib import resources

    resource = resources.files("gdl.grammars").joinpath("game.lark")
    assert resource.is_file()
    assert "start:" in resource.read_text()


def test_parser_cache_lives_in_a_private_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    grammar.build_parser.cache_clear()
    try:
        parse.parse('game "x"\nplayers A\n')
        directory = tmp_path / "gdl"
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        assert [p.name for p in directory.iterdir() if p.name.startswith("grammar-")]
    finally:
        grammar.build_parser.cache_clear()


def test_a_cache_directory_others_can_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "gdl").mkdir(mode=0o700)
    os.chmod(tmp_path / "gdl", 0o777)
    assert cache.private_cache_dir() is None


@pytest.mark.parametrize("text, expected", [
    ("x = -7 // 2", -4), ("x = -7 % 2", 1), ("x = 7 // -2", -4), ("x = 7 % -2", -1),
    ("x = 2 + 3 * 4", 14), ("x = (2 + 3) * 4", 20), ("x = 10 - 4 - 3", 3),
    ("x = 1 if 2 > 3 else 5", 5), ("x = max(3, 9, 4) - abs(-2)", 7),
    ("x = sum i in 1..4: i * i", 30), ("x = count i in 0..9: i % 3 == 0", 4),
    ("x = min i in 2..5: 10 - i", 5),
])
def test_integer_arithmetic_follows_floor_division(text, expected):
    # Floor division: a == (a // b) * b + a % b, the remainder takes the divisor's sign.
    import gdl

    game = gdl.loads(f'game "arith"\nplayers A\nvar x in -99..99 = 0\nvar done in bool = false\n'
                     f'action go effect {text}; done = true\nterminal done\nutility A = x\n')
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
    assert game.returns(state) == (expected,)


def test_quantifier_body_stops_at_or():
    # `any i in 0..1: i == 5 or true` reads as `(any ...) or true`, which is true.
    import gdl

    game = gdl.loads('game "q"\nplayers A\nvar x in 0..1 = 0\naction go effect x = 1\n'
                     'terminal any i in 0..1: i == 5 or true\nutility A = 0\n')
    assert game.current_player(game.initial_state()) < 0


def test_syntax_error_names_expected_tokens_in_words():
    with pytest.raises(GdlError) as caught:
        parse.parse('game "x"\nplayers A B\n')
    diagnostic = caught.value.diagnostics[0]
    assert (diagnostic.code, diagnostic.span.line, diagnostic.span.column) == ("E100", 2, 11)
    assert "','" in diagnostic.hint
