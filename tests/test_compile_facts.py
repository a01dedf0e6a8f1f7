"""What the Python compiler proves about expressions (gdl.backends.pycompile.optimize), tested alone.

Each optimisation gets small expressions; the expected answers come from elsewhere: Python's own
arithmetic and comparisons on the same numbers, evaluated for every value an operand can take, or
the reference semantics (gdl.lang.evaluate) for whole rules. A fold is right when the compiled
text, run for every value, gives what Python (or the interpreter) gives; a constant result must
be that value for every one of them. Facts are checked both ways: everything they claim holds
(soundness), and they claim no more than the guard says (the `x >= k` read as `x >= k + 1` kind
of slip).
"""

from __future__ import annotations

import itertools
import operator
from fractions import Fraction

import pytest

from gdl.backends.pycompile import optimize
from gdl.backends.pycompile.emit import Emitter
from gdl.backends.pycompile.pyexpr import P, Temporaries, const, name, node
from gdl.errors import Source
from gdl.lang.check import check
from gdl.lang.evaluate import EvalError, expr_fn
from gdl.lang.parse import parse

PY_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
              "==": operator.eq, "!=": operator.ne}
PY_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
            "%": operator.mod}


class Failed(Exception):
    """A located error raised by the generated code's helpers (here: just its code)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def _div(a, b, site):
    if b == 0:
        raise Failed("E302")
    return a // b


def _mod(a, b, site):
    if b == 0:
        raise Failed("E302")
    return a % b


def _exact(a, b, site):
    if b == 0:
        raise Failed("E302")
    return Fraction(a, b)


def _e303(index, site):
    raise Failed("E303")


HELPERS = {"__builtins__": {"abs": abs, "min": min, "max": max, "any": any, "all": all},
           "_div": _div, "_mod": _mod, "_exact": _exact, "_e303": _e303, "_Fraction": Fraction,
           "_sum": sum}


def run(p: P, **values):
    """What the compiled text gives with the names bound: ("value", v) or ("error", code)."""
    try:
        return ("value", eval(p.text, dict(HELPERS), values))
    except Failed as failure:
        return ("error", failure.code)


def python(fn, *args):
    try:
        return ("value", fn(*args))
    except ZeroDivisionError:
        return ("error", "E302")


def x_in(values) -> P:
    return name("x", frozenset(values))


def y_in(values) -> P:
    return name("y", frozenset(values))


def unknown(text: str = "x") -> P:
    """An int whose values the compiler does not know."""
    return name(text)


def zero_site(message: str) -> int:
    return 0


def check_fold(p: P, expected, xs, ys=(None,)):
    """p agrees with ``expected(x, y)`` for every x in xs and y in ys; a constant p is that
    value everywhere; p.vals holds every value p takes."""
    for x, y in itertools.product(xs, ys):
        want = expected(x, y)
        got = ("value", p.const) if p.is_const else run(p, x=x, y=y)
        assert got == want, (p.text, x, y)
        if p.vals is not None and want[0] == "value":
            assert want[1] in p.vals, (p.text, x, y, sorted(p.vals))


# ---- comparisons ---------------------------------------------------------------------------------

WINDOWS = [range(-3, 4), range(0, 3), range(2, 5), range(3, 4), range(-5, -1)]


@pytest.mark.parametrize("op", sorted(PY_COMPARE))
@pytest.mark.parametrize("k", range(-4, 6))
@pytest.mark.parametrize("window", WINDOWS, ids=str)
def test_comparison_with_the_constant_on_either_side(op, k, window):
    fn = PY_COMPARE[op]
    right_const = optimize.compare(op, x_in(window), const(k), {})
    check_fold(right_const, lambda x, _: ("value", fn(x, k)), window)
    left_const = optimize.compare(op, const(k), x_in(window), {})
    check_fold(left_const, lambda x, _: ("value", fn(k, x)), window)
    # folded exactly when every value gives the same answer
    assert left_const.is_const == (len({fn(k, x) for x in window}) == 1)
    assert right_const.is_const == (len({fn(x, k) for x in window}) == 1)


@pytest.mark.parametrize("op", sorted(PY_COMPARE))
@pytest.mark.parametrize("k", range(-3, 4))
@pytest.mark.parametrize("constant_left", [False, True])
def test_what_a_comparison_tells_is_exactly_what_it_says(op, k, constant_left):
    """The bounds ``x op k`` (or ``k op x``) records for x hold exactly where it is true: not
    one step further (``x >= k`` is not ``x >= k + 1``), not one step short."""
    fn = PY_COMPARE[op]
    x = unknown()
    p = optimize.compare(op, const(k), x, {}) if constant_left else optimize.compare(op, x, const(k), {})
    holds = (lambda v: fn(k, v)) if constant_left else (lambda v: fn(v, k))
    fact = p.facts.get("x")
    if fact is None:
        assert op == "!=", "only != tells no bounds"
        return
    low, high = fact
    for v in range(-10, 11):
        inside = (low is None or v >= low) and (high is None or v <= high)
        assert inside == holds(v), (op, k, constant_left, fact, v)


def _both(first: P, second: P) -> P:
    return optimize.logical("and", first, second)


GUARDS_1_TO_5 = {   # three spellings of 1 <= x <= 5
    "x >= 1 and x <= 5": lambda: _both(optimize.compare(">=", unknown(), const(1), {}),
                                       optimize.compare("<=", unknown(), const(5), {})),
    "1 <= x and 5 >= x": lambda: _both(optimize.compare("<=", const(1), unknown(), {}),
                                       optimize.compare(">=", const(5), unknown(), {})),
    "x > 0 and 6 > x": lambda: _both(optimize.compare(">", unknown(), const(0), {}),
                                     optimize.compare(">", const(6), unknown(), {})),
}


@pytest.mark.parametrize("op", sorted(PY_COMPARE))
@pytest.mark.parametrize("k", range(-1, 8))
@pytest.mark.parametrize("guard", sorted(GUARDS_1_TO_5))
def test_a_guard_decides_later_comparisons_exactly(op, k, guard):
    """Under a guard that says 1 <= x <= 5, a comparison of x with k (on either side) folds
    exactly when every x in 1..5 gives the same answer, and then to that answer: the guard is
    read neither one step too far nor one step short."""
    facts = optimize.facts_when_true(GUARDS_1_TO_5[guard]())
    fn = PY_COMPARE[op]
    for p, holds in ((optimize.compare(op, unknown(), const(k), facts), lambda v: fn(v, k)),
                     (optimize.compare(op, const(k), unknown(), facts), lambda v: fn(k, v))):
        answers = {holds(v) for v in range(1, 6)}
        assert p.is_const == (len(answers) == 1), (guard, p.text)
        if p.is_const:
            assert answers == {p.const}, (guard, p.text)
        else:
            for v in range(1, 6):
                assert run(p, x=v) == ("value", holds(v))


def test_guards_prove_an_index_fits_and_no_more():
    in_range = optimize.logical("and", optimize.compare(">=", unknown(), const(0), {}),
                                optimize.compare("<", unknown(), const(3), {}))
    facts = optimize.facts_when_true(in_range)
    assert facts["x"] == (0, 2)
    assert optimize.proves(unknown(), 0, 2, facts)
    assert not optimize.proves(unknown(), 0, 1, facts)
    one_more = optimize.logical("and", optimize.compare(">=", unknown(), const(0), {}),
                                optimize.compare("<=", unknown(), const(3), {}))
    assert not optimize.proves(unknown(), 0, 2, optimize.facts_when_true(one_more))
    # a guard with the constant on the left: 3 > x is x <= 2
    mirrored = optimize.logical("and", optimize.compare("<=", const(0), unknown(), {}),
                                optimize.compare(">", const(3), unknown(), {}))
    assert optimize.facts_when_true(mirrored)["x"] == (0, 2)


def test_facts_merge_to_the_intersection():
    merged = optimize.merge_facts({"x": (0, None), "b": True}, {"x": (None, 5)}, {"x": (2, 9)})
    assert merged == {"x": (2, 5), "b": True}


def test_value_sets_decide_comparisons_only_when_evaluation_cannot_fail():
    may_fail = node("call", ("_div", (x_in(range(1, 4)), y_in(range(0, 2)), const(0))),
                    safe=False, vals=frozenset(range(0, 4)))
    p = optimize.compare(">=", may_fail, const(0), {})
    assert not p.is_const    # always true when it returns, but y == 0 must still raise
    assert run(p, x=2, y=0) == ("error", "E302")
    assert run(p, x=2, y=1) == ("value", True)


# ---- arithmetic ------------------------------------------------------------------------------------

OPERANDS = [-7, -4, -3, -2, -1, 0, 1, 2, 3, 5]


@pytest.mark.parametrize("op", sorted(PY_ARITH))
def test_arithmetic_on_constants_is_python_s(op):
    for a, b in itertools.product(OPERANDS, OPERANDS):
        p = optimize.arith(op, const(a), const(b), zero_site)
        want = python(PY_ARITH[op], a, b)
        got = ("value", p.const) if p.is_const else run(p)
        assert got == want, (a, op, b, p.text)


@pytest.mark.parametrize("op", sorted(PY_ARITH))
@pytest.mark.parametrize("k", OPERANDS)
def test_arithmetic_with_state_dependent_operands(op, k):
    """Floor division and modulo (and + - *) with negative operands and an operand that depends
    on the state, on either side, its value set known or not."""
    fn = PY_ARITH[op]
    xs = range(-6, 7)
    for x in (x_in(xs), unknown()):
        check_fold(optimize.arith(op, x, const(k), zero_site), lambda v, _: python(fn, v, k), xs)
        check_fold(optimize.arith(op, const(k), x, zero_site), lambda v, _: python(fn, k, v), xs)
    check_fold(optimize.arith(op, x_in(xs), y_in(range(-3, 4)), zero_site),
               lambda v, w: python(fn, v, w), xs, range(-3, 4))


def test_floor_division_and_modulo_keep_python_s_identity():
    """a == (a // b) * b + a % b for negative operands too, through the compiled text."""
    a, b = x_in(range(-9, 10)), y_in([-4, -3, -2, -1, 1, 2, 3, 4])
    quotient = optimize.arith("//", a, b, zero_site)
    rebuilt = optimize.arith("+", optimize.arith("*", quotient, b, zero_site),
                             optimize.arith("%", a, b, zero_site), zero_site)
    for v in range(-9, 10):
        for w in [-4, -3, -2, -1, 1, 2, 3, 4]:
            assert run(rebuilt, x=v, y=w) == ("value", v)
    assert optimize.arith("//", const(-7), const(2), zero_site).const == -4
    assert optimize.arith("%", const(-7), const(2), zero_site).const == 1


def test_a_divisor_that_may_be_zero_keeps_its_error():
    for op in ("//", "%"):
        p = optimize.arith(op, const(0), unknown("y"), zero_site)
        assert run(p, y=0) == ("error", "E302")
        p = optimize.arith(op, x_in([0]), const(0), zero_site)
        assert run(p, x=0) == ("error", "E302")
    p = optimize.exact_division(const(1), unknown("y"), zero_site)
    assert run(p, y=0) == ("error", "E302")
    assert run(p, y=-3) == ("value", Fraction(-1, 3))
    assert optimize.exact_division(const(-6), const(4), zero_site).const == Fraction(-3, 2)


def test_multiplying_by_zero_folds_only_what_cannot_fail():
    may_fail = optimize.arith("//", const(1), unknown("y"), zero_site)
    p = optimize.arith("*", may_fail, const(0), zero_site)
    assert not p.is_const
    assert run(p, y=0) == ("error", "E302")
    assert optimize.arith("*", unknown(), const(0), zero_site).const == 0


def test_negation_and_abs():
    xs = range(-4, 3)
    check_fold(optimize.negate(x_in(xs)), lambda v, _: ("value", -v), xs)
    check_fold(optimize.builtin("abs", [x_in(xs)]), lambda v, _: ("value", abs(v)), xs)
    check_fold(optimize.builtin("max", [x_in(xs), const(-1)]), lambda v, _: ("value", max(v, -1)), xs)
    assert optimize.builtin("min", [const(3), const(-2)]).const == -2
    with pytest.raises(AssertionError):
        optimize.builtin("__import__", [const(1)])


# ---- booleans --------------------------------------------------------------------------------------

BOOL = frozenset((False, True))


def b_name(text: str) -> P:
    return name(text, BOOL)


@pytest.mark.parametrize("op", ["and", "or"])
def test_and_or_with_a_known_operand(op):
    fn = (lambda a, b: a and b) if op == "and" else (lambda a, b: a or b)
    for known in (False, True):
        # the left operand known: either the right one alone, or the left decides
        left = const(known)
        if optimize.right_alone(op, left, {}):
            assert fn(known, False) is False and fn(known, True) is True
        else:
            decided = optimize.decided_by_left(op, left, {})
            assert decided is not None and decided.const == fn(known, False) == fn(known, True)
        # the right operand known
        p = optimize.logical(op, b_name("x"), const(known))
        check_fold(p, lambda v, _, k=known: ("value", fn(v, k)), (False, True))
    # a condition this path has established counts as known
    facts = {"x": True}
    assert optimize.right_alone("and", b_name("x"), facts)
    assert optimize.decided_by_left("or", b_name("x"), facts).const is True
    assert optimize.logical_not(b_name("x"), facts).const is False


@pytest.mark.parametrize("kind", ["any", "all"])
@pytest.mark.parametrize("n", range(0, 4))
def test_any_all_whose_every_term_is_constant(kind, n):
    fn = any if kind == "any" else all
    for values in itertools.product((False, True), repeat=n):
        p = optimize.fold_terms(kind, [const(v) for v in values])
        assert p.is_const and p.const == fn(values), (kind, values)


@pytest.mark.parametrize("kind", ["any", "all"])
def test_any_all_with_some_terms_constant(kind):
    fn = any if kind == "any" else all
    for values in itertools.product((False, True, "x", "y"), repeat=3):
        terms = [b_name(v) if isinstance(v, str) else const(v) for v in values]
        p = optimize.fold_terms(kind, terms)
        for x, y in itertools.product((False, True), repeat=2):
            bound = {"x": x, "y": y}
            want = fn(bound[v] if isinstance(v, str) else v for v in values)
            got = p.const if p.is_const else run(p, x=x, y=y)[1]
            assert got == want, (kind, values, p.text)


def test_a_constant_term_does_not_skip_an_earlier_failure():
    may_fail = optimize.compare("==", optimize.arith("//", const(1), unknown("y"), zero_site),
                                const(1), {})
    for kind, decisive in (("any", True), ("all", False)):
        p = optimize.fold_terms(kind, [may_fail, const(decisive)])
        assert not p.is_const
        assert run(p, y=0) == ("error", "E302")
        assert run(p, y=1) == ("value", decisive)


def test_count_sum_min_max_of_terms():
    xs = range(-2, 3)
    terms = [optimize.compare(">", x_in(xs), const(k), {}) for k in (-1, 0, 1)] + [const(True)]
    check_fold(optimize.fold_terms("count", terms),
               lambda v, _: ("value", sum(v > k for k in (-1, 0, 1)) + 1), xs)
    values = [x_in(xs), const(-3), optimize.negate(x_in(xs))]
    check_fold(optimize.fold_terms("sum", values), lambda v, _: ("value", v - 3 - v), xs)
    check_fold(optimize.fold_terms("min", values), lambda v, _: ("value", min(v, -3, -v)), xs)
    check_fold(optimize.fold_terms("max", values), lambda v, _: ("value", max(v, -3, -v)), xs)


# ---- common subexpressions -------------------------------------------------------------------------

def _costly(x: P) -> P:
    """x * x * x + 1: costly enough to be shared."""
    return optimize.arith("+", optimize.arith("*", optimize.arith("*", x, x), x), const(1))


def test_a_repeated_subexpression_is_computed_once_and_means_the_same():
    x = unknown()
    twice = optimize.arith("-", _costly(x), optimize.arith("*", _costly(x), const(2)))
    shared = optimize.cse(twice, Temporaries())
    assert shared.text.count(":=") == 1 and shared.text.count("x * x") == 1
    for v in range(-3, 4):
        assert run(shared, x=v) == run(twice, x=v) == ("value", -(v * v * v + 1))


def test_a_binding_made_on_one_path_is_not_read_on_another():
    """(x > 0 and c > 5) or c < 3: c is computed under x > 0 only, so the right operand of the
    `or` (reached also when x <= 0) must compute it again (reading the binding would fail)."""
    x = unknown()
    left = optimize.logical("and", optimize.compare(">", x, const(0), {}),
                            optimize.compare(">", _costly(x), const(5), {}))
    whole = optimize.logical("or", left, optimize.compare("<", _costly(x), const(3), {}))
    shared = optimize.cse(whole, Temporaries())
    for v in range(-3, 4):
        want = (v > 0 and v * v * v + 1 > 5) or v * v * v + 1 < 3
        assert run(shared, x=v) == ("value", want), shared.text


def test_if_branches_reuse_what_the_condition_computed():
    x = unknown()
    cond = optimize.compare(">", _costly(x), const(4), {})
    whole = optimize.conditional(cond, _costly(x), optimize.negate(_costly(x)))
    shared = optimize.cse(whole, Temporaries())
    assert shared.text.count("x * x") == 1
    for v in range(-3, 4):
        c = v * v * v + 1
        assert run(shared, x=v) == ("value", c if c > 4 else -c)


# ---- whole rules against the reference semantics -----------------------------------------------------

RULES = """game "facts"
players A, B
var n in -4..4 = 0
var m in -3..3 = 0
var cell[3] in 0..1 = 0
action go effect n = 1
terminal n == 1
utility A = {expr}
zero-sum
"""


def compiled_and_reference(expr: str):
    """The rule ``expr`` (the utility of a small game) compiled, and its IR, with the states:
    every value of n and m (cell all zero but cell[1] == 1)."""
    text = RULES.format(expr=expr)
    source = Source("<facts>", text)
    game = check(parse(text, "<facts>"), source)
    rule = game.utilities[0]
    p = Emitter(game, source).rule_expr(rule, "s", Temporaries())
    slots = {v.name: v.slot for v in game.variables}
    states = []
    for n, m in itertools.product(range(-4, 5), range(-3, 4)):
        state = list(game.initial)
        state[slots["n"]], state[slots["m"]], state[slots["cell"] + 1] = n, m, 1
        states.append(tuple(state))
    return p, rule, states


def reference(rule, state):
    try:
        return ("value", expr_fn(rule)(state, {}))
    except EvalError as error:
        return ("error", error.code)


@pytest.mark.parametrize("expr", [
    "n // m", "n % m", "n // -2", "n % -3", "-7 // m", "-7 % m", "(n - 3) // 2 + m % -2",
    "(n * m) // (m - 1)", "0 // m", "n // m * m + n % m",
    "n / m", "(n - 3) / 2 + m", "n / m * m",
    "1 if 2 < n and n <= 3 else 0", "1 if -1 >= m or 3 < n else 0",
    "1 if any k in -1..1: k > 5 else 0", "1 if all k in 0..2: k >= 0 else 0",
    "count k in -2..2: k < n", "sum k in -1..1: n / (k - 2)",
    "cell[n] if n >= 0 and n < 3 else -1", "cell[n] if n >= 0 and n <= 3 else -1",
    "cell[n] if 0 <= n and 3 > n else -1", "cell[n] if 0 <= n and 3 >= n else -1",
    "cell[n] if n > -1 and n < 2 + 1 else -1", "cell[m - 1] if m >= 1 else -1",
])
def test_rules_agree_with_the_reference_semantics(expr):
    p, rule, states = compiled_and_reference(expr)
    for state in states:
        assert run(p, s=state) == reference(rule, state), (expr, p.text, state)


def test_guarded_index_checks_are_left_out_only_when_proved():
    for expr, checked in (("cell[n] if n >= 0 and n < 3 else -1", False),
                          ("cell[n] if 0 <= n and 3 > n else -1", False),
                          ("cell[n] if n >= 0 and n <= 3 else -1", True),
                          ("cell[n] if 0 <= n and 3 >= n else -1", True),
                          ("cell[n] if n > 0 and n < 3 else -1", False),
                          ("cell[n] if n > -2 and n < 3 else -1", True)):
        p, _, _ = compiled_and_reference(expr)
        assert ("_e303" in p.text) == checked, (expr, p.text)
