"""Strong solving (gdl.graph): every reachable position of a game, valued.

    python benchmarks/graph.py              # the table in benchmarks/README-graph.md
    python benchmarks/graph.py --only pig100  # one row
    python benchmarks/graph.py --quick      # the small rows only (seconds)

Each row runs in a fresh process (so its peak resident memory is its own) and reports the
positions, the root's value, the CPU seconds of enumeration and of solving, the throughput
(positions per CPU second, end to end: enumeration, ordering, solving) and the peak RSS divided
by the positions. The values are checked against the literature (benchmarks stop otherwise):
tic-tac-toe and Connect Four 4x4 and 5x4 are draws with 5,478 / 161,029 / 3,945,711 positions
(FACTS: Tromp), Pig to 100 is won by the first player with probability 0.5306 (Neller and
Presser 2004) within 1e-4.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# name: (rule file, --set values, check)
ROWS = {
    "tictactoe": ("tictactoe.game", {}, {"positions": 5478, "value": 0}),
    "connect4-4x4": ("connect4.game", {}, {"positions": 161_029, "value": 0}),
    "connect4-5x4": ("connect4.game", {"columns": 5}, {"positions": 3_945_711, "value": 0}),
    "piglet-10": ("cyclic/piglet.game", {"goal": 10}, {}),
    "pig-20": ("cyclic/pig100.game", {"goal": 20}, {}),
    "pig100": ("cyclic/pig100.game", {}, {"win": 0.5306, "within": 1e-4}),
}
QUICK = ("tictactoe", "connect4-4x4", "piglet-10", "pig-20")


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_row(name: str) -> dict:
    sys.path.insert(0, str(ROOT))
    import gdl
    from gdl.graph import strong_solve

    path, params, check = ROWS[name]
    game = gdl.load(ROOT / "games" / path, params)
    started, wall = cpu(), time.perf_counter()
    solution = strong_solve(game)
    seconds = cpu() - started
    positions = len(solution.graph)
    value = solution.value(0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    row = {
        "name": name, "positions": positions, "method": solution.method, "exact": solution.exact,
        "value": str(value[0]) if value is not None else "draw",
        "value_float": float(value[0]) if value is not None else None,
        "cpu_seconds": round(seconds, 2), "wall_seconds": round(time.perf_counter() - wall, 2),
        "enumerate_seconds": round(solution.seconds["enumerate"], 2),
        "solve_seconds": round(solution.seconds["solve"], 2),
        "positions_per_second": round(positions / seconds),
        "bytes_per_position": round(peak / positions, 1),
        "note": solution.note,
    }
    interval = solution.interval(0)
    if interval is not None:   # certified bounds on player 0's value (not exact)
        row["interval_width"] = float(interval[0][1] - interval[0][0])
    if "positions" in check and positions != check["positions"]:
        raise SystemExit(f"{name}: {positions} positions, the literature says {check['positions']}")
    if "value" in check and value != (check["value"], -check["value"]):
        raise SystemExit(f"{name}: value {value}, the literature says {check['value']}")
    if "win" in check:
        win = (1 + float(value[0])) / 2
        row["first_player_wins"] = round(win, 6)
        if abs(win - check["win"]) > check["within"]:
            raise SystemExit(f"{name}: P(first player wins) {win}, the literature says "
                             f"{check['win']}")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=tuple(ROWS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--row", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.row:
        print(json.dumps(run_row(args.row)))
        return 0
    names = [args.only] if args.only else list(QUICK if args.quick else ROWS)
    print("| game | positions | method | root value (player 0) | enumerate s | solve s | "
          "positions/s (CPU) | peak RSS bytes/position |")
    print("|---|---:|---|---|---:|---:|---:|---:|")
    for name in names:
        done = subprocess.run([sys.executable, __file__, "--row", name], capture_output=True,
                              text=True)
        if done.returncode != 0:
            print(f"| {name} | failed: {done.stderr.strip().splitlines()[-1:]} |")
            continue
        row = json.loads(done.stdout)
        value = row["value"]
        if row.get("first_player_wins") is not None:
            value += f" (P(win) {row['first_player_wins']})"
        if not row["exact"]:
            value += " ≈"
        if row.get("interval_width") is not None:
            value += f" (certified interval {row['interval_width']:.1e} wide)"
        print(f"| {name} | {row['positions']:,} | {row['method']} | {value} | "
              f"{row['enumerate_seconds']} | {row['solve_seconds']} | "
              f"{row['positions_per_second']:,} | {row['bytes_per_position']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
