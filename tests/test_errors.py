"""Bad input: one minimal file per error code, each with its expected code, line and column.

The expectations were written by hand from each file's text (see the `# expect:` header)."""

import pytest
from helpers import DATA, expectation, first_location

import gdl
from gdl.cli import main
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
    assert "^" in err  # a caret excerpt under the offending text


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_file_raises_located_error_from_the_api(path):
    expected = expectation(path)
    params = {k: int(v) for k, v in (s.split("=") for s in expected["sets"])}
    with pytest.raises(GdlError) as caught:
        gdl.load(path, params)
    first = caught.value.diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == (
        expected["code"], expected["line"], expected["column"])


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
