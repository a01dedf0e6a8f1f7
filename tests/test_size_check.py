"""The size check before `gdl solve` (gdl/cli/deep.py solve_size_check, gdl/solvers/size.py).

It decided with a measured cost per node, so the same command on a busy machine was refused on
one run and searched on the next (Pig to depth 12: two refusals in four runs), and its model of
pruning was far off (Star2 on Pig with a six-sided die to depth 12: 6.0e7 nodes estimated, 5.0e9
visited). Now every figure is counted or drawn from seeded playouts, a depth-limited search is
measured by running it shallower, and the result says how far off the estimate was.

Expected counts come from outside the estimate: tic-tac-toe's 549,946 minimax nodes (FACTS.md),
and Pig's expectiminimax tree counted here by a recursion written for the test (decision plies
count, a chance node met with no depth left is a leaf: OpenSpiel's convention, FACTS.md), which
agrees with the searches' own counts.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from helpers import GAMES

import gdl
import gdl.cli.deep as deep
import gdl.tools.validate as validate
from gdl.cli import main
from gdl.protocol import CHANCE, TERMINAL
from gdl.solvers.size import extrapolate, probe

PIG = str(GAMES / "pig.game")
TICTACTOE = str(GAMES / "tictactoe.game")


def run(capsys, *argv):
    code = main(["solve", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def solve_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out), err


@pytest.fixture
def no_clock(monkeypatch):
    """The size check must not time anything: measuring a node's cost is what made it
    nondeterministic."""
    def refuse(*args, **kwargs):
        raise AssertionError("the size check measured time")

    monkeypatch.setattr(validate, "measure_node_seconds", refuse)


# ---- the same command, the same decision --------------------------------------------------------

def test_the_refusal_is_the_same_on_every_run_and_times_nothing(capsys, no_clock):
    # Star2 on Pig with a six-sided die, to depth 14: over an hour at the nominal cost.
    runs = [run(capsys, PIG, "--set", "sides=6", "--depth", "14") for _ in range(3)]
    assert {code for code, _, _ in runs} == {2}
    assert len({err for _, _, err in runs}) == 1
    err = runs[0][2]
    assert "refusing to search: star2 would visit about" in err and "--force" in err
    assert "extrapolated" in err and "nominal" in err and "try --depth" in err


def test_the_warning_is_the_same_on_every_run(capsys, no_clock):
    # Over the budget of 1e8 nodes, under the hour: a warning before the search, identical each
    # time. (--strict turns it into a refusal, so the search itself does not run here.)
    runs = [run(capsys, PIG, "--set", "sides=6", "--depth", "12", "--strict") for _ in range(3)]
    assert {code for code, _, _ in runs} == {2}
    assert len({err for _, _, err in runs}) == 1 and "star2 would visit about" in runs[0][2]


def test_the_estimate_and_its_report_are_the_same_on_every_run(capsys, no_clock):
    documents = [solve_json(capsys, PIG, "--depth", "10")[0] for _ in range(3)]
    estimates = [d["estimate"] for d in documents]
    assert estimates[0] == estimates[1] == estimates[2]
    nodes = documents[0]["stats"]["nodes"]
    assert estimates[0]["visited_over_estimate"] == float(f"{nodes / estimates[0]['nodes']:.3g}")


def test_both_tiers_make_the_same_decision(capsys, no_clock):
    # The Python tier's probe is smaller (it is slower), so its estimate may differ a little,
    # but it is counted too: the same on every run.
    native = [run(capsys, PIG, "--set", "sides=6", "--depth", "14")[2] for _ in range(2)]
    python = [run(capsys, PIG, "--set", "sides=6", "--depth", "14", "--backend", "compile")[2]
              for _ in range(2)]
    assert native[0] == native[1] and python[0] == python[1]
    assert "refusing to search" in native[0] and "refusing to search" in python[0]
    assert "in the python tier" in python[0] and "in the native tier" in native[0]


# ---- how close the estimates are -----------------------------------------------------------------

def test_playouts_estimate_tictactoe_minimax_within_a_factor_of_two(capsys):
    # FACTS: plain minimax visits 549,946 nodes. The stated factor for the playouts' estimate
    # of a whole tree (no pruning model): 2.
    document, _ = solve_json(capsys, TICTACTOE, "--algorithm", "minimax")
    assert document["stats"]["nodes"] == 549_946
    estimate = document["estimate"]
    assert "playouts" in estimate["from"]
    assert 0.5 <= 549_946 / estimate["nodes"] <= 2


@cache
def pig_tree(state, depth_left: int, game) -> int:
    """Nodes of Pig's depth-limited expectiminimax tree below ``state``: a decision consumes a
    ply, a chance node does not, and anything with no depth left is a leaf."""
    player = game.current_player(state)
    if player == TERMINAL or depth_left <= 0:
        return 1
    if player == CHANCE:
        return 1 + sum(pig_tree(game.apply(state, outcome), depth_left, game)
                       for outcome, _ in game.chance_outcomes(state))
    return 1 + sum(pig_tree(game.apply(state, action), depth_left - 1, game)
                   for action in game.legal_actions(state))


def test_the_probe_extrapolates_pigs_tree_within_ten_percent(capsys, monkeypatch):
    game = gdl.load(PIG)
    truth = pig_tree(game.initial_state(), 9, game)
    # the searches agree with the independent count at every depth they were run to
    document, _ = solve_json(capsys, PIG, "--depth", "9", "--algorithm", "expectiminimax")
    assert document["stats"]["nodes"] == truth
    # A probe of at most 3,000 nodes runs depths 1-5 (938 nodes at depth 5; depth 6 would be
    # about 4x that) and extrapolates four plies. The stated factor for the probe: 1.1 on a
    # game this regular.
    monkeypatch.setitem(deep.PROBE_NODES, "native", 3_000)
    monkeypatch.setitem(deep.PROBE_NODES, "python", 3_000)
    monkeypatch.setattr(validate, "BUDGET", 1)      # so that every estimate is reported
    document, err = solve_json(capsys, PIG, "--depth", "9", "--algorithm", "expectiminimax")
    estimate = document["estimate"]
    assert "depths 1-5" in estimate["from"] and "extrapolated" in estimate["from"]
    assert 1 / 1.1 <= truth / estimate["nodes"] <= 1.1, (truth, estimate)
    assert "warning: expectiminimax would visit" in err


def test_the_probe_measures_star2s_pruning_on_pig_within_ten_percent(capsys):
    # The playouts' model took Star2 to keep n^0.75 of the n nodes at each depth: 16x too few
    # here. The probe runs the search itself to depth 10 (570,499 nodes) and extrapolates.
    document, _ = solve_json(capsys, PIG, "--depth", "12")
    assert document["algorithm"] == "star2"
    estimate = document["estimate"]
    assert "extrapolated" in estimate["from"]
    assert 1 / 1.1 <= estimate["visited_over_estimate"] <= 1.1
    est = validate.estimate(gdl.load(PIG), declared_states=deep.declared_state_bound(gdl.load(PIG)))
    model = validate.search_cost(est, "star2", 12)[0]
    assert document["stats"]["nodes"] / model > 10        # what the old estimate said


def test_the_stats_line_reports_the_estimate(capsys):
    code, out, _ = run(capsys, TICTACTOE, "--algorithm", "minimax")
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("  estimate "))
    assert "playouts" in line and "the search visited" in line


def test_a_budget_makes_no_estimate(capsys):
    document, _ = solve_json(capsys, TICTACTOE, "--nodes", "100000")
    assert "estimate" not in document


# ---- the extrapolation itself ----------------------------------------------------------------

def test_extrapolation_of_a_uniform_tree_is_within_five_percent():
    # A uniform tree of branching 3: 1 + 3 + ... + 3^d nodes to depth d.
    def nodes(d: int) -> int:
        return sum(3 ** i for i in range(d + 1))

    found = probe(nodes, 12, budget=1_000)
    assert found.counts == tuple(nodes(d) for d in range(1, 6))     # depth 6 (1,093) would not fit
    assert not found.exact
    assert 1 / 1.05 <= nodes(12) / found.nodes <= 1.05


def test_extrapolation_over_two_plies_follows_alpha_betas_odd_and_even_depths():
    # Knuth and Moore: with perfect ordering, b^ceil(d/2) + b^floor(d/2) - 1 leaves (b = 4):
    # the count grows by b every two plies, unevenly ply by ply.
    def leaves(d: int) -> int:
        return 4 ** ((d + 1) // 2) + 4 ** (d // 2) - 1

    counts = tuple(leaves(d) for d in range(1, 9))
    for target in (10, 12):
        assert 1 / 1.1 <= leaves(target) / extrapolate(counts, target)[0] <= 1.1


def test_a_probe_that_reaches_the_depth_is_exact():
    found = probe(lambda d: 10 * d, 4, budget=1_000_000)
    assert found.exact and found.nodes == 40 and "run in full" in found.describe()
