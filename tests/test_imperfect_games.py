"""The bundled games with simultaneous moves or hidden information, each held to published facts
or to an independent computation, never to gdl's own output:

- rock-paper-scissors (games/rps.game) and matching pennies: the payoff matrices the rules give,
  value 0 and the uniform strategy (von Neumann & Morgenstern 1944); rock-paper-scissors with a
  rock win paying w: the closed-form strategy (1, w, 1) / (w + 2), derived by hand below;
- Goofspiel: every position's value against tests/imperfect_games.py's Goofspiel (prizes highest
  first) and against a recursion written here (prizes shuffled); with OpenSpiel installed, every
  state of OpenSpiel's own `goofspiel`, its matrix games solved exactly;
- Oshi-Zumo: every state of OpenSpiel's `oshi_zumo`, likewise;
- Liar's dice: F * 4^F information states (derived below; 24,576 for six faces, OpenSpiel's
  figure), OpenSpiel's `liars_dice` played in step (every action, payoff and information
  state), and OpenSpiel's CFR on its own game;
- Leduc hold'em: 936 information states and a value about -0.0856 (Southey et al. 2005; the CFR
  literature; OpenSpiel), exactly the value of tests/imperfect_games.py's Leduc;
- three-player Kuhn poker: 48 information states (counted by hand below), CFR's NashConv falling
  with the iterations, equal to OpenSpiel's CFR on OpenSpiel's own game.

OpenSpiel's own solvers that need `cvxpy` (its sequence-form LP, its value iteration) run where
that is installed."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache

import pytest
from helpers import GAMES
from imperfect_games import Goofspiel, KuhnPoker, LeducPoker, matching_pennies

import gdl
from gdl.cli import main
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL
from gdl.solvers import extensive, information, solve
from gdl.solvers.cfr import cfr
from gdl.solvers.matrix import solve_matrix_game
from gdl.solvers.simultaneous import solve_simultaneous

F = Fraction


@cache
def load(name, **params):
    return gdl.load(GAMES / name, params)


def first_move_matrix(game):
    """The first player's payoff for each pair of actions at the start, by playing the rules:
    ``(row names, column names, matrix)``."""
    root = game.initial_state()
    assert game.current_player(root) == SIMULTANEOUS
    rows, columns = game.legal_actions_of(root, 0), game.legal_actions_of(root, 1)
    matrix = [[game.returns(game.apply_joint(root, (a, b)))[0] for b in columns] for a in rows]
    return ([game.action_name(a) for a in rows], [game.action_name(b) for b in columns], matrix)


def openspiel_cvxpy():
    """OpenSpiel's LP-based solvers (they need cvxpy and its ECOS solver), or a skip."""
    pytest.importorskip("pyspiel")
    pytest.importorskip("cvxpy")
    pytest.importorskip("ecos")


# ---- rock-paper-scissors and matching pennies ---------------------------------------------------

HANDS = ["show(rock)", "show(paper)", "show(scissors)"]


@pytest.mark.parametrize("w", [1, 2, 5])
def test_rock_paper_scissors_payoffs_are_the_rules(w):
    # A's payoff, rows A's hand, columns B's, in the order rock, paper, scissors: a win pays 1,
    # a win with rock pays w, a tie 0.
    rows, columns, matrix = first_move_matrix(load("rps.game", rock_win=w))
    assert rows == columns == HANDS
    assert matrix == [[0, -1, w], [1, 0, -1], [-w, 1, 0]]


def test_rock_paper_scissors_is_worth_zero_with_the_uniform_strategy():
    result = solve(load("rps.game"))
    assert result.algorithm == "simultaneous" and result.proven
    assert result.values == (0, 0)
    third = F(1, 3)
    assert result.extra["root_strategies"] == {"A": dict.fromkeys(HANDS, third),
                                               "B": dict.fromkeys(HANDS, third)}


@pytest.mark.parametrize("w", [2, 3, 7])
def test_biased_rock_paper_scissors_closed_form(w):
    # The matrix above with a rock win paying w. It is skew-symmetric (the game is the same for
    # both players), so its value is 0 and an optimal mix (r, p, s) earns at least 0 against
    # every hand of the other player; a fully mixed one earns exactly 0 against each:
    #   against rock:      p - w s = 0
    #   against paper:    -r + s   = 0
    #   against scissors:  w r - p = 0
    # so r = s, p = w r, and with r + p + s = 1: (r, p, s) = (1, w, 1) / (w + 2). The mix is the
    # only one: a best reply to any other mix gains (the three lines meet only there). This is
    # not tests/imperfect_games.py's biased game, where only the first player's rock is paid 3.
    expected = dict(zip(HANDS, (F(1, w + 2), F(w, w + 2), F(1, w + 2))))
    _, _, matrix = first_move_matrix(load("rps.game", rock_win=w))
    mix = list(expected.values())
    assert [sum(mix[i] * matrix[i][j] for i in range(3)) for j in range(3)] == [0, 0, 0]
    result = solve(load("rps.game", rock_win=w))
    assert result.values == (0, 0)
    assert result.extra["root_strategies"] == {"A": expected, "B": expected}


def test_matching_pennies_is_worth_zero_with_half_and_half():
    rows, columns, matrix = first_move_matrix(load("matching-pennies.game"))
    assert rows == columns == ["show(heads)", "show(tails)"]
    assert matrix == matching_pennies().payoff == [[1, -1], [-1, 1]]
    result = solve(load("matching-pennies.game"))
    assert result.values == (0, 0)
    half = {"show(heads)": F(1, 2), "show(tails)": F(1, 2)}
    assert result.extra["root_strategies"] == {"Even": half, "Odd": half}


def test_gdl_solve_prints_the_uniform_strategy(capsys):
    assert main(["solve", str(GAMES / "rps.game")]) == 0
    out = capsys.readouterr().out
    assert "simultaneous (exact" in out and "value         A 0, B 0" in out
    assert out.count("show(rock) 1/3, show(paper) 1/3, show(scissors) 1/3") == 2


# ---- Goofspiel ----------------------------------------------------------------------------------

def goofspiel_positions(game, solution):
    """The rule file's positions where both bid, by what they mean: ``(hand of First, hand of
    Second, prizes still in the deck, prize face up, First's points, Second's points)`` ->
    First's value."""
    found = {}
    for state, value in solution.values.items():
        if game.current_player(state) != SIMULTANEOUS:
            continue
        v = game.variables(state)
        hands = [frozenset(c + 1 for c, held in enumerate(row) if held) for row in v["hand"]]
        deck = frozenset(c + 1 for c, left in enumerate(v["deck"]) if left)
        key = (hands[0], hands[1], deck, v["prize"], *v["points"])
        assert key not in found
        found[key] = value
    return found


@pytest.mark.parametrize("cards", [3, 4])
def test_goofspiel_highest_prize_first_agrees_with_the_python_version_everywhere(cards):
    # tests/imperfect_games.py's Goofspiel turns the prizes up highest first; its state is
    # (hands, points), the prize being the number of cards left.
    game = load("goofspiel.game", cards=cards, shuffled=False)
    ours = goofspiel_positions(game, solve_simultaneous(game))
    theirs = solve_simultaneous(Goofspiel(cards)).values
    python_positions = {s: v for s, v in theirs.items() if s[0]}       # not over
    assert len(ours) == len(python_positions)
    for (first, second, deck, prize, points, other), value in ours.items():
        assert prize == len(first) and deck == frozenset(range(1, prize))
        assert python_positions[(first, second, points, other)] == value
    assert ours[(frozenset(range(1, cards + 1)),) * 2 + (frozenset(range(1, cards)), cards,
                                                          0, 0)] == 0      # symmetric: fair


@cache
def shuffled_goofspiel_stage(first, second, deck, prize, lead):
    """Goofspiel with the prizes shuffled, written here from the rules: First's value when
    ``prize`` is face up, the hands and the prizes still in the deck as given, and First leads
    by ``lead`` points. Both bid at once: the matrix game of what follows each pair of bids."""
    def after(a, b):
        gained = lead + (prize if a > b else -prize if b > a else 0)
        if not deck:
            return (gained > 0) - (gained < 0)
        return sum(F(1, len(deck)) * shuffled_goofspiel_stage(first - {a}, second - {b},
                                                              deck - {p}, p, gained)
                   for p in deck)

    matrix = [[after(a, b) for b in sorted(second)] for a in sorted(first)]
    return solve_matrix_game(matrix).value


@pytest.mark.parametrize("cards", [2, 3])          # four cards: against OpenSpiel's, below
def test_shuffled_goofspiel_agrees_with_a_recursion_everywhere(cards):
    game = load("goofspiel.game", cards=cards)
    solution = solve_simultaneous(game)
    assert solution.exact and solution.value == 0                    # symmetric: fair
    positions = goofspiel_positions(game, solution)
    for (first, second, deck, prize, points, other), value in positions.items():
        assert shuffled_goofspiel_stage(first, second, deck, prize, points - other) == value
    # the first turn is met with each prize face up
    assert len({key[3:] for key in positions if len(key[0]) == cards}) == cards


def openspiel_values(game):
    """Player 0's value at every state of an OpenSpiel game of two players, zero-sum, perfect
    information, simultaneous moves and chance, by backward induction with each simultaneous
    state's matrix game solved exactly: OpenSpiel's rules, gdl's matrix solver (held to hand
    derivations in tests/test_matrix.py). Keyed by (state text, move number)."""
    values = {}

    def value(state):
        key = (str(state), state.move_number())
        if key in values:
            return values[key]
        if state.is_terminal():
            found = F(round(state.returns()[0]))
        elif state.is_chance_node():
            found = sum(F(p).limit_denominator(1000) * value(state.child(a))
                        for a, p in state.chance_outcomes())
        else:
            matrix = []
            for a in state.legal_actions(0):
                row = []
                for b in state.legal_actions(1):
                    child = state.clone()
                    child.apply_actions([a, b])
                    row.append(value(child))
                matrix.append(row)
            found = solve_matrix_game(matrix).value
            values[key + ("choose",)] = found
        values[key] = found
        return found

    value(game.new_initial_state())
    return {key[:2]: v for key, v in values.items() if len(key) == 3}   # where players choose


def openspiel_goofspiel_key(text):
    """The key of ``goofspiel_positions`` for the text of an OpenSpiel goofspiel state where the
    players choose (a prize face up, two or more cards in hand); None for any other state."""
    numbers = [[int(x) for x in line.split(":")[1].split()] for line in text.strip().split("\n")]
    first, second, sequence, points = numbers
    cards = len(first) + len(sequence) - 1            # the prizes seen: those played and this one
    if len(first) < 2 or not sequence or len(sequence) != cards - len(first) + 1:
        return None
    return (frozenset(first), frozenset(second), frozenset(range(1, cards + 1)) - set(sequence),
            sequence[-1], *points)


@pytest.mark.parametrize("cards, order", [(3, "random"), (4, "random"), (4, "descending")])
def test_goofspiel_agrees_with_openspiel_everywhere(cards, order):
    # OpenSpiel's goofspiel with its defaults otherwise (imp_info=false, returns_type=win_loss).
    # It plays the last card by itself, so its states where players choose are ours with two or
    # more cards in hand; it keeps the order the prizes came in, which ours forgets (it changes
    # nothing to come), so several of its states may be one of ours.
    pyspiel = pytest.importorskip("pyspiel")
    theirs = openspiel_values(pyspiel.load_game(
        "goofspiel", {"num_cards": cards, "points_order": order}))
    game = load("goofspiel.game", cards=cards, shuffled=order == "random")
    ours = goofspiel_positions(game, solve_simultaneous(game))
    keys = {openspiel_goofspiel_key(text) for text, _ in theirs}
    assert keys == {key for key in ours if len(key[0]) >= 2}
    for (text, _), value in theirs.items():
        assert ours[openspiel_goofspiel_key(text)] == value


def test_goofspiel_value_iteration_of_openspiel():
    # OpenSpiel's own solver of simultaneous-move games (value iteration, each matrix game by
    # its LP), on its own goofspiel with three cards: the same values as ours, state by state.
    openspiel_cvxpy()
    import pyspiel
    from open_spiel.python.algorithms import value_iteration

    theirs = value_iteration.value_iteration(
        pyspiel.load_game("goofspiel", {"num_cards": 3}), depth_limit=-1, threshold=1e-9)
    game = load("goofspiel.game", cards=3)
    ours = goofspiel_positions(game, solve_simultaneous(game))
    compared = set()
    for text, value in theirs.items():
        key = openspiel_goofspiel_key(text)
        if key is not None:
            assert abs(float(ours[key]) - value) < 1e-6
            compared.add(key)
    assert compared == {key for key in ours if len(key[0]) >= 2}


# ---- Oshi-Zumo ----------------------------------------------------------------------------------

OSHI_ZUMO = [
    {"coins": 6, "size": 2, "min_bid": 1},
    {"coins": 4, "size": 1, "min_bid": 0, "horizon": 5},
    {"coins": 5, "size": 2, "min_bid": 0, "horizon": 4, "alesia": True},
    {"coins": 7, "size": 1, "min_bid": 2},
]


def oshi_zumo_positions(game, solution):
    """(First's coins, Second's coins, the wrestler's cell, turns played) -> First's value."""
    found = {}
    for state, value in solution.values.items():
        if game.current_player(state) == SIMULTANEOUS:
            v = game.variables(state)
            found[(*v["purse"], v["wrestler"], v["turns"])] = value
    return found


@pytest.mark.parametrize("params", OSHI_ZUMO, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_oshi_zumo_agrees_with_openspiel_everywhere(params):
    pyspiel = pytest.importorskip("pyspiel")
    theirs = openspiel_values(pyspiel.load_game("oshi_zumo", dict(params)))
    game = load("oshi-zumo.game", **params)
    solution = solve_simultaneous(game)
    assert solution.exact and solution.value == 0          # symmetric: fair
    ours = oshi_zumo_positions(game, solution)
    assert len(ours) == len(theirs)
    for (text, moves), value in theirs.items():
        found = re.fullmatch(r"Coins: (\d+) (\d+), Field: ([#.W]+)\n", text)
        key = (int(found[1]), int(found[2]), found[3].index("W"), moves)
        assert ours[key] == value


def test_oshi_zumo_as_bundled_against_openspiel():
    # the file's own parameters: 10 coins, a field of 7 cells, bids of at least 1
    pyspiel = pytest.importorskip("pyspiel")
    theirs = openspiel_values(pyspiel.load_game("oshi_zumo", {"coins": 10, "min_bid": 1}))
    game = load("oshi-zumo.game")
    ours = oshi_zumo_positions(game, solve_simultaneous(game))
    assert len(ours) == len(theirs)
    nonzero = 0
    for (text, moves), value in theirs.items():
        found = re.fullmatch(r"Coins: (\d+) (\d+), Field: ([#.W]+)\n", text)
        assert ours[(int(found[1]), int(found[2]), found[3].index("W"), moves)] == value
        nonzero += value != 0
    assert nonzero > 100                       # the comparison is not only of zeros


def test_oshi_zumo_value_iteration_of_openspiel():
    # OpenSpiel's own solver on its own oshi_zumo. Its states are keyed by their text, which
    # leaves out the turns played: with bids of at least 1 the coins run out long before the
    # horizon, so the turns change nothing and the text is the whole state.
    openspiel_cvxpy()
    import pyspiel
    from open_spiel.python.algorithms import value_iteration

    params = {"coins": 5, "size": 2, "min_bid": 1}
    theirs = value_iteration.value_iteration(pyspiel.load_game("oshi_zumo", params),
                                             depth_limit=-1, threshold=1e-9)
    game = load("oshi-zumo.game", **params)
    ours = {key[:3]: value for key, value in
            oshi_zumo_positions(game, solve_simultaneous(game)).items()}
    compared = set()
    for text, value in theirs.items():
        found = re.fullmatch(r"Coins: (\d+) (\d+), Field: ([#.W]+)\n", text)
        key = (int(found[1]), int(found[2]), found[3].index("W"))
        if key in ours:
            assert abs(float(ours[key]) - value) < 1e-6
            compared.add(key)
    assert compared == set(ours) and any(ours.values())


# ---- Liar's dice --------------------------------------------------------------------------------

@pytest.mark.parametrize("faces", [2, 3, 6])
def test_liars_dice_information_states(faces):
    # The 2F bids are ranked; a bidding history is an increasing sequence of bids, so there are
    # C(2F, k) histories of k bids. After k bids First acts if k is even, Second if k is odd
    # (after the top bid only "liar" is left: still a choice of one action), so each acts at
    # 2^(2F - 1) histories, once for each face of its own die: F * 4^F information states in
    # all. Six faces: 6 * 4096 = 24,576, OpenSpiel's count for liars_dice with one die each.
    form = extensive.build(load("liars-dice.game", faces=faces))
    assert [tree.num_infosets for tree in form.players] == [faces * 2 ** (2 * faces - 1)] * 2
    assert form.num_infosets == faces * 4 ** faces
    if faces == 6:
        assert form.num_infosets == 24_576


def openspiel_liars_dice_name(action, faces):
    if action == 2 * faces:
        return "liar"
    return f"claim({action // faces + 1},{action % faces + 1})"


@pytest.mark.parametrize("faces", [2, 3])
def test_liars_dice_plays_as_openspiels_in_step(faces):
    # Every play of OpenSpiel's liars_dice (numdice=1) and of the rule file side by side: the
    # same player to move, the same actions, the same payoffs, and the same information states
    # (OpenSpiel's information-state strings and gdl's keys name the same sets of histories).
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game("liars_dice", {"dice_sides": faces})
    game = load("liars-dice.game", faces=faces)
    pairs = {}
    plays = 0
    root = game.initial_state()
    stack = [(theirs.new_initial_state(), root, information.start(game, root))]
    while stack:
        state, mine, keys = stack.pop()
        if state.is_terminal():
            assert game.current_player(mine) == TERMINAL
            assert tuple(state.returns()) == tuple(float(v) for v in game.returns(mine))
            plays += 1
            continue
        if state.is_chance_node():
            assert game.current_player(mine) == CHANCE
            outcomes = {game.action_name(o).split("=")[1]: (o, p)
                        for o, p in game.chance_outcomes(mine)}
            assert len(outcomes) == len(state.chance_outcomes()) == faces
            for a, p in state.chance_outcomes():
                outcome, probability = outcomes[str(a + 1)]
                assert probability == F(1, faces) and abs(p - 1 / faces) < 1e-12
                child = game.apply(mine, outcome)
                stack.append((state.child(a), child,
                              information.step(game, keys, mine, outcome, child)))
            continue
        player = state.current_player()
        assert game.current_player(mine) == player
        actions = {game.action_name(a): a for a in game.legal_actions(mine)}
        assert [openspiel_liars_dice_name(a, faces) for a in state.legal_actions()] == list(actions)
        pairs.setdefault((player, state.information_state_string()), set()).add(keys[player])
        for a in state.legal_actions():
            action = actions[openspiel_liars_dice_name(a, faces)]
            child = game.apply(mine, action)
            stack.append((state.child(a), child, information.step(game, keys, mine, action, child)))
    assert all(len(ours) == 1 for ours in pairs.values())           # theirs -> one of ours
    assert len({next(iter(ours)) for ours in pairs.values()}) == len(pairs)   # and back
    assert len(pairs) == faces * 4 ** faces
    assert plays == faces * faces * (4 ** faces - 1)     # every nonempty bid sequence, called


def test_liars_dice_cfr_matches_openspiels_cfr_on_its_own_game():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr as openspiel_cfr
    from open_spiel.python.algorithms import exploitability

    theirs = pyspiel.load_game("liars_dice", {"dice_sides": 3})
    solver = openspiel_cfr.CFRSolver(theirs)
    for _ in range(50):
        solver.evaluate_and_update_policy()
    expected = exploitability.nash_conv(theirs, solver.average_policy())
    ours = cfr(load("liars-dice.game", faces=3), iterations=50).exploitability.nash_conv
    assert abs(float(ours) - expected) < 1e-9


def test_liars_dice_value_against_openspiels_sequence_form_lp():
    openspiel_cvxpy()
    import pyspiel
    from open_spiel.python.algorithms import sequence_form_lp

    for faces in (2, 3):
        expected = sequence_form_lp.solve_zero_sum_game(
            pyspiel.load_game("liars_dice", {"dice_sides": faces}))[0]
        result = solve(load("liars-dice.game", faces=faces))
        assert result.algorithm == "sequence-form" and result.extra["exact"]
        assert abs(float(result.values[0]) - expected) < 1e-6


# ---- Leduc hold'em ------------------------------------------------------------------------------

def test_leduc_is_the_python_leduc_exactly():
    pytest.importorskip("highspy")
    from gdl.solvers.sequence_form import solve_sequence_form

    ours = solve_sequence_form(load("leduc.game"))
    theirs = solve_sequence_form(LeducPoker())
    assert ours.form.num_infosets == 936                            # OpenSpiel's leduc_poker
    assert [t.num_infosets for t in ours.form.players] == [468, 468]
    assert ours.exact and theirs.exact
    assert ours.value == theirs.value
    assert abs(ours.value - F(-856, 10000)) < F(1, 10000)           # "about -0.0856"
    assert ours.exploitability.nash_conv == 0


# ---- three-player Kuhn poker --------------------------------------------------------------------

def test_three_player_kuhn_information_states():
    # Each player first acts once, after the passes and bets of those before it: First at 1
    # history, Second at 2 (p, b), Third at 4 (pp, pb, bp, bb). It acts again only to answer a
    # bet made after its first action: First after pb (then Third's p or b) and ppb, 3
    # histories; Second after ppb (then First's p or b), 2; Third never. So each acts at 4
    # histories, once for each of the 4 cards it may hold: 16 each, 48 in all.
    form = extensive.build(load("kuhn3.game"))
    assert [tree.num_infosets for tree in form.players] == [16, 16, 16]


def test_three_player_kuhn_cfr_nash_conv_falls():
    game = load("kuhn3.game")
    figures = [cfr(game, iterations=n).exploitability.nash_conv for n in (10, 100, 1000)]
    assert figures[0] > figures[1] > figures[2]
    assert figures[2] < F(1, 50)
    # the same as CFR on tests/imperfect_games.py's three-player Kuhn, another writing of it
    python = cfr(KuhnPoker(3), iterations=100).exploitability.nash_conv
    assert abs(float(figures[1]) - float(python)) < 1e-9


def test_three_player_kuhn_against_openspiels_own_game_and_cfr():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr as openspiel_cfr
    from open_spiel.python.algorithms import exploitability

    theirs = pyspiel.load_game("kuhn_poker", {"players": 3})
    infosets = set()
    stack = [theirs.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            infosets.add((state.current_player(), state.information_state_string()))
        stack += [state.child(a) for a in state.legal_actions()]
    assert len(infosets) == extensive.build(load("kuhn3.game")).num_infosets == 48
    solver = openspiel_cfr.CFRSolver(theirs)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    expected = exploitability.nash_conv(theirs, solver.average_policy())
    ours = cfr(load("kuhn3.game"), iterations=100).exploitability.nash_conv
    assert abs(float(ours) - expected) < 1e-9


def test_gdl_solve_runs_cfr_on_three_player_kuhn():
    result = solve(load("kuhn3.game"), iterations=200)
    assert result.algorithm == "cfr" and not result.proven
    assert result.extra["information_states"] == 48
    assert result.extra["iterations"] == 200
    assert abs(sum(result.values)) < 1e-9                  # zero-sum
