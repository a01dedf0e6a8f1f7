"""Expanding a batch of positions of a tiered solve: the one place the game is called.

``expand`` gives every move of a batch of keys as flat arrays (an ``Expansion``): in C where
the game's native rules can (``native_expand``), else through the protocol; the same arrays
either way. A native "expand a batch of keys" primitive can replace it here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gdl.graph.executor import game_from
from gdl.graph.tier_keys import ComponentTier, key_of, keys_array, state_of, tier_function
from gdl.protocol import CHANCE, TERMINAL, chance_outcomes, native_rules, no_legal_actions


@dataclass
class Expansion:
    """The moves of a batch of positions, flattened: position i's moves are the next
    ``count[i]`` entries of the per-move arrays."""

    player: np.ndarray               # int8 per position
    count: np.ndarray                # int64 per position
    child_key: np.ndarray            # S per move
    child_tier: np.ndarray           # int64 per move
    probability_index: np.ndarray    # int32 per move, into `probabilities`; -1 for a decision
    probabilities: list
    returns_index: np.ndarray        # int32 per position, into `returns_table`; -1 if not terminal
    returns_table: list


def expand(game, keys, tier: ComponentTier | None = None) -> Expansion:
    """Every move of the positions ``keys`` (in order), with each child's key and tier (the
    game's declared tier, or ``tier`` when given). In C where the game's native rules can
    (``native_expand``), else through the protocol: the same arrays either way."""
    fast = native_expand(game, keys, tier)
    return fast if fast is not None else protocol_expand(game, keys, tier)


def protocol_expand(game, keys, tier: ComponentTier | None = None) -> Expansion:
    """``expand`` through the game protocol."""
    tier_of = tier_function(game, tier)
    current_player, legal, apply = game.current_player, game.legal_actions, game.apply
    players, counts, child_keys, child_tiers = [], [], [], []
    probability_index: list[int] = []
    probability_ids: dict = {}
    outcome_ids: dict = {}
    returns_index: list[int] = []
    returns_ids: dict = {}
    prefix = _LENGTH_BYTE
    for state in _states(keys):
        player = current_player(state)
        players.append(player)
        if player == TERMINAL:
            values = tuple(game.returns(state))
            returns_index.append(returns_ids.setdefault(values, len(returns_ids)))
            counts.append(0)
            continue
        returns_index.append(-1)
        if player == CHANCE:
            pairs = chance_outcomes(game, state)      # checked: exact, summing to 1
            successors = [apply(state, outcome) for outcome, _ in pairs]
            # a game hands out the same outcome pairs again and again: their probabilities are
            # numbered once (hashing a Fraction is slow); the pairs are kept, so ids stay theirs
            same = tuple(map(id, pairs))
            numbered = outcome_ids.get(same)
            if numbered is None:
                numbered = outcome_ids[same] = (tuple(pairs), [
                    probability_ids.setdefault(Fraction(p), len(probability_ids))
                    for _, p in pairs])
            probability_index.extend(numbered[1])
        else:
            actions = legal(state)
            if not actions:
                raise no_legal_actions(game, state)
            successors = [apply(state, action) for action in actions]
            probability_index.extend([-1] * len(successors))
        counts.append(len(successors))
        for successor in successors:
            try:
                body = bytes(successor)
                child_keys.append(prefix[len(successor)] + body)
            except (TypeError, ValueError, IndexError):
                key_of(successor)               # raises the error that says why
            child_tiers.append(tier_of(successor))
    return Expansion(
        player=np.array(players, dtype=np.int8), count=np.array(counts, dtype=np.int64),
        child_key=keys_array(child_keys), child_tier=np.array(child_tiers, dtype=np.int64),
        probability_index=np.array(probability_index, dtype=np.int32),
        probabilities=list(probability_ids),
        returns_index=np.array(returns_index, dtype=np.int32), returns_table=list(returns_ids))


_LENGTH_BYTE = [bytes([n]) for n in range(256)]

# A game's byte-key passes in C (``game.native.chance_graph(game)``), looked up once per game
# object (by id: the game is kept with them, so the id stays its own); None where it has none.
_BYTE_PASSES: dict[int, tuple] = {}


def byte_passes(game):
    """The game's native passes over byte keys (gdl.backends.native.chance_graph's contract),
    or None."""
    held = _BYTE_PASSES.get(id(game))
    if held is None or held[0] is not game:
        rules = native_rules(game)
        found = rules.chance_graph(game) if rules is not None else None
        held = _BYTE_PASSES[id(game)] = (game, None if isinstance(found, str) else found)
    return held[1]


def _first_use_int_rows(rows: np.ndarray) -> tuple[list, np.ndarray]:
    """The distinct rows of a 2-D integer array in order of first use (as lists), and each
    row's number among them. A batch of moves has few (one probability, a few returns): a
    stable sort of the rows, not ``np.unique``'s, which views them as structures."""
    if (rows == rows[0]).all():
        return [rows[0].tolist()], np.zeros(len(rows), dtype=np.int32)
    order = np.lexsort(rows.T[::-1])               # stable: the first of equal rows first
    ordered = rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    first_sorted = order[new]
    by_use = np.argsort(first_sorted, kind="stable")
    rank = np.empty(len(by_use), dtype=np.int32)
    rank[by_use] = np.arange(len(by_use), dtype=np.int32)
    number = np.empty(len(rows), dtype=np.int32)
    number[order] = rank[np.cumsum(new) - 1]
    return rows[first_sorted[by_use]].tolist(), number


def native_expand(game, keys, tier: ComponentTier | None = None) -> Expansion | None:
    """``expand`` in C (the game's native rules), or None where they cannot: no native rules,
    keys that are not a numpy array of bytes, or a rule error or a state beyond one byte a
    component on the way (the protocol then reports it, located)."""
    passes = byte_passes(game)
    if passes is None:
        return None
    found = passes.expand(keys, None if tier is None else (tier.growing, tier.shrinking))
    if found is None:
        return None
    moves = len(found.length)
    width = int(found.length.max()) if moves else 0
    child_key = (np.ascontiguousarray(found.child[:, :width]).view(f"S{width}").reshape(-1)
                 if moves else keys_array([]))
    # probabilities and returns numbered in order of first use, as the protocol's loop does
    chance = np.flatnonzero(found.denominator > 0)
    probability_index = np.full(moves, -1, dtype=np.int32)
    probabilities: list = []
    if len(chance):
        pairs = np.stack((found.numerator[chance], found.denominator[chance]), axis=1)
        distinct, probability_index[chance] = _first_use_int_rows(pairs)
        probabilities = [Fraction(n, d) for n, d in distinct]
    ends = np.flatnonzero(found.player == TERMINAL)
    returns_index = np.full(len(found.player), -1, dtype=np.int32)
    returns_table: list = []
    if len(ends):
        distinct, returns_index[ends] = _first_use_int_rows(found.returns[ends])
        returns_table = [tuple(row) for row in distinct]
    return Expansion(player=found.player, count=found.count, child_key=child_key,
                     child_tier=found.tier, probability_index=probability_index,
                     probabilities=probabilities, returns_index=returns_index,
                     returns_table=returns_table)


def _states(keys) -> list[tuple]:
    """The states of an array of keys, all at once (a row of bytes each: fast)."""
    if not isinstance(keys, np.ndarray) or keys.dtype.kind != "S":
        return [state_of(key) for key in keys]
    if not len(keys) or keys.dtype.itemsize == 0:
        return [state_of(bytes(key)) for key in keys]
    rows = np.ascontiguousarray(keys).view(np.uint8).reshape(len(keys), keys.dtype.itemsize)
    return [tuple(row[1:1 + row[0]]) for row in rows.tolist()]


def join_expansions(parts: list[Expansion]) -> Expansion:
    """One expansion from the expansions of consecutive batches (tables concatenated, indices
    shifted)."""
    if len(parts) == 1:
        return parts[0]
    p_offsets = np.cumsum([0] + [len(x.probabilities) for x in parts])
    r_offsets = np.cumsum([0] + [len(x.returns_table) for x in parts])

    def shifted(arrays, offsets):
        return np.concatenate([np.where(a >= 0, a + o, -1).astype(np.int32)
                               for a, o in zip(arrays, offsets)])

    return Expansion(
        player=np.concatenate([x.player for x in parts]),
        count=np.concatenate([x.count for x in parts]),
        child_key=np.concatenate([x.child_key for x in parts]),
        child_tier=np.concatenate([x.child_tier for x in parts]),
        probability_index=shifted([x.probability_index for x in parts], p_offsets),
        probabilities=[p for x in parts for p in x.probabilities],
        returns_index=shifted([x.returns_index for x in parts], r_offsets),
        returns_table=[r for x in parts for r in x.returns_table])


def expand_task(task) -> Expansion:
    """A worker's task: ``(game source, tier, keys)`` or ``(game source, tier, (tier file,
    start, stop))``; a tier file is read from the storage the workers share."""
    source, tier, batch = task
    if isinstance(batch, tuple):
        path, start, stop = batch
        batch = np.load(path, mmap_mode="r")[start:stop]
    return expand(game_from(source), batch, tier)
