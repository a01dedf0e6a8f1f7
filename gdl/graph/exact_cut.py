"""Exact values of one component of a chance graph whose cycles all pass through one position
(its *cut*: in Pig a turn start), checked, in pairs of ints.

Both chance solvers use it: a tier's piece (``gdl.graph.chance_tiers``) and a strongly
connected component of the one-graph solve (``gdl.graph.iteration``), each along an order the C
found (``gdl.backends.native.chance_graph``): the component's positions other than the cut,
children first over every move inside the component, then the cut, if any.

Under a policy (first the move best by the floats, as ``iteration.exact_values`` picks it) each
value is an affine function ``a + b x`` of the cut's value x: one pass in that order gives every
``(a, b)`` exactly, the cut's own equation ``x = a + b x`` gives x, then every value. Every
decision is then checked exactly: where a move is strictly better for the mover, the policy
takes it and the component is evaluated again (policy iteration). Checked values satisfy the
Bellman equations exactly; in a stopping game that makes them the value. A component without a
cut (no cycle) is the same with ``b`` zero everywhere.

The rationals are pairs of ints kept in lowest terms (``add``, ``scale``): the same numbers as
``Fraction``'s, without its cost per operation.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import gcd

Pair = tuple[int, int]


class TooBig(Exception):
    """The check cannot be made: numbers beyond the limit, a policy that never ends, an
    unknown value, or no stable policy within the rounds."""


def pair(v) -> Pair:
    """A number as ``(numerator, denominator)`` in lowest terms."""
    if type(v) is not Fraction:          # an int, or another kind of number
        v = Fraction(v)
    return v.numerator, v.denominator


def add(x: Pair, y: Pair) -> Pair:
    """x + y for rationals in lowest terms (positive denominators), in lowest terms: the
    algorithm of Python's Fraction (Knuth, TAOCP 4.5.1)."""
    na, da = x
    nb, db = y
    g = gcd(da, db)
    if g == 1:
        return na * db + da * nb, da * db
    s = da // g
    t = na * (db // g) + nb * s
    g2 = gcd(t, g)
    if g2 == 1:
        return t, s * db
    return t // g2, s * (db // g2)


def scale(x: Pair, y: Pair) -> Pair:
    """x * y for rationals in lowest terms (positive denominators), in lowest terms."""
    na, da = x
    nb, db = y
    g1 = gcd(na, db)
    if g1 > 1:
        na //= g1
        db //= g1
    g2 = gcd(nb, da)
    if g2 > 1:
        nb //= g2
        da //= g2
    return na * nb, db * da


def fraction(x: Pair) -> Fraction:
    """The Fraction of a pair already in lowest terms with a positive denominator, without the
    greatest common divisor Fraction's constructor would compute again (about 10 µs for
    numbers of a thousand bits)."""
    return _FROM_COPRIME(*x)


def _from_coprime() -> Callable[[int, int], Fraction]:
    """Fraction's own constructor of a fraction known to be in lowest terms: a private one, so
    checked here (Python 3.12 on: ``_from_coprime_ints``; 3.11: ``_normalize=False``), and
    the public one where neither is there."""
    made = getattr(Fraction, "_from_coprime_ints", None)
    if made is not None:
        return made
    try:
        if Fraction(2, 4, _normalize=False).numerator == 2:       # type: ignore[call-overload]
            return lambda n, d: Fraction(n, d, _normalize=False)  # type: ignore[call-overload]
    except TypeError:
        pass
    return Fraction


_FROM_COPRIME = _from_coprime()


def evaluate(arrays: tuple, sequence: list, cuts: int, known: Callable[[int], Pair],
             value, slack: float, limit_bits: float, rounds: int) -> None:
    """One component's exact values into ``value`` (position -> pair; a dict or a list),
    checked (module docstring). ``arrays``: ``(first, child, player, probability_index,
    guess, weights)`` as lists (``weights``: each probability as a pair); ``sequence``: the
    component's positions other than its cut children first, then its cut (``cuts``: 0 or 1);
    ``known(c)``: the exact value of a position outside the component (raising TooBig where it
    has none). Raises TooBig where the check cannot be made: a number beyond ``limit_bits``,
    or no stable policy within ``rounds`` rounds of improvement."""
    first, child, player, probability_index, guess, weights = arrays
    if cuts == 1:
        cut, order = sequence[-1], sequence[:-1]
    elif cuts == 0:
        cut, order = None, sequence
    else:
        raise ValueError(f"a component evaluated here has at most one cut position, not {cuts}")
    policy: dict[int, int] = {}
    for p in sequence:
        if player[p] >= 0:
            sign = -1.0 if player[p] == 1 else 1.0
            edges = range(first[p], first[p + 1])
            seen = [guess[child[e]] * sign for e in edges]
            top = max(seen)
            policy[p] = next(e for e, v in zip(edges, seen) if v >= top - slack)

    def form(p: int, a: dict, b: dict) -> tuple:
        """``(a, b)`` of position p from its children's (b None: zero)."""
        if player[p] >= 0:
            c = child[policy[p]]
            if c in a:
                return a[c], b[c]
            return known(c), None
        total_a = total_b = None
        e, end = first[p], first[p + 1]
        while e < end:                   # outcomes of one probability summed first
            kind = probability_index[e]
            run_a = run_b = None
            while e < end and probability_index[e] == kind:
                c = child[e]
                if c in a:
                    run_a = a[c] if run_a is None else add(run_a, a[c])
                    coefficient = b[c]
                    if coefficient is not None:
                        run_b = coefficient if run_b is None else add(run_b, coefficient)
                else:
                    run_a = known(c) if run_a is None else add(run_a, known(c))
                e += 1
            weight = weights[kind]
            assert run_a is not None            # an outcome has a child
            run_a = scale(run_a, weight)
            total_a = run_a if total_a is None else add(total_a, run_a)
            if run_b is not None:
                run_b = scale(run_b, weight)
                total_b = run_b if total_b is None else add(total_b, run_b)
        return total_a, total_b

    for _ in range(rounds):
        a: dict = {}
        b: dict = {}
        if cut is not None:
            a[cut], b[cut] = (0, 1), (1, 1)
        for p in order:
            a[p], b[p] = form(p, a, b)
        x: Pair | None = None
        if cut is not None:
            (an, ad), coefficient = form(cut, a, b)
            bn, bd = coefficient if coefficient is not None else (0, 1)
            if bn == bd:
                raise TooBig()           # the policy never leaves the cycle: no value
            # x = a / (1 - b) = (an / ad) * (bd / (bd - bn)), in lowest terms
            x = scale((an, ad), (bd, bd - bn) if bd > bn else (-bd, bn - bd))
            if max(abs(x[0]), x[1]).bit_length() > limit_bits:
                raise TooBig()
            value[cut] = x
        for p in order:
            coefficient = b[p]
            v = a[p] if coefficient is None else add(a[p], scale(x, coefficient))  # type: ignore[arg-type]
            if max(abs(v[0]), v[1]).bit_length() > limit_bits:
                raise TooBig()
            value[p] = v
        changed = False
        for p in sequence:
            kind = player[p]
            if kind < 0:
                continue
            edges = range(first[p], first[p + 1])
            if len(edges) < 2:
                continue
            chosen = policy[p]
            c = child[chosen]
            best = value[c] if c in a else known(c)
            for e in edges:
                c = child[e]
                v = value[c] if c in a else known(c)
                # v > best for player 0, v < best for player 1 (denominators are positive)
                if (v[0] * best[1] > best[0] * v[1]) if kind == 0 else \
                        (v[0] * best[1] < best[0] * v[1]):
                    best, chosen = v, e
            if chosen != policy[p]:
                policy[p] = chosen
                changed = True
        if not changed:
            return
    raise TooBig()
