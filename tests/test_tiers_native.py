"""Tiers on native packed keys (gdl/graph/packed_tiers.py): the same databases as the protocol.

The references are separate code paths: the single-graph strong solve (gdl.graph.strong_solve +
database.save) and the solve by tiers through the Python protocol (``native=False``). By tiers on
packed keys, with one worker, with two worker processes, with tasks cut small (the partition
must not matter) and on a local Dask cluster, the saved database must be the same file, byte for
byte. Every test also checks that the packed-key path really ran (``run.native`` and the
manifest), so a silent fallback to the protocol cannot pass for it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from test_tiers import COUNTDOWN, Stop, stop_after_found

from gdl.backends.load import load, loads
from gdl.graph import packed_tiers, strong_solve, tier_merge
from gdl.graph.database import save
from gdl.graph.executor import DaskExecutor, ProcessExecutor
from gdl.graph.tiers import TiersStopped, TierViolation, merge_database, tiered_solve

GAMES = Path(__file__).resolve().parent.parent / "games"
BINDING = {"test": 1}

# A game whose moves go one or two tiers up, or stay in the tier (``wait``, at most twice in a
# row): the forward pass meets moves inside a tier and children in several later tiers, and the
# backward step builds the tier's graph instead of valuing it in C alone. Whoever makes the last
# move wins.
CLIMB = """game "Climb"
players A, B
var n in 0..5 = 0
var k in 0..2 = 0
action one requires n < 5 effect n = n + 1; k = 0
action two requires n < 4 effect n = n + 2; k = 0
action wait requires k < 2 and n < 5 effect k = k + 1
terminal n == 5
utility A = 1 if mover == B else -1
zero-sum
tier n
"""



def serial_database(game, path: Path) -> bytes:
    save(strong_solve(game), path, BINDING)
    return path.read_bytes()


def tiered(game, tmp_path: Path, name: str, **options):
    solution = tiered_solve(game, tmp_path / f"{name}.tiers", binding=BINDING, **options)
    merge_database(solution, tmp_path / f"{name}.db", BINDING)
    return solution, (tmp_path / f"{name}.db").read_bytes()


def assert_packed(solution) -> None:
    assert solution.run.native is not None
    manifest = json.loads((solution.run.directory / "manifest.json").read_text())
    assert manifest["keys"] == "packed"


CASES = [
    ("tictactoe.game", {}),                          # no tier declared: one inferred
    ("connect4.game", {"columns": 4, "rows": 3}),    # tier: discs on the board
]


@pytest.mark.parametrize("file, params", CASES, ids=[f for f, _ in CASES])
def test_native_tiers_equal_protocol_tiers_and_the_single_graph_database(tmp_path, file, params):
    game = load(GAMES / file, params, "native")
    native, by_native = tiered(game, tmp_path, "native")
    assert_packed(native)
    protocol, by_protocol = tiered(game, tmp_path, "protocol", native=False)
    assert protocol.run.native is None
    assert by_native == by_protocol == serial_database(game, tmp_path / "serial.db")


def test_tictactoe_on_packed_keys_matches_the_literature(tmp_path):
    game = load(GAMES / "tictactoe.game", None, "native")
    solution = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert_packed(solution)
    assert solution.positions == 5478                # FACTS.md: 5,478 positions, a draw
    assert solution.lookup(game.initial_state()) == ((0, 0), 9)


def test_moves_inside_a_tier_and_to_several_later_tiers(tmp_path):
    game = loads(CLIMB, "climb.game", backend="native")
    solution, by_native = tiered(game, tmp_path, "native")
    assert_packed(solution)
    manifest = solution.run.manifest
    assert manifest["inside"]["0"] and manifest["reaches"]["0"] == [1, 2]
    assert by_native == serial_database(game, tmp_path / "serial.db")
    _, by_protocol = tiered(game, tmp_path, "protocol", native=False)
    assert by_native == by_protocol


def test_two_workers_and_small_tasks_give_the_same_database(tmp_path, monkeypatch):
    file, params = GAMES / "connect4.game", {"columns": 4, "rows": 3}
    game = load(file, params, "native")
    reference = serial_database(game, tmp_path / "serial.db")
    monkeypatch.setattr(packed_tiers, "LOCAL_LIMIT", 40)     # many tasks a tier: the
    monkeypatch.setattr(packed_tiers, "NATIVE_TASK", 97)     # partition must not matter
    monkeypatch.setattr(tier_merge, "MERGE_BUCKET", 1000)    # the merge and the key thread in step
    executor = ProcessExecutor(2)
    try:
        solution, by_two = tiered(game, tmp_path, "two", executor=executor,
                                  source=functools.partial(load, file, params, "native"),
                                  prepare_merge=True)
        assert solution.key_section is not None   # the key section written while solving
    finally:
        executor.close()
    assert_packed(solution)
    assert by_two == reference
    assert not list(solution.run.directory.glob("part-*"))    # the tasks' files are merged away
    assert not list(solution.run.directory.glob("*slice*"))


def test_a_failing_key_section_thread_fails_the_merge_without_a_hang(tmp_path, monkeypatch):
    file, params = GAMES / "connect4.game", {"columns": 4, "rows": 3}
    game = load(file, params, "native")
    monkeypatch.setattr(tier_merge, "MERGE_BUCKET", 1000)
    original = tier_merge._KeyPlan.sorted_bucket
    calls: list = []

    def sorted_bucket(plan, ranges):
        calls.append(ranges)
        if len(calls) == 3:
            raise OSError("disk full")
        return original(plan, ranges)

    monkeypatch.setattr(tier_merge._KeyPlan, "sorted_bucket", sorted_bucket)
    executor = ProcessExecutor(2)
    try:
        with pytest.raises(OSError, match="disk full"):
            tiered(game, tmp_path, "two", executor=executor,
                   source=functools.partial(load, file, params, "native"), prepare_merge=True)
    finally:
        executor.close()
    assert len(calls) == 3


def test_a_local_dask_cluster_on_packed_keys_gives_the_same_database(tmp_path, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    file, params = GAMES / "connect4.game", {"columns": 4, "rows": 3}
    game = load(file, params, "native")
    monkeypatch.setattr(packed_tiers, "LOCAL_LIMIT", 500)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        solution, by_dask = tiered(game, tmp_path, "dask", executor=DaskExecutor(client=client),
                                   source=functools.partial(load, file, params, "native"))
    assert_packed(solution)
    assert by_dask == serial_database(game, tmp_path / "serial.db")


def test_a_move_that_lowers_the_tier_is_reported_on_packed_keys(tmp_path, monkeypatch):
    game = loads(COUNTDOWN, "countdown.game", backend="native")
    passes = []
    packed_discover = packed_tiers.discover
    monkeypatch.setattr(packed_tiers, "discover",
                        lambda run: passes.append(run) or packed_discover(run))
    with pytest.raises(TierViolation) as caught:
        tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert len(passes) == 1                         # found by the packed-key forward pass
    assert caught.value.from_tier == 4 and caught.value.to_tier == 3
    assert caught.value.state[-1] == 1              # left == 1: the move that goes down
    assert game.action_name(caught.value.action) == "take"
    assert not list((tmp_path / "t").glob("part-*"))
    assert not list((tmp_path / "t").glob("pending-*"))


def test_a_stopped_native_solve_resumes_to_the_same_database(tmp_path):
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3}, "native")
    directory = tmp_path / "c4.tiers"
    with pytest.raises(TiersStopped):
        tiered_solve(game, directory, binding=BINDING, stop_after=4)
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["keys"] == "packed" and len(manifest["solved"]) == 4
    before = {t: (directory / f"tier-{t}.values.npy").stat().st_mtime_ns
              for t in manifest["solved"]}
    resumed = tiered_solve(game, directory, binding=BINDING, resume=True)
    assert_packed(resumed)
    # the four tiers solved before the stop were not solved again: their files are unchanged
    assert all((directory / f"tier-{t}.values.npy").stat().st_mtime_ns == stamp
               for t, stamp in before.items())
    merge_database(resumed, tmp_path / "resumed.db", BINDING)
    assert (tmp_path / "resumed.db").read_bytes() == serial_database(game, tmp_path / "s.db")


def test_resuming_packed_tier_files_needs_the_native_rules(tmp_path):
    from gdl.solvers.result import SolverError

    file, params = GAMES / "connect4.game", {"columns": 4, "rows": 3}
    with pytest.raises(TiersStopped):
        tiered_solve(load(file, params, "native"), tmp_path / "t", binding=BINDING, stop_after=1)
    with pytest.raises(SolverError, match="packed keys"):
        tiered_solve(load(file, params), tmp_path / "t", binding=BINDING, resume=True)


def test_the_command_line_solves_by_tiers_on_packed_keys_unless_told_compile(tmp_path, capsys):
    from gdl.cli import main

    rules = str(GAMES / "connect4.game")
    sets = ["--set", "columns=4", "--set", "rows=3"]
    assert main(["solve", rules, *sets, "--strong", "--save", str(tmp_path / "s.db")]) == 0
    capsys.readouterr()
    for backend, keys in (("native", "packed"), ("compile", "bytes")):
        database = tmp_path / f"{backend}.db"
        assert main(["solve", rules, *sets, "--strong", "--workers", "2", "--backend", backend,
                     "--save", str(database), "--json"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["keys"] == keys and document["positions"] == 12031
        assert database.read_bytes() == (tmp_path / "s.db").read_bytes()


def test_an_interrupted_packed_forward_pass_resumes_from_its_last_tier(tmp_path):
    # stopped after six tiers were found: the resumed solve finds only the others, leaves no
    # task files behind, and saves the single-graph database
    file, params = GAMES / "connect4.game", {"columns": 4, "rows": 3}
    game = load(file, params, "native")
    found_first: list[str] = []
    directory = tmp_path / "t"
    executor = ProcessExecutor(2)
    try:
        with pytest.raises(Stop):
            tiered_solve(game, directory, binding=BINDING,
                         progress=stop_after_found(6, found_first), executor=executor,
                         source=functools.partial(load, file, params, "native"))
    finally:
        executor.close()
    manifest = json.loads((directory / "manifest.json").read_text())
    assert len(manifest["found_packed"]["tiers"]) == 6 and "tiers" not in manifest
    (directory / "part-999.npy").write_bytes(b"a task's file written after the checkpoint")
    found_again: list[str] = []
    resumed = tiered_solve(game, directory, binding=BINDING, resume=True,
                           progress=lambda stage, *_: found_again.append(stage)
                           if stage.startswith("found tier") else None)
    assert_packed(resumed)
    assert not set(found_again) & set(found_first)        # no tier found twice
    assert len(found_again) + 6 == len(resumed.tiers)
    assert not list(directory.glob("part-*")) and not list(directory.glob("pending-*"))
    merge_database(resumed, tmp_path / "resumed.db", BINDING)
    assert (tmp_path / "resumed.db").read_bytes() == serial_database(game, tmp_path / "s.db")
