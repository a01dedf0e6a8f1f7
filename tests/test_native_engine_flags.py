"""The alpha-beta engine's switches on the native tier (issue 31): every switch either runs
natively or says on stderr that the Python tier runs, and why; a switch at its default value
never changes the tier; `--json` and the stats line say which tier ran.

The native tier implements the table (on, off, any size), the move ordering (on, off, the ply
from which it ranks by the root's order), PVS and the root's optimal set (on, off). Where both
tiers run the same search they must agree number for number: values, optimal actions,
principal variation and every counter (the Python tier, gdl.solvers.alphabeta, is the
independent implementation). Values are checked against the literature too (FACTS.md:
tic-tac-toe is a draw with every first move optimal; Connect Four 4 x 4 is a draw, Tromp) and
against a tic-tac-toe solver written in tests/test_engine_cli.py without gdl code.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest
from helpers import GAMES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_cli import ALL_CELLS, board_after, value_for_x

from gdl.backends.load import load, loads
from gdl.backends.native.build import compiler
from gdl.cli import main
from gdl.generators.rules import rule_games
from gdl.solvers import default_options, solve
from gdl.tools.native_solve import native_rules, solve_native

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler: no native tier")

TICTACTOE = str(GAMES / "tictactoe.game")
CONNECT4 = str(GAMES / "connect4.game")
C4_4X4 = ["--set", "columns=4", "--set", "rows=4"]
NOTE = "the Python tier runs this search"

# Switches the native tier implements (the tier stays native) ...
NATIVE_SWITCHES = [
    [], ["--tt-size", "1048576"], ["--tt-size", "1000"], ["--tt-size", "2"],
    ["--no-optimal-set"], ["--optimal-set"], ["--no-tt"], ["--tt"], ["--no-ordering"],
    ["--ordering"], ["--no-pvs"], ["--pvs"], ["--evaluation-plies", "0"],
    ["--evaluation-plies", "3"], ["--no-killers"], ["--no-history"], ["--no-id"],
    ["--no-aspiration"], ["--no-quiescence"], ["--quiescence"],
    ["--no-tt", "--no-ordering", "--no-pvs", "--no-optimal-set"],
]
# ... and those it does not (the Python tier runs, and says so, naming the switch).
PYTHON_SWITCHES = [
    (["--time", "60"], "--time"), (["--nodes", "100000000"], "--nodes"),
    (["--killers"], "--killers"), (["--history"], "--history"),
]


def solve_json(capsys, *argv):
    assert main(["solve", *argv, "--json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def counters(document) -> dict:
    return {k: v for k, v in document["stats"].items() if k != "seconds"}


def answer(document) -> tuple:
    return (document["values"], document["best_actions"], document["pv"], document["proven"],
            document.get("optimal_set"), counters(document))


@pytest.mark.parametrize("switches", NATIVE_SWITCHES, ids=" ".join)
@pytest.mark.parametrize("game", [[TICTACTOE], [CONNECT4, *C4_4X4]], ids=["ttt", "c4-4x4"])
def test_switches_the_native_tier_implements_run_there_as_python_does(capsys, game, switches):
    native, err = solve_json(capsys, *game, *switches)
    assert native["tier"] == "native" and NOTE not in err, err
    python, _ = solve_json(capsys, *game, *switches, "--backend", "compile")
    assert python["tier"] == "python"
    assert answer(native) == answer(python)
    assert native["values"] == {"X": 0, "O": 0} if game == [TICTACTOE] else {"Red": 0, "Yellow": 0}
    if "--no-optimal-set" in switches:
        assert len(native["best_actions"]) == 1 and native["optimal_set"] is False
    elif game == [TICTACTOE]:
        assert native["best_actions"] == ALL_CELLS         # FACTS: every first move draws


@pytest.mark.parametrize("switches, flag", PYTHON_SWITCHES, ids=lambda x: str(x))
@pytest.mark.parametrize("game", [[TICTACTOE], [CONNECT4, *C4_4X4]], ids=["ttt", "c4-4x4"])
def test_switches_the_native_tier_lacks_say_so_and_run_in_python(capsys, game, switches, flag):
    document, err = solve_json(capsys, *game, *switches)
    assert document["tier"] == "python"
    notes = [line for line in err.splitlines() if NOTE in line]
    assert len(notes) == 1 and flag in notes[0], err
    # the budgets are far beyond what these games need: the answer is the exact one
    assert list(document["values"].values()) == [0, 0]


def test_iterative_deepening_and_aspiration_need_python_only_where_they_act(capsys):
    # Connect Four declares an evaluation: --id deepens there (the Python tier, said so);
    # tic-tac-toe has none, so the engine ignores --id and the search stays native.
    document, err = solve_json(capsys, CONNECT4, *C4_4X4, "--id", "--aspiration")
    assert document["tier"] == "python" and "--id" in err and "--aspiration" in err
    document, err = solve_json(capsys, TICTACTOE, "--id", "--aspiration")
    assert document["tier"] == "native" and NOTE not in err


def test_a_switch_at_its_default_value_changes_nothing(capsys):
    plain, _ = solve_json(capsys, TICTACTOE)
    default = default_options()
    for switches in (["--tt-size", str(default.tt_size)],
                     ["--evaluation-plies", str(default.evaluation_plies)],
                     ["--tt", "--ordering", "--pvs", "--optimal-set", "--no-killers",
                      "--no-history", "--no-id", "--no-aspiration"]):
        document, err = solve_json(capsys, TICTACTOE, *switches)
        assert document["tier"] == "native" and err == ""
        assert answer(document) == answer(plain)


def test_the_table_of_another_tree_solver_is_the_python_tiers(capsys):
    document, err = solve_json(capsys, str(GAMES / "pig.game"), "--depth", "2", "--tt")
    assert document["tier"] == "python" and "--tt" in err and NOTE in err
    assert document["values"]["A"] == "5/3"                # FACTS: OpenSpiel's Pig, depth 2
    document, err = solve_json(capsys, str(GAMES / "pig.game"), "--depth", "2", "--no-tt")
    assert document["tier"] == "native" and err == ""
    assert document["values"]["A"] == "5/3"


def test_the_stats_line_names_the_tier(capsys):
    assert main(["solve", TICTACTOE, "--no-optimal-set"]) == 0
    assert "tier native" in capsys.readouterr().out
    assert main(["solve", TICTACTOE, "--backend", "compile"]) == 0
    out = capsys.readouterr()
    assert "tier python" in out.out and NOTE not in out.err   # no switch to blame


def test_the_one_optimal_action_is_optimal_by_an_independent_solver(capsys):
    # After X takes the centre and O an edge, X wins (FACTS); --no-optimal-set names one
    # action, which the independent minimax must value as a win for X.
    moves = ["place(1,1)", "place(0,1)"]
    document, _ = solve_json(capsys, TICTACTOE, "--moves", " ".join(moves), "--no-optimal-set")
    assert document["tier"] == "native" and document["values"]["X"] == 1
    (action,) = document["best_actions"]
    assert value_for_x(board_after([*moves, action])) == 1


# ---- every combination of the four switches, and generated games ----------------------------

def same_search(native, python) -> None:
    assert native is not None and native.extra["backend"] == "native"
    assert (native.values, native.best_actions, native.pv, native.stats, native.proven) == (
        python.values, python.best_actions, python.pv, python.stats, python.proven)
    assert {k: v for k, v in native.extra.items() if k != "backend"} == python.extra


@pytest.mark.parametrize("path, params, depth", [
    ("tictactoe.game", {}, None), ("connect4.game", {"columns": 4, "rows": 4}, None),
    ("connect4.game", {"columns": 4, "rows": 4}, 4), ("hexapawn.game", {}, None),
])
def test_every_combination_of_switches_counts_the_python_nodes(path, params, depth):
    game = load(GAMES / path, params, backend="native")
    assert native_rules(game) is not None, game.native_note
    for tt, ordering, pvs, optimal_set in itertools.product((True, False), repeat=4):
        for size in (2, 1000, 1 << 20):
            options = replace(default_options(depth), tt=tt, ordering=ordering, pvs=pvs,
                              optimal_set=optimal_set, tt_size=size)
            same_search(solve_native(game, "alphabeta", depth=depth, options=options),
                        solve(game, "alphabeta", depth=depth, options=options))


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(rule_games(players=2, sum_kinds=("zero-sum", "constant-sum"), chance=False),
       st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.sampled_from([2, 64, 1 << 20]))
def test_generated_games_with_any_switches(rules, tt, ordering, pvs, optimal_set, size):
    game = loads(rules.text, "<generated>", backend="native")
    depth = 2 if game.info.has_evaluate and not game.info.has_quiescence else None
    options = replace(default_options(depth), tt=tt, ordering=ordering, pvs=pvs,
                      optimal_set=optimal_set, tt_size=size)
    same_search(solve_native(game, "alphabeta", depth=depth, options=options),
                solve(loads(rules.text, "<generated>", backend="compile"), "alphabeta",
                      depth=depth, options=options))
