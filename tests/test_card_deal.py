"""A card deal with no dummy first move: games/kuhn.game deals Kuhn poker's two cards in `init`,
so the initial state is a chance node. Checked against Kuhn's published solution (H. W. Kuhn, "A
simplified two-person poker", 1950): the poker game, where each player sees only its own card,
is worth -1/18 to the first player, and Kuhn's family of equilibrium strategies reaches it.

gdl's solvers see the whole state, so they solve the open-handed game; the poker value is found
here by playing behaviour strategies that read only what a player may see (its own card and the
bets so far) over the game's tree, with exact probabilities, and by brute-forcing every pure
strategy of one player against the other's equilibrium strategy (a best response)."""

from fractions import Fraction
from functools import cache
from itertools import product

import pytest
from helpers import GAMES

import gdl
from gdl.protocol import CHANCE, TERMINAL

BACKENDS = ("compile", "interpret")


@cache
def kuhn(backend="compile"):
    return gdl.load(GAMES / "kuhn.game", backend=backend)


def open_handed(backend="compile"):
    """Kuhn poker with both cards seen by both players: the rule file without `private card`."""
    text = (GAMES / "kuhn.game").read_text()
    plain = text.replace("\nprivate card", "\n# (both cards seen)")
    assert plain != text
    return gdl.loads(plain, "kuhn.game", backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_deal_is_the_first_event(backend):
    game = kuhn(backend)
    root = game.initial_state()
    assert game.current_player(root) == CHANCE             # no decision (dummy or not) before it
    first = game.chance_outcomes(root)
    assert [(game.action_name(a), p) for a, p in first] == [
        (f"first={card}", Fraction(1, 3)) for card in (1, 2, 3)]
    for action, _ in first:
        after = game.apply(root, action)
        assert game.current_player(after) == CHANCE
        dealt = int(game.action_name(action).split("=")[1])
        # the second card is one of the two left, each with probability 1/2
        assert [(game.action_name(a), p) for a, p in game.chance_outcomes(after)] == [
            (f"second={card}", Fraction(1, 2)) for card in (1, 2, 3) if card != dealt]


@pytest.mark.parametrize("backend", BACKENDS)
def test_open_handed_value(backend):
    # Seeing both cards, the player with the higher card wins exactly 1: First bets a winning
    # card (Second folds, -1, rather than call, -2) and checks a losing one, then folds to a bet
    # (Second bets a winning card, and checks a losing one rather than lose a called bet). Each
    # player holds the higher card in half the deals: the value is 0.
    result = gdl.solve(open_handed(backend))
    assert result.values == (0, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_poker_game_is_worth_minus_one_eighteenth(backend):
    # Each player seeing its own card only (`private card`), gdl solve finds Kuhn's value
    # (Kuhn 1950) with the sequence-form linear program, checked exactly.
    result = gdl.solve(kuhn(backend))
    assert result.algorithm == "sequence-form" and result.proven
    assert result.values == (Fraction(-1, 18), Fraction(1, 18))
    assert result.extra["information_states"] == 12 and result.extra["exploitability"] == 0


# ---- the poker game: what each player sees is its own card and the bets ----------------------

def kuhn_first(alpha):
    """Kuhn's equilibrium strategy for the first player, one of a family with 0 <= alpha <= 1/3:
    the probability of betting (or calling) for its card and the bets so far."""
    return {(1, ()): alpha, (2, ()): Fraction(0), (3, ()): 3 * alpha,             # open
            (1, ("check", "bet")): Fraction(0), (2, ("check", "bet")): alpha + Fraction(1, 3),
            (3, ("check", "bet")): Fraction(1)}                                  # call?


# The second player's equilibrium strategy (the same for every alpha): bet or call with a King,
# call a bet with a Queen a third of the time, never call with a Jack and bluff with it a third of
# the time after a check.
KUHN_SECOND = {(1, ("check",)): Fraction(1, 3), (2, ("check",)): Fraction(0),
               (3, ("check",)): Fraction(1),
               (1, ("bet",)): Fraction(0), (2, ("bet",)): Fraction(1, 3), (3, ("bet",)): Fraction(1)}


def aggressive(history):
    """The action that bets (or calls) at this point of the betting, and the other one."""
    return ("call", "fold") if history and history[-1] == "bet" else ("bet", "check")


def poker_value(game, strategies):
    """The first player's expected utility when each player bets with the probability its
    strategy gives for (its own card, the bets so far): the game's own chance probabilities,
    exact arithmetic."""
    def walk(state, cards, history, weight):
        player = game.current_player(state)
        if player == TERMINAL:
            return weight * game.returns(state)[0]
        if player == CHANCE:
            total = Fraction(0)
            for action, p in game.chance_outcomes(state):
                card = int(game.action_name(action).split("=")[1])
                total += walk(game.apply(state, action), cards + (card,), history, weight * p)
            return total
        legal = {game.action_name(a): a for a in game.legal_actions(state)}
        up, down = aggressive(history)
        assert set(legal) == {up, down}
        p = strategies[player][cards[player], history]
        total = Fraction(0)
        for name, q in ((up, p), (down, 1 - p)):
            if q:
                total += walk(game.apply(state, legal[name]), cards, history + (name,), weight * q)
        return total

    return walk(game.initial_state(), (), (), Fraction(1))


def pure_strategies(points):
    """Every pure strategy over these (card, bets so far) points: bet (1) or not (0) at each."""
    for choice in product((0, 1), repeat=len(points)):
        yield {point: Fraction(c) for point, c in zip(points, choice)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("alpha", [Fraction(0), Fraction(1, 6), Fraction(1, 3)])
def test_kuhns_equilibrium_is_worth_minus_one_eighteenth(backend, alpha):
    assert poker_value(kuhn(backend), (kuhn_first(alpha), KUHN_SECOND)) == Fraction(-1, 18)


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_pure_strategy_does_better_against_kuhns_equilibrium(backend):
    # A best response, by brute force over the 2^6 pure strategies of each player (six points at
    # which it decides: three cards, two betting situations): neither gains by deviating, so the
    # strategies are an equilibrium of these rules and -1/18 is the value of the poker game.
    game = kuhn(backend)
    first = kuhn_first(Fraction(1, 6))
    best_first = max(poker_value(game, (pure, KUHN_SECOND)) for pure in pure_strategies(list(first)))
    worst_for_first = min(poker_value(game, (first, pure))
                          for pure in pure_strategies(list(KUHN_SECOND)))
    assert best_first == worst_for_first == Fraction(-1, 18)
