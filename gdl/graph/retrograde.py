"""Retrograde analysis: two players, constant-sum, no chance, cycles allowed.

Values by thresholds. For each distinct terminal value t (centred, as in
``gdl.graph.solution``), the positions from which player 0 can force the game to *end* with at
least t are an attractor: grown backwards from those terminals, a player-0 position joins when
one of its moves leads in, a player-1 position when all of its moves do (a counter per position,
as in GamesCrafters' solvers). ``lower`` is the largest t whose attractor holds a position;
``upper``, symmetrically, the smallest t to which player 1 can force an end. Where they meet the
value is decided; elsewhere ``[lower, upper]`` is the range what endless play is worth decides
the value in. A tie (ending level) and a draw (decided by endless play) are never confused.

Which positions then have a value, and which are draws, follows from ``[lower, upper]`` and
what endless play is worth, declared or not (``TwoPlayerValues.decided``; the rules are in
docs/graph.md). Remoteness: the backward growth from the terminals along *optimal* moves only
(moves to a child of the same value, draws valued by ``when endless`` included), the side that
can force the end at that value hurrying and the other delaying. Each pass costs O(edges), a
frontier at a time with numpy.
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


def _scaled(graph, total, fixed: Fixed | None, extra: list):
    """``(lowest end, highest end, scale, extra scaled)``: per position, the centred values
    (times ``scale``, an integer making them all integers, ``extra`` values included) of the
    ends it is a target for: a terminal's value twice, a fixed position's range; the sentinels
    where none. None when they do not fit."""
    is_terminal = graph.player == TERMINAL
    centred = [Fraction(values[0]) * 2 - total for values in graph.returns_table]
    bounds = [] if fixed is None else [w for w in fixed.lower + fixed.upper if w is not None]
    found = scaled_integers(centred + bounds + extra)
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
    return low, high, scale, ints[len(ints) - len(extra):]


def retrograde(graph, total, fixed: Fixed | None = None, endless=None,
               ends=None) -> TwoPlayerValues | None:
    """Values, draw ranges and remoteness of every position (None when values overflow).
    ``fixed`` positions (terminals of the graph) have known values, draws included: a
    fixed position whose player 0 can force an end of at least t is a target of that
    attractor, as a terminal worth t is. ``endless``: player 0's utility for a play that never
    ends, where the rules declare it. ``ends``: player 0's least and greatest utility over the
    game's reachable ends, which decide the draws of a game without ``endless``: by default
    those of this graph's terminals; a tier's solve passes the whole game's, or a function that
    finds them, called only when some position can be forced into ends of different worth."""
    is_terminal = graph.player == TERMINAL
    if ends is None and endless is None:
        utilities = {Fraction(graph.returns_table[i][0])
                     for i in np.unique(graph.returns_index[is_terminal]).tolist()}
        ends = (min(utilities), max(utilities)) if utilities else None
    extra = [] if endless is None else [Fraction(endless) * 2 - total]
    found = _scaled(graph, total, fixed, extra)
    if found is None:
        return None
    low_end, high_end, scale, _ = found
    player = graph.player
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
    centred_ends = None
    if endless is None:
        if callable(ends):
            ends = ends() if bool((lower != upper).any()) else None
        if ends is not None:
            on_scale = _rescaled([Fraction(u) * 2 - total for u in ends], scale, lower, upper)
            if on_scale is None:
                return None
            centred_ends, scale = on_scale
    values = TwoPlayerValues(
        lower=lower, upper=upper, remoteness=np.full(len(graph), -1, dtype=np.int32),
        scale=scale, total=total, endless=endless, ends=centred_ends)
    rank = np.zeros(len(graph), dtype=np.int32)
    if fixed is not None:
        rank[fixed.positions] = fixed.remoteness
    values.remoteness = remoteness(graph, values, rank)
    return values


def _rescaled(centred: list, scale: int, lower: np.ndarray, upper: np.ndarray):
    """``(centred on a common scale, that scale)``, ``lower`` and ``upper`` (on ``scale``)
    multiplied up to it in place where they hold values: a tier's whole-game ends may have
    denominators its own terminals lack. None when the values no longer fit."""
    found = scaled_integers([Fraction(w) * scale for w in centred])
    if found is None:
        return None
    ints, factor = found
    if factor != 1:
        for bound, sentinel in ((lower, NO_END_LOW), (upper, NO_END_HIGH)):
            real = bound != sentinel
            if real.any() and int(np.max(np.abs(bound[real]))) * factor >= 2**60:
                return None
            bound[real] *= factor
    return tuple(ints), scale * factor


def remoteness(graph, values: TwoPlayerValues, end_rank: np.ndarray) -> np.ndarray:
    """Every position's remoteness (docs/graph.md): where a side can force the end at the
    position's value, that side hurries and the other delays, along optimal moves only (both
    sides can: the winner, or at a tie the mover, hurries). The backward growth from the ends
    (terminals at ``end_rank``: 0, or a tier's stand-in's own remoteness) along optimal moves,
    a hurrying mover joining at its first optimal move in, a delaying one when all are in. A
    position none can force the end of (a draw) has none: -1."""
    player = graph.player
    value, known = values.decided()
    forced_by_0 = known & (values.lower == value)
    forced_by_1 = known & (values.upper == value)
    owner, child = edge_owner(graph), graph.child
    # optimal moves, out of positions whose end a side can force (all such moves lead to known
    # values of the same size: see docs/graph.md)
    forced = forced_by_0 | forced_by_1
    optimal = forced[owner] & known[child] & (value[owner] == value[child])
    mover_value = np.where(player == 1, -value, value)
    hurries = np.where(forced_by_0 & forced_by_1, mover_value >= 0,
                       np.where(player == 1, forced_by_1, forced_by_0))
    needed = np.bincount(owner[optimal], minlength=len(graph))
    seeds = np.flatnonzero((player == TERMINAL) & forced & (end_rank >= 0))
    rank = attractor(graph, seeds, hurries, needed, optimal, end_rank[seeds])
    rank[~forced] = -1
    return rank
