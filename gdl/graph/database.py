"""The position database: a strong solve saved to a file, bound to the rules it came from.

File format (version 1; all integers little-endian)::

    b"GDLPOS1\\n"                       magic, 8 bytes
    uint32 header length, then the header: UTF-8 JSON
    uint32 sections; per section: uint64 compressed length, then zlib data

The header holds ``binding`` (what the file is bound to: the caller's choice; the command line
stores the SHA-256 of the rule file and the ``--set`` values), the game's name and players,
``positions``, the solve ``method``, ``exact``, the key encoding ``key`` ("u8": each state
component one byte, or "i32": four bytes, signed; "u8v" / "i32v": the number of components
first, then zeros to the width, for states of different lengths) with ``key_width`` bytes a
position, the
``values`` table (every distinct value vector, exact fractions as "p/q" strings, floats in an
approximate database, null for a draw), and the record layout ``record``.

Sections, each one zlib-compressed numpy array, positions in the order of their sorted keys:

1. keys: ``positions x key_width`` bytes, sorted: a lookup is a binary search;
2. records: ``record = "packed16"``: one uint16 a position, the value's table index in the top
   bits and the remoteness in the low ``remoteness_bits`` (all ones: none, a draw or a game
   with chance), 2 bytes a position whenever the table has at most 4 entries (win, lose, tie,
   draw) and no remoteness reaches 2^14 - 1; otherwise ``record = "split"``: a value index array
   (uint8/16/32) and a remoteness array (int32, -1: none).

Writing goes to a temporary file beside the target, renamed into place only when complete:
an interrupted save leaves no half-written database. Opening checks the magic, the lengths and
the binding: a corrupt, truncated or stale file is refused with ``DatabaseError``, a message
that says which.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import BinaryIO

import numpy as np

from gdl.graph.solution import TwoPlayerValues
from gdl.solvers.result import SolverError

MAGIC = b"GDLPOS1\n"
VERSION = 1
# zlib's level for every section, in both writers (``save`` and gdl.graph.tiers' merge, whose
# bytes must agree). 1, not 6: the key section is most of a large database (Connect Four 6x4:
# 2.9 GB of key bytes), and at 6 compressing it alone took longer than solving the game by tiers
# on two cores; on Connect Four 5x4's keys level 1 is 6.8 times faster (0.76 s against 5.2 s)
# for 26% more bytes. Readers do not depend on the level.
LEVEL = 1


class DatabaseError(SolverError):
    """A position database that cannot be used: missing, corrupt, or built from other rules."""


def _encode_value(v):
    if v is None:
        return None
    if isinstance(v, float):
        return v
    if isinstance(v, Fraction) and v.denominator != 1:
        return f"{v.numerator}/{v.denominator}"
    return int(v)


def _decode_value(v):
    if isinstance(v, str):
        return Fraction(v)
    return v


def _encode_key(state, kind: str, width: int) -> bytes | None:
    """A state's fixed-width key: its components as bytes ("u8") or little-endian int32s
    ("i32"); "u8v" / "i32v" put the number of components first and pad with zeros (states of
    different lengths, such as a chance node's pending outcome)."""
    try:
        if kind.startswith("u8"):
            body = bytes(state)
            key = (bytes([len(body)]) + body) if kind == "u8v" else body
        else:
            items = ([len(state)] if kind == "i32v" else []) + list(state)
            if not all(type(x) is int and -2**31 <= x < 2**31 for x in items):
                return None
            key = np.array(items, dtype="<i4").tobytes()
    except (TypeError, ValueError, OverflowError):
        return None
    if len(key) > width:
        return None
    return key + bytes(width - len(key))


def _keys(solution) -> tuple[np.ndarray, str, int]:
    graph = solution.graph
    n = len(graph)
    if graph.codec is not None:
        return _packed_keys(graph)
    states = [graph.state(p) for p in range(n)]
    if not all(type(s) is tuple and all(type(x) is int for x in s) for s in states):
        raise DatabaseError("only games whose states are tuples of integers can be saved")
    lengths = {len(s) for s in states}
    same = len(lengths) == 1
    longest = max(lengths, default=0)
    if graph.packed and (same or longest < 256):
        kind, width = ("u8", longest) if same else ("u8v", longest + 1)
    elif all(-2**31 <= x < 2**31 for s in states for x in s):
        kind, width = ("i32", 4 * longest) if same else ("i32v", 4 * (longest + 1))
    else:
        raise DatabaseError("state components beyond 32-bit integers cannot be saved")
    keys = [_encode_key(s, kind, width) for s in states]
    if any(key is None for key in keys):
        raise DatabaseError("a state could not be encoded as a key")
    joined = b"".join(key for key in keys if key is not None)
    raw = np.frombuffer(joined, dtype=np.uint8).reshape(n, width)
    return raw, kind, width


def _packed_keys(graph) -> tuple[np.ndarray, str, int]:
    """``_keys`` for a graph of packed int keys (gdl.graph.packed), decoded with numpy: the
    same bytes as the per-state path (states of one length: "u8" when every component is a
    byte, else "i32"). Decoded a chunk at a time into bytes: the int64 states of Connect Four
    6x4 at once would take 23 GB."""
    keys, cells = graph.keys, len(graph.codec.size)
    raw = np.empty((len(keys), cells), dtype=np.uint8)
    for start in range(0, len(keys), CHUNK):
        chunk = graph.codec.decode_many(keys[start:start + CHUNK])
        if chunk.min() < 0 or chunk.max() > 255:
            break
        raw[start:start + CHUNK] = chunk
    else:
        return raw, "u8", cells
    del raw
    states = graph.codec.decode_many(graph.keys)
    if states.min() < -2**31 or states.max() >= 2**31:
        raise DatabaseError("state components beyond 32-bit integers cannot be saved")
    raw = np.ascontiguousarray(states.astype("<i4")).view(np.uint8).reshape(len(states), 4 * cells)
    return raw, "i32", 4 * cells


# Positions a chunk: the packed keys are decoded, and the key section compressed, this many at
# a time.
CHUNK = 1 << 20


def _compressed_rows(raw: np.ndarray, order: np.ndarray) -> bytes:
    """``zlib.compress(raw[order].tobytes(), LEVEL)``, a chunk of rows at a time (the same
    bytes: deflate's output does not depend on how its input is fed)."""
    if not len(order):
        return zlib.compress(b"", LEVEL)
    compressor = zlib.compressobj(LEVEL)
    out = [compressor.compress(np.ascontiguousarray(raw[order[start:start + CHUNK]]).tobytes())
           for start in range(0, len(order), CHUNK)]
    out.append(compressor.flush())
    return b"".join(out)


def save(solution, path: str | Path, binding: dict, source: str = "") -> int:
    """Write ``solution`` to ``path`` (atomically); returns the file's size in bytes."""
    graph = solution.graph
    n = len(graph)
    raw, key, width = _keys(solution)
    if graph.codec is not None and key == "u8":
        order = np.argsort(graph.keys, kind="stable")   # packed keys sort as the byte rows do
    else:
        order = np.lexsort(raw.T[::-1]) if width else np.arange(n)
    table, value_index, remoteness = _records(solution, order)
    record = record_layout(len(table), int(remoteness.max(initial=0)))
    sections = record_sections(record, value_index, remoteness)
    info = graph.game.info
    header = {
        "format": VERSION, "binding": binding, "source": source, "game": info.name,
        "players": list(info.players),
        "positions": n, "method": solution.method, "exact": solution.exact,
        "note": solution.note, "key": key, "key_width": width,
        "values": [None if v is None else list(v) for v in table], "record": record,
    }
    return write_file(Path(path), header, [_compressed_rows(raw, order)]
                      + [zlib.compress(section, LEVEL) for section in sections])


def record_layout(values: int, highest_remoteness: int) -> dict:
    """The records' layout for ``values`` distinct value vectors: ``packed16`` where the value
    index and the remoteness (all ones: none) fit in 16 bits together, else ``split``."""
    bits_for_index = max(1, (values - 1).bit_length())
    remoteness_bits = 16 - bits_for_index
    none = (1 << max(remoteness_bits, 0)) - 1     # over 2^16 values: no packed16
    if remoteness_bits >= 8 and highest_remoteness < none:
        return {"layout": "packed16", "remoteness_bits": remoteness_bits}
    dtype = "<u1" if values <= 256 else "<u2" if values <= 65536 else "<u4"
    return {"layout": "split", "index_dtype": dtype}


def record_sections(record: dict, value_index: np.ndarray, remoteness: np.ndarray) -> list[bytes]:
    """Positions' records (in key order) in ``record``'s layout, uncompressed: one section for
    ``packed16``, two (the value indices, then the remoteness) for ``split``. The merge of a
    tiered solve writes them a bucket at a time: concatenated, the same bytes."""
    if record["layout"] == "packed16":
        bits = record["remoteness_bits"]
        none = (1 << bits) - 1
        packed = (value_index << bits) | np.where(remoteness < 0, none, remoteness)
        return [packed.astype("<u2").tobytes()]
    return [value_index.astype(record["index_dtype"]).tobytes(),
            remoteness.astype("<i4").tobytes()]


def _records(solution, order: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray]:
    """The value table (encoded vectors numbered in order of first appearance, in key order) and,
    in key order, each position's index into it and its remoteness."""
    values = solution.values
    if isinstance(values, TwoPlayerValues):
        # Few distinct intervals and millions of positions: encode each distinct (lower, upper)
        # once, numbered as the per-position loop below would number them.
        pairs = np.stack([values.lower[order], values.upper[order]], axis=1)
        distinct, first, inverse = np.unique(pairs, axis=0, return_index=True,
                                              return_inverse=True)
        table: dict = {}
        index_of = np.empty(len(distinct), dtype=np.int64)
        for d in np.argsort(first, kind="stable").tolist():
            value = solution.value(int(order[int(first[d])]))
            encoded = None if value is None else tuple(_encode_value(v) for v in value)
            index_of[d] = table.setdefault(encoded, len(table))
        remoteness = values.remoteness[order].astype(np.int64)
        return table, index_of[inverse.reshape(-1)], remoteness
    table = {}
    n = len(order)
    value_index = np.empty(n, dtype=np.int64)
    remoteness = np.empty(n, dtype=np.int64)
    for rank, position in enumerate(order.tolist()):
        value = solution.value(position)
        encoded = None if value is None else tuple(_encode_value(v) for v in value)
        value_index[rank] = table.setdefault(encoded, len(table))
        remoteness[rank] = solution.remoteness(position)
    return table, value_index, remoteness


def write_file(path: Path, header: dict, compressed_sections: list[bytes]) -> int:
    """The database file (see the module docstring) from its header and its zlib-compressed
    sections, written atomically; its size in bytes. The single-graph save and the tiers'
    merge (gdl.graph.tiers) both write through here, so their bytes agree by construction."""
    blob = json.dumps(header, sort_keys=True).encode("utf-8")

    def write(out) -> None:
        out.write(MAGIC)
        out.write(struct.pack("<I", len(blob)))
        out.write(blob)
        out.write(struct.pack("<I", len(compressed_sections)))
        for data in compressed_sections:
            out.write(struct.pack("<Q", len(data)))
            out.write(data)

    atomic_write(path, write)
    return path.stat().st_size


def private_directory(path: Path) -> None:
    """Create ``path`` (mode 0700) or check the one there: a directory, not a symbolic link,
    owned by this user and writable by nobody else, in a parent where nobody else can rename
    it away (their own, or sticky like /tmp). Otherwise a SolverError that says how to fix it.
    Tier files hold no code (numpy arrays without pickles, JSON), but another user who could
    write them could still change the answers (docs/security.md)."""
    import stat

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    parent = os.stat(path.parent)
    others = stat.S_IWGRP | stat.S_IWOTH
    problem = (
        "is not a directory" if not stat.S_ISDIR(info.st_mode) else
        "belongs to another user" if info.st_uid != os.getuid() else
        "is writable by other users" if info.st_mode & others else
        "is in a directory other users can write to and rename it in"
        if parent.st_mode & others and not parent.st_mode & stat.S_ISVTX
        and parent.st_uid != os.getuid() else None)
    if problem is not None:
        raise SolverError(f"{path} {problem}: gdl keeps its tier files only in a private "
                          "directory; choose another --tier-dir (or --save place), or make it "
                          f"yours with `chmod 700 {path}`")


def atomic_write(path: Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write ``data`` (bytes, or a function writing to a binary file) to a temporary file beside
    ``path``, then rename it into place: an interrupted save (Ctrl-C included) never leaves a
    half-written file behind."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial",
                                         dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            if callable(data):
                data(out)
            else:
                out.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


@dataclass
class Entry:
    """What the database knows about one position."""

    values: tuple | None        # one value per player; None for a draw (endless play)
    remoteness: int             # -1: none (a draw, or a game with chance or more players)


class PositionDatabase:
    """A saved strong solve, opened for lookups: ``db.lookup(state)`` → ``Entry`` or None."""

    def __init__(self, path: str | Path, binding: dict | None = None):
        self.path = str(path)
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            raise DatabaseError(f"{path}: no such database") from None
        except OSError as error:
            raise DatabaseError(f"{path}: cannot be read ({error.strerror})") from None
        try:
            self._parse(data)
        except (ValueError, KeyError, TypeError, struct.error, zlib.error, json.JSONDecodeError,
                UnicodeDecodeError) as error:
            raise DatabaseError(f"{path}: not a valid gdl position database, or damaged "
                                f"({type(error).__name__}: {error}); solve again with --save"
                                ) from None
        if binding is not None and binding != self.header["binding"]:
            raise DatabaseError(self._stale(binding))

    def _parse(self, data: bytes) -> None:
        if not data.startswith(MAGIC):
            raise ValueError("the file does not start with the gdl position database mark")
        offset = len(MAGIC)
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4
        self.header = header = json.loads(data[offset:offset + length].decode("utf-8"))
        offset += length
        if header.get("format") != VERSION:
            raise ValueError(f"format {header.get('format')!r}, this gdl reads {VERSION}")
        (count,) = struct.unpack_from("<I", data, offset)
        offset += 4
        sections = []
        for _ in range(count):
            (size,) = struct.unpack_from("<Q", data, offset)
            offset += 8
            if offset + size > len(data):
                raise ValueError("the file is truncated")
            sections.append(zlib.decompress(data[offset:offset + size]))
            offset += size
        if offset != len(data):
            raise ValueError("trailing bytes after the last section")
        n, width = header["positions"], header["key_width"]
        keys = np.frombuffer(sections[0], dtype=np.uint8)
        if len(keys) != n * width:
            raise ValueError("the key section has the wrong length")
        self._keys = keys.view(f"S{width}") if width else np.zeros(n, dtype="S1")
        record = header["record"]
        if record["layout"] == "packed16":
            packed = np.frombuffer(sections[1], dtype="<u2").astype(np.int64)
            bits = record["remoteness_bits"]
            self._index = packed >> bits
            self._remoteness = packed & ((1 << bits) - 1)
            self._remoteness[self._remoteness == (1 << bits) - 1] = -1
        else:
            self._index = np.frombuffer(sections[1], dtype=record["index_dtype"])
            self._remoteness = np.frombuffer(sections[2], dtype="<i4")
        if len(self._index) != n or len(self._remoteness) != n:
            raise ValueError("the record section has the wrong length")
        self._values = [None if v is None else tuple(_decode_value(x) for x in v)
                        for v in header["values"]]
        if n and int(self._index.max()) >= len(self._values):
            raise ValueError("a record points outside the value table")
        if n > 1 and not bool(np.all(self._keys[:-1] < self._keys[1:])):
            raise ValueError("the keys are not sorted")

    def _stale(self, binding: dict) -> str:
        stored = self.header["binding"]
        differences = [k for k in sorted(set(binding) | set(stored))
                       if binding.get(k) != stored.get(k)]
        return (f"{self.path}: this database was built from other rules ({', '.join(differences)} "
                f"differ: it was saved for {self.header.get('source') or '?'} with "
                f"{_show_params(stored.get('params'))}); solve again with --save")

    def __len__(self) -> int:
        return self.header["positions"]

    @property
    def exact(self) -> bool:
        return bool(self.header["exact"])

    def _key(self, state) -> bytes | None:
        return _encode_key(state, self.header["key"], self.header["key_width"])

    def lookup(self, state) -> Entry | None:
        """The value and remoteness of a state, or None if it is not in the database."""
        key = self._key(state)
        if key is None:
            return None
        probe = np.array([key], dtype=self._keys.dtype)
        at = int(np.searchsorted(self._keys, probe[0]))
        if at >= len(self._keys) or self._keys[at] != probe[0]:
            return None
        return Entry(self._values[int(self._index[at])], int(self._remoteness[at]))


def _show_params(params) -> str:
    if not params:
        return "no --set"
    return " ".join(f"--set {k}={v}" for k, v in sorted(params.items()))


def open_database(path: str | Path, binding: dict | None = None) -> PositionDatabase:
    """Open a saved database; with ``binding``, refuse one saved for anything else."""
    return PositionDatabase(path, binding)
