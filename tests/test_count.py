"""`gdl count` of a whole game runs over its position graph (the native walk where the game has
native rules); the layered count remains for depths and other starts. Both give the same
figures, and the literature's (/work/shared/FACTS.md)."""

import json
from pathlib import Path

import pytest

from gdl.backends.load import load
from gdl.cli import main
from gdl.tools import count as counting

GAMES = Path(__file__).resolve().parent.parent / "games"


def layered(game):
    """The count layer by layer, the graph's way switched off."""
    saved = counting.count_over_graph
    counting.count_over_graph = lambda game, progress=None: None
    try:
        return counting.count(game)
    finally:
        counting.count_over_graph = saved


@pytest.mark.parametrize("file, params", [("tictactoe.game", {}), ("chance-example.game", {}),
                                          ("nim.game", {}), ("hexapawn.game", {}),
                                          ("connect4.game", {"columns": 4, "rows": 3})])
@pytest.mark.parametrize("backend", ["native", "compile"])
def test_the_graph_count_is_the_layered_count(file, params, backend):
    game = load(GAMES / file, params, backend)
    assert counting.count_over_graph(game) == layered(game)


def test_tictactoe_counts_as_the_literature_says(capsys):
    game = load(GAMES / "tictactoe.game", backend="native")
    result = counting.count(game)
    assert result.per_ply == (1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872)
    assert (result.nodes, result.games) == (549_946, 255_168)
    assert (result.states, result.terminal_states) == (5478, 958)
    assert main(["count", str(GAMES / "connect4.game"), "--set", "columns=4", "--set", "rows=4",
                 "--json"]) == 0
    assert '"states": 161029' in capsys.readouterr().out     # Tromp's figure


def test_a_cycle_found_over_the_graph_is_an_endless_game():
    game = load(GAMES / "cyclic" / "give-and-take.game", backend="native")
    with pytest.raises(counting.EndlessGame, match="come back to the same state"):
        counting.count(game)


def test_a_joint_move_is_one_ply_with_every_combination_a_branch(capsys):
    # rock-paper-scissors: both players show one of three at once, so 3 x 3 = 9 plays of one ply;
    # matching pennies (KIF): 2 x 2 = 4
    rps = counting.count(load(GAMES / "rps.game", backend="compile"))
    assert (rps.per_ply, rps.games, rps.states, rps.terminal_states) == ((1, 9), 9, 10, 9)
    kif = Path(__file__).resolve().parent / "data" / "kif" / "pennies.kif"
    assert main(["count", str(kif), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_ply"] == [1, 4]


def test_a_game_with_joint_moves_counts_like_a_walk_of_its_histories():
    # Goofspiel, counted by an independent walk of every history (joint moves by hand)
    from itertools import product

    from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL

    game = load(GAMES / "goofspiel.game", {"cards": 3}, "compile")

    def walk(state, ply, per_ply):
        per_ply[ply] = per_ply.get(ply, 0) + 1
        kind = game.current_player(state)
        if kind == TERMINAL:
            return
        if kind == SIMULTANEOUS:
            acting = game.acting_players(state)
            joints = product(*(game.legal_actions_of(state, p) for p in acting))
            children = [game.apply_joint(state, j) for j in joints]
        elif kind == CHANCE:
            children = [game.apply(state, o) for o, _ in game.chance_outcomes(state)]
        else:
            children = [game.apply(state, a) for a in game.legal_actions(state)]
        for child in children:
            walk(child, ply + 1, per_ply)

    per_ply: dict = {}
    walk(game.initial_state(), 0, per_ply)
    assert counting.count(game).per_ply == tuple(per_ply[p] for p in sorted(per_ply))
