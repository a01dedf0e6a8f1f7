"""Giving a loaded game its native rules (``game.native``), or a one-line note saying why not.

The game itself stays the compiled Python game (the protocol, names, errors, helpers); whole
searches that the native tier implements run in C through ``game.native`` (see
gdl.tools.native_solve). Where the native tier cannot run (no C compiler, chance, an explicit
tree, a constant beyond 64 bits) ``game.native`` is None and ``game.native_note`` says why.
"""

from __future__ import annotations

from gdl.backends.native.build import NativeUnavailable, library_for
from gdl.backends.native.emit import Unsupported, generate
from gdl.backends.native.runtime import NativeRules


def attach(game, filename: str) -> None:
    """Set ``game.native`` (NativeRules or None) and ``game.native_note`` (None or why not)."""
    note = None
    native = None
    try:
        checked = getattr(game, "ir", None)
        if checked is None or getattr(game, "backend", None) != "compile":
            raise Unsupported("this game is not compiled (explicit tree or interpreted)")
        native = NativeRules(library_for(generate(checked, filename)))
    except (Unsupported, NativeUnavailable) as error:
        note = f"note: native backend unavailable ({error}); using the compiled Python tier"
    game.native = native
    game.native_note = note
    if native is not None:
        game.backend = "native"


def c_source(game, filename: str) -> str:
    """The generated C for a loaded game (``gdl show --emit c``); Unsupported if there is none."""
    checked = getattr(game, "ir", None)
    if checked is None:
        raise Unsupported("this game is not compiled (explicit tree)")
    return generate(checked, filename)
