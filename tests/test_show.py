"""`gdl show FILE --emit ast|ir|python`: each stage of the pipeline, printed."""

from __future__ import annotations

import re
from pathlib import Path

from gdl.backends.compiler import generate
from gdl.cli import main
from gdl.errors import Source
from gdl.lang.check import check
from gdl.lang.parse import parse

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = ROOT / "games" / "tictactoe.game"


def test_python_is_the_generated_module(capsys):
    assert main(["show", str(TICTACTOE), "--emit", "python"]) == 0
    out = capsys.readouterr().out
    text = TICTACTOE.read_text()
    assert out == generate(check(parse(text, str(TICTACTOE)), Source(str(TICTACTOE), text)),
                           Source(str(TICTACTOE), text))
    compile(out, "<shown>", "exec")
    assert re.search(r"# .*tictactoe\.game:\d+: requires cell\[r\]\[c\] == empty", out)
    assert "def legal_actions(s):" in out and "def apply(s, a):" in out


def test_python_is_the_default_and_params_apply(capsys):
    assert main(["show", str(ROOT / "games" / "connect4.game"), "--set", "columns=5"]) == 0
    out = capsys.readouterr().out
    assert "# drop(4)" in out and "# drop(5)" not in out


def test_ast_shows_nodes_with_positions(capsys):
    assert main(["show", str(TICTACTOE), "--emit", "ast"]) == 0
    out = capsys.readouterr().out
    assert "GameDecl(title='Tic-tac-toe')  @1:1" in out
    assert re.search(r"ActionDecl\(name=place.*\)  @\d+:1", out)


def test_ir_shows_the_state_layout(capsys):
    assert main(["show", str(TICTACTOE), "--emit", "ir"]) == 0
    out = capsys.readouterr().out
    assert "var cell[3][3] in {empty, X, O}: slots 1..9 (row-major)" in out
    assert "initial state: (0, 2, 2, 2, 2, 2, 2, 2, 2, 2)" in out
    assert "actions: 1 (9 ground actions, ids in this order)" in out
    assert "requires (cell[r][c] == empty)" in out


def test_an_explicit_tree_has_no_generated_code(capsys):
    assert main(["show", str(ROOT / "games" / "aima-fig5-2.game")]) == 0
    assert "explicit tree" in capsys.readouterr().out


def test_mistakes_are_reported_with_their_location(tmp_path, capsys):
    bad = tmp_path / "bad.game"
    bad.write_text('game "Bad"\nplayers A, B\nterminal heep == 0\nutility A = 0\nzero-sum\n')
    for emit in ("ir", "python"):
        assert main(["show", str(bad), "--emit", emit]) == 1
        assert re.search(r"bad\.game:3:10: error\[E201\]", capsys.readouterr().err)
    assert main(["show", str(tmp_path / "missing.game")]) == 2
