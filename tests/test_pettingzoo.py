"""gdl games as PettingZoo AEC environments (gdl.bridges.pettingzoo): PettingZoo's own API test
on every bundled game with a decision in it, and the documented example.

Optional: runs where the `pettingzoo` extra is installed (``pip install -e '.[pettingzoo]'``)."""

import re
import warnings

import pytest
from helpers import DATA, GAMES, ROOT

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test
from wide_rules import PENNIES, RPS, WIDE

import gdl
from gdl.bridges.pettingzoo import GdlEnv, GdlParallelEnv, env, parallel_env

# A single chance node and no decision: over at reset, which PettingZoo does not allow.
NO_DECISION = {"chance-example"}
CYCLIC = GAMES / "cyclic"
# games/cyclic/ can repeat a position: they run with no limit, as the rules do (docs/pettingzoo.md)
PLAYABLE = ([p for p in sorted(GAMES.glob("*.game")) if p.stem not in NO_DECISION]
            + sorted(CYCLIC.glob("*.game")))

# Advice api_test gives, not failures: on {"observation", "action_mask"} dictionaries (PettingZoo's
# own classic board games get it too), and on agents named by the game's players ("X", "O")
# rather than "player_0".
ADVICE = ("Observation is not a NumPy array", "Observation space for each agent probably should be",
          "We recommend agents to be named in the format")


def _passes_api_test(environment, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(environment, num_cycles=100)
    assert "Passed API test" in capsys.readouterr().out
    other = [str(w.message) for w in caught if not str(w.message).startswith(ADVICE)]
    assert other == []


@pytest.mark.parametrize("path", PLAYABLE, ids=lambda p: p.stem)
def test_pettingzoo_api_test_passes(path, capsys):
    _passes_api_test(env(path), capsys)


@pytest.mark.parametrize("name, max_moves", [("piglet", 3), ("ring-chase", 2), ("give-and-take", 1),
                                             ("pig100", 4), ("rounds", 3)])
def test_pettingzoo_api_test_passes_with_plays_truncated(name, max_moves, capsys):
    _passes_api_test(env(CYCLIC / f"{name}.game", max_moves=max_moves), capsys)


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


# ---- truncation: max_moves, a declared max-length, or none ------------------------------------

def _step_by_names(e, names):
    for name in names:
        e.step(e.infos[e.agent_selection]["action_names"].index(name))


def test_max_moves_truncates_a_play_still_going():
    e = env(CYCLIC / "ring-chase.game", max_moves=3)
    e.reset(seed=0)
    # cat 0 -> 1, mouse 2 -> 3, cat 1 -> 0: three moves and no capture
    _step_by_names(e, ["cat_step(1)", "mouse_step(1)", "cat_step(2)"])
    assert e.truncations == {"Cat": True, "Mouse": True}
    assert e.terminations == {"Cat": False, "Mouse": False}
    # no reward: the game has no result (PettingZoo's truncation is outside the game)
    assert e.rewards == {"Cat": 0.0, "Mouse": 0.0}
    assert e.observe("Cat")["action_mask"].sum() == 0       # nobody may move any more
    seen = []
    for agent in e.agent_iter():
        _, reward, termination, truncation, _ = e.last()
        seen.append((agent, reward, termination, truncation))
        e.step(None)
    assert seen == [("Cat", 0.0, False, True), ("Mouse", 0.0, False, True)]
    assert e.agents == []


def test_a_play_that_ends_at_the_last_move_allowed_is_terminated_not_truncated():
    e = env(CYCLIC / "ring-chase.game", max_moves=3)
    e.reset(seed=0)
    _step_by_names(e, ["cat_step(1)", "sit", "cat_step(1)"])      # the cat lands on the mouse
    assert e.terminations == {"Cat": True, "Mouse": True}
    assert e.truncations == {"Cat": False, "Mouse": False}
    assert e.rewards == {"Cat": 1.0, "Mouse": -1.0}
    e.reset(seed=0)                                              # and a new play starts afresh
    assert e.moves == 0 and not any(e.truncations.values())
    assert e.observe("Cat")["action_mask"].sum() == 2


def test_a_declared_max_length_truncates_rules_that_break_it():
    # ping-pong-bounded.game promises every play ends within 10 moves, but serve and hits can go
    # on for ever (gdl check --deep: E408); the environment stops the play at the promise.
    e = env(DATA / "deep" / "ping-pong-bounded.game")
    assert e.max_moves == 10
    e.reset(seed=0)
    _step_by_names(e, ["serve"] + ["hit"] * 9)
    assert e.truncations == {"A": True, "B": True} and not any(e.terminations.values())


def test_without_a_limit_a_play_goes_on_as_long_as_the_agents_keep_it_going():
    # The ring chase's mouse can run for ever (`when endless draw`): a thousand moves and the
    # play is neither over nor truncated.
    e = env(CYCLIC / "ring-chase.game")
    assert e.max_moves is None
    e.reset(seed=0)
    cat, mouse = 0, 2
    for _ in range(500):
        # both step the same way round the ring of 5, the mouse two cells ahead of the cat
        e.step(e.infos["Cat"]["action_names"].index("cat_step(1)"))
        cat = (cat + 1) % 5
        assert not e.terminations["Mouse"]
        e.step(e.infos["Mouse"]["action_names"].index("mouse_step(1)"))
        mouse = (mouse + 1) % 5
    assert e.moves == 1000 and (cat, mouse) == (0, 2)
    assert not any(e.terminations.values()) and not any(e.truncations.values())


def test_chance_in_a_cyclic_game_is_reproducible_from_the_seed():
    def plays(seed):
        e = env(CYCLIC / "piglet.game", max_moves=30)
        e.reset(seed=seed)
        states = []
        for _ in e.agent_iter(max_iter=40):
            observation, _, termination, truncation, _ = e.last()
            e.step(None if termination or truncation else int(observation["action_mask"].nonzero()[0][-1]))
            states.append(e.gdl_state)
        return states
    assert plays(3) == plays(3)
    assert plays(3) != plays(4)


@pytest.mark.parametrize("bad", [0, -1, 2.5])
def test_max_moves_must_be_a_positive_whole_number(bad):
    with pytest.raises(ValueError, match="max_moves must be a positive whole number"):
        env(CYCLIC / "ring-chase.game", max_moves=bad)


def test_the_shimmy_route_on_a_cyclic_game_cuts_plays_short_as_terminations(capsys):
    # Through OpenSpiel a play cut short is a terminal state (OpenSpiel has no truncation), so
    # Shimmy reports a termination worth the draw (the native environment: a truncation). Shimmy reloads the game by name on reset, so
    # max_moves goes in its config.
    pytest.importorskip("pyspiel")
    shimmy = pytest.importorskip("shimmy")
    from gdl.bridges import openspiel

    openspiel.register(CYCLIC / "ring-chase.game")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped = shimmy.OpenSpielCompatibilityV0(game_name="gdl_ring_chase", config={"max_moves": 2})
        api_test(wrapped, num_cycles=50)
    assert "Passed API test" in capsys.readouterr().out
    wrapped.reset(seed=0)
    for _ in wrapped.agent_iter(max_iter=10):
        _, _, termination, truncation, info = wrapped.last()
        if termination or truncation:
            break
        wrapped.step(int(info["action_mask"].nonzero()[0][0]))
    # cat_step(1) twice never catches the mouse at 2: cut short after two moves, a terminal state
    # worth the draw. (Shimmy also raises truncation once its own count of moves, which starts at
    # 1, passes max_game_length: it does so at the end of any play that long, a full tic-tac-toe
    # board included.)
    assert termination and wrapped.rewards == {"player_0": 0.0, "player_1": 0.0}


# ---- hidden information and simultaneous moves -------------------------------------------------

def _rule_file(tmp_path, name: str):
    path = tmp_path / f"{name}.game"
    path.write_text(WIDE[name], encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(WIDE))
def test_the_parallel_and_aec_api_tests_pass_on_games_with_joint_moves_or_hidden_information(
        name, tmp_path, capsys):
    path = _rule_file(tmp_path, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(path), num_cycles=100)
        # a game with joint moves: the parallel environment behind PettingZoo's parallel_to_aec
        api_test(env(path), num_cycles=100)
    out = capsys.readouterr().out
    assert "Passed Parallel API test" in out and "Passed API test" in out
    other = [str(w.message) for w in caught if not str(w.message).startswith(ADVICE)]
    assert other == []


def test_the_parallel_api_test_passes_on_a_game_that_moves_in_turns_too(capsys):
    parallel_api_test(parallel_env(GAMES / "kuhn.game"), num_cycles=100)
    parallel_api_test(parallel_env(GAMES / "pig.game"), num_cycles=100)
    assert capsys.readouterr().out.count("Passed Parallel API test") == 2


def test_an_agent_observes_its_own_card_and_not_the_others():
    e = env(GAMES / "kuhn.game")
    views = {"First": {}, "Second": {}}
    for seed in range(60):
        e.reset(seed=seed)
        cards = e.gdl_game.variables(e.gdl_state)["card"]
        for index, agent in enumerate(e.possible_agents):
            view = tuple(e.observe(agent)["observation"])
            views[agent].setdefault(view, set()).add(cards[index])
        # the whole state, for a centralised critic, shows both cards
        whole = tuple(e.state())
        assert whole != tuple(e.observe("First")["observation"])
    # each agent's observation tells its own card, one card per observation, and nothing else:
    # three observations each over the six deals
    for agent in views:
        assert sorted(map(sorted, views[agent].values())) == [[1], [2], [3]]


def test_a_joint_move_takes_every_choosing_agents_action_at_once():
    # rock-paper-scissors: every pair of hands pays the first player +1, -1 or 0
    e = GdlParallelEnv(gdl.loads(RPS, "<rps>"))
    observations, infos = e.reset(seed=0)
    names = infos["A"]["action_names"]
    hands = {hand: names.index(f"show({hand})") for hand in ("rock", "paper", "scissors")}
    assert all(observations[agent]["action_mask"].sum() == 3 for agent in ("A", "B"))
    beats = {("rock", "scissors"), ("paper", "rock"), ("scissors", "paper")}
    for a in hands:
        for b in hands:
            e.reset(seed=0)
            _, rewards, terminations, truncations, _ = e.step({"A": hands[a], "B": hands[b]})
            expected = 1.0 if (a, b) in beats else -1.0 if (b, a) in beats else 0.0
            assert rewards == {"A": expected, "B": -expected}
            assert terminations == {"A": True, "B": True} and not any(truncations.values())
            assert e.agents == []
    e.reset(seed=0)
    with pytest.raises(ValueError, match="B chooses now and cannot play action None"):
        e.step({"A": hands["rock"]})


def test_an_agent_who_does_not_choose_may_leave_its_action_out():
    e = parallel_env(GAMES / "kuhn.game")
    observations, _ = e.reset(seed=1)
    assert observations["Second"]["action_mask"].sum() == 0      # First moves alone
    check = int(observations["First"]["action_mask"].nonzero()[0][0])
    observations, rewards, *_ = e.step({"First": check, "Second": 12345})   # ignored
    assert observations["Second"]["action_mask"].sum() == 2 and rewards == {"First": 0.0, "Second": 0.0}
    assert observations["First"]["action_mask"].sum() == 0
    _, rewards, terminations, *_ = e.step({"Second": check})    # First's action left out
    # check, check: the showdown for the antes, 1 to the higher card
    cards = e.gdl_game.variables(e.gdl_state)["card"]
    winner = 1.0 if cards[0] > cards[1] else -1.0
    assert rewards == {"First": winner, "Second": -winner} and all(terminations.values())


def test_the_aec_environment_refuses_joint_moves_and_says_what_works():
    with pytest.raises(ValueError, match="parallel_to_aec"):
        GdlEnv(gdl.loads(RPS, "<rps>"))


def test_a_parallel_play_that_goes_on_is_truncated_after_max_moves():
    e = GdlParallelEnv(gdl.loads(PENNIES, "<pennies>"), max_moves=2)
    observations, infos = e.reset(seed=0)
    names = infos["A"]["action_names"]
    heads, tails = names.index("show(heads)"), names.index("show(tails)")
    _, _, terminations, truncations, _ = e.step({"A": heads, "B": tails})
    assert not any(truncations.values()) and e.agents == ["A", "B"]
    observations, rewards, terminations, truncations, _ = e.step({"A": heads, "B": tails})
    assert truncations == {"A": True, "B": True} and not any(terminations.values())
    assert rewards == {"A": 0.0, "B": 0.0} and e.agents == []
    assert all(observations[agent]["action_mask"].sum() == 0 for agent in ("A", "B"))


@pytest.mark.parametrize("name", ["rps", "duel"])
def test_the_shimmy_route_takes_joint_moves_and_hidden_information_too(name, capsys):
    pytest.importorskip("pyspiel")
    shimmy = pytest.importorskip("shimmy")
    from gdl.bridges import openspiel

    registered = openspiel.register_text(WIDE[name], f"<{name}>", f"gdl_shimmy_{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(shimmy.OpenSpielCompatibilityV0(game_name=registered), num_cycles=50)
    assert "Passed API test" in capsys.readouterr().out



def test_the_examples_for_hidden_information_and_joint_moves_in_the_docs(monkeypatch, capsys):
    text = (ROOT / "docs" / "pettingzoo.md").read_text(encoding="utf-8")
    monkeypatch.chdir(ROOT)
    hidden = re.search(r"## Hidden information: each agent sees its own.*?```python\n(.*?)```", text, re.S)
    exec(hidden[1], {})
    assert capsys.readouterr().out.strip() == "[[1], [2], [3]]"
    assert "prints `[[1], [2], [3]]`" in text
    joint = re.search(r"## Simultaneous moves: the parallel API.*?```python\n(.*?)```", text, re.S)
    exec(joint[1], {})
    names, result = capsys.readouterr().out.strip().splitlines()
    assert names == "['show(rock)', 'show(paper)', 'show(scissors)'] [1 1 1] [1 1 1]"
    assert result == "{'A': 1.0, 'B': -1.0} {'A': True, 'B': True} []"
    flat = " ".join(text.split())
    assert f"prints `{names}`" in flat and f"then `{result}`" in flat
