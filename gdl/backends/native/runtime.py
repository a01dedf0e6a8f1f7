"""A native game library at run time: ctypes calls into the generated C, with plain Python results.

``NativeRules`` wraps one loaded library. Every call returns ``None`` when the native code met a
rule error, a 64-bit overflow or a line deeper than its limit: the caller then does the same work
in the Python tier, which reports the error located or computes with unbounded integers (see
gdl/backends/native/emit.py). States go in and out as the flat tuples of gdl.lang.ir.
"""

from __future__ import annotations

import ctypes
import threading

V = ctypes.c_longlong
MAX_PLY = 1024          # as search.c: a deeper principal variation cannot occur
# gdl_alphabeta's switches (search.c SWITCH_*)
SWITCH_TABLE, SWITCH_ORDERING, SWITCH_PVS, SWITCH_OPTIMAL_SET = 1, 2, 4, 8


def interruptible(library: ctypes.CDLL, call):
    """``call()`` (a long native search) in a worker thread, so that Ctrl-C reaches this one: the
    search is then told to stop (``gdl_stop``), finishes within a few thousand nodes, frees its
    memory, and KeyboardInterrupt goes on up. ctypes releases the GIL during the call.

    Any exception raised here while waiting (a mutant's time limit, gdl.tools.mutate.OutOfTime,
    as well as Ctrl-C) stops the search the same way: a search left running in the background
    would go on writing into the library's tables while the next call uses them. The worker's end
    is an Event of its own, not ``Thread.join``: an exception raised inside ``join`` makes
    Python 3.11 mark a thread that is still running as stopped (``lock.locked()`` in
    ``_wait_for_tstate_lock`` is the worker's own lock)."""
    result: list = []
    finished = threading.Event()

    def work():
        try:
            result.append(call())
        finally:
            finished.set()

    worker = threading.Thread(target=work, daemon=True)
    library.gdl_go()
    worker.start()
    try:
        while not finished.wait(0.05):
            pass
    except BaseException:
        library.gdl_stop()
        while not finished.is_set():
            try:
                finished.wait(0.05)
            except KeyboardInterrupt:   # a second Ctrl-C: the search is stopping already
                pass
        library.gdl_go()
        raise
    return result[0]


class NativeRules:
    def __init__(self, library: ctypes.CDLL):
        self.library = library
        self.stopped = False    # did the last whole search stop (a rule error, an overflow)?
        self.cells = library.gdl_cells()
        self.actions = library.gdl_actions()
        library.gdl_hash.restype = ctypes.c_int64
        library.gdl_playouts.argtypes = [ctypes.POINTER(V), ctypes.c_longlong, ctypes.c_uint64,
                                         ctypes.c_longlong, ctypes.POINTER(V),
                                         ctypes.POINTER(ctypes.c_longlong)]

    def _state(self, state) -> ctypes.Array:
        if len(state) != self.cells:
            raise ValueError("a state of another layout (pending chance?) for the native rules")
        return (V * self.cells)(*(int(v) for v in state))

    # -- one step of the protocol (the agreement tests compare these with the Python tier)
    def current_player(self, state) -> int | None:
        player = ctypes.c_int()
        return None if self.library.gdl_current(self._state(state), ctypes.byref(player)) else player.value

    def legal_actions(self, state) -> list[int] | None:
        out, count = (ctypes.c_int * self.actions)(), ctypes.c_int()
        if self.library.gdl_legal(self._state(state), out, ctypes.byref(count)):
            return None
        return list(out[:count.value])

    def apply(self, state, action: int) -> tuple[int, ...] | None:
        out = (V * self.cells)()
        if self.library.gdl_apply(self._state(state), action, out):
            return None
        return tuple(out)

    def returns(self, state, players: int) -> tuple[int, ...] | None:
        out = (V * max(1, players))()
        return None if self.library.gdl_returns(self._state(state), out) else tuple(out[:players])

    def graph_expander(self, game, wide: bool = False):
        """The strong solver's passes over packed positions for ``game`` (a NativeExpander of
        gdl.backends.native.graph), or a string: why there are none. ``wide``: also where the
        states pass a 63-bit key (the ranked tables' passes only)."""
        from gdl.backends.native.graph import expander_for

        return expander_for(game, wide)

    def chance_graph(self, game):
        """The tiered solve's passes over byte keys, chance included, and the solve of a tier
        with chance and cycles (a ChanceGraph of gdl.backends.native.chance_graph), or a
        string: why there are none."""
        from gdl.backends.native.chance_graph import chance_graph_for

        return chance_graph_for(game)

    # -- whole searches
    def minimax(self, state, depth: int | None) -> dict | None:
        """Plain minimax from ``state``: player 0's value, the root's actions with their values
        for player 0, the principal variation and the counters; None if the search stopped."""
        value = V()
        root_actions, root_values = (ctypes.c_int * self.actions)(), (V * self.actions)()
        root_count, pv, pv_len = ctypes.c_int(), (ctypes.c_int * MAX_PLY)(), ctypes.c_int()
        stats = (ctypes.c_longlong * 3)()
        root = self._state(state)
        failed = interruptible(self.library, lambda: self.library.gdl_minimax(
            root, -1 if depth is None else depth, ctypes.byref(value), root_actions,
            root_values, ctypes.byref(root_count), pv, ctypes.byref(pv_len), stats))
        self.stopped = bool(failed)
        if failed:
            return None
        count = root_count.value
        return {"value": value.value, "root": list(zip(root_actions[:count], root_values[:count])),
                "pv": list(pv[:pv_len.value]), "nodes": stats[0], "leaves": stats[1],
                "evaluations": stats[2]}

    def expectiminimax(self, state, depth: int | None) -> dict | None:
        """gdl.solvers.expectiminimax (no table) from a decision or terminal ``state``: player
        0's value and the root's actions with theirs as (numerator, denominator, came through
        chance), the principal variation and the counters; None if the search stopped."""
        return self._exact_search(state, 3, lambda root, depth_arg, *outputs:
                                  self.library.gdl_expectiminimax(root, depth_arg, *outputs),
                                  depth)

    def star(self, state, depth: int | None, probing: bool, total: int, window: tuple[int, int],
             bounds: tuple[int, int]) -> dict | None:
        """gdl.solvers.star's Star1 (or Star2 with ``probing``), no table, from a decision or
        terminal ``state``: as ``expectiminimax``, plus the cut-offs. ``window`` is (L, U), the
        range of either player's value (L < U); ``bounds`` the declared utility bounds, which
        every leaf must keep (else the search stops and the Python tier reports it)."""
        (low, high), (lo, hi) = window, bounds
        settings = [V(v) for v in (total, low, high, lo, hi)]
        return self._exact_search(state, 4, lambda root, depth_arg, *outputs:
                                  self.library.gdl_star(root, depth_arg, 1 if probing else 0,
                                                        *settings, *outputs),
                                  depth)

    def _exact_search(self, state, counters: int, call, depth: int | None) -> dict | None:
        """A search with exact chance values (gdl_expectiminimax's outputs): ``call(root, depth,
        value, root_actions, root_values, root_fracs, root_count, pv, pv_len, stats)``."""
        if len(state) != self.cells:
            self.stopped = False
            return None         # a chance state at the root: the Python tier
        value = (V * 3)()
        root_actions, root_values = (ctypes.c_int * self.actions)(), (V * (2 * self.actions))()
        root_fracs = (ctypes.c_int * self.actions)()
        root_count, pv, pv_len = ctypes.c_int(), (ctypes.c_int * MAX_PLY)(), ctypes.c_int()
        stats = (ctypes.c_longlong * counters)()
        root = self._state(state)
        failed = interruptible(self.library, lambda: call(
            root, -1 if depth is None else depth, value, root_actions, root_values, root_fracs,
            ctypes.byref(root_count), pv, ctypes.byref(pv_len), stats))
        self.stopped = bool(failed)
        if failed:
            return None
        count = root_count.value
        found = {"value": (value[0], value[1], bool(value[2])),
                 "root": [(root_actions[i], (root_values[2 * i], root_values[2 * i + 1],
                                             bool(root_fracs[i]))) for i in range(count)],
                 "pv": list(pv[:pv_len.value]), "nodes": stats[0], "leaves": stats[1],
                 "evaluations": stats[2]}
        if counters > 3:
            found["cutoffs"] = stats[3]
        return found

    def maxn(self, state, depth: int | None, players: int,
             pruning: tuple[int, int, int] | None) -> dict | None:
        """gdl.solvers.maxn (no table, no chance): the root vector, the root's actions with
        theirs, the principal variation and the counters; ``pruning`` is (S, low, high) for
        shallow pruning. None if the search stopped."""
        value = (V * players)()
        root_actions, root_values = (ctypes.c_int * self.actions)(), (V * (players * self.actions))()
        root_count, pv, pv_len = ctypes.c_int(), (ctypes.c_int * MAX_PLY)(), ctypes.c_int()
        stats = (ctypes.c_longlong * 4)()
        total, low, high = pruning or (0, 0, 0)
        root = self._state(state)
        failed = interruptible(self.library, lambda: self.library.gdl_maxn(
            root, -1 if depth is None else depth, 1 if pruning else 0, V(total), V(low), V(high),
            value, root_actions, root_values, ctypes.byref(root_count), pv, ctypes.byref(pv_len),
            stats))
        self.stopped = bool(failed)
        if failed:
            return None
        count = root_count.value
        return {"value": tuple(value), "pv": list(pv[:pv_len.value]),
                "root": [(root_actions[i], tuple(root_values[i * players:(i + 1) * players]))
                         for i in range(count)],
                "nodes": stats[0], "leaves": stats[1], "evaluations": stats[2],
                "cutoffs": stats[3]}

    def hash(self, state) -> int:
        """Python's hash of the state tuple, computed in C (the table's buckets depend on it)."""
        return self.library.gdl_hash(self._state(state))

    def alphabeta(self, state, depth: int | None, tt_size: int,
                  evaluation_plies: int | None, *, table: bool = True, ordering: bool = True,
                  pvs: bool = True, optimal_set: bool = True) -> dict | None:
        """gdl.solvers.alphabeta with its exact defaults (table, ordering, PVS, ordering by the
        root's order from ``evaluation_plies`` on, None: never), each of the four switches as
        its SearchOptions field: player 0's value, the optimal root actions (declaration
        order; without ``optimal_set`` the one found), the principal variation and the
        counters; None if the search stopped."""
        switches = ((SWITCH_TABLE if table else 0) | (SWITCH_ORDERING if ordering else 0)
                    | (SWITCH_PVS if pvs else 0) | (SWITCH_OPTIMAL_SET if optimal_set else 0))
        value = V()
        best_flags, legal_count = (ctypes.c_int * self.actions)(), ctypes.c_int()
        pv, pv_len = (ctypes.c_int * MAX_PLY)(), ctypes.c_int()
        stats = (ctypes.c_longlong * 10)()
        root = self._state(state)
        failed = interruptible(self.library, lambda: self.library.gdl_alphabeta(
            root, -1 if depth is None else depth, ctypes.c_longlong(tt_size),
            -1 if evaluation_plies is None else evaluation_plies, switches, ctypes.byref(value),
            best_flags,
            ctypes.byref(legal_count), pv, ctypes.byref(pv_len), stats))
        self.stopped = bool(failed)
        if failed:
            return None
        names = ("nodes", "leaves", "cutoffs", "probes", "hits", "researches", "max_ply", "used",
                 "replaced", "proven")
        return {"value": value.value, "best_flags": list(best_flags[:legal_count.value]),
                "pv": list(pv[:pv_len.value]), **dict(zip(names, stats))}

    def find_cycle(self, state, limit: int) -> tuple[list[int], int] | bool | None:
        """gdl.tools.count.find_cycle from ``state`` in C (a game without chance): (the actions
        from ``state`` round the first cycle met, where the cycle starts) or False (no cycle, or
        more than ``limit`` states); None on a rule error (the Python walk reports it)."""
        path = (ctypes.c_int * (limit + 2))()
        length, start, found = ctypes.c_longlong(), ctypes.c_longlong(), ctypes.c_int()
        root = self._state(state)
        if interruptible(self.library, lambda: self.library.gdl_find_cycle(
                root, ctypes.c_longlong(limit), path, ctypes.byref(length), ctypes.byref(start),
                ctypes.byref(found))):
            return None
        return (list(path[:length.value]), start.value) if found.value else False

    def playouts(self, state, count: int, seed: int, max_plies: int, players: int) -> dict | None:
        """``count`` random playouts (gdl.backends.native.playouts): utility sums and plies."""
        sums, stats = (V * max(1, players))(), (ctypes.c_longlong * 1)()
        root = self._state(state)
        if interruptible(self.library, lambda: self.library.gdl_playouts(
                root, count, seed & (2 ** 64 - 1), max_plies, sums, stats)):
            return None
        return {"sums": tuple(sums[:players]), "plies": stats[0]}
