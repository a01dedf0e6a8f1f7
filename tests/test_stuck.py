"""`when stuck lose | win`: a player to move with no legal action ends the game (normal and misère
play), checked against Bouton's theorem (FACTS.md: Nim) and small hand-worked cases, on both
back ends."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse

BACKENDS = ("interpret", "compile")


def nim(heaps: list[int], rule: str = "lose", extra: str = "zero-sum") -> str:
    """Nim with no terminal and no utility: the stuck rule is the whole ending."""
    top = max(heaps)
    return (f'game "Nim"\nplayers First, Second\n'
            f'var heap[{len(heaps)}] in 0..{top} = [{", ".join(map(str, heaps))}]\n'
            f'action take(h in 0..{len(heaps) - 1}, k in 1..{top})\n'
            f'    requires heap[h] >= k\n    effect heap[h] = heap[h] - k\n'
            f'{extra}\nwhen stuck {rule}\n')


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("heaps, first_wins", [([5, 8, 13], False), ([2, 3, 8, 10], True)])
def test_normal_play_nim_follows_bouton(backend, heaps, first_wins):
    # FACTS.md: the player to move loses exactly when the XOR of the heaps is 0.
    game = gdl.loads(nim(heaps), backend=backend)
    assert gdl.solve(game).values == ((1, -1) if first_wins else (-1, 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_misere_three_singletons_lose_for_the_mover(backend):
    # Heaps 1, 1, 1 under misère play (taking the last token loses): every move takes one heap,
    # so the first player takes the first and the last token: it loses.
    game = gdl.loads(nim([1, 1, 1], rule="win"), backend=backend)
    assert gdl.solve(game).values == (-1, 1)
    # Normal play from the same heaps: the first player takes the last token and wins.
    assert gdl.solve(gdl.loads(nim([1, 1, 1]), backend=backend)).values == (1, -1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_stuck_state_is_terminal_with_its_values(backend):
    game = gdl.loads(nim([1]), backend=backend)
    root = game.initial_state()
    assert game.current_player(root) == 0 and not game.is_terminal(root)
    after = game.apply(root, game.legal_actions(root)[0])
    assert game.is_terminal(after) and game.legal_actions(after) == []
    assert game.returns(after) == (1, -1)          # Second is stuck: Second loses


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_sum_gives_the_loser_zero(backend):
    game = gdl.loads(nim([1], extra="constant-sum 2"), backend=backend)
    root = game.initial_state()
    after = game.apply(root, game.legal_actions(root)[0])
    assert game.returns(after) == (2, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_terminal_and_utility_still_decide_other_endings(backend):
    # Hexapawn: reaching the far rank wins (terminal, utility); a player who cannot move loses
    # (when stuck lose). FACTS.md: the second player (Black) wins.
    game = gdl.load(Path(__file__).resolve().parent.parent / "games" / "hexapawn.game", backend=backend)
    assert gdl.solve(game).values == (-1, 1)


def test_win_and_lose_remain_usable_names():
    text = nim([2]).replace("zero-sum", "define win = heap[0] == 0\ndefine lose = not win\nzero-sum")
    assert gdl.solve(gdl.loads(text)).values == (1, -1)


@pytest.mark.parametrize("rule", ["pass", "lose", "win"])
def test_stuck_rules_format_and_read_back(rule):
    text = nim([2], rule=rule)
    once = format_text(text, "<t>")
    assert f"when stuck {rule}" in once
    assert parse(once) == parse(text)


def test_pass_without_terminal_still_needs_one():
    with pytest.raises(GdlError) as caught:
        gdl.loads(nim([2], rule="pass"))
    assert [d.code for d in caught.value.diagnostics] == ["E206"]


def test_each_call_hands_out_its_own_list_of_actions():
    # The compiled terminal test of a `when stuck` game lists the mover's actions and keeps them
    # for legal_actions (so they are found once a state). A caller may change the list it gets:
    # the next call must still give the rules' answer, as the interpreter does.
    games = [gdl.loads(nim([1, 2]), backend=backend) for backend in BACKENDS]
    for game in games:
        s = game.initial_state()
        assert game.current_player(s) == 0
        first = game.legal_actions(s)
        expected = list(first)
        first.clear()
        assert game.legal_actions(s) == expected
        assert game.current_player(s) == 0 and game.legal_actions(s) == expected
    assert [len(game.legal_actions(game.initial_state())) for game in games] == [3, 3]  # 1 + 2 takes
