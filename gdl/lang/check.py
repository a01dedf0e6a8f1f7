"""Syntax tree → checked game (gdl.lang.ir). Collects every problem before anything runs.

Each problem is a Diagnostic with a stable code (listed in gdl.errors) and the span of the text
at fault. After an error the checker goes on with a placeholder of type ERROR, which never
causes a second message, so one mistake gives one diagnostic.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, TypeVar

from gdl.errors import Diagnostic, Fix, GdlError, Source, did_you_mean
from gdl.lang import ast, ir
from gdl.lang.ast import NOWHERE, Span
from gdl.lang.evaluate import EvalError, bindings_fn, eval_const
from gdl.lang.grammar import reserved_words
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.lang.sure_indices import check_sure_indices
from gdl.lang.values import show_value
from gdl.protocol import CONSTANT_SUM, ZERO_SUM, distribution_problem

INT, BOOL, SYM, NUM = ir.INT, ir.BOOL, ir.SYM, ir.NUM
ERROR = "error"  # the type of a placeholder for something already reported
# Ranges, arrays and the combinations of a binder list are enumerated when a game is built; a
# larger one is refused (E210) rather than exhausting memory or time.
MAX_VALUES = 1_000_000
START = Span(1, 1, 1, 2)
# A constant is computed from literals and earlier constants, so bounding each one bounds them
# all: `const K2 = K1 * K1` chained forty times would otherwise compute for ever.
MAX_CONSTANT_BITS = 4096
# Definitions calling definitions: each level is a few Python frames in the checker and in
# both back ends, so the chain is bounded where it is written rather than by a RecursionError.
MAX_DEFINE_DEPTH = 48
# Quantifiers nested in one expression multiply: their innermost body runs at most this often.
MAX_QUANTIFIED = 10_000_000

_TYPE_WORDS = {INT: "an integer", BOOL: "a boolean", SYM: "a symbol", NUM: "a rational number",
               ERROR: "an error"}
_NUMBERS = (INT, NUM)
_EXACT = {"+", "-", "*", "/"}   # numbers in, a number out (an integer from integers, but for `/`)
_INTEGRAL = {"//", "%"}         # integers in, an integer out
_ORDERING = {"<", "<=", ">", ">="}
DIVISION_HINT = "`/` divides exactly and gives a rational number; write `//` for floor division"
_SINGLETONS = (ast.GameDecl, ast.PlayersDecl, ast.TerminalDecl, ast.SumDecl, ast.LengthDecl,
               ast.StuckDecl, ast.EndlessDecl, ast.QuietDecl, ast.TreeDecl, ast.UtilityBoundsDecl,
               ast.InitDecl, ast.TierDecl, ast.SimultaneousDecl)
_RULE_DECLS = (ast.VarDecl, ast.ActionDecl, ast.DefineDecl, ast.TerminalDecl, ast.UtilityDecl,
               ast.EvaluateDecl, ast.QuietDecl, ast.StuckDecl, ast.DisplayDecl, ast.InitDecl,
               ast.DisplayMoveDecl, ast.EndlessDecl, ast.TierDecl, ast.SimultaneousDecl, ast.PrivateDecl,
               ast.HiddenDecl)
_KEYWORD_OF = {ast.GameDecl: "game", ast.PlayersDecl: "players", ast.TerminalDecl: "terminal",
               ast.SumDecl: "zero-sum / constant-sum", ast.LengthDecl: "max-length",
               ast.StuckDecl: "when stuck", ast.EndlessDecl: "when endless", ast.QuietDecl: "quiet when",
               ast.TreeDecl: "tree", ast.UtilityBoundsDecl: "utility in", ast.InitDecl: "init",
               ast.TierDecl: "tier", ast.SimultaneousDecl: "simultaneous"}


def check(game_file: ast.GameFile, source: Source | None = None,
          params: Mapping[str, int | bool | str] | None = None) -> ir.Game:
    """Check a parsed file; return the game IR or raise GdlError with every diagnostic."""
    checker = _Checker(game_file, params or {}, source)
    game = checker.run()
    if checker.diagnostics:
        unique = {(d.code, d.span, d.message): d for d in checker.diagnostics}
        raise GdlError(list(unique.values()), source)
    return game


D = TypeVar("D", bound=ast.Decl)


class _Singletons:
    """The first declaration of each kind that may appear once (``_SINGLETONS``), by its type."""

    def __init__(self) -> None:
        self._first: dict[type, ast.Decl] = {}

    def __contains__(self, kind: type) -> bool:
        return kind in self._first

    def __getitem__(self, kind: type[D]) -> D:
        decl = self._first[kind]
        assert isinstance(decl, kind)
        return decl

    def __setitem__(self, kind: type, decl: ast.Decl) -> None:
        self._first[kind] = decl

    def get(self, kind: type[D]) -> D | None:
        decl = self._first.get(kind)
        return decl if isinstance(decl, kind) else None


class _Scope:
    """Local names (parameters, bound variables) and their types."""

    def __init__(self, names: dict[str, str] | None = None, state: bool = True,
                 mover: bool = True, where: str = "init"):
        self.names = names or {}
        self.state = state  # False where only constants may appear
        self.mover = mover  # False in `init` (nobody has moved) and in `then` (several have)
        self.where = where  # which of those, for the message

    def bind(self, more: dict[str, str]) -> _Scope:
        return _Scope({**self.names, **more}, self.state, self.mover, self.where)


def _number_type(*types: str) -> str:
    """The type of arithmetic on these number types: rational if any is."""
    return NUM if NUM in types else INT


class _Checker:
    def __init__(self, game_file: ast.GameFile, overrides: Mapping[str, int | bool | str],
                 source: Source | None = None):
        self.file = game_file
        self.source = source     # for hints that quote the text, where it is known
        self.overrides = dict(overrides)
        self.diagnostics: list[Diagnostic] = []
        self.players: tuple[str, ...] = ()
        self.symbols: list[str] = []
        self.symbol_ids: dict[str, int] = {}
        # Every global name: name -> (kind, payload, span); kinds: player symbol param const var define
        # name -> (kind, what it names, where declared); what it names depends on the kind: a
        # player's or symbol's number, a param's value, a Constant, a Variable, a DefineDecl
        self.globals: dict[str, tuple[str, Any, Span]] = {}
        self.params: dict[str, int | bool] = {}
        self.param_types: dict[str, str] = {}
        self.define_decls: dict[str, ast.DefineDecl] = {}
        self.define_instances: dict[tuple[str, tuple[str, ...]], ir.Define] = {}
        self.defines_in_progress: list[str] = []
        self.random_count = 0
        # names bound by quantifiers and lets already checked, with where they were bound: an
        # unknown name among them is most likely used after its binder's body ended
        self.ended_binders: dict[str, Span] = {}
        # names bound by a quantifier or `let` whose body an `if ... else` cut short (`sum i in
        # 0..2: 1 if a[i] else 0` reads `(sum i in 0..2: 1) if a[i] else 0`), while the rest of
        # that conditional is checked: the hint for an unknown one explains the precedence
        self.cut_by_if: dict[str, tuple[str, Fix | None]] = {}
        self.quantifier_scale = 1   # how many times the quantifiers around here run their body

    # ---- reporting -------------------------------------------------------------------------

    def error(self, code: str, message: str, span: Span, hint: str | None = None,
              notes: Iterable[str] = (), fix: Fix | None = None) -> None:
        # a bad `--set` is a mistake on the command line: no excerpt of the file (errors.py)
        self.diagnostics.append(Diagnostic(code, message, span, hint, tuple(notes),
                                           excerpt=code != "E215", fix=fix))

    def placeholder(self, span: Span) -> ir.Lit:
        return ir.Lit(0, ERROR, span)

    def declare(self, name: ast.Ident, kind: str, payload: object) -> bool:
        if self.reserved(name):
            return False
        if name.name in self.globals:
            previous = self.globals[name.name]
            where = f" (line {previous[2].line})" if previous[2].line else ""
            self.error("E200", f"'{name.name}' is already declared as a {previous[0]}{where}",
                       name.span, hint="give it another name")
            return False
        self.globals[name.name] = (kind, payload, name.span)
        return True

    # ---- the whole file --------------------------------------------------------------------

    def run(self) -> ir.Game:
        decls = self.file.declarations
        seen = _Singletons()
        for decl in decls:
            if isinstance(decl, _SINGLETONS):
                if type(decl) in seen:
                    self.error("E200", f"a second '{_KEYWORD_OF[type(decl)]}' declaration",
                               decl.span, hint=f"the first is on line {seen[type(decl)].span.line}")
                else:
                    seen[type(decl)] = decl
        title_decl = seen.get(ast.GameDecl)
        players_decl = seen.get(ast.PlayersDecl)
        self.declare_players(players_decl)
        self.declare_symbols()
        self.resolve_params_and_consts(decls)
        game = ir.Game(title=title_decl.title if title_decl else "", players=self.players,
                       symbols=(), params=dict(self.params))
        sum_decl = seen.get(ast.SumDecl)
        if sum_decl is not None:
            game.sum_kind = sum_decl.kind
            if sum_decl.kind == ZERO_SUM:
                game.sum_total = 0
            elif isinstance(sum_decl.total, int):
                game.sum_total = sum_decl.total
            else:   # a constant expression: a number
                total = self.constant(sum_decl.total, "the constant sum")
                if total is not None and type(total) not in (int, Fraction):
                    self.error("E203", f"the constant sum must be a number, not {_kind_of(total)}",
                               sum_decl.total.span)
                    total = None
                game.sum_total = total if total is not None else 0
        if ast.LengthDecl in seen:
            bound = seen[ast.LengthDecl].bound
            game.max_length = self.constant_int(bound, "a length bound")
            if game.max_length is not None and game.max_length < 0:
                self.error("E210", "the length bound must be at least 0", bound.span)
        if ast.UtilityBoundsDecl in seen:
            game.utility_bounds = self.bounds(seen[ast.UtilityBoundsDecl])
        if ast.EndlessDecl in seen and ast.TreeDecl not in seen:   # (a tree: E218 below)
            game.endless_values = self.endless_rule(seen[ast.EndlessDecl], game)

        tree_decl = seen.get(ast.TreeDecl)
        if tree_decl is not None:
            for decl in decls:
                if isinstance(decl, _RULE_DECLS):
                    self.error("E218", "an explicit tree cannot be mixed with rules", decl.span,
                               hint="a file is either a `tree` or rules (var, action, terminal, utility)")
            game.tree = ir.TreeSpec(self.tree(tree_decl.root, game))
            game.has_chance = self.tree_has_chance(tree_decl.root)
            game.symbols = tuple(self.symbols)
            return game

        variables = [self.variable(d, slot) for d, slot in self.slots(decls)]
        game.variables = tuple(v for v in variables if v is not None)
        for decl in decls:
            if isinstance(decl, ast.DefineDecl):
                if decl.name.name in self.define_decls or not self.declare(decl.name, "define", decl):
                    continue
                self.define_decls[decl.name.name] = decl
        action_decls = [d for d in decls if isinstance(d, ast.ActionDecl)]
        # (an action with a mistake is left out: the mistake is reported)
        game.actions = tuple(a for d in action_decls if (a := self.action(d)) is not None)
        user_actions = game.actions
        simultaneous = seen.get(ast.SimultaneousDecl)
        then_action = None
        if simultaneous is not None and simultaneous.then is not None:
            # the `then` block is an action nobody takes, run after every joint move (so both
            # back ends run it, chance included, as any effect)
            effect = self.statements(simultaneous.then, _Scope(mover=False, where="then"))
            then_action = ir.Action("then", (), frozenset(), None, effect, simultaneous.span)
            game.actions += (then_action,)
        init = seen.get(ast.InitDecl)
        if init is not None:
            # `init` is an action nobody may take (by no player), applied once to the declared
            # initial values: so both back ends run it, chance included, as any effect.
            effect = self.statements(init.body, _Scope(mover=False))
            game.actions += (ir.Action("init", (), frozenset(), None, effect, init.span),)
        self.check_action_names(decls)
        game.ground_actions = tuple(itertools.chain.from_iterable(
            self.ground(a) for a in game.actions))
        if init is not None:
            game.setup = len(game.ground_actions) - 1
        if simultaneous is not None:
            cond = (None if simultaneous.cond is None else
                    self.typed(simultaneous.cond, _Scope(), BOOL, "the simultaneous condition"))
            then = (None if then_action is None else
                    next(i for i, g in enumerate(game.ground_actions) if g.action is then_action))
            game.simultaneous = ir.Simultaneous(cond, then, simultaneous.span)
        self.visibility(decls, game, user_actions)
        if simultaneous is not None and ast.StuckDecl in seen:
            self.error("E231", "`when stuck` and `simultaneous` together: at a simultaneous move "
                       "no single player is to move", seen[ast.StuckDecl].span,
                       hint="end the game with `terminal` where nobody has a legal action")
        if not action_decls and self.players:
            self.error("E219", "the game has no actions", START, hint="declare at least one `action`")

        self.stuck_rule(seen.get(ast.StuckDecl), game)
        terminal = seen.get(ast.TerminalDecl)
        if terminal is None and ast.StuckDecl not in seen:   # (a bad stuck rule is reported once)
            self.error("E206", "the game has no terminal condition", START,
                       hint="add `terminal <condition>`, e.g. `terminal moves == 9`, or "
                       "`when stuck lose` if a player who cannot move loses")
        elif terminal is None:
            game.terminal = ir.Lit(False, BOOL)   # the game ends only when a player is stuck
            if ast.StuckDecl in seen and seen[ast.StuckDecl].outcome.name == "pass":
                self.error("E206", "the game has no terminal condition", START,
                           hint="`when stuck pass` skips a player; add `terminal <condition>`, or "
                           "write `when stuck lose` if a player who cannot move loses")
        else:
            game.terminal = self.typed(terminal.cond, _Scope(), BOOL, "the terminal condition")
        # Without `terminal` (normal play), the game ends only when someone is stuck, and the
        # stuck rule gives the utilities.
        game.utilities = self.per_player(decls, ast.UtilityDecl, "utility", game,
                                         required=terminal is not None)
        game.evaluations = self.per_player(decls, ast.EvaluateDecl, "evaluate", game, required=False)
        if ast.QuietDecl in seen:
            game.quiet = self.typed(seen[ast.QuietDecl].cond, _Scope(), BOOL, "the quiet condition")
        if ast.TierDecl in seen:
            game.tier = self.typed(seen[ast.TierDecl].value, _Scope(), INT, "the tier")
        game.display, game.boards = self.display(decls)
        game.clicks = self.clicks(decls, game, user_actions)
        self.check_unused_defines()
        game.symbols = tuple(self.symbols)
        game.initial = self.initial_state(decls, game.variables)
        if game.setup is not None and self.players:
            # `init` runs as if the last player had moved, so the turn then passes to the first
            game.initial = (len(self.players) - 1,) + game.initial[1:]
        game.has_chance = self.random_count > 0
        game.spans = {"terminal": terminal.span if terminal else NOWHERE}
        # Declarations `gdl check --deep` points at (gdl.tools.validate names them by these keys).
        for decl in decls:
            if isinstance(decl, ast.UtilityDecl):
                game.spans.setdefault("utility", decl.span)
                game.spans.setdefault(f"utility {decl.player.name}", decl.span)
        for key, kind in (("sum", ast.SumDecl), ("max-length", ast.LengthDecl),
                          ("utility-bounds", ast.UtilityBoundsDecl), ("endless", ast.EndlessDecl),
                          ("tier", ast.TierDecl)):
            if kind in seen:
                game.spans[key] = seen[kind].span
        if not self.diagnostics:    # on a checked game only: no cascade after a first error
            check_sure_indices(game, lambda message, span: self.error(
                "E220", message, span, hint="that binding is always evaluated here: keep the index "
                "inside the array, or test it first (`i < n and a[i] ...`)"))
        return game

    def visibility(self, decls, game: ir.Game, actions) -> None:
        """`private v` (a variable indexed by the players first: entry p is p's alone) and
        `hidden x` (a variable nobody sees, or an action whose choice the others do not see)."""
        variables = {v.name: v for v in game.variables}
        action_names = {a.name for a in actions if a is not None}
        marked: dict[str, ast.Ident] = {}
        for decl in decls:
            if not isinstance(decl, (ast.PrivateDecl, ast.HiddenDecl)):
                continue
            word = "private" if isinstance(decl, ast.PrivateDecl) else "hidden"
            for name in decl.names:
                if name.name in marked:
                    self.error("E200", f"'{name.name}' is marked private or hidden twice",
                               name.span, hint=f"the first is on line {marked[name.name].span.line}")
                    continue
                marked[name.name] = name
                var = variables.get(name.name)
                if word == "private" and var is not None:
                    by_player = next((d for d in decls if isinstance(d, ast.VarDecl)
                                      and d.name.name == name.name), None)
                    if by_player is None or not by_player.dims or not isinstance(
                            by_player.dims[0], ast.PlayersDomain):
                        self.error("E229", f"`private {name.name}`: '{name.name}' is not indexed "
                                   "by the players first, so it has no entry of each player's",
                                   name.span, hint=f"declare it `var {name.name}[players]...`, "
                                   f"or write `hidden {name.name}` if no player sees it")
                        continue
                    game.private_vars += (name.name,)
                elif word == "hidden" and var is not None:
                    game.hidden_vars += (name.name,)
                elif word == "hidden" and name.name in action_names:
                    game.hidden_actions += (name.name,)
                else:
                    what = "a variable" + (" or an action" if word == "hidden" else "")
                    known = list(variables) + (sorted(action_names) if word == "hidden" else [])
                    self.error("E229", f"`{word} {name.name}`: '{name.name}' is not {what}",
                               name.span, hint=did_you_mean(name.name, known)
                               or f"`{word}` names {what} declared in the rules")

    def stuck_rule(self, decl: ast.StuckDecl | None, game: ir.Game) -> None:
        """`when stuck pass | lose | win`. With lose/win the stuck player gets the loss (the
        win) and the other player the opposite: -1 and 1, or 0 and N in a `constant-sum N`."""
        if decl is None:
            return
        word = decl.outcome.name
        if word not in ("pass", "lose", "win"):
            self.error("E201", f"unknown stuck rule '{word}'", decl.outcome.span,
                       hint=did_you_mean(word, ["pass", "lose", "win"])
                       or "write `when stuck pass`, `when stuck lose` or `when stuck win`")
            return
        if word == "pass":
            game.stuck_pass = True
            return
        if len(self.players) != 2:
            self.error("E225", f"`when stuck {word}` needs two players; the game has "
                       f"{len(self.players)}", decl.span,
                       hint="with more players, declare `terminal` and `utility` for a player "
                       "who cannot move")
            return
        low, high = (0, game.sum_total) if game.sum_kind == CONSTANT_SUM else (-1, 1)
        stuck, other = (low, high) if word == "lose" else (high, low)
        game.stuck_end = word
        game.stuck_values = ((stuck, other), (other, stuck))

    def endless_rule(self, decl: ast.EndlessDecl, game: ir.Game) -> tuple[ir.Value, ...] | None:
        """`when endless draw | (u1, ..., un)`: the utility vector of a play that never ends. A
        draw is an equal share of the declared sum; a vector has one constant number per player,
        keeps the declared sum and the declared utility bounds (E228 otherwise)."""
        players = len(self.players)
        if decl.word is not None:
            word = decl.word.name
            if word != "draw":
                self.error("E201", f"unknown endless-play rule '{word}'", decl.word.span,
                           hint=did_you_mean(word, ["draw"])
                           or "write `when endless draw`, or one utility per player: "
                           "`when endless (0, 0)`")
                return None
            if game.sum_kind not in (ZERO_SUM, CONSTANT_SUM):
                self.error("E228", "`when endless draw` needs a zero-sum or constant-sum game",
                           decl.span, hint="declare `zero-sum` or `constant-sum N`, or give one "
                           "utility per player: `when endless (" + ", ".join(["0"] * players) + ")`")
                return None
            share = Fraction(game.sum_total, players) if players else Fraction(0)
            return tuple(share.numerator if share.denominator == 1 else share
                         for _ in range(players))
        if len(decl.values) != players:
            self.error("E202", f"`when endless` gives {len(decl.values)} utilities; the game has "
                       f"{players} players", decl.span,
                       hint="one utility per player, in the order of `players`")
            return None
        values: list[ir.Value] = []
        for node in decl.values:
            value = self.constant(node, "a utility of endless play")
            if value is None:
                return None
            if type(value) not in (int, Fraction):
                self.error("E203", f"a utility of endless play must be a number, not "
                           f"{_kind_of(value)}", node.span)
                return None
            values.append(value.numerator if isinstance(value, Fraction) and value.denominator == 1
                          else value)
        if game.sum_kind in (ZERO_SUM, CONSTANT_SUM) and sum(values) != game.sum_total:
            self.error("E228", f"the utilities of endless play sum to {sum(values)}, but the game "
                       f"is declared {game.sum_kind} ({game.sum_total})", decl.span,
                       hint="endless play must keep the declared sum, as every end does")
            return None
        bounds = game.utility_bounds
        if bounds is not None and any(not bounds[0] <= v <= bounds[1] for v in values):
            self.error("E228", f"a utility of endless play lies outside the declared bounds "
                       f"{bounds[0]}..{bounds[1]}", decl.span)
            return None
        return tuple(values)

    # ---- players, symbols, params, constants -------------------------------------------------

    def declare_players(self, decl: ast.PlayersDecl | None) -> None:
        if decl is None:
            self.error("E205", "the game declares no players", START,
                       hint="add `players A, B` (the first player moves first)")
            return
        names: list[str] = []
        for ident in decl.players:
            if self.declare(ident, "player", len(names)):
                names.append(ident.name)
        self.players = tuple(names)
        self.symbols = list(names)
        self.symbol_ids = {name: i for i, name in enumerate(names)}
        self.players_decl = decl

    def declare_symbols(self) -> None:
        for domain in _walk(self.file, ast.SymbolDomain):
            for ident in domain.symbols:
                if ident.name in self.symbol_ids:
                    continue
                if self.declare(ident, "symbol", len(self.symbols)):
                    self.symbol_ids[ident.name] = len(self.symbols)
                    self.symbols.append(ident.name)

    def resolve_params_and_consts(self, decls) -> None:
        declared_params = {d.name.name for d in decls if isinstance(d, ast.ParamDecl)}
        for name in self.overrides:
            if name not in declared_params:
                listing = ", ".join(sorted(declared_params)) or "none"
                self.error("E215", f"the game has no parameter '{name}' (its parameters: {listing})",
                           START, hint=did_you_mean(name, declared_params))
        for decl in decls:
            if isinstance(decl, ast.ParamDecl):
                value, type_ = self.constant_typed(decl.value) or (None, ERROR)
                if value is not None and type_ not in (INT, BOOL, SYM):
                    self.error("E203", f"a parameter must be an integer, a boolean or a symbol, not "
                               f"{_kind_of(value)}", decl.value.span, hint=DIVISION_HINT)
                    value = None
                if decl.name.name in self.overrides:
                    value, type_ = self.override(decl, value, type_)
                if value is not None and self.declare(decl.name, "param", value):
                    self.params[decl.name.name] = value
                    self.param_types[decl.name.name] = type_
            elif isinstance(decl, ast.ConstDecl) and isinstance(decl.value, ast.MapLit):
                entries = self.map_constant(decl.value)
                self.declare(decl.name, "const", None if entries is None else ir.Constant(
                    decl.name.name, entries[1], (len(entries[0]),), entries[2], decl.name.span,
                    keys=entries[0]))
            elif isinstance(decl, ast.ConstDecl) and not isinstance(decl.value, ast.MapLit):
                found = self.constant_typed(decl.value)
                if found is not None:
                    value, type_ = found
                    shape = _table_shape(value)[0]
                    self.declare(decl.name, "const", ir.Constant(decl.name.name, value, shape, type_,
                                                                 decl.name.span))
                else:   # reported; later uses of the name are placeholders, not "unknown name"
                    self.declare(decl.name, "const", None)

    def map_constant(self, node: ast.MapLit):
        """(keys, values, type) of `{pawn: 1, knight: 3}`: each key a symbol the file declares
        elsewhere (or a player), once; the values constants of one type. None after an error."""
        keys: list[int] = []
        values: list = []
        types: set[str] = set()
        failed = False
        for ident, value_node in node.entries:
            if ident.name not in self.symbol_ids:
                self.unknown(ident.name, ident.span, _Scope(state=False), candidates=self.symbols)
                failed = True
                continue
            if self.symbol_ids[ident.name] in keys:
                self.error("E200", f"'{ident.name}' is a key of this map twice", ident.span,
                           hint="give each symbol one value")
                failed = True
                continue
            found = self.constant_typed(value_node)
            if found is None:
                failed = True
                continue
            if isinstance(found[0], tuple):
                self.error("E203", "a map's values are single values, not tables", value_node.span)
                failed = True
                continue
            keys.append(self.symbol_ids[ident.name])
            values.append(found[0])
            types.add(found[1])
        if types == {INT, NUM}:
            types = {NUM}
        if len(types) > 1:
            self.error("E203", "a map's values must have one type", node.span,
                       hint="all numbers, or all booleans, or all symbols")
            return None
        return None if failed else (tuple(keys), tuple(values), types.pop())

    def map_lookup(self, name: str, const: ir.Constant, index_nodes, scope: _Scope,
                   span: Span) -> ir.Expr:
        """`worth[e]` for a map: e must be a symbol the map has a key for. Where the checker can
        tell e's possible values (a literal, a variable's domain, `mover`), a missing key is a
        located error here; elsewhere a missing key is an index out of range at run time (E303)."""
        assert const.keys is not None
        keys = const.keys
        listing = ", ".join(self.symbols[k] for k in keys)
        if len(index_nodes) != 1:
            self.error("E214", f"the map '{name}' takes 1 index, given {len(index_nodes)}", span,
                       hint=f"its keys: {listing}")
            return self.placeholder(span)
        index = self.expr(index_nodes[0], scope)
        if index.type == ERROR:
            return self.placeholder(span)
        if index.type != SYM:
            self.error("E203", f"the map '{name}' is indexed by a symbol, not "
                       f"{_TYPE_WORDS[index.type]}", index_nodes[0].span, hint=f"its keys: {listing}")
            return self.placeholder(span)
        possible = _possible_symbols(index, len(self.players))
        missing = [] if possible is None else sorted(possible - set(keys))
        if missing:
            shown = ", ".join(self.symbols[m] for m in missing)
            self.error("E220", f"the map '{name}' has no value for {shown}",
                       index_nodes[0].span, hint=f"add `{self.symbols[missing[0]]}: ...` to the "
                       f"map on line {const.span.line}, or index it only with its keys ({listing})")
            return self.placeholder(span)
        if isinstance(index, ir.Lit):
            assert isinstance(const.value, tuple)
            return ir.Lit(const.value[keys.index(index.value)], const.type, span)
        # The position among the keys, by a chain of tests; where the keys may not cover every
        # value, the last branch is one past the end: an index out of range at run time.
        tested = [k for k in keys if possible is None or k in possible]
        position: ir.Expr = ir.Lit(len(keys), INT, span)
        if possible is not None:
            position = ir.Lit(keys.index(tested[-1]), INT, span)
            tested = tested[:-1]
        for key in reversed(tested):
            same = ir.Binary("==", index, ir.Lit(key, SYM, span), BOOL, span)
            position = ir.IfExpr(same, ir.Lit(keys.index(key), INT, span), position, INT, span)
        return ir.ConstRef(const, (position,), const.type, span)

    def override(self, decl: ast.ParamDecl, value, type_: str):
        """A parameter's value given by ``--set`` (or the API): an int, a bool, or a symbol's name
        (a str), of the type of the declared value. Symbols are not integers."""
        name, given = decl.name.name, self.overrides[decl.name.name]
        if isinstance(given, str):
            if given not in self.symbol_ids:
                same = [s for s in self.symbols if s.lower() == given.lower()]
                hint = (f"did you mean '{same[0]}'? (names are case-sensitive)" if same else
                        did_you_mean(given, self.symbol_ids) or f"its symbols: {', '.join(self.symbols)}")
                self.error("E215", f"--set {name}={given}: '{given}' is not a symbol of this game",
                           decl.name.span, hint=hint)
                return value, type_    # (the declared value, so that its uses are still checked)
            found, found_type = self.symbol_ids[given], SYM
        else:
            found, found_type = given, BOOL if type(given) is bool else INT
        if value is not None and found_type != type_:
            self.error("E215", f"--set {name}={given}: parameter '{name}' is "
                       f"{_TYPE_WORDS[type_]}, not {_TYPE_WORDS[found_type]}", decl.name.span,
                       hint=f"declared as `param {name} = ...` on line {decl.span.line}")
            return value, type_
        return found, found_type

    def constant(self, node: ast.Expr, what: str):
        """Evaluate an expression that must not depend on the state."""
        found = self.constant_typed(node)
        return None if found is None else found[0]

    def constant_typed(self, node: ast.Expr):
        """(value, type) of a constant expression; a list literal gives a table (nested tuples)
        whose elements share one type. None after an error."""
        if isinstance(node, ast.ListLit):
            items = [self.constant_typed(item) for item in node.items]
            if any(item is None for item in items):
                return None
            types = {t for _, t in items}
            if types == {INT, NUM}:
                types = {NUM}  # a table of numbers, some of them fractions
            value = tuple(v for v, _ in items)
            if len(types) != 1 or _table_shape(value)[1] is None:
                self.error("E203", "a table must be rectangular, with one type of element", node.span)
                return None
            return value, types.pop()
        expr = self.expr(node, _Scope(state=False))
        if expr.type == ERROR:
            return None
        try:
            value = eval_const(expr)
        except EvalError as error:
            # The run-time codes have load-time twins: E302 -> E221, E303 -> E220.
            code = {"E302": "E221", "E303": "E220"}.get(error.code, error.code)
            self.error(code, error.message, error.span or node.span)
            return None
        if type(value) is int and value.bit_length() > MAX_CONSTANT_BITS:
            self.error("E232", f"this constant is larger than 2^{MAX_CONSTANT_BITS} "
                       f"(about 10^{MAX_CONSTANT_BITS * 30103 // 100000})", node.span,
                       hint="numbers in rules are sizes, scores and probabilities")
            return None
        # A constant is typed by its value: `n / 2` is an integer when n is even.
        return value, INT if expr.type == NUM and type(value) is int else expr.type

    def constant_int(self, node: ast.Expr, what: str) -> int | None:
        value = self.constant(node, what)
        if value is not None and type(value) is not int:
            self.error("E203", f"{what} must be an integer, not {_kind_of(value)}", node.span,
                       hint=DIVISION_HINT if type(value) is Fraction else None)
            return None
        return value

    def domain_values(self, domain: ast.Domain) -> tuple[str, tuple] | None:
        """(type, values) of a finite domain; None after an error."""
        if isinstance(domain, ast.BoolDomain):
            return BOOL, (False, True)
        if isinstance(domain, ast.PlayersDomain):
            if not self.players:   # no `players` declaration: E205 says so, and nothing ranges over it
                return None
            return SYM, tuple(range(len(self.players)))
        if isinstance(domain, ast.SymbolDomain):
            ids = []
            for ident in domain.symbols:
                if ident.name not in self.symbol_ids:
                    return None  # reported by declare_symbols
                if self.symbol_ids[ident.name] in ids:
                    self.error("E200", f"'{ident.name}' appears twice in this set", ident.span)
                ids.append(self.symbol_ids[ident.name])
            return SYM, tuple(ids)
        low = self.constant_int(domain.low, "a range bound")
        high = self.constant_int(domain.high, "a range bound")
        if low is None or high is None:
            return None
        if low > high:
            self.error("E210", f"the range {low}..{high} is empty", domain.span,
                       hint="a range low..high includes both ends and needs low <= high")
            return None
        if high - low >= MAX_VALUES:
            self.error("E210", f"the range {low}..{high} has {high - low + 1:,} values, more than "
                       f"{MAX_VALUES:,}", domain.span, hint="domains are enumerated; keep them small")
            return None
        return INT, tuple(range(low, high + 1))

    def bounds(self, decl: ast.UtilityBoundsDecl) -> tuple[int, int] | None:
        found = self.domain_values(decl.bounds)
        return (found[1][0], found[1][-1]) if found else None

    # ---- variables and the initial state ---------------------------------------------------

    def slots(self, decls):
        slot = 1  # slot 0 holds the player to move
        for decl in decls:
            if isinstance(decl, ast.VarDecl):
                shape = self.shape(decl.dims)
                yield decl, (slot, shape)
                if shape is not None:
                    size = 1
                    for extent in shape:
                        size *= extent
                    slot += size

    def shape(self, dims) -> tuple[int, ...] | None:
        shape = []
        for dim in dims:
            if isinstance(dim, ast.PlayersDomain):
                shape.append(len(self.players))
                continue
            extent = self.constant_int(dim, "an array size")
            if extent is None:
                return None
            if extent < 1:
                self.error("E210", f"an array needs a size of at least 1, not {extent}", dim.span)
                return None
            shape.append(extent)
            size = 1
            for n in shape:
                size *= n
            if size > MAX_VALUES:
                self.error("E210", f"this array has {size:,} cells, more than {MAX_VALUES:,}",
                           dim.span, hint="every cell is part of the state; keep arrays small")
                return None
        return tuple(shape)

    def variable(self, decl: ast.VarDecl, layout) -> ir.Variable | None:
        slot, shape = layout
        found = self.domain_values(decl.domain)
        if shape is None or found is None:
            self.declare(decl.name, "var", None)
            return None
        type_, values = found
        var = ir.Variable(decl.name.name, slot, shape, type_, values, decl.name.span)
        self.declare(decl.name, "var", var)
        return var

    def initial_state(self, decls, variables) -> tuple:
        by_name = {v.name: v for v in variables}
        state: list = [0]
        for decl in decls:
            if not isinstance(decl, ast.VarDecl) or decl.name.name not in by_name:
                continue
            var = by_name[decl.name.name]
            found = self.constant_typed(decl.init)
            if found is None:
                state.extend([var.values[0]] * var.size)
                continue
            value, type_ = found
            if type_ != var.type:
                self.error("E203", f"'{var.name}' holds {_TYPE_WORDS[var.type]}, but its initial "
                           f"value is {_TYPE_WORDS[type_]}", decl.init.span,
                           hint=DIVISION_HINT if type_ == NUM else None)
                state.extend([var.values[0]] * var.size)
                continue
            cells = _broadcast(value, var.shape)
            if cells is None:
                self.error("E203", f"the initial value does not fit the shape of '{var.name}' "
                           f"{list(var.shape)}", decl.init.span)
                state.extend([var.values[0]] * var.size)
                continue
            for cell in cells:
                if cell not in var.values:
                    self.error("E204", f"initial value {self.show(cell, var.type)} is outside the "
                               f"domain of '{var.name}'", decl.init.span, hint=self.domain_hint(var))
                    break
            state.extend(cells)
        return tuple(state)

    def show(self, value, type_: str) -> str:
        return show_value(value, type_, self.symbols)

    def domain_hint(self, var: ir.Variable) -> str:
        if var.type == INT:
            return f"'{var.name}' takes values {var.values[0]}..{var.values[-1]}"
        shown = ", ".join(self.show(v, var.type) for v in var.values)
        return f"'{var.name}' takes values {{{shown}}}"

    # ---- actions ---------------------------------------------------------------------------

    def check_action_names(self, decls) -> None:
        seen: dict[str, ast.Ident] = {}
        for decl in decls:
            if isinstance(decl, ast.ActionDecl):
                if decl.name.name in seen:
                    self.error("E200", f"a second action named '{decl.name.name}'", decl.name.span,
                               hint=f"the first is on line {seen[decl.name.name].span.line}")
                seen.setdefault(decl.name.name, decl.name)

    def binders(self, binders, scope: _Scope):
        names: dict[str, str] = {}
        resolved: list[tuple[str, str, tuple[int, ...] | ir.Range]] = []
        for binder in binders:
            self.check_local_name(binder.name, scope.names.keys() | names.keys())
            local = self.local_range(binder.domain, scope.bind(names))
            if local is not None:
                names[binder.name.name] = INT if local.low.type == local.high.type == INT else ERROR
                if names[binder.name.name] == INT:
                    resolved.append((binder.name.name, INT, local))
                continue
            found = self.domain_values(binder.domain)
            if found is None:
                names[binder.name.name] = ERROR
                continue
            names[binder.name.name] = found[0]
            resolved.append((binder.name.name, found[0], found[1]))
        combinations = 1
        for _, _, values in resolved:
            combinations *= len(values) if isinstance(values, tuple) else 1
        if combinations > MAX_VALUES:
            self.error("E210", f"these ranges give {combinations:,} combinations, more than "
                       f"{MAX_VALUES:,}", binders[0].span,
                       hint="parameters and bound names are enumerated; keep their ranges small")
            return {name: ERROR for name in names}, []
        return names, resolved

    def local_range(self, domain, scope: _Scope) -> ir.Range | None:
        """A range whose bounds use local names (an action parameter, an outer binder, a define
        parameter): constant for each ground action or binding, so computed there; None for a
        range of constants. Bounds that read the state are still refused (E211)."""
        if not isinstance(domain, ast.RangeDomain) or not scope.names:
            return None
        used = {n.name for n in _walk((domain.low, domain.high), ast.Name)}
        if not used & scope.names.keys():
            return None
        local = _Scope(scope.names, state=False)
        low = self.typed(domain.low, local, INT, "a range bound")
        high = self.typed(domain.high, local, INT, "a range bound")
        return ir.Range(low, high, domain.span)

    def reserved(self, ident: ast.Ident) -> bool:
        if ident.name in reserved_words():
            self.error("E224", f"'{ident.name}' is a reserved word and cannot be a name", ident.span,
                       hint=f"call it something else, e.g. '{ident.name}_'")
            return True
        return False

    def check_local_name(self, ident: ast.Ident, taken) -> None:
        if self.reserved(ident):
            return
        if ident.name in taken or ident.name in self.globals:
            self.error("E200", f"'{ident.name}' is already used in this scope", ident.span,
                       hint="local names must not hide other names")

    def action(self, decl: ast.ActionDecl) -> ir.Action | None:
        names, params = self.binders(decl.params, _Scope())
        scope = _Scope(names)
        by = None
        if decl.by is not None:
            chosen = set()
            for ident in decl.by:
                if ident.name in self.players:
                    chosen.add(self.players.index(ident.name))
                else:
                    self.error("E209", f"'{ident.name}' is not a player", ident.span,
                               hint=did_you_mean(ident.name, self.players)
                               or f"the players are {', '.join(self.players)}")
            by = frozenset(chosen)
        requires = None
        if decl.requires is not None:
            requires = self.typed(decl.requires, scope, BOOL, "a `requires` condition")
        guards = []
        for position, guard in enumerate(decl.guards):
            if guard is None:
                continue
            earlier = dict(itertools.islice(names.items(), position + 1))   # up to its own
            later = [n for n in _walk(guard, ast.Name) if n.name in names and n.name not in earlier]
            if later:
                self.error("E201", f"unknown name '{later[0].name}'", later[0].span,
                           hint=f"a parameter's guard sees only the parameters before it: test "
                           f"'{later[0].name}' in its own guard, or in `requires`")
                continue
            guards.append((position, self.typed(guard, _Scope(earlier), BOOL, "a parameter's guard")))
        effect = self.statements(decl.effect, scope)
        if len(params) != len(decl.params):
            return None
        if not guards:
            return ir.Action(decl.name.name, tuple(params), by, requires, effect, decl.span)
        full = requires
        for _, test in reversed(guards):
            full = test if full is None else ir.Binary("and", test, full, BOOL, test.span)
        return ir.Action(decl.name.name, tuple(params), by, full, effect, decl.span,
                         guards=tuple(guards), rest=requires)

    def ground(self, action: ir.Action) -> list[ir.GroundAction]:
        grounds = []
        try:
            combos = bindings_fn([(name, values) for name, _, values in action.params])(None, {})
        except EvalError as error:
            code = {"E302": "E221", "E303": "E220"}.get(error.code, error.code)
            self.error(code, error.message, error.span or action.span)
            return []
        for combo in combos:
            args = tuple(value for _, value in combo)
            shown = ",".join(self.show(a, t) for a, (_, t, _) in zip(args, action.params))
            name = f"{action.name}({shown})" if action.params else action.name
            grounds.append(ir.GroundAction(action, tuple(args), name))
        return grounds

    # ---- statements ------------------------------------------------------------------------

    def statements(self, stmts, scope: _Scope) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for position, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Random):
                out.append(self.random(stmt, stmts[position + 1:], scope))
                break
            if isinstance(stmt, ast.LetStmt):   # the name holds for the rest of the block
                self.check_local_name(stmt.name, scope.names.keys())
                value = self.expr(stmt.value, scope)
                rest = self.statements(stmts[position + 1:], scope.bind({stmt.name.name: value.type}))
                out.append(ir.LetStmt(stmt.name.name, value, rest, stmt.span))
                break
            out.append(self.statement(stmt, scope))
        return tuple(out)

    def statement(self, stmt, scope: _Scope) -> ir.Stmt:
        if isinstance(stmt, ast.Assign):
            return self.assign(stmt, scope)
        if isinstance(stmt, ast.If):
            cond = self.typed(stmt.cond, scope, BOOL, "an `if` condition")
            otherwise = self.statements(stmt.otherwise, scope) if stmt.otherwise else ()
            return ir.If(cond, self.statements(stmt.then, scope), otherwise, stmt.span)
        if isinstance(stmt, ast.For):
            names, binders = self.binders(stmt.binders, scope)
            body = self.statements(stmt.body, scope.bind(names))
            pairs = tuple((n, v) for n, _, v in binders)
            split = _first_range(pairs)
            if split:   # `for i in 0..3, j in i..3 {...}` is `for i in 0..3 { for j in i..3 {...} }`
                return ir.For(pairs[:split], (ir.For(pairs[split:], body, stmt.span),), stmt.span)
            return ir.For(pairs, body, stmt.span)
        if isinstance(stmt, ast.Repeat):
            bound = self.constant_int(stmt.bound, "a repeat bound")
            if bound is not None and bound < 0:
                self.error("E210", f"a repeat bound must be at least 0, not {bound}", stmt.bound.span)
            body = self.statements(stmt.body, scope)
            for inner in _walk(stmt.body, ast.Random):
                self.error("E227", "`random` inside `repeat`", inner.span,
                           hint="a repeated block is deterministic: draw the chance event before it")
            return ir.Repeat(bound or 0, body, stmt.span)
        if isinstance(stmt, ast.Pass):
            return ir.Pass(stmt.span)
        if isinstance(stmt, ast.Next):
            player = self.typed(stmt.player, scope, SYM, "`next`")
            if isinstance(player, ir.Lit) and player.type == SYM and isinstance(player.value, int) \
                    and player.value >= len(self.players):
                self.error("E203", f"`next` needs a player, and '{self.symbols[player.value]}' is not one",
                           stmt.player.span)
            return ir.Next(player, stmt.span)
        raise AssertionError(f"unknown statement {stmt!r}")

    def assign(self, stmt: ast.Assign, scope: _Scope) -> ir.Stmt:
        name = stmt.target.name
        value = self.expr(stmt.value, scope)
        entry = self.globals.get(name)
        if entry is None or entry[0] != "var":
            if name in scope.names or entry is not None:
                kind = "local name" if name in scope.names or entry is None else entry[0]
                self.error("E213", f"cannot assign to '{name}': it is a {kind}, not a variable",
                           stmt.target.span, hint="only names declared with `var` can change")
            else:
                self.unknown(name, stmt.target.span, scope)
            return ir.Pass(stmt.span)
        var = entry[1]
        if var is None:
            return ir.Pass(stmt.span)
        indices = self.indices(var.name, var.shape, stmt.indices, scope, stmt.target.span)
        if indices is None:
            return ir.Pass(stmt.span)
        if value.type not in (ERROR, var.type):
            self.error("E203", f"'{var.name}' holds {_TYPE_WORDS[var.type]}, "
                       f"but this is {_TYPE_WORDS[value.type]}", stmt.value.span,
                       hint=DIVISION_HINT if value.type == NUM else None)
        elif isinstance(value, ir.Lit) and value.type != ERROR and value.value not in var.values:
            self.error("E204", f"{self.show(value.value, value.type)} is outside the domain of "
                       f"'{var.name}'", stmt.value.span, hint=self.domain_hint(var))
        return ir.Assign(var, indices, value, stmt.span)

    def random(self, stmt: ast.Random, rest, scope: _Scope) -> ir.Stmt:
        self.check_local_name(stmt.name, scope.names.keys())
        outcomes: list[tuple[ir.Expr, ir.Expr]] = []
        if stmt.uniform is not None:
            found = self.uniform_range(stmt, scope)
            values = found[1] if found else (0,)
            type_ = found[0] if found else ERROR
            if stmt.guard is None or found is None:
                share = ir.Binary("/", ir.Lit(1, INT), ir.Lit(len(values), INT), NUM)
                outcomes = [(ir.Lit(v, type_), share) for v in values]
            else:
                outcomes = self.guarded_uniform(stmt, values, scope)
        else:
            for value_node, probability_node in stmt.outcomes or ():
                value = self.expr(value_node, scope)
                probability = self.typed(probability_node, scope, NUM, "a probability")
                outcomes.append((value, probability))
            types = {v.type for v, _ in outcomes} - {ERROR}
            if len(types) > 1:
                self.error("E203", "the outcomes of a random choice must all have one type", stmt.span)
            type_ = types.pop() if len(types) == 1 else ERROR
            self.check_constant_distribution(stmt, outcomes)
        index = self.random_count
        self.random_count += 1
        body = self.statements(rest, scope.bind({stmt.name.name: type_}))
        return ir.Random(stmt.name.name, type_, tuple(outcomes), body, index, stmt.span)

    def uniform_range(self, stmt: ast.Random, scope: _Scope):
        """The values of ``random d in lo..hi``: its bounds must be constant (a run-time bound
        would change the number of outcomes), which a guard can stand in for."""
        assert stmt.uniform is not None
        for bound in (stmt.uniform.low, stmt.uniform.high):
            if not self.is_constant(bound, scope):
                self.error("E211", "the range of `random d in lo..hi` must be constant: the "
                           "number of outcomes is fixed when the rules are checked", bound.span,
                           hint=f"draw from a constant range with a guard, e.g. `random "
                           f"{stmt.name.name} in 1..9 if {stmt.name.name} <= n`")
                return None
        return self.domain_values(stmt.uniform)

    def is_constant(self, node: ast.Expr, scope: _Scope) -> bool:
        """Whether an expression reads no state and no local name (only constants and
        params), without reporting anything."""
        names = {n.name for n in _walk(node, ast.Name)}
        if names & set(scope.names) or any(True for _ in _walk(node, ast.Mover)):
            return False
        return not any(self.globals.get(name, ("",))[0] == "var" for name in names)

    def guarded_uniform(self, stmt: ast.Random, values, scope: _Scope):
        """`random d in lo..hi if guard`: each value where the guard holds, equally likely:
        value v has probability (1 if guard(v) else 0) / (count d in lo..hi: guard)."""
        assert stmt.uniform is not None and stmt.guard is not None
        name, span = stmt.name, stmt.guard.span
        binder = ast.Binder(name, stmt.uniform, span)
        count = ast.Quantifier("count", (binder,), stmt.guard, span)
        outcomes = []
        for value in values:
            literal = ast.IntLit(value, span)
            holds = ast.Let(((name, literal),), stmt.guard, span)
            share = ast.IfExpr(holds, ast.Binary("/", ast.IntLit(1, span), count, span),
                               ast.IntLit(0, span), span)
            outcomes.append((ir.Lit(value, INT),
                             self.typed(share, scope, NUM, "a probability")))
        return outcomes

    def check_constant_distribution(self, stmt: ast.Random, outcomes) -> None:
        if any(e.type == ERROR or _uses_state(e) for pair in outcomes for e in pair):
            return  # checked at the chance node when the game runs
        try:
            pairs = [(eval_const(v), eval_const(p)) for v, p in outcomes]
        except EvalError as error:
            self.error("E221" if error.code == "E302" else error.code, error.message,
                       error.span or stmt.span)
            return
        problem = distribution_problem(pairs)
        if problem:
            listing = ", ".join(f"{self.show(v, outcomes[0][0].type)}: {p}" for v, p in pairs)
            total = sum((Fraction(p) for _, p in pairs), Fraction(0))
            self.error("E217", problem, stmt.span, notes=[f"outcomes {{{listing}}} sum to {total}"],
                       hint="probabilities are exact fractions like 1/6 and must sum to exactly 1")

    def check_unused_defines(self) -> None:
        """A define no rule calls is still checked, with parameters of unknown type, so a
        mistake in it (an unknown name, say) is reported rather than lying dormant."""
        used = {name for name, _ in self.define_instances}
        for name, decl in self.define_decls.items():
            if name not in used:
                self.defines_in_progress.append(name)
                self.expr(decl.body, _Scope({p.name: ERROR for p in decl.params}))
                self.defines_in_progress.pop()

    # ---- utilities, evaluations, display -----------------------------------------------------

    def per_player(self, decls, kind, word: str, game: ir.Game, required: bool):
        exprs: list[ir.Expr | None] = [None] * len(self.players)
        given: dict[str, ast.Decl] = {}
        for decl in decls:
            if not isinstance(decl, kind):
                continue
            name = decl.player.name
            if name not in self.players:
                self.error("E208", f"{word} for '{name}', which is not a player", decl.player.span,
                           hint=did_you_mean(name, self.players)
                           or f"the players are {', '.join(self.players)}")
                continue
            if name in given:
                self.error("E200", f"a second {word} for '{name}'", decl.player.span,
                           hint=f"the first is on line {given[name].span.line}")
                continue
            given[name] = decl
            exprs[self.players.index(name)] = self.typed(decl.value, _Scope(), NUM, f"a {word}")
        if not given and not required:
            return ()
        missing = [p for p, e in zip(self.players, exprs) if e is None]
        derivable = game.sum_kind in (ZERO_SUM, CONSTANT_SUM) and len(missing) == 1
        misnamed = any(d.player.name not in self.players for d in decls if isinstance(d, kind))
        if missing and not derivable and not misnamed:   # (a misnamed player is reported once: E208)
            for name in missing:
                span = next(i.span for i in self.players_decl.players if i.name == name)
                hint = ("declare `zero-sum` (or `constant-sum N`) to derive one player's utility"
                        if len(self.players) == 2 else f"add `{word} {name} = ...`")
                self.error("E207", f"no {word} for player '{name}'", span, hint=hint)
        return tuple(exprs)

    def display(self, decls) -> tuple[dict[str, dict[int | bool, str]], dict[str, ir.Board]]:
        """Each displayed variable's texts by value (``Game.display``, for terminals) and how
        the web page draws it (``Game.boards``)."""
        shown: dict[str, dict[int | bool, str]] = {}
        boards: dict[str, ir.Board] = {}
        for decl in decls:
            if not isinstance(decl, ast.DisplayDecl):
                continue
            entry = self.globals.get(decl.name.name)
            if entry is None or entry[0] != "var":
                self.error("E223", f"'{decl.name.name}' is not a variable to display", decl.name.span,
                           hint=self.not_displayable_hint(decl.name.name))
                continue
            if decl.name.name in shown:
                self.error("E200", f"a second display of '{decl.name.name}'", decl.name.span,
                           hint="say everything about how it is drawn in one `display`")
                continue
            glyphs: dict[int | bool, str] = {}
            pictures = []
            given = decl.pictures or (None,) * len(decl.glyphs)
            for (key, glyph), picture in zip(decl.glyphs, given):
                if isinstance(key, str):
                    if key not in self.symbol_ids:
                        self.error("E201", f"unknown symbol '{key}' in display", decl.name.span)
                        continue
                    key = self.symbol_ids[key]
                if glyph is not None:
                    glyphs[key] = glyph
                if picture is not None:
                    checked = self.picture(picture)
                    if checked is not None:
                        pictures.append((key, checked))
            shown[decl.name.name] = glyphs
            var = entry[1]
            boards[decl.name.name] = self.layout(decl, var, tuple(pictures))
        return shown, boards

    def not_displayable_hint(self, name: str) -> str | None:
        if any(isinstance(d, ast.ActionDecl) and d.name.name == name for d in self.file.declarations):
            return (f"'{name}' is an action: `display {name}(...) as cell[...]` says which cell a "
                    "click plays it on")
        if name in self.globals:
            return "only a `var` is drawn"
        return did_you_mean(name, [n for n, e in self.globals.items() if e[0] == "var"])

    def picture(self, picture: ast.Picture) -> ir.Picture | None:
        """A value's picture: a shape of ir.PICTURE_SHAPES with a colour, or an image file."""
        shape, colour = picture.shape, picture.colour
        if shape.quoted or shape.text not in ir.PICTURE_SHAPES:
            self.error("E223", f"no picture is called {shape.text!r}", shape.span,
                       hint=did_you_mean(shape.text, ir.PICTURE_SHAPES)
                       or "the pictures are " + ", ".join(ir.PICTURE_SHAPES))
            return None
        if shape.text == "image":
            problem = None if colour is None else _image_problem(colour)
            if colour is None or problem is not None:
                self.error("E223", problem or "`image` needs its file",
                           (colour or shape).span, hint='e.g. `image "pieces/white-king.svg"`, a '
                           "file in the rule file's directory or below it, .svg or .png")
                return None
            return ir.Picture("image", colour.text)
        if colour is None:
            if shape.text == "fill":
                self.error("E223", "`fill` needs a colour", shape.span, hint="e.g. `fill green`")
                return None
            return ir.Picture(shape.text)
        if shape.text == "blank":
            self.error("E223", "`blank` draws nothing, so it takes no colour", colour.span,
                       hint="write `fill` and a colour to colour the square")
            return None
        if not self.colour(colour):
            return None
        return ir.Picture(shape.text, colour.text)

    def colour(self, colour: ast.Word) -> bool:
        """Whether a word is a colour: a name of ir.COLOURS, or "#rgb" / "#rrggbb"."""
        if colour.quoted and not _HEX_COLOUR.fullmatch(colour.text):
            self.error("E223", f"{colour.text!r} is not a colour", colour.span,
                       hint='write a colour as "#rgb" or "#rrggbb", e.g. "#c03"')
            return False
        if not colour.quoted and colour.text not in ir.COLOURS:
            self.error("E223", f"no colour is called '{colour.text}'", colour.span,
                       hint=did_you_mean(colour.text, ir.COLOURS)
                       or 'name one such as red, or write "#rrggbb"')
            return False
        return True

    def layout(self, decl: ast.DisplayDecl, var: ir.Variable | None,
               pictures: tuple) -> ir.Board:
        """The words after a display's map: the axes, the board's shape, its colour."""
        options: dict[str, object] = {}
        words = list(decl.words)
        while words:
            word = words.pop(0)
            text = word.text
            if word.quoted or text not in ir.LAYOUT_WORDS:
                declaration = did_you_mean(text, sorted(_DECLARATION_WORDS))
                self.error("E223", f"'{text}' is no word of a display", word.span,
                           hint=(f"{declaration} A declaration starts a line of its own; "
                                 "here the word is read as part of the display before it"
                                 if declaration and not word.quoted else
                                 did_you_mean(text, ir.LAYOUT_WORDS)
                                 or "the words are " + ", ".join(ir.LAYOUT_WORDS)))
                continue
            key = "background" if text == "on" else "layout" if text in ("hex", "mancala") else text
            if key in options:
                self.error("E223", f"'{text}' says again what this display already says",
                           word.span, hint="say each once")
                continue
            if text == "on":
                colour = words.pop(0) if words else None
                if colour is None:
                    self.error("E223", "`on` needs the board's colour", word.span,
                               hint='e.g. `on green`, or `on "#2e7d32"`')
                    continue
                if not self.colour(colour):
                    continue
                options[key] = colour.text
                continue
            options[key] = text if key == "layout" else True
            shape = var.shape if var is not None else None
            if text == "hex" and shape is not None and len(shape) != 2:
                self.error("E223", "`hex` draws a board of two indices (rows of hexagons)",
                           word.span, hint=f"'{decl.name.name}' has {len(shape)}")
            if text == "mancala" and shape is not None and (
                    len(shape) != 1 or shape[0] < 4 or shape[0] % 2):
                self.error("E223", "`mancala` draws a one-index array of 2n + 2 pits (each "
                           "side's n houses, then its store)", word.span,
                           hint=f"'{decl.name.name}' has shape {list(shape)}")
        return ir.Board(decl.name.name, pictures, **options)   # type: ignore[arg-type]

    def clicks(self, decls, game: ir.Game, actions) -> tuple[ir.Click, ...]:
        """`display ACTION(names) as cell[...] [-> cell[...]]`: which clicks play an action."""
        by_name = {a.name: a for a in actions if a is not None}
        declared = {d.name.name for d in decls if isinstance(d, ast.ActionDecl)}
        variables = {v.name: v for v in game.variables}
        found: list[ir.Click] = []
        seen: dict[str, ast.DisplayMoveDecl] = {}
        for decl in decls:
            if not isinstance(decl, ast.DisplayMoveDecl):
                continue
            name = decl.action.name
            if name not in declared:
                if name in variables:
                    self.error("E223", f"'{name}' is a variable, and a click plays an action",
                               decl.action.span, hint=f"`display {name} as {{...}}` draws it; "
                               "`display ACTION(...) as " + f"{name}[...]` plays ACTION on it")
                else:
                    self.unknown(name, decl.action.span, _Scope(), list(declared))
                continue
            if name in seen:
                self.error("E200", f"a second display of the action '{name}'", decl.action.span,
                           hint=f"the first is on line {seen[name].span.line}")
                continue
            seen[name] = decl
            action = by_name.get(name)
            if action is None:
                continue        # (its own error is reported)
            names = decl.names or ()
            if len(names) != len(action.params):
                count = len(action.params)
                self.error("E202", f"'{name}' has {count} parameter(s), and {len(names)} "
                           "name(s) are given", decl.action.span,
                           hint=f"name each: `display {name}"
                           + (f"({', '.join(p for p, _, _ in action.params)})" if count else "")
                           + " as ...`")
                continue
            for ident in names:
                self.check_local_name(ident, [n.name for n in names if n is not ident])
            scope = _Scope({ident.name: type_ for ident, (_, type_, _) in zip(names, action.params)})
            cells = []
            for cell in decl.cells:
                checked = self.board_cell(cell, scope, game)
                if checked is not None:
                    cells.append(checked)
            if len(cells) == len(decl.cells):
                found.append(ir.Click(action, tuple(n.name for n in names), tuple(cells), decl.span))
        return tuple(found)

    def board_cell(self, cell: ast.BoardCell, scope: _Scope, game: ir.Game) -> ir.BoardCell | None:
        name = cell.var.name
        var = next((v for v in game.variables if v.name == name), None)
        if var is None:
            entry = self.globals.get(name)
            if entry is None:
                self.unknown(name, cell.var.span, scope)
            else:
                self.error("E223", f"'{name}' is a {entry[0]}, not a board to click on",
                           cell.var.span, hint="a click names a cell of a displayed `var`")
            return None
        if name not in game.boards:
            self.error("E223", f"'{name}' is not displayed, so it has no cell to click",
                       cell.var.span, hint=f"add `display {name}`")
            return None
        if len(cell.indices) > len(var.shape):
            self.error("E214", f"'{name}' takes {len(var.shape)} index(es), given "
                       f"{len(cell.indices)}", cell.span,
                       hint="fewer indices name every cell they select (`cell[c]`: a column)")
            return None
        indices = self.indices(name, var.shape[:len(cell.indices)], cell.indices, scope, cell.span)
        if indices is None:
            return None
        return ir.BoardCell(var, indices, cell.span)

    # ---- explicit trees --------------------------------------------------------------------

    def tree_has_chance(self, node) -> bool:
        return any(True for _ in _walk(node, ast.TreeChance))

    def tree(self, node: ast.TreeNode, game: ir.Game):
        if isinstance(node, ast.TreeLeaf):
            values = tuple(v.numerator if v.denominator == 1 else v for v in node.values)
            n = len(self.players)
            if len(values) == 1 and n == 2 and game.sum_kind in (ZERO_SUM, CONSTANT_SUM):
                return Leaf((values[0], game.sum_total - values[0]))
            if len(values) != n:
                hint = ("declare `zero-sum` to give one number per leaf"
                        if n == 2 and len(values) == 1 else f"write ({', '.join(self.players)})")
                self.error("E216", f"a leaf needs {n} value(s), one per player; it has {len(values)}",
                           node.span, hint=hint)
                return Leaf((0,) * n)
            return Leaf(values)
        if isinstance(node, ast.TreeDecision):
            player = node.player.name
            if player not in self.players:
                self.unknown(player, node.player.span, _Scope(), candidates=self.players)
                index = 0
            else:
                index = self.players.index(player)
            labels: dict[str, ast.Ident] = {}
            children = []
            for label, child in node.edges:
                if label.name in labels:
                    self.error("E200", f"two edges named '{label.name}' at this node", label.span)
                labels[label.name] = label
                children.append((label.name, self.tree(child, game)))
            return Decision(index, tuple(children))
        edges: list[tuple[str, Fraction, ir.Node]] = []
        outcome_names: set[str] = set()
        for number, edge in enumerate(node.edges, start=1):
            outcome = edge.label.name if edge.label else str(number)
            if outcome in outcome_names:
                self.error("E200", f"two outcomes named '{outcome}' at this chance node", edge.span)
            outcome_names.add(outcome)
            edges.append((outcome, edge.probability, self.tree(edge.child, game)))
        problem = distribution_problem([(outcome, p) for outcome, p, _ in edges])
        if problem:
            total = sum((p for _, p, _ in edges), Fraction(0))
            listing = ", ".join(f"{outcome}: {p}" for outcome, p, _ in edges)
            self.error("E217", problem, node.span, notes=[f"outcomes {{{listing}}} sum to {total}"],
                       hint="probabilities are exact fractions like 1/6 and must sum to exactly 1")
        return Chance(tuple(edges))

    # ---- expressions -----------------------------------------------------------------------

    def typed(self, node: ast.Expr, scope: _Scope, want: str, what: str) -> ir.Expr:
        """``node`` checked to have type ``want``; an integer is also a rational number (NUM)."""
        expr = self.expr(node, scope)
        if expr.type not in (want, ERROR) and not (want == NUM and expr.type == INT):
            wanted = "a number" if want == NUM else _TYPE_WORDS[want]
            self.error("E203", f"{what} must be {wanted}, not {_TYPE_WORDS[expr.type]}",
                       node.span, hint=DIVISION_HINT if expr.type == NUM else None)
            return self.placeholder(node.span)
        return expr

    def unknown(self, name: str, span: Span, scope: _Scope, candidates=None) -> ir.Lit:
        pool = list(candidates) if candidates is not None else [
            *self.globals, *scope.names, "mover", "true", "false", "players", "abs", "min", "max",
            *(["opponent"] if len(self.players) == 2 else [])]
        hint = did_you_mean(name, pool)
        if name.lower() in ("true", "false") and name not in pool:
            hint = f"write `{name.lower()}`: the language's words are lower case"
        ended = self.ended_binders.get(name)
        fix = None
        if name in self.cut_by_if and candidates is None:
            hint, fix = self.cut_by_if[name]
        elif ended is not None and candidates is None and (ended.end_line, ended.end_column) <= (
                span.line, span.column) and span.line - ended.line <= 3:
            hint = (f"'{name}' is bound by the quantifier or `let` at line {ended.line}, column "
                    f"{ended.column}, whose body ends at the first comparison: put the body in "
                    "parentheses, e.g. `any i in 0..2: (a[i] == 0 or b[i] == 0)`")
        self.error("E201", f"unknown name '{name}'", span, hint=hint, fix=fix)
        return self.placeholder(span)

    def expr(self, node: ast.Expr, scope: _Scope) -> ir.Expr:
        span = node.span
        if isinstance(node, ast.IntLit):
            return ir.Lit(node.value, INT, span)
        if isinstance(node, ast.BoolLit):
            return ir.Lit(node.value, BOOL, span)
        if isinstance(node, ast.Mover):
            if not scope.state:
                return self.not_constant(node)
            if not scope.mover and scope.where == "then":
                self.error("E226", "`mover` has no value in `simultaneous ... then`: every "
                           "acting player has just moved", span,
                           hint="name the player, or loop over them: `for p in players { ... }`")
                return self.placeholder(span)
            if not scope.mover:
                self.error("E226", "`mover` has no value in `init`: nobody has moved yet", span,
                           hint="name the player (`next A` chooses who moves first)")
                return self.placeholder(span)
            return ir.Mover(SYM, span)
        if isinstance(node, (ast.Name, ast.Index)):
            return self.reference(node, scope)
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.Unary):
            operand = self.expr(node.operand, scope)
            wants = _NUMBERS if node.op == "-" else (BOOL,)
            if operand.type not in (*wants, ERROR):
                wanted = "a number" if node.op == "-" else "a boolean"
                self.error("E203", f"'{node.op}' needs {wanted}, not {_TYPE_WORDS[operand.type]}",
                           node.operand.span)
                return self.placeholder(span)
            return ir.Unary(node.op, operand, operand.type, span)
        if isinstance(node, ast.Binary):
            return self.binary(node, scope)
        if isinstance(node, ast.IfExpr):
            return self.if_expr(node, scope)
        if isinstance(node, ast.Quantifier):
            return self.quantifier(node, scope)
        if isinstance(node, ast.Let):
            return self.let(node, scope)
        if isinstance(node, ast.Member):
            return self.member(node, scope)
        if isinstance(node, ast.ListLit):
            self.error("E203", "a list can only be the value of a `const` or a `var`'s initial value",
                       span)
            return self.placeholder(span)
        raise AssertionError(f"unknown expression {node!r}")

    def if_expr(self, node: ast.IfExpr, scope: _Scope) -> ir.Expr:
        span = node.span
        cut = self.cut_short(node)
        outer = dict(self.cut_by_if)
        if cut is not None:
            bound = ([b.name.name for b in cut[0].binders] if isinstance(cut[0], ast.Quantifier)
                     else [ident.name for ident, _ in cut[0].bindings])
            self.cut_by_if.update((name, (f"'{name}' is bound by {cut[1]}", cut[2]))
                                  for name in bound)
        try:
            cond = self.typed(node.cond, scope, BOOL, "a condition")
            then, otherwise = self.expr(node.then, scope), self.expr(node.otherwise, scope)
        finally:
            self.cut_by_if = outer
        if ERROR in (then.type, otherwise.type):
            return self.placeholder(span)
        if {then.type, otherwise.type} == {INT, NUM}:
            return ir.IfExpr(cond, then, otherwise, NUM, span)
        if then.type != otherwise.type:
            self.error("E203", f"the two branches differ: {_TYPE_WORDS[then.type]} and "
                       f"{_TYPE_WORDS[otherwise.type]}", node.otherwise.span,
                       hint=f"the first branch is {cut[1]}" if cut is not None else None)
            return self.placeholder(span)
        return ir.IfExpr(cond, then, otherwise, then.type, span)

    def cut_short(self, node: ast.IfExpr) -> tuple[ast.Quantifier | ast.Let, str, Fix | None] | None:
        """Where the first branch of ``node`` is a quantifier or `let` written without
        parentheses, whose body the `if` therefore ended: the binder, the explanation (how it
        reads, and the parentheses that make the conditional its body) and that edit."""
        first = node.then
        if not isinstance(first, (ast.Quantifier, ast.Let)) or (
                (first.span.line, first.span.column) != (node.span.line, node.span.column)):
            return None
        kind = f"`{first.kind}`" if isinstance(first, ast.Quantifier) else "`let`"
        where = f"the {kind} at line {first.span.line}, column {first.span.column}"
        text = self.source.line(node.span.line) if self.source is not None else ""
        body = first.body.span
        fix = None
        if text and node.span.end_line == node.span.line == body.line:
            head = text[first.span.column - 1:body.column - 1]
            rest = text[body.column - 1:node.span.end_column - 1]
            inner = text[body.column - 1:first.span.end_column - 1]
            after = text[first.span.end_column - 1:node.span.end_column - 1].lstrip()
            reads = f"`({head}{inner}) {after}`"
            fixed = f"`{head}({rest})`"
            fix = Fix(node.span, f"{head}({rest})")
        else:
            reads = "`(any i in D: body) if c else d`"
            fixed = "`any i in D: (body if c else d)`"
        return first, (f"{where}, whose body ends before `if`: a conditional binds more loosely "
                       f"than a quantifier's or a `let`'s body, so this reads {reads}; to make the "
                       f"conditional the body, write {fixed}"), fix

    def not_constant(self, node) -> ir.Lit:
        self.error("E211", "this must be a constant, but it depends on the state", node.span,
                   hint="sizes, ranges and parameters may use only numbers, params and consts")
        return self.placeholder(node.span)

    def binary(self, node: ast.Binary, scope: _Scope) -> ir.Expr:
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        if ERROR in (left.type, right.type):
            return self.placeholder(node.span)
        op = node.op
        if op in _EXACT or op in _ORDERING:
            for side, operand in ((node.left, left), (node.right, right)):
                if operand.type not in _NUMBERS:
                    self.error("E203", f"'{op}' needs numbers, not {_TYPE_WORDS[operand.type]}",
                               side.span)
                    return self.placeholder(node.span)
            if op in _ORDERING:
                return ir.Binary(op, left, right, BOOL, node.span)
            type_ = NUM if op == "/" else _number_type(left.type, right.type)
            return ir.Binary(op, left, right, type_, node.span)
        if op in _INTEGRAL:
            for side, operand in ((node.left, left), (node.right, right)):
                if operand.type != INT:
                    self.error("E203", f"'{op}' needs integers, not {_TYPE_WORDS[operand.type]}",
                               side.span, hint=DIVISION_HINT if operand.type == NUM else None)
                    return self.placeholder(node.span)
            return ir.Binary(op, left, right, INT, node.span)
        if op in ("and", "or"):
            for side, operand in ((node.left, left), (node.right, right)):
                if operand.type != BOOL:
                    self.error("E203", f"'{op}' needs booleans, not {_TYPE_WORDS[operand.type]}",
                               side.span)
                    return self.placeholder(node.span)
            return ir.Binary(op, left, right, BOOL, node.span)
        if left.type != right.type and {left.type, right.type} != {INT, NUM}:
            self.error("E203", f"cannot compare {_TYPE_WORDS[left.type]} with "
                       f"{_TYPE_WORDS[right.type]}", node.span)
            return self.placeholder(node.span)
        return ir.Binary(op, left, right, BOOL, node.span)

    def quantifier(self, node: ast.Quantifier, scope: _Scope) -> ir.Expr:
        names, binders = self.binders(node.binders, scope)
        if len(binders) != len(node.binders):
            return self.placeholder(node.span)
        if node.kind in ("min", "max") and any(isinstance(v, ir.Range) for _, _, v in binders):
            self.error("E210", f"`{node.kind}` needs a constant range: this one depends on a local "
                       "name and may be empty", node.span,
                       hint=f"use a constant range and a condition, e.g. `{node.kind} i in 0..9: "
                       "(x if i <= k else ...)`")
            return self.placeholder(node.span)
        want = BOOL if node.kind in ("any", "all", "count") else NUM
        # A range that depends on a local name is at most as long as the constant ranges it is
        # built from; it is not counted here (its length is known only where it is used).
        combinations = 1
        for _, _, values in binders:
            if not isinstance(values, ir.Range):
                combinations *= len(values)
        outer = self.quantifier_scale
        if outer * combinations > MAX_QUANTIFIED:
            # A search's time budget is looked at between positions: one position whose rule
            # evaluates a body 10^9 times would run past any budget, so it is refused here.
            self.error("E210", f"nested quantifiers evaluate this body {outer * combinations:,} "
                       f"times, more than {MAX_QUANTIFIED:,}", node.span,
                       hint="quantify over smaller ranges, or keep the count in a variable")
            return self.placeholder(node.span)
        self.quantifier_scale = outer * combinations
        try:
            body = self.typed(node.body, scope.bind(names), want, f"the body of `{node.kind}`")
        finally:
            self.quantifier_scale = outer
        self.ended_binders.update((n, node.span) for n in names)
        type_ = BOOL if node.kind in ("any", "all") else INT if node.kind == "count" else body.type
        if type_ == ERROR:
            return self.placeholder(node.span)
        return _nest_quantifier(node.kind, tuple((n, v) for n, _, v in binders), body, type_,
                                node.span)

    def member(self, node: ast.Member, scope: _Scope) -> ir.Expr:
        """`v in {a, b}` is `v == a or v == b`; `v in lo..hi` is `lo <= v and v <= hi`."""
        value = self.expr(node.value, scope)
        if value.type == ERROR:
            return self.placeholder(node.span)
        if node.range is not None:
            low = self.typed(node.range.low, scope, NUM, "a range bound")
            high = self.typed(node.range.high, scope, NUM, "a range bound")
            if value.type not in _NUMBERS:
                self.error("E203", f"`in lo..hi` needs a number, not {_TYPE_WORDS[value.type]}",
                           node.value.span)
                return self.placeholder(node.span)
            if ERROR in (low.type, high.type):
                return self.placeholder(node.span)
            return ir.Binary("and", ir.Binary("<=", low, value, BOOL, node.span),
                             ir.Binary("<=", value, high, BOOL, node.span), BOOL, node.span)
        if value.type != SYM:
            self.error("E203", f"`in {{...}}` needs a symbol, not {_TYPE_WORDS[value.type]}",
                       node.value.span, hint="for numbers, write a range: `x in 1..3`")
            return self.placeholder(node.span)
        test: ir.Expr | None = None
        for ident in node.symbols or ():
            if ident.name not in self.symbol_ids:
                self.unknown(ident.name, ident.span, scope, candidates=self.symbols)
                return self.placeholder(node.span)
            same = ir.Binary("==", value, ir.Lit(self.symbol_ids[ident.name], SYM), BOOL, node.span)
            test = same if test is None else ir.Binary("or", test, same, BOOL, node.span)
        return test if test is not None else ir.Lit(False, BOOL, node.span)   # in no symbol

    def let(self, node: ast.Let, scope: _Scope) -> ir.Expr:
        bound: dict[str, str] = {}
        values = []
        for ident, value_node in node.bindings:
            self.check_local_name(ident, scope.names.keys() | bound.keys())
            value = self.expr(value_node, scope.bind(bound))   # may use the names before it
            bound[ident.name] = value.type
            values.append((ident.name, value))
        body = self.expr(node.body, scope.bind(bound))
        self.ended_binders.update((n, node.span) for n in bound)
        if body.type == ERROR or any(v.type == ERROR for _, v in values):
            return self.placeholder(node.span)
        for name, value in reversed(values):
            body = ir.Let(name, value, body, body.type, node.span)
        return body

    def call(self, node: ast.Call, scope: _Scope) -> ir.Expr:
        name = node.func.name
        args = [self.expr(a, scope) for a in node.args]
        if name in ("abs", "min", "max"):
            if (name in ("min", "max") and len(args) < 2) or (name == "abs" and len(args) != 1):
                arity = "one argument" if name == "abs" else "two or more arguments"
                self.error("E202", f"{name}() takes {arity}, "
                           f"given {len(args)}", node.span)
                return self.placeholder(node.span)
            for arg, source in zip(args, node.args):
                if arg.type not in (*_NUMBERS, ERROR):
                    self.error("E203", f"{name}() needs numbers, not {_TYPE_WORDS[arg.type]}", source.span)
                    return self.placeholder(node.span)
            if any(arg.type == ERROR for arg in args):
                return self.placeholder(node.span)
            return ir.Builtin(name, tuple(args), _number_type(*(a.type for a in args)), node.span)
        return self.call_define(name, node.func.span, args, node.span, scope)

    def call_define(self, name: str, name_span: Span, args, span: Span, scope: _Scope) -> ir.Expr:
        decl = self.define_decls.get(name)
        if decl is None:
            if name in self.globals:
                self.error("E203", f"'{name}' is a {self.globals[name][0]}, not a definition to call",
                           name_span)
                return self.placeholder(span)
            return self.unknown(name, name_span, scope,
                                candidates=[*self.define_decls, "abs", "min", "max"])
        if len(args) != len(decl.params):
            self.error("E202", f"'{name}' takes {len(decl.params)} argument(s), given {len(args)}",
                       span, hint=f"declared on line {decl.span.line}: "
                       f"{name}({', '.join(p.name for p in decl.params)})")
            return self.placeholder(span)
        if any(a.type == ERROR for a in args):
            return self.placeholder(span)
        if not scope.state:
            return self.not_constant(ast.Name(name, span))
        signature = tuple(a.type for a in args)
        key = (name, signature)
        if key not in self.define_instances:
            if len(self.defines_in_progress) >= MAX_DEFINE_DEPTH:
                self.error("E103", f"definitions call each other more than {MAX_DEFINE_DEPTH} deep "
                           f"('{self.defines_in_progress[0]}' down to '{name}')", span,
                           hint="write the chain as a quantifier or a table")
                return self.placeholder(span)
            if name in self.defines_in_progress:
                self.error("E212", f"'{name}' is defined in terms of itself", decl.name.span,
                           hint="definitions cannot be recursive; use a quantifier instead")
                return self.placeholder(span)
            self.defines_in_progress.append(name)
            for param in decl.params:
                self.check_local_name(param, ())
            outer, self.quantifier_scale = self.quantifier_scale, 1   # a define is checked once
            body = self.expr(decl.body, _Scope(dict(zip((p.name for p in decl.params), signature))))
            self.quantifier_scale = outer
            self.defines_in_progress.pop()
            self.define_instances[key] = ir.Define(name, tuple(p.name for p in decl.params), body,
                                                   body.type, decl.span)
        define = self.define_instances[key]
        if define.type == ERROR:
            return self.placeholder(span)
        return ir.Call(define, tuple(args), define.type, span)

    def reference(self, node, scope: _Scope) -> ir.Expr:
        base, index_nodes = node, []
        while isinstance(base, ast.Index):
            index_nodes.append(base.index)
            base = base.base
        index_nodes.reverse()
        if not isinstance(base, ast.Name):
            self.error("E203", "only variables and constants can be indexed", base.span)
            return self.placeholder(node.span)
        name = base.name
        if name in scope.names:
            if index_nodes:
                self.error("E214", f"'{name}' is a single value and takes no index", node.span)
                return self.placeholder(node.span)
            type_ = scope.names[name]
            return ir.Local(name, type_, node.span) if type_ != ERROR else self.placeholder(node.span)
        entry = self.globals.get(name)
        if entry is None and name == "opponent" and not index_nodes:
            return self.opponent(node, scope)
        if entry is None:
            return self.unknown(name, base.span, scope)
        kind, payload, _ = entry
        if kind in ("player", "symbol", "param") and index_nodes:
            self.error("E214", f"'{name}' is a single value and takes no index", node.span)
            return self.placeholder(node.span)
        if kind in ("player", "symbol"):
            return ir.Lit(payload, SYM, node.span)
        if kind == "param":
            return ir.Lit(payload, self.param_types[name], node.span)
        if kind == "define":
            if index_nodes:
                self.error("E214", f"'{name}' is a definition and takes no index", node.span)
                return self.placeholder(node.span)
            return self.call_define(name, base.span, [], node.span, scope)
        if payload is None:
            return self.placeholder(node.span)
        if kind == "const" and isinstance(payload, ir.Constant) and payload.keys is not None:
            return self.map_lookup(name, payload, index_nodes, scope, node.span)
        if kind == "const":
            const: ir.Constant = payload
            indices = self.indices(name, const.shape, index_nodes, scope, node.span)
            if indices is None:
                return self.placeholder(node.span)
            if all(isinstance(i, ir.Lit) for i in indices):
                value: Any = const.value     # nested tuples, one level per index
                for i in indices:
                    value = value[i.value]
                return ir.Lit(value, const.type, node.span)
            return ir.ConstRef(const, indices, const.type, node.span)
        if not scope.state:
            return self.not_constant(node)
        var: ir.Variable = payload
        indices = self.indices(name, var.shape, index_nodes, scope, node.span)
        if indices is None:
            return self.placeholder(node.span)
        return ir.VarRef(var, indices, var.type, node.span)

    def opponent(self, node, scope: _Scope) -> ir.Expr:
        """The built-in `opponent` of a two-player game: the player who is not to move (a file
        that declares its own `opponent` uses that instead)."""
        if len(self.players) != 2:
            self.error("E201", "unknown name 'opponent'", node.span,
                       hint="`opponent` is built in for two-player games only")
            return self.placeholder(node.span)
        mover = self.expr(ast.Mover(node.span), scope)
        if mover.type == ERROR:
            return mover
        first = ir.Binary("==", mover, ir.Lit(0, SYM), BOOL, node.span)
        return ir.IfExpr(first, ir.Lit(1, SYM, node.span), ir.Lit(0, SYM, node.span), SYM, node.span)

    def indices(self, name, shape, index_nodes, scope: _Scope, span: Span):
        if len(index_nodes) != len(shape):
            self.error("E214", f"'{name}' takes {len(shape)} index(es), given {len(index_nodes)}",
                       span, hint=f"'{name}' has shape {list(shape)}" if shape else
                       f"'{name}' is a single value")
            return None
        indices = []
        for node, extent in zip(index_nodes, shape):
            index = self.expr(node, scope)
            if index.type == ERROR:
                return None
            if index.type not in (INT, SYM):
                self.error("E203", f"an index must be an integer or a player, not "
                           f"{_TYPE_WORDS[index.type]}", node.span,
                           hint=DIVISION_HINT if index.type == NUM else None)
                return None
            if isinstance(index, ir.Lit) and not 0 <= index.value < extent:
                self.error("E220", f"index {self.show(index.value, index.type)} is out of range "
                           f"0..{extent - 1} for '{name}'", node.span)
                return None
            indices.append(index)
        return tuple(indices)


# ---- helpers ---------------------------------------------------------------------------------

def _first_range(binders) -> int:
    """The position of the first binder after the first whose range is computed (ir.Range), or 0."""
    return next((k for k, (_, values) in enumerate(binders) if k and isinstance(values, ir.Range)), 0)


def _nest_quantifier(kind: str, binders, body: ir.Expr, type_: str, span: Span) -> ir.Expr:
    """A quantifier whose later binder's range depends on an earlier one, as nested quantifiers
    (`count i in 0..3, j in i..3: c` is `sum i in 0..3: count j in i..3: c`), so that every
    binder list a back end meets has its ranges computable before the list is entered."""
    split = _first_range(binders)
    if not split:
        return ir.Quantifier(kind, binders, body, type_, span)
    inner = _nest_quantifier(kind, binders[split:], body, type_, span)
    return ir.Quantifier("sum" if kind == "count" else kind, binders[:split], inner, type_, span)

def _walk(node, kind):
    """Every node of type ``kind`` inside a syntax tree (dataclasses, tuples)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, kind):
            yield item
        if isinstance(item, tuple):
            stack.extend(reversed(item))
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(reversed([getattr(item, f) for f in item.__dataclass_fields__ if f != "span"]))


def _uses_state(expr) -> bool:
    return any(True for _ in _walk(expr, (ir.VarRef, ir.Mover, ir.Local)))


def _possible_symbols(expr: ir.Expr, players: int) -> frozenset[int] | None:
    """The values a symbol-valued expression can take, where that is plain from the expression
    (a literal, a variable's domain, `mover`, a choice between such); None where it is not."""
    if isinstance(expr, ir.Lit):    # (a symbol's value is its number)
        return frozenset((expr.value,)) if isinstance(expr.value, int) else None
    if isinstance(expr, ir.VarRef):
        return frozenset(expr.var.values)
    if isinstance(expr, ir.Mover):
        return frozenset(range(players))
    if isinstance(expr, ir.IfExpr):
        then, otherwise = _possible_symbols(expr.then, players), _possible_symbols(expr.otherwise, players)
        return None if then is None or otherwise is None else then | otherwise
    return None


def _kind_of(value) -> str:
    if type(value) is Fraction:
        return f"the fraction {value}"
    return "a boolean" if type(value) is bool else "an integer"


def _table_shape(value):
    """(shape, True) for a rectangular table, ((), None) for a ragged one."""
    if isinstance(value, tuple):
        parts = [_table_shape(item) for item in value]
        if not parts or any(p != parts[0] for p in parts) or parts[0][1] is None:
            return (), None
        return (len(value), *parts[0][0]), True
    return (), True


def _broadcast(value, shape):
    """The cells of a var, row-major: a scalar fills every cell; a table must match the shape."""
    size = 1
    for extent in shape:
        size *= extent
    if not isinstance(value, tuple):
        return [value] * size
    found, _ = _table_shape(value)
    if found != tuple(shape):
        return None
    cells = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(reversed(item))
        else:
            cells.append(item)
    return cells


# ---- display -----------------------------------------------------------------------------------

_HEX_COLOUR = re.compile(r"#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?")
# Words that start a declaration: a misspelt one after a display reads as a display word.
_DECLARATION_WORDS = frozenset({"game", "players", "param", "const", "var", "action", "define",
                                "terminal", "utility", "evaluate", "quiet", "when", "display",
                                "tree", "init", "tier", "simultaneous", "private", "hidden"})
_IMAGE_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)*")


def _image_problem(path: ast.Word) -> str | None:
    """Why an image's file cannot be one shipped with the game, or None: it is named by a
    relative path, in letters, digits, '_', '-' and '.', under the rule file's directory (no
    '..', no absolute path, no hidden file), ending in .svg or .png."""
    text = path.text
    if not path.quoted:
        return "an image's file is written in quotes"
    if not _IMAGE_PATH.fullmatch(text) or any(part in (".", "..") for part in text.split("/")):
        return f"{text!r} is not a file under the rule file's directory"
    if not any(text.lower().endswith(suffix) for suffix in ir.IMAGE_TYPES):
        return f"{text!r} is neither .svg nor .png"
    return None
