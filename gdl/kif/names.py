"""KIF names as names of gdl's rule language: ``mark_1_1`` for the move ``(mark 1 1)``.

The rule language's names are letters, digits and ``_``, not starting with a digit, and not one
of its reserved words; KIF's constants may be ``map+``, ``1`` or ``next``. Both reasoners name
roles and moves with these functions, so a move has one name whichever runs the game.
"""

from __future__ import annotations

import re
from functools import cache

from gdl.kif.terms import Var

_SIGNS = {"+": "plus", "-": "_", "*": "times", "/": "_", "<": "lt", ">": "gt", "=": "eq",
          ".": "_", "!": "not", "&": "and", "|": "or", "%": "pct", "#": "hash", "$": "dollar",
          "@": "at", "^": "hat", "~": "tilde", "'": "_", "`": "_", ",": "_", ":": "_",
          "[": "_", "]": "_", "{": "_", "}": "_", "\\": "_"}


@cache
def _reserved() -> frozenset[str]:
    from gdl.lang.grammar import reserved_words

    return reserved_words() | {"zero", "constant", "max_length", "players", "kif_none"}


def identifier(text: str) -> str:
    """A name of the rule language for one KIF word (constant or relation)."""
    pieces = []
    for char in text:
        if char.isascii() and (char.isalnum() or char == "_"):
            pieces.append(char)
        else:
            sign = _SIGNS.get(char, "_")
            # a sign inside a word keeps the word readable: map+ -> map_plus, a-b -> a_b
            if sign != "_" and pieces and pieces[-1] != "_":
                pieces.append("_")
            pieces.append(sign)
    name = re.sub(r"_+", "_", "".join(pieces)) if any(c != "_" for c in pieces) else "".join(pieces)
    if not name:
        name = "_"
    if name[0].isdigit():
        name = "_" + name
    if name in _reserved():
        name += "_"
    return name


def term_identifier(term) -> str:
    """A name for a ground term: its words joined by ``_`` (``(mark 1 1)`` → ``mark_1_1``)."""
    words: list[str] = []

    def walk(part) -> None:
        if isinstance(part, tuple):
            for item in part:
                walk(item)
        elif isinstance(part, Var):
            words.append(part.name.lstrip("?"))
        else:
            words.append(part)

    walk(term)
    joined = "_".join(identifier(w).strip("_") or "_" for w in words)
    return identifier(joined)


class Names:
    """Distinct names for distinct things: a name already given to something else gets a
    number (``mark_1_1_2``). The same thing always gets the same name."""

    def __init__(self, taken: set[str] | None = None):
        self.given: dict[object, str] = {}
        self.taken: set[str] = set(taken or ())

    def name(self, thing, wanted) -> str:
        """The name of ``thing``: ``wanted`` (a string, or a function that makes it: called only
        the first time) unless another thing has it."""
        known = self.given.get(thing)
        if known is not None:
            return known
        if callable(wanted):
            wanted = wanted()
        name, number = wanted, 1
        while name in self.taken:
            number += 1
            name = f"{wanted}_{number}"
        self.taken.add(name)
        self.given[thing] = name
        return name
