"""What a strong solve returns: a value for every reachable position, and the answers built on
it (value class, remoteness, the optimal moves of any position, a census).

Two representations, one interface:

- ``TwoPlayerValues``: two players, constant-sum, no chance (the retrograde and the fast
  backward induction). Each position holds an interval ``[lower, upper]`` of *centred* values
  ``w = scale * (2 * u0 - total)`` (player 0's utility u0, shifted so that a level result is 0
  and scaled to an integer): ``lower`` is what player 0 can force *with the game ending*,
  ``upper`` what player 1 can hold it to, with the game ending. Where they meet the position is
  decided; where they differ, neither side can force an end within that range: endless play
  (a *draw*) decides it, and with a value ``d`` for endless play the value is ``d`` clamped to
  ``[lower, upper]``. ``NO_END_LOW`` / ``NO_END_HIGH`` stand for "cannot force an end at all".
- ``VectorValues``: any game (chance, n players, general-sum): one exact vector per position.

Value classes are the mover's: *win* (more than level), *lose*, *tie* (the game ends level)
and *draw* (it need not end). Remoteness is the number of moves to the end when the winner
wins as fast as possible and the loser loses as slowly as possible (a tie: as fast as possible),
counted along optimal moves; it is -1 for a draw and for games with chance or more players.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Any

import numpy as np

from gdl.protocol import CHANCE, TERMINAL, Value

NO_END_LOW = -(2**62)
NO_END_HIGH = 2**62

# Approximate values (floats from value iteration) this close to the best count as best.
APPROXIMATE_SLACK = 1e-9

WIN, LOSE, TIE, DRAW = "win", "lose", "tie", "draw"
CLASSES = (WIN, LOSE, TIE, DRAW)


@dataclass
class TwoPlayerValues:
    lower: np.ndarray
    upper: np.ndarray
    remoteness: np.ndarray          # int32, -1 for a draw
    scale: int                      # w = scale * (2 * u0 - total)
    total: Value                    # u0 + u1
    endless: Value | None = None    # player 0's utility for endless play, where declared
    # Where endless play is not declared: player 0's least and greatest centred end over the
    # game (docs/graph.md: a side that can force the best end there is needs no value for
    # endless play). None where every position is decided anyway (no cycle) or nothing ends.
    ends: tuple[int, int] | None = None

    def centred_endless(self) -> Fraction | None:
        if self.endless is None:
            return None
        w = Fraction(self.endless) * 2 * self.scale - self.total * self.scale
        return w

    def decided(self, where=slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """``(value, known)`` at the positions ``where``: player 0's centred value, and whether
        the position has one (docs/graph.md). With ``when endless`` every position has one: the
        declared value clamped to ``[lower, upper]``; without it, a position has one where it is
        the same whatever endless play is worth between the game's least and greatest end."""
        lo, hi = self.lower[where], self.upper[where]
        d = self.centred_endless()
        if d is not None:
            if d.denominator != 1:       # retrograde analysis scales d to an integer
                raise ValueError("the value of endless play is not on the values' scale")
            return np.clip(int(d), lo, hi), np.ones(len(lo), dtype=bool)
        if self.ends is None:
            return lo.copy(), lo == hi
        # the value were endless play worth the least end, and were it worth the greatest
        least, greatest = (np.clip(end, lo, hi) for end in self.ends)
        return least, least == greatest

    def centre(self, position: int) -> int | None:
        """Player 0's centred value at one position, or None for a draw without one."""
        value, known = self.decided(np.array([position]))
        return int(value[0]) if known[0] else None

    def draw_range(self, position: int) -> tuple[int, int]:
        """The centred range a draw's value would fall in, for the worths endless play may
        have: its forced range cut to the game's ends."""
        lo, hi = int(self.lower[position]), int(self.upper[position])
        if self.ends is not None:
            lo, hi = max(lo, self.ends[0]), min(hi, self.ends[1])
        return lo, hi

    def best_for_some_worth(self, position: int, child: int) -> bool:
        """Whether the move to ``child`` is best at ``position`` for some worth endless play
        may have strictly between the game's least and greatest end (at an end of that range a
        draw is worth as much as that end, so every move that ends there would tie with it).
        Both values are that worth clamped to what the sides can force: piecewise linear,
        cornered at the bounds, so where they meet inside the range they meet at a corner or
        on a stretch between corners, whose middle is then checked too (in halves: doubled)."""
        if self.ends is None:          # nothing ends: every move is as endless as another
            return True
        least, greatest = self.ends
        corners = {least, greatest}
        for p in (position, child):
            corners |= {int(w) for w in (self.lower[p], self.upper[p]) if least < w < greatest}
        ordered = sorted(corners)
        points = [2 * w for w in ordered[1:-1]] + [a + b for a, b in pairwise(ordered)]

        def worth(p: int, doubled: int) -> int:
            return min(max(doubled, 2 * int(self.lower[p])), 2 * int(self.upper[p]))

        return any(worth(position, e) == worth(child, e) for e in points)

    def vector(self, position: int) -> tuple[Value, ...] | None:
        centre = self.centre(position)
        if centre is None:
            return None
        u0 = (Fraction(centre, self.scale) + self.total) / 2
        return (_plain(u0), _plain(self.total - u0))

    def draws(self, where=slice(None)) -> np.ndarray:
        """Whether each position is a draw in the sense of the classes: no side can force an
        end worth its value (it has none, or its value is what endless play is worth)."""
        value, known = self.decided(where)
        return ~known | ((self.lower[where] != value) & (self.upper[where] != value))


@dataclass
class VectorValues:
    vectors: Sequence               # position -> tuple of exact values (None: not solved)
    # A chance game whose players can keep a play going, without `when endless`: for each
    # draw (no value), its values were endless play worth the least end, the greatest, and
    # their middle (which decides its optimal moves).
    draws: dict = field(default_factory=dict)


def _at(draws: dict, position: int, side: int, value) -> tuple:
    """A chance game's value vector at ``position`` were endless play worth the least end
    (``side`` 0), the greatest (1) or their middle (2): a draw's from ``draws``, else its one
    value."""
    return draws[position][side] if position in draws else value


def player_intervals(low: float, high: float, total: Value
                     ) -> tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]:
    """Each player's proven interval from certified bounds ``low <= w <= high`` on player 0's
    centred value ``w = 2 * u0 - total`` (a float is an exact fraction)."""
    low_u0, high_u0 = (Fraction(low) + total) / 2, (Fraction(high) + total) / 2
    return (low_u0, high_u0), (total - high_u0, total - low_u0)


def win_chance(intervals: tuple, loss: Value, win: Value) -> tuple[Fraction, Fraction]:
    """The proven interval of P(player 0 wins), from ``player_intervals`` of a game whose plays
    all end in player 0's ``loss`` or ``win`` (utilities)."""
    (low, high), _ = intervals
    return (low - loss) / (win - loss), (high - loss) / (win - loss)


def _plain(v: Value) -> Value:
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


@dataclass
class GraphSolution:
    """Every reachable position of ``graph`` valued by ``method``. ``exact`` is True when every
    value is proven exact; otherwise ``residual`` is the largest change in value iteration's last
    sweep (how settled the values are, *not* a bound on their error), and ``note`` says why the
    values are not exact."""

    graph: Any
    method: str
    values: TwoPlayerValues | VectorValues
    exact: bool = True
    residual: float | None = None
    note: str = ""
    seconds: dict = field(default_factory=dict)
    # Not exact but certified (two players, constant-sum): player 0's centred values bracketed,
    # ``(lower, upper, total, outcomes)``, read through ``interval`` and ``win_probability``;
    # ``outcomes`` is player 0's (loss, win) utility when the game has no other ends, else None.
    bounds: tuple | None = None

    def interval(self, position: int) -> tuple[tuple[Fraction, Fraction], ...] | None:
        """Each player's value at a position as a proven interval ``(low, high)`` of exact
        fractions, where the values are not exact but certified; else None."""
        if self.bounds is None:
            return None
        lower, upper, total, _ = self.bounds
        return player_intervals(float(lower[position]), float(upper[position]), total)

    def win_probability(self, position: int) -> tuple[Fraction, Fraction] | None:
        """The proven interval of the probability that player 0 wins, where the game ends only
        in player 0's win or loss and the values are certified but not exact; else None."""
        found = self.interval(position)
        if found is None or self.bounds is None or self.bounds[3] is None:
            return None
        return win_chance(found, *self.bounds[3])

    # ---- one position
    def value(self, position: int) -> tuple[Value, ...] | None:
        """The value vector, or None for a draw whose endless play has no declared value."""
        if isinstance(self.values, TwoPlayerValues):
            return self.values.vector(position)
        return self.values.vectors[position]

    def remoteness(self, position: int) -> int:
        if isinstance(self.values, TwoPlayerValues):
            return int(self.values.remoteness[position])
        return -1

    def value_class(self, position: int) -> str | None:
        """win / lose / tie / draw for the player to move (None at chance and terminal
        positions, and in games with more players or general-sum)."""
        player = int(self.graph.player[position])
        if player < 0 or not isinstance(self.values, TwoPlayerValues):
            return None
        if self.values.draws(np.array([position]))[0]:
            return DRAW
        centre = self.values.centre(position)
        assert centre is not None
        mine = centre if player == 0 else -centre
        return WIN if mine > 0 else LOSE if mine < 0 else TIE

    def moves(self, position: int) -> list[tuple[Any, int, tuple | None, int]]:
        """Each available move at a position, in the game's order: ``(action, child id, value
        vector, remoteness)``."""
        graph = self.graph
        state = graph.state(position)
        game = graph.game
        player = int(graph.player[position])
        if player == TERMINAL:
            return []
        if player == CHANCE:
            actions = [outcome for outcome, _ in game.chance_outcomes(state)]
        else:
            actions = list(game.legal_actions(state))
        children = graph.children(position).tolist()
        return [(a, c, self.value(c), self.remoteness(c)) for a, c in zip(actions, children)]

    def best_actions(self, position: int) -> tuple:
        """The optimal actions at a decision position, in declaration order: every action whose
        value for the mover equals the best (the tree solvers' rule). At a draw without a
        value, which move is best depends on what endless play is worth: the moves best for
        some worth it may have (docs/graph.md)."""
        player = int(self.graph.player[position])
        if player < 0:
            return ()
        children = self.graph.children(position).tolist()
        state = self.graph.state(position)
        actions = list(self.graph.game.legal_actions(state))
        if isinstance(self.values, TwoPlayerValues):
            values = self.values
            if values.centre(position) is None:
                return tuple(a for a, c in zip(actions, children)
                             if values.best_for_some_worth(position, c))
            target = values.centre(position)
            return tuple(a for a, c in zip(actions, children) if values.centre(c) == target)
        draws = self.values.draws
        if position in draws:
            # a draw of a chance game: the moves best were endless play worth the middle of the
            # least and the greatest end (a point strictly inside the range, as above)
            middle = draws[position][2][player]
            return tuple(a for a, c in zip(actions, children)
                         if _at(draws, c, 2, self.value(c))[player] == middle)
        known = [(a, v) for a, v in zip(actions, (self.value(c) for c in children))
                 if v is not None]
        best = max(v[player] for _, v in known)
        slack = 0 if self.exact else APPROXIMATE_SLACK
        return tuple(a for a, v in known if v[player] >= best - slack)

    # ---- the whole graph
    def census(self) -> dict:
        """Positions by kind, by the mover's value class and by remoteness."""
        graph = self.graph
        document: dict[str, Any] = dict(graph.census())
        if isinstance(self.values, TwoPlayerValues):
            player = graph.player
            lower = self.values.lower
            decision = player >= 0
            value, _ = self.values.decided()
            draw = self.values.draws()
            mine = np.where(player == 1, -value, value)
            document["classes"] = {
                WIN: int(np.count_nonzero(decision & ~draw & (mine > 0))),
                LOSE: int(np.count_nonzero(decision & ~draw & (mine < 0))),
                TIE: int(np.count_nonzero(decision & ~draw & (mine == 0))),
                DRAW: int(np.count_nonzero(decision & draw)),
            }
            remoteness = self.values.remoteness[decision & (self.values.remoteness >= 0)]
            counts = np.bincount(remoteness) if len(remoteness) else np.zeros(0, np.int64)
            document["remoteness"] = {int(r): int(c) for r, c in enumerate(counts) if c}
            terminal = player == TERMINAL
            outcomes = Counter(lower[terminal].tolist())
            document["terminal_outcomes"] = {
                _outcome_name(w, self.values): c for w, c in sorted(outcomes.items(), reverse=True)}
        return document


def _outcome_name(w: int, values: TwoPlayerValues) -> str:
    u0 = (Fraction(w, values.scale) + values.total) / 2
    return str(_plain(u0))
