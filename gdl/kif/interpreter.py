"""A KIF game run by the plain Datalog interpreter: the reference every faster path is
compared with (gdl.kif.translate's grounded game must agree with it on every state).

A state is the set of base facts that are true (a frozenset of ground terms). At each state
the rules are evaluated bottom-up (gdl.kif.datalog) on the static facts, computed once at load,
and ``(true p)`` for every fact of the state; a joint move adds ``(does role move)`` and the
relations that read it, and the facts of ``next`` are the following state.

GDL's moves are simultaneous: every role moves at every step. A game is played through gdl's
protocol one player at a time where at most one role has a choice (more than one legal move):
that role is the player to move, and every other role plays its only legal move (its ``noop``).
Where no role has a choice, the first role whose only move is not ``noop`` moves (the first
role, when all are ``noop``). A game in which two roles may choose at once (gdl.kif.survey
finds out at load) is a simultaneous-move game (``info.simultaneous``): at such a state
``current_player`` is SIMULTANEOUS and ``acting_players`` the roles that choose, for gdl's
simultaneous-move solvers; a game taken as alternating that meets such a state later is refused
there by name (K303).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from gdl.errors import Diagnostic, GameRuntimeError, GdlError, Source
from gdl.kif import datalog
from gdl.kif.check import Description
from gdl.kif.names import identifier, term_identifier
from gdl.kif.survey import survey
from gdl.kif.terms import is_integer, kif_text, order_key
from gdl.protocol import CONSTANT_SUM, GENERAL_SUM, SIMULTANEOUS, TERMINAL, ZERO_SUM, GameInfo
from gdl.span import NOWHERE

STATIC_FACTS = 2_000_000      # facts the static relations may have (K210 beyond)
STATE_FACTS = 2_000_000       # facts one state's evaluation may derive
CACHED_STATES = 4096


def static_facts(description: Description) -> datalog.Facts:
    """The static relations' facts, evaluated once (K210 when there are too many)."""
    program = datalog.Program(description.rules)
    facts = datalog.Facts()
    try:
        program.evaluate(facts, description.static, limit=STATIC_FACTS)
    except datalog.TooManyFacts as too_many:
        raise GdlError(Diagnostic(
            "K210", f"the static relation `{too_many.relation}` has more than "
            f"{STATIC_FACTS:,} facts", NOWHERE,
            hint="a relation that does not depend on the state is computed once at load; "
                 "this one grows without a useful bound"), description.source) from None
    return facts


def choosers_at_start(game: KifGame) -> list[str]:
    """The roles with a choice at the start (two or more: a simultaneous-move game, known
    without the walk of gdl.kif.survey)."""
    moves = game.legal_moves(game.initial_state())
    return [role for role, row in zip(game.roles, moves) if len(row) > 1]


class KifGame:
    """The game protocol over the Datalog rules (see the module's docstring)."""

    backend = "interpret"
    native_note: str | None = None        # why the game is not translated (gdl.kif.load sets it)
    native_route_missing = False

    def __init__(self, description: Description, name: str, static: datalog.Facts | None = None,
                 walk: bool = True):
        self.description = description
        self.source: Source = description.source
        self.roles = description.roles
        self._program = datalog.Program(description.rules)
        self._static = static if static is not None else static_facts(description)
        self._static_relations = frozenset(description.static)
        self._state_relations = description.on_state - description.on_moves
        self._move_relations = set(description.on_moves)
        self._initial = frozenset(atom[1] for atom in self._static.of("init"))
        self._models: dict = {}
        self.info = GameInfo(name=name, players=tuple(identifier(r) for r in self.roles),
                             sum_kind=GENERAL_SUM, utility_bounds=(0, 100))
        self.surveyed = 0
        if walk:
            self.walk()

    def walk(self) -> None:
        """Find out the turns and the sum of the goals from a walk of the first positions
        (gdl.kif.survey), and say so in ``info``."""
        found = survey(self)
        self.surveyed = found.positions
        total = found.constant_sum
        self.info = replace(
            self.info, simultaneous=found.simultaneous,
            sum_kind=GENERAL_SUM if total is None else ZERO_SUM if total == 0 else CONSTANT_SUM,
            utility_sum=total)

    # ---- the rules at one state ------------------------------------------------------------------

    def _model(self, state) -> datalog.Facts:
        model = self._models.get(state)
        if model is None:
            model = datalog.Facts(self._static, self._static_relations)
            for fact in state:
                model.add(("true", fact))
            try:
                self._program.evaluate(model, self._state_relations, limit=STATE_FACTS)
            except datalog.TooManyFacts as too_many:
                raise self._error("K210", f"one state derives more than {STATE_FACTS:,} facts "
                                  f"(`{too_many.relation}`)", state) from None
            if len(self._models) >= CACHED_STATES:
                self._models.pop(next(iter(self._models)))
            self._models[state] = model
        return model

    def _error(self, code: str, message: str, state, hint: str | None = None) -> GameRuntimeError:
        error = GameRuntimeError(Diagnostic(code, message, NOWHERE, hint=hint), self.source)
        error.state = state
        return error

    def is_terminal(self, state) -> bool:
        return "terminal" in self._model(state).of("terminal")

    def legal_moves(self, state) -> list[list]:
        """Every role's legal moves, each list in the order of gdl.kif.terms.order_key."""
        model = self._model(state)
        moves: list[list] = [[] for _ in self.roles]
        position = {role: i for i, role in enumerate(self.roles)}
        for fact in model.of("legal"):
            i = position.get(fact[1])
            if i is not None:
                moves[i].append(fact[2])
        for row in moves:
            row.sort(key=order_key)
        return moves

    def joint_moves(self, state) -> list[list]:
        """The simultaneous model: each role's legal moves (K301 where a role has none)."""
        moves = self.legal_moves(state)
        for role, row in zip(self.roles, moves):
            if not row:
                raise self._error("K301", f"{role} has no legal move in a state that is not "
                                  "terminal, so the game is not playable there", state,
                                  hint="GDL requires a legal move for every role in every "
                                       "non-terminal state: add a `noop` move, or end the game")
        return moves

    def next_state(self, state, joint: Sequence) -> frozenset:
        """The state after every role plays its move in ``joint`` (one per role, in order)."""
        model = datalog.Facts(self._model(state),
                              frozenset(self._static_relations | self._state_relations | {"true"}))
        for role, move in zip(self.roles, joint):
            model.add(("does", role, move))
        self._program.evaluate(model, self._move_relations, limit=STATE_FACTS)
        return frozenset(atom[1] for atom in model.of("next"))

    # ---- the game protocol ---------------------------------------------------------------------

    def initial_state(self):
        return self._initial

    @staticmethod
    def _choosers(moves: list[list]) -> list[int]:
        return [i for i, row in enumerate(moves) if len(row) > 1]

    def _mover(self, state, moves: list[list]) -> int:
        choosers = self._choosers(moves)
        if len(choosers) > 1:
            names = ", ".join(self.roles[i] for i in choosers)
            raise self._error(
                "K303", f"simultaneous moves: {names} each have a choice here, in a game gdl "
                "took as alternating (its turns could not be proved, and no two roles chose at "
                f"once in its first {self.surveyed:,} positions)", state,
                hint="gdl hands a game to its simultaneous-move solvers when two roles choose "
                     "at once early on; this one is too large for that walk to tell")
        if choosers:
            return choosers[0]
        for i, row in enumerate(moves):
            if row[0] != "noop":
                return i
        return 0

    def current_player(self, state) -> int:
        if self.is_terminal(state):
            return TERMINAL
        moves = self.joint_moves(state)
        if self.info.simultaneous and len(self._choosers(moves)) > 1:
            return SIMULTANEOUS
        return self._mover(state, moves)

    def legal_actions(self, state) -> list:
        if self.is_terminal(state):
            return []
        moves = self.joint_moves(state)
        if self.info.simultaneous and len(self._choosers(moves)) > 1:
            return []
        return list(moves[self._mover(state, moves)])

    def apply(self, state, action):
        moves = self.joint_moves(state)
        mover = self._mover(state, moves)
        if action not in moves[mover]:
            raise self._error("E306", f"{self.action_name(action)} is not a legal move of "
                              f"{self.roles[mover]} here", state)
        joint = [action if i == mover else row[0] for i, row in enumerate(moves)]
        return self.next_state(state, joint)

    # ---- simultaneous moves (gdl.protocol.WideGame) ------------------------------------------------

    def acting_players(self, state) -> tuple[int, ...]:
        """At a SIMULTANEOUS state: the roles with a choice, in role order."""
        if self.is_terminal(state):
            return ()
        choosers = self._choosers(self.joint_moves(state))
        return tuple(choosers) if len(choosers) > 1 else ()

    def legal_actions_of(self, state, player: int) -> list:
        if self.is_terminal(state):
            return []
        return list(self.joint_moves(state)[player])

    def apply_joint(self, state, joint: tuple):
        """The state after each acting role's move in ``joint`` (``acting_players`` order),
        every other role playing its only move."""
        moves = self.joint_moves(state)
        acting = self.acting_players(state)
        if len(joint) != len(acting):
            raise ValueError(f"{len(joint)} moves for {len(acting)} roles that choose")
        chosen = dict(zip(acting, joint))
        for player, move in chosen.items():
            if move not in moves[player]:
                raise self._error("E306", f"{self.action_name(move)} is not a legal move of "
                                  f"{self.roles[player]} here", state)
        return self.next_state(state, [chosen.get(i, row[0]) for i, row in enumerate(moves)])

    def observation(self, state, player: int):
        return state                    # no hidden information in GDL-KIF

    def move_observation(self, state, player: int, move):
        return move

    def chance_outcomes(self, state) -> list[tuple[object, Fraction]]:
        return []

    def goals(self, state) -> tuple[int, ...]:
        """Each role's goal value in ``state`` (K302 unless exactly one each)."""
        values: list[list[str]] = [[] for _ in self.roles]
        position = {role: i for i, role in enumerate(self.roles)}
        for fact in self._model(state).of("goal"):
            i = position.get(fact[1])
            if i is not None:
                values[i].append(fact[2])
        result = []
        for role, found in zip(self.roles, values):
            if len(found) != 1:
                shown = ", ".join(sorted(kif_text(v) for v in found)) or "none"
                raise self._error("K302", f"{role} has {len(found)} goal values at the end of "
                                  f"the game ({shown}); GDL gives each role exactly one", state,
                                  hint="make the goal rules of each role cover every terminal "
                                       "state once")
            value = found[0]
            if not (is_integer(value) and 0 <= int(value) <= 100):
                raise self._error("K207", f"{role}'s goal value {kif_text(value)} is not an "
                                  "integer from 0 to 100", state)
            result.append(int(value))
        return tuple(result)

    def returns(self, state) -> tuple[int, ...]:
        return self.goals(state)

    def evaluate(self, state):
        raise NotImplementedError("a KIF game has no evaluation function")

    def action_name(self, action) -> str:
        return term_identifier(action)

    def is_quiet(self, state) -> bool:
        return True

    # ---- helpers for people ----------------------------------------------------------------------

    def state_text(self, state) -> str:
        """The state as KIF facts, one per line, in a stable order."""
        return "\n".join(kif_text(fact) for fact in sorted(state, key=order_key))
