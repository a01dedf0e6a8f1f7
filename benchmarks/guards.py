"""Parameter guards (docs/language.md, "Parameter guards"): legal moves from the pieces against
the Cartesian product. Rooks on an 8 x 8 board, `slide(fr, fc, tr, tc)`: 4,096 ground actions.
Written with guards, the compiled legal_actions tests a square's guard once and looks at the
targets only from the mover's squares; written with the same conditions in `requires`, it tests
each of the 4,096 ground actions. Both spellings are checked to give the same legal moves on
every state timed; then seeded random playouts through legal_actions are timed alternately
(CPU time, min of five).

    python benchmarks/guards.py
"""

from __future__ import annotations

import random
import time

import gdl

BOARD = "[" + ", ".join(
    "[" + ", ".join("A" if (r, c) in ((0, 0), (0, 7), (1, 3)) else "B" if (r, c) in ((7, 0), (7, 7), (6, 4))
                    else "empty" for c in range(8)) + "]" for r in range(8)) + "]"

GUARDED = f"""
game "Rooks"
players A, B
var cell[8][8] in {{empty, A, B}} = {BOARD}
var moves in 0..40 = 0
action slide(fr in 0..7, fc in 0..7 if cell[fr][fc] == mover, tr in 0..7,
             tc in 0..7 if (tr == fr) != (tc == fc))
    requires cell[tr][tc] == empty
    effect   cell[tr][tc] = mover; cell[fr][fc] = empty; moves = moves + 1
terminal moves == 40
utility A = count c in 0..7: cell[0][c] == A
zero-sum
"""
PLAIN = GUARDED.replace(" if cell[fr][fc] == mover", "").replace(
    " if (tr == fr) != (tc == fc)", "").replace(
    "requires cell[tr][tc] == empty",
    "requires cell[fr][fc] == mover and (tr == fr) != (tc == fc) and cell[tr][tc] == empty")


def states(game, count: int) -> list:
    rng, found = random.Random(7), []
    state = game.initial_state()
    while len(found) < count:
        found.append(state)
        actions = game.legal_actions(state)
        if not actions or game.is_terminal(state):
            state = game.initial_state()
            continue
        state = game.apply(state, rng.choice(actions))
    return found


def timed(game, sample) -> float:
    started = time.process_time()
    for state in sample:
        game.legal_actions(state)
    return time.process_time() - started


def main() -> None:
    guarded, plain = gdl.loads(GUARDED), gdl.loads(PLAIN)
    sample = states(guarded, 2000)
    assert all(guarded.legal_actions(s) == plain.legal_actions(s) for s in sample)
    best = {"guards": float("inf"), "requires": float("inf")}
    for _ in range(5):
        for name, game in (("guards", guarded), ("requires", plain)):
            best[name] = min(best[name], timed(game, sample))
    for name, seconds in best.items():
        print(f"{name:>9}: {seconds / len(sample) * 1e6:8.1f} us a legal_actions call "
              f"({len(sample):,} states, min of 5)")
    print(f"  speed-up: {best['requires'] / best['guards']:.1f}x")


if __name__ == "__main__":
    main()
