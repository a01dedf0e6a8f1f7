"""Alpha-beta against published facts (../shared/FACTS.md) and an independent brute-force oracle."""

from __future__ import annotations

import _thread
import itertools
import threading
import time
from fractions import Fraction

import pytest
from ab_games import Accumulate, Chain, Counting, PathTree, TicTacToe, oracle_root
from hypothesis import given, settings
from hypothesis import strategies as st

from gdl.backends.tree import TreeGame, tree_info
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, ZERO_SUM, GameInfo
from gdl.solvers.alphabeta import (
    Budget,
    Engine,
    SearchOptions,
    SearchStopped,
    alphabeta,
    analyze,
    optimal_strategy,
)
from gdl.solvers.result import SolverError

ALL_ON = SearchOptions.engine()


# --- AIMA Figure 5.2 ---------------------------------------------------------------------------

def fig52() -> TreeGame:
    def leaves(prefix, values):
        return Decision(1, tuple((f"{prefix}{i + 1}", Leaf((v, -v))) for i, v in enumerate(values)))

    root = Decision(0, (("a1", leaves("b", (3, 12, 8))), ("a2", leaves("c", (2, 4, 6))),
                        ("a3", leaves("d", (14, 5, 2)))))
    return TreeGame(root, tree_info("fig5.2", ("max", "min"), root, sum_kind=ZERO_SUM))


class Recording:
    """Wraps a game and records every state whose player is asked for (= every visited state)."""

    def __init__(self, game):
        self.game = game
        self.info = game.info
        self.visited: list = []

    def current_player(self, state):
        self.visited.append(state)
        return self.game.current_player(state)

    def __getattr__(self, name):
        return getattr(self.game, name)


def test_fig52_value_and_best_action():
    r = alphabeta(fig52())
    assert r.values == (3, -3)
    assert r.best_actions == ("a1",)
    assert r.pv == ("a1", "b1")
    assert r.proven and r.algorithm == "alphabeta"


def test_fig52_plain_alphabeta_never_visits_c2_c3():
    game = fig52()
    a2 = game.apply(0, "a2")
    c1, c2, c3 = (game.apply(a2, c) for c in ("c1", "c2", "c3"))
    rec = Recording(game)
    r = alphabeta(rec)
    assert r.values == (3, -3)
    assert c1 in rec.visited
    assert c2 not in rec.visited and c3 not in rec.visited
    assert r.stats.nodes == game.num_states - 2 == len(set(rec.visited))


@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=4)))
def test_fig52_every_option_combination(flags):
    tt, ordering, killers, pvs = flags
    opts = SearchOptions(tt=tt, ordering=ordering, killers=killers, history=killers, pvs=pvs)
    r = alphabeta(fig52(), options=opts)
    assert (r.values, r.best_actions) == ((3, -3), ("a1",))


# --- Knuth & Moore: perfectly ordered uniform trees --------------------------------------------

def ordered_tree(b: int, d: int, gaps) -> PathTree:
    """A uniform tree whose every node's first child is strictly best for the mover (so alpha-beta
    meets the minimal tree). Built top-down in negamax terms: a node worth t to its mover has a
    first child worth -t to the child's mover, and children worth -t + gap (gap >= 1) after it."""
    nodes = {}
    gap = iter(itertools.cycle(gaps))

    def build(path, t):
        ply = len(path)
        if ply == d:
            nodes[path] = ("leaf", t if ply % 2 == 0 else -t)
            return
        nodes[path] = ("move", ply % 2, b, 0, True)
        for i in range(b):
            build(path + (i,), -t if i == 0 else -t + next(gap))

    build((), 0)
    return PathTree(nodes)


def knuth_moore(b: int, d: int) -> int:
    return b ** ((d + 1) // 2) + b ** (d // 2) - 1


@pytest.mark.parametrize("b,d,expected", [(3, 6, 53), (4, 5, 79)])
def test_knuth_moore_published_counts(b, d, expected):
    game = ordered_tree(b, d, (1, 2, 3))
    assert knuth_moore(b, d) == expected
    r = alphabeta(game)
    assert r.stats.leaves == expected
    assert (r.values[0], r.best_actions) == oracle_root(game)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(1, 5), st.lists(st.integers(1, 4), min_size=1, max_size=5))
def test_knuth_moore_minimal_tree(b, d, gaps):
    game = ordered_tree(b, d, gaps)
    r = alphabeta(game)
    assert r.stats.leaves == knuth_moore(b, d)
    assert r.values[0] == 0 and r.best_actions == ("c0",)


# --- Tic-tac-toe (FACTS.md) --------------------------------------------------------------------

def play(game, moves):
    s = game.initial_state()
    for a in moves:
        s = game.apply(s, a)
    return s


@pytest.mark.parametrize("opts", [SearchOptions(), SearchOptions(tt=True),
                                  SearchOptions(tt=True, ordering=True, killers=True,
                                                history=True, pvs=True)])
def test_tictactoe_value_and_all_first_moves_draw(opts):
    r = alphabeta(TicTacToe(), options=opts)
    assert r.values == (0, 0)
    assert r.best_actions == tuple(range(9))
    assert r.proven and r.depth is None


@pytest.mark.parametrize("moves,value", [((4, 1), 1), ((5, 4, 3, 8), -1)])
def test_tictactoe_openspiel_positions(moves, value):
    game = TicTacToe()
    for opts in (SearchOptions(), ALL_ON):
        r = alphabeta(TicTacToe(evaluate=True), options=opts, root_state=play(game, moves))
        assert r.values == (value, -value) and r.proven


def test_tictactoe_engine_preset_and_deterministic_counts():
    game = TicTacToe(evaluate=True)
    first = alphabeta(game, options=ALL_ON)
    second = alphabeta(game, options=ALL_ON)
    assert first.values == (0, 0) and first.best_actions == tuple(range(9)) and first.proven
    assert first.stats == second.stats and first.pv == second.pv
    assert first.extra["iteration_nodes"] == second.extra["iteration_nodes"]


def test_tictactoe_tt_and_ordering_search_fewer_nodes():
    plain = alphabeta(TicTacToe()).stats.nodes
    tt = alphabeta(TicTacToe(), options=SearchOptions(tt=True)).stats.nodes
    ordered = alphabeta(TicTacToe(evaluate=True),
                        options=SearchOptions(tt=True, ordering=True)).stats.nodes
    assert ordered < tt < plain


def test_analyze_tictactoe():
    game = TicTacToe()
    assert analyze(game) == [(a, (0, 0)) for a in range(9)]
    after = play(game, (4, 1))          # X to move and win: FACTS.md
    result = dict(analyze(game, after))
    assert max(v[0] for v in result.values()) == 1
    assert set(result) == set(game.legal_actions(after))


def test_optimal_strategy_tictactoe():
    game = TicTacToe()
    strategy = optimal_strategy(game)
    assert len(strategy) == 4520                     # FACTS.md: non-terminal positions
    assert strategy[game.initial_state()] == tuple(range(9))
    with pytest.raises(SolverError):
        optimal_strategy(game, max_states=100)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 9), st.sets(st.integers(1, 4), min_size=1, max_size=3),
       st.lists(st.integers(-3, 3), min_size=10, max_size=10))
def test_optimal_strategy_matches_oracle(n, moves, table):
    game = Accumulate(n, sorted(moves), {s: table[s] for s in range(1, 5)},
                      {k: table[k + 5] for k in range(4)}, {}, again=2)
    for state, best in optimal_strategy(game).items():
        assert best == oracle_root(game, state)[1]


# --- Refusals, depth limits, special cases -----------------------------------------------------

def test_refuses_games_it_cannot_solve():
    leaf = Leaf((1, 2, 3))
    three = Decision(0, (("x", leaf),))
    with pytest.raises(SolverError, match="two players"):
        alphabeta(TreeGame(three, tree_info("t", ("a", "b", "c"), three, sum_kind=ZERO_SUM)))
    chance = Chance((("h", Fraction(1, 2), Leaf((1, -1))), ("t", Fraction(1, 2), Leaf((0, 0)))))
    with pytest.raises(SolverError, match="chance"):
        alphabeta(TreeGame(chance, tree_info("c", ("a", "b"), chance, sum_kind=ZERO_SUM)))
    general = Decision(0, (("x", Leaf((1, 1))),))
    with pytest.raises(SolverError, match="general-sum"):
        alphabeta(TreeGame(general, tree_info("g", ("a", "b"), general, sum_kind=GENERAL_SUM)))


def test_depth_limit_needs_evaluation():
    with pytest.raises(SolverError, match="evaluation"):
        alphabeta(TicTacToe(), depth=2)
    r = alphabeta(fig52(), depth=2)          # the horizon is never reached: still exact
    assert r.values == (3, -3) and r.proven and r.depth == 2


def test_depth_limited_search_is_not_proven():
    r = alphabeta(TicTacToe(evaluate=True), depth=2)
    assert not r.proven and r.depth == 2
    assert (r.values[0], r.best_actions) == oracle_root(TicTacToe(evaluate=True), depth=2)


def test_constant_sum_values():
    game = Accumulate(7, (1, 2, 3), {1: 1, 2: -1, 3: 2}, {0: 1}, {}, total=10)
    value, best = oracle_root(game)
    for total_declared in (True, False):
        if not total_declared:
            game.info = GameInfo(name="acc", players=("a", "b"), sum_kind=CONSTANT_SUM)
        r = alphabeta(game, options=ALL_ON)
        assert r.values == (value, 10 - value) and r.best_actions == best


def test_terminal_root():
    game = Chain(3)
    r = alphabeta(game, root_state=3)
    assert r.values == (1, -1) and r.best_actions == () and r.proven


def test_long_chain_without_recursion_error():
    r = alphabeta(Chain(5000))
    assert r.values == (1, -1) and len(r.pv) == 5000 and r.stats.nodes == 5001


# --- Budgets and stopping ----------------------------------------------------------------------

def test_node_budget_returns_deepest_completed_iteration():
    game = TicTacToe(evaluate=True)
    r = alphabeta(game, budget=Budget(nodes=400))
    assert not r.proven and r.extra["stopped"] == "nodes"
    assert r.stats.nodes == 400
    assert len(r.extra["iteration_nodes"]) == r.depth >= 1
    assert (r.values[0], r.best_actions) == oracle_root(game, depth=r.depth)
    full = alphabeta(game, budget=Budget(nodes=10 ** 6))
    assert full.proven and full.values == (0, 0) and full.best_actions == tuple(range(9))


def test_time_budget_on_a_huge_game():
    # CPU seconds, not wall: a loaded machine stretches the wall clock, not this process's work;
    # a search that ignored its budget would run on (the game has no end) and pass any bound
    start = time.process_time()
    r = alphabeta(Counting(), budget=Budget(time=0.2), options=ALL_ON)
    assert time.process_time() - start < 1.5
    assert not r.proven and r.extra["stopped"] == "time" and r.depth >= 1
    assert r.best_actions and r.pv[0] == r.best_actions[0]


def test_stop_event_from_another_thread():
    budget = Budget()
    threading.Timer(0.2, budget.stop.set).start()
    r = alphabeta(Counting(), budget=budget, options=SearchOptions(iterative_deepening=True))
    assert not r.proven and r.extra["stopped"] == "stop" and r.depth >= 1


def test_stop_before_first_iteration_raises():
    budget = Budget()
    budget.stop.set()
    with pytest.raises(SearchStopped):
        alphabeta(Counting(), budget=budget)


def test_budget_without_evaluation_cannot_answer_early():
    with pytest.raises(SearchStopped):
        alphabeta(TicTacToe(), budget=Budget(nodes=100))
    r = alphabeta(TicTacToe(), budget=Budget(nodes=10 ** 6))     # enough to solve it
    assert r.proven and r.values == (0, 0)


def test_ctrl_c_returns_best_so_far():
    threading.Timer(0.2, _thread.interrupt_main).start()
    r = alphabeta(Counting(), options=SearchOptions(iterative_deepening=True, tt=True))
    assert not r.proven and r.extra["stopped"] == "stop" and r.depth >= 1


# --- The bare search, for tests of the contract ------------------------------------------------

def test_engine_search_fail_soft_on_fig52():
    engine = Engine(fig52())
    assert engine.search(0) == 3
    assert engine.search(0, alpha=5, beta=10) <= 5       # fails low: an upper bound >= 3
    assert engine.search(0, alpha=-10, beta=1) >= 1       # fails high: a lower bound <= 3
