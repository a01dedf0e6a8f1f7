"""Small Python games implementing the protocol, and an independent brute-force oracle, for the
alpha-beta tests. Nothing here imports the solver under test."""

from __future__ import annotations

from fractions import Fraction

from gdl.protocol import CONSTANT_SUM, TERMINAL, ZERO_SUM, GameInfo

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class TicTacToe:
    """Cells 0..8 row by row; state = (board tuple of 0/1/2, player to move). X (player 0) = 1."""

    def __init__(self, evaluate: bool = False):
        self.info = GameInfo(name="tictactoe", players=("x", "o"), sum_kind=ZERO_SUM,
                             utility_bounds=(-1, 1), has_evaluate=evaluate, max_length=9)

    def initial_state(self):
        return ((0,) * 9, 0)

    def _winner(self, board):
        for a, b, c in LINES:
            if board[a] and board[a] == board[b] == board[c]:
                return board[a]
        return 0

    def current_player(self, state):
        board, p = state
        if self._winner(board) or all(board):
            return TERMINAL
        return p

    def legal_actions(self, state):
        return tuple(i for i, c in enumerate(state[0]) if not c)

    def apply(self, state, action):
        board, p = state
        b = list(board)
        b[action] = p + 1
        return (tuple(b), 1 - p)

    def returns(self, state):
        w = self._winner(state[0])
        v = 1 if w == 1 else -1 if w == 2 else 0
        return (v, -v)

    def evaluate(self, state):
        # open lines for X minus open lines for O, scaled into (-1, 1)
        board = state[0]
        score = 0
        for line in LINES:
            cells = {board[i] for i in line}
            if 2 not in cells:
                score += 1
            if 1 not in cells:
                score -= 1
        return (Fraction(score, 9), -Fraction(score, 9))

    def action_name(self, action):
        return f"place({action})"

    def is_quiet(self, state):
        return True


class Accumulate:
    """A take-away game with scores, rich in transpositions.

    State (n, player, acc): the mover subtracts s in ``moves`` (s <= n) and adds ``s * weight[s]``
    to acc if player 0 moved, subtracts it otherwise; moving ``again`` lets the same player move
    again. At n < min(moves) the game ends: player 0 gets acc + bonus[n]. ``evaluate`` is acc plus
    a per-n table; ``is_quiet`` is False where n is in ``noisy``."""

    def __init__(self, n, moves, weights, bonus, heur, again=None, noisy=(), total=None,
                 evaluate=True):
        self.n0 = n
        self.moves = tuple(moves)
        self.weights = dict(weights)
        self.bonus = dict(bonus)
        self.heur = dict(heur)
        self.again = again
        self.noisy = frozenset(noisy)
        self.total = total
        kind = ZERO_SUM if total is None else CONSTANT_SUM
        self.info = GameInfo(name="accumulate", players=("a", "b"), sum_kind=kind,
                             utility_sum=total, has_evaluate=evaluate,
                             has_quiescence=bool(noisy))

    def initial_state(self):
        return (self.n0, 0, 0)

    def current_player(self, state):
        n, p, _ = state
        return p if any(s <= n for s in self.moves) else TERMINAL

    def legal_actions(self, state):
        return tuple(s for s in self.moves if s <= state[0])

    def apply(self, state, s):
        n, p, acc = state
        gain = s * self.weights[s]
        acc = acc + gain if p == 0 else acc - gain
        nxt = p if s == self.again else 1 - p
        return (n - s, nxt, acc)

    def _vec(self, v):
        return (v, -v) if self.total is None else (v, self.total - v)

    def returns(self, state):
        n, _, acc = state
        return self._vec(acc + self.bonus.get(n, 0))

    def evaluate(self, state):
        n, _, acc = state
        return self._vec(acc + self.heur.get(n, 0))

    def action_name(self, action):
        return f"take({action})"

    def is_quiet(self, state):
        return state[0] not in self.noisy


class PathTree:
    """A tree-shaped game given as a dict path -> node; states are paths (tuples of child
    indices), so no state is reached twice. Node: ("leaf", v0) or ("move", player, k, heur,
    quiet) with k children."""

    def __init__(self, nodes, total=None):
        self.nodes = nodes
        self.total = total
        kind = ZERO_SUM if total is None else CONSTANT_SUM
        self.info = GameInfo(name="pathtree", players=("max", "min"), sum_kind=kind,
                             utility_sum=total, has_evaluate=True, has_quiescence=True)

    def initial_state(self):
        return ()

    def current_player(self, state):
        node = self.nodes[state]
        return TERMINAL if node[0] == "leaf" else node[1]

    def legal_actions(self, state):
        return tuple(f"c{i}" for i in range(self.nodes[state][2]))

    def apply(self, state, action):
        return state + (int(action[1:]),)

    def _vec(self, v):
        return (v, -v) if self.total is None else (v, self.total - v)

    def returns(self, state):
        return self._vec(self.nodes[state][1])

    def evaluate(self, state):
        return self._vec(self.nodes[state][3])

    def action_name(self, action):
        return action

    def is_quiet(self, state):
        return self.nodes[state][4]


class Chain:
    """One action per state, ``length`` plies; player 0 gets 1 at the end."""

    def __init__(self, length):
        self.length = length
        self.info = GameInfo(name="chain", players=("a", "b"), sum_kind=ZERO_SUM)

    def initial_state(self):
        return 0

    def current_player(self, state):
        return TERMINAL if state >= self.length else state % 2

    def legal_actions(self, state):
        return ("next",)

    def apply(self, state, action):
        return state + 1

    def returns(self, state):
        return (1, -1)

    def action_name(self, action):
        return action

    def is_quiet(self, state):
        return True


class Counting:
    """A huge game made up on the fly: ``width`` actions per ply for ``length`` plies; the
    mover adds the action's number to a running total (player 0 positive). Tree-shaped, because
    the state carries the whole history hash."""

    def __init__(self, width=30, length=40):
        self.width = width
        self.length = length
        self.info = GameInfo(name="counting", players=("a", "b"), sum_kind=ZERO_SUM,
                             has_evaluate=True)

    def initial_state(self):
        return (0, 0, 0)          # ply, total, history code

    def current_player(self, state):
        return TERMINAL if state[0] >= self.length else state[0] % 2

    def legal_actions(self, state):
        return range(self.width)

    def apply(self, state, a):
        ply, total, code = state
        delta = (a * 7 + code) % 11 - 5
        return (ply + 1, total + (delta if ply % 2 == 0 else -delta), code * 31 + a + 1)

    def returns(self, state):
        return (state[1], -state[1])

    def evaluate(self, state):
        return (state[1], -state[1])

    def action_name(self, action):
        return str(action)

    def is_quiet(self, state):
        return True


# --- the oracle: plain recursive minimax, no pruning, written straight from the definition ---

def oracle_value(game, state, depth=None, quiescence=None):
    """Player 0's minimax value of ``state``; with ``depth``, the depth-limited value with
    ``evaluate`` at the horizon; with ``quiescence=q``, non-quiet horizon states are searched on
    with stand-pat, down to depth -q."""
    p = game.current_player(state)
    if p == TERMINAL:
        return game.returns(state)[0]
    if depth is not None and depth <= 0:
        stand = game.evaluate(state)[0]
        if quiescence is None or depth <= -quiescence or game.is_quiet(state):
            return stand
    else:
        stand = None
    child_depth = None if depth is None else depth - 1
    values = [oracle_value(game, game.apply(state, a), child_depth, quiescence)
              for a in game.legal_actions(state)]
    if stand is not None:
        values.append(stand)
    return max(values) if p == 0 else min(values)


def oracle_root(game, state=None, depth=None, quiescence=None):
    """(player 0's value, the optimal root actions in declaration order)."""
    if state is None:
        state = game.initial_state()
    p = game.current_player(state)
    child_depth = None if depth is None else depth - 1
    scored = [(a, oracle_value(game, game.apply(state, a), child_depth, quiescence))
              for a in game.legal_actions(state)]
    best = max(v for _, v in scored) if p == 0 else min(v for _, v in scored)
    return best, tuple(a for a, v in scored if v == best)
