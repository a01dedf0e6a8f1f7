"""`gdl solve` with the engine's switches and budgets, and `gdl analyze` (values of every action,
optimal strategies), against published facts (../shared/FACTS.md) and an independent tic-tac-toe
solver written here (no gdl code)."""

from __future__ import annotations

import _thread
import json
import re
import threading
import time
from functools import cache

import pytest
from helpers import GAMES

from gdl.cli import main
from gdl.cli.engine import TECHNIQUES
from gdl.solvers import default_options

TICTACTOE = str(GAMES / "tictactoe.game")
HEXAPAWN = str(GAMES / "hexapawn.game")
CONNECT4 = str(GAMES / "connect4.game")
BIG = ["--set", "columns=7", "--set", "rows=6"]
ALL_CELLS = [f"place({r},{c})" for r in range(3) for c in range(3)]


def run_json(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


# ---- an independent tic-tac-toe solver: boards as 9-character strings, X moves first ---------

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board: str) -> str | None:
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@cache
def value_for_x(board: str) -> int:
    """Plain minimax: +1 X wins, 0 draw, -1 O wins."""
    w = winner(board)
    if w:
        return 1 if w == "X" else -1
    if "." not in board:
        return 0
    mover = "X" if board.count("X") == board.count("O") else "O"
    values = [value_for_x(board[:i] + mover + board[i + 1:]) for i, c in enumerate(board) if c == "."]
    return max(values) if mover == "X" else min(values)


def board_after(moves: list[str]) -> str:
    board = ["."] * 9
    for n, move in enumerate(moves):
        r, c = map(int, re.fullmatch(r"place\((\d),(\d)\)", move).groups())
        board[3 * r + c] = "XO"[n % 2]
    return "".join(board)


def optimal_moves(board: str) -> list[str]:
    """Every move reaching the mover's best value, in cell order (the declaration order)."""
    mover = "X" if board.count("X") == board.count("O") else "O"
    scores = {}
    for i, c in enumerate(board):
        if c == ".":
            v = value_for_x(board[:i] + mover + board[i + 1:])
            scores[f"place({i // 3},{i % 3})"] = v if mover == "X" else -v
    best = max(scores.values())
    return [m for m, v in scores.items() if v == best]


# ---- gdl solve ---------------------------------------------------------------------------------

def test_connect_four_5x4_is_a_draw_in_fewer_nodes_than_positions(capsys):
    code, doc = run_json(capsys, "solve", CONNECT4, "--set", "columns=5", "--json")
    assert code == 0
    assert doc["values"] == {"Red": 0, "Yellow": 0}          # Tromp: 5 x 4 is a draw
    assert doc["proven"] is True and doc["depth"] is None
    # Tromp: 3,945,711 positions. Pruning with a table visits far fewer; a table that never
    # answered, or no pruning, would need more (the game tree has billions of histories).
    assert isinstance(doc["stats"]["nodes"], int) and 0 < doc["stats"]["nodes"] < 3_945_711
    assert doc["stats"]["tt_probes"] >= doc["stats"]["tt_hits"] > 0


def test_time_budget_on_connect_four_7x6(capsys):
    # CPU seconds of this process (its threads included, a C compiler it starts not): a loaded
    # machine stretches the wall clock, not the work; an ignored budget would run for hours
    started = time.process_time()
    code, doc = run_json(capsys, "solve", CONNECT4, *BIG, "--time", "1", "--json")
    assert time.process_time() - started < 15               # a generous bound for a 1 s budget
    assert code == 0
    assert doc["proven"] is False and doc["depth"] >= 1
    assert doc["stats"]["stopped"] == "time"
    assert len(doc["stats"]["iteration_nodes"]) == doc["depth"]
    assert doc["best_actions"] and doc["pv"][0] in doc["best_actions"]


def test_time_budget_human_output_says_not_proven(capsys):
    assert main(["solve", CONNECT4, *BIG, "--time", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "not proven: stopped by --time" in out
    assert re.search(r"deepest completed iteration: depth \d+", out)
    assert "depth reached" in out and "ebf" in out and "re-searches" in out


def test_node_budget(capsys):
    code, doc = run_json(capsys, "solve", CONNECT4, *BIG, "--nodes", "3000", "--json")
    assert code == 0 and doc["proven"] is False and doc["depth"] >= 1
    assert doc["stats"]["nodes"] == 3000 and doc["stats"]["stopped"] == "nodes"


def _flip_each_default():
    """For every technique, the flag that turns the default the other way."""
    defaults = default_options()
    return [f"--no-{flag}" if getattr(defaults, field) else f"--{flag}"
            for flag, field, _ in TECHNIQUES]


@pytest.mark.parametrize("path,value,best", [
    (TICTACTOE, {"X": 0, "O": 0}, ALL_CELLS),                                 # FACTS: draw
    (HEXAPAWN, {"White": -1, "Black": 1},                                     # FACTS: Black wins
     ["advance(0,0)", "advance(0,1)", "advance(0,2)"]),
])
def test_technique_switches_never_change_the_value(capsys, path, value, best):
    _, reference = run_json(capsys, "solve", path, "--json")
    assert reference["values"] == value and reference["best_actions"] == best
    for args in [[flag] for flag in _flip_each_default()] + [["--tt-size", "64"]]:
        flag = " ".join(args)
        code, doc = run_json(capsys, "solve", path, *args, "--json")
        assert code == 0, flag
        if flag == "--no-optimal-set":      # the value, and one optimal move instead of the set
            assert doc["values"] == value and doc["optimal_set"] is False
            assert len(doc["best_actions"]) == 1 and doc["best_actions"][0] in best
        else:
            assert doc["values"] == value and doc["best_actions"] == best, flag
        assert doc["proven"] is True, flag


@pytest.mark.parametrize("flag", ["tt", "ordering", "killers", "history", "pvs"])
def test_technique_switches_change_node_counts_on_tictactoe(capsys, flag):
    _, reference = run_json(capsys, "solve", TICTACTOE, "--json")
    on = getattr(default_options(), dict((f, fld) for f, fld, _ in TECHNIQUES)[flag])
    _, doc = run_json(capsys, "solve", TICTACTOE, f"--no-{flag}" if on else f"--{flag}", "--json")
    assert doc["values"] == reference["values"]
    assert doc["stats"]["nodes"] != reference["stats"]["nodes"]


@pytest.mark.parametrize("flag", ["id", "aspiration"])
def test_deepening_switches_change_node_counts_on_connect_four(capsys, flag):
    # Tic-tac-toe and Hexapawn declare no evaluation, so there is no shallow iteration to stop
    # at; Connect Four 4x4 has one (and is a draw: Tromp).
    base = ["--id"] if flag == "aspiration" else []
    _, reference = run_json(capsys, "solve", CONNECT4, *base, "--no-aspiration", "--json")
    _, doc = run_json(capsys, "solve", CONNECT4, *base, f"--{flag}", "--json")
    assert reference["values"] == doc["values"] == {"Red": 0, "Yellow": 0}
    assert doc["stats"]["nodes"] != reference["stats"]["nodes"]


def test_tt_overflow_warns_on_stderr(capsys):
    code = main(["solve", TICTACTOE, "--tt-size", "16", "--json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["values"] == {"X": 0, "O": 0}
    assert "transposition table" in captured.err


@pytest.mark.parametrize("argv", [
    # --tt/--no-tt is every tree solver's switch (tests/test_tables.py); the others are not
    ["solve", TICTACTOE, "--algorithm", "minimax", "--killers"],
    ["solve", TICTACTOE, "--algorithm", "minimax", "--tt", "--tt-size", "64"],
    ["solve", str(GAMES / "pig.game"), "--time", "1"],           # chance: not alpha-beta
    ["solve", TICTACTOE, "--time", "0"],
    ["solve", TICTACTOE, "--nodes", "0"],
    ["solve", TICTACTOE, "--tt-size", "1"],
])
def test_engine_switches_refused_where_they_do_not_apply(capsys, argv):
    assert main(argv) == 2
    assert "error" in capsys.readouterr().err


def _interrupt_once_searching(monkeypatch, seconds: float = 1.0) -> list:
    """Ctrl-C (KeyboardInterrupt in the main thread) ``seconds`` after the search starts (not
    while the game is still loading, which takes a while on a busy machine), in either tier."""
    import gdl.solvers
    import gdl.tools.native_solve

    timers: list = []

    def interrupting(original):
        def search(*args, **kwargs):
            if not timers:
                timer = threading.Timer(seconds, _thread.interrupt_main)
                timers.append(timer)
                timer.start()
            return original(*args, **kwargs)
        return search

    monkeypatch.setattr(gdl.solvers, "solve", interrupting(gdl.solvers.solve))
    monkeypatch.setattr(gdl.tools.native_solve, "solve_native",
                        interrupting(gdl.tools.native_solve.solve_native))
    return timers


def test_ctrl_c_prints_the_deepest_completed_iteration(capsys, monkeypatch):
    timers = _interrupt_once_searching(monkeypatch)
    try:
        code, doc = run_json(capsys, "solve", CONNECT4, *BIG, "--time", "120", "--json")
    finally:
        for timer in timers:
            timer.cancel()
    assert len(timers) == 1
    assert code == 0
    assert doc["proven"] is False and doc["depth"] >= 1 and doc["stats"]["stopped"] == "stop"


@pytest.mark.parametrize("backend", ["compile", "native"])
def test_ctrl_c_with_nothing_completed_exits_130(capsys, monkeypatch, backend):
    # An exact solve without iterative deepening has no partial answer to give, in either tier
    # (--no-id keeps the native one).
    timers = _interrupt_once_searching(monkeypatch)
    try:
        code = main(["solve", CONNECT4, *BIG, "--no-id", "--force", "--json",
                     "--backend", backend])
    finally:
        for timer in timers:
            timer.cancel()
    assert len(timers) == 1
    assert code == 130
    assert capsys.readouterr().out == ""


# ---- gdl analyze -------------------------------------------------------------------------------

def test_analyze_marks_the_winning_moves(capsys):
    moves = ["place(1,1)", "place(0,1)"]
    code, doc = run_json(capsys, "analyze", TICTACTOE, "--moves", " ".join(moves), "--json")
    assert code == 0 and doc["mover"] == "X" and doc["proven"] is True
    board = board_after(moves)
    assert value_for_x(board) == 1                     # FACTS: X to move wins after X 4, O 1
    expected = optimal_moves(board)
    assert [a["action"] for a in doc["actions"] if a["optimal"]] == expected == doc["best_actions"]
    assert doc["values"] == {"X": 1, "O": -1}
    for entry in doc["actions"]:
        i = ALL_CELLS.index(entry["action"])
        v = value_for_x(board[:i] + "X" + board[i + 1:])
        assert entry["values"] == {"X": v, "O": -v}
    assert len(expected) < len(doc["actions"])          # some move throws the win away


def test_analyze_human_output_marks_optimal_actions(capsys):
    assert main(["analyze", TICTACTOE, "--moves", "place(1,1) place(0,1)"]) == 0
    out = capsys.readouterr().out
    marked = re.findall(r"^\s+\* (place\(\d,\d\))", out, re.M)
    assert marked == optimal_moves(board_after(["place(1,1)", "place(0,1)"]))


def test_analyze_openspiel_loss(capsys):
    # FACTS: after X 5, O 4, X 3, O 8 (cells row by row) X loses whatever it does.
    moves = ["place(1,2)", "place(1,1)", "place(1,0)", "place(2,2)"]
    _, doc = run_json(capsys, "analyze", TICTACTOE, "--moves", " ".join(moves), "--json")
    assert doc["values"] == {"X": -1, "O": 1}
    assert doc["best_actions"] == optimal_moves(board_after(moves))


def test_analyze_chance_game_with_depth(capsys):
    # FACTS (OpenSpiel): Pig with a three-sided die, depth 2 -> 5/3, best action roll.
    code, doc = run_json(capsys, "analyze", str(GAMES / "pig.game"), "--depth", "2", "--json")
    assert code == 0 and doc["values"]["A"] == "5/3" and doc["best_actions"] == ["roll"]
    assert doc["proven"] is False


def test_analyze_three_players_fig_5_4(capsys):
    # FACTS: Figure 5.4, A is indifferent; the root value is (1, 2, 6); both actions optimal.
    _, doc = run_json(capsys, "analyze", str(GAMES / "aima-fig5-4.game"), "--json")
    assert doc["values"] == {"A": 1, "B": 2, "C": 6}
    assert all(a["optimal"] for a in doc["actions"]) and len(doc["actions"]) == 2


def test_strategy_covers_every_non_terminal_state(capsys, tmp_path):
    path = tmp_path / "strategy.json"
    code = main(["analyze", TICTACTOE, "--strategy", str(path), "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["strategy"] == {"path": str(path), "states": 4520}
    document = json.loads(path.read_text())
    assert document["format"] == "gdl-strategy" and document["version"] == 1
    entries = document["strategy"]
    assert document["states"] == len(entries) == 4520        # FACTS: 4,520 non-terminal
    assert entries[0]["moves"] == [] and entries[0]["optimal"] == ALL_CELLS
    boards = set()
    for entry in entries:
        board = board_after(entry["moves"])
        boards.add(board)
        assert entry["mover"] == ("X" if len(entry["moves"]) % 2 == 0 else "O")
        assert entry["optimal"] == optimal_moves(board)
    assert len(boards) == 4520                                  # each state once


def test_strategy_size_cap_and_refusals(capsys, tmp_path):
    path = str(tmp_path / "s.json")
    assert main(["analyze", TICTACTOE, "--strategy", path, "--max-states", "100"]) == 2
    assert "--max-states" in capsys.readouterr().err
    assert main(["analyze", str(GAMES / "pig.game"), "--strategy", path]) == 2
    assert main(["analyze", TICTACTOE, "--strategy", path, "--depth", "2"]) == 2
    assert main(["analyze", TICTACTOE, "--depth", "0"]) == 2


def test_analysis_helper_generic_path_agrees_with_alpha_beta():
    # The per-child path (any solver via solve(root_state=...)) against alpha-beta's analyze.
    import gdl
    from gdl.moves import play
    from gdl.solvers.analysis import analyze_position

    game = gdl.load(TICTACTOE)
    state = play(game, ["place(0,0)", "place(1,1)", "place(2,2)"])
    fast = analyze_position(game, state)
    generic = analyze_position(game, state, algorithm="minimax")
    assert fast.algorithm == "alphabeta" and generic.algorithm == "minimax"
    assert [(e.action, e.values, e.optimal) for e in fast.entries] == \
        [(e.action, e.values, e.optimal) for e in generic.entries]
    board = board_after(["place(0,0)", "place(1,1)", "place(2,2)"])
    assert [game.action_name(a) for a in fast.best_actions] == optimal_moves(board)
