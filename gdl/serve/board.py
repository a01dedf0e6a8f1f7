"""The board the page draws, from the rule file's `display` declarations (docs/language.md,
"display"): where each cell goes, what is drawn in it, and which cells a click on plays a move.

A display with only texts (`display cell as {empty: ".", X: "X"}`) is a plain ``grid`` block, a
table with the first index down and the second across, as it always was. One that says more, a
picture for a value, a layout word, or a move played by clicking on it, is a ``board`` block:
every cell with its place (``row``, ``column``, ``height``, ``width`` in cells of the drawn
board), its text, its picture and its indices (``at``), which a move's ``cells`` name.

Layout, in this order: the array's own (first index down, second across; a one-index array a
row; `mancala`: a 2n + 2 array of houses and stores, the first player's houses left to right
along the bottom and its store on the right, the second's right to left along the top and its
store on the left, sowing anticlockwise), then `transpose` (first index across), `flip` (rows
upward: row 0 at the bottom) and `mirror` (columns leftward). `hex` draws each row half a cell
right of the one above (the page does it: a rhombus of hexagons, as Hex is drawn).

A move's cells come from `display ACTION(names) as cell[...] [-> cell[...]]`, evaluated at the
position with the move's parameters bound (the same expression semantics as the rules,
gdl.lang.evaluate): ``[["cell", [2]]]`` for Connect Four's drop(2) (a prefix of the indices: any
cell of column 2), ``[["cell", [1, 0]], ["cell", [2, 1]]]`` for a move from one cell to another.

Images named by a display (`image "pieces/king.svg"`) are read from the rule file's directory
or below it (the checker refuses other paths; here the resolved file must still be inside it,
so a symbolic link cannot lead out), at most ``MAX_IMAGE`` bytes, an SVG or a PNG by its
content too, and sent as ``data:`` URIs: the page shows them in <img> elements, where an SVG
never runs script (and the page's Content-Security-Policy allows images from data: only).
"""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_IMAGE = 256 * 1024          # bytes: a piece's picture, not a photograph
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def rules_of(game: Any) -> Any:
    """The checked rules (gdl.lang.ir.Game) behind a loaded game, or None (an explicit tree)."""
    rules = getattr(game, "ir", None)
    return None if rules is None or rules.tree is not None else rules


class Boards:
    """The boards of one game: blocks for the page, and each move's cells."""

    def __init__(self, game: Any, filename: str | None = None):
        self.game = game
        self.rules = rules_of(game)
        self.texts: Mapping = getattr(game, "display", None) or {}
        self.problems: list[str] = []       # what could not be drawn (a missing image...)
        self._images: dict[str, str | None] = {}
        self._directory = _directory_of(filename)
        self._clicks: dict[str, tuple] = {}
        if self.rules is not None:
            from gdl.lang.evaluate import expr_fn

            for click in self.rules.clicks:
                cells = tuple((cell.variable.name, tuple(expr_fn(i) for i in cell.indices))
                              for cell in click.cells)
                self._clicks[click.action.name] = (click.names, cells)

    # ---- what is drawn -------------------------------------------------------------------------

    def blocks(self, values: Mapping) -> list[dict]:
        """The position as blocks (``values``: the variables as ``game.variables`` or
        ``seen_variables`` give them)."""
        if not self.texts:
            return [{"kind": "table", "rows": [[name, _plain(v)] for name, v in values.items()]}]
        boards = self.rules.boards if self.rules is not None else {}
        clicked = {cell.variable.name for click in (self.rules.clicks if self.rules else ())
                   for cell in click.cells}
        blocks: list[dict] = []
        for name, glyphs in self.texts.items():
            if name not in values:
                continue
            board = boards.get(name)
            if board is None or (board.plain and name not in clicked):
                blocks.extend(_plain_blocks(name, values[name], glyphs))
            else:
                blocks.extend(self._drawn(name, values[name], glyphs, board))
        return blocks

    def _drawn(self, name: str, value: Any, glyphs: Mapping, board: Any, at: tuple = ()) -> list:
        if isinstance(value, list) and value and isinstance(value[0], list) and value[0] \
                and isinstance(value[0][0], list):
            return [block for i, layer in enumerate(value)
                    for block in self._drawn(f"{name}[{i}]", layer, glyphs, board, at + (i,))]
        pictures = self._pictures(name, board)
        placed = _place(value, board)
        cells = []
        for index, item, (row, column, height, width) in placed:
            cell: dict[str, Any] = {"at": list(at + index), "row": row, "column": column,
                                    "text": _glyph(item, glyphs), "value": _plain(item)}
            if height != 1:
                cell["height"] = height
            if width != 1:
                cell["width"] = width
            picture = pictures.get(_key(item))
            if picture is not None:
                cell["picture"] = picture
            cells.append(cell)
        rows = max((c["row"] + c.get("height", 1) for c in cells), default=0)
        columns = max((c["column"] + c.get("width", 1) for c in cells), default=0)
        down, across = _axes(value, board, len(at))
        return [{"kind": "board", "name": name, "variable": name.split("[", 1)[0],
                 "layout": board.layout, "checkered": board.checkered,
                 "background": board.background, "rows": rows, "columns": columns,
                 "row_labels": _labels(cells, "row", rows, down),
                 "column_labels": _labels(cells, "column", columns, across),
                 "cells": cells}]

    def _pictures(self, name: str, board: Any) -> dict:
        """Pictures by the value as the page sees it (a symbol by name)."""
        from gdl.lang import ir

        var = next(v for v in self.rules.variables if v.name == name.split("[", 1)[0])
        found = {}
        for value, picture in board.pictures:
            key = self.rules.symbols[value] if var.type == ir.SYM else value
            if picture.shape == "image":
                source = self._image(picture.colour)
                if source is None:
                    continue        # drawn as its text; ``problems`` says why
                found[_key(key)] = {"shape": "image", "src": source}
            else:
                found[_key(key)] = {"shape": picture.shape, "colour": picture.colour}
        return found

    def _image(self, path: str) -> str | None:
        if path not in self._images:
            source, problem = _read_image(self._directory, path)
            self._images[path] = source
            if problem is not None:
                self.problems.append(problem)
        return self._images[path]

    # ---- which cells play a move ---------------------------------------------------------------

    @property
    def clickable(self) -> bool:
        return bool(self._clicks)

    def cells(self, state: Any, action: Any) -> list | None:
        """The cells a person clicks to play ``action`` at ``state``: one, or two (from, to),
        each ``[variable, [indices]]``; None for a move no display names (or whose cells
        cannot be computed here: the move stays in the list)."""
        if self.rules is None or not isinstance(action, int) or not self._clicks:
            return None
        ground = self.rules.ground_actions[action]
        found = self._clicks.get(ground.action.name)
        if found is None:
            return None
        names, cells = found
        from gdl.lang.evaluate import EvalError

        env = dict(zip(names, ground.args))
        try:
            return [[variable, [index(state, env) for index in indices]]
                    for variable, indices in cells]
        except (EvalError, IndexError) as error:
            problem = (f"display {ground.name}: {getattr(error, 'message', error)}; the move is "
                       "played from the list")
            if problem not in self.problems:
                self.problems.append(problem)
            return None


# ---- layout --------------------------------------------------------------------------------------

def _place(value: Any, board: Any) -> list[tuple[tuple, Any, tuple[int, int, int, int]]]:
    """Every cell of a value: (its indices, its value, (row, column, height, width))."""
    placed: list[tuple[tuple[int, ...], Any, tuple[int, int, int, int]]]
    if not isinstance(value, list):
        placed = [((), value, (0, 0, 1, 1))]
    elif board.layout == "mancala":
        houses = (len(value) - 2) // 2
        placed = []
        for i, item in enumerate(value):
            if i < houses:
                where = (1, i + 1, 1, 1)
            elif i == houses:
                where = (0, houses + 1, 2, 1)
            elif i < 2 * houses + 1:
                where = (0, 2 * houses + 1 - i, 1, 1)
            else:
                where = (0, 0, 2, 1)
            placed.append(((i,), item, where))
    elif value and isinstance(value[0], list):
        placed = [((i, j), item, (i, j, 1, 1)) for i, row in enumerate(value)
                  for j, item in enumerate(row)]
    else:
        placed = [((j,), item, (0, j, 1, 1)) for j, item in enumerate(value)]
    if board.transpose:
        placed = [(index, item, (c, r, w, h)) for index, item, (r, c, h, w) in placed]
    rows = max(r + h for _, _, (r, _, h, _) in placed)
    columns = max(c + w for _, _, (_, c, _, w) in placed)
    if board.flip:
        placed = [(index, item, (rows - r - h, c, h, w)) for index, item, (r, c, h, w) in placed]
    if board.mirror:
        placed = [(index, item, (r, columns - c - w, h, w)) for index, item, (r, c, h, w) in placed]
    return placed


def _labels(cells: list[dict], axis: str, count: int, position: int | None) -> list[str]:
    """The index each drawn row (or column) shows: the one at ``position`` of the cells' ``at``
    (Connect Four's top row, drawn flipped, is row 3); blanks where no index runs along."""
    labels = [""] * count
    if position is None:
        return labels
    for cell in cells:
        if cell.get("height", 1) == 1 and cell.get("width", 1) == 1:
            labels[cell[axis]] = str(cell["at"][position])
    return labels


def _axes(value: Any, board: Any, depth: int) -> tuple[int | None, int | None]:
    """Which position of a cell's ``at`` runs down the drawn board, and which across (None:
    none does, as in a mancala board)."""
    if not isinstance(value, list) or board.layout == "mancala":
        return None, None
    down, across = ((depth, depth + 1) if value and isinstance(value[0], list)
                    else (None, depth))
    return (across, down) if board.transpose else (down, across)


# ---- texts ---------------------------------------------------------------------------------------

def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _plain(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return _text(value)


def _key(value) -> str:
    """A value as a dictionary key the page can match (JSON has no bool or int keys)."""
    return _text(value)


def _glyph(value, glyphs: Mapping) -> str:
    shown = glyphs.get(value)
    return shown if shown is not None else _text(value)


def _plain_blocks(name: str, value, glyphs: Mapping) -> list[dict]:
    """A display of texts only: a ``scalar``, or a ``grid`` (2-D: first index down, second
    across; a 1-D array is one row; more dimensions give one grid per first index)."""
    if not isinstance(value, list):
        return [{"kind": "scalar", "name": name, "value": _glyph(value, glyphs)}]
    if value and isinstance(value[0], list) and value[0] and isinstance(value[0][0], list):
        return [block for i, layer in enumerate(value)
                for block in _plain_blocks(f"{name}[{i}]", layer, glyphs)]
    rows = value if value and isinstance(value[0], list) else [value]
    return [{"kind": "grid", "name": name, "rows": [[_glyph(v, glyphs) for v in row] for row in rows]}]


# ---- images --------------------------------------------------------------------------------------

def _directory_of(filename: str | None) -> Path | None:
    """The directory of the rule file, where its images are; None when the rules are in no file."""
    if not filename:
        return None
    path = Path(filename)
    try:
        return path.resolve().parent if path.is_file() else None
    except OSError:
        return None


def _read_image(directory: Path | None, name: str) -> tuple[str | None, str | None]:
    """(a data: URI, None), or (None, why not)."""
    from gdl.lang.ir import IMAGE_TYPES

    if directory is None:
        return None, f"image {name!r}: the rules are not read from a file, so they have no images"
    suffix = os.path.splitext(name)[1].lower()
    kind = IMAGE_TYPES.get(suffix)
    try:
        path = (directory / name).resolve()
        if kind is None or not path.is_relative_to(directory):
            return None, f"image {name!r}: not a .svg or .png file under {directory}"
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                return None, f"image {name!r}: not a regular file"
            if info.st_size > MAX_IMAGE:
                return None, f"image {name!r}: larger than {MAX_IMAGE // 1024} KiB"
            data = os.read(descriptor, MAX_IMAGE + 1)
        finally:
            os.close(descriptor)
    except OSError as error:
        return None, f"image {name!r}: {error.strerror or error}"
    if len(data) > MAX_IMAGE:
        return None, f"image {name!r}: larger than {MAX_IMAGE // 1024} KiB"
    if suffix == ".png" and not data.startswith(PNG_MAGIC):
        return None, f"image {name!r}: not a PNG image"
    if suffix == ".svg" and b"<svg" not in data[:4096]:
        return None, f"image {name!r}: not an SVG image"
    return f"data:{kind};base64," + base64.b64encode(data).decode("ascii"), None
