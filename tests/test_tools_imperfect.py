"""The tools on games with simultaneous moves or hidden information: `gdl play`, `gdl serve`,
`gdl check --deep` and `gdl fuzz` (issue 27, "the tools follow").

Expected values are hand-derived or from the literature, never read off gdl's output:

- Rock-paper-scissors: the unique equilibrium is uniform for both players, value 0 (von
  Neumann; every pure strategy loses to one reply, and against the uniform mix every reply
  earns 0).
- Kuhn's poker (H. W. Kuhn, "A simplified two-person poker", 1950), cards J < Q < K written
  1, 2, 3: value -1/18 to the first player. The second player's equilibrium strategy is unique:
  after a check it bets a K, checks a Q and bets a J with probability 1/3; facing a bet it calls
  with a K, calls a Q with probability 1/3 and folds a J. The first player's equilibria are a
  family with one parameter a in [0, 1/3]: it bets a J with probability a, checks a Q and bets
  a K with probability 3a; after check-bet it folds a J, calls a Q with probability a + 1/3 and
  calls a K (the last one only matters where it is reached, when 3a < 1).
- "Guess" below: the first player hides a number (1 or 2), the second names one; the first
  wins 1 when the guess misses and loses 1 when it hits. That is matching pennies: both mix
  1/2, value 0.
"""

import io
import re
import sys
from collections import Counter
from fractions import Fraction

import pytest
from helpers import GAMES
from wide_rules import RPS  # docs/language.md's nine lines

import gdl
from gdl.cli import main
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, GameInfo
from gdl.solvers import information
from gdl.tools.session import Equilibrium, Session, seen_variables, strategy_seed

KUHN = str(GAMES / "kuhn.game")

# A hides a number; B names one; A wins 1 when B misses, loses 1 when B hits: matching pennies.
GUESS = """game "Guess"
players A, B
var secret in 0..2 = 0
var guess in 0..2 = 0
hidden secret
hidden choose
action choose(n in 1..2) by A requires secret == 0 effect secret = n
action name_it(n in 1..2) by B requires secret != 0 and guess == 0 effect guess = n
terminal guess != 0
utility A = 1 if guess != secret else -1
zero-sum
"""


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("rps", RPS), ("guess", GUESS)):
        path = tmp_path / f"{name}.game"
        path.write_text(text)
        paths[name] = str(path)
    return paths


def run(monkeypatch, capsys, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def reach(game, names):
    """A session after the moves named (chance outcomes too), from the start."""
    session = Session(game, seed=0)
    for name in names:
        if session.to_move == SIMULTANEOUS:
            raise AssertionError("use play_joint")
        session.play(session.find(name))
    return session


def every_state(game):
    """Every reachable state of a small game (joint moves at simultaneous states)."""
    from itertools import product

    seen, stack = set(), [game.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        kind = game.current_player(state)
        if kind == TERMINAL:
            continue
        if kind == CHANCE:
            stack.extend(game.apply(state, o) for o, _ in game.chance_outcomes(state))
        elif kind == SIMULTANEOUS:
            acting = game.acting_players(state)
            for joint in product(*(game.legal_actions_of(state, p) for p in acting)):
                stack.append(game.apply_joint(state, joint))
        else:
            stack.extend(game.apply(state, a) for a in game.legal_actions(state))
    return seen


# ==== what a player sees ========================================================================

def test_a_players_view_is_its_observation_with_the_others_cards_unseen():
    # `private card`: player p sees card[p] and not the other entry; every other variable is
    # public. So the view is the state's variables with exactly the other entry replaced by ?.
    game = gdl.load(KUHN)
    checked = 0
    for state in every_state(game):
        if game.current_player(state) == CHANCE:
            continue
        truth = game.variables(state)
        for player in (0, 1):
            seen = seen_variables(game, player, game.observation(state, player))
            expected = dict(truth)
            expected["card"] = [v if i == player else "?" for i, v in enumerate(truth["card"])]
            assert seen == expected
            checked += 1
    assert checked == 2 * (58 - 4)     # 58 states, 4 of them chance (gdl check --deep's census)


def test_a_game_that_hides_nothing_is_seen_whole():
    game = gdl.loads(RPS)
    state = game.apply_joint(game.initial_state(), (0, 1))
    assert seen_variables(game, 0, information.observation(game, state, 0)) == \
        game.variables(state)


# ==== the computer's strategy ===================================================================

def _mix(equilibrium, session, player):
    return {session.game.action_name(a): p for a, p in equilibrium.mix(session, player)}


def test_the_computer_plays_kuhns_equilibrium_at_the_information_state_it_is_in():
    game = gdl.load(KUHN)
    solved = Equilibrium.solve(game)
    assert solved.exact and solved.result.values == (Fraction(-1, 18), Fraction(1, 18))
    deal = {1: ["first=1", "second=2"], 2: ["first=2", "second=3"], 3: ["first=3", "second=1"]}
    opening = {card: _mix(solved, reach(game, deal[card]), 0) for card in (1, 2, 3)}
    a = opening[1]["bet"]
    assert 0 <= a <= Fraction(1, 3)
    assert opening[1]["check"] == 1 - a
    assert opening[2] == {"check": 1, "bet": 0}
    assert opening[3]["bet"] == 3 * a
    call = {card: _mix(solved, reach(game, deal[card] + ["check", "bet"]), 0)["call"]
            for card in (1, 2, 3)}
    assert call[1] == 0 and call[2] == a + Fraction(1, 3)
    if 3 * a < 1:
        assert call[3] == 1
    # The second player's strategy is unique; its information state is its card and First's
    # move, whatever First holds (each of the two other cards gives the same mix).
    second = {(1, "check"): {"check": Fraction(2, 3), "bet": Fraction(1, 3)},
              (1, "bet"): {"call": 0, "fold": 1},
              (2, "check"): {"check": 1, "bet": 0},
              (2, "bet"): {"call": Fraction(1, 3), "fold": Fraction(2, 3)},
              (3, "check"): {"check": 0, "bet": 1},
              (3, "bet"): {"call": 1, "fold": 0}}
    for (card, move), expected in second.items():
        for other in {1, 2, 3} - {card}:
            session = reach(game, [f"first={other}", f"second={card}", move])
            assert _mix(solved, session, 1) == expected, (card, move, other)


def test_samples_follow_the_mix_and_never_an_action_it_does_not_play():
    # Rock-paper-scissors: uniform. 600 draws, one seed each: every count within four standard
    # deviations (sqrt(600 * 1/3 * 2/3) = 11.5) of 200. Kuhn: the second player holding a Queen
    # after a check never bets (probability 0), whatever the seed.
    game = gdl.loads(RPS)
    solved = Equilibrium.solve(game)
    session = Session(game)
    counts = Counter(game.action_name(solved.sample(strategy_seed(seed), session, 1))
                     for seed in range(600))
    assert set(counts) == {"show(rock)", "show(paper)", "show(scissors)"}
    assert all(154 <= n <= 246 for n in counts.values()), counts
    kuhn = gdl.load(KUHN)
    solved = Equilibrium.solve(kuhn)
    queen = reach(kuhn, ["first=1", "second=2", "check"])
    assert {kuhn.action_name(solved.sample(strategy_seed(seed), queen, 1))
            for seed in range(100)} == {"check"}


def test_information_states_are_what_the_player_saw():
    # Second's information state after First checks is the same whatever First holds: the two
    # sessions differ only in First's card.
    game = gdl.load(KUHN)
    one = reach(game, ["first=1", "second=2", "check"])
    three = reach(game, ["first=3", "second=2", "check"])
    assert one.state != three.state
    assert one.information_state(1) == three.information_state(1)
    assert one.information_state(0) != three.information_state(0)


# ==== gdl play ===================================================================================

def _cards_shown(out: str) -> list[tuple[str, str]]:
    """Every drawing of `display card` (a row: index line, then the two cards)."""
    return re.findall(r"^card\n0 1\n(\S+) (\S+)$", out, re.M)


@pytest.mark.parametrize("seed", range(6))
def test_play_shows_the_person_its_own_card_and_never_the_others(monkeypatch, capsys, seed):
    # The person plays Second and always takes its first legal action. The deal is drawn from
    # Random(seed) by the session; the same draw here gives the truth to compare with.
    game = gdl.load(KUHN)
    truth = Session(game, seed=seed)
    truth.roll()
    truth.roll()
    own = truth.game.variables(truth.state)["card"][1]
    code, out, err = run(monkeypatch, capsys, ["play", KUHN, "--as", "Second", "--seed",
                                               str(seed)], "1\n1\n1\n")
    assert code == 0, err
    shown = _cards_shown(out)
    assert shown and all(first == "?" for first, _ in shown)
    assert {second for _, second in shown} == {str(own)}
    assert "chance: " not in out          # the deal's outcomes name the cards: not shown
    assert "Game over" in out


@pytest.mark.parametrize("seed", range(8))
def test_hint_is_the_equilibrium_at_the_persons_information_state(monkeypatch, capsys, seed):
    code, out, err = run(monkeypatch, capsys, ["play", KUHN, "--as", "Second", "--seed",
                                               str(seed)], "hint\nquit\n")
    assert code == 0, err
    card = int(_cards_shown(out)[-1][1])
    move = re.search(r"^First plays (check|bet)$", out, re.M)[1]
    hint = re.search(r"hint: card\[Second\]=(\d), after (\w+): the equilibrium plays (.*)$",
                     out, re.M)
    assert (int(hint[1]), hint[2]) == (card, move)
    expected = {(1, "check"): "check 2/3, bet 1/3", (1, "bet"): "fold 1",
                (2, "check"): "check 1", (2, "bet"): "call 1/3, fold 2/3",
                (3, "check"): "bet 1", (3, "bet"): "call 1"}[card, move]
    assert hint[3] == expected
    assert "the game's value: sequence-form, exact: value First -1/18, Second 1/18" in out


def test_simultaneous_the_computer_chooses_without_seeing_the_persons_choice(
        monkeypatch, capsys, files):
    replies = {}
    for mine in ("rock", "paper", "scissors"):
        code, out, err = run(monkeypatch, capsys, ["play", files["rps"], "--as", "A", "--seed",
                                                   "7"], f"show({mine})\n")
        assert code == 0, err
        together = re.search(r"^together: A show\((\w+)\), B show\((\w+)\)$", out, re.M)
        assert together[1] == mine
        replies[mine] = together[2]
        beats = {("rock", "scissors"), ("paper", "rock"), ("scissors", "paper")}
        a = 1 if (mine, together[2]) in beats else -1 if (together[2], mine) in beats else 0
        assert f"Game over: A {a}, B {-a}" in out
    assert len(set(replies.values())) == 1      # the same draw whatever the person chose
    seen = set()
    for seed in range(30):
        code, out, _ = run(monkeypatch, capsys, ["play", files["rps"], "--as", "A", "--seed",
                                                 str(seed)], "show(rock)\n")
        seen.add(re.search(r"B show\((\w+)\)", out)[1])
    assert seen == {"rock", "paper", "scissors"}    # a mixed strategy, not a pure one


def test_simultaneous_hint_is_uniform(monkeypatch, capsys, files):
    code, out, err = run(monkeypatch, capsys, ["play", files["rps"], "--as", "B"], "hint\nquit\n")
    assert code == 0, err
    assert "the equilibrium plays show(rock) 1/3, show(paper) 1/3, show(scissors) 1/3" in out
    assert "value here: A 0, B 0" in out
    assert "B to move (at the same time as A)" in out


def test_a_hidden_action_shows_as_a_question_mark(monkeypatch, capsys, files):
    code, out, err = run(monkeypatch, capsys, ["play", files["guess"], "--as", "B", "--seed", "2"],
                         "hint\n1\n")
    assert code == 0, err
    assert "A plays ? (hidden from you)" in out
    assert "choose(" not in out.split("A plays")[1]      # neither the action nor its number
    assert "secret = ?" in out
    assert re.search(r"hint: after \?: the equilibrium plays name_it\(1\) 1/2, name_it\(2\) 1/2",
                     out)
    assert "value A 0, B 0" in out


def test_the_player_who_hides_sees_its_own_action(monkeypatch, capsys, files):
    code, out, err = run(monkeypatch, capsys, ["play", files["guess"], "--as", "A", "--seed", "2"],
                         "choose(2)\n")
    assert code == 0, err
    assert re.search(r"^B plays name_it\([12]\)$", out, re.M)
    assert "secret = ?" in out      # `hidden secret`: nobody sees the variable, A neither


def test_watching_shows_everything(monkeypatch, capsys, files):
    code, out, err = run(monkeypatch, capsys, ["play", KUHN, "--seed", "1"])
    assert code == 0, err
    assert "You watch: everything is shown" in out
    assert re.search(r"^chance: first=\d \(probability 1/3\)$", out, re.M)
    assert all("?" not in pair for pair in _cards_shown(out))


def test_undo_goes_back_to_the_persons_previous_decision(monkeypatch, capsys):
    # As First: check, then (if Second bets) undo back to the opening decision; if Second
    # checks the game ends. Seeds where Second bets after a check exist (it bets a K always).
    for seed in range(20):
        code, out, err = run(monkeypatch, capsys, ["play", KUHN, "--as", "First", "--seed",
                                                   str(seed)], "undo\ncheck\nundo\nquit\n")
        assert code == 0, err
        assert "  nothing to undo" in out.split("First> undo")[1].split("First>")[0]
        if "Second plays bet" in out:
            assert "undone: 2 move(s)" in out
            assert out.count("First to move. Legal: 1:check  2:bet") == 2
            return
    raise AssertionError("no seed where Second bets after a check")


@pytest.mark.parametrize("argv, message", [
    (["--depth", "2"], "--depth: a game with hidden information is played from one solve"),
    (["--moves", "first=1"], "is played from its start"),
    (["--as", "First", "--as", "Second"], "is played from one seat"),
    (["--ai", "alphabeta"], "alphabeta is the wrong tool"),
])
def test_play_refuses_what_it_cannot_do_on_hidden_games(monkeypatch, capsys, argv, message):
    code, out, err = run(monkeypatch, capsys, ["play", KUHN, *argv], "quit\n")
    assert code == 2
    assert message in err


def test_play_with_an_approximate_solver_says_so(monkeypatch, capsys):
    code, out, err = run(monkeypatch, capsys, ["play", KUHN, "--as", "First", "--ai", "cfr+",
                                               "--iterations", "200", "--seed", "1"], "quit\n")
    assert code == 0, err
    found = re.search(r"cfr\+, approximate: value about First (\S+), Second \S+, after 200 "
                      r"iterations, exploitability (\S+)\)", out)
    assert found, out
    # The value a strategy earns is within its exploitability's bracket around -1/18 (twice
    # the exploitability wide, gdl.solvers.exploitability).
    assert abs(float(found[1].rstrip(",")) + 1 / 18) <= 2 * float(found[2]) + 1e-9


# ==== gdl check --deep ===========================================================================

# B may raise only when A holds a 2, which B does not see (`private card`): B's information
# state (its own card, after the deal) offers `call` at one position and `call raise` at another.
PEEK = """game "Peek"
players A, B
var card[players] in 0..2 = 0
var over in bool = false
private card
init { random a in 1..2; card[A] = a; random b in 1..2; card[B] = b; next B }
action call by B effect over = true
action raise by B requires card[A] == 2 effect over = true
terminal over
utility A = 1 if card[A] > card[B] else 0
zero-sum
"""

# A bidding phase (both at once), then B answers with the bids in view.
SEALED = """game "Sealed bids"
players A, B
simultaneous if phase == 0 then { phase = 1; next B }
var phase in 0..2 = 0
var bid[players] in 0..2 = 0
var answer in 0..1 = 0
action offer(n in 1..2) requires phase == 0 effect bid[mover] = n
action reply(k in 0..1) by B requires phase == 1 effect answer = k; phase = 2
terminal phase == 2
utility A = bid[A] - bid[B] + answer
zero-sum
"""


def _deep(game):
    from gdl.tools.validate import validate

    return validate(game, playouts=20, seed=0)


def test_deep_counts_kuhns_twelve_information_states():
    # Kuhn 1950: each player holds one of 3 cards and chooses at 2 points of the betting
    # (First: the opening, and after check-bet; Second: after a check, after a bet): 6 each.
    report = _deep(gdl.load(KUHN))
    assert report.ok, report.violations
    assert report.information_states == {"First": 6, "Second": 6}
    assert report.information_complete
    # 58 states, and the tree has no transpositions: the histories are the states.
    assert report.census.states == 58 and report.histories == 58


def test_deep_plays_simultaneous_moves_and_counts_one_information_state_each():
    # Rock-paper-scissors: the start (both choose at once) and the 9 ends; one choice each.
    report = _deep(gdl.loads(RPS))
    assert report.ok and not report.violations, report.violations
    census = report.census
    assert (census.states, census.decision, census.simultaneous, census.terminal,
            census.moves) == (10, 1, 1, 9, 9)
    assert report.information_states == {"A": 1, "B": 1}
    assert report.requires_checked == 1      # E414/E415 ran: `show` is legal where both choose


def test_deep_simultaneous_if_checks_requires_with_each_player_as_mover():
    # 1 bidding state (both at once), then B answers at each of the 2 x 2 bids: A chooses at 1
    # information state, B at 1 + 4. No action is "never legal".
    report = _deep(gdl.loads(SEALED))
    assert report.ok and not report.violations, report.violations
    assert report.census.simultaneous == 1 and report.census.decision == 5
    assert report.information_states == {"A": 1, "B": 5}
    assert report.requires_checked == 5


def test_deep_reports_an_information_state_whose_actions_differ(tmp_path, capsys):
    path = tmp_path / "peek.game"
    path.write_text(PEEK)
    code = main(["check", "--deep", str(path)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{path}:8:1: error[E416]: B cannot tell two positions apart" in err
    assert "(raise)" in err
    assert "`private card` (line 5)" in err
    assert "make the `requires` of 'raise' read only what B sees" in err
    report = _deep(gdl.loads(PEEK))
    (problem,) = report.errors
    assert problem.code == "E416" and problem.count == 2    # B holding 1, and holding 2


class Forgetful:
    """A breaks the protocol's promise that a player sees its own action: it moves twice
    and does not see which way it went the first time (nothing in the state shows it)."""

    info = GameInfo(name="forgetful", players=("A", "B"), sum_kind="zero-sum", hidden=True)

    def initial_state(self):
        return ()

    def current_player(self, state):
        return 0 if len(state) < 2 else TERMINAL

    def legal_actions(self, state):
        return ("left", "right") if len(state) < 2 else ()

    def apply(self, state, action):
        return state + (action,)

    def returns(self, state):
        return (1, -1) if state[0] == state[1] else (-1, 1)

    def action_name(self, action):
        return action

    def observation(self, state, player):
        return len(state)

    def move_observation(self, state, player, move):
        return "moved"


def test_deep_reports_a_game_without_perfect_recall():
    report = _deep(Forgetful())
    codes = [v.code for v in report.errors]
    assert codes == ["E417"], report.violations
    assert report.information_states == {"A": 2, "B": 0}
    assert report.errors[0].path in (("left",), ("right",))


def test_deep_says_when_not_every_history_was_walked():
    from gdl.tools import validate as module

    small = module.Report(game="Kuhn")
    module._information(module._Checker(gdl.load(KUHN), None), small, limit=10)
    assert not small.information_complete and small.histories == 10
    assert sum(small.information_states.values()) < 12


def test_deep_prints_the_counts(tmp_path, capsys):
    code = main(["check", "--deep", KUHN])
    out = capsys.readouterr().out
    assert code == 0
    assert "information states (where each player chooses): First 6, Second 6 (over all 58 " \
           "histories)" in out


# ==== gdl fuzz ===================================================================================

# Three players show 1 or 2 at once; the odd one out wins 2 and the others lose 1 each; all
# alike: 0. Zero-sum, three players: only CFR applies (with NashConv).
ODD = """game "Odd one out"
players A, B, C
simultaneous
var shown[players] in 0..2 = 0
action show(k in 1..2) effect shown[mover] = k
terminal shown[A] != 0
define odd(x, y, z) = x != y and x != z
utility A = 2 if odd(shown[A], shown[B], shown[C]) else 0 if shown[B] == shown[C] and shown[A] == shown[B] else -1
utility B = 2 if odd(shown[B], shown[A], shown[C]) else 0 if shown[A] == shown[C] and shown[A] == shown[B] else -1
zero-sum
"""


def _wide(game, **options):
    from gdl.tools.fuzz import wide_problems

    return wide_problems(game, **options)


def test_fuzz_kuhn_exact_and_every_iterative_solver_agree():
    problems, figures = _wide(gdl.load(KUHN))
    assert problems == []
    assert figures.exact_value == Fraction(-1, 18)
    assert figures.information_states == 12 and figures.histories == 58
    runs = {(run.solver, run.iterations): run for run in figures.runs}
    assert runs["sequence-form", None].exact and runs["sequence-form", None].exploitability == 0
    plus = [runs["cfr+", n] for n in (10, 100, 1000)]
    assert plus[-1].exploitability < plus[0].exploitability
    for run in figures.runs:
        # a profile's value for the first player lies within its NashConv (twice the
        # exploitability) of the game's value -1/18
        assert abs(float(run.value) + 1 / 18) <= 2 * float(run.exploitability) + 1e-12, run
    assert {run.solver for run in figures.runs} == {"sequence-form", "cfr+", "cfr", "mccfr"}


def test_fuzz_simultaneous_solver_and_sequence_form_agree_on_rps():
    problems, figures = _wide(gdl.loads(RPS))
    assert problems == []
    exact = {run.solver: run.value for run in figures.runs if run.exact}
    assert exact == {"sequence-form": 0, "simultaneous": 0}


def test_fuzz_three_players_runs_cfr_only():
    problems, figures = _wide(gdl.loads(ODD))
    assert problems == []
    assert figures.exact_value is None
    assert {run.solver for run in figures.runs} == {"cfr"}
    # By symmetry the uniform profile is an equilibrium: against two uniform players each
    # choice is odd one time in four (+2), alike with both one time in four (0), and in
    # between half the time (-1): 2/4 + 0 - 1/2 = 0 either way. CFR starts there and stays.
    assert all(run.exploitability == 0 for run in figures.runs)


def test_fuzz_catches_an_exact_solver_that_is_wrong(monkeypatch):
    import gdl.solvers.simultaneous as module

    honest = module.solve_simultaneous

    def planted(game, **options):
        solution = honest(game, **options)
        root = solution.root
        rock = next(a for a in solution.strategies[root][1] if game.action_name(a) == "show(rock)")
        solution.strategies[root][1] = {a: Fraction(int(a == rock))
                                        for a in solution.strategies[root][1]}
        solution.values[root] += Fraction(1, 7)
        return solution

    monkeypatch.setattr(module, "solve_simultaneous", planted)
    problems, _ = _wide(gdl.loads(RPS))
    kinds = {(p.kind, p.solver) for p in problems}
    assert ("values", "sequence-form vs simultaneous") in kinds
    assert ("claim", "simultaneous") in kinds       # always rock: exploitable


def test_fuzz_catches_cfr_plus_that_does_not_converge(monkeypatch):
    import gdl.solvers.cfr as module

    honest = module.cfr_plus
    monkeypatch.setattr(module, "cfr_plus", lambda game, **options: honest(game, iterations=1))
    problems, _ = _wide(gdl.load(KUHN))
    assert [(p.kind, p.solver) for p in problems] == [("convergence", "cfr+")]


def test_fuzz_catches_a_solver_that_misreports_its_exploitability(monkeypatch):
    import dataclasses

    import gdl.solvers.cfr as module
    from gdl.solvers.exploitability import Exploitability

    honest = module.cfr

    def boasting(game, **options):
        result = honest(game, **options)
        values = result.exploitability.values
        return dataclasses.replace(result, exploitability=Exploitability(
            values, values, result.exploitability.best_responses))

    monkeypatch.setattr(module, "cfr", boasting)
    problems, _ = _wide(gdl.load(KUHN))
    assert {(p.kind, p.solver) for p in problems} == {("claim", "cfr")}


def test_fuzz_compares_another_cfr_after_as_many_iterations():
    # OpenSpiel's own kuhn_poker stands in for the bridge: the same game, so its CFR after 100
    # iterations must give gdl's CFR's NashConv (docs/imperfect.md: the same algorithm).
    pyspiel = pytest.importorskip("pyspiel")
    from gdl.tools.fuzz import NotCompared

    def openspiel_kuhn(game, iterations, spent=None):
        spiel = pyspiel.load_game("kuhn_poker")
        solver = pyspiel.CFRSolver(spiel)
        for _ in range(spent or iterations):
            solver.evaluate_and_update_policy()
        policy = solver.average_policy()
        return (pyspiel.nash_conv(spiel, policy),
                tuple(pyspiel.expected_returns(spiel.new_initial_state(), policy, -1, True)))

    problems, figures = _wide(gdl.load(KUHN), external=openspiel_kuhn)
    assert problems == []
    assert any(run.solver == "OpenSpiel cfr" for run in figures.runs)
    # after fewer iterations than gdl's: the NashConv differs, and that is reported
    problems, _ = _wide(gdl.load(KUHN), external=lambda g, n: openspiel_kuhn(g, n, spent=10))
    assert [(p.kind, p.solver) for p in problems] == [("values", "OpenSpiel cfr")]

    def refusing(game, iterations):
        raise NotCompared("the bridge cannot")

    problems, figures = _wide(gdl.load(KUHN), external=refusing)
    assert problems == [] and any("not compared: the bridge cannot" in n for n in figures.notes)


def test_fuzz_command_on_files_with_simultaneous_moves_and_hidden_information(
        tmp_path, capsys, files):
    code = main(["fuzz", files["rps"], "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"simultaneous\s+exact\s+value 0\s+exploitability 0", out)
    assert re.search(r"sequence-form\s+exact\s+value 0\s+exploitability 0", out)
    assert "no disagreement" in out
    try:
        import pyspiel  # noqa: F401
    except ImportError:         # a usage error that names the install, not a traceback
        assert main(["fuzz", KUHN, "--openspiel", "--out", str(tmp_path)]) == 2
        assert "pip install 'gdl[openspiel]'" in capsys.readouterr().err
        return
    code = main(["fuzz", KUHN, "--openspiel", "--out", str(tmp_path), "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    import json

    document = json.loads(out)
    whole = document["runs"][0]["targets"][KUHN]["whole_game"]
    assert whole["exact_value"] == "-1/18" and whole["information_states"] == 12
    # the bridge either takes the game with its information states, or it is said why not
    assert (any(run["solver"] == "OpenSpiel cfr" for run in whole["runs"])
            or any(note.startswith("OpenSpiel's CFR: not compared: ") for note in whole["notes"]))
    assert not list(tmp_path.glob("fuzz-counterexample*"))     # no counterexample written


def test_fuzz_refuses_a_wide_game_that_can_go_on_for_ever(tmp_path, capsys):
    path = tmp_path / "stop.game"
    path.write_text(RPS.replace("terminal hand[A] != none",
                                "terminal hand[A] != none and hand[A] == hand[B]")
                    .replace("simultaneous", "simultaneous then { if hand[A] != hand[B] "
                             "{ hand[A] = none; hand[B] = none } }", 1))
    assert gdl.load(str(path)).info.simultaneous
    code = main(["fuzz", str(path), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "can go on for ever" in err


# ==== gdl serve ==================================================================================

def _bench(text, name, **options):
    from gdl.serve.workbench import Workbench

    return Workbench(text, name, **options)


KUHN_TEXT = (GAMES / "kuhn.game").read_text(encoding="utf-8")


def test_serve_sends_a_function_of_what_the_persons_seat_saw():
    # Second's page after the deal and First's check, with First holding 1 or 3 and Second 2:
    # everything sent is the same (the documents are equal), and the board shows ? for
    # First's card. The truth differs, so the page cannot be showing the state.
    import json

    documents = []
    for first in (1, 3):
        wb = _bench(KUHN_TEXT, "kuhn.game", human=(1,), seed=0)
        wb.session = reach(wb.game, [f"first={first}", "second=2", "check"])
        documents.append(json.dumps(wb.state(), sort_keys=True))
    assert documents[0] == documents[1]
    state = json.loads(documents[0])
    assert state["board"] == [{"kind": "grid", "name": "card", "rows": [["?", "2"]]}]
    assert [h["move"] for h in state["history"]] == ["(unseen)", "(unseen)", "check"]
    # Second's unique equilibrium with a Queen after a check: check always (module docstring)
    assert {m["name"]: m["strategy"] for m in state["moves"]} == {"check": "1", "bet": "0"}
    assert [v["text"] for v in state["values"]] == ["-1/18", "1/18"]
    assert state["seat"] == "Second" and state["hidden"] and not state["together"]


def test_serve_the_computer_moves_then_the_person_sees_its_equilibrium_mix():
    for seed in range(6):
        wb = _bench(KUHN_TEXT, "kuhn.game", human=(1,), seed=seed)
        state = wb.state()
        assert state["solver_to_move"] and state["to_move"] == "First" and state["moves"] == []
        state = wb.solver_move()
        first = state["history"][-1]
        assert first["player"] == "First" and first["move"] in {"check", "bet"}
        card = int(state["board"][0]["rows"][0][1])
        mix = {m["name"]: m["strategy"] for m in state["moves"]}
        expected = {(1, "check"): {"check": "2/3", "bet": "1/3"},
                    (1, "bet"): {"call": "0", "fold": "1"},
                    (2, "check"): {"check": "1", "bet": "0"},
                    (2, "bet"): {"call": "1/3", "fold": "2/3"},
                    (3, "check"): {"check": "0", "bet": "1"},
                    (3, "bet"): {"call": "1", "fold": "0"}}[card, first["move"]]
        assert mix == expected
        assert state["board"][0]["rows"][0][0] == "?"


def test_serve_simultaneous_moves_are_sent_alone_and_shown_together():
    replies = set()
    for mine in range(3):
        wb = _bench(RPS, "rps.game", human=(0,), seed=11)
        state = wb.state()
        assert state["together"] and not state["solver_to_move"]
        assert state["to_move"] == "A and B"
        assert [m["strategy"] for m in state["moves"]] == ["1/3"] * 3
        state = wb.move(mine)
        (move,) = state["history"]
        assert move["player"] == "together"
        found = re.fullmatch(r"A show\((\w+)\), B show\((\w+)\)", move["move"])
        assert found[1] == ["rock", "paper", "scissors"][mine]
        replies.add(found[2])
        assert state["over"]
    assert len(replies) == 1      # the computer's draw does not depend on the person's choice


def test_serve_seats_undo_and_tree_on_a_game_with_hidden_information():
    from gdl.serve.workbench import WorkbenchError

    wb = _bench(KUHN_TEXT, "kuhn.game", human=(1,), seed=0)
    with pytest.raises(WorkbenchError, match="played from one seat"):
        wb.set_human([0, 1])
    with pytest.raises(WorkbenchError, match="no search tree"):
        wb.tree(None)
    with pytest.raises(WorkbenchError, match="nothing of yours to undo"):
        wb.undo()
    with pytest.raises(WorkbenchError, match="not your move"):
        wb.move(0)
    wb.solver_move()
    before = wb.state()
    after = wb.move(0)
    if not after["over"]:
        assert after["history"][:len(before["history"])] == before["history"]
    assert wb.undo() == before
    # Changing seats deals again: the new seat must not hold what it saw of the old deal.
    # With the generator started afresh, every seed would deal its first deal again.
    same = 0
    for seed in range(12):
        wb = _bench(KUHN_TEXT, "kuhn.game", human=(1,), seed=seed)
        dealt = wb.game.variables(wb.session.state)["card"]
        state = wb.set_human([0])
        assert state["seat"] == "First" and len(state["history"]) == 2      # a new deal only
        same += wb.game.variables(wb.session.state)["card"] == dealt
    assert same < 12


def test_serve_over_http_on_a_simultaneous_game(files):
    import http.client
    import json

    from gdl.serve.server import GameServer

    server = GameServer(_bench(RPS, "rps.game", human=(1,), seed=4))
    server.serve_in_thread()
    try:
        def request(method, path, body=None):
            connection = http.client.HTTPConnection(*server.server_address[:2], timeout=30)
            data = None if body is None else json.dumps(body).encode()
            connection.request(method, path, body=data,
                               headers={"Content-Type": "application/json"} if data else {})
            response = connection.getresponse()
            content = response.read()
            connection.close()
            return response, json.loads(content)

        response, state = request("GET", "/api/state")
        assert response.status == 200 and state["together"] and state["seat"] == "B"
        assert "script-src 'self'" in response.getheader("Content-Security-Policy")
        response, state = request("POST", "/api/solver", {})
        assert response.status == 409 and "it is your move" in state["error"]
        response, state = request("POST", "/api/move", {"index": 2})
        assert response.status == 200 and state["over"]
        assert re.fullmatch(r"A show\(\w+\), B show\(scissors\)", state["history"][0]["move"])
        response, state = request("POST", "/api/tree", {"depth": None})
        assert response.status == 409
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("argv, message", [
    (["--depth", "2"], "--depth: a game with simultaneous moves or hidden information"),
    (["--as", "First", "--as", "Second"], "--as: a game with simultaneous moves or hidden "
                                          "information is played from one seat"),
])
def test_serve_refuses_what_it_cannot_do(capsys, argv, message):
    code = main(["serve", KUHN, "--port", "0", *argv])
    assert code == 2
    assert message in capsys.readouterr().err


def test_the_page_in_a_browser_shows_the_persons_view_and_plays_at_once(tmp_path, files):
    # The real page (Chromium, as tests/test_serve_browser.py drives it): Kuhn's poker as
    # Second shows First's card as ?, and each move with the equilibrium's probability; rock-
    # paper-scissors as A shows the joint move once A has chosen.
    pytest.importorskip("selenium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from test_serve_browser import CHROMIUM, DRIVER, serve, settle, text

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        for url in serve("--as", "Second", "--seed", "3", game="games/kuhn.game"):
            driver.get(url)
            settle(driver)
            cards = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "#board td")]
            assert cards[0] == "?" and cards[1] in {"1", "2", "3"}
            assert "You see what Second may see" in text(driver, "position-value")
            assert "First -1/18, Second 1/18" in text(driver, "position-value")
            notes = [n.text for n in driver.find_elements(By.CSS_SELECTOR, "#moves .value")]
            assert notes and all(n.startswith("equilibrium plays it with probability ")
                                 for n in notes)
            history = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
            assert history[:2] == ["chance: (unseen)"] * 2 and history[2].startswith("First: ")
        for url in serve("--as", "A", "--seed", "3", game=files["rps"]):
            driver.get(url)
            settle(driver)
            assert "A and B choose at once" in text(driver, "status")
            driver.find_element(By.CSS_SELECTOR, '#moves li[data-name="show(paper)"] button').click()
            settle(driver)
            (line,) = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#history li")]
            assert re.fullmatch(r"together: A show\(paper\), B show\((rock|paper|scissors)\)", line)
            assert "Game over" in text(driver, "status")
    finally:
        driver.quit()


def test_solve_names_every_information_state_differently():
    """Leduc's public card is dealt inside the call that ends the first round; the listing named
    the states after it by the moves alone, so five different states read alike."""
    from gdl.cli.wide import describe

    game = gdl.load(GAMES / "leduc.game")
    names: dict[str, set] = {}

    def walk(state, keys):
        kind = game.current_player(state)
        if kind == TERMINAL:
            return
        if kind == CHANCE:
            for outcome, _ in game.chance_outcomes(state):
                child = game.apply(state, outcome)
                walk(child, information.step(game, keys, state, None, child))
            return
        names.setdefault(describe(game, kind, keys[kind]), set()).add(keys[kind])
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            walk(child, information.step(game, keys, state, action, child))

    root = game.initial_state()
    walk(root, information.start(game, root))
    assert sum(len(keys) for keys in names.values()) == 936     # Leduc's information states
    assert all(len(keys) == 1 for keys in names.values())
