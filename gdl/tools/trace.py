"""A search stepped through: a solver run with a trace, and the tree its events describe.

``run`` solves a game with one of the tree searches in a teaching configuration (alpha-beta
without table or ordering unless asked for, so its cut-offs are the textbook's) and a
``gdl.solvers.trace.Trace``: the events come from the solver's own code. It always runs the
Python solvers: the native tier's searches are C and emit no events.

``replay`` rebuilds the tree from the events alone and checks them against the rules of the
search, independently of the solver: every node entered is closed, a decision node's value is
its best child's (first best, the latest search of each child), a chance node's the exact
weighted sum of its outcomes, a value outside a node's window is labelled the bound fail-soft
search makes it, a cut-off's test holds and the children it skips are never searched. The
root's value and the number of nodes entered are then what the solver reports
(tests/test_trace.py checks both for every algorithm).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gdl.protocol import CHANCE, TERMINAL, Action
from gdl.solvers.trace import (
    ALPHA,
    AVERAGE,
    BETA,
    CHANCE_HIGH,
    CHANCE_LOW,
    CUTOFF,
    ENTER,
    EXACT,
    EXIT,
    LEAF,
    LOWER,
    PARTIAL,
    PROBE,
    PROBE_HIGH,
    PROBE_LOW,
    RESUME,
    SHALLOW,
    TABLE,
    UPPER,
    Event,
    Trace,
)

DEFAULT_LIMIT = 2000
# The searches that emit a trace (gdl.solvers.ALGORITHMS).
ALGORITHMS = ("minimax", "alphabeta", "expectiminimax", "star1", "star2", "maxn", "paranoid")
WINDOWED = ("alphabeta", "star1", "star2", "paranoid")


@dataclass
class TracedSearch:
    """A search and its events. ``settings`` say how it was configured (for the heading)."""

    game: Any
    algorithm: str
    result: Any                     # the solver's SolveResult
    events: list[Event]
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    root: Any = None
    restarts: int = 0               # searches begun again from the root (gdl.solvers.trace)

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.info.players

    @property
    def windowed(self) -> bool:
        return self.algorithm in WINDOWED


def run(game: Any, algorithm: str = "auto", *, depth: int | None = None, table: bool = False,
        ordering: bool = False, all_best: bool = False, player: int = 0,
        shallow_pruning: bool | None = None, root: Any = None,
        limit: int | None = DEFAULT_LIMIT) -> TracedSearch:
    """Solve ``game`` from ``root`` with ``algorithm`` and a trace. Alpha-beta is the textbook's
    unless asked otherwise: no transposition table (``table``), no move ordering
    (``ordering``), and a root searched as any other node, which proves one optimal action
    (``all_best``: the root proves the whole set of optimal actions, with narrower windows).
    ``table`` gives the other searches their table too; ``player`` is paranoid's; max^n prunes
    where shallow pruning applies unless ``shallow_pruning`` is False. Raises
    gdl.solvers.trace.TraceTooLong past ``limit`` nodes, SolverError where the algorithm does
    not apply."""
    from gdl.solvers import SolverError, choose, shallow_pruning_applies, solve
    from gdl.tools.session import NeutralEvaluation, needs_neutral_evaluation

    info = game.info
    if algorithm == "auto":
        algorithm = choose(info)
    if algorithm not in ALGORITHMS:
        raise SolverError(f"only the tree searches can be stepped through "
                          f"({', '.join(ALGORITHMS)}), not {algorithm!r}")
    notes: list[str] = []
    searched = game
    if needs_neutral_evaluation(game, depth, None):
        searched = NeutralEvaluation(game)
        notes.append("the game declares no evaluation: positions at the depth limit count as "
                     "even for everyone")
    settings: dict[str, Any] = {"depth": depth}
    options: dict[str, Any] = {}
    if algorithm == "alphabeta":
        from gdl.solvers.alphabeta import SearchOptions

        options["options"] = SearchOptions(tt=table, ordering=ordering, optimal_set=all_best)
        settings.update(table=table, ordering=ordering, all_best=all_best)
    elif ordering or all_best:
        raise SolverError("move ordering and the root's whole optimal set are alpha-beta's "
                          "switches")
    elif algorithm == "maxn":
        if shallow_pruning is None:
            shallow_pruning = not table and shallow_pruning_applies(info)
        options.update(shallow_pruning=shallow_pruning, table=table)
        settings.update(shallow_pruning=shallow_pruning, table=table)
    elif algorithm == "paranoid":
        options.update(player=player, table=table)
        settings.update(player=player, table=table)
    else:
        options["table"] = table
        settings["table"] = table
    trace = Trace(limit)
    result = solve(searched, algorithm, depth=depth, root_state=root, trace=trace, **options)
    # (expectiminimax may start over on a finer integer scale: the events are those of the final
    # search, whose value and node count it reports; ``restarts`` says how often.)
    return TracedSearch(game, algorithm, result, trace.events, settings, notes,
                        game.initial_state() if root is None else root, trace.restarts)


# ---- the tree the events describe --------------------------------------------------------------

@dataclass(eq=False)
class Visit:
    """One node visit as the events tell it (a re-search of a child is a second visit)."""

    number: int
    path: tuple[Action, ...]
    player: int | None
    state: Any = None
    window: tuple[Any, Any] | None = None
    cap: tuple | None = None
    probability: Any = None
    again: bool = False
    parent: Visit | None = None
    children: list[Visit] = field(default_factory=list)
    values: tuple | None = None     # the value the node returned (leaf, exit, or table)
    bound: str | None = None
    evaluated: bool = False
    leaf: bool = False
    from_table: bool = False        # answered by the table (visited: alpha-beta; else not)
    best: Action = None
    cutoffs: list[Event] = field(default_factory=list)
    average: Event | None = None
    probe: Event | None = None
    closed: bool = False

    @property
    def action(self) -> Action:
        return self.path[-1] if self.path else None

    def latest(self) -> list[Visit]:
        """The last search of each child, in the order the children were first searched."""
        last: dict[Any, Visit] = {}
        for child in self.children:
            last[_key(child.action)] = child
        seen: list[Visit] = []
        keys: set = set()
        for child in self.children:
            key = _key(child.action)
            if key not in keys:
                keys.add(key)
                seen.append(last[key])
        return seen


@dataclass
class Replay:
    """The tree of a trace: ``visits`` in visit order (the root first; table answers that were
    not visits come after, numbered -1), and what did not add up (``problems``: none for a
    trace a solver emitted)."""

    root: Visit | None
    visits: list[Visit]
    nodes: int                      # nodes entered: the solver's stats.nodes
    problems: list[str]

    @property
    def values(self) -> tuple | None:
        return None if self.root is None else self.root.values


def replay(events: list[Event], windowed: bool | None = None) -> Replay:
    """Rebuild the tree of ``events`` and check it (see the module notes). ``windowed``: check
    the labels of values against the nodes' windows (the default: wherever a node has one)."""
    problems: list[str] = []
    visits: list[Visit] = []
    by_number: dict[int, Visit] = {}
    open_: list[Visit] = []
    root: Visit | None = None
    for index, event in enumerate(events):
        where = f"event {index + 1} ({event.kind} at {_path_text(event.path)})"
        kind = event.kind
        if kind == ENTER:
            parent = open_[-1] if open_ else None
            if parent is None and event.path:
                problems.append(f"{where}: a node entered with no node open above it")
            if parent is not None and event.path[:-1] != parent.path:
                problems.append(f"{where}: entered below {_path_text(parent.path)}, which is "
                                "not its parent")
            visit = Visit(event.node, event.path, event.player, event.state, event.window,
                          event.cap, event.probability, event.again, parent)
            if parent is None:
                root = visit        # (a later root search replaces the earlier one)
            else:
                for cut in parent.cutoffs:
                    if any(_key(a) == _key(visit.action) for a in cut.skipped):
                        problems.append(f"{where}: a child the cut-off at "
                                        f"{_path_text(parent.path)} skipped is searched")
                parent.children.append(visit)
            visits.append(visit)
            by_number[event.node] = visit
            open_.append(visit)
            continue
        if kind == TABLE and event.node == -1:      # a child answered without a visit
            if not open_:
                problems.append(f"{where}: a table answer outside any node")
                continue
            parent = open_[-1]
            visit = Visit(-1, event.path, None, probability=event.probability,
                          again=event.again, parent=parent, values=event.values,
                          bound=event.bound, from_table=True, closed=True)
            parent.children.append(visit)
            visits.append(visit)
            continue
        if kind == RESUME:
            probed = by_number.get(event.node)
            if probed is None or probed.probe is None:
                problems.append(f"{where}: resumes a node that was not probed")
                continue
            visit = probed
            visit.window = event.window if event.window is not None else visit.window
            visit.closed = False
            open_.append(visit)
            continue
        if not open_ or open_[-1].number != event.node:
            problems.append(f"{where}: not about the node open at the time")
            continue
        visit = open_[-1]
        if kind == CUTOFF:
            _check_cutoff(visit, event, where, problems)
            visit.cutoffs.append(event)
        elif kind == AVERAGE:
            visit.average = event
        elif kind == PROBE:
            visit.probe = event
            open_.pop()
            visit.closed = True
        elif kind in (LEAF, EXIT, TABLE):
            open_.pop()
            visit.values, visit.bound, visit.closed = event.values, event.bound, True
            visit.leaf = kind == LEAF
            visit.evaluated = event.evaluated
            visit.from_table = kind == TABLE
            visit.best = event.action
            if kind == EXIT:
                _check_exit(visit, where, problems, windowed)
        else:
            problems.append(f"{where}: an unknown kind of event")
    for visit in open_:
        problems.append(f"the node at {_path_text(visit.path)} is never closed")
    nodes = sum(1 for event in events if event.kind == ENTER)
    return Replay(root, visits, nodes, problems)


def _check_exit(visit: Visit, where: str, problems: list[str], windowed: bool | None) -> None:
    """A node's value against its children's, and its label against its window."""
    children = visit.latest()
    player = visit.player
    if player == CHANCE and visit.cutoffs:
        # A cut chance node returns a bound from the outcomes searched so far (and Star2's
        # probes): its label must be the side the cut-off proved.
        test = visit.cutoffs[-1].test
        expected = UPPER if test in (CHANCE_LOW, PROBE_LOW) else LOWER
        if visit.bound != expected:
            problems.append(f"{where}: a chance node cut by {test} returns a "
                            f"{visit.bound} value, not {expected}")
        if visit.average is None or visit.average.values != visit.values:
            problems.append(f"{where}: the cut chance node's value is not its average's")
        return
    if any(c.values is None for c in children):
        problems.append(f"{where}: a child has no value")
        return
    if not children:
        problems.append(f"{where}: a node backs up a value with no child searched")
        return
    if player == CHANCE:
        total = [0] * len(children[0].values)   # type: ignore[arg-type]
        for child in children:
            total = [t + child.probability * v
                     for t, v in zip(total, child.values)]  # type: ignore[arg-type]
        if tuple(total) != tuple(visit.values or ()):
            problems.append(f"{where}: a chance node worth {_vector(visit.values)}, but its "
                            f"outcomes average {_vector(tuple(total))}")
        if visit.average is not None:
            terms = [(a, p) for a, p, _ in visit.average.terms]
            if [(_key(a), p) for a, p in terms] != [(_key(c.action), c.probability)
                                                     for c in children]:
                problems.append(f"{where}: the average's terms are not the outcomes searched")
        return
    if player is None or player < 0:
        problems.append(f"{where}: a {player} node backs up a value")
        return
    best = children[0]
    for child in children[1:]:
        if child.values[player] > best.values[player]:   # type: ignore[index]
            best = child
    if tuple(best.values or ()) != tuple(visit.values or ()):
        problems.append(f"{where}: the node's value is {_vector(visit.values)}, but its best "
                        f"child {_path_text(best.path)} gives {_vector(best.values)}")
    if visit.bound == PARTIAL and not any(c.skipped for c in visit.cutoffs):
        problems.append(f"{where}: a partial vector with nothing skipped")
    if windowed is not False and visit.window is not None and visit.values is not None:
        alpha, beta = visit.window
        v = visit.values[0]
        expected = UPPER if v <= alpha else LOWER if v >= beta else EXACT
        if visit.bound != expected:
            problems.append(f"{where}: value {v} with window ({alpha}, {beta}) is "
                            f"{expected}, labelled {visit.bound}")


def _check_cutoff(visit: Visit, event: Event, where: str, problems: list[str]) -> None:
    value, limit, test = event.value, event.limit, event.test
    if limit is None or value is None:
        return
    holds = {BETA: value >= limit, ALPHA: value <= limit,
             CHANCE_LOW: value <= limit, CHANCE_HIGH: value >= limit,
             PROBE_LOW: value <= limit, PROBE_HIGH: value >= limit,
             SHALLOW: value >= limit}.get(test or "", True)
    if not holds:
        problems.append(f"{where}: the cut-off's test {test} does not hold ({value} against "
                        f"{limit})")


def _key(action: Any) -> Any:
    try:
        hash(action)
    except TypeError:
        return ("r", repr(action))
    return ("h", action)


def _path_text(path: tuple) -> str:
    return " ".join(str(a) for a in path) or "the root"


def _vector(values: tuple | None) -> str:
    return "?" if values is None else "(" + ", ".join(str(v) for v in values) + ")"


# ---- what a search left out ----------------------------------------------------------------------

def unsearched(game: Any, visit: Visit) -> list[Action]:
    """The children of a visited decision or chance node that the search never looked at
    (neither searched nor answered by the table): pruned, or left by a probe."""
    if visit.player is None or visit.player == TERMINAL or visit.leaf or visit.from_table \
            or visit.evaluated:
        return []
    if visit.player == CHANCE:
        moves = [outcome for outcome, p in game.chance_outcomes(visit.state) if p > 0]
    else:
        moves = list(game.legal_actions(visit.state))
    seen = {_key(c.action) for c in visit.children}
    return [m for m in moves if _key(m) not in seen]


def final_visits(tree: Replay) -> list[Visit]:
    """The visits of the last root search (iterative deepening and aspiration search the root
    again), parents before children, children in search order."""
    if tree.root is None:
        return []
    out = []
    stack = [tree.root]
    while stack:
        visit = stack.pop()
        out.append(visit)
        stack.extend(reversed(visit.children))
    return out


__all__ = ["ALGORITHMS", "DEFAULT_LIMIT", "Replay", "TracedSearch", "Visit", "final_visits",
           "replay", "run", "unsearched"]
