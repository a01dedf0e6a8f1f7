"""The ranked tables' passes in C (gdl/backends/native/rank.c), called through ctypes.

``NativeExpander.ranked(tables)`` (gdl/backends/native/graph.py) gives a ``RankedPasses``: a
context in the library holding a layout's tables (built by gdl.graph.rank, which states the
layout; this module only carries arrays) and, per tier, a bitmap of the slots reached and a
table of codes. gdl.graph reaches it through the expander, never by import. The contract:

- ``seed(state)``, ``forward(tier)``, ``backward(tier)``: the passes (status codes below), on
  ``threads`` threads in C (the same results on any number: rank.c says how), ``cpu()`` the
  CPU seconds those threads have spent in them;
- ``tiers()``, ``tier_info(tier)``, ``scores()``, ``failure()``: what they found;
- ``bits(tier)`` / ``codes(tier)``: a numpy view of a tier's bitmap or codes (None when the
  tier has none), ``allocate(tier, which)`` / ``drop(tier, which)`` to make or free them;
- ``rank(state)`` / ``unrank(tier, rank)``: one state at a time;
- ``encoding(table, M, width)``: the codes of the backward pass, and the census it counts;
  ``cyclic_encoding(...)`` after it for games whose moves may stay inside a tier.

Status codes: 0 done, -1 rule error (or a stuck position, a score beyond 2^60), -2 a state
outside the layout (``failure()``), -3 out of the memory budget, -4 stopped (Ctrl-C), -5 a move
lowering the tier, -6 a tier with too many slots, -7 a move inside the tier (backward pass),
-8 a table missing, -9 a child never reached or a remoteness beyond the encoding, -10 (a tier
whose moves may stay inside it) a remoteness beyond the codes' span.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from gdl.backends.native.runtime import interruptible

_i64p = ctypes.POINTER(ctypes.c_longlong)
_vp = ctypes.c_void_p

# The tables, in the order rank.c's gdl_rank_new reads them, with their dtypes.
TABLES = (("fixed_cells", np.int32), ("comp_cell_start", np.int32), ("comp_cells", np.int32),
          ("cell_stride", np.int64), ("comp_code_start", np.int64), ("idx_table", np.int32),
          ("comp_nconf", np.int64), ("conf_start", np.int64), ("conf_value_start", np.int64),
          ("conf_values", np.int64), ("conf_w", np.int64), ("rem_stride", np.int64),
          ("pre_start", np.int64), ("next_start", np.int64), ("prefix", np.uint32),
          ("nextrem", np.int32), ("tier_size", np.int64), ("tier_cells", np.int32))

STOPPED = -4
# Words of bitmap (64 slots) a threaded pass hands a thread at a time; 0: rank.c chooses (about
# 64 chunks a thread). Tests set 1: many chunks even on a small game, every hand-over exercised.
CHUNK_WORDS = 0


@dataclass
class TierInfo:
    size: int
    target: int
    reached: int
    terminal: int
    edges: int
    inside: bool
    reaches: list[int]
    fixed: tuple[int, ...]


def _declare(library) -> None:
    if getattr(library, "_gdl_rank_declared", False):
        return
    library.gdl_rank_new.restype = _vp
    library.gdl_rank_new.argtypes = [_i64p, ctypes.POINTER(_vp)]
    library.gdl_rank_free.argtypes = [_vp]
    library.gdl_rank_tiers.argtypes = [_vp, _i64p, ctypes.c_int]
    library.gdl_rank_tier_info.argtypes = [_vp, ctypes.c_longlong, _i64p, _i64p, ctypes.c_int, _i64p]
    library.gdl_rank_failure.argtypes = [_vp, _i64p, _i64p]
    library.gdl_rank_buffer.restype = _vp
    library.gdl_rank_buffer.argtypes = [_vp, ctypes.c_longlong, ctypes.c_int]
    library.gdl_rank_alloc.argtypes = [_vp, ctypes.c_longlong, ctypes.c_int]
    library.gdl_rank_drop.argtypes = [_vp, ctypes.c_longlong, ctypes.c_int]
    library.gdl_rank_state.restype = ctypes.c_longlong
    library.gdl_rank_state.argtypes = [_vp, _i64p, _i64p]
    library.gdl_rank_unrank.argtypes = [_vp, ctypes.c_longlong, ctypes.c_longlong, _i64p]
    library.gdl_rank_seed.argtypes = [_vp, _i64p]
    library.gdl_rank_scores.argtypes = [_vp, _i64p, ctypes.c_int]
    library.gdl_rank_forward.argtypes = [_vp, ctypes.c_longlong]
    library.gdl_rank_encoding.argtypes = [_vp, _i64p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                          _i64p]
    library.gdl_rank_backward.argtypes = [_vp, ctypes.c_longlong]
    library.gdl_rank_cyclic_encoding.argtypes = [_vp, _i64p, _i64p, _i64p, _i64p, ctypes.c_int,
                                                 _i64p]
    library.gdl_rank_threads.argtypes = [_vp, ctypes.c_int, ctypes.c_longlong]
    library.gdl_rank_cpu.restype = ctypes.c_double
    library.gdl_rank_cpu.argtypes = [_vp]
    library._gdl_rank_declared = True


def _p64(array: np.ndarray):
    return array.ctypes.data_as(_i64p)


class RankedPasses:
    """One layout's context in the library (see the module docstring). ``close()`` frees it
    (and every table it holds); so does garbage collection."""

    def __init__(self, library, cells: int, tables: dict, header: dict, threads: int = 1):
        _declare(library)
        self.library = library
        self.cells = cells
        # kept alive as long as the context: C holds pointers into them
        self._tables = [np.ascontiguousarray(tables[name], dtype=dtype) for name, dtype in TABLES]
        pointers = (_vp * len(self._tables))(*[t.ctypes.data for t in self._tables])
        self._header = np.array([header[k] for k in (
            "ncomp", "nfixed", "ndims", "nrem", "nplus", "nminus", "total", "slot_limit",
            "budget")], dtype=np.int64)
        self.handle = library.gdl_rank_new(_p64(self._header), pointers)
        if not self.handle:
            raise MemoryError("no memory for the ranked tables")
        library.gdl_rank_threads(self.handle, threads, CHUNK_WORDS)
        self.nfixed = int(header["nfixed"])
        self.width = 0
        self._M = 0
        self._codes: tuple | None = None
        self._cpu = 0.0

    def close(self) -> None:
        if self.handle:
            self._cpu = self.cpu()          # kept: a refined layout's attempt adds it up
            self.library.gdl_rank_free(self.handle)
            self.handle = None

    def __del__(self):
        self.close()

    def _run(self, function, *args) -> int:
        status = interruptible(self.library, lambda: function(self.handle, *args))
        if status == STOPPED:
            raise KeyboardInterrupt
        return status

    def seed(self, state) -> int:
        s = np.array(state, dtype=np.int64)
        return self.library.gdl_rank_seed(self.handle, _p64(s))

    def forward(self, tier: int) -> int:
        return self._run(self.library.gdl_rank_forward, tier)

    def backward(self, tier: int) -> int:
        return self._run(self.library.gdl_rank_backward, tier)

    def cpu(self) -> float:
        """CPU seconds the passes' threads have spent in the threaded passes so far (not the
        sweeps of a tier whose moves may stay inside it: one thread)."""
        return self.library.gdl_rank_cpu(self.handle) if self.handle else self._cpu

    def tiers(self) -> list[int]:
        out = np.zeros(1, dtype=np.int64)
        count = self.library.gdl_rank_tiers(self.handle, _p64(out), 0)
        out = np.zeros(max(1, count), dtype=np.int64)
        self.library.gdl_rank_tiers(self.handle, _p64(out), count)
        return out[:count].tolist()

    def tier_info(self, tier: int) -> TierInfo | None:
        out = np.zeros(7, dtype=np.int64)
        fixed = np.zeros(max(1, self.nfixed), dtype=np.int64)
        reaches = np.zeros(1, dtype=np.int64)
        if self.library.gdl_rank_tier_info(self.handle, tier, _p64(out), _p64(reaches), 0,
                                           _p64(fixed)):
            return None
        reaches = np.zeros(max(1, int(out[6])), dtype=np.int64)
        self.library.gdl_rank_tier_info(self.handle, tier, _p64(out), _p64(reaches),
                                        int(out[6]), _p64(fixed))
        return TierInfo(int(out[0]), int(out[1]), int(out[2]), int(out[3]), int(out[4]),
                        bool(out[5]), sorted(reaches[:int(out[6])].tolist()),
                        tuple(fixed[:self.nfixed].tolist()))

    def failure(self) -> tuple[int, int, int, int, int, tuple[int, ...]]:
        """``(kind, detail, tier, to tier, action, state)`` of the last failure."""
        out = np.zeros(5, dtype=np.int64)
        state = np.zeros(self.cells, dtype=np.int64)
        self.library.gdl_rank_failure(self.handle, _p64(out), _p64(state))
        kind, detail, tier, to_tier, action = out.tolist()
        return kind, detail, tier, to_tier, action, tuple(state.tolist())

    def scores(self) -> list[int]:
        out = np.zeros(1, dtype=np.int64)
        count = self.library.gdl_rank_scores(self.handle, _p64(out), 0)
        out = np.zeros(max(1, count), dtype=np.int64)
        self.library.gdl_rank_scores(self.handle, _p64(out), count)
        return out[:count].tolist()

    def _view(self, tier: int, which: int, size: int) -> np.ndarray | None:
        address = self.library.gdl_rank_buffer(self.handle, tier, which)
        if not address:
            return None
        dtype: Any
        if which == 0:
            count, dtype = (size + 63) // 64, np.uint64
        else:
            count, dtype = size, (np.uint8 if self.width == 1 else np.uint16)
        buffer = (ctypes.c_char * (count * np.dtype(dtype).itemsize)).from_address(address)
        return np.frombuffer(memoryview(buffer).cast("B"), dtype=dtype, count=count)

    def bits(self, tier: int, size: int) -> np.ndarray | None:
        """The tier's reached bitmap (uint64 words), a view valid until it is dropped."""
        return self._view(tier, 0, size)

    def codes(self, tier: int, size: int) -> np.ndarray | None:
        """The tier's codes (uint8 or uint16), a view valid until they are dropped."""
        return self._view(tier, 1, size)

    def allocate(self, tier: int, which: int) -> bool:
        return self.library.gdl_rank_alloc(self.handle, tier, which) == 0

    def drop(self, tier: int, which: int) -> None:
        self.library.gdl_rank_drop(self.handle, tier, which)

    def rank(self, state) -> tuple[int, int] | None:
        """``(tier, rank)`` of a state, or None where it has none."""
        s = np.array(state, dtype=np.int64)
        tier = np.zeros(1, dtype=np.int64)
        found = self.library.gdl_rank_state(self.handle, _p64(s), _p64(tier))
        return None if found < 0 else (int(tier[0]), int(found))

    def unrank(self, tier: int, rank: int) -> tuple[int, ...] | None:
        s = np.zeros(self.cells, dtype=np.int64)
        if self.library.gdl_rank_unrank(self.handle, tier, rank, _p64(s)):
            return None
        return tuple(s.tolist())

    def encoding(self, table: list[int], M: int, width: int) -> np.ndarray:
        """Set the backward pass's codes; returns the census it fills (3 x codes, int64)."""
        scores = np.array(table or [0], dtype=np.int64)
        ncodes = 1 + len(table) * M
        hist = np.zeros(3 * ncodes, dtype=np.int64)
        status = self.library.gdl_rank_encoding(self.handle, _p64(scores), len(table), M, width,
                                                _p64(hist))
        if status == -3:
            raise MemoryError("no memory for the ranked codes")
        if status:
            raise ValueError(f"{ncodes} codes do not fit {width} byte(s)")
        self.width = width
        self._M = M
        self._codes = (scores, hist)          # C reads both
        return hist

    def cyclic_encoding(self, lo: list[int], hi: list[int], value: list[int],
                        flags: list[int]) -> np.ndarray:
        """After ``encoding``: the codes of tiers whose moves may stay inside them (rank.c's
        gdl_rank_cyclic_encoding: a value index is a pair of extended score indices, with the
        pair's value and flags); returns the census it fills (3 x codes, int64)."""
        arrays = [np.array(a or [0], dtype=np.int64) for a in (lo, hi, value, flags)]
        assert self._codes is not None
        scores, _ = self._codes
        ncodes = 1 + len(lo) * self._M
        hist = np.zeros(3 * ncodes, dtype=np.int64)
        status = self.library.gdl_rank_cyclic_encoding(self.handle, *[_p64(a) for a in arrays],
                                                       len(lo), _p64(hist))
        if status == -3:
            raise MemoryError("no memory for the ranked codes")
        if status:
            raise ValueError(f"{ncodes} codes do not fit {self.width} byte(s), or a bad pair")
        self._codes = (scores, hist, arrays)          # C reads them all
        return hist
