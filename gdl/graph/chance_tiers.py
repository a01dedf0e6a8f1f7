"""A tier with chance and cycles inside it (Pig's banked points), solved on dense arrays.

``gdl.graph.tier_solve`` calls ``solve_tier`` for every tier of a two-player constant-sum game with
chance whose moves inside the tier form a cycle (in Pig a 1 brings the turn back to a turn
total of 0). The tier's moves are built once as index arrays: each move's child (a position of
the tier, or a *stand-in* for a position of a later tier, which carries that position's
certified interval and, where it is known, its exact value) and its probability.

The tier falls apart into pieces that no move inside it joins (Pig: one piece per pair of
banked scores): the weakly connected components. Each piece is solved **on its own**:

1. **Certified interval**, two ways (``piece_bounds``). The fast way, where every cycle of the
   piece passes through its *cut* (the positions its breadth-first search started from: a turn
   start in Pig): policy iteration in floats over the cut's few values, then a certificate, one
   outward-rounded sweep from just below and just above the policy's values that proves them a
   sub- and a super-solution of the Bellman equations. Otherwise, plain iteration
   (``bracket``): player 0's value iterated from below and from above at once, as
   ``gdl.graph.iteration.float_values`` does with ``bracket``, the lower column from the least
   terminal value, the upper from the greatest, a level at a time, the deepest first, until no
   value of the piece moves more than ``iteration.TOLERANCE``. Either way a chance position's
   mean is pushed outwards past its rounding error and the stand-ins carry the later tiers'
   bounds; the Bellman operator is monotone, so in a stopping game the bounds are proven.
2. **Exact check**, where every later tier is exact and its numbers are short (small goals):
   the policy read off the interval's middle is evaluated exactly and improved until no move is
   better (``iteration.exact_values``): then the values are exact.

Why the answer does not depend on the partition (one process, two workers, a Dask cluster):
pieces share no move inside the tier, the levels are computed on the whole tier before it is
cut, every numpy operation is element by element or reduces within one position's moves, and
each piece stops (policy rounds, certificate rounds, plain sweeps) by its own test; so a
piece's numbers are the same bits whichever other pieces share its task. The tasks are
``(file, first piece, last piece)``: the tier's arrays are written once to a file that every
worker reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph import exact_cut, iteration
from gdl.graph.exact_cut import pair as _pair
from gdl.graph.order import components, gather, levels, weak_components
from gdl.graph.solution import player_intervals, win_chance
from gdl.graph.tier_expand import byte_passes
from gdl.graph.tier_keys import key_numbers, key_of, search_keys, tier_function
from gdl.graph.tier_store import FloatTable, first_use_rows, plain_value, save_array, tabulate
from gdl.protocol import CHANCE, TERMINAL

# Digits of a later tier's exact value beyond which the exact check is not tried: the exact
# numbers of a tier are longer than those of the tiers it reaches, so once they are this long
# the check would soon give up anyway (Pig to 100 reaches iteration.MAX_DIGITS about half way
# down), after costing far more than the whole iteration.
EXACT_DIGITS = 100
# A tier of fewer positions is solved in this process: a task would cost more than it saves.
# (Pig's highest tiers are small, but their exact checks are long: they go to the workers.)
PARALLEL_MIN = 200


@dataclass
class LocalTier:
    """A tier's positions (``0..n-1``, in key order) and stand-ins (``n..``), as arrays."""

    n: int
    player: np.ndarray              # int8: a player, CHANCE, or TERMINAL (stand-ins too)
    first: np.ndarray               # int64, len(player) + 1
    child: np.ndarray               # int64 per move
    weight: np.ndarray              # float64 per move: its probability, 0 for a decision
    probability_index: np.ndarray   # int32 per move, into `probabilities`; -1 for a decision
    probabilities: list
    low: np.ndarray                 # float64: a terminal's or stand-in's lower bound
    high: np.ndarray                # float64: ... and upper bound
    exact_terminal: list            # Fraction per terminal or stand-in where known, else None
    level: np.ndarray               # int64: breadth-first distance inside the piece
    piece_first: np.ndarray         # int64: piece c is order[piece_first[c]:piece_first[c + 1]]
    order: np.ndarray               # int64: the positions, piece by piece, ascending in each
    floor: float                    # the least and greatest terminal bounds (clip limits)
    ceiling: float
    margin: float                   # more than one chance mean's rounding error
    try_exact: bool
    total: int | Fraction = 0       # the players' constant sum
    stats: dict = field(default_factory=dict)
    # the game's native passes (gdl.backends.native.chance_graph) where the pieces are solved in
    # C; None: with numpy. Every process of a solve takes the same way (``uses_native``), so the
    # floats are the same bits wherever a piece is solved.
    native: Any = None
    uses_native: bool = False

    # what gdl.graph.order and gdl.graph.iteration read of a graph
    def __len__(self) -> int:
        return len(self.player)

    @property
    def edges(self) -> int:
        return len(self.child)


@dataclass
class PieceAnswer:
    members: np.ndarray             # the positions, ascending
    low: np.ndarray
    high: np.ndarray
    exact: bool                     # whether the values are exact
    table: Any                      # the distinct value vectors, encoded for the database (a
                                    # list, or for floats an array of rows)
    index: np.ndarray               # each member's entry in `table`
    sweeps: int


def outward(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of exact numbers from their nearest floats: one step down, one step up."""
    return np.nextafter(values, -np.inf), np.nextafter(values, np.inf)


def build(n: int, player: np.ndarray, count: np.ndarray, child: np.ndarray,
          probability_index: np.ndarray, probabilities: list, terminal: dict,
          stand_ins: tuple, try_exact: bool, widest: int, native: Any = None
          ) -> LocalTier | None:
    """The tier as arrays, or None when its moves inside it form no cycle (the acyclic solve
    applies). ``child``: the tier's index for moves inside it, -1 for the others, which lead to
    the stand-ins in order; ``terminal``: position -> exact centred value, for the terminals of
    the tier; ``stand_ins``: ``(low, high, exact)`` for the stand-ins; ``native``: the game's
    native passes, which then order and solve the tier in C (the same pieces and levels)."""
    stand_low, stand_high, stand_exact = stand_ins
    m = len(stand_low)
    size = n + m
    outside = child < 0
    child = child.copy()
    child[outside] = n + np.arange(m)
    first = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:n + 1])
    first[n + 1:] = first[n]
    table = np.array([float(p) for p in probabilities] or [0.0])
    weight = np.where(probability_index >= 0, table[np.maximum(probability_index, 0)], 0.0)
    low, high = np.zeros(size), np.zeros(size)
    exact_terminal: list = [None] * size
    if terminal:
        at = np.fromiter(terminal, dtype=np.int64, count=len(terminal))
        # the values are few distinct objects (one per distinct returns): each made a float once
        nearest = {id(v): float(v) for v in {id(v): v for v in terminal.values()}.values()}
        low[at], high[at] = outward(np.array([nearest[id(v)] for v in terminal.values()]))
        for position, value in terminal.items():
            exact_terminal[position] = value
    low[n:], high[n:] = stand_low, stand_high
    exact_terminal[n:] = stand_exact
    every_player = np.concatenate((player, np.full(m, TERMINAL, dtype=np.int8)))
    ends = every_player == TERMINAL
    floor = float(np.min(low[ends])) if ends.any() else 0.0
    ceiling = float(np.max(high[ends])) if ends.any() else 0.0
    largest = max(abs(floor), abs(ceiling))
    local = LocalTier(
        n=n, player=every_player, first=first, child=child, weight=weight,
        probability_index=probability_index, probabilities=probabilities, low=low, high=high,
        exact_terminal=exact_terminal, level=np.zeros(size, dtype=np.int64),
        piece_first=np.zeros(1, dtype=np.int64), order=np.zeros(0, dtype=np.int64),
        floor=floor, ceiling=ceiling,
        margin=iteration.rounding_margin(widest, largest), try_exact=try_exact,
        native=native, uses_native=native is not None)
    if native is not None:
        if not native.has_cycle(first, child):
            return None
        label, local.level[:n] = native.layout(n, first, child)
    else:
        if levels(local) is not None:
            return None
        owner = np.repeat(np.arange(n, dtype=np.int64), count)
        inside = ~outside
        label = weak_components(n, owner[inside], child[inside])
        local.level[:n] = _distances(n, first, child, label)
    pieces, piece_of = np.unique(label, return_inverse=True)
    local.order = np.argsort(piece_of, kind="stable").astype(np.int64)
    local.piece_first = np.searchsorted(piece_of[local.order],
                                        np.arange(len(pieces) + 1)).astype(np.int64)
    return local


def _distances(n: int, first: np.ndarray, child: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Breadth-first distance inside each piece from its smallest position (label == itself),
    over the moves inside the tier; positions it does not reach start again from the smallest
    of them in their piece. Computed for all pieces at once, which a piece alone would give."""
    distance = np.full(n, -1, dtype=np.int64)
    while True:
        unseen = np.flatnonzero(distance < 0)
        if not len(unseen):
            return distance
        # the smallest unseen position of each piece with one
        _, at = np.unique(label[unseen], return_index=True)
        frontier = unseen[at]
        step = 0
        distance[frontier] = 0
        while len(frontier):
            step += 1
            children, _ = gather(first, child, frontier)
            children = children[children < n]
            children = np.unique(children[distance[children] < 0])
            distance[children] = step
            frontier = children


def tasks_for(local: LocalTier, parts: int) -> list[tuple[int, int]]:
    """The pieces cut into at most ``parts`` runs of about equal numbers of positions."""
    pieces = len(local.piece_first) - 1
    if parts <= 1 or pieces <= 1:
        return [(0, pieces)]
    total = int(local.piece_first[-1])
    cuts = np.searchsorted(local.piece_first, np.arange(1, parts) * total / parts)
    bounds = sorted({0, pieces, *np.clip(cuts, 0, pieces).tolist()})
    return list(pairwise(bounds))


_ARRAYS = ("player", "first", "child", "weight", "probability_index", "low", "high", "level",
           "piece_first", "order")


def save(local: LocalTier, path: Path) -> None:
    """The tier for the workers, as numpy arrays and JSON (never a pickle: a file another user
    could swap must not be able to run code when read, docs/security.md)."""
    import json

    from gdl.graph.database import atomic_write, encode_value

    meta = {"n": local.n, "floor": local.floor, "ceiling": local.ceiling,
            "margin": local.margin, "try_exact": local.try_exact,
            "uses_native": local.uses_native,
            "total": encode_value(local.total),
            "probabilities": [encode_value(p) for p in local.probabilities],
            "exact_terminal": [None if v is None else encode_value(v)
                               for v in local.exact_terminal]}
    arrays = {name: getattr(local, name) for name in _ARRAYS}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_write(path, lambda out: np.savez(out, **arrays))


def load(path: str | Path) -> LocalTier:
    """A tier saved by ``save``."""
    import json

    from gdl.graph.database import decode_value

    with np.load(path, allow_pickle=False) as saved:
        arrays = {name: saved[name] for name in _ARRAYS}
        meta = json.loads(saved["meta"].tobytes().decode("utf-8"))
    return LocalTier(
        n=meta["n"], probabilities=[Fraction(decode_value(p)) for p in meta["probabilities"]],
        exact_terminal=[None if v is None else Fraction(decode_value(v))
                        for v in meta["exact_terminal"]],
        floor=meta["floor"], ceiling=meta["ceiling"], margin=meta["margin"],
        try_exact=meta["try_exact"], total=decode_value(meta["total"]),
        uses_native=bool(meta.get("uses_native")), **arrays)


def solve_task(task) -> PieceAnswer:
    """A worker's task: ``(tier file, first piece, stop, game source)`` (or the LocalTier
    itself, in this process): those pieces, each solved on its own (see the module docstring),
    in C where the tier says so (the game source gives a worker the native rules)."""
    source, start, stop, *rest = task
    local = source if isinstance(source, LocalTier) else load(source)
    if local.uses_native and local.native is None:
        local.native = _native_of(rest[0] if rest else None)
    bounds = local.piece_first[start:stop + 1]
    members = local.order[bounds[0]:bounds[-1]]
    piece = np.repeat(np.arange(stop - start), np.diff(bounds))
    by_position = np.argsort(members, kind="stable")
    members, piece = members[by_position], piece[by_position]
    k = len(members)
    solved = None
    if local.uses_native:
        solved = local.native.pieces(
            {name: getattr(local, name) for name in _ARRAYS}, start, stop,
            (local.floor, local.ceiling, local.margin),
            (MAX_CUT, MAX_POLICY_ROUNDS, CERTIFY_ROUNDS, WIDEN, TIGHTEN, iteration.TOLERANCE,
             iteration.MAX_SWEEPS))
        low, high = solved.low[members], solved.high[members]
        sweeps = int(solved.sweeps.max(initial=0))
    else:
        graph = _subgraph(local, members)
        low, high, sweeps = piece_bounds(graph, piece)
        low, high = low[:k], high[:k]
    exact = None
    if local.try_exact:
        try:
            exact = _exact(local, start, stop, members, low, high, solved)
        except iteration._TooBig:
            exact = None
    table, index = _vectors(local.total, low, high, exact, local.native)
    return PieceAnswer(members, low, high, exact is not None, table, index, sweeps)


def _exact(local: LocalTier, start: int, stop: int, members: np.ndarray, low: np.ndarray,
           high: np.ndarray, solved) -> list:
    """The exact values of the pieces' members (ascending), checked, as ``(numerator,
    denominator)`` pairs in lowest terms; raises ``iteration._TooBig`` where the check cannot
    be made. A piece the C solved the fast way with one cut position is evaluated along the
    order it found (``_exact_piece``); the others by the strong solver's general check
    (``iteration.exact_values``)."""
    guess = (local.low + local.high) / 2
    guess[members] = (low + high) / 2
    value: dict = {}
    general = []
    offset = int(local.piece_first[start])
    arrays: tuple | None = None
    for number in range(stop - start):
        first_member = int(local.piece_first[start + number])
        if solved is None or int(solved.cuts[number]) != 1:
            general.append(local.order[first_member:int(local.piece_first[start + number + 1])])
            continue
        if arrays is None:
            arrays = (local.first.tolist(), local.child.tolist(), local.player.tolist(),
                      local.probability_index.tolist(), guess.tolist(),
                      [(p.numerator, p.denominator) for p in map(Fraction, local.probabilities)],
                      {})
        at = first_member - offset
        sequence = solved.sequence[at:at + int(solved.tops[number]) + 1].tolist()
        _exact_piece(local, arrays, sequence, value)
    if general:
        others = np.sort(np.concatenate(general))
        graph = _subgraph(local, others)
        approximate = np.concatenate((guess[others],
                                      (graph.low[len(others):] + graph.high[len(others):]) / 2))
        found = iteration.exact_values(graph, np.zeros(len(graph)), 1, components(graph),
                                       approximate, graph.exact_terminal)
        value.update((p, _pair(v)) for p, v in zip(others.tolist(), found))
    terminal = local.exact_terminal
    return [value[p] if p in value else _pair(terminal[p]) for p in members.tolist()]


def _exact_piece(local: LocalTier, arrays: tuple, sequence: list, value: dict) -> None:
    """One piece's exact values into ``value`` (tier position -> ``(numerator, denominator)``
    in lowest terms), checked (``gdl.graph.exact_cut``). ``sequence``: its movers other than
    the cut, children first over every move inside the piece, then its one cut position
    (every cycle of the piece passes through it). Pig to 100: 325,000 positions checked
    exactly this way, most of the numbers small."""
    *lists, terminal_pairs = arrays
    terminal = local.exact_terminal

    def known(c: int) -> tuple[int, int]:
        found = terminal_pairs.get(c)
        if found is None:
            if terminal[c] is None:
                raise iteration._TooBig()
            found = terminal_pairs[c] = _pair(terminal[c])
        return found

    exact_cut.evaluate(tuple(lists), sequence, 1, known, value, iteration.POLICY_SLACK,
                       iteration.MAX_DIGITS * 3.33, iteration.MAX_IMPROVEMENTS)


def _native_of(source) -> Any:
    """A worker's native passes, from the game source of the task (loaded once per process).
    A tier solved in C by the coordinator is solved in C everywhere, or not at all: the
    floats would not be the same bits."""
    from gdl.graph.executor import game_from
    from gdl.solvers.result import SolverError

    native = None if source is None else byte_passes(game_from(source))
    if native is None:
        raise SolverError("a worker has no native rules for a tier the solve began in C "
                          "(no C compiler there?); give every worker the same installation, or "
                          "solve with --backend compile")
    return native


def _middle(graph: LocalTier, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The interval's middle at the positions, and the terminals' values after them."""
    return np.concatenate(((low + high) / 2, (graph.low[len(low):] + graph.high[len(low):]) / 2))


def _vectors(total, low: np.ndarray, high: np.ndarray, exact: list | None, native: Any = None
             ) -> tuple[list, np.ndarray]:
    """The value vectors (exact, or the interval's middle), tabulated for the database (the
    distinct vectors in order of first use, encoded as ``gdl.graph.database`` encodes them, and
    each position's entry); made where the values were found (a worker), so the coordinator
    only joins tables."""
    if exact is not None:
        if type(total) is not int:
            values = [Fraction(n, d) for n, d in exact]
            return tabulate([(plain_value((v + total) / 2), plain_value((total - v) / 2))
                             for v in values])
        return _exact_table(total, exact)
    middle = (low + high) / 2
    # numpy's float64 arithmetic is Python's float arithmetic, element by element; equal rows
    # are one entry, as in a dict, kept as first met
    pairs = np.stack(((middle + float(total)) / 2, (float(total) - middle) / 2), axis=1)
    first_at, group = first_use_rows(pairs, native)
    return pairs[first_at], group


def _exact_table(total: int, exact: list) -> tuple[list, np.ndarray]:
    """``_vectors`` of exact values (``(numerator, denominator)`` in lowest terms) for an
    integer constant sum: player 0's utility x = (v + total) / 2 and player 1's total - x,
    which over x's denominator is already in lowest terms, encoded as
    ``database.encode_value`` does (an integer, or "numerator/denominator")."""
    table: dict = {}
    index = np.empty(len(exact), dtype=np.int64)
    for i, (n, d) in enumerate(exact):
        # x = (n / d + total) / 2: n + total d is prime to d, so only a 2 can cancel
        n += total * d
        if n % 2:
            d *= 2
        else:
            n //= 2
        entry = (n, total - n) if d == 1 else (f"{n}/{d}", f"{total * d - n}/{d}")
        index[i] = table.setdefault(entry, len(table))
    return list(table), index


def _subgraph(local: LocalTier, members: np.ndarray) -> LocalTier:
    """The piece's positions (first, in order) and the terminals and stand-ins they reach."""
    edges, counts = gather(local.first, np.arange(local.edges), members)
    children = local.child[edges]
    here = np.full(len(local), -1, dtype=np.int64)
    here[members] = np.arange(len(members))
    beyond = np.unique(children[here[children] < 0])
    here[beyond] = len(members) + np.arange(len(beyond))
    every = np.concatenate((members, beyond))
    first = np.zeros(len(every) + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:len(members) + 1])
    first[len(members) + 1:] = first[len(members)]
    player = local.player[every].copy()
    player[len(members):] = TERMINAL          # a stand-in, or a terminal of another piece
    return LocalTier(
        n=len(members), player=player, first=first, child=here[children],
        weight=local.weight[edges], probability_index=local.probability_index[edges],
        probabilities=local.probabilities, low=local.low[every], high=local.high[every],
        exact_terminal=[local.exact_terminal[i] for i in every.tolist()],
        level=local.level[every], piece_first=np.array([0, len(members)]),
        order=np.arange(len(members)), floor=local.floor, ceiling=local.ceiling,
        margin=local.margin, try_exact=local.try_exact, total=local.total)


def bracket(graph: LocalTier, piece: np.ndarray, active: np.ndarray | None = None,
            value: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Certified lower and upper bounds of player 0's centred value at every position of some
    pieces (``piece``: the piece of each of the first ``graph.n`` positions), and the most
    sweeps a piece took, by plain iteration from the least and greatest terminal values. The
    pieces go through each numpy call together, but a piece whose values all moved less than
    the tolerance in a sweep is frozen: its numbers are those it would have alone. Only the
    ``active`` pieces are iterated (default: all), in ``value`` (default: a new array)."""
    player = graph.player
    ends = player == TERMINAL
    if value is None:
        value = _starting_bounds(graph)
    movers = np.flatnonzero(~ends)
    pieces = int(piece.max()) + 1 if len(piece) else 0
    if not len(movers):
        return value[:, 0].copy(), value[:, 1].copy(), 0
    depth = graph.level[movers]
    work = [_group(graph, movers[depth == d], piece)                # the deepest level first
            for d in sorted(set(depth.tolist()), reverse=True)]
    active = np.ones(pieces, dtype=bool) if active is None else active.copy()
    sweeps = np.zeros(pieces, dtype=np.int64)
    while active.any():
        change = np.zeros(pieces)
        for group in work:
            nodes, owner = group[0], group[1]
            new = _update(graph, value, group)
            old = value[nodes]
            new = np.where(active[owner][:, None], new, old)       # frozen pieces stay
            np.maximum.at(change, owner, np.max(np.abs(new - old), axis=1))
            value[nodes] = new
        sweeps += active
        active &= (change > iteration.TOLERANCE) & (sweeps < iteration.MAX_SWEEPS)
    return value[:, 0].copy(), value[:, 1].copy(), int(sweeps.max())


# ---- the coordinator's side --------------------------------------------------------------------

# A loaded later tier's exact values, decoded once (by id: the result is kept with them, so the
# id stays its own), with their length in bits and their nearest float: each tier reaches a
# hundred later ones in Pig, and parsing and rounding long fractions are slow.
_DECODED: dict[int, tuple] = {}


def _decoded(result) -> dict:
    held = _DECODED.get(id(result))
    if held is None or held[0] is not result:
        held = _DECODED[id(result)] = (result, {})
    return held[1]


def applies(info) -> bool:
    """Whether a tier of this game may be solved here: two players, constant sum, chance."""
    return info.num_players == 2 and bool(info.is_constant_sum) and bool(info.has_chance)


def solve_tier(run, tier: int, keys: np.ndarray, expansion, loaded: dict,
               try_exact: bool) -> tuple[list, np.ndarray, np.ndarray, dict] | None:
    """Tier ``tier``'s values as ``gdl.graph.tiers`` records them (value table, index into it,
    remoteness, how), its certified interval written to ``tier-t.bounds.npy`` where the values
    are not exact; None when the tier's moves form no cycle (the acyclic solve is the one)."""
    from gdl.graph import VALUE_ITERATION
    from gdl.graph.database import decode_value
    from gdl.protocol import constant_sum_total

    info = run.game.info
    total = constant_sum_total(info, "strong solve")
    solved = run.manifest.get("solved", {})
    for held in [k for k, (result, _) in _DECODED.items()
                 if all(result is not r for r in loaded.values())]:
        del _DECODED[held]                   # bounded memory: only the tiers still loaded
    n = len(keys)
    inside = expansion.child_tier == tier
    child = np.full(len(inside), -1, dtype=np.int64)
    child[inside] = search_keys(keys, expansion.child_key[inside])
    leaving = np.flatnonzero(~inside)
    m = len(leaving)
    stand_low, stand_high = np.empty(m), np.empty(m)
    stand_exact = np.full(m, None, dtype=object)
    longest = 0                              # bits of the longest exact stand-in value
    certified = True
    # the moves leaving, grouped by the tier they reach (one sort: Pig's reach a hundred)
    by_tier = np.argsort(expansion.child_tier[leaving], kind="stable")
    reached = expansion.child_tier[leaving][by_tier]
    cuts = np.flatnonzero(np.diff(reached)) + 1
    for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), m]):
        if a == b:
            continue
        u = int(reached[a])
        result = loaded[u]
        chosen = by_tier[a:b]
        if result.numbers is None:
            result.numbers = key_numbers(result.keys)  # kept while the tier is loaded
        where = search_keys(result.keys, expansion.child_key[leaving[chosen]], result.numbers)
        value_index = np.asarray(result.index)[where]
        ids, inverse = np.unique(value_index, return_inverse=True)
        inverse = inverse.reshape(-1)
        floats = isinstance(result.table, FloatTable)   # no draw there
        encoded = None if floats else [result.table[i] for i in ids.tolist()]
        if encoded is not None and any(e is None for e in encoded):
            return None                      # a draw beyond: not a stopping game's tier
        if solved.get(str(u), {}).get("exact"):
            assert encoded is not None          # an exact tier's values are not floats
            decoded = _decoded(result)
            exact, bits, nearest = [], [], []
            for i, e in zip(ids.tolist(), encoded):
                cached = decoded.get(i)
                if cached is None:
                    x = Fraction(decode_value(e[0])) * 2 - total
                    cached = decoded[i] = (x, max(abs(x.numerator), x.denominator).bit_length(),
                                           float(x))
                exact.append(cached[0])
                bits.append(cached[1])
                nearest.append(cached[2])
            low, high = outward(np.array(nearest))
            stand_low[chosen], stand_high[chosen] = low[inverse], high[inverse]
            distinct = np.empty(len(exact), dtype=object)
            distinct[:] = exact
            stand_exact[chosen] = distinct[inverse]
            longest = max([longest, *bits])
            continue
        try_exact = False
        bounds_file = run.path(u, "bounds.npy")
        if result.bounds is None and bounds_file.exists():
            result.bounds = np.load(bounds_file)     # read once while the tier is loaded
        if result.bounds is not None:
            bounds = result.bounds
            stand_low[chosen], stand_high[chosen] = bounds[where, 0], bounds[where, 1]
        else:                                # approximate and not certified: no bound to carry
            certified = False
            if encoded is None:
                encoded = [result.table[i] for i in ids.tolist()]
            middle = np.array([float(e[0]) * 2 - float(total) for e in encoded])
            stand_low[chosen], stand_high[chosen] = middle[inverse], middle[inverse]
    if n > iteration.EXACT_LIMIT:
        try_exact = False
    if longest > EXACT_DIGITS * 3.33:
        try_exact = False
    # a terminal's centred value, made once per distinct returns (Pig to 100: 119,000
    # terminals, two distinct returns)
    ends_at = np.flatnonzero(expansion.player == TERMINAL)
    centred = [Fraction(returns[0]) * 2 - total for returns in expansion.returns_table]
    terminal = dict(zip(ends_at.tolist(),
                        map(centred.__getitem__, expansion.returns_index[ends_at].tolist())))
    counts = np.asarray(expansion.count)
    local = build(n, np.asarray(expansion.player), counts, child,
                  np.asarray(expansion.probability_index), list(expansion.probabilities),
                  terminal, (stand_low, stand_high, stand_exact.tolist()), try_exact,
                  int(counts.max(initial=1)), byte_passes(run.game))
    if local is None:
        return None
    local.total = total
    note = ""
    endless = (local.native.endless(local.player, local.first, local.child)
               if local.native is not None else len(iteration.endless_positions(local)))
    if endless:
        return None          # what endless play is worth decides: the general path (tiers)
    workers = getattr(run.executor, "workers", 1)
    pieces = len(local.piece_first) - 1
    if workers <= 1 or pieces < 2 or run.source is None or n < PARALLEL_MIN:
        answers = [solve_task((local, 0, pieces))]
    else:
        path = run.path(tier, "local.npz")
        save(local, path)
        answers = run.executor.map(solve_task, [(str(path), a, b, run.source)
                                                for a, b in tasks_for(local, workers)])
        path.unlink()
    low, high = np.empty(n), np.empty(n)
    for answer in answers:
        low[answer.members], high[answer.members] = answer.low, answer.high
    whole_exact = local.try_exact and all(answer.exact for answer in answers)
    if not whole_exact:  # a tier is exact as a whole or not at all: floats everywhere
        answers = [answer if not answer.exact else PieceAnswer(
            answer.members, answer.low, answer.high, False,
            *_vectors(total, answer.low, answer.high, None, local.native), answer.sweeps)
            for answer in answers]
    table, index = _joined(answers, n, local.native)
    ends = sorted({str(centred[i]) for i in np.unique(expansion.returns_index[ends_at]).tolist()})
    how = {"method": VALUE_ITERATION, "exact": whole_exact, "note": note,
           "certified": certified, "ends": ends,
           "sweeps": max(answer.sweeps for answer in answers)}
    if whole_exact:
        how["residual"] = None
    else:
        if not note:
            note = ("values bracketed by value iteration from below and from above" if certified
                    else "a later tier's values are not certified, so neither are these")
            if not try_exact:
                note = "no exact check (a later tier is not exact, or its numbers are long); " + note
        how["note"] = note
        how["residual"] = float(np.max(high - low, initial=0.0))
        save_array(run.path(tier, "bounds.npy"), np.stack((low, high), axis=1))
    return table, index, np.full(n, -1, dtype=np.int32), how


def _joined(answers: list, n: int, native: Any) -> tuple[Any, np.ndarray]:
    """The answers' tables joined into the tier's (entries in order of first use, answer by
    answer, as a dict would number them) and each position's entry: float rows (an array) by
    their bits, exact entries through a dict."""
    index = np.empty(n, dtype=np.int64)
    if len(answers) == 1:
        index[answers[0].members] = answers[0].index
        return answers[0].table, index
    if all(isinstance(answer.table, np.ndarray) for answer in answers):
        rows = np.concatenate([answer.table for answer in answers])
        first_at, group = first_use_rows(rows, native)
        start = 0
        for answer in answers:
            index[answer.members] = group[start:start + len(answer.table)][answer.index]
            start += len(answer.table)
        return rows[first_at], index
    table_ids: dict = {}
    for answer in answers:
        entries = (map(tuple, answer.table.tolist()) if isinstance(answer.table, np.ndarray)
                   else answer.table)
        ids = np.array([table_ids.setdefault(v, len(table_ids)) for v in entries]
                       or [0], dtype=np.int64)
        index[answer.members] = ids[answer.index]
    return list(table_ids), index


# ---- reading a solved tier's interval ----------------------------------------------------------

def certified_interval(solution, state) -> tuple[tuple[Fraction, Fraction], ...] | None:
    """Each player's value at ``state`` as a proven interval of exact fractions, where a tiered
    solve's values there are certified but not exact; else None."""
    from gdl.protocol import constant_sum_total

    run = solution.run
    tier = int(tier_function(run.game, run.tier)(state))
    how = run.manifest.get("solved", {}).get(str(tier), {})
    path = run.path(tier, "bounds.npy")
    if how.get("exact", True) or not how.get("certified") or not path.exists():
        return None
    keys = np.load(run.path(tier, "keys.npy"), mmap_mode="r")
    key = np.array([key_of(state)], dtype=keys.dtype)[0]
    at = int(np.searchsorted(keys, key))
    if at >= len(keys) or keys[at] != key:
        return None
    low, high = np.load(path, mmap_mode="r")[at].tolist()
    return player_intervals(low, high, constant_sum_total(run.game.info, "strong solve"))


def win_probability(solution, state) -> tuple[Fraction, Fraction] | None:
    """The proven interval of the probability that player 0 wins, where every play ends in
    player 0's win or loss (two terminal values in all) and the values at ``state`` are
    certified; else None."""
    from gdl.protocol import constant_sum_total

    found = certified_interval(solution, state)
    ends = {e for how in solution.run.manifest.get("solved", {}).values()
            for e in how.get("ends", ())}
    if found is None or len(ends) != 2:
        return None
    total = constant_sum_total(solution.run.game.info, "strong solve")
    loss, win = sorted((Fraction(e) + total) / 2 for e in ends)
    return win_chance(found, loss, win)


# ---- the fast way: a policy's values, then a certificate -----------------------------------

# Rounds of policy improvement before a piece's policy is taken as it is (the certificate, not
# the policy, is what makes the answer right; a policy that keeps changing only costs sweeps).
MAX_POLICY_ROUNDS = 30
MAX_CUT = 8                   # cut positions a piece may have for the fast way
WIDEN = 8.0                   # how much the trial interval grows after a failed certificate
CERTIFY_ROUNDS = 14
TIGHTEN = 2                   # sweeps from the certified bounds towards each other


def _group(graph: LocalTier, nodes: np.ndarray, piece: np.ndarray) -> tuple:
    """What a sweep needs to update ``nodes`` together."""
    player = graph.player
    children, counts = gather(graph.first, graph.child, nodes)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    edge_ids, _ = gather(graph.first, np.arange(graph.edges), nodes)
    kind = player[nodes]
    sign = np.where(kind == 1, -1.0, 1.0)[:, None]
    chance = kind == CHANCE
    # a chance mean is pushed outwards past its rounding error; a decision's max is exact
    push = np.where(chance, graph.margin, 0.0)[:, None] * np.array([-1.0, 1.0])
    return (nodes, piece[nodes], children, starts, graph.weight[edge_ids][:, None],
            np.repeat(sign, counts, axis=0), sign, chance[:, None], push, edge_ids, counts)


def _update(graph: LocalTier, value: np.ndarray, group: tuple) -> np.ndarray:
    """One Bellman update of a group's positions from ``value`` (two columns: lower, upper),
    rounded outwards."""
    _, _, children, starts, weights, edge_sign, sign, chance, push = group[:9]
    seen = value[children]
    best = np.maximum.reduceat(seen * edge_sign, starts) * sign
    mean = np.add.reduceat(seen * weights, starts)
    return np.clip(np.where(chance, mean, best) + push, graph.floor, graph.ceiling)


def _starting_bounds(graph: LocalTier) -> np.ndarray:
    value = np.empty((len(graph), 2))
    value[:, 0], value[:, 1] = graph.floor, graph.ceiling
    ends = graph.player == TERMINAL
    value[ends, 0], value[ends, 1] = graph.low[ends], graph.high[ends]
    return value


def piece_bounds(graph: LocalTier, piece: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Certified bounds for the pieces' positions: the fast way where it applies to a piece,
    plain iteration (``bracket``) for the others. Which way a piece takes depends on the
    piece alone.

    The fast way: the positions a piece's breadth-first search started from (level 0: in Pig,
    a player's turn start) are its *cut*; when every cycle of the piece passes through the cut,
    the rest of the piece is ordered children first, and one sweep in that order computes every
    value from the cut's. Then (1) policy iteration in floats: under a policy the cut's values
    are an affine function of themselves, found in one sweep of affine forms and solved as a
    small linear system; the policy is improved until it stops changing. (2) The certificate:
    from cut values a little below (above) the policy's, one outward-rounded sweep; where every
    cut value it computes is at least (at most) the one it started from, the vector is a
    sub-solution (super-solution) of the Bellman equations, hence below (above) the value in a
    stopping game: the interval is proven. Where not, the trial interval widens and the sweep
    is tried again; a piece that never passes is iterated plainly."""
    pieces = int(piece.max()) + 1 if len(piece) else 0
    value = _starting_bounds(graph)
    if not pieces:
        return value[:, 0].copy(), value[:, 1].copy(), 0
    order = _cut_order(graph, piece, pieces)
    fast = np.zeros(pieces, dtype=bool)
    sweeps = 0
    if order is not None:
        groups, cut, fast = order
        if fast.any():
            guess = _policy_values(graph, piece, pieces, groups, cut, fast)
            certified, sweeps = _certify(graph, piece, pieces, groups, cut, fast, guess, value)
            fast &= certified
    if not fast.all():
        # a piece whose certificate failed starts afresh from the least and greatest end: the
        # values its trials left are no bounds
        start = _starting_bounds(graph)
        again = np.zeros(len(graph), dtype=bool)
        again[:len(piece)] = ~fast[piece]
        value[again] = start[again]
        _, _, plain = bracket(graph, piece, ~fast, value)
        sweeps = max(sweeps, plain)
    return value[:, 0].copy(), value[:, 1].copy(), sweeps


def _cut_order(graph: LocalTier, piece: np.ndarray, pieces: int):
    """``(groups, cut, fast)``: the positions other than the cut, children first, in groups
    updated together; the cut positions; and which pieces have every cycle through their cut
    (and at most MAX_CUT cut positions)."""
    from gdl.graph.order import edge_owner, parents

    n = graph.n
    player = graph.player
    movers = np.flatnonzero(player[:n] != TERMINAL)
    cut = movers[graph.level[movers] == 0]
    is_cut = np.zeros(len(graph), dtype=bool)
    is_cut[cut] = True
    allowed = ~is_cut[graph.child]
    owner = edge_owner(graph)
    reverse_first, reverse_edge = parents(graph)
    remaining = np.bincount(owner[allowed], minlength=len(graph))
    height = np.full(len(graph), -1, dtype=np.int64)
    frontier = np.flatnonzero(remaining == 0)
    step = 0
    groups_nodes = []
    while len(frontier):
        height[frontier] = step
        movable = frontier[(player[frontier] != TERMINAL) & ~is_cut[frontier]]
        if len(movable):
            groups_nodes.append(movable)
        edges, _ = gather(reverse_first, reverse_edge, frontier)
        edges = edges[allowed[edges]]
        found, times = np.unique(owner[edges], return_counts=True)
        remaining[found] -= times
        frontier = found[remaining[found] == 0]
        step += 1
    stuck = np.zeros(pieces, dtype=bool)
    left = np.flatnonzero(height[:n] < 0)
    stuck[piece[left]] = True
    cuts_per_piece = np.bincount(piece[cut], minlength=pieces)
    fast = ~stuck & (cuts_per_piece <= MAX_CUT) & (cuts_per_piece > 0)
    keep = fast[piece[cut]]
    cut = cut[keep]
    groups = [_group(graph, nodes[fast[piece[nodes]]], piece) for nodes in groups_nodes
              if fast[piece[nodes]].any()]
    return groups, cut, fast


def _policy_values(graph: LocalTier, piece: np.ndarray, pieces: int, groups: list,
                   cut: np.ndarray, fast: np.ndarray) -> np.ndarray:
    """Player 0's centred values (floats) under the policy that policy iteration settles on,
    for the fast pieces' positions."""
    player = graph.player
    # the cut positions of each piece, numbered 0.. in position order
    cut_piece = piece[cut]
    number = np.arange(len(cut)) - np.searchsorted(cut_piece, cut_piece)
    width = int(number.max()) + 1 if len(cut) else 1
    ends = player == TERMINAL
    form = np.zeros((len(graph), 1 + width))
    form[ends, 0] = (graph.low[ends] + graph.high[ends]) / 2
    # policy: an index into the position's moves; first the first move
    policy = np.zeros(len(graph), dtype=np.int64)
    stable = ~fast.copy()
    value = form[:, 0].copy()
    cut_group = _group(graph, cut, piece)
    for _ in range(MAX_POLICY_ROUNDS):
        form[cut] = 0.0
        form[cut, 1 + number] = 1.0
        for group in groups:
            _form_update(graph, form, group, policy)
        new = _form_update(graph, form, cut_group, policy, write=False)
        # cut value c_i = new[i, 0] + sum_j new[i, 1 + j] c_j, per piece: (I - A) c = b
        size = np.bincount(cut_piece, minlength=pieces)
        matrix = np.zeros((pieces, width, width))
        matrix[:] = np.eye(width)
        right = np.zeros((pieces, width))
        matrix[cut_piece, number, :] -= new[:, 1:]
        right[cut_piece, number] = new[:, 0]
        solvable = size > 0
        try:
            solved = np.linalg.solve(matrix[solvable], right[solvable][..., None])[..., 0]
        except np.linalg.LinAlgError:
            break                     # a policy that never ends: leave it to the certificate
        values_at_cut = np.zeros((pieces, width))
        values_at_cut[solvable] = solved
        owner_piece = np.full(len(graph), -1)
        owner_piece[:graph.n] = piece
        fresh = form[:, 0].copy()
        inside = owner_piece >= 0
        fresh[inside] += np.einsum("ij,ij->i", form[inside, 1:],
                                   values_at_cut[owner_piece[inside]])
        take = np.zeros(len(graph), dtype=bool)
        take[:graph.n] = ~stable[piece]
        value[take] = fresh[take]
        changed = _improve(graph, value, policy, piece, groups + [cut_group], stable)
        stable |= ~changed
        if stable.all():
            break
    return value


def _form_update(graph: LocalTier, form: np.ndarray, group: tuple, policy: np.ndarray,
                 write: bool = True) -> np.ndarray:
    """A group's affine forms under ``policy``: a decision takes its chosen move's, a chance
    position the mean of its moves'."""
    nodes, _, children, starts, weights = group[:5]
    chance = group[7][:, 0]
    mean = np.add.reduceat(form[children] * weights, starts)
    chosen = form[children[starts + np.minimum(policy[nodes], group[10] - 1)]]
    new = np.where(chance[:, None], mean, chosen)
    if write:
        form[nodes] = new
    return new


def _improve(graph: LocalTier, value: np.ndarray, policy: np.ndarray, piece: np.ndarray,
             groups: list, stable: np.ndarray) -> np.ndarray:
    """Switch each decision of the pieces not yet stable to its best move where that is better
    by more than rounding noise; which pieces changed."""
    changed = np.zeros(len(stable), dtype=bool)
    for group in groups:
        nodes, owner, children, starts = group[:4]
        edge_sign, chance, counts = group[5], group[7][:, 0], group[10]
        decide = ~chance & ~stable[owner]
        if not decide.any():
            continue
        seen = value[children] * edge_sign[:, 0]
        best = np.maximum.reduceat(seen, starts)
        current = seen[starts + np.minimum(policy[nodes], counts - 1)]
        better = decide & (best > current + 1e-12)
        if better.any():
            # the first move reaching the best value
            hit = seen >= np.repeat(best, counts)
            index = np.arange(len(seen)) - np.repeat(starts, counts)
            first_best = np.minimum.reduceat(np.where(hit, index, len(seen)), starts)
            policy[nodes[better]] = first_best[better]
            changed[owner[better]] = True
    return changed


def _certify(graph: LocalTier, piece: np.ndarray, pieces: int, groups: list, cut: np.ndarray,
             fast: np.ndarray, guess: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, int]:
    """Bounds in ``value`` for the fast pieces, proven as the docstring of ``piece_bounds`` says;
    which pieces passed, and the sweeps taken."""
    cut_group = _group(graph, cut, piece)
    cut_piece = piece[cut]
    scale = max(abs(graph.floor), abs(graph.ceiling), 1.0)
    delta = np.full(pieces, scale * 2.0 ** -44)
    done = ~fast.copy()
    passed = np.zeros(pieces, dtype=bool)
    sweeps = 0
    trial = np.empty((len(cut), 2))
    for _ in range(CERTIFY_ROUNDS):
        todo = ~done[cut_piece]
        trial[:, 0] = guess[cut] - delta[cut_piece]
        trial[:, 1] = guess[cut] + delta[cut_piece]
        value[cut[todo]] = np.clip(trial[todo], graph.floor, graph.ceiling)
        new = _sweep(graph, value, groups, cut_group, done)
        sweeps += 1
        good = (new[:, 0] >= value[cut, 0]) & (new[:, 1] <= value[cut, 1])
        bad = np.zeros(pieces, dtype=bool)
        bad[cut_piece[~good]] = True
        now = ~done & ~bad
        passed |= now
        done |= now
        # a sub-solution's update is a sub-solution too, and tighter
        value[cut[now[cut_piece]]] = new[now[cut_piece]]
        if done.all():
            break
        delta[bad] *= WIDEN
    for _ in range(TIGHTEN):
        frozen = ~passed
        new = _sweep(graph, value, groups, cut_group, frozen)
        value[cut[passed[cut_piece]]] = new[passed[cut_piece]]
        sweeps += 1
    return passed, sweeps


def _sweep(graph: LocalTier, value: np.ndarray, groups: list, cut_group: tuple,
           frozen: np.ndarray) -> np.ndarray:
    """One outward-rounded sweep, children first, over the pieces not ``frozen``, from the cut
    values in ``value``; returns the cut positions' updates (not written)."""
    for group in groups:
        nodes, owner = group[0], group[1]
        new = _update(graph, value, group)
        keep = frozen[owner]
        if keep.any():
            new = np.where(keep[:, None], value[nodes], new)
        value[nodes] = new
    return _update(graph, value, cut_group)
