"""What a careless or hostile user can hand gdl: files that are not text, not files, too large;
strings that drive the terminal; line endings that differ between entry points; a write that
fails half way. Each must end in a located error or a clean usage error, never a traceback,
never a lost file."""

import os
import stat
import subprocess
import sys

import pytest
from helpers import GAMES, ROOT

import gdl
from gdl.cli import main
from gdl.errors import GdlError

TINY = ('game "tiny"\nplayers A\nvar n in 0..1 = 0\naction go effect n = 1\nterminal n == 1\n'
        'utility A = n\n')
COMMANDS_THAT_READ_ONE_FILE = [
    ["solve"], ["count"], ["play", "--as", "A"], ["analyze"], ["tree", "--format", "txt"],
    ["show"], ["fmt"], ["check"], ["check", "--deep"], ["fuzz", "--examples", "1"],
]


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


# ---- files that are not rule text ----------------------------------------------------------

@pytest.mark.parametrize("command", COMMANDS_THAT_READ_ONE_FILE, ids=" ".join)
def test_a_missing_file_is_the_same_usage_error_in_every_command(capsys, tmp_path, command):
    code, _, err = run(capsys, command[0], str(tmp_path / "absent.game"), *command[1:])
    assert code == 2
    assert "absent.game: no such file" in err


@pytest.mark.parametrize("command", COMMANDS_THAT_READ_ONE_FILE, ids=" ".join)
def test_a_directory_is_a_usage_error(capsys, tmp_path, command):
    code, _, err = run(capsys, command[0], str(tmp_path), *command[1:])
    assert code == 2
    assert "a directory" in err


def test_bytes_that_are_not_utf8_are_a_located_error(capsys, tmp_path):
    path = tmp_path / "latin1.game"
    path.write_bytes(b'game "tiny"\nplayers A\n# caf\xe9\n')
    code, _, err = run(capsys, "check", str(path))
    assert code == 1
    assert "latin1.game:3:6: error[E104]" in err
    with pytest.raises(GdlError) as caught:
        gdl.load(path)
    assert (caught.value.code, caught.value.span.line, caught.value.span.column) == ("E104", 3, 6)


def test_a_byte_order_mark_is_ignored(tmp_path):
    path = tmp_path / "bom.game"
    path.write_bytes(b"\xef\xbb\xbf" + TINY.encode())
    assert gdl.load(path).info.name == "tiny"
    assert gdl.loads("\ufeff" + TINY).info.name == "tiny"


def test_rule_text_past_the_size_limit_is_refused_at_once():
    from gdl.lang.text import MAX_RULE_CHARS

    with pytest.raises(GdlError) as caught:
        gdl.loads(TINY + "#" * MAX_RULE_CHARS)
    assert caught.value.code == "E105"


def test_an_unwritable_output_is_a_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, "tree", str(GAMES / "aima-fig5-2.game"), "--format", "txt",
                       "--output", str(tmp_path / "no" / "such" / "folder" / "t.txt"))
    assert code == 2 and "--output" in err
    code, _, err = run(capsys, "tree", str(GAMES / "aima-fig5-2.game"), "--format", "txt",
                       "--output", str(tmp_path))
    assert code == 2 and "--output" in err


# ---- the same text means the same thing everywhere -----------------------------------------

def test_a_lone_carriage_return_ends_a_comment_everywhere(capsys, tmp_path):
    # Read from a file, a lone CR always was a line ending (universal newlines); through
    # gdl.loads it used to be part of the comment, which then swallowed `players A`.
    text = 'game "cr" # a comment\rplayers A\nvar n in 0..1 = 0\naction go effect n = 1\n' \
           'terminal n == 1\nutility A = n\n'
    assert gdl.loads(text).info.players == ("A",)
    path = tmp_path / "cr.game"
    path.write_bytes(text.encode())
    assert gdl.load(path).info.players == ("A",)
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0 and "1 player(s): A" in out


def test_crlf_and_lf_give_the_same_locations():
    broken = 'game "x"\nplayers A\nvar n in 0..1 = 9\n'
    located = []
    for text in (broken, broken.replace("\n", "\r\n"), broken.replace("\n", "\r")):
        with pytest.raises(GdlError) as caught:
            gdl.loads(text)
        located.append([(d.code, d.span.line, d.span.column) for d in caught.value.diagnostics])
    assert located[0] == located[1] == located[2]
    assert ("E204", 3, 17) in located[0]


# ---- the terminal ------------------------------------------------------------------------

@pytest.mark.parametrize("string, column", [
    ('game "x\x1b]0;owned\x07"', 8),            # sets the window title
    ('game "\x1b[2J"', 7),                      # clears the screen
    ('game "ok\u202eevil"', 9),                 # a bidirectional override
])
def test_a_control_character_in_a_title_is_a_located_error(string, column):
    with pytest.raises(GdlError) as caught:
        gdl.loads(string + TINY[TINY.index("\n"):])
    assert (caught.value.code, caught.value.span.line, caught.value.span.column) == ("E230", 1, column)


def test_a_control_character_in_a_display_glyph_is_a_located_error():
    text = TINY + 'display n as {0: "\x1b]52;c;cGF5bG9hZA==\x07", 1: "x"}\n'
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert (caught.value.code, caught.value.span.line) == ("E230", 7)


def test_echoed_source_lines_and_file_names_reach_the_terminal_inert(capsys, tmp_path):
    # A comment may hold anything; an error on its line echoes the line.
    path = tmp_path / "name\x1b]0;t\x07.game"
    path.write_text('game "x"\nplayers A\nvar n in 0..1 = 7  # \x1b]0;owned\x07 \x1b[2J\n',
                    encoding="utf-8")
    code, _, err = run(capsys, "check", str(path))
    assert code == 1
    assert "error[E204]" in err
    assert not any(ch in err for ch in "\x1b\x07"), repr(err)
    # the caret still points at the value: the echoed line keeps its columns
    lines = err.splitlines()
    echoed = next(i for i, line in enumerate(lines) if line.startswith("   3 | "))
    assert lines[echoed + 1].index("^") == lines[echoed].index("7")


def test_a_long_line_is_echoed_as_a_window_around_the_error():
    with pytest.raises(GdlError) as caught:
        gdl.loads('game "x"\nplayers A\nconst K = ' + "1" * 3000 + "\n")
    rendered = caught.value.render()
    assert caught.value.code == "E232"
    assert max(len(line) for line in rendered.splitlines()) < 300


# ---- numbers -----------------------------------------------------------------------------

def test_an_integer_literal_past_the_int_str_limit_is_a_located_error(capsys, tmp_path):
    path = tmp_path / "huge.game"
    path.write_text(TINY.replace("0..1 = 0", "0..1 = 0\nconst K = 1" + "0" * 5000), encoding="utf-8")
    code, _, err = run(capsys, "check", str(path))
    assert code == 1
    assert "huge.game:4:11: error[E232]" in err


# ---- fmt --write never loses the file ------------------------------------------------------

def test_fmt_write_keeps_the_original_when_the_write_fails(tmp_path):
    path = tmp_path / "messy.game"
    messy = TINY.replace("\n", "   \n") * 1 + "#" + " padding" * 400 + "\n"
    path.write_text(messy, encoding="utf-8")
    os.chmod(path, 0o640)
    limit = 512     # bytes a process may write to any file: far less than the formatted text
    script = ("import resource, sys\n"
              f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
              "from gdl.cli import main\n"
              f"sys.exit(main(['fmt', '--write', {str(path)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "GDL_NO_CACHE": "1"}, timeout=120)
    assert "Traceback" not in done.stderr
    assert done.returncode == 1
    assert path.read_text(encoding="utf-8") == messy
    assert [p.name for p in tmp_path.iterdir()] == ["messy.game"]    # no temporary left


def test_fmt_write_keeps_the_mode(capsys, tmp_path):
    path = tmp_path / "messy.game"
    path.write_text(TINY.replace("\n", "   \n"), encoding="utf-8")
    os.chmod(path, 0o640)
    code, _, _ = run(capsys, "fmt", "--write", str(path))
    assert code == 0
    from gdl.lang.format import format_text

    assert path.read_text(encoding="utf-8") == format_text(TINY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


# ---- the checker: no crash, no hang, no silent wrong model ----------------------------------

def test_a_variable_over_players_without_players_is_reported_not_a_crash():
    text = ('game "nobody"\nvar owner in players = A\nvar n in 0..1 = 0\n'
            'action go(p in players) effect n = 1\nterminal n == 1\nutility A = n\n')
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert "E205" in {d.code for d in caught.value.diagnostics}


def test_a_chain_of_squarings_is_refused_at_once():
    # 2^(2^39) would take longer than the universe to compute; the bound stops it at 2^4096.
    text = 'game "sq"\nplayers A\nconst K0 = 2\n' + "".join(
        f"const K{i} = K{i - 1} * K{i - 1}\n" for i in range(1, 40)) + TINY[TINY.index("var"):]
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    # K(i) = 2^(2^i) has 2^i + 1 bits: K12 (line 3 + 12) is the first past 4,096 bits. One
    # error on its line, not a cascade of "unknown name" for K13 and on.
    assert [(d.code, d.span.line) for d in caught.value.diagnostics] == [("E232", 3 + 12)]


def test_a_long_chain_of_defines_is_a_located_error_not_a_recursion_error():
    text = 'game "chain"\nplayers A\ndefine d0 = 1\n' + "".join(
        f"define d{i} = d{i - 1} + 1\n" for i in range(1, 200)) + TINY[TINY.index("var"):].replace(
        "utility A = n", "utility A = n + d199")
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert caught.value.code == "E103"


def test_a_shorter_chain_of_defines_still_works_on_both_backends():
    from gdl.lang.check import MAX_DEFINE_DEPTH

    depth = MAX_DEFINE_DEPTH - 1
    text = 'game "chain"\nplayers A\ndefine d0 = 1\n' + "".join(
        f"define d{i} = d{i - 1} + 1\n" for i in range(1, depth)) + TINY[TINY.index("var"):].replace(
        "utility A = n", f"utility A = n + d{depth - 1}")
    for backend in ("interpret", "compile"):
        game = gdl.loads(text, backend=backend)
        state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
        assert game.returns(state) == (1 + depth,)     # d(k) = k + 1, plus n = 1


def test_division_in_a_define_used_as_a_probability_is_exact():
    # The first edition read (n + 1) / 2 inside a define as floor division: at n = 0 the outcome
    # had probability 0 and silently vanished. `/` is exact everywhere now: one half each.
    text = ('game "halves"\nplayers A\nvar n in 0..3 = 0\ndefine half = (n + 1) / 2\n'
            'define also(k) = half + k - k\n'
            'action r requires n < 3 effect random d in {0: also(1), 1: 1 - also(1)}; n = n + 1 + d\n'
            'terminal n >= 3\nutility A = n\n')
    from fractions import Fraction

    for backend in ("interpret", "compile"):
        game = gdl.loads(text, backend=backend)
        state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
        assert sorted(p for _, p in game.chance_outcomes(state)) == [Fraction(1, 2), Fraction(1, 2)]


def test_exact_division_in_the_probability_itself_is_fine():
    text = ('game "halves"\nplayers A\nvar n in 0..3 = 0\ndefine top = n + 1\n'
            'action r requires n < 3 effect random d in {0: top / 4, 1: 1 - top / 4}; n = n + 1 + d\n'
            'terminal n >= 3\nutility A = n\n')
    game = gdl.loads(text)
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
    from fractions import Fraction

    assert sorted(p for _, p in game.chance_outcomes(state)) == [Fraction(1, 4), Fraction(3, 4)]


# ---- command-line numbers ------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["solve", str(GAMES / "tictactoe.game"), "--tt-size", str(10 ** 12)],
    ["solve", str(GAMES / "tictactoe.game"), "--time", "nan"],
    ["solve", str(GAMES / "tictactoe.game"), "--time", "inf"],
    ["play", str(GAMES / "tictactoe.game"), "--time", "nan"],
    ["count", str(GAMES / "tictactoe.game"), "--depth", "-3"],
    ["fuzz", str(GAMES / "tictactoe.game"), "--budget", "0"],
    ["fuzz", "--examples", "0"],
    ["solve", str(GAMES / "tictactoe.game"), "--nodes", "²"],
])
def test_a_number_out_of_range_is_a_usage_error(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert "error" in err


@pytest.mark.parametrize("typed", ["²", "①", "٣", "9" * 5000, "0"])
def test_the_play_prompt_refuses_odd_digits_with_a_message(typed):
    from gdl.moves import MoveError
    from gdl.tools.session import Session

    session = Session(gdl.load(GAMES / "tictactoe.game"))
    with pytest.raises(MoveError):
        session.find(typed)


def test_a_huge_utility_prints_in_full(capsys, tmp_path):
    path = tmp_path / "big.game"
    path.write_text('game "big"\nplayers A\n' + "const M = " + "9" * 1000 + "\n" + TINY[TINY.index("var"):].replace(
                        "utility A = n", "utility A = M * M * M * M * M * n"), encoding="utf-8")
    code, out, _ = run(capsys, "solve", str(path))
    assert code == 0
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)       # for the expected text, here in the test
    try:
        expected = str((10 ** 1000 - 1) ** 5)
    finally:
        sys.set_int_max_str_digits(previous)
    assert expected in out.replace(",", "")


# ---- searches that would not end ---------------------------------------------------------------

CYCLIC = ('game "round"\nplayers A, B\nvar n in 0..2 = 0\nvar done in bool = false\n'
          'action step requires not done effect n = (n + 1) % 3\n'
          'action stop requires not done effect done = true\nterminal done\nutility A = n - 1\n'
          'zero-sum\n')


def test_count_refuses_a_cyclic_game_without_depth_at_once(capsys, tmp_path):
    path = tmp_path / "cyclic.game"
    path.write_text(CYCLIC, encoding="utf-8")
    code, _, err = run(capsys, "count", str(path))
    assert code == 2 and "--depth" in err and "forever" in err
    code, out, _ = run(capsys, "count", str(path), "--depth", "3", "--json")
    # 2 actions at each undecided state: 1, 2, 2 (one of the two ends the game), 2
    assert code == 0 and __import__("json").loads(out)["per_ply"] == [1, 2, 2, 2]


def test_a_false_max_length_is_refused_before_searching(capsys, tmp_path):
    path = tmp_path / "liar.game"
    path.write_text(CYCLIC + "max-length 5\n", encoding="utf-8")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 2 and "max-length 5" in err


def test_fuzz_checks_a_cyclic_game_and_refuses_what_it_cannot_check_cleanly(capsys, tmp_path):
    # two players, zero-sum: the strong solve checked at every position (docs/fuzzing.md)
    path = tmp_path / "cyclic.game"
    path.write_text(CYCLIC, encoding="utf-8")
    code, out, err = run(capsys, "fuzz", str(path), "--examples", "2")
    assert code == 0 and "Traceback" not in err, err
    # general-sum (no sum declared): no single value to check against, refused with the reason
    path.write_text(CYCLIC.replace("zero-sum\n", "utility B = 0\n"), encoding="utf-8")
    code, _, err = run(capsys, "fuzz", str(path), "--examples", "2")
    assert code == 2 and "Traceback" not in err and err.strip()


def test_solve_refuses_what_cannot_finish_unless_forced(capsys):
    # Pig to 100 with a 1000-move horizon: no exact search of it ends in a lifetime.
    code, _, err = run(capsys, "solve", str(GAMES / "pig.game"))
    assert code == 2 and "refusing" in err and "--force" in err and "nominal" in err


def test_the_cost_of_a_node_is_measured_on_the_game():
    from gdl.tools.validate import measure_node_seconds

    game = gdl.load(GAMES / "tictactoe.game", backend="interpret")
    seconds = measure_node_seconds(game, game.initial_state(), seconds=0.05)
    assert 1e-7 < seconds < 0.1


def test_play_has_a_default_budget():
    import time

    from gdl.tools.session import Advisor

    game = gdl.load(GAMES / "pig.game")
    advisor = Advisor(default_time=1.0)
    # CPU seconds of this process: the work done, which a loaded machine does not stretch
    started = time.process_time()
    advice = advisor.advise(game, game.initial_state())
    assert time.process_time() - started < 30    # not forever (Pig to 100 is never solved)
    assert not advice.result.proven
    assert set(advice.best_actions) <= set(game.legal_actions(game.initial_state()))


def test_ctrl_c_stops_the_search_not_the_game():
    import _thread
    import threading

    from gdl.tools.session import Advisor

    game = gdl.load(GAMES / "pig.game")
    advisor = Advisor(default_time=600.0)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    try:
        advice = advisor.advise(game, game.initial_state())
    finally:
        timer.cancel()
    assert advisor.interrupted
    assert advice.best_actions


def test_analyze_reports_each_action_as_it_is_found():
    from gdl.solvers.analysis import analyze_position

    game = gdl.load(GAMES / "aima-fig5-4.game")
    seen = []
    analysis = analyze_position(game, progress=lambda a, v, done, total: seen.append((a, v, done, total)))
    # FACTS (AIMA 5.4): both of A's actions back up (1,2,6) and (1,5,2): A gets 1 either way
    assert [(done, total) for _, _, done, total in seen] == [(1, 2), (2, 2)]
    assert [v for _, v, _, _ in seen] == [e.values for e in analysis.entries]
    assert sorted(v[0] for _, v, _, _ in seen) == [1, 1]


def test_an_interrupted_analyze_prints_what_it_knows(capsys, monkeypatch):
    import gdl.solvers

    original = gdl.solvers.solve
    calls = []

    def interrupted_second_time(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(gdl.solvers, "solve", interrupted_second_time)
    code, _, err = run(capsys, "analyze", str(GAMES / "aima-fig5-4.game"))
    assert code == 130
    assert "interrupted after 1 action(s)" in err and "A 1" in err


def test_a_time_budget_on_a_game_without_evaluate_answers(capsys, tmp_path):
    # Before: "the search was stopped before it completed", no value, no statistics.
    path = tmp_path / "cyclic.game"
    path.write_text(CYCLIC, encoding="utf-8")
    code, out, err = run(capsys, "solve", str(path), "--time", "1", "--json")
    assert code == 0
    document = __import__("json").loads(out)
    assert set(document["values"]) == {"A", "B"} and document["stats"]["nodes"] > 0
    assert "declares no evaluate" in err


def test_nested_quantifiers_past_any_budget_are_refused_where_written():
    # 10^9 evaluations inside one position: a --time budget, looked at between positions,
    # could never stop it.
    text = ('game "nested"\nplayers A\nvar n in 0..3 = 0\naction go requires any i in 0..999: '
            'any j in 0..999: any k in 0..999: i + j + k == n + 5000 effect n = n + 1\n'
            'terminal n == 3\nutility A = n\n')
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    assert (caught.value.code, caught.value.span.line, caught.value.span.column) == ("E210", 4, 54)
    # one level less is a million evaluations: allowed
    gdl.loads(text.replace("any k in 0..999: i + j + k", "i + j"), backend="interpret")


def test_a_full_stdout_is_a_clean_error():
    # /dev/full (Linux, as CI) refuses every write with ENOSPC, as a full disk does
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "gdl", "count", str(GAMES / "tictactoe.game")],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    assert "cannot write the output" in done.stderr and "Traceback" not in done.stderr


def test_fuzz_without_hypothesis_is_a_clean_error(capsys, monkeypatch):
    # hypothesis is a declared dependency, but an install may lack it: say so, no traceback
    for name in [n for n in sys.modules if n == "hypothesis" or n.startswith("hypothesis.")
                 or n == "gdl.tools.fuzz" or n.startswith("gdl.generators")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "hypothesis", None)    # import hypothesis -> ImportError
    code, _, err = run(capsys, "fuzz", "--examples", "1")
    assert code == 2 and "hypothesis" in err
