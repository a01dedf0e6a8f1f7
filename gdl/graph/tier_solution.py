"""What a tiered solve found, read from its directory: ``TieredSolution`` and its lookups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gdl.graph.database import decode_value
from gdl.graph.tier_keys import key_of, tier_function
from gdl.graph.tier_run import TierRun
from gdl.graph.tier_solve import game_ends, range_value
from gdl.graph.tier_store import DrawRange, TierResult


@dataclass
class TieredSolution:
    """What a tiered solve found, read from its directory."""

    run: TierRun
    tiers: list[list[int]]
    method: str
    exact: bool
    note: str
    seconds: dict
    key_section: Any = None         # a KeySectionWriter, or None
    # per pass, CPU seconds: the coordinator's own (its threads too) and its tasks' (where they
    # ran); the serial share of a run with workers is coordinator / (coordinator + tasks)
    cpu: dict = field(default_factory=dict)
    # the solve on ranked tables (gdl.graph.rank_solve), where it ran instead of the tier files
    ranked: Any = None

    @property
    def positions(self) -> int:
        return sum(count for _, count in self.tiers)

    def lookup(self, state) -> tuple[tuple | None, int] | None:
        """The value vector and remoteness of a state, or None if it is not reachable."""
        if self.ranked is not None:
            return self.ranked.lookup(state)
        tier = int(tier_function(self.run.game, self.run.tier)(state))
        if not self.run.path(tier, "keys.npy").exists():
            return None
        result = TierResult.load(self.run, tier)
        if self.run.native is not None:
            packed = self.run.native.codec.encode(state)
            if packed is None:
                return None
            key = np.array([packed], dtype=np.uint64)
        else:
            key = np.array([key_of(state)], dtype=result.keys.dtype)
        at = int(np.searchsorted(result.keys, key[0]))
        if at >= len(result.keys) or result.keys[at] != key[0]:
            return None
        encoded = result.table[int(result.index[at])]
        if isinstance(encoded, DrawRange):
            encoded = range_value(encoded, self.run.game.info, game_ends(self.run))
        value = None if encoded is None else tuple(decode_value(v) for v in encoded)
        return value, int(result.remoteness[at])
