"""Terms as the reasoners hold them: plain, hashable Python values.

A constant is a ``str`` (``"cell"``, ``"1"``); a compound term or an atom with arguments is a
``tuple`` whose first item is its function or relation name (``("cell", "1", "1", "b")``); a
variable is a ``Var``. An atom without arguments is its name, a ``str``. So a ground term is
made of strings and tuples only, hashes fast, and is its own key in a set of facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Union

Term = Union[str, tuple, "Var"]


class Var:
    """A variable, named as written (``?x``). Two occurrences in one rule are the same Var."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Var) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("?var", self.name))

    def __repr__(self) -> str:
        return self.name


def relation(atom) -> str:
    """The relation (or function) name of an atom or term: ``cell`` for ``(cell 1 1 b)``."""
    return atom[0] if isinstance(atom, tuple) else atom


def arguments(atom) -> tuple:
    return atom[1:] if isinstance(atom, tuple) else ()


def variables(term) -> Iterator[Var]:
    """Every variable in a term, in order of appearance (with repeats)."""
    if isinstance(term, Var):
        yield term
    elif isinstance(term, tuple):
        for argument in term[1:]:
            yield from variables(argument)


def is_ground(term) -> bool:
    if isinstance(term, Var):
        return False
    if isinstance(term, tuple):
        return all(is_ground(a) for a in term[1:])
    return True


def substitute(term, binding: dict):
    """The term with every bound variable replaced by its value (unbound ones stay)."""
    if isinstance(term, Var):
        return binding.get(term, term)
    if isinstance(term, tuple):
        return (term[0],) + tuple(substitute(a, binding) for a in term[1:])
    return term


def match(pattern, ground, binding: dict) -> dict | None:
    """The binding extended so that ``pattern`` becomes ``ground``, or None when it cannot.
    ``binding`` is not changed (a new dict is returned when a variable is bound)."""
    if isinstance(pattern, Var):
        bound = binding.get(pattern)
        if bound is None:
            extended = dict(binding)
            extended[pattern] = ground
            return extended
        return binding if bound == ground else None
    if isinstance(pattern, tuple):
        if not isinstance(ground, tuple) or len(pattern) != len(ground) or pattern[0] != ground[0]:
            return None
        for p, g in zip(pattern[1:], ground[1:]):
            result = match(p, g, binding)
            if result is None:
                return None
            binding = result
        return binding
    return binding if pattern == ground else None


_INTEGER = re.compile(r"-?[0-9]+\Z")


def is_integer(term) -> bool:
    return isinstance(term, str) and _INTEGER.match(term) is not None


def order_key(term) -> tuple:
    """A total order on ground terms, the same in every run: integers by value, then other
    constants by their text, then compound terms by name and arguments. Moves are listed in
    this order (solvers break ties by it), so ``(mark 1 2)`` comes before ``(mark 1 10)``."""
    if isinstance(term, tuple):
        return (2, term[0], tuple(order_key(a) for a in term[1:]))
    if _INTEGER.match(term):
        return (0, int(term), term)
    return (1, term)


def kif_text(term) -> str:
    """A term written as KIF: ``(cell 1 1 b)``, ``?x``, ``noop``."""
    if isinstance(term, Var):
        return term.name
    if isinstance(term, tuple):
        return "(" + " ".join(kif_text(part) for part in term) + ")"
    return term
