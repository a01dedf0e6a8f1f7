"""Explicit game trees as games: textbook figures, generated test trees, `tree { ... }` blocks.

A tree is built from three kinds of node (gdl.lang.ir: Leaf, Decision, Chance); ``TreeGame``
numbers them depth-first and the state is that number, so states are plain ints and the game
protocol holds unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from gdl.lang.ir import Decision, Leaf, Node
from gdl.protocol import CHANCE, GENERAL_SUM, TERMINAL, GameInfo, Value


class TreeGame:
    """A game whose whole tree is given. Actions are the edge labels (strings)."""

    def __init__(self, root: Node, info: GameInfo):
        self.info = info
        self._kind: list[int] = []  # player index, CHANCE or TERMINAL, per state
        self._values: list[tuple[Value, ...] | None] = []
        self._edges: list[dict[str, int]] = []  # label -> child state
        self._labels: list[tuple[str, ...]] = []
        self._probabilities: list[tuple[tuple[str, Fraction], ...]] = []
        self._number(root)

    def _number(self, root: Node) -> None:
        # Iterative, so deep generated trees never meet the recursion limit.
        pending: list[tuple[Node, int, str]] = [(root, -1, "")]
        while pending:
            node, parent, label = pending.pop()
            state = len(self._kind)
            if parent >= 0:
                self._edges[parent][label] = state
            self._edges.append({})
            if isinstance(node, Leaf):
                self._kind.append(TERMINAL)
                self._values.append(tuple(node.values))
                self._labels.append(())
                self._probabilities.append(())
                continue
            self._values.append(None)
            if isinstance(node, Decision):
                self._kind.append(node.player)
                self._labels.append(tuple(label for label, _ in node.children))
                self._probabilities.append(())
                children = [(child, label) for label, child in node.children]
            else:
                self._kind.append(CHANCE)
                self._labels.append(tuple(label for label, _, _ in node.children))
                self._probabilities.append(tuple((label, p) for label, p, _ in node.children))
                children = [(child, label) for label, _, child in node.children]
            for child, child_label in reversed(children):
                pending.append((child, state, child_label))

    @property
    def num_states(self) -> int:
        return len(self._kind)

    def initial_state(self) -> int:
        return 0

    def current_player(self, state: int) -> int:
        return self._kind[state]

    def legal_actions(self, state: int) -> Sequence[str]:
        return self._labels[state] if self._kind[state] >= 0 else ()

    def apply(self, state: int, action: str) -> int:
        return self._edges[state][action]

    def chance_outcomes(self, state: int) -> Sequence[tuple[str, Fraction]]:
        return self._probabilities[state]

    def returns(self, state: int) -> tuple[Value, ...]:
        values = self._values[state]
        if values is None:
            raise ValueError(f"state {state} is not terminal")
        return values

    def evaluate(self, state: int) -> tuple[Value, ...]:
        raise ValueError("explicit trees declare no evaluation")

    def action_name(self, action: str) -> str:
        return action

    def is_quiet(self, state: int) -> bool:
        return True


def tree_info(name: str, players: Sequence[str], root: Node, sum_kind: str = GENERAL_SUM,
              utility_sum: Value | None = None) -> GameInfo:
    """GameInfo for a tree: chance and utility bounds are read off the tree itself."""
    has_chance = False
    lo = hi = None
    depth = 0
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, level = stack.pop()
        depth = max(depth, level)
        if isinstance(node, Leaf):
            for v in node.values:
                lo = v if lo is None or v < lo else lo
                hi = v if hi is None or v > hi else hi
        elif isinstance(node, Decision):
            stack.extend((child, level + 1) for _, child in node.children)
        else:
            has_chance = True
            stack.extend((child, level + 1) for _, _, child in node.children)
    bounds = None if lo is None or hi is None else (lo, hi)
    return GameInfo(name=name, players=tuple(players), has_chance=has_chance, sum_kind=sum_kind,
                    utility_sum=utility_sum, utility_bounds=bounds, max_length=depth)
