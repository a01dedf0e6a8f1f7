"""The forward pass of a tiered solve (``discover``): every tier's positions, lowest tier
first, found a breadth-first round at a time and written sorted to ``tier-t.keys.npy``; the
moves reaching later tiers wait, as sorted key arrays, until their tier comes. A move to a
lower tier is a ``TierViolation``.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gdl.graph.database import atomic_write
from gdl.graph.executor import SerialExecutor, game_from
from gdl.graph.tier_expand import Expansion, byte_passes, expand
from gdl.graph.tier_keys import key_of, keys_array, state_of, tier_function
from gdl.graph.tier_run import PARALLEL_MIN, TierRun
from gdl.graph.tier_store import save_array, save_expanded, write_npz
from gdl.protocol import CHANCE
from gdl.solvers.result import SolverError


class TierViolation(SolverError):
    """A move that lowers the declared tier."""

    def __init__(self, message: str, state=None, action=None, from_tier: int = 0,
                 to_tier: int = 0):
        super().__init__(message)
        self.state, self.action = state, action
        self.from_tier, self.to_tier = from_tier, to_tier


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
        _set_aside(pending, {u: keys for u, keys in _read_later(run.path(t, "later.npz"))
                             if u not in done})
    if not tiers:
        pending[int(tier_of(root))] = [keys_array([key_of(root)])]
    found = sum(count for _, count in tiers)
    for part in run.directory.glob("tier-*.expanded-*.npz"):     # a tier begun, not found
        if int(part.name.split(".")[0][len("tier-"):]) not in done:
            part.unlink()
    for stale in run.directory.glob("tier-*.closure-*"):      # a closure's files, not taken
        stale.unlink()
    parts = 0
    closures = 0
    run_id = uuid.uuid4().hex[:12]   # closure files of another (interrupted) run never clash
    pipelined = (not isinstance(run.executor, SerialExecutor) and run.source is not None
                 and hasattr(run.executor, "submit"))
    # tier -> (the seeds it started from: key arrays, the prefix of the files its closure
    # writes, its closure task)
    ahead: dict[int, tuple] = {}

    # the moves expanded are written for the backward pass (``stored_expansion``) unless C
    # expands them again faster than they are read
    keep_moves = byte_passes(game) is None

    def part_path(t: int) -> str | None:
        nonlocal parts
        if not keep_moves:
            return None
        parts += 1
        return str(run.path(t, f"expanded-{parts}.npz"))

    def look_ahead() -> None:
        """Keep the workers busy: later tiers closed from the positions known to reach them.
        Called as soon as a tier's moves to later tiers are set aside, before its files are
        taken into place: the next closure waits for nothing else."""
        nonlocal closures
        for following in sorted(pending):
            if len(ahead) >= run.executor.workers - 1:
                break
            if following in ahead or sum(map(len, pending[following])) >= PARALLEL_MIN:
                continue
            # one array (an array pickled costs more than a concatenation); the worker sorts
            # it and drops the repeats (np.unique), and writes the tier's files
            start = [np.concatenate(pending.pop(following))]
            closures += 1
            prefix = str(run.path(following, f"closure-{run_id}-{closures}"))
            ahead[following] = (start, prefix, run.executor.submit(closure_task, (
                run.source, run.tier, following, keys_array([]), start,
                part_path(following), prefix)))

    taking = None                    # the closure whose tier is being taken
    try:
        while pending or ahead:
            tier = min([*pending, *ahead])
            arrived = pending.pop(tier, [])
            early = taking = ahead.pop(tier, None)
            if pipelined:
                look_ahead()
            written = None                  # the prefix of the tier's files a closure wrote
            if early is not None and not arrived:   # closed whole ahead: its files are the tier's
                _, written, job = early
                keys, reached = _closed(run, tier, early[0], job.result())
            else:
                seeds = np.unique(np.concatenate(arrived or [keys_array([])]))
                known = keys_array([])
                later: dict[int, list[np.ndarray]] = {}        # what this tier sets aside
                if early is not None:
                    early_seeds, prefix, job = early
                    seeds = _add_new(np.unique(np.concatenate(early_seeds)), seeds)[0]
                    count, early_later = _closed(run, tier, seeds, job.result())
                    known = np.load(f"{prefix}.keys.npy")
                    _set_aside(later, early_later)
                    for name in (f"{prefix}.keys.npy", f"{prefix}.later.npz"):
                        Path(name).unlink()
                known, fresh = _add_new(known, seeds)
                if not len(fresh):
                    keys = known
                elif pipelined and len(fresh) < PARALLEL_MIN:
                    job = run.executor.submit(closure_task, (run.source, run.tier, tier, known,
                                                             [fresh], part_path(tier), None))
                    keys, found_later = _closed(run, tier, seeds, job.result())
                    _set_aside(later, found_later)
                else:
                    expanded: list = []
                    keys = _rounds(run, tier, known, fresh, later,
                                   expanded=expanded if keep_moves else None)
                    path = part_path(tier)
                    if path is not None:
                        save_expanded(path, expanded)
                reached = {u: parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
                           for u, parts in later.items()}
            # the next closure is sent before the waiting copies are merged: a worker waits
            if pipelined:
                _set_aside(pending, reached, merge=False)
                look_ahead()
                _merge_waiting(pending, reached)
            else:
                _set_aside(pending, reached)
            if written is not None:         # the closure's files, taken into place
                count = keys
                os.replace(f"{written}.keys.npy", run.path(tier, "keys.npy"))
                os.replace(f"{written}.later.npz", run.path(tier, "later.npz"))
            else:
                count = len(keys)
                save_array(run.path(tier, "keys.npy"), keys)
                atomic_write(run.path(tier, "later.npz"), functools.partial(_write_later, reached))
            tiers.append([tier, count])
            # the tiers whose results this one will need (solve_tiers: what may run beside it)
            run.manifest.setdefault("reaches", {})[str(tier)] = sorted(
                u for u, k in reached.items() if len(k))
            run.manifest["found"] = tiers
            run.checkpoint()                # the checkpoint: tier found
            found += count
            run.report(f"found tier {tier}:", found, found)
    except BaseException:
        # the closures still out end before the pass does (a worker interrupted too ends at
        # once), and their files go: a resumed pass starts them again
        for _, prefix, job in [*ahead.values(), *([taking] if taking is not None else [])]:
            try:
                job.result()
            except BaseException:
                pass
            for name in (f"{prefix}.keys.npy", f"{prefix}.later.npz"):
                Path(name).unlink(missing_ok=True)
        raise
    for t, _ in tiers:                  # the pass is done: the manifest will list every tier
        run.path(t, "later.npz").unlink(missing_ok=True)
    run.manifest.pop("found", None)
    return tiers


def _later_arrays(reached: dict[int, np.ndarray]) -> dict[str, np.ndarray]:
    """The keys a tier's moves reach in later tiers as four arrays (not an array per later
    tier: Pig's tiers reach a hundred each, and an .npz entry, or an array pickled, costs more
    than its keys): the tiers, each one's number of keys and key width, and the keys
    concatenated, a tier after another."""
    tiers = sorted(u for u, keys in reached.items() if len(keys))
    parts = [reached[u] for u in tiers]
    return {"tiers": np.array(tiers, dtype=np.int64),
            "counts": np.array([len(k) for k in parts], dtype=np.int64),
            "widths": np.array([k.dtype.itemsize for k in parts], dtype=np.int64),
            "keys": np.concatenate(parts) if parts else keys_array([])}


def _later_pairs(arrays) -> list[tuple[int, np.ndarray]]:
    """``_later_arrays``'s ``(tier, keys)`` pairs, each key array at its own width again."""
    tiers, counts, widths, keys = (arrays[name] for name in ("tiers", "counts", "widths",
                                                             "keys"))
    ends = np.cumsum(counts).tolist()
    return [(u, keys[end - count:end].astype(f"S{width}", copy=False))
            for u, count, width, end in zip(tiers.tolist(), counts.tolist(), widths.tolist(),
                                            ends)]


def _write_later(reached: dict[int, np.ndarray], out) -> None:
    """``tier-t.later.npz``: ``_later_arrays``."""
    write_npz(_later_arrays(reached), out)


def _read_later(path) -> list[tuple[int, np.ndarray]]:
    """What ``_write_later`` wrote, as ``(tier, keys)`` pairs."""
    with np.load(path) as saved:
        return _later_pairs({name: saved[name] for name in saved.files})


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


def _closed(run: TierRun, tier: int, seeds: np.ndarray | list, answer) -> tuple:
    """What a ``closure_task`` answered: ``(the positions found, or their number where the task
    wrote them; {later tier: its keys}``). Where it met a move that lowers the tier, the tier
    is closed again here from all its seeds, as the serial pass closes it, which raises the
    same ``TierViolation``."""
    if answer is None:
        if isinstance(seeds, list):         # key arrays, not yet joined
            seeds = np.unique(np.concatenate(seeds))
        _rounds(run, tier, keys_array([]), seeds, {})
        raise SolverError(f"tier {tier}: a task met a move lowering the tier, the pass here did "
                          "not")                                # not reached: the same moves
    keys, arrays = answer
    return keys, dict(_later_pairs(arrays))


def _set_aside(pending: dict, later: dict, merge: bool = True) -> None:
    """Sorted keys of later tiers, kept until their tier's turn; with ``merge``, the waiting
    copies of a tier merged once there are more than 8 (else ``_merge_waiting`` does it)."""
    for u, keys in later.items():
        pending.setdefault(u, []).append(keys)
    if merge:
        _merge_waiting(pending, later)


def _merge_waiting(pending: dict, tiers) -> None:
    """Bound the waiting copies of ``tiers``' keys: more than 8 are merged into one."""
    for u in tiers:
        waiting = pending.get(u)
        if waiting is not None and len(waiting) > 8:
            pending[u] = [np.unique(np.concatenate(waiting))]


def closure_task(task) -> tuple | None:
    """A worker's task: ``(game source, tier, t, seen, frontier, part file, output)``: tier t
    closed from ``frontier`` (key arrays, joined here) as ``_rounds`` does, the moves of
    the positions it found written to the part file (``save_expanded``; None: not written, C
    expands them again); ``(seen and every position found, {later tier: its keys})``, or None
    when a move goes down a tier. With ``output`` (a path prefix), the positions found and the
    keys reaching later tiers are written to ``output.keys.npy`` and ``output.later.npz`` (the
    tier's files, should no other position reach it) and only their number is returned."""
    source, tier_spec, tier, seen, frontier, part, output = task
    game = game_from(source)
    pending: dict = {}
    expanded: list = []
    frontier = np.unique(np.concatenate(frontier))
    keys = _rounds(None, tier, seen, frontier, pending,
                   expand_round=lambda batch: expand(game, batch, tier_spec),
                   expanded=expanded if part is not None else None)
    if keys is None:
        return None
    if part is not None:
        save_expanded(part, expanded)
    reached = {u: parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
               for u, parts in pending.items()}
    arrays = _later_arrays(reached)
    if output is None:
        return keys, arrays
    save_array(Path(f"{output}.keys.npy"), keys)
    atomic_write(Path(f"{output}.later.npz"), functools.partial(write_npz, arrays))
    return len(keys), arrays


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
