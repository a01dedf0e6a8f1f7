"""Cyclic games of more than two players, or general-sum (gdl.graph.multiplayer): stationary
equilibria checked against hand derivations, against brute force over every pure stationary
profile, and against a Markov-chain evaluation and deviation check written here; forced wins
against a naive fixed point; the refusals and their reasons."""

import itertools
import re
from fractions import Fraction

import graph_games
import pytest
from helpers import GAMES
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
import gdl.graph.multiplayer as multiplayer
from gdl.graph import enumerate_positions
from gdl.graph.induction import vector_induction
from gdl.graph.multiplayer import (
    ENDLESS_EQUILIBRIUM,
    FORCED_WINS,
    STATIONARY,
    refusal_reason,
    solve_multiplayer,
)
from gdl.graph.order import levels
from gdl.protocol import CHANCE, GENERAL_SUM, TERMINAL, GameInfo
from gdl.solvers.result import SolverError

DOCS = GAMES.parent / "docs" / "multiplayer.md"


def doc_game(title):
    """The rule file docs/multiplayer.md shows under ``game "title"``: its claims are tested."""
    text = DOCS.read_text(encoding="utf-8")
    for block in re.findall(r"^```game\n(.*?)^```", text, re.M | re.S):
        if block.startswith(f'game "{title}"'):
            return block
    raise LookupError(title)


QUIT_OR_GO = doc_game("Quit or go on")
HOLD_OUT = doc_game("Hold out")
QUITTING = doc_game("Quitting")


def solved(game):
    graph = enumerate_positions(game)
    return solve_multiplayer(graph, game.info)


def truel(a, b, c):
    return gdl.load(GAMES / "cyclic" / "truel.game", {"a": a, "b": b, "c": c})


def piglet3(goal):
    return gdl.load(GAMES / "cyclic" / "piglet3.game", {"goal": goal})


# ---- an independent evaluation: the Markov chain of a stationary profile ------------------------

def states_of(game):
    """Every reachable state, through the protocol."""
    start = game.initial_state()
    seen, queue = {start: None}, [start]
    while queue:
        state = queue.pop()
        for nxt in successors(game, state):
            if nxt not in seen:
                seen[nxt] = None
                queue.append(nxt)
    return list(seen)


def successors(game, state):
    kind = game.current_player(state)
    if kind == TERMINAL:
        return []
    if kind == CHANCE:
        return [game.apply(state, o) for o, _ in game.chance_outcomes(state)]
    return [game.apply(state, a) for a in game.legal_actions(state)]


def evaluate(game, states, choice):
    """Every state's value vector when each decision state moves to ``choice[state]`` (a
    successor state): the linear equations x_s = sum_t P(s, t) x_t, x = returns at the ends,
    solved by sparse Gaussian elimination in fractions, one right-hand side per player."""
    k = game.info.num_players
    rows = {}
    for s in states:
        row = {s: Fraction(1)}
        rhs = [Fraction(0)] * k
        kind = game.current_player(s)
        if kind == TERMINAL:
            rhs = [Fraction(v) for v in game.returns(s)]
        elif kind == CHANCE:
            for outcome, p in game.chance_outcomes(s):
                t = game.apply(s, outcome)
                row[t] = row.get(t, 0) - p
        else:
            t = choice[s]
            row[t] = row.get(t, 0) - 1
        rows[s] = (row, rhs)
    solved_rows = {}
    for pivot in states:
        row, rhs = rows.pop(pivot)
        lead = row[pivot]
        row = {t: c / lead for t, c in row.items()}
        rhs = [v / lead for v in rhs]
        for other, (orow, orhs) in rows.items():
            factor = orow.pop(pivot, 0)
            if factor:
                for t, c in row.items():
                    if t != pivot:
                        orow[t] = orow.get(t, 0) - factor * c
                rows[other] = (orow, [a - factor * b for a, b in zip(orhs, rhs)])
        for other, (orow, orhs) in solved_rows.items():
            factor = orow.pop(pivot, 0)
            if factor:
                for t, c in row.items():
                    if t != pivot:
                        orow[t] = orow.get(t, 0) - factor * c
                solved_rows[other] = (orow, [a - factor * b for a, b in zip(orhs, rhs)])
        del row[pivot]
        solved_rows[pivot] = (row, rhs)
    assert all(not row for row, _ in solved_rows.values())
    return {s: tuple(rhs) for s, (_, rhs) in solved_rows.items()}


def one_shot_gain(game, states, value):
    """A (state, successor) where the mover gains by moving there instead, or None."""
    for s in states:
        mover = game.current_player(s)
        if mover < 0:
            continue
        for t in successors(game, s):
            if value[t][mover] > value[s][mover]:
                return s, t
    return None


def reported_profile(game, solution):
    """The profile a solution reports: at each decision state, the successor its move leads to."""
    graph = solution.graph
    return {graph.state(p): graph.state(int(graph.child[solution.profile[p]]))
            for p in range(len(graph)) if game.current_player(graph.state(p)) >= 0}


def assert_equilibrium(game, solution):
    """The solution's values are its profile's, evaluated here, and no player gains by a
    one-shot deviation anywhere: in a game where every play ends, a stationary subgame-perfect
    equilibrium."""
    graph = solution.graph
    states = states_of(game)
    assert len(states) == len(graph)
    value = evaluate(game, states, reported_profile(game, solution))
    for state in states:
        position = graph.position_id(state)
        assert solution.value(position) == value[state], state
    assert one_shot_gain(game, states, value) is None


def equilibria(game):
    """Every pure stationary equilibrium, by brute force: each profile evaluated exactly and
    checked against one-shot deviations. Returns the equilibria's value maps."""
    states = states_of(game)
    deciders = [s for s in states if game.current_player(s) >= 0]
    options = [list(dict.fromkeys(successors(game, s))) for s in deciders]
    found = []
    for combination in itertools.product(*options):
        value = evaluate(game, states, dict(zip(deciders, combination)))
        if one_shot_gain(game, states, value) is None:
            found.append(value)
    return found


# ---- the truel ---------------------------------------------------------------------------------

def duel(x, y):
    """P(the first shooter wins) in a duel, accuracies x (first) and y: it hits at once (x), or
    both miss and it starts again: p = x + (1 - x)(1 - y) p."""
    return x / (x + y - x * y)


def truel_by_hand(a, b, c):
    """The truel's value at the start when each shoots at the stronger of the others (a < b < c:
    A and B at C, C at B). With T_A, T_B, T_C the vectors when all three stand and A, B or C is
    to shoot:
      T_A = a (1 - D(b, a), D(b, a), 0) + (1 - a) T_B    (A hits C: B shoots first at A)
      T_B = b (D(a, b), 1 - D(a, b), 0) + (1 - b) T_C    (B hits C: C is out, A shoots first)
      T_C = c (D(a, c), 0, 1 - D(a, c)) + (1 - c) T_A    (C hits B: A shoots first)
    so T_A (1 - (1 - a)(1 - b)(1 - c)) = u + (1 - a) v + (1 - a)(1 - b) w."""
    u = [a * (1 - duel(b, a)), a * duel(b, a), 0]
    v = [b * duel(a, b), b * (1 - duel(a, b)), 0]
    w = [c * duel(a, c), 0, c * (1 - duel(a, c))]
    scale = 1 - (1 - a) * (1 - b) * (1 - c)
    return tuple((u[i] + (1 - a) * v[i] + (1 - a) * (1 - b) * w[i]) / scale for i in range(3))


def test_the_truel_by_hand():
    # 30, 60 and 90 percent (the bundled defaults): 1055/3348, 55/108, 49/279, and the best shot
    # is the likeliest to lose (Kilgour 1975; Kilgour and Brams 1997).
    solution = solved(truel(30, 60, 90))
    assert solution.exact and solution.method == STATIONARY
    expected = truel_by_hand(Fraction(3, 10), Fraction(6, 10), Fraction(9, 10))
    assert solution.value(0) == expected == (Fraction(1055, 3348), Fraction(55, 108),
                                             Fraction(49, 279))
    names = [truel(30, 60, 90).action_name(a) for a in solution.best_actions(0)]
    assert names == ["shoot(C)"]                 # A shoots at the stronger of the others
    assert "need not be unique" in solution.note


@pytest.mark.parametrize("accuracies", [(30, 60, 90), (20, 50, 80), (50, 60, 70)])
def test_the_truel_has_one_pure_stationary_equilibrium_and_it_is_reported(accuracies):
    game = truel(*accuracies)
    found = equilibria(game)
    assert len(found) == 1                         # brute force over all 8 profiles
    solution = solved(game)
    graph = solution.graph
    for state, value in found[0].items():
        assert solution.value(graph.position_id(state)) == value
    assert_equilibrium(game, solution)
    a, b, c = (Fraction(x, 100) for x in accuracies)
    assert solution.value(0) == truel_by_hand(a, b, c)


def test_a_tie_is_broken_by_the_first_best_move():
    # Equal accuracies: whoever A shoots, the survivor of that hit shoots first at A with the same
    # accuracy, so A is indifferent; the tie rule takes the first target declared (B). Several
    # profiles are equilibria; the reported one is among them and is the tie rule's.
    game = truel(50, 50, 50)
    solution = solved(game)
    assert solution.exact
    assert [game.action_name(a) for a in solution.best_actions(0)] == ["shoot(B)", "shoot(C)"]
    start = game.initial_state()
    assert reported_profile(game, solution)[start] == game.apply(start, game.legal_actions(start)[0])
    assert_equilibrium(game, solution)
    found = equilibria(game)
    assert len(found) > 1
    graph = solution.graph
    assert any(all(solution.value(graph.position_id(s)) == v for s, v in value.items())
               for value in found)


# ---- three-player Piglet -----------------------------------------------------------------------

@pytest.mark.parametrize("goal, expected", [
    # Goal 1: every turn is one flip, heads wins: A wins 1/2 + 1/8 · (A again) ..., so with
    # P = 1/2 / (1 - 1/8) = 4/7, B = P/2 = 2/7, C = P/4 = 1/7.
    (1, (Fraction(4, 7), Fraction(2, 7), Fraction(1, 7))),
    # Goal 2: a player at 0 who flips to the end wins a turn with 1/4 (two heads); one who holds
    # at 1 banks a point the others can catch up with. Flipping on is the equilibrium (checked
    # below against every one-shot deviation); then each turn ends the game with 1/4, so
    # A = (1/4) / (1 - (3/4)^3) = 16/37, B = 3/4 A = 12/37, C = 3/4 B = 9/37.
    (2, (Fraction(16, 37), Fraction(12, 37), Fraction(9, 37))),
])
def test_three_player_piglet_by_hand(goal, expected):
    game = piglet3(goal)
    solution = solved(game)
    assert solution.exact and solution.value(0) == expected
    assert_equilibrium(game, solution)


def test_three_player_piglet_is_an_equilibrium_checked_independently():
    game = piglet3(3)
    solution = solved(game)
    assert solution.exact
    assert_equilibrium(game, solution)
    assert sum(solution.value(0)) == 1


def test_every_position_is_reported_and_the_note_says_which_equilibrium():
    solution = solved(piglet3(2))
    assert all(solution.value(p) is not None for p in range(len(solution.graph)))
    assert "first best move" in solution.note and "need not be unique" in solution.note


# ---- no pure stationary equilibrium ------------------------------------------------------------



def test_a_stopping_game_without_a_pure_stationary_equilibrium_is_refused():
    # A quits: (1, 2); B quits: (0, 1); a coin ends the game with 1/10 after each `go`: (2, 0).
    # By hand, with t = (2, 0): (go, go) is worth t everywhere and B gains 1 by quitting;
    # (quit, go): A's turn (1, 2), B's (1.1, 1.8), and A gains by going on (1.19 > 1);
    # (go, quit): A's turn (0.2, 0.9), and A gains by quitting (1 > 0.2); (quit, quit): B gains
    # by going on (1.8 > 1). None of the four is an equilibrium (checked by brute force too).
    game = gdl.loads(QUIT_OR_GO)
    assert equilibria(game) == []
    graph = enumerate_positions(game)
    assert refusal_reason(graph, game.info) is None      # a game of the kind the solver takes
    with pytest.raises(SolverError, match="no stationary equilibrium in pure strategies: none "
                                          "of its 4 pure stationary profiles"):
        solve_multiplayer(graph, game.info)


# ---- certified intervals beyond the exact check -------------------------------------------------

@pytest.mark.parametrize("game", [truel(30, 60, 90), piglet3(3)], ids=["truel", "piglet3"])
def test_beyond_the_exact_check_the_intervals_hold_the_exact_values(game, monkeypatch):
    exact = solved(game)
    monkeypatch.setattr(multiplayer, "EXACT_LIMIT", 0)
    bracketed = solved(game)
    assert not bracketed.exact and exact.interval(0) is None
    assert "certified" in bracketed.note
    assert "prove the equilibrium property at every decision position" in bracketed.note
    widest = Fraction(0)
    for position in range(len(exact.graph)):
        for (low, high), v in zip(bracketed.interval(position), exact.value(position)):
            assert low <= v <= high
            widest = max(widest, high - low)
    assert widest < Fraction(1, 10**9)
    # every end names one winner: player 0's chance of winning is its value
    low, high = bracketed.win_probability(0)
    assert low <= exact.value(0)[0] <= high


def test_near_ties_are_not_claimed_proven(monkeypatch):
    monkeypatch.setattr(multiplayer, "EXACT_LIMIT", 0)
    solution = solved(truel(50, 50, 50))          # A is indifferent: the intervals overlap
    assert "was not made exactly" in solution.note


def test_numbers_too_long_fall_back_to_intervals(monkeypatch):
    monkeypatch.setattr(multiplayer, "MAX_DIGITS", 1)
    solution = solved(piglet3(3))
    assert not solution.exact and "gave up" in solution.note
    assert solution.interval(0) is not None


# ---- generated games: every answer is an equilibrium, every refusal is explained ---------------

class GraphGame(graph_games.GraphGame):
    """A game of three players given as an explicit graph: ``kinds[s]`` is a player, CHANCE or
    TERMINAL; ``moves[s]`` lists the successors (for chance, with probabilities);
    ``payoff[s]`` is the utility vector at a terminal; ``endless`` what endless play is worth.
    The moves are the two-player graph game's (tests/graph_games.py); the players, the sum
    and the utility vector are its own."""

    def __init__(self, kinds, moves, payoff, endless=None):
        self.kinds, self.moves, self.payoff = kinds, moves, payoff
        self.info = GameInfo(name="generated graph", players=("P0", "P1", "P2"),
                             has_chance=CHANCE in kinds, sum_kind=GENERAL_SUM,
                             endless_value=endless)

    def returns(self, state):
        return self.payoff[state]


payoffs = st.tuples(*[st.integers(0, 2)] * 3)


@st.composite
def stopping_graphs(draw):
    """Every decision leads to a chance node, and every chance node may end the game."""
    deciders = draw(st.integers(1, 4))
    chances = draw(st.integers(1, 3))
    terminals = draw(st.integers(1, 3))
    kinds = ([draw(st.integers(0, 2)) for _ in range(deciders)] + [CHANCE] * chances
             + [TERMINAL] * terminals)
    chance_ids = list(range(deciders, deciders + chances))
    terminal_ids = list(range(deciders + chances, len(kinds)))
    moves, payoff = [], {}
    for s, kind in enumerate(kinds):
        if kind == TERMINAL:
            payoff[s] = draw(payoffs)
            moves.append([])
        elif kind == CHANCE:
            targets = [draw(st.sampled_from(terminal_ids))] + draw(
                st.lists(st.integers(0, deciders - 1), min_size=1, max_size=2))
            weights = [draw(st.integers(1, 3)) for _ in targets]
            moves.append([(t, Fraction(w, sum(weights))) for t, w in zip(targets, weights)])
        else:
            moves.append(draw(st.lists(st.sampled_from(chance_ids), min_size=1, max_size=3)))
    return GraphGame(kinds, moves, payoff)


@settings(max_examples=60)
@given(stopping_graphs())
def test_generated_stopping_games_answer_with_an_equilibrium_or_say_why_not(game):
    found = equilibria(game)
    graph = enumerate_positions(game)
    try:
        solution = solve_multiplayer(graph, game.info)
    except SolverError as error:
        # a refusal says whether a pure stationary equilibrium exists, and is right about it
        if found:
            assert "although one of its" in str(error)
        else:
            assert "has no stationary equilibrium in pure strategies" in str(error)
        return
    assert solution.exact
    assert_equilibrium(game, solution)


@st.composite
def endless_graphs(draw):
    """Games without chance that can go on for ever, with a value for endless play."""
    deciders = draw(st.integers(1, 4))
    terminals = draw(st.integers(1, 3))
    kinds = [draw(st.integers(0, 2)) for _ in range(deciders)] + [TERMINAL] * terminals
    moves, payoff = [], {}
    for s, kind in enumerate(kinds):
        if kind == TERMINAL:
            payoff[s] = draw(payoffs)
            moves.append([])
        else:
            moves.append(draw(st.lists(st.integers(0, len(kinds) - 1), min_size=1, max_size=3)))
    return GraphGame(kinds, moves, payoff, endless=draw(payoffs))


def deterministic_values(game, states, choice):
    """Each state's vector under a stationary profile of a game without chance: the end its
    moves reach, or endless play's value where they go round for ever."""
    value = {}
    for start in states:
        path, state = [], start
        while game.current_player(state) != TERMINAL and state not in path:
            path.append(state)
            state = choice[state]
        value[start] = (game.returns(state) if game.current_player(state) == TERMINAL
                        else game.info.endless_value)
    return value


def subgame_perfect(game, states, choice):
    """No player gains anywhere by any deviation: against stationary strategies of the others, a
    player's best reply in a game without chance can be stationary (it heads for the best end
    it can reach, or for a cycle it can keep to), so every stationary deviation is tried."""
    value = deterministic_values(game, states, choice)
    for player in range(game.info.num_players):
        mine = [s for s in states if game.current_player(s) == player]
        options = [list(dict.fromkeys(successors(game, s))) for s in mine]
        for deviation in itertools.product(*options):
            changed = {**choice, **dict(zip(mine, deviation))}
            other = deterministic_values(game, states, changed)
            if any(other[s][player] > value[s][player] for s in states):
                return False
    return True


@settings(max_examples=60)
@given(endless_graphs())
def test_generated_endless_games_answer_with_a_subgame_perfect_equilibrium(game):
    graph = enumerate_positions(game)
    states = [graph.state(p) for p in range(len(graph))]
    deciders = [s for s in states if game.current_player(s) >= 0]
    options = [list(dict.fromkeys(successors(game, s))) for s in deciders]
    perfect = [dict(zip(deciders, c)) for c in itertools.product(*options)
               if subgame_perfect(game, states, dict(zip(deciders, c)))]
    assert refusal_reason(graph, game.info) is None   # endless play has a value: always taken
    try:
        solution = solve_multiplayer(graph, game.info)
    except SolverError as error:
        if perfect:
            assert "although one of its" in str(error)
        else:
            assert "has no stationary equilibrium in pure strategies" in str(error)
        return
    assert solution.exact
    choice = reported_profile(game, solution)
    assert choice in perfect
    value = deterministic_values(game, states, choice)
    for position, state in enumerate(states):
        assert solution.value(position) == value[state]


# ---- games without chance: endless play declared -----------------------------------------------



def test_endless_play_declared_an_equilibrium_by_hand():
    # A quits: (1, 2); B quits: (0, 1); endless play: (0, 0). A quits at once (1 > 0 from going
    # on for ever, and B, who would get 2 when A quits, goes on at its turn: 2 > 1).
    game = gdl.loads(QUITTING.replace("(2, 0)", "(0, 0)"))
    solution = solved(game)
    assert solution.method == ENDLESS_EQUILIBRIUM and solution.exact
    assert solution.value(0) == (1, 2)
    states = states_of(game)
    assert subgame_perfect(game, states, reported_profile(game, solution))


def test_endless_play_declared_without_a_stationary_equilibrium_is_refused():
    # Endless play worth (2, 0): A wants it, B does not. (go, go): B quits for 1 > 0. (quit, go):
    # A goes on for ever for 2 > 1. (go, quit): A quits for 1 > 0. (quit, quit): B goes on for
    # 2 > 1 (A then quits). No stationary profile is subgame-perfect (Solan and Vieille's
    # two-player quitting games; a non-stationary equilibrium exists, a stationary one not).
    game = gdl.loads(QUITTING)
    states = states_of(game)
    deciders = [s for s in states if game.current_player(s) >= 0]
    options = [successors(game, s) for s in deciders]
    assert not any(subgame_perfect(game, states, dict(zip(deciders, c)))
                   for c in itertools.product(*options))
    with pytest.raises(SolverError, match="none of its 4 pure stationary profiles"):
        solved(game)




def test_a_deviation_that_goes_on_for_ever_is_caught():
    # C, handed the turn, can finish (0 for C), hand it back to A (who finishes: 0 for C) or wait
    # for ever (endless play: 1 for C). Handing back passes every one-shot check (waiting once,
    # then handing back, is still 0), but C gains by waiting for ever: the only equilibrium
    # value at C's turn is endless play, (0, 0, 1). A, indifferent (0 either way), finishes.
    game = gdl.loads(HOLD_OUT)
    solution = solved(game)
    graph = solution.graph
    at_c = graph.position_id(game.apply(game.initial_state(),
                                        next(a for a in game.legal_actions(game.initial_state())
                                             if game.action_name(a) == "hand")))
    assert solution.value(at_c) == (0, 0, 1)
    assert [game.action_name(a) for a in solution.best_actions(at_c)] == ["wait"]
    assert solution.value(0) == (0, 2, 0)
    assert subgame_perfect(game, states_of(game), reported_profile(game, solution))


# ---- games without chance: forced wins ---------------------------------------------------------

GIVE_AND_TAKE_3 = """game "Three-player give and take"
players A, B, C
param tokens = 4
var pile in 0..tokens = tokens
var last in players = C
action take(k in 1..2)
    requires pile >= k
    effect   pile = pile - k; last = mover
action give
    requires pile < tokens
    effect   pile = pile + 1; last = mover
terminal pile == 0
utility A = 1 if last == A else 0
utility B = 1 if last == B else 0
utility C = 1 if last == C else 0
constant-sum 1
"""


def give_and_take_3(tokens):
    return gdl.loads(GIVE_AND_TAKE_3, params={"tokens": tokens})


def forced_by_brute_force(game, states):
    """For each player, the states from which it can force a win, and in how many moves (the
    winner hurrying, the others delaying): the least fixed point, grown naively."""
    k = game.info.num_players
    won = {}
    for player in range(k):
        rank = {s: 0 for s in states if game.current_player(s) == TERMINAL
                and game.returns(s)[player] == 1}
        changed = True
        while changed:
            changed = False
            for s in states:
                mover = game.current_player(s)
                if mover < 0:
                    continue
                known = [rank.get(t) for t in successors(game, s)]
                if mover == player:
                    candidates = [r for r in known if r is not None]
                    new = 1 + min(candidates) if candidates else None
                else:
                    new = None if None in known else 1 + max(known)
                if new is not None and rank.get(s) != new:
                    rank[s] = new
                    changed = True
        won[player] = rank
    return won


@pytest.mark.parametrize("tokens", [2, 3, 4, 5, 6])
def test_forced_wins_match_a_naive_fixed_point(tokens):
    game = give_and_take_3(tokens)
    solution = solved(game)
    assert solution.method == FORCED_WINS and solution.exact
    graph = solution.graph
    states = [graph.state(p) for p in range(len(graph))]
    won = forced_by_brute_force(game, states)
    for position, state in enumerate(states):
        winners = [p for p in range(3) if state in won[p]]
        assert len(winners) <= 1
        mover = game.current_player(state)
        if winners:
            (winner,) = winners
            expected = tuple(int(p == winner) for p in range(3))
            assert solution.value(position) == expected
            assert solution.remoteness(position) == won[winner][state]
            if mover >= 0:
                assert solution.value_class(position) == ("win" if winner == mover else "lose")
        else:
            assert solution.value(position) is None
            assert solution.remoteness(position) == -1
            assert solution.value_class(position) == "draw"


def test_forced_wins_by_hand():
    # Three tokens, A first, no giving back from a full pile: A leaves 2 or 1, and B takes them
    # all. B wins in 2 moves, whatever A does.
    solution = solved(give_and_take_3(3))
    assert solution.value(0) == (0, 1, 0)
    assert solution.value_class(0) == "lose" and solution.remoteness(0) == 2
    assert len(solution.best_actions(0)) == 2
    # Two tokens: A takes both.
    solution = solved(give_and_take_3(2))
    assert solution.value(0) == (1, 0, 0) and solution.remoteness(0) == 1
    game = give_and_take_3(2)
    assert [game.action_name(a) for a in solution.best_actions(0)] == ["take(2)"]


def test_at_a_draw_the_best_moves_keep_the_game_open():
    game = give_and_take_3(5)
    solution = solved(game)
    graph = solution.graph
    census = solution.census()
    assert census["classes"]["draw"] > 0
    for position in range(len(graph)):
        if solution.value_class(position) != "draw":
            continue
        state = graph.state(position)
        actions = game.legal_actions(state)
        children = [graph.position_id(game.apply(state, a)) for a in actions]
        open_ = [a for a, c in zip(actions, children) if solution.value(c) is None]
        # a move to a forced win hands the game to another player; every move does only when
        # the mover is a kingmaker
        assert solution.best_actions(position) == tuple(open_ or actions)


# ---- agreement with backward induction where nothing repeats -----------------------------------

@pytest.mark.parametrize("game", [
    gdl.load(GAMES / "aima-fig5-4.game"), truel(100, 100, 100), truel(100, 50, 100)],
    ids=["aima-fig5-4", "truel-sure-shots", "truel-mixed"])
def test_on_acyclic_games_the_answer_is_backward_induction(game):
    graph = enumerate_positions(game)
    order = levels(graph)
    assert order is not None
    expected = vector_induction(graph, order)
    solution = solve_multiplayer(graph, game.info)
    assert solution.exact
    for position in range(len(graph)):
        assert solution.value(position) == expected.vectors[position]


# ---- refusals ----------------------------------------------------------------------------------

def test_chance_with_plays_that_may_never_end_is_refused_with_the_reason():
    text = (GAMES / "cyclic" / "truel.game").read_text().replace(
        "when stuck pass", "when stuck pass\naction aim_high effect pass")
    game = gdl.loads(text)                      # shooting in the air: all three may abstain
    graph = enumerate_positions(game)
    reason = refusal_reason(graph, game.info)
    assert reason is not None
    assert "keep a play going for ever" in reason and "for example the start" in reason
    assert "max-length" in reason
    with pytest.raises(SolverError) as caught:
        solve_multiplayer(graph, game.info)
    assert str(caught.value) == reason


def test_endless_play_without_a_value_is_refused_with_the_ways_that_work():
    text = """game "Round"
players A, B, C
var x in 0..2 = 0
var stopped in bool = false
action go effect x = (x + 1) % 3
action stop effect stopped = true
terminal stopped
utility A = x
utility B = 2 - x
utility C = 1
"""
    game = gdl.loads(text)
    reason = refusal_reason(enumerate_positions(game), game.info)
    assert "3 players" in reason and "when endless" in reason and "max-length" in reason
    assert "constant-sum" not in reason          # its ends do not each name one winner


def test_one_winner_without_a_declared_sum_is_told_to_declare_it():
    game = gdl.loads(GIVE_AND_TAKE_3.replace("constant-sum 1\n", ""))
    reason = refusal_reason(enumerate_positions(game), game.info)
    assert "declare `constant-sum`" in reason


@pytest.mark.parametrize("game", [truel(30, 60, 90), piglet3(2), give_and_take_3(4),
                                  gdl.loads(QUITTING.replace("(2, 0)", "(0, 0)"))],
                         ids=["truel", "piglet3", "give-and-take-3", "quitting"])
def test_the_games_it_solves_have_no_refusal(game):
    assert refusal_reason(enumerate_positions(game), game.info) is None


# ---- the answer does not depend on how the walk numbered the positions ---------------------------

def renumbered(graph, seed):
    """The same graph with its positions other than the start numbered in another order, the
    moves of each position kept in their order (another walk could number them so)."""
    import random

    import numpy as np

    from gdl.graph.positions import PositionGraph

    n = len(graph)
    order = list(range(1, n))
    random.Random(seed).shuffle(order)
    old_of = [0] + order                       # new id -> old id
    new_of = np.empty(n, dtype=np.int64)
    new_of[old_of] = np.arange(n)
    first, child, probability = [0], [], []
    for old in old_of:
        start, end = int(graph.first[old]), int(graph.first[old + 1])
        child.extend(new_of[graph.child[start:end]].tolist())
        if graph.probability_index is not None:
            probability.extend(graph.probability_index[start:end].tolist())
        first.append(len(child))
    keys = [graph.keys[old] for old in old_of]
    return PositionGraph(
        game=graph.game, keys=keys, index={k: i for i, k in enumerate(keys)},
        packed=graph.packed, player=graph.player[old_of], first=np.array(first, dtype=np.int64),
        child=np.array(child, dtype=np.int32),
        probability_index=(None if graph.probability_index is None
                           else np.array(probability, dtype=np.int32)),
        probabilities=graph.probabilities, returns_index=graph.returns_index[old_of],
        returns_table=graph.returns_table)


@pytest.mark.parametrize("game", [truel(50, 50, 50), piglet3(3), give_and_take_3(5),
                                  gdl.loads(HOLD_OUT)],
                         ids=["truel-ties", "piglet3", "give-and-take-3", "hold-out"])
def test_another_numbering_gives_the_same_answer(game):
    graph = enumerate_positions(game)
    first = solve_multiplayer(graph, game.info)
    for seed in range(3):
        other = renumbered(graph, seed)
        again = solve_multiplayer(other, game.info)
        for position in range(len(other)):
            state = other.state(position)
            assert again.value(position) == first.value(graph.position_id(state))
            assert again.best_actions(position) == first.best_actions(graph.position_id(state))


@settings(max_examples=60)
@given(stopping_graphs(), st.integers(0, 3))
def test_another_numbering_gives_the_same_answer_on_generated_games(game, seed):
    graph = enumerate_positions(game)
    other = renumbered(graph, seed)
    try:
        first = solve_multiplayer(graph, game.info)
    except SolverError as error:
        with pytest.raises(SolverError) as again:
            solve_multiplayer(other, game.info)
        assert str(again.value).split(" (")[0] == str(error).split(" (")[0]
        return
    again = solve_multiplayer(other, game.info)
    for position in range(len(other)):
        assert again.value(position) == first.value(graph.position_id(other.state(position)))


@pytest.mark.parametrize("goal", [2, 3, 4])
def test_two_player_zero_sum_equilibria_have_the_game_s_value(goal):
    # Every equilibrium of a two-player zero-sum game is worth its value, which the two-player
    # solver (value iteration and its own exact check, gdl.graph.iteration) finds for Piglet.
    from gdl.graph import strong_solve

    game = gdl.load(GAMES / "cyclic" / "piglet.game", {"goal": goal})
    value = strong_solve(game)
    solution = solved(game)
    assert solution.exact and value.exact
    for position in range(len(solution.graph)):
        state = solution.graph.state(position)
        assert solution.value(position) == value.value(value.graph.position_id(state))
