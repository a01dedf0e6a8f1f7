"""Tanaka's census and solution of Dobutsu shogi from games/dobutsu.game (issue 29;
docs/dobutsu.md).

    python benchmarks/dobutsu_census.py                  # the census: 246,803,167 positions
    python benchmarks/dobutsu_census.py --solve          # and every position's value
    python benchmarks/dobutsu_census.py --solve --no-drops --against-gdl
    python benchmarks/dobutsu_census.py --walk 200000000  # gdl's own walk, up to a limit

gdl's own walk (`gdl solve --strong`) tells apart the player to move and a board's mirror image,
so it meets about four times the 246,803,167 positions Tanaka counted, more than its hash set
fits in on a 24 GB machine (docs/dobutsu.md). This script counts and solves them as he did, with
the rules gdl compiled from the rule file: it builds the native library of games/dobutsu.game,
checks that the state layout is the one the C walks in benchmarks/reference/ read, compiles one
(gcc -O2) and runs it over the library's gdl_graph_expand, every position turned to Sente to
move and folded with its mirror image: dobutsu_census.c counts, dobutsu_solve.c also values
every position by retrograde analysis (not gdl's solver: a reference, like c4_tiers.c).

It prints the counts beside Tanaka's and exits 1 if one differs. `--no-drops` takes the variant
without drops (`--set drops=false`: no published figures); `--against-gdl` also solves that
variant with gdl's own strong solver, folds its positions the same way (numpy) and checks that
every folded class has one value and one remoteness, the C walk's, and that the counts of won,
lost and drawn positions, the start's value and remoteness and the longest remoteness agree.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gdl  # noqa: E402

REFERENCE = ROOT / "benchmarks" / "reference"
# Tanaka (2009), section 3: reachable positions, of which the player to move can take the enemy
# lion, or has lost to a try; the rest are not over; and those won, lost and drawn for the
# player to move; the start is lost for Sente, the first player.
TANAKA = {"positions": 246_803_167, "terminal_win": 140_298_614, "terminal_loss": 7_018_985,
          "non_terminal": 99_485_568}
TANAKA_SOLVED = {"won": 56_474_473, "lost": 40_328_395, "drawn": 2_682_700, "start": "loss"}
SYMBOLS = ("empty", "SL", "SG", "SE", "SC", "SH", "GL", "GG", "GE", "GC", "GH")
BASE = (2,) + (11,) * 12 + (3,) * 6


def load(drops: bool):
    game = gdl.load(ROOT / "games" / "dobutsu.game", {"drops": drops}, backend="native")
    rules = game.ir
    cell, hand = rules.variables
    board = [rules.symbols[i] for i in cell.values]
    if ((rules.players, cell.slot, cell.size, hand.slot, hand.size) != (("Sente", "Gote"), 1, 12,
                                                                          13, 6)
            or tuple(board) != SYMBOLS or list(hand.values) != [0, 1, 2]):
        sys.exit("the state layout of games/dobutsu.game is not the one the C walks read")
    if tuple(game.native.graph_expander(game).codec.size) != BASE:
        sys.exit("the key layout of games/dobutsu.game is not the one the C walks read")
    return game


def run_walk(game, program: str, dump: str | None = None) -> dict:
    expander = game.native.graph_expander(game)
    root = expander.codec.encode(game.initial_state())
    extra = [dump] if dump else []
    with tempfile.TemporaryDirectory() as scratch:
        binary = os.path.join(scratch, program)
        subprocess.run(["gcc", "-O2", "-o", binary, str(REFERENCE / f"{program}.c"), "-ldl"],
                       check=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        out = subprocess.run([binary, game.native.library._name, str(root),
                              str(game.native.library.gdl_actions()), *extra],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found: dict = {}
    for line in out.splitlines():
        name, value = line.split()
        found[name] = value if not value.replace(".", "").isdigit() else (
            float(value) if "." in value else int(value))
    found["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    found["wall"] = wall
    found["peak_gb"] = after.ru_maxrss / 1e6
    return found


def canonical(keys: np.ndarray) -> np.ndarray:
    """The C walks' canonical key of each packed key (numpy): Sente to move, then the smaller
    of the board and its mirror image."""
    digits = np.empty((len(keys), len(BASE)), dtype=np.int64)
    rest = keys.astype(np.uint64)
    for i in range(len(BASE) - 1, -1, -1):
        digits[:, i] = (rest % np.uint64(BASE[i])).astype(np.int64)
        rest = rest // np.uint64(BASE[i])
    gote = digits[:, 0] == 1
    turned = digits.copy()
    board = digits[:, 1:13].reshape(-1, 4, 3)[:, ::-1, ::-1].reshape(-1, 12)
    swapped = np.where(board == 0, 0, np.where(board <= 5, board + 5, board - 5))
    turned[gote, 1:13] = swapped[gote]
    turned[gote, 13:16], turned[gote, 16:19] = digits[gote, 16:19], digits[gote, 13:16]
    turned[:, 0] = 0
    mirrored = turned.copy()
    mirrored[:, 1:13] = turned[:, 1:13].reshape(-1, 4, 3)[:, :, ::-1].reshape(-1, 12)

    def encode(d):
        key = np.zeros(len(d), dtype=np.uint64)
        for i, base in enumerate(BASE):
            key = key * np.uint64(base) + d[:, i].astype(np.uint64)
        return key

    return np.minimum(encode(turned), encode(mirrored))


def against_gdl(game, walked: dict, dump: str) -> int:
    """Solve ``game`` with gdl's strong solver and compare its folded classes with the C walk's
    answers, class by class (``dump``: the C walk's keys, values and remoteness), and its
    counts (see the module docstring). Returns the number of differences."""
    from gdl.graph import strong_solve
    from gdl.protocol import TERMINAL

    started = time.monotonic()
    solution = strong_solve(game)
    seconds = time.monotonic() - started
    graph, values = solution.graph, solution.values
    player = graph.player
    value, _ = values.decided()
    draw = values.draws()
    mine = np.sign(np.where(player == 1, -value, value))      # the mover's: -1, 0 (draw), 1
    mine[draw] = 0
    mine[player == TERMINAL] = 2                              # terminal: not counted below
    folded = canonical(np.asarray(graph.keys, dtype=np.uint64))
    order = np.argsort(folded, kind="stable")
    classes, starts = np.unique(folded[order], return_index=True)
    print(f"gdl: {len(graph):,} positions, {len(classes):,} folded classes, "
          f"{seconds:.1f} s")
    wrong = 0
    for name, column in (("value", mine), ("remoteness", values.remoteness)):
        by_class = column[order]
        first = np.repeat(by_class[starts], np.diff(np.append(starts, len(order))))
        if (by_class != first).any():
            print(f"  a folded class holds positions of different {name}: the symmetry fails")
            wrong += 1
    head = mine[order][starts]
    remote = values.remoteness[order][starts]
    root_class = np.searchsorted(classes, folded[0])
    gdl_counts = {"positions": len(classes), "won": int((head == 1).sum()),
                  "lost": int((head == -1).sum()), "drawn": int((head == 0).sum()),
                  "start": {1: "win", -1: "loss", 0: "draw"}[int(head[root_class])],
                  "start_remoteness": max(int(remote[root_class]), 0),
                  "longest": int(remote.max())}
    raw = np.fromfile(dump, dtype=np.uint8)
    n = len(raw) // 10
    c_keys = raw[:8 * n].view(np.uint64)
    c_value = raw[8 * n:9 * n].astype(np.int64)
    c_remote = raw[9 * n:].astype(np.int64)
    c_order = np.argsort(c_keys)
    c_value, c_remote = c_value[c_order], c_remote[c_order]
    if len(c_keys) != len(classes) or (c_keys[c_order] != classes).any():
        print("  the C walk's positions are not gdl's folded classes")
        return wrong + 1
    c_mine = np.select([c_value == 1, c_value == 2], [1, -1], 0)
    decided = head != 2                                       # not terminal
    mismatch = decided & ((c_mine != head) | (np.where(head == 0, 0, c_remote)
                                              != np.maximum(remote, 0)))
    print(f"  every non-terminal class: value and remoteness, gdl against the C walk: "
          f"{int(mismatch.sum()):,} differ of {int(decided.sum()):,}")
    wrong += int(mismatch.any())
    for name, got in gdl_counts.items():
        mark = "ok" if walked[name] == got else "DIFFERS"
        wrong += walked[name] != got
        print(f"  {name:16} gdl {got!s:>13}   C walk {walked[name]!s:>13}   {mark}")
    return wrong


def gdl_walk(game, limit: int) -> int:
    """gdl's own walk of the positions (the native expander's ``reach``, what ``gdl solve
    --strong`` runs first), stopped past ``limit`` positions: its pace and peak memory."""
    expander = game.native.graph_expander(game)
    started = time.monotonic()
    last = [started]

    def progress(done: int, found: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 10:
            last[0] = now
            print(f"{now - started:7.1f} s  expanded {done:>13,}  found {found:>13,}", flush=True)

    reached = expander.reach(expander.codec.encode(game.initial_state()), limit, progress)
    found = f"more than {limit:,}" if reached.keys is None else f"{len(reached.keys):,}"
    print(f"{reached.outcome}: {found} positions, {time.monotonic() - started:.1f} s, peak "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solve", action="store_true", help="value every position too")
    parser.add_argument("--no-drops", action="store_true", help="the variant without drops")
    parser.add_argument("--against-gdl", action="store_true",
                        help="compare with gdl's own strong solve (the variant without drops)")
    parser.add_argument("--walk", type=int, metavar="LIMIT",
                        help="time gdl's own walk up to LIMIT positions instead")
    args = parser.parse_args(argv)
    game = load(drops=not args.no_drops)
    if args.walk:
        return gdl_walk(game, args.walk)
    if args.against_gdl and not (args.solve and args.no_drops):
        parser.error("--against-gdl takes --solve --no-drops (gdl cannot solve the full game)")
    scratch = tempfile.TemporaryDirectory()
    dump = os.path.join(scratch.name, "solved") if args.against_gdl else None
    walked = run_walk(game, "dobutsu_solve" if args.solve else "dobutsu_census", dump)
    wrong = 0
    expected = {} if args.no_drops else dict(TANAKA, **(TANAKA_SOLVED if args.solve else {}))
    for name, value in walked.items():
        if name in expected:
            mark = "ok" if value == expected[name] else "DIFFERS"
            wrong += value != expected[name]
            print(f"{name:16} {value!s:>13}   Tanaka {expected[name]!s:>13}   {mark}")
        elif isinstance(value, float):
            print(f"{name:16} {value:>13.1f}")
        else:
            print(f"{name:16} {value!s:>13}")
    if "symmetric" in walked:
        states = 4 * walked["positions"] - 2 * walked["symmetric"]
        print(f"a walk that tells the player to move and mirror images apart meets at most "
              f"4 x positions - 2 x symmetric = {states:,} states")
    if args.against_gdl:
        wrong += against_gdl(game, walked, dump)
    scratch.cleanup()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
