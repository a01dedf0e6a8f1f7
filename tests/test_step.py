"""`gdl step`: a search event by event, in words, as JSON, from a pipe and on a terminal.

The expected walks come from the literature (FACTS.md: alpha-beta on Russell & Norvig's
Figure 5.2 never looks at c2 and c3; the windows are the textbook's: a2 is searched with
α = 3 after a1 backs up 3), not from gdl's output."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gdl.cli import main
from gdl.tools.step import Cursor, end_json, end_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
FIG52 = str(GAMES / "aima-fig5-2.game")


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_fig_5_5_event_by_event_as_json(capsys):
    code, out, err = run(capsys, ["step", FIG52, "--algorithm", "alphabeta", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["algorithm"] == "alphabeta" and doc["solver"] == "python"
    assert doc["values"] == {"MAX": 3, "MIN": -3} and doc["best_actions"] == ["a1"]
    events = doc["events"]
    entered = [e["path"][-1] if e["path"] else "root" for e in events if e["kind"] == "enter"]
    # The textbook's order; c2 and c3 never entered.
    assert entered == ["root", "a1", "b1", "b2", "b3", "a2", "c1", "a3", "d1", "d2", "d3"]
    assert doc["nodes"] == len(entered) == 11
    window = {tuple(e["path"]): e["window"] for e in events if e["kind"] == "enter"}
    assert window[()] == ["-inf", "+inf"]
    assert window[("a1", "b2")] == ["-inf", 3]          # β = 3 once b1 = 3 is seen
    assert window[("a2",)] == [3, "+inf"]               # α = 3 once a1 backs up 3
    (cut, *_) = [e for e in events if e["kind"] == "cutoff"]
    assert cut["path"] == ["a2"] and cut["after"] == "c1"
    assert cut["skipped"] == ["c2", "c3"] and (cut["value"], cut["limit"]) == (2, 3)
    assert "pruned: c2, c3" in cut["text"] and "α = 3" in cut["text"]
    backed = {tuple(e["path"]): (e["values"][0], e["bound"]) for e in events
              if e["kind"] == "exit"}
    assert backed[("a2",)] == (2, "upper") and backed[()] == (3, "exact")
    assert [e["step"] for e in events] == list(range(1, len(events) + 1))


def test_all_prints_the_walk_in_words(capsys):
    code, out, err = run(capsys, ["step", FIG52, "--algorithm", "alphabeta", "--all"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("AIMA Figure 5.2: alphabeta")
    assert "value MAX 3, MIN -3; best: a1; 11 node(s)" in lines[1]
    text = "\n".join(lines)
    assert "enter a2: MIN to move, window α = 3, β = +∞" in text
    assert "cut-off at a2 after c1" in text and "pruned: c2, c3" in text
    assert "a2 backs up ≤ 2 from c1" in text
    assert lines[-1].strip().endswith("the root backs up 3 from a1")
    # Indented by depth: the leaves two levels below the root.
    assert any(line.startswith("    3      enter b1") for line in lines)


def test_the_root_that_proves_every_optimal_action_has_its_own_windows(capsys):
    # gdl solve's root searches later children with (best - 1, best + 1) = (2, 4).
    code, out, err = run(capsys, ["step", FIG52, "--algorithm", "alphabeta", "--all-best",
                                  "--json"])
    assert code == 0, err
    events = json.loads(out)["events"]
    window = {tuple(e["path"]): e["window"] for e in events if e["kind"] == "enter"}
    assert window[("a2",)] == [2, 4] and window[("a3",)] == [2, 4]


def test_a_pipe_steps_forward_back_and_to_the_end(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nn\nb\nbogus\ne\nn\nq\n"))
    code, out, err = run(capsys, ["step", FIG52, "--algorithm", "alphabeta"])
    assert code == 0, err
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("commands"))
    shown = lines[start + 1:]
    assert shown[0].strip() == "1  enter the root: MAX to move, window α = −∞, β = +∞"
    assert shown[1].strip().startswith("2    enter a1")
    assert shown[2].startswith("back to step 1: 1  enter the root")
    assert shown[3].startswith("unknown command 'bogus'")
    # "e" prints steps 2..24, then "n" finds nothing further.
    assert shown[4].strip().startswith("2    enter a1")
    assert shown[-2].strip().startswith("24") and shown[-1] == "(the end of the search)"


def test_every_algorithm_steps_on_its_textbook_figure(capsys):
    code, out, _ = run(capsys, ["step", str(GAMES / "aima-fig5-4.game"), "--all"])
    assert code == 0 and "a1 › b1" not in out          # lines name the last action only
    assert "b1 backs up (1, 2, 6) from c1" in out and "the root backs up (1, 2, 6)" in out
    code, out, _ = run(capsys, ["step", str(GAMES / "chance-example.game"), "--algorithm",
                                "expectiminimax", "--all"])
    assert code == 0
    assert "chance averages 1/2·8 + 1/3·24 + 1/6·(-12) = 10" in out


def test_star1_says_why_a_chance_node_is_cut(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "pig.game"), "--algorithm", "star1",
                                  "--depth", "3", "--all"])
    assert code == 0, err
    assert "the average stays at or below α" in out


def test_star2_probes_in_words(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "pacman-random.game"), "--algorithm",
                                  "star2", "--all"])
    assert code == 0, err
    assert "probed: its first reply gives" in out and "after its probe" in out


def test_shallow_pruning_bounds_in_words(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "takeaway3.game"), "--set",
                                  "counters=5", "--algorithm", "maxn", "--all"])
    assert code == 0, err
    assert "shallow pruning" in out and "it stops once" in out


def test_paranoid_names_the_coalition(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "takeaway3.game"), "--set",
                                  "counters=4", "--algorithm", "paranoid", "--player", "B",
                                  "--all"])
    assert code == 0, err
    assert "paranoid, for B" in out and "(coalition) to move" in out
    assert "B can guarantee" in out


def test_a_table_hit_is_a_step(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "tictactoe.game"), "--moves",
                                  "place(1,1) place(0,0) place(2,2) place(0,2)",
                                  "--algorithm", "alphabeta", "--table", "--all"])
    assert code == 0, err
    assert "the transposition table answers" in out


def test_too_big_a_search_is_refused_with_a_way_out(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "tictactoe.game"), "--limit", "50"])
    assert code == 2
    assert "more than 50 nodes" in err and "--depth N" in err and "Traceback" not in err


def test_an_algorithm_that_does_not_apply_is_a_usage_error(capsys):
    code, out, err = run(capsys, ["step", str(GAMES / "pig.game"), "--algorithm", "alphabeta"])
    assert code == 2 and "chance" in err
    code, out, err = run(capsys, ["step", FIG52, "--algorithm", "minimax", "--ordering"])
    assert code == 2 and "alpha-beta's switches" in err
    code, out, err = run(capsys, ["step", str(GAMES / "takeaway3.game"), "--algorithm",
                                  "paranoid", "--player", "Z"])
    assert code == 2 and "the players are A, B, C" in err


def test_native_backend_says_the_search_runs_in_python(capsys):
    code, out, err = run(capsys, ["step", FIG52, "--backend", "native", "--all"])
    assert code == 0
    assert "the search runs in Python" in out


def test_cursor_and_window_ends():
    cursor = Cursor(2)
    assert not cursor.back() and cursor.forward() and cursor.forward()
    assert not cursor.forward() and cursor.done and cursor.back() and cursor.at == 1
    from gdl.solvers.window import just_above, just_below

    assert end_text(float("-inf")) == "−∞" and end_json(float("inf")) == "+inf"
    assert end_text(just_below(3)) == "3−ε" and end_json(just_above(3)) == "3+ε"
    from fractions import Fraction

    assert end_json(Fraction(7, 2)) == "7/2"


@pytest.mark.skipif(not hasattr(os, "openpty") or sys.platform == "win32",
                    reason="needs a pseudo-terminal")
def test_a_terminal_steps_one_event_per_key():
    import pty

    leader, follower = pty.openpty()
    env = dict(os.environ, COLUMNS="100", LINES="40")
    proc = subprocess.Popen([sys.executable, "-m", "gdl", "step", FIG52, "--algorithm",
                             "alphabeta"], stdin=follower, stdout=follower, stderr=follower,
                            env=env, close_fds=True)
    os.close(follower)
    seen = b""

    def read_until(text: bytes, timeout: float = 30.0) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while text not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(leader, 65536)
                except OSError:
                    break
        assert text in seen, seen[-2000:]

    def press(key: bytes, then: str) -> None:
        nonlocal seen
        seen = b""                  # only what the key made the screen show
        os.write(leader, key)
        read_until(then.encode())

    try:
        read_until(b"step 0 of 24")
        press(b" ", "step 1 of 24")
        press(b"n", "step 2 of 24")
        assert "▶".encode() in seen and b"enter a1" in seen
        press(b"b", "step 1 of 24")
        assert b"enter a1" not in seen          # redrawn without the step taken back
        press(b"e", "the end of the search")
        assert b"the root backs up 3 from a1" in seen
        os.write(leader, b"q")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
