"""A tiered solve's keys, and the tier of a state (the lowest room of gdl.graph.tiers).

Keys are ``bytes([len(state)]) + bytes(state)``: the database's "u8v" order, which is "u8"'s when
every state has the same length. Sorted key arrays are searched among numbers where keys are
at most 8 bytes long (``search_keys``). A state's tier is the game's declared ``tier`` or a
``ComponentTier`` inferred from a sample of its moves (``infer_tier``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gdl.protocol import CHANCE, TERMINAL
from gdl.solvers.result import SolverError


def key_of(state) -> bytes:
    """A state's key: its length, then its components as bytes."""
    try:
        if type(state) is not tuple or len(state) > 255:
            raise ValueError
        return bytes([len(state)]) + bytes(state)
    except (TypeError, ValueError):
        raise SolverError("a tiered solve needs states that are tuples of integers 0..255 "
                          f"(met {state!r}); solve without --workers") from None


def state_of(key: bytes) -> tuple:
    """The state of a key (numpy drops trailing zero bytes: they are put back)."""
    key = bytes(key)
    if not key:
        return ()
    n = key[0]
    body = tuple(key[1:1 + n])
    return body + (0,) * (n - len(body))


def keys_array(keys) -> np.ndarray:
    return np.array(keys, dtype="S") if len(keys) else np.zeros(0, "S1")


# ---- the tier of a state -----------------------------------------------------------------------

@dataclass(frozen=True)
class ComponentTier:
    """A tier read off the state: the sum of the components that only grow minus the sum of
    those that only shrink (none: one tier)."""

    growing: tuple[int, ...]
    shrinking: tuple[int, ...] = ()

    def __call__(self, state) -> int:
        return sum(state[i] for i in self.growing) - sum(state[i] for i in self.shrinking)


ONE_TIER = ComponentTier(())
# Positions the inference looks at: enough to see most moves of a small game, a second or so.
INFER_SAMPLE = 20_000


def tier_function(game, tier: ComponentTier | None) -> Callable[[Any], int]:
    """``tier`` when given, else the game's declared tier."""
    if tier is not None:
        return tier
    declared = getattr(game, "tier", None)
    return declared if declared is not None else ONE_TIER


def infer_tier(game, sample: int | None = None) -> ComponentTier:
    """A tier for a game that declares none, from the integer state components that change
    along the moves of the first ``sample`` positions (breadth-first): those that only go up
    count for, those that only go down (a heap, an empty cell filling up) against. It is a guess
    from a sample: the forward pass checks every move, and where one lowers the tier the solve
    falls back to one tier."""
    sample = INFER_SAMPLE if sample is None else sample
    root = game.initial_state()
    if type(root) is not tuple:
        return ONE_TIER
    width = len(root)
    lowered: set[int] = set()
    raised: set[int] = set()
    mixed: set[int] = set()
    seen = {root}
    queue = [root]
    for state in queue:
        if len(seen) >= sample:
            break
        player = game.current_player(state)
        if player == TERMINAL:
            continue
        moves = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                 else game.legal_actions(state))
        for move in moves:
            child = game.apply(state, move)
            if type(child) is not tuple:
                return ONE_TIER
            width = min(width, len(child))
            for i in range(min(len(state), len(child))):
                a, b = state[i], child[i]
                if type(a) is not int or type(b) is not int:
                    mixed.add(i)
                elif b < a:
                    lowered.add(i)
                elif b > a:
                    raised.add(i)
            if child not in seen:
                seen.add(child)
                queue.append(child)
    mixed |= raised & lowered
    return ComponentTier(tuple(sorted(i for i in raised - mixed if i < width)),
                         tuple(sorted(i for i in lowered - mixed if i < width)))


def key_numbers(keys: np.ndarray) -> np.ndarray | None:
    """Byte keys of at most 8 bytes as uint64s in the same order (their bytes read as one
    big-endian number, zeros after: numpy compares byte keys padded with zeros), or None for
    longer keys. A binary search among numbers costs far less than among byte strings."""
    if not isinstance(keys, np.ndarray) or keys.dtype.kind != "S" or keys.dtype.itemsize > 8:
        return None
    width = keys.dtype.itemsize
    padded = np.zeros((len(keys), 8), dtype=np.uint8)
    if width:
        padded[:, :width] = np.ascontiguousarray(keys).view(np.uint8).reshape(len(keys), width)
    return padded.view(">u8").reshape(len(keys)).astype(np.uint64)


def search_keys(sorted_keys: np.ndarray, keys: np.ndarray,
                sorted_numbers: np.ndarray | None = None) -> np.ndarray:
    """``np.searchsorted(sorted_keys, keys)`` for byte keys, among numbers where both are at
    most 8 bytes long (``sorted_numbers``: ``key_numbers(sorted_keys)``, when made already)."""
    numbers = key_numbers(keys)
    if numbers is not None:
        if sorted_numbers is None:
            sorted_numbers = key_numbers(sorted_keys)
        if sorted_numbers is not None:
            return np.searchsorted(sorted_numbers, numbers)
    return np.searchsorted(sorted_keys, keys)
