"""Strong solving by tiers (gdl.graph.tiers): memory, workers, Dask, against the serial solve.

    python benchmarks/tiers.py --only c4-5x4 --repeat 3   # the workers' speed-up (README-tiers.md)
    python benchmarks/tiers.py --only c4-6x4 --kinds tiers-2   # Connect Four 6x4 by tiers
    python benchmarks/tiers.py --quick          # Connect Four 4x4 and Pig to 30 (a minute or two)
    python benchmarks/tiers.py --only pig-100 --kinds tiers-1 tiers-2    # Pig to 100: 1 vs 2 workers
    python benchmarks/tiers.py                  # every row but 6x4's

The game is loaded with ``--backend`` (default native: tiers on packed keys, gdl.graph.packed_tiers;
``compile``: through the Python protocol). With ``--repeat N`` the rows of a game run N times,
alternating (tiers-1, tiers-2, tiers-1, ...; the other kinds once), and the table keeps each
kind's fastest run: the machine may be shared, so the load average (1 minute, when the row
started) is in the table.

Each row runs in a fresh process, so its peak resident memory (RSS) is its own: for a solve by
tiers that is the coordinating process (with one worker, all of the work), for the serial solve
the process that enumerates, solves and saves. Every row saves the position database and the
script stops unless every row of a game wrote the same file (SHA-256) and the serial row's
positions and value agree with the literature (FACTS: Tromp's counts, draws).

Rows: ``serial`` (gdl.graph.strong_solve + database.save, what `gdl solve --strong --save`
runs), ``tiers-1`` (by tiers, one process), ``tiers-2`` (two worker processes), ``dask-2`` (a
LocalCluster of two worker processes, its start-up not counted). Wall seconds: run the table on
an otherwise idle machine, or compare rows measured side by side. The serial share (rows with
workers) does not depend on the load: the coordinator's CPU seconds over all the solve's, from
the executors' count of their tasks' CPU seconds; a comment line gives them per pass.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# game: (rule file, --set values, expected positions or None, expected value for player 0)
GAMES = {
    "c4-4x4": ("connect4.game", {"columns": 4, "rows": 4}, 161_029, 0),
    "c4-5x4": ("connect4.game", {"columns": 5, "rows": 4}, 3_945_711, 0),
    "pig-30": ("cyclic/pig100.game", {"goal": 30}, None, None),
    "pig-50": ("cyclic/pig100.game", {"goal": 50}, None, None),
    "pig-100": ("cyclic/pig100.game", {"goal": 100}, None, None),
    "c4-6x4": ("connect4.game", {"columns": 6, "rows": 4}, 94_910_577, None),  # value: not in FACTS
}
HEAVY = ("c4-6x4",)          # not in the default run: minutes, gigabytes
KINDS = ("serial", "tiers-1", "tiers-2", "dask-2")
QUICK = ("c4-4x4", "pig-30")
REPEATED = ("tiers-1", "tiers-2")   # --repeat runs these again; the others (slow, fixed) once


def serial_share(cpu_phases: dict) -> float | None:
    """The coordinator's share of the CPU seconds of a solve by tiers (both passes and the
    merge): the work no worker can take, whatever the load. With two workers, a 1.6x speed-up
    needs it under 25% (Amdahl)."""
    own = sum(phase["coordinator"] for phase in cpu_phases.values())
    tasks = sum(phase["tasks"] for phase in cpu_phases.values())
    return None if own + tasks <= 0 else round(own / (own + tasks), 3)


def run_row(game_name: str, kind: str, backend: str = "native") -> dict:
    sys.path.insert(0, str(ROOT))
    from gdl.backends.load import load
    from gdl.graph.executor import DaskExecutor, ProcessExecutor, SerialExecutor

    path, params, _, _ = GAMES[game_name]
    rules = ROOT / "games" / path
    game = load(rules, params, backend)
    load_before = os.getloadavg()[0]
    directory = Path(tempfile.mkdtemp(prefix="gdl-bench-tiers-"))
    database = directory / "out.db"
    cluster = client = None
    if kind == "dask-2":
        from dask.distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    started = time.perf_counter()
    chance_of_win = None
    cpu_phases: dict = {}
    if kind == "serial":
        from gdl.graph import strong_solve
        from gdl.graph.database import save

        solution = strong_solve(game)
        saving = time.perf_counter()
        save(solution, database, {})
        phases = {"solve": saving - started, "save": time.perf_counter() - saving}
        positions, root = len(solution.graph), solution.value(0)
        method, tiers = solution.method, 1
    else:
        from gdl.graph.tiers import merge_database, tiered_solve

        executor = (DaskExecutor(client=client) if client is not None
                    else ProcessExecutor(2) if kind == "tiers-2" else SerialExecutor())
        found = tiered_solve(game, directory / "tiers", binding={}, executor=executor,
                             source=functools.partial(load, rules, params, backend),
                             prepare_merge=True)
        merged, merged_cpu = time.perf_counter(), time.process_time()
        merge_database(found, database, {})
        executor.close()
        phases = dict(found.seconds, merge=time.perf_counter() - merged)
        cpu_phases = dict(found.cpu, merge={"coordinator": time.process_time() - merged_cpu,
                                            "tasks": 0.0})
        positions, method, tiers = found.positions, found.method, len(found.tiers)
        entry = found.lookup(game.initial_state())
        root = None if entry is None else entry[0]
        from gdl.graph.chance_tiers import win_probability

        chance_of_win = win_probability(found, game.initial_state())
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if client is not None:
        client.close()
        cluster.close()  # type: ignore[union-attr]
    digest = hashlib.sha256(database.read_bytes()).hexdigest()
    shutil.rmtree(directory, ignore_errors=True)     # tier files and the database: gigabytes
    # CPU seconds of this process and of the workers it waited for (Dask's: its start-up too)
    cpu = sum(getattr(resource.getrusage(who), field) for who in
              (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for field in ("ru_utime", "ru_stime"))
    row = {"game": game_name, "kind": kind, "positions": positions, "tiers": tiers,
           "method": method, "value": None if root is None else str(root[0]),
           "wall": wall, "cpu": cpu, "peak": peak, "sha256": digest, "backend": backend,
           "phases": {k: round(v, 3) for k, v in phases.items()},
           # per phase, the coordinator's CPU seconds and its tasks' (see serial_share)
           "cpu_phases": cpu_phases, "serial_share": serial_share(cpu_phases),
           "load": load_before, "load_after": os.getloadavg()[0],
           # Pig's certified interval of P(first player wins), where its values are not exact
           "win": None if chance_of_win is None else [float(x) for x in chance_of_win]}
    # every row also goes to a log (GDL_BENCH_LOG, default gdl-bench-tiers.jsonl in the
    # temporary directory): the CPU seconds and load average the table leaves out
    log = os.environ.get("GDL_BENCH_LOG") or os.path.join(tempfile.gettempdir(),
                                                         "gdl-bench-tiers.jsonl")
    with open(log, "a") as out:
        out.write(json.dumps(row) + "\n")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(GAMES))
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--backend", choices=("native", "compile"), default="native")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run each game's rows N times, alternating; keep each kind's fastest")
    parser.add_argument("--row", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.row:
        print(json.dumps(run_row(*args.row)))
        return 0
    names = ([args.only] if args.only else list(QUICK) if args.quick
             else [name for name in GAMES if name not in HEAVY])
    print("| game | positions | tiers | run | wall s | CPU s | phases s | serial share "
          "| peak RSS MB | RSS / serial's | speed-up vs tiers-1 | load | database |")
    print("|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---|")
    failed = False
    for name in names:
        rows: dict = {}
        digests = set()
        for round_number in range(max(1, args.repeat)):
            for kind in args.kinds:
                if round_number and kind not in REPEATED:
                    continue
                done = subprocess.run([sys.executable, __file__, "--row", name, kind,
                                       args.backend], capture_output=True, text=True)
                if done.returncode:
                    print(f"{name} {kind} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
                    failed = True
                    continue
                row = json.loads(done.stdout.strip().splitlines()[-1])
                digests.add(row["sha256"])
                if kind not in rows or row["wall"] < rows[kind]["wall"]:
                    rows[kind] = row
        _, _, positions, value = GAMES[name]
        reference = rows.get("serial")
        if reference is not None and positions is not None:
            if reference["positions"] != positions or (value is not None
                                                       and reference["value"] != str(value)):
                print(f"{name}: serial solve disagrees with the literature: {reference}",
                      file=sys.stderr)
                failed = True
        same = "identical" if len(digests) == 1 else "DIFFERENT"
        failed |= len(digests) != 1
        for kind, row in rows.items():
            ratio = (f"{row['peak'] / reference['peak']:.2f}" if reference is not None else "")
            base = rows.get("tiers-1")
            speedup = (f"{base['wall'] / row['wall']:.2f}×" if base is not None
                       and kind != "serial" else "")
            phases = " ".join(f"{k} {v:.1f}" for k, v in row["phases"].items())
            share = row.get("serial_share")
            share = "" if share is None or kind in ("serial", "tiers-1") else f"{share:.0%}"
            print(f"| {name} | {row['positions']:,} | {row['tiers']} | {kind} | {row['wall']:.1f} "
                  f"| {row['cpu']:.1f} | {phases} | {share} | {row['peak'] / 2**20:.0f} | {ratio} "
                  f"| {speedup} | {row['load']:.1f} | {same} |", flush=True)
        for kind, row in rows.items():
            if row.get("cpu_phases") and kind not in ("serial", "tiers-1"):
                split = " ".join(f"{k} {v['coordinator']:.1f}/{v['tasks']:.1f}"
                                 for k, v in row["cpu_phases"].items())
                print(f"<!-- {name} {kind}: CPU s, coordinator/tasks: {split} -->")
        if "dask-2" in rows and "tiers-2" in rows:
            print(f"<!-- {name}: Dask against the process pool: "
                  f"{rows['dask-2']['wall'] / rows['tiers-2']['wall']:.2f}x the wall time, "
                  f"{rows['dask-2']['cpu'] / rows['tiers-2']['cpu']:.2f}x the CPU time -->")
        for kind, row in rows.items():
            if row.get("win"):
                low, high = row["win"]
                print(f"{name} {kind}: P(first player wins) in [{low:.13f}, {high:.13f}] "
                      f"(certified; width {high - low:.1e})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
