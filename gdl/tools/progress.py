"""A status line on stderr while a long search runs: nodes, nodes per second, depth, elapsed time.

The solvers keep their counters in local variables (alpha-beta) or in a Stats object they only
hand back at the end, so nothing can be read from them while they run. Two cheap sources stand
in for them:

- nodes: the game is wrapped in ``Counting``, a protocol proxy whose ``apply`` is a closure that
  adds one to an int and calls the game's own ``apply``; nothing else is wrapped (other methods
  are looked up on the game once, by the solver).
- depth: the ``Reporter`` thread samples the searching thread's Python stack (at most ten times
  a second) and counts the frames of the solvers' recursive ``search`` functions: that is the
  current ply below the search root, at no cost per node. The line shows the deepest ply sampled
  so far.

Nothing is printed per node, nothing reaches stdout, and without a terminal
(``stream.isatty()`` false: pipes, files, ``--json`` consumers, tests) the game is not even
wrapped. Counting ``apply`` calls counts the edges a search walks: every visited node but the
root for the plain searches; engines that apply a child before deciding to search it (move
ordering by evaluation) count those too. It is a gauge, not a statistic: the final numbers are
the solver's own.

Usage::

    with watch(game, label="solving") as searched:   # `searched` is `game` when not a terminal
        result = solve(searched, ...)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

DELAY = 1.0          # seconds before the first status line (short searches show nothing)
INTERVAL = 0.1       # seconds between updates: at most ten a second
SEARCH_FRAMES = frozenset({"search"})
PROTOCOL = ("initial_state", "current_player", "legal_actions", "chance_outcomes", "returns",
            "evaluate", "action_name", "is_quiet")   # the recursive function of every solver in gdl.solvers


class Counting:
    """A game proxy counting ``apply`` calls (``nodes``); everything else is the game's own."""

    def __init__(self, game: Any):
        self._game = game
        self.info = game.info
        # The protocol's other methods are the game's own, bound once: looking them up through
        # __getattr__ would cost a Python call per use (solvers like minimax look up per node).
        for name in PROTOCOL:
            if hasattr(game, name):
                setattr(self, name, getattr(game, name))
        inner = game.apply
        count = 0

        def apply(state, action):
            nonlocal count
            count += 1
            return inner(state, action)

        def read() -> int:
            return count

        self.apply = apply
        self._read = read

    @property
    def nodes(self) -> int:
        return self._read()

    def __getattr__(self, name: str):
        return getattr(self._game, name)


def search_depth(frames: dict | None = None) -> int:
    """The deepest recursion of a solver's ``search`` in any thread right now (0 when none)."""
    frames = sys._current_frames() if frames is None else frames
    deepest = 0
    for frame in frames.values():
        depth = 0
        while frame is not None:
            code = frame.f_code
            if code.co_name in SEARCH_FRAMES and "solvers" in code.co_filename:
                depth += 1
            frame = frame.f_back
        deepest = max(deepest, depth)
    return deepest


def status_line(label: str, nodes: int, depth: int, elapsed: float) -> str:
    """``solving  1,234,567 positions  412,000/s  depth 12  3.0 s`` (positions: apply calls)."""
    rate = nodes / elapsed if elapsed > 0 else 0.0
    return (f"{label}  {nodes:,} positions  {rate:,.0f}/s  depth {depth}  "
            f"{elapsed:.1f} s")


class Reporter:
    """Rewrites one status line on ``stream`` from a ``Counting`` proxy's counters.

    ``tick(now)`` draws one update (the thread calls it every ``interval`` seconds after
    ``delay``); ``finish()`` erases the line if one was drawn."""

    def __init__(self, counting: Counting, stream: TextIO, label: str = "searching",
                 delay: float = DELAY, interval: float = INTERVAL, clock=time.monotonic):
        self.counting, self.stream, self.label = counting, stream, label
        self.delay, self.interval, self.clock = delay, max(interval, 0.1), clock
        self.started = clock()
        self.drawn = False
        self.updates = 0
        self.depth = 0
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self, now: float | None = None, depth: int | None = None) -> str:
        now = self.clock() if now is None else now
        self.depth = max(self.depth, search_depth() if depth is None else depth)
        line = status_line(self.label, self.counting.nodes, self.depth, now - self.started)
        self.stream.write("\r" + line + "\033[K")
        self.stream.flush()
        self.drawn = True
        self.updates += 1
        return line

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False

    # -- the thread
    def _run(self) -> None:
        if self._done.wait(self.delay):
            return
        while not self._done.is_set():
            try:
                self.tick()
            except (OSError, ValueError):      # the stream went away: stop reporting
                return
            self._done.wait(self.interval)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="gdl-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join(1.0)
        try:
            self.finish()
        except (OSError, ValueError):
            pass


def wants_progress(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


@contextmanager
def watch(game: Any, *, label: str = "searching", stream: TextIO | None = None,
          enabled: bool | None = None, delay: float = DELAY,
          interval: float = INTERVAL) -> Iterator[Any]:
    """Yield the game to search: a counting proxy with a status line on ``stream`` (stderr by
    default) when it is a terminal, else the game itself, untouched."""
    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = wants_progress(stream)
    if not enabled:
        yield game
        return
    counting = Counting(game)
    reporter = Reporter(counting, stream, label, delay, interval)
    reporter.start()
    try:
        yield counting
    finally:
        reporter.stop()


def with_progress(solve_fn, *, label: str = "solving", stream: TextIO | None = None):
    """``solve_fn`` (called as ``solve_fn(game, ...)``) with a status line while it runs on a
    terminal: ``solve = with_progress(solve)`` is all a command needs."""

    def run(game, *args, **kwargs):
        with watch(game, label=label, stream=stream) as searched:
            return solve_fn(searched, *args, **kwargs)

    return run
