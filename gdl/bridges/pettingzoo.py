"""gdl games as PettingZoo environments (``pip install 'gdl[pettingzoo]'``).

    from gdl.bridges.pettingzoo import env
    e = env("games/tictactoe.game")            # agents are the game's players: "X", "O"
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        mask = observation["action_mask"]
        e.step(None if termination or truncation else int(mask.nonzero()[0][0]))

Written directly on the game protocol (no OpenSpiel needed), in the form of PettingZoo's classic
board games: each agent observes ``{"observation": 0/1 entries, "action_mask": its legal
actions}`` (the mask is all zeros for an agent not to move); actions are the numbers of
gdl.bridges.encoding (``info["action_names"]`` names them); chance is sampled inside the
environment, exactly (from the game's Fractions) with the seed given to ``reset``; rewards come
at the end, each player's utility as a float. The gdl state is ``env.gdl_state`` for solvers.

What an agent observes: the whole state in a game that hides nothing; in a game with hidden
information (``private``, ``hidden``), only its own observation (gdl's: the cells it sees, the
others left at 0), so one agent's observation never shows another's cards. ``state()`` is the
whole state, for a centralised critic.

Simultaneous moves: ``parallel_env`` is a PettingZoo Parallel environment, whose ``step`` takes
every agent's action at once (a dictionary); the agents who choose at a state are those whose
mask is not all zeros, and the others' actions are ignored (they may be left out). It works on
any game: where one player moves, only that player's action counts. ``env`` on a game with
simultaneous moves is that environment behind PettingZoo's own ``parallel_to_aec`` wrapper, in
which the agents act one after the other and the joint move is made when the last has acted;
``GdlEnv``, which moves one player at a time, refuses such a game.

Truncation (PettingZoo's ``truncations``, apart from ``terminations``): with ``max_moves=N``, or
else the ``max-length`` the rules declare, a play still going after that many decisions (a joint
move is one) is cut short: every agent truncated, none terminated, and no reward (the game has
no result; a learner bootstraps from the last observation, as Gymnasium's time limits ask).
Without either a play goes on as long as the rules do: in a game that can repeat a position
(games/cyclic/) that may be for ever, if the agents keep it going (docs/pettingzoo.md says why
this is the default).

A game whose every play ends before any player decides (a tree of chance alone) cannot be an
environment: PettingZoo requires a game that is not over after ``reset``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from gdl.backends.load import load
from gdl.bridges.encoding import GameEncoding, move_limit
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL
from gdl.solvers import information
from gdl.tools.session import draw


def env(path: str | Path, params: dict | None = None, render_mode: str | None = None,
        max_moves: int | None = None) -> AECEnv:
    """The rule file at ``path`` (with ``param`` values ``params``) as an AEC environment; plays
    still going after ``max_moves`` decisions are truncated (see the module docstring). A game
    with simultaneous moves is its parallel environment behind PettingZoo's ``parallel_to_aec``."""
    game = load(path, params)
    if game.info.simultaneous:
        return parallel_to_aec(GdlParallelEnv(game, render_mode=render_mode, max_moves=max_moves))
    return GdlEnv(game, render_mode=render_mode, max_moves=max_moves)


def parallel_env(path: str | Path, params: dict | None = None, render_mode: str | None = None,
                 max_moves: int | None = None) -> GdlParallelEnv:
    """The rule file at ``path`` as a Parallel environment: every agent's action at once."""
    return GdlParallelEnv(load(path, params), render_mode=render_mode, max_moves=max_moves)


class _Table:
    """What both environments share: the game, its numbering, the spaces, what each agent sees,
    chance, and when a play ends or is cut short."""

    # the default; each environment replaces it with its own, named after its game (_set_up)
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "gdl"}  # noqa: RUF012

    def _set_up(self, gdl_game, render_mode: str | None, max_moves: int | None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.gdl_game = gdl_game
        # The decisions after which a play still going is truncated: the user's, else the rules'
        # max-length (which a play keeping the rules' promise never reaches), else none.
        self.max_moves = move_limit(max_moves)
        if self.max_moves is None:
            self.max_moves = gdl_game.info.max_length
        self.moves = 0
        self._cut_short = False     # the play was truncated: no agent may move any more
        self.encoding = encoding = GameEncoding(gdl_game)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": gdl_game.info.name}
        self.possible_agents = list(gdl_game.info.players)
        self._num_actions = max(1, encoding.num_actions)
        self.action_spaces = {agent: spaces.Discrete(self._num_actions) for agent in self.possible_agents}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(0, 1, (encoding.observation_size,), np.int8),
                "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8)})
            for agent in self.possible_agents}
        self.state_space = spaces.Box(0, 1, (encoding.tensor_size,), np.int8)
        self._action_names = [gdl_game.action_name(encoding.action(i)) for i in range(encoding.num_actions)]
        self._rng = random.Random()
        self.gdl_state = gdl_game.initial_state()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _restart(self, seed: int | None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.gdl_state = self.gdl_game.initial_state()
        self.moves = 0
        self._cut_short = False

    def _play_chance(self) -> int:
        """Play chance until a player is to move or the game is over; the gdl player then (a
        player, SIMULTANEOUS or TERMINAL)."""
        game = self.gdl_game
        player = game.current_player(self.gdl_state)
        while player == CHANCE:
            self.gdl_state = game.apply(self.gdl_state, draw(self._rng, game.chance_outcomes(self.gdl_state)))
            player = game.current_player(self.gdl_state)
        return player

    def _reached_limit(self) -> bool:
        return self.max_moves is not None and self.moves >= self.max_moves

    def _acting(self) -> tuple[int, ...]:
        """The players who choose now (none once the play is over or cut short)."""
        if self._cut_short:
            return ()
        return information.acting(self.gdl_game, self.gdl_state)

    def _observation(self, agent) -> dict:
        player = self.possible_agents.index(agent)
        observation = np.zeros(self.encoding.observation_size, np.int8)
        seen = information.observation(self.gdl_game, self.gdl_state, player)
        observation[self.encoding.observation_ones(player, seen)] = 1
        mask = np.zeros(self._num_actions, np.int8)
        if player in self._acting():
            mask[self.encoding.legal_ids_of(self.gdl_state, player)] = 1
        return {"observation": observation, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The whole state as 0/1 entries (gdl.bridges.encoding), whatever the agents see."""
        whole = np.zeros(self.encoding.tensor_size, np.int8)
        whole[self.encoding.tensor_ones(self.gdl_state)] = 1
        return whole

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.encoding.text(self.gdl_state)

    def close(self) -> None:
        pass


class GdlEnv(_Table, AECEnv):
    """A PettingZoo AEC environment over a gdl game in which one player moves at a time (see
    the module docstring)."""

    metadata: dict[str, Any] = {**_Table.metadata, "is_parallelizable": False}  # noqa: RUF012

    def __init__(self, gdl_game, render_mode: str | None = None, max_moves: int | None = None):
        super().__init__()
        if gdl_game.info.simultaneous:
            raise ValueError(
                f"{gdl_game.info.name}: players choose at once in this game, and an AEC "
                "environment moves one agent at a time; use "
                "pettingzoo.utils.conversions.parallel_to_aec(GdlParallelEnv(game)) (what "
                "gdl.bridges.pettingzoo.env gives for such a rule file), or GdlParallelEnv itself")
        self._set_up(gdl_game, render_mode, max_moves)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._restart(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"action_names": self._action_names} for agent in self.agents}
        self._advance()
        if self.terminations[self.agents[0]]:
            raise ValueError(f"{self.gdl_game.info.name}: the game is over before any player "
                             "decides, so it cannot be a PettingZoo environment")

    def _advance(self) -> None:
        """Play chance until a player is to move or the game is over; then select that agent, or
        end the game with everyone's utility as reward, or, with ``max_moves`` decisions made,
        truncate it with no reward."""
        player = self._play_chance()
        if player == TERMINAL:
            values = self.gdl_game.returns(self.gdl_state)
            self.rewards = {agent: float(v) for agent, v in zip(self.agents, values)}
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        elif self._reached_limit():
            self._cut_short = True
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[player]

    def observe(self, agent):
        return self._observation(agent)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.encoding.legal_ids(self.gdl_state)
        if action is None or int(action) not in legal:
            names = " ".join(self._action_names[i] for i in legal)
            raise ValueError(f"{agent} cannot play action {action} here; legal: {legal} ({names})")
        self._cumulative_rewards[agent] = 0.0
        self.gdl_state = self.gdl_game.apply(self.gdl_state, self.encoding.action(int(action)))
        self.moves += 1
        self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())


class GdlParallelEnv(_Table, ParallelEnv):
    """A PettingZoo Parallel environment over any gdl game: ``step`` takes every agent's action
    at once, and uses those of the agents who choose now (see the module docstring)."""

    def __init__(self, gdl_game, render_mode: str | None = None, max_moves: int | None = None):
        super().__init__()
        self._set_up(gdl_game, render_mode, max_moves)

    def _infos(self) -> dict:
        return {agent: {"action_names": self._action_names} for agent in self.agents}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._restart(seed)
        self.agents = list(self.possible_agents)
        if self._play_chance() == TERMINAL:
            raise ValueError(f"{self.gdl_game.info.name}: the game is over before any player "
                             "decides, so it cannot be a PettingZoo environment")
        return {agent: self._observation(agent) for agent in self.agents}, self._infos()

    def step(self, actions: dict):
        if not self.agents:
            raise ValueError("the play is over: call reset() to start another")
        game, encoding = self.gdl_game, self.encoding
        acting = self._acting()
        chosen = []
        for player in acting:
            agent = self.possible_agents[player]
            action = actions.get(agent)
            legal = encoding.legal_ids_of(self.gdl_state, player)
            if action is None or int(action) not in legal:
                names = " ".join(self._action_names[i] for i in legal)
                raise ValueError(f"{agent} chooses now and cannot play action {action}; legal: "
                                 f"{legal} ({names})")
            chosen.append(encoding.action(int(action)))
        if game.current_player(self.gdl_state) == SIMULTANEOUS:
            self.gdl_state = game.apply_joint(self.gdl_state, tuple(chosen))
        else:
            self.gdl_state = game.apply(self.gdl_state, chosen[0])
        self.moves += 1
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, False)
        truncations = dict.fromkeys(agents, False)
        if self._play_chance() == TERMINAL:
            values = game.returns(self.gdl_state)
            rewards = {agent: float(v) for agent, v in zip(self.possible_agents, values)}
            terminations = dict.fromkeys(agents, True)
        elif self._reached_limit():
            self._cut_short = True
            truncations = dict.fromkeys(agents, True)
        observations = {agent: self._observation(agent) for agent in agents}
        infos = self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        if self.render_mode == "human":
            print(self.render())
        return observations, rewards, terminations, truncations, infos
