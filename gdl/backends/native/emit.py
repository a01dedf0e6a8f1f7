"""Checked game (gdl.lang.ir) → one C translation unit: the rules *and* the search loops.

The rules become C functions over a state array ``V s[]`` with exactly the layout of gdl.lang.ir
(``s[0]`` the mover, then the slots); the search loops (gdl/backends/native/search.c, appended
verbatim) call them directly, so a search never crosses back into Python.

What is supported: every expression and statement of the language (``let`` as a C block with a
fresh local, ``repeat`` as a bounded loop comparing the cells before and after each pass,
binders whose ranges depend on local names as loops computing them in place) and every way a
game ends (``when stuck lose | win`` wraps the declared terminal and utilities); not explicit
trees, which are refused with ``Unsupported`` and run in Python.
Chance (``random``) runs as in the interpreter: an effect that reaches a ``random`` whose outcome
is not known yet stops there and hands back the distribution (exact rationals, chance.h); the
search then replays the effect from the state before the action with the outcomes chosen so far. Run-time rule
errors (an index out of range, a value outside its domain, division by zero, a dead end, a sum
that breaks the declared total) and 64-bit overflow (checked on every ``+ - *``) set the
thread-local flag ``gdl_err`` and the search stops: the caller then runs the same search in
Python, which reports the error located, or computes with unbounded integers. So a native answer
is either the exact answer or none at all.

Untrusted input stays data (the argument of gdl.backends.pycompile.safe_text, for C): the only
rule-file content that becomes C text is numbers (``c_int``: Python ints, range-checked) and
rule-file text inside ``/* */`` comments after ``comment_text`` removed ``*/`` and everything
non-printable. Every C name is the compiler's own (``s``, ``t3``, ``q5``, ``a12``).
"""

from __future__ import annotations

import re
from fractions import Fraction
from importlib import resources
from itertools import product

from gdl.backends.native.attach import Unsupported as _Unsupported
from gdl.backends.pycompile.safe_text import comment_text
from gdl.lang import ir
from gdl.protocol import distribution_problem

INT64_MAX = 2 ** 63 - 1
LIMIT = 2 ** 62          # bounds beyond this are treated as unknown (checked arithmetic)
UNROLL = 9               # quantifiers over at most this many combinations become one expression
MAX_CELLS = 4096        # states larger than this stay in Python (the search keeps one per ply)
# Rules whose C would be larger than this stay in Python: the C compiler takes seconds per
# hundred kilobytes (Othello 6x6, its definitions inlined at every use, would be 2.5 MB and
# half a minute of gcc; the bundled games are 60-180 kB).
MAX_SOURCE = 1_000_000


class Unsupported(_Unsupported):
    """The game uses something the native tier does not compile; it runs in Python."""


class TooLarge(Unsupported):
    """The rules' C would pass MAX_SOURCE (with every define inlined, ``generate`` then tries
    the defines as functions)."""


def c_int(value: object) -> str:
    """A number as C text: ints and bools only, within int64 (else the game is Unsupported)."""
    if type(value) is bool:
        return "1" if value else "0"
    if type(value) is Fraction:
        if value.denominator != 1:
            raise Unsupported(f"the rational constant {value} (the native tier has integers only)")
        value = value.numerator
    if type(value) is not int:
        raise AssertionError(f"not a number: {value!r}")
    if not -INT64_MAX <= value <= INT64_MAX:
        raise Unsupported(f"the constant {value} does not fit in 64 bits")
    return f"{value}LL" if value >= 0 else f"(-{-value}LL)"


def c_comment(text: str) -> str:
    """Rule-file text as a C comment that cannot end early."""
    return "/* " + comment_text(text.replace("*/", "* /").replace("/*", "/ *")) + " */"


def _table_name(declaration: str) -> str:
    """The name a ``static const`` table declaration of the emitter declares."""
    found = re.match(r"static const \w+ (\w+)", declaration)
    assert found is not None, declaration
    return found.group(1)


class CEmitter:
    def __init__(self, game: ir.Game, filename: str = "<input>", define_functions: bool = False):
        if game.tree is not None:
            raise Unsupported("explicit trees run in Python")
        self.game, self.filename = game, filename
        self.counter = 0
        self.tables: list[str] = []
        # With define_functions, each define is one static C function (gcc still inlines the
        # small ones) instead of its body inlined at every use: far less C for rules that call
        # large defines from many ground actions (Othello), at the price of the constants an
        # inlined body would fold (an action's parameters) and of the index checks they prove.
        self.define_functions = define_functions
        self.define_names: dict[int, str] = {}      # id of a typed define -> its C function
        self.functions: list[str] = []              # prototypes first, then the bodies
        self.function_bodies: list[str] = []
        # C name or text -> (low, high) known to hold where it is used (loop ranges, guards)
        self.ranges: dict[str, tuple[int | None, int | None]] = {}
        # The same without what the left side of an `and` proves (``c >= 0 and cell[c] ...``):
        # what holds wherever code runs, an eager operand included (see unclamped).
        self.loose: dict[str, tuple[int | None, int | None]] = {}
        self.cells = len(game.initial)
        if self.cells > MAX_CELLS:
            raise Unsupported(f"the state has {self.cells} cells (native limit {MAX_CELLS})")
        for value in game.initial:
            c_int(value)
        for variable in game.variables:
            for value in variable.values:
                c_int(value)

    def fits_in_a_byte(self) -> bool:
        values = [len(self.game.players) - 1, *self.game.initial]
        values += [v for variable in self.game.variables for v in variable.values]
        return all(-128 <= int(v) <= 127 for v in values)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def where(self, span) -> str:
        return c_comment(f"{self.filename}:{span.line}") if span and span.line else ""

    # ---- expressions: each is a C expression of type V (int64) -----------------------------
    def expr(self, e: ir.Expr, env: dict[str, str], s: str = "s") -> str:
        if isinstance(e, ir.Lit):
            return c_int(e.value)
        if isinstance(e, ir.Local):
            return env[e.name]
        if isinstance(e, ir.Mover):
            return f"{s}[0]"
        if isinstance(e, ir.VarRef):
            where = self.offset(e.var.slot, e.var.shape, e.indices, env, s)
            if self.eager and not where.isdigit() and not self.unclamped(e, env):
                return f"{s}[GDL_CELL({where})]"
            return f"{s}[{where}]"
        if isinstance(e, ir.ConstRef):
            return self.const_ref(e, env, s)
        if isinstance(e, ir.Unary):
            operand = self.expr(e.operand, env, s)
            return f"gdl_neg({operand})" if e.op == "-" else f"(!({operand}))"
        if isinstance(e, ir.Binary):
            if e.op == "and":
                # What the left side proves about a value holds while the right side runs
                # (``c >= 0 and c < columns and cell[c][r] == p``): its index checks go.
                left = self.expr(e.left, env, s)
                saved = dict(self.ranges)
                for text, low, high in self.guard_facts(e.left, env, s):
                    old_low, old_high = self.ranges.get(text, (None, None))
                    self.ranges[text] = (low if old_low is None or (low is not None and low > old_low)
                                         else old_low,
                                         high if old_high is None or (high is not None and high < old_high)
                                         else old_high)
                try:
                    right = self.eager_expr(e.right, env, s)
                    if right is None:
                        right = self.expr(e.right, env, s)
                        return f"(({left}) && ({right}))"
                    return f"(!!({left}) & !!({right}))"
                finally:
                    self.ranges = saved
            if e.op == "or":
                left = self.expr(e.left, env, s)
                right = self.eager_expr(e.right, env, s)
                if right is not None:
                    return f"(!!({left}) | !!({right}))"
                return f"(({left}) || ({self.expr(e.right, env, s)}))"
            left, right = self.expr(e.left, env, s), self.expr(e.right, env, s)
            # `/` is exact: an int when it divides evenly, else a rational, which the native tier
            # does not have (gdl_quot stops the search; the Python tier computes it). `//` floors.
            helper = {"+": "gdl_add", "-": "gdl_sub", "*": "gdl_mul", "/": "gdl_quot",
                      "//": "gdl_div", "%": "gdl_mod"}
            if e.op in ("+", "-", "*") and self.bounds(e, env) is not None:
                # Both sides' bounds are known and the result fits: no overflow check, so the
                # expression is pure and the C compiler may share and hoist it. In an eager
                # operand the bounds may rest on a left side that is false: wrapping arithmetic.
                if self.eager:
                    return f"gdl_w{ {'+': 'add', '-': 'sub', '*': 'mul'}[e.op]}({left}, {right})"
                return f"(({left}) {e.op} ({right}))"
            if e.op in helper:
                return f"{helper[e.op]}({left}, {right})"
            if e.op in ("==", "!=", "<", "<=", ">", ">="):
                return f"(({left}) {e.op} ({right}))"
            raise Unsupported(f"operator {e.op!r}")
        if isinstance(e, ir.IfExpr):
            return (f"(({self.expr(e.cond, env, s)}) ? ({self.expr(e.then, env, s)}) : "
                    f"({self.expr(e.otherwise, env, s)}))")
        if isinstance(e, ir.Builtin):
            args = [self.expr(a, env, s) for a in e.args]
            if e.name == "abs":
                return f"gdl_abs({args[0]})"
            pick = "gdl_min" if e.name == "min" else "gdl_max"
            text = args[0]
            for more in args[1:]:
                text = f"{pick}({text}, {more})"
            return text
        if isinstance(e, ir.Call) and self.define_functions:
            # (The arguments have no side effects but the error flag, so C's unspecified order
            # of evaluating them changes nothing.)
            passed = "".join(f", {self.expr(arg, env, s)}" for arg in e.args)
            return f"{self.define_function(e.define)}({s}{passed})"
        if isinstance(e, ir.Call):
            # Inlined: the arguments are evaluated once, in order, into fresh locals.
            names, parts = [], []
            for arg in e.args:
                name = self.fresh("t")
                parts.append(f"V {name} = {self.expr(arg, env, s)};")
                names.append(name)
                self.note_range(name, arg, env)
            inner = dict(zip(e.define.params, names))
            return "({ " + " ".join(parts) + f" {self.expr(e.define.body, inner, s)}; }})"
        if isinstance(e, ir.Quantifier):
            return self.quantifier(e, env, s)
        if isinstance(e, ir.Let):
            # Computed once, into a fresh local (the name is the compiler's, never the rule's).
            name = self.fresh("t")
            self.note_range(name, e.value, env)
            return (f"({{ V {name} = {self.expr(e.value, env, s)}; (void){name}; "
                    f"{self.expr(e.body, {**env, e.name: name}, s)}; }})")
        raise Unsupported(f"expression {type(e).__name__}")

    def define_function(self, define) -> str:
        """The C function computing ``define`` (emitted on first use): the state, then the
        define's parameters, each a fresh compiler-chosen name; the rule's names stay comments."""
        name = self.define_names.get(id(define))   # (each typed instance is its own function)
        if name is not None:
            return name
        name = self.define_names[id(define)] = self.fresh("d")
        params = [self.fresh("a") for _ in define.params]
        # Nothing is known of the arguments here, and the body is a function of its own, not
        # part of an eager operand that is being tried (its C is not looked at as one).
        saved, self.ranges = self.ranges, {}
        eager, self.eager = self.eager, False
        context = self.loose, self.in_effect
        self.loose, self.in_effect = {}, False
        body = self.expr(define.body, dict(zip(define.params, params)), "s")
        self.ranges, self.eager = saved, eager
        self.loose, self.in_effect = context
        head = f"static V {name}(const V *s{''.join(f', V {p}' for p in params)})"
        self.functions.append(head + "; " + c_comment("define " + define.name))
        unused = "".join(f"(void){p}; " for p in ("s", *params))   # -Wunused-parameter
        self.function_bodies.append(f"{head} {{ {self.where(define.span)}\n    {unused}return {body};\n}}")
        return name

    def guard_facts(self, e: ir.Expr, env, s: str):
        """(C text, low, high) bounds that hold when ``e`` is true: from ``x >= k``, ``x < k``
        (and the other comparisons of a local with a literal) joined by ``and``."""
        if isinstance(e, ir.Binary) and e.op == "and":
            yield from self.guard_facts(e.left, env, s)
            yield from self.guard_facts(e.right, env, s)
            return
        if not (isinstance(e, ir.Binary) and isinstance(e.left, ir.Local)
                and isinstance(e.right, ir.Lit) and type(e.right.value) is int):
            return
        text, k = env[e.left.name], e.right.value
        bounds = {">=": (k, None), ">": (k + 1, None), "<": (None, k - 1), "<=": (None, k),
                  "==": (k, k)}.get(e.op)
        if bounds is not None:
            yield (text, *bounds)

    def bounds(self, e: ir.Expr, env) -> tuple[int, int] | None:
        """Interval bounds of an int (or bool) expression's value, or None when unknown or
        beyond ±2^62 (so sums and products of known bounds can never overflow 64 bits).
        Sound because every state cell holds a value of its declared domain (an assignment
        outside it stops the search before the store)."""
        found = self._bounds(e, env)
        if found is None or found[0] < -LIMIT or found[1] > LIMIT:
            return None
        return found

    def _bounds(self, e: ir.Expr, env) -> tuple[int, int] | None:
        if isinstance(e, ir.Lit):
            return int(e.value), int(e.value)
        if isinstance(e, ir.Local):
            return self.known_range(e, env, env[e.name])
        if isinstance(e, ir.Mover):
            return 0, len(self.game.players) - 1
        if isinstance(e, ir.VarRef):
            values = [int(v) for v in e.var.values]
            return (min(values), max(values)) if values else None
        if isinstance(e, ir.ConstRef):
            flat = _flatten(e.const.value)
            return (min(flat), max(flat)) if flat else None
        if isinstance(e, ir.Unary):
            if e.op == "not":
                return 0, 1
            inner = self.bounds(e.operand, env)
            return None if inner is None else (-inner[1], -inner[0])
        if isinstance(e, ir.Binary):
            if e.op in ("and", "or", "==", "!=", "<", "<=", ">", ">="):
                return 0, 1
            if e.op not in ("+", "-", "*"):
                return None
            a, b = self.bounds(e.left, env), self.bounds(e.right, env)
            if a is None or b is None:
                return None
            if e.op == "+":
                return a[0] + b[0], a[1] + b[1]
            if e.op == "-":
                return a[0] - b[1], a[1] - b[0]
            products = [x * y for x in a for y in b]
            return min(products), max(products)
        if isinstance(e, ir.IfExpr):
            a, b = self.bounds(e.then, env), self.bounds(e.otherwise, env)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(e, ir.Builtin):
            args = [known for a in e.args if (known := self.bounds(a, env)) is not None]
            if len(args) < len(e.args):
                return None
            if e.name == "abs":
                low, high = args[0]
                return (0 if low <= 0 <= high else min(abs(low), abs(high))), max(abs(low), abs(high))
            pick = min if e.name == "min" else max
            return pick(a[0] for a in args), pick(a[1] for a in args)
        if isinstance(e, ir.Let):
            return self.bounds(e.body, {**env, e.name: "?"})   # "?": a name with no known range
        if isinstance(e, ir.Call):
            # The body's bounds with each parameter bounded as its argument is: a name no C
            # text can be stands for the argument while the body is looked at.
            saved = dict(self.ranges)
            arguments: dict[str, str] = {}
            for number, (param, arg) in enumerate(zip(e.define.params, e.args)):
                arguments[param] = name = f"<argument {number}>"
                self.ranges.pop(name, None)
                known = self.bounds(arg, env)
                if known is not None:
                    self.ranges[name] = known
            try:
                return self.bounds(e.define.body, arguments)
            finally:
                self.ranges = saved
        if isinstance(e, ir.Quantifier):
            if e.kind in ("any", "all"):
                return 0, 1
            size = 1
            for _, domain in e.binders:
                if isinstance(domain, ir.Range):
                    return None     # how many combinations: known only at run time
                size *= len(domain)
            if e.kind == "count":
                return 0, size
            if size == 0:
                return (0, 0) if e.kind == "sum" else None   # (min and max of none: an error)
            # sum, min, max: the body's bounds with each binder bounded by its values (a name
            # no C text can be stands for it, as for a define's argument above)
            saved, bound_env = dict(self.ranges), dict(env)
            for name, domain in e.binders:
                assert not isinstance(domain, ir.Range)     # (returned above)
                self.placeholders += 1
                bound_env[name] = placeholder = f"<binder {self.placeholders}>"
                values = [int(v) for v in domain]
                self.ranges[placeholder] = (min(values), max(values))
            try:
                body = self.bounds(e.body, bound_env)
            finally:
                self.ranges = saved
            if body is None:
                return None
            return (size * body[0], size * body[1]) if e.kind == "sum" else body
        return None

    placeholders = 0    # names made up for the binders of a quantifier whose bounds are sought

    def leaf_value_bounds(self) -> tuple[int, int] | None:
        """Bounds of player 0's value at a leaf of a search (its utility, the row of a stuck
        player, its evaluation; with the declared total where its own is left out), or None
        when one is unknown: search.c sizes its table entries by them."""
        g = self.game
        found: list[tuple[int, int]] = []
        for expressions in (g.utilities, g.evaluations):
            if not expressions:
                continue
            if expressions[0] is not None:
                known = self.bounds(expressions[0], {})
            else:
                others = [self.bounds(e, {}) for e in expressions[1:] if e is not None]
                if any(b is None for b in others):
                    return None
                total = int(g.sum_total)
                known = (total - sum(b[1] for b in others if b is not None),
                         total - sum(b[0] for b in others if b is not None))
            if known is None:
                return None
            found.append(known)
        found += [(int(row[0]), int(row[0])) for row in g.stuck_values if row]
        if not found:
            return None
        return min(low for low, _ in found), max(high for _, high in found)

    def known_range(self, e: ir.Expr, env, text: str) -> tuple[int, int] | None:
        """Bounds of an index the emitter knows: a literal, an action parameter (a constant),
        a quantifier or loop variable over a range, or a value a guard bounded."""
        if isinstance(e, ir.Lit) and type(e.value) is int:
            return e.value, e.value
        constant = re.fullmatch(r"\(?(-?)(\d+)LL\)?", text)
        if constant:
            value = int(constant.group(2)) * (-1 if constant.group(1) else 1)
            return value, value
        low, high = self.ranges.get(text, (None, None))
        return None if low is None or high is None else (low, high)

    def offset(self, slot: int, shape, indices, env, s: str) -> str:
        if not indices:
            return str(slot)
        terms = [str(slot)]
        for index, extent, stride in zip(indices, shape, ir.strides(shape)):
            text = self.expr(index, env, s)
            known = self.bounds(index, env)
            # An index proven to fit needs no check (the only reason gdl_idx exists).
            checked = f"({text})" if known and known[0] >= 0 and known[1] < extent else \
                f"gdl_idx({text}, {extent})"
            if self.eager:      # in unsigned arithmetic: wraps, never overflows (see eager_expr)
                checked = f"GDL_U{checked}" if checked.startswith("(") else checked
            terms.append(checked if stride == 1 else f"{checked} * {stride}")
        return " + ".join(terms)

    # An effect's eager load needs no clamp where the bounds that hold wherever it runs keep
    # its offset within STATE_PAD cells of the state: every state an effect writes lies in a
    # buffer with that many cells on either side (search.c, states_alloc and PADDED_STATE), so
    # where what proves its index is false the load reads one of them, and the value goes. (A
    # clamp costs a compare and a select a load; and where some loads of an expression keep
    # theirs, the C compiler turns it into branches: so all of an effect's or none, in effect.)
    # Only in effects without chance: the other rules' states come from anywhere (the exported
    # steps, decoded keys), and the chance effects' from the chance searches.
    MAX_PAD = 512
    in_effect = False
    state_pad = 0       # the slack the unclamped loads need (cells), the game's STATE_PAD
    def note_range(self, name: str, e: ir.Expr, env) -> None:
        """Note what a fresh local computing ``e`` holds: where the code is needed (ranges) and
        wherever it runs (loose)."""
        known, loose = self.bounds(e, env), self.loose_bounds(e, env)
        if known is not None:
            self.ranges[name] = known
        if loose is not None:
            self.loose[name] = loose

    def fact(self, name: str, known: tuple[int, int]) -> None:
        """A local's bounds that hold wherever it is in scope (a loop's values, a literal)."""
        self.ranges[name] = self.loose[name] = known

    def loose_bounds(self, e: ir.Expr, env) -> tuple[int, int] | None:
        """``e``'s bounds from what holds wherever it runs (no proof of an enclosing `and`)."""
        saved, self.ranges = self.ranges, self.loose
        try:
            return self.bounds(e, env)
        finally:
            self.ranges = saved

    def unclamped(self, e: ir.VarRef, env) -> bool:
        """Whether an eager load of ``e`` may go without a clamp (see MAX_PAD), noting the
        slack it needs."""
        if not self.in_effect:
            return False
        known = self.offset_bounds(e.var.slot, e.var.shape, e.indices, env)
        if known is None:
            return False
        slack = max(0, -known[0], known[1] - (self.cells - 1))
        if slack > self.MAX_PAD:
            return False
        self.state_pad = max(self.state_pad, slack)
        return True

    def offset_bounds(self, slot: int, shape, indices, env) -> tuple[int, int] | None:
        """Bounds of the offset of ``slot[indices]`` that hold wherever the load runs (from the
        indices' loose bounds, within the shape or not), or None where one is unknown."""
        low = high = slot
        for index, stride in zip(indices, ir.strides(shape)):
            known = self.loose_bounds(index, env)
            if known is None:
                return None
            low += min(known[0] * stride, known[1] * stride)
            high += max(known[0] * stride, known[1] * stride)
        return low, high

    def const_ref(self, e: ir.ConstRef, env, s: str) -> str:
        value = e.const.value
        if not e.indices:
            return c_int(value)
        flat: list[object] = []

        def flatten(v):
            if isinstance(v, tuple):
                for item in v:
                    flatten(item)
            else:
                flat.append(v)

        flatten(value)
        name = self.fresh("k")
        self.tables.append(f"static const V {name}[{len(flat)}] = {{"
                           + ", ".join(c_int(v) for v in flat) + "}; " + c_comment(e.const.name))
        where = self.offset(0, e.const.shape, e.indices, env, s)
        if self.eager and not where.isdigit():
            return f"{name}[GDL_CLAMP({where}, {len(flat)})]"
        return f"{name}[{where}]"

    # Small pure operands of `and` / `or` (and of small `any` / `all`) are evaluated whether or not
    # the left side decides, and joined with `&` / `|`: no branch on the cells, which a random
    # playout or a search cannot predict (Connect Four's line test: whether each neighbour is
    # the mover's). Pure: the C has no check that can stop the search (gdl_add, gdl_idx, ...),
    # no loop, no call. What the left side proves (an index in range, bounds that rule out an
    # overflow) may be false where the left side is, and then the operand's value is thrown
    # away, but computing it must still be harmless: its loads are clamped into the state (or
    # the table), its offsets and its unchecked + - * computed in wrapping (unsigned)
    # arithmetic. Small: at most EAGER_LOADS loads, EAGER_TEXT characters.
    EAGER_LOADS = 2
    EAGER_TEXT = 800
    eager = False
    _PURE_NAMES = frozenset({"s", "V", "gdl_min", "gdl_max", "gdl_wadd", "gdl_wsub", "gdl_wmul",
                             "GDL_CELL", "GDL_CLAMP", "GDL_U"})

    def eager_expr(self, e: ir.Expr, env, s: str) -> str | None:
        """``e`` as C that is safe and cheap to evaluate unconditionally, or None."""
        if self.eager:
            return self.expr(e, env, s)     # inside an eager operand: all of it is eager
        tables, bodies = len(self.tables), len(self.function_bodies)
        self.eager = True
        try:
            text = self.expr(e, env, s)
        finally:
            self.eager = False
        loads = len(re.findall(r"(?<![A-Za-z0-9_])(?:s|k\d+)\[", text))
        names = {word for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+[A-Za-z]*", text)
                 if not word[0].isdigit()}
        pure = all(name in self._PURE_NAMES or re.fullmatch(r"[tk]\d+", name) for name in names)
        if pure and loads <= self.EAGER_LOADS and len(text) <= self.EAGER_TEXT:
            return text
        # The attempt's constant tables go (unused, they are warnings), except those of a define
        # compiled on the way: its function stays, for every later call.
        kept = "\n".join(self.function_bodies[bodies:])
        self.tables[tables:] = [table for table in self.tables[tables:]
                                if re.search(rf"\b{_table_name(table)}\b", kept)]
        return None

    def binder_loops(self, binders, env) -> tuple[list[str], dict[str, str]]:
        """``for`` headers binding each quantifier/loop variable to a fresh C local."""
        inner, headers = dict(env), []
        for local_name, values in binders:
            var = self.fresh("q")
            if isinstance(values, ir.Range):
                headers.append(self.range_loop(var, values, inner))
                inner[local_name] = var
                continue
            values = tuple(int(v) for v in values)
            if values and values == tuple(range(values[0], values[0] + len(values))):
                headers.append(f"for (V {var} = {c_int(values[0])}; {var} <= {c_int(values[-1])}; "
                               f"{var}++)")
            else:
                table = self.fresh("k")
                self.tables.append(f"static const V {table}[{max(1, len(values))}] = {{"
                                   + ", ".join(c_int(v) for v in values or (0,)) + "};")
                index = self.fresh("i")
                headers.append(f"for (int {index} = 0; {index} < {len(values)}; {index}++) "
                               f"for (V {var} = {table}[{index}], {var}_once = 1; {var}_once; "
                               f"{var}_once = 0)")
            inner[local_name] = var
            if values:
                self.fact(var, (min(values), max(values)))
        return headers, inner

    def range_loop(self, var: str, values: ir.Range, env) -> str:
        """``for`` over low..high computed here, with the binders before it bound (as the
        interpreter's range(low, high + 1)): empty when high < low, and no ``var++`` past high,
        so a bound near the 64-bit limit cannot overflow."""
        low, high = self.expr(values.low, env), self.expr(values.high, env)
        low_known, high_known = self.bounds(values.low, env), self.bounds(values.high, env)
        if low_known is not None and high_known is not None:
            self.ranges[var] = (low_known[0], high_known[1])
        low_loose, high_loose = self.loose_bounds(values.low, env), self.loose_bounds(values.high, env)
        if low_loose is not None and high_loose is not None:
            self.loose[var] = (low_loose[0], high_loose[1])
        return (f"for (V {var} = {low}, {var}_hi = {high}, {var}_go = {var} <= {var}_hi; "
                f"{var}_go; {var}_go = {var} < {var}_hi, {var} += {var}_go)")

    def unrolled(self, e: ir.Quantifier, env, s: str) -> str | None:
        """A small quantifier as one C expression, each copy of the body with its binders as
        constants (``count k in 1..3: all j in 1..3: ...``): no loop, no jump, so the C
        compiler folds what the constants decide and shares what the copies have in common."""
        combos: list[dict[str, str]] = [{}]
        for name, values in e.binders:
            if isinstance(values, ir.Range):
                return None     # its values are known at run time only: a loop
            combos = [{**c, name: c_int(int(v))} for c in combos for v in values]
        if not combos or len(combos) > UNROLL:
            return None
        if e.kind in ("any", "all"):
            first = f"({self.expr(e.body, {**env, **combos[0]}, s)})"
            eager = [self.eager_expr(e.body, {**env, **c}, s) for c in combos[1:]]
            if all(text is not None for text in eager):
                join = " | " if e.kind == "any" else " & "
                return "(" + join.join(f"!!{b}" for b in [first, *(f"({t})" for t in eager)]) + ")"
            rest = [f"({self.expr(e.body, {**env, **c}, s)})" for c in combos[1:]]
            return "(" + (" || " if e.kind == "any" else " && ").join([first, *rest]) + ")"
        bodies = [f"({self.expr(e.body, {**env, **c}, s)})" for c in combos]
        if e.kind == "count":
            return "(" + " + ".join(f"(V)!!{b}" for b in bodies) + ")"
        if e.kind == "sum":
            text = bodies[0]
            for body in bodies[1:]:
                text = f"gdl_add({text}, {body})"
            return text
        pick = "gdl_min" if e.kind == "min" else "gdl_max"
        text = bodies[0]
        for body in bodies[1:]:
            text = f"{pick}({text}, {body})"
        return text

    def quantifier(self, e: ir.Quantifier, env, s: str) -> str:
        small = self.unrolled(e, env, s)
        if small is not None:
            return small
        headers, inner = self.binder_loops(e.binders, env)
        body = self.expr(e.body, inner, s)
        acc, done = self.fresh("r"), self.fresh("done")
        loops = " ".join(headers)
        if e.kind in ("any", "all"):
            start, stop = ("0", "1") if e.kind == "any" else ("1", "0")
            test = f"({body})" if e.kind == "any" else f"!({body})"
            return (f"({{ __label__ {done}; V {acc} = {start}; {loops} {{ if ({test}) {{ {acc} = {stop}; "
                    f"goto {done}; }} }} {done}: {acc}; }})")
        if e.kind == "count":
            return f"({{ V {acc} = 0; {loops} {{ if ({body}) {acc}++; }} {acc}; }})"
        if e.kind == "sum":
            return f"({{ V {acc} = 0; {loops} {{ {acc} = gdl_add({acc}, {body}); }} {acc}; }})"
        seen, pick = self.fresh("n"), "gdl_min" if e.kind == "min" else "gdl_max"
        return (f"({{ V {acc} = 0; int {seen} = 0; {loops} {{ V v_ = {body}; {acc} = {seen} ? "
                f"{pick}({acc}, v_) : v_; {seen} = 1; }} if (!{seen}) gdl_err = 1; {acc}; }})")

    # ---- statements: effects change ``s`` in place, as the interpreter's cells -------------
    def stmts(self, statements, env, depth: int) -> list[str]:
        pad = "    " * depth
        lines: list[str] = []
        for st in statements:
            if isinstance(st, ir.Assign):
                where = self.offset(st.var.slot, st.var.shape, st.indices, env, "s")
                target, value = self.fresh("o"), self.fresh("v")
                # A value outside the domain is never stored: every cell always holds a value
                # of its domain, which the bounds of expressions rely on. A value whose bounds
                # the domain covers needs no test.
                text = self.expr(st.value, env)
                if self.within_domain(self.bounds(st.value, env), st.var.values):
                    lines.append(f"{pad}{{ int {target} = {where}; s[{target}] = {text}; }} "
                                 f"{self.where(st.span)}")
                    continue
                lines.append(f"{pad}{{ int {target} = {where}; V {value} = {text}; "
                             f"if ({self.in_domain(value, st.var.values)}) s[{target}] = {value}; "
                             f"else gdl_err = 1; }} {self.where(st.span)}")
            elif isinstance(st, ir.If):
                lines.append(f"{pad}if ({self.expr(st.cond, env)}) {{ {self.where(st.span)}")
                lines += self.stmts(st.then, env, depth + 1)
                lines.append(f"{pad}}} else {{")
                lines += self.stmts(st.otherwise, env, depth + 1)
                lines.append(f"{pad}}}")
            elif isinstance(st, ir.For):
                headers, inner = self.binder_loops(st.binders, env)
                lines.append(f"{pad}{' '.join(headers)} {{ {self.where(st.span)}")
                lines += self.stmts(st.body, inner, depth + 1)
                lines.append(f"{pad}}}")
            elif isinstance(st, ir.Random):
                lines += self.random(st, env, depth)
            elif isinstance(st, ir.Pass):
                lines.append(f"{pad}*turn = -1;")
            elif isinstance(st, ir.Next):
                lines.append(f"{pad}*turn = {self.expr(st.player, env)}; {self.where(st.span)}")
            elif isinstance(st, ir.LetStmt):
                # The rest of the block runs with the value bound: a C block of its own.
                name = self.fresh("t")
                lines.append(f"{pad}{{ V {name} = {self.expr(st.value, env)}; (void){name}; "
                             f"{self.where(st.span)}")
                self.note_range(name, st.value, env)
                lines += self.stmts(st.body, {**env, st.name: name}, depth + 1)
                lines.append(f"{pad}}}")
            elif isinstance(st, ir.Repeat):
                # The body again until a pass changes no cell, at most `bound` times (the
                # interpreter compares the cells before and after each pass; so does this).
                before, count = self.fresh("b"), self.fresh("i")
                lines.append(f"{pad}{{ V {before}[CELLS]; for (long long {count} = 0; "
                             f"{count} < {c_int(st.bound)} && !gdl_err; {count}++) {{ "
                             f"{self.where(st.span)}")
                lines.append(f"{pad}    memcpy({before}, s, sizeof {before});")
                lines += self.stmts(st.body, env, depth + 1)
                lines.append(f"{pad}    if (memcmp({before}, s, sizeof {before}) == 0) break;")
                lines.append(f"{pad}}} }}")
            else:
                raise Unsupported(f"statement {type(st).__name__}")
        return lines

    def random(self, st: ir.Random, env, depth: int) -> list[str]:
        """A `random`: the next outcome chosen so far (``outs[cur]``), or, when there is none, the
        distribution in ``dist`` and a return of 1 (the effect waits for chance). The rest of the
        block (``st.body``) runs with the outcome bound."""
        pad = "    " * depth
        local = self.fresh("d")
        fixed = self.constant_distribution(st)
        if fixed is not None:
            # Checked here, once (as the Python compiler does): a copy of a constant table.
            table = self.fresh("k")
            self.tables.append(
                f"static const Dist {table} = {{{len(fixed)}, {{"
                + ", ".join(c_int(v) for v, _ in fixed) + "}, {"
                + ", ".join(f"{{{c_int(p.numerator)}, {c_int(p.denominator)}}}" for _, p in fixed)
                + "}};")
            fill = f"*dist = {table};"
        else:
            fill = "dist->n = 0; " + " ".join(
                f"dist_add(dist, {self.expr(value, env)}, {self.probability(p, env)});"
                for value, p in st.outcomes) + " dist_done(dist);"
        lines = [f"{pad}{{ V {local}; if (cur < nout) {local} = outs[cur++]; else {{ {fill} "
                 f"return 1; }} (void){local}; {self.where(st.span)}"]
        values = [int(v.value) for v, _ in st.outcomes if isinstance(v, ir.Lit)]
        if len(values) == len(st.outcomes) and values:
            self.fact(local, (min(values), max(values)))
        lines += self.stmts(st.body, {**env, st.name: local}, depth + 1)
        lines.append(f"{pad}}}")
        return lines

    @staticmethod
    def constant_distribution(st: ir.Random) -> list[tuple[int, Fraction]] | None:
        """The live outcomes of a `random` whose values and probabilities are literals (a
        quotient of two), when they form a valid distribution; else None (checked at run time)."""
        fixed = []
        for value, p in st.outcomes:
            if isinstance(p, ir.Binary) and p.op == "/" and isinstance(p.left, ir.Lit) \
                    and isinstance(p.right, ir.Lit) and p.right.value != 0:
                probability = Fraction(p.left.value) / Fraction(p.right.value)
            elif isinstance(p, ir.Lit):
                probability = Fraction(p.value)
            else:
                return None
            if not isinstance(value, ir.Lit):
                return None
            if probability != 0:
                fixed.append((int(value.value), probability))
        if not fixed or distribution_problem(fixed) is not None:
            return None
        return fixed

    def probability(self, e: ir.Expr, env) -> str:
        """A probability as a C expression of type Q (an exact rational, chance.h)."""
        if isinstance(e, ir.Lit):
            value = Fraction(e.value)
            return f"((Q){{{c_int(value.numerator)}, {c_int(value.denominator)}}})"
        if (isinstance(e, ir.Binary) and e.op == "/" and isinstance(e.left, ir.Lit)
                and isinstance(e.right, ir.Lit) and e.right.value != 0):
            return self.probability(ir.Lit(Fraction(e.left.value) / Fraction(e.right.value),
                                           ir.NUM), env)
        if e.type in (ir.INT, ir.BOOL):
            return f"q_of({self.expr(e, env)})"
        if isinstance(e, ir.Binary) and e.op in ("+", "-", "*", "/"):
            helper = {"+": "q_add", "-": "q_sub", "*": "q_mul", "/": "q_div"}[e.op]
            return f"{helper}({self.probability(e.left, env)}, {self.probability(e.right, env)})"
        if isinstance(e, ir.Unary) and e.op == "-":
            return f"q_neg({self.probability(e.operand, env)})"
        if isinstance(e, ir.IfExpr):
            return (f"(({self.expr(e.cond, env)}) ? {self.probability(e.then, env)} : "
                    f"{self.probability(e.otherwise, env)})")
        raise Unsupported(f"a probability written as {type(e).__name__} (the Python tier runs it)")

    @staticmethod
    def within_domain(known: tuple[int, int] | None, values) -> bool:
        """Whether every int within ``known`` (an expression's bounds) is one of ``values``."""
        if known is None or known[1] - known[0] > 256:
            return False
        domain = set(int(v) for v in values)
        return all(v in domain for v in range(known[0], known[1] + 1))

    @staticmethod
    def in_domain(value: str, values) -> str:
        values = sorted(set(int(v) for v in values))
        if values and values == list(range(values[0], values[-1] + 1)):
            return f"{value} >= {c_int(values[0])} && {value} <= {c_int(values[-1])}"
        return " || ".join(f"{value} == {c_int(v)}" for v in values) or "0"

    # ---- the game ---------------------------------------------------------------------------
    def per_player(self, name: str, expressions) -> list[str]:
        """``void name(const V *s, V *out)``: one value per player, the missing one from the sum."""
        g = self.game
        lines = [f"static void {name}(const V *s, V *out) {{", "    (void)s;"]
        if not expressions:
            # no declared values (a game that ends only `when stuck`, whose declared terminal
            # never holds): never called; should it be, every value is defined and the search
            # stops for the Python tier.
            lines.append("    for (int p = 0; p < PLAYERS; p++) out[p] = 0;")
            lines.append("    gdl_err = 1;")
        missing = None
        for player, e in enumerate(expressions):
            if e is None:
                missing = player
                lines.append(f"    out[{player}] = 0;")
            else:
                lines.append(f"    out[{player}] = {self.expr(e, {})};")
        if missing is not None:
            others = " ".join(f"out[{missing}] = gdl_sub(out[{missing}], out[{p}]);"
                              for p in range(len(expressions)) if p != missing)
            lines.append(f"    out[{missing}] = {c_int(g.sum_total)}; {others}")
        lines.append("}")
        return lines

    def within_size(self, size: int, *lines: str) -> int:
        """``size`` plus the lines' lengths, or Unsupported once that passes MAX_SOURCE (checked
        as the rules are emitted, so a game far over it is refused quickly)."""
        size += sum(len(line) + 1 for line in lines)
        size += sum(len(text) + 1 for text in self.function_bodies[self.counted:])
        self.counted = len(self.function_bodies)
        if size > MAX_SOURCE:
            raise TooLarge(f"its rules would be more than {MAX_SOURCE // 1000} kB of C, too "
                           "long to compile quickly")
        return size

    counted = 0     # function bodies already added to the size

    def stuck_returns(self) -> list[str]:
        """``rule_returns`` of a game that ends when the mover is stuck: the declared utilities
        where the declared terminal holds, else the stuck player's row of ``stuck_values``."""
        g = self.game
        table = self.fresh("k")
        rows = [c_int(v) for row in g.stuck_values for v in row]
        return [f"static const V {table}[{max(1, len(rows))}] = {{{', '.join(rows) or '0'}}};",
                "static void rule_returns(const V *s, V *out) {",
                "    if (rule_terminal_declared(s)) { rule_returns_declared(s, out); return; }",
                f"    for (int p = 0; p < PLAYERS; p++) out[p] = {table}[(int)s[0] * PLAYERS + p];",
                "}"]

    def unit(self) -> str:
        g = self.game
        n = len(g.players)
        body: list[str] = []
        terminal = self.expr(g.terminal, {}) if g.terminal is not None else "0"
        # `when stuck lose | win`: the declared rules are rule_terminal_declared and
        # rule_returns_declared, and the game's rule_terminal and rule_returns wrap them
        # (below, once the legal actions are defined).
        stuck = "_declared" if g.stuck_end is not None else ""
        body += [f"static int rule_terminal{stuck}(const V *s) {{ (void)s; return (int)(" + terminal + "); } "
                 + self.where(g.spans.get("terminal"))]
        body += self.per_player(f"rule_returns{stuck}", g.utilities)
        if stuck:
            body += self.stuck_returns()
        if g.evaluations:
            body += self.per_player("rule_evaluate", g.evaluations)
        else:
            # no evaluation: the search stops for the Python tier, with every value defined
            body += ["static void rule_evaluate(const V *s, V *out) { (void)s; "
                     "for (int p = 0; p < PLAYERS; p++) out[p] = 0; gdl_err = 1; }"]
        # legal actions, one function per player, in declaration order
        size = sum(len(line) for line in body)
        start, done = size, 0
        tests = sum(1 for player in range(n) for ground in g.ground_actions
                    if ground.action.by is None or player in ground.action.by)
        for player in range(n):
            body.append(f"static int rule_legal_{player}(const V *s, int *out) {{")
            body.append("    (void)s; int n = 0;")
            for action_id, ground in enumerate(g.ground_actions):
                action = ground.action
                if action.by is not None and player not in action.by:
                    continue
                env = {name: c_int(v) for (name, _, _), v in zip(action.params, ground.args)}
                # Written whether or not the test holds, and counted when it does: no branch to
                # mispredict where the tests follow the position (tic-tac-toe's empty cells).
                # out has room: before the k-th test n is at most k - 1 < ACTIONS.
                if action.requires is None:
                    body.append(f"    out[n++] = {action_id}; " + c_comment(ground.name))
                else:
                    body.append(f"    out[n] = {action_id}; n += ({self.expr(action.requires, env)}) != 0; "
                                + c_comment(ground.name))
                size = self.within_size(size, body[-1])
                done += 1
                if (not self.define_functions and done >= 8
                        and start + (size - start) * tests // done > 2 * MAX_SOURCE):
                    # The legal actions alone, at this rate, would be twice the cap: stop
                    # inlining now (generate makes the defines functions) rather than at 1 MB.
                    raise TooLarge("its rules, inlined, would be far more than "
                                   f"{MAX_SOURCE // 1000} kB of C")
            body.append("    return n;")
            body.append("}")
        body.append("static int rule_legal(const V *s, int *out) {")
        body.append("    switch ((int)s[0]) {")
        body += [f"    case {p}: return rule_legal_{p}(s, out);" for p in range(n)]
        body.append("    default: gdl_err = 1; return 0;")
        body.append("    }")
        body.append("}")
        if stuck:
            body += ["/* `when stuck " + str(g.stuck_end) + "`: a player to move without a legal action "
                     "ends the game (the interpreter's is_terminal, in its order). */",
                     "static int rule_terminal(const V *s) {",
                     "    if (rule_terminal_declared(s)) return 1;",
                     "    int scratch[ACTIONS];",
                     "    return rule_legal(s, scratch) == 0;",
                     "}"]
        # effects: one case per ground action, its parameters as constants; with chance, an
        # effect returns 1 where it waits for an outcome (see random above)
        if g.has_chance:
            body.append("static int rule_effect_chance(V *s, int action, V *turn, const V *outs, "
                        "int nout, Dist *dist) {")
            body.append("    (void)turn; int cur = 0;")
        else:
            body.append("static void rule_effect(V *s, int action, V *turn) {")
            body.append("    (void)turn;")
        body.append("    switch (action) {")
        self.in_effect = not g.has_chance
        for action_id, ground in enumerate(g.ground_actions):
            action = ground.action
            env = {name: c_int(v) for (name, _, _), v in zip(action.params, ground.args)}
            body.append(f"    case {action_id}: {{ {c_comment(ground.name)} {self.where(action.span)}")
            lines = self.stmts(action.effect, env, 2)
            size = self.within_size(size, *lines)
            body += lines
            body.append("        break; }")
        self.in_effect = False
        body.append("    default: gdl_err = 1;")
        body.append("    }")
        if g.has_chance:
            body.append("    return 0;")
            body.append("}")
            # The searches without chance (minimax, alpha-beta, playouts) never run on a chance
            # game natively; should one meet a `random`, it stops with an error.
            body.append("static void rule_effect(V *s, int action, V *turn) {")
            body.append("    Dist scratch; if (rule_effect_chance(s, action, turn, 0, 0, &scratch)) "
                        "gdl_err = 1;")
        body.append("}")
        body += tier_rule(self)
        chance = []
        if g.has_chance:
            widest = max((len(st.outcomes) for st in ir.random_statements(g)), default=1)
            chance = [f"#define DIST_MAX {max(1, widest)}",
                      resources.files("gdl.backends.native").joinpath("chance.h").read_text()]
        header = [
            "/* Generated by gdl.backends.native from " + comment_text(self.filename).replace("*/", "* /")
            + ": do not edit. */",
            c_comment("Game: " + g.title),
            c_comment("Variables: " + ", ".join(
                f"{v.name}{''.join(f'[{x}]' for x in v.shape)}@{v.slot}" for v in g.variables)),
            "#include <stdint.h>",
            "#include <string.h>",
            "typedef long long V;",
            f"#define CELLS {self.cells}",
            f"#define PLAYERS {n}",
            f"#define ACTIONS {max(1, len(g.ground_actions))}",
            f"#define STUCK_PASS {1 if g.stuck_pass else 0}",
            f"#define SUM_TOTAL {c_int(g.sum_total)}",
            f"#define CONSTANT_SUM {1 if g.sum_kind != 'general-sum' else 0}",
            f"#define HAS_EVALUATE {1 if g.evaluations else 0}",
            f"#define HAS_CHANCE {1 if g.has_chance else 0}",
            f"#define STATE_PAD {self.state_pad}",
            # The transposition table keeps states as bytes when every cell fits in one.
            f"typedef {'signed char' if self.fits_in_a_byte() else 'V'} K;",
            *graph_layout(g),
            *search_layout(g, self.leaf_value_bounds()),
            resources.files("gdl.backends.native").joinpath("prelude.h").read_text(),
        ]
        here = resources.files("gdl.backends.native")
        search = "".join(here.joinpath(name).read_text()
                         for name in ("search.c", "graph.c", "chance_graph.c", "rank.c"))
        self.within_size(size)      # the functions the last rules needed
        return ("\n".join(header + chance + self.tables + self.functions + self.function_bodies
                          + body) + "\n" + search)


def tier_rule(emitter: CEmitter) -> list[str]:
    """The declared ``tier`` as ``static V rule_tier(const V *s)`` for graph.c's tier passes
    (gdl.graph.tiers on packed keys), with ``HAS_TIER`` saying whether there is one."""
    tier = emitter.game.tier
    if tier is None:
        return ["#define HAS_TIER 0"]
    return ["#define HAS_TIER 1",
            "static V rule_tier(const V *s) { return (V)(" + emitter.expr(tier, {}) + "); } "
            + emitter.where(emitter.game.spans.get("tier"))]


# A compact table entry (search.c, TT_COMPACT) is two 64-bit words: the state's key plus one
# and the value in the first, the bound, the best action plus one, the depth (16 bits) and the
# work in the second, which must keep at least this many bits for the work (a subtree of up to
# 2^40 nodes; a larger one stops the search).
WORK_BITS = 40


def search_layout(game: ir.Game, leaf_values: tuple[int, int] | None = None) -> list[str]:
    """Constants for search.c's transposition table: each cell's declared range (CELL_RANGES,
    cell_low, cell_high, where every cell has one), HASH_CELLS (what Python's hash of a cell's
    int takes: 2, the int itself, every value a cell may hold being under 2^61 - 1 in size and
    never -1, whose hash is -2; 1, where -1 may occur; 0, the general modular hash) and, where the
    state packs into a 63-bit key (gdl.backends.native.codec), TT_KEYED with each cell's weight
    (key = sum of s[i] * tt_weight[i] minus TT_KEY_BIAS, modulo 2^64, which is exact as the key
    is below 2^63). The native rules never store a value outside its domain, so every state they
    make keeps these; the search checks its root.

    With a key, ``leaf_values`` (bounds of player 0's value at a leaf, CEmitter.leaf_value_bounds)
    and at most 63 actions, an entry may be compact (TT_COMPACT, 16 bytes instead of 32, so the
    table the search probes at random is half as large): TT_TAG_BITS for the key plus one, the
    rest of the first word for the value, which a search stores as either sign of a leaf's;
    TT_BEST_BITS for the best action plus one."""
    from gdl.backends.native.codec import KeyCodec

    codec = KeyCodec.for_game(game)
    ranges: list[tuple[int, int] | None] = [None] * len(game.initial)
    ranges[0] = (0, len(game.players) - 1)
    for variable in game.variables:
        values = [int(v) for v in variable.values]
        for cell in range(variable.slot, variable.slot + variable.size):
            ranges[cell] = (min(values), max(values)) if values else None
    small = all(r is not None and abs(r[0]) < 2**61 - 1 and abs(r[1]) < 2**61 - 1 for r in ranges)
    minus_one = any(r is not None and r[0] <= -1 <= r[1] for r in ranges)
    lines = [f"#define HASH_CELLS {(1 if minus_one else 2) if small else 0}"]
    if all(r is not None for r in ranges):
        lines += ["#define CELL_RANGES 1",
                  "static const V cell_low[CELLS] = {" + ", ".join(c_int(r[0]) for r in ranges if r) + "};",
                  "static const V cell_high[CELLS] = {" + ", ".join(c_int(r[1]) for r in ranges if r) + "};"]
    else:
        lines += ["#define CELL_RANGES 0"]
    if isinstance(codec, str):
        return lines + ["#define TT_KEYED 0", "#define TT_COMPACT 0"]
    weights, weight = [], 1
    for size in reversed(codec.size):
        weights.append(weight)
        weight *= size
    weights.reverse()
    bias = sum(low * w for low, w in zip(codec.low, weights)) % 2**64
    lines += ["#define TT_KEYED 1",
              "static const uint64_t tt_weight[CELLS] = {" + ", ".join(f"{w}ULL" for w in weights)
              + "};",
              f"#define TT_KEY_BIAS {bias}ULL"]
    tag_bits = codec.positions.bit_length()         # the key plus one: 1..positions
    best_bits = max(1, len(game.ground_actions)).bit_length()     # NO_ACTION (-1) plus one: 0
    if leaf_values is not None:
        largest = max(abs(leaf_values[0]), abs(leaf_values[1]))
        value_bits = 64 - tag_bits
        if (value_bits >= 2 and largest < 2 ** (value_bits - 1)
                and 2 + best_bits + 16 + WORK_BITS <= 64):
            return lines + ["#define TT_COMPACT 1", f"#define TT_TAG_BITS {tag_bits}",
                            f"#define TT_BEST_BITS {best_bits}"]
    return lines + ["#define TT_COMPACT 0"]


def graph_layout(game: ir.Game) -> list[str]:
    """The packed-key layout for graph.c (gdl.backends.native.codec), as constants: a library
    then knows its codec without the checked game (and divides by constants)."""
    from gdl.backends.native.codec import KeyCodec

    # the digits are written where they exist, a key or not: the ranked tables (rank.c) read
    # them; GRAPH_CODEC says whether they make a 63-bit key, which the walks (graph.c) need
    codec = KeyCodec.for_game(game, wide=True)
    if isinstance(codec, str):
        return ["#define GRAPH_CODEC 0", "static const V codec_low[CELLS] = {0};",
                "static const uint64_t codec_size[CELLS] = {1};",
                "static const int effect_start[ACTIONS + 1] = {0};",
                "static const int effect_cells[1] = {0};",
                "static const uint64_t codec_mask[CELLS] = {0};",
                "static const int codec_var[CELLS] = {0};"]
    masks, owners = rank_domains(game, codec)
    written = written_cells(game)
    starts = [0]
    for cells in written:
        starts.append(starts[-1] + len(cells))
    flat = [cell for cells in written for cell in cells] or [0]
    keyed = int(codec.positions <= LIMIT)
    return [f"#define GRAPH_CODEC {keyed}",
            "static const int effect_start[ACTIONS + 1] = {" + ", ".join(map(str, starts)) + "};",
            f"static const int effect_cells[{len(flat)}] = {{" + ", ".join(map(str, flat)) + "};",
            "static const V codec_low[CELLS] = {" + ", ".join(c_int(v) for v in codec.low) + "};",
            "static const uint64_t codec_size[CELLS] = {"
            + ", ".join(c_int(v) for v in codec.size) + "};",
            "static const uint64_t codec_mask[CELLS] = {"
            + ", ".join(f"{m}ULL" for m in masks) + "};",
            "static const int codec_var[CELLS] = {" + ", ".join(map(str, owners)) + "};"]


def rank_domains(game: ir.Game, codec) -> tuple[list[int], list[int]]:
    """For the ranked tables (gdl/backends/native/rank.c): per cell, its declared values as a
    bit mask over its codec digit (bit ``v - low``; all ones where the span passes 64 values),
    and the variable it belongs to (0: the mover, then the variables in declaration order).
    A symbol variable's span may hold values it never takes (``{nobody, Red, Yellow}`` spans
    the symbol ``empty`` too): the mask leaves them out."""
    everything = (1 << 64) - 1
    masks = [everything if size > 64 else (1 << size) - 1 for size in codec.size]
    owners = [0] * len(codec.size)
    for number, variable in enumerate(game.variables, start=1):
        for cell in range(variable.slot, variable.slot + variable.size):
            owners[cell] = number
            if codec.size[cell] <= 64:
                masks[cell] = sum(1 << (int(v) - codec.low[cell]) for v in set(variable.values))
    return masks, owners


def written_cells(game: ir.Game) -> list[list[int]]:
    """Per ground action, the cells its effect may write (the mover's, cell 0, always: the
    turn passes), for the ranked tables (rank.c): a child differs from its parent only there.
    An index the action's parameters fix names one cell; any other index, every cell along
    that dimension: a sound over-approximation, never a guess."""
    out = []
    for ground in game.ground_actions:
        env = {name: int(value) for (name, _, _), value in zip(ground.action.params, ground.args)}
        cells = {0}
        _written(ground.action.effect, env, cells)
        out.append(sorted(cells))
    return out


def _written(statements, env: dict, cells: set) -> None:
    for st in statements:
        if isinstance(st, ir.Assign):
            choices = []
            for index, extent in zip(st.indices, st.var.shape):
                known = _constant(index, env)
                choices.append([known] if known is not None and 0 <= known < extent
                               else range(extent))
            strides = ir.strides(st.var.shape)
            for combination in product(*choices):
                cells.add(st.var.slot + sum(i * k for i, k in zip(combination, strides)))
        elif isinstance(st, ir.If):
            _written(st.then, env, cells)
            _written(st.otherwise, env, cells)
        elif isinstance(st, ir.LetStmt):
            _written(st.body, {**env, st.name: _constant(st.value, env)}, cells)
        elif isinstance(st, (ir.For, ir.Repeat, ir.Random)):
            names = [name for name, _ in st.binders] if isinstance(st, ir.For) else \
                [st.name] if isinstance(st, ir.Random) else []
            _written(st.body, {**env, **{name: None for name in names}}, cells)


def _constant(e, env: dict) -> int | None:
    """The value of an index the action's parameters fix, or None."""
    if isinstance(e, ir.Lit) and type(e.value) is int:
        return e.value
    if isinstance(e, ir.Local):
        return env.get(e.name)
    if isinstance(e, ir.Unary) and e.op == "-":
        inner = _constant(e.operand, env)
        return None if inner is None else -inner
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "*"):
        left, right = _constant(e.left, env), _constant(e.right, env)
        if left is None or right is None:
            return None
        return left + right if e.op == "+" else left - right if e.op == "-" else left * right
    return None


def _flatten(value) -> list[int]:
    if isinstance(value, tuple):
        return [v for item in value for v in _flatten(item)]
    return [int(value)]


def generate(game: ir.Game, filename: str = "<input>") -> str:
    """The C source for a checked game (deterministic), or Unsupported. Defines are inlined at
    every use; where that would pass MAX_SOURCE, they become functions."""
    try:
        return CEmitter(game, filename).unit()
    except TooLarge:
        return CEmitter(game, filename, define_functions=True).unit()
