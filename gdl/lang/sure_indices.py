"""Indices that are out of range whenever their rule is evaluated: found at check time.

`all i in 0..2: cell[i][2 - i] == X` is the anti-diagonal; `cell[i][3 - i]` is a slip that
would pass the checker and fail only in play (E303, for i = 0). Such a slip is certain, not
possible, when the index depends only on constants and on bindings that are surely evaluated:

- a quantifier's first binding (`any` and `all` may stop after it) or every binding (`count`,
  `sum`, `min`, `max`), and every iteration of a `for` loop, all with constant ranges;
- an action parameter's every value, in the part of `requires` that is always evaluated;

and the index is not behind a guard: the right operand of `and`/`or`, a branch of an
if-expression or an `if` statement, a define's body (its arguments vary). Guarded indices are
how rules keep inside the board (`inside(r, c) and cell[r][c] == p`), so they are left to play.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from gdl.lang import ir
from gdl.lang.evaluate import EvalError, expr_fn
from gdl.span import Span

# Bindings tried for one index at most: enough for any board, and a bound on the check's time.
MAX_BINDINGS = 4096

# name -> the values surely bound to it where an expression is evaluated
Sure = dict[str, tuple[int, ...]]
Report = Callable[[str, Span], None]


def check_sure_indices(game: ir.Game, report: Report) -> None:
    """Call ``report(message, span)`` for each index out of range whenever it is evaluated."""
    for action in game.actions:
        params: Sure = {name: values for name, _, values in action.params
                        if isinstance(values, tuple) and values}
        if action.requires is not None:
            _expr(action.requires, params, report)
        _statements(action.effect, {}, report)
    for expr in (game.terminal, game.quiet, *game.utilities, *game.evaluations):
        if expr is not None:
            _expr(expr, {}, report)


def _expr(e: ir.Expr, sure: Sure, report: Report) -> None:
    if isinstance(e, (ir.VarRef, ir.ConstRef)):
        shape = e.var.shape if isinstance(e, ir.VarRef) else e.const.shape
        name = e.var.name if isinstance(e, ir.VarRef) else e.const.name
        for index, extent in zip(e.indices, shape):
            _expr(index, sure, report)
            _index(index, extent, name, sure, report)
    elif isinstance(e, ir.Quantifier):
        _expr(e.body, {**sure, **_bound(e.binders, every=e.kind not in ("any", "all"))}, report)
    elif isinstance(e, ir.Binary) and e.op in ("and", "or"):
        _expr(e.left, sure, report)
        _expr(e.right, {}, report)          # evaluated only on the left's say
    elif isinstance(e, ir.Binary):
        _expr(e.left, sure, report)
        _expr(e.right, sure, report)
    elif isinstance(e, ir.Unary):
        _expr(e.operand, sure, report)
    elif isinstance(e, ir.IfExpr):
        _expr(e.cond, sure, report)
        _expr(e.then, {}, report)
        _expr(e.otherwise, {}, report)
    elif isinstance(e, (ir.Builtin, ir.Call)):
        for arg in e.args:
            _expr(arg, sure, report)
    elif isinstance(e, ir.Let):
        _expr(e.value, sure, report)
        _expr(e.body, _without(sure, e.name), report)


def _statements(stmts, sure: Sure, report: Report) -> None:
    for s in stmts:
        if isinstance(s, ir.Assign):
            for index, extent in zip(s.indices, s.var.shape):
                _expr(index, sure, report)
                _index(index, extent, s.var.name, sure, report)
            _expr(s.value, sure, report)
        elif isinstance(s, ir.For):
            _statements(s.body, {**sure, **_bound(s.binders, every=True)}, report)
        elif isinstance(s, ir.If):
            _expr(s.cond, sure, report)
            _statements(s.then, {}, report)
            _statements(s.otherwise, {}, report)
        elif isinstance(s, ir.LetStmt):
            _expr(s.value, sure, report)
            _statements(s.body, _without(sure, s.name), report)
        elif isinstance(s, ir.Random):
            _statements(s.body, _without(sure, s.name), report)
        elif isinstance(s, ir.Repeat):      # the first pass always runs
            _statements(s.body, sure, report)
        elif isinstance(s, ir.Next):
            _expr(s.player, sure, report)


def _bound(binders, every: bool) -> Sure:
    """The values surely bound by a binder list: all of them, or only the first combination.
    A binder whose range depends on local names, or is empty, binds nothing sure."""
    if not all(isinstance(values, tuple) and values for _, values in binders):
        return {}
    return {name: values if every else values[:1] for name, values in binders}


def _without(sure: Sure, name: str) -> Sure:
    return {k: v for k, v in sure.items() if k != name}


def _index(index: ir.Expr, extent: int, name: str, sure: Sure, report: Report) -> None:
    if isinstance(index, ir.Lit):
        return                              # the checker's own E220 covers a literal
    used = sorted(set(_locals(index)))
    if not used or any(n not in sure for n in used) or _reads_state(index):
        return
    combinations = 1
    for n in used:
        combinations *= len(sure[n])
    if combinations > MAX_BINDINGS:
        return
    evaluate = expr_fn(index)
    for values in itertools.product(*(sure[n] for n in used)):
        binding = dict(zip(used, values))
        try:
            value = evaluate(None, binding)
        except EvalError:
            return                          # reported in play, where it happens
        if type(value) is int and not 0 <= value < extent:
            where = ", ".join(f"{n} = {v}" for n, v in binding.items())
            report(f"index {value} is out of range 0..{extent - 1} for '{name}' when {where}",
                   index.span)
            return


def _locals(e) -> Iterator[str]:
    for node in _nodes(e):
        if isinstance(node, ir.Local):
            yield node.name


def _reads_state(e) -> bool:
    return any(isinstance(node, (ir.VarRef, ir.Mover, ir.Call, ir.Quantifier, ir.Let))
               for node in _nodes(e))


def _nodes(e) -> Iterator[object]:
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        for field in getattr(node, "__dataclass_fields__", ()):
            if field in ("span", "var", "const", "define"):
                continue
            value = getattr(node, field)
            if isinstance(value, tuple):
                stack.extend(v for v in value if hasattr(v, "__dataclass_fields__"))
            elif hasattr(value, "__dataclass_fields__"):
                stack.append(value)
