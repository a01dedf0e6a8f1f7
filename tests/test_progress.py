"""The progress line (gdl.tools.progress): counters from a proxy, a stack-sampled depth, and silence
when stderr is not a terminal. No assertion depends on timing."""

import io
import json
from types import SimpleNamespace

from helpers import GAMES

import gdl
from gdl.cli import main
from gdl.moves import play
from gdl.solvers import solve
from gdl.tools.progress import Counting, Reporter, search_depth, status_line, watch, with_progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_counting_proxy_is_transparent_and_counts_every_edge():
    game = gdl.load(GAMES / "tictactoe.game")
    root = play(game, ["place(1,1)", "place(0,0)"])
    plain = solve(game, "minimax", root_state=root)
    counting = Counting(game)
    counted = solve(counting, "minimax", root_state=root)
    assert (counted.values, counted.best_actions, counted.pv) == \
           (plain.values, plain.best_actions, plain.pv)
    assert counted.stats == plain.stats
    # Plain minimax reaches every node but the root through exactly one apply.
    assert counting.nodes == plain.stats.nodes - 1


def test_status_line():
    assert status_line("solving", 1_234_567, 12, 3.0) == \
        "solving  1,234,567 positions  411,522/s  depth 12  3.0 s"


def test_reporter_rewrites_one_line_and_erases_it():
    stream = Terminal()
    counting = Counting(gdl.load(GAMES / "nim.game"))
    clock = iter([0.0, 2.0]).__next__
    reporter = Reporter(counting, stream, "solving", clock=clock)
    reporter.tick(depth=4)
    assert stream.getvalue() == "\rsolving  0 positions  0/s  depth 4  2.0 s\033[K"
    reporter.finish()
    assert stream.getvalue().endswith("\r\033[K") and "\n" not in stream.getvalue()


def test_at_most_ten_updates_a_second():
    reporter = Reporter(Counting(gdl.load(GAMES / "nim.game")), Terminal(), interval=0.001)
    assert reporter.interval == 0.1


def test_no_terminal_no_proxy_no_output():
    game = gdl.load(GAMES / "nim.game")
    stream = io.StringIO()
    with watch(game, stream=stream) as searched:
        assert searched is game
    assert stream.getvalue() == ""


def test_a_watched_search_leaves_no_line_behind():
    # Whether or not an update happened during the search, the stream holds no newline and ends
    # erased, so the next output starts on a clean line.
    game = gdl.load(GAMES / "tictactoe.game")
    stream = Terminal()
    result = with_progress(solve, stream=stream)(game, "alphabeta")
    assert result.values == (0, 0)          # FACTS: tic-tac-toe is a draw
    text = stream.getvalue()
    assert "\n" not in text
    assert text == "" or text.endswith("\r\033[K")


def test_search_depth_counts_solver_search_frames():
    def frame(name, filename, back=None):
        return SimpleNamespace(f_code=SimpleNamespace(co_name=name, co_filename=filename),
                               f_back=back)

    chain = frame("main", "/x/gdl/cli/__init__.py")
    for _ in range(5):
        chain = frame("search", "/x/gdl/solvers/minimax.py", chain)
    chain = frame("apply", "<gdl:game>", chain)
    other = frame("search", "/x/somewhere/else.py")       # not a solver
    assert search_depth({1: chain, 2: other}) == 5


def test_solve_json_on_a_pipe_has_no_progress(capsys):
    code = main(["solve", str(GAMES / "splitting.game"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["values"]["V"] == 12       # FACTS: value 12
    assert "positions" not in err and "\r" not in err
