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


class Var(str):
    """A variable, named as written (``?x``). It is a ``str`` so that it hashes and compares at
    the speed of one (bindings are dicts keyed by variables); no constant starts with ``?``, so
    a variable never equals a constant. Code that tells terms apart asks ``type(t) is Var``
    before it asks for a ``str``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return str(self)


def relation(atom) -> str:
    """The relation (or function) name of an atom or term: ``cell`` for ``(cell 1 1 b)``."""
    return atom[0] if type(atom) is tuple else atom


def arguments(atom) -> tuple:
    return atom[1:] if type(atom) is tuple else ()


def variables(term) -> Iterator[Var]:
    """Every variable in a term, in order of appearance (with repeats)."""
    if type(term) is Var:
        yield term
    elif type(term) is tuple:
        for argument in term[1:]:
            yield from variables(argument)


def is_ground(term) -> bool:
    kind = type(term)
    if kind is Var:
        return False
    if kind is tuple:
        return all(is_ground(a) for a in term[1:])
    return True


def substitute(term, binding: dict):
    """The term with every bound variable replaced by its value (unbound ones stay)."""
    kind = type(term)
    if kind is Var:
        return binding.get(term, term)
    if kind is tuple:
        return (term[0],) + tuple([substitute(a, binding) for a in term[1:]])
    return term


def match(pattern, ground, binding: dict) -> dict | None:
    """The binding extended so that ``pattern`` becomes ``ground``, or None when it cannot.
    ``binding`` is not changed (a new dict is returned when a variable is bound)."""
    kind = type(pattern)
    if kind is Var:
        bound = binding.get(pattern)
        if bound is None:
            extended = binding.copy()
            extended[pattern] = ground
            return extended
        return binding if bound == ground else None
    if kind is tuple:
        if type(ground) is not tuple or len(pattern) != len(ground) or pattern[0] != ground[0]:
            return None
        for i in range(1, len(pattern)):
            part = pattern[i]
            if type(part) is str:
                if part != ground[i]:
                    return None
                continue
            inner = match(part, ground[i], binding)
            if inner is None:
                return None
            binding = inner
        return binding
    return binding if pattern == ground else None


_INTEGER = re.compile(r"-?[0-9]+\Z")


def is_integer(term) -> bool:
    return type(term) is str and _INTEGER.match(term) is not None


def order_key(term) -> tuple:
    """A total order on ground terms, the same in every run: integers by value, then other
    constants by their text, then compound terms by name and arguments. Moves are listed in
    this order (solvers break ties by it), so ``(mark 1 2)`` comes before ``(mark 1 10)``."""
    if type(term) is tuple:
        return (2, term[0], tuple(order_key(a) for a in term[1:]))
    if type(term) is int:       # a round of an unrolled cycle (gdl.kif.translate's LEVEL atoms)
        return (0, term, str(term))
    if _INTEGER.match(term):
        return (0, int(term), term)
    return (1, term)


def kif_text(term) -> str:
    """A term written as KIF: ``(cell 1 1 b)``, ``?x``, ``noop``."""
    if type(term) is Var:
        return term.name
    if type(term) is tuple:
        return "(" + " ".join(kif_text(part) for part in term) + ")"
    return term
