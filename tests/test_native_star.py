"""Star1 and Star2 in the native tier (search.c's gdl_star) against gdl.solvers.star.

The oracles: the Python tiers (compiled and interpreted games under gdl.solvers.star, an
independent implementation of the same searches over the protocol), compared result for result
(values as exact numbers of the same type, optimal root sets, principal variations, proof and
every counter: nodes, leaves, cut-offs); expectiminimax, a different algorithm, for the values and
the optimal sets (Star1 and Star2 must return exactly what it returns, visiting no more nodes);
the literature (/work/shared/FACTS.md: Pig with a three-sided die at depth 2 is worth 5/3 for the
first player, best action roll); and values worked out by hand in the tests.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from test_native_chance import DEEP_ODDS as NATIVE_EXPECTIMINIMAX_ODDS
from test_native_chance import falls_back_beyond_64_bits, same_search

import gdl.solvers.star as python_star
from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.cli import main
from gdl.generators.rules import rule_games
from gdl.solvers import solve
from gdl.tools.native_solve import native_rules, solve_native

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")
STARS = ("star1", "star2")


def same(native, python):
    same_search(native, python)
    assert native.algorithm == python.algorithm
    assert native.depth == python.depth


def three_tiers(path: Path, params: dict, depth: int | None, algorithm: str, root_state=None):
    native = load(path, params, backend="native")
    assert native_rules(native) is not None, native.native_note
    found = solve_native(native, algorithm, depth=depth, root_state=root_state)
    for backend in ("compile", "interpret"):
        same(found, solve(load(path, params, backend=backend), algorithm, depth=depth,
                          root_state=root_state))
    return found


def agrees_with_expectiminimax(game, found, depth):
    reference = solve(game, "expectiminimax", depth=depth)
    assert found.values == reference.values
    assert found.best_actions == reference.best_actions
    assert found.stats.nodes <= reference.stats.nodes


# ---- the literature --------------------------------------------------------------------------

@needs_cc
@pytest.mark.parametrize("algorithm", STARS)
def test_pig_three_sided_die_depth_two_is_openspiels_figure(algorithm):
    found = three_tiers(GAMES / "pig.game", {}, 2, algorithm)
    assert found.values == (Fraction(5, 3), Fraction(-5, 3))      # FACTS: 1/3·2 + 1/3·3
    assert found.best_actions == (0,)                                # roll


# ---- native = compiled = interpreted on the bundled chance games ----------------------------------

@needs_cc
@pytest.mark.parametrize("algorithm", STARS)
@pytest.mark.parametrize("name, params, depth", [
    ("pig", {}, 6),
    ("pig", {"winscore": 6, "horizon": 7}, None),
    ("pig", {"sides": 6, "winscore": 10, "horizon": 30}, 4),
    ("dice-race", {"turns": 2}, None),
    ("dice-race", {}, 4),
    ("pacman-random", {}, None),        # probabilities that depend on the state
    ("pacman-random", {}, 2),
])
def test_bundled_chance_games_agree_in_all_three_tiers(algorithm, name, params, depth):
    found = three_tiers(GAMES / f"{name}.game", params, depth, algorithm)
    assert found.proven == (depth is None)
    agrees_with_expectiminimax(load(GAMES / f"{name}.game", params, backend="compile"), found,
                               depth)


@needs_cc
@pytest.mark.parametrize("algorithm", STARS)
def test_from_a_position_after_some_moves(algorithm):
    path, params = GAMES / "pig.game", {"sides": 6, "winscore": 10, "horizon": 30}
    game = load(path, params, backend="native")
    root = game.initial_state()
    for outcome in (0, (0, 4), 0, (0, 5), 1):          # roll, 4, roll, 5, stop
        root = game.apply(root, outcome)
    assert game.current_player(root) == 1               # B to move, A banked 9
    three_tiers(path, params, 3, algorithm, root_state=root)
    pending = game.apply(root, 0)                       # B rolled: the root is a chance node
    assert solve_native(game, algorithm, depth=3, root_state=pending) is None


# ---- Star2's probes: a regular max-chance-min tree ----------------------------------------------

# A picks a, a fair coin r is thrown, then B picks b; every outcome of every coin leads to a
# decision of B, so Star2 probes (B's first reply under each outcome) before it searches. The
# first pick is A's best, and B's first reply already refutes every other pick: the probes alone
# prove those picks worse. The values are worked out in the test by brute force.
REGULAR = """game "regular" players A, B
var a in 0..3 = 0
var r in 0..1 = 0
var step in 0..2 = 0
var won in -20..20 = 0
action pick(k in 0..3) by A effect a = k; random c in {0: 1/2, 1: 1/2}; r = c; step = 1
action reply(b in 0..1) by B
    effect won = ((5 if a == 0 else 0 - a) if b == 0 else 5 - a + r); step = 2
terminal step == 2
utility A = won
utility in -20..20
zero-sum
"""


def regular_value(a: int, r: int) -> int:
    return min(((5 if a == 0 else -a) if b == 0 else 5 - a + r) for b in (0, 1))


@needs_cc
def test_star2_probes_a_regular_tree_as_the_python_tier_does():
    values = {a: Fraction(regular_value(a, 0) + regular_value(a, 1), 2) for a in range(4)}
    best = max(values.values())
    game = loads(REGULAR, "regular.game", backend="native")
    assert native_rules(game) is not None, game.native_note
    found = {}
    for algorithm in STARS:
        found[algorithm] = solve_native(game, algorithm)
        same(found[algorithm], solve(loads(REGULAR, "regular.game", backend="interpret"),
                                     algorithm))
        assert found[algorithm].values == (best, -best)              # the brute force above
        assert found[algorithm].best_actions == tuple(a for a in range(4) if values[a] == best)
    # the probes did something: fewer nodes than Star1 (and the counts are the Python tier's)
    assert found["star2"].stats.nodes < found["star1"].stats.nodes
    assert found["star2"].best_actions == (0,) and found["star2"].values == (5, -5)


# ---- generated games ---------------------------------------------------------------------------

@needs_cc
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=True, bounds=True))
def test_generated_chance_games(rules):
    game = loads(rules.text, "<generated>", backend="native")
    assert native_rules(game) is not None, game.native_note
    depth = 2 if game.info.has_evaluate else None
    python = loads(rules.text, "<generated>", backend="interpret")
    for algorithm in STARS:
        found = solve_native(game, algorithm, depth=depth)
        if not game.info.has_chance:
            # (shrunk to a game without chance) Star runs natively on chance games only; the
            # default on other games is alpha-beta, which is native there.
            assert found is None
            return
        if found is None:
            # The native search declines only where a rule's value is a fraction (a utility or
            # an evaluation divided exactly, `/`): the C tier has integer rule values.
            assert any("/" in line for line in rules.text.splitlines() if "random" not in line)
            return
        same(found, solve(python, algorithm, depth=depth))


# ---- overflow, broken promises and the command line -----------------------------------------------

# test_native_chance's four chance nodes in a row, whose value 2·((p - 1)/p)^4 - 1 has a
# denominator beyond 64 bits, with the utility's bounds declared (Star prunes with them).
DEEP_ODDS = NATIVE_EXPECTIMINIMAX_ODDS.replace("zero-sum\n", "utility in -1..1\nzero-sum\n")


@needs_cc
def test_a_fraction_beyond_64_bits_falls_back_with_a_note(tmp_path, capsys):
    document = falls_back_beyond_64_bits(DEEP_ODDS, STARS, [], tmp_path, capsys)
    assert document["algorithm"] == "star2"            # the default, the bounds declared


@needs_cc
def test_a_leaf_outside_the_declared_bounds_is_reported_as_in_python(tmp_path, capsys):
    # The bounds promise -1..1 but the utility is 3: Star would prune wrongly, so both tiers
    # refuse (the native search stops at the leaf; the Python tier says why).
    text = DEEP_ODDS.replace("utility A = 2 * all_ones - 1", "utility A = 3 * all_ones")
    path = tmp_path / "broken.game"
    path.write_text(text, encoding="utf-8")
    args = ["solve", str(path), "--set", "p=3"]
    python_code = main(args + ["--backend", "compile"])
    python_err = capsys.readouterr().err
    assert python_code != 0 and main(args + ["--backend", "native"]) == python_code
    native_err = capsys.readouterr().err
    assert "outside the declared utility bounds" in python_err
    assert native_err == python_err and "Traceback" not in native_err


@needs_cc
def test_gdl_solve_pig_runs_star2_natively_by_default(monkeypatch, capsys):
    args = ["solve", str(GAMES / "pig.game"), "--depth", "6", "--json"]
    assert main(args + ["--backend", "compile"]) == 0
    python = json.loads(capsys.readouterr().out)

    def refuse(self):
        raise AssertionError("the Python Star search ran")

    monkeypatch.setattr(python_star._StarSearch, "solve", refuse)
    assert main(args) == 0
    native = json.loads(capsys.readouterr().out)
    assert native["algorithm"] == "star2"
    assert (native.pop("tier"), python.pop("tier")) == ("native", "python")
    for document in (python, native):
        del document["stats"]["seconds"]
    assert native == python


def test_a_branch_whose_only_statement_folds_away_still_compiles():
    # Found by the generated games above: with two players, `pass` on the last move changes
    # nothing, so the Python compiler folds it away and the branch kept only its rule comment
    # (an IndentationError, and the game silently interpreted instead of compiled).
    text = ('game "folded" players P0, P1\nvar moves in 0..1 = 0\nvar x in -1..0 = 0\n'
            'action a(k in 0..1)\n'
            '    effect moves = moves + 1; x = 0 - k;\n'
            '           if x < 0 { pass }\n'
            'terminal moves == 1\nutility P0 = x\nzero-sum\n')
    compiled = loads(text, "folded.game", backend="compile")
    assert getattr(compiled, "compile_error", None) is None
    assert type(compiled).__name__ == "CompiledGame"
    interpreted = loads(text, "folded.game", backend="interpret")
    for action in (0, 1):
        assert (compiled.apply(compiled.initial_state(), action)
                == interpreted.apply(interpreted.initial_state(), action))


def test_the_size_check_names_a_native_node_cost_that_is_not_rounded_to_zero(capsys):
    # Pig to the end is far over the budget; the refusal estimates the time at the native tier's
    # cost per node, a fraction of a microsecond, which used to print as "0 µs a node".
    assert main(["solve", str(GAMES / "pig.game")]) != 0
    message = capsys.readouterr().err
    assert "refusing to search" in message and "try --depth" in message
    cost = float(message.split(" µs a node")[0].rsplit(" at a nominal ", 1)[1])
    assert cost > 0
