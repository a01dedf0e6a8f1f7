"""The alpha-beta engine's parts on their own: the transposition table and move ordering.

Expected values come from the rules the parts implement (the fail-soft meaning of a bound, the
TwoBig replacement rule, the documented order of ordering's techniques), worked out by hand on
states chosen to collide: small ints hash to themselves, so with ``buckets`` buckets the states
0, buckets, 2 * buckets, ... all share bucket 0.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdl.backends.load import loads
from gdl.generators.rules import transposition_games
from gdl.protocol import TERMINAL
from gdl.solvers.alphabeta import SearchOptions, alphabeta
from gdl.solvers.minimax import minimax
from gdl.solvers.ordering import MoveOrdering
from gdl.solvers.transposition import (
    BEST_ACTION,
    BOUND,
    DEPTH,
    EXACT,
    FULL,
    LOWER,
    NO_ACTION,
    STATE,
    UPPER,
    VALUE,
    WORK,
    Entry,
    TranspositionTable,
    answers,
)


def entry(state, *, value=0, bound=EXACT, depth=FULL, action="a", work=1) -> Entry:
    return (state, value, bound, depth, action, work)


def test_the_field_names_read_the_fields_in_order():
    e = entry(9, value=-3, bound=UPPER, depth=4, action="x", work=12)
    assert (e[STATE], e[VALUE], e[BOUND], e[DEPTH], e[BEST_ACTION], e[WORK]) == \
        (9, -3, UPPER, 4, "x", 12)


# --- answers: when a stored bound settles a search -----------------------------------------

def test_an_exact_entry_answers_any_window_at_its_depth_or_shallower():
    e = entry(0, value=5, bound=EXACT, depth=4)
    assert answers(e, 4, -100, 100)
    assert answers(e, 1, 6, 7)              # even a window the value lies outside of
    assert not answers(e, 5, -100, 100)     # a deeper question: the entry knows too little


def test_a_lower_bound_answers_only_at_or_above_beta():
    # value >= 5 is known; a search with window (alpha, beta) may stop if 5 >= beta (it fails high).
    e = entry(0, value=5, bound=LOWER)
    assert answers(e, 3, 0, 5)
    assert answers(e, 3, 0, 4)
    assert not answers(e, 3, 0, 6)          # the true value could be 5 < 6: still inside
    assert not answers(e, 3, 5, 10)         # at alpha says nothing for a lower bound


def test_an_upper_bound_answers_only_at_or_below_alpha():
    e = entry(0, value=5, bound=UPPER)
    assert answers(e, 3, 5, 10)
    assert answers(e, 3, 6, 10)
    assert not answers(e, 3, 4, 10)
    assert not answers(e, 3, -10, 5)        # at beta says nothing for an upper bound


def test_entries_that_used_no_evaluation_answer_every_depth():
    assert answers(entry(0, depth=FULL), FULL, -1, 1)
    assert answers(entry(0, depth=FULL - 1), FULL - 1, -1, 1)
    assert not answers(entry(0, depth=FULL - 1), FULL, -1, 1)


# --- TranspositionTable: find, store, TwoBig replacement ---------------------------------------

def test_find_returns_the_stored_entry_of_that_state_only():
    table = TranspositionTable(4)           # two buckets; 0, 2, 4 share bucket 0
    assert table.buckets == 2 and table.capacity == 4
    assert table.find(0, hash(0)) is None
    e = entry(0)
    table.store(e, hash(0))
    assert table.find(0, hash(0)) is e
    assert table.find(2, hash(2)) is None   # same bucket, another state
    assert table.find(1, hash(1)) is None   # another bucket
    assert table.used == 1 and table.replaced == 0


def test_a_table_of_size_one_still_has_a_bucket():
    table = TranspositionTable(1)
    assert table.buckets == 1 and table.capacity == 2
    table.store(entry(7), hash(7))
    assert table.find(7, hash(7)) is not None


def test_two_big_keeps_the_costliest_entry_in_the_first_slot():
    table = TranspositionTable(4)
    a, b, c, d = entry(0, work=10), entry(2, work=5), entry(4, work=7), entry(6, work=20)
    table.store(a, 0)
    table.store(b, 2)                       # less work than a: the second slot
    assert (table.first[0], table.second[0]) == (a, b)
    table.store(c, 4)                       # still less than a: replaces b, which is lost
    assert (table.first[0], table.second[0]) == (a, c)
    assert table.find(2, 2) is None
    assert table.replaced == 1
    table.store(d, 6)                       # more work than a: first slot, a demoted, c lost
    assert (table.first[0], table.second[0]) == (d, a)
    assert table.find(4, 4) is None
    assert table.replaced == 2
    assert table.used == 2                  # two slots were ever filled


def test_equal_work_takes_the_first_slot():
    table = TranspositionTable(4)
    a, b = entry(0, work=3), entry(2, work=3)
    table.store(a, 0)
    table.store(b, 2)
    assert (table.first[0], table.second[0]) == (b, a)


def test_a_state_in_the_first_slot_is_replaced_only_by_a_search_at_least_as_deep():
    table = TranspositionTable(4)
    deep = entry(0, value=1, depth=5, work=1)
    table.store(deep, 0)
    table.store(entry(0, value=2, depth=3, work=100), 0)   # shallower: dropped, however costly
    assert table.find(0, 0) is deep
    assert table.second[0] is None
    again = entry(0, value=3, depth=5)
    table.store(again, 0)                   # as deep: replaces it
    assert table.find(0, 0) is again
    assert table.used == 1 and table.replaced == 0


def test_overwriting_a_stale_copy_of_the_same_state_is_not_counted_as_a_loss():
    table = TranspositionTable(4)
    table.store(entry(0, work=10), 0)
    table.store(entry(2, value=1, work=1), 2)
    newer = entry(2, value=2, work=1)
    table.store(newer, 2)
    assert table.find(2, 2) is newer
    assert table.replaced == 0 and table.used == 2


def test_exact_action_follows_only_exact_entries():
    table = TranspositionTable(8)
    table.store(entry(0, bound=EXACT, action="x"), 0)
    table.store(entry(1, bound=LOWER, action="y"), 1)
    table.store(entry(2, bound=UPPER, action="z"), 2)
    assert table.exact_action(0) == "x"
    assert table.exact_action(1) is NO_ACTION
    assert table.exact_action(2) is NO_ACTION
    assert table.exact_action(3) is NO_ACTION


def test_an_action_may_be_none_without_meaning_no_action():
    table = TranspositionTable(4)
    table.store(entry(0, action=None), 0)
    assert table.exact_action(0) is None


# --- MoveOrdering --------------------------------------------------------------------------------

ACTIONS = ("a", "b", "c", "d")
# State 0's children: "a" -> 1, "b" -> 2, "c" -> 3, "d" -> 4. Player 0's evaluation of each child
# (4 is terminal, so its returns are used instead).
PLAYER0_VIEW = {1: 2, 2: 7, 3: 2, 4: 5}


def make_ordering(**switches) -> MoveOrdering:
    def player(state):
        return TERMINAL if state == 4 else 1

    def apply(state, action):
        return ACTIONS.index(action) + 1

    def returns(state):
        assert state == 4, "returns is read at terminal children only"
        return (PLAYER0_VIEW[state], -PLAYER0_VIEW[state])

    def evaluate(state):
        assert state != 4, "evaluate is read at non-terminal children only"
        return (PLAYER0_VIEW[state], -PLAYER0_VIEW[state])

    return MoveOrdering(player, apply, returns, evaluate, **switches)


def test_with_every_technique_off_actions_keep_declaration_order():
    ordering = make_ordering()
    assert not ordering.always and not ordering.learns
    actions, children = ordering.order(0, ACTIONS, 1, 0, "c")
    assert list(actions) == list(ACTIONS)
    assert children is None


def test_the_previous_line_comes_first_even_with_nothing_else_on():
    ordering = make_ordering()
    ordering.follow({0: "c"})
    assert list(ordering.order(0, ACTIONS, 1, 0, NO_ACTION)[0]) == ["c", "a", "b", "d"]
    assert list(ordering.order(9, ACTIONS, 1, 0, NO_ACTION)[0]) == list(ACTIONS)  # off the line
    ordering.follow({})
    assert list(ordering.order(0, ACTIONS, 1, 0, NO_ACTION)[0]) == list(ACTIONS)


def test_the_table_move_comes_first_only_when_switched_on_and_legal():
    on, off = make_ordering(table_move_first=True), make_ordering()
    assert list(on.order(0, ACTIONS, 1, 0, "d")[0]) == ["d", "a", "b", "c"]
    assert list(off.order(0, ACTIONS, 1, 0, "d")[0]) == list(ACTIONS)
    assert list(on.order(0, ACTIONS, 1, 0, "z")[0]) == list(ACTIONS)     # not legal here
    assert list(on.order(0, ACTIONS, 1, 0, NO_ACTION)[0]) == list(ACTIONS)


def test_killers_are_the_last_two_cut_off_actions_of_the_same_ply():
    ordering = make_ordering(killers=True)
    assert ordering.always and ordering.learns
    ordering.record_cutoff("c", 2, 3)
    assert list(ordering.order(0, ACTIONS, 1, 2, NO_ACTION)[0]) == ["c", "a", "b", "d"]
    assert list(ordering.order(0, ACTIONS, 1, 1, NO_ACTION)[0]) == list(ACTIONS)  # other ply
    ordering.record_cutoff("d", 2, 3)
    assert list(ordering.order(0, ACTIONS, 1, 2, NO_ACTION)[0]) == ["d", "c", "a", "b"]
    ordering.record_cutoff("d", 2, 3)       # the latest again: no duplicate, c kept
    assert list(ordering.order(0, ACTIONS, 1, 2, NO_ACTION)[0]) == ["d", "c", "a", "b"]
    ordering.record_cutoff("b", 2, 3)       # a third: the oldest (c) goes
    assert list(ordering.order(0, ACTIONS, 1, 2, NO_ACTION)[0]) == ["b", "d", "a", "c"]


def test_precedence_line_then_table_move_then_killers():
    ordering = make_ordering(table_move_first=True, killers=True)
    ordering.record_cutoff("a", 0, 1)
    ordering.record_cutoff("c", 0, 1)       # killers at ply 0: c, a
    ordering.follow({0: "d"})
    actions, _ = ordering.order(0, ACTIONS, 1, 0, "b")
    assert list(actions) == ["d", "b", "c", "a"]
    actions, _ = ordering.order(0, ACTIONS, 1, 0, "c")  # the table move is also a killer: once
    assert list(actions) == ["d", "c", "a", "b"]


def test_history_sorts_the_rest_by_the_sum_of_squared_depths():
    ordering = make_ordering(history=True)
    ordering.record_cutoff("b", 0, 2)       # b: 4
    ordering.record_cutoff("c", 7, 3)       # c: 9 (any ply counts)
    ordering.record_cutoff("b", 3, 2)       # b: 8
    ordering.record_cutoff("d", 1, 0)       # d: 1 (quiescence: at least one)
    ordering.record_cutoff("d", 1, -2)      # d: 2
    assert ordering.history == {"b": 8, "c": 9, "d": 2}
    actions, children = ordering.order(0, ACTIONS, 1, 0, NO_ACTION)
    assert list(actions) == ["c", "b", "d", "a"]
    assert children is None                 # history alone builds no child


def test_evaluation_puts_the_movers_best_child_first_and_returns_the_children():
    ordering = make_ordering(by_evaluation=True)
    # Player 0 (mover +1) wants the highest. d is terminal and wins at once for player 0 (returns
    # 5 against -5), so it comes first whatever the evaluations; then b 7, then a and c at 2 in
    # declaration order.
    actions, children = ordering.order(0, ACTIONS, 1, 0, NO_ACTION)
    assert list(actions) == ["d", "b", "a", "c"]
    assert children == {"a": 1, "b": 2, "c": 3, "d": 4}
    # Player 1 (mover -1) wants the lowest of player 0's view; d is a loss for player 1, so it
    # takes its place by value (its returns), not first.
    actions, _ = ordering.order(0, ACTIONS, -1, 0, NO_ACTION)
    assert list(actions) == ["a", "c", "d", "b"]


def test_evaluation_ties_break_by_history_then_declaration_order():
    ordering = make_ordering(by_evaluation=True, history=True)
    ordering.record_cutoff("c", 0, 1)       # a and c tie at 2; c has the history
    actions, _ = ordering.order(0, ACTIONS, 1, 0, NO_ACTION)
    assert list(actions) == ["d", "b", "c", "a"]     # d: a win at once, first


def test_evaluation_orders_only_the_actions_not_already_placed_first():
    ordering = make_ordering(by_evaluation=True, table_move_first=True)
    actions, children = ordering.order(0, ACTIONS, 1, 0, "a")
    assert list(actions) == ["a", "d", "b", "c"]     # the table move, the win at once, the rest
    assert children is not None and children["a"] == 1     # built for the table move too


@pytest.mark.parametrize("switches", [{}, {"table_move_first": True}])
def test_cutoffs_teach_nothing_without_killers_or_history(switches):
    ordering = make_ordering(**switches)
    assert not ordering.learns
    ordering.record_cutoff("b", 0, 5)
    assert ordering.killers == [] and ordering.history == {}


# --- Ranking by the root's order (evaluation_plies) ---------------------------------------------

def counting_ordering(**switches) -> tuple[MoveOrdering, list]:
    """make_ordering's game, with every evaluation call recorded."""
    ordering = make_ordering(**switches)
    calls: list = []
    evaluate = ordering.evaluate

    def counted(state):
        calls.append(state)
        return evaluate(state)

    ordering.evaluate = counted
    return ordering, calls


def test_below_evaluation_plies_the_roots_order_ranks_without_evaluating():
    ordering, calls = counting_ordering(by_evaluation=True, evaluation_plies=2)
    # Player 1 (mover -1) orders the root: a and c at 2 (declaration order), d (returns 5, a loss
    # for player 1, taken by value), b at 7.
    root, _ = ordering.order(0, ACTIONS, -1, 0, NO_ACTION)
    assert list(root) == ["a", "c", "d", "b"] and len(calls) == 3
    # Ply 1 is still above the line: evaluated, and it does not change the ranks.
    assert list(ordering.order(0, ACTIONS, 1, 1, NO_ACTION)[0]) == ["d", "b", "a", "c"]
    del calls[:]
    # From ply 2 on: the root's order for either mover, a win at once (d, for player 0) first,
    # every child built, nothing evaluated.
    actions, children = ordering.order(0, ACTIONS, 1, 2, NO_ACTION)
    assert list(actions) == ["d", "a", "c", "b"]
    assert children == {"a": 1, "b": 2, "c": 3, "d": 4}
    assert list(ordering.order(0, ACTIONS, -1, 5, NO_ACTION)[0]) == ["a", "c", "d", "b"]
    assert calls == []


def test_ranked_nodes_keep_firsts_first_and_put_unranked_actions_last():
    ordering = make_ordering(by_evaluation=True, table_move_first=True, evaluation_plies=1)
    # The root has no d, and declares c before a: c and a tie at 2 (c first), then b at 7.
    ordering.order(0, ("c", "b", "a"), -1, 0, NO_ACTION)
    actions, _ = ordering.order(0, ACTIONS, -1, 3, "b")
    assert list(actions) == ["b", "c", "a", "d"]        # the table move, the ranks, unranked d
    # The same set of actions again (its ranked order is kept): the same answer, another first.
    assert list(ordering.order(0, ACTIONS, -1, 4, "a")[0]) == ["a", "c", "b", "d"]
    # A new root order re-ranks.
    ordering.order(0, ("d", "b"), 1, 0, NO_ACTION)           # d (a win for player 0), b
    assert list(ordering.order(0, ACTIONS, -1, 3, NO_ACTION)[0]) == ["d", "b", "a", "c"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transposition_games(evaluate=True), st.sampled_from([0, 1, 2]), st.booleans())
def test_ranking_by_the_roots_order_keeps_the_value_and_the_optimal_set(generated, plies,
                                                                        history):
    # Ordering changes which nodes are searched, never the answer: minimax's value and set.
    game = loads(generated.text, "generated.game", backend="compile")
    options = SearchOptions(tt=True, ordering=True, pvs=True, history=history,
                            evaluation_plies=plies)
    ranked = alphabeta(game, options=options)
    exact = minimax(game)
    assert ranked.values == exact.values
    assert ranked.best_actions == exact.best_actions


def test_the_engines_direct_ranked_call_matches_order_at_every_table_move():
    # The engine calls ``ranked`` itself from ``ranked_from`` on (one call fewer a node); it
    # must give what ``order`` gives there, for every table move, legal or not.
    ordering = make_ordering(by_evaluation=True, table_move_first=True, evaluation_plies=1)
    assert ordering.ranked_from == 1
    ordering.order(0, ("c", "b", "a"), -1, 0, NO_ACTION)     # the root: c, a (tie at 2), b
    for mover in (1, -1):
        for table_move in (*ACTIONS, "z", NO_ACTION):
            firsts = [table_move] if table_move in ACTIONS else []
            direct = ordering.ranked(0, ACTIONS, mover, firsts)
            assert direct == ordering.order(0, ACTIONS, mover, 3, table_move)
    # d wins at once for player 0 only: first for mover +1 unless the table move is first.
    assert list(ordering.ranked(0, ACTIONS, 1, ["b"])[0]) == ["b", "d", "c", "a"]
    assert list(ordering.ranked(0, ACTIONS, -1, [])[0]) == ["c", "a", "b", "d"]


@pytest.mark.parametrize("switches", [
    {"by_evaluation": True, "table_move_first": True, "evaluation_plies": 2, "killers": True},
    {"by_evaluation": True, "table_move_first": True},
    {"by_evaluation": False, "table_move_first": True, "evaluation_plies": 2},
    {"by_evaluation": True, "table_move_first": False, "evaluation_plies": 2},
])
def test_no_direct_ranked_call_where_order_would_put_other_firsts_or_not_rank(switches):
    # Killers would be firsts too; without evaluation, evaluation_plies or the table move,
    # ``order`` does something else than ``ranked`` with the table move first.
    assert make_ordering(**switches).ranked_from is None
