"""Counterfactual regret minimisation on the sequence form, vectorised with numpy: CFR+ for two
players and a zero sum, plain CFR for any number of players and any sum. Approximate, and
labelled so: each answer carries its iteration count and the exploitability (two players, zero
sum) or NashConv of the strategies it returns, computed exactly (``gdl.solvers.exploitability``).

One iteration updates each player's *regrets*, one number per sequence (information state and
action): how much better that action would have done than the player's current mix, weighted
by the chance and other players' probability of reaching the information state (Zinkevich et al.
2007). The current strategy plays each action in proportion to its positive regret (regret
matching); the *average* strategy converges to an equilibrium in two-player zero-sum games, and
to a coarse correlated equilibrium otherwise (so NashConv is reported and need not reach 0).

Both update the players in turn, each against the others' newest strategies (alternating
updates, as OpenSpiel's CFRSolver and CFRPlusSolver do; on Kuhn's poker both give OpenSpiel's
figures to the last digits). CFR+ (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015) also
clips regrets at zero after every update (regret matching+) and weights iteration t's strategy
by t in the average; it converges far faster in practice.

Everything works on the sequence form (``gdl.solvers.extensive``), written out once: a player's
counterfactual values are one sparse product over the plays' ends (chance times utility times
the other players' realization probabilities, summed per own sequence) and one pass up the
player's own tree of sequences, a level at a time; the strategy's realization plan is one pass
down. A level is a handful of numpy operations on the sequences of that depth, so an iteration
costs a few dozen numpy calls whatever the game's size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gdl.protocol import Action
from gdl.solvers import extensive
from gdl.solvers.exploitability import Exploitability, profile_exploitability
from gdl.solvers.result import SolverError
from gdl.solvers.wide import require_two_zero_sum

CHECK_EVERY = 50            # iterations between two measurements of the average's NashConv


@dataclass
class CFRResult:
    """The average strategies after ``iterations``, with their exact exploitability
    (``exploitability.exploitability``; two players, zero sum) or NashConv (``.nash_conv``).
    ``history``: (iteration, NashConv in floats) at each measurement; ``iteration_seconds``: the
    time in the iterations alone (no writing out, no measuring). Always approximate."""

    algorithm: str
    iterations: int
    strategies: tuple[dict[Hashable, dict[Action, float]], ...]
    exploitability: Exploitability
    history: list[tuple[int, float]]
    seconds: float
    form: extensive.ExtensiveForm
    behaviours: list[np.ndarray] = field(repr=False, default_factory=list)
    iteration_seconds: float = 0.0


class _Level:
    """The information states of one depth of a player's tree, and their sequences."""

    def __init__(self, tree: extensive.PlayerTree, infosets: list[int]):
        seqs: list[int] = []
        owner: list[int] = []
        starts: list[int] = []
        for local, i in enumerate(infosets):
            starts.append(len(seqs))
            span = tree.sequences_of(i)
            seqs.extend(span)
            owner.extend([local] * len(span))
        self.count = len(infosets)
        self.seqs = np.array(seqs, dtype=np.int64)
        self.owner = np.array(owner, dtype=np.int64)
        self.starts = np.array(starts, dtype=np.int64)
        self.parents = np.array([tree.parent[i] for i in infosets], dtype=np.int64)
        self.seq_parent = self.parents[self.owner]


class _Player:
    """One player's tree of sequences as arrays."""

    def __init__(self, tree: extensive.PlayerTree):
        self.sequences = tree.num_sequences
        self.infoset_of = np.array(tree.sequence_infoset[1:], dtype=np.int64)   # sequences 1..
        sizes = np.array([len(a) for a in tree.actions], dtype=np.float64)
        self.uniform = np.concatenate(([1.0], 1.0 / sizes[self.infoset_of])) if len(sizes) \
            else np.ones(1)
        self.infosets = tree.num_infosets
        by_depth: dict[int, list[int]] = {}
        for i, d in enumerate(tree.depths()):
            by_depth.setdefault(d, []).append(i)
        self.levels = [_Level(tree, by_depth[d]) for d in sorted(by_depth)]

    def regret_matching(self, regret: np.ndarray) -> np.ndarray:
        """Each action in proportion to its positive regret; uniform where none is positive."""
        positive = np.maximum(regret, 0.0)
        positive[0] = 0.0
        sums = np.bincount(self.infoset_of, positive[1:], minlength=self.infosets)
        denominator = np.concatenate(([0.0], sums[self.infoset_of]))
        safe = np.where(denominator > 0, denominator, 1.0)
        behaviour = np.where(denominator > 0, positive / safe, self.uniform)
        behaviour[0] = 1.0
        return behaviour

    def plan(self, behaviour: np.ndarray) -> np.ndarray:
        x = np.ones(self.sequences)
        for level in self.levels:
            x[level.seqs] = x[level.seq_parent] * behaviour[level.seqs]
        return x

    def behaviour_of(self, plan: np.ndarray) -> np.ndarray:
        """The behaviour strategy of a realization plan (uniform where never reached)."""
        reach = np.ones(self.sequences)
        for level in self.levels:
            reach[level.seqs] = plan[level.seq_parent]
        return np.where(reach > 0, plan / np.where(reach > 0, reach, 1.0), self.uniform)


class SequenceVectors:
    """A game in sequence form as numpy arrays: counterfactual values, best responses and
    expected utilities for the iterative solvers."""

    def __init__(self, form: extensive.ExtensiveForm):
        self.form = form
        self.n = form.num_players
        self.players = [_Player(tree) for tree in form.players]
        self.seq = form.leaf_sequences
        chance = form.float_chance()
        self.weight = form.float_utility() * chance          # (players, leaves)

    def direct(self, p: int, plans: list[np.ndarray]) -> np.ndarray:
        """Per sequence of ``p``: the plays ending on it, weighted by chance, ``p``'s utility and
        the others' realization probabilities."""
        w = self.weight[p].copy()
        for q in range(self.n):
            if q != p:
                w *= plans[q][self.seq[q]]
        return np.bincount(self.seq[p], w, minlength=self.players[p].sequences)

    def regrets(self, p: int, plans: list[np.ndarray], behaviour: np.ndarray) -> np.ndarray:
        """The instantaneous counterfactual regret of every sequence of ``p``."""
        player = self.players[p]
        value = self.direct(p, plans)
        regret = np.zeros(player.sequences)
        for level in reversed(player.levels):
            mine = value[level.seqs]
            expected = np.bincount(level.owner, behaviour[level.seqs] * mine,
                                   minlength=level.count)
            regret[level.seqs] = mine - expected[level.owner]
            value += np.bincount(level.parents, expected, minlength=player.sequences)
        return regret

    def best_response_value(self, p: int, plans: list[np.ndarray]) -> float:
        player = self.players[p]
        value = self.direct(p, plans)
        for level in reversed(player.levels):
            best = np.maximum.reduceat(value[level.seqs], level.starts)
            value += np.bincount(level.parents, best, minlength=player.sequences)
        return float(value[0])

    def expected(self, plans: list[np.ndarray]) -> np.ndarray:
        reach = np.ones(self.seq.shape[1])
        for q in range(self.n):
            reach *= plans[q][self.seq[q]]
        return self.weight @ reach

    def nash_conv(self, plans: list[np.ndarray]) -> float:
        values = self.expected(plans)
        return float(sum(self.best_response_value(p, plans) - values[p] for p in range(self.n)))


def cfr_plus(game: Any, *, iterations: int = 1000, target: float | None = None,
             max_seconds: float | None = None, form: extensive.ExtensiveForm | None = None,
             check_every: int = CHECK_EVERY, progress: Callable[[str, int], None] | None = None) -> CFRResult:
    """CFR+ on a two-player zero-sum (or constant-sum) game, for ``iterations`` at most; it
    stops early once the average's exploitability (NashConv / 2, in floats) is at most
    ``target``, or after ``max_seconds``."""
    require_two_zero_sum(game.info, "cfr+")
    return _run(game, "cfr+", iterations, target, max_seconds, form, check_every, progress)


def cfr(game: Any, *, iterations: int = 1000, target: float | None = None,
        max_seconds: float | None = None, form: extensive.ExtensiveForm | None = None,
        check_every: int = CHECK_EVERY, progress: Callable[[str, int], None] | None = None) -> CFRResult:
    """Plain CFR (regret matching, uniform average) for any number of players and any sum;
    ``target`` bounds NashConv / number of players."""
    return _run(game, "cfr", iterations, target, max_seconds, form, check_every, progress)


def _run(game: Any, algorithm: str, iterations: int, target: float | None,
         max_seconds: float | None, form: extensive.ExtensiveForm | None,
         check_every: int, progress: Callable[[str, int], None] | None = None) -> CFRResult:
    if iterations < 1:
        raise SolverError(f"{algorithm}: the number of iterations must be at least 1")
    started = time.perf_counter()
    if form is None:
        form = extensive.build(game, algorithm=algorithm, progress=progress)
    vectors = SequenceVectors(form)
    plus = algorithm == "cfr+"
    n = vectors.n
    regret = [np.zeros(p.sequences) for p in vectors.players]
    behaviour = [p.regret_matching(r) for p, r in zip(vectors.players, regret)]
    plans = [p.plan(b) for p, b in zip(vectors.players, behaviour)]
    average = [np.zeros(p.sequences) for p in vectors.players]
    weight_sum = 0.0
    history: list[tuple[int, float]] = []
    done = 0
    iterating = 0.0
    for t in range(1, iterations + 1):
        tick = time.perf_counter()
        weight = float(t) if plus else 1.0
        weight_sum += weight
        for p in range(n):              # players in turn, each against the others' newest
            player = vectors.players[p]
            average[p] += weight * plans[p]
            regret[p] += vectors.regrets(p, plans, behaviour[p])
            if plus:
                np.maximum(regret[p], 0.0, out=regret[p])
            behaviour[p] = player.regret_matching(regret[p])
            plans[p] = player.plan(behaviour[p])
        done = t
        iterating += time.perf_counter() - tick
        if progress is not None and t % check_every == 0:
            progress("iterations", t)
        out_of_time = max_seconds is not None and time.perf_counter() - started > max_seconds
        if t % check_every == 0 or t == iterations or out_of_time:
            mean = [a / weight_sum for a in average]
            conv = vectors.nash_conv(mean)
            history.append((t, conv))
            if target is not None and conv / n <= target:
                break
        if out_of_time:
            break
    mean = [a / weight_sum for a in average]
    behaviours = [p.behaviour_of(m) for p, m in zip(vectors.players, mean)]
    check = profile_exploitability(form, [b.tolist() for b in behaviours])
    strategies = tuple(extensive.behaviour_as_dict(tree, b.tolist())
                       for tree, b in zip(form.players, behaviours))
    return CFRResult(algorithm, done, strategies, check, history,
                     time.perf_counter() - started, form, behaviours, iterating)
