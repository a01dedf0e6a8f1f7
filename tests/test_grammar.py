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


# ---- reserved words: the documented list, refused as names, free as labels -------------------------

def documented_reserved_words() -> set[str]:
    import re

    from helpers import ROOT

    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = text.split("## Reserved words", 1)[1].split("\n## ", 1)[0]
    listing, hyphenated = re.search(r"own: `([^`]*)`, as\s+well as (.*?)\.", section, re.S).groups()
    return set(listing.split()) | set(re.findall(r"`([a-z-]+)`", hyphenated))


def test_the_documented_reserved_words_are_the_grammars():
    assert documented_reserved_words() == set(grammar.reserved_words()) | {
        "zero-sum", "constant-sum", "max-length"}


_HEAD = 'game "g"\nplayers A, B\nvar done in bool = false\n'
_TAIL = 'terminal done\nutility A = 1\nzero-sum\n'
# Every kind of name docs/language.md says a reserved word cannot be (W marks it).
NAME_PLACES = {
    "player": 'game "g"\nplayers W, B\nvar done in bool = false\naction go effect done = true\n'
              'terminal done\nutility B = 1\nzero-sum\n',
    "symbol": _HEAD + "var s in {W, other} = other\naction go effect done = true\n" + _TAIL,
    "variable": _HEAD + "var W in 0..1 = 0\naction go effect done = true\n" + _TAIL,
    "constant": _HEAD + "const W = 1\naction go effect done = true\n" + _TAIL,
    "param": _HEAD + "param W = 1\naction go effect done = true\n" + _TAIL,
    "define": _HEAD + "define W = 1\naction go effect done = true\n" + _TAIL,
    "define parameter": _HEAD + "define f(W) = 1\naction go effect done = f(1) == 1\n" + _TAIL,
    "action parameter": _HEAD + "action go(W in 0..1) effect done = true\n" + _TAIL,
    "quantifier binder": _HEAD + "action go requires any W in 0..1: true effect done = true\n" + _TAIL,
    "loop binder": _HEAD + "action go effect for W in 0..1 { done = true }\n" + _TAIL,
    "let": _HEAD + "action go requires let W = 1: true effect done = true\n" + _TAIL,
    "let statement": _HEAD + "action go effect let W = 1; done = true\n" + _TAIL,
    "random": _HEAD + "action go effect random W in 0..1; done = true\n" + _TAIL,
}


@pytest.mark.parametrize("place", NAME_PLACES)
def test_a_reserved_word_cannot_name_anything_the_rules_refer_to(place):
    import gdl

    for word in sorted(grammar.reserved_words()):
        with pytest.raises(GdlError) as caught:
            gdl.loads(NAME_PLACES[place].replace("W", word))
        first = caught.value.diagnostics[0]
        assert first.code == "E224", (word, first)
        assert f"'{word}'" in first.message


def test_a_reserved_word_may_be_a_label():
    # Action names and tree labels are never referred to in rules: any word may be one
    # (docs/language.md, "Reserved words"; games/centipede.game has `action pass`).
    import gdl

    for word in sorted(grammar.reserved_words()):
        game = gdl.loads(_HEAD + f"action {word} effect done = true\n" + _TAIL)
        start = game.initial_state()
        assert [game.action_name(a) for a in game.legal_actions(start)] == [word]
        tree = gdl.loads(f'game "t"\nplayers A\ntree A {{ {word}: chance {{ {word} 1/2: 1, '
                         f'other 1/2: 0 }}, b: 0 }}\n')
        assert [tree.action_name(a) for a in tree.legal_actions(tree.initial_state())] == [word, "b"]
        # commas between edges are optional, and after a leaf a declaration keyword could also
        # start the next declaration: a label still (LALR's lookahead had it a keyword)
        tree = gdl.loads(f'game "t"\nplayers A\ntree A {{ b: 0 {word}: 1 }}\n')
        assert [tree.action_name(a) for a in tree.legal_actions(tree.initial_state())] == ["b", word]
