"""Perft for rule games: nodes per ply, complete games, distinct states.

Counting histories one by one is exponential; counting them per distinct state is not. Each ply is
a map state → number of histories reaching it, so the counts equal a full tree walk exactly (every
history is a path, and paths through the same state at the same ply share their continuations)
while the work is proportional to the number of distinct (ply, state) pairs.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from gdl.moves import choices
from gdl.protocol import TERMINAL


@dataclass(frozen=True)
class CountResult:
    per_ply: tuple[int, ...]  # histories of each length, the empty one (the root) first
    nodes: int                # sum of per_ply: the nodes of the full game tree
    games: int                # complete games: histories that end at a terminal state
    states: int               # distinct states reached
    terminal_states: int      # of which terminal
    complete: bool            # False if a depth limit stopped the count

    def as_dict(self) -> dict:
        return {"per_ply": list(self.per_ply), "nodes": self.nodes, "games": self.games,
                "states": self.states, "terminal_states": self.terminal_states,
                "complete": self.complete}


def reachable_states(game, root, limit: int) -> int | None:
    """How many distinct states are reachable from ``root`` (itself included), or None if more
    than ``limit``. A state whose rules fail is counted but not expanded: whoever asked reports
    such failures in its own way."""
    seen = {root}
    queue = deque([root])
    while queue:
        state = queue.popleft()
        try:
            children = [game.apply(state, action) for action in choices(game, state)]
        except Exception:
            continue
        for child in children:
            if child not in seen:
                seen.add(child)
                if len(seen) > limit:
                    return None
                queue.append(child)
    return len(seen)


def count(game, depth: int | None = None, progress=None) -> CountResult:
    """Count the tree below the initial state, down to ``depth`` plies (chance events count as
    plies: every outcome is a branch). ``progress(ply, layer_size)`` is called once per ply."""
    layer = {game.initial_state(): 1}
    seen: set = set()
    terminal_states = 0
    per_ply: list[int] = []
    games = 0
    ply = 0
    truncated = False
    while layer:
        per_ply.append(sum(layer.values()))
        if progress is not None:
            progress(ply, len(layer))
        following: dict = {}
        for state, histories in layer.items():
            player = game.current_player(state)
            if state not in seen:
                seen.add(state)
                terminal_states += player == TERMINAL
            if player == TERMINAL:
                games += histories
                continue
            if depth is not None and ply >= depth:
                truncated = True
                continue
            children = [game.apply(state, action) for action in choices(game, state, player)]
            for child in children:
                following[child] = following.get(child, 0) + histories
        layer = following
        ply += 1
    return CountResult(tuple(per_ply), sum(per_ply), games, len(seen), terminal_states, not truncated)
