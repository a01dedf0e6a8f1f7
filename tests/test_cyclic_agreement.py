"""The strong solver (gdl.graph.strong_solve) against an independent oracle
(tests/oracle_cyclic.py) on games that can repeat a position: at every position the value
vector, the value class, the remoteness and the set of optimal actions, and the census, as
docs/graph.md defines them ("What the answers mean when a position can repeat").

First the oracle itself, against hand derivations and against its own second method; then the
smallest game showing each way a solver can go wrong here (a forced win called a draw, moves into
endless play dropped from the optimal set, a declared value of endless play ignored with chance);
then generated games (explicit graphs and rule files, with and without chance, with and without
`when endless`, through the interpreter and the native back end) and the bundled cyclic games.

Budgets are small by default (CI). For a long run on demand:

    GDL_CYCLIC_EXAMPLES=2000 pytest tests/test_cyclic_agreement.py

runs that many examples per generated property; benchmarks/fuzz_cyclic.py checks 10,000 games.
"""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
from helpers import GAMES
from hypothesis import HealthCheck, given, settings
from oracle_cyclic import (
    INF,
    bounds,
    deterministic_by_profiles,
    disagreements,
    explore,
    judge,
)

import gdl
from gdl.backends.native.build import compiler
from gdl.generators.cyclic import GeneratedGraph, cyclic_graphs, cyclic_rule_games
from gdl.generators.trees import trees
from gdl.graph import strong_solve
from gdl.protocol import CHANCE, TERMINAL

LARGE = int(os.environ.get("GDL_CYCLIC_EXAMPLES", "0") or 0)
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


def budget(examples: int) -> settings:
    """``examples`` in the ordinary suite, GDL_CYCLIC_EXAMPLES when that is set."""
    return settings(max_examples=LARGE or examples, deadline=None, database=None,
                    derandomize=not LARGE, suppress_health_check=list(HealthCheck))


def assert_agrees(game, label: str = "") -> None:
    problems = disagreements(game, strong_solve(game))
    assert not problems, "\n".join([f"{label or repr(game)}:", *problems[:12]]
                                   + ([f"... and {len(problems) - 12} more"]
                                      if len(problems) > 12 else []))


def graph(kinds, moves, payoff, weights=None, total=0, endless=None) -> GeneratedGraph:
    """An explicit game: ``kinds`` 0 / 1 / "?" (chance) / "end"; ``payoff`` by node."""
    codes = [CHANCE if k == "?" else TERMINAL if k == "end" else k for k in kinds]
    weights = weights or {}
    return GeneratedGraph(codes, moves, [weights.get(s, [1] * len(m) if codes[s] == CHANCE
                                                     else []) for s, m in enumerate(moves)],
                          [payoff.get(s, 0) for s in range(len(kinds))], total, endless)


# ---- the three smallest examples (derived by hand) -------------------------------------------------

# A forced win while the other side could keep play going for ever (no `when endless`):
#   0: P0 [end +1, 1]   1: P1 [0, 2]   2: P0 [end -1, 2 (itself)]
# lo(2) = -1 and hi(2) = +inf (P0 can stay at 2 for ever), so hi(1) = hi(0) = +inf; lo(0) = 1 = M:
# P0 forces the best end there is, so 0 is a win in 1 (docs: "the value is known ... where
# lo = M"). 1 and 2 are draws with the same range [-1, 1]; at 2 staying keeps that range (optimal),
# ending at -1 does not; at 1 going to 2 keeps it, going to 0 (a known win for P0) does not.
FORCED_WIN = graph([0, 1, 0, "end", "end"], [[3, 1], [0, 2], [4, 2], [], []], {3: 1, 4: -1})

# Moves into endless play, with `when endless draw` (worth 0):
#   0: P0 [1, 2]   1: P1 [3]   2: P1 [end 0, 4]   3: P0 [end 0]   4: P0 [4 (itself), end -1]
# 4: lo -1, hi +inf: the declared 0 is strictly inside, a draw worth 0 (staying is optimal).
# 2: lo = min(0, -1) = -1, hi = min(0, +inf) = 0: worth clamp(0, -1, 0) = 0, and 0 = hi, so P1
#    forces it: a tie (not a draw) whose optimal moves are both (end 0, and 4 worth 0); P1 hurries:
#    remoteness 1 + min(0, none) = 1.
# 3: a tie in 1; 1: a tie in 2 (its only move).
# 0: lo = max(0, -1) = 0 = hi: a tie; both moves are worth 0, so both are optimal, and the mover
#    hurries at a tie: remoteness 1 + min(2, 1) = 2 (through 2, whose value comes from endless
#    play being worth no more than the end P1 can force).
ENDLESS_MOVES = graph([0, 1, 1, 0, 0, "end", "end"],
                      [[1, 2], [3], [5, 4], [5], [4, 6], [], []], {5: 0, 6: -1},
                      endless=Fraction(0))

# A declared value of endless play in a chance game that may not stop, `when endless (1/2, -1/2)`:
#   0: P0 [1, 2, 4]   1: P1 [0]   2: ? [end +1, 0] (1/2 each)   3: end +1   4: P1 [4 (itself), end +1]
# P0 can go 0 -> 1 -> 0 for ever (worth 1/2), but tossing the coin until it ends the game is worth
# 1 with probability 1: value(0) = 1, value(1) = 1, value(2) = 1/2 + 1/2 value(0) = 1. At 4, P1
# keeps play going for ever rather than end at +1: value(4) = 1/2. Optimal at 0: moves 0 and 1
# (worth 1), not 2 (worth 1/2). Exact values, although some plays never end.
ENDLESS_CHANCE = graph([0, 1, "?", "end", 1], [[1, 2, 4], [0], [3, 0], [], [4, 3]], {3: 1},
                       endless=Fraction(1, 2))


def test_oracle_on_the_forced_win_by_hand():
    verdict = judge(FORCED_WIN)
    answers = [(e.value, e.value_class, e.remoteness, sorted(e.best))
               for e in map(verdict.at, range(3))]     # the states are the node numbers
    assert answers == [((1, -1), "win", 1, ["move(0)"]),
                           (None, "draw", -1, ["move(1)"]),
                           (None, "draw", -1, ["move(1)"])]
    assert verdict.census == {"positions": 5, "terminal": 2, "chance": 0, "decision": 3,
                              "edges": 6, "classes": {"win": 1, "lose": 0, "tie": 0, "draw": 2},
                              "remoteness": {1: 1}, "terminal_outcomes": {"1": 1, "-1": 1}}


def test_oracle_on_moves_into_endless_play_by_hand():
    verdict = judge(ENDLESS_MOVES)
    answers = [(e.value, e.value_class, e.remoteness, sorted(e.best))
               for e in map(verdict.at, range(5))]
    assert answers == [((0, 0), "tie", 2, ["move(0)", "move(1)"]),
                           ((0, 0), "tie", 2, ["move(0)"]),
                           ((0, 0), "tie", 1, ["move(0)", "move(1)"]),
                           ((0, 0), "tie", 1, ["move(0)"]),
                           ((0, 0), "draw", -1, ["move(0)"])]
    assert verdict.census["classes"] == {"win": 0, "lose": 0, "tie": 4, "draw": 1}
    assert verdict.census["remoteness"] == {1: 2, 2: 2}


def test_oracle_on_endless_play_with_chance_by_hand():
    verdict = judge(ENDLESS_CHANCE)
    half = Fraction(1, 2)
    assert [verdict.at(s).value for s in range(5)] == [(1, -1), (1, -1), (1, -1), (1, -1),
                                                       (half, -half)]
    assert sorted(verdict.at(0).best) == ["move(0)", "move(1)"]
    assert verdict.defined and verdict.stopping is False
    # Without the declaration endless play may be worth anything between the least and the
    # greatest end (docs/graph.md); with one end only (1) that is 1, so every position is too.
    undeclared = graph([0, 1, "?", "end", 1], [[1, 2, 4], [0], [3, 0], [], [4, 3]], {3: 1})
    verdict = judge(undeclared)
    assert verdict.defined and [verdict.at(s).value for s in range(5)] == [(1, -1)] * 5


def test_a_forced_win_is_not_a_draw_when_the_other_side_can_prolong_play():
    assert_agrees(FORCED_WIN, "the forced win")


def test_moves_into_endless_play_are_optimal_and_count_for_remoteness():
    assert_agrees(ENDLESS_MOVES, "moves into endless play")


def test_a_declared_endless_value_is_exact_with_chance():
    assert_agrees(ENDLESS_CHANCE, "endless play with chance")


# ---- the oracle's two methods agree, and it agrees with older brute forces -------------------------

@budget(40)
@given(cyclic_graphs(chance=False, endless=False))
def test_oracle_bounds_equal_the_profile_brute_force(game):
    # lo and hi by Jacobi sweeps of the cut game against max-min over positional strategies
    # with endless play worth -inf / +inf (positional strategies suffice for reachability)
    nodes, _ = explore(game)
    lo, hi = bounds(nodes)
    assert lo == deterministic_by_profiles(nodes, -INF)
    assert hi == deterministic_by_profiles(nodes, INF)


@budget(40)
@given(cyclic_graphs(chance=False, endless=True))
def test_oracle_values_with_endless_equal_the_profile_brute_force(game):
    verdict = judge(game)
    by_profiles = deterministic_by_profiles(verdict.nodes, verdict.endless)
    assert [e.value[0] for e in verdict.expected] == by_profiles


@budget(30)
@given(trees(players=2, chance=True, max_depth=3))
def test_oracle_equals_expectiminimax_on_trees_with_chance(game):
    # On a tree (no cycle, every play ends) the brute force over strategy profiles must give the
    # value of plain expectiminimax (the fuzzer's reference recursion), and the same optimal set.
    from gdl.tools.fuzz import oracle as tree_oracle

    verdict = judge(game)
    truth = tree_oracle(game)
    assert verdict.expected[0].value == truth.values
    if game.current_player(game.initial_state()) >= 0:
        assert verdict.expected[0].best == {game.action_name(a) for a in truth.best_actions}


def test_oracle_on_give_and_take_equals_the_older_brute_forces():
    # tests/test_graph.py and tests/test_endless.py value give and take by minimax with a horizon
    # (written separately); the oracle's lo, hi and declared-endless values must match them.
    from test_endless import GIVE_AND_TAKE, brute_force_values
    from test_graph import CUT, brute_force_bounds

    for tokens, share_at in [(3, 0), (4, 3), (5, 2)]:
        params = {"tokens": tokens, "share_at": share_at}
        game = gdl.load(GAMES / "cyclic" / "give-and-take.game", params)
        verdict = judge(game)
        older = brute_force_bounds(game, horizon=2 * len(verdict.nodes) + 2)
        for node, want in zip(verdict.nodes, verdict.expected):
            low, high = older[node.state]
            assert want.lo == (low if low > -CUT else -INF)
            assert want.hi == (high if high < CUT else INF)
        for endless in (0, 1, -1):
            rule = "draw" if endless == 0 else f"({endless}, {-endless})"
            declared = gdl.loads(GIVE_AND_TAKE + f"when endless {rule}\n", params=params)
            verdict = judge(declared)
            older = brute_force_values(declared, endless)
            assert {n.state: e.value[0] for n, e in zip(verdict.nodes, verdict.expected)} == older


@pytest.mark.parametrize("name, params, value", [
    # tests/test_graph.py derives these by hand: Piglet to 1 and 2, Pig to 2.
    ("cyclic/piglet.game", {"goal": 1}, Fraction(1, 3)),
    ("cyclic/piglet.game", {"goal": 2}, Fraction(1, 7)),
    ("cyclic/pig100.game", {"goal": 2}, Fraction(5, 7)),
])
def test_oracle_on_pig_and_piglet_by_hand(name, params, value):
    verdict = judge(gdl.load(GAMES / name, params))
    assert verdict.expected[0].value == (value, -value)
    assert verdict.stopping and verdict.defined


# ---- generated explicit graphs --------------------------------------------------------------------

@budget(150)
@given(cyclic_graphs(chance=False, endless=False))
def test_graphs_without_endless_value(game):
    assert_agrees(game)


@budget(150)
@given(cyclic_graphs(chance=False, endless=True))
def test_graphs_with_endless_value(game):
    assert_agrees(game)


@budget(40)
@given(cyclic_graphs(chance=True, stopping=True))
def test_graphs_with_chance_that_stop(game):
    assert_agrees(game)


@budget(40)
@given(cyclic_graphs(chance=True, endless=True))
def test_graphs_with_chance_that_may_not_stop_and_endless_value(game):
    assert_agrees(game)


@budget(40)
@given(cyclic_graphs(chance=True, endless=False))
def test_graphs_with_chance_that_may_not_stop_without_endless_value(game):
    # values defined where every play ends; elsewhere the answer must say it is not exact
    assert_agrees(game)


# ---- generated rule files: the front end and the back ends too ------------------------------------

@budget(25)
@given(cyclic_rule_games(chance=False))
def test_rule_files_without_chance(rules):
    assert_agrees(rules.game, rules.text)


@budget(15)
@given(cyclic_rule_games(chance=True))
def test_rule_files_with_chance(rules):
    assert_agrees(rules.game, rules.text)


@budget(12)
@given(cyclic_graphs(chance=None, max_deciders=4))
def test_graphs_as_rule_files(game):
    # the same graph written as a rule file: its positions are numbered differently (a chance
    # node is the state after the move into it) but the start's value must not change
    rules = game.load("interpret")
    assert_agrees(rules, game.text)
    start = judge(game).expected[0]
    assert judge(rules).expected[0].value == start.value


@needs_cc
@budget(4)
@given(cyclic_rule_games(chance=False))
def test_rule_files_on_the_native_back_end(rules):
    # the native walk (packed keys) gives the graph; the oracle reads the interpreted game
    native = rules.load("native")
    problems = disagreements(native, strong_solve(native), judge(rules.game))
    assert not problems, "\n".join([rules.text, *problems[:12]])


# ---- the bundled games that can repeat a position ------------------------------------------------

GIVE_AND_TAKE = (GAMES / "cyclic" / "give-and-take.game").read_text()
RING_CHASE = (GAMES / "cyclic" / "ring-chase.game").read_text()


@pytest.mark.parametrize("tokens, share_at", [(3, 0), (3, 3), (4, 3), (5, 2), (6, 3)])
@pytest.mark.parametrize("endless", [None, "draw", "(1, -1)", "(-1/2, 1/2)"])
def test_give_and_take(tokens, share_at, endless):
    text = GIVE_AND_TAKE + ("" if endless is None else f"when endless {endless}\n")
    game = gdl.loads(text, params={"tokens": tokens, "share_at": share_at})
    assert_agrees(game, f"give and take {tokens} {share_at} {endless}")


@pytest.mark.parametrize("cells", [3, 4, 5])
@pytest.mark.parametrize("declared", [True, False])
def test_ring_chase(cells, declared):
    text = RING_CHASE if declared else RING_CHASE.replace("when endless draw\n", "")
    assert_agrees(gdl.loads(text, params={"cells": cells}), f"ring chase {cells} {declared}")


@pytest.mark.parametrize("params", [{"tokens": 2, "share_at": 1, "rounds": 2},
                                    {"tokens": 3, "share_at": 2, "rounds": 2}])
def test_rounds(params):
    assert_agrees(gdl.load(GAMES / "cyclic" / "rounds.game", params), f"rounds {params}")


@pytest.mark.parametrize("name, params", [("cyclic/piglet.game", {"goal": 1}),
                                          ("cyclic/piglet.game", {"goal": 2}),
                                          ("cyclic/pig100.game", {"goal": 2})])
def test_pig_and_piglet(name, params):
    assert_agrees(gdl.load(GAMES / name, params), f"{name} {params}")


# ---- gdl fuzz on games that can repeat a position ------------------------------------------------
# gdl.tools.fuzz has its own reference for these games (it cannot import this oracle): it must
# say what the oracle says, and `gdl fuzz FILE` must check such a file instead of refusing it.

@budget(40)
@given(cyclic_graphs(chance=False))
def test_the_fuzzers_reference_agrees_with_the_oracle(game):
    from gdl.tools.fuzz import cyclic_reference

    reference = cyclic_reference(game)
    verdict = judge(game)
    for p, state in enumerate(reference.walk.states):
        want = verdict.at(state)
        value = reference.value[p]
        assert (None if value is None else value) == (None if want.value is None
                                                      else want.value[0]), state
        if reference.walk.player[p] >= 0:
            assert reference.draw[p] == (want.value_class == "draw"), state
            best = {game.action_name(a) for a, c in zip(reference.walk.actions[p],
                                                        reference.walk.children[p])
                    if reference.key[c] == reference.key[p]}
            assert best == want.best, state


@budget(25)
@given(cyclic_graphs(chance=True))
def test_the_fuzzers_reference_with_chance_agrees_with_the_oracle(game):
    from gdl.tools.fuzz import cyclic_reference

    reference = cyclic_reference(game)
    verdict = judge(game)
    if not verdict.chance:
        return
    assert reference.stopping == verdict.stopping
    assert reference.defined == verdict.defined
    for p, state in enumerate(reference.walk.states):
        want = verdict.at(state).value
        if want is not None:     # the depth-bounded searches bound the value
            assert reference.low[p] - 1e-9 <= float(want[0]) <= reference.high[p] + 1e-9


@pytest.mark.parametrize("name", ["give-and-take.game", "ring-chase.game", "rounds.game",
                                  "piglet.game"])
def test_gdl_fuzz_checks_a_bundled_cyclic_game_at_every_position(name, capsys, tmp_path):
    from gdl.cli import main

    path = GAMES / "cyclic" / name
    assert main(["fuzz", str(path), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    count = len(explore(gdl.load(path))[0])
    assert f"checked at every position ({count:,})" in out and "no disagreement" in out


def test_gdl_fuzz_refuses_what_it_cannot_check(capsys, tmp_path):
    from gdl.cli import main

    # Pig to 100 has two million positions: more than gdl fuzz checks one by one
    assert main(["fuzz", str(GAMES / "cyclic" / "pig100.game")]) == 2
    err = capsys.readouterr().err
    assert "more than 20,000" in err and "--set" in err and "Traceback" not in err
    # three players round a cycle: no solver of gdl values it
    path = tmp_path / "round.game"
    path.write_text('game "Round"\nplayers A, B, C\nvar x in 0..2 = 0\n'
                    "action go effect x = (x + 1) % 3\nterminal x == 2 and mover == A\n"
                    "utility A = 1\nutility B = 0\nutility C = 0\n")
    assert main(["fuzz", str(path)]) == 2
    err = capsys.readouterr().err
    assert "can go on forever" in err and "more than two players" in err


def test_gdl_fuzz_finds_a_planted_bug_in_a_cyclic_game(monkeypatch, capsys, tmp_path):
    # ring chase on 3 cells: the cat catches the mouse in 1 or 2 moves from every position; one
    # move more wherever it is 2 breaks remoteness's equations, the census and the database
    from gdl.cli import main
    from gdl.graph.solution import GraphSolution

    path = str(GAMES / "cyclic" / "ring-chase.game")
    command = ["fuzz", path, "--set", "cells=3", "--out", str(tmp_path)]
    assert main(command) == 0
    real = GraphSolution.remoteness
    monkeypatch.setattr(GraphSolution, "remoteness",
                        lambda self, p: real(self, p) + (real(self, p) >= 2))
    capsys.readouterr()
    assert main(command) == 1
    err = capsys.readouterr().err
    assert "[remoteness] graph: remoteness 3 after cat_step(2);" in err
    assert "[census] graph" in err and "[database] graph" in err
    assert f"reproduce: gdl fuzz {path} --examples 200 --seed 0 --set cells=3" in err
    (written,) = tmp_path.glob("*.game")
    text = written.read_text()
    assert text.startswith("# gdl fuzz counterexample")
    assert "# positions: every one (the game can repeat a position)" in text
