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
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from gdl.backends.runtime import CompiledGame
from gdl.cache import private_cache_dir
from gdl.errors import Source
from gdl.protocol import Game

FORMAT = 1
CACHE_ENTRIES = 256    # the cache keeps about this many generated modules (oldest go first)


BACKENDS = ("native", "compile", "interpret")


def loads(text: str, filename: str = "<input>", params: Mapping[str, int | bool] | None = None,
          backend: str = "compile") -> Game:
    """Parse, check and build a game from rule text. Raises GdlError for any mistake in it.

    ``backend="compile"`` (the default) generates Python source for the rules (gdl.backends.compiler);
    ``backend="native"`` is that game with the rules and the search loops also compiled to machine
    code (gdl.backends.native: ``game.native``, or ``game.native_note`` saying why not);
    ``backend="interpret"`` uses the reference interpreter (gdl.backends.interpret). Both implement the
    same protocol with the same results; explicit trees are a TreeGame either way. Compiled
    games are cached per user (gdl.backends.runtime), so loading the same rules again is quick."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if backend == "compile":
        return load_text(text, filename, params)
    if backend == "native":
        from gdl.backends.native.attach import attach

        game = load_text(text, filename, params)
        attach(game, filename, _cache_key(text, filename, dict(params or {})))
        return game
    from gdl.backends.interpret import build
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    source = Source(filename, text)
    return build(check(parse(text, filename), source, params), source)


def load(path: str | Path, params: Mapping[str, int | bool] | None = None,
         backend: str = "compile") -> Game:
    """Load a game from a rule file: `loads` on its text, with the file's name in every error.
    ``params`` overrides the file's ``param`` declarations, as ``--set`` does."""
    path = Path(path)
    return loads(path.read_text(encoding="utf-8"), str(path), params, backend)


def load_text(text: str, filename: str = "<input>", params=None):
    """The compiled game for rule text (a TreeGame for an explicit tree), from the cache when
    this text was compiled before with the same parameters and the same gdl."""
    params = dict(params or {})
    key = _cache_key(text, filename, params)
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

    game = build_compiled(check(parse(text, filename), source, params), source, params)
    if key and isinstance(game, CompiledGame):
        _cache_write(key, {"descriptor": game._descriptor, "source": game.python_source},
                     game._code)
    return game


def _gdl_stamp() -> str:
    """The state of gdl's own sources (names, sizes, modification times): a new compiler or
    checker never reads an entry written by an old one."""
    here = Path(__file__).resolve().parent.parent
    parts = [str(FORMAT)]
    places = [here] + [path for path in sorted(here.iterdir()) if path.is_dir()]
    try:
        import importlib.util

        spec = importlib.util.find_spec("gdl.grammars")
        places += [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    except (ImportError, ValueError):
        pass
    for place in places:
        for name in sorted(os.listdir(place)):
            if name.endswith((".py", ".lark")):
                info = os.stat(place / name)
                parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
    return "|".join(parts)


def _cache_key(text: str, filename: str, params: dict) -> str | None:
    try:
        if private_cache_dir("compiled") is None:
            return None
        overrides = sorted((k, type(v).__name__, v) for k, v in params.items())
        material = "\0".join([sys.version, _gdl_stamp(), filename, repr(overrides), text])
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    except (OSError, UnicodeError):
        return None


def _read_private(path: Path) -> bytes | None:
    """A file's bytes, if it is ours and writable by nobody else (it is going to run)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            return handle.read()
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)


def _cache_read(key: str) -> dict | None:
    """The cached entry: descriptor, source and (when present and sound) the code object."""
    directory = private_cache_dir("compiled")
    if directory is None:
        return None
    data = _read_private(directory / f"{key}.json")
    if data is None:
        return None
    try:
        entry = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        return None
    code = _read_private(directory / f"{key}.code")
    if code is not None:
        try:
            entry["code"] = marshal.loads(code)   # written by this Python (the key says so)
        except (ValueError, EOFError, TypeError):
            pass
    return entry


def _cache_write(key: str, entry: dict, code=None) -> None:
    directory = private_cache_dir("compiled")
    if directory is None:
        return
    try:
        existing = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in existing[:max(0, len(existing) - CACHE_ENTRIES + 1)]:
            old.unlink(missing_ok=True)
            old.with_suffix(".code").unlink(missing_ok=True)
        if code is not None:
            _write_private(directory / f"{key}.code", marshal.dumps(code))
        _write_private(directory / f"{key}.json",
                       json.dumps({"format": FORMAT, **entry}).encode("utf-8"))
    except (OSError, ValueError, TypeError):
        pass


def _write_private(path: Path, data: bytes) -> None:
    """Write a file readable and writable by its owner only, atomically."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
