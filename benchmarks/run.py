"""gdl's compiled games against hand-written textbook Python, on the same searches.

    python benchmarks/run.py            # the full table (a few minutes)
    python benchmarks/run.py --quick    # a smoke run (seconds): smaller workloads, one repetition

Each row runs one workload both ways: gdl (a rule file from games/, built with the default
``compile`` backend, searched by gdl's own solvers) and the reference (benchmarks/reference:
tuple states, ``actions / result / terminal / utility``, textbook solvers). The two are timed
(CPU time) alternately in the same process, after a warm-up, and the median of the repetitions
is shown;
``speed-up`` is reference time / gdl time. The node counts of the two sides must be equal (the
script stops otherwise), and so must the values found, so both sides did the same search.
Loading and compiling the rule file is not timed here (see the start-up note in README.md).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from reference import connect4 as ref_connect4  # noqa: E402
from reference import pig as ref_pig  # noqa: E402
from reference import solvers as ref  # noqa: E402
from reference import tictactoe as ref_tictactoe  # noqa: E402

import gdl  # noqa: E402
from gdl.protocol import CHANCE, TERMINAL  # noqa: E402
from gdl.solvers.alphabeta import SearchOptions, alphabeta  # noqa: E402
from gdl.solvers.expectiminimax import expectiminimax  # noqa: E402
from gdl.solvers.minimax import minimax  # noqa: E402

GAMES = ROOT / "games"
# The transposition table size of both sides (gdl's default): the same buckets, the same rule.
TT_SIZE = SearchOptions().tt_size


def check_references(playouts: int) -> None:
    """The hand-written games are the rule files' games: random playouts in lockstep (the same
    seeded choices on both sides) agree on every state, legal move list, chance distribution,
    terminal test and utility. Exits with a message otherwise."""
    rng = random.Random(7)

    def lockstep(name, game, ref_game, to_gdl, move_of, outcome_of, initial):
        for _ in range(playouts):
            s, r = game.initial_state(), initial()
            while True:
                here = f"{name}: reference state {r} / gdl state {s}"
                if to_gdl(r) != s:
                    sys.exit(f"{here}: the states differ")
                kind = game.current_player(s)
                if (kind == TERMINAL) != ref_game.terminal(r):
                    sys.exit(f"{here}: terminal tests differ")
                if kind == TERMINAL:
                    if game.returns(s)[0] != ref_game.utility(r):
                        sys.exit(f"{here}: utilities differ")
                    break
                if kind == CHANCE:
                    ours = [(outcome_of(o), p) for o, p in ref_game.chance_outcomes(r)]
                    if ours != game.chance_outcomes(s):
                        sys.exit(f"{here}: chance outcomes differ")
                    o, _ = rng.choice(ref_game.chance_outcomes(r))
                    s, r = game.apply(s, outcome_of(o)), ref_game.result(r, o)
                    continue
                moves = ref_game.actions(r)
                if [move_of(m) for m in moves] != game.legal_actions(s):
                    sys.exit(f"{here}: legal moves differ")
                m = rng.choice(moves)
                s, r = game.apply(s, move_of(m)), ref_game.result(r, m)

    ttt = gdl.load(GAMES / "tictactoe.game")
    cell = {ref_tictactoe.EMPTY: 2, ref_tictactoe.X: 0, ref_tictactoe.O: 1}
    lockstep("tic-tac-toe", ttt, ref_tictactoe,
             lambda r: (cell[r[0]],) + tuple(cell[c] for c in r[1]),
             lambda m: m, None, ref_tictactoe.initial)
    for columns, rows in ((5, 4), (7, 6)):
        c4 = gdl.load(GAMES / "connect4.game", params={"columns": columns, "rows": rows})
        hand = ref_connect4.ConnectFour(columns, rows)
        lockstep(f"Connect Four {columns}x{rows}", c4, hand, lambda r: r, lambda m: m, None,
                 hand.initial)
    pig = gdl.load(GAMES / "pig.game")
    lockstep("Pig", pig, ref_pig, lambda r: r[:5] + ((0,) if r[5] else ()),
             {"roll": 0, "stop": 1}.get, lambda face: (0, face), ref_pig.initial)


def gdl_playouts(game, count: int, rng: random.Random):
    """The same loop as reference.solvers.playouts, over the gdl protocol."""
    player, legal, apply, returns, choice = (game.current_player, game.legal_actions, game.apply,
                                             game.returns, rng.choice)
    total = nodes = 0
    for _ in range(count):
        state = game.initial_state()
        while True:
            nodes += 1
            if player(state) == TERMINAL:
                total += returns(state)[0]
                break
            state = apply(state, choice(legal(state)))
    return total, nodes


class Rooted:
    """A game seen from another starting state (its protocol functions copied, not proxied)."""

    def __init__(self, game, root):
        self.info = game.info
        for method in ("current_player", "legal_actions", "apply", "chance_outcomes", "returns",
                       "evaluate", "is_quiet", "action_name"):
            setattr(self, method, getattr(game, method))
        self.initial_state = lambda: root


class Workload:
    def __init__(self, name, gdl_run, ref_run, memory=False):
        self.name, self.gdl_run, self.ref_run, self.memory = name, gdl_run, ref_run, memory


def loader(state_cache: bool):
    """gdl.load, or (without the per-state caches of costly rules) the same game built with
    gdl.backends.compiler.build(..., cache=False)."""
    if state_cache:
        return gdl.load

    def load(path, params=None):
        from gdl.backends.compiler import build
        from gdl.errors import Source
        from gdl.lang.check import check
        from gdl.lang.parse import parse

        text = Path(path).read_text()
        source = Source(str(path), text)
        return build(check(parse(text, str(path)), source, params), source, cache=False)

    return load


def workloads(quick: bool, state_cache: bool = True) -> list[Workload]:
    out = []
    load = loader(state_cache)

    # Tic-tac-toe, plain minimax over the whole tree.
    ttt = load(GAMES / "tictactoe.game")
    ttt_root = ttt.initial_state()
    ref_root = ref_tictactoe.initial()
    if quick:   # after X takes the centre
        ttt_root = ttt.apply(ttt_root, ttt.legal_actions(ttt_root)[4])
        ref_root = ref_tictactoe.result(ref_root, 4)
    ttt_rooted = Rooted(ttt, ttt_root)

    def ttt_gdl():
        r = minimax(ttt_rooted)
        return r.values[0], r.stats.nodes

    def ttt_ref():
        return ref.minimax(ref_tictactoe, ref_root, ref_tictactoe.X)

    out.append(Workload("tic-tac-toe minimax" + (" (after X 4)" if quick else ""), ttt_gdl, ttt_ref))

    # Connect Four, alpha-beta with a transposition table.
    columns, rows = (4, 4) if quick else (5, 4)
    c4 = load(GAMES / "connect4.game", params={"columns": columns, "rows": rows})
    c4_hand = ref_connect4.ConnectFour(columns, rows)
    options = SearchOptions(tt=True, tt_size=TT_SIZE)

    def c4_gdl():
        r = alphabeta(c4, options=options)
        return (r.values[0], [c4.action_name(a) for a in r.best_actions]), r.stats.nodes

    def c4_ref():
        value, optimal, nodes = ref.alphabeta_tt(c4_hand, c4_hand.initial(), ref_connect4.RED,
                                                 TT_SIZE)
        return (value, [f"drop({c})" for c in optimal]), nodes

    out.append(Workload(f"Connect Four {columns}x{rows} alpha-beta + TT", c4_gdl, c4_ref,
                        memory=True))

    # Pig, expectiminimax to a fixed depth with the score difference at the cut-off.
    depth = 4 if quick else 9
    pig = load(GAMES / "pig.game")

    def pig_gdl():
        r = expectiminimax(pig, depth=depth)
        return r.values[0], r.stats.nodes

    def pig_ref():
        return ref.expectiminimax(ref_pig, ref_pig.initial(), depth, ref_pig.A)

    out.append(Workload(f"Pig expectiminimax depth {depth}", pig_gdl, pig_ref))

    # Random playouts, seeded: both sides make the same choices from the same legal lists.
    n_ttt = 500 if quick else 20_000

    def ttt_play_gdl():
        return gdl_playouts(ttt, n_ttt, random.Random(1))

    def ttt_play_ref():
        return ref.playouts(ref_tictactoe, n_ttt, random.Random(1))

    out.append(Workload(f"tic-tac-toe {n_ttt:,} random playouts", ttt_play_gdl, ttt_play_ref))

    c4big = load(GAMES / "connect4.game", params={"columns": 7, "rows": 6})
    c4big_ref = ref_connect4.ConnectFour(7, 6)
    n_c4 = 200 if quick else 5_000

    def c4_play_gdl():
        return gdl_playouts(c4big, n_c4, random.Random(2))

    def c4_play_ref():
        return ref.playouts(c4big_ref, n_c4, random.Random(2))

    out.append(Workload(f"Connect Four 7x6 {n_c4:,} random playouts", c4_play_gdl, c4_play_ref))
    return out


def timed(fn):
    """CPU time of the process (every thread: gdl's alpha-beta searches in a worker thread),
    which other load on the machine disturbs far less than wall-clock time."""
    gc.collect()
    started = time.process_time()
    result = fn()
    return time.process_time() - started, result


def peak_memory(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small workloads, one repetition")
    parser.add_argument("--repeat", type=int, help="timed repetitions per side (default 5; quick 1)")
    parser.add_argument("--only", help="run only workloads whose name contains this text")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the peak-memory pass (tracemalloc slows it several times over)")
    parser.add_argument("--no-state-cache", action="store_true",
                        help="compile the games without their per-state caches of costly "
                             "terminal / utility rules")
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 5)
    warmup = 0 if args.quick else 1

    check_references(30 if args.quick else 300)
    print(f"Python {sys.version.split()[0]}, gdl backend: compile; median of {repeat} after "
          f"{warmup} warm-up, sides alternating, CPU seconds"
          + (", no per-state caches" if args.no_state_cache else ""))
    rows = []
    header = (f"{'workload':<44} {'nodes':>11} {'gdl s':>8} {'ref s':>8} {'speed-up':>8}")
    print(header)
    print("-" * len(header))
    for w in workloads(args.quick, not args.no_state_cache):
        if args.only and args.only not in w.name:
            continue
        times = {"gdl": [], "ref": []}
        results = {}
        for i in range(warmup + repeat):
            for side, fn in (("gdl", w.gdl_run), ("ref", w.ref_run)):
                seconds, result = timed(fn)
                if i >= warmup:
                    times[side].append(seconds)
                results[side] = result
        (gdl_value, gdl_nodes), (ref_value, ref_nodes) = results["gdl"], results["ref"]
        if gdl_nodes != ref_nodes or gdl_value != ref_value:
            print(f"{w.name}: the two sides differ: gdl {gdl_value} in {gdl_nodes:,} nodes, "
                  f"reference {ref_value} in {ref_nodes:,} nodes", file=sys.stderr)
            return 1
        g, r = statistics.median(times["gdl"]), statistics.median(times["ref"])
        print(f"{w.name:<44} {gdl_nodes:>11,} {g:>8.3f} {r:>8.3f} {r / g:>7.2f}x", flush=True)
        rows.append((w, g, r))
        if w.memory and not args.no_memory:
            gm, rm = peak_memory(w.gdl_run), peak_memory(w.ref_run)
            print(f"{'  peak memory (tracemalloc)':<44} {'':>11} {gm / 2**20:>6.1f}MB {rm / 2**20:>6.1f}MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
