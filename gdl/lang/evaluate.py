"""What an IR expression means: each expression becomes a Python closure ``f(cells, env)``.

This is the semantics of the rule language's expressions, written once. The checker uses it to
evaluate constants (``eval_const``), and the reference interpreter (gdl.backends.interpret) runs
games with it; every faster back end is compared with it.

Arithmetic is exact: ``/`` gives a rational (an int when it divides evenly, else a Fraction);
``//`` is floor division and ``%`` its remainder (Python's ``//`` and ``%``), so
``a == (a // b) * b + a % b`` always holds and ``-7 // 2 == -4``, ``-7 % 2 == 1``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gdl.lang import ir
from gdl.lang.values import exact_quotient
from gdl.span import Span


class EvalError(Exception):
    """A rule failed while it was evaluated; turned into a located GameRuntimeError."""

    def __init__(self, code: str, message: str, span: Span | None = None):
        super().__init__(message)
        self.code, self.message, self.span = code, message, span


# ---- expressions -------------------------------------------------------------------------------

def _floordiv(a: int, b: int, span: Span) -> int:
    if b == 0:
        raise EvalError("E302", "division by zero", span)
    return a // b


def _mod(a: int, b: int, span: Span) -> int:
    if b == 0:
        raise EvalError("E302", "modulo by zero", span)
    return a % b


def _exact(a, b, span: Span) -> int | Fraction:
    if b == 0:
        raise EvalError("E302", "division by zero", span)
    return exact_quotient(a, b)


_BINARY = {
    "+": lambda a, b, s: a + b, "-": lambda a, b, s: a - b, "*": lambda a, b, s: a * b,
    "/": _exact, "//": _floordiv, "%": _mod,
    "==": lambda a, b, s: a == b, "!=": lambda a, b, s: a != b,
    "<": lambda a, b, s: a < b, "<=": lambda a, b, s: a <= b,
    ">": lambda a, b, s: a > b, ">=": lambda a, b, s: a >= b,
}

# (cells, env) -> value: an int, a bool, a Fraction or a symbol's number, as the checker typed it
# (a constant table's rows are nested tuples of them)
Fn = Callable[[Any, dict], Any]


def flat_index(indices: list[Fn], shape: tuple[int, ...], name: str, span: Span):
    """A function computing the offset of an element from its index expressions, with bounds checks."""
    parts = list(zip(indices, shape, ir.strides(shape)))

    def offset(s, env) -> int:
        total = 0
        for index, extent, step in parts:
            i = index(s, env)
            if not 0 <= i < extent:
                raise EvalError("E303", f"index {i} is out of range 0..{extent - 1} for '{name}'", span)
            total += i * step
        return total

    return offset


def expr_fn(e: ir.Expr) -> Fn:
    """Turn an IR expression into a closure ``f(cells, env)``."""
    if isinstance(e, ir.Lit):
        value = e.value
        return lambda s, env: value
    if isinstance(e, ir.Local):
        name = e.name
        return lambda s, env: env[name]
    if isinstance(e, ir.Mover):
        return lambda s, env: s[0]
    if isinstance(e, ir.VarRef):
        slot = e.var.slot
        if not e.indices:
            return lambda s, env: s[slot]
        offset = flat_index([expr_fn(i) for i in e.indices], e.var.shape, e.var.name, e.span)
        return lambda s, env: s[slot + offset(s, env)]
    if isinstance(e, ir.ConstRef):
        table, name = e.const.value, e.const.name
        indices = [expr_fn(i) for i in e.indices]
        shape, span = e.const.shape, e.span

        def const_ref(s, env):
            value: Any = table
            for index, extent in zip(indices, shape):
                i = index(s, env)
                if not 0 <= i < extent:
                    raise EvalError("E303", f"index {i} is out of range 0..{extent - 1} for '{name}'", span)
                value = value[i]
            return value

        return const_ref
    if isinstance(e, ir.Unary):
        operand = expr_fn(e.operand)
        if e.op == "-":
            return lambda s, env: -operand(s, env)
        return lambda s, env: not operand(s, env)
    if isinstance(e, ir.Binary):
        left, right = expr_fn(e.left), expr_fn(e.right)
        if e.op == "and":
            return lambda s, env: left(s, env) and right(s, env)
        if e.op == "or":
            return lambda s, env: left(s, env) or right(s, env)
        op, span = _BINARY[e.op], e.span
        return lambda s, env: op(left(s, env), right(s, env), span)
    if isinstance(e, ir.IfExpr):
        cond, then, otherwise = expr_fn(e.cond), expr_fn(e.then), expr_fn(e.otherwise)
        return lambda s, env: then(s, env) if cond(s, env) else otherwise(s, env)
    if isinstance(e, ir.Builtin):
        args = [expr_fn(a) for a in e.args]
        if e.name == "abs":
            return lambda s, env: abs(args[0](s, env))
        pick = min if e.name == "min" else max
        return lambda s, env: pick(a(s, env) for a in args)
    if isinstance(e, ir.Call):
        args = [expr_fn(a) for a in e.args]
        params = e.define.params
        body = _define_body(e.define)
        return lambda s, env: body[0](s, {p: a(s, env) for p, a in zip(params, args)})
    if isinstance(e, ir.Quantifier):
        return _quantifier_fn(e)
    if isinstance(e, ir.Let):
        bound, rest, local = expr_fn(e.value), expr_fn(e.body), e.name
        return lambda s, env: rest(s, {**env, local: bound(s, env)})
    raise AssertionError(f"unknown expression {e!r}")


_DEFINE_BODIES: weakref.WeakKeyDictionary[ir.Define, list] = weakref.WeakKeyDictionary()


def _define_body(define: ir.Define) -> list:
    # One closure per define instance, shared by every call site (a list, filled once).
    if define not in _DEFINE_BODIES:
        holder: list = [None]
        _DEFINE_BODIES[define] = holder
        holder[0] = expr_fn(define.body)
    return _DEFINE_BODIES[define]


def bindings(binders):
    """Every combination of the binders' values, as a list of (name, value) tuples."""
    combos: list[tuple] = [()]
    for name, values in binders:
        combos = [c + ((name, v),) for c in combos for v in values]
    return combos


def bindings_fn(binders) -> Callable[[object, dict], list]:
    """``(cells, env) -> combinations``: like ``bindings``, for binders some of whose ranges
    (ir.Range) depend on local names; each range is computed with the binders before it bound."""
    if not any(isinstance(values, ir.Range) for _, values in binders):
        combos = bindings(binders)
        return lambda s, env: combos
    # (name, its values where constant, else the functions of its range's ends)
    steps: list[tuple[str, tuple[int, ...], tuple[Fn, Fn] | None]] = [
        (name, (), (expr_fn(values.low), expr_fn(values.high))) if isinstance(values, ir.Range)
        else (name, values, None) for name, values in binders]

    def combos_in(s, env) -> list:
        combos: list[tuple] = [()]
        for name, values, ends in steps:
            grown: list[tuple] = []
            for combo in combos:
                if ends is not None:
                    low, high = ends
                    inner = {**env, **dict(combo)}
                    grown.extend(combo + ((name, v),) for v in range(low(s, inner), high(s, inner) + 1))
                else:
                    grown.extend(combo + ((name, v),) for v in values)
            combos = grown
        return combos

    return combos_in


def _quantifier_fn(e: ir.Quantifier) -> Fn:
    body, combos_in, kind = expr_fn(e.body), bindings_fn(e.binders), e.kind

    def values(s, env):
        inner = dict(env)
        for combo in combos_in(s, env):
            inner.update(combo)
            yield body(s, inner)

    if kind == "any":
        return lambda s, env: any(values(s, env))
    if kind == "all":
        return lambda s, env: all(values(s, env))
    if kind == "count":
        return lambda s, env: sum(1 for v in values(s, env) if v)
    if kind == "sum":
        return lambda s, env: sum(values(s, env))
    pick = min if kind == "min" else max
    return lambda s, env: pick(values(s, env))


def eval_const(e: ir.Expr):
    """Evaluate an expression that does not depend on the state."""
    return expr_fn(e)(None, {})
