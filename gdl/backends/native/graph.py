"""The strong solver's native passes: positions as packed 64-bit keys, expanded in C.

``expander_for(game)`` gives a game with native rules a ``NativeExpander`` (or the reason it
has none: no native rules, states beyond a 63-bit key). gdl.graph reaches it only through the
game object (``game.native.graph_expander(game)``), never by import.

The contract, for gdl.graph and for a tier-by-tier solver:

- ``codec``: ``encode(state) -> int | None``, ``decode(key) -> tuple``, ``decode_many(keys)``
  (gdl.backends.native.codec): keys compare as the state tuples do.
- ``expand(keys)``: for a uint64 array of keys, an ``Expansion``: per position its ``player``
  (int8: a player index, or -2 = gdl.protocol.TERMINAL), the offsets ``first`` (int64, n + 1,
  ``first[0] == 0``) of its children in ``child`` (uint64 keys, in the order of the position's
  legal actions, so edge ``first[i] + j`` is its ``j``-th legal action), and ``returns`` (int64,
  n x players, the terminal returns; zeros elsewhere). None after a rule error or overflow:
  the caller redoes the work through the protocol, which reports the error located. Any batch
  size works (it is expanded in pieces that fit in memory); the answer does not depend on it.
- ``reach(root_key, limit, progress)``: every key reachable from ``root_key``, breadth-first
  with a hash set in C: a ``Reached`` with the keys (uint64, discovery order, the root first),
  the number of edges, and ``outcome`` "done", "rule error" or "too many" (more than ``limit``).
  ``progress(expanded, found)`` is called between steps; Ctrl-C stops it between two steps
  and frees the walk's memory.
- ``number(keys, start, stop, ...)``: ``expand`` fused with the lookup of each child's id in
  a graph numbered root first, then by key (what gdl.graph.packed needs), written in place.
- ``induction(first, child, player, score)``: backward induction of a two-player
  constant-sum graph without chance (gdl.graph's arrays), depth-first in C; None on a cycle.
- For tiers (gdl.graph.tiers): ``has_tier`` (the rules declare ``tier``), ``tiers(keys, tier)``
  (each key's tier: the declared one for ``tier=None``, else the inferred
  ``(growing cells, shrinking cells)``; None after a rule error), and ``tier_solve(keys, tier,
  sides, total)``: a tier whose moves all leave it, valued in C against its solved later tiers
  (``sides``: ``(tier, keys, value index, value table as centred scores, remoteness)``), as
  ``induction`` values a graph; ``(score, remoteness)``, "rule error" or "inside" (a child in
  no side: the caller builds the tier's graph); ``key_bytes(keys)``: the states as byte rows.

Chance is not supported by these passes yet (the rules of a chance game do run natively): a
chance game has no expander.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from gdl.backends.native.codec import KeyCodec
from gdl.backends.native.runtime import interruptible

STEP = 1 << 16                  # positions a reach step expands between progress calls
BATCH_EDGES = 1 << 20           # child keys an expand call writes at most (8 MB)

_u64p = ctypes.POINTER(ctypes.c_uint64)
_i64p = ctypes.POINTER(ctypes.c_longlong)


@dataclass
class Expansion:
    player: np.ndarray          # int8, n
    first: np.ndarray           # int64, n + 1
    child: np.ndarray           # uint64 keys, first[n]
    returns: np.ndarray         # int64, n x players


@dataclass
class Reached:
    keys: np.ndarray | None     # uint64, discovery order (root first); None unless "done"
    edges: int
    outcome: str                # "done", "rule error" or "too many"


def expander_for(game, wide: bool = False) -> NativeExpander | str:
    """The native expander of a loaded game, or why there is none. The layout comes from the
    library (the emitter wrote it), so a cached library needs no checked game. ``wide``: also
    where the states pass a 63-bit key, as an expander with ``keyed`` False: its codec's keys
    are Python ints, and it has the ranked tables' passes (``domains``, ``ranked``) but no walk
    (``expand`` and the other passes over keys)."""
    native = getattr(game, "native", None)
    if native is None:
        return getattr(game, "native_note", None) or "the game has no native rules"
    if game.info.has_chance:
        # the rules run natively, chance included, but the walk has no chance nodes yet
        return "the native walk does not take chance games yet"
    library = native.library
    cells = library.gdl_cells()
    low, size = np.zeros(cells, dtype=np.int64), np.zeros(cells, dtype=np.int64)
    keyed = bool(library.gdl_graph_layout(_pointer(low, _i64p), _pointer(size, _i64p)))
    # without a 63-bit key the emitter still wrote the digits where every cell has a domain
    # (a library without them has sizes of 0)
    if not keyed and not (wide and bool((size >= 1).all())):
        return "its states need more than a 63-bit key"
    # which cells hold bools: as the game's own start holds them (the library knows only ints)
    start = tuple(game.initial_state())
    booleans = tuple(type(v) is bool for v in start) if len(start) == cells else ()
    codec = KeyCodec(tuple(int(v) for v in low), tuple(int(v) for v in size),
                     booleans if any(booleans) else ())
    return NativeExpander(library, codec, library.gdl_players(), keyed)


def _pointer(array: np.ndarray, kind):
    return array.ctypes.data_as(kind)


class NativeExpander:
    """Packed positions expanded by the generated C (see the module docstring)."""

    def __init__(self, library: ctypes.CDLL, codec: KeyCodec, players: int, keyed: bool = True):
        self.library, self.codec, self.players = library, codec, players
        self.keyed = keyed          # the codec's keys fit 63 bits: the passes over keys apply
        self.actions = library.gdl_actions()
        library.gdl_graph_expand.restype = ctypes.c_longlong
        library.gdl_graph_expand.argtypes = [_u64p, ctypes.c_longlong, ctypes.c_void_p, _i64p,
                                             _u64p, ctypes.c_longlong, _i64p]
        library.gdl_reach_new.restype = ctypes.c_void_p
        library.gdl_reach_new.argtypes = [ctypes.c_uint64]
        library.gdl_reach_step.argtypes = [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong]
        library.gdl_reach_counts.argtypes = [ctypes.c_void_p, _i64p]
        library.gdl_reach_take.argtypes = [ctypes.c_void_p, _u64p]
        library.gdl_reach_free.argtypes = [ctypes.c_void_p]
        library.gdl_graph_number.argtypes = [_u64p, ctypes.c_longlong, ctypes.c_longlong,
                                             ctypes.c_longlong, ctypes.c_void_p, _i64p,
                                             ctypes.c_void_p, ctypes.c_longlong, _i64p]
        library.gdl_graph_induction.argtypes = [ctypes.c_longlong, _i64p, ctypes.c_void_p,
                                                ctypes.c_void_p, _i64p, ctypes.c_void_p]
        library.gdl_tier_keys.argtypes = [_u64p, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_int,
                                          ctypes.c_int, _i64p]
        library.gdl_tier_solve.argtypes = [
            _u64p, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            _i64p, _i64p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
            ctypes.c_longlong, _i64p, ctypes.c_void_p]
        library.gdl_key_bytes.argtypes = [_u64p, ctypes.c_longlong, ctypes.c_void_p]
        library.gdl_rank_domains.argtypes = [_u64p, _i64p]
        self.has_tier = bool(library.gdl_has_tier())

    def domains(self) -> tuple[list[int], list[int]]:
        """Per cell: its declared values as a bit mask over its codec digit (bit ``v - low``;
        all ones past 64 values), and the variable it belongs to (0: the mover)."""
        mask = np.zeros(len(self.codec.size), dtype=np.uint64)
        owner = np.zeros(len(self.codec.size), dtype=np.int64)
        self.library.gdl_rank_domains(mask.ctypes.data_as(_u64p), _pointer(owner, _i64p))
        return [int(m) for m in mask.tolist()], owner.tolist()

    def ranked(self, tables: dict, header: dict, threads: int = 1):
        """The ranked tables' passes in C over a layout's tables (gdl.graph.rank builds them;
        gdl/backends/native/ranked.py is the contract), on ``threads`` threads."""
        from gdl.backends.native.ranked import RankedPasses

        return RankedPasses(self.library, len(self.codec.size), tables, header, threads)

    def key_bytes(self, keys: np.ndarray) -> np.ndarray:
        """The states of ``keys`` as rows of one byte a cell (every domain within 0..255)."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.empty((len(keys), len(self.codec.size)), dtype=np.uint8)
        self.library.gdl_key_bytes(_pointer(keys, _u64p), len(keys), out.ctypes.data)
        return out

    @staticmethod
    def _tier_cells(tier) -> tuple[np.ndarray, int, int]:
        """The tier as graph.c takes it: None for the declared one, else (growing, shrinking)."""
        if tier is None:
            return np.zeros(1, dtype=np.int32), -1, 0
        growing, shrinking = tier
        cells = np.array(list(growing) + list(shrinking) + [0], dtype=np.int32)
        return cells, len(growing), len(shrinking)

    def tiers(self, keys: np.ndarray, tier=None) -> np.ndarray | None:
        """Each key's tier (int64); None after a rule error."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        cells, nplus, nminus = self._tier_cells(tier)
        out = np.empty(len(keys), dtype=np.int64)
        status = self.library.gdl_tier_keys(_pointer(keys, _u64p), len(keys), cells.ctypes.data,
                                            nplus, nminus, _pointer(out, _i64p))
        return None if status else out

    def tier_solve(self, keys: np.ndarray, tier, sides: list, total: int):
        """See the module docstring: ``(score int64, remoteness int32)``, "rule error" or
        "inside"."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        cells, nplus, nminus = self._tier_cells(tier)
        held = [(np.ascontiguousarray(k, dtype=np.uint64), np.ascontiguousarray(i, dtype=np.int32),
                 np.ascontiguousarray(t, dtype=np.int64), np.ascontiguousarray(r, dtype=np.int32))
                for _, k, i, t, r in sides]
        count = max(1, len(sides))
        side_tier = np.array([u for u, *_ in sides] or [0], dtype=np.int64)
        side_n = np.array([len(k) for k, *_ in held] or [0], dtype=np.int64)
        pointers = [(ctypes.c_void_p * count)(*[h[part].ctypes.data for h in held])
                    for part in range(4)]
        score = np.empty(len(keys), dtype=np.int64)
        remoteness = np.empty(len(keys), dtype=np.int32)
        status = interruptible(self.library, lambda: self.library.gdl_tier_solve(
            _pointer(keys, _u64p), len(keys), cells.ctypes.data, nplus, nminus, len(sides),
            _pointer(side_tier, _i64p), _pointer(side_n, _i64p), *pointers, total,
            _pointer(score, _i64p), remoteness.ctypes.data))
        if status == -4:
            raise KeyboardInterrupt
        if status:
            return "rule error" if status == -1 else "inside"
        return score, remoteness

    def induction(self, first: np.ndarray, child: np.ndarray, player: np.ndarray,
                  score: np.ndarray) -> np.ndarray | None:
        """Backward induction of an acyclic two-player constant-sum graph without chance, in
        C (the numpy pass of gdl.graph.induction, depth-first: no reversed edges). ``score``
        (int64, each terminal's value for player 0) is completed in place; returns the
        remoteness (int32), or None when the graph has a cycle."""
        n = len(player)
        first = np.ascontiguousarray(first, dtype=np.int64)
        child = np.ascontiguousarray(child, dtype=np.int32)
        player = np.ascontiguousarray(player, dtype=np.int8)
        assert score.dtype == np.int64 and score.flags.c_contiguous and len(score) == n
        remoteness = np.zeros(n, dtype=np.int32)
        status = interruptible(self.library, lambda: self.library.gdl_graph_induction(
            ctypes.c_longlong(n), _pointer(first, _i64p), child.ctypes.data, player.ctypes.data,
            _pointer(score, _i64p), remoteness.ctypes.data))
        if status == -3:
            raise MemoryError("backward induction ran out of memory")
        return remoteness if status == 0 else None

    def number(self, keys: np.ndarray, start: int, stop: int, player: np.ndarray,
               first: np.ndarray, child: np.ndarray, returns: np.ndarray) -> str | None:
        """Expand positions ``start..stop`` of a numbered graph in place (the fused form of
        ``expand`` plus a binary search, for gdl.graph.packed): ``keys`` (uint64) are all the
        positions' keys, the root first and the others sorted; writes ``player[i]``,
        ``first[i + 1]`` (``first[start]`` must be set), the children's ids in ``child``
        (int32) and the terminal returns in ``returns`` (int64, (stop - start) x players).
        None when done, else what went wrong ("rule error", or the passes disagree)."""
        for array, dtype in ((keys, np.uint64), (player, np.int8), (first, np.int64),
                             (child, np.int32), (returns, np.int64)):
            assert array.dtype == dtype and array.flags.c_contiguous
        assert returns.shape == (stop - start, self.players) and len(first) == len(keys) + 1
        status = self.library.gdl_graph_number(
            _pointer(keys, _u64p), len(keys), start, stop, player.ctypes.data,
            _pointer(first, _i64p), child.ctypes.data, len(child), _pointer(returns, _i64p))
        return (None if status == 0 else "rule error" if status == -1
                else "the two passes disagree (a child not reached, or more moves)")

    def expand(self, keys: np.ndarray) -> Expansion | None:
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        n = len(keys)
        player = np.empty(n, dtype=np.int8)
        first = np.empty(n + 1, dtype=np.int64)
        returns = np.empty((n, self.players), dtype=np.int64)
        pieces: list[np.ndarray] = []
        firsts: list[np.ndarray] = []
        capacity = max(BATCH_EDGES, self.actions)
        buffer = np.empty(capacity, dtype=np.uint64)
        offsets = np.empty(n + 1, dtype=np.int64)
        done = 0
        while done < n:
            count = self.library.gdl_graph_expand(
                _pointer(keys[done:], _u64p), n - done, player[done:].ctypes.data,
                _pointer(offsets, _i64p), _pointer(buffer, _u64p), capacity,
                _pointer(returns[done:], _i64p))
            if count < 0:
                return None
            firsts.append(offsets[1:count + 1] + sum(len(p) for p in pieces))
            pieces.append(buffer[:offsets[count]].copy())
            done += count
        first[0] = 0
        if firsts:
            first[1:] = np.concatenate(firsts)
        child = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint64)
        return Expansion(player, first, child, returns)

    def reach(self, root_key: int, limit: int, progress=None) -> Reached:
        library = self.library
        walk = library.gdl_reach_new(root_key)
        if not walk:
            raise MemoryError("no memory for the position walk")
        counts = np.zeros(3, dtype=np.int64)
        try:
            while True:
                status = library.gdl_reach_step(walk, STEP, limit)
                library.gdl_reach_counts(walk, _pointer(counts, _i64p))
                if status == -3:
                    raise MemoryError("the position walk ran out of memory")
                if status == -1:
                    return Reached(None, 0, "rule error")
                if status == -2:
                    return Reached(None, 0, "too many")
                if progress is not None:
                    progress(int(counts[1]), int(counts[0]))
                if status == 0:
                    break
            keys = np.empty(int(counts[0]), dtype=np.uint64)
            library.gdl_reach_take(walk, _pointer(keys, _u64p))
            return Reached(keys, int(counts[2]), "done")
        finally:
            library.gdl_reach_free(walk)
