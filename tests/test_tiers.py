"""Strong solving by tiers (gdl/graph/tiers.py, docs/tiers.md).

The reference is the single-graph strong solve (gdl.graph.strong_solve + database.save), a
separate code path: by tiers, on one worker, on two worker processes and on a local Dask
cluster, the saved database must be the same file, byte for byte. Counts and values also come
from the literature (/work/shared/FACTS.md): tic-tac-toe has 5,478 positions and is a draw.
"""

from __future__ import annotations

import functools
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from gdl.backends.load import load, loads
from gdl.cli import main
from gdl.graph import (
    enumerate_positions,
    strong_solve,
    tier_keys,
    tier_merge,
    tier_pass,
    tier_run,
    tier_solve,
    tier_store,
    tiers,
)
from gdl.graph.database import open_database, save
from gdl.graph.executor import DaskExecutor, ProcessExecutor
from gdl.graph.tiers import TiersStopped, TierViolation, infer_tier, merge_database, tiered_solve
from gdl.solvers.result import SolverError

GAMES = Path(__file__).resolve().parent.parent / "games"
BINDING = {"test": 1}

# (file, --set values): small enough that every solve here takes well under a second
SMALL = [
    ("tictactoe.game", {}),                          # no tier declared: one inferred
    ("connect4.game", {"columns": 4, "rows": 3}),    # tier: discs on the board
    ("cyclic/piglet.game", {"goal": 4}),             # tier: banked points; cycles inside a tier
    ("cyclic/pig100.game", {"goal": 6, "sides": 3}),  # the same with a die
    ("cyclic/give-and-take.game", {}),               # inferred tier; draws inside a tier
    ("cyclic/rounds.game", {}),                      # cycles in every tier, draws across them
    ("cyclic/standoff.game", {}),                    # chance, and plays that never end
]


def parallel_min(monkeypatch, value: int) -> None:
    """``PARALLEL_MIN`` set where it is read: the run's expansions and the forward pass."""
    for room in (tier_run, tier_pass):
        monkeypatch.setattr(room, "PARALLEL_MIN", value)


def serial_database(game, path: Path) -> bytes:
    save(strong_solve(game), path, BINDING)
    return path.read_bytes()


def tiered_database(game, tmp_path: Path, name: str, **options) -> bytes:
    solution = tiered_solve(game, tmp_path / f"{name}.tiers", binding=BINDING, **options)
    merge_database(solution, tmp_path / f"{name}.db", BINDING)
    return (tmp_path / f"{name}.db").read_bytes()


@pytest.mark.parametrize("file, params", SMALL, ids=[f for f, _ in SMALL])
def test_a_solve_by_tiers_saves_the_serial_database_byte_for_byte(tmp_path, file, params):
    game = load(GAMES / file, params)
    assert tiered_database(game, tmp_path, "tiers") == serial_database(game, tmp_path / "serial.db")


def test_tictactoe_by_tiers_matches_the_literature(tmp_path):
    game = load(GAMES / "tictactoe.game")
    solution = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert solution.positions == 5478
    values, remoteness = solution.lookup(game.initial_state())
    assert values == (0, 0) and remoteness == 9      # a drawn game fills the board


def test_connect_four_has_one_tier_per_disc_and_every_move_adds_one():
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3})
    graph = enumerate_positions(game)
    for position in range(len(graph)):
        state = graph.state(position)
        tier = game.tier(state)
        heights = state[-5:-1]          # height[0..3] before `winner` (the layout: mover first)
        assert tier == sum(heights)
        for child in graph.children(position).tolist():
            assert game.tier(graph.state(child)) == tier + 1


def test_the_compiled_and_interpreted_tiers_agree():
    compiled = load(GAMES / "cyclic/piglet.game", {"goal": 5})
    interpreted = load(GAMES / "cyclic/piglet.game", {"goal": 5}, backend="interpret")
    graph = enumerate_positions(compiled)
    for position in range(len(graph)):
        state = graph.state(position)
        assert compiled.tier(state) == interpreted.tier(state) == state[1] + state[2]


def test_two_worker_processes_give_the_same_database(tmp_path, monkeypatch):
    parallel_min(monkeypatch, 0)       # every batch to the workers, however small
    file, params = GAMES / "connect4.game", {"columns": 4, "rows": 3}
    game = load(file, params)
    executor = ProcessExecutor(2)
    try:
        by_two = tiered_database(game, tmp_path, "two", executor=executor,
                                 source=functools.partial(load, file, params))
    finally:
        executor.close()
    assert by_two == serial_database(game, tmp_path / "serial.db")


def test_a_local_dask_cluster_gives_the_same_database(tmp_path, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    from gdl.graph import chance_tiers

    for module in (tier_run, tier_pass, chance_tiers):    # every batch to the workers, however small
        monkeypatch.setattr(module, "PARALLEL_MIN", 0)
    file, params = GAMES / "cyclic/piglet.game", {"goal": 3}
    game = load(file, params)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = DaskExecutor(client=client)
        assert executor.workers == 2
        by_dask = tiered_database(game, tmp_path, "dask", executor=executor,
                                  source=functools.partial(load, file, params))
        # the forward pass's tiers closed in tasks submitted one at a time (Dask futures)
        parallel_min(monkeypatch, 2_000)
        hops = functools.partial(loads, HOPS, "hops.game")
        hops_by_dask = tiered_database(hops(), tmp_path, "hops", executor=executor, source=hops,
                                       native=False)
    assert by_dask == serial_database(game, tmp_path / "serial.db")
    assert hops_by_dask == serial_database(hops(), tmp_path / "hops-serial.db")


def test_an_interrupted_solve_resumes_to_the_same_database(tmp_path):
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3})
    directory = tmp_path / "c4.tiers"
    with pytest.raises(TiersStopped):
        tiered_solve(game, directory, binding=BINDING, stop_after=5)
    manifest = json.loads((directory / "manifest.json").read_text())
    assert len(manifest["solved"]) == 5 and len(manifest["tiers"]) == 13
    first = set(manifest["solved"])
    resumed = tiered_solve(game, directory, binding=BINDING, resume=True)
    # the five tiers solved before the stop were not solved again: their files are unchanged
    assert first <= set(resumed.run.manifest["solved"])
    merge_database(resumed, tmp_path / "resumed.db", BINDING)
    assert (tmp_path / "resumed.db").read_bytes() == serial_database(game, tmp_path / "s.db")


def test_resume_refuses_tier_files_of_other_rules(tmp_path):
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3})
    with pytest.raises(TiersStopped):
        tiered_solve(game, tmp_path / "t", binding=BINDING, stop_after=1)
    with pytest.raises(SolverError, match="other rules"):
        tiered_solve(game, tmp_path / "t", binding={"test": 2}, resume=True)


COUNTDOWN = """game "Countdown"
players A, B
var left in 0..3 = 3
action take requires left > 0 effect left = left - 1
terminal left == 0
utility A = 1 if mover == A else -1
zero-sum
tier 3 - left + (2 if left == 1 else 0)
"""


def test_a_move_that_lowers_the_tier_is_reported_with_the_move(tmp_path):
    game = loads(COUNTDOWN, "countdown.game")
    # tiers along the only play: left 3 -> 0, 2 -> 1, 1 -> 4, 0 -> 3: the last move goes down
    with pytest.raises(TierViolation) as caught:
        tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert caught.value.from_tier == 4 and caught.value.to_tier == 3
    assert caught.value.state[-1] == 1      # left == 1 (the state's last variable)


def test_the_command_line_locates_a_tier_violation_at_the_declaration(tmp_path, capsys):
    rules = tmp_path / "countdown.game"
    rules.write_text(COUNTDOWN)
    assert main(["solve", str(rules), "--strong", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{rules}:8:1: error[E413]" in err
    assert "the position is reached by: moves take take" in err
    assert "then take leads to tier 3" in err


def test_the_command_line_by_tiers_saves_the_serial_database(tmp_path, capsys):
    rules = str(GAMES / "connect4.game")
    sets = ["--set", "columns=4", "--set", "rows=3"]
    assert main(["solve", rules, *sets, "--strong", "--save", str(tmp_path / "s.db")]) == 0
    capsys.readouterr()
    assert main(["solve", rules, *sets, "--strong", "--workers", "2",
                 "--save", str(tmp_path / "t.db"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["tiers"] == 13 and document["positions"] == 12031
    assert document["algorithm"] == "backward induction" and document["exact"]
    assert (tmp_path / "t.db").read_bytes() == (tmp_path / "s.db").read_bytes()
    assert not (tmp_path / "t.db.tiers").exists()        # the tier files are removed when done
    assert open_database(tmp_path / "t.db").lookup(load(rules, {"columns": 4, "rows": 3})
                                                   .initial_state()) is not None


def test_tier_must_be_an_integer(capsys):
    from gdl.errors import GdlError

    with pytest.raises(GdlError, match="the tier must be an integer"):
        loads(COUNTDOWN.replace("tier 3 - left + (2 if left == 1 else 0)", "tier left > 0"),
              "bad.game")


def test_a_tier_is_inferred_where_none_is_declared():
    game = load(GAMES / "tictactoe.game")
    tier = infer_tier(game)
    graph = enumerate_positions(game)
    # every move of tic-tac-toe puts a mark on an empty cell: the inferred tier must go up along
    # every move of the whole game, not just the sample it was inferred from
    moves = 0
    for position in range(len(graph)):
        for child in graph.children(position).tolist():
            assert tier(graph.state(child)) > tier(graph.state(position))
            moves += 1
    assert moves == graph.edges > 0


RISE_AND_FALL = """game "Rise and fall"
players A, B
var x in 0..4 = 0
var done in bool = false
action up requires x < 3 effect x = x + 1
action drop requires x == 3 effect x = 0; done = true
terminal done
utility A = 1 if mover == A else -1
zero-sum
"""


def test_a_wrong_inference_falls_back_to_one_tier(tmp_path, monkeypatch):
    game = loads(RISE_AND_FALL, "rise.game")
    monkeypatch.setattr(tier_keys, "INFER_SAMPLE", 2)   # sees x go up only, never the drop
    assert infer_tier(game).growing != ()
    found = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert len(found.tiers) == 1                    # the drop lowered it: one tier instead
    merge_database(found, tmp_path / "t.db", BINDING)
    assert (tmp_path / "t.db").read_bytes() == serial_database(game, tmp_path / "s.db")


def test_tiers_with_moves_inside_are_solved_in_pieces_on_the_workers(tmp_path, monkeypatch):
    # Pig's rolls stay in their tier (banked points): each tier is cut into pieces that no move
    # joins, solved on the workers; the database is still the serial one. (Pig's tiers now go
    # to gdl.graph.chance_tiers, tested in test_tiers_pig.py; it is switched off here so that
    # the general path, which other games with moves inside a tier take, is the one tested.)
    from gdl.graph import chance_tiers

    monkeypatch.setattr(chance_tiers, "applies", lambda info: False)
    monkeypatch.setattr(tier_solve, "SPLIT_MIN", 0)
    parallel_min(monkeypatch, 0)
    monkeypatch.setattr(tiers, "WHOLE_TIER_MAX", 0)     # no tier in one task: cut, every one
    file, params = GAMES / "cyclic/pig100.game", {"goal": 7, "sides": 3}
    game = load(file, params)
    cut: list = []
    original = tier_solve._pieces

    def pieces(graph, n, parts):
        found = original(graph, n, parts)
        owner = np.repeat(np.arange(n), np.diff(graph.first[:n + 1]))
        piece_of = np.full(n, -1)
        for number, members in enumerate(found):
            piece_of[members] = number
        assert (piece_of >= 0).all()                       # every position in one piece
        inside = graph.child[:len(owner)] < n
        # no move inside the tier crosses from one piece to another
        assert (piece_of[owner[inside]] == piece_of[graph.child[:len(owner)][inside]]).all()
        cut.append(len(found))
        return found

    monkeypatch.setattr(tier_solve, "_pieces", pieces)
    executor = ProcessExecutor(2)
    try:
        by_pieces = tiered_database(game, tmp_path, "pieces", executor=executor,
                                    source=functools.partial(load, file, params))
    finally:
        executor.close()
    assert max(cut) > 1
    assert by_pieces == serial_database(game, tmp_path / "serial.db")


def test_the_merge_a_bucket_at_a_time_writes_the_same_database(tmp_path, monkeypatch):
    # small buckets: the merge sorts and compresses many key ranges one after another
    monkeypatch.setattr(tier_merge, "MERGE_BUCKET", 500)
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3})
    assert tiered_database(game, tmp_path, "buckets") == serial_database(game, tmp_path / "s.db")
    assert len(tier_merge._buckets([tier_store.TierResult.load(
        tier_run.TierRun(game, tmp_path / "buckets.tiers", BINDING), t) for t in range(13)],
        12031, "S40")) > 10


def test_approximate_values_are_labelled_so_through_the_lower_tiers(tmp_path, monkeypatch):
    from gdl.graph import iteration

    game = load(GAMES / "cyclic/piglet.game", {"goal": 4})
    exact = strong_solve(game).value(0)
    monkeypatch.setattr(iteration, "EXACT_LIMIT", 0)       # no tier may be checked exactly
    found = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert not found.exact and found.note
    values, _ = found.lookup(game.initial_state())
    assert isinstance(values[0], float) and abs(values[0] - float(exact[0])) < 1e-9


def test_a_tier_of_float_values_kept_as_an_array_merges_as_its_json_table(tmp_path, monkeypatch):
    from gdl.graph import iteration

    game = load(GAMES / "cyclic/piglet.game", {"goal": 4})
    monkeypatch.setattr(iteration, "EXACT_LIMIT", 0)       # approximate: float value vectors
    as_array = tiered_database(game, tmp_path, "array")
    assert list((tmp_path / "array.tiers").glob("tier-*.table.npy"))
    monkeypatch.setattr(tier_store, "_float_table", lambda table: False)
    save = tiers.save_tier_files

    def as_rows(run, tier, table, index, remoteness):    # a chance tier hands over an array
        rows = [tuple(map(float, row)) for row in table] if isinstance(table, np.ndarray) else table
        save(run, tier, rows, index, remoteness)

    monkeypatch.setattr(tiers, "save_tier_files", as_rows)
    as_json = tiered_database(game, tmp_path, "json")
    assert not list((tmp_path / "json.tiers").glob("tier-*.table.npy"))
    assert as_array == as_json


# Tier t + 2 is reached from t (jump) before t + 1 is closed, so the forward pass closes it
# early from those positions (via = 1) and adds what t + 1 brings (step: via = 0) later; a
# tier's first positions are never reached again inside it (turn only goes to via = 2).
HOPS = """game "Hops"
players A, B
var pos in 0..6 = 0
var via in 0..2 = 0
action step requires pos < 6 effect pos = pos + 1; via = 0
action jump requires pos < 5 effect pos = pos + 2; via = 1
action turn requires via < 2 effect via = 2
terminal pos == 6
utility A = 1 if mover == A else -1
zero-sum
tier pos
"""


def test_the_forward_pass_in_tasks_closes_each_tier_as_one_process_does(tmp_path):
    # with two workers a tier reached from few positions is closed in one task while the next
    # tier is closed from the positions known so far (tier_pass.discover); through the protocol
    source = functools.partial(loads, HOPS, "hops.game")
    game = source()
    executor = ProcessExecutor(2)
    try:
        by_two = tiered_database(game, tmp_path, "two", executor=executor, source=source,
                                 native=False)
    finally:
        executor.close()
    assert by_two == serial_database(game, tmp_path / "serial.db")
    # every position is in exactly one tier file: the single-graph enumeration's positions
    found = tiered_solve(game, tmp_path / "one.tiers", binding=BINDING, native=False)
    assert found.positions == len(enumerate_positions(game))


def test_a_tier_closed_in_a_task_reports_the_move_that_lowers_the_tier(tmp_path):
    source = functools.partial(loads, COUNTDOWN, "countdown.game")
    executor = ProcessExecutor(2)
    try:
        with pytest.raises(TierViolation) as caught:
            tiered_solve(source(), tmp_path / "t", binding=BINDING, executor=executor,
                         source=source, native=False)
    finally:
        executor.close()
    assert caught.value.from_tier == 4 and caught.value.to_tier == 3
    assert caught.value.state[-1] == 1


# Run in a fresh process: process_time counts every thread of the process, and threads other
# tests leave behind (a Dask cluster's) would count as the coordinator's.
CPU_ACCOUNTING = """
import json, time
from gdl.graph.executor import ProcessExecutor, SerialExecutor
from gdl.graph.tiers import CpuClock

def spin(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds

laps = []
for executor in (SerialExecutor(), ProcessExecutor(2)):
    clock = CpuClock(executor)
    assert executor.map(spin, [0.2] * 4) == [0.2] * 4
    assert executor.submit(spin, 0.2).result() == 0.2
    laps.append(clock.lap())
    executor.close()
print(json.dumps(laps))
"""


def test_the_executors_count_their_tasks_cpu_seconds_apart_from_the_coordinators():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", CPU_ACCOUNTING], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for lap in json.loads(done.stdout):
        # five tasks of at least 0.2 CPU seconds each, by construction; the coordinator only
        # handed them out (in this process, the tasks' own seconds are taken out of its time)
        assert lap["tasks"] >= 1.0
        assert lap["coordinator"] < 0.5


def _sleep_then(task):
    seconds, value = task
    time.sleep(seconds)
    return value


def _die(_):
    os._exit(3)


def test_the_process_pool_answers_in_task_order_raises_task_errors_and_reports_a_lost_worker():
    from gdl.graph.executor import ProcessExecutor

    executor = ProcessExecutor(2)
    try:
        # later tasks finish first; the answers still come in task order
        tasks = [(0.3, "a"), (0.0, "b"), (0.1, "c"), (0.0, "d"), (0.0, "e")]
        assert executor.map(_sleep_then, tasks) == ["a", "b", "c", "d", "e"]
        first, second = executor.submit(_sleep_then, (0.2, 1)), executor.submit(int, "x")
        with pytest.raises(ValueError):              # the task's own error, raised here
            second.result()
        assert first.result() == 1
        with pytest.raises(RuntimeError, match="ended without answering"):
            executor.submit(_die, None).result()      # not a hang
        assert executor.submit(_sleep_then, (0.0, "still")).result() == "still"  # the other
    finally:
        executor.close()


class Stop(Exception):
    """Raised by ``stop_after_found``'s callback."""


def stop_after_found(count: int, found: list[str]):
    """A progress callback that records each tier found in ``found`` and raises ``Stop`` after
    the ``count``-th (a tier is reported after its checkpoint)."""

    def progress(stage: str, done: int, total: int) -> None:
        if stage.startswith("found tier"):
            found.append(stage)
            if len(found) == count:
                raise Stop

    return progress


def test_an_interrupted_forward_pass_resumes_from_its_last_tier(tmp_path):
    # Pig's forward pass is checkpointed a tier at a time: stopped after four tiers were found,
    # the resumed solve finds only the others, and saves the serial database
    game = load(GAMES / "cyclic/pig100.game", {"goal": 6, "sides": 3})
    found_first: list[str] = []
    with pytest.raises(Stop):
        tiered_solve(game, tmp_path / "t", binding=BINDING,
                     progress=stop_after_found(4, found_first))
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert len(manifest["found"]) == 4 and "tiers" not in manifest
    found_again: list[str] = []
    resumed = tiered_solve(game, tmp_path / "t", binding=BINDING, resume=True,
                           progress=lambda stage, *_: found_again.append(stage)
                           if stage.startswith("found tier") else None)
    assert not set(found_again) & set(found_first)        # no tier found twice
    assert len(found_again) + 4 == len(resumed.tiers)
    merge_database(resumed, tmp_path / "resumed.db", BINDING)
    assert (tmp_path / "resumed.db").read_bytes() == serial_database(game, tmp_path / "s.db")
    assert not list((tmp_path / "t").glob("*.later.npz"))   # the checkpoint's files, removed


@pytest.mark.parametrize("backend", ["compile", "native"])
def test_draws_across_tiers_give_the_whole_graphs_retrograde_database(tmp_path, monkeypatch,
                                                                      backend):
    # Rounds of give and take: each round (the tier) can go on for ever, so a draw in a later
    # round decides positions of earlier ones, and a decided later position enters the count of
    # remoteness at its own. The single-graph retrograde analysis is the reference: one
    # process, whole tiers on two workers, and tiers cut into pieces give its file.
    file, params = GAMES / "cyclic" / "rounds.game", {"rounds": 4, "tokens": 5, "share_at": 3}
    game = load(file, params, backend)
    serial = serial_database(game, tmp_path / "serial.db")
    assert tiered_database(game, tmp_path, "one") == serial
    solution = tiered_solve(game, tmp_path / "one.tiers", binding=BINDING, resume=True)
    assert solution.method == "retrograde analysis"
    draws = {t for t, _ in solution.tiers
             if any(isinstance(entry, tier_store.DrawRange)
                    for entry in tier_store.TierResult.load(solution.run, t).table)}
    assert any(u in draws for t in draws for u in tiers.needs(solution.run, t))  # across tiers
    # tier 2's decided positions count their remoteness through tier 3's, which are not 0
    assert 3 in tiers.needs(solution.run, 2)
    assert (tier_store.TierResult.load(solution.run, 2).remoteness >= 0).any()
    assert tier_store.TierResult.load(solution.run, 3).remoteness.max() > 0
    source = functools.partial(load, file, params, backend)
    for name, whole in (("whole", tiers.WHOLE_TIER_MAX), ("pieces", 0)):
        monkeypatch.setattr(tiers, "WHOLE_TIER_MAX", whole)
        monkeypatch.setattr(tier_solve, "SPLIT_MIN", 0)
        executor = ProcessExecutor(2)
        try:
            assert tiered_database(game, tmp_path, name, executor=executor,
                                   source=source) == serial, name
        finally:
            executor.close()


@pytest.mark.parametrize("endless", ["", "when endless draw\n", "when endless (1, -1)\n",
                                     "when endless (-1, 1)\n"])
def test_draws_by_tiers_whatever_endless_play_is_worth_give_the_whole_graphs_database(
        tmp_path, monkeypatch, endless):
    # Rounds of give and take with endless play undeclared, a draw, or a win for either side:
    # a later round's draw is worth the declared value in the rounds before it, and decides
    # their remoteness; by tiers, in one process and in pieces on two workers, the file is the
    # single-graph solve's.
    text = (GAMES / "cyclic" / "rounds.game").read_text() + endless
    params = {"rounds": 3, "tokens": 5, "share_at": 3}
    game = loads(text, "rounds.game", params=params)
    serial = serial_database(game, tmp_path / "serial.db")
    assert tiered_database(game, tmp_path, "one") == serial
    monkeypatch.setattr(tier_solve, "SPLIT_MIN", 0)
    executor = ProcessExecutor(2)
    try:
        assert tiered_database(game, tmp_path, "pieces", executor=executor, source=functools.partial(
            loads, text, "rounds.game", params=params)) == serial
    finally:
        executor.close()


def test_a_chance_game_that_may_never_end_by_tiers_needs_the_worth_of_endless_play(tmp_path):
    # Without `when endless` the stand-off's start is a draw that only two whole solves tell
    # (docs/graph.md); by tiers it is refused, naming the two ways that work.
    text = (GAMES / "cyclic" / "standoff.game").read_text().replace("when endless (1 / 2, -1 / 2)\n", "")
    with pytest.raises(SolverError, match=r"when endless.*as one\s+graph"):
        tiered_solve(loads(text, "standoff.game"), tmp_path / "t", binding=BINDING)


def test_ring_chase_by_tiers_gives_the_whole_graphs_database(tmp_path):
    # a game that declares endless play a draw, with draws inside its one inferred tier
    game = load(GAMES / "cyclic" / "ring-chase.game", {})
    assert tiered_database(game, tmp_path, "t") == serial_database(game, tmp_path / "s.db")


def test_ctrl_c_in_a_solve_by_tiers_says_how_to_go_on_and_resume_does(tmp_path, monkeypatch,
                                                                     capsys):
    # Ctrl-C after a few tiers: the tier directory is kept, the message says how many tiers
    # were solved and to run the same command with --resume, which then gives the whole file
    file, params = GAMES / "connect4.game", ["--set", "columns=4", "--set", "rows=3"]
    database = tmp_path / "c4.db"
    command = ["solve", str(file), *params, "--strong", "--workers", "1", "--save", str(database)]
    original = tiers._record_solved
    solved: list = []

    def interrupted_after_four(run, tier, how):
        original(run, tier, how)
        solved.append(tier)
        if len(solved) == 4:
            raise KeyboardInterrupt

    monkeypatch.setattr(tiers, "_record_solved", interrupted_after_four)
    assert main(command) == 130
    err = capsys.readouterr().err
    directory = Path(str(database) + ".tiers")
    assert f"4 of 13 tiers were solved; they are kept in {directory}" in err
    assert "--resume" in err and "Traceback" not in err and not database.exists()
    monkeypatch.setattr(tiers, "_record_solved", original)
    assert main([*command, "--resume"]) == 0
    whole = tmp_path / "whole.db"
    assert main(["solve", str(file), *params, "--strong", "--save", str(whole)]) == 0
    assert database.read_bytes() == whole.read_bytes()      # the single-graph solve's file


def test_a_large_game_that_declares_a_tier_is_solved_by_tiers_by_itself(monkeypatch, capsys):
    # Past AUTO_TIERS positions `gdl solve --strong` switches to tiers, says so, and answers
    # as the whole graph does (Piglet to 2: the first player wins with probability 4/7, so
    # A's value is 2 * 4/7 - 1 = 1/7, derived by hand in tests/test_graph.py).
    from gdl.cli import strong

    path = str(GAMES / "cyclic" / "piglet.game")
    monkeypatch.setattr(strong, "AUTO_TIERS", 5)
    assert main(["solve", path, "--set", "goal=2", "--strong"]) == 0
    out, err = capsys.readouterr()
    assert "solving a tier at a time" in err and "a tier at a time on 1 worker(s)" in out
    assert "A 1/7" in out
    monkeypatch.setattr(strong, "AUTO_TIERS", 10_000)      # small enough: one graph
    assert main(["solve", path, "--set", "goal=2", "--strong"]) == 0
    out, err = capsys.readouterr()
    assert "tier" not in err and "A 1/7" in out and "a tier at a time" not in out
