"""Exercises in adversarial search: a tree (random from a seed, or a textbook figure's file), the
questions, and an answer key taken from the trace of the search itself (gdl.tools.trace).

The key says, for the algorithm asked (children searched left to right, alpha-beta the
textbook's: no table, no ordering, one best action at the root):

- ``values``: the value of every node the search visits, the first player's in a two-player
  game, written ``<=v`` or ``>=v`` where the search only bounds it (fail-soft alpha-beta returns
  such a bound when it stops early); a vector per node for max^n;
- ``order``: the nodes in the order the search first visits them (the root is ``root``);
- ``pruned``: the nodes the search never visits although their parent was visited: the tops of
  the subtrees it cuts off, in the tree's order;
- ``best``: the move the search chooses at the root, and ``optimal``: every optimal one.

Nodes are named by the label of the edge that leads to them (textbook figures label every edge
uniquely: a1, b2, c3...); where labels repeat, by the labels of the path, joined by spaces.
Random trees are labelled as Russell & Norvig label Figure 5.2: the root's children a1, a2, ...;
the children of each later parent, in breadth-first order, the next letter (b1, b2, ...; c1, ...).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.lang.ir import Chance, Decision, Leaf, Node
from gdl.protocol import CHANCE, TERMINAL, format_value, json_value

FORMAT = 1                  # the version of the key's JSON layout
MAX_NODES = 400             # an exercise bigger than this is no exercise
PLAYER_NAMES = {2: ("MAX", "MIN")}


class ExerciseError(Exception):
    """A shape or a file that makes no exercise (the message says why and what to change)."""


# ---- random trees --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    """What a random tree looks like: ``depth`` decision plies, ``branching`` moves at each
    decision, with ``chance`` a chance node of ``outcomes`` outcomes after every decision, and
    ``players`` players taking turns; leaves drawn from ``low..high`` (one value per player
    when there are more than two)."""

    branching: int = 3
    depth: int = 3
    players: int = 2
    chance: bool = False
    outcomes: int = 2
    low: int = -9
    high: int = 9

    def check(self) -> None:
        if not 1 <= self.branching <= 9:
            raise ExerciseError("--branching: give 1 to 9 moves a node")
        if not 1 <= self.depth <= 6:
            raise ExerciseError("--depth: give 1 to 6 plies")
        if not 2 <= self.players <= 6:
            raise ExerciseError("--players: give 2 to 6 players")
        if self.chance and not 2 <= self.outcomes <= 6:
            raise ExerciseError("--outcomes: give 2 to 6 outcomes a chance node")
        if self.low > self.high:
            raise ExerciseError(f"--values {self.low}..{self.high}: the low end is above the "
                                "high end")
        per_ply = self.branching * (self.outcomes if self.chance else 1)
        leaves = per_ply ** self.depth
        if leaves > MAX_NODES // 2:
            raise ExerciseError(f"that shape has {leaves:,} leaves, too many to work by hand "
                                f"(at most {MAX_NODES // 2}): fewer plies or fewer moves")


def random_tree(seed: int, shape: Shape) -> tuple[Node, tuple[str, ...]]:
    """The tree of ``shape`` drawn from ``seed``, labelled as the module notes say, and its
    players' names."""
    shape.check()
    rng = random.Random(seed)
    names = PLAYER_NAMES.get(shape.players) or tuple("ABCDEF"[:shape.players])

    def leaf() -> Leaf:
        if shape.players == 2:
            v = rng.randint(shape.low, shape.high)
            return Leaf((v, -v))
        return Leaf(tuple(rng.randint(shape.low, shape.high) for _ in range(shape.players)))

    def distribution() -> list[Fraction]:
        weights = [rng.randint(1, 3) for _ in range(shape.outcomes)]
        return [Fraction(w, sum(weights)) for w in weights]

    levels: list[str] = []       # what each level of the tree is: p0, p1, ... or chance
    for ply in range(shape.depth):
        levels.append(f"p{ply % shape.players}")
        if shape.chance:
            levels.append("chance")

    def build(level: int) -> Any:
        """The tree drawn depth first, as nested (kind, children); a chance node's children
        are (probability, child)."""
        if level == len(levels):
            return leaf()
        kind = levels[level]
        if kind == "chance":
            return (kind, [(p, build(level + 1)) for p in distribution()])
        return (kind, [build(level + 1) for _ in range(shape.branching)])

    drawn = build(0)
    # Labels breadth first: the root's children a1, a2, ...; each later parent's the next letter.
    labels: dict[int, str] = {}
    letters = _letters()
    queue = deque([drawn])
    while queue:
        node = queue.popleft()
        if isinstance(node, Leaf):
            continue
        kind, kids = node
        letter = next(letters)
        for k, child in enumerate(kids, 1):
            target = child[1] if kind == "chance" else child
            labels[id(target)] = f"{letter}{k}"
            queue.append(target)

    def convert(node: Any) -> Node:
        if isinstance(node, Leaf):
            return node
        kind, kids = node
        if kind == "chance":
            return Chance(tuple((labels[id(child)], p, convert(child)) for p, child in kids))
        return Decision(int(kind[1:]), tuple((labels[id(child)], convert(child))
                                             for child in kids))

    return convert(drawn), names


def _letters():
    """a, b, ..., z, aa, ab, ...: one name a parent."""
    n = 0
    while True:
        text = ""
        k = n
        while True:
            text = chr(ord("a") + k % 26) + text
            k = k // 26 - 1
            if k < 0:
                break
        yield text
        n += 1


def tree_text(title: str, players: tuple[str, ...], root: Node, comment: str = "") -> str:
    """The rule file of an explicit tree (docs/language.md, Explicit trees)."""
    two = len(players) == 2
    lines = [f'game "{title}"']
    lines += [f"# {line}" for line in comment.splitlines() if line]
    lines.append(f"players {', '.join(players)}")
    lines.append("")

    def leaf(node: Leaf) -> str:
        if two:
            return format_value(node.values[0])
        return "(" + ", ".join(format_value(v) for v in node.values) + ")"

    def block(node: Node, indent: int) -> list[str]:
        pad = "    " * indent
        head = "chance" if isinstance(node, Chance) else players[node.player]  # type: ignore
        children = node.children  # type: ignore[union-attr]
        if all(isinstance(c[-1], Leaf) for c in children):
            items = [(f"{c[0]} {format_value(c[1])}: " if isinstance(node, Chance)
                      else f"{c[0]}: ") + leaf(c[-1]) for c in children]  # type: ignore[arg-type]
            return [f"{head} {{ {', '.join(items)} }}"]
        out = [f"{head} {{"]
        for c in children:
            edge = f"{c[0]} {format_value(c[1])}" if isinstance(node, Chance) else c[0]
            inner = block(c[-1], indent + 1) if not isinstance(c[-1], Leaf) else [leaf(c[-1])]
            out.append(f"{pad}    {edge}: {inner[0]}")
            out.extend(inner[1:])
        out.append(f"{pad}}}")
        return out

    body = block(root, 0) if not isinstance(root, Leaf) else [leaf(root)]
    lines.append("tree " + body[0])
    lines.extend(body[1:])
    if two:
        lines.append("zero-sum")
    return "\n".join(lines) + "\n"


# ---- the key -------------------------------------------------------------------------------------

@dataclass
class Exercise:
    """A tree, the algorithm to apply, and the key (see the module notes)."""

    title: str
    rules: str                      # the tree's rule file
    game: Any
    algorithm: str
    names: dict[tuple, str]         # path -> node name
    tree_order: list[tuple]         # every node's path, depth first, children in order
    values: dict[str, Any] = field(default_factory=dict)     # name -> value (JSON form)
    order: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    best: str | None = None
    optimal: list[str] = field(default_factory=list)
    seed: int | None = None
    source: str | None = None       # the file it came from, if not drawn from a seed
    settings: dict[str, Any] = field(default_factory=dict)
    nodes: int = 0                  # the search's node count (stats.nodes)

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.info.players

    @property
    def two_player(self) -> bool:
        return len(self.players) == 2


def node_paths(game: Any) -> list[tuple]:
    """Every node of an explicit tree, depth first (children in order), as paths of labels."""
    out: list[tuple] = []
    stack: list[tuple[Any, tuple]] = [(game.initial_state(), ())]
    while stack:
        state, path = stack.pop()
        out.append(path)
        player = game.current_player(state)
        if player == TERMINAL:
            continue
        moves = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
                 else list(game.legal_actions(state)))
        for move in reversed(moves):
            stack.append((game.apply(state, move), path + (move,)))
        if len(out) > MAX_NODES:
            raise ExerciseError(f"the tree has more than {MAX_NODES} nodes, too many for an "
                                "exercise")
    return out


def names_of(paths: list[tuple], game: Any) -> dict[tuple, str]:
    """Each node's name: its edge's label where every label is unique, else its path."""
    labels = [game.action_name(p[-1]) for p in paths if p]
    unique = len(labels) == len(set(labels)) and "root" not in labels
    return {p: ("root" if not p else game.action_name(p[-1]) if unique
                else " ".join(game.action_name(a) for a in p)) for p in paths}


def value_json(values: tuple, bound: str | None, two_player: bool) -> Any:
    """A node's value in the key: a number (``"p/q"`` for a fraction), ``"<=v"`` / ``">=v"``
    for a bound, a list for a vector."""
    if not two_player:
        return [json_value(v) for v in values]
    v = format_value(values[0])
    if bound == "upper":
        return f"<={v}"
    if bound == "lower":
        return f">={v}"
    return json_value(values[0])


def make_exercise(game: Any, rules: str, title: str, algorithm: str = "auto", *,
                  seed: int | None = None, source: str | None = None) -> Exercise:
    """The exercise of ``algorithm`` on an explicit tree, with its key from the search's own
    trace."""
    from gdl.backends.tree import TreeGame
    from gdl.tools.trace import final_visits, replay, run, unsearched

    if not isinstance(game, TreeGame):
        raise ExerciseError("exercises are explicit trees (a `tree { ... }` file, "
                            "docs/language.md); this file gives rules")
    if algorithm == "auto":
        algorithm = default_algorithm(game.info)
    paths = node_paths(game)
    names = names_of(paths, game)
    traced = run(game, algorithm, limit=MAX_NODES * 4)
    tree = replay(traced.events)
    if tree.problems:       # the solver's own events do not add up: a bug, not the user's
        raise RuntimeError("the trace does not replay: " + "; ".join(tree.problems[:3]))
    exercise = Exercise(title, rules, game, algorithm, names, paths, seed=seed, source=source,
                        settings=dict(traced.settings), nodes=traced.result.stats.nodes)
    two = len(game.info.players) == 2
    visits = final_visits(tree)
    known = intervals(visits, game) if two else {}
    visited: set[tuple] = set()
    for visit in visits:
        name = names[visit.path]
        if visit.path not in visited:
            visited.add(visit.path)
            exercise.order.append(name)
        if visit.leaf:
            continue            # a leaf's value is given
        if visit.values is not None:
            low, high = known.get(id(visit), (None, None))
            bound = "exact" if low is not None and low == high else visit.bound
            exercise.values[name] = value_json(visit.values, bound, two)
        elif visit.probe is not None and visit.probe.limit is not None and two \
                and visit.probe.values is not None:
            # Star2 probed the node (its first child) and never came back: that child's value
            # bounds it, from below for MAX's node, from above for MIN's.
            exercise.values[name] = value_json(visit.probe.values,
                                               "lower" if visit.player == 0 else "upper", two)
    cut: set[tuple] = set()
    for visit in final_visits(tree):
        for move in unsearched(game, visit):
            cut.add(visit.path + (move,))
    exercise.pruned = [names[p] for p in paths if p in cut]
    result = traced.result
    if result.pv:
        exercise.best = game.action_name(result.pv[0])
    exercise.optimal = [game.action_name(a) for a in result.best_actions]
    return exercise


def intervals(visits: list, game: Any) -> dict[int, tuple[Any, Any]]:
    """What the values the search saw prove about each node's true value (two players, the
    first player's): an interval from the leaves up, the latest search of each child counting.
    A node is exact where the children seen pin it down (Russell & Norvig's Figure 5.5 gives
    D [2, 2] once its three leaves are seen, though alpha-beta returned 2 <= alpha there); a
    node that was cut off is only bounded. Where the search's own label is all there is (a
    table's answer, a probe, a chance node cut by Star1/Star2) that label gives the interval."""
    from gdl.tools.trace import unsearched

    inf = float("inf")
    out: dict[int, tuple[Any, Any]] = {}

    def labelled(visit) -> tuple[Any, Any]:
        if visit.values is None:
            return (-inf, inf)
        v = visit.values[0]
        return {"upper": (-inf, v), "lower": (v, inf)}.get(visit.bound, (v, v))

    for visit in reversed(visits):          # children before their parents
        if visit.leaf or visit.from_table or visit.values is None or (
                visit.cutoffs and visit.player == CHANCE):
            out[id(visit)] = labelled(visit)
            continue
        children = visit.latest()
        spans = [out.get(id(c), labelled(c)) for c in children]
        complete = not unsearched(game, visit)
        if visit.player == CHANCE:
            if not complete:
                out[id(visit)] = labelled(visit)
                continue
            low = sum(c.probability * span[0] for c, span in zip(children, spans))
            high = sum(c.probability * span[1] for c, span in zip(children, spans))
        elif visit.player == 0:
            low = max(span[0] for span in spans)
            high = max(span[1] for span in spans) if complete else inf
        else:
            high = min(span[1] for span in spans)
            low = min(span[0] for span in spans) if complete else -inf
        # Never weaker than what the search itself says.
        mine = labelled(visit)
        out[id(visit)] = (max(low, mine[0]), min(high, mine[1]))
    return out


def default_algorithm(info: Any) -> str:
    """The textbook's search for a tree: alpha-beta for two players, expectiminimax with
    chance, max^n for more players."""
    if info.num_players > 2:
        return "maxn"
    return "expectiminimax" if info.has_chance else "alphabeta"


def random_exercise(seed: int, shape: Shape, algorithm: str = "auto") -> Exercise:
    """A random tree of ``shape`` from ``seed`` and its key."""
    from gdl.backends.load import loads

    root, players = random_tree(seed, shape)
    what = (f"{shape.depth} plies, {shape.branching} moves a node"
            + (f", a chance node of {shape.outcomes} outcomes after each move" if shape.chance
               else "") + (f", {shape.players} players" if shape.players > 2 else "")
            + f", leaves from {shape.low} to {shape.high}")
    title = f"Exercise {seed}"
    rules = tree_text(title, players, root,
                      f"Drawn by `gdl exercise --seed {seed}`: {what}.")
    game = loads(rules, f"exercise-{seed}.game")
    return make_exercise(game, rules, title, algorithm, seed=seed)


# ---- as JSON and as text -----------------------------------------------------------------------

def answers(exercise: Exercise) -> dict[str, Any]:
    return {"values": dict(exercise.values), "order": list(exercise.order),
            "pruned": list(exercise.pruned), "best": exercise.best,
            "optimal": list(exercise.optimal)}


def key_json(exercise: Exercise) -> dict[str, Any]:
    """The exercise and its key, in the format `gdl grade` reads."""
    return {
        "gdl_exercise": FORMAT,
        "title": exercise.title,
        "seed": exercise.seed,
        "source": exercise.source,
        "algorithm": exercise.algorithm,
        "settings": {k: v for k, v in exercise.settings.items() if v is not None},
        "players": list(exercise.players),
        "nodes": [exercise.names[p] for p in exercise.tree_order],
        "rules": exercise.rules,
        "answers": answers(exercise),
    }


def blank_answers(exercise: Exercise) -> dict[str, Any]:
    """What a student fills in: the same layout as the key's answers, every value blank."""
    return {"values": {exercise.names[p]: None for p in exercise.tree_order
                       if exercise.game.current_player(state_at(exercise.game, p)) != TERMINAL},
            "order": [], "pruned": [], "best": None}


def state_at(game: Any, path: tuple) -> Any:
    """The state a path of moves leads to from the start."""
    state = game.initial_state()
    for move in path:
        state = game.apply(state, move)
    return state


ALGORITHM_WORDS = {
    "minimax": "minimax",
    "alphabeta": "alpha-beta search (the textbook's: no transposition table, no move "
                 "ordering; the root searched as any other node)",
    "expectiminimax": "expectiminimax",
    "star1": "Star1 (alpha-beta through chance nodes, with the leaves' bounds)",
    "star2": "Star2 (Star1 with probing)",
    "maxn": "max^n",
    "paranoid": "paranoid search",
}


def questions(exercise: Exercise) -> list[str]:
    whose = (f"{exercise.players[0]}'s utility" if exercise.two_player
             else "one value per player, as a vector")
    out = [f"Apply {ALGORITHM_WORDS.get(exercise.algorithm, exercise.algorithm)} to the tree "
           "below, searching the children of every node from left to right (first to last).",
           f"1. Give the value of every node the search visits ({whose}), as far as what the "
           "search has seen shows it: a number, or <=v or >=v where it stops before it knows "
           "the value exactly.",
           "2. List the nodes in the order the search first visits them (start with root).",
           "3. Which nodes does the search never visit, although their parent is visited "
           "(the tops of the subtrees it prunes)?"]
    if exercise.game.current_player(exercise.game.initial_state()) >= 0:
        out.append(f"4. Which move does {_root_mover(exercise)} choose at the root?")
    return out


def _root_mover(exercise: Exercise) -> str:
    player = exercise.game.current_player(exercise.game.initial_state())
    return exercise.players[player] if player >= 0 else "the player to move"


def drawing(exercise: Exercise, with_key: bool) -> list[str]:
    """The tree as indented text: a node's name, who moves, and its value or a blank."""
    game = exercise.game
    lines = []
    for path in exercise.tree_order:
        state = state_at(game, path)
        player = game.current_player(state)
        name = exercise.names[path]
        pad = "    " * len(path)
        edge = ""
        if path:
            parent = state_at(game, path[:-1])
            if game.current_player(parent) == CHANCE:
                p = dict(game.chance_outcomes(parent))[path[-1]]
                edge = f" (probability {format_value(p)})"
        if player == TERMINAL:
            shown = _shown(exercise, game.returns(state))
            lines.append(f"{pad}{name}{edge}: {shown}")
            continue
        who = "chance" if player == CHANCE else exercise.players[player]
        if with_key:
            value = exercise.values.get(name)
            blank = "(not visited)" if value is None else value_text(value)
        else:
            blank = "____"
        lines.append(f"{pad}{name}{edge}: {who} {blank}")
    return lines


def _shown(exercise: Exercise, values: tuple) -> str:
    if exercise.two_player:
        return format_value(values[0])
    return "(" + ", ".join(format_value(v) for v in values) + ")"


def value_text(value: Any) -> str:
    """A key's value as people write it: ``3``, ``≤ 2``, ``(1, 2, 6)``."""
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value).replace("<=", "≤ ").replace(">=", "≥ ")


def exercise_text(exercise: Exercise, with_key: bool = False) -> str:
    head = exercise.title + (f" (seed {exercise.seed})" if exercise.seed is not None else "")
    if exercise.source:
        head += f", from {exercise.source}"
    lines = [head, ""] + questions(exercise) + [""] + drawing(exercise, False)
    if with_key:
        lines += ["", "Answer key", ""] + drawing(exercise, True) + [""]
        lines.append("1. values: " + ", ".join(f"{k} {value_text(v)}"
                                              for k, v in exercise.values.items()))
        lines.append("2. order: " + " ".join(exercise.order))
        lines.append("3. never visited: " + (" ".join(exercise.pruned) or "none"))
        best = exercise.best or "none (no decision at the root)"
        lines.append(f"4. best move: {best}" + (
            f" (every optimal move: {' '.join(exercise.optimal)})"
            if len(exercise.optimal) > 1 else ""))
        lines.append(f"({exercise.nodes} node(s) visited)")
    return "\n".join(lines) + "\n"


def parse_value(value: Any) -> tuple[str, Any] | None:
    """An answer's value as (kind, number or vector): kind "exact", "upper" (<=v) or "lower"
    (>=v); None for a blank. Numbers may be ints, floats, or text ("7/2", "<= 3", "≥ 5")."""
    if value is None or value == "":
        return None
    if isinstance(value, list):
        return ("exact", tuple(_number(v) for v in value))
    if isinstance(value, str):
        text = value.strip().replace("≤", "<=").replace("≥", ">=").replace(" ", "")
        for prefix, kind in (("<=", "upper"), (">=", "lower")):
            if text.startswith(prefix):
                return (kind, _number(text[len(prefix):]))
        if text.startswith("(") and text.endswith(")"):
            return ("exact", tuple(_number(v) for v in text[1:-1].split(",")))
        return ("exact", _number(text))
    return ("exact", _number(value))


def _number(value: Any) -> Fraction | float:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        return Fraction(value)
    text = str(value).strip()
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{value!r} is not a number") from None
