"""A tiered solve's tier files: arrays saved and loaded, a solved tier's results and value
table (``TierResult``, in the database's encoding of values), and the forward pass's moves
kept for the backward pass (``stored_expansion``).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph.database import atomic_write, decode_value, encode_value
from gdl.graph.tier_expand import Expansion, join_expansions
from gdl.graph.tier_keys import keys_array
from gdl.graph.tier_run import TierRun


def save_array(path: Path, array: np.ndarray) -> None:
    """``array`` written to ``path`` as a .npy file, atomically."""
    atomic_write(path, lambda out: np.save(out, array))


def write_npz(arrays: dict, out) -> None:
    """``arrays`` written to the open file ``out`` as a .npz (numpy arrays, never pickles)."""
    np.savez(out, **arrays)


# ---- the forward pass's moves, kept for the backward pass ---------------------------------------
# Expanding a position through the protocol costs more than reading its moves back (Pig to
# 100: about 11 of 63 CPU seconds), so the forward pass writes the moves it found, a part file
# per closure (``tier-t.expanded-N.npz``: numpy arrays and JSON text, never pickles), and the
# backward pass reads them instead of expanding the tier again.

def save_expanded(path: str | Path, rounds: list) -> None:
    """The rounds ``[(frontier keys, their Expansion)]`` of one closure, as one part file."""
    keys = np.concatenate([frontier for frontier, _ in rounds]) if rounds else keys_array([])
    joined = join_expansions([expansion for _, expansion in rounds]) if rounds else None
    arrays: dict = {"keys": keys}
    if joined is not None:
        arrays.update(
            player=joined.player, count=joined.count, child_key=joined.child_key,
            child_tier=joined.child_tier, probability_index=joined.probability_index,
            returns_index=joined.returns_index,
            tables=np.array(json.dumps({
                "probabilities": [str(p) for p in joined.probabilities],
                "returns": [[encode_value(v) for v in row] for row in joined.returns_table]})))
    atomic_write(Path(path), functools.partial(write_npz, arrays))


def _load_expanded(path: Path) -> tuple[np.ndarray, Expansion] | None:
    with np.load(path) as saved:
        if "player" not in saved.files:
            return None                      # a closure that found nothing
        tables = json.loads(str(saved["tables"]))
        return saved["keys"], Expansion(
            player=saved["player"], count=saved["count"], child_key=saved["child_key"],
            child_tier=saved["child_tier"], probability_index=saved["probability_index"],
            probabilities=[Fraction(p) for p in tables["probabilities"]],
            returns_index=saved["returns_index"],
            returns_table=[tuple(decode_value(v) for v in row) for row in tables["returns"]])


def stored_expansion(run: TierRun, tier: int, keys: np.ndarray) -> Expansion | None:
    """Tier ``tier``'s moves as the forward pass wrote them, in the order of ``keys``; None
    where it wrote none, or parts that are not exactly this tier (then it is expanded again)."""
    parts = [found for path in sorted(run.directory.glob(f"tier-{tier}.expanded-*.npz"))
             if (found := _load_expanded(path)) is not None]
    if not parts:
        return None
    every_key = np.concatenate([part_keys for part_keys, _ in parts])
    order = np.argsort(every_key, kind="stable")
    if len(order) != len(keys) or not np.array_equal(every_key[order], keys):
        return None
    joined = join_expansions([expansion for _, expansion in parts])
    first = np.concatenate(([0], np.cumsum(joined.count)))
    count = joined.count[order]
    starts = np.concatenate(([0], np.cumsum(count)[:-1]))
    # each position's moves, taken from where its part put them, in the new order
    edges = np.repeat(first[order] - starts, count) + np.arange(int(count.sum()))
    return Expansion(
        player=joined.player[order], count=count, child_key=joined.child_key[edges],
        child_tier=joined.child_tier[edges], probability_index=joined.probability_index[edges],
        probabilities=joined.probabilities, returns_index=joined.returns_index[order],
        returns_table=joined.returns_table)


@dataclass
class TierResult:
    """A solved tier, loaded for its predecessors' lookups."""

    keys: np.ndarray
    index: np.ndarray
    remoteness: np.ndarray
    table: Any                       # encoded value vectors (database encoding): a list or FloatTable
    bounds: Any = None               # a chance tier's certified bounds, once read (chance_tiers)
    numbers: Any = None              # the keys as numbers (key_numbers), once made (chance_tiers)

    @classmethod
    def written(cls, keys: np.ndarray, table: Any, index: np.ndarray,
                remoteness: np.ndarray) -> TierResult:
        """What ``load`` reads back from the files ``save_tier_files`` writes of these, made
        without reading them (a worker keeps the tier it solved for its next tasks)."""
        kept: Any
        if _kept_as_floats(table):
            kept = FloatTable(np.asarray(table, dtype=np.float64))
        else:      # JSON keeps ints, strings and floats as they are: only the containers change
            kept = [_from_json(_to_json(v)) for v in table]
        return cls(keys, index.astype(np.int32), remoteness.astype(np.int32), kept)

    @classmethod
    def load(cls, run: TierRun, tier: int, mapped: bool = False) -> TierResult:
        """A tier's results; ``mapped``: the arrays read from their files a slice at a time
        (``MappedArray``)."""
        floats = run.path(tier, "table.npy")
        table: Any
        if floats.exists():
            table = FloatTable(np.load(floats))
        else:
            table = [_from_json(v) for v in
                     json.loads(run.path(tier, "table.json").read_text(encoding="utf-8"))]
        keys, index, remoteness = (
            MappedArray(run.path(tier, part)) if mapped else np.load(run.path(tier, part))
            for part in ("keys.npy", "values.npy", "remoteness.npy"))
        return cls(keys, index, remoteness, table)  # type: ignore[arg-type]


class FloatTable:
    """An approximate tier's value table (a float vector per entry, often one per position),
    its rows made tuples only when read: a tier's predecessors read few of them."""

    def __init__(self, rows: np.ndarray):
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, entry: int) -> tuple:
        return tuple(self.rows[entry].tolist())

    def __iter__(self):
        return map(tuple, self.rows.tolist())


class MappedArray:
    """A .npy file read a slice at a time, each read through a fresh memory map dropped right
    after: the merge reads every tier file, and pages kept mapped would stay in the process's
    resident memory (Connect Four 6x4: 1.5 GB of tier files)."""

    def __init__(self, path: Path):
        self.path = path
        mapped = np.load(path, mmap_mode="r")
        self.dtype, self.length = mapped.dtype, len(mapped)

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, where) -> np.ndarray:
        return np.array(np.load(self.path, mmap_mode="r")[where])

    def searchsorted(self, value) -> int:
        return int(np.searchsorted(np.load(self.path, mmap_mode="r"), value))


@dataclass(frozen=True)
class DrawRange:
    """A tier's table entry for a position whose players can force ends of different worth:
    the range of player 0's utility they can force an end in, in the database's encoding
    (None: no end at all on that side). Its value, if it has one, follows from the range and
    what endless play is worth (``range_value``); the tiers before it need the range
    (retrograde analysis, gdl.graph.retrograde)."""

    low: Any
    high: Any


def _to_json(entry):
    if isinstance(entry, DrawRange):
        return {"draw": [entry.low, entry.high]}
    return None if entry is None else list(entry)


def _from_json(entry):
    if isinstance(entry, dict):
        return DrawRange(*entry["draw"])
    return None if entry is None else tuple(entry)


def plain_value(v):
    """A whole Fraction as an int; any other value as it is."""
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


def encode_vector(vector) -> tuple | None:
    """A value vector in the database's encoding (None stays None)."""
    return None if vector is None else tuple(encode_value(v) for v in vector)


def tabulate(vectors) -> tuple[list, np.ndarray]:
    """The distinct encoded vectors in order of first use, and each vector's entry."""
    table: dict = {}
    index = np.fromiter((table.setdefault(encode_vector(v), len(table)) for v in vectors),
                        dtype=np.int64, count=len(vectors))
    return list(table), index


def _float_table(table: list) -> bool:
    """Whether every value vector of a tier's table is floats, all of one length (checked by
    map and set, in C: a table may have millions of entries)."""
    return (bool(table) and set(map(type, table)) == {tuple} and len(set(map(len, table))) == 1
            and set(map(type, chain.from_iterable(table))) == {float})


def _kept_as_floats(table) -> bool:
    """Whether a tier's table is kept as a float array (``table.npy``): a chance tier's float
    rows handed over as an array, or a ``_float_table``."""
    return isinstance(table, np.ndarray) or _float_table(table)


def save_tier_files(run: TierRun, tier: int, table: list, index: np.ndarray,
                    remoteness: np.ndarray) -> None:
    """A solved tier's files (written here, or by the worker that solved the tier whole)."""
    save_array(run.path(tier, "values.npy"), index.astype(np.int32))
    save_array(run.path(tier, "remoteness.npy"), remoteness.astype(np.int32))
    # an approximate tier has a value vector per position (Pig to 100: two million in all):
    # floats only, kept as a float array, which reads and writes faster than JSON, exactly
    # (a chance tier hands its float rows over as an array already)
    floats = _kept_as_floats(table)
    kept, other = (("table.npy", "table.json") if floats else ("table.json", "table.npy"))
    run.path(tier, other).unlink(missing_ok=True)          # a previous run's, in this directory
    if floats:
        save_array(run.path(tier, kept), np.asarray(table, dtype=np.float64))
    else:
        atomic_write(run.path(tier, kept), json.dumps([_to_json(v) for v in table]).encode("utf-8"))


def first_use_rows(rows: np.ndarray, passes: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D float array as a dict of their tuples would tell them apart
    (equal floats are one; -0.0 is made 0.0 first; no NaN), in order of first use: ``(first,
    group)``: each distinct row's first index, and each row's number among them. With the
    game's native passes (``passes``) a hash set in C, else a sort."""
    rows = np.ascontiguousarray(rows + 0.0)
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if passes is not None:
        return passes.first_use(rows)
    bits = rows.view(np.int64).reshape(len(rows), -1)
    order = np.lexsort(bits.T[::-1])                   # stable: the first of equal rows first
    ordered = bits[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    first_sorted = order[new]                          # each distinct row's first index
    by_use = np.argsort(first_sorted, kind="stable")
    rank = np.empty(len(by_use), dtype=np.int64)
    rank[by_use] = np.arange(len(by_use))
    group = np.empty(len(rows), dtype=np.int64)
    group[order] = rank[np.cumsum(new) - 1]
    return first_sorted[by_use], group
