"""The GDL-KIF grammar (``grammars/kif.lark``, shipped as ``gdl.grammars``) and its LALR parser.

Built like the rule language's (gdl.lang.grammar): Lark's tables are cached in the user's private
cache directory (gdl.cache), a pickle that only this user can have written, opened through the
checked directory and handed to Lark as bytes.
"""

from __future__ import annotations

import hashlib
import io
import sys
from functools import cache
from importlib import resources

import lark

from gdl.cache import open_private_dir

MAX_CACHED_TABLES = 4 * 1024 * 1024   # bytes; a larger file is not our tables


def grammar_text() -> str:
    return resources.files("gdl.grammars").joinpath("kif.lark").read_text(encoding="utf-8")


@cache
def build_parser(strict: bool = False) -> lark.Lark:
    """The LALR parser of KIF text. ``strict`` (the grammar's test) also proves that the grammar
    has no conflicts and no colliding terminals; it is never cached."""
    options = dict(parser="lalr", strict=strict)
    text = grammar_text()
    directory = None if strict else open_private_dir()
    if directory is None:
        return lark.Lark(text, **options)
    with directory:
        material = f"{lark.__version__}\0{sys.version}\0kif\0{sorted(options.items())!r}\0{text}"
        name = f"kif-{hashlib.sha256(material.encode()).hexdigest()[:32]}.lark.cache"
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
