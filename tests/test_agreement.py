"""Every solver, and every engine option, agrees with the oracle (gdl.tools.fuzz) on generated games.

A small budget by default; a large one on demand:

    GDL_FUZZ_EXAMPLES=2000 pytest tests/test_agreement.py

(the hypothesis profile ``gdl-fuzz-large`` then runs that many examples per test).
"""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdl
from gdl.generators.rules import rule_games
from gdl.generators.trees import trees
from gdl.lang.parse import parse
from gdl.tools.fuzz import (
    TargetReport,
    _option_sets,
    _tree_targets,
    affine_utilities,
    backend_problems,
    check_rules_example,
    check_tree_example,
    compare_position,
    engine_options,
    fuzz_file,
    fuzz_generated,
    have_compiler,
    metamorphic_problems,
    oracle,
    rename_identifiers,
    reorder_declarations,
    run_property,
)

LARGE = int(os.environ.get("GDL_FUZZ_EXAMPLES", "0") or 0)
settings.register_profile("gdl-fuzz-small", deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("gdl-fuzz-large", deadline=None, database=None,
                          max_examples=max(LARGE, 1), suppress_health_check=list(HealthCheck))
PROFILE = settings.get_profile("gdl-fuzz-large" if LARGE else "gdl-fuzz-small")


def budget(examples: int) -> settings:
    """``examples`` in the ordinary suite, GDL_FUZZ_EXAMPLES when that is set."""
    return settings(PROFILE, max_examples=LARGE or examples)


def assert_no_problems(problems):
    assert not problems, "\n".join(map(str, problems))


GAMES = os.path.join(os.path.dirname(__file__), "..", "games")
TREES = _tree_targets()


# ---- the oracle itself, against published values ----------------------------------------------

def test_oracle_on_textbook_trees():
    fig52 = gdl.load(os.path.join(GAMES, "aima-fig5-2.game"))
    verdict = oracle(fig52)
    assert verdict.values == (3, -3) and verdict.best_actions == ("a1",)
    fig54 = gdl.load(os.path.join(GAMES, "aima-fig5-4.game"))
    verdict = oracle(fig54)
    assert verdict.values == (1, 2, 6) and verdict.best_actions == ("a1", "a2")
    chance = gdl.load(os.path.join(GAMES, "chance-example.game"))
    assert oracle(chance).values == (10, -10)


# ---- generated trees ---------------------------------------------------------------------------

@budget(25)
@given(TREES["trees, two players"], _option_sets())
def test_two_player_trees(game, options):
    assert_no_problems(check_tree_example((game, options)))


@budget(25)
@given(TREES["trees with chance"], _option_sets())
def test_trees_with_chance(game, options):
    assert_no_problems(check_tree_example((game, options)))


@budget(15)
@given(TREES["trees, three players"], _option_sets())
def test_three_player_trees(game, options):
    assert_no_problems(check_tree_example((game, options)))


@budget(20)
@given(trees(players=2, max_depth=6, max_branching=2, values=[Fraction(-1, 2), 0, Fraction(1, 3), 1]),
       _option_sets())
def test_fractional_values(game, options):
    """Windows of one unit of a value's denominator (pvs, aspiration, the root's tie window)."""
    assert_no_problems(check_tree_example((game, options)))


# ---- generated rule files ---------------------------------------------------------------------

@budget(12)
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), full_language=True),
       _option_sets(),
       st.integers(0, 3))
def test_two_player_rule_files(rules, options, depth):
    report = TargetReport("rules")
    assert_no_problems(check_rules_example((rules, options, depth), report, backends=False))
    assert report.comparisons > 0


@budget(8)
@given(rule_games(players=(2, 3), sum_kinds=("general-sum", "constant-sum"), chance=True,
                  full_language=True),
       _option_sets(), st.integers(0, 2))
def test_rule_files_with_chance_and_more_players(rules, options, depth):
    assert_no_problems(check_rules_example((rules, options, depth), backends=False))


@pytest.mark.skipif(not have_compiler(), reason="no compiler backend (gdl.backends.compiler)")
@budget(15)
@given(rule_games(full_language=True))
def test_compiled_equals_interpreted(rules):
    problems, states = backend_problems(rules.load("compile"), rules.load("interpret"))
    assert_no_problems(problems)
    assert states > 0


# ---- metamorphic properties on their own --------------------------------------------------------

def test_renaming_and_reordering_a_bundled_game():
    text = open(os.path.join(GAMES, "splitting.game"), encoding="utf-8").read()
    tree = parse(text)
    renamed, mapping = rename_identifiers(tree, seed=3)
    assert set(mapping) >= {"V", "H", "value", "top", "keep_left"}
    assert all(new.startswith("n") for new in mapping.values())
    assert reorder_declarations(tree, seed=1) != tree
    problems, count = metamorphic_problems(tree, seed=5)
    assert_no_problems(problems)
    assert count == 6


def test_affine_change_of_utilities_changes_values_the_same_way():
    from gdl.lang.format import format_file

    tree = parse(open(os.path.join(GAMES, "splitting.game"), encoding="utf-8").read())
    shifted = gdl.loads(format_file(affine_utilities(tree, add=5, scale=3)))
    assert shifted.info.sum_kind == "constant-sum" and shifted.info.utility_sum == 10
    assert oracle(shifted).values == (3 * 12 + 5, 3 * -12 + 5)


def test_affine_change_of_a_constant_sum_given_by_an_expression():
    # `constant-sum 2 * k - k` is an expression, not a number: it becomes 3 * (...) + 2 (two
    # players, each utility plus 1), not a TypeError
    from gdl.lang.format import format_file

    text = ("game \"t\"\nplayers A, B\nconst k = 2\nvar pile in 0..3 = 3\n"
            "action take(j in 1..2)\n    requires pile >= j\n    effect   pile = pile - j\n"
            "terminal pile == 0\nutility A = k if mover == B else 0\n"
            "utility B = k if mover == A else 0\nconstant-sum 2 * k - k\n")
    # by hand: from a pile of 3, whatever A takes (1 or 2), B takes the rest; at the end A is
    # to move (`mover`), so B gets k = 2 and A 0
    shifted = gdl.loads(format_file(affine_utilities(parse(text), add=1, scale=3)))
    assert shifted.info.sum_kind == "constant-sum" and shifted.info.utility_sum == 3 * 2 + 2
    assert oracle(gdl.loads(text)).values == (0, 2)
    assert oracle(shifted).values == (3 * 0 + 1, 3 * 2 + 1)


# ---- the drivers ----------------------------------------------------------------------------------

def test_run_property_is_deterministic_and_shrinks():
    def bigger_than_two_leaves(game):
        from gdl.tools.fuzz import Problem

        return [Problem("values", "test", "many states")] if game.num_states > 4 else []

    strategy = trees(players=2)
    first = run_property(strategy, bigger_than_two_leaves, examples=50, seed=11)
    second = run_property(strategy, bigger_than_two_leaves, examples=50, seed=11)
    assert first.first_failure == second.first_failure is not None
    assert first.example.num_states == 5          # shrunk to the smallest failing tree


def test_fuzz_generated_small_run_agrees():
    summary = fuzz_generated(examples=8, seed=3)
    assert summary.ok, [str(p) for f in summary.failures for p in f.problems]
    assert sum(r.comparisons for r in summary.targets.values()) > 50


def test_fuzz_file_on_bundled_games():
    for name in ("tictactoe.game", "centipede.game", "pig.game", "aima-fig5-4.game"):
        summary = fuzz_file(os.path.join(GAMES, name), examples=3, seed=2, budget=1500)
        assert summary.ok, [str(p) for f in summary.failures for p in f.problems]
        report = next(iter(summary.targets.values()))
        assert report.positions + report.skipped == report.examples


def test_all_engine_options_on_a_bundled_position():
    game = gdl.load(os.path.join(GAMES, "tictactoe.game"))
    from gdl.tools.fuzz import replay

    state = replay(game, ["place(1,1)", "place(0,0)", "place(2,2)", "place(0,2)"])
    comparison = compare_position(game, state, options=engine_options(full=True))
    assert_no_problems(comparison.problems)
    assert comparison.pairs >= 14


def every_option_combination():
    """All 2^8 on/off combinations of the engine's techniques (small table, narrow windows)."""
    import itertools

    from gdl.solvers.alphabeta import SearchOptions

    switches = ("tt", "ordering", "killers", "history", "iterative_deepening", "aspiration",
                "pvs", "quiescence")
    return [SearchOptions(tt_size=4, quiescence_depth=1,
                          **dict(zip(switches, bits)))
            for bits in itertools.product((False, True), repeat=len(switches))]


@pytest.mark.parametrize("name, moves, depth", [
    ("splitting.game", [], None),
    ("hexapawn.game", [], None),
    ("pacman-adversarial.game", [], None),      # has an evaluation: ordering, deepening
    ("pacman-adversarial.game", [], 2),
    ("tictactoe.game", ["place(1,1)", "place(0,0)", "place(2,2)"], None),
])
def test_every_engine_option_combination_on_bundled_positions(name, moves, depth):
    from gdl.tools.fuzz import replay

    game = gdl.load(os.path.join(GAMES, name))
    comparison = compare_position(game, replay(game, moves), depth=depth,
                                  options=every_option_combination(), views=False)
    assert_no_problems(comparison.problems)
    assert sum(label.startswith("alphabeta") for label in comparison.solvers) == (
        256 if depth is None else 64)   # at a depth limit: no table, no quiescence
