"""Hypothesis strategies that generate small explicit game trees, for testing solvers.

    from hypothesis import given
    from gdl.generators.trees import trees

    @given(trees(chance=True))
    def test_my_solver(game): ...

Every strategy yields a ``GeneratedTree``: a ``TreeGame`` (``gdl.backends.tree``) whose ``info`` comes from
``tree_info`` with the requested sum kind, and whose ``root`` is kept for independent checks.
Its repr is the tree in a compact form, so a failing example can be read at a glance:
``P0[a0: (3, -3), a1: ?[c0 1/2: (1, -1), c1 1/2: P1[a0: (0, 0)]]]``.

Trees are drawn recursively from hypothesis primitives and shrink towards a leaf at every
position, fewer children and smaller leaf values. Leaf values come from a small range, so ties
are common: ties are where solvers most often go wrong. Decision edges are labelled ``a0``,
``a1``, ... and chance edges ``c0``, ``c1``, ... at each node. Chance probabilities are exact
``Fraction``s built from small positive integer weights, so they are positive and sum to 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from hypothesis import strategies as st

from gdl.backends.tree import TreeGame, tree_info
from gdl.lang.ir import Chance, Decision, Leaf, Node
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, ZERO_SUM, GameInfo, Value, format_value


class GeneratedTree(TreeGame):
    """A TreeGame that remembers its root and prints as its tree."""

    def __init__(self, root: Node, info: GameInfo):
        super().__init__(root, info)
        self.root = root

    def __repr__(self) -> str:
        if self.num_states > 300:  # show_tree recurses; big trees are not for reading anyway
            return f"GeneratedTree({self.info.name!r}, {self.num_states} states)"
        return f"GeneratedTree({show_tree(self.root)})"


def show_tree(node: Node) -> str:
    """A compact one-line text of a (small) tree."""
    if isinstance(node, Leaf):
        return "(" + ", ".join(format_value(v) for v in node.values) + ")"
    if isinstance(node, Decision):
        return f"P{node.player}[" + ", ".join(
            f"{label}: {show_tree(child)}" for label, child in node.children) + "]"
    return "?[" + ", ".join(f"{label} {format_value(p)}: {show_tree(child)}"
                            for label, p, child in node.children) + "]"


def leaf_values(players: int = 2, values: Iterable[Value] = range(-3, 4),
                sum_kind: str = ZERO_SUM, total: Value | None = None
                ) -> st.SearchStrategy[tuple[Value, ...]]:
    """Utility vectors of one kind.

    - ZERO_SUM: the first ``players - 1`` entries from ``values``, the last makes the sum 0
      (two players: ``(v, -v)``).
    - CONSTANT_SUM: non-negative integers summing to ``total`` (``values`` is not used); this
      is what max^n shallow pruning needs.
    - GENERAL_SUM: every entry from ``values`` independently.
    """
    component = st.sampled_from(tuple(values))
    if sum_kind == GENERAL_SUM:
        return st.tuples(*[component] * players)
    if sum_kind == ZERO_SUM:
        return st.tuples(*[component] * (players - 1)).map(lambda vs: (*vs, -sum(vs)))
    if sum_kind == CONSTANT_SUM:
        if total is None or total < 0 or int(total) != total:
            raise ValueError("constant-sum leaves need a non-negative integer total")
        return _split(players, int(total))
    raise ValueError(f"unknown sum kind {sum_kind!r}")


@st.composite
def _split(draw, players: int, total: int) -> tuple[int, ...]:
    parts = []
    left = total
    for _ in range(players - 1):
        part = draw(st.integers(0, left))
        parts.append(part)
        left -= part
    return (*parts, left)


def trees(players: int = 2, max_depth: int = 4, max_branching: int = 3,
          values: Iterable[Value] = range(-3, 4), *, chance: bool = False,
          sum_kind: str = ZERO_SUM, total: Value | None = None, alternating: bool = False,
          min_branching: int = 1) -> st.SearchStrategy[GeneratedTree]:
    """Random trees at most ``max_depth`` edges deep, each node with ``min_branching`` to
    ``max_branching`` children.

    The root is a decision node (or, with ``chance=True``, possibly a chance node); below it
    each node is a leaf, a decision node or (with ``chance=True``) a chance node. The player at
    a decision node is drawn freely, so a player may move twice in a row; with
    ``alternating=True`` it is the node's depth modulo ``players`` instead. Leaf vectors are
    drawn by ``leaf_values(players, values, sum_kind, total)``, and the game's info declares
    ``sum_kind`` (with ``utility_sum=total`` for constant-sum) and the leaves' utility bounds.
    """
    if max_depth < 1 or not 1 <= min_branching <= max_branching:
        raise ValueError("trees need max_depth >= 1 and 1 <= min_branching <= max_branching")
    leaf = leaf_values(players, values, sum_kind, total).map(Leaf)

    def inner(depth: int, child: st.SearchStrategy[Node]) -> list[st.SearchStrategy[Node]]:
        kinds: list[st.SearchStrategy[Node]] = [
            _decisions(depth, child, players, alternating, min_branching, max_branching)]
        if chance:
            kinds.append(_chances(child, min_branching, max_branching))
        return kinds

    node: st.SearchStrategy[Node] = leaf
    for depth in reversed(range(1, max_depth)):
        node = st.one_of(leaf, *inner(depth, node))  # leaf first: shrinks towards leaves
    root = st.one_of(*inner(0, node))
    names = tuple(f"P{i}" for i in range(players))
    utility_sum = total if sum_kind == CONSTANT_SUM else None
    return root.map(lambda r: GeneratedTree(
        r, tree_info("generated", names, r, sum_kind=sum_kind, utility_sum=utility_sum)))


def _decisions(depth: int, child: st.SearchStrategy[Node], players: int, alternating: bool,
               min_branching: int, max_branching: int) -> st.SearchStrategy[Decision]:
    @st.composite
    def decision(draw) -> Decision:
        player = depth % players if alternating else draw(st.integers(0, players - 1))
        children = draw(st.lists(child, min_size=min_branching, max_size=max_branching))
        return Decision(player, tuple((f"a{i}", c) for i, c in enumerate(children)))

    return decision()


def _chances(child: st.SearchStrategy[Node], min_branching: int, max_branching: int
             ) -> st.SearchStrategy[Chance]:
    @st.composite
    def chance(draw) -> Chance:
        children = draw(st.lists(child, min_size=min_branching, max_size=max_branching))
        weights = draw(st.lists(st.integers(1, 4), min_size=len(children),
                                max_size=len(children)))
        whole = sum(weights)
        return Chance(tuple((f"c{i}", Fraction(w, whole), c)
                            for i, (w, c) in enumerate(zip(weights, children))))

    return chance()


def uniform_trees(branching: int, depth: int, values: Iterable[Value] = range(-3, 4),
                  players: int = 2, sum_kind: str = ZERO_SUM, total: Value | None = None
                  ) -> st.SearchStrategy[GeneratedTree]:
    """Complete trees: every decision node has ``branching`` children, every leaf is ``depth``
    edges deep, and players alternate (player = depth of the node modulo ``players``), as in
    Knuth and Moore's analysis of alpha-beta. Only the leaf values are drawn."""
    if branching < 1 or depth < 0:
        raise ValueError("uniform trees need branching >= 1 and depth >= 0")
    count = branching ** depth
    vectors = st.lists(leaf_values(players, values, sum_kind, total), min_size=count,
                       max_size=count)
    names = tuple(f"P{i}" for i in range(players))
    utility_sum = total if sum_kind == CONSTANT_SUM else None

    def build(leaves: list[tuple[Value, ...]]) -> GeneratedTree:
        level: list[Node] = [Leaf(v) for v in leaves]
        for ply in reversed(range(depth)):  # group each run of `branching` nodes under a parent
            level = [Decision(ply % players, tuple((f"a{i}", c) for i, c in
                                                    enumerate(level[k:k + branching])))
                     for k in range(0, len(level), branching)]
        (root,) = level
        return GeneratedTree(root, tree_info(f"uniform b={branching} d={depth}", names, root,
                                             sum_kind=sum_kind, utility_sum=utility_sum))

    return vectors.map(build)


def deep_chain(length: int) -> GeneratedTree:
    """A two-player zero-sum game ``length`` plies deep, built without recursion: at ply k
    player k mod 2 chooses ``go`` (on to the next ply) or ``stop`` (a (0, 0) leaf); going past
    the last ply ends in (1, -1). For solvers that must not meet Python's recursion limit.
    Player 1 stops at the last ply it moves, so for length >= 2 the value is 0, every node
    before that ties ``go`` with ``stop``, and there are 2·length + 1 states."""
    node: Node = Leaf((1, -1))
    for ply in reversed(range(length)):
        node = Decision(ply % 2, (("go", node), ("stop", Leaf((0, 0)))))
    return GeneratedTree(node, tree_info(f"chain {length}", ("P0", "P1"), node,
                                         sum_kind=ZERO_SUM))

