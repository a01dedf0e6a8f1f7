"""Pig with a three-sided die (OpenSpiel's rules, as games/pig.game), written by hand.

On your turn you roll (allowed while score + turn total < WINSCORE) or stop. A roll of 1 loses the
turn total and passes the turn; 2 or 3 is added to the turn total and you go on. Stopping banks
the turn total and passes the turn. The first to bank WINSCORE wins (+1 / -1); after HORIZON
decisions it is a draw. The evaluation at a depth cut-off is A's score minus B's.

A state is (player, score_a, score_b, turn_total, moves, rolling): ``rolling`` is True at the
chance node after a roll, before the die shows."""

from fractions import Fraction

A, B = 0, 1
SIDES, WINSCORE, HORIZON = 3, 100, 1000
THIRD = Fraction(1, SIDES)


def initial():
    return (A, 0, 0, 0, 0, False)


def to_move(state):
    return state[0]


def is_chance(state):
    return state[5]


def actions(state):
    player, score_a, score_b, turn_total = state[:4]
    score = score_a if player == A else score_b
    return ["roll", "stop"] if score + turn_total < WINSCORE else ["stop"]


def chance_outcomes(state):
    return [(face, THIRD) for face in range(1, SIDES + 1)]


def result(state, action):
    player, score_a, score_b, turn_total, moves, rolling = state
    if rolling:                                   # the die shows `action`
        if action == 1:
            return (1 - player, score_a, score_b, 0, moves + 1, False)
        return (player, score_a, score_b, turn_total + action, moves + 1, False)
    if action == "roll":
        return (player, score_a, score_b, turn_total, moves, True)
    if player == A:                               # stop: bank the turn total
        score_a += turn_total
    else:
        score_b += turn_total
    return (1 - player, score_a, score_b, 0, moves + 1, False)


def terminal(state):
    return not state[5] and (state[1] >= WINSCORE or state[2] >= WINSCORE or state[4] == HORIZON)


def utility(state):
    return 1 if state[1] >= WINSCORE else -1 if state[2] >= WINSCORE else 0


def evaluate(state):
    return state[1] - state[2]
