"""Validate a game by playing it: ``gdl check --deep``.

This module knows the game through the protocol (gdl.protocol), never the parser: it works for
rule games, explicit trees and any other object with the protocol's methods. It finds what static
checking cannot: rules that misbehave in some positions only. Two checks (E414, E415, below) also
read a rule game's checked rules (``game.ir``) where the game carries them.

What is checked, at every state visited
---------------------------------------
* the player to move is a player index, CHANCE or TERMINAL (E411);
* a decision state has a legal action (E400; the interpreter's own dead-end error E304 becomes
  E400 too), and a terminal state has none (E401);
* ``legal_actions`` (and ``chance_outcomes``) give the same list when asked twice, without
  duplicates (E402); ``apply`` gives the same state when asked twice (E403);
* chance outcomes are exact, each in (0, 1], no outcome twice, summing to exactly 1 (E404;
  the interpreter's E305 becomes E404);
* at a terminal state ``returns`` gives one exact value per player (E405), within the declared
  utility bounds (E406), summing to the declared zero-sum / constant-sum total (E407). The
  interpreter *derives* one player's utility under a sum declaration, so E407 can only appear
  when every utility is given explicitly (or for other implementations of the protocol);
* no play is longer than the declared ``max-length`` or the ``max_length`` asked for (E408);
* a rule that fails at run time (E301 value out of domain, E302 division by zero, E303 index out
  of range, E306) is reported as E410 at the rule, with the actions that reach it.

What is checked over all the states, when every reachable one was explored
-------------------------------------------------------------------------------
These two read the rules (the checked game, ``game.ir``), the only checks here that do, and run
only when the exploration was exhaustive and the game's own legal actions agree with the rules
evaluated here, at every decision state (at most ``REQUIRES_LIMIT`` of them); "never" and
"always" are then statements about the whole game. Both are warnings.

* an action that is legal in no reachable state (E414, at its declaration): its `requires` is
  false for every value of its parameters wherever a player who may take it is to move (or no
  such player is ever to move); the comparisons inside it that were false each time are notes;
* a comparison in an action's `requires` (or a parameter's guard), as written there, that is
  false every time it is evaluated (E415): evaluated as the interpreter does, so a comparison
  behind `and`, `or`, `any` or `all` counts only where it is reached. It marks a part of the
  condition that never holds in play (`n < 2 or n == 4` where n never reaches 4 there). Not
  reported: a comparison that is always *true* (a bounds check or a turn test that play never
  needs is still a guard, and it protects positions set up by hand); one that reads no state (a
  variant chosen by a `param`, constant by design); one written in a `define`, which serves
  other rules and variants too (it still appears in the notes of E414).

Simultaneous moves and hidden information
-----------------------------------------
Where several players choose at once (``current_player`` is SIMULTANEOUS), the acting players
and each one's legal actions are checked as a decision's are, and the moves played are the
joint moves. In a game with simultaneous moves or hidden information every player's
information states (what it has seen, ``gdl.solvers.information``) are counted where it
chooses, over every history (breadth first, up to ``HISTORY_LIMIT``; the report says whether
that was all of them), and two things the solvers of such games rely on are checked there:

* an information state offers the same legal actions at every position it contains (E416, at
  the action that differs, naming the `private` or `hidden` variables its `requires` reads);
* it is always reached after the same choices of the player's own: perfect recall (E417).

Two ways of visiting
--------------------
* **Playouts**: ``random.Random(seed)`` picks a legal action uniformly, and chance outcomes by
  their probabilities, so a run is reproducible. A state seen twice within one playout proves a
  cycle (E409 without a declared length bound, E408 with one).
* **Exhaustive**: breadth-first over every reachable state (so every witness is a shortest one),
  with a census (decision, chance, terminal states; moves; the longest play), cycle detection
  (strongly connected components) with a shortest witness, and, for one-player games, the best
  utility reachable (a warning E412 when the declared maximum cannot be reached). ``exhaustive=None``
  decides by itself: a quick unchecked count of the reachable states runs up to ``auto_limit``
  states, and the checked visit is exhaustive when the count finished within that.

Witnesses are action names from the initial state. For a cycle the witness is split into the
path to the cycle and the actions around it; among all states on cycles, the one minimising
(distance from the start + length of the shortest cycle through it) is chosen.

Size estimate (before a solve)
------------------------------
``estimate`` samples random playouts and applies Knuth's estimator (Knuth 1975, "Estimating the
efficiency of backtrack programs"): along a random path, the product of 1/q over the choices made
(q = 1/branching at a decision, the outcome's probability at a chance node) is an unbiased
estimate of the number of nodes at that depth, so the sum over the path estimates the size of the
whole game tree. Distinct states are estimated by the smallest of that, the declared state-space
bound (product of the declared domains, computed by the caller) and an exact count when a small
exploration finished. ``budget_problem`` compares that with what an algorithm can do within
``BUDGET`` nodes.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

from gdl.errors import GameRuntimeError
from gdl.moves import path_to
from gdl.protocol import (
    CHANCE,
    CONSTANT_SUM,
    SIMULTANEOUS,
    TERMINAL,
    ZERO_SUM,
    distribution_problem,
    format_value,
)
from gdl.tools.count import reachable_states

# Codes (documented in gdl.errors too).
DEAD_END = "E400"
ACTIONS_AT_TERMINAL = "E401"
UNSTABLE_CHOICES = "E402"
NONDETERMINISTIC_APPLY = "E403"
BAD_CHANCE = "E404"
BAD_UTILITY = "E405"
UTILITY_OUT_OF_BOUNDS = "E406"
SUM_BROKEN = "E407"
TOO_LONG = "E408"
CYCLE = "E409"
RULE_FAILED = "E410"
BAD_PLAYER = "E411"
BEST_UNREACHABLE = "E412"   # a warning
NEVER_LEGAL = "E414"        # a warning
CONSTANT_TEST = "E415"      # a warning
INFOSET_ACTIONS = "E416"    # an information state's legal actions differ between its states
NO_PERFECT_RECALL = "E417"  # an information state reached after different own choices

AUTO_LIMIT = 20_000          # exhaustive automatically when the reachable states are no more
MAX_STATES = 2_000_000       # exhaustive exploration stops here even when asked for
SHORTEST_LIMIT = 5_000       # states a search for a shorter witness may visit (playout mode)
PLAYOUT_CAP = 10_000         # moves per playout when no length bound is declared or asked for
PRUNED_EXPONENT = 0.75       # alpha-beta with random ordering: b ** (3d/4) of b ** d nodes
ORDERED_EXPONENT = 0.5       # with good ordering: b ** (d/2) (Knuth and Moore's best case)
REQUIRES_LIMIT = 200_000     # decision states the rule checks evaluate every `requires` at
HISTORY_LIMIT = 100_000      # histories walked to count information states
BUDGET = 10 ** 8             # nodes a solver is expected to finish (about 5 min at 3 µs/node)
NODE_SECONDS = 3e-6          # the compiled backend's cost per node, for messages

_RUNTIME_CODES = {"E304": DEAD_END, "E305": BAD_CHANCE}


@dataclass(frozen=True)
class Violation:
    """One problem found by playing. ``path`` is the sequence of action names from the initial
    state to where it shows (for a cycle: to the state where the cycle starts, and ``cycle`` the
    actions around it). ``rules`` are keys of the declarations involved, most specific first
    (``ir.Game.spans`` keys: "terminal", "utility X", "utility", "utility-bounds", "sum",
    "max-length"); ``span`` is the rule's position when the game reported one (run-time errors).
    ``count`` is the number of states where the same problem showed."""

    code: str
    message: str
    path: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    span: Any = None
    cycle: tuple[str, ...] = ()
    severity: str = "error"
    count: int = 1
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        out = {"code": self.code, "severity": self.severity, "message": self.message,
               "path": list(self.path), "rules": list(self.rules), "count": self.count}
        if self.cycle:
            out["cycle"] = list(self.cycle)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Census:
    """Every reachable state, counted (exhaustive mode)."""

    states: int
    decision: int
    chance: int
    terminal: int
    moves: int                      # edges of the state graph (actions and chance outcomes)
    depth: int                      # the largest distance from the start (breadth-first)
    longest_play: int | None        # the most moves any play takes; None when there is a cycle
    cyclic_states: int              # states that lie on a cycle
    stuck_states: int               # states from which no terminal state can be reached
    best_utility: Any = None        # one-player games: the best utility reachable
    simultaneous: int = 0           # decision states where several players choose at once

    def as_dict(self) -> dict:
        out = dict(self.__dict__)
        if self.best_utility is not None:
            out["best_utility"] = _json(self.best_utility)
        return out


@dataclass
class Report:
    game: str
    playouts: int = 0
    playout_moves: int = 0
    longest_playout: int = 0
    cut_playouts: int = 0            # playouts stopped at PLAYOUT_CAP without a length bound
    states_visited: int = 0
    exhaustive: bool = False
    explored: int = 0                # states expanded by the breadth-first exploration
    exploration_complete: bool = False
    census: Census | None = None
    declared_states: int | None = None
    violations: list[Violation] = field(default_factory=list)
    # decision states at which every action's `requires` was evaluated for E414 and E415 (None:
    # those checks did not run: not a rule game, not exhaustive, too many states, a rule failed)
    requires_checked: int | None = None
    # A game with simultaneous moves or hidden information: each player's information states
    # (where it chooses), counted over every history when ``information_complete``, else over
    # the first ``histories`` (breadth first); None for any other game.
    information_states: dict[str, int] | None = None
    information_complete: bool = False
    histories: int = 0

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict:
        return {"game": self.game, "ok": self.ok, "exhaustive": self.exhaustive,
                "playouts": self.playouts, "playout_moves": self.playout_moves,
                "longest_playout": self.longest_playout, "cut_playouts": self.cut_playouts,
                "states_visited": self.states_visited, "explored": self.explored,
                "exploration_complete": self.exploration_complete,
                "declared_states": self.declared_states,
                "requires_checked": self.requires_checked,
                "information_states": self.information_states,
                "information_complete": self.information_complete,
                "histories": self.histories,
                "census": self.census.as_dict() if self.census else None,
                "violations": [v.as_dict() for v in self.violations]}


def _json(value):
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return value


def _exact(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, Fraction))


# ---- the checks at one state -------------------------------------------------------------------

class _Checker:
    """Checks states one at a time and collects violations, one per (code, rule) with a count."""

    def __init__(self, game, max_length: int | None):
        self.game = game
        self.info = game.info
        self.players = game.info.num_players
        self.name = game.action_name
        self.found: dict[tuple, Violation] = {}
        self.places: dict[tuple, set] = {}
        self.at: tuple | None = None     # the state (or state and action) being checked
        self.order: list[tuple] = []
        info = game.info
        self.total = (0 if info.sum_kind == ZERO_SUM else
                      info.utility_sum if info.sum_kind == CONSTANT_SUM else None)
        # The length bound to hold plays to: the declared one, or the one asked for if smaller.
        bounds: list[tuple[int, int, tuple[str, ...], str]] = []
        if info.max_length is not None:
            bounds.append((info.max_length, 0, ("max-length",), "the declared max-length"))
        if max_length is not None:
            bounds.append((max_length, 1, (), "--max-length"))
        self.bound = min(bounds) if bounds else None

    # -- recording
    def add(self, code: str, message: str, path, rules=(), span=None, cycle=(),
            severity: str = "error", notes=(), count: int = 1) -> None:
        """Record a violation; ``path`` may be a function giving it, called only for the first
        violation of its kind (finding a short path can cost a search). Violations of one kind
        are counted once per state (``self.at``, set by the caller; None: not counted again)."""
        key = (code, tuple(rules), span)
        at = self.at
        places = self.places.setdefault(key, set())
        if key in self.found:
            if at is None or at in places:
                return
            places.add(at)
            old = self.found[key]
            self.found[key] = Violation(old.code, old.message, old.path, old.rules, old.span,
                                        old.cycle, old.severity, old.count + 1, old.notes)
            return
        self.order.append(key)
        if at is not None:
            places.add(at)
        if callable(path):
            path = path()
        self.found[key] = Violation(code, message, tuple(path), tuple(rules), span, tuple(cycle),
                                    severity, count, tuple(notes))

    def violations(self) -> list[Violation]:
        return [self.found[key] for key in self.order]

    def failed(self, error: Exception, path: Callable[[], list[str]], what: str) -> None:
        """A rule raised while ``what`` was asked at the end of ``path()``."""
        if isinstance(error, GameRuntimeError):
            original = error.code
            code = _RUNTIME_CODES.get(original, RULE_FAILED)
            message = error.diagnostics[0].message
            rules = ("terminal",) if original == "E304" and not error.span.line else ()
            self.add(code, message, path, rules=rules, span=error.span if error.span.line else None,
                     notes=(f"the interpreter reported {original} in {what}",))
        else:
            self.add(RULE_FAILED, f"{what} raised {type(error).__name__}: {error}", path)

    # -- one state
    def expand(self, state, where: Callable[[], list[str]]):
        """Check ``state``; return ``(kind, options)`` with kind a player index, CHANCE or
        TERMINAL (None if even that failed) and options ``[(action, probability or None)]``, or
        None when the state cannot be played on (a violation was recorded)."""
        game = self.game
        self.at = (state,)
        try:
            kind = game.current_player(state)
        except Exception as error:
            self.failed(error, where, "current_player")
            return None, None
        if kind == TERMINAL:
            self.terminal(state, where)
            return kind, []
        if kind == CHANCE:
            return self.chance(state, where)
        if kind == SIMULTANEOUS:
            return self.simultaneous(state, where)
        if isinstance(kind, bool) or not isinstance(kind, int) or not 0 <= kind < self.players:
            self.add(BAD_PLAYER, f"current_player gave {kind!r}, which is neither a player index "
                     f"(0..{self.players - 1}) nor CHANCE nor TERMINAL", where)
            return None, None
        try:
            first = list(game.legal_actions(state))
            second = list(game.legal_actions(state))
        except Exception as error:
            self.failed(error, where, "legal_actions")
            return kind, None
        if first != second:
            self.add(UNSTABLE_CHOICES, "legal_actions gave two different lists for one state: "
                     f"{self.names(first)} then {self.names(second)}", where)
        if len(set(first)) != len(first):
            self.add(UNSTABLE_CHOICES, f"legal_actions lists an action twice: {self.names(first)}",
                     where)
        if not first:
            player = self.info.players[kind]
            self.add(DEAD_END, f"{player} is to move and has no legal action, but the state is not "
                     "terminal", where, rules=("terminal",))
            return kind, None
        return kind, [(a, None) for a in first]

    def simultaneous(self, state, where):
        """A state where several players choose at once: the acting players (two or more, in
        player order) and each one's legal actions, checked as a decision's are; the options
        are the joint moves."""
        game = self.game
        if not self.info.simultaneous:
            self.add(BAD_PLAYER, "current_player says several players choose at once, but the "
                     "game's info does not declare simultaneous moves", where)
            return None, None
        try:
            acting = tuple(game.acting_players(state))
        except Exception as error:
            self.failed(error, where, "acting_players")
            return SIMULTANEOUS, None
        if (len(acting) < 2 or list(acting) != sorted(set(acting))
                or not all(isinstance(p, int) and 0 <= p < self.players for p in acting)):
            self.add(BAD_PLAYER, f"acting_players gave {acting!r}: two or more player indices "
                     f"(0..{self.players - 1}), in order, each once", where)
            return SIMULTANEOUS, None
        per_player = []
        for player in acting:
            try:
                first = list(game.legal_actions_of(state, player))
                second = list(game.legal_actions_of(state, player))
            except Exception as error:
                self.failed(error, where, "legal_actions_of")
                return SIMULTANEOUS, None
            name = self.info.players[player]
            if first != second or len(set(first)) != len(first):
                self.add(UNSTABLE_CHOICES, f"legal_actions_of {name} gave {self.names(first)} "
                         f"then {self.names(second)}", where)
            if not first:
                self.add(DEAD_END, f"{name} is among the players who choose at once but has no "
                         "legal action", where, rules=("simultaneous", "terminal"))
                return SIMULTANEOUS, None
            per_player.append(first)
        return SIMULTANEOUS, [(Joint(joint), None) for joint in product(*per_player)]

    def names(self, actions) -> str:
        try:
            return " ".join(self.joint_name(a) if isinstance(a, Joint) else self.name(a)
                            for a in actions) or "(none)"
        except Exception:
            return repr(list(actions))

    def joint_name(self, joint: tuple) -> str:
        """A joint move as people read it: ``(show(rock) show(paper))``."""
        return "(" + " ".join(self.name(a) for a in joint) + ")"

    def chance(self, state, where):
        game = self.game
        try:
            first = list(game.chance_outcomes(state))
            second = list(game.chance_outcomes(state))
        except Exception as error:
            self.failed(error, where, "chance_outcomes")
            return CHANCE, None
        if first != second:
            self.add(UNSTABLE_CHOICES, "chance_outcomes gave two different lists for one state",
                     where)
        inexact = [p for _, p in first if not _exact(p)]
        problem = (f"probability {inexact[0]!r} is not exact (int or Fraction)" if inexact
                   else distribution_problem(first) if first else "a chance state without outcomes")
        if problem:
            listing = ", ".join(f"{self.names([o])}: {p}" for o, p in first)
            self.add(BAD_CHANCE, problem, where, notes=(f"outcomes {{{listing}}}",))
            return CHANCE, None
        return CHANCE, [(o, Fraction(p)) for o, p in first]

    def terminal(self, state, where) -> None:
        game, info = self.game, self.info
        try:
            offered = list(game.legal_actions(state))
        except Exception:
            offered = []
        if offered:
            self.add(ACTIONS_AT_TERMINAL, f"legal_actions offers {self.names(offered)} at a "
                     "terminal state", where, rules=("terminal",))
        try:
            values = tuple(game.returns(state))
        except Exception as error:
            self.failed(error, where, "returns")
            return
        shown = "(" + ", ".join(format_value(v) if _exact(v) else repr(v) for v in values) + ")"
        if len(values) != self.players or not all(_exact(v) for v in values):
            self.add(BAD_UTILITY, f"returns gave {shown}; it must be one exact value (int or "
                     f"Fraction) per player ({self.players})", where, rules=("utility",))
            return
        if info.utility_bounds is not None:
            lo, hi = info.utility_bounds
            for player, v in zip(info.players, values):
                if not lo <= v <= hi:
                    self.add(UTILITY_OUT_OF_BOUNDS, f"{player}'s utility is {format_value(v)}, "
                             f"outside the declared bounds {format_value(lo)}..{format_value(hi)}",
                             where, rules=(f"utility {player}", "utility-bounds", "utility"),
                             notes=(f"utilities at this terminal state: {shown}",))
        if self.total is not None and sum(values) != self.total:
            self.add(SUM_BROKEN, f"the utilities {shown} sum to {format_value(sum(values))}, but the "
                     f"game is declared {info.sum_kind} (total {format_value(self.total)})",
                     where, rules=("sum", "utility"))

    def apply(self, state, action, where) -> tuple[bool, Any]:
        """(ok, child): apply twice and compare."""
        game = self.game
        self.at = (state, action)

        def after():
            return list(where()) + [self.names([action])]
        step = game.apply_joint if isinstance(action, Joint) else game.apply
        try:
            child = step(state, action)
            again = step(state, action)
        except Exception as error:
            self.failed(error, after, "apply")
            return False, None
        try:
            hash(child)
        except TypeError:
            self.add(NONDETERMINISTIC_APPLY, f"apply returned an unhashable state {child!r}",
                     after)
            return False, None
        if child != again:
            self.add(NONDETERMINISTIC_APPLY, "apply gave two different states for the same state "
                     f"and action: {child!r} then {again!r}", after)
        return True, child

    # -- length
    def too_long(self, path: Sequence[str], longest: int | None = None) -> None:
        """A play of ``len(path)`` moves that exceeds the bound."""
        self.at = None
        assert self.bound is not None, "a play is too long only where there is a bound"
        limit, _, rules, what = self.bound
        detail = f" (the longest play has {longest} moves)" if longest is not None else ""
        self.add(TOO_LONG, f"a play goes on past {what} of {limit} moves{detail}", path,
                 rules=rules)

    def cycle(self, stem, around: Sequence[str], ends_surely: bool = False,
              one_winner: bool | None = None) -> None:
        self.at = None
        # What `gdl solve` does with such a game is said in one place (gdl.solvers.repetition).
        from gdl.solvers.repetition import solve_on_cycles, strong_refusal

        if (self.info.hidden or self.info.simultaneous) and (self.bound is None
                                                              or self.bound[1] != 0):
            self._wide_cycle(stem, around, ends_surely)
            return
        solving = solve_on_cycles(self.info, ends_surely, one_winner)
        if ends_surely and (self.bound is None or self.bound[1] != 0):
            self.add(CYCLE, f"a state comes back after {len(around)} move(s), but whatever the "
                     "players do, every play ends with probability 1 (chance ends it): "
                     f"{solving}", stem, rules=("terminal",), cycle=around, severity="note")
            return
        if self.info.endless_value is not None and (self.bound is None or self.bound[1] != 0):
            worth = ", ".join(f"{p} {format_value(v)}"
                              for p, v in zip(self.info.players, self.info.endless_value))
            self.add(CYCLE, f"a state comes back after {len(around)} move(s), so a play can go "
                     f"on forever; the rules declare what that is worth ({worth}): {solving}",
                     stem, rules=("endless",), cycle=around, severity="note")
            return
        described = (f"a state comes back after {len(around)} move(s), so a play can go on "
                     "forever")
        if self.bound is not None and self.bound[1] == 0:
            limit = self.bound[0]
            self.add(TOO_LONG, f"{described}, past the declared max-length of {limit} moves",
                     stem, rules=("max-length",), cycle=around)
        elif strong_refusal(self.info, ends_surely, one_winner) is None:
            self.add(CYCLE, f"{described}: the game may not terminate (it declares neither a "
                     "max-length nor what endless play is worth); declare `when endless draw` "
                     "(or one utility per player) to value endless play, or a max-length; "
                     "gdl solve --strong solves it as it is, a position neither side can force "
                     "to end being a draw without a value", stem, rules=("terminal",),
                     cycle=around)
        else:
            self.add(CYCLE, f"{described}: the game may not terminate (it declares no "
                     f"max-length), and {solving}; declare a max-length", stem,
                     rules=("terminal",), cycle=around)


    def _wide_cycle(self, stem, around: Sequence[str], ends_surely: bool) -> None:
        """A cycle in a game with simultaneous moves or hidden information: only the
        simultaneous solver values such a game (two players, constant sum, nothing hidden, and
        every play ending with probability 1 whatever the players do: Shapley's setting)."""
        from gdl.solvers.wide import what_is_wide

        info = self.info
        described = (f"a state comes back after {len(around)} move(s), so a play can go on "
                     "forever")
        if (ends_surely and not info.hidden and info.num_players == 2
                and info.is_constant_sum):
            self.add(CYCLE, f"{described}, but whatever the players do, every play ends with "
                     "probability 1: gdl solve brackets its value (Shapley's iteration, the "
                     "simultaneous solver)", stem, rules=("terminal",), cycle=around,
                     severity="note")
            return
        self.add(CYCLE, f"{described}: in a game with {what_is_wide(info)} only the "
                 "simultaneous solver takes positions that repeat, and only with two players, a "
                 "constant sum, nothing hidden and every play ending with probability 1 whatever "
                 "the players do; declare a max-length", stem, rules=("terminal",), cycle=around)


class Joint(tuple):
    """One action per acting player, applied together (``apply_joint``): a move at a state
    where several players choose at once."""


# ---- playouts ----------------------------------------------------------------------------------

def _pick(rng: random.Random, kind: int, options):
    if kind != CHANCE:
        return rng.randrange(len(options))
    r = rng.random()
    acc = 0.0
    for i, (_, p) in enumerate(options):
        acc += float(p)
        if r < acc:
            return i
    return len(options) - 1


class _Playouts:
    """Random playouts with caches, so repeated prefixes are checked once."""

    def __init__(self, checker: _Checker, seed: int):
        self.checker = checker
        self.rng = random.Random(seed)
        self.expanded: dict = {}     # state -> (kind, options) or None
        self.children: dict = {}     # (state, index) -> child or _FAILED

    def where(self, state, path: list[str]) -> Callable[[], list[str]]:
        """The path to ``state`` for a report: a shortest one when a small search finds it,
        else the playout's own."""
        frozen = list(path)

        def find() -> list[str]:
            shortest = path_to(self.checker.game, state, limit=SHORTEST_LIMIT)
            return frozen if shortest is None or len(shortest) > len(frozen) else shortest

        return find

    def run(self, count: int, report: Report) -> None:
        checker = self.checker
        game = checker.game
        bound = checker.bound[0] if checker.bound else None
        cap = bound + 1 if bound is not None else PLAYOUT_CAP
        for _ in range(count):
            state = game.initial_state()
            path: list[str] = []
            seen = {state: 0}
            states = [state]
            report.playouts += 1
            while True:
                if state in self.expanded:
                    expansion = self.expanded[state]
                else:
                    expansion = checker.expand(state, self.where(state, path))
                    self.expanded[state] = expansion
                if expansion[1] is None or expansion[0] == TERMINAL:
                    break
                if bound is not None and len(path) >= bound:
                    checker.too_long(path + [checker.names([expansion[1][0][0]])])
                    break
                if len(path) >= cap:
                    report.cut_playouts += 1
                    break
                kind, options = expansion
                index = _pick(self.rng, kind, options)
                action = options[index][0]
                key = (state, index)
                if key in self.children:
                    child = self.children[key]
                else:
                    ok, child = checker.apply(state, action, self.where(state, path))
                    child = child if ok else _FAILED
                    self.children[key] = child
                if child is _FAILED:
                    break
                path.append(checker.names([action]))
                state = child
                if state in seen:
                    start = seen[state]
                    checker.cycle(self.where(state, path[:start]), path[start:])
                    break
                seen[state] = len(path)
                states.append(state)
            report.playout_moves += len(path)
            report.longest_playout = max(report.longest_playout, len(path))


_FAILED = object()


# ---- exhaustive exploration --------------------------------------------------------------------

class _Graph:
    """Breadth-first exploration: states by index, parents for shortest paths, edges."""

    def __init__(self, checker: _Checker, limit: int):
        self.checker = checker
        self.limit = limit
        game = checker.game
        root = game.initial_state()
        self.index = {root: 0}
        self.states = [root]
        self.parent = [-1]
        self.via: list = [None]           # the action from the parent
        self.depth = [0]
        self.kind: list = []              # per expanded state: player, CHANCE, TERMINAL or None
        self.succ: list[list[tuple[int, Any]]] = []
        self.complete = False
        self.best: tuple | None = None    # one player: (value, state index)

    def path(self, i: int) -> list[str]:
        names = []
        name = self.checker.names
        while self.parent[i] >= 0:
            names.append(name([self.via[i]]))
            i = self.parent[i]
        return names[::-1]

    def explore(self) -> None:
        checker = self.checker
        one_player = checker.players == 1
        i = 0
        while i < len(self.states):
            if i >= self.limit:
                return
            state = self.states[i]
            where = (lambda i=i: self.path(i))
            expansion = checker.expand(state, where)
            edges: list[tuple[int, Any]] = []
            kind, options = expansion
            self.kind.append(kind)
            if options is not None:
                if kind == TERMINAL and one_player:
                    self.note_best(state, i)
                for action, _ in options:
                    ok, child = checker.apply(state, action, where)
                    if not ok:
                        continue
                    j = self.index.get(child)
                    if j is None:
                        j = len(self.states)
                        self.index[child] = j
                        self.states.append(child)
                        self.parent.append(i)
                        self.via.append(action)
                        self.depth.append(self.depth[i] + 1)
                    edges.append((j, action))
            self.succ.append(edges)
            i += 1
        self.complete = True

    def one_winner(self) -> bool | None:
        """Whether every end gives one player the greatest utility and every other the same
        least one (None: not every state was explored, or a rule failed)."""
        if not self.complete:
            return None
        returns = self.checker.game.returns
        try:
            table = {tuple(returns(state)) for state, kind in zip(self.states, self.kind)
                     if kind == TERMINAL}
        except Exception:
            return None
        if not table:
            return False
        low, high = min(min(v) for v in table), max(max(v) for v in table)
        return low != high and all(sorted(v) == [low] * (len(v) - 1) + [high] for v in table)

    def note_best(self, state, i: int) -> None:
        try:
            value = self.checker.game.returns(state)[0]
        except Exception:
            return
        if _exact(value) and (self.best is None or value > self.best[0]):
            self.best = (value, i)

    # -- graph analysis over the expanded part
    def components(self) -> list[int]:
        """Tarjan's strongly connected components, iteratively; returns each state's component
        id, ids in reverse topological order (a component's successors have smaller ids)."""
        n = len(self.succ)
        index = [-1] * n
        low = [0] * n
        comp = [-1] * n
        on_stack = [False] * n
        stack: list[int] = []
        counter = 0
        ncomp = 0
        for root in range(n):
            if index[root] >= 0:
                continue
            work = [(root, 0)]
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack[root] = True
            while work:
                v, k = work[-1]
                edges = self.succ[v]
                if k < len(edges):
                    work[-1] = (v, k + 1)
                    w = edges[k][0]
                    if w >= n:
                        continue  # not expanded (exploration stopped): a sink here
                    if index[w] < 0:
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on_stack[w] = True
                        work.append((w, 0))
                    elif on_stack[w] and index[w] < low[v]:
                        low[v] = index[w]
                    continue
                work.pop()
                if work and low[v] < low[work[-1][0]]:
                    low[work[-1][0]] = low[v]
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        on_stack[w] = False
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
        return comp

    def cyclic(self, comp: list[int]) -> list[bool]:
        n = len(self.succ)
        size: dict[int, int] = {}
        for c in comp:
            size[c] = size.get(c, 0) + 1
        return [size[comp[v]] > 1 or any(w == v for w, _ in self.succ[v]) for v in range(n)]

    def shortest_cycle(self, v: int, comp: list[int]) -> list | None:
        """The actions of a shortest cycle through v (breadth-first inside v's component)."""
        n = len(self.succ)
        parent: dict[int, tuple[int, Any]] = {}
        queue: deque[int] = deque()
        for w, action in self.succ[v]:
            if w == v:
                return [action]
            if w < n and comp[w] == comp[v] and w not in parent:
                parent[w] = (v, action)
                queue.append(w)
        while queue:
            u = queue.popleft()
            for w, action in self.succ[u]:
                if w == v:
                    actions = [action]
                    while u != v:
                        u, a = parent[u]
                        actions.append(a)
                    return actions[::-1]
                if w < n and comp[w] == comp[v] and w not in parent:
                    parent[w] = (u, action)
                    queue.append(w)
        return None

    def cycle_witness(self, comp, cyclic) -> tuple[list[str], list[str]] | None:
        """Among states on cycles, the one minimising distance + cycle length (at most 1000
        cycle searches, in breadth-first order)."""
        best = None
        searched = 0
        for v in range(len(self.succ)):
            if not cyclic[v]:
                continue
            if best is not None and self.depth[v] + 1 >= best[0]:
                break
            around = self.shortest_cycle(v, comp)
            searched += 1
            if around is not None and (best is None or self.depth[v] + len(around) < best[0]):
                best = (self.depth[v] + len(around), v, around)
            if searched >= 1000:
                break
        if best is None:
            return None
        _, v, around = best
        return self.path(v), [self.checker.names([a]) for a in around]

    def longest(self, comp: list[int]) -> tuple[int, list[str]]:
        """The longest play (acyclic graph): its length and actions."""
        n = len(self.succ)
        order = sorted(range(n), key=lambda v: comp[v])   # successors first
        length = [0] * n
        step: list = [None] * n
        for v in order:
            for w, action in self.succ[v]:
                if length[w] + 1 > length[v]:
                    length[v] = length[w] + 1
                    step[v] = (w, action)
        names = []
        v = 0
        while step[v] is not None:
            w, action = step[v]
            names.append(self.checker.names([action]))
            v = w
        return length[0], names

    def endless(self) -> int:
        """States from which the players together can keep the game going for ever with
        probability 1: none means every play ends with probability 1 whatever anyone does. (The
        states that must end: terminals, a chance state with an outcome that must end, a
        decision state all of whose moves must end.)"""
        n = len(self.succ)
        preds: list[list[int]] = [[] for _ in range(n)]
        for v, edges in enumerate(self.succ):
            for w, _ in edges:
                preds[w].append(v)
        ends = [k == TERMINAL for k in self.kind]
        remaining = [len(edges) for edges in self.succ]
        queue = deque(v for v in range(n) if ends[v])
        while queue:
            w = queue.popleft()
            for v in preds[w]:
                if ends[v] or self.kind[v] is None:
                    continue
                remaining[v] -= 1
                if self.kind[v] == CHANCE or remaining[v] == 0:
                    ends[v] = True
                    queue.append(v)
        return n - sum(ends)

    def stuck(self) -> int:
        """States from which no terminal state can be reached."""
        n = len(self.succ)
        preds: list[list[int]] = [[] for _ in range(n)]
        for v, edges in enumerate(self.succ):
            for w, _ in edges:
                preds[w].append(v)
        good = [k == TERMINAL for k in self.kind]
        queue = deque(v for v in range(n) if good[v])
        while queue:
            w = queue.popleft()
            for v in preds[w]:
                if not good[v]:
                    good[v] = True
                    queue.append(v)
        return n - sum(good)


def _analyse(graph: _Graph, report: Report) -> None:
    checker = graph.checker
    if not graph.succ:
        return
    comp = graph.components()
    cyclic = graph.cyclic(comp)
    witness = graph.cycle_witness(comp, cyclic) if any(cyclic) else None
    if witness is not None:
        checker.cycle(*witness, ends_surely=graph.complete and graph.endless() == 0,
                      one_winner=graph.one_winner())
    if not graph.complete:
        return
    longest = None
    if not any(cyclic):
        longest, play = graph.longest(comp)
        if checker.bound is not None and longest > checker.bound[0]:
            checker.too_long(play[:checker.bound[0] + 1], longest)
    kinds = graph.kind
    best = None
    if graph.best is not None:
        value, i = graph.best
        best = value
        bounds = checker.info.utility_bounds
        if bounds is not None and value < bounds[1]:
            checker.at = None
            checker.add(BEST_UNREACHABLE, f"the best utility {checker.info.players[0]} can reach is "
                        f"{format_value(value)}, below the declared maximum {format_value(bounds[1])}",
                        graph.path(i), rules=("utility-bounds", "utility"), severity="warning")
    report.census = Census(
        states=len(graph.states), decision=sum(1 for k in kinds if _decides(k)),
        chance=sum(1 for k in kinds if k == CHANCE), terminal=sum(1 for k in kinds if k == TERMINAL),
        moves=sum(len(e) for e in graph.succ), depth=max(graph.depth), longest_play=longest,
        cyclic_states=sum(cyclic), stuck_states=graph.stuck(), best_utility=best,
        simultaneous=sum(1 for k in kinds if k == SIMULTANEOUS))


def _decides(kind) -> bool:
    """A state where a player chooses (or several at once)."""
    return kind is not None and (kind >= 0 or kind == SIMULTANEOUS)


# ---- the rules' conditions over every reachable state (E414, E415) ----------------------------------
# Only these checks read the rules themselves (the checked game, gdl.lang.ir), and only when the
# game carries them (``game.ir``) and every reachable state was explored: "never" and "always"
# are then statements about the whole game, not about the states a sample happened to visit.

_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})


def _is_test(e) -> bool:
    """A comparison as written: `a < b`, or a membership test (`x in {a, b}`, `x in 1..3`),
    which the checker turns into comparisons joined by `or` (`and`), all with its own span."""
    from gdl.lang import ir

    if not isinstance(e, ir.Binary):
        return False
    if e.op in _COMPARISONS:
        return True
    return e.op in ("and", "or") and e.left.span == e.span == e.right.span and e.span.line > 0


class _Tests:
    """The comparisons a `requires` evaluates, each with the outcomes it gave: the requires is
    evaluated as the interpreter does (gdl.lang.evaluate, the same short-circuits), through
    closures that record each comparison's outcome by its span. Comparisons that do not read the
    state (a rule variant chosen by a `param`) are constant by design and not recorded."""

    def __init__(self) -> None:
        self.outcomes: dict = {}        # span -> {False, True} seen
        self.states: dict = {}          # span -> state indices where it was evaluated
        self.actions: dict = {}         # span -> names of the actions that evaluated it
        self.in_define: set = set()     # spans of comparisons written in a define's body
        self.state = 0
        self.action = ""
        self._defines: dict = {}

    def closure(self, e, in_define: bool = False, varying: frozenset = frozenset()):
        """``f(cells, env) -> bool`` for the boolean expression ``e``, recording its tests.
        ``varying``: the local names here whose values come from the state (a `let` of a
        variable, a define's parameter given one)."""
        from gdl.lang import ir
        from gdl.lang.evaluate import bindings_fn, expr_fn

        if _is_test(e) and _reads_state(e, varying):
            plain, span = expr_fn(e), e.span
            if in_define:
                self.in_define.add(span)
            # a test of the state alone (`men(mover) < 3`) has one value per state: computed once
            last: list = [None, None] if not _free_locals(e) else []

            def test(s, env):
                if last and last[0] == self.state:
                    value = last[1]
                else:
                    value = bool(plain(s, env))
                    if last:
                        last[:] = [self.state, value]
                    self.outcomes.setdefault(span, set()).add(value)
                    self.states.setdefault(span, {}).setdefault(self.state, None)
                self.actions.setdefault(span, set()).add(self.action)
                return value
            return test
        if isinstance(e, ir.Binary) and e.op in ("and", "or"):
            left = self.closure(e.left, in_define, varying)
            right = self.closure(e.right, in_define, varying)
            if e.op == "and":
                return lambda s, env: left(s, env) and right(s, env)
            return lambda s, env: left(s, env) or right(s, env)
        if isinstance(e, ir.Unary) and e.op == "not":
            operand = self.closure(e.operand, in_define, varying)
            return lambda s, env: not operand(s, env)
        if isinstance(e, ir.IfExpr) and e.type == ir.BOOL:
            cond = self.closure(e.cond, in_define, varying)
            then = self.closure(e.then, in_define, varying)
            otherwise = self.closure(e.otherwise, in_define, varying)
            return lambda s, env: then(s, env) if cond(s, env) else otherwise(s, env)
        if isinstance(e, ir.Let) and e.type == ir.BOOL:
            inner = varying | {e.name} if _reads_state(e.value, varying) else varying - {e.name}
            value, body, name = expr_fn(e.value), self.closure(e.body, in_define, inner), e.name
            return lambda s, env: body(s, {**env, name: value(s, env)})
        if isinstance(e, ir.Quantifier) and e.kind in ("any", "all"):
            bound = frozenset(name for name, _ in e.binders)
            body, combos_in = self.closure(e.body, in_define, varying - bound), bindings_fn(e.binders)
            want = e.kind == "any"

            def quantifier(s, env):
                inner = dict(env)
                for combo in combos_in(s, env):
                    inner.update(combo)
                    if body(s, inner) == want:
                        return want
                return not want
            return quantifier
        if isinstance(e, ir.Call) and e.type == ir.BOOL:
            args, params = [expr_fn(a) for a in e.args], e.define.params
            given = frozenset(p for p, a in zip(params, e.args) if _reads_state(a, varying))
            key = (e.define, given)     # one closure per define and state-reading parameters
            if key not in self._defines:
                holder: list = [None]
                self._defines[key] = holder
                holder[0] = self.closure(e.define.body, True, given)
            body = self._defines[key]
            return lambda s, env: body[0](s, {p: a(s, env) for p, a in zip(params, args)})
        plain = expr_fn(e)
        return lambda s, env: bool(plain(s, env))


def _free_locals(e) -> set:
    """The local names ``e`` reads that it does not bind itself."""
    from gdl.lang import ir

    if isinstance(e, ir.Local):
        return {e.name}
    if isinstance(e, ir.Quantifier):
        free = _free_locals(e.body) - {name for name, _ in e.binders}
        for _, values in e.binders:
            if isinstance(values, ir.Range):
                free |= _free_locals(values.low) | _free_locals(values.high)
        return free
    if isinstance(e, ir.Let):
        return _free_locals(e.value) | (_free_locals(e.body) - {e.name})
    children = [getattr(e, field) for field in ("left", "right", "operand", "cond", "then",
                                                 "otherwise") if hasattr(e, field)]
    children += list(getattr(e, "indices", ())) + list(getattr(e, "args", ()))
    free = set()
    for child in children:
        free |= _free_locals(child)
    return free


def _reads_state(e, varying: frozenset = frozenset()) -> bool:
    """Whether ``e`` reads the state: a variable, `mover`, a local name in ``varying``, or a
    define that reads the state itself or through its arguments."""
    from gdl.lang import ir

    stack, seen = [e], set()
    while stack:
        node = stack.pop()
        if isinstance(node, (ir.VarRef, ir.Mover)) or (
                isinstance(node, ir.Local) and node.name in varying):
            return True
        if isinstance(node, ir.Call):
            if id(node.define) not in seen:
                seen.add(id(node.define))
                stack.append(node.define.body)
            stack.extend(node.args)
        elif isinstance(node, ir.Quantifier):
            stack.append(node.body)
            stack.extend(v for _, values in node.binders if isinstance(values, ir.Range)
                         for v in (values.low, values.high))
        else:
            stack.extend(getattr(node, field) for field in ("left", "right", "operand", "cond",
                                                            "then", "otherwise", "value", "body")
                         if hasattr(node, field))
            stack.extend(getattr(node, "indices", ()))
            stack.extend(getattr(node, "args", ()))
    return False


def _rules_of(game):
    """The checked rules of a rule game (gdl.lang.ir.Game), or None (a tree, another protocol
    object, or rules that cannot be had)."""
    from gdl.lang import ir

    try:
        rules = getattr(game, "ir", None)
    except Exception:
        return None
    if not isinstance(rules, ir.Game) or rules.tree is not None or not rules.ground_actions:
        return None
    return rules


def _check_requires(graph: _Graph, checker: _Checker) -> int | None:
    """E414 and E415 over every decision state of a complete exploration; the number of states
    where the `requires` were evaluated, or None when the checks could not run (see Report)."""
    from gdl.lang.evaluate import EvalError

    rules = _rules_of(checker.game)
    decisions = [i for i, kind in enumerate(graph.kind) if _decides(kind)]
    if rules is None or len(decisions) > REQUIRES_LIMIT:
        return None
    tests = _Tests()
    # per player: (action name, ground action id, arguments, parameters, conditions in the order
    # they are evaluated, each with how many arguments it reads: a parameter's guard reads those
    # up to its own and is evaluated once for them in a state, as the compiler does; None: all)
    candidates: list[list] = [[] for _ in rules.players]
    conditions = {}
    for action in rules.actions:
        if action.by is not None and not action.by:
            continue        # `init`: taken by nobody
        parts = [(position + 1, guard) for position, guard in action.guards]
        rest = action.rest if action.guards else action.requires
        parts += [(None, rest)] if rest is not None else []
        conditions[action.name] = [(k, tests.closure(part)) for k, part in parts]
    for action_id, ground in enumerate(rules.ground_actions):
        action = ground.action
        if action.name in conditions:
            env = {name: value for (name, _, _), value in zip(action.params, ground.args)}
            for player in range(len(rules.players)):
                if action.by is None or player in action.by:
                    candidates[player].append((action.name, action_id, ground.args, env,
                                               conditions[action.name]))
    legal_somewhere: set[str] = set()
    considered: dict[str, dict] = {}     # action -> decision states where its player moved
    for i in decisions:
        state, kind = graph.states[i], graph.kind[i]
        # Who was asked here, and what the game answered (the actions it moved along): where
        # several choose at once, every player was asked, and each acting one's actions are
        # its part of the joint moves.
        if kind == SIMULTANEOUS:
            asked = list(range(len(rules.players)))
            answered: dict[int, set] = {p: set() for p in asked}
            for _, joint in graph.succ[i]:
                for player, action in zip(checker.game.acting_players(state), joint):
                    answered[player].add(action)
        else:
            asked = [kind]
            answered = {kind: {action for _, action in graph.succ[i]}}
        if any(player >= len(candidates) for player in asked):
            return None
        tests.state = i
        for player in asked:
            # `mover` is the player asked (a simultaneous game's state names another)
            seen = state if state[0] == player else (player,) + tuple(state[1:])
            legal = []
            guarded: dict = {}   # (action, guard, arguments it reads) -> its value in this state
            try:
                for name, action_id, args, env, parts in candidates[player]:
                    tests.action = name
                    considered.setdefault(name, {}).setdefault(i, None)
                    for index, (reads, part) in enumerate(parts):
                        if reads is None:
                            holds = part(seen, env)
                        else:
                            key = (name, index, args[:reads])
                            if key not in guarded:
                                guarded[key] = part(seen, env)
                            holds = guarded[key]
                        if not holds:
                            break
                    else:
                        legal.append(action_id)
                        legal_somewhere.add(name)
            except (EvalError, ArithmeticError, LookupError, TypeError):
                return None     # a rule that fails here is reported as such (E410), not judged
            # Checked against the game's own answer: where they differ (another encoding of the
            # states, a rule that failed) nothing is said.
            if set(legal) != answered[player]:
                return None
    never = [a for a in rules.actions if a.name in conditions and a.name not in legal_somewhere]
    _report_requires(graph, checker, rules, tests, never, considered)
    return len(decisions)


def _report_requires(graph: _Graph, checker: _Checker, rules, tests: _Tests, never: list,
                     considered: dict) -> None:
    checker.at = None
    always_false = sorted((span for span, seen in tests.outcomes.items() if seen == {False}),
                          key=lambda span: (span.line, span.column))
    for action in never:
        states = list(considered.get(action.name, ()))
        who = ("a player" if action.by is None
               else " or ".join(rules.players[p] for p in sorted(action.by)))
        values = " for every value of its parameters" if action.params else ""
        if states:
            message = (f"action '{action.name}' is never legal: its `requires` is false{values} in "
                       f"all {len(states):,} reachable state(s) where {who} is to move")
        else:
            message = (f"action '{action.name}' is never legal: {who} is never to move in the "
                       f"{len(graph.states):,} reachable states")
        notes = [f"the comparison at line {span.line}, column {span.column} is false every time "
                 "it is evaluated" for span in always_false if action.name in tests.actions[span]]
        checker.add(NEVER_LEGAL, message, graph.path(states[0] if states else 0),
                    rules=(f"action {action.name}",), span=action.span, severity="warning",
                    notes=notes[:3], count=max(len(states), 1))
    never_names = {a.name for a in never}
    for span in always_false:
        owners = tests.actions[span]
        # said in the never-legal action's own warning; and a define's body serves every rule
        # that calls it, so a branch dead in the actions may be alive elsewhere or in a variant
        if owners <= never_names or span in tests.in_define:
            continue
        states = list(tests.states[span])
        named = ", ".join(f"'{n}'" for n in sorted(owners))
        checker.add(CONSTANT_TEST, f"this comparison is always false: it is false every time the "
                    f"`requires` of {named} evaluates it, in {len(states):,} reachable state(s), so "
                    "the part of the condition it decides never holds", graph.path(states[0]),
                    span=span, severity="warning", count=len(states))


# ---- information states (simultaneous moves, hidden information) --------------------------------
# A player's information state is what it has seen so far (gdl.solvers.information). The solvers
# of such games need two things of them, checked here over every history: an information state
# offers the same legal actions at every position it contains (else the player could tell those
# positions apart by what it may do, and a strategy would have to say what to do with actions
# that are not there), and it is always reached after the same choices of the player's own
# (perfect recall: a player forgets nothing it did). The sequence form (gdl.solvers.extensive)
# refuses a game that breaks either.

@dataclass
class _Seen:
    """The first time an information state was met: its actions, the player's own sequence
    of choices before it, and the history where (an index into the walk's parents)."""

    actions: tuple
    own: int
    history: int


def _information(checker: _Checker, report: Report, limit: int = HISTORY_LIMIT) -> None:
    """Count every player's information states (where it chooses), breadth first over the
    histories, and check them (E416, E417)."""
    from gdl.solvers import information

    game = checker.game
    n = checker.players
    met: list[dict] = [{} for _ in range(n)]
    sequences: dict[tuple, int] = {}        # (parent sequence, information state, action) -> id
    parents: list[int] = []                 # per history: the one before it
    via: list[Any] = []                     # and the move between
    checker.at = None
    try:
        start = game.initial_state()
        queue = deque([(start, information.start(game, start), (0,) * n, -1, None)])
    except Exception:
        return                              # reported by the state checks
    complete = True
    while queue:
        state, keys, own, parent, move = queue.popleft()
        here = len(parents)
        parents.append(parent)
        via.append(move)
        try:
            kind = game.current_player(state)
            if kind == TERMINAL:
                continue
            if kind == CHANCE:
                moves = [(o, own) for o, p in game.chance_outcomes(state) if p]
            elif kind >= 0 or kind == SIMULTANEOUS:
                acting = information.acting(game, state)
                per_player = []
                for player in acting:
                    actions = tuple(information.actions_of(game, state, player))
                    _meet(checker, met[player], player, keys[player], actions, own[player],
                          here, parents, via)
                    per_player.append([(a, sequences.setdefault(
                        (own[player], keys[player], a), len(sequences) + 1)) for a in actions])
                moves = []
                for picks in product(*per_player):
                    new = list(own)
                    for player, (_, sequence) in zip(acting, picks):
                        new[player] = sequence
                    joint = tuple(a for a, _ in picks)
                    moves.append((Joint(joint) if kind == SIMULTANEOUS else joint[0], tuple(new)))
            else:
                continue
            if len(parents) + len(queue) + len(moves) > limit:
                complete = False        # the histories met so far are walked to the end
                continue
            for move, new in moves:
                child = (game.apply_joint(state, move) if isinstance(move, Joint)
                         else game.apply(state, move))
                queue.append((child, information.step(game, keys, state, move, child), new,
                              here, move))
        except Exception:
            continue                            # a rule that fails: reported by the state checks
    report.information_states = {name: len(found) for name, found in zip(checker.info.players, met)}
    report.information_complete = complete
    report.histories = len(parents)


def _meet(checker: _Checker, seen: dict, player: int, key, actions: tuple, own: int, here: int,
          parents: list[int], via: list) -> None:
    """An information state met at history ``here``: remembered the first time, compared
    with the first time after that."""
    first = seen.get(key)
    if first is None:
        seen[key] = _Seen(actions, own, here)
        return
    if first.actions == actions and first.own == own:
        return

    def path(history: int) -> list[str]:
        names = []
        while history > 0:
            names.append(checker.names([via[history]]))
            history = parents[history]
        return names[::-1]

    name = checker.info.players[player]
    other = " ".join(path(first.history)) or "(the initial state)"
    if first.actions != actions:
        differ = [a for a in first.actions if a not in actions] + \
                 [a for a in actions if a not in first.actions]
        span, notes = _unseen_reasons(checker.game, player, differ)
        notes.insert(0, f"{name} may play {checker.names(first.actions)} after {other}, but "
                        f"{checker.names(actions)} here, and sees the same in both")
        checker.at = (INFOSET_ACTIONS, player, key)
        checker.add(INFOSET_ACTIONS, f"{name} cannot tell two positions apart but may play "
                    f"different actions in them ({checker.names(differ)}): what a player may do "
                    "must follow from what it sees, or the solvers of hidden information cannot "
                    "give it a strategy", lambda: path(here), span=span, notes=notes)
    else:
        checker.at = (NO_PERFECT_RECALL, player, key)
        checker.add(NO_PERFECT_RECALL, f"{name} reaches one information state after different "
                    "choices of its own: the game makes it forget what it did (no perfect "
                    "recall), and the solvers of hidden information need it to remember",
                    lambda: path(here), notes=(f"the same information state after {other}",))
    checker.at = None


def _unseen_reasons(game, player: int, actions) -> tuple[Any, list[str]]:
    """Where to point for an information state whose actions differ (the first of ``actions``
    that is an action of the rules: its declaration), and notes naming the variables its
    `requires` reads that ``player`` does not see in full, with their `private` or `hidden`
    declaration."""
    rules = _rules_of(game)
    if rules is None:
        return None, []
    grounds = [rules.ground_actions[a] for a in actions
               if isinstance(a, int) and 0 <= a < len(rules.ground_actions)]
    if not grounds:
        return None, []
    action = grounds[0].action
    unseen = set(rules.hidden_vars) | set(rules.private_vars)
    read = [v for v in _variables_read(action.requires) if v in unseen]
    declared = _declarations(game)
    notes = []
    for var in read:
        word = "private" if var in rules.private_vars else "hidden"
        where = declared.get(var)
        at = f" (line {where.line})" if where is not None else ""
        whose = (f"the others' entries of {var}" if word == "private" else var)
        notes.append(f"the `requires` of '{action.name}' reads {var}, and "
                     f"{rules.players[player]} does not see {whose}: `{word} {var}`{at}")
    if read:
        notes.append(f"make the `requires` of '{action.name}' read only what "
                     f"{rules.players[player]} sees, or let it see {', '.join(read)}")
    else:
        notes.append(f"the `requires` of '{action.name}' (or the turn) depends on what "
                     f"{rules.players[player]} does not see")
    return action.span, notes


def _variables_read(expr) -> list[str]:
    """The state variables an IR expression reads, defines followed, in order, each once."""
    import dataclasses

    from gdl.lang import ir

    found: list[str] = []
    stack, seen = [expr], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ir.VarRef) and node.var.name not in found:
            found.append(node.var.name)
        if isinstance(node, ir.Call):
            stack.append(node.define.body)
        if isinstance(node, (list, tuple)):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, (ir.Variable, ir.Define)):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
    return found


def _declarations(game) -> dict:
    """Where each name in a `private` or `hidden` declaration is written (from the rule text,
    which the checked rules do not keep positions of)."""
    source = getattr(game, "source", None)
    if source is None:
        return {}
    from gdl.lang import ast
    from gdl.lang.parse import parse

    try:
        tree = parse(source.text, source.filename)
    except Exception:
        return {}
    return {name.name: name.span for decl in tree.declarations
            if isinstance(decl, (ast.PrivateDecl, ast.HiddenDecl)) for name in decl.names}


# ---- the entry point ---------------------------------------------------------------------------

def validate(game, *, playouts: int = 100, seed: int = 0, max_length: int | None = None,
             exhaustive: bool | None = None, auto_limit: int = AUTO_LIMIT,
             max_states: int = MAX_STATES, declared_states: int | None = None) -> Report:
    """Play ``game`` and report every kind of problem found (see the module docstring).

    ``exhaustive``: True visits every reachable state (up to ``max_states``), False only plays,
    None counts up to ``auto_limit`` states and is exhaustive when there are no more. Random
    playouts (``playouts`` of them, from ``random.Random(seed)``) run in every mode.
    ``declared_states`` is only carried into the report (the caller knows the declared domains).
    """
    report = Report(game=game.info.name, declared_states=declared_states)
    checker = _Checker(game, max_length)
    limit = max_states if exhaustive else 0
    if exhaustive is None:
        # A quick, unchecked count first: the checked visit costs about four times as much.
        if reachable_states(game, game.initial_state(), auto_limit) is not None:
            limit = max_states
        else:
            report.explored = auto_limit
    graph = None
    if limit:
        graph = _Graph(checker, limit)
        graph.explore()
        report.explored = len(graph.succ)
        report.exploration_complete = graph.complete
        report.exhaustive = graph.complete
        _analyse(graph, report)
        if graph.complete:
            report.requires_checked = _check_requires(graph, checker)
    if game.info.hidden or game.info.simultaneous:
        _information(checker, report)
    runner = _Playouts(checker, seed)
    runner.run(playouts, report)
    visited = set(runner.expanded)
    if graph is not None:
        visited.update(graph.states[:len(graph.succ)])
    report.states_visited = len(visited)
    report.violations = checker.violations()
    return report


# ---- size estimate -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    samples: int
    tree_nodes: float                       # estimated nodes of the full game tree
    tree_by_depth: tuple[float, ...]        # estimated nodes within d decision plies, d = 0, 1, ...
    pruned_by_depth: tuple[float, ...]      # the same with n_k ** 0.75 nodes at depth k (pruning)
    ordered_by_depth: tuple[float, ...]     # the same with n_k ** 0.5 (pruning, good ordering)
    states: float                           # estimated distinct states (an upper estimate)
    declared_states: int | None
    exact_states: int | None                # when a small exploration counted them
    mean_branching: float                   # over decision states met
    mean_length: float                      # moves per playout
    longest: int
    cycles: bool                            # a playout met a state twice

    def nodes_within(self, depth: int | None, pruning: bool = False, ordered: bool = False) -> float:
        table = (self.ordered_by_depth if ordered else self.pruned_by_depth) if pruning \
            else self.tree_by_depth
        if not table:
            return 1.0
        if depth is None or depth >= len(table):
            return table[-1]
        return table[max(depth, 0)]

    def as_dict(self) -> dict:
        return {"samples": self.samples, "tree_nodes": self.tree_nodes, "states": self.states,
                "declared_states": self.declared_states, "exact_states": self.exact_states,
                "mean_branching": round(self.mean_branching, 3),
                "mean_length": round(self.mean_length, 3), "longest": self.longest,
                "cycles": self.cycles}


def estimate(game, *, samples: int = 64, seed: int = 0, declared_states: int | None = None,
             root=None, explore: int = 0, cap: int = PLAYOUT_CAP) -> Estimate:
    """Knuth's estimate of the tree size from ``samples`` random playouts, with branching and
    length figures; ``explore`` > 0 first counts the reachable states exactly if there are no
    more than that many. Rules that fail stop a playout (the solver will report them)."""
    rng = random.Random(seed)
    root = game.initial_state() if root is None else root
    by_depth: list[float] = []          # sum over samples of estimated nodes at decision depth d
    branching_sum = decisions = 0
    moves_total = longest = 0
    cycles = False
    for _ in range(samples):
        state, weight, depth, moves = root, 1.0, 0, 0
        seen = {state}
        while True:
            while len(by_depth) <= depth:
                by_depth.append(0.0)
            by_depth[depth] += weight
            try:
                kind = game.current_player(state)
                if kind == TERMINAL:
                    break
                if kind == CHANCE:
                    options: list[tuple[Any, float | None]] = [
                        (o, float(p)) for o, p in game.chance_outcomes(state)]
                else:
                    options = [(a, None) for a in game.legal_actions(state)]
                if not options or moves >= cap:
                    break
                i = _pick(rng, kind, options)
                state = game.apply(state, options[i][0])
            except Exception:
                break
            if kind == CHANCE:
                weight /= options[i][1] or 1.0
            else:
                weight *= len(options)
                branching_sum += len(options)
                decisions += 1
                depth += 1
            moves += 1
            if state in seen:
                cycles = True
                break
            seen.add(state)
        moves_total += moves
        longest = max(longest, moves)
    n = max(samples, 1)
    cumulative, pruned, ordered = [], [], []
    running = running_pruned = running_ordered = 0.0
    for total in by_depth:
        running += total / n
        running_pruned += max(total / n, 1.0) ** PRUNED_EXPONENT
        running_ordered += max(total / n, 1.0) ** ORDERED_EXPONENT
        cumulative.append(running)
        pruned.append(running_pruned)
        ordered.append(running_ordered)
    tree = cumulative[-1] if cumulative else 1.0
    exact = None
    if explore:
        exact = reachable_states(game, root, explore)
    states = tree
    if declared_states is not None:
        states = min(states, declared_states)
    if exact is not None:
        states = exact
    return Estimate(samples=samples, tree_nodes=tree, tree_by_depth=tuple(cumulative),
                    pruned_by_depth=tuple(pruned), ordered_by_depth=tuple(ordered),
                    states=states, declared_states=declared_states, exact_states=exact,
                    mean_branching=branching_sum / decisions if decisions else 0.0,
                    mean_length=moves_total / n, longest=longest, cycles=cycles)


PRUNING = ("alphabeta", "star1", "star2", "paranoid")   # alpha-beta style cut-offs
TRANSPOSITIONS = ("alphabeta",)                         # the engine's table (gdl solve's default)


def search_cost(est: Estimate, algorithm: str, depth: int | None = None,
                transpositions: bool | None = None) -> tuple[float, str]:
    """(nodes, what) an algorithm is expected to visit: the game tree within ``depth`` decision
    plies; with alpha-beta style pruning, n ** 0.75 of the n nodes at each depth (Knuth and
    Moore's random-ordering figure: b ** (3d/4) of b ** d); with the engine's table and move
    ordering, n ** 0.5 (their best case, which a search with a table and ordering approaches:
    Connect Four 5x4 solves in 286,126 nodes where the random-ordering figure says ~1e9), and
    no more than the distinct states (``transpositions``: None means the algorithm's default).
    The warning is there for hopeless searches, so it errs towards the smaller figure."""
    pruning = algorithm in PRUNING
    if transpositions is None:
        transpositions = algorithm in TRANSPOSITIONS
    nodes = est.nodes_within(depth, pruning, ordered=pruning and transpositions)
    what = "nodes (alpha-beta pruning, estimated)" if pruning else "tree nodes"
    if transpositions and est.states < nodes:
        return est.states, "distinct states (transposition table)"
    return nodes, what


SEARCH_OVERHEAD = 2.0   # a solver's own work per node, as a multiple of the rules' (measured: 1.5-3)


def measure_node_seconds(game, root, seconds: float = 0.2, steps: int = 5000, seed: int = 0) -> float:
    """What one search node costs on this game, measured: random walks from ``root`` timing the
    calls a solver makes at a node (player to move, actions or outcomes, apply, and returns at
    the end), times SEARCH_OVERHEAD. A fixed guess is off by 2-7x between games."""
    import time as _time

    from gdl.moves import choices as moves_of

    rng = random.Random(seed)
    state, done = root, 0
    started = _time.perf_counter()
    deadline = started + seconds
    try:
        while done < steps and _time.perf_counter() < deadline:
            player = game.current_player(state)
            if player == TERMINAL:
                game.returns(state)
                state = root
            else:
                options = moves_of(game, state, player)
                state = game.apply(state, options[rng.randrange(len(options))]) if options else root
            done += 1
    except Exception:   # a rule failing in play is for the search to report, not this measure
        pass
    elapsed = _time.perf_counter() - started
    return max(elapsed / max(done, 1), 1e-7) * SEARCH_OVERHEAD


def search_seconds(est: Estimate, algorithm: str, depth: int | None = None,
                   transpositions: bool | None = None, node_seconds: float = NODE_SECONDS) -> float:
    """The estimated time of a search: the estimated nodes times the cost of one."""
    return search_cost(est, algorithm, depth, transpositions)[0] * node_seconds


def budget_problem(est: Estimate, algorithm: str, *, depth: int | None = None, info=None,
                   budget: int | None = None, transpositions: bool | None = None,
                   node_seconds: float = NODE_SECONDS) -> str | None:
    """Why ``algorithm`` may not finish within ``budget`` nodes (default ``BUDGET``), with a
    suggestion (a depth limit where the game declares an evaluation, another algorithm, a smaller
    variant or a time budget); None when it should."""
    budget = BUDGET if budget is None else budget
    needed, what = search_cost(est, algorithm, depth, transpositions)
    if needed <= budget:
        return None
    hours = needed * node_seconds / 3600
    text = (f"{algorithm} would visit about {needed:.3g} {what}, over the budget of "
            f"{budget:.0e} (about {duration_text(hours * 3600)} at {node_seconds * 1e6:.2g} µs a node, "
            f"measured on this game; the estimate of the nodes may be off by 10x or more)")
    by_depth = {d: search_cost(est, algorithm, d, transpositions)[0]
                for d in range(1, len(est.tree_by_depth))}
    return text + suggestion(info, algorithm, depth, by_depth, budget,
                             lambda: search_cost(est, "alphabeta", depth)[0])


def suggestion(info, algorithm: str, depth: int | None, by_depth: dict[int, float], budget: int,
               alphabeta_nodes: Callable[[], float]) -> str:
    """What to do instead of a search over ``budget`` nodes, as a clause to append: a depth that
    fits (``by_depth``: the nodes at each depth, where the game has an evaluation), alpha-beta
    (``alphabeta_nodes()``: its nodes, for a two-player game without chance), a time budget, a
    smaller variant."""
    fits = [d for d, n in by_depth.items() if n <= budget]
    if info is not None and info.has_evaluate and fits and (depth is None or max(fits) < depth):
        d = max(fits)
        return f"; try --depth {d} (about {by_depth[d]:.3g} nodes)"
    deterministic_pair = (info is not None and info.num_players == 2 and info.is_constant_sum
                          and not info.has_chance)
    if deterministic_pair and algorithm != "alphabeta":
        other = alphabeta_nodes()
        if other <= budget:
            return f"; --algorithm alphabeta would need about {other:.3g}"
    if algorithm == "alphabeta":
        return "; give a time budget (--time SECONDS), or solve a smaller variant (--set)"
    return "; solve a smaller variant (--set)"


def duration_text(seconds: float) -> str:
    """A long time in the unit a person reads it in: ``40 s``, ``12 min``, ``3.5 h``, ``9 days``."""
    hours = seconds / 3600
    if hours < 1 / 60:
        return f"{seconds:.0f} s"
    if hours < 1:
        return f"{hours * 60:.0f} min"
    if hours < 48:
        return f"{hours:.1f} h"
    if hours < 24 * 365 * 2:
        return f"{hours / 24:.0f} days"
    return f"{hours / 24 / 365:.2g} years"

