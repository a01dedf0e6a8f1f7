"""The command line, called as a function (main(argv) -> exit code) and once as a process."""

import json
import subprocess
import sys

import pytest
from helpers import GAMES

from gdl.cli import main

TICTACTOE = str(GAMES / "tictactoe.game")


def run_json(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_solve_json_tictactoe(capsys):
    code, document = run_json(capsys, "solve", TICTACTOE, "--json")
    assert code == 0
    assert document["game"] == "Tic-tac-toe"
    assert document["players"] == ["X", "O"]
    assert document["values"] == {"X": 0, "O": 0}
    assert sorted(document["best_actions"]) == sorted(f"place({r},{c})" for r in range(3) for c in range(3))
    assert len(document["pv"]) == 9          # a draw fills the board
    assert isinstance(document["stats"]["nodes"], int)
    assert document["algorithm"] == "alphabeta"


def test_count_json_tictactoe(capsys):
    code, document = run_json(capsys, "count", TICTACTOE, "--json")
    assert code == 0
    assert (document["nodes"], document["games"], document["states"],
            document["terminal_states"]) == (549_946, 255_168, 5_478, 958)
    assert document["per_ply"][:4] == [1, 9, 72, 504]


def test_count_depth_limit(capsys):
    code, document = run_json(capsys, "count", TICTACTOE, "--depth", "2", "--json")
    assert code == 0
    assert document["per_ply"] == [1, 9, 72]
    assert document["complete"] is False


def test_solve_after_moves(capsys):
    # X centre, O edge: X wins (OpenSpiel's position).
    code, document = run_json(capsys, "solve", TICTACTOE, "--moves", "place(1,1) place(0,1)", "--json")
    assert code == 0 and document["values"]["X"] == 1


def test_set_parameter(capsys):
    # Nim with heaps 1 and 1: the player to move loses (1 XOR 1 == 0).
    code, document = run_json(capsys, "solve", str(GAMES / "nim.game"),
                              "--set", "a=1", "--set", "b=1", "--set", "c=0", "--json")
    assert code == 0 and document["values"]["First"] == -1


@pytest.mark.parametrize("argv", [
    ["solve", "no/such/file.game"],
    ["solve", TICTACTOE, "--set", "oops"],
    ["solve", TICTACTOE, "--set", "width=3.5"],        # not an integer, true/false or a symbol
    ["solve", TICTACTOE, "--moves", "place(9,9)"],
    ["solve", str(GAMES / "tictactoe.game"), "--algorithm", "maxn", "--depth", "-1"],
    [],
])
def test_usage_errors_exit_2_without_traceback(argv, capsys):
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_algorithm_mismatch_is_refused(capsys, tmp_path):
    three = tmp_path / "three.game"
    three.write_text('game "t"\nplayers A, B, C\ntree A { x: (1, 2, 3), y: (3, 2, 1) }\n')
    assert main(["solve", str(three), "--algorithm", "alphabeta"]) == 2
    err = capsys.readouterr().err
    assert "two players" in err and "Traceback" not in err


def test_check_exit_codes(capsys, tmp_path):
    assert main(["check", TICTACTOE]) == 0
    bad = tmp_path / "bad.game"
    bad.write_text('game "x"\nplayers A B\n')
    assert main(["check", TICTACTOE, str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:2:11: error[E100]" in err


def test_python_dash_m_gdl_runs_as_a_process(tmp_path):
    # From an unrelated directory, so the installed package is what runs.
    done = subprocess.run([sys.executable, "-m", "gdl", "solve", str(GAMES / "splitting.game"), "--json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["values"] == {"V": 12, "H": -12}
