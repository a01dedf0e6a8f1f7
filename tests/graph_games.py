"""A two-player zero-sum game given as an explicit graph, shared by the generated tests of the
strong solver (tests/test_graph.py, tests/test_chance_graph_native.py), and the exact value of
every state under a fixed choice of moves, their brute forces' building block."""

from fractions import Fraction

from gdl.protocol import CHANCE, TERMINAL, GameInfo


class GraphGame:
    """A two-player zero-sum game given as an explicit graph, for generated tests: ``kinds[s]``
    is 0, 1, CHANCE or TERMINAL; ``moves[s]`` lists the successors (for chance, with
    probabilities); ``payoff[s]`` is player 0's utility at a terminal."""

    def __init__(self, kinds, moves, payoff, chance=True):
        self.kinds, self.moves, self.payoff = kinds, moves, payoff
        self.info = GameInfo(name="generated graph", players=("P0", "P1"), has_chance=chance,
                             sum_kind="zero-sum")

    def initial_state(self):
        return 0

    def current_player(self, state):
        return self.kinds[state]

    def legal_actions(self, state):
        return tuple(range(len(self.moves[state])))

    def chance_outcomes(self, state):
        return tuple((i, p) for i, (_, p) in enumerate(self.moves[state]))

    def apply(self, state, action):
        move = self.moves[state][action]
        return move[0] if isinstance(move, tuple) else move

    def returns(self, state):
        return (self.payoff[state], -self.payoff[state])

    def action_name(self, action):
        return f"m{action}"


def evaluate_exactly(game, states, choice):
    """Player 0's value of every state when the players follow ``choice`` (state -> successor):
    the linear equations of the Markov chain, solved by Gaussian elimination in fractions."""
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    rows = []
    for s in states:
        row = [Fraction(0)] * (n + 1)
        row[index[s]] += 1
        kind = game.current_player(s)
        if kind == TERMINAL:
            row[n] = Fraction(game.payoff[s])
        elif kind == CHANCE:
            for t, p in game.moves[s]:
                row[index[t]] -= p
        else:
            row[index[choice[s]]] -= 1
        rows.append(row)
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rows[col] = [x / rows[col][col] for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                rows[r] = [a - rows[r][col] * b for a, b in zip(rows[r], rows[col])]
    return {s: rows[index[s]][n] for s in states}
