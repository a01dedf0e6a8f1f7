"""Pig and Piglet by tiers (gdl/graph/chance_tiers.py): exact values, certified intervals, and
the same database whatever the partition.

The references are independent of the solver: Piglet's values come from the two-state
equations of each pair of banked scores (FACTS.md: "small goals can be solved by hand from the
two-state equations of each score pair"), written below as a brute force over the players'
hold-or-flip choices with exact fractions; and the single-graph strong solve, a separate code
path, for the byte-identical databases.
"""

from __future__ import annotations

import functools
import itertools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gdl.backends.load import load
from gdl.backends.position import position
from gdl.graph import chance_tiers, strong_solve, tier_pass, tier_run, tier_store, tiers
from gdl.graph.database import save
from gdl.graph.executor import DaskExecutor, ProcessExecutor
from gdl.graph.tiers import merge_database, tiered_solve

GAMES = Path(__file__).resolve().parent.parent / "games"
PIGLET = GAMES / "cyclic" / "piglet.game"
PIG = GAMES / "cyclic" / "pig100.game"
BINDING = {"test": 1}


@pytest.fixture
def every_batch_to_the_workers(monkeypatch):
    """Small games' batches go to the workers too (by default they stay in this process), and
    each tier is cut for them (by default tiers that do not reach each other go whole, at once)."""
    for module in (tier_run, tier_pass, chance_tiers):
        monkeypatch.setattr(module, "PARALLEL_MIN", 0)
    monkeypatch.setattr(tiers, "WHOLE_TIER_MAX", 0)


def _solve_linear(rows: list[list[Fraction]]) -> list[Fraction]:
    """Gauss-Jordan elimination on an augmented matrix of fractions."""
    k = len(rows)
    for col in range(k):
        pivot = next(r for r in range(col, k) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(k):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col])]
    return [rows[r][k] for r in range(k)]


def piglet_values(goal: int) -> dict[tuple[int, int, int], Fraction]:
    """P(the player to move wins) at (mover's score, other's score, turn total), Piglet to
    ``goal``, with optimal play: for each pair of banked scores, highest sum first, every
    combination of hold-or-flip choices is solved exactly, and the one whose choices are each
    best given its own values is kept (in a game that surely ends, the optimality equations
    have one solution)."""
    half = Fraction(1, 2)
    known: dict[tuple[int, int, int], Fraction] = {}
    pairs = sorted({tuple(sorted((i, j))) for i in range(goal) for j in range(goal)},
                   key=lambda pair: -sum(pair))
    for i, j in pairs:
        movers = sorted({(i, j), (j, i)})
        states = [(a, b, k) for a, b in movers for k in range(goal - a)]
        at = {s: n for n, s in enumerate(states)}
        choosing = [s for s in states if s[2] > 0]

        def flip(s, x):
            a, b, k = s
            heads = 1 if a + k + 1 >= goal else x[(a, b, k + 1)]
            return half * (1 - x[(b, a, 0)]) + half * heads

        def hold(s):
            a, b, k = s
            return 1 - known[(b, a + k, 0)]

        for holds in itertools.product((False, True), repeat=len(choosing)):
            policy = dict(zip(choosing, holds))
            rows = []
            for s in states:
                row = [Fraction(0)] * (len(states) + 1)
                row[at[s]] += 1
                a, b, k = s
                if policy.get(s):
                    row[-1] = hold(s)
                else:
                    row[at[(b, a, 0)]] += half                 # -(-1/2) x_other
                    row[-1] = half
                    if a + k + 1 >= goal:
                        row[-1] += half
                    else:
                        row[at[(a, b, k + 1)]] -= half
                rows.append(row)
            solution = dict(zip(states, _solve_linear(rows)))
            if all((hold(s) >= flip(s, solution)) == policy[s] or hold(s) == flip(s, solution)
                   for s in choosing):
                known.update(solution)
                break
        else:
            raise AssertionError(f"no consistent policy for the pair {i, j}")
    return known


def test_the_brute_force_agrees_with_the_literature():
    # FACTS / piglet.game: to 2 points the first player wins with probability 4/7
    assert piglet_values(2)[(0, 0, 0)] == Fraction(4, 7)


def _decision_positions(game, goal: int):
    """(state, P(A wins) by the brute force) at every decision position of Piglet."""
    values = piglet_values(goal)
    for a in range(goal):
        for b in range(goal):
            for mover, own in (("A", a), ("B", b)):
                for k in range(goal - own):
                    state = position(game, {"score": [a, b], "turn_total": k, "mover": mover})
                    p = values[(a, b, k)] if mover == "A" else 1 - values[(b, a, k)]
                    yield state, p


@pytest.mark.parametrize("goal", [3, 4])
def test_piglet_by_tiers_equals_the_two_state_equations(tmp_path, goal):
    game = load(PIGLET, {"goal": goal})
    solution = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert solution.exact
    checked = 0
    for state, p in _decision_positions(game, goal):
        found = solution.lookup(state)
        if found is None:            # not reachable (a turn total beyond any roll)
            continue
        assert found[0] == (2 * p - 1, 1 - 2 * p)
        checked += 1
    assert checked > 10 * goal


@pytest.mark.parametrize("way", ["policy and certificate", "plain iteration"])
def test_the_certified_interval_contains_the_exact_value(tmp_path, monkeypatch, way):
    # no exact check below the highest tier: every other tier is bracketed, and the bounds
    # carried from tier to tier must still hold the exact value; both ways of bracketing
    monkeypatch.setattr(chance_tiers, "EXACT_DIGITS", -1)
    if way == "plain iteration":
        monkeypatch.setattr(chance_tiers, "MAX_CUT", 0)     # no piece may take the fast way
    goal = 5
    game = load(PIGLET, {"goal": goal})
    solution = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert not solution.exact
    checked = 0
    for state, p in _decision_positions(game, goal):
        interval = chance_tiers.certified_interval(solution, state)
        if solution.lookup(state) is None or interval is None:
            continue
        (low, high), (low_b, high_b) = interval
        assert low <= 2 * p - 1 <= high and low_b <= 1 - 2 * p <= high_b
        assert high - low < Fraction(1, 10 ** 9)
        checked += 1
    assert checked > 20
    chance = chance_tiers.win_probability(solution, game.initial_state())
    exact = piglet_values(goal)[(0, 0, 0)]
    assert chance is not None and chance[0] <= exact <= chance[1]


def _database(game, tmp_path: Path, name: str, **options) -> bytes:
    solution = tiered_solve(game, tmp_path / f"{name}.tiers", binding=BINDING, **options)
    merge_database(solution, tmp_path / f"{name}.db", BINDING)
    return (tmp_path / f"{name}.db").read_bytes()


def test_two_workers_give_the_serial_database_exact_and_bracketed(tmp_path, monkeypatch,
                                                                 every_batch_to_the_workers):
    # exact: the single-graph solve's file; bracketed (floats in the file): every bit the
    # same on one process and on two, however the pieces are cut
    file, params = PIG, {"goal": 8, "sides": 3}
    game = load(file, params)
    serial = tmp_path / "serial.db"
    save(strong_solve(game), serial, BINDING)
    cuts: list = []
    original = chance_tiers.tasks_for

    def tasks_for(local, parts):
        found = original(local, parts)
        label = np.empty(local.n, dtype=np.int64)
        for number in range(len(local.piece_first) - 1):
            label[local.order[local.piece_first[number]:local.piece_first[number + 1]]] = number
        owner = np.repeat(np.arange(local.n), np.diff(local.first[:local.n + 1]))
        inside = local.child[:len(owner)] < local.n
        # no move inside the tier joins two pieces
        assert (label[owner[inside]] == label[local.child[:len(owner)][inside]]).all()
        cuts.append(len(found))
        return found

    monkeypatch.setattr(chance_tiers, "tasks_for", tasks_for)
    executor = ProcessExecutor(2)
    try:
        source = functools.partial(load, file, params)
        assert _database(game, tmp_path, "two", executor=executor, source=source) \
            == serial.read_bytes()
        assert max(cuts) == 2
        monkeypatch.setattr(chance_tiers, "EXACT_DIGITS", -1)
        one = _database(game, tmp_path, "one-bracketed")
        assert _database(game, tmp_path, "two-bracketed", executor=executor,
                         source=source) == one
    finally:
        executor.close()


def test_a_local_dask_cluster_gives_the_same_bracketed_database(tmp_path, monkeypatch,
                                                                every_batch_to_the_workers):
    distributed = pytest.importorskip("dask.distributed")
    monkeypatch.setattr(chance_tiers, "EXACT_DIGITS", -1)
    file, params = PIG, {"goal": 7, "sides": 3}
    game = load(file, params)
    one = _database(game, tmp_path, "one")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        by_dask = _database(game, tmp_path, "dask", executor=DaskExecutor(client=client),
                            source=functools.partial(load, file, params))
    assert by_dask == one


def test_a_piece_alone_gets_the_bits_it_gets_among_others(tmp_path, monkeypatch):
    # solve_task on all the pieces of a tier at once, and on each piece alone
    monkeypatch.setattr(chance_tiers, "EXACT_DIGITS", -1)
    seen: list = []
    original = chance_tiers.solve_task

    def solve_task(task):
        answer = original(task)
        seen.append((task, answer))
        return answer

    monkeypatch.setattr(chance_tiers, "solve_task", solve_task)
    game = load(PIG, {"goal": 10, "sides": 4})
    tiered_solve(game, tmp_path / "t", binding=BINDING)
    compared = 0
    for (local, start, stop), together in seen:
        if stop - start < 2:
            continue
        for piece in range(start, stop):
            alone = original((local, piece, piece + 1))
            where = np.searchsorted(together.members, alone.members)
            assert np.array_equal(together.low[where], alone.low)
            assert np.array_equal(together.high[where], alone.high)
            compared += 1
    assert compared > 10


def test_the_command_line_reports_the_certified_interval(tmp_path, monkeypatch, capsys):
    import json

    from gdl.cli import main

    monkeypatch.setattr(chance_tiers, "EXACT_DIGITS", -1)
    goal = 5
    rules = str(PIGLET)
    command = ["solve", rules, "--set", f"goal={goal}", "--strong", "--tier-dir",
               str(tmp_path / "t")]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "not exact" in out and "(certified: value iteration from below and from above)" in out
    assert "P(A wins)  ∈ [" in out and "width" in out
    # and with the tier files in a temporary directory (--workers 1), removed when done: the
    # interval is read before they go
    assert main(["solve", rules, "--set", f"goal={goal}", "--strong", "--workers", "1"]) == 0
    assert "P(A wins)  ∈ [" in capsys.readouterr().out
    assert main([*command, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    exact = piglet_values(goal)[(0, 0, 0)]
    chance = document["win_probability"]
    assert Fraction(chance["low"]) <= exact <= Fraction(chance["high"])
    assert 0 < document["width"] < 1e-9


def test_the_merge_writes_more_than_65536_distinct_values(tmp_path):
    # Pig to 100 by tiers has about two million distinct (approximate) values: no packed16
    # record can hold their index; the file must still be written and read back
    import json as json_module

    from gdl.graph.database import atomic_write, open_database
    from gdl.graph.tier_keys import state_of
    from gdl.graph.tier_run import TierRun
    from gdl.graph.tier_store import save_array
    from gdl.graph.tiers import TieredSolution

    game = load(PIGLET, {"goal": 2})
    run = TierRun(game=game, directory=tmp_path / "t", binding=BINDING)
    run.directory.mkdir()
    n = 70_000
    # five-component states (1, i // 65536 + 1, i // 256 % 256, i % 256, 1): sorted keys
    rows = [bytes([5, 1, i // 65536 + 1, i // 256 % 256, i % 256, 1]) for i in range(n)]
    save_array(run.path(0, "keys.npy"), np.array(rows, dtype="S6"))
    save_array(run.path(0, "values.npy"), np.arange(n, dtype=np.int32))
    save_array(run.path(0, "remoteness.npy"), np.full(n, -1, dtype=np.int32))
    table = [[i / n, -i / n] for i in range(n)]
    atomic_write(run.path(0, "table.json"), json_module.dumps(table).encode("utf-8"))
    solution = TieredSolution(run, [[0, n]], "value iteration", False, "", {})
    merge_database(solution, tmp_path / "many.db", BINDING)
    database = open_database(tmp_path / "many.db")
    for i in (0, 1, 65_537, n - 1):
        entry = database.lookup(state_of(rows[i]))
        assert entry is not None and entry.values == (i / n, -i / n) and entry.remoteness == -1


def _sent_whole(executor) -> list:
    """The tiers the solve sends to ``executor`` whole (``tier_task``), recorded as sent."""
    sent: list = []
    submit = executor.submit

    def recording(function, task):
        if function is tiers.tier_task:
            sent.append(task[5])
        return submit(function, task)

    executor.submit = recording
    return sent


@pytest.mark.parametrize("where", ["processes", "dask"])
def test_tiers_that_do_not_reach_each_other_are_solved_at_once_whole(tmp_path, monkeypatch,
                                                                     where):
    # Pig's tier t (banked points) reaches t + 2 and up, never t + 1: the two are solved at
    # once, each whole in a worker. With the process pool, exactness runs out part way down
    # (tiers over 85 positions are not checked exactly; forked workers inherit the limit, a
    # Dask worker would not), so a tier is checked exactly or not by what the tiers it reaches
    # are, not by which tiers happened to be solved before it: the same file as one
    # process's, whose order is another.
    from gdl.graph import iteration

    if where == "processes":
        monkeypatch.setattr(iteration, "EXACT_LIMIT", 85)
    file, params = PIG, {"goal": 8, "sides": 3}
    game = load(file, params)
    one = _database(game, tmp_path, "one")
    manifest = json.loads((tmp_path / "one.tiers" / "manifest.json").read_text())
    exact = {int(t): how["exact"] for t, how in manifest["solved"].items()}
    if where == "processes":
        # tier 9 (88 positions) is not exact; tier 8 (82), which does not reach it, is
        assert not exact[9] and exact[8] and 9 not in manifest["reaches"]["8"]
    source = functools.partial(load, file, params)
    if where == "processes":
        executor = ProcessExecutor(2)
        try:
            sent = _sent_whole(executor)
            assert _database(game, tmp_path, "two", executor=executor, source=source) == one
        finally:
            executor.close()
    else:
        distributed = pytest.importorskip("dask.distributed")
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            executor = DaskExecutor(client=client)
            sent = _sent_whole(executor)
            assert _database(game, tmp_path, "dask", executor=executor, source=source) == one
    assert len(sent) >= len(exact) - 2 and len(set(sent)) == len(sent)


def test_a_worker_reads_no_results_kept_from_another_run(tmp_path, monkeypatch):
    # a worker keeps the solved tiers' results between its tasks of one run (a run id); a Dask
    # worker outlives runs, and what it kept for another run (here: poisoned, every later
    # position a win for A) must not be read
    params = {"goal": 10, "sides": 4}
    solution = tiered_solve(load(PIG, params), tmp_path / "t", binding=BINDING)
    run = solution.run
    expected = _tier_files(run.directory, 3)
    reached = tiers.needs(run, 3)
    poisoned = {}
    for u in reached:
        result = tier_store.TierResult.load(run, u)
        result.table = [("1", "-1")] * len(result.table)
        poisoned[u] = result
    monkeypatch.setattr(tiers, "_WORKER_RESULTS", {"another run": poisoned})
    task = ("this run", functools.partial(load, PIG, params), str(run.directory), BINDING,
            run.tier, 3, {str(u): run.manifest["solved"][str(u)] for u in reached}, True,
            None)
    tiers.tier_task(task)                           # tier 3 again, as a worker solves it
    assert _tier_files(run.directory, 3) == expected
    assert list(tiers._WORKER_RESULTS) == ["this run"]
    tiers._WORKER_RESULTS["this run"] = poisoned    # the test's own check: poison is seen
    tiers.tier_task(task)
    assert _tier_files(run.directory, 3) != expected


def _tier_files(directory: Path, tier: int) -> tuple:
    """A tier's values: the index of each position, and the table it indexes (exact: JSON)."""
    return tuple((directory / f"tier-{tier}.{part}").read_bytes() for part in ("values.npy",
                                                                               "table.json"))


def test_whole_tiers_stop_where_asked_and_resume_to_the_same_database(tmp_path):
    file, params = PIG, {"goal": 8, "sides": 3}
    game = load(file, params)
    one = _database(game, tmp_path, "one")
    directory = tmp_path / "two.tiers"
    source = functools.partial(load, file, params)
    executor = ProcessExecutor(2)
    try:
        sent = _sent_whole(executor)
        with pytest.raises(tiers.TiersStopped):
            tiered_solve(game, directory, binding=BINDING, executor=executor, source=source,
                         stop_after=5)
        manifest = json.loads((directory / "manifest.json").read_text())
        assert len(manifest["solved"]) == 5 and len(sent) <= 5
        before = len(sent)
        resumed = tiered_solve(game, directory, binding=BINDING, executor=executor,
                               source=source, resume=True)
    finally:
        executor.close()
    # the five solved before the stop are not solved again; the others are, whole
    assert not {int(t) for t in manifest["solved"]} & set(sent[before:])
    assert len(sent) > before
    merge_database(resumed, tmp_path / "two.db", BINDING)
    assert (tmp_path / "two.db").read_bytes() == one


def test_the_backward_pass_reads_the_forward_pass_moves_and_expands_again_without_them(
        tmp_path, monkeypatch):
    # the forward pass writes the moves it expanded; the backward pass reads them back instead
    # of calling the game again, and where a part is missing it expands the tier: the same file
    file, params = PIG, {"goal": 8, "sides": 3}
    game = load(file, params)
    serial = tmp_path / "serial.db"
    save(strong_solve(game), serial, BINDING)
    expanded: list = []
    original = tier_run.TierRun.expand_all

    def counting(run, keys, tier_file=None):
        expanded.append(len(keys))
        return original(run, keys, tier_file)

    monkeypatch.setattr(tier_run.TierRun, "expand_all", counting)
    with pytest.raises(tiers.TiersStopped):           # the forward pass alone
        tiered_solve(game, tmp_path / "t", binding=BINDING, stop_after=0)
    forward = sum(expanded)                           # every position once
    assert forward == sum(count for _, count in
                          json.loads((tmp_path / "t" / "manifest.json").read_text())["tiers"])
    missing = list((tmp_path / "t").glob("tier-5.expanded-*.npz"))
    assert missing
    for part in missing:
        part.unlink()                                   # tier 5 must be expanded again
    solution = tiered_solve(game, tmp_path / "t", binding=BINDING, resume=True)
    manifest = solution.run.manifest
    assert sum(expanded) - forward == dict(map(tuple, manifest["tiers"]))[5]
    merge_database(solution, tmp_path / "t.db", BINDING)
    assert (tmp_path / "t.db").read_bytes() == serial.read_bytes()


@pytest.mark.parametrize("exact", [True, False])
def test_one_two_and_three_workers_give_the_same_database(tmp_path, monkeypatch, exact):
    # With the default thresholds: two or three workers close the tiers of the forward pass
    # in tasks (a tier and the next at once, each task writing its tier's files), and solve
    # whole tiers in tasks beside each other; one process does neither. Exact (small goal: the
    # single-graph solve's file) and bracketed (floats in the file: every bit the same).
    file, params = PIG, {"goal": 10}
    game = load(file, params, "native")
    if exact:
        serial = tmp_path / "serial.db"
        save(strong_solve(game), serial, BINDING)
        expected = serial.read_bytes()
    else:
        monkeypatch.setattr(chance_tiers, "EXACT_DIGITS", -1)
        expected = _database(game, tmp_path, "one")
    source = functools.partial(load, file, params, "native")
    for workers in (1, 2, 3):
        executor = ProcessExecutor(workers) if workers > 1 else None
        try:
            sent = _sent_whole(executor) if executor is not None else []
            assert _database(game, tmp_path, f"w{workers}", executor=executor,
                             source=source) == expected
        finally:
            if executor is not None:
                executor.close()
        assert (len(sent) > 10) == (workers > 1)           # whole tiers in the workers
        assert not list((tmp_path / f"w{workers}.tiers").glob("tier-*.closure-*"))


def test_a_forward_pass_of_closure_tasks_stops_and_resumes_to_the_same_database(tmp_path):
    # each closure task writes its tier's files under a name of its own; the coordinator takes
    # them into place before the checkpoint records the tier, and a resumed pass removes the
    # closure files no checkpoint took (here: one left as a killed task would leave it)
    file, params = PIG, {"goal": 10}
    game = load(file, params, "native")
    one = _database(game, tmp_path, "one")
    directory = tmp_path / "two.tiers"
    source = functools.partial(load, file, params, "native")

    class Stop(Exception):
        pass

    found: list[str] = []

    def stop_after_five(stage, done, total):
        if stage.startswith("found tier"):
            found.append(stage)
            if len(found) == 5:
                raise Stop

    executor = ProcessExecutor(2)
    try:
        with pytest.raises(Stop):
            tiered_solve(game, directory, binding=BINDING, executor=executor, source=source,
                         progress=stop_after_five)
        manifest = json.loads((directory / "manifest.json").read_text())
        assert len(manifest["found"]) == 5 and "tiers" not in manifest
        (directory / "tier-99.closure-1.keys.npy").write_bytes(b"not taken")
        again: list[str] = []
        resumed = tiered_solve(game, directory, binding=BINDING, executor=executor,
                               source=source, resume=True,
                               progress=lambda stage, *_: again.append(stage)
                               if stage.startswith("found tier") else None)
    finally:
        executor.close()
    assert not set(again) & set(found)                 # no tier found twice
    assert not list(directory.glob("tier-*.closure-*"))
    merge_database(resumed, tmp_path / "two.db", BINDING)
    assert (tmp_path / "two.db").read_bytes() == one
