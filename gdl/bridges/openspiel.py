"""gdl games as OpenSpiel games (``pip install 'gdl[openspiel]'``).

    import pyspiel
    from gdl.bridges import openspiel
    name = openspiel.register("games/tictactoe.game")      # "gdl_tictactoe"
    game = pyspiel.load_game(name)                          # or openspiel.load_game(path, params)

A rule file becomes a registered Python game: sequential, perfect information, explicit chance
(exact probabilities handed over as floats), n players, zero-sum / constant-sum / general-sum as
the rules declare, terminal rewards, string and tensor observations. The game's ``param``
declarations are OpenSpiel game parameters (``gdl_connect4(columns=5)``). Action and outcome
numbers, length and utility bounds come from gdl.bridges.encoding.

A game with hidden information or simultaneous moves (``info.hidden``, ``info.simultaneous``) is
an OpenSpiel game of imperfect information, and with simultaneous moves a simultaneous game
(``WideState``): where several players choose at once ``current_player()`` is
``PlayerId.SIMULTANEOUS``, each player's ``legal_actions(p)`` are its own and
``apply_actions`` takes one per player. A player's information-state string and vector are gdl's
information state (gdl.solvers.information: what it has seen, perfect recall), its observation
string and vector gdl's observation of the current state; both tell apart exactly what gdl's do
(gdl.bridges.encoding). Information-state vectors need a bound on a play's length, so a game that
can repeat a position has strings only.

Plays without a bound (a game that can repeat a position: Pig, Piglet, games/cyclic/):
OpenSpiel's ``max_game_length()`` is a number that no play may exceed, and its own such games
(``pig``'s ``horizon``) end every play there. So does this bridge: a play still going after
``max_game_length()`` decisions ends, worth what ``encoding.truncated_returns`` says (the rules'
``when endless`` value, else a draw). The bridge parameter ``max_moves`` (every registered game
has it; 0, the default, sets none) chooses that length; without it a game with no known bound
gets ``UNBOUNDED``, so many moves that no play reaches it in practice, and the game is the rules'
own. ``str(state)`` is the position, plus the moves made where ``max_moves`` cuts plays short
(they are then part of what a position is worth), so value iteration keyed by ``str`` solves the
rules' game without ``max_moves`` and the truncated game with it.

An OpenSpiel state holds the gdl state (``_state``, a tuple) and the number of decisions made
(``_moves``), so cloning is cheap and serialisation works; everything else is reached through
``get_game()``. A state of a game with hidden information or simultaneous moves keeps those, the
players' information states and the moves made in one immutable record (``_Play``), which a
clone shares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from gdl.backends.load import loads
from gdl.bridges.encoding import GameEncoding, move_limit, truncated_returns
from gdl.protocol import CHANCE, CONSTANT_SUM, SIMULTANEOUS, TERMINAL, ZERO_SUM
from gdl.solvers import information
from gdl.tools.session import describe_values

PREFIX = "gdl_"

# The game parameter every registered game takes: end plays after this many decisions (0: no
# limit but the game's own).
MAX_MOVES = "max_moves"

# max_game_length() of a game whose plays have no bound we know. OpenSpiel keeps it in a C++ int
# and adds the chance nodes to it (as many again) for the longest history, so this is the largest
# value that sum cannot overflow; plays are cut short there, so it is a true bound, but a play
# would need about a billion decisions to meet it.
UNBOUNDED = 2**30 - 1

# short name -> (rule text, file name): one registration per name for the life of the process,
# since OpenSpiel cannot forget a game type.
_registered: dict[str, tuple[str, str]] = {}

_UTILITY = {ZERO_SUM: pyspiel.GameType.Utility.ZERO_SUM,
            CONSTANT_SUM: pyspiel.GameType.Utility.CONSTANT_SUM}


def short_name(path: str | Path) -> str:
    """OpenSpiel's name for a rule file: ``games/aima-fig5-2.game`` -> ``gdl_aima_fig5_2``."""
    return PREFIX + re.sub(r"\W", "_", Path(path).stem).lower()


def register(path: str | Path, name: str | None = None) -> str:
    """Register the rule file at ``path`` with OpenSpiel and return its short name. The rules are
    read now; registering the same name again with the same rules does nothing, with other rules
    it is an error (OpenSpiel keeps one game per name)."""
    path = Path(path)
    return register_text(path.read_text(encoding="utf-8"), str(path), name or short_name(path))


def register_text(text: str, filename: str, name: str) -> str:
    """Register rule text under ``name`` (see ``register``)."""
    if name in _registered:
        if _registered[name][0] != text:
            raise ValueError(f"an OpenSpiel game called {name!r} is registered already, with other rules")
        return name
    gdl_game = loads(text, filename)
    rules = getattr(gdl_game, "ir", None)
    parameters = dict(rules.params) if rules is not None and rules.tree is None else {}
    if MAX_MOVES in parameters:
        raise ValueError(f"{filename}: the rules declare `param {MAX_MOVES}`, the name of the "
                         "OpenSpiel bridge's own parameter (end plays after that many moves); "
                         "rename the rules' parameter")
    game_type = _game_type(name, gdl_game, {**parameters, MAX_MOVES: 0})
    # OpenSpiel keeps the creator until the process ends, after Python has shut down. A class
    # (always in a reference cycle with its own __mro__) is never freed then; a closure would be,
    # without the interpreter, and the process would abort on exit.
    creator = type(f"GdlGame_{name}", (_RegisteredGame,),
                   {"_text": text, "_filename": filename, "_parameters": parameters,
                    "_game_type": game_type})
    pyspiel.register_game(game_type, creator)
    _registered[name] = (text, filename)
    return name


def load_game(path: str | Path, params: dict | None = None, name: str | None = None):
    """The rule file at ``path`` as a ``pyspiel.Game`` (registered first if need be); ``params``
    sets the rules' ``param`` values, as ``--set`` does on the command line, and ``max_moves``
    (``{"max_moves": 200}``) ends every play after that many decisions."""
    return pyspiel.load_game(register(path, name), dict(params or {}))


def from_game(gdl_game, name: str = "gdl_game", max_moves: int | None = None):
    """Any gdl game object (rules already built, or an explicit tree, or a game written in
    Python against gdl.protocol) as an OpenSpiel game, without registering it; ``max_moves`` as
    in ``load_game``. OpenSpiel's algorithms work on it; what needs a registered name
    (``pyspiel.load_game``, serialisation, pickling) does not."""
    return GdlGame(gdl_game, _game_type(name, gdl_game, {}), {}, max_moves)


def is_wide(info) -> bool:
    """Does the game have simultaneous moves or hidden information (an OpenSpiel game of
    imperfect information)?"""
    return info.simultaneous or info.hidden


def _game_type(name: str, gdl_game, parameters: dict):
    info = gdl_game.info
    wide = is_wide(info)
    # Information-state vectors need a bound on a play's length (rule games only); games of
    # perfect information have none (their information state is the history).
    information_tensor = wide and GameEncoding(gdl_game).information_size is not None
    Type = pyspiel.GameType
    return Type(
        short_name=name,
        long_name=f"{info.name} (gdl)",
        dynamics=Type.Dynamics.SIMULTANEOUS if info.simultaneous else Type.Dynamics.SEQUENTIAL,
        chance_mode=(Type.ChanceMode.EXPLICIT_STOCHASTIC if info.has_chance
                     else Type.ChanceMode.DETERMINISTIC),
        information=(Type.Information.IMPERFECT_INFORMATION if wide
                     else Type.Information.PERFECT_INFORMATION),
        utility=_UTILITY.get(info.sum_kind, Type.Utility.GENERAL_SUM),
        reward_model=Type.RewardModel.TERMINAL,
        max_num_players=info.num_players,
        min_num_players=info.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=information_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters)



_OPENSPIEL_IDS = {CHANCE: pyspiel.PlayerId.CHANCE, TERMINAL: pyspiel.PlayerId.TERMINAL,
                  SIMULTANEOUS: pyspiel.PlayerId.SIMULTANEOUS}


def _openspiel_player(player: int):
    """gdl's player to move (a player, or CHANCE, TERMINAL, SIMULTANEOUS) as OpenSpiel's id."""
    return _OPENSPIEL_IDS.get(player, player)


class GdlGame(pyspiel.Game):
    """An OpenSpiel game over a gdl game. ``encoding`` numbers its actions and states;
    ``gdl_game`` is the game itself, for exact answers. A play still going after ``horizon``
    decisions ends there, worth ``cut_short_returns`` (see the module docstring)."""

    def __init__(self, gdl_game, game_type, params: dict, max_moves: int | None = None):
        self.gdl_game = gdl_game
        self.encoding = encoding = GameEncoding(gdl_game)
        max_moves = move_limit(max_moves)
        bound = encoding.max_decisions
        limits = [n for n in (bound, max_moves) if n is not None]
        self.horizon = min(limits) if limits else UNBOUNDED
        # Does the horizon end plays the rules have not ended? Never at a bound the rules keep.
        # Rules that break the max-length they declare (gdl check --deep: E408) have their plays
        # cut short there all the same, but their bounds are not widened for it.
        self.cuts_short = bound is None or self.horizon < bound
        # The moves made are part of a position's worth only where the user's max_moves cuts
        # plays short; UNBOUNDED is out of reach of any walk value iteration can make.
        self.shows_moves = self.cuts_short and max_moves is not None
        self.cut_short_returns = truncated_returns(gdl_game.info)
        self.wide = is_wide(gdl_game.info)
        if game_type.provides_information_state_tensor and encoding.information_size is None:
            raise ValueError(f"{gdl_game.info.name}: with these parameters no bound on the length "
                             "of a play is known, and the registered game promises information-"
                             "state vectors, which need one; declare `max-length` in the rules")
        lo, hi = encoding.utility_range
        if self.cuts_short:
            lo, hi = min(lo, *self.cut_short_returns), max(hi, *self.cut_short_returns)
        total = encoding.utility_sum
        info = pyspiel.GameInfo(
            # OpenSpiel and PettingZoo want at least one action, even in a game of chance alone.
            num_distinct_actions=max(1, encoding.num_actions),
            max_chance_outcomes=encoding.num_chance_outcomes,
            num_players=gdl_game.info.num_players,
            min_utility=float(lo), max_utility=float(hi),
            utility_sum=None if total is None else float(total),
            max_game_length=max(1, self.horizon))
        super().__init__(game_type, info, params)

    def new_initial_state(self, state=None):
        return WideState(self) if self.wide else GdlState(self)

    def state_at(self, gdl_state):
        """An OpenSpiel state standing at ``gdl_state`` (its OpenSpiel history is empty: only
        algorithms that look forward from a state, as the searches do, should be given it; in
        a game with hidden information, the players' information states start there)."""
        if self.wide:
            state = WideState(self)
            state._start_at(gdl_state)
            return state
        state = GdlState(self)
        state._state = gdl_state
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if self.wide:
            return _wide_observer(self, iig_obs_type, params)
        # Perfect information: the state itself is every player's observation. A perfect-recall
        # information state is the history, which OpenSpiel's public-information observer gives.
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return StateObserver(self.encoding, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class _RegisteredGame(GdlGame):
    """A game registered from rule text; ``register`` makes one subclass per rule file."""

    _text: str
    _filename: str
    _parameters: dict
    _game_type: object

    def __init__(self, params=None):
        params = dict(params or {})
        overrides = {key: value for key, value in params.items() if key in self._parameters}
        max_moves = params.get(MAX_MOVES, 0)
        if isinstance(max_moves, int) and max_moves < 0:
            raise ValueError(f"{MAX_MOVES} must be a positive number of moves, or 0 for no limit; "
                             f"got {max_moves}")
        super().__init__(loads(self._text, self._filename, overrides or None), self._game_type,
                         params, max_moves or None)

    def __reduce__(self):
        # The class is made at registration, so pickle cannot find it by name; the rule text
        # travels instead, and unpickling registers it again (in another process too).
        return _unpickle_game, (self.get_type().short_name, self._text, self._filename,
                                dict(self.get_parameters()))


def _unpickle_game(name: str, text: str, filename: str, params: dict):
    return pyspiel.load_game(register_text(text, filename, name), params)


class GdlState(pyspiel.State):
    """An OpenSpiel state: the gdl state, the decisions made so far, and OpenSpiel's history of
    action numbers."""

    def __init__(self, game: GdlGame):
        super().__init__(game)
        self._state = game.gdl_game.initial_state()
        self._moves = 0

    @property
    def gdl_state(self):
        """The gdl state (for gdl's own solvers, and exact values)."""
        return self._state

    def _player(self) -> int:
        """The gdl player to move (or CHANCE, TERMINAL); TERMINAL where the horizon ends a play
        at a decision (chance still resolves after the last decision allowed)."""
        game = self.get_game()
        player = game.gdl_game.current_player(self._state)
        if player >= 0 and self._moves >= game.horizon:
            return TERMINAL
        return player

    def is_cut_short(self) -> bool:
        """True where the horizon ended this play, not the rules."""
        return self._player() == TERMINAL and \
            self.get_game().gdl_game.current_player(self._state) != TERMINAL

    def current_player(self):
        return _openspiel_player(self._player())

    def _legal_actions(self, player):
        # OpenSpiel asks only where current_player() is a player: never at a play cut short
        return self.get_game().encoding.legal_ids(self._state)

    def chance_outcomes(self):
        return [(number, float(p)) for number, p in self.get_game().encoding.chance_ids(self._state)]

    def _apply_action(self, action):
        game = self.get_game()
        gdl_game, encoding = game.gdl_game, game.encoding
        if gdl_game.current_player(self._state) == CHANCE:
            chosen = encoding.chance_outcome(self._state, action)
        else:
            chosen = encoding.action(action)
            self._moves += 1
        self._state = gdl_game.apply(self._state, chosen)

    def _action_to_string(self, player, action):
        return self.get_game().encoding.id_name(self._state, player, action)

    def is_terminal(self):
        return self._player() == TERMINAL

    def returns(self):
        game = self.get_game()
        gdl_game = game.gdl_game
        if gdl_game.current_player(self._state) == TERMINAL:
            return [float(v) for v in gdl_game.returns(self._state)]
        if self._player() == TERMINAL:
            return [float(v) for v in game.cut_short_returns]
        return [0.0] * gdl_game.info.num_players

    def __str__(self):
        game = self.get_game()
        text = game.encoding.text(self._state)
        if self.is_cut_short():
            head = (f"play cut short after {self._moves} moves: "
                    + describe_values(game.gdl_game.info.players, game.cut_short_returns))
            text = head + "\n" + text.partition("\n")[2]
        if game.shows_moves:
            text += f"\nmoves made: {self._moves} of {game.horizon}"
        return text


@dataclass(frozen=True)
class _Play:
    """Where a play of a wide game stands, immutable: OpenSpiel clones a Python state by deep-
    copying its attributes, and a WideState keeps all of its own in one of these, which a clone
    shares. ``kind`` is the gdl player of ``state`` (a player, CHANCE, SIMULTANEOUS, TERMINAL);
    ``keys`` are the players' information states (gdl.solvers.information), ``path`` the moves
    made (the gdl state each was made at, and the move)."""

    state: Any
    kind: int
    moves: int
    keys: tuple
    path: tuple

    def __deepcopy__(self, memo):
        return self


def _start(gdl_game, gdl_state) -> _Play:
    """A play of ``gdl_game`` starting at ``gdl_state``."""
    return _Play(gdl_state, gdl_game.current_player(gdl_state), 0,
                 information.start(gdl_game, gdl_state), ())


def _read_only(name: str) -> None:
    # GdlState's methods that set these are all overridden by WideState's: a move there replaces
    # the whole record, so that a clone (which shares it) keeps its own
    raise AttributeError(f"a WideState moves by replacing its play record (_play), never {name} "
                         "alone")


class WideState(GdlState):
    """A state of a game with simultaneous moves or hidden information. Where several players
    choose at once, ``current_player()`` is ``PlayerId.SIMULTANEOUS``, ``legal_actions(p)`` are
    player p's (empty for a player who does not choose there) and ``apply_actions`` takes one
    action per player (a player who does not choose: any number, ignored). The players'
    information states are gdl's (``gdl.solvers.information``): what each saw of the start,
    then of every move and the state after it."""

    def __init__(self, game: GdlGame):
        pyspiel.State.__init__(self, game)
        # the same start for every new state (OpenSpiel makes one for every clone)
        start = game.__dict__.get("_initial_play")
        if start is None:
            start = game._initial_play = _start(game.gdl_game, game.gdl_game.initial_state())
        self._play = start

    def _start_at(self, gdl_state) -> None:
        self._play = _start(self.get_game().gdl_game, gdl_state)

    # the attributes GdlState's methods read, kept in the shared record
    @property
    def _state(self):
        return self._play.state

    @_state.setter
    def _state(self, value) -> None:
        _read_only("_state")

    @property
    def _moves(self) -> int:
        return self._play.moves

    @_moves.setter
    def _moves(self, value: int) -> None:
        _read_only("_moves")

    def _player(self) -> int:
        play = self._play
        if (play.kind >= 0 or play.kind == SIMULTANEOUS) and play.moves >= self.get_game().horizon:
            return TERMINAL
        return play.kind

    def is_cut_short(self) -> bool:
        return self._player() == TERMINAL and self._play.kind != TERMINAL

    def current_player(self):
        return _openspiel_player(self._player())

    def _legal_actions(self, player):
        if player < 0:      # OpenSpiel's legal_actions() without a player, at a joint move
            raise ValueError("several players choose at once here: ask legal_actions(player) "
                             "of each")
        return self.get_game().encoding.legal_ids_of(self._play.state, player)

    def _move(self, move, decision: bool) -> None:
        """Make ``move`` (an action, a chance outcome, or a joint action) at the current state."""
        gdl_game = self.get_game().gdl_game
        play = self._play
        state = play.state
        child = gdl_game.apply_joint(state, move) if play.kind == SIMULTANEOUS else \
            gdl_game.apply(state, move)
        self._play = _Play(child, gdl_game.current_player(child), play.moves + decision,
                           information.step(gdl_game, play.keys, state, move, child),
                           play.path + ((state, move),))

    def _apply_action(self, action):
        encoding = self.get_game().encoding
        if self._play.kind == CHANCE:
            self._move(encoding.chance_outcome(self._play.state, action), False)
        else:
            self._move(encoding.action(action), True)

    def _apply_actions(self, actions):
        game = self.get_game()
        gdl_game, encoding = game.gdl_game, game.encoding
        state = self._play.state
        acting = gdl_game.acting_players(state)
        if len(actions) != gdl_game.info.num_players:
            raise ValueError(f"{len(actions)} actions for {gdl_game.info.num_players} players: "
                             "give one per player (any number for one who does not choose)")
        for player in acting:
            if actions[player] not in encoding.legal_ids_of(state, player):
                raise ValueError(f"player {player} ({gdl_game.info.players[player]}) cannot play "
                                 f"action {actions[player]} here")
        self._move(tuple(encoding.action(actions[player]) for player in acting), True)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            raise ValueError("name a player's action with action_to_string(player, action)")
        return super()._action_to_string(player, action)

    def information_key(self, player: int) -> tuple:
        """``player``'s information state, as gdl keys it: its observation of the start, then
        for each move its observation of the move and of the state after."""
        return self._play.keys[player]

    def information_befores(self) -> list:
        """The gdl state each move was made at, in order."""
        return [before for before, _ in self._play.path]


def _wide_observer(game: GdlGame, iig_obs_type, params):
    """The observer OpenSpiel asks for, in a game with simultaneous moves or hidden
    information: a player's own view (gdl's observation, or with perfect recall its information
    state), or everything (the whole state, or the history)."""
    if params:
        raise ValueError(f"observation parameters are not supported; got {params}")
    if iig_obs_type is None:
        return ObservationObserver(game)
    private = iig_obs_type.private_info
    if private == pyspiel.PrivateInfoType.ALL_PLAYERS and iig_obs_type.public_info:
        if iig_obs_type.perfect_recall:
            return IIGObserverForPublicInfoGame(iig_obs_type, params)
        return StateObserver(game.encoding, params)
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and iig_obs_type.public_info:
        return InformationObserver(game) if iig_obs_type.perfect_recall else ObservationObserver(game)
    if not iig_obs_type.perfect_recall and game.encoding.has_cells:
        if private == pyspiel.PrivateInfoType.NONE and iig_obs_type.public_info:
            return PartObserver(game, "public")
        if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            return PartObserver(game, "private")
    raise ValueError(
        "gdl knows what each player sees and the whole state, so an observer needs public_info "
        "and private_info SINGLE_PLAYER (a player's own view) or ALL_PLAYERS (everything), or, "
        "without perfect_recall, the public or the private part of a player's view (rule games); "
        f"got public_info={iig_obs_type.public_info}, private_info={private}, "
        f"perfect_recall={iig_obs_type.perfect_recall}")


class ObservationObserver:
    """A player's observation of the current state (gdl's), as text and as a 0/1 vector
    (gdl.bridges.encoding: ``observation_text``, ``observation_ones``)."""

    def __init__(self, game: GdlGame):
        self._game = game
        self.tensor = np.zeros(game.encoding.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor.fill(0)
        if player >= 0:     # OpenSpiel asks for player -1 to learn the vector's size
            seen = information.observation(self._game.gdl_game, state.gdl_state, player)
            self.tensor[self._game.encoding.observation_ones(player, seen)] = 1

    def string_from(self, state, player):
        seen = information.observation(self._game.gdl_game, state.gdl_state, player)
        return self._game.encoding.observation_text(player, seen)


class PartObserver:
    """The public part of a player's observation (what every player sees) or its private part
    (what it sees and another does not), as text and as a 0/1 vector in the state's layout
    (gdl.bridges.encoding: ``part_text``, ``part_ones``); OpenSpiel's factored observations."""

    def __init__(self, game: GdlGame, part: str):
        self._game, self._part = game, part
        self.tensor = np.zeros(game.encoding.tensor_size, np.float32)
        self.dict = {part + "_observation": self.tensor}

    def set_from(self, state, player):
        self.tensor.fill(0)
        if player >= 0:
            seen = information.observation(self._game.gdl_game, state.gdl_state, player)
            self.tensor[self._game.encoding.part_ones(player, seen, self._part)] = 1

    def string_from(self, state, player):
        seen = information.observation(self._game.gdl_game, state.gdl_state, player)
        return self._game.encoding.part_text(player, seen, self._part)


class InformationObserver:
    """A player's information state (gdl's: what it has seen, perfect recall), as text and, where
    a play's length is bounded, as a 0/1 vector (gdl.bridges.encoding: ``information_text``,
    ``information_ones``)."""

    CACHED = 1 << 17        # texts kept for the information states met most recently

    def __init__(self, game: GdlGame):
        self._game = game
        size = game.encoding.information_size
        self.tensor = None if size is None else np.zeros(size, np.float32)
        self.dict = {} if size is None else {"info_state": self.tensor}
        self._texts: dict = {}     # (player, key) -> text: CFR asks again at every iteration

    def set_from(self, state, player):
        if self.tensor is None:
            return
        self.tensor.fill(0)
        if player >= 0:
            ones = self._game.encoding.information_ones(
                player, state.information_key(player), state.information_befores())
            self.tensor[ones] = 1

    def string_from(self, state, player):
        key = (player, state.information_key(player))
        text = self._texts.get(key)
        if text is None:
            if len(self._texts) >= self.CACHED:
                self._texts.clear()
            text = self._texts[key] = self._game.encoding.information_text(*key)
        return text


class StateObserver:
    """OpenSpiel's observer interface: the whole state as text and as a 0/1 vector
    (gdl.bridges.encoding says what each entry means)."""

    def __init__(self, encoding: GameEncoding, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self._encoding = encoding
        self.tensor = np.zeros(encoding.tensor_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor.fill(0)
        self.tensor[self._encoding.tensor_ones(state.gdl_state)] = 1

    def string_from(self, state, player):
        return str(state)


def register_directory(directory: str | Path) -> list[str]:
    """Register every ``*.game`` file in ``directory``; their short names, sorted by file."""
    return [register(path) for path in sorted(Path(directory).glob("*.game"))]
