"""A strong solve as the solver of `play`, `analyze`, `serve` and `tree` on a game that can repeat
a position.

A tree search cannot solve a game whose plays can come back to a position (it would search for
ever; gdl.solvers.repetition stops it). `gdl solve` then solves the state graph instead
(gdl.graph.strong_solve: retrograde analysis, or value iteration with chance), and so do the
other commands, through this module:

- ``find_cycle(game, root)``: a cycle reachable from ``root`` where a tree search would meet
  one (the game declares no max-length), in C where the game has native rules.
- ``solve_positions(game, root)``: the strong solve from ``root``, bounded (``CYCLIC_LIMIT``
  positions); a refusal says what works instead (``cyclic_refusal``).
- ``SolvedPositions``: a strong solve read like a position database (``lookup(state)``), with
  the solver's own optimal moves (``optimal``): ``gdl.tools.database_advice.DatabaseAdvisor``
  plays from it as it plays from a database: fastest win, slowest loss.

Nothing here prints.
"""

from __future__ import annotations

from inspect import getattr_static

from gdl.protocol import TERMINAL
from gdl.solvers.repetition import strong_refusal
from gdl.solvers.result import SolverError

# Without a bound of its own (--max-states), a command tries the state graph of a game that
# cycles up to this many positions (a few seconds); `gdl solve --strong` uses the machine's
# memory as its bound.
CYCLIC_LIMIT = 2_000_000
# The states a search for a cycle visits before it gives up (the tree search still meets a
# cycle it missed, and the commands then switch as well).
CYCLE_SEARCH_LIMIT = 20_000


class Rooted:
    """A game seen from another starting state (after --moves, or a position in play)."""

    def __init__(self, game, root):
        self._game, self._root, self.info = game, root, game.info
        for name in ("current_player", "legal_actions", "apply", "chance_outcomes", "returns",
                     "evaluate", "action_name", "is_quiet"):
            setattr(self, name, getattr(game, name))
        # the native rules, for the native walk (gdl.graph.packed); looked up statically, as
        # gdl.graph.positions.native_expander does
        for name in ("backend", "native", "native_note"):
            setattr(self, name, getattr_static(game, name, None))

    def initial_state(self):
        return self._root


def find_cycle(game, root, limit: int = CYCLE_SEARCH_LIMIT) -> tuple[list[str], list[str]] | None:
    """gdl.tools.count.find_cycle (the action names to a state, then around a cycle back to
    it; None when there is no cycle or more than ``limit`` states), in C where the game has
    native rules and no chance (the same walk, a hundred times faster)."""
    from gdl.tools.count import find_cycle as python_find_cycle
    from gdl.tools.native_solve import native_rules

    native = native_rules(game)
    if native is not None and not game.info.has_chance:
        found = native.find_cycle(root, limit)
        if found is False:
            return None
        if found is not None:
            actions, start = found
            names = [game.action_name(action) for action in actions]
            return names[:start], names[start:]
    return python_find_cycle(game, root, limit=limit)


def can_repeat(game, root) -> tuple[list[str], list[str]] | None:
    """A cycle a tree search from ``root`` would meet: one reachable from ``root`` in a game
    that declares no max-length (a game that declares one is searched without the check).
    None where none is found within ``CYCLE_SEARCH_LIMIT`` states."""
    if game.info.max_length is not None or game.current_player(root) == TERMINAL:
        return None
    return find_cycle(game, root)


def cyclic_refusal(info, error: SolverError, limit: int | None = None, file: str = "FILE") -> str:
    """Why a command cannot answer from a strong solve of a game that can repeat a position
    (``error`` from ``solve_positions``), and what works instead (``file``: the rule file, as
    the commands it names should be typed)."""
    from gdl.graph import TooManyPositions

    name = info.name or "the game"
    if isinstance(error, TooManyPositions):
        bound = f"more than {limit:,}" if limit is not None else "too many"
        return (f"game {name!r} can repeat a position, so a tree search cannot solve it, and it "
                f"has {bound} positions to solve while you wait: solve it once with `gdl solve "
                f"{file} --strong --save DB` (by tiers with --workers N where the rules declare a "
                "`tier`) and answer from it with --db DB, or search to a depth limit (--depth N)")
    refusal = strong_refusal(info)
    if refusal is not None:
        return (f"game {name!r} can repeat a position, so a tree search cannot solve it, and "
                f"neither can the strong solver: {refusal}; declare a max-length, or search to a "
                "depth limit (--depth N)")
    return f"game {name!r} can repeat a position, and its strong solve failed: {error}"


def solve_positions(game, root, max_states: int | None = None, progress=None):
    """The strong solve of ``game`` from ``root`` (a ``GraphSolution``), refusing more than
    ``max_states`` positions (default ``CYCLIC_LIMIT``). Raises ``SolverError``: the strong
    solver's own (``cyclic_refusal`` words it for a person)."""
    from gdl.graph import strong_solve

    limit = CYCLIC_LIMIT if max_states is None else max_states
    return strong_solve(Rooted(game, root), max_states=limit, progress=progress)


def solver_line(solution) -> str:
    """Which solver answered, in a few words: ``retrograde analysis over 45 positions``."""
    exact = "" if solution.exact else " (not exact)"
    return f"{solution.method} over {len(solution.graph):,} positions{exact}"


class SolvedPositions:
    """A strong solve read like a position database: ``lookup(state)`` gives the value vector
    (None for a draw without a value) and the remoteness of any position it reached;
    ``optimal(state)`` the solver's optimal actions there (``GraphSolution.best_actions``);
    ``value_class(state)`` win / lose / tie / draw for the player to move."""

    path = "the strong solve"

    def __init__(self, solution):
        self.solution = solution
        self.exact = solution.exact

    def describe(self) -> str:
        return solver_line(self.solution)

    def position(self, state) -> int | None:
        return self.solution.graph.position_id(state)

    def lookup(self, state):
        from gdl.graph.database import Entry

        position = self.position(state)
        if position is None:
            return None
        return Entry(self.solution.value(position), self.solution.remoteness(position))

    def optimal(self, state) -> tuple | None:
        position = self.position(state)
        return None if position is None else tuple(self.solution.best_actions(position))

    def value_class(self, state) -> str | None:
        position = self.position(state)
        return None if position is None else self.solution.value_class(position)


def cyclic_advisor(game, root, max_states: int | None = None, file: str = "FILE", progress=None):
    """``(advisor, note)`` for playing from ``root``: where a tree search from there would meet a
    repeated position (``can_repeat``), a ``DatabaseAdvisor`` over the strong solve and no note;
    where that solve is refused, no advisor and the refusal (``cyclic_refusal``); elsewhere
    ``(None, None)``: the tree search it is."""
    from gdl.tools.database_advice import DatabaseAdvisor

    if can_repeat(game, root) is None:
        return None, None
    try:
        solution = solve_positions(game, root, max_states, progress)
    except SolverError as error:
        limit = CYCLIC_LIMIT if max_states is None else max_states
        return None, cyclic_refusal(game.info, error, limit, file)
    return DatabaseAdvisor(SolvedPositions(solution)), None
