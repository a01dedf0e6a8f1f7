"""gdl.solvers.deep.run_deep leaves the interpreter as it found it, even when interrupted."""

import _thread
import sys
import threading
import time

import pytest

from gdl.solvers.deep import run_deep


def test_an_abandoned_search_does_not_leave_the_recursion_limit_raised():
    """Ctrl-C without on_interrupt abandons the worker; the raised limit stayed behind, and a later
    json.loads of a header nested 100,000 deep overflowed the C stack (CI crashed)."""
    release = threading.Event()

    def search():
        while not release.is_set():
            time.sleep(0.01)
        return 1

    before = sys.getrecursionlimit()
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_deep(search)
    finally:
        timer.cancel()
        release.set()
    for _ in range(500):        # the worker ends at once; the limit is put back as it ends
        if sys.getrecursionlimit() == before:
            break
        time.sleep(0.01)
    assert sys.getrecursionlimit() == before


def test_the_limit_stays_raised_while_another_deep_search_runs():
    """Lowered under a thread that is still deep, the limit made CPython abort ("Cannot recover
    from stack overflow"): a search that ends must leave it raised for one still running."""
    before = sys.getrecursionlimit()
    deep_enough, release = threading.Event(), threading.Event()
    seen = []

    def descend(depth):
        if depth == 0:
            deep_enough.set()
            release.wait(10)
            return sys.getrecursionlimit()
        return descend(depth - 1)

    other = threading.Thread(target=lambda: seen.append(run_deep(descend, 5000)))
    other.start()
    assert deep_enough.wait(10)
    assert run_deep(lambda: 1) == 1           # a short search begins and ends meanwhile
    assert sys.getrecursionlimit() > 5000     # still raised: the other is 5,000 frames deep
    release.set()
    other.join(10)
    assert seen and seen[0] > 5000
    assert sys.getrecursionlimit() == before


def test_a_finished_search_restores_the_limit():
    before = sys.getrecursionlimit()
    assert run_deep(lambda: sys.getrecursionlimit()) > before
    assert sys.getrecursionlimit() == before


ABANDON_A_DEEP_SEARCH = """
import _thread, sys, threading, time
from gdl.solvers.deep import run_deep

deep, release = threading.Event(), threading.Event()

def descend(depth):
    if depth == 0:
        deep.set()
        release.wait(10)
        return descend_more(50)          # calls again, deep in the stack, after the interrupt
    return descend(depth - 1)

def descend_more(depth):
    return 0 if depth == 0 else descend_more(depth - 1)

threading.Thread(target=lambda: (deep.wait(10), _thread.interrupt_main())).start()
try:
    run_deep(descend, 5000)
except KeyboardInterrupt:
    pass
release.set()
for _ in range(500):
    if sys.getrecursionlimit() < 5000:
        break
    time.sleep(0.01)
print(sys.getrecursionlimit())
"""


def test_an_abandoned_deep_search_ends_without_aborting_the_interpreter():
    """The limit put back while the abandoned worker was 5,000 frames deep: its next call raised
    RecursionError past the margin CPython keeps for handling it, and the process aborted."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", ABANDON_A_DEEP_SEARCH], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) == sys.getrecursionlimit()       # put back once the worker ended
