"""The merge of a tiered solve: the position database written from the tier results, byte for
byte the file ``gdl.graph.database.save`` writes for the single-graph solve (same sorted keys,
value table in order of first use, record layout, header), a bucket of keys at a time.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph.database import LEVEL, VERSION, record_layout, record_sections, write_file
from gdl.graph.tier_expand import byte_passes
from gdl.graph.tier_run import TierRun
from gdl.graph.tier_solution import TieredSolution
from gdl.graph.tier_solve import game_ends, range_value
from gdl.graph.tier_store import DrawRange, FloatTable, MappedArray, TierResult, first_use_rows, save_array
from gdl.solvers.result import SolverError

# Positions the merge sorts at a time: its memory is about 60 bytes a position of one bucket.
MERGE_BUCKET = 1 << 20


class _KeyPlan:
    """The database's key section as the tiers' sorted key files give it: the key encoding, and
    the key ranges (buckets) the merge takes one at a time."""

    def __init__(self, run: TierRun, tiers: list[list[int]]):
        self.run = run
        self.keys = [MappedArray(run.path(t, "keys.npy")) for t, _ in tiers]
        self.total = sum(len(keys) for keys in self.keys)
        internal = max([keys.dtype.itemsize for keys in self.keys] + [1])
        lengths: set[int] = set()
        self.packed = run.native is not None    # uint64 keys: states of one length, byte cells
        if self.packed:
            lengths = {len(run.native.codec.size)}
        for keys in self.keys if not self.packed else []:
            if len(keys):
                rows = keys[:].view(np.uint8).reshape(len(keys), -1)
                lengths.update(np.unique(rows[:, 0]).tolist())
        self.longest = max(lengths, default=0)
        self.same = len(lengths) <= 1
        self.kind, self.width = ("u8", self.longest) if self.same else ("u8v", self.longest + 1)
        self.internal = internal
        self.dtype = np.dtype(np.uint64) if self.packed else np.dtype(f"S{internal}")
        self.buckets = _buckets([_Keys(keys) for keys in self.keys], self.total, self.dtype)

    def ranges(self, low, high) -> list[tuple[int, int]]:
        """Each tier's ``[a, b)`` of keys in the bucket ``[low, high)``."""
        out = []
        for keys in self.keys:
            a = 0 if low is None else keys.searchsorted(self.dtype.type(low))
            b = len(keys) if high is None else keys.searchsorted(self.dtype.type(high))
            out.append((a, b))
        return out

    def sorted_bucket(self, ranges) -> tuple[np.ndarray, np.ndarray] | None:
        """The bucket's keys in order: ``(order, raw key bytes)``, ``order`` indexing the
        concatenation of the tiers' ranges; None for an empty bucket."""
        keys = [k[a:b].astype(self.dtype) for k, (a, b) in zip(self.keys, ranges)
                if a < b]
        if not keys:
            return None
        bucket_keys = np.concatenate(keys)
        order = np.argsort(bucket_keys, kind="stable")
        if self.packed:
            raw = self.run.native.expander.key_bytes(bucket_keys[order])
        else:
            raw = bucket_keys[order].view(np.uint8).reshape(len(order), self.internal)
            raw = raw[:, 1:1 + self.longest] if self.same else raw[:, :self.width]
        if raw.shape[1] < self.width:
            raw = np.pad(raw, ((0, 0), (0, self.width - raw.shape[1])))
        return order, raw


@dataclass
class _Keys:
    keys: Any                       # a MappedArray tier file


def key_section(run: TierRun, tiers: list[list[int]],
                bucket_done: Callable[[int], None] = lambda number: None) -> bytes:
    """The database's first section (every key, sorted, compressed): it needs only the forward
    pass's files, so with several workers it is written while the tiers are solved
    (``tiered_solve(..., prepare_merge=True)``) instead of after them. Each bucket's sort order
    is saved for the merge's records, and ``bucket_done(number)`` called, before the bucket's
    keys are compressed."""
    plan = _KeyPlan(run, tiers)
    stream = _Stream()
    for number, (low, high) in enumerate(plan.buckets):
        bucket = plan.sorted_bucket(plan.ranges(low, high))
        if bucket is not None:
            # the merge needs this order again for the records: kept, not sorted twice
            save_array(_order_path(run, number),
                        bucket[0].astype(np.uint32 if len(bucket[0]) < 1 << 32 else np.int64))
        bucket_done(number)
        if bucket is not None:
            stream.write(np.ascontiguousarray(bucket[1]).tobytes())
    return stream.finish()


class KeySectionWriter:
    """``key_section`` written by a thread of this process while the workers solve the tiers
    (zlib, numpy's sort and the C decoding of packed keys let go of the GIL). The merge can
    write a bucket's records as soon as the thread has saved that bucket's order
    (``wait_for_bucket``), while the thread compresses the next buckets' keys."""

    def __init__(self, run: TierRun, tiers: list[list[int]]):
        from concurrent.futures import ThreadPoolExecutor

        self._ready = 0                  # buckets whose order is saved
        self._finished = False
        self._condition = threading.Condition()
        pool = ThreadPoolExecutor(1, thread_name_prefix="gdl-key-section")
        self._future = pool.submit(self._write, run, tiers)
        pool.shutdown(wait=False)

    def _write(self, run: TierRun, tiers: list[list[int]]) -> bytes:
        try:
            return key_section(run, tiers, self._bucket_done)
        finally:
            with self._condition:
                self._finished = True
                self._condition.notify_all()

    def _bucket_done(self, number: int) -> None:
        with self._condition:
            self._ready = number + 1
            self._condition.notify_all()

    def wait_for_bucket(self, number: int) -> None:
        """Return once bucket ``number``'s order file is saved (raise the thread's error)."""
        with self._condition:
            self._condition.wait_for(lambda: self._ready > number or self._finished)
        if self._ready <= number:
            self._future.result()
            raise SolverError(f"the key section ended before bucket {number}")

    def result(self) -> bytes:
        return self._future.result()


def _order_path(run: TierRun, bucket: int) -> Path:
    return run.directory / f"merge-order-{bucket}.npy"


def _first_use(ranked: np.ndarray, entries: int) -> np.ndarray:
    """The distinct entries of ``ranked`` in order of first occurrence."""
    first = np.full(entries, len(ranked), dtype=np.int64)
    np.minimum.at(first, ranked, np.arange(len(ranked), dtype=np.int64))
    present = np.flatnonzero(first < len(ranked))
    return present[np.argsort(first[present], kind="stable")]


def _provisional_ids(tables: list, stored: Callable, passes: Any = None
                     ) -> tuple[list[np.ndarray], list]:
    """Every distinct value vector of the tiers' tables, numbered: per table, each entry's
    number, and the vectors by number. Vectors equal as Python values are one (the one met
    first is kept: a float table's (1.0, -1.0) and an exact table's (1, -1) are one vector, as
    in a dict). A float table (``FloatTable``: Pig to 100 has two million rows) is numbered
    with numpy: its rows with a fraction part can equal no integer vector, so only those
    without one (a handful) go through the dict, the others are told apart by their bits
    (-0.0 made 0.0 first: it has no fraction part, so never among them)."""
    provisional: dict = {}
    ids: list = []
    fractional: list[tuple[int, np.ndarray, np.ndarray]] = []     # (table, rows at, rows)
    for number, table in enumerate(tables):
        if isinstance(table, FloatTable) and table.rows.ndim == 2 and len(table.rows):
            rows = table.rows
            whole = np.all(rows == np.floor(rows), axis=1)
            mine = np.zeros(len(rows), dtype=np.int64)
            at = np.flatnonzero(whole)
            mine[at] = [provisional.setdefault(stored(tuple(row)), len(provisional))
                        for row in rows[at].tolist()]
            rest = np.flatnonzero(~whole)
            fractional.append((number, rest, rows[rest]))
            ids.append(mine)
        else:
            ids.append(np.array([provisional.setdefault(stored(v), len(provisional))
                                 for v in table] or [0], dtype=np.int64))
    entries = list(provisional)
    if fractional and any(type(x) is float and not x.is_integer()
                          for entry in entries if type(entry) is tuple for x in entry):
        # a float with a fraction part in another kind of table: one dict for all, as it was
        ids = [np.array([provisional.setdefault(stored(v), len(provisional)) for v in table]
                        or [0], dtype=np.int64) for table in tables]
        return ids, list(provisional)
    if fractional:
        rows = np.concatenate([found for _, _, found in fractional])
        first_at, group = first_use_rows(rows, passes)
        entries += list(map(tuple, rows[first_at].tolist()))
        numbered = len(provisional) + group
        start = 0
        for number, at, found in fractional:
            ids[number][at] = numbered[start:start + len(found)]
            start += len(found)
    return ids, entries


def merge_database(solution: TieredSolution, path: str | Path, binding: dict,
                   source: str = "") -> int:
    """Write the position database of a tiered solve, byte-identical to what
    ``gdl.graph.database.save`` writes for the single-graph solve; returns its size in bytes.

    The tiers' sorted key arrays are merged a bucket of key ranges at a time (the bounds drawn
    from a sample of the keys), each bucket's keys and records streamed through zlib, so memory
    holds one bucket, not the game. The value table is numbered in order of first use by sorted
    rank, as ``save`` numbers it. The key section comes from ``solution.key_section`` when the
    solve prepared it."""
    run = solution.run
    if solution.ranked is not None:        # ranked tables: a database of format 2
        from gdl.graph.database import save

        return save(solution.ranked, path, binding, source)
    parts = [TierResult.load(run, t, mapped=True) for t, _ in solution.tiers]
    plan = _KeyPlan(run, solution.tiers)
    prepared = solution.key_section
    # every distinct value vector, numbered provisionally; `number` renumbers by first use
    info = run.game.info

    def stored(entry):
        return range_value(entry, info, game_ends(run)) if isinstance(entry, DrawRange) else entry

    part_ids, entries = _provisional_ids([part.table for part in parts], stored,
                                         byte_passes(run.game))
    number = np.full(len(entries), -1, dtype=np.int64)
    used = 0
    highest = max([int(np.max(part.remoteness[:], initial=0)) for part in parts] + [0])
    record = record_layout(len(entries), highest)
    streams = [_Stream() for _ in range(2 if record["layout"] == "packed16" else 3)]
    for bucket_number, (low, high) in enumerate(plan.buckets):
        ranges = plan.ranges(low, high)
        if prepared is None:
            bucket = plan.sorted_bucket(ranges)
            if bucket is None:
                continue
            order, raw = bucket
            streams[0].write(np.ascontiguousarray(raw).tobytes())
        else:
            if not any(a < b for a, b in ranges):
                continue
            prepared.wait_for_bucket(bucket_number)
            order_path = _order_path(run, bucket_number)
            order = np.load(order_path).astype(np.int64)       # the key section's sort
            order_path.unlink()
        index = [ids[part.index[a:b]]
                 for part, ids, (a, b) in zip(parts, part_ids, ranges) if a < b]
        remoteness = [part.remoteness[a:b].astype(np.int64)
                      for part, (a, b) in zip(parts, ranges) if a < b]
        ranked = np.concatenate(index)[order]
        fresh_in_order = _first_use(ranked, len(entries))
        fresh_in_order = fresh_in_order[number[fresh_in_order] < 0]
        number[fresh_in_order] = np.arange(used, used + len(fresh_in_order))
        used += len(fresh_in_order)
        value_index = number[ranked]
        rank_remoteness = np.concatenate(remoteness)[order]
        for stream, data in zip(streams[1:], record_sections(record, value_index,
                                                             rank_remoteness)):
            stream.write(data)
    by_number = np.flatnonzero(number >= 0)
    values = [entries[i] for i in by_number[np.argsort(number[by_number])].tolist()]
    info = run.game.info
    header = {
        "format": VERSION, "binding": binding, "source": source, "game": info.name,
        "players": list(info.players), "positions": plan.total, "method": solution.method,
        "exact": solution.exact, "note": solution.note, "key": plan.kind,
        "key_width": plan.width,
        "values": values, "record": record,         # tuples: JSON writes them as lists
    }
    sections = [stream.finish() for stream in streams]
    if prepared is not None:
        sections[0] = prepared.result()
    return write_file(Path(path), header, sections)


class _Stream:
    """One section, compressed as it comes (the bytes ``zlib.compress(all, LEVEL)`` gives)."""

    def __init__(self):
        self._compressor = zlib.compressobj(LEVEL)
        self._out: list[bytes] = []

    def write(self, data: bytes) -> None:
        self._out.append(self._compressor.compress(data))

    def finish(self) -> bytes:
        self._out.append(self._compressor.flush())
        return b"".join(self._out)


def _buckets(parts: list, total: int, dtype) -> list[tuple]:
    """Key ranges ``[low, high)`` (None: open) of about MERGE_BUCKET positions each, their
    bounds drawn from every part's keys at a regular stride."""
    count = -(-total // MERGE_BUCKET)
    if count <= 1:
        return [(None, None)]
    stride = max(1, total // (count * 16))
    sample = np.sort(np.concatenate([part.keys[::stride].astype(dtype)
                                     for part in parts if len(part.keys)]))
    bounds = np.unique(sample[np.linspace(0, len(sample) - 1, count + 1).astype(np.int64)[1:-1]])
    edges: list = [None, *bounds.tolist(), None]
    return list(pairwise(edges))
