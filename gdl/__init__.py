"""gdl: games written as text, solved by generic search.

    import gdl
    game = gdl.load("games/tictactoe.game")          # parse -> check -> build
    result = gdl.solve(game)                           # picks a solver from game.info
"""

from __future__ import annotations

from gdl.backends.load import BACKENDS, load, loads
from gdl.errors import GameRuntimeError, GdlError

__all__ = ["GameRuntimeError", "GdlError", "load", "loads", "solve"]


def solve(game, algorithm: str = "auto", **options):
    from gdl.solvers import solve as _solve

    return _solve(game, algorithm, **options)
