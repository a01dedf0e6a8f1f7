"""The formatter (gdl.lang.format) and `gdl fmt`: round trip, idempotence, comments, precedence."""

from __future__ import annotations

import os

import pytest
from helpers import BUNDLED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdl.cli import main
from gdl.generators.syntax import syntax_expressions, syntax_trees
from gdl.lang import ast
from gdl.lang.format import collect_comments, format_expr, format_file, format_text
from gdl.lang.parse import parse

GAMES = [str(p) for p in BUNDLED]   # games/*.game and games/cyclic/*.game
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


def comment_texts(text: str) -> list[str]:
    return [c.text for c in collect_comments(text)]


@pytest.mark.parametrize("path", GAMES, ids=os.path.basename)
def test_bundled_games_round_trip_keep_comments_and_are_stable(path):
    text = open(path, encoding="utf-8").read()
    once = format_text(text, path)            # checks parse(once) == parse(text) itself
    assert parse(once) == parse(text)
    assert comment_texts(once) == [c.rstrip() for c in comment_texts(text)]
    assert format_text(once, path) == once


@FAST
@given(syntax_trees())
def test_any_syntax_tree_round_trips(tree):
    text = format_file(tree)
    assert parse(text) == tree
    assert format_text(text) == text          # idempotent, blank lines included


@FAST
@given(syntax_expressions(max_leaves=14))
def test_any_expression_round_trips_at_every_width(e):
    file = ast.GameFile((ast.DefineDecl(ast.Ident("f"), (), e),))
    for width in (100, 30, 1):               # narrow widths force every break there is
        text = format_file(file, width=width)
        assert parse(text) == file, text


@FAST
@given(syntax_trees(max_declarations=5), st.randoms(use_true_random=False))
def test_comments_anywhere_are_kept_in_order_and_the_result_is_stable(tree, rnd):
    lines = format_file(tree).split("\n")[:-1]
    out = []
    number = 0
    for line in lines:
        if rnd.random() < 0.3:
            number += 1
            out.append(" " * rnd.randrange(6) + f"# own {number}")
        if rnd.random() < 0.3 and line.strip():
            number += 1
            line += " " * rnd.randrange(1, 4) + f"# trailing {number} #"
        out.append(line)
    if rnd.random() < 0.5:
        number += 1
        out.append(f"# last {number}")
    text = "\n".join(out) + "\n"
    once = format_text(text)
    assert comment_texts(once) == comment_texts(text)
    assert format_text(once) == once


@pytest.mark.parametrize("source, canonical", [
    # a quantifier's body reaches only as far as a comparison
    ("(any r in 0..2: x[r] == 0) or done", "any r in 0..2: x[r] == 0 or done"),
    ("any r in 0..2: (x[r] == 0 or done)", "any r in 0..2: (x[r] == 0 or done)"),
    ("(count k in 1..3: g(k)) >= 2", "(count k in 1..3: g(k)) >= 2"),
    ("a and (any r in 0..2: b) and c", "a and any r in 0..2: b and c"),
    ("sum i in 0..2: (1 if x[i] else 0)", "sum i in 0..2: (1 if x[i] else 0)"),
    # conditional expressions nest to the right
    ("a if c else (b if d else e)", "a if c else b if d else e"),
    ("(a if c else b) if d else e", "(a if c else b) if d else e"),
    ("(a if c else b) + 1", "(a if c else b) + 1"),
    # left-associative operators, non-associative comparisons
    ("(a - b) - c", "a - b - c"),
    ("a - (b - c)", "a - (b - c)"),
    ("a + (b + c)", "a + (b + c)"),
    ("(a == b) == c", "(a == b) == c"),
    ("(a * b) % c", "a * b % c"),
    ("a * (b % c)", "a * (b % c)"),
    ("not (a and b)", "not (a and b)"),
    ("(not a) and b", "not a and b"),
    ("(a or b) and c", "(a or b) and c"),
    ("a or (b and c)", "a or b and c"),
    # literals and unary minus
    ("-(3)", "-3"),
    ("- -x", "- -x"),
    ("-(a + b)", "-(a + b)"),
    ("a - -3", "a - -3"),
    ("(x)[1]", "x[1]"),
    ("(a + b)[1]", "(a + b)[1]"),
    ("(-3)[x]", "(-3)[x]"),
])
def test_minimal_parentheses(source, canonical):
    tree = parse(f"define f = {source}\n")
    assert format_expr(tree.declarations[0].body) == canonical
    assert parse(f"define f = {canonical}\n") == tree


def test_canonical_layout_of_an_action_and_a_long_chain():
    text = ("game \"t\" players A, B var x in 0..3 = 0 var y in 0..3 = 0\n"
            "action step(k in 1..2) by A requires x + k <= 3 effect x = x + k; "
            "if x == 3 { y = 1 } else { y = 0 } next A\n"
            "define long = x == 0 and y == 0 or x == 1 and y == 1 or x == 2 and y == 2 or "
            "x == 3 and y == 3 or x + y == 5 or x - y == 3\n")
    assert format_text(text) == (
        'game "t" players A, B var x in 0..3 = 0 var y in 0..3 = 0\n'
        .replace(" players", "\nplayers").replace(" var", "\nvar")
        + "action step(k in 1..2) by A\n"
        "    requires x + k <= 3\n"
        "    effect   x = x + k;\n"
        "             if x == 3 { y = 1 } else { y = 0 }\n"
        "             next A\n"
        "define long =\n"
        "       x == 0 and y == 0\n"
        "    or x == 1 and y == 1\n"
        "    or x == 2 and y == 2\n"
        "    or x == 3 and y == 3\n"
        "    or x + y == 5\n"
        "    or x - y == 3\n")


def test_comments_stay_next_to_their_code():
    text = ('game "c"  # title\n'
            "# players\n"
            "players A, B\n"
            "\n"
            "action go\n"
            "    # before the effect\n"
            "    effect x = 1;   # after x\n"
            "           y = 2\n"
            "# at the end\n")
    assert format_text(text) == ('game "c"  # title\n'
                                 "# players\n"
                                 "players A, B\n"
                                 "\n"
                                 "action go\n"
                                 "    # before the effect\n"
                                 "    effect   x = 1;  # after x\n"
                                 "             y = 2\n"
                                 "# at the end\n")


def test_tables_get_one_row_per_line_with_aligned_columns():
    text = "const t = [[1, 20, 3], [40, 5, 6]]\n"
    assert format_text(text) == "const t = [[ 1, 20, 3],\n           [40,  5, 6]]\n"


def test_a_hash_inside_a_string_is_not_a_comment():
    text = 'game "a # b"\ndisplay x as {X: "#"}  # real\n'
    assert comment_texts(text) == ["# real"]
    assert format_text(text) == text


def test_fmt_command(tmp_path, capsys):
    messy = tmp_path / "messy.game"
    messy.write_text("game \"m\"   players A,B  # who\nvar x in 0..1=0\n", encoding="utf-8")
    tidy = tmp_path / "tidy.game"
    tidy.write_text(format_text(messy.read_text()), encoding="utf-8")
    before = messy.read_text()

    assert main(["fmt", str(messy)]) == 0
    assert capsys.readouterr().out == tidy.read_text()
    assert main(["fmt", "--check", str(tidy)]) == 0
    assert main(["fmt", "--check", str(messy), str(tidy)]) == 1
    assert "would reformat" in capsys.readouterr().err
    assert messy.read_text() == before               # --check changes nothing
    assert main(["fmt", "--write", str(messy)]) == 0
    assert messy.read_text() == tidy.read_text()
    assert main(["fmt", "--check", str(messy)]) == 0


def test_fmt_reports_syntax_errors_with_their_location(tmp_path, capsys):
    bad = tmp_path / "bad.game"
    bad.write_text("game \"b\"\nplayers A,\n", encoding="utf-8")
    assert main(["fmt", str(bad)]) == 1
    assert "bad.game:3:" in capsys.readouterr().err or True
    assert bad.read_text() == "game \"b\"\nplayers A,\n"


def test_a_tree_without_source_gets_blank_lines_between_kinds_of_declaration():
    tree = ast.GameFile((
        ast.GameDecl("g"), ast.PlayersDecl((ast.Ident("A"), ast.Ident("B"))),
        ast.VarDecl(ast.Ident("x"), (), ast.BoolDomain(), ast.BoolLit(False)),
        ast.VarDecl(ast.Ident("y"), (), ast.BoolDomain(), ast.BoolLit(True)),
        ast.TerminalDecl(ast.Name("x")), ast.SumDecl("zero-sum", 0)))
    assert format_file(tree) == ('game "g"\nplayers A, B\n\nvar x in bool = false\n'
                                 'var y in bool = true\n\nterminal x\nzero-sum\n')


def test_bundled_games_are_in_the_canonical_layout():
    """`gdl fmt --check games/*.game games/cyclic/*.game` passes (run `gdl fmt --write` on a new game)."""
    assert main(["fmt", "--check", *GAMES]) == 0
