"""A state packed into one 64-bit key, its layout taken from the checked domains of the IR.

Cell ``i`` of a state (``s[0]`` the mover, then the variables' slots, as gdl.lang.ir lays them
out) is a digit ``value - low[i]`` in base ``size[i]``, its declared domain's span (players
``0..n-1`` for the mover; a variable's ``values`` for its cells): a mixed-radix number with
cell 0 the most significant digit. So comparing keys compares the state tuples (positions
sorted by key are sorted by state), and a key takes log2 of the product of the domains' sizes,
not a whole number of bits per cell: Connect Four 6 x 4 (24 cells of 3 values, 6 heights of 5,
a winner of 3, a mover of 2) needs 55 bits where bits per cell would need 69. The native rules
never store a value outside its domain (gdl/backends/native/emit.py), so every state they make
has a key.

Keys are below 2^63 - 1 (graph.c marks an empty hash slot with all ones); a game whose product
of domain sizes is larger has no codec (``KeyCodec.for_game`` says why) and is walked through
the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

LIMIT = 2**63 - 1           # keys are below this


@dataclass(frozen=True)
class KeyCodec:
    low: tuple[int, ...]        # per cell: the smallest value of its domain
    size: tuple[int, ...]       # per cell: largest - smallest + 1 (the digit's base)
    # per cell: whether it holds a bool, which decode gives back as False/True, as the game's
    # own states hold it (empty: none does)
    booleans: tuple[bool, ...] = ()

    @property
    def positions(self) -> int:
        """How many keys the layout has (the product of the sizes)."""
        return prod(self.size)

    @classmethod
    def for_game(cls, game, wide: bool = False) -> KeyCodec | str:
        """The codec of a checked game (gdl.lang.ir.Game), or the reason it has none.
        ``wide``: the digits even where their product passes a 63-bit key (such a codec's keys
        are Python ints; the ranked tables, which rank a state from its cells, need no key)."""
        cells = len(game.initial)
        ranges: list[tuple[int, int] | None] = [None] * cells
        booleans = [False] * cells
        ranges[0] = (0, len(game.players) - 1)
        for variable in game.variables:
            values = [int(v) for v in variable.values]
            if not values:
                return f"variable {variable.name} has an empty domain"
            for cell in range(variable.slot, variable.slot + variable.size):
                ranges[cell] = (min(values), max(values))
                booleans[cell] = all(type(v) is bool for v in variable.values)
        if any(r is None for r in ranges):
            return "a state cell belongs to no declared variable"
        low = tuple(r[0] for r in ranges if r is not None)
        size = tuple(r[1] - r[0] + 1 for r in ranges if r is not None)
        codec = cls(low, size, tuple(booleans) if any(booleans) else ())
        if codec.positions > LIMIT and not wide:
            return (f"its states need {(codec.positions - 1).bit_length()} bits, more than a "
                    "63-bit key holds")
        return codec

    def encode(self, state) -> int | None:
        """The key of a state, or None when it is not a state of this layout. (A bool cell is
        its int; decode gives the bool back.)"""
        if len(state) != len(self.size):
            return None
        key = 0
        for value, low, size in zip(state, self.low, self.size):
            if type(value) not in (int, bool) or not 0 <= value - low < size:
                return None
            key = key * size + (value - low)
        return key

    def decode(self, key: int) -> tuple[int, ...]:
        values: list = [0] * len(self.size)
        for cell in range(len(self.size) - 1, -1, -1):
            key, digit = divmod(key, self.size[cell])
            values[cell] = self.low[cell] + digit
        for cell, boolean in enumerate(self.booleans):
            if boolean:
                values[cell] = bool(values[cell])
        return tuple(values)

    def decode_many(self, keys: np.ndarray) -> np.ndarray:
        """The states of an array of keys, one row each (int64)."""
        rest = np.array(keys, dtype=np.uint64)
        out = np.empty((len(rest), len(self.size)), dtype=np.int64)
        for cell in range(len(self.size) - 1, -1, -1):
            rest, digit = np.divmod(rest, np.uint64(self.size[cell]))
            out[:, cell] = digit.astype(np.int64) + self.low[cell]
        return out
