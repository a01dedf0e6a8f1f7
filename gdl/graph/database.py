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
import re
import struct
import tempfile
import zlib
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from gdl.cache import renamable_ancestor
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


def encode_value(v):
    """A value as the database's JSON holds it: an int, a float, "numerator/denominator" for a
    Fraction that is not whole, None; ``decode_value`` gives it back."""
    if v is None:
        return None
    if isinstance(v, float):
        return v
    if isinstance(v, Fraction) and v.denominator != 1:
        return f"{v.numerator}/{v.denominator}"
    return int(v)


def decode_value(v):
    """A value from the database's JSON (see ``encode_value``)."""
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
    """Write ``solution`` to ``path`` (atomically); returns the file's size in bytes. A solve on
    ranked tables (gdl.graph.rank_solution) is written in format 2 (gdl.graph.rank_database),
    any other in format 1."""
    from gdl.graph.rank_solution import RankedSolution

    if isinstance(solution, RankedSolution):
        from gdl.graph import rank_database

        return rank_database.save(solution, path, binding, source)
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
            encoded = None if value is None else tuple(encode_value(v) for v in value)
            index_of[d] = table.setdefault(encoded, len(table))
        remoteness = values.remoteness[order].astype(np.int64)
        return table, index_of[inverse.reshape(-1)], remoteness
    table = {}
    n = len(order)
    value_index = np.empty(n, dtype=np.int64)
    remoteness = np.empty(n, dtype=np.int64)
    for rank, position in enumerate(order.tolist()):
        value = solution.value(position)
        encoded = None if value is None else tuple(encode_value(v) for v in value)
        value_index[rank] = table.setdefault(encoded, len(table))
        remoteness[rank] = solution.remoteness(position)
    return table, value_index, remoteness


def write_file(path: Path, header: dict, compressed_sections: list[bytes],
               magic: bytes = MAGIC) -> int:
    """The database file (see the module docstring) from its header and its zlib-compressed
    sections, written atomically; its size in bytes. The single-graph save and the tiers'
    merge (gdl.graph.tiers) both write through here, so their bytes agree by construction;
    so does format 2 (gdl.graph.rank_database), with its own ``magic``."""
    blob = json.dumps(header, sort_keys=True).encode("utf-8")

    def write(out) -> None:
        out.write(magic)
        out.write(struct.pack("<I", len(blob)))
        out.write(blob)
        out.write(struct.pack("<I", len(compressed_sections)))
        for data in compressed_sections:
            out.write(struct.pack("<Q", len(data)))
            out.write(data)

    atomic_write(path, write)
    return path.stat().st_size


def private_directory(path: Path) -> None:
    """Create ``path`` (mode 0700, and any missing parent 0700 too) or check the one there: a
    directory, not a symbolic link, owned by this user and writable by nobody else, on a way
    where nobody else can rename anything (every directory above it, as written and as
    resolved, is root's or this user's, and is writable by others only with the sticky bit, as
    /tmp is). Tier files are then opened by name safely: nobody else can put another directory
    in its place between the check and a read. Otherwise a SolverError that says how to fix it.
    Tier files hold no code (numpy arrays without pickles, JSON), but another user who could
    write them could still change the answers (docs/security.md)."""
    import stat

    elsewhere = "choose another --tier-dir (or --save place)"
    _make_parents_private(path.parent)
    found = renamable_ancestor(path.parent)      # before anything is made there
    if found is not None:
        directory, why = found
        problem = (f"lies in {directory}, which {why}, so another user could rename it away "
                   "and put their own in its place")
        fix = (elsewhere if "belongs" in why
               else f"{elsewhere}, or close it with `chmod go-w {directory}`")
    else:
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            problem, fix = "is not a directory (a symbolic link, or a file)", elsewhere
        elif info.st_uid != os.getuid():
            problem, fix = "belongs to another user", elsewhere
        elif info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            problem = "is writable by other users"
            fix = f"make it yours with `chmod 700 {path}`, or {elsewhere}"
        else:
            return
    raise SolverError(f"{path} {problem}: gdl keeps its tier files only in a private "
                      f"directory; {fix}")


def _make_parents_private(directory: Path) -> None:
    """Create ``directory`` and its missing parents 0700 (never group-writable, whatever the
    umask): a parent gdl made must pass ``gdl.cache.renamable_ancestor``."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:
            pass


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
    """A saved strong solve, opened for lookups: ``db.lookup(state)`` → ``Entry`` or None.

    A database is data, never code, and it may come from anywhere (another user's directory, a
    download): opening one reads no pickle, follows the header only where it has been checked
    (every field's type and range; a value is an integer, a float or a ``p/q`` string), and
    inflates each section only up to the size the header gives it, after checking that zlib
    could produce that size from the bytes there. Anything else is a ``DatabaseError``."""

    def __init__(self, path: str | Path, binding: dict | None = None, data: bytes | None = None):
        self.path = str(path)
        data = _read_regular_file(path) if data is None else data
        with _damaged(path):
            self._parse(data)
        if binding is not None and binding != self.header["binding"]:
            raise DatabaseError(_stale(self.path, self.header, binding))

    def _parse(self, data: bytes) -> None:
        if not data.startswith(MAGIC):
            raise ValueError("the file does not start with the gdl position database mark")
        offset = len(MAGIC)
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4
        if offset + length > len(data):
            raise ValueError("the file is truncated")
        self.header = header = _shallow_json(data[offset:offset + length].decode("utf-8"))
        offset += length
        if not isinstance(header, dict):
            raise ValueError("the header is not a JSON object")
        if header.get("format") != VERSION:
            raise ValueError(f"format {_inert(repr(header.get('format')))[:80]}, this gdl reads "
                             f"{VERSION}")
        n, width, record, itemsize = _checked_header(header)
        expected = [n * width, 2 * n] if itemsize is None else [n * width, itemsize * n, 4 * n]
        (count,) = struct.unpack_from("<I", data, offset)
        offset += 4
        if count != len(expected):
            raise ValueError(f"{count} sections, where the header's layout has {len(expected)}")
        sections = []
        for want in expected:
            (size,) = struct.unpack_from("<Q", data, offset)
            offset += 8
            if offset + size > len(data):
                raise ValueError("the file is truncated")
            sections.append(_inflate(data[offset:offset + size], want))
            offset += size
        if offset != len(data):
            raise ValueError("trailing bytes after the last section")
        keys = np.frombuffer(sections[0], dtype=np.uint8)
        self._keys = keys.view(f"S{width}") if width else np.zeros(n, dtype="S1")
        if record["layout"] == "packed16":
            packed = np.frombuffer(sections[1], dtype="<u2").astype(np.int64)
            bits = record["remoteness_bits"]
            self._index = packed >> bits
            self._remoteness = packed & ((1 << bits) - 1)
            self._remoteness[self._remoteness == (1 << bits) - 1] = -1
        else:
            self._index = np.frombuffer(sections[1], dtype=record["index_dtype"])
            self._remoteness = np.frombuffer(sections[2], dtype="<i4")
            if n and int(self._remoteness.min()) < -1:
                raise ValueError("a remoteness below -1")
        self._values = [None if v is None else tuple(decode_value(x) for x in v)
                        for v in header["values"]]
        if n and int(self._index.max()) >= len(self._values):
            raise ValueError("a record points outside the value table")
        if n > 1 and not bool(np.all(self._keys[:-1] < self._keys[1:])):
            raise ValueError("the keys are not sorted")

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


@contextmanager
def _damaged(path):
    """Any error reading a database's bytes as the one DatabaseError that says it is damaged."""
    try:
        yield
    except (ValueError, KeyError, TypeError, struct.error, zlib.error, json.JSONDecodeError,
            UnicodeDecodeError, ZeroDivisionError, OverflowError, RecursionError) as error:
        raise DatabaseError(f"{path}: not a valid gdl position database, or damaged "
                            f"({type(error).__name__}: {_inert(str(error))}); solve again "
                            "with --save") from None


def _stale(path: str, header: dict, binding: dict) -> str:
    stored = header["binding"]
    differences = [_inert(str(k)) for k in sorted(set(binding) | set(stored), key=str)
                   if binding.get(k) != stored.get(k)]
    source = header.get("source")
    shown = _inert(source) if isinstance(source, str) and source else "?"
    return (f"{path}: this database was built from other rules ({', '.join(differences)} "
            f"differ: it was saved for {shown} with "
            f"{_show_params(stored.get('params'))}); solve again with --save")


def _show_params(params) -> str:
    if not params:
        return "no --set"
    if not isinstance(params, dict):
        return _inert(json.dumps(params))
    return _inert(" ".join(f"--set {k}={json.dumps(v)}" for k, v in sorted(params.items())))


# ---- reading a file that anyone may have written ------------------------------------------------

# The most bytes deflate can make of one compressed byte (a run of 258-byte matches costs at
# least 2 bits each: 1032), with room for zlib's header and checksum: a section whose header
# size is beyond this many times its compressed bytes cannot be sound, and is refused before
# anything is inflated.
MAX_RATIO = 1032
_SLACK = 64
KEY_KINDS = ("u8", "u8v", "i32", "i32v")
INDEX_DTYPES = {"<u1": 1, "<u2": 2, "<u4": 4}
_FRACTION = re.compile(r"-?[0-9]{1,4300}/[0-9]{1,4300}")


def _read_regular_file(path: str | Path) -> bytes:
    """The bytes of ``path`` if it is a regular file; a DatabaseError otherwise (a FIFO would
    block, a device such as /dev/zero would never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise DatabaseError(f"{path}: no such database") from None
    except OSError as error:
        raise DatabaseError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DatabaseError(f"{path}: not a regular file, so not a position database "
                                "(give the file gdl solve --strong --save wrote)")
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            return handle.read()
    except OSError as error:
        raise DatabaseError(f"{path}: cannot be read ({error.strerror})") from None
    finally:
        if fd >= 0:
            os.close(fd)


def _count(header: dict, name: str, low: int = 0, high: int | None = None) -> int:
    value = header.get(name)
    if type(value) is not int or value < low or (high is not None and value > high):
        raise ValueError(f"{name!r} is {_inert(repr(value))[:80]}, not a whole number"
                         + (f" from {low} to {high}" if high is not None else f" of at least {low}"))
    return value


def _checked_header(header: dict) -> tuple[int, int, dict, int | None]:
    """Every header field the reader follows, checked for type and range: the number of
    positions, the key width, the record layout and the value index's item size (None for
    ``packed16``). Raises ValueError naming the first field that is wrong."""
    width = _count(header, "key_width")
    kind = header.get("key")
    if kind not in KEY_KINDS:
        raise ValueError(f"unknown key encoding {_inert(repr(kind))[:80]}")
    if kind.startswith("i32") and width % 4:
        raise ValueError("an i32 key width that is not a multiple of 4")
    if kind.endswith("v") and not width:
        raise ValueError("a key of varying length with no room for its length")
    n = _checked_common(header)
    record = header.get("record")
    if not isinstance(record, dict):
        raise ValueError("the record layout is not a JSON object")
    if record.get("layout") == "packed16":
        _count(record, "remoteness_bits", 1, 16)
        return n, width, record, None
    if record.get("layout") == "split" and record.get("index_dtype") in INDEX_DTYPES:
        return n, width, record, INDEX_DTYPES[record["index_dtype"]]
    raise ValueError(f"unknown record layout {_inert(repr(record))[:80]}")


def _checked_common(header: dict) -> int:
    """The fields both formats share, checked (a ValueError names the first that is wrong):
    the binding, ``exact``, the players and the value table; returns the positions."""
    n = _count(header, "positions")
    if not isinstance(header.get("binding"), dict):
        raise ValueError("the binding is not a JSON object")
    if not isinstance(header.get("exact"), bool):
        raise ValueError("'exact' is not true or false")
    players = header.get("players")
    if players is not None and not (isinstance(players, list)
                                    and all(isinstance(p, str) for p in players)):
        raise ValueError("'players' is not a list of names")
    values = header.get("values")
    if not isinstance(values, list):
        raise ValueError("the value table is not a list")
    lengths = set()
    for vector in values:
        if vector is None:
            continue
        if not isinstance(vector, list) or not all(_sound_value(v) for v in vector):
            raise ValueError("a value is not a list of integers, floats and p/q fractions")
        lengths.add(len(vector))
    if len(lengths) > 1 or (players is not None and lengths and lengths != {len(players)}):
        raise ValueError("value vectors of different lengths, or not one value a player")
    return n


def _sound_value(v) -> bool:
    """One component of a stored value: an integer, a float or ``p/q`` (what ``encode_value``
    writes; Fraction alone would also take ``1e999999999``, whose power of ten takes minutes)."""
    if type(v) in (int, float):
        return True
    return isinstance(v, str) and _FRACTION.fullmatch(v) is not None and v.split("/")[1].strip("0") != ""


def _inflate(compressed: bytes, size: int) -> bytes:
    """A section inflated: exactly ``size`` bytes, or a ValueError. Never more than ``size``
    bytes are made (a zip bomb stops there), and a size zlib could not make of these bytes is
    refused before anything is inflated."""
    if size > MAX_RATIO * len(compressed) + _SLACK:
        raise ValueError(f"a section of {len(compressed):,} compressed bytes cannot hold the "
                         f"{size:,} bytes its header gives it")
    inflater = zlib.decompressobj()
    data = inflater.decompress(compressed, size + 1)      # max_length 0 would mean no limit
    if len(data) > size:
        raise ValueError("a section holds more bytes than its header gives it")
    if not inflater.eof or inflater.unused_data:
        raise ValueError("a section is cut short, or has bytes after its end")
    if len(data) != size:
        raise ValueError("a section has the wrong length")
    return data


# A header is a few levels deep; json's C parser recurses once a level, bounded only by Python's
# recursion limit, which a deep search raises (gdl.solvers.deep) and a program using gdl may too.
MAX_HEADER_NESTING = 32
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _shallow_json(text: str) -> Any:
    """``json.loads(text)``, refused (ValueError) when nested deeper than MAX_HEADER_NESTING."""
    depth = deepest = 0
    for bracket in re.findall(r"[\[\]{}]", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    if deepest > MAX_HEADER_NESTING:
        raise ValueError(f"the header is nested {deepest} levels deep, more than a database has")
    return json.loads(text)


def _inert(text: str) -> str:
    """Text from a database file as it may reach a terminal: every character that is not
    printable (escape sequences, bidi controls) spelt as an escape."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def open_database(path: str | Path, binding: dict | None = None):
    """Open a saved database (format 1: ``PositionDatabase``; format 2, a ranked solve's:
    gdl.graph.rank_database's ``RankedDatabase``, the same interface); with ``binding``,
    refuse one saved for anything else."""
    from gdl.graph import rank_database

    data = _read_regular_file(path)
    if not data.startswith(rank_database.MAGIC):
        if data.startswith(MAGIC[:6]) and not data.startswith(MAGIC):
            raise DatabaseError(f"{path}: a gdl position database of another format "
                                f"({_inert(repr(data[:8]))[:40]}): this gdl reads formats 1 "
                                "and 2; solve again with --save")
        return PositionDatabase(path, binding, data)
    with _damaged(path):
        header, offset = rank_database.header_json(data)
        if header.get("format") != rank_database.VERSION:
            raise ValueError(f"format {_inert(repr(header.get('format')))[:80]} under the mark "
                             "of format 2")
        database = rank_database.parse(str(path), data, offset, header)
    if binding is not None and binding != header["binding"]:
        raise DatabaseError(_stale(str(path), header, binding))
    return database
