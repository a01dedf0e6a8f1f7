"""Translations kept per user, so that loading a KIF file again skips parsing, checking,
grounding, proving and writing (seconds on a large game): the translated rule text and the
names that relate it to the KIF game, or the reason a game is not translated.

They live in gdl's private cache directory (gdl.cache: ours, 0700, opened without races) under
``kif/``, keyed by the KIF text, the file's name (the translation names it) and the state of
gdl's KIF sources and grammars, so a new translator never reads an old entry. What is stored is
JSON, read back as data, never run. ``GDL_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib import resources
from pathlib import Path

from gdl.cache import open_private_dir

FORMAT = 1
ENTRIES = 128
MAX_ENTRY_BYTES = 4 * 1024 * 1024


def _stamp() -> str:
    """Names, sizes and modification times of the translator's sources and both grammars."""
    parts = [str(FORMAT), sys.version]
    here = Path(__file__).resolve().parent
    places = sorted(here.glob("*.py"))
    try:
        grammars = resources.files("gdl.grammars")
        places += [Path(str(grammars.joinpath(name))) for name in ("kif.lark", "game.lark")]
    except (ImportError, TypeError, ValueError):
        pass
    for place in places:
        try:
            info = os.stat(place)
        except OSError:
            continue
        parts.append(f"{place.name}:{info.st_size}:{info.st_mtime_ns}")
    return "|".join(parts)


def key(text: str, filename: str) -> str:
    material = "\0".join([_stamp(), filename, text])
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def read(name: str) -> dict | None:
    """The entry stored under ``name`` (a key), or None."""
    directory = open_private_dir("kif")
    if directory is None:
        return None
    with directory:
        return directory.read_entry(f"{name}.json", MAX_ENTRY_BYTES, FORMAT)


def write(name: str, entry: dict) -> None:
    try:
        data = json.dumps({"format": FORMAT, **entry}).encode("utf-8")
    except (ValueError, TypeError):
        return
    if len(data) > MAX_ENTRY_BYTES:
        return
    directory = open_private_dir("kif")
    if directory is None:
        return
    with directory:
        directory.remove_oldest(".json", ENTRIES - 1)
        directory.write(f"{name}.json", data)


def as_json(term):
    """A ground term as JSON (compound terms as lists)."""
    return [as_json(t) for t in term] if isinstance(term, tuple) else term


def from_json(value):
    return tuple(from_json(v) for v in value) if isinstance(value, list) else value
