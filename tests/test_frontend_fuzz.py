"""Robustness of the front end: whatever the text, parse → check → build (gdl.loads) either
works or raises gdl's own located error (GdlError: a code E###, every diagnostic on a line of
the text), and never hangs (each input runs under a time limit).

Inputs: text generated from the grammar itself (hypothesis.extra.lark.from_lark; every token
padded with spaces so the lexer reads what the grammar meant), and mutations of the bundled
games (tokens and lines deleted, duplicated or swapped; text cut short).
"""

from __future__ import annotations

import glob
import os
import re
import signal

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark.lexer import PatternStr

import gdl
from gdl.errors import GdlError
from gdl.lang.grammar import grammar_text
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL
from gdl.tools.mutate import OutOfTime, limit_time

GAMES = {os.path.basename(p): open(p, encoding="utf-8").read()
         for p in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "games",
                                                "*.game")))}
SECONDS = 10   # CPU seconds per input (limit_cpu_time): a loaded machine cannot make this flaky
BACKENDS = getattr(gdl, "BACKENDS", ("interpret",))
FUZZ = settings(deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])


def assert_located(error: GdlError, text: str) -> None:
    lines = text.count("\n") + 1
    assert error.diagnostics
    for diagnostic in error.diagnostics:
        assert re.fullmatch(r"E\d{3}", diagnostic.code), diagnostic
        assert 1 <= diagnostic.span.line <= lines, (diagnostic, lines)
        assert diagnostic.span.column >= 1, diagnostic
    error.render()   # rendering never fails either


def limit_cpu_time(seconds: float):
    """CPU, not wall time: a loaded machine stretches the wall clock, and the C compiler the
    native back end starts runs in a process of its own, outside the count, as the front end's
    own work is what is limited."""
    return limit_time(seconds, cpu=True)


def test_the_cpu_limit_stops_a_busy_loop_and_leaves_no_timer():
    with pytest.raises(OutOfTime), limit_cpu_time(0.2):
        while True:
            pass
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def front_end(text: str) -> None:
    """parse → check → build with each backend, then a few steps of play; only located gdl
    errors may come out."""
    for backend in BACKENDS:
        with limit_cpu_time(SECONDS):
            try:
                game = gdl.loads(text, "<fuzz>", backend=backend)
                state = game.initial_state()
                for _ in range(3):
                    player = game.current_player(state)
                    if player == TERMINAL:
                        game.returns(state)
                        break
                    if player == SIMULTANEOUS:      # each acting player's first action
                        state = game.apply_joint(state, tuple(
                            game.legal_actions_of(state, p)[0]
                            for p in game.acting_players(state)))
                        continue
                    moves = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                             else game.legal_actions(state))
                    state = game.apply(state, moves[0])
            except GdlError as error:
                assert_located(error, text)


# ---- text from the grammar ----------------------------------------------------------------------

def _grammar_strategy():
    parser = lark.Lark(grammar_text(), parser="lalr")
    terminals, _, _ = parser.grammar.compile(parser.options.start, ())
    names = {t.name: t for t in terminals}
    padded = lambda s: st.just(f" {s} ")
    explicit = {}
    for name, terminal in names.items():
        if isinstance(terminal.pattern, PatternStr):
            explicit[name] = padded(terminal.pattern.value)
        elif name == "NAME":
            explicit[name] = st.one_of(st.sampled_from(["a", "b", "x", "p", "A", "B", "mover",
                                                        "players", "in"]),
                                       st.from_regex(r"[a-z][a-z0-9_]{0,4}", fullmatch=True)
                                       ).map(lambda s: f" {s} ")
        elif name == "INT":
            explicit[name] = st.integers(0, 12).map(lambda n: f" {n} ")
        elif name == "STRING":
            explicit[name] = st.text(st.characters(blacklist_characters='"\\\n',
                                                   blacklist_categories=("Cs",)),
                                     max_size=5).map(lambda s: f' "{s}" ')
        elif name == "COMMENT":
            explicit[name] = st.just(" # comment\n")
        elif name == "WS":
            explicit[name] = st.sampled_from([" ", "\n", "\t"])
        else:
            explicit[name] = st.from_regex(terminal.pattern.to_regexp(), fullmatch=True).map(
                lambda s: f" {s} ")
    return from_lark(parser, explicit=explicit)


GRAMMAR_TEXT = _grammar_strategy()


@settings(FUZZ, max_examples=30)
@given(GRAMMAR_TEXT)
def test_text_from_the_grammar(text):
    front_end(text)


@settings(FUZZ, max_examples=40)
@given(GRAMMAR_TEXT)
def test_text_from_the_grammar_parses(text):
    """The grammar's own sentences (tokens padded) are never syntax errors (E1xx); the parser
    may still object to a number like 1/0 (E221), with its location."""
    from gdl.lang.parse import parse

    with limit_cpu_time(SECONDS):
        try:
            parse(text)
        except GdlError as error:
            assert_located(error, text)
            assert not error.code.startswith("E1"), error.render()


# ---- mutations of the bundled games --------------------------------------------------------------

TOKEN = re.compile(r'"[^"\n]*"|#[^\n]*|\.\.|==|!=|<=|>=|zero-sum|constant-sum|max-length'
                   r'|[A-Za-z_][A-Za-z0-9_]*|\d+|\S')


@st.composite
def mutated_games(draw):
    name = draw(st.sampled_from(sorted(GAMES)))
    text = GAMES[name]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete token", "duplicate token", "swap tokens",
                                     "delete line", "duplicate line", "swap lines", "truncate"]))
        if kind.endswith("token") or kind == "swap tokens":
            spans = [m.span() for m in TOKEN.finditer(text)]
            if len(spans) < 2:
                continue
            i = draw(st.integers(0, len(spans) - 2))
            (a, b), (c, d) = spans[i], spans[i + 1]
            if kind == "delete token":
                text = text[:a] + text[b:]
            elif kind == "duplicate token":
                text = text[:b] + " " + text[a:b] + text[b:]
            else:
                text = text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
        elif kind == "truncate":
            text = text[:draw(st.integers(0, len(text)))]
        else:
            lines = text.split("\n")
            i = draw(st.integers(0, max(0, len(lines) - 2)))
            if kind == "delete line":
                del lines[i]
            elif kind == "duplicate line":
                lines.insert(i, lines[i])
            elif len(lines) > 1:
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
            text = "\n".join(lines)
    return text


@settings(FUZZ, max_examples=100)
@given(mutated_games())
def test_mutated_bundled_games(text):
    front_end(text)


@pytest.mark.parametrize("text", [
    "define f = " + "(" * 400 + "1" + ")" * 400,
    "define f = " + "-" * 400 + "x",
    "define f = " + "not " * 400 + "x",
    "tree A { " + "a: A { " * 200 + "b: 1" + " }" * 201,
    'game "\x0c"\nplayers A\n\x0bvar',
    "players A, B\nvar x in 0..1000000000 = 0\naction a effect x = x + 1\nterminal x > 5\n"
    "utility A = x\nzero-sum\n",
    "players A, B\naction a(k in 0..100000000) effect pass\nterminal true\nutility A = 1\n"
    "zero-sum\n",
    "players A, B\nvar c[100000][100000] in bool = false\naction a effect pass\nterminal true\n"
    "utility A = 1\nzero-sum\n",
    "players A, B\ndefine f = any i in 0..99999, j in 0..99999: i == j\naction a effect pass\n"
    "terminal f\nutility A = 1\nzero-sum\n",
])
def test_hostile_inputs(text):
    front_end(text)


def test_huge_domains_are_refused_with_a_located_error():
    text = ("players A, B\nvar x in 0..1000000000 = 0\naction a(k in 0..9999, j in 0..9999)\n"
            "    effect pass\nterminal true\nutility A = 1\nzero-sum\n")
    with pytest.raises(GdlError) as caught:
        gdl.loads(text, backend="interpret")
    found = sorted((d.code, d.span.line) for d in caught.value.diagnostics)
    assert found == [("E210", 2), ("E210", 3)]


@pytest.mark.parametrize("body", ["-" * 1000 + "x", "1" + " + x" * 1000, "not " * 1000 + "true"])
def test_deep_nesting_is_refused_with_a_located_error(body):
    text = f"players A, B\nvar x in 0..1 = 0\ndefine f = {body}\n"
    with pytest.raises(GdlError) as caught:
        gdl.loads(text, backend="interpret")
    assert caught.value.code == "E103" and caught.value.span.line == 3
    front_end(text)


@pytest.mark.parametrize("text, line, excerpt", [
    ('game "\x0c"\nplayers', 2, "players"),             # a form feed inside a string
    ("# a\x0cb\nplayers A\nfoo", 3, "foo"),            # ... and inside a comment
    ("players A\r\nvar\r\n", 2, "var"),
])
def test_lines_are_counted_as_the_lexer_counts_them(text, line, excerpt):
    with pytest.raises(GdlError) as caught:
        gdl.loads(text, backend="interpret")
    assert caught.value.span.line == line
    assert caught.value.source.line(line) == excerpt
