"""The fast path: checked game (gdl.lang.ir) → the source text of one Python module → ``exec`` → a
game implementing the protocol (gdl.backends.runtime.CompiledGame), with exactly the semantics of the
reference interpreter (gdl.backends.interpret): the same state tuples (so states compare directly), legal
action ids and order, action names, chance outcomes, returns, evaluations, and the same run-time
errors (code, span, state, action). ``gdl show FILE --emit python`` prints the module.

What the compiler does
----------------------
* Everything constant is decided once. Each ground action gets its own code with its parameters
  as constants; quantifiers and ``for`` loops over small ranges are unrolled; ``define`` bodies
  are inlined (arguments that may fail are evaluated first, where the call is); constant
  subexpressions are folded; an index check is left out when the index provably fits, from the
  declared domains or from a guard earlier on the same path (``r >= 0 and r < rows and
  cell[c][r] == p``). ``legal_actions`` is specialised per player (``mover`` is a constant
  there), and so are effects; ``apply`` is one function that reaches an action's code through a
  binary decision on its id.
* Repeated subexpressions of one rule are computed once: the first occurrence evaluated on every
  path that reaches the others binds a temporary (``(_c3 := ...)``), so ``count k in 1..3: all j
  in 1..3: ...`` costs about what a hand-written loop does.
* Effects build the next state as one tuple (element by element for small states, through a
  list for large ones). When an index depends on a slot of the old state with few values
  (``cell[c][height[c]] = mover``), the effect is split on that value, each case with constant
  indices; otherwise it works on a list of cells, like the interpreter.
* ``current_player`` remembers its answer for the very same state object, so the usual
  ``current_player(s)`` then ``legal_actions(s)`` evaluates the terminal rule once; a costly
  terminal or utility rule is also cached per state (bounded; ``build(..., cache=False)``
  leaves these caches out).
* Chance (``random``) is compiled as the interpreter runs it: the effect is replayed from the
  state before the action with the outcomes chosen so far (the state layout is the same), so
  the protocol is identical. The decision itself runs the effect only up to its first
  ``random``. A fixed distribution is one shared list of shared ``Fraction`` objects.
* Inputs the generated code does not specialise for (an action id outside the game's, a mover
  that is not a player) go to the reference interpreter. If Python refuses the generated source
  (rules nested deeper than its compiler allows), the game is interpreted instead.

Untrusted input stays data
--------------------------
Nothing from the rule file is pasted into the source except what cannot change its meaning:
numbers and booleans (written with ``repr``), and the file's own lines inside ``#`` comments,
after every character that is not printable (newlines, carriage returns, form feeds, NUL, line
separators) is replaced by ``?``. Python names in the generated code are the compiler's own
(``s``, ``_c3``, ``q2_r``: a user's identifier appears only after a fixed prefix, cut to 24
characters, so keywords, dunders and very long names are harmless). Names, titles and messages
reach the run-time errors through tables built in Python, never through the source. The module
runs with a ``__builtins__`` that holds only the few functions it calls.

The generated source is registered with ``linecache`` under ``<gdl:FILE:HASH>``, so a traceback
through it shows the generated line (rules carry their ``file:line`` as comments). The same
input always gives byte-identical source. Compiled modules are cached per user (gdl.backends.runtime).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from gdl.backends.runtime import CompiledGame
from gdl.errors import Source
from gdl.lang import ir
from gdl.lang.ast import Span
from gdl.protocol import distribution_problem

__all__ = ["CompiledGame", "build", "generate"]

UNROLL_COMBOS = 64        # quantifiers / for loops with at most this many bindings are unrolled
UNROLL_SIZE = 6000        # ... when the unrolled body is at most this many IR nodes
INLINE_SIZE = 6000        # define bodies up to this size are inlined, larger ones become functions
SPECIALISE_LIMIT = 4000   # effects are specialised per player while players × ground actions <= this
TUPLE_ELEMENTS = 24       # states up to this size are built element by element, larger via a list
SPLIT_VALUES = 16         # an effect splits on a slot with at most this many values ...
SPLIT_DEPTH = 1           # ... and on at most this many slots at once
CACHE_COST = 40           # terminal / utility rules at least this costly are cached per state
CACHE_LIMIT = 100_000     # ... in a dict emptied when it reaches this many states


class _NeedList(Exception):
    """An effect cannot be compiled to straight tuple building (a write or read at a slot that is
    not known at compile time, with other slots already changed): use a list of cells, or split
    on the value of ``slot`` (the state slot the unknown index depends on), when known."""

    def __init__(self, slot: int | None = None):
        super().__init__(slot)
        self.slot = slot


def _slot_read(p: P) -> int | None:
    """A state slot an expression reads at a constant position (``s[5]``, or the local ``c5``
    holding slot 5), if any: splitting on its value may make the expression constant."""
    if p.kind == "read" and p.parts[0] == "s" and p.parts[1].is_const:
        return p.parts[1].const
    if p.kind == "name" and p.text[:1] == "c" and p.text[1:].isdigit():
        return int(p.text[1:])
    for child in _children(p):
        found = _slot_read(child)
        if found is not None:
            return found
    return None


# ---- generated Python expressions ------------------------------------------------------------

_NOCONST = object()
_PYOP = {"/": "//", "and": "and", "or": "or"}
_FLAT = {"and", "or", "+", "*"}


def _lit(value) -> str:
    if type(value) is bool:
        return "True" if value else "False"
    if type(value) is int:
        return str(value) if value >= 0 else f"({value})"
    if type(value) is Fraction:
        return f"_Fraction({value.numerator}, {value.denominator})"
    raise AssertionError(f"not a literal: {value!r}")


class P:
    """A Python expression under construction: its text, and what the compiler knows about it.

    ``safe``: evaluating it cannot raise; ``const``: its value, when known; ``vals``: a frozenset
    of every value it can take (None: unknown); ``facts``: what is true when it is truthy
    (text -> (low, high) bounds, and the texts of sub-conditions); ``cost``: rough size.
    ``kind``/``parts`` keep the structure for common-subexpression elimination."""

    __slots__ = ("const", "cost", "facts", "kind", "parts", "safe", "text", "vals")

    def __init__(self, kind, parts, text, *, safe=True, const=_NOCONST, vals=None, facts=None,
                 cost=1):
        self.kind, self.parts, self.text = kind, parts, text
        self.safe, self.const, self.vals = safe, const, vals
        self.facts = facts or {}
        self.cost = cost

    @property
    def is_const(self) -> bool:
        return self.const is not _NOCONST


def const(value) -> P:
    return P("const", (), _lit(value), const=value, vals=frozenset((value,)), cost=0)


def name(text: str, vals=None) -> P:
    return P("name", (), text, vals=vals, cost=0)


def _strip(p: P, op: str) -> str:
    """The text of an operand; a left operand with the same associative operator loses its
    parentheses, so long chains stay flat (Python's parser limits nesting)."""
    if p.kind == "op" and p.parts[0] == op and op in _FLAT:
        return p.text[1:-1]
    return p.text


def _render(kind: str, parts) -> str:
    if kind == "read":
        container, index = parts
        return f"{container}[{index.text}]"
    if kind == "op":
        op, left, right = parts
        return f"({_strip(left, op)} {_PYOP.get(op, op)} {_strip(right, op)})"
    if kind == "not":
        return f"(not {parts[0].text})"
    if kind == "neg":
        return f"(-{parts[0].text})"
    if kind == "if":
        cond, then, otherwise = parts
        return f"({then.text} if {cond.text} else {otherwise.text})"
    if kind == "call":
        function, args = parts
        return f"{function}({', '.join(a.text for a in args)})"
    if kind == "check":
        x, extent, site, temp = parts
        if temp is None:
            return f"({x.text} if 0 <= {x.text} < {extent} else _e303({x.text}, {site}))"
        return f"({temp} if 0 <= ({temp} := {x.text}) < {extent} else _e303({temp}, {site}))"
    if kind == "bind":
        pairs, body = parts
        tests = " and ".join(f"({t} := {a.text}) is not None" for t, a in pairs)
        return f"({body.text} if {tests} else None)"
    if kind == "walrus":
        temp, x = parts
        return f"({temp} := {x.text})"
    raise AssertionError(kind)


def node(kind: str, parts, **known) -> P:
    return P(kind, parts, _render(kind, parts), **known)


def _children(p: P):
    k = p.kind
    if k == "read":
        return [p.parts[1]]
    if k == "op":
        return [p.parts[1], p.parts[2]]
    if k in ("not", "neg"):
        return [p.parts[0]]
    if k == "if":
        return list(p.parts)
    if k == "call":
        return list(p.parts[1])
    if k == "check":
        return [p.parts[0]]
    if k == "bind":
        return [a for _, a in p.parts[0]] + [p.parts[1]]
    if k == "walrus":
        return [p.parts[1]]
    return []


def _rebuild(p: P, kids) -> P:
    k = p.kind
    if k == "read":
        parts = (p.parts[0], kids[0])
    elif k == "op":
        parts = (p.parts[0], kids[0], kids[1])
    elif k in ("not", "neg"):
        parts = (kids[0],)
    elif k == "if":
        parts = tuple(kids)
    elif k == "call":
        parts = (p.parts[0], tuple(kids))
    elif k == "check":
        parts = (kids[0],) + tuple(p.parts[1:])
    elif k == "bind":
        pairs = tuple((t, a) for (t, _), a in zip(p.parts[0], kids))
        parts = (pairs, kids[-1])
    elif k == "walrus":
        parts = (p.parts[0], kids[0])
    else:
        return p
    return P(k, parts, _render(k, parts), safe=p.safe, const=p.const, vals=p.vals,
             facts=p.facts, cost=p.cost)


def _small_set(values, limit: int = 512):
    values = frozenset(values)
    return values if len(values) <= limit else None


def _combine(a, b, fn):
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
    return _small_set(out)


def _bounds(vals):
    if vals is None or not vals or any(type(v) is not int for v in vals):
        return None, None
    return min(vals), max(vals)


_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a // b, "%": lambda a, b: a % b}
_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _merge_facts(*dicts):
    out = {}
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


def _compare_facts(op: str, x: P, k):
    """What ``x op k`` (k a constant int) tells about x when it holds."""
    if type(k) is not int:
        return {}
    bounds = {">=": (k, None), ">": (k + 1, None), "<=": (None, k), "<": (None, k - 1),
              "==": (k, k)}.get(op)
    return {x.text: bounds} if bounds else {}


# ---- common subexpressions -------------------------------------------------------------------

def _cse(root: P, fn: _Function) -> P:
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
            for child in _children(p):
                count(child)
            return
        counts[p.text] = counts.get(p.text, 0) + 1
        if counts[p.text] == 1:
            for child in _children(p):
                count(child)

    count(root)
    if not any(n > 1 for n in counts.values()):
        return root
    bound: dict[str, list[tuple[frozenset, str]]] = {}

    def truths(p: P, value: bool):
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
            kids = [walk(child, guard) for child in _children(p)]
        out = _rebuild(p, kids) if kids else p
        if counts.get(p.text, 0) > 1:
            temp = fn.temp("_c")
            bound.setdefault(p.text, []).append((guard, temp))
            return node("walrus", (temp, out), safe=p.safe, vals=p.vals, facts=p.facts,
                        cost=p.cost)
        return out

    return walk(root, frozenset())


# ---- contexts ----------------------------------------------------------------------------------

class _Ctx:
    """Where an expression is compiled: local names, the mover, how state slots are read."""

    __slots__ = ("container", "dirty", "env", "facts", "fn", "mover", "slots")

    def __init__(self, env, mover: P, slots, container: str, dirty, facts, fn):
        self.env = env                # local name -> P
        self.mover = mover
        self.slots = slots            # slot -> P for slots held in locals (tuple-mode effects)
        self.container = container    # the name of the state tuple / cell list
        self.dirty = dirty            # True when slots hold changed values (tuple mode)
        self.facts = facts
        self.fn = fn

    def bind(self, more: dict) -> _Ctx:
        return _Ctx({**self.env, **more}, self.mover, self.slots, self.container, self.dirty,
                    self.facts, self.fn)

    def knowing(self, facts: dict) -> _Ctx:
        if not facts:
            return self
        return _Ctx(self.env, self.mover, self.slots, self.container, self.dirty,
                    _merge_facts(self.facts, facts), self.fn)


class _Function:
    """Lines of one generated function, and its temporaries."""

    def __init__(self, header: str):
        self.lines = [header]
        self.counter = 0
        self.by_text: dict[tuple[str, str], str] = {}

    def temp(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def temp_for(self, prefix: str, text: str) -> str:
        """One temporary per distinct text: bindings of the same text hold the same value."""
        key = (prefix, text)
        if key not in self.by_text:
            self.by_text[key] = self.temp(prefix)
        return self.by_text[key]


# ---- the compiler ------------------------------------------------------------------------------

class _Compiler:
    def __init__(self, game: ir.Game, source: Source | None, cache: bool = True):
        self.game = game
        self.cache = cache
        self.source = source
        self.filename = source.filename if source is not None else "<input>"
        self.lines_of = source.text.split("\n") if source is not None else []   # as Lark counts lines
        self.n = len(game.players)
        self.base = len(game.initial)
        self.sites: list[tuple] = []
        self.tables: dict[tuple, str] = {}
        self.preamble: list[str] = []
        self.out: list[str] = []
        self.define_fns: dict[int, str] = {}
        self.size_memo: dict[int, int] = {}
        self.dists: dict[str, str] = {}
        self.fractions: dict[Fraction, str] = {}
        self.domains: dict[int, frozenset | None] = {}
        self.commented: set = set()   # (action, player) whose rule lines are already shown
        self.mover_vals = self._mover_values()
        self.show_rules = True

    # -- small helpers
    def site(self, *entry) -> int:
        self.sites.append(entry)
        return len(self.sites) - 1

    def comment(self, span: Span | None, what: str = "") -> str | None:
        if span is None or not span.line:
            return None
        text = self.lines_of[span.line - 1].strip() if span.line <= len(self.lines_of) else ""
        shown = _sanitize(f"{self.filename}:{span.line}: {text}")
        return f"# {shown}"

    def fraction(self, value: Fraction) -> str:
        """A shared name for a constant probability: one object per distinct value."""
        if value not in self.fractions:
            self.fractions[value] = f"_F{len(self.fractions)}"
            self.preamble.append(f"{self.fractions[value]} = {_lit(value)}")
        return self.fractions[value]

    def table(self, const: ir.Constant) -> str:
        flat = tuple(_flatten(const.value))
        key = (const.name, flat)
        if key not in self.tables:
            label = f"_K{len(self.tables)}"
            self.tables[key] = label
            self.preamble.append(f"{label} = {_tuple_lit(flat)}")
        return self.tables[key]

    def _mover_values(self):
        """Every value slot 0 can hold: a player (`next` naming anything else is an error)."""
        return frozenset(range(self.n))

    # -- sizes, to decide what to unroll and inline
    def size(self, e) -> int:
        if isinstance(e, ir.Call):
            key = id(e.define)
            if key not in self.size_memo:
                self.size_memo[key] = 1 << 30  # (recursion is refused by the checker)
                self.size_memo[key] = self.size(e.define.body)
            return 1 + self.size_memo[key] + sum(self.size(a) for a in e.args)
        if isinstance(e, ir.Quantifier):
            return 1 + _combos_count(e.binders) * self.size(e.body)
        total = 1
        for child in _ir_children(e):
            total += self.size(child)
        return total

    # ---- expressions -----------------------------------------------------------------------

    def expr(self, e, ctx: _Ctx) -> P:
        if isinstance(e, ir.Lit):
            return const(e.value)
        if isinstance(e, ir.Local):
            return ctx.env[e.name]
        if isinstance(e, ir.Mover):
            return ctx.mover
        if isinstance(e, ir.VarRef):
            return self.var_ref(e, ctx)
        if isinstance(e, ir.ConstRef):
            return self.const_ref(e, ctx)
        if isinstance(e, ir.Unary):
            x = self.expr(e.operand, ctx)
            if e.op == "-":
                if x.is_const:
                    return const(-x.const)
                return node("neg", (x,), safe=x.safe, cost=x.cost + 1,
                            vals=None if x.vals is None else _small_set(-v for v in x.vals))
            if x.is_const:
                return const(not x.const)
            if ctx.facts.get(x.text) is True:
                return const(False)
            if x.kind == "not":
                return x.parts[0]         # a boolean: `not not b` is b
            return node("not", (x,), safe=x.safe, cost=x.cost + 1, vals=frozenset((False, True)))
        if isinstance(e, ir.Binary):
            return self.binary(e, ctx)
        if isinstance(e, ir.IfExpr):
            cond = self.expr(e.cond, ctx)
            if cond.is_const:
                return self.expr(e.then if cond.const else e.otherwise, ctx)
            then = self.expr(e.then, ctx.knowing(_merge_facts(cond.facts, {cond.text: True})))
            otherwise = self.expr(e.otherwise, ctx)
            vals = None if then.vals is None or otherwise.vals is None else then.vals | otherwise.vals
            return node("if", (cond, then, otherwise), safe=cond.safe and then.safe and otherwise.safe,
                        vals=vals, cost=cond.cost + then.cost + otherwise.cost + 1)
        if isinstance(e, ir.Builtin):
            args = [self.expr(a, ctx) for a in e.args]
            if all(a.is_const for a in args):
                values = [a.const for a in args]
                return const(abs(values[0]) if e.name == "abs" else
                             min(values) if e.name == "min" else max(values))
            vals = None
            if e.name == "abs" and args[0].vals is not None:
                vals = _small_set(abs(v) for v in args[0].vals)
            return node("call", (e.name, tuple(args)), safe=all(a.safe for a in args), vals=vals,
                        cost=1 + sum(a.cost for a in args))
        if isinstance(e, ir.Call):
            return self.call(e, ctx)
        if isinstance(e, ir.Quantifier):
            return self.quantifier(e, ctx)
        raise AssertionError(f"unknown expression {e!r}")

    # -- indexing
    def offset(self, indices, shape, what: str, span: Span, ctx: _Ctx):
        """(constant part, [dynamic parts]) of a row-major offset, with the interpreter's checks
        in its order; a part may be a call that raises (a constant index out of range)."""
        constant, parts = 0, []
        for index, extent, step in zip(indices, shape, ir.strides(shape)):
            x = self.expr(index, ctx)
            if x.is_const:
                if 0 <= x.const < extent:
                    constant += x.const * step
                    continue
                site = self.site("E303", extent, what, span)
                parts.append(node("call", ("_e303", (x, const(site))), safe=False, cost=1))
                break  # the interpreter stops at the first bad index
            if not self.proves(x, 0, extent - 1, ctx):
                site = self.site("E303", extent, what, span)
                temp = None if x.kind == "name" else ctx.fn.temp_for("_i", x.text)
                x = node("check", (x, extent, site, temp), safe=False, cost=x.cost + 2,
                         vals=None if x.vals is None else
                         _small_set(v for v in x.vals if 0 <= v < extent))
            parts.append(x if step == 1 else self.arith("*", x, const(step), None))
        return constant, parts

    def known_bounds(self, x: P, ctx: _Ctx):
        """(low, high) bounds of an int expression, from its values and this path's guards."""
        low, high = _bounds(x.vals)
        fact = ctx.facts.get(x.text)
        if isinstance(fact, tuple):
            if fact[0] is not None:
                low = fact[0] if low is None else max(low, fact[0])
            if fact[1] is not None:
                high = fact[1] if high is None else min(high, fact[1])
        return low, high

    def proves(self, x: P, lo: int, hi: int, ctx: _Ctx) -> bool:
        low, high = self.known_bounds(x, ctx)
        return low is not None and high is not None and low >= lo and high <= hi

    def domain(self, var: ir.Variable):
        """The values a variable's cells hold, as a frozenset; None for large domains."""
        if var.slot not in self.domains:
            self.domains[var.slot] = _small_set(var.values)
        return self.domains[var.slot]

    def var_ref(self, e: ir.VarRef, ctx: _Ctx) -> P:
        var = e.var
        vals = self.domain(var)
        if not e.indices:
            return self.read_slot(var.slot, vals, ctx)
        constant, parts = self.offset(e.indices, var.shape, var.name, e.span, ctx)
        if not parts:
            return self.read_slot(var.slot + constant, vals, ctx)
        index = self.sum_of(const(var.slot + constant), parts)
        if any(p.kind == "call" and p.parts[0] == "_e303" for p in parts):
            return node("read", (ctx.container, index), safe=False, vals=vals, cost=index.cost + 1)
        if ctx.dirty and any(var.slot <= k < var.slot + var.size for k in ctx.slots):
            raise _NeedList(_slot_read(index))
        return node("read", (ctx.container, index), safe=all(p.safe for p in parts), vals=vals,
                    cost=index.cost + 1)

    def read_slot(self, slot: int, vals, ctx: _Ctx) -> P:
        if slot in ctx.slots:
            return ctx.slots[slot]
        return node("read", (ctx.container, const(slot)), vals=vals, cost=1)

    def const_ref(self, e: ir.ConstRef, ctx: _Ctx) -> P:
        c = e.const
        constant, parts = self.offset(e.indices, c.shape, c.name, e.span, ctx)
        flat = tuple(_flatten(c.value))
        if not parts:
            return const(flat[constant])
        index = self.sum_of(const(constant), parts)
        return node("read", (self.table(c), index), safe=all(p.safe for p in parts),
                    vals=_small_set(flat), cost=index.cost + 1)

    def sum_of(self, constant: P, parts) -> P:
        total = constant if constant.const != 0 else None
        for part in parts:
            total = part if total is None else node(
                "op", ("+", total, part), safe=total.safe and part.safe,
                cost=total.cost + part.cost + 1)
        return total

    # -- operators
    def binary(self, e: ir.Binary, ctx: _Ctx) -> P:
        op = e.op
        if op in ("and", "or"):
            left = self.expr(e.left, ctx)
            if left.is_const:
                if bool(left.const) == (op == "and"):
                    return self.expr(e.right, ctx)
                return left
            known = ctx.facts.get(left.text)
            if known is True and op == "and":
                return self.expr(e.right, ctx)
            if known is True and op == "or":
                return const(True)
            facts = _merge_facts(left.facts, {left.text: True}) if op == "and" else {}
            right = self.expr(e.right, ctx.knowing(facts))
            if right.is_const:
                if bool(right.const) == (op == "and"):
                    return left          # `x and True` is x (a bool); so is `x or False`
                if left.safe:
                    return right
            out_facts = _merge_facts(left.facts, right.facts, {left.text: True, right.text: True}) \
                if op == "and" else {}
            return node("op", (op, left, right), safe=left.safe and right.safe,
                        vals=frozenset((False, True)), facts=out_facts,
                        cost=left.cost + right.cost + 1)
        left, right = self.expr(e.left, ctx), self.expr(e.right, ctx)
        if op in _COMPARE:
            return self.compare(op, left, right, ctx)
        if op == "÷":
            if left.is_const and right.is_const and right.const != 0:
                return const(Fraction(left.const, right.const))
            site = self.site("E302", "division by zero", e.span)
            return node("call", ("_exact", (left, right, const(site))), safe=False,
                        cost=left.cost + right.cost + 2)
        return self.arith(op, left, right, e.span)

    def arith(self, op: str, left: P, right: P, span: Span | None) -> P:
        if left.is_const and right.is_const and not (op in "/%" and right.const == 0):
            return const(_ARITH[op](left.const, right.const))
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
        vals = _combine(left.vals, right.vals, _ARITH[op])
        cost = left.cost + right.cost + 1
        if op in ("/", "%"):
            if right.is_const and right.const != 0:
                return node("op", (op, left, right), safe=left.safe, vals=vals, cost=cost)
            message = "division by zero" if op == "/" else "modulo by zero"
            site = self.site("E302", message, span)
            return node("call", ("_div" if op == "/" else "_mod", (left, right, const(site))),
                        safe=False, vals=vals, cost=cost + 1)
        if op == "-" and right.is_const and type(right.const) is int and right.const < 0:
            op, right = "+", const(-right.const)
        elif op == "+" and right.is_const and type(right.const) is int and right.const < 0:
            op, right = "-", const(-right.const)
        return node("op", (op, left, right), safe=left.safe and right.safe, vals=vals, cost=cost)

    def compare(self, op: str, left: P, right: P, ctx: _Ctx) -> P:
        fn = _COMPARE[op]
        if left.is_const and right.is_const:
            return const(fn(left.const, right.const))
        safe = left.safe and right.safe
        if safe:
            outcomes = _combine(left.vals, right.vals, fn)
            if outcomes is not None and len(outcomes) == 1:
                return const(next(iter(outcomes)))
            # a bound known from a guard on this path
            for x, k, o in ((left, right, op), (right, left, _MIRROR[op])):
                if k.is_const and type(k.const) is int and not x.is_const:
                    low, high = self.known_bounds(x, ctx)
                    decided = _decide(o, low, high, k.const)
                    if decided is not None:
                        return const(decided)
        facts = {}
        if right.is_const and not left.is_const:
            facts = _compare_facts(op, left, right.const)
        elif left.is_const and not right.is_const:
            facts = _compare_facts(_MIRROR[op], right, left.const)
        return node("op", (op, left, right), safe=safe, vals=frozenset((False, True)), facts=facts,
                    cost=left.cost + right.cost + 1)

    # -- definitions
    def call(self, e: ir.Call, ctx: _Ctx) -> P:
        define = e.define
        args = [self.expr(a, ctx) for a in e.args]
        if self.size(define.body) > INLINE_SIZE:
            return self.call_function(define, args, ctx)
        uses = _local_uses(define.body)
        env, pairs = {}, []
        for param, arg in zip(define.params, args):
            # Constants, names and cheap safe expressions are substituted; anything that may
            # raise is evaluated first, where the call is (the interpreter evaluates every
            # argument before the body), and so is a costly one the body uses several times.
            if arg.is_const or arg.kind == "name" or (
                    arg.safe and (arg.cost <= 3 or uses.get(param, 0) <= 1)):
                env[param] = arg
                continue
            temp = ctx.fn.temp_for("_a", arg.text)
            pairs.append((temp, arg))
            env[param] = name(temp, arg.vals)
        body = self.expr(define.body, _Ctx(env, ctx.mover, ctx.slots, ctx.container, ctx.dirty,
                                           ctx.facts, ctx.fn))
        if not pairs:
            return body
        return node("bind", (tuple(pairs), body), safe=body.safe and all(a.safe for _, a in pairs),
                    vals=body.vals, cost=body.cost + sum(a.cost + 1 for _, a in pairs))

    def call_function(self, define: ir.Define, args, ctx: _Ctx) -> P:
        if ctx.dirty:
            raise _NeedList   # the function reads the state; changed slots live in locals
        key = id(define)
        if key not in self.define_fns:
            label = f"_d{len(self.define_fns)}"
            self.define_fns[key] = label
            params = [f"p{i}_{_short(p)}" for i, p in enumerate(define.params)]
            fn = _Function(f"def {label}({', '.join(['s'] + params)}):")
            inner = _Ctx({p: name(q) for p, q in zip(define.params, params)},
                         self.mover_read("s"), {}, "s", False, {}, fn)
            body = _cse(self.expr(define.body, inner), fn)
            lines = [fn.lines[0]]
            comment = self.comment(define.span)
            if comment:
                lines.append("    " + comment)
            lines.append(f"    return {body.text}")
            self.out.extend(lines + [""])
        label = self.define_fns[key]
        return node("call", (label, (name(ctx.container),) + tuple(args)), safe=False,
                    cost=2 + sum(a.cost for a in args))

    def mover_read(self, container: str) -> P:
        return node("read", (container, const(0)), vals=self.mover_vals, cost=1)

    # -- quantifiers
    def quantifier(self, e: ir.Quantifier, ctx: _Ctx) -> P:
        combos = _combos_count(e.binders)
        if combos <= UNROLL_COMBOS and combos * self.size(e.body) <= UNROLL_SIZE:
            terms = []
            for combo in _combos(e.binders):
                terms.append(self.expr(e.body, ctx.bind({n: const(v) for n, v in combo})))
            return self.fold_terms(e.kind, terms, ctx)
        loops, env = [], {}
        for binder_name, values in e.binders:
            var = ctx.fn.temp(f"q{_short(binder_name)}_")
            env[binder_name] = name(var, frozenset(values))
            loops.append(f"for {var} in {_tuple_lit(values)}")
        body = self.expr(e.body, ctx.bind(env))
        loop_text = " ".join(loops)
        if e.kind == "count":
            text = f"_sum(1 {loop_text} if {body.text})"
        elif e.kind == "sum":
            text = f"_sum({body.text} {loop_text})"
        else:
            text = f"{e.kind}({body.text} {loop_text})"
        return P("gen", (), text, safe=body.safe, cost=body.cost * combos + 1)

    def fold_terms(self, kind: str, terms, ctx) -> P:
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
                facts = _merge_facts(out.facts, t.facts, {out.text: True, t.text: True}) \
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
                out = self.arith("+", out, t, None)
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

    def final_expr(self, e, ctx: _Ctx) -> P:
        return _cse(self.expr(e, ctx), ctx.fn)

    # ---- statements (effects) ----------------------------------------------------------------

    def effect_code(self, action_id: int, ground: ir.GroundAction, player, chance: bool,
                    ret: str, fallback: list[str] | None = None,
                    preset: dict | None = None, suspend: str | None = None) -> list[str]:
        """The statements of one ground action's effect for one player (or any player: None),
        unindented, every path ending in ``ret`` (a format string) applied to the next state.
        ``s`` is the state before the action (``o`` the chance outcomes so far, with ``chance``).

        The effect is compiled to straight tuple building when it can be. When an index depends
        on a slot of the old state with few values (``cell[c][height[c]]``), the code splits on
        that value (``if s[17] == 0: ... if s[17] == 1: ...``), each case with constant indices;
        otherwise it works on a list of cells. A value outside the slot's domain (no valid state
        holds one) goes to ``fallback`` when given, else to the list code."""
        preset = preset or {}
        try:
            lines, result = self._effect(action_id, ground, player, chance, "tuple", preset,
                                         suspend)
            return lines + ([ret.format(result)] if result is not None else [])
        except _NeedList as need:
            slot = need.slot
        lines: list[str] = []
        values = self.slot_values(slot) if slot is not None else ()
        if slot is not None and slot not in preset and len(preset) < SPLIT_DEPTH \
                and 1 < len(values) <= SPLIT_VALUES:
            for value in values:
                case = self.effect_code(action_id, ground, player, chance, ret, fallback,
                                        {**preset, slot: value}, suspend)
                lines.append(f"if s[{slot}] == {_lit(value)}:")
                lines.extend("    " + line for line in case)
            if fallback is not None:
                return lines + fallback
        code, result = self._effect(action_id, ground, player, chance, "list", {}, suspend)
        return lines + code + ([ret.format(result)] if result is not None else [])

    def _effect(self, action_id, ground, player, chance, mode, preset, suspend=None):
        action = ground.action
        fn = _Function("")
        mover = const(player) if player is not None else self.mover_read("s")
        env = {pname: const(value) for (pname, _, _), value in zip(action.params, ground.args)}
        state = _EffectState(mode, chance, suspend=suspend)
        if suspend is not None:
            chance = False      # the state is the decision's: no suffix, no outcomes to read
        if mode == "tuple":
            state.slots.update({k: const(v) for k, v in preset.items()})
        body: list[str] = []
        # the rule's lines are shown with the first ground instance of each action
        show_rules = (id(action), player, mode) not in self.commented
        self.commented.add((id(action), player, mode))
        comment = self.comment(action.span) if show_rules else None
        if comment:
            body.append(comment)
        body.append(f"# {_sanitize(ground.name)}" + (
            "" if player is None else f", {_sanitize(self.game.players[player])} to move")
            + "".join(f", slot {k} = {_lit(v)}" for k, v in sorted(preset.items())))
        if mode == "list":
            body.append(f"c = list(s{'[:' + str(self.base) + ']' if chance else ''})")
            container = "c"
        else:
            container = "s"
        if chance:
            body.append("n = 0")
        has_next = any(isinstance(st, ir.Next) for st in _walk_stmts(action.effect))
        if has_next:
            body.append("t = -1")
        ctx = _Ctx(env, mover, {}, container, False, {}, fn)
        self.show_rules = show_rules
        self.block(action.effect, ctx, state, body, "", has_next)
        self.show_rules = True
        if state.dead:
            return body, None
        # the turn: rotation, unless a `next` ran
        if player is not None:
            rotate = const((player + 1) % self.n)
        else:
            rotate = node("op", ("%", node("op", ("+", mover, const(1))), const(self.n)))
        following = rotate.text
        if has_next:    # `next` may only name a player (the interpreter's E301 at the action)
            site = self.site("NEXT", action.span)
            body.append(f"t = {rotate.text} if t == -1 else t")
            body.append(f"if not 0 <= t < {self.n}: _enext(t, {site})")
            following = "t"
        if mode == "list":
            body.append(f"c[0] = {following}")
            return body, "tuple(c)"
        changed = {k: p.text for k, p in state.slots.items()}
        if self.base <= TUPLE_ELEMENTS:
            items = [following] + [changed.get(k, f"s[{k}]") for k in range(1, self.base)]
            return body, "(" + ", ".join(items) + ",)"
        body.append(f"c = list(s{'[:' + str(self.base) + ']' if chance else ''})")
        body.append(f"c[0] = {following}")
        for k in sorted(changed):
            body.append(f"c[{k}] = {changed[k]}")
        return body, "tuple(c)"

    def block(self, stmts, ctx: _Ctx, state: _EffectState, out: list, indent: str,
              has_next: bool) -> None:
        last_line = None
        for st in stmts:
            if state.dead:
                break
            span = getattr(st, "span", None)
            if span is not None and span.line and span.line != last_line and self.show_rules:
                comment = self.comment(span)
                if comment:
                    out.append(indent + comment)
                last_line = span.line
            self.statement(st, ctx, state, out, indent, has_next)

    def _ctx_for(self, ctx: _Ctx, state: _EffectState) -> _Ctx:
        return _Ctx(ctx.env, ctx.mover, dict(state.slots) if state.mode == "tuple" else {},
                    ctx.container, bool(state.slots), {}, ctx.fn)

    def statement(self, st, ctx: _Ctx, state: _EffectState, out: list, indent: str,
                  has_next: bool) -> None:
        here = self._ctx_for(ctx, state)
        if isinstance(st, ir.Assign):
            self.assign(st, here, state, out, indent)
        elif isinstance(st, ir.If):
            cond = self.final_expr(st.cond, here)
            if cond.is_const:
                self.block(st.then if cond.const else st.otherwise, ctx, state, out, indent, has_next)
                return
            self.branches(cond, st.then, st.otherwise, ctx, state, out, indent, has_next)
        elif isinstance(st, ir.For):
            combos = _combos_count(st.binders)
            body_size = sum(_stmt_size(s, self) for s in st.body)
            if combos <= UNROLL_COMBOS and combos * body_size <= UNROLL_SIZE:
                for combo in _combos(st.binders):
                    self.block(st.body, ctx.bind({n: const(v) for n, v in combo}), state, out,
                               indent, has_next)
                return
            self.loop(st, ctx, state, out, indent, has_next)
        elif isinstance(st, ir.Pass):
            if has_next:
                out.append(f"{indent}t = -1")
        elif isinstance(st, ir.Next):
            player = self.final_expr(st.player, here)
            out.append(f"{indent}t = {player.text}")
        elif isinstance(st, ir.Random):
            self.random(st, ctx, state, out, indent, has_next)
        else:
            raise AssertionError(f"unknown statement {st!r}")

    def assign(self, st: ir.Assign, ctx: _Ctx, state: _EffectState, out: list, indent: str) -> None:
        var = st.var
        value = self.final_expr(st.value, ctx)
        allowed = frozenset(var.values)
        needs_check = not (value.vals is not None and value.vals <= allowed) and var.type != ir.BOOL
        if value.is_const and value.const in allowed:
            needs_check = False
        check_site = self.site("E301", var.name, var.type, st.span) if needs_check else None
        constant, parts = (0, []) if not st.indices else self.offset(
            st.indices, var.shape, var.name, st.span, ctx)
        if state.mode == "tuple":
            if any(p.kind == "call" and p.parts[0] == "_e303" for p in parts):
                # a constant index out of range: the value and its domain first, then the error
                out.append(f"{indent}v = {value.text}")
                if needs_check:
                    out.append(f"{indent}if {_domain_test('v', var)}: _e301(v, {check_site})")
                out.append(f"{indent}{_cse(self.sum_of(const(0), parts), ctx.fn).text}")
                state.dead = True   # what follows cannot run
                return
            if parts:
                raise _NeedList(_slot_read(self.sum_of(const(0), parts)))
            slot = var.slot + constant
            if not state.force and not needs_check and (
                    value.is_const or (value.kind == "read" and value.parts[0] == "s"
                    and value.parts[1].is_const)):
                # a constant or an unchanged cell of the old state: nothing to compute now
                state.slots[slot] = value
                return
            local = f"c{slot}"
            out.append(f"{indent}{local} = {value.text}")
            if needs_check:
                out.append(f"{indent}if {_domain_test(local, var)}: _e301({local}, {check_site})")
            state.slots[slot] = name(local, allowed if needs_check or value.vals is None
                                     else value.vals & allowed)
            return
        # list mode: the value, its domain, then the index (the interpreter's order)
        if not parts:
            target = f"c[{var.slot + constant}]"
            if needs_check:
                out.append(f"{indent}v = {value.text}")
                out.append(f"{indent}if {_domain_test('v', var)}: _e301(v, {check_site})")
                out.append(f"{indent}{target} = v")
            else:
                out.append(f"{indent}{target} = {value.text}")
            return
        out.append(f"{indent}v = {value.text}")
        if needs_check:
            out.append(f"{indent}if {_domain_test('v', var)}: _e301(v, {check_site})")
        index = _cse(self.sum_of(const(var.slot + constant), parts), ctx.fn)
        out.append(f"{indent}c[{index.text}] = v")

    def branches(self, cond: P, then, otherwise, ctx, state, out, indent, has_next) -> None:
        """An if/else. In tuple mode, a slot that either arm changes ends up in its local
        ``c<slot>`` on both paths (each arm assigns it at its end)."""
        arms = []
        for stmts in (then, otherwise):
            sub = state.copy()
            lines: list[str] = []
            self.block(stmts, ctx, sub, lines, indent + "    ", has_next)
            arms.append((sub, lines))
        if all(sub.dead for sub, _ in arms):
            state.dead = True
        if state.mode == "tuple":
            changed = sorted({k for sub, _ in arms for k, p in sub.slots.items()
                              if state.slots.get(k) is not p and not sub.dead})
            for sub, lines in arms:
                if sub.dead:
                    continue
                for k in changed:
                    p = sub.slots.get(k)
                    text = p.text if p is not None else f"s[{k}]"
                    if text != f"c{k}":
                        lines.append(f"{indent}    c{k} = {text}")
            for k in changed:
                state.slots[k] = name(f"c{k}", frozenset(self.slot_values(k)))
        (_, then_lines), (_, else_lines) = arms
        out.append(f"{indent}if {cond.text}:")
        out.extend(then_lines or [f"{indent}    pass"])
        if else_lines:
            out.append(f"{indent}else:")
            out.extend(else_lines)

    def slot_values(self, slot: int):
        for var in self.game.variables:
            if var.slot <= slot < var.slot + var.size:
                return var.values
        return ()

    def loop(self, st: ir.For, ctx, state, out, indent, has_next) -> None:
        loops, env = [], {}
        for binder_name, values in st.binders:
            var = ctx.fn.temp(f"q{_short(binder_name)}_")
            env[binder_name] = name(var, frozenset(values))
            loops.append((var, values))
        inner = ctx.bind(env)
        if state.mode == "tuple":
            # a first pass finds the slots the body writes: they live in locals from here on
            trial = state.copy()
            trial.force = True
            self.block(st.body, inner, trial, [], indent, has_next)
            for k in sorted(trial.slots.keys()):
                p = state.slots.get(k)
                text = p.text if p is not None else f"s[{k}]"
                if text != f"c{k}":
                    out.append(f"{indent}c{k} = {text}")
                state.slots[k] = name(f"c{k}", frozenset(self.slot_values(k)))
        depth = indent
        for var, values in loops:
            out.append(f"{depth}for {var} in {_tuple_lit(values)}:")
            depth += "    "
        lines: list[str] = []
        saved = state.force
        state.force = True
        self.block(st.body, inner, state, lines, depth, has_next)
        state.force = saved
        out.extend(lines or [f"{depth}pass"])

    def random(self, st: ir.Random, ctx, state, out, indent, has_next) -> None:
        here = self._ctx_for(ctx, state)
        pairs = [(self.final_expr(v, here), self.final_expr(p, here)) for v, p in st.outcomes]
        if all(v.is_const and p.is_const for v, p in pairs):
            values = [(v.const, Fraction(p.const)) for v, p in pairs]
            live = [(v, p) for v, p in values if p != 0]
            if distribution_problem(live):   # refused at load time by the checker, normally
                site = self.site("E305", st.index, st.type, st.span)
                dist = f"_dist({site}, [{', '.join(f'({_lit(v)}, {_lit(p)})' for v, p in values)}])"
            else:
                # one list per distinct distribution: its pairs are the very same objects
                # every time (solvers may recognise pairs they have checked already)
                text = "[" + ", ".join(f"(({st.index}, {_lit(v)}), {self.fraction(p)})"
                                       for v, p in live) + "]"
                if text not in self.dists:
                    self.dists[text] = f"_D{len(self.dists)}"
                    self.preamble.append(f"{self.dists[text]} = {text}")
                dist = self.dists[text]
        else:
            site = self.site("E305", st.index, st.type, st.span)
            dist = f"_dist({site}, [{', '.join(f'({v.text}, {p.text})' for v, p in pairs)}])"
        if state.suspend is not None:
            if dist.startswith("_dist("):
                out.append(f"{indent}{dist}")     # evaluated for its checks (E302, E303, E305)
            out.append(f"{indent}{state.suspend}")
            state.dead = True
            return
        local = ctx.fn.temp(f"q{_short(st.name)}_")
        out.append(f"{indent}if n >= len(o):")
        out.append(f"{indent}    return {dist}")
        out.append(f"{indent}{local} = o[n]")
        out.append(f"{indent}n += 1")
        vals = frozenset(v.const for v, _ in pairs) if all(v.is_const for v, _ in pairs) else None
        self.block(st.body, ctx.bind({st.name: name(local, vals)}), state, out, indent, has_next)

    # ---- the module ------------------------------------------------------------------------

    def terminal_expr(self, container: str, fn: _Function) -> P:
        ctx = _Ctx({}, self.mover_read(container), {}, container, False, {}, fn)
        return self.final_expr(self.game.terminal, ctx)

    def generate(self) -> str:
        game = self.game
        n, base = self.n, self.base
        K = len(game.ground_actions)
        chance_ids = {i for i, g in enumerate(game.ground_actions) if _has_random(g.action.effect)}
        fns: list[list[str]] = []
        term_comment = self.comment(game.spans.get("terminal"))
        term = self.terminal_expr("s", _Function(""))
        cache_terminal = self.cache and term.cost >= CACHE_COST
        guard = [f"    if len(s) != {base}:", "        return {}"] if game.has_chance else []

        def evaluate_terminal(indent: str) -> list[str]:
            """Lines that set ``t`` to the terminal condition of ``s`` (through the cache)."""
            lines = [indent + term_comment] if term_comment else []
            body = [f"{indent}try:", f"{indent}    t = {term.text}", f"{indent}except _EvalError as e:",
                    f"{indent}    raise _fail(e, s) from None"]
            if not cache_terminal:
                return lines + body
            return lines + [f"{indent}t = _TC.get(s)", f"{indent}if t is None:"] + \
                ["    " + line for line in body] + \
                [f"{indent}    if len(_TC) >= {CACHE_LIMIT}:", f"{indent}        _TC.clear()",
                 f"{indent}    _TC[s] = t"]

        # current_player remembers its last answer for legal_actions
        lines = ["def current_player(s):", "    global _last"]
        lines += [g.format("-1") for g in guard]
        lines += evaluate_terminal("    ")
        lines += ["    _last = (s, t)", "    return -2 if t else s[0]"]
        fns.append(lines)

        lines = ["def is_terminal(s):"] + [g.format("False") for g in guard]
        lines += evaluate_terminal("    ") + ["    return t"]
        fns.append(lines)

        # legal actions, specialised per player (mover is a constant in each)
        per_player = [self.legal_body(p) for p in range(n)]
        lines = ["def legal_actions(s):"] + [g.format("[]") for g in guard]
        lines += ["    l = _last", "    if l[0] is s:", "        t = l[1]", "    else:"]
        lines += evaluate_terminal("        ")
        lines += ["    if t:", "        return []", "    p = s[0]"]
        for p, body in enumerate(per_player):
            lines.append(f"    {'if' if p == 0 else 'elif'} p == {p}:   # "
                         + _sanitize(game.players[p]))
            lines.extend("    " + line for line in body)
        lines += ["    else:", "        return _slow('legal_actions', s)", "    if not r:",
                  "        raise _fail(_stuck(s), s) from None", "    return r"]
        fns.append(lines)
        if game.stuck_pass:     # _settle asks each player in turn
            for p, body in enumerate(per_player):
                fns.append([f"def _legal{p}(s):"] + body + ["    return r"])

        # apply: one function; a binary decision over the action id, per player
        specialise = n * K <= SPECIALISE_LIMIT
        players = list(range(n)) if specialise else [None]
        settle = "_settle" if game.stuck_pass else ""
        lines = ["def apply(s, a):"]
        if game.has_chance:   # a chance outcome: replay the pending action with it
            pick = "_RUN[k][s[0]]" if specialise else "_RUN[k][0]"
            lines += [f"    if len(s) != {base}:", f"        k = s[{base}]",
                      f"        o = s[{base + 1}:] + (a[1],)", "        try:",
                      f"            r = {pick}(s, o)", "        except _EvalError as e:",
                      "            raise _fail(e, s, a) from None", "        if type(r) is list:",
                      f"            return s[:{base}] + (k,) + o", f"        return {settle}(r)"]
        lines += ["    p = s[0]", "    try:"]
        for p in players:
            indent = "        "
            if p is not None:
                lines.append(f"        if p == {p}:   # " + _sanitize(game.players[p]))
                indent += "    "
            leaves = {}
            for k, ground in enumerate(game.ground_actions):
                if k in chance_ids:
                    label = f"_r{k}{'' if p is None else '_' + str(p)}"
                    code = self.effect_code(k, ground, p, True, "return {}")
                    fns.append([f"def {label}(s, o):"] + ["    " + x for x in code])
                    # the decision: run the effect up to its first `random`, then wait
                    leaves[k] = self.effect_code(k, ground, p, False,
                                                 f"return {settle}({{}})" if settle else "return {}",
                                                 ["return _slow('apply', s, a)"],
                                                 suspend=f"return s + ({k},)")
                else:
                    leaves[k] = self.effect_code(k, ground, p, False,
                                                 f"return {settle}({{}})" if settle else "return {}",
                                                 ["return _slow('apply', s, a)"])
            lines += _decision_tree(leaves, 0, K - 1, K, indent)
        lines += ["    except _EvalError as e:", "        raise _fail(e, s, a) from None",
                  "    return _slow('apply', s, a)"]
        fns.append(lines)

        if game.has_chance:
            runs = "_RUN = (" + "".join(
                "(" + "".join((f"_r{k}_{p}, " if p is not None else f"_r{k}, ") if k in chance_ids
                              else "None, " for p in players) + "), "
                for k in range(K)) + ")"
            pick = "_RUN[k][s[0]]" if specialise else "_RUN[k][0]"
            fns.append(["def chance_outcomes(s):", f"    k = s[{base}]", "    try:",
                        f"        r = {pick}(s, s[{base + 1}:])", "    except _EvalError as e:",
                        "        raise _fail(e, s) from None", "    if type(r) is not list:",
                        "        raise AssertionError('a chance state whose effect needs no outcome')",
                        "    return list(r)"])
        else:
            runs = None
            fns.append(["def chance_outcomes(s):", "    return _slow('chance_outcomes', s)"])

        # `when stuck pass`: a player without a legal action is skipped, in rotation
        if game.stuck_pass:
            fn = _Function("")
            t_term = self.terminal_expr("t", fn)
            fns.append(["def _settle(t):", "    try:", f"        if {t_term.text}:", "            return t",
                        "    except _EvalError as e:", "        raise _fail(e, t) from None",
                        "    p = t[0]", f"    for step in range({n}):",
                        f"        u = ((p + step) % {n},) + t[1:]",
                        "        if _LEGAL[u[0]](u):", "            return u", "    return t"])

        fns.append(self.per_player_fn("returns", game.utilities))
        if game.evaluations:
            fns.append(self.per_player_fn("evaluate", game.evaluations))
        else:
            fns.append(["def evaluate(s):",
                        "    raise _ValueError('the game declares no evaluation')"])
        if game.quiet is not None:
            fn = _Function("")
            q = self.final_expr(game.quiet, _Ctx({}, self.mover_read("s"), {}, "s", False, {}, fn))
            fns.append(["def is_quiet(s):", "    try:", f"        return bool({q.text})",
                        "    except _EvalError as e:", "        raise _fail(e, s) from None"])
        else:
            fns.append(["def is_quiet(s):", "    return True"])

        header = [
            "# Generated by gdl.backends.compiler from " + _sanitize(self.filename) + ": do not edit.",
            "# The state is the flat tuple of gdl.lang.ir: (mover, slot 1, ..., slot k) [+ pending chance].",
            "# Game: " + _sanitize(game.title),
            "# Players: " + _sanitize(", ".join(f"{i}={p}" for i, p in enumerate(game.players))),
            "# Symbols: " + _sanitize(", ".join(f"{i}={s}" for i, s in enumerate(game.symbols))),
            "# Variables: " + _sanitize(", ".join(
                f"{v.name}{''.join(f'[{x}]' for x in v.shape)}@{v.slot}" for v in game.variables)),
            "",
            "_last = (None, None)",
            "_TC = {}   # terminal condition per state (bounded), when it is costly to evaluate",
            "_RC = {}   # returns per state (bounded), likewise",
        ]
        body: list[str] = []
        for lines in fns:
            body.extend(lines)
            body.append("")
        tables = [f"_LEGAL = ({''.join(f'_legal{p}, ' for p in range(n))})"] if game.stuck_pass else []
        if runs:
            tables.append(runs)
        return "\n".join(header + self.preamble + [""] + self.out + body + tables) + "\n"

    def legal_body(self, p: int) -> list[str]:
        """Lines (indented one level) that set ``r`` to player p's legal action ids, in
        declaration order; a failing `requires` raises the located error."""
        game = self.game
        fn = _Function("")
        inner = []
        any_dynamic = False
        last_action = None
        for k, ground in enumerate(game.ground_actions):
            action = ground.action
            if action.by is not None and p not in action.by:
                continue
            if action is not last_action:
                comment = self.comment(action.requires.span if action.requires is not None
                                       else action.span)
                if comment:
                    inner.append("        " + comment)
                last_action = action
            if action.requires is None:
                inner.append(f"        r.append({k})   # {_sanitize(ground.name)}")
                continue
            env = {pname: const(value) for (pname, _, _), value in zip(action.params, ground.args)}
            cond = self.final_expr(action.requires, _Ctx(env, const(p), {}, "s", False, {}, fn))
            if cond.is_const:
                if cond.const:
                    inner.append(f"        r.append({k})   # {_sanitize(ground.name)}")
                continue
            any_dynamic = True
            inner.append(f"        if {cond.text}:   # {_sanitize(ground.name)}")
            inner.append(f"            r.append({k})")
        lines = ["    r = []"]
        if any_dynamic:
            lines += ["    try:"] + inner + ["    except _EvalError as e:",
                                             "        raise _fail(e, s) from None"]
        else:
            lines += [line[4:] for line in inner]
        return lines

    def per_player_fn(self, label: str, exprs) -> list[str]:
        fn = _Function("")
        ctx = _Ctx({}, self.mover_read("s"), {}, "s", False, {}, fn)
        body = ["try:"]
        names = []
        cost = 0
        for i, e in enumerate(exprs):
            if e is None:
                names.append(None)
                continue
            c = self.comment(e.span)
            if c:
                body.append("    " + c)
            value = self.final_expr(e, ctx)
            cost += value.cost
            body.append(f"    v{i} = {value.text}")
            names.append(f"v{i}")
        body += ["except _EvalError as e:", "    raise _fail(e, s) from None"]
        if None in names:
            missing = names.index(None)
            given = [x for x in names if x is not None]
            total = _lit(self.game.sum_total)
            names[missing] = f"{total} - ({' + '.join(given)})" if given else total
        result = f"({', '.join(names)},)"
        lines = [f"def {label}(s):"]
        if label == "returns" and self.cache and cost >= CACHE_COST:
            lines += ["    r = _RC.get(s)", "    if r is not None:", "        return r"]
            lines += ["    " + x for x in body]
            lines += [f"    r = {result}", f"    if len(_RC) >= {CACHE_LIMIT}:", "        _RC.clear()",
                      "    _RC[s] = r", "    return r"]
        else:
            lines += ["    " + x for x in body] + [f"    return {result}"]
        return lines


def _decision_tree(leaves: dict, lo: int, hi: int, count: int, indent: str) -> list[str]:
    """Nested ``if a < m`` tests reaching the code of action ``a`` in lo..hi; every leaf ends
    in a return. The first and last leaves check their id, so an id outside 0..count-1 falls
    through (to the slow path after the tree)."""
    if lo == hi:
        code = leaves[lo]
        if lo == 0 or lo == count - 1:
            return [f"{indent}if a == {lo}:"] + [f"{indent}    {x}" for x in code]
        return [f"{indent}{x}" for x in code]
    mid = (lo + hi + 1) // 2
    return ([f"{indent}if a < {mid}:"] + _decision_tree(leaves, lo, mid - 1, count, indent + "    ")
            + _decision_tree(leaves, mid, hi, count, indent))


class _EffectState:
    """Where an effect stands while it is compiled: tuple or list mode, and in tuple mode the
    slots changed so far (slot -> a constant, ``s[k]``, or the local ``c<slot>``). ``force``:
    inside a loop every assignment goes to its local."""

    __slots__ = ("chance", "dead", "force", "mode", "slots", "suspend")

    def __init__(self, mode: str, chance: bool, slots=None, force: bool = False,
                 suspend: str | None = None):
        self.mode, self.chance, self.force = mode, chance, force
        self.slots: dict[int, P] = slots if slots is not None else {}
        self.dead = False   # an error was raised (or the effect suspended): nothing after it runs
        # With `suspend`, no chance outcome is known yet (the decision itself): the first
        # `random` reached checks its distribution and runs this line instead of reading `o`.
        self.suspend = suspend

    def copy(self) -> _EffectState:
        return _EffectState(self.mode, self.chance, dict(self.slots), self.force, self.suspend)


# ---- IR walking helpers -------------------------------------------------------------------------

def _ir_children(e):
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
    return ()


def _local_uses(e, weight: int = 1, out=None) -> dict[str, int]:
    """How often each local name is evaluated at most (quantifier bodies count per binding)."""
    out = {} if out is None else out
    if isinstance(e, ir.Local):
        out[e.name] = out.get(e.name, 0) + weight
        return out
    if isinstance(e, ir.Quantifier):
        return _local_uses(e.body, weight * _combos_count(e.binders), out)
    if isinstance(e, ir.Call):
        for a in e.args:
            _local_uses(a, weight * 2, out)   # the callee may use it more than once
        return out
    for child in _ir_children(e):
        _local_uses(child, weight, out)
    return out


def _walk_stmts(stmts):
    for st in stmts:
        yield st
        if isinstance(st, ir.If):
            yield from _walk_stmts(st.then)
            yield from _walk_stmts(st.otherwise)
        elif isinstance(st, (ir.For, ir.Random)):
            yield from _walk_stmts(st.body)


def _has_random(stmts) -> bool:
    return any(isinstance(st, ir.Random) for st in _walk_stmts(stmts))


def _stmt_size(st, compiler: _Compiler) -> int:
    if isinstance(st, ir.Assign):
        return 2 + compiler.size(st.value) + sum(compiler.size(i) for i in st.indices)
    if isinstance(st, ir.If):
        return 1 + compiler.size(st.cond) + sum(_stmt_size(s, compiler) for s in st.then + st.otherwise)
    if isinstance(st, ir.For):
        return 1 + _combos_count(st.binders) * sum(_stmt_size(s, compiler) for s in st.body)
    if isinstance(st, ir.Next):
        return 1 + compiler.size(st.player)
    if isinstance(st, ir.Random):
        return 1 + sum(compiler.size(v) + compiler.size(p) for v, p in st.outcomes) + \
            sum(_stmt_size(s, compiler) for s in st.body)
    return 1


def _combos_count(binders) -> int:
    total = 1
    for _, values in binders:
        total *= len(values)
    return total


def _combos(binders):
    """Every combination of the binders' values, the first binder outermost (as the interpreter)."""
    names = [n for n, _ in binders]
    for values in itertools.product(*(v for _, v in binders)):
        yield tuple(zip(names, values))


def _decide(op: str, low, high, k):
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


def _domain_test(v: str, var: ir.Variable) -> str:
    values = var.values
    if var.type == ir.INT and tuple(values) == tuple(range(values[0], values[-1] + 1)):
        return f"not {_lit(values[0])} <= {v} <= {_lit(values[-1])}"
    return f"{v} not in {{{', '.join(_lit(x) for x in values)}}}"


def _flatten(value):
    if isinstance(value, tuple):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _tuple_lit(values) -> str:
    return "(" + "".join(f"{_lit(v)}, " for v in values) + ")"


def _short(identifier: str) -> str:
    """A user's identifier as part of a generated name: grammar-checked, cut short."""
    return identifier[:24] if identifier.replace("_", "a").isalnum() and identifier.isascii() else "x"


def _sanitize(text: str, limit: int = 160) -> str:
    """Text for a ``#`` comment: printable characters only, so it cannot end the comment."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text)
    return cleaned if len(cleaned) <= limit else cleaned[:limit - 3] + "..."


# ---- building the game -----------------------------------------------------------------------

def generate(game: ir.Game, source: Source | None = None, cache: bool = True) -> str:
    """The Python source of the compiled game (deterministic: same input, same text)."""
    return _Compiler(game, source, cache).generate()


def describe(game: ir.Game, compiler: _Compiler) -> dict:
    """What a compiled game needs besides its source, as plain JSON-able data (gdl.backends.runtime)."""
    def span(value):
        return [value.line, value.column, value.end_line, value.end_column] if value else []

    return {
        "info": {"name": game.title, "players": list(game.players), "has_chance": game.has_chance,
                 "sum_kind": game.sum_kind,
                 "utility_sum": game.sum_total if game.sum_kind != "general-sum" else None,
                 "utility_bounds": list(game.utility_bounds) if game.utility_bounds else None,
                 "has_evaluate": bool(game.evaluations), "has_quiescence": game.quiet is not None,
                 "max_length": game.max_length},
        "symbols": list(game.symbols),
        "names": [g.name for g in game.ground_actions],
        "random_names": {str(st.index): [st.name, st.type] for a in game.actions
                         for st in _walk_stmts(a.effect) if isinstance(st, ir.Random)},
        "sites": [list(entry[:-1]) + [span(entry[-1])] for entry in compiler.sites],
        "terminal_span": span(game.spans.get("terminal")),
        "initial": list(game.initial),
        "stuck_pass": game.stuck_pass,
        "domains": [[len(v.values), v.size] for v in game.variables],   # values per cell, cells
    }


def build_compiled(game: ir.Game, source: Source | None = None, params=None, cache: bool = True):
    """Compile a checked game; explicit trees become a TreeGame (as interpreted). If Python
    refuses the generated source (rules nested deeper than its compiler allows), the game is
    interpreted instead, with the reason in ``compile_error``."""
    if game.tree is not None:
        from gdl.backends.interpret import build as interpret_build

        return interpret_build(game, source)
    try:
        compiler = _Compiler(game, source, cache)
        python_source = compiler.generate()
        descriptor = describe(game, compiler)
        compiled = CompiledGame(descriptor, python_source, source, params, game)
    except (SyntaxError, RecursionError, MemoryError) as error:
        from gdl.backends.interpret import InterpretedGame

        fallback = InterpretedGame(game, source)
        fallback.compile_error = f"{type(error).__name__}: {error}"
        return fallback
    compiled._descriptor = descriptor
    return compiled


def build(game: ir.Game, source: Source | None = None, cache: bool = True):
    """The compiled game for a checked IR (see build_compiled). ``cache=False`` leaves out the
    per-state caches of costly terminal and utility rules."""
    return build_compiled(game, source, None, cache)
