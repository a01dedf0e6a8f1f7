"""max^n (Luckhardt & Irani, 1986) for any number of players and general-sum games, with
optional shallow pruning (Korf, 1991).

Every node returns a value vector with one entry per player. A decision node keeps the child
that maximises the mover's own component; a chance node returns the probability-weighted sum of
its children's vectors (exact ``Fraction`` arithmetic). With two zero-sum players this is
exactly minimax (and expectiminimax with chance).

Tie rule: a decision node keeps the *first* child, in declaration order, whose value for the
mover is the best; that child's whole vector is backed up and extends the principal variation.
(With more than two players ties matter: tied children may differ for the other players.)
``best_actions`` is the set of all root actions whose value for the root mover equals the best.
The principal variation stops at the first chance node.

Depth: ``depth=N`` counts decision plies only; chance nodes do not consume depth. After N
decision plies the next non-terminal state is scored by ``game.evaluate``, and any cut-off makes
``proven=False``.

Shallow pruning (``shallow_pruning=True``) needs a constant sum S (``info.is_constant_sum``: 0
for zero-sum, ``info.utility_sum`` for constant-sum) and non-negative utilities (declared
``utility_bounds`` with lower bound >= 0); otherwise SolverError. Then at a node of player q
whose parent (player p != q) already has a child worth b to p: once q can get m >= S - b, the
node's final vector gives p at most S - m <= b (the others get >= 0), and since the parent only
switches to a *strictly* better child, this node can no longer change the parent's choice; it
stops, returning its best so far, which the parent never picks. At the root the test is strict
(m > S - b, so p gets < b): a child that might *tie* the best must be searched fully, because it
belongs in ``best_actions``; and a child stopped at m = S - b would return a partial vector that
may look like a tie while its true value is worse. Thus pruning returns the
same root vector, the same ``best_actions`` and the same principal variation as plain max^n,
while visiting no more nodes. Only the parent's bound is used (deep pruning is unsound for
max^n), a node whose mover equals its parent's mover is not pruned (the bound is then no bound),
and nothing is pruned across a chance node: a chance node's value is an average, so one child's
bound says nothing about the whole; chance nodes pass no bound to their children.
"""

from __future__ import annotations

from gdl.protocol import CHANCE, Action, State, Value
from gdl.solvers.common import (
    PvLink,
    best_of,
    chance_outcomes,
    child_depth,
    constant_sum_total,
    decision_actions,
    position_table,
    pv_tuple,
    require_depth,
)
from gdl.solvers.common import frontier as make_frontier
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolverError, SolveResult, Stats
from gdl.solvers.trace import EXACT, PARTIAL, SHALLOW, Trace, tell_edges
from gdl.solvers.wide import refuse_wide

# What a parent tells a child under shallow pruning: (parent player, limit, strict). The child
# may stop once its own best component m reaches the limit (m >= limit, or m > limit if strict).
Cap = tuple[int, Value, bool] | None


def maxn(game, *, depth: int | None = None, shallow_pruning: bool = False,
         table: bool = False, trace: Trace | None = None) -> SolveResult:
    """max^n value vector, optimal root actions and principal variation (first best on ties).
    With ``table`` (and without shallow pruning, whose results depend on the parent's bound), a
    transposition table keyed by (state, depth left) answers a position met again. ``trace``: a
    gdl.solvers.trace.Trace that receives the search's events (each node's shallow-pruning
    bound as its ``cap``)."""
    info = game.info
    refuse_wide(info, "maxn")
    if table and shallow_pruning:
        raise SolverError("maxn: the transposition table needs shallow pruning off (a pruned "
                          "node's vector depends on its parent's bound, not only on the position)")
    require_depth(info, depth, "maxn")
    total = None
    if shallow_pruning:
        total = _shallow_pruning_total(info)
    stats = Stats()
    frontier = make_frontier(game, stats, total=total,
                        bounds=info.utility_bounds if shallow_pruning else None, trace=trace)
    root_children: list[tuple[Action, tuple[Value, ...]]] = []

    def expand(state: State, depth_left: int | None, cap: Cap, children: list | None
               ) -> tuple[tuple[Value, ...], PvLink]:
        stats.nodes += 1
        player = game.current_player(state)
        leaf = frontier.value(state, player, depth_left)
        if leaf is not None:
            return leaf, None
        if player == CHANCE:
            expectation: list[Value] = [0] * info.num_players
            for outcome, p in chance_outcomes(game, state):
                values, _ = search(game.apply(state, outcome), depth_left, None, None)
                expectation = [e + p * v for e, v in zip(expectation, values)]
            return tuple(expectation), None
        best: tuple[Value, ...] | None = None
        best_pv: PvLink = None
        for action in decision_actions(game, state):
            child_cap = None
            if shallow_pruning and best is not None:
                child_cap = (player, total - best[player], children is not None)
            values, pv = search(game.apply(state, action), child_depth(depth_left), child_cap,
                                None)
            if children is not None:
                children.append((action, values))
            if best is None or values[player] > best[player]:  # strict: first best wins ties
                best, best_pv = values, (action, pv)
            if cap is not None and _beyond_cap(cap, player, best[player]):
                stats.cutoffs += 1
                if trace is not None:
                    rest = list(decision_actions(game, state))
                    trace.cutoff(SHALLOW, best[player], cap[1], action,
                                 rest[rest.index(action) + 1:])
                break
        assert best is not None  # decision_actions returned at least one action
        return best, best_pv

    def traced_expand(state: State, depth_left: int | None, cap: Cap, children: list | None
                      ) -> tuple[tuple[Value, ...], PvLink]:
        """``expand`` telling the trace of the node it is called for and of the value it backs
        up (installed with a trace only; the game's ``apply`` then tells it of each edge, the
        frontier of each leaf)."""
        assert trace is not None
        number = trace.enter(state, game.current_player(state), cap=cap)
        values, pv = plain_expand(state, depth_left, cap, children)
        if trace.is_open(number):
            if pv is None:          # a chance node: the expectation of its outcomes' vectors
                trace.average(trace.results(), values)
                trace.exit(values)
            else:                   # partial: stopped with children left (shallow pruning)
                trace.exit(values, PARTIAL if trace.cut_skipped() else EXACT, pv[0])
        return values, pv

    plain_expand = expand
    if trace is not None:
        expand = traced_expand
        game = tell_edges(game, trace)
    # Without a table the recursion calls expand directly: no wrapper call per node.
    search = position_table(expand, stats, trace) if table else expand
    search = guard_path(game, search, depth is None)  # a cycle: RepetitionError, not recursion
    root = game.initial_state()
    values, pv = run_deep(search, root, depth, None, root_children)
    best_actions = best_of(root_children, game.current_player(root)) if root_children else ()
    extra = {} if shallow_pruning else {"action_values": tuple(root_children)}
    return SolveResult(values=values, best_actions=best_actions, pv=pv_tuple(pv),
                       algorithm="maxn", stats=stats, proven=frontier.evaluations == 0,
                       depth=depth, extra=extra)


def _beyond_cap(cap: tuple[int, Value, bool], player: int, own_best: Value) -> bool:
    parent, limit, strict = cap
    if parent == player:  # the same player moves twice: its gain is the parent's gain
        return False
    return own_best > limit if strict else own_best >= limit


def _shallow_pruning_total(info) -> Value:
    """Check Korf's conditions for shallow pruning; return the constant sum S."""
    if not info.is_constant_sum:
        raise SolverError(f"maxn: shallow pruning needs a constant-sum game, and game "
                          f"{info.name!r} is {info.sum_kind}")
    if info.utility_bounds is None or info.utility_bounds[0] < 0:
        raise SolverError(f"maxn: shallow pruning needs non-negative utilities (declared "
                          f"utility bounds with lower bound >= 0), and game {info.name!r} "
                          f"declares {info.utility_bounds}")
    return constant_sum_total(info, "maxn")
