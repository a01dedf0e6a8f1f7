"""What the searches in minimax, expectiminimax, star, maxn and paranoid share.

- Up-front checks of ``game.info``, so a solver refuses a game before it starts searching.
- ``Frontier``: the values at the bottom of a search (terminal returns and depth cut-off
  evaluations), counted and checked against what ``game.info`` declares. A search that prunes
  with declared bounds or a declared sum is only sound if the game keeps its word, so a broken
  promise is an error rather than a silently wrong answer.
- ``chance_outcomes``: a chance state's outcomes, checked to be exact and to sum to 1 (with
  ``constant_sum_total`` and ``no_legal_actions``, from the protocol layer: gdl.graph uses
  them too).
- Principal variations as linked pairs ``(action, rest)`` built in O(1) per node and flattened
  once at the end (a tuple per node would make a 5000-ply chain quadratic).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from gdl.protocol import (  # noqa: F401 - the protocol's checks, used by every search from here
    TERMINAL,
    Action,
    GameInfo,
    State,
    Value,
    chance_outcomes,
    constant_sum_total,
    no_legal_actions,
)
from gdl.solvers.result import SolverError, Stats
from gdl.solvers.trace import EXACT, LOWER, UPPER, Trace

# A principal variation under construction: None, or (action, rest of the variation).
PvLink = tuple[Action, "PvLink"] | None


def pv_tuple(link: PvLink) -> tuple[Action, ...]:
    actions = []
    while link is not None:
        action, link = link
        actions.append(action)
    return tuple(actions)


def require_two_player_constant_sum(info: GameInfo, algorithm: str) -> Value:
    """Check a two-player zero-sum or constant-sum game; return its total."""
    if info.num_players != 2:
        raise SolverError(f"{algorithm}: game {info.name!r} has {info.num_players} players; "
                          f"{algorithm} needs exactly 2 (use maxn or paranoid for more)")
    return constant_sum_total(info, algorithm)


def require_depth(info: GameInfo, depth: int | None, algorithm: str) -> None:
    """A depth limit must be a non-negative int, and the game must declare an evaluation."""
    if depth is None:
        return
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise SolverError(f"{algorithm}: depth must be a non-negative integer or None, "
                          f"not {depth!r}")
    if not info.has_evaluate:
        raise SolverError(f"{algorithm}: a depth limit needs an evaluation at cut-off states, "
                          f"and game {info.name!r} declares none")


def child_depth(depth_left: int | None) -> int | None:
    """Depth left after one decision ply (None means unlimited)."""
    return None if depth_left is None else depth_left - 1


class Frontier:
    """Values at the bottom of a search, counted in ``stats.leaves`` and checked.

    ``value(state, kind, depth_left)`` returns the utility vector of a terminal state, the
    evaluation of a non-terminal state with no depth left, or None where the search goes on.
    Every vector must have one exact value per player; with ``total`` its entries must sum to
    it, and with ``bounds`` each entry must lie within them.
    """

    def __init__(self, game, stats: Stats, *, total: Value | None = None,
                 bounds: tuple[Value, Value] | None = None):
        self.game = game
        self.stats = stats
        self.total = total
        self.bounds = bounds
        self.players = game.info.num_players
        self.evaluations = 0  # cut-offs: any at all means the result is not proven
        self._valid: set = set()  # vectors already checked (validity depends on the values only)

    def value(self, state: State, kind: int, depth_left: int | None) -> tuple[Value, ...] | None:
        if kind == TERMINAL:
            values, source = self.game.returns(state), "returns"
        elif depth_left is not None and depth_left <= 0:
            values, source = self.game.evaluate(state), "evaluate"
            self.evaluations += 1
        else:
            return None
        self.stats.leaves += 1
        values = tuple(values)
        try:
            known = values in self._valid
        except TypeError:       # unhashable: certainly not an exact value; check says why
            known = False
        if not known:
            self.check(state, values, source)
            if len(self._valid) < 4096:
                self._valid.add(values)
        return values

    def check(self, state: State, values: tuple, source: str) -> None:
        """Refuse (SolverError) a vector that breaks what ``game.info`` declares."""
        if len(values) != self.players:
            raise self._refuse(state, values, source, f"not one value per player ({self.players})")
        for v in values:
            if type(v) is not int and (isinstance(v, bool) or not isinstance(v, (int, Fraction))):
                raise self._refuse(state, values, source,
                                   "and values must be exact (int or Fraction)")
        if self.total is not None and sum(values) != self.total:
            raise self._refuse(state, values, source,
                               f"which does not sum to the declared total {self.total}")
        if self.bounds is not None:
            lo, hi = self.bounds
            if not all(lo <= v <= hi for v in values):
                raise self._refuse(state, values, source,
                                   f"outside the declared utility bounds [{lo}, {hi}]")

    def _refuse(self, state: State, values: tuple, source: str, problem: str) -> SolverError:
        return SolverError(f"game {self.game.info.name!r}: {source}() at state {state!r} "
                           f"gave {values!r}, {problem}")


class _TracedFrontier(Frontier):
    """A Frontier that tells a trace (gdl.solvers.trace) of every leaf it reads."""

    def __init__(self, game, stats: Stats, trace: Trace, **limits: Any):
        super().__init__(game, stats, **limits)
        self.trace = trace

    def value(self, state: State, kind: int, depth_left: int | None) -> tuple[Value, ...] | None:
        values = super().value(state, kind, depth_left)
        if values is not None:
            self.trace.leaf(values, kind != TERMINAL)
        return values


def frontier(game, stats: Stats, *, total: Value | None = None,
             bounds: tuple[Value, Value] | None = None, trace: Trace | None = None) -> Frontier:
    """The Frontier of a search; with a ``trace``, one that tells it of every leaf (a search
    given none pays nothing for it)."""
    if trace is None:
        return Frontier(game, stats, total=total, bounds=bounds)
    return _TracedFrontier(game, stats, trace, total=total, bounds=bounds)


def decision_actions(game, state: State) -> Sequence[Action]:
    """Legal actions of a decision state; a non-terminal state without any is a broken game."""
    actions = game.legal_actions(state)
    if not actions:
        raise no_legal_actions(game, state)
    return actions


def unexpected_chance(game, algorithm: str) -> SolverError:
    return SolverError(f"{algorithm}: game {game.info.name!r} reached a chance state although "
                       "its info declares no chance")


def best_of(children: list[tuple[Action, tuple[Value, ...]]], player: int) -> tuple[Action, ...]:
    """Every action whose exact value for ``player`` equals the best, in declaration order."""
    best = max(values[player] for _, values in children)
    return tuple(action for action, values in children if values[player] == best)



Searched = TypeVar("Searched")


def position_table(expand: Callable[..., Searched], stats: Stats,
                   trace: Trace | None = None) -> Callable[..., Searched]:
    """``expand`` with a transposition table keyed by (state, depth left): a position met again
    is answered from the table (``stats.tt_probes`` / ``tt_hits``), so a horizon game costs what
    its states cost, not its histories. Sound where a position's result depends only on the
    position and the depth left (no window or bound from the parent). ``expand`` takes
    ``(state, depth_left, ..., children)``; the root, which lists its children, is always
    expanded. A ``trace`` (gdl.solvers.trace) is told of every answer from the table."""
    known: dict[tuple[State, int | None], Searched] = {}

    def tabled(state: State, depth_left: int | None, *rest: Any) -> Searched:
        if rest[-1] is not None:
            return expand(state, depth_left, *rest)
        stats.tt_probes += 1
        key = (state, depth_left)
        found = known.get(key)
        if found is None:
            found = known[key] = expand(state, depth_left, *rest)
        else:
            stats.tt_hits += 1
            if trace is not None:
                trace.table(found[0])  # type: ignore[index]  # (the searches tabled: (vector, line))
        return found

    return tabled


def window_table(expand: Callable[..., Any], stats: Stats,
                 trace: Trace | None = None) -> Callable[..., Any]:
    """``expand`` (a fail-soft two-player search: ``(state, frame, alpha, beta, depth_left,
    children)``, returning vectors ``(v, S - v)``) with a transposition table keyed by (state,
    depth left), for Star1/Star2 and paranoid, whose results depend on the window.

    A result r for the ``frame`` player is exact inside (alpha, beta), an upper bound when
    r <= alpha and a lower bound when r >= beta (fail-soft). The table keeps, per key, the best
    lower and upper bound on *player 0's* component (a bound for player 1 is the opposite bound
    for player 0: the two sum to S), each with its result and principal variation. A position met
    again is answered from the table when the bounds are equal (exact), or when one of them
    already fails the new window (the same fail-soft answer the search would be allowed to
    give); otherwise it is searched again with the window it was given, and the bounds kept are
    tightened. The root, which lists its children, is always expanded. A ``trace``
    (gdl.solvers.trace) is told of every answer from the table, as a bound on player 0's
    value."""
    # key -> [lower bound on player 0's value, its result; upper bound, its result]
    known: dict[tuple[State, int | None], list] = {}

    def tabled(state: State, frame: int, alpha: Any, beta: Any, depth_left: int | None,
               children: list | None = None) -> Any:
        if children is not None:
            return expand(state, frame, alpha, beta, depth_left, children)
        stats.tt_probes += 1
        key = (state, depth_left)
        entry = known.get(key)
        if entry is not None:
            low, high = entry
            if low is not None and high is not None and low[0][0] == high[0][0]:
                stats.tt_hits += 1
                if trace is not None:
                    trace.table(low[0], EXACT)
                return low
            floor, ceiling = (low, high) if frame == 0 else (high, low)   # frame's own bounds
            if floor is not None and floor[0][frame] >= beta:
                stats.tt_hits += 1
                if trace is not None:
                    trace.table(floor[0], LOWER if frame == 0 else UPPER)
                return floor
            if ceiling is not None and ceiling[0][frame] <= alpha:
                stats.tt_hits += 1
                if trace is not None:
                    trace.table(ceiling[0], UPPER if frame == 0 else LOWER)
                return ceiling
        else:
            entry = known[key] = [None, None]
        found = expand(state, frame, alpha, beta, depth_left, None)
        r = found[0][frame]
        is_lower, is_upper = r > alpha, r < beta   # inside the window: both (exact)
        if frame != 0:
            is_lower, is_upper = is_upper, is_lower
        if is_lower and (entry[0] is None or found[0][0] > entry[0][0][0]):
            entry[0] = found
        if is_upper and (entry[1] is None or found[0][0] < entry[1][0][0]):
            entry[1] = found
        return found

    return tabled
