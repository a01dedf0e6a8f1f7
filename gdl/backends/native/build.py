"""C source → a shared library, built by the system C compiler and cached per user.

The library goes in ``gdl.cache.private_cache_dir("native")`` under the hash of its source and of
the compiler command, so the same rules never compile twice. The file is written under a fresh
name (O_EXCL, 0600) and renamed into place; it is loaded from an open descriptor (O_NOFOLLOW,
checked with fstat to be ours, a regular file and writable by nobody else) in a directory that
``private_cache_dir`` checked to be ours and closed to others, so no one else can swap it. The
cache keeps at most ``CACHE_ENTRIES`` libraries, oldest first out. Without a private cache
directory (``GDL_NO_CACHE=1``) the library is built in a private temporary directory and removed
once loaded.

No compiler, or a compiler that fails: ``NativeUnavailable`` with a one-line reason; the caller
runs the Python tier.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

from gdl.cache import open_private_dir, private_cache_dir, unsafe_ancestor

CACHE_ENTRIES = 64
MAX_REASON = 4096       # bytes of a remembered refusal
FLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu11", "-w", "-fvisibility=default")
# Added after FLAGS on demand, for a sanitizer run of the native tests (.ci/sanitize); part of
# the cache key, so such a library is never mixed with the ordinary ones.
EXTRA_FLAGS_VARIABLE = "GDL_NATIVE_CFLAGS"


class NativeUnavailable(Exception):
    """The native tier cannot run here (no compiler, a failed build); the message says why."""


class Refused(Exception):
    """Making the C for this key was refused before (remembered in the cache, so a game the
    native tier does not cover costs no second attempt at every load); the message says why."""


def compiler() -> str | None:
    """The C compiler: $CC if set, else cc or gcc on the PATH."""
    chosen = os.environ.get("CC")
    if chosen:
        return shutil.which(chosen)
    return shutil.which("cc") or shutil.which("gcc")


def library_for(c_source: str | Callable[[], str], key: str | None = None,
                refusals: tuple[type[Exception], ...] = ()) -> ctypes.CDLL:
    """The loaded library for this source, from the cache or freshly compiled. ``c_source`` may
    be a function that makes the source, called only when the cache has no library under
    ``key`` (the loader's key for the rule text, so a cache hit needs neither the checked game
    nor the C text); without a key the source's own hash names the library. An exception of a
    type in ``refusals`` raised by that function is remembered under the key: later calls
    raise ``Refused`` with its message instead of calling the function again."""
    cc = compiler()
    if cc is None:
        raise NativeUnavailable("no C compiler found (set CC, or install gcc)")
    if key is None:
        c_source = c_source if isinstance(c_source, str) else c_source()
        key = c_source
    digest = _digest(cc, key)
    directory = private_cache_dir("native")
    if directory is not None:
        # dlopen takes a path: only safe where nobody else can rename anything on its way
        unsafe = unsafe_ancestor(directory)
        if unsafe is not None:
            raise NativeUnavailable(f"native code is not loaded from the cache: {unsafe}")
        path = directory / f"{digest}.so"
        library = _load_private(path)
        if library is not None:
            return library
        refused = _refusal(f"{digest}.refused")
        if refused is not None:
            raise Refused(refused)
        try:
            c_source = c_source if isinstance(c_source, str) else c_source()
        except refusals as error:
            _remember_refusal(f"{digest}.refused", str(error))
            raise
        _compile(cc, c_source, directory, path)
        _trim(directory)
        library = _load_private(path)
        if library is None:
            raise NativeUnavailable("the compiled library could not be loaded from the cache")
        return library
    c_source = c_source if isinstance(c_source, str) else c_source()
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gdl-native-") as scratch:
        unsafe = unsafe_ancestor(Path(scratch))
        if unsafe is not None:
            raise NativeUnavailable(f"native code is not loaded from {scratch}: {unsafe}")
        path = Path(scratch) / "game.so"
        _compile(cc, c_source, Path(scratch), path)
        library = _load_private(path)
    if library is None:
        raise NativeUnavailable("the compiled library could not be loaded")
    return library


def _extra_flags() -> tuple[str, ...]:
    """Compiler flags from ``$GDL_NATIVE_CFLAGS`` (split as a shell would), added after FLAGS:
    ``GDL_NATIVE_CFLAGS="-fsanitize=address,undefined -g"`` builds every library with the
    sanitizers (.ci/sanitize runs the native tests so, with the runtime preloaded into Python).
    Empty when unset: the ordinary build. Unbalanced quotes: split at blanks instead (the
    compiler then says what it makes of the words)."""
    import shlex

    text = os.environ.get(EXTRA_FLAGS_VARIABLE, "")
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.split())


def _digest(cc: str, key: str) -> str:
    return hashlib.sha256("\0".join((cc, *FLAGS, *_extra_flags(), key)).encode()).hexdigest()[:32]


def is_cached(key: str) -> bool:
    """Whether the cache holds a library, or a remembered refusal, under the loader's ``key``:
    ``library_for(source, key)`` then never calls ``source``."""
    cc = compiler()
    directory = None if cc is None else private_cache_dir("native")
    if cc is None or directory is None:
        return False
    digest = _digest(cc, key)
    return (directory / f"{digest}.so").exists() or (directory / f"{digest}.refused").exists()


def _compile(cc: str, c_source: str, directory: Path, target: Path) -> None:
    """Compile into a fresh private name in ``directory``, then rename onto ``target``."""
    # Imported here, not at the top: a cache hit never compiles (start-up).
    import subprocess
    import tempfile

    fd, c_path = tempfile.mkstemp(suffix=".c", prefix=".gdl-", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(c_source)
    temporary = directory / f".{target.name}.{os.getpid()}.tmp"
    try:
        done = subprocess.run([cc, *FLAGS, *_extra_flags(), "-o", str(temporary), c_path],
                              capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0 or not temporary.exists():
            first = (done.stderr.strip().splitlines() or ["no output"])[0]
            raise NativeUnavailable(f"the C compiler failed: {first[:200]}")
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except (OSError, subprocess.SubprocessError) as error:
        raise NativeUnavailable(f"the C compiler could not run: {error}") from None
    finally:
        os.unlink(c_path)
        if temporary.exists():
            temporary.unlink()


def _load_private(path: Path) -> ctypes.CDLL | None:
    """Load ``path`` if it is a regular file of ours that nobody else can write, from the very
    descriptor that was checked."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid()
                or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
        # By path, not /proc/self/fd (the dynamic loader would take a second library opened
        # as the same fd name for the first). The path names the source's hash and lies in a
        # directory only this user can change, on a way no other user can rename anything in
        # (``unsafe_ancestor``), so nobody else can swap the file in between.
        return ctypes.CDLL(str(path))
    except OSError:
        return None
    finally:
        os.close(fd)


def _refusal(name: str) -> str | None:
    """The remembered reason under ``name``, read through the checked private directory (a
    file of ours, writable by nobody else, no symlink followed), or None."""
    directory = open_private_dir("native")
    if directory is None:
        return None
    with directory:
        data = directory.read(name, limit=MAX_REASON)
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeError:
        return None


def _remember_refusal(name: str, reason: str) -> None:
    directory = open_private_dir("native")
    if directory is None:
        return
    with directory:
        directory.write(name, reason.encode("utf-8", "replace")[:MAX_REASON])
        # Bounded like the libraries: the oldest reasons go first.
        names = sorted((n for n in directory.names() if n.endswith(".refused")), key=directory.mtime)
        for old in names[:max(0, len(names) - CACHE_ENTRIES)]:
            directory.remove(old)


def _trim(directory: Path) -> None:
    """Keep the cache bounded: the oldest libraries go first."""
    try:
        libraries = sorted(directory.glob("*.so"), key=lambda p: p.stat().st_mtime)
        for old in libraries[:max(0, len(libraries) - CACHE_ENTRIES)]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
