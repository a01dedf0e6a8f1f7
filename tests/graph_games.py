"""A two-player zero-sum game given as an explicit graph, shared by the generated tests of the
strong solver (tests/test_graph.py, tests/test_chance_graph_native.py)."""

from gdl.protocol import GameInfo


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
