"""The alpha-beta engine's transposition table: what a searched state is worth, remembered.

An entry records one search of one state: its fail-soft value, which kind of bound that value
is (``EXACT``, ``LOWER`` or ``UPPER``, relative to the window the state was searched with), the
depth it was searched to (``FULL`` when no evaluation was used below it, so it holds for the real
game), the best action found, and the work (nodes) the search cost.

``TranspositionTable`` keeps ``size`` entries in buckets of two with Breuker, Uiterwijk and van
den Herik's "TwoBig" replacement: the first slot keeps the entry whose subtree cost the most
nodes, the second slot takes everything else. Depth-preferred replacement would be useless for
exact solving, where every entry has depth FULL; work is what a lost entry costs to recompute.

The bucket of a state is ``key % buckets`` with ``key = hash(state)``. The caller hashes once per
node and passes the key to both ``find`` and ``store``: a tuple does not cache its hash, and
hashing a state costs about as much as the rest of the probe. Ints and tuples of ints (every built
game) hash the same in every process, so what the table keeps, and the node counts, are
reproducible.
"""

from __future__ import annotations

from typing import Final

from gdl.protocol import Action, State, Value

FULL = 1 << 30          # the depth of an entry that used no evaluation: it answers any depth

# What an entry's value says about the state's true value, given the window (alpha, beta) the
# state was searched with (fail-soft): within it, the value itself; at or above beta, at least
# the value; at or below alpha, at most the value.
EXACT, LOWER, UPPER = 0, 1, 2


class _NoAction:
    """The type of ``NO_ACTION``; actions themselves may be any hashable, even None."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_ACTION"


NO_ACTION: Action = _NoAction()     # "no best action": a quiescence node that stood pat


# An entry is a plain tuple, read through these field names:
#   (state, value, bound, depth, best_action, work)
# bound is EXACT, LOWER or UPPER; depth the plies searched below the state (FULL when no
# evaluation was used); best_action NO_ACTION when no child was searched as best; work the
# nodes the search of the state cost. Not a NamedTuple or a class: the garbage collector stops
# tracking a plain tuple of immutable fields, but keeps scanning every instance of a tuple
# subclass or class, and a full table holds a million entries (measured: the engine ran 20%
# slower with NamedTuple entries, most of it in collections).
STATE: Final = 0
VALUE: Final = 1
BOUND: Final = 2
DEPTH: Final = 3
BEST_ACTION: Final = 4
WORK: Final = 5
Entry = tuple[State, Value, int, int, Action, int]


def answers(entry: Entry, depth: int, alpha: Value | float, beta: Value | float) -> bool:
    """Whether ``entry`` settles a search of its state to ``depth`` with window (alpha, beta):
    it was searched at least as deep, and its value is exact or a bound beyond the window on the
    side that makes the caller cut. The window is never narrowed from a bound: that keeps the
    fail-soft contract exact even when the entry comes from a different depth (a narrowed window
    can turn an upper bound into a result the caller takes for exact)."""
    if entry[DEPTH] < depth:
        return False
    bound = entry[BOUND]
    if bound == EXACT:
        return True
    if bound == LOWER:
        return entry[VALUE] >= beta
    return entry[VALUE] <= alpha


class TranspositionTable:
    """``size`` entries in ``size // 2`` buckets of two, with TwoBig replacement."""

    __slots__ = ("buckets", "first", "replaced", "second", "used")

    def __init__(self, size: int):
        self.buckets = max(1, size // 2)
        # The first slot of each bucket: the entry that cost the most work.
        self.first: list[Entry | None] = [None] * self.buckets
        # The second slot: whatever was stored last and did not displace the first.
        self.second: list[Entry | None] = [None] * self.buckets
        self.used = 0           # slots filled
        self.replaced = 0       # entries of other states overwritten

    @property
    def capacity(self) -> int:
        return 2 * self.buckets

    def find(self, state: State, key: int) -> Entry | None:
        """The entry of ``state`` (whose hash is ``key``), or None."""
        i = key % self.buckets
        entry = self.first[i]
        if entry is not None and entry[STATE] == state:
            return entry
        entry = self.second[i]
        if entry is not None and entry[STATE] == state:
            return entry
        return None

    def store(self, entry: Entry, key: int) -> None:
        """Keep ``entry`` (whose state's hash is ``key``) by the TwoBig rule. An entry of the same
        state in the first slot is replaced only by one searched at least as deep."""
        i = key % self.buckets
        first = self.first[i]
        if first is None:
            self.first[i] = entry
            self.used += 1
        elif first[STATE] == entry[STATE]:
            if entry[DEPTH] >= first[DEPTH]:
                self.first[i] = entry
        else:
            second = self.second[i]
            if second is None:
                self.used += 1
            elif second[STATE] != entry[STATE]:   # (a stale copy of this state is no loss)
                self.replaced += 1
            if entry[WORK] >= first[WORK]:
                self.first[i] = entry
                self.second[i] = first
            else:
                self.second[i] = entry

    def exact_action(self, state: State) -> Action:
        """The best action of an exact entry of ``state``, else NO_ACTION (for the principal
        variation, which follows only exact values)."""
        entry = self.find(state, hash(state))
        if entry is not None and entry[BOUND] == EXACT:
            return entry[BEST_ACTION]
        return NO_ACTION
