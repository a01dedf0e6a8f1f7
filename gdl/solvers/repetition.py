"""Stop a search that meets a state again on its own path (a game that can cycle forever).

A recursive solver on a game whose state graph has a cycle would recurse until the stack runs
out. ``guard_path(game, search, active)`` wraps a solver's recursive ``search(state, ...)`` so
that entering a state already on the current path raises ``RepetitionError`` with the actions
from the start. The wrapper is installed only where it can matter: when the game declares no
length bound (``info.max_length is None``) and the search has no depth limit (``active``), so a
bounded game pays nothing. It never counts nodes, so node counts are unchanged.

Usage inside a solver, after ``def search(state, ...)`` (recursive calls look the name up when
they run, so they go through the wrapper too)::

    search = guard_path(game, search, depth is None)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from gdl.moves import choices
from gdl.protocol import TERMINAL
from gdl.solvers.result import SolverError


class RepetitionError(SolverError):
    """The search met a state that is already on its path: the game can go on forever.
    ``path`` holds the action names from the initial state to the second visit; ``cycle`` the
    last of them, those that lead from the first visit back to it."""

    def __init__(self, message: str, path: tuple[str, ...], cycle: tuple[str, ...]):
        super().__init__(message)
        self.path = path
        self.cycle = cycle


def guard_path(game: Any, search: Callable, active: bool = True) -> Callable:
    """``search`` itself when the game declares a length bound or ``active`` is false; else a
    wrapper that keeps the states of the current path (the first positional argument)."""
    if not active or game.info.max_length is not None:
        return search
    on_path: dict = {}
    stack: list = []

    def guarded(state, *args, **kwargs):
        if state in on_path:
            raise _repetition(game, stack, on_path[state], state)
        on_path[state] = len(stack)
        stack.append(state)
        try:
            return search(state, *args, **kwargs)
        finally:
            stack.pop()
            del on_path[state]

    return guarded


def _step(game: Any, state, child) -> str | None:
    """The name of an action (or chance outcome) that leads from ``state`` to ``child``."""
    try:
        player = game.current_player(state)
        if player == TERMINAL:
            return None
        for action in choices(game, state, player):
            if game.apply(state, action) == child:
                return game.action_name(action)
    except Exception:
        return None
    return None


def _repetition(game: Any, stack: list, first: int, state) -> RepetitionError:
    states = list(stack) + [state]
    start = game.initial_state()
    if states[0] != start:
        states.insert(0, start)     # a solver may expand the root itself (alpha-beta does)
        first += 1
    names = []
    for parent, child in itertools.pairwise(states):
        name = _step(game, parent, child)
        names.append(name if name is not None else "?")
    cycle = tuple(names[first:])
    path = tuple(names)
    lead = " ".join(names[:first]) or "(the start)"
    return RepetitionError(
        f"game {game.info.name!r} can go on forever: the search met a state again after "
        f"{lead}, then {' '.join(cycle)} ({len(cycle)} move(s) around the cycle), and a tree "
        f"search cannot solve a game that can repeat a position; {cycle_remedies(game.info)}",
        path, cycle)


# ---- what works on a game that can repeat a position -------------------------------------------
# The one place that says which games gdl's strong solver (gdl.graph.strong_solve) takes when
# they can repeat a position: every message about cycles (this error, `gdl check --deep`, the
# commands' refusals) is written from these two functions, so they change together when the
# strong solver takes more games.

def strong_refusal(info: Any, ends_surely: bool | None = None,
                   one_winner: bool | None = None) -> str | None:
    """Why the strong solver refuses a game of this kind (a ``GameInfo``) that can repeat a
    position, as a clause; None where it solves one (docs/graph.md, docs/multiplayer.md): two
    players, constant-sum; more players or general-sum with chance where every play ends with
    probability 1 (``ends_surely``, where known), without chance where the rules say what
    endless play is worth, or in a constant-sum game whose every end names one winner
    (``one_winner``, where known). A game it takes may still have no pure stationary
    equilibrium (then the solve says so)."""
    if info.num_players == 2 and info.is_constant_sum:
        return None
    kind = f"{info.num_players} players" if info.num_players != 2 else info.sum_kind
    if info.has_chance:
        if ends_surely:
            return None
        return (f"with chance and {kind}, gdl's strong solver values a game only where every "
                "play ends with probability 1 whatever the players do")
    if info.endless_value is not None or (one_winner and info.is_constant_sum):
        return None
    unless = (", unless it is constant-sum and every end names one winner" if one_winner is None
              and info.is_constant_sum else "")
    return (f"a game of {kind} that can repeat a position has no single value when the rules do "
            "not say what endless play is worth (`when endless (u1, ..., un)`), since endless "
            f"play can serve some players and not others{unless}")


def solve_on_cycles(info: Any, ends_surely: bool | None = None,
                    one_winner: bool | None = None) -> str:
    """What `gdl solve` does with a game of this kind that can repeat a position, in a few
    words (what `gdl check --deep` promises)."""
    refusal = strong_refusal(info, ends_surely, one_winner)
    if refusal is not None:
        return f"gdl solve refuses it: {refusal}"
    if info.num_players == 2 and info.is_constant_sum:
        return "gdl solve solves its state graph (gdl solve --strong)"
    return ("gdl solve solves its state graph where it finds a stationary equilibrium (gdl "
            "solve --strong, docs/multiplayer.md)")


def cycle_remedies(info: Any) -> str:
    """What works on a game of this kind that can repeat a position, as one clause naming the
    commands, true for the strong solver as it is (``strong_refusal``)."""
    refusal = strong_refusal(info)
    if refusal is not None:
        return (f"neither can gdl's strong solver ({refusal}); declare a max-length, or search "
                "to a depth limit (--depth N)")
    endless = ("" if info.endless_value is not None
               else ", declare what endless play is worth (`when endless draw`)")
    return ("solve its state graph instead (gdl solve does so by itself; gdl solve --strong "
            "values every position, by tiers with --workers N where the rules declare a `tier`, "
            f"and --save DB keeps them for --db DB){endless}, or search to a depth limit "
            "(--depth N)")
