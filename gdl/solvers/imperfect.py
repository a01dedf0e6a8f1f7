"""The solvers of games with simultaneous moves or hidden information, behind ``solve``: each
answer as a ``SolveResult``, exact or labelled approximate.

``SolveResult.extra`` carries what such an answer needs beyond a value:

- ``exact``: True when the values are exact and the strategies an equilibrium (proven);
- ``strategies``: per player name, ``{information-state key: {action name: probability}}``
  (the simultaneous solver: ``{position: {action name: probability}}`` at the positions where
  the player chooses); ``root_strategies``: per player name, its strategy at the start;
- ``bounds``: the first player's value bracketed, proven (equal ends when exact);
- ``exploitability`` and ``nash_conv`` of the strategies as returned: exact Fractions from the
  exact solvers (0 at a verified equilibrium), floats from the iterative ones (computed exactly,
  then rounded: the solver's own result keeps the exact numbers); ``iterations`` for the
  iterative solvers, whose ``values`` are what the returned strategies earn, rounded to
  ``APPROXIMATE_DIGITS`` decimals (``proven`` is False);
- ``note``: how the answer was found or checked, in a sentence; ``solution``: the solver's own
  result object.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from gdl.protocol import Value
from gdl.solvers.result import SolverError, SolveResult, Stats
from gdl.solvers.wide import CFR, CFR_PLUS, MCCFR, SEQUENCE_FORM, SIMULTANEOUS_SOLVER

WIDE_ALGORITHMS = (SIMULTANEOUS_SOLVER, SEQUENCE_FORM, CFR_PLUS, MCCFR, CFR)
DEFAULT_ITERATIONS = {CFR_PLUS: 1_000, CFR: 1_000, MCCFR: 100_000}
APPROXIMATE_DIGITS = 12


def solve_wide(game: Any, algorithm: str, *, iterations: int | None = None, seed: int = 0,
               target: float | None = None, max_seconds: float | None = None,
               progress: Callable[[str, int], None] | None = None) -> SolveResult:
    """Run one of ``WIDE_ALGORITHMS`` on ``game``. ``progress(what, n)`` is called now and
    then on long work: the positions or histories walked so far, or the iterations done."""
    if algorithm == SIMULTANEOUS_SOLVER:
        return _simultaneous(game, progress)
    if algorithm == SEQUENCE_FORM:
        return _sequence_form(game, progress)
    count = DEFAULT_ITERATIONS[algorithm] if iterations is None else iterations
    if algorithm == MCCFR:
        return _mccfr(game, count, seed, max_seconds, progress)
    if algorithm in (CFR_PLUS, CFR):
        return _cfr(game, algorithm, count, target, max_seconds, progress)
    raise SolverError(f"unknown algorithm {algorithm!r}")


def _names(game: Any, strategy: dict) -> dict:
    return {key: {game.action_name(a): p for a, p in probs.items()}
            for key, probs in strategy.items()}


def _root_strategies(game: Any, strategies: tuple[dict, ...]) -> dict[str, dict[str, Any]]:
    """Each player's strategy at the start, if it chooses there (its first information state)."""
    from gdl.solvers import information

    state = game.initial_state()
    keys = information.start(game, state)
    out = {}
    for p in information.acting(game, state):
        found = strategies[p].get(keys[p])
        if found is not None:
            out[game.info.players[p]] = {game.action_name(a): v for a, v in found.items()}
    return out


def _support(game: Any, root: dict[str, dict[str, Any]]) -> tuple:
    """The actions of the first chooser that its strategy plays at the start."""
    from gdl.solvers import information

    state = game.initial_state()
    acting = information.acting(game, state)
    if not acting:
        return ()
    first = acting[0]
    mine = root.get(game.info.players[first], {})
    return tuple(a for a in information.actions_of(game, state, first)
                 if mine.get(game.action_name(a), 0) > 0)


def _pair(value: Fraction, total: Value) -> tuple[Value, Value]:
    return (_plain(value), _plain(Fraction(total) - value))


def _plain(x: Fraction) -> Value:
    return x.numerator if x.denominator == 1 else x


def _rounded(x: Fraction) -> Value:
    """An approximate value on a grid of 10^-APPROXIMATE_DIGITS: the exact value of a float
    strategy has thousands of digits, which say nothing more."""
    scale = 10 ** APPROXIMATE_DIGITS
    return _plain(Fraction(round(x * scale), scale))


def _simultaneous(game: Any, progress: Callable[[str, int], None] | None = None) -> SolveResult:
    from gdl.solvers.simultaneous import solve_simultaneous

    solution = solve_simultaneous(game, progress=progress)
    low, high = solution.root_bounds
    names = game.info.players
    per_player: dict[str, dict] = {name: {} for name in names}
    for state, by_player in solution.strategies.items():
        for p, strategy in by_player.items():
            per_player[names[p]][state] = {game.action_name(a): v for a, v in strategy.items()}
    root = {names[p]: {game.action_name(a): v for a, v in s.items()}
            for p, s in solution.strategies.get(solution.root, {}).items()}
    single = solution.optimal_actions.get(solution.root)
    value = solution.value if solution.exact else (low + high) / 2
    assert value is not None
    pair = _pair(value, solution.total) if solution.exact else (
        _rounded(value), _rounded(Fraction(solution.total) - value))
    return SolveResult(
        values=pair,
        best_actions=single if single is not None else _support(game, root),
        pv=(), algorithm=SIMULTANEOUS_SOLVER, stats=Stats(nodes=len(solution.bounds)),
        proven=solution.exact,
        extra={"exact": solution.exact, "bounds": (low, high), "strategies": per_player,
               "root_strategies": root, "note": solution.note, "solution": solution})


def _sequence_form(game: Any, progress: Callable[[str, int], None] | None = None) -> SolveResult:
    from gdl.solvers.sequence_form import solve_sequence_form

    solution = solve_sequence_form(game, progress=progress)
    check = solution.exploitability
    strategies = {name: _names(game, s) for name, s in zip(game.info.players, solution.strategies)}
    root = _root_strategies(game, solution.strategies)
    value = solution.value if solution.exact else Fraction(solution.lp_value)
    assert value is not None
    return SolveResult(
        values=_pair(value, solution.total), best_actions=_support(game, root), pv=(),
        algorithm=SEQUENCE_FORM, stats=Stats(nodes=solution.form.histories),
        proven=solution.exact,
        extra={"exact": solution.exact, "bounds": solution.bounds, "lp_value": solution.lp_value,
               "strategies": strategies, "root_strategies": root,
               "exploitability": check.exploitability, "nash_conv": check.nash_conv,
               "information_states": solution.form.num_infosets, "note": solution.note,
               "seconds": solution.seconds, "solution": solution})


def _cfr(game: Any, algorithm: str, iterations: int, target: float | None,
         max_seconds: float | None, progress: Callable[[str, int], None] | None = None) -> SolveResult:
    from gdl.solvers.cfr import cfr, cfr_plus

    run = cfr_plus if algorithm == CFR_PLUS else cfr
    result = run(game, iterations=iterations, target=target, max_seconds=max_seconds,
                 progress=progress)
    check = result.exploitability
    root = _root_strategies(game, result.strategies)
    return SolveResult(
        values=tuple(_rounded(v) for v in check.values), best_actions=_support(game, root), pv=(),
        algorithm=algorithm, stats=Stats(nodes=result.form.histories), proven=False,
        extra={"exact": False, "iterations": result.iterations,
               "exploitability": float(check.exploitability), "nash_conv": float(check.nash_conv),
               "strategies": {name: _names(game, s)
                              for name, s in zip(game.info.players, result.strategies)},
               "root_strategies": root, "information_states": result.form.num_infosets,
               "note": f"approximate: average strategy after {result.iterations:,} iterations; "
                       "exploitability and NashConv exact for that strategy",
               "solution": result})


def _mccfr(game: Any, iterations: int, seed: int, max_seconds: float | None,
           progress: Callable[[str, int], None] | None = None) -> SolveResult:
    from gdl.solvers.mccfr import outcome_sampling

    result = outcome_sampling(game, iterations=iterations, seed=seed, max_seconds=max_seconds,
                              progress=progress)
    check = result.exploitability
    root = _root_strategies(game, result.strategies)
    values: tuple[Value, ...] = (tuple(_rounded(v) for v in check.values) if check is not None
                                 else ())
    extra: dict[str, Any] = {
        "exact": False, "iterations": result.iterations, "seed": seed,
        "strategies": {name: _names(game, s)
                       for name, s in zip(game.info.players, result.strategies)},
        "root_strategies": root, "information_states": result.infosets,
        "note": f"approximate: outcome-sampling MCCFR, {result.iterations:,} iterations, seed "
                f"{seed}; {result.note}", "solution": result}
    if check is not None:
        extra["exploitability"] = float(check.exploitability)
        extra["nash_conv"] = float(check.nash_conv)
    return SolveResult(values=values, best_actions=_support(game, root), pv=(), algorithm=MCCFR,
                       stats=Stats(), proven=False, extra=extra)
