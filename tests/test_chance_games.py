"""Bundled games with chance (and the Pacman pair): values from published facts, hand
computations written out here, or independent brute-force searches written in this file.

Expected values never come from running our own solvers: see the comment above each one.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from gdl.errors import GameRuntimeError, GdlError
from gdl.moves import play
from gdl.protocol import CHANCE
from gdl.solvers import solve

F = Fraction
GAMES = Path(__file__).resolve().parent.parent / "games"
CHANCE_SOLVERS = ("expectiminimax", "star1", "star2")


def load(name: str, **params):
    return gdl.load(GAMES / name, params or None)


def cli_json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


# ---- the expectation example (Russell & Norvig) -------------------------------------------------

@pytest.mark.parametrize("algorithm", CHANCE_SOLVERS)
def test_expectation_example_is_worth_ten(algorithm):
    # FACTS: (1/2)·8 + (1/3)·24 + (1/6)·(−12) = 4 + 8 − 2 = 10.
    result = solve(load("chance-example.game"), algorithm)
    assert result.values == (10, -10)
    assert result.proven


def test_expectation_example_from_the_command_line(capsys):
    out = cli_json(capsys, "solve", str(GAMES / "chance-example.game"), "--json")
    assert out["values"] == {"MAX": 10, "MIN": -10}


# ---- Pig (OpenSpiel's rules, a three-sided die) ---------------------------------------------------

def test_pig_depth_two_is_five_thirds_with_roll():
    # FACTS (OpenSpiel's minimax_test.cc): depth 2, heuristic score(A) − score(B): 5/3, roll.
    # By hand: roll; the die shows 1 (prob 1/3): B to move with one ply left; whatever B does
    # the scores stay 0–0, so 0. It shows 2 or 3: A to move with one ply left; stopping banks
    # it (2 or 3), rolling meets a chance node with no depth left (0). So (0 + 2 + 3) / 3 = 5/3.
    # Stopping at once banks 0 and leaves B a ply that cannot change the scores: 0 < 5/3.
    game = load("pig.game")
    result = solve(game, "expectiminimax", depth=2)
    assert result.values == (F(5, 3), F(-5, 3))
    assert [game.action_name(a) for a in result.best_actions] == ["roll"]
    assert not result.proven


def test_pig_json_prints_fractions_as_strings(capsys):
    out = cli_json(capsys, "solve", str(GAMES / "pig.game"), "--depth", "2",
                   "--algorithm", "expectiminimax", "--json")
    assert out["values"] == {"A": "5/3", "B": "-5/3"}
    assert out["best_actions"] == ["roll"]
    assert out["proven"] is False


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_pig_star1_and_star2_agree_with_expectiminimax(depth):
    game = load("pig.game")
    reference = solve(game, "expectiminimax", depth=depth)
    for algorithm in ("star1", "star2"):
        result = solve(game, algorithm, depth=depth)
        assert (result.values, result.best_actions) == (reference.values, reference.best_actions)
        assert result.stats.nodes <= reference.stats.nodes


def pig_brute_force(sides: int, winscore: int, horizon: int, depth: int | None):
    """OpenSpiel's Pig written directly: A's value (A maximises, B minimises), chance nodes
    averaged, depth counting decisions only, the score difference at a cut-off. Returns A's
    value at the root and the values of the root's actions, roll first (when legal), then stop."""

    def over(a, b, moves):
        return a >= winscore or b >= winscore or moves >= horizon

    def outcome(a, b):
        return 1 if a >= winscore else -1 if b >= winscore else 0

    @cache
    def decision(a, b, total, player, moves, left):
        if over(a, b, moves):
            return outcome(a, b)
        if left == 0:
            return a - b
        values = actions(a, b, total, player, moves, left)
        return max(values) if player == 0 else min(values)

    def actions(a, b, total, player, moves, left):
        after = None if left is None else left - 1
        values = []
        if (a if player == 0 else b) + total < winscore:
            values.append(throw(a, b, total, player, moves + 1, after))
        banked = (a + total, b) if player == 0 else (a, b + total)
        values.append(decision(*banked, 0, 1 - player, moves + 1, after))
        return values

    @cache
    def throw(a, b, total, player, moves, left):
        if over(a, b, moves):  # the roll used the last move: the die can change nothing
            return outcome(a, b)
        if left == 0:
            return a - b
        value = F(0)
        for face in range(1, sides + 1):
            if face == 1:
                value += F(1, sides) * decision(a, b, 0, 1 - player, moves, left)
            else:
                value += F(1, sides) * decision(a, b, total + face, player, moves, left)
        return value

    return decision(0, 0, 0, 0, 0, depth), actions(0, 0, 0, 0, 0, depth)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_pig_matches_a_brute_force_at_every_depth(depth):
    game = load("pig.game")
    value, options = pig_brute_force(3, 100, 1000, depth)
    result = solve(game, "expectiminimax", depth=depth)
    assert result.values == (value, -value)
    names = ["roll", "stop"]
    best = [names[i] for i, v in enumerate(options) if v == value]
    assert [game.action_name(a) for a in result.best_actions] == best


def test_small_pig_solved_exactly_matches_the_brute_force():
    # To 4 points with at most 5 decisions: small enough to search to the end.
    game = load("pig.game", winscore=4, horizon=5)
    value, _ = pig_brute_force(3, 4, 5, None)
    for algorithm in CHANCE_SOLVERS:
        result = solve(game, algorithm)
        assert result.values == (value, -value) and result.proven


# ---- the dice race ------------------------------------------------------------------------------

def test_dice_race_depth_two_is_the_mean_of_two_dice():
    # Depth 2 = A's throw and A's move, then the evaluation (A's distance run minus B's).
    # B has no piece on the track, so nothing is hit, and no piece can get home (3 + 3 < 7):
    # every way to move runs exactly a + b squares. The mean of two three-sided dice is 2 + 2.
    for algorithm in CHANCE_SOLVERS:
        result = solve(load("dice-race.game"), algorithm, depth=2)
        assert result.values == (4, -4)


def dice_race_brute_force(track: int, sides: int, turns: int, state, depth: int):
    """The dice race written directly from its rules: A's value at depth ``depth``."""
    home = track + 1

    def square(player, position):
        return position if player == 0 else home - position

    def moved(pos, player, x, y, d0, d1):
        mine, theirs = list(pos[player]), list(pos[1 - player])
        if x == y:
            mine[x] = min(mine[x] + d0 + d1, home)
        else:
            mine[x] = min(mine[x] + d0, home)
            mine[y] = min(mine[y] + d1, home)
        landed = {square(player, mine[i]) for i in {x, y} if 1 <= mine[i] <= track}
        for i in range(2):
            if 1 <= theirs[i] <= track and square(1 - player, theirs[i]) in landed:
                theirs[i] = 0
        return (tuple(mine), tuple(theirs)) if player == 0 else (tuple(theirs), tuple(mine))

    @cache
    def value(pos, player, dice, played, left):
        done = [all(p == home for p in pos[q]) for q in (0, 1)]
        if done[0] or done[1] or played == turns:
            return 1 if done[0] else -1 if done[1] else 0
        if left == 0:
            return sum(pos[0]) - sum(pos[1])
        if dice is None:  # the forced throw, then the two dice
            return sum(F(1, sides * sides) * value(pos, player, (a, b), played, left - 1)
                       for a in range(1, sides + 1) for b in range(1, sides + 1))
        options = [value(moved(pos, player, x, y, *dice), 1 - player, None, played + 1, left - 1)
                   for x in range(2) for y in range(2)
                   if pos[player][x] < home and pos[player][y] < home]
        return max(options) if player == 0 else min(options)

    return value(*state, depth)


@pytest.mark.parametrize("depth", [3, 4])
def test_dice_race_matches_a_brute_force(depth):
    game = load("dice-race.game")
    expected = dice_race_brute_force(6, 3, 16, (((0, 0), (0, 0)), 0, None, 0), depth)
    for algorithm in CHANCE_SOLVERS:
        assert solve(game, algorithm, depth=depth).values == (expected, -expected)


def test_dice_race_hits_send_pieces_back():
    # A runs 3 and 3 (one piece each), B answers 3 and 2: B's pieces land on squares 7-3 = 4
    # and 7-2 = 5, missing A's pieces on square 3; then A throws 1 and 1, and moving piece 0
    # by both dice puts it on square 5, where B's piece stands: that piece goes back to 0.
    game = load("dice-race.game")
    state = play(game, "throw a=3 b=3 move(0,1) throw a=3 b=2 move(0,1) throw a=1 b=1 move(0,0)"
                 .split())
    assert game.evaluate(state)[0] == 5 + 3 - (3 + 0)


# ---- Pacman: the same maze, an adversarial ghost and a random one -------------------------------

# The maze (P Pacman, G the ghost, o the only dot; score: −1 per Pacman move, +10 for the dot,
# +500 for eating the last dot, −500 when caught; the game ends after 3 Pacman moves):
#     # # # G .
#     . . P . o
# West is safe and worthless: from (1,2) the dot is at least 4 Pacman moves away through the
# west, so within 3 moves no west line eats it, and Pacman can always avoid the ghost there
# (west, west, east: the ghost needs 3 moves to reach (1,1) and Pacman gets there on his 3rd
# move, before the ghost's 3rd), so the west is worth exactly −3 against either ghost.
# East steps next to the ghost at (1,3). The adversarial ghost steps onto (1,3): caught after
# one move, −1 − 500 = −501 < −3, so minimax goes west and the value is −3. The random ghost at
# (0,3) has two open ways, south onto Pacman (1/2: −501) and east (1/2); then Pacman eats the
# dot, which wins: −1 −1 +10 +500 = 508. So east is worth (−501 + 508)/2 = 7/2 > −3: expectimax
# goes east and the value is 7/2.

def test_pacman_against_an_adversarial_ghost_goes_west():
    game = load("pacman-adversarial.game")
    for algorithm in ("minimax", "alphabeta", "expectiminimax"):
        result = solve(game, algorithm)
        assert result.values == (-3, 3)
        assert [game.action_name(a) for a in result.best_actions] == ["move(west)"]


def test_trapped_pacman_rushes_the_adversarial_ghost_when_the_game_is_longer():
    # CS188's "trapped" Pacman: with 4 moves the west is a dead end. After west the ghost goes
    # to (1,3); Pacman either steps back next to it to (1,2) (caught next: −502) or goes on to
    # (1,0); the ghost comes to (1,2), Pacman's only move is back to (1,1) and the ghost catches
    # him there (−503). East is caught at once (−501), the least bad: minimax takes it.
    game = load("pacman-adversarial.game", horizon=4)
    result = solve(game, "alphabeta")
    assert result.values == (-501, 501)
    assert [game.action_name(a) for a in result.best_actions] == ["move(east)"]


def test_pacman_against_a_random_ghost_goes_east():
    game = load("pacman-random.game")
    for algorithm in CHANCE_SOLVERS:
        result = solve(game, algorithm)
        assert result.values == (F(7, 2), F(-7, 2))
        assert [game.action_name(a) for a in result.best_actions] == ["move(east)"]


def test_pacman_pair_from_the_command_line(capsys):
    adversarial = cli_json(capsys, "solve", str(GAMES / "pacman-adversarial.game"), "--json")
    random = cli_json(capsys, "solve", str(GAMES / "pacman-random.game"), "--json")
    assert (adversarial["values"]["Pacman"], adversarial["best_actions"]) == (-3, ["move(west)"])
    assert (random["values"]["Pacman"], random["best_actions"]) == ("7/2", ["move(east)"])


def test_random_ghost_takes_each_open_way_with_equal_probability():
    # At (0,3) the ghost's open ways are south and east (north is off the maze, west a wall).
    game = load("pacman-random.game")
    state = play(game, ["move(east)", "wander"])
    assert game.current_player(state) == CHANCE
    outcomes = {game.action_name(a): p for a, p in game.chance_outcomes(state)}
    assert outcomes == {"d=south": F(1, 2), "d=east": F(1, 2)}


# ---- probabilities that do not sum to 1 ---------------------------------------------------------

BAD_TABLE = """\
game "Loaded die"
players A, B
var x in 0..6 = 0
action roll
    effect random d in {1: 1/2, 2: 1/3, 3: 1/3}; x = d
terminal x > 0
utility A = x
zero-sum
"""


def test_constant_probabilities_that_do_not_sum_to_one_are_refused_at_load():
    with pytest.raises(GdlError) as caught:
        gdl.loads(BAD_TABLE, "loaded.game")
    first = caught.value.diagnostics[0]
    # The `random` statement: line 5, column 12.
    assert (first.code, first.span.line, first.span.column) == ("E217", 5, 12)
    text = caught.value.render()
    assert "1: 1/2" in text and "2: 1/3" in text and "3: 1/3" in text and "7/6" in text


def test_constant_probabilities_refused_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "loaded.game"
    path.write_text(BAD_TABLE)
    assert main(["check", str(path)]) == 1
    assert f"{path}:5:12: error[E217]" in capsys.readouterr().err


STATE_DEPENDENT = """\
game "A coin that wears"
players A, B
var wear in 0..3 = 0
var heads in 0..9 = 0
action flip
    effect random side in {1: (2 - wear) / 4, 0: 1/2}; heads = heads + side; wear = wear + 1
terminal wear == 3
utility A = heads
zero-sum
"""


def test_state_dependent_probabilities_fail_at_the_chance_node():
    # wear 0: 2/4 + 1/2 = 1, fine. wear 1: 1/4 + 1/2 = 3/4, so the second flip fails.
    game = gdl.loads(STATE_DEPENDENT, "coin.game")
    state = game.initial_state()
    state = game.apply(game.apply(state, game.legal_actions(state)[0]),
                       game.chance_outcomes(game.apply(state, game.legal_actions(state)[0]))[0][0])
    with pytest.raises(GameRuntimeError) as caught:
        game.apply(state, game.legal_actions(state)[0])
    first = caught.value.diagnostics[0]
    assert (first.code, first.span.line, first.span.column) == ("E305", 6, 12)
    assert "3/4" in caught.value.render()


def test_state_dependent_probabilities_fail_in_a_solve(tmp_path, capsys):
    path = tmp_path / "coin.game"
    path.write_text(STATE_DEPENDENT)
    assert main(["solve", str(path), "--algorithm", "expectiminimax"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:6:12: error[E305]" in err and "Traceback" not in err


def test_an_outcome_whose_probability_is_zero_in_this_state_drops_out():
    text = STATE_DEPENDENT.replace("(2 - wear) / 4, 0: 1/2", "(1 - wear) / 2, 0: (1 + wear) / 2")
    game = gdl.loads(text.replace("wear == 3", "wear == 2"), "coin.game")
    state = game.initial_state()
    flip = game.legal_actions(state)[0]
    assert [p for _, p in game.chance_outcomes(game.apply(state, flip))] == [F(1, 2), F(1, 2)]
    tails = play(game, ["flip", "side=0"])
    assert [(game.action_name(a), p) for a, p in game.chance_outcomes(game.apply(tails, flip))] \
        == [("side=0", 1)]
