"""The bundled games against published facts (../shared/FACTS.md), never our own output."""

import random
from functools import cache

import pytest
from helpers import GAMES

import gdl
from gdl.moves import play
from gdl.protocol import TERMINAL
from gdl.solvers import solve
from gdl.solvers.alphabeta import SearchOptions
from gdl.tools.count import count


@cache
def load(name, **params):
    return gdl.load(GAMES / name, params)


# ---- tic-tac-toe ------------------------------------------------------------------------------

def test_tictactoe_is_a_draw_and_every_first_move_draws():
    game = load("tictactoe.game")
    result = solve(game, "alphabeta")
    assert result.values == (0, 0)
    assert len(result.best_actions) == 9


@pytest.mark.parametrize("moves, value", [
    # OpenSpiel's minimax tests, cells 0..8 row by row: X 4, O 1 wins for X;
    # X 5, O 4, X 3, O 8 loses for X.
    (["place(1,1)", "place(0,1)"], 1),
    (["place(1,2)", "place(1,1)", "place(1,0)", "place(2,2)"], -1),
])
@pytest.mark.parametrize("algorithm", ["minimax", "alphabeta"])
def test_tictactoe_positions_from_openspiel(moves, value, algorithm):
    game = load("tictactoe.game")
    result = solve(game, algorithm, root_state=play(game, moves))
    assert result.values == (value, -value)


def test_tictactoe_plain_minimax_visits_every_history():
    result = solve(load("tictactoe.game"), "minimax")
    assert result.stats.nodes == 549_946
    assert result.values == (0, 0)


def test_tictactoe_perft():
    result = count(load("tictactoe.game"))
    assert result.per_ply == (1, 9, 72, 504, 3_024, 15_120, 54_720, 148_176, 200_448, 127_872)
    assert result.nodes == 549_946
    assert result.games == 255_168
    assert (result.states, result.terminal_states) == (5_478, 958)


def test_tictactoe_complete_games_split_by_result():
    # Count complete games by winner: a second, independent walk over the per-state DP.
    game = load("tictactoe.game")
    outcomes = {1: 0, -1: 0, 0: 0}
    layer = {game.initial_state(): 1}
    while layer:
        following = {}
        for state, histories in layer.items():
            if game.current_player(state) == TERMINAL:
                outcomes[game.returns(state)[0]] += histories
                continue
            for action in game.legal_actions(state):
                child = game.apply(state, action)
                following[child] = following.get(child, 0) + histories
        layer = following
    assert outcomes == {1: 131_184, -1: 77_904, 0: 46_080}


# ---- textbook trees and board splitting ---------------------------------------------------------

class Recording:
    """A protocol proxy that remembers every state a solver asked about."""

    def __init__(self, game):
        self.game, self.info, self.visited = game, game.info, set()

    def __getattr__(self, name):
        return getattr(self.game, name)

    def current_player(self, state):
        self.visited.add(state)
        return self.game.current_player(state)


def test_aima_figure_5_2_alphabeta_prunes_c2_and_c3():
    game = load("aima-fig5-2.game")
    recording = Recording(game)
    result = solve(recording, "alphabeta", options=SearchOptions())
    assert result.values[0] == 3
    assert [game.action_name(a) for a in result.best_actions] == ["a1"]
    a2 = game.apply(game.initial_state(), "a2")
    assert game.apply(a2, "c1") in recording.visited
    assert game.apply(a2, "c2") not in recording.visited
    assert game.apply(a2, "c3") not in recording.visited


def test_board_splitting_value_12_in_31_nodes():
    result = solve(load("splitting.game"), "minimax")
    assert result.values == (12, -12)
    assert result.stats.nodes == 31


# ---- Nim: the player to move loses exactly when the XOR of the heaps is 0 ------------------------

@pytest.mark.parametrize("heaps", [
    (5, 8, 13, 0), (2, 3, 8, 10),                        # FACTS.md
    (3, 4, 5, 0), (1, 1, 0, 0), (1, 2, 3, 0), (2, 2, 1, 0), (4, 1, 2, 3), (6, 0, 0, 0),
])
def test_nim_follows_the_xor_rule(heaps):
    a, b, c, d = heaps
    game = load("nim.game", a=a, b=b, c=c, d=d)
    result = solve(game, "alphabeta", options=SearchOptions(tt=True))
    mover_wins = (a ^ b ^ c ^ d) != 0
    assert result.values[0] == (1 if mover_wins else -1)
    if mover_wins:  # the winning moves are exactly those that leave an XOR of 0
        after = [game.apply(game.initial_state(), x) for x in result.best_actions]
        for state in after:
            heap_values = state[1:5]
            assert heap_values[0] ^ heap_values[1] ^ heap_values[2] ^ heap_values[3] == 0


# ---- Connect Four and Hexapawn ------------------------------------------------------------------

def test_connect_four_4x4_is_a_draw():
    result = solve(load("connect4.game"), "alphabeta", options=SearchOptions(tt=True, ordering=True))
    assert result.values == (0, 0)


def test_connect_four_4x4_reachable_positions():
    assert count(load("connect4.game")).states == 161_029


def test_hexapawn_is_a_second_player_win():
    result = solve(load("hexapawn.game"), "minimax")
    assert result.values == (-1, 1)


# ---- alpha-beta agrees with minimax --------------------------------------------------------------

SMALL = ["aima-fig5-2.game", "splitting.game", "hexapawn.game", "tictactoe.game"]


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("seed", range(4))
def test_alphabeta_equals_minimax_along_random_playouts(name, seed):
    game = load(name)
    rng = random.Random(seed)
    state = game.initial_state()
    # Positions along one random playout (two-ply steps keep tic-tac-toe's minimax small).
    while game.current_player(state) != TERMINAL:
        if name != "tictactoe.game" or len([c for c in state[1:] if c != 2]) >= 3:
            reference = solve(game, "minimax", root_state=state)
            for options in (SearchOptions(), SearchOptions.engine()):
                result = solve(game, "alphabeta", root_state=state, options=options)
                assert result.values == reference.values
                assert set(result.best_actions) == set(reference.best_actions)
        state = game.apply(state, rng.choice(list(game.legal_actions(state))))
