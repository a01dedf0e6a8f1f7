"""Properties of the alpha-beta engine on generated games, checked against a brute-force oracle
(tests/ab_games.py): every option combination agrees with it, bounds are fail-soft, the table is
sound under transpositions and replacement, and results are deterministic."""

from __future__ import annotations

from fractions import Fraction

from ab_games import Accumulate, PathTree, oracle_root, oracle_value
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gdl.solvers.alphabeta import Engine, SearchOptions, alphabeta, analyze

VALUES = st.one_of(st.integers(-4, 4),
                   st.fractions(min_value=-2, max_value=2, max_denominator=3))

options = st.builds(
    SearchOptions,
    tt=st.booleans(),
    tt_size=st.sampled_from([2, 3, 8, 64, 1 << 12]),
    ordering=st.booleans(),
    killers=st.booleans(),
    history=st.booleans(),
    iterative_deepening=st.booleans(),
    aspiration=st.booleans(),
    aspiration_window=st.one_of(st.none(), st.sampled_from([Fraction(1, 2), 1, 3])),
    pvs=st.booleans(),
    quiescence=st.booleans(),
    quiescence_depth=st.integers(0, 3),
)


@st.composite
def path_trees(draw, max_depth=5, max_branch=3):
    """Random trees: any player may move at any node (a player may move twice), small value
    ranges (many ties), ints and fractions, zero-sum or constant-sum."""
    nodes = {}
    depth = draw(st.integers(1, max_depth))

    def build(path):
        if len(path) == depth or (path and draw(st.integers(0, 5)) == 0):
            nodes[path] = ("leaf", draw(VALUES))
            return
        k = draw(st.integers(1, max_branch))
        nodes[path] = ("move", draw(st.integers(0, 1)), k, draw(VALUES), draw(st.booleans()))
        for i in range(k):
            build(path + (i,))

    build(())
    return PathTree(nodes, total=draw(st.sampled_from([None, 1, Fraction(5, 2)])))


@st.composite
def accumulate_games(draw):
    """Take-away games with scores: small DAGs where states recur along different paths."""
    moves = sorted(draw(st.sets(st.integers(1, 4), min_size=1, max_size=3)))
    table = draw(st.lists(st.integers(-3, 3), min_size=16, max_size=16))
    return Accumulate(
        n=moves[0] + draw(st.integers(0, 8)), moves=moves,
        weights={s: table[s] for s in range(1, 5)},
        bonus={k: table[4 + k] for k in range(4)},
        heur={k: table[8 + k % 8] for k in range(11)},
        again=draw(st.sampled_from([None, 1, 2])),
        noisy=draw(st.sets(st.integers(0, 10), max_size=4)),
        total=draw(st.sampled_from([None, 3])))


def check_against_oracle(game, opts, depth=None):
    r = alphabeta(game, options=opts, depth=depth)
    q = opts.quiescence_depth if (opts.quiescence and depth is not None) else None
    value, best = oracle_root(game, depth=depth, quiescence=q)
    assert r.values[0] == value
    total = 0 if game.info.utility_sum is None else game.info.utility_sum
    assert r.values[1] == total - value
    assert r.best_actions == best
    assert r.pv[0] == best[0]
    return r


@settings(max_examples=200, deadline=None)
@given(path_trees(), options)
def test_full_depth_every_option_combination_matches_oracle(game, opts):
    r = check_against_oracle(game, opts)
    assert r.proven


@settings(max_examples=200, deadline=None)
@given(path_trees(), options, st.integers(1, 4))
def test_depth_limited_on_trees_matches_oracle(game, opts, depth):
    # On a tree no state recurs, so every option -- the table included -- computes exactly the
    # depth-limited value (with quiescence when on).
    check_against_oracle(game, opts, depth)


@settings(max_examples=150, deadline=None)
@given(accumulate_games(), options)
def test_transpositions_full_depth_matches_oracle(game, opts):
    r = check_against_oracle(game, opts)
    assert r.proven


@settings(max_examples=150, deadline=None)
@given(accumulate_games(), options, st.integers(1, 4))
def test_depth_limited_with_transpositions_without_table(game, opts, depth):
    # Without the table every technique only reorders the search: exact depth-limited values.
    check_against_oracle(game, SearchOptions(**{**opts.__dict__, "tt": False}), depth)
    # With the table a deeper entry may answer a shallower question, so only the shape is fixed.
    r = alphabeta(game, options=SearchOptions(**{**opts.__dict__, "tt": True}), depth=depth)
    legal = game.legal_actions(game.initial_state())
    assert r.best_actions and set(r.best_actions) <= set(legal) and r.pv[0] == r.best_actions[0]


@settings(max_examples=60, deadline=None)
@given(st.one_of(path_trees(), accumulate_games()), options)
def test_analyze_gives_every_action_its_exact_value(game, opts):
    root = game.initial_state()
    got = analyze(game, root, options=opts)
    assert [a for a, _ in got] == list(game.legal_actions(root))
    for a, values in got:
        assert values[0] == oracle_value(game, game.apply(root, a))


@settings(max_examples=100, deadline=None)
@given(accumulate_games(), st.sampled_from([2, 4, 1 << 12]))
def test_table_is_hit_and_agrees_with_no_table(game, size):
    plain = alphabeta(game)
    with_tt = alphabeta(game, options=SearchOptions(tt=True, tt_size=size, ordering=True))
    assert (with_tt.values, with_tt.best_actions) == (plain.values, plain.best_actions)
    if plain.stats.nodes > plain.stats.leaves + 1:      # some interior node below the root
        assert with_tt.stats.tt_probes > 0


def test_table_hits_and_replacement_are_reported():
    game = Accumulate(14, (1, 2, 3), {1: 1, 2: -2, 3: 1}, {0: 2, 1: -1}, {}, again=None)
    plain = alphabeta(game)
    roomy = alphabeta(game, options=SearchOptions(tt=True))
    tiny = alphabeta(game, options=SearchOptions(tt=True, tt_size=4))
    assert roomy.stats.tt_hits > 0 and roomy.stats.nodes < plain.stats.nodes
    assert not roomy.extra["tt_full"] and tiny.extra["tt_full"]
    assert tiny.extra["tt_replaced"] > 0 and tiny.extra["tt_entries"] <= 4
    for r in (roomy, tiny):
        assert (r.values, r.best_actions) == (plain.values, plain.best_actions)


windows = st.tuples(VALUES, VALUES).filter(lambda w: w[0] != w[1]).map(sorted)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.one_of(path_trees(), accumulate_games()), options, st.lists(windows, min_size=1,
                                                                       max_size=6))
def test_fail_soft_bounds_under_random_windows(game, opts, wins):
    # One engine for all windows, so table entries from earlier windows answer later ones.
    engine = Engine(game, opts)
    root = game.initial_state()
    true = oracle_value(game, root)
    for alpha, beta in wins:
        f = engine.search(root, None, alpha, beta)
        if f <= alpha:
            assert true <= f
        elif f >= beta:
            assert true >= f
        else:
            assert true == f


@settings(max_examples=100, deadline=None)
@given(path_trees(), options, st.integers(1, 3), st.lists(windows, min_size=1, max_size=4))
def test_fail_soft_bounds_depth_limited(game, opts, depth, wins):
    engine = Engine(game, opts)
    root = game.initial_state()
    q = opts.quiescence_depth if opts.quiescence else None
    true = oracle_value(game, root, depth, q)
    for alpha, beta in wins:
        f = engine.search(root, depth, alpha, beta)
        assert (true <= f) if f <= alpha else (true >= f) if f >= beta else (true == f)


@settings(max_examples=60, deadline=None)
@given(st.one_of(path_trees(), accumulate_games()), options,
       st.one_of(st.none(), st.integers(1, 4)))
def test_deterministic(game, opts, depth):
    assume(depth is None or game.info.has_evaluate)
    a = alphabeta(game, options=opts, depth=depth)
    b = alphabeta(game, options=opts, depth=depth)
    assert (a.values, a.best_actions, a.pv, a.stats, a.extra) == \
        (b.values, b.best_actions, b.pv, b.stats, b.extra)
