"""The search tree a solver explored, read from the solver's own trace, drawn as DOT or text.

How it is recorded
------------------
The solver runs with a trace (gdl.solvers.trace): it says itself which nodes it enters, along
which edge, and which leaves it reads, so the tree is the one it searched, not one a second
implementation thinks it would search (``gdl step`` reads the same events). The trace keeps
nodes apart by their path of moves, not by their states, so the same position reached by two
move orders is two nodes, as it is for the solver. A child searched a second time (alpha-beta's
root re-searches a child whose narrow-window test failed high) is a second node, marked
``repeat``.

A solver may abandon a search and begin again from the root (expectiminimax, when its exact
integer scale cannot hold a chance value, searches again on a finer one and resets its
counters); the trace then drops what came before, so only the final search is drawn, and a note
says how many visits the abandoned passes made.

The number of recorded nodes equals the solver's own ``stats.nodes``; the tests check it.

How values are backed up
------------------------
From the recorded subtree, with the algorithm's own rule: a leaf has the vector the game
returned (``returns``) or estimated at the depth limit (``evaluate``); a decision node takes the
*first* visited child (search order, which is declaration order here) that is best for its
mover; a chance node the probability-weighted sum of its outcomes. For two-player constant-sum
games each node also gets an interval [lo, hi] for player 0's true value, propagated from the
leaves: a node whose children were not all visited (a cut-off) only bounds its value, and an
interval with one open end is shown as ``≥ v`` or ``≤ v``, the bound alpha-beta's fail-soft
result gives. Exact values come out where every child that could matter was seen.

Children a node never visited because of a cut-off are listed as *pruned* (legal actions or
outcomes at a visited node that the solver did not apply).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.protocol import CHANCE, TERMINAL, format_value
from gdl.solvers.trace import ENTER, EXIT, LEAF, PROBE, RESUME, TABLE, Event, Trace, TraceTooLong

DEFAULT_LIMIT = 2000
ALGORITHMS = ("minimax", "alphabeta", "expectiminimax", "maxn")


class TreeTooLarge(Exception):
    """The search visited more nodes than the limit allows."""

    def __init__(self, limit: int):
        super().__init__(f"the search visits more than {limit:,} nodes")
        self.limit = limit


@dataclass(eq=False)
class Node:
    number: int                       # visit order, root = 0
    state: Any
    player: int                       # player index, CHANCE or TERMINAL
    action: Any = None                # the edge from the parent
    name: str = ""                    # its readable name
    probability: Fraction | None = None
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    available: tuple = ()             # legal actions / chance outcomes the solver was given
    leaf: tuple | None = None         # returned or evaluated vector
    evaluated: bool = False           # True: a depth cut-off scored by `evaluate`
    repeat: bool = False              # a second search of the same action (a re-search)
    # filled in by back_up()
    value: tuple | None = None
    low: Any = None                   # interval for player 0's value (two-player constant-sum)
    high: Any = None
    chosen: Node | None = None
    pruned: list[tuple[Any, str, Fraction | None]] = field(default_factory=list)
    principal: bool = False           # on the principal path from the root
    optimal: bool = False             # a root action in the solver's set of optimal actions
    # the game tree of a strong solve (graph_tree): the value as text, and why a leaf is cut
    text: str | None = None
    cut: str = ""                     # "repeats" (its position is on the path above), "depth"

    @property
    def exact(self) -> bool:
        return self.low is None or self.low == self.high


class _OnePath:
    """A game whose states carry the number of the visit that made them, so that a position met
    twice on one path (a game that can repeat a position, searched to a depth limit) is two
    states in the drawn tree's nodes too, as it is two nodes (the trace keeps nodes apart by
    their paths). Only the visit number is added: the solver's values, moves and node counts
    are the game's."""

    def __init__(self, game: Any):
        self._game, self.info, self._visits = game, game.info, 0

    def wrap(self, state):
        self._visits += 1
        return (state, self._visits)

    def __getattr__(self, name: str):
        return getattr(self._game, name)

    def initial_state(self):
        return self.wrap(self._game.initial_state())

    def apply(self, state, action):
        return self.wrap(self._game.apply(state[0], action))

    def current_player(self, state):
        return self._game.current_player(state[0])

    def legal_actions(self, state):
        return self._game.legal_actions(state[0])

    def chance_outcomes(self, state):
        return self._game.chance_outcomes(state[0])

    def returns(self, state):
        return self._game.returns(state[0])

    def evaluate(self, state):
        return self._game.evaluate(state[0])

    def is_quiet(self, state):
        return self._game.is_quiet(state[0])


# ---- backing up --------------------------------------------------------------------------------

@dataclass
class SearchTree:
    root: Node
    players: tuple[str, ...]
    algorithm: str
    result: Any                       # the solver's SolveResult
    two_player: bool                  # values shown as player 0's utility with bounds
    nodes: int
    pruned: int
    title: str = ""
    notes: list[str] = field(default_factory=list)
    action_name: Any = str            # the game's action_name, for pruned children
    depth: int | None = None          # graph_tree's depth limit; None: a search's tree

    def walk(self):
        """Every visited node, parents before children, children in search order."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def record(game: Any, algorithm: str = "auto", *, depth: int | None = None, root: Any = None,
           limit: int = DEFAULT_LIMIT) -> SearchTree:
    """Solve ``game`` from ``root`` with a textbook configuration of ``algorithm`` (alpha-beta
    without table or reordering, so its cut-offs are the classic ones; max^n with shallow
    pruning where it applies) and return the tree it explored. Raises TreeTooLarge."""
    from gdl.solvers import SolverError, choose, solve

    info = game.info
    if algorithm == "auto":
        algorithm = choose(info)
        if algorithm in ("star1", "star2"):
            algorithm = "expectiminimax"
    if algorithm not in ALGORITHMS:
        raise SolverError(f"the tree view supports {', '.join(ALGORITHMS)}, not {algorithm!r}")
    if depth is not None and info.max_length is None:
        game = _OnePath(game)       # a position may repeat on a path: tell its visits apart
        root = game.wrap(game._game.initial_state() if root is None else root)
    options: dict[str, Any] = {}
    if algorithm == "alphabeta":
        from gdl.solvers.alphabeta import SearchOptions

        options["options"] = SearchOptions()
    trace = Trace(limit)
    try:
        result = solve(game, algorithm, depth=depth, root_state=root, trace=trace, **options)
    except TraceTooLong:
        raise TreeTooLarge(limit) from None
    two_player = info.num_players == 2 and info.is_constant_sum
    tree = SearchTree(_nodes(game, trace.events), info.players, algorithm, result, two_player,
                      trace.nodes, 0, info.name, action_name=game.action_name)
    if trace.abandoned > trace.restarts:      # an abandoned pass went past the root
        tree.notes.append(
            f"the search started over from the root {_times(trace.restarts)}, to keep its "
            f"fractions exact on a finer scale, dropping {trace.abandoned:,} node visit(s); "
            "drawn is the final search, whose value and node count are the ones reported")
    back_up(tree)
    return tree


def _nodes(game: Any, events: list[Event]) -> Node:
    """The tree of a trace's events (a tree search with no table: every child it looks at is
    entered); the root."""
    root: Node | None = None
    stack: list[Node] = []
    for event in events:
        if event.kind == ENTER:
            parent = stack[-1] if stack else None
            action = event.path[-1] if event.path else None
            node = Node(event.node, event.state, event.player if event.player is not None
                        else TERMINAL, action, "" if parent is None else game.action_name(action),
                        event.probability, parent)
            if event.player == CHANCE:
                node.available = tuple(game.chance_outcomes(event.state))
            elif event.player is not None and event.player >= 0:
                node.available = tuple(game.legal_actions(event.state))
            if parent is None:
                root = node
            else:
                node.repeat = event.again or any(c.action == action for c in parent.children)
                parent.children.append(node)
            stack.append(node)
        elif event.kind == LEAF:
            node = stack.pop()
            node.leaf, node.evaluated = tuple(event.values or ()), event.evaluated
        elif event.kind in (EXIT, TABLE, PROBE):
            if event.kind == TABLE and event.node < 0:
                continue            # (no table here: a child answered without a visit)
            stack.pop()
        elif event.kind == RESUME:
            raise ValueError("the tree view draws no probing search (Star2)")
    if root is None:
        raise ValueError("the search entered no node")
    return root


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def back_up(tree: SearchTree) -> None:
    """Values, intervals, chosen children and pruned lists, bottom-up (no recursion)."""
    order = list(tree.walk())
    pruned = 0
    for node in reversed(order):
        if node.leaf is not None and not node.children:
            node.value = node.leaf
            if tree.two_player:
                node.low = node.high = node.leaf[0]
            continue
        # the latest search of each action counts (an earlier one was a narrower test)
        latest: dict = {}
        for child in node.children:
            latest[_key(child.action)] = child
        counted = [c for c in node.children if latest[_key(c.action)] is c]
        seen = {_key(c.action) for c in node.children}
        if node.player == CHANCE:
            node.pruned = [(a, _name(tree, node, a), p) for a, p in node.available
                           if _key(a) not in seen]
        else:
            node.pruned = [(a, _name(tree, node, a), None) for a in node.available
                           if _key(a) not in seen]
        pruned += len(node.pruned)
        # A child without a value (a search that stopped inside it) bounds nothing.
        known = [c for c in counted if c.value is not None]
        complete = not node.pruned and len(known) == len(counted)
        counted = known
        if node.player == CHANCE and not complete:
            # An expectation needs every outcome's value: with one unknown, so is the node's.
            # Drawn as "?", never as a partial sum.
            if tree.two_player:
                node.low, node.high = float("-inf"), float("inf")
            continue
        if not counted:
            continue
        if node.player == CHANCE:
            vector: list[Any] = [0] * len(counted[0].value)
            for child in counted:
                vector = [a + child.probability * v for a, v in zip(vector, child.value)]
            node.value = tuple(_tidy(v) for v in vector)
            if tree.two_player:
                if all(c.exact for c in counted):
                    node.low = node.high = node.value[0]
                else:
                    node.low, node.high = float("-inf"), float("inf")
            continue
        mover = node.player
        best = counted[0]
        for child in counted[1:]:
            if child.value[mover] > best.value[mover]:
                best = child
        node.chosen = best
        node.value = best.value
        if tree.two_player:
            lows = [c.low for c in counted]
            highs = [c.high for c in counted]
            if mover == 0:
                node.low = max(lows)
                node.high = max(highs) if complete else float("inf")
            else:
                node.high = min(highs)
                node.low = min(lows) if complete else float("-inf")
    tree.pruned = pruned
    best = {_key(a) for a in getattr(tree.result, "best_actions", ())}
    latest_at_root = {_key(c.action): c for c in tree.root.children}
    for key, child in latest_at_root.items():
        child.optimal = key in best
    node = tree.root
    node.principal = True
    while node.chosen is not None and node.exact:
        node = node.chosen
        node.principal = True


def _key(action):
    return ("h", action) if _hashable(action) else ("r", repr(action))


def _hashable(action) -> bool:
    try:
        hash(action)
    except TypeError:
        return False
    return True


def _name(tree: SearchTree, node: Node, action) -> str:
    return tree.action_name(action)


def _tidy(v):
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


# ---- drawing -----------------------------------------------------------------------------------

def value_text(tree: SearchTree, node: Node) -> str:
    """``3``, ``≤ 2``, ``≥ 5``, ``2..4`` (two players: player 0's utility), or ``(1, 2, 6)``."""
    if node.text is not None:
        return node.text
    if node.value is None:
        return "?"
    if tree.two_player:
        lo, hi = node.low, node.high
        if lo == hi:
            return format_value(lo)
        if lo == float("-inf") and hi == float("inf"):
            return "?"
        if lo == float("-inf"):
            return f"≤ {format_value(hi)}"
        if hi == float("inf"):
            return f"≥ {format_value(lo)}"
        return f"{format_value(lo)}..{format_value(hi)}"
    text = "(" + ", ".join(format_value(v) for v in node.value) + ")"
    return text if not node.pruned else text + " cut"


def who(tree: SearchTree, node: Node) -> str:
    if node.player == CHANCE:
        return "chance"
    if node.player == TERMINAL:
        return ""
    return tree.players[node.player]


def edge_text(name: str, probability) -> str:
    return name if probability is None else f"{name} ({format_value(probability)})"


def heading(tree: SearchTree, legend: str = "") -> str:
    result = tree.result
    whose = f"{tree.players[0]}'s utility" if tree.two_player else "one value per player"
    values = ("a draw (endless play, no value)" if result.values is None else "value " + ", ".join(
        f"{p} {format_value(v)}" for p, v in zip(tree.players, result.values)))
    if tree.depth is not None:      # graph_tree: the game tree, valued by a strong solve
        text = (f"{tree.title or 'game'}: {values}, from a strong solve ({tree.algorithm}); the "
                f"game tree to depth {tree.depth}, cut where a position repeats: {tree.nodes:,} "
                f"node(s); values are {whose}")
    else:
        text = (f"{tree.title or 'game'}: {tree.algorithm}, {values}; "
                f"{tree.nodes:,} node(s) visited, {tree.pruned:,} pruned; values are {whose}")
    return text + (f"\n{legend}" if legend else "")


GRAPH_LEGEND = ("* the moves the solver plays (fastest win, slowest loss), + another optimal "
                "root action; (repeats: cut) a position already on the path above, (depth limit: "
                "cut) the depth asked for; N to the end: moves to the end with best play")


def to_text(tree: SearchTree) -> str:
    """An indented tree: ``├── action  PLAYER value``; ``*`` marks the chosen actions along the
    principal path, ``+`` the other optimal actions at the root, ``(pruned)`` children the
    search never visited."""
    lines = [heading(tree, GRAPH_LEGEND if tree.depth is not None else
                     "* principal variation, + another optimal root action, "
                     "(pruned) never visited: a cut-off")]
    lines.extend(f"note: {n}" for n in tree.notes)
    lines.append(_node_text(tree, tree.root))
    stack: list[tuple[Any, str, bool]] = []

    def push(node: Node, prefix: str) -> None:
        items: list[Any] = list(node.children) + [("pruned", a, n, p) for a, n, p in node.pruned]
        for position, item in reversed(list(enumerate(items))):
            stack.append((item, prefix, position == len(items) - 1))

    push(tree.root, "")
    while stack:
        item, prefix, last = stack.pop()
        branch = "└── " if last else "├── "
        if isinstance(item, tuple):
            _, _, name, probability = item
            lines.append(f"{prefix}{branch}  {edge_text(name, probability)}  (pruned)")
            continue
        mark = "*" if item.principal else "+" if item.optimal else " "
        label = edge_text(item.name, item.probability)
        if item.repeat:
            label += " (re-search)"
        lines.append(f"{prefix}{branch}{mark} {label}  {_node_text(tree, item)}")
        push(item, prefix + ("    " if last else "│   "))
    return "\n".join(lines)


CUT_TEXT = {"repeats": "(repeats: cut)", "depth": "(depth limit: cut)"}


def _node_text(tree: SearchTree, node: Node) -> str:
    parts = [who(tree, node), value_text(tree, node)]
    if node.evaluated:
        parts.append("(evaluated)")
    if node.cut:
        parts.append(CUT_TEXT[node.cut])
    return " ".join(p for p in parts if p)


def _quote(text: str) -> str:
    """A DOT string: backslashes and quotes escaped, line breaks as DOT's centred \\n."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


PV_COLOUR = "#1f5fbf"
LEGEND = ("blue: principal variation (dashed blue: another optimal root action); "
          "bold: a node's best child; grey dashed: pruned")
PRUNED_COLOUR = "gray60"


def to_dot(tree: SearchTree) -> str:
    """Graphviz DOT: boxes for decision nodes, circles for chance, plain boxes for leaves; the
    principal path bold and blue; pruned children dashed and grey."""
    title = heading(tree, LEGEND if tree.depth is None else GRAPH_LEGEND)
    title += "".join(f"\nnote: {n}" for n in tree.notes)
    out = ["digraph search_tree {",
           f"  graph [label={_quote(title)}, "
           "labelloc=t, fontname=Helvetica, "
           "ordering=out, nodesep=0.25, ranksep=0.5];",
           "  node [fontname=Helvetica, fontsize=11, shape=box, style=rounded];",
           "  edge [fontname=Helvetica, fontsize=10];"]
    pruned_id = 0
    for node in tree.walk():
        label = "\n".join(p for p in (who(tree, node), value_text(tree, node)) if p)
        if node.evaluated:
            label += "\n(evaluated)"
        if node.cut:
            label += "\n" + CUT_TEXT[node.cut]
        attributes = [f"label={_quote(label)}"]
        if node.player == CHANCE:
            attributes.append("shape=ellipse")
        elif node.player == TERMINAL or node.evaluated or node.cut:
            attributes.append("shape=box, style=\"\"")
        if node.principal:
            attributes.append(f"color={_quote(PV_COLOUR)}, penwidth=2")
        out.append(f"  n{node.number} [{', '.join(attributes)}];")
        for child in node.children:
            label = edge_text(child.name, child.probability) + (" (re-search)" if child.repeat else "")
            attrs = [f"label={_quote(label)}"]
            if child.principal:
                attrs.append(f"color={_quote(PV_COLOUR)}, fontcolor={_quote(PV_COLOUR)}, penwidth=2.5")
            elif child.optimal:
                attrs.append(f"color={_quote(PV_COLOUR)}, fontcolor={_quote(PV_COLOUR)}, "
                             "penwidth=2.5, style=dashed")
            elif node.chosen is child:
                attrs.append("penwidth=2")
            out.append(f"  n{node.number} -> n{child.number} [{', '.join(attrs)}];")
        for _, name, probability in node.pruned:
            out.append(f"  p{pruned_id} [label=\"pruned\", style=\"dashed,rounded\", "
                       f"color={PRUNED_COLOUR}, fontcolor={PRUNED_COLOUR}];")
            out.append(f"  n{node.number} -> p{pruned_id} [label={_quote(edge_text(name, probability))}, "
                       f"style=dashed, color={PRUNED_COLOUR}, fontcolor={PRUNED_COLOUR}];")
            pruned_id += 1
    out.append("}")
    return "\n".join(out) + "\n"


# ---- the game tree of a strong solve (a game that can repeat a position) -----------------------

def graph_tree(game: Any, positions: Any, *, depth: int, root: Any = None,
               limit: int = DEFAULT_LIMIT) -> SearchTree:
    """The game tree from ``root`` to ``depth`` decision plies (chance events do not count),
    every node valued by a strong solve (``positions``: gdl.tools.graph_advice.SolvedPositions,
    or a position database) instead of a search. A game that can repeat a position has an
    infinite tree, and a tree search cannot value it; this one is cut at ``depth`` and
    wherever a position repeats one on
    the path above it (``Node.cut``: "depth" or "repeats"), and the cut nodes carry the strong
    solve's value, so every value shown is exact where the solve is. Every move is drawn (no
    pruning: nothing is searched); ``*`` follows the moves the solver plays (fastest win,
    slowest loss), ``+`` marks the other optimal root actions. Raises TreeTooLarge."""
    from gdl.tools.database_advice import MoveEntry, ranked_best

    info = game.info
    root = game.initial_state() if root is None else root
    two_player = info.num_players == 2 and info.is_constant_sum
    optimal = getattr(positions, "optimal", None)       # a database has no optimal set: by value
    describe = getattr(positions, "describe", None)
    count = 0

    def make(state, parent: Node | None, action=None, probability=None) -> Node:
        nonlocal count
        if count >= limit:
            raise TreeTooLarge(limit)
        node = Node(count, state, game.current_player(state), action,
                    "" if parent is None else game.action_name(action), probability, parent)
        count += 1
        found = positions.lookup(state)
        node.value = None if found is None else found.values
        node.text = _solved_text(positions, state, found, two_player)
        if node.value is not None and two_player:
            node.low = node.high = node.value[0]
        if node.player == TERMINAL:
            node.leaf = node.value
        return node

    top = make(root, None)
    stack: list[tuple[Node, int, frozenset]] = [(top, depth, frozenset())]
    while stack:
        node, left, above = stack.pop()
        if node.player == TERMINAL:
            continue
        if node.state in above:
            node.cut = "repeats"
            continue
        if node.player != CHANCE and left == 0:
            node.cut = "depth"
            continue
        moves: list[tuple[Any, Fraction | None]]
        if node.player == CHANCE:
            moves = [(outcome, Fraction(p)) for outcome, p in game.chance_outcomes(node.state)]
        else:
            moves = [(action, None) for action in game.legal_actions(node.state)]
        node.available = tuple(moves) if node.player == CHANCE else tuple(a for a, _ in moves)
        for action, probability in moves:
            node.children.append(make(game.apply(node.state, action), node, action, probability))
        if node.player != CHANCE:
            entries = [MoveEntry(c.action, c.value, _remoteness(positions, c.state))
                       for c in node.children]
            here = positions.lookup(node.state)
            ranked = ranked_best(game, node.player, entries,
                                 optimal(node.state) if optimal is not None else None,
                                 draw=here is not None and here.values is None)
            node.chosen = next(c for c in node.children if c.action == ranked[0].action)
            if node is top:
                best = {e.action for e in ranked}
                for child in node.children:
                    child.optimal = child.action in best
        below = above | {node.state}
        for child in reversed(node.children):
            stack.append((child, left - (node.player != CHANCE), below))
    found = positions.lookup(root)

    class _Result:      # what the heading reads: the root's value, None for a draw without one
        values = None if found is None else found.values
        best_actions = tuple(c.action for c in top.children if c.optimal)

    solver = "position database" if describe is None else describe()
    tree = SearchTree(top, info.players, solver, _Result(), two_player, count, 0,
                      info.name, action_name=game.action_name, depth=depth)
    node = top
    node.principal = True
    while node.chosen is not None:
        node = node.chosen
        node.principal = True
    return tree


def _remoteness(positions: Any, state) -> int:
    found = positions.lookup(state)
    return -1 if found is None else found.remoteness


def _solved_text(positions: Any, state, found, two_player: bool) -> str:
    """A node's value as the strong solve gives it: player 0's utility (two players) or the
    vector, ``draw`` where endless play decides, and the moves to the end where known."""
    if found is None:
        return "?"
    if found.values is None:
        return "draw"
    shown = (format_value(found.values[0]) if two_player
             else "(" + ", ".join(format_value(v) for v in found.values) + ")")
    value_class = getattr(positions, "value_class", None)
    if value_class is not None and value_class(state) == "draw":
        return f"{shown} draw"
    if found.remoteness > 0:
        return f"{shown}, {found.remoteness} to the end"
    return shown
