"""A game being played: the position, its history, chance rolls, and the solver as an opponent.

Nothing here prints; ``gdl play`` (gdl.cli.play) is the only user of it that talks to a person.

- ``Session`` holds the current state and the moves that led to it, so ``undo`` is exact.
  Chance outcomes are drawn with ``random.Random(seed)`` in exact arithmetic (an integer drawn
  below the common denominator of the probabilities), so a seed reproduces every roll.
- ``Advisor`` asks a solver for the best actions at a state: the AI's move and the human's hint.
  ``time`` (alpha-beta only) and ``depth`` bound the search; a game that declares no `evaluate`
  is given a neutral one (see ``NeutralEvaluation``) so that bounded search still works.
- ``render`` draws a state as text: boards from the game's ``display`` hints, else
  ``variable = value`` lines; ``render_view`` draws what one player sees of it (its
  observation: the others' private and the hidden parts as ``?``).
- Games with simultaneous moves or hidden information (``gdl.protocol.WideGame``): the session
  plays joint moves (``play_joint``) and knows each player's information state
  (``information_state``); ``Equilibrium`` is the computer's strategy there, from one solve of
  the whole game by the solver `gdl solve` would choose, sampled at the information state the
  player is in with a seeded random generator.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import lcm
from typing import Any

from gdl.moves import MoveError, choices, find_action, normalise
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, format_value

# ---- a neutral evaluation ----------------------------------------------------------------------

class NeutralEvaluation:
    """A game seen with an evaluation that knows nothing: every non-terminal position at the
    search horizon is worth the same to everyone (0 in a zero-sum game, half the total in a
    two-player constant-sum game, the middle of the declared utility bounds otherwise).

    Depth- or time-limited search then still finds every forced result within its horizon and
    treats the rest as even. The game's own rules are untouched; only ``info.has_evaluate`` and
    ``evaluate`` change."""

    def __init__(self, game: Any):
        self._game = game
        self.info = replace(game.info, has_evaluate=True)
        for name in ("initial_state", "current_player", "legal_actions", "apply",
                     "chance_outcomes", "returns", "action_name", "is_quiet"):
            setattr(self, name, getattr(game, name))   # bound once, not looked up per call
        info = game.info
        n = info.num_players
        if info.is_constant_sum:
            total = info.utility_sum if info.utility_sum is not None else 0
            share = Fraction(total, n)
            self._value = (share.numerator if share.denominator == 1 else share,) * n
        elif info.utility_bounds is not None:
            lo, hi = info.utility_bounds
            mid = Fraction(lo + hi, 2)
            self._value = (mid.numerator if mid.denominator == 1 else mid,) * n
        else:
            self._value = (0,) * n

    def evaluate(self, state):
        return self._value

    def __getattr__(self, name: str):
        return getattr(self._game, name)


def needs_neutral_evaluation(game: Any, depth: int | None, time: float | None) -> bool:
    """True when a bounded search is asked for and the game declares no evaluation."""
    return (depth is not None or time is not None) and not game.info.has_evaluate


# ---- a search that can be stopped --------------------------------------------------------------

class SearchStopped(BaseException):
    """Raised inside a search when its time is up or it was interrupted. A BaseException, so
    that no solver's ``except Exception`` can swallow it on its way out."""


class Stoppable:
    """A game whose every protocol call first checks a deadline and a stop flag: any solver
    searching it stops within one node of either (alpha-beta's own budget is only looked at
    between positions, and the other solvers have none)."""

    def __init__(self, game: Any, deadline: float | None):
        import time as _time

        self._game, self.info, self.deadline, self.stopped = game, game.info, deadline, False
        self._clock = _time.monotonic

    def _check(self) -> None:
        if self.stopped or (self.deadline is not None and self._clock() > self.deadline):
            self.stopped = True
            raise SearchStopped

    def current_player(self, state):
        self._check()
        return self._game.current_player(state)

    def legal_actions(self, state):
        self._check()
        return self._game.legal_actions(state)

    def chance_outcomes(self, state):
        self._check()
        return self._game.chance_outcomes(state)

    def apply(self, state, action):
        self._check()
        return self._game.apply(state, action)

    def __getattr__(self, name: str):
        return getattr(self._game, name)


# ---- the solver as a player --------------------------------------------------------------------

@dataclass
class Advice:
    """What the solver says about a state."""

    result: Any                                   # gdl.solvers.SolveResult
    action_values: tuple[tuple[Any, tuple], ...]  # (action, value vector) where known, else ()
    neutral: bool = False                         # True if a neutral evaluation was used

    @property
    def best_actions(self) -> tuple:
        return self.result.best_actions


@dataclass
class Advisor:
    """Settings for asking the solver: algorithm (``auto`` picks from the game), a depth limit in
    decision plies, and a time limit in seconds (alpha-beta's ``Budget``; with a time limit the
    search deepens iteratively and answers with the deepest completed iteration)."""

    algorithm: str = "auto"
    depth: int | None = None
    time: float | None = None
    stop: Any = None      # a threading.Event that stops alpha-beta (Ctrl-C does too)
    # Seconds a move may take when neither ``depth`` nor ``time`` is given: an exact search is
    # tried first, then depth 1, 2, ... with the deepest finished one answering. None: no limit.
    default_time: float | None = 10.0
    interrupted: bool = False   # the last search was cut short by Ctrl-C
    # A context manager factory ``watch(game) -> game to search`` around every search, e.g.
    # gdl.tools.progress.watch for a status line; None: search the game as it is.
    watch: Any = None

    def resolved(self, game: Any) -> str:
        from gdl.solvers import choose

        return choose(game.info) if self.algorithm == "auto" else self.algorithm

    def check(self, game: Any) -> None:
        """Refuse settings the chosen solver cannot honour (SolverError)."""
        from gdl.solvers import ALGORITHMS, SolverError

        name = self.resolved(game)
        if name not in ALGORITHMS:
            raise SolverError(f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)}")
        if self.time is not None and name != "alphabeta":
            raise SolverError(f"a time limit needs alphabeta, and this game uses {name}; "
                              "give --depth instead")
        if self.time is not None and not (math.isfinite(self.time) and self.time > 0):
            raise SolverError("the time limit must be positive")
        if self.depth is not None and self.depth < 1:
            raise SolverError("the depth limit must be at least 1")

    def advise(self, game: Any, state: Any, *, values_per_action: bool = False) -> Advice:
        """The solver's best actions at ``state`` (a decision state), with its result; with
        ``values_per_action`` also every legal action's value where the solver can tell."""
        self.check(game)
        self.interrupted = False
        if self.depth is None and self.time is None and self.default_time is not None:
            return self._advise_in_time(game, state, values_per_action, self.default_time)
        return self._advise(game, state, values_per_action=values_per_action)

    def _advise_in_time(self, game: Any, state: Any, values_per_action: bool,
                        seconds: float) -> Advice:
        """Exact if that finishes within ``seconds``, else the deepest depth-limited
        search that does; Ctrl-C stops the search (not the game) the same way."""
        import time as _time

        from gdl.solvers.repetition import RepetitionError

        started = _time.monotonic()
        best: Advice | None = None
        for depth in (None, *range(1, 1000)):
            # the exact search may take half the time; the depth-limited ones share the rest
            share = 0.5 if depth is None else 1.0
            watched = Stoppable(game, started + share * seconds)
            try:
                advice = replace(self, depth=depth)._advise(watched, state,
                                                           values_per_action=values_per_action,
                                                           original=game)
            except SearchStopped:
                if depth is None:
                    continue
                break
            except RepetitionError:
                # The game can repeat a position: no exact tree search; depth-limited ones work
                # (the commands answer exactly from a strong solve where they can, up front).
                if depth is None:
                    continue
                raise
            except KeyboardInterrupt:
                watched.stopped = True          # the search thread stops at its next call
                self.interrupted = True
                break
            if depth is None:
                return advice
            best = advice
            if advice.result.proven or depth >= (game.info.max_length or 10 ** 9):
                break
        if best is None:   # not even one ply in time: one ply without a clock
            best = replace(self, depth=1)._advise(game, state, values_per_action=values_per_action)
        return best

    def _advise(self, game: Any, state: Any, *, values_per_action: bool = False,
                original: Any = None) -> Advice:
        from gdl.solvers import solve

        original = game if original is None else original
        neutral = needs_neutral_evaluation(original, self.depth, self.time)
        searched = NeutralEvaluation(game) if neutral else game
        name = self.resolved(game)
        budget = None
        if name == "alphabeta" and (self.time is not None or self.stop is not None):
            from gdl.solvers.alphabeta import Budget

            budget = Budget(time=self.time)
            if self.stop is not None:
                budget.stop = self.stop
        if self.watch is not None:
            with self.watch(searched) as watched:
                result = solve(watched, name, depth=self.depth, budget=budget, root_state=state)
        else:
            result = solve(searched, name, depth=self.depth, budget=budget, root_state=state)
        action_values: tuple = tuple(result.extra.get("action_values", ()))
        if values_per_action and not action_values and name == "alphabeta" and self.time is None:
            from gdl.solvers.alphabeta import SearchOptions, analyze

            options = SearchOptions(tt=True, ordering=True, killers=True, history=True)
            action_values = tuple(analyze(searched, state, depth=self.depth, options=options))
        return Advice(result, action_values, neutral)


def pick(game: Any, state: Any, advice: Any) -> Any:
    """The action the AI plays on ``advice``: the first of a ranked list (advice from every
    position's value, gdl.tools.database_advice: fastest win, slowest loss), else ``choose``."""
    if getattr(advice, "ranked", False):
        return advice.best_actions[0]
    return choose(game, state, advice.best_actions)


def choose(game: Any, state: Any, best_actions: Sequence) -> Any:
    """The action the AI plays among equally good ones: the first (declaration order) that ends
    the game at once, else the first. Every optimal action keeps the same value, so this only
    spares a person the sight of a won game dragged out when the win is on the board."""
    for action in best_actions:
        if game.current_player(game.apply(state, action)) == TERMINAL:
            return action
    return best_actions[0]


# ---- the computer's equilibrium strategy (simultaneous moves, hidden information) ----------------

@dataclass
class Equilibrium:
    """The computer's strategy in a game with simultaneous moves or hidden information.

    Such a game has no best move to look up position by position: a player chooses knowing only
    its information state, and a good player mixes (in Kuhn's poker the first player bets a Jack
    now and then; in rock-paper-scissors anything predictable loses). So the whole game is
    solved once (``solve``: the solver `gdl solve` chooses for it, or the one asked for), and at
    each decision the player's mix at its information state (the solver's strategy table,
    ``SolveResult.extra["strategies"]``) is sampled with a seeded random generator. The
    simultaneous solver keys its strategies by position (nothing is hidden there, so a position
    is all a player needs to know); the others by information state. An information state the
    table lacks (a sampling solver that never met it) is played uniformly, as
    ``gdl.solvers.exploitability`` counts it."""

    game: Any
    result: Any                      # the SolveResult
    by_position: bool = False

    @classmethod
    def solve(cls, game: Any, algorithm: str = "auto", *, iterations: int | None = None,
              seed: int = 0) -> Equilibrium:
        """Solve ``game`` (SolverError when the solver refuses it, saying why)."""
        from gdl.solvers import choose, solve
        from gdl.solvers.wide import SIMULTANEOUS_SOLVER

        name = choose(game.info) if algorithm == "auto" else algorithm
        result = solve(game, name, iterations=iterations, seed=seed)
        return cls(game, result, by_position=name == SIMULTANEOUS_SOLVER)

    @property
    def algorithm(self) -> str:
        return self.result.algorithm

    @property
    def exact(self) -> bool:
        return bool(self.result.extra.get("exact"))

    def key(self, session: Session, player: int) -> Any:
        """Where ``player``'s strategy is looked up: its information state, or the position."""
        return session.state if self.by_position else session.information_state(player)

    def known(self, session: Session, player: int) -> bool:
        """Whether the solver's table has a strategy for ``player`` where it is now."""
        table = self.result.extra.get("strategies", {}).get(self.game.info.players[player], {})
        return self.key(session, player) in table

    def mix(self, session: Session, player: int) -> list[tuple[Any, Fraction]]:
        """``player``'s strategy where it is now: each of its legal actions with its exact
        probability (floats from an iterative solver taken as the binary fractions they are and
        renormalised), in declaration order."""
        actions = session.legal_of(player)
        table = self.result.extra.get("strategies", {}).get(self.game.info.players[player], {})
        found = table.get(self.key(session, player)) or {}
        weights = [Fraction(found.get(self.game.action_name(a), 0)) for a in actions]
        total = sum(weights, Fraction(0))
        if not found or total <= 0:
            return [(a, Fraction(1, len(actions))) for a in actions]
        return [(a, w / total) for a, w in zip(actions, weights)]

    def sample(self, rng: random.Random, session: Session, player: int) -> Any:
        """One action of ``player``, drawn from its mix with exact probabilities."""
        return draw(rng, [(a, p) for a, p in self.mix(session, player) if p > 0])

    def position_value(self, state: Any) -> tuple | None:
        """The value of a position, where the solver gives one (the simultaneous solver, exact,
        with nothing hidden: every position starts a subgame); None elsewhere."""
        solution = self.result.extra.get("solution")
        values = getattr(solution, "values", None) if self.by_position else None
        if not values or state not in values:
            return None
        first = values[state]
        total = Fraction(getattr(solution, "total", 0))
        return tuple(v.numerator if v.denominator == 1 else v
                     for v in (Fraction(first), total - Fraction(first)))


def strategy_seed(seed: int | None) -> random.Random:
    """The random generator the computer's mixed choices are drawn from: its own stream, so
    that a seed gives the same deals (``Session.rng``) whatever the computer chooses, and the
    same choices whatever the deals."""
    return random.Random(None if seed is None else f"gdl strategy {seed}")


# ---- the session -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Move:
    """One step of the game: who moved (a player index, CHANCE, or SIMULTANEOUS for a joint
    move, whose ``action`` is one action per acting player, ``players``, in their order), the
    action, its name, and for chance outcomes their probability."""

    player: int
    action: Any
    name: str
    probability: Fraction | None = None
    players: tuple[int, ...] = ()

    def made_by(self, seats: Sequence[int]) -> bool:
        """Whether a player in ``seats`` chose this move (alone or with others)."""
        return self.player in seats or any(p in seats for p in self.players)


@dataclass
class Session:
    game: Any
    seed: int | None = None
    state: Any = None
    moves: list[Move] = field(default_factory=list)
    _states: list = field(default_factory=list)   # the state before each move

    def __post_init__(self):
        if self.state is None:
            self.state = self.game.initial_state()
        self.root = self.state      # where the play began: information states count from here
        self.rng = random.Random(self.seed)

    # -- the position
    @property
    def to_move(self) -> int:
        """A player index, or CHANCE, or TERMINAL."""
        return self.game.current_player(self.state)

    @property
    def over(self) -> bool:
        return self.to_move == TERMINAL

    def legal(self) -> list:
        return choices(self.game, self.state)

    @property
    def acting(self) -> tuple[int, ...]:
        """The players who choose here: one at a decision, several where they choose at once,
        none at chance and at the end."""
        from gdl.solvers import information

        return information.acting(self.game, self.state)

    def legal_of(self, player: int) -> list:
        """The actions of ``player``, one of the players who choose here."""
        from gdl.solvers import information

        return list(information.actions_of(self.game, self.state, player))

    def names(self) -> list[str]:
        return [self.game.action_name(a) for a in self.legal()]

    def returns(self) -> tuple:
        return tuple(self.game.returns(self.state))

    # -- moving
    def find(self, text: str):
        """The legal action a person means by ``text``: its name, a unique prefix of it, its
        number in the list of legal actions (from 1), or ``name a b`` for ``name(a,b)``.
        Raises MoveError with a readable message otherwise."""
        if not self.legal():
            raise MoveError("the game is over")
        return find_action(self.game, self.state, text)   # (the same syntax as --moves)

    def find_for(self, player: int, text: str):
        """``find`` among the actions of ``player``, one of the players who choose here (where
        several choose at once, each has its own)."""
        if not self.legal_of(player):
            raise MoveError("the game is over" if self.over else
                            f"{self.game.info.players[player]} has no choice here")
        return find_action(_OneSeat(self.game, player), self.state, text)

    def play(self, action) -> Move:
        """Apply a legal action (or a chance outcome) and remember it."""
        player = self.to_move
        probability = None
        if player == CHANCE:
            probability = dict(self.game.chance_outcomes(self.state))[action]
        move = Move(player, action, self.game.action_name(action), probability)
        self._states.append(self.state)
        self.state = self.game.apply(self.state, action)
        self.moves.append(move)
        return move

    def play_joint(self, joint: Sequence) -> Move:
        """Where several players choose at once: apply one action per acting player (in the
        order of ``acting``) together, and remember it as one move."""
        acting = self.acting
        if self.to_move != SIMULTANEOUS or len(joint) != len(acting):
            raise MoveError(f"{len(joint)} action(s) for the {len(acting)} player(s) who choose "
                            "here")
        joint = tuple(joint)
        name = " ".join(self.game.action_name(a) for a in joint)
        move = Move(SIMULTANEOUS, joint, name, None, acting)
        self._states.append(self.state)
        self.state = self.game.apply_joint(self.state, joint)
        self.moves.append(move)
        return move

    def information_state(self, player: int) -> tuple:
        """What ``player`` has seen since the start of the play (``gdl.solvers.information``):
        the key the solvers of hidden information give its strategy under."""
        from gdl.solvers import information

        game = self.game
        keys = information.start(game, self.root)
        after = self._states[1:] + [self.state]
        for before, move, child in zip(self._states, self.moves, after):
            keys = information.step(game, keys, before, move.action, child)
        return keys[player]

    def seen(self, move: Move, before: Any, viewer: int | None) -> list[str] | None:
        """``move`` (made at ``before``) as ``viewer`` saw it: the name of each action in it
        (one, or one per acting player of a joint move), ``?`` for one hidden from the viewer;
        None for a chance outcome the viewer sees only through the state. Everything, for a
        game without hidden information or no viewer."""
        game = self.game
        actions = list(move.action) if move.player == SIMULTANEOUS else [move.action]
        if viewer is None or not game.info.hidden:
            return [game.action_name(a) for a in actions]
        observed = game.move_observation(before, viewer, move.action)
        if move.player == CHANCE:
            return [move.name] if observed == move.action else None
        if move.player == SIMULTANEOUS:
            parts = observed if isinstance(observed, tuple) else ()
            return [game.action_name(a) if i < len(parts) and parts[i] == a else UNSEEN
                    for i, a in enumerate(actions)]
        return [move.name] if observed == move.action else [UNSEEN]

    def seen_history(self, viewer: int | None) -> list[tuple[Move, list[str] | None]]:
        """Every move with what ``viewer`` saw of it (``seen``)."""
        return [(move, self.seen(move, before, viewer))
                for move, before in zip(self.moves, self._states)]

    def roll(self) -> Move:
        """At a chance state, draw an outcome with its exact probability and play it."""
        outcomes = list(self.game.chance_outcomes(self.state))
        return self.play(draw(self.rng, outcomes))

    def undo(self) -> Move | None:
        """Take back the last move; None when there is none."""
        if not self.moves:
            return None
        self.state = self._states.pop()
        return self.moves.pop()

    def undo_turn(self, seats: Sequence[int]) -> list[Move]:
        """Take back moves up to and including the last one made by a player in ``seats`` (so a
        person gets back to their previous decision). Nothing is undone if no such move exists."""
        if not any(m.made_by(seats) for m in self.moves):
            return []
        undone: list[Move] = []
        while (move := self.undo()) is not None:
            undone.append(move)
            if move.made_by(seats):
                break
        return undone


class _OneSeat:
    """A game seen by one of the players who choose at a state: its actions are the legal
    ones (for ``find_action``, which reads them through the protocol)."""

    def __init__(self, game: Any, player: int):
        self._game, self._player = game, player

    def current_player(self, state) -> int:
        return self._player

    def legal_actions(self, state):
        from gdl.solvers import information

        return information.actions_of(self._game, state, self._player)

    def action_name(self, action) -> str:
        return self._game.action_name(action)


def draw(rng: random.Random, outcomes: Sequence[tuple[Any, Fraction]]):
    """One outcome with its exact probability: an integer below the common denominator, walked
    along the cumulative numerators (no floating point, so a seed gives the same roll anywhere)."""
    fractions = [Fraction(p) for _, p in outcomes]
    denominator = lcm(*(f.denominator for f in fractions))
    ticket = rng.randrange(denominator)
    for (outcome, _), f in zip(outcomes, fractions):
        share = f.numerator * (denominator // f.denominator)
        if ticket < share:
            return outcome
        ticket -= share
    raise ValueError("chance outcomes do not sum to 1")


# ---- drawing a state ---------------------------------------------------------------------------

UNSEEN = "?"     # a cell of the state the player does not see


def render(game: Any, state: Any) -> str:
    """A state as text. Variables with ``display`` hints are drawn as boards (a 2-D array as a
    grid, first index down, second across, both numbered; a 1-D array as one numbered row; a
    single value as ``name: glyph``); when the game gives no hints every variable is listed as
    ``name = value``. Games without variables (explicit trees) give the empty string."""
    read = getattr(game, "variables", None)
    if read is None:
        return ""
    return render_values(game, read(state))


def render_view(game: Any, player: int, observation: Any) -> str:
    """What ``player`` sees, drawn as ``render`` draws a state, from its observation
    (``gdl.solvers.information.observation``) and nothing else: the cells it does not see (the
    others' entries of a `private` variable, a `hidden` one) are ``?``."""
    values = seen_variables(game, player, observation)
    return "" if values is None else render_values(game, values)


def seen_variables(game: Any, player: int, observation: Any) -> dict | None:
    """Every variable as ``player`` sees it, from its observation, keyed and shaped as
    ``game.variables`` gives a state's (symbols by name, arrays as nested lists), with ``?``
    for each cell it does not see. None for a game without variables. In a game that hides
    nothing the observation is the state itself."""
    if not game.info.hidden:
        read = getattr(game, "variables", None)
        return None if read is None else read(observation)
    rules = getattr(game, "ir", None)
    if rules is None or rules.tree is not None:
        return None
    from gdl.backends.interpret import visible_cells
    from gdl.lang import ir

    cells: list = [UNSEEN] * len(rules.initial)
    for index, value in zip(visible_cells(rules)[player], observation):
        cells[index] = value
    values: dict = {}
    for var in rules.variables:
        part = cells[var.slot:var.slot + var.size]
        if var.type == ir.SYM:
            part = [c if c is UNSEEN else rules.symbols[c] for c in part]
        for extent in reversed(var.shape[1:]):
            part = [part[i:i + extent] for i in range(0, len(part), extent)]
        values[var.name] = part if var.shape else part[0]
    return values


def render_values(game: Any, values: dict) -> str:
    """Variables' values (as ``seen_variables`` gives them) drawn as ``render`` says."""
    hints = getattr(game, "display", None) or {}
    if not hints:
        return "\n".join(f"{name} = {_plain(value)}" for name, value in values.items())
    rules = getattr(game, "ir", None)
    boards = getattr(rules, "boards", None) or {}
    blocks = []
    for name, glyphs in hints.items():
        if name in values:
            blocks.append(_board(name, values[name], glyphs, boards.get(name)))
    return "\n\n".join(blocks)


def _plain(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _glyph(value, glyphs: dict) -> str:
    glyph = glyphs.get(value)
    return glyph if glyph is not None else _plain(value)


def _board(name: str, value, glyphs: dict, board: Any = None) -> str:
    """A scalar as ``name: glyph``; a 1-D array as one numbered row; a 2-D array as a grid with
    the first index down and the second across; more dimensions as one grid per first index.
    The display's layout words (``board``, a gdl.lang.ir.Board) turn it as the web page does:
    `transpose` puts the first index across, `flip` row 0 at the bottom, `mirror` the last
    column on the left, `hex` shifts each row half a cell right of the one above, and
    `mancala` draws a 2n + 2 array as two rows of houses between the stores."""
    if not isinstance(value, list):
        return f"{name}: {_glyph(value, glyphs)}"
    if isinstance(value[0], list) and isinstance(value[0][0], list):
        return "\n\n".join(_board(f"{name}[{i}]", layer, glyphs, board)
                            for i, layer in enumerate(value))
    if board is not None and board.layout == "mancala" and not isinstance(value[0], list):
        return _mancala(name, [_glyph(v, glyphs) for v in value])
    grid = isinstance(value[0], list)
    rows = value if grid else [value]
    cells = [[_glyph(v, glyphs) for v in row] for row in rows]
    down: list[int | None] = list(range(len(cells))) if grid else [None]
    across: list[int | None] = list(range(len(cells[0])))
    if board is not None and grid and board.transpose:
        cells = [list(column) for column in zip(*cells)]
        down, across = across, down
    if board is not None and board.flip:
        cells, down = cells[::-1], down[::-1]
    if board is not None and board.mirror:
        cells, across = [row[::-1] for row in cells], across[::-1]
    shifted = board is not None and board.layout == "hex"
    width = max(max(len(c) for row in cells for c in row), max(len(str(j)) for j in across))
    margin = max(len(str(i)) for i in down) + 1 if grid else 0
    lines = [name, " " * margin + " ".join(f"{j:>{width}}" for j in across)]
    for number, (i, row) in enumerate(zip(down, cells)):
        prefix = f"{i:<{margin}}" if grid else ""
        indent = " " * (number * (width + 1) // 2) if shifted else ""
        lines.append(prefix + indent + " ".join(f"{c:>{width}}" for c in row))
    return "\n".join(lines)


def _mancala(name: str, cells: list[str]) -> str:
    """Kalah's board in text: the second player's houses right to left along the top, the first
    player's left to right along the bottom, its store on the right and the other on the left
    (sowing in index order goes round anticlockwise), each pit under its number."""
    houses = (len(cells) - 2) // 2
    width = max(max(len(c) for c in cells), len(str(len(cells) - 1)))

    def row(pits: list[int], show) -> str:
        return " ".join(f"{show(p):>{width}}" for p in pits)

    top = list(range(2 * houses, houses, -1))
    bottom = list(range(houses))
    left, right = 2 * houses + 1, houses
    pad = " " * (width + 2)
    middle = " " * (houses * (width + 1) - 1)
    return "\n".join([
        name,
        pad + row(top, str),
        pad + row(top, lambda p: cells[p]),
        f"{left:>{width}}  {middle}  {right:>{width}}",
        f"{cells[left]:>{width}}  {middle}  {cells[right]:>{width}}",
        pad + row(bottom, lambda p: cells[p]),
        pad + row(bottom, str),
    ])


def describe_values(players: Sequence[str], values: Sequence) -> str:
    """``X 1, O -1``."""
    return ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, values))


def outcome_sentence(players: Sequence[str], values: Sequence) -> str:
    """Who won, in words: the players with the highest value (or a draw when all are equal)."""
    best = max(values)
    if all(v == best for v in values):
        return "a draw" if len(values) > 1 else f"{players[0]} scores {format_value(best)}"
    winners = [p for p, v in zip(players, values) if v == best]
    if len(winners) == 1:
        return f"{winners[0]} wins"
    return " and ".join(winners) + " share the best result"


__all__ = [
    "Advice",
    "Advisor",
    "Equilibrium",
    "Move",
    "MoveError",
    "NeutralEvaluation",
    "Session",
    "choose",
    "describe_values",
    "draw",
    "needs_neutral_evaluation",
    "normalise",
    "outcome_sentence",
    "pick",
    "render",
    "render_values",
    "render_view",
    "seen_variables",
    "strategy_seed",
]
