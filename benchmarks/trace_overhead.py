"""What the trace switch costs the searches when it is off: the Python tier's tree searches timed
on bundled games, to compare two checkouts side by side (before and after a change to the
solvers).

    python benchmarks/trace_overhead.py                      # this checkout, 5 rounds
    PYTHONPATH=/path/to/other/checkout python benchmarks/trace_overhead.py --rounds 5

Each workload runs ``--rounds`` times in this process and its fastest time is printed with its
node count (which must not differ between checkouts: the search is the same): CPU seconds of the
process (the searches run in a worker thread; CPU time is less disturbed than the wall clock by
other work on a shared machine). No trace is given, so the figures measure the cost of the switch
alone. Run the two checkouts one after the other, several times, and compare the fastest
figures: a single run can be off by several per cent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


def workloads():
    import gdl
    from gdl.solvers import default_options
    from gdl.solvers.alphabeta import SearchOptions, alphabeta
    from gdl.solvers.expectiminimax import expectiminimax
    from gdl.solvers.maxn import maxn
    from gdl.solvers.minimax import minimax
    from gdl.solvers.paranoid import paranoid
    from gdl.solvers.star import star1, star2

    def load(name, **params):
        return gdl.load(GAMES / name, params or None, backend="compile")

    ttt = load("tictactoe.game")
    c4 = load("connect4.game", columns=4, rows=4)
    pig = load("pig.game")
    race = load("dice-race.game")
    take = load("takeaway3.game", counters=24)
    return [
        ("minimax tic-tac-toe", lambda: minimax(ttt)),
        ("alphabeta plain tic-tac-toe", lambda: alphabeta(ttt, options=SearchOptions())),
        ("alphabeta default C4 4x4", lambda: alphabeta(c4, options=default_options())),
        ("expectiminimax pig depth 9", lambda: expectiminimax(pig, depth=9)),
        ("star1 dice-race depth 6", lambda: star1(race, depth=6)),
        ("star2 dice-race depth 6", lambda: star2(race, depth=6)),
        ("maxn shallow take-away 24", lambda: maxn(take, shallow_pruning=True)),
        ("paranoid take-away 24", lambda: paranoid(take, 0)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", help="run the workloads whose name contains this text")
    args = parser.parse_args()
    import gdl

    print(f"gdl from {Path(gdl.__file__).parent}", file=sys.stderr)
    for name, run in workloads():
        if args.only and args.only not in name:
            continue
        best = float("inf")
        nodes = None
        for _ in range(args.rounds):
            started = time.process_time()
            result = run()
            best = min(best, time.process_time() - started)
            nodes = result.stats.nodes
        print(f"{name:32} {nodes:>10,} nodes  {best * 1000:9.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
