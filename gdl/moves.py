"""Actions by name: playing a sequence of named moves, and finding a path to a state.

Protocol-level helpers for the command line (``--moves``) and for error reports (the action
sequence that reaches a state where a rule misbehaved).
"""

from __future__ import annotations

import re
from collections import deque
from itertools import product
from typing import Any

from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL


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


def successors(game, state, player: int | None = None) -> list[tuple[Any, Any]]:
    """Every move at ``state`` with the state it leads to: a legal action, a chance outcome,
    or, where several players choose at once, a joint action (a tuple with one action per
    acting player, in ``acting_players`` order), in a fixed order."""
    if player is None:
        player = game.current_player(state)
    if player == SIMULTANEOUS:
        acting = game.acting_players(state)
        joints = product(*(game.legal_actions_of(state, p) for p in acting))
        return [(joint, game.apply_joint(state, joint)) for joint in joints]
    return [(move, game.apply(state, move)) for move in choices(game, state, player)]


def move_text(game, move) -> str:
    """A move as people read it: an action's name, or a joint action's names in brackets."""
    if isinstance(move, tuple) and getattr(game.info, "simultaneous", False):
        return "(" + " ".join(game.action_name(a) for a in move) + ")"
    return game.action_name(move)


_SPACED_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s+(.+)$")


def normalise(text: str) -> str:
    """``place(1, 1)`` and ``place 1 1`` both become ``place(1,1)``."""
    text = " ".join(text.split())
    found = _SPACED_CALL.match(text)
    if found and "(" not in text:
        return f"{found[1]}({','.join(found[2].replace(',', ' ').split())})"
    return re.sub(r"\s*([(),])\s*", r"\1", text)


def split_moves(text: str) -> list[str]:
    """Several moves in one string, written as `gdl play` takes them: separated by ';'
    (``place 1 1; place 0 0``), or by spaces between whole moves (``place(1, 1) place(0,0) 3``)."""
    if ";" in text:
        return [part.strip() for part in text.split(";") if part.strip()]
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*\s*\([^)]*\)|\S+", text)


def find_action(game, state, name: str):
    """The available action a person means by ``name``: its name (``place(1,1)``, ``place(1, 1)``
    or ``place 1 1``), a unique prefix of a name, or its number in the list of available actions
    (from 1) -- one syntax for `gdl play` and for ``--moves``."""
    available = choices(game, state)
    name = name.strip()
    if name.isascii() and name.isdigit():     # '²' and '①' are digits to isdigit, not to int
        if len(name) > 9:
            raise MoveError(f"there is no action number {name[:12]}...; choose 1 to {len(available)}")
        number = int(name)
        if 1 <= number <= len(available):
            return available[number - 1]
        if not available:
            raise MoveError(f"'{name}' cannot be played: the game is over")
        raise MoveError(f"there is no action number {number}; choose 1 to {len(available)}")
    name = normalise(name)
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
