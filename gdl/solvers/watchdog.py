"""A time limit that holds inside one position: the rules of a single state may do any amount of
work (quantifiers nested over huge ranges), and a search only looks at its clock between states.

``watchdog(deadline, armed)`` watches the block it wraps, which runs on one thread (a search's
worker). Once the clock passes ``deadline + grace`` while ``armed()`` says the budget applies,
it raises ``RulesStopped`` *asynchronously* in that thread (CPython's
``PyThreadState_SetAsyncExc``): the exception appears at the next bytecode the thread runs, in
the interpreter's or the compiled module's rule code as anywhere else, and the search catches it
where it catches its own stop. The grace leaves the search's own checks (every few hundred
states) the first chance to stop cleanly; the watchdog only fires when one state takes longer.

Native code (the C tier) is not interrupted this way: the exception waits until the call returns
(native searches have their own stop flag, ``gdl_stop``). A block that ends before the deadline
costs one timer thread that never fires.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

GRACE = 0.05        # seconds past the deadline before the watchdog steps in (and between looks)


class RulesStopped(Exception):
    """Raised in a search's thread when a budget ran out while the rules were still working."""


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    # None clears an exception that was set but not yet raised
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exception) if exception else None)


@contextmanager
def watchdog(deadline: float | None, armed: Callable[[], bool] = lambda: True,
             grace: float = GRACE) -> Iterator[None]:
    """Raise ``RulesStopped`` in this thread once ``time.monotonic()`` passes ``deadline + grace``
    while ``armed()`` (looked at again every ``grace`` seconds while it is not), at most once.
    No deadline: nothing is watched."""
    if deadline is None:
        yield
        return
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}
    timer: list[threading.Timer] = []

    def look() -> None:
        with lock:
            if state["done"]:
                return
            if armed():
                state["fired"] = True
                _raise_in(target, RulesStopped)
                return
            schedule(grace)

    def schedule(delay: float) -> None:
        t = threading.Timer(delay, look)
        t.daemon = True
        timer[:] = [t]
        t.start()

    schedule(max(0.0, deadline + grace - time.monotonic()))
    try:
        yield
    finally:
        while True:
            try:
                with lock:
                    state["done"] = True
                    for t in timer:
                        t.cancel()
                    if state["fired"]:
                        # fired as the block ended: an exception not raised yet must not escape
                        _raise_in(target, None)
                break
            except RulesStopped:    # it was raised here, on the way out: nothing left to stop
                continue
