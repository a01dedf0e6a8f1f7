"""What the compiler proves about expressions, and what it does with the proofs.

Pure functions on ``P`` values (gdl.backends.pycompile.pyexpr): each takes operands already
compiled and returns the compiled result, folded where the operands decide it. They are the
whole of the compiler's reasoning about values, so each can be tested alone
(tests/test_compile_facts.py) against Python's arithmetic and the reference interpreter.

* Constant folding: operators, comparisons, builtins, quantifier terms whose values are known.
* Value sets: ``P.vals`` is every value an expression can take; a comparison true (or false) for
  every pair of operand values is that constant.
* Guard facts: ``facts`` maps the text of an expression to what holds on the current path —
  ``True`` for a condition known to hold, or ``(low, high)`` bounds (either may be None) for an
  int expression, from guards such as ``r >= 0 and r < rows``. They decide comparisons and prove
  that an index fits, so its check can be left out.
* Common subexpressions (``cse``): a repeated subexpression is computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gdl.backends.pycompile.pyexpr import P, Temporaries, children, const, name, node, rebuild
from gdl.lang.values import exact_quotient

Facts = dict   # text of an expression -> True, or (low, high) bounds


# ---- value sets --------------------------------------------------------------------------------

def small_set(values: Iterable, limit: int = 512) -> frozenset | None:
    """The values as a frozenset, or None (unknown) when there are more than ``limit``."""
    if isinstance(values, (tuple, list, range)) and len(values) > 4 * limit:
        return None     # a large domain: not worth a set built only to be thrown away
    values = frozenset(values)
    return values if len(values) <= limit else None


def combine(a: frozenset | None, b: frozenset | None, fn: Callable) -> frozenset | None:
    """The set of fn(x, y) over two value sets (pairs where fn raises are left out: they raise)."""
    if a is None or b is None or len(a) * len(b) > 1024:
        return None
    out = set()
    for x in a:
        for y in b:
            try:
                out.add(fn(x, y))
            except ZeroDivisionError:
                pass
    return small_set(out)


def bounds(vals: frozenset | None) -> tuple[int | None, int | None]:
    if vals is None or not vals or any(type(v) is not int for v in vals):
        return None, None
    return min(vals), max(vals)


ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
         "//": lambda a, b: a // b, "%": lambda a, b: a % b}
COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
           "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}   # k op x is x MIRROR[op] k


# ---- guard facts -------------------------------------------------------------------------------

def merge_facts(*dicts: Facts) -> Facts:
    """Everything the dicts say together (bounds on the same text intersect)."""
    out: Facts = {}
    for d in dicts:
        for key, value in d.items():
            if value is True or key not in out:
                out[key] = value
            elif out[key] is not True:
                lo1, hi1 = out[key]
                lo2, hi2 = value
                lo = lo2 if lo1 is None else lo1 if lo2 is None else max(lo1, lo2)
                hi = hi2 if hi1 is None else hi1 if hi2 is None else min(hi1, hi2)
                out[key] = (lo, hi)
    return out


def facts_when_true(cond: P) -> Facts:
    """What holds where ``cond`` has been found true: it, and what it implies."""
    return merge_facts(cond.facts, {cond.text: True})


def compare_facts(op: str, x: P, k) -> Facts:
    """What ``x op k`` (k a constant int) tells about x when it holds."""
    if type(k) is not int:
        return {}
    implied = {">=": (k, None), ">": (k + 1, None), "<=": (None, k), "<": (None, k - 1),
               "==": (k, k)}.get(op)
    return {x.text: implied} if implied else {}


def known_bounds(x: P, facts: Facts) -> tuple[int | None, int | None]:
    """(low, high) bounds of an int expression, from its values and this path's guards."""
    low, high = bounds(x.vals)
    fact = facts.get(x.text)
    if isinstance(fact, tuple):
        if fact[0] is not None:
            low = fact[0] if low is None else max(low, fact[0])
        if fact[1] is not None:
            high = fact[1] if high is None else min(high, fact[1])
    return low, high


def proves(x: P, lo: int, hi: int, facts: Facts) -> bool:
    """Whether x certainly lies in lo..hi (then an index check on it can be left out)."""
    low, high = known_bounds(x, facts)
    return low is not None and high is not None and low >= lo and high <= hi


def decide(op: str, low, high, k):
    """The value of ``x op k`` for every x in [low, high], or None when it depends on x."""
    if low is None or high is None:
        return None
    if op == ">=":
        return True if low >= k else False if high < k else None
    if op == ">":
        return True if low > k else False if high <= k else None
    if op == "<=":
        return True if high <= k else False if low > k else None
    if op == "<":
        return True if high < k else False if low >= k else None
    if op == "==":
        return False if k < low or k > high else (True if low == high == k else None)
    if op == "!=":
        return True if k < low or k > high else (False if low == high == k else None)
    return None


# ---- operators ---------------------------------------------------------------------------------

def negate(x: P) -> P:
    """``-x``."""
    if x.is_const:
        return const(-x.const)
    return node("neg", (x,), safe=x.safe, cost=x.cost + 1,
                vals=None if x.vals is None else small_set(-v for v in x.vals))


def logical_not(x: P, facts: Facts) -> P:
    """``not x``."""
    if x.is_const:
        return const(not x.const)
    if facts.get(x.text) is True:
        return const(False)
    if x.kind == "not":
        return x.parts[0]         # a boolean: `not not b` is b
    return node("not", (x,), safe=x.safe, cost=x.cost + 1, vals=frozenset((False, True)))


def _known_truth(p: P, facts: Facts) -> bool | None:
    if p.is_const:
        return bool(p.const)
    return True if facts.get(p.text) is True else None


def right_alone(op: str, left: P, facts: Facts) -> bool:
    """Whether ``left op right`` (``and``/``or``) is just ``right``: `True and b`, `False or b`."""
    return _known_truth(left, facts) == (op == "and")


def decided_by_left(op: str, left: P, facts: Facts) -> P | None:
    """The value of ``left op right`` (``and``/``or``) when the left operand alone decides it
    (`False and b`, `True or b`); the right operand is then never evaluated."""
    truth = _known_truth(left, facts)
    if truth is None or truth == (op == "and"):
        return None
    return left if left.is_const else const(True)


def logical(op: str, left: P, right: P) -> P:
    """``left op right`` (``and``/``or``) when the left operand does not decide it; ``right`` was
    compiled knowing ``facts_when_true(left)`` for ``and``."""
    if right.is_const:
        if bool(right.const) == (op == "and"):
            return left          # `x and True` is x (a bool); so is `x or False`
        if left.safe:
            return right
    out_facts = merge_facts(left.facts, right.facts, {left.text: True, right.text: True}) \
        if op == "and" else {}
    return node("op", (op, left, right), safe=left.safe and right.safe,
                vals=frozenset((False, True)), facts=out_facts, cost=left.cost + right.cost + 1)


def conditional(cond: P, then: P, otherwise: P) -> P:
    """``then if cond else otherwise``, cond not constant; ``then`` was compiled knowing
    ``facts_when_true(cond)``."""
    vals = None if then.vals is None or otherwise.vals is None else then.vals | otherwise.vals
    return node("if", (cond, then, otherwise), safe=cond.safe and then.safe and otherwise.safe,
                vals=vals, cost=cond.cost + then.cost + otherwise.cost + 1)


ZeroSite = Callable[[str], int]   # the error's message -> the number of its site (E302)


def arith(op: str, left: P, right: P, zero_site: ZeroSite | None = None) -> P:
    """``left op right`` for + - * // % (``//`` is floor division). ``zero_site`` registers the
    located error raised when a divisor that may be zero is zero (required for ``//`` and ``%``)."""
    if left.is_const and right.is_const and not (op in ("//", "%") and right.const == 0):
        return const(ARITH[op](left.const, right.const))
    if op in ("+", "-") and right.is_const and right.const == 0:
        return left
    if op == "+" and left.is_const and left.const == 0:
        return right
    if op == "*" and right.is_const and right.const == 1:
        return left
    if op == "*" and left.is_const and left.const == 1:
        return right
    if op == "*" and ((right.is_const and right.const == 0 and left.safe)
                      or (left.is_const and left.const == 0 and right.safe)):
        return const(0)
    vals = combine(left.vals, right.vals, ARITH[op])
    cost = left.cost + right.cost + 1
    if op in ("//", "%"):
        if right.is_const and right.const != 0:
            return node("op", (op, left, right), safe=left.safe, vals=vals, cost=cost)
        assert zero_site is not None, "a division needs the site of its error"
        site = zero_site("division by zero" if op == "//" else "modulo by zero")
        return node("call", ("_div" if op == "//" else "_mod", (left, right, const(site))),
                    safe=False, vals=vals, cost=cost + 1)
    if op == "-" and right.is_const and type(right.const) is int and right.const < 0:
        op, right = "+", const(-right.const)
    elif op == "+" and right.is_const and type(right.const) is int and right.const < 0:
        op, right = "-", const(-right.const)
    return node("op", (op, left, right), safe=left.safe and right.safe, vals=vals, cost=cost)


def exact_division(left: P, right: P, zero_site: ZeroSite) -> P:
    """``left / right``, exact: an int when it divides evenly, else a Fraction."""
    if left.is_const and right.is_const and right.const != 0:
        return const(exact_quotient(left.const, right.const))
    site = zero_site("division by zero")
    return node("call", ("_exact", (left, right, const(site))), safe=False,
                cost=left.cost + right.cost + 2)


def compare(op: str, left: P, right: P, facts: Facts) -> P:
    """``left op right`` for == != < <= > >=, decided by constants, by the operands' value sets or
    by a bound known on this path; when it holds, it tells bounds on the non-constant side."""
    fn = COMPARE[op]
    if left.is_const and right.is_const:
        return const(fn(left.const, right.const))
    safe = left.safe and right.safe
    if safe:
        outcomes = combine(left.vals, right.vals, fn)
        if outcomes is not None and len(outcomes) == 1:
            return const(next(iter(outcomes)))
        # a bound known from a guard on this path
        for x, k, o in ((left, right, op), (right, left, MIRROR[op])):
            if k.is_const and type(k.const) is int and not x.is_const:
                low, high = known_bounds(x, facts)
                decided = decide(o, low, high, k.const)
                if decided is not None:
                    return const(decided)
    implied = {}
    if right.is_const and not left.is_const:
        implied = compare_facts(op, left, right.const)
    elif left.is_const and not right.is_const:
        implied = compare_facts(MIRROR[op], right, left.const)
    return node("op", (op, left, right), safe=safe, vals=frozenset((False, True)), facts=implied,
                cost=left.cost + right.cost + 1)


BUILTINS = ("abs", "min", "max")   # their names become code text: only these


def builtin(function: str, args: list[P]) -> P:
    """``abs(x)``, ``min(...)``, ``max(...)``."""
    if function not in BUILTINS:
        raise AssertionError(f"unknown builtin {function!r}")
    if all(a.is_const for a in args):
        values = [a.const for a in args]
        return const(abs(values[0]) if function == "abs" else
                     min(values) if function == "min" else max(values))
    vals = None
    if function == "abs" and args[0].vals is not None:
        vals = small_set(abs(v) for v in args[0].vals)
    return node("call", (function, tuple(args)), safe=all(a.safe for a in args), vals=vals,
                cost=1 + sum(a.cost for a in args))


# ---- quantifiers, unrolled ---------------------------------------------------------------------

def fold_terms(kind: str, terms: list[P]) -> P:
    """An unrolled quantifier (any, all, count, sum, min, max) over its terms, one per binding
    in the interpreter's order."""
    if kind in ("any", "all"):
        stop = kind == "any"   # the value that decides
        kept = []
        for t in terms:
            if t.is_const:
                if bool(t.const) == stop:
                    kept.append(t)
                    break
                continue
            kept.append(t)
        if not kept:
            return const(not stop)
        if kept[-1].is_const and all(t.safe for t in kept[:-1]):
            return const(stop)
        op = "or" if stop else "and"
        out = kept[0]
        for t in kept[1:]:
            facts = merge_facts(out.facts, t.facts, {out.text: True, t.text: True}) \
                if op == "and" else {}
            out = node("op", (op, out, t), safe=out.safe and t.safe,
                       vals=frozenset((False, True)), facts=facts, cost=out.cost + t.cost + 1)
        return out
    if kind == "count":
        total = sum(1 for t in terms if t.is_const and t.const)
        dynamic = [t for t in terms if not t.is_const]
        if not dynamic:
            return const(total)
        if len(dynamic) == 1 and total == 0:
            t = dynamic[0]
            return node("if", (t, const(1), const(0)), safe=t.safe, vals=frozenset((0, 1)),
                        cost=t.cost + 1)
        out = const(total)
        for t in dynamic:
            out = node("op", ("+", out, t), safe=out.safe and t.safe, cost=out.cost + t.cost + 1,
                       vals=frozenset(range(len(terms) + 1)))
        return out
    if kind == "sum":
        out = terms[0]
        for t in terms[1:]:
            out = arith("+", out, t)
        return out
    # min / max: every term is evaluated, like the interpreter's min()/max() over them
    if len(terms) == 1:
        return terms[0]
    if all(t.is_const for t in terms):
        return const(min(t.const for t in terms) if kind == "min" else max(t.const for t in terms))
    vals = None
    if all(t.vals is not None for t in terms) and sum(len(t.vals) for t in terms) <= 512:
        vals = frozenset().union(*(t.vals for t in terms))
    return node("call", (kind, tuple(terms)), safe=all(t.safe for t in terms), vals=vals,
                cost=1 + sum(t.cost for t in terms))


# ---- common subexpressions ---------------------------------------------------------------------

def cse(root: P, temps: Temporaries) -> P:
    """Compute each repeated subexpression once: the first occurrence that is evaluated on every
    path reaching a later one binds a temporary (``(_c1 := ...)``), the later ones read it.

    A *guard* is the set of conditions known on the current path, as (text, truth) pairs, from
    the left operands of ``and``/``or`` and the conditions of ``if`` expressions. Expressions are
    pure and the state does not change while one is evaluated, so equal texts have equal values;
    an occurrence may reuse a binding made under a guard that is a subset of its own (it was
    evaluated earlier on this very path). Generator bodies (quantifiers that were not unrolled)
    are left alone: their names change from one iteration to the next."""
    counts: dict[str, int] = {}

    def count(p: P) -> None:
        if p.kind in ("const", "name") or p.cost < 3:
            for child in children(p):
                count(child)
            return
        counts[p.text] = counts.get(p.text, 0) + 1
        if counts[p.text] == 1:
            for child in children(p):
                count(child)

    count(root)
    if not any(n > 1 for n in counts.values()):
        return root
    bound: dict[str, list[tuple[frozenset, str]]] = {}

    def truths(p: P, value: bool) -> set[tuple[str, bool]]:
        out = {(p.text, value)}
        if p.kind == "op" and p.parts[0] == ("and" if value else "or"):
            out |= truths(p.parts[1], value) | truths(p.parts[2], value)
        return out

    def walk(p: P, guard: frozenset) -> P:
        if counts.get(p.text, 0) > 1:
            for known, temp in bound.get(p.text, ()):
                if known <= guard:
                    return name(temp, p.vals)
        k = p.kind
        if k == "op" and p.parts[0] in ("and", "or"):
            left = walk(p.parts[1], guard)
            more = truths(p.parts[1], p.parts[0] == "and")
            kids = [left, walk(p.parts[2], guard | more)]
        elif k == "if":
            cond = walk(p.parts[0], guard)
            kids = [cond, walk(p.parts[1], guard | truths(p.parts[0], True)),
                    walk(p.parts[2], guard | truths(p.parts[0], False))]
        else:
            kids = [walk(child, guard) for child in children(p)]
        out = rebuild(p, kids) if kids else p
        if counts.get(p.text, 0) > 1:
            temp = temps.temp("_c")
            bound.setdefault(p.text, []).append((guard, temp))
            return node("walrus", (temp, out), safe=p.safe, vals=p.vals, facts=p.facts,
                        cost=p.cost)
        return out

    return walk(root, frozenset())
