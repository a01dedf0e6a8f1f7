"""Exact chance values as integers over one common scale: the hot path of expectiminimax.

``Fraction`` arithmetic costs a Python-level call, a gcd and a new object per operation, and a
chance node does several. So the search keeps every value as the integer ``value * S``, with one
scale ``S = D ** K`` for the whole search: ``D`` is a common denominator of every probability (and
every fractional leaf value) met, ``K`` the number of chance levels it can represent. A chance node
whose probabilities are ``w_i / D`` (integer weights ``w_i``) is then worth
``sum(w_i * x_i) / D`` in scaled terms, which is an integer whenever the exact value is a multiple
of ``1 / S``. Where it is not (a probability or leaf value whose denominator does not divide ``D``,
or more chance levels than ``K``), the search raises ``Rescale`` and starts again with a larger
scale; the check is exact (a remainder), never an estimate. Only at the end is a value turned back
into an exact ``Fraction``. Python integers do not overflow, so a large scale only costs time.

The result is identical to computing in ``Fraction``: both are exact rational arithmetic, and the
comparisons a search makes (strict, between exact values) come out the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import lcm

from gdl.protocol import Action, Value

LEVELS = 16     # chance levels one scale represents at first (doubled when a path has more)


class Rescale(Exception):
    """The current scale cannot represent a value exactly: search again with this one."""

    def __init__(self, denominator: int, levels: int):
        super().__init__(denominator, levels)
        self.denominator = denominator
        self.levels = levels


class Scale:
    """``unit = denominator ** levels``: what 1 is worth in the search's integers."""

    __slots__ = ("denominator", "levels", "unit")

    def __init__(self, denominator: int = 1, levels: int = LEVELS):
        self.denominator = denominator
        self.levels = levels
        self.unit = denominator ** levels

    def again(self, rescale: Rescale) -> Scale:
        """The scale to search with after ``rescale``."""
        return Scale(lcm(self.denominator, rescale.denominator),
                     max(self.levels, rescale.levels))

    def deeper(self, plies: int | None = None) -> Rescale:
        """What to raise when a chance node's value is not a multiple of the unit: twice the
        levels, or at once enough for ``plies`` (a declared bound on a path's length, which
        bounds the chance levels on it) when that is more."""
        levels = 2 * self.levels
        if plies is not None:
            levels = max(levels, plies + 1)
        return Rescale(self.denominator, levels)

    def weights(self, outcomes: Sequence[tuple[Action, Fraction]]) -> list[int]:
        """Each outcome's probability times ``denominator`` (an integer), or Rescale. The
        probabilities must already be checked exact (int or Fraction)."""
        d = self.denominator
        out = []
        for _, p in outcomes:
            q = 1 if type(p) is int else p.denominator
            if d % q:
                raise Rescale(lcm(d, q), self.levels)
            out.append(p.numerator * (d // q))
        return out

    def scaled(self, value: Value) -> int:
        """A leaf value in the search's integers, or Rescale (a Fraction whose denominator
        does not divide the scale's)."""
        if type(value) is int:
            return value * self.unit
        x = value * self.unit
        if x.denominator != 1:
            raise Rescale(lcm(self.denominator, value.denominator), self.levels)
        return int(x)

    def exact(self, x: int, fractional: bool) -> Value:
        """A search integer back as the exact value: a Fraction when ``fractional`` (the type
        Fraction arithmetic would have given it), else an int (then x is a multiple of unit)."""
        if fractional:
            return Fraction(x, self.unit)
        return x // self.unit
