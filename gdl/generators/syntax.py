"""Hypothesis strategies for any rule file the grammar can express, meaningful or not.

``syntax_trees()`` draws every kind of declaration, statement and expression, nested at random,
as syntax trees (``gdl.lang.ast``). For the formatter and the front end:
``parse(format_file(tree)) == tree`` must hold for every one of them. (Games that are valid by
construction, for the solvers, are ``gdl.generators.rules``.)
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from hypothesis import strategies as st

from gdl.lang import ast


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Every word of the grammar that a name could be mistaken for (read from the grammar, so it
    stays right when the grammar grows)."""
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


def _idents() -> st.SearchStrategy[ast.Ident]:
    return identifiers().map(ast.Ident)


def _negate(e: ast.Expr) -> ast.Expr:
    # `-3` is a literal to the parser (and `- -3` is 3), so a minus on a literal folds into it.
    if isinstance(e, ast.IntLit):
        return ast.IntLit(-e.value)
    return ast.Unary("-", e)


_OPERATORS = ("+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or")
_QUANTIFIERS = ("any", "all", "count", "sum", "min", "max")


def syntax_expressions(max_leaves: int = 10) -> st.SearchStrategy[ast.Expr]:
    """Any expression the grammar can write: every operator, quantifier, `let`, call, index, list
    and conditional, nested at random (types are not respected)."""
    leaves = st.one_of(
        st.integers(-5, 30).map(ast.IntLit), st.booleans().map(ast.BoolLit),
        identifiers().map(ast.Name), st.just(ast.Mover()))

    def extend(inner: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
        args = st.lists(inner, min_size=0, max_size=3).map(tuple)
        some_args = st.lists(inner, min_size=1, max_size=3).map(tuple)
        return st.one_of(
            st.builds(ast.Binary, st.sampled_from(_OPERATORS), inner, inner),
            inner.map(lambda e: ast.Unary("not", e)),
            inner.map(_negate),
            st.builds(ast.IfExpr, inner, inner, inner),
            st.builds(ast.Call, _idents(), args),
            st.builds(ast.Call, st.sampled_from(["abs", "min", "max"]).map(ast.Ident), some_args),
            st.builds(ast.Index, inner, inner),
            st.builds(ast.ListLit, some_args),
            st.builds(ast.Quantifier, st.sampled_from(_QUANTIFIERS),
                      st.lists(_binders(inner), min_size=1, max_size=2).map(tuple), inner),
            st.builds(ast.Let, st.lists(st.tuples(_idents(), inner), min_size=1,
                                         max_size=2).map(tuple), inner),
            st.builds(lambda v, s: ast.Member(v, s.symbols, None), inner, _symbol_sets()),
            st.builds(lambda v, r: ast.Member(v, None, r), inner, _ranges(inner)),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def _ranges(expr: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.RangeDomain]:
    return st.builds(ast.RangeDomain, expr, expr)


def _symbol_sets() -> st.SearchStrategy[ast.SymbolDomain]:
    return st.lists(_idents(), min_size=1, max_size=3).map(lambda s: ast.SymbolDomain(tuple(s)))


def _binders(expr: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Binder]:
    domain = st.one_of(_ranges(expr), _symbol_sets(), st.just(ast.PlayersDomain()))
    return st.builds(ast.Binder, _idents(), domain)


def syntax_statements(expr: st.SearchStrategy[ast.Expr], max_leaves: int = 6
                      ) -> st.SearchStrategy[tuple[ast.Stmt, ...]]:
    """Statement lists with every kind of statement, blocks nested at random."""
    small = st.lists(expr, min_size=0, max_size=2).map(tuple)
    outcomes = st.lists(st.tuples(expr, expr), min_size=1, max_size=3).map(tuple)
    simple = st.one_of(
        st.builds(ast.Assign, _idents(), small, expr),
        st.just(ast.Pass()),
        st.builds(ast.Next, expr),
        st.builds(lambda n, o: ast.Random(n, o, None), _idents(), outcomes),
        st.builds(lambda n, r: ast.Random(n, None, r), _idents(), _ranges(expr)),
        st.builds(ast.LetStmt, _idents(), expr),
    )

    def extend(block: st.SearchStrategy[tuple]) -> st.SearchStrategy[tuple]:
        compound = st.one_of(
            st.builds(ast.If, expr, block, st.none() | block),
            st.builds(ast.For, st.lists(_binders(expr), min_size=1, max_size=2).map(tuple), block),
        )
        return st.lists(st.one_of(simple, compound), min_size=0, max_size=3).map(tuple)

    return st.recursive(st.lists(simple, min_size=0, max_size=3).map(tuple), extend,
                        max_leaves=max_leaves)


def _syntax_tree_nodes(max_leaves: int = 8) -> st.SearchStrategy[ast.TreeNode]:
    numbers = st.one_of(st.integers(-20, 20).map(Fraction),
                        st.fractions(min_value=-5, max_value=5, max_denominator=7))
    probabilities = st.fractions(min_value=0, max_value=3, max_denominator=9)
    leaves = st.lists(numbers, min_size=1, max_size=3).map(lambda v: ast.TreeLeaf(tuple(v)))

    def extend(node: st.SearchStrategy[ast.TreeNode]) -> st.SearchStrategy[ast.TreeNode]:
        edge = st.tuples(_idents(), node)
        chance_edge = st.builds(ast.ChanceEdge, st.none() | _idents(), probabilities, node)
        return st.one_of(
            st.builds(ast.TreeDecision, _idents(),
                      st.lists(edge, min_size=1, max_size=3).map(tuple)),
            st.lists(chance_edge, min_size=1, max_size=3).map(lambda e: ast.TreeChance(tuple(e))),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def _strings() -> st.SearchStrategy[str]:
    # What a STRING token may hold: anything but a quote, a backslash, a newline or a control
    # character (E230: strings reach terminals). Other separators (\u2028, ...) are worth testing.
    from gdl.errors import is_control

    return st.text(st.characters(blacklist_characters='"\\\n', blacklist_categories=("Cs", "Cc"))
                   .filter(lambda c: not is_control(c)), max_size=8)


def syntax_declarations(expr: st.SearchStrategy[ast.Expr] | None = None
                        ) -> st.SearchStrategy[ast.Decl]:
    """One declaration of any kind."""
    expr = expr if expr is not None else syntax_expressions()
    names = _idents()
    dims = st.lists(st.one_of(expr, st.just(ast.PlayersDomain())), max_size=2).map(tuple)
    var_domain = st.one_of(_ranges(expr), _symbol_sets(), st.just(ast.BoolDomain()),
                           st.just(ast.PlayersDomain()))
    binders = st.lists(_binders(expr), min_size=0, max_size=2).map(tuple)
    by = st.none() | st.lists(names, min_size=1, max_size=2).map(tuple)
    glyph_key = st.one_of(identifiers(), st.integers(-3, 9), st.booleans())
    glyphs = st.lists(st.tuples(glyph_key, _strings()), max_size=3).map(tuple)
    sums = st.one_of(st.just(ast.SumDecl("zero-sum", 0)),
                     st.integers(-9, 99).map(lambda n: ast.SumDecl("constant-sum", n)))
    return st.one_of(
        _strings().map(ast.GameDecl),
        st.lists(names, min_size=1, max_size=3).map(lambda p: ast.PlayersDecl(tuple(p))),
        st.builds(ast.ParamDecl, names, expr),
        st.builds(ast.ConstDecl, names, expr),
        st.builds(ast.ConstDecl, names, st.lists(st.tuples(names, expr), min_size=1, max_size=3)
                  .map(lambda entries: ast.MapLit(tuple(entries)))),
        st.builds(ast.VarDecl, names, dims, var_domain, expr),
        st.builds(ast.ActionDecl, names, binders, by, st.none() | expr,
                  syntax_statements(expr)),
        st.builds(_guarded_action, names, st.lists(st.tuples(_binders(expr), st.none() | expr),
                                                   min_size=1, max_size=2),
                  by, st.none() | expr, syntax_statements(expr)),
        st.builds(ast.DefineDecl, names, st.lists(names, max_size=2).map(tuple), expr),
        st.builds(ast.TerminalDecl, expr),
        st.builds(ast.UtilityDecl, names, expr),
        st.builds(ast.UtilityBoundsDecl, _ranges(expr)),
        sums,
        st.builds(ast.EvaluateDecl, names, expr),
        st.builds(ast.QuietDecl, expr),
        st.builds(ast.LengthDecl, expr),
        st.sampled_from(("pass", "lose", "win")).map(lambda w: ast.StuckDecl(ast.Ident(w))),
        st.builds(ast.DisplayDecl, names, glyphs),
        st.builds(ast.TreeDecl, _syntax_tree_nodes()),
    )


def _guarded_action(name, params, by, requires, effect) -> ast.ActionDecl:
    """An action whose parameters may carry guards (`fc in 0..7 if cell[fr][fc] == mover`)."""
    guards = tuple(guard for _, guard in params)
    return ast.ActionDecl(name, tuple(binder for binder, _ in params), by, requires, tuple(effect),
                           guards=guards if any(g is not None for g in guards) else ())


def syntax_trees(max_declarations: int = 6) -> st.SearchStrategy[ast.GameFile]:
    """Whole files of arbitrary declarations: syntactically valid, meaningless in general."""
    return st.lists(syntax_declarations(), max_size=max_declarations).map(
        lambda d: ast.GameFile(tuple(d)))

