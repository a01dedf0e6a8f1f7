"""--time holds inside one position: rules that work for long in a single state are stopped by the
watchdog (gdl/solvers/watchdog.py), and the search reports its deepest completed iteration."""

import time

import pytest

import gdl
from gdl.solvers.alphabeta import Budget, SearchStopped, alphabeta
from gdl.solvers.watchdog import RulesStopped, watchdog

# From the second move on, `step` requires a quantifier over 2001 x 2001 pairs that is never true:
# four million terms in one state (measured: 22 s for one legal_actions call on the interpreter,
# 2 s compiled). Iteration 1 never asks (the root's moves are free; the horizon is evaluated),
# iteration 2 asks at every child of the root.
#
# The bounds below are CPU seconds of this process (time.process_time), not wall seconds: the
# watchdog fires on the wall clock, and a loaded machine stretches the wall time a test takes
# but not the work this process does; rules left running (no watchdog) would use CPU seconds
# far past each bound.
HEAVY = """game "heavy"
players A, B
var moves in 0..4 = 0
var x in 0..4 = 0
action step(k in 0..1)
    requires moves < 1 or not (any i in 0..2000: any j in 0..2000: i * j == -1)
    effect moves = moves + 1; x = min(x + k, 4)
terminal moves == 4
utility A = x
zero-sum
evaluate A = x
"""


@pytest.mark.parametrize("backend", ["interpret", "compile"])
def test_a_time_budget_stops_a_search_inside_one_slow_position(backend):
    game = gdl.loads(HEAVY, backend=backend)
    started = time.process_time()
    result = alphabeta(game, budget=Budget(time=0.3))
    elapsed = time.process_time() - started
    # without the watchdog the second iteration runs at least two slow states (4 s compiled,
    # 44 s interpreted) before the clock is looked at again
    assert elapsed < 1.5, elapsed
    # what is known: the first iteration (A pushes x up by one; B's reply is the horizon)
    assert result.depth == 1 and result.values == (1, -1)
    assert [game.action_name(a) for a in result.best_actions] == ["step(1)"]
    assert result.extra["stopped"] == "time" and result.stats.nodes > 0
    assert not result.proven


def test_the_watchdog_interrupts_a_pure_python_loop_and_leaves_nothing_behind():
    started = time.process_time()
    with pytest.raises(RulesStopped), watchdog(time.monotonic() + 0.1, grace=0.01):
        while True:
            pass
    assert time.process_time() - started < 2
    # nothing pending afterwards: a later loop in this thread runs undisturbed
    total = sum(range(3_000_000))
    assert total == 3_000_000 * 2_999_999 // 2


def test_the_watchdog_waits_while_not_armed_and_fires_once_armed():
    armed: list[bool] = []
    reached = []
    started = time.monotonic()
    cpu = time.process_time()
    with pytest.raises(RulesStopped), watchdog(time.monotonic(), armed=lambda: bool(armed),
                                                grace=0.01):
        while time.monotonic() - started < 0.3:
            pass
        reached.append(True)          # nothing was raised while disarmed
        armed.append(True)
        while True:
            pass
    assert reached
    assert time.process_time() - cpu < 2


def test_a_block_that_ends_in_time_is_not_disturbed():
    with watchdog(time.monotonic() + 0.05, grace=0.01):
        pass
    time.sleep(0.2)          # the timer would have fired by now; it was cancelled
    assert sum(range(1000)) == 499500


def test_without_an_evaluation_a_position_that_never_finishes_is_a_clean_stop():
    # no evaluate: nothing shallower to answer with, so SearchStopped (gdl solve reports it
    # cleanly), promptly, instead of the rules running on
    game = gdl.loads(HEAVY.replace("evaluate A = x\n", ""), backend="compile")
    started = time.process_time()
    with pytest.raises(SearchStopped):
        alphabeta(game, budget=Budget(time=0.3))
    assert time.process_time() - started < 1.5
