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

import numpy as np

from gdl.graph.induction import centred_terminals
from gdl.graph.order import edge_owner, gather, parents
from gdl.graph.solution import NO_END_HIGH, NO_END_LOW, TwoPlayerValues
from gdl.protocol import TERMINAL


def attractor(graph, targets: np.ndarray, joins_at_once: np.ndarray, needed: np.ndarray,
              allowed: np.ndarray | None = None) -> np.ndarray:
    """The rank at which each position joins the backward growth from ``targets`` (0 for them,
    -1 for never). A position with ``joins_at_once`` joins when one allowed edge leads to a
    member; any other when ``needed[p]`` of its allowed edges do."""
    reverse_first, reverse_edge = parents(graph)
    owner = edge_owner(graph)
    rank = np.full(len(graph), -1, dtype=np.int32)
    rank[targets] = 0
    remaining = needed.astype(np.int64)
    frontier = targets
    step = 0
    while len(frontier):
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
        frontier = np.unique(np.concatenate((at_once, ready)))
        rank[frontier] = step
    return rank


def retrograde(graph, total) -> TwoPlayerValues | None:
    """Values, draw ranges and remoteness of every position (None when values overflow)."""
    terminal = centred_terminals(graph, total)
    if terminal is None:
        return None
    score, scale = terminal
    player = graph.player
    is_terminal = player == TERMINAL
    out_degree = np.diff(graph.first)
    thresholds = np.unique(score[is_terminal])
    lower = np.full(len(graph), NO_END_LOW, dtype=np.int64)
    upper = np.full(len(graph), NO_END_HIGH, dtype=np.int64)
    for t in thresholds.tolist():          # ascending: each attractor holds the next one
        joined = attractor(graph, np.flatnonzero(is_terminal & (score >= t)), player == 0,
                           out_degree) >= 0
        lower[joined] = t
    for t in thresholds[::-1].tolist():    # descending
        joined = attractor(graph, np.flatnonzero(is_terminal & (score <= t)), player == 1,
                           out_degree) >= 0
        upper[joined] = t
    decided = lower == upper
    owner = edge_owner(graph)
    child = graph.child
    optimal = decided[owner] & decided[child] & (lower[owner] == lower[child])
    mover_value = np.where(player == 1, -lower, lower)
    fastest = decided & (mover_value >= 0)
    needed = np.bincount(owner[optimal], minlength=len(graph))
    remoteness = attractor(graph, np.flatnonzero(is_terminal), fastest, needed, optimal)
    remoteness[~decided] = -1
    return TwoPlayerValues(lower=lower, upper=upper, remoteness=remoteness, scale=scale,
                           total=total)
