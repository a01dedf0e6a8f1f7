"""Sim, two ways (docs/language.md, "Writing fast rules"): games/sim.game keeps the fifteen lines
as a list of edges; the same rules written on a 6 x 6 matrix colour `line[a][b]` and `line[b][a]`
through an action over every pair, `colour(a in 0..5, b in 0..5) requires a < b ...`. Both are
solved with alpha-beta from the start (the second player wins: checked), alternately, in each back
end (natively, the whole search in C, as `gdl solve` runs it; a game the native tier cannot run
says why); the figure is the search's wall time, min of three (one run each in the interpreter,
which takes tens of seconds).

    python benchmarks/sim_layouts.py [--interpret]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import gdl
from gdl.solvers import solve
from gdl.tools.native_solve import solve_native

EDGES = (Path(__file__).resolve().parent.parent / "games" / "sim.game").read_text()

MATRIX = """
game "Sim on a matrix"
players Red, Blue
var line[6][6] in {none, Red, Blue} = none
var loser in {nobody, Red, Blue} = nobody
action colour(a in 0..5, b in 0..5)
    requires a < b and line[a][b] == none
    effect   if any c in 0..5: (c != a and c != b and line[a][c] == mover
                                and line[b][c] == mover) { loser = mover }
             line[a][b] = mover; line[b][a] = mover
terminal loser != nobody
utility Red = 1 if loser == Blue else -1
zero-sum
utility in -1..1
max-length 15
"""


def timed(game, backend: str) -> tuple[float, int]:
    started = time.perf_counter()
    # the native tier runs the whole search in C (as `gdl solve` does); the others, Python's
    result = (solve_native(game, "alphabeta") if backend == "native" else None) \
        or solve(game, "alphabeta")
    assert result.values == (-1, 1)
    return time.perf_counter() - started, result.stats.nodes


def main(argv: list[str]) -> None:
    backends = ["native", "compile"] + (["interpret"] if "--interpret" in argv else [])
    for backend in backends:
        games = {"edge list": gdl.loads(EDGES, backend=backend),
                 "matrix": gdl.loads(MATRIX, backend=backend)}
        notes = {name: getattr(game, "native_note", None) for name, game in games.items()}
        runs = 1 if backend == "interpret" else 3
        best = {name: float("inf") for name in games}
        nodes = {}
        for _ in range(runs):
            for name, game in games.items():
                seconds, nodes[name] = timed(game, backend)
                best[name] = min(best[name], seconds)
        for name in games:
            note = f"  ({notes[name]})" if notes[name] else ""
            print(f"{backend:>9} {name:>9}: {best[name]:7.2f} s, {nodes[name]:,} nodes, "
                  f"min of {runs}{note}")


if __name__ == "__main__":
    main(sys.argv[1:])
