"""How the rule language's run-time values read, and the one check of a chance distribution met
while a game runs. Shared by the checker and every back end; kept free of the IR's classes so
that compiled games load it cheaply."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from gdl.protocol import distribution_problem

SYM = "sym"  # the IR's type name for symbols (players included): see gdl.lang.ir


def show_value(value: Any, type_: str, symbols: tuple[str, ...] | list[str]) -> str:
    """A value as the rule file writes it: a symbol by name, ``true``/``false``, a number."""
    if type_ == SYM and type(value) is int and 0 <= value < len(symbols):
        return symbols[value]
    return str(value).lower() if type(value) is bool else str(value)


def exact_quotient(a: Any, b: Any) -> int | Fraction:
    """``a / b`` in the rule language: exact, an int when it divides evenly (so that values read
    and hash alike whichever back end computed them). The caller has ruled out ``b == 0``."""
    q = Fraction(a, b)
    return q.numerator if q.denominator == 1 else q


def live_outcomes(pairs: Iterable[tuple[Any, Any]], describe: Callable[[Any], str]
                  ) -> tuple[list[tuple[Any, Fraction]], str | None]:
    """The outcomes of a `random` whose probability is not 0, and what is wrong with them (or
    None): an outcome whose probability is exactly 0 in this state is left out, so a
    state-dependent distribution can switch outcomes off (e.g. a ghost's blocked ways)."""
    exact = [(v, Fraction(p)) for v, p in pairs]
    live = [(v, p) for v, p in exact if p != 0]
    problem = distribution_problem(live)
    if problem is None:
        return live, None
    listing = ", ".join(f"{describe(v)}: {p}" for v, p in exact)
    total = sum((p for _, p in exact), Fraction(0))
    return live, f"{problem}; outcomes {{{listing}}} sum to {total}"
