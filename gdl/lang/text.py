"""Rule text as it enters gdl: read from a file or given as a string, it means the same thing.

A file is read as bytes and decoded here, not with universal newlines, so that `gdl` on the
command line and `gdl.loads()` see the same characters: every line ending (``\\r\\n`` and a lone
``\\r``) becomes ``\\n`` in both. A leading UTF-8 byte-order mark is dropped; bytes that are not
UTF-8 are a located error (E104); a file larger than ``MAX_RULE_CHARS`` is refused (E105)
rather than parsed for minutes without a word.
"""

from __future__ import annotations

import os
from pathlib import Path

from gdl.errors import Diagnostic, GdlError, Source
from gdl.span import Span

MAX_RULE_CHARS = 1_000_000   # the largest bundled game is a few kilobytes
_BOM = "\ufeff"


def normalize(text: str, filename: str = "<input>") -> str:
    """The text with one kind of line ending and no byte-order mark; E105 when too large."""
    if len(text) > MAX_RULE_CHARS:
        raise GdlError(Diagnostic(
            "E105", f"the rule text has {len(text):,} characters, more than {MAX_RULE_CHARS:,}",
            hint="a rule file is a description of a game, not its data; split or shorten it"),
            Source(filename, ""))
    if text.startswith(_BOM):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_rule_file(path: str | os.PathLike) -> str:
    """A rule file's text, normalized. Raises OSError when it cannot be read (missing, a
    directory, no permission) and GdlError when it is not UTF-8 or too large."""
    path = Path(path)
    with open(path, "rb") as handle:     # IsADirectoryError, FileNotFoundError, PermissionError
        data = handle.read(4 * MAX_RULE_CHARS + 1)
    if len(data) > 4 * MAX_RULE_CHARS:   # more characters than allowed, whatever their width
        normalize("\0" * (MAX_RULE_CHARS + 1), str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[:error.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        shown = Source(str(path), data.decode("utf-8", "replace"))
        raise GdlError(Diagnostic(
            "E104", f"byte {data[error.start]:#04x} is not UTF-8 text",
            Span(line, column, line, column + 1), hint="save the file as UTF-8"), shown) from None
    return normalize(text, str(path))
