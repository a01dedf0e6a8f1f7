"""Starting from a position given by its state variables (gdl.backends.position, `gdl solve
--position`), checked against FACTS.md (Nim, tic-tac-toe) on both back ends."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl
from gdl.backends.position import PositionError, parse_assignments, position
from gdl.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"
TICTACTOE = str(GAMES / "tictactoe.game")
BACKENDS = ("interpret", "compile")
WIDE = {"a": 13, "b": 13, "c": 13, "d": 13}      # heap domains wide enough for the facts


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("heaps, first_wins", [([5, 8, 13, 0], False), ([2, 3, 8, 10], True)])
def test_nim_from_a_position_follows_bouton(backend, heaps, first_wins):
    # FACTS.md: the player to move loses exactly when the XOR of the heaps is 0.
    game = gdl.load(GAMES / "nim.game", WIDE, backend=backend)
    root = position(game, {"heap": heaps})
    assert gdl.solve(game, root_state=root).values == ((1, -1) if first_wins else (-1, 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_tictactoe_position_by_elements(backend):
    # FACTS.md: after X 4 (the centre), O 1 (top middle), X wins; X is to move.
    game = gdl.load(GAMES / "tictactoe.game", backend=backend)
    root = position(game, parse_assignments("cell[1][1]=X; cell[0][1]=O; mover=X"))
    assert gdl.solve(game, root_state=root).values == (1, -1)


def test_the_command_line_takes_a_position(capsys):
    code = main(["solve", str(GAMES / "nim.game"), "--set", "a=13", "--set", "b=13", "--set", "c=13",
                 "--position", "heap=[5, 8, 13, 0]", "--json"])
    assert code == 0
    assert '"First": -1' in capsys.readouterr().out.replace("\n", "").replace("  ", "")


@pytest.mark.parametrize("text, phrase", [
    ("hep=1", "no variable 'hep'"), ("heap=[1, 2]", "shape [4]"), ("heap=[1, 2, 3, 99]", "domain"),
    ("mover=Third", "mover must be a player"), ("heap[7]=1", "shape [4]"), ("heap", "NAME=VALUE"),
])
def test_bad_positions_are_usage_errors(text, phrase, capsys):
    game = gdl.load(GAMES / "nim.game")
    with pytest.raises(PositionError) as caught:
        position(game, parse_assignments(text))
    assert phrase in str(caught.value)
    assert main(["solve", str(GAMES / "nim.game"), "--position", text]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("moves", ["place(1,1) place(0,1)", "place 1 1; place 0 1",
                                   "place(1, 1) place( 0 , 1 )", "place(1,1) 2"])
def test_moves_take_the_syntax_of_play(moves, capsys):
    # FACTS.md: after X 4 (centre) and O 1 (top middle), X wins. The legal actions after X's
    # centre are the eight empty cells in order, so number 2 is place(0,1).
    assert main(["solve", str(GAMES / "tictactoe.game"), "--moves", moves, "--json"]) == 0
    assert '"X": 1' in capsys.readouterr().out


# ---- --position for count, analyze and play (the same parsing as solve's) ------------------------

CENTRE_THEN_EDGE = "cell[1][1]=X; cell[0][1]=O; mover=X"   # FACTS.md: X to move wins


def test_count_starts_from_a_position(capsys):
    # Seven empty cells: X has 7 moves, then O 6 of each; nobody can have three in a row yet.
    assert main(["count", TICTACTOE, "--position", CENTRE_THEN_EDGE, "--depth", "2", "--json"]) == 0
    assert '"per_ply":[1,7,42]' in capsys.readouterr().out.replace(" ", "").replace("\n", "")


def test_count_takes_moves_after_the_position(capsys):
    assert main(["count", TICTACTOE, "--position", CENTRE_THEN_EDGE, "--moves", "place(0,0)",
                 "--depth", "1", "--json"]) == 0
    out = capsys.readouterr().out.replace(" ", "").replace("\n", "")
    assert '"per_ply":[1,6]' in out


def test_analyze_starts_from_a_position(capsys):
    assert main(["analyze", TICTACTOE, "--position", CENTRE_THEN_EDGE, "--json"]) == 0
    out = capsys.readouterr().out.replace(" ", "").replace("\n", "")
    assert '"mover":"X"' in out and '"values":{"X":1,"O":-1}' in out


def test_play_starts_from_a_position(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", TICTACTOE, "--position", CENTRE_THEN_EDGE]) == 0   # the solver plays both
    assert "Game over: X 1, O -1 (X wins)." in capsys.readouterr().out


@pytest.mark.parametrize("command", ["count", "analyze", "play"])
def test_a_bad_position_is_a_usage_error_everywhere(command, capsys):
    assert main([command, TICTACTOE, "--position", "cell[3][0]=X"]) == 2
    err = capsys.readouterr().err
    assert "--position" in err and "Traceback" not in err
