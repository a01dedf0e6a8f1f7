"""The one-graph solve of a chance game with cycles through the C (gdl.graph.iteration's
``native_exact``: the C's components, cuts and float guess, then the exact check along its
order, gdl.graph.exact_cut) against independent answers: a brute force over every pair of
stationary strategies on generated graphs, and the general exact check of the Python path
(Fraction arithmetic, its own depth-first cut and Gauss-Jordan elimination) on Pig and Piglet.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from graph_games import GraphGame, evaluate_exactly
from hypothesis import given, settings
from hypothesis import strategies as st

from gdl.backends.load import load
from gdl.graph import enumerate_positions, iteration, strong_solve
from gdl.graph.exact_cut import fraction
from gdl.graph.induction import centred_terminals
from gdl.graph.tiers import byte_passes
from gdl.protocol import CHANCE, TERMINAL

GAMES = Path(__file__).resolve().parent.parent / "games"
PIG = GAMES / "cyclic" / "pig100.game"
PIGLET = GAMES / "cyclic" / "piglet.game"


@pytest.fixture(scope="module")
def passes():
    """The C passes over a graph's arrays: they read no rules, so any chance game's do."""
    found = byte_passes(load(PIGLET, {"goal": 2}, "native"))
    if found is None:
        pytest.skip("no native rules (no C compiler)")
    return found


@st.composite
def stopping_graphs(draw):
    """Small graphs with cycles in which every play ends with probability 1: a decision leads
    to chance nodes only, and every chance node has an outcome that ends the game."""
    deciders = draw(st.integers(1, 4))
    chances = draw(st.integers(1, 3))
    terminals = draw(st.integers(1, 2))
    kinds = [draw(st.integers(0, 1)) for _ in range(deciders)] + [CHANCE] * chances \
        + [TERMINAL] * terminals
    chance_ids = list(range(deciders, deciders + chances))
    terminal_ids = list(range(deciders + chances, len(kinds)))
    inner = list(range(deciders + chances))
    moves, payoff = [], {}
    for s, kind in enumerate(kinds):
        if kind == TERMINAL:
            payoff[s] = draw(st.integers(-2, 2))
            moves.append([])
        elif kind == CHANCE:
            targets = [draw(st.sampled_from(terminal_ids))] + draw(
                st.lists(st.sampled_from(inner), min_size=1, max_size=3))
            weights = [draw(st.integers(1, 3)) for _ in targets]
            moves.append([(t, Fraction(w, sum(weights))) for t, w in zip(targets, weights)])
        else:
            moves.append(draw(st.lists(st.sampled_from(chance_ids), min_size=1, max_size=3,
                                       unique=True)))
    return GraphGame(kinds, moves, payoff)


def brute_force(game, states):
    """max over player 0's stationary strategies of min over player 1's, state by state (a
    stopping perfect-information stochastic game has optimal pure stationary strategies, the
    same from every state)."""
    def options(player):
        return [[(s, t) for t in game.moves[s]] for s in states
                if game.current_player(s) == player]

    best: dict = {}
    for a in itertools.product(*options(0)):
        worst: dict = {}
        for b in itertools.product(*options(1)):
            values = evaluate_exactly(game, states, dict(a + b))
            worst = {s: min(worst.get(s, values[s]), values[s]) for s in states}
        best = {s: max(best.get(s, worst[s]), worst[s]) for s in states}
    return best


def solve_natively(graph, passes):
    solution = iteration.solve_stochastic(graph, 0, native=passes)
    assert solution.exact
    return solution


@settings(max_examples=40)
@given(stopping_graphs())
def test_generated_stopping_graphs_equal_the_brute_force(passes, game):
    graph = enumerate_positions(game)
    states = [graph.state(p) for p in range(len(graph))]
    expected = brute_force(game, states)
    for max_cut in (iteration.GUESS_MAX_CUT, 0):   # 0: every cycle iterated plainly in the C,
        saved = iteration.GUESS_MAX_CUT            # each such component checked the general way
        iteration.GUESS_MAX_CUT = max_cut
        try:
            solution = solve_natively(graph, passes)
        finally:
            iteration.GUESS_MAX_CUT = saved
        for position, state in enumerate(states):
            assert solution.value(position)[0] == expected[state], (max_cut, state)


def test_a_cut_of_two_goes_the_general_way_and_is_right(passes):
    # d0 (player 0) -> c0; c0 -> end (1/2) or d1; d1 (player 1) -> c1 or c2;
    # c1 -> end, d0 or d1 (1/3 each); c2 -> the other end or d0 (1/2 each). The search from d0
    # (where play enters) meets d0 and d1 again while they are on its path: a cut of two.
    win, loss = 5, 6
    kinds = [0, CHANCE, 1, CHANCE, CHANCE, TERMINAL, TERMINAL]
    third, half = Fraction(1, 3), Fraction(1, 2)
    moves = [[1], [(win, half), (2, half)], [3, 4], [(win, third), (0, third), (2, third)],
             [(loss, half), (0, half)], [], []]
    game = GraphGame(kinds, moves, {win: 1, loss: -1})
    graph = enumerate_positions(game)
    centred, scale = centred_terminals(graph, 0)
    weight = np.zeros(graph.edges)
    chance = graph.probability_index >= 0
    weight[chance] = [float(graph.probabilities[i]) for i in graph.probability_index[chance]]
    found = passes.graph_guess(graph.player, graph.first, graph.child, weight,
                               centred / scale, (8, 30, 1e-13, 10_000))
    assert found.cuts.tolist() == [2]
    states = [graph.state(p) for p in range(len(graph))]
    expected = brute_force(game, states)
    solution = solve_natively(graph, passes)
    for position, state in enumerate(states):
        assert solution.value(position)[0] == expected[state]
    # by hand: with d1 choosing c2, d0 = 1/2 + 1/2 (1/2 (-1) + 1/2 d0), so d0 = 1/3; d1 = -1/3
    # (choosing c1 instead gives d1 = (1 + d0 + d1) / 3, d1 = 2/3: worse for player 1)
    assert solution.value(graph.position_id(0))[0] == Fraction(1, 3)


def _every_value(solution):
    graph = solution.graph
    return {graph.state(p): solution.value(p) for p in range(len(graph))}


@pytest.mark.parametrize("path, goal", [(PIG, 10), (PIG, 20), (PIGLET, 4)])
def test_pig_and_piglet_natively_equal_the_general_exact_check(monkeypatch, path, goal):
    general = strong_solve(load(path, {"goal": goal}))          # Python rules: no C
    assert general.exact

    def no_iteration(*args, **kwargs):
        raise AssertionError("the C's order was not enough: iterated in numpy")

    monkeypatch.setattr(iteration, "float_values", no_iteration)
    native = strong_solve(load(path, {"goal": goal}, "native"))
    assert native.exact and native.method == general.method
    assert _every_value(native) == _every_value(general)


def test_where_the_exact_check_gives_up_the_answer_is_the_general_ways(monkeypatch):
    # numbers of at most 7 bits: the check gives up both ways, and the C's attempt leaves the
    # general way's certified values and note as they are without it
    monkeypatch.setattr(iteration, "MAX_DIGITS", 2)
    general = strong_solve(load(PIG, {"goal": 10}))
    native = strong_solve(load(PIG, {"goal": 10}, "native"))
    assert not general.exact and not native.exact
    assert native.note == general.note and "gave up" in native.note
    assert _every_value(native) == _every_value(general)
    assert all(np.array_equal(a, b) for a, b in zip(native.bounds[:2], general.bounds[:2]))


@given(st.integers(-10**40, 10**40), st.integers(1, 10**40), st.integers(-3, 3))
def test_vectors_from_pairs_are_fraction_arithmetic(numerator, denominator, total):
    v = Fraction(numerator, denominator)
    pair = (v.numerator, v.denominator)
    assert fraction(pair) == v and fraction(pair).denominator == v.denominator
    mine, theirs = iteration.pair_vector(pair, total)
    assert (mine, theirs) == ((v + total) / 2, (total - v) / 2)
    # an integer stays an int, as the general way's values do
    assert type(mine) is (int if ((v + total) / 2).denominator == 1 else Fraction)


def test_the_database_is_the_general_ways_byte_for_byte(tmp_path):
    from gdl.graph.database import save

    native = strong_solve(load(PIG, {"goal": 12}, "native"))
    general = strong_solve(load(PIG, {"goal": 12}))
    assert native.graph.stats["enumeration"] == "native"      # the byte walk, then the C's
    assert general.graph.stats["enumeration"] == "protocol"   # order; the Python way throughout
    save(native, tmp_path / "native.db", {"test": 1})
    save(general, tmp_path / "general.db", {"test": 1})
    assert (tmp_path / "native.db").read_bytes() == (tmp_path / "general.db").read_bytes()
