"""Star1 and Star2 (Ballard, 1983): alpha-beta pruning carried through chance nodes.

Both return exactly what ``expectiminimax`` returns (the value vector, the set of optimal root
actions, the principal variation) while visiting no more nodes.

Preconditions (checked on ``game.info``): exactly two players, zero-sum or constant-sum with
total S, and declared ``utility_bounds`` (lo, hi) holding for every utility and, under a depth
limit, for every evaluation too: a value outside them is a SolverError, not a clamp, because
the pruning would silently be wrong. Since both players' values lie in [lo, hi] and sum to S,
player 0's value lies in [L, U] = [max(lo, S - hi), min(hi, S - lo)], and so does player 1's.

The search is fail-soft alpha-beta with the window (alpha, beta) on one player's component,
the *frame*; a node returns the full vector (v, S - v). A decision node of player p looks at
the window from p's side (it flips to (S - beta, S - alpha) when p is not the frame) and keeps
the child that maximises p's own component, so one loop serves both players. A decision node
also stops as soon as its best reaches U: nothing can beat it.

Star1 at a chance node with outcomes of probability p_i: after searching children 1..i-1 (their
weighted sum is K), child i's value v decides the node's value K + p_i·v + rest, where the rest
lies between R·L and R·U (R the probability not yet searched). So child i gets the window
    ((alpha - K - R·U) / p_i,  (beta - K - R·L) / p_i), clipped to [L, U],
and if it fails low (high) the chance node fails low (high) with the bound K + p_i·v + R·U
(R·L). Zero-probability outcomes cannot change the value and are skipped.

Star2 adds a probe phase where it is sound and useful: when every outcome of a chance node
leads to a decision node of the same player q (Ballard's regular trees, e.g. max-chance-min),
it first searches only the first child of each successor. A decision node of q is worth at
least its first child *to q*, so the probes give lower bounds on the successors' values for q,
and their weighted sum (with L for successors not probed yet) can prove the chance node
fails high from q's side (low from the other side) at the cost of one child per successor. The
chance node works in q's frame to use this. Probe i gets the window
    (max(L, U - (U - alpha) / p_i),  min(U, (beta - K' - R·L) / p_i)),
K' being the weighted sum of the floors found so far. A probe that fails high ends the chance
node at once; an exact probe value becomes the successor's floor; one that fails low gives no
floor (it stays L). The lower end is the least that the search phase can give this successor
(earlier successors add at most U each), so whatever the probe returned is a valid fail-soft
answer for the successor's first child there too. The search phase is Star1 with the floors
instead of L for the unsearched successors, and each successor resumes after its first child
with the probe's answer, so no node is visited twice. Everywhere else (chance nodes in a row,
outcomes leading to terminal states or to decision nodes of different players) Star2 falls
back to Star1 at that chance node: such a successor has no cheap one-sided bound. On randomly
ordered trees probing pays off only now and then; it is meant for trees whose first moves
tend to be good ones.

The root is searched so that ties are found: the first root child gets the window
(L - ε, U + ε), which forces an exact result; each later child gets (best - ε, U + ε), where ε
is an infinitesimal (see ``window.py``). A result <= best - ε proves the child is worse than the
best (it is not optimal, and its exact value is not needed); any other result is exact, so a
child that equals the best is recognised as optimal. No cut-offs happen at the root itself.

Tie rule: as in expectiminimax, the first best action in declaration order is chosen at every
decision node, and the principal variation stops at the first chance node. Depth: ``depth=N``
counts decision plies; chance nodes do not consume depth; a non-terminal state (decision or
chance) reached with no depth left is scored by ``game.evaluate``; any cut-off makes
``proven=False``.
"""

from __future__ import annotations

from fractions import Fraction

from gdl.protocol import CHANCE, Action, State, Value
from gdl.solvers.common import (
    PvLink,
    chance_outcomes,
    child_depth,
    decision_actions,
    pv_tuple,
    require_depth,
    require_two_player_constant_sum,
    window_table,
)
from gdl.solvers.common import frontier as make_frontier
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolverError, SolveResult, Stats
from gdl.solvers.trace import (
    ALPHA,
    BEST_POSSIBLE,
    BETA,
    CHANCE_HIGH,
    CHANCE_LOW,
    PROBE_HIGH,
    PROBE_LOW,
    Trace,
    tell_edges,
    two_player_bound,
)
from gdl.solvers.wide import refuse_wide
from gdl.solvers.window import just_above, just_below

Vector = tuple[Value, ...]
Searched = tuple[Vector, PvLink]


def star1(game, *, depth: int | None = None, table: bool = False,
          trace: Trace | None = None) -> SolveResult:
    """Expectiminimax value and optimal root actions by Star1 pruning (bounded utilities). With
    ``table``, a transposition table keyed by (state, depth left) keeps each position's bounds
    (``common.window_table``). ``trace``: a gdl.solvers.trace.Trace that receives the search's
    events (windows on player 0's value)."""
    return _StarSearch(game, "star1", depth, probing=False, table=table, trace=trace).solve()


def star2(game, *, depth: int | None = None, table: bool = False,
          trace: Trace | None = None) -> SolveResult:
    """Expectiminimax value and optimal root actions by Star2 (probing, then Star1); ``table``
    and ``trace`` as for star1."""
    return _StarSearch(game, "star2", depth, probing=True, table=table, trace=trace).solve()


class _StarSearch:
    def __init__(self, game, algorithm: str, depth: int | None, probing: bool,
                 table: bool = False, trace: Trace | None = None):
        info = game.info
        refuse_wide(info, algorithm)
        self.total = require_two_player_constant_sum(info, algorithm)
        require_depth(info, depth, algorithm)
        if info.utility_bounds is None:
            raise SolverError(f"{algorithm}: game {info.name!r} declares no utility bounds; "
                              "Star1/Star2 prune with them (use expectiminimax)")
        lo, hi = info.utility_bounds
        self.low, self.high = max(lo, self.total - hi), min(hi, self.total - lo)
        if self.low > self.high:
            raise SolverError(f"{algorithm}: game {info.name!r}: utility bounds [{lo}, {hi}] "
                              f"cannot hold for two players summing to {self.total}")
        if self.low == self.high:
            # Every value is the same; widen so that windows inside [low, high] stay non-empty.
            self.high = self.low + 1
        self.game, self.algorithm, self.depth, self.probing = game, algorithm, depth, probing
        # The guarded search replaces the method on this instance, so that every recursive call
        # passes the repetition check (a cycle: RepetitionError).
        self.stats = Stats()
        # A trace (gdl.solvers.trace) is told of each node by ``told`` around the search, of
        # each edge to a decision's child by the game's ``apply`` (``game``: the game itself,
        # ``self.game`` the one the decisions apply moves with), of each leaf by the frontier:
        # all with a trace only. Chance nodes build their children before searching them, so
        # they tell their edges themselves, as Star2's probes do.
        self.trace = trace
        self.untold = game
        plain = self.search
        if trace is not None:
            self.game = tell_edges(game, trace)
            plain = self.told(plain)
        searched = window_table(plain, self.stats, trace) if table else plain
        self.search = guard_path(game, searched, depth is None)  # type: ignore[method-assign]
        self.frontier = make_frontier(game, self.stats, total=self.total, bounds=(lo, hi),
                                      trace=trace)

    def solve(self) -> SolveResult:
        root = self.game.initial_state()
        root_children: list[tuple[Action, Vector]] = []
        values, pv = run_deep(self.search, root, 0, just_below(self.low), just_above(self.high),
                              self.depth, root_children)
        best_actions: tuple[Action, ...] = ()
        if root_children:
            mover = self.game.current_player(root)
            best_actions = tuple(a for a, v in root_children if v[mover] == values[mover])
        return SolveResult(values=values, best_actions=best_actions, pv=pv_tuple(pv),
                           algorithm=self.algorithm, stats=self.stats,
                           proven=self.frontier.evaluations == 0, depth=self.depth)

    def vector(self, frame: int, value: Value) -> Vector:
        """The full vector in which player ``frame`` gets ``value``."""
        other = self.total - value
        return (value, other) if frame == 0 else (other, value)

    # What the trace is told is on player 0's value (the frame's window, seen from player 0).
    def on_first(self, frame: int, value):
        return value if frame == 0 else self.total - value

    def window_on_first(self, frame: int, alpha, beta) -> tuple:
        return (alpha, beta) if frame == 0 else (self.total - beta, self.total - alpha)

    def search(self, state: State, frame: int, alpha, beta, depth_left: int | None,
               root_children: list | None = None) -> Searched:
        """Fail-soft: a result <= alpha is an upper bound on player ``frame``'s value, a result
        >= beta a lower bound, anything between exact. Needs alpha < U and beta > L."""
        self.stats.nodes += 1
        kind = self.game.current_player(state)
        leaf = self.frontier.value(state, kind, depth_left)
        if leaf is not None:
            return leaf, None
        if kind == CHANCE:
            return self.chance(state, frame, alpha, beta, depth_left)
        return self.decision(state, kind, frame, alpha, beta, depth_left, None, root_children)

    def decision(self, state: State, player: int, frame: int, alpha, beta,
                 depth_left: int | None, first: Searched | None,
                 root_children: list | None) -> Searched:
        """``first``: the first child's result from a Star2 probe, whose window was at least as
        wide as the one it would get here, so it is a valid fail-soft answer for it."""
        if player != frame:  # the same window, seen from the mover's side
            alpha, beta = self.total - beta, self.total - alpha
        at_root = root_children is not None
        best: Vector | None = None
        best_pv: PvLink = None
        for index, action in enumerate(decision_actions(self.game, state)):
            if index == 0 and first is not None:
                values, pv = first
            else:
                floor = alpha
                if best is not None:
                    # At the root a tie must still be recognised, so the floor is just below it.
                    floor = max(alpha, just_below(best[player]) if at_root else best[player])
                values, pv = self.search(self.game.apply(state, action), player, floor, beta,
                                         child_depth(depth_left))
            if root_children is not None:
                root_children.append((action, values))
            if best is None or values[player] > best[player]:  # strict: first best wins ties
                best, best_pv = values, (action, pv)
            if not at_root and (best[player] >= beta or best[player] >= self.high):
                self.stats.cutoffs += 1
                if self.trace is not None:
                    reached_beta = best[player] >= beta
                    test = (BEST_POSSIBLE if not reached_beta else BETA if player == 0
                            else ALPHA)
                    limit = beta if reached_beta else self.high
                    self.trace.cutoff(test, best[0], self.on_first(player, limit), action,
                                      decision_actions(self.untold, state)[index + 1:])
                break
        assert best is not None  # decision_actions returned at least one action
        return best, best_pv

    def told(self, search):
        """``search`` telling the trace of the node it enters, with its window, and of the value
        it backs up (a chance node's with the average of its outcomes), labelled as the
        fail-soft contract makes it: on player 0's value, at or below alpha an upper bound, at or
        above beta a lower bound, else exact. Installed with a trace only."""
        trace = self.trace
        assert trace is not None
        player = self.untold.current_player

        def told(state: State, frame: int, alpha, beta, depth_left: int | None,
                 root_children: list | None = None) -> Searched:
            low, high = self.window_on_first(frame, alpha, beta)
            number = trace.enter(state, player(state), (low, high))
            values, pv = search(state, frame, alpha, beta, depth_left, root_children)
            if trace.is_open(number):
                self.tell_exit(values, pv, low, high, player(state) == CHANCE)
            return values, pv

        return told

    def tell_exit(self, values: Vector, pv: PvLink, low, high, chance: bool) -> None:
        assert self.trace is not None
        bound = two_player_bound(values[0], low, high, True)
        if chance:
            self.trace.average([(a, p, v[0]) for a, p, v in self.trace.results()], values)
            self.trace.exit(values, bound)
        else:
            self.trace.exit(values, bound, pv[0] if pv is not None else None)

    def chance(self, state: State, frame: int, alpha, beta, depth_left: int | None
               ) -> Searched:
        game = self.untold
        branches = [(p, game.apply(state, outcome))
                    for outcome, p in chance_outcomes(game, state) if p > 0]
        outcomes = [outcome for outcome, p in chance_outcomes(game, state) if p > 0] \
            if self.trace is not None else []
        # Lower bounds on each successor's value for the frame player: L until probed.
        floors: list[Value] = [self.low] * len(branches)
        probed: list[Searched | None] = [None] * len(branches)
        prober = self.probe_player(branches) if self.probing else None
        trace = self.trace
        if prober is not None:
            if prober != frame:
                alpha, beta = self.total - beta, self.total - alpha
                frame = prober
            proved = self.probe(branches, frame, alpha, beta, depth_left, floors, probed,
                                outcomes)
            if proved is not None:
                return self.vector(frame, proved), None

        known: Value = 0                  # weighted sum of searched successors' exact values
        rest = Fraction(1)                # probability of the successors not yet searched
        rest_floor = sum(p * f for (p, _), f in zip(branches, floors))
        for i, (p, child) in enumerate(branches):
            rest -= p
            rest_floor -= p * floors[i]
            fail_low_at = (alpha - known - rest * self.high) / p
            fail_high_at = (beta - known - rest_floor) / p
            window = (max(fail_low_at, self.low), min(fail_high_at, self.high))
            if trace is not None:
                trace.edge(outcomes[i], p)
            if probed[i] is not None:  # counted as visited by its probe; resume it
                if trace is not None:
                    low, high = self.window_on_first(frame, *window)
                    trace.resume((low, high))
                values, pv = self.decision(child, game.current_player(child), frame, *window,
                                           depth_left, probed[i], None)
                if trace is not None:
                    self.tell_exit(values, pv, low, high, False)
            else:
                values, _ = self.search(child, frame, *window, depth_left)
            v = values[frame]
            known += p * v
            if v <= fail_low_at:
                self.stats.cutoffs += 1
                if trace is not None:
                    trace.cutoff(CHANCE_LOW if frame == 0 else CHANCE_HIGH, values[0],
                                 self.on_first(frame, fail_low_at), outcomes[i], outcomes[i + 1:])
                return self.vector(frame, known + rest * self.high), None
            if v >= fail_high_at:
                self.stats.cutoffs += 1
                if trace is not None:
                    trace.cutoff(CHANCE_HIGH if frame == 0 else CHANCE_LOW, values[0],
                                 self.on_first(frame, fail_high_at), outcomes[i],
                                 outcomes[i + 1:])
                return self.vector(frame, known + rest_floor), None
        return self.vector(frame, known), None

    def probe_player(self, branches: list[tuple[Fraction, State]]) -> int | None:
        """The player q if every successor is a decision node of q, else None (use Star1)."""
        movers = {self.game.current_player(child) for _, child in branches}
        if len(movers) != 1:
            return None
        (mover,) = movers
        return mover if mover >= 0 else None

    def probe(self, branches: list[tuple[Fraction, State]], frame: int, alpha, beta,
              depth_left: int | None, floors: list[Value], probed: list,
              outcomes: list) -> Value | None:
        """Star2's probe phase, in the frame of the successors' mover. Fills ``floors`` and
        ``probed``; returns a lower bound >= beta if the probes prove a fail-high, else None.
        ``outcomes``: the branches' outcomes, for a trace (empty without one)."""
        game = self.untold
        trace = self.trace
        known: Value = 0          # weighted sum of the floors found so far
        rest = Fraction(1)
        for i, (p, child) in enumerate(branches):
            rest -= p
            # The successor is visited here (and only here) to find its first child. It is
            # expanded, not evaluated: the chance node itself was expanded, so depth is left.
            self.stats.nodes += 1
            first_action = decision_actions(game, child)[0]
            fail_high_at = (beta - known - rest * self.low) / p
            # The search phase gives this successor a window starting at least at
            # U - (U - alpha) / p (earlier successors add at most U each). With no lower end
            # above that, the probe's result stays a valid answer for the first child there.
            low_end = max(self.low, self.high - (self.high - alpha) / p)
            if trace is not None:
                trace.edge(outcomes[i], p)
                trace.enter(child, frame, self.window_on_first(
                    frame, low_end, min(fail_high_at, self.high)))
                trace.edge(first_action)
            values, pv = self.search(game.apply(child, first_action), frame, low_end,
                                     min(fail_high_at, self.high), child_depth(depth_left))
            v = values[frame]
            if trace is not None:
                trace.probe(values, v if v > low_end else None)
            if v >= fail_high_at:
                self.stats.cutoffs += 1
                if trace is not None:
                    trace.cutoff(PROBE_HIGH if frame == 0 else PROBE_LOW, values[0],
                                 self.on_first(frame, fail_high_at), outcomes[i],
                                 outcomes[i + 1:])
                return known + p * v + rest * self.low
            if v > low_end:  # exact, so a lower bound on the successor; else only an upper one
                floors[i] = v
            known += p * floors[i]
            probed[i] = (values, (first_action, pv))
        return None
