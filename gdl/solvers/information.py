"""Information states: what a player has seen so far (perfect recall), for any game.

A player's information state at a position is the sequence of what it saw on the way there:
its observation of the start, then for every move its observation of the move and of the next
position (``gdl.protocol``: ``observation``, ``move_observation``). A game without hidden
information shows everything, so the sequence names the history itself; the functions below
supply that default, and solvers call them rather than the game's methods directly.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from gdl.protocol import SIMULTANEOUS, Action, State


def observation(game: Any, state: State, player: int) -> Hashable:
    """What ``player`` sees of ``state``: all of it in a game without hidden information."""
    if not game.info.hidden:
        return state
    return game.observation(state, player)


def move_observation(game: Any, state: State, player: int, move: Any) -> Hashable:
    """What ``player`` sees of ``move`` made at ``state``: all of it without hidden
    information."""
    if not game.info.hidden:
        return move
    return game.move_observation(state, player, move)


def start(game: Any, state: State, players: Sequence[int] | None = None) -> tuple:
    """Every player's information state at ``state`` taken as the start: one tuple each."""
    every = range(game.info.num_players) if players is None else players
    return tuple((observation(game, state, p),) for p in every)


def step(game: Any, keys: tuple, state: State, move: Any, child: State) -> tuple:
    """Every player's information state after ``move`` at ``state`` led to ``child``."""
    return tuple(key + (move_observation(game, state, p, move), observation(game, child, p))
                 for p, key in enumerate(keys))


def acting(game: Any, state: State) -> tuple[int, ...]:
    """The players who choose at ``state``: one at a decision, several at a simultaneous
    state, none at chance and terminal states."""
    player = game.current_player(state)
    if player == SIMULTANEOUS:
        return tuple(game.acting_players(state))
    return (player,) if player >= 0 else ()


def actions_of(game: Any, state: State, player: int) -> Sequence[Action]:
    """The actions of one player who chooses at ``state``."""
    if game.current_player(state) == SIMULTANEOUS:
        return game.legal_actions_of(state, player)
    return game.legal_actions(state)
