"""Paranoid search (Sturtevant & Korf, 2000): one player against the coalition of all others.

The chosen player assumes every other player moves to minimise the chosen player's utility.
That turns any n-player game, general-sum included, into a two-player zero-sum game, which
``ParanoidView(game, player)`` exposes through the ordinary game protocol: player 0 is the chosen
player, player 1 the coalition, and every terminal (or evaluated) state is worth (u, -u), u being
the chosen player's utility (or evaluation). Any two-player solver can search the view.

``paranoid(game, player, depth=...)`` searches the view with a small fail-soft alpha-beta of its
own (kept here so that it does not depend on the separate alpha-beta engine). Games with chance
are refused: search ``ParanoidView(game, player)`` with ``expectiminimax`` or ``star1`` instead.

Result:
- ``values``: the full utility vector of the *original* game at the state where the principal
  variation ends (terminal, or cut off and evaluated). Its entry ``values[player]`` is the value
  the chosen player can guarantee against the coalition; the other entries are what the others
  get along that line, one outcome consistent with worst-case play, not a guarantee for them.
- ``best_actions``: the root actions optimal for the root mover in the view (the chosen player
  maximising, or a coalition member minimising the chosen player's utility), declaration order.
- ``pv``: the first best action at each ply (tie rule: first in declaration order).
- ``extra["paranoid_value"]``: the chosen player's guaranteed value.

To recognise ties at the root, root children after the first are searched with the window
(best - ε, +∞) for an infinitesimal ε (see ``window.py``): a worse child fails low, an equal one
comes back exact. Depth: ``depth=N`` allows N plies; the non-terminal states after them are
scored by ``game.evaluate`` and ``proven`` is then False.
"""

from __future__ import annotations

from gdl.protocol import CHANCE, TERMINAL, ZERO_SUM, Action, GameInfo, State, Value
from gdl.solvers.common import (
    PvLink,
    child_depth,
    decision_actions,
    pv_tuple,
    require_depth,
    unexpected_chance,
    window_table,
)
from gdl.solvers.common import frontier as make_frontier
from gdl.solvers.deep import run_deep
from gdl.solvers.repetition import guard_path
from gdl.solvers.result import SolverError, SolveResult, Stats
from gdl.solvers.trace import ALPHA, BETA, Trace, tell_edges, two_player_bound
from gdl.solvers.wide import refuse_wide
from gdl.solvers.window import NEG_INFINITY, POS_INFINITY, just_below


class ParanoidView:
    """``game`` seen by ``player`` as a two-player zero-sum game against everyone else."""

    def __init__(self, game, player: int):
        info = game.info
        if not 0 <= player < info.num_players:
            raise SolverError(f"paranoid: player {player!r} is not a player of game "
                              f"{info.name!r} (0..{info.num_players - 1})")
        if info.num_players < 2:
            raise SolverError(f"paranoid: game {info.name!r} has a single player; there is no "
                              "coalition to be paranoid about")
        self.game, self.player = game, player
        bounds = None
        if info.utility_bounds is not None:
            lo, hi = info.utility_bounds  # u lies in [lo, hi], so -u in [-hi, -lo]
            bounds = (min(lo, -hi), max(hi, -lo))
        self.info = GameInfo(name=f"{info.name} (paranoid for {info.players[player]})",
                             players=(info.players[player], "coalition"),
                             has_chance=info.has_chance, sum_kind=ZERO_SUM,
                             utility_bounds=bounds, has_evaluate=info.has_evaluate,
                             has_quiescence=info.has_quiescence, max_length=info.max_length)

    def initial_state(self) -> State:
        return self.game.initial_state()

    def current_player(self, state: State) -> int:
        mover = self.game.current_player(state)
        if mover in (CHANCE, TERMINAL):
            return mover
        return 0 if mover == self.player else 1

    def legal_actions(self, state: State):
        return self.game.legal_actions(state)

    def apply(self, state: State, action: Action) -> State:
        return self.game.apply(state, action)

    def chance_outcomes(self, state: State):
        return self.game.chance_outcomes(state)

    def returns(self, state: State) -> tuple[Value, Value]:
        u = self.game.returns(state)[self.player]
        return (u, -u)

    def evaluate(self, state: State) -> tuple[Value, Value]:
        u = self.game.evaluate(state)[self.player]
        return (u, -u)

    def action_name(self, action: Action) -> str:
        return self.game.action_name(action)

    def is_quiet(self, state: State) -> bool:
        return self.game.is_quiet(state)


def paranoid(game, player: int = 0, *, depth: int | None = None,
             table: bool = False, trace: Trace | None = None) -> SolveResult:
    """The value ``player`` can guarantee if all other players play against it. With ``table``,
    a transposition table keyed by (state, depth left) keeps each position's bounds
    (``common.window_table``). ``trace``: a gdl.solvers.trace.Trace that receives the search's
    events, on the two-player view: values (u, -u) and windows on u, the chosen player's
    utility; a node's player is 0 for the chosen player, 1 for the coalition."""
    refuse_wide(game.info, "paranoid")
    if game.info.has_chance:
        raise SolverError(f"paranoid: game {game.info.name!r} has chance nodes; search "
                          "ParanoidView(game, player) with expectiminimax or star1 instead")
    require_depth(game.info, depth, "paranoid")
    view = ParanoidView(game, player)
    stats = Stats()
    frontier = make_frontier(view, stats, total=0, trace=trace)
    root_children: list[tuple[Action, tuple[Value, ...]]] = []

    def search(state: State, frame: int, alpha, beta, depth_left: int | None,
               children: list | None) -> tuple[tuple[Value, ...], PvLink]:
        """Fail-soft alpha-beta with the window on player ``frame``'s component of (u, -u)."""
        stats.nodes += 1
        mover = view.current_player(state)
        leaf = frontier.value(state, mover, depth_left)
        if leaf is not None:
            return leaf, None
        if mover == CHANCE:
            raise unexpected_chance(game, "paranoid")
        if mover != frame:  # the same window, seen from the mover's side (zero-sum: negate)
            alpha, beta = -beta, -alpha
        at_root = children is not None
        best: tuple[Value, ...] | None = None
        best_pv: PvLink = None
        for action in decision_actions(view, state):
            floor = alpha
            if best is not None:
                floor = max(alpha, just_below(best[mover]) if at_root else best[mover])
            values, pv = search(view.apply(state, action), mover, floor, beta,
                                child_depth(depth_left), None)
            if children is not None:
                children.append((action, values))
            if best is None or values[mover] > best[mover]:  # strict: first best wins ties
                best, best_pv = values, (action, pv)
            if not at_root and best[mover] >= beta:
                stats.cutoffs += 1
                if trace is not None:
                    rest = list(decision_actions(view, state))
                    trace.cutoff(BETA if mover == 0 else ALPHA, best[0],
                                 beta if mover == 0 else -beta, action,
                                 rest[rest.index(action) + 1:])
                break
        assert best is not None  # decision_actions returned at least one action
        return best, best_pv

    if trace is not None:
        # The trace is told of each node and its value by this wrapper, of each edge by the
        # view's ``apply``, of each leaf by the frontier: with a trace only.
        plain, told = search, trace

        def search(state: State, frame: int, alpha, beta, depth_left: int | None,
                   children: list | None) -> tuple[tuple[Value, ...], PvLink]:
            low, high = (alpha, beta) if frame == 0 else (-beta, -alpha)   # on player 0's u
            number = told.enter(state, view.current_player(state), (low, high))
            values, pv = plain(state, frame, alpha, beta, depth_left, children)
            if told.is_open(number):
                told.exit(values, two_player_bound(values[0], low, high, True),
                          pv[0] if pv is not None else None)
            return values, pv

        view = tell_edges(view, trace)
    if table:
        search = window_table(search, stats, trace)
    search = guard_path(view, search, depth is None)  # a cycle: RepetitionError, not recursion
    root = view.initial_state()
    view_values, pv_link = run_deep(search, root, 0, NEG_INFINITY, POS_INFINITY, depth,
                                    root_children)
    pv = pv_tuple(pv_link)
    best_actions: tuple[Action, ...] = ()
    if root_children:
        mover = view.current_player(root)
        best_actions = tuple(a for a, v in root_children if v[mover] == view_values[mover])
    return SolveResult(values=_values_where_pv_ends(game, pv), best_actions=best_actions,
                       pv=pv, algorithm="paranoid", stats=stats,
                       proven=frontier.evaluations == 0, depth=depth,
                       extra={"paranoid_value": view_values[0], "player": player})


def _values_where_pv_ends(game, pv: tuple[Action, ...]) -> tuple[Value, ...]:
    state = game.initial_state()
    for action in pv:
        state = game.apply(state, action)
    if game.current_player(state) == TERMINAL:
        return tuple(game.returns(state))
    return tuple(game.evaluate(state))  # the principal variation ended at a depth cut-off
