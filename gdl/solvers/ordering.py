"""The alpha-beta engine's move ordering: which of a node's actions to search first.

Alpha-beta cuts off sooner the earlier it meets a good action, so the engine may search a node's
actions in this order (each part on its own switch, ties always broken by declaration order):

1. the previous iteration's principal variation (iterative deepening), at the states on it;
2. the transposition table's best action (``table_move_first``);
3. the two killers of the node's ply: the last two actions that caused a beta cut-off there;
4. the rest, by the static evaluation of each child from the mover's side (``returns`` for a
   terminal child; ``by_evaluation``), a move that wins at once first (a terminal child where the
   mover gets more than the other player: its returns need not be on the evaluation's scale, so
   without this rule Connect Four's evaluation ranked its winning moves behind good-looking
   ones), then by history score: the sum of depth**2 over every cut-off the action caused
   anywhere (``history``).

Building and evaluating every child costs an apply and an evaluation a child, most of them wasted
at a node that the first child cuts off. It pays near the root, where subtrees are large; in an
exact solve (``evaluation_plies``) nodes from ply EVALUATION_PLIES on rank their actions instead
by the root's order (the root is ordered by evaluation), still a move that wins at once first,
which needs each child built but not evaluated. On Connect Four 5x4 that keeps the node count
(there the root's order is the evaluation's order at every node) and takes a quarter off the
time; on 4 columns x 5 rows the nodes change by +0.2%. The native tier does the same
(gdl/backends/native/search.c, order_actions), so both count the same nodes.

``MoveOrdering`` holds what ordering learns during a search (killers, history) and the line to
follow; the engine asks it to ``order`` a node and tells it of every cut-off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gdl.protocol import TERMINAL, Action, State, Value
from gdl.solvers.transposition import NO_ACTION

Utilities = Callable[[State], tuple[Value, ...]]

# The first ply whose nodes rank their actions by the root's order rather than by evaluating
# every child, in an exact solve. Alpha-beta nodes / CPU seconds (Python tier) by this ply:
#                  C4 4x4          C4 4 cols x 5 rows   C4 5x4
#   never          16,632 / 0.14   168,237 / 1.22       286,126 / 2.16
#   4              16,632 / 0.10   200,950 / 1.04       286,126 / 1.59
#   8              16,632 / 0.11   168,523 / 0.86       286,126 / 1.59
#   12             16,632 / 0.12   157,125 / 0.89       286,126 / 1.76
EVALUATION_PLIES = 8
RANKED_ORDERS = 4096     # distinct sets of legal actions whose ranked order is kept


class MoveOrdering:
    """The search order of a node's actions, and what is learnt from cut-offs to choose it."""

    def __init__(self, current_player: Callable[[State], int], apply: Callable[[State, Action], State],
                 returns: Utilities, evaluate: Utilities, *, table_move_first: bool = False,
                 by_evaluation: bool = False, killers: bool = False, history: bool = False,
                 evaluation_plies: int | None = None):
        self.current_player = current_player
        self.apply = apply
        self.returns = returns
        self.evaluate = evaluate
        self.table_move_first = table_move_first
        self.by_evaluation = by_evaluation
        # From this ply on (None: never) actions are ranked by the root's order (see above).
        self.evaluation_plies = evaluation_plies
        self.ranks: dict[Action, int] = {}          # action -> its place in the root's order
        self._ranked_orders: dict[tuple[Action, ...], tuple[Action, ...]] = {}
        self.use_killers = killers
        self.use_history = history
        # Whether every node is ordered; otherwise only the states on ``principal`` are.
        self.always = table_move_first or killers or history
        # Whether cut-offs teach anything (the engine skips telling it when they do not).
        self.learns = killers or history
        # The previous iteration's principal variation: state -> its action on the line.
        self.principal: dict[State, Action] = {}
        self.killers: list[list[Action]] = []     # per ply: [latest, the one before]
        self.history: dict[Action, int] = {}

    def follow(self, line: dict[State, Action]) -> None:
        """Search ``line`` (state -> action) first from now on. The dict object is kept (the
        engine holds it), its contents replaced."""
        self.principal.clear()
        self.principal.update(line)

    def order(self, state: State, actions: Sequence[Action], mover: int, ply: int,
              table_move: Action) -> tuple[Sequence[Action], dict[Action, State] | None]:
        """(``actions`` in search order, {action: child} when ordering computed the children,
        else None). ``mover`` is +1 when player 0 moves, -1 otherwise."""
        firsts: list[Action] = []
        if self.principal:
            line_move = self.principal.get(state, NO_ACTION)
            if line_move is not NO_ACTION and line_move in actions:
                firsts.append(line_move)
        if (self.table_move_first and table_move is not NO_ACTION and table_move not in firsts
                and table_move in actions):
            firsts.append(table_move)
        if self.use_killers and ply < len(self.killers):
            for killer in self.killers[ply]:
                if killer is not NO_ACTION and killer not in firsts and killer in actions:
                    firsts.append(killer)
        if self.by_evaluation and self.evaluation_plies is not None:
            if ply >= self.evaluation_plies:
                return self._ranked(state, actions, mover, firsts)
            ordered, children = self._sorted(state, actions, mover, firsts)
            if ply == 0:
                self.ranks = {a: r for r, a in enumerate(ordered)}
                self._ranked_orders.clear()
            return ordered, children
        if self.by_evaluation or self.use_history:
            return self._sorted(state, actions, mover, firsts)
        if not firsts:
            return actions, None
        firsts.extend([a for a in actions if a not in firsts])
        return firsts, None

    def _sorted(self, state: State, actions: Sequence[Action], mover: int,
                firsts: list[Action]) -> tuple[list[Action], dict[Action, State] | None]:
        """``firsts``, then the other actions by (the child's evaluation for the mover, best
        first; history score, highest first; declaration order). With evaluation, every child
        is built here (the ``firsts`` too) and returned, so the search does not build it again."""
        children: dict[Action, State] | None = {} if self.by_evaluation else None
        keyed: list[tuple[int, Value, int, int, Action]] = []
        for i, action in enumerate(actions):
            rank = 1
            score: Value = 0
            if children is not None:
                child = self.apply(state, action)
                children[action] = child
                if action in firsts:
                    continue
                if self.current_player(child) == TERMINAL:
                    vector = self.returns(child)
                    value = vector[0]
                    # A move that wins at once (the mover ends with more than the other) comes
                    # before every other: returns and evaluations need not share a scale.
                    if (value > vector[1]) if mover > 0 else (vector[1] > value):
                        rank = 0
                else:
                    value = self.evaluate(child)[0]
                score = -value if mover > 0 else value      # ascending sort: best first
            elif action in firsts:
                continue
            keyed.append((rank, score, -self.history.get(action, 0) if self.use_history else 0,
                          i, action))
        keyed.sort()
        firsts.extend([k[4] for k in keyed])
        return firsts, children

    def _ranked(self, state: State, actions: Sequence[Action], mover: int,
                firsts: list[Action]) -> tuple[Sequence[Action], dict[Action, State]]:
        """``firsts``, then the other actions by (wins at once first; the root's order, actions
        the root did not have last; history score, highest first; declaration order). Every
        child is built (to see the wins) and returned, so the search does not build it again."""
        apply, current_player, returns = self.apply, self.current_player, self.returns
        children: dict[Action, State] = {}
        wins: set[Action] | None = None
        for action in actions:
            child = children[action] = apply(state, action)
            if current_player(child) == TERMINAL:
                vector = returns(child)
                if (vector[0] > vector[1]) if mover > 0 else (vector[1] > vector[0]):
                    if wins is None:
                        wins = set()
                    wins.add(action)
        ranks, last = self.ranks, len(self.ranks)
        if self.use_history:
            history = self.history
            ranked = tuple(sorted(actions, key=lambda a: (ranks.get(a, last), -history.get(a, 0))))
        else:
            # A node's legal actions repeat (Connect Four has one set per pattern of full
            # columns), so each set is sorted once while the ranks stand (sorted is stable:
            # ties stay in declaration order).
            key = tuple(actions)
            cached = self._ranked_orders.get(key)
            if cached is None:
                cached = tuple(sorted(actions, key=lambda a: ranks.get(a, last)))
                if len(self._ranked_orders) >= RANKED_ORDERS:
                    self._ranked_orders.clear()
                self._ranked_orders[key] = cached
            ranked = cached
        if wins is not None:
            firsts.extend([a for a in ranked if a in wins and a not in firsts])
        if not firsts:
            return ranked, children
        firsts.extend([a for a in ranked if a not in firsts])
        return firsts, children

    def record_cutoff(self, action: Action, ply: int, depth: int) -> None:
        """``action`` caused a beta cut-off at ``ply``, ``depth`` plies above the horizon
        (quiescence nodes, at depth <= 0, count 1)."""
        if self.use_killers:
            while len(self.killers) <= ply:
                self.killers.append([NO_ACTION, NO_ACTION])
            slot = self.killers[ply]
            if slot[0] != action:
                slot[1] = slot[0]
                slot[0] = action
        if self.use_history:
            self.history[action] = self.history.get(action, 0) + (depth * depth if depth > 0 else 1)
