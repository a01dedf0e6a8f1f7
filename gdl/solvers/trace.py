"""The trace of a tree search: the events a solver emits while it searches, from its own code.

Every tree solver (minimax, expectiminimax, alpha-beta, Star1/Star2, max^n, paranoid) takes
``trace=None``. Given a ``Trace``, it tells the trace what it does as it does it: a node entered,
a move applied to descend, a leaf read, a value backed up, a cut-off taken, the table's answer.
So a view that steps through a search (``gdl step``), draws it (``gdl tree``), or grades a student
against it reads what the search did, not what a second implementation thinks it would do.

A search given no trace must not pay for one, so the searches tell their most frequent events
through calls they wrap only when given a trace: their recursion (each node entered, and the
value it backs up), the game's ``apply`` (each edge followed) and the frontier's or the game's
``returns`` and ``evaluate`` (each leaf); a search tests for a trace only where a rarer event
happens (a cut-off, a table hit, a re-search, a chance node's outcomes in Star1/Star2, which
build their successors before searching them). Timed side by side with the searches before
there was a trace, the difference is within the noise of the measurement
(benchmarks/trace_overhead.py).

What a solver calls (``Trace`` records each as an ``Event``; the path of a node is the actions
from the root, kept here from ``edge`` calls, so solvers need not carry it):

``enter(state, player, window=None, cap=None)``
    A node is visited: exactly the visits the solver counts in ``stats.nodes``. ``player`` is the
    mover, CHANCE or TERMINAL. ``window``: the (alpha, beta) the node is searched with, always on
    player 0's value (alpha-beta, Star1/Star2, paranoid; window ends may be ±inf or ``x ± ε``,
    gdl.solvers.window). ``cap``: max^n's shallow-pruning bound, ``(parent player, limit,
    strict)``: the node may stop once its mover's best reaches ``limit``.
``edge(action, probability=None, again=False)``
    The node on top is about to search this child (``again``: the same child searched a second
    time, with a wider window: a re-search).
``leaf(values, evaluated)``
    The node is a leaf: the game's returns, or (``evaluated``) its evaluation at the depth
    limit. Ends the node.
``exit(values, bound, best)``
    The node's value, backed up from its children (``best``: the child it came from, or None).
    ``bound`` says what the value is worth: EXACT, LOWER or UPPER (a fail-soft bound on player
    0's true value, two players), or PARTIAL (max^n: the vector of a node stopped by shallow
    pruning, which its parent never picks). Ends the node.
``cutoff(test, value, limit, after, skipped)``
    The node stops looking at its children after ``after``, leaving ``skipped`` unsearched,
    because ``value`` passed ``limit`` by the test named (the TESTS below say each in words).
``table(values, bound)``
    A transposition table answered. In alpha-beta a node is counted, then answered (ends the
    node); in the other solvers the table answers for the child just announced by ``edge``,
    which is then not visited.
``average(terms, values)``
    A chance node's expectation: ``terms`` are (outcome, probability, value of player 0 or the
    vector) of the outcomes searched, ``values`` their weighted sum (or, where a cut-off ended
    the node early, the bound it returns).
``probe(values, floor)``
    Star2: the node on top (a successor of a chance node) was probed: only its first child was
    searched, which gave ``values``; ``floor`` is the lower bound on its mover's value that
    the probe proved (None: none). The node is set aside, to be resumed.
``resume(window)``
    Star2: the search phase takes up the probed node announced by ``edge`` again, with its new
    window (it is not visited a second time).
``restart()``
    The solver abandons its search and starts again from the root (expectiminimax, when its
    exact integer scale is too coarse): what came before is dropped, as the counters are.

A trace can stop a search that grows too large: with ``limit``, the visit past it raises
``TraceTooLong`` (a SolverError) inside the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gdl.protocol import CHANCE, Action, State
from gdl.solvers.result import SolverError

# Event kinds.
ENTER, LEAF, EXIT, CUTOFF, TABLE, AVERAGE, PROBE, RESUME = (
    "enter", "leaf", "exit", "cutoff", "table", "average", "probe", "resume")
KINDS = (ENTER, LEAF, EXIT, CUTOFF, TABLE, AVERAGE, PROBE, RESUME)

# What a value says about the node's true value (player 0's, in a two-player search).
EXACT, LOWER, UPPER, PARTIAL = "exact", "lower", "upper", "partial"

# Cut-off tests: the name of the comparison that stopped a node, on player 0's value where the
# search has a window.
BETA = "beta"                  # a maximiser (player 0) reached beta: the minimiser above avoids it
ALPHA = "alpha"                # a minimiser fell to alpha: the maximiser above has better
STAND_PAT = "stand-pat"        # quiescence: the evaluation already reaches the window's far end
BEST_POSSIBLE = "best-possible"  # Star1/Star2: the mover has the highest value the bounds allow
CHANCE_LOW = "chance-low"      # Star1: even with the best for the rest, the average stays <= alpha
CHANCE_HIGH = "chance-high"    # Star1: even with the worst for the rest, the average is >= beta
PROBE_HIGH = "probe-high"      # Star2: the probes' floors already put the average >= beta
PROBE_LOW = "probe-low"        # the same, the probing player being player 1: average <= alpha
SHALLOW = "shallow"            # max^n: the parent's mover can no longer gain from this node
TESTS = {
    BETA: "the maximiser's value reached beta: the minimiser above will not let play come here",
    ALPHA: "the minimiser's value fell to alpha: the maximiser above has a better choice",
    STAND_PAT: "the evaluation (standing pat) already reaches the far end of the window",
    BEST_POSSIBLE: "the mover already has the best value the utility bounds allow",
    CHANCE_LOW: "even if every outcome not searched gave the most, the average stays at or "
                "below alpha",
    CHANCE_HIGH: "even if every outcome not searched gave the least, the average is at or "
                 "above beta",
    PROBE_HIGH: "the probes (each outcome's first reply) already put the average at or above "
                "beta",
    PROBE_LOW: "the probes (each outcome's first reply) already put the average at or below "
               "alpha",
    SHALLOW: "the mover's gain leaves the parent's mover no more than it already has "
             "(shallow pruning)",
}


class TraceTooLong(SolverError):
    """The search visited more nodes than the trace was allowed to record."""

    def __init__(self, limit: int):
        super().__init__(f"the search visits more than {limit:,} nodes")
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Event:
    """One thing a search did, at the node ``path`` (actions from the root; ``node``: the node's
    visit number, root 0, -1 for a child the table answered without a visit). The other fields
    are those of the solver's call (see the module notes); unused ones are None or empty."""

    kind: str
    path: tuple[Action, ...]
    node: int
    player: int | None = None
    state: State = None
    window: tuple[Any, Any] | None = None
    cap: tuple[int, Any, bool] | None = None
    probability: Any = None
    again: bool = False
    values: tuple | None = None
    evaluated: bool = False
    bound: str | None = None
    action: Action = None
    test: str | None = None
    value: Any = None
    limit: Any = None
    skipped: tuple[Action, ...] = ()
    terms: tuple = ()

    @property
    def depth(self) -> int:
        return len(self.path)


class Trace:
    """Records a search's events (``events``), with each node's path. Subclass and override
    ``emit`` to see them as they come."""

    def __init__(self, limit: int | None = None):
        self.limit = limit
        self.events: list[Event] = []
        self.nodes = 0          # nodes entered: the solver's stats.nodes when it is done
        self.restarts = 0       # searches abandoned and begun again (restart)
        self.abandoned = 0      # the nodes those abandoned searches had entered
        # The nodes entered and not yet closed, root first: path, number, player, probability,
        # and what their children closed with so far: (move, probability, values).
        self._open: list[_Open] = []
        self._edge: tuple[Action, Any, bool] | None = None
        self._set_aside: dict[tuple[Action, ...], _Open] = {}

    def emit(self, event: Event) -> None:
        self.events.append(event)

    # -- the solver's calls --------------------------------------------------------------------

    def edge(self, action: Action, probability: Any = None, again: bool = False) -> None:
        self._edge = (action, probability, again)

    def enter(self, state: State, player: int, window: tuple[Any, Any] | None = None,
              cap: tuple[int, Any, bool] | None = None) -> int:
        """(Returns the node's number, for ``is_open``.)"""
        if self.limit is not None and self.nodes >= self.limit:
            raise TraceTooLong(self.limit)
        path, probability, again = self._child()
        number = self.nodes
        self.nodes += 1
        self._open.append(_Open(path, number, player, probability))
        self.emit(Event(ENTER, path, number, player, state, window=window, cap=cap,
                        probability=probability, again=again))
        return number

    def leaf(self, values: Sequence, evaluated: bool = False) -> None:
        node = self._close(values)
        self.emit(Event(LEAF, node.path, node.number, node.player, values=tuple(values),
                        evaluated=evaluated, bound=EXACT))

    def exit(self, values: Sequence, bound: str = EXACT, best: Action = None) -> None:
        node = self._close(values)
        self.emit(Event(EXIT, node.path, node.number, node.player, values=tuple(values),
                        bound=bound, action=best))

    def cutoff(self, test: str, value: Any, limit: Any, after: Action,
               skipped: Sequence[Action] = ()) -> None:
        node = self._top()
        node.cut = after
        node.skipped = bool(skipped)
        self.emit(Event(CUTOFF, node.path, node.number, node.player, test=test, value=value,
                        limit=limit, action=after, skipped=tuple(skipped)))

    def table(self, values: Sequence, bound: str = EXACT) -> None:
        if self._edge is not None:      # the child announced: answered, not visited
            action, probability, again = self._edge
            self._edge = None
            parent = self._top()
            parent.results.append((action, probability, tuple(values)))
            self.emit(Event(TABLE, parent.path + (action,), -1, probability=probability,
                            again=again, values=tuple(values), bound=bound))
            return
        node = self._close(values)
        self.emit(Event(TABLE, node.path, node.number, node.player, values=tuple(values),
                        bound=bound))

    def average(self, terms: Sequence[tuple[Action, Any, Any]], values: Sequence) -> None:
        node = self._top()
        self.emit(Event(AVERAGE, node.path, node.number, node.player, terms=tuple(terms),
                        values=tuple(values)))

    def probe(self, values: Sequence, floor: Any) -> None:
        node = self._close(None)
        self._set_aside[node.path] = node
        self.emit(Event(PROBE, node.path, node.number, node.player, values=tuple(values),
                        limit=floor))

    def resume(self, window: tuple[Any, Any] | None = None) -> None:
        path, probability, _ = self._child()
        node = self._set_aside.pop(path)
        self._open.append(node)
        self.emit(Event(RESUME, path, node.number, node.player, window=window,
                        probability=probability))

    # -- for a solver that tells its events through wrappers (expectiminimax) -------------------

    def is_open(self, number: int) -> bool:
        """Whether the node ``number`` is the node open at the bottom of the path (not yet
        closed by a leaf, an exit or the table)."""
        return bool(self._open) and self._open[-1].number == number

    def cut_after(self) -> Action:
        """The child after which the open node was cut off (None: it was not)."""
        return self._top().cut

    def cut_skipped(self) -> bool:
        """Whether the open node was cut off with children left unsearched."""
        return self._top().skipped

    def results(self) -> list[tuple[Action, Any, tuple]]:
        """What the children of the open node closed with, in order: (move, probability,
        values)."""
        return list(self._top().results)

    def restart(self) -> None:
        self.abandoned += self.nodes
        self.events.clear()
        self._open.clear()
        self._set_aside.clear()
        self._edge = None
        self.nodes = 0
        self.restarts += 1

    # -- keeping the path ------------------------------------------------------------------------

    def _child(self) -> tuple[tuple[Action, ...], Any, bool]:
        if self._edge is None:
            if self._open:
                raise RuntimeError("trace: a node was entered with no edge from the node above")
            return (), None, False
        action, probability, again = self._edge
        self._edge = None
        if not self._open:
            raise RuntimeError("trace: an edge with no node above it")
        return self._open[-1].path + (action,), probability, again

    def _top(self) -> _Open:
        if not self._open:
            raise RuntimeError("trace: an event outside any node")
        return self._open[-1]

    def _close(self, values: Sequence | None) -> _Open:
        node = self._top()
        self._open.pop()
        if values is not None and self._open and node.path:
            self._open[-1].results.append((node.path[-1], node.probability, tuple(values)))
        return node


@dataclass(slots=True)
class _Open:
    """A node entered and not closed yet."""

    path: tuple[Action, ...]
    number: int
    player: int | None
    probability: Any
    results: list[tuple[Action, Any, tuple]] = field(default_factory=list)
    cut: Action = None          # the child after which it was cut off
    skipped: bool = False       # ... leaving children unsearched


class _TellingEdges:
    """A game whose ``apply`` tells a trace of the edge a search follows (a chance outcome with
    its probability): given to a traced search that applies a move only to descend to it."""

    def __init__(self, game: Any, trace: Trace):
        self._game, self._trace, self.info = game, trace, game.info

    def apply(self, state: State, move: Action) -> State:
        game = self._game
        probability = None
        if game.current_player(state) == CHANCE:
            probability = dict(game.chance_outcomes(state)).get(move)
        self._trace.edge(move, probability)
        return game.apply(state, move)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def tell_edges(game: Any, trace: Trace) -> Any:
    """``game`` with an ``apply`` that tells ``trace`` of each edge (see _TellingEdges)."""
    return _TellingEdges(game, trace)


def two_player_bound(result: Any, alpha: Any, beta: Any, maximiser: bool) -> str:
    """What a fail-soft result on player 0's value says, for a node searched with (alpha, beta)
    on its mover's value: ``maximiser`` when the mover is player 0 (else the window and the
    result are the negation or the complement of player 0's)."""
    if result <= alpha:
        return UPPER if maximiser else LOWER
    if result >= beta:
        return LOWER if maximiser else UPPER
    return EXACT
