"""KIF games through the bridges and the web page: OpenSpiel, PettingZoo and `gdl serve` take a
.kif file as they take a rule file, an alternating game as turns and a simultaneous-move game as
joint moves."""

from pathlib import Path

import pytest

KIF = Path(__file__).resolve().parent / "data" / "kif"


def test_openspiel_plays_a_simultaneous_kif_game_and_cfr_finds_the_equilibrium():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr, exploitability

    from gdl.bridges import openspiel

    game = openspiel.load_game(KIF / "pennies.kif")
    state = game.new_initial_state()
    assert state.is_simultaneous_node()
    state.apply_actions([state.legal_actions(0)[0], state.legal_actions(1)[0]])
    assert state.is_terminal() and state.returns() == [100.0, 0.0]   # the sides match: even wins
    turns = pyspiel.convert_to_turn_based(game)
    solver = cfr.CFRSolver(turns)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    # matching pennies' equilibrium is uniform, which CFR reaches at once by symmetry
    assert exploitability.nash_conv(turns, solver.average_policy()) == pytest.approx(0, abs=1e-9)


def test_openspiel_plays_kif_tictactoe_by_turns():
    pytest.importorskip("pyspiel")
    from gdl.bridges import openspiel

    # named apart from games/tictactoe.game, which another test registers as gdl_tictactoe
    game = openspiel.load_game(KIF / "tictactoe.kif", name="gdl_kif_tictactoe")
    state = game.new_initial_state()
    assert not state.is_simultaneous_node() and len(state.legal_actions()) == 9
    for move in ("place_1_1", "place_2_1", "place_1_2", "place_2_2", "place_1_3"):
        # x takes the first row while o answers in the second
        (action,) = [a for a in state.legal_actions()
                     if state.action_to_string(state.current_player(), a) == move]
        state.apply_action(action)
    assert state.is_terminal() and state.returns() == [100.0, 0.0]


def test_pettingzoo_steps_a_simultaneous_kif_game():
    pytest.importorskip("pettingzoo")
    from gdl.bridges import pettingzoo

    env = pettingzoo.parallel_env(KIF / "pennies.kif")
    env.reset(seed=0)
    _, rewards, terminations, _, _ = env.step({"even": 0, "odd": 1})
    assert rewards == {"even": 0, "odd": 100} and all(terminations.values())


def test_the_web_page_plays_a_simultaneous_kif_game_from_its_equilibrium():
    from gdl.serve.workbench import Workbench

    text = (KIF / "pennies.kif").read_text()
    bench = Workbench(text, "pennies.kif")
    state = bench.state()
    assert state["wide"] and state["error"] is None
    # matching pennies is worth 50 to each (the textbook value); moves carry no value of their own
    assert [v["value"] for v in state["values"]] == [50, 50]
    assert {m["label"] for m in state["moves"]} == {"mixed"}
    after = bench.solver_move() if state["solver_to_move"] else bench.move(0)
    assert after["over"] and after["history"][0]["player"] == "together"
