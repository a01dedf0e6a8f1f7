"""gdl.tools.validate and `gdl check --deep`: every kind of violation, found with a witness whose
length is derived by hand from the rules (see the comment at the top of each tests/data/deep file);
the census of tic-tac-toe (FACTS); size estimates; the budget warning of `gdl solve`."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from helpers import BUNDLED, DATA, GAMES

import gdl
from gdl.cli import main
from gdl.cli.deep import declared_state_bound
from gdl.protocol import CHANCE, TERMINAL, ZERO_SUM, GameInfo
from gdl.tools import validate as v

DEEP = DATA / "deep"


def load(name: str):
    return gdl.load(DEEP / f"{name}.game")


def only(report, code: str):
    found = [x for x in report.violations if x.code == code]
    assert len(found) == 1, report.violations
    return found[0]


# ---- rule files with one problem each -------------------------------------------------------------

# (file, code, witness length, cycle length, the rule's line); lengths derived in each file's comment.
CASES = [
    ("dead-end", v.DEAD_END, 1, 0, 8),            # jump; at n = 5 nothing is legal
    ("leaky-die", v.BAD_CHANCE, 3, 0, 8),         # roll d=… roll: the second roll's table sums to 3/4
    ("ping-pong", v.CYCLE, 1, 2, 9),              # serve, then hit hit around the cycle
    ("ping-pong-bounded", v.TOO_LONG, 1, 2, 12),  # the same cycle breaks `max-length 10`
    ("too-long", v.TOO_LONG, 4, 0, 9),            # max-length 3: the 4th move is one too many
    ("out-of-bounds", v.UTILITY_OUT_OF_BOUNDS, 4, 0, 10),  # inc inc inc stop gives 3 > 2
    ("not-zero-sum", v.SUM_BROKEN, 1, 0, 10),     # right: 2 + (-1) != 0
    ("overflow", v.RULE_FAILED, 2, 0, 6),         # inc big: n would become 6
]


@pytest.mark.parametrize("name, code, length, cycle, line", CASES)
def test_each_violation_is_found_with_a_shortest_witness(name, code, length, cycle, line):
    report = v.validate(load(name), playouts=20)
    assert report.exhaustive
    assert not report.ok
    found = only(report, code)
    assert len(found.path) == length
    assert len(found.cycle) == cycle
    assert [x.code for x in report.errors] == [code]


@pytest.mark.parametrize("name, code, length, cycle, line", CASES)
def test_the_cli_points_at_the_rule_and_fails(name, code, length, cycle, line, capsys):
    assert main(["check", "--deep", "--playouts", "10", str(DEEP / f"{name}.game")]) == 1
    err = capsys.readouterr().err
    assert f".game:{line}:" in err.split(f"error[{code}]")[0].splitlines()[-1]
    assert f"({length} move(s))" in err


def test_witnesses_name_the_actions():
    assert only(v.validate(load("dead-end"), playouts=0), v.DEAD_END).path == ("jump",)
    cycle = only(v.validate(load("ping-pong"), playouts=0), v.CYCLE)
    assert (cycle.path, cycle.cycle) == (("serve",), ("hit", "hit"))
    chance = only(v.validate(load("leaky-die"), playouts=0), v.BAD_CHANCE)
    assert chance.path[0] == "roll" and chance.path[2] == "roll"
    assert chance.path[1] in ("d=0", "d=1")


@pytest.mark.parametrize("name, code, length, cycle", [
    ("dead-end", v.DEAD_END, 1, 0), ("ping-pong", v.CYCLE, 1, 2), ("too-long", v.TOO_LONG, 4, 0),
    ("overflow", v.RULE_FAILED, 2, 0)])
def test_playouts_alone_find_them_too(name, code, length, cycle):
    report = v.validate(load(name), playouts=50, seed=1, exhaustive=False)
    assert not report.exhaustive and report.census is None
    found = only(report, code)
    assert (len(found.path), len(found.cycle)) == (length, cycle)


def test_a_length_bound_from_the_command_line():
    # tests/data/deep/ping-pong.game has no cycle-free play longer than 3 (serve hit miss), and
    # too-long.game counts to 5: --max-length 2 makes the 3rd move one too many.
    report = v.validate(load("too-long"), playouts=10, max_length=2)
    found = only(report, v.TOO_LONG)
    assert len(found.path) == 3 and found.rules == ()


def test_a_warning_does_not_fail_the_check(capsys):
    report = v.validate(load("unwinnable"), playouts=10)
    found = only(report, v.BEST_UNREACHABLE)
    assert found.severity == "warning" and len(found.path) == 3   # inc inc stop
    assert report.ok and report.census.best_utility == 2
    assert main(["check", "--deep", str(DEEP / "unwinnable.game")]) == 0
    assert "warning[E412]" in capsys.readouterr().err


# ---- conditions over every reachable state: E414 never legal, E415 always false ------------------

def test_an_action_that_is_never_legal(capsys):
    # tests/data/deep/never-legal.game: 3 decision states (n = 0, 1, 2), `jump` needs n == 5
    report = v.validate(load("never-legal"), playouts=10)
    assert report.exhaustive and report.ok and report.requires_checked == 3
    found = only(report, v.NEVER_LEGAL)
    assert (found.severity, found.span.line, found.span.column) == ("warning", 10, 1)
    assert (found.path, found.count) == ((), 3) and "'jump'" in found.message
    assert found.notes == ("the comparison at line 10, column 22 is false every time it is "
                           "evaluated",)
    assert [x.code for x in report.violations] == [v.NEVER_LEGAL]   # the note, no E415 besides
    assert main(["check", "--deep", str(DEEP / "never-legal.game")]) == 0
    err = capsys.readouterr().err
    assert "never-legal.game:10:1: warning[E414]" in err and "found at 3 states" in err


def test_a_comparison_that_is_always_false(capsys):
    # tests/data/deep/dead-branch.game: `n == 4` is evaluated at n = 2 only (after `n < 2` fails)
    report = v.validate(load("dead-branch"), playouts=10)
    assert report.ok and report.requires_checked == 3
    found = only(report, v.CONSTANT_TEST)
    assert (found.severity, found.span.line, found.span.column) == ("warning", 11, 23)
    assert (found.path, found.count) == (("inc", "inc"), 1)
    assert [x.code for x in report.violations] == [v.CONSTANT_TEST]
    assert main(["check", "--deep", str(DEEP / "dead-branch.game")]) == 0
    err = capsys.readouterr().err
    assert "dead-branch.game:11:23: warning[E415]" in err and "reached by: inc inc" in err


COUNTER = """game "counter"
players A, B
param variant = 0
var n in 0..4 = 0
var phase in {open, shut, broken} = open
var cell[3] in 0..9 = [1, 2, 3]
var done in bool = false
define big(k) = k > 7
action stop requires n >= 2 effect done = true
REST
terminal done
utility A = n
zero-sum
"""


def requires_warnings(rest: str) -> list[tuple[str, int, int, int]]:
    """(code, line, column, states) of the E414/E415 warnings for COUNTER with the actions
    ``rest`` (its first line is line 10); the decision states are n = 0, 1, 2 unless the actions
    say otherwise (`stop` ends the game at n = 2)."""
    report = v.validate(gdl.loads(COUNTER.replace("REST", rest)), playouts=0)
    assert report.exhaustive and report.requires_checked is not None
    return [(x.code, x.span.line, x.span.column, x.count) for x in report.violations
            if x.code in (v.NEVER_LEGAL, v.CONSTANT_TEST)]


@pytest.mark.parametrize("rest, expected", [
    # a dead alternative inside `any`: cell[i] is 1, 2 or 3, never 9; reached at n = 2 (1 state)
    ("action inc requires n < 2 or any i in 0..2: cell[i] == 9 effect n = n + 1",
     [(v.CONSTANT_TEST, 10, 45, 1)]),
    # a membership test that never holds: phase stays `open`
    ("action inc requires n < 2 or phase in {shut, broken} effect n = n + 1",
     [(v.CONSTANT_TEST, 10, 30, 1)]),
    # always true (n >= 0), a comparison of params only (variant == 1), one in a define's body
    # (big(n): n > 7): none is reported
    ("action inc requires n >= 0 and n < 2 or variant == 1 or big(n) effect n = n + 1", []),
    # a guard that never holds makes `take` never legal (3 states); `inc` is fine
    ("action inc requires n < 2 effect n = n + 1\n"
     "action take(i in 0..2 if cell[i] == 9) effect n = 2",
     [(v.NEVER_LEGAL, 11, 1, 3)]),
    # a `let` of the state: `m == 9` is reached at n = 2 only, where m is 3
    ("action inc requires n < 2 or let m = n + 1: m == 9 effect n = n + 1",
     [(v.CONSTANT_TEST, 10, 45, 1)]),
])
def test_requires_checks(rest, expected):
    assert requires_warnings(rest) == expected


def test_a_comparison_in_a_define_is_a_note_of_the_action_it_keeps_from_play():
    # `big(n)` is n > 7 (line 8, column 17), and n is 0, 1 or 2 where `leap` is considered
    rest = "action inc requires n < 2 effect n = n + 1\naction leap requires big(n) effect n = 2"
    report = v.validate(gdl.loads(COUNTER.replace("REST", rest)), playouts=0)
    found = only(report, v.NEVER_LEGAL)
    assert (found.span.line, found.count) == (11, 3)
    assert found.notes == ("the comparison at line 8, column 17 is false every time it is "
                           "evaluated",)
    assert not [x for x in report.violations if x.code == v.CONSTANT_TEST]


def test_an_action_whose_player_never_moves():
    # A always moves again (`next A`), so B is never to move and `wait` (by B) is never legal;
    # the decision states are A's at n = 0 and 1 (`inc` ends the game at n = 2).
    text = ('game "g"\nplayers A, B\nvar n in 0..2 = 0\naction inc by A effect n = n + 1; next A\n'
            'action wait by B\nterminal n == 2\nutility A = n\nzero-sum\n')
    report = v.validate(gdl.loads(text), playouts=0)
    found = only(report, v.NEVER_LEGAL)
    assert "B is never to move" in found.message and (found.span.line, found.count) == (5, 1)


def test_requires_checks_need_every_state():
    # played only, or a game without rules: "never" cannot be said, and nothing is
    report = v.validate(load("never-legal"), playouts=20, exhaustive=False)
    assert report.requires_checked is None and not any(
        x.code in (v.NEVER_LEGAL, v.CONSTANT_TEST) for x in report.violations)
    tree = v.validate(gdl.load(GAMES / "aima-fig5-2.game"), playouts=0)
    assert tree.exhaustive and tree.requires_checked is None


def test_dead_end_chance_table_and_cycle_through_the_cli(capsys):
    for name, code in (("dead-end", "E400"), ("leaky-die", "E404"), ("ping-pong", "E409")):
        assert main(["check", "--deep", str(DEEP / f"{name}.game")]) == 1
        captured = capsys.readouterr()
        assert f"error[{code}]" in captured.err and "reached by:" in captured.err
        assert "FAILED" in captured.out
    main(["check", "--deep", str(DEEP / "ping-pong.game")])
    assert "then around the cycle: hit hit (2 move(s))" in capsys.readouterr().err


# ---- protocol-level problems a rule file cannot have ------------------------------------------

class Counter:
    """Two players count 0, 1, 2; the game ends at 2. ``broken`` breaks one method at n == 1
    (witness: one move) or at the terminal state n == 2 (witness: two moves)."""

    def __init__(self, broken: str = ""):
        self.broken = broken
        self.calls = 0
        self.info = GameInfo("counter", ("A", "B"), sum_kind=ZERO_SUM, utility_bounds=(-1, 1),
                             max_length=2)

    def initial_state(self):
        return (0, 0)

    def current_player(self, s):
        if self.broken == "player" and s[1] == 1:
            return 7
        return TERMINAL if s[1] == 2 else s[0]

    def legal_actions(self, s):
        if s[1] == 2:
            return ["inc"] if self.broken == "actions at terminal" else []
        if s[1] == 1 and self.broken == "duplicate":
            return ["inc", "inc"]
        if s[1] == 1 and self.broken == "unstable":
            self.calls += 1
            return ["inc", "wait"] if self.calls % 2 else ["wait", "inc"]
        return ["inc"]

    def apply(self, s, a):
        if a == "wait":
            return s
        if s[1] == 1 and self.broken == "apply":
            self.calls += 1
            return (1 - s[0], 2, self.calls % 2)
        return (1 - s[0], s[1] + 1)

    def chance_outcomes(self, s):
        return []

    def returns(self, s):
        return {"short": (1,), "float": (0.5, -0.5), "bounds": (2, -2), "sum": (1, 1)}.get(
            self.broken, (1, -1))

    def evaluate(self, s):
        raise ValueError

    def action_name(self, a):
        return a

    def is_quiet(self, s):
        return True


@pytest.mark.parametrize("broken, code, length", [
    ("player", v.BAD_PLAYER, 1), ("actions at terminal", v.ACTIONS_AT_TERMINAL, 2),
    ("duplicate", v.UNSTABLE_CHOICES, 1), ("unstable", v.UNSTABLE_CHOICES, 1),
    ("apply", v.NONDETERMINISTIC_APPLY, 2), ("short", v.BAD_UTILITY, 2),
    ("float", v.BAD_UTILITY, 2), ("bounds", v.UTILITY_OUT_OF_BOUNDS, 2), ("sum", v.SUM_BROKEN, 2)])
def test_protocol_violations(broken, code, length):
    report = v.validate(Counter(broken), playouts=5)
    found = [x for x in report.errors if x.code == code]
    assert found and all(len(x.path) == length for x in found)


def test_a_sound_protocol_game_passes():
    report = v.validate(Counter(), playouts=5)
    assert report.ok and report.violations == []
    assert (report.census.decision, report.census.terminal, report.census.longest_play) == (2, 1, 2)


class Coin(Counter):
    """A chance node at the start whose table is given by ``table``; both outcomes end the game."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def current_player(self, s):
        return CHANCE if s == (0, 0) else TERMINAL

    def legal_actions(self, s):
        return []

    def chance_outcomes(self, s):
        return self.table

    def apply(self, s, a):
        return (0, 1 if a == "heads" else 2)


@pytest.mark.parametrize("table", [
    [("heads", Fraction(1, 2)), ("tails", Fraction(1, 3))],       # sums to 5/6
    [("heads", 0.5), ("tails", 0.5)],                             # floats are not exact
    [("heads", Fraction(1, 2)), ("heads", Fraction(1, 2))],       # an outcome twice
    [("heads", Fraction(0)), ("tails", Fraction(1))],             # a zero probability
    []])
def test_bad_chance_tables(table):
    found = only(v.validate(Coin(table), playouts=3), v.BAD_CHANCE)
    assert found.path == ()


def test_a_good_chance_table():
    report = v.validate(Coin([("heads", Fraction(1, 2)), ("tails", Fraction(1, 2))]), playouts=3)
    assert report.ok and report.census.chance == 1 and report.census.terminal == 2


# ---- the bundled games ----------------------------------------------------------------------

# The games that can go on for ever (games/cyclic/), where the deep check needs more than the
# file: Pig to 100 has too many states to prove that every play ends (at goal 10 it is proved:
# a note); Give and take declares no value for endless play on purpose, so its cycle is E409.
CYCLIC_SETTINGS = {"pig100.game": ["--set", "goal=10"]}
CYCLIC_REFUSED = {"give-and-take.game": "error[E409]", "rounds.game": "error[E409]"}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_every_bundled_game_passes(path, capsys):
    code = main(["check", "--deep", "--playouts", "10", str(path),
                 *CYCLIC_SETTINGS.get(path.name, [])])
    captured = capsys.readouterr()
    if path.name in CYCLIC_REFUSED:
        assert code == 1 and CYCLIC_REFUSED[path.name] in captured.err
    else:
        assert code == 0, captured.err
    assert "10 playouts" in captured.out and "deep check:" in captured.out


def test_tictactoe_census():
    report = v.validate(gdl.load(GAMES / "tictactoe.game"), playouts=5)   # FACTS: 4,520 + 958
    census = report.census
    assert report.exhaustive and report.violations == []
    assert (census.states, census.decision, census.terminal, census.chance) == (5478, 4520, 958, 0)
    assert census.longest_play == 9 and census.cyclic_states == 0 and census.stuck_states == 0


def test_connect_four_census():
    # FACTS (Tromp): 161,029 positions reachable in play on 4 x 4, the empty board included.
    report = v.validate(gdl.load(GAMES / "connect4.game"), playouts=0, exhaustive=True)
    assert report.ok and report.census.states == 161_029
    assert report.census.longest_play == 16 and report.census.chance == 0


def test_splitting_and_figure_census():
    # FACTS: the board-splitting tree has 31 nodes; every node is a different sub-board, so the
    # 16 cells are the terminal states. Figure 5.2: a root, three MIN nodes, nine leaves.
    census = v.validate(gdl.load(GAMES / "splitting.game"), playouts=0).census
    assert (census.states, census.terminal, census.longest_play) == (31, 16, 4)
    census = v.validate(gdl.load(GAMES / "aima-fig5-2.game"), playouts=0).census
    assert (census.states, census.decision, census.terminal) == (13, 4, 9)


def test_the_same_seed_gives_the_same_report():
    game = gdl.load(GAMES / "tictactoe.game")
    first = v.validate(game, playouts=30, seed=7, exhaustive=False)
    second = v.validate(game, playouts=30, seed=7, exhaustive=False)
    assert first.as_dict() == second.as_dict()


def test_json_is_one_document(capsys):
    files = [str(GAMES / "tictactoe.game"), str(DEEP / "dead-end.game")]
    assert main(["check", "--deep", "--json", "--playouts", "5", *files]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is False
    tictactoe, dead_end = document["files"]
    assert tictactoe["deep"]["census"]["decision"] == 4520
    assert tictactoe["deep"]["playouts"] == 5
    violation = dead_end["deep"]["violations"][0]
    assert (violation["code"], violation["path"], violation["line"]) == ("E400", ["jump"], 8)


def test_text_output_per_game(capsys):
    assert main(["check", "--deep", "--playouts", "7", str(GAMES / "tictactoe.game")]) == 0
    out = capsys.readouterr().out
    assert "4,520 decision" in out and "958 terminal" in out and "7 playouts" in out


# ---- size estimates and the solve budget -------------------------------------------------------

def test_knuth_estimate_is_exact_on_uniform_trees():
    # Every path of board splitting has branching 2 for 4 moves: 1 + 2 + 4 + 8 + 16 = 31 (FACTS).
    assert v.estimate(gdl.load(GAMES / "splitting.game"), samples=3).tree_nodes == 31
    assert v.estimate(gdl.load(GAMES / "aima-fig5-2.game"), samples=3).tree_nodes == 13


def test_knuth_estimate_of_tictactoe():
    # Unbiased; 549,946 histories (FACTS). Seeded, so the figure is fixed; the tolerance is wide.
    est = v.estimate(gdl.load(GAMES / "tictactoe.game"), samples=500)
    assert 0.75 * 549_946 < est.tree_nodes < 1.25 * 549_946
    assert est.longest == 9


def test_declared_bound():
    # tic-tac-toe: 3^9 boards times 2 players to move.
    assert declared_state_bound(gdl.load(GAMES / "tictactoe.game")) == 2 * 3 ** 9
    assert declared_state_bound(gdl.load(GAMES / "aima-fig5-2.game")) == 13


def test_budget_problem():
    game = gdl.load(GAMES / "tictactoe.game")
    est = v.estimate(game, samples=100, declared_states=declared_state_bound(game))
    assert v.budget_problem(est, "minimax", info=game.info) is None
    text = v.budget_problem(est, "minimax", info=game.info, budget=1000)
    assert text is not None and "alphabeta" not in text.split(";")[0]
    assert v.budget_problem(est, "alphabeta", info=game.info, budget=10 ** 6) is None


def test_solve_refuses_an_oversized_search_with_strict(capsys):
    # Pig to 100 with a horizon of 1000 moves: far beyond any budget without a depth limit.
    assert main(["solve", str(GAMES / "pig.game"), "--strict"]) == 2
    err = capsys.readouterr().err
    assert "refusing" in err and "--depth" in err


def test_solve_warns_and_goes_on(monkeypatch, capsys):
    monkeypatch.setattr(v, "BUDGET", 10)
    assert main(["solve", str(GAMES / "hexapawn.game"), "--algorithm", "minimax"]) == 0
    captured = capsys.readouterr()
    assert "warning" in captured.err and "Black 1" in captured.out   # FACTS: the second player wins


# ---- solvers stop at a repetition ------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["alphabeta", "maxn", "paranoid", "minimax", "expectiminimax"])
def test_solvers_stop_at_a_repetition(algorithm):
    from gdl.solvers import solve
    from gdl.solvers.repetition import RepetitionError

    # Depth first in declaration order: serve, hit, hit meets (B, ball 0) again.
    with pytest.raises(RepetitionError) as caught:
        solve(load("ping-pong"), algorithm)
    assert caught.value.path == ("serve", "hit", "hit")
    assert caught.value.cycle == ("hit", "hit")


def test_a_depth_limit_makes_a_cyclic_game_searchable():
    from gdl.solvers import solve

    result = solve(load("ping-pong-evaluated"), "alphabeta", depth=4)
    assert not result.proven
    assert solve(load("ping-pong-evaluated"), "maxn", depth=4).pv


def test_the_guard_costs_nothing_for_bounded_games():
    from gdl.solvers.repetition import guard_path

    def search(state):
        return state

    assert guard_path(gdl.load(GAMES / "tictactoe.game"), search) is search   # max-length 9
    assert guard_path(load("ping-pong"), search, active=False) is search
    assert guard_path(load("ping-pong"), search) is not search


def test_node_counts_are_unchanged_by_the_guard():
    from gdl.solvers import solve

    # Board splitting declares no max-length, so the guard is on; the tree has 31 nodes (FACTS),
    # and max^n without pruning visits every one.
    result = solve(gdl.load(GAMES / "splitting.game"), "maxn", shallow_pruning=False)
    assert result.stats.nodes == 31 and result.values[0] == 12


def test_solve_reports_the_cycle(capsys):
    assert main(["solve", str(DEEP / "ping-pong.game")]) == 1  # a game that can go on forever is a problem in the game
    err = capsys.readouterr().err
    assert "serve" in err and "hit hit" in err


def test_a_full_transposition_table_is_reported():
    from gdl.cli.deep import solve_result_notes
    from gdl.solvers.alphabeta import SearchOptions, alphabeta

    game = gdl.load(GAMES / "tictactoe.game")
    small = alphabeta(game, options=SearchOptions.engine(tt_size=8))
    assert small.values == (0, 0)                       # FACTS: a draw, table or no table
    assert small.extra["tt_full"] and "overwrote" in solve_result_notes(small)[0]
    assert solve_result_notes(alphabeta(game, options=SearchOptions.engine())) == []
