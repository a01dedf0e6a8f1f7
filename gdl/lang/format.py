"""Syntax tree → canonical text: the formatter behind `gdl fmt`.

    from gdl.lang.format import format_text, format_file
    format_text(open("games/nim.game").read())     # parse, keep comments, print canonically
    format_file(tree)                              # a syntax tree (gdl.lang.ast) without comments

Guarantees (tested):

* **Round trip**: ``parse(format_file(tree)) == tree`` for every tree the parser can produce (spans
  do not take part in equality). ``format_text`` checks this on its own output and raises
  ``FormatError`` rather than return text that means something else.
* **Idempotence**: ``format_text(format_text(t)) == format_text(t)``.
* **Comments are kept.** They are not in the syntax tree, so they are read from the token stream
  (Lark's lexer, COMMENT tokens, through ``lexer_callbacks``) and put back by position: a comment
  on a line of its own goes before the first output line that starts with code from a later
  source line; a comment after code goes at the end of the output line holding that code,
  keeping its column where the code leaves room (aligned comments stay aligned), or on its own
  line above it when the line would pass 100 columns; a statement followed by a comment ends its
  output line. Every comment of the input is in the output, in the same order, with the same
  text (trailing spaces dropped); ``format_text`` checks that too. (Refusing files with comments
  was the alternative; a formatter that loses or refuses comments is not one people can use.)

Canonical style (close to how the bundled games are written):

* one declaration per line or block; blank lines between declarations are kept from the source
  (at most one); a file built from a tree alone gets a blank line where the kind of declaration
  changes;
* 4-space indentation; lines up to 100 columns, longer only where nothing can break;
* minimal parentheses, derived from the grammar's precedence levels (loosest first): conditional
  ``a if c else b``; ``or``; ``and``; ``not`` and the quantifiers (whose body reaches only as far as
  a comparison: ``any r in 0..2: x[r] == 0 or done`` is ``(any ...) or done``); comparisons (not
  chained); ``+ -``; ``* / %``; unary minus; atoms;
* an action is a header line, then ``requires`` and ``effect`` clauses indented by 4 and aligned
  (``effect   x = 1; y = 2``); statements that do not fit continue under the first one; an
  ``if``/``for`` whose blocks do not fit on one line opens every block of its chain;
* a ``define`` whose value is a long ``or``/``and`` chain breaks after ``=`` with one operand per
  line, the operators leading (as in games/tictactoe.game); other long expressions break inside
  their outermost brackets or ``or``/``and`` chains, aligned;
* a table (a list of lists) has one row per line, integer columns right-aligned;
* an explicit tree node whose children are all leaves stays on one line if it fits
  (``MIN { b1: 3, b2: 12, b3: 8 }``), any other node has one edge per line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from gdl.lang import ast

WIDTH = 100
INDENT = 4

__all__ = [
    "WIDTH",
    "Comment",
    "FormatError",
    "collect_comments",
    "format_expr",
    "format_file",
    "format_text",
]


class FormatError(Exception):
    """The formatter's own output would not read back as its input (a bug in the formatter)."""


@dataclass(frozen=True)
class Comment:
    line: int
    column: int
    text: str          # from '#' to the end of the line, trailing spaces removed
    trailing: bool     # code precedes it on its line


# ==== a small Wadler/Oppen-style document printer ===============================================

class _Line:
    __slots__ = ("flat",)

    def __init__(self, flat: str):
        self.flat = flat


LINE = _Line(" ")        # a space, or a line break
SOFTLINE = _Line("")     # nothing, or a line break


class _HardLine:
    """Always a line break; a group containing one never prints flat."""


HARDLINE = _HardLine()


@dataclass(frozen=True)
class _Nest:
    by: int
    doc: object


@dataclass(frozen=True)
class _Align:
    doc: object


@dataclass(frozen=True)
class _Group:
    doc: object


@dataclass(frozen=True)
class _IfBreak:
    broken: object
    flat: object


@dataclass(frozen=True)
class _Fill:
    parts: tuple    # content, separator, content, ...: a separator breaks only when needed


@dataclass(frozen=True)
class _Anchor:
    line: int       # the source line of the code that follows


def nest(by: int, *docs):
    return _Nest(by, list(docs))


def align(*docs):
    return _Align(list(docs))


def group(*docs):
    return _Group(list(docs))


def anchor(span: ast.Span):
    return _Anchor(span.line) if span.line else ""


def join(separator, docs) -> list:
    out: list = []
    for i, doc in enumerate(docs):
        if i:
            out.append(separator)
        out.append(doc)
    return out


_FLAT, _BREAK = 0, 1


def _fits(items: list, width: int) -> bool:
    """Whether ``items`` ((indent, mode, doc) triples, the first ones printed first) fit in
    ``width`` columns up to the first line break of a part printed broken."""
    stack = list(reversed(items))
    while stack:
        if width < 0:
            return False
        indent, mode, doc = stack.pop()
        if isinstance(doc, str):
            width -= len(doc)
        elif isinstance(doc, list):
            stack.extend((indent, mode, d) for d in reversed(doc))
        elif isinstance(doc, _Line):
            if mode == _BREAK:
                return True
            width -= len(doc.flat)
        elif isinstance(doc, _HardLine):
            return mode == _BREAK
        elif isinstance(doc, (_Nest, _Align, _Group)):
            stack.append((indent, mode, doc.doc))
        elif isinstance(doc, _IfBreak):
            stack.append((indent, mode, doc.broken if mode == _BREAK else doc.flat))
        elif isinstance(doc, _Fill):
            stack.extend((indent, mode, d) for d in reversed(doc.parts))
    return width >= 0


def render(doc, width: int = WIDTH) -> list[tuple[str, int]]:
    """Lay a document out: a list of (line text, anchor), where the anchor is the source line of
    the first anchored code that starts on that output line (0 if none)."""
    lines: list[tuple[str, int]] = []
    current: list[str] = []
    current_anchor = 0
    pos = 0
    stack: list[tuple[int, int, object]] = [(0, _BREAK, doc)]

    def newline(indent: int) -> None:
        nonlocal current, current_anchor, pos
        lines.append(("".join(current).rstrip(), current_anchor))
        current, current_anchor, pos = [" " * indent], 0, indent

    while stack:
        indent, mode, d = stack.pop()
        if isinstance(d, str):
            current.append(d)
            pos += len(d)
        elif isinstance(d, list):
            stack.extend((indent, mode, x) for x in reversed(d))
        elif isinstance(d, _Anchor):
            if not current_anchor:
                current_anchor = d.line
        elif isinstance(d, _Line):
            if mode == _FLAT:
                current.append(d.flat)
                pos += len(d.flat)
            else:
                newline(indent)
        elif isinstance(d, _HardLine):
            newline(indent)
        elif isinstance(d, _Nest):
            stack.append((indent + d.by, mode, d.doc))
        elif isinstance(d, _Align):
            stack.append((pos, mode, d.doc))
        elif isinstance(d, _Group):
            if mode == _FLAT:
                stack.append((indent, _FLAT, d.doc))
            else:
                flat = _fits([(indent, _FLAT, d.doc)] + list(reversed(stack)), width - pos)
                stack.append((indent, _FLAT if flat else _BREAK, d.doc))
        elif isinstance(d, _IfBreak):
            stack.append((indent, mode, d.broken if mode == _BREAK else d.flat))
        elif isinstance(d, _Fill):
            parts = d.parts
            if not parts:
                continue
            content_mode = _FLAT if _fits([(indent, _FLAT, parts[0])], width - pos) else _BREAK
            if len(parts) == 1:
                stack.append((indent, content_mode, parts[0]))
                continue
            pair = [(indent, _FLAT, parts[0]), (indent, _FLAT, parts[1]), (indent, _FLAT, parts[2])]
            separator_mode = _FLAT if _fits(pair, width - pos) else _BREAK
            stack.append((indent, mode, _Fill(parts[2:])))
            stack.append((indent, separator_mode, parts[1]))
            stack.append((indent, content_mode, parts[0]))
        else:
            raise TypeError(f"not a document: {d!r}")
    lines.append(("".join(current).rstrip(), current_anchor))
    return lines


# ==== expressions ===============================================================================

# Precedence levels, loosest first (grammars/game.lark, "expressions").
COND, OR, AND, NOT, CMP, SUM, PROD, UNARY, ATOM = range(9)
_COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}
_LEVEL = {"or": OR, "and": AND, "+": SUM, "-": SUM, "*": PROD, "/": PROD, "//": PROD, "%": PROD}
_RIGHT_LEVEL = {OR: AND, AND: NOT, CMP: SUM, SUM: PROD, PROD: UNARY}


def level(e: ast.Expr) -> int:
    """The loosest grammar level at which ``e`` can be written without parentheses."""
    if isinstance(e, ast.IfExpr):
        return COND
    if isinstance(e, ast.Binary):
        return CMP if e.op in _COMPARISONS else _LEVEL[e.op]
    if isinstance(e, ast.Member):
        return CMP
    if isinstance(e, (ast.Quantifier, ast.Let)):
        return NOT
    if isinstance(e, ast.Unary):
        return NOT if e.op == "not" else UNARY
    if isinstance(e, ast.IntLit) and e.value < 0:
        return UNARY
    return ATOM


def _number(value: Fraction | int) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


class _Printer:
    def __init__(self, commented_lines: frozenset[int] = frozenset()):
        # source lines that end with a comment: a statement ending there ends its output line
        self.commented_lines = commented_lines

    # ---- expressions ---------------------------------------------------------------------------

    def expr(self, e: ast.Expr, at: int = COND, pad: bool = False):
        """``e`` written where the grammar expects level ``at`` (parenthesised if looser)."""
        if level(e) < at:
            return [anchor(e.span), "(", align(self.bare(e, False)), ")"]
        return [anchor(e.span), self.bare(e, pad)]

    def bare(self, e: ast.Expr, pad: bool = False):
        if isinstance(e, ast.IntLit):
            return str(e.value)
        if isinstance(e, ast.BoolLit):
            return "true" if e.value else "false"
        if isinstance(e, ast.Name):
            return e.name
        if isinstance(e, ast.Mover):
            return "mover"
        if isinstance(e, ast.Call):
            return self.bracketed(e.func.name + "(", [self.expr(a) for a in e.args], ")")
        if isinstance(e, ast.Index):
            return [self.expr(e.base, ATOM), "[", self.expr(e.index), "]"]
        if isinstance(e, ast.ListLit):
            return self.list_literal(e)
        if isinstance(e, ast.Unary):
            if e.op == "not":
                return ["not ", self.expr(e.operand, NOT)]
            operand = e.operand
            space = " " if (isinstance(operand, ast.Unary) and operand.op == "-") or (
                isinstance(operand, ast.IntLit) and operand.value < 0) else ""
            return ["-", space, self.expr(operand, UNARY)]
        if isinstance(e, ast.Binary):
            if e.op in ("and", "or"):
                return self.chain(e, pad)
            at = level(e)
            return [self.expr(e.left, SUM if at == CMP else at), f" {e.op} ",
                    self.expr(e.right, _RIGHT_LEVEL[at])]
        if isinstance(e, ast.IfExpr):
            parts: list = []
            while True:
                parts += [self.expr(e.then, OR), " if ", self.expr(e.cond, OR), LINE, "else "]
                if not isinstance(e.otherwise, ast.IfExpr):
                    break
                e = e.otherwise
                parts.append(anchor(e.span))
            parts.append(self.expr(e.otherwise, COND))
            return group(align(parts))
        if isinstance(e, ast.Quantifier):
            return [e.kind, " ", join(", ", [self.binder(b) for b in e.binders]), ": ",
                    self.expr(e.body, NOT)]
        if isinstance(e, ast.Member):
            if e.symbols is not None:
                domain = "{" + ", ".join(s.name for s in e.symbols) + "}"
            elif e.range is not None:
                domain = self.domain(e.range)
            else:
                raise TypeError(f"a membership test without symbols or a range: {e!r}")
            return [self.expr(e.value, SUM), " in ", domain]
        if isinstance(e, ast.Let):
            bindings = [[name.name, " = ", self.expr(value)] for name, value in e.bindings]
            return ["let ", join(", ", bindings), ": ", self.expr(e.body, NOT)]
        raise TypeError(f"not an expression: {e!r}")

    def chain(self, e: ast.Binary, pad: bool):
        """``a or b or c`` (or ``and``), operators leading when it breaks. With ``pad`` (a whole
        value after ``=``) it is one operand per line, the first indented to line up with the
        others; otherwise the operands fill the lines, aligned under the first."""
        op = e.op
        operands = []
        node: ast.Expr = e
        while isinstance(node, ast.Binary) and node.op == op:
            operands.append(node.right)
            node = node.left
        operands.append(node)
        operands.reverse()
        at = _LEVEL[op]
        first = self.expr(operands[0], at)
        rest = [[op, " ", self.expr(operand, _RIGHT_LEVEL[at])] for operand in operands[1:]]
        if pad:
            return group(align(_IfBreak(" " * (len(op) + 1), ""), first,
                               [[LINE, r] for r in rest]))
        return align(_Fill(tuple(join(LINE, [first] + rest))))

    def bracketed(self, opening: str, items: list, closing: str):
        """Items separated by commas, filling the lines, aligned after the opening bracket."""
        parts = [[item, ","] if i < len(items) - 1 else item for i, item in enumerate(items)]
        return [opening, align(_Fill(tuple(join(LINE, parts)))), closing]

    def list_literal(self, e: ast.ListLit):
        rows = e.items
        table = [r for r in rows if isinstance(r, ast.ListLit)]
        if len(rows) >= 2 and len(table) == len(rows):
            return ["[", align(join([",", HARDLINE], self.table_rows(table))), "]"]
        return self.bracketed("[", [self.expr(item) for item in rows], "]")

    def table_rows(self, rows: Sequence[ast.ListLit]) -> list:
        """Rows of a table; a rectangular table of integers gets right-aligned columns."""
        sizes = {len(r.items) for r in rows}
        numbers = [[x for x in r.items if isinstance(x, ast.IntLit)] for r in rows]
        numeric = len(sizes) == 1 and all(len(n) == len(r.items) for n, r in zip(numbers, rows))
        if not numeric:
            return [[anchor(r.span), self.bare(r)] for r in rows]
        widths = [max(len(str(n[i].value)) for n in numbers) for i in range(sizes.pop())]
        return [[anchor(r.span), "[", ", ".join(str(x.value).rjust(w) for x, w in zip(n, widths)),
                 "]"] for r, n in zip(rows, numbers)]

    def binder(self, b: ast.Binder):
        return [anchor(b.span), b.name.name, " in ", self.domain(b.domain)]

    def domain(self, d: ast.Domain):
        if isinstance(d, ast.RangeDomain):
            return [self.expr(d.low, SUM), "..", self.expr(d.high, SUM)]
        if isinstance(d, ast.SymbolDomain):
            return "{" + ", ".join(s.name for s in d.symbols) + "}"
        if isinstance(d, ast.PlayersDomain):
            return "players"
        if isinstance(d, ast.BoolDomain):
            return "bool"
        raise TypeError(f"not a domain: {d!r}")

    # ---- statements ----------------------------------------------------------------------------

    def statements(self, stmts: Sequence[ast.Stmt]):
        """A statement list: runs of simple statements fill lines (``a = 1; b = 2``), and every
        ``if``/``for`` starts on a line of its own (and forces the list to break)."""
        out: list = []
        run: list = []

        def flush(more: bool) -> None:
            if run:
                parts: list = []
                for i, (doc, stmt) in enumerate(run):
                    last = i == len(run) - 1
                    parts.append([doc, ";"] if (not last or more) else doc)
                    if not last:
                        line = stmt.span.end_line
                        commented = line in self.commented_lines and run[i + 1][1].span.line > line
                        parts.append(HARDLINE if commented else LINE)
                if out:
                    out.append(HARDLINE)
                out.append(_Fill(tuple(parts)))
                run.clear()

        for stmt in stmts:
            if isinstance(stmt, (ast.If, ast.For, ast.Repeat)):
                flush(True)
                if out:
                    out.append(HARDLINE)
                out.append(self.compound(stmt))
            else:
                run.append((self.simple(stmt), stmt))
        flush(False)
        return out

    def simple(self, stmt: ast.Stmt):
        if isinstance(stmt, ast.Assign):
            target = [stmt.target.name] + [["[", self.expr(i), "]"] for i in stmt.indices]
            return [anchor(stmt.span), target, " = ", self.expr(stmt.value)]
        if isinstance(stmt, ast.Pass):
            return [anchor(stmt.span), "pass"]
        if isinstance(stmt, ast.Next):
            return [anchor(stmt.span), "next ", self.expr(stmt.player)]
        if isinstance(stmt, ast.LetStmt):
            return [anchor(stmt.span), "let ", stmt.name.name, " = ", self.expr(stmt.value)]
        if isinstance(stmt, ast.Random):
            head = [anchor(stmt.span), "random ", stmt.name.name, " in "]
            if stmt.uniform is not None:
                guard = [] if stmt.guard is None else [" if ", self.expr(stmt.guard)]
                return head + [self.domain(stmt.uniform)] + guard
            outcomes = [[self.expr(v), ": ", self.expr(p)] for v, p in stmt.outcomes or ()]
            return head + [self.bracketed("{", outcomes, "}")]
        raise TypeError(f"not a statement: {stmt!r}")

    def block(self, stmts: Sequence[ast.Stmt], end: ast.Span):
        if not stmts:
            return "{ }"
        return ["{", nest(INDENT, LINE, self.statements(stmts)), LINE, anchor_end(end), "}"]

    def compound(self, stmt: ast.Stmt):
        """An ``if`` (with its whole ``else if`` chain) or a ``for``, as one group: either all on
        one line, or every block opened."""
        if isinstance(stmt, ast.For):
            binders = join(", ", [self.binder(b) for b in stmt.binders])
            return group(anchor(stmt.span), "for ", binders, " ", self.block(stmt.body, stmt.span))
        if isinstance(stmt, ast.Repeat):
            return group(anchor(stmt.span), "repeat ", self.expr(stmt.bound, SUM), " ",
                         self.block(stmt.body, stmt.span))
        if not isinstance(stmt, ast.If):
            raise TypeError(f"not a compound statement: {stmt!r}")
        parts: list = [anchor(stmt.span)]
        while True:
            otherwise = stmt.otherwise
            parts += ["if ", self.expr(stmt.cond), " ",
                      self.block(stmt.then, stmt.span if otherwise is None else _NO_END)]
            if otherwise is None:
                break
            if len(otherwise) == 1 and isinstance(otherwise[0], ast.If):
                stmt = otherwise[0]
                parts += [" else ", anchor(stmt.span)]
                continue
            parts += [" else ", self.block(otherwise, stmt.span)]
            break
        return group(parts)

    # ---- explicit trees ------------------------------------------------------------------------

    def tree_node(self, node: ast.TreeNode):
        if isinstance(node, ast.TreeLeaf):
            if len(node.values) == 1:
                return [anchor(node.span), _number(node.values[0])]
            return [anchor(node.span), "(" + ", ".join(_number(v) for v in node.values) + ")"]
        if isinstance(node, ast.TreeDecision):
            head = node.player.name + " "
            edges = [[anchor(label.span), label.name, ": ", self.tree_node(child)]
                     for label, child in node.edges]
            children = [child for _, child in node.edges]
        elif isinstance(node, ast.TreeChance):
            head = "chance "
            edges = [[anchor(edge.span), (edge.label.name + " ") if edge.label else "",
                      _number(edge.probability), ": ", self.tree_node(edge.child)]
                     for edge in node.edges]
            children = [edge.child for edge in node.edges]
        else:
            raise TypeError(f"not a tree node: {node!r}")
        if all(isinstance(c, ast.TreeLeaf) for c in children):
            body = group("{", nest(INDENT, LINE, join([_IfBreak("", ","), LINE], edges)), LINE,
                         anchor_end(node.span), "}")
        else:
            body = ["{", nest(INDENT, HARDLINE, join(HARDLINE, edges)), HARDLINE,
                    anchor_end(node.span), "}"]
        return [anchor(node.span), head, body]

    # ---- declarations --------------------------------------------------------------------------

    def declaration(self, d: ast.Decl):
        return [anchor(d.span), self._declaration(d)]

    def _declaration(self, d: ast.Decl):
        if isinstance(d, ast.GameDecl):
            return f'game "{d.title}"'
        if isinstance(d, ast.PlayersDecl):
            return "players " + ", ".join(p.name for p in d.players)
        if isinstance(d, ast.ParamDecl):
            return self.valued(f"param {d.name.name}", d.value)
        if isinstance(d, ast.ConstDecl):
            return self.valued(f"const {d.name.name}", d.value)
        if isinstance(d, ast.VarDecl):
            dims = [["[", "players" if isinstance(x, ast.PlayersDomain) else self.expr(x, SUM), "]"]
                    for x in d.dims]
            head = ["var ", d.name.name, dims, " in ", self.domain(d.domain)]
            return self.valued(head, d.init)
        if isinstance(d, ast.ActionDecl):
            head = ["action ", d.name.name]
            if d.params:
                guards = d.guards or (None,) * len(d.params)
                params = [self.binder(b) if g is None else [self.binder(b), " if ", self.expr(g, OR)]
                          for b, g in zip(d.params, guards)]
                head.append(self.bracketed("(", params, ")") if d.guards
                            else ["(", join(", ", params), ")"])
            if d.by is not None:
                head.append(" by " + ", ".join(p.name for p in d.by))
            clauses: list = []
            if d.requires is not None:
                clauses += [HARDLINE, "requires ", align(self.expr(d.requires))]
            if d.effect:
                clauses += [HARDLINE, "effect   ", align(group(self.statements(d.effect)))]
            return [head, nest(INDENT, clauses)]
        if isinstance(d, ast.DefineDecl):
            signature = f"define {d.name.name}"
            if d.params:
                signature += "(" + ", ".join(p.name for p in d.params) + ")"
            return self.valued(signature, d.body)
        if isinstance(d, ast.TerminalDecl):
            return ["terminal ", align(self.expr(d.cond))]
        if isinstance(d, ast.UtilityDecl):
            return self.valued(f"utility {d.player.name}", d.value)
        if isinstance(d, ast.UtilityBoundsDecl):
            return ["utility in ", self.domain(d.bounds)]
        if isinstance(d, ast.SumDecl):
            if d.kind == "zero-sum":
                return "zero-sum"
            if isinstance(d.total, int):
                return f"constant-sum {d.total}"
            return ["constant-sum ", self.expr(d.total, SUM)]
        if isinstance(d, ast.EvaluateDecl):
            return self.valued(f"evaluate {d.player.name}", d.value)
        if isinstance(d, ast.QuietDecl):
            return ["quiet when ", align(self.expr(d.cond))]
        if isinstance(d, ast.InitDecl):
            return ["init ", self.block(d.body, d.span)]
        if isinstance(d, ast.LengthDecl):
            return ["max-length ", align(self.expr(d.bound))]
        if isinstance(d, ast.TierDecl):
            return ["tier ", align(self.expr(d.value))]
        if isinstance(d, ast.StuckDecl):
            return f"when stuck {d.outcome.name}"
        if isinstance(d, ast.EndlessDecl):
            if d.word is not None:
                return f"when endless {d.word.name}"
            return ["when endless ", self.bracketed("(", [self.expr(v) for v in d.values], ")")]
        if isinstance(d, ast.DisplayDecl):
            layout = "".join(" " + _word(w) for w in d.words)
            if not d.glyphs:
                return f"display {d.name.name}{layout}"
            pictures = d.pictures or (None,) * len(d.glyphs)
            glyphs = [f"{_glyph_key(k)}: " + " ".join(
                ([f'"{g}"'] if g is not None else [])
                + ([_word(p.shape)] + ([_word(p.colour)] if p.colour is not None else [])
                   if p is not None else []))
                for (k, g), p in zip(d.glyphs, pictures)]
            return [f"display {d.name.name} as ", self.bracketed("{", glyphs, "}"), layout]
        if isinstance(d, ast.DisplayMoveDecl):
            action = d.action.name
            if d.names:
                action += "(" + ", ".join(n.name for n in d.names) + ")"
            cells = [[c.var.name] + [["[", self.expr(i), "]"] for i in c.indices] for c in d.cells]
            return [f"display {action} as ", join(" -> ", cells)]
        if isinstance(d, ast.TreeDecl):
            return ["tree ", self.tree_node(d.root)]
        if isinstance(d, ast.SimultaneousDecl):
            parts: list = ["simultaneous"]
            if d.cond is not None:
                parts += [" if ", align(self.expr(d.cond))]
            if d.then is not None:
                parts += [" then ", self.block(d.then, d.span)]
            return parts
        if isinstance(d, (ast.PrivateDecl, ast.HiddenDecl)):
            word = "private" if isinstance(d, ast.PrivateDecl) else "hidden"
            return f"{word} " + ", ".join(name.name for name in d.names)
        raise TypeError(f"not a declaration: {d!r}")

    def valued(self, head, value: ast.Expr | ast.MapLit):
        """``head = value``; a value too long for the line goes on the next ones, indented (an
        ``or``/``and`` chain with one operand per line), except a list, which hangs after ``=``."""
        if isinstance(value, ast.ListLit):
            return [head, " = ", align(self.expr(value))]
        if isinstance(value, ast.MapLit):
            entries = [[key.name, ": ", self.expr(item)] for key, item in value.entries]
            return [head, " = ", self.bracketed("{", entries, "}")]
        chain = isinstance(value, ast.Binary) and value.op in ("and", "or")
        return group(head, " =", nest(INDENT, LINE, self.expr(value, COND, pad=chain)))


_NO_END = ast.NOWHERE


def anchor_end(span: ast.Span):
    return _Anchor(span.end_line) if span.end_line else ""


def _word(word: ast.Word) -> str:
    return f'"{word.text}"' if word.quoted else word.text


def _glyph_key(key) -> str:
    if key is True:
        return "true"
    if key is False:
        return "false"
    return str(key)


# ==== files and comments ========================================================================

_GROUPS = {ast.GameDecl: 0, ast.PlayersDecl: 0, ast.ParamDecl: 1, ast.ConstDecl: 1,
           ast.VarDecl: 2, ast.InitDecl: 2, ast.DefineDecl: 3, ast.ActionDecl: 4, ast.TerminalDecl: 5,
           ast.UtilityDecl: 5, ast.SumDecl: 5, ast.UtilityBoundsDecl: 5, ast.LengthDecl: 5,
           ast.StuckDecl: 5, ast.EndlessDecl: 5, ast.TierDecl: 5, ast.EvaluateDecl: 6, ast.QuietDecl: 6,
           ast.DisplayDecl: 7, ast.DisplayMoveDecl: 7, ast.PrivateDecl: 2, ast.HiddenDecl: 2,
           ast.SimultaneousDecl: 4, ast.TreeDecl: 8}


def format_expr(e: ast.Expr, width: int = WIDTH) -> str:
    """One expression as canonical text (for messages and tests)."""
    return "\n".join(text for text, _ in render(_Printer().expr(e), width))


def format_file(tree: ast.GameFile, comments: Sequence[Comment] = (),
                source_lines: Sequence[str] | None = None, width: int = WIDTH) -> str:
    """The canonical text of a syntax tree. ``comments`` (from ``collect_comments``) are put back
    by position; ``source_lines`` (the original text's lines) let blank lines between
    declarations be kept. Without them, a blank line separates kinds of declaration."""
    printer = _Printer(frozenset(c.line for c in comments if c.trailing))
    decls = tree.declarations
    rendered = [render(printer.declaration(d), width) for d in decls]
    pending = sorted(comments, key=lambda c: (c.line, c.column))
    out: list[str] = []
    k = 0  # next comment to place

    def blank_before(first_line: int, previous_end: int) -> bool:
        if source_lines is None or first_line < 2:
            return False
        before = first_line - 1
        return before > previous_end and not source_lines[before - 1].strip()

    previous_end = 0
    for index, (decl, lines) in enumerate(zip(decls, rendered)):
        start, end = decl.span.line, decl.span.end_line
        follows_decl = index > 0
        # comments between the previous declaration and this one, on lines of their own
        while k < len(pending) and start and pending[k].line < start:
            comment = pending[k]
            if out and blank_before(comment.line, previous_end):
                out.append("")
            out.append(comment.text)
            previous_end = comment.line
            follows_decl = False
            k += 1
        if out:
            previous, previous_lines = decls[index - 1], rendered[index - 1]
            spread = follows_decl and (len(lines) > 1 or len(previous_lines) > 1)
            if source_lines is not None and start:
                # blank lines of the source are kept; two actions are apart if either is a block
                if blank_before(start, previous_end) or (
                        spread and isinstance(decl, ast.ActionDecl)
                        and isinstance(previous, ast.ActionDecl)):
                    out.append("")
            elif follows_decl and (_GROUPS[type(previous)] != _GROUPS[type(decl)] or spread):
                out.append("")
        inside = []
        while k < len(pending) and start and pending[k].line <= end:
            inside.append(pending[k])
            k += 1
        out.extend(_place(lines, inside))
        previous_end = max(end, inside[-1].line if inside else 0)
    for comment in pending[k:]:
        if out and blank_before(comment.line, previous_end):
            out.append("")
        out.append(comment.text)
        previous_end = comment.line
    return "\n".join(out) + "\n" if out else ""


def _place(lines: list[tuple[str, int]], comments: list[Comment]) -> list[str]:
    """Put the comments found inside a declaration's source lines into its output lines.

    Each comment gets a slot: ``2 i`` is a line of its own before output line ``i``, ``2 i + 1``
    the end of line ``i``, ``2 len(lines)`` after the declaration. A trailing comment goes to
    the last line that starts with code from its source line or earlier; a comment on a line of
    its own goes before the first line that starts with code from a later source line. Slots
    never decrease from one comment to the next, so the comments keep their order."""
    if not comments:
        return [text for text, _ in lines]
    anchors = [a for _, a in lines]
    slots: dict[int, list[Comment]] = {}
    previous = 0
    for comment in comments:
        if comment.trailing:
            line = max((i for i, a in enumerate(anchors) if a and a <= comment.line), default=0)
            slot = 2 * line + 1
        else:
            later = next((i for i, a in enumerate(anchors) if a > comment.line), len(lines))
            slot = 2 * later
        slot = max(slot, previous)
        if not comment.trailing and slot % 2:
            slot += 1
        previous = slot
        slots.setdefault(slot, []).append(comment)
    out: list[str] = []
    for i, (text, _) in enumerate(lines):
        for comment in slots.get(2 * i, ()):
            out.append(_indent_for(lines, i) + comment.text)
        trailing = slots.get(2 * i + 1, [])
        if trailing and len(text) + 2 + len(trailing[-1].text) > WIDTH:
            trailing, above = [], trailing  # no room at the end of the line: above it
        else:
            above = trailing[:-1]           # one trailing comment per line; earlier ones go above
        for comment in above:
            out.append(_indent_of(text) + comment.text)
        if trailing:
            # a trailing comment keeps its column where the code leaves room (aligned comments
            # stay aligned), else it goes two spaces after the code
            text = text.ljust(max(len(text) + 2, trailing[-1].column - 1)) + trailing[-1].text
        out.append(text)
    for comment in slots.get(2 * len(lines), ()):    # after the whole declaration: column 0
        out.append(comment.text)
    return out


def _indent_of(text: str) -> str:
    return text[:len(text) - len(text.lstrip(" "))]


def _indent_for(lines: list[tuple[str, int]], i: int) -> str:
    text = lines[i][0]
    if text.lstrip().startswith(("}", ")", "]")) and i > 0:
        return _indent_of(lines[i - 1][0])
    return _indent_of(text)


_found_comments: list = []


@lru_cache(maxsize=1)
def _lexer():
    """Lark's basic lexer for the grammar, reporting COMMENT tokens (ignored by the parser) through
    ``lexer_callbacks``. Cached on disk like the parser (gdl.lang.parse)."""
    from gdl.lang.grammar import build_lark

    return build_lark("lexer", parser="lalr", lexer="basic",
                      lexer_callbacks={"COMMENT": _found_comments.append})


def collect_comments(text: str) -> list[Comment]:
    """Every comment of a rule file, from Lark's token stream (the COMMENT terminal, which the
    parser ignores, reaches a lexer callback)."""
    lexer = _lexer()
    lines = text.split("\n")
    _found_comments.clear()
    try:
        for _ in lexer.lex(text):
            pass
        tokens = list(_found_comments)
    finally:
        _found_comments.clear()
    found = []
    for token in tokens:
        line = lines[token.line - 1] if token.line - 1 < len(lines) else ""
        trailing = bool(line[:token.column - 1].strip())
        found.append(Comment(token.line, token.column, str(token).rstrip(), trailing))
    return found


def format_text(text: str, filename: str = "<input>", width: int = WIDTH) -> str:
    """Parse ``text`` and print it canonically, comments included. Raises GdlError (with its
    location) if it does not parse, FormatError if the result would not read back the same."""
    from gdl.lang.parse import parse
    from gdl.lang.text import normalize

    text = normalize(text, filename)
    tree = parse(text, filename)
    comments = collect_comments(text)
    result = format_file(tree, comments, text.split("\n"), width)
    check_round_trip(tree, comments, result, filename)
    return result


def check_round_trip(tree: ast.GameFile, comments: Iterable[Comment], result: str,
                     filename: str = "<input>") -> None:
    from gdl.errors import GdlError
    from gdl.lang.parse import parse

    try:
        again = parse(result, filename)
    except GdlError as error:
        raise FormatError(f"{filename}: the formatted text does not parse:\n{error}") from None
    if again != tree:
        raise FormatError(f"{filename}: the formatted text reads back as a different game")
    if [c.text for c in collect_comments(result)] != [c.text for c in comments]:
        raise FormatError(f"{filename}: the formatted text lost or reordered comments")
