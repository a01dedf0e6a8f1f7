"""Checked IR (gdl.lang.ir) → the lines of the generated Python module.

What the generated code looks like, and why, is in gdl.backends.compiler's docstring. This module
walks the IR and writes the code: expressions (through gdl.backends.pycompile.optimize, which
decides what is constant or provable), indexing with the interpreter's checks, inlined
definitions, unrolled quantifiers, effects as tuple building (or a list of cells), and the
functions of the protocol. Rule-file text reaches the source only through
gdl.backends.pycompile.safe_text.
"""

from __future__ import annotations

from fractions import Fraction

from gdl.backends.pycompile import optimize
from gdl.backends.pycompile.irwalk import (
    Sizes,
    bindings,
    combos_count,
    draws_once,
    has_random,
    local_uses,
    walk_statements,
)
from gdl.backends.pycompile.optimize import bounds, cse, merge_facts, small_set
from gdl.backends.pycompile.pyexpr import P, Temporaries, children, const, name, node
from gdl.backends.pycompile.safe_text import comment_text, literal, name_part, tuple_literal
from gdl.errors import Source
from gdl.lang import ir
from gdl.lang.ast import Span
from gdl.protocol import distribution_problem

UNROLL_COMBOS = 64        # quantifiers / for loops with at most this many bindings are unrolled
UNROLL_SIZE = 6000        # ... when the unrolled body is at most this many IR nodes
INLINE_SIZE = 6000        # define bodies up to this size are inlined, larger ones become functions
SPECIALISE_LIMIT = 4000   # effects are specialised per player while players × ground actions <= this
TUPLE_ELEMENTS = 24       # states up to this size are built element by element, larger via a list
SPLIT_VALUES = 16         # an effect splits on a slot with at most this many values ...
SPLIT_DEPTH = 1           # ... and on at most this many slots at once
CACHE_COST = 40           # terminal / utility rules at least this costly are cached per state
CACHE_LIMIT = 100_000     # ... in a dict emptied when it reaches this many states
REMEMBER_COST = 10        # current_player hands a terminal test at least this costly to
                          # legal_actions (a global written per call); a cheaper one is redone


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
    for child in children(p):
        found = _slot_read(child)
        if found is not None:
            return found
    return None


# ---- contexts ----------------------------------------------------------------------------------

class _Ctx:
    """Where an expression is compiled: local names, the mover, how state slots are read."""

    __slots__ = ("container", "dirty", "env", "facts", "mover", "slots", "temps")

    def __init__(self, env, mover: P, slots, container: str, dirty, facts, temps: Temporaries):
        self.env = env                # local name -> P
        self.mover = mover
        self.slots = slots            # slot -> P for slots held in locals (tuple-mode effects)
        self.container = container    # the name of the state tuple / cell list
        self.dirty = dirty            # True when slots hold changed values (tuple mode)
        self.facts = facts            # what holds on this path (gdl.backends.pycompile.optimize)
        self.temps = temps

    def bind(self, more: dict) -> _Ctx:
        return _Ctx({**self.env, **more}, self.mover, self.slots, self.container, self.dirty,
                    self.facts, self.temps)

    def knowing(self, facts: dict) -> _Ctx:
        if not facts:
            return self
        return _Ctx(self.env, self.mover, self.slots, self.container, self.dirty,
                    merge_facts(self.facts, facts), self.temps)


# ---- the emitter -------------------------------------------------------------------------------

class Emitter:
    """Writes the module for one checked game: ``module_code`` once, then ``sites`` lists the
    run-time errors its code can raise (their numbers appear in the code)."""

    def __init__(self, game: ir.Game, source: Source | None, cache: bool = True):
        self.game = game
        self.cache = cache
        self.filename = source.filename if source is not None else "<input>"
        self.lines_of = source.text.split("\n") if source is not None else []   # as Lark counts lines
        self.n = len(game.players)
        self.base = len(game.initial)
        self.sites: list[tuple] = []
        self.tables: dict[tuple, str] = {}
        self.preamble: list[str] = []
        self.out: list[str] = []
        self.define_fns: dict[int, str] = {}
        self.sizes = Sizes()   # to decide what to unroll and inline
        self.dists: dict[str, str] = {}
        self.fractions: dict[Fraction, str] = {}
        self.domains: dict[int, frozenset | None] = {}
        self.allowed_values: dict[int, frozenset] = {}
        self.contiguous: dict[int, bool] = {}
        self.commented: set = set()   # (action, player) whose rule lines are already shown
        # every value slot 0 can hold: a player (`next` naming anything else is an error)
        self.mover_vals = frozenset(range(self.n))
        self.show_rules = True   # off while an action's later ground instances are written
        self.next_unsure = False   # in the effect being written: a `next` not to a known player

    # -- small helpers
    def site(self, *entry) -> int:
        self.sites.append(entry)
        return len(self.sites) - 1

    def comment(self, span: Span | None) -> str | None:
        """The rule file's line at ``span`` as a comment, cleaned (gdl.backends.pycompile.safe_text)."""
        if span is None or not span.line:
            return None
        text = self.lines_of[span.line - 1].strip() if span.line <= len(self.lines_of) else ""
        shown = comment_text(f"{self.filename}:{span.line}: {text}")
        return f"# {shown}"

    def fraction(self, value: Fraction) -> str:
        """A shared name for a constant probability: one object per distinct value."""
        if value not in self.fractions:
            self.fractions[value] = f"_F{len(self.fractions)}"
            self.preamble.append(f"{self.fractions[value]} = {literal(value)}")
        return self.fractions[value]

    def table(self, const: ir.Constant) -> str:
        flat = tuple(_flatten(const.value))
        key = (const.name, flat)
        if key not in self.tables:
            label = f"_K{len(self.tables)}"
            self.tables[key] = label
            self.preamble.append(f"{label} = {tuple_literal(flat)}")
        return self.tables[key]

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
            return optimize.negate(x) if e.op == "-" else optimize.logical_not(x, ctx.facts)
        if isinstance(e, ir.Binary):
            return self.binary(e, ctx)
        if isinstance(e, ir.IfExpr):
            cond = self.expr(e.cond, ctx)
            if cond.is_const:
                return self.expr(e.then if cond.const else e.otherwise, ctx)
            then = self.expr(e.then, ctx.knowing(optimize.facts_when_true(cond)))
            return optimize.conditional(cond, then, self.expr(e.otherwise, ctx))
        if isinstance(e, ir.Builtin):
            return optimize.builtin(e.name, [self.expr(a, ctx) for a in e.args])
        if isinstance(e, ir.Call):
            return self.call(e, ctx)
        if isinstance(e, ir.Quantifier):
            return self.quantifier(e, ctx)
        if isinstance(e, ir.Let):
            return self.let(e, ctx)
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
            if not optimize.proves(x, 0, extent - 1, ctx.facts):
                site = self.site("E303", extent, what, span)
                temp = None if x.kind == "name" else ctx.temps.temp_for("_i", x.text)
                x = node("check", (x, extent, site, temp), safe=False, cost=x.cost + 2,
                         vals=None if x.vals is None else
                         small_set(v for v in x.vals if 0 <= v < extent))
            parts.append(x if step == 1 else optimize.arith("*", x, const(step)))
        return constant, parts

    def domain_test(self, v: str, var: ir.Variable, vals: frozenset | None = None) -> str:
        """Python text that is true when ``v`` is outside the variable's domain; whether the
        domain is one range is worked out once per variable, not once per assignment. ``vals``:
        what the compiler proved ``v`` may hold (or None); a range end it cannot pass is not
        tested (``s[4] + 1`` with s[4] in 0..30 is at least 0: only ``c4 > 30`` is)."""
        if var.slot not in self.contiguous:
            values = var.values
            self.contiguous[var.slot] = var.type == ir.INT and tuple(values) == tuple(
                range(values[0], values[-1] + 1))
        contiguous = self.contiguous[var.slot]
        lo, hi = bounds(vals)
        if contiguous and lo is not None and hi is not None:
            first, last = var.values[0], var.values[-1]
            if lo >= first and hi > last:
                return f"{v} > {literal(last)}"
            if hi <= last and lo < first:
                return f"{v} < {literal(first)}"
        return _domain_test(v, var, contiguous)

    def allowed(self, var: ir.Variable) -> frozenset:
        """Every value a variable may hold, built once per variable (not once per assignment of
        every ground action: a million-value domain times 10^4 actions was minutes)."""
        if var.slot not in self.allowed_values:
            self.allowed_values[var.slot] = frozenset(var.values)
        return self.allowed_values[var.slot]

    def domain(self, var: ir.Variable):
        """The values a variable's cells hold, as a frozenset; None for large domains."""
        if var.slot not in self.domains:
            self.domains[var.slot] = small_set(var.values)
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
                    vals=small_set(flat), cost=index.cost + 1)

    def sum_of(self, constant: P, parts) -> P:
        """constant + the parts (a constant 0 left out); there is at least one part."""
        total = constant if constant.const != 0 else None
        for part in parts:
            total = part if total is None else node(
                "op", ("+", total, part), safe=total.safe and part.safe,
                cost=total.cost + part.cost + 1)
        assert total is not None, "an offset with no dynamic part is a constant"
        return total

    # -- operators
    def binary(self, e: ir.Binary, ctx: _Ctx) -> P:
        op = e.op
        if op in ("and", "or"):
            left = self.expr(e.left, ctx)
            if optimize.right_alone(op, left, ctx.facts):
                return self.expr(e.right, ctx)
            decided = optimize.decided_by_left(op, left, ctx.facts)
            if decided is not None:
                return decided
            facts = optimize.facts_when_true(left) if op == "and" else {}
            return optimize.logical(op, left, self.expr(e.right, ctx.knowing(facts)))
        left, right = self.expr(e.left, ctx), self.expr(e.right, ctx)
        if op in optimize.COMPARE:
            return optimize.compare(op, left, right, ctx.facts)
        if op == "/":
            return optimize.exact_division(left, right, self.zero_site(e.span))
        return optimize.arith(op, left, right, self.zero_site(e.span))

    def zero_site(self, span: Span):
        """Registers, when asked, the located error of a division whose divisor may be zero."""
        return lambda message: self.site("E302", message, span)

    # -- definitions
    def call(self, e: ir.Call, ctx: _Ctx) -> P:
        define = e.define
        args = [self.expr(a, ctx) for a in e.args]
        if self.sizes.expr(define.body) > INLINE_SIZE:
            return self.call_function(define, args, ctx)
        uses = local_uses(define.body)
        env, pairs = {}, []
        for param, arg in zip(define.params, args):
            # Constants, names and cheap safe expressions are substituted; anything that may
            # raise is evaluated first, where the call is (the interpreter evaluates every
            # argument before the body), and so is a costly one the body uses several times.
            if arg.is_const or arg.kind == "name" or (
                    arg.safe and (arg.cost <= 3 or uses.get(param, 0) <= 1)):
                env[param] = arg
                continue
            temp = ctx.temps.temp_for("_a", arg.text)
            pairs.append((temp, arg))
            env[param] = name(temp, arg.vals)
        body = self.expr(define.body, _Ctx(env, ctx.mover, ctx.slots, ctx.container, ctx.dirty,
                                           ctx.facts, ctx.temps))
        if not pairs:
            return body
        return node("bind", (tuple(pairs), body), safe=body.safe and all(a.safe for _, a in pairs),
                    vals=body.vals, cost=body.cost + sum(a.cost + 1 for _, a in pairs))

    def let(self, e: ir.Let, ctx: _Ctx) -> P:
        """`let name = value: body`, like a call's argument: a constant, a name or a cheap safe
        value is substituted; anything else is computed once, first (as the interpreter does)."""
        value = self.expr(e.value, ctx)
        if value.is_const or value.kind == "name" or (
                value.safe and (value.cost <= 3 or local_uses(e.body).get(e.name, 0) <= 1)):
            return self.expr(e.body, ctx.bind({e.name: value}))
        temp = ctx.temps.temp_for("_a", value.text)
        body = self.expr(e.body, ctx.bind({e.name: name(temp, value.vals)}))
        return node("bind", (((temp, value),), body), safe=body.safe and value.safe,
                    vals=body.vals, cost=body.cost + value.cost + 1)

    def call_function(self, define: ir.Define, args, ctx: _Ctx) -> P:
        if ctx.dirty:
            raise _NeedList   # the function reads the state; changed slots live in locals
        key = id(define)
        if key not in self.define_fns:
            label = f"_d{len(self.define_fns)}"
            self.define_fns[key] = label
            params = [f"p{i}_{name_part(p)}" for i, p in enumerate(define.params)]
            temps = Temporaries()
            inner = _Ctx({p: name(q) for p, q in zip(define.params, params)},
                         self.mover_read("s"), {}, "s", False, {}, temps)
            body = cse(self.expr(define.body, inner), temps)
            lines = [f"def {label}({', '.join(['s'] + params)}):"]
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
    def resolve(self, binders, ctx: _Ctx):
        """The binders with each ir.Range whose bounds are known here (an action parameter, an
        unrolled outer binder) turned into its values; a range that uses a binder of the same
        list (the checker nests those) or a loop variable, stays an ir.Range."""
        out = []
        for binder_name, values in binders:
            if isinstance(values, ir.Range):   # (the checker nests a range that uses its own list)
                low, high = self.expr(values.low, ctx), self.expr(values.high, ctx)
                if low.is_const and high.is_const:
                    values = tuple(range(low.const, high.const + 1))
            out.append((binder_name, values))
        return tuple(out)

    def range_loop(self, var: str, values, ctx: _Ctx) -> str:
        """``for var in ...`` over a binder's values: a tuple, or a range computed here."""
        if isinstance(values, tuple):
            return f"for {var} in {tuple_literal(values)}"
        low, high = self.expr(values.low, ctx), self.expr(values.high, ctx)
        return f"for {var} in range({low.text}, {optimize.arith('+', high, const(1)).text})"

    def quantifier(self, e: ir.Quantifier, ctx: _Ctx) -> P:
        binders = self.resolve(e.binders, ctx)
        combos = combos_count(binders)
        if _known(binders) and combos <= UNROLL_COMBOS and combos * self.sizes.expr(e.body) <= UNROLL_SIZE:
            terms = []
            for combo in bindings(binders):
                terms.append(self.expr(e.body, ctx.bind({n: const(v) for n, v in combo})))
            return optimize.fold_terms(e.kind, terms)
        loops: list[str] = []
        env: dict[str, P] = {}
        for binder_name, values in binders:
            var = ctx.temps.temp(f"q{name_part(binder_name)}_")
            loops.append(self.range_loop(var, values, ctx.bind(env)))
            env[binder_name] = name(var, small_set(values) if isinstance(values, tuple) else None)
        body = self.expr(e.body, ctx.bind(env))
        loop_text = " ".join(loops)
        if e.kind == "count":
            text = f"_sum(1 {loop_text} if {body.text})"
        elif e.kind == "sum":
            text = f"_sum({body.text} {loop_text})"
        else:
            text = f"{e.kind}({body.text} {loop_text})"
        return P("gen", (), text, safe=body.safe, cost=body.cost * combos + 1)

    def final_expr(self, e, ctx: _Ctx) -> P:
        return cse(self.expr(e, ctx), ctx.temps)

    # ---- statements (effects) ----------------------------------------------------------------

    def effect_code(self, action_id: int, ground: ir.GroundAction, player, chance: bool,
                    ret: str, fallback: list[str] | None = None,
                    preset: dict | None = None, suspend: str | None = None,
                    draw: str | None = None) -> list[str]:
        """The statements of one ground action's effect for one player (or any player: None),
        unindented, every path ending in ``ret`` (a format string) applied to the next state.
        ``s`` is the state before the action (``o`` the chance outcomes so far, with ``chance``;
        with ``draw``, the effect's only draw reads the local of that name instead).

        The effect is compiled to straight tuple building when it can be. When an index depends
        on a slot of the old state with few values (``cell[c][height[c]]``), the code splits on
        that value (``if s[17] == 0: ... if s[17] == 1: ...``), each case with constant indices;
        otherwise it works on a list of cells. A value outside the slot's domain (no valid state
        holds one) goes to ``fallback`` when given, else to the list code."""
        preset = preset or {}
        try:
            lines, result = self._effect(action_id, ground, player, chance, "tuple", preset,
                                         suspend, draw)
            return lines + ([ret.format(result)] if result is not None else [])
        except _NeedList as need:
            slot = need.slot
        lines = []
        values = self.slot_values(slot) if slot is not None else ()
        if slot is not None and slot not in preset and len(preset) < SPLIT_DEPTH \
                and 1 < len(values) <= SPLIT_VALUES:
            for value in values:
                case = self.effect_code(action_id, ground, player, chance, ret, fallback,
                                        {**preset, slot: value}, suspend, draw)
                lines.append(f"if s[{slot}] == {literal(value)}:")
                lines.extend("    " + line for line in case)
            if fallback is not None:
                return lines + fallback
        code, result = self._effect(action_id, ground, player, chance, "list", {}, suspend,
                                    draw)
        return lines + code + ([ret.format(result)] if result is not None else [])

    def _effect(self, action_id, ground, player, chance, mode, preset, suspend=None, draw=None):
        action = ground.action
        temps = Temporaries()
        mover = const(player) if player is not None else self.mover_read("s")
        env = {pname: const(value) for (pname, _, _), value in zip(action.params, ground.args)}
        state = _EffectState(mode, chance, suspend=suspend, draw=draw)
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
        body.append(f"# {comment_text(ground.name)}" + (
            "" if player is None else f", {comment_text(self.game.players[player])} to move")
            + "".join(f", slot {k} = {literal(v)}" for k, v in sorted(preset.items())))
        if mode == "list":
            body.append(f"c = list(s{'[:' + str(self.base) + ']' if chance else ''})")
            container = "c"
        else:
            container = "s"
        if chance and draw is None:
            body.append("n = 0")
        has_next = any(isinstance(st, ir.Next) for st in walk_statements(action.effect))
        if has_next:
            body.append("t = -1")
        self.next_unsure = False    # set by a `next` whose player is not a known player index
        ctx = _Ctx(env, mover, {}, container, False, {}, temps)
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
            body.append(f"t = {rotate.text} if t == -1 else t")
            if self.next_unsure:
                site = self.site("NEXT", action.span)
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
                    ctx.container, bool(state.slots), {}, ctx.temps)

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
            st = ir.For(self.resolve(st.binders, here), st.body, st.span)
            combos = combos_count(st.binders)
            body_size = sum(self.sizes.statement(s) for s in st.body)
            if _known(st.binders) and combos <= UNROLL_COMBOS and combos * body_size <= UNROLL_SIZE:
                for combo in bindings(st.binders):
                    self.block(st.body, ctx.bind({n: const(v) for n, v in combo}), state, out,
                               indent, has_next)
                return
            self.loop(st, ctx, state, out, indent, has_next)
        elif isinstance(st, ir.Pass):
            if has_next:
                out.append(f"{indent}t = -1")
        elif isinstance(st, ir.Next):
            player = self.final_expr(st.player, here)
            if not (player.is_const and type(player.const) is int and 0 <= player.const < self.n):
                self.next_unsure = True
            out.append(f"{indent}t = {player.text}")
        elif isinstance(st, ir.Random):
            self.random(st, ctx, state, out, indent, has_next)
        elif isinstance(st, ir.Repeat):
            if state.mode == "tuple":
                raise _NeedList      # the loop compares and changes the cells in place
            local = ctx.temps.temp("rep_")
            out.append(f"{indent}for {local} in range({st.bound}):")
            out.append(f"{indent}    {local} = {ctx.container}[:]")
            saved = state.force
            state.force = True
            self.block(st.body, ctx, state, out, indent + "    ", has_next)
            state.force = saved
            out.append(f"{indent}    if {ctx.container} == {local}:")
            out.append(f"{indent}        break")
        elif isinstance(st, ir.LetStmt):
            # computed here, into a Python local: later assignments must not change it
            value = self.final_expr(st.value, here)
            bound = value
            if not value.is_const:
                local = ctx.temps.temp(f"l{name_part(st.name)}_")
                out.append(f"{indent}{local} = {value.text}")
                bound = name(local, value.vals)
            self.block(st.body, ctx.bind({st.name: bound}), state, out, indent, has_next)
        else:
            raise AssertionError(f"unknown statement {st!r}")

    def assign(self, st: ir.Assign, ctx: _Ctx, state: _EffectState, out: list, indent: str) -> None:
        var = st.var
        value = self.final_expr(st.value, ctx)
        allowed = self.allowed(var)
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
                    out.append(f"{indent}if {self.domain_test('v', var)}: _e301(v, {check_site})")
                out.append(f"{indent}{cse(self.sum_of(const(0), parts), ctx.temps).text}")
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
                out.append(f"{indent}if {self.domain_test(local, var, value.vals)}: "
                           f"_e301({local}, {check_site})")
            state.slots[slot] = name(local, self.domain(var) if needs_check or value.vals is None
                                     else value.vals & allowed)
            return
        # list mode: the value, its domain, then the index (the interpreter's order)
        if not parts:
            target = f"c[{var.slot + constant}]"
            if needs_check:
                out.append(f"{indent}v = {value.text}")
                out.append(f"{indent}if {self.domain_test('v', var)}: _e301(v, {check_site})")
                out.append(f"{indent}{target} = v")
            else:
                out.append(f"{indent}{target} = {value.text}")
            return
        out.append(f"{indent}v = {value.text}")
        if needs_check:
            out.append(f"{indent}if {self.domain_test('v', var)}: _e301(v, {check_site})")
        index = cse(self.sum_of(const(var.slot + constant), parts), ctx.temps)
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
                state.slots[k] = name(f"c{k}", small_set(self.slot_values(k)))
        (_, then_lines), (_, else_lines) = arms
        out.append(f"{indent}if {cond.text}:")
        out.extend(then_lines)
        if not any(not line.lstrip().startswith("#") for line in then_lines):
            out.append(f"{indent}    pass")  # nothing but rule comments (a folded-away `pass`)
        if any(not line.lstrip().startswith("#") for line in else_lines):
            out.append(f"{indent}else:")
            out.extend(else_lines)

    def slot_values(self, slot: int):
        for var in self.game.variables:
            if var.slot <= slot < var.slot + var.size:
                return var.values
        return ()

    def loop(self, st: ir.For, ctx, state, out, indent, has_next) -> None:
        loops: list[str] = []
        env: dict[str, P] = {}
        for binder_name, values in st.binders:
            var = ctx.temps.temp(f"q{name_part(binder_name)}_")
            loops.append(self.range_loop(var, values, ctx.bind(env)))
            env[binder_name] = name(var, small_set(values) if isinstance(values, tuple) else None)
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
                state.slots[k] = name(f"c{k}", small_set(self.slot_values(k)))
        depth = indent
        for loop in loops:
            out.append(f"{depth}{loop}:")
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
                dist = f"_dist({site}, [{', '.join(f'({literal(v)}, {literal(p)})' for v, p in values)}])"
            else:
                # one list per distinct distribution: its pairs are the very same objects
                # every time (solvers may recognise pairs they have checked already)
                text = "[" + ", ".join(f"(({st.index}, {literal(v)}), {self.fraction(p)})"
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
        local = ctx.temps.temp(f"q{name_part(st.name)}_")
        if state.draw is not None:      # the only draw: its outcome is known (a parameter)
            out.append(f"{indent}{local} = {state.draw}")
        else:
            out.append(f"{indent}if n >= len(o):")
            out.append(f"{indent}    return {dist}")
            out.append(f"{indent}{local} = o[n]")
            out.append(f"{indent}n += 1")
        vals = frozenset(v.const for v, _ in pairs) if all(v.is_const for v, _ in pairs) else None
        self.block(st.body, ctx.bind({st.name: name(local, vals)}), state, out, indent, has_next)

    # ---- the module ------------------------------------------------------------------------

    def rule_expr(self, e, container: str, temps: Temporaries) -> P:
        """A whole-state rule (terminal, utility, evaluation, quiet) over the state tuple named
        ``container``, its temporaries from ``temps``."""
        ctx = _Ctx({}, self.mover_read(container), {}, container, False, {}, temps)
        return self.final_expr(e, ctx)

    def module_code(self) -> str:
        """The generated module after its comment header (gdl.backends.compiler writes that)."""
        game = self.game
        chance_ids = {i for i, g in enumerate(game.ground_actions) if has_random(g.action.effect)}
        term = self.rule_expr(game.terminal, "s", Temporaries())
        fns = self._query_functions(term)
        applying, runs = self._apply_functions(chance_ids)
        fns += applying
        fns += self._rule_functions()
        return self._assemble(fns, runs)

    def _query_functions(self, term: P) -> list[list[str]]:
        """current_player, is_terminal, legal_actions (and each player's ``_legal<p>`` where the
        stuck rule asks them); ``term`` is the terminal condition of ``s``."""
        game, n, base = self.game, self.n, self.base
        fns: list[list[str]] = []
        term_comment = self.comment(game.spans.get("terminal"))
        cache_terminal = self.cache and term.cost >= CACHE_COST
        guard = [f"    if len(s) != {base}:", "        return {}"] if game.has_chance else []

        def evaluate_terminal(indent: str) -> list[str]:
            """Lines that set ``t`` to the terminal condition of ``s`` (through the cache)."""
            lines = [indent + term_comment] if term_comment else []
            body = [f"{indent}try:", f"{indent}    t = {term.text}", f"{indent}except _EvalError as e:",
                    f"{indent}    raise _fail(e, s) from None"]
            if game.stuck_end:   # `when stuck lose | win`: no legal action ends the game
                # the legal actions found here are kept in ``r`` for legal_actions
                body += [f"{indent}if not t:", f"{indent}    r = _LEGAL[s[0]](s)", f"{indent}    t = not r"]
            if not cache_terminal:
                return lines + body
            return lines + [f"{indent}t = _TC.get(s)", f"{indent}if t is None:"] + \
                ["    " + line for line in body] + \
                [f"{indent}    if len(_TC) >= {CACHE_LIMIT}:", f"{indent}        _TC.clear()",
                 f"{indent}    _TC[s] = t"]

        # current_player remembers its last answer for legal_actions, unless the terminal test
        # costs less than remembering it (a tuple and a global written at every call)
        remember = game.stuck_end is not None or cache_terminal or term.cost >= REMEMBER_COST
        lines = ["def current_player(s):"] + (["    global _last"] if remember else [])
        lines += [g.format("-1") for g in guard]
        keep = ", r" if game.stuck_end else ""
        lines += ["    r = None"] if game.stuck_end else []
        lines += evaluate_terminal("    ")
        lines += [f"    _last = (s, t{keep})"] if remember else []
        lines += ["    return -2 if t else s[0]"]
        fns.append(lines)

        lines = ["def is_terminal(s):"] + [g.format("False") for g in guard]
        lines += evaluate_terminal("    ") + ["    return t"]
        fns.append(lines)

        # legal actions, specialised per player (mover is a constant in each)
        per_player = [self.legal_body(p) for p in range(n)]
        lines = ["def legal_actions(s):"] + (["    global _last"] if game.stuck_end else [])
        lines += [g.format("[]") for g in guard]
        lines += ["    r = None"] if game.stuck_end else []
        if remember:
            lines += ["    l = _last", "    if l[0] is s:", "        t = l[1]"]
            # handed out once: a caller may change the list it gets
            lines += ["        r = l[2]", "        _last = (s, t, None)"] if game.stuck_end else []
            lines += ["    else:"] + evaluate_terminal("        ")
        else:
            lines += evaluate_terminal("    ")
        lines += ["    if t:", "        return []"]
        # with `when stuck lose | win`, the terminal test may have listed the actions already
        lines += ["    if r is not None:", "        return r"] if game.stuck_end else []
        lines += ["    p = s[0]"]
        for p, body in enumerate(per_player):
            lines.append(f"    {'if' if p == 0 else 'elif'} p == {p}:   # "
                         + comment_text(game.players[p]))
            lines.extend("    " + line for line in body)
        lines += ["    else:", "        return _slow('legal_actions', s)", "    if not r:",
                  "        raise _fail(_stuck(s), s) from None", "    return r"]
        fns.append(lines)
        if game.stuck_pass or game.stuck_end is not None:
            # _settle (or the terminal test) asks each player in turn
            for p, body in enumerate(per_player):
                fns.append([f"def _legal{p}(s):"] + body + ["    return r"])
        return fns

    def _apply_functions(self, chance_ids: set[int]) -> tuple[list[list[str]], str | None]:
        """apply (a binary decision over the action id, per player), the effects it runs, and
        chance_outcomes; and the table of the effects that draw (None without chance)."""
        game, n, base = self.game, self.n, self.base
        K = len(game.ground_actions)
        fns: list[list[str]] = []
        specialise = n * K <= SPECIALISE_LIMIT
        players = list(range(n)) if specialise else [None]
        settle = "_settle" if game.stuck_pass else ""
        lines = ["def apply(s, a):"]
        # Where every chance action draws once, an outcome finishes the pending action through
        # _ONE[k][mover](s, outcome value): its effect with that value, no outcome list to build
        # nor distribution to meet first.
        once = game.has_chance and all(draws_once(game.ground_actions[k].action.effect)
                                       for k in chance_ids)
        if once:
            pick = "_ONE[s[{}]][s[0]]" if specialise else "_ONE[s[{}]][0]"
            lines += [f"    if len(s) != {base}:", "        try:",
                      f"            r = {pick.format(base)}(s, a[1])", "        except _EvalError as e:",
                      "            raise _fail(e, s, a) from None", f"        return {settle}(r)"]
        elif game.has_chance:   # a chance outcome: replay the pending action with it
            pick = "_RUN[k][s[0]]" if specialise else "_RUN[k][0]"
            lines += [f"    if len(s) != {base}:", f"        k = s[{base}]",
                      f"        o = s[{base + 1}:] + (a[1],)", "        try:",
                      f"            r = {pick}(s, o)", "        except _EvalError as e:",
                      "            raise _fail(e, s, a) from None", "        if type(r) is list:",
                      f"            return s[:{base}] + (k,) + o", f"        return {settle}(r)"]
        lines += ["    p = s[0]", "    try:"]
        for player in players:
            indent = "        "
            if player is not None:
                lines.append(f"        if p == {player}:   # " + comment_text(game.players[player]))
                indent += "    "
            leaves = {}
            for k, ground in enumerate(game.ground_actions):
                if k in chance_ids:
                    label = f"_r{k}{'' if player is None else '_' + str(player)}"
                    if once:
                        code = self.effect_code(k, ground, player, True, "return {}", draw="drawn")
                        fns.append([f"def _o{label[2:]}(s, drawn):"] + ["    " + x for x in code])
                    code = self.effect_code(k, ground, player, True, "return {}")
                    fns.append([f"def {label}(s, o):"] + ["    " + x for x in code])
                    # the decision: run the effect up to its first `random`, then wait
                    leaves[k] = self.effect_code(k, ground, player, False,
                                                 f"return {settle}({{}})" if settle else "return {}",
                                                 ["return _slow('apply', s, a)"],
                                                 suspend=f"return s + ({k},)")
                else:
                    leaves[k] = self.effect_code(k, ground, player, False,
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
            if once:
                runs += "\n_ONE = " + runs[len("_RUN = "):].replace("_r", "_o")
            pick = "_RUN[k][s[0]]" if specialise else "_RUN[k][0]"
            fns.append(["def chance_outcomes(s):", f"    k = s[{base}]", "    try:",
                        f"        r = {pick}(s, s[{base + 1}:])", "    except _EvalError as e:",
                        "        raise _fail(e, s) from None", "    if type(r) is not list:",
                        "        raise AssertionError('a chance state whose effect needs no outcome')",
                        "    return list(r)"])
        else:
            runs = None
            fns.append(["def chance_outcomes(s):", "    return _slow('chance_outcomes', s)"])
        return fns, runs

    def _rule_functions(self) -> list[list[str]]:
        """``_settle`` (`when stuck pass`), returns, evaluate, is_quiet and tier."""
        game, n = self.game, self.n
        fns: list[list[str]] = []
        # `when stuck pass`: a player without a legal action is skipped, in rotation
        if game.stuck_pass:
            t_term = self.rule_expr(game.terminal, "t", Temporaries())
            fns.append(["def _settle(t):", "    try:", f"        if {t_term.text}:", "            return t",
                        "    except _EvalError as e:", "        raise _fail(e, t) from None",
                        "    p = t[0]", f"    for step in range({n}):",
                        f"        u = ((p + step) % {n},) + t[1:]",
                        "        if _LEGAL[u[0]](u):", "            return u", "    return t"])

        if game.stuck_end is None:
            fns.append(self.per_player_fn("returns", game.utilities))
        else:
            # terminal by the rules: the utilities; otherwise the mover is stuck: _STUCK
            if game.utilities:
                fns.append(self.per_player_fn("_returns_rules", game.utilities))
            t_term = self.rule_expr(game.terminal, "s", Temporaries())
            fns.append(["def returns(s):", "    try:", f"        t = {t_term.text}",
                        "    except _EvalError as e:", "        raise _fail(e, s) from None",
                        "    if not t:", "        return _STUCK[s[0]]",
                        "    return _returns_rules(s)" if game.utilities else "    return _STUCK[s[0]]"])
        if game.evaluations:
            fns.append(self.per_player_fn("evaluate", game.evaluations))
        else:
            fns.append(["def evaluate(s):",
                        "    raise _ValueError('the game declares no evaluation')"])
        if game.quiet is not None:
            q = self.rule_expr(game.quiet, "s", Temporaries())
            fns.append(["def is_quiet(s):", "    try:", f"        return bool({q.text})",
                        "    except _EvalError as e:", "        raise _fail(e, s) from None"])
        else:
            fns.append(["def is_quiet(s):", "    return True"])
        if game.tier is not None:
            t = self.rule_expr(game.tier, "s", Temporaries())
            fns.append(["def tier(s):", "    try:", f"        return {t.text}",
                        "    except _EvalError as e:", "        raise _fail(e, s) from None"])
        return fns

    def _assemble(self, fns: list[list[str]], runs: str | None) -> str:
        """The module: caches, preamble, the rules' functions, the functions ``fns``, tables."""
        game, n = self.game, self.n
        caches = [
            "_last = (None, None, None)",
            "_TC = {}   # terminal condition per state (bounded), when it is costly to evaluate",
            "_RC = {}   # returns per state (bounded), likewise",
        ]
        functions: list[str] = []
        for lines in fns:
            functions.extend(lines)
            functions.append("")
        asks_legal = game.stuck_pass or game.stuck_end is not None
        tables = [f"_LEGAL = ({''.join(f'_legal{p}, ' for p in range(n))})"] if asks_legal else []
        if game.stuck_end is not None:
            rows = "".join("(" + "".join(f"{literal(v)}, " for v in values) + "), "
                           for values in game.stuck_values)
            tables.append(f"_STUCK = ({rows})")
        if runs:
            tables.append(runs)
        return "\n".join(caches + self.preamble + [""] + self.out + functions + tables) + "\n"

    def legal_body(self, p: int) -> list[str]:
        """Lines (indented one level) that set ``r`` to player p's legal action ids, in
        declaration order; a failing `requires` raises the located error."""
        game = self.game
        temps = Temporaries()
        inner: list[str] = []
        any_dynamic = False
        last_action = None
        # Parameter guards open nested blocks: (guard number, its parameters' values, the
        # block's indentation or None for a guard folded to true, False for one folded to false,
        # the length of ``inner`` when it opened)
        open_guards: list[tuple[int, tuple, object, int]] = []

        def close_to(depth: int) -> None:
            while len(open_guards) > depth:
                _, _, indent, opened = open_guards.pop()
                if isinstance(indent, str) and len(inner) == opened:
                    inner.append(indent + "pass")   # every ground action below was folded away

        for k, ground in enumerate(game.ground_actions):
            action = ground.action
            if action.by is not None and p not in action.by:
                continue
            if action is not last_action:
                close_to(0)
                comment = self.comment(action.requires.span if action.requires is not None
                                       else action.span)
                if comment:
                    inner.append("        " + comment)
                last_action = action
            env = {pname: const(value) for (pname, _, _), value in zip(action.params, ground.args)}
            ctx = _Ctx(env, const(p), {}, "s", False, {}, temps)
            requires = action.requires
            pad = "        "
            if action.guards:
                requires = action.rest
                for number, (position, guard) in enumerate(action.guards):
                    prefix = ground.args[:position + 1]
                    if len(open_guards) > number and open_guards[number][1] == prefix:
                        continue
                    close_to(number)
                    indent = next((g[2] for g in reversed(open_guards) if isinstance(g[2], str)),
                                  "        ")
                    test = self.final_expr(guard, ctx)
                    if test.is_const:
                        open_guards.append((number, prefix, None if test.const else False,
                                            len(inner)))
                        continue
                    any_dynamic = True
                    inner.append(f"{indent}if {test.text}:   # {comment_text(action.name)}"
                                 f"({','.join(map(str, prefix))},...)")
                    open_guards.append((number, prefix, indent + "    ", len(inner)))
                if any(g[2] is False for g in open_guards):
                    continue
                pad = next((g[2] for g in reversed(open_guards) if isinstance(g[2], str)), pad)
            if requires is None:
                inner.append(f"{pad}r.append({k})   # {comment_text(ground.name)}")
                continue
            cond = self.final_expr(requires, ctx)
            if cond.is_const:
                if cond.const:
                    inner.append(f"{pad}r.append({k})   # {comment_text(ground.name)}")
                continue
            any_dynamic = True
            inner.append(f"{pad}if {cond.text}:   # {comment_text(ground.name)}")
            inner.append(f"{pad}    r.append({k})")
        close_to(0)
        lines = ["    r = []"]
        if any_dynamic:
            lines += ["    try:"] + inner + ["    except _EvalError as e:",
                                             "        raise _fail(e, s) from None"]
        else:
            lines += [line[4:] for line in inner]
        return lines

    def per_player_fn(self, label: str, exprs) -> list[str]:
        """``returns`` or ``evaluate``: one value per player; the checker leaves at most one
        utility out (zero-sum or constant-sum), and it is the total minus the others."""
        temps = Temporaries()
        body = ["try:"]
        names: list[str] = []
        missing = None
        cost = 0
        for i, e in enumerate(exprs):
            if e is None:
                missing = i
                names.append("")
                continue
            c = self.comment(e.span)
            if c:
                body.append("    " + c)
            value = self.rule_expr(e, "s", temps)
            cost += value.cost
            body.append(f"    v{i} = {value.text}")
            names.append(f"v{i}")
        body += ["except _EvalError as e:", "    raise _fail(e, s) from None"]
        if missing is not None:
            given = [x for i, x in enumerate(names) if i != missing]
            total = literal(self.game.sum_total)
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

    __slots__ = ("chance", "dead", "draw", "force", "mode", "slots", "suspend")

    def __init__(self, mode: str, chance: bool, slots=None, force: bool = False,
                 suspend: str | None = None, draw: str | None = None):
        self.mode, self.chance, self.force = mode, chance, force
        self.slots: dict[int, P] = slots if slots is not None else {}
        self.dead = False   # an error was raised (or the effect suspended): nothing after it runs
        # With `suspend`, no chance outcome is known yet (the decision itself): the first
        # `random` reached checks its distribution and runs this line instead of reading `o`.
        self.suspend = suspend
        # With `draw`, the effect draws once and that draw's outcome is this local (an outcome
        # applied to a pending state: no outcome list to read, no distribution to hand out).
        self.draw = draw

    def copy(self) -> _EffectState:
        return _EffectState(self.mode, self.chance, dict(self.slots), self.force, self.suspend,
                            self.draw)


def _domain_test(v: str, var: ir.Variable, contiguous: bool) -> str:
    values = var.values
    if contiguous:
        return f"not {literal(values[0])} <= {v} <= {literal(values[-1])}"
    return f"{v} not in {{{', '.join(literal(x) for x in values)}}}"


def _flatten(value):
    if isinstance(value, tuple):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _known(binders) -> bool:
    """Whether every binder's values are known when the code is generated (none is an ir.Range)."""
    return all(isinstance(values, tuple) for _, values in binders)
