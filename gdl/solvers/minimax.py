"""Plain minimax: the reference every faster two-player search is tested against.

Preconditions (checked on ``game.info`` before searching): exactly two players, zero-sum or
constant-sum, no chance (use ``expectiminimax`` for chance). A depth limit needs a declared
evaluation.

One recursion serves both players: every node returns the full value vector (v, total - v) and
the player to move picks the child that maximises *its own* component, so there is no separate
"min" branch. Every state is visited (no pruning): ``stats.nodes`` counts each visit, root
included, and ``stats.leaves`` counts terminal states plus depth cut-off evaluations.

Tie rule: a decision node keeps the *first* child, in declaration order, whose value for the
mover is the best; that child extends the principal variation. ``best_actions`` is the set of
all root actions whose value equals the best, in declaration order.

Depth: ``depth=N`` allows N plies below the root; a non-terminal state reached after N plies is
scored by ``game.evaluate`` and the result has ``proven=False`` if any such cut-off happened.
``depth=0`` evaluates the root itself. Quiescence (``game.is_quiet``) is not applied here.
"""

from __future__ import annotations

from gdl.solvers.expectiminimax import search_game
from gdl.solvers.result import SolverError, SolveResult
from gdl.solvers.trace import Trace
from gdl.solvers.wide import refuse_wide


def minimax(game, *, depth: int | None = None, table: bool = False,
            trace: Trace | None = None) -> SolveResult:
    """Exact minimax value, optimal root actions and principal variation (first best on ties).

    The recursion is expectiminimax's (gdl.solvers.expectiminimax.search_game), written once;
    minimax only refuses games with chance, where it would have nothing to say. ``table``: a
    transposition table keyed by (state, depth left), as in expectiminimax. ``trace``: a
    gdl.solvers.trace.Trace that receives the search's events."""
    info = game.info
    refuse_wide(info, "minimax")
    if info.has_chance:
        raise SolverError(f"minimax: game {info.name!r} has chance nodes; use expectiminimax")
    return search_game(game, depth, "minimax", table, trace)
