"""Strong solving a tier at a time, in bounded memory, on any executor (see docs/tiers.md).

A game's *tier* is an integer over the state that no move lowers (``tier`` in the rules: the
game object's ``tier(state)``; without one, every position is in tier 0). The solve has two
passes over a directory of tier files:

1. **Forward** (``gdl.graph.tier_pass.discover``), lowest tier first: the positions of tier t
   are those reached from lower tiers plus those reached inside t, written sorted by key to
   ``tier-t.keys.npy``. A move to a lower tier is a ``TierViolation``.
2. **Backward** (``solve_tiers``, here), a tier once the tiers its moves reach are solved
   (highest first in one process; with workers, tiers that do not reach each other at once,
   each whole in a worker: ``tier_task``). Each tier is solved by
   ``gdl.graph.tier_solve.solve_one`` from its moves and the results of the tiers they reach,
   and its results (value-table index and remoteness per position, in key order) are written
   to ``tier-t.values.npy`` / ``tier-t.remoteness.npy`` / ``tier-t.table.json`` (``table.npy``
   where every entry is a vector of floats). The manifest then records the tier as solved:
   that is the checkpoint ``resume=True`` starts from.

``merge_database`` (gdl.graph.tier_merge) writes the position database from the tier results,
byte for byte the file ``gdl.graph.database.save`` writes for the single-graph solve.

The rooms, each importing only those before it: ``tier_keys`` (keys, the tier of a state),
``tier_expand`` (the one place the game is called), ``tier_run`` (directory, manifest,
executor), ``tier_store`` (tier files, value tables), ``tier_pass`` (the forward pass),
``tier_solve`` (one tier), ``tier_solution`` (the answer read back), ``tier_merge`` (the
database), and this module on top: the scheduling of the backward pass and ``tiered_solve``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph.database import private_directory
from gdl.graph.executor import SerialExecutor, game_from
from gdl.graph.tier_expand import byte_passes
from gdl.graph.tier_keys import ONE_TIER, ComponentTier, infer_tier
from gdl.graph.tier_merge import KeySectionWriter, merge_database
from gdl.graph.tier_pass import TierViolation, discover
from gdl.graph.tier_run import FORMAT, MANIFEST, PARALLEL_MIN, TierRun
from gdl.graph.tier_solution import TieredSolution
from gdl.graph.tier_solve import native_step, overall_method, solve_one
from gdl.graph.tier_store import TierResult, save_tier_files
from gdl.solvers.result import SolverError

# what other packages import from here (gdl.cli.tiers, gdl.graph, rank_solve, the tests)
__all__ = ["TierViolation", "TieredSolution", "TiersStopped", "byte_passes", "infer_tier",
           "merge_database", "tiered_solve"]


class TiersStopped(SolverError):
    """The solve stopped after the number of tiers it was asked to solve (a checkpoint)."""


def _record_solved(run: TierRun, tier: int, how: dict) -> None:
    run.manifest["solved"][str(tier)] = how
    run.checkpoint()                 # the checkpoint: this tier is done


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
    whether each tier it reaches is exact, try exact)``: the tier solved whole as the
    coordinator solves it, its files written to the directory; returns its ``how``."""
    run_id, source, directory, binding, tier_spec, tier, solved, try_exact, ends = task
    if run_id not in _WORKER_RESULTS:
        _WORKER_RESULTS.clear()                       # another run's: never read again
        _WORKER_RESULTS[run_id] = {}
    manifest = {"solved": solved} if ends is None else {"solved": solved, "game_ends": ends}
    run = TierRun(game=game_from(source), directory=Path(directory), binding=binding,
                  manifest=manifest, tier=tier_spec)
    keys = np.load(run.path(tier, "keys.npy"))
    table, index, remoteness, how = solve_one(run, tier, keys, _WORKER_RESULTS[run_id],
                                              try_exact)
    save_tier_files(run, tier, table, index, remoteness)
    # kept for this worker's next tiers (Pig: tier t - 2 reaches t, and the same worker is
    # free for it first): only the other workers' tiers are read from their files
    _WORKER_RESULTS[run_id][tier] = TierResult.written(keys, table, index, remoteness)
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
            # a tier alone is cut for the workers by this process, unless it is too small to
            # cut (Pig's tier 0: then the worker that has the tiers it reaches loaded solves it)
            alone = len(ready) + len(running) < 2 and counts[tier] >= PARALLEL_MIN
            if whole and counts[tier] <= WHOLE_TIER_MAX and not alone:
                running[tier] = run.executor.submit(tier_task, (
                    run_id, run.source, str(run.directory), run.binding, run.tier, tier,
                    # what a worker reads of them: whether each is exact (not the notes)
                    {str(u): {"exact": solved[str(u)]["exact"]} for u in needs(run, tier)},
                    _try_exact(run, tier),
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
    done_natively = None if run.native is None else native_step(run, tier, len(keys))
    if done_natively is not None:
        table, index, remoteness = done_natively
        how = {"method": BACKWARD_INDUCTION, "exact": True, "note": ""}
        loaded.clear()
    else:
        table, index, remoteness, how = solve_one(run, tier, keys, loaded,
                                                  _try_exact(run, tier))
    save_tier_files(run, tier, table, index, remoteness)
    return how


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
    if native and not resume and stop_after is None and getattr(run.executor, "local", False):
        from gdl.graph.rank_solve import ranked_tiers

        # on this machine's cores (threads in C, one per worker); None: they do not apply
        ranked = ranked_tiers(run, infer_tier)
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
