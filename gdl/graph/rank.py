"""Ranked positions: a game's states numbered densely, a tier at a time (docs/graph.md).

A *layout* numbers the states of each tier 0, 1, ... with few holes, from what the game's
states show, so a solve keeps a code of one or two bytes a slot and no key a position:

- **fixed cells**: cells whose value is the same throughout a tier (the mover where the tier
  says whose turn it is, a cell that never changes). A tier keeps the values of the first state
  the walk meets in it; they take no room in its slots.
- **components**: the other cells, in small groups with the configurations they may take. A
  *stack* is a counter and the cells it guards: a cell that holds one value (its empty value)
  exactly when the counter is at most (or at least) some threshold, any other declared value
  otherwise. A Connect Four column (its height and its discs) has 1 + 2 + 4 + 8 + 16 = 31
  configurations instead of 5 x 3^4 = 405. Every other cell is a component of its own, taking
  its declared values (a symbol variable's span may hold values it never takes).
- **weights**: linear functions of the cells that are the same throughout a tier: the count of
  each value in a variable's cells (red discs in a tier of Connect Four), a variable's sum, the
  tier itself where it is a linear function of the cells. Each configuration adds its share; a
  tier holds only the states whose components add up to the first state's weights.

The states of a tier are then ranked by the combinatorial number system over the components
(``Tables``: for each component, remaining weight and configuration, how many states come
before). Connect Four 6 x 4 gets 480 million slots for its 95 million positions (the
mixed-radix key spans 2^55), tic-tac-toe 6,046 for 5,478.

The layout is found from a sample of reachable states (breadth-first, then random playouts
seeded for the same answer each time) and is only a guess: the native passes check every state
they reach against it (gdl/backends/native/rank.c), and where one does not fit, ``refine`` drops
the structure it breaks and the walk starts again. So a layout is never wrong, only less dense
than it could be.

This module holds the layout and its tables, and a ranker in Python (``Ranker``) that a
position database reads without the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from math import prod

import numpy as np

# Sample: positions found breadth-first, then random playouts (seeded) of at most PLAYOUT_PLIES.
BFS_SAMPLE = 2_000
PLAYOUTS = 256
PLAYOUT_PLIES = 400
SEED = 20240529
# The most configurations a stack may have, the largest code table a component may have, the
# most remaining-weight states and prefix entries the tables may take (bytes: 12 an entry).
MAX_CONFIGS = 1 << 16
MAX_CODES = 1 << 22
MAX_REM = 1 << 20
MAX_PREFIX = 1 << 22
CAP = 1 << 62            # counts are capped here: a tier this large is never allocated
SLOT_LIMIT = (1 << 32) - 1      # the most slots a tier may have


@dataclass(frozen=True)
class Component:
    """Cells ranked together, and the configurations they may take (sorted), as ``describe``d:
    ``{"kind": "cell", "cell": i, "values": [...]}`` or ``{"kind": "stack", "counter": h,
    "values": [...], "guarded": [[cell, threshold, below, empty, [other values]], ...]}``
    (``below``: the cell is empty when the counter is at most the threshold; else at least)."""

    cells: tuple[int, ...]
    configs: tuple[tuple[int, ...], ...]
    description: dict = field(compare=False, hash=False)


@dataclass(frozen=True)
class Weight:
    """A linear function of the cells, the same throughout a tier: ``{"kind": "count", "cells":
    [...], "value": v}`` (how many of the cells hold v) or ``{"kind": "linear", "cells": [...],
    "coefficients": [...]}``."""

    description: dict = field(hash=False)

    def of(self, cells: tuple[int, ...], config: tuple[int, ...]) -> int:
        d = self.description
        if d["kind"] == "count":
            chosen = set(d["cells"])
            return sum(1 for cell, value in zip(cells, config)
                       if cell in chosen and value == d["value"])
        coefficient = dict(zip(d["cells"], d["coefficients"]))
        return sum(coefficient.get(cell, 0) * value for cell, value in zip(cells, config))


@dataclass(frozen=True)
class Layout:
    """How the states of a tier are ranked (see the module docstring)."""

    low: tuple[int, ...]           # the codec's digits: low end and size per cell
    size: tuple[int, ...]
    fixed: tuple[int, ...]
    components: tuple[Component, ...]
    weights: tuple[Weight, ...]

    def to_json(self) -> dict:
        return {"low": list(self.low), "size": list(self.size), "fixed": list(self.fixed),
                "components": [c.description for c in self.components],
                "weights": [w.description for w in self.weights]}

    @classmethod
    def from_json(cls, document: dict) -> Layout:
        """A layout from its JSON (a database's header: checked, every field a ValueError)."""
        low = _ints(document["low"])
        size = _ints(document["size"])
        if len(low) != len(size) or not all(1 <= s < 1 << 63 for s in size):
            raise ValueError("the layout's cells are not digits of a codec")
        cells = len(size)
        fixed = _ints(document["fixed"])
        components = tuple(component_from(d, low, size) for d in document["components"])
        weights = tuple(_weight_from(d, cells) for d in document["weights"])
        used = list(fixed) + [c for component in components for c in component.cells]
        if sorted(used) != list(range(cells)):
            raise ValueError("the layout does not cover each cell once")
        return cls(low, size, fixed, components, weights)


def _ints(items) -> tuple[int, ...]:
    if not isinstance(items, list) or not all(type(v) is int for v in items):
        raise ValueError("a list of integers was expected")
    return tuple(items)


def _weight_from(d, cells: int) -> Weight:
    if not isinstance(d, dict) or d.get("kind") not in ("count", "linear"):
        raise ValueError("unknown weight")
    chosen = _ints(d["cells"])
    if not all(0 <= c < cells for c in chosen):
        raise ValueError("a weight's cell is out of range")
    if d["kind"] == "count":
        if type(d["value"]) is not int:
            raise ValueError("a count's value is not an integer")
        return Weight({"kind": "count", "cells": list(chosen), "value": d["value"]})
    coefficients = _ints(d["coefficients"])
    if len(coefficients) != len(chosen):
        raise ValueError("a linear weight's coefficients do not match its cells")
    return Weight({"kind": "linear", "cells": list(chosen), "coefficients": list(coefficients)})


def component_from(d, low: tuple[int, ...], size: tuple[int, ...]) -> Component:
    """A component from its description (checked: a ValueError for anything malformed)."""
    if not isinstance(d, dict):
        raise ValueError("a component is not an object")

    def values_of(cell: int, items) -> tuple[int, ...]:
        values = _ints(items)
        if not values or len(set(values)) != len(values) or not all(
                0 <= v - low[cell] < size[cell] for v in values):
            raise ValueError("a component's values are outside its cell's digit")
        return tuple(sorted(values))

    def cell_of(item) -> int:
        if type(item) is not int or not 0 <= item < len(size):
            raise ValueError("a component's cell is out of range")
        return item

    if d.get("kind") == "cell":
        cell = cell_of(d["cell"])
        values = values_of(cell, d["values"])
        if len(values) > MAX_CODES:
            raise ValueError("a component with too many values")
        return Component((cell,), tuple((v,) for v in values),
                         {"kind": "cell", "cell": cell, "values": list(values)})
    if d.get("kind") == "stack":
        counter = cell_of(d["counter"])
        counts = values_of(counter, d["values"])
        guarded = []
        for item in d["guarded"]:
            if not isinstance(item, list) or len(item) != 5:
                raise ValueError("a guarded cell is not [cell, threshold, below, empty, values]")
            cell, threshold, below, empty, others = item
            cell = cell_of(cell)
            if type(threshold) is not int or type(below) is not bool or type(empty) is not int:
                raise ValueError("a guard is not numbers")
            guarded.append((cell, threshold, below, values_of(cell, [empty])[0],
                            values_of(cell, others)))
        return _stack(counter, counts, guarded)
    raise ValueError("unknown component")


def _stack(counter: int, counts: tuple[int, ...], guarded: list) -> Component:
    """A counter and the cells it guards: configurations in sorted order."""
    cells = (counter,) + tuple(g[0] for g in guarded)
    if len(set(cells)) != len(cells):
        raise ValueError("a stack names a cell twice")
    total = 0
    for count in counts:
        total += prod(1 if _empty_at(count, g) else len(g[4]) for g in guarded)
    if total > MAX_CONFIGS:
        raise ValueError("a stack with too many configurations")
    configs: list[tuple[int, ...]] = []
    for count in counts:
        choices = [(g[3],) if _empty_at(count, g) else g[4] for g in guarded]
        configs.extend((count,) + rest for rest in product(*choices))
    description = {"kind": "stack", "counter": counter, "values": list(counts),
                   "guarded": [[g[0], g[1], g[2], g[3], list(g[4])] for g in guarded]}
    return Component(cells, tuple(sorted(configs)), description)


def _empty_at(count: int, guard) -> bool:
    _, threshold, below, _, _ = guard
    return count <= threshold if below else count >= threshold


# ---- the tables -----------------------------------------------------------------------------------

@dataclass
class Tables:
    """A layout's tables (rank.c reads them; ``Ranker`` too): per component its code table and
    configurations, per configuration its weights (shifted to start at 0 per component), and
    per component, remaining weight and configuration the states that come before."""

    arrays: dict
    nrem: int
    ranges: tuple[int, ...]        # per weight: the largest total
    rem_stride: np.ndarray
    counts: list[np.ndarray]       # per component (and one past the last): states by remaining weight
    shifted: list[np.ndarray]      # per component: configurations x weights (shifted)

    @property
    def tier_size(self) -> np.ndarray:
        return self.counts[0]


class TooLarge(ValueError):
    """The layout's tables would be too large."""


def build_tables(layout: Layout) -> Tables:
    """The tables of a layout; ``TooLarge`` where they pass the limits above."""
    components = layout.components
    ndims = len(layout.weights)
    shifted = []
    for component in components:
        w = np.array([[weight.of(component.cells, config) for weight in layout.weights]
                      for config in component.configs],
                     dtype=np.int64).reshape(len(component.configs), ndims)
        if ndims:
            w = w - w.min(axis=0)
        shifted.append(w)
    ranges = tuple(int(sum(int(w[:, k].max()) for w in shifted)) for k in range(ndims))
    nrem = prod(r + 1 for r in ranges)
    if nrem > MAX_REM:
        raise TooLarge(f"{nrem:,} remaining weights")
    entries = sum(nrem * (len(c.configs) + 1) for c in components)
    if entries > MAX_PREFIX:
        raise TooLarge(f"{entries:,} prefix entries")
    rem_stride = np.array([prod(r + 1 for r in ranges[k + 1:]) for k in range(ndims)],
                          dtype=np.int64)
    # each remaining-weight state's coordinates
    coordinates = np.zeros((nrem, ndims), dtype=np.int64)
    flat = np.arange(nrem, dtype=np.int64)
    for k in range(ndims):
        coordinates[:, k] = (flat // rem_stride[k]) % (ranges[k] + 1)
    counts: list[np.ndarray] = [np.zeros(nrem, dtype=np.int64) for _ in range(len(components) + 1)]
    counts[-1][0] = 1
    prefixes, nexts = [], []
    for c in range(len(components) - 1, -1, -1):
        w = shifted[c]
        n = len(w)
        delta = w @ rem_stride if ndims else np.zeros(n, dtype=np.int64)
        prefix = np.zeros((nrem, n + 1), dtype=np.int64)
        nextrem = np.full((nrem, n), -1, dtype=np.int32)
        after = counts[c + 1]
        for i in range(n):
            valid = (coordinates >= w[i]).all(axis=1) if ndims else np.ones(nrem, dtype=bool)
            target = flat - delta[i]
            ways = np.zeros(nrem, dtype=np.int64)
            ways[valid] = after[target[valid]]
            nextrem[valid, i] = target[valid]
            prefix[:, i + 1] = np.minimum(prefix[:, i] + ways, CAP)
        counts[c] = prefix[:, n].copy()
        prefixes.append(prefix)
        nexts.append(nextrem)
    prefixes.reverse()
    nexts.reverse()
    arrays = _arrays(layout, shifted, rem_stride, prefixes, nexts, counts[0])
    return Tables(arrays, nrem, ranges, rem_stride, counts, shifted)


def _arrays(layout: Layout, shifted, rem_stride, prefixes, nexts, tier_size) -> dict:
    components = layout.components
    comp_cell_start = np.cumsum([0] + [len(c.cells) for c in components]).astype(np.int32)
    comp_cells = np.array([cell for c in components for cell in c.cells] or [0], dtype=np.int32)
    strides, code_start, idx = [], [], []
    at = 0
    for component in components:
        sizes = [layout.size[cell] for cell in component.cells]
        at += prod(sizes)
        if at > MAX_CODES:
            raise TooLarge(f"more than {MAX_CODES:,} code table entries")
    at = 0
    for component in components:
        sizes = [layout.size[cell] for cell in component.cells]
        local = [prod(sizes[j + 1:]) for j in range(len(sizes))]
        strides.extend(local)
        code_start.append(at)
        table = np.full(prod(sizes), -1, dtype=np.int32)
        codes = [sum((v - layout.low[cell]) * s for v, cell, s in zip(config, component.cells, local))
                 for config in component.configs]
        table[codes] = np.arange(len(codes), dtype=np.int32)
        idx.append(table)
        at += len(table)
    nconf = np.array([len(c.configs) for c in components] or [0], dtype=np.int64)
    conf_start = np.concatenate(([0], np.cumsum(nconf)[:-1])).astype(np.int64)
    value_sizes = [len(c.configs) * len(c.cells) for c in components]
    conf_value_start = np.concatenate(([0], np.cumsum(value_sizes)[:-1])).astype(np.int64)
    conf_values = np.array([v for c in components for config in c.configs for v in config] or [0],
                           dtype=np.int64)
    conf_w = (np.concatenate(shifted).reshape(-1) if shifted and len(layout.weights)
              else np.zeros(1, dtype=np.int64))
    pre_sizes = [p.size for p in prefixes]
    next_sizes = [q.size for q in nexts]
    return {
        "fixed_cells": np.array(layout.fixed or (0,), dtype=np.int32),
        "comp_cell_start": comp_cell_start,
        "comp_cells": comp_cells,
        "cell_stride": np.array(strides or [0], dtype=np.int64),
        "comp_code_start": np.array(code_start or [0], dtype=np.int64),
        "idx_table": np.concatenate(idx) if idx else np.zeros(1, dtype=np.int32),
        "comp_nconf": nconf,
        "conf_start": conf_start if len(conf_start) else np.zeros(1, dtype=np.int64),
        "conf_value_start": conf_value_start if len(conf_value_start) else np.zeros(1, np.int64),
        "conf_values": conf_values,
        "conf_w": conf_w,
        "rem_stride": rem_stride if len(rem_stride) else np.zeros(1, dtype=np.int64),
        "pre_start": np.concatenate(([0], np.cumsum(pre_sizes)[:-1])).astype(np.int64)
        if pre_sizes else np.zeros(1, dtype=np.int64),
        "next_start": np.concatenate(([0], np.cumsum(next_sizes)[:-1])).astype(np.int64)
        if next_sizes else np.zeros(1, dtype=np.int64),
        # 32 bits: a tier has fewer slots than 2^32 (rank_solve's slot limit), so every entry
        # a fitting state reads is below it; larger ones are capped
        "prefix": np.minimum(np.concatenate([p.reshape(-1) for p in prefixes]), SLOT_LIMIT)
        .astype(np.uint32) if prefixes else np.zeros(1, dtype=np.uint32),
        "nextrem": np.concatenate([q.reshape(-1) for q in nexts]) if nexts
        else np.zeros(1, dtype=np.int32),
        "tier_size": tier_size,
    }


# ---- ranking in Python (a database without the game) -----------------------------------------

class Ranker:
    """Ranks states by a layout, in Python: ``weights(state)`` (the target it would have, or
    None where a component's cells hold no configuration) and ``rank(state, fixed, target)``
    within a tier whose fixed values and target are given (None where it does not fit)."""

    def __init__(self, layout: Layout, tables: Tables):
        self.layout, self.tables = layout, tables
        self.index = [{config: i for i, config in enumerate(c.configs)} for c in layout.components]

    def configs(self, state) -> list[int] | None:
        found = []
        for component, index in zip(self.layout.components, self.index):
            i = index.get(tuple(state[cell] for cell in component.cells))
            if i is None:
                return None
            found.append(i)
        return found

    def target(self, state) -> int | None:
        """The flat remaining-weight state a tier holding ``state`` would have."""
        found = self.configs(state)
        if found is None:
            return None
        total = np.zeros(len(self.layout.weights), dtype=np.int64)
        for w, i in zip(self.tables.shifted, found):
            total += w[i]
        return int(total @ self.tables.rem_stride) if len(total) else 0

    def rank(self, state, fixed: tuple[int, ...], target: int) -> int | None:
        if tuple(state[cell] for cell in self.layout.fixed) != tuple(fixed):
            return None
        found = self.configs(state)
        if found is None:
            return None
        rem, r = target, 0
        stride = self.tables.rem_stride
        for c, i in enumerate(found):
            w = self.tables.shifted[c]
            after = self.tables.counts[c + 1]
            for j in range(i):
                delta = int(w[j] @ stride) if len(stride) else 0
                if self._fits(rem, w[j]):
                    r += int(after[rem - delta])
            if not self._fits(rem, w[i]):
                return None
            rem -= int(w[i] @ stride) if len(stride) else 0
        return r if rem == 0 else None

    def _fits(self, rem: int, w: np.ndarray) -> bool:
        for k, s in enumerate(self.tables.rem_stride.tolist()):
            if (rem // s) % (self.tables.ranges[k] + 1) < int(w[k]):
                return False
        return True


# ---- finding a layout from a sample -----------------------------------------------------------

@dataclass
class Sample:
    """Reachable states for guessing a layout, their tiers, and whether a move of the sample
    stays in its tier (the ranked tables then do not apply)."""

    states: np.ndarray
    tiers: np.ndarray
    inside: bool


def sample_states(expander, root_key: int, tier_spec) -> Sample | None:
    """Breadth-first from the root, then random playouts (seeded); None after a rule error."""
    found = {root_key}
    inside = False
    frontier = np.array([root_key], dtype=np.uint64)
    while len(frontier) and len(found) < BFS_SAMPLE:
        expansion = expander.expand(frontier)
        if expansion is None:
            return None
        parent_tiers = expander.tiers(frontier, tier_spec)
        child_tiers = expander.tiers(expansion.child, tier_spec)
        if parent_tiers is None or child_tiers is None:
            return None
        inside = inside or bool((np.repeat(parent_tiers, np.diff(expansion.first))
                                 == child_tiers).any())
        fresh = [k for k in np.unique(expansion.child).tolist() if k not in found]
        found.update(fresh)
        frontier = np.array(fresh, dtype=np.uint64)
    rng = np.random.default_rng(SEED)
    current = np.full(PLAYOUTS, root_key, dtype=np.uint64)
    for _ in range(PLAYOUT_PLIES):
        expansion = expander.expand(current)
        if expansion is None:
            return None
        counts = np.diff(expansion.first)
        going = counts > 0
        if not going.any():
            break
        offsets = (rng.random(int(going.sum())) * counts[going]).astype(np.int64)
        current = expansion.child[expansion.first[:-1][going] + offsets]
        found.update(current.tolist())
    keys = np.array(sorted(found), dtype=np.uint64)
    tiers = expander.tiers(keys, tier_spec)
    if tiers is None:
        return None
    return Sample(expander.codec.decode_many(keys), tiers, inside)


def _children(game, state: tuple) -> list[tuple]:
    """A state's children through the protocol, in the order of its legal actions."""
    from gdl.protocol import TERMINAL

    if game.current_player(state) == TERMINAL:
        return []
    return [tuple(game.apply(state, action)) for action in game.legal_actions(state)]


def sample_by_protocol(game, root: tuple, tier_of) -> Sample:
    """``sample_states`` through the game's protocol, for states with no 63-bit key (a wide
    expander has no walk): the same kind of sample, breadth first, then seeded random
    playouts, a Python call a move, but a few thousand states. ``tier_of``: a state's tier."""
    found = {root}
    inside = False
    frontier = [root]
    while frontier and len(found) < BFS_SAMPLE:
        fresh = []
        for state in frontier:
            tier = tier_of(state)
            for child in _children(game, state):
                inside = inside or tier_of(child) == tier
                if child not in found:
                    found.add(child)
                    fresh.append(child)
        frontier = fresh
    rng = np.random.default_rng(SEED)
    for _ in range(PLAYOUTS):
        state = root
        for _ in range(PLAYOUT_PLIES):
            moves = _children(game, state)
            if not moves:
                break
            state = moves[int(rng.random() * len(moves))]
            found.add(state)
    states = sorted(found)
    return Sample(np.array(states, dtype=np.int64).reshape(len(states), len(root)),
                  np.array([tier_of(state) for state in states], dtype=np.int64), inside)


def inferred_by_protocol(game, root: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cells that only grow and cells that only shrink along the moves of a breadth-first
    sample, through the protocol (as gdl.graph.rank_solve infers them over keys)."""
    raised: set[int] = set()
    lowered: set[int] = set()
    seen = {root}
    frontier = [root]
    while frontier and len(seen) < BFS_SAMPLE * 4:
        fresh = []
        for state in frontier:
            for child in _children(game, state):
                raised.update(i for i, (a, b) in enumerate(zip(state, child)) if b > a)
                lowered.update(i for i, (a, b) in enumerate(zip(state, child)) if b < a)
                if child not in seen:
                    seen.add(child)
                    fresh.append(child)
        frontier = fresh
    both = raised & lowered
    return tuple(sorted(raised - both)), tuple(sorted(lowered - both))


def derive(states: np.ndarray, tiers: np.ndarray, low: tuple[int, ...], size: tuple[int, ...],
           masks: list[int], owners: list[int], tier_cells=None) -> Layout:
    """A layout guessed from reachable ``states`` and their ``tiers`` (see the module
    docstring); ``masks`` and ``owners``: each cell's declared values and variable;
    ``tier_cells``: the tier as ``(growing, shrinking)`` cells where it is inferred, else None."""
    cells = len(size)
    declared = [_declared(masks[c], low[c], size[c]) for c in range(cells)]
    fixed = tuple(c for c in range(cells) if _per_tier(states[:, c], tiers))
    free = [c for c in range(cells) if c not in fixed]
    stacks = _stacks(states, free, declared)
    components: list[Component] = []
    taken: set[int] = set()
    for counter, guarded in stacks:
        try:
            component = _stack(counter, declared[counter], guarded)
        except ValueError:
            continue
        components.append(component)
        taken.update(component.cells)
    for cell in free:
        if cell not in taken:
            components.append(_single(cell, declared[cell]))
    components.sort(key=component_order)
    weights = _weights(states, tiers, fixed, free, owners, declared, tier_cells)
    layout = Layout(tuple(low), tuple(size), fixed, tuple(components), ())
    return fit_weights(layout, weights)


def component_order(component: Component) -> tuple[int, int]:
    """Components with fewer configurations first: the last, which changes from one rank to
    the next, is then the largest, and a scan through a tier unranks it alone most of the time
    (in one row of its table, in the cache)."""
    return len(component.configs), component.cells[0]


def _declared(mask: int, low: int, size: int) -> tuple[int, ...]:
    if size > 64:
        return tuple(range(low, low + size))
    return tuple(low + b for b in range(size) if mask >> b & 1)


def _single(cell: int, values: tuple[int, ...]) -> Component:
    return Component((cell,), tuple((v,) for v in values),
                     {"kind": "cell", "cell": cell, "values": list(values)})


def _per_tier(column: np.ndarray, tiers: np.ndarray) -> bool:
    """Whether ``column`` holds one value in each tier."""
    order = np.lexsort((column, tiers))
    t, c = tiers[order], column[order]
    same_tier = t[1:] == t[:-1]
    return not bool((same_tier & (c[1:] != c[:-1])).any())


def _stacks(states: np.ndarray, free: list[int], declared) -> list[tuple[int, list]]:
    """Counters and the cells they guard (see ``Component``), the counter guarding the most
    cells first; a cell is guarded by one counter, and a counter guards no other."""
    guards: dict[int, list] = {}
    counters = states[:, free]
    if counters.size and counters.min() >= -2**15 and counters.max() < 2**15:
        counters = counters.astype(np.int16)       # a quarter of the bytes _guards sweeps
    for x in free:
        column = states[:, x]
        values = np.unique(column)
        if len(values) < 2:
            continue
        found = _guards(column, counters, values, declared[x])
        for i, h in enumerate(free):
            if h != x and found[i] is not None:
                guards.setdefault(h, []).append((x, *found[i]))
    chosen: list[tuple[int, list]] = []
    used: set[int] = set()
    while guards:
        h = max(guards, key=lambda c: (len(guards[c]), -c))
        cells = [g for g in guards.pop(h) if g[0] not in used and g[0] != h]
        if h in used or not cells:
            continue
        cells.sort(key=lambda g: (g[1] if g[2] else -g[1], g[0]))
        chosen.append((h, cells))
        used.add(h)
        used.update(g[0] for g in cells)
        for other in list(guards):
            guards[other] = [g for g in guards[other] if g[0] not in used]
            if other in used or not guards[other]:
                del guards[other]
    return chosen


def _guards(column: np.ndarray, counters: np.ndarray, values: np.ndarray, declared) -> list:
    """Per counter (a column of ``counters``): ``(threshold, below, empty, other values)`` where
    ``column`` holds one value (empty) exactly when the counter is at most (below) or at least
    the threshold, in the sample (the first such value of ``values``), else None. All counters
    at once: the sample's rows are many, the Python loop is over the values only."""
    found: list = [None] * counters.shape[1]
    for empty in values.tolist():
        holds = column == empty
        if holds.all() or not holds.any():
            continue
        on, off = counters[holds], counters[~holds]
        on_max, on_min = on.max(axis=0), on.min(axis=0)
        off_max, off_min = off.max(axis=0), off.min(axis=0)
        others = tuple(v for v in declared if v != empty)
        for i in range(counters.shape[1]):
            if found[i] is not None:
                continue
            if on_max[i] < off_min[i]:
                found[i] = (int(on_max[i]), True, empty, others)
            elif on_min[i] > off_max[i]:
                found[i] = (int(on_min[i]), False, empty, others)
    return found


def _weights(states, tiers, fixed, free, owners, declared, tier_cells) -> list[Weight]:
    """Candidate weights, most useful first, each the same throughout a tier in the sample:
    the tier as a linear function of the free cells, then each variable's counts of each of its
    values, then each variable's sum."""
    candidates: list[Weight] = []
    linear = _tier_linear(states, tiers, free, tier_cells)
    if linear is not None:
        candidates.append(linear)
    groups: dict[int, list[int]] = {}
    for cell in free:
        groups.setdefault(owners[cell], []).append(cell)
    for cells in groups.values():
        values = sorted(set().union(*(declared[c] for c in cells)))
        if len(values) <= 64:
            for value in values:
                candidates.append(Weight({"kind": "count", "cells": cells, "value": value}))
    for cells in groups.values():
        if len(cells) > 1:
            candidates.append(Weight({"kind": "linear", "cells": cells,
                                      "coefficients": [1] * len(cells)}))
    kept = []
    for weight in candidates:
        column = _evaluate(weight, states)
        if _per_tier(column, tiers):
            kept.append(weight)
    return kept


def _evaluate(weight: Weight, states: np.ndarray) -> np.ndarray:
    d = weight.description
    if d["kind"] == "count":
        return (states[:, d["cells"]] == d["value"]).sum(axis=1)
    return states[:, d["cells"]] @ np.array(d["coefficients"], dtype=np.int64)


def _tier_linear(states, tiers, free, tier_cells) -> Weight | None:
    """An inferred tier (cells that only grow, less cells that only shrink) as a weight, where
    it is the same throughout each tier of the sample."""
    if tier_cells is not None:
        growing, shrinking = tier_cells
        coefficient = {c: 1 for c in growing}
        for c in shrinking:
            coefficient[c] = coefficient.get(c, 0) - 1
    else:
        return None          # a declared tier: the variables' sums and counts stand for it
    chosen = [c for c in free if coefficient.get(c)]
    if not chosen:
        return None
    weight = Weight({"kind": "linear", "cells": chosen,
                     "coefficients": [coefficient[c] for c in chosen]})
    if not _per_tier(_evaluate(weight, states), tiers):
        return None
    return weight


def fit_weights(layout: Layout, candidates: list[Weight]) -> Layout:
    """The layout with the candidate weights that add something (linearly independent of the
    ones kept, component by component) and keep the tables within their limits."""
    kept: list[Weight] = []
    basis: list[list[Fraction]] = []
    for weight in candidates:
        column = _column(layout, weight)
        reduced = _reduce(column, basis)
        if not any(reduced):
            continue
        trial = Layout(layout.low, layout.size, layout.fixed, layout.components,
                       tuple(kept + [weight]))
        if not _within_limits(trial):
            continue
        kept.append(weight)
        basis.append(reduced)
    return Layout(layout.low, layout.size, layout.fixed, layout.components, tuple(kept))


def _column(layout: Layout, weight: Weight) -> list[Fraction]:
    """A weight's values over every configuration of every component, each component's shifted
    to start at 0 (a constant per component adds nothing to the tier's constraint)."""
    out: list[Fraction] = []
    for component in layout.components:
        values = [weight.of(component.cells, config) for config in component.configs]
        base = values[0]
        out.extend(Fraction(v - base) for v in values)
    return out


def _reduce(column: list[Fraction], basis: list[list[Fraction]]) -> list[Fraction]:
    """``column`` less its projection on the (echelon) basis: zero where it depends on it."""
    column = list(column)
    for row in basis:
        pivot = next(i for i, v in enumerate(row) if v)
        if column[pivot]:
            factor = column[pivot] / row[pivot]
            column = [a - factor * b for a, b in zip(column, row)]
    return column


def _within_limits(layout: Layout) -> bool:
    ranges = []
    for weight in layout.weights:
        total = 0
        for component in layout.components:
            values = [weight.of(component.cells, config) for config in component.configs]
            total += max(values) - min(values)
        ranges.append(total)
    nrem = prod(r + 1 for r in ranges)
    entries = sum(nrem * (len(c.configs) + 1) for c in layout.components)
    return nrem <= MAX_REM and entries <= MAX_PREFIX


# ---- refining a layout a state did not fit ----------------------------------------------------

def refine(layout: Layout, declared: list[tuple[int, ...]], state: tuple[int, ...],
           fixed: tuple[int, ...] | None, target: int | None, tables: Tables) -> Layout | None:
    """A coarser layout that ``state`` fits, given the tier it belongs to (its fixed values and
    target; None where the tier is new) and each cell's ``declared`` values; None where
    nothing is left to drop."""
    if fixed is not None:
        moved = [c for c, v in zip(layout.fixed, fixed) if state[c] != v]
        if moved:
            kept = tuple(c for c in layout.fixed if c not in moved)
            components = sorted(list(layout.components) + [_single(c, declared[c]) for c in moved],
                                key=component_order)
            return fit_weights(Layout(layout.low, layout.size, kept, tuple(components), ()),
                               list(layout.weights))
    ranker = Ranker(layout, tables)
    if ranker.configs(state) is None:
        components = []
        for component, index in zip(layout.components, ranker.index):
            if tuple(state[c] for c in component.cells) in index:
                components.append(component)
            elif len(component.cells) > 1:          # split into cells, each its declared values
                components.extend(_single(c, declared[c]) for c in component.cells)
            else:                                    # a value never declared: the whole digit
                cell = component.cells[0]
                components.append(_single(cell, tuple(range(
                    layout.low[cell], layout.low[cell] + layout.size[cell]))))
        components.sort(key=component_order)
        return fit_weights(Layout(layout.low, layout.size, layout.fixed, tuple(components), ()),
                           list(layout.weights))
    if target is None or not layout.weights:
        return None
    mine = ranker.target(state)
    if mine is None:
        return None
    stride = tables.rem_stride.tolist()
    keep = [w for k, w in enumerate(layout.weights)
            if (mine // stride[k]) % (tables.ranges[k] + 1)
            == (target // stride[k]) % (tables.ranges[k] + 1)]
    if len(keep) == len(layout.weights):
        return None
    return Layout(layout.low, layout.size, layout.fixed, layout.components, tuple(keep))


def declared_values(masks: list[int], low: tuple[int, ...], size: tuple[int, ...]
                    ) -> list[tuple[int, ...]]:
    """Each cell's declared values, from its mask over its codec digit."""
    return [_declared(m, lo, s) for m, lo, s in zip(masks, low, size)]
