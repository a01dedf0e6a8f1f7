"""GDL-KIF: the grammar, syntax errors and the checks of the specification, each located."""

import lark
import pytest

from gdl.errors import GdlError
from gdl.kif import grammar
from gdl.kif.check import read_description
from gdl.kif.syntax import Group, Variable, Word, parse_kif

GAME = """
(role white) (role black)
(init (on 1))
(<= (legal ?p go) (role ?p))
(<= (next (on 2)) (true (on 1)))
(<= terminal (true (on 2)))
(<= (goal ?p 50) (role ?p))
"""


def codes(text):
    with pytest.raises(GdlError) as caught:
        read_description(text, "t.kif")
    return [(d.code, d.span.line, d.span.column) for d in caught.value.diagnostics]


def test_the_grammar_builds_in_strict_mode():
    grammar.build_parser.cache_clear()
    parser = grammar.build_parser(strict=True)
    assert isinstance(parser, lark.Lark) and parser.options.parser == "lalr"
    grammar.build_parser.cache_clear()


def test_s_expressions_with_spans_and_comments():
    nodes, _ = parse_kif("; a comment\n(cell 1 ?x map+) ; another\nterminal\n")
    assert len(nodes) == 2
    cell, word = nodes
    assert isinstance(cell, Group) and isinstance(word, Word)
    assert [type(i).__name__ for i in cell.items] == ["Word", "Word", "Variable", "Word"]
    assert cell.items[3].text == "map+" and isinstance(cell.items[2], Variable)
    assert (cell.span.line, cell.span.column, cell.span.end_column) == (2, 1, 17)   # the end is one past the bracket
    assert (word.span.line, word.span.column) == (3, 1)


@pytest.mark.parametrize("text, expected", [
    ("(role a))\n", ("E100", 1, 9)),               # a ')' that closes nothing
    ("(role a)\n(init (on 1)\n", ("E102", 2, 1)),  # the '(' left open is the one reported
    ('(role "a")\n', ("E101", 1, 7)),              # KIF has no strings
])
def test_syntax_errors_are_located(text, expected):
    assert codes(text) == [expected]


def test_nesting_is_bounded():
    assert codes("(f " * 100 + ")" * 100)[0][0] == "E103"


def test_a_well_formed_game_passes():
    description = read_description(GAME, "t.kif")
    assert description.roles == ("white", "black")
    # legal reads no state here: a static relation, evaluated once; terminal reads `true`
    assert "legal" in description.static and "terminal" in description.on_state


@pytest.mark.parametrize("extra, expected", [
    # K201: one name, two arities (the later use is reported)
    ("(<= (p ?x) (role ?x))\n(<= (q) (p 1 2))", ("K201", 10, 10)),
    # K202: a variable only under `not` / only in the head / only in `distinct`
    ("(<= (p ?x) (role ?x) (not (q ?y)))\n(q 1)", ("K202", 9, 30)),
    ("(<= (p ?x ?z) (role ?x))", ("K202", 9, 11)),
    ("(<= (p ?x) (role ?x) (distinct ?x ?w))", ("K202", 9, 35)),
    # K204: recursion that could build ever larger terms: (grow ?x) reads ?x, not a head argument
    ("(<= (grow (s ?x)) (grow ?x))\n(grow 0)", ("K204", 9, 25)),
    # K205: `true` derived, `next` read, a role as a rule, init depending on the state
    ("(<= (true (on 3)) (role white))", ("K205", 9, 5)),
    ("(<= (p 1) (next (on 2)))", ("K205", 9, 11)),
    ("(<= (role ?x) (p ?x))\n(p red)", ("K205", 9, 5)),
    ("(<= (init (on 5)) (true (on 1)))", ("K205", 9, 19)),
    ("(<= (legal white stop) (does black go))", ("K205", 9, 24)),
    ("(<= (goal white 200) (true (on 2)))", ("K207", 9, 5)),
    ("(<= (p 1) (not (q 1) (q 2)))\n(q 1)", ("K208", 9, 11)),
    ("(<= (p 1) (distinct 1))", ("K208", 9, 11)),
    ("(<= (?r 1) (role ?r))", ("K209", 9, 6)),
    ("(role white)", ("K211", 9, 1)),
    ("?x", ("K200", 9, 1)),
])
def test_every_check_is_located(extra, expected):
    found = codes(GAME + "\n" + extra + "\n")
    assert expected in found, found


def test_the_recursion_restriction():
    # in (grow ?x) and (grows ?x ?y), both recursive, ?x is neither an argument of the head nor
    # bound by a relation outside the recursion: K204 (the specification's restriction). In the
    # second rule ?x is the head's first argument, which the restriction allows.
    text = GAME + "(grow 0)\n(<= (grow ?y) (grow ?x) (grows ?x ?y))\n(<= (grows ?x (s ?x)) (grow ?x))\n"
    found = codes(text)
    assert [c for c in found if c[0] == "K204"] == [("K204", 9, 21), ("K204", 9, 32)]
    # bound by a finite table outside the recursion: allowed (the Nim test game does this)
    fine = GAME + "(succ 0 1) (succ 1 2)\n(<= (le ?x ?x) (succ ?x ?y))\n" \
                  "(<= (le ?x ?z) (succ ?y ?z) (le ?x ?y))\n"
    read_description(fine, "t.kif")


def test_missing_parts_are_named():
    found = codes("(role white)\n(init (on 1))\n")
    assert sorted(c[0] for c in found) == ["K206", "K206", "K206"]   # terminal, legal, goal


def test_not_stratified_names_the_cycle():
    text = GAME + "(<= calm (true (on 1)) (not restless))\n(<= restless (true (on 1)) (not calm))\n"
    with pytest.raises(GdlError) as caught:
        read_description(text, "t.kif")
    messages = [d.message for d in caught.value.diagnostics if d.code == "K203"]
    assert messages and "`calm` → not `restless` → `calm`" in messages[0]
    rendered = caught.value.render()
    assert "t.kif:9:" in rendered and "^" in rendered and "hint:" in rendered


def test_or_and_not_are_taken_apart():
    # (or a b) gives two rules; (not (distinct ?x ?y)) is an equality; (not (not p)) is p
    text = GAME + ("(<= (either ?x) (role ?x) (or (true (on 1)) (true (on 2))))\n"
                   "(<= (same ?x ?y) (role ?x) (role ?y) (not (distinct ?x ?y)))\n"
                   "(<= (twice ?x) (role ?x) (not (not (true (on 1)))))\n")
    rules = read_description(text, "t.kif").rules
    either = [r for r in rules if r.head[0] == "either"]
    assert len(either) == 2
    same = next(r for r in rules if r.head[0] == "same")
    assert [lit.kind for lit in same.body] == ["pos", "pos", "same"]
    twice = next(r for r in rules if r.head[0] == "twice")
    assert [lit.kind for lit in twice.body] == ["pos", "pos"]
