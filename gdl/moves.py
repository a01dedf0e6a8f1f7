"""Actions by name: playing a sequence of named moves, and finding a path to a state.

Protocol-level helpers for the command line (``--moves``) and for error reports (the action
sequence that reaches a state where a rule misbehaved).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from gdl.protocol import CHANCE, TERMINAL


class MoveError(ValueError):
    """A named move that is not available in the position it was asked for."""


def choices(game, state, player: int | None = None) -> list:
    """The actions available at a state: legal actions, or chance outcomes, or none.
    ``player`` is ``game.current_player(state)`` when the caller has it already."""
    if player is None:
        player = game.current_player(state)
    if player == TERMINAL:
        return []
    if player == CHANCE:
        return [outcome for outcome, _ in game.chance_outcomes(state)]
    return list(game.legal_actions(state))


def find_action(game, state, name: str):
    """The available action called ``name``; a unique prefix of a name is accepted too."""
    available = choices(game, state)
    names = [game.action_name(a) for a in available]
    if name in names:
        return available[names.index(name)]
    starting = [a for a, n in zip(available, names) if n.startswith(name)]
    if len(starting) == 1:
        return starting[0]
    if not available:
        raise MoveError(f"'{name}' cannot be played: the game is over")
    listing = " ".join(names)
    if len(starting) > 1:
        raise MoveError(f"'{name}' is ambiguous here; it could be: "
                        + " ".join(n for n in names if n.startswith(name)))
    raise MoveError(f"'{name}' is not available here; available: {listing}")


def play(game, names, state=None):
    """The state after playing the named moves from ``state`` (default: the initial state)."""
    state = game.initial_state() if state is None else state
    for number, name in enumerate(names, start=1):
        try:
            state = game.apply(state, find_action(game, state, name))
        except MoveError as error:
            raise MoveError(f"move {number}: {error}") from None
    return state


def path_to(game, target, start=None, limit: int = 1_000_000) -> list[str] | None:
    """A shortest sequence of action names from ``start`` to ``target`` (breadth-first over
    distinct states), or None if it is not found within ``limit`` states."""
    start = game.initial_state() if start is None else start
    parents: dict[Any, tuple[Any, Any] | None] = {start: None}
    queue = deque([start])
    while queue and len(parents) <= limit:
        state = queue.popleft()
        if state == target:
            names = []
            step = parents[state]
            while step is not None:
                state, action = step
                names.append(game.action_name(action))
                step = parents[state]
            return names[::-1]
        try:
            available = choices(game, state)
        except Exception:  # a state whose rules fail is a dead end for this search
            continue
        for action in available:
            try:
                child = game.apply(state, action)
            except Exception:
                continue
            if child not in parents:
                parents[child] = (state, action)
                queue.append(child)
    return None
