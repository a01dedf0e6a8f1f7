"""What a KIF game costs against the same game written in gdl's language.

    python benchmarks/kif_speed.py                      # tic-tac-toe, ours and the .game
    python benchmarks/kif_speed.py --kif PATH/ticTacToe.kif   # a corpus file too
    python benchmarks/kif_speed.py --repeat 5

For each rule file it measures, best of ``--repeat`` runs:

- the per-state cost of a full minimax search (549,946 nodes on tic-tac-toe, no table), on the
  native tier and on the compiled Python tier: seconds per node, and the ratio to the .game;
- ``gdl solve FILE --strong`` as a whole process (start-up, reading, translation, building,
  enumerating and solving every position): wall seconds, and the positions it reports.
- for a KIF file, the plain Datalog interpreter (the reference): minimax after three moves, per
  node.

Wall times on a machine that may be shared: take the best of several runs, and compare ratios
measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GDL = [sys.executable, "-m", "gdl"]


def search(path: str, backend: str, repeat: int) -> tuple[int, float]:
    """(nodes, best seconds) of `gdl solve FILE --algorithm minimax` in this process (the first
    run builds the game, and is not counted)."""
    import contextlib
    import io

    from gdl.cli import main

    best, nodes = float("inf"), 0
    argv = ["solve", path, "--algorithm", "minimax", "--json", "--backend", backend]
    for run in range(repeat + 1):
        output = io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(io.StringIO()):
            main(argv)
        if run:
            document = json.loads(output.getvalue())
            nodes = document["stats"]["nodes"]
            best = min(best, document["stats"]["seconds"])
    return nodes, best


def interpreted(path: str, plies: int = 3) -> tuple[int, float]:
    """(nodes, seconds) of a minimax search by the Datalog interpreter, from the position after
    the first legal move ``plies`` times (the whole game would take minutes)."""
    import gdl
    from gdl.solvers import solve

    game = gdl.load(path, backend="interpret")
    state = game.initial_state()
    for _ in range(plies):
        state = game.apply(state, game.legal_actions(state)[0])
    started = time.perf_counter()
    result = solve(game, "maxn", root_state=state, shallow_pruning=False)   # no sum declared
    return result.stats.nodes, time.perf_counter() - started


def whole_solve(path: str, repeat: int) -> tuple[int, float]:
    """(positions, best wall seconds) of `gdl solve FILE --strong --json` as a process."""
    best, positions = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(GDL + ["solve", path, "--strong", "--json"], capture_output=True,
                              text=True, cwd=ROOT, check=True)
        best = min(best, time.perf_counter() - started)
        positions = json.loads(done.stdout)["census"]["positions"]
    return positions, best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kif", nargs="*", default=[], help="more KIF files of tic-tac-toe")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    files = [str(ROOT / "games" / "tictactoe.game"), str(ROOT / "tests" / "data" / "kif" /
                                                         "tictactoe.kif")] + args.kif
    reference: dict[str, float] = {}
    print(f"{'file':58s} {'tier':9s} {'nodes':>9s} {'us/node':>8s} {'ratio':>6s}")
    for path in files:
        for backend in ("native", "compile"):
            nodes, seconds = search(path, backend, args.repeat)
            per = seconds / nodes * 1e6
            reference.setdefault(backend, per)
            print(f"{Path(path).name:58s} {backend:9s} {nodes:9,d} {per:8.3f} "
                  f"{per / reference[backend]:6.2f}", flush=True)
    for path in files[1:]:
        nodes, seconds = interpreted(path)
        print(f"{Path(path).name:58s} {'interpret':9s} {nodes:9,d} {seconds / nodes * 1e6:8.1f}   "
              "(the Datalog interpreter, after 3 moves)", flush=True)
    print()
    for path in files:
        positions, seconds = whole_solve(path, args.repeat)
        print(f"gdl solve {Path(path).name} --strong: {positions:,} positions, {seconds:.2f} s "
              "wall, the whole process", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
