"""`gdl show FILE --emit ast|ir|python`: one stage of the pipeline, printed.

* ``ast``: the syntax tree (gdl.lang.ast), one node per line, with the line:column it came from;
* ``ir``: the checked game (gdl.lang.ir): state layout (slot of every variable), symbols, initial
  state, actions with their ground count, rules written back as resolved expressions;
* ``python``: the source the compiler generates (gdl.backends.compiler), exactly as it is run;
* ``c``: the C the native backend generates (gdl.backends.native.emit): the rules, with their
  ``file:line`` as comments, and the search loops, exactly as the C compiler gets it.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from gdl.cli import UsageError, add_common, parse_sets, read_rule_text, refuse_kif

EMITS = ("ast", "ir", "python", "c")


def cmd_show(args) -> int:
    from gdl.errors import Source
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    refuse_kif(args.file, "show")
    text = read_rule_text(args.file)
    source = Source(args.file, text)
    tree = parse(text, args.file)
    if args.emit == "ast":
        print("\n".join(format_ast(tree)))
        return 0
    game = check(tree, source, parse_sets(args.set))
    if args.emit == "ir":
        print("\n".join(format_ir(game)))
        return 0
    if game.tree is not None:
        print(f"# {args.file} is an explicit tree: it is played as a gdl.backends.tree.TreeGame, "
              "no code is generated.")
        return 0
    if args.emit == "c":
        from gdl.backends.native.emit import Unsupported
        from gdl.backends.native.emit import generate as generate_c

        try:
            print(generate_c(game, args.file), end="")
        except Unsupported as error:
            raise UsageError(f"{args.file}: no native code for this game ({error})") from None
        return 0
    from gdl.backends.compiler import generate

    print(generate(game, source), end="")
    return 0


def register(commands) -> None:
    show = commands.add_parser(
        "show", help="print the syntax tree, the checked game, or the generated Python or C",
        epilog="Example: gdl show games/tictactoe.game --emit python")
    add_common(show, kif=False)
    show.add_argument("--emit", choices=EMITS, default="python",
                      help="what to print (default: python)")
    show.set_defaults(run=cmd_show)


# ---- the syntax tree -------------------------------------------------------------------------

def _where(node) -> str:
    span = getattr(node, "span", None)
    return f"  @{span.line}:{span.column}" if span is not None and span.line else ""


def _is_node(value) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _scalar(value) -> bool:
    if _is_node(value):
        return type(value).__name__ in ("Ident", "Span")
    if isinstance(value, tuple):
        return all(_scalar(v) and not isinstance(v, tuple) for v in value)
    return True


def _short(value) -> str:
    if _is_node(value) and type(value).__name__ == "Ident":
        return value.name
    if isinstance(value, tuple):
        return "(" + ", ".join(_short(v) for v in value) + ")"
    if isinstance(value, Fraction):
        return str(value)
    return repr(value)


def format_ast(node, indent: str = "") -> list[str]:
    """One line per syntax node: ``Kind(scalar fields)  @line:column``, children indented."""
    fields = [f for f in dataclasses.fields(node) if f.name != "span"]
    simple = [f for f in fields if _scalar(getattr(node, f.name))]
    nested = [f for f in fields if not _scalar(getattr(node, f.name))]
    head = ", ".join(f"{f.name}={_short(getattr(node, f.name))}" for f in simple)
    lines = [f"{indent}{type(node).__name__}({head}){_where(node)}"]
    for f in nested:
        value = getattr(node, f.name)
        if _is_node(value):
            lines.append(f"{indent}  {f.name}:")
            lines.extend(format_ast(value, indent + "    "))
            continue
        lines.append(f"{indent}  {f.name}:")
        for item in value:
            if _is_node(item):
                lines.extend(format_ast(item, indent + "    "))
            elif isinstance(item, tuple):
                lines.append(f"{indent}    -")
                for part in item:
                    if _is_node(part):
                        lines.extend(format_ast(part, indent + "      "))
                    else:
                        lines.append(f"{indent}      {_short(part)}")
            else:
                lines.append(f"{indent}    {_short(item)}")
    return lines


# ---- the checked game --------------------------------------------------------------------------

def _values(values, type_: str, symbols, text: _IrText | None = None) -> str:
    if not isinstance(values, tuple) and text is not None:   # an ir.Range: bounds use local names
        return f"{text.expr(values.low)}..{text.expr(values.high)}"
    values = tuple(values)
    if type_ == "sym":
        return "{" + ", ".join(symbols[v] if 0 <= v < len(symbols) else str(v) for v in values) + "}"
    if type_ == "int" and len(values) > 2 and values == tuple(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return "{" + ", ".join(str(v).lower() if type(v) is bool else str(v) for v in values) + "}"


class _IrText:
    """Rules of a checked game written back as text: names resolved, symbols by name."""

    def __init__(self, game):
        self.game = game

    def value(self, value, type_: str) -> str:
        symbols = self.game.symbols
        if type_ == "sym" and type(value) is int and 0 <= value < len(symbols):
            return symbols[value]
        if type(value) is bool:
            return str(value).lower()
        return str(value)

    def expr(self, e) -> str:
        from gdl.lang import ir

        if isinstance(e, ir.Lit):
            return self.value(e.value, e.type)
        if isinstance(e, ir.Local):
            return e.name
        if isinstance(e, ir.Mover):
            return "mover"
        if isinstance(e, ir.VarRef):
            return e.var.name + "".join(f"[{self.expr(i)}]" for i in e.indices)
        if isinstance(e, ir.ConstRef):
            return e.const.name + "".join(f"[{self.expr(i)}]" for i in e.indices)
        if isinstance(e, ir.Unary):
            return f"(-{self.expr(e.operand)})" if e.op == "-" else f"(not {self.expr(e.operand)})"
        if isinstance(e, ir.Binary):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, ir.IfExpr):
            return f"({self.expr(e.then)} if {self.expr(e.cond)} else {self.expr(e.otherwise)})"
        if isinstance(e, ir.Quantifier):
            binders = ", ".join(f"{n} in {_values(v, 'int', (), self)}" for n, v in e.binders)
            return f"({e.kind} {binders}: {self.expr(e.body)})"
        if isinstance(e, ir.Let):
            return f"(let {e.name} = {self.expr(e.value)}: {self.expr(e.body)})"
        if isinstance(e, (ir.Builtin, ir.Call)):
            name = e.name if isinstance(e, ir.Builtin) else e.define.name
            return f"{name}({', '.join(self.expr(a) for a in e.args)})"
        return repr(e)

    def stmts(self, stmts, indent: str) -> list[str]:
        from gdl.lang import ir

        lines = []
        for st in stmts:
            if isinstance(st, ir.Assign):
                target = st.var.name + "".join(f"[{self.expr(i)}]" for i in st.indices)
                lines.append(f"{indent}{target} = {self.expr(st.value)}")
            elif isinstance(st, ir.If):
                lines.append(f"{indent}if {self.expr(st.cond)}:")
                lines.extend(self.stmts(st.then, indent + "    ") or [indent + "    (nothing)"])
                if st.otherwise:
                    lines.append(f"{indent}else:")
                    lines.extend(self.stmts(st.otherwise, indent + "    "))
            elif isinstance(st, ir.For):
                binders = ", ".join(f"{n} in {_values(v, 'int', (), self)}" for n, v in st.binders)
                lines.append(f"{indent}for {binders}:")
                lines.extend(self.stmts(st.body, indent + "    "))
            elif isinstance(st, ir.Pass):
                lines.append(f"{indent}pass")
            elif isinstance(st, ir.Next):
                lines.append(f"{indent}next {self.expr(st.player)}")
            elif isinstance(st, ir.LetStmt):
                lines.append(f"{indent}let {st.name} = {self.expr(st.value)}, then:")
                lines.extend(self.stmts(st.body, indent + "    "))
            elif isinstance(st, ir.Random):
                outcomes = ", ".join(f"{self.expr(v)}: {self.expr(p)}" for v, p in st.outcomes)
                lines.append(f"{indent}random #{st.index} {st.name} in {{{outcomes}}}, then:")
                lines.extend(self.stmts(st.body, indent + "    "))
        return lines


def format_ir(game) -> list[str]:
    text = _IrText(game)
    lines = [f"game {game.title!r}"]
    lines.append("players: " + ", ".join(f"{p}={i}" for i, p in enumerate(game.players)))
    lines.append("symbols: " + ", ".join(f"{s}={i}" for i, s in enumerate(game.symbols)))
    if game.params:
        lines.append("params: " + ", ".join(f"{k}={text.value(v, 'bool' if type(v) is bool else 'int')}"
                                            for k, v in game.params.items()))
    if game.tree is not None:
        lines.append("explicit tree (played as gdl.backends.tree.TreeGame)")
        total = f" {game.sum_total}" if game.sum_kind != "general-sum" else ""
        lines.append(f"sum: {game.sum_kind}{total}")
        return lines
    lines.append(f"state: {len(game.initial)} slots; slot 0 is the player to move")
    for var in game.variables:
        shape = "".join(f"[{x}]" for x in var.shape)
        last = var.slot + var.size - 1
        where = f"slot {var.slot}" if var.size == 1 else f"slots {var.slot}..{last} (row-major)"
        lines.append(f"  var {var.name}{shape} in {_values(var.values, var.type, game.symbols)}: {where}")
    for const in game.constants:
        lines.append(f"  const {const.name} = {const.value!r}")
    lines.append(f"initial state: {tuple(game.initial)!r}")
    lines.append(f"actions: {len(game.actions)} ({len(game.ground_actions)} ground actions, "
                 "ids in this order)")
    for action in game.actions:
        params = ", ".join(f"{n} in {_values(v, t, game.symbols, text)}" for n, t, v in action.params)
        by = "" if action.by is None else " by " + ", ".join(game.players[p] for p in sorted(action.by))
        lines.append(f"  action {action.name}{'(' + params + ')' if params else ''}{by}"
                     f"  @{action.span.line}")
        if action.requires is not None:
            lines.append(f"    requires {text.expr(action.requires)}")
        lines.append("    effect:")
        lines.extend(text.stmts(action.effect, "      ") or ["      (nothing)"])
    lines.append(f"terminal {text.expr(game.terminal)}")
    for player, e in zip(game.players, game.utilities):
        lines.append(f"utility {player} = " + (text.expr(e) if e is not None else
                                               f"{game.sum_total} minus the others (declared sum)"))
    for player, e in zip(game.players, game.evaluations):
        if e is not None:
            lines.append(f"evaluate {player} = {text.expr(e)}")
    if game.quiet is not None:
        lines.append(f"quiet when {text.expr(game.quiet)}")
    lines.append(f"sum: {game.sum_kind}" + (f" {game.sum_total}" if game.sum_kind != "general-sum" else ""))
    if game.utility_bounds is not None:
        lines.append(f"utility in {game.utility_bounds[0]}..{game.utility_bounds[1]}")
    if game.max_length is not None:
        lines.append(f"max-length {game.max_length}")
    if game.stuck_pass:
        lines.append("when stuck pass")
    if game.stuck_end:
        lines.append(f"when stuck {game.stuck_end}")
    if game.endless_values is not None:
        worth = ", ".join(f"{p} {v}" for p, v in zip(game.players, game.endless_values))
        lines.append(f"when endless: {worth}")
    lines.append(f"chance: {'yes' if game.has_chance else 'no'}")
    return lines
