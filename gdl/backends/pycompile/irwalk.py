"""Walking the checked IR (gdl.lang.ir) for the compiler: children, statements, bindings, sizes."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from gdl.lang import ir


def ir_children(e) -> tuple:
    if isinstance(e, (ir.VarRef, ir.ConstRef)):
        return e.indices
    if isinstance(e, ir.Unary):
        return (e.operand,)
    if isinstance(e, ir.Binary):
        return (e.left, e.right)
    if isinstance(e, ir.IfExpr):
        return (e.cond, e.then, e.otherwise)
    if isinstance(e, (ir.Builtin, ir.Call)):
        return e.args
    if isinstance(e, ir.Quantifier):
        return (e.body,)
    if isinstance(e, ir.Let):
        return (e.value, e.body)
    return ()


def local_uses(e, weight: int = 1, out: dict[str, int] | None = None) -> dict[str, int]:
    """How often each local name is evaluated at most (quantifier bodies count per binding)."""
    out = {} if out is None else out
    if isinstance(e, ir.Local):
        out[e.name] = out.get(e.name, 0) + weight
        return out
    if isinstance(e, ir.Quantifier):
        return local_uses(e.body, weight * combos_count(e.binders), out)
    if isinstance(e, ir.Call):
        for a in e.args:
            local_uses(a, weight * 2, out)   # the callee may use it more than once
        return out
    for child in ir_children(e):
        local_uses(child, weight, out)
    return out


def walk_statements(stmts) -> Iterator:
    """Every statement, nested ones after the statement holding them."""
    for st in stmts:
        yield st
        if isinstance(st, ir.If):
            yield from walk_statements(st.then)
            yield from walk_statements(st.otherwise)
        elif isinstance(st, (ir.For, ir.Random, ir.LetStmt, ir.Repeat)):
            yield from walk_statements(st.body)


def has_random(stmts) -> bool:
    return any(isinstance(st, ir.Random) for st in walk_statements(stmts))


def draws_once(stmts) -> bool:
    """Whether an effect holds exactly one `random`, outside every loop: then it draws at most
    once, so a pending chance state has no outcome yet and its outcome finishes the effect."""
    randoms = [st for st in walk_statements(stmts) if isinstance(st, ir.Random)]
    loops = [st for st in walk_statements(stmts) if isinstance(st, (ir.For, ir.Repeat))]
    return len(randoms) == 1 and not any(has_random(loop.body) for loop in loops)


RANGE_GUESS = 8   # how many values a range computed at run time (ir.Range) is taken to have


def combos_count(binders) -> int:
    total = 1
    for _, values in binders:
        total *= len(values) if isinstance(values, tuple) else RANGE_GUESS
    return total


def bindings(binders) -> Iterator[tuple]:
    """Every combination of the binders' values, the first binder outermost (as the interpreter)."""
    names = [n for n, _ in binders]
    for values in itertools.product(*(v for _, v in binders)):
        yield tuple(zip(names, values))


class Sizes:
    """The size of IR once unrolled and inlined (node counts), to decide what to unroll and
    inline; a define's body is measured once."""

    def __init__(self) -> None:
        self.memo: dict[int, int] = {}

    def expr(self, e) -> int:
        if isinstance(e, ir.Call):
            key = id(e.define)
            if key not in self.memo:
                self.memo[key] = 1 << 30  # (recursion is refused by the checker)
                self.memo[key] = self.expr(e.define.body)
            return 1 + self.memo[key] + sum(self.expr(a) for a in e.args)
        if isinstance(e, ir.Quantifier):
            return 1 + combos_count(e.binders) * self.expr(e.body)
        total = 1
        for child in ir_children(e):
            total += self.expr(child)
        return total

    def statement(self, st) -> int:
        if isinstance(st, ir.Assign):
            return 2 + self.expr(st.value) + sum(self.expr(i) for i in st.indices)
        if isinstance(st, ir.If):
            return 1 + self.expr(st.cond) + sum(self.statement(s) for s in st.then + st.otherwise)
        if isinstance(st, ir.For):
            return 1 + combos_count(st.binders) * sum(self.statement(s) for s in st.body)
        if isinstance(st, ir.Next):
            return 1 + self.expr(st.player)
        if isinstance(st, ir.Random):
            return 1 + sum(self.expr(v) + self.expr(p) for v, p in st.outcomes) + \
                sum(self.statement(s) for s in st.body)
        if isinstance(st, ir.LetStmt):
            return 1 + self.expr(st.value) + sum(self.statement(s) for s in st.body)
        if isinstance(st, ir.Repeat):
            return 2 + sum(self.statement(s) for s in st.body)
        return 1
