"""The OpenSpiel bridge's cost: seeded random playouts of tic-tac-toe through OpenSpiel's API
(``legal_actions``, ``apply_action``, ``is_terminal``, ``returns``), on the gdl rule file bridged
by gdl.bridges.openspiel, on OpenSpiel's own Python tic-tac-toe (open_spiel/python/games), and
on its C++ tic-tac-toe; then MCTS (200 simulations a move, random rollouts) playing one whole
game on each. CPU time, median of three.

    python benchmarks/bridges.py            # needs the openspiel extra
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.games import tic_tac_toe  # noqa: F401  (registers python_tic_tac_toe)

from gdl.bridges import openspiel

ROOT = Path(__file__).resolve().parent.parent


def playouts(game, count: int) -> int:
    rng = random.Random(1)
    moves = 0
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        state.returns()
    return moves


def mcts_game(game) -> int:
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=200, evaluator=mcts.RandomRolloutEvaluator(
        random_state=np.random.RandomState(1)), random_state=np.random.RandomState(1))
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    return len(state.history())


def timed(fn, *args) -> tuple[float, object]:
    times, result = [], None
    for _ in range(3):
        start = time.process_time()
        result = fn(*args)
        times.append(time.process_time() - start)
    return statistics.median(times), result


def main() -> int:
    games = {"gdl tictactoe.game (bridged)": openspiel.load_game(ROOT / "games" / "tictactoe.game"),
             "OpenSpiel python_tic_tac_toe": pyspiel.load_game("python_tic_tac_toe"),
             "OpenSpiel tic_tac_toe (C++)": pyspiel.load_game("tic_tac_toe")}
    print(f"Python {sys.version.split()[0]}")
    print("| game | 2,000 random playouts: moves, s, moves/s | MCTS game (200 sims/move): s |")
    print("|---|---:|---:|")
    for name, game in games.items():
        seconds, moves = timed(playouts, game, 2000)
        mcts_seconds, _ = timed(mcts_game, game)
        print(f"| {name} | {moves:,}, {seconds:.2f}, {moves / seconds:,.0f} | {mcts_seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
