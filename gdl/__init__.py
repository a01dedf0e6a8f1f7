"""gdl: games written as text, solved by generic search.

    import gdl
    game = gdl.load("games/tictactoe.game")          # parse -> check -> build
    result = gdl.solve(game)                           # picks a solver from game.info
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from .errors import GdlError, GameRuntimeError, Source

__all__ = ["load", "loads", "solve", "GdlError", "GameRuntimeError"]


BACKENDS = ("compile", "interpret")


def loads(text: str, filename: str = "<input>", params: Mapping[str, int | bool] | None = None,
          backend: str = "compile"):
    """Parse, check and build a game from rule text. Raises GdlError for any mistake in it.

    ``backend="compile"`` (the default) generates Python source for the rules (gdl.compile);
    ``backend="interpret"`` uses the reference interpreter (gdl.interpret). Both implement the
    same protocol with the same results; explicit trees are a TreeGame either way. Compiled
    games are cached per user (gdl.compiled), so loading the same rules again is quick."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if backend == "compile":
        from .compiled import load_text

        return load_text(text, filename, params)
    from .check import check
    from .interpret import build
    from .parse import parse

    source = Source(filename, text)
    return build(check(parse(text, filename), source, params), source)


def load(path: str | Path, params: Mapping[str, int | bool] | None = None, backend: str = "compile"):
    """Load a game from a rule file."""
    path = Path(path)
    return loads(path.read_text(encoding="utf-8"), str(path), params, backend)


def solve(game, algorithm: str = "auto", **options):
    from .solvers import solve as _solve

    return _solve(game, algorithm, **options)
