"""Alpha-beta's value-only fast path (``SearchOptions(optimal_set=False)``, `gdl solve
--no-optimal-set`): the same value as plain minimax, and one action from minimax's set of optimal
first moves, on generated trees and rule files with every combination of the engine's switches;
and fewer nodes than proving the whole set where the set has ties."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdl.backends.load import load, loads
from gdl.generators.rules import rule_games
from gdl.generators.trees import trees
from gdl.protocol import ZERO_SUM
from gdl.solvers import default_options, solve
from gdl.solvers.alphabeta import SearchOptions, alphabeta
from gdl.solvers.minimax import minimax

GAMES = Path(__file__).resolve().parent.parent / "games"

SWITCHES = st.builds(SearchOptions, tt=st.booleans(), ordering=st.booleans(),
                     killers=st.booleans(), history=st.booleans(), pvs=st.booleans(),
                     tt_size=st.sampled_from([2, 8, 1 << 10]), optimal_set=st.just(False))


def agrees_with_minimax(game, options):
    fast = alphabeta(game, options=options)
    exact = minimax(game)
    assert fast.values == exact.values
    if not exact.best_actions:              # the game is over at the root
        assert fast.best_actions == fast.pv == ()
        return
    assert len(fast.best_actions) == 1 and fast.best_actions[0] in exact.best_actions
    assert fast.pv[:1] == fast.best_actions
    assert fast.extra["optimal_set"] is False
    # the whole set, with the same switches, is minimax's
    assert alphabeta(game, options=replace(options, optimal_set=True)).best_actions \
        == exact.best_actions


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(players=2, max_depth=5, max_branching=3), SWITCHES)
def test_generated_trees(game, options):
    agrees_with_minimax(game, options)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_games(players=2, chance=False, sum_kinds=(ZERO_SUM, "constant-sum"), max_nodes=200),
       SWITCHES)
def test_generated_rule_files(generated, options):
    agrees_with_minimax(loads(generated.text, "generated.game", backend="compile"), options)


def test_connect_four_4x4_value_alone_in_fewer_nodes():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, backend="compile")
    whole = solve(game, "alphabeta")
    alone = solve(game, "alphabeta", options=replace(default_options(), optimal_set=False))
    assert alone.values == whole.values == (0, 0)           # FACTS.md: 4 x 4 is a draw
    assert len(whole.best_actions) > 1                      # ties, each proven to reach 0 ...
    assert alone.best_actions[0] in whole.best_actions
    assert alone.stats.nodes < whole.stats.nodes            # ... which the value alone skips
