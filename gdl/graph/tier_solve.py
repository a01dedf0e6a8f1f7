"""Solving one tier of a tiered solve (the backward step).

Each position of tier t is expanded again (or its moves read back from the forward pass,
``stored_expansion``); a move inside t becomes an edge of a small local graph, and a move to a
later tier u is looked up by binary search in u's results and stands in the local graph as a
terminal with that value and remoteness. The local graph is solved by the strong solver's own
methods (``gdl.graph.induction``; retrograde analysis where it has a cycle or reaches a draw;
with chance and cycles inside the tier, ``gdl.graph.chance_tiers`` or ``gdl.graph.iteration``),
at once or in pieces no move joins on the workers. ``solve_one`` is the step.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from gdl.graph.database import decode_value, encode_value
from gdl.graph.executor import SerialExecutor
from gdl.graph.positions import PositionGraph
from gdl.graph.solution import NO_END_HIGH, NO_END_LOW
from gdl.graph.tier_expand import Expansion, native_expand
from gdl.graph.tier_keys import state_of
from gdl.graph.tier_run import TASK_SIZE, TierRun
from gdl.graph.tier_store import DrawRange, TierResult, encode_vector, plain_value, stored_expansion, tabulate
from gdl.protocol import TERMINAL, constant_sum_total
from gdl.solvers.result import SolverError


def range_value(entry: DrawRange, info, ends: tuple | None) -> tuple | None:
    """The encoded value vector of a ``DrawRange`` entry, or None for a draw without a value:
    docs/graph.md's rules, as ``TwoPlayerValues.decided`` applies them (``ends``: player 0's
    least and greatest end over the game, where endless play is not declared)."""
    total = Fraction(constant_sum_total(info, "strong solve"))
    low = None if entry.low is None else Fraction(decode_value(entry.low))
    high = None if entry.high is None else Fraction(decode_value(entry.high))

    def clamped(worth: Fraction) -> Fraction:
        if low is not None:
            worth = max(worth, low)
        return worth if high is None else min(worth, high)

    if info.endless_value is not None:
        u0 = clamped(Fraction(info.endless_value[0]))
    elif ends is None or clamped(Fraction(ends[0])) != clamped(Fraction(ends[1])):
        return None
    else:
        u0 = clamped(Fraction(ends[0]))
    return encode_vector((plain_value(u0), plain_value(total - u0)))


def game_ends(run: TierRun) -> tuple | None:
    """Player 0's least and greatest utility over the game's ends (None: it has none), which
    decide the draws of a game that does not say what endless play is worth (docs/graph.md).
    Found once, from every tier's positions, the first time a tier has such a draw; kept in the
    manifest (a resumed solve, and workers, read it there)."""
    kept = run.manifest.get("game_ends")
    if kept is not None:
        return None if kept == "none" else tuple(Fraction(decode_value(v)) for v in kept)
    least = greatest = None
    for path in sorted(run.directory.glob("tier-*.keys.npy")):
        keys = np.load(path)
        for start in range(0, len(keys), TASK_SIZE):
            batch = keys[start:start + TASK_SIZE]
            if run.native is not None:
                expansion = _native_expansion(run, batch)
                rows = [expansion.returns_table[i]
                        for i in np.unique(expansion.returns_index[expansion.player == TERMINAL])]
            else:
                game = run.game
                rows = [game.returns(state) for state in map(state_of, batch)
                        if game.current_player(state) == TERMINAL]
            for row in rows:
                u0 = Fraction(row[0])
                least = u0 if least is None else min(least, u0)
                greatest = u0 if greatest is None else max(greatest, u0)
    ends = None if least is None else (least, greatest)
    run.manifest["game_ends"] = ("none" if ends is None
                                 else [encode_value(plain_value(u)) for u in ends])
    if "tiers" in run.manifest:          # the coordinator's manifest, not a worker's copy
        run.save_manifest()
    return ends


def overall_method(methods: list[str]) -> str:
    """The label of a solve made of tiers solved by ``methods`` (highest tier first): the one
    the single-graph solve of the whole game gets (value iteration where any tier needed it;
    retrograde analysis where any tier has a cycle or reaches a draw, which means the game has
    a cycle; else backward induction)."""
    from gdl.graph import RETROGRADE, VALUE_ITERATION

    for method in (VALUE_ITERATION, RETROGRADE):
        if method in methods:
            return method
    return methods[0] if methods else ""


@dataclass
class Boundary:
    """A local graph's stand-ins for positions of later tiers (its positions n.., in order):
    each one's remoteness and, for a draw, the range of player 0's centred value ``2 * u0 -
    total`` the players can force an end in (None: none); None where the stand-in is decided
    (its value is its returns)."""

    remoteness: np.ndarray
    draws: list

    def __getitem__(self, where: np.ndarray) -> Boundary:
        return Boundary(self.remoteness[where], [self.draws[i] for i in where.tolist()])


def _local_graph(run: TierRun, tier: int, keys: np.ndarray, expansion: Expansion,
                 results: dict[int, TierResult]) -> tuple[PositionGraph, Boundary]:
    """The tier as a graph: its positions, then one terminal per distinct (value, remoteness)
    of the later positions its moves reach. Returns the graph and those stand-ins."""
    n = len(keys)
    child = np.empty(len(expansion.child_key), dtype=np.int64)
    inside = expansion.child_tier == tier
    at = np.searchsorted(keys, expansion.child_key[inside])
    child[inside] = at
    total = None
    boundary: dict[tuple, int] = {}
    boundary_values: list = []
    boundary_remoteness: list[int] = []
    boundary_draws: list = []
    for u in np.unique(expansion.child_tier[~inside]).tolist():
        result = results[u]
        edges = np.flatnonzero(expansion.child_tier == u)
        where = np.searchsorted(result.keys, expansion.child_key[edges])
        pairs = np.stack((result.index[where], result.remoteness[where]), axis=1)
        distinct, inverse = np.unique(pairs, axis=0, return_inverse=True)
        ids = []
        for value_index, remoteness in distinct.tolist():
            encoded = result.table[value_index]
            if encoded is None:
                raise SolverError(f"tier {u} has a draw (endless play) of a game whose solve "
                                  "records no range for it; solve it without --workers")
            ident = (encoded, remoteness)
            if ident not in boundary:
                boundary[ident] = n + len(boundary_values)
                if isinstance(encoded, DrawRange):
                    if total is None:
                        total = Fraction(constant_sum_total(run.game.info, "strong solve"))
                    # a placeholder value (the graph's returns): the range is what counts
                    boundary_values.append((plain_value(total / 2), plain_value(total / 2)))
                    boundary_draws.append(tuple(
                        None if v is None else Fraction(decode_value(v)) * 2 - total
                        for v in (encoded.low, encoded.high)))
                else:
                    boundary_values.append(tuple(decode_value(v) for v in encoded))
                    boundary_draws.append(None)
                boundary_remoteness.append(remoteness)
            ids.append(boundary[ident])
        child[edges] = np.array(ids, dtype=np.int64)[inverse.reshape(-1)]
    m = len(boundary_values)
    first = np.zeros(n + m + 1, dtype=np.int64)
    np.cumsum(expansion.count, out=first[1:n + 1])
    first[n + 1:] = first[n]
    returns_index = np.concatenate((expansion.returns_index,
                                    np.arange(m, dtype=np.int32) + len(expansion.returns_table)))
    has_chance = bool(run.game.info.has_chance)
    graph = PositionGraph(
        game=run.game, keys=range(n + m), index={}, packed=True,       # type: ignore[arg-type]
        player=np.concatenate((expansion.player, np.full(m, TERMINAL, dtype=np.int8))),
        first=first, child=child,
        probability_index=expansion.probability_index if has_chance else None,
        probabilities=expansion.probabilities,
        returns_index=returns_index.astype(np.int32),
        returns_table=expansion.returns_table + boundary_values)
    return graph, Boundary(np.array(boundary_remoteness, dtype=np.int32), boundary_draws)


def _solve_local(info, graph: PositionGraph, n: int, boundary: Boundary,
                 try_exact: bool = True, ends: Any = None
                 ) -> tuple[list, np.ndarray, np.ndarray, dict]:
    """Values of the tier's ``n`` positions: ``(table, index, remoteness, how)``. Without
    ``try_exact`` (a later tier's values are approximate), no exact check is attempted.
    ``ends``: the game's least and greatest end for player 0, or a function finding them (only
    a draw without a declared value of endless play needs them)."""
    from gdl.graph import BACKWARD_INDUCTION
    from gdl.graph.induction import two_player_induction, vector_induction
    from gdl.graph.order import levels as solve_order

    two_player_constant_sum = info.num_players == 2 and info.is_constant_sum
    total = constant_sum_total(info, "strong solve") if two_player_constant_sum else None
    levels = solve_order(graph)
    how = {"method": BACKWARD_INDUCTION, "exact": True, "note": ""}
    reaches_a_draw = any(d is not None for d in boundary.draws)
    if two_player_constant_sum and not info.has_chance and (levels is None or reaches_a_draw):
        return _retrograde_tier(info, graph, n, boundary, total, ends)
    if levels is not None and two_player_constant_sum and not info.has_chance:
        remoteness = np.zeros(len(graph), dtype=np.int32)
        remoteness[n:] = boundary.remoteness
        values = two_player_induction(graph, levels, total, remoteness)
        if values is not None:
            centred, index = np.unique(values.lower[:n], return_inverse=True)
            table = [encode_vector(values.vector(int(np.flatnonzero(values.lower[:n] == w)[0])))
                     for w in centred.tolist()]
            return table, index.reshape(-1), values.remoteness[:n].copy(), how
    if levels is not None:
        vectors = vector_induction(graph, levels).vectors[:n]
        table, index = tabulate(vectors)
        return table, index, np.full(n, -1, dtype=np.int32), how
    if two_player_constant_sum and info.has_chance:
        vectors, how = _stochastic(graph, total, try_exact, info)
        table, index = tabulate(vectors[:n])
        return table, index, np.full(n, -1, dtype=np.int32), how
    kind = f"{info.num_players} players" if info.num_players != 2 else info.sum_kind
    raise SolverError(f"strong solve: game {info.name!r} can repeat positions and has {kind}: "
                      "by tiers gdl solves such games only without cycles; solve it as one "
                      "graph (without --workers, --scheduler or --tier-dir), where it looks for "
                      "an equilibrium (docs/multiplayer.md)")


def _retrograde_tier(info, graph: PositionGraph, n: int, boundary: Boundary,
                     total, ends: Any = None) -> tuple[list, np.ndarray, np.ndarray, dict]:
    """A tier of a two-player constant-sum game without chance that has a cycle or reaches a
    draw: retrograde analysis (gdl.graph.retrograde), the stand-ins fixed at their values and
    draw ranges, and entering the remoteness count at their own remoteness; the numbers are
    those of the whole graph's analysis, because no move leads back from a later tier. A
    position whose players can force ends of different worth is kept as its range
    (``DrawRange``): its value, where it has one, follows from the range (``range_value``)."""
    from gdl.graph import RETROGRADE
    from gdl.graph.retrograde import Fixed, retrograde

    m = len(graph) - n
    centred = [None if d is not None else
               Fraction(graph.returns_table[graph.returns_index[n + i]][0]) * 2 - total
               for i, d in enumerate(boundary.draws)]
    fixed = Fixed(positions=n + np.arange(m), remoteness=boundary.remoteness,
                  lower=[w if d is None else d[0] for w, d in zip(centred, boundary.draws)],
                  upper=[w if d is None else d[1] for w, d in zip(centred, boundary.draws)])
    endless = None if info.endless_value is None else info.endless_value[0]
    if endless is None and ends is None:
        raise SolverError("a tier's retrograde analysis needs the game's ends")
    values = retrograde(graph, total, fixed, endless=endless, ends=ends)
    if values is None:
        raise SolverError(f"strong solve: game {info.name!r} has utilities too large for "
                          "retrograde analysis's 64-bit integers")
    lower, upper = values.lower[:n], values.upper[:n]

    def entry(position: int):
        lo, hi = int(lower[position]), int(upper[position])
        if lo == hi:
            return encode_vector(values.vector(position))
        return DrawRange(*(None if w in (NO_END_LOW, NO_END_HIGH) else
                           encode_value(plain_value((Fraction(w, values.scale) + total) / 2))
                           for w in (lo, hi)))

    _, first, index = np.unique(np.stack((lower, upper), axis=1), axis=0, return_index=True,
                                return_inverse=True)
    table = [entry(position) for position in first.tolist()]
    how = {"method": RETROGRADE, "exact": True, "note": ""}
    return table, index.reshape(-1), values.remoteness[:n].astype(np.int32), how


def _stochastic(graph: PositionGraph, total, try_exact: bool = True, info=None
                ) -> tuple[list, dict]:
    """``gdl.graph.iteration.solve_stochastic`` for a tier: the same steps (value iteration,
    then the exact policy check), with the stand-in terminals' values exact fractions of any
    denominator rather than integers over one common scale. Where the players can keep a play
    going, the declared value of endless play (``info.endless_value``) is what it is worth;
    a game that does not declare it is refused here: its draws need two whole solves."""
    from gdl.graph import VALUE_ITERATION, iteration

    endless = None
    stays = len(iteration.endless_positions(graph)) > 0
    if stays:
        if info is None or info.endless_value is None:
            raise SolverError(
                "strong solve: in a tier of this game the players can keep a play going for "
                "ever, and the rules do not say what endless play is worth: declare it "
                "(`when endless draw` or `when endless (u1, u2)`), or solve the game as one "
                "graph (without --workers, --scheduler or --tier-dir), which values such "
                "positions both ways and calls a draw what they leave open")
        endless = Fraction(info.endless_value[0]) * 2 - total

    is_terminal = graph.player == TERMINAL
    exact_terminal: list = [None] * len(graph)
    for position in np.flatnonzero(is_terminal).tolist():
        returns = graph.returns_table[graph.returns_index[position]]
        exact_terminal[position] = Fraction(returns[0]) * 2 - total
    centred = np.array([0.0 if v is None else float(v) for v in exact_terminal])
    parts, _, layers = iteration.condensation_layers(graph)
    approximate, residual = iteration.float_values(
        graph, centred, 1, layers, start=0.0 if endless is None else float(endless))
    note, exact = "", None
    if not try_exact:
        note = "a later tier's values are approximate, so this tier's are too"
    elif len(graph) > iteration.EXACT_LIMIT:
        note = (f"a tier of more than {iteration.EXACT_LIMIT:,} positions is not checked "
                "exactly; values from value iteration")
    else:
        try:
            exact = iteration.exact_values(graph, centred, 1, parts, approximate,
                                           exact_terminal, endless)
        except iteration._TooBig:
            note = (f"the exact check gave up (numbers beyond {iteration.MAX_DIGITS:,} digits, "
                    "or no stable policy); values from value iteration")
    how = {"method": VALUE_ITERATION, "exact": exact is not None, "note": note,
           "residual": None if exact is not None else residual}
    if exact is not None:
        return [(plain_value((v + total) / 2), plain_value((total - v) / 2)) for v in exact], how
    return [((v + float(total)) / 2, (float(total) - v) / 2) for v in approximate.tolist()], how


# A tier with moves inside it (Pig's turns) is cut into pieces no move joins, solved on the
# workers, when it has at least this many positions (below, a task costs more than it saves).
SPLIT_MIN = 5_000


class _InfoOnly:
    """What a piece's graph needs of the game: its info (numbers of players, sum)."""

    def __init__(self, info):
        self.info = info


def _pieces(graph: PositionGraph, n: int, parts: int) -> list[np.ndarray]:
    """The tier's positions cut into at most ``parts`` sets that no move inside the tier joins
    (whole weakly connected components, by label propagation), each sorted."""
    from gdl.graph.order import weak_components

    owner = np.repeat(np.arange(n), np.diff(graph.first[:n + 1]))
    child = graph.child[:len(owner)]
    inside = child < n
    label = weak_components(n, owner[inside], child[inside])   # named by smallest position
    sizes = np.bincount(label, minlength=n)
    before = np.cumsum(sizes) - sizes  # positions in components of smaller label
    group_of = np.minimum(before * parts // max(1, n), parts - 1)
    group = group_of[label]
    return [members for g in range(parts) if len(members := np.flatnonzero(group == g))]


def _piece(graph: PositionGraph, n: int, members: np.ndarray, boundary: Boundary,
           info) -> tuple:
    """The task solving one piece: its positions and the stand-in terminals they reach."""
    from gdl.graph.order import gather

    edges, counts = gather(graph.first, np.arange(len(graph.child)), members)
    children = graph.child[edges].astype(np.int64)
    local = np.full(n, -1, dtype=np.int64)
    local[members] = np.arange(len(members))
    outside = children >= n
    stand_ins = np.unique(children[outside])
    mapped = np.empty(len(children), dtype=np.int64)
    mapped[~outside] = local[children[~outside]]
    mapped[outside] = len(members) + np.searchsorted(stand_ins, children[outside])
    first = np.zeros(len(members) + len(stand_ins) + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:len(members) + 1])
    first[len(members) + 1:] = first[len(members)]
    every = np.concatenate((members, stand_ins))
    arrays = {
        "player": graph.player[every], "first": first, "child": mapped,
        "probability_index": (None if graph.probability_index is None
                              else graph.probability_index[edges]),
        "returns_index": graph.returns_index[every],
    }
    return (info, arrays, graph.probabilities, graph.returns_table, len(members),
            boundary[stand_ins - n])


def solve_piece(task) -> tuple[list, np.ndarray, np.ndarray, dict]:
    """A worker's task: one piece of a tier, solved as ``_solve_local`` solves a tier."""
    info, arrays, probabilities, returns_table, n, boundary, try_exact, ends = task
    size = len(arrays["player"])
    graph = PositionGraph(game=_InfoOnly(info), keys=range(size), index={},  # type: ignore[arg-type]
                          packed=True, probabilities=probabilities, returns_table=returns_table,
                          **arrays)
    return _solve_local(info, graph, n, boundary, try_exact, ends)


def _solve_tier(run: TierRun, graph: PositionGraph, n: int, boundary: Boundary,
                try_exact: bool = True) -> tuple[list, np.ndarray, np.ndarray, dict]:
    """A tier's values: at once, or in pieces on the workers (see SPLIT_MIN); the same."""
    info = run.game.info
    inside = int(np.count_nonzero(graph.child < n))
    ends = functools.partial(game_ends, run)
    if isinstance(run.executor, SerialExecutor) or n < SPLIT_MIN or not inside:
        return _solve_local(info, graph, n, boundary, try_exact, ends)
    pieces = _pieces(graph, n, 4 * run.executor.workers)
    if len(pieces) < 2:
        return _solve_local(info, graph, n, boundary, try_exact, ends)
    # a piece's worker cannot look for the game's ends: found here, where they may be needed
    retrograde = (info.num_players == 2 and info.is_constant_sum and not info.has_chance
                  and info.endless_value is None)
    answers = run.executor.map(solve_piece, [
        _piece(graph, n, members, boundary, info) + (try_exact, ends() if retrograde else None)
        for members in pieces])
    table: dict = {}
    index = np.empty(n, dtype=np.int64)
    remoteness = np.empty(n, dtype=np.int32)
    hows = []
    for members, (part_table, part_index, part_remoteness, how) in zip(pieces, answers):
        ids = np.array([table.setdefault(v, len(table)) for v in part_table], dtype=np.int64)
        index[members] = ids[part_index]
        remoteness[members] = part_remoteness
        hows.append(how)
    how = {"method": overall_method([h["method"] for h in hows]),
           "exact": all(h["exact"] for h in hows), "note": next((h["note"] for h in hows
                                                                  if h["note"]), "")}
    return list(table), index, remoteness, how


def native_step(run: TierRun, tier: int, count: int):
    """The tier's values in C on the workers (gdl.graph.packed_tiers.solve_tier), or None."""
    from gdl.graph.packed_tiers import NativeDeclined, solve_tier

    try:
        return solve_tier(run, tier, count)
    except NativeDeclined as error:
        raise SolverError(f"the native rules failed while solving tier {tier} ({error}), though "
                          "they found it; solve with --backend compile") from None


def _native_expansion(run: TierRun, keys: np.ndarray) -> Expansion:
    from gdl.graph.packed_tiers import NativeDeclined, native_expansion

    try:
        return native_expansion(run.native, keys)
    except NativeDeclined as error:
        raise SolverError(f"the native rules failed while solving a tier ({error}), though "
                          "they found it; solve with --backend compile") from None


def solve_one(run: TierRun, tier: int, keys: np.ndarray, loaded: dict[int, TierResult],
              try_exact: bool) -> tuple[list, np.ndarray, np.ndarray, dict]:
    """Tier ``tier``'s ``(table, index, remoteness, how)`` from its positions' moves,
    and the results of the tiers its moves reach: read into ``loaded`` (a cache, from which the
    tiers it does not reach are dropped: bounded memory)."""
    if run.native is not None:
        expansion = _native_expansion(run, keys)
    else:
        expansion = (native_expand(run.game, keys, run.tier) or stored_expansion(run, tier, keys)
                     or run.expand_all(keys, run.path(tier, "keys.npy")))
    needed = set(np.unique(expansion.child_tier).tolist()) - {tier}
    for u in list(loaded):
        if u not in needed:
            del loaded[u]
    for u in sorted(needed - set(loaded)):
        loaded[u] = TierResult.load(run, u)
    # a tier with chance and cycles: dense arrays (gdl/graph/chance_tiers.py)
    from gdl.graph import chance_tiers

    answer = (chance_tiers.solve_tier(run, tier, keys, expansion, loaded, try_exact)
              if chance_tiers.applies(run.game.info) else None)
    if answer is None:
        graph, boundary = _local_graph(run, tier, keys, expansion, loaded)
        answer = _solve_tier(run, graph, len(keys), boundary, try_exact)
    return answer
