"""Cyclic games of more than two players, or general-sum: what has a well-defined answer is
solved and checked exactly, the rest is refused with the reason (docs/multiplayer.md).

Three kinds of game have an answer here; ``refusal_reason`` names the reason for any other:

1. **Every play ends with probability 1, whatever the players do** (no set of positions the
   players together could keep the game in for ever: ``iteration.endless_positions`` is empty;
   chance ends it, as in a truel or three-player Piglet). The answer is a *stationary
   subgame-perfect equilibrium in pure strategies*:

   - value iteration on value vectors, a layer of strongly connected components at a time, sinks
     first, each layer swept as a whole (so the result does not depend on how the positions
     are numbered), in floats, with the tree solvers' tie rule: a decision position takes the
     vector of its *first* child, in declaration order, that is best for the mover
     (``gdl.solvers.maxn``, ``gdl.graph.induction.vector_induction``); a chance position the
     probability-weighted sum;
   - the stationary profile read off those values (the first move within ``POLICY_SLACK`` of
     the best) is evaluated *exactly*: component by component, the positions on the profile's
     cycles are found (a feedback vertex set), every other one is an affine function of them in
     ``Fraction``s, and the small linear system left is solved exactly, one right-hand side per
     player;
   - policy iteration: where a move is strictly better for its mover than the profile's, the
     profile takes the first best move and the component is evaluated again, until no move is
     (at most ``MAX_IMPROVEMENTS`` rounds). Then the tie rule: a mover indifferent between its
     move and an earlier one takes the first best, kept only where the profile stays an
     equilibrium (on a cycle a move's value can depend on the move itself: moving back into the
     cycle can tie with leaving it, and taking it changes both). Without cycles it is always
     kept, so on an acyclic graph the answer is ``vector_induction``'s, max^n's.
   - the check: every decision position's vector is its move's, and no player gains by a
     one-shot deviation at any position. In a game where every play ends with probability 1
     that makes the profile a subgame-perfect equilibrium (each player's best reply to the
     others' stationary strategies is a Markov decision problem that stops whatever it does,
     whose optimal values are the unique solution of its Bellman equations, which the profile's
     values satisfy), and the result is labelled exact.

   Beyond ``EXACT_LIMIT`` positions (or numbers beyond ``MAX_DIGITS`` digits) the profile read
   off value iteration is evaluated from below and from above instead, with outward rounding
   (as ``iteration.float_values(bracket=True)`` does), which brackets every player's value; the
   equilibrium property is then proven by the intervals where moves are further apart than the
   intervals are wide, and the note says at how many positions it was not checked exactly.

   A pure stationary equilibrium need not exist (``docs/multiplayer.md`` has a two-player
   general-sum game with chance that has none). When policy iteration does not settle, the
   solve is refused with the position and the move that gains; in a small game
   (``PROFILE_LIMIT``, ``ENUMERATION_LIMIT``) every pure stationary profile is tried, and the
   message says whether one is an equilibrium.

2. **No chance, and `when endless (u1, ..., un)` declared**: a play that never ends is worth
   the declared vector. The answer is again a pure stationary subgame-perfect equilibrium, found
   by policy iteration from "every position not yet ended is worth the endless vector", with the
   same tie rule, and checked exactly against *every* deviation, not only one-shot ones (here a
   player may gain by keeping the game going for ever, though no one-shot deviation gains):
   with the others' strategies fixed, a player's best reply in a game without chance heads for
   the best end it can reach, or keeps the game going where endless play is worth more, both
   found by reachability (attractors). A player who gains so switches to that best reply and
   the iteration goes on; where it does not settle, the solve is refused as above.

3. **No chance, no declared value of endless play, constant-sum, and every end names one winner**
   (one player gets the greatest utility, every other the same least one): for each player, the
   positions from which it can force a win against all the others together (an attractor,
   Gamesman's retrograde analysis with child counters, as in ``gdl.graph.retrograde``). There
   that player wins in every equilibrium, whatever endless play is worth, and the position's
   value is that end's vector; its remoteness is the number of moves to the win when the winner
   hurries and the others delay. Where nobody can force a win the position has no value (a
   *draw*): the result depends on how players who cannot win choose among the others (Propp's
   "queer" positions of three-player games) and on what endless play is worth.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from gdl.graph.iteration import cut_and_order, gauss_jordan
from gdl.graph.order import edge_owner, gather
from gdl.graph.solution import DRAW, LOSE, WIN, GraphSolution, VectorValues
from gdl.moves import choices
from gdl.protocol import CHANCE, TERMINAL, Value
from gdl.solvers.result import SolverError

STATIONARY = "value iteration on value vectors + exact equilibrium check"
ENDLESS_EQUILIBRIUM = "policy iteration with endless play as declared + exact equilibrium check"
FORCED_WINS = "retrograde analysis of each player's forced wins"

TOLERANCE = 1e-13        # value iteration stops when no value of a layer moves more than this
MAX_SWEEPS = 20_000      # per layer: without convergence the exact check still decides
POLICY_SLACK = 1e-9      # moves within this of the best float value count as best
EXACT_LIMIT = 300_000    # positions: beyond this the exact check is not attempted
MAX_DIGITS = 2_000       # digits of a numerator or denominator before the exact check gives up
MAX_IMPROVEMENTS = 50    # rounds of switching to the first best move, per component
MAX_ROUNDS = 200         # rounds of policy iteration in a game without chance
# Where no equilibrium turns up, a game of at most ENUMERATION_LIMIT positions and PROFILE_LIMIT
# pure stationary profiles has every profile tried, so the refusal can say whether one exists.
PROFILE_LIMIT = 4_096
ENUMERATION_LIMIT = 2_000

STOPPING, ENDLESS, FORCED = "stopping", "endless", "forced"

CHOSEN = ("equilibria need not be unique; this is the one {how}, a mover who is indifferent "
          "taking the first best move in declaration order (as max^n does) wherever the profile "
          "stays an equilibrium")


class _TooBig(Exception):
    pass


class _NoEquilibrium(Exception):
    def __init__(self, position: int, edge: int, rounds: int, cycled: bool, why: str = ""):
        super().__init__()
        self.position, self.edge, self.rounds, self.cycled, self.why = (position, edge, rounds,
                                                                         cycled, why)


# ---- what can be solved --------------------------------------------------------------------------

def refusal_reason(graph, info) -> str | None:
    """Why gdl does not solve this cyclic game of more than two players, or general-sum (a
    message naming the reason and what works instead), or None when ``solve_multiplayer`` takes
    it. A game it takes may still be refused by the solve itself, where no pure stationary
    equilibrium turns up (one need not exist)."""
    return _plan(graph, info)[1]


def _plan(graph, info) -> tuple[str | None, str | None]:
    from gdl.graph.iteration import endless_positions

    name = info.name
    kind = f"{info.num_players} players" if info.num_players != 2 else "a general sum"
    has_chance = bool((graph.player == CHANCE).any())
    endless = endless_positions(graph)
    if not len(endless):
        return STOPPING, None
    where = f"{len(endless):,} positions, for example {_witness(graph, endless)}"
    if has_chance:
        declared = ("; the declared value of endless play is not used with chance yet"
                    if info.endless_value is not None else "")
        return None, (
            f"strong solve: game {name!r} has {kind} and chance, and its players can keep a play "
            f"going for ever ({where}): gdl values such a game only where every play ends with "
            "probability 1 whatever the players do (a stationary equilibrium of a game that can "
            f"go on for ever need not exist{declared}); give it a max-length, and the tree "
            "solvers search it")
    if info.endless_value is not None:
        return ENDLESS, None
    winner = one_winner(graph)
    if winner is not None and info.is_constant_sum:
        return FORCED, None
    advice = ("declare what endless play is worth (`when endless (u1, ..., un)`: gdl then looks "
              "for a stationary equilibrium and checks it exactly), or give it a max-length, and "
              "max^n searches it as a tree")
    if winner is not None:
        advice += ("; or, since every end names one winner, declare `constant-sum`, and gdl "
                   "finds which player can force a win")
    return None, (
        f"strong solve: game {name!r} can repeat positions ({where}) and has {kind}, and the "
        "rules do not say what endless play is worth: it can serve some players and not "
        "others, so no value follows from the rules; " + advice)


def one_winner(graph) -> tuple[Value, Value] | None:
    """``(least, greatest)`` utility when every reachable end gives one player the greatest
    utility and every other player the same least one; else None."""
    table = graph.returns_table
    if not table:
        return None
    low = min(min(v) for v in table)
    high = max(max(v) for v in table)
    if low == high:
        return None
    for vector in table:
        if sorted(vector) != [low] * (len(vector) - 1) + [high]:
            return None
    return low, high


def solve_multiplayer(graph, info, progress=None) -> GraphSolution:
    """Every position of a cyclic game of more than two players, or general-sum (see the module
    docstring). Raises SolverError with the reason where there is no answer."""
    kind, reason = _plan(graph, info)
    if kind is None:
        raise SolverError(reason)
    if kind == FORCED:
        return _forced_wins(graph, info)
    try:
        if kind == ENDLESS:
            return _endless_equilibrium(graph, info)
        return _stationary(graph, info, progress)
    except _NoEquilibrium as failed:
        exists = _any_pure_equilibrium(graph, info, kind)
        raise SolverError(_no_equilibrium_message(graph, info, failed, exists)) from None


# ---- the answer ----------------------------------------------------------------------------------

@dataclass
class MultiplayerSolution(GraphSolution):
    """A ``GraphSolution`` of this module: value vectors (exact, or floats with a certified
    interval per player), and for forced wins the winner and remoteness of each position."""

    # certified bounds, shape (positions, players, 2): low and high, exact binary fractions
    intervals: np.ndarray | None = None
    # (least, greatest) utility where every end names one winner, else None
    outcomes: tuple | None = None
    # forced wins: the player who can force a win at each position (-1: nobody) and its rank
    winner: np.ndarray | None = None
    rank: np.ndarray | None = None
    # an equilibrium: the move (edge) its profile takes at each decision position, -1 elsewhere
    profile: np.ndarray | None = None

    def interval(self, position: int) -> tuple[tuple[Fraction, Fraction], ...] | None:
        if self.intervals is None:
            return None
        return tuple((Fraction(float(low)), Fraction(float(high)))
                     for low, high in self.intervals[position])

    def win_probability(self, position: int) -> tuple[Fraction, Fraction] | None:
        """Where every end names one winner: the proven interval of the probability that
        player 0 wins (its value's interval, rescaled from [least, greatest] to [0, 1])."""
        found = self.interval(position)
        if found is None or self.outcomes is None:
            return None
        loss, win = self.outcomes
        low, high = found[0]
        return (low - loss) / (win - loss), (high - loss) / (win - loss)

    def remoteness(self, position: int) -> int:
        if self.rank is None:
            return -1
        return int(self.rank[position])

    def value_class(self, position: int) -> str | None:
        """Forced wins only: win where the mover can force a win, lose where another player
        can, draw where nobody can."""
        player = int(self.graph.player[position])
        if self.winner is None or player < 0:
            return None
        winner = int(self.winner[position])
        return DRAW if winner < 0 else WIN if winner == player else LOSE

    def best_actions(self, position: int) -> tuple:
        """As ``GraphSolution.best_actions``; with forced wins, at a draw, the moves to another
        draw (the mover keeps its hope of winning), or every move when each one hands the win
        to some player (the mover is a kingmaker)."""
        player = int(self.graph.player[position])
        if self.winner is None or player < 0 or self.winner[position] >= 0:
            return super().best_actions(position)
        state = self.graph.state(position)
        actions = list(self.graph.game.legal_actions(state))
        children = self.graph.children(position).tolist()
        open_ = [a for a, c in zip(actions, children) if self.winner[c] < 0]
        return tuple(open_ or actions)

    def census(self) -> dict:
        document: dict[str, Any] = dict(self.graph.census())
        if self.winner is None:
            return document
        player = self.graph.player
        decision = player >= 0
        mine = decision & (self.winner == player)
        nobody = decision & (self.winner < 0)
        document["classes"] = {WIN: int(np.count_nonzero(mine)),
                               LOSE: int(np.count_nonzero(decision & ~mine & ~nobody)),
                               "tie": 0, DRAW: int(np.count_nonzero(nobody))}
        assert self.rank is not None
        ranks = self.rank[decision & (self.rank >= 0)]
        counts = np.bincount(ranks) if len(ranks) else np.zeros(0, np.int64)
        document["remoteness"] = {int(r): int(c) for r, c in enumerate(counts) if c}
        terminal = np.flatnonzero(player == TERMINAL)
        outcomes = Counter(self.graph.returns_table[i][0]
                           for i in self.graph.returns_index[terminal].tolist())
        document["terminal_outcomes"] = {str(_plain(u)): c
                                         for u, c in sorted(outcomes.items(), reverse=True)}
        return document


# ---- 1. every play ends with probability 1 -----------------------------------------------------

def _stationary(graph, info, progress) -> GraphSolution:
    from gdl.graph.iteration import condensation_layers

    k = info.num_players
    if progress is not None:
        progress("ordering", 0, len(graph))
    parts, _, grouped = condensation_layers(graph)
    # Each layer swept as one group (its decision positions, then its chance positions), not
    # group by group in depth-first order: where several equilibria exist, the one reached then
    # depends on the graph alone, not on the order in which the walk numbered the positions.
    layers = [[np.concatenate(groups)] for groups in grouped]
    if progress is not None:
        progress("iterating", 0, len(graph))
    floats = _vector_iteration(graph, layers, k)
    policy = _read_policy(graph, floats)
    how = ("reached by value iteration from every player's least utility, then by policy "
           "iteration on the exact values")
    reason = f"the exact check is not attempted beyond {EXACT_LIMIT:,} positions"
    if len(graph) <= EXACT_LIMIT:
        if progress is not None:
            progress("checking exactly", 0, len(graph))
        try:
            vectors = _exact_equilibrium(graph, parts, policy, k)
        except _TooBig:
            reason = f"the exact check gave up (numbers beyond {MAX_DIGITS:,} digits)"
        else:
            note = ("a stationary subgame-perfect equilibrium, checked exactly: "
                    + CHOSEN.format(how=how))
            return MultiplayerSolution(graph, STATIONARY, VectorValues(vectors), exact=True,
                                       note=note, outcomes=one_winner(graph), profile=policy)
    return _certified(graph, layers, policy, k, reason,
                      "value iteration settles on from every player's least utility")


def _edge_probabilities(graph) -> np.ndarray:
    probability = np.zeros(graph.edges)
    if graph.probability_index is not None:
        chance_edges = graph.probability_index >= 0
        table = np.array([float(p) for p in graph.probabilities] or [0.0])
        probability[chance_edges] = table[graph.probability_index[chance_edges]]
    return probability


def _terminal_floats(graph, k: int) -> np.ndarray:
    table = np.array([[float(v) for v in vector] for vector in graph.returns_table]
                     or [[0.0] * k]).reshape(-1, k)
    return table


def _prepared(graph, layers, probability):
    """Per layer, the groups to update in order, each split into decision and chance
    positions with their moves gathered."""
    player, first, child = graph.player, graph.first, graph.child
    every_edge = np.arange(graph.edges)
    prepared = []
    for groups in layers:
        work = []
        for nodes in groups:
            nodes = nodes[player[nodes] != TERMINAL]
            if not len(nodes):
                continue
            parts = []
            for selected in (nodes[player[nodes] >= 0], nodes[player[nodes] == CHANCE]):
                if not len(selected):
                    parts.append(None)
                    continue
                children, counts = gather(first, child, selected)
                edges, _ = gather(first, every_edge, selected)
                starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
                parts.append((selected, children, counts, starts, edges,
                              np.repeat(player[selected], counts).astype(np.int64),
                              probability[edges][:, None]))
            work.append(parts)
        if work:
            members = np.concatenate([p[0] for parts in work for p in parts if p is not None])
            prepared.append((work, members))
    return prepared


def _first_best(seen_for_mover: np.ndarray, counts: np.ndarray, starts: np.ndarray,
                slack: float) -> np.ndarray:
    """Per position, the offset (into the gathered moves) of its first move within ``slack``
    of the best for the mover."""
    best = np.maximum.reduceat(seen_for_mover, starts)
    near = seen_for_mover >= np.repeat(best, counts) - slack
    offsets = np.arange(len(seen_for_mover))
    return np.minimum.reduceat(np.where(near, offsets, len(offsets)), starts)


def _vector_iteration(graph, layers, k: int) -> np.ndarray:
    """Every position's value vector by value iteration in floats, started from every player's
    least utility, with the tie rule (see the module docstring). A layer stops when a sweep
    changes nothing by more than ``TOLERANCE``, or after ``MAX_SWEEPS`` sweeps: the exact check
    (or the certified intervals) decides what the profile read off these values is worth."""
    player = graph.player
    ends = _terminal_floats(graph, k)
    is_terminal = player == TERMINAL
    value = np.empty((len(graph), k))
    value[:] = ends.min(axis=0)
    value[is_terminal] = ends[graph.returns_index[is_terminal]]
    for work, members in _prepared(graph, layers, _edge_probabilities(graph)):
        change, sweeps = np.inf, 0
        while change > TOLERANCE and sweeps < MAX_SWEEPS:
            before = value[members]
            for decision, chance in work:
                if decision is not None:
                    nodes, children, counts, starts, _, movers, _ = decision
                    seen = value[children, movers]
                    pick = _first_best(seen, counts, starts, POLICY_SLACK)
                    value[nodes] = value[children[pick]]
                if chance is not None:
                    nodes, children, _, starts, _, _, weights = chance
                    value[nodes] = np.add.reduceat(value[children] * weights, starts)
            change = float(np.max(np.abs(value[members] - before)))
            sweeps += 1
    return value


def _read_policy(graph, value: np.ndarray) -> np.ndarray:
    """Per position, the edge the profile takes (-1 at chance and terminal positions): the
    first move within ``POLICY_SLACK`` of the best for the mover."""
    policy = np.full(len(graph), -1, dtype=np.int64)
    nodes = np.flatnonzero(graph.player >= 0)
    if not len(nodes):
        return policy
    children, counts = gather(graph.first, graph.child, nodes)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    movers = np.repeat(graph.player[nodes], counts).astype(np.int64)
    pick = _first_best(value[children, movers], counts, starts, POLICY_SLACK)
    policy[nodes] = graph.first[nodes] + (pick - starts)
    return policy


class _Exact:
    """The graph as Python lists, for the exact passes."""

    def __init__(self, graph, k: int):
        self.k = k
        self.player = graph.player.tolist()
        self.first = graph.first.tolist()
        self.child = graph.child.tolist()
        self.probabilities = graph.probabilities
        self.probability_index = (graph.probability_index.tolist()
                                  if graph.probability_index is not None else None)
        self.value: list = [None] * len(graph)
        for position, kind in enumerate(self.player):
            if kind == TERMINAL:
                self.value[position] = tuple(graph.returns(position))

    def evaluate(self, members, chosen) -> None:
        """Exact values of one component (the components after it valued) under ``chosen``."""
        first, child = self.first, self.child
        successors = {}
        for position in members:
            if self.player[position] == CHANCE:
                assert self.probability_index is not None
                successors[position] = [
                    (child[e], self.probabilities[self.probability_index[e]])
                    for e in range(first[position], first[position + 1])]
            else:
                successors[position] = [(child[chosen[position]], 1)]
        _evaluate(members, successors, self.value, self.k)

    def first_best(self, deciders, chosen, strict: bool) -> list:
        """Switch decision positions to their first best move under the current values: with
        ``strict``, only where it is better for the mover than the move chosen; else wherever
        it is another move (an earlier one as good). The ``(position, edge)`` switched to."""
        changed = []
        value, child = self.value, self.child
        for position in deciders:
            mover = self.player[position]
            best_edge, best = -1, None
            for e in range(self.first[position], self.first[position + 1]):
                v = value[child[e]][mover]
                if best is None or v > best:
                    best_edge, best = e, v
            current = chosen[position]
            if best_edge != current and (not strict
                                         or best > value[child[current]][mover]):
                changed.append((position, best_edge))
                chosen[position] = best_edge
        return changed

    def one_shot_gain(self, chosen) -> tuple[int, int] | None:
        """A decision position and a move that gains for its mover over ``chosen``'s, or None."""
        for position, mover in enumerate(self.player):
            if mover < 0:
                continue
            mine = self.value[self.child[chosen[position]]][mover]
            for e in range(self.first[position], self.first[position + 1]):
                if self.value[self.child[e]][mover] > mine:
                    return position, e
        return None


def _exact_equilibrium(graph, parts, policy: np.ndarray, k: int) -> list:
    """Exact value vectors of a stationary equilibrium, starting from ``policy`` (changed in
    place), component by component: evaluate exactly and switch to the first best move where a
    move is strictly better, until none is (``_settle``); then take the first best move where an
    earlier one is as good, as long as the profile stays an equilibrium (``_break_ties``).
    Finally the check: every value is its move's, and no one-shot deviation gains."""
    exact = _Exact(graph, k)
    player = exact.player
    chosen = policy.tolist()
    for members in parts:
        if len(members) == 1 and player[members[0]] == TERMINAL:
            continue
        deciders = [m for m in members if player[m] >= 0]
        _settle(exact, members, deciders, chosen)
        _break_ties(exact, members, deciders, chosen)
    for position, mover in enumerate(player):
        if mover >= 0 and exact.value[position] != exact.value[exact.child[chosen[position]]]:
            raise AssertionError(f"position {position}: its value is not its move's")
    if exact.one_shot_gain(chosen) is not None:
        raise AssertionError("a one-shot deviation gains after the improvements settled")
    policy[:] = chosen
    return [tuple(_plain(v) for v in vector) for vector in exact.value]


def _settle(exact, members, deciders, chosen) -> None:
    """Policy iteration on one component: evaluate, switch where a move is strictly better,
    until no move is; ``_NoEquilibrium`` when the switches go round in a cycle or run out."""
    seen: set = set()
    for rounds in range(1, MAX_IMPROVEMENTS + 1):
        exact.evaluate(members, chosen)
        seen.add(tuple(chosen[m] for m in deciders))
        changed = exact.first_best(deciders, chosen, strict=True)
        if not changed:
            return
        if tuple(chosen[m] for m in deciders) in seen:
            position, edge = changed[0]
            raise _NoEquilibrium(position, edge, rounds, cycled=True)
    position, edge = changed[0]
    raise _NoEquilibrium(position, edge, MAX_IMPROVEMENTS, cycled=False)


def _break_ties(exact, members, deciders, chosen) -> None:
    """The tie rule, where it keeps an equilibrium: every mover indifferent between its move and
    an earlier one takes the first best; when, evaluated again, some move is then strictly
    better somewhere (in a cycle, a move's value can depend on the move chosen), the profile
    goes back to the one before. In a component without cycles this always ends at the first
    best move everywhere, as backward induction does."""
    for _ in range(MAX_IMPROVEMENTS):
        saved_values = {m: exact.value[m] for m in members}
        saved_choice = {m: chosen[m] for m in deciders}
        if not exact.first_best(deciders, chosen, strict=False):
            return
        exact.evaluate(members, chosen)
        probe = list(chosen)
        if exact.first_best(deciders, probe, strict=True):
            for m, v in saved_values.items():
                exact.value[m] = v
            for m, e in saved_choice.items():
                chosen[m] = e
            return


def _pure_profiles(graph) -> tuple[np.ndarray, list[list[int]], int]:
    """The decision positions, each one's moves to distinct positions (its first edge to each),
    and the number of pure stationary profiles they make."""
    nodes = np.flatnonzero(graph.player >= 0)
    options = []
    count = 1
    for position in nodes.tolist():
        start, end = int(graph.first[position]), int(graph.first[position + 1])
        distinct = dict.fromkeys(graph.child[start:end].tolist())
        edges = [start + graph.child[start:end].tolist().index(c) for c in distinct]
        options.append(edges)
        count *= len(edges)
    return nodes, options, count


def _any_pure_equilibrium(graph, info, kind: str) -> bool | None:
    """Whether some pure stationary profile is an equilibrium (checked as the solve checks its
    answer), by trying them all; None when there are more than ``PROFILE_LIMIT`` of them or the
    graph has more than ``ENUMERATION_LIMIT`` positions."""
    import itertools

    from gdl.graph.order import components

    nodes, options, count = _pure_profiles(graph)
    if count > PROFILE_LIMIT or len(graph) > ENUMERATION_LIMIT:
        return None
    k = info.num_players
    if kind == ENDLESS:
        endless = tuple(info.endless_value)
        table = list(graph.returns_table) + [endless]
        ranks = _ranks(table, k)
        policy = np.full(len(graph), -1, dtype=np.int64)
        for combination in itertools.product(*options):
            policy[nodes] = combination
            vector_id = _follow(graph, policy, len(table) - 1)
            if _best_replies(graph, policy, vector_id, ranks, len(table) - 1) is None:
                return True
        return False
    parts = [m for m in components(graph) if not (len(m) == 1 and graph.player[m[0]] == TERMINAL)]
    chosen = [-1] * len(graph)
    for combination in itertools.product(*options):
        for position, edge in zip(nodes.tolist(), combination):
            chosen[position] = edge
        exact = _Exact(graph, k)
        try:
            for members in parts:
                exact.evaluate(members, chosen)
        except _TooBig:
            return None
        if exact.one_shot_gain(chosen) is None:
            return True
    return False


def _evaluate(members, successors, value, k: int) -> None:
    """Exact value vectors of one component under a fixed profile: the positions on its cycles
    (targets of a depth-first search's back edges) are unknowns, every other position an affine
    function of them (post-order), and the linear system left is solved with one right-hand
    side per player. Positions outside the component are already valued."""
    inside = set(members)
    finished, cut = cut_and_order(members, successors, inside)
    index = {c: i for i, c in enumerate(cut)}
    # a form: (coefficients of the cut's unknowns, sparse), (constant vector)
    forms: dict[int, tuple[dict, list]] = {c: ({index[c]: Fraction(1)}, [0] * k) for c in cut}
    equations = {}
    for node in finished:
        coefficients: dict = {}
        constant: list = [0] * k
        for target, weight in successors[node]:
            if target in inside:
                part, offset = forms[target]
                for i, a in part.items():
                    coefficients[i] = coefficients.get(i, 0) + weight * a
                for j in range(k):
                    constant[j] += weight * offset[j]
            else:
                known = value[target]
                for j in range(k):
                    constant[j] += weight * known[j]
        if node in index:
            equations[node] = (coefficients, constant)
        else:
            forms[node] = (coefficients, constant)
    size = len(cut)
    matrix = []
    for c in cut:
        coefficients, constant = equations[c]
        row = [Fraction(int(i == index[c])) - coefficients.get(i, 0) for i in range(size)]
        matrix.append(row + [Fraction(x) for x in constant])
    solution = gauss_jordan(matrix, size)
    if solution is None:       # singular: a play that never ends, impossible in a stopping game
        raise AssertionError("the profile keeps a play going for ever")
    limit = MAX_DIGITS * 3.33
    for node in members:
        if node in index:
            vector = solution[index[node]]
        else:
            coefficients, constant = forms[node]
            vector = [constant[j] + sum(a * solution[i][j] for i, a in coefficients.items())
                      for j in range(k)]
        for v in vector:
            v = Fraction(v)
            if max(abs(v.numerator), v.denominator).bit_length() > limit:
                raise _TooBig()
        value[node] = tuple(Fraction(v) for v in vector)


def _certified(graph, layers, policy: np.ndarray, k: int, reason: str, how: str
               ) -> GraphSolution:
    """The profile read off value iteration, evaluated from below and from above (a proven
    interval per player and position), and the equilibrium property proven where the
    intervals separate the moves."""
    low, high = _bracket(graph, layers, policy, k)
    owner = edge_owner(graph)
    player = graph.player
    decision = player[owner] >= 0
    owners = owner[decision]
    targets = graph.child[decision]
    movers = player[owners].astype(np.int64)
    chosen = graph.child[policy[owners]]
    settled = (targets == chosen) | (high[targets, movers] <= low[chosen, movers])
    gains = low[targets, movers] > high[chosen, movers]
    if gains.any():
        at = int(np.flatnonzero(gains)[0])
        edge = int(np.flatnonzero(decision)[at])
        raise _NoEquilibrium(int(owners[at]), edge, 0, cycled=False,
                             why="value iteration did not settle on an equilibrium")
    unproven = len(np.unique(owners[~settled]))
    if unproven:
        check = (f"the equilibrium check was not made exactly: the intervals prove it at every "
                 f"decision position but {unproven:,}, where moves are closer than the "
                 "intervals are wide")
    else:
        check = "the intervals prove the equilibrium property at every decision position"
    note = (f"{reason}; the profile value iteration settles on is evaluated from below and "
            f"from above (certified intervals); {check}; " + CHOSEN.format(how=how))
    middle = (low + high) / 2
    vectors: list = [tuple(row) for row in middle.tolist()]
    for position in np.flatnonzero(player == TERMINAL).tolist():
        vectors[position] = tuple(graph.returns(position))
    intervals = np.stack([low, high], axis=2)
    return MultiplayerSolution(graph, STATIONARY, VectorValues(vectors), exact=False,
                               residual=float(np.max(high - low)), note=note,
                               intervals=intervals, outcomes=one_winner(graph), profile=policy)


def _bracket(graph, layers, policy: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every player's value under the profile, bracketed: iterated from every player's least
    terminal value and from its greatest, each chance update pushed outwards by more than its
    rounding error can be (``iteration.rounding_margin``). The profile's operator is monotone
    and, every play ending with probability 1, has one fixed point, so every iterate from below
    stays below it and every one from above above it."""
    from gdl.graph.iteration import rounding_margin

    player = graph.player
    is_terminal = player == TERMINAL
    ends = _terminal_floats(graph, k)[graph.returns_index[is_terminal]]
    low_ends, high_ends = np.nextafter(ends, -np.inf), np.nextafter(ends, np.inf)
    lowest, highest = low_ends.min(axis=0), high_ends.max(axis=0)
    value = np.empty((len(graph), 2 * k))        # the lower bounds, then the upper ones
    value[:, :k], value[:, k:] = lowest, highest
    value[is_terminal, :k], value[is_terminal, k:] = low_ends, high_ends
    floor = np.concatenate((lowest, lowest))
    ceiling = np.concatenate((highest, highest))
    degrees = np.diff(graph.first)
    largest = float(max(np.max(np.abs(lowest)), np.max(np.abs(highest))))
    margin = rounding_margin(int(np.max(degrees)) if len(degrees) else 1, largest)
    push = np.concatenate((np.full(k, -margin), np.full(k, margin)))
    for work, members in _prepared(graph, layers, _edge_probabilities(graph)):
        change, sweeps = np.inf, 0
        while change > TOLERANCE and sweeps < MAX_SWEEPS:
            before = value[members]
            for decision, chance in work:
                if decision is not None:
                    nodes = decision[0]
                    value[nodes] = value[graph.child[policy[nodes]]]
                if chance is not None:
                    nodes, children, _, starts, _, _, weights = chance
                    new = np.add.reduceat(value[children] * weights, starts) + push
                    value[nodes] = np.clip(new, floor, ceiling)
            change = float(np.max(np.abs(value[members] - before)))
            sweeps += 1
    return value[:, :k].copy(), value[:, k:].copy()


# ---- 2. no chance, endless play declared --------------------------------------------------------

def _endless_equilibrium(graph, info) -> GraphSolution:
    """A pure stationary subgame-perfect equilibrium of a game without chance whose endless
    play is worth ``info.endless_value``, checked exactly against every deviation: policy
    iteration (switch where a move is strictly better; where none is, the first player who
    gains by some deviation, endless play included, switches to a best reply), then the tie
    rule where it keeps the profile an equilibrium, as ``_break_ties`` does."""
    k = info.num_players
    endless = tuple(info.endless_value)
    table = list(graph.returns_table) + [endless]
    ranks = _ranks(table, k)                   # per vector, per player: its rank (exact order)
    endless_id = len(table) - 1
    player = graph.player
    nodes = np.flatnonzero(player >= 0)
    children, counts = gather(graph.first, graph.child, nodes)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    movers = np.repeat(player[nodes], counts).astype(np.int64)
    node_movers = player[nodes].astype(np.int64)

    def switch(policy: np.ndarray, ids: np.ndarray, strict: bool) -> np.ndarray:
        """``policy`` with the first best moves taken (see ``_Exact.first_best``); the decision
        positions (indices into ``nodes``) switched."""
        pick = _first_best(ranks[ids[children], movers].astype(np.float64), counts, starts, 0.0)
        best = graph.first[nodes] + (pick - starts)
        current = policy[nodes]
        differs = best != current
        if strict:
            mine = ranks[ids[graph.child[current]], node_movers]
            theirs = ranks[ids[graph.child[best]], node_movers]
            differs &= theirs > mine
        at = np.flatnonzero(differs)
        policy[nodes[at]] = best[at]
        return at

    # start: every position not ended is worth the endless vector
    start = np.where(player == TERMINAL, graph.returns_index, endless_id).astype(np.int64)
    policy = np.full(len(graph), -1, dtype=np.int64)
    policy[nodes] = graph.first[nodes]
    switch(policy, start, strict=False)
    seen: set = set()
    last = (int(nodes[0]) if len(nodes) else 0, -1)     # the last switch: position, edge
    for rounds in range(1, MAX_ROUNDS + 1):
        vector_id = _follow(graph, policy, endless_id)
        seen.add(policy.tobytes())
        at = switch(policy, vector_id, strict=True)
        if len(at):
            last = (int(nodes[at[0]]), int(policy[nodes[at[0]]]))
        else:
            deviation = _best_replies(graph, policy, vector_id, ranks, endless_id)
            if deviation is None:
                break
            # the player who gains switches to a best reply at every one of its positions
            who, replies = deviation
            mine = nodes[(player[nodes] == who) & (replies[nodes] >= 0)]
            gains = mine[replies[mine] != policy[mine]]
            last = (int(gains[0]), int(replies[gains[0]])) if len(gains) else last
            policy[mine] = replies[mine]
        if policy.tobytes() in seen:
            raise _NoEquilibrium(*last, rounds, cycled=True)
    else:
        raise _NoEquilibrium(*last, MAX_ROUNDS, cycled=False)
    # the tie rule, as long as the profile stays an equilibrium
    for _ in range(MAX_ROUNDS):
        saved = policy.copy()
        if not len(switch(policy, vector_id, strict=False)):
            break
        tried = _follow(graph, policy, endless_id)
        if (len(switch(policy.copy(), tried, strict=True))
                or _best_replies(graph, policy, tried, ranks, endless_id) is not None):
            policy = saved
            break
        vector_id = tried
    vectors = [tuple(table[i]) for i in vector_id.tolist()]
    how = ("reached by policy iteration from every position not yet ended being worth the "
           "endless vector")
    note = ("a stationary subgame-perfect equilibrium with endless play worth "
            f"({', '.join(str(_plain(v)) for v in endless)}), checked exactly against every "
            "deviation (endless play included): " + CHOSEN.format(how=how))
    return MultiplayerSolution(graph, ENDLESS_EQUILIBRIUM, VectorValues(vectors), exact=True,
                               note=note, profile=policy)


def _ranks(table: list, k: int) -> np.ndarray:
    """Per vector of ``table``, per player, the rank of that player's value among all of the
    table's values for that player: comparing ranks compares the exact values."""
    ranks = np.empty((len(table), k), dtype=np.int64)
    for j in range(k):
        distinct = sorted({Fraction(v[j]) for v in table})
        order = {v: r for r, v in enumerate(distinct)}
        ranks[:, j] = [order[Fraction(v[j])] for v in table]
    return ranks


def _follow(graph, policy: np.ndarray, endless_id: int) -> np.ndarray:
    """Per position, the vector the profile ends in: the returns of the terminal its moves
    reach, or ``endless_id`` where they go round a cycle for ever (pointer jumping)."""
    n = len(graph)
    is_terminal = graph.player == TERMINAL
    step = np.where(policy >= 0, graph.child[np.maximum(policy, 0)], np.arange(n))
    step[is_terminal] = np.flatnonzero(is_terminal)
    for _ in range(max(1, int(n).bit_length())):
        step = step[step]
    ends = is_terminal[step]
    return np.where(ends, graph.returns_index[step], endless_id).astype(np.int64)


def _best_replies(graph, policy, vector_id, ranks, endless_id):
    """The first player who gains somewhere by deviating from the profile (any deviation,
    endless play included), with a best reply (an edge per position of that player's; a
    stationary one: in a game without chance the best reply to stationary strategies can be),
    or None when nobody gains anywhere: the profile is then a subgame-perfect equilibrium."""
    from gdl.graph.retrograde import attractor

    player = graph.player
    owner = edge_owner(graph)
    is_terminal = player == TERMINAL
    k = ranks.shape[1]
    for who in range(k):
        # the player's reachable graph: all of its own moves, the profile's elsewhere
        allowed = player[owner] == who
        others = np.flatnonzero((player >= 0) & (player != who))
        allowed[policy[others]] = True
        out_degree = np.bincount(owner[allowed], minlength=len(graph))
        # where it can keep the game going for ever: outside the attractor of the ends in which
        # every allowed move leads to them
        ending = attractor(graph, np.flatnonzero(is_terminal), np.zeros(len(graph), bool),
                           out_degree, allowed)
        forever = ending < 0
        endless_rank = ranks[endless_id, who]
        best = np.where(forever, endless_rank, -1)
        reply = np.full(len(graph), -1, dtype=np.int64)
        # the best end it can reach: terminals by descending value, reached backwards
        terminal_rank = np.full(len(graph), -1)
        terminal_rank[is_terminal] = ranks[graph.returns_index[is_terminal], who]
        reached = np.zeros(len(graph), bool)
        for r in sorted(set(terminal_rank[is_terminal].tolist()), reverse=True):
            step = attractor(graph, np.flatnonzero(terminal_rank >= r), np.ones(len(graph), bool),
                             np.ones(len(graph), np.int64), allowed)
            new = (step >= 0) & ~reached
            reached |= step >= 0
            better = new & (r > best)
            best[better] = r
            # move closer to an end worth r: a child one step nearer
            _toward(graph, owner, allowed, step, better & (player == who), reply)
        # where endless play is the best, stay where the game can go on for ever
        keep = forever & (best == endless_rank) & (player == who) & (reply < 0)
        _staying(graph, owner, allowed, forever, keep, reply)
        mine = ranks[vector_id, who]
        if (best > mine).any():
            return who, reply
    return None


def _toward(graph, owner, allowed, step, where, reply) -> None:
    """At the positions ``where``, the first allowed move to a child one step closer (by the
    attractor's ``step``) to the ends it was grown from."""
    edges = np.flatnonzero(allowed & where[owner])
    child = graph.child[edges]
    good = (step[child] >= 0) & (step[child] == step[owner[edges]] - 1)
    edges = edges[good]
    first_edge = np.full(len(graph), np.iinfo(np.int64).max)
    np.minimum.at(first_edge, owner[edges], edges)
    found = first_edge < np.iinfo(np.int64).max
    reply[found] = first_edge[found]


def _staying(graph, owner, allowed, forever, where, reply) -> None:
    """At the positions ``where``, the first allowed move to a position from which the game
    can still go on for ever."""
    edges = np.flatnonzero(allowed & where[owner])
    edges = edges[forever[graph.child[edges]]]
    first_edge = np.full(len(graph), np.iinfo(np.int64).max)
    np.minimum.at(first_edge, owner[edges], edges)
    found = first_edge < np.iinfo(np.int64).max
    reply[found] = first_edge[found]


# ---- 3. no chance, every end names one winner ---------------------------------------------------

def _forced_wins(graph, info) -> GraphSolution:
    """For each player, the positions from which it can force a win (see the module
    docstring)."""
    from gdl.graph.retrograde import attractor

    ends = one_winner(graph)
    assert ends is not None          # _plan sends only such games here
    low, high = ends
    player = graph.player
    is_terminal = player == TERMINAL
    out_degree = np.diff(graph.first)
    winner_of = np.array([list(v).index(high) for v in graph.returns_table], dtype=np.int64)
    winner = np.full(len(graph), -1, dtype=np.int64)
    rank = np.full(len(graph), -1, dtype=np.int64)
    wins: dict[int, tuple] = {}
    for who in range(info.num_players):
        targets = np.flatnonzero(is_terminal & (winner_of[np.maximum(graph.returns_index, 0)]
                                                == who))
        if not len(targets):
            continue
        wins[who] = graph.returns_table[int(winner_of.tolist().index(who))]
        joined = attractor(graph, targets, player == who, out_degree)
        forced = joined >= 0
        assert not (forced & (winner >= 0)).any()     # one end, one winner
        winner[forced] = who
        rank[forced] = joined[forced]
    vectors = [None if w < 0 else tuple(wins[w]) for w in winner.tolist()]
    note = ("where a player can force a win, it wins in every equilibrium, whatever endless "
            "play is worth; elsewhere (a draw) the result depends on how the players who cannot "
            "win choose between the others, and on what endless play is worth: no value")
    return MultiplayerSolution(graph, FORCED_WINS, VectorValues(vectors), exact=True, note=note,
                               outcomes=(low, high), winner=winner, rank=rank)


# ---- messages ----------------------------------------------------------------------------------

def _witness(graph, targets: np.ndarray, longest: int = 12) -> str:
    """One of ``targets`` named by a shortest play from the start: "the start", or "the
    position after" the moves' names."""
    n = len(graph)
    wanted = np.zeros(n, bool)
    wanted[targets] = True
    if wanted[0]:
        return "the start"
    parent_edge = np.full(n, -1, dtype=np.int64)
    seen = np.zeros(n, bool)
    seen[0] = True
    frontier = np.array([0])
    every_edge = np.arange(graph.edges)
    found = -1
    while len(frontier) and found < 0:
        edges, _ = gather(graph.first, every_edge, frontier)
        children = graph.child[edges]
        fresh = ~seen[children]
        edges, children = edges[fresh], children[fresh]
        children, at = np.unique(children, return_index=True)
        parent_edge[children] = edges[at]
        seen[children] = True
        hits = children[wanted[children]]
        if len(hits):
            found = int(hits[0])
        frontier = children
    if found < 0:
        return "a position the start cannot reach"
    owner = edge_owner(graph)
    path = []
    position = found
    while position != 0:
        edge = int(parent_edge[position])
        path.append(edge)
        position = int(owner[edge])
    return "the position after " + _named(graph, path[::-1], longest)


def _named(graph, edges: list, longest: int) -> str:
    owner = edge_owner(graph)
    game = graph.game
    names = []
    for edge in edges[:longest]:
        position = int(owner[edge])
        available = choices(game, graph.state(position), int(graph.player[position]))
        names.append(game.action_name(available[edge - int(graph.first[position])]))
    return " ".join(names) + (" ..." if len(edges) > longest else "")


def _no_equilibrium_message(graph, info, failed: _NoEquilibrium, exists: bool | None) -> str:
    position, edge = failed.position, failed.edge
    who = info.players[int(graph.player[position])]
    move = _named(graph, [edge], 1)
    if failed.why:
        how = failed.why
    elif failed.cycled:
        how = f"the improvements went round in a cycle after {failed.rounds} rounds"
    else:
        how = f"the improvements did not settle in {failed.rounds} rounds"
    where = f"at {_witness(graph, np.array([position]))}, {who} still gains by {move}"
    count = _pure_profiles(graph)[2] if exists is not None else 0
    if exists is False:
        verdict = (f"game {info.name!r} has no stationary equilibrium in pure strategies: none of "
                   f"its {count:,} pure stationary profiles is one ({how}; {where})")
    elif exists:
        verdict = (f"game {info.name!r}: the search for a stationary equilibrium in pure "
                   f"strategies did not settle ({how}; {where}), although one of its {count:,} "
                   "pure stationary profiles is one")
    else:
        verdict = (f"game {info.name!r}: no stationary equilibrium in pure strategies was found "
                   f"({how}; {where}); one need not exist (docs/multiplayer.md has a game "
                   "without one)")
    return (f"strong solve: {verdict}; gdl does not compute mixed equilibria; give the game a "
            "max-length, and max^n searches it as a tree")


def _plain(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v
