"""Russell & Norvig's Figure 5.4 (A moves, then B, then C; FACTS.md), built once for the tests
of every solver that reads it, with the small tree-building helpers they share."""

from gdl.lang.ir import Decision, Leaf


def node(player, *children, prefix="a"):
    return Decision(player, tuple((f"{prefix}{i}", child) for i, child in enumerate(children, 1)))


def leaves(*vectors):
    return [Leaf(v) for v in vectors]


C_NODES = [node(2, *leaves((1, 2, 6), (4, 2, 3)), prefix="c"),
           node(2, *leaves((6, 1, 2), (7, 4, 1)), prefix="c"),
           node(2, *leaves((5, 1, 1), (1, 5, 2)), prefix="c"),
           node(2, *leaves((7, 7, 1), (5, 4, 5)), prefix="c")]
B_NODES = [node(1, C_NODES[0], C_NODES[1], prefix="b"), node(1, C_NODES[2], C_NODES[3], prefix="b")]
FIG_5_4 = node(0, *B_NODES)
