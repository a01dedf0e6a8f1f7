"""Two players, constant-sum, chance and cycles (Pig, Piglet): value iteration, then an exact
check of the policy it finds.

1. **Does every play end?** The positions from which the players *together* could keep the game
   going for ever with probability 1 (a decision position with a move staying among them, a
   chance position whose outcomes all do) are found as the complement of an attractor. When
   there are none, every pair of strategies ends the game with probability 1 (a *stopping*
   game), and then the Bellman equations have exactly one solution: any exact solution is the
   value (Shapley 1953; Condon 1992 for simple stochastic games).
2. **Value iteration in floats**, strongly connected component by component in reverse
   topological order (``order.components``), layers of the condensation at a time, with numpy:
   the values of a layer are iterated until they stop changing, the layers below being final.
3. **Exact check** (when the game is stopping and small enough): the policy read off the float
   values (the first move within 1e-9 of the best) is evaluated exactly, component by
   component: the positions on the component's cycles are found (the targets of a depth-first
   search's back edges: a feedback vertex set), every other position is written as an affine
   function of them in exact ``Fraction`` arithmetic, and the small linear system left is
   solved exactly. Then every decision position is checked: no move may be better than the
   policy's for the mover. Where one is, the policy takes it and the component is evaluated
   again (policy iteration, at most ``MAX_IMPROVEMENTS`` rounds). Checked values satisfy the
   Bellman equations exactly, so in a stopping game they are the value: the result is exact.

When the check cannot be made (the game is not stopping, or the exact numbers grow beyond
``MAX_DIGITS`` digits, or the graph has more than ``EXACT_LIMIT`` positions), the float values
are returned labelled approximate, with the last iteration's largest change as the residual:
never as exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from gdl.graph.exact_cut import TooBig as _TooBig
from gdl.graph.induction import centred_terminals
from gdl.graph.order import components, edge_owner, gather, levels
from gdl.graph.retrograde import attractor
from gdl.graph.solution import GraphSolution, VectorValues
from gdl.protocol import CHANCE, TERMINAL

TOLERANCE = 1e-13        # value iteration stops when no value of a layer moves more than this
MAX_SWEEPS = 1_000_000
POLICY_SLACK = 1e-9      # moves within this of the best float value count as best
EXACT_LIMIT = 300_000    # positions: beyond this the exact check is not attempted
MAX_DIGITS = 2_000       # digits of a numerator or denominator before the exact check gives up
MAX_IMPROVEMENTS = 50


def endless_positions(graph) -> np.ndarray:
    """The positions from which the players together can keep the game going for ever."""
    player = graph.player
    out_degree = np.diff(graph.first)
    ends = attractor(graph, np.flatnonzero(player == TERMINAL), player == CHANCE, out_degree)
    return np.flatnonzero(ends < 0)


def condensation_layers(graph) -> tuple[list[list[int]], np.ndarray, list[list[np.ndarray]]]:
    """The components (sinks first), each position's component, and the positions in layers:
    every move out of a layer leads to an earlier one. Each layer is a list of groups in the
    order to update them: inside a component, the moves to positions discovered later by the
    depth-first search form no cycle, and the groups follow that acyclic order (children first),
    so one sweep carries values along every such move; only the other moves (back along a
    cycle) wait for the next sweep."""
    discovery: list = []
    parts = components(graph, discovery)
    component = np.empty(len(graph), dtype=np.int64)
    for number, members in enumerate(parts):
        component[members] = number
    owner = edge_owner(graph)
    child = graph.child
    same = component[owner] == component[child]
    found = np.array(discovery, dtype=np.int64)
    forward = ~same | (found[child] > found[owner])
    depth = np.empty(len(graph), dtype=np.int64)
    forward_levels = levels(graph, forward)
    assert forward_levels is not None     # discovery numbers increase along these moves: no cycle
    for h, nodes in enumerate(forward_levels):
        depth[nodes] = h
    between = ~same
    source, target = component[owner][between], component[child][between]
    order = np.argsort(source, kind="stable")
    source, target = source[order], target[order]
    starts = np.searchsorted(source, np.arange(len(parts) + 1)).tolist()
    target_list = target.tolist()
    height = [0] * len(parts)
    # components are listed sinks first, so each one's successors already have their height
    for number in range(len(parts)):
        a, b = starts[number], starts[number + 1]
        if a < b:
            height[number] = 1 + max(height[t] for t in target_list[a:b])
    position_height = np.array(height, dtype=np.int64)[component]
    by = np.lexsort((depth, position_height))
    layer_of = position_height[by]
    layers = []
    for bounds in np.split(np.arange(len(by)), np.flatnonzero(np.diff(layer_of)) + 1):
        nodes = by[bounds]
        groups = np.split(nodes, np.flatnonzero(np.diff(depth[nodes])) + 1)
        layers.append(groups)
    return parts, component, layers


def float_values(graph, centred: np.ndarray, scale: int, layers, bracket: bool = False,
                 start: float = 0.0) -> tuple[np.ndarray, float]:
    """Player 0's centred values as floats, and the largest change in the last sweep of any
    layer that needed more than one.

    With ``bracket``, two columns instead: certified lower and upper bounds, for a stopping
    game. Every non-terminal position starts at the least (greatest) terminal value, terminal
    values are rounded down (up), and every update is pushed down (up) by more than its
    rounding error can be (``_rounding_margin``). The Bellman operator is monotone, so from
    below every iterate stays below its fixed point (Gauss-Seidel order included); in a stopping
    game that fixed point is the value. Any iterate is a bound; iterating makes it tighter. Both
    columns go through each numpy call together: the sweeps cost little more than one."""
    player, first, child = graph.player, graph.first, graph.child
    probability = np.zeros(graph.edges)
    chance_edges = graph.probability_index >= 0
    table = np.array([float(p) for p in graph.probabilities] or [0.0])
    probability[chance_edges] = table[graph.probability_index[chance_edges]]
    value = (centred.astype(np.float64) / scale)[:, None]
    value[player != TERMINAL] = start      # every decision and chance position, at first
    if bracket:
        is_terminal = player == TERMINAL
        ends = value[is_terminal, 0]
        # a float quotient is rounded to nearest: one step outwards makes it a bound
        low_ends, high_ends = np.nextafter(ends, -np.inf), np.nextafter(ends, np.inf)
        low, high = float(np.min(low_ends)), float(np.max(high_ends))
        value = np.empty((len(graph), 2))
        value[:, 0], value[:, 1] = low, high
        value[is_terminal, 0], value[is_terminal, 1] = low_ends, high_ends
        margin = _rounding_margin(graph, max(abs(low), abs(high))) * np.array([-1.0, 1.0])
    every_edge = np.arange(graph.edges)
    residual = 0.0
    for groups in layers:
        work = []
        for nodes in groups:
            nodes = nodes[player[nodes] != TERMINAL]
            if not len(nodes):
                continue
            edges_children, counts = gather(first, child, nodes)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            edge_ids, _ = gather(first, every_edge, nodes)
            kind = player[nodes]
            sign = np.where(kind == 1, -1.0, 1.0)[:, None]
            work.append((nodes, edges_children, starts, probability[edge_ids][:, None],
                         np.repeat(sign, counts, axis=0), sign, (kind == CHANCE)[:, None]))
        if not work:
            continue
        # the layer's positions, to measure a sweep's change once rather than group by group
        members = np.concatenate([item[0] for item in work])
        change = np.inf
        sweeps = 0
        while change > TOLERANCE and sweeps < MAX_SWEEPS:
            before = value[members]
            for nodes, edges_children, starts, weights, edge_sign, sign, is_chance in work:
                seen = value[edges_children]
                best = np.maximum.reduceat(seen * edge_sign, starts) * sign
                mean = np.add.reduceat(seen * weights, starts)
                new = np.where(is_chance, mean, best)
                if bracket:
                    # pushed outwards past any rounding, but never past the utilities' range
                    new = np.clip(new + margin, low, high)
                value[nodes] = new
            change = float(np.max(np.abs(value[members] - before)))
            sweeps += 1
        if sweeps > 1:
            residual = max(residual, change)
    return (value if bracket else value[:, 0]), residual


def _rounding_margin(graph, largest: float) -> float:
    """More than the rounding error of one update: a chance position's weighted sum of k
    children, each probability rounded to a float (relative error 2^-53), each product and each
    addition rounded (2^-53 again), is within (k + 2) * 2^-53 * (1 + small) of the exact sum of
    those children's float values times their exact probabilities, which sum to 1; twice that
    is the margin. (A decision position's max is exact.)"""
    degrees = np.diff(graph.first)
    return rounding_margin(int(np.max(degrees)) if len(degrees) else 1, largest)


def rounding_margin(widest: int, largest: float) -> float:
    """``_rounding_margin`` for positions of at most ``widest`` moves and values of at most
    ``largest`` in size."""
    return float(2 * (widest + 2) * 2.0 ** -53 * max(largest, 1e-300))


def certified_bounds(graph, centred: np.ndarray, scale: int, layers
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Player 0's centred values (divided by ``scale``) bracketed: ``lower <= value <= upper``
    at every position, proven for a stopping game (see ``float_values``), with the floats
    themselves exact binary fractions."""
    both, _ = float_values(graph, centred, scale, layers, bracket=True)
    return both[:, 0].copy(), both[:, 1].copy()


def exact_values(graph, centred: np.ndarray, scale: int, parts, approximate: np.ndarray,
                 terminal: list | None = None, endless: Fraction | None = None) -> list[Fraction]:
    """Player 0's exact centred values (divided by ``scale``), checked as described above;
    raises _TooBig when the numbers or the rounds of improvement run out. ``terminal``, when
    given, holds the terminals' exact centred values instead (a tier's solve, whose stand-in
    terminals carry values of any denominator). ``endless``: the centred value (divided by
    ``scale``) of a play that never ends, where declared: then the game need not be stopping
    (see ``_traps``)."""
    n = len(graph)
    player = graph.player.tolist()
    first = graph.first.tolist()
    child = graph.child.tolist()
    probability_index = graph.probability_index.tolist()
    probabilities = graph.probabilities
    value: list = [None] * n
    for position in range(n):
        if player[position] == TERMINAL:
            value[position] = (Fraction(int(centred[position]), scale) if terminal is None
                               else terminal[position])
    guess = approximate.tolist()
    policy = _greedy_policy(range(n), player, first, child, guess)
    for members in parts:
        if len(members) == 1 and player[members[0]] == TERMINAL:
            continue
        for _ in range(MAX_IMPROVEMENTS):
            _evaluate(members, player, first, child, probability_index, probabilities, policy,
                      value, endless)
            if not _improve(members, player, first, child, policy, value) and (
                    endless is None or not _traps(members, player, first, child, policy, value,
                                                  endless)):
                break
        else:
            raise _TooBig()
    return value


def _evaluate(members, player, first, child, probability_index, probabilities, policy, value,
              endless: Fraction | None = None):
    """Exact values of one component under a fixed policy (see the module docstring). Where
    the policy keeps play inside the component for ever from a position (no way out of it is
    ever taken), the position is worth ``endless``: there the play never ends."""
    inside = set(members)
    # the positions on the component's cycles under the policy: targets of DFS back edges
    successors = {}
    for position in members:
        if player[position] == CHANCE:
            successors[position] = [(child[e], probabilities[probability_index[e]])
                                    for e in range(first[position], first[position + 1])]
        else:
            successors[position] = [(child[policy[position]], 1)]
    stuck = _never_leaving(members, successors, inside)
    if stuck:
        if endless is None:              # the equations would be singular: no value
            raise _TooBig()
        for position in stuck:
            value[position] = endless
        inside -= stuck
        members = [position for position in members if position not in stuck]
    finished, cut = cut_and_order(members, successors, inside)
    index = {c: i for i, c in enumerate(cut)}
    size = len(cut) + 1                # affine form: coefficients of the cut values, then a constant
    form: dict[int, list] = {c: [Fraction(0)] * size for c in cut}
    for c in cut:
        form[c][index[c]] = Fraction(1)
    equations = {}
    for node in finished:              # post-order: every non-cut successor is done
        combined = [Fraction(0)] * size
        for target, weight in successors[node]:
            if target in inside:
                part = form[target]
                for i in range(size):
                    if part[i]:
                        combined[i] += weight * part[i]
            else:
                combined[-1] += weight * value[target]
        if node in index:
            equations[node] = combined
        else:
            form[node] = combined
    # x_c = equations[c](x): solve (I - A) x = b exactly
    k = len(cut)
    matrix = [[(1 if i == j else 0) - equations[c][j] for j in range(k)] + [equations[c][-1]]
              for i, c in enumerate(cut)]
    rows = gauss_jordan(matrix, k)
    if rows is None:                   # singular: the policy keeps some play going for ever
        raise _TooBig()
    solution = [row[0] for row in rows]
    for node in members:
        if node in index:
            v = solution[index[node]]
        else:
            f = form[node]
            v = f[-1] + sum(f[i] * solution[i] for i in range(k) if f[i])
        if max(abs(v.numerator), v.denominator).bit_length() > MAX_DIGITS * 3.33:
            raise _TooBig()
        value[node] = v


def _never_leaving(members, successors: dict, inside: set) -> set:
    """The members from which the policy's play never leaves the component: those no path
    along the policy's moves (and every chance outcome) leads out of."""
    leads_in: dict[int, list[int]] = {}
    leaving = []
    for position in members:
        for target, _ in successors[position]:
            if target in inside:
                leads_in.setdefault(target, []).append(position)
            else:
                leaving.append(position)
    reaches_out = set(leaving)
    work = list(reaches_out)
    while work:
        for source in leads_in.get(work.pop(), ()):
            if source not in reaches_out:
                reaches_out.add(source)
                work.append(source)
    return inside - reaches_out


def _traps(members, player, first, child, policy, value, endless: Fraction) -> bool:
    """Where endless play has a declared value, a policy whose values satisfy every local
    check can still be beaten by never ending: player 0 keeping the play among positions worth
    less than endless play to it, whatever player 1's policy and chance do, or player 1 among
    positions worth more. Such a set (the greatest one, by removing positions the other side or
    chance can leave from) is a trap; the trapped side's policy is switched to stay in it and
    True returned. With no trap for either side, the values are the game's: every play under
    any strategy of one side against the other's policy gets, in expectation, no more (less)
    than them (docs/graph.md's argument: the values are a supermartingale that no endless play
    beats)."""
    changed = False
    for side, below in ((0, True), (1, False)):
        trapped = {p for p in members if player[p] != TERMINAL
                   and (value[p] < endless if below else value[p] > endless)}
        while True:
            leave = set()
            for p in trapped:
                edges = range(first[p], first[p + 1])
                if player[p] == CHANCE:
                    stays = all(child[e] in trapped for e in edges)
                elif player[p] == side:
                    stays = any(child[e] in trapped for e in edges)
                else:
                    stays = child[policy[p]] in trapped
                if not stays:
                    leave.add(p)
            if not leave:
                break
            trapped -= leave
        for p in trapped:
            if player[p] == side:
                policy[p] = next(e for e in range(first[p], first[p + 1]) if child[e] in trapped)
                changed = True
    return changed


def cut_and_order(members, successors: dict, inside: set) -> tuple[list[int], list[int]]:
    """A depth-first search inside a component (iteratively), along ``successors`` (position
    -> [(target, weight)]): the positions in post-order, and the targets of its back edges,
    whose removal leaves no cycle (a feedback vertex set)."""
    state: dict[int, int] = {}         # 1 on the search's path, 2 finished
    finished: list[int] = []
    cut: list[int] = []
    in_cut: set = set()
    for root in members:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(successors[root]))]
        while stack:
            node, moves = stack[-1]
            for target, _ in moves:
                if target not in inside:
                    continue
                mark = state.get(target)
                if mark is None:
                    state[target] = 1
                    stack.append((target, iter(successors[target])))
                    break
                if mark == 1 and target not in in_cut:
                    cut.append(target)
                    in_cut.add(target)
            else:
                stack.pop()
                state[node] = 2
                finished.append(node)
    return finished, cut


def gauss_jordan(matrix: list[list[Fraction]], size: int) -> list[list[Fraction]] | None:
    """Gauss-Jordan elimination in exact arithmetic, in place; the columns after ``size`` are
    right-hand sides. The rows of the solution, one per unknown; None when singular."""
    for col in range(size):
        pivot = next((r for r in range(col, size) if matrix[r][col] != 0), None)
        if pivot is None:
            return None
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        lead = matrix[col][col]
        matrix[col] = [x / lead for x in matrix[col]]
        for r in range(size):
            if r != col and matrix[r][col] != 0:
                factor = matrix[r][col]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[col])]
    return [row[size:] for row in matrix]


def _improve(members, player, first, child, policy, value) -> bool:
    """Switch every decision position with a strictly better move to its best; True if any."""
    changed = False
    for position in members:
        kind = player[position]
        if kind < 0:
            continue
        sign = 1 if kind == 0 else -1
        current = value[child[policy[position]]] * sign
        best_edge, best = policy[position], current
        for e in range(first[position], first[position + 1]):
            v = value[child[e]] * sign
            if v > best:
                best_edge, best = e, v
        if best_edge != policy[position]:
            policy[position] = best_edge
            changed = True
    return changed


def solve_stochastic(graph, total, progress=None, endless=None, native=None) -> GraphSolution:
    """Every position of a two-player constant-sum game with chance and cycles. ``endless``:
    player 0's utility for a play that never ends, where the rules declare it. ``native``:
    the game's native passes (gdl.backends.native.chance_graph), which then guess the values
    and order the exact check of a stopping game (``native_exact``); where that check cannot be
    made, the general way below decides, as without them."""
    from gdl.graph import VALUE_ITERATION

    terminal = centred_terminals(graph, total)
    if terminal is None:
        from gdl.solvers.result import SolverError

        raise SolverError("strong solve: utilities too large for value iteration")
    centred, scale = terminal
    if (native is not None and len(graph) <= EXACT_LIMIT
            and not native.endless(graph.player, graph.first, graph.child)):
        if progress is not None:
            progress("checking exactly", 0, len(graph))
        try:
            exact_pairs = native_exact(graph, centred, scale, native)
        except _TooBig:
            pass
        else:
            return GraphSolution(graph, VALUE_ITERATION,
                                 VectorValues(PairVectors(exact_pairs, total)),
                                 exact=True)
    if progress is not None:
        progress("ordering", 0, len(graph))
    parts, _, layers = condensation_layers(graph)
    if progress is not None:
        progress("iterating", 0, len(graph))
    endless_ones = endless_positions(graph)
    if len(endless_ones):
        return _not_stopping(graph, total, centred, scale, parts, layers, endless, endless_ones,
                             progress)
    note = ""
    exact = None
    bounds = None
    if len(graph) > EXACT_LIMIT:
        # Stopping, but too big to check exactly: iterate from below and from above instead,
        # which brackets every value (the approximate value is the bracket's middle).
        bounds = certified_bounds(graph, centred, scale, layers)
        approximate = (bounds[0] + bounds[1]) / 2
        residual = float(np.max(bounds[1] - bounds[0]))
        note = (f"the exact check is not attempted beyond {EXACT_LIMIT:,} positions (its "
                "fractions would grow too large); values bracketed by value iteration from "
                "below and from above")
    else:
        approximate, residual = float_values(graph, centred, scale, layers)
        if progress is not None:
            progress("checking exactly", 0, len(graph))
        try:
            exact = exact_values(graph, centred, scale, parts, approximate)
        except _TooBig:
            bounds = certified_bounds(graph, centred, scale, layers)
            note = (f"the exact check gave up (numbers beyond {MAX_DIGITS:,} digits, or no "
                    "stable policy); values bracketed by value iteration from below and from "
                    "above")
    if exact is not None:
        return GraphSolution(graph, VALUE_ITERATION, VectorValues(_vectors(exact, total)),
                             exact=True)
    vectors = [((v + float(total)) / 2, (float(total) - v) / 2) for v in approximate.tolist()]
    solution = GraphSolution(graph, VALUE_ITERATION, VectorValues(vectors), exact=False,
                             residual=residual, note=note)
    if bounds is not None:
        ends = np.unique(centred[graph.player == TERMINAL])
        # with two outcomes only (a win and a loss), the value says how likely each is
        outcomes = (None if len(ends) != 2 else
                    tuple((Fraction(int(w), scale) + total) / 2 for w in ends))
        solution.bounds = (bounds[0], bounds[1], total, outcomes)
    return solution


def _not_stopping(graph, total, centred, scale, parts, layers, endless, endless_ones,
                  progress) -> GraphSolution:
    """A game in which the players can keep a play going for ever. With ``endless`` declared,
    the values of the game in which such a play is worth it, checked exactly (``_traps``).
    Without, endless play may be worth anything between the least and the greatest end, and a
    position has a value where it is the same at both (docs/graph.md): a position worth more
    with endless play worth more is a draw, with no value."""
    from gdl.graph import VALUE_ITERATION

    ends = np.unique(centred[graph.player == TERMINAL])
    if endless is not None:
        worths = [Fraction(endless) * 2 - total]
    elif len(ends):
        worths = [Fraction(int(ends[0]), scale), Fraction(int(ends[-1]), scale)]
    else:
        worths = []
    solved: list = []
    approximate = np.zeros(len(graph))
    residual = 0.0

    def solve_at(worth: Fraction) -> bool:
        nonlocal approximate, residual
        approximate, residual = float_values(graph, centred, scale, layers, start=float(worth))
        if len(graph) > EXACT_LIMIT:
            return False
        if progress is not None:
            progress("checking exactly", 0, len(graph))
        try:
            solved.append(exact_values(graph, centred, scale, parts, approximate, endless=worth))
        except _TooBig:
            return False
        return True

    if worths and all(solve_at(worth) for worth in worths):
        exact = [a if a == b else None for a, b in zip(solved[0], solved[-1])]
        draws: dict = {}
        # a draw's optimal moves: those best with endless play worth the middle of the ends
        if None in exact and solve_at((worths[0] + worths[-1]) / 2):
            at = [_vectors(values, total) for values in solved]
            draws = {p: tuple(vectors[p] for vectors in at)
                     for p, v in enumerate(exact) if v is None}
        if None not in exact or draws:
            return GraphSolution(graph, VALUE_ITERATION,
                                 VectorValues(_vectors(exact, total), draws), exact=True)
    why = ("the exact check is not attempted beyond " f"{EXACT_LIMIT:,} positions"
           if len(graph) > EXACT_LIMIT else
           f"the exact check gave up (numbers beyond {MAX_DIGITS:,} digits, or no stable policy)")
    if endless is None:
        note = (f"{len(endless_ones):,} positions can go on for ever with probability 1 and the "
                "rules do not say what endless play is worth (`when endless`), so the "
                f"equations may have several solutions, and {why}; values from iteration "
                "started at the least end")
    else:
        note = (f"{len(endless_ones):,} positions can go on for ever, worth what `when endless` "
                f"says, and {why}; values from iteration started at that worth: not bounds")
    vectors = [((v + float(total)) / 2, (float(total) - v) / 2) for v in approximate.tolist()]
    return GraphSolution(graph, VALUE_ITERATION, VectorValues(vectors), exact=False,
                         residual=residual, note=note)


# Float policy rounds of a component in the native guess (``native_exact``): its policy only
# starts the exact check, which improves it further where it is not yet optimal.
GUESS_POLICY_ROUNDS = 30
GUESS_MAX_CUT = 8


def native_exact(graph, centred: np.ndarray, scale: int, native) -> list:
    """Player 0's exact centred values (divided by ``scale``) of a stopping game, as pairs
    ``(numerator, denominator)`` in lowest terms, checked; raises _TooBig where the check
    cannot be made. The C (``native.graph_guess``) finds the strongly connected components,
    sinks first, a cut in each through which its every cycle passes, an order children first,
    and float values by policy iteration over the cut; then each component is checked
    exactly along that order (``gdl.graph.exact_cut``), or, where its cut has more than one
    position, by the general check of ``_evaluate`` and ``_improve``."""
    from gdl.graph import exact_cut

    table = np.array([float(p) for p in graph.probabilities] or [0.0])
    index = graph.probability_index
    weight = np.where(index >= 0, table[np.maximum(index, 0)], 0.0)
    found = native.graph_guess(graph.player, graph.first, graph.child, weight,
                               centred.astype(np.float64) / scale,
                               (GUESS_MAX_CUT, GUESS_POLICY_ROUNDS, TOLERANCE, MAX_SWEEPS))
    player = graph.player.tolist()
    first = graph.first.tolist()
    child = graph.child.tolist()
    probability_index = index.tolist()
    value: list = [None] * len(graph)
    for position in np.flatnonzero(graph.player == TERMINAL).tolist():
        value[position] = exact_cut.pair(Fraction(int(centred[position]), scale))
    arrays = (first, child, player, probability_index, found.value.tolist(),
              [exact_cut.pair(p) for p in graph.probabilities])
    sequence = found.sequence.tolist()
    bounds = found.component_first.tolist()
    limit = MAX_DIGITS * 3.33
    for number, cuts in enumerate(found.cuts.tolist()):
        members = sequence[bounds[number]:bounds[number + 1]]
        if cuts in (0, 1):
            exact_cut.evaluate(arrays, members, cuts, value.__getitem__, value, POLICY_SLACK,
                               limit, MAX_IMPROVEMENTS)
        else:
            _general_component(members, arrays, graph.probabilities, _AsFractions(value))
    return value


class _AsFractions:
    """A list of pairs read and written as Fractions: the general check's view of it."""

    def __init__(self, pairs: list):
        self.pairs = pairs

    def __getitem__(self, position: int) -> Fraction:
        from gdl.graph.exact_cut import fraction

        return fraction(self.pairs[position])

    def __setitem__(self, position: int, v: Fraction) -> None:
        self.pairs[position] = (v.numerator, v.denominator)


def _greedy_policy(positions, player, first, child, guess) -> dict[int, int]:
    """Each decision's move to a child the float ``guess`` values best for its mover (the first
    within POLICY_SLACK of the best): the policy the exact check starts from."""
    policy: dict[int, int] = {}
    for position in positions:
        kind = player[position]
        if kind >= 0:
            edges = range(first[position], first[position + 1])
            seen = [guess[child[e]] * (1 if kind == 0 else -1) for e in edges]
            top = max(seen)
            policy[position] = next(e for e, v in zip(edges, seen) if v >= top - POLICY_SLACK)
    return policy


def _general_component(members: list, arrays: tuple, probabilities: list, value) -> None:
    """One component's exact values by the general check (``exact_values``'s, for one)."""
    first, child, player, probability_index, guess, _ = arrays
    policy = _greedy_policy(members, player, first, child, guess)
    for _ in range(MAX_IMPROVEMENTS):
        _evaluate(members, player, first, child, probability_index, probabilities, policy, value)
        if not _improve(members, player, first, child, policy, value):
            return
    raise _TooBig()


class PairVectors(Sequence):
    """Each position's exact value vector, made from its value as a pair when read: a solve
    reads a few of them (its start's), a database save each once; none is made twice over
    (``VectorValues.vectors`` is read by index only)."""

    __slots__ = ("pairs", "total")

    def __init__(self, pairs: list, total):
        self.pairs, self.total = pairs, total

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, position):        # by index only, no slices
        return pair_vector(self.pairs[position], self.total)


def pair_vector(exact: tuple[int, int], total) -> tuple:
    """``_vectors``'s vector of one exact value given as a pair in lowest terms: for an integer
    constant sum, player 0's utility (v + total) / 2 is (n + total d) / 2d, in lowest terms
    once a 2 that divides the numerator is taken out (n + total d is prime to d), and player
    1's total minus it over the same denominator: no greatest common divisor to compute."""
    from gdl.graph.exact_cut import fraction

    if type(total) is not int:
        [vector] = _vectors([fraction(exact)], total)
        return vector
    n, d = exact
    n += total * d
    if n % 2:
        d *= 2
    else:
        n //= 2
    if d == 1:
        return n, total - n
    return fraction((n, d)), fraction((total * d - n, d))


def _vectors(exact: list, total) -> list:
    """Each player's exact value from player 0's centred one (None: a draw without a value)."""
    return [None if v is None else (_plain((v + total) / 2), _plain((total - v) / 2))
            for v in exact]


def _plain(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v
