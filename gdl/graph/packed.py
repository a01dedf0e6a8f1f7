"""Every reachable position through a packed-key expander (the native back end's), compactly.

The game offers the expander (``game.native.graph_expander(game)``: see its contract in
gdl/backends/native/graph.py); gdl.graph never imports a back end. Two passes:

1. ``reach``: the set of reachable keys, found in C with a hash set (8 bytes a key, the set
   at most 4/3 as many slots); it also counts the edges, so the arrays below are allocated
   once, at their final size.
2. The keys are numbered — the initial state 0, every other position in increasing key order
   (which is the order of the state tuples) — and expanded again in that order, a batch at a
   time, in C; each child key becomes its id by binary search (``expander.number``).

Expanding twice costs the rules' time twice, but the rules run in C and no edge list keyed by
64-bit keys is ever held: at peak a position costs its key (8 bytes), its first-edge offset
(8), its player (1) and returns index (4), and 4 bytes a move. The result is the same
``PositionGraph`` the protocol walk gives — the same positions, the same moves in the same
order at each position, the same returns — only numbered differently.
"""

from __future__ import annotations

import numpy as np

from gdl.protocol import TERMINAL

BATCH = 1 << 16             # positions expanded per call in the numbering pass
MANY_RETURNS = 32           # distinct return vectors matched one by one, beyond: sorted


class NoNativeWalk(Exception):
    """The expander cannot walk this game (a rule error, a state outside the codec): the
    caller walks it through the protocol, which reports any error located."""


def packed_positions(game, expander, max_states: int, progress, too_many):
    """The ``PositionGraph`` of ``game`` (gdl.graph.positions) walked by ``expander``; raises
    ``too_many()`` past ``max_states`` positions and ``NoNativeWalk`` when the protocol must
    walk it instead."""
    from gdl.graph.positions import PositionGraph

    codec = expander.codec
    root_key = codec.encode(game.initial_state())
    if root_key is None:
        raise NoNativeWalk("the initial state is outside the declared domains")
    reached = expander.reach(root_key, max_states, progress)
    if reached.outcome == "too many":
        raise too_many()
    if reached.outcome != "done":
        raise NoNativeWalk(reached.outcome)
    keys = reached.keys
    keys[1:].sort()                 # the root stays first; the rest in key (= state) order
    n = len(keys)
    if n >= 2**31 or reached.edges >= 2**62:
        raise too_many()
    player = np.empty(n, dtype=np.int8)
    first = np.empty(n + 1, dtype=np.int64)
    first[0] = 0
    child = np.empty(reached.edges, dtype=np.int32)
    returns_index = np.full(n, -1, dtype=np.int32)
    returns_ids: dict[tuple, int] = {}
    returns = np.empty((BATCH, expander.players), dtype=np.int64)
    for start in range(0, n, BATCH):
        stop = min(n, start + BATCH)
        failed = expander.number(keys, start, stop, player, first, child, returns[:stop - start])
        if failed is not None:
            raise NoNativeWalk(failed)
        terminal = np.flatnonzero(player[start:stop] == TERMINAL)
        if len(terminal):
            returns_index[start + terminal] = _returns_ids(returns[terminal], returns_ids)
        if progress is not None:
            progress(stop, n)       # the second pass: positions numbered so far, of all
    if first[n] != reached.edges:
        raise NoNativeWalk("the two passes disagree on the number of moves")
    graph = PositionGraph(
        game=game, keys=keys, index={}, packed=False, player=player, first=first, child=child,
        probability_index=None, probabilities=[], returns_index=returns_index,
        returns_table=list(returns_ids), expander=expander)
    graph.stats["enumeration"] = "native"
    return graph


def _returns_ids(rows: np.ndarray, table: dict[tuple, int]) -> np.ndarray:
    """Each row's index in ``table`` (distinct return vectors, added in order of first
    appearance). Games have few distinct returns, so one vectorised comparison a vector beats
    sorting the rows; past ``MANY_RETURNS`` vectors the rows are sorted (np.unique)."""
    ids = np.full(len(rows), -1, dtype=np.int32)
    for vector, number in table.items():
        if len(table) > MANY_RETURNS:
            break
        ids[(rows == vector).all(axis=1)] = number
    while True:
        left = np.flatnonzero(ids < 0)
        if not len(left):
            return ids
        if len(table) >= MANY_RETURNS:
            distinct, inverse = np.unique(rows[left], axis=0, return_inverse=True)
            numbers = np.array([table.setdefault(tuple(int(v) for v in row), len(table))
                                for row in distinct], dtype=np.int32)
            ids[left] = numbers[inverse.reshape(-1)]
            return ids
        vector = tuple(int(v) for v in rows[left[0]])
        number = table.setdefault(vector, len(table))
        ids[left[(rows[left] == vector).all(axis=1)]] = number


def lookup(keys: np.ndarray, key: int) -> int | None:
    """The id of a key in a graph numbered as above, or None."""
    if len(keys) and int(keys[0]) == key:
        return 0
    rest = keys[1:]
    where = int(np.searchsorted(rest, np.uint64(key)))
    if where < len(rest) and int(rest[where]) == key:
        return where + 1
    return None
