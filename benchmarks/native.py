"""The goals of issue 16, measured side by side in one run: gdl's native and Python tiers against
the textbook references of ../shared/bench (hand-written Python and C, the yardstick the goals
are stated in).

    python benchmarks/native.py            # the table (about two minutes)
    python benchmarks/native.py --long     # also Connect Four 6x4 whole process (the reference
                                           # takes about 95 s) and the Python tier on 5x4 (the
                                           # optimal set, and the value alone as the reference)
    python benchmarks/native.py --bench DIR   # where the references are (default ../shared/bench)
    python benchmarks/native.py --only pig    # the Pig rows alone (about half a minute)
    python benchmarks/native.py --only c4     # Connect Four 5x4 on the Python tier alone
    python benchmarks/native.py --only native # the native search and playouts against the C

The references are copied to a temporary directory and built there (``make``, gcc -O2). Times
are CPU time, the median of ``--repeat`` runs on both sides, so other load on a shared machine
counts on neither: the Python references run once per process (the interpreter's start-up taken
off), gdl runs in this process (loading and compiling the rule file excluded, as the goals say,
except in the rows marked "whole process", which are wall-clock). The C references report their
CPU time per run the same way. ``ratio`` is reference Python time / gdl time, the number the
goals are written in; ``C`` is the same ratio for the hand-written C. Node counts are printed
next to each other: where the algorithms are the same they must be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from gdl.backends.load import load  # noqa: E402
from gdl.solvers import default_options, solve  # noqa: E402
from gdl.tools.native_solve import playouts, solve_native  # noqa: E402

GAMES = ROOT / "games"
# The `gdl` command as installed (the console script), else through the interpreter.
_SCRIPT = Path(sys.executable).parent / "gdl"
GDL = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "gdl"]


def child_cpu(argv: list[str]) -> tuple[float, str]:
    """CPU seconds (user + system) a child process used, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def reference(bench: Path, script: str, name: str, repeat: int) -> dict:
    """The textbook Python reference: its JSON line, with ``s_median`` replaced by the median
    CPU time of ``repeat`` single runs (one process each, the interpreter's start-up taken off),
    so that the load other users put on a shared machine counts on neither side."""
    bare = statistics.median(child_cpu([sys.executable, "-c", "pass"])[0] for _ in range(3))
    times, out = [], ""
    for _ in range(repeat):
        seconds, out = child_cpu([sys.executable, str(bench / "ref" / script), name, "--repeat",
                                  "1", "--warmup", "0"])
        times.append(max(seconds - bare, 1e-9))
    record = json.loads(out.strip().splitlines()[-1])
    record["s_median"] = statistics.median(times)
    return record


def c_reference(bench: Path, argv: list[str], repeat: int) -> dict:
    """The hand-written C: its JSON line, ``s_median`` replaced by CPU time per run (the
    program runs once to warm up, then ``repeat`` times)."""
    seconds, out = child_cpu([str(bench / "build" / argv[0]), *argv[1:]])
    record = json.loads(out.strip().splitlines()[-1])
    record["s_median"] = seconds / (repeat + 1)
    return record


def timed(fn, repeat: int) -> tuple[float, object]:
    """The median CPU time of ``repeat`` calls (this process), and the last result."""
    times, out = [], None
    for _ in range(repeat):
        started = time.process_time()
        out = fn()
        times.append(time.process_time() - started)
    return statistics.median(times), out


def whole_process(argv: list[str], env=None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, env=env)
    return time.perf_counter() - started


def row(rows, workload, ref_s, gdl_s, c_s=None, nodes="", goal=""):
    ratio = ref_s / gdl_s if gdl_s else float("nan")
    c_ratio = f"{ref_s / c_s:7.1f}x" if c_s else "      -"
    rows.append(f"{workload:<44} {ref_s:8.3f} {gdl_s:8.3f} {ratio:7.2f}x {c_ratio}  {goal:<14} {nodes}")


def pig_rows(bench: Path, rows: list[str], r: int) -> None:
    """Pig expectiminimax depth 8 (6 faces, win at 10): exact values, the same 665,626 nodes.
    The reference and gdl's two tiers run in turn, ``r`` times each, so load that comes and goes
    is spread over all three."""
    pig = load(GAMES / "pig.game", {"sides": 6, "winscore": 10, "horizon": 30}, backend="native")
    ref_s, native_s, python_s = [], [], []
    for _ in range(r):
        ref = reference(bench, "pig.py", "expectiminimax", 1)
        ref_s.append(ref["s_median"])
        seconds, native = timed(lambda: solve_native(pig, "expectiminimax", depth=8), 1)
        native_s.append(seconds)
        seconds, python = timed(lambda: solve(pig, "expectiminimax", depth=8), 1)
        python_s.append(seconds)
    ref_m = statistics.median(ref_s)
    row(rows, "Pig expectiminimax d8, native", ref_m, statistics.median(native_s), None,
        f"{ref['nodes']:,} / {native.stats.nodes:,}", ">=20 (5)")
    row(rows, "Pig expectiminimax d8, Python tier", ref_m, statistics.median(python_s), None,
        f"{ref['nodes']:,} / {python.stats.nodes:,}", ">=1 (0.5)")


def c4_python_rows(bench: Path, rows: list[str], r: int) -> None:
    """Connect Four 5x4 on the Python tier (the compiled rules, the Python alpha-beta): the value
    and the optimal set, and the value alone. The reference and gdl run in turn, ``r`` times
    each, so load that comes and goes is spread over both."""
    c4 = load(GAMES / "connect4.game", {"columns": 5, "rows": 4}, backend="native")
    value_only = replace(default_options(), optimal_set=False)
    ref_s, set_s, value_s = [], [], []
    for _ in range(r):
        ref = reference(bench, "connect4.py", "solve_5x4", 1)
        ref_s.append(ref["s_median"])
        seconds, with_set = timed(lambda: solve(c4, "alphabeta"), 1)
        set_s.append(seconds)
        seconds, alone = timed(lambda: solve(c4, "alphabeta", options=value_only), 1)
        value_s.append(seconds)
    ref_m = statistics.median(ref_s)
    row(rows, "Connect Four 5x4 solve, Python tier", ref_m, statistics.median(set_s), None,
        f"{ref['nodes']:,} / {with_set.stats.nodes:,}", ">=1.5 (1.0)")
    row(rows, "Connect Four 5x4 value only, Python tier", ref_m, statistics.median(value_s),
        None, f"{ref['nodes']:,} / {alone.stats.nodes:,}")


def native_c_rows(bench: Path, rows: list[str], r: int) -> None:
    """The native tier against the hand-written C (ref/c4.c): Connect Four 5x4 solved with the
    value and the optimal set (`gdl solve`), with the value alone (`--no-optimal-set`, the
    reference's own workload), and Connect Four 7x6 random playouts (time per ply). The C and
    gdl run in turn, ``r`` rounds of ``r`` runs each, so load that comes and goes is spread
    over both; the "C ratio" column is reference Python / C, and the last column gdl's time
    over the C's (the same work: per solve, per ply). ref/c4.c finds the value alone; the row
    "solve vs C with the set" compares `gdl solve` with benchmarks/reference/c4_set.c, the same
    C search whose root finds the exact optimal set as gdl's does (built here, gcc -O2)."""
    set_c = bench / "build" / "c4_set"
    subprocess.run(["gcc", "-O2", "-o", str(set_c), str(HERE / "reference" / "c4_set.c")],
                   check=True)
    c4 = load(GAMES / "connect4.game", {"columns": 5, "rows": 4}, backend="native")
    big = load(GAMES / "connect4.game", {"columns": 7, "rows": 6}, backend="native")
    value_only = replace(default_options(), optimal_set=False)
    ref_solve = reference(bench, "connect4.py", "solve_5x4", r)
    ref_play = reference(bench, "connect4.py", "playouts_7x6", r)
    c_solve, c_set, c_play, with_set, alone, plays = [], [], [], [], [], []
    count = 20_000
    for _ in range(r):
        c = c_reference(bench, ["c4_c", "solve", "5", "4", str(r)], r)
        c_solve.append(c["s_median"])
        c = c_reference(bench, ["c4_set", "5", "4", str(r)], r)
        c_set.append(c["s_median"])
        set_nodes = c["nodes"]
        c = c_reference(bench, ["c4_c", "playouts", "7", "6", "100000", str(r)], r)
        c_play.append(c["s_median"] / c["nodes"])
        seconds, found_set = timed(lambda: solve_native(c4, "alphabeta"), r)
        with_set.append(seconds)
        seconds, found_alone = timed(
            lambda: solve_native(c4, "alphabeta", options=value_only), r)
        alone.append(seconds)
        seconds, played = timed(lambda: playouts(big, count, seed=1), r)
        plays.append(seconds / played["plies"])
    ref_s = ref_solve["s_median"]
    c_s = statistics.median(c_solve)
    for name, times, found in (("Connect Four 5x4 solve, native", with_set, found_set),
                               ("Connect Four 5x4 value only, native", alone, found_alone)):
        gdl_s = statistics.median(times)
        row(rows, name, ref_s, gdl_s, c_s, f"{ref_solve['nodes']:,} / {found.stats.nodes:,}",
            f"{gdl_s / c_s:.2f}x C")
    gdl_s, c_set_s = statistics.median(with_set), statistics.median(c_set)
    row(rows, "Connect Four 5x4 solve vs C with the set", ref_s, gdl_s, c_set_s,
        f"{set_nodes:,} (C) / {found_set.stats.nodes:,}", f"{gdl_s / c_set_s:.2f}x C")
    per_ply = statistics.median(plays) * ref_play["nodes"]
    c_per_ply = statistics.median(c_play) * ref_play["nodes"]
    row(rows, "Connect Four 7x6 playouts, native (per ply)", ref_play["s_median"], per_ply,
        c_per_ply, f"{ref_play['nodes']:,} / {played['plies']:,} plies",
        f"{per_ply / c_per_ply:.2f}x C")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=str(ROOT.parent / "shared" / "bench"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--long", action="store_true")
    parser.add_argument("--only", choices=["pig", "c4", "native"],
                        help="only these rows (and no start-up or compile-time lines)")
    args = parser.parse_args(argv)
    source = Path(args.bench)
    if not (source / "ref" / "harness.py").exists():
        print(f"no references in {source} (--bench DIR)", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="gdl-bench-"))
    bench = scratch / "bench"
    shutil.copytree(source, bench, ignore=shutil.ignore_patterns("build"))
    subprocess.run(["make", "-s", "-C", str(bench)], check=True)
    r = args.repeat
    rows = [f"{'workload':<44} {'ref py s':>8} {'gdl s':>8} {'ratio':>8} {'C ratio':>8}  "
            f"{'goal (bar)':<14} nodes (ref / gdl)"]
    if args.only is not None:
        only = {"pig": pig_rows, "c4": c4_python_rows, "native": native_c_rows}[args.only]
        only(bench, rows, r)
        print("\n".join(rows))
        shutil.rmtree(scratch, ignore_errors=True)
        return 0

    # tic-tac-toe, full minimax: the same 549,946 nodes on every side
    ttt = load(GAMES / "tictactoe.game", backend="native")
    ref = reference(bench, "ttt.py", "minimax", r)
    c = c_reference(bench, ["ttt_c", "minimax", str(r)], r)
    native_s, found = timed(lambda: solve_native(ttt, "minimax"), r)
    row(rows, "tic-tac-toe minimax, native", ref["s_median"], native_s, c["s_median"],
        f"{ref['nodes']:,} / {found.stats.nodes:,}", ">=30 (20)")
    python_s, found = timed(lambda: solve(ttt, "minimax"), r)
    row(rows, "tic-tac-toe minimax, Python tier", ref["s_median"], python_s, None,
        f"{ref['nodes']:,} / {found.stats.nodes:,}")

    # Connect Four 5x4: gdl solve (value and the optimal set), start-up excluded
    c4 = load(GAMES / "connect4.game", {"columns": 5, "rows": 4}, backend="native")
    ref = reference(bench, "connect4.py", "solve_5x4", 1)
    c = c_reference(bench, ["c4_c", "solve", "5", "4", str(r)], r)
    native_s, found = timed(lambda: solve_native(c4, "alphabeta"), r)
    row(rows, "Connect Four 5x4 solve, native", ref["s_median"], native_s, c["s_median"],
        f"{ref['nodes']:,} / {found.stats.nodes:,}", ">=25 (10)")
    if args.long:   # the value alone is the reference's own workload (gdl solve --no-optimal-set)
        c4_python_rows(bench, rows, r)

    # Connect Four 7x6 random playouts: plies per second (the generators differ, so the
    # playouts do; the ratio is of time per ply)
    big = load(GAMES / "connect4.game", {"columns": 7, "rows": 6}, backend="native")
    ref = reference(bench, "connect4.py", "playouts_7x6", r)
    c = c_reference(bench, ["c4_c", "playouts", "7", "6", "100000", str(r)], r)
    count = 20_000
    native_s, found = timed(lambda: playouts(big, count, seed=1), r)
    per_ply = native_s / found["plies"] * ref["nodes"]
    row(rows, "Connect Four 7x6 playouts, native (per ply)", ref["s_median"], per_ply,
        c["s_median"] / c["nodes"] * ref["nodes"], f"{ref['nodes']:,} / {found['plies']:,}",
        ">=200 (50)")

    pig_rows(bench, rows, r)

    # Pig Star2 depth 8 (the algorithm `gdl solve games/pig.game` chooses), native against the
    # Python tier: no textbook reference runs Star2, so here the "ref" column is gdl's own Python
    # tier (the same search, the same nodes). Its own game object, so the rows above stay as
    # they are.
    star_pig = load(GAMES / "pig.game", {"sides": 6, "winscore": 10, "horizon": 30},
                    backend="native")
    native_s, fast = timed(lambda: solve_native(star_pig, "star2", depth=8), r)
    python_s, slow = timed(lambda: solve(star_pig, "star2", depth=8), r)
    row(rows, "Pig Star2 d8, native vs Python tier", python_s, native_s, None,
        f"{slow.stats.nodes:,} / {fast.stats.nodes:,}", "(same nodes)")

    if args.long:   # Connect Four 6x4, whole process on every side
        started = time.perf_counter()
        # (connect4.py names no 6x4 bench: the same solve, called directly)
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "import connect4; connect4.solve(connect4.ConnectFour(6, 4))()",
                        str(bench / "ref")], capture_output=True, check=True)
        ref_s = time.perf_counter() - started
        c_s = whole_process([str(bench / "build" / "c4_c"), "solve", "6", "4", "1"])
        gdl_s = whole_process([*GDL, "solve", str(GAMES / "connect4.game"),
                               "--set", "columns=6", "--set", "rows=4"])
        row(rows, "Connect Four 6x4 gdl solve, whole process", ref_s, gdl_s, c_s, "", ">=30 (10)")

    # Start-up: `gdl solve games/tictactoe.game` against `python -c pass`
    gdl_cmd = [*GDL, "solve", str(GAMES / "tictactoe.game")]
    bare = statistics.median(whole_process([sys.executable, "-c", "pass"]) for _ in range(5))
    hit = statistics.median(whole_process(gdl_cmd) for _ in range(5))
    fresh_env = dict(os.environ, XDG_CACHE_HOME=str(scratch / "cache"))
    first = whole_process(gdl_cmd, fresh_env)
    compile_hit = statistics.median(whole_process(gdl_cmd + ["--backend", "compile"])
                                    for _ in range(5))
    rows.append("")
    rows.append(f"start-up, gdl solve games/tictactoe.game: cache hit {hit:.2f} s "
                f"({hit / bare:.1f}x python -c pass, {bare:.2f} s); --backend compile {compile_hit:.2f} s "
                f"({compile_hit / bare:.1f}x); first load {first:.2f} s")

    # Native compile time per bundled game (a fresh cache each)
    from gdl.backends.native.build import library_for
    from gdl.backends.native.emit import Unsupported, generate

    times = []
    for path in sorted(GAMES.glob("*.game")):
        game = load(path)
        try:
            c_source = generate(game.ir, path.name)
        except (Unsupported, AttributeError):
            continue
        os.environ["XDG_CACHE_HOME"] = str(scratch / f"cache-{path.stem}")
        started = time.perf_counter()
        library_for(c_source)
        times.append(f"{path.stem} {time.perf_counter() - started:.2f} s")
    rows.append("native compile (gcc -O2) per bundled game: " + ", ".join(times))
    print("\n".join(rows))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
