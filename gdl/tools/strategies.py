"""Hypothesis strategies that generate small explicit game trees, for testing solvers.

    from hypothesis import given
    from gdl.tools.strategies import trees

    @given(trees(chance=True))
    def test_my_solver(game): ...

Every strategy yields a ``GeneratedTree``: a ``TreeGame`` (``gdl.backends.tree``) whose ``info`` comes from
``tree_info`` with the requested sum kind, and whose ``root`` is kept for independent checks.
Its repr is the tree in a compact form, so a failing example can be read at a glance:
``P0[a0: (3, -3), a1: ?[c0 1/2: (1, -1), c1 1/2: P1[a0: (0, 0)]]]``.

Trees are drawn recursively from hypothesis primitives and shrink towards a leaf at every
position, fewer children and smaller leaf values. Leaf values come from a small range, so ties
are common: ties are where solvers most often go wrong. Decision edges are labelled ``a0``,
``a1``, ... and chance edges ``c0``, ``c1``, ... at each node. Chance probabilities are exact
``Fraction``s built from small positive integer weights, so they are positive and sum to 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass as _dataclass
from dataclasses import field as _field
from fractions import Fraction
from functools import lru_cache as _lru_cache

from hypothesis import strategies as st

from gdl.backends.tree import TreeGame, tree_info
from gdl.lang import ast as _ast
from gdl.lang.ir import Chance, Decision, Leaf, Node
from gdl.protocol import (
    CHANCE,
    CONSTANT_SUM,
    GENERAL_SUM,
    TERMINAL,
    ZERO_SUM,
    GameInfo,
    Value,
    format_value,
)


class GeneratedTree(TreeGame):
    """A TreeGame that remembers its root and prints as its tree."""

    def __init__(self, root: Node, info):
        super().__init__(root, info)
        self.root = root

    def __repr__(self) -> str:
        if self.num_states > 300:  # show_tree recurses; big trees are not for reading anyway
            return f"GeneratedTree({self.info.name!r}, {self.num_states} states)"
        return f"GeneratedTree({show_tree(self.root)})"


def show_tree(node: Node) -> str:
    """A compact one-line text of a (small) tree."""
    if isinstance(node, Leaf):
        return "(" + ", ".join(format_value(v) for v in node.values) + ")"
    if isinstance(node, Decision):
        return f"P{node.player}[" + ", ".join(
            f"{label}: {show_tree(child)}" for label, child in node.children) + "]"
    return "?[" + ", ".join(f"{label} {format_value(p)}: {show_tree(child)}"
                            for label, p, child in node.children) + "]"


def leaf_values(players: int = 2, values: Iterable[Value] = range(-3, 4),
                sum_kind: str = ZERO_SUM, total: Value | None = None
                ) -> st.SearchStrategy[tuple[Value, ...]]:
    """Utility vectors of one kind.

    - ZERO_SUM: the first ``players - 1`` entries from ``values``, the last makes the sum 0
      (two players: ``(v, -v)``).
    - CONSTANT_SUM: non-negative integers summing to ``total`` (``values`` is not used); this
      is what max^n shallow pruning needs.
    - GENERAL_SUM: every entry from ``values`` independently.
    """
    component = st.sampled_from(tuple(values))
    if sum_kind == GENERAL_SUM:
        return st.tuples(*[component] * players)
    if sum_kind == ZERO_SUM:
        return st.tuples(*[component] * (players - 1)).map(lambda vs: (*vs, -sum(vs)))
    if sum_kind == CONSTANT_SUM:
        if total is None or total < 0 or int(total) != total:
            raise ValueError("constant-sum leaves need a non-negative integer total")
        return _split(players, int(total))
    raise ValueError(f"unknown sum kind {sum_kind!r}")


@st.composite
def _split(draw, players: int, total: int) -> tuple[int, ...]:
    parts = []
    left = total
    for _ in range(players - 1):
        part = draw(st.integers(0, left))
        parts.append(part)
        left -= part
    return (*parts, left)


def trees(players: int = 2, max_depth: int = 4, max_branching: int = 3,
          values: Iterable[Value] = range(-3, 4), *, chance: bool = False,
          sum_kind: str = ZERO_SUM, total: Value | None = None, alternating: bool = False,
          min_branching: int = 1) -> st.SearchStrategy[GeneratedTree]:
    """Random trees at most ``max_depth`` edges deep, each node with ``min_branching`` to
    ``max_branching`` children.

    The root is a decision node (or, with ``chance=True``, possibly a chance node); below it
    each node is a leaf, a decision node or (with ``chance=True``) a chance node. The player at
    a decision node is drawn freely, so a player may move twice in a row; with
    ``alternating=True`` it is the node's depth modulo ``players`` instead. Leaf vectors are
    drawn by ``leaf_values(players, values, sum_kind, total)``, and the game's info declares
    ``sum_kind`` (with ``utility_sum=total`` for constant-sum) and the leaves' utility bounds.
    """
    if max_depth < 1 or not 1 <= min_branching <= max_branching:
        raise ValueError("trees need max_depth >= 1 and 1 <= min_branching <= max_branching")
    leaf = leaf_values(players, values, sum_kind, total).map(Leaf)

    def inner(depth: int, child: st.SearchStrategy[Node]) -> list[st.SearchStrategy[Node]]:
        kinds = [_decisions(depth, child, players, alternating, min_branching, max_branching)]
        if chance:
            kinds.append(_chances(child, min_branching, max_branching))
        return kinds

    node: st.SearchStrategy[Node] = leaf
    for depth in reversed(range(1, max_depth)):
        node = st.one_of(leaf, *inner(depth, node))  # leaf first: shrinks towards leaves
    root = st.one_of(*inner(0, node))
    names = tuple(f"P{i}" for i in range(players))
    utility_sum = total if sum_kind == CONSTANT_SUM else None
    return root.map(lambda r: GeneratedTree(
        r, tree_info("generated", names, r, sum_kind=sum_kind, utility_sum=utility_sum)))


def _decisions(depth: int, child: st.SearchStrategy[Node], players: int, alternating: bool,
               min_branching: int, max_branching: int) -> st.SearchStrategy[Decision]:
    @st.composite
    def decision(draw) -> Decision:
        player = depth % players if alternating else draw(st.integers(0, players - 1))
        children = draw(st.lists(child, min_size=min_branching, max_size=max_branching))
        return Decision(player, tuple((f"a{i}", c) for i, c in enumerate(children)))

    return decision()


def _chances(child: st.SearchStrategy[Node], min_branching: int, max_branching: int
             ) -> st.SearchStrategy[Chance]:
    @st.composite
    def chance(draw) -> Chance:
        children = draw(st.lists(child, min_size=min_branching, max_size=max_branching))
        weights = draw(st.lists(st.integers(1, 4), min_size=len(children),
                                max_size=len(children)))
        whole = sum(weights)
        return Chance(tuple((f"c{i}", Fraction(w, whole), c)
                            for i, (w, c) in enumerate(zip(weights, children))))

    return chance()


def uniform_trees(branching: int, depth: int, values: Iterable[Value] = range(-3, 4),
                  players: int = 2, sum_kind: str = ZERO_SUM, total: Value | None = None
                  ) -> st.SearchStrategy[GeneratedTree]:
    """Complete trees: every decision node has ``branching`` children, every leaf is ``depth``
    edges deep, and players alternate (player = depth of the node modulo ``players``), as in
    Knuth and Moore's analysis of alpha-beta. Only the leaf values are drawn."""
    if branching < 1 or depth < 0:
        raise ValueError("uniform trees need branching >= 1 and depth >= 0")
    count = branching ** depth
    vectors = st.lists(leaf_values(players, values, sum_kind, total), min_size=count,
                       max_size=count)
    names = tuple(f"P{i}" for i in range(players))
    utility_sum = total if sum_kind == CONSTANT_SUM else None

    def build(leaves: list[tuple[Value, ...]]) -> GeneratedTree:
        level: list[Node] = [Leaf(v) for v in leaves]
        for ply in reversed(range(depth)):  # group each run of `branching` nodes under a parent
            level = [Decision(ply % players, tuple((f"a{i}", c) for i, c in
                                                    enumerate(level[k:k + branching])))
                     for k in range(0, len(level), branching)]
        (root,) = level
        return GeneratedTree(root, tree_info(f"uniform b={branching} d={depth}", names, root,
                                             sum_kind=sum_kind, utility_sum=utility_sum))

    return vectors.map(build)


def deep_chain(length: int) -> GeneratedTree:
    """A two-player zero-sum game ``length`` plies deep, built without recursion: at ply k
    player k mod 2 chooses ``go`` (on to the next ply) or ``stop`` (a (0, 0) leaf); going past
    the last ply ends in (1, -1). For solvers that must not meet Python's recursion limit.
    Player 1 stops at the last ply it moves, so for length >= 2 the value is 0, every node
    before that ties ``go`` with ``stop``, and there are 2·length + 1 states."""
    node: Node = Leaf((1, -1))
    for ply in reversed(range(length)):
        node = Decision(ply % 2, (("go", node), ("stop", Leaf((0, 0)))))
    return GeneratedTree(node, tree_info(f"chain {length}", ("P0", "P1"), node,
                                         sum_kind=ZERO_SUM))


# ==== rule files ================================================================================
#
# Two strategies over the rule language, both built as syntax trees (gdl.lang.ast):
#
# * ``syntax_trees()``: any file the grammar can express (every kind of declaration, statement
#   and expression, nested at random), meaningful or not. For the formatter and the front end:
#   ``parse(format_file(tree)) == tree`` must hold for every one of them.
# * ``rule_games()``: small games that are valid by construction (they pass the checker and never
#   fail at run time) and solvable in milliseconds, printed by the formatter and parsed back. For
#   solver agreement (tests/test_agreement.py, `gdl fuzz`).



@_lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Every word of the grammar that a name could be mistaken for (read from the grammar, so it
    stays right when the grammar grows)."""
    import re

    from lark.lexer import PatternStr

    from gdl.lang.grammar import build_parser

    word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
    return frozenset(t.pattern.value for t in build_parser().terminals
                     if isinstance(t.pattern, PatternStr) and word.match(t.pattern.value)) | {
        "zero", "constant", "length"}   # halves of zero-sum, constant-sum, max-length


def identifiers() -> st.SearchStrategy[str]:
    """Short names that are not keywords: ``a``, ``x1``, ``b_2``."""
    return st.from_regex(r"[a-z][a-z0-9_]{0,3}", fullmatch=True).filter(
        lambda name: name not in keywords())


def _idents() -> st.SearchStrategy[_ast.Ident]:
    return identifiers().map(_ast.Ident)


def _negate(e: _ast.Expr) -> _ast.Expr:
    # `-3` is a literal to the parser (and `- -3` is 3), so a minus on a literal folds into it.
    if isinstance(e, _ast.IntLit):
        return _ast.IntLit(-e.value)
    return _ast.Unary("-", e)


_OPERATORS = ("+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or")
_QUANTIFIERS = ("any", "all", "count", "sum", "min", "max")


def syntax_expressions(max_leaves: int = 10) -> st.SearchStrategy[_ast.Expr]:
    """Any expression the grammar can write: every operator, quantifier, `let`, call, index, list
    and conditional, nested at random (types are not respected)."""
    leaves = st.one_of(
        st.integers(-5, 30).map(_ast.IntLit), st.booleans().map(_ast.BoolLit),
        identifiers().map(_ast.Name), st.just(_ast.Mover()))

    def extend(inner: st.SearchStrategy[_ast.Expr]) -> st.SearchStrategy[_ast.Expr]:
        args = st.lists(inner, min_size=0, max_size=3).map(tuple)
        some_args = st.lists(inner, min_size=1, max_size=3).map(tuple)
        return st.one_of(
            st.builds(_ast.Binary, st.sampled_from(_OPERATORS), inner, inner),
            inner.map(lambda e: _ast.Unary("not", e)),
            inner.map(_negate),
            st.builds(_ast.IfExpr, inner, inner, inner),
            st.builds(_ast.Call, _idents(), args),
            st.builds(_ast.Call, st.sampled_from(["abs", "min", "max"]).map(_ast.Ident), some_args),
            st.builds(_ast.Index, inner, inner),
            st.builds(_ast.ListLit, some_args),
            st.builds(_ast.Quantifier, st.sampled_from(_QUANTIFIERS),
                      st.lists(_binders(inner), min_size=1, max_size=2).map(tuple), inner),
            st.builds(_ast.Let, st.lists(st.tuples(_idents(), inner), min_size=1,
                                         max_size=2).map(tuple), inner),
            st.builds(lambda v, s: _ast.Member(v, s.symbols, None), inner, _symbol_sets()),
            st.builds(lambda v, r: _ast.Member(v, None, r), inner, _ranges(inner)),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def _ranges(expr: st.SearchStrategy[_ast.Expr]) -> st.SearchStrategy[_ast.RangeDomain]:
    return st.builds(_ast.RangeDomain, expr, expr)


def _symbol_sets() -> st.SearchStrategy[_ast.SymbolDomain]:
    return st.lists(_idents(), min_size=1, max_size=3).map(lambda s: _ast.SymbolDomain(tuple(s)))


def _binders(expr: st.SearchStrategy[_ast.Expr]) -> st.SearchStrategy[_ast.Binder]:
    domain = st.one_of(_ranges(expr), _symbol_sets(), st.just(_ast.PlayersDomain()))
    return st.builds(_ast.Binder, _idents(), domain)


def syntax_statements(expr: st.SearchStrategy[_ast.Expr], max_leaves: int = 6
                      ) -> st.SearchStrategy[tuple[_ast.Stmt, ...]]:
    """Statement lists with every kind of statement, blocks nested at random."""
    small = st.lists(expr, min_size=0, max_size=2).map(tuple)
    outcomes = st.lists(st.tuples(expr, expr), min_size=1, max_size=3).map(tuple)
    simple = st.one_of(
        st.builds(_ast.Assign, _idents(), small, expr),
        st.just(_ast.Pass()),
        st.builds(_ast.Next, expr),
        st.builds(lambda n, o: _ast.Random(n, o, None), _idents(), outcomes),
        st.builds(lambda n, r: _ast.Random(n, None, r), _idents(), _ranges(expr)),
        st.builds(_ast.LetStmt, _idents(), expr),
    )

    def extend(block: st.SearchStrategy[tuple]) -> st.SearchStrategy[tuple]:
        compound = st.one_of(
            st.builds(_ast.If, expr, block, st.none() | block),
            st.builds(_ast.For, st.lists(_binders(expr), min_size=1, max_size=2).map(tuple), block),
        )
        return st.lists(st.one_of(simple, compound), min_size=0, max_size=3).map(tuple)

    return st.recursive(st.lists(simple, min_size=0, max_size=3).map(tuple), extend,
                        max_leaves=max_leaves)


def _syntax_tree_nodes(max_leaves: int = 8) -> st.SearchStrategy[_ast.TreeNode]:
    numbers = st.one_of(st.integers(-20, 20).map(Fraction),
                        st.fractions(min_value=-5, max_value=5, max_denominator=7))
    probabilities = st.fractions(min_value=0, max_value=3, max_denominator=9)
    leaves = st.lists(numbers, min_size=1, max_size=3).map(lambda v: _ast.TreeLeaf(tuple(v)))

    def extend(node: st.SearchStrategy[_ast.TreeNode]) -> st.SearchStrategy[_ast.TreeNode]:
        edge = st.tuples(_idents(), node)
        chance_edge = st.builds(_ast.ChanceEdge, st.none() | _idents(), probabilities, node)
        return st.one_of(
            st.builds(_ast.TreeDecision, _idents(),
                      st.lists(edge, min_size=1, max_size=3).map(tuple)),
            st.lists(chance_edge, min_size=1, max_size=3).map(lambda e: _ast.TreeChance(tuple(e))),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def _strings() -> st.SearchStrategy[str]:
    # What a STRING token may hold: anything but a quote, a backslash, a newline or a control
    # character (E230: strings reach terminals). Other separators (\u2028, ...) are worth testing.
    from gdl.errors import is_control

    return st.text(st.characters(blacklist_characters='"\\\n', blacklist_categories=("Cs", "Cc"))
                   .filter(lambda c: not is_control(c)), max_size=8)


def syntax_declarations(expr: st.SearchStrategy[_ast.Expr] | None = None
                        ) -> st.SearchStrategy[_ast.Decl]:
    """One declaration of any kind."""
    expr = expr if expr is not None else syntax_expressions()
    names = _idents()
    dims = st.lists(st.one_of(expr, st.just(_ast.PlayersDomain())), max_size=2).map(tuple)
    var_domain = st.one_of(_ranges(expr), _symbol_sets(), st.just(_ast.BoolDomain()),
                           st.just(_ast.PlayersDomain()))
    binders = st.lists(_binders(expr), min_size=0, max_size=2).map(tuple)
    by = st.none() | st.lists(names, min_size=1, max_size=2).map(tuple)
    glyph_key = st.one_of(identifiers(), st.integers(-3, 9), st.booleans())
    glyphs = st.lists(st.tuples(glyph_key, _strings()), max_size=3).map(tuple)
    sums = st.one_of(st.just(_ast.SumDecl("zero-sum", 0)),
                     st.integers(-9, 99).map(lambda n: _ast.SumDecl("constant-sum", n)))
    return st.one_of(
        _strings().map(_ast.GameDecl),
        st.lists(names, min_size=1, max_size=3).map(lambda p: _ast.PlayersDecl(tuple(p))),
        st.builds(_ast.ParamDecl, names, expr),
        st.builds(_ast.ConstDecl, names, expr),
        st.builds(_ast.ConstDecl, names, st.lists(st.tuples(names, expr), min_size=1, max_size=3)
                  .map(lambda entries: _ast.MapLit(tuple(entries)))),
        st.builds(_ast.VarDecl, names, dims, var_domain, expr),
        st.builds(_ast.ActionDecl, names, binders, by, st.none() | expr,
                  syntax_statements(expr)),
        st.builds(_guarded_action, names, st.lists(st.tuples(_binders(expr), st.none() | expr),
                                                   min_size=1, max_size=2),
                  by, st.none() | expr, syntax_statements(expr)),
        st.builds(_ast.DefineDecl, names, st.lists(names, max_size=2).map(tuple), expr),
        st.builds(_ast.TerminalDecl, expr),
        st.builds(_ast.UtilityDecl, names, expr),
        st.builds(_ast.UtilityBoundsDecl, _ranges(expr)),
        sums,
        st.builds(_ast.EvaluateDecl, names, expr),
        st.builds(_ast.QuietDecl, expr),
        st.builds(_ast.LengthDecl, expr),
        st.sampled_from(("pass", "lose", "win")).map(lambda w: _ast.StuckDecl(_ast.Ident(w))),
        st.builds(_ast.DisplayDecl, names, glyphs),
        st.builds(_ast.TreeDecl, _syntax_tree_nodes()),
    )


def _guarded_action(name, params, by, requires, effect) -> _ast.ActionDecl:
    """An action whose parameters may carry guards (`fc in 0..7 if cell[fr][fc] == mover`)."""
    guards = tuple(guard for _, guard in params)
    return _ast.ActionDecl(name, tuple(binder for binder, _ in params), by, requires, tuple(effect),
                           guards=guards if any(g is not None for g in guards) else ())


def syntax_trees(max_declarations: int = 6) -> st.SearchStrategy[_ast.GameFile]:
    """Whole files of arbitrary declarations: syntactically valid, meaningless in general."""
    return st.lists(syntax_declarations(), max_size=max_declarations).map(
        lambda d: _ast.GameFile(tuple(d)))


# ---- games valid by construction ----------------------------------------------------------------

@_dataclass(frozen=True)
class _IntExpr:
    """A number expression with integer bounds on its value in every state (interval arithmetic);
    the value itself is an integer unless the expression divides exactly (``/``)."""
    node: _ast.Expr
    lo: int
    hi: int


def _lit(value: int) -> _IntExpr:
    return _IntExpr(_ast.IntLit(value), value, value)


def _name(name: str, lo: int, hi: int) -> _IntExpr:
    return _IntExpr(_ast.Name(name), lo, hi)


def _op(op: str, a: _IntExpr, b: _IntExpr) -> _IntExpr:
    if op == "+":
        return _IntExpr(_ast.Binary("+", a.node, b.node), a.lo + b.lo, a.hi + b.hi)
    if op == "-":
        return _IntExpr(_ast.Binary("-", a.node, b.node), a.lo - b.hi, a.hi - b.lo)
    corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return _IntExpr(_ast.Binary("*", a.node, b.node), min(corners), max(corners))


def _divide(a: _IntExpr, k: int) -> _IntExpr:
    """``a / k``, exact (k > 0): a rational value whose integer bounds are rounded outwards."""
    return _IntExpr(_ast.Binary("/", a.node, _ast.IntLit(k)), a.lo // k, -(-a.hi // k))


def _call(func: str, *args: _IntExpr) -> _IntExpr:
    pick = min if func == "min" else max
    return _IntExpr(_ast.Call(_ast.Ident(func), tuple(a.node for a in args)),
                    pick(a.lo for a in args), pick(a.hi for a in args))


def _clamp(e: _IntExpr, lo: int, hi: int) -> _IntExpr:
    """``e`` forced into lo..hi: unchanged when its bounds already fit."""
    if lo <= e.lo and e.hi <= hi:
        return e
    inner = _call("max", e, _lit(lo)) if e.lo < lo else e
    outer = _call("min", inner, _lit(hi)) if e.hi > hi else inner
    return _IntExpr(outer.node, max(min(e.lo, hi), lo), min(max(e.hi, lo), hi))


def _if(cond: _ast.Expr, a: _IntExpr, b: _IntExpr) -> _IntExpr:
    return _IntExpr(_ast.IfExpr(cond, a.node, b.node), min(a.lo, b.lo), max(a.hi, b.hi))


@_dataclass
class GeneratedRules:
    """A generated rule file: its syntax tree, its canonical text (what a failure shows), and the
    bounds the generator proved for its utilities and evaluations."""

    tree: _ast.GameFile
    text: str
    utility_range: tuple[int, int]
    # every move adds one to a state variable, so a position's distance from the root is the
    # same along every path: a transposition table stays exact under a depth limit
    depth_in_state: bool = False
    _games: dict = _field(default_factory=dict, repr=False, compare=False)

    def load(self, backend: str = "interpret"):
        """The game, built by ``backend`` ("interpret" or, when gdl.backends.compiler exists, "compile")."""
        if backend not in self._games:
            from gdl.backends.load import loads

            self._games[backend] = loads(self.text, "<generated>", backend=backend)
        return self._games[backend]

    @property
    def game(self):
        return self.load("interpret")

    def __repr__(self) -> str:
        return "GeneratedRules(\n" + self.text + ")"


_PLAYER_NAMES = ("P0", "P1", "P2", "P3")
_LIGHTS = ("red", "amber", "green")       # the symbols of the full language's `light`
# `u in 0..2, v in u..2`: binders whose second range starts at the first (the pairs u <= v)
_PAIRS = (_ast.Binder(_ast.Ident("u"), _ast.RangeDomain(_ast.IntLit(0), _ast.IntLit(2))),
          _ast.Binder(_ast.Ident("v"), _ast.RangeDomain(_ast.Name("u"), _ast.IntLit(2))))


@st.composite
def rule_games(draw, players: int | Sequence[int] = (2, 3), *, chance: bool | None = None,
               sum_kinds: Sequence[str] = (ZERO_SUM, CONSTANT_SUM, GENERAL_SUM),
               evaluate: bool | None = None, bounds: bool | None = None,
               max_nodes: int = 300, second_edition: bool = False,
               probes: bool = False, full_language: bool = False) -> GeneratedRules:
    """Small games in the rule language, valid by construction.

    Every game has a counter ``moves`` that every action increases by one and the terminal condition
    ``moves == K`` (perhaps ``or`` an early end), so it is finite; action ``a0(k)`` has no
    precondition, so a player always has a move, and it is the contest: the first player pushes
    ``x0`` up by ``k``, the others push it down, and the utilities start from ``x0``. Int variables
    have small domains and every assignment is clamped (``min(max(...))``) or taken modulo the
    domain's size, so no value ever leaves its domain. Actions may take a parameter, be restricted
    to some players (``by``), require a condition, give an extra turn (``next mover``), toggle a
    flag, add to a per-player score, and end with a chance event (``random r in {1: 1/3, 2: 2/3}``
    or ``random r in 0..2``, exact probabilities; perhaps a second one, ``random q in 0..1``, right
    after) whose outcomes feed the effect. Utilities (and, optionally, evaluations) are arithmetic
    of the variables, perhaps through a ``define`` or a ``const`` table, perhaps divided exactly
    (``/ 2``, a rational value); the game is zero-sum,
    constant-sum (with non-negative utilities, as max^n shallow pruning needs) or general-sum, and
    may declare utility bounds (computed by interval arithmetic, so they hold). ``K`` is chosen so
    that the game tree has at most about ``max_nodes`` nodes.

    With ``second_edition=True`` the games also use the rule language's second-edition constructs:
    utilities divided exactly (``/``, rational values), ``let`` and ``repeat`` in effects, and
    an ``init`` block (a value, perhaps who moves first). It is off by
    default so that a seed keeps drawing the games it drew before (tests pin some of them).
    ``full_language=True`` (which implies ``second_edition``; off by default for the same reason)
    adds the rest of the second edition: parameter guards and a parameter whose range starts at
    the one before it (``a1(k in 0..2 if ..., j in k..2 if ...)``), quantifiers over ranges that
    depend on an outer binder (``count u in 0..2, v in u..2: ...``) or on a define's parameter
    (``upto(x0)``), membership (``x0 in 0..2``, ``light in {red, green}``), a symbol variable
    read through a map from symbols (``worth[light]``), chance in ``init`` (the root is then a
    chance node), and ``when stuck lose``/``win``/``pass`` (then the first action is closed to
    every player but the first on the last move, so that someone really is stuck).
    ``probes=True`` (off by default for the same reason) makes about one condition in two and one
    value in four an expression probe (``probe_condition``, ``probe_value``).

    Everything shrinks towards fewer players, variables, actions and statements, smaller
    constants, no chance, no evaluation.
    """
    second_edition = second_edition or full_language

    def pick(options):
        # an index, not sampled_from: hypothesis labels sampled_from by hashing its elements,
        # and strings and functions hash differently from process to process, which would make
        # the same seed generate different games
        options = tuple(options)
        return options[draw(st.integers(0, len(options) - 1))]

    counts = (players,) if isinstance(players, int) else tuple(players)
    n = pick(counts)
    names = _PLAYER_NAMES[:n]
    sum_kind = pick(tuple(sum_kinds))
    has_chance = draw(st.booleans()) if chance is None else chance
    has_evaluate = draw(st.booleans()) if evaluate is None else evaluate
    declare_bounds = draw(st.booleans()) if bounds is None else bounds

    # ---- state
    variables: list[tuple[str, int, int]] = []          # (name, lo, hi) of the int variables
    for index in range(draw(st.integers(1, 3))):
        lo = draw(st.integers(-2, 0))
        hi = lo + draw(st.integers(1, 4))
        variables.append((f"x{index}", lo, hi))
    inits = [draw(st.integers(lo, hi)) for _, lo, hi in variables]
    score_max = pick([0, 3])           # 0: no per-player score array
    has_flag = draw(st.booleans())
    table = None
    if variables[0][1] == 0 and draw(st.booleans()):
        table = tuple(draw(st.integers(-3, 3)) for _ in range(variables[0][2] + 1))
    bonus = None      # second edition: a map from the players to numbers, read as `bonus[mover]`
    if second_edition and draw(st.integers(0, 3)) == 0:
        bonus = tuple(draw(st.integers(-2, 2)) for _ in names)
    # full language: a symbol variable `light`, read through a map from symbols `worth[light]`
    worth = tuple(draw(st.integers(-2, 2)) for _ in _LIGHTS) \
        if full_language and draw(st.booleans()) else None
    # full language: `define upto(m) = count v in 0..m: v <= x?`, a range from a define parameter
    upto = draw(st.integers(0, len(variables) - 1)) \
        if full_language and draw(st.booleans()) else None

    def int_atom() -> _IntExpr:
        choices = [("var", i) for i in range(len(variables))] + [("lit", 0)]
        if score_max:
            choices.append(("score", 0))
        if worth is not None:
            choices.append(("worth", 0))
        kind, i = pick(choices)
        if kind == "var":
            return _name(*variables[i])
        if kind == "worth":
            return _IntExpr(_ast.Index(_ast.Name("worth"), _ast.Name("light")), min(worth),
                            max(worth))
        if kind == "score":
            who = pick(("mover",) + names)
            index = _ast.Mover() if who == "mover" else _ast.Name(who)
            return _IntExpr(_ast.Index(_ast.Name("s"), index), 0, score_max)
        return _lit(draw(st.integers(-2, 3)))

    def start_value(e: _IntExpr) -> int | None:
        """The initial value of ``e`` when it is a variable (probes test near it: the states a
        short game reaches are near its start)."""
        for (name, _, _), init in zip(variables, inits):
            if e.node == _ast.Name(name):
                return init
        return None

    def condition(extra: list[_IntExpr] = ()) -> _ast.Expr:
        if probes and draw(st.booleans()):   # over the state: a local's values are known anyway
            return probe_condition(draw, int_atom, start_value)
        kinds = ["compare", "flag", "mover", "and"] if has_flag else ["compare", "mover", "and"]
        if full_language:
            kinds += ["member", "pairs"] + (["light"] if worth is not None else [])
        kind = pick(kinds)
        if kind == "member":        # `x in lo..hi`, a number between two bounds
            a = pick([int_atom, *[(lambda e=e: e) for e in extra]])()
            lo = draw(st.integers(a.lo - 1, a.hi))
            return _ast.Member(a.node, None, _ast.RangeDomain(
                _ast.IntLit(lo), _ast.IntLit(lo + draw(st.integers(0, 2)))))
        if kind == "light":         # `light in {red, green}`, a symbol among some
            chosen = draw(st.lists(st.integers(0, len(_LIGHTS) - 1), min_size=1, max_size=2,
                                   unique=True))
            return _ast.Member(_ast.Name("light"), tuple(_ast.Ident(_LIGHTS[i]) for i in chosen),
                               None)
        if kind == "pairs":         # a range from an outer binder: the pairs u <= v
            a = int_atom()
            return _ast.Quantifier(pick(["any", "all"]), _PAIRS, _ast.Binary(
                pick(["<", "<=", "==", "!="]), _ast.Binary("+", a.node, _ast.Name("u")),
                _ast.Name("v")))
        if kind == "flag":
            flag = _ast.Name("flag")
            return flag if draw(st.booleans()) else _ast.Unary("not", flag)
        if kind == "mover":
            return _ast.Binary(pick(["==", "!="]), _ast.Mover(),
                               _ast.Name(pick(names)))
        if kind == "and":
            return _ast.Binary(pick(["and", "or"]), condition(extra),
                               condition(extra))
        left = pick([int_atom, *[(lambda e=e: e) for e in extra]])()
        op = pick(["<", "<=", "==", "!=", ">=", ">"])
        return _ast.Binary(op, left.node, _lit(draw(st.integers(-1, 3))).node)

    def value(extra: list[_IntExpr] = ()) -> _IntExpr:
        """An int expression of the state (and the local names in ``extra``)."""
        pool = [int_atom, *[(lambda e=e: e) for e in extra]]
        if probes and draw(st.integers(0, 3)) == 0:
            return probe_value(draw, int_atom, start_value)
        kinds = ["atom", "add", "sub", "scale", "minmax", "if"]
        if full_language:
            kinds += ["pairs"] + (["upto"] if upto is not None else [])
        kind = pick(kinds)
        a = pick(pool)()
        if kind == "atom":
            return a
        if kind == "pairs":     # how many pairs u <= v (a range from an outer binder) pass a test
            body = _ast.Binary(pick(["<", "<=", ">="]), _ast.Name("v"), a.node)
            return _IntExpr(_ast.Quantifier("count", _PAIRS, body), 0, 6)
        if kind == "upto":      # a range from a define's parameter: 0..a, empty when a < 0
            return _IntExpr(_ast.Call(_ast.Ident("upto"), (a.node,)), 0, max(0, a.hi + 1))
        if kind in ("add", "sub"):
            return _op("+" if kind == "add" else "-", a, pick(pool)())
        if kind == "scale":
            return _op("*", _lit(pick([2, -1, 3])), a)
        if kind == "minmax":
            return _call(pick(["min", "max"]), a, pick(pool)())
        return _if(condition(extra), a, pick(pool)())

    def assignment(extra: list[_IntExpr] = ()) -> _ast.Stmt:
        kinds = ["var"] + (["score"] if score_max else []) + (["flag"] if has_flag else [])
        if worth is not None:
            kinds.append("light")
        kind = pick(kinds)
        if kind == "light":
            a, b = (_ast.Name(_LIGHTS[draw(st.integers(0, len(_LIGHTS) - 1))]) for _ in range(2))
            return _ast.Assign(_ast.Ident("light"), (), _ast.IfExpr(condition(extra), a, b))
        if kind == "flag":
            new = _ast.Unary("not", _ast.Name("flag")) if draw(st.booleans()) else condition(extra)
            return _ast.Assign(_ast.Ident("flag"), (), new)
        if kind == "score":
            target = _ast.Index(_ast.Name("s"), _ast.Mover())
            added = _op("+", _IntExpr(target, 0, score_max), value(extra))
            return _ast.Assign(_ast.Ident("s"), (_ast.Mover(),), _clamp(added, 0, score_max).node)
        name, lo, hi = variables[draw(st.integers(0, len(variables) - 1))]
        new = value(extra)
        if lo == 0 and not (new.lo >= 0 and new.hi <= hi) and draw(st.booleans()):
            node = _ast.Binary("%", new.node, _ast.IntLit(hi + 1))
        else:
            node = _clamp(new, lo, hi).node
        return _ast.Assign(_ast.Ident(name), (), node)

    def statements(extra: list[_IntExpr], depth: int = 0) -> list[_ast.Stmt]:
        out: list[_ast.Stmt] = []
        for _ in range(draw(st.integers(0, 2))):
            kind = pick(["assign", "if", "turn"] if depth == 0 else ["assign"])
            if kind == "assign":
                out.append(assignment(extra))
            elif kind == "if":
                then = tuple(statements(extra, depth + 1)) or (_ast.Pass(),)
                otherwise = tuple(statements(extra, depth + 1)) if draw(st.booleans()) else None
                out.append(_ast.If(condition(extra), then, otherwise or None))
            else:
                who = pick(("mover",) + names)
                player = _ast.Mover() if who == "mover" else _ast.Name(who)
                out.append(_ast.If(condition(extra), (_ast.Next(player),), None))
        return out

    # ---- actions
    actions: list[_ast.ActionDecl] = []
    ground = 0
    fan_out = 1
    for index in range(draw(st.integers(1, 3))):
        name = f"a{index}"
        params: tuple[_ast.Binder, ...] = ()
        guards: tuple[_ast.Expr | None, ...] = ()
        extra: list[_IntExpr] = []
        width = 1
        if index == 0 or draw(st.booleans()):
            k_hi = draw(st.integers(1, 2))
            params = (_ast.Binder(_ast.Ident("k"), _ast.RangeDomain(_ast.IntLit(0),
                                                                    _ast.IntLit(k_hi))),)
            extra.append(_name("k", 0, k_hi))
            width = k_hi + 1
            if full_language and index > 0 and draw(st.booleans()):
                # a second parameter ranging from the first (`j in k..2`), and guards that read
                # the state and the parameters so far (the first action stays unguarded: it
                # keeps a move open to every player)
                params += (_ast.Binder(_ast.Ident("j"), _ast.RangeDomain(_ast.Name("k"),
                                                                         _ast.IntLit(2))),)
                width = sum(3 - k for k in range(k_hi + 1))
                guards = (condition() if draw(st.booleans()) else None,
                          condition(extra + [_name("j", 0, 2)]) if draw(st.booleans()) else None)
                extra.append(_name("j", 0, 2))
        ground += width
        by = requires = None
        if index > 0:
            if draw(st.booleans()):
                # indices, not names: a unique list of strings would depend on string hashing,
                # which differs from process to process, and the same seed must give the same game
                by = tuple(_ast.Ident(names[i]) for i in draw(st.lists(
                    st.integers(0, n - 1), min_size=1, max_size=n, unique=True)))
            if draw(st.booleans()):
                requires = condition(extra)
        effect = [_ast.Assign(_ast.Ident("moves"), (),
                              _ast.Binary("+", _ast.Name("moves"), _ast.IntLit(1)))]
        if index == 0:
            # the contest: the first player pushes x0 up by k, the others push it down
            name0, lo0, hi0 = variables[0]
            k = extra[0]
            step = _if(_ast.Binary("==", _ast.Mover(), _ast.Name(names[0])), k,
                       _IntExpr(_ast.Unary("-", k.node), -k.hi, -k.lo))
            effect.append(_ast.Assign(_ast.Ident(name0), (),
                                      _clamp(_op("+", _name(name0, lo0, hi0), step), lo0, hi0).node))
        if second_edition and draw(st.booleans()):
            # a local name for the rest of the effect, taken before the statements change the state
            held = value(extra)
            effect.append(_ast.LetStmt(_ast.Ident("h"), held.node))
            extra = extra + [_IntExpr(_ast.Name("h"), held.lo, held.hi)]
        more = statements(extra)
        if second_edition and more and draw(st.integers(0, 3)) == 0:
            # the statements again until they change nothing, at most twice (every assignment
            # is clamped or taken modulo its domain, so repeating it stays valid)
            more = [_ast.Repeat(_ast.IntLit(2), tuple(more))]
        effect += more
        if has_chance and draw(st.booleans()):
            if draw(st.booleans()):
                lo = draw(st.integers(0, 1))
                hi = lo + draw(st.integers(1, 2))
                random = _ast.Random(_ast.Ident("r"), None,
                                     _ast.RangeDomain(_ast.IntLit(lo), _ast.IntLit(hi)))
                outcomes = list(range(lo, hi + 1))
            else:
                outcomes = draw(st.lists(st.integers(-1, 3), min_size=1, max_size=3, unique=True))
                weights = [draw(st.integers(1, 3)) for _ in outcomes]
                whole = sum(weights)
                random = _ast.Random(_ast.Ident("r"), tuple(
                    (_ast.IntLit(v), _ast.Binary("/", _ast.IntLit(w), _ast.IntLit(whole))
                     if w != whole else _ast.IntLit(1)) for v, w in zip(outcomes, weights)), None)
                lo, hi = min(outcomes), max(outcomes)
            chances = len(outcomes)
            effect.append(random)
            effect += [assignment(extra + [_name("r", lo, hi)])
                       for _ in range(draw(st.integers(1, 2)))]
            if draw(st.booleans()):     # a second chance event right after the first
                effect.append(_ast.Random(_ast.Ident("q"), None,
                                          _ast.RangeDomain(_ast.IntLit(0), _ast.IntLit(1))))
                effect.append(assignment(extra + [_name("r", lo, hi), _name("q", 0, 1)]))
                chances *= 2
            fan_out = max(fan_out, chances)
        actions.append(_ast.ActionDecl(_ast.Ident(name), params, by, requires, tuple(effect),
                                       guards=guards if any(g is not None for g in guards) else ()))

    # ---- length: the tree has at most about max_nodes nodes
    per_move = ground * fan_out
    longest = 1
    while per_move ** (longest + 1) <= max_nodes and longest < 6:
        longest += 1
    length = draw(st.integers(1, longest))

    # ---- when stuck: lose or win (two players), pass (any number)
    stuck = None
    if full_language and draw(st.booleans()):
        stuck = pick(["lose", "win", "pass"] if n == 2 else ["pass"])
        # the first action, open to everyone until now, is closed to all but the first player
        # on the last move: a player without another legal action is then stuck
        last_move = _ast.Binary("or", _ast.Binary("==", _ast.Mover(), _ast.Name(names[0])),
                                _ast.Binary("<", _ast.Name("moves"), _ast.IntLit(length - 1)))
        first = actions[0]
        actions[0] = _ast.ActionDecl(first.name, first.params, first.by, last_move, first.effect,
                                     guards=first.guards)

    # ---- utilities and evaluations
    define = None
    if draw(st.booleans()):
        body = value()
        define = (_ast.DefineDecl(_ast.Ident("d"), (), body.node), body)

    def payoff(player: int) -> _IntExpr:
        # x0 is what the first action fights over: the first player wants it high, the others
        # low (with general-sum, one more player wants it high too)
        name0, lo0, hi0 = variables[0]
        x0 = _name(name0, lo0, hi0)
        if player > 0 and not (sum_kind == GENERAL_SUM and player == 2):
            x0 = _op("*", _lit(-1), x0)
        parts = [x0] + ([value()] if draw(st.booleans()) else [])
        if define is not None and draw(st.booleans()):
            parts.append(_IntExpr(_ast.Name("d"), define[1].lo, define[1].hi))
        if table is not None and draw(st.booleans()):
            name = variables[0][0]
            parts.append(_IntExpr(_ast.Index(_ast.Name("w"), _ast.Name(name)), min(table),
                                  max(table)))
        if bonus is not None and draw(st.booleans()):
            parts.append(_IntExpr(_ast.Index(_ast.Name("bonus"), _ast.Mover()), min(bonus),
                                  max(bonus)))
        result = parts[0]
        for part in parts[1:]:
            result = _op("+", result, part)
        if second_edition and draw(st.integers(0, 3)) == 0:   # exact division: a rational utility
            result = _divide(result, draw(st.integers(2, 3)))
        return result

    def payoffs() -> tuple[list[tuple[str, _ast.Expr]], int, int, int]:
        """(player, expression) pairs, their range, and the constant sum (0 if none)."""
        if sum_kind == GENERAL_SUM:
            given = [(p, payoff(i)) for i, p in enumerate(names)]
            return ([(p, e.node) for p, e in given], min(e.lo for _, e in given),
                    max(e.hi for _, e in given), 0)
        if sum_kind == ZERO_SUM:
            given = [(p, payoff(i)) for i, p in enumerate(names[:-1])]
            lo = min(min(e.lo for _, e in given), -sum(e.hi for _, e in given))
            hi = max(max(e.hi for _, e in given), -sum(e.lo for _, e in given))
            return [(p, e.node) for p, e in given], lo, hi, 0
        cap = draw(st.integers(1, 4))      # constant-sum: non-negative shares
        given = [(p, _clamp(payoff(i), 0, cap)) for i, p in enumerate(names[:-1])]
        total = cap * (n - 1)
        return [(p, e.node) for p, e in given], 0, total, total

    utilities, lo, hi, total = payoffs()
    evaluations: list[tuple[str, _ast.Expr]] = []
    if has_evaluate:
        evaluations, e_lo, e_hi, e_total = payoffs()
        if sum_kind == CONSTANT_SUM:       # the evaluation must keep the declared total
            evaluations = [(p, _clamp(_IntExpr(e, 0, e_total), 0, total // (n - 1)).node
                            if e_total != total else e) for p, e in evaluations]
            e_lo, e_hi = 0, total
        lo, hi = min(lo, e_lo), max(hi, e_hi)
    if stuck in ("lose", "win") and sum_kind != CONSTANT_SUM:   # the stuck ending gives -1 and 1
        lo, hi = min(lo, -1), max(hi, 1)
    if hi == lo:
        hi = lo + 1

    # ---- the file
    decls: list[_ast.Decl] = [_ast.GameDecl("generated"),
                              _ast.PlayersDecl(tuple(_ast.Ident(p) for p in names))]
    if table is not None:
        decls.append(_ast.ConstDecl(_ast.Ident("w"), _ast.ListLit(tuple(map(_ast.IntLit, table)))))
    if bonus is not None:
        decls.append(_ast.ConstDecl(_ast.Ident("bonus"), _ast.MapLit(tuple(
            (_ast.Ident(p), _ast.IntLit(v)) for p, v in zip(names, bonus)))))
    decls.append(_ast.VarDecl(_ast.Ident("moves"), (), _ast.RangeDomain(
        _ast.IntLit(0), _ast.IntLit(length)), _ast.IntLit(0)))
    for (name, v_lo, v_hi), init in zip(variables, inits):
        decls.append(_ast.VarDecl(_ast.Ident(name), (), _ast.RangeDomain(
            _ast.IntLit(v_lo), _ast.IntLit(v_hi)), _ast.IntLit(init)))
    if score_max:
        decls.append(_ast.VarDecl(_ast.Ident("s"), (_ast.PlayersDomain(),), _ast.RangeDomain(
            _ast.IntLit(0), _ast.IntLit(score_max)), _ast.IntLit(0)))
    if has_flag:
        decls.append(_ast.VarDecl(_ast.Ident("flag"), (), _ast.BoolDomain(), _ast.BoolLit(False)))
    if worth is not None:
        decls.append(_ast.VarDecl(_ast.Ident("light"), (), _ast.SymbolDomain(
            tuple(map(_ast.Ident, _LIGHTS))), _ast.Name(_LIGHTS[0])))
        decls.append(_ast.ConstDecl(_ast.Ident("worth"), _ast.MapLit(tuple(
            (_ast.Ident(light), _ast.IntLit(v)) for light, v in zip(_LIGHTS, worth)))))
    if upto is not None:
        decls.append(_ast.DefineDecl(_ast.Ident("upto"), (_ast.Ident("m"),), _ast.Quantifier(
            "count", (_ast.Binder(_ast.Ident("v"), _ast.RangeDomain(_ast.IntLit(0),
                                                                    _ast.Name("m"))),),
            _ast.Binary("<=", _ast.Name("v"), _ast.Name(variables[upto][0])))))
    if define is not None:
        decls.append(define[0])
    root_chance = 0       # 1 when the init block begins with a chance event (one more ply)
    if second_edition and draw(st.booleans()):
        # set up the start with statements: a variable's value, and perhaps who moves first
        name, v_lo, v_hi = variables[draw(st.integers(0, len(variables) - 1))]
        start = _ast.IntLit(draw(st.integers(v_lo, v_hi)))
        setup: list[_ast.Stmt] = [_ast.Assign(_ast.Ident(name), (), start)]
        if full_language and has_chance and draw(st.booleans()):
            # chance at the root: the start value is shifted by a coin, so the initial state is
            # a chance node (the shift wraps round the domain, so it stays valid)
            shifted = _ast.Binary("+", _ast.IntLit(v_lo), _ast.Binary("%", _ast.Binary(
                "+", _ast.Binary("-", start, _ast.IntLit(v_lo)), _ast.Name("r")),
                _ast.IntLit(v_hi - v_lo + 1)))
            setup = [_ast.Random(_ast.Ident("r"), None, _ast.RangeDomain(_ast.IntLit(0),
                                                                         _ast.IntLit(1))),
                     _ast.Assign(_ast.Ident(name), (), shifted)]
            root_chance = 1
        if draw(st.booleans()):
            setup.append(_ast.Next(_ast.Name(pick(names))))
        decls.append(_ast.InitDecl(tuple(setup)))
    decls += actions
    end: _ast.Expr = _ast.Binary("==", _ast.Name("moves"), _ast.IntLit(length))
    if draw(st.booleans()):
        end = _ast.Binary("or", end, condition())
    decls.append(_ast.TerminalDecl(end))
    decls += [_ast.UtilityDecl(_ast.Ident(p), e) for p, e in utilities]
    if sum_kind == ZERO_SUM:
        decls.append(_ast.SumDecl("zero-sum", 0))
    elif sum_kind == CONSTANT_SUM:
        decls.append(_ast.SumDecl("constant-sum", total))
    decls += [_ast.EvaluateDecl(_ast.Ident(p), e) for p, e in evaluations]
    if declare_bounds:
        decls.append(_ast.UtilityBoundsDecl(_ast.RangeDomain(_ast.IntLit(lo), _ast.IntLit(hi))))
    if draw(st.booleans()):
        decls.append(_ast.LengthDecl(_ast.IntLit(length * (2 if has_chance else 1) + root_chance)))
    if stuck is not None:
        decls.append(_ast.StuckDecl(_ast.Ident(stuck)))
    tree = _ast.GameFile(tuple(decls))

    from gdl.lang.format import format_file
    from gdl.lang.parse import parse

    text = format_file(tree)
    parsed = parse(text, "<generated>")
    if parsed != tree:  # the formatter's round trip is part of the contract
        raise AssertionError(f"generated rule file does not read back:\n{text}")
    # every action adds one to `moves`; a chance event adds none (but alpha-beta, which keeps a
    # table under a depth limit, runs only without chance)
    return GeneratedRules(parsed, text, (lo, hi), depth_in_state=not has_chance)


# ---- games with transpositions ------------------------------------------------------------------

@st.composite
def transposition_games(draw, max_nodes: int = 400, evaluate: bool | None = None
                        ) -> GeneratedRules:
    """Two-player zero-sum games whose positions are reached by many move orders, so that a
    transposition table is used all the time, with entries stored under one window and probed
    under another (where a bound flagged the wrong way gives a wrong answer).

    The state is ``M`` counters ``c[0..M-1]`` in ``0..L`` and a move counter; ``push(i)`` adds
    one to a counter and perhaps ``jump(i)`` two, so the moves commute and different histories
    merge into one position. The players alternate; after ``N`` moves the game ends and player
    P0 gets ``w[c[0]][c[1]]`` (plus ``v[c[2]]`` with three counters) from random tables of small
    values (so ties are common), perhaps with an evaluation of the same form. Every move adds one
    to ``moves``, so a position's distance from the root is the same along every path and a table
    stays exact under a depth limit too (``depth_in_state``). ``N`` is small enough that a player
    always has a move and the tree has at most about ``max_nodes`` nodes.
    """
    from gdl.lang.format import format_file
    from gdl.lang.parse import parse

    counters = draw(st.integers(2, 3))
    top = draw(st.integers(1, 3))                       # L: each counter's largest value
    jumps = top >= 2 and draw(st.booleans())
    has_evaluate = draw(st.booleans()) if evaluate is None else evaluate
    branching = counters * (2 if jumps else 1)
    # with jumps a counter sum grows by up to 2 a move: N <= M*L/2 keeps a push always legal
    room = counters * top // 2 if jumps else counters * top
    longest = 1
    while branching ** (longest + 1) <= max_nodes and longest < room:
        longest += 1
    length = draw(st.integers(1, min(longest, room)))

    def table(rows: int, columns: int) -> list[list[int]]:
        return [[draw(st.integers(-3, 3)) for _ in range(columns)] for _ in range(rows)]

    def payoff(w: str, v: str) -> str:
        return f"{w}[c[0]][c[1]]" + (f" + {v}[c[2]]" if counters == 3 else "")

    side = top + 1
    lines = ['game "transpositions"', "players P0, P1",
             f"var c[{counters}] in 0..{top} = [{', '.join(['0'] * counters)}]",
             f"var moves in 0..{length} = 0"]
    tables = {"w": table(side, side)}
    if counters == 3:
        tables["v"] = table(1, side)
    if has_evaluate:
        tables["e"] = table(side, side)
        if counters == 3:
            tables["f"] = table(1, side)
    for name, rows in tables.items():
        text = (", ".join(map(str, rows[0])) if name in "vf" else
                ", ".join("[" + ", ".join(map(str, row)) + "]" for row in rows))
        lines.append(f"const {name} = [{text}]")
    lines.append(f"action push(i in 0..{counters - 1}) requires c[i] < {top} "
                 "effect c[i] = c[i] + 1; moves = moves + 1")
    if jumps:
        lines.append(f"action jump(i in 0..{counters - 1}) requires c[i] + 2 <= {top} "
                     "effect c[i] = c[i] + 2; moves = moves + 1")
    lines += [f"terminal moves == {length}", f"utility P0 = {payoff('w', 'v')}", "zero-sum"]
    if has_evaluate:
        lines.append(f"evaluate P0 = {payoff('e', 'f')}")
    bound = 6 if counters == 3 else 3
    if draw(st.booleans()):
        lines.append(f"utility in -{bound}..{bound}")
    tree = parse("\n".join(lines) + "\n", "<generated>")
    text = format_file(tree)
    parsed = parse(text, "<generated>")
    if parsed != tree:  # the formatter's round trip is part of the contract
        raise AssertionError(f"generated rule file does not read back:\n{text}")
    return GeneratedRules(parsed, text, (-bound, bound), depth_in_state=True)


# ---- expression probes (rule_games(probes=True)) --------------------------------------------------
# Expressions where the compiler's optimiser and the interpreter could part: floor division and
# remainder with negative or state-dependent operands, constants on either side of a comparison,
# quantifiers whose terms fold to constants, chains of guards on one variable (a fact "x >= k"
# must not be read as "x >= k+1"). The fuzz compares both back ends (and the native tier where it
# applies) state by state on every generated game, so each probe is checked at every state reached.
# (Choices are drawn as indices, never sampled_from over strings: see rule_games's pick.)

def _floor_corners(a: _IntExpr, lo: int, hi: int) -> tuple[int, int]:
    """Bounds of ``a // b`` for b in lo..hi, an interval without 0: a / b is monotone in each
    operand on such a box, and so is its floor, so the extremes are at the corners."""
    corners = [x // y for x in (a.lo, a.hi) for y in (lo, hi)]
    return min(corners), max(corners)


def _remainder_bounds(lo: int, hi: int) -> tuple[int, int]:
    """Bounds of ``a % b`` for b in lo..hi (no 0): the remainder takes the divisor's sign."""
    return (0, hi - 1) if lo > 0 else (lo + 1, 0)


def _nonzero(draw, b: _IntExpr) -> _IntExpr:
    """``b`` shifted so that its interval lies on one side of 0 (drawn: which side)."""
    shift = 1 - b.lo if draw(st.booleans()) else -1 - b.hi
    if shift == 0:
        return b
    return _op("+", b, _lit(shift))


def probe_value(draw, atom, start=lambda e: None) -> _IntExpr:
    """An integer probe over the state, with its bounds; ``atom()`` draws a state expression,
    ``start(e)`` is its initial value if known (guards test near it)."""
    kind = draw(st.integers(0, 5))
    a = atom()
    if kind == 0:       # floor division or remainder by a constant, perhaps negative
        d = (-3, -2, 2, 3)[draw(st.integers(0, 3))]
        a = _op("-", a, _lit(draw(st.integers(0, 3))))        # negative operands, too
        if draw(st.booleans()):
            lo, hi = _floor_corners(a, d, d)
            return _IntExpr(_ast.Binary("//", a.node, _ast.IntLit(d)), lo, hi)
        lo, hi = _remainder_bounds(d, d)
        return _IntExpr(_ast.Binary("%", a.node, _ast.IntLit(d)), lo, hi)
    if kind == 1:       # a state-dependent divisor on one side of 0
        b = _nonzero(draw, atom())
        if draw(st.booleans()):
            lo, hi = _floor_corners(a, b.lo, b.hi)
            return _IntExpr(_ast.Binary("//", a.node, b.node), lo, hi)
        lo, hi = _remainder_bounds(b.lo, b.hi)
        return _IntExpr(_ast.Binary("%", a.node, b.node), lo, hi)
    if kind == 2:       # a constant numerator over a state-dependent divisor
        c = draw(st.integers(-7, 7))
        b = _nonzero(draw, a)
        lo, hi = _floor_corners(_lit(c), b.lo, b.hi)
        return _IntExpr(_ast.Binary("//", _ast.IntLit(c), b.node), lo, hi)
    if kind == 3:       # a quantifier whose terms all fold to constants, plus the state
        n, c = draw(st.integers(1, 3)), draw(st.integers(-2, 3))
        count = _ast.Quantifier("count", (_ast.Binder(_ast.Ident("i"), _ast.RangeDomain(
            _ast.IntLit(0), _ast.IntLit(n))),), _ast.Binary("<", _ast.IntLit(c), _ast.Name("i")))
        return _op("+", a, _IntExpr(count, 0, n + 1))
    if kind == 4:       # floor division of a quantifier's state-dependent terms
        n = draw(st.integers(1, 3))
        body = _ast.Binary("//", _ast.Binary("-", a.node, _ast.Name("i")), _ast.IntLit(-2))
        terms = [_floor_corners(_op("-", a, _lit(i)), -2, -2) for i in range(n + 1)]
        total = _ast.Quantifier("sum", (_ast.Binder(_ast.Ident("i"), _ast.RangeDomain(
            _ast.IntLit(0), _ast.IntLit(n))),), body)
        return _IntExpr(total, sum(t[0] for t in terms), sum(t[1] for t in terms))
    # a guard chain: an inner test at or one step past the outer guard's constant
    outer, inner = _guard_chain(draw, a, start(a))
    return _if(outer, _if(inner, _lit(2), _lit(1)), _lit(0))


_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _comparison(draw, op: str, a: _IntExpr, k: int) -> _ast.Expr:
    """``a op k``, written as it is or with the constant on the left (``k op' a``, same meaning)."""
    if draw(st.booleans()):
        return _ast.Binary(op, a.node, _ast.IntLit(k))
    return _ast.Binary(_MIRRORED[op], _ast.IntLit(k), a.node)


def _guard_chain(draw, a: _IntExpr, near: int | None) -> tuple[_ast.Expr, _ast.Expr]:
    """Two tests of ``a``: a guard that bounds it on one side, then a test at the edge the guard
    leaves (one step either side of it too), which the guard's fact decides or not: where an
    optimiser that reads the fact one step too far, or mirrors a comparison the wrong way, errs."""
    if near is None:
        k = draw(st.integers(a.lo, a.hi))
    else:
        k = min(max(near + draw(st.integers(-1, 1)), a.lo), a.hi)
    op = ("<", "<=", ">", ">=")[draw(st.integers(0, 3))]
    edge = {">=": k, ">": k + 1, "<=": k, "<": k - 1}[op]
    test = ("<", "<=", ">", ">=", "==", "!=")[draw(st.integers(0, 5))]
    return (_comparison(draw, op, a, k),
            _comparison(draw, test, a, edge + draw(st.integers(-1, 1))))


def probe_condition(draw, atom, start=lambda e: None) -> _ast.Expr:
    """A condition probe over the state; ``atom()`` draws a state expression, ``start(e)`` is
    its initial value if known (guards test near it)."""
    kind = draw(st.integers(0, 3))
    a = atom()
    ops = ("<", "<=", ">", ">=", "==", "!=")
    if kind == 0:       # a constant on the left (the compiler mirrors it)
        op = ops[draw(st.integers(0, len(ops) - 1))]
        return _ast.Binary(op, _ast.IntLit(draw(st.integers(a.lo - 1, a.hi + 1))), a.node)
    if kind == 1:       # a quantifier that folds to a constant, joined to a state test
        c = draw(st.integers(-1, 4))
        quantified = _ast.Quantifier(("any", "all")[draw(st.integers(0, 1))], (_ast.Binder(
            _ast.Ident("i"), _ast.RangeDomain(_ast.IntLit(0), _ast.IntLit(2))),),
            _ast.Binary(ops[draw(st.integers(0, 3))], _ast.Name("i"), _ast.IntLit(c)))
        test = _ast.Binary(">=", a.node, _ast.IntLit(draw(st.integers(a.lo, a.hi))))
        return _ast.Binary(("and", "or")[draw(st.integers(0, 1))], quantified, test)
    # a guard chain on one expression: "a >= k" (say) and then a test at k - 1, k or k + 1
    first, second = _guard_chain(draw, a, start(a))
    if draw(st.integers(0, 3)) == 0:
        second = _ast.Unary("not", second)
    return _ast.Binary("and", first, second)


# ==== games that can repeat a position ============================================================
#
# Two generators of two-player constant-sum games with cycles, for the strong solver (the tree
# solvers cannot take them): ``cyclic_graphs()``, explicit graphs of a few positions, any shape
# (with chance, plays that may never end, a declared value for endless play), each also written
# as a rule file; and ``cyclic_rule_games()``, small rule files of counters that go up and down,
# so positions repeat the way they do in real rule files. Both print as rule files, and what a
# failure shows is that text.

_ENDLESS_CHOICES = {
    # player 0's utility for endless play, by the kind of utilities: the equal share first
    # (`when endless draw`), then values at an end, between ends and outside them
    "margins": (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-3, 2),
                Fraction(2), Fraction(-2)),
    "win-lose": (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2)),
    "constant-sum": (Fraction(1, 2), Fraction(0), Fraction(1), Fraction(1, 3)),
}
_OUTCOMES = {"margins": (tuple(range(-2, 3)), 0), "win-lose": ((-1, 1), 0),
             "constant-sum": ((0, 1), 1)}
OUTCOME_KINDS = tuple(_OUTCOMES)


def _rational(v: Fraction) -> str:
    v = Fraction(v)
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _endless_lines(endless: Fraction | None, total: int) -> list[str]:
    if endless is None:
        return []
    if endless * 2 == total:
        return ["when endless draw"]
    return [f"when endless ({_rational(endless)}, {_rational(total - endless)})"]


def _sum_line(total: int) -> str:
    return "zero-sum" if total == 0 else f"constant-sum {total}"


class GeneratedGraph:
    """A two-player constant-sum game given as an explicit graph, cycles allowed: node ``s`` is
    a decision of player ``kinds[s]`` (0 or 1), a chance node (CHANCE) or an end (TERMINAL); the
    start is node 0, a decision. A decision's actions ``move(0)``, ``move(1)``, ... lead to
    ``moves[s]`` (two may lead to the same node); a chance node's outcomes ``r=0``, ``r=1``, ...
    to ``moves[s]`` with probabilities proportional to ``weights[s]``; an end gives player 0
    ``payoff[s]`` and player 1 ``total - payoff[s]``. ``endless``: player 0's utility for a play
    that never ends, where declared.

    States are the node numbers. ``text`` is the same game as a rule file (the node in a
    variable, the moves and probabilities in tables) and ``load(backend)`` builds it, so the
    graphs go through the front end and every back end too; its positions are not numbered the
    same (a chance node is the state after the move into it), but every value is the same."""

    def __init__(self, kinds, moves, weights, payoff, total: int = 0, endless=None,
                 name: str = "generated graph"):
        self.kinds, self.moves = tuple(kinds), tuple(tuple(m) for m in moves)
        self.weights = tuple(tuple(w) for w in weights)
        self.payoff, self.total = tuple(payoff), total
        self.endless = None if endless is None else Fraction(endless)
        self.info = GameInfo(
            name=name, players=("P0", "P1"), has_chance=CHANCE in self.kinds,
            sum_kind=ZERO_SUM if total == 0 else CONSTANT_SUM,
            utility_sum=None if total == 0 else total,
            endless_value=None if endless is None else (_plain(self.endless),
                                                        _plain(total - self.endless)))
        self._games: dict = {}

    # ---- the protocol
    def initial_state(self) -> int:
        return 0

    def current_player(self, state: int) -> int:
        return self.kinds[state]

    def legal_actions(self, state: int) -> tuple:
        return tuple(("move", k) for k in range(len(self.moves[state])))

    def chance_outcomes(self, state: int) -> tuple:
        whole = sum(self.weights[state])
        return tuple((("r", k), Fraction(w, whole)) for k, w in enumerate(self.weights[state]))

    def apply(self, state: int, action) -> int:
        return self.moves[state][action[1]]

    def returns(self, state: int) -> tuple:
        u = self.payoff[state]
        return (u, self.total - u)

    def action_name(self, action) -> str:
        kind, k = action
        return f"move({k})" if kind == "move" else f"r={k}"

    def is_quiet(self, state: int) -> bool:
        return True

    # ---- as a rule file
    @property
    def text(self) -> str:
        from gdl.lang.format import format_text
        codes = [2 if k == CHANCE else 3 if k == TERMINAL else k for k in self.kinds]
        width = max(1, max(len(m) for m in self.moves))

        def table(rows) -> str:
            return "[" + ", ".join("[" + ", ".join(map(str, list(r) + [0] * (width - len(r))))
                                   + "]" for r in rows) + "]"

        has_chance = 2 in codes
        lines = [f'game "{self.info.name}"', "players P0, P1",
                 f"const kind = [{', '.join(map(str, codes))}]",
                 f"const degree = [{', '.join(str(len(m)) for m in self.moves)}]",
                 f"const succ = {table(self.moves)}",
                 f"const pay = [{', '.join(map(str, self.payoff))}]"]
        if has_chance:
            lines += [f"const weight = {table(self.weights)}",
                      f"const weights = [{', '.join(str(sum(w) or 1) for w in self.weights)}]"]
        lines.append(f"var at in 0..{len(self.kinds) - 1} = 0")
        if self.kinds[0] == 1:
            lines.append("init { next P1 }")
        effect = ["at = succ[at][k];"]
        if has_chance:
            outcomes = ", ".join(f"{r}: weight[at][{r}] / weights[at]" for r in range(width))
            effect.append(f"if kind[at] == 2 {{ random r in {{{outcomes}}}; at = succ[at][r] }}")
        effect.append("if kind[at] == 1 { next P1 } else { next P0 }")
        lines += [f"action move(k in 0..{width - 1})", "    requires k < degree[at]",
                  "    effect " + " ".join(effect),
                  "terminal kind[at] == 3", "utility P0 = pay[at]", _sum_line(self.total)]
        lines += _endless_lines(self.endless, self.total)
        return format_text("\n".join(lines) + "\n", "<generated>")

    def load(self, backend: str = "interpret"):
        """The rule file's game, built by ``backend``."""
        if backend not in self._games:
            from gdl.backends.load import loads

            self._games[backend] = loads(self.text, "<generated>", backend=backend)
        return self._games[backend]

    def __repr__(self) -> str:
        parts = []
        for s, kind in enumerate(self.kinds):
            if kind == TERMINAL:
                parts.append(f"{s}: end {self.payoff[s]}")
            elif kind == CHANCE:
                parts.append(f"{s}: ?[" + ", ".join(f"{t} {w}" for t, w in
                                                    zip(self.moves[s], self.weights[s])) + "]")
            else:
                parts.append(f"{s}: P{kind}{list(self.moves[s])}")
        tail = "" if self.endless is None else f"; endless {_rational(self.endless)}"
        return f"GeneratedGraph({'; '.join(parts)}; sum {self.total}{tail})"


def _plain(v: Fraction) -> Value:
    return v.numerator if v.denominator == 1 else v


@st.composite
def cyclic_graphs(draw, chance: bool | None = False, stopping: bool = False,
                  endless: bool | None = None, outcomes: str | None = None,
                  max_deciders: int = 5) -> GeneratedGraph:
    """Small explicit graphs with cycles (most of them): 1 to ``max_deciders`` decision nodes
    of either player (node 0 among them), 1 to 3 chance nodes with ``chance`` (None: drawn), 1
    to 3 ends. A decision has 1 to 3 moves to any node; a chance node 1 to 3 outcomes (weights
    1 to 3) to decisions or ends. With ``stopping`` (and chance), every decision leads to a
    chance node and every chance node may end the game, so every play ends with probability 1;
    without it the players may be able to keep a play going for ever. ``outcomes``: the ends'
    utilities, "margins" (-2..2, zero-sum), "win-lose" (±1, zero-sum) or "constant-sum" (0 or
    1, summing to 1); None: drawn. ``endless``: whether the game declares a value for endless
    play (None: drawn), drawn among the equal share, values at an end, between ends and beyond
    them. Everything shrinks towards fewer nodes, fewer moves and no declaration."""
    kind_name = OUTCOME_KINDS[draw(st.integers(0, len(OUTCOME_KINDS) - 1))] \
        if outcomes is None else outcomes
    values, total = _OUTCOMES[kind_name]
    has_chance = draw(st.booleans()) if chance is None else chance
    deciders = draw(st.integers(1, max_deciders))
    chances = draw(st.integers(1, 3)) if has_chance else 0
    ends = draw(st.integers(1, 3))
    kinds = [draw(st.integers(0, 1)) for _ in range(deciders)] + [CHANCE] * chances \
        + [TERMINAL] * ends
    chance_ids = list(range(deciders, deciders + chances))
    end_ids = list(range(deciders + chances, len(kinds)))
    targets = chance_ids if has_chance and stopping else list(range(len(kinds)))
    settle = list(range(deciders)) + end_ids          # where chance leads
    moves: list[list[int]] = []
    weights: list[list[int]] = []
    payoff = [0] * len(kinds)

    def pick(pool):
        return pool[draw(st.integers(0, len(pool) - 1))]

    for s, kind in enumerate(kinds):
        if kind == TERMINAL:
            payoff[s] = pick(values)
            moves.append([])
            weights.append([])
        elif kind == CHANCE:
            out = [pick(end_ids)] if stopping else []
            out += [pick(settle) for _ in range(draw(st.integers(0 if out else 1, 3 - len(out))))]
            moves.append(out)
            weights.append([draw(st.integers(1, 3)) for _ in out])
        else:
            moves.append([pick(targets) for _ in range(draw(st.integers(1, 3)))])
            weights.append([])
    # every decision and chance node reachable from the start (so the graphs are as big as
    # drawn): each one is also the target of a move of an earlier node that can lead to it
    kept = {(s, 0) for s in chance_ids} if stopping else set()   # a stopping game's ends

    def lead(node: int, pool: list[int]) -> None:
        source = pool[draw(st.integers(0, len(pool) - 1))]
        if node in moves[source]:
            kept.add((source, moves[source].index(node)))
            return
        free = [i for i in range(len(moves[source])) if (source, i) not in kept]
        if free:        # replace a move that no earlier node needs
            at = free[draw(st.integers(0, len(free) - 1))]
            moves[source][at] = node
        else:
            at = len(moves[source])
            moves[source].append(node)
            if kinds[source] == CHANCE:
                weights[source].append(draw(st.integers(1, 3)))
        kept.add((source, at))

    for c in chance_ids:                       # chance nodes are entered by decisions only
        lead(c, list(range(deciders)))
    for d in range(1, deciders):
        lead(d, chance_ids if has_chance and stopping else list(range(d)))
    declared = None
    if draw(st.booleans()) if endless is None else endless:
        declared = pick(_ENDLESS_CHOICES[kind_name])
    # only the nodes the start reaches, numbered in their order: the same game, read at a glance
    order = [0]
    for s in order:
        order += [t for t in dict.fromkeys(moves[s]) if t not in order]
    order.sort()            # node 0 stays the start; the order of kinds is kept
    number = {s: i for i, s in enumerate(order)}
    return GeneratedGraph([kinds[s] for s in order], [[number[t] for t in moves[s]] for s in order],
                          [weights[s] for s in order], [payoff[s] for s in order], total, declared)


@_dataclass
class GeneratedCyclicRules:
    """A generated rule file that can repeat positions: its text, and the game built from it."""

    text: str
    _games: dict = _field(default_factory=dict, repr=False, compare=False)

    def load(self, backend: str = "interpret"):
        """The game, built by ``backend`` ("interpret", "compile" or "native")."""
        if backend not in self._games:
            from gdl.backends.load import loads

            self._games[backend] = loads(self.text, "<generated>", backend=backend)
        return self._games[backend]

    @property
    def game(self):
        return self.load("interpret")

    def __repr__(self) -> str:
        return "GeneratedCyclicRules(\n" + self.text + ")"


@st.composite
def cyclic_rule_games(draw, chance: bool | None = None, endless: bool | None = None,
                      outcomes: str | None = None) -> GeneratedCyclicRules:
    """Small two-player rule files whose positions repeat: a counter ``x`` that actions move up
    and down (taken modulo its range, or held in it with ``min``/``max``), perhaps a second one
    ``y`` and a flag ``f``, actions restricted to a player (``by``) or a condition, effects with
    ``if``/``else``, ``next mover`` (an extra turn) and, with ``chance`` (None: drawn), a
    ``random`` event; a terminal condition, utilities of the kind ``outcomes`` ("margins",
    "win-lose", "constant-sum"; None: drawn), and perhaps (``endless``, None: drawn) `when
    endless draw` or `when endless (u, v)`. Nothing bounds the length of a play, and the first
    action is open to both players always, so nobody is ever stuck. With chance the game stays
    small (one counter, few moves) so that a brute force over strategy profiles can check it."""
    def pick(options):
        options = tuple(options)
        return options[draw(st.integers(0, len(options) - 1))]

    kind_name = pick(OUTCOME_KINDS) if outcomes is None else outcomes
    _, total = _OUTCOMES[kind_name]
    has_chance = draw(st.booleans()) if chance is None else chance
    top = draw(st.integers(1, 2 if has_chance else 3))          # x in 0..top
    tops = {"x": top}
    if not has_chance and draw(st.booleans()):
        tops["y"] = draw(st.integers(1, 2))
    has_flag = not has_chance and draw(st.booleans())
    names = list(tops)

    def number(name: str) -> int:
        return draw(st.integers(0, tops[name]))

    def condition(depth: int = 0) -> str:
        kinds = ["compare", "compare", "mover"] + (["flag"] if has_flag else []) \
            + (["and", "or"] if depth == 0 else [])
        kind = pick(kinds)
        if kind == "compare":
            name = pick(names)
            return f"{name} {pick(['==', '!=', '<=', '>=', '<', '>'])} {number(name)}"
        if kind == "mover":
            return f"mover {pick(['==', '!='])} {pick(['P0', 'P1'])}"
        if kind == "flag":
            return pick(["f", "not f"])
        return f"({condition(1)}) {kind} ({condition(1)})"

    def step(name: str, amount: str) -> str:
        """``name`` moved by ``amount``, staying in its range."""
        size = tops[name] + 1
        how = pick(["wrap up", "wrap down", "up", "down"])
        if how == "wrap up":
            return f"{name} = ({name} + {amount}) % {size}"
        if how == "wrap down":
            return f"{name} = ({name} + {size} - {amount}) % {size}"
        if how == "up":
            return f"{name} = min({name} + {amount}, {tops[name]})"
        return f"{name} = max({name} - {amount}, 0)"

    def statement(depth: int = 0) -> str:
        kinds = ["step", "step", "set"] + (["flag"] if has_flag else []) \
            + (["if", "extra turn"] if depth == 0 else [])
        kind = pick(kinds)
        if kind == "step":
            return step(pick(names), str(draw(st.integers(1, 2))))
        if kind == "set":
            name = pick(names)
            return f"{name} = {number(name)}"
        if kind == "flag":
            return pick(["f = not f", f"f = {condition(1)}"])
        if kind == "extra turn":
            return f"if {condition(1)} {{ next mover }}"
        otherwise = f" else {{ {statement(1)} }}" if draw(st.booleans()) else ""
        return f"if {condition(1)} {{ {statement(1)} }}{otherwise}"

    def chance_event() -> list[str]:
        if draw(st.booleans()):
            low = draw(st.integers(0, 1))
            event = f"random r in {low}..{low + 1}"
        else:
            first = draw(st.integers(1, 3))
            event = f"random r in {{0: {first}/4, 1: {4 - first}/4}}"
        return [event, step("x", "r")]

    lines = ['game "generated cyclic"', "players P0, P1"]
    lines += [f"var {name} in 0..{tops[name]} = {number(name)}" for name in names]
    if has_flag:
        lines.append("var f in bool = false")
    widest = draw(st.integers(1, 2))
    first = [step("x", "k")] + ([statement()] if draw(st.booleans()) else [])
    events = 0
    if has_chance and draw(st.booleans()):
        first += chance_event()
        events += 1
    lines.append(f"action a0(k in 1..{widest}) effect {'; '.join(first)}")
    for index in range(1, draw(st.integers(1, 2 if has_chance else 3)) + 1):
        header = f"action a{index}"
        if draw(st.booleans()):
            header += f" by {pick(['P0', 'P1'])}"
        if draw(st.booleans()):
            header += f" requires {condition()}"
        body = [statement() for _ in range(draw(st.integers(1, 2)))]
        if has_chance and (events == 0 or draw(st.booleans())):
            body += chance_event()
            events += 1
        lines.append(f"{header} effect {'; '.join(body)}")
    start = int(lines[2].rsplit("=", 1)[1])                   # x's initial value
    end = pick([c for c in range(top + 1) if c != start])      # so the start is not an end
    terminal = [f"x == {end}", f"x == {end} and ({condition(1)})", f"x == {end} or ({condition(1)})"]
    lines.append(f"terminal {pick(terminal)}")
    if kind_name == "margins":
        base = pick(["x - {c}", "{c} - x", "x - y" if "y" in tops else "x - {c}",
                     "(x + 1) * (1 if mover == P0 else -1)"]).format(c=number("x"))
        lines.append(f"utility P0 = max(-2, min(2, {base}))")
    elif kind_name == "win-lose":
        lines.append(f"utility P0 = 1 if {condition()} else -1")
    else:
        lines.append(f"utility P0 = 1 if {condition()} else 0")
    lines.append(_sum_line(total))
    if draw(st.booleans()) if endless is None else endless:
        lines += _endless_lines(pick(_ENDLESS_CHOICES[kind_name]), total)
    from gdl.lang.format import format_text

    return GeneratedCyclicRules(format_text("\n".join(lines) + "\n", "<generated>"))
