"""Every reachable position of a chance game through the C's byte-key expansion, numbered as the
protocol walk numbers them.

The packed-key native walk (gdl.graph.packed) has no chance positions; the byte-key expansion
of the tiered solve has (``game.native.chance_graph(game).expand``: a chance position is the
state before the action, the action and the outcomes so far, as in the protocol, one byte a
component; its moves in the protocol's order, move for move). This walk calls it on runs of
consecutive positions, in id order, and numbers each child not met before in the order the
protocol walk meets it (positions in id order, moves in order): the same ``PositionGraph`` as
``gdl.graph.positions``'s protocol walk, the same ids, keys, moves, probabilities and returns,
so everything solved from it is the same, to the byte. Where the C cannot go on (a rule error,
a component beyond a byte, a bad distribution) it gives up and the protocol walk, which
reports the error located, walks the game instead.
"""

from __future__ import annotations

from fractions import Fraction
from inspect import getattr_static

import numpy as np

from gdl.protocol import TERMINAL, native_rules

BATCH = 1 << 16             # positions expanded per call


def chance_passes(game):
    """The game's byte-key passes (gdl.backends.native.chance_graph), or None. Looked up
    statically, as ``positions.native_expander`` looks the packed expander up."""
    if getattr_static(game, "backend", None) != "native" or not game.info.has_chance:
        return None
    rules = native_rules(game)
    found = rules.chance_graph(game) if rules is not None else None
    return None if found is None or isinstance(found, str) else found


def _key(state) -> bytes | None:
    """A state's byte key as numpy keeps it (length, components; trailing zeros dropped), or
    None when a component is no byte."""
    try:
        if type(state) is not tuple or len(state) > 255:
            return None
        return (bytes([len(state)]) + bytes(state)).rstrip(b"\0")
    except (TypeError, ValueError):
        return None


def _state_keys(order: np.ndarray) -> list[bytes]:
    """``bytes(state)`` of each key (its trailing zeros put back): the protocol walk's keys,
    cut from one block of bytes per length of state."""
    n = len(order)
    width = order.dtype.itemsize
    keys: list = [b""] * n
    if not n or not width:
        return keys
    given = np.ascontiguousarray(order).view(np.uint8).reshape(n, width)
    lengths = given[:, 0]
    rows = np.zeros((n, max(width, 1 + int(lengths.max()))), dtype=np.uint8)
    rows[:, :width] = given
    for length in np.unique(lengths).tolist():
        at = np.flatnonzero(lengths == length)
        block = rows[at, 1:1 + length].tobytes()
        for i, j in enumerate(at.tolist()):
            keys[j] = block[i * length:(i + 1) * length]
    return keys


def byte_positions(game, passes, max_states: int, progress, too_many):
    """The ``PositionGraph`` of ``game`` walked by ``passes`` (module docstring), or None where
    the protocol must walk it; raises ``too_many()`` past ``max_states`` positions."""
    from gdl.graph.positions import PROGRESS_EVERY, PositionGraph

    root = _key(game.initial_state())
    if root is None:
        return None
    parts = [np.array([root], dtype="S")]   # the keys in id order, a run a batch
    known = parts[0]                        # every key met, sorted, and its id
    known_ids = np.zeros(1, dtype=np.int64)
    count = 1
    players, counts, children, chances = [], [], [], []
    probability_ids: dict[Fraction, int] = {}
    returns_index = []
    returns_ids: dict[tuple, int] = {}
    start = 0
    reported = 0
    batch = parts[0]                        # the keys of ids start.. not yet expanded
    while start < count:
        stop = min(count, start + BATCH)
        found = passes.expand(batch[:stop - start], ((), ()))
        batch = batch[stop - start:]
        if found is None:
            return None
        moves = len(found.length)
        width = int(found.length.max()) if moves else 1
        keys = np.ascontiguousarray(found.child[:, :width]).view(f"S{width}").reshape(-1)
        # each child not met before numbered in order of first appearance
        distinct, first_at, inverse = np.unique(keys, return_index=True, return_inverse=True)
        if distinct.dtype.itemsize > known.dtype.itemsize:
            known = known.astype(distinct.dtype)
        distinct = distinct.astype(known.dtype)
        at = np.searchsorted(known, distinct)
        hit = at < len(known)
        hit[hit] = known[at[hit]] == distinct[hit]
        ids = np.empty(len(distinct), dtype=np.int64)
        ids[hit] = known_ids[at[hit]]
        new = np.flatnonzero(~hit)
        new = new[np.argsort(first_at[new], kind="stable")]
        if count + len(new) > max_states:
            raise too_many()
        ids[new] = count + np.arange(len(new))
        count += len(new)
        fresh = distinct[new]
        parts.append(fresh)
        batch = np.concatenate((batch, fresh)) if len(batch) else fresh
        inserted = np.sort(np.flatnonzero(~hit))     # distinct is sorted: so are these
        known = np.insert(known, at[inserted], distinct[inserted])
        known_ids = np.insert(known_ids, at[inserted], ids[inserted])
        children.append(ids[inverse.reshape(-1)].astype(np.int32))
        players.append(found.player)
        counts.append(found.count)
        # probabilities (exact, numbered in order of first use) and returns, as the protocol's
        index = np.full(moves, -1, dtype=np.int32)
        chance = np.flatnonzero(found.denominator > 0)
        if len(chance):
            pairs = np.stack((found.numerator[chance], found.denominator[chance]), axis=1)
            rows, row_first, row_of = np.unique(pairs, axis=0, return_index=True,
                                                return_inverse=True)
            numbers = np.empty(len(rows), dtype=np.int32)
            for j in np.argsort(row_first, kind="stable").tolist():
                n, d = rows[j].tolist()
                numbers[j] = probability_ids.setdefault(Fraction(n, d), len(probability_ids))
            index[chance] = numbers[row_of.reshape(-1)]
        chances.append(index)
        ends = np.full(stop - start, -1, dtype=np.int32)
        for i, row in zip(np.flatnonzero(found.player == TERMINAL).tolist(),
                          found.returns[found.player == TERMINAL].tolist()):
            ends[i] = returns_ids.setdefault(tuple(row), len(returns_ids))
        returns_index.append(ends)
        start = stop
        if progress is not None and start // PROGRESS_EVERY > reported:
            reported = start // PROGRESS_EVERY
            progress(start, count)
    player = np.concatenate(players).astype(np.int8)
    first = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=first[1:])
    keys_list = _state_keys(np.concatenate(parts))
    graph = PositionGraph(
        game=game, keys=keys_list, index=dict(zip(keys_list, range(count))), packed=True,
        player=player, first=first, child=np.concatenate(children),
        probability_index=np.concatenate(chances), probabilities=list(probability_ids),
        returns_index=np.concatenate(returns_index), returns_table=list(returns_ids))
    graph.stats["enumeration"] = "native"
    return graph
