"""Fail-soft alpha-beta: the search engine of gdl, for two-player constant-sum deterministic games.

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

Statistics
----------
``nodes``: states searched, root included (children evaluated only to order moves are not);
``leaves``: terminal states, horizon evaluations and stand-pat cut-offs; ``cutoffs``: beta
cut-offs; ``tt_probes`` / ``tt_hits``: table look-ups / look-ups that answered the node;
``researches``: PVS re-searches, root re-searches of a new best action, aspiration failures;
``depth_reached``: the deepest ply at which a leaf was met (quiescence included).
``extra``: ``iteration_nodes`` (per completed iteration), ``ebf`` (nodes ratio of the last two
iterations, else nodes ** (1 / depth_reached); a rounded float, a statistic, not a game value),
``stopped`` (None, "time", "nodes" or "stop"), and with the table ``tt_capacity``,
``tt_entries``, ``tt_replaced``, ``tt_full``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from gdl.protocol import TERMINAL, ZERO_SUM, Action, State, Value
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolverError, SolveResult, Stats

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

FULL = 1 << 30          # "search to the end": more plies than any search can reach
CHECK_EVERY = 512       # nodes between clock / stop checks
EXACT, LOWER, UPPER = 0, 1, 2
_NEG = float("-inf")    # window sentinels only; never returned as a value
_POS = float("inf")
_NO = object()          # "no action" (actions themselves may be any hashable, even None)


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
    """Raised inside the search when a limit is reached; carries the reason."""


def check_game(info: Any) -> None:
    """Refuse, up front, games alpha-beta cannot solve."""
    if info.num_players != 2:
        raise SolverError(f"alpha-beta needs exactly two players; '{info.name}' has "
                          f"{info.num_players} (use max^n or paranoid)")
    if info.has_chance:
        raise SolverError(f"'{info.name}' has chance events; alpha-beta handles deterministic "
                          "games only (use expectiminimax)")
    if not info.is_constant_sum:
        raise SolverError(f"'{info.name}' is {info.sum_kind}; alpha-beta needs a zero-sum or "
                          "constant-sum game (use max^n)")


def _unit(x: Value) -> Value:
    """One unit of x's denominator: 1 for integers, 1/q for p/q."""
    if type(x) is int:
        return 1
    q = x.denominator
    return 1 if q == 1 else Fraction(1, q)


class Engine:
    """One search context: options, counters, transposition table, killers, history.

    ``search(state, depth, alpha, beta)`` is the bare fail-soft search (player 0's perspective);
    ``solve_root`` is the root with the exact set of optimal actions. Not thread-safe.
    """

    def __init__(self, game: Any, options: SearchOptions | None = None, *,
                 deadline: float | None = None, node_limit: int | None = None,
                 stop: threading.Event | None = None, repetitions: bool = False):
        opts = options or SearchOptions()
        info = game.info
        check_game(info)
        self.game = game
        self.options = opts
        if stop is None:
            stop = threading.Event()

        player = game.current_player
        legal = game.legal_actions
        apply = game.apply
        returns = game.returns
        is_quiet = game.is_quiet
        has_eval = info.has_evaluate
        tt_on = opts.tt
        killers_on = opts.killers
        history_on = opts.history
        ordering_on = opts.ordering
        eval_order = ordering_on and has_eval
        order_on = opts.ordering or killers_on or history_on
        pvs_on = opts.pvs
        q_on = opts.quiescence and info.has_quiescence
        q_floor = -opts.quiescence_depth
        unit = _unit
        monotonic = time.monotonic
        stop_is_set = stop.is_set

        total: Value | None = info.utility_sum
        if total is None and info.sum_kind == ZERO_SUM:
            total = 0
        if has_eval:
            evaluate = game.evaluate
        else:
            def evaluate(state):
                raise SolverError(f"the depth limit was reached at a non-terminal state, but "
                                  f"'{info.name}' declares no evaluation")
        if total is None:   # constant-sum without a declared sum: learn it from the first vector
            def learning(fn):
                def wrapped(state):
                    nonlocal total
                    r = fn(state)
                    if total is None:
                        total = sum(r)
                    return r
                return wrapped
            returns = learning(returns)
            evaluate = learning(evaluate)

        # Transposition table: two parallel tiers of n buckets (see module docstring).
        n = max(1, opts.tt_size // 2)
        big: list = [None] * n if tt_on else []
        small: list = [None] * n if tt_on else []
        killer_tab: list[list] = []
        hist: dict = {}
        pv_table: dict = {}        # state -> best action, for nodes with an exact value
        pv_moves: dict = {}        # previous iteration's principal variation, state -> action

        nodes = leaves = cutoffs = probes = hits = researches = 0
        inexact = 0                # evaluations used (and answers from depth-limited entries)
        maxply = 0
        tt_used = tt_replaced = 0
        armed = False
        next_check = CHECK_EVERY
        stopped: str | None = None

        def poll() -> None:
            nonlocal next_check, stopped
            if stop_is_set():
                stopped = "stop"
                raise _Stop
            if armed:
                if node_limit is not None and nodes >= node_limit:
                    stopped = "nodes"
                    raise _Stop
                if deadline is not None and monotonic() >= deadline:
                    stopped = "time"
                    raise _Stop
            next_check = nodes + CHECK_EVERY
            if armed and node_limit is not None and node_limit < next_check:
                next_check = node_limit

        def order(state, actions, m, ply, tt_move):
            """(actions in search order, {action: child} or None)."""
            firsts = []
            if pv_moves:
                a = pv_moves.get(state, _NO)
                if a is not _NO and a in actions:
                    firsts.append(a)
            if ordering_on and tt_move is not _NO and tt_move not in firsts and tt_move in actions:
                firsts.append(tt_move)
            if killers_on and ply < len(killer_tab):
                for a in killer_tab[ply]:
                    if a is not _NO and a not in firsts and a in actions:
                        firsts.append(a)
            pre = None
            if eval_order or history_on:
                keyed = []
                if eval_order:
                    pre = {}
                for i, a in enumerate(actions):
                    s = 0
                    if eval_order:
                        c = apply(state, a)
                        pre[a] = c
                        if a in firsts:
                            continue
                        v = returns(c)[0] if player(c) == TERMINAL else evaluate(c)[0]
                        s = -v if m > 0 else v
                    elif a in firsts:
                        continue
                    keyed.append((s, -hist.get(a, 0) if history_on else 0, i, a))
                keyed.sort()
                firsts.extend([k[3] for k in keyed])
                return firsts, pre
            if not firsts:
                return actions, None
            firsts.extend([a for a in actions if a not in firsts])
            return firsts, None

        def search(state, depth, alpha, beta, sign, ply):
            nonlocal nodes, leaves, cutoffs, probes, hits, researches, inexact, maxply
            nonlocal tt_used, tt_replaced
            nodes += 1
            if nodes >= next_check:
                poll()
            p = player(state)
            if p < 0:
                if p != TERMINAL:
                    raise SolverError("alpha-beta met a chance state")
                leaves += 1
                if ply > maxply:
                    maxply = ply
                v = returns(state)[0]
                return v if sign > 0 else -v
            if depth <= 0 and (not q_on or depth <= q_floor or is_quiet(state)):
                leaves += 1
                inexact += 1
                if ply > maxply:
                    maxply = ply
                v = evaluate(state)[0]
                return v if sign > 0 else -v
            m = -1 if p else 1
            flip = m != sign
            if flip:
                alpha, beta = -beta, -alpha
            tt_move = _NO
            if tt_on:
                probes += 1
                i = hash(state) % n
                e = big[i]
                if e is None or e[0] != state:
                    e = small[i]
                    if e is not None and e[0] != state:
                        e = None
                if e is not None:
                    if e[3] >= depth:
                        v = e[1]
                        fl = e[2]
                        if fl == EXACT or (v >= beta if fl == LOWER else v <= alpha):
                            hits += 1
                            if e[3] < FULL:
                                inexact += 1
                            return -v if flip else v
                    tt_move = e[4]
            inexact0 = inexact
            nodes0 = nodes
            alpha0 = alpha
            best = _NEG
            best_move = _NO
            if depth <= 0:          # quiescence: the mover may stand pat on the evaluation
                inexact += 1
                best = evaluate(state)[0]
                if m < 0:
                    best = -best
                if best >= beta:
                    leaves += 1
                    if ply > maxply:
                        maxply = ply
                    return -best if flip else best
                if best > alpha:
                    alpha = best
            actions = legal(state)
            if not actions:
                raise SolverError(f"non-terminal state {state!r} has no legal actions")
            if order_on or (pv_moves and state in pv_moves):
                actions, pre = order(state, actions, m, ply, tt_move)
            else:
                pre = None
            depth1 = depth - 1
            ply1 = ply + 1
            scout = False
            for a in actions:
                child = pre[a] if pre else apply(state, a)
                if scout:
                    nb = alpha + unit(alpha)
                    if nb < beta:
                        v = search(child, depth1, alpha, nb, m, ply1)
                        if nb <= v < beta:
                            researches += 1
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
                            cutoffs += 1
                            if killers_on:
                                while len(killer_tab) <= ply:
                                    killer_tab.append([_NO, _NO])
                                ks = killer_tab[ply]
                                if ks[0] != a:
                                    ks[1] = ks[0]
                                    ks[0] = a
                            if history_on:
                                hist[a] = hist.get(a, 0) + (depth * depth if depth > 0 else 1)
                            break
                        alpha = v
            if tt_on:
                entry = (state, best,
                         LOWER if best >= beta else UPPER if best <= alpha0 else EXACT,
                         FULL if inexact == inexact0 else depth, best_move, nodes - nodes0)
                e = big[i]
                if e is None:
                    big[i] = entry
                    tt_used += 1
                elif e[0] == state:
                    if entry[3] >= e[3]:
                        big[i] = entry
                else:
                    s = small[i]
                    if s is None:
                        tt_used += 1
                    elif s[0] != state:     # (a stale copy of this state is no loss)
                        tt_replaced += 1
                    if entry[5] >= e[5]:
                        big[i] = entry
                        small[i] = e
                    else:
                        small[i] = entry
            if alpha0 < best < beta and best_move is not _NO:
                pv_table[state] = best_move
            return -best if flip else best

        # ``repetitions``: a state met again on the path raises RepetitionError (a game with no
        # length bound searched without a depth limit; see gdl.solvers.repetition).
        search = guard_path(game, search, repetitions)

        def root(state, depth, lo_bound, hi_bound):
            """The root with window (lo_bound, hi_bound) in the mover's perspective.

            Returns (value, ties in search order) with the exact value and set when the value is
            inside the window, else (fail-soft bound, None). See the module docstring for why the
            set is exact."""
            nonlocal nodes, researches, maxply
            nodes += 1
            if nodes >= next_check:
                poll()
            m = -1 if player(state) else 1
            actions = legal(state)
            if not actions:
                raise SolverError(f"non-terminal state {state!r} has no legal actions")
            pre = None
            if order_on or pv_moves:
                actions, pre = order(state, actions, m, 0, _NO)
            depth1 = depth - 1
            best = _NEG
            ties = None
            for a in actions:
                child = pre[a] if pre else apply(state, a)
                if ties is None:
                    v = search(child, depth1, lo_bound, hi_bound, m, 1)
                    if v >= hi_bound:
                        return v, None
                    if v > best:
                        best = v
                    if v > lo_bound:
                        ties = [a]
                    continue
                u = unit(best)
                lo = best - u
                hi = best + u
                if lo < lo_bound:
                    lo = lo_bound
                if hi > hi_bound:
                    hi = hi_bound
                v = search(child, depth1, lo, hi, m, 1)
                if v <= lo:
                    continue
                if v >= hi:
                    if v >= hi_bound:
                        return v, None
                    researches += 1
                    v = search(child, depth1, best, hi_bound, m, 1)
                    if v >= hi_bound:
                        return v, None
                if v == best:
                    ties.append(a)
                elif v > best:
                    best = v
                    ties = [a]
            if ties is not None:
                pv_table[state] = ties[0]
            return best, ties

        def solve_root(state, depth, guess=None):
            """One complete root search at ``depth``: (value for player 0, best actions in
            declaration order, proven). ``guess`` (player 0's view) centres an aspiration window."""
            nonlocal researches
            m = -1 if player(state) else 1
            lo_bound, hi_bound = _NEG, _POS
            if guess is not None:
                g = guess if m > 0 else -guess
                delta = opts.aspiration_window if opts.aspiration_window is not None else unit(g)
                lo_bound, hi_bound = g - delta, g + delta
            pv_table.clear()
            while True:
                before = inexact
                value, ties = root(state, depth, lo_bound, hi_bound)
                if ties is not None:
                    break
                researches += 1
                if value <= lo_bound:
                    lo_bound = _NEG
                else:
                    hi_bound = _POS
            declared = legal(state)
            best = tuple(a for a in declared if a in ties)
            return (value if m > 0 else -value), best, inexact == before

        def pv_from(state, first):
            """The principal variation: ``first``, then the recorded best actions."""
            line = [first]
            seen = {state}
            state = apply(state, first)
            while state not in seen and player(state) >= 0:
                seen.add(state)
                a = pv_table.get(state, _NO)
                if a is _NO and tt_on:
                    i = hash(state) % n
                    for e in (big[i], small[i]):
                        if e is not None and e[0] == state and e[2] == EXACT:
                            a = e[4]
                            break
                if a is _NO:
                    break
                line.append(a)
                state = apply(state, a)
            return tuple(line)

        def arm(flag: bool) -> None:
            nonlocal armed, next_check
            armed = flag
            next_check = nodes + 1          # re-plan the next check at the next node

        def set_pv_moves(moves: dict) -> None:
            pv_moves.clear()
            pv_moves.update(moves)

        def snapshot() -> dict[str, Any]:
            return dict(nodes=nodes, leaves=leaves, cutoffs=cutoffs, tt_probes=probes,
                        tt_hits=hits, researches=researches, depth_reached=maxply,
                        inexact=inexact, tt_used=tt_used, tt_replaced=tt_replaced,
                        stopped=stopped, total=total)

        self._search = search
        self.solve_root = solve_root
        self.pv_from = pv_from
        self.arm = arm
        self.set_pv_moves = set_pv_moves
        self.snapshot = snapshot
        self.tt_capacity = 2 * n if tt_on else 0

    def search(self, state: State, depth: int | None = None, alpha: Value | float = _NEG,
               beta: Value | float = _POS) -> Value:
        """Fail-soft alpha-beta value of ``state`` for player 0, window (alpha, beta) in player
        0's terms: a result <= alpha is an upper bound, >= beta a lower bound, else exact."""
        return self._search(state, FULL if depth is None else depth, alpha, beta, 1, 0)

    def stats(self) -> Stats:
        s = self.snapshot()
        return Stats(nodes=s["nodes"], leaves=s["leaves"], cutoffs=s["cutoffs"],
                     tt_probes=s["tt_probes"], tt_hits=s["tt_hits"],
                     researches=s["researches"], depth_reached=s["depth_reached"])

    def vector(self, v0: Value) -> tuple[Value, Value]:
        total = self.snapshot()["total"]
        if total is None:       # unreachable: every result comes from some returned vector
            raise SolverError("constant-sum game declares no utility_sum")
        return (v0, total - v0)


# ---------------------------------------------------------------------------------------------
# Running a search in a worker thread, stoppable from the caller's thread.

def _run_stoppable(fn: Callable[[], Any], stop: threading.Event) -> Any:
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


def _initial(game: Any, root_state: State | None) -> State:
    return game.initial_state() if root_state is None else root_state


# ---------------------------------------------------------------------------------------------
# Public API

def alphabeta(game: Any, *, depth: int | None = None, options: SearchOptions | None = None,
              budget: Budget | None = None, root_state: State | None = None) -> SolveResult:
    """Solve a two-player constant-sum deterministic game by fail-soft alpha-beta.

    Returns the value vector, the exact set of optimal root actions (declaration order), a
    principal variation starting with the first of them, and statistics. ``depth=None`` searches
    to the end; a depth or a budget may cut it short (then ``proven`` says whether any evaluation
    was used). See the module docstring for options, budgets and stopping."""
    check_game(game.info)
    if depth is not None and depth < 1:
        raise SolverError("the depth limit must be at least 1")
    opts = options or SearchOptions()
    stop = budget.stop if budget is not None and budget.stop is not None else threading.Event()
    state = _initial(game, root_state)
    return _run_stoppable(lambda: _drive(game, state, depth, opts, budget, stop), stop)


def _drive(game: Any, state: State, depth: int | None, opts: SearchOptions,
           budget: Budget | None, stop: threading.Event) -> SolveResult:
    info = game.info
    deadline = node_limit = None
    if budget is not None:
        if budget.time is not None:
            deadline = time.monotonic() + budget.time
        node_limit = budget.nodes
    limited = deadline is not None or node_limit is not None
    use_id = info.has_evaluate and (limited or opts.iterative_deepening)
    if use_id and not opts.iterative_deepening:
        opts = replace(opts, iterative_deepening=True)   # a budget implies deepening, PV first
    engine = Engine(game, opts, deadline=deadline, node_limit=node_limit, stop=stop,
                    repetitions=depth is None and not limited)

    if game.current_player(state) == TERMINAL:
        r = game.returns(state)
        return SolveResult(values=tuple(r), best_actions=(), pv=(), algorithm="alphabeta",
                           stats=Stats(nodes=1, leaves=1), proven=True, depth=0)

    iteration_nodes: list[int] = []
    if not use_id:
        engine.arm(True)
        try:
            value, best, proven = engine.solve_root(state, FULL if depth is None else depth)
        except _Stop:
            raise SearchStopped("the search was stopped before it completed (and the game has "
                                "no evaluation to search it shallower)") from None
        done_depth = depth
        iteration_nodes.append(engine.snapshot()["nodes"])
        pv = engine.pv_from(state, best[0])
    else:
        done = None
        moves: dict = {}
        d = 1
        while True:
            engine.arm(limited and done is not None)
            engine.set_pv_moves(moves)
            before = engine.snapshot()["nodes"]
            guess = done[1] if done is not None and opts.aspiration else None
            try:
                value, best, proven = engine.solve_root(state, d, guess)
            except _Stop:
                break
            iteration_nodes.append(engine.snapshot()["nodes"] - before)
            pv = engine.pv_from(state, best[0])
            done = (d, value, best, proven, pv)
            if proven or (depth is not None and d >= depth):
                break
            moves = {}
            s = state
            for a in pv:
                moves[s] = a
                s = game.apply(s, a)
            d += 1
        if done is None:
            raise SearchStopped("the search was stopped before its first iteration completed")
        done_depth, value, best, proven, pv = done

    snap = engine.snapshot()
    stats = engine.stats()
    extra: dict[str, Any] = {"iteration_nodes": iteration_nodes, "stopped": snap["stopped"]}
    if len(iteration_nodes) >= 2 and iteration_nodes[-2]:
        extra["ebf"] = round(iteration_nodes[-1] / iteration_nodes[-2], 3)
    elif stats.depth_reached:
        extra["ebf"] = round(stats.nodes ** (1 / stats.depth_reached), 3)
    if opts.tt:
        extra.update(tt_capacity=engine.tt_capacity, tt_entries=snap["tt_used"],
                     tt_replaced=snap["tt_replaced"], tt_full=snap["tt_replaced"] > 0)
    return SolveResult(values=engine.vector(value), best_actions=best,
                       pv=pv, algorithm="alphabeta", stats=stats,
                       proven=proven, depth=done_depth, extra=extra)


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
