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

The compiler runs under a time limit that grows with the C it is given (``compile_limit``:
``COMPILE_SECONDS`` plus ``COMPILE_SECONDS_PER_MB`` a megabyte, or ``$GDL_COMPILE_SECONDS``). It
runs in a session of its own, and at the limit, on an error or on Ctrl-C its whole process group
is killed: ``cc`` is only a driver, and killing it alone leaves ``cc1`` compiling on. A compile
stopped at its limit raises ``CompileTimedOut`` and is remembered (``<digest>.timeout``: the
limit and the size of the C), so later loads of the same rules with the same compiler run the
Python tier at once; a larger limit tries again. A compile still running after
``SLOW_COMPILE_SECONDS`` is announced through ``set_compile_notice``'s callback (the command
line prints it on stderr).
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path

from gdl.cache import open_private_dir, private_cache_dir, unsafe_ancestor

CACHE_ENTRIES = 64
MAX_REASON = 4096       # bytes of a remembered refusal
FLAGS = ("-O2", "-shared", "-fPIC", "-pthread", "-std=gnu11", "-w", "-fvisibility=default")
# Added after FLAGS on demand, for a sanitizer run of the native tests (.ci/sanitize); part of
# the cache key, so such a library is never mixed with the ordinary ones.
EXTRA_FLAGS_VARIABLE = "GDL_NATIVE_CFLAGS"

# The compile's time limit: gcc -O2 takes about 12 CPU seconds a megabyte of generated C (Othello
# 6x6 inlined, 2.5 MB: 30 s; the bundled games, 0.1-0.3 MB: 0.6-1.3 s), and a loaded machine
# several times that in wall time. Rules whose C passes 1 MB stay in Python (emit.py), so the
# limit runs from 60 s (a small game) to 300 s.
COMPILE_SECONDS = 60.0
COMPILE_SECONDS_PER_MB = 240.0
LIMIT_VARIABLE = "GDL_COMPILE_SECONDS"      # the limit in seconds, whatever the size of the C
SLOW_COMPILE_SECONDS = 10.0                 # a compile running longer is announced
_POLL_SECONDS = 0.1                         # how often a running compile checks for Ctrl-C


class NativeUnavailable(Exception):
    """The native tier cannot run here (no compiler, a failed build); the message says why."""


class CompileTimedOut(NativeUnavailable):
    """The compiler passed its time limit (now, or on an earlier load: remembered)."""


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
                refusals: tuple[type[Exception], ...] = (),
                cancel: threading.Event | None = None) -> ctypes.CDLL:
    """The loaded library for this source, from the cache or freshly compiled. ``c_source`` may
    be a function that makes the source, called only when the cache has no library under
    ``key`` (the loader's key for the rule text, so a cache hit needs neither the checked game
    nor the C text); without a key the source's own hash names the library. An exception of a
    type in ``refusals`` raised by that function is remembered under the key: later calls
    raise ``Refused`` with its message instead of calling the function again. A compile that
    passed its time limit is remembered too: later calls raise ``CompileTimedOut`` at once,
    until the limit for that much C is larger than the one it passed. Setting ``cancel``
    (another thread's Ctrl-C) stops a running compile: KeyboardInterrupt."""
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
        timed_out = _timed_out_before(digest)
        if timed_out is not None:
            raise CompileTimedOut(timed_out)
        try:
            c_source = c_source if isinstance(c_source, str) else c_source()
        except refusals as error:
            _remember_refusal(f"{digest}.refused", str(error))
            raise
        try:
            _compile(cc, c_source, directory, path, cancel)
        except CompileTimedOut as error:
            limit = compile_limit(len(c_source.encode()))
            _remember_refusal(f"{digest}.timeout",
                              f"{limit!r} {len(c_source.encode())}\n{error}")
            raise CompileTimedOut(f"{error}; remembered, so later loads of these rules use "
                                  f"the Python tier at once ({LIMIT_VARIABLE} above "
                                  f"{limit:.3g} tries again)") from None
        _forget(f"{digest}.timeout")
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
        try:
            _compile(cc, c_source, Path(scratch), path, cancel)
        except CompileTimedOut as error:
            raise CompileTimedOut(f"{error}; not remembered: the cache is off") from None
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
    return ((directory / f"{digest}.so").exists() or (directory / f"{digest}.refused").exists()
            or _timed_out_before(digest) is not None)


_notice: Callable[[str], None] | None = None


def set_compile_notice(notice: Callable[[str], None] | None) -> None:
    """Call ``notice(message)`` (from the compiling thread) once a compile has run for
    ``SLOW_COMPILE_SECONDS``, saying how long it may still take; None: say nothing."""
    global _notice
    _notice = notice


def compile_limit(c_bytes: int) -> float:
    """The compiler's time limit in seconds for ``c_bytes`` of C: ``$GDL_COMPILE_SECONDS`` where
    set, else ``COMPILE_SECONDS`` plus ``COMPILE_SECONDS_PER_MB`` a megabyte."""
    given = os.environ.get(LIMIT_VARIABLE)
    if given:
        try:
            seconds = float(given)
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds > 0):
            raise NativeUnavailable(f"{LIMIT_VARIABLE}={given[:40]!r} is not a positive number "
                                    "of seconds")
        return seconds
    return COMPILE_SECONDS + COMPILE_SECONDS_PER_MB * c_bytes / 1_000_000


def _timed_out_before(digest: str) -> str | None:
    """Why these rules are not compiled again: an earlier compile passed a limit at least as
    large as the one that would apply now (the remembered size of the C decides it); None
    when there is no such memory, or the limit is now larger (then it is tried again)."""
    remembered = _refusal(f"{digest}.timeout")
    if remembered is None:
        return None
    head, _, _ = remembered.partition("\n")
    try:
        limit_text, size_text = head.split()
        limit, size = float(limit_text), int(size_text)
    except ValueError:
        return None
    try:
        if compile_limit(size) > limit:
            return None
    except NativeUnavailable:
        return None     # a malformed $GDL_COMPILE_SECONDS: the compile itself says so
    return (f"the C compiler passed its time limit of {_seconds(limit)} on these rules' "
            f"{_kilobytes(size)} of C on an earlier load (remembered in the cache); "
            f"{LIMIT_VARIABLE} above {limit:.3g} tries again")


def _seconds(limit: float) -> str:
    return f"{limit:.3g} s"


def _kilobytes(size: int) -> str:
    return f"{max(1, round(size / 1000)):,} KB"


def _compile(cc: str, c_source: str, directory: Path, target: Path,
             cancel: threading.Event | None = None) -> None:
    """Compile into a fresh private name in ``directory``, then rename onto ``target``, within
    ``compile_limit`` of the source's size (else CompileTimedOut)."""
    # Imported here, not at the top: a cache hit never compiles (start-up).
    import tempfile

    limit = compile_limit(len(c_source.encode()))
    fd, c_path = tempfile.mkstemp(suffix=".c", prefix=".gdl-", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(c_source)
    temporary = directory / f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        returncode, errors = _run_compiler([cc, *FLAGS, *_extra_flags(), "-o", str(temporary),
                                            c_path], limit,
                                           len(c_source.encode()), cancel)
        if returncode != 0 or not temporary.exists():
            first = (errors.strip().splitlines() or ["no output"])[0]
            raise NativeUnavailable(f"the C compiler failed: {first[:200]}")
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except OSError as error:
        raise NativeUnavailable(f"the C compiler could not run: {error}") from None
    finally:
        os.unlink(c_path)
        if temporary.exists():
            temporary.unlink()


def _run_compiler(command: list[str], limit: float, c_bytes: int,
                  cancel: threading.Event | None) -> tuple[int, str]:
    """Run the compiler in a session of its own: (exit status, what it wrote on stderr). At the
    limit (CompileTimedOut), on ``cancel`` (KeyboardInterrupt) or on any exception, Ctrl-C
    included, its whole process group is killed before this returns: the driver and the
    compiler proper it started."""
    import subprocess
    import time

    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
    started = time.monotonic()
    announced = False
    try:
        while True:
            elapsed = time.monotonic() - started
            if elapsed >= limit:
                raise CompileTimedOut(
                    f"the C compiler passed its time limit of {_seconds(limit)} on "
                    f"{_kilobytes(c_bytes)} of C and was stopped")
            if cancel is not None and cancel.is_set():
                raise KeyboardInterrupt
            if not announced and elapsed >= SLOW_COMPILE_SECONDS and _notice is not None:
                announced = True
                _notice(f"note: compiling the native rules ({_kilobytes(c_bytes)} of C) is "
                        f"taking a while; after {_seconds(limit)} it is stopped and the Python "
                        f"tier runs ({LIMIT_VARIABLE} sets the limit)")
            try:
                _, errors = process.communicate(timeout=min(_POLL_SECONDS, limit - elapsed))
            except subprocess.TimeoutExpired:
                continue
            return process.returncode, errors.decode("utf-8", "replace")
    except BaseException:
        _kill_group(process)
        raise


def _kill_group(process) -> None:
    """Kill the process group a compiler leads, then reap the driver. The group is named by the
    driver's pid, which stays reserved until it is reaped here, so no other group is hit."""
    import signal

    if process.returncode is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if process.stderr is not None:
        process.stderr.close()
    process.wait()


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
        directory.remove_oldest((".refused", ".timeout"), CACHE_ENTRIES)


def _forget(name: str) -> None:
    """Remove a remembered reason (a compile that now succeeded)."""
    directory = open_private_dir("native")
    if directory is None:
        return
    with directory:
        if name in directory.names():
            directory.remove(name)


def _trim(directory: Path) -> None:
    """Keep the cache bounded: the oldest libraries go first."""
    try:
        libraries = sorted(directory.glob("*.so"), key=lambda p: p.stat().st_mtime)
        for old in libraries[:max(0, len(libraries) - CACHE_ENTRIES)]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
