"""The trace the tree searches emit (gdl/solvers/trace.py), replayed (gdl/tools/trace.py).

Every algorithm, with and without its table (alpha-beta also with ordering, PVS, iterative
deepening, the root's optimal set): a traced search gives the same answer and the same
counters as an untraced one; replaying its events alone, with the rules of the search (a
decision node's value is its best child's, a chance node's the exact average of its outcomes,
fail-soft bounds outside the window, cut-off tests), finds nothing wrong and reaches the
solver's value and node count. Textbook figures are checked against the literature (FACTS.md),
and planted errors in a trace are caught (the replay's teeth).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
from gdl.backends.tree import TreeGame, tree_info
from gdl.generators.trees import trees, uniform_trees
from gdl.lang.ir import Decision, Leaf
from gdl.protocol import CONSTANT_SUM, ZERO_SUM
from gdl.solvers import solve
from gdl.solvers.alphabeta import SearchOptions
from gdl.solvers.trace import (
    ALPHA,
    CUTOFF,
    ENTER,
    EXIT,
    LEAF,
    PROBE,
    RESUME,
    SHALLOW,
    TABLE,
    Trace,
    TraceTooLong,
)
from gdl.tools.trace import replay, run

GAMES = Path(__file__).resolve().parent.parent / "games"


def load(name, **params):
    return gdl.load(GAMES / name, params or None)


def traced(game, algorithm, **options):
    trace = Trace()
    result = solve(game, algorithm, trace=trace, **options)
    return result, trace


def root_vector(result):
    """The value the root's events should reach: paranoid's is on its two-player view."""
    if result.algorithm == "paranoid":
        v = result.extra["paranoid_value"]
        return (v, -v)
    return tuple(result.values)


def check(game, algorithm, **options):
    """A traced search agrees with an untraced one, and its replay with both."""
    plain = solve(game, algorithm, **options)
    result, trace = traced(game, algorithm, **options)
    assert result.values == plain.values
    assert result.best_actions == plain.best_actions
    assert result.stats == plain.stats           # tracing changes nothing the search does
    tree = replay(trace.events)
    assert tree.problems == []
    assert tree.nodes == trace.nodes == result.stats.nodes
    assert tree.values == root_vector(result)
    return result, trace, tree


AB = SearchOptions
CASES = [
    ("aima-fig5-2.game", {}, "minimax", {}),
    ("aima-fig5-2.game", {}, "alphabeta", {"options": AB()}),
    ("aima-fig5-2.game", {}, "alphabeta", {"options": AB(optimal_set=False)}),
    ("tictactoe.game", {}, "alphabeta", {}),                       # solve's default engine
    ("tictactoe.game", {}, "alphabeta", {"options": AB(tt=True)}),
    ("tictactoe.game", {}, "alphabeta", {"options": AB(ordering=True, pvs=True)}),
    ("tictactoe.game", {}, "alphabeta", {"options": AB.engine(quiescence=False)}),
    ("connect4.game", {"columns": 4, "rows": 4}, "alphabeta",
     {"depth": 4, "options": AB(tt=True, ordering=True, iterative_deepening=True,
                                aspiration=True, pvs=True)}),
    ("hexapawn.game", {}, "alphabeta", {"options": AB(tt=True, optimal_set=False)}),
    ("connect4.game", {"columns": 4, "rows": 4}, "minimax", {"depth": 3}),
    ("tictactoe.game", {}, "minimax", {"table": True}),
    ("chance-example.game", {}, "expectiminimax", {}),
    ("pig.game", {}, "expectiminimax", {"depth": 3}),
    ("pig.game", {}, "expectiminimax", {"depth": 3, "table": True}),
    ("pig.game", {}, "star1", {"depth": 3}),
    ("pig.game", {}, "star2", {"depth": 3}),
    ("dice-race.game", {}, "star1", {"depth": 3, "table": True}),
    ("dice-race.game", {}, "star2", {"depth": 3}),
    ("dice-race.game", {}, "star2", {"depth": 3, "table": True}),
    ("pacman-random.game", {}, "star1", {}),
    ("pacman-random.game", {}, "star2", {}),
    ("pacman-adversarial.game", {}, "alphabeta", {"options": AB()}),
    ("aima-fig5-4.game", {}, "maxn", {}),
    ("takeaway3.game", {}, "maxn", {"shallow_pruning": True}),
    ("takeaway3.game", {}, "maxn", {"table": True}),
    ("takeaway3.game", {}, "paranoid", {}),
    ("takeaway3.game", {}, "paranoid", {"player": 1, "table": True}),
    ("splitting.game", {}, "alphabeta", {"options": AB()}),
]


@pytest.mark.parametrize("name,params,algorithm,options", CASES,
                         ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_replay_reaches_the_solvers_value_and_node_count(name, params, algorithm, options):
    check(load(name, **params), algorithm, **options)


def test_star2_probes_and_resumes_and_the_replay_follows():
    # Pacman against a random ghost: the ghost's chance nodes lead to Pacman's moves only, so
    # Star2 probes (gdl.solvers.star); each probed node is resumed later without a second visit.
    result, trace, tree = check(load("pacman-random.game"), "star2")
    kinds = [e.kind for e in trace.events]
    assert PROBE in kinds and RESUME in kinds
    probed = {e.node for e in trace.events if e.kind == PROBE}
    entered = [e.node for e in trace.events if e.kind == ENTER]
    assert probed <= set(entered) and len(entered) == len(set(entered))   # no node twice


def test_expectiminimax_restarts_keep_only_the_final_search():
    # Fractional probabilities make the first integer scale too coarse: the search starts over
    # (gdl.solvers.scale) and the trace drops the abandoned events, as the counters are reset.
    result, trace, _ = check(load("chance-example.game"), "expectiminimax")
    assert trace.restarts >= 1
    assert [e.kind for e in trace.events].count(ENTER) == result.stats.nodes == 4


# ---- random trees: every algorithm, every switch -----------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(max_depth=4, max_branching=3))
def test_two_player_trees(game):
    for algorithm, options in [("minimax", {}), ("alphabeta", {"options": AB()}),
                               ("alphabeta", {"options": AB(optimal_set=False)}),
                               ("alphabeta", {"options": AB(tt=True, pvs=True)}),
                               ("paranoid", {}), ("paranoid", {"table": True})]:
        check(game, algorithm, **options)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(max_depth=4, max_branching=3, chance=True))
def test_chance_trees(game):
    for algorithm, options in [("expectiminimax", {}), ("expectiminimax", {"table": True}),
                               ("star1", {}), ("star2", {}), ("star1", {"table": True}),
                               ("star2", {"table": True})]:
        check(game, algorithm, **options)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(players=3, max_depth=4, max_branching=3, chance=True, sum_kind=CONSTANT_SUM,
             total=6))
def test_three_player_trees(game):
    for algorithm, options in [("maxn", {}), ("maxn", {"shallow_pruning": True}),
                               ("maxn", {"table": True}), ("paranoid", {"player": 2})]:
        if algorithm == "paranoid" and game.info.has_chance:
            continue
        check(game, algorithm, **options)


@settings(max_examples=40, deadline=None)
@given(uniform_trees(3, 3, values=range(0, 4), players=3, sum_kind=CONSTANT_SUM, total=3))
def test_shallow_pruning_bounds_are_told_and_hold(game):
    # Every node below the first child of its parent carries the parent's bound (cap); a
    # shallow cut-off happens exactly when the mover's best reaches it (Korf's condition).
    result, trace, _ = check(game, "maxn", shallow_pruning=True)
    for event in trace.events:
        if event.kind == CUTOFF:
            assert event.test == SHALLOW
            parent, limit, strict = next(e.cap for e in trace.events
                                         if e.kind == ENTER and e.path == event.path)
            assert event.value > limit if strict else event.value >= limit


# ---- the literature ----------------------------------------------------------------------------

def test_fig_5_5_alphabeta_visits_and_prunes_as_the_textbook():
    # FACTS.md: alpha-beta on Fig. 5.2 never looks at c2 and c3; the value is 3, best a1.
    # The textbook's root (one best action) searches a2 with alpha = 3: c1 = 2 <= 3 cuts.
    result, trace, tree = check(load("aima-fig5-2.game"), "alphabeta",
                                options=AB(optimal_set=False))
    order = [e.path[-1] if e.path else "root" for e in trace.events if e.kind == ENTER]
    assert order == ["root", "a1", "b1", "b2", "b3", "a2", "c1", "a3", "d1", "d2", "d3"]
    cuts = [e for e in trace.events if e.kind == CUTOFF]
    first = cuts[0]
    assert (first.path, first.test, first.value, first.limit, first.skipped) == \
        (("a2",), ALPHA, 2, 3, ("c2", "c3"))
    windows = {e.path: e.window for e in trace.events if e.kind == ENTER}
    assert windows[("a2",)] == (3, float("inf"))            # alpha = 3 after a1
    assert windows[("a1", "b2")] == (float("-inf"), 3)      # beta = 3 after b1
    exits = {e.path: (e.values[0], e.bound) for e in trace.events if e.kind == EXIT}
    assert exits[()] == (3, "exact") and exits[("a1",)] == (3, "exact")
    assert exits[("a2",)] == (2, "upper")                  # MIN's a2 is worth at most 2
    assert result.best_actions == ("a1",)


def test_fig_5_4_maxn_backs_up_the_published_vectors():
    # FACTS.md: C's nodes (1,2,6) (6,1,2) (1,5,2) (5,4,5); B's (1,2,6) (1,5,2); root (1,2,6).
    _, trace, _ = check(load("aima-fig5-4.game"), "maxn")
    exits = {e.path: e.values for e in trace.events if e.kind == EXIT}
    assert exits[("a1", "b1")] == (1, 2, 6) and exits[("a1", "b2")] == (6, 1, 2)
    assert exits[("a2", "b3")] == (1, 5, 2) and exits[("a2", "b4")] == (5, 4, 5)
    assert exits[("a1",)] == (1, 2, 6) and exits[("a2",)] == (1, 5, 2)
    assert exits[()] == (1, 2, 6)


def test_the_expectation_example_is_averaged_term_by_term():
    # FACTS.md: (1/2)·8 + (1/3)·24 + (1/6)·(−12) = 10.
    _, trace, _ = check(load("chance-example.game"), "expectiminimax")
    (average,) = [e for e in trace.events if e.kind == "average"]
    assert [(p, v) for _, p, v in average.terms] == [(Fraction(1, 2), 8), (Fraction(1, 3), 24),
                                                    (Fraction(1, 6), -12)]
    assert average.values[0] == 10


def _ordered(b, d):
    """A uniform tree whose every node's first child is strictly best for its mover (values in
    MAX's terms: MAX's later children worth less, MIN's more), as in Knuth & Moore."""
    def node(ply, t):
        if ply == d:
            return Leaf((t, -t))
        step = -1 if ply % 2 == 0 else 1
        return Decision(ply % 2, tuple((f"x{i}", node(ply + 1, t + step * i)) for i in range(b)))
    root = node(0, 0)
    return TreeGame(root, tree_info("ordered", ("MAX", "MIN"), root, sum_kind=ZERO_SUM))


@pytest.mark.parametrize("b,d", [(3, 3), (2, 4), (3, 4)])
def test_knuth_moore_leaves_in_the_trace(b, d):
    # Knuth & Moore (1975): b^ceil(d/2) + b^floor(d/2) - 1 leaves on a perfectly ordered tree.
    _, trace, _ = check(_ordered(b, d), "alphabeta", options=AB(optimal_set=False))
    leaves = sum(1 for e in trace.events if e.kind == LEAF)
    assert leaves == b ** ((d + 1) // 2) + b ** (d // 2) - 1


def test_alphabeta_with_a_table_tells_its_hits():
    result, trace, _ = check(load("tictactoe.game"), "alphabeta", options=AB(tt=True))
    hits = [e for e in trace.events if e.kind == TABLE]
    assert len(hits) == result.stats.tt_hits > 0
    assert all(e.node >= 0 for e in hits)       # alpha-beta counts a node, then answers it


def test_other_tables_answer_without_a_visit():
    result, trace, tree = check(load("tictactoe.game"), "minimax", table=True)
    hits = [e for e in trace.events if e.kind == TABLE]
    assert len(hits) == result.stats.tt_hits > 0 and all(e.node == -1 for e in hits)


# ---- the trace costs nothing it does not say, and stops when told -----------------------------

def test_a_limit_stops_the_search():
    trace = Trace(limit=100)
    with pytest.raises(TraceTooLong):
        solve(load("tictactoe.game"), "minimax", trace=trace)


def test_solvers_of_hidden_information_refuse_a_trace():
    from gdl.solvers import SolverError

    with pytest.raises(SolverError, match="emits no trace"):
        solve(load("kuhn.game"), "cfr", trace=Trace())


def test_run_uses_the_textbook_alphabeta_and_gives_its_settings():
    searched = run(load("aima-fig5-2.game"), "alphabeta")
    assert searched.settings == {"depth": None, "table": False, "ordering": False,
                                 "all_best": False}
    assert searched.result.stats.nodes == 11


# ---- the replay's teeth: planted errors are found ----------------------------------------------

def _fig52_events():
    _, trace = traced(load("aima-fig5-2.game"), "alphabeta", options=AB(optimal_set=False))
    return list(trace.events)


def test_a_wrong_backed_up_value_is_caught():
    events = _fig52_events()
    i = next(i for i, e in enumerate(events) if e.kind == EXIT and e.path == ("a1",))
    events[i] = replace(events[i], values=(12, -12))
    assert any("best child" in p for p in replay(events).problems)


def test_a_wrong_bound_is_caught():
    events = _fig52_events()
    i = next(i for i, e in enumerate(events) if e.kind == EXIT and e.path == ("a2",))
    events[i] = replace(events[i], bound="exact")
    assert any("labelled exact" in p for p in replay(events).problems)


def test_a_searched_pruned_child_is_caught():
    events = _fig52_events()
    i = next(i for i, e in enumerate(events) if e.kind == ENTER and e.path == ("a3",))
    # a2's cut-off skipped c2: pretend the search then visited it anyway
    cut = next(j for j, e in enumerate(events) if e.kind == CUTOFF and e.path == ("a2",))
    visit = replace(events[cut - 2], path=("a2", "c2"), node=99)
    leaf = replace(events[cut - 1], path=("a2", "c2"), node=99)
    events.insert(cut + 1, visit)
    events.insert(cut + 2, leaf)
    assert i > cut
    assert any("skipped is searched" in p for p in replay(events).problems)


def test_a_missing_event_is_caught():
    events = _fig52_events()
    i = next(i for i, e in enumerate(events) if e.kind == LEAF and e.path == ("a1", "b2"))
    del events[i]
    assert replay(events).problems


def test_a_false_cutoff_test_is_caught():
    events = _fig52_events()
    i = next(i for i, e in enumerate(events) if e.kind == CUTOFF)
    events[i] = replace(events[i], limit=1)        # 2 <= 1 does not hold
    assert any("does not hold" in p for p in replay(events).problems)


def test_a_wrong_average_is_caught():
    _, trace = traced(load("chance-example.game"), "expectiminimax")
    events = list(trace.events)
    i = next(i for i, e in enumerate(events) if e.kind == EXIT and e.path == ())
    events[i] = replace(events[i], values=(9, -9))
    assert any("average" in p for p in replay(events).problems)


@given(st.data())
@settings(max_examples=30, deadline=None)
def test_a_changed_leaf_is_caught_exactly_when_it_changes_its_parent(data):
    # Fig. 5.2 under minimax: every leaf's parent is MIN's (values are MAX's), so its value is
    # the least of its three leaves. Change one leaf and nothing above it: the replay must object
    # when that least value changes, and find nothing when it does not (the trace is then one
    # minimax could have emitted, up to the parent's value).
    _, trace = traced(load("aima-fig5-2.game"), "minimax")
    events = list(trace.events)
    leaves = {e.path: e.values[0] for e in events if e.kind == LEAF}
    i = data.draw(st.sampled_from([i for i, e in enumerate(events) if e.kind == LEAF]))
    path = events[i].path
    new = data.draw(st.integers(-20, 20))
    siblings = [v for p, v in leaves.items() if p[:-1] == path[:-1]]
    changed = [new if p == path else v for p, v in leaves.items() if p[:-1] == path[:-1]]
    events[i] = replace(events[i], values=(new, -new))
    tree = replay(events)
    assert bool(tree.problems) == (min(changed) != min(siblings))
