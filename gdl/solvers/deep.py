"""Run a recursive search without meeting Python's recursion limit.

Solvers recurse once per ply. Games whose length bound is unknown or large could exceed the
default limit of 1000 frames, so the search runs in a worker thread with a large stack and a
raised limit; a search that still goes deeper fails cleanly with ``SearchTooDeep``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# Each solver frame costs well under 1 KiB of C stack on CPython 3.11; 512 MiB of stack allows
# far more than MAX_FRAMES frames, so the recursion limit trips before the stack would overflow.
STACK_BYTES = 512 * 1024 * 1024
MAX_FRAMES = 200_000


# The recursion limit is the interpreter's, not a thread's. It is raised while any deep search
# runs and put back by the last one to end, in its own thread once its stack is shallow again:
# lowered under a search that is still deep (another thread's, or one abandoned by Ctrl-C), the
# limit makes CPython abort ("Cannot recover from stack overflow"); left raised for good, it lets
# C recursion elsewhere (json.loads of a hostile header) overflow the main thread's stack.
_running_lock = threading.Lock()
_running = 0
_limit_before = 0


def _enter() -> None:
    global _running, _limit_before
    with _running_lock:
        if _running == 0:
            _limit_before = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_limit_before, MAX_FRAMES))
        _running += 1


def _leave() -> None:
    global _running
    with _running_lock:
        _running -= 1
        if _running == 0:
            sys.setrecursionlimit(_limit_before)


class SearchTooDeep(Exception):
    """The search went deeper than MAX_FRAMES plies."""


def run_deep(fn: Callable[..., T], *args: Any, on_interrupt: Callable[[], None] | None = None,
             **kwargs: Any) -> T:
    """Call ``fn(*args, **kwargs)`` with room for very deep recursion; return or raise as it did.

    KeyboardInterrupt arrives in the main thread, which waits for the worker. Without
    ``on_interrupt`` it propagates at once and the worker is abandoned (it is a daemon). With it,
    the first interrupt calls ``on_interrupt`` (a search sets its stop flag there) and the wait
    goes on for the worker's answer; a second interrupt propagates.
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()  # not Thread.join: an interrupted join can corrupt is_alive()

    def target() -> None:
        # The limit is raised and put back here, in the worker: the calling thread may take a
        # KeyboardInterrupt at any moment, even inside Thread.start while this is already deep.
        _enter()
        try:
            outcome["value"] = fn(*args, **kwargs)
        except RecursionError:
            outcome["error"] = SearchTooDeep(
                f"search went deeper than {MAX_FRAMES} plies; give a depth limit")
        except BaseException as error:  # handed to the caller unchanged
            outcome["error"] = error
        finally:
            _leave()                    # here, with the worker's stack shallow again
            finished.set()

    old_stack = threading.stack_size()
    threading.stack_size(STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name="gdl-search", daemon=True)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    interrupted = False
    while not finished.is_set():
        try:
            finished.wait(0.05)
        except KeyboardInterrupt:
            if on_interrupt is None or interrupted:
                raise
            interrupted = True
            on_interrupt()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
