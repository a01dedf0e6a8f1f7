"""An exercise's tree as an SVG drawing: blanks to fill in, or (the key) filled with the search's
values, the order of its visits and the branches it prunes.

Drawn as Russell & Norvig draw game trees: MAX's nodes as triangles pointing up, MIN's pointing
down, chance nodes as circles, leaves as small squares with their value; with more than two
players each decision node is a box named by its player. Every edge carries the name of the node
it leads to (and a chance outcome's probability). No Graphviz is needed: the layout is the
textbook's, leaves evenly spaced and each parent centred over its children.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from gdl.protocol import CHANCE, TERMINAL, format_value
from gdl.tools.exercise import Exercise, state_at, value_text

LEVEL = 84          # vertical distance between plies
MARGIN = 24
TITLE = 40
SIZE = 15           # a node's half-size
PRUNED = "#9a9a9a"
KEYED = "#1f5fbf"


def exercise_svg(exercise: Exercise, with_key: bool = False) -> str:
    game = exercise.game
    paths = exercise.tree_order
    two = exercise.two_player
    children: dict[tuple, list[tuple]] = {p: [] for p in paths}
    for p in paths:
        if p:
            children[p[:-1]].append(p)
    leaves = [p for p in paths if not children[p]]
    width_each = 46 if two else 24 + 20 * len(exercise.players)
    x: dict[tuple, float] = {}
    for i, p in enumerate(leaves):
        x[p] = MARGIN + width_each / 2 + i * width_each
    for p in sorted(paths, key=len, reverse=True):
        if children[p]:
            kids = children[p]
            x[p] = (x[kids[0]] + x[kids[-1]]) / 2
    depth = max(len(p) for p in paths)
    width = int(2 * MARGIN + width_each * len(leaves))
    height = int(TITLE + MARGIN + depth * LEVEL + 2 * SIZE + 40)

    def y(p: tuple) -> float:
        return TITLE + MARGIN + SIZE + 16 + len(p) * LEVEL

    order = {name: i + 1 for i, name in enumerate(exercise.order)}
    pruned_tops = set(exercise.pruned)
    below_pruned: set[tuple] = set()
    for p in paths:
        if any(exercise.names[p[:k]] in pruned_tops for k in range(1, len(p) + 1)):
            below_pruned.add(p)

    title = exercise.title + (" — answer key" if with_key else "")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{MARGIN}" y="{TITLE - 12}" font-size="16">{escape(title)}</text>']
    whose = f"{exercise.players[0]}'s utility" if two else "one value per player"
    legend = (f"{exercise.algorithm}, children left to right; values are {whose}"
              + ("; blue numbers: the order of visits; grey dashed: never visited"
                 if with_key else "; fill in the empty nodes"))
    out.append(f'<text x="{MARGIN}" y="{TITLE + 4}" font-size="11" fill="#444">'
               f'{escape(legend)}</text>')
    # Edges first, under the nodes.
    for p in paths:
        if not p:
            continue
        parent = p[:-1]
        grey = with_key and p in below_pruned
        style = f'stroke="{PRUNED}" stroke-dasharray="4 3"' if grey else 'stroke="#333"'
        x1, y1, x2, y2 = x[parent], y(parent) + SIZE, x[p], y(p) - SIZE
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" {style}/>')
        label = exercise.names[p].split(" ")[-1]
        parent_state = state_at(game, parent)
        if game.current_player(parent_state) == CHANCE:
            probability = dict(game.chance_outcomes(parent_state))[p[-1]]
            label += f" {format_value(probability)}"
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        anchor = "end" if x2 < x1 - 1 else "start" if x2 > x1 + 1 else "middle"
        dx = -4 if anchor == "end" else 4 if anchor == "start" else 6
        colour = PRUNED if grey else "#333"
        out.append(f'<text x="{mx + dx:.1f}" y="{my:.1f}" font-size="10" fill="{colour}" '
                   f'text-anchor="{anchor}">{escape(label)}</text>')
    for p in paths:
        out.extend(_node(exercise, p, x[p], y(p), with_key, order, p in below_pruned))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _node(exercise: Exercise, path: tuple, cx: float, cy: float, with_key: bool,
          order: dict[str, int], pruned: bool) -> list[str]:
    game = exercise.game
    state = state_at(game, path)
    player = game.current_player(state)
    name = exercise.names[path]
    two = exercise.two_player
    stroke = PRUNED if with_key and pruned else "#222"
    out: list[str] = []
    half = SIZE + 4.0           # half the node's width: where its visit number goes
    if player == TERMINAL:
        values = game.returns(state)
        shown = format_value(values[0]) if two else \
            "(" + ",".join(format_value(v) for v in values) + ")"
        w = max(2 * SIZE - 6, 7 * len(shown) + 8)
        half = w / 2
        out.append(f'<rect x="{cx - w / 2:.1f}" y="{cy - SIZE + 3:.1f}" width="{w:.1f}" '
                   f'height="{2 * SIZE - 6}" fill="white" stroke="{stroke}"/>')
        out.append(_centred(cx, cy + 4, shown, 11, stroke))
    else:
        if player == CHANCE:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{SIZE}" fill="white" '
                       f'stroke="{stroke}"/>')
            half = SIZE
        elif two:
            up = player == 0
            tip, base = (cy - SIZE - 2, cy + SIZE) if up else (cy + SIZE + 2, cy - SIZE)
            points = f"{cx:.1f},{tip:.1f} {cx - SIZE - 4:.1f},{base:.1f} {cx + SIZE + 4:.1f},{base:.1f}"
            out.append(f'<polygon points="{points}" fill="white" stroke="{stroke}"/>')
        else:
            w = 20 * len(exercise.players) + 10
            half = w / 2
            out.append(f'<rect x="{cx - w / 2:.1f}" y="{cy - SIZE:.1f}" width="{w}" '
                       f'height="{2 * SIZE}" rx="4" fill="white" stroke="{stroke}"/>')
            out.append(_centred(cx, cy - SIZE - 4, exercise.players[player], 10, stroke))
        if with_key:
            value = exercise.values.get(name)
            if value is not None:
                out.append(_centred(cx, cy + 4, value_text(value), 11, KEYED))
    if with_key and name in order:
        out.append(f'<text x="{cx + half + 3:.1f}" y="{cy - SIZE + 4:.1f}" font-size="9" '
                   f'fill="{KEYED}">{order[name]}</text>')
    if not path:
        out.append(f'<text x="{cx - half - 6:.1f}" y="{cy + 4:.1f}" font-size="10" '
                   f'fill="#444" text-anchor="end">root</text>')
    return out


def _centred(x: float, y: float, text: str, size: int, colour: str) -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{colour}" '
            f'text-anchor="middle">{escape(text)}</text>')
