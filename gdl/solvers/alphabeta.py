"""Fail-soft alpha-beta: the search engine of gdl, for two-player constant-sum deterministic games.

Where things are: the transposition table (entries, bounds, replacement) is
``gdl.solvers.transposition``, move ordering (table move, killers, history, evaluation) is
``gdl.solvers.ordering``. Here: ``Engine`` -- the recursion (``_negamax``), the root with the
exact set of optimal actions (``_root``, ``solve_root``) and the principal variation -- and the
drivers behind ``alphabeta``: one search (``_search_once``) or iterative deepening with aspiration
windows (``_deepen``); then ``analyze`` and ``optimal_strategy``.

One recursion, written once
---------------------------
``search(state, depth, alpha, beta, sign, ply)`` returns the value of ``state`` seen from the
perspective ``sign`` (+1: player 0's utility, -1: its negation), with the window given in that same
perspective. Inside, the node works in its *mover's* perspective ``m``: when ``m != sign`` it
negates and swaps the window on entry and negates its result on exit, so children are called with
the parent's mover as their perspective. There is no max branch and min branch, and games where a
player moves twice in a row need no special case. Player 1 maximises ``total - v0``, i.e. minimises
player 0's utility ``v0``, so only ``returns(state)[0]`` (and ``evaluate(state)[0]``) is read; the
result vector is ``(v0, total - v0)`` with ``total`` = 0 for zero-sum games, ``info.utility_sum``
for constant-sum ones (or the sum of the first returned vector when it is not declared).

Fail-soft contract (for every call, with ``alpha < beta``): the result ``f`` satisfies
``f <= alpha`` => true value <= f; ``f >= beta`` => true value >= f; otherwise f is exact.
Values are ``int``/``Fraction`` throughout; the only non-exact objects are the window sentinels
``-inf``/``+inf`` (floats compare exactly with ints and Fractions) and they are never returned:
every node's result is a value that came from a leaf.

Depth semantics
---------------
``depth`` is the number of plies still to search. A non-terminal state reached with depth <= 0 is
a horizon leaf and gets ``game.evaluate(state)`` (SolverError if the game declares none). With
``quiescence`` on (and ``info.has_quiescence``), a horizon state where ``game.is_quiet`` is False
is searched further: depth goes on decreasing below 0, the node's value is
``max(stand-pat evaluation, children)``, and at depth ``-quiescence_depth`` every state is a leaf.
``depth=None`` searches to the end of the game (internally depth ``FULL``, larger than any
reachable ply count); games must then be acyclic. A result is ``proven`` when no evaluation (and no
table entry that depended on one) contributed to it: then it is the exact game value.

Techniques (``SearchOptions``; all off by default = textbook fail-soft alpha-beta)
-----------------------------------------------------------------------------------
* ``tt`` -- transposition table keyed by state: (value, bound EXACT/LOWER/UPPER relative to the
  node's *original* window, depth, best action, work). An entry answers a query at depth ``d`` when
  its depth is >= d; entries whose subtree met no evaluation are stored with depth ``FULL`` (their
  bounds hold for the real game, so they answer any question). A LOWER entry answers only when its
  value >= beta, an UPPER one only when its value <= alpha, EXACT always; the stored value is then
  returned as is. The window is never *narrowed* from a bound: that keeps the fail-soft contract
  exact even when an entry comes from a different depth (a narrowed window can turn an upper bound
  into a result the caller takes for exact). Consequence worth knowing: with transpositions and a
  depth limit, a deeper entry may answer a shallower question (the usual engine behaviour), so
  depth-limited values with ``tt`` may differ from plain search on DAG-shaped games; on trees, and
  always at full depth, every option gives the same values.
  **Replacement policy** (Breuker et al.'s "TwoBig"): ``tt_size`` entries in buckets of two. The
  first slot keeps the entry whose subtree cost the most nodes ("work"); a new entry with at least
  as much work takes it and demotes the old one to the second slot; otherwise the new entry goes to
  the second slot, which is always replaced. A state already in the first slot is replaced only by
  an entry of at least the same depth. Depth-preferred replacement would be useless for exact
  solving, where every entry has depth FULL; work is what a lost entry costs to recompute.
  ``extra["tt_replaced"]`` counts entries of other states that were overwritten (``tt_full`` is
  True once that happened). The bucket index is ``hash(state)``; ints and tuples of ints (every
  built game) hash the same in every process, so node counts are reproducible.
* ``ordering`` -- the table's best action first (the table's move is used by nothing else), then
  children by a static evaluation of the child (``returns`` for terminal children) from the
  mover's side, when ``info.has_evaluate``.
* ``killers`` -- two actions per ply that last caused a beta cut-off, tried after the table move.
* ``history`` -- per-action score += depth**2 on every cut-off; remaining children sorted by it
  (after the evaluation, when both are on). Ties always break by declaration order.
* ``iterative_deepening`` -- depths 1, 2, ..., the previous iteration's principal variation
  searched first. Up to ``depth``; with ``depth=None`` until an iteration is proven (no
  evaluation was used), which is then the exact result. Without ``info.has_evaluate`` there is
  nothing to stop a shallow iteration with, so the option is ignored (one search).
* ``aspiration`` -- from the second iteration, the root window is the previous value +- delta
  (``aspiration_window``, default one unit of that value's denominator); on failure the failing
  side is opened to infinity and the iteration searched again (``researches``).
* ``pvs`` -- after a node's first child, each child is first tested with a minimal window
  ``(alpha, alpha + u)`` where u is one unit of alpha's denominator (1 for integers: the classic
  null window); if it fails high below beta it is searched again with ``(alpha, beta)``. Any
  u > 0 is correct (fail-soft results outside the window are bounds); the unit makes it tight.
* ``quiescence`` -- see depth semantics above.
* ``optimal_set`` (on by default) -- prove the exact set of optimal root actions (below). Off:
  the value-only fast path, the root searched as any other node, and ``best_actions`` holds the
  one optimal action that search found (Connect Four 5x4: 286,126 nodes for the set, fewer for
  the value alone, since each tie needs a proof that it reaches the value).
* Singular extensions are not implemented. They extend a move when a reduced-window test search
  shows the other moves are much worse; the test's outcome depends on alpha and on the table
  contents, so the same (state, depth) can get different values in different searches. That
  breaks the depth semantics the table relies on and the guarantee that every option returns the
  same value; and for exact solving (the main use of gdl) there is no horizon to extend. Declared
  quiescence already covers the horizon effect where the rules say a position is unstable.

The root: the exact set of optimal actions
------------------------------------------
The first child is searched with the root window ``(A, B)`` (infinite unless aspiration) until one
returns a value strictly inside it: that is the exact best so far, ``best``. Every later child is
searched with ``(lo, hi) = (best - u, best + u)`` (clipped to ``(A, B)``), u > 0 one unit of best:

* ``f <= lo``: by fail-soft, value <= f <= lo < best, so the child is not optimal;
* ``lo < f < hi``: f is the exact value; it ties (f == best), is worse, or is the new best;
* ``f >= hi``: value >= f >= hi > best; it is searched again with ``(best, B)``, whose result must
  be exact (a result <= best would contradict value > best) unless it is >= B, where the root fails
  high.

So on exit every action in the set has exact value ``best`` and every other action was proven
strictly below it: the set is exact, not just one optimal action. With integer values u = 1 makes
``(best - 1, best + 1)`` the tightest window that can still see a tie, so plain alpha-beta keeps its
textbook behaviour (Fig. 5.2 never visits c2, c3; Knuth-Moore counts on strictly ordered trees).
Proving ties costs nodes that a search for one best action would skip (tic-tac-toe, all nine first
moves drawn: 28,001 nodes against 18,297 for the textbook root); correctness of the set comes first.
The set is reported in declaration order, whatever order the children were searched in.

Budgets and stopping
--------------------
``Budget(time=, nodes=, stop=)``: with a time or node limit the search runs iterative deepening
(when the game has an evaluation) and answers with the deepest *completed* iteration; the first
iteration always completes. The clock, the node limit and ``stop`` (a ``threading.Event``) are
checked every ``CHECK_EVERY`` nodes (the node limit exactly). ``alphabeta()`` runs the search in a
worker thread with a large stack (as ``run_deep``); a KeyboardInterrupt in the calling thread sets
the stop event, the worker finishes its current check interval and the best completed iteration
is returned (a second Ctrl-C abandons the worker and re-raises). Another thread can stop a search
by setting ``budget.stop``. When nothing completed yet, KeyboardInterrupt (Ctrl-C) or
``SearchStopped`` (a budget, no evaluation to deepen with) is raised. A stop event alone (no time
or node limit) does not switch on iterative deepening, so stopping an exact solve of a game
without evaluation has no answer to give.
The clock holds inside one state too: when a single state's rules run past the deadline (by
``watchdog.GRACE``), ``gdl/solvers/watchdog.py`` raises ``RulesStopped`` in the search's thread,
caught like a stop (after the first iteration only, as the other limits). A node limit is still
checked between states only: one state's rules add no nodes.

Statistics
----------
``nodes``: states searched, root included (children evaluated only to order moves are not);
``leaves``: terminal states, horizon evaluations and stand-pat cut-offs; ``cutoffs``: beta
cut-offs; ``tt_probes`` / ``tt_hits``: table look-ups / look-ups that answered the node;
``researches``: PVS re-searches, root re-searches of a new best action, aspiration failures;
``depth_reached``: the deepest ply at which a leaf was met (quiescence included).
``extra``: ``iteration_nodes`` (per completed iteration), ``ebf`` (nodes ratio of the last two
iterations, else nodes ** (1 / depth_reached); a rounded float, a statistic, not a game value),
``stopped`` (None, "time", "nodes" or "stop"), ``optimal_set`` (False, on the value-only path
only), and with the table ``tt_capacity``, ``tt_entries``, ``tt_replaced``, ``tt_full``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, NamedTuple, TypeVar

from gdl.protocol import TERMINAL, ZERO_SUM, Action, Game, GameInfo, State, Value
from gdl.solvers.deep import run_deep
from gdl.solvers.ordering import MoveOrdering, Utilities
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolverError, SolveResult, Stats
from gdl.solvers.trace import ALPHA, BETA, STAND_PAT, Trace, two_player_bound
from gdl.solvers.trace import EXACT as TRACE_EXACT
from gdl.solvers.trace import LOWER as TRACE_LOWER
from gdl.solvers.trace import UPPER as TRACE_UPPER
from gdl.solvers.transposition import (
    BEST_ACTION,
    BOUND,
    DEPTH,
    EXACT,
    FULL,
    LOWER,
    NO_ACTION,
    STATE,
    UPPER,
    VALUE,
    WORK,
    Entry,
    TranspositionTable,
)
from gdl.solvers.watchdog import RulesStopped, watchdog
from gdl.solvers.wide import refuse_wide

__all__ = [
    "FULL",
    "Budget",
    "Engine",
    "SearchOptions",
    "SearchStopped",
    "alphabeta",
    "analyze",
    "optimal_strategy",
]

CHECK_EVERY = 512       # nodes between clock / stop checks
_NEG = float("-inf")    # window sentinels only; never returned as a value
_POS = float("inf")

# One end of a search window: a game value, or one of the sentinels -inf / +inf.
Edge = Value | float
# The recursion: (state, depth, alpha, beta, perspective, ply) -> value in that perspective.
Search = Callable[[State, int, Edge, Edge, int, int], Value]
T = TypeVar("T")


@dataclass(frozen=True)
class SearchOptions:
    """Each technique on its own switch. The default is plain fail-soft alpha-beta."""

    tt: bool = False
    tt_size: int = 1 << 20          # entries (two per bucket)
    ordering: bool = False
    killers: bool = False
    history: bool = False
    iterative_deepening: bool = False
    aspiration: bool = False
    aspiration_window: Value | None = None   # half-width; None: one unit of the previous value
    pvs: bool = False
    quiescence: bool = False
    quiescence_depth: int = 8
    optimal_set: bool = True        # False: the value and one optimal root action (fewer nodes)
    # With ordering: from this ply on, rank actions by the root's order instead of evaluating
    # every child (gdl.solvers.ordering); None: evaluate at every ply.
    evaluation_plies: int | None = None

    @classmethod
    def engine(cls, **changes: Any) -> SearchOptions:
        """Every sound technique on."""
        return replace(cls(tt=True, ordering=True, killers=True, history=True,
                           iterative_deepening=True, aspiration=True, pvs=True, quiescence=True),
                       **changes)


@dataclass
class Budget:
    """Limits for one search: ``time`` in seconds of wall clock, ``nodes``; and ``stop``, which any
    thread may set."""

    time: float | None = None
    nodes: int | None = None
    stop: threading.Event = field(default_factory=threading.Event)


class SearchStopped(SolverError):
    """The search was stopped before any iteration completed, so there is no answer."""


class _Stop(Exception):
    """Raised inside the search when a limit is reached (the reason is in ``_Limits.stopped``)."""


def check_game(info: GameInfo) -> None:
    """Refuse, up front, games alpha-beta cannot solve."""
    refuse_wide(info, "alpha-beta")
    if info.num_players != 2:
        raise SolverError(f"alpha-beta needs exactly two players; '{info.name}' has "
                          f"{info.num_players} (use max^n or paranoid)")
    if info.has_chance:
        raise SolverError(f"'{info.name}' has chance events; alpha-beta handles deterministic "
                          "games only (use expectiminimax)")
    if not info.is_constant_sum:
        raise SolverError(f"'{info.name}' is {info.sum_kind}; alpha-beta needs a zero-sum or "
                          "constant-sum game (use max^n)")


def _told(trace: Trace, apply: Callable, returns: Utilities, evaluate: Utilities) -> tuple:
    """The game's ``apply``, ``returns`` and ``evaluate`` as a traced search calls them: each
    move applied to search a child is an edge of the trace, each utility or evaluation of a
    leaf a leaf."""
    def traced_apply(state: State, action: Action) -> State:
        trace.edge(action)
        return apply(state, action)

    def traced_returns(state: State) -> tuple[Value, ...]:
        values = returns(state)
        trace.leaf(values)
        return values

    def traced_evaluate(state: State) -> tuple[Value, ...]:
        values = evaluate(state)
        trace.leaf(values, True)
        return values

    return traced_apply, traced_returns, traced_evaluate


class _Unapplied:
    """The move ordering as a traced search uses it: the same order, without the children it
    built to choose it, so that the search applies each move as it descends and the trace is
    told of the edge then (building them again costs a traced search only)."""

    def __init__(self, ordering: MoveOrdering):
        self._ordering = ordering

    def order(self, *args: Any) -> tuple[Sequence[Action], None]:
        return self._ordering.order(*args)[0], None

    def record_cutoff(self, *args: Any) -> None:
        self._ordering.record_cutoff(*args)


def _unapplied(ranked: Callable) -> Callable:
    """``MoveOrdering.ranked`` as a traced search uses it (see _Unapplied)."""
    def order(*args: Any) -> tuple[Sequence[Action], None]:
        return ranked(*args)[0], None
    return order


def _told_nodes(trace: Trace, search: Search, player: Callable, vector: Callable,
                pv_table: dict[State, Action]) -> Search:
    """The recursion telling the trace of each node it enters, with its window, and of the
    value each backs up (unless a leaf, the table or a cut-off by standing pat closed it),
    labelled as the fail-soft contract makes it: at or below alpha an upper bound, at or above
    beta a lower bound, else exact; the best child where the node knows it (an exact node's,
    or the child that cut it off)."""
    def told(state: State, depth: int, alpha: Edge, beta: Edge, sign: int, ply: int) -> Value:
        number = trace.enter(state, player(state), (alpha, beta) if sign > 0 else (-beta, -alpha))
        v = search(state, depth, alpha, beta, sign, ply)
        if trace.is_open(number):
            bound = two_player_bound(v, alpha, beta, sign > 0)
            best = pv_table.get(state) if bound == TRACE_EXACT else trace.cut_after()
            trace.exit(vector(v if sign > 0 else -v), bound, best)
        return v
    return told


def _traced_bound(bound: int, m: int) -> str:
    """A table bound on the mover's value (``m``: +1 player 0, -1 player 1), as the trace says
    it: on player 0's value."""
    if bound == EXACT:
        return TRACE_EXACT
    return TRACE_LOWER if (bound == LOWER) == (m > 0) else TRACE_UPPER


def _unit(x: Value) -> Value:
    """One unit of x's denominator: 1 for integers, 1/q for p/q."""
    if type(x) is int:
        return 1
    q = x.denominator
    return 1 if q == 1 else Fraction(1, q)


@dataclass(slots=True)
class _Counters:
    """What one engine has done so far (see "Statistics" in the module docstring)."""

    nodes: int = 0
    leaves: int = 0
    cutoffs: int = 0
    probes: int = 0
    hits: int = 0
    researches: int = 0
    max_ply: int = 0        # the deepest ply at which a leaf was met
    inexact: int = 0        # evaluations used, and answers from depth-limited table entries


class _Limits:
    """When the search must stop. The stop event is always obeyed; the node limit and the
    deadline only while ``armed`` (the first iteration of a deepening search always completes).
    The search calls ``poll`` when its node count reaches ``next_check``."""

    __slots__ = ("armed", "deadline", "next_check", "node_limit", "stop", "stopped")

    def __init__(self, deadline: float | None, node_limit: int | None, stop: threading.Event):
        self.deadline = deadline
        self.node_limit = node_limit
        self.stop = stop
        self.armed = False
        self.next_check = CHECK_EVERY
        self.stopped: str | None = None     # why the search stopped: "stop", "nodes" or "time"

    def poll(self, nodes: int) -> None:
        """Raise _Stop if a limit is reached, else plan the next check."""
        if self.stop.is_set():
            self.stopped = "stop"
            raise _Stop
        if self.armed:
            if self.node_limit is not None and nodes >= self.node_limit:
                self.stopped = "nodes"
                raise _Stop
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.stopped = "time"
                raise _Stop
        self.next_check = nodes + CHECK_EVERY
        if self.armed and self.node_limit is not None and self.node_limit < self.next_check:
            self.next_check = self.node_limit     # the node limit is checked exactly

    def arm(self, armed: bool, nodes: int) -> None:
        self.armed = armed
        self.next_check = nodes + 1          # re-plan the next check at the next node


class _LearnedSum:
    """The utility sum of a constant-sum game that does not declare it: the sum of the first
    utility vector the search reads (every vector of the game has the same sum)."""

    def __init__(self) -> None:
        self.total: Value | None = None

    def watching(self, utilities: Utilities) -> Utilities:
        def watched(state: State) -> tuple[Value, ...]:
            vector = utilities(state)
            if self.total is None:
                self.total = sum(vector)
            return vector
        return watched


class Engine:
    """One search context: options, counters, transposition table, move ordering.

    ``search(state, depth, alpha, beta)`` is the bare fail-soft search (player 0's perspective);
    ``solve_root`` is the root with the exact set of optimal actions. Not thread-safe.
    """

    def __init__(self, game: Game, options: SearchOptions | None = None, *,
                 deadline: float | None = None, node_limit: int | None = None,
                 stop: threading.Event | None = None, repetitions: bool = False,
                 trace: Trace | None = None):
        info = game.info
        check_game(info)
        self.game = game
        self.options = opts = options or SearchOptions()
        self.count = _Counters()
        self.limits = _Limits(deadline, node_limit, stop if stop is not None else threading.Event())

        self._declared_total: Value | None = info.utility_sum
        if self._declared_total is None and info.sum_kind == ZERO_SUM:
            self._declared_total = 0
        self._learned: _LearnedSum | None = None
        self.returns: Utilities = game.returns
        self.evaluate: Utilities = game.evaluate if info.has_evaluate else self._no_evaluation
        if self._declared_total is None:
            self._learned = _LearnedSum()
            self.returns = self._learned.watching(self.returns)
            self.evaluate = self._learned.watching(self.evaluate)

        self.table = TranspositionTable(opts.tt_size) if opts.tt else None
        self.ordering = MoveOrdering(
            game.current_player, game.apply, self.returns, self.evaluate,
            table_move_first=opts.ordering, by_evaluation=opts.ordering and info.has_evaluate,
            killers=opts.killers, history=opts.history, evaluation_plies=opts.evaluation_plies)
        self.pv_table: dict[State, Action] = {}    # state -> best action, where its value is exact
        self.trace = trace      # gdl.solvers.trace: the search's events, when stepped through
        # ``repetitions``: a state met again on the path raises RepetitionError (a game with no
        # length bound searched without a depth limit; see gdl.solvers.repetition).
        self._search = self._negamax(repetitions)

    def _no_evaluation(self, state: State) -> tuple[Value, ...]:
        raise SolverError(f"the depth limit was reached at a non-terminal state, but "
                          f"'{self.game.info.name}' declares no evaluation")

    @property
    def tt_capacity(self) -> int:
        return self.table.capacity if self.table is not None else 0

    # -----------------------------------------------------------------------------------------
    # The recursion

    def _negamax(self, repetitions: bool) -> Search:
        """The fail-soft recursion (see the module docstring), as a closure: every node reads the
        engine's parts many times, and a closure's cell is cheaper to read than an attribute."""
        game = self.game
        player, legal, apply, is_quiet = (game.current_player, game.legal_actions, game.apply,
                                          game.is_quiet)
        returns, evaluate = self.returns, self.evaluate
        count = self.count
        limits = self.limits
        table = self.table
        if table is not None:
            buckets, first_slots, second_slots = table.buckets, table.first, table.second
        ordering = self.ordering
        reorder_always = ordering.always
        ranked, ranked_from = ordering.ranked, ordering.ranked_from
        principal = ordering.principal          # updated in place between iterations
        learn_cutoffs = ordering.learns
        pv_table = self.pv_table
        pvs_on = self.options.pvs
        quiescence_on = self.options.quiescence and game.info.has_quiescence
        quiescence_floor = -self.options.quiescence_depth
        unit = _unit
        # A trace (gdl.solvers.trace) is told of each node by the wrapper ``told`` below, of each
        # edge by the ``apply`` the search descends with, of each leaf by ``returns`` and
        # ``evaluate``: all installed with a trace only, so a search given none tests for one
        # only where a rarer event happens (a cut-off, a table hit, a re-search, standing pat).
        trace = self.trace
        vector = self.vector
        stand_pat = evaluate        # (quiescence's evaluation of a node that is not a leaf)
        if trace is not None:
            apply, returns, evaluate = _told(trace, apply, returns, evaluate)
            ordering, ranked = _Unapplied(ordering), _unapplied(ranked)  # type: ignore[assignment]

        def search(state: State, depth: int, alpha: Edge, beta: Edge, sign: int,
                   ply: int) -> Value:
            count.nodes += 1
            if count.nodes >= limits.next_check:
                limits.poll(count.nodes)

            # Leaves: the end of the game, or the horizon (unless quiescence searches on).
            p = player(state)
            if p < 0:
                if p != TERMINAL:
                    raise SolverError("alpha-beta met a chance state")
                count.leaves += 1
                if ply > count.max_ply:
                    count.max_ply = ply
                v = returns(state)[0]
                return v if sign > 0 else -v
            if depth <= 0 and (not quiescence_on or depth <= quiescence_floor
                               or is_quiet(state)):
                count.leaves += 1
                count.inexact += 1
                if ply > count.max_ply:
                    count.max_ply = ply
                v = evaluate(state)[0]
                return v if sign > 0 else -v

            # From here on, the mover's perspective m: flip the window in, and the result out.
            m = -1 if p else 1
            flip = m != sign
            if flip:
                alpha, beta = -beta, -alpha

            # The table: an entry may answer the node outright, or suggest its best action.
            # TranspositionTable.find and transposition.answers, written out: as two calls a
            # node they cost a tenth of the engine's time (benchmarks/run.py, Connect Four).
            table_move = NO_ACTION
            if table is not None:
                count.probes += 1
                key = hash(state)
                slot = key % buckets
                entry = first_slots[slot]
                if entry is None or entry[STATE] != state:
                    entry = second_slots[slot]
                    if entry is not None and entry[STATE] != state:
                        entry = None
                if entry is not None:
                    if entry[DEPTH] >= depth:
                        bound = entry[BOUND]
                        value = entry[VALUE]
                        if bound == EXACT or (value >= beta if bound == LOWER else value <= alpha):
                            count.hits += 1
                            if entry[DEPTH] < FULL:
                                count.inexact += 1
                            if trace is not None:
                                trace.table(vector(value if m > 0 else -value),
                                            _traced_bound(bound, m))
                            return -value if flip else value
                    table_move = entry[BEST_ACTION]
            inexact0 = count.inexact
            nodes0 = count.nodes
            alpha0 = alpha
            best: Edge = _NEG
            best_move = NO_ACTION

            # Quiescence (below the horizon): the mover may stand pat on the evaluation.
            if depth <= 0:
                count.inexact += 1
                best = stand_pat(state)[0]
                if m < 0:
                    best = -best
                if best >= beta:
                    count.leaves += 1
                    if ply > count.max_ply:
                        count.max_ply = ply
                    if trace is not None:
                        trace.cutoff(STAND_PAT, best * m, beta * m, None, legal(state))
                        trace.exit(vector(best * m), _traced_bound(LOWER, m))
                    return -best if flip else best
                if best > alpha:
                    alpha = best

            actions: Sequence[Action] = legal(state)
            if not actions:
                raise SolverError(f"non-terminal state {state!r} has no legal actions")
            children: dict[Action, State] | None = None
            if ranked_from is not None and ply >= ranked_from and not (principal
                                                                      and state in principal):
                # MoveOrdering.order's choice at these nodes, one call shorter (most nodes).
                actions, children = ranked(state, actions, m, [table_move] if (
                    table_move is not NO_ACTION and table_move in actions) else [])
            elif reorder_always or (principal and state in principal):
                actions, children = ordering.order(state, actions, m, ply, table_move)

            # The children. With PVS, every child after the first is first tested with a null
            # window (alpha, nb), nb = alpha + one unit: fail low there and it is no better.
            # (tests/test_fuzz_teeth.py plants bugs by editing the text of the lines
            # "if nb <= v < beta:" and "if v >= beta:" below: change them together.)
            depth1 = depth - 1
            ply1 = ply + 1
            scout = False
            for a in actions:
                child = children[a] if children else apply(state, a)
                if scout:
                    # (alpha is a value here: the first child's value raised it above -inf.)
                    # (one unit of an int is 1: written out, as a call it is a node's cost)
                    nb = (alpha + 1 if type(alpha) is int
                          else alpha + unit(alpha))  # type: ignore[arg-type]
                    if nb < beta:
                        v = search(child, depth1, alpha, nb, m, ply1)
                        # At or above nb it failed high: a lower bound; below beta, search again.
                        if nb <= v < beta:
                            count.researches += 1
                            if trace is not None:
                                trace.edge(a, again=True)
                            v = search(child, depth1, alpha, beta, m, ply1)
                    else:
                        v = search(child, depth1, alpha, beta, m, ply1)
                else:
                    v = search(child, depth1, alpha, beta, m, ply1)
                    scout = pvs_on
                if v > best:
                    best = v
                    best_move = a
                    if v > alpha:
                        if v >= beta:
                            count.cutoffs += 1
                            if learn_cutoffs:
                                ordering.record_cutoff(a, ply, depth)
                            if trace is not None:
                                trace.cutoff(BETA if m > 0 else ALPHA, v * m, beta * m, a,
                                             actions[list(actions).index(a) + 1:])
                            break
                        alpha = v

            if table is not None:
                # (Read as this module's names: tests/test_fuzz_teeth.py replaces them.)
                bound = LOWER if best >= beta else UPPER if best <= alpha0 else EXACT
                depth_answered = FULL if count.inexact == inexact0 else depth
                # best is a value by now, not -inf: every child returned one (mypy cannot see it).
                stored: Entry = (state, best, bound, depth_answered,  # type: ignore[assignment]
                                 best_move, count.nodes - nodes0)
                # TranspositionTable.store, written out for the same reason as the probe.
                first = first_slots[slot]
                if first is None:
                    first_slots[slot] = stored
                    table.used += 1
                elif first[STATE] == state:
                    if depth_answered >= first[DEPTH]:
                        first_slots[slot] = stored
                else:
                    second = second_slots[slot]
                    if second is None:
                        table.used += 1
                    elif second[STATE] != state:
                        table.replaced += 1
                    if stored[WORK] >= first[WORK]:
                        first_slots[slot] = stored
                        second_slots[slot] = first
                    else:
                        second_slots[slot] = stored
            if alpha0 < best < beta and best_move is not NO_ACTION:
                pv_table[state] = best_move
            return -best if flip else best  # type: ignore[return-value]  # (a value: see above)

        # Rebinding the name makes the recursive calls go through the guard too.
        search = guard_path(game, search, repetitions)
        if trace is not None:
            search = _told_nodes(trace, search, player, vector, pv_table)  # type: ignore[assignment]
        return search

    def search(self, state: State, depth: int | None = None, alpha: Edge = _NEG,
               beta: Edge = _POS) -> Value:
        """Fail-soft alpha-beta value of ``state`` for player 0, window (alpha, beta) in player
        0's terms: a result <= alpha is an upper bound, >= beta a lower bound, else exact."""
        return self._search(state, FULL if depth is None else depth, alpha, beta, 1, 0)

    # -----------------------------------------------------------------------------------------
    # The root: the exact set of optimal actions

    def _root(self, state: State, depth: int, lo_bound: Edge,
              hi_bound: Edge) -> tuple[Value, list[Action] | None]:
        """The root with window (lo_bound, hi_bound) in the mover's perspective.

        Returns (value, ties in search order) with the exact value and set when the value is
        inside the window, else (fail-soft bound, None). See the module docstring for why the
        set is exact."""
        count = self.count
        count.nodes += 1
        if count.nodes >= self.limits.next_check:
            self.limits.poll(count.nodes)
        m = -1 if self.game.current_player(state) else 1
        trace = self.trace
        if trace is not None:
            trace.enter(state, self.game.current_player(state),
                        (lo_bound, hi_bound) if m > 0 else (-hi_bound, -lo_bound))
        actions: Sequence[Action] = self.game.legal_actions(state)
        if not actions:
            raise SolverError(f"non-terminal state {state!r} has no legal actions")
        children: dict[Action, State] | None = None
        if self.ordering.always or self.ordering.principal:
            actions, children = self.ordering.order(state, actions, m, 0, NO_ACTION)
        search = self._search
        depth1 = depth - 1
        best: Edge = _NEG
        ties: list[Action] | None = None       # None until a value fell inside the window
        for a in actions:
            child = children[a] if children else self.game.apply(state, a)
            if trace is not None:
                trace.edge(a)
            if ties is None:
                # Until one child's value is exact, search with the root window itself.
                v = search(child, depth1, lo_bound, hi_bound, m, 1)
                if v >= hi_bound:
                    return self._root_fails(v, hi_bound, m, a, actions), None
                if v > best:
                    best = v
                if v > lo_bound:
                    ties = [a]
                continue
            # best is exact: test the child with the tightest window that still sees a tie.
            u = _unit(best)   # type: ignore[arg-type]  # best is a value once ties is a list
            lo = max(best - u, lo_bound)
            hi = min(best + u, hi_bound)
            v = search(child, depth1, lo, hi, m, 1)
            if v <= lo:
                continue            # strictly worse than best
            if v >= hi:
                # Better than best: its exact value, unless it fails the root window high.
                if v >= hi_bound:
                    return self._root_fails(v, hi_bound, m, a, actions), None
                count.researches += 1
                if trace is not None:
                    trace.edge(a, again=True)
                v = search(child, depth1, best, hi_bound, m, 1)
                if v >= hi_bound:
                    return self._root_fails(v, hi_bound, m, a, actions), None
            if v == best:
                ties.append(a)
            elif v > best:
                best = v
                ties = [a]
        if ties is not None:
            self.pv_table[state] = ties[0]
        if trace is not None:
            trace.exit(self.vector(best * m),  # type: ignore[arg-type]  # a value (see below)
                       TRACE_EXACT if ties is not None else _traced_bound(UPPER, m),
                       ties[0] if ties is not None else None)
        return best, ties  # type: ignore[return-value]  # best is a value: a child returned it

    def _root_fails(self, v: Value, hi_bound: Edge, m: int, after: Action,
                    actions: Sequence[Action]) -> Value:
        """The root's result ``v`` (mover's view) when a child fails its window high; the trace
        is told (a cut-off, and the root's value: a lower bound)."""
        if self.trace is not None:
            self.trace.cutoff(BETA if m > 0 else ALPHA, v * m, hi_bound * m, after,
                              actions[list(actions).index(after) + 1:])
            self.trace.exit(self.vector(v * m), _traced_bound(LOWER, m), after)
        return v

    def _root_value(self, state: State, depth: int, lo_bound: Edge,
                    hi_bound: Edge) -> tuple[Value, list[Action] | None]:
        """The value-only fast path of ``_root`` (``optimal_set=False``): the root searched as
        any other node, so ties are not proven; the one action returned is the root's best child,
        which is optimal when the value is exact (fail-soft: its value is the root's). Falls back
        to ``_root`` in the one case that records no best action."""
        m = -1 if self.game.current_player(state) else 1
        v = self._search(state, depth, lo_bound, hi_bound, m, 0)
        if v <= lo_bound or v >= hi_bound:
            return v, None
        action = self.pv_table.get(state, NO_ACTION)
        if action is NO_ACTION and self.table is not None:
            action = self.table.exact_action(state)
        if action is NO_ACTION:
            return self._root(state, depth, lo_bound, hi_bound)
        return v, [action]

    def solve_root(self, state: State, depth: int,
                   guess: Value | None = None) -> tuple[Value, tuple[Action, ...], bool]:
        """One complete root search at ``depth``: (value for player 0, best actions in
        declaration order, proven). ``guess`` (player 0's view) centres an aspiration window;
        a search that fails it opens the failing side to infinity and searches again."""
        m = -1 if self.game.current_player(state) else 1
        lo_bound: Edge = _NEG
        hi_bound: Edge = _POS
        if guess is not None:
            g = guess if m > 0 else -guess
            delta = self.options.aspiration_window
            if delta is None:
                delta = _unit(g)
            lo_bound, hi_bound = g - delta, g + delta
        self.pv_table.clear()
        root = self._root if self.options.optimal_set else self._root_value
        while True:
            inexact_before = self.count.inexact
            value, ties = root(state, depth, lo_bound, hi_bound)
            if ties is not None:
                break
            self.count.researches += 1
            if value <= lo_bound:
                lo_bound = _NEG
            else:
                hi_bound = _POS
        best = tuple(a for a in self.game.legal_actions(state) if a in ties)
        proven = self.count.inexact == inexact_before
        return (value if m > 0 else -value), best, proven

    def pv_from(self, state: State, first: Action) -> tuple[Action, ...]:
        """The principal variation: ``first``, then the recorded best actions (the exact nodes'
        of the last root search, else the table's exact entries), until a terminal state, a
        state with neither, or a repeated state."""
        game = self.game
        line = [first]
        seen = {state}
        state = game.apply(state, first)
        while state not in seen and game.current_player(state) >= 0:
            seen.add(state)
            a = self.pv_table.get(state, NO_ACTION)
            if a is NO_ACTION and self.table is not None:
                a = self.table.exact_action(state)
            if a is NO_ACTION:
                break
            line.append(a)
            state = game.apply(state, a)
        return tuple(line)

    # -----------------------------------------------------------------------------------------
    # Control and results

    def arm(self, armed: bool) -> None:
        """Obey the node limit and the deadline (``armed``) or only the stop event."""
        self.limits.arm(armed, self.count.nodes)

    def set_pv_moves(self, moves: dict[State, Action]) -> None:
        """Search these actions (state -> action) first: the previous iteration's line."""
        self.ordering.follow(moves)

    def stats(self) -> Stats:
        c = self.count
        return Stats(nodes=c.nodes, leaves=c.leaves, cutoffs=c.cutoffs, tt_probes=c.probes,
                     tt_hits=c.hits, researches=c.researches, depth_reached=c.max_ply)

    def vector(self, v0: Value) -> tuple[Value, Value]:
        """Both players' values from player 0's."""
        total = self._declared_total
        if total is None and self._learned is not None:
            total = self._learned.total
        if total is None:       # unreachable: every result comes from some returned vector
            raise SolverError("constant-sum game declares no utility_sum")
        return (v0, total - v0)


# ---------------------------------------------------------------------------------------------
# Running a search in a worker thread, stoppable from the caller's thread.

def _run_stoppable(fn: Callable[[], T], stop: threading.Event) -> T:
    """Run ``fn`` with ``deep.run_deep``. A KeyboardInterrupt while waiting sets ``stop``, so the
    search returns its deepest completed iteration; a second one abandons the worker. If nothing
    had completed, the interrupt goes on to the caller."""
    interrupted: list[bool] = []

    def interrupt() -> None:
        interrupted.append(True)
        stop.set()

    try:
        return run_deep(fn, on_interrupt=interrupt)
    except SearchStopped:
        if interrupted:
            raise KeyboardInterrupt from None
        raise


def _initial(game: Game, root_state: State | None) -> State:
    return game.initial_state() if root_state is None else root_state


# ---------------------------------------------------------------------------------------------
# Public API

def alphabeta(game: Game, *, depth: int | None = None, options: SearchOptions | None = None,
              budget: Budget | None = None, root_state: State | None = None,
              trace: Trace | None = None) -> SolveResult:
    """Solve a two-player constant-sum deterministic game by fail-soft alpha-beta.

    Returns the value vector, the exact set of optimal root actions (declaration order), a
    principal variation starting with the first of them, and statistics. ``depth=None`` searches
    to the end; a depth or a budget may cut it short (then ``proven`` says whether any evaluation
    was used). See the module docstring for options, budgets and stopping. ``trace``: a
    gdl.solvers.trace.Trace that receives the search's events."""
    check_game(game.info)
    if depth is not None and depth < 1:
        raise SolverError("the depth limit must be at least 1")
    opts = options or SearchOptions()
    stop = budget.stop if budget is not None and budget.stop is not None else threading.Event()
    state = _initial(game, root_state)
    return _run_stoppable(lambda: _drive(game, state, depth, opts, budget, stop, trace), stop)


class _Iteration(NamedTuple):
    """One completed root search."""

    depth: int | None
    value: Value            # player 0's
    best: tuple[Action, ...]
    proven: bool
    pv: tuple[Action, ...]


def _drive(game: Game, state: State, depth: int | None, opts: SearchOptions,
           budget: Budget | None, stop: threading.Event,
           trace: Trace | None = None) -> SolveResult:
    """Search once, or deepen iteratively (when asked, or when a budget needs something to stop
    with, and the game has an evaluation to stop a shallow iteration with); then the result."""
    deadline = node_limit = None
    if budget is not None:
        if budget.time is not None:
            deadline = time.monotonic() + budget.time
        node_limit = budget.nodes
    limited = deadline is not None or node_limit is not None
    deepen = game.info.has_evaluate and (limited or opts.iterative_deepening)
    engine = Engine(game, opts, deadline=deadline, node_limit=node_limit, stop=stop,
                    repetitions=depth is None and not limited, trace=trace)

    if game.current_player(state) == TERMINAL:
        if engine.trace is not None:
            engine.trace.enter(state, TERMINAL)
            engine.trace.leaf(game.returns(state))
        return SolveResult(values=tuple(game.returns(state)), best_actions=(), pv=(),
                           algorithm="alphabeta", stats=Stats(nodes=1, leaves=1), proven=True,
                           depth=0)
    iteration_nodes: list[int] = []
    # the deadline inside one state too (rules that work for long): see gdl/solvers/watchdog.py
    with watchdog(deadline, armed=lambda: engine.limits.armed):
        if deepen:
            done = _deepen(engine, state, depth, limited, opts.aspiration, iteration_nodes)
        else:
            done = _search_once(engine, state, depth, iteration_nodes)
    return _result(engine, done, iteration_nodes)


def _search_once(engine: Engine, state: State, depth: int | None,
                 iteration_nodes: list[int]) -> _Iteration:
    engine.arm(True)
    try:
        value, best, proven = engine.solve_root(state, FULL if depth is None else depth)
    except (_Stop, RulesStopped):
        raise SearchStopped("the search was stopped before it completed (and the game has "
                            "no evaluation to search it shallower)") from None
    iteration_nodes.append(engine.count.nodes)
    return _Iteration(depth, value, best, proven, engine.pv_from(state, best[0]))


def _deepen(engine: Engine, state: State, depth: int | None, limited: bool, aspiration: bool,
            iteration_nodes: list[int]) -> _Iteration:
    """Iterative deepening: depths 1, 2, ... each searching the previous line first (and with
    ``aspiration``, in a window around the previous value), until an iteration is proven, reaches
    ``depth``, or is stopped; the deepest completed iteration. The first always completes (the
    limits are armed from the second on)."""
    done: _Iteration | None = None
    line: dict[State, Action] = {}
    d = 1
    while True:
        engine.arm(limited and done is not None)
        engine.set_pv_moves(line)
        before = engine.count.nodes
        guess = done.value if done is not None and aspiration else None
        try:
            value, best, proven = engine.solve_root(state, d, guess)
        except _Stop:
            break
        except RulesStopped:         # the watchdog: one state's rules ran past the deadline
            engine.limits.stopped = "time"
            break
        iteration_nodes.append(engine.count.nodes - before)
        done = _Iteration(d, value, best, proven, engine.pv_from(state, best[0]))
        if proven or (depth is not None and d >= depth):
            break
        line = {}
        s = state
        for a in done.pv:
            line[s] = a
            s = engine.game.apply(s, a)
        d += 1
    if done is None:
        raise SearchStopped("the search was stopped before its first iteration completed")
    return done


def _result(engine: Engine, done: _Iteration, iteration_nodes: list[int]) -> SolveResult:
    stats = engine.stats()
    extra: dict[str, Any] = {"iteration_nodes": iteration_nodes,
                             "stopped": engine.limits.stopped}
    if not engine.options.optimal_set:      # (absent: the whole set, as every other solver)
        extra["optimal_set"] = False
    if len(iteration_nodes) >= 2 and iteration_nodes[-2]:
        extra["ebf"] = round(iteration_nodes[-1] / iteration_nodes[-2], 3)
    elif stats.depth_reached:
        extra["ebf"] = round(stats.nodes ** (1 / stats.depth_reached), 3)
    if engine.table is not None:
        extra.update(tt_capacity=engine.tt_capacity, tt_entries=engine.table.used,
                     tt_replaced=engine.table.replaced, tt_full=engine.table.replaced > 0)
    return SolveResult(values=engine.vector(done.value), best_actions=done.best, pv=done.pv,
                       algorithm="alphabeta", stats=stats, proven=done.proven,
                       depth=done.depth, extra=extra)


def analyze(game: Any, state: State | None = None, *, depth: int | None = None,
            options: SearchOptions | None = None) -> list[tuple[Action, tuple[Value, ...]]]:
    """The value vector of every legal action at ``state`` (declaration order), each searched
    with an open window, so each value is exact (to ``depth`` plies, when given)."""
    check_game(game.info)
    if depth is not None and depth < 1:
        raise SolverError("the depth limit must be at least 1")
    state = _initial(game, state)
    stop = threading.Event()

    def work() -> list[tuple[Action, tuple[Value, ...]]]:
        if game.current_player(state) == TERMINAL:
            return []
        engine = Engine(game, options, stop=stop, repetitions=depth is None)
        d = FULL if depth is None else depth - 1
        out = []
        for a in game.legal_actions(state):
            out.append((a, engine.search(game.apply(state, a), d)))
        return [(a, engine.vector(v)) for a, v in out]

    return _run_stoppable(work, stop)


def optimal_strategy(game: Any, *, max_states: int = 200_000,
                     root_state: State | None = None) -> dict[State, tuple[Action, ...]]:
    """Every reachable non-terminal state -> its set of optimal actions (declaration order).

    Computed exactly by one retrograde minimax pass over the reachable state graph (each state's
    value once, in post-order), which gives the same sets as the root exact-set search at every
    state, in linear time. Refuses (SolverError) when more than ``max_states`` non-terminal states
    are reachable, or when the game has a cycle."""
    info = game.info
    check_game(info)
    player = game.current_player
    legal = game.legal_actions
    apply = game.apply
    root = _initial(game, root_state)

    kids: dict[State, list[tuple[Action, State]]] = {}
    value: dict[State, Value] = {}     # player 0's utility
    on_path: set[State] = set()
    stack: list[tuple[State, bool]] = [(root, False)]
    post: list[State] = []
    while stack:
        s, finished = stack.pop()
        if finished:
            on_path.discard(s)
            post.append(s)
            continue
        if s in kids or s in value:
            continue
        p = player(s)
        if p == TERMINAL:
            value[s] = game.returns(s)[0]
            continue
        if p < 0:
            raise SolverError("alpha-beta met a chance state")
        if len(kids) >= max_states:
            raise SolverError(f"more than {max_states} reachable non-terminal states; "
                              "raise max_states to compute the whole strategy")
        children = [(a, apply(s, a)) for a in legal(s)]
        if not children:
            raise SolverError(f"non-terminal state {s!r} has no legal actions")
        kids[s] = children
        on_path.add(s)
        stack.append((s, True))
        for _, c in reversed(children):
            if c in on_path:
                raise SolverError("the game has a cycle; its strategy is not defined by minimax")
            if c not in kids and c not in value:
                stack.append((c, False))

    strategy: dict[State, tuple[Action, ...]] = {}
    for s in post:                      # children before parents
        m = -1 if player(s) else 1      # the mover maximises m * (player 0's utility)
        scores = [(a, m * value[c]) for a, c in kids[s]]
        best = max(score for _, score in scores)
        value[s] = m * best
        strategy[s] = tuple(a for a, score in scores if score == best)
    return {s: strategy[s] for s in kids}   # discovery order
