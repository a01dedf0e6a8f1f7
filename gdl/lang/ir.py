"""The checked game: every name resolved, every type known, every constant evaluated.

The checker (gdl.lang.check) produces it; the interpreter (gdl.backends.interpret) and the compiler build
games from it. Values at run time are Python ints and bools; symbols (players included) are
ints: players are 0..n-1 in declaration order, other symbols follow.

State layout: a flat tuple ``(mover, slot_1, ..., slot_k)``; an array variable occupies
consecutive slots in row-major order. A state in the middle of an action whose effect is
waiting for chance has a suffix ``(action_id, outcome_1, ..., outcome_j)`` (see interpret.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from gdl.lang.values import SYM
from gdl.protocol import Value
from gdl.span import NOWHERE, Span

INT, BOOL = "int", "bool"
NUM = "num"  # a rational number: what `/` gives; an INT is a NUM, never the other way round


def strides(shape: tuple[int, ...]) -> list[int]:
    """Row-major strides of an array: element (i, j, ...) sits at sum(index * stride)."""
    result, stride = [], 1
    for extent in reversed(shape):
        result.append(stride)
        stride *= extent
    return result[::-1]


@dataclass(frozen=True)
class Variable:
    name: str
    slot: int                 # index in the state tuple of the first element
    shape: tuple[int, ...]    # () for a scalar
    type: str                 # INT, BOOL or SYM
    values: tuple[int, ...]   # the declared domain, as run-time values
    span: Span = NOWHERE

    @property
    def size(self) -> int:
        size = 1
        for extent in self.shape:
            size *= extent
        return size


@dataclass(frozen=True)
class Constant:
    name: str
    value: object             # int, bool, or nested tuples of them
    shape: tuple[int, ...]
    type: str
    span: Span = NOWHERE
    # A map from symbols (`{pawn: 1, knight: 3}`): the symbols' run-time values, in the order of
    # `value`'s entries. The checker reads `worth[p]` as `worth[position of p among the keys]`,
    # so back ends see an ordinary one-dimensional table.
    keys: tuple[int, ...] | None = None


# ---- expressions -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lit:
    value: int | bool | Fraction     # a Fraction only where the type is NUM
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Let:
    """`let name = value: body` (a `let` of several names is nested Lets, the first outermost)."""
    name: str
    value: Expr
    body: Expr
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Range:
    """The values low..high of a binder whose bounds depend on local names (an action parameter,
    an outer binder, a define parameter), never on the state: computed where the binder is, so
    it may be empty. A binder's values are either a tuple (constant bounds) or a Range."""
    low: Expr
    high: Expr
    span: Span = NOWHERE


@dataclass(frozen=True)
class Local:
    """An action parameter, quantifier or loop variable, define parameter, or random outcome."""
    name: str
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Mover:
    type: str = SYM
    span: Span = NOWHERE


@dataclass(frozen=True)
class VarRef:
    var: Variable
    indices: tuple[Expr, ...]
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class ConstRef:
    const: Constant
    indices: tuple[Expr, ...]
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Unary:
    op: str  # "-" or "not"
    operand: Expr
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Binary:
    """op: + - * (exact), / (exact division, a rational), // % (floor division and its modulo,
    integers only), == != < <= > >=, and / or (short-circuit)."""
    op: str
    left: Expr
    right: Expr
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class IfExpr:
    cond: Expr
    then: Expr
    otherwise: Expr
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Quantifier:
    kind: str  # any all count sum min max
    binders: tuple[tuple[str, tuple[int, ...] | Range], ...]  # (local name, values in order)
    body: Expr
    type: str
    span: Span = NOWHERE


@dataclass(frozen=True)
class Builtin:
    name: str  # abs min max
    args: tuple[Expr, ...]
    type: str = INT
    span: Span = NOWHERE


@dataclass(frozen=True)
class Call:
    define: Define
    args: tuple[Expr, ...]
    type: str
    span: Span = NOWHERE


Expr = Lit | Local | Mover | VarRef | ConstRef | Unary | Binary | IfExpr | Quantifier | Builtin | Call | Let


@dataclass(frozen=True, eq=False)
class Define:
    """One typed instance of a `define` (a define is checked once per argument-type signature)."""
    name: str
    params: tuple[str, ...]
    body: Expr
    type: str
    span: Span = NOWHERE


# ---- statements --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Assign:
    var: Variable
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = NOWHERE


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...]
    span: Span = NOWHERE


@dataclass(frozen=True)
class For:
    binders: tuple[tuple[str, tuple[int, ...] | Range], ...]
    body: tuple[Stmt, ...]
    span: Span = NOWHERE


@dataclass(frozen=True)
class Repeat:
    """The body again and again until a pass changes no variable, at most ``bound`` times."""
    bound: int
    body: tuple[Stmt, ...]
    span: Span = NOWHERE


@dataclass(frozen=True)
class LetStmt:
    """`let name = value`: the value is computed here, and ``body`` (the rest of the block) runs
    with ``name`` bound to it."""
    name: str
    value: Expr
    body: tuple[Stmt, ...]
    span: Span = NOWHERE


@dataclass(frozen=True)
class Pass:
    span: Span = NOWHERE


@dataclass(frozen=True)
class Next:
    player: Expr
    span: Span = NOWHERE


@dataclass(frozen=True)
class Random:
    """Chance picks ``name`` from ``outcomes`` (value, probability) pairs, then ``body`` runs.
    ``body`` is the rest of the block the random statement stood in."""
    name: str
    type: str
    outcomes: tuple[tuple[Expr, Expr], ...]
    body: tuple[Stmt, ...]
    index: int  # numbers the random statements of the game, for outcome names
    span: Span = NOWHERE


Stmt = Assign | If | For | Pass | Next | Random | LetStmt | Repeat


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[tuple[str, str, tuple[int, ...] | Range], ...]  # (name, type, values)
    by: frozenset[int] | None
    requires: Expr | None
    effect: tuple[Stmt, ...]
    span: Span = NOWHERE
    # Parameter guards (`fc in 0..7 if cell[fr][fc] == mover`): (parameter position, guard),
    # in order. ``requires`` is their conjunction followed by ``rest`` (the declared `requires`),
    # which is the meaning every back end can use; the compiler also tests each guard once for
    # all the ground actions that share the parameters before it.
    guards: tuple[tuple[int, Expr], ...] = ()
    rest: Expr | None = None


@dataclass(frozen=True)
class GroundAction:
    """An action with its parameters fixed: the unit a player chooses. Its id is its position."""
    action: Action
    args: tuple[int, ...]
    name: str  # e.g. "place(1,1)"


# ---- explicit trees (`tree { ... }` blocks, textbook figures, generated test trees) ---------------

@dataclass(frozen=True)
class Leaf:
    values: tuple[Value, ...]  # one per player


@dataclass(frozen=True)
class Decision:
    player: int
    children: tuple[tuple[str, Node], ...]  # (action label, child), labels unique here


@dataclass(frozen=True)
class Chance:
    children: tuple[tuple[str, Fraction, Node], ...]  # (outcome label, probability, child)


Node = Leaf | Decision | Chance


@dataclass(frozen=True)
class TreeSpec:
    """An explicit tree, already validated."""
    root: Node


@dataclass(frozen=True)
class Simultaneous:
    """`simultaneous [if <cond>] [then { ... }]`: where ``cond`` holds (everywhere without
    one), every player with a legal action chooses at once; their actions take effect in the
    players' order, then the ground action ``then`` (by no player) runs, where declared."""
    cond: Expr | None
    then: int | None
    span: Span = NOWHERE


# ---- how the web page draws a game (`display`) ------------------------------------------------

# A picture's shapes (the page draws each as SVG), `image` (a file shipped with the game), `fill`
# (the cell's whole background) and `blank` (nothing: an empty square).
PICTURE_SHAPES = ("disc", "ring", "cross", "square", "triangle", "star", "pawn", "rook", "knight",
                  "bishop", "queen", "king", "fill", "blank", "image")
# The colours a picture may name (CSS's names); any other is written "#rgb" or "#rrggbb".
COLOURS = ("black", "white", "red", "yellow", "green", "blue", "orange", "purple", "brown",
           "grey", "gray", "pink", "cyan", "magenta", "navy", "maroon", "olive", "teal", "silver",
           "gold", "ivory", "tan", "beige", "lime", "darkgreen", "darkred", "darkblue",
           "lightgrey", "lightgray", "lightblue", "lightgreen", "wheat", "burlywood", "sienna")
# The words that lay a board out, after a display's map: axes, then the shape of the board.
LAYOUT_WORDS = ("transpose", "flip", "mirror", "hex", "checkered", "mancala", "on")
IMAGE_TYPES = {".svg": "image/svg+xml", ".png": "image/png"}


@dataclass(frozen=True)
class Picture:
    """How the page draws one value: a shape of PICTURE_SHAPES and a colour (a name of COLOURS
    or "#rgb"/"#rrggbb"; None: the page's default), or for `image` the file, relative to the
    rule file's directory."""
    shape: str
    colour: str | None = None


@dataclass(frozen=True)
class Board:
    """How the page draws a displayed variable: pictures by value (run-time values, as
    ``Game.display``'s keys), the axes (`transpose`: the first index across, the second down;
    then `flip`: the vertical axis upward, `mirror`: the horizontal one leftward), the board's
    shape (``layout``: "grid", "hex" for rows of hexagons each shifted half a cell, "mancala"
    for a 1-D array of two rows of houses and a store at each end), `checkered` squares and
    the board's colour (`on green`)."""
    name: str
    pictures: tuple[tuple[Value, Picture], ...] = ()
    transpose: bool = False
    flip: bool = False
    mirror: bool = False
    layout: str = "grid"
    checkered: bool = False
    background: str | None = None

    @property
    def plain(self) -> bool:
        """Nothing beyond texts: drawn as a plain grid."""
        return self == Board(self.name)


@dataclass(frozen=True)
class BoardCell:
    """A cell of a displayed variable a click names: its indices (expressions of the action's
    parameters, read at the state where the move is made), fewer than the variable has where a
    click on any of the cells they select will do (a column)."""
    variable: Variable
    indices: tuple[Expr, ...]
    span: Span = NOWHERE


@dataclass(frozen=True)
class Click:
    """`display drop(c) as cell[c]`: the clicks that play ``action``, one cell, or two (from,
    then to). ``names`` are bound to the action's parameters, in order."""
    action: Action
    names: tuple[str, ...]
    cells: tuple[BoardCell, ...]
    span: Span = NOWHERE


@dataclass
class Game:
    title: str
    players: tuple[str, ...]
    symbols: tuple[str, ...]          # run-time value -> name, players first
    params: dict[str, int]
    variables: tuple[Variable, ...] = ()
    constants: tuple[Constant, ...] = ()
    actions: tuple[Action, ...] = ()
    ground_actions: tuple[GroundAction, ...] = ()
    initial: tuple[int, ...] = ()     # the initial state, mover included
    terminal: Expr | None = None
    # One expression per player; None where a sum declaration derives it from the others.
    utilities: tuple[Expr | None, ...] = ()
    evaluations: tuple[Expr | None, ...] = ()
    sum_kind: str = "general-sum"
    sum_total: int = 0
    utility_bounds: tuple[int, int] | None = None
    quiet: Expr | None = None
    tier: Expr | None = None          # `tier`: an integer no move lowers (strong solving by tiers)
    max_length: int | None = None
    stuck_pass: bool = False
    # `init { ... }`: the id of the ground action (by no player) that sets up the start, applied
    # to ``initial`` (whose mover is then the last player, so the turn passes to the first).
    setup: int | None = None
    # `when stuck lose | win`: a player to move without a legal action ends the game, and
    # stuck_values[p] is the utility vector when player p is the one stuck.
    stuck_end: str | None = None
    stuck_values: tuple[tuple[Value, ...], ...] = ()
    # `when endless draw | (u1, ..., un)`: the utility vector of a play that never ends.
    endless_values: tuple[Value, ...] | None = None
    # Simultaneous moves (None: one player moves at a time).
    simultaneous: Simultaneous | None = None
    # Hidden information: `private` variables (entry p seen by player p alone), `hidden`
    # variables (seen by nobody) and `hidden` actions (the others do not see which was taken).
    private_vars: tuple[str, ...] = ()
    hidden_vars: tuple[str, ...] = ()
    hidden_actions: tuple[str, ...] = ()
    # variable name -> {value (an int, a bool, a symbol's number): glyph}
    display: dict[str, dict[int | bool, str]] = field(default_factory=dict)
    boards: dict[str, Board] = field(default_factory=dict)    # variable name -> how it is drawn
    clicks: tuple[Click, ...] = ()    # which clicks on the boards play which actions
    tree: TreeSpec | None = None
    has_chance: bool = False
    spans: dict[str, Span] = field(default_factory=dict)  # rule name -> where it is declared


def random_statements(game: Game) -> list[Random]:
    """Every `random` statement of the game's actions, wherever it is nested (inside `if`, `for`,
    `let` and other `random` blocks), in no particular order: each carries its own ``index``."""
    found: list[Random] = []
    stack: list = [st for action in game.actions for st in action.effect]
    while stack:
        st = stack.pop()
        if isinstance(st, Random):
            found.append(st)
            stack.extend(st.body)
        elif isinstance(st, If):
            stack.extend(st.then + st.otherwise)
        elif isinstance(st, (For, LetStmt, Repeat)):
            stack.extend(st.body)
    return found
