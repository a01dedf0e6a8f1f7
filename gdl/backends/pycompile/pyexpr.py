"""A Python expression under construction (``P``): its text, its structure, and what the compiler
knows about it. The text is only ever built here, from numbers (gdl.backends.pycompile.safe_text),
compiler-chosen names and the texts of other ``P`` values."""

from __future__ import annotations

from collections.abc import Sequence

from gdl.backends.pycompile.safe_text import literal

_NOCONST = object()
_PYOP = {"and": "and", "or": "or"}
_FLAT = {"and", "or", "+", "*"}


class P:
    """A Python expression under construction: its text, and what the compiler knows about it.

    ``safe``: evaluating it cannot raise; ``const``: its value, when known; ``vals``: a frozenset
    of every value it can take (None: unknown); ``facts``: what is true when it is truthy
    (text -> (low, high) bounds, and the texts of sub-conditions); ``cost``: rough size.
    ``kind``/``parts`` keep the structure for common-subexpression elimination."""

    __slots__ = ("const", "cost", "facts", "kind", "parts", "safe", "text", "vals")

    def __init__(self, kind, parts, text, *, safe=True, const=_NOCONST, vals=None, facts=None,
                 cost=1):
        self.kind, self.parts, self.text = kind, parts, text
        self.safe, self.const, self.vals = safe, const, vals
        self.facts = facts or {}
        self.cost = cost

    @property
    def is_const(self) -> bool:
        return self.const is not _NOCONST


def const(value) -> P:
    return P("const", (), literal(value), const=value, vals=frozenset((value,)), cost=0)


def name(text: str, vals=None) -> P:
    """A compiler-chosen Python name (a local, a parameter, a temporary)."""
    return P("name", (), text, vals=vals, cost=0)


def _strip(p: P, op: str) -> str:
    """The text of an operand; a left operand with the same associative operator loses its
    parentheses, so long chains stay flat (Python's parser limits nesting)."""
    if p.kind == "op" and p.parts[0] == op and op in _FLAT:
        return p.text[1:-1]
    return p.text


def _render(kind: str, parts) -> str:
    if kind == "read":
        container, index = parts
        return f"{container}[{index.text}]"
    if kind == "op":
        op, left, right = parts
        return f"({_strip(left, op)} {_PYOP.get(op, op)} {_strip(right, op)})"
    if kind == "not":
        return f"(not {parts[0].text})"
    if kind == "neg":
        return f"(-{parts[0].text})"
    if kind == "if":
        cond, then, otherwise = parts
        return f"({then.text} if {cond.text} else {otherwise.text})"
    if kind == "call":
        function, args = parts
        return f"{function}({', '.join(a.text for a in args)})"
    if kind == "check":
        x, extent, site, temp = parts
        if temp is None:
            return f"({x.text} if 0 <= {x.text} < {extent} else _e303({x.text}, {site}))"
        return f"({temp} if 0 <= ({temp} := {x.text}) < {extent} else _e303({temp}, {site}))"
    if kind == "bind":
        pairs, body = parts
        tests = " and ".join(f"({t} := {a.text}) is not None" for t, a in pairs)
        return f"({body.text} if {tests} else None)"
    if kind == "walrus":
        temp, x = parts
        return f"({temp} := {x.text})"
    raise AssertionError(kind)


def node(kind: str, parts, **known) -> P:
    """A compound expression; ``known`` is what the caller proved about it (P's keywords)."""
    return P(kind, parts, _render(kind, parts), **known)


def children(p: P) -> list[P]:
    k = p.kind
    if k == "read":
        return [p.parts[1]]
    if k == "op":
        return [p.parts[1], p.parts[2]]
    if k in ("not", "neg"):
        return [p.parts[0]]
    if k == "if":
        return list(p.parts)
    if k == "call":
        return list(p.parts[1])
    if k == "check":
        return [p.parts[0]]
    if k == "bind":
        return [a for _, a in p.parts[0]] + [p.parts[1]]
    if k == "walrus":
        return [p.parts[1]]
    return []


def rebuild(p: P, kids: Sequence[P]) -> P:
    """``p`` with new children (in the order of ``children``), knowing what ``p`` was known."""
    k = p.kind
    parts: tuple
    if k == "read":
        parts = (p.parts[0], kids[0])
    elif k == "op":
        parts = (p.parts[0], kids[0], kids[1])
    elif k in ("not", "neg"):
        parts = (kids[0],)
    elif k == "if":
        parts = tuple(kids)
    elif k == "call":
        parts = (p.parts[0], tuple(kids))
    elif k == "check":
        parts = (kids[0],) + tuple(p.parts[1:])
    elif k == "bind":
        pairs = tuple((t, a) for (t, _), a in zip(p.parts[0], kids))
        parts = (pairs, kids[-1])
    elif k == "walrus":
        parts = (p.parts[0], kids[0])
    else:
        return p
    return P(k, parts, _render(k, parts), safe=p.safe, const=p.const, vals=p.vals,
             facts=p.facts, cost=p.cost)


class Temporaries:
    """The temporaries of one generated function (``_c1``, ``_i2``, ...): compiler-chosen names."""

    def __init__(self) -> None:
        self.counter = 0
        self.by_text: dict[tuple[str, str], str] = {}

    def temp(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def temp_for(self, prefix: str, text: str) -> str:
        """One temporary per distinct text: bindings of the same text hold the same value."""
        key = (prefix, text)
        if key not in self.by_text:
            self.by_text[key] = self.temp(prefix)
        return self.by_text[key]
