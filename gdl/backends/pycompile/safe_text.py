"""The only ways text derived from a rule file enters the generated source.

Untrusted input stays data: nothing from the rule file is pasted into the source except what
cannot change its meaning:

* numbers and booleans, written by ``literal`` (``int``, ``bool`` and ``Fraction`` only; anything
  else is refused);
* the file's own lines, names and titles inside ``#`` comments, after ``comment_text`` has
  replaced every character that is not printable (newlines, carriage returns, form feeds, NUL,
  line separators) by ``?``, so the comment cannot end early;
* a user's identifier as part of a generated Python name, only through ``name_part``: after a
  fixed prefix chosen by the compiler, checked to be ASCII letters, digits and ``_``, and cut to
  24 characters, so keywords, dunders and very long names are harmless.

Every other Python name in the generated code is the compiler's own (``s``, ``_c3``, ``q2_r``).
Names, titles and messages reach the run-time errors through tables built in Python
(gdl.backends.runtime), never through the source. The module runs with a ``__builtins__`` that
holds only the few functions it calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction


def literal(value: object) -> str:
    """A number or boolean as Python source (negative numbers parenthesised)."""
    if type(value) is bool:
        return "True" if value else "False"
    if type(value) is int:
        return str(value) if value >= 0 else f"({value})"
    if type(value) is Fraction:
        return f"_Fraction({value.numerator}, {value.denominator})"
    raise AssertionError(f"not a literal: {value!r}")


def tuple_literal(values: Iterable[object]) -> str:
    return "(" + "".join(f"{literal(v)}, " for v in values) + ")"


def name_part(identifier: str) -> str:
    """A user's identifier as part of a generated name: grammar-checked, cut short."""
    return identifier[:24] if identifier.replace("_", "a").isalnum() and identifier.isascii() else "x"


def comment_text(text: str, limit: int = 160) -> str:
    """Text for a ``#`` comment: printable characters only, so it cannot end the comment."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text)
    return cleaned if len(cleaned) <= limit else cleaned[:limit - 3] + "..."
