"""Outcome-sampling Monte Carlo CFR (Lanctot, Waugh, Zinkevich & Bowling 2009) for games too
big to write out: each iteration samples plays, so it costs the length of a play, not the size
of the game. Seeded and deterministic. Approximate, and labelled so.

An iteration samples one play for each player as the *traverser* (as OpenSpiel counts). Along
the play, chance and the other players choose by their own probabilities, the traverser by its
current strategy mixed with uniform exploration (``exploration``, 0.6 as in Lanctot's
experiments and OpenSpiel). On the way back up, at each of the traverser's information states:

- the regret of every action is estimated without bias by importance weighting: the sampled
  action's value is the value below divided by the probability of sampling it, the others' are
  0, and the counterfactual weight is the others' and chance's probability of the history over
  the probability of having sampled it;
- the average strategy gains the current one, weighted by the traverser's own probability of
  reaching the history over the probability of having sampled it: in expectation, its own
  probability of reaching the information state, which is the average's weight.

Information states are built along the play (``gdl.solvers.information``); a simultaneous move is
taken as its acting players choosing in turn, each in its information state of before the move.
The exploitability (two players, zero sum) or NashConv of the average strategy is computed
exactly when the game can be written out (``gdl.solvers.extensive``); otherwise it is not known,
and the answer says so.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, Action
from gdl.solvers import extensive, information
from gdl.solvers.exploitability import Exploitability, strategy_exploitability
from gdl.solvers.result import SolverError

EXPLORATION = 0.6
MAX_PLAY = 100_000          # moves in one sampled play before the solver gives up on it


@dataclass
class MCCFRResult:
    """The average strategies after ``iterations`` iterations (a sampled play per player
    each), and their exact exploitability when the game could be written out (else None, and
    ``note`` says why)."""

    iterations: int
    seed: int
    strategies: tuple[dict[Hashable, dict[Action, float]], ...]
    exploitability: Exploitability | None
    note: str
    seconds: float
    infosets: int
    form: extensive.ExtensiveForm | None = field(default=None, repr=False)


class _Node:
    """What the solver keeps for one information state of one player."""

    __slots__ = ("actions", "average", "regret")

    def __init__(self, actions: tuple[Action, ...]):
        self.actions = actions
        self.regret = [0.0] * len(actions)
        self.average = [0.0] * len(actions)

    def strategy(self) -> list[float]:
        positive = [r if r > 0 else 0.0 for r in self.regret]
        total = sum(positive)
        if total > 0:
            return [r / total for r in positive]
        return [1.0 / len(positive)] * len(positive)


def outcome_sampling(game: Any, *, iterations: int = 100_000, seed: int = 0,
                     exploration: float = EXPLORATION, max_seconds: float | None = None,
                     max_histories: int = extensive.DEFAULT_MAX_HISTORIES,
                     progress: Callable[[str, int], None] | None = None) -> MCCFRResult:
    """Outcome-sampling MCCFR for ``iterations`` iterations of one sampled play per player (or
    ``max_seconds``); ``progress("iterations", n)`` now and then, then the walk's for the
    exploitability check."""
    info = game.info
    if iterations < 1:
        raise SolverError("mccfr: the number of iterations must be at least 1")
    if not 0 < exploration <= 1:
        raise SolverError("mccfr: exploration must be in (0, 1]")
    started = time.perf_counter()
    rng = random.Random(seed)
    tables: list[dict[Hashable, _Node]] = [{} for _ in info.players]
    done = 0
    for t in range(iterations):
        for traverser in range(info.num_players):
            _episode(game, tables, traverser, rng, exploration)
        done = t + 1
        if progress is not None and done % extensive.PROGRESS_EVERY == 0:
            progress("iterations", done)
        if max_seconds is not None and done % 128 == 0 \
                and time.perf_counter() - started > max_seconds:
            break
    strategies = tuple(_averages(table) for table in tables)
    check: Exploitability | None = None
    form = None
    try:
        form = extensive.build(game, max_histories=max_histories, algorithm="mccfr",
                               progress=progress)
    except SolverError as e:
        note = f"exploitability not computed: {e}"
    else:
        check = strategy_exploitability(form, strategies)
        note = "exploitability exact for the average strategies as returned"
    return MCCFRResult(done, seed, strategies, check, note, time.perf_counter() - started,
                       sum(len(t) for t in tables), form)


def _averages(table: dict[Hashable, _Node]) -> dict[Hashable, dict[Action, float]]:
    out = {}
    for key, node in table.items():
        total = sum(node.average)
        probs = ([a / total for a in node.average] if total > 0
                 else [1.0 / len(node.actions)] * len(node.actions))
        out[key] = dict(zip(node.actions, probs))
    return out


def _pick(rng: random.Random, probs: list[float]) -> int:
    r = rng.random()
    acc = 0.0
    for i, p in enumerate(probs):
        acc += p
        if r < acc:
            return i
    return max(i for i, p in enumerate(probs) if p > 0)   # rounding left r past the sum


def _episode(game: Any, tables: list[dict[Hashable, _Node]], traverser: int,
             rng: random.Random, exploration: float) -> None:
    """One sampled play with ``traverser``'s regrets and average strategy updated."""
    state = game.initial_state()
    keys = information.start(game, state)
    own_reach = 1.0             # the traverser's probability of its choices so far
    other_reach = 1.0           # chance's and the other players' probability of the history
    sample_reach = 1.0          # the probability of having sampled the history
    # the traverser's choices: (node, its strategy, its sampling probabilities, the index taken,
    # own reach and sampling probability of the history before the choice, the other players')
    choices: list[tuple[_Node, list[float], list[float], int, float, float, float]] = []
    moves = 0
    while True:
        player = game.current_player(state)
        if player == TERMINAL:
            value = float(game.returns(state)[traverser])
            break
        moves += 1
        if moves > MAX_PLAY:
            raise SolverError(f"mccfr: a sampled play of {game.info.name!r} ran past "
                              f"{MAX_PLAY:,} moves without ending")
        if player == CHANCE:
            outcomes = list(game.chance_outcomes(state))
            probabilities = [float(p) for _, p in outcomes]
            k = _pick(rng, probabilities)
            other_reach *= probabilities[k]
            sample_reach *= probabilities[k]
            move: Any = outcomes[k][0]
            child = game.apply(state, move)
        else:
            picked = []
            for p in information.acting(game, state):
                table = tables[p]
                node = table.get(keys[p])
                if node is None:
                    node = table[keys[p]] = _Node(tuple(information.actions_of(game, state, p)))
                sigma = node.strategy()
                if p == traverser:
                    width = len(sigma)
                    sample = [exploration / width + (1 - exploration) * s for s in sigma]
                    k = _pick(rng, sample)
                    choices.append((node, sigma, sample, k, own_reach, sample_reach, other_reach))
                    own_reach *= sigma[k]
                    sample_reach *= sample[k]
                else:
                    k = _pick(rng, sigma)
                    other_reach *= sigma[k]
                    sample_reach *= sigma[k]
                picked.append(node.actions[k])
            if player == SIMULTANEOUS:
                move = tuple(picked)
                child = game.apply_joint(state, move)
            else:
                move = picked[0]
                child = game.apply(state, move)
        keys = information.step(game, keys, state, move, child)
        state = child
    # Back up the play: at each of the traverser's choices the sampled action's value is the
    # value below divided by the probability of sampling it, the others' 0; the node's value is
    # its strategy's mix of those. Counterfactual weight: the others' and chance's probability
    # of the history over the probability of having sampled it. The average strategy gains the
    # current one, weighted by the traverser's own reach over the same sampling probability.
    for node, sigma, sample, k, own, sampled_before, others in reversed(choices):
        sampled = value / sample[k]
        estimate = sigma[k] * sampled
        weight = others / sampled_before
        regret, average = node.regret, node.average
        mine = own / sampled_before
        for i in range(len(regret)):
            regret[i] += weight * ((sampled if i == k else 0.0) - estimate)
            average[i] += mine * sigma[i]
        value = estimate
