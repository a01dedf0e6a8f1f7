"""What every solver returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gdl.protocol import Action, Value
from gdl.protocol import SolverError as SolverError  # solvers raise it from here


@dataclass
class Stats:
    """Counters a solver keeps. Only the ones an algorithm uses are non-zero."""

    nodes: int = 0          # every state visited, root included
    leaves: int = 0         # terminal states reached and depth cut-offs evaluated
    cutoffs: int = 0        # times a node stopped looking at its remaining children
    tt_probes: int = 0
    tt_hits: int = 0
    researches: int = 0
    depth_reached: int = 0

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class SolveResult:
    """Values for every player at the root, the set of optimal root actions (declaration order),
    a principal variation, and statistics. ``proven`` is False when a budget or depth limit cut
    the search short, so the values are estimates."""

    values: tuple[Value, ...]
    best_actions: tuple[Action, ...]
    pv: tuple[Action, ...]
    algorithm: str
    stats: Stats = field(default_factory=Stats)
    proven: bool = True
    depth: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


