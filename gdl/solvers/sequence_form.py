"""Two-player zero-sum games with hidden information, solved exactly: the sequence-form linear
program (Koller, Megiddo & von Stengel 1996), solved in floating point by HiGHS, then verified
in rationals.

The program. In sequence form (``gdl.solvers.extensive``) the first player's strategy is a
realization plan ``x >= 0`` with ``E x = e`` (the empty sequence has probability 1; at each of
its information states the actions' probabilities add up to the probability of the sequence
leading there), the second's is ``y >= 0`` with ``F y = f``, and the first player's expected
utility is ``x^T A y`` (``A[s0][s1]``: the chance-weighted utility of the plays ending on the
sequences ``s0`` and ``s1``). Dualising the second player's best response gives

    maximise  q[0]   subject to   F^T q - A^T x <= 0,   E x = e,   x >= 0,   q free

(``q``: one variable per information state of the second player, and one for the start). Its
optimum is the value; its duals on the first family of rows are the second player's optimal
``y``, and on the second family the ``p`` of the second player's program (minimise ``p[0]``
subject to ``E^T p - A y >= 0``, ``F y = f``, ``y >= 0``).

The verification. HiGHS returns floats and an optimal basis. The basis is re-solved exactly: the
basic variables from the tight rows (``B z = b``), the duals of the tight rows from the basic
columns (``B^T w = c``), by sparse elimination in rationals (``gdl.solvers.rational``; FLINT's
numbers, or its dense solver for a basis that fills in, where python-flint is installed). Then,
exactly, with no reference to the LP solver:

1. ``x >= 0``, ``E x = e`` and ``F^T q <= A^T x``: for every strategy ``y'`` of the second
   player, ``x^T A y' >= q^T F y' = q[0]``. The first player guarantees ``q[0]``.
2. ``y >= 0``, ``F y = f`` and ``E^T p >= A y``: for every ``x'``, ``x'^T A y <= p[0]``. The
   second player holds the first to ``p[0]``.
3. ``q[0] == p[0]``: that number is the value, and ``(x, y)`` is an equilibrium.

Both plans are turned into behaviour strategies and their exploitability is computed exactly
(``gdl.solvers.exploitability``): it must be 0, a second check by a different route.

When the exact check cannot be made or fails (a basis singular in exact arithmetic, one that
fills in too much without python-flint, or HiGHS's tolerances leaving a basis that is not
exactly optimal), the answer says so: the LP's float value labelled approximate, and the value
bracketed exactly by the best responses to the float strategies (``bounds``, certified).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Hashable
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from gdl.protocol import Action, Value
from gdl.solvers import extensive, rational
from gdl.solvers.exploitability import Exploitability, exact_behaviour, profile_exploitability
from gdl.solvers.result import SolverError
from gdl.solvers.wide import require_two_zero_sum

ALGORITHM = "sequence-form"
HIGHS_HINT = "pip install 'gdl[imperfect]' (or: pip install highspy)"


@dataclass
class SequenceFormSolution:
    """The answer. ``exact``: ``value`` is the exact value for the first player and
    ``strategies`` an equilibrium (verified as the module docstring says); otherwise
    ``value`` is None, ``lp_value`` is HiGHS's float objective (approximate) and ``bounds``
    brackets the value, proven by exact best responses to the returned strategies."""

    exact: bool
    value: Fraction | None
    lp_value: float
    bounds: tuple[Fraction, Fraction]
    strategies: tuple[dict[Hashable, dict[Action, Fraction]], ...]
    exploitability: Exploitability
    total: Value
    note: str
    form: extensive.ExtensiveForm
    seconds: dict[str, float] = field(default_factory=dict)


def highs_available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def solve_sequence_form(game: Any, *, max_histories: int = extensive.DEFAULT_MAX_HISTORIES,
                        verify: bool = True, use_flint: bool | None = None,
                        progress: Callable[[str, int], None] | None = None) -> SequenceFormSolution:
    """Solve a two-player zero-sum (or constant-sum) game with hidden information or
    simultaneous moves exactly (module docstring). ``verify=False`` skips the exact re-solve
    (the answer is then labelled approximate, with its certified bounds)."""
    info = game.info
    total = require_two_zero_sum(info, ALGORITHM)
    if not highs_available():
        raise SolverError(f"{ALGORITHM}: the linear program is solved by HiGHS, which is not "
                          f"installed: {HIGHS_HINT}")
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    form = extensive.build(game, max_histories=max_histories, algorithm=ALGORITHM,
                           progress=progress)
    seconds["build"] = time.perf_counter() - started
    program = _Program(form, total)
    started = time.perf_counter()
    lp_value, float_x, float_y, basis = program.solve_float()
    seconds["lp"] = time.perf_counter() - started
    started = time.perf_counter()
    verified, note = (None, "exact verification not asked for")
    if verify:
        verified, note = program.verify(basis, use_flint)
    seconds["verify"] = time.perf_counter() - started
    started = time.perf_counter()
    if verified is not None:
        _, x, y = verified
        behaviours = [extensive.behaviour_from_plan(tree, plan)
                      for tree, plan in zip(form.players, (x, y))]
    else:
        behaviours = [exact_behaviour(_float_behaviour(tree, plan), tree)
                      for tree, plan in zip(form.players, (float_x, float_y))]
    check = profile_exploitability(form, behaviours)
    seconds["exploitability"] = time.perf_counter() - started
    bounds = check.bounds(total)
    exact = verified is not None
    if verified is not None and (check.nash_conv != 0 or bounds != (verified[0], verified[0])):
        # Cannot happen when the checks above hold; a failure here is a bug to report.
        exact, note = False, (f"the verified plans have exploitability {check.exploitability} "
                              "as behaviour strategies: not an equilibrium")
    strategies = tuple(extensive.behaviour_as_dict(tree, b)
                       for tree, b in zip(form.players, behaviours))
    return SequenceFormSolution(exact, bounds[0] if exact else None, lp_value, bounds,
                                strategies, check, total, note, form, seconds)


def _float_behaviour(tree: extensive.PlayerTree, plan: np.ndarray) -> list[float]:
    """Behaviour probabilities from a float realization plan (negative noise clipped; where the
    parent is never reached, the first action)."""
    behaviour = [1.0] * tree.num_sequences
    for i in range(tree.num_infosets):
        seqs = tree.sequences_of(i)
        probs = [max(float(plan[s]), 0.0) for s in seqs]
        total = sum(probs)
        for k, s in enumerate(seqs):
            behaviour[s] = probs[k] / total if total > 0 else float(k == 0)
    return behaviour


class _Program:
    """The linear program of the module docstring, its float solve and its exact check.

    Columns: ``x`` (the first player's sequences), then ``q`` (0: the start, 1 + j: the second
    player's information state j). Rows: one per sequence of the second player (``F^T q - A^T x
    <= 0``), then one per constraint of ``E`` (0: the start, 1 + i: information state i)."""

    def __init__(self, form: extensive.ExtensiveForm, total: Value):
        self.form = form
        first, second = form.players
        self.s0, self.s1 = first.num_sequences, second.num_sequences
        self.i0, self.i1 = first.num_infosets, second.num_infosets
        self.columns = self.s0 + self.i1 + 1
        self.rows = self.s1 + self.i0 + 1
        # A: the first player's chance-weighted utility per pair of sequences (a constant sum is
        # the same game: the second player's utility is the total minus the first's).
        payoff: dict[tuple[int, int], Fraction] = {}
        seqs = form.leaf_sequences.tolist()
        for z, chance in enumerate(form.leaf_chance):
            key = (seqs[0][z], seqs[1][z])
            payoff[key] = payoff.get(key, Fraction(0)) + chance * Fraction(form.leaf_utility[z][0])
        self.payoff = {k: v for k, v in payoff.items() if v}
        self.total = total
        self.matrix = self._rows()          # exact, sparse: row -> {column: coefficient}

    def _constraint_rows(self, tree: extensive.PlayerTree) -> list[dict[int, Fraction]]:
        """E (or F): row 0 says the empty sequence has probability 1; row 1 + i says
        information state i's sequences add up to its parent's."""
        rows: list[dict[int, Fraction]] = [{0: Fraction(1)}]
        for i in range(tree.num_infosets):
            row = {s: Fraction(1) for s in tree.sequences_of(i)}
            row[tree.parent[i]] = Fraction(-1)
            rows.append(row)
        return rows

    def _rows(self) -> list[dict[int, Fraction]]:
        first, second = self.form.players
        rows: list[dict[int, Fraction]] = [{} for _ in range(self.rows)]
        for k, f_row in enumerate(self._constraint_rows(second)):   # F^T q: column s1, row k
            for s1, v in f_row.items():
                rows[s1][self.s0 + k] = v
        for (s0, s1), a in self.payoff.items():                       # - A^T x
            rows[s1][s0] = -a
        for k, e_row in enumerate(self._constraint_rows(first)):     # E x = e
            rows[self.s1 + k] = dict(e_row)
        return rows

    def variable_and_row_bounds(self) -> tuple[list[float], list[float], list[float], list[float]]:
        inf = float("inf")
        col_lower = [0.0] * self.s0 + [-inf] * (self.i1 + 1)
        col_upper = [inf] * self.columns
        row_lower = [-inf] * self.s1 + [1.0] + [0.0] * self.i0
        row_upper = [0.0] * self.s1 + [1.0] + [0.0] * self.i0
        return col_lower, col_upper, row_lower, row_upper

    def right_hand_side(self, row: int) -> Fraction:
        return Fraction(int(row == self.s1))        # E x = e: only the start's row is 1

    def solve_float(self) -> tuple[float, np.ndarray, np.ndarray, Any]:
        import highspy

        with _quiet_stdout():
            h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = self.columns, self.rows
        cost = np.zeros(self.columns)
        cost[self.s0] = 1.0
        col_lower, col_upper, row_lower, row_upper = self.variable_and_row_bounds()
        lp.col_cost_ = cost
        lp.col_lower_ = np.array(col_lower)
        lp.col_upper_ = np.array(col_upper)
        lp.row_lower_ = np.array(row_lower)
        lp.row_upper_ = np.array(row_upper)
        lp.sense_ = highspy.ObjSense.kMaximize
        by_column: list[list[tuple[int, float]]] = [[] for _ in range(self.columns)]
        for r, row in enumerate(self.matrix):
            for c, coefficient in row.items():
                by_column[c].append((r, float(coefficient)))
        starts, index, value = [0], [], []
        for entries in by_column:
            for r, number in entries:
                index.append(r)
                value.append(number)
            starts.append(len(index))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value)
        h.passModel(lp)
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"{ALGORITHM}: HiGHS did not find an optimum "
                              f"({h.modelStatusToString(status)})")
        solution = h.getSolution()
        x = np.array(solution.col_value[:self.s0])
        duals = np.abs(np.array(solution.row_dual[:self.s1]))   # y, whatever HiGHS's sign
        return float(h.getInfo().objective_function_value), x, duals, h.getBasis()

    def verify(self, basis: Any, use_flint: bool | None
               ) -> tuple[tuple[Fraction, list[Fraction], list[Fraction]] | None, str]:
        """Re-solve the basis exactly and check it (module docstring): ``((value, x, y), how)``
        or ``(None, why not)``."""
        import highspy

        basic = highspy.HighsBasisStatus.kBasic
        if not basis.valid:
            return None, "HiGHS returned no valid basis"
        basic_columns = [c for c, s in enumerate(basis.col_status) if s == basic]
        tight_rows = [r for r, s in enumerate(basis.row_status) if s != basic]
        if len(basic_columns) != len(tight_rows):
            return None, (f"the basis has {len(basic_columns)} basic columns for "
                          f"{len(tight_rows)} tight rows")
        where = {c: k for k, c in enumerate(basic_columns)}
        system = [{where[c]: v for c, v in self.matrix[r].items() if c in where}
                  for r in tight_rows]
        try:
            values, how = rational.solve(system, [self.right_hand_side(r) for r in tight_rows],
                                         use_flint)
            cost = [Fraction(int(c == self.s0)) for c in basic_columns]
            duals, _ = rational.solve(rational.transpose(system, len(basic_columns)), cost,
                                      use_flint)
        except rational.SingularSystem:
            return None, "the basis HiGHS returned is singular in exact arithmetic"
        except rational.TooDense:
            return None, ("the basis fills in too much for a sparse exact solve; python-flint "
                          f"solves it densely in C: {rational.FLINT_HINT}")
        z = [Fraction(0)] * self.columns
        for c, v in zip(basic_columns, values):
            z[c] = v
        w = [Fraction(0)] * self.rows
        for r, v in zip(tight_rows, duals):
            w[r] = v
        x, q = z[:self.s0], z[self.s0:]
        y, p = w[:self.s1], w[self.s1:]
        problem = self._check(x, q, y, p)
        if problem is not None:
            return None, f"the exact re-solve of HiGHS's basis is not optimal: {problem}"
        return (q[0], x, y), (f"optimal basis re-solved exactly ({how}, {len(basic_columns):,} "
                              "basic variables); primal and dual feasible, equal objectives")

    def _check(self, x: list[Fraction], q: list[Fraction], y: list[Fraction], p: list[Fraction]
               ) -> str | None:
        """Points 1-3 of the module docstring, exactly; None when all hold."""
        first, second = self.form.players
        if any(v < 0 for v in x):
            return "the first player's plan has a negative entry"
        if any(v < 0 for v in y):
            return "the second player's plan has a negative entry"
        for name, tree, plan in (("first", first, x), ("second", second, y)):
            for k, row in enumerate(self._constraint_rows(tree)):
                if sum((v * plan[s] for s, v in row.items()), Fraction(0)) != int(k == 0):
                    return f"the {name} player's plan breaks its constraint {k}"
        f_rows = self._constraint_rows(second)
        e_rows = self._constraint_rows(first)
        ftq = [Fraction(0)] * self.s1                  # F^T q
        for k, row in enumerate(f_rows):
            for s1, v in row.items():
                ftq[s1] += v * q[k]
        etp = [Fraction(0)] * self.s0                  # E^T p
        for k, row in enumerate(e_rows):
            for s0, v in row.items():
                etp[s0] += v * p[k]
        atx = [Fraction(0)] * self.s1
        ay = [Fraction(0)] * self.s0
        for (s0, s1), a in self.payoff.items():
            atx[s1] += a * x[s0]
            ay[s0] += a * y[s1]
        if any(ftq[s] > atx[s] for s in range(self.s1)):
            return "the first player's plan does not guarantee q[0]"
        if any(etp[s] < ay[s] for s in range(self.s0)):
            return "the second player's plan does not hold the first to p[0]"
        if q[0] != p[0]:
            return f"the two guarantees differ ({q[0]} and {p[0]})"
        return None


@contextmanager
def _quiet_stdout():
    """HiGHS prints a banner on the standard output from C++ the first time a solver is made:
    keep it out of gdl's output (a JSON document, say)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):          # no real descriptor (captured output): nothing to do
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            try:
                yield
            finally:
                os.dup2(saved, 1)
    finally:
        os.close(saved)
