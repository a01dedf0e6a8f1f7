"""Number expressions of rule files with proven integer bounds, and the expression probes.

An ``IntExpr`` is a syntax tree of a number expression together with bounds that hold for its
value in every state (interval arithmetic over the bounds of what it reads). The generators of
valid rule files (``gdl.generators.rules``) build every number this way, so that each assignment
can be clamped into its variable's domain only where needed and each declared utility bound holds.

The probes (``probe_value``, ``probe_condition``) are expressions where the compiler's optimiser
and the interpreter could part: floor division and remainder with negative or state-dependent
operands, constants on either side of a comparison, quantifiers whose terms fold to constants,
chains of guards on one variable (a fact "x >= k" must not be read as "x >= k+1"). The fuzz
compares both back ends (and the native tier where it applies) state by state on every generated
game, so each probe is checked at every state reached. (Choices are drawn as indices, never
``sampled_from`` over strings: hypothesis labels ``sampled_from`` by hashing its elements, and
strings hash differently from process to process.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from gdl.lang import ast

# `draw` of an ``st.composite`` strategy: a value from a strategy
Draw = Callable[[st.SearchStrategy[Any]], Any]


@dataclass(frozen=True)
class IntExpr:
    """A number expression with integer bounds on its value in every state (interval arithmetic);
    the value itself is an integer unless the expression divides exactly (``/``)."""
    node: ast.Expr
    lo: int
    hi: int


def literal(value: int) -> IntExpr:
    return IntExpr(ast.IntLit(value), value, value)


def variable(name: str, lo: int, hi: int) -> IntExpr:
    return IntExpr(ast.Name(name), lo, hi)


def arith(op: str, a: IntExpr, b: IntExpr) -> IntExpr:
    """``a + b``, ``a - b`` or ``a * b``."""
    if op == "+":
        return IntExpr(ast.Binary("+", a.node, b.node), a.lo + b.lo, a.hi + b.hi)
    if op == "-":
        return IntExpr(ast.Binary("-", a.node, b.node), a.lo - b.hi, a.hi - b.lo)
    corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return IntExpr(ast.Binary("*", a.node, b.node), min(corners), max(corners))


def divide(a: IntExpr, k: int) -> IntExpr:
    """``a / k``, exact (k > 0): a rational value whose integer bounds are rounded outwards."""
    return IntExpr(ast.Binary("/", a.node, ast.IntLit(k)), a.lo // k, -(-a.hi // k))


def call(func: str, *args: IntExpr) -> IntExpr:
    """``min(...)`` or ``max(...)``."""
    pick = min if func == "min" else max
    return IntExpr(ast.Call(ast.Ident(func), tuple(a.node for a in args)),
                   pick(a.lo for a in args), pick(a.hi for a in args))


def clamp(e: IntExpr, lo: int, hi: int) -> IntExpr:
    """``e`` forced into lo..hi: unchanged when its bounds already fit."""
    if lo <= e.lo and e.hi <= hi:
        return e
    inner = call("max", e, literal(lo)) if e.lo < lo else e
    outer = call("min", inner, literal(hi)) if e.hi > hi else inner
    return IntExpr(outer.node, max(min(e.lo, hi), lo), min(max(e.hi, lo), hi))


def if_else(cond: ast.Expr, a: IntExpr, b: IntExpr) -> IntExpr:
    return IntExpr(ast.IfExpr(cond, a.node, b.node), min(a.lo, b.lo), max(a.hi, b.hi))


# ---- expression probes (rule_games(probes=True)) ------------------------------------------------

def _unknown(e: IntExpr) -> int | None:
    return None


def _floor_corners(a: IntExpr, lo: int, hi: int) -> tuple[int, int]:
    """Bounds of ``a // b`` for b in lo..hi, an interval without 0: a / b is monotone in each
    operand on such a box, and so is its floor, so the extremes are at the corners."""
    corners = [x // y for x in (a.lo, a.hi) for y in (lo, hi)]
    return min(corners), max(corners)


def _remainder_bounds(lo: int, hi: int) -> tuple[int, int]:
    """Bounds of ``a % b`` for b in lo..hi (no 0): the remainder takes the divisor's sign."""
    return (0, hi - 1) if lo > 0 else (lo + 1, 0)


def _nonzero(draw: Draw, b: IntExpr) -> IntExpr:
    """``b`` shifted so that its interval lies on one side of 0 (drawn: which side)."""
    shift = 1 - b.lo if draw(st.booleans()) else -1 - b.hi
    if shift == 0:
        return b
    return arith("+", b, literal(shift))


def probe_value(draw: Draw, atom: Callable[[], IntExpr],
                start: Callable[[IntExpr], int | None] = _unknown) -> IntExpr:
    """An integer probe over the state, with its bounds; ``atom()`` draws a state expression,
    ``start(e)`` is its initial value if known (guards test near it)."""
    kind = draw(st.integers(0, 5))
    a = atom()
    if kind == 0:       # floor division or remainder by a constant, perhaps negative
        d = (-3, -2, 2, 3)[draw(st.integers(0, 3))]
        a = arith("-", a, literal(draw(st.integers(0, 3))))        # negative operands, too
        if draw(st.booleans()):
            lo, hi = _floor_corners(a, d, d)
            return IntExpr(ast.Binary("//", a.node, ast.IntLit(d)), lo, hi)
        lo, hi = _remainder_bounds(d, d)
        return IntExpr(ast.Binary("%", a.node, ast.IntLit(d)), lo, hi)
    if kind == 1:       # a state-dependent divisor on one side of 0
        b = _nonzero(draw, atom())
        if draw(st.booleans()):
            lo, hi = _floor_corners(a, b.lo, b.hi)
            return IntExpr(ast.Binary("//", a.node, b.node), lo, hi)
        lo, hi = _remainder_bounds(b.lo, b.hi)
        return IntExpr(ast.Binary("%", a.node, b.node), lo, hi)
    if kind == 2:       # a constant numerator over a state-dependent divisor
        c = draw(st.integers(-7, 7))
        b = _nonzero(draw, a)
        lo, hi = _floor_corners(literal(c), b.lo, b.hi)
        return IntExpr(ast.Binary("//", ast.IntLit(c), b.node), lo, hi)
    if kind == 3:       # a quantifier whose terms all fold to constants, plus the state
        n, c = draw(st.integers(1, 3)), draw(st.integers(-2, 3))
        count = ast.Quantifier("count", (ast.Binder(ast.Ident("i"), ast.RangeDomain(
            ast.IntLit(0), ast.IntLit(n))),), ast.Binary("<", ast.IntLit(c), ast.Name("i")))
        return arith("+", a, IntExpr(count, 0, n + 1))
    if kind == 4:       # floor division of a quantifier's state-dependent terms
        n = draw(st.integers(1, 3))
        body = ast.Binary("//", ast.Binary("-", a.node, ast.Name("i")), ast.IntLit(-2))
        terms = [_floor_corners(arith("-", a, literal(i)), -2, -2) for i in range(n + 1)]
        total = ast.Quantifier("sum", (ast.Binder(ast.Ident("i"), ast.RangeDomain(
            ast.IntLit(0), ast.IntLit(n))),), body)
        return IntExpr(total, sum(t[0] for t in terms), sum(t[1] for t in terms))
    # a guard chain: an inner test at or one step past the outer guard's constant
    outer, inner = _guard_chain(draw, a, start(a))
    return if_else(outer, if_else(inner, literal(2), literal(1)), literal(0))


_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _comparison(draw: Draw, op: str, a: IntExpr, k: int) -> ast.Expr:
    """``a op k``, written as it is or with the constant on the left (``k op' a``, same meaning)."""
    if draw(st.booleans()):
        return ast.Binary(op, a.node, ast.IntLit(k))
    return ast.Binary(_MIRRORED[op], ast.IntLit(k), a.node)


def _guard_chain(draw: Draw, a: IntExpr, near: int | None) -> tuple[ast.Expr, ast.Expr]:
    """Two tests of ``a``: a guard that bounds it on one side, then a test at the edge the guard
    leaves (one step either side of it too), which the guard's fact decides or not: where an
    optimiser that reads the fact one step too far, or mirrors a comparison the wrong way, errs."""
    if near is None:
        k = draw(st.integers(a.lo, a.hi))
    else:
        k = min(max(near + draw(st.integers(-1, 1)), a.lo), a.hi)
    op = ("<", "<=", ">", ">=")[draw(st.integers(0, 3))]
    edge = {">=": k, ">": k + 1, "<=": k, "<": k - 1}[op]
    test = ("<", "<=", ">", ">=", "==", "!=")[draw(st.integers(0, 5))]
    return (_comparison(draw, op, a, k),
            _comparison(draw, test, a, edge + draw(st.integers(-1, 1))))


def probe_condition(draw: Draw, atom: Callable[[], IntExpr],
                    start: Callable[[IntExpr], int | None] = _unknown) -> ast.Expr:
    """A condition probe over the state; ``atom()`` draws a state expression, ``start(e)`` is
    its initial value if known (guards test near it)."""
    kind = draw(st.integers(0, 3))
    a = atom()
    ops = ("<", "<=", ">", ">=", "==", "!=")
    if kind == 0:       # a constant on the left (the compiler mirrors it)
        op = ops[draw(st.integers(0, len(ops) - 1))]
        return ast.Binary(op, ast.IntLit(draw(st.integers(a.lo - 1, a.hi + 1))), a.node)
    if kind == 1:       # a quantifier that folds to a constant, joined to a state test
        c = draw(st.integers(-1, 4))
        quantified = ast.Quantifier(("any", "all")[draw(st.integers(0, 1))], (ast.Binder(
            ast.Ident("i"), ast.RangeDomain(ast.IntLit(0), ast.IntLit(2))),),
            ast.Binary(ops[draw(st.integers(0, 3))], ast.Name("i"), ast.IntLit(c)))
        test = ast.Binary(">=", a.node, ast.IntLit(draw(st.integers(a.lo, a.hi))))
        return ast.Binary(("and", "or")[draw(st.integers(0, 1))], quantified, test)
    # a guard chain on one expression: "a >= k" (say) and then a test at k - 1, k or k + 1
    first, second = _guard_chain(draw, a, start(a))
    if draw(st.integers(0, 3)) == 0:
        second = ast.Unary("not", second)
    return ast.Binary("and", first, second)

