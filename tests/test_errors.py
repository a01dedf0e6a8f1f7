"""Bad input: one minimal file per error code, each with its expected code, line and column.

The expectations were written by hand from each file's text (see the `# expect:` header)."""

import pytest
from helpers import DATA, expectation, first_location

import gdl
from gdl.cli import main, parse_sets
from gdl.errors import GdlError

INVALID = sorted((DATA / "invalid").glob("*.game"))
RUNTIME = sorted((DATA / "runtime").glob("*.game"))


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_file_reports_its_code_and_position(path, capsys):
    expected = expectation(path)
    args = ["check", str(path)] + [f"--set={s}" for s in expected["sets"]]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert first_location(err) == (expected["code"], expected["line"], expected["column"])
    if expected["code"] == "E215":   # a bad --set: the mistake is on the command line, not in the file
        assert "^" not in err and "|" not in err
    else:
        assert "^" in err  # a caret excerpt under the offending text


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_file_raises_located_error_from_the_api(path):
    expected = expectation(path)
    params = parse_sets(expected["sets"])
    with pytest.raises(GdlError) as caught:
        gdl.load(path, params)
    first = caught.value.diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == (
        expected["code"], expected["line"], expected["column"])
    if expected["hint"] is not None:
        assert expected["hint"] in (first.hint or ""), first.hint


def test_every_checker_code_has_a_file():
    import re

    import gdl.errors as errors

    documented = set(re.findall(r"\bE[12]\d\d\b", errors.__doc__))
    # Codes about the file as a whole, which a text file in this corpus cannot carry: bytes
    # that are not UTF-8 (E104) and a megabyte of text (E105); test_hostile_input.py has both.
    documented -= {"E104", "E105"}
    covered = {expectation(p)["code"] for p in INVALID}
    assert documented <= covered, f"no bad file for {sorted(documented - covered)}"


def test_all_problems_are_collected_and_sorted():
    text = """game "Two mistakes"
players A, B
var n in 0..3 = 0
action inc requires m < 3 effect n = n + 1
terminal n == q
utility A = 0
zero-sum
"""
    with pytest.raises(GdlError) as caught:
        gdl.loads(text, "two.game")
    located = [(d.code, d.span.line, d.span.column) for d in caught.value.diagnostics]
    assert located == [("E201", 4, 21), ("E201", 5, 15)]


def test_unknown_name_suggests_the_close_one():
    with pytest.raises(GdlError) as caught:
        gdl.loads('game "g"\nplayers A, B\nvar heap in 0..3 = 0\naction t requires heep > 0 '
                  'effect heap = heap - 1\nterminal heap == 0\nutility A = 1\nzero-sum\n')
    assert caught.value.code == "E201"
    assert "heap" in (caught.value.diagnostics[0].hint or "")


@pytest.mark.parametrize("path", RUNTIME, ids=lambda p: p.stem)
def test_runtime_error_names_the_rule_and_the_moves(path, capsys):
    expected = expectation(path)
    assert main(["solve", str(path), "--algorithm", "minimax"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert first_location(err) == (expected["code"], expected["line"], expected["column"])
    assert f"reached by: {' '.join(expected['path'])}" in err


def test_one_mistake_one_diagnostic():
    # A utility for a player that does not exist is E208, and only that: the players it leaves
    # without a utility are not reported again (E207) as if they had been forgotten.
    with pytest.raises(GdlError) as caught:
        gdl.load(DATA / "invalid" / "E208-no-cascade.game")
    assert [d.code for d in caught.value.diagnostics] == ["E208"]
    # A misspelled stuck rule is one E201, not also "no terminal condition" (E206).
    text = 'game "g"\nplayers A, B\nvar x in 0..1 = 0\naction go effect x = 1\nwhen stuck loose\n'
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert [d.code for d in caught.value.diagnostics] == ["E201"]
    assert "did you mean 'lose'" in caught.value.diagnostics[0].hint


def test_several_syntax_errors_are_reported():
    # Parsing starts again at the next declaration after each error; positions counted by hand:
    # '=' after "action go requires x " (21 characters), '|' after "action stop requires x == 0 "
    # (28), the second '3' after "max-length 3 " (13).
    text = ('game "g"\nplayers A, B\nvar x in 0..3 = 0\naction go requires x = 1 effect x = 1\n'
            'action stop requires x == 0 || x == 1 effect x = 2\nterminal x == 1\n'
            'utility A = 1\nzero-sum\nmax-length 3 3\n')
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    located = [(d.code, d.span.line, d.span.column) for d in caught.value.diagnostics]
    assert located == [("E100", 4, 22), ("E101", 5, 29), ("E100", 9, 14)]
    assert "write `or`" in caught.value.diagnostics[1].hint


# ---- hints that name the fix ----------------------------------------------------------------------

GAME = ('game "g"\nplayers A, B\nvar x in 0..3 = 0\nvar done in bool = false\n'
        'action go requires x == 0 effect done = true\nterminal done\nutility A = 1\nzero-sum\n')


def first_problem(text: str):
    with pytest.raises(GdlError) as caught:
        gdl.loads(text, "g.game")
    return caught.value.diagnostics[0]


@pytest.mark.parametrize("wrong, right", [
    ("requires", "requries"), ("utility", "utilty"), ("terminal", "termnial"), ("effect", "efect"),
    ("players", "playres"), ("requires", "Requires")])
def test_a_misspelt_keyword_gets_did_you_mean(wrong, right):
    # `right` is the misspelling of the keyword `wrong`: one letter swapped, dropped, doubled
    # or upper-cased; the diagnostic points at it and its fix puts the keyword back.
    text = GAME.replace(wrong, right, 1)
    problem = first_problem(text)
    line = text[:text.index(right)].count("\n") + 1
    column = text.index(right) - text.rfind("\n", 0, text.index(right))
    assert (problem.code, problem.span.line, problem.span.column) == ("E100", line, column)
    assert f"did you mean `{wrong}`?" in problem.hint
    assert problem.fix is not None and problem.fix.replacement == wrong
    gdl.loads(problem.fix.apply(text))     # the edit alone makes the file load


def test_a_misspelt_else_is_not_taken_for_a_missing_one():
    # `1 if done esle 0`: where `else` is expected, 'esle' is it with two letters swapped
    text = GAME.replace("utility A = 1", "utility A = 1 if done esle 0")
    problem = first_problem(text)
    assert (problem.code, problem.span.line, problem.span.column) == ("E100", 7, 23)
    assert "did you mean `else`?" in problem.hint
    gdl.loads(problem.fix.apply(text))


def test_a_name_far_from_every_keyword_gets_no_guess():
    # `players A B`: 'B' (one letter) is no misspelling of what may follow (',' or a declaration)
    problem = first_problem(GAME.replace("players A, B", "players A B"))
    assert problem.fix is None and "did you mean" not in problem.hint


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_a_fix_fixes(path):
    # Every bad file holds one mistake: where the diagnostic carries an edit, the edit alone
    # makes the file load (the hint names the same edit in words).
    expected = expectation(path)
    with pytest.raises(GdlError) as caught:
        gdl.load(path, parse_sets(expected["sets"]))
    fix = caught.value.diagnostics[0].fix
    if fix is None:
        return
    assert fix.span.line == fix.span.end_line == expected["line"]
    gdl.loads(fix.apply(path.read_text()), path.name, parse_sets(expected["sets"]))


@pytest.mark.parametrize("written, exact, also", [
    ("0.5", "1/2", None), ("0.25", "1/4", None), (".5", "1/2", None), ("1.0", "1", None),
    ("0.333", "333/1000", "1/3"), ("0.17", "17/100", "1/6")])
def test_a_decimal_number_is_written_as_a_fraction(written, exact, also):
    # 0.333 = 333/1000 exactly; a third (1/3 - 333/1000 = 1/3000) is offered too. 0.17 is 1/6
    # to within 1/300 (1/6 = 0.1666...).
    text = GAME.replace("utility A = 1", f"utility A = {written}")
    problem = first_problem(text)
    start = text.index(f"= {written}") + 2
    column = start - text.rfind("\n", 0, start)
    assert (problem.code, problem.span.line, problem.span.column) == ("E101", 7, column)
    assert problem.span.end_column - problem.span.column == len(written)
    assert f"write `{exact}`" in problem.hint
    assert (f"`{also}`" in problem.hint) == (also is not None)
    assert problem.fix.replacement == exact
    assert gdl.loads(problem.fix.apply(text)) is not None


@pytest.mark.parametrize("python, gdl_range", [
    ("range(3)", "0..2"), ("range(1, 4)", "1..3"), ("range(n)", "0..n - 1")])
def test_python_range_is_written_low_dot_dot_high(python, gdl_range):
    # range(a, b) stops before b; gdl's a..b includes it: range(1, 4) is 1, 2, 3 = 1..3
    text = GAME.replace("action go ", f"param n = 3\naction go(i in {python}) ", 1)
    problem = first_problem(text)
    assert (problem.code, problem.span.line, problem.span.column) == ("E100", 6, 16)
    assert f"write `{gdl_range}`" in problem.hint
    gdl.loads(problem.fix.apply(text))


def test_double_equals_in_a_declaration_is_one_equals():
    problem = first_problem(GAME.replace("var x in 0..3 = 0", "var x in 0..3 == 0"))
    assert (problem.code, problem.span.line, problem.span.column) == ("E100", 3, 15)
    assert problem.fix.replacement == "=" and problem.span.end_column == 17


def test_if_without_else_at_the_end_of_the_file():
    # the utility is the last line: the parser meets the end of the file where `else` belongs
    text = GAME.replace("zero-sum\n", "").replace("utility A = 1", "utility A = 1 if done")
    problem = first_problem(text)
    assert (problem.code, problem.span.line, problem.span.column) == ("E102", 7, 13)
    assert "write `1 if done else ...`" in problem.hint


def test_branches_that_differ_because_a_quantifier_ended_say_how_it_reads():
    text = GAME.replace("utility A = 1", "utility A = any i in 0..3: x == i if done else 0")
    problem = first_problem(text)
    assert problem.code == "E203"
    assert "reads `(any i in 0..3: x == i) if done else 0`" in problem.hint
    assert problem.fix is None    # parenthesising the body leaves a boolean and a number


def test_parentheses_around_the_quantifier_give_no_such_hint():
    # `(sum i in 0..3: 1) if c[i] ...` was written on purpose: the unknown 'i' is the plain E201
    text = GAME.replace("utility A = 1", "utility A = (sum i in 0..3: 1) if x == i else 0")
    problem = first_problem(text)
    assert problem.code == "E201" and problem.fix is None
    assert "whose body ends before `if`" not in (problem.hint or "")


def test_a_diagnostic_without_a_fix_is_built_as_before():
    from gdl.errors import Diagnostic, Fix
    from gdl.span import Span

    old = Diagnostic("E201", "unknown name 'x'", Span(1, 1, 1, 2), "a hint", ())
    assert old.fix is None
    assert Fix(Span(2, 3, 2, 5), "=").apply("ab\nx == 1\n") == "ab\nx = 1\n"
    assert Fix(Span(1, 1, 1, 1), "y").apply("x") == "yx"        # an empty span inserts
