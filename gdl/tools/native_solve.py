"""Running a whole search natively when the game has native rules and the native tier implements
that search; otherwise (or when the native search stops on a rule error or an overflow) the caller
runs the Python solver, which gives the same answer or reports the error located.

Implemented natively: ``minimax`` and ``expectiminimax`` (values, exact fractions included, the
optimal root set, the principal variation and the node and leaf counts, identical to
gdl.solvers.minimax and gdl.solvers.expectiminimax), ``star1`` and ``star2`` on chance games
(the same, plus the cut-offs, identical to gdl.solvers.star without a table), ``alphabeta`` with
its default options or with any table size, ``evaluation_plies``, and the table, the move
ordering, PVS and the optimal set switched on or off (``python_only_settings`` names what keeps
it in Python: killers, history, iterative deepening, aspiration, quiescence at a horizon, a
budget), ``maxn``, and random playouts (``playouts``, the same choices as the Python loop
here). gdl.solvers stays protocol-only: this module is the glue.
"""

from __future__ import annotations

from fractions import Fraction

from gdl.protocol import CHANCE, TERMINAL
from gdl.solvers.result import SolveResult, Stats

NATIVE_ALGORITHMS = ("minimax", "alphabeta", "expectiminimax", "star1", "star2", "maxn")


def native_rules(game):
    """The game's NativeRules, or None (without waking a compiled game's lazy interpreter)."""
    return getattr(game, "__dict__", {}).get("native")


# The SearchOptions fields only the Python engine implements, with what they are called.
PYTHON_ONLY = {"killers": "killer moves", "history": "the history heuristic",
               "iterative_deepening": "iterative deepening", "aspiration": "aspiration windows",
               "quiescence": "quiescence"}


def python_only_settings(info, depth: int | None, options=None, budget=None) -> list[str]:
    """What in this alpha-beta search the native tier does not implement: SearchOptions field
    names (those that change the search: iterative deepening and aspiration only where the game
    has an evaluation to deepen with, quiescence only at a horizon of a game that declares
    `quiet when`), and "budget" for a time or node limit; [] when it can run natively."""
    from gdl.solvers import default_options

    if options is None:
        options = default_options(depth, budget)
    found = []
    if budget is not None:
        found.append("budget")
    if options.killers:
        found.append("killers")
    if options.history:
        found.append("history")
    deepens = info.has_evaluate and (options.iterative_deepening or budget is not None)
    if options.iterative_deepening and deepens:
        found.append("iterative_deepening")
    if options.aspiration and deepens:
        found.append("aspiration")
    if options.quiescence and info.has_quiescence and depth is not None:
        found.append("quiescence")
    return found


def solve_native(game, algorithm: str, *, depth: int | None = None, root_state=None,
                 options=None, budget=None, on_stop=None) -> SolveResult | None:
    """The SolveResult of ``algorithm`` computed in C, or None when the Python solver must run
    (no native rules, an algorithm or option the native tier lacks, or the native search stopped).
    ``on_stop()`` is called when the native search ran and stopped (a rule error, which the Python
    tier then reports, or a value beyond 64 bits, which it computes exactly)."""
    native = native_rules(game)
    info = game.info
    if native is not None and algorithm == "maxn" and options is None and budget is None:
        searched = _maxn(game, native, depth, root_state)
        if searched is None and on_stop is not None and native.stopped:
            on_stop()
        return searched
    if native is not None and algorithm in ("star1", "star2") and options is None and budget is None:
        searched = _star(game, native, algorithm, depth, root_state)
        if searched is None and on_stop is not None and native.stopped:
            on_stop()
        return searched
    if (native is None or algorithm not in NATIVE_ALGORITHMS
            or (options is not None and algorithm != "alphabeta")
            or budget is not None or len(info.players) != 2
            or info.sum_kind == "general-sum"):
        return None
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0
                              or not info.has_evaluate):
        return None    # the Python solver refuses these with its own message
    root = game.initial_state() if root_state is None else root_state
    total = 0 if info.sum_kind == "zero-sum" else info.utility_sum
    if total is None or not isinstance(total, int):
        return None
    if info.has_chance and algorithm != "expectiminimax":
        return None     # the Python solver refuses chance with its own message
    if algorithm == "alphabeta":
        if python_only_settings(info, depth, options):
            return None
        searched = _alphabeta(game, native, root, depth, total, options)
        if searched is None and on_stop is not None and native.stopped:
            on_stop()
        return searched
    if algorithm == "expectiminimax" and info.has_chance:
        found = native.expectiminimax(root, depth)
    else:       # without chance, expectiminimax visits exactly minimax's nodes
        found = native.minimax(root, depth)
    if found is None:
        if on_stop is not None and native.stopped:
            on_stop()
        return None

    def vector(v0) -> tuple:
        return _vector(v0, total)

    root_children = tuple((action, vector(v)) for action, v in found["root"])
    mover = game.current_player(root)
    best_actions: tuple = ()
    if root_children and mover != TERMINAL:
        best = max(values[mover] for _, values in root_children)
        best_actions = tuple(a for a, values in root_children if values[mover] == best)
    stats = Stats(nodes=found["nodes"], leaves=found["leaves"])
    return SolveResult(values=vector(found["value"]), best_actions=best_actions,
                       pv=tuple(found["pv"]), algorithm=algorithm, stats=stats,
                       proven=found["evaluations"] == 0, depth=depth,
                       extra={"action_values": root_children, "backend": "native"})


def _vector(v0, total: int) -> tuple:
    """Player 0's value as the Python solver has it (a Fraction once it went through a chance
    node, else an int) and the vector it makes with the declared total."""
    if isinstance(v0, tuple):
        numerator, denominator, through_chance = v0
        v0 = Fraction(numerator, denominator) if through_chance else numerator
    return (v0, total - v0)


def _star(game, native, algorithm: str, depth: int | None, root_state) -> SolveResult | None:
    """gdl.solvers.star's Star1 or Star2 (no table) in C, on a game with chance; None where the
    Python solver refuses the game (with its own message) or the native tier lacks the search
    (no chance: the native unit has no Star loop, and alphabeta is the default there)."""
    info = game.info
    if not info.has_chance or len(info.players) != 2 or info.sum_kind == "general-sum":
        return None
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0
                              or not info.has_evaluate):
        return None
    total = 0 if info.sum_kind == "zero-sum" else info.utility_sum
    if info.utility_bounds is None:
        return None
    lo, hi = info.utility_bounds
    if not all(type(v) is int for v in (total, lo, hi)):
        return None
    # As gdl.solvers.star: either player's value lies in [low, high]; equal ends are widened.
    low, high = max(lo, total - hi), min(hi, total - lo)
    if low > high:
        return None
    if low == high:
        high = low + 1
    root = game.initial_state() if root_state is None else root_state
    found = native.star(root, depth, algorithm == "star2", total, (low, high), (lo, hi))
    if found is None:
        return None
    value = _vector(found["value"], total)
    best_actions: tuple = ()
    if found["root"]:
        mover = game.current_player(root)
        best_actions = tuple(a for a, v in found["root"]
                             if _vector(v, total)[mover] == value[mover])
    stats = Stats(nodes=found["nodes"], leaves=found["leaves"], cutoffs=found["cutoffs"])
    return SolveResult(values=value, best_actions=best_actions, pv=tuple(found["pv"]),
                       algorithm=algorithm, stats=stats, proven=found["evaluations"] == 0,
                       depth=depth, extra={"backend": "native"})


def _maxn(game, native, depth: int | None, root_state) -> SolveResult | None:
    """gdl.solvers.maxn as gdl.solvers.solve runs it (shallow pruning where its conditions
    hold), in C; None where the native tier lacks it (chance) or the Python solver refuses."""
    from gdl.solvers import shallow_pruning_applies

    info = game.info
    if info.has_chance or (depth is not None and (isinstance(depth, bool) or not isinstance(
            depth, int) or depth < 0 or not info.has_evaluate)):
        return None
    root = game.initial_state() if root_state is None else root_state
    if len(root) != native.cells:
        return None
    pruning = None
    if shallow_pruning_applies(info):
        total = 0 if info.sum_kind == "zero-sum" else info.utility_sum
        low, high = info.utility_bounds
        if not all(type(v) is int for v in (total, low, high)):
            return None
        pruning = (total, low, high)
    found = native.maxn(root, depth, len(info.players), pruning)
    if found is None:
        return None
    root_children = tuple(found["root"])
    best_actions: tuple = ()
    if root_children:
        mover = game.current_player(root)
        best = max(values[mover] for _, values in root_children)
        best_actions = tuple(a for a, values in root_children if values[mover] == best)
    stats = Stats(nodes=found["nodes"], leaves=found["leaves"], cutoffs=found["cutoffs"])
    extra: dict = {"backend": "native"}
    if pruning is None:
        extra["action_values"] = root_children
    return SolveResult(values=found["value"], best_actions=best_actions, pv=tuple(found["pv"]),
                       algorithm="maxn", stats=stats, proven=found["evaluations"] == 0,
                       depth=depth, extra=extra)


def _alphabeta(game, native, root, depth: int | None, total: int,
               options=None) -> SolveResult | None:
    """gdl.solvers.alphabeta with ``options`` (default: gdl.solvers.default_options), in C;
    the caller checked that python_only_settings finds nothing in them."""
    from gdl.solvers import default_options

    if options is None:
        options = default_options(depth)
    if depth is not None and depth < 1:
        return None
    if native.hash(root) != hash(root):
        return None     # another Python's hash: the table would differ from the Python tier's
    if game.current_player(root) == TERMINAL:
        return SolveResult(values=tuple(game.returns(root)), best_actions=(), pv=(),
                           algorithm="alphabeta", stats=Stats(nodes=1, leaves=1), proven=True,
                           depth=0, extra={"backend": "native"})
    found = native.alphabeta(root, depth, options.tt_size, options.evaluation_plies,
                             table=options.tt, ordering=options.ordering, pvs=options.pvs,
                             optimal_set=options.optimal_set)
    if found is None:
        return None
    legal = game.legal_actions(root)
    best_actions = tuple(a for a, flag in zip(legal, found["best_flags"]) if flag)
    stats = Stats(nodes=found["nodes"], leaves=found["leaves"], cutoffs=found["cutoffs"],
                  tt_probes=found["probes"], tt_hits=found["hits"],
                  researches=found["researches"], depth_reached=found["max_ply"])
    extra: dict = {"iteration_nodes": [stats.nodes], "stopped": None, "backend": "native"}
    if not options.optimal_set:
        extra["optimal_set"] = False
    if stats.depth_reached:
        extra["ebf"] = round(stats.nodes ** (1 / stats.depth_reached), 3)
    if options.tt:
        capacity = 2 * max(1, options.tt_size // 2)
        extra.update(tt_capacity=capacity, tt_entries=found["used"],
                     tt_replaced=found["replaced"], tt_full=found["replaced"] > 0)
    v0 = found["value"]
    return SolveResult(values=(v0, total - v0), best_actions=best_actions, pv=tuple(found["pv"]),
                       algorithm="alphabeta", stats=stats, proven=bool(found["proven"]),
                       depth=depth, extra=extra)


# ---- random playouts: the same generator and choices in C and in Python ---------------------

MASK = 2 ** 64 - 1


def _splitmix(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def _pick(rng: int, n: int) -> tuple[int, int]:
    """An index below n, every one equally likely, as search.c's pick (Lemire's method): the
    high word of r * n, drawing again while the low word is below 2^64 mod n."""
    rng, r = _splitmix(rng)
    m = r * n
    if m & MASK < n:
        threshold = (MASK + 1 - n) % n
        while m & MASK < threshold:
            rng, r = _splitmix(rng)
            m = r * n
    return rng, m >> 64


def playouts_python(game, count: int, seed: int, max_plies: int = 100_000, root_state=None) -> dict:
    """``count`` uniformly random playouts over the protocol: utility sums per player and the
    number of plies played. The generator is splitmix64, as in the native loop."""
    root = game.initial_state() if root_state is None else root_state
    sums = [0] * len(game.info.players)
    rng, plies = seed & MASK, 0
    current, legal, apply, returns = (game.current_player, game.legal_actions, game.apply,
                                      game.returns)
    for _ in range(count):
        state, length = root, 0
        while (player := current(state)) != TERMINAL:
            if length >= max_plies:
                raise ValueError(f"a playout went on for more than {max_plies} plies")
            length += 1
            if player == CHANCE:    # an outcome with its exact probability
                rng, r = _splitmix(rng)
                point, cumulative = Fraction(r, 2 ** 64), Fraction(0)
                outcomes = game.chance_outcomes(state)
                action = outcomes[-1][0]
                for outcome, p in outcomes:
                    cumulative += p
                    if point < cumulative:
                        action = outcome
                        break
                state = apply(state, action)
                continue
            actions = legal(state)
            rng, index = _pick(rng, len(actions))
            state = apply(state, actions[index])
            plies += 1
        for player, value in enumerate(returns(state)):
            sums[player] += value
    return {"sums": tuple(sums), "plies": plies}


def playouts(game, count: int, seed: int, max_plies: int = 100_000, root_state=None) -> dict:
    """Random playouts, natively where the game has native rules (same results either way)."""
    native = native_rules(game)
    info = game.info
    if native is not None and not info.has_chance:
        root = game.initial_state() if root_state is None else root_state
        found = native.playouts(root, count, seed, max_plies, len(info.players))
        if found is not None:
            return found
    return playouts_python(game, count, seed, max_plies, root_state)
