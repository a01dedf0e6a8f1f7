"""Games with simultaneous moves or hidden information, written as small Python classes that
implement the protocol (gdl.protocol: WideGame), for the solvers' tests until the rule language
can say them. Nothing here imports a solver.

- ``MatrixGame``: one simultaneous move, then the payoff (rock-paper-scissors, matching pennies,
  a biased rock-paper-scissors, the prisoner's dilemma).
- ``TwoStage``: matching pennies whose one outcome is a second, biased rock-paper-scissors.
- ``StoppingPennies``: a stochastic game whose position repeats (Shapley's setting).
- ``Goofspiel``: bidding with cards for prizes, simultaneous, perfect information.
- ``KuhnPoker``: Kuhn's poker for 2 (or more, as OpenSpiel generalises it) players.
- ``LeducPoker``: Leduc hold'em as OpenSpiel's ``leduc_poker``.
- ``BayesianGame``: chance deals each player a private type, then public moves: a family for
  generated tests.
- ``RevealAll``: any perfect-information game declared ``hidden`` that shows everything anyway.
- ``Sequentialised``: a simultaneous-move game with the first acting player choosing first, in
  the open.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import permutations

from gdl.protocol import (
    CHANCE,
    GENERAL_SUM,
    SIMULTANEOUS,
    TERMINAL,
    ZERO_SUM,
    GameInfo,
)


class _Protocol:
    """What every game here shares."""

    def action_name(self, action):
        return str(action)

    def is_quiet(self, state):
        return True

    def evaluate(self, state):
        raise NotImplementedError

    def legal_actions(self, state):
        raise AssertionError("legal_actions at a simultaneous state")


class MatrixGame(_Protocol):
    """Both players choose at once from ``rows`` and ``columns``; ``payoff[i][j]`` is the first
    player's utility (zero-sum), or a pair of utilities when ``general_sum``."""

    def __init__(self, name, rows, columns, payoff, general_sum=False):
        self.rows, self.columns, self.payoff = tuple(rows), tuple(columns), payoff
        self.general_sum = general_sum
        self.info = GameInfo(name=name, players=("row", "column"),
                             sum_kind=GENERAL_SUM if general_sum else ZERO_SUM,
                             simultaneous=True, max_length=1)

    def initial_state(self):
        return "start"

    def current_player(self, state):
        return SIMULTANEOUS if state == "start" else TERMINAL

    def acting_players(self, state):
        return (0, 1)

    def legal_actions_of(self, state, player):
        return self.rows if player == 0 else self.columns

    def apply_joint(self, state, joint):
        return (self.rows.index(joint[0]), self.columns.index(joint[1]))

    def returns(self, state):
        i, j = state
        if self.general_sum:
            return tuple(self.payoff[i][j])
        v = self.payoff[i][j]
        return (v, -v)

    def observation(self, state, player):
        return state

    def move_observation(self, state, player, move):
        return move


def rock_paper_scissors():
    return MatrixGame("rock-paper-scissors", "RPS", "RPS",
                      [[0, -1, 1], [1, 0, -1], [-1, 1, 0]])


def biased_rock_paper_scissors():
    """Rock beating scissors pays the first player 3 (the second player's rock still pays 1)."""
    return MatrixGame("biased rock-paper-scissors", "RPS", "RPS",
                      [[0, -1, 3], [1, 0, -1], [-1, 1, 0]])


def matching_pennies():
    return MatrixGame("matching pennies", "HT", "HT", [[1, -1], [-1, 1]])


def prisoners_dilemma():
    """Cooperate or defect; defecting dominates, so (D, D) is the only equilibrium."""
    return MatrixGame("prisoner's dilemma", "CD", "CD",
                      [[(-1, -1), (-3, 0)], [(0, -3), (-2, -2)]], general_sum=True)


class TwoStage(_Protocol):
    """Matching pennies; on (H, H) the players then play biased rock-paper-scissors, (T, T) pays
    the first player 1 and a mismatch pays it -1."""

    RPS = [[0, -1, 3], [1, 0, -1], [-1, 1, 0]]

    def __init__(self):
        self.info = GameInfo(name="two stages", players=("row", "column"), sum_kind=ZERO_SUM,
                             simultaneous=True, max_length=2)

    def initial_state(self):
        return ("pennies",)

    def current_player(self, state):
        return SIMULTANEOUS if state[0] in ("pennies", "rps") else TERMINAL

    def acting_players(self, state):
        return (0, 1)

    def legal_actions_of(self, state, player):
        return ("H", "T") if state[0] == "pennies" else ("R", "P", "S")

    def apply_joint(self, state, joint):
        if state[0] == "pennies":
            if joint == ("H", "H"):
                return ("rps",)
            return ("end", 1 if joint == ("T", "T") else -1)
        return ("end", self.RPS["RPS".index(joint[0])]["RPS".index(joint[1])])

    def returns(self, state):
        return (state[1], -state[1])

    def observation(self, state, player):
        return state

    def move_observation(self, state, player, move):
        return move


class StoppingPennies(_Protocol):
    """A stochastic game (Shapley 1953) whose one position repeats: both choose H or T; (H, H)
    pays the first player 3 and (T, T) pays 1; a mismatch ends the game with 0 or, with
    probability 1/2, comes back to the start. Every play ends with probability 1."""

    def __init__(self):
        self.info = GameInfo(name="stopping pennies", players=("row", "column"),
                             sum_kind=ZERO_SUM, has_chance=True, simultaneous=True)

    def initial_state(self):
        return "start"

    def current_player(self, state):
        if state == "start":
            return SIMULTANEOUS
        return CHANCE if state == "coin" else TERMINAL

    def acting_players(self, state):
        return (0, 1)

    def legal_actions_of(self, state, player):
        return ("H", "T")

    def apply_joint(self, state, joint):
        if joint[0] != joint[1]:
            return "coin"
        return ("end", 3 if joint[0] == "H" else 1)

    def chance_outcomes(self, state):
        return (("again", Fraction(1, 2)), ("stop", Fraction(1, 2)))

    def apply(self, state, outcome):
        return "start" if outcome == "again" else ("end", 0)

    def returns(self, state):
        return (state[1], -state[1])

    def observation(self, state, player):
        return state

    def move_observation(self, state, player, move):
        return move


class Goofspiel(_Protocol):
    """Each player holds cards 1..n; the prizes n, n-1, ..., 1 are turned up in that order (as
    OpenSpiel's ``points_order=descending``); each turn both bid a card at once, the higher bid
    takes the prize (a tie discards it) and bids are shown. Utility: +1 / -1 / 0 by total
    points (OpenSpiel's ``returns_type=win_loss``)."""

    def __init__(self, n=3):
        self.n = n
        self.info = GameInfo(name=f"goofspiel {n}", players=("first", "second"),
                             sum_kind=ZERO_SUM, simultaneous=True, max_length=n,
                             utility_bounds=(-1, 1))

    def initial_state(self):
        full = frozenset(range(1, self.n + 1))
        return (full, full, 0, 0)          # hands, points

    def current_player(self, state):
        return SIMULTANEOUS if state[0] else TERMINAL

    def acting_players(self, state):
        return (0, 1)

    def legal_actions_of(self, state, player):
        return tuple(sorted(state[player]))

    def apply_joint(self, state, joint):
        h0, h1, s0, s1 = state
        prize = len(h0)                    # n, n-1, ...: the prize equals the cards left
        a, b = joint
        if a > b:
            s0 += prize
        elif b > a:
            s1 += prize
        return (h0 - {a}, h1 - {b}, s0, s1)

    def returns(self, state):
        d = state[2] - state[3]
        v = (d > 0) - (d < 0)
        return (v, -v)

    def observation(self, state, player):
        return state

    def move_observation(self, state, player, move):
        return move


class KuhnPoker(_Protocol):
    """Kuhn's poker (Kuhn 1950) for ``players`` players (as OpenSpiel's ``kuhn_poker``): a deck
    of players + 1 cards, one dealt to each player in turn, an ante of 1 each; players act in
    order, passing or betting 1. Until someone bets, a pass checks; once someone has bet, every
    other player acts once more, betting to call or passing to fold. If nobody bets, all show
    down; else those who bet show down. The highest card takes the pot."""

    def __init__(self, players=2):
        self.n = players
        self.info = GameInfo(name=f"Kuhn poker ({players} players)",
                             players=tuple(f"p{i}" for i in range(players)), has_chance=True,
                             sum_kind=ZERO_SUM, hidden=True)

    def initial_state(self):
        return ((), "")

    def _over(self, history):
        first = history.find("b")
        return len(history) == self.n if first < 0 else len(history) == first + self.n

    def current_player(self, state):
        cards, history = state
        if len(cards) < self.n:
            return CHANCE
        if self._over(history):
            return TERMINAL
        return len(history) % self.n

    def chance_outcomes(self, state):
        left = [c for c in range(self.n + 1) if c not in state[0]]
        return tuple((c, Fraction(1, len(left))) for c in left)

    def legal_actions(self, state):
        return ("p", "b")

    def apply(self, state, action):
        cards, history = state
        if len(cards) < self.n:
            return (cards + (action,), history)
        return (cards, history + action)

    def returns(self, state):
        cards, history = state
        bettors = {k % self.n for k, a in enumerate(history) if a == "b"}
        contribution = [1 + (p in bettors) for p in range(self.n)]
        showdown = bettors or set(range(self.n))
        winner = max(showdown, key=lambda p: cards[p])
        pot = sum(contribution)
        return tuple((pot if p == winner else 0) - contribution[p] for p in range(self.n))

    def observation(self, state, player):
        cards, history = state
        return (cards[player] if len(cards) > player else None, history)

    def move_observation(self, state, player, move):
        cards, _ = state
        if len(cards) < self.n:                   # a card dealt: only its holder sees it
            return move if len(cards) == player else "dealt"
        return move


class LeducPoker(_Protocol):
    """Leduc hold'em as OpenSpiel's ``leduc_poker`` (Southey et al. 2005): six cards, two each of
    three ranks (card // 2); an ante of 1; one private card each, a betting round (raises of 2),
    a public card, a second round (raises of 4). At most two raises a round; the first player
    opens each round; fold only when facing a raise. A pair with the public card wins, else the
    higher rank; equal ranks split. ``ranks`` and ``raises`` make it bigger (benchmarks)."""

    ACTIONS = ("f", "c", "r")

    def __init__(self, ranks=3, raises=2):
        self.cards, self.raises = 2 * ranks, raises
        name = "Leduc poker" if (ranks, raises) == (3, 2) else f"Leduc poker ({ranks}, {raises})"
        self.info = GameInfo(name=name, players=("p0", "p1"), has_chance=True,
                             sum_kind=ZERO_SUM, hidden=True)

    def initial_state(self):
        return (None, None, None, "", "")       # private cards, public card, the two rounds

    @staticmethod
    def _closed(history):
        return len(history) >= 2 and history[-1] == "c"

    def current_player(self, state):
        c0, c1, public, h1, h2 = state
        if c0 is None or c1 is None:
            return CHANCE
        if "f" in h1 or "f" in h2:
            return TERMINAL
        if not self._closed(h1):
            return len(h1) % 2
        if public is None:
            return CHANCE
        if not self._closed(h2):
            return len(h2) % 2
        return TERMINAL

    def chance_outcomes(self, state):
        left = [c for c in range(self.cards) if c not in state[:3]]
        return tuple((c, Fraction(1, len(left))) for c in left)

    def legal_actions(self, state):
        history = state[4] if self._closed(state[3]) else state[3]
        facing = history.endswith("r")
        actions = ("f", "c") if facing else ("c",)
        return actions + (("r",) if history.count("r") < self.raises else ())

    def apply(self, state, action):
        c0, c1, public, h1, h2 = state
        if c0 is None:
            return (action, c1, public, h1, h2)
        if c1 is None:
            return (c0, action, public, h1, h2)
        if not self._closed(h1):
            return (c0, c1, public, h1 + action, h2)
        if public is None:
            return (c0, c1, action, h1, h2)
        return (c0, c1, public, h1, h2 + action)

    def returns(self, state):
        c0, c1, public, h1, h2 = state
        paid = [1, 1]
        for history, size in ((h1, 2), (h2, 4)):
            for k, a in enumerate(history):
                p = k % 2
                if a == "f":
                    return (paid[1], -paid[1]) if p == 1 else (-paid[0], paid[0])
                paid[p] = max(paid) + (size if a == "r" else 0)
        r0, r1, rp = c0 // 2, c1 // 2, public // 2
        key0, key1 = (r0 == rp, r0), (r1 == rp, r1)
        sign = (key0 > key1) - (key0 < key1)
        return (sign * paid[0], -sign * paid[0])

    def observation(self, state, player):
        c0, c1, public, h1, h2 = state
        return ((c0, c1)[player], public, h1, h2)

    def move_observation(self, state, player, move):
        c0, c1, public, h1, h2 = state
        if c0 is None:
            return move if player == 0 else "dealt"
        if c1 is None:
            return move if player == 1 else "dealt"
        return move


class BayesianGame(_Protocol):
    """Chance deals each player a private type, ``(t0, t1)`` with probability
    ``weights[t0][t1] / total``; then the players move in the open along ``tree``: a node is
    ``("move", player, (child, ...))`` or ``("end", payoffs)`` with ``payoffs[t0][t1]`` the
    first player's utility (zero-sum). A player sees its own type and every move."""

    def __init__(self, weights, tree, name="bayesian"):
        self.weights, self.tree = weights, tree
        self.total = sum(sum(row) for row in weights)
        self.info = GameInfo(name=name, players=("p0", "p1"), has_chance=True,
                             sum_kind=ZERO_SUM, hidden=True)

    def initial_state(self):
        return (None, ())

    def _node(self, path):
        node = self.tree
        for i in path:
            node = node[2][i]
        return node

    def current_player(self, state):
        types, path = state
        if types is None:
            return CHANCE
        node = self._node(path)
        return node[1] if node[0] == "move" else TERMINAL

    def chance_outcomes(self, state):
        return tuple(((t0, t1), Fraction(w, self.total))
                     for t0, row in enumerate(self.weights) for t1, w in enumerate(row) if w)

    def legal_actions(self, state):
        return tuple(range(len(self._node(state[1])[2])))

    def apply(self, state, action):
        types, path = state
        if types is None:
            return (action, path)
        return (types, path + (action,))

    def returns(self, state):
        types, path = state
        v = self._node(path)[1][types[0]][types[1]]
        return (v, -v)

    def observation(self, state, player):
        types, path = state
        return (None if types is None else types[player], path)

    def move_observation(self, state, player, move):
        if state[0] is None:
            return move[player]
        return move

    def infosets(self, player):
        """Every (own type, path) at which ``player`` moves: for brute force."""
        found = []

        def walk(node, path):
            if node[0] == "move":
                if node[1] == player:
                    found.append(path)
                for i, child in enumerate(node[2]):
                    walk(child, path + (i,))

        walk(self.tree, ())
        types = len(self.weights) if player == 0 else len(self.weights[0])
        return [(t, path) for t in range(types) for path in found]


class SimultaneousTree(_Protocol):
    """A generated two-player zero-sum game with simultaneous moves, nothing hidden. A node is
    ``("end", v)`` (the first player's utility), ``("chance", ((weight, child), ...))`` or
    ``("both", ((child, ...), ...))``: a matrix of children, rows the first player's actions
    and columns the second's."""

    def __init__(self, tree):
        self.tree = tree
        self.info = GameInfo(name="generated simultaneous", players=("row", "column"),
                             sum_kind=ZERO_SUM, simultaneous=True, has_chance="chance" in repr(tree))

    def __repr__(self):
        return f"SimultaneousTree({self.tree!r})"

    def initial_state(self):
        return ()

    def _node(self, path):
        node = self.tree
        for step in path:
            node = node[1][step[0]][1] if node[0] == "chance" else node[1][step[0]][step[1]]
        return node

    def current_player(self, state):
        kind = self._node(state)[0]
        return {"end": TERMINAL, "chance": CHANCE, "both": SIMULTANEOUS}[kind]

    def acting_players(self, state):
        return (0, 1)

    def legal_actions_of(self, state, player):
        matrix = self._node(state)[1]
        return tuple(range(len(matrix) if player == 0 else len(matrix[0])))

    def apply_joint(self, state, joint):
        return state + (tuple(joint),)

    def chance_outcomes(self, state):
        children = self._node(state)[1]
        whole = sum(w for w, _ in children)
        return tuple(((k,), Fraction(w, whole)) for k, (w, _) in enumerate(children))

    def apply(self, state, outcome):
        return state + (outcome,)

    def returns(self, state):
        v = self._node(state)[1]
        return (v, -v)

    def observation(self, state, player):
        return state

    def move_observation(self, state, player, move):
        return move


class RevealAll:
    """A perfect-information game declared ``hidden``: each player's observation is the whole
    state and the whole move, so the game is the same game, only said the wide way."""

    def __init__(self, game):
        self.game = game
        self.info = replace(game.info, hidden=True)

    def __getattr__(self, name):
        return getattr(self.game, name)

    def observation(self, state, player):
        return state

    def move_observation(self, state, player, move):
        return move


class Sequentialised(_Protocol):
    """A two-player simultaneous-move game made sequential: at a simultaneous state the first
    acting player chooses, then the second chooses having seen it (with ``second_first``, the
    other way round)."""

    def __init__(self, game, second_first=False):
        self.game, self.second_first = game, second_first
        self.info = replace(game.info, simultaneous=False)

    def _acting(self, inner):
        acting = tuple(self.game.acting_players(inner))
        return acting[::-1] if self.second_first else acting

    def initial_state(self):
        return (self.game.initial_state(), None)

    def current_player(self, state):
        inner, first = state
        player = self.game.current_player(inner)
        if player != SIMULTANEOUS:
            return player
        acting = self._acting(inner)
        return acting[0] if first is None else acting[1]

    def legal_actions(self, state):
        inner, first = state
        if self.game.current_player(inner) != SIMULTANEOUS:
            return self.game.legal_actions(inner)
        return self.game.legal_actions_of(inner, self.current_player(state))

    def apply(self, state, action):
        inner, first = state
        if self.game.current_player(inner) != SIMULTANEOUS:
            return (self.game.apply(inner, action), None)
        if first is None:
            return (inner, (action,))
        joint = first + (action,)
        return (self.game.apply_joint(inner, joint[::-1] if self.second_first else joint), None)

    def chance_outcomes(self, state):
        return self.game.chance_outcomes(state[0])

    def returns(self, state):
        return self.game.returns(state[0])


def deals(n_cards, players):
    """Every deal of one card each: for brute-force checks."""
    return list(permutations(range(n_cards), players))
