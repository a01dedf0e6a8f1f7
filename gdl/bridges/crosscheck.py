"""OpenSpiel as one more solver for ``gdl fuzz FILE --openspiel``: at the same kind of positions
``gdl fuzz`` visits (the start, and points along seeded random playouts), OpenSpiel's own search
on the bridged game must give gdl's oracle value, and an action the oracle calls optimal.

OpenSpiel's Python searches cover two-player zero-sum games: ``alpha_beta_search`` without
chance, ``expectiminimax`` with it. Other games (more players, general-sum) are skipped and
reported as such. OpenSpiel computes in floats, so values agree to a relative 1e-9. A game
whose plays can repeat a position is refused (EncodingError): a tree search never ends there.

A two-player zero-sum game with hidden information or simultaneous moves has no value at a
position to search for; there OpenSpiel's CFR+ (its C++ ``CFRPlusSolver``, on the game turned
into turns where players choose at once) runs from the start through the bridge, and gdl's
exact value (``gdl solve``: the sequence form or the simultaneous solver) must lie within
OpenSpiel's own NashConv of the value of OpenSpiel's average strategy: in a two-player zero-sum
game the value of any profile is that close to the game's. NashConv must also fall with the
iterations. Information states the bridge reported wrongly would make OpenSpiel solve another
game, and miss.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pyspiel
from open_spiel.python.algorithms import minimax

from gdl.backends.load import loads
from gdl.bridges.encoding import EncodingError
from gdl.bridges.openspiel import from_game, is_wide
from gdl.lang.format import format_text
from gdl.protocol import CHANCE, ZERO_SUM
from gdl.solvers import extensive, solve
from gdl.solvers.result import SolverError
from gdl.tools.fuzz import Failure, Problem, Summary, TargetReport, count_nodes, oracle, playout, replay

SOLVER = "openspiel"


def applicable(info) -> bool:
    return info.num_players == 2 and info.sum_kind == ZERO_SUM


def position_problems(spiel_game, gdl_state) -> list[Problem]:
    """OpenSpiel's search from ``gdl_state`` against gdl's oracle (see the module docstring)."""
    game = spiel_game.gdl_game
    state = spiel_game.state_at(gdl_state)
    depth = spiel_game.max_game_length() + 1          # never cut off: the search is exact
    if game.info.has_chance:
        value, action = minimax.expectiminimax(state, depth, None, 0)
        label = "openspiel expectiminimax"
    else:
        value, action = minimax.alpha_beta_search(spiel_game, state, maximum_depth=depth,
                                                  maximizing_player_id=0)
        label = "openspiel alpha_beta_search"
    truth = oracle(game, gdl_state)
    expected = float(truth.values[0])
    problems = []
    if abs(value - expected) > 1e-9 * max(1.0, abs(expected)):
        problems.append(Problem("values", label, f"value {value} for {game.info.players[0]}, "
                                                 f"the oracle says {truth.values[0]}"))
    if action is not None and action >= 0 and game.current_player(gdl_state) != CHANCE:
        chosen = spiel_game.encoding.action(action)
        if chosen not in truth.best_actions:
            best = " ".join(game.action_name(a) for a in truth.best_actions)
            problems.append(Problem("best_actions", label,
                                    f"chose {game.action_name(chosen)}, not among the optimal {best}"))
    return problems


def crosscheck_file(path: str, examples: int = 100, seed: int = 0, budget: int = 2000,
                    params: dict | None = None) -> Summary:
    """``gdl fuzz``'s positions of the rule file at ``path``, each solved by OpenSpiel and by the
    oracle; positions whose tree has more than ``budget`` nodes are skipped (OpenSpiel's searches
    keep no table, so they stay small)."""
    started = time.perf_counter()
    target = f"{path} (OpenSpiel)"
    summary = Summary(seed=seed, examples=examples)
    report = summary.targets.setdefault(target, TargetReport(target))
    text = Path(path).read_text(encoding="utf-8")
    game = loads(text, path, params)
    report.games = 1
    if not applicable(game.info):
        report.examples = report.skipped = examples
        report.seconds = time.perf_counter() - started
        return summary
    if is_wide(game.info):
        _crosscheck_wide(game, path, text, examples, seed, budget, summary, report)
        report.seconds = time.perf_counter() - started
        summary.seconds = report.seconds
        return summary
    spiel_game = from_game(game)
    if spiel_game.encoding.can_repeat:
        raise EncodingError(
            f"{path}: a play can return to an earlier position, so OpenSpiel's tree searches "
            "cannot solve it; compare OpenSpiel's value_iteration(game, -1, threshold, "
            "cyclic_game=True) with `gdl solve --strong` instead (docs/openspiel.md)")
    rng = random.Random(seed)
    positions: list[tuple[str, ...]] = [()]
    while len(positions) < examples:
        line = playout(game, rng)
        positions.append(tuple(line[:rng.randint(0, len(line))]))
    for moves in positions:
        report.examples += 1
        state = replay(game, moves)
        if count_nodes(game, state, budget) is None:
            report.skipped += 1
            continue
        try:
            problems = position_problems(spiel_game, state)
        except Exception as error:   # a crash inside OpenSpiel or the bridge is a finding too
            problems = [Problem("error", SOLVER, f"{type(error).__name__}: {error}")]
        report.positions += 1
        report.comparisons += 1
        report.solvers.add(SOLVER)
        if problems:
            summary.failures.append(Failure(path, seed, problems, format_text(text, path),
                                            position=moves))
    report.seconds = time.perf_counter() - started
    summary.seconds = report.seconds
    return summary


CFR_CHECKPOINT = 10      # NashConv there must exceed NashConv at the end


def wide_problems(game, iterations: int) -> list[Problem]:
    """OpenSpiel's CFR+ on ``game`` (a two-player zero-sum game with hidden information or
    simultaneous moves) against gdl's exact value (see the module docstring)."""
    label = "openspiel CFRPlusSolver"
    truth = solve(game)
    low, high = truth.extra["bounds"]          # equal ends where gdl's value is exact
    spiel_game = from_game(game, name="gdl_crosscheck")
    if spiel_game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        spiel_game = pyspiel.convert_to_turn_based(spiel_game)
    solver = pyspiel.CFRPlusSolver(spiel_game)
    early = None
    for iteration in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if iteration == CFR_CHECKPOINT:
            early = pyspiel.nash_conv(spiel_game, solver.average_policy())
    policy = solver.average_policy()
    conv = pyspiel.nash_conv(spiel_game, policy)
    value = pyspiel.expected_returns(spiel_game.new_initial_state(), policy, -1, True)[0]
    problems = []
    slack = conv + 1e-9 * max(1.0, abs(value))
    if not float(low) - slack <= value <= float(high) + slack:
        exact = f"{low}" if low == high else f"in [{low}, {high}]"
        problems.append(Problem("values", label, f"after {iterations} iterations its strategy is "
                                f"worth {value} to {game.info.players[0]} with NashConv {conv}, "
                                f"so the game's value is within {conv} of it; gdl's is {exact}"))
    if early is not None and conv > early:
        problems.append(Problem("claim", label, f"NashConv rose from {early} after "
                                f"{CFR_CHECKPOINT} iterations to {conv} after {iterations}"))
    return problems


def _crosscheck_wide(game, path: str, text: str, examples: int, seed: int, budget: int,
                     summary: Summary, report: TargetReport) -> None:
    """``wide_problems`` from the start of a game no bigger than ``budget`` histories, with
    ``examples`` iterations of CFR+ (a game too big is skipped, as positions are)."""
    report.examples = 1
    try:
        extensive.build(game, max_histories=budget)
    except SolverError:
        report.skipped = 1
        return
    try:
        problems = wide_problems(game, max(examples, CFR_CHECKPOINT))
    except Exception as error:   # a crash inside OpenSpiel or the bridge is a finding too
        problems = [Problem("error", SOLVER, f"{type(error).__name__}: {error}")]
    report.positions = report.comparisons = 1
    report.solvers.add(SOLVER)
    if problems:
        summary.failures.append(Failure(path, seed, problems, format_text(text, path)))
