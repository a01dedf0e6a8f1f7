"""The syntax tree of a rule file: plain dataclasses, each with the span it came from.

Spans never take part in equality, so two files that differ only in layout have equal trees
(the formatter's round trip relies on that).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from gdl.span import NOWHERE, Span


def _span() -> Span:
    return field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class Ident:
    name: str
    span: Span = _span()


# ---- expressions -------------------------------------------------------------------------------

@dataclass(frozen=True)
class IntLit:
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class BoolLit:
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class Name:
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class Mover:
    span: Span = _span()


@dataclass(frozen=True)
class Call:
    func: Ident
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Index:
    base: Expr
    index: Expr
    span: Span = _span()


@dataclass(frozen=True)
class ListLit:
    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Unary:
    op: str  # "-" or "not"
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Binary:
    op: str  # + - * / % == != < <= > >= and or
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class IfExpr:
    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Quantifier:
    kind: str  # any all count sum min max
    binders: tuple[Binder, ...]
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Member:
    """`value in {a, b}` (symbols, which must exist elsewhere) or `value in lo..hi`."""
    value: Expr
    symbols: tuple[Ident, ...] | None
    range: RangeDomain | None
    span: Span = _span()


@dataclass(frozen=True)
class Let:
    """`let a = e1, b = e2: body`: each name bound to its value (which may use the names before
    it) in the body."""
    bindings: tuple[tuple[Ident, Expr], ...]
    body: Expr
    span: Span = _span()


Expr = (IntLit | BoolLit | Name | Mover | Call | Index | ListLit | Unary | Binary | IfExpr | Quantifier
        | Let | Member)


# ---- domains -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class RangeDomain:
    low: Expr
    high: Expr
    span: Span = _span()


@dataclass(frozen=True)
class SymbolDomain:
    symbols: tuple[Ident, ...]
    span: Span = _span()


@dataclass(frozen=True)
class PlayersDomain:
    span: Span = _span()


@dataclass(frozen=True)
class BoolDomain:
    span: Span = _span()


Domain = RangeDomain | SymbolDomain | PlayersDomain | BoolDomain


@dataclass(frozen=True)
class Binder:
    name: Ident
    domain: Domain
    span: Span = _span()


# ---- statements --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Assign:
    target: Ident
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Pass:
    span: Span = _span()


@dataclass(frozen=True)
class Next:
    player: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Random:
    """Chance picks ``name`` for the rest of the enclosing block.
    ``outcomes`` is a list of (value, probability), or ``uniform`` is a range, its values
    equally likely (those where ``guard`` holds, when there is one)."""

    name: Ident
    outcomes: tuple[tuple[Expr, Expr], ...] | None
    uniform: RangeDomain | None
    span: Span = _span()
    guard: Expr | None = None


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...] | None
    span: Span = _span()


@dataclass(frozen=True)
class For:
    binders: tuple[Binder, ...]
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Repeat:
    """`repeat bound { body }`: the body again and again until a pass changes nothing, at most
    ``bound`` times."""
    bound: Expr
    body: tuple
    span: Span = _span()


@dataclass(frozen=True)
class LetStmt:
    """`let name = value`: ``name`` holds the value, computed here, for the rest of the block."""
    name: Ident
    value: Expr
    span: Span = _span()


Stmt = Assign | Pass | Next | Random | If | For | LetStmt | Repeat


# ---- explicit trees ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TreeLeaf:
    values: tuple[Fraction, ...]
    span: Span = _span()


@dataclass(frozen=True)
class TreeDecision:
    player: Ident
    edges: tuple[tuple[Ident, TreeNode], ...]
    span: Span = _span()


@dataclass(frozen=True)
class ChanceEdge:
    label: Ident | None
    probability: Fraction
    child: TreeNode
    span: Span = _span()


@dataclass(frozen=True)
class TreeChance:
    edges: tuple[ChanceEdge, ...]
    span: Span = _span()


TreeNode = TreeLeaf | TreeDecision | TreeChance


# ---- declarations ------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameDecl:
    title: str
    span: Span = _span()


@dataclass(frozen=True)
class PlayersDecl:
    players: tuple[Ident, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ParamDecl:
    name: Ident
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class MapLit:
    """`{pawn: 1, knight: 3}`: a constant map from symbols to values (only as a `const`'s value)."""
    entries: tuple[tuple[Ident, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True)
class ConstDecl:
    name: Ident
    value: Expr | MapLit
    span: Span = _span()


@dataclass(frozen=True)
class VarDecl:
    name: Ident
    dims: tuple[Expr | PlayersDomain, ...]
    domain: Domain
    init: Expr
    span: Span = _span()


@dataclass(frozen=True)
class InitDecl:
    """`init { statements }`: run once, on the declared initial values, to set up the start."""
    body: tuple
    span: Span = _span()


@dataclass(frozen=True)
class ActionDecl:
    name: Ident
    params: tuple[Binder, ...]
    by: tuple[Ident, ...] | None
    requires: Expr | None
    effect: tuple[Stmt, ...]
    span: Span = _span()
    # `(fr in 0..7, fc in 0..7 if cell[fr][fc] == mover, ...)`: one guard or None per parameter
    # (empty when no parameter has one)
    guards: tuple[Expr | None, ...] = ()


@dataclass(frozen=True)
class DefineDecl:
    name: Ident
    params: tuple[Ident, ...]
    body: Expr
    span: Span = _span()


@dataclass(frozen=True)
class TerminalDecl:
    cond: Expr
    span: Span = _span()


@dataclass(frozen=True)
class UtilityDecl:
    player: Ident
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class UtilityBoundsDecl:
    bounds: RangeDomain
    span: Span = _span()


@dataclass(frozen=True)
class SumDecl:
    kind: str  # "zero-sum" or "constant-sum"
    total: int | Expr   # a number, or a constant expression (`constant-sum players_count * 2`)
    span: Span = _span()


@dataclass(frozen=True)
class EvaluateDecl:
    player: Ident
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class QuietDecl:
    cond: Expr
    span: Span = _span()


@dataclass(frozen=True)
class TierDecl:
    """`tier <expr>`: an integer over the state that no move lowers (the strong solver's tiers)."""
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class LengthDecl:
    bound: Expr
    span: Span = _span()


@dataclass(frozen=True)
class StuckDecl:
    """`when stuck pass | lose | win`; ``outcome`` as written (the checker refuses other words)."""
    outcome: Ident
    span: Span = _span()


@dataclass(frozen=True)
class EndlessDecl:
    """`when endless draw` (``word``) or `when endless (u1, ..., un)` (``values``, constant
    expressions in the players' order): the utilities of a play that never ends."""
    word: Ident | None
    values: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SimultaneousDecl:
    """`simultaneous [if <cond>] [then { ... }]`: where ``cond`` holds (everywhere without it),
    the players with a legal action choose at once; ``then`` runs after their actions."""
    cond: Expr | None
    then: tuple[Stmt, ...] | None
    span: Span = _span()


@dataclass(frozen=True)
class PrivateDecl:
    """`private v, ...`: variables indexed by the players first; entry p is seen by p alone."""
    names: tuple[Ident, ...]
    span: Span = _span()


@dataclass(frozen=True)
class HiddenDecl:
    """`hidden x, ...`: variables no player sees, or actions whose choice the others do not
    see."""
    names: tuple[Ident, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Word:
    """A word of a `display` that names nothing declared: a layout word (`flip`), a picture's
    shape (`disc`) or colour (`red`, `"#c03"`), an image file; ``quoted`` where it was a
    string. (Not an Ident: renaming a file's names leaves these alone.)"""
    text: str
    quoted: bool = False
    span: Span = _span()


@dataclass(frozen=True)
class Picture:
    """How the web page draws a value: a shape and a colour (`disc red`), or an image shipped
    with the game (`image "pieces/king.svg"`)."""
    shape: Word
    colour: Word | None = None
    span: Span = _span()


@dataclass(frozen=True)
class DisplayDecl:
    """`display cell as {empty: ".", Red: "R" disc red} transpose flip`. ``glyphs`` are the
    (key, text) pairs in order (text None where a value has only a picture); ``pictures`` is
    aligned with them (None where a value has only a text), or empty where none has one."""
    name: Ident
    glyphs: tuple[tuple[str | int | bool, str | None], ...]
    span: Span = _span()
    pictures: tuple[Picture | None, ...] = ()
    words: tuple[Word, ...] = ()


@dataclass(frozen=True)
class BoardCell:
    """`cell[r][c]` in a `display` of a move: a cell of a displayed variable, or with fewer
    indices than it has, every cell they select (`cell[c]`: a column)."""
    var: Ident
    indices: tuple[Expr, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class DisplayMoveDecl:
    """`display drop(c) as cell[c]`, `display step(r, c, d) as cell[r][c] -> cell[r + 1][c + d]`:
    the clicks that play an action. ``names`` bind its parameters in order (None: it has none)."""
    action: Ident
    names: tuple[Ident, ...] | None
    cells: tuple[BoardCell, ...]
    span: Span = _span()


@dataclass(frozen=True)
class TreeDecl:
    root: TreeNode
    span: Span = _span()


Decl = (GameDecl | PlayersDecl | ParamDecl | ConstDecl | VarDecl | ActionDecl | DefineDecl | TerminalDecl |
        UtilityDecl | UtilityBoundsDecl | SumDecl | EvaluateDecl | QuietDecl | LengthDecl | StuckDecl |
        EndlessDecl | DisplayDecl | DisplayMoveDecl | TreeDecl | InitDecl | TierDecl | SimultaneousDecl |
        PrivateDecl | HiddenDecl)


@dataclass(frozen=True)
class GameFile:
    declarations: tuple[Decl, ...]
    span: Span = _span()
