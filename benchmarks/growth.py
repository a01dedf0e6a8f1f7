"""How a whole `gdl solve --strong` grows with the game, against hand-written C (issue 29, item 5).

    python benchmarks/growth.py                        # the README's growth table (about 25 min:
                                                       # Connect Four 7x4 takes 11 CPU min in gdl)
    python benchmarks/growth.py --only c4-5x4 c4-6x4   # some rows
    python benchmarks/growth.py --list                 # the rows there are

Each row runs the command line as a user does, `gdl solve FILE --set ... --strong --json`, in a
child process, after one untimed load of the same rules (so the C compile of the rules, which the
per-user cache keeps, is not in the figures). The child's CPU seconds (user + system) and peak
resident memory come from the kernel's accounting of that process (wait4, through the small
launcher benchmarks/reference/measure.c, whose docstring says why not from Python's own fork,
which would add this script's memory to a child's peak), so they cover the
interpreter, the libraries, the layout and every pass: *positions/s* is positions per CPU second
of the whole process, *bytes/position* its peak RSS over the positions.

Beside each Connect Four row, in the same run, two hand-written C strong solvers (gcc -O2, as
gdl's own C; values only, no remoteness) are measured the same way:
benchmarks/reference/c4_tiers.c, a tier of t discs at a time over a dense rank of the board
(column heights, then which discs are the first player's: a bit a slot reached, 2 bits a slot
of value), the yardstick of the ratios; and benchmarks/reference/c4_strong.c, a depth-first
search over one 2-bit table indexed by the whole board's mixed-radix rank (its reads miss the
cache once the table outgrows it). There is no hand-written strong solver of Pig (the
references in /work/shared/bench/ref are searches to a depth), so its rows have none.

The counts are checked (the script stops otherwise): Connect Four 4x4, 5x4, 6x4 and 5x5 have
161,029 / 3,945,711 / 94,910,577 / 69,763,700 positions (FACTS: Tromp; 7x4's count, which FACTS
does not give, must be the C solver's), gdl's value of the start must be the C solver's, and Pig
to 100 must be won by the first player with probability 0.5306 within 1e-4 (Neller and Presser
2004). The fitted growth is the slope of log(CPU s) and of log(peak bytes) against
log(positions) over a family's rows of at least FIT_FROM positions (all
its rows where fewer than two are that large): 1 is linear.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GDL = [sys.executable, "-m", "gdl"]
MEASURE = Path("measure")           # the measuring program, built by main()

# name: (family, rule file, --set values, positions (literature) or None, C solver arguments)
ROWS = {
    "c4-4x4": ("Connect Four", "connect4.game", {"columns": 4, "rows": 4}, 161_029, (4, 4)),
    "c4-5x4": ("Connect Four", "connect4.game", {"columns": 5, "rows": 4}, 3_945_711, (5, 4)),
    "c4-6x4": ("Connect Four", "connect4.game", {"columns": 6, "rows": 4}, 94_910_577, (6, 4)),
    "c4-5x5": ("Connect Four", "connect4.game", {"columns": 5, "rows": 5}, 69_763_700, (5, 5)),
    "c4-7x4": ("Connect Four", "connect4.game", {"columns": 7, "rows": 4}, None, (7, 4)),
    "pig-20": ("Pig", "cyclic/pig100.game", {"goal": 20}, None, None),
    "pig-50": ("Pig", "cyclic/pig100.game", {"goal": 50}, None, None),
    "pig-100": ("Pig", "cyclic/pig100.game", {"goal": 100}, None, None),
}
DEFAULT = ("c4-4x4", "c4-5x4", "c4-6x4", "c4-5x5", "c4-7x4", "pig-20", "pig-50", "pig-100")
FIT_FROM = 1_000_000
# The hand-written C solvers of Connect Four (benchmarks/reference/NAME.c), the first the
# yardstick of the ratios: a tier at a time over dense ranks; a depth-first search over one
# table of the whole board's rank.
REFERENCES = {"c4_tiers": "C tiers", "c4_strong": "C DFS"}
# Rows a reference does not run: c4_strong's one table of the whole board's rank would be
# 31^7 slots on 7 x 4 (6.9 GB, read at random), so 7 x 4 is measured against c4_tiers only.
SKIP = {"c4-7x4": {"c4_strong"}}
# P(first player wins) from the literature (Neller and Presser 2004: 0.5306), within 1e-4
FIRST_WINS = {"pig-100": 0.5306}


def raise_if(code: int, command: list[str], err: bytes) -> None:
    if code:
        raise SystemExit(f"{' '.join(command)} exited {code}:\n{err.decode()[-2000:]}")


def run(command: list[str]) -> tuple[str, float, int, float]:
    """Run ``command`` in a child process of the measuring program (benchmarks/reference/
    measure.c: fork, exec, wait4); its stdout, CPU seconds (its own and its waited-for
    children's, user + system), peak RSS in bytes, and wall seconds."""
    started = time.perf_counter()
    done = subprocess.run([str(MEASURE), *command], capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - started
    raise_if(done.returncode, command, done.stderr)
    line = [x for x in done.stderr.decode().splitlines() if x.startswith("MEASURE ")][-1]
    user, system, peak_kb, _ = line.split()[1:]
    return done.stdout.decode(), float(user) + float(system), int(peak_kb) * 1024, wall


def gdl_row(name: str) -> dict:
    family, path, params, expected, _ = ROWS[name]
    sets = [arg for key, value in params.items() for arg in ("--set", f"{key}={value}")]
    rules = str(ROOT / "games" / path)
    # untimed: load the rules once, so their C is compiled and cached before the timed run
    subprocess.run([sys.executable, "-c",
                    "import sys, json; from pathlib import Path; from gdl.backends.load import load; "
                    "load(Path(sys.argv[1]), json.loads(sys.argv[2]), 'native')",
                    rules, json.dumps(params)], check=True, cwd=ROOT)
    text, cpu, peak, wall = run([*GDL, "solve", rules, *sets, "--strong", "--json"])
    document = json.loads(text)
    positions = document.get("positions") or document["census"]["positions"]
    if expected is not None and positions != expected:
        raise SystemExit(f"{name}: {positions:,} positions, the literature says {expected:,}")
    first = next(iter(document["values"].values())) if document.get("values") else None
    if name in FIRST_WINS:
        chance = (1 + float(Fraction(first))) / 2      # utilities +1 / -1
        if abs(chance - FIRST_WINS[name]) > 1e-4:
            raise SystemExit(f"{name}: P(first player wins) {chance}, the literature says "
                             f"{FIRST_WINS[name]}")
    method = document["algorithm"] + ("" if document.get("exact", True) else " (not exact)")
    if document.get("keys") == "ranked":
        method += ", ranked tables"
    elif "tiers" in document:
        method += f", {document['tiers']} tiers on {document.get('keys')} keys"
    else:
        method += f", position graph ({document.get('enumeration')} walk)"
    return {"name": name, "family": family, "positions": positions, "value": first,
            "method": method, "cpu": cpu, "peak": peak, "wall": wall}


def c_row(name: str, binary: Path) -> dict | None:
    arguments = ROWS[name][4]
    if arguments is None:
        return None
    text, cpu, peak, wall = run([str(binary), *map(str, arguments)])
    document = json.loads(text)
    return {"positions": document["positions"], "value": document["value"], "cpu": cpu,
            "peak": peak, "wall": wall}


def build(directory: Path, name: str) -> Path:
    """benchmarks/reference/NAME.c built with gcc -O2 into ``directory``."""
    binary = directory / name
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(HERE / "reference" / f"{name}.c")],
                   check=True)
    return binary


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log y against log x."""
    if len(points) < 2:
        return None
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else None


def fmt_rate(positions: int, cpu: float) -> str:
    return f"{positions / cpu / 1e6:.2f} M" if cpu > 0 else "—"


def table(rows: list[tuple[dict, dict]]) -> str:
    """The growth table: per row, gdl, then each C solver (columns "—" where it has none), and
    gdl's ratios to the first C solver; then the fitted growth per family."""
    header = "| game | positions | gdl: how | gdl CPU s | gdl positions/s | gdl peak B/position "
    for label in REFERENCES.values():
        header += f"| {label} CPU s | {label} positions/s | {label} peak B/position "
    first = next(iter(REFERENCES.values()))
    header += f"| CPU gdl / {first} | memory gdl / {first} |"
    lines = [header, "|---|---:|---|" + "---:|" * (3 + 3 * len(REFERENCES) + 2)]
    for g, refs in rows:
        n = g["positions"]
        cells = [g["name"], f"{n:,}", g["method"], f"{g['cpu']:.2f}", fmt_rate(n, g["cpu"]),
                 f"{g['peak'] / n:.1f}"]
        for name in REFERENCES:
            c = refs.get(name)
            cells += ["—"] * 3 if c is None else [f"{c['cpu']:.2f}", fmt_rate(n, c["cpu"]),
                                                   f"{c['peak'] / n:.2f}"]
        c = refs.get(next(iter(REFERENCES)))
        cells += ["—"] * 2 if c is None or c["cpu"] <= 0 else [
            f"{g['cpu'] / c['cpu']:.1f}×", f"{g['peak'] / c['peak']:.1f}×"]
        lines.append("| " + " | ".join(cells) + " |")
    fits = []
    for family in dict.fromkeys(g["family"] for g, _ in rows):
        mine = [(g, refs) for g, refs in rows if g["family"] == family]
        # small rows measure the interpreter's fixed cost (about 0.2 s, 45 MB): fit the rows
        # past FIT_FROM positions where there are two
        large = [(g, refs) for g, refs in mine if g["positions"] >= FIT_FROM]
        fitted = large if len(large) >= 2 else mine
        if len(fitted) < 2:
            continue
        parts = [fit("gdl", [(g["positions"], g) for g, _ in fitted])]
        for name, label in REFERENCES.items():
            theirs = [(g["positions"], refs[name]) for g, refs in fitted if name in refs]
            if len(theirs) >= 2:
                parts.append(fit(label, theirs))
        fits.append(f"- {family}, fitted over {', '.join(g['name'] for g, _ in fitted)}: "
                    + "; ".join(parts))
    return "\n".join(lines + ([""] + fits if fits else []))


def fit(label: str, points: list[tuple[int, dict]]) -> str:
    cpu = slope([(n, m["cpu"]) for n, m in points])
    peak = slope([(n, m["peak"]) for n, m in points])
    return f"{label} CPU ∝ positions^{cpu:.2f}, peak RSS ∝ positions^{peak:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(ROWS), help="these rows")
    parser.add_argument("--list", action="store_true", help="list the rows and stop")
    args = parser.parse_args()
    if args.list:
        for name, (family, path, params, _, _) in ROWS.items():
            print(f"{name:8} {family}: games/{path} {params}")
        return 0
    names = args.only or DEFAULT
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        global MEASURE
        MEASURE = build(Path(directory), "measure")
        binaries = {name: build(Path(directory), name) for name in REFERENCES}
        for name in names:
            g = gdl_row(name)
            refs = {}
            for reference, binary in binaries.items():
                if reference in SKIP.get(name, ()):
                    continue
                c = c_row(name, binary)
                if c is None:
                    continue
                if c["positions"] != g["positions"]:
                    raise SystemExit(f"{name}: gdl {g['positions']:,} positions, {reference} "
                                     f"{c['positions']:,}")
                if g["value"] is not None and Fraction(g["value"]) != c["value"]:
                    raise SystemExit(f"{name}: gdl's value {g['value']}, {reference}'s "
                                     f"{c['value']}")
                refs[reference] = c
            rows.append((g, refs))
            print(json.dumps({"gdl": g, **refs}), file=sys.stderr, flush=True)
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the end, `python benchmarks/growth.py"
          + (f" --only {' '.join(names)}`" if args.only else "`"))
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
