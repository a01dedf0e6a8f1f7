"""A game written out in sequence form: every player's information states and sequences, and
every play's end with the sequences that lead to it.

A *sequence* of a player is the list of (information state, action) choices it made on the way
to a position; with perfect recall it is named by its last choice, so a player's sequences
form a tree: sequence 0 is the empty one, and the actions of an information state ``I`` reached
after sequence ``s`` extend ``s`` (Koller, Megiddo & von Stengel 1996; von Stengel 1996). A
strategy is then a *realization plan*: the probability ``x[s]`` that the player plays every
choice of ``s``. Everything a zero-sum or n-player solver needs is in three arrays over the
plays' ends (leaves): each player's sequence there, the probability chance gives the leaf, and
the utilities. A player's expected utility is

    sum over leaves z of  chance[z] * u_p[z] * prod_q x_q[seq_q[z]]

which is what the sequence-form LP, best responses and CFR compute with (``exploitability``,
``sequence_form``, ``cfr``).

The walk goes over every history from the start (``gdl.solvers.information`` builds each
player's information state along it). A simultaneous state is written out as its acting players
choosing one after another, each in its information state of before the move: no one sees the
others' choices, which is what choosing at once means. The walk checks what the protocol
promises and a solver relies on: an information state offers the same actions wherever it is
met, and is always reached after the same own sequence (perfect recall).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np

from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, Action, GameInfo, Value
from gdl.solvers import information
from gdl.solvers.result import SolverError

DEFAULT_MAX_HISTORIES = 2_000_000
PROGRESS_EVERY = 4096            # histories between two calls of a walk's ``progress``


@dataclass
class PlayerTree:
    """One player's information states and sequences, numbered in the order the walk meets
    them, so an information state's parent sequence always comes before its own sequences."""

    keys: list[Hashable] = field(default_factory=list)         # information-state key
    parent: list[int] = field(default_factory=list)            # sequence leading to it
    actions: list[tuple[Action, ...]] = field(default_factory=list)
    first: list[int] = field(default_factory=list)             # its first sequence; rest follow
    sequence_infoset: list[int] = field(default_factory=lambda: [-1])   # -1: the empty one
    index: dict[Hashable, int] = field(default_factory=dict)   # key -> information state

    @property
    def num_infosets(self) -> int:
        return len(self.keys)

    @property
    def num_sequences(self) -> int:
        return len(self.sequence_infoset)

    def sequences_of(self, infoset: int) -> range:
        start = self.first[infoset]
        return range(start, start + len(self.actions[infoset]))

    def depths(self) -> list[int]:
        """Each information state's depth in the player's own tree (0: no choice before)."""
        depth: list[int] = []
        for parent in self.parent:
            depth.append(0 if parent == 0 else depth[self.sequence_infoset[parent]] + 1)
        return depth


@dataclass
class ExtensiveForm:
    """A game in sequence form (module docstring). Exact data in lists, float copies in numpy
    arrays for the iterative solvers."""

    info: GameInfo
    players: list[PlayerTree]
    leaf_sequences: np.ndarray          # (players, leaves) int64
    leaf_chance: list[Fraction]
    leaf_utility: list[tuple[Value, ...]]
    histories: int                      # positions walked (every history, the start included)

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def num_leaves(self) -> int:
        return len(self.leaf_chance)

    @property
    def num_infosets(self) -> int:
        return sum(p.num_infosets for p in self.players)

    def float_chance(self) -> np.ndarray:
        return np.array([float(c) for c in self.leaf_chance], dtype=np.float64)

    def float_utility(self) -> np.ndarray:
        """(players, leaves) utilities as floats."""
        return np.array([[float(u[p]) for u in self.leaf_utility]
                         for p in range(self.num_players)], dtype=np.float64).reshape(
            self.num_players, self.num_leaves)


def build(game: Any, *, max_histories: int = DEFAULT_MAX_HISTORIES, algorithm: str = "sequence form",
          root: Any = None, progress: Callable[[str, int], None] | None = None) -> ExtensiveForm:
    """Walk every history of ``game`` (from ``root``, default its start) and write it out in
    sequence form. Refuses, with SolverError, a game with more than ``max_histories`` histories,
    and one whose information states break perfect recall. ``progress("histories", n)`` is
    called every PROGRESS_EVERY histories."""
    n = game.info.num_players
    players = [PlayerTree() for _ in range(n)]
    leaf_seqs: list[list[int]] = [[] for _ in range(n)]
    leaf_chance: list[Fraction] = []
    leaf_utility: list[tuple[Value, ...]] = []
    start = game.initial_state() if root is None else root
    # (state, information-state keys, each player's current sequence, chance probability)
    stack: list[tuple[Any, tuple, tuple[int, ...], Fraction]] = [
        (start, information.start(game, start), (0,) * n, Fraction(1))]
    histories = 0
    while stack:
        state, keys, seqs, reach = stack.pop()
        histories += 1
        if progress is not None and histories % PROGRESS_EVERY == 0:
            progress("histories", histories)
        if histories > max_histories:
            raise SolverError(f"{algorithm}: game {game.info.name!r} has more than "
                              f"{max_histories:,} histories, too many to write out; use 'mccfr', "
                              "which samples plays instead of walking them all")
        player = game.current_player(state)
        if player == TERMINAL:
            values = tuple(game.returns(state))
            if len(values) != n:
                raise SolverError(f"{algorithm}: returns gave {len(values)} values for {n} players")
            for p in range(n):
                leaf_seqs[p].append(seqs[p])
            leaf_chance.append(reach)
            leaf_utility.append(values)
            continue
        children: list[tuple[Any, tuple, tuple[int, ...], Fraction]] = []
        if player == CHANCE:
            for outcome, probability in game.chance_outcomes(state):
                weight = Fraction(probability)
                if weight <= 0:
                    continue
                child = game.apply(state, outcome)
                children.append((child, information.step(game, keys, state, outcome, child),
                                 seqs, reach * weight))
        else:
            acting = information.acting(game, state)
            choices = []
            for p in acting:
                actions = tuple(information.actions_of(game, state, p))
                if not actions:
                    raise SolverError(f"{algorithm}: player {game.info.players[p]} has no legal "
                                      f"action at non-terminal state {state!r}")
                infoset = _infoset(players[p], keys[p], seqs[p], actions, game, p, algorithm)
                choices.append((p, actions, players[p].first[infoset]))
            for picks in product(*(range(len(actions)) for _, actions, _ in choices)):
                new = list(seqs)
                for (p, _, first), i in zip(choices, picks):
                    new[p] = first + i
                if player == SIMULTANEOUS:
                    move: Any = tuple(actions[i] for (_, actions, _), i in zip(choices, picks))
                    child = game.apply_joint(state, move)
                else:
                    move = choices[0][1][picks[0]]
                    child = game.apply(state, move)
                children.append((child, information.step(game, keys, state, move, child),
                                 tuple(new), reach))
        stack.extend(reversed(children))
    sequences = np.array(leaf_seqs, dtype=np.int64).reshape(n, len(leaf_chance))
    return ExtensiveForm(game.info, players, sequences, leaf_chance, leaf_utility, histories)


def _infoset(tree: PlayerTree, key: Hashable, parent: int, actions: tuple[Action, ...],
             game: Any, player: int, algorithm: str) -> int:
    """The number of ``player``'s information state ``key``, met after its sequence ``parent``
    with ``actions``: created the first time, checked every other time."""
    found = tree.index.get(key)
    if found is None:
        found = len(tree.keys)
        tree.index[key] = found
        tree.keys.append(key)
        tree.parent.append(parent)
        tree.actions.append(actions)
        tree.first.append(len(tree.sequence_infoset))
        tree.sequence_infoset.extend([found] * len(actions))
        return found
    name = game.info.players[player]
    if tree.actions[found] != actions:
        raise SolverError(f"{algorithm}: player {name}'s information state {_short(key)} offers "
                          f"different actions at two positions: the player could tell them apart "
                          "by its legal actions, so its observations must show the difference")
    if tree.parent[found] != parent:
        raise SolverError(f"{algorithm}: player {name}'s information state {_short(key)} is "
                          "reached after different choices of its own: the game forgets what "
                          "the player did (no perfect recall), and the sequence form needs it")
    return found


def _short(key: Hashable) -> str:
    text = repr(key)
    return text if len(text) <= 80 else text[:77] + "..."


def behaviour_from_plan(tree: PlayerTree, plan: list[Fraction]) -> list[Fraction]:
    """Per sequence, the probability of its last action at its information state: ``x[Ia] /
    x[parent]``; where the parent is never played (``x = 0``), the first action (any choice there
    is as good, since the player never gets there)."""
    behaviour = [Fraction(1)] * tree.num_sequences
    for infoset in range(tree.num_infosets):
        reach = plan[tree.parent[infoset]]
        seqs = tree.sequences_of(infoset)
        for k, s in enumerate(seqs):
            behaviour[s] = plan[s] / reach if reach else Fraction(int(k == 0))
    return behaviour


def plan_from_behaviour(tree: PlayerTree, behaviour: list[Any]) -> list[Any]:
    """The realization plan of a behaviour strategy (per sequence, the probability of its last
    action): ``x[Ia] = x[parent] * b[Ia]``. Works on Fractions and on floats."""
    plan = list(behaviour)
    plan[0] = 1
    for infoset in range(tree.num_infosets):
        reach = plan[tree.parent[infoset]]
        for s in tree.sequences_of(infoset):
            plan[s] = reach * behaviour[s]
    return plan


def behaviour_as_dict(tree: PlayerTree, behaviour: list[Any]) -> dict[Hashable, dict[Action, Any]]:
    """A behaviour strategy as ``{information-state key: {action: probability}}``."""
    return {tree.keys[i]: {a: behaviour[s] for a, s in zip(tree.actions[i], tree.sequences_of(i))}
            for i in range(tree.num_infosets)}


def behaviour_from_dict(tree: PlayerTree, strategy: dict[Hashable, dict[Action, Any]],
                        exact: bool, player_name: str) -> list[Any]:
    """The inverse of ``behaviour_as_dict``. A missing information state plays uniformly; with
    ``exact``, probabilities become Fractions and must sum to 1 exactly; otherwise they are
    kept as given (a Fraction stays exact), to be renormalised by the caller."""
    one: Any = Fraction(1) if exact else 1.0
    behaviour: list[Any] = [one] * tree.num_sequences
    for i in range(tree.num_infosets):
        seqs = tree.sequences_of(i)
        given = strategy.get(tree.keys[i])
        if given is None:
            for s in seqs:
                behaviour[s] = one / len(seqs)
            continue
        probs = [Fraction(given.get(a, 0)) if exact else given.get(a, 0)
                 for a in tree.actions[i]]
        unknown = set(given) - set(tree.actions[i])
        if unknown or any(p < 0 for p in probs):
            raise SolverError(f"strategy of {player_name} at {_short(tree.keys[i])}: "
                              + (f"actions {sorted(map(repr, unknown))} are not legal there"
                                 if unknown else "a probability is negative"))
        if exact and sum(probs) != 1:
            raise SolverError(f"strategy of {player_name} at {_short(tree.keys[i])}: "
                              f"probabilities sum to {sum(probs)}, not 1")
        for s, p in zip(seqs, probs):
            behaviour[s] = p
    return behaviour
