"""Zero-sum matrix games solved exactly: the value and an optimal mixed strategy for each
player, in ``Fraction``s.

The row player maximises ``x^T A y``, the column player minimises it. With every entry shifted to
at least 1 (``B = A - min A + 1``, so the value ``v'`` of ``B`` is positive) the column player's
problem is the linear program

    maximise  sum(y')   subject to  B y' <= 1,  y' >= 0

whose slack basis is feasible from the start, so one phase of the simplex method suffices (von
Neumann's reduction; e.g. Karlin, *Mathematical Methods and Theory in Games*, 1959). At the
optimum ``sum(y') = 1 / v'``; ``y = v' y'`` is optimal for the column player, and the row
player's optimal strategy is ``v'`` times the duals of the rows, read off the final tableau.
The pivots are exact (``Fraction``) and follow Bland's rule, which cannot cycle.

Every answer is checked before it is returned: ``x`` must guarantee at least the value against
every column and ``y`` at most the value against every row, exactly. That check is the proof
of optimality (each strategy guarantees what the other concedes), independent of the simplex.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from gdl.protocol import Value
from gdl.solvers.result import SolverError


@dataclass(frozen=True)
class MatrixGameSolution:
    """The value of a zero-sum matrix game to the row player, and optimal mixed strategies:
    ``row`` guarantees at least ``value`` against every column, ``column`` at most ``value``
    against every row (both checked exactly)."""

    value: Fraction
    row: tuple[Fraction, ...]
    column: tuple[Fraction, ...]


def solve_matrix_game(matrix: Sequence[Sequence[Value]]) -> MatrixGameSolution:
    """The exact value and optimal strategies of the zero-sum game ``matrix`` (rows: the
    maximiser's actions, columns: the minimiser's)."""
    a = [[Fraction(v) for v in row] for row in matrix]
    m = len(a)
    n = len(a[0]) if m else 0
    if m == 0 or n == 0 or any(len(row) != n for row in a):
        raise SolverError("a matrix game needs a non-empty rectangular matrix")
    shift = 1 - min(min(row) for row in a)
    b = [[v + shift for v in row] for row in a]
    y_scaled, duals = _simplex(b)
    total = sum(y_scaled, Fraction(0))
    scaled_value = 1 / total                # the value of B, positive since B >= 1
    column = tuple(v * scaled_value for v in y_scaled)
    row = tuple(v * scaled_value for v in duals)
    value = scaled_value - shift
    solution = MatrixGameSolution(value, row, column)
    problem = check_solution(a, solution)
    if problem is not None:                 # a bug, not a property of the game: never hide it
        raise SolverError(f"matrix game: the simplex's answer failed its exact check: {problem}")
    return solution


def check_solution(matrix: Sequence[Sequence[Fraction]], solution: MatrixGameSolution
                   ) -> str | None:
    """What is wrong with ``solution`` for ``matrix``, or None when it is proven optimal: both
    strategies are distributions, the row strategy earns at least the value against every
    column and the column strategy concedes at most the value against every row."""
    x, y, v = solution.row, solution.column, solution.value
    for name, s in (("row", x), ("column", y)):
        if any(p < 0 for p in s) or sum(s, Fraction(0)) != 1:
            return f"the {name} strategy is not a probability distribution"
    worst = min(sum((x[i] * row[j] for i, row in enumerate(matrix)), Fraction(0))
                for j in range(len(y)))
    best = max(sum((y[j] * e for j, e in enumerate(row)), Fraction(0)) for row in matrix)
    if worst != v or best != v:
        return f"the row strategy guarantees {worst}, the column strategy concedes {best}, not {v}"
    return None


def _simplex(b: list[list[Fraction]]) -> tuple[list[Fraction], list[Fraction]]:
    """Maximise sum(y) subject to b y <= 1, y >= 0, for a matrix of positive entries (so the
    problem is feasible, bounded, and starts from the slack basis). Returns the optimal ``y``
    and the optimal duals of the rows."""
    m, n = len(b), len(b[0])
    width = n + m
    # Rows of the tableau: the coefficients of y (0..n-1) and of the slacks (n..n+m-1), then the
    # right-hand side; ``cost`` holds the reduced costs, ``objective`` the current sum(y).
    rows = [b[i] + [Fraction(int(k == i)) for k in range(m)] + [Fraction(1)] for i in range(m)]
    basis = [n + i for i in range(m)]
    cost = [Fraction(1)] * n + [Fraction(0)] * m
    while True:
        entering = next((j for j in range(width) if cost[j] > 0), None)   # Bland: lowest index
        if entering is None:
            break
        leaving, best_ratio = None, Fraction(0)
        for i in range(m):
            pivot = rows[i][entering]
            if pivot > 0:
                ratio = rows[i][-1] / pivot
                if (leaving is None or ratio < best_ratio
                        or (ratio == best_ratio and basis[i] < basis[leaving])):
                    leaving, best_ratio = i, ratio
        if leaving is None:                 # cannot happen: b > 0 bounds every y
            raise SolverError("matrix game: the linear program is unbounded")
        _pivot(rows, cost, leaving, entering)
        basis[leaving] = entering
    y = [Fraction(0)] * n
    for i, var in enumerate(basis):
        if var < n:
            y[var] = rows[i][-1]
    duals = [-cost[n + i] for i in range(m)]
    return y, duals


def _pivot(rows: list[list[Fraction]], cost: list[Fraction], r: int, c: int) -> None:
    pivot_row = rows[r]
    factor = pivot_row[c]
    pivot_row[:] = [v / factor for v in pivot_row]
    nonzero = [(k, v) for k, v in enumerate(pivot_row) if v]
    for i, row in enumerate(rows):
        if i != r and row[c]:
            f = row[c]
            for k, v in nonzero:
                row[k] -= f * v
    f = cost[c]
    if f:
        for k, v in nonzero:
            if k < len(cost):
                cost[k] -= f * v
