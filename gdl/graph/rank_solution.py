"""A strong solve kept in ranked tables (gdl.graph.rank_solve), read like a ``GraphSolution``.

A position's id is 0 for the start and ``1 + offset of its tier + its rank`` for every
position (the start has both): ids are stable, not dense, and ``len(solution.graph)`` is the
number of reachable positions. Each tier's codes sit in a file of the solve's directory,
read a slot at a time (a memory map): ``value``, ``remoteness``, ``value_class``,
``best_actions`` and ``moves`` of any position, and ``census()``, answer as
``GraphSolution``'s do for the same game (tests/test_rank.py holds them to it).
"""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction
from typing import Any

import numpy as np

from gdl.graph.solution import DRAW, LOSE, TIE, WIN, GraphSolution, TwoPlayerValues
from gdl.protocol import TERMINAL


def _plain(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


class RankedSolution(GraphSolution):
    """Every reachable position valued on ranked tables (see the module docstring): the
    ``GraphSolution`` interface, its graph a ``RankedGraph``, no ``values`` arrays."""

    def __init__(self, game, expander, layout, tables, passes, records, files, tier, total,
                 table: list[int], M: int, width: int, hist: np.ndarray,
                 pairs: TwoPlayerValues | None = None):
        from gdl.graph import BACKWARD_INDUCTION, RETROGRADE

        # pairs: a game whose moves may stay inside a tier: a code's value index is a pair
        # (lo, hi), answered by these TwoPlayerValues over the pairs, and a remoteness of
        # M - 1 is none (gdl.graph.rank_solve._pairs)
        self.pairs = pairs
        self.scale = 1 if pairs is None else pairs.scale     # centred values are times this
        self.method = BACKWARD_INDUCTION if pairs is None else RETROGRADE
        self.exact, self.note, self.residual, self.bounds = True, "", None, None
        self.values = None      # type: ignore   # the codes are in the files
        self.game, self.expander, self.layout, self.tables = game, expander, layout, tables
        self.passes, self.records, self.files, self.tier = passes, records, files, tier
        self.total = total
        self.table, self.M, self.width, self.hist = table, M, width, hist
        self.seconds: dict = {}
        self.cpu: dict = {}         # per pass: coordinator and threads (rank_solve._PassClock)
        self.by_tier = {r.value: r for r in records}
        self.offsets = np.cumsum([0] + [r.size for r in records]).tolist()
        self._maps: dict[int, np.ndarray] = {}
        self.root = tuple(game.initial_state())
        self.graph = RankedGraph(self)

    # ---- positions
    @property
    def positions(self) -> int:
        return sum(r.reached for r in self.records)

    @property
    def dtype(self):
        return np.uint8 if self.width == 1 else np.dtype("<u2")

    def codes(self, tier: int) -> np.ndarray:
        """A tier's codes (a read-only memory map of its file)."""
        found = self._maps.get(tier)
        if found is None:
            record = self.by_tier[tier]
            found = self._maps[tier] = np.memmap(self.files.path(tier, "codes"), dtype=self.dtype,
                                                 mode="r", shape=(record.size,))
        return found

    def locate(self, state) -> tuple[int, int] | None:
        """``(tier, rank)`` of a reachable state, or None."""
        try:
            found = self.passes.rank(tuple(int(v) for v in state))
        except (TypeError, ValueError, OverflowError):
            return None
        if found is None or found[0] not in self.by_tier:
            return None
        tier, r = found
        return (tier, r) if self.codes(tier)[r] else None

    def position_id(self, state) -> int | None:
        if tuple(state) == self.root:
            return 0
        found = self.locate(state)
        if found is None:
            return None
        tier, r = found
        return 1 + self.offsets[self.records.index(self.by_tier[tier])] + r

    def _where(self, position: int) -> tuple[int, int]:
        if position == 0:
            found = self.locate(self.root)
            assert found is not None
            return found
        at = position - 1
        index = bisect_right(self.offsets, at) - 1
        return self.records[index].value, at - self.offsets[index]

    def state(self, position: int) -> tuple:
        tier, r = self._where(position)
        found = self.passes.unrank(tier, r)
        assert found is not None
        return self.expander.codec.decode(self.expander.codec.encode(found))

    def _code(self, position: int) -> int:
        tier, r = self._where(position)
        return int(self.codes(tier)[r])

    def _index(self, position: int) -> int:
        """The value index of a position's code: into the table, or the pairs."""
        return (self._code(position) - 1) // self.M

    def centre(self, position: int) -> int | None:
        """Player 0's centred value (2 u0 - total) * scale (None: a draw without a value)."""
        if self.pairs is not None:
            return self.pairs.centre(self._index(position))
        return self.table[self._index(position)]

    # ---- GraphSolution's answers
    def value(self, position: int) -> tuple | None:
        centre = self.centre(position)
        if centre is None:
            return None
        u0 = (Fraction(centre, self.scale) + self.total) / 2
        return (_plain(u0), _plain(self.total - u0))

    def remoteness(self, position: int) -> int:
        remoteness = (self._code(position) - 1) % self.M
        return -1 if self.pairs is not None and remoteness == self.M - 1 else remoteness

    def value_class(self, position: int) -> str | None:
        player = int(self.graph.player[position])
        if player < 0:
            return None
        return self._class(player, self._index(position))

    def _class(self, player: int, index: int) -> str:
        """The mover's class at a value index."""
        if self.pairs is not None:
            if self.pairs.draws(np.array([index]))[0]:
                return DRAW
            centre = self.pairs.centre(index)
        else:
            centre = self.table[index]
        assert centre is not None
        mine = centre if player == 0 else -centre
        return WIN if mine > 0 else LOSE if mine < 0 else TIE

    def moves(self, position: int) -> list[tuple[Any, int, tuple | None, int]]:
        state = self.state(position)
        if self.game.current_player(state) == TERMINAL:
            return []
        actions = list(self.game.legal_actions(state))
        children = self.graph.children(position).tolist()
        return [(a, c, self.value(c), self.remoteness(c)) for a, c in zip(actions, children)]

    def best_actions(self, position: int) -> tuple:
        state = self.state(position)
        if self.game.current_player(state) < 0:
            return ()
        actions = list(self.game.legal_actions(state))
        children = self.graph.children(position).tolist()
        target = self.centre(position)
        if target is None:          # a draw without a value: the moves best for some worth
            assert self.pairs is not None
            mine = self._index(position)
            return tuple(a for a, c in zip(actions, children)
                         if self.pairs.best_for_some_worth(mine, self._index(c)))
        return tuple(a for a, c in zip(actions, children) if self.centre(c) == target)

    def interval(self, position: int):
        return None

    def win_probability(self, position: int):
        return None

    def lookup(self, state) -> tuple[tuple | None, int] | None:
        """The value vector and remoteness of a state, or None if it is not reachable (as
        ``TieredSolution.lookup``)."""
        position = self.position_id(state)
        if position is None:
            return None
        return self.value(position), self.remoteness(position)

    def census(self) -> dict:
        """Positions by kind, by the mover's value class and by remoteness: what
        ``GraphSolution.census`` gives, from the counts the backward pass kept."""
        ncodes = len(self.hist) // 3
        terminal = sum(r.terminal for r in self.records)
        document: dict[str, Any] = {
            "positions": self.positions, "terminal": terminal, "chance": 0,
            "decision": self.positions - terminal, "edges": sum(r.edges for r in self.records)}
        classes = {WIN: 0, LOSE: 0, TIE: 0, DRAW: 0}
        remoteness: dict[int, int] = {}
        outcomes: dict[int | Fraction, int] = {}
        for code in range(1, ncodes):
            vi, r = divmod(code - 1, self.M)
            for mover in (0, 1):
                count = int(self.hist[mover * ncodes + code])
                if count:
                    classes[self._class(mover, vi)] += count
                    if self.pairs is None or r != self.M - 1:
                        remoteness[r] = remoteness.get(r, 0) + count
            count = int(self.hist[2 * ncodes + code])
            if count:
                score = self.table[vi] if self.pairs is None else \
                    Fraction(int(self.pairs.lower[vi]), self.scale)
                outcomes[score] = outcomes.get(score, 0) + count
        document["classes"] = classes
        document["remoteness"] = dict(sorted(remoteness.items()))
        document["terminal_outcomes"] = {
            str(_plain((Fraction(w) + self.total) / 2)): c
            for w, c in sorted(outcomes.items(), reverse=True)}
        return document


class _Players:
    """``graph.player[position]``: the player to move, or TERMINAL."""

    def __init__(self, solution: RankedSolution):
        self.solution = solution

    def __getitem__(self, position) -> int:
        state = self.solution.state(int(position))
        return int(self.solution.game.current_player(state))


class RankedGraph:
    """What callers of a ``GraphSolution`` read of its ``graph``, for a ranked solve."""

    def __init__(self, solution: RankedSolution):
        self.solution = solution
        self.game = solution.game
        self.player = _Players(solution)
        self.stats: dict = {"enumeration": "ranked"}

    def __len__(self) -> int:
        return self.solution.positions

    @property
    def edges(self) -> int:
        return sum(r.edges for r in self.solution.records)

    @property
    def codec(self):
        return self.solution.expander.codec

    def state(self, position: int) -> tuple:
        return self.solution.state(position)

    def position_id(self, state) -> int | None:
        return self.solution.position_id(state)

    def children(self, position: int) -> np.ndarray:
        game = self.game
        state = self.state(position)
        if game.current_player(state) == TERMINAL:
            return np.zeros(0, dtype=np.int64)
        ids = [self.solution.position_id(game.apply(state, a)) for a in game.legal_actions(state)]
        return np.array(ids, dtype=np.int64)

    def census(self) -> dict[str, int]:
        document = self.solution.census()
        return {k: document[k] for k in ("positions", "terminal", "chance", "decision", "edges")}
