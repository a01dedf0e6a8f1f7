"""`gdl play` driven through a pipe, and the session underneath it (gdl.tools.session).

Expected results come from ../shared/FACTS.md or from an argument written next to the test,
never from a run of our own code."""

import io
import re
import sys
from fractions import Fraction

from helpers import GAMES

import gdl
from gdl.cli import main
from gdl.moves import play as play_moves
from gdl.tools.session import Session, draw, normalise, render

TICTACTOE = str(GAMES / "tictactoe.game")


def run(monkeypatch, capsys, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---- playing tic-tac-toe against the solver ----------------------------------------------------

def test_a_bad_human_loses_to_the_solver(monkeypatch, capsys):
    # X (the person) opens in a corner, place(0,0). Against a corner opening the only reply that
    # does not lose for O is the centre (any other reply lets X build a double threat), so the
    # solver, which only plays value-preserving moves, answers place(1,1). X then plays
    # place(0,1), threatening the top row; every O move except place(0,2) lets X complete it, so
    # O must block there, which also makes the threat (0,2)-(1,1)-(2,0) on the anti-diagonal.
    # X ignores it with place(1,0). O can now complete a line, the position is a win for O, and
    # a solver that keeps the value wins it: the game ends X -1, O 1.
    code, out, err = run(monkeypatch, capsys, ["play", TICTACTOE, "--as", "X"],
                         "place(0,0)\nplace(0,1)\nplace(1,0)\n")
    assert code == 0, err
    assert "O plays place(1,1)" in out
    assert "O plays place(0,2)" in out
    assert "Game over: X -1, O 1 (O wins)." in out
    assert out.count("X> ") == 3


def test_illegal_and_malformed_input_get_a_message_and_a_new_prompt(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, ["play", TICTACTOE, "--as", "X"],
                         "place(3,3)\nfly away\nplace(0\n99\n\nquit\n")
    assert code == 0, err
    assert "'place(3,3)' is not available here" in out
    assert "'fly(away)' is not available here" in out      # 'fly away' read as fly(away)
    assert "'place(0' is ambiguous here; it could be: place(0,0) place(0,1) place(0,2)" in out
    assert "there is no action number 99; choose 1 to 9" in out
    assert out.count("X> ") == 6        # one prompt per line read, the empty one included
    assert "Game abandoned." in out
    assert "Game over" not in out


def test_end_of_input_leaves_cleanly(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, ["play", TICTACTOE, "--as", "O"], "")
    assert code == 0 and err == ""
    # X (the solver) moved first, then O's prompt met the end of the input.
    assert "X plays " in out
    assert "End of input: the game is left unfinished." in out


def test_hint_lists_every_first_move_at_value_zero(monkeypatch, capsys):
    # FACTS: tic-tac-toe is a draw, and each of X's nine first moves also has value 0.
    code, out, err = run(monkeypatch, capsys, ["play", TICTACTOE, "--as", "X"], "hint\n")
    assert code == 0, err
    hint = next(line for line in out.splitlines() if "hint: best" in line)
    assert hint.split("best ")[1].split(";")[0].split() == [
        f"place({r},{c})" for r in range(3) for c in range(3)]
    assert "value X 0, O 0" in hint
    assert sum(1 for line in out.splitlines() if line.strip().endswith("X 0, O 0")
               and line.strip().startswith("place(")) == 9


def test_undo_takes_back_the_persons_move_and_the_reply(monkeypatch, capsys):
    # The reply to a corner is the centre (argued above), so undo takes back both moves.
    code, out, err = run(monkeypatch, capsys, ["play", TICTACTOE, "--as", "X"],
                         "place(0,0)\nundo\nundo\nquit\n")
    assert code == 0, err
    assert "undone: place(0,0) place(1,1)" in out
    assert "nothing to undo" in out
    # After the undo the empty board is drawn again.
    after_undo = out.split("undone:")[1].split("X to move")[0]
    assert "0 . . .\n1 . . .\n2 . . .\n" in after_undo


def test_solver_plays_itself_to_the_game_value(monkeypatch, capsys):
    # FACTS: the board-splitting game is worth 12 to V under optimal play by both sides, and
    # two optimal players reach exactly the game value.
    code, out, err = run(monkeypatch, capsys, ["play", str(GAMES / "splitting.game")])
    assert code == 0, err
    assert "the solver (alphabeta) plays every seat" in out
    assert out.rstrip().endswith("Game over: V 12, H -12 (V wins).")


def test_hexapawn_second_player_wins_under_optimal_play(monkeypatch, capsys):
    # FACTS: in Gardner's hexapawn the second player (Black) wins.
    code, out, err = run(monkeypatch, capsys, ["play", str(GAMES / "hexapawn.game")])
    assert code == 0, err
    assert "Game over: White -1, Black 1 (Black wins)." in out


def test_unknown_seat_is_a_usage_error(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, ["play", TICTACTOE, "--as", "Z"])
    assert code == 2
    assert "no such player" in err and "X, O" in err


def test_time_limit_needs_alphabeta(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, ["play", str(GAMES / "pig.game"), "--time", "1"])
    assert code == 2
    assert "time limit needs alphabeta" in err


def test_connect_four_seven_by_six_with_a_time_limit(monkeypatch, capsys):
    # The full game is far too large to solve here; with --time the solver deepens iteratively
    # (with a neutral evaluation, as the rules declare none) and answers with a legal move.
    code, out, err = run(monkeypatch, capsys,
                         ["play", str(GAMES / "connect4.game"), "--set", "columns=7",
                          "--set", "rows=6", "--as", "Red", "--time", "0.2"], "drop(3)\n")
    assert code == 0, err
    assert "Yellow plays drop(" in out and "an estimate" in out
    assert "End of input" in out


# ---- chance ------------------------------------------------------------------------------------

PIG = ["play", str(GAMES / "pig.game"), "--set", "winscore=6", "--as", "A,B"]
PIG_MOVES = "roll\nroll\nroll\nstop\nroll\nroll\nstop\nroll\nroll\nroll\nstop\n" * 3


def test_seed_reproduces_every_roll(monkeypatch, capsys):
    first = run(monkeypatch, capsys, PIG + ["--seed", "7"], PIG_MOVES)
    second = run(monkeypatch, capsys, PIG + ["--seed", "7"], PIG_MOVES)
    assert first[0] == 0, first[2]
    assert first == second
    rolls = [line for line in first[1].splitlines() if line.startswith("chance: d=")]
    assert rolls and all(line.endswith("(probability 1/3)") for line in rolls)


def test_draw_is_exact():
    # Outcomes 1/2, 1/3, 1/6 share the denominator 6: of the six equally likely tickets, three
    # pick the first outcome, two the second and one the third.
    outcomes = [("a", Fraction(1, 2)), ("b", Fraction(1, 3)), ("c", Fraction(1, 6))]

    class Tickets:
        def __init__(self):
            self.next = 0

        def randrange(self, n):
            assert n == 6
            self.next += 1
            return self.next - 1

    tickets = Tickets()
    assert [draw(tickets, outcomes) for _ in range(6)] == ["a", "a", "a", "b", "b", "c"]


def test_session_rolls_and_undoes_chance():
    game = gdl.load(GAMES / "pig.game")
    session = Session(game, seed=1)
    session.play(session.find("roll"))
    move = session.roll()
    assert move.probability == Fraction(1, 3) and move.name.startswith("d=")
    assert session.undo_turn([0]) and session.state == game.initial_state()
    assert session.moves == []


# ---- drawing a position ------------------------------------------------------------------------

def test_tictactoe_board_from_display_hints():
    game = gdl.load(TICTACTOE)
    state = play_moves(game, ["place(1,2)", "place(0,0)"])
    assert game.variables(state)["cell"] == [["O", "empty", "empty"],
                                             ["empty", "empty", "X"],
                                             ["empty", "empty", "empty"]]
    assert render(game, state).splitlines() == ["cell", "  0 1 2", "0 O . .", "1 . . X",
                                                "2 . . ."]


def test_state_dump_without_display_hints():
    game = gdl.load(GAMES / "nim.game")
    state = play_moves(game, ["take(0,2)"])
    assert render(game, state) == "heap = [1, 4, 5, 0]"


def test_input_normalisation():
    assert normalise("place 1 1") == "place(1,1)"
    assert normalise(" place( 1 , 1 ) ") == "place(1,1)"
    assert normalise("roll") == "roll"


def test_session_accepts_prefixes_and_numbers():
    session = Session(gdl.load(TICTACTOE))
    assert session.game.action_name(session.find("place(2,2")) == "place(2,2)"
    assert session.game.action_name(session.find("9")) == "place(2,2)"


def test_three_players_play_to_the_maxn_leaf_without_a_winner_verdict(monkeypatch, capsys):
    # FACTS (AIMA Fig. 5.4): A is indifferent between its two actions and, taking the first
    # best, a1; then B picks b1 (its 2 beats 1) and C picks c1 (its 6 beats 3): (1, 2, 6). The
    # game is general-sum, so nobody is declared the winner.
    code, out, err = run(monkeypatch, capsys, ["play", str(GAMES / "aima-fig5-4.game")])
    assert code == 0, err
    assert re.findall(r"^\w+ plays (\S+) \(value", out, re.M) == ["a1", "b1", "c1"]
    assert out.rstrip().endswith("Game over: A 1, B 2, C 6.")


def test_hint_from_a_solver_that_cannot_help(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys,
                         ["play", str(GAMES / "aima-fig5-4.game"), "--as", "A,B,C",
                          "--ai", "alphabeta"], "hint\nquit\n")
    assert code == 0, err
    assert "no hint: alpha-beta needs exactly two players" in out
