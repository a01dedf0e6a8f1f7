"""Fuzzing solver agreement: the engine behind `gdl fuzz` and tests/test_agreement.py (it never
prints).

Every solver of gdl answers the same question in its own way, so on any game they must agree:
the same value vector, the same *set* of optimal root actions (in declaration order), and a
principal variation that starts with one of them and follows legal moves. This module

* runs every solver (and every alpha-beta engine option) that applies to a game at a position,
  and compares each with a small, obviously correct **oracle** (a memoised recursion: first best
  action on ties, exact expectation at chance nodes; that is minimax, expectiminimax and max^n at
  once), see ``compare_position``;
* compares paranoid search with the oracle on ``ParanoidView`` (the game as one player against
  the rest), on which every two-player solver is run as well;
* checks claims the solvers make about their own work: Star1/Star2 visit no more nodes than
  expectiminimax, max^n with shallow pruning no more than without;
* checks **metamorphic** properties of rule files and trees: renaming every identifier, reordering
  declarations, adding a constant to every utility or scaling them by a positive integer change
  the values exactly as they should and the optimal actions not at all (``metamorphic_problems``);
* compares the compiled backend (gdl.backends.compiler) with the reference interpreter, state by state
  (``backend_problems``), when the compiler is there;
* on a rule file of yours (``gdl fuzz FILE``), compares the native tier's searches with the
  Python solvers at every position, counters included (``native_problems``), when a C compiler
  is there;
* on games that can repeat a position (two players, constant-sum), which the tree solvers cannot
  take, checks the strong solver at every position against a reference computed through the
  protocol, against its own solve of the interpreted game, and through the position database
  (``strong_problems``; generated ones are the target "cyclic games");
* on games with simultaneous moves or hidden information, which are solved as a whole, compares
  the whole game's solvers: the exact ones against each other and their own claims, CFR+, CFR
  and MCCFR against the exact value they must bracket, and another CFR (OpenSpiel's) where one
  is given (``wide_problems``);
* runs hypothesis programmatically, with a fixed seed and no example database, and returns the
  shrunk counterexample (``run_property``); ``fuzz_generated`` and ``fuzz_file`` are what
  `gdl fuzz` runs, with or without files.
"""

from __future__ import annotations

import itertools
import random as _random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from gdl.lang import ast
from gdl.lang.text import read_rule_file
from gdl.moves import choices, successors
from gdl.protocol import CHANCE, CONSTANT_SUM, GENERAL_SUM, TERMINAL, ZERO_SUM, GameInfo, format_value
from gdl.tools.count import EndlessGame, find_cycle, reachable_states

if TYPE_CHECKING:
    from gdl.solvers.exploitability import Exploitability

__all__ = [
    "CYCLIC_MAX_STATES",
    "Comparison",
    "NotCompared",
    "Problem",
    "Summary",
    "TooBigToCheck",
    "affine_applies",
    "affine_utilities",
    "backend_problems",
    "check_cyclic_example",
    "compare_position",
    "cyclic_games",
    "cyclic_reference",
    "engine_options",
    "fuzz_file",
    "fuzz_generated",
    "metamorphic_problems",
    "oracle",
    "rename_identifiers",
    "reorder_declarations",
    "run_property",
    "strong_problems",
    "tree_file",
    "wide_backend_problems",
    "wide_problems",
]


# ==== results ===================================================================================

@dataclass(frozen=True)
class Problem:
    """One disagreement (or a broken claim, or a crash), in words."""
    kind: str        # values | best_actions | pv | proven | claim | error | metamorphic | backend
    solver: str
    message: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.solver}: {self.message}"


@dataclass
class Comparison:
    """What was compared at one position: the solvers run and the problems found."""
    solvers: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def pairs(self) -> int:
        return len(self.solvers)


# ==== the oracle ================================================================================

@dataclass(frozen=True)
class Verdict:
    values: tuple
    best_actions: tuple        # actions (not names), declaration order
    action_values: tuple       # (action, values) for every root action


class Rooted:
    """``game`` started from another state."""

    def __init__(self, game: Any, root: Any):
        self._game, self._root = game, root
        self.info = game.info

    def initial_state(self):
        return self._root

    def __getattr__(self, name: str):
        return getattr(self._game, name)


def oracle(game: Any, state: Any = None, depth: int | None = None) -> Verdict:
    """The reference answer, by the plainest possible recursion (memoised on state and depth).

    Decision nodes keep the first child (declaration order) best for the mover; chance nodes
    average exactly; ``depth`` counts decision plies (chance nodes do not), and a non-terminal
    state reached with no depth left is scored by ``game.evaluate``."""
    import sys

    root = game.initial_state() if state is None else state
    memo: dict = {}

    def value(s, left):
        key = (s, left)
        if key in memo:
            return memo[key]
        p = game.current_player(s)
        if p == TERMINAL:
            result = tuple(game.returns(s))
        elif left is not None and left <= 0:
            result = tuple(game.evaluate(s))
        elif p == CHANCE:
            total = None
            for outcome, prob in game.chance_outcomes(s):
                child = value(game.apply(s, outcome), left)
                part = [Fraction(prob) * v for v in child]
                total = part if total is None else [a + b for a, b in zip(total, part)]
            result = tuple(_exact(v) for v in total)
        else:
            result = None
            for action in game.legal_actions(s):
                child = value(game.apply(s, action), None if left is None else left - 1)
                if result is None or child[p] > result[p]:
                    result = child
        memo[key] = result
        return result

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        values = value(root, depth)
        p = game.current_player(root)
        if p < 0 or (depth is not None and depth <= 0):
            return Verdict(values, (), ())
        below = None if depth is None else depth - 1
        children = tuple((a, value(game.apply(root, a), below)) for a in game.legal_actions(root))
    finally:
        sys.setrecursionlimit(old)
    best = max(v[p] for _, v in children)
    return Verdict(values, tuple(a for a, v in children if v[p] == best), children)


def _exact(v):
    v = Fraction(v)
    return v.numerator if v.denominator == 1 else v


# ==== running the solvers =======================================================================

def engine_options(full: bool = False) -> list:
    """The alpha-beta option sets a comparison runs: none, all of them, and all of them with a
    table of two entries (so replacement happens all the time); with ``full``, also each
    technique alone and a wider aspiration window. (Generated examples add one more set, drawn
    by hypothesis, so every combination comes up over a run.)"""
    from gdl.solvers.alphabeta import SearchOptions

    core = [SearchOptions(), SearchOptions.engine(), SearchOptions.engine(tt_size=2)]
    if not full:
        return core
    return core + [
        SearchOptions(tt=True),
        SearchOptions(tt=True, tt_size=2),
        SearchOptions(ordering=True),
        SearchOptions(tt=True, ordering=True, evaluation_plies=1),
        SearchOptions(killers=True, history=True),
        SearchOptions(iterative_deepening=True),
        SearchOptions(iterative_deepening=True, aspiration=True),
        SearchOptions(pvs=True),
        SearchOptions(quiescence=True, quiescence_depth=1),
        SearchOptions.engine(pvs=False, aspiration_window=3),
    ]


def options_label(options) -> str:
    from gdl.solvers.alphabeta import SearchOptions

    default = SearchOptions()
    changed = [f.name if getattr(options, f.name) is True else f"{f.name}={getattr(options, f.name)}"
               for f in options.__dataclass_fields__.values()
               if getattr(options, f.name) != getattr(default, f.name)]
    return "alphabeta[" + ",".join(changed) + "]"


def for_depth(options):
    """The engine options that keep depth-limited values equal to plain minimax's: no table (a
    deeper entry may answer a shallower question on a DAG) and no quiescence (it searches on)."""
    return replace(options, tt=False, quiescence=False)


# The strong solver joins the comparison on games up to this many positions (fuzzed games are
# small; a user's game may not be, and is then compared without it).
GRAPH_MAX_STATES = 20_000


def _graph_or_skip(game):
    """The strong solver's root result, or None (not compared) when the game is too big."""
    from gdl.graph import TooManyPositions, solve_root

    try:
        return solve_root(game, max_states=GRAPH_MAX_STATES)
    except TooManyPositions:
        return None


def _solver_calls(info: GameInfo, depth: int | None, options: Sequence,
                  table_at_depth: bool = False) -> list[tuple[str, Callable]]:
    """(label, function of a game) for every solver that applies to a game with this info.
    ``table_at_depth``: the game's states hold their distance from the root (every move adds one
    to a counter), so under a depth limit alpha-beta keeps its table (quiescence still goes)."""
    import gdl.solvers as solvers
    from gdl.solvers.alphabeta import alphabeta

    calls: list[tuple[str, Callable]] = []
    two = info.num_players == 2 and info.is_constant_sum
    if two and not info.has_chance:
        calls.append(("minimax", lambda g: solvers.solve(g, "minimax", depth=depth)))
        if depth is None or depth >= 1:
            seen = set()
            for opts in options:
                if depth is not None:
                    opts = replace(opts, quiescence=False) if table_at_depth else for_depth(opts)
                if opts in seen:
                    continue
                seen.add(opts)
                calls.append((options_label(opts),
                              lambda g, o=opts: alphabeta(g, depth=depth, options=o)))
    if two:
        calls.append(("expectiminimax", lambda g: solvers.solve(g, "expectiminimax", depth=depth)))
        if info.utility_bounds is not None:
            calls.append(("star1", lambda g: solvers.solve(g, "star1", depth=depth)))
            calls.append(("star2", lambda g: solvers.solve(g, "star2", depth=depth)))
            # their tables keep bounds that depend on the window (common.window_table)
            calls.append(("star2[table]", lambda g: solvers.solve(g, "star2", depth=depth,
                                                                  table=True)))
    calls.append(("maxn", lambda g: solvers.solve(g, "maxn", depth=depth, shallow_pruning=False)))
    if depth is None:   # the strong solver: every reachable position, by its own methods
        calls.append(("graph", _graph_or_skip))
    if solvers.shallow_pruning_applies(info):
        calls.append(("maxn[shallow]",
                      lambda g: solvers.solve(g, "maxn", depth=depth, shallow_pruning=True)))
    return calls


def _names(game, actions) -> tuple[str, ...]:
    return tuple(game.action_name(a) for a in actions)


def _show(values) -> str:
    return "(" + ", ".join(format_value(v) for v in values) + ")"


def _check_pv(game, root, result, label: str, problems: list[Problem]) -> None:
    """The principal variation starts with an optimal action and follows legal moves."""
    pv = tuple(result.pv)
    if game.current_player(root) >= 0 and result.best_actions:
        if not pv:
            problems.append(Problem("pv", label, "empty principal variation at a decision node"))
            return
        if pv[0] not in result.best_actions:
            problems.append(Problem("pv", label, f"principal variation starts with "
                                    f"{game.action_name(pv[0])}, not an optimal action"))
    state = root
    for action in pv:
        player = game.current_player(state)
        if player == TERMINAL:
            problems.append(Problem("pv", label, "principal variation goes past the end"))
            return
        legal = choices(game, state, player)
        if action not in legal:
            problems.append(Problem("pv", label, f"principal variation plays "
                                    f"{game.action_name(action)!r}, not legal there"))
            return
        state = game.apply(state, action)


def compare_position(game: Any, state: Any = None, depth: int | None = None,
                     options: Sequence | None = None, reference_game: Any = None,
                     views: bool = True, claims: bool = True,
                     reference_state: Any = None, table_at_depth: bool = False) -> Comparison:
    """Run every applicable solver on ``game`` from ``state`` (default: the initial state) and
    compare each with the oracle, which runs on ``reference_game`` (default ``game``; give the
    interpreted game to compare a compiled one with it). ``options``: the alpha-beta option sets
    (default ``engine_options()``); ``reference_state`` is the position in ``reference_game``
    (default: ``state``). With ``views``, paranoid search is compared with the oracle on
    each player's ``ParanoidView``, and for games alpha-beta cannot take directly (more players,
    general-sum) the two-player solvers run on those views too. ``table_at_depth``: see
    ``_solver_calls``."""
    from gdl.solvers.paranoid import ParanoidView, paranoid

    options = engine_options() if options is None else options
    root = game.initial_state() if state is None else state
    reference = reference_game if reference_game is not None else game
    reference_root = root if reference_state is None else reference_state
    comparison = Comparison()
    problems = comparison.problems
    info = game.info
    truth = oracle(reference, reference_root, depth)
    truth_best = _names(reference, truth.best_actions)
    rooted = Rooted(game, root)
    nodes: dict[str, int] = {}

    def run(label: str, call: Callable, target, expected: Verdict, expected_best: tuple) -> Any:
        comparison.solvers.append(label)
        try:
            result = call(target)
        except Exception as error:
            problems.append(Problem("error", label, f"{type(error).__name__}: {error}"))
            return None
        if result is None:          # the solver does not apply here (too big): not compared
            comparison.solvers.pop()
            return None
        nodes[label] = result.stats.nodes
        if tuple(result.values) != tuple(expected.values):
            problems.append(Problem("values", label, f"value {_show(result.values)}, "
                                    f"the oracle says {_show(expected.values)}"))
        best = _names(target, result.best_actions)
        if best != expected_best:
            problems.append(Problem("best_actions", label, f"optimal actions {list(best)}, "
                                    f"the oracle says {list(expected_best)}"))
        if depth is None and not result.proven:
            problems.append(Problem("proven", label, "a full-depth result marked not proven"))
        _check_pv(target, target.initial_state(), result, label, problems)
        return result

    for label, call in _solver_calls(info, depth, options, table_at_depth):
        run(label, call, rooted, truth, truth_best)

    if claims:
        for fast in ("star1", "star2"):
            if fast in nodes and "expectiminimax" in nodes and nodes[fast] > nodes["expectiminimax"]:
                problems.append(Problem("claim", fast, f"visited {nodes[fast]} nodes, more than "
                                        f"expectiminimax's {nodes['expectiminimax']}"))
        if "maxn[shallow]" in nodes and nodes["maxn[shallow]"] > nodes["maxn"]:
            problems.append(Problem("claim", "maxn[shallow]", f"visited {nodes['maxn[shallow]']} "
                                    f"nodes, more than plain max^n's {nodes['maxn']}"))

    if views and info.num_players >= 2:
        two = info.num_players == 2 and info.is_constant_sum
        for player in range(info.num_players):
            view = ParanoidView(rooted, player)
            view_truth = oracle(ParanoidView(Rooted(reference, reference_root), player), None,
                                depth)
            view_best = _names(reference, view_truth.best_actions)
            if not info.has_chance:
                label = f"paranoid[{info.players[player]}]"
                comparison.solvers.append(label)
                try:
                    result = paranoid(rooted, player, depth=depth)
                except Exception as error:
                    problems.append(Problem("error", label, f"{type(error).__name__}: {error}"))
                else:
                    guaranteed = result.extra.get("paranoid_value")
                    if guaranteed != view_truth.values[0]:
                        problems.append(Problem("values", label, f"guarantees "
                                                f"{format_value(guaranteed)}, the oracle on the "
                                                f"view says {format_value(view_truth.values[0])}"))
                    best = _names(game, result.best_actions)
                    if best != view_best:
                        problems.append(Problem("best_actions", label, f"optimal actions "
                                                f"{list(best)}, the oracle on the view says "
                                                f"{list(view_best)}"))
                    if depth is None and result.values[player] != guaranteed:
                        problems.append(Problem("pv", label, f"the principal variation ends at "
                                                f"{_show(result.values)}, not at the guaranteed "
                                                f"{format_value(guaranteed)}"))
                    _check_pv(rooted, root, result, label, problems)
            if not two:
                for label, call in _solver_calls(view.info, depth, options, table_at_depth):
                    if label.startswith("maxn"):
                        continue
                    run(f"{label} on paranoid view of {info.players[player]}", call, view,
                        view_truth, view_best)
    return comparison


# ==== metamorphic properties ====================================================================

def _map_tree(node: Any, fn: Callable[[Any], Any | None]) -> Any:
    """Rebuild a syntax tree bottom-up; ``fn(node)`` may return a replacement (or None)."""
    if isinstance(node, tuple):
        return tuple(_map_tree(item, fn) for item in node)
    if hasattr(node, "__dataclass_fields__") and not isinstance(node, ast.Span):
        changes = {name: _map_tree(getattr(node, name), fn)
                   for name in node.__dataclass_fields__ if name != "span"}
        node = replace(node, **changes)
        replacement = fn(node)
        return node if replacement is None else replacement
    return node


_BUILTINS = {"abs", "min", "max"}


def rename_identifiers(tree: ast.GameFile, seed: int = 0) -> tuple[ast.GameFile, dict[str, str]]:
    """Every identifier (players, symbols, variables, constants, parameters, definitions and
    their parameters, actions and their parameters, bound and random names, tree labels) renamed
    by one bijection to ``n0``, ``n1``, ... in a shuffled order. Returns the tree and the map.
    The built-in `opponent` keeps its name unless the file declares its own."""
    names: list[str] = []
    # `opponent` is built in unless the file declares its own (a declaration names an Ident)
    declared: set[str] = set()
    _map_tree(tree, lambda node: declared.add(node.name) if isinstance(node, ast.Ident) else None)
    builtins = _BUILTINS | ({"opponent"} - declared)

    def collect(node):
        if isinstance(node, (ast.Ident, ast.Name)) and node.name not in builtins:
            if node.name not in names:
                names.append(node.name)
        elif isinstance(node, ast.DisplayDecl):
            for key, _ in node.glyphs:
                if isinstance(key, str) and key not in names:
                    names.append(key)
        return None

    _map_tree(tree, collect)
    order = list(range(len(names)))
    _random.Random(seed).shuffle(order)
    mapping = {name: f"n{order[i]}" for i, name in enumerate(names)}

    original = {new: old for old, new in mapping.items()}

    def rename(node):
        # `when stuck lose` and `when endless draw` hold a word of the language, not a name:
        # the bottom-up walk renamed it already, so it is put back (a name spelt the same
        # elsewhere is still renamed).
        if isinstance(node, ast.StuckDecl):
            return replace(node, outcome=replace(node.outcome, name=original.get(
                node.outcome.name, node.outcome.name)))
        if isinstance(node, ast.EndlessDecl) and node.word is not None:
            return replace(node, word=replace(node.word, name=original.get(node.word.name,
                                                                           node.word.name)))
        if isinstance(node, ast.Ident) and node.name in mapping:
            return ast.Ident(mapping[node.name], node.span)
        if isinstance(node, ast.Name) and node.name in mapping:
            return ast.Name(mapping[node.name], node.span)
        if isinstance(node, ast.DisplayDecl):
            return replace(node, glyphs=tuple((mapping.get(k, k) if isinstance(k, str) else k, g)
                                              for k, g in node.glyphs))
        return None

    return _map_tree(tree, rename), mapping


def reorder_declarations(tree: ast.GameFile, seed: int = 0, actions: bool = True) -> ast.GameFile:
    """The declarations shuffled, except that ``param``/``const`` keep their relative order (one
    may use another) and, unless ``actions``, so do the actions (their order breaks ties)."""
    decls = list(tree.declarations)
    rng = _random.Random(seed)
    order = list(range(len(decls)))
    rng.shuffle(order)
    shuffled = [decls[i] for i in order]
    for kinds in [(ast.ParamDecl, ast.ConstDecl)] + ([] if actions else [(ast.ActionDecl,)]):
        slots = [i for i, d in enumerate(shuffled) if isinstance(d, kinds)]
        originals = [d for d in decls if isinstance(d, kinds)]
        for slot, decl in zip(slots, originals):
            shuffled[slot] = decl
    return ast.GameFile(tuple(shuffled), tree.span)


def affine_utilities(tree: ast.GameFile, add: int = 0, scale: int = 1) -> ast.GameFile:
    """Every utility and evaluation ``u`` becomes ``scale * u + add`` (``scale`` > 0), the sum
    declaration, the utility bounds and the utilities of endless play following: zero-sum with
    ``add != 0`` becomes constant-sum ``n * add``. (The utilities of `when stuck lose | win` are
    the language's, ±1 or 0 and the sum, and cannot follow: see ``affine_applies``.)"""
    if scale < 1:
        raise ValueError("scale must be a positive integer")
    players = next((len(d.players) for d in tree.declarations
                    if isinstance(d, ast.PlayersDecl)), 0)

    def affine(e: ast.Expr) -> ast.Expr:
        if scale != 1:
            e = ast.Binary("*", ast.IntLit(scale), e)
        if add:
            e = ast.Binary("+", e, ast.IntLit(add))
        return e

    out = []
    for d in tree.declarations:
        if isinstance(d, (ast.UtilityDecl, ast.EvaluateDecl)):
            d = replace(d, value=affine(d.value))
        elif isinstance(d, ast.SumDecl):
            if isinstance(d.total, int):
                total = scale * d.total + players * add
                d = ast.SumDecl("zero-sum" if total == 0 else "constant-sum", total, d.span)
            else:   # a constant expression (`constant-sum 2 * k`)
                d = ast.SumDecl(d.kind, ast.Binary("+", ast.Binary(
                    "*", ast.IntLit(scale), d.total), ast.IntLit(players * add)), d.span)
        elif isinstance(d, ast.UtilityBoundsDecl):
            d = ast.UtilityBoundsDecl(ast.RangeDomain(affine(d.bounds.low), affine(d.bounds.high)),
                                      d.span)
        elif isinstance(d, ast.EndlessDecl) and d.values:
            d = replace(d, values=tuple(affine(v) for v in d.values))
        elif isinstance(d, ast.TreeDecl):
            d = ast.TreeDecl(_map_tree(d.root, lambda n: ast.TreeLeaf(
                tuple(scale * v + add for v in n.values), n.span)
                if isinstance(n, ast.TreeLeaf) else None), d.span)
        out.append(d)
    return ast.GameFile(tuple(out), tree.span)


def affine_applies(tree: ast.GameFile) -> bool:
    """Whether ``affine_utilities`` changes every utility of ``tree``: not when a stuck player
    loses or wins, whose utilities the language fixes (±1, or 0 and the declared sum)."""
    return not any(isinstance(d, ast.StuckDecl) and d.outcome.name in ("lose", "win")
                   for d in tree.declarations)


def _load_tree(tree: ast.GameFile, backend: str = "interpret"):
    from gdl.backends.load import loads
    from gdl.lang.format import format_file

    return loads(format_file(tree), "<transformed>", backend=backend)


def metamorphic_problems(tree: ast.GameFile, game: Any = None, seed: int = 0,
                         backend: str = "interpret") -> tuple[list[Problem], int]:
    """Check renaming, reordering and affine changes of utilities on a rule file (or a tree
    file). Returns the problems and the number of comparisons made."""
    from gdl.solvers import solve

    game = game if game is not None else _load_tree(tree, backend)
    info = game.info
    truth = oracle(game)
    problems: list[Problem] = []
    count = 0
    rng = _random.Random(seed)

    def against(label: str, other: Any, expect_values: tuple, expect_best: Sequence,
                by_name: bool) -> None:
        nonlocal count
        for name, answer in (("oracle", lambda: oracle(other)), ("auto", lambda: solve(other))):
            count += 1
            try:
                result = answer()
            except Exception as error:
                problems.append(Problem("metamorphic", f"{name} after {label}",
                                        f"{type(error).__name__}: {error}"))
                continue
            if tuple(result.values) != tuple(expect_values):
                problems.append(Problem("metamorphic", f"{name} after {label}",
                                        f"value {_show(result.values)}, expected "
                                        f"{_show(expect_values)}"))
            got: Sequence[Any]
            want: Sequence[Any]
            if by_name:
                got, want = sorted(_names(other, result.best_actions)), sorted(expect_best)
            else:   # the same positions among the root's actions (names may have changed)
                got, want = _positions(other, result.best_actions), tuple(expect_best)
            if tuple(got) != tuple(want):
                problems.append(Problem("metamorphic", f"{name} after {label}",
                                        f"optimal actions {list(got)}, expected {list(want)}"))

    best_positions = _positions(game, truth.best_actions)
    renamed, _ = rename_identifiers(tree, rng.randrange(1 << 30))
    against("renaming every identifier", _load_tree(renamed, backend), truth.values,
            best_positions, False)
    ties_matter = not (info.num_players == 2 and info.is_constant_sum)
    reordered = reorder_declarations(tree, rng.randrange(1 << 30), actions=not ties_matter)
    against("reordering declarations", _load_tree(reordered, backend), truth.values,
            _names(game, truth.best_actions), True)
    add, scale = rng.choice([(3, 1), (-2, 1), (0, 2), (1, 3)])
    if affine_applies(tree):
        shifted = affine_utilities(tree, add, scale)
        against(f"utilities * {scale} + {add}", _load_tree(shifted, backend),
                tuple(scale * v + add for v in truth.values), best_positions, False)
    return problems, count


def _positions(game: Any, actions: Sequence) -> tuple[int, ...]:
    """Where ``actions`` stand among the legal actions of the initial state."""
    state = game.initial_state()
    if game.current_player(state) < 0:
        return ()
    legal = list(game.legal_actions(state))
    return tuple(legal.index(a) for a in actions)


# ==== compiled against interpreted ==============================================================

def have_compiler() -> bool:
    from gdl.backends.load import BACKENDS

    return "compile" in BACKENDS


def backend_problems(compiled: Any, interpreted: Any, limit: int = 5000
                     ) -> tuple[list[Problem], int]:
    """Walk the reachable states of both games in step (by action name) and compare what the
    protocol says at each: player to move, legal actions (names, in order), chance outcomes and
    probabilities, returns, evaluations, the states themselves. Returns (problems, states)."""
    problems: list[Problem] = []
    stack: list[tuple[Any, Any, tuple[str, ...]]] = [
        (compiled.initial_state(), interpreted.initial_state(), ())]
    seen = set()
    count = 0
    has_eval = interpreted.info.has_evaluate

    def differ(what: str, path, a, b) -> None:
        where = " ".join(path) or "the root"
        problems.append(Problem("backend", "compile", f"{what} after {where}: compiled {a!r}, "
                                f"interpreted {b!r}"))

    while stack and count < limit and not problems:
        sc, si, path = stack.pop()
        if si in seen:
            continue
        seen.add(si)
        count += 1
        try:
            if sc != si:
                differ("state", path, sc, si)
                break
            pc, pi = compiled.current_player(sc), interpreted.current_player(si)
            if pc != pi:
                differ("player to move", path, pc, pi)
                break
            if pi == TERMINAL:
                if tuple(compiled.returns(sc)) != tuple(interpreted.returns(si)):
                    differ("returns", path, compiled.returns(sc), interpreted.returns(si))
                continue
            if has_eval and tuple(compiled.evaluate(sc)) != tuple(interpreted.evaluate(si)):
                differ("evaluate", path, compiled.evaluate(sc), interpreted.evaluate(si))
            if pi == CHANCE:
                oc = [(compiled.action_name(a), p) for a, p in compiled.chance_outcomes(sc)]
                oi = [(interpreted.action_name(a), p) for a, p in interpreted.chance_outcomes(si)]
                if oc != oi:
                    differ("chance outcomes", path, oc, oi)
                    break
                moves = list(zip([a for a, _ in compiled.chance_outcomes(sc)],
                                 [a for a, _ in interpreted.chance_outcomes(si)]))
            else:
                ac = list(compiled.legal_actions(sc))
                ai = list(interpreted.legal_actions(si))
                if _names(compiled, ac) != _names(interpreted, ai):
                    differ("legal actions", path, _names(compiled, ac), _names(interpreted, ai))
                    break
                moves = list(zip(ac, ai))
            for a, b in reversed(moves):
                stack.append((compiled.apply(sc, a), interpreted.apply(si, b),
                              path + (interpreted.action_name(b),)))
        except Exception as error:
            problems.append(Problem("backend", "compile", f"{type(error).__name__}: {error} "
                                    f"after {' '.join(path) or 'the root'}"))
    return problems, count


# ==== explicit trees ============================================================================

def tree_file(root: Any, players: Sequence[str], sum_kind: str = GENERAL_SUM,
              total: Any = None, title: str = "fuzz counterexample") -> ast.GameFile:
    """A ``gdl.backends.tree`` tree as a rule file with a ``tree`` declaration (so the formatter can
    print it). With a zero-sum or constant-sum declaration, two-player leaves are one number."""
    from gdl.lang.ir import Chance, Decision, Leaf

    one_number = len(players) == 2 and sum_kind in (ZERO_SUM, CONSTANT_SUM)

    def convert(node):
        if isinstance(node, Leaf):
            values = node.values[:1] if one_number else node.values
            return ast.TreeLeaf(tuple(Fraction(v) for v in values))
        if isinstance(node, Decision):
            return ast.TreeDecision(ast.Ident(players[node.player]),
                                    tuple((ast.Ident(label), convert(child))
                                          for label, child in node.children))
        assert isinstance(node, Chance)
        return ast.TreeChance(tuple(ast.ChanceEdge(ast.Ident(label), Fraction(p), convert(child))
                                    for label, p, child in node.children))

    decls: list = [ast.GameDecl(title), ast.PlayersDecl(tuple(ast.Ident(p) for p in players)),
                   ast.TreeDecl(convert(root))]
    if sum_kind == ZERO_SUM:
        decls.append(ast.SumDecl("zero-sum", 0))
    elif sum_kind == CONSTANT_SUM:
        decls.append(ast.SumDecl("constant-sum", int(total)))
    return ast.GameFile(tuple(decls))


def tree_metamorphic_problems(game: Any, seed: int = 0) -> tuple[list[Problem], int]:
    """Relabel every edge, permute children (two-player constant-sum trees only: elsewhere the
    first-best tie rule makes the order matter), and apply an affine change to every leaf."""
    from gdl.backends.tree import tree_info
    from gdl.generators.trees import GeneratedTree
    from gdl.lang.ir import Chance, Decision, Leaf

    rng = _random.Random(seed)
    info = game.info
    truth = oracle(game)
    problems: list[Problem] = []
    count = 0

    def rebuild(node, leaf=lambda v: v, label=lambda s: s, shuffle=False):
        if isinstance(node, Leaf):
            return Leaf(tuple(leaf(v) for v in node.values))
        if isinstance(node, Decision):
            kids = [(label(name), rebuild(c, leaf, label, shuffle)) for name, c in node.children]
            if shuffle:
                rng.shuffle(kids)
            return Decision(node.player, tuple(kids))
        kids = [(label(name), p, rebuild(c, leaf, label, shuffle)) for name, p, c in node.children]
        if shuffle:
            rng.shuffle(kids)
        return Chance(tuple(kids))

    def make(root, sum_kind=info.sum_kind, total=info.utility_sum):
        return GeneratedTree(root, tree_info("transformed", info.players, root, sum_kind, total))

    def check(label, other, values, best):
        nonlocal count
        count += 1
        result = compare_position(other, views=False, claims=False, options=engine_options())
        got = oracle(other)
        if tuple(got.values) != tuple(values):
            problems.append(Problem("metamorphic", f"oracle after {label}",
                                    f"value {_show(got.values)}, expected {_show(values)}"))
        if sorted(_names(other, got.best_actions)) != sorted(best):
            problems.append(Problem("metamorphic", f"oracle after {label}",
                                    f"optimal actions {_names(other, got.best_actions)}, "
                                    f"expected {sorted(best)}"))
        for p in result.problems:
            problems.append(Problem("metamorphic", f"{p.solver} after {label}", p.message))
        count += result.pairs

    best = _names(game, truth.best_actions)
    check("relabelling every edge", make(rebuild(game.root, label=lambda s: "r" + s)),
          truth.values, ["r" + b for b in best])
    if info.num_players == 2 and info.is_constant_sum:
        check("permuting children", make(rebuild(game.root, shuffle=True)), truth.values, best)
    add, scale = rng.choice([(3, 1), (-2, 1), (0, 2), (1, 3)])
    n = info.num_players
    kind, total = info.sum_kind, info.utility_sum
    if kind == ZERO_SUM and add:
        kind, total = CONSTANT_SUM, n * add
    elif kind == CONSTANT_SUM:
        total = scale * total + n * add
        if total == 0:
            kind, total = ZERO_SUM, None
    shifted = make(rebuild(game.root, leaf=lambda v: scale * v + add), kind, total)
    check(f"leaves * {scale} + {add}", shifted, tuple(scale * v + add for v in truth.values), best)
    return problems, count


# ==== games that can repeat a position ==========================================================
#
# The tree solvers cannot solve a game whose plays may not end, so on such a game the strong
# solver (gdl.graph) is checked at every position by what can be computed independently of it:
#
# * a reference through the protocol (``cyclic_reference``): for two players without chance,
#   what each side can force the game to *end* with, by searching the game cut after k moves
#   with the cut scored below / above every end (k growing until nothing changes: then it is
#   exact), and from that the value, class and optimal moves as docs/graph.md defines them, and
#   the remoteness checked against its defining equation; with chance, whether every play ends
#   with probability 1 (then values must be exact and satisfy the Bellman equations exactly,
#   which only the value does) or endless play is declared (values exact and Bellman), the
#   values inside depth-bounded searches whose cut is scored below / above every end and the
#   declared value (valid bounds), and otherwise a label "not exact";
# * the same strong solve on the interpreted game (when the fuzzed one is compiled or native);
# * the position database written and read back, and ``solve_root``, against the solve.

CYCLIC_MAX_STATES = 20_000    # positions of a game that can repeat one, checked in full
_BOUND_SWEEPS = 60            # depth of the bounding searches with chance
_FLOAT_SLACK = 1e-9


class TooBigToCheck(Exception):
    """A game that can repeat a position has more positions than gdl fuzz checks (or one with
    simultaneous moves or hidden information more histories than it writes out)."""

    def __init__(self, limit: int, what: str = "positions"):
        if what == "histories":
            message = (f"the game has simultaneous moves or hidden information, so gdl fuzz "
                       f"compares its solvers on the whole game written out, and it can go on "
                       f"for ever or has more than {limit:,} states or histories")
        else:
            message = (f"the game can repeat a position, so gdl fuzz checks its strong solve "
                       f"at every position, and it has more than {limit:,} of them")
        super().__init__(message)
        self.limit, self.what = limit, what

    def __reduce__(self):     # crosses process boundaries (gdl fuzz --workers)
        return (TooBigToCheck, (self.limit, self.what))


@dataclass
class _Walk:
    """Every position reachable from the start, through the protocol (0 is the start)."""
    states: list
    index: dict
    player: list[int]
    actions: list[list]
    children: list[list[int]]
    probabilities: list[list[Fraction]]
    payoff: list            # player 0's utility at an end, else None
    parent: list            # (position, action) that first reached it, breadth first


def _walk(game: Any, limit: int) -> _Walk:
    root = game.initial_state()
    walk = _Walk([root], {root: 0}, [], [], [], [], [], [(-1, None)])
    position = 0
    while position < len(walk.states):
        state = walk.states[position]
        player = game.current_player(state)
        probabilities: list[Fraction] = []
        payoff = None
        if player == TERMINAL:
            actions: list = []
            payoff = Fraction(game.returns(state)[0])
        elif player == CHANCE:
            pairs = list(game.chance_outcomes(state))
            actions = [a for a, _ in pairs]
            probabilities = [Fraction(p) for _, p in pairs]
        else:
            actions = list(game.legal_actions(state))
        children = []
        for action in actions:
            child = game.apply(state, action)
            found = walk.index.get(child)
            if found is None:
                if len(walk.states) >= limit:
                    raise TooBigToCheck(limit)
                found = walk.index[child] = len(walk.states)
                walk.states.append(child)
                walk.parent.append((position, action))
            children.append(found)
        walk.player.append(player)
        walk.actions.append(actions)
        walk.children.append(children)
        walk.probabilities.append(probabilities)
        walk.payoff.append(payoff)
        position += 1
    return walk


def _sweeps(walk: _Walk, cut: Any, times: int | None = None) -> list:
    """Player 0's value in the game cut after k moves, the cut scored ``cut``, by one Jacobi
    sweep a move: ``times`` sweeps (then in floats), or (None, no chance) until a sweep changes
    nothing, which is then the value for every k beyond (the values only move one way)."""
    exact = times is None
    value = [(walk.payoff[p] if exact else float(walk.payoff[p])) if walk.player[p] == TERMINAL
             else cut for p in range(len(walk.states))]
    weights = [[q if exact else float(q) for q in row] for row in walk.probabilities]
    done = 0
    while times is None or done < times:
        new = list(value)
        for p, player in enumerate(walk.player):
            seen = [value[c] for c in walk.children[p]]
            if player == 0:
                new[p] = max(seen)
            elif player == 1:
                new[p] = min(seen)
            elif player == CHANCE:
                new[p] = sum(q * v for q, v in zip(weights[p], seen))
        done += 1
        if new == value:
            break
        value = new
    return value


@dataclass
class CyclicReference:
    """What the strong solver must answer on a two-player constant-sum game (docs/graph.md,
    "What the answers mean when a position can repeat"), from ``cyclic_reference``."""
    walk: _Walk
    total: Fraction
    endless: Fraction | None       # player 0's utility for endless play, where declared
    chance: bool
    stopping: bool                 # every play ends with probability 1, whatever the players do
    # without chance, per position: player 0's value or None (a draw), the key that optimal
    # moves share, whether the position is a draw, which side hurries (remoteness)
    value: list = field(default_factory=list)
    key: list = field(default_factory=list)
    draw: list = field(default_factory=list)
    hurries: list = field(default_factory=list)
    # without chance or a declared value: what a position is worth for each worth of endless
    # play strictly between the ends that tells the clamps apart (a draw's optimal moves are
    # those best for one of them)
    worths: list = field(default_factory=list)
    # with chance: depth-bounded values from below and above (floats)
    low: list = field(default_factory=list)
    high: list = field(default_factory=list)

    @property
    def defined(self) -> bool:
        """Whether the answer is determined, so the solver must say "exact": always, but in a
        chance game the players can keep going for ever without a declared worth for it, and
        where nothing ever ends."""
        return (not self.chance or self.stopping or self.endless is not None
                or any(u is not None for u in self.walk.payoff))

    def optimal(self, p: int, c: int) -> bool:
        """Whether the move from ``p`` to ``c`` is optimal (docs/graph.md): the same value, or
        at a draw, best for some worth of endless play (where nothing ends: any move)."""
        if self.value[p] is not None:
            return self.value[c] == self.value[p]
        if not self.worths:
            return True
        return any(w(c) == w(p) for w in self.worths)


def _stopping(walk: _Walk) -> bool:
    """No set of positions the players can keep a play in for ever: the greatest set holding a
    move of each of its decision positions and every outcome of each of its chance positions
    (a play stays in it for ever) is empty."""
    inside = [player != TERMINAL for player in walk.player]
    changed = True
    while changed:
        changed = False
        for p, player in enumerate(walk.player):
            if not inside[p]:
                continue
            stays = [inside[c] for c in walk.children[p]]
            if not (all(stays) if player == CHANCE else any(stays)):
                inside[p] = False
                changed = True
    return not any(inside)


def cyclic_reference(game: Any, limit: int = CYCLIC_MAX_STATES) -> CyclicReference:
    """The reference answers on a two-player constant-sum game that may repeat positions,
    through the protocol only (see the section's comment)."""
    import math

    info = game.info
    total = Fraction(0) if info.sum_kind == ZERO_SUM else Fraction(info.utility_sum)
    endless = None if info.endless_value is None else Fraction(info.endless_value[0])
    walk = _walk(game, limit)
    chance = CHANCE in walk.player
    reference = CyclicReference(walk, total, endless, chance, _stopping(walk))
    ends = [u for u in walk.payoff if u is not None]
    if chance:
        low_cut = min(ends + [endless] if endless is not None else ends, default=0)
        high_cut = max(ends + [endless] if endless is not None else ends, default=0)
        reference.low = _sweeps(walk, float(low_cut), _BOUND_SWEEPS)
        reference.high = _sweeps(walk, float(high_cut), _BOUND_SWEEPS)
        return reference
    lo, hi = _sweeps(walk, -math.inf), _sweeps(walk, math.inf)
    least, most = (min(ends), max(ends)) if ends else (None, None)
    level = total / 2

    def worth(p: int, e):
        return min(max(e, lo[p]), hi[p])

    # worths of endless play strictly between the ends, enough to meet every clamp of one
    corners = sorted(set(ends))
    inside = corners[1:-1] + [(a + b) / 2 for a, b in itertools.pairwise(corners)]
    reference.worths = [lambda p, e=e: worth(p, e) for e in inside] if ends else []
    for p in range(len(walk.states)):
        if endless is not None:
            v = worth(p, endless)
        elif ends and worth(p, least) == worth(p, most):
            v = worth(p, least)       # the same whatever endless play is worth
        else:
            v = None
        reference.value.append(v)
        reference.key.append(("value", v) if v is not None else
                             ("draw", tuple(worth(p, e) for e in inside)))
        draw = v is None or (lo[p] != v and hi[p] != v)    # nobody forces an end worth it
        reference.draw.append(draw)
        hurrier = None
        if not draw:
            forces = (lo[p] == v, hi[p] == v)
            if forces == (True, True):
                hurrier = walk.player[p] if v == level else 0 if v > level else 1
            else:
                hurrier = 0 if forces[0] else 1
        reference.hurries.append(hurrier == walk.player[p])
    return reference


def _same(a, b, exact: bool) -> bool:
    if a is None or b is None:
        return a is b
    if exact:
        return tuple(a) == tuple(b)
    return all(abs(float(x) - float(y)) <= _FLOAT_SLACK for x, y in zip(a, b))


def strong_problems(game: Any, reference_game: Any = None, limit: int = CYCLIC_MAX_STATES
                    ) -> tuple[list[Problem], int]:
    """The strong solver on ``game`` (two players, constant-sum, positions that may repeat)
    checked at every position against ``cyclic_reference`` of ``reference_game`` (default
    ``game``; give the interpreted game to check a compiled or native one), against its own
    solve of ``reference_game``, and through the position database and ``solve_root``.
    Returns (problems, positions checked). Raises TooBigToCheck beyond ``limit`` positions."""
    from gdl.graph import strong_solve

    reference_game = game if reference_game is None else reference_game
    reference = cyclic_reference(reference_game, limit)
    walk = reference.walk
    problems: list[Problem] = []
    try:
        solution = strong_solve(game, max_states=limit)
    except Exception as error:
        return [Problem("error", "graph", f"{type(error).__name__}: {error}")], 0
    graph = solution.graph

    def where(p: int) -> str:
        path = " ".join(_path_names(reference_game, walk, p))
        return f"after {path}" if path else "at the start"

    ids = []
    for p, state in enumerate(walk.states):
        found = graph.position_id(state)
        if found is None:
            problems.append(Problem("values", "graph", f"the position {where(p)} is missing"))
            return problems, 0
        ids.append(found)

    def names(actions) -> set[str]:
        return {reference_game.action_name(a) for a in actions}

    if reference.chance:
        problems += _chance_problems(solution, reference, ids, where, names)
    else:
        problems += _deterministic_problems(solution, reference, ids, where, names)
    if game is not reference_game:
        problems += _solve_again(solution, reference_game, walk, ids, where, names)
    problems += _database_problems(game, solution, walk, ids, where)
    return problems, len(walk.states)


def _path_names(game: Any, walk: _Walk, target: int) -> list[str]:
    """Moves from the start to a position of ``walk`` (a shortest way: the walk is breadth
    first)."""
    path = []
    while target > 0:
        target, action = walk.parent[target]
        path.append(game.action_name(action))
    return path[::-1]


def _deterministic_problems(solution, reference: CyclicReference, ids, where, names
                            ) -> list[Problem]:
    from gdl.graph.solution import CLASSES

    walk = reference.walk
    problems: list[Problem] = []
    if not solution.exact:
        problems.append(Problem("proven", "graph", f"values labelled not exact "
                                f"({solution.note or 'no reason given'}) in a game without chance"))
    total, level = reference.total, reference.total / 2
    remoteness = [solution.remoteness(i) for i in ids]
    classes = dict.fromkeys(CLASSES, 0)
    for p, i in enumerate(ids):
        player, v = walk.player[p], reference.value[p]
        want = None if v is None else (_exact(v), _exact(total - v))
        got = solution.value(i)
        if got != want:
            problems.append(Problem("values", "graph", f"value {_show_or_none(got)} {where(p)}, "
                                    f"the reference says {_show_or_none(want)}"))
        if player == TERMINAL:
            if remoteness[p] != 0:
                problems.append(Problem("remoteness", "graph", f"remoteness {remoteness[p]} at "
                                        f"the end reached {where(p)}, not 0"))
            continue
        if reference.draw[p]:
            kind = "draw"
        else:
            mine = v - level if player == 0 else level - v
            kind = "win" if mine > 0 else "lose" if mine < 0 else "tie"
        classes[kind] += 1
        got_class = solution.value_class(i)
        if got_class != kind:
            problems.append(Problem("class", "graph", f"class {got_class} {where(p)}, the "
                                    f"reference says {kind}"))
        optimal = [c for c in walk.children[p] if reference.optimal(p, c)]
        want_best = names(a for a, c in zip(walk.actions[p], walk.children[p])
                          if reference.optimal(p, c))
        got_best = names(solution.best_actions(i))
        if got_best != want_best:
            problems.append(Problem("best_actions", "graph", f"optimal actions "
                                    f"{sorted(got_best)} {where(p)}, the reference says "
                                    f"{sorted(want_best)}"))
        # remoteness: 0 at an end; 1 + the least (the side that hurries) or the greatest (the
        # side that delays) remoteness of the optimal moves, finite, at a valued position that
        # is not a draw; none at a draw. These equations have exactly one finite solution.
        if reference.draw[p]:
            expected = -1
        else:
            seen = [remoteness[c] if remoteness[c] >= 0 else float("inf") for c in optimal]
            pick = min(seen) if reference.hurries[p] else max(seen)
            expected = -1 if pick == float("inf") else 1 + int(pick)
        if remoteness[p] != expected or (expected == -1 and not reference.draw[p]):
            problems.append(Problem("remoteness", "graph", f"remoteness {remoteness[p]} "
                                    f"{where(p)}; its optimal moves' remoteness and who hurries "
                                    f"there say {expected if expected >= 0 else 'none'}"))
    histogram: dict[int, int] = {}
    for p, r in enumerate(remoteness):
        if walk.player[p] >= 0 and r >= 0:
            histogram[r] = histogram.get(r, 0) + 1
    outcomes: dict[Fraction, int] = {}
    for u in walk.payoff:
        if u is not None:
            outcomes[u] = outcomes.get(u, 0) + 1
    want_census = dict(_walk_census(walk), classes=classes,
                       terminal_outcomes={format_value(_exact(u)): c
                                          for u, c in sorted(outcomes.items(), reverse=True)})
    census = dict(solution.census())
    counted = census.pop("remoteness", None)
    if census != want_census:
        problems.append(Problem("census", "graph", f"census {census}, the reference counts "
                                f"{want_census}"))
    if counted != dict(sorted(histogram.items())):
        problems.append(Problem("census", "graph", f"census remoteness {counted}, the "
                                f"positions' own remoteness counts {dict(sorted(histogram.items()))}"))
    return problems


def _walk_census(walk: _Walk) -> dict[str, int]:
    terminal, chance = walk.player.count(TERMINAL), walk.player.count(CHANCE)
    return {"positions": len(walk.states), "terminal": terminal, "chance": chance,
            "decision": len(walk.states) - terminal - chance,
            "edges": sum(len(c) for c in walk.children)}


def _chance_problems(solution, reference: CyclicReference, ids, where, names) -> list[Problem]:
    walk = reference.walk
    problems: list[Problem] = []
    if not reference.defined:
        if solution.exact:
            problems.append(Problem("proven", "graph", "values labelled exact, but no play ever "
                                    "ends and the rules declare no value for endless play"))
        return problems
    if not solution.exact:
        problems.append(Problem("proven", "graph", "values labelled not exact "
                                f"({solution.note or 'no reason given'}), but the answer is "
                                "determined: " + ("every play ends with probability 1"
                                                  if reference.stopping else
                                                  "endless play is declared"
                                                  if reference.endless is not None else
                                                  "solved both ways endless play may be worth")))
        return problems
    # Without a declared worth of endless play, where the players can keep going, a position
    # may be a draw (no value): such positions are not checked here (tests/oracle_cyclic.py
    # does, by brute force); a position with a value whose moves all have one must satisfy
    # its Bellman equation, and only then are its values and moves checked.
    open_ended = not reference.stopping and reference.endless is None
    total = reference.total
    value = [solution.value(i) for i in ids]
    for p, i in enumerate(ids):
        got = value[p]
        if got is None and open_ended and walk.player[p] != TERMINAL:
            continue
        if got is None or got[1] != total - got[0]:
            problems.append(Problem("values", "graph", f"value {_show_or_none(got)} {where(p)} "
                                    f"does not add up to {_exact(total)}"))
            return problems
        u = got[0]
        player = walk.player[p]
        if player != TERMINAL and any(value[c] is None for c in walk.children[p]):
            continue
        if player == TERMINAL:
            want = walk.payoff[p]
        else:
            seen = [value[c][0] for c in walk.children[p]]
            want = (max(seen) if player == 0 else min(seen) if player == 1 else
                    sum(q * v for q, v in zip(walk.probabilities[p], seen)))
        if u != want:
            problems.append(Problem("values", "graph", f"value {_show(got)} {where(p)} breaks "
                                    f"the Bellman equation: its moves give {format_value(want)}"))
        if not open_ended and not (reference.low[p] - _FLOAT_SLACK <= float(u)
                                   <= reference.high[p] + _FLOAT_SLACK):
            problems.append(Problem("values", "graph", f"value {_show(got)} {where(p)} is outside "
                                    f"the bounds of a {_BOUND_SWEEPS}-move search "
                                    f"[{reference.low[p]:.6g}, {reference.high[p]:.6g}]"))
        if player in (0, 1):
            sign = 1 if player == 0 else -1
            top = max(sign * value[c][0] for c in walk.children[p])
            want_best = names(a for a, c in zip(walk.actions[p], walk.children[p])
                              if sign * value[c][0] == top)
            got_best = names(solution.best_actions(i))
            if got_best != want_best:
                problems.append(Problem("best_actions", "graph", f"optimal actions "
                                        f"{sorted(got_best)} {where(p)}, its moves' values say "
                                        f"{sorted(want_best)}"))
        if solution.remoteness(i) != -1:
            problems.append(Problem("remoteness", "graph", f"remoteness {solution.remoteness(i)}"
                                    f" {where(p)} in a game with chance (none is computed)"))
    if solution.census() != _walk_census(walk):
        problems.append(Problem("census", "graph", f"census {solution.census()}, the reference "
                                f"counts {_walk_census(walk)}"))
    return problems


def _solve_again(solution, reference_game, walk: _Walk, ids, where, names) -> list[Problem]:
    """The same strong solve on the reference game (the interpreter): every answer the same."""
    from gdl.graph import strong_solve

    try:
        other = strong_solve(reference_game, max_states=len(walk.states) + 1)
    except Exception as error:
        return [Problem("backend", "graph", f"the interpreted game's strong solve raised "
                        f"{type(error).__name__}: {error}")]
    problems: list[Problem] = []
    if other.exact != solution.exact:
        problems.append(Problem("backend", "graph", f"exact {solution.exact}, the interpreted "
                                f"game's solve says {other.exact}"))
        return problems
    for p, i in enumerate(ids):
        j = other.graph.position_id(walk.states[p])
        answers: list[tuple[str, Any, Any]] = [("value", solution.value(i), other.value(j)),
                   ("class", solution.value_class(i), other.value_class(j)),
                   ("remoteness", solution.remoteness(i), other.remoteness(j))]
        if walk.player[p] >= 0 and solution.exact:
            answers.append(("optimal actions", sorted(names(solution.best_actions(i))),
                            sorted(names(other.best_actions(j)))))
        for what, mine, theirs in answers:
            same = _same(mine, theirs, solution.exact) if what == "value" else mine == theirs
            if not same:
                problems.append(Problem("backend", "graph", f"{what} {mine!r} {where(p)}, the "
                                        f"interpreted game's solve says {theirs!r}"))
    if solution.exact and solution.census() != other.census():
        problems.append(Problem("backend", "graph", f"census {solution.census()}, the "
                                f"interpreted game's solve says {other.census()}"))
    return problems


def _database_problems(game, solution, walk: _Walk, ids, where) -> list[Problem]:
    """The solve written as a position database and read back, and ``solve_root``: the same
    values and remoteness at every position, the same answer at the start."""
    import tempfile
    from pathlib import Path

    from gdl.graph import solve_root
    from gdl.graph.database import open_database, save
    from gdl.solvers.result import SolverError

    problems: list[Problem] = []
    binding = {"fuzz": game.info.name}
    try:
        with tempfile.TemporaryDirectory(prefix="gdl-fuzz-") as directory:
            path = Path(directory) / "positions.db"
            save(solution, path, binding)
            database = open_database(path, binding)
            for p, i in enumerate(ids):
                entry = database.lookup(walk.states[p])
                want = (solution.value(i), solution.remoteness(i))
                got = None if entry is None else (entry.values, entry.remoteness)
                if got is None or not _same(got[0], want[0], solution.exact) or got[1] != want[1]:
                    problems.append(Problem("database", "graph", f"the database says {got!r} "
                                            f"{where(p)}, the solve {want!r}"))
                    break
    except Exception as error:
        problems.append(Problem("database", "graph", f"{type(error).__name__}: {error}"))
    start = ids[0]
    try:
        result = solve_root(game, max_states=len(walk.states) + 1)
    except SolverError as error:
        if solution.value(start) is not None:
            problems.append(Problem("error", "graph", f"solve_root refused a start with a "
                                    f"value: {error}"))
        return problems
    answer = (tuple(result.values), tuple(result.best_actions), result.extra.get("remoteness"))
    at_start = (solution.value(start), tuple(solution.best_actions(start)),
                solution.remoteness(start))
    if not _same(answer[0], at_start[0], solution.exact) or answer[1:] != at_start[1:]:
        problems.append(Problem("values", "graph", f"solve_root says {answer!r}, the strong "
                                f"solve at the start {at_start!r}"))
    return problems


def _show_or_none(values) -> str:
    return "none (a draw)" if values is None else _show(values)


# ==== hypothesis, run programmatically ==========================================================

class _Found(Exception):
    def __init__(self, example: Any, problems: list[Problem]):
        super().__init__("; ".join(map(str, problems[:3])))
        self.example, self.problems = example, problems


@dataclass
class PropertyOutcome:
    examples: int                       # examples checked (before any shrinking)
    first_failure: int | None           # 1-based number of the first failing example
    example: Any = None                 # the shrunk counterexample
    problems: list[Problem] = field(default_factory=list)


def run_property(strategy: Any, check: Callable[[Any], list[Problem]], *, examples: int,
                 seed: int, shrink: bool = True) -> PropertyOutcome:
    """Run ``check`` on ``examples`` examples drawn from ``strategy`` by hypothesis with a fixed
    seed, no database and no constants taken from the loaded modules (so the same call finds
    the same thing, whatever else the process has imported). On the first failure hypothesis
    shrinks it; the outcome holds the minimal example and what was wrong with it."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as fixed_seed

    outcome = PropertyOutcome(examples=0, first_failure=None)

    @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
              phases=[Phase.generate, Phase.shrink] if shrink else [Phase.generate],
              report_multiple_bugs=False)
    @fixed_seed(seed)
    @given(strategy)
    def prop(example):
        if outcome.first_failure is None:
            outcome.examples += 1
        problems = check(example)
        if problems:
            if outcome.first_failure is None:
                outcome.first_failure = outcome.examples
            raise _Found(example, problems)

    with _no_local_constants():
        try:
            prop()
        except _Found as found:
            outcome.example, outcome.problems = found.example, found.problems
    return outcome


@contextmanager
def _no_local_constants():
    """Hypothesis sometimes draws a constant found in the source of the modules imported so far
    (its "local constants"), so what a seed generates would depend on what else the process has
    imported, and on edits to the code. For a seed to mean one sequence of examples, that pool
    is empty while ``run_property`` runs (private hypothesis API; skipped if it is not there)."""
    try:
        from hypothesis.internal.conjecture import providers
        empty = providers.Constants()
        original = providers._get_local_constants
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError):  # pragma: no cover -- another hypothesis version
        yield
        return
    cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()


# ==== simultaneous moves and hidden information ==================================================
# Such a game is solved as a whole (a player's choice depends on what it has seen, not on a
# position), so it is not compared position by position: its solvers are compared on the whole
# game. The exact ones (the sequence-form LP of two-player constant-sum games, verified in
# rationals; the simultaneous solver where nothing is hidden) must agree exactly and leave
# nothing to exploit; the iterative ones are measured after a few budgets of iterations, each
# measure exact for the strategy returned. What is certain for any strategy profile of a
# two-player constant-sum game is that the game's value lies between what each player's best
# response gets against the other's strategy (gdl.solvers.exploitability), so every iterative
# answer must bracket the exact value; that CFR+ converges is checked against a tolerance.

WIDE_MAX_HISTORIES = 200_000      # histories written out to compare the whole game's solvers
CHECKPOINTS = (10, 100, 1000)     # iterations of CFR+ and CFR measured
# CFR+ is proven to converge like 1/sqrt(T), and in practice much faster (about 1/T, Tammelin
# et al. 2015: Kuhn to 1e-15 in 100 iterations, Leduc to 1e-3 in under 500): an exploitability
# above this share of the utilities' range after the last checkpoint is reported.
CONVERGENCE = 0.01
MCCFR_ITERATIONS = 2000
EXTERNAL_TOLERANCE = 1e-6         # another CFR's NashConv after as many iterations, relative


class NotCompared(Exception):
    """An external solver that cannot run on this game (the reason, in a sentence)."""


@dataclass(frozen=True)
class WideRun:
    """What one solver gave on the whole game: its first player's value (exact when the solver
    is, else a float), and its exploitability (two players, constant sum) or NashConv, exact
    for the strategy returned."""
    solver: str
    iterations: int | None
    value: Any
    exploitability: Any
    exact: bool = False


@dataclass
class WideFigures:
    information_states: int = 0
    histories: int = 0
    exact_value: Any = None           # the first player's, where an exact solver gave it
    runs: list[WideRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _profile(form: Any, table: Sequence[dict]) -> Exploitability:
    from gdl.solvers.exploitability import strategy_exploitability

    return strategy_exploitability(form, table)


def wide_problems(game: Any, seed: int = 0, external: Callable | None = None
                  ) -> tuple[list[Problem], WideFigures]:
    """Compare the solvers of a game with simultaneous moves or hidden information on the
    whole game (see the comment above): exact ones against each other and against their own
    claims, CFR+, CFR and MCCFR (seeded) against the exact value, and ``external(game,
    iterations) -> (nash_conv, values)``, another CFR where given, against gdl's CFR after as
    many iterations. Raises TooBigToCheck beyond WIDE_MAX_HISTORIES histories."""
    from gdl.solvers import extensive
    from gdl.solvers.result import SolverError
    from gdl.solvers.wide import CFR, CFR_PLUS, MCCFR

    info = game.info
    figures = WideFigures()
    problems: list[Problem] = []
    if _repeats(game, WIDE_MAX_HISTORIES) is not False:
        raise TooBigToCheck(WIDE_MAX_HISTORIES, "histories")
    try:
        form = extensive.build(game, max_histories=WIDE_MAX_HISTORIES, algorithm="gdl fuzz")
    except SolverError as error:
        if "histories" in str(error):
            raise TooBigToCheck(WIDE_MAX_HISTORIES, "histories") from None
        return [Problem("error", "sequence form", str(error))], figures
    figures.information_states = form.num_infosets
    figures.histories = form.histories
    two = info.num_players == 2 and info.is_constant_sum
    total = Fraction(info.utility_sum or 0) if two else Fraction(0)
    utilities = [u for leaf in form.leaf_utility for u in leaf]
    spread = float(max(utilities) - min(utilities)) if utilities else 0.0

    def run(name: str, call: Callable) -> Any:
        try:
            return call()
        except Exception as error:
            problems.append(Problem("error", name, f"{type(error).__name__}: {error}"))
            return None

    exact = None
    if two:
        exact = _wide_exact(game, form, total, figures, problems, run)
    figures.exact_value = exact

    def bracket(name: str, check: Exploitability, iterations: int | None) -> None:
        if exact is None or not two:
            return
        low, high = check.bounds(total)
        if not low <= exact <= high:
            problems.append(Problem("values", name, f"after {iterations:,} iterations its "
                                    f"strategies bracket the value in [{float(low):.12g}, "
                                    f"{float(high):.12g}], which misses the exact "
                                    f"{format_value(exact)}: no strategy profile can do that"))

    from gdl.solvers.cfr import cfr, cfr_plus

    for name, solver in ((CFR_PLUS, cfr_plus), (CFR, cfr)):
        if name == CFR_PLUS and not two:
            continue
        measured = []
        for iterations in CHECKPOINTS:
            result = run(name, lambda solver=solver, iterations=iterations:
                         solver(game, iterations=iterations))
            if result is None:
                break
            check = result.exploitability
            again = _profile(form, result.strategies)
            if (again.nash_conv, again.values) != (check.nash_conv, check.values):
                problems.append(Problem("claim", name, f"after {iterations:,} iterations it "
                                        f"reports NashConv {float(check.nash_conv):.12g}, but "
                                        f"its strategies have {float(again.nash_conv):.12g}"))
            # the strategies' own figures, measured here, whatever the solver claims
            gap = again.exploitability if two else again.nash_conv
            figures.runs.append(WideRun(name, iterations, float(again.values[0]), float(gap)))
            bracket(name, again, iterations)
            measured.append(gap)
        if name == CFR_PLUS and measured and len(measured) == len(CHECKPOINTS):
            if measured[-1] > measured[0]:
                problems.append(Problem("convergence", name, f"exploitability rose from "
                                        f"{float(measured[0]):.6g} after {CHECKPOINTS[0]:,} "
                                        f"iterations to {float(measured[-1]):.6g} after "
                                        f"{CHECKPOINTS[-1]:,}"))
            elif measured[-1] > CONVERGENCE * spread:
                problems.append(Problem("convergence", name, f"exploitability "
                                        f"{float(measured[-1]):.6g} after {CHECKPOINTS[-1]:,} "
                                        f"iterations, more than {CONVERGENCE:.0%} of the "
                                        f"utilities' range {spread:g}"))
    if two:
        from gdl.solvers.mccfr import outcome_sampling

        first = run(MCCFR, lambda: outcome_sampling(game, iterations=MCCFR_ITERATIONS, seed=seed))
        second = run(MCCFR, lambda: outcome_sampling(game, iterations=MCCFR_ITERATIONS, seed=seed))
        if first is not None and second is not None:
            if first.strategies != second.strategies:
                problems.append(Problem("claim", MCCFR, f"two runs with seed {seed} gave "
                                        "different strategies"))
            check = _profile(form, first.strategies)
            figures.runs.append(WideRun(MCCFR, MCCFR_ITERATIONS, float(check.values[0]),
                                        float(check.exploitability)))
            bracket(MCCFR, check, MCCFR_ITERATIONS)
    if external is None:
        figures.notes.append("OpenSpiel's CFR: not compared (gdl fuzz --openspiel compares it "
                             "where the bridge can take the game)")
    else:
        _compare_external(game, form, external, two, exact, spread, figures, problems)
    return problems, figures


def _repeats(game: Any, limit: int) -> bool | None:
    """Whether a play of ``game`` can come back to a state (joint moves followed where
    several choose at once): True or False, None beyond ``limit`` states."""
    root = game.initial_state()
    colour: dict = {root: 1}          # 1: on the current path, 2: done
    stack: list[tuple[Any, Iterator[Any] | None]] = [(root, None)]
    while stack:
        state, children = stack[-1]
        if children is None:
            children = iter([child for _, child in successors(game, state)])
            stack[-1] = (state, children)
        child = next(children, None)
        if child is None:
            colour[state] = 2
            stack.pop()
            continue
        seen = colour.get(child)
        if seen == 1:
            return True
        if seen is None:
            if len(colour) >= limit:
                return None
            colour[child] = 1
            stack.append((child, None))
    return False


def _wide_exact(game: Any, form: Any, total: Fraction, figures: WideFigures,
                problems: list[Problem], run: Callable) -> Fraction | None:
    """The exact solvers of a two-player constant-sum game: the sequence form, and the
    simultaneous solver where nothing is hidden; they must agree, and their strategies must
    leave nothing to exploit. The exact value, or None."""
    from gdl.solvers.sequence_form import highs_available, solve_sequence_form
    from gdl.solvers.simultaneous import solve_simultaneous
    from gdl.solvers.wide import SEQUENCE_FORM, SIMULTANEOUS_SOLVER

    values: dict[str, Fraction] = {}
    if highs_available():
        solution = run(SEQUENCE_FORM, lambda: solve_sequence_form(game))
        if solution is not None:
            again = _profile(form, solution.strategies)
            if solution.exact:
                values[SEQUENCE_FORM] = Fraction(solution.value)
                if again.nash_conv != 0:
                    problems.append(Problem("claim", SEQUENCE_FORM, "verified exact, but its "
                                            f"strategies leave NashConv {again.nash_conv}"))
                low, high = again.bounds(total)
                if not low == solution.value == high:
                    problems.append(Problem("values", SEQUENCE_FORM, f"value "
                                            f"{format_value(solution.value)}, but its strategies "
                                            f"guarantee [{low}, {high}]"))
            else:
                figures.notes.append(f"{SEQUENCE_FORM}: not verified exactly ({solution.note})")
            figures.runs.append(WideRun(SEQUENCE_FORM, None, solution.value if solution.exact
                                        else solution.lp_value, again.exploitability,
                                        exact=bool(solution.exact)))
    else:
        figures.notes.append(f"{SEQUENCE_FORM}: not run (it needs highspy: pip install "
                             "'gdl[imperfect]')")
    if not game.info.hidden:
        solution = run(SIMULTANEOUS_SOLVER, lambda: solve_simultaneous(game))
        if solution is not None and solution.exact:
            values[SIMULTANEOUS_SOLVER] = Fraction(solution.value)
            table = [{key: solution.strategies[key[-1]][p]
                      for key in form.players[p].keys if key[-1] in solution.strategies}
                     for p in range(2)]
            again = _profile(form, table)
            if again.nash_conv != 0:
                problems.append(Problem("claim", SIMULTANEOUS_SOLVER, "exact, but its "
                                        f"strategies leave NashConv {again.nash_conv}"))
            figures.runs.append(WideRun(SIMULTANEOUS_SOLVER, None, solution.value,
                                        again.exploitability, exact=True))
        elif solution is not None:
            figures.notes.append(f"{SIMULTANEOUS_SOLVER}: a bracket, not an exact value "
                                 f"({solution.note})")
    if len(set(values.values())) > 1:
        shown = ", ".join(f"{name} {format_value(v)}" for name, v in values.items())
        problems.append(Problem("values", " vs ".join(values), f"the exact values differ: {shown}"))
    return next(iter(values.values()), None)


def _compare_external(game: Any, form: Any, external: Callable, two: bool,
                      exact: Fraction | None, spread: float, figures: WideFigures,
                      problems: list[Problem]) -> None:
    """Another CFR (OpenSpiel's) after the last checkpoint's iterations: the same NashConv as
    gdl's CFR after as many (the same algorithm on the same game), and a value within its own
    NashConv of the exact one."""
    from gdl.solvers.cfr import cfr

    iterations = CHECKPOINTS[1]
    name = "OpenSpiel cfr"
    try:
        nash_conv, values = external(game, iterations)
    except NotCompared as reason:
        figures.notes.append(f"OpenSpiel's CFR: not compared: {reason}; gdl's own CFR and CFR+ "
                             "are compared with the exact answer instead")
        return
    except Exception as error:
        problems.append(Problem("error", name, f"{type(error).__name__}: {error}"))
        return
    ours = cfr(game, iterations=iterations).exploitability
    # as gdl's runs: the exploitability (NashConv / 2) of two players at constant sum
    figures.runs.append(WideRun(name, iterations, float(values[0]),
                                float(nash_conv) / 2 if two else float(nash_conv)))
    if abs(float(ours.nash_conv) - float(nash_conv)) > EXTERNAL_TOLERANCE * max(1.0, spread):
        problems.append(Problem("values", name, f"NashConv {float(nash_conv):.12g} after "
                                f"{iterations:,} iterations, gdl's cfr "
                                f"{float(ours.nash_conv):.12g}"))
    if two and exact is not None and abs(float(values[0]) - float(exact)) > float(nash_conv) + 1e-9:
        problems.append(Problem("values", name, f"its strategies earn {float(values[0]):.12g}, "
                                f"further from the exact {format_value(exact)} than its NashConv "
                                f"{float(nash_conv):.6g} allows"))


def wide_backend_problems(compiled: Any, interpreted: Any, limit: int = 5000
                          ) -> tuple[list[Problem], int]:
    """``backend_problems`` for a game with hidden information: the states walked in step,
    each player's observation of each state and of each move compared as well."""
    problems, count = backend_problems(compiled, interpreted, limit)
    if problems:
        return problems, count
    players = range(interpreted.info.num_players)
    stack: list[tuple[Any, tuple[str, ...]]] = [(compiled.initial_state(), ())]
    seen: set = set()
    while stack and len(seen) < limit:
        state, path = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        where = " ".join(path) or "the root"
        for p in players:
            a, b = compiled.observation(state, p), interpreted.observation(state, p)
            if a != b:
                return [Problem("backend", "compile", f"observation of player {p} after {where}: "
                                f"compiled {a!r}, interpreted {b!r}")], count
        kind = interpreted.current_player(state)
        if kind == TERMINAL:
            continue
        moves = ([o for o, _ in interpreted.chance_outcomes(state)] if kind == CHANCE
                 else list(interpreted.legal_actions(state)))
        for move in moves:
            for p in players:
                a = compiled.move_observation(state, p, move)
                b = interpreted.move_observation(state, p, move)
                if a != b:
                    return [Problem("backend", "compile", f"player {p}'s observation of "
                                    f"{interpreted.action_name(move)} after {where}: compiled "
                                    f"{a!r}, interpreted {b!r}")], count
            stack.append((interpreted.apply(state, move), path + (interpreted.action_name(move),)))
    return [], count


# ==== what `gdl fuzz` runs ======================================================================

@dataclass
class Failure:
    target: str
    seed: int
    problems: list[Problem]
    text: str                 # the counterexample as a rule file
    first_failure: int | None = None
    position: tuple[str, ...] = ()   # moves from the initial state (file mode)
    depth: int | None = None
    every_position: bool = False     # a game that can repeat a position, checked everywhere
    suffix: str = ".game"            # the language of ``text``: .kif for a GDL-KIF file


@dataclass
class TargetReport:
    name: str
    examples: int = 0
    games: int = 0
    positions: int = 0
    comparisons: int = 0      # solver runs compared with the oracle (solver pairs)
    metamorphic: int = 0      # comparisons after renaming / reordering / affine changes
    backend_states: int = 0   # states where compiled and interpreted were compared
    depth_limited: int = 0
    skipped: int = 0          # positions too big to solve within the node budget
    solvers: set = field(default_factory=set)
    seconds: float = 0.0
    cyclic: bool = False      # a file that can repeat a position: every position was checked
    # A game with simultaneous moves or hidden information: the whole game's solvers compared
    # (``wide_problems``): what each found, and sentences on what could not be compared.
    wide: WideFigures | None = None

    def merge(self, other: TargetReport) -> None:
        for name in ("examples", "games", "positions", "comparisons", "metamorphic",
                     "backend_states", "depth_limited", "skipped", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.solvers |= other.solvers
        self.cyclic = self.cyclic or other.cyclic
        self.wide = self.wide or other.wide


@dataclass
class Summary:
    seed: int
    examples: int
    workers: int = 1
    targets: dict[str, TargetReport] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    def merge(self, other: Summary) -> None:
        for name, report in other.targets.items():
            self.targets.setdefault(name, TargetReport(name)).merge(report)
        self.failures.extend(other.failures)

    @property
    def ok(self) -> bool:
        return not self.failures


def _tree_targets() -> dict[str, Any]:
    from hypothesis import strategies as st

    from gdl.generators.trees import trees

    return {
        "trees, two players": st.one_of(
            trees(players=2, sum_kind=ZERO_SUM),
            trees(players=2, sum_kind=ZERO_SUM, alternating=True, max_depth=5,
                  values=range(-2, 3)),
            trees(players=2, sum_kind=CONSTANT_SUM, total=4)),
        "trees with chance": st.one_of(
            trees(players=2, chance=True, sum_kind=ZERO_SUM),
            trees(players=2, chance=True, sum_kind=CONSTANT_SUM, total=3),
            trees(players=3, chance=True, sum_kind=GENERAL_SUM, max_depth=3)),
        "trees, three players": st.one_of(
            trees(players=3, sum_kind=GENERAL_SUM),
            trees(players=3, sum_kind=CONSTANT_SUM, total=6),
            trees(players=3, sum_kind=ZERO_SUM, alternating=True)),
    }


TARGET_SHARES = {"trees, two players": 3, "trees with chance": 2, "trees, three players": 2,
                 "rule files": 3, "transpositions": 1, "cyclic games": 2}


def cyclic_games():
    """What the "cyclic games" target generates: explicit graphs written as rule files, and
    rule files of counters, both with and without chance and `when endless`."""
    from hypothesis import strategies as st

    from gdl.generators.cyclic import cyclic_graphs, cyclic_rule_games

    return st.one_of(cyclic_graphs(chance=None, max_deciders=6), cyclic_rule_games())


def check_cyclic_example(example: Any, report: TargetReport | None = None) -> list[Problem]:
    """On a generated game that can repeat a position (its ``text`` a rule file): compiled
    against interpreted state by state, then the strong solve at every position
    (``strong_problems``, the compiled game against the interpreted one)."""
    report = report if report is not None else TargetReport("cyclic games")
    try:
        interpreted = example.load("interpret")
    except Exception as error:
        return [Problem("error", "interpret", f"building the game failed: "
                        f"{type(error).__name__}: {error}")]
    game = interpreted
    if have_compiler():
        try:
            game = example.load("compile")
        except Exception as error:
            return [Problem("backend", "compile", f"building the compiled game failed: "
                            f"{type(error).__name__}: {error}")]
    report.games += 1
    if game is not interpreted:
        more, states = backend_problems(game, interpreted, limit=CYCLIC_MAX_STATES)
        report.backend_states += states
        if more:
            return more
    problems, positions = strong_problems(game, interpreted)
    report.positions += positions
    report.comparisons += positions * (2 if game is interpreted else 3)
    report.solvers.update({"graph", "reference", "database"})
    return problems


def _option_sets():
    from hypothesis import strategies as st

    from gdl.solvers.alphabeta import SearchOptions

    return st.builds(SearchOptions, tt=st.booleans(), tt_size=st.sampled_from([2, 4, 64, 1 << 12]),
                     ordering=st.booleans(), killers=st.booleans(), history=st.booleans(),
                     iterative_deepening=st.booleans(), aspiration=st.booleans(),
                     aspiration_window=st.sampled_from([None, 1, 2]), pvs=st.booleans(),
                     quiescence=st.booleans(), quiescence_depth=st.integers(0, 2))


def check_tree_example(example: tuple, report: TargetReport | None = None) -> list[Problem]:
    """Solver agreement and metamorphic properties on a generated tree (with one extra set of
    engine options drawn by hypothesis)."""
    game, options = example
    report = report if report is not None else TargetReport("trees")
    comparison = compare_position(game, options=engine_options() + [options])
    report.games += 1
    report.positions += 1
    report.comparisons += comparison.pairs
    report.solvers.update(_solver_family(s) for s in comparison.solvers)
    problems = list(comparison.problems)
    if not problems:
        more, count = tree_metamorphic_problems(game, seed=len(repr(game)))
        problems += more
        report.metamorphic += count
    return problems


def check_rules_example(example: tuple, report: TargetReport | None = None,
                        metamorphic: bool = True, backends: bool = True) -> list[Problem]:
    """On a generated rule file: every solver against the oracle (the solvers play the compiled
    game when there is a compiler, the oracle the interpreted one), at full depth and, when the
    game has an evaluation, at a depth limit; compiled against interpreted state by state; and
    the metamorphic properties."""
    rules, options, depth = example
    report = report if report is not None else TargetReport("rule files")
    problems: list[Problem] = []
    try:
        interpreted = rules.load("interpret")
    except Exception as error:
        return [Problem("error", "interpret", f"building the game failed: "
                        f"{type(error).__name__}: {error}")]
    game = interpreted
    if backends and have_compiler():
        try:
            game = rules.load("compile")
        except Exception as error:
            return [Problem("backend", "compile", f"building the compiled game failed: "
                            f"{type(error).__name__}: {error}")]
    report.games += 1
    if game is not interpreted:
        more, states = backend_problems(game, interpreted)
        problems += more
        report.backend_states += states
        if more:
            return problems
    limits = [None] + ([depth] if interpreted.info.has_evaluate else [])
    for limit in limits:
        comparison = compare_position(game, depth=limit, options=engine_options() + [options],
                                      reference_game=interpreted,
                                      table_at_depth=rules.depth_in_state)
        report.positions += 1
        report.depth_limited += limit is not None
        report.comparisons += comparison.pairs
        report.solvers.update(_solver_family(s) for s in comparison.solvers)
        problems += comparison.problems
    if metamorphic and not problems:
        more, count = metamorphic_problems(rules.tree, interpreted, seed=len(rules.text))
        problems += more
        report.metamorphic += count
    return problems


def _solver_family(label: str) -> str:
    label = label.split(" on ")[0]
    return "alphabeta" if label.startswith("alphabeta[") else label


def _failure_text(target: str, example: Any) -> str:
    if target in ("rule files", "transpositions"):
        return example[0].text
    if target == "cyclic games":
        return example.text
    from gdl.lang.format import format_file

    game = example[0]
    info = game.info
    return format_file(tree_file(game.root, info.players, info.sum_kind, info.utility_sum))


def _run_targets(examples: int, seed: int, targets: Sequence[str]) -> Summary:
    from hypothesis import strategies as st

    from gdl.generators.rules import rule_games, transposition_games

    summary = Summary(seed=seed, examples=examples)
    strategies = _tree_targets()
    shares = {name: TARGET_SHARES[name] for name in targets}
    whole = sum(shares.values())
    left = examples
    for i, name in enumerate(targets):
        count = left if i == len(targets) - 1 else examples * shares[name] // whole
        left -= count
        report = TargetReport(name)
        summary.targets[name] = report
        if count <= 0:
            continue
        started = time.perf_counter()
        strategy: st.SearchStrategy[Any]
        check: Callable[..., list[Problem]]
        if name == "rule files":
            strategy = st.tuples(rule_games(full_language=True, probes=True), _option_sets(),
                                 st.integers(0, 3))
            check = check_rules_example
        elif name == "transpositions":
            strategy = st.tuples(transposition_games(), _option_sets(), st.integers(1, 4))
            check = check_rules_example
        elif name == "cyclic games":
            strategy = cyclic_games()
            check = check_cyclic_example
        else:
            strategy = st.tuples(strategies[name], _option_sets())
            check = check_tree_example
        failing: list[bool] = []

        def counted(example, check=check, report=report, failing=failing, name=name):
            # the work done while shrinking is not counted
            problems = check(example, TargetReport(name) if failing else report)
            if problems:
                failing.append(True)
            return problems

        outcome = run_property(strategy, counted, examples=count, seed=seed)
        report.examples += outcome.examples
        report.seconds += time.perf_counter() - started
        if outcome.problems:
            summary.failures.append(Failure(name, seed, outcome.problems,
                                            _failure_text(name, outcome.example),
                                            outcome.first_failure))
    return summary


def fuzz_generated(examples: int = 200, seed: int = 0, workers: int = 1,
                   targets: Sequence[str] | None = None) -> Summary:
    """Fuzz generated games: explicit trees (two players, chance, three players) and rule files,
    ``examples`` in all, shared among the targets. With ``workers`` > 1 the examples are split
    among that many processes, worker ``w`` using seed ``seed + w``."""
    targets = list(TARGET_SHARES) if targets is None else list(targets)
    started = time.perf_counter()
    jobs = _split(examples, workers)
    summary = Summary(seed=seed, examples=examples, workers=workers)
    for part in _map(_run_targets, [(count, seed + w, targets) for w, count in enumerate(jobs)],
                     workers):
        summary.merge(part)
    summary.seconds = time.perf_counter() - started
    return summary


def _split(total: int, parts: int) -> list[int]:
    parts = max(1, parts)
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def _map(fn: Callable, argument_lists: list[tuple], workers: int) -> list:
    if workers <= 1 or len(argument_lists) <= 1:
        return [fn(*args) for args in argument_lists]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(fn, *args) for args in argument_lists]
        return [future.result() for future in futures]


# ---- the user's own games -----------------------------------------------------------------------

def count_nodes(game: Any, state: Any, limit: int, depth: int | None = None) -> int | None:
    """Nodes of the game tree below ``state`` (to ``depth`` decision plies), or None if more
    than ``limit``."""
    count = 0
    stack = [(state, depth)]
    while stack:
        s, left = stack.pop()
        count += 1
        if count > limit:
            return None
        p = game.current_player(s)
        if p == TERMINAL or (left is not None and left <= 0):
            continue
        if p == CHANCE:
            stack.extend((game.apply(s, o), left) for o, _ in game.chance_outcomes(s))
        else:
            below = None if left is None else left - 1
            stack.extend((game.apply(s, a), below) for a in game.legal_actions(s))
    return count


def playout(game: Any, rng: _random.Random, max_plies: int = 400) -> list[str]:
    """A random game from the start, as action names: uniform among legal actions, chance by
    its probabilities."""
    state = game.initial_state()
    path: list[str] = []
    while len(path) < max_plies:
        p = game.current_player(state)
        if p == TERMINAL:
            break
        if p == CHANCE:
            outcomes = list(game.chance_outcomes(state))
            pick = rng.random() * float(sum(q for _, q in outcomes))
            action = outcomes[-1][0]
            for outcome, q in outcomes:
                pick -= float(q)
                if pick < 0:
                    action = outcome
                    break
        else:
            action = rng.choice(list(game.legal_actions(state)))
        path.append(game.action_name(action))
        state = game.apply(state, action)
    return path


def replay(game: Any, names: Sequence[str]) -> Any:
    state = game.initial_state()
    for name in names:
        moves = choices(game, state)
        by_name = {game.action_name(m): m for m in moves}
        state = game.apply(state, by_name[name])
    return state


class NothingToCompare(Exception):
    """A file gdl fuzz has no second reasoner or solver to compare on (the message says why)."""


# States of a KIF game where the translation is compared with the Datalog interpreter.
KIF_AGREEMENT_STATES = 20_000


def _fuzz_kif_part(path: str, examples: int, seed: int, budget: int, include_root: bool,
                   external: Callable | None = None) -> Summary:
    """A GDL-KIF file: its translation compared with the Datalog interpreter at every state
    reachable from the start (up to KIF_AGREEMENT_STATES, by the first worker), then, where they
    agree, fuzzed as the rule file it is, every solver against the oracle. A game that is not translated is
    checked in the interpreter alone where it has simultaneous moves (the whole game's solvers
    against each other); any other raises NothingToCompare."""
    from gdl.backends.load import loads
    from gdl.kif.agreement import disagreements
    from gdl.kif.load import translated_name

    text = read_rule_file(path)
    interpreted = loads(text, path, None, backend="interpret")   # a GdlError is the user's
    compiled = loads(text, path, None, backend="compile") if have_compiler() else interpreted
    translation = getattr(compiled, "kif", None)
    if translation is None:
        if not interpreted.info.simultaneous:
            why = getattr(compiled, "native_note", None) or "the compiler is not available"
            raise NothingToCompare(f"{path} is not translated into gdl's language, so gdl fuzz "
                                   f"has no second reasoner to compare with the interpreter "
                                   f"({why.removeprefix('note: ')})")
        summary = Summary(seed=seed, examples=examples)
        report = summary.targets.setdefault(path, TargetReport(path))
        started = time.perf_counter()
        if include_root:
            _check_wide_file(interpreted, interpreted, report,
                             lambda problems: summary.failures.append(
                                 Failure(path, seed, problems, text, suffix=".kif")), seed,
                             external)
        report.seconds += time.perf_counter() - started
        return summary
    if include_root:
        # first the translation against the reference: the solvers' comparisons below are of
        # the translated game, worth nothing if it is not the game of the file
        started = time.perf_counter()
        problems, states = disagreements(interpreted, compiled, KIF_AGREEMENT_STATES)
        if problems:
            summary = Summary(seed=seed, examples=examples)
            report = summary.targets.setdefault(path, TargetReport(path, backend_states=states))
            summary.failures.append(Failure(path, seed, [Problem("backend", "translate", p)
                                                         for p in problems], text, suffix=".kif"))
            report.seconds += time.perf_counter() - started
            return summary
    summary = _fuzz_file_part(translated_name(path), None, examples, seed, budget, include_root,
                              external, text=translation.text)
    report = summary.targets.pop(translated_name(path))
    report.name = path
    if include_root:
        report.backend_states += states
    summary.targets[path] = report
    # a failure there is written out as the translation (a .game file), reproduced from the KIF
    summary.failures = [replace(failure, target=path) for failure in summary.failures]
    return summary


def _fuzz_file_part(path: str, params: dict | None, examples: int, seed: int, budget: int,
                    include_root: bool, external: Callable | None = None,
                    text: str | None = None) -> Summary:
    """One worker's share of ``fuzz_file`` (``text``: the rules, where not read from ``path``)."""
    from gdl.backends.load import loads
    from gdl.kif import is_kif
    from gdl.lang.format import format_text
    from gdl.lang.parse import parse

    if text is None and is_kif(path):
        return _fuzz_kif_part(path, examples, seed, budget, include_root, external)
    summary = Summary(seed=seed, examples=examples)
    report = summary.targets.setdefault(path, TargetReport(path))
    started = time.perf_counter()
    if text is None:
        text = read_rule_file(path)
    interpreted = loads(text, path, params, backend="interpret")  # a GdlError is the user's
    info = interpreted.info
    if info.hidden or info.simultaneous:
        # the whole game's equilibrium solvers compared, once (by the first worker)
        if include_root:
            game = interpreted
            if have_compiler():
                game = loads(text, path, params, backend="compile")
            _check_wide_file(game, interpreted, report,
                             lambda problems: summary.failures.append(
                                 Failure(path, seed, problems, format_text(text, path))),
                             seed, external)
        report.seconds += time.perf_counter() - started
        return summary
    cycle = find_cycle(interpreted, interpreted.initial_state(), limit=max(budget, 20_000))
    if cycle is not None and not (info.num_players == 2 and info.is_constant_sum):
        # the tree solvers would not end, and the strong solver values no such game
        raise EndlessGame(*cycle)
    if cycle is not None and reachable_states(interpreted, interpreted.initial_state(),
                                              CYCLIC_MAX_STATES) is None:
        raise TooBigToCheck(CYCLIC_MAX_STATES)     # before building any other back end

    def fail(problems, moves=(), depth=None):
        summary.failures.append(Failure(path, seed, problems, format_text(text, path),
                                        position=tuple(moves), depth=depth,
                                        every_position=cycle is not None))

    game = interpreted
    if have_compiler():
        try:
            # "native": the compiled game, with the rules and searches also in C where the
            # native tier runs here (its searches are compared below); else just compiled.
            game = loads(text, path, params, backend="native")
        except Exception as error:
            fail([Problem("backend", "compile", f"building the compiled game failed: "
                          f"{type(error).__name__}: {error}")])
    if cycle is not None:
        # a game that can repeat a position: its strong solve, checked at every position (by
        # the first worker: the others have no positions of their own to try)
        if include_root:
            _check_cyclic_file(game, interpreted, report, fail)
        report.seconds += time.perf_counter() - started
        return summary
    report.games += include_root   # one game, however many workers share its positions
    rng = _random.Random(seed)
    positions: list[tuple[str, ...]] = [()] if include_root else []
    while len(positions) < examples:
        line = playout(game, rng)
        positions.append(tuple(line[:rng.randint(0, len(line))]))
    options = engine_options(full=True)

    if include_root and not params:
        # metamorphic properties on the whole game, when it is small enough to solve quickly
        if reachable_states(interpreted, interpreted.initial_state(), budget) is not None:
            problems, count = metamorphic_problems(parse(text, path), interpreted, seed=seed)
            report.metamorphic += count
            if problems:
                fail(problems)
    for moves in positions:
        report.examples += 1
        try:
            state_i = replay(interpreted, moves)
            state = replay(game, moves) if game is not interpreted else state_i
        except Exception as error:
            fail([Problem("error", "replay", f"{type(error).__name__}: {error}")], moves)
            continue
        if game is not interpreted:
            more, states = _backend_walk(game, interpreted, state, state_i, min(budget, 300))
            report.backend_states += states
            if more:
                fail(more, moves)
                continue
        depth = None
        if count_nodes(game, state, budget) is None:
            if not game.info.has_evaluate:
                report.skipped += 1
                continue
            depth = 0
            while depth < 12 and count_nodes(game, state, budget, depth + 1) is not None:
                depth += 1
            if depth == 0:
                report.skipped += 1
                continue
            report.depth_limited += 1
        comparison = compare_position(game, state, depth=depth, options=options,
                                      reference_game=interpreted, reference_state=state_i)
        report.positions += 1
        report.comparisons += comparison.pairs
        report.solvers.update(_solver_family(s) for s in comparison.solvers)
        if comparison.problems:
            fail(comparison.problems, moves, depth)
            continue
        more, compared = native_problems(game, state, depth)
        report.comparisons += compared
        if compared:
            report.solvers.add("native")
        if more:
            fail(more, moves, depth)
    report.seconds += time.perf_counter() - started
    return summary


def _check_wide_file(game: Any, interpreted: Any, report: TargetReport, fail: Callable,
                     seed: int, external: Callable | None) -> None:
    """A rule file with simultaneous moves or hidden information: compiled against interpreted
    state by state (observations included), and the whole game's solvers against each other
    (``wide_problems``)."""
    report.games += 1
    from gdl.backends.interpret import InterpretedGame

    # the compiled tier leaves simultaneous moves out; a KIF game has one reasoner here
    if game is not interpreted and not isinstance(game, InterpretedGame):
        more, states = wide_backend_problems(game, interpreted)
        report.backend_states += states
        if more:
            fail(more)
            return
    problems, figures = wide_problems(game, seed=seed, external=external)
    report.wide = figures
    report.positions += figures.information_states
    report.comparisons += len(figures.runs)
    report.solvers.update(run.solver for run in figures.runs)
    if problems:
        fail(problems)


def _check_cyclic_file(game: Any, interpreted: Any, report: TargetReport,
                       fail: Callable) -> None:
    """A rule file that can repeat a position: compiled against interpreted state by state, and
    the strong solve at every position (``strong_problems``)."""
    report.games += 1
    report.cyclic = True
    # the strong check first: it refuses a game too big to check before any other long walk
    problems, positions = strong_problems(game, interpreted)
    if game is not interpreted:
        more, states = backend_problems(game, interpreted, limit=CYCLIC_MAX_STATES)
        report.backend_states += states
        problems = more + problems
    report.examples += positions
    report.positions += positions
    report.comparisons += positions * (2 if game is interpreted else 3)
    report.solvers.update({"graph", "reference", "database"}
                          | ({"graph on the interpreter"} if game is not interpreted else set()))
    if problems:
        fail(problems)


def native_problems(game: Any, state: Any, depth: int | None) -> tuple[list[Problem], int]:
    """The native tier's searches (gdl.tools.native_solve) against the Python solvers on the
    same game and position: values, optimal sets, principal variations, proof and every
    counter must be identical. Returns (problems, searches compared); nothing when the game
    has no native rules or the search is not one the native tier runs."""
    from gdl.solvers import solve
    from gdl.tools.native_solve import native_rules, solve_native

    if native_rules(game) is None:
        return [], 0
    problems: list[Problem] = []
    compared = 0
    for algorithm in ("minimax", "alphabeta", "expectiminimax", "star1", "star2", "maxn"):
        fast = solve_native(game, algorithm, depth=depth, root_state=state)
        if fast is None:
            continue
        compared += 1
        try:
            slow = solve(game, algorithm, depth=depth, root_state=state)
        except Exception as error:
            problems.append(Problem("backend", "native", f"{algorithm}: native answered, the "
                                    f"Python tier raised {type(error).__name__}: {error}"))
            continue
        for part in ("values", "best_actions", "pv", "proven", "stats"):
            if getattr(fast, part) != getattr(slow, part):
                problems.append(Problem("backend", "native", f"{algorithm} {part}: native "
                                        f"{getattr(fast, part)!r}, Python {getattr(slow, part)!r}"))
    return problems, compared


def _backend_walk(compiled, interpreted, sc, si, limit):
    """``backend_problems`` from a given pair of states."""

    class _Start:
        def __init__(self, game, state):
            self._game, self._state = game, state
            self.info = game.info

        def initial_state(self):
            return self._state

        def __getattr__(self, name):
            return getattr(self._game, name)

    return backend_problems(_Start(compiled, sc), _Start(interpreted, si), limit=limit)


def fuzz_file(path: str, examples: int = 100, seed: int = 0, workers: int = 1,
              budget: int = 2000, params: dict | None = None,
              external: Callable | None = None) -> Summary:
    """Fuzz a rule file: the initial position and positions reached by seeded random playouts,
    each solved by every applicable solver and compared with the oracle; positions whose game
    tree has more than ``budget`` nodes are searched to the deepest depth that fits when the
    game declares an evaluation, and skipped otherwise. Compiled and interpreted are compared
    at every position, and the metamorphic properties on the whole game when it has at most
    ``budget`` states.

    A game that can repeat a position (two players, constant-sum) is checked instead by its
    strong solve at every position (``strong_problems``; ``examples`` does not matter): raises
    TooBigToCheck beyond CYCLIC_MAX_STATES positions, and EndlessGame for such a game of more
    players or general-sum (no solver of gdl values it).

    A game with simultaneous moves or hidden information is checked as a whole instead
    (``wide_problems``; ``examples`` does not matter), with ``external``, where given, as a
    third CFR to compare (OpenSpiel's, through the bridge: gdl.cli.fuzz supplies it)."""
    started = time.perf_counter()
    jobs = _split(examples, workers)
    summary = Summary(seed=seed, examples=examples, workers=workers)
    for part in _map(_fuzz_file_part, [(path, params, count, seed + w, budget, w == 0, external)
                                       for w, count in enumerate(jobs)], workers):
        summary.merge(part)
    summary.seconds = time.perf_counter() - started
    return summary
