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
    assert sys.getrecursionlimit() == before


def test_a_finished_search_restores_the_limit():
    before = sys.getrecursionlimit()
    assert run_deep(lambda: sys.getrecursionlimit()) > before
    assert sys.getrecursionlimit() == before
