"""gdl games with hidden information or simultaneous moves inside OpenSpiel (gdl.bridges.openspiel):
OpenSpiel's own conformance test, its CFR, exploitability and matrix-game tools run on them, and
their information states checked against OpenSpiel's own Kuhn poker and against gdl's.

Optional: runs where the `openspiel` extra is installed (``pip install -e '.[openspiel]'``)."""

import re
from fractions import Fraction

import pytest
from helpers import GAMES, ROOT
from wide_rules import BIASED_RPS, BOUNDED, HIDE, KUHN3, PENNIES, RPS, WIDE

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

import gdl  # noqa: E402
from gdl.bridges import openspiel  # noqa: E402
from gdl.solvers import extensive, information  # noqa: E402

Type = pyspiel.GameType
KUHN_VALUE = -1 / 18          # the first player's value of Kuhn's poker (Kuhn 1950)


def _load(name: str, params: dict | None = None):
    """The rule text ``WIDE[name]``, registered once as ``gdl_test_<name>``."""
    registered = openspiel.register_text(WIDE[name], f"<{name}>", "gdl_test_" + name.replace("-", "_"))
    return pyspiel.load_game(registered, dict(params or {}))


def _kuhn():
    return openspiel.load_game(GAMES / "kuhn.game")


# ---- what OpenSpiel is told ---------------------------------------------------------------------

def test_hidden_information_and_simultaneous_moves_are_openspiels_imperfect_information():
    kuhn = _kuhn().get_type()
    assert kuhn.dynamics == Type.Dynamics.SEQUENTIAL
    assert kuhn.information == Type.Information.IMPERFECT_INFORMATION
    assert kuhn.chance_mode == Type.ChanceMode.EXPLICIT_STOCHASTIC
    assert (kuhn.provides_information_state_string, kuhn.provides_information_state_tensor,
            kuhn.provides_observation_string, kuhn.provides_observation_tensor) == (True,) * 4
    rps = _load("rps").get_type()
    assert rps.dynamics == Type.Dynamics.SIMULTANEOUS
    assert rps.information == Type.Information.IMPERFECT_INFORMATION
    assert rps.chance_mode == Type.ChanceMode.DETERMINISTIC
    # a game that hides nothing and moves one player at a time is what it was
    tictactoe = openspiel.load_game(GAMES / "tictactoe.game").get_type()
    assert tictactoe.dynamics == Type.Dynamics.SEQUENTIAL
    assert tictactoe.information == Type.Information.PERFECT_INFORMATION
    assert not tictactoe.provides_information_state_tensor


@pytest.mark.parametrize("name", sorted(WIDE))
@pytest.mark.parametrize("params", [{}, {"max_moves": 2}], ids=["rules", "cut-short"])
def test_openspiel_random_simulation_check_passes(name, params):
    # OpenSpiel's conformance test (clones, serialisation, legal-action masks, unique action
    # names per player at joint moves, returns, and every information-state and observation
    # string and vector of every player at every decision)
    game = _load(name, params)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
    if game.get_type().dynamics == Type.Dynamics.SIMULTANEOUS:
        pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=10, serialize=False,
                                verbose=False)


def test_kuhn_passes_the_random_simulation_check():
    pyspiel.random_sim_test(_kuhn(), num_sims=20, serialize=True, verbose=False)


# ---- information states: OpenSpiel's own Kuhn poker, and gdl's ---------------------------------

def _lockstep(ours, theirs, name_of):
    """Walk every history of ``theirs`` (an OpenSpiel game) and the same history of ``ours`` (the
    bridged gdl game), mapping moves by ``name_of(their state, player, action) -> our action's
    name``. Returns [(player, our information string, their information string)] at every
    decision; asserts the chance probabilities and the returns agree."""
    seen = []

    def walk(a, b):
        assert a.is_terminal() == b.is_terminal()
        if b.is_terminal():
            assert a.returns() == pytest.approx(b.returns(), abs=1e-12)
            return
        player = b.current_player()
        assert a.current_player() == player
        if b.is_chance_node():
            ours_by_name = {a.action_to_string(player, x): (x, p) for x, p in a.chance_outcomes()}
            assert len(ours_by_name) == len(b.chance_outcomes())
            for action, probability in b.chance_outcomes():
                x, p = ours_by_name[name_of(b, player, action)]
                assert p == pytest.approx(probability, abs=1e-15)
                walk(a.child(x), b.child(action))
            return
        seen.append((player, a.information_state_string(player), b.information_state_string(player)))
        for action in b.legal_actions():
            wanted = name_of(b, player, action)
            (x,) = [x for x in a.legal_actions() if a.action_to_string(player, x) == wanted]
            walk(a.child(x), b.child(action))

    walk(ours.new_initial_state(), theirs.new_initial_state())
    return seen


def _same_partition(pairs) -> bool:
    """Do the two labellings of the same decisions tell apart exactly the same decisions?"""
    forward, backward = {}, {}
    for left, right in pairs:
        if forward.setdefault(left, right) != right or backward.setdefault(right, left) != left:
            return False
    return True


def _kuhn_move(names: dict):
    """OpenSpiel's kuhn_poker move -> gdl's kuhn.game move: the deal of card k (0 Jack .. 2
    King) is `first=k+1`, then `second=k+1`; Pass is a check or, facing a bet, a fold; Bet is a
    bet or, facing a bet, a call."""
    def name_of(state, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            dealt = len(state.history())
            return f"{names[dealt]}={action + 1}"
        facing_bet = "b" in str(state).split(" ")[-1] if len(state.history()) > 2 else False
        if action == 0:
            return "fold" if facing_bet else "check"
        return "call" if facing_bet else "bet"
    return name_of


def test_kuhn_information_states_are_those_of_openspiels_own_kuhn_poker():
    seen = _lockstep(_kuhn(), pyspiel.load_game("kuhn_poker"), _kuhn_move({0: "first", 1: "second"}))
    ours = {(p, s) for p, s, _ in seen}
    theirs = {(p, t) for p, _, t in seen}
    # Kuhn's poker has 12 information sets: 6 per player (3 cards x 2 betting histories)
    assert len(theirs) == 12
    assert len(ours) == 12
    assert _same_partition(((p, s), (p, t)) for p, s, t in seen)


def test_three_player_kuhn_is_openspiels_and_cfr_lowers_its_nash_conv_the_same():
    ours = _load("kuhn3")
    theirs = pyspiel.load_game("kuhn_poker", {"players": 3})

    def name_of(state, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"{'abc'[len(state.history())]}={action}"
        return "bet" if action == 1 else "pass"

    seen = _lockstep(ours, theirs, name_of)
    assert len({(p, t) for p, _, t in seen}) == 48      # 4 cards x 12 betting histories
    assert _same_partition(((p, s), (p, t)) for p, s, t in seen)
    # OpenSpiel's C++ CFR, run through the bridge (Python called back at every node)
    mine, its = pyspiel.CFRSolver(ours), pyspiel.CFRSolver(theirs)
    figures = []
    for iteration in range(1, 11):
        mine.evaluate_and_update_policy()
        its.evaluate_and_update_policy()
        if iteration in (1, 3, 10):
            ours_conv = pyspiel.nash_conv(ours, mine.average_policy())
            assert ours_conv == pytest.approx(pyspiel.nash_conv(theirs, its.average_policy()),
                                              abs=1e-9)
            figures.append(ours_conv)
    assert figures[0] > figures[1] > figures[2]


def _walk_views(game, gdl_game):
    """Every decision of the bridged ``game`` (every history, joint moves included), with gdl's
    information state and observation of each acting player computed here from the gdl game
    (gdl.solvers.information), apart from the bridge: [(player, information string, its
    vector, observation string, its vector, gdl's key, gdl's observation)]."""
    rows = []

    def walk(state, keys):
        if state.is_terminal():
            return
        gdl_state = state.gdl_state
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                child = state.child(action)
                move = game.encoding.chance_outcome(gdl_state, action)
                walk(child, information.step(gdl_game, keys, gdl_state, move, child.gdl_state))
            return
        acting = information.acting(gdl_game, gdl_state)
        for p in acting:
            rows.append((p, state.information_state_string(p),
                         tuple(state.information_state_tensor(p)),
                         state.observation_string(p), tuple(state.observation_tensor(p)),
                         keys[p], information.observation(gdl_game, gdl_state, p)))
        if state.is_simultaneous_node():
            joints = [[]]
            for p in range(gdl_game.info.num_players):
                joints = [j + [a] for j in joints for a in (state.legal_actions(p) or [0])]
            for joint in joints:
                child = state.clone()
                child.apply_actions(joint)
                move = tuple(game.encoding.action(joint[p]) for p in acting)
                walk(child, information.step(gdl_game, keys, gdl_state, move, child.gdl_state))
        else:
            for action in state.legal_actions():
                child = state.child(action)
                move = game.encoding.action(action)
                walk(child, information.step(gdl_game, keys, gdl_state, move, child.gdl_state))

    start = game.new_initial_state()
    walk(start, information.start(gdl_game, start.gdl_state))
    return rows


@pytest.mark.parametrize("name", ["kuhn"] + BOUNDED)
def test_strings_and_vectors_tell_apart_exactly_what_gdls_information_states_do(name):
    game = _kuhn() if name == "kuhn" else _load(name)
    gdl_game = game.gdl_game
    rows = _walk_views(game, gdl_game)
    for p in range(gdl_game.info.num_players):
        mine = [row for row in rows if row[0] == p]
        assert mine
        assert _same_partition((string, key) for _, string, _, _, _, key, _ in mine)
        assert _same_partition((vector, key) for _, _, vector, _, _, key, _ in mine)
        assert _same_partition((string, seen) for _, _, _, string, _, _, seen in mine)
        assert _same_partition((vector, seen) for _, _, _, _, vector, _, seen in mine)
        # the information states met are those gdl's sequence-form writer finds
        written = extensive.build(gdl_game)
        assert {key for *_, key, _ in mine} == set(written.players[p].keys)
    # one player's information state never reads as another's (OpenSpiel's tables key by it)
    players_of = {}
    for p, string, *_ in rows:
        assert players_of.setdefault(string, p) == p


def test_a_player_sees_its_own_card_and_every_bet_and_nothing_else():
    game = _kuhn()
    first_views, second_views = {}, {}
    state = game.new_initial_state()
    for first in state.chance_outcomes():
        dealt = state.child(first[0])
        for second in dealt.chance_outcomes():
            at_first = dealt.child(second[0])
            cards = gdl.load(GAMES / "kuhn.game").variables(at_first.gdl_state)["card"]
            first_views.setdefault(at_first.observation_string(0), set()).add(cards[0])
            check = at_first.child(at_first.legal_actions()[0])        # First checks
            second_views.setdefault(check.information_state_string(1), set()).add(cards[1])
            assert "card[Second]" not in at_first.information_state_string(0)
            assert "card[First]" not in check.information_state_string(1)
    # six deals; First's view tells its own card (three views, one card each) and no more,
    # and so does Second's after the check
    assert sorted(map(sorted, first_views.values())) == [[1], [2], [3]]
    assert sorted(map(sorted, second_views.values())) == [[1], [2], [3]]
    assert re.fullmatch(r"First sees: .*card\[First\]=\d.*", next(iter(first_views)))


def test_a_hidden_action_reads_as_a_question_mark_to_the_others():
    game = _load("hide")
    views = set()
    for action in game.new_initial_state().legal_actions():
        state = game.new_initial_state().child(action)
        views.add(state.information_state_string(1))
        assert re.search(r"place\((heads|tails)\)", state.information_state_string(0))
    (seeker,) = views            # the seeker cannot tell where the coin went
    assert seeker == "Seeker saw: turn=Hider guess=none | ?: turn=Seeker"


@pytest.mark.parametrize("name", ["kuhn"] + sorted(WIDE))
def test_openspiels_playthrough_generator_runs_on_the_game(name):
    # OpenSpiel's own regression format for its games: every state of a random play with every
    # observation of every kind (the information state, the observation, and the public and
    # private parts of an observation, which games of imperfect information are asked for)
    from open_spiel.python.algorithms import generate_playthrough

    registered = openspiel.register(GAMES / "kuhn.game") if name == "kuhn" else \
        openspiel.register_text(WIDE[name], f"<{name}>", "gdl_test_" + name.replace("-", "_"))
    text = generate_playthrough.playthrough(registered, None)
    assert "GameType.information = Information.IMPERFECT_INFORMATION" in text
    if name == "kuhn":
        # at the start nobody has a card yet (0): the public part has no cards, the private
        # part each player's own entry and nothing else
        assert 'PublicObservationString() = "public: turn=Second stake[0]=1 stake[1]=1 ' \
            'folded=nobody over=false"' in text
        assert 'PrivateObservationString(0) = "First\'s own: card[First]=0"' in text
        assert 'PrivateObservationString(1) = "Second\'s own: card[Second]=0"' in text
    if name == "rps":       # nothing hidden: everything is public, nothing private
        assert 'PrivateObservationString(0) = "A\'s own:"' in text
        assert 'PublicObservationString() = "public: turn=A hand[0]=none hand[1]=none"' in text


def test_the_public_part_is_everyones_and_the_private_part_ones_own():
    game = _kuhn()
    public = game.make_py_observer(pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    private = game.make_py_observer(pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    seen = 0
    for state, _ in _decisions(game):
        views = []
        for p in (0, 1):
            public.set_from(state, p)
            views.append((public.string_from(state, p), tuple(public.tensor)))
        assert views[0] == views[1] and "card" not in views[0][0]
        for p, name in enumerate(("First", "Second")):
            private.set_from(state, p)
            card = game.gdl_game.variables(state.gdl_state)["card"][p]
            assert private.string_from(state, p) == f"{name}'s own: card[{name}]={card}"
            assert sum(private.tensor) == 1
        seen += 1
    assert seen == 6 * 4          # six deals, four betting positions each (start, c, b, cb)


def _decisions(game):
    """Every decision of a sequential game, with its history."""
    stack = [(game.new_initial_state(), ())]
    while stack:
        state, history = stack.pop()
        if state.is_terminal():
            continue
        moves = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else \
            state.legal_actions()
        if not state.is_chance_node():
            yield state, history
        stack.extend((state.child(a), history + (a,)) for a in moves)


def test_observers_for_every_player_or_all_of_the_state():
    game = _kuhn()
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.child(state.chance_outcomes()[0][0])
    everything = pyspiel.IIGObservationType(perfect_recall=False,
                                            private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    observer = game.make_py_observer(everything)
    assert observer.string_from(state, 0) == str(state)     # the whole state, both cards
    public_history = pyspiel.IIGObservationType(perfect_recall=True,
                                                private_info=pyspiel.PrivateInfoType.NONE)
    with pytest.raises(ValueError, match="SINGLE_PLAYER"):
        game.make_py_observer(public_history)


# ---- OpenSpiel's algorithms on gdl's games ------------------------------------------------------

def test_openspiels_cfr_on_gdls_kuhn_converges_to_minus_one_eighteenth_as_on_its_own():
    ours, theirs = _kuhn(), pyspiel.load_game("kuhn_poker")
    mine, its = cfr.CFRSolver(ours), cfr.CFRSolver(theirs)
    falls = []
    for iteration in range(1, 101):
        mine.evaluate_and_update_policy()
        its.evaluate_and_update_policy()
        policy = mine.average_policy()
        value = expected_game_score.policy_value(ours.new_initial_state(), [policy] * 2)[0]
        theirs_value = expected_game_score.policy_value(
            theirs.new_initial_state(), [its.average_policy()] * 2)[0]
        # the same algorithm on the same game tree: the same average strategy, move for move
        assert value == pytest.approx(theirs_value, abs=1e-12)
        if iteration in (1, 10, 100):
            falls.append(exploitability.exploitability(ours, policy))
            assert falls[-1] == pytest.approx(
                exploitability.exploitability(theirs, its.average_policy()), abs=1e-12)
    assert abs(value - KUHN_VALUE) < 1e-3                 # -1/18 (Kuhn 1950)
    assert falls[0] > falls[1] > falls[2]
    assert falls[2] < 0.01


def test_openspiels_cpp_cfr_and_best_response_run_on_the_python_game():
    game = _kuhn()
    solver = pyspiel.CFRSolver(game)
    conv = []
    for iteration in range(1, 101):
        solver.evaluate_and_update_policy()
        if iteration in (1, 10, 100):
            conv.append(pyspiel.nash_conv(game, solver.average_policy()))
    assert conv[0] > conv[1] > conv[2]
    value = pyspiel.expected_returns(game.new_initial_state(), solver.average_policy(), -1, True)[0]
    assert abs(value - KUHN_VALUE) < 1e-3


def _matrix(game):
    """The normal form OpenSpiel makes of a one-shot simultaneous game: rows are the first
    player's pure strategies, each labelled with its action's name."""
    matrix = pyspiel.extensive_to_matrix_game(pyspiel.convert_to_turn_based(game))
    names = [re.search(r"action = (\d+)", matrix.row_action_name(i))[1]
             for i in range(matrix.num_rows())]
    state = game.new_initial_state()
    return ([state.action_to_string(0, int(n)) for n in names],
            [[matrix.row_utility(i, j) for j in range(matrix.num_cols())]
             for i in range(matrix.num_rows())])


def test_openspiel_solves_rock_paper_scissors_at_zero_with_the_uniform_strategy():
    game = _load("rps")
    names, matrix = _matrix(game)
    assert names == ["show(rock)", "show(paper)", "show(scissors)"]
    assert matrix == [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    turns = pyspiel.convert_to_turn_based(game)
    solver = cfr.CFRSolver(turns)
    for _ in range(50):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    # the unique equilibrium: any other mix loses to one pure reply
    # (two rows: the first player's choice, and the second's, who cannot see it)
    assert policy.action_probability_array.ravel().tolist() == pytest.approx([1 / 3] * 6,
                                                                             abs=1e-12)
    assert expected_game_score.policy_value(turns.new_initial_state(), [policy] * 2)[0] == \
        pytest.approx(0, abs=1e-12)
    assert exploitability.exploitability(turns, policy) == pytest.approx(0, abs=1e-12)
    # and always rock is exploited by paper: each player's best response gains 1
    rock = policy.__copy__()
    rock.action_probability_array[:] = [1, 0, 0]
    assert exploitability.exploitability(turns, rock) == pytest.approx(1)


def test_openspiel_solves_biased_rock_paper_scissors_to_its_closed_form():
    # Rows and columns R, P, S; rock beating scissors pays the first player 3. A completely
    # mixed optimal x makes every column pay the value v: xP - xS = v, xS - xR = v,
    # 3xR - xP = v; so xR = 3v/2, xP = 7v/2, xS = 5v/2, summing to 1: v = 2/15, x = (1/5,
    # 7/15, 1/3). Likewise y equalises the rows: y = (1/3, 7/15, 1/5).
    game = _load("biased-rps")
    names, matrix = _matrix(game)
    assert matrix == [[0, -1, 3], [1, 0, -1], [-1, 1, 0]]
    turns = pyspiel.convert_to_turn_based(game)
    solver = pyspiel.CFRPlusSolver(turns)
    conv = []
    for iteration in range(1, 1001):
        solver.evaluate_and_update_policy()
        if iteration in (10, 100, 1000):
            conv.append(pyspiel.nash_conv(turns, solver.average_policy()))
    policy = solver.average_policy()
    state = turns.new_initial_state()
    row = [p for _, p in policy.get_state_policy(state)]
    state.apply_action(0)                      # the second player sees nothing of it
    column = [p for _, p in policy.get_state_policy(state)]
    assert row == pytest.approx([1 / 5, 7 / 15, 1 / 3], abs=2e-3)
    assert column == pytest.approx([1 / 3, 7 / 15, 1 / 5], abs=2e-3)
    value = pyspiel.expected_returns(turns.new_initial_state(), policy, -1, True)[0]
    assert value == pytest.approx(float(Fraction(2, 15)), abs=1e-3)
    assert conv[0] > conv[1] > conv[2] and conv[2] < 5e-3


# ---- joint moves ------------------------------------------------------------------------------

def test_a_joint_move_takes_one_action_from_each_player_who_chooses():
    game = _load("duel")
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.child(state.chance_outcomes()[0][0])
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    say = [state.legal_actions(p) for p in (0, 1)]
    assert say[0] == say[1] and [state.action_to_string(0, a) for a in say[0]] == \
        ["say(yes)", "say(no)"]
    with pytest.raises(ValueError, match="legal_actions\\(player\\)"):
        state.legal_actions()
    with pytest.raises(ValueError, match="cannot play"):
        state.clone().apply_actions([say[0][0], say[0][0] + 100])
    state.apply_actions([say[0][0], say[1][1]])          # A raises, B holds
    # then A alone guesses B's die: a decision of one player inside a simultaneous game
    assert state.current_player() == 0
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["call(1)", "call(2)"]
    assert state.legal_actions(1) == []
    assert "(say(yes), say(no))" in state.information_state_string(0)
    assert "die[B]" not in state.information_state_string(0)


def test_a_game_that_can_go_on_for_ever_has_strings_but_no_information_vector():
    game = _load("pennies")
    assert not game.get_type().provides_information_state_tensor
    assert game.max_game_length() == openspiel.UNBOUNDED
    cut = _load("pennies", {"max_moves": 3})
    state = cut.new_initial_state()
    heads, tails = state.legal_actions(0)
    for _ in range(3):                   # the coins never match: cut short after three rounds
        assert state.is_simultaneous_node()
        state.apply_actions([heads, tails])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]      # `when endless draw`
    assert state.information_state_string(0).count("(show(heads), show(tails))") == 3


def test_a_python_protocol_game_with_hidden_cards_bridges_too():
    from imperfect_games import KuhnPoker

    game = openspiel.from_game(KuhnPoker(), name="gdl_python_kuhn")
    assert game.get_type().information == Type.Information.IMPERFECT_INFORMATION
    assert not game.get_type().provides_information_state_tensor     # no bound known
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)
    solver = cfr.CFRSolver(game)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    value = expected_game_score.policy_value(game.new_initial_state(),
                                             [solver.average_policy()] * 2)[0]
    assert abs(value - KUHN_VALUE) < 1e-3


def test_rules_used_here_solve_as_gdl_says():
    # the rule texts are the games the tests mean: gdl's exact solvers agree with the hand values
    assert gdl.solve(gdl.loads(RPS, "<rps>")).values == (0, 0)
    assert gdl.solve(gdl.loads(BIASED_RPS, "<biased>")).values == (Fraction(2, 15), Fraction(-2, 15))
    assert gdl.solve(gdl.loads(HIDE, "<hide>")).values == (0, 0)   # hidden matching pennies
    assert gdl.loads(KUHN3, "<kuhn3>").info.num_players == 3
    assert gdl.loads(PENNIES, "<pennies>").info.simultaneous


# ---- gdl fuzz FILE --openspiel: OpenSpiel's CFR+ against gdl's exact value ----------------------

@pytest.mark.parametrize("name", ["kuhn", "biased-rps", "hide", "coin"])
def test_openspiels_cfr_plus_agrees_with_gdls_exact_value_in_the_crosscheck(name, tmp_path):
    from gdl.bridges.crosscheck import crosscheck_file

    path = GAMES / "kuhn.game" if name == "kuhn" else tmp_path / f"{name}.game"
    if name != "kuhn":
        path.write_text(WIDE[name], encoding="utf-8")
    summary = crosscheck_file(str(path), examples=100)
    report = next(iter(summary.targets.values()))
    assert summary.ok, [str(p) for failure in summary.failures for p in failure.problems]
    assert report.positions == report.comparisons == 1 and report.skipped == 0


def test_the_crosscheck_catches_information_states_that_show_too_little(monkeypatch):
    # A planted bug: the bridge's strings forget the private cards, so OpenSpiel solves Kuhn's
    # poker played blind, whose value is not -1/18.
    from gdl.bridges import encoding
    from gdl.bridges.crosscheck import crosscheck_file

    shown = encoding.GameEncoding._cell_text
    monkeypatch.setattr(encoding.GameEncoding, "_cell_text",
                        lambda self, slot, value: "card=?" if self._cell_names[slot][0].startswith("card")
                        else shown(self, slot, value))
    summary = crosscheck_file(str(GAMES / "kuhn.game"), examples=100)
    (failure,) = summary.failures
    assert [p.kind for p in failure.problems] == ["values"]
    assert "gdl's is -1/18" in failure.problems[0].message


# ---- the examples in docs/openspiel.md ------------------------------------------------------------

def _doc_blocks():
    text = (ROOT / "docs" / "openspiel.md").read_text(encoding="utf-8")
    section = text[text.index("## Hidden information and simultaneous moves"):
                   text.index("What OpenSpiel sees, for these games")]
    return section, re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_kuhn_examples_in_the_docs_print_what_the_docs_say(monkeypatch, capsys):
    section, (cfr_block, view_block, _) = _doc_blocks()
    monkeypatch.chdir(ROOT)
    exec(cfr_block + view_block, {})
    value, exploit, information_line, observation_line = capsys.readouterr().out.splitlines()
    assert abs(float(value) - KUHN_VALUE) < 1e-3
    assert f"prints `{value}`" in section and f"exploitability `{exploit}`" in section
    assert information_line in section and observation_line in section
    assert "card[First]" not in information_line + observation_line


def test_the_rock_paper_scissors_example_in_the_docs_prints_what_the_docs_say(capsys):
    section, (_, _, rps_block) = _doc_blocks()
    exec(rps_block, {})
    first, matrix, strategies, exploit = capsys.readouterr().out.splitlines()
    assert first == "True [0, 1, 2]" and f"prints `{first}`" in section
    assert matrix == "[[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]"
    assert " ".join(matrix.split()) in " ".join(section.split())
    assert all(abs(p - 1 / 3) < 1e-12 for row in eval(strategies) for p in row)
    assert float(exploit) == 0.0
