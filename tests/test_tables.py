"""Transposition tables in the windowed tree solvers (Star1, Star2, paranoid): the same answers
with and without the table, fewer nodes where positions repeat, and `gdl solve --tt` for every
tree solver."""

import json

import pytest
from hypothesis import given, settings
from test_graph import PIGLET_WITH_HORIZON

from gdl.backends.load import loads
from gdl.cli import main
from gdl.generators.rules import rule_games
from gdl.graph import enumerate_positions, strong_solve
from gdl.solvers import solve
from gdl.solvers.paranoid import paranoid
from gdl.solvers.star import star1, star2

BOUNDED_PIGLET = PIGLET_WITH_HORIZON + "utility in -1..1\n"


def answer(result):
    return result.values, result.best_actions, result.pv


# ---- the same answers ---------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=True, bounds=True))
def test_star_with_a_table_gives_the_same_answer(rules):
    game = rules.game
    for star in (star1, star2):
        plain, tabled = star(game), star(game, table=True)
        assert answer(tabled) == answer(plain)
        assert tabled.stats.nodes <= plain.stats.nodes


@settings(max_examples=40, deadline=None)
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=True, bounds=True,
                  evaluate=True))
def test_star_with_a_table_gives_the_same_answer_under_a_depth_limit(rules):
    # The key is (position, depth left): a position met with another depth left is another entry.
    game = rules.game
    for star in (star1, star2):
        plain, tabled = star(game, depth=2), star(game, depth=2, table=True)
        assert answer(tabled) == answer(plain)


@settings(max_examples=40, deadline=None)
@given(rule_games(players=(2, 3), chance=False))
def test_paranoid_with_a_table_gives_the_same_answer(rules):
    game = rules.game
    for player in range(game.info.num_players):
        plain, tabled = paranoid(game, player), paranoid(game, player, table=True)
        assert answer(tabled) == answer(plain)
        assert tabled.extra == plain.extra
        assert tabled.stats.nodes <= plain.stats.nodes


# ---- fewer nodes where positions repeat ---------------------------------------------------------

@pytest.mark.parametrize("star", [star1, star2])
def test_star_on_a_horizon_game_costs_about_what_its_positions_cost(star):
    # Piglet to 3 with an 18-move horizon: 1,228 positions (counted independently by the graph's
    # enumeration), millions of histories. Windows make some positions searched more than once
    # (with another window), but within a small factor of the positions.
    game = loads(BOUNDED_PIGLET)
    positions = len(enumerate_positions(game))
    tabled = star(game, table=True)
    assert tabled.stats.nodes <= 2 * positions
    assert tabled.values == strong_solve(game).value(0)
    # with a shorter horizon the plain search is cheap enough to compare with, and costs more
    short = loads(BOUNDED_PIGLET.replace("param horizon = 18", "param horizon = 8"))
    plain, tabled = star(short), star(short, table=True)
    assert answer(tabled) == answer(plain) and tabled.stats.nodes < plain.stats.nodes


def test_paranoid_on_transpositions_visits_fewer_nodes():
    game = loads((__import__("helpers").GAMES / "takeaway3.game").read_text())
    plain, tabled = paranoid(game, 0), paranoid(game, 0, table=True)
    assert answer(tabled) == answer(plain)
    assert tabled.stats.tt_hits > 0 and tabled.stats.nodes < plain.stats.nodes


# ---- one switch for every tree solver -----------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["expectiminimax", "star1", "star2"])
def test_solve_passes_the_table_switch(algorithm):
    game = loads(BOUNDED_PIGLET.replace("param horizon = 18", "param horizon = 8"))
    plain, tabled = solve(game, algorithm), solve(game, algorithm, table=True)
    assert answer(tabled)[:2] == answer(plain)[:2]
    assert tabled.stats.tt_probes > 0 and plain.stats.tt_probes == 0


def test_solve_maxn_with_a_table_turns_shallow_pruning_off():
    game = loads((__import__("helpers").GAMES / "takeaway3.game").read_text())
    tabled = solve(game, "maxn", table=True)
    assert tabled.stats.tt_probes > 0
    assert answer(tabled) == answer(solve(game, "maxn", shallow_pruning=False))


@pytest.mark.parametrize("algorithm", ["expectiminimax", "star1", "star2"])
def test_cli_tt_switches_the_table_of_every_tree_solver(algorithm, tmp_path, capsys):
    path = tmp_path / "piglet.game"
    path.write_text(BOUNDED_PIGLET.replace("param horizon = 18", "param horizon = 8"))
    documents = {}
    for switch in ("--tt", "--no-tt"):
        assert main(["solve", str(path), "--algorithm", algorithm, switch, "--json"]) == 0
        documents[switch] = json.loads(capsys.readouterr().out)
    assert documents["--tt"]["values"] == documents["--no-tt"]["values"]
    assert documents["--tt"]["stats"]["nodes"] < documents["--no-tt"]["stats"]["nodes"]


def test_cli_other_engine_switches_stay_alpha_beta_only(tmp_path, capsys):
    path = tmp_path / "piglet.game"
    path.write_text(BOUNDED_PIGLET.replace("param horizon = 18", "param horizon = 8"))
    assert main(["solve", str(path), "--algorithm", "star1", "--tt", "--killers"]) == 2
    assert "--killers" in capsys.readouterr().err
