"""Advice from every position's value instead of a search: a position database (gdl.graph.database)
or a strong solve held in memory (gdl.tools.graph_advice). `gdl play --db` and `gdl analyze --db`
answer at once, and so do `play`, `analyze` and `serve` on a game that can repeat a position.

``DatabaseAdvisor`` has the interface of ``gdl.tools.session.Advisor``. At a decision state it
looks up every move's position: the optimal moves are those best for the mover, ordered so that
the first one *wins as fast as possible* (smallest remoteness) when the mover wins, and *loses as
slowly as possible* (largest remoteness) when it loses; the player then plays the first
(``DatabaseAdvice.ranked``). Which moves are best: the source's own optimal set where it has one
(a strong solve in memory: ``GraphSolution.best_actions``, which tells draws apart by what they
leave open), else the best value for the mover, a draw (no value: endless play decides) counting
as a level result; at a draw the moves that keep the draw come first, so the computer never
ends a game it cannot win while it need not lose either.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gdl.moves import choices
from gdl.solvers.result import SolverError, SolveResult


@dataclass
class MoveEntry:
    action: Any
    values: tuple | None        # None: a draw (endless play)
    remoteness: int             # -1: none


def level(game) -> Fraction | None:
    info = game.info
    if info.num_players == 2 and info.is_constant_sum:
        return Fraction(info.utility_sum or 0) / 2
    return None


def move_entries(db, game, state) -> list[MoveEntry]:
    """Every available move at ``state`` with what the database (or the strong solve) says of
    its position."""
    entries = []
    for action in choices(game, state):
        entry = db.lookup(game.apply(state, action))
        if entry is None:
            raise SolverError(f"{db.path}: a position after {game.action_name(action)} is not in "
                              "the database (was it saved for this game?)")
        entries.append(MoveEntry(action, entry.values, entry.remoteness))
    return entries


def ranked_best(game, player: int, entries: list[MoveEntry], optimal: tuple | None = None,
                draw: bool = False) -> list[MoveEntry]:
    """The optimal moves, the one to play first: fastest win, slowest loss. ``optimal``: the
    actions a strong solve calls optimal (None: the best value for ``player``, a draw counting
    as level); ``draw``: the position itself is a draw, so moves that keep it come first."""
    even = level(game)

    def worth(entry: MoveEntry):
        if entry.values is None:
            return even if even is not None else Fraction(0)
        return entry.values[player]

    chosen = [e for e in entries if e.action in optimal] if optimal else []
    if not chosen:   # no set given, or an empty one (a draw no move keeps whole): by value
        best = max(worth(e) for e in entries)
        chosen = [e for e in entries if worth(e) == best]
    best = max(worth(e) for e in chosen)
    # (sorts are stable: declaration order among equals; no remoteness (-1) goes last)
    if draw:
        chosen.sort(key=lambda e: e.values is not None)
    elif even is not None and best < even:
        chosen.sort(key=lambda e: (e.remoteness < 0, -e.remoteness))
    elif even is not None:      # a win, or a tie: hurry to the end (docs/graph.md, remoteness)
        chosen.sort(key=lambda e: (e.remoteness < 0, e.remoteness))
    return chosen


@dataclass
class DatabaseAdvice:
    result: SolveResult
    action_values: tuple
    entries: list
    neutral: bool = False
    ranked: bool = True         # best_actions[0] is the move to play (fastest win, slowest loss)

    @property
    def best_actions(self) -> tuple:
        return self.result.best_actions


class DatabaseAdvisor:
    """``gdl.tools.session.Advisor``'s interface, answered from a position database, or from
    anything with its ``lookup(state)``, ``path`` and ``exact`` (gdl.tools.graph_advice's
    ``SolvedPositions``, which adds ``optimal(state)`` and ``describe()``)."""

    def __init__(self, db):
        self.db = db
        self.depth = None
        self.time = None
        self.default_time = None    # a lookup needs no time limit
        self.interrupted = False    # nor can Ctrl-C cut it short
        self.stop = None
        self.watch = None

    def resolved(self, game) -> str:
        describe = getattr(self.db, "describe", None)
        return "position database" if describe is None else describe()

    def check(self, game) -> None:
        return None

    def advise(self, game, state, *, values_per_action: bool = False) -> DatabaseAdvice:
        here = self.db.lookup(state)
        if here is None:
            raise SolverError(f"{self.db.path}: this position is not in the database")
        player = game.current_player(state)
        entries = move_entries(self.db, game, state)
        optimal = getattr(self.db, "optimal", None)
        value_class = getattr(self.db, "value_class", None)     # win / lose / tie / draw
        best = ranked_best(game, player, entries, optimal(state) if optimal else None,
                           draw=here.values is None)
        values = here.values if here.values is not None else tuple(
            [level(game) or 0] * game.info.num_players)
        result = SolveResult(values=values, best_actions=tuple(e.action for e in best), pv=(),
                             algorithm=self.resolved(game), proven=self.db.exact,
                             extra={"remoteness": here.remoteness, "draw": here.values is None,
                                    "class": value_class(state) if value_class else None})
        action_values = tuple((e.action, e.values if e.values is not None else values)
                              for e in entries)
        return DatabaseAdvice(result, action_values, entries)
