"""Loading rule text as a game: parse, check and compile it, or take the compiled module from a
per-user cache so that loading a rule file again skips all three.

The cache lives in ``$XDG_CACHE_HOME/gdl/compiled`` (or ``~/.cache/gdl/compiled``), is used
only if that directory is the user's own and writable by nobody else (its files are run as
code), and is keyed by the rule text, the file name, the parameter overrides and the state of
gdl's own source files, so any change to either gives a fresh entry. ``GDL_NO_CACHE=1`` turns
it off.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from gdl.backends.runtime import CompiledGame
from gdl.cache import cache_base, open_private_dir
from gdl.errors import Source
from gdl.kif import is_kif
from gdl.lang.text import normalize, read_rule_file
from gdl.protocol import Game

FORMAT = 1
CACHE_ENTRIES = 256    # the cache keeps about this many generated modules (oldest go first)
MAX_ENTRY_BYTES = 4 * 1024 * 1024   # a larger compiled module is not cached


BACKENDS = ("native", "compile", "interpret")


def loads(text: str, filename: str = "<input>", params: Mapping[str, int | bool | str] | None = None,
          backend: str = "compile") -> Game:
    """Parse, check and build a game from rule text. Raises GdlError for any mistake in it.
    A ``filename`` ending in ``.kif`` means GDL-KIF text (gdl.kif.load).

    ``backend="compile"`` (the default) generates Python source for the rules (gdl.backends.compiler);
    ``backend="native"`` is that game with the rules and the search loops also compiled to machine
    code (gdl.backends.native: ``game.native``, or ``game.native_note`` saying why not);
    ``backend="interpret"`` uses the reference interpreter (gdl.backends.interpret). Both implement the
    same protocol with the same results; explicit trees are a TreeGame either way. Compiled
    games are cached per user (gdl.backends.runtime), so loading the same rules again is quick."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    text = normalize(text, filename)
    if is_kif(filename):    # GDL-KIF: checked, translated into rule text, built by this function
        from gdl.kif.load import load as load_kif

        return load_kif(text, filename, params, backend, loads)
    if backend == "compile":
        return load_text(text, filename, params)
    if backend == "native":
        from gdl.backends.native.attach import attach

        key = _cache_key(text, filename, dict(params or {}))   # once: it stats gdl's sources
        early: list = []

        def compile_c_early(checked) -> None:
            if checked.tree is None and checked.simultaneous is None:   # (neither is native)
                from gdl.backends.native.attach import EarlyLibrary
                from gdl.backends.native.build import compiler

                if compiler() is not None:
                    early.append(EarlyLibrary(checked, filename, key))

        try:
            game = _load_text(text, filename, dict(params or {}), key, compile_c_early)
        except BaseException:
            for pending in early:           # leave no compiler running behind an error
                try:
                    pending.cancel()        # Ctrl-C: stop the compile rather than wait for it
                    pending.result()
                except Exception:
                    pass
            raise
        attach(game, filename, key, early[0] if early else None)
        return game
    from gdl.backends.interpret import build
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    source = Source(filename, text)
    return build(check(parse(text, filename), source, params), source)


def load(path: str | Path, params: Mapping[str, int | bool | str] | None = None,
         backend: str = "compile") -> Game:
    """Load a game from a rule file: `loads` on its text, with the file's name in every error.
    ``params`` overrides the file's ``param`` declarations, as ``--set`` does. A file that cannot
    be read raises OSError; one that is not UTF-8 or too large, GdlError (gdl.lang.text)."""
    return loads(read_rule_file(path), str(path), params, backend)


def load_text(text: str, filename: str = "<input>", params=None):
    """The compiled game for rule text (a TreeGame for an explicit tree), from the cache when
    this text was compiled before with the same parameters and the same gdl."""
    params = dict(params or {})
    text = normalize(text, filename)
    return _load_text(text, filename, params, _cache_key(text, filename, params))


def _load_text(text: str, filename: str, params: dict, key: str | None, checked_hook=None):
    """load_text with its cache key computed (normalized text, params a dict). On a cache miss,
    ``checked_hook`` is given the checked game before its Python is built."""
    entry = _cache_read(key) if key else None
    source = Source(filename, text)
    if entry is not None:
        try:
            return CompiledGame(entry["descriptor"], entry["source"], source, params,
                                code=entry.get("code"))
        except Exception:
            pass
    from gdl.backends.compiler import build_compiled
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    checked = check(parse(text, filename), source, params)
    if checked_hook is not None:
        checked_hook(checked)
    game = build_compiled(checked, source, params)
    if key and isinstance(game, CompiledGame):
        _cache_write(key, {"descriptor": game._descriptor, "source": game.python_source},
                     game._code)
    return game


def _gdl_stamp() -> str:
    """The state of gdl's own sources (names, sizes, modification times): a new compiler or
    checker never reads an entry written by an old one."""
    here = Path(__file__).resolve().parent.parent
    parts = [str(FORMAT)]
    places = [here]
    try:
        import importlib.util

        spec = importlib.util.find_spec("gdl.grammars")
        places += [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    except (ImportError, ValueError):
        pass
    for place in places:
        # every package at every depth: the compiler lives in gdl/backends/pycompile/
        for folder, subfolders, names in os.walk(place):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".lark", ".c", ".h")):
                    info = os.stat(os.path.join(folder, name))
                    relative = os.path.relpath(os.path.join(folder, name), place)
                    parts.append(f"{relative}:{info.st_size}:{info.st_mtime_ns}")
    return "|".join(parts)


def _cache_key(text: str, filename: str, params: dict) -> str | None:
    try:
        if cache_base() is None:
            return None
        overrides = sorted((k, type(v).__name__, v) for k, v in params.items())
        material = "\0".join([sys.version, _gdl_stamp(), filename, repr(overrides), text])
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    except (OSError, UnicodeError):
        return None


def _cache_read(key: str) -> dict | None:
    """The cached entry: descriptor, source and (when present and sound) the code object. Both
    files are opened through the checked private directory (gdl.cache), never by path."""
    directory = open_private_dir("compiled")
    if directory is None:
        return None
    with directory:
        entry = directory.read_entry(f"{key}.json", MAX_ENTRY_BYTES, FORMAT)
        if entry is None:
            return None
        code = directory.read(f"{key}.code", limit=MAX_ENTRY_BYTES)
    if code is not None:
        try:
            entry["code"] = marshal.loads(code)   # written by this Python (the key says so)
        except (ValueError, EOFError, TypeError):
            pass
    return entry


def _cache_write(key: str, entry: dict, code=None) -> None:
    """Keep an entry, unless it is too large to be worth its disk space (a game with a million
    ground actions compiles to megabytes that are quicker to build again than to read)."""
    try:
        document = json.dumps({"format": FORMAT, **entry}).encode("utf-8")
        marshalled = marshal.dumps(code) if code is not None else None
    except (ValueError, TypeError):
        return
    if len(document) + len(marshalled or b"") > MAX_ENTRY_BYTES:
        return
    directory = open_private_dir("compiled")
    if directory is None:
        return
    with directory:
        for old in directory.remove_oldest(".json", CACHE_ENTRIES - 1):
            directory.remove(old[:-len(".json")] + ".code")
        if marshalled is not None:
            directory.write(f"{key}.code", marshalled)
        directory.write(f"{key}.json", document)
