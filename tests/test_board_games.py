"""Othello, Breakthrough and Kalah (games/): boards sized by a `param`, set up by `init`, no
sentinel and no state variable for the seeds in hand. Each is checked against a published figure
or against a brute force written here, from the rules, independently of gdl; Breakthrough and
Kalah also against OpenSpiel's implementations (test_board_games_openspiel.py). Sim: published."""

from functools import cache

import pytest
from helpers import GAMES

import gdl
from gdl.solvers import solve
from gdl.tools.count import count


@cache
def load(name, backend="compile", **params):
    return gdl.load(GAMES / name, params, backend=backend)


def othello(backend="compile"):
    return load("othello.game", backend, size=8)


# ---- Othello ---------------------------------------------------------------------------------

# Perft of Othello from the standard start (pass counted as a move, none occurs this early): 1, 4,
# 12, 56, 244, 1396, 8200, 55092, ... (Aart Bik's and Paul Hsieh's published Othello perft tables).
OTHELLO_PERFT = (1, 4, 12, 56, 244, 1_396)


def test_othello_perft_from_the_standard_start():
    assert count(othello(), depth=5).per_ply == OTHELLO_PERFT


def test_othello_perft_is_the_same_in_the_interpreter():
    assert count(othello("interpret"), depth=2).per_ply == OTHELLO_PERFT[:3]


def test_othello_4x4_is_a_second_player_win():
    # "On 4x4 and 6x6 boards under perfect play, the second player wins" (Wikipedia, Othello;
    # 6x6: Joel Feinstein, 1993). White is the second player.
    result = solve(load("othello.game", size=4), "alphabeta")
    assert result.values == (-1, 1)


def test_othello_centre_follows_the_size():
    game = load("othello.game", size=6)
    # White holds (2,2) and (3,3), Black (2,3) and (3,2): Black brackets a White disc from just
    # above or left of (2,2) and just below or right of (3,3), as d3, c4, f5, e6 on 8 x 8
    assert [game.action_name(a) for a in game.legal_actions(game.initial_state())] == [
        "place(1,2)", "place(2,1)", "place(3,4)", "place(4,3)"]


# ---- Breakthrough: an independent model ---------------------------------------------------------

def breakthrough_start(rows, cols, home):
    board = [["." for _ in range(cols)] for _ in range(rows)]
    for r in range(home):
        for c in range(cols):
            board[r][c], board[rows - 1 - r][c] = "W", "B"
    return tuple(map(tuple, board))


def breakthrough_moves(board, player):
    """Boards after each legal move of ``player`` ("W" moves up the row numbers, "B" down)."""
    rows, cols = len(board), len(board[0])
    forward, enemy = (1, "B") if player == "W" else (-1, "W")
    children = []
    for r in range(rows):
        for c in range(cols):
            if board[r][c] != player:
                continue
            for dc in (-1, 0, 1):
                t, u = r + forward, c + dc
                if not (0 <= t < rows and 0 <= u < cols):
                    continue
                if board[t][u] == "." or (dc != 0 and board[t][u] == enemy):
                    child = [list(row) for row in board]
                    child[r][c], child[t][u] = ".", player
                    children.append(tuple(map(tuple, child)))
    return children


def breakthrough_over(board):
    return "W" in board[-1] or "B" in board[0]


def breakthrough_perft(board, player, depth):
    if depth == 0:
        return 1
    if breakthrough_over(board):
        return 0
    other = "B" if player == "W" else "W"
    return sum(breakthrough_perft(child, other, depth - 1)
               for child in breakthrough_moves(board, player))


def breakthrough_value(rows, cols, home):
    """White's value (+1 or -1) by plain negamax with a memo: the player to move loses when the
    other has reached the far row, or when it has no move."""
    memo = {}

    def negamax(board, player):
        key = (board, player)
        if key not in memo:
            if breakthrough_over(board):
                memo[key] = -1            # the player who just moved reached its far row
            else:
                other = "B" if player == "W" else "W"
                children = breakthrough_moves(board, player)
                memo[key] = max((-negamax(child, other) for child in children), default=-1)
        return memo[key]

    return negamax(breakthrough_start(rows, cols, home), "W")


def test_breakthrough_perft_against_a_brute_force():
    start = breakthrough_start(5, 5, 2)
    expected = tuple(breakthrough_perft(start, "W", d) for d in range(4))
    assert expected[1] == 13     # by hand: 5 front-row pieces, 2 moves at each edge, 3 inside
    assert count(load("breakthrough.game"), depth=3).per_ply == expected


@pytest.mark.parametrize("rows, cols, home", [(4, 3, 1), (5, 3, 1), (4, 3, 2)])
def test_breakthrough_small_boards_solved_against_a_brute_force(rows, cols, home):
    white = breakthrough_value(rows, cols, home)
    result = solve(load("breakthrough.game", rows=rows, cols=cols, home=home), "alphabeta")
    assert result.values == (white, -white)


def test_breakthrough_backends_agree_on_a_small_board():
    params = {"rows": 4, "cols": 3, "home": 1}
    compiled = count(load("breakthrough.game", **params), depth=6).per_ply
    interpreted = count(load("breakthrough.game", backend="interpret", **params), depth=6).per_ply
    start = breakthrough_start(4, 3, 1)
    assert compiled == interpreted == tuple(breakthrough_perft(start, "W", d) for d in range(7))


# ---- Kalah: an independent model ----------------------------------------------------------------

def kalah_moves(pits, houses):
    """(pits after the move, whether the mover moves again) for each legal sowing. ``pits`` is
    from the mover's side: its houses, its store, the opponent's houses, the opponent's store."""
    store, opposing_store = houses, 2 * houses + 1
    results = []
    for h in range(houses):
        if pits[h] == 0:
            continue
        board = list(pits)
        hand, board[h], position = board[h], 0, h
        while hand:
            position = (position + 1) % (2 * houses + 2)
            if position == opposing_store:
                continue
            board[position] += 1
            hand -= 1
        if position == store:
            results.append((tuple(board), True))
            continue
        across = 2 * houses - position
        if position < houses and board[position] == 1 and board[across] > 0:
            board[store] += 1 + board[across]
            board[position] = board[across] = 0
        results.append((tuple(board), False))
    return results


def kalah_value(houses, seeds):
    """The first player's margin with best play, by negamax over the rules of games/kalah.game:
    the game ends when either side's houses are empty, and each keeps the seeds on its side."""
    memo = {}

    def flip(pits):
        return pits[houses + 1:] + pits[:houses + 1]

    def margin(pits):      # the mover's seeds minus the opponent's
        return sum(pits[:houses + 1]) - sum(pits[houses + 1:])

    def negamax(pits):
        if pits not in memo:
            if not any(pits[:houses]) or not any(pits[houses + 1:2 * houses + 1]):
                memo[pits] = margin(pits)
            else:
                memo[pits] = max(negamax(child) if again else -negamax(flip(child))
                                 for child, again in kalah_moves(pits, houses))
        return memo[pits]

    return negamax(tuple([seeds] * houses + [0] + [seeds] * houses + [0]))


@pytest.mark.parametrize("houses, seeds", [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3)])
def test_kalah_values_against_a_brute_force(houses, seeds):
    south = kalah_value(houses, seeds)
    result = solve(load("kalah.game", houses=houses, seeds=seeds), "alphabeta")
    assert result.values == (south, -south)


def test_kalah_backends_agree():
    compiled = count(load("kalah.game", houses=3, seeds=2), depth=5).per_ply
    interpreted = count(load("kalah.game", backend="interpret", houses=3, seeds=2), depth=5).per_ply
    assert compiled == interpreted


def test_kalah_keeps_no_seeds_in_hand():
    # the state is the pits and the player to move: nothing holds the seeds while they are sown
    text = (GAMES / "kalah.game").read_text()
    assert text.count("\nvar ") == 1 and "let hand = " in text


# ---- Sim ---------------------------------------------------------------------------------------

def test_sim_is_a_second_player_win():
    # Mead, Rosa and Huang, "The game of Sim: a computational study" (1974): with best play the
    # second player wins. (Natively a fraction of a second; about 4 s where only the compiled
    # Python tier runs.)
    result = solve(gdl.load(GAMES / "sim.game", backend="native"), "alphabeta")
    assert result.values == (-1, 1)
