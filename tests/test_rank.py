"""Ranked position tables (gdl/graph/rank.py, rank_solve.py, rank_solution.py, rank.c): the same
answers as the position graph, on bundled and generated games.

The references are the existing strong solve over the position graph (``ranked=False``: the
native walk and backward induction) and independent counts written here. Every comparison is
made at every position of the graph, or (best actions, which go through the protocol) at a
seeded sample of them."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from math import comb
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdl.backends.load import load, loads
from gdl.generators.rules import rule_games, transposition_games
from gdl.graph import rank, rank_solve, strong_solve
from gdl.graph.rank_solution import RankedSolution
from gdl.solvers.result import SolverError

GAMES = Path(__file__).resolve().parent.parent / "games"


def ranked_and_graph(game):
    ranked = strong_solve(game, ranked=True)
    assert isinstance(ranked, RankedSolution)
    return ranked, strong_solve(game, ranked=False)


# Past this many positions the position-by-position comparison (Python, a few tens of
# microseconds a position) takes a seeded sample of this size; the census still counts every
# position's value and remoteness on both sides.
EVERY_POSITION = 400_000


def assert_same(ranked, graph, sample: int = 300, seed: int = 7) -> None:
    """The census, and every position's value and remoteness (a sample of EVERY_POSITION of
    them in larger games); the class and best actions at the start and at ``sample``
    positions."""
    assert ranked.census() == graph.census()
    assert len(ranked.graph) == len(graph.graph)
    positions: Sequence[int] = range(len(graph.graph))       # position 0: the start
    if len(positions) > EVERY_POSITION:
        positions = [0] + sorted(random.Random(seed).sample(positions[1:], EVERY_POSITION))
    ids = []
    for position in positions:
        state = graph.graph.state(position)
        found = ranked.position_id(state)
        assert found is not None, state
        ids.append(found)
        assert ranked.value(found) == graph.value(position), state
        assert ranked.remoteness(found) == graph.remoteness(position), state
    rng = random.Random(seed)
    chosen = [0] + rng.sample(range(len(ids)), min(sample, len(ids)))
    for index in chosen:
        position = positions[index]
        assert ranked.value_class(ids[index]) == graph.value_class(position)
        assert ranked.best_actions(ids[index]) == graph.best_actions(position)
        assert ranked.graph.state(ids[index]) == graph.graph.state(position)


BUNDLED = [
    ("tictactoe.game", {}),                           # no tier declared: one is found
    ("connect4.game", {"columns": 4, "rows": 3}),
    ("connect4.game", {"columns": 4, "rows": 4}),
    ("connect4.game", {"columns": 5, "rows": 3}),
    ("nim.game", {}),                                 # when stuck lose; the mover varies in a tier
    ("chomp.game", {}),
    ("sim.game", {}),
]


@pytest.mark.parametrize("file, params", BUNDLED, ids=[f"{f}{p}" for f, p in BUNDLED])
def test_the_ranked_solve_gives_the_graph_solves_answers(file, params):
    # every game here has a tier that every move leaves: the ranked tables must take it (a
    # refusal fails the test rather than passing it vacuously)
    ranked, graph = ranked_and_graph(load(GAMES / file, params, "native"))
    assert_same(ranked, graph)


# Games the ranked tables do not take yet, and the reason they must give by name: chance moves
# (games where a move keeps its tier, cyclic ones included, are taken: tests/test_rank_cyclic.py).
CHANCE = "take no chance games"
REFUSED = [
    ("pig.game", CHANCE),
    ("cyclic/piglet.game", CHANCE),
    ("cyclic/piglet3.game", CHANCE),
    ("cyclic/standoff.game", CHANCE),
    ("cyclic/truel.game", CHANCE),
]


@pytest.mark.parametrize("file, reason", REFUSED, ids=[f for f, _ in REFUSED])
def test_games_the_ranked_tables_do_not_take_are_refused_by_name(file, reason):
    game = load(GAMES / file, None, "native")
    with pytest.raises(SolverError, match=f"the ranked tables do not apply: .*{reason}"):
        strong_solve(game, ranked=True)


def test_every_cyclic_game_is_in_the_refused_list():
    # a cyclic game added to games/cyclic must be looked at here or in test_rank_cyclic (pig100:
    # too big for a test)
    from test_rank_cyclic import CYCLIC

    listed = {f for f, _ in REFUSED} | {f for f, _ in CYCLIC} | {"cyclic/pig100.game"}
    assert {f"cyclic/{p.name}" for p in (GAMES / "cyclic").glob("*.game")} <= listed


def test_connect_four_is_ranked_by_columns_and_colours():
    # Independent count: a tier of t discs holds the ways to stack t discs in 4 columns of at
    # most 4 (compositions) times the ways to colour them with ceil(t/2) red ones, for each
    # value of the winner (3): the ranking the brief asks for, found from the rules.
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, "native")
    ranked = strong_solve(game, ranked=True)
    expected = {}
    for heights in itertools.product(range(5), repeat=4):
        t = sum(heights)
        expected[t] = expected.get(t, 0) + 3 * comb(t, (t + 1) // 2)
    assert {r.value: r.size for r in ranked.records} == expected
    assert sum(expected.values()) == 605_265
    assert ranked.census()["positions"] == 161_029       # FACTS.md (Tromp)
    kinds = sorted(c.description["kind"] for c in ranked.layout.components)
    assert kinds == ["cell", "stack", "stack", "stack", "stack"]      # the winner; 4 columns


def test_tictactoe_tiers_hold_one_slot_per_way_to_place_the_marks():
    # a tier of t marks: choose the cells of the ceil(t/2) X's and floor(t/2) O's (multinomial)
    game = load(GAMES / "tictactoe.game", None, "native")
    ranked = strong_solve(game, ranked=True)
    slots = sorted(r.size for r in ranked.records)
    expected = sorted(comb(9, t) * comb(t, (t + 1) // 2) for t in range(10))
    assert slots == expected and sum(expected) == 6046
    assert ranked.census()["positions"] == 5478             # FACTS.md


def test_rank_and_unrank_are_inverse_on_every_slot():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3}, "native")
    ranked = strong_solve(game, ranked=True)
    passes = ranked.passes
    for record in ranked.records:
        for r in range(record.size):
            state = passes.unrank(record.value, r)
            assert passes.rank(state) == (record.value, r)


def test_python_ranker_agrees_with_the_c_ranker():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, "native")
    ranked = strong_solve(game, ranked=True)
    ranker = rank.Ranker(ranked.layout, ranked.tables)
    rng = random.Random(3)
    for record in ranked.records:
        for r in rng.sample(range(record.size), min(200, record.size)):
            state = ranked.passes.unrank(record.value, r)
            assert ranker.target(state) == record.target
            assert ranker.rank(state, record.fixed, record.target) == r


def test_a_poor_sample_is_refined_and_gives_the_same_answers(monkeypatch):
    # with a sample of a dozen positions and no playout, the guessed layout holds things the
    # deeper positions break (a winner that never changes, cells that look fixed): the walk
    # meets them, the layout is made coarser, and the answers are the same
    monkeypatch.setattr(rank, "BFS_SAMPLE", 12)
    monkeypatch.setattr(rank, "PLAYOUTS", 1)
    monkeypatch.setattr(rank, "PLAYOUT_PLIES", 1)
    attempts = []
    real = rank.refine

    def counted(*args):
        attempts.append(1)
        return real(*args)

    monkeypatch.setattr(rank, "refine", counted)
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3}, "native")
    ranked, graph = ranked_and_graph(game)
    assert attempts, "the sample was meant to mislead the first layout"
    assert_same(ranked, graph)


def test_small_games_keep_the_position_graph_by_default():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, "native")
    assert not isinstance(strong_solve(game), RankedSolution)        # 161,029 < RANKED_MIN


def test_the_ranked_solve_stops_past_max_states():
    from gdl.graph import TooManyPositions

    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, "native")
    with pytest.raises(TooManyPositions):
        strong_solve(game, ranked=True, max_states=50_000)


def test_the_tables_files_go_with_the_solution(tmp_path):
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3}, "native")
    ranked = rank_solve.ranked_solve(game, directory=tmp_path)
    assert list(tmp_path.glob("ranked-*.codes"))
    directory = ranked.files.directory
    temporary = strong_solve(game, ranked=True)
    made = temporary.files.directory
    assert made.exists() and made != directory
    del temporary
    import gc

    gc.collect()
    assert not made.exists()                 # a temporary directory goes with its solution


# ---- generated games ------------------------------------------------------------------------

GENERATED = settings(max_examples=12, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))


@GENERATED
@given(st.one_of(rule_games(players=2, chance=False, sum_kinds=("zero-sum", "constant-sum")),
                 transposition_games()))
def test_generated_games_give_the_graph_solves_answers(rules):
    game = loads(rules.text, "generated.game", backend="native")
    if getattr(game, "native", None) is None:
        return                                  # no C compiler: nothing native to compare
    try:
        ranked = strong_solve(game, ranked=True)
    except SolverError as error:
        assert "ranked tables do not apply" in str(error)
        return
    assert_same(ranked, strong_solve(game, ranked=False), sample=50)


def test_generated_games_are_mostly_taken():
    # the property above would pass vacuously if no generated game were ranked
    taken: list[int] = []

    @settings(max_examples=8, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(transposition_games())
    def probe(rules):
        game = loads(rules.text, "generated.game", backend="native")
        try:
            strong_solve(game, ranked=True)
            taken.append(1)
        except SolverError:
            pass

    probe()
    assert len(taken) >= 4


# A state past a 63-bit key: the walks over keys do not take it, the ranked tables do (they rank
# a state from its cells). Six cells of a million values each, which no move changes, put the
# key past 2^120; the graph solve then walks through the protocol, an independent path.
WIDE = "var spare[6] in 0..999999 = 0    # never moved: only the key grows\n"


@pytest.mark.parametrize("file, params", [("tictactoe.game", {}),
                                          ("connect4.game", {"columns": 4, "rows": 3})],
                         ids=["tictactoe (tier found)", "connect4 4x3 (tier declared)"])
def test_states_past_a_63_bit_key_are_ranked(file, params):
    text = (GAMES / file).read_text()
    first_var = text.index("\nvar ") + 1
    game = loads(text[:first_var] + WIDE + text[first_var:], file, params, backend="native")
    expander = rank_solve.expander_of(game)
    assert not expander.keyed and expander.codec.positions > 2**120
    ranked, graph = ranked_and_graph(game)
    assert_same(ranked, graph)
