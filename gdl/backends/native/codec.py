"""A state packed into one 64-bit key, its layout taken from the checked domains of the IR.

Cell ``i`` of a state (``s[0]`` the mover, then the variables' slots, as gdl.lang.ir lays them
out) takes ``bits[i]`` bits: enough for ``value - low[i]`` over its declared domain (players
``0..n-1`` for the mover; a variable's ``values`` for its cells). Cell 0 sits in the highest
bits and the last cell in the lowest, so comparing keys compares the state tuples: positions
sorted by key are sorted by state. The native rules never store a value outside its domain
(gdl/backends/native/emit.py), so every state they make has a key.

Keys use at most 63 bits (graph.c marks an empty hash slot with all ones); a wider game has no
codec (``KeyCodec.for_game`` says why) and is walked through the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_BITS = 63


@dataclass(frozen=True)
class KeyCodec:
    low: tuple[int, ...]        # per cell: the smallest value of its domain
    bits: tuple[int, ...]       # per cell: bits for value - low (0 for a one-value domain)

    @property
    def shifts(self) -> tuple[int, ...]:
        shifts, shift = [], 0
        for width in reversed(self.bits):
            shifts.append(shift)
            shift += width
        return tuple(reversed(shifts))

    @property
    def total_bits(self) -> int:
        return sum(self.bits)

    @classmethod
    def for_game(cls, game) -> KeyCodec | str:
        """The codec of a checked game (gdl.lang.ir.Game), or the reason it has none."""
        cells = len(game.initial)
        ranges: list[tuple[int, int] | None] = [None] * cells
        ranges[0] = (0, len(game.players) - 1)
        for variable in game.variables:
            values = [int(v) for v in variable.values]
            if not values:
                return f"variable {variable.name} has an empty domain"
            for cell in range(variable.slot, variable.slot + variable.size):
                ranges[cell] = (min(values), max(values))
        if any(r is None for r in ranges):
            return "a state cell belongs to no declared variable"
        low = tuple(r[0] for r in ranges if r is not None)
        bits = tuple((r[1] - r[0]).bit_length() for r in ranges if r is not None)
        codec = cls(low, bits)
        if codec.total_bits > MAX_BITS:
            return (f"a position needs {codec.total_bits} bits, more than a {MAX_BITS}-bit key "
                    "holds")
        return codec

    def encode(self, state) -> int | None:
        """The key of a state, or None when it is not a state of this layout."""
        if len(state) != len(self.bits):
            return None
        key = 0
        for value, low, width in zip(state, self.low, self.bits):
            if type(value) is not int:
                return None
            offset = value - low
            if offset < 0 or offset >> width:
                return None
            key = (key << width) | offset
        return key

    def decode(self, key: int) -> tuple[int, ...]:
        values = []
        for low, width, shift in zip(self.low, self.bits, self.shifts):
            values.append(low + ((key >> shift) & ((1 << width) - 1)))
        return tuple(values)

    def decode_many(self, keys: np.ndarray) -> np.ndarray:
        """The states of an array of keys, one row each (int64)."""
        keys = np.asarray(keys, dtype=np.uint64)
        out = np.empty((len(keys), len(self.bits)), dtype=np.int64)
        for cell, (low, width, shift) in enumerate(zip(self.low, self.bits, self.shifts)):
            field = (keys >> np.uint64(shift)) & np.uint64((1 << width) - 1)
            out[:, cell] = field.astype(np.int64) + low
        return out
