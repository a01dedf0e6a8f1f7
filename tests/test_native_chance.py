"""Chance in the native tier: `random` in the generated C and exact expectiminimax in search.c.

The oracles: the literature (/work/shared/FACTS.md: Pig with a three-sided die at depth 2 is worth
5/3 for the first player, best action roll), values worked out by hand in the tests, and the
Python tiers (compiled and interpreted), which are independent implementations of the same
protocol and the same expectiminimax (gdl.solvers.expectiminimax), compared result for result:
values as exact Fractions (of the same type), optimal root sets, principal variations, every
action's value at the root, proof and node counts.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import gdl.backends.native.emit as emit
from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.cli import main
from gdl.errors import Source
from gdl.generators.rules import rule_games
from gdl.lang.check import check
from gdl.lang.parse import parse
from gdl.solvers import solve
from gdl.tools.native_solve import native_rules, solve_native

GAMES = Path(__file__).resolve().parent.parent / "games"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


def same_search(native, python):
    """What every native chance search answers as the Python tier does, number for number."""
    assert native is not None and native.extra["backend"] == "native"
    assert native.values == python.values
    assert [type(v) for v in native.values] == [type(v) for v in python.values]
    assert native.best_actions == python.best_actions
    assert native.pv == python.pv
    assert native.stats == python.stats
    assert native.proven == python.proven


def same(native, python):
    same_search(native, python)
    assert native.extra["action_values"] == python.extra["action_values"]


def three_tiers(path: Path, params: dict, depth: int | None):
    native = load(path, params, backend="native")
    assert native_rules(native) is not None, native.native_note
    found = solve_native(native, "expectiminimax", depth=depth)
    for backend in ("compile", "interpret"):
        same(found, solve(load(path, params, backend=backend), "expectiminimax", depth=depth))
    return found


# ---- the literature and hand-worked values ------------------------------------------------------

@needs_cc
def test_pig_three_sided_die_depth_two_is_openspiels_figure():
    found = three_tiers(GAMES / "pig.game", {}, 2)
    assert found.values == (Fraction(5, 3), Fraction(-5, 3))      # FACTS: 1/3·2 + 1/3·3
    assert found.best_actions == (0,)                                # roll


GAMBLE = """game "gamble" players A, B
var step in 0..1 = 0
var won in 0..2 = 0
action safe effect won = 1; step = 1
action gamble
    effect random x in {0: 1/2, 1: 1/2}; random y in {0: 1/3, 1: 2/3};
           won = 2 if x + y == 2 else 0; step = 1
terminal step == 1
utility A = won - 1
zero-sum
"""


@needs_cc
def test_two_chance_nodes_in_a_row_by_hand():
    # gamble wins (+1) only when both coins come up 1: 1/2 · 2/3 = 1/3, else -1, so it is worth
    # 1/3 - 2/3 = -1/3; safe is worth 0 and is the only optimal action. Nodes: the root, the safe
    # leaf, the first chance node, its two outcomes (each a chance node), their four leaves.
    game = loads(GAMBLE, "gamble.game", backend="native")
    assert native_rules(game) is not None, game.native_note
    found = solve_native(game, "expectiminimax")
    assert found.values == (0, 0) and found.best_actions == (0,)
    assert dict(found.extra["action_values"])[1] == (Fraction(-1, 3), Fraction(1, 3))
    assert found.stats.nodes == 1 + 1 + 1 + 2 + 4 and found.stats.leaves == 5
    same(found, solve(loads(GAMBLE, "gamble.game", backend="interpret"), "expectiminimax"))


# ---- native = compiled = interpreted on the bundled chance games ----------------------------------

@needs_cc
@pytest.mark.parametrize("name, params, depth", [
    ("pig", {"winscore": 6, "horizon": 7}, None),
    ("pig", {"sides": 6, "winscore": 10, "horizon": 30}, 4),
    ("dice-race", {"turns": 2}, None),
    ("dice-race", {}, 2),
    ("pacman-random", {}, None),        # probabilities that depend on the state: way(d) / exits
    ("pacman-random", {}, 2),
])
def test_bundled_chance_games_agree_in_all_three_tiers(name, params, depth):
    found = three_tiers(GAMES / f"{name}.game", params, depth)
    assert found.proven == (depth is None)


@needs_cc
def test_from_a_position_after_some_moves():
    game = load(GAMES / "pig.game", {"sides": 6, "winscore": 10, "horizon": 30}, backend="native")
    root = game.initial_state()
    for outcome in (0, (0, 4), 0, (0, 5), 1):          # roll, 4, roll, 5, stop
        root = game.apply(root, outcome)
    assert game.current_player(root) == 1               # B to move, A banked 9
    same(solve_native(game, "expectiminimax", depth=3, root_state=root),
         solve(game, "expectiminimax", depth=3, root_state=root))
    pending = game.apply(root, 0)                       # B rolled: the root is a chance node
    assert solve_native(game, "expectiminimax", depth=3, root_state=pending) is None


@needs_cc
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=True))
def test_generated_chance_games(rules):
    game = loads(rules.text, "<generated>", backend="native")
    assert native_rules(game) is not None, game.native_note
    depth = 2 if game.info.has_evaluate else None
    found = solve_native(game, "expectiminimax", depth=depth)
    python = solve(loads(rules.text, "<generated>", backend="interpret"), "expectiminimax",
                   depth=depth)
    if found is None:
        # The native search declines only where a rule's value is a fraction (a utility or an
        # evaluation divided exactly, `/`): the C tier has integer rule values.
        assert any("/" in line for line in rules.text.splitlines() if "random" not in line)
        return
    same(found, python)


# ---- overflow: the Python tier answers exactly, with a note --------------------------------------

# Four chance nodes in a row, each 1 with probability (p - 1)/p, p = 1000003 (a prime): A wins
# (+1) only when all four come up 1, so the value is 2·((p - 1)/p)^4 - 1, whose denominator p^4
# (about 10^24) is beyond 64 bits. The native search stops at the last step and falls back.
DEEP_ODDS = """game "odds" players A, B
param p = 1000003
var done in 0..1 = 0
var all_ones in 0..1 = 0
action go by A
    effect random a in {0: 1/p, 1: (p - 1)/p}; random b in {0: 1/p, 1: (p - 1)/p};
           random c in {0: 1/p, 1: (p - 1)/p}; random d in {0: 1/p, 1: (p - 1)/p};
           all_ones = a * b * c * d; done = 1
terminal done == 1
utility A = 2 * all_ones - 1
zero-sum
"""


DEEP_ODDS_P = 1000003


def falls_back_beyond_64_bits(text: str, algorithms: tuple, command: list[str], tmp_path,
                              capsys) -> dict:
    """``text`` (DEEP_ODDS, or a variant) on the native tier: each of ``algorithms`` stops (its
    exact value's denominator is beyond 64 bits), and ``gdl solve FILE *command --json`` answers
    it exactly in the Python tier, with one note and no traceback; returns the JSON answer."""
    p = DEEP_ODDS_P
    exact = 2 * Fraction(p - 1, p) ** 4 - 1
    assert exact.denominator > 2 ** 63                  # the case is what it claims to be
    game = loads(text, "odds.game", backend="native")
    assert native_rules(game) is not None, game.native_note
    stopped: list[str] = []
    for algorithm in algorithms:
        assert solve_native(game, algorithm, on_stop=lambda: stopped.append("stopped")) is None
    assert len(stopped) == len(algorithms)
    path = tmp_path / "odds.game"
    path.write_text(text, encoding="utf-8")
    assert main(["solve", str(path), *command, "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert Fraction(str(document["values"]["A"])) == exact
    notes = [line for line in captured.err.splitlines() if "note:" in line]
    assert len(notes) == 1 and "beyond 64 bits" in notes[0] and "exactly" in notes[0]
    assert "Traceback" not in captured.err
    return document


@needs_cc
def test_a_fraction_beyond_64_bits_falls_back_with_a_note(tmp_path, capsys):
    falls_back_beyond_64_bits(DEEP_ODDS, ("expectiminimax",), ["--algorithm", "expectiminimax"],
                              tmp_path, capsys)
    p = DEEP_ODDS_P
    # Three chance nodes (p^3, about 10^18) still fit: the native tier answers, exactly.
    three = DEEP_ODDS.replace("random d in {0: 1/p, 1: (p - 1)/p};", "").replace(" * d", "")
    small = loads(three, "odds3.game", backend="native")
    found = solve_native(small, "expectiminimax")
    assert found is not None and found.values[0] == 2 * Fraction(p - 1, p) ** 3 - 1


@needs_cc
def test_a_bad_distribution_is_reported_located_as_in_python(tmp_path, capsys):
    text = ('game "bad" players A, B\nvar n in 0..2 = 0\nvar k in 0..3 = 1\n'
            'action go effect random x in {0: k / 3, 1: 1 / 3}; n = 1 + x\n'
            'terminal n >= 1\nutility A = 0\nzero-sum\n')
    path = tmp_path / "bad.game"
    path.write_text(text, encoding="utf-8")
    args = ["solve", str(path), "--algorithm", "expectiminimax"]
    assert main(args + ["--backend", "compile"]) == 1
    python_err = capsys.readouterr().err
    assert main(args + ["--backend", "native"]) == 1
    native_err = capsys.readouterr().err
    assert "E305" in python_err and native_err == python_err


# ---- untrusted input: `random` in the native source --------------------------------------------

def test_random_outcomes_and_probabilities_become_numbers_only():
    text = ('game "evil */ system(PWNED); /*" players A, B\n'
            'var n in 0..4 = 0\n'
            'action go effect random PWNED_x in {1: 1/4, 2: 3/4}; n = PWNED_x\n'
            'action more effect random PWNED_y in {0: n / 4, 2: (4 - n) / 4}; n = n + PWNED_y\n'
            'terminal n >= 1\nutility A = n - 1\nzero-sum\n')
    game = check(parse(text), Source("<evil>", text))
    source = emit.generate(game, "evil*/ PWNED.game")
    code = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    assert "PWNED" not in code
    # a constant distribution: a table of numbers, checked by the emitter
    assert re.search(r"static const Dist k\d+ = \{2, \{1LL, 2LL\}, \{\{1LL, 4LL\}, \{3LL, 4LL\}\}\};",
                     code)
    # one that depends on the state: numbers and the compiler's own names, checked at run time
    assert re.search(r"dist_add\(dist, 0LL, q_div\(q_of\(s\[\d+\]\), \(\(Q\)\{4LL, 1LL\}\)\)\);",
                     code)
