"""`repeat N { ... }`: a block run again until a pass changes nothing, at most N times. Hex floods
its groups with it; connectivity is checked against a breadth-first search written here, and
the value against Nash's theorem (the first player wins Hex on every board)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import gdl
from gdl.lang.format import format_text
from gdl.lang.parse import parse

BACKENDS = ("interpret", "compile")
HEX = Path(__file__).resolve().parent.parent / "games" / "hex.game"


def counter(body: str, backend: str) -> int:
    text = (f'game "c"\nplayers A\nvar x in 0..9 = 0\nvar done in bool = false\n'
            f'action go effect {body}; done = true\nterminal done\nutility A = x\n')
    game = gdl.loads(text, backend=backend)
    root = game.initial_state()
    return game.returns(game.apply(root, game.legal_actions(root)[0]))[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeat_stops_at_the_fixpoint_or_the_bound(backend):
    assert counter("repeat 9 { if x < 3 { x = x + 1 } }", backend) == 3   # the fourth pass changes nothing
    assert counter("repeat 2 { x = x + 1 }", backend) == 2                # the bound stops it
    assert counter("repeat 0 { x = 5 }", backend) == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("size", [2, 3])
def test_hex_is_a_first_player_win(backend, size):
    assert gdl.solve(gdl.load(HEX, {"size": size}, backend=backend)).values == (1, -1)


def connected(cells, player: str) -> bool:
    """Red joins row 0 to the last row, Blue column 0 to the last column (hex neighbours)."""
    n = len(cells)
    starts = [(0, c) for c in range(n)] if player == "Red" else [(r, 0) for r in range(n)]
    seen = {p for p in starts if cells[p[0]][p[1]] == player}
    todo = list(seen)
    while todo:
        r, c = todo.pop()
        if (player == "Red" and r == n - 1) or (player == "Blue" and c == n - 1):
            return True
        for dr, dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)):
            q = (r + dr, c + dc)
            if 0 <= q[0] < n and 0 <= q[1] < n and q not in seen and cells[q[0]][q[1]] == player:
                seen.add(q)
                todo.append(q)
    return False


@pytest.mark.parametrize("backend", BACKENDS)
def test_hex_floods_like_a_breadth_first_search(backend):
    game = gdl.load(HEX, {"size": 5}, backend=backend)
    rng = random.Random(15)
    for _ in range(30):
        state = game.initial_state()
        while True:
            cells = game.variables(state)["cell"]
            red, blue = connected(cells, "Red"), connected(cells, "Blue")
            assert game.is_terminal(state) == (red or blue)
            if red or blue:
                assert game.returns(state) == ((1, -1) if red else (-1, 1))
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))


def test_repeat_formats_and_reads_back():
    text = "action go effect repeat n * n { for i in 0..2 { x = i } } done = true\n"
    once = format_text(text, "<t>")
    assert parse(once) == parse(text)
    assert format_text(once, "<t>") == once
