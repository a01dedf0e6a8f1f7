"""The game protocol: the only thing solvers know about a game.

A *game* object is stateless; *states* are immutable and hashable (the built games use flat
tuples of ints); *actions* are small hashable values whose readable name comes from
``game.action_name(action)``. Every method is a pure function of its arguments, so the same
game and state always give the same answers, in the same order.

Methods every game provides::

    initial_state() -> State
    current_player(state) -> int            # a player index 0..n-1, or CHANCE, or TERMINAL
    legal_actions(state) -> Sequence[Action]   # decision states only; declaration order
    apply(state, action) -> State           # a new state; never mutates
    chance_outcomes(state) -> Sequence[tuple[Action, Fraction]]   # chance states; sum == 1
    returns(state) -> tuple[Value, ...]     # terminal states; one exact value per player
    evaluate(state) -> tuple[Value, ...]    # any non-terminal state, when info.has_evaluate
    action_name(action) -> str              # e.g. "place(1,1)"
    is_quiet(state) -> bool                 # False where the rules say search should go on

Values are ``int`` or ``fractions.Fraction``: solvers never see a float.

Games with simultaneous moves or hidden information (``info.simultaneous``, ``info.hidden``)
provide more; every other game means exactly what it meant before, and solvers that handle
neither refuse such a game by name::

    current_player(state) -> SIMULTANEOUS   # where several players choose at once
    acting_players(state) -> tuple[int, ...]             # those players, in player order
    legal_actions_of(state, player) -> Sequence[Action]  # one acting player's actions
    apply_joint(state, joint) -> State      # one action per acting player, in that order
    observation(state, player) -> Hashable  # what the player sees of a state
    move_observation(state, player, move) -> Hashable
        # what the player sees of the move made at ``state``: a player's action, a chance
        # outcome, or a joint action (a tuple); a player always sees its own action

A player's *information state* is everything it has seen (perfect recall): the observation of
the start, then for every move the move's observation and the next state's
(``gdl.solvers.information``). Without hidden information the observation is the state and
the move itself, so an information state is a history.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

CHANCE = -1
TERMINAL = -2
SIMULTANEOUS = -3        # several players choose at once (``acting_players``)

Value = int | Fraction
State = Hashable
Action = Hashable

ZERO_SUM = "zero-sum"
CONSTANT_SUM = "constant-sum"
GENERAL_SUM = "general-sum"


@dataclass(frozen=True)
class GameInfo:
    """What a solver may check before it starts, so it can refuse what it cannot do."""

    name: str
    players: tuple[str, ...]
    has_chance: bool = False
    # ZERO_SUM, CONSTANT_SUM or GENERAL_SUM; for CONSTANT_SUM the total is ``utility_sum``.
    sum_kind: str = GENERAL_SUM
    utility_sum: Value | None = None
    # Declared inclusive bounds on every player's utility, where known (Star1/2, shallow pruning).
    utility_bounds: tuple[Value, Value] | None = None
    has_evaluate: bool = False
    has_quiescence: bool = False
    # A declared upper bound on the number of moves (decisions and chance events), where known.
    max_length: int | None = None
    # `when endless ...`: each player's utility for a play that never ends, where declared.
    endless_value: tuple[Value, ...] | None = None
    # Some state has several players choosing at once (current_player: SIMULTANEOUS).
    simultaneous: bool = False
    # Some player does not see everything: observations are not the whole state and move.
    hidden: bool = False

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def is_constant_sum(self) -> bool:
        return self.sum_kind in (ZERO_SUM, CONSTANT_SUM)


class Game(Protocol):
    """What every game offers, whatever built it (the interpreter, the compiler, an explicit
    tree). The game object is stateless: every method takes the state it works on."""

    info: GameInfo

    def initial_state(self) -> State:
        """The position before the first move."""
        ...

    def current_player(self, state: State) -> int:
        """The index of the player to move, or CHANCE, or TERMINAL."""
        ...

    def legal_actions(self, state: State) -> Sequence[Action]:
        """The actions of the player to move, in declaration order (ties break by it)."""
        ...

    def apply(self, state: State, action: Action) -> State:
        """The position after ``action`` (or a chance outcome); ``state`` is not changed."""
        ...

    def chance_outcomes(self, state: State) -> Sequence[tuple[Action, Fraction]]:
        """At a CHANCE state: each outcome with its exact probability; they sum to 1."""
        ...

    def returns(self, state: State) -> tuple[Value, ...]:
        """At a TERMINAL state: one exact value per player."""
        ...

    def evaluate(self, state: State) -> tuple[Value, ...]:
        """A heuristic value per player for any non-terminal state, where the rules declare one."""
        ...

    def action_name(self, action: Action) -> str:
        """The action as people write it, e.g. ``place(1, 2)``."""
        ...

    def is_quiet(self, state: State) -> bool:
        """False where a depth-limited search should look further (quiescence)."""
        ...


class WideGame(Game, Protocol):
    """A game with simultaneous moves or hidden information (``info.simultaneous`` or
    ``info.hidden``): the protocol above, and these."""

    def acting_players(self, state: State) -> tuple[int, ...]:
        """At a SIMULTANEOUS state: the players who choose, in player order (two or more)."""
        ...

    def legal_actions_of(self, state: State, player: int) -> Sequence[Action]:
        """One acting player's actions, in declaration order."""
        ...

    def apply_joint(self, state: State, joint: tuple[Action, ...]) -> State:
        """The state after every acting player's action (in ``acting_players`` order)."""
        ...

    def observation(self, state: State, player: int) -> Hashable:
        """What ``player`` sees of ``state``."""
        ...

    def move_observation(self, state: State, player: int, move: Any) -> Hashable:
        """What ``player`` sees of the move made at ``state`` (an action, a chance outcome,
        or a joint action); its own action it always sees."""
        ...


def format_value(value: Any) -> str:
    """Exact text for a value: ``3``, ``-5/3``. Floats never appear in solver output."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    return str(value)


def json_value(value: Value) -> int | str:
    """JSON form of an exact value: integers as numbers, other fractions as ``"p/q"``."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return value


def distribution_problem(pairs: Iterable[tuple[Any, Any]]) -> str | None:
    """What is wrong with chance outcomes ``(outcome, probability)``, or None when they are valid:
    every probability in (0, 1], no outcome twice, and an exact sum of 1."""
    seen: set[Any] = set()
    for outcome, probability in pairs:
        if not 0 < Fraction(probability) <= 1:
            return f"probability {probability} of outcome {outcome} is not in (0, 1]"
        if outcome in seen:
            return f"outcome {outcome} appears twice"
        seen.add(outcome)
    total = sum((Fraction(p) for _, p in pairs), Fraction(0))
    if total != 1:
        return f"probabilities sum to {total}, not 1"
    return None
