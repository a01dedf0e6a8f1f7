"""A tiered solve's run: its directory, game and executor, and its manifest (the checkpoint)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gdl.graph.database import atomic_write
from gdl.graph.executor import SerialExecutor
from gdl.graph.tier_expand import Expansion, expand, expand_task, join_expansions
from gdl.graph.tier_keys import ComponentTier

MANIFEST = "manifest.json"
FORMAT = 1
# Positions a task expands: large enough that a task's overhead (pickling, a process hop) is
# small against its work, small enough that every worker gets several tasks per round.
TASK_SIZE = 20_000
# Fewer positions than this are expanded here: sending them to a worker costs more than their
# work (Pig's forward rounds are a few hundred positions each, thousands of them).
PARALLEL_MIN = 2_000
# The manifest (the checkpoint) is written at most this often while a pass goes on, and
# always when it ends (TierRun.checkpoint).
CHECKPOINT_SECONDS = 1.0



@dataclass
class TierRun:
    """A tiered solve's directory, game and executor, and what its manifest records."""

    game: Any
    directory: Path
    binding: dict
    source: Callable[[], Any] | None = None       # for workers in other processes
    executor: Any = field(default_factory=SerialExecutor)
    progress: Callable[[str, int, int], None] | None = None
    manifest: dict = field(default_factory=dict)
    tier: ComponentTier | None = None              # None: the game's declared tier
    native: Any = None                              # packed keys (gdl.graph.packed_tiers), or None
    saved_at: float = field(default=0.0, repr=False)     # when the manifest was last written
    unsaved: bool = field(default=False, repr=False)     # whether the manifest has news since

    def path(self, tier: int, part: str) -> Path:
        return self.directory / f"tier-{tier}.{part}"

    def save_manifest(self) -> None:
        # no indent: json's C encoder then writes it (an indented dump is pure Python)
        atomic_write(self.directory / MANIFEST,
                      json.dumps(self.manifest, sort_keys=True).encode("utf-8"))
        self.saved_at, self.unsaved = time.monotonic(), False

    def checkpoint(self) -> None:
        """The manifest's news (a tier found or solved, its files written) written, at most
        once in ``CHECKPOINT_SECONDS``: Pig to 100's 400 checkpoints of a 120 kB manifest cost
        a second. The passes write what is left when they end, however they end (``flush``),
        so only a process killed outright loses the last second's tiers, which a resumed solve
        then finds or solves again into the same files."""
        self.unsaved = True
        if time.monotonic() - self.saved_at >= CHECKPOINT_SECONDS:
            self.save_manifest()

    def flush(self) -> None:
        """The manifest written if it has news (``checkpoint``)."""
        if self.unsaved:
            self.save_manifest()

    def expand_all(self, keys: np.ndarray, tier_file: Path | None = None) -> Expansion:
        """Expand ``keys`` (all of tier file ``tier_file`` when given), in tasks spread over the
        executor; with one worker here, directly."""
        if (isinstance(self.executor, SerialExecutor) or self.source is None
                or len(keys) < PARALLEL_MIN):
            return expand(self.game, keys, self.tier)
        size = max(1, min(TASK_SIZE, -(-len(keys) // (4 * self.executor.workers))))
        bounds = [(start, min(start + size, len(keys))) for start in range(0, len(keys), size)]
        tasks: list
        if tier_file is not None:
            tasks = [(self.source, self.tier, (str(tier_file), a, b)) for a, b in bounds]
        else:
            tasks = [(self.source, self.tier, keys[a:b]) for a, b in bounds]
        return join_expansions(self.executor.map(expand_task, tasks))

    def report(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)
