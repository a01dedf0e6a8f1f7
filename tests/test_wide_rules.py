"""The rule language's simultaneous moves and hidden information (docs/language.md): what the
declarations mean, on every back end, checked against what the docs say by hand."""

from fractions import Fraction

import pytest
from wide_rules import RPS  # docs/language.md's nine lines

import gdl
from gdl.errors import GdlError
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL
from gdl.solvers import information

BACKENDS = ["interpret", "compile", "native"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_simultaneous_move_is_chosen_by_both_and_applied_together(backend):
    game = gdl.loads(RPS, backend=backend)
    start = game.initial_state()
    assert game.info.simultaneous and not game.info.hidden
    assert game.current_player(start) == SIMULTANEOUS
    assert game.acting_players(start) == (0, 1)
    names = [game.action_name(a) for a in game.legal_actions_of(start, 1)]
    assert names == ["show(rock)", "show(paper)", "show(scissors)"]
    rock, paper, scissors = game.legal_actions_of(start, 0)
    # each player's choice goes to its own cell: rock beats scissors, paper beats rock
    assert game.returns(game.apply_joint(start, (rock, scissors))) == (1, -1)
    assert game.returns(game.apply_joint(start, (rock, paper))) == (-1, 1)
    assert game.current_player(game.apply_joint(start, (paper, paper))) == TERMINAL
    # the solver: value 0, each hand a third (the textbook mixed equilibrium)
    result = gdl.solve(game)
    assert result.values == (0, 0)
    assert all(set(mix.values()) == {Fraction(1, 3)}
               for mix in result.extra["root_strategies"].values())


BIDS = """game "Bids, then a coin"
# Both bid 1 or 2 at once; then a coin: heads, the higher bid wins its own bid; tails, nothing.
players A, B
simultaneous then { random coin in {1: 1/2, 0: 1/2}; heads = coin == 1; done = true }
var bid[players] in 0..2 = 0
var heads in bool = false
var done in bool = false
action offer(b in 1..2) effect bid[mover] = b
terminal done
utility A = 0 if not heads else bid[A] if bid[A] > bid[B] else -bid[B] if bid[B] > bid[A] else 0
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_then_block_runs_once_after_the_joint_move_chance_included(backend):
    game = gdl.loads(BIDS, backend=backend)
    start = game.initial_state()
    one, two = game.legal_actions_of(start, 0)
    pending = game.apply_joint(start, (two, one))
    assert game.current_player(pending) == CHANCE
    outcomes = game.chance_outcomes(pending)
    assert [p for _, p in outcomes] == [Fraction(1, 2)] * 2
    ends = {game.action_name(o): game.returns(game.apply(pending, o)) for o, _ in outcomes}
    assert ends == {"coin=1": (2, -2), "coin=0": (0, 0)}


DEAL = """game "A deal before a simultaneous move"
players A, B
simultaneous
var x in 0..4 = 0
var hand[players] in 0..2 = 0
init { random r in 1..2; random s in 1..2; x = r + s }
action show(h in 1..2) effect hand[mover] = h
terminal hand[A] != 0
utility A = x
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_deal_in_init_is_one_effect_before_the_first_simultaneous_move(backend):
    # two coins of 1 or 2 each: x is 2, 3, 3 or 4, worth 3 on average whatever anyone shows
    game = gdl.loads(DEAL, backend=backend)
    state, events = game.initial_state(), 0
    while game.current_player(state) == CHANCE:
        state = game.apply(state, game.chance_outcomes(state)[-1][0])
        events += 1
    assert events == 2 and game.current_player(state) == SIMULTANEOUS
    assert gdl.solve(game).values == (3, -3)


KUHN = (__import__("pathlib").Path(__file__).resolve().parent.parent / "games" / "kuhn.game")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_private_card_is_seen_by_its_owner_only(backend):
    # Kuhn poker has 12 information states, 6 per player: 3 cards times 2 betting histories
    # at which that player acts (Kuhn 1950).
    game = gdl.load(KUHN, backend=backend)
    assert game.info.hidden and not game.info.simultaneous
    found: list[set] = [set(), set()]

    def walk(state, keys):
        player = game.current_player(state)
        if player == TERMINAL:
            return
        if player >= 0:
            found[player].add(keys[player])
        moves = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                 else game.legal_actions(state))
        for move in moves:
            child = game.apply(state, move)
            walk(child, information.step(game, keys, state, move, child))

    start = game.initial_state()
    walk(start, information.start(game, start))
    assert [len(s) for s in found] == [6, 6]


HIDDEN_MOVE = """game "A sealed choice"
players A, B
var secret in 0..2 = 0
var done in bool = false
hidden pick
action pick(k in 1..2) by A effect secret = k
action guess(k in 1..2) by B effect done = true; secret = 0 if k == secret else secret
terminal done
utility A = 1 if secret != 0 else -1
zero-sum
hidden secret
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hidden_action_and_a_hidden_variable_are_not_seen_by_the_other(backend):
    game = gdl.loads(HIDDEN_MOVE, backend=backend)
    start = game.initial_state()
    one, two = game.legal_actions(start)
    after_one, after_two = game.apply(start, one), game.apply(start, two)
    # B sees neither the move nor the variable: both positions look the same to it
    assert game.move_observation(start, 1, one) == game.move_observation(start, 1, two) == -1
    assert game.observation(after_one, 1) == game.observation(after_two, 1)
    # A sees its own move, and (secret being hidden from everybody) no variable tells them apart
    assert game.move_observation(start, 0, one) == one
    assert game.observation(after_one, 0) == game.observation(after_two, 0)
    # guessing blind, B is right half the time: the value is 0
    assert gdl.solve(game).values == (0, 0)


@pytest.mark.parametrize("text, code, where", [
    ("simultaneous then { n = mover }\n", "E226", "simultaneous ... then"),
    ("private n\n", "E229", "not indexed by the players first"),
    ("private nothing\n", "E229", "is not a variable"),
    ("hidden nothing\n", "E229", "is not a variable or an action"),
    ("simultaneous\nwhen stuck lose\n", "E231", "`when stuck` and `simultaneous`"),
    ("private c\nhidden c\n", "E200", "private or hidden twice"),
])
def test_the_declarations_are_checked(text, code, where):
    base = ('game "g"\nplayers A, B\nvar n in 0..2 = 0\nvar c[players] in 0..1 = 0\n'
            'action go effect n = 1\nterminal n == 1\nutility A = n\nzero-sum\n')
    with pytest.raises(GdlError) as caught:
        gdl.loads(base + text)
    found = [d for d in caught.value.diagnostics if d.code == code]
    assert found and where in found[0].message and found[0].hint


def test_the_declarations_format_and_read_back(tmp_path):
    from gdl.cli import main

    path = tmp_path / "g.game"
    path.write_text(BIDS.replace("zero-sum\n", "zero-sum\nprivate bid\n"))
    assert main(["fmt", "--write", str(path)]) == 0
    formatted = path.read_text()
    assert "simultaneous then {" in formatted and "private bid" in formatted
    again = gdl.loads(formatted)
    assert again.info.simultaneous and again.info.hidden
