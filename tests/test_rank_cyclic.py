"""Ranked tables on games whose moves may stay inside their tier (positions can repeat):
gdl/graph/rank_solve.py's pairs and rank.c's sweeps (docs/graph.md, "Ranked tables").

Expected values come from two solvers that share nothing with the ranked passes: the plain
position graph's retrograde analysis (``strong_solve(game, ranked=False)``: numpy attractors
with child counters and reversed edges, gdl/graph/retrograde.py), compared at EVERY position
(value, class, remoteness and optimal actions), and, on generated games, the brute-force oracle
of tests/oracle_cyclic.py (strategy profiles and Jacobi sweeps written in the test suite)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from oracle_cyclic import disagreements

from gdl.backends.load import load, loads
from gdl.generators.cyclic import cyclic_graphs, cyclic_rule_games
from gdl.graph import rank_solve, strong_solve
from gdl.graph.database import open_database, save
from gdl.graph.rank_solution import RankedSolution
from gdl.graph.solution import TwoPlayerValues

GAMES = Path(__file__).resolve().parent.parent / "games"


def differences(ranked, graph) -> list[str]:
    """Every position of the graph solve where the ranked solve answers otherwise: value,
    class, remoteness, optimal actions; and the census."""
    problems = []
    if ranked.census() != graph.census():
        problems.append(f"census {ranked.census()} != {graph.census()}")
    if len(ranked.graph) != len(graph.graph):
        problems.append(f"{len(ranked.graph)} positions != {len(graph.graph)}")
    for position in range(len(graph.graph)):
        state = graph.graph.state(position)
        found = ranked.position_id(state)
        if found is None:
            problems.append(f"{state}: missing")
            continue
        for what in ("value", "value_class", "remoteness", "best_actions"):
            mine, theirs = getattr(ranked, what)(found), getattr(graph, what)(position)
            if mine != theirs:
                problems.append(f"{state}: {what} {mine!r} != {theirs!r}")
    return problems


def ranked_and_graph(game):
    ranked = strong_solve(game, ranked=True)
    # the ranked tables must take these games: a refusal is a SolverError, failing the test
    assert isinstance(ranked, RankedSolution)
    return ranked, strong_solve(game, ranked=False)


# Every two-player constant-sum game without chance in games/cyclic (the others: chance or
# three players, refused by name in tests/test_rank.py), with the parameters that change its
# answers; hexapawn has no cycle, but the tier found for it is not left by every move.
CYCLIC = [
    ("cyclic/give-and-take.game", {}),                     # draws without a value
    ("cyclic/give-and-take.game", {"tokens": 8, "share_at": 5}),
    ("cyclic/mu-torere.game", {}),                         # when endless draw
    ("cyclic/mu-torere.game", {"centre_rule_moves": 0}),
    ("cyclic/ring-chase.game", {"cells": 7}),
    ("cyclic/rook-ending.game", {}),
    ("cyclic/rook-ending.game", {"queen": True}),
    # the tier found from a sample is wrong here (a cell seen only growing shrinks later):
    # the whole game becomes one tier (test below)
    ("cyclic/rook-ending.game", {"size": 5}),
    ("cyclic/rounds.game", {}),                            # a declared tier, cycles in each
    ("cyclic/three-mens-morris.game", {}),
    ("cyclic/three-mens-morris.game", {"bar_centre": True}),
    ("hexapawn.game", {}),
]


@pytest.mark.parametrize("file, params", CYCLIC, ids=[f"{f}{p}" for f, p in CYCLIC])
def test_every_position_as_the_position_graphs_retrograde_analysis(file, params):
    ranked, graph = ranked_and_graph(load(GAMES / file, params, "native"))
    assert not differences(ranked, graph)


def test_a_tier_found_wrong_from_the_sample_becomes_one_tier():
    game = load(GAMES / "cyclic" / "rook-ending.game", {"size": 5}, "native")
    expander = rank_solve.expander_of(game)
    root = expander.codec.encode(tuple(game.initial_state()))
    assert rank_solve._inferred_tier(expander, root) != ((), ())
    ranked = strong_solve(game, ranked=True)
    assert ranked.tier == ((), ()) and len(ranked.records) == 1


GIVE_AND_TAKE = (GAMES / "cyclic" / "give-and-take.game").read_text()


@pytest.mark.parametrize("rule", ["draw", "(1, -1)", "(-1, 1)", "(1/2, -1/2)", "(1/3, -1/3)"])
def test_when_endless_values_every_position_as_the_graph(rule):
    # what endless play is worth: a draw's value clamped to [lo, hi], the class draw only
    # strictly inside (1/3: a scale of 3 on the scores)
    game = loads(GIVE_AND_TAKE + f"when endless {rule}\n", "<give-and-take>", backend="native")
    ranked, graph = ranked_and_graph(game)
    assert not differences(ranked, graph)


def test_a_planted_bug_is_caught(monkeypatch):
    # the pairs valued as if every draw's endless play were worth the least end: give-and-take
    # has draws without a value, which then get one, and the comparison must say so
    game = load(GAMES / "cyclic" / "give-and-take.game", None, "native")
    graph = strong_solve(game, ranked=False)
    real = rank_solve._pairs

    def planted(table, game):
        values, low, high = real(table, game)
        wrong = TwoPlayerValues(values.lower, values.upper, values.remoteness, values.scale,
                                values.total, endless=None, ends=None)
        return wrong, low, high

    monkeypatch.setattr(rank_solve, "_pairs", planted)
    assert differences(strong_solve(game, ranked=True), graph)


def test_a_remoteness_off_by_one_in_the_tables_is_caught(tmp_path):
    # one code in a tier's file changed to the next remoteness: the comparison must see it
    game = load(GAMES / "cyclic" / "three-mens-morris.game", None, "native")
    ranked, graph = ranked_and_graph(game)
    record = ranked.records[-1]
    path = ranked.files.path(record.value, "codes")
    codes = np.fromfile(path, dtype=ranked.dtype)
    slot = int(np.flatnonzero((codes > 0) & ((codes - 1) % ranked.M > 0)
                              & ((codes - 1) % ranked.M < ranked.M - 2))[0])
    codes[slot] += 1
    ranked._maps.clear()
    codes.tofile(path)
    assert differences(ranked, graph)


def test_the_database_answers_as_format_one(tmp_path):
    # format 2 with pairs: a draw without a value is (None, -1), as format 1 stores it
    game = load(GAMES / "cyclic" / "give-and-take.game", None, "native")
    ranked, graph = ranked_and_graph(game)
    binding = {"sha256": "0" * 64, "params": {}}
    save(ranked, tmp_path / "ranked.db", binding)
    save(graph, tmp_path / "graph.db", binding)
    two, one = open_database(tmp_path / "ranked.db"), open_database(tmp_path / "graph.db")
    values = set()
    for position in range(len(graph.graph)):
        state = graph.graph.state(position)
        assert two.lookup(state) == one.lookup(state), state
        values.add(one.lookup(state).values)
    assert None in values          # the comparison met draws without a value


# Each example builds a native library: a dozen here, more with GDL_HYPOTHESIS_PROFILE=fuzz
# through the general generated-game suites (tests/test_graph.py, tests/test_cyclic_agreement.py).
GENERATED = settings(max_examples=12, deadline=None, database=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))


def assert_ranked_agrees(game, label: str) -> None:
    try:
        ranked = strong_solve(game, ranked=True)
    except Exception as error:
        # only the refusals that name a reason outside this extension may pass
        assert "no native" in str(error) or "not a whole number" in str(error), str(error)
        return
    assert isinstance(ranked, RankedSolution)
    problems = differences(ranked, strong_solve(game, ranked=False))
    problems += disagreements(game, ranked)
    assert not problems, "\n".join([label, *problems[:12]])


@GENERATED
@given(cyclic_rule_games(chance=False))
def test_generated_rule_files(rules):
    assert_ranked_agrees(rules.load("native"), rules.text)


@GENERATED
@given(cyclic_graphs(chance=False))
def test_generated_graphs(game):
    assert_ranked_agrees(game.load("native"), game.text)


@pytest.mark.parametrize("per_position, ranked", [(1 << 40, True), (0, False)])
def test_sweeps_only_where_the_position_graph_would_not_fit(monkeypatch, per_position, ranked):
    # Left to itself (ranked=None), the strong solve takes the sweeps for a game whose
    # positions repeat inside a tier only where the position graph would pass the memory
    # budget (here made to, or not, by what a position of the graph is taken to cost); the
    # threshold of positions is lowered so that a small game asks the question.
    import gdl.graph

    monkeypatch.setattr(gdl.graph, "RANKED_MIN", 10)
    monkeypatch.setattr(rank_solve, "GRAPH_BYTES_A_POSITION", per_position)
    monkeypatch.setattr(rank_solve, "GRAPH_BYTES_A_MOVE", 0)
    game = load(GAMES / "cyclic" / "give-and-take.game", backend="native")
    solution = strong_solve(game)
    assert isinstance(solution, RankedSolution) == ranked
