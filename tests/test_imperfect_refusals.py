"""Every perfect-information solver refuses hidden information and simultaneous moves by name,
says why it is the wrong tool and which solver to use; ``solve`` picks that solver itself; games
without either declaration choose as before."""

from __future__ import annotations

from dataclasses import replace

import pytest
from imperfect_games import KuhnPoker, prisoners_dilemma, rock_paper_scissors

from gdl.graph import strong_solve
from gdl.protocol import GameInfo
from gdl.solvers import ALGORITHMS, choose, solve
from gdl.solvers.analysis import analyze_position
from gdl.solvers.result import SolverError
from gdl.solvers.simultaneous import solve_simultaneous

PERFECT_INFORMATION = ("minimax", "alphabeta", "expectiminimax", "star1", "star2", "maxn",
                       "paranoid")


@pytest.mark.parametrize("algorithm", PERFECT_INFORMATION)
def test_hidden_information_is_refused_by_name(algorithm):
    with pytest.raises(SolverError) as caught:
        solve(KuhnPoker(), algorithm)
    message = str(caught.value)
    assert "hidden information" in message and "wrong tool" in message
    assert "cards face up" in message
    assert "'sequence-form'" in message


@pytest.mark.parametrize("algorithm", PERFECT_INFORMATION)
def test_simultaneous_moves_are_refused_by_name(algorithm):
    with pytest.raises(SolverError) as caught:
        solve(rock_paper_scissors(), algorithm)
    message = str(caught.value)
    assert "simultaneous moves" in message and "wrong tool" in message
    assert "'simultaneous'" in message


def test_more_players_or_a_general_sum_are_sent_to_cfr():
    with pytest.raises(SolverError, match="'cfr'"):
        solve(KuhnPoker(3), "maxn")
    with pytest.raises(SolverError, match="'cfr'"):
        solve(prisoners_dilemma(), "alphabeta")


def test_the_strong_solver_and_the_analysis_refuse_too():
    with pytest.raises(SolverError, match=r"strong solve.*hidden information.*'sequence-form'"):
        strong_solve(KuhnPoker())
    with pytest.raises(SolverError, match=r"strong solve.*simultaneous moves.*'simultaneous'"):
        strong_solve(rock_paper_scissors())
    with pytest.raises(SolverError, match=r"analysis.*hidden information"):
        analyze_position(KuhnPoker())


def test_auto_chooses_from_the_game_info():
    base = GameInfo(name="g", players=("a", "b"), sum_kind="zero-sum")
    assert choose(replace(base, hidden=True)) == "sequence-form"
    assert choose(replace(base, hidden=True, simultaneous=True)) == "sequence-form"
    assert choose(replace(base, simultaneous=True)) == "simultaneous"
    assert choose(replace(base, simultaneous=True, sum_kind="general-sum")) == "cfr"
    three = GameInfo(name="g", players=("a", "b", "c"), sum_kind="zero-sum", hidden=True)
    assert choose(three) == "cfr"
    # nothing changes for games that declare neither
    assert choose(base) == "alphabeta"
    assert choose(replace(base, has_chance=True)) == "expectiminimax"
    assert choose(replace(three, hidden=False)) == "maxn"


def test_auto_solves_each_kind():
    assert solve(rock_paper_scissors()).algorithm == "simultaneous"
    assert solve(KuhnPoker(3), iterations=50).algorithm == "cfr"
    pytest.importorskip("highspy")
    assert solve(KuhnPoker()).algorithm == "sequence-form"


def test_the_cli_choices_stay_the_tree_searches():
    # the new solvers are known to solve() but not (yet) offered as --algorithm choices
    assert PERFECT_INFORMATION[:1] + ("alphabeta", "expectiminimax", "star1",
                                                    "star2", "maxn", "paranoid") == ALGORITHMS


def test_wrong_requests_are_refused_with_the_reason():
    with pytest.raises(SolverError, match="no depth limit"):
        solve(rock_paper_scissors(), "simultaneous", depth=2)
    with pytest.raises(SolverError, match=r"unknown algorithm.*sequence-form"):
        solve(rock_paper_scissors(), "sequence_form")
    with pytest.raises(SolverError, match=r"hidden information.*'sequence-form'"):
        solve_simultaneous(KuhnPoker())
    with pytest.raises(SolverError, match=r"3 players.*use 'cfr'"):
        solve(KuhnPoker(3), "simultaneous")
    with pytest.raises(SolverError, match=r"general-sum game.*use 'cfr'"):
        solve(prisoners_dilemma(), "simultaneous")
