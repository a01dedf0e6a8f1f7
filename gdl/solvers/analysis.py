"""The value of every move at one position, and an optimal strategy as a JSON document.

Protocol-level helpers behind `gdl analyze`; they know only the game protocol and the solvers.

``analyze_position(game, state)`` gives every legal action at a decision state its exact value
vector (to ``depth`` plies, when given) and marks the optimal ones; at a chance state it gives
every outcome with its probability and value. Two-player constant-sum games without chance use
alpha-beta's ``analyze`` (one engine, one transposition table, an open window per action); every
other game solves each child with the right solver (``gdl.solvers.solve`` with ``root_state``:
expectiminimax / Star2 for chance, max^n for n players or general-sum, paranoid when asked).

Which actions are optimal: the mover maximises its own component of the value vector (max^n,
expectiminimax, and alpha-beta/minimax, where that is the zero-sum reading of "maximise for
player 0, minimise for player 1"); under ``paranoid`` the chosen player maximises its component
and every other player minimises it. Every action reaching the best score is marked: ties are
information. Depth: one ply per decision (the action analysed counts as one), chance outcomes do
not consume depth (as in expectiminimax); a child reached with no depth left is evaluated with the
game's ``evaluate``.

``strategy_document`` (two-player constant-sum deterministic games only) writes
``alphabeta.optimal_strategy``: every non-terminal state reachable from the root and its set of
optimal actions, in the schema documented on that function.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gdl.protocol import CHANCE, TERMINAL, Action, State, Value, json_value
from gdl.solvers.result import SolverError

STRATEGY_FORMAT = "gdl-strategy"
STRATEGY_VERSION = 1


@dataclass(frozen=True)
class ActionValue:
    """One legal action (or chance outcome) at a position, with the value vector it leads to."""

    action: Action
    values: tuple[Value, ...]
    optimal: bool = False
    probability: Fraction | None = None     # chance outcomes only


@dataclass(frozen=True)
class Analysis:
    """``mover``: the player index, CHANCE or TERMINAL. ``values``: the position's value (the
    optimal actions' value at a decision state, the expectation at a chance state, the returns at
    a terminal one). ``proven``: no evaluation was used (always true without ``depth``)."""

    mover: int
    entries: tuple[ActionValue, ...]
    values: tuple[Value, ...]
    algorithm: str
    proven: bool

    @property
    def best_actions(self) -> tuple[Action, ...]:
        return tuple(e.action for e in self.entries if e.optimal)


def analyze_position(game: Any, state: State | None = None, *, depth: int | None = None,
                     algorithm: str = "auto", options: Any = None, player: int = 0,
                     progress: Callable[[Action, tuple, int, int], None] | None = None) -> Analysis:
    """Every action (or chance outcome) at ``state`` with its value; see the module docstring.
    ``options`` go to alpha-beta (default: a transposition table and move ordering); ``player`` is
    paranoid's chosen player. ``progress(action, values, done, total)`` is told each action's
    value as soon as it is known (one search per action; alpha-beta analyses them together)."""
    from gdl.solvers import ALGORITHMS, choose
    from gdl.solvers.wide import refuse_wide

    refuse_wide(game.info, "analysis")
    if depth is not None and depth < 1:
        raise SolverError("the depth limit must be at least 1")
    if state is None:
        state = game.initial_state()
    info = game.info
    if algorithm == "auto":
        algorithm = choose(info)
    if algorithm not in ALGORITHMS:
        raise SolverError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    mover = game.current_player(state)
    if mover == TERMINAL:
        return Analysis(TERMINAL, (), tuple(game.returns(state)), algorithm, True)

    if algorithm == "alphabeta" and mover != CHANCE:
        from gdl.solvers.alphabeta import SearchOptions, analyze

        if options is None:
            options = SearchOptions(tt=True, ordering=True)
        pairs = analyze(game, state, depth=depth, options=options)
        scored: list[tuple[Action, tuple[Value, ...], Fraction | None]] = [
            (a, tuple(v), None) for a, v in pairs]
        # Alpha-beta's analyze does not report whether an evaluation was used: with a depth the
        # values are only claimed to be searched to that depth.
        proven = depth is None
    else:
        scored, proven = _per_child(game, state, mover, depth, algorithm, options, player, progress)

    if mover == CHANCE:
        weighted = [(p, v) for _, v, p in scored if p is not None]  # every outcome has its p
        expectation = tuple(sum((p * v[i] for p, v in weighted), Fraction(0))
                            for i in range(info.num_players))
        entries = tuple(ActionValue(a, v, False, p) for a, v, p in scored)
        return Analysis(CHANCE, entries, tuple(_exact(x) for x in expectation), algorithm, proven)

    def score(values):
        if algorithm == "paranoid":
            return values[player] if mover == player else -values[player]
        return values[mover]

    best = max(score(v) for _, v, _ in scored)
    entries = tuple(ActionValue(a, v, score(v) == best) for a, v, _ in scored)
    first = next(e for e in entries if e.optimal)
    return Analysis(mover, entries, first.values, algorithm, proven)


def _exact(x: Value) -> Value:
    return x.numerator if isinstance(x, Fraction) and x.denominator == 1 else x


def _per_child(game, state, mover, depth, algorithm, options, player, progress=None):
    from gdl.solvers import solve

    if mover == CHANCE:
        moves = [(a, game.apply(state, a), p) for a, p in game.chance_outcomes(state)]
        child_depth = depth                     # chance outcomes use no depth
    else:
        moves = [(a, game.apply(state, a), None) for a in game.legal_actions(state)]
        child_depth = None if depth is None else depth - 1
    scored = []
    proven = True
    for action, child, probability in moves:
        if game.current_player(child) == TERMINAL:
            values = tuple(game.returns(child))
        elif child_depth == 0:
            if not game.info.has_evaluate:
                raise SolverError(f"the depth limit was reached at a non-terminal state, but "
                                  f"'{game.info.name}' declares no evaluation")
            values = tuple(game.evaluate(child))
            proven = False
        else:
            result = solve(game, algorithm, depth=child_depth, root_state=child, player=player,
                           options=options if algorithm == "alphabeta" else None)
            values = tuple(result.values)
            proven = proven and result.proven
        scored.append((action, values, probability))
        if progress is not None:
            progress(action, values, len(scored), len(moves))
    return scored, proven


# ---------------------------------------------------------------------------------------------
# Optimal strategies as JSON

def jsonable(x: Any) -> Any:
    """A state (or part of one) as JSON: tuples as lists, exact values as numbers or "p/q"."""
    if isinstance(x, (tuple, list)):
        return [jsonable(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    if isinstance(x, Fraction):
        return json_value(x)
    return str(x)


def strategy_document(game: Any, root: State | None = None, *, root_moves=(),
                      max_states: int = 200_000) -> dict:
    """An optimal strategy from ``root`` (default: the initial state), as a JSON-ready dict::

        {"format": "gdl-strategy", "version": 1,
         "game": "Tic-tac-toe", "players": ["X", "O"],
         "root_moves": [],            # the actions played before the root (gdl analyze --moves)
         "states": 4520,              # how many entries follow
         "strategy": [
           {"state": [0, 2, 2, ...],             # the state as the game stores it (a list)
            "variables": {"cell": [[...]]},      # its variables by name, where the game says
            "moves": ["place(1,1)", ...],        # a shortest action sequence from the root
            "mover": "X",                        # the player to move
            "optimal": ["place(0,0)", ...]},     # every optimal action, in declaration order
           ...]}

    Every non-terminal state reachable from the root appears once (terminal states have no
    decision to make), in breadth-first order from the root, so each entry's ``moves`` is a
    shortest path and the root comes first. "Optimal" is exact (the game is solved by a
    retrograde pass over the whole reachable graph). Refuses (SolverError) games alpha-beta
    cannot solve and graphs above ``max_states`` non-terminal states."""
    from gdl.solvers.alphabeta import optimal_strategy

    if root is None:
        root = game.initial_state()
    strategy = optimal_strategy(game, max_states=max_states, root_state=root)
    names = game.action_name
    players = game.info.players
    describe = getattr(game, "variables", None)
    entries = []
    paths: dict[State, list[str]] = {}
    if root in strategy:
        paths[root] = []
    queue = deque(paths)
    while queue:
        state = queue.popleft()
        path = paths[state]
        entry: dict[str, Any] = {"state": jsonable(state)}
        if describe is not None:
            try:
                entry["variables"] = describe(state)
            except Exception:   # a helper for people; the strategy does not depend on it
                describe = None
        entry.update(moves=path, mover=players[game.current_player(state)],
                     optimal=[names(a) for a in strategy[state]])
        entries.append(entry)
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if child in strategy and child not in paths:
                paths[child] = path + [names(action)]
                queue.append(child)
    if len(entries) != len(strategy):   # every strategy state is reachable from the root
        raise SolverError("internal error: strategy states unreachable from the root")
    return {"format": STRATEGY_FORMAT, "version": STRATEGY_VERSION, "game": game.info.name,
            "players": list(players), "root_moves": list(root_moves), "states": len(entries),
            "strategy": entries}
