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
