"""Hypothesis strategies for small games in the rule language that are valid by construction.

``rule_games()`` draws games that pass the checker, never fail at run time and are solved in
milliseconds; ``transposition_games()`` draws games whose positions are reached by many move
orders. Both are built as syntax trees (``gdl.lang.ast``), printed by the formatter and parsed
back, and yield a ``GeneratedRules``. For solver agreement (tests/test_agreement.py, `gdl fuzz`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import strategies as st

from gdl.generators.intervals import (
    Draw,
    IntExpr,
    arith,
    call,
    clamp,
    divide,
    if_else,
    literal,
    probe_condition,
    probe_value,
    variable,
)
from gdl.lang import ast
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, ZERO_SUM

T = TypeVar("T")


@dataclass
class GeneratedRules:
    """A generated rule file: its syntax tree, its canonical text (what a failure shows), and the
    bounds the generator proved for its utilities and evaluations."""

    tree: ast.GameFile
    text: str
    utility_range: tuple[int, int]
    # every move adds one to a state variable, so a position's distance from the root is the
    # same along every path: a transposition table stays exact under a depth limit
    depth_in_state: bool = False
    _games: dict = field(default_factory=dict, repr=False, compare=False)

    def load(self, backend: str = "interpret") -> Any:
        """The game, built by ``backend`` ("interpret" or, when gdl.backends.compiler exists, "compile")."""
        if backend not in self._games:
            from gdl.backends.load import loads

            self._games[backend] = loads(self.text, "<generated>", backend=backend)
        return self._games[backend]

    @property
    def game(self) -> Any:
        return self.load("interpret")

    def __repr__(self) -> str:
        return "GeneratedRules(\n" + self.text + ")"


_PLAYER_NAMES = ("P0", "P1", "P2", "P3")
_LIGHTS = ("red", "amber", "green")       # the symbols of the full language's `light`
# `u in 0..2, v in u..2`: binders whose second range starts at the first (the pairs u <= v)
_PAIRS = (ast.Binder(ast.Ident("u"), ast.RangeDomain(ast.IntLit(0), ast.IntLit(2))),
          ast.Binder(ast.Ident("v"), ast.RangeDomain(ast.Name("u"), ast.IntLit(2))))


@st.composite
def rule_games(draw: Draw, players: int | Sequence[int] = (2, 3), *, chance: bool | None = None,
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
    game = _RuleGame(draw, players, chance, sum_kinds, evaluate, bounds, second_edition, probes,
                     full_language)
    actions, per_move = game.actions()
    length = game.length(per_move, max_nodes)
    stuck = game.stuck(actions, length)
    define = game.define()
    utilities, evaluations, lo, hi, total = game.utilities(stuck)
    decls = game.state_declarations(length) + ([define[0]] if define is not None else [])
    init, root_chance = game.init_block()
    decls += init + actions
    end: ast.Expr = ast.Binary("==", ast.Name("moves"), ast.IntLit(length))
    if draw(st.booleans()):
        end = ast.Binary("or", end, game.condition())
    decls.append(ast.TerminalDecl(end))
    decls += [ast.UtilityDecl(ast.Ident(p), e) for p, e in utilities]
    if game.sum_kind == ZERO_SUM:
        decls.append(ast.SumDecl("zero-sum", 0))
    elif game.sum_kind == CONSTANT_SUM:
        decls.append(ast.SumDecl("constant-sum", total))
    decls += [ast.EvaluateDecl(ast.Ident(p), e) for p, e in evaluations]
    if game.declare_bounds:
        decls.append(ast.UtilityBoundsDecl(ast.RangeDomain(ast.IntLit(lo), ast.IntLit(hi))))
    if draw(st.booleans()):
        plies = length * (2 if game.has_chance else 1) + root_chance
        decls.append(ast.LengthDecl(ast.IntLit(plies)))
    if stuck is not None:
        decls.append(ast.StuckDecl(ast.Ident(stuck)))
    parsed, text = _read_back(ast.GameFile(tuple(decls)))
    # every action adds one to `moves`; a chance event adds none (but alpha-beta, which keeps a
    # table under a depth limit, runs only without chance)
    return GeneratedRules(parsed, text, (lo, hi), depth_in_state=not game.has_chance)


def _read_back(tree: ast.GameFile) -> tuple[ast.GameFile, str]:
    """The file's canonical text, and the tree parsed back from it (the same tree)."""
    from gdl.lang.format import format_file
    from gdl.lang.parse import parse

    text = format_file(tree)
    parsed = parse(text, "<generated>")
    if parsed != tree:  # the formatter's round trip is part of the contract
        raise AssertionError(f"generated rule file does not read back:\n{text}")
    return parsed, text


class _RuleGame:
    """The choices of one ``rule_games`` draw, and the parts of the file drawn from them.

    Each part is a method, and ``rule_games`` calls them in the order in which the draws have
    always been made: the same seed keeps drawing the same games (tests pin some of them)."""

    def __init__(self, draw: Draw, players: int | Sequence[int], chance: bool | None,
                 sum_kinds: Sequence[str], evaluate: bool | None, bounds: bool | None,
                 second_edition: bool, probes: bool, full_language: bool):
        self.draw = draw
        self.second_edition = second_edition or full_language
        self.full_language = full_language
        self.probes = probes
        counts = (players,) if isinstance(players, int) else tuple(players)
        self.n = self.pick(counts)
        self.names = _PLAYER_NAMES[:self.n]
        self.sum_kind = self.pick(tuple(sum_kinds))
        self.has_chance: bool = draw(st.booleans()) if chance is None else chance
        self.has_evaluate: bool = draw(st.booleans()) if evaluate is None else evaluate
        self.declare_bounds: bool = draw(st.booleans()) if bounds is None else bounds
        self._draw_state()
        self._define: tuple[ast.DefineDecl, IntExpr] | None = None

    def pick(self, options: Sequence[T]) -> T:
        # an index, not sampled_from: hypothesis labels sampled_from by hashing its elements,
        # and strings and functions hash differently from process to process, which would make
        # the same seed generate different games
        options = tuple(options)
        return options[self.draw(st.integers(0, len(options) - 1))]

    def _draw_state(self) -> None:
        draw = self.draw
        # (name, lo, hi) of the int variables
        self.variables: list[tuple[str, int, int]] = []
        for index in range(draw(st.integers(1, 3))):
            lo = draw(st.integers(-2, 0))
            hi = lo + draw(st.integers(1, 4))
            self.variables.append((f"x{index}", lo, hi))
        self.inits: list[int] = [draw(st.integers(lo, hi)) for _, lo, hi in self.variables]
        self.score_max: int = self.pick([0, 3])           # 0: no per-player score array
        self.has_flag: bool = draw(st.booleans())
        self.table: tuple[int, ...] | None = None
        if self.variables[0][1] == 0 and draw(st.booleans()):
            self.table = tuple(draw(st.integers(-3, 3)) for _ in range(self.variables[0][2] + 1))
        # second edition: a map from the players to numbers, read as `bonus[mover]`
        self.bonus: tuple[int, ...] | None = None
        if self.second_edition and draw(st.integers(0, 3)) == 0:
            self.bonus = tuple(draw(st.integers(-2, 2)) for _ in self.names)
        # full language: a symbol variable `light`, read through a map from symbols `worth[light]`
        self.worth: tuple[int, ...] | None = tuple(draw(st.integers(-2, 2)) for _ in _LIGHTS) \
            if self.full_language and draw(st.booleans()) else None
        # full language: `define upto(m) = count v in 0..m: v <= x?`, a range from a define parameter
        self.upto: int | None = draw(st.integers(0, len(self.variables) - 1)) \
            if self.full_language and draw(st.booleans()) else None

    # ---- expressions and statements

    def int_atom(self) -> IntExpr:
        draw, pick, names = self.draw, self.pick, self.names
        choices = [("var", i) for i in range(len(self.variables))] + [("lit", 0)]
        if self.score_max:
            choices.append(("score", 0))
        if self.worth is not None:
            choices.append(("worth", 0))
        kind, i = pick(choices)
        if kind == "var":
            return variable(*self.variables[i])
        if kind == "worth" and self.worth is not None:
            return IntExpr(ast.Index(ast.Name("worth"), ast.Name("light")), min(self.worth),
                           max(self.worth))
        if kind == "score":
            who = pick(("mover",) + names)
            index: ast.Expr = ast.Mover() if who == "mover" else ast.Name(who)
            return IntExpr(ast.Index(ast.Name("s"), index), 0, self.score_max)
        return literal(draw(st.integers(-2, 3)))

    def start_value(self, e: IntExpr) -> int | None:
        """The initial value of ``e`` when it is a variable (probes test near it: the states a
        short game reaches are near its start)."""
        for (name, _, _), init in zip(self.variables, self.inits):
            if e.node == ast.Name(name):
                return init
        return None

    def _pool(self, extra: Sequence[IntExpr]) -> list[Callable[[], IntExpr]]:
        """Ways to draw an int expression: a state atom, or one of the local names ``extra``."""
        return [self.int_atom, *[(lambda e=e: e) for e in extra]]

    def condition(self, extra: Sequence[IntExpr] = ()) -> ast.Expr:
        draw, pick, names = self.draw, self.pick, self.names
        if self.probes and draw(st.booleans()):   # over the state: a local's values are known anyway
            return probe_condition(draw, self.int_atom, self.start_value)
        kinds = ["compare", "flag", "mover", "and"] if self.has_flag else ["compare", "mover", "and"]
        if self.full_language:
            kinds += ["member", "pairs"] + (["light"] if self.worth is not None else [])
        kind = pick(kinds)
        if kind == "member":        # `x in lo..hi`, a number between two bounds
            a = pick(self._pool(extra))()
            lo = draw(st.integers(a.lo - 1, a.hi))
            return ast.Member(a.node, None, ast.RangeDomain(
                ast.IntLit(lo), ast.IntLit(lo + draw(st.integers(0, 2)))))
        if kind == "light":         # `light in {red, green}`, a symbol among some
            chosen = draw(st.lists(st.integers(0, len(_LIGHTS) - 1), min_size=1, max_size=2,
                                   unique=True))
            return ast.Member(ast.Name("light"), tuple(ast.Ident(_LIGHTS[i]) for i in chosen),
                              None)
        if kind == "pairs":         # a range from an outer binder: the pairs u <= v
            a = self.int_atom()
            return ast.Quantifier(pick(["any", "all"]), _PAIRS, ast.Binary(
                pick(["<", "<=", "==", "!="]), ast.Binary("+", a.node, ast.Name("u")),
                ast.Name("v")))
        if kind == "flag":
            flag = ast.Name("flag")
            return flag if draw(st.booleans()) else ast.Unary("not", flag)
        if kind == "mover":
            return ast.Binary(pick(["==", "!="]), ast.Mover(), ast.Name(pick(names)))
        if kind == "and":
            return ast.Binary(pick(["and", "or"]), self.condition(extra), self.condition(extra))
        left = pick(self._pool(extra))()
        op = pick(["<", "<=", "==", "!=", ">=", ">"])
        return ast.Binary(op, left.node, literal(draw(st.integers(-1, 3))).node)

    def value(self, extra: Sequence[IntExpr] = ()) -> IntExpr:
        """An int expression of the state (and the local names in ``extra``)."""
        draw, pick = self.draw, self.pick
        pool = self._pool(extra)
        if self.probes and draw(st.integers(0, 3)) == 0:
            return probe_value(draw, self.int_atom, self.start_value)
        kinds = ["atom", "add", "sub", "scale", "minmax", "if"]
        if self.full_language:
            kinds += ["pairs"] + (["upto"] if self.upto is not None else [])
        kind = pick(kinds)
        a = pick(pool)()
        if kind == "atom":
            return a
        if kind == "pairs":     # how many pairs u <= v (a range from an outer binder) pass a test
            body = ast.Binary(pick(["<", "<=", ">="]), ast.Name("v"), a.node)
            return IntExpr(ast.Quantifier("count", _PAIRS, body), 0, 6)
        if kind == "upto":      # a range from a define's parameter: 0..a, empty when a < 0
            return IntExpr(ast.Call(ast.Ident("upto"), (a.node,)), 0, max(0, a.hi + 1))
        if kind in ("add", "sub"):
            return arith("+" if kind == "add" else "-", a, pick(pool)())
        if kind == "scale":
            return arith("*", literal(pick([2, -1, 3])), a)
        if kind == "minmax":
            return call(pick(["min", "max"]), a, pick(pool)())
        return if_else(self.condition(extra), a, pick(pool)())

    def assignment(self, extra: Sequence[IntExpr] = ()) -> ast.Stmt:
        draw, pick = self.draw, self.pick
        kinds = ["var"] + (["score"] if self.score_max else []) + (["flag"] if self.has_flag else [])
        if self.worth is not None:
            kinds.append("light")
        kind = pick(kinds)
        if kind == "light":
            a, b = (ast.Name(_LIGHTS[draw(st.integers(0, len(_LIGHTS) - 1))]) for _ in range(2))
            return ast.Assign(ast.Ident("light"), (), ast.IfExpr(self.condition(extra), a, b))
        if kind == "flag":
            new_flag = ast.Unary("not", ast.Name("flag")) if draw(st.booleans()) \
                else self.condition(extra)
            return ast.Assign(ast.Ident("flag"), (), new_flag)
        if kind == "score":
            target = ast.Index(ast.Name("s"), ast.Mover())
            added = arith("+", IntExpr(target, 0, self.score_max), self.value(extra))
            return ast.Assign(ast.Ident("s"), (ast.Mover(),),
                              clamp(added, 0, self.score_max).node)
        name, lo, hi = self.variables[draw(st.integers(0, len(self.variables) - 1))]
        new = self.value(extra)
        node: ast.Expr
        if lo == 0 and not (new.lo >= 0 and new.hi <= hi) and draw(st.booleans()):
            node = ast.Binary("%", new.node, ast.IntLit(hi + 1))
        else:
            node = clamp(new, lo, hi).node
        return ast.Assign(ast.Ident(name), (), node)

    def statements(self, extra: Sequence[IntExpr], depth: int = 0) -> list[ast.Stmt]:
        draw, pick = self.draw, self.pick
        out: list[ast.Stmt] = []
        for _ in range(draw(st.integers(0, 2))):
            kind = pick(["assign", "if", "turn"] if depth == 0 else ["assign"])
            if kind == "assign":
                out.append(self.assignment(extra))
            elif kind == "if":
                then = tuple(self.statements(extra, depth + 1)) or (ast.Pass(),)
                otherwise = tuple(self.statements(extra, depth + 1)) if draw(st.booleans()) \
                    else None
                out.append(ast.If(self.condition(extra), then, otherwise or None))
            else:
                who = pick(("mover",) + self.names)
                player: ast.Expr = ast.Mover() if who == "mover" else ast.Name(who)
                out.append(ast.If(self.condition(extra), (ast.Next(player),), None))
        return out

    # ---- actions

    def actions(self) -> tuple[list[ast.Decl], int]:
        """The actions, and how many children a position has at most (ground actions times
        chance outcomes)."""
        actions: list[ast.Decl] = []
        ground = 0
        fan_out = 1
        for index in range(self.draw(st.integers(1, 3))):
            action, width, chances = self.action(index)
            actions.append(action)
            ground += width
            fan_out = max(fan_out, chances)
        return actions, ground * fan_out

    def action(self, index: int) -> tuple[ast.ActionDecl, int, int]:
        """Action ``a<index>``, its number of ground actions, and its number of chance outcomes."""
        draw, names = self.draw, self.names
        params: tuple[ast.Binder, ...] = ()
        guards: tuple[ast.Expr | None, ...] = ()
        extra: list[IntExpr] = []
        width = 1
        if index == 0 or draw(st.booleans()):
            k_hi = draw(st.integers(1, 2))
            params = (ast.Binder(ast.Ident("k"), ast.RangeDomain(ast.IntLit(0),
                                                                 ast.IntLit(k_hi))),)
            extra.append(variable("k", 0, k_hi))
            width = k_hi + 1
            if self.full_language and index > 0 and draw(st.booleans()):
                # a second parameter ranging from the first (`j in k..2`), and guards that read
                # the state and the parameters so far (the first action stays unguarded: it
                # keeps a move open to every player)
                params += (ast.Binder(ast.Ident("j"), ast.RangeDomain(ast.Name("k"),
                                                                      ast.IntLit(2))),)
                width = sum(3 - k for k in range(k_hi + 1))
                guards = (self.condition() if draw(st.booleans()) else None,
                          self.condition(extra + [variable("j", 0, 2)]) if draw(st.booleans())
                          else None)
                extra.append(variable("j", 0, 2))
        by = requires = None
        if index > 0:
            if draw(st.booleans()):
                # indices, not names: a unique list of strings would depend on string hashing,
                # which differs from process to process, and the same seed must give the same game
                by = tuple(ast.Ident(names[i]) for i in draw(st.lists(
                    st.integers(0, self.n - 1), min_size=1, max_size=self.n, unique=True)))
            if draw(st.booleans()):
                requires = self.condition(extra)
        effect, chances = self.effect(index, extra)
        action = ast.ActionDecl(ast.Ident(f"a{index}"), params, by, requires, tuple(effect),
                                guards=guards if any(g is not None for g in guards) else ())
        return action, width, chances

    def effect(self, index: int, extra: list[IntExpr]) -> tuple[list[ast.Stmt], int]:
        """An action's effect (``extra``: its parameters), and its number of chance outcomes."""
        draw = self.draw
        effect: list[ast.Stmt] = [ast.Assign(ast.Ident("moves"), (),
                                             ast.Binary("+", ast.Name("moves"), ast.IntLit(1)))]
        if index == 0:
            # the contest: the first player pushes x0 up by k, the others push it down
            name0, lo0, hi0 = self.variables[0]
            k = extra[0]
            step = if_else(ast.Binary("==", ast.Mover(), ast.Name(self.names[0])), k,
                           IntExpr(ast.Unary("-", k.node), -k.hi, -k.lo))
            effect.append(ast.Assign(ast.Ident(name0), (), clamp(
                arith("+", variable(name0, lo0, hi0), step), lo0, hi0).node))
        if self.second_edition and draw(st.booleans()):
            # a local name for the rest of the effect, taken before the statements change the state
            held = self.value(extra)
            effect.append(ast.LetStmt(ast.Ident("h"), held.node))
            extra = extra + [IntExpr(ast.Name("h"), held.lo, held.hi)]
        more = self.statements(extra)
        if self.second_edition and more and draw(st.integers(0, 3)) == 0:
            # the statements again until they change nothing, at most twice (every assignment
            # is clamped or taken modulo its domain, so repeating it stays valid)
            more = [ast.Repeat(ast.IntLit(2), tuple(more))]
        effect += more
        chances = 1
        if self.has_chance and draw(st.booleans()):
            chances = self.chance_event(effect, extra)
        return effect, chances

    def chance_event(self, effect: list[ast.Stmt], extra: list[IntExpr]) -> int:
        """Appends a chance event (perhaps two) and what its outcome changes to ``effect``;
        returns the number of outcomes."""
        draw = self.draw
        random: ast.Stmt
        if draw(st.booleans()):
            lo = draw(st.integers(0, 1))
            hi = lo + draw(st.integers(1, 2))
            random = ast.Random(ast.Ident("r"), None,
                                ast.RangeDomain(ast.IntLit(lo), ast.IntLit(hi)))
            outcomes = list(range(lo, hi + 1))
        else:
            outcomes = draw(st.lists(st.integers(-1, 3), min_size=1, max_size=3, unique=True))
            weights = [draw(st.integers(1, 3)) for _ in outcomes]
            whole = sum(weights)
            random = ast.Random(ast.Ident("r"), tuple(
                (ast.IntLit(v), ast.Binary("/", ast.IntLit(w), ast.IntLit(whole))
                 if w != whole else ast.IntLit(1)) for v, w in zip(outcomes, weights)), None)
            lo, hi = min(outcomes), max(outcomes)
        chances = len(outcomes)
        effect.append(random)
        effect += [self.assignment(extra + [variable("r", lo, hi)])
                   for _ in range(draw(st.integers(1, 2)))]
        if draw(st.booleans()):     # a second chance event right after the first
            effect.append(ast.Random(ast.Ident("q"), None,
                                     ast.RangeDomain(ast.IntLit(0), ast.IntLit(1))))
            effect.append(self.assignment(extra + [variable("r", lo, hi), variable("q", 0, 1)]))
            chances *= 2
        return chances

    # ---- length, the stuck rule, utilities

    def length(self, per_move: int, max_nodes: int) -> int:
        """The number of moves: the tree has at most about max_nodes nodes."""
        longest = 1
        while per_move ** (longest + 1) <= max_nodes and longest < 6:
            longest += 1
        length: int = self.draw(st.integers(1, longest))
        return length

    def stuck(self, actions: list[ast.Decl], length: int) -> str | None:
        """When stuck: lose or win (two players), pass (any number), or None; the first action is
        changed so that a player can be stuck."""
        if not (self.full_language and self.draw(st.booleans())):
            return None
        stuck = self.pick(["lose", "win", "pass"] if self.n == 2 else ["pass"])
        # the first action, open to everyone until now, is closed to all but the first player
        # on the last move: a player without another legal action is then stuck
        last_move = ast.Binary("or", ast.Binary("==", ast.Mover(), ast.Name(self.names[0])),
                               ast.Binary("<", ast.Name("moves"), ast.IntLit(length - 1)))
        first = actions[0]
        assert isinstance(first, ast.ActionDecl)
        actions[0] = ast.ActionDecl(first.name, first.params, first.by, last_move, first.effect,
                                    guards=first.guards)
        return stuck

    def define(self) -> tuple[ast.DefineDecl, IntExpr] | None:
        """Perhaps ``define d = ...``, which utilities may read."""
        if self.draw(st.booleans()):
            body = self.value()
            self._define = (ast.DefineDecl(ast.Ident("d"), (), body.node), body)
        return self._define

    def payoff(self, player: int) -> IntExpr:
        draw = self.draw
        # x0 is what the first action fights over: the first player wants it high, the others
        # low (with general-sum, one more player wants it high too)
        name0, lo0, hi0 = self.variables[0]
        x0 = variable(name0, lo0, hi0)
        if player > 0 and not (self.sum_kind == GENERAL_SUM and player == 2):
            x0 = arith("*", literal(-1), x0)
        parts = [x0] + ([self.value()] if draw(st.booleans()) else [])
        if self._define is not None and draw(st.booleans()):
            parts.append(IntExpr(ast.Name("d"), self._define[1].lo, self._define[1].hi))
        if self.table is not None and draw(st.booleans()):
            name = self.variables[0][0]
            parts.append(IntExpr(ast.Index(ast.Name("w"), ast.Name(name)), min(self.table),
                                 max(self.table)))
        if self.bonus is not None and draw(st.booleans()):
            parts.append(IntExpr(ast.Index(ast.Name("bonus"), ast.Mover()), min(self.bonus),
                                 max(self.bonus)))
        result = parts[0]
        for part in parts[1:]:
            result = arith("+", result, part)
        if self.second_edition and draw(st.integers(0, 3)) == 0:   # exact division: rational
            result = divide(result, draw(st.integers(2, 3)))
        return result

    def payoffs(self) -> tuple[list[tuple[str, ast.Expr]], int, int, int]:
        """(player, expression) pairs, their range, and the constant sum (0 if none)."""
        names, n = self.names, self.n
        if self.sum_kind == GENERAL_SUM:
            given = [(p, self.payoff(i)) for i, p in enumerate(names)]
            return ([(p, e.node) for p, e in given], min(e.lo for _, e in given),
                    max(e.hi for _, e in given), 0)
        if self.sum_kind == ZERO_SUM:
            given = [(p, self.payoff(i)) for i, p in enumerate(names[:-1])]
            lo = min(min(e.lo for _, e in given), -sum(e.hi for _, e in given))
            hi = max(max(e.hi for _, e in given), -sum(e.lo for _, e in given))
            return [(p, e.node) for p, e in given], lo, hi, 0
        cap = self.draw(st.integers(1, 4))      # constant-sum: non-negative shares
        given = [(p, clamp(self.payoff(i), 0, cap)) for i, p in enumerate(names[:-1])]
        total = cap * (n - 1)
        return [(p, e.node) for p, e in given], 0, total, total

    def utilities(self, stuck: str | None
                  ) -> tuple[list[tuple[str, ast.Expr]], list[tuple[str, ast.Expr]], int, int, int]:
        """Utilities, evaluations, the range of both, and the constant sum (0 if none)."""
        utilities, lo, hi, total = self.payoffs()
        evaluations: list[tuple[str, ast.Expr]] = []
        if self.has_evaluate:
            evaluations, e_lo, e_hi, e_total = self.payoffs()
            if self.sum_kind == CONSTANT_SUM:       # the evaluation must keep the declared total
                evaluations = [(p, clamp(IntExpr(e, 0, e_total), 0, total // (self.n - 1)).node
                                if e_total != total else e) for p, e in evaluations]
                e_lo, e_hi = 0, total
            lo, hi = min(lo, e_lo), max(hi, e_hi)
        if stuck in ("lose", "win") and self.sum_kind != CONSTANT_SUM:   # stuck gives -1 and 1
            lo, hi = min(lo, -1), max(hi, 1)
        if hi == lo:
            hi = lo + 1
        return utilities, evaluations, lo, hi, total

    # ---- declarations

    def state_declarations(self, length: int) -> list[ast.Decl]:
        """The game, its players, its tables and its state (no draws)."""
        names = self.names
        decls: list[ast.Decl] = [ast.GameDecl("generated"),
                                 ast.PlayersDecl(tuple(ast.Ident(p) for p in names))]
        if self.table is not None:
            decls.append(ast.ConstDecl(ast.Ident("w"),
                                       ast.ListLit(tuple(map(ast.IntLit, self.table)))))
        if self.bonus is not None:
            decls.append(ast.ConstDecl(ast.Ident("bonus"), ast.MapLit(tuple(
                (ast.Ident(p), ast.IntLit(v)) for p, v in zip(names, self.bonus)))))
        decls.append(ast.VarDecl(ast.Ident("moves"), (), ast.RangeDomain(
            ast.IntLit(0), ast.IntLit(length)), ast.IntLit(0)))
        for (name, v_lo, v_hi), init in zip(self.variables, self.inits):
            decls.append(ast.VarDecl(ast.Ident(name), (), ast.RangeDomain(
                ast.IntLit(v_lo), ast.IntLit(v_hi)), ast.IntLit(init)))
        if self.score_max:
            decls.append(ast.VarDecl(ast.Ident("s"), (ast.PlayersDomain(),), ast.RangeDomain(
                ast.IntLit(0), ast.IntLit(self.score_max)), ast.IntLit(0)))
        if self.has_flag:
            decls.append(ast.VarDecl(ast.Ident("flag"), (), ast.BoolDomain(), ast.BoolLit(False)))
        if self.worth is not None:
            decls.append(ast.VarDecl(ast.Ident("light"), (), ast.SymbolDomain(
                tuple(map(ast.Ident, _LIGHTS))), ast.Name(_LIGHTS[0])))
            decls.append(ast.ConstDecl(ast.Ident("worth"), ast.MapLit(tuple(
                (ast.Ident(light), ast.IntLit(v)) for light, v in zip(_LIGHTS, self.worth)))))
        if self.upto is not None:
            decls.append(ast.DefineDecl(ast.Ident("upto"), (ast.Ident("m"),), ast.Quantifier(
                "count", (ast.Binder(ast.Ident("v"), ast.RangeDomain(ast.IntLit(0),
                                                                     ast.Name("m"))),),
                ast.Binary("<=", ast.Name("v"), ast.Name(self.variables[self.upto][0])))))
        return decls

    def init_block(self) -> tuple[list[ast.Decl], int]:
        """Perhaps an ``init`` block (second edition), and 1 when it begins with a chance event
        (one more ply), else 0."""
        draw = self.draw
        if not (self.second_edition and draw(st.booleans())):
            return [], 0
        root_chance = 0
        # set up the start with statements: a variable's value, and perhaps who moves first
        name, v_lo, v_hi = self.variables[draw(st.integers(0, len(self.variables) - 1))]
        start = ast.IntLit(draw(st.integers(v_lo, v_hi)))
        setup: list[ast.Stmt] = [ast.Assign(ast.Ident(name), (), start)]
        if self.full_language and self.has_chance and draw(st.booleans()):
            # chance at the root: the start value is shifted by a coin, so the initial state is
            # a chance node (the shift wraps round the domain, so it stays valid)
            shifted = ast.Binary("+", ast.IntLit(v_lo), ast.Binary("%", ast.Binary(
                "+", ast.Binary("-", start, ast.IntLit(v_lo)), ast.Name("r")),
                ast.IntLit(v_hi - v_lo + 1)))
            setup = [ast.Random(ast.Ident("r"), None, ast.RangeDomain(ast.IntLit(0),
                                                                      ast.IntLit(1))),
                     ast.Assign(ast.Ident(name), (), shifted)]
            root_chance = 1
        if draw(st.booleans()):
            setup.append(ast.Next(ast.Name(self.pick(self.names))))
        return [ast.InitDecl(tuple(setup))], root_chance


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

