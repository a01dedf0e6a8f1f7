"""gdl games as PettingZoo AEC environments (gdl.bridges.pettingzoo): PettingZoo's own API test
on every bundled game with a decision in it, and the documented example.

Optional: runs where the `pettingzoo` extra is installed (``pip install -e '.[pettingzoo]'``)."""

import re
import warnings

import pytest
from helpers import GAMES, ROOT

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test

from gdl.bridges.pettingzoo import env

# A single chance node and no decision: over at reset, which PettingZoo does not allow.
NO_DECISION = {"chance-example"}
PLAYABLE = [p for p in sorted(GAMES.glob("*.game")) if p.stem not in NO_DECISION]

# Advice api_test gives, not failures: on {"observation", "action_mask"} dictionaries (PettingZoo's
# own classic board games get it too), and on agents named by the game's players ("X", "O")
# rather than "player_0".
ADVICE = ("Observation is not a NumPy array", "Observation space for each agent probably should be",
          "We recommend agents to be named in the format")


@pytest.mark.parametrize("path", PLAYABLE, ids=lambda p: p.stem)
def test_pettingzoo_api_test_passes(path, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(path), num_cycles=100)
    assert "Passed API test" in capsys.readouterr().out
    other = [str(w.message) for w in caught if not str(w.message).startswith(ADVICE)]
    assert other == []


def test_a_game_without_decisions_is_refused_by_name():
    e = env(GAMES / "chance-example.game")
    with pytest.raises(ValueError, match="over before any player decides"):
        e.reset(seed=0)


def test_agents_are_the_players_and_the_mask_is_the_movers():
    e = env(GAMES / "tictactoe.game")
    e.reset(seed=0)
    assert e.possible_agents == ["X", "O"] and e.agent_selection == "X"
    assert e.observe("X")["action_mask"].tolist() == [1] * 9
    assert e.observe("O")["action_mask"].tolist() == [0] * 9
    e.step(4)                                           # place(1,1)
    assert e.agent_selection == "O"
    assert e.infos["O"]["action_names"][4] == "place(1,1)"
    assert e.observe("O")["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="cannot play action 4"):
        e.step(4)


def test_chance_is_sampled_reproducibly_from_the_seed():
    def plays(seed):
        e = env(GAMES / "pig.game", {"winscore": 10})
        e.reset(seed=seed)
        states = []
        for _ in e.agent_iter(max_iter=40):
            observation, _, termination, truncation, _ = e.last()
            # roll whenever allowed (action 0), stop when the target is reached
            e.step(None if termination or truncation else int(observation["action_mask"].nonzero()[0][0]))
            states.append(e.gdl_state)
        return states
    assert plays(3) == plays(3)
    assert plays(3) != plays(4)


def test_random_agent_against_the_solver_example_in_the_docs(monkeypatch, capsys):
    text = (ROOT / "docs" / "pettingzoo.md").read_text(encoding="utf-8")
    code = re.search(r"## A random agent against a solver.*?```python\n(.*?)```", text, re.S)[1]
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(code, namespace)
    results = namespace["results"]
    # Tic-tac-toe is a draw with best play, so the solver's side never loses; zero-sum.
    assert set(results) == {"X", "O"}
    assert results["O"] >= 0 and results["X"] + results["O"] == 0
    assert str(results) in capsys.readouterr().out


@pytest.mark.parametrize("name", ["tictactoe", "pig", "aima-fig5-4"])
def test_the_shimmy_route_through_openspiel_passes_the_api_test(name, capsys):
    # The other route docs/pettingzoo.md mentions: Shimmy's wrapper over the OpenSpiel bridge.
    # Optional twice over: it needs the openspiel extra and Shimmy (pip install shimmy).
    pytest.importorskip("pyspiel")
    shimmy = pytest.importorskip("shimmy")
    from gdl.bridges import openspiel

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(shimmy.OpenSpielCompatibilityV0(env=openspiel.load_game(GAMES / f"{name}.game")),
                 num_cycles=50)
    assert "Passed API test" in capsys.readouterr().out
