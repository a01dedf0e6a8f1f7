"""Strong solving a tier at a time, in bounded memory, on any executor (see docs/tiers.md).

A game's *tier* is an integer over the state that no move lowers (``tier`` in the rules: the
game object's ``tier(state)``; without one, every position is in tier 0). The solve has two
passes over a directory of tier files:

1. **Forward** (``discover``), lowest tier first: the positions of tier t are those reached from
   lower tiers plus those reached inside t; they are found a breadth-first round at a time and
   written, sorted by key, to ``tier-t.keys.npy``. The moves reaching later tiers wait, as sorted
   key arrays, until their tier comes. A move to a lower tier is a ``TierViolation``.
2. **Backward** (``solve_tiers``), a tier once the tiers its moves reach are solved (highest
   first in one process; with workers, tiers that do not reach each other at once, each whole
   in a worker: ``tier_task``): each position of tier t is expanded again (or its moves read
   back from the forward pass, ``stored_expansion``),
   a move inside t becomes an edge of a small local graph, and a move to a later tier u is looked
   up by binary search in u's results (loaded only while t needs them) and stands in the local
   graph as a terminal with that value and remoteness. The local graph is solved by the strong
   solver's own methods (``gdl.graph.induction``; with chance and cycles inside the tier, as in
   Pig whose turn total keeps the banked points fixed, ``gdl.graph.iteration``), and the tier's
   results (value-table index and remoteness per position, in key order) are written to
   ``tier-t.values.npy`` / ``tier-t.remoteness.npy`` / ``tier-t.table.json`` (``table.npy``
   where every entry is a vector of floats). The manifest then
   records the tier as solved: that is the checkpoint ``resume=True`` starts from.

``merge_database`` writes the position database from the tier results, byte for byte the file
``gdl.graph.database.save`` writes for the single-graph solve (same sorted keys, value table in
order of first use, record layout, header).

Keys are ``bytes([len(state)]) + bytes(state)``: the database's "u8v" order, which is "u8"'s when
every state has the same length. ``expand`` is the only place that calls the game: a native
"expand a batch of keys" primitive can replace it there.
"""

from __future__ import annotations

import functools
import json
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain, pairwise
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph.database import (
    LEVEL,
    VERSION,
    _decode_value,
    _encode_value,
    atomic_write,
    private_directory,
    record_layout,
    record_sections,
    write_file,
)
from gdl.graph.executor import SerialExecutor, game_from
from gdl.graph.positions import PositionGraph
from gdl.graph.solution import NO_END_HIGH, NO_END_LOW
from gdl.protocol import CHANCE, TERMINAL, chance_outcomes, constant_sum_total, native_rules, no_legal_actions
from gdl.solvers.result import SolverError

MANIFEST = "manifest.json"
FORMAT = 1
# Positions a task expands: large enough that a task's overhead (pickling, a process hop) is
# small against its work, small enough that every worker gets several tasks per round.
TASK_SIZE = 20_000
# Fewer positions than this are expanded here: sending them to a worker costs more than their
# work (Pig's forward rounds are a few hundred positions each, thousands of them).
PARALLEL_MIN = 2_000
# The manifest (the checkpoint) is written at most this often while a pass goes on, and
# always when it ends (TierRun.checkpoint).
CHECKPOINT_SECONDS = 1.0


class TierViolation(SolverError):
    """A move that lowers the declared tier."""

    def __init__(self, message: str, state=None, action=None, from_tier: int = 0,
                 to_tier: int = 0):
        super().__init__(message)
        self.state, self.action = state, action
        self.from_tier, self.to_tier = from_tier, to_tier


class TiersStopped(SolverError):
    """The solve stopped after the number of tiers it was asked to solve (a checkpoint)."""


# ---- keys --------------------------------------------------------------------------------------

def key_of(state) -> bytes:
    """A state's key: its length, then its components as bytes."""
    try:
        if type(state) is not tuple or len(state) > 255:
            raise ValueError
        return bytes([len(state)]) + bytes(state)
    except (TypeError, ValueError):
        raise SolverError("a tiered solve needs states that are tuples of integers 0..255 "
                          f"(met {state!r}); solve without --workers") from None


def state_of(key: bytes) -> tuple:
    """The state of a key (numpy drops trailing zero bytes: they are put back)."""
    key = bytes(key)
    if not key:
        return ()
    n = key[0]
    body = tuple(key[1:1 + n])
    return body + (0,) * (n - len(body))


def _keys_array(keys) -> np.ndarray:
    return np.array(keys, dtype="S") if len(keys) else np.zeros(0, "S1")


# ---- expanding positions: the one place the game is called ------------------------------------

@dataclass
class Expansion:
    """The moves of a batch of positions, flattened: position i's moves are the next
    ``count[i]`` entries of the per-move arrays."""

    player: np.ndarray               # int8 per position
    count: np.ndarray                # int64 per position
    child_key: np.ndarray            # S per move
    child_tier: np.ndarray           # int64 per move
    probability_index: np.ndarray    # int32 per move, into `probabilities`; -1 for a decision
    probabilities: list
    returns_index: np.ndarray        # int32 per position, into `returns_table`; -1 if not terminal
    returns_table: list


def expand(game, keys, tier: ComponentTier | None = None) -> Expansion:
    """Every move of the positions ``keys`` (in order), with each child's key and tier (the
    game's declared tier, or ``tier`` when given). In C where the game's native rules can
    (``native_expand``), else through the protocol: the same arrays either way."""
    fast = native_expand(game, keys, tier)
    return fast if fast is not None else protocol_expand(game, keys, tier)


def protocol_expand(game, keys, tier: ComponentTier | None = None) -> Expansion:
    """``expand`` through the game protocol."""
    tier_of = tier_function(game, tier)
    current_player, legal, apply = game.current_player, game.legal_actions, game.apply
    players, counts, child_keys, child_tiers = [], [], [], []
    probability_index: list[int] = []
    probability_ids: dict = {}
    outcome_ids: dict = {}
    returns_index: list[int] = []
    returns_ids: dict = {}
    prefix = _LENGTH_BYTE
    for state in _states(keys):
        player = current_player(state)
        players.append(player)
        if player == TERMINAL:
            values = tuple(game.returns(state))
            returns_index.append(returns_ids.setdefault(values, len(returns_ids)))
            counts.append(0)
            continue
        returns_index.append(-1)
        if player == CHANCE:
            pairs = chance_outcomes(game, state)      # checked: exact, summing to 1
            successors = [apply(state, outcome) for outcome, _ in pairs]
            # a game hands out the same outcome pairs again and again: their probabilities are
            # numbered once (hashing a Fraction is slow); the pairs are kept, so ids stay theirs
            same = tuple(map(id, pairs))
            numbered = outcome_ids.get(same)
            if numbered is None:
                numbered = outcome_ids[same] = (tuple(pairs), [
                    probability_ids.setdefault(Fraction(p), len(probability_ids))
                    for _, p in pairs])
            probability_index.extend(numbered[1])
        else:
            actions = legal(state)
            if not actions:
                raise no_legal_actions(game, state)
            successors = [apply(state, action) for action in actions]
            probability_index.extend([-1] * len(successors))
        counts.append(len(successors))
        for successor in successors:
            try:
                body = bytes(successor)
                child_keys.append(prefix[len(successor)] + body)
            except (TypeError, ValueError, IndexError):
                key_of(successor)               # raises the error that says why
            child_tiers.append(tier_of(successor))
    return Expansion(
        player=np.array(players, dtype=np.int8), count=np.array(counts, dtype=np.int64),
        child_key=_keys_array(child_keys), child_tier=np.array(child_tiers, dtype=np.int64),
        probability_index=np.array(probability_index, dtype=np.int32),
        probabilities=list(probability_ids),
        returns_index=np.array(returns_index, dtype=np.int32), returns_table=list(returns_ids))


_LENGTH_BYTE = [bytes([n]) for n in range(256)]

# A game's byte-key passes in C (``game.native.chance_graph(game)``), looked up once per game
# object (by id: the game is kept with them, so the id stays its own); None where it has none.
_BYTE_PASSES: dict[int, tuple] = {}


def byte_passes(game):
    """The game's native passes over byte keys (gdl.backends.native.chance_graph's contract),
    or None."""
    held = _BYTE_PASSES.get(id(game))
    if held is None or held[0] is not game:
        rules = native_rules(game)
        found = rules.chance_graph(game) if rules is not None else None
        held = _BYTE_PASSES[id(game)] = (game, None if isinstance(found, str) else found)
    return held[1]


def _first_use_int_rows(rows: np.ndarray) -> tuple[list, np.ndarray]:
    """The distinct rows of a 2-D integer array in order of first use (as lists), and each
    row's number among them. A batch of moves has few (one probability, a few returns): a
    stable sort of the rows, not ``np.unique``'s, which views them as structures."""
    if (rows == rows[0]).all():
        return [rows[0].tolist()], np.zeros(len(rows), dtype=np.int32)
    order = np.lexsort(rows.T[::-1])               # stable: the first of equal rows first
    ordered = rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    first_sorted = order[new]
    by_use = np.argsort(first_sorted, kind="stable")
    rank = np.empty(len(by_use), dtype=np.int32)
    rank[by_use] = np.arange(len(by_use), dtype=np.int32)
    number = np.empty(len(rows), dtype=np.int32)
    number[order] = rank[np.cumsum(new) - 1]
    return rows[first_sorted[by_use]].tolist(), number


def native_expand(game, keys, tier: ComponentTier | None = None) -> Expansion | None:
    """``expand`` in C (the game's native rules), or None where they cannot: no native rules,
    keys that are not a numpy array of bytes, or a rule error or a state beyond one byte a
    component on the way (the protocol then reports it, located)."""
    passes = byte_passes(game)
    if passes is None:
        return None
    found = passes.expand(keys, None if tier is None else (tier.growing, tier.shrinking))
    if found is None:
        return None
    moves = len(found.length)
    width = int(found.length.max()) if moves else 0
    child_key = (np.ascontiguousarray(found.child[:, :width]).view(f"S{width}").reshape(-1)
                 if moves else _keys_array([]))
    # probabilities and returns numbered in order of first use, as the protocol's loop does
    chance = np.flatnonzero(found.denominator > 0)
    probability_index = np.full(moves, -1, dtype=np.int32)
    probabilities: list = []
    if len(chance):
        pairs = np.stack((found.numerator[chance], found.denominator[chance]), axis=1)
        distinct, probability_index[chance] = _first_use_int_rows(pairs)
        probabilities = [Fraction(n, d) for n, d in distinct]
    ends = np.flatnonzero(found.player == TERMINAL)
    returns_index = np.full(len(found.player), -1, dtype=np.int32)
    returns_table: list = []
    if len(ends):
        distinct, returns_index[ends] = _first_use_int_rows(found.returns[ends])
        returns_table = [tuple(row) for row in distinct]
    return Expansion(player=found.player, count=found.count, child_key=child_key,
                     child_tier=found.tier, probability_index=probability_index,
                     probabilities=probabilities, returns_index=returns_index,
                     returns_table=returns_table)


def _states(keys) -> list[tuple]:
    """The states of an array of keys, all at once (a row of bytes each: fast)."""
    if not isinstance(keys, np.ndarray) or keys.dtype.kind != "S":
        return [state_of(key) for key in keys]
    if not len(keys) or keys.dtype.itemsize == 0:
        return [state_of(bytes(key)) for key in keys]
    rows = np.ascontiguousarray(keys).view(np.uint8).reshape(len(keys), keys.dtype.itemsize)
    return [tuple(row[1:1 + row[0]]) for row in rows.tolist()]


def _join(parts: list[Expansion]) -> Expansion:
    """One expansion from the expansions of consecutive batches (tables concatenated, indices
    shifted)."""
    if len(parts) == 1:
        return parts[0]
    p_offsets = np.cumsum([0] + [len(x.probabilities) for x in parts])
    r_offsets = np.cumsum([0] + [len(x.returns_table) for x in parts])

    def shifted(arrays, offsets):
        return np.concatenate([np.where(a >= 0, a + o, -1).astype(np.int32)
                               for a, o in zip(arrays, offsets)])

    return Expansion(
        player=np.concatenate([x.player for x in parts]),
        count=np.concatenate([x.count for x in parts]),
        child_key=np.concatenate([x.child_key for x in parts]),
        child_tier=np.concatenate([x.child_tier for x in parts]),
        probability_index=shifted([x.probability_index for x in parts], p_offsets),
        probabilities=[p for x in parts for p in x.probabilities],
        returns_index=shifted([x.returns_index for x in parts], r_offsets),
        returns_table=[r for x in parts for r in x.returns_table])


def expand_task(task) -> Expansion:
    """A worker's task: ``(game source, tier, keys)`` or ``(game source, tier, (tier file,
    start, stop))``; a tier file is read from the storage the workers share."""
    source, tier, batch = task
    if isinstance(batch, tuple):
        path, start, stop = batch
        batch = np.load(path, mmap_mode="r")[start:stop]
    return expand(game_from(source), batch, tier)


# ---- the tier of a state -----------------------------------------------------------------------

@dataclass(frozen=True)
class ComponentTier:
    """A tier read off the state: the sum of the components that only grow minus the sum of
    those that only shrink (none: one tier)."""

    growing: tuple[int, ...]
    shrinking: tuple[int, ...] = ()

    def __call__(self, state) -> int:
        return sum(state[i] for i in self.growing) - sum(state[i] for i in self.shrinking)


ONE_TIER = ComponentTier(())
# Positions the inference looks at: enough to see most moves of a small game, a second or so.
INFER_SAMPLE = 20_000


def tier_function(game, tier: ComponentTier | None) -> Callable[[Any], int]:
    """``tier`` when given, else the game's declared tier."""
    if tier is not None:
        return tier
    declared = getattr(game, "tier", None)
    return declared if declared is not None else ONE_TIER


def infer_tier(game, sample: int | None = None) -> ComponentTier:
    """A tier for a game that declares none, from the integer state components that change
    along the moves of the first ``sample`` positions (breadth-first): those that only go up
    count for, those that only go down (a heap, an empty cell filling up) against. It is a guess
    from a sample: the forward pass checks every move, and where one lowers the tier the solve
    falls back to one tier."""
    sample = INFER_SAMPLE if sample is None else sample
    root = game.initial_state()
    if type(root) is not tuple:
        return ONE_TIER
    width = len(root)
    lowered: set[int] = set()
    raised: set[int] = set()
    mixed: set[int] = set()
    seen = {root}
    queue = [root]
    for state in queue:
        if len(seen) >= sample:
            break
        player = game.current_player(state)
        if player == TERMINAL:
            continue
        moves = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                 else game.legal_actions(state))
        for move in moves:
            child = game.apply(state, move)
            if type(child) is not tuple:
                return ONE_TIER
            width = min(width, len(child))
            for i in range(min(len(state), len(child))):
                a, b = state[i], child[i]
                if type(a) is not int or type(b) is not int:
                    mixed.add(i)
                elif b < a:
                    lowered.add(i)
                elif b > a:
                    raised.add(i)
            if child not in seen:
                seen.add(child)
                queue.append(child)
    mixed |= raised & lowered
    return ComponentTier(tuple(sorted(i for i in raised - mixed if i < width)),
                         tuple(sorted(i for i in lowered - mixed if i < width)))


# ---- the run -----------------------------------------------------------------------------------

@dataclass
class TierRun:
    """A tiered solve's directory, game and executor, and what its manifest records."""

    game: Any
    directory: Path
    binding: dict
    source: Callable[[], Any] | None = None       # for workers in other processes
    executor: Any = field(default_factory=SerialExecutor)
    progress: Callable[[str, int, int], None] | None = None
    manifest: dict = field(default_factory=dict)
    tier: ComponentTier | None = None              # None: the game's declared tier
    native: Any = None                              # packed keys (gdl.graph.packed_tiers), or None
    saved_at: float = field(default=0.0, repr=False)     # when the manifest was last written
    unsaved: bool = field(default=False, repr=False)     # whether the manifest has news since

    def path(self, tier: int, part: str) -> Path:
        return self.directory / f"tier-{tier}.{part}"

    def save_manifest(self) -> None:
        # no indent: json's C encoder then writes it (an indented dump is pure Python)
        atomic_write(self.directory / MANIFEST,
                      json.dumps(self.manifest, sort_keys=True).encode("utf-8"))
        self.saved_at, self.unsaved = time.monotonic(), False

    def checkpoint(self) -> None:
        """The manifest's news (a tier found or solved, its files written) written, at most
        once in ``CHECKPOINT_SECONDS``: Pig to 100's 400 checkpoints of a 120 kB manifest cost
        a second. The passes write what is left when they end, however they end (``flush``),
        so only a process killed outright loses the last second's tiers, which a resumed solve
        then finds or solves again into the same files."""
        self.unsaved = True
        if time.monotonic() - self.saved_at >= CHECKPOINT_SECONDS:
            self.save_manifest()

    def flush(self) -> None:
        """The manifest written if it has news (``checkpoint``)."""
        if self.unsaved:
            self.save_manifest()

    def expand_all(self, keys: np.ndarray, tier_file: Path | None = None) -> Expansion:
        """Expand ``keys`` (all of tier file ``tier_file`` when given), in tasks spread over the
        executor; with one worker here, directly."""
        if (isinstance(self.executor, SerialExecutor) or self.source is None
                or len(keys) < PARALLEL_MIN):
            return expand(self.game, keys, self.tier)
        size = max(1, min(TASK_SIZE, -(-len(keys) // (4 * self.executor.workers))))
        bounds = [(start, min(start + size, len(keys))) for start in range(0, len(keys), size)]
        tasks: list
        if tier_file is not None:
            tasks = [(self.source, self.tier, (str(tier_file), a, b)) for a, b in bounds]
        else:
            tasks = [(self.source, self.tier, keys[a:b]) for a, b in bounds]
        return _join(self.executor.map(expand_task, tasks))

    def report(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)


def _save_array(path: Path, array: np.ndarray) -> None:
    atomic_write(path, lambda out: np.save(out, array))


def _violation(run: TierRun, parents: np.ndarray, expansion: Expansion, tier: int,
               bad: np.ndarray) -> TierViolation:
    """The first move (in key order) that leads below ``tier``, named."""
    edge = int(np.flatnonzero(bad)[0])
    owner = int(np.searchsorted(np.cumsum(expansion.count), edge, side="right"))
    game = run.game
    state = state_of(parents[owner])
    if int(expansion.player[owner]) == CHANCE:
        actions = [outcome for outcome, _ in game.chance_outcomes(state)]
    else:
        actions = list(game.legal_actions(state))
    action = actions[edge - int(np.sum(expansion.count[:owner]))]
    to_tier = int(expansion.child_tier[edge])
    return TierViolation(
        f"the tier goes down: move {game.action_name(action)!r} leads from a position of tier "
        f"{tier} to one of tier {to_tier}, and no move may lower the tier",
        state=state, action=action, from_tier=tier, to_tier=to_tier)


def discover(run: TierRun) -> list[list[int]]:
    """``find_tiers``, its last checkpoint written however it stops."""
    try:
        return find_tiers(run)
    except BaseException:
        run.flush()
        raise


def find_tiers(run: TierRun) -> list[list[int]]:
    """The forward pass: every tier's positions, written sorted; returns ``[tier, positions]``
    pairs, lowest tier first.

    With workers, a tier that starts from few positions (Pig's: a turn start per pair of
    scores, then a round per turn-total step, rounds too small to share out) is closed in one
    task (``closure_task``), and meanwhile the next tier is closed in another from the positions
    already known to reach it; the moves of the tier being closed may add more, whose closure
    is then added to it. The union is the same set, so the same tier files.

    Each tier found is a checkpoint: its keys, and the keys its moves reach in later tiers
    (``tier-t.later.npz``), then the manifest's ``"found"``. A resumed pass starts from there."""
    game = run.game
    root = game.initial_state()
    tier_of = tier_function(game, run.tier)
    pending: dict[int, list[np.ndarray]] = {}
    tiers: list[list[int]] = [list(pair) for pair in run.manifest.get("found", [])]
    done = {t for t, _ in tiers}
    for t, _ in tiers:                   # resumed: what the tiers found set aside for later
        with np.load(run.path(t, "later.npz")) as saved:
            _set_aside(pending, {int(u): saved[u] for u in saved.files if int(u) not in done})
    if not tiers:
        pending[int(tier_of(root))] = [_keys_array([key_of(root)])]
    found = sum(count for _, count in tiers)
    for part in run.directory.glob("tier-*.expanded-*.npz"):     # a tier begun, not found
        if int(part.name.split(".")[0][len("tier-"):]) not in done:
            part.unlink()
    parts = 0
    pipelined = (not isinstance(run.executor, SerialExecutor) and run.source is not None
                 and hasattr(run.executor, "submit"))
    ahead: dict[int, tuple] = {}     # tier -> (the seeds it started from, its closure task)

    # the moves expanded are written for the backward pass (``stored_expansion``) unless C
    # expands them again faster than they are read
    keep_moves = byte_passes(game) is None

    def part_path(t: int) -> str | None:
        nonlocal parts
        if not keep_moves:
            return None
        parts += 1
        return str(run.path(t, f"expanded-{parts}.npz"))
    while pending or ahead:
        tier = min([*pending, *ahead])
        seeds = np.unique(np.concatenate(pending.pop(tier, [_keys_array([])])))
        early = ahead.pop(tier, None)
        if pipelined:                # keep the workers busy: later tiers, from what is known
            for following in sorted(pending):
                if len(ahead) >= run.executor.workers - 1:
                    break
                if following in ahead or sum(map(len, pending[following])) >= PARALLEL_MIN:
                    continue
                start = np.unique(np.concatenate(pending.pop(following)))
                ahead[following] = (start, run.executor.submit(closure_task, (
                    run.source, run.tier, following, _keys_array([]), start,
                    part_path(following))))
        known = _keys_array([])
        later: dict[int, list[np.ndarray]] = {}        # what this tier sets aside
        if early is not None:
            early_seeds, job = early
            seeds = _add_new(early_seeds, seeds)[0]
            known = _closed(run, tier, seeds, job.result(), later)
        known, fresh = _add_new(known, seeds)
        if not len(fresh):
            keys = known
        elif pipelined and len(fresh) < PARALLEL_MIN:
            job = run.executor.submit(closure_task, (run.source, run.tier, tier, known, fresh,
                                                     part_path(tier)))
            keys = _closed(run, tier, seeds, job.result(), later)
        else:
            expanded: list = []
            keys = _rounds(run, tier, known, fresh, later,
                           expanded=expanded if keep_moves else None)
            path = part_path(tier)
            if path is not None:
                save_expanded(path, expanded)
        reached = {u: parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
                   for u, parts in later.items()}
        _set_aside(pending, reached)
        _save_array(run.path(tier, "keys.npy"), keys)
        atomic_write(run.path(tier, "later.npz"),
                     functools.partial(_save_later, {str(u): k for u, k in reached.items()}))
        tiers.append([tier, len(keys)])
        # the tiers whose results this one will need (solve_tiers: what may run beside it)
        run.manifest.setdefault("reaches", {})[str(tier)] = sorted(
            u for u, k in reached.items() if len(k))
        run.manifest["found"] = tiers
        run.checkpoint()                # the checkpoint: tier found
        found += len(keys)
        run.report(f"found tier {tier}:", found, found)
    for t, _ in tiers:                  # the pass is done: the manifest will list every tier
        run.path(t, "later.npz").unlink(missing_ok=True)
    run.manifest.pop("found", None)
    return tiers


def _save_later(arrays: dict, out) -> None:
    np.savez(out, **arrays)


def _rounds(run: TierRun | None, tier: int, seen: np.ndarray, frontier: np.ndarray,
            pending: dict, expand_round: Callable | None = None,
            expanded: list | None = None) -> np.ndarray:
    """The breadth-first rounds closing tier ``tier`` from ``frontier`` (positions not in
    ``seen``): returns ``seen`` and every position found, sorted; the moves to later tiers go
    to ``pending``; each round's ``(frontier, expansion)`` to ``expanded``, when given. A move
    to a lower tier raises ``TierViolation`` (with ``run``) or returns None (a task: the
    coordinator then finds it again, named)."""
    seen = _add_new(seen, frontier)[0]
    while len(frontier):
        expansion = (expand_round(frontier) if expand_round is not None
                     else run.expand_all(frontier))       # type: ignore[union-attr]
        if expanded is not None:
            expanded.append((frontier, expansion))
        bad = expansion.child_tier < tier
        if bad.any():
            if run is None:
                return None                     # type: ignore[return-value]
            raise _violation(run, frontier, expansion, tier, bad)
        inside = expansion.child_tier == tier
        seen, frontier = _add_new(seen, np.unique(expansion.child_key[inside]))
        # the moves to later tiers, grouped by tier with one sort (Pig's reach a hundred)
        later = np.flatnonzero(~inside)
        by_tier = later[np.argsort(expansion.child_tier[later], kind="stable")]
        later_tiers = expansion.child_tier[by_tier]
        cuts = np.flatnonzero(np.diff(later_tiers)) + 1
        for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), len(by_tier)]):
            if a < b:
                _set_aside(pending, {int(later_tiers[a]):
                                     np.unique(expansion.child_key[by_tier[a:b]])})
    return seen


def _closed(run: TierRun, tier: int, seeds: np.ndarray, answer, pending: dict) -> np.ndarray:
    """The positions a ``closure_task`` found, its moves to later tiers set aside. Where it met
    a move that lowers the tier, the tier is closed again here from all its seeds, as the
    serial pass closes it, which raises the same ``TierViolation``."""
    if answer is None:
        _rounds(run, tier, _keys_array([]), seeds, {})
        raise SolverError(f"tier {tier}: a task met a move lowering the tier, the pass here did "
                          "not")                                # not reached: the same moves
    keys, later = answer
    _set_aside(pending, later)
    return keys


def _set_aside(pending: dict, later: dict) -> None:
    """Sorted keys of later tiers, kept until their tier's turn."""
    for u, keys in later.items():
        waiting = pending.setdefault(u, [])
        waiting.append(keys)
        if len(waiting) > 8:      # bound the waiting copies: merge them
            pending[u] = [np.unique(np.concatenate(waiting))]


def closure_task(task) -> tuple[np.ndarray, dict] | None:
    """A worker's task: ``(game source, tier, t, seen, frontier, part file)``: tier t closed
    from ``frontier`` as ``_rounds`` does, the moves of the positions it found written to the
    part file (``save_expanded``; None: not written, C expands them again); ``(seen and every
    position found, {later tier: its keys})``, or None when a move goes down a tier."""
    source, tier_spec, tier, seen, frontier, part = task
    game = game_from(source)
    pending: dict = {}
    expanded: list = []
    keys = _rounds(None, tier, seen, frontier, pending,
                   expand_round=lambda batch: expand(game, batch, tier_spec),
                   expanded=expanded if part is not None else None)
    if keys is None:
        return None
    if part is not None:
        save_expanded(part, expanded)
    return keys, {u: parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
                  for u, parts in pending.items()}


# ---- the forward pass's moves, kept for the backward pass ---------------------------------------
# Expanding a position through the protocol costs more than reading its moves back (Pig to
# 100: about 11 of 63 CPU seconds), so the forward pass writes the moves it found, a part file
# per closure (``tier-t.expanded-N.npz``: numpy arrays and JSON text, never pickles), and the
# backward pass reads them instead of expanding the tier again.

def save_expanded(path: str | Path, rounds: list) -> None:
    """The rounds ``[(frontier keys, their Expansion)]`` of one closure, as one part file."""
    keys = np.concatenate([frontier for frontier, _ in rounds]) if rounds else _keys_array([])
    joined = _join([expansion for _, expansion in rounds]) if rounds else None
    arrays: dict = {"keys": keys}
    if joined is not None:
        arrays.update(
            player=joined.player, count=joined.count, child_key=joined.child_key,
            child_tier=joined.child_tier, probability_index=joined.probability_index,
            returns_index=joined.returns_index,
            tables=np.array(json.dumps({
                "probabilities": [str(p) for p in joined.probabilities],
                "returns": [[_encode_value(v) for v in row] for row in joined.returns_table]})))
    atomic_write(Path(path), functools.partial(_save_later, arrays))


def _load_expanded(path: Path) -> tuple[np.ndarray, Expansion] | None:
    with np.load(path) as saved:
        if "player" not in saved.files:
            return None                      # a closure that found nothing
        tables = json.loads(str(saved["tables"]))
        return saved["keys"], Expansion(
            player=saved["player"], count=saved["count"], child_key=saved["child_key"],
            child_tier=saved["child_tier"], probability_index=saved["probability_index"],
            probabilities=[Fraction(p) for p in tables["probabilities"]],
            returns_index=saved["returns_index"],
            returns_table=[tuple(_decode_value(v) for v in row) for row in tables["returns"]])


def stored_expansion(run: TierRun, tier: int, keys: np.ndarray) -> Expansion | None:
    """Tier ``tier``'s moves as the forward pass wrote them, in the order of ``keys``; None
    where it wrote none, or parts that are not exactly this tier (then it is expanded again)."""
    parts = [found for path in sorted(run.directory.glob(f"tier-{tier}.expanded-*.npz"))
             if (found := _load_expanded(path)) is not None]
    if not parts:
        return None
    every_key = np.concatenate([part_keys for part_keys, _ in parts])
    order = np.argsort(every_key, kind="stable")
    if len(order) != len(keys) or not np.array_equal(every_key[order], keys):
        return None
    joined = _join([expansion for _, expansion in parts])
    first = np.concatenate(([0], np.cumsum(joined.count)))
    count = joined.count[order]
    starts = np.concatenate(([0], np.cumsum(count)[:-1]))
    # each position's moves, taken from where its part put them, in the new order
    edges = np.repeat(first[order] - starts, count) + np.arange(int(count.sum()))
    return Expansion(
        player=joined.player[order], count=count, child_key=joined.child_key[edges],
        child_tier=joined.child_tier[edges], probability_index=joined.probability_index[edges],
        probabilities=joined.probabilities, returns_index=joined.returns_index[order],
        returns_table=joined.returns_table)


def key_numbers(keys: np.ndarray) -> np.ndarray | None:
    """Byte keys of at most 8 bytes as uint64s in the same order (their bytes read as one
    big-endian number, zeros after: numpy compares byte keys padded with zeros), or None for
    longer keys. A binary search among numbers costs far less than among byte strings."""
    if not isinstance(keys, np.ndarray) or keys.dtype.kind != "S" or keys.dtype.itemsize > 8:
        return None
    width = keys.dtype.itemsize
    padded = np.zeros((len(keys), 8), dtype=np.uint8)
    if width:
        padded[:, :width] = np.ascontiguousarray(keys).view(np.uint8).reshape(len(keys), width)
    return padded.view(">u8").reshape(len(keys)).astype(np.uint64)


def search_keys(sorted_keys: np.ndarray, keys: np.ndarray,
                sorted_numbers: np.ndarray | None = None) -> np.ndarray:
    """``np.searchsorted(sorted_keys, keys)`` for byte keys, among numbers where both are at
    most 8 bytes long (``sorted_numbers``: ``key_numbers(sorted_keys)``, when made already)."""
    numbers = key_numbers(keys)
    if numbers is not None:
        if sorted_numbers is None:
            sorted_numbers = key_numbers(sorted_keys)
        if sorted_numbers is not None:
            return np.searchsorted(sorted_numbers, numbers)
    return np.searchsorted(sorted_keys, keys)


def _add_new(seen: np.ndarray, found: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(seen with found added, the keys of found not in seen)``: both arrays sorted and
    without duplicates, and so are the answers. An insertion by binary search, not a sort: a
    tier is found in many small rounds (Pig: one per turn-total step)."""
    if not len(found):
        return seen, found
    at = np.searchsorted(seen, found)
    known = at < len(seen)
    known[known] = seen[at[known]] == found[known]
    fresh = found[~known]
    if not len(fresh):
        return seen, fresh
    width = max(seen.dtype.itemsize, fresh.dtype.itemsize)   # keys of a longer state: wider
    return np.insert(seen.astype(f"S{width}", copy=False), at[~known], fresh), fresh


@dataclass
class TierResult:
    """A solved tier, loaded for its predecessors' lookups."""

    keys: np.ndarray
    index: np.ndarray
    remoteness: np.ndarray
    table: Any                       # encoded value vectors (database encoding): a list or _FloatTable
    bounds: Any = None               # a chance tier's certified bounds, once read (chance_tiers)
    numbers: Any = None              # the keys as numbers (key_numbers), once made (chance_tiers)

    @classmethod
    def load(cls, run: TierRun, tier: int, mapped: bool = False) -> TierResult:
        """A tier's results; ``mapped``: the arrays read from their files a slice at a time
        (``_Mapped``)."""
        floats = run.path(tier, "table.npy")
        table: Any
        if floats.exists():
            table = _FloatTable(np.load(floats))
        else:
            table = [_from_json(v) for v in
                     json.loads(run.path(tier, "table.json").read_text(encoding="utf-8"))]
        keys, index, remoteness = (
            _Mapped(run.path(tier, part)) if mapped else np.load(run.path(tier, part))
            for part in ("keys.npy", "values.npy", "remoteness.npy"))
        return cls(keys, index, remoteness, table)  # type: ignore[arg-type]


class _FloatTable:
    """An approximate tier's value table (a float vector per entry, often one per position),
    its rows made tuples only when read: a tier's predecessors read few of them."""

    def __init__(self, rows: np.ndarray):
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, entry: int) -> tuple:
        return tuple(self.rows[entry].tolist())

    def __iter__(self):
        return map(tuple, self.rows.tolist())


class _Mapped:
    """A .npy file read a slice at a time, each read through a fresh memory map dropped right
    after: the merge reads every tier file, and pages kept mapped would stay in the process's
    resident memory (Connect Four 6x4: 1.5 GB of tier files)."""

    def __init__(self, path: Path):
        self.path = path
        mapped = np.load(path, mmap_mode="r")
        self.dtype, self.length = mapped.dtype, len(mapped)

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, where) -> np.ndarray:
        return np.array(np.load(self.path, mmap_mode="r")[where])

    def searchsorted(self, value) -> int:
        return int(np.searchsorted(np.load(self.path, mmap_mode="r"), value))


@dataclass(frozen=True)
class DrawRange:
    """A tier's table entry for a position whose players can force ends of different worth:
    the range of player 0's utility they can force an end in, in the database's encoding
    (None: no end at all on that side). Its value, if it has one, follows from the range and
    what endless play is worth (``range_value``); the tiers before it need the range
    (retrograde analysis, gdl.graph.retrograde)."""

    low: Any
    high: Any


def range_value(entry: DrawRange, info, ends: tuple | None) -> tuple | None:
    """The encoded value vector of a ``DrawRange`` entry, or None for a draw without a value:
    docs/graph.md's rules, as ``TwoPlayerValues.decided`` applies them (``ends``: player 0's
    least and greatest end over the game, where endless play is not declared)."""
    total = Fraction(constant_sum_total(info, "strong solve"))
    low = None if entry.low is None else Fraction(_decode_value(entry.low))
    high = None if entry.high is None else Fraction(_decode_value(entry.high))

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
    return _encoded((_plain(u0), _plain(total - u0)))


def game_ends(run: TierRun) -> tuple | None:
    """Player 0's least and greatest utility over the game's ends (None: it has none), which
    decide the draws of a game that does not say what endless play is worth (docs/graph.md).
    Found once, from every tier's positions, the first time a tier has such a draw; kept in the
    manifest (a resumed solve, and workers, read it there)."""
    kept = run.manifest.get("game_ends")
    if kept is not None:
        return None if kept == "none" else tuple(Fraction(_decode_value(v)) for v in kept)
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
    run.manifest["game_ends"] = "none" if ends is None else [_encode_value(_plain(u)) for u in ends]
    if "tiers" in run.manifest:          # the coordinator's manifest, not a worker's copy
        run.save_manifest()
    return ends


def _to_json(entry):
    if isinstance(entry, DrawRange):
        return {"draw": [entry.low, entry.high]}
    return None if entry is None else list(entry)


def _from_json(entry):
    if isinstance(entry, dict):
        return DrawRange(*entry["draw"])
    return None if entry is None else tuple(entry)


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
                    boundary_values.append((_plain(total / 2), _plain(total / 2)))
                    boundary_draws.append(tuple(
                        None if v is None else Fraction(_decode_value(v)) * 2 - total
                        for v in (encoded.low, encoded.high)))
                else:
                    boundary_values.append(tuple(_decode_value(v) for v in encoded))
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
            table = [_encoded(values.vector(int(np.flatnonzero(values.lower[:n] == w)[0])))
                     for w in centred.tolist()]
            return table, index.reshape(-1), values.remoteness[:n].copy(), how
    if levels is not None:
        vectors = vector_induction(graph, levels).vectors[:n]
        table, index = _tabulate(vectors)
        return table, index, np.full(n, -1, dtype=np.int32), how
    if two_player_constant_sum and info.has_chance:
        vectors, how = _stochastic(graph, total, try_exact, info)
        table, index = _tabulate(vectors[:n])
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
            return _encoded(values.vector(position))
        return DrawRange(*(None if w in (NO_END_LOW, NO_END_HIGH) else
                           _encode_value(_plain((Fraction(w, values.scale) + total) / 2))
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
        return [(_plain((v + total) / 2), _plain((total - v) / 2)) for v in exact], how
    return [((v + float(total)) / 2, (float(total) - v) / 2) for v in approximate.tolist()], how


def _plain(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


def _encoded(vector) -> tuple | None:
    return None if vector is None else tuple(_encode_value(v) for v in vector)


def _tabulate(vectors) -> tuple[list, np.ndarray]:
    table: dict = {}
    index = np.fromiter((table.setdefault(_encoded(v), len(table)) for v in vectors),
                        dtype=np.int64, count=len(vectors))
    return list(table), index


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


def _float_table(table: list) -> bool:
    """Whether every value vector of a tier's table is floats, all of one length (checked by
    map and set, in C: a table may have millions of entries)."""
    return (bool(table) and set(map(type, table)) == {tuple} and len(set(map(len, table))) == 1
            and set(map(type, chain.from_iterable(table))) == {float})


def _save_tier_files(run: TierRun, tier: int, table: list, index: np.ndarray,
                     remoteness: np.ndarray) -> None:
    """A solved tier's files (written here, or by the worker that solved the tier whole)."""
    _save_array(run.path(tier, "values.npy"), index.astype(np.int32))
    _save_array(run.path(tier, "remoteness.npy"), remoteness.astype(np.int32))
    # an approximate tier has a value vector per position (Pig to 100: two million in all):
    # floats only, kept as a float array, which reads and writes faster than JSON, exactly
    # (a chance tier hands its float rows over as an array already)
    floats = isinstance(table, np.ndarray) or _float_table(table)
    kept, other = (("table.npy", "table.json") if floats else ("table.json", "table.npy"))
    run.path(tier, other).unlink(missing_ok=True)          # a previous run's, in this directory
    if floats:
        _save_array(run.path(tier, kept), np.asarray(table, dtype=np.float64))
    else:
        atomic_write(run.path(tier, kept), json.dumps([_to_json(v) for v in table]).encode("utf-8"))


def _record_solved(run: TierRun, tier: int, how: dict) -> None:
    run.manifest["solved"][str(tier)] = how
    run.checkpoint()                 # the checkpoint: this tier is done


def _native_step(run: TierRun, tier: int, count: int):
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


def needs(run: TierRun, tier: int) -> list[int]:
    """The tiers whose results tier ``tier`` reads: those its moves reach, as the forward pass
    recorded them (``"reaches"``); every later tier where it did not."""
    reaches = run.manifest.get("reaches", {}).get(str(tier))
    if reaches is not None:
        return list(reaches)
    return [t for t, _ in run.manifest["tiers"] if t > tier]


def _try_exact(run: TierRun, tier: int) -> bool:
    """Whether the tier may be checked exactly: every tier it reaches is exact. (Each of those
    is exact only if every tier it reaches is, so this is every tier reachable from here: the
    answer depends on the tiers the tier depends on, never on which others happened to be
    solved first.)"""
    solved = run.manifest["solved"]
    return all(solved[str(u)]["exact"] for u in needs(run, tier))


def _solve_one(run: TierRun, tier: int, keys: np.ndarray, loaded: dict[int, TierResult],
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


# A tier of at most this many positions may be solved whole in one task, beside other tiers
# that do not need its results (Pig: tier t reaches t + 2 and up, so t and t + 1 are solved at
# once, and the coordinator does no work per tier); a larger one, or one that nothing could run
# beside, is solved here with its slices or pieces on the workers.
WHOLE_TIER_MAX = 200_000

# A worker's results of solved tiers, kept between its tier tasks of one run (``run id``): the
# next tier it solves reaches mostly the same ones. A run's solved tiers never change.
_WORKER_RESULTS: dict[str, dict[int, TierResult]] = {}


def tier_task(task) -> dict:
    """A worker's task: ``(run id, game source, directory, binding, tier spec, tier,
    solved entries of the tiers it reaches, try exact)``: the tier solved whole as the
    coordinator solves it, its files written to the directory; returns its ``how``."""
    run_id, source, directory, binding, tier_spec, tier, solved, try_exact, ends = task
    if run_id not in _WORKER_RESULTS:
        _WORKER_RESULTS.clear()                       # another run's: never read again
        _WORKER_RESULTS[run_id] = {}
    manifest = {"solved": solved} if ends is None else {"solved": solved, "game_ends": ends}
    run = TierRun(game=game_from(source), directory=Path(directory), binding=binding,
                  manifest=manifest, tier=tier_spec)
    keys = np.load(run.path(tier, "keys.npy"))
    table, index, remoteness, how = _solve_one(run, tier, keys, _WORKER_RESULTS[run_id],
                                               try_exact)
    _save_tier_files(run, tier, table, index, remoteness)
    if ends is None and "game_ends" in run.manifest:  # found here: the coordinator keeps them
        how = dict(how, game_ends=run.manifest["game_ends"])
    return how


def solve_tiers(run: TierRun, stop_after: int | None = None) -> None:
    """``solve_waiting``, its last checkpoint written however it ends."""
    try:
        solve_waiting(run, stop_after)
    finally:
        run.flush()


def solve_waiting(run: TierRun, stop_after: int | None = None) -> None:
    """The backward pass: every tier not yet solved, once the tiers it reaches are. With
    workers (and positions as bytes), tiers that do not reach each other are solved whole at
    once, each in one task (``tier_task``); otherwise a tier at a time, highest first, its
    work cut for the workers. A tier's answer depends only on the tiers it reaches, so the
    files are the same either way."""
    import uuid

    counts = {t: count for t, count in run.manifest["tiers"]}
    solved = run.manifest.setdefault("solved", {})
    waiting = [t for t, _ in reversed(run.manifest["tiers"]) if str(t) not in solved]
    everything = sum(counts.values())
    done = everything - sum(counts[t] for t in waiting)
    whole = (run.native is None and run.source is not None and run.executor.workers > 1
             and hasattr(run.executor, "submit"))
    run_id = uuid.uuid4().hex           # names this call's results cached in the workers
    loaded: dict[int, TierResult] = {}
    running: dict[int, Any] = {}        # tier -> its tier_task, submitted
    newly = 0
    missing = {t: 0 for t in waiting}   # per tier, the tiers it needs not yet solved
    needed_by: dict[int, list[int]] = {}
    for t in waiting:
        for u in needs(run, t):
            if str(u) not in solved:
                missing[t] += 1
                needed_by.setdefault(u, []).append(t)

    def finished(tier: int, how: dict) -> None:
        nonlocal newly, done
        if "game_ends" in how:          # a worker found the game's ends (game_ends)
            how = dict(how)
            run.manifest.setdefault("game_ends", how.pop("game_ends"))
        _record_solved(run, tier, how)
        for t in needed_by.pop(tier, []):
            missing[t] -= 1
        newly += 1
        done += counts[tier]
        run.report(f"solved tier {tier}:", done, everything)

    while waiting or running:
        ready = [t for t in waiting if not missing[t]]
        room = None if stop_after is None else stop_after - newly - len(running)
        if room is not None and room <= 0 and not running:
            raise TiersStopped(f"stopped after {newly} tiers, as asked")
        for tier in ready:
            if room is not None and room <= 0:
                break
            alone = len(ready) + len(running) < 2
            if whole and counts[tier] <= WHOLE_TIER_MAX and not alone:
                running[tier] = run.executor.submit(tier_task, (
                    run_id, run.source, str(run.directory), run.binding, run.tier, tier,
                    {str(u): solved[str(u)] for u in needs(run, tier)}, _try_exact(run, tier),
                    run.manifest.get("game_ends")))
                waiting.remove(tier)
                room = None if room is None else room - 1
            elif not running:
                waiting.remove(tier)
                finished(tier, _solve_here(run, tier, loaded))
                break                   # what is ready has changed
        if running:                     # the oldest: tiers of one height take about as long
            tier = next(iter(running))
            finished(tier, running.pop(tier).result())


def _solve_here(run: TierRun, tier: int, loaded: dict[int, TierResult]) -> dict:
    """One tier solved by the coordinator, its work cut for the workers; its files written;
    returns its ``how``."""
    from gdl.graph import BACKWARD_INDUCTION

    keys = np.load(run.path(tier, "keys.npy"))
    done_natively = None if run.native is None else _native_step(run, tier, len(keys))
    if done_natively is not None:
        table, index, remoteness = done_natively
        how = {"method": BACKWARD_INDUCTION, "exact": True, "note": ""}
        loaded.clear()
    else:
        table, index, remoteness, how = _solve_one(run, tier, keys, loaded,
                                                   _try_exact(run, tier))
    _save_tier_files(run, tier, table, index, remoteness)
    return how


# ---- the whole solve ---------------------------------------------------------------------------

@dataclass
class TieredSolution:
    """What a tiered solve found, read from its directory."""

    run: TierRun
    tiers: list[list[int]]
    method: str
    exact: bool
    note: str
    seconds: dict
    key_section: Any = None         # a KeySectionWriter, or None
    # per pass, CPU seconds: the coordinator's own (its threads too) and its tasks' (where they
    # ran); the serial share of a run with workers is coordinator / (coordinator + tasks)
    cpu: dict = field(default_factory=dict)
    # the solve on ranked tables (gdl.graph.rank_solve), where it ran instead of the tier files
    ranked: Any = None

    @property
    def positions(self) -> int:
        return sum(count for _, count in self.tiers)

    def lookup(self, state) -> tuple[tuple | None, int] | None:
        """The value vector and remoteness of a state, or None if it is not reachable."""
        if self.ranked is not None:
            return self.ranked.lookup(state)
        tier = int(tier_function(self.run.game, self.run.tier)(state))
        if not self.run.path(tier, "keys.npy").exists():
            return None
        result = TierResult.load(self.run, tier)
        if self.run.native is not None:
            packed = self.run.native.codec.encode(state)
            if packed is None:
                return None
            key = np.array([packed], dtype=np.uint64)
        else:
            key = np.array([key_of(state)], dtype=result.keys.dtype)
        at = int(np.searchsorted(result.keys, key[0]))
        if at >= len(result.keys) or result.keys[at] != key[0]:
            return None
        encoded = result.table[int(result.index[at])]
        if isinstance(encoded, DrawRange):
            encoded = range_value(encoded, self.run.game.info, game_ends(self.run))
        value = None if encoded is None else tuple(_decode_value(v) for v in encoded)
        return value, int(result.remoteness[at])


def tiered_solve(game, directory: str | Path, *, binding: dict | None = None,
                 source: Callable[[], Any] | None = None, executor: Any = None,
                 resume: bool = False, stop_after: int | None = None,
                 progress: Callable[[str, int, int], None] | None = None,
                 native: bool = True, prepare_merge: bool = False) -> TieredSolution:
    """Strong-solve ``game`` a tier at a time in ``directory`` (created if need be). With
    ``resume``, the passes already recorded in the directory's manifest (for the same
    ``binding``) are not done again. ``stop_after`` stops (``TiersStopped``) once that many
    tiers have been solved in this call. Where the game has native rules (and ``native``), the
    work runs in C on packed keys (gdl.graph.packed_tiers); else through the protocol. With
    ``prepare_merge`` (a ``merge_database`` will follow) and several workers, the database's
    key section is compressed while the tiers are solved."""
    run = TierRun(game=game, directory=Path(directory), binding=binding or {}, source=source,
                  executor=executor or SerialExecutor(), progress=progress)
    private_directory(run.directory)
    if native and not resume and stop_after is None and run.executor.workers <= 1:
        from gdl.graph.rank_solve import ranked_tiers

        ranked = ranked_tiers(run, infer_tier)      # None: the ranked tables do not apply
        if ranked is not None:
            return ranked
    seconds: dict = {}
    cpu: dict = {}
    clock = CpuClock(run.executor)
    manifest_path = run.directory / MANIFEST
    if resume and manifest_path.exists():
        run.manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if run.manifest.get("format") != FORMAT or run.manifest.get("binding") != run.binding:
            raise SolverError(f"{run.directory}: its tier files were made from other rules or "
                              "--set values; solve again without --resume")
    else:
        run.manifest = {"format": FORMAT, "binding": run.binding, "game": game.info.name}
    declared = getattr(game, "tier", None) is not None
    if "tier" in run.manifest:                   # resumed: the tier the run began with
        run.tier = None if run.manifest["tier"] is None else ComponentTier(
            *(tuple(part) for part in run.manifest["tier"]))
    elif not declared:
        run.tier = infer_tier(game)
    if "keys" in run.manifest or "tiers" in run.manifest:   # resumed: the run's own keys
        native = run.manifest.get("keys") == "packed"
    if native and not game.info.has_chance:
        from gdl.graph.packed_tiers import native_tiers_for

        found = native_tiers_for(game, run.tier)
        run.native = None if isinstance(found, str) else found
    if source is not None:            # forked workers inherit the game and its expander
        from gdl.graph.executor import remember

        remember(source, game)
        if run.native is not None:
            from gdl.graph.packed_tiers import remember as remember_expander

            remember_expander(source, run.native)
    if run.manifest.get("keys") == "packed" and run.native is None:
        raise SolverError(f"{run.directory}: its tier files hold packed keys of native rules, "
                          "which this game has not; solve again without --resume")
    if "tiers" not in run.manifest:
        started = time.perf_counter()
        try:
            run.manifest["tier"] = None if run.tier is None else [list(run.tier.growing),
                                                                  list(run.tier.shrinking)]
            run.manifest["tiers"] = _discover(run)
        except TierViolation:
            if declared:
                raise
            run.tier = ONE_TIER                  # the inferred tier was wrong: one tier
            run.manifest.pop("found", None)
            run.manifest.pop("found_packed", None)
            run.manifest.pop("reaches", None)
            if run.native is not None:
                run.native.tier = ((), ())
            run.manifest["tier"] = [[], []]
            run.manifest["tiers"] = _discover(run)
        run.manifest["solved"] = {}
        run.save_manifest()
        seconds["discover"] = time.perf_counter() - started
        cpu["discover"] = clock.lap()
    started = time.perf_counter()
    prepared = None
    if prepare_merge and run.executor.workers > 1:
        prepared = KeySectionWriter(run, run.manifest["tiers"])
    solve_tiers(run, stop_after)
    seconds["solve"] = time.perf_counter() - started
    cpu["solve"] = clock.lap()
    # highest tier first, as one process solves them (the manifest's order is the order tiers
    # finished in, which workers change): the label and note are then the same on any executor
    solved = [run.manifest["solved"][str(t)] for t, _ in reversed(run.manifest["tiers"])
              if str(t) in run.manifest["solved"]]
    method = overall_method([h["method"] for h in solved])
    note = next((h["note"] for h in solved if h["note"]), "")
    return TieredSolution(run, run.manifest["tiers"], method, all(h["exact"] for h in solved),
                          note, seconds, prepared, cpu)


class CpuClock:
    """CPU seconds since the last lap: this process's own (the tasks an in-process executor ran
    taken out) and the executor's tasks'."""

    def __init__(self, executor):
        self.executor = executor
        self.local = isinstance(executor, SerialExecutor)
        self._mark = self._now()

    def _now(self) -> tuple[float, float]:
        return time.process_time(), getattr(self.executor, "task_cpu", 0.0)

    def lap(self) -> dict:
        own, tasks = self._now()
        own_before, tasks_before = self._mark
        self._mark = own, tasks
        tasks -= tasks_before
        own -= own_before
        if self.local:
            own -= tasks
        return {"coordinator": round(own, 3), "tasks": round(tasks, 3)}


def _discover(run: TierRun) -> list[list[int]]:
    """The forward pass on packed keys where the run has them, else through the protocol (also
    when the native rules meet an error: the protocol then reports it, located)."""
    if run.native is not None:
        from gdl.graph.packed_tiers import NativeDeclined
        from gdl.graph.packed_tiers import discover as discover_packed

        try:
            run.manifest["keys"] = "packed"
            return discover_packed(run)
        except NativeDeclined:
            run.native = None
    run.manifest["keys"] = "bytes"
    return discover(run)


# ---- the merge ---------------------------------------------------------------------------------

# Positions the merge sorts at a time: its memory is about 60 bytes a position of one bucket.
MERGE_BUCKET = 1 << 20


class _KeyPlan:
    """The database's key section as the tiers' sorted key files give it: the key encoding, and
    the key ranges (buckets) the merge takes one at a time."""

    def __init__(self, run: TierRun, tiers: list[list[int]]):
        self.run = run
        self.keys = [_Mapped(run.path(t, "keys.npy")) for t, _ in tiers]
        self.total = sum(len(keys) for keys in self.keys)
        internal = max([keys.dtype.itemsize for keys in self.keys] + [1])
        lengths: set[int] = set()
        self.packed = run.native is not None    # uint64 keys: states of one length, byte cells
        if self.packed:
            lengths = {len(run.native.codec.size)}
        for keys in self.keys if not self.packed else []:
            if len(keys):
                rows = keys[:].view(np.uint8).reshape(len(keys), -1)
                lengths.update(np.unique(rows[:, 0]).tolist())
        self.longest = max(lengths, default=0)
        self.same = len(lengths) <= 1
        self.kind, self.width = ("u8", self.longest) if self.same else ("u8v", self.longest + 1)
        self.internal = internal
        self.dtype = np.dtype(np.uint64) if self.packed else np.dtype(f"S{internal}")
        self.buckets = _buckets([_Keys(keys) for keys in self.keys], self.total, self.dtype)

    def ranges(self, low, high) -> list[tuple[int, int]]:
        """Each tier's ``[a, b)`` of keys in the bucket ``[low, high)``."""
        out = []
        for keys in self.keys:
            a = 0 if low is None else keys.searchsorted(self.dtype.type(low))
            b = len(keys) if high is None else keys.searchsorted(self.dtype.type(high))
            out.append((a, b))
        return out

    def sorted_bucket(self, ranges) -> tuple[np.ndarray, np.ndarray] | None:
        """The bucket's keys in order: ``(order, raw key bytes)``, ``order`` indexing the
        concatenation of the tiers' ranges; None for an empty bucket."""
        keys = [k[a:b].astype(self.dtype) for k, (a, b) in zip(self.keys, ranges)
                if a < b]
        if not keys:
            return None
        bucket_keys = np.concatenate(keys)
        order = np.argsort(bucket_keys, kind="stable")
        if self.packed:
            raw = self.run.native.expander.key_bytes(bucket_keys[order])
        else:
            raw = bucket_keys[order].view(np.uint8).reshape(len(order), self.internal)
            raw = raw[:, 1:1 + self.longest] if self.same else raw[:, :self.width]
        if raw.shape[1] < self.width:
            raw = np.pad(raw, ((0, 0), (0, self.width - raw.shape[1])))
        return order, raw


@dataclass
class _Keys:
    keys: Any                       # a _Mapped tier file


def key_section(run: TierRun, tiers: list[list[int]],
                bucket_done: Callable[[int], None] = lambda number: None) -> bytes:
    """The database's first section (every key, sorted, compressed): it needs only the forward
    pass's files, so with several workers it is written while the tiers are solved
    (``tiered_solve(..., prepare_merge=True)``) instead of after them. Each bucket's sort order
    is saved for the merge's records, and ``bucket_done(number)`` called, before the bucket's
    keys are compressed."""
    plan = _KeyPlan(run, tiers)
    stream = _Stream()
    for number, (low, high) in enumerate(plan.buckets):
        bucket = plan.sorted_bucket(plan.ranges(low, high))
        if bucket is not None:
            # the merge needs this order again for the records: kept, not sorted twice
            _save_array(_order_path(run, number),
                        bucket[0].astype(np.uint32 if len(bucket[0]) < 1 << 32 else np.int64))
        bucket_done(number)
        if bucket is not None:
            stream.write(np.ascontiguousarray(bucket[1]).tobytes())
    return stream.finish()


class KeySectionWriter:
    """``key_section`` written by a thread of this process while the workers solve the tiers
    (zlib, numpy's sort and the C decoding of packed keys let go of the GIL). The merge can
    write a bucket's records as soon as the thread has saved that bucket's order
    (``wait_for_bucket``), while the thread compresses the next buckets' keys."""

    def __init__(self, run: TierRun, tiers: list[list[int]]):
        from concurrent.futures import ThreadPoolExecutor

        self._ready = 0                  # buckets whose order is saved
        self._finished = False
        self._condition = threading.Condition()
        pool = ThreadPoolExecutor(1, thread_name_prefix="gdl-key-section")
        self._future = pool.submit(self._write, run, tiers)
        pool.shutdown(wait=False)

    def _write(self, run: TierRun, tiers: list[list[int]]) -> bytes:
        try:
            return key_section(run, tiers, self._bucket_done)
        finally:
            with self._condition:
                self._finished = True
                self._condition.notify_all()

    def _bucket_done(self, number: int) -> None:
        with self._condition:
            self._ready = number + 1
            self._condition.notify_all()

    def wait_for_bucket(self, number: int) -> None:
        """Return once bucket ``number``'s order file is saved (raise the thread's error)."""
        with self._condition:
            self._condition.wait_for(lambda: self._ready > number or self._finished)
        if self._ready <= number:
            self._future.result()
            raise SolverError(f"the key section ended before bucket {number}")

    def result(self) -> bytes:
        return self._future.result()


def _order_path(run: TierRun, bucket: int) -> Path:
    return run.directory / f"merge-order-{bucket}.npy"


def _first_use(ranked: np.ndarray, entries: int) -> np.ndarray:
    """The distinct entries of ``ranked`` in order of first occurrence."""
    first = np.full(entries, len(ranked), dtype=np.int64)
    np.minimum.at(first, ranked, np.arange(len(ranked), dtype=np.int64))
    present = np.flatnonzero(first < len(ranked))
    return present[np.argsort(first[present], kind="stable")]


def first_use_rows(rows: np.ndarray, passes: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D float array as a dict of their tuples would tell them apart
    (equal floats are one; -0.0 is made 0.0 first; no NaN), in order of first use: ``(first,
    group)``: each distinct row's first index, and each row's number among them. With the
    game's native passes (``passes``) a hash set in C, else a sort."""
    rows = np.ascontiguousarray(rows + 0.0)
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if passes is not None:
        return passes.first_use(rows)
    bits = rows.view(np.int64).reshape(len(rows), -1)
    order = np.lexsort(bits.T[::-1])                   # stable: the first of equal rows first
    ordered = bits[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    first_sorted = order[new]                          # each distinct row's first index
    by_use = np.argsort(first_sorted, kind="stable")
    rank = np.empty(len(by_use), dtype=np.int64)
    rank[by_use] = np.arange(len(by_use))
    group = np.empty(len(rows), dtype=np.int64)
    group[order] = rank[np.cumsum(new) - 1]
    return first_sorted[by_use], group


def _provisional_ids(tables: list, stored: Callable, passes: Any = None
                     ) -> tuple[list[np.ndarray], list]:
    """Every distinct value vector of the tiers' tables, numbered: per table, each entry's
    number, and the vectors by number. Vectors equal as Python values are one (the one met
    first is kept: a float table's (1.0, -1.0) and an exact table's (1, -1) are one vector, as
    in a dict). A float table (``_FloatTable``: Pig to 100 has two million rows) is numbered
    with numpy: its rows with a fraction part can equal no integer vector, so only those
    without one (a handful) go through the dict, the others are told apart by their bits
    (-0.0 made 0.0 first: it has no fraction part, so never among them)."""
    provisional: dict = {}
    ids: list = []
    fractional: list[tuple[int, np.ndarray, np.ndarray]] = []     # (table, rows at, rows)
    for number, table in enumerate(tables):
        if isinstance(table, _FloatTable) and table.rows.ndim == 2 and len(table.rows):
            rows = table.rows
            whole = np.all(rows == np.floor(rows), axis=1)
            mine = np.zeros(len(rows), dtype=np.int64)
            at = np.flatnonzero(whole)
            mine[at] = [provisional.setdefault(stored(tuple(row)), len(provisional))
                        for row in rows[at].tolist()]
            rest = np.flatnonzero(~whole)
            fractional.append((number, rest, rows[rest]))
            ids.append(mine)
        else:
            ids.append(np.array([provisional.setdefault(stored(v), len(provisional))
                                 for v in table] or [0], dtype=np.int64))
    entries = list(provisional)
    if fractional and any(type(x) is float and not x.is_integer()
                          for entry in entries if type(entry) is tuple for x in entry):
        # a float with a fraction part in another kind of table: one dict for all, as it was
        ids = [np.array([provisional.setdefault(stored(v), len(provisional)) for v in table]
                        or [0], dtype=np.int64) for table in tables]
        return ids, list(provisional)
    if fractional:
        rows = np.concatenate([found for _, _, found in fractional])
        first_at, group = first_use_rows(rows, passes)
        entries += list(map(tuple, rows[first_at].tolist()))
        numbered = len(provisional) + group
        start = 0
        for number, at, found in fractional:
            ids[number][at] = numbered[start:start + len(found)]
            start += len(found)
    return ids, entries


def merge_database(solution: TieredSolution, path: str | Path, binding: dict,
                   source: str = "") -> int:
    """Write the position database of a tiered solve, byte-identical to what
    ``gdl.graph.database.save`` writes for the single-graph solve; returns its size in bytes.

    The tiers' sorted key arrays are merged a bucket of key ranges at a time (the bounds drawn
    from a sample of the keys), each bucket's keys and records streamed through zlib, so memory
    holds one bucket, not the game. The value table is numbered in order of first use by sorted
    rank, as ``save`` numbers it. The key section comes from ``solution.key_section`` when the
    solve prepared it."""
    run = solution.run
    if solution.ranked is not None:        # ranked tables: a database of format 2
        from gdl.graph.database import save

        return save(solution.ranked, path, binding, source)
    parts = [TierResult.load(run, t, mapped=True) for t, _ in solution.tiers]
    plan = _KeyPlan(run, solution.tiers)
    prepared = solution.key_section
    # every distinct value vector, numbered provisionally; `number` renumbers by first use
    info = run.game.info

    def stored(entry):
        return range_value(entry, info, game_ends(run)) if isinstance(entry, DrawRange) else entry

    part_ids, entries = _provisional_ids([part.table for part in parts], stored,
                                         byte_passes(run.game))
    number = np.full(len(entries), -1, dtype=np.int64)
    used = 0
    highest = max([int(np.max(part.remoteness[:], initial=0)) for part in parts] + [0])
    record = record_layout(len(entries), highest)
    streams = [_Stream() for _ in range(2 if record["layout"] == "packed16" else 3)]
    for bucket_number, (low, high) in enumerate(plan.buckets):
        ranges = plan.ranges(low, high)
        if prepared is None:
            bucket = plan.sorted_bucket(ranges)
            if bucket is None:
                continue
            order, raw = bucket
            streams[0].write(np.ascontiguousarray(raw).tobytes())
        else:
            if not any(a < b for a, b in ranges):
                continue
            prepared.wait_for_bucket(bucket_number)
            order_path = _order_path(run, bucket_number)
            order = np.load(order_path).astype(np.int64)       # the key section's sort
            order_path.unlink()
        index = [ids[part.index[a:b]]
                 for part, ids, (a, b) in zip(parts, part_ids, ranges) if a < b]
        remoteness = [part.remoteness[a:b].astype(np.int64)
                      for part, (a, b) in zip(parts, ranges) if a < b]
        ranked = np.concatenate(index)[order]
        fresh_in_order = _first_use(ranked, len(entries))
        fresh_in_order = fresh_in_order[number[fresh_in_order] < 0]
        number[fresh_in_order] = np.arange(used, used + len(fresh_in_order))
        used += len(fresh_in_order)
        value_index = number[ranked]
        rank_remoteness = np.concatenate(remoteness)[order]
        for stream, data in zip(streams[1:], record_sections(record, value_index,
                                                             rank_remoteness)):
            stream.write(data)
    by_number = np.flatnonzero(number >= 0)
    values = [entries[i] for i in by_number[np.argsort(number[by_number])].tolist()]
    info = run.game.info
    header = {
        "format": VERSION, "binding": binding, "source": source, "game": info.name,
        "players": list(info.players), "positions": plan.total, "method": solution.method,
        "exact": solution.exact, "note": solution.note, "key": plan.kind,
        "key_width": plan.width,
        "values": values, "record": record,         # tuples: JSON writes them as lists
    }
    sections = [stream.finish() for stream in streams]
    if prepared is not None:
        sections[0] = prepared.result()
    return write_file(Path(path), header, sections)


class _Stream:
    """One section, compressed as it comes (the bytes ``zlib.compress(all, LEVEL)`` gives)."""

    def __init__(self):
        self._compressor = zlib.compressobj(LEVEL)
        self._out: list[bytes] = []

    def write(self, data: bytes) -> None:
        self._out.append(self._compressor.compress(data))

    def finish(self) -> bytes:
        self._out.append(self._compressor.flush())
        return b"".join(self._out)


def _buckets(parts: list, total: int, dtype) -> list[tuple]:
    """Key ranges ``[low, high)`` (None: open) of about MERGE_BUCKET positions each, their
    bounds drawn from every part's keys at a regular stride."""
    count = -(-total // MERGE_BUCKET)
    if count <= 1:
        return [(None, None)]
    stride = max(1, total // (count * 16))
    sample = np.sort(np.concatenate([part.keys[::stride].astype(dtype)
                                     for part in parts if len(part.keys)]))
    bounds = np.unique(sample[np.linspace(0, len(sample) - 1, count + 1).astype(np.int64)[1:-1]])
    edges: list = [None, *bounds.tolist(), None]
    return list(pairwise(edges))
