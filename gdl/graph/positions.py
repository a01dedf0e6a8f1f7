"""Every reachable position of a game, numbered densely, with its moves as integer arrays.

``enumerate_positions(game)`` walks the game breadth-first from its initial state and returns
a ``PositionGraph``. A game with native rules (``backend="native"``) is walked in C over packed
64-bit keys (gdl.graph.packed), a chance game over byte keys (gdl.graph.byte_walk, numbered as
the protocol walk numbers them); any other game, or one the native walks cannot take (states
beyond 63 bits or a byte a component, a rule error), through the protocol, and
``stats["enumeration_note"]`` says why in one line. All give the same positions, moves and
returns; only the numbering of the packed walk differs:

- position ``i`` (0 is the initial state; the others follow discovery order in the protocol
  walk, increasing key order — the order of the states — in the native one, so ids are
  deterministic) has ``player[i]``: a player index, ``CHANCE`` or ``TERMINAL``;
- its moves are the edges ``first[i] .. first[i + 1] - 1``, in the order the game lists them
  (declaration order for legal actions, the game's order for chance outcomes), and edge ``e``
  leads to position ``child[e]``; two actions reaching the same position are two edges;
- a chance edge has probability ``probabilities[probability_index[e]]`` (exact ``Fraction``s,
  each distinct one stored once);
- a terminal position has returns ``returns_table[returns_index[i]]`` (distinct vectors once).

Positions are kept as their keys. In the protocol walk: ``bytes(state)`` when the states are
tuples of ints in 0..255 (what the compiled and interpreted rule files produce: 20-odd bytes a
position instead of a tuple's 200), else the states themselves, with a dict ``key -> id``. In
the native walk: a uint64 array of packed keys (``expander.codec`` encodes and decodes), looked
up by binary search, no dict. ``position_id(state)`` looks a state up either way.

The walk refuses, with ``TooManyPositions``, a game with more than ``max_states`` positions
(by default what fits in this machine's memory), and calls ``progress(done, found)`` every
65,536 positions so a command line can show where it is.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from inspect import getattr_static
from typing import Any

import numpy as np

from gdl.graph.byte_walk import byte_positions, chance_passes
from gdl.graph.packed import NoNativeWalk, lookup, packed_positions
from gdl.protocol import CHANCE, TERMINAL, chance_outcomes, native_rules, no_legal_actions
from gdl.solvers.result import SolverError

# Bytes a position costs at peak (enumerating and solving, the interpreter included), measured
# on Connect Four 5x4 (benchmarks/graph.py): the protocol walk (a bytes key and a dict entry a
# position) and the native walk (gdl.graph.packed: packed keys and numpy arrays). The default
# bound keeps the whole solve within half of the memory available.
BYTES_PER_POSITION = 250
NATIVE_BYTES_PER_POSITION = 56
FALLBACK_MAX_STATES = 10_000_000
PROGRESS_EVERY = 1 << 16


class TooManyPositions(SolverError):
    """The game has more reachable positions than the bound allows."""


def default_max_states(bytes_per_position: int = BYTES_PER_POSITION) -> int:
    """How many positions fit in half of this machine's available memory (Linux), else 10M."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    return max(100_000, available // 2 // bytes_per_position)
    except (OSError, ValueError, IndexError):
        pass
    return FALLBACK_MAX_STATES


@dataclass
class PositionGraph:
    """The reachable state graph of one game (see the module docstring)."""

    game: Any
    keys: list | np.ndarray         # position id -> key (bytes(state), the state, a packed int)
    index: dict                     # key -> position id
    packed: bool                    # keys are bytes(state)
    player: np.ndarray              # int8: player index, CHANCE or TERMINAL
    first: np.ndarray               # int64, n + 1 edge offsets
    child: np.ndarray               # int64 (int32 when it fits), one per edge
    probability_index: np.ndarray | None   # per edge, into `probabilities` (chance games only)
    probabilities: list[Fraction]
    returns_index: np.ndarray       # int32 per position, -1 where not terminal
    returns_table: list[tuple]
    stats: dict = field(default_factory=dict)
    expander: Any = None            # the native expander whose packed int keys `keys` holds

    @property
    def codec(self):
        return None if self.expander is None else self.expander.codec


    def __len__(self) -> int:
        return len(self.keys)

    @property
    def edges(self) -> int:
        return len(self.child)

    def state(self, position: int):
        key = self.keys[position]
        if self.codec is not None:
            return self.codec.decode(int(key))
        return tuple(key) if self.packed else key

    def position_id(self, state) -> int | None:
        """The id of a state, or None if it is not reachable (or not a state of this game)."""
        try:
            if self.codec is not None:
                packed_key = self.codec.encode(tuple(state))
                return None if packed_key is None else lookup(np.asarray(self.keys), packed_key)
            key = bytes(state) if self.packed else state
            return self.index.get(key)
        except (TypeError, ValueError):
            return None

    def children(self, position: int) -> np.ndarray:
        return self.child[self.first[position]:self.first[position + 1]]

    def returns(self, position: int) -> tuple:
        return self.returns_table[self.returns_index[position]]

    def census(self) -> dict[str, int]:
        terminal = int(np.count_nonzero(self.player == TERMINAL))
        chance = int(np.count_nonzero(self.player == CHANCE))
        return {"positions": len(self), "terminal": terminal, "chance": chance,
                "decision": len(self) - terminal - chance, "edges": self.edges}


def _packable(state) -> bool:
    try:
        return type(state) is tuple and tuple(bytes(state)) == state
    except (TypeError, ValueError):
        return False


class _Unpackable(Exception):
    """A state met during the walk does not fit in bytes: walk again with the states as keys."""


def enumerate_positions(game, *, max_states: int | None = None,
                        progress: Callable[[int, int], None] | None = None) -> PositionGraph:
    """Every position reachable from ``game.initial_state()`` (see the module docstring)."""
    expander = native_expander(game)
    if isinstance(expander, str):
        note = expander
    else:
        bound = min(max_states or default_max_states(NATIVE_BYTES_PER_POSITION), 2**31 - 1)
        try:
            return packed_positions(game, expander, bound, progress,
                                    lambda: _too_many(game, bound))
        except NoNativeWalk as why:
            note = f"the native walk stopped: {why}"
    if max_states is None:
        max_states = default_max_states()
    max_states = min(max_states, 2**31 - 1)     # position ids are 32-bit
    passes = chance_passes(game)
    if passes is not None:
        graph = byte_positions(game, passes, max_states, progress,
                               lambda: _too_many(game, max_states))
        if graph is not None:
            return graph
    root = game.initial_state()
    graph = None
    if _packable(root):
        try:
            graph = _walk(game, root, True, max_states, progress)
        except _Unpackable:
            pass
    if graph is None:
        graph = _walk(game, root, False, max_states, progress)
    graph.stats["enumeration"] = "protocol"
    reason = note.removeprefix("note: ")
    graph.stats["enumeration_note"] = f"note: positions walked through the protocol: {reason}"
    return graph


def native_expander(game, wide: bool = False):
    """The game's packed-key expander (gdl/backends/native/graph.py states its contract), or
    the one-line reason it has none. Found through the game object: gdl.graph imports no back
    end. ``wide``: also where the states pass a 63-bit key (``keyed`` False: the ranked
    tables' passes only)."""
    # Looked up statically: asking a compiled game for an attribute it lacks builds the
    # reference interpreter (gdl.backends.runtime), which costs more than a small game's solve.
    if getattr_static(game, "backend", None) != "native":
        return (getattr_static(game, "native_note", None)
                or "the game has no native rules (backend 'native' gives them)")
    rules = native_rules(game)
    if rules is None:
        return getattr(game, "native_note", None) or "the game has no native rules"
    return rules.graph_expander(game, wide)


def _too_many(game, max_states: int) -> TooManyPositions:
    return TooManyPositions(f"game {game.info.name!r} has more than {max_states:,} reachable "
                            "positions; raise --max-states if the machine has the memory")


def _walk(game, root, packed: bool, max_states: int, progress) -> PositionGraph:
    current_player, legal, apply = game.current_player, game.legal_actions, game.apply
    returns = game.returns
    key_of = bytes if packed else (lambda s: s)
    keys: list = [key_of(root)]
    index = {keys[0]: 0}
    players = array("b")
    first = array("q", [0])
    child = array("i")             # 4 bytes a move (ids below 2^31: see the bound below)
    probability_index = array("i")
    probability_ids: dict = {}
    returns_index = array("i")
    returns_ids: dict = {}
    has_chance = game.info.has_chance
    by_identity: dict[int, int] = {}
    held: list = []
    checked: set = set()
    position = 0
    while position < len(keys):
        key = keys[position]
        state = tuple(key) if packed else key
        player = current_player(state)
        if player == TERMINAL:
            values = tuple(returns(state))
            returns_index.append(returns_ids.setdefault(values, len(returns_ids)))
            successors: list = []
        else:
            returns_index.append(-1)
            if player == CHANCE:
                if not has_chance:
                    raise SolverError(f"game {game.info.name!r} reached a chance state although "
                                      "its info declares no chance")
                pairs = game.chance_outcomes(state)
                signature = tuple(id(p) for _, p in pairs)
                if signature not in checked:    # exact, summing to 1 (the tree solvers' check)
                    chance_outcomes(game, state)
                    checked.add(signature)
                    held.append(pairs)
                successors = [apply(state, outcome) for outcome, _ in pairs]
                for _, p in pairs:
                    # by identity first: compiled games hand out the same Fraction objects, and
                    # hashing a Fraction costs more than the rest of the step (each object is
                    # kept in `held`, so its id cannot be reused by another)
                    found = by_identity.get(id(p))
                    if found is None:
                        found = probability_ids.setdefault(Fraction(p), len(probability_ids))
                        by_identity[id(p)] = found
                        held.append(p)
                    probability_index.append(found)
            else:
                actions = legal(state)
                if not actions:
                    raise no_legal_actions(game, state)
                successors = [apply(state, action) for action in actions]
                if has_chance:
                    probability_index.extend([-1] * len(successors))
        players.append(player)
        for successor in successors:
            try:
                successor_key = key_of(successor)
            except (TypeError, ValueError):
                raise _Unpackable() from None
            found = index.get(successor_key)
            if found is None:
                found = len(keys)
                if found >= max_states:
                    raise _too_many(game, max_states)
                index[successor_key] = found
                keys.append(successor_key)
            child.append(found)
        first.append(len(child))
        position += 1
        if progress is not None and position % PROGRESS_EVERY == 0:
            progress(position, len(keys))
    # numpy views of the arrays (no copies: the arrays are not resized any more)
    def view(items: array, dtype) -> np.ndarray:
        return np.frombuffer(items, dtype=dtype) if len(items) else np.zeros(0, dtype)

    return PositionGraph(
        game=game, keys=keys, index=index, packed=packed,
        player=view(players, np.int8), first=view(first, np.int64), child=view(child, np.int32),
        probability_index=view(probability_index, np.int32) if has_chance else None,
        probabilities=list(probability_ids),
        returns_index=view(returns_index, np.int32),
        returns_table=list(returns_ids))
