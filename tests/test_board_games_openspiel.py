"""Breakthrough and Kalah (games/), and Pig and Piglet (games/cyclic/, games that repeat a
position), against OpenSpiel's own implementations of them, a source from outside this project:
`breakthrough` (parameters rows, columns), `mancala` (Kalah, 6 houses of 4 seeds) and `pig`
(with `piglet=true` for the coin). OpenSpiel's tree is walked through pyspiel here, so every
expected number is counted by OpenSpiel, not by gdl.

No published perft or small-board value of either game is within reach of a test (the solved
5 x 5 Breakthrough has about 10^12 states; the published Kalah values start at Kalah(6,4) and
needed endgame databases), so OpenSpiel is the outside source here; games/ and
tests/test_board_games.py say so.

Optional: runs where the `openspiel` extra is installed (CI installs it)."""

import random
import re
from functools import cache

import pytest
from helpers import GAMES

pyspiel = pytest.importorskip("pyspiel")

import gdl  # noqa: E402
from gdl.protocol import TERMINAL  # noqa: E402
from gdl.tools.count import count  # noqa: E402


@cache
def load(name, backend="compile", **params):
    return gdl.load(GAMES / name, params, backend=backend)


def openspiel_perft(state, depth):
    """Histories of each length 0..depth from ``state``, walked one by one in OpenSpiel."""
    counts = [0] * (depth + 1)

    def walk(node, ply):
        counts[ply] += 1
        if ply < depth and not node.is_terminal():
            for action in node.legal_actions():
                walk(node.child(action), ply + 1)

    walk(state, 0)
    return tuple(counts)


def play_alongside(game, openspiel_game, name_of, chooser):
    """One whole game chosen at random (``chooser``) in OpenSpiel and played move for move here:
    at every position the same player is to move and the same moves are legal (``name_of(their
    state, their action)`` is our action's name), and both end at the same move. Returns (our
    final state, theirs)."""
    theirs = openspiel_game.new_initial_state()
    ours = game.initial_state()
    while not theirs.is_terminal():
        assert game.current_player(ours) == theirs.current_player()
        moves = {name_of(theirs, a): a for a in theirs.legal_actions()}
        legal = {game.action_name(a): a for a in game.legal_actions(ours)}
        assert sorted(legal) == sorted(moves)
        name = chooser.choice(sorted(moves))
        theirs.apply_action(moves[name])
        ours = game.apply(ours, legal[name])
    assert game.current_player(ours) == TERMINAL
    return ours, theirs


# ---- Breakthrough ------------------------------------------------------------------------------

def openspiel_home_rows(rows, columns):
    """How many rows of pieces each side starts with in OpenSpiel's Breakthrough, read from its
    initial board (one row on boards of 5 rows or fewer, two on larger ones)."""
    board = str(pyspiel.load_game("breakthrough", {"rows": rows, "columns": columns})
                .new_initial_state())
    return sum(1 for line in board.splitlines() if line[:1].isdigit() and "b" in line)


@pytest.mark.parametrize("rows, columns, depth", [(5, 5, 5), (6, 5, 4), (4, 3, 7), (8, 8, 3)])
def test_breakthrough_perft_equals_openspiel(rows, columns, depth):
    # OpenSpiel's Black (player 0) starts at the top and moves first; ours, White, starts at the
    # bottom: the boards are mirror images, so the number of histories of each length is the same
    home = openspiel_home_rows(rows, columns)
    expected = openspiel_perft(
        pyspiel.load_game("breakthrough", {"rows": rows, "columns": columns}).new_initial_state(),
        depth)
    ours = count(load("breakthrough.game", rows=rows, cols=columns, home=home), depth=depth)
    assert ours.per_ply == expected


SQUARE = re.compile(r"([a-z])(\d+)")


def breakthrough_action(openspiel_move, rows):
    """OpenSpiel's `a5b4` (column letter, row number counted from the bottom; `*` marks a
    capture) as our `step(r,c,dc)`: OpenSpiel's top row is our row 0, so that OpenSpiel's first
    player (Black, at the top, moving down) is ours (White, moving up)."""
    (fc, fr), (tc, _) = SQUARE.findall(openspiel_move)
    column = ord(fc) - ord("a")
    return f"step({rows - int(fr)},{column},{ord(tc) - ord(fc)})"


def test_breakthrough_random_games_equal_openspiel():
    """Whole games, chosen at random in OpenSpiel: at every position the same player is to move
    and the legal moves are the same (mapped square by square), and the game ends at the same
    move with the same winner."""
    rows, columns = 5, 4
    home = openspiel_home_rows(rows, columns)
    game = load("breakthrough.game", rows=rows, cols=columns, home=home)
    chooser = random.Random(15)
    for _ in range(40):
        ours, theirs = play_alongside(
            game, pyspiel.load_game("breakthrough", {"rows": rows, "columns": columns}),
            lambda theirs, a: breakthrough_action(theirs.action_to_string(a), rows), chooser)
        assert tuple(game.returns(ours)) == tuple(int(r) for r in theirs.returns())


# ---- Kalah -------------------------------------------------------------------------------------

def test_kalah_perft_equals_openspiel():
    # OpenSpiel's `mancala` is Kalah(6,4) with the rules of games/kalah.game: sowing skips the
    # opponent's store, a last seed in one's store moves again, a last seed in one's empty house
    # captures the opposite house if it holds seeds, the game ends when either side is empty
    depth = 6
    expected = openspiel_perft(pyspiel.load_game("mancala").new_initial_state(), depth)
    assert count(load("kalah.game", houses=6, seeds=4), depth=depth).per_ply == expected


def test_kalah_random_games_equal_openspiel():
    """Whole games of Kalah(6,4), chosen at random in OpenSpiel: at every position the same
    player is to move with the same houses to sow (OpenSpiel's pit p is South's house p - 1
    or North's house p - 8), and the game ends at the same move with the same winner
    (OpenSpiel's returns are the sign of our margin)."""
    game = load("kalah.game", houses=6, seeds=4)
    chooser = random.Random(15)
    for _ in range(30):
        ours, theirs = play_alongside(
            game, pyspiel.load_game("mancala"),
            lambda theirs, p: f"sow({p - 1 if theirs.current_player() == 0 else p - 8})", chooser)
        margin = game.returns(ours)[0]
        assert (margin > 0) - (margin < 0) == int(theirs.returns()[0])


# ---- Pig and Piglet, games that repeat a position (games/cyclic/) -------------------------------

@pytest.mark.parametrize("rule_file, params, theirs", [
    ("piglet.game", {"goal": 6}, {"piglet": True, "diceoutcomes": 2, "winscore": 6}),
    ("pig100.game", {"goal": 20}, {"winscore": 20, "diceoutcomes": 6}),
])
def test_pig_and_piglet_random_games_equal_openspiel(rule_file, params, theirs):
    """Whole games chosen at random in OpenSpiel's `pig` (a coin for Piglet: its outcome 0 is
    the tails that loses the turn total) and played move for move in ours: the same player to
    move, the same chance distribution (OpenSpiel's outcome i is face i + 1, or heads for
    Piglet's 1), and the same winner. The rules differ in two places, both mapped here:
    OpenSpiel lets a player stop at a turn total of 0 (passing the turn), which ours, like
    Neller and Presser's hold, does not, so such a stop is never chosen; and in OpenSpiel a turn
    total that reaches the goal must then stop to bank it and win, where ours wins at the roll
    that reaches it. OpenSpiel's horizon (a draw after that many moves) is set out of reach."""
    game = load(f"cyclic/{rule_file}", **params)
    openspiel_game = pyspiel.load_game("pig", {**theirs, "horizon": 10**6})
    face = "heads" if theirs.get("piglet") else "d"
    chooser = random.Random(11)
    for _ in range(30):
        ours, state = game.initial_state(), openspiel_game.new_initial_state()
        while game.current_player(ours) != TERMINAL:
            player = game.current_player(ours)
            assert player == state.current_player()
            if player == pyspiel.PlayerId.CHANCE:
                outcomes = {f"{face}={o + 1 if face == 'd' else o}": (o, p)
                            for o, p in state.chance_outcomes()}
                mine = {game.action_name(o): (o, p) for o, p in game.chance_outcomes(ours)}
                assert {name: float(p) for name, (_, p) in mine.items()} == \
                       pytest.approx({name: p for name, (_, p) in outcomes.items()})
                name = chooser.choice(sorted(outcomes))
                state.apply_action(outcomes[name][0])
                ours = game.apply(ours, mine[name][0])
                continue
            legal = {game.action_name(a): a for a in game.legal_actions(ours)}
            theirs_legal = {("roll" if face == "d" else "flip") if a == 0 else "hold": a
                            for a in state.legal_actions()}
            if game.variables(ours)["turn_total"] == 0:         # their stop would only pass
                del theirs_legal["hold"]
            assert sorted(legal) == sorted(theirs_legal)
            name = chooser.choice(sorted(legal))
            state.apply_action(theirs_legal[name])
            ours = game.apply(ours, legal[name])
        assert state.legal_actions() == [1]                     # theirs: stop, and win
        state.apply_action(1)
        assert state.is_terminal()
        assert tuple(game.returns(ours)) == tuple(int(r) for r in state.returns())
