"""Perft for rule games: nodes per ply, complete games, distinct states.

Counting histories one by one is exponential; counting them per distinct state is not. Each ply is
a map state → number of histories reaching it, so the counts equal a full tree walk exactly (every
history is a path, and paths through the same state at the same ply share their continuations)
while the work is proportional to the number of distinct (ply, state) pairs.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from gdl.moves import move_text, successors
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
            children = [child for _, child in successors(game, state)]
        except Exception:
            continue
        for child in children:
            if child not in seen:
                seen.add(child)
                if len(seen) > limit:
                    return None
                queue.append(child)
    return len(seen)


class EndlessGame(Exception):
    """Counting every history of a game with a cycle never ends: ``path`` reaches a state and
    ``cycle`` comes back to it."""

    def __init__(self, path: list[str], cycle: list[str]):
        self.path, self.cycle = path, cycle
        shown = " ".join(path) or "the initial state"
        super().__init__(f"the game can go on forever: after {shown}, the moves "
                         f"{' '.join(cycle)} come back to the same state")

    def __reduce__(self):     # crosses process boundaries (gdl fuzz --workers)
        return (EndlessGame, (self.path, self.cycle))


def find_cycle(game, root, limit: int = 100_000) -> tuple[list, list] | None:
    """(path to a state, actions around a cycle back to it) for the first cycle a depth-first
    walk from ``root`` meets, or None when the reachable states form no cycle or number more
    than ``limit`` (then nobody knows, cheaply). Iterative: no recursion limit."""
    on_path: dict = {root: 0}
    done: set = set()
    stack = [(root, iter(successors(game, root)))]
    moves: list = []
    while stack:
        state, pending = stack[-1]
        advanced = False
        for move, child in pending:
            if child in on_path:
                start = on_path[child]
                names = [move_text(game, m) for m in moves + [move]]
                return names[:start], names[start:]
            if child in done:
                continue
            if len(done) + len(on_path) > limit:
                return None
            on_path[child] = len(moves) + 1
            moves.append(move)
            stack.append((child, iter(successors(game, child))))
            advanced = True
            break
        if not advanced:
            stack.pop()
            del on_path[state]
            done.add(state)
            if moves:
                moves.pop()
    return None


def count(game, depth: int | None = None, progress=None, root=None) -> CountResult:
    """Count the tree below ``root`` (default: the initial state), down to ``depth`` plies
    (chance events count as plies: every outcome is a branch; a joint move of players who choose
    at once is one ply, every combination a branch). ``progress(ply, layer_size)`` is
    called once per ply. Without a depth, a game with a cycle (whose tree is infinite) raises
    EndlessGame at once. The whole tree of a game from its start is counted over its position
    graph (``count_over_graph``: the native walk where the game has native rules)."""
    start = game.initial_state()
    joint = getattr(game.info, "simultaneous", False)     # the position graph has no joint moves
    if depth is None and (root is None or root == start) and not joint:
        counted = count_over_graph(game, progress)
        if counted is not None:
            return counted
    root = start if root is None else root
    if depth is None:
        found = find_cycle(game, root)
        if found is not None:
            raise EndlessGame(*found)
    layer = {root: 1}
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
            for _, child in successors(game, state, player):
                following[child] = following.get(child, 0) + histories
        layer = following
        ply += 1
    return CountResult(tuple(per_ply), sum(per_ply), games, len(seen), terminal_states, not truncated)


# Positions beyond which the whole graph is not enumerated for a count (the layered count needs
# only one ply's positions at a time).
GRAPH_LIMIT = 20_000_000


def count_over_graph(game, progress=None) -> CountResult | None:
    """``count(game)`` over the game's position graph, every ply's histories a vector over the
    positions reached (numpy: each position's count spread over its moves, then summed per child),
    so the work is the layered count's without a Python object per position. None where the
    graph is not available or too big (the caller counts layer by layer); EndlessGame where
    it has a cycle."""
    import numpy as np

    from gdl.graph import TooManyPositions, enumerate_positions
    from gdl.graph.order import gather, levels

    try:
        graph = enumerate_positions(game, max_states=GRAPH_LIMIT)
    except TooManyPositions:
        return None
    if levels(graph) is None:
        found = find_cycle(game, game.initial_state())
        raise EndlessGame(*(found or ([], [])))
    terminal = graph.player == TERMINAL
    degree = np.diff(graph.first)
    widest = int(degree.max(initial=1))
    positions = np.array([0], dtype=np.int64)
    histories = np.array([1], dtype=np.int64)
    per_ply: list[int] = []
    games = 0
    while len(positions):
        per_ply.append(int(histories.sum()))
        if progress is not None:
            progress(len(per_ply) - 1, len(positions))
        ends = terminal[positions]
        games += int(histories[ends].sum())
        positions, histories = positions[~ends], histories[~ends]
        if histories.dtype != object and float(histories.sum()) * widest >= 2.0**62:
            histories = histories.astype(object)        # exact beyond 64 bits, slower
        children, counts = gather(graph.first, graph.child, positions)
        spread = np.repeat(histories, counts)
        order = np.argsort(children, kind="stable")
        children, spread = children[order], spread[order]
        positions, starts = np.unique(children, return_index=True)
        histories = (np.add.reduceat(spread, starts) if len(spread) else spread)
        positions = positions.astype(np.int64)
    return CountResult(tuple(per_ply), sum(per_ply), games, len(graph),
                       int(np.count_nonzero(terminal)), True)
