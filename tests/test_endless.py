"""`when endless draw | (u1, ..., un)`: what a play that never ends is worth, declared in the
rules, checked, kept in GameInfo, formatted, and used by the strong solver and `check --deep`."""

from fractions import Fraction
from functools import cache

import pytest
from helpers import GAMES
from hypothesis import given, settings
from hypothesis import strategies as st
from test_graph import cyclic_graphs

import gdl
from gdl.cli import main
from gdl.errors import GdlError
from gdl.graph import RETROGRADE, strong_solve
from gdl.protocol import TERMINAL

GIVE_AND_TAKE = (GAMES / "cyclic" / "give-and-take.game").read_text()

NIM_LIKE = """game "Tokens"
players A, B
var pile in 0..3 = 3
action take requires pile > 0 effect pile = pile - 1
action give requires pile < 3 effect pile = pile + 1
terminal pile == 0
utility A = -1 if mover == A else 1
"""


def declared(rule: str, sum_line: str = "zero-sum", text: str = NIM_LIKE) -> str:
    return f"{text}{sum_line}\nwhen endless {rule}\n"


def codes(text: str) -> list[str]:
    with pytest.raises(GdlError) as caught:
        gdl.loads(text)
    return [d.code for d in caught.value.diagnostics]


# ---- the declaration -----------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["compile", "interpret"])
@pytest.mark.parametrize("rule, sum_line, expected", [
    ("draw", "zero-sum", (0, 0)),
    ("draw", "constant-sum 1", (Fraction(1, 2), Fraction(1, 2))),   # an equal share of the sum
    ("draw", "constant-sum 4", (2, 2)),
    ("(1/2, -1/2)", "zero-sum", (Fraction(1, 2), Fraction(-1, 2))),
    ("(-1, 1)", "", (-1, 1)),                                        # general-sum: any vector
])
def test_the_declared_value_reaches_game_info(backend, rule, sum_line, expected):
    game = gdl.loads(declared(rule, sum_line).replace("utility A", "utility B = 0\nutility A")
                     if not sum_line else declared(rule, sum_line), backend=backend)
    assert game.info.endless_value == expected
    assert all(type(v) is type(e) for v, e in zip(game.info.endless_value, expected))


def test_without_the_declaration_there_is_no_value():
    assert gdl.loads(NIM_LIKE + "zero-sum\n").info.endless_value is None


@pytest.mark.parametrize("text, code", [
    (declared("draw", "utility B = 0"), "E228"),          # a draw needs a declared sum
    (declared("(1, 1)"), "E228"),                         # breaks the zero sum
    (declared("(1, -1, 0)"), "E202"),                     # three utilities for two players
    (declared("drew"), "E201"),                           # an unknown word
    (declared("(true, false)"), "E203"),                  # not numbers
    (declared("(2, -2)", "zero-sum\nutility in -1..1"), "E228"),   # outside the declared bounds
    (declared("draw") + "when endless draw\n", "E200"),   # declared twice
])
def test_bad_declarations_are_located_errors(text, code):
    assert code in codes(text)


@pytest.mark.parametrize("rule, canonical", [("draw", "draw"), ("(1/2,-1/2)", "(1 / 2, -1 / 2)"),
                                             ("( 1 ,  -1 )", "(1, -1)")])
def test_the_declaration_formats_and_reads_back(rule, canonical, tmp_path):
    path = tmp_path / "g.game"
    path.write_text(declared(rule))
    assert main(["fmt", "--write", str(path)]) == 0
    once = path.read_text()
    assert once.endswith(f"when endless {canonical}\n")
    assert main(["fmt", "--check", str(path)]) == 0
    assert gdl.loads(once).info.endless_value == gdl.loads(declared(rule)).info.endless_value


def test_endless_is_a_reserved_word():
    assert "E224" in codes(NIM_LIKE.replace("pile", "endless") + "zero-sum\n")


# ---- the strong solver uses it ------------------------------------------------------------------

def brute_force_values(game, endless: int) -> dict:
    """Player 0's value of every reachable position when a play that never ends is worth
    ``endless``: minimax over plays cut after ``horizon`` moves, the cut scored ``endless``. In a
    game without chance, whatever a player can force it forces within as many moves as there are
    positions, so a horizon twice that is the value of the endless game."""
    states, frontier = set(), [game.initial_state()]
    while frontier:
        state = frontier.pop()
        if state not in states:
            states.add(state)
            if game.current_player(state) >= 0:
                frontier.extend(game.apply(state, a) for a in game.legal_actions(state))

    @cache
    def value(state, left):
        player = game.current_player(state)
        if player == TERMINAL:
            return game.returns(state)[0]
        if left == 0:
            return endless
        children = [value(game.apply(state, a), left - 1) for a in game.legal_actions(state)]
        return max(children) if player == 0 else min(children)

    horizon = 2 * len(states) + 2
    return {s: value(s, horizon) for s in states}


@pytest.mark.parametrize("endless", [0, 1, -1])
@pytest.mark.parametrize("tokens, share_at", [(3, 0), (4, 3), (5, 2), (6, 3), (7, 0), (8, 5)])
def test_declared_endless_play_matches_brute_force(tokens, share_at, endless):
    # Give and take, with endless play declared a draw (0), or a win for either side.
    rule = "draw" if endless == 0 else f"({endless}, {-endless})"
    game = gdl.loads(GIVE_AND_TAKE + f"when endless {rule}\n",
                     params={"tokens": tokens, "share_at": share_at})
    solution = strong_solve(game)
    assert solution.method == RETROGRADE
    graph = solution.graph
    expected = brute_force_values(game, endless)
    assert len(graph) == len(expected)
    won = lost = level = 0
    for state, v in expected.items():
        position = graph.position_id(state)
        assert solution.value(position) == (v, -v)
        player = game.current_player(state)
        if player < 0:
            continue
        mine = v if player == 0 else -v
        won, lost, level = won + (mine > 0), lost + (mine < 0), level + (mine == 0)
        assert solution.value_class(position) in (("win",) if mine > 0 else ("lose",) if mine < 0
                                                  else ("tie", "draw"))
    classes = solution.census()["classes"]
    assert (classes["win"], classes["lose"], classes["tie"] + classes["draw"]) == (won, lost, level)


def test_a_declared_draw_is_solved_where_it_was_refused(capsys):
    # Give and take with 6 tokens, sharing at 3: the start is a draw (neither side can force an
    # end); without the declaration `gdl solve` refuses it, with it the value is 0 for both.
    path = str(GAMES / "cyclic" / "give-and-take.game")
    assert main(["solve", path, "--strong"]) == 0
    assert "a draw: neither player can force an end worth as much" in capsys.readouterr().out
    game = gdl.loads(GIVE_AND_TAKE + "when endless draw\n")
    solution = strong_solve(game)
    assert solution.value(0) == (0, 0) and solution.value_class(0) == "draw"
    assert solution.census()["classes"]["draw"] > 0


def test_a_forcing_side_is_not_called_a_draw():
    # Endless play worth 1 to First at a position where Second can force First's loss: Second
    # does, so the class is a loss for the mover, not a draw (the value is clamped).
    game = gdl.loads(GIVE_AND_TAKE + "when endless (1, -1)\n", params={"tokens": 3, "share_at": 0})
    solution = strong_solve(game)
    values = brute_force_values(game, 1)
    for state, v in values.items():
        position = solution.graph.position_id(state)
        if game.current_player(state) >= 0 and solution.value_class(position) == "draw":
            assert v == 1   # a draw is worth exactly the declared value


# ---- gdl check --deep ---------------------------------------------------------------------------

def test_check_deep_notes_a_cycle_whose_endless_play_is_declared(tmp_path, capsys):
    path = tmp_path / "give-and-take.game"
    path.write_text(GIVE_AND_TAKE + "when endless draw\n")
    assert main(["check", "--deep", "--playouts", "5", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "note[E409]" in err and "error[E409]" not in err
    assert "when endless draw" in err   # the note points at the declaration
    # a note is neither a problem nor a warning in the verdict
    assert "deep check: no problems found (1 note(s))" in out and "warning" not in out
    # Without it, the same rules are still refused with a witness (tests/test_graph.py too).
    path.write_text(GIVE_AND_TAKE)
    assert main(["check", "--deep", "--playouts", "5", str(path)]) == 1
    err = capsys.readouterr().err
    assert "error[E409]" in err and "around the cycle" in err


@pytest.mark.parametrize("cells", [3, 4, 5, 6])
def test_ring_chase_declared_a_draw_matches_brute_force(cells):
    # games/cyclic/ring-chase.game: the only end is a catch, so a level value is a draw (never a
    # tie); a ring of 3 is a forced catch, a larger one has draws wherever the cat is not next
    # to the mouse on its move.
    game = gdl.load(GAMES / "cyclic" / "ring-chase.game", {"cells": cells})
    assert game.info.endless_value == (0, 0)
    solution = strong_solve(game)
    expected = brute_force_values(game, 0)
    movers = {s: game.current_player(s) for s in expected}
    mine = {s: (v if movers[s] == 0 else -v) for s, v in expected.items() if movers[s] >= 0}
    for state, v in expected.items():
        assert solution.value(solution.graph.position_id(state)) == (v, -v)
    assert solution.census()["classes"] == {
        "win": sum(m > 0 for m in mine.values()), "lose": sum(m < 0 for m in mine.values()),
        "tie": 0, "draw": sum(m == 0 for m in mine.values())}
    assert (solution.census()["classes"]["draw"] == 0) == (cells == 3)


@settings(max_examples=60)
@given(cyclic_graphs(chance=False), st.integers(-3, 3))
def test_declared_endless_value_on_generated_cyclic_graphs(game, endless):
    # Generated graphs (tests/test_graph.py), endless play worth ``endless`` to player 0 (outside
    # the terminal payoffs' -2..2 sometimes, so both clamps are met): every position's value is
    # the brute force's, the game cut off after twice as many moves as there are positions and
    # the cut valued ``endless``.
    from dataclasses import replace as with_changes

    game.info = with_changes(game.info, endless_value=(endless, -endless))
    solution = strong_solve(game)      # (the part reachable from the start may have no cycle)
    for state, v in brute_force_values(game, endless).items():
        position = solution.graph.position_id(state)
        assert solution.value(position) == (v, -v), state
        if game.current_player(state) >= 0 and solution.value_class(position) == "draw":
            assert v == endless


@pytest.mark.parametrize("endless", [1, 0, -1])
@pytest.mark.parametrize("tokens, share_at", [(4, 3), (6, 3), (7, 0), (8, 5)])
def test_a_forced_end_has_the_remoteness_of_the_fastest_force(tokens, share_at, endless):
    # Where the declared value of endless play decides a draw range, the side that can force
    # the end at that value does, as fast as it can, while the other side, playing only moves
    # that keep the value (optimal moves), holds out as long as it can; where both sides can
    # force it, the winner hurries (docs/graph.md). The remoteness is then the fewest moves in
    # which the game ends. Checked by brute force: the values and what each side can force from
    # the cut-off game, then the moves needed.
    rule = "draw" if endless == 0 else f"({endless}, {-endless})"
    game = gdl.loads(GIVE_AND_TAKE + f"when endless {rule}\n",
                     params={"tokens": tokens, "share_at": share_at})
    solution = strong_solve(game)
    value = brute_force_values(game, endless)
    # the end each side can force (the cut-off scored as no end at all for it)
    by_0, by_1 = brute_force_values(game, -100), brute_force_values(game, 100)

    def hurries(state):
        player, v = game.current_player(state), value[state]
        forcers = {p for p, forced in ((0, by_0[state]), (1, by_1[state])) if forced == v}
        if forcers == {0, 1}:
            return (v if player == 0 else -v) >= 0
        return player in forcers

    def optimal(state):
        return [c for c in (game.apply(state, a) for a in game.legal_actions(state))
                if value[c] == value[state]]

    @cache
    def ends_within(state, left):
        """Whether the game ends within ``left`` moves, all of them optimal, when the side to
        move hurries or delays as the rule says."""
        if game.current_player(state) == TERMINAL:
            return True
        if left == 0:
            return False
        children = [ends_within(c, left - 1) for c in optimal(state)]
        return any(children) if hurries(state) else all(children)

    checked = 0
    for position in range(len(solution.graph)):
        state = solution.graph.state(position)
        if game.current_player(state) < 0:
            continue
        r = solution.remoteness(position)
        if solution.value_class(position) == "draw":
            assert r == -1 and value[state] not in (by_0[state], by_1[state])
            continue
        assert solution.value(position)[0] == value[state]
        assert ends_within(state, r)
        assert r == 0 or not ends_within(state, r - 1)
        checked += 1
    assert checked


def test_show_ir_lists_the_declared_value(capsys):
    text = declared("(1/2, -1/2)")
    path = GAMES / "cyclic" / "ring-chase.game"
    assert main(["show", "--emit", "ir", str(path)]) == 0
    assert "when endless: Cat 0, Mouse 0" in capsys.readouterr().out
    assert gdl.loads(text).info.endless_value == (Fraction(1, 2), Fraction(-1, 2))


# ---- chance and endless play -----------------------------------------------------------------

STANDOFF = (GAMES / "cyclic" / "standoff.game").read_text()


@pytest.mark.parametrize("worth", [Fraction(1, 2), Fraction(1), Fraction(0), Fraction(-1, 2),
                                   Fraction(-1), Fraction(1, 10)])
def test_a_chance_game_that_can_go_on_for_ever_is_worth_what_endless_play_is_declared(worth):
    # The stand-off (games/cyclic/standoff.game): A can fire and end it at -3/5 (a hit 1 time in
    # 5), B at 1/5 (a hit 2 times in 5: 3/5 - 2/5 for A), and waiting for ever is worth the
    # declared e to A. A fires only if e < -3/5, B only if e > 1/5, so the value is e clamped to
    # [-3/5, 1/5], exactly (the file's own declaration, e = 1/2, gives 1/5).
    # At the start A waits; when e < -3/5 firing is as good (B would fire back at once, as
    # waiting for ever would cost it more).
    text = STANDOFF.replace("when endless (1 / 2, -1 / 2)", f"when endless ({worth}, {-worth})")
    game = gdl.loads(text)
    solution = strong_solve(game)
    assert solution.exact
    expected = min(max(worth, Fraction(-3, 5)), Fraction(1, 5))
    assert solution.value(0) == (expected, -expected)
    best = {game.action_name(a) for a in solution.best_actions(0)}
    assert best == ({"wait"} if worth > Fraction(-3, 5) else {"wait", "fire"})


def test_without_the_declaration_a_stand_off_is_a_draw():
    # Endless play worth anything from -1 to 1 to A: the value would be anywhere from -3/5 to
    # 1/5 (the clamp above), so the start has no value; the shots themselves do.
    solution = strong_solve(gdl.loads(STANDOFF.replace("when endless (1 / 2, -1 / 2)\n", "")))
    assert solution.exact and solution.value(0) is None
    shots = [p for p in range(len(solution.graph)) if solution.graph.player[p] == -1]
    assert sorted(solution.value(p)[0] for p in shots) == [Fraction(-3, 5), Fraction(1, 5)]
