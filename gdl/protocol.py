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
from operator import is_
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


# ---- what every consumer of the protocol checks the same way --------------------------------------

class SolverError(Exception):
    """A solver refuses a game it cannot handle, or meets a problem it cannot recover from (a
    game that breaks the protocol's promises, such as a decision without an action)."""


def constant_sum_total(info: GameInfo, algorithm: str) -> Value:
    """The declared total of every utility vector; refuse games that declare none."""
    if info.sum_kind == ZERO_SUM:
        return 0
    if info.sum_kind == CONSTANT_SUM:
        if info.utility_sum is None:
            raise SolverError(f"{algorithm}: game {info.name!r} is declared constant-sum "
                              "but gives no utility_sum")
        return info.utility_sum
    raise SolverError(f"{algorithm}: game {info.name!r} is {info.sum_kind}; {algorithm} needs a "
                      "zero-sum or constant-sum game (use maxn for general-sum games)")


# The outcome pairs checked last. A game that hands out the same (immutable) pair objects again,
# as compiled games do for a fixed distribution, needs no second check: same objects, same
# values. Holding them keeps their identities from being reused.
_checked_outcomes: tuple[Any, ...] = ()


def chance_outcomes(game: Any, state: State,
                    outcomes: Sequence[tuple[Action, Fraction]] | None = None
                    ) -> Sequence[tuple[Action, Fraction]]:
    """The outcomes of a chance state, checked: exact, non-negative, summing to exactly 1.
    ``outcomes``: what ``game.chance_outcomes(state)`` gave, where the caller has it already."""
    global _checked_outcomes
    if outcomes is None:
        outcomes = game.chance_outcomes(state)
    checked = _checked_outcomes
    if outcomes and len(checked) == len(outcomes) and all(map(is_, checked, outcomes)):
        return outcomes
    for _, p in outcomes:
        if isinstance(p, bool) or not isinstance(p, (int, Fraction)) or p < 0:
            raise SolverError(f"game {game.info.name!r}: chance state {state!r} has outcome "
                              f"probability {p!r}; probabilities must be exact and >= 0")
    if sum(p for _, p in outcomes) != 1:
        raise SolverError(f"game {game.info.name!r}: chance outcomes at state {state!r} "
                          "do not sum to 1")
    if all(type(pair) is tuple for pair in outcomes):
        _checked_outcomes = tuple(outcomes)
    return outcomes


def no_legal_actions(game: Any, state: State) -> SolverError:
    """The error for a non-terminal decision state without legal actions (a broken game)."""
    return SolverError(f"game {game.info.name!r}: non-terminal state {state!r} has no legal "
                       "actions")


# ---- what a game with native rules offers the graph solver ----------------------------------------

class NativeRules(Protocol):
    """``game.native`` of a game built with native rules (gdl.backends.native): passes over
    whole position graphs in C, which gdl.graph uses where a game has them, without importing
    a back end. Each returns its passes, or a string: why there are none for this game."""

    def graph_expander(self, game: Any, wide: bool = False) -> Any:
        """Expansion of packed positions (gdl.backends.native.graph states the contract);
        ``wide``: also where the states pass a 63-bit key (the ranked tables' passes only)."""
        ...

    def chance_graph(self, game: Any) -> Any:
        """Passes over byte keys, chance included (gdl.backends.native.chance_graph)."""
        ...


def native_rules(game: Any) -> NativeRules | None:
    """The game's native rules, or None where it has none."""
    return getattr(game, "native", None)
