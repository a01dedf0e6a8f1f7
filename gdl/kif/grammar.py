"""The GDL-KIF grammar (``grammars/kif.lark``, shipped as ``gdl.grammars``) and its LALR parser.

Built by the rule language's builder (gdl.lang.grammar.build_lark): Lark's tables are cached in
the user's private cache directory (gdl.cache), a pickle that only this user can have written,
opened through the checked directory and handed to Lark as bytes.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import lark

from gdl.lang.grammar import build_lark


def grammar_text() -> str:
    return resources.files("gdl.grammars").joinpath("kif.lark").read_text(encoding="utf-8")


@cache
def build_parser(strict: bool = False) -> lark.Lark:
    """The LALR parser of KIF text. ``strict`` (the grammar's test) also proves that the grammar
    has no conflicts and no colliding terminals; it is never cached."""
    return build_lark("kif", cached=not strict, text=grammar_text(), parser="lalr", strict=strict)
