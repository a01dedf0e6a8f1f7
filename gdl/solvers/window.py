"""Exact ends for alpha-beta windows: a number plus an infinitesimal, or an infinity.

To learn the *set* of optimal root actions, a pruning search must tell a child whose value equals
the best so far (a tie: optimal too) from one that is worse. A window whose lower end is the
best value itself cannot: a fail-low result only says "value <= best". Integers could use
``best - 1``, but chance nodes make values arbitrary fractions, with no "next value below".

So window ends may be ``x - ε`` for an infinitesimal ε > 0: a result ``r <= best - ε`` means
exactly ``r < best``, and any result above it is at least ``best``. The ordered arithmetic the
searches need (adding and subtracting numbers, dividing by a positive probability, negating,
comparing with numbers) is closed over ``a + k·ε``, so the usual window proofs carry over
unchanged. Values returned by a search are always plain numbers; only window ends are ``Bound``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import total_ordering

from gdl.protocol import Value


@total_ordering
class Bound:
    """``infinite·∞ + real + eps·ε`` with infinite in {-1, 0, 1}, ordered lexicographically."""

    __slots__ = ("eps", "infinite", "real")

    def __init__(self, real: Value = 0, eps: Value = 0, infinite: int = 0):
        self.infinite = infinite
        self.real = 0 if infinite else real
        self.eps = 0 if infinite else eps

    def _key(self) -> tuple:
        return (self.infinite, self.real, self.eps)

    @staticmethod
    def _key_of(other) -> tuple:
        return other._key() if isinstance(other, Bound) else (0, other, 0)

    def __eq__(self, other) -> bool:
        return self._key() == self._key_of(other)

    def __lt__(self, other) -> bool:
        return self._key() < self._key_of(other)

    def __hash__(self) -> int:
        return hash(self._key())

    def __neg__(self) -> Bound:
        return Bound(-self.real, -self.eps, -self.infinite)

    def __add__(self, number: Value) -> Bound:
        if isinstance(number, Bound):
            return NotImplemented  # never needed: only numbers are added to window ends
        return Bound(self.real + number, self.eps, self.infinite)

    __radd__ = __add__

    def __sub__(self, number: Value) -> Bound:
        return self + (-number)

    def __rsub__(self, number: Value) -> Bound:
        return (-self) + number

    def __truediv__(self, positive: Value) -> Bound:
        if positive <= 0:
            raise ValueError("window ends are only divided by positive numbers")
        # Fraction first: int / int would be a float, and window ends must stay exact.
        return Bound(Fraction(self.real) / positive, Fraction(self.eps) / positive, self.infinite)

    def __repr__(self) -> str:
        if self.infinite:
            return "+inf" if self.infinite > 0 else "-inf"
        return f"{self.real}{self.eps:+}ε"


NEG_INFINITY = Bound(infinite=-1)
POS_INFINITY = Bound(infinite=1)


def just_below(value: Value) -> Bound:
    """``value - ε``: a window end that a result fails low against exactly when it is < value."""
    return Bound(value, -1)


def just_above(value: Value) -> Bound:
    """``value + ε``: a window end that a result fails high against exactly when it is > value."""
    return Bound(value, 1)
