"""Tiers on packed keys: a tiered solve's work done by the native expander (docs/tiers.md).

When the game has native rules without chance, a 63-bit key layout whose cells are bytes, and
a tier that C can compute (the declared ``tier``, emitted from the IR, or an inferred one),
``gdl.graph.tiers`` keeps its files and manifest as before but with uint64 keys, and the work
runs here, in tasks that name slices of tier files (paths, never arrays) and write their
answers beside them:

- ``forward_task``: a slice of a round of the forward pass, expanded in C; each child's tier in
  C; the children written sorted and deduplicated, one file per tier they reach. The
  coordinator merges those files (sorted runs: a merge, not a sort).
- ``backward_task``: a slice of a tier whose moves all leave it, in a two-player constant-sum
  game: valued in C against the solved later tiers, read memory-mapped by every worker
  (``NativeExpander.tier_solve``); the scores and remoteness written to two files.

A tier with moves inside it, or a game that is not two-player constant-sum, is solved by
``gdl.graph.tiers``' own local graph, fed by ``native_expansion``. Each position is expanded
twice (found, then valued): in C that costs less than storing its children (``benchmarks/tiers.py``
reports the two passes' times). A rule error raises ``NativeDeclined``: the caller then solves
through the protocol, which reports the error located.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph.database import decode_value
from gdl.graph.tier_expand import Expansion
from gdl.graph.tier_pass import TierViolation
from gdl.graph.tier_store import DrawRange, TierResult, encode_vector, plain_value, save_array
from gdl.protocol import TERMINAL

# Positions a task expands: a task costs a process hop and a file per tier it reaches, so it
# is large; a tier this small or smaller is done in the coordinator, without a task.
NATIVE_TASK = 1 << 19
LOCAL_LIMIT = 1 << 15


class NativeDeclined(Exception):
    """The native expander cannot do this work (a rule error): solve through the protocol."""


@dataclass
class NativeTiers:
    """What the packed-key path needs: the expander and the tier as graph.c takes it (None:
    the declared one; else ``(growing cells, shrinking cells)``)."""

    expander: Any
    tier: tuple | None

    @property
    def codec(self):
        return self.expander.codec


def native_tiers_for(game, inferred) -> NativeTiers | str:
    """The packed-key path for ``game`` with the tier ``inferred`` (None: the declared one), or
    why there is none."""
    from gdl.graph.positions import native_expander

    expander = native_expander(game)
    if isinstance(expander, str):
        return expander
    codec = expander.codec
    if min(codec.low) < 0 or max(low + size - 1 for low, size in zip(codec.low, codec.size)) > 255:
        return "a state cell's domain is beyond 0..255"
    if inferred is None:
        if not expander.has_tier:
            return "the declared tier is not in the native library"
        return NativeTiers(expander, None)
    return NativeTiers(expander, (tuple(inferred.growing), tuple(inferred.shrinking)))


# ---- where a task finds its expander -----------------------------------------------------------

_EXPANDERS: dict[str, Any] = {}


def _expander(origin) -> Any:
    """The expander of a task's game: ``origin`` is the game itself (a task run here) or a game
    source (gdl.graph.executor: loaded once per worker process)."""
    if hasattr(origin, "info"):
        from gdl.graph.positions import native_expander

        found = native_expander(origin)
    else:
        key = repr(origin)
        found = _EXPANDERS.get(key)
        if found is None:
            from gdl.graph.executor import game_from
            from gdl.graph.positions import native_expander

            found = _EXPANDERS[key] = native_expander(game_from(origin))
    if isinstance(found, str):
        raise NativeDeclined(found)
    return found


def remember(source, native: NativeTiers) -> None:
    """Record the expander a source's game has (see ``gdl.graph.executor.remember``)."""
    _EXPANDERS.setdefault(repr(source), native.expander)


def slices(count: int, workers: int) -> list[tuple[int, int]]:
    """``[start, stop)`` bounds cutting ``count`` positions into tasks: about four a worker, at
    most NATIVE_TASK positions each, one when the tier is small."""
    if count <= LOCAL_LIMIT or workers <= 1:
        size = max(1, min(count, NATIVE_TASK))
    else:
        size = max(LOCAL_LIMIT, min(NATIVE_TASK, -(-count // (4 * workers))))
    return [(a, min(a + size, count)) for a in range(0, count, size)]


def load_keys(path: str | Path, start: int = 0, stop: int | None = None) -> np.ndarray:
    keys = np.load(path, mmap_mode="r")
    return np.ascontiguousarray(keys[start:stop])


def save(path: str | Path, array: np.ndarray) -> None:
    """A task's answer file, written whole then renamed (a worker stopped half way leaves
    only a temporary file)."""
    temporary = f"{path}.{os.getpid()}.partial.npy"
    np.save(temporary, array)
    os.replace(temporary, path)


def unique_sorted(array: np.ndarray) -> np.ndarray:
    """Sorted, each key once: ``np.unique`` without its argsort."""
    if not len(array):
        return array
    array = np.sort(array, kind="stable")      # timsort: runs of sorted keys merge cheaply
    keep = np.empty(len(array), dtype=bool)
    keep[0] = True
    np.not_equal(array[1:], array[:-1], out=keep[1:])
    return array[keep]


# Files merged at a time: memory holds the union so far and this many files (a tier of Connect
# Four 6x4 arrives as 26 files, together 4 times the tier: merged at once, 1.5 GB).
MERGE_FAN_IN = 4


def merge_files(paths: list[str], done_with: list[str] | None = None) -> np.ndarray:
    """The sorted, deduplicated union of files of sorted keys, a few files at a time; the files
    are removed, or put in ``done_with`` (the forward pass removes them once a checkpoint no
    longer names them)."""
    union = np.zeros(0, dtype=np.uint64)
    for at in range(0, len(paths), MERGE_FAN_IN):
        group = paths[at:at + MERGE_FAN_IN]
        parts = [np.load(path) for path in group]
        for path in group:
            if done_with is None:
                os.remove(path)
            else:
                done_with.append(path)
        union = unique_sorted(np.concatenate([union, *parts])) if len(union) or len(parts) > 1 \
            else parts[0]
    return union


# ---- the forward pass --------------------------------------------------------------------------

def forward_task(task) -> dict:
    """Expand positions ``start..stop`` of a round file: ``{"violation": (position, edge,
    to_tier) or None, "files": {tier: path}, "edges": moves}``; children of the round's own
    tier go to ``{prefix}-in.npy``, others to ``{prefix}-to-{tier}.npy``."""
    origin, tier_spec, tier, path, start, stop, prefix = task
    expander = _expander(origin)
    expansion = expander.expand(load_keys(path, start, stop))
    if expansion is None:
        raise NativeDeclined("rule error")
    children = expansion.child
    child_tier = expander.tiers(children, tier_spec)
    if child_tier is None:
        raise NativeDeclined("rule error in the tier")
    answer: dict = {"violation": None, "files": {}, "edges": len(children)}
    below = child_tier < tier
    if below.any():
        edge = int(np.flatnonzero(below)[0])
        owner = int(np.searchsorted(expansion.first, edge, side="right")) - 1
        answer["violation"] = (start + owner, edge - int(expansion.first[owner]),
                               int(child_tier[edge]))
        return answer
    if not len(children):
        return answer
    lowest, highest = int(child_tier.min()), int(child_tier.max())
    if lowest == highest:                           # Connect Four: every move, one tier up
        groups = [(lowest, children)]
    else:
        order = np.argsort(child_tier, kind="stable")
        sorted_tiers = child_tier[order]
        cuts = np.flatnonzero(np.diff(sorted_tiers)) + 1
        groups = [(int(sorted_tiers[a]), children[order[a:b]])
                  for a, b in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [len(order)])))]
    for u, keys in groups:
        out = f"{prefix}-in.npy" if u == tier else f"{prefix}-to-{u}.npy"
        save(out, unique_sorted(keys))
        answer["files"][u] = out
    return answer


# ---- the backward step -------------------------------------------------------------------------

def backward_task(task) -> tuple[str, str, np.ndarray] | str:
    """Value positions ``start..stop`` of a tier file against its solved successors (``sides``:
    ``(tier, keys path, values path, remoteness path, score table)``): the paths of the scores
    and remoteness written, and the distinct scores; or "inside" / "rule error"."""
    origin, tier_spec, path, start, stop, sides, total, prefix = task
    expander = _expander(origin)
    loaded = [(u, np.load(k, mmap_mode="r"), np.load(v, mmap_mode="r"),
               np.asarray(table, dtype=np.int64), np.load(r, mmap_mode="r"))
              for u, k, v, r, table in sides]
    answer = expander.tier_solve(load_keys(path, start, stop), tier_spec, loaded, total)
    if isinstance(answer, str):
        return answer
    score, remoteness = answer
    save(f"{prefix}-score.npy", score)
    save(f"{prefix}-remoteness.npy", remoteness)
    return f"{prefix}-score.npy", f"{prefix}-remoteness.npy", np.unique(score)


def native_expansion(native: NativeTiers, keys: np.ndarray):
    """``gdl.graph.tier_expand.Expansion`` of packed keys, from the native expander (no chance)."""
    expansion = native.expander.expand(keys)
    if expansion is None:
        raise NativeDeclined("rule error")
    child_tier = native.expander.tiers(expansion.child, native.tier)
    if child_tier is None:
        raise NativeDeclined("rule error in the tier")
    terminal = np.flatnonzero(expansion.player == TERMINAL)
    returns_index = np.full(len(keys), -1, dtype=np.int32)
    table: dict[tuple, int] = {}
    for position, row in zip(terminal.tolist(), expansion.returns[terminal].tolist()):
        returns_index[position] = table.setdefault(tuple(row), len(table))
    return Expansion(
        player=expansion.player, count=np.diff(expansion.first), child_key=expansion.child,
        child_tier=child_tier, probability_index=np.full(len(expansion.child), -1, dtype=np.int32),
        probabilities=[], returns_index=returns_index, returns_table=list(table))


# ---- the coordinator's side --------------------------------------------------------------------

def _origin(run):
    """What a task names its game by: the source for workers elsewhere, else the game."""
    from gdl.graph.executor import SerialExecutor

    if run.source is None or isinstance(run.executor, SerialExecutor):
        return run.game
    return run.source


def _map(run, function, tasks: list) -> list:
    """Tasks on the executor; one task, or a serial run, here (no process hop)."""
    if len(tasks) <= 1 or _origin(run) is run.game:
        return [function(task) for task in tasks]
    return run.executor.map(function, tasks)


def discover(run) -> list[list[int]]:
    """The forward pass of ``gdl.graph.tier_pass.discover`` on packed keys, its rounds expanded in
    tasks; also records in the manifest, per tier, the later tiers its moves reach and whether
    it has moves inside it (``"reaches"``, ``"inside"``).

    Each tier found is a checkpoint: its keys file, then the manifest's ``"found"`` with the
    files of keys waiting for later tiers (``"waiting"``); a file is removed only once a
    checkpoint no longer names it. A resumed pass starts from the last checkpoint."""
    native: NativeTiers = run.native
    expander = native.expander
    checkpoint = run.manifest.get("found_packed")
    pending: dict[int, list[str]] = {} if checkpoint is None else {
        int(u): [str(run.directory / name) for name in names]
        for u, names in checkpoint["waiting"].items()}
    named = {path for paths in pending.values() for path in paths}
    for stray in [*run.directory.glob("part-*.npy"), *run.directory.glob("pending-*.npy")]:
        if str(stray) not in named:   # written after the last checkpoint, or by a pass given up
            stray.unlink()
    if checkpoint is not None:                    # resumed
        tiers: list[list[int]] = [list(pair) for pair in checkpoint["tiers"]]
        reaches: dict[str, list[int]] = dict(checkpoint["reaches"])
        inside: dict[str, bool] = dict(checkpoint["inside"])
        made = checkpoint["made"]
    else:
        root = native.codec.encode(run.game.initial_state())
        if root is None:
            raise NativeDeclined("the initial state is outside the declared domains")
        root_keys = np.array([root], dtype=np.uint64)
        root_tier = expander.tiers(root_keys, native.tier)
        if root_tier is None:
            raise NativeDeclined("rule error in the tier")
        first_file = str(run.directory / "pending-root.npy")
        save(first_file, root_keys)
        pending = {int(root_tier[0]): [first_file]}
        tiers, reaches, inside, made = [], {}, {}, 0
    found = sum(count for _, count in tiers)
    origin = _origin(run)
    done_with: list[str] = []           # files merged, removed after the next checkpoint
    while pending:
        tier = min(pending)
        frontier = merge_files(pending.pop(tier), done_with)
        members = [frontier]
        later: set[int] = set()
        rounds = 0
        while len(frontier):
            round_file = str(run.path(tier, f"round-{rounds}.npy"))
            save(round_file, frontier)
            tasks = []
            for start, stop in slices(len(frontier), run.executor.workers):
                made += 1
                tasks.append((origin, native.tier, tier, round_file, start, stop,
                              str(run.directory / f"part-{made}")))
            answers = _map(run, forward_task, tasks)
            os.remove(round_file)
            for answer in answers:
                if answer["violation"] is not None:
                    # leave no task files behind: the pass cannot go on, nor be resumed
                    for path in [*done_with, *(p for paths in pending.values() for p in paths),
                                 *(p for other in answers for p in other["files"].values())]:
                        os.remove(path)
                    if run.manifest.pop("found_packed", None) is not None:
                        run.save_manifest()
                    position, edge, to_tier = answer["violation"]
                    state = native.codec.decode(int(frontier[position]))
                    actions = list(run.game.legal_actions(state))
                    action = actions[edge]
                    raise TierViolation(
                        f"the tier goes down: move {run.game.action_name(action)!r} leads from a "
                        f"position of tier {tier} to one of tier {to_tier}, and no move may "
                        "lower the tier", state=state, action=action, from_tier=tier,
                        to_tier=to_tier)
            fresh_files = []
            for answer in answers:
                for u, path in answer["files"].items():
                    if u == tier:
                        fresh_files.append(path)
                    else:
                        later.add(u)
                        waiting = pending.setdefault(u, [])
                        waiting.append(path)
                        if len(waiting) > 16:        # bound the files waiting: merge them
                            merged = str(run.directory / f"pending-{u}-{made}.npy")
                            save(merged, merge_files(waiting, done_with))
                            pending[u] = [merged]
            fresh = merge_files(fresh_files)
            for member in members if len(fresh) else ():   # np.isin of nothing still costs
                fresh = fresh[~np.isin(fresh, member, assume_unique=True)]   # keep only the new
            if len(fresh):
                members.append(fresh)
            frontier = fresh
            rounds += 1
        keys = members[0] if len(members) == 1 else unique_sorted(np.concatenate(members))
        del members, frontier
        save_array(run.path(tier, "keys.npy"), keys)
        tiers.append([tier, len(keys)])
        reaches[str(tier)] = sorted(later)
        inside[str(tier)] = rounds > 1
        run.manifest["found_packed"] = {
            "tiers": tiers, "reaches": reaches, "inside": inside, "made": made,
            "waiting": {str(u): [Path(path).name for path in paths]
                        for u, paths in pending.items()}}
        run.save_manifest()                       # the checkpoint: tier found
        for path in done_with:
            os.remove(path)
        done_with.clear()
        found += len(keys)
        run.report(f"found tier {tier}:", found, found)
    run.manifest.pop("found_packed", None)
    run.manifest["reaches"] = reaches
    run.manifest["inside"] = inside
    return tiers


def solve_tier(run, tier: int, count: int) -> tuple[list, np.ndarray, np.ndarray] | None:
    """A tier's values by ``backward_task`` when every move leaves it and the game is
    two-player constant-sum with integer scores: ``(table, index, remoteness)`` as
    ``gdl.graph.tiers`` stores them; None when it does not apply (the caller builds the tier's
    graph)."""
    from fractions import Fraction

    from gdl.protocol import constant_sum_total

    info = run.game.info
    if run.manifest.get("inside", {}).get(str(tier), True) or info.num_players != 2 \
            or not info.is_constant_sum or info.has_chance:
        return None
    total = Fraction(constant_sum_total(info, "strong solve"))
    if total.denominator != 1:
        return None
    sides = []
    for u in run.manifest["reaches"][str(tier)]:
        result = TierResult.load(run, u, mapped=True)
        scores = []
        for encoded in result.table:
            if encoded is None or isinstance(encoded, DrawRange):   # a draw: local graph
                return None
            centred = 2 * Fraction(decode_value(encoded[0])) - total
            if centred.denominator != 1:
                return None
            scores.append(int(centred))
        sides.append((u, str(run.path(u, "keys.npy")), str(run.path(u, "values.npy")),
                      str(run.path(u, "remoteness.npy")), scores))
    path = str(run.path(tier, "keys.npy"))
    origin = _origin(run)
    tasks = [(origin, run.native.tier, path, start, stop, sides, int(total),
              str(run.directory / f"tier-{tier}.slice-{number}"))
             for number, (start, stop) in enumerate(slices(count, run.executor.workers))]
    answers = _map(run, backward_task, tasks)
    if any(isinstance(answer, str) for answer in answers):
        for answer in answers:
            if not isinstance(answer, str):
                os.remove(answer[0])
                os.remove(answer[1])
        if "rule error" in answers:
            raise NativeDeclined("rule error")
        return None
    distinct = np.unique(np.concatenate([answer[2] for answer in answers]))
    index = np.empty(count, dtype=np.int32)
    remoteness = np.empty(count, dtype=np.int32)
    for (start, stop), (score_path, remoteness_path, _) in zip(
            slices(count, run.executor.workers), answers):
        index[start:stop] = np.searchsorted(distinct, np.load(score_path))
        remoteness[start:stop] = np.load(remoteness_path)
        os.remove(score_path)
        os.remove(remoteness_path)
    table = []
    for w in distinct.tolist():
        u0 = (Fraction(w) + total) / 2
        table.append(encode_vector((plain_value(u0), plain_value(total - u0))))
    return table, index, remoteness

