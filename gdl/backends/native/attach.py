"""Giving a loaded game its native rules (``game.native``), or a one-line note saying why not.

The game itself stays the compiled Python game (the protocol, names, errors, helpers); whole
searches that the native tier implements run in C through ``game.native`` (see
gdl.tools.native_solve). Where the native tier cannot run (no C compiler, an explicit
tree, a constant beyond 64 bits) ``game.native`` is None and ``game.native_note`` says why.
"""

from __future__ import annotations

import hashlib

from gdl.backends.native.build import NativeUnavailable, Refused, library_for
from gdl.backends.native.runtime import NativeRules


class Unsupported(Exception):
    """The game uses something the native tier does not compile (gdl.backends.native.emit
    raises its own subclass); it runs in Python."""


def attach(game, filename: str, key: str | None = None) -> None:
    """Set ``game.native`` (NativeRules or None) and ``game.native_note`` (None or why not).
    ``key`` (the loader's cache key of the rule text) finds a library built before without
    rebuilding the checked game."""
    note = None
    native = None
    game.native_route_missing = False
    try:
        if getattr(game, "backend", None) != "compile":
            raise Unsupported("this game is not compiled (explicit tree or interpreted)")

        def source() -> str:
            # Only on a cache miss: the emitter needs the checked game (parse and check again).
            from gdl.backends.native.emit import generate

            return generate(game.ir, filename)

        native = NativeRules(library_for(source, None if key is None else _versioned(key),
                                         refusals=(Unsupported,)))
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
