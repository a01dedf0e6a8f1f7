"""gdl's per-user cache directory, shared by the grammar's parser tables and compiled games.

What is cached there is loaded as code (a pickled parser, compiled modules), so it is opened
without races: every directory from ``gdl`` down is opened relative to its parent with
``O_NOFOLLOW`` and checked with ``fstat`` (a directory of this user's, writable by nobody else;
a directory gdl creates is made 0700), and every file is opened relative to the directory's
descriptor and checked the same way before one byte of it is read. Nobody can swap a symlink
in between a check and a use, because no path is looked up twice. ``GDL_NO_CACHE=1`` turns
the cache off; a relative ``XDG_CACHE_HOME`` is ignored (the XDG specification says so, and it
would depend on the working directory).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


def cache_base() -> Path | None:
    """``$XDG_CACHE_HOME`` when it is absolute, else ``~/.cache``; None when caching is off."""
    if os.environ.get("GDL_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base)


def _private(info: os.stat_result, kind) -> bool:
    return kind(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & _WRITABLE_BY_OTHERS


class PrivateDir:
    """An open cache directory, checked private: files are read and written relative to it."""

    def __init__(self, fd: int):
        self.fd = fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> PrivateDir:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def read_entry(self, name: str, limit: int, format: int) -> dict | None:
        """The JSON object in ``name`` (read as ``read`` does) whose "format" is ``format``;
        None for anything else: a cache entry of another gdl, or damaged, is never fatal."""
        data = self.read(name, limit)
        if data is None:
            return None
        try:
            entry = json.loads(data.decode("utf-8"))
        except (ValueError, UnicodeError, RecursionError):
            return None
        return entry if isinstance(entry, dict) and entry.get("format") == format else None

    def read(self, name: str, limit: int | None = None) -> bytes | None:
        """The bytes of ``name``, if it is a regular file of this user's, writable by nobody
        else (and no larger than ``limit``); None otherwise."""
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=self.fd)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not _private(info, stat.S_ISREG) or (limit is not None and info.st_size > limit):
                return None
            with os.fdopen(fd, "rb") as handle:
                fd = -1
                return handle.read()
        except OSError:
            return None
        finally:
            if fd >= 0:
                os.close(fd)

    def write(self, name: str, data: bytes) -> bool:
        """Write ``name`` (0600) atomically: a temporary file, then a rename inside this directory."""
        temporary = f".{name}.{os.getpid()}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                         0o600, dir_fd=self.fd)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            return True
        except OSError:
            try:
                os.unlink(temporary, dir_fd=self.fd)
            except OSError:
                pass
            return False

    def names(self) -> list[str]:
        try:
            return os.listdir(self.fd)
        except OSError:
            return []

    def mtime(self, name: str) -> float:
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mtime
        except OSError:
            return 0.0

    def remove_oldest(self, suffixes: str | tuple[str, ...], keep: int) -> list[str]:
        """Remove the oldest entries whose names end with ``suffixes`` until at most ``keep``
        are left (a bounded cache); the names removed."""
        names = sorted((n for n in self.names() if n.endswith(suffixes)), key=self.mtime)
        removed = names[:max(0, len(names) - keep)]
        for name in removed:
            self.remove(name)
        return removed

    def remove(self, name: str) -> None:
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            pass


def open_private_dir(*parts: str) -> PrivateDir | None:
    """``<cache base>/gdl/<parts>``, opened race-free and created 0700 where missing, or None
    when caching is off, the platform cannot open directories relative to one another, or any
    directory from ``gdl`` down is not this user's own and writable by nobody else."""
    base = cache_base()
    if base is None or os.open not in os.supports_dir_fd:
        return None
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    for part in ("gdl", *parts):
        try:
            try:
                os.mkdir(part, 0o700, dir_fd=fd)
            except FileExistsError:
                pass
            child = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = child
        try:
            info = os.fstat(fd)
            if not _private(info, stat.S_ISDIR):
                os.close(fd)
                return None
            if info.st_mode & 0o077:
                os.fchmod(fd, 0o700)   # ours, but readable by others: an old gdl made it 0755
        except OSError:
            os.close(fd)
            return None
    return PrivateDir(fd)


def renamable_ancestor(path: Path) -> tuple[str, str] | None:
    """The first directory at or above ``path`` (as written, then as resolved) in which another
    user could rename an entry, with why: it is another user's (not root's), or others may write
    to it without the sticky bit. None when there is no such directory. Loading a shared library
    by name, or trusting files in a directory, is only safe where there is none."""
    seen: set[str] = set()
    for start in (Path(os.path.abspath(path)), Path(os.path.realpath(path))):
        for directory in (start, *start.parents):
            name = str(directory)
            if name in seen:
                continue
            seen.add(name)
            try:
                info = os.lstat(directory)
            except OSError:
                continue                 # not there yet: it will be created private
            if stat.S_ISLNK(info.st_mode):
                continue                 # its target is checked on the resolved way
            if info.st_uid not in (0, os.getuid()):
                return name, "belongs to another user"
            if info.st_mode & _WRITABLE_BY_OTHERS and not info.st_mode & stat.S_ISVTX:
                return name, "is writable by other users without the sticky bit"
    return None


def unsafe_ancestor(path: Path) -> str | None:
    """``renamable_ancestor`` as a message that says how to fix it, for the native cache."""
    found = renamable_ancestor(path)
    if found is None:
        return None
    name, why = found
    fix = (f"chmod go-w {name}" if "writable" in why else "move it under your own home")
    return f"{name} {why} ({fix}, or set XDG_CACHE_HOME to a directory of yours)"


def private_cache_dir(*parts: str) -> Path | None:
    """The path of ``open_private_dir(*parts)`` (checked now): for messages and tests only;
    read and write through `open_private_dir`, never through this path."""
    directory = open_private_dir(*parts)
    if directory is None:
        return None
    directory.close()
    base = cache_base()
    return None if base is None else base.joinpath("gdl", *parts)
