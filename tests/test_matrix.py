"""Zero-sum matrix games solved exactly (gdl.solvers.matrix), and simultaneous-move games of
perfect information by backward induction and Shapley's iteration (gdl.solvers.simultaneous).

Expected values come from hand derivations in the comments, from the saddle-point theorem, or
from an independent computation in the test (optimality proven by each strategy's guarantee,
2 x n games by the upper envelope of lines, alpha-beta on the game made sequential)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from imperfect_games import (
    Goofspiel,
    SimultaneousTree,
    StoppingPennies,
    TwoStage,
    biased_rock_paper_scissors,
    matching_pennies,
    rock_paper_scissors,
)

from gdl.solvers import solve
from gdl.solvers.matrix import solve_matrix_game
from gdl.solvers.result import SolverError
from gdl.solvers.simultaneous import solve_simultaneous

F = Fraction


def guarantees(matrix, row, column):
    """What the row strategy guarantees against every column, and what the column strategy
    concedes against every row: both equal the value exactly iff both are optimal."""
    worst = min(sum(row[i] * matrix[i][j] for i in range(len(matrix))) for j in range(len(column)))
    best = max(sum(column[j] * matrix[i][j] for j in range(len(column))) for i in range(len(matrix)))
    return worst, best


def test_rock_paper_scissors_is_worth_zero_with_the_uniform_strategy():
    # the unique equilibrium: any other mix loses to one pure reply
    solution = solve_matrix_game([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert solution.value == 0
    assert solution.row == solution.column == (F(1, 3),) * 3


def test_biased_rock_paper_scissors_closed_form():
    # Rows and columns R, P, S; rock beating scissors pays the first player 3:
    #     R   P   S
    # R   0  -1   3
    # P   1   0  -1
    # S  -1   1   0
    # A completely mixed optimal x makes every column pay the value v:
    #   R:  xP - xS = v,   P: xS - xR = v,   S: 3xR - xP = v.
    # The first two give xP - xR = 2v, with the third 2xR = 3v: xR = 3v/2, xP = 7v/2, xS = 5v/2;
    # they sum to 1, so v = 2/15 and x = (1/5, 7/15, 1/3). Likewise y equalises the rows:
    #   R: -yP + 3yS = v,  P: yR - yS = v,  S: -yR + yP = v  ->  yS = 3v/2 = 1/5, yR = 1/3,
    #   yP = 7/15. Both are completely mixed and the matrix is non-singular, so the solution is
    #   unique (Kaplansky 1945).
    game = biased_rock_paper_scissors()
    solution = solve_matrix_game(game.payoff)
    assert solution.value == F(2, 15)
    assert solution.row == (F(1, 5), F(7, 15), F(1, 3))
    assert solution.column == (F(1, 3), F(7, 15), F(1, 5))
    result = solve(game)
    assert result.algorithm == "simultaneous"
    assert result.values == (F(2, 15), F(-2, 15))
    assert result.extra["root_strategies"]["row"] == {"R": F(1, 5), "P": F(7, 15), "S": F(1, 3)}


def test_matching_pennies_and_the_bundled_small_games():
    solution = solve_matrix_game(matching_pennies().payoff)
    assert solution.value == 0 and solution.row == solution.column == (F(1, 2), F(1, 2))
    result = solve(rock_paper_scissors())
    assert result.values == (0, 0) and result.proven
    assert result.extra["root_strategies"]["column"] == {"R": F(1, 3), "P": F(1, 3), "S": F(1, 3)}


def test_a_2x2_game_without_saddle_point_by_the_textbook_formula():
    # [[a, b], [c, d]] with no saddle point: v = (ad - bc) / (a + d - b - c)
    a, b, c, d = 3, 1, 2, 4
    solution = solve_matrix_game([[a, b], [c, d]])
    assert solution.value == F(a * d - b * c, a + d - b - c) == F(5, 2)
    assert solution.row == (F(d - c, a + d - b - c), F(a - b, a + d - b - c))


@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_planted_saddle_point_is_the_value(rows, columns, data):
    # A pure saddle point (an entry smallest in its row and largest in its column) is the value
    # (von Neumann): the row player guarantees it with that row, the column player concedes it.
    matrix = data.draw(st.lists(st.lists(st.integers(-5, 5), min_size=columns, max_size=columns),
                                min_size=rows, max_size=rows))
    r, c = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, columns - 1))
    v = data.draw(st.integers(-5, 5))
    matrix = [[max(e, v) if i == r else e for e in row] for i, row in enumerate(matrix)]
    matrix = [[min(e, v) if j == c else e for j, e in enumerate(row)] for row in matrix]
    matrix[r][c] = v
    assert solve_matrix_game(matrix).value == v


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.data())
def test_returned_strategies_guarantee_the_value(rows, columns, data):
    matrix = data.draw(st.lists(st.lists(st.integers(-9, 9), min_size=columns, max_size=columns),
                                min_size=rows, max_size=rows))
    solution = solve_matrix_game(matrix)
    for strategy in (solution.row, solution.column):
        assert all(p >= 0 for p in strategy) and sum(strategy) == 1
    assert guarantees(matrix, solution.row, solution.column) == (solution.value, solution.value)


def two_by_n_value(matrix):
    """The value of a 2 x n game, independently: the row player's payoff against column j
    is the line p * a[0][j] + (1 - p) * a[1][j] in its probability p of the first row; the
    value is the highest point of the lower envelope, found at p = 0, p = 1 or where two lines
    cross."""
    lines = [(matrix[0][j] - matrix[1][j], matrix[1][j]) for j in range(len(matrix[0]))]
    candidates = {F(0), F(1)}
    for i, (s1, c1) in enumerate(lines):
        for s2, c2 in lines[i + 1:]:
            if s1 != s2:
                p = F(c2 - c1, s1 - s2)
                if 0 <= p <= 1:
                    candidates.add(p)
    return max(min(s * p + c for s, c in lines) for p in candidates)


@given(st.integers(1, 6), st.data())
def test_two_row_games_against_the_envelope_of_lines(columns, data):
    matrix = data.draw(st.lists(st.lists(st.integers(-9, 9), min_size=columns, max_size=columns),
                                min_size=2, max_size=2))
    assert solve_matrix_game(matrix).value == two_by_n_value(matrix)
    # the column player's view of the transposed, negated game has the opposite value
    transposed = [[-matrix[i][j] for i in range(2)] for j in range(columns)]
    assert solve_matrix_game(transposed).value == -two_by_n_value(matrix)


def test_bad_matrices_are_refused():
    with pytest.raises(SolverError, match="rectangular"):
        solve_matrix_game([[1, 2], [3]])
    with pytest.raises(SolverError, match="non-empty"):
        solve_matrix_game([])


def test_two_stages_by_backward_induction():
    # Matching pennies whose (H, H) leads to biased rock-paper-scissors, worth 2/15 (above):
    #   [[2/15, -1], [-1, 1]] has no saddle point (row minima -1, -1; column maxima 2/15, 1),
    #   so v = (ad - bc) / (a + d - b - c) = (2/15 - 1) / (2/15 + 1 + 1 + 1) = -13/47,
    #   with the first row played with probability (d - c) / 47/15 = 2 / (47/15) = 30/47.
    solution = solve_simultaneous(TwoStage())
    assert solution.exact
    assert solution.value == F(-13, 47)
    assert solution.strategies[("pennies",)][0] == {"H": F(30, 47), "T": F(17, 47)}
    assert solution.values[("rps",)] == F(2, 15)


def test_goofspiel_is_fair_by_symmetry():
    # Exchanging the players maps the game to itself with the payoff negated, so v = -v = 0.
    for n in (3, 4):
        assert solve_simultaneous(Goofspiel(n)).value == 0


def test_stopping_pennies_is_bracketed_around_an_irrational_value():
    # With V the value at the start: M(V) = [[3, V/2], [V/2, 1]] (a mismatch is worth V/2: half
    # the time the game starts again). For 0 < V < 2 it has no saddle point, so
    #   V = (3 - V^2/4) / (4 - V),  i.e.  3V^2 - 16V + 12 = 0,  V = (8 - 2*sqrt(7)) / 3 ~ 0.9028
    # (the other root is above every payoff). Irrational: only a bracket can be exact about it.
    solution = solve_simultaneous(StoppingPennies())
    assert not solution.exact and solution.value is None
    low, high = solution.root_bounds
    assert high - low < F(1, 10**9)
    # low <= (8 - 2 sqrt 7) / 3 <= high, in exact arithmetic: 8 - 3x >= 2 sqrt 7 iff
    # (8 - 3x)^2 >= 28 when 8 - 3x >= 0
    assert 8 - 3 * low >= 0 and (8 - 3 * low) ** 2 >= 28
    assert 8 - 3 * high >= 0 and (8 - 3 * high) ** 2 <= 28
    result = solve(StoppingPennies())
    assert not result.proven and result.extra["bounds"] == (low, high)


class EndlessPennies(StoppingPennies):
    """A mismatch always comes back: the players can keep it going for ever."""

    def chance_outcomes(self, state):
        return (("again", F(1)),)


def test_a_game_that_can_go_on_for_ever_is_refused():
    with pytest.raises(SolverError, match="for ever"):
        solve_simultaneous(EndlessPennies())


# -- generated simultaneous-move games against alpha-beta on the game made sequential ---------

def matrices_of(child):
    return st.integers(1, 3).flatmap(lambda r: st.integers(1, 3).flatmap(
        lambda c: st.lists(st.lists(child, min_size=c, max_size=c).map(tuple), min_size=r,
                           max_size=r).map(lambda m: ("both", tuple(m)))))


def sim_trees(depth):
    leaf = st.integers(-3, 3).map(lambda v: ("end", v))
    if depth == 0:
        return leaf
    child = sim_trees(depth - 1)
    chance = st.lists(st.tuples(st.integers(1, 3), child), min_size=1, max_size=2).map(
        lambda cs: ("chance", tuple(cs)))
    return st.one_of(leaf, matrices_of(child), chance)


def sim_games():
    """Games starting with a simultaneous move, three levels deep."""
    return matrices_of(sim_trees(2)).map(SimultaneousTree)


def sequential_value(game, second_first):
    from imperfect_games import Sequentialised

    # alpha-beta where it applies (no chance), expectiminimax otherwise
    algorithm = "expectiminimax" if game.info.has_chance else "alphabeta"
    return solve(Sequentialised(game, second_first), algorithm).values[0]


@settings(max_examples=120, deadline=None)
@given(sim_games())
def test_sequential_play_brackets_the_simultaneous_value(game):
    # Seeing the other's choice can only help: the game where the second player answers the
    # first is worth at most the simultaneous one to the first player, and the game where the
    # first answers the second at least as much.
    value = solve_simultaneous(game).value
    assert sequential_value(game, False) <= value <= sequential_value(game, True)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(sim_games())
def test_with_pure_saddle_points_the_order_does_not_matter(game):
    # Where both sequential orders agree, every matrix met on the way has a pure saddle point
    # the players reach, and the simultaneous value is that same number.
    first, second = sequential_value(game, False), sequential_value(game, True)
    assume(first == second)
    event("a simultaneous move of both players" if any(
        len(row) > 1 for row in game.tree[1]) and len(game.tree[1]) > 1 else "one player alone")
    assert solve_simultaneous(game).value == first
