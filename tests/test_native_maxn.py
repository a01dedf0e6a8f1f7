"""max^n in the native tier (gdl/backends/native/search.c, gdl.tools.native_solve): the same
vector, optimal root set, principal variation, root action values and node, leaf and cut-off
counts as gdl.solvers.maxn, with and without Korf's shallow pruning.

The oracles are the interpreted tier (an independent implementation of the rules and of max^n)
and, for take-away, the game's arithmetic worked out in the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.cli import main
from gdl.generators.rules import rule_games
from gdl.solvers import shallow_pruning_applies, solve
from gdl.tools.native_solve import native_rules, solve_native

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


def same(native, python):
    assert native is not None and native.extra["backend"] == "native"
    assert native.values == python.values
    assert native.best_actions == python.best_actions
    assert native.pv == python.pv
    assert native.stats == python.stats              # nodes, leaves and cut-offs
    assert native.proven == python.proven
    assert native.extra.get("action_values") == python.extra.get("action_values")


@needs_cc
@pytest.mark.parametrize("counters", [4, 10, 14])
def test_three_player_takeaway_with_shallow_pruning(counters):
    game = load(GAMES / "takeaway3.game", {"counters": counters}, backend="native")
    assert native_rules(game) is not None, game.native_note
    assert shallow_pruning_applies(game.info)
    found = solve_native(game, "maxn")
    same(found, solve(load(GAMES / "takeaway3.game", {"counters": counters},
                           backend="interpret"), "maxn"))
    # By hand, 4 counters, A to move. take(1) leaves 3 to B: B takes 1 (C takes the last 2) or
    # 2 (C takes the last 1), so C wins: (0, 0, 1). take(2) leaves 2 to B, who takes both and
    # wins: (0, 1, 0). A gets 0 either way: both are optimal, and the first, take(1), is kept.
    if counters == 4:
        assert found.values == (0, 0, 1) and found.best_actions == (0, 1)
    assert found.stats.cutoffs > 0                 # the pruning did prune


@needs_cc
def test_tictactoe_maxn_is_minimax_node_for_node():
    game = load(GAMES / "tictactoe.game", backend="native")
    found = solve_native(game, "maxn")
    assert found.values == (0, 0) and found.best_actions == tuple(range(9))   # FACTS
    assert found.stats.nodes == 549_946 and found.stats.leaves == 255_168      # FACTS
    assert found.stats.cutoffs == 0


@needs_cc
def test_depth_limited_from_a_position():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, backend="native")
    root = game.apply(game.apply(game.initial_state(), 1), 2)
    same(solve_native(game, "maxn", depth=3, root_state=root),
         solve(load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, backend="interpret"),
               "maxn", depth=3, root_state=root))


@needs_cc
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=(2, 3), chance=False))
def test_generated_games(rules):
    game = loads(rules.text, "<generated>", backend="native")
    assert native_rules(game) is not None, game.native_note
    depth = 2 if game.info.has_evaluate else None
    found = solve_native(game, "maxn", depth=depth)
    python = solve(loads(rules.text, "<generated>", backend="interpret"), "maxn", depth=depth)
    if found is None:
        # Only where a rule's value is a fraction (`/`): the C tier has integer rule values.
        assert "/" in rules.text
        return
    same(found, python)


@needs_cc
def test_the_cli_solves_takeaway_natively(capsys):
    assert main(["solve", str(GAMES / "takeaway3.game"), "--set", "counters=4"]) == 0
    out = capsys.readouterr().out
    assert "maxn" in out and "A 0, B 0, C 1" in out
