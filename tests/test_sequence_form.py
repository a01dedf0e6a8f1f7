"""The sequence-form LP verified exactly (gdl.solvers.sequence_form), exact best responses and
exploitability (gdl.solvers.exploitability), and the sequence form itself (gdl.solvers.extensive).

Expected values: Kuhn's poker is worth -1/18 to the first player, with Kuhn's family of
equilibria (Kuhn 1950); Leduc poker about -0.0856 (OpenSpiel, the CFR literature), with 936
information states and 9,457 histories (OpenSpiel's ``leduc_poker``). Otherwise the answers are
held to independent computations in the test: the normal form (every pure strategy) solved as a
matrix game, brute-force best responses over every pure strategy, and expectiminimax on games
that hide nothing."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from imperfect_games import BayesianGame, KuhnPoker, LeducPoker, RevealAll, TwoStage

from gdl.generators.trees import trees
from gdl.protocol import CONSTANT_SUM
from gdl.solvers import extensive, information, solve
from gdl.solvers.exploitability import (
    game_exploitability,
    profile_exploitability,
    strategy_exploitability,
)
from gdl.solvers.matrix import solve_matrix_game
from gdl.solvers.result import SolverError
from gdl.solvers.simultaneous import solve_simultaneous

pytest.importorskip("highspy")

from gdl.solvers import sequence_form
from gdl.solvers.sequence_form import solve_sequence_form

F = Fraction
J, Q, K = 0, 1, 2


def key_after(game, moves, player):
    """``player``'s information state after ``moves`` from the start."""
    state = game.initial_state()
    keys = information.start(game, state)
    for move in moves:
        child = game.apply(state, move)
        keys = information.step(game, keys, state, move, child)
        state = child
    return keys[player]


def test_kuhn_poker_is_worth_minus_one_eighteenth():
    solution = solve_sequence_form(KuhnPoker())
    assert solution.exact
    assert solution.value == F(-1, 18)
    assert solution.bounds == (F(-1, 18), F(-1, 18))
    assert solution.exploitability.nash_conv == 0
    assert "primal and dual feasible" in solution.note


def test_kuhn_equilibrium_is_in_kuhns_family():
    # Kuhn (1950): the second player's equilibrium strategy is unique: with the king bet or call
    # always; with the queen check when checked to and call a bet one time in three; with the
    # jack bet one time in three when checked to and fold to a bet. The first player's form a
    # family in alpha in [0, 1/3]: bet the jack with alpha, the king with 3 alpha, check the
    # queen; after check and bet, fold the jack, call with the queen alpha + 1/3, call the king.
    # (Where a strategy never goes, any choice is an equilibrium's: the checks skip those.)
    game = KuhnPoker()
    first, second = solve_sequence_form(game).strategies

    def bet(strategy, cards, history, player):
        moves = [cards[0], cards[1]] + list(history)
        return strategy[key_after(game, moves, player)]["b"]

    other = {J: Q, Q: K, K: J}                     # any card the opponent may hold
    assert bet(second, (other[K], K), "b", 1) == 1
    assert bet(second, (other[K], K), "p", 1) == 1
    assert bet(second, (other[Q], Q), "p", 1) == 0
    assert bet(second, (other[Q], Q), "b", 1) == F(1, 3)
    assert bet(second, (other[J], J), "p", 1) == F(1, 3)
    assert bet(second, (other[J], J), "b", 1) == 0
    alpha = bet(first, (J, Q), "", 0)
    assert 0 <= alpha <= F(1, 3)
    assert bet(first, (Q, J), "", 0) == 0
    assert bet(first, (K, J), "", 0) == 3 * alpha
    assert bet(first, (J, Q), "pb", 0) == 0
    assert bet(first, (Q, J), "pb", 0) == alpha + F(1, 3)
    if 3 * alpha < 1:                 # else the king always bets and never meets this
        assert bet(first, (K, J), "pb", 0) == 1


@pytest.mark.parametrize("alpha", [F(0), F(1, 6), F(1, 3)])
def test_kuhns_equilibria_written_by_hand_are_unexploitable(alpha):
    # Kuhn's family (above), written as behaviour strategies: exploitability exactly 0, value
    # -1/18; moving the second player's queen off its 1/3 call makes it exploitable.
    game = KuhnPoker()

    def strategies(queen_call):
        first, second = {}, {}
        for card, other in ((J, Q), (Q, K), (K, J)):
            bet = {J: alpha, Q: F(0), K: 3 * alpha}[card]
            call = {J: F(0), Q: alpha + F(1, 3), K: F(1)}[card]
            first[key_after(game, [card, other], 0)] = {"b": bet, "p": 1 - bet}
            first[key_after(game, [card, other, "p", "b"], 0)] = {"b": call, "p": 1 - call}
            after_bet = {J: F(0), Q: queen_call, K: F(1)}[card]
            after_check = {J: F(1, 3), Q: F(0), K: F(1)}[card]
            second[key_after(game, [other, card, "b"], 1)] = {"b": after_bet, "p": 1 - after_bet}
            second[key_after(game, [other, card, "p"], 1)] = {"b": after_check,
                                                                "p": 1 - after_check}
        return [first, second]

    check = game_exploitability(game, strategies(F(1, 3)))
    assert check.nash_conv == 0
    assert check.values == (F(-1, 18), F(1, 18))
    worse = game_exploitability(game, strategies(F(1, 2)))
    assert worse.nash_conv > 0 and worse.gains[0] > 0


def test_kuhn_through_solve_picks_the_sequence_form():
    result = solve(KuhnPoker())
    assert result.algorithm == "sequence-form"
    assert result.values == (F(-1, 18), F(1, 18))
    assert result.proven and result.extra["exact"]
    assert result.extra["exploitability"] == 0


def test_leduc_poker_value_verified_exactly():
    solution = solve_sequence_form(LeducPoker())
    form = solution.form
    assert form.num_infosets == 936 and form.histories == 9457      # OpenSpiel's leduc_poker
    assert solution.exact, solution.note
    assert solution.bounds == (solution.value, solution.value)
    assert solution.exploitability.nash_conv == 0
    assert abs(solution.value - F(-856, 10000)) < F(1, 10000)       # "about -0.0856"


def test_leduc_game_agrees_with_openspiel_on_every_play():
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game("leduc_poker")
    ours = LeducPoker()
    names = {0: "f", 1: "c", 2: "r"}
    plays = 0
    stack = [(theirs.new_initial_state(), ours.initial_state())]
    while stack:
        state, mine = stack.pop()
        if state.is_terminal():
            assert ours.current_player(mine) == -2
            assert tuple(state.returns()) == tuple(float(v) for v in ours.returns(mine))
            plays += 1
            continue
        if state.is_chance_node():
            outcomes = dict(state.chance_outcomes())
            assert {c: F(p).limit_denominator(100) for c, p in outcomes.items()} == dict(
                ours.chance_outcomes(mine))
            stack += [(state.child(c), ours.apply(mine, c)) for c in outcomes]
            continue
        assert state.current_player() == ours.current_player(mine)
        assert [names[a] for a in state.legal_actions()] == list(ours.legal_actions(mine))
        stack += [(state.child(a), ours.apply(mine, names[a])) for a in state.legal_actions()]
    assert plays == 5520


def test_simultaneous_moves_through_the_sequence_form():
    # the two-stage game of test_matrix: -13/47, derived by hand there
    solution = solve_sequence_form(TwoStage())
    assert solution.exact and solution.value == F(-13, 47)


def test_without_verification_the_answer_is_labelled_and_bracketed():
    solution = solve_sequence_form(KuhnPoker(), verify=False)
    assert not solution.exact and solution.value is None
    low, high = solution.bounds
    assert low <= F(-1, 18) <= high and high - low < F(1, 10**6)
    assert abs(solution.lp_value + 1 / 18) < 1e-9


def test_the_fraction_and_flint_routes_agree():
    pytest.importorskip("flint")
    a = solve_sequence_form(KuhnPoker(), use_flint=False)
    b = solve_sequence_form(KuhnPoker(), use_flint=True)
    assert a.value == b.value == F(-1, 18)
    assert "Fractions" in a.note and "fmpq" in b.note


def test_missing_highs_is_refused_with_how_to_install(monkeypatch):
    monkeypatch.setattr(sequence_form, "highs_available", lambda: False)
    with pytest.raises(SolverError, match=r"pip install 'gdl\[imperfect\]'"):
        solve_sequence_form(KuhnPoker())


# -- games that hide nothing: the same values as the perfect-information solvers -------------

@settings(max_examples=60, deadline=None)
@given(st.one_of(trees(chance=True, max_depth=4),
                 trees(chance=True, max_depth=4, sum_kind=CONSTANT_SUM, total=4)))
def test_revealing_everything_gives_the_perfect_information_value(game):
    expected = solve(game, "expectiminimax").values[0]
    solution = solve_sequence_form(RevealAll(game))
    assert solution.exact
    assert solution.value == expected
    assert solution.exploitability.nash_conv == 0
    # and the simultaneous solver, on the game as it is (one mover at a time, nothing hidden)
    assert solve_simultaneous(game).value == expected


# -- generated games with hidden types, against their normal form ------------------------------

def public_trees(depth):
    payoff = st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=2,
                      max_size=2)
    leaf = payoff.map(lambda m: ("end", m))
    if depth == 0:
        return leaf
    child = public_trees(depth - 1)
    move = st.tuples(st.just("move"), st.integers(0, 1),
                     st.lists(child, min_size=1, max_size=2).map(tuple))
    return st.one_of(leaf, move)


@st.composite
def bayesian_games(draw):
    weights = draw(st.lists(st.lists(st.integers(0, 3), min_size=2, max_size=2), min_size=2,
                            max_size=2).filter(lambda w: sum(map(sum, w)) > 0))
    root = ("move", draw(st.integers(0, 1)),
            tuple(draw(st.lists(public_trees(2), min_size=1, max_size=2))))
    return BayesianGame(weights, root)


def play(game, plans):
    """The first player's expected utility when each player p plays ``plans[p]``: a dict from
    (own type, path) to an action, walked directly on the game."""
    total = Fraction(0)
    for (types, probability) in game.chance_outcomes(game.initial_state()):
        state = game.apply(game.initial_state(), types)
        while game.current_player(state) >= 0:
            p = game.current_player(state)
            state = game.apply(state, plans[p][(types[p], state[1])])
        total += probability * game.returns(state)[0]
    return total


def pure_strategies(game, player):
    infosets = game.infosets(player)
    choices = []
    for _, path in infosets:
        node = game._node(path)
        choices.append(range(len(node[2])))
    return [dict(zip(infosets, pick)) for pick in product(*choices)]


@settings(max_examples=40, deadline=None)
@given(bayesian_games())
def test_hidden_types_against_the_normal_form(game):
    # Every pure strategy of each player, the payoff matrix by playing them out, and the matrix
    # game's exact value: the same game, solved by a different route.
    rows, columns = pure_strategies(game, 0), pure_strategies(game, 1)
    matrix = [[play(game, (r, c)) for c in columns] for r in rows]
    expected = solve_matrix_game(matrix).value
    solution = solve_sequence_form(game)
    assert solution.exact, solution.note
    assert solution.value == expected
    assert solution.exploitability.nash_conv == 0


@settings(max_examples=40, deadline=None)
@given(bayesian_games(), st.randoms(use_true_random=False))
def test_best_responses_against_every_pure_strategy(game, rng):
    # A random behaviour strategy for each player; each player's best-response value must be
    # the best of its pure strategies against the other's strategy, played out exactly.
    form = extensive.build(game)
    behaviours = []
    for tree in form.players:
        b = [F(1)] * tree.num_sequences
        for i in range(tree.num_infosets):
            weights = [rng.randint(0, 4) for _ in tree.actions[i]]
            if not any(weights):
                weights[0] = 1
            for s, w in zip(tree.sequences_of(i), weights):
                b[s] = F(w, sum(weights))
        behaviours.append(b)
    check = profile_exploitability(form, behaviours)
    strategies = [extensive.behaviour_as_dict(tree, b) for tree, b in zip(form.players, behaviours)]

    def mixed_value(player, pure):
        # expectation over the other's behaviour strategy, by enumerating its pure strategies
        # with their probabilities (the product of the probabilities of its choices)
        other = 1 - player
        total = F(0)
        for plan in pure_strategies(game, other):
            weight = F(1)
            for (t, path), a in plan.items():
                key = key_after(game, [_types_for(game, other, t)] + list(path), other)
                weight *= strategies[other].get(key, {a: F(1, len(game._node(path)[2]))})[a]
            plans = (pure, plan) if player == 0 else (plan, pure)
            v = play(game, plans)
            total += weight * (v if player == 0 else -v)
        return total

    for player in (0, 1):
        best = max(mixed_value(player, pure) for pure in pure_strategies(game, player))
        assert check.best_response_values[player] == best


def _types_for(game, player, t):
    """A chance outcome that gives ``player`` type ``t`` (the other's type is hidden from it,
    so any will do for its information state)."""
    for (types, _) in game.chance_outcomes(game.initial_state()):
        if types[player] == t:
            return types
    return (t, 0) if player == 0 else (0, t)


def test_strategies_by_key_and_uniform_default():
    form = extensive.build(KuhnPoker())
    uniform = strategy_exploitability(form, [{}, {}])
    # both uniform: by symmetry of the deal every showdown is even, so the value comes from
    # folds; and neither player can lose by deviating to a best response
    assert uniform.nash_conv > 0
    assert all(g >= 0 for g in uniform.gains)


class Forgetful(BayesianGame):
    """The first player moves twice and forgets its first move."""

    def observation(self, state, player):
        types, path = state
        return (None if types is None else types[player], len(path))

    def move_observation(self, state, player, move):
        return super().move_observation(state, player, move) if state[0] is None else "moved"


def test_a_game_without_perfect_recall_is_refused():
    end = ("end", [[0, 1], [2, 3]])
    twice = ("move", 0, (("move", 0, (end, end)), ("move", 0, (end, end))))
    with pytest.raises(SolverError, match="perfect recall"):
        extensive.build(Forgetful([[1, 1], [1, 1]], twice))


class Inconsistent(BayesianGame):
    """The second player cannot see the first's move, yet has different actions after it."""

    def observation(self, state, player):
        types, path = state
        return (None if types is None else types[player], len(path))

    def move_observation(self, state, player, move):
        if state[0] is None:
            return move[player]
        return move if player == self.current_player(state) else "moved"


def test_an_information_state_with_two_sets_of_actions_is_refused():
    end = ("end", [[0, 1], [2, 3]])
    tree = ("move", 0, (("move", 1, (end,)), ("move", 1, (end, end))))
    with pytest.raises(SolverError, match="different actions"):
        extensive.build(Inconsistent([[1, 0], [0, 1]], tree))
