"""gdl games inside OpenSpiel (gdl.bridges.openspiel): OpenSpiel's own consistency check on every
bundled game, and OpenSpiel's algorithms agreeing with the published values and with gdl.

Optional: runs where the `openspiel` extra is installed (``pip install -e '.[openspiel]'``)."""

import json
import random
import re
import sys
import types
from fractions import Fraction

import pytest
from helpers import GAMES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import minimax  # noqa: E402

import gdl  # noqa: E402
from gdl.bridges import openspiel  # noqa: E402
from gdl.generators.rules import rule_games  # noqa: E402
from gdl.generators.trees import trees  # noqa: E402
from gdl.graph import strong_solve  # noqa: E402
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, ZERO_SUM  # noqa: E402

CYCLIC = GAMES / "cyclic"
# games/cyclic/ repeat positions: Piglet and Pig with chance, ring chase, give and take, rounds.
BUNDLED = sorted(GAMES.glob("*.game")) + sorted(CYCLIC.glob("*.game"))


@pytest.fixture(scope="module")
def value_iteration():
    """OpenSpiel's value_iteration imports its LP solver (and so cvxpy) for simultaneous-move
    nodes only; gdl games have none, so an empty stand-in is enough (and is removed after)."""
    name = "open_spiel.python.algorithms.lp_solver"
    saved = sys.modules.get(name)
    if saved is None:
        sys.modules[name] = types.ModuleType(name)
    try:
        from open_spiel.python.algorithms import value_iteration as module
        yield module.value_iteration
    finally:
        if saved is None:
            sys.modules.pop(name, None)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_openspiel_random_simulation_check_passes(path):
    # OpenSpiel's conformance test: clones, serialisation round trips, legal-action masks, sorted
    # and uniquely named actions, rewards summing to returns within the declared bounds and sum,
    # observation tensors of the declared size, game length within max_game_length.
    game = openspiel.load_game(path)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_follows_the_rules_declarations():
    types_ = pyspiel.GameType
    pig = openspiel.load_game(GAMES / "pig.game")
    assert pig.get_type().chance_mode == types_.ChanceMode.EXPLICIT_STOCHASTIC
    assert pig.get_type().utility == types_.Utility.ZERO_SUM
    assert pig.get_type().information == types_.Information.PERFECT_INFORMATION
    assert pig.max_chance_outcomes() == 3
    takeaway = openspiel.load_game(GAMES / "takeaway3.game")
    assert takeaway.num_players() == 3
    assert takeaway.get_type().utility == types_.Utility.CONSTANT_SUM
    assert takeaway.utility_sum() == 1.0
    centipede = openspiel.load_game(GAMES / "centipede.game")
    assert centipede.get_type().utility == types_.Utility.GENERAL_SUM
    tictactoe = openspiel.load_game(GAMES / "tictactoe.game")
    assert tictactoe.get_type().chance_mode == types_.ChanceMode.DETERMINISTIC
    assert (tictactoe.num_distinct_actions(), tictactoe.max_game_length()) == (9, 9)
    assert tictactoe.observation_tensor_size() == 2 + 9 * 3


def test_rule_parameters_are_game_parameters():
    name = openspiel.register(GAMES / "connect4.game")
    assert name == "gdl_connect4"
    game = pyspiel.load_game("gdl_connect4(columns=5,rows=4)")
    assert game.num_distinct_actions() == 5           # one drop per column
    assert game.max_game_length() == 20               # `max-length columns * rows`


def test_chance_probabilities_are_the_exact_fractions_as_floats():
    game = openspiel.load_game(GAMES / "dice-race.game")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])        # throw: the first die is rolled
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes] == ["a=1", "a=2", "a=3"]
    assert [p for _, p in outcomes] == [float(Fraction(1, 3))] * 3


def test_a_registered_name_cannot_take_other_rules(tmp_path):
    copy = tmp_path / "nim.game"
    copy.write_text((GAMES / "nim.game").read_text().replace("param a = 3", "param a = 2"))
    openspiel.register(GAMES / "nim.game")
    with pytest.raises(ValueError, match="registered already"):
        openspiel.register(copy)


# ---- OpenSpiel's algorithms against the literature (FACTS.md) and against gdl ----------------------

@pytest.mark.parametrize("name, value", [
    ("aima-fig5-2", 3),     # Russell & Norvig, Figure 5.2
    ("splitting", 12),      # the board-splitting game
    ("tictactoe", 0),       # a draw
    ("nim", 1),             # heaps 3, 4, 5: XOR 2 != 0, the player to move wins
    ("hexapawn", -1),       # Gardner: the second player wins
])
def test_openspiel_alpha_beta_agrees(name, value):
    game = openspiel.load_game(GAMES / f"{name}.game")
    found, _ = minimax.alpha_beta_search(game)
    assert found == value
    assert gdl.solve(game.gdl_game).values[0] == value


def test_openspiel_expectiminimax_on_pig_to_depth_two():
    # OpenSpiel's own test: a three-sided die, two decision plies, score(A) - score(B) at the
    # cut-off: 1/3 * 2 + 1/3 * 3 = 5/3 for A, best action roll.
    game = openspiel.load_game(GAMES / "pig.game")
    score = re.compile(r"score = \[(\d+), (\d+)\]")

    def difference(state):
        a, b = map(int, score.search(str(state)).groups())
        return float(a - b)

    value, action = minimax.expectiminimax(game.new_initial_state(), 2, difference, 0)
    assert value == pytest.approx(5 / 3)
    assert game.new_initial_state().action_to_string(0, action) == "roll"


@pytest.mark.parametrize("name, value", [
    ("chance-example", Fraction(10)),     # (1/2)·8 + (1/3)·24 + (1/6)·(−12)
    ("pacman-random", Fraction(7, 2)),    # README: expectimax, Pacman 7/2
])
def test_openspiel_expectiminimax_agrees(name, value):
    game = openspiel.load_game(GAMES / f"{name}.game")
    found, _ = minimax.expectiminimax(game.new_initial_state(), game.max_game_length(), None, 0)
    assert found == pytest.approx(float(value))
    assert gdl.solve(game.gdl_game).values[0] == value


def _value(game, values):
    """Player 0's value of the initial state from value_iteration's table, which leaves chance
    states out: their value is the expectation over their outcomes."""
    def of(state):
        if state.is_chance_node():
            total = 0.0
            for outcome, p in state.chance_outcomes():
                total += p * of(state.child(outcome))
            return total
        return values[str(state)]
    return of(game.new_initial_state())


@pytest.mark.parametrize("name, params, value", [
    ("hexapawn", {}, -1),                                # the second player wins
    ("nim", {"a": 1, "b": 2, "c": 3}, -1),               # XOR 0: the player to move loses
    ("splitting", {}, 12),
    ("aima-fig5-2", {}, 3),
    ("chance-example", {}, 10),
    ("pacman-adversarial", {}, -3),                      # README: minimax, Pacman -3
    ("pacman-random", {}, Fraction(7, 2)),
])
def test_openspiel_value_iteration_agrees(value_iteration, name, params, value):
    game = openspiel.load_game(GAMES / f"{name}.game", params)
    values = value_iteration(game, -1, 0.0, cyclic_game=True)   # cyclic: share transpositions
    assert _value(game, values) == pytest.approx(float(value))
    assert gdl.solve(game.gdl_game).values[0] == value


def test_openspiel_value_iteration_agrees_with_gdl_on_pig(value_iteration):
    # No published value for this small Pig: two independent solvers must agree.
    game = openspiel.load_game(GAMES / "pig.game", {"winscore": 3, "horizon": 6})
    values = value_iteration(game, -1, 0.0, cyclic_game=True)
    exact = gdl.solve(game.gdl_game).values[0]
    assert _value(game, values) == pytest.approx(float(exact), abs=1e-12)


def test_from_game_wraps_an_unregistered_game():
    tree = gdl.load(GAMES / "aima-fig5-4.game")
    game = openspiel.from_game(tree, "gdl_figure_5_4")
    state = game.new_initial_state()
    for label in ("a1", "b1", "c1"):
        state.apply_action(game.encoding.action_id(label))
    assert state.returns() == [1.0, 2.0, 6.0]          # the leftmost leaf of Figure 5.4


def test_mcts_example_in_the_docs_plays_a_game(monkeypatch, capsys):
    text = (ROOT / "docs" / "openspiel.md").read_text(encoding="utf-8")
    section = text[text.index("## MCTS on a gdl game"):text.index("## Loading and registering")]
    five, rest = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len([line for line in five.splitlines() if line.strip()]) == 5
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec((five + rest).replace("max_simulations=200", "max_simulations=20"), namespace)
    state = namespace["state"]
    assert state.is_terminal()
    assert sum(state.returns()) == 0 and state.returns()[0] in (-1.0, 0.0, 1.0)
    out = capsys.readouterr().out
    assert re.fullmatch(r"place\(\d,\d\)", out.splitlines()[0])     # the first block's move
    assert "game over" in out                                        # the whole game's end


# ---- gdl fuzz FILE --openspiel: OpenSpiel as one more solver ---------------------------------------

@pytest.mark.parametrize("name", ["tictactoe", "hexapawn", "pacman-random", "chance-example"])
def test_openspiel_crosscheck_agrees_at_fuzzed_positions(name):
    from gdl.bridges.crosscheck import crosscheck_file

    summary = crosscheck_file(str(GAMES / f"{name}.game"), examples=8, seed=2)
    (report,) = summary.targets.values()
    assert summary.failures == []
    assert report.positions >= 1 and report.solvers == {"openspiel"}


def test_openspiel_crosscheck_catches_a_planted_bug(monkeypatch):
    # Plant a bug in the bridge: returns handed to OpenSpiel in the wrong order of players.
    from gdl.bridges.crosscheck import crosscheck_file

    honest = openspiel.GdlState.returns
    monkeypatch.setattr(openspiel.GdlState, "returns", lambda self: honest(self)[::-1])
    summary = crosscheck_file(str(GAMES / "hexapawn.game"), examples=4, seed=0)
    assert summary.failures
    assert summary.failures[0].problems[0].kind == "values"


def test_gdl_fuzz_with_openspiel(capsys):
    from gdl.cli import main

    code = main(["fuzz", str(GAMES / "splitting.game"), "--examples", "5", "--openspiel", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["ok"]
    (openspiel_run,) = [run for run in document["runs"] if run["kind"] == "openspiel"]
    (target,) = openspiel_run["targets"].values()
    assert target["solvers"] == ["openspiel"] and target["positions"] == 5


def test_gdl_fuzz_openspiel_needs_files(capsys):
    from gdl.cli import main

    assert main(["fuzz", "--openspiel"]) == 2
    assert "--openspiel needs FILE arguments" in capsys.readouterr().err


def test_openspiel_rl_environment_trains_a_q_learner_on_the_observations():
    # The learning side: OpenSpiel's RL environment reads the observation tensor (29 entries for
    # tic-tac-toe: the mover and nine cells of three values) and a tabular Q-learner plays through it.
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    env = rl_environment.Environment(openspiel.load_game(GAMES / "tictactoe.game"))
    assert env.observation_spec()["info_state"] == (2 + 9 * 3,)
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=9) for p in range(2)]
    for _ in range(30):
        step = env.reset()
        while not step.last():
            agent = agents[step.observations["current_player"]]
            step = env.step([agent.step(step).action])
        for agent in agents:
            agent.step(step)
        assert sorted(step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
    # the end-of-game rewards reached its action values: it learned from the games
    assert any(q != 0 for values in agents[0]._q_values.values() for q in values.values())


def test_a_registered_game_pickles_with_its_rules_even_into_a_fresh_process():
    import pickle
    import subprocess

    game = openspiel.load_game(GAMES / "connect4.game", {"columns": 5})
    state = game.new_initial_state()
    state.apply_action(2)
    # every registered game has the bridge's own parameter max_moves (0: no limit)
    assert str(pickle.loads(pickle.dumps(game))) == "gdl_connect4(columns=5,max_moves=0,rows=4)"
    assert pickle.loads(pickle.dumps(state)).history() == [2]
    # A process that never registered the file: the pickle carries the rule text.
    script = "import pickle, sys; game = pickle.loads(sys.stdin.buffer.read()); print(game.num_distinct_actions())"
    done = subprocess.run([sys.executable, "-c", script], input=pickle.dumps(game), capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "5"


# ---- the same game written twice: gdl's rule file against OpenSpiel's own implementation ----------

@pytest.mark.parametrize("rule_file, params, native", [
    ("tictactoe.game", {}, "tic_tac_toe"),
    ("connect4.game", {"columns": 7, "rows": 6}, "connect_four"),
    ("pig.game", {"winscore": 20}, "pig(winscore=20,diceoutcomes=3)"),
])
def test_random_playouts_in_lockstep_with_openspiels_own_game(rule_file, params, native):
    # The action numbers coincide by construction of both (a cell row * 3 + column, a column, roll
    # then stop; a die face f is outcome f - 1), so the same choices must give the same legal
    # actions, chance distributions, players to move and results, move after move.
    ours = openspiel.load_game(GAMES / rule_file, params)
    theirs = pyspiel.load_game(native)
    rng = random.Random(5)
    for _ in range(40):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not b.is_terminal():
            assert a.current_player() == b.current_player()
            if b.is_chance_node():
                assert [o for o, _ in a.chance_outcomes()] == [o for o, _ in b.chance_outcomes()]
                assert [p for _, p in a.chance_outcomes()] == pytest.approx([p for _, p in b.chance_outcomes()])
                action = rng.choice([outcome for outcome, _ in b.chance_outcomes()])
            else:
                assert a.legal_actions() == b.legal_actions()
                action = rng.choice(b.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        assert a.is_terminal() and a.returns() == b.returns()


# ---- generated games: the bridge on shapes no bundled game has ---------------------------------------

def _crosscheck(game):
    from gdl.bridges.crosscheck import position_problems

    spiel_game = openspiel.from_game(game)
    pyspiel.random_sim_test(spiel_game, num_sims=2, serialize=False, verbose=False)
    return position_problems(spiel_game, game.initial_state())


@settings(max_examples=25)
@given(rules=rule_games(players=2, sum_kinds=(ZERO_SUM,)))
def test_generated_two_player_rule_games_agree_with_openspiel(rules):
    assert _crosscheck(rules.load("compile")) == []


@settings(max_examples=25)
@given(game=st.one_of(trees(players=2, chance=True, sum_kind=ZERO_SUM),
                      trees(players=2, sum_kind=ZERO_SUM, alternating=True, values=range(-2, 3))))
def test_generated_two_player_trees_agree_with_openspiel(game):
    assert _crosscheck(game) == []


@settings(max_examples=25)
@given(rules=rule_games(players=(2, 3), sum_kinds=(CONSTANT_SUM, GENERAL_SUM)))
def test_generated_n_player_rule_games_pass_the_random_simulation_check(rules):
    # Sums, bounds, lengths and observations as declared, for constant- and general-sum games
    # of two and three players (OpenSpiel has no max^n to compare values with).
    pyspiel.random_sim_test(openspiel.from_game(rules.load("compile")), num_sims=2, serialize=False,
                            verbose=False)


# ---- games that repeat a position (games/cyclic/): loading, plays cut short, value iteration --------

def test_a_game_without_a_bound_gets_the_longest_length_openspiel_can_hold():
    # Piglet can repeat a position: no longest play. OpenSpiel adds a chance node per decision to
    # max_game_length for its longest history, in a C++ int: 2 * (2**30 - 1) still fits.
    game = openspiel.load_game(CYCLIC / "piglet.game")
    assert game.max_game_length() == openspiel.UNBOUNDED == 2**30 - 1
    assert game.max_history_length() == 2**31 - 2
    assert game.min_utility() == -1.0 and game.max_utility() == 1.0


def _play(state, names):
    for name in names:
        moves = {state.action_to_string(a): a for a in state.legal_actions()}
        state.apply_action(moves[name])
    return state


def test_max_moves_cuts_a_play_short_worth_the_endless_value():
    game = openspiel.load_game(CYCLIC / "ring-chase.game", {"max_moves": 3})
    assert game.max_game_length() == 3
    # cat 0 -> 1, mouse 2 -> 3, cat 1 -> 0: three moves and no capture
    state = _play(game.new_initial_state(), ["cat_step(1)", "mouse_step(1)", "cat_step(2)"])
    assert state.is_terminal() and state.legal_actions() == []
    assert state.returns() == [0.0, 0.0]               # `when endless draw`
    assert str(state).splitlines()[0] == "play cut short after 3 moves: Cat 0, Mouse 0"
    assert str(state).splitlines()[-1] == "moves made: 3 of 3"
    # a capture on the third move is the rules' own end: the cat's win
    state = _play(game.new_initial_state(), ["cat_step(1)", "sit", "cat_step(1)"])
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert str(state).startswith("game over: Cat 1, Mouse -1")


def test_a_play_cut_short_is_worth_what_the_rules_say_endless_play_is():
    text = (CYCLIC / "ring-chase.game").read_text().replace("when endless draw",
                                                            "when endless (-1, 1)")
    game = openspiel.from_game(gdl.loads(text), "gdl_mouse_wins", max_moves=1)
    state = _play(game.new_initial_state(), ["cat_step(1)"])
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    # no `when endless`: a draw, 0 each in a zero-sum game, within the declared bounds
    game = openspiel.load_game(CYCLIC / "piglet.game", {"max_moves": 1})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])      # flip
    state.apply_action(1)                             # heads (outcome 1): the turn goes on
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_max_moves_beyond_the_rules_bound_changes_nothing():
    tictactoe = openspiel.load_game(GAMES / "tictactoe.game", {"max_moves": 20})
    assert tictactoe.max_game_length() == 9            # `max-length 9` is shorter
    short = openspiel.load_game(GAMES / "tictactoe.game", {"max_moves": 4})
    assert short.max_game_length() == 4
    state = _play(short.new_initial_state(), ["place(0,0)", "place(1,1)", "place(0,1)", "place(0,2)"])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_a_declared_max_length_the_rules_break_cuts_plays_short_there():
    # ping-pong-bounded.game promises plays of at most 10 moves, but serve and hits go on for
    # ever (gdl check --deep: E408): OpenSpiel's max_game_length stays true all the same.
    game = openspiel.load_game(ROOT / "tests" / "data" / "deep" / "ping-pong-bounded.game")
    assert game.max_game_length() == 10
    state = _play(game.new_initial_state(), ["serve"] + ["hit"] * 9)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_max_moves_is_a_game_parameter_and_survives_pickling():
    import pickle

    openspiel.register(CYCLIC / "ring-chase.game")
    game = pyspiel.load_game("gdl_ring_chase(cells=4,max_moves=6)")
    assert game.max_game_length() == 6
    assert str(pickle.loads(pickle.dumps(game))) == "gdl_ring_chase(cells=4,max_moves=6)"
    with pytest.raises(ValueError, match="max_moves must be a positive number"):
        pyspiel.load_game("gdl_ring_chase(max_moves=-1)")


def test_rules_declaring_a_param_called_max_moves_are_refused(tmp_path):
    path = tmp_path / "clash.game"
    path.write_text((CYCLIC / "ring-chase.game").read_text().replace(
        "param cells = 5", "param cells = 5\nparam max_moves = 5"))
    with pytest.raises(ValueError, match="`param max_moves`"):
        openspiel.register(path, "gdl_clash")


@pytest.mark.parametrize("name, max_moves", [("piglet", 3), ("ring-chase", 2), ("give-and-take", 1),
                                             ("pig100", 5), ("rounds", 4)])
def test_random_simulation_check_passes_with_plays_cut_short(name, max_moves):
    game = openspiel.load_game(CYCLIC / f"{name}.game", {"max_moves": max_moves})
    assert game.max_game_length() == max_moves
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_the_crosscheck_refuses_a_game_that_repeats_a_position():
    from gdl.bridges.crosscheck import crosscheck_file
    from gdl.bridges.encoding import EncodingError

    with pytest.raises(EncodingError, match="value_iteration"):
        crosscheck_file(str(CYCLIC / "ring-chase.game"), examples=2)


# Value iteration stops when a sweep changes no value by more than THRESHOLD; that bounds the last
# change, not the distance to the solution, which shrinks by a factor per sweep (the chance that
# play goes on), so the values are compared within a looser TOLERANCE (the worst distance from
# gdl's exact values measured over every position of these Piglets and Pigs: 1.7e-10).
THRESHOLD = 1e-10
TOLERANCE = 1e-9


def _positions(game):
    """Every decision and terminal position of ``game`` as OpenSpiel walks them for value
    iteration: str(state) -> state (chance positions left out, as value_iteration does)."""
    from open_spiel.python.algorithms.get_all_states import get_all_states

    return get_all_states(game, -1, True, False, to_string=str, stop_if_encountered=True)


def _agree_everywhere(game, values, solution):
    """OpenSpiel's value_iteration table against gdl's strong solve: the same positions (decision
    and terminal; the table leaves chance positions out) and the same value at each."""
    graph = solution.graph
    kept = [i for i in range(len(graph)) if graph.player[i] != pyspiel.PlayerId.CHANCE]
    positions = _positions(game)
    assert len(values) == len(positions) == len(kept)
    for key, state in positions.items():
        exact = solution.value(graph.position_id(state.gdl_state))[0]
        assert values[key] == pytest.approx(float(exact), abs=TOLERANCE), key


@pytest.mark.parametrize("goal, first_wins", [
    (1, Fraction(2, 3)),     # by hand: P = 1/2 + (1/2)(1/2)P, heads at once or two tails and again
    (2, Fraction(4, 7)),     # by hand from the equations of each score pair (tests/test_graph.py)
])
def test_openspiel_value_iteration_solves_piglet_as_gdl_does(value_iteration, goal, first_wins):
    game = openspiel.load_game(CYCLIC / "piglet.game", {"goal": goal})
    values = value_iteration(game, -1, THRESHOLD, cyclic_game=True)
    assert _value(game, values) == pytest.approx(float(2 * first_wins - 1), abs=TOLERANCE)
    _agree_everywhere(game, values, strong_solve(game.gdl_game))
    # OpenSpiel's own Piglet (its pig with a coin: outcome 0, tails, loses the turn total) agrees
    theirs = pyspiel.load_game("pig", {"piglet": True, "diceoutcomes": 2, "winscore": goal})
    their_values = value_iteration(theirs, -1, THRESHOLD, cyclic_game=True)
    assert their_values[str(theirs.new_initial_state())] == pytest.approx(_value(game, values),
                                                                          abs=TOLERANCE)


@pytest.mark.parametrize("goal, sides", [(6, 3), (10, 4)])
def test_openspiel_value_iteration_solves_a_small_pig_as_gdl_and_openspiels_own_pig_do(
        value_iteration, goal, sides):
    # No published value for these: OpenSpiel's own pig (C++, its rules: it also lets a player
    # stop at a turn total of 0, which never helps) and gdl's rule file through the bridge, both
    # solved by OpenSpiel's value iteration, and gdl's exact strong solve, must agree.
    game = openspiel.load_game(CYCLIC / "pig100.game", {"goal": goal, "sides": sides})
    values = value_iteration(game, -1, THRESHOLD, cyclic_game=True)
    solution = strong_solve(game.gdl_game)
    assert solution.exact
    _agree_everywhere(game, values, solution)
    theirs = pyspiel.load_game("pig", {"winscore": goal, "diceoutcomes": sides})
    their_values = value_iteration(theirs, -1, THRESHOLD, cyclic_game=True)
    assert their_values[str(theirs.new_initial_state())] == pytest.approx(_value(game, values),
                                                                          abs=TOLERANCE)


def _ring_chase_by_hand(cells, variables, mover):
    """Cat's value in the ring chase, by hand. The cat wins by stepping onto the mouse, so with
    the cat to move it wins at once from next door (ring distance 1). On a ring of 3 every cell
    is next door to the cat, so wherever the mouse goes the cat wins. On a ring of 4 or more the
    mouse next door steps away, to distance 2, and a mouse at distance 2 can always stay there
    (away from a cat that comes next door, or sitting), so with the cat to move at distance 2,
    or the mouse to move, play goes on for ever: `when endless draw`, 0."""
    if variables["caught"]:
        return 1
    gap = abs(variables["cat"] - variables["mouse"])
    next_door = min(gap, cells - gap) == 1
    return 1 if cells == 3 or (mover == 0 and next_door) else 0


@pytest.mark.parametrize("cells", [3, 4, 5, 6])
def test_openspiel_value_iteration_on_the_ring_chase_values_endless_play_at_its_draw(
        value_iteration, cells):
    # Without chance the iteration settles exactly. It starts every position at 0 and a position
    # from which nobody forces an end keeps that 0: the value of endless play it assumes, which is
    # what the rules declare here (`when endless draw`, zero-sum).
    game = openspiel.load_game(CYCLIC / "ring-chase.game", {"cells": cells})
    values = value_iteration(game, -1, 0.0, cyclic_game=True)
    solution = strong_solve(game.gdl_game)
    _agree_everywhere(game, values, solution)
    for key, state in _positions(game).items():
        variables = game.gdl_game.variables(state.gdl_state)
        assert values[key] == _ring_chase_by_hand(cells, variables, state.current_player()), key


def test_openspiel_value_iteration_knows_no_other_value_of_endless_play(value_iteration):
    # The limit docs/openspiel.md states: with `when endless (-1, 1)` (the mouse wins by running for
    # ever) the start is a loss for the cat by hand (the mouse keeps its distance for ever, see
    # _ring_chase_by_hand), but OpenSpiel's iteration still values endless play at its starting 0.
    text = (CYCLIC / "ring-chase.game").read_text().replace("when endless draw",
                                                            "when endless (-1, 1)")
    game = openspiel.from_game(gdl.loads(text), "gdl_mouse_wins")
    values = value_iteration(game, -1, 0.0, cyclic_game=True)
    assert values[str(game.new_initial_state())] == 0.0


def test_value_iteration_with_max_moves_solves_the_game_cut_short(value_iteration):
    # Piglet to 1: every decision is a flip, heads wins for the flipper, tails passes the turn.
    # Cut short after 3 flips (a draw, 0): A wins at flip 1 or 3 (1/2 + 1/8), B at flip 2 (1/4):
    # A's value 5/8 - 1/4 = 3/8. The moves made are in str(state), so value iteration keeps the
    # flips apart instead of merging them into the uncut game's 1/3.
    game = openspiel.load_game(CYCLIC / "piglet.game", {"goal": 1, "max_moves": 3})
    values = value_iteration(game, -1, 0.0, cyclic_game=True)
    assert _value(game, values) == pytest.approx(3 / 8, abs=1e-15)


def test_value_iteration_example_in_the_docs_prints_piglets_value(monkeypatch, capsys):
    text = (ROOT / "docs" / "openspiel.md").read_text(encoding="utf-8")
    section = text[text.index("**Value iteration.**"):text.index("`gdl fuzz FILE --openspiel` compares")]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(ROOT)
    # the example stands in its own lp_solver module; this puts back whatever was there before
    name = "open_spiel.python.algorithms.lp_solver"
    monkeypatch.setitem(sys.modules, name, sys.modules.get(name, types.ModuleType(name)))
    exec(code, {})
    # Piglet to 2: the first player wins 4/7 (by hand), so A's value is 2 * 4/7 - 1 = 1/7
    assert float(capsys.readouterr().out) == pytest.approx(1 / 7, abs=1e-9)
