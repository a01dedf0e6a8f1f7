"""The position database of format 2: a ranked solve's codes, in chunks compressed apart.

File (all integers little-endian; the framing of format 1, gdl.graph.database)::

    b"GDLPOS2\\n"                       magic, 8 bytes
    uint32 header length, then the header: UTF-8 JSON
    uint32 sections; per section: uint64 compressed length, then zlib data

The header holds what format 1's does (``binding``, ``source``, ``game``, ``players``,
``positions``, ``method``, ``exact``, ``note``, the ``values`` table) and:

- ``ranking``: the layout (gdl.graph.rank.Layout.to_json): fixed cells, components with how
  their configurations are made, weights. A reader rebuilds the ranking from it, without the
  game's rules.
- ``tiers``: per tier, lowest first: ``tier``, ``size`` (slots), ``target`` (its remaining
  weight at the first component), ``fixed`` (the fixed cells' values) and ``chunks``.
- ``record``: ``{"layout": "ranked", "width": 1 or 2, "span": M, "chunk": slots}``: each slot
  is a little-endian code of ``width`` bytes: 0 for a slot no reachable position holds, else
  ``1 + value index * M + remoteness``. A game whose positions can repeat adds ``"none":
  M - 1``, the remoteness that stands for none (a draw); its ``values`` may then repeat, and
  hold null for a draw without a value.

The sections are the tiers' chunks in order, each ``chunk`` slots (the tier's last one fewer)
compressed on its own: writers may compress them in parallel, and a reader inflates only the
chunk it looks in. A lookup ranks the state (its fixed values and weights find the tier: where
several tiers share them, the one whose slot is reached) and reads one code.

Opening checks, as for format 1, every header field before following it, each chunk's size
against what zlib could make of its bytes, every code against the table, and the count of
reached slots against ``positions``: a damaged file is a ``DatabaseError`` at open.
"""

from __future__ import annotations

import json
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np

from gdl.graph import rank

MAGIC = b"GDLPOS2\n"
VERSION = 2
CHUNK = 1 << 20                 # slots a chunk
CACHED_CHUNKS = 8               # chunks a reader keeps inflated


def save(solution, path: str | Path, binding: dict, source: str = "") -> int:
    """Write a ``RankedSolution`` (gdl.graph.rank_solution) to ``path``, atomically; returns
    the file's size in bytes. Chunks are compressed by a pool of threads (zlib lets go of the
    GIL); the file is the same bytes whatever the pool."""
    from gdl.graph.database import LEVEL, encode_value, write_file

    info = solution.game.info
    values: list = []
    if solution.pairs is not None:        # one entry a pair (lo, hi): its value, or None
        centres = [solution.pairs.centre(i) for i in range(len(solution.pairs.lower))]
    else:
        centres = list(solution.table)
    for score in centres:
        if score is None:
            values.append(None)
            continue
        u0 = (Fraction(score, solution.scale) + solution.total) / 2
        values.append([encode_value(_plain(u0)), encode_value(_plain(solution.total - u0))])
    tiers, jobs = [], []
    for record in solution.records:
        chunks = max(1, -(-record.size // CHUNK))
        tiers.append({"tier": record.value, "size": record.size, "target": record.target,
                      "fixed": list(record.fixed), "chunks": chunks})
        jobs += [(record, start) for start in range(0, chunks * CHUNK, CHUNK)]
    dtype = solution.dtype
    width = np.dtype(dtype).itemsize

    def compress(job) -> bytes:
        record, start = job
        count = max(0, min(CHUNK, record.size - start))
        codes = np.fromfile(solution.files.path(record.value, "codes"), dtype=dtype,
                            count=count, offset=start * width)
        return zlib.compress(codes.astype(f"<u{width}").tobytes(), LEVEL)

    with ThreadPoolExecutor(max_workers=_workers(len(jobs))) as pool:
        sections = list(pool.map(compress, jobs))
    header = {
        "format": VERSION, "binding": binding, "source": source, "game": info.name,
        "players": list(info.players), "positions": solution.positions,
        "method": solution.method, "exact": solution.exact, "note": solution.note,
        "values": values, "ranking": solution.layout.to_json(), "tiers": tiers,
        "record": {"layout": "ranked", "width": width, "span": solution.M, "chunk": CHUNK},
    }
    if solution.pairs is not None:
        header["record"]["none"] = solution.M - 1
    return write_file(Path(path), header, sections, MAGIC)


def _workers(jobs: int) -> int:
    import os

    return max(1, min(jobs, os.cpu_count() or 1))


def _plain(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


class RankedDatabase:
    """A database of format 2, opened for lookups (the interface of
    gdl.graph.database.PositionDatabase: ``lookup``, ``exact``, ``len``, ``header``)."""

    def __init__(self, path: str, header: dict, chunks: list[bytes]):
        from gdl.graph.database import decode_value

        self.path = path
        self.header = header
        record = header["record"]
        self.width, self.span, self.chunk = record["width"], record["span"], record["chunk"]
        self.none = record.get("none")
        self.dtype = np.dtype(f"<u{self.width}")
        self.layout = rank.Layout.from_json(header["ranking"])
        self.tables = rank.build_tables(self.layout)
        self.ranker = rank.Ranker(self.layout, self.tables)
        self._values = [None if v is None else tuple(decode_value(x) for x in v)
                        for v in header["values"]]
        self._chunks = chunks
        self._cache: dict[int, np.ndarray] = {}
        self._first: list[int] = []            # per tier: its first chunk
        self._by_key: dict[tuple, list[int]] = {}
        at = 0
        for number, tier in enumerate(header["tiers"]):
            self._first.append(at)
            at += tier["chunks"]
            self._by_key.setdefault((tuple(tier["fixed"]), tier["target"]), []).append(number)

    def __len__(self) -> int:
        return self.header["positions"]

    @property
    def exact(self) -> bool:
        return bool(self.header["exact"])

    def _codes(self, chunk: int) -> np.ndarray:
        found = self._cache.get(chunk)
        if found is None:
            if len(self._cache) >= CACHED_CHUNKS:
                self._cache.pop(next(iter(self._cache)))
            found = self._cache[chunk] = np.frombuffer(zlib.decompress(self._chunks[chunk]),
                                                       dtype=self.dtype)
        return found

    def code(self, state) -> int:
        """The code of a state's slot (0: not a reachable position)."""
        cells = len(self.layout.size)
        try:
            state = tuple(int(v) for v in state)
        except (TypeError, ValueError):
            return 0
        if len(state) != cells or not all(
                0 <= v - low < size for v, low, size in zip(state, self.layout.low,
                                                           self.layout.size)):
            return 0
        target = self.ranker.target(state)
        if target is None:
            return 0
        fixed = tuple(state[c] for c in self.layout.fixed)
        for number in self._by_key.get((fixed, target), []):
            r = self.ranker.rank(state, fixed, target)
            if r is None:
                return 0
            code = int(self._codes(self._first[number] + r // self.chunk)[r % self.chunk])
            if code:
                return code
        return 0

    def lookup(self, state):
        """The value and remoteness of a state, or None if it is not in the database."""
        from gdl.graph.database import Entry

        code = self.code(state)
        if not code:
            return None
        index, remoteness = divmod(code - 1, self.span)
        return Entry(self._values[index], -1 if remoteness == self.none else remoteness)


def parse(path: str, data: bytes, offset: int, header: dict) -> RankedDatabase:
    """A format-2 database from its bytes past the header (``offset``), every field checked
    (a ValueError names the first that is wrong)."""
    from gdl.graph.database import _checked_common, _inflate

    n = _checked_common(header)
    record = header.get("record")
    if not isinstance(record, dict) or record.get("layout") != "ranked":
        raise ValueError("the record layout is not 'ranked'")
    width, span, chunk = record.get("width"), record.get("span"), record.get("chunk")
    if width not in (1, 2) or type(span) is not int or not 1 <= span < 1 << 16 \
            or type(chunk) is not int or not 1 <= chunk <= 1 << 26:
        raise ValueError("the record's width, span or chunk is out of range")
    if "none" in record and record["none"] != span - 1:
        raise ValueError("the record's remoteness for none is not its span less one")
    codes = 1 + len(header["values"]) * span
    if codes > 1 << (8 * width):
        raise ValueError("the codes do not fit the record's width")
    if not isinstance(header.get("ranking"), dict):
        raise ValueError("the ranking is not a JSON object")
    layout = rank.Layout.from_json(header["ranking"])
    tables = rank.build_tables(layout)
    tiers = header.get("tiers")
    if not isinstance(tiers, list):
        raise ValueError("the tiers are not a list")
    expected = []
    for tier in tiers:
        if not isinstance(tier, dict) or not all(type(tier.get(k)) is int for k in
                                                 ("tier", "size", "target", "chunks")):
            raise ValueError("a tier is not numbers")
        size, target, chunks = tier["size"], tier["target"], tier["chunks"]
        if not 0 <= target < tables.nrem or size != int(tables.tier_size[target]) \
                or chunks != max(1, -(-size // chunk)):
            raise ValueError("a tier's size, target or chunks do not match the ranking")
        fixed = tier.get("fixed")
        if not isinstance(fixed, list) or len(fixed) != len(layout.fixed) or not all(
                type(v) is int for v in fixed):
            raise ValueError("a tier's fixed values are not one integer a fixed cell")
        expected += [width * max(0, min(chunk, size - start))
                     for start in range(0, chunks * chunk, chunk)]
    (count,) = struct.unpack_from("<I", data, offset)
    offset += 4
    if count != len(expected):
        raise ValueError(f"{count} sections, where the tiers have {len(expected)} chunks")
    chunks_data, reached = [], 0
    for want in expected:
        (size,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        if offset + size > len(data):
            raise ValueError("the file is truncated")
        compressed = data[offset:offset + size]
        values = np.frombuffer(_inflate(compressed, want), dtype=f"<u{width}")
        if len(values) and int(values.max()) >= codes:
            raise ValueError("a code points outside the value table")
        reached += int(np.count_nonzero(values))
        chunks_data.append(compressed)
        offset += size
    if offset != len(data):
        raise ValueError("trailing bytes after the last section")
    if reached != n:
        raise ValueError(f"{reached:,} positions in the chunks, where the header says {n:,}")
    return RankedDatabase(path, header, chunks_data)


def header_json(data: bytes) -> tuple[dict, int]:
    """The header and the offset past it."""
    offset = len(MAGIC)
    (length,) = struct.unpack_from("<I", data, offset)
    offset += 4
    if offset + length > len(data):
        raise ValueError("the file is truncated")
    header = json.loads(data[offset:offset + length].decode("utf-8"))
    if not isinstance(header, dict):
        raise ValueError("the header is not a JSON object")
    return header, offset + length
