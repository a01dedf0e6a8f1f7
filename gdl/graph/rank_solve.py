"""Strong solving on ranked tables: a code of one or two bytes a slot, no key a position.

``ranked_solve(game)`` values every reachable position of a two-player constant-sum game
without chance whose native rules give it a tier (declared, or found from the moves: cells
that only grow or only shrink; else one tier), moves inside a tier allowed:

1. A layout is guessed from a sample (gdl.graph.rank) and its tables built.
2. **Forward**, lowest tier first (gdl/backends/native/rank.c): every slot reached is expanded;
   its children are ranked and marked in their tiers' bitmaps (a bit a slot). A state that
   does not fit the layout makes it coarser (``rank.refine``) and the walk starts again.
   A tier's bitmap, once final, goes to a file.
3. **Backward**, highest tier first: each reached slot gets a code, ``1 + value index * M +
   remoteness`` (``M``: more than any remoteness: the number of tiers), read by its parents
   from the same kind of table. Where a move stays inside its tier (positions can repeat),
   the value index is a pair ``(lo, hi)`` (``_pairs``) and the tier is solved by sweeps over
   its slots until nothing changes (rank.c's ``rank_cyclic_tier``; docs/graph.md says why).
   Only the tiers a tier's moves reach are in memory with it; each tier's codes go to a file
   as soon as no lower tier needs them.

The result (``RankedSolution``, gdl.graph.rank_solution) answers like a ``GraphSolution``, and
``gdl.graph.database.save`` writes its codes as a database of format 2 without re-encoding
them. Where the ranked solve does not apply (chance, no native rules, a table beyond
memory, a remoteness beyond the codes), ``NotRanked`` says why and the caller solves the usual way.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import weakref
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np

from gdl.graph import rank
from gdl.graph.solution import NO_END_HIGH, NO_END_LOW, TwoPlayerValues
from gdl.protocol import constant_sum_total

# Layouts tried: the first guess, then each refinement.
MAX_ATTEMPTS = 32
# The share of the available memory the tables may take.
MEMORY_SHARE = 0.5
FALLBACK_BUDGET = 4 << 30


class NotRanked(Exception):
    """The ranked solve does not apply to this game; the message says why."""


class _Lowered(NotRanked):
    """A move lowers the tier."""


# What the position graph and its retrograde analysis take, about (measured on the bundled
# cyclic games, whole process: 200-600 bytes a position with the interpreter's own memory):
# the forward pass's figures against memory_budget() decide between the graph and the sweeps.
GRAPH_BYTES_A_POSITION = 160
GRAPH_BYTES_A_MOVE = 12


def memory_budget() -> int:
    """Bytes the ranked tables may take: half of the memory available (Linux), else 4 GiB."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * MEMORY_SHARE)
    except (OSError, ValueError, IndexError):
        pass
    return FALLBACK_BUDGET


def expander_of(game):
    """The game's native expander, or NotRanked with the reason it has none."""
    from gdl.graph.positions import native_expander

    if game.info.has_chance:
        raise NotRanked("the ranked tables take no chance games yet")
    if game.info.num_players != 2 or not game.info.is_constant_sum:
        raise NotRanked("the ranked tables take two-player constant-sum games only")
    expander = native_expander(game, wide=True)
    if isinstance(expander, str):
        raise NotRanked(expander)
    return expander


def worth_ranking(game, at_least: int) -> bool:
    """A quick look before a ranked solve: native rules without chance, two players, constant
    sum, and a key space (the product of the cells' domains) of at least ``at_least`` states:
    a game whose keys are fewer has fewer positions, and its graph is quicker."""
    from gdl.graph.positions import native_expander

    info = game.info
    if info.has_chance or info.num_players != 2 or not info.is_constant_sum:
        return False
    expander = native_expander(game, wide=True)
    return not isinstance(expander, str) and expander.codec.positions >= at_least


class _Files:
    """A directory of per-tier arrays (reached bitmaps, codes), removed with its owner when it
    is a temporary one."""

    def __init__(self, directory: str | Path | None):
        self.temporary = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="gdl-ranked-")) if directory is None \
            else Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def path(self, tier: int, kind: str) -> Path:
        return self.directory / f"ranked-{tier}.{kind}"

    def write(self, tier: int, kind: str, array: np.ndarray) -> None:
        array.tofile(self.path(tier, kind))

    def read_into(self, tier: int, kind: str, out: np.ndarray) -> None:
        with open(self.path(tier, kind), "rb") as source:
            source.readinto(out.view(np.uint8).data)

    def remove(self, tier: int, kind: str) -> None:
        self.path(tier, kind).unlink(missing_ok=True)

    def cleanup(self) -> None:
        if self.temporary:
            shutil.rmtree(self.directory, ignore_errors=True)
        else:
            for path in self.directory.glob("ranked-*"):
                path.unlink(missing_ok=True)


def ranked_solve(game, *, tier=None, directory: str | Path | None = None,
                 max_states: int | None = None, min_positions: int = 0,
                 progress: Callable[[str, int, int], None] | None = None,
                 budget: int | None = None, workers: int = 1):
    """Every reachable position of ``game`` valued on ranked tables (see the module docstring):
    a ``RankedSolution``. ``tier``: the tier as ``(growing cells, shrinking cells)`` where the
    rules declare none (None: the declared one, or one found from the moves); ``directory``:
    where the tables' files go (a temporary directory by default, removed with the solution).
    ``workers``: the threads the passes run on (the same answers and files on any number).
    The solution's ``cpu`` gives per pass the CPU seconds of the threaded passes (``tasks``)
    and of the rest of the process meanwhile (``coordinator``): the serial share.
    Raises ``NotRanked`` where it does not apply (or the game has fewer than ``min_positions``
    positions), ``TooManyPositions`` past ``max_states``."""
    from gdl.graph.rank_solution import RankedSolution
    from gdl.graph.tier_keys import ComponentTier, tier_function

    info = game.info
    expander = expander_of(game)
    total = Fraction(constant_sum_total(info, "strong solve"))
    if total.denominator != 1:
        raise NotRanked("the constant sum is not a whole number")
    started = time.perf_counter()
    clock = _PassClock()
    codec = expander.codec
    root = tuple(game.initial_state())
    root_key = codec.encode(root)
    if root_key is None:
        raise NotRanked("the initial state is outside the declared domains")
    inferred = tier is None and not expander.has_tier
    if inferred:
        # a wide expander (states past a 63-bit key) has no walk: its sample comes through
        # the protocol
        tier = _inferred_tier(expander, root_key) if expander.keyed \
            else rank.inferred_by_protocol(game, root)
    masks, owners = expander.domains()
    declared = rank.declared_values(masks, codec.low, codec.size)

    def guessed(tier):
        if expander.keyed:
            sample = rank.sample_states(expander, root_key, tier)
        else:
            # a state's tier as rank.c's ``tier_of`` computes it: the rules' own for None,
            # else the growing cells' sum less the shrinking cells'
            sample = rank.sample_by_protocol(game, root, tier_function(
                game, None if tier is None else ComponentTier(*tier)))
        if sample is None:
            raise NotRanked("a rule error in the sample")
        return rank.derive(sample.states, sample.tiers, codec.low, codec.size, masks, owners,
                           tier)

    layout = guessed(tier)
    budget = memory_budget() if budget is None else budget
    files = _Files(directory)
    seconds: dict = {}
    try:
        for _ in range(MAX_ATTEMPTS):
            try:
                tables = rank.build_tables(layout)
            except rank.TooLarge as error:
                raise NotRanked(f"the layout's tables are too large ({error})") from None
            passes = expander.ranked(tables.arrays, _header(layout, tables, tier, int(total),
                                                            budget), workers)
            clock.watch(passes)
            try:
                found = _forward(passes, root, files, max_states, min_positions, progress,
                                 game)
            except _Lowered:
                # the tier found from a sample is wrong (a cell it saw only grow also
                # shrinks): the whole game is one tier, its moves inside it
                passes.close()
                if not inferred or tier == ((), ()):
                    raise
                tier = ((), ())
                layout = guessed(tier)
                continue
            if isinstance(found, tuple):
                state, fixed, target = found
                coarser = rank.refine(layout, declared, state, fixed, target, tables)
                passes.close()
                if coarser is None:
                    raise NotRanked("a reached state fits no layout")
                layout = coarser
                continue
            seconds["forward"] = time.perf_counter() - started
            cpu = {"forward": clock.lap()}
            started = time.perf_counter()
            records = found
            solved = _backward(passes, records, files, progress, game)
            seconds["backward"] = time.perf_counter() - started
            cpu["backward"] = clock.lap()
            solution = RankedSolution(game, expander, layout, tables, passes, records,
                                      files, tier, total, *solved)
            solution.seconds = seconds
            solution.cpu = cpu
            if files.temporary:
                weakref.finalize(solution, files.cleanup)
            return solution
        raise NotRanked(f"no layout fitted after {MAX_ATTEMPTS} tries")
    except BaseException:
        files.cleanup()
        raise


class _PassClock:
    """CPU seconds since the last lap: the threaded passes' (``tasks``, as rank.c counts them
    on every context made, refined layouts' included) and the rest of this process's
    (``coordinator``: Python, the layouts, the files, the sweeps of tiers whose moves may stay
    inside them)."""

    def __init__(self):
        self.current = None
        self.before = 0.0           # the threads' seconds on the contexts before the current
        self.process = time.process_time()
        self.threads = 0.0

    def watch(self, passes) -> None:
        if self.current is not None:
            self.before += self.current.cpu()
        self.current = passes

    def lap(self) -> dict:
        process = time.process_time()
        threads = self.before + (0.0 if self.current is None else self.current.cpu())
        tasks = threads - self.threads
        lap = {"coordinator": round(max(0.0, process - self.process - tasks), 3),
               "tasks": round(tasks, 3)}
        self.process, self.threads = process, threads
        return lap


def _inferred_tier(expander, root_key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cells that only grow and cells that only shrink along the moves of a breadth-first
    sample (what gdl.graph.tiers.infer_tier finds through the protocol), as a tier; the
    forward pass checks it on every move (a move lowering it: NotRanked)."""
    codec = expander.codec
    raised: set[int] = set()
    lowered: set[int] = set()
    seen = {root_key}
    frontier = np.array([root_key], dtype=np.uint64)
    while len(frontier) and len(seen) < rank.BFS_SAMPLE * 4:
        expansion = expander.expand(frontier)
        if expansion is None:
            raise NotRanked("a rule error in the sample")
        counts = np.diff(expansion.first)
        if not len(expansion.child):
            break
        parents = codec.decode_many(np.repeat(frontier, counts))
        children = codec.decode_many(expansion.child)
        raised.update(np.flatnonzero((children > parents).any(axis=0)).tolist())
        lowered.update(np.flatnonzero((children < parents).any(axis=0)).tolist())
        fresh = [k for k in np.unique(expansion.child).tolist() if k not in seen]
        seen.update(fresh)
        frontier = np.array(fresh, dtype=np.uint64)
    both = raised & lowered
    return tuple(sorted(raised - both)), tuple(sorted(lowered - both))


def _header(layout: rank.Layout, tables: rank.Tables, tier, total: int, budget: int) -> dict:
    if tier is None:
        tier_cells, nplus, nminus = [0], -1, 0
    else:
        growing, shrinking = tier
        tier_cells, nplus, nminus = list(growing) + list(shrinking) + [0], len(growing), \
            len(shrinking)
    tables.arrays["tier_cells"] = np.array(tier_cells, dtype=np.int32)
    return {"ncomp": len(layout.components), "nfixed": len(layout.fixed),
            "ndims": len(layout.weights), "nrem": tables.nrem, "nplus": nplus,
            "nminus": nminus, "total": total, "slot_limit": min(budget, rank.SLOT_LIMIT),
            "budget": budget}


class TierRecord:
    """What the forward pass found in one tier."""

    def __init__(self, value: int, info):
        self.value = value
        self.size = info.size
        self.target = info.target
        self.fixed = info.fixed
        self.reached = info.reached
        self.terminal = info.terminal
        self.edges = info.edges
        self.inside = info.inside
        self.reaches = info.reaches


def _forward(passes, root, files: _Files, max_states, min_positions, progress, game):
    """The forward pass over every tier: the tiers' records, lowest first; or, where a state
    did not fit the layout, ``(state, fixed values, target)`` of the tier it belongs to."""
    from gdl.graph.positions import TooManyPositions

    status = passes.seed(root)
    if status == -2:
        state = passes.failure()[5]
        return state, None, None
    _check(status, "the start")
    done: dict[int, TierRecord] = {}
    found = 0
    while True:
        waiting = [t for t in passes.tiers() if t not in done]
        if not waiting:
            break
        tier = min(waiting)
        status = passes.forward(tier)
        if status == -2:
            _, _, failed, _, _, state = passes.failure()
            info = passes.tier_info(failed)
            if info is None:           # the state would have started a new tier
                return state, None, None
            return state, info.fixed, info.target
        if status == -5:
            raise _Lowered("a move lowers the tier")
        _check(status, f"tier {tier}")
        record = done[tier] = TierRecord(tier, passes.tier_info(tier))
        found += record.reached
        if max_states is not None and found > max_states:
            raise TooManyPositions(f"game {game.info.name!r} has more than {max_states:,} "
                                   "reachable positions; raise --max-states if the machine "
                                   "has the memory")
        bits = passes.bits(tier, record.size)
        files.write(tier, "bits", bits)
        passes.drop(tier, 0)
        if progress is not None:
            progress("ranked forward", found, found)
    if found < min_positions:
        raise NotRanked(f"fewer than {min_positions:,} positions: the position graph is "
                        "quicker")
    records = [done[t] for t in sorted(done)]
    if min_positions and any(r.inside for r in records):
        # positions repeat inside a tier: its sweeps expand the tier once a sweep, which the
        # position graph's retrograde analysis does not; take them only where the graph
        # would not fit in memory (asked for, ``ranked=True``, they are taken anyway)
        graph_bytes = sum(GRAPH_BYTES_A_POSITION * r.reached + GRAPH_BYTES_A_MOVE * r.edges
                          for r in records)
        if graph_bytes < memory_budget():
            raise NotRanked("positions repeat inside a tier, and the position graph, which "
                            "is quicker there, fits in memory")
    return records


def _check(status: int, where: str) -> None:
    reasons = {-1: "a rule error (or a stuck position, or a score beyond 2^60)",
               -3: "the tables would pass the memory budget",
               -6: "a tier with more slots than memory holds",
               -7: "a move stays inside its tier",
               -8: "a table is missing", -9: "the codes disagree with the walk",
               -10: "a remoteness beyond what two bytes a position hold"}
    if status:
        raise NotRanked(f"{reasons.get(status, f'status {status}')} in {where}")


def _backward(passes, records: list[TierRecord], files: _Files, progress, game):
    """The backward pass: each tier's codes written to its file; returns ``(table, M, width,
    census counts, pairs)`` (``pairs``: None where every move leaves its tier, else the
    pairs of a cyclic encoding, ``_pairs``)."""
    table = sorted(passes.scores())
    pairs = None
    if any(record.inside for record in records):
        pairs, low_index, high_index = _pairs(table, game)
        width = 2
        M = 65535 // len(pairs.lower)
        if M < 2:
            raise NotRanked("more distinct values and remoteness than two bytes a position "
                            "hold")
        passes.encoding(table, M, width)
        value, known = pairs.decided()
        flags = (known.astype(np.int64) | (known & (pairs.lower == value)) * 2
                 | (known & (pairs.upper == value)) * 4)
        hist = passes.cyclic_encoding(low_index, high_index,
                                      np.where(known, value, 0).tolist(), flags.tolist())
    else:
        M = max(1, len(records))
        width = 1 if 1 + len(table) * M <= 256 else 2
        if 1 + len(table) * M > 65536:
            raise NotRanked("more distinct values and remoteness than two bytes a position "
                            "hold")
        hist = passes.encoding(table, M, width)
    # each tier's codes are kept until the lowest tier reaching it is solved
    needed_until: dict[int, int] = {}
    for record in records:
        for u in record.reaches:
            needed_until[u] = min(needed_until.get(u, record.value), record.value)
    total = sum(r.reached for r in records)
    done = 0
    for record in reversed(records):
        tier = record.value
        if not passes.allocate(tier, 0):
            raise NotRanked("the tables would pass the memory budget")
        files.read_into(tier, "bits", passes.bits(tier, record.size))
        _check(passes.backward(tier), f"tier {tier}")
        passes.drop(tier, 0)
        files.write(tier, "codes", passes.codes(tier, record.size))
        for u in [tier, *record.reaches]:
            if needed_until.get(u, tier) >= tier:
                passes.drop(u, 1)
        done += record.reached
        if progress is not None:
            progress("ranked backward", done, total)
    return table, M, width, hist.copy(), pairs


def _pairs(table: list[int], game) -> tuple[TwoPlayerValues, list[int], list[int]]:
    """Every pair ``(lo, hi)`` a position of a game whose moves may stay inside a tier can
    have: the best end player 0 can force (NO_END_LOW: none) and the best player 1 can
    (NO_END_HIGH: none), over the game's centred terminal scores ``table``, lo <= hi. Returns
    ``TwoPlayerValues`` over the pairs, which give each pair its value, class and whether a
    side forces its end by the rules of docs/graph.md (what endless play is worth where the
    rules say, ``when endless``, else the game's least and greatest end), with the scores
    times a scale that makes endless play's worth a whole number; and each pair's indices
    into the extended scores ``[none, *table, none]``."""
    total = constant_sum_total(game.info, "strong solve")
    endless = None if game.info.endless_value is None else game.info.endless_value[0]
    scale = 1 if endless is None else (Fraction(endless) * 2 - total).denominator
    if max((abs(w) for w in table), default=0) * scale >= 2**60:
        raise NotRanked("the values are too large for 64-bit integers")
    extended = [NO_END_LOW, *(w * scale for w in table), NO_END_HIGH]
    lower, upper, low_index, high_index = [], [], [], []
    for i in range(len(extended) - 1):
        for j in range(max(i, 1), len(extended)):
            lower.append(extended[i])
            upper.append(extended[j])
            low_index.append(i)
            high_index.append(j)
    ends = (table[0] * scale, table[-1] * scale) if endless is None and table else None
    values = TwoPlayerValues(lower=np.array(lower, dtype=np.int64),
                             upper=np.array(upper, dtype=np.int64),
                             remoteness=np.full(len(lower), -1, dtype=np.int32), scale=scale,
                             total=total, endless=endless, ends=ends)
    return values, low_index, high_index


def ranked_tiers(run, infer_tier):
    """A solve by tiers (gdl.graph.tiers.tiered_solve) on ranked tables, in the run's
    directory, its passes on as many threads as the run's executor has workers, as a
    ``TieredSolution`` whose ``ranked`` is the ``RankedSolution``; None where the ranked
    tables do not apply or the game has fewer than RANKED_MIN positions (the tier files then
    do the work)."""
    from gdl.graph import RANKED_MIN
    from gdl.graph.tier_solution import TieredSolution

    game = run.game
    if not worth_ranking(game, RANKED_MIN):
        return None
    tier = None
    if getattr(game, "tier", None) is None:
        inferred = infer_tier(game)
        tier = (tuple(inferred.growing), tuple(inferred.shrinking))
    try:
        solution = ranked_solve(game, tier=tier, directory=run.directory,
                                min_positions=RANKED_MIN, progress=run.progress,
                                workers=run.executor.workers)
    except NotRanked:
        return None
    run.native = solution.expander
    run.manifest = {"keys": "ranked", "solved": {}, "binding": run.binding}
    tiers = [[r.value, r.reached] for r in solution.records]
    return TieredSolution(run, tiers, solution.method, True, "", dict(solution.seconds), None,
                          dict(solution.cpu), ranked=solution)


__all__ = ["NotRanked", "memory_budget", "ranked_solve", "ranked_tiers"]
