"""CFR+, CFR (gdl.solvers.cfr) and outcome-sampling MCCFR (gdl.solvers.mccfr): approximate,
so the tests hold them to what can be proven of any strategy (|value - v| <= NashConv), to
published facts (Kuhn -1/18), to their bounds (exploitability under the issue's 10^-3 on
Leduc), and, where OpenSpiel is installed, to OpenSpiel's CFR and CFR+ run side by side on
OpenSpiel's own Kuhn poker: the same algorithm on the same game gives the same numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from imperfect_games import (
    KuhnPoker,
    LeducPoker,
    RevealAll,
    TwoStage,
    prisoners_dilemma,
    rock_paper_scissors,
)

from gdl.generators.trees import trees
from gdl.solvers import solve
from gdl.solvers.cfr import cfr, cfr_plus
from gdl.solvers.mccfr import outcome_sampling
from gdl.solvers.result import SolverError

KUHN = Fraction(-1, 18)


def test_cfr_plus_on_kuhn_approaches_minus_one_eighteenth():
    result = cfr_plus(KuhnPoker(), iterations=1000)
    check = result.exploitability
    assert result.iterations == 1000
    assert check.exploitability < Fraction(1, 1000)
    # For any strategies of a two-player zero-sum game, the value lies between what the second
    # player's best response leaves the first and the first's best response: so the first's
    # payoff is within NashConv of it.
    assert abs(check.values[0] - KUHN) <= check.nash_conv
    low, high = check.bounds()
    assert low <= KUHN <= high


def test_cfr_plus_stops_at_its_target_on_leduc():
    # The goal: exploitability 10^-3 on Leduc (its figure is measured in
    # benchmarks/imperfect.py, never asserted here).
    result = cfr_plus(LeducPoker(), iterations=3000, target=1e-3)
    assert result.iterations < 3000
    assert result.exploitability.exploitability <= Fraction(1, 1000)
    assert result.history[-1][0] == result.iterations


def test_exploitability_falls_with_iterations():
    figures = [cfr(KuhnPoker(3), iterations=n).exploitability.nash_conv for n in (10, 100, 1000)]
    assert figures[0] > figures[1] > figures[2]
    assert figures[2] < Fraction(1, 50)


def test_cfr_on_a_general_sum_game_finds_the_dominant_strategies():
    # Defecting dominates in the prisoner's dilemma: regret matching drives cooperation to 0.
    result = cfr(prisoners_dilemma(), iterations=2000)
    assert result.exploitability.nash_conv < Fraction(1, 100)
    for strategy in result.strategies:
        (probabilities,) = strategy.values()
        assert probabilities["D"] > 0.99


def test_simultaneous_moves_by_cfr_plus():
    # two stages, worth -13/47 (test_matrix derives it by hand)
    check = cfr_plus(TwoStage(), iterations=2000).exploitability
    assert check.exploitability < Fraction(1, 1000)
    assert abs(check.values[0] - Fraction(-13, 47)) <= check.nash_conv


@settings(max_examples=30, deadline=None)
@given(trees(chance=True, max_depth=4))
def test_games_that_hide_nothing_converge_to_the_perfect_information_value(game):
    value = solve(game, "expectiminimax").values[0]
    check = cfr_plus(RevealAll(game), iterations=300).exploitability
    assert abs(check.values[0] - value) <= check.nash_conv
    assert check.exploitability < Fraction(1, 20)


def test_solve_reports_iterations_and_exploitability():
    result = solve(KuhnPoker(), "cfr+", iterations=200)
    assert result.algorithm == "cfr+" and not result.proven
    assert result.extra["iterations"] == 200
    assert 0 < result.extra["exploitability"] < 0.01
    assert "approximate" in result.extra["note"]
    assert abs(result.values[0] - KUHN) < 0.02


def test_cfr_plus_needs_two_players_and_a_constant_sum():
    with pytest.raises(SolverError, match=r"3 players.*use 'cfr'"):
        cfr_plus(KuhnPoker(3))
    with pytest.raises(SolverError, match=r"general-sum game.*use 'cfr'"):
        cfr_plus(prisoners_dilemma())


# -- outcome sampling ---------------------------------------------------------------------------

def test_mccfr_on_kuhn_is_seeded_and_converges():
    a = outcome_sampling(KuhnPoker(), iterations=10_000, seed=7)
    b = outcome_sampling(KuhnPoker(), iterations=1_000, seed=7)
    c = outcome_sampling(KuhnPoker(), iterations=1_000, seed=7)
    d = outcome_sampling(KuhnPoker(), iterations=1_000, seed=8)
    assert b.strategies == c.strategies                  # deterministic for a seed
    assert b.strategies != d.strategies
    assert a.exploitability.exploitability < Fraction(1, 20)
    assert abs(a.exploitability.values[0] - KUHN) <= a.exploitability.nash_conv


def test_mccfr_on_simultaneous_moves():
    result = outcome_sampling(rock_paper_scissors(), iterations=20_000, seed=1)
    assert result.exploitability.exploitability < Fraction(1, 20)


def test_mccfr_says_when_the_game_is_too_big_to_check():
    result = outcome_sampling(KuhnPoker(), iterations=100, seed=1, max_histories=10)
    assert result.exploitability is None
    assert "too many to write out" in result.note
    assert result.infosets == 12


# -- side by side with OpenSpiel ---------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3])
def test_cfr_matches_openspiel_cfr_on_kuhn(players):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr as openspiel_cfr
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game("kuhn_poker", {"players": players})
    theirs = openspiel_cfr.CFRSolver(game)
    for _ in range(100):
        theirs.evaluate_and_update_policy()
    expected = exploitability.nash_conv(game, theirs.average_policy())
    ours = cfr(KuhnPoker(players), iterations=100).exploitability.nash_conv
    assert abs(float(ours) - expected) < 1e-9


def test_cfr_plus_matches_openspiel_cfr_plus_on_kuhn():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr as openspiel_cfr
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game("kuhn_poker")
    theirs = openspiel_cfr.CFRPlusSolver(game)
    for _ in range(100):
        theirs.evaluate_and_update_policy()
    expected = exploitability.exploitability(game, theirs.average_policy())
    ours = cfr_plus(KuhnPoker(), iterations=100).exploitability.exploitability
    assert abs(float(ours) - expected) < 1e-9


def test_long_work_reports_its_progress():
    # Goofspiel with 5 cards in a known order: (5!)^2 = 14,400 complete plays, more histories
    # still, so writing the game out passes 4,096 histories more than once; CFR's iterations
    # are reported every CHECK_EVERY (on Kuhn poker, which is quick to iterate)
    from pathlib import Path

    from gdl.backends.load import load
    from gdl.solvers.cfr import CHECK_EVERY
    from gdl.solvers.extensive import PROGRESS_EVERY, build

    games = Path(__file__).resolve().parent.parent / "games"
    game = load(games / "goofspiel.game", {"cards": 5, "shuffled": False}, "compile")
    walked: list = []
    build(game, progress=lambda what, n: walked.append((what, n)))
    assert walked[:2] == [("histories", PROGRESS_EVERY), ("histories", 2 * PROGRESS_EVERY)]
    seen: list = []
    solve(load(games / "kuhn.game"), "cfr", iterations=2 * CHECK_EVERY,
          progress=lambda what, n: seen.append((what, n)))
    assert [n for what, n in seen if what == "iterations"] == [CHECK_EVERY, 2 * CHECK_EVERY]
