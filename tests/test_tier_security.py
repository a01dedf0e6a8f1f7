"""Tier files another user could swap must not run code, and their directory is private
(docs/security.md): numpy arrays without pickles and JSON only, in a directory of this user's
that nobody else can write."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import pytest

from gdl.backends.load import load
from gdl.graph import chance_tiers, tiers
from gdl.graph.executor import ProcessExecutor
from gdl.graph.tiers import tiered_solve
from gdl.solvers.result import SolverError

GAMES = Path(__file__).resolve().parent.parent / "games"
PIG = GAMES / "cyclic" / "pig100.game"


def test_every_file_a_tiered_solve_writes_reads_without_pickles(tmp_path, monkeypatch):
    # Pig on two workers, every chance tier sent to them as a file: all the directory ever
    # held reads with pickles refused (the local tiers are caught as they are written)
    monkeypatch.setattr(chance_tiers, "PARALLEL_MIN", 0)
    monkeypatch.setattr(tiers, "WHOLE_TIER_MAX", 0)      # tiers cut into pieces, not whole
    written: list[Path] = []
    original = chance_tiers.save

    def keep(local, path):
        original(local, path)
        written.append(Path(path))
        (tmp_path / f"copy-{len(written)}.npz").write_bytes(Path(path).read_bytes())

    monkeypatch.setattr(chance_tiers, "save", keep)
    params = {"goal": 8, "sides": 3}
    executor = ProcessExecutor(2)
    try:
        tiered_solve(load(PIG, params), tmp_path / "t", binding={"test": 1}, executor=executor,
                     source=functools.partial(load, PIG, params))
    finally:
        executor.close()
    assert written and all(path.suffix == ".npz" for path in written)
    files = list((tmp_path / "t").iterdir()) + list(tmp_path.glob("copy-*.npz"))
    assert not [f for f in files if f.suffix == ".pkl"]
    for file in files:
        if file.suffix == ".npy":
            np.load(file, allow_pickle=False)
        elif file.suffix == ".npz":
            with np.load(file, allow_pickle=False) as arrays:
                for name in arrays.files:
                    arrays[name]
    # and a local tier comes back as it went
    local = chance_tiers.load(tmp_path / "copy-1.npz")
    assert isinstance(local.total, int) and local.probabilities


def test_a_local_tier_round_trips_exactly(tmp_path):
    params = {"goal": 5}
    game = load(GAMES / "cyclic" / "piglet.game", params)
    kept: list = []
    original = chance_tiers.solve_task

    def catch(task):
        if isinstance(task[0], chance_tiers.LocalTier):
            kept.append(task[0])
        return original(task)

    chance_tiers.solve_task, saved = catch, original
    try:
        tiered_solve(game, tmp_path / "t", binding={})
    finally:
        chance_tiers.solve_task = saved
    assert kept
    for local in kept:
        chance_tiers.save(local, tmp_path / "local.npz")
        back = chance_tiers.load(tmp_path / "local.npz")
        for name in chance_tiers._ARRAYS:
            assert np.array_equal(getattr(back, name), getattr(local, name)), name
        for name in ("n", "probabilities", "exact_terminal", "floor", "ceiling", "margin",
                     "try_exact", "total"):
            assert getattr(back, name) == getattr(local, name), name


def test_a_tier_directory_other_users_can_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o700)
    os.chmod(shared, 0o777)
    game = load(GAMES / "tictactoe.game")
    with pytest.raises(SolverError, match=r"writable by other users.*chmod 700"):
        tiered_solve(game, shared, binding={})
    assert not list(shared.iterdir())            # nothing written there
    fresh = tmp_path / "new" / "tiers"
    tiered_solve(game, fresh, binding={})
    assert fresh.stat().st_mode & 0o777 == 0o700


def test_a_tier_directory_that_is_a_symbolic_link_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(SolverError, match="is not a directory"):
        tiered_solve(load(GAMES / "tictactoe.game"), tmp_path / "link", binding={})
