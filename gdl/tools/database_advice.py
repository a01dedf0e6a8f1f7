"""Advice from a position database (gdl.graph.database) instead of a search: `gdl play --db`
and `gdl analyze --db` answer at once.

``DatabaseAdvisor`` has the interface of ``gdl.tools.session.Advisor``. At a decision state it
looks up every move's position: the optimal moves are those best for the mover (a draw, whose
value is endless play's, counts as a level result), ordered so that the first one *wins as fast
as possible* (smallest remoteness) when the mover wins, and *loses as slowly as possible*
(largest remoteness) when it loses; the player then plays the first.
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
    """Every available move at ``state`` with what the database says of its position."""
    entries = []
    for action in choices(game, state):
        entry = db.lookup(game.apply(state, action))
        if entry is None:
            raise SolverError(f"{db.path}: a position after {game.action_name(action)} is not in "
                              "the database (was it saved for this game?)")
        entries.append(MoveEntry(action, entry.values, entry.remoteness))
    return entries


def ranked_best(game, player: int, entries: list[MoveEntry]) -> list[MoveEntry]:
    """The optimal moves, the one to play first: fastest win, slowest loss."""
    even = level(game)

    def worth(entry: MoveEntry):
        if entry.values is None:
            return even if even is not None else Fraction(0)
        return entry.values[player]

    best = max(worth(e) for e in entries)
    optimal = [e for e in entries if worth(e) == best]
    if even is not None and best > even:
        optimal.sort(key=lambda e: e.remoteness)
    elif even is not None and best < even:
        optimal.sort(key=lambda e: -e.remoteness)
    return optimal


@dataclass
class DatabaseAdvice:
    result: SolveResult
    action_values: tuple
    entries: list
    neutral: bool = False

    @property
    def best_actions(self) -> tuple:
        return self.result.best_actions


class DatabaseAdvisor:
    """``gdl.tools.session.Advisor``'s interface, answered from a position database."""

    def __init__(self, db):
        self.db = db
        self.depth = None
        self.time = None
        self.default_time = None    # a lookup needs no time limit
        self.interrupted = False    # nor can Ctrl-C cut it short
        self.stop = None
        self.watch = None

    def resolved(self, game) -> str:
        return "position database"

    def check(self, game) -> None:
        return None

    def advise(self, game, state, *, values_per_action: bool = False) -> DatabaseAdvice:
        here = self.db.lookup(state)
        if here is None:
            raise SolverError(f"{self.db.path}: this position is not in the database")
        player = game.current_player(state)
        entries = move_entries(self.db, game, state)
        best = ranked_best(game, player, entries)
        values = here.values if here.values is not None else tuple(
            [level(game) or 0] * game.info.num_players)
        result = SolveResult(values=values, best_actions=tuple(e.action for e in best), pv=(),
                             algorithm="position database", proven=self.db.exact,
                             extra={"remoteness": here.remoteness, "draw": here.values is None})
        action_values = tuple((e.action, e.values if e.values is not None else values)
                              for e in entries)
        return DatabaseAdvice(result, action_values, entries)
