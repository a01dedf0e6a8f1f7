"""The tiered solve's native passes on byte keys, chance included (chance_graph.c).

``chance_graph_for(game)`` gives a game with native rules a ``ChanceGraph`` (or the reason it
has none). gdl.graph reaches it only through the game object (``game.native.chance_graph(game)``),
never by import. The contract:

- ``expand(keys, tier)``: the moves of the positions ``keys``, a numpy ``S`` array of the
  tiered solve's byte keys (gdl.graph.tier_keys.key_of: the state's length, then its components,
  one byte each; a chance position is the state before the action, the action and the outcomes
  so far, as in the Python tier). ``tier`` is None for the declared tier, else ``(growing
  cells, shrinking cells)`` (an inferred tier; ``((), ())``: every position in tier 0). Returns
  ``ByteExpansion`` (the moves in the order of the legal actions, or of the distribution at a
  chance position), or None after a rule error or a state the byte keys cannot hold: the
  caller then expands through the protocol, which reports it located.
- ``layout(n, first, child)``: a chance tier's pieces (weakly connected components over the
  moves inside it, each named by its smallest position) and each position's breadth-first
  level inside its piece: the numbers of gdl.graph.chance_tiers's numpy passes.
- ``has_cycle(first, child)``: whether a graph has a cycle.
- ``endless(player, first, child)``: how many positions the players together can keep the
  play going for ever from (gdl.graph.iteration.endless_positions's count).
- ``pieces(...)``: each piece's certified interval (see ``gdl_chance_pieces`` in the C).
- ``graph_guess(...)``: a whole position graph's values guessed in floats, component by
  component, and the order its exact check may follow (see ``gdl_chance_graph_guess``).
- ``first_use(rows)``: the distinct rows of a table of 8-byte items, by their bits, in order
  of first use (a hash set: the merge of Pig to 100's two million float values).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from gdl.backends.native.runtime import interruptible

BATCH_EDGES = 1 << 18       # moves an expand call writes at most

_i64p = ctypes.POINTER(ctypes.c_longlong)
_void = ctypes.c_void_p


@dataclass
class ByteExpansion:
    player: np.ndarray          # int8 per position: a player, -1 chance, -2 terminal
    count: np.ndarray           # int64 per position
    returns: np.ndarray         # int64, n x players (zeros unless terminal)
    child: np.ndarray           # uint8, moves x width: each child's key row, zero-padded
    length: np.ndarray          # int32 per move: the row's length (1 + components)
    tier: np.ndarray            # int64 per move: the child's tier
    numerator: np.ndarray       # int64 per move: its probability (0 / 0 for a decision's)
    denominator: np.ndarray


@dataclass
class GraphGuess:
    value: np.ndarray           # float64 per position: player 0's centred value, guessed
    # the non-terminal positions component by component (strongly connected, sinks first):
    # component c is sequence[component_first[c]:component_first[c + 1]], there its positions
    # other than its cut children first, then its cuts[c] cut positions (every cycle of the
    # component passes through them); cuts[c] == -1: no such order was found
    sequence: np.ndarray
    component_first: np.ndarray
    cuts: np.ndarray


@dataclass
class PiecesSolved:
    low: np.ndarray             # float64 per tier position (set at the pieces' members)
    high: np.ndarray
    sweeps: np.ndarray          # int64 per piece
    fast: np.ndarray            # bool per piece: the policy and the certificate (else plain)
    # per piece that took the fast way, the order an exact check may follow: its movers other
    # than the cut, children first (`tops` of them), then its cut (`cuts`), at the piece's
    # offset from the first piece's in `sequence` (tier positions)
    sequence: np.ndarray
    tops: np.ndarray
    cuts: np.ndarray


def chance_graph_for(game) -> ChanceGraph | str:
    """The byte-key passes of a loaded game with native rules, or why there are none."""
    native = getattr(game, "native", None)
    if native is None:
        return getattr(game, "native_note", None) or "the game has no native rules"
    library = native.library
    if not hasattr(library, "gdl_bytes_expand"):
        return "the native library predates the byte-key passes"
    return ChanceGraph(library, library.gdl_players(), bool(game.info.has_chance),
                       getattr(game, "tier", None) is not None)


def _pointer(array: np.ndarray) -> int:
    return array.ctypes.data


class ChanceGraph:
    """Byte keys expanded, and chance tiers solved, by the generated C (module docstring)."""

    def __init__(self, library: ctypes.CDLL, players: int, has_chance: bool, declares_tier: bool):
        self.library, self.players = library, players
        self.has_chance, self.declares_tier = has_chance, declares_tier
        self.width = library.gdl_bytes_width()
        library.gdl_bytes_expand.restype = ctypes.c_longlong
        library.gdl_bytes_expand.argtypes = [
            _void, ctypes.c_longlong, ctypes.c_int, _void, ctypes.c_int, ctypes.c_int, _void,
            _void, _void, _void, ctypes.c_int, ctypes.c_longlong, _void, _void, _void, _void]
        library.gdl_first_use_rows.restype = ctypes.c_longlong
        library.gdl_first_use_rows.argtypes = [_void, ctypes.c_longlong, ctypes.c_int, _void,
                                               _void]
        if has_chance:
            library.gdl_chance_layout.argtypes = [ctypes.c_longlong, _void, _void, _void, _void]
            library.gdl_chance_has_cycle.argtypes = [ctypes.c_longlong, _void, _void]
            library.gdl_chance_endless.restype = ctypes.c_longlong
            library.gdl_chance_endless.argtypes = [ctypes.c_longlong, _void, _void, _void]
            library.gdl_chance_pieces.argtypes = [
                ctypes.c_longlong, _void, _void, _void, _void, _void, _void, _void, _void, _void,
                ctypes.c_longlong, ctypes.c_longlong, ctypes.c_double, ctypes.c_double,
                ctypes.c_double, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_double,
                ctypes.c_int, ctypes.c_double, ctypes.c_longlong, _void, _void, _void, _void,
                _void, _void, _void]
            library.gdl_chance_graph_guess.argtypes = [
                ctypes.c_longlong, _void, _void, _void, _void, _void, ctypes.c_int, ctypes.c_int,
                ctypes.c_double, ctypes.c_longlong, _void, _void, _void, _void]

    # -- byte keys
    def expand(self, keys: np.ndarray, tier=None) -> ByteExpansion | None:
        if not isinstance(keys, np.ndarray) or keys.dtype.kind != "S" or keys.ndim != 1:
            return None
        n = len(keys)
        width = max(1, keys.dtype.itemsize)
        rows = np.ascontiguousarray(keys).view(np.uint8).reshape(n, keys.dtype.itemsize)
        if keys.dtype.itemsize == 0:
            rows = np.zeros((n, 1), dtype=np.uint8)
        if tier is None and not self.declares_tier:
            tier = ((), ())
        if tier is None:
            cells, nplus, nminus = np.zeros(1, dtype=np.int32), -1, 0
        else:
            growing, shrinking = tier
            cells = np.array([*growing, *shrinking, 0], dtype=np.int32)
            nplus, nminus = len(growing), len(shrinking)
        player = np.empty(n, dtype=np.int8)
        count = np.empty(n, dtype=np.int64)
        returns = np.empty((n, max(1, self.players)), dtype=np.int64)
        parts: list[tuple] = []
        # room for the moves of a batch, grown when one position has more (a small batch, a
        # forward round, allocates little: page faults cost more than the expansion)
        capacity = max(256, min(BATCH_EDGES, 8 * n))
        done = 0
        while done < n:
            child = np.empty((capacity, self.width), dtype=np.uint8)
            length = np.empty(capacity, dtype=np.int32)
            tiers = np.empty(capacity, dtype=np.int64)
            numerator = np.empty(capacity, dtype=np.int64)
            denominator = np.empty(capacity, dtype=np.int64)
            expanded = self.library.gdl_bytes_expand(
                _pointer(rows[done:]), n - done, width, _pointer(cells), nplus, nminus,
                _pointer(player[done:]), _pointer(count[done:]), _pointer(returns[done:]),
                _pointer(child), self.width, capacity, _pointer(length), _pointer(tiers),
                _pointer(numerator), _pointer(denominator))
            if expanded < 0:
                return None
            if expanded == 0:
                capacity *= 2              # one position with more moves than a batch holds
                continue
            used = int(count[done:done + expanded].sum())
            parts.append((child[:used], length[:used], tiers[:used], numerator[:used],
                          denominator[:used]))
            done += expanded
        joined = [np.concatenate([part[i] for part in parts]) if parts else
                  np.zeros((0, self.width) if i == 0 else 0,
                           dtype=(np.uint8, np.int32, np.int64, np.int64, np.int64)[i])
                  for i in range(5)]
        return ByteExpansion(player, count, returns[:, :self.players], *joined)

    def first_use(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows of a 2-D array of 8-byte items (compared by their bits), in
        order of first use: ``(first, group)``, each distinct row's first index and each row's
        number among them."""
        rows = np.ascontiguousarray(rows)
        n = len(rows)
        width = rows.shape[1] if rows.ndim == 2 else 1
        assert rows.dtype.itemsize == 8
        group = np.empty(n, dtype=np.int64)
        first = np.empty(max(1, n), dtype=np.int64)
        count = self.library.gdl_first_use_rows(_pointer(rows), n, width, _pointer(group),
                                                _pointer(first))
        if count < 0:
            raise MemoryError("no memory to tell a table's rows apart")
        return first[:count], group

    # -- a tier with chance and cycles
    def layout(self, n: int, first: np.ndarray, child: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(label, level)`` of the tier's positions 0..n-1 (``child`` >= n: a move leaving)."""
        first = np.ascontiguousarray(first, dtype=np.int64)
        child = np.ascontiguousarray(child, dtype=np.int64)
        label = np.empty(n, dtype=np.int64)
        level = np.empty(n, dtype=np.int64)
        if self.library.gdl_chance_layout(n, _pointer(first), _pointer(child), _pointer(label),
                                          _pointer(level)):
            raise MemoryError("no memory for a chance tier's pieces")
        return label, level

    def has_cycle(self, first: np.ndarray, child: np.ndarray) -> bool:
        first = np.ascontiguousarray(first, dtype=np.int64)
        child = np.ascontiguousarray(child, dtype=np.int64)
        status = self.library.gdl_chance_has_cycle(len(first) - 1, _pointer(first),
                                                   _pointer(child))
        if status < 0:
            raise MemoryError("no memory for a chance tier's order")
        return bool(status)

    def endless(self, player: np.ndarray, first: np.ndarray, child: np.ndarray) -> int:
        """How many positions the players together can keep the play going for ever from."""
        player = np.ascontiguousarray(player, dtype=np.int8)
        first = np.ascontiguousarray(first, dtype=np.int64)
        child = np.ascontiguousarray(child, dtype=np.int64)
        count = self.library.gdl_chance_endless(len(player), _pointer(player), _pointer(first),
                                                _pointer(child))
        if count < 0:
            raise MemoryError("no memory for a chance tier's ends")
        return int(count)

    def pieces(self, arrays: dict, start: int, stop: int, limits: tuple, settings: tuple
               ) -> PiecesSolved:
        """Certified bounds of the pieces ``start..stop`` of a tier: ``arrays`` holds its
        ``player, first, child, weight, low, high, level, order, piece_first``; ``limits``
        ``(floor, ceiling, margin)``; ``settings`` ``(max cut, policy rounds, certificate
        rounds, widening, tightening sweeps, tolerance, max sweeps)``."""
        held = {name: np.ascontiguousarray(arrays[name], dtype=dtype) for name, dtype in (
            ("player", np.int8), ("first", np.int64), ("child", np.int64),
            ("weight", np.float64), ("low", np.float64), ("high", np.float64),
            ("level", np.int64), ("order", np.int64), ("piece_first", np.int64))}
        size = len(held["player"])
        low = np.zeros(size)
        high = np.zeros(size)
        pieces = stop - start
        sweeps = np.zeros(max(1, pieces), dtype=np.int64)
        fast = np.zeros(max(1, pieces), dtype=np.int8)
        tops = np.zeros(max(1, pieces), dtype=np.int64)
        cuts = np.zeros(max(1, pieces), dtype=np.int64)
        piece_first = held["piece_first"]
        sequence = np.full(max(1, int(piece_first[stop] - piece_first[start])), -1,
                           dtype=np.int64)
        floor, ceiling, margin = limits
        max_cut, policy_rounds, certify_rounds, widen, tighten, tolerance, max_sweeps = settings
        status = interruptible(self.library, lambda: self.library.gdl_chance_pieces(
            size, *(_pointer(held[name]) for name in (
                "player", "first", "child", "weight", "low", "high", "level", "order",
                "piece_first")),
            start, stop, floor, ceiling, margin, max_cut, policy_rounds, certify_rounds, widen,
            tighten, tolerance, max_sweeps, _pointer(low), _pointer(high), _pointer(sweeps),
            _pointer(fast), _pointer(sequence), _pointer(tops), _pointer(cuts)))
        if status == -4:
            raise KeyboardInterrupt
        if status == -3:
            raise MemoryError("no memory for a chance tier's pieces")
        if status:
            raise ValueError("a piece of a chance tier has a move to a position outside it")
        return PiecesSolved(low, high, sweeps[:pieces], fast[:pieces].astype(bool), sequence,
                            tops[:pieces], cuts[:pieces])

    def graph_guess(self, player: np.ndarray, first: np.ndarray, child: np.ndarray,
                    weight: np.ndarray, terminal: np.ndarray, settings: tuple) -> GraphGuess:
        """A position graph's values guessed, and its components in the order an exact check
        may follow them (``GraphGuess``): ``weight`` each move's probability (0 for a
        decision's), ``terminal`` player 0's centred value at the terminals (read there only);
        ``settings`` ``(max cut, policy rounds, tolerance, max sweeps)``."""
        player = np.ascontiguousarray(player, dtype=np.int8)
        first = np.ascontiguousarray(first, dtype=np.int64)
        child = np.ascontiguousarray(child, dtype=np.int64)
        weight = np.ascontiguousarray(weight, dtype=np.float64)
        value = np.array(terminal, dtype=np.float64)
        size = len(player)
        sequence = np.empty(max(1, size), dtype=np.int64)
        component_first = np.zeros(size + 1, dtype=np.int64)
        cuts = np.empty(max(1, size), dtype=np.int64)
        count = ctypes.c_longlong(0)
        max_cut, policy_rounds, tolerance, max_sweeps = settings
        status = interruptible(self.library, lambda: self.library.gdl_chance_graph_guess(
            size, _pointer(player), _pointer(first), _pointer(child), _pointer(weight),
            _pointer(value), max_cut, policy_rounds, tolerance, max_sweeps, _pointer(sequence),
            _pointer(component_first), _pointer(cuts), ctypes.addressof(count)))
        if status == -4:
            raise KeyboardInterrupt
        if status:
            raise MemoryError("no memory for a chance graph's components")
        components = count.value
        end = int(component_first[components])
        return GraphGuess(value, sequence[:end], component_first[:components + 1],
                          cuts[:components])
