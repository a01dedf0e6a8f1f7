"""The fast paths of Pig's Python tier give the answers of the plain paths.

- expectiminimax reads a value's type (int or Fraction) off the end of its principal variation
  instead of carrying a flag per node, keeps the variation out of its return value, scores the
  leaves below a decision node with no depth left without a call of their own, and checks and
  scales an all-int leaf vector by one lookup. Held here to the textbook recursion in Fraction
  arithmetic (tests/test_chance_scale.plain, written independently of the solver), values *and*
  types, on trees whose chance nodes have int probabilities (1, 0) and whose leaves hold
  integral Fractions such as Fraction(1) (equal to 1, and hashing the same, but of another type).
- compiled rules finish the pending chance state of an action that draws once through
  ``_ONE[k][mover](s, outcome value)``; held to the interpreter, errors included.
"""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_chance_scale import plain, root_set, same_as_plain

from gdl.backends.load import loads
from gdl.backends.pycompile.irwalk import draws_once, has_random
from gdl.backends.tree import TreeGame, tree_info
from gdl.errors import GdlError
from gdl.generators.rules import rule_games
from gdl.generators.trees import trees
from gdl.lang.ir import Chance, Decision, Leaf
from gdl.protocol import ZERO_SUM
from gdl.solvers.expectiminimax import expectiminimax
from gdl.tools.fuzz import backend_problems

F = Fraction


def tree_game(root) -> TreeGame:
    return TreeGame(root, tree_info("t", ("P0", "P1"), root, ZERO_SUM))


# ---- value types: read off the end of the principal variation -----------------------------------

def test_an_integral_fraction_leaf_met_after_the_same_int_leaf_stays_a_fraction():
    # (1, -1) is met first as ints (and remembered), then as Fraction(1), Fraction(-1), which
    # equals it and hashes the same: its value must still come back a Fraction, as Fraction
    # arithmetic (the plain recursion) has it.
    root = Decision(0, (("a", Decision(1, (("x", Leaf((1, -1))), ("y", Leaf((0, 0)))))),
                        ("b", Leaf((F(1), F(-1))))))
    found = expectiminimax(tree_game(root))
    assert found.values == (1, -1) and type(found.values[0]) is Fraction
    assert found.pv == ("b",)
    same_as_plain(tree_game(root))


def test_chance_with_int_probabilities_takes_its_type_from_every_child():
    # 1 * 2 is the int 2; 1 * 3 + 0 * (1/2) is Fraction(3) (a Fraction term, though its weight
    # is 0); a Fraction probability makes a Fraction whatever the children.
    sure = Chance((("only", 1, Leaf((2, -2))),))
    mixed = Chance((("a", 1, Leaf((3, -3))), ("b", 0, Leaf((F(1, 2), F(-1, 2))))))
    fair = Chance((("h", F(1, 2), Leaf((4, -4))), ("t", F(1, 2), Leaf((4, -4)))))
    for node, value, kind in ((sure, 2, int), (mixed, 3, Fraction), (fair, 4, Fraction)):
        found = expectiminimax(tree_game(Decision(0, (("go", node), ("no", Leaf((-9, 9)))))))
        assert found.values[0] == value and type(found.values[0]) is kind
        assert found.pv == ("go",)
        assert found.best_actions == ("go",)


def retyped(node, rng: random.Random):
    """The same tree, some int leaf values as integral Fractions, some one-outcome chance nodes
    with the int probability 1, some chance nodes with an extra outcome of int probability 0."""
    if isinstance(node, Leaf):
        if rng.random() < 0.3:
            return Leaf(tuple(F(v) if type(v) is int and rng.random() < 0.7 else v
                              for v in node.values))
        return node
    if isinstance(node, Decision):
        return Decision(node.player, tuple((a, retyped(c, rng)) for a, c in node.children))
    children = [(label, p, retyped(c, rng)) for label, p, c in node.children]
    if len(children) == 1 and rng.random() < 0.5:
        label, _, child = children[0]
        children = [(label, 1, child)]
    if rng.random() < 0.3:
        children.append(("never", 0, retyped(Leaf((F(1, 3), F(-1, 3))), rng)))
    return Chance(tuple(children))


LEAF_VALUES = (-3, -1, 0, 1, 2, F(1, 3), F(-5, 7))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(players=2, max_depth=5, max_branching=3, chance=True, values=LEAF_VALUES,
             sum_kind=ZERO_SUM), st.randoms(use_true_random=False))
def test_value_types_match_fraction_arithmetic_on_retyped_trees(generated, rng):
    same_as_plain(tree_game(retyped(generated.root, rng)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(players=2, max_depth=5, max_branching=3, chance=True, values=LEAF_VALUES,
             sum_kind=ZERO_SUM), st.randoms(use_true_random=False))
def test_the_table_gives_the_plain_answer_with_no_more_nodes(generated, rng):
    game = tree_game(retyped(generated.root, rng))
    found = expectiminimax(game, table=True)
    root = game.initial_state()
    value, line, nodes, _ = plain(game, root, None)
    assert found.values[0] == value and type(found.values[0]) is type(value)
    assert found.pv == line
    assert found.best_actions == root_set(game, root, None)
    assert found.stats.nodes + found.stats.tt_hits <= nodes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_games(players=2, chance=True, sum_kinds=(ZERO_SUM, "constant-sum"), max_nodes=200,
                  second_edition=True), st.sampled_from([1, 2, 3]))
def test_depth_limited_rule_files_with_and_without_the_table(generated, depth):
    game = loads(generated.text, "generated.game", backend="compile")
    if not game.info.has_evaluate:
        depth = None
    same_as_plain(game, depth)
    tabled = expectiminimax(game, depth=depth, table=True)
    untabled = expectiminimax(game, depth=depth)
    assert tabled.values == untabled.values
    assert [type(v) for v in tabled.values] == [type(v) for v in untabled.values]
    assert (tabled.pv, tabled.best_actions) == (untabled.pv, untabled.best_actions)


# ---- compiled rules: an action that draws once --------------------------------------------------

@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(chance=True, full_language=True, second_edition=True))
def test_one_draw_continuations_agree_with_the_interpreter(generated):
    compiled = generated.load("compile")
    effects = [g.action.effect for g in compiled.ir.ground_actions if has_random(g.action.effect)]
    once = bool(effects) and all(draws_once(effect) for effect in effects)
    assert ("\n_ONE = " in compiled.python_source) == once
    problems, states = backend_problems(compiled, generated.load("interpret"))
    assert not problems, "\n".join(map(str, problems))
    assert states > 0


OVERFLOW = """game "Overflow"
players A, B
var x in 0..4 = 1
var moves in 0..3 = 0
action roll
    effect moves = moves + 1; random d in 1..2; x = x + 2 * d
action wait
    effect moves = moves + 1
terminal moves == 3
utility A = x
zero-sum
"""


def test_an_error_after_the_draw_is_the_interpreters():
    compiled = loads(OVERFLOW, "overflow.game", backend="compile")
    interpreted = loads(OVERFLOW, "overflow.game", backend="interpret")
    assert "\n_ONE = " in compiled.python_source
    errors = []
    for game in (compiled, interpreted):
        pending = game.apply(game.initial_state(), 0)           # roll: x = 1, pending
        (low, _), (high, _) = game.chance_outcomes(pending)
        assert game.apply(pending, low)[1:] == (3, 1)           # 1 + 2 * 1
        try:
            game.apply(pending, high)                           # 1 + 2 * 2 = 5: outside 0..4
        except GdlError as error:
            errors.append((error.code, error.span, getattr(error, "state", None),
                           getattr(error, "action", None), str(error)))
    assert len(errors) == 2 and errors[0] == errors[1]
    assert errors[0][0] == "E301"


# ---- compiled rules: a domain check tests only the end a value can pass -------------------------

BOUNDS = """game "Bounds"
players A, B
var x in 0..4 = 2
var moves in 0..2 = 0
action up
    effect moves = moves + 1; x = x + 2
action down
    effect moves = moves + 1; x = x - 3
terminal moves == 2
utility A = x
zero-sum
"""


def test_one_sided_domain_checks_fail_as_the_interpreter_does():
    compiled = loads(BOUNDS, "bounds.game", backend="compile")
    interpreted = loads(BOUNDS, "bounds.game", backend="interpret")
    source = compiled.python_source
    # x + 2 with x in 0..4 cannot fall below 0, x - 3 cannot pass 4: one test each
    assert " > 4: _e301(" in source and " < 0: _e301(" in source
    assert "0 <= " not in source.split("def apply", 1)[1].split("def chance_outcomes", 1)[0]
    # up: 2 + 2 = 4, fine; down: 2 - 3 = -1, below; up twice: 6, above
    for moves, x in (((0,), 4), ((1,), None), ((0, 0), None)):
        seen = []
        for game in (compiled, interpreted):
            state = game.initial_state()
            try:
                for move in moves:
                    state = game.apply(state, move)
                seen.append(("value", state))
            except GdlError as error:
                seen.append(("error", error.code, error.span, str(error)))
        assert seen[0] == seen[1]
        if x is None:
            assert seen[0][0] == "error" and seen[0][1] == "E301"
        else:
            assert seen[0] == ("value", (1, x, 1))
