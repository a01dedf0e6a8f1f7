"""The judge of the strong solver on games that can repeat a position.

Written from docs/graph.md ("Words" and "What the answers mean when a position can repeat") and
from nothing else: it knows a game only through the protocol (``initial_state``,
``current_player``, ``legal_actions``, ``apply``, ``chance_outcomes``, ``returns``, ``info``)
and imports nothing of gdl.graph or gdl.solvers, so a mistake there cannot hide here. It is
slow and plain on purpose, and its methods are not the solver's:

Two players, constant-sum, no chance (u: player 0's utility; e: `when endless`, for player 0)
  lo, hi     the game cut after k moves, the cut scored -inf (lo) or +inf (hi), valued by
             minimax for k = 0, 1, 2, ... (one Jacobi sweep a move), until a sweep changes
             nothing: the k-move values only ever move one way, so that sweep is final. lo is
             what player 0 can force the game to *end* with, hi what player 1 can.
  value      clamp(e, lo, hi); without `when endless`: lo where lo == hi, M where lo == M, m
             where hi == m (m, M: player 0's least and greatest utility over the reachable
             ends), else none (a draw, with the range [max(lo, m), min(hi, M)]).
  class      the mover's: draw where there is no value, or where the value is e strictly
             inside (lo, hi); else win / lose / tie by the value against level (half the sum).
  optimal    the moves to a position of the same value (without `when endless`: both valued
             alike, or both draws with the same range; at a draw that can leave none).
  remoteness Jacobi iteration from infinity: 0 at an end, 1 + the min (the side that hurries)
             or max (the side that delays) of the optimal children's, until stable. The side
             that hurries: the one that forces the value (player 0 where lo equals it, player 1
             where hi does); where both can, the winner, or at a tie the mover. The docs
             promise it is finite at every valued position that is not a draw: checked.
Two players, constant-sum, with chance
  values     by brute force over positional strategy profiles: each profile's exact value from
             its Markov chain in Fractions (a position from which the chain never ends is worth
             e), the value of a position max over player 0's strategies of min over player 1's
             (perfect-information stochastic games with ends have optimal positional strategies).
             The result is checked to be a fixed point of the Bellman equations. Without `when
             endless` a position is valued only where every profile ends with probability 1
             from it; the game is *stopping* when that holds everywhere.
  optimal    the moves of the best value; no class and no remoteness (docs: not computed).

``judge(game)`` returns a ``Verdict``: per position (by state) the expected value vector, class,
remoteness and set of optimal action names, and the census in the shape of
``GraphSolution.census()``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gdl.protocol import CHANCE, CONSTANT_SUM, TERMINAL, ZERO_SUM

INF = math.inf
WIN, LOSE, TIE, DRAW = "win", "lose", "tie", "draw"

# Strategy profiles the chance brute force will enumerate before giving up.
MAX_PROFILES = 20_000


class OracleError(Exception):
    """The oracle found its own premise broken (a claim of the docs, or its own check)."""


class TooBig(Exception):
    """The game is too big for the brute force (positions or strategy profiles)."""


# ==== the graph, through the protocol =============================================================

@dataclass
class Node:
    state: Any
    player: int                      # 0, 1, CHANCE or TERMINAL
    actions: list                    # legal actions, or chance outcomes, in the game's order
    children: list[int]
    probabilities: list[Fraction]    # chance positions only
    returns: tuple | None            # terminal positions only


def explore(game, limit: int = 50_000) -> tuple[list[Node], dict]:
    """Every position reachable from the start (0 is the start), and state -> id."""
    root = game.initial_state()
    index = {root: 0}
    nodes: list[Node] = []
    queue = [root]
    while len(nodes) < len(queue):
        state = queue[len(nodes)]
        player = game.current_player(state)
        actions: list = []
        probabilities: list[Fraction] = []
        returns = None
        if player == TERMINAL:
            returns = tuple(game.returns(state))
        elif player == CHANCE:
            for outcome, p in game.chance_outcomes(state):
                actions.append(outcome)
                probabilities.append(Fraction(p))
            if sum(probabilities) != 1:
                raise OracleError(f"chance outcomes at {state!r} do not sum to 1")
        else:
            actions = list(game.legal_actions(state))
            if not actions:
                raise OracleError(f"no legal action at {state!r}")
        children = []
        for action in actions:
            child = game.apply(state, action)
            if child not in index:
                if len(queue) >= limit:
                    raise TooBig(f"more than {limit} positions")
                index[child] = len(queue)
                queue.append(child)
            children.append(index[child])
        nodes.append(Node(state, player, actions, children, probabilities, returns))
    return nodes, index


# ==== what the oracle says ==========================================================================

@dataclass(frozen=True)
class Expected:
    """The oracle's answer at one position."""
    value: tuple | None         # the value vector; None: no value (a draw, or not defined)
    value_class: str | None     # win / lose / tie / draw (decision positions of games without
                                # chance), else None
    remoteness: int             # -1: none
    best: frozenset             # names of the optimal actions (decision positions with a value
                                # or a draw range), else empty
    lo: Any = None              # deterministic games: what player 0 / player 1 can force
    hi: Any = None
    draw_range: tuple | None = None   # a draw without `when endless`: [max(lo, m), min(hi, M)]


@dataclass
class Verdict:
    nodes: list[Node]
    index: dict
    expected: list[Expected]
    census: dict
    chance: bool
    endless: Fraction | None               # player 0's utility for endless play, where declared
    # Chance games: whether every strategy profile ends with probability 1 from every position.
    stopping: bool | None = None
    # Whether the answer is determined, so the solver must say "exact": always, but for a
    # chance game that can go on for ever and never ends at all (no worth for endless play to
    # range over).
    defined: bool = True

    def at(self, state) -> Expected:
        return self.expected[self.index[state]]


def _total(info) -> Fraction:
    if info.num_players != 2 or info.sum_kind not in (ZERO_SUM, CONSTANT_SUM):
        raise OracleError("the oracle judges two-player constant-sum games only")
    return Fraction(0) if info.sum_kind == ZERO_SUM else Fraction(info.utility_sum)


def _plain(v):
    v = Fraction(v)
    return v.numerator if v.denominator == 1 else v


def _vector(u, total) -> tuple:
    return (_plain(u), _plain(total - u))


def _name(game, action) -> str:
    return game.action_name(action)


def judge(game, max_profiles: int = MAX_PROFILES, limit: int = 50_000) -> Verdict:
    """The oracle's answer at every reachable position of a two-player constant-sum game."""
    total = _total(game.info)
    declared = game.info.endless_value
    endless = None if declared is None else Fraction(declared[0])
    nodes, index = explore(game, limit)
    if any(n.player == CHANCE for n in nodes):
        return _judge_chance(game, nodes, index, total, endless, max_profiles)
    return _judge_deterministic(game, nodes, index, total, endless)


# ==== no chance ===================================================================================

def bounds(nodes: list[Node]) -> tuple[list, list]:
    """(lo, hi): the game cut after k moves, the cut scored -inf / +inf, by minimax, k growing
    one move a sweep until a sweep changes nothing."""

    def sweep_until_stable(cut):
        value = [Fraction(n.returns[0]) if n.player == TERMINAL else cut for n in nodes]
        while True:
            new = list(value)
            for p, n in enumerate(nodes):
                if n.player in (0, 1):
                    seen = [value[c] for c in n.children]
                    new[p] = max(seen) if n.player == 0 else min(seen)
            if new == value:
                return value
            value = new

    return sweep_until_stable(-INF), sweep_until_stable(INF)


def _judge_deterministic(game, nodes, index, total, endless) -> Verdict:
    lo, hi = bounds(nodes)
    ends = [Fraction(n.returns[0]) for n in nodes if n.player == TERMINAL]
    m, big_m = (min(ends), max(ends)) if ends else (None, None)
    level = total / 2
    count = len(nodes)

    def worth(p, e):
        """Player 0's value at ``p`` were endless play worth ``e``: e clamped to [lo, hi]."""
        return min(max(e, lo[p]), hi[p])

    value: list = [None] * count        # player 0's utility, or None (a draw)
    draw_range: list = [None] * count
    for p in range(count):
        if endless is not None:
            value[p] = worth(p, endless)
        elif ends and worth(p, m) == worth(p, big_m):
            # the same whatever endless play is worth between the least and the greatest end
            value[p] = worth(p, m)
        elif ends:
            draw_range[p] = (max(lo[p], m), min(hi[p], big_m))

    def is_draw(p) -> bool:
        # nobody can force an end worth the position's value (docs: the class)
        return value[p] is None or (lo[p] != value[p] and hi[p] != value[p])

    # Worths of endless play strictly between the least and the greatest end, enough to meet
    # every clamp: the ends' own values inside, and the middles between neighbouring ones (the
    # clamps' corners are ends, so two clamps that agree anywhere inside agree at one of these).
    inside: list = []
    if ends:
        corners = sorted(set(ends))
        inside = corners[1:-1] + [(a + b) / 2 for a, b in itertools.pairwise(corners)]

    best: list[list[int]] = [[] for _ in range(count)]     # optimal move numbers
    for p, n in enumerate(nodes):
        if n.player not in (0, 1):
            continue
        if value[p] is not None:
            best[p] = [i for i, c in enumerate(n.children) if value[c] == value[p]]
            # A position with a value always has a move that keeps it (the value is the max
            # or min of its moves').
            if not best[p]:
                raise OracleError(f"no optimal move at {n.state!r}: the value is not a max/min")
        elif not ends:
            best[p] = list(range(len(n.children)))   # nothing ends: every move is as endless
        else:
            # a draw without a value: the moves best for some worth of endless play
            best[p] = [i for i, c in enumerate(n.children)
                       if any(worth(c, e) == worth(p, e) for e in inside)]

    def hurries(p) -> bool:
        """Whether the mover at a valued, non-draw position ends the game as soon as it can."""
        v = value[p]
        forces = (lo[p] == v, hi[p] == v)
        if forces == (True, True):
            if v == level:
                return True                       # a tie: the mover hurries
            hurrier = 0 if v > level else 1       # the winner hurries
        elif forces == (True, False):
            hurrier = 0
        elif forces == (False, True):
            hurrier = 1
        else:
            raise OracleError(f"valued position {nodes[p].state!r}: nobody forces {v}")
        return nodes[p].player == hurrier

    remote = [0 if n.player == TERMINAL else INF for n in nodes]
    while True:
        new = list(remote)
        for p, n in enumerate(nodes):
            if n.player in (0, 1) and not is_draw(p):
                seen = [remote[n.children[i]] for i in best[p]]
                new[p] = 1 + (min(seen) if hurries(p) else max(seen))
        if new == remote:
            break
        remote = new
    for p, n in enumerate(nodes):
        if n.player in (0, 1) and not is_draw(p) and remote[p] == INF:
            raise OracleError(f"docs/graph.md promises a finite remoteness at every valued "
                              f"position that is not a draw; {n.state!r} has none")

    expected = []
    classes = Counter({WIN: 0, LOSE: 0, TIE: 0, DRAW: 0})
    histogram: Counter = Counter()
    for p, n in enumerate(nodes):
        vector = None if value[p] is None else _vector(value[p], total)
        if n.player == TERMINAL:
            expected.append(Expected(vector, None, 0, frozenset(), lo[p], hi[p]))
            continue
        if is_draw(p):
            kind, r = DRAW, -1
        else:
            mine = value[p] - level if n.player == 0 else level - value[p]
            kind = WIN if mine > 0 else LOSE if mine < 0 else TIE
            r = int(remote[p])
            histogram[r] += 1
        classes[kind] += 1
        names = frozenset(_name(game, n.actions[i]) for i in best[p])
        expected.append(Expected(vector, kind, r, names, lo[p], hi[p], draw_range[p]))
    census = _graph_census(nodes)
    census["classes"] = dict(classes)
    census["remoteness"] = dict(sorted(histogram.items()))
    outcomes = Counter(Fraction(n.returns[0]) for n in nodes if n.player == TERMINAL)
    census["terminal_outcomes"] = {str(_plain(u)): c for u, c in sorted(outcomes.items(),
                                                                        reverse=True)}
    return Verdict(nodes, index, expected, census, chance=False, endless=endless)


def _graph_census(nodes) -> dict:
    terminal = sum(n.player == TERMINAL for n in nodes)
    chance = sum(n.player == CHANCE for n in nodes)
    return {"positions": len(nodes), "terminal": terminal, "chance": chance,
            "decision": len(nodes) - terminal - chance,
            "edges": sum(len(n.children) for n in nodes)}


# ==== strategy profiles ==============================================================================

def profile_values(nodes: list[Node], choice: dict[int, int], endless) -> tuple[list, bool]:
    """Player 0's value at every position when each decision position ``p`` moves to
    ``choice[p]``: the Markov chain's exact absorption values, the probability of never ending
    weighted with ``endless`` (None: a position from which the chain may not end gets None; a
    number; or -inf / +inf in a game without chance). Also whether the chain ends with
    probability 1 from every position."""
    count = len(nodes)
    # Follow decisions (one successor each) to a chance position, an end, or a loop of decisions.
    resolved: list = [None] * count
    for start in range(count):
        p, path, seen = start, [], set()
        while resolved[p] is None:
            n = nodes[p]
            if n.player == TERMINAL:
                resolved[p] = ("end", Fraction(n.returns[0]))
            elif n.player == CHANCE:
                resolved[p] = ("chance", p)
            elif p in seen:
                resolved[p] = ("loop",)
            else:
                seen.add(p)
                path.append(p)
                p = choice[p]
        for q in path:
            resolved[q] = resolved[p]
    chance = [p for p in range(count) if nodes[p].player == CHANCE]

    def grow(start: dict, leads_in) -> dict:
        """The least set holding ``start`` and every chance position with an outcome that
        ``leads_in`` (given the set so far)."""
        changed = True
        while changed:
            changed = False
            for c in chance:
                if not start[c] and any(leads_in(resolved[t], start) for t in nodes[c].children):
                    start[c] = changed = True
        return start

    # chance positions that can end (reach an end with positive probability) ...
    can_end = grow({c: False for c in chance}, lambda kind, inside: kind[0] == "end" or (
        kind[0] == "chance" and inside[kind[1]]))
    # ... and those that may not (reach a loop of decisions, or a chance position that cannot end)
    may_not_end = grow({c: not can_end[c] for c in chance}, lambda kind, inside: kind[0] == "loop"
                       or (kind[0] == "chance" and inside[kind[1]]))
    # x_c = sum_t p_t * value(t) over the chance positions that can end: the matrix is invertible
    # (from each of them the chain leaves that set with positive probability)
    infinite = endless is not None and endless in (INF, -INF)
    if infinite and any(may_not_end.values()):
        raise OracleError("an infinite value for endless play in a game with chance")
    weight = Fraction(0) if endless is None or infinite else Fraction(endless)
    live = [c for c in chance if can_end[c]]
    where = {c: i for i, c in enumerate(live)}
    size = len(live)
    rows = []
    for c in live:
        row = [Fraction(0)] * (size + 1)
        row[where[c]] += 1
        for t, prob in zip(nodes[c].children, nodes[c].probabilities):
            kind = resolved[t]
            if kind[0] == "end":
                row[size] += prob * kind[1]
            elif kind[0] == "chance" and can_end[kind[1]]:
                row[where[kind[1]]] -= prob
            else:
                row[size] += prob * weight
        rows.append(row)
    solution = _solve(rows, size)
    never = None if endless is None else (endless if infinite else Fraction(endless))
    out: list = [None] * count
    for p in range(count):
        kind = resolved[p]
        if kind[0] == "end":
            out[p] = kind[1]
        elif kind[0] == "loop":
            out[p] = never
        elif endless is None and may_not_end[kind[1]]:
            out[p] = None
        else:
            out[p] = solution[where[kind[1]]] if can_end[kind[1]] else never
    surely = not any(may_not_end.values()) and all(k[0] != "loop" for k in resolved)
    return out, surely


def _solve(rows: list[list[Fraction]], size: int) -> list[Fraction]:
    """Gauss-Jordan elimination in Fractions; the last column is the right-hand side."""
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][col] != 0), None)
        if pivot is None:
            raise OracleError("singular absorption system")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col])]
    return [rows[r][size] for r in range(size)]


def strategies(nodes: list[Node], player: int) -> list[list[tuple[int, int]]]:
    """Per decision position of ``player``, the (position, child) pairs of its distinct moves."""
    return [[(p, c) for c in dict.fromkeys(n.children)] for p, n in enumerate(nodes)
            if n.player == player]


def brute_force(nodes: list[Node], endless, max_profiles: int = MAX_PROFILES
                ) -> tuple[list, bool]:
    """(player 0's value at every position, whether every profile ends with probability 1 from
    every position): max over player 0's positional strategies of min over player 1's, each
    profile valued by ``profile_values``. Without a value for endless play (``endless`` None) a
    position where some profile may not end has none."""
    mine, theirs = strategies(nodes, 0), strategies(nodes, 1)
    profiles = math.prod(len(options) for options in mine + theirs)
    if profiles > max_profiles:
        raise TooBig(f"{profiles} strategy profiles")
    count = len(nodes)
    undefined = [False] * count
    stopping = True
    best: list = [None] * count
    for a in itertools.product(*mine):
        worst: list = [None] * count
        for b in itertools.product(*theirs):
            values, surely = profile_values(nodes, dict(a + b), endless)
            stopping = stopping and surely
            for p, v in enumerate(values):
                if v is None:
                    undefined[p] = True
                elif worst[p] is None or v < worst[p]:
                    worst[p] = v
        for p in range(count):
            if worst[p] is not None and (best[p] is None or worst[p] > best[p]):
                best[p] = worst[p]
    return [None if undefined[p] else best[p] for p in range(count)], stopping


def check_bellman(nodes: list[Node], value: list) -> None:
    """The values must be a fixed point of the Bellman equations (max, min, expectation)."""
    for p, n in enumerate(nodes):
        if value[p] is None or n.player == TERMINAL:
            continue
        seen = [value[c] for c in n.children]
        if any(v is None for v in seen):
            raise OracleError(f"{n.state!r} has a value but a child has none")
        if n.player == CHANCE:
            want = sum((prob * v for prob, v in zip(n.probabilities, seen)), Fraction(0))
        else:
            want = max(seen) if n.player == 0 else min(seen)
        if want != value[p]:
            raise OracleError(f"Bellman equation broken at {n.state!r}: {value[p]} != {want}")


def _judge_chance(game, nodes, index, total, endless, max_profiles) -> Verdict:
    value, stopping = brute_force(nodes, endless, max_profiles)
    check_bellman(nodes, value)
    middle = value
    if endless is None and not stopping:
        # Nobody says what endless play is worth: it may be anything between the least and
        # the greatest end (docs/graph.md). A position has a value where the brute force gives
        # the same at both; a draw's optimal moves are those best at their middle.
        ends = [Fraction(n.returns[0]) for n in nodes if n.player == TERMINAL]
        if ends:
            least, _ = brute_force(nodes, min(ends), max_profiles)
            greatest, _ = brute_force(nodes, max(ends), max_profiles)
            middle, _ = brute_force(nodes, (min(ends) + max(ends)) / 2, max_profiles)
            value = [a if a == b else None for a, b in zip(least, greatest)]
            check_bellman(nodes, least)
            check_bellman(nodes, greatest)
    expected = []
    for p, n in enumerate(nodes):
        vector = None if value[p] is None else _vector(value[p], total)
        names: frozenset = frozenset()
        chosen = value if value[p] is not None else middle
        if n.player in (0, 1) and chosen[p] is not None:
            sign = 1 if n.player == 0 else -1
            known = [(a, c) for a, c in zip(n.actions, n.children) if chosen[c] is not None
                     and (value[p] is None or value[c] is not None)]
            top = max(sign * chosen[c] for _, c in known)
            names = frozenset(_name(game, a) for a, c in known if sign * chosen[c] == top)
        expected.append(Expected(vector, None, -1, names))    # docs: no remoteness with chance
    defined = endless is not None or stopping or bool(
        [n for n in nodes if n.player == TERMINAL])
    return Verdict(nodes, index, expected, _graph_census(nodes), chance=True, endless=endless,
                   stopping=stopping, defined=defined)


# ==== cross-checks of the oracle's own two methods (used by its self-tests) =======================

def deterministic_by_profiles(nodes: list[Node], endless) -> list:
    """In a game without chance: player 0's value at every position by the profile brute force,
    endless play worth ``endless`` (-inf gives lo, +inf gives hi, a number the declared value)."""
    value, _ = brute_force(nodes, endless)
    return value


# ==== the solver's answers against the oracle's ====================================================

def _show(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, tuple):
        return "(" + ", ".join(str(_plain(x)) if isinstance(x, (int, Fraction)) else str(x)
                               for x in v) + ")"
    return str(v)


def disagreements(game, solution, verdict: Verdict | None = None) -> list[str]:
    """Every way ``solution`` (what ``gdl.graph.strong_solve(game)`` returned; only its public
    answers are read) differs from the oracle: at every position the value vector, the value
    class (games without chance), the remoteness and the set of optimal actions; the census;
    and whether the values are labelled exact exactly where they are defined."""
    verdict = judge(game) if verdict is None else verdict
    problems: list[str] = []
    if verdict.defined and not solution.exact:
        problems.append(f"values labelled not exact ({solution.note or 'no reason given'}), but "
                        "every position has a value (the oracle's brute force): the answers are "
                        "not compared")
        # the rest is not comparable: float values, slack in the optimal sets
        return problems
    if not verdict.defined and solution.exact:
        problems.append("values labelled exact, but no play ends and the rules declare no "
                        "value for endless play")
        return problems
    graph = solution.graph
    for node, want in zip(verdict.nodes, verdict.expected):
        where = f"position {node.state!r}"
        i = graph.position_id(node.state)
        if i is None:
            problems.append(f"{where} is missing from the solver's graph")
            continue
        if verdict.defined:
            got = solution.value(i)
            if got != want.value:
                extra = "" if verdict.chance else f" (lo {_show(want.lo)}, hi {_show(want.hi)})"
                problems.append(f"{where}: value {_show(got)}, the oracle says "
                                f"{_show(want.value)}{extra}")
        if not verdict.chance and node.player in (0, 1):
            got_class = solution.value_class(i)
            if got_class != want.value_class:
                problems.append(f"{where}: class {got_class}, the oracle says {want.value_class}"
                                f" (value {_show(want.value)}, lo {_show(want.lo)}, hi "
                                f"{_show(want.hi)})")
        got_remoteness = solution.remoteness(i)
        if got_remoteness != want.remoteness:
            problems.append(f"{where}: remoteness {got_remoteness}, the oracle says "
                            f"{want.remoteness}")
        if verdict.defined and node.player in (0, 1):
            got_best = {game.action_name(a) for a in solution.best_actions(i)}
            if got_best != set(want.best):
                problems.append(f"{where}: optimal actions {sorted(got_best)}, the oracle says "
                                f"{sorted(want.best)}")
    if verdict.defined:
        census = solution.census()
        if census != verdict.census:
            problems.append(f"census {census}, the oracle says {verdict.census}")
    return problems
