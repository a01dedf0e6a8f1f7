"""How many nodes a depth-limited search will visit, from the same search run shallower.

A search to depth D visits n(D) nodes. Run to depths 1, 2, ... while that stays cheap, it gives
n(1), ..., n(k) exactly (counted, not timed: the same game and options give the same counts on
any machine, under any load); ``extrapolate`` then takes n(D) as n(k) times the growth per ply
measured over the last two plies, g = sqrt(n(k) / n(k - 2)), to the power D - k. Two plies,
because alpha-beta's cost alternates between odd and even depths (Knuth and Moore: b^ceil(d/2)
+ b^floor(d/2) - 1 leaves with perfect ordering). The probe measures the search that will run,
pruning, tables, chance and all, where a model from random playouts (gdl.tools.validate's
Knuth estimate) has to guess how much alpha-beta or Star2 prunes: on Pig with a six-sided die
Star2 to depth 12 visits 5.0e9 nodes, the playouts' pruning model said 6.0e7 and the
extrapolation from depths up to 7 says 5.0e9.

``probe`` decides how deep to go from the counts alone: it stops before a depth whose predicted
count (the last count times the last ply's growth) passes ``budget`` nodes, so the probe costs
about ``budget`` nodes at most (a little more where the growth jumps).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    """The node counts of the search at depths 1..len(counts), and what they say of ``depth``."""

    depth: int                      # the depth the search will run to
    counts: tuple[int, ...]         # counts[d - 1]: nodes of the search to depth d
    nodes: float                    # the estimate for ``depth`` (exact when ``exact``)
    growth: float                   # nodes per ply, measured (1.0 when not needed)

    @property
    def exact(self) -> bool:
        return len(self.counts) >= self.depth

    def describe(self) -> str:
        """How the estimate was made, as a phrase: "from <this>"."""
        if self.exact:
            return f"the same search to depth {self.depth}, run in full to measure it"
        last = len(self.counts)
        span = "depth 1" if last == 1 else f"depths 1-{last}"
        return (f"the same search run to {span} ({self.counts[-1]:,} nodes at depth {last}), "
                f"extrapolated at {self.growth:.3g}x a ply")


def extrapolate(counts: tuple[int, ...], depth: int) -> tuple[float, float]:
    """(nodes at ``depth``, growth per ply) from the counts at depths 1..k (k >= 1)."""
    k = len(counts)
    if k >= depth:
        return float(counts[depth - 1]), 1.0
    last = max(counts[-1], 1)
    if k >= 3:
        growth = math.sqrt(last / max(counts[-3], 1))
    elif k == 2:
        growth = last / max(counts[0], 1)
    else:
        growth = float(last)        # the root's children: the first ply's own branching
    growth = max(growth, 1.0)
    return last * growth ** (depth - k), growth


def probe(count_nodes: Callable[[int], int], depth: int, budget: int) -> Probe:
    """Run ``count_nodes(d)`` (the search to depth d, its node count) for d = 1, 2, ... until
    ``depth``, or until the next depth's predicted count passes ``budget``; then extrapolate.
    Whatever ``count_nodes`` raises goes to the caller."""
    counts: list[int] = []
    while len(counts) < depth:
        if len(counts) >= 2:
            ahead = counts[-1] * max(counts[-1] / max(counts[-2], 1), 1.0)
            if ahead > budget:
                break
        elif counts and counts[-1] * counts[-1] > budget:
            break       # one ply's growth is the first count itself
        counts.append(count_nodes(len(counts) + 1))
    nodes, growth = extrapolate(tuple(counts), depth)
    return Probe(depth=depth, counts=tuple(counts), nodes=nodes, growth=growth)
