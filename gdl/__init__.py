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


def loads(text: str, filename: str = "<input>", params: Mapping[str, int | bool] | None = None,
          backend: str = "interpret"):
    """Parse, check and build a game from rule text. Raises GdlError for any mistake in it."""
    from .check import check
    from .interpret import build
    from .parse import parse

    source = Source(filename, text)
    return build(check(parse(text, filename), source, params), source)


def load(path: str | Path, params: Mapping[str, int | bool] | None = None, backend: str = "interpret"):
    """Load a game from a rule file."""
    path = Path(path)
    return loads(path.read_text(encoding="utf-8"), str(path), params, backend)


def solve(game, algorithm: str = "auto", **options):
    from .solvers import solve as _solve

    return _solve(game, algorithm, **options)
