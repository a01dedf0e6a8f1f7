"""Retrograde analysis: two players, constant-sum, no chance, cycles allowed.

Values by thresholds. For each distinct terminal value t (centred, as in
``gdl.graph.solution``), the positions from which player 0 can force the game to *end* with at
least t are an attractor: grown backwards from those terminals, a player-0 position joins when
one of its moves leads in, a player-1 position when all of its moves do (a counter per position,
as in GamesCrafters' solvers). ``lower`` is the largest t whose attractor holds a position;
``upper``, symmetrically, the smallest t to which player 1 can force an end. Where they meet the
value is decided; elsewhere only endless play decides it (a draw), and ``[lower, upper]`` is the
range it can fall in. A tie (ending level) and a draw (not ending) are never confused.

Remoteness, on the decided positions: the same backward growth from the terminals along
*optimal* moves only (moves to a decided child of the same value); a position whose mover wins
or ties joins at its first optimal child (fastest), a losing one when all its optimal children
have joined (slowest). Each pass costs O(edges), a frontier at a time with numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gdl.graph.induction import scaled_integers
from gdl.graph.order import edge_owner, gather, parents
from gdl.graph.solution import NO_END_HIGH, NO_END_LOW, TwoPlayerValues
from gdl.protocol import TERMINAL


def attractor(graph, targets: np.ndarray, joins_at_once: np.ndarray, needed: np.ndarray,
              allowed: np.ndarray | None = None,
              target_rank: np.ndarray | None = None) -> np.ndarray:
    """The rank at which each position joins the backward growth from ``targets`` (0 for them,
    or ``target_rank``: a tier's stand-ins for positions of later tiers join at their own
    remoteness; -1 for never). A position with ``joins_at_once`` joins when one allowed edge
    leads to a member; any other when ``needed[p]`` of its allowed edges do."""
    reverse_first, reverse_edge = parents(graph)
    owner = edge_owner(graph)
    rank = np.full(len(graph), -1, dtype=np.int32)
    if target_rank is None:
        target_rank = np.zeros(len(targets), dtype=np.int32)
    rank[targets] = target_rank
    remaining = needed.astype(np.int64)
    frontier = targets[target_rank == 0]
    later = targets[target_rank > 0]
    later_rank = target_rank[target_rank > 0]
    step = 0
    while len(frontier) or step < int(later_rank.max(initial=0)):
        step += 1
        edges, _ = gather(reverse_first, reverse_edge, frontier)
        if allowed is not None:
            edges = edges[allowed[edges]]
        sources = owner[edges]
        sources = sources[rank[sources] < 0]
        at_once = sources[joins_at_once[sources]]
        counted, times = np.unique(sources[~joins_at_once[sources]], return_counts=True)
        remaining[counted] -= times
        ready = counted[remaining[counted] <= 0]
        joined = np.unique(np.concatenate((at_once, ready)))
        rank[joined] = step
        frontier = np.unique(np.concatenate((joined, later[later_rank == step])))
    return rank


@dataclass
class Fixed:
    """Positions whose values are known before the analysis: a tier's stand-ins for positions
    of later tiers (gdl.graph.tiers), terminals of the local graph. Per position, the range of
    player 0's centred value ``2 * u0 - total`` it can be forced into (exact; None: no end can
    be forced; equal bounds: decided) and its remoteness (-1 for a draw)."""

    positions: np.ndarray
    lower: list
    upper: list
    remoteness: np.ndarray


def _scaled(graph, total, fixed: Fixed | None):
    """``(lowest end, highest end, scale)``: per position, the centred values (times ``scale``,
    an integer making them all integers) of the ends it is a target for: a terminal's value
    twice, a fixed position's range; the sentinels where none. None when they do not fit."""
    is_terminal = graph.player == TERMINAL
    centred = [Fraction(values[0]) * 2 - total for values in graph.returns_table]
    bounds = [] if fixed is None else [w for w in fixed.lower + fixed.upper if w is not None]
    found = scaled_integers(centred + bounds)
    if found is None:
        return None
    ints, scale = found
    score = np.array(ints[:len(centred)] + [0], dtype=np.int64)[graph.returns_index]
    low = np.where(is_terminal, score, NO_END_LOW)
    high = np.where(is_terminal, score, NO_END_HIGH)
    if fixed is not None:
        low[fixed.positions] = [NO_END_LOW if w is None else int(w * scale) for w in fixed.lower]
        high[fixed.positions] = [NO_END_HIGH if w is None else int(w * scale)
                                 for w in fixed.upper]
    return low, high, scale


def retrograde(graph, total, fixed: Fixed | None = None) -> TwoPlayerValues | None:
    """Values, draw ranges and remoteness of every position (None when values overflow).
    ``fixed`` positions (terminals of the graph) have known values, draws included: a
    fixed position whose player 0 can force an end of at least t is a target of that
    attractor, as a terminal worth t is."""
    ends = _scaled(graph, total, fixed)
    if ends is None:
        return None
    low_end, high_end, scale = ends
    player = graph.player
    is_terminal = player == TERMINAL
    out_degree = np.diff(graph.first)
    thresholds = np.unique(np.concatenate((low_end[low_end != NO_END_LOW],
                                           high_end[high_end != NO_END_HIGH])))
    lower = np.full(len(graph), NO_END_LOW, dtype=np.int64)
    upper = np.full(len(graph), NO_END_HIGH, dtype=np.int64)
    for t in thresholds.tolist():          # ascending: each attractor holds the next one
        joined = attractor(graph, np.flatnonzero(low_end >= t), player == 0, out_degree) >= 0
        lower[joined] = t
    for t in thresholds[::-1].tolist():    # descending
        joined = attractor(graph, np.flatnonzero(high_end <= t), player == 1, out_degree) >= 0
        upper[joined] = t
    decided = lower == upper
    owner = edge_owner(graph)
    child = graph.child
    optimal = decided[owner] & decided[child] & (lower[owner] == lower[child])
    mover_value = np.where(player == 1, -lower, lower)
    fastest = decided & (mover_value >= 0)
    needed = np.bincount(owner[optimal], minlength=len(graph))
    # the ends: real terminals at rank 0, decided fixed positions at their own remoteness
    rank = np.zeros(len(graph), dtype=np.int32)
    if fixed is not None:
        rank[fixed.positions] = fixed.remoteness
    seeds = np.flatnonzero(is_terminal & decided)
    remoteness = attractor(graph, seeds, fastest, needed, optimal, rank[seeds])
    remoteness[~decided] = -1
    return TwoPlayerValues(lower=lower, upper=upper, remoteness=remoteness, scale=scale,
                           total=total)
