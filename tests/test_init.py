"""`init { ... }` (the start computed by statements: boards from params, chance at the root, who
moves first), typed `param` values (symbols are not integers) and the built-in `opponent`.
Expected values are worked out by hand in each test, or come from FACTS.md."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import gdl
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.moves import play
from gdl.protocol import CHANCE

BACKENDS = ("interpret", "compile")
HEXAPAWN = Path(__file__).resolve().parent.parent / "games" / "hexapawn.game"

DEAL = """
game "High card"
players A, B
var card[2] in 0..3 = 0
var over in bool = false
var result in -2..2 = 0
init {
    random a in 1..3; card[0] = a;
    random b in {1: 1/2 if a != 1 else 0, 2: 1/2 if a != 2 else 0, 3: 1/2 if a != 3 else 0};
    card[1] = b
}
action fold by A effect result = -1; over = true
action bet by A effect result = 2 if card[0] > card[1] else -2; over = true
terminal over
utility A = result
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_deal_is_chance_at_the_root(backend):
    game = gdl.loads(DEAL, backend=backend)
    root = game.initial_state()
    assert game.current_player(root) == CHANCE
    assert [p for _, p in game.chance_outcomes(root)] == [Fraction(1, 3)] * 3
    dealt = play(game, ["a=3", "b=1"])
    assert game.current_player(dealt) == 0          # A moves first, after the deal
    assert [game.action_name(a) for a in game.legal_actions(dealt)] == ["fold", "bet"]
    # A (who sees both cards here) bets when ahead (+2) and folds when behind (-1); A's card is
    # higher in half of the six equally likely deals: 1/2 * 2 + 1/2 * (-1) = 1/2.
    assert gdl.solve(game).values == (Fraction(1, 2), Fraction(-1, 2))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("size", [3, 4])
def test_a_board_sized_by_a_param(backend, size):
    game = gdl.load(HEXAPAWN, {"size": size}, backend=backend)
    cells = game.variables(game.initial_state())["cell"]
    assert cells[0] == ["White"] * size and cells[-1] == ["Black"] * size
    assert all(row == ["empty"] * size for row in cells[1:-1])
    assert game.current_player(game.initial_state()) == 0      # White, as before `init`
    assert len(game.legal_actions(game.initial_state())) == size   # each pawn steps forward


@pytest.mark.parametrize("backend", BACKENDS)
def test_hexapawn_from_init_is_still_a_black_win(backend):
    # FACTS.md: in Gardner's 3 x 3 hexapawn, the second player (Black) wins.
    assert gdl.solve(gdl.load(HEXAPAWN, backend=backend)).values == (-1, 1)


FIRST = """
game "Who starts"
players A, B
param first = A
var owner in players = A
var moves in 0..2 = 0
init { next first }
action take effect owner = opponent; moves = moves + 1
terminal moves == 2
utility A = 1 if owner == A else -1
zero-sum
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("first, index", [("A", 0), ("B", 1)])
def test_the_first_player_from_a_symbol_param(backend, first, index):
    game = gdl.loads(FIRST, params={"first": first}, backend=backend)
    assert game.current_player(game.initial_state()) == index
    # Two moves; the second is made by the player who did not start, and gives `owner` to its
    # opponent, the starter: A ends up the owner when A starts.
    assert gdl.solve(game).values == ((1, -1) if first == "A" else (-1, 1))


def test_opponent_is_built_in_only_for_two_players_and_yields_to_a_define():
    three = FIRST.replace("players A, B", "players A, B, C").replace("zero-sum", "utility B = 0\n"
                                                                     "utility C = 0")
    with pytest.raises(gdl.GdlError) as caught:
        gdl.loads(three)
    assert caught.value.diagnostics[0].code == "E201"
    assert "two-player" in caught.value.diagnostics[0].hint
    mine = FIRST + "define opponent = A\n"     # a file's own `opponent` wins: always A
    game = gdl.loads(mine, params={"first": "B"})
    assert game.returns(play(game, ["take", "take"])) == (1, -1)


def test_init_formats_and_reads_back():
    text = "var x in 0..3 = 0\ninit { for i in 0..2 { x = i } random d in 1..2; x = d; next B }\n"
    once = format_text(text, "<t>")
    assert parse(once) == parse(text)
    assert format_text(once, "<t>") == once
