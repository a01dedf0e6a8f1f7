"""Two-player zero-sum games with simultaneous moves and nothing hidden: a value and an optimal
mixed strategy for each acting player at every position.

Every position starts a subgame (nothing is hidden), so its value depends on the position
alone. At a simultaneous position both players choose at once: the position's value is the
value of the matrix game whose entries are the values of the positions the joint actions lead
to (``gdl.solvers.matrix``, exact), and the matrix game's optimal strategies are the players'
there. A position with one mover takes the best child, a chance position the expectation.

- **No position repeats**: backward induction over the reachable positions, children before
  parents, in exact arithmetic. Values and strategies are exact.
- **Positions repeat** (a stochastic game; Shapley 1953): the same equations have a unique
  solution when every play ends with probability 1 whatever the players do (checked first, as
  ``gdl.graph.iteration`` does: no set of positions in which the players together could keep
  the game going for ever). The value can be irrational, so it is bracketed: Shapley's value
  iteration runs from below (every position at the least utility) and from above (the greatest)
  at once. Each update is computed exactly from the floats of the last sweep and rounded
  outwards (down for the lower bound, up for the upper), so it stays on its side of the
  update the exact operator would make; the operator is monotone and its fixed point is the
  value, so every iterate is a proven bound (as ``gdl.graph.iteration``'s bracket mode). The
  sweeps stop when the bracket is narrower than ``tolerance``, stops narrowing, or after
  ``max_sweeps``. The strategies of the last sweep are reported, labelled approximate.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, Action, State, Value
from gdl.solvers.extensive import PROGRESS_EVERY
from gdl.solvers.matrix import solve_matrix_game
from gdl.solvers.result import SolverError
from gdl.solvers.wide import SEQUENCE_FORM, require_two_zero_sum

ALGORITHM = "simultaneous"
DEFAULT_MAX_STATES = 1_000_000
TOLERANCE = 1e-12        # relative to the utilities' range: the bracket's width to stop at
MAX_SWEEPS = 10_000

Strategy = dict[Action, Fraction]


@dataclass
class SimultaneousSolution:
    """Values are the first player's. ``exact``: ``values`` holds every position's exact value
    and ``strategies`` are optimal. Otherwise (positions repeat) ``bounds`` brackets each
    position's value, proven, and ``strategies`` are the last sweep's (approximate)."""

    root: State
    exact: bool
    total: Value
    bounds: dict[State, tuple[Fraction, Fraction]]
    strategies: dict[State, dict[int, Strategy]]
    optimal_actions: dict[State, tuple[Action, ...]]   # one mover: every optimal action
    values: dict[State, Fraction] = field(default_factory=dict)
    sweeps: int = 0
    note: str = ""

    @property
    def value(self) -> Fraction | None:
        return self.values.get(self.root) if self.exact else None

    @property
    def root_bounds(self) -> tuple[Fraction, Fraction]:
        return self.bounds[self.root]


@dataclass
class _Graph:
    """Every reachable position, numbered from the root in breadth-first order."""

    states: list[State]
    kind: list[int]                        # player index, CHANCE, SIMULTANEOUS or TERMINAL
    children: list[list[int]]              # simultaneous: row-major over the joint actions
    labels: list[Any]                      # actions; outcomes with probabilities; the two lists
    terminal: list[Fraction | None]


def solve_simultaneous(game: Any, *, max_states: int = DEFAULT_MAX_STATES,
                       tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                       root: State | None = None,
                       progress: Callable[[str, int], None] | None = None) -> SimultaneousSolution:
    """Solve a two-player zero-sum (or constant-sum) game of perfect information, with or
    without simultaneous moves (module docstring). ``progress("positions", n)`` is called as
    the walk finds positions."""
    info = game.info
    total = require_two_zero_sum(info, ALGORITHM)
    if info.hidden:
        raise SolverError(f"{ALGORITHM}: game {info.name!r} has hidden information; a position "
                          "does not start a subgame there, so values per position mean nothing. "
                          f"Use the {SEQUENCE_FORM!r} solver")
    graph = _enumerate(game, game.initial_state() if root is None else root, max_states, total,
                       progress)
    order = _children_first(graph)
    if order is not None:
        return _induction(game, graph, order, total)
    stuck = _endless(graph)
    if stuck is not None:
        raise SolverError(f"{ALGORITHM}: game {info.name!r} can repeat a position, and from "
                          f"{stuck!r} the players together can keep it going for ever: Shapley's "
                          "iteration brackets the value only when every play ends with "
                          "probability 1 whatever the players do")
    return _shapley(game, graph, total, tolerance, max_sweeps)


def _enumerate(game: Any, root: State, max_states: int, total: Value,
               progress: Callable[[str, int], None] | None = None) -> _Graph:
    index: dict[Hashable, int] = {root: 0}
    graph = _Graph([root], [], [], [], [])
    queue = deque([root])
    while queue:
        state = queue.popleft()
        player = game.current_player(state)
        children: list[State] = []
        label: Any = None
        value: Fraction | None = None
        if player == TERMINAL:
            returns = tuple(game.returns(state))
            if len(returns) != 2 or returns[0] + returns[1] != total:
                raise SolverError(f"{ALGORITHM}: returns {returns!r} at {state!r} do not sum to "
                                  f"the declared {total}")
            value = Fraction(returns[0])
        elif player == CHANCE:
            label = [(o, Fraction(p)) for o, p in game.chance_outcomes(state)]
            children = [game.apply(state, o) for o, _ in label]
        elif player == SIMULTANEOUS:
            acting = tuple(game.acting_players(state))
            if acting != (0, 1):
                raise SolverError(f"{ALGORITHM}: at {state!r} players {acting!r} act at once; "
                                  "two players can only both")
            rows = tuple(game.legal_actions_of(state, 0))
            columns = tuple(game.legal_actions_of(state, 1))
            if not rows or not columns:
                raise SolverError(f"{ALGORITHM}: an acting player has no action at {state!r}")
            label = (rows, columns)
            children = [game.apply_joint(state, (a, b)) for a in rows for b in columns]
        else:
            label = tuple(game.legal_actions(state))
            if not label:
                raise SolverError(f"{ALGORITHM}: non-terminal state {state!r} has no legal actions")
            children = [game.apply(state, a) for a in label]
        numbers = []
        for child in children:
            k = index.get(child)
            if k is None:
                k = index[child] = len(graph.states)
                if k >= max_states:
                    raise SolverError(f"{ALGORITHM}: more than {max_states:,} positions; "
                                      "too many to value every one")
                graph.states.append(child)
                queue.append(child)
                if progress is not None and k % PROGRESS_EVERY == 0:
                    progress("positions", k)
            numbers.append(k)
        graph.kind.append(player)
        graph.children.append(numbers)
        graph.labels.append(label)
        graph.terminal.append(value)
    return graph


def _parents(graph: _Graph) -> list[list[int]]:
    parents: list[list[int]] = [[] for _ in graph.states]
    for v, children in enumerate(graph.children):
        for c in children:
            parents[c].append(v)
    return parents


def _children_first(graph: _Graph) -> list[int] | None:
    """Every position after all its children, or None when positions repeat (Kahn)."""
    parents = _parents(graph)
    pending = [len(c) for c in graph.children]
    ready = [v for v, k in enumerate(pending) if k == 0]
    order: list[int] = []
    while ready:
        v = ready.pop()
        order.append(v)
        for p in parents[v]:
            pending[p] -= 1
            if pending[p] == 0:
                ready.append(p)
    return order if len(order) == len(graph.states) else None


def _endless(graph: _Graph) -> State | None:
    """A position from which the players together can keep the game going for ever, or None.
    The positions where play surely ends form the attractor of the terminal positions: a
    chance position joins as soon as one outcome is in it, any other once all its moves are;
    what is left can stay out for ever."""
    parents = _parents(graph)
    missing = [1 if kind == CHANCE else len(children)
               for kind, children in zip(graph.kind, graph.children)]
    inside = [kind == TERMINAL for kind in graph.kind]
    work = [v for v, yes in enumerate(inside) if yes]
    while work:
        v = work.pop()
        for p in parents[v]:
            if inside[p]:
                continue
            missing[p] -= 1
            if missing[p] <= 0:
                inside[p] = True
                work.append(p)
    outside = next((v for v, yes in enumerate(inside) if not yes), None)
    return None if outside is None else graph.states[outside]


def _induction(game: Any, graph: _Graph, order: list[int], total: Value) -> SimultaneousSolution:
    value: list[Fraction] = [Fraction(0)] * len(graph.states)
    strategies: dict[State, dict[int, Strategy]] = {}
    optimal: dict[State, tuple[Action, ...]] = {}
    for v in order:
        kind, children, label, state = (graph.kind[v], graph.children[v], graph.labels[v],
                                        graph.states[v])
        if kind == TERMINAL:
            value[v] = graph.terminal[v]  # type: ignore[assignment]
        elif kind == CHANCE:
            value[v] = sum((p * value[c] for (_, p), c in zip(label, children)), Fraction(0))
        elif kind == SIMULTANEOUS:
            rows, columns = label
            width = len(columns)
            matrix = [[value[children[i * width + j]] for j in range(width)]
                      for i in range(len(rows))]
            solution = solve_matrix_game(matrix)
            value[v] = solution.value
            strategies[state] = {0: dict(zip(rows, solution.row)),
                                 1: dict(zip(columns, solution.column))}
        else:
            seen = [value[c] for c in children]
            best = max(seen) if kind == 0 else min(seen)
            optimal[state] = tuple(a for a, s in zip(label, seen) if s == best)
            strategies[state] = {kind: {a: Fraction(int(a == optimal[state][0])) for a in label}}
            value[v] = best
    values = dict(zip(graph.states, value))
    return SimultaneousSolution(graph.states[0], True, total,
                                {s: (x, x) for s, x in values.items()}, strategies, optimal,
                                values, note=f"backward induction over {len(graph.states):,} "
                                             "positions, every matrix game solved exactly")


def _down(q: Fraction) -> float:
    f = float(q)
    return math.nextafter(f, -math.inf) if Fraction(f) > q else f


def _up(q: Fraction) -> float:
    f = float(q)
    return math.nextafter(f, math.inf) if Fraction(f) < q else f


def _shapley(game: Any, graph: _Graph, total: Value, tolerance: float,
             max_sweeps: int) -> SimultaneousSolution:
    ends = [t for t in graph.terminal if t is not None]
    least, greatest = _down(min(ends)), _up(max(ends))
    low = [least if t is None else _down(t) for t in graph.terminal]
    high = [greatest if t is None else _up(t) for t in graph.terminal]
    width_goal = tolerance * max(1.0, greatest - least)
    # later positions first: a child found later by the breadth-first walk is usually updated
    # before its parent in the same sweep (Gauss-Seidel), which speeds the sweeps up
    inner = [v for v in reversed(range(len(graph.states))) if graph.kind[v] != TERMINAL]
    strategies: dict[State, dict[int, Strategy]] = {}
    optimal: dict[State, tuple[Action, ...]] = {}
    sweeps = 0
    width = math.inf
    while sweeps < max_sweeps:
        sweeps += 1
        changed = False
        for v in inner:
            lo, lo_strategy = _update(graph, v, low, 0)
            hi, hi_strategy = _update(graph, v, high, 1)
            new_low, new_high = max(low[v], _down(lo)), min(high[v], _up(hi))
            changed = changed or new_low != low[v] or new_high != high[v]
            low[v], high[v] = new_low, new_high
            state = graph.states[v]
            if graph.kind[v] == SIMULTANEOUS:
                # the first player's strategy from below, the second's from above: each is the
                # side whose guarantee it is
                strategies[state] = {0: lo_strategy[0], 1: hi_strategy[1]}
            elif graph.kind[v] != CHANCE:
                strategies[state], optimal[state] = lo_strategy
        width = max((high[v] - low[v] for v in inner), default=0.0)
        if width <= width_goal or not changed:
            break
    bounds = {s: (Fraction(lo), Fraction(hi)) for s, lo, hi in zip(graph.states, low, high)}
    reason = ("narrower than the tolerance" if width <= width_goal else
              "no longer narrowing" if sweeps < max_sweeps else "at the sweep limit")
    return SimultaneousSolution(graph.states[0], False, total, bounds, strategies, optimal,
                                sweeps=sweeps,
                                note=f"Shapley's value iteration from below and above, "
                                     f"{sweeps:,} sweeps over {len(graph.states):,} positions; "
                                     f"the widest bracket {width:.3g}, {reason}")


def _update(graph: _Graph, v: int, bound: list[float], side: int) -> tuple[Fraction, Any]:
    """The exact Shapley update of position ``v`` from the float bounds ``bound`` of its
    children, and what the players do there (side 0: lower bounds, 1: upper)."""
    kind, children, label = graph.kind[v], graph.children[v], graph.labels[v]
    if kind == CHANCE:
        return sum((p * Fraction(bound[c]) for (_, p), c in zip(label, children)),
                   Fraction(0)), None
    if kind == SIMULTANEOUS:
        rows, columns = label
        width = len(columns)
        matrix = [[Fraction(bound[children[i * width + j]]) for j in range(width)]
                  for i in range(len(rows))]
        solution = solve_matrix_game(matrix)
        return solution.value, {0: dict(zip(rows, solution.row)),
                                1: dict(zip(columns, solution.column))}
    seen = [bound[c] for c in children]
    best = max(seen) if kind == 0 else min(seen)
    best_actions = tuple(a for a, s in zip(label, seen) if s == best)
    return Fraction(best), ({kind: {a: Fraction(int(a == best_actions[0])) for a in label}},
                            best_actions)

