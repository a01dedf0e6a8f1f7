"""Bundled games for max^n and paranoid: AIMA Figure 5.4, three-player take-away, centipede.

Expected values come from FACTS.md, from the literature, or from hand arguments and
independent brute-force searches written in this file; never from our own solvers' output.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from gdl.moves import play
from gdl.solvers import SolverError, solve

GAMES = Path(__file__).resolve().parent.parent / "games"


def load(name: str, **params):
    return gdl.load(GAMES / name, params or None)


def names(game, actions):
    return [game.action_name(a) for a in actions]


def cli_json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


# ---- AIMA Figure 5.4 ----------------------------------------------------------------------------

def test_figure_5_4_root_value_and_both_root_actions_optimal():
    # FACTS: root value (1,2,6); A is indifferent (1 = 1), so both root actions are optimal.
    game = load("aima-fig5-4.game")
    result = solve(game, "maxn")
    assert result.values == (1, 2, 6)
    assert names(game, result.best_actions) == ["a1", "a2"]
    assert names(game, result.pv) == ["a1", "b1", "c1"]  # the first best at every node


def test_figure_5_4_is_general_sum_so_shallow_pruning_is_refused():
    with pytest.raises(SolverError, match="constant-sum"):
        solve(load("aima-fig5-4.game"), "maxn", shallow_pruning=True)


@pytest.mark.parametrize("path, expected", [
    # FACTS: C's nodes back up (1,2,6), (6,1,2), (1,5,2), (5,4,5); B's (1,2,6) and (1,5,2).
    (["a1", "b1"], (1, 2, 6)), (["a1", "b2"], (6, 1, 2)),
    (["a2", "b3"], (1, 5, 2)), (["a2", "b4"], (5, 4, 5)),
    (["a1"], (1, 2, 6)), (["a2"], (1, 5, 2)),
])
def test_figure_5_4_backed_up_vectors(path, expected):
    game = load("aima-fig5-4.game")
    assert solve(game, "maxn", root_state=play(game, path)).values == expected


def test_figure_5_4_from_the_command_line(capsys):
    out = cli_json(capsys, "solve", str(GAMES / "aima-fig5-4.game"), "--json")
    assert out["values"] == {"A": 1, "B": 2, "C": 6}
    assert out["best_actions"] == ["a1", "a2"] and out["algorithm"] == "maxn"


# ---- three-player take-away ---------------------------------------------------------------------

# Hand argument (max^n, take 1 or 2, last counter wins, ties to the first action, take(1)):
# let w(n) be who wins from a pile of n, counted from the player to move (0 = mover, 1 = next,
# 2 = the one after). w(1) = w(2) = 0 (take everything). Taking k leaves n - k to the next
# player, so it makes player 1 + w(n - k) (mod 3) win.
#   n = 3: take 1 -> 1 + w(2) = 1, take 2 -> 1 + w(1) = 1: the mover loses either way; w = 1.
#   n = 4: take 1 -> 1 + w(3) = 2, take 2 -> 1 + w(2) = 1: a tie at 0; the first (take 1): w = 2.
#   n = 5: take 1 -> 1 + w(4) = 0: the mover wins with take 1.
#   n = 6: take 1 -> 1 + w(5) = 1, take 2 -> 1 + w(4) = 0: the mover wins with take 2.
# From then on w repeats with period 4: w(n) = 0, 0, 1, 2 for n = 1, 2, 3, 4 (mod 4).
# For the default pile of 10 (10 = 2 mod 4): A wins, and only by taking 2.
HAND = {1: 0, 2: 0, 3: 1, 0: 2}


def takeaway_brute_force(n: int):
    """max^n written directly: the winner's index (0 = A) and the set of optimal first moves."""

    @cache
    def winner(pile: int, mover: int) -> int:
        best = None
        for k in (1, 2):
            if k > pile:
                continue
            w = mover if k == pile else winner(pile - k, (mover + 1) % 3)
            if best is None or (w == mover and best != mover):
                best = w
        return best

    outcomes = {k: (0 if k == n else winner(n - k, 1)) for k in (1, 2) if k <= n}
    best = 0 in outcomes.values()
    return winner(n, 0), [f"take({k})" for k, w in outcomes.items() if (w == 0) == best]


@pytest.mark.parametrize("counters", range(1, 14))
def test_takeaway_maxn_with_and_without_shallow_pruning(counters):
    game = load("takeaway3.game", counters=counters)
    plain = solve(game, "maxn", shallow_pruning=False)
    pruned = solve(game, "maxn", shallow_pruning=True)
    winner, best = takeaway_brute_force(counters)
    assert winner == HAND[counters % 4]
    expected = tuple(1 if p == winner else 0 for p in range(3))
    assert plain.values == pruned.values == expected
    assert names(game, plain.best_actions) == names(game, pruned.best_actions) == best
    assert plain.pv == pruned.pv
    assert pruned.stats.nodes <= plain.stats.nodes


def test_takeaway_default_is_solved_by_maxn_automatically(capsys):
    out = cli_json(capsys, "solve", str(GAMES / "takeaway3.game"), "--json")
    assert out["algorithm"] == "maxn"
    assert out["values"] == {"A": 1, "B": 0, "C": 0}
    assert out["best_actions"] == ["take(2)"]


def paranoid_brute_force(n: int, me: int) -> int:
    """Player ``me``'s value when both others play to make ``me`` lose (plain minimax)."""

    @cache
    def value(pile: int, mover: int) -> int:
        results = [(1 if mover == me else 0) if k == pile else value(pile - k, (mover + 1) % 3)
                   for k in (1, 2) if k <= pile]
        return max(results) if mover == me else min(results)

    return value(n, 0)


@pytest.mark.parametrize("counters", range(1, 11))
@pytest.mark.parametrize("player", [0, 1, 2])
def test_takeaway_paranoid(counters, player):
    # Hand argument for A (player 0): A wins at once from 1 or 2. From more, after A's move
    # B must not be able to take the rest (at least 3 left), then C must not (at least 3 left
    # after any B move, so at least 5 after A's), and then A must again be able to win from
    # every pile B and C can leave together (they take 2 to 4): three piles in a row that A
    # wins, but A wins only from 1 and 2. So the coalition beats A from every pile of 3 or more.
    game = load("takeaway3.game", counters=counters)
    result = solve(game, "paranoid", player=player)
    expected = paranoid_brute_force(counters, player)
    if player == 0:
        assert expected == (1 if counters <= 2 else 0)
    assert result.extra["paranoid_value"] == expected
    assert result.values[player] == expected


# ---- centipede ----------------------------------------------------------------------------------

def test_centipede_first_player_takes_at_once():
    # McKelvey & Palfrey (1992), four moves: backward induction takes at every node, so the
    # first player takes at once and gets the large pile of 40; the second gets 10.
    game = load("centipede.game")
    result = solve(game, "maxn")
    assert result.values == (40, 10)
    assert names(game, result.best_actions) == ["take"]
    assert names(game, result.pv) == ["take"]


@pytest.mark.parametrize("passes, expected", [
    # The payoff table from the paper: taking after k passes gives the taker 40·2^k and the
    # other 10·2^k; at every node taking beats passing (the next player would take).
    (1, (20, 80)), (2, (160, 40)), (3, (80, 320)),
])
def test_centipede_takes_at_every_node(passes, expected):
    game = load("centipede.game")
    result = solve(game, "maxn", root_state=play(game, ["pass"] * passes))
    assert result.values == expected
    assert names(game, result.best_actions) == ["take"]


def test_centipede_passing_to_the_end_pays_640_and_160():
    game = load("centipede.game")
    assert game.returns(play(game, ["pass"] * 4)) == (640, 160)


def test_centipede_from_the_command_line(capsys):
    out = cli_json(capsys, "solve", str(GAMES / "centipede.game"), "--json")
    assert out["values"] == {"First": 40, "Second": 10}
    assert out["best_actions"] == ["take"] and out["algorithm"] == "maxn"


@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta", "expectiminimax"])
def test_centipede_is_general_sum_so_two_player_zero_sum_searches_refuse_it(algorithm):
    with pytest.raises(SolverError):
        solve(load("centipede.game"), algorithm)
