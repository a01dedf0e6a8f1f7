"""Square linear systems solved exactly over the rationals.

Two ways, the same answer:
- ``python-flint`` (extra ``imperfect``), when installed: FLINT's rational matrices in C
  (Dixon's p-adic lifting), for systems of thousands of unknowns.
- ``Fraction``s otherwise: sparse Gaussian elimination, each step pivoting on the shortest row
  and, in it, the column met in fewest rows (Markowitz's rule, which keeps the fill-in of
  the sparse, tree-shaped systems of the sequence form small).

A singular system raises ``SingularSystem``; the caller decides what that means.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

FLINT_HINT = "pip install 'gdl[imperfect]' (or: pip install python-flint)"


class SingularSystem(Exception):
    """The matrix has no inverse."""


def flint_available() -> bool:
    try:
        import flint  # noqa: F401
    except ImportError:
        return False
    return True


SparseRow = dict[int, Fraction]


def solve(rows: Sequence[SparseRow], rhs: Sequence[Fraction], use_flint: bool | None = None
          ) -> list[Fraction]:
    """The ``x`` with ``sum(row[j] * x[j]) == rhs[i]`` for every row ``i``; the system is square
    (as many rows as unknowns, numbered 0..n-1). ``use_flint``: None picks FLINT when installed."""
    n = len(rows)
    if len(rhs) != n:
        raise ValueError("need as many right-hand sides as rows")
    if use_flint is None:
        use_flint = flint_available()
    if use_flint:
        return _solve_flint(rows, rhs)
    return _solve_sparse(rows, rhs)


def transpose(rows: Sequence[SparseRow], n: int) -> list[SparseRow]:
    """The rows of the transposed ``n``-column matrix."""
    columns: list[SparseRow] = [{} for _ in range(n)]
    for i, row in enumerate(rows):
        for j, v in row.items():
            columns[j][i] = v
    return columns


def _solve_flint(rows: Sequence[SparseRow], rhs: Sequence[Fraction]) -> list[Fraction]:
    import flint

    n = len(rows)
    if n == 0:
        return []
    dense = [0] * (n * n)
    for i, row in enumerate(rows):
        for j, v in row.items():
            dense[i * n + j] = flint.fmpq(v.numerator, v.denominator)
    matrix = flint.fmpq_mat(n, n, dense)
    vector = flint.fmpq_mat(n, 1, [flint.fmpq(v.numerator, v.denominator) for v in rhs])
    try:
        x = matrix.solve(vector, algorithm="dixon")
    except ZeroDivisionError as e:
        raise SingularSystem(str(e)) from None
    out = []
    for i in range(n):
        q = x[i, 0]
        out.append(Fraction(int(q.p), int(q.q)))
    return out


def _solve_sparse(rows: Sequence[SparseRow], rhs: Sequence[Fraction]) -> list[Fraction]:
    n = len(rows)
    work = [{j: Fraction(v) for j, v in row.items() if v} for row in rows]
    right = [Fraction(v) for v in rhs]
    where: list[set[int]] = [set() for _ in range(n)]     # column -> rows holding it
    for i, row in enumerate(work):
        for j in row:
            if not 0 <= j < n:
                raise ValueError(f"column {j} outside a square system of {n}")
            where[j].add(i)
    live = set(range(n))
    order: list[tuple[int, int]] = []                      # (row, column) pivots in turn
    while live:
        r = min(live, key=lambda i: (len(work[i]), i))
        row = work[r]
        if not row:
            raise SingularSystem("a row became zero")
        c = min(row, key=lambda j: (len(where[j]), j))
        live.discard(r)
        pivot = row[c]
        for i in list(where[c]):
            if i == r or i not in live:
                continue
            other = work[i]
            f = other[c] / pivot
            for j, v in row.items():
                new = other.get(j, 0) - f * v
                if new:
                    if j not in other:
                        where[j].add(i)
                    other[j] = new
                elif j in other:
                    del other[j]
                    where[j].discard(i)
            right[i] -= f * right[r]
        order.append((r, c))
    x = [Fraction(0)] * n
    for r, c in reversed(order):
        row = work[r]
        total = right[r] - sum((v * x[j] for j, v in row.items() if j != c), Fraction(0))
        x[c] = total / row[c]
    return x
