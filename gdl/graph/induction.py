"""Backward induction over an acyclic position graph: each position valued once, after every
position its moves lead to (``order.levels``: terminals first, then by height).

- ``two_player_induction``: two players, constant-sum, no chance, integer-scaled values: a level
  at a time with numpy. A position's value is its best child's for the mover; its remoteness
  is one more than the fastest optimal child's when the mover wins or ties, the slowest's when
  it loses.
- ``vector_induction``: any acyclic game (chance, n players, general-sum), in exact ``int`` /
  ``Fraction`` arithmetic: a decision position takes the vector of its *first* child (in
  declaration order) that is best for the mover, a chance position the probability-weighted
  sum of its children's vectors. This is the tree solvers' rule (``gdl.solvers.maxn`` and
  ``expectiminimax``: strict improvement only), so the two agree at every position.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from gdl.graph.order import gather
from gdl.graph.solution import TwoPlayerValues, VectorValues
from gdl.protocol import CHANCE, TERMINAL


def scaled_integers(values: list) -> tuple[list[int], int] | None:
    """``(each value times scale, scale)``, ``scale`` the least common multiple of the values'
    denominators; None when one does not fit the int64 arithmetic the solvers do on them."""
    scale = lcm(1, *(Fraction(v).denominator for v in values))
    ints = [int(v * scale) for v in values]
    if any(abs(v) >= 2**60 for v in ints):
        return None
    return ints, scale


def centred_terminals(graph, total) -> tuple[np.ndarray, int] | None:
    """``(w per position (0 where not terminal), scale)`` with ``w = scale * (2 * u0 - total)``
    an int64, or None when the values do not fit."""
    found = scaled_integers([Fraction(values[0]) * 2 - total for values in graph.returns_table])
    if found is None:
        return None
    ints, scale = found
    table = np.array(ints + [0], dtype=np.int64)      # index -1 (not terminal) reads the 0
    return table[graph.returns_index], scale


def two_player_induction(graph, levels, total,
                         remoteness: np.ndarray | None = None) -> TwoPlayerValues | None:
    """Values and remoteness of a two-player constant-sum game without chance (None when its
    values do not fit in 64-bit integers). ``remoteness``, when given, holds the terminals'
    remoteness (0 for a real end; a tier's solve stands positions of later tiers in as terminals
    with their own)."""
    terminal = centred_terminals(graph, total)
    if terminal is None:
        return None
    score, scale = terminal
    if remoteness is None:
        remoteness = np.zeros(len(graph), dtype=np.int32)
    first, child, player = graph.first, graph.child, graph.player
    for nodes in levels[1:]:
        edges_children, counts = gather(first, child, nodes)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        sign = np.where(player[nodes] == 1, -1, 1).astype(np.int64)
        edge_sign = np.repeat(sign, counts)
        for_mover = score[edges_children] * edge_sign      # player 0's value, turned to the mover's
        best = np.maximum.reduceat(for_mover, starts)
        optimal = for_mover == np.repeat(best, counts)
        child_remoteness = remoteness[edges_children].astype(np.int64)
        fastest = np.minimum.reduceat(np.where(optimal, child_remoteness, 2**40), starts)
        slowest = np.maximum.reduceat(np.where(optimal, child_remoteness, -1), starts)
        remoteness[nodes] = 1 + np.where(best < 0, slowest, fastest)
        score[nodes] = best * sign
    return TwoPlayerValues(lower=score, upper=score, remoteness=remoteness, scale=scale,
                           total=total)


def native_two_player_induction(graph, total) -> TwoPlayerValues | None:
    """``two_player_induction`` in C, through the native expander that walked the graph
    (depth-first: no levels, no reversed edges, a byte a position besides the answer). None
    when it does not apply: no expander, values beyond 64 bits, or a cycle."""
    expander = getattr(graph, "expander", None)
    if expander is None:
        return None
    terminal = centred_terminals(graph, total)
    if terminal is None:
        return None
    score, scale = terminal
    remoteness = expander.induction(graph.first, graph.child, graph.player, score)
    if remoteness is None:
        return None
    return TwoPlayerValues(lower=score, upper=score, remoteness=remoteness, scale=scale,
                           total=total)


def vector_induction(graph, levels) -> VectorValues:
    """Exact value vectors of any acyclic game (see the module docstring)."""
    vectors: list = [None] * len(graph)
    returns_table = graph.returns_table
    first = graph.first
    child = graph.child
    probabilities = graph.probabilities
    probability_index = graph.probability_index
    players = graph.game.info.num_players
    for nodes in levels:
        for position in nodes.tolist():
            player = int(graph.player[position])
            if player == TERMINAL:
                vectors[position] = returns_table[graph.returns_index[position]]
                continue
            start, end = int(first[position]), int(first[position + 1])
            children = child[start:end].tolist()
            if player == CHANCE:
                sums = [0] * players
                for edge, c in zip(range(start, end), children):
                    p = probabilities[probability_index[edge]]
                    sums = [s + p * v for s, v in zip(sums, vectors[c])]
                vectors[position] = tuple(_plain(s) for s in sums)
                continue
            best = None
            for c in children:
                values = vectors[c]
                if best is None or values[player] > best[player]:   # strict: first best
                    best = values
            vectors[position] = best
    return VectorValues(vectors)


def _plain(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v
