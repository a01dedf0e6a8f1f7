"""Mutation fuzzing of the front end and both back ends: rule files a careless or hostile user
might write, made by small edits to real ones (``gdl.generators.mutants``).

Each mutant (a bundled game or a docs example with a token deleted, duplicated or swapped, a
number made huge or negative, a name or operator replaced, a control character, a stray line
ending or a lone quote inserted, lines dropped or repeated, an expression probe spliced into a
utility...) goes through what a user's file goes through: the formatter, the checker, the
reference interpreter and the compiled back end, and then a bounded walk of the game on both
back ends in step. Three things must never happen:

- a *traceback*: anything but a located GdlError escaping (a formatter round-trip failure too);
- an *unbounded run*: one mutant taking longer than ``time_limit`` seconds;
- a *disagreement*: the two back ends answering differently (loading, or at any state: the
  player to move, legal actions, chance outcomes, returns, evaluations, or the error raised).

`run_mutants` returns the counts and the first examples of each kind; `tests/test_mutation_fuzz.py`
runs a bounded number in CI, `benchmarks/mutation_fuzz.py` the long run.
"""

from __future__ import annotations

import os
import random
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from gdl.errors import GdlError
from gdl.generators.mutants import mutate
from gdl.protocol import CHANCE, TERMINAL


@dataclass
class Finding:
    kind: str          # traceback, unbounded, disagreement
    origin: str        # the file the mutant came from
    mutation: str      # what was done to it
    detail: str
    text: str


@dataclass
class MutationReport:
    mutants: int = 0
    loaded: int = 0              # both back ends built a game
    refused: int = 0             # a located GdlError (the expected answer to most mutants)
    states: int = 0              # states compared across the back ends
    tracebacks: int = 0
    unbounded: int = 0
    disagreements: int = 0
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.tracebacks or self.unbounded or self.disagreements)

    def as_dict(self) -> dict:
        return {"mutants": self.mutants, "loaded": self.loaded, "refused": self.refused,
                "states": self.states, "tracebacks": self.tracebacks, "unbounded": self.unbounded,
                "disagreements": self.disagreements, "seconds": round(self.seconds, 1)}


# ---- running one mutant ----------------------------------------------------------------------

class OutOfTime(BaseException):
    """Raised inside a mutant's run by the interval timer (BaseException: no `except
    Exception` in gdl may swallow it)."""


@contextmanager
def limit_time(seconds: float, cpu: bool = False):
    """Raise ``OutOfTime`` in the block after ``seconds`` of wall time (SIGALRM), or with
    ``cpu`` of this process's CPU time, all its threads (SIGPROF: a loaded machine does not
    stretch it, and a C compiler started in a process of its own is outside it). The main thread
    only; no limit where the platform has no interval timer or for ``seconds <= 0``."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise OutOfTime

    number, timer = ((signal.SIGPROF, signal.ITIMER_PROF) if cpu
                     else (signal.SIGALRM, signal.ITIMER_REAL))
    previous = signal.signal(number, expire)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(number, previous)


class _Crash(Exception):
    def __init__(self, where: str, error: BaseException):
        super().__init__(where)
        self.where = where
        self.trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))


def _outcome(fn: Callable[[], Any], where: str) -> tuple:
    """('ok', value) or ('error', code, line, column); anything else is a crash."""
    try:
        return ("ok", fn())
    except GdlError as error:
        return ("error", error.code, error.span.line, error.span.column)
    except (OutOfTime, KeyboardInterrupt):
        raise
    except BaseException as error:   # a crash is exactly what is looked for
        raise _Crash(where, error) from None


def _compare_games(interpreted: Any, compiled: Any, limit: int) -> tuple[int, str | None]:
    """Walk both games in step, breadth first, by position in the action list. Returns the
    states compared and the first difference (None when they agree)."""
    start = _outcome(interpreted.initial_state, "initial_state")
    if start != _outcome(compiled.initial_state, "initial_state"):
        return 0, "initial state"
    if start[0] != "ok":
        return 0, None
    queue: deque[tuple[Any, Any, tuple[str, ...]]] = deque([(start[1], start[1], ())])
    seen = {start[1]}
    compared = 0
    has_evaluate = interpreted.info.has_evaluate
    while queue and compared < limit:
        si, sc, path = queue.popleft()
        compared += 1
        where = " ".join(path) or "the initial state"

        def both(name: str, *args, _si=si, _sc=sc, _where=where):
            a = _outcome(lambda: getattr(interpreted, name)(_si, *args), name)
            b = _outcome(lambda: getattr(compiled, name)(_sc, *args), name)
            if a != b:
                raise _Differ(f"{name} at {_where}: interpreted {a!r:.200}, compiled {b!r:.200}")
            return a

        try:
            player = both("current_player")
            if player[0] != "ok":
                continue
            if has_evaluate:
                both("evaluate")
            if player[1] == TERMINAL:
                both("returns")
                continue
            if player[1] == CHANCE:
                outcomes = both("chance_outcomes")
                if outcomes[0] != "ok":
                    continue
                moves = [a for a, _ in outcomes[1]]
                names_i = [interpreted.action_name(a) for a in moves]
                names_c = [compiled.action_name(a) for a, _ in compiled.chance_outcomes(sc)]
            else:
                legal = both("legal_actions")
                if legal[0] != "ok":
                    continue
                moves = list(legal[1])
                names_i = [interpreted.action_name(a) for a in moves]
                names_c = [compiled.action_name(a) for a in compiled.legal_actions(sc)]
            if names_i != names_c:
                raise _Differ(f"action names at {where}: {names_i[:5]} / {names_c[:5]}")
            for action, name in zip(moves, names_i):
                after = both("apply", action)
                if after[0] == "ok" and after[1] not in seen:
                    seen.add(after[1])
                    queue.append((after[1], after[1], path + (name,)))
        except _Differ as difference:
            return compared, str(difference)
    return compared, None


class _Differ(Exception):
    pass


def check_mutant(text: str, limit: int = 200) -> tuple[str, str | None, int]:
    """Run one mutant through the formatter, the checker and both back ends. Returns (result,
    detail, states): result is 'refused', 'loaded', 'traceback' or 'disagreement'."""
    from gdl.backends.load import loads
    from gdl.lang.format import FormatError, format_text

    def format_checked():
        try:
            return format_text(text, "<mutant>")
        except FormatError as error:   # the formatted text reads back differently: a bug
            return error

    try:
        formatted = _outcome(format_checked, "format")
        if isinstance(formatted[-1], FormatError):
            return "traceback", f"formatter: {formatted[-1]}", 0
        interpreted = _outcome(lambda: loads(text, "<mutant>", backend="interpret"), "load interpret")
        compiled = _outcome(lambda: loads(text, "<mutant>", backend="compile"), "load compile")
        if interpreted[0] != compiled[0] or (interpreted[0] == "error" and interpreted != compiled):
            return "disagreement", f"loading: interpreted {interpreted[:4]!r:.200}, compiled " \
                                   f"{compiled[:4]!r:.200}", 0
        if interpreted[0] == "error":
            if formatted[0] == "ok" and interpreted[1][:2] == "E1":
                return "disagreement", "the formatter parsed what the parser refused", 0
            return "refused", None, 0
        states, difference = _compare_games(interpreted[1], compiled[1], limit)
        if difference is not None:
            return "disagreement", difference, states
        return "loaded", None, states
    except _Crash as crash:
        return "traceback", f"{crash.where}: {crash.trace.strip().splitlines()[-1]}\n{crash.trace}", 0
    except RecursionError as error:   # raised where _outcome could not even catch it
        return "traceback", f"RecursionError: {error}", 0


@contextmanager
def _no_cache():
    """Mutants never repeat: keeping their compiled modules would only fill the cache."""
    previous = os.environ.get("GDL_NO_CACHE")
    os.environ["GDL_NO_CACHE"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("GDL_NO_CACHE", None)
        else:
            os.environ["GDL_NO_CACHE"] = previous


def run_mutants(sources: Iterable[tuple[str, str]], count: int, seed: int = 0,
                time_limit: float = 20.0, states: int = 200, keep: int = 10,
                progress: Callable[[MutationReport], None] | None = None) -> MutationReport:
    """``count`` mutants of ``sources`` (round robin), each within ``time_limit`` seconds."""
    sources = list(sources)
    texts = [text for _, text in sources]
    report = MutationReport()
    started = time.perf_counter()
    with _no_cache():
        for number in range(count):
            rng = random.Random(f"{seed}:{number}")
            origin, text = sources[number % len(sources)]
            mutant, mutation = mutate(text, rng, texts)
            report.mutants += 1
            try:
                with limit_time(time_limit):
                    result, detail, compared = check_mutant(mutant, states)
            except OutOfTime:
                result, detail, compared = "unbounded", f"more than {time_limit:g} s", 0
            report.states += compared
            if result == "refused":
                report.refused += 1
            elif result == "loaded":
                report.loaded += 1
            else:
                counter = {"traceback": "tracebacks", "unbounded": "unbounded",
                           "disagreement": "disagreements"}[result]
                setattr(report, counter, getattr(report, counter) + 1)
                if len(report.findings) < keep:
                    report.findings.append(Finding(result, origin, mutation, detail or "", mutant))
            if progress is not None and number % 100 == 99:
                report.seconds = time.perf_counter() - started
                progress(report)
    report.seconds = time.perf_counter() - started
    return report
