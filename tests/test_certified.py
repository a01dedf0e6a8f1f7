"""A certified interval where the exact check of a chance game with cycles cannot run: value
iteration from below and from above brackets every position's value (gdl.graph.iteration). The
games here are small enough to solve exactly too, so the exact value is there to compare with."""

import json
from fractions import Fraction

import pytest
from helpers import GAMES

import gdl
import gdl.graph.iteration as iteration
from gdl.cli import main
from gdl.cli.strong import _decimal
from gdl.graph import strong_solve


def pig(goal):
    return gdl.load(GAMES / "cyclic" / "pig100.game", {"goal": goal})


def piglet(goal):
    return gdl.load(GAMES / "cyclic" / "piglet.game", {"goal": goal})


@pytest.mark.parametrize("game", [pig(10), piglet(3), piglet(5)], ids=["pig10", "piglet3", "piglet5"])
@pytest.mark.parametrize("reason", ["too many positions", "numbers too large"])
def test_the_interval_holds_the_exact_value_at_every_position(game, reason, monkeypatch):
    exact = strong_solve(game)
    assert exact.exact and exact.interval(0) is None        # exact: no interval needed
    if reason == "too many positions":
        monkeypatch.setattr(iteration, "EXACT_LIMIT", 0)
    else:
        monkeypatch.setattr(iteration, "MAX_DIGITS", 1)
    bracketed = strong_solve(game)
    assert not bracketed.exact and "bracketed" in bracketed.note
    widest = 0
    for position in range(len(exact.graph)):
        value = exact.value(position)
        for (low, high), v in zip(bracketed.interval(position), value):
            assert low <= v <= high
            widest = max(widest, high - low)
    assert widest < Fraction(1, 10**9)                      # and tight


def test_the_win_probability_interval(monkeypatch, capsys):
    # Pig to 10: the exact value 4591/10961 for A (checked against OpenSpiel-style iteration in
    # tests/test_graph.py) means A wins with probability (1 + 4591/10961) / 2.
    exact_value = strong_solve(pig(10)).value(0)[0]
    chance = (1 + exact_value) / 2
    monkeypatch.setattr(iteration, "EXACT_LIMIT", 0)
    path = str(GAMES / "cyclic" / "pig100.game")
    assert main(["solve", path, "--set", "goal=10", "--strong", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["exact"] is False
    low, high = (Fraction(document["win_probability"][k]) for k in ("low", "high"))
    assert low <= chance <= high and high - low < Fraction(1, 10**9)
    assert document["win_probability"]["player"] == "A"
    a = document["interval"]["A"]
    assert Fraction(a["low"]) <= exact_value <= Fraction(a["high"])
    assert float(a["low_decimal"]) <= float(exact_value) <= float(a["high_decimal"])
    assert main(["solve", path, "--set", "goal=10", "--strong"]) == 0
    out = capsys.readouterr().out
    assert "certified" in out and "P(A wins)  ∈ [0.709424322" in out


def test_decimals_are_rounded_outwards():
    third = Fraction(1, 3)
    assert (_decimal(third, up=False), _decimal(third, up=True)) == ("0.333333333333",
                                                                      "0.333333333334")
    assert (_decimal(-third, up=False), _decimal(-third, up=True)) == ("-0.333333333334",
                                                                        "-0.333333333333")
    assert _decimal(Fraction(5, 4), up=True) == "1.250000000000"


def test_no_interval_where_plays_may_never_end():
    # Without a stopping game the iteration's fixed point need not be the value: no interval.
    # Piglet where a player may hold with nothing, handing the opponent the mirror position:
    # the players could pass for ever, so the game is solved exactly with endless play worth
    # the least end and the greatest (docs/graph.md). Moving first is an advantage in Piglet,
    # so nobody passes, whatever endless play is worth: every position is Piglet's own.
    piglet = (GAMES / "cyclic" / "piglet.game").read_text()
    text = piglet.replace("requires turn_total > 0", "requires true")   # hold with nothing
    assert text != piglet
    solution = strong_solve(gdl.loads(text, params={"goal": 2}))
    assert solution.exact and solution.interval(0) is None
    plain = strong_solve(gdl.loads(piglet, params={"goal": 2}))
    for position in range(len(plain.graph)):
        state = plain.graph.state(position)
        assert solution.value(solution.graph.position_id(state)) == plain.value(position)
