"""A position given by the values of its state variables, by name: start a search from a test
position without a copy of the rule file (the API's ``position``, the command line's
``--position "cell[1][1]=X; heap=[1, 2, 3]; mover=B"``).

Values are written as in a rule file: integers, ``true``/``false``, symbol names, and nested
lists ``[..]`` for arrays; ``name[i][j]=v`` sets one element. Every value is checked against the
variable's declared domain and shape. Variables not given keep their value in the initial state
(the declared values, when the game starts with chance)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from gdl.lang import ir

_TOKEN = re.compile(r"\s*(?:(-?\d+)|([A-Za-z_][A-Za-z0-9_]*)|(\[)|(\])|(,))")


class PositionError(ValueError):
    """A position that the game's state layout refuses: unknown name, bad value or shape."""


def parse_assignments(text: str) -> dict[str, object]:
    """``"a=1; cell[0][2]=X; heap=[1, 2]"`` → ``{"a": 1, "cell[0][2]": "X", "heap": [1, 2]}``."""
    out: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise PositionError(f"expected NAME=VALUE, not {part!r}")
        out[name.replace(" ", "")] = parse_value(value)
    return out


def parse_value(text: str):
    """One value: an integer, true/false, a symbol's name, or a nested list of them."""
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        found = _TOKEN.match(text, pos)
        if not found or found.end() == pos:
            raise PositionError(f"cannot read {text!r} at {text[pos:]!r}")
        tokens.append(found)
        pos = found.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1

    def item(i: int):
        if i >= len(tokens):
            raise PositionError(f"{text!r} ends too early")
        number, word, opening = tokens[i].group(1), tokens[i].group(2), tokens[i].group(3)
        if number is not None:
            return int(number), i + 1
        if word is not None:
            return {"true": True, "false": False}.get(word, word), i + 1
        if opening is None:
            raise PositionError(f"unexpected {tokens[i].group(0).strip()!r} in {text!r}")
        items, i = [], i + 1
        while i < len(tokens) and tokens[i].group(4) is None:
            value, i = item(i)
            items.append(value)
            if i < len(tokens) and tokens[i].group(5) is not None:
                i += 1
        if i >= len(tokens):
            raise PositionError(f"a '[' is not closed in {text!r}")
        return items, i + 1

    value, end = item(0)
    if end != len(tokens):
        raise PositionError(f"unexpected text after the value in {text!r}")
    return value


def position(game, assignments: Mapping[str, object], base: tuple | None = None) -> tuple:
    """The state with the given variables set (and ``mover``: a player's name), the rest as in
    ``base`` (default: the game's initial state, or its declared values if it starts with chance)."""
    rules: ir.Game | None = getattr(game, "ir", None)
    if rules is None or rules.tree is not None:
        raise PositionError("only a game of rules (not an explicit tree) has state variables")
    size = len(rules.initial)
    if base is None:
        base = game.initial_state()
        if len(base) != size:
            base = rules.initial
    cells = list(base[:size])
    by_name = {v.name: v for v in rules.variables}
    symbols = list(rules.symbols)
    for key, value in assignments.items():
        name, indices = _split(key)
        if name == "mover":
            if indices or value not in rules.players:
                raise PositionError(f"mover must be a player ({', '.join(rules.players)}), "
                                    f"not {value!r}")
            cells[0] = rules.players.index(value)
            continue
        var = by_name.get(name)
        if var is None:
            listing = ", ".join(["mover", *by_name])
            raise PositionError(f"the game has no variable '{name}' (its variables: {listing})")
        shape = var.shape[len(indices):]
        if len(indices) > len(var.shape) or any(
                not 0 <= i < extent for i, extent in zip(indices, var.shape)):
            raise PositionError(f"'{key}': '{name}' has shape {list(var.shape)}")
        start = var.slot + sum(i * s for i, s in zip(indices, ir.strides(var.shape)))
        for offset, cell in enumerate(_cells(value, shape, key)):
            cells[start + offset] = _encode(cell, var, symbols, key)
    return tuple(cells)


def _split(key: str) -> tuple[str, list[int]]:
    found = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)", key)
    if not found:
        raise PositionError(f"{key!r} is not a variable name, with perhaps [index]es")
    return found[1], [int(i) for i in re.findall(r"\d+", found[2])]


def _cells(value, shape: tuple[int, ...], key: str) -> list:
    """The row-major cells of ``value`` for ``shape``: one value fills them all."""
    if not isinstance(value, list):
        count = 1
        for extent in shape:
            count *= extent
        return [value] * count
    if not shape or len(value) != shape[0]:
        raise PositionError(f"'{key}': the list does not have the shape {list(shape)}")
    return [cell for item in value for cell in _cells(item, shape[1:], key)]


def _encode(cell, var: ir.Variable, symbols: list[str], key: str):
    if var.type == ir.BOOL:
        ok = type(cell) is bool
        encoded = cell
    elif var.type == ir.INT:
        ok = type(cell) is int
        encoded = cell
    else:
        ok = isinstance(cell, str) and cell in symbols
        encoded = symbols.index(cell) if ok else None
    if not ok or encoded not in var.values:
        shown = [symbols[v] for v in var.values] if var.type == ir.SYM else list(var.values)
        raise PositionError(f"'{key}': {cell!r} is outside the domain of '{var.name}' "
                            f"(values: {shown})")
    return encoded
