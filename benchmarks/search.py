"""Node counts of gdl's search techniques on the bundled games.

    python benchmarks/search.py            # the full table (about two minutes)
    python benchmarks/search.py --quick    # tic-tac-toe, Connect Four 4x4 and Hexapawn only
    python benchmarks/search.py --markdown # the same tables as Markdown (benchmarks/README-search.md)

Every row solves each game exactly (no depth limit, no budget) from the rule files in games/,
built with the default backend; the point is the number of nodes searched, which does not depend
on the machine (states hash the same in every process, so the counts are reproducible); the times
are wall-clock seconds of one run and only indicative. Every run must find the published value
(../shared/FACTS.md: tic-tac-toe and Connect Four 4x4 and 5x4 are draws, Hexapawn is a win for
the second player) and, except the "value only" rows, the exact set of optimal first moves: the
script stops otherwise.

The "ladder" adds one technique at a time (minimax, alpha-beta, + transposition table, + move
ordering, + iterative deepening, ...). Alpha-beta's root proves the whole *set* of optimal
actions, which costs more than finding one (every tied first move of a drawn game must be shown
to draw); the "value only" rows run the bare fail-soft search from the root (``Engine.search``),
which is what a textbook alpha-beta counts. The "variations" are single changes to the combination
``solve()`` uses by default (gdl.solvers.default_options), whose choice they justify.

Tic-tac-toe and Hexapawn declare no evaluation, so ordering there is only the table's move, and
iterative deepening and aspiration windows are off (without an evaluation there is nothing to stop
a shallow iteration with). Connect Four's evaluation (games/connect4.game) orders moves centre
first.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402
from gdl.solvers import default_options  # noqa: E402
from gdl.solvers.alphabeta import Budget, Engine, SearchOptions, SearchStopped, alphabeta  # noqa: E402
from gdl.solvers.minimax import minimax  # noqa: E402

GAMES = ROOT / "games"
MINIMAX_CAP = 2_000_000      # run plain minimax only on trees up to this many nodes
NODE_CAP = 5_000_000         # stop a search without ordering or deepening after this many nodes

O = SearchOptions
PLAIN = O()
TT = O(tt=True)
TT_ORD = O(tt=True, ordering=True)
TT_ORD_ID = replace(TT_ORD, iterative_deepening=True)
TT_ORD_ID_ASP = replace(TT_ORD_ID, aspiration=True)
TT_ORD_ID_ASP_PVS = replace(TT_ORD_ID_ASP, pvs=True)
TT_ORD_ID_ASP_PVS_K = replace(TT_ORD_ID_ASP_PVS, killers=True)
ALL = replace(TT_ORD_ID_ASP_PVS_K, history=True, quiescence=True)   # == SearchOptions.engine()
DEFAULT = default_options()

# (label, kind, options); kind: "minimax", "root" (alphabeta: the exact set of optimal actions),
# "value" (Engine.search: the root value only)
LADDER = [
    ("minimax", "minimax", None),
    ("alpha-beta", "root", PLAIN),
    (" + transposition table", "root", TT),
    (" + ordering", "root", TT_ORD),
    (" + iterative deepening", "root", TT_ORD_ID),
    (" + aspiration windows", "root", TT_ORD_ID_ASP),
    (" + PVS", "root", TT_ORD_ID_ASP_PVS),
    (" + killers", "root", TT_ORD_ID_ASP_PVS_K),
    (" + history (= engine(), all on)", "root", ALL),
]
VARIATIONS = [
    ("default (solve)", "root", DEFAULT),
    ("TT + ordering", "root", TT_ORD),
    ("TT + ordering + PVS", "root", replace(TT_ORD, pvs=True)),
    ("TT + ordering + killers", "root", replace(TT_ORD, killers=True)),
    ("TT + ordering + history", "root", replace(TT_ORD, history=True)),
    ("TT + ordering + killers + history", "root", replace(TT_ORD, killers=True, history=True)),
    ("engine() without ID/aspiration", "root", O.engine(iterative_deepening=False,
                                                         aspiration=False)),
    ("engine()", "root", O.engine()),
    ("value only: alpha-beta", "value", PLAIN),
    ("value only: TT", "value", TT),
    ("value only: TT + ordering", "value", TT_ORD),
    ("value only: default", "value", DEFAULT),
]


class Workload:
    def __init__(self, label, file, params, value, best=None, minimax_reason=None):
        self.label, self.value, self.best = label, value, best
        self.game = gdl.load(GAMES / file, params)
        self.minimax_reason = minimax_reason


def workloads(quick: bool) -> list[Workload]:
    out = [
        # FACTS.md: a draw, and every first move draws.
        Workload("tic-tac-toe", "tictactoe.game", None, 0,
                 best=[f"place({r},{c})" for r in range(3) for c in range(3)]),
        # Tromp: 4x4 and 5x4 are draws.
        Workload("Connect Four 4x4", "connect4.game", {"columns": 4, "rows": 4}, 0,
                 minimax_reason="tree of {nodes:,} nodes (gdl count)"),
        Workload("Connect Four 5x4", "connect4.game", {"columns": 5, "rows": 4}, 0,
                 minimax_reason="tree far larger than 4x4's"),
        # Gardner: the second player (Black) wins, so every first move loses for White.
        Workload("Hexapawn", "hexapawn.game", None, -1,
                 best=["advance(0,0)", "advance(0,1)", "advance(0,2)"]),
    ]
    if quick:
        out = [w for w in out if w.label != "Connect Four 5x4"]
    return out


class NoEvaluation:
    """The game without its evaluation. Used for runs that never read it (no ordering, no
    deepening), so that a node budget stops them instead of turning iterative deepening on."""

    def __init__(self, game):
        self._game = game
        self.info = replace(game.info, has_evaluate=False)

    def __getattr__(self, name):
        return getattr(self._game, name)


def run(w: Workload, kind: str, options) -> tuple[int | None, float | None, str]:
    """(nodes, seconds, note); nodes None when the row is skipped (note says why)."""
    game = w.game
    if kind == "minimax":
        if w.minimax_reason is not None:
            if "{nodes" in w.minimax_reason:
                from gdl.tools.count import count

                nodes = count(game).nodes
                if nodes <= MINIMAX_CAP:
                    w.minimax_reason = None
                else:
                    return None, None, w.minimax_reason.format(nodes=nodes)
            else:
                return None, None, w.minimax_reason
    started = time.perf_counter()
    if kind == "minimax":
        r = minimax(game)
        nodes, value, best = r.stats.nodes, r.values[0], None
    elif kind == "value":
        capped = not (options.ordering or options.iterative_deepening)
        engine = Engine(NoEvaluation(game) if capped else game, options,
                        node_limit=NODE_CAP if capped else None)
        engine.arm(capped)          # check the node limit (a bare Engine does not by itself)
        try:
            value = engine.search(game.initial_state())
        except Exception as stop:   # the engine's private _Stop: the node limit was reached
            if type(stop).__name__ != "_Stop":
                raise
            return None, None, f"stopped after {NODE_CAP:,} nodes"
        nodes, best = engine.stats().nodes, None
    else:
        capped = not (options.ordering or options.iterative_deepening)
        try:
            if capped:
                r = alphabeta(NoEvaluation(game), options=options, budget=Budget(nodes=NODE_CAP))
            else:
                r = alphabeta(game, options=options)
        except SearchStopped:
            return None, None, f"stopped after {NODE_CAP:,} nodes"
        nodes, value = r.stats.nodes, r.values[0]
        best = [game.action_name(a) for a in r.best_actions]
    seconds = time.perf_counter() - started
    if value != w.value:
        sys.exit(f"{w.label}: value {value}, expected {w.value}")
    if kind == "root" and w.best is not None and best != w.best:
        sys.exit(f"{w.label}: optimal first moves {best}, expected {w.best}")
    return nodes, seconds, ""


def table(title, rows, loads, results, markdown: bool) -> list[str]:
    head = ["technique"] + [w.label for w in loads]
    body = []
    for label, _, _ in rows:
        line = [label.strip() if markdown else label]
        for w in loads:
            nodes, seconds, _ = results[label, w.label]
            line.append("—" if nodes is None else f"{nodes:,} ({seconds:.2f} s)")
        body.append(line)
    if markdown:
        out = [f"**{title}** (nodes, and seconds of one run)", "",
               "| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * len(loads)]
        out += ["| " + " | ".join(line) + " |" for line in body]
    else:
        widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
        fmt = lambda r: "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                                  for i, c in enumerate(r))
        out = [title, fmt(head), fmt(["-" * x for x in widths])] + [fmt(r) for r in body]
    notes = [f"{label.strip()} on {w}: {results[label, w][2]}"
             for label, _, _ in rows for w in [x.label for x in loads] if results[label, w][2]]
    if notes:
        out += [""] + [("- " if markdown else "  ") + n for n in notes]
    return out + [""]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="skip Connect Four 5x4 (the longest workload)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args(argv)
    loads = workloads(args.quick)
    results = {}
    for rows in (LADDER, VARIATIONS):
        for label, kind, options in rows:
            for w in loads:
                if (label, w.label) not in results:
                    results[label, w.label] = run(w, kind, options)
                    print(f"  {label.strip()} / {w.label}: {results[label, w.label][0]}",
                          file=sys.stderr, flush=True)
    print("\n".join(table("Adding one technique at a time", LADDER, loads, results, args.markdown)))
    print("\n".join(table("Variations", VARIATIONS, loads, results, args.markdown)))
    print(f"default options (gdl.solvers.default_options()): {DEFAULT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
