"""Giving a loaded game its native rules (``game.native``), or a one-line note saying why not.

The game itself stays the compiled Python game (the protocol, names, errors, helpers); whole
searches that the native tier implements run in C through ``game.native`` (see
gdl.tools.native_solve). Where the native tier cannot run (no C compiler, an explicit
tree, a constant beyond 64 bits) ``game.native`` is None and ``game.native_note`` says why.
"""

from __future__ import annotations

import hashlib
import threading

from gdl.backends.native.build import NativeUnavailable, Refused, library_for
from gdl.backends.native.runtime import NativeRules


class Unsupported(Exception):
    """The game uses something the native tier does not compile (gdl.backends.native.emit
    raises its own subclass); it runs in Python."""


class EarlyLibrary:
    """The C compiler started on a checked game before its Python is built (a first load):
    gcc runs in its own process while this one builds the Python tier, so the first load costs
    about the longer of the two rather than their sum. The C text is generated here, in the
    calling thread; only ``library_for`` (a cache lookup, gcc, loading) runs in the thread."""

    def __init__(self, checked, filename: str, key: str | None):
        from gdl.backends.native.build import is_cached
        from gdl.backends.native.emit import generate

        self._outcome: dict = {}
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()      # set on Ctrl-C: the compiler's group is killed
        versioned = None if key is None else _versioned(key)
        if versioned is not None and is_cached(versioned):
            # only the Python cache missed: the library (or its refusal) is read from the cache
            # here and now, without the C text (0.1-0.2 s to generate, made only if that fails)
            self._build(lambda: generate(checked, filename), versioned)
            return
        try:
            made: str | Exception = generate(checked, filename)
        except Unsupported as error:        # remembered as a refusal by library_for, as usual
            made = error

        def source() -> str:
            if isinstance(made, Exception):
                raise made
            return made

        self._thread = threading.Thread(target=self._build, name="gdl-cc", daemon=True,
                                        args=(source, versioned))
        self._thread.start()

    def _build(self, source, key) -> None:
        try:
            self._outcome["library"] = library_for(source, key, refusals=(Unsupported,),
                                                   cancel=self._cancel)
        except BaseException as error:      # handed to the caller of result()
            self._outcome["error"] = error

    def cancel(self) -> None:
        """Stop the compiler (its whole process group) if it is still running: ``result()``
        then raises KeyboardInterrupt instead of waiting for it."""
        self._cancel.set()

    def result(self):
        """The library, once the compiler is done; or what it raised. When interrupted, the
        compiler's process group is killed and its files removed before KeyboardInterrupt goes
        on (a tenth of a second: build._run_compiler polls for it)."""
        if self._thread is not None:
            try:
                self._thread.join()
            except KeyboardInterrupt:
                self._cancel.set()
                self._thread.join()
                raise
        if "error" in self._outcome:
            raise self._outcome["error"]
        return self._outcome["library"]


def attach(game, filename: str, key: str | None = None,
           early: EarlyLibrary | None = None) -> None:
    """Set ``game.native`` (NativeRules or None) and ``game.native_note`` (None or why not).
    ``key`` (the loader's cache key of the rule text) finds a library built before without
    rebuilding the checked game; ``early`` is the compiler already started on it."""
    note = None
    native = None
    game.native_route_missing = False
    try:
        library = early.result() if early is not None else None
        if getattr(game, "backend", None) != "compile":
            raise Unsupported("this game is not compiled (explicit tree or interpreted)")

        def source() -> str:
            # Only on a cache miss: the emitter needs the checked game (parse and check again).
            from gdl.backends.native.emit import generate

            return generate(game.ir, filename)

        if library is None:
            library = library_for(source, None if key is None else _versioned(key),
                                  refusals=(Unsupported,))
        native = NativeRules(library)
    except (Unsupported, Refused, NativeUnavailable) as error:
        note = f"note: native backend unavailable ({error}); using the compiled Python tier"
        game.native_route_missing = isinstance(error, NativeUnavailable)
    game.native = native
    game.native_note = note
    if native is not None:
        game.backend = "native"


def _versioned(key: str) -> str:
    """The library's name for the loader's key. That key already covers the native compiler's
    own files (gdl.backends.load._gdl_stamp: every .py, .c and .h under gdl/ by name, size and
    modification time), so a changed emitter or search loop never reuses a library built by the
    old one; reading them here too cost a cache hit about 10 ms (start-up)."""
    return hashlib.sha256(f"native\0{key}".encode()).hexdigest()


def c_source(game, filename: str) -> str:
    """The generated C for a loaded game (``gdl show --emit c``); Unsupported if there is none."""
    from gdl.backends.native.emit import generate

    checked = getattr(game, "ir", None)
    if checked is None:
        raise Unsupported("this game is not compiled (explicit tree)")
    return generate(checked, filename)
