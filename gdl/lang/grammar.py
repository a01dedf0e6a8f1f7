"""The rule language's grammar (``grammars/game.lark``, shipped as ``gdl.grammars``) and the Lark
objects built from it: the LALR parser, the comment-reporting lexer of the formatter, and the
reserved words.

Building LALR tables costs tens of milliseconds, so Lark's cache of them is kept in the user's
private cache directory (gdl.cache): the cache is a pickle, and loading one that another user
could write would run their code.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
from functools import cache
from importlib import resources
from typing import Any

import lark

from gdl.cache import open_private_dir

MAX_CACHED_TABLES = 16 * 1024 * 1024   # bytes; a larger file is not our tables


def grammar_text() -> str:
    return resources.files("gdl.grammars").joinpath("game.lark").read_text(encoding="utf-8")


def build_lark(kind: str, cached: bool = True, text: str | None = None,
               **options: Any) -> lark.Lark:
    """A Lark object for the grammar (``text``: another grammar, e.g. KIF's), its tables cached
    per user under a name of ``kind``, the Lark and Python versions, the options and the grammar
    (a new grammar never reads old tables).

    The cache file is opened relative to the private directory's descriptor and checked before
    it is unpickled (gdl.cache); Lark is handed the bytes, never a path it would open again."""
    text = grammar_text() if text is None else text
    directory = open_private_dir() if cached else None
    if directory is None:
        return lark.Lark(text, **options)
    with directory:
        material = f"{lark.__version__}\0{sys.version}\0{kind}\0{sorted(options.items())!r}\0{text}"
        name = f"{kind}-{hashlib.sha256(material.encode()).hexdigest()[:32]}.lark.cache"
        data = directory.read(name, limit=MAX_CACHED_TABLES)
        if data is not None:
            try:
                return lark.Lark.load(io.BytesIO(data))
            except Exception:   # a damaged cache entry is rebuilt, never fatal
                directory.remove(name)
        parser = lark.Lark(text, **options)
        buffer = io.BytesIO()
        parser.save(buffer)
        directory.write(name, buffer.getvalue())
        return parser


@cache
def build_parser(strict: bool = False) -> lark.Lark:
    """The LALR parser. ``strict`` (used by the grammar's tests) also proves that the grammar has
    no shift/reduce conflicts and no colliding terminals; it is never cached."""
    return build_lark("grammar", cached=not strict, parser="lalr", propagate_positions=True,
                      maybe_placeholders=True, strict=strict)


@cache
def reserved_words() -> frozenset[str]:
    """Keywords of the language: they look like names but can never be used as one."""
    return frozenset(t.pattern.value for t in build_parser().terminals
                     if isinstance(t.pattern, lark.lexer.PatternStr)
                     and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t.pattern.value))
