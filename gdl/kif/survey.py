"""Whether a KIF game's roles ever choose at once, and what its goals add up to, found by
walking its first positions in the Datalog interpreter.

GDL has no turns: every role moves at every step, most of them with their only legal move
(``noop``). A game that the translation proved alternating (gdl.kif.analysis) never gets here.
For any other game the interpreter walks the positions reachable from the start, breadth first
in a fixed order, until it meets one where two roles have a choice (the game is then a
simultaneous-move game, played and solved by gdl's simultaneous-move solvers) or has walked
``TURN_STATES`` positions without one (the game is then taken as alternating; should a later
position have two roles choosing, the interpreter refuses it there by name, K303, saying why).

For a simultaneous-move game of two roles the walk goes on, up to ``SUM_STEPS`` moves, to
collect the sums of the goals at the ends: when it has seen every reachable position and every
end gives the same sum, the game is constant-sum (zero-sum for a sum of 0), which picks the
exact solver (gdl's solvers for more players do not ask). Detected, never assumed: a walk that
stops early leaves the game general-sum.

An alternating game the walk covers whole (it has fewer than ``TURN_STATES`` positions) has
its sums checked the same way.

Both limits count positions and moves, not seconds, so the answer is the same on any machine.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from itertools import product

TURN_STATES = 200          # positions walked looking for two roles that choose at once
SUM_STEPS = 5_000          # moves walked, in a simultaneous-move game, to check constant sum


@dataclass
class Survey:
    simultaneous: bool = False
    complete: bool = False            # every reachable position was walked
    goal_sums: set[int] = field(default_factory=set)
    positions: int = 0

    @property
    def constant_sum(self) -> int | None:
        """The sum of the goals at every end, where the walk proved it is always the same."""
        if self.complete and len(self.goal_sums) == 1:
            return next(iter(self.goal_sums))
        return None


def survey(game, turn_states: int = TURN_STATES, sum_steps: int = SUM_STEPS) -> Survey:
    """Walk ``game`` (a gdl.kif.interpreter.KifGame) from its start (see the module's
    docstring). Errors of the rules met on the way (a role without a legal move, K301; goals
    that are not one per role, K302) are raised as they would be in play."""
    result = Survey()
    start = game.initial_state()
    seen = {start}
    queue = deque([start])
    steps = 0
    while queue:
        state = queue.popleft()
        if game.is_terminal(state):
            result.goal_sums.add(sum(game.goals(state)))
            continue
        moves = game.joint_moves(state)
        if sum(1 for row in moves if len(row) > 1) > 1:
            result.simultaneous = True
            if len(moves) != 2:         # the sum matters to the choice of solver for two only
                result.positions = len(seen)
                return result
        if not result.simultaneous and len(seen) >= turn_states:
            result.positions = len(seen)
            return result
        for joint in product(*moves):
            steps += 1
            if steps > sum_steps:
                result.positions = len(seen)
                return result
            after = game.next_state(state, joint)
            if after not in seen:
                seen.add(after)
                queue.append(after)
    result.complete = True
    result.positions = len(seen)
    return result
