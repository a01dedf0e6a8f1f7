"""Dobutsu shogi (games/dobutsu.game) against the published rules: the first moves counted by
hand, a perft against a brute force written here over its own board (seen from the player to
move, turned round after every move: nothing of the rule file's tables is reused), and the rules
one at a time on positions set up by hand: captured pieces change side, promotion, drops, the
try, the capture of the lion."""

from collections import Counter
from functools import cache

import pytest
from helpers import GAMES

import gdl
from gdl.backends.position import position
from gdl.tools.count import count


@cache
def load(backend="compile"):
    return gdl.load(GAMES / "dobutsu.game", backend=backend)


def play(game, state, *names):
    for name in names:
        actions = {game.action_name(a): a for a in game.legal_actions(state)}
        assert name in actions, (name, sorted(actions))
        state = game.apply(state, actions[name])
    return state


def legal(game, state):
    return {game.action_name(a) for a in game.legal_actions(state)}


# ---- an independent model ---------------------------------------------------------------------
# A position is (board, mine, theirs) from the side of the player to move: board[row * 3 + col],
# row 0 its home row, its pieces in capitals (L lion, G giraffe, E elephant, C chick, H hen), the
# other player's in small letters, "." empty; mine and theirs are the pieces in hand, counts of
# (giraffe, elephant, chick). After a move the board is turned round (square i goes to 11 - i)
# and the cases swap, so the next player to move is at the bottom again and moves up.

STEPS = {   # (rows up, columns right), for a piece of the player to move
    "L": [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)],
    "G": [(1, 0), (-1, 0), (0, 1), (0, -1)],
    "E": [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    "C": [(1, 0)],
    "H": [(1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, 0)],   # gold general: not back diagonals
}
HELD = {"g": 0, "e": 1, "c": 2, "h": 2}        # a captured hen is held as a chick
START = ("ELG" ".C." ".c." "gle", (0, 0, 0), (0, 0, 0))   # Sente to move


def turned(board):
    return "".join(board[11 - i].swapcase() for i in range(12))


def targets(board, square):
    """The squares the mover's piece on ``square`` steps to (own pieces not excluded)."""
    row, col = divmod(square, 3)
    for dr, dc in STEPS[board[square]]:
        if 0 <= row + dr < 4 and 0 <= col + dc < 3:
            yield (row + dr) * 3 + col + dc


def over(pos):
    """None while the game goes on; else +1 or -1 for the player to move. It wins when it can
    capture the enemy lion; else it has lost when the enemy lion stands on its home row."""
    board = pos[0]
    lion = board.index("l")
    if any(lion in targets(board, s) for s in range(12) if board[s].isupper()):
        return 1
    return -1 if lion < 3 else None


def children(pos, drops=True):
    """The positions after each move; without ``drops`` a captured piece leaves the game."""
    board, mine, theirs = pos
    result = []
    for s in range(12):
        if not board[s].isupper():
            continue
        for t in targets(board, s):
            if board[t].isupper():
                continue
            new, hand = list(board), list(mine)
            if board[t] != "." and drops:
                hand[HELD[board[t]]] += 1
            new[t] = "H" if board[s] == "C" and t >= 9 else board[s]
            new[s] = "."
            result.append((turned(new), theirs, tuple(hand)))
    for kind, piece in enumerate("GEC"):
        if mine[kind]:
            for t in range(12):
                if board[t] == ".":
                    new, hand = list(board), list(mine)
                    new[t], hand[kind] = piece, hand[kind] - 1
                    result.append((turned(new), theirs, tuple(hand)))
    return result


def perft(pos, depth, drops=True):
    """(histories of each length up to ``depth``, distinct positions met, of which over)."""
    per_ply, layer, seen = [1], Counter({(pos, 0): 1}), {(pos, 0)}
    for _ in range(depth):
        following = Counter()
        for (p, parity), n in layer.items():
            if over(p) is None:
                for child in children(p, drops):
                    following[(child, 1 - parity)] += n
        per_ply.append(sum(following.values()))
        seen.update(following)
        layer = following
    return tuple(per_ply), len(seen), sum(over(p) is not None for p, _ in seen)


# ---- the first moves, by hand -------------------------------------------------------------------

def test_sente_has_four_first_moves():
    # From the start only four moves are legal (Tanaka, section 4.1): the chick takes the chick
    # in front of it; the giraffe (c4) steps up to c3 (b4 holds the lion); the lion steps up to a3
    # or c3 (b3 holds the chick, a4 and c4 its own pieces). The elephant (a4) is blocked: its only
    # forward diagonal, b3, holds the chick. Nothing is in hand, so nothing can be dropped.
    game = load()
    assert legal(game, game.initial_state()) == {
        "move(1,1,1,0)",      # chick b3 x b2
        "move(0,2,1,0)",      # giraffe c4 - c3
        "move(0,1,1,-1)",     # lion b4 - a3
        "move(0,1,1,1)",      # lion b4 - c3
    }


def test_the_model_agrees_with_the_hand_count():
    assert len(children(START)) == 4 and over(START) is None


# ---- perft against the model --------------------------------------------------------------------

def test_perft_against_the_model():
    per_ply, states, ended = perft(START, 6)
    result = count(load(), depth=6)
    assert result.per_ply == per_ply
    assert (result.states, result.terminal_states) == (states, ended)


def test_perft_of_the_variant_without_drops():
    game = gdl.load(GAMES / "dobutsu.game", {"drops": False}, backend="compile")
    per_ply, states, ended = perft(START, 7, drops=False)
    result = count(game, depth=7)
    assert result.per_ply == per_ply
    assert (result.states, result.terminal_states) == (states, ended)


def test_perft_is_the_same_in_the_interpreter():
    assert count(load("interpret"), depth=3).per_ply == perft(START, 3)[0]


@pytest.mark.slow       # builds the native library of the rules (seconds, once per cache)
def test_perft_is_the_same_natively():
    assert count(load("native"), depth=5).per_ply == perft(START, 5)[0]


def test_perft_from_a_middle_position_with_pieces_in_hand():
    # Sente has a chick and an elephant in hand, Gote a giraffe: drops in every empty square.
    game = load()
    board = ("L.." ".E." "..." "g.l")        # Sente: lion a4, elephant b3; Gote: giraffe a1, lion c1
    pos = (board, (0, 1, 1), (1, 0, 0))
    state = position(game, {"cell": [[cell_symbol(board[r * 3 + c]) for c in range(3)]
                                     for r in range(4)],
                            "hand": [[0, 1, 1], [1, 0, 0]], "mover": "Sente"})
    per_ply, states, ended = perft(pos, 4)
    result = count(game, depth=4, root=state)
    assert result.per_ply == per_ply and (result.states, result.terminal_states) == (states, ended)


def cell_symbol(letter, sente=True):
    """The rule file's symbol for a letter of the model's board (Sente to move: no turn)."""
    if letter == ".":
        return "empty"
    return ("S" if letter.isupper() == sente else "G") + letter.upper()


# ---- the rules, one at a time --------------------------------------------------------------------

def board_state(game, rows, hand=((0, 0, 0), (0, 0, 0)), mover="Sente"):
    """A position from its rows, Sente's home row (row 0) first: capitals are Sente's pieces."""
    return position(game, {"cell": [[cell_symbol(ch) for ch in row] for row in rows],
                           "hand": [list(h) for h in hand], "mover": mover})


def test_a_captured_piece_changes_side():
    game = load()
    state = play(game, game.initial_state(), "move(1,1,1,0)")       # chick b3 x b2
    assert state == board_state(game, ["ELG", "...", ".C.", "gle"], ((0, 0, 1), (0, 0, 0)), "Gote")
    state = play(game, state, "move(3,2,-1,-1)")                      # elephant c1 x b2
    assert state == board_state(game, ["ELG", "...", ".e.", "gl."], ((0, 0, 1), (0, 0, 1)))
    # Sente drops the chick it took, as its own, on any of the 6 empty squares
    drops = {name for name in legal(game, state) if name.startswith("drop")}
    assert drops == {"drop(2,1,0)", "drop(2,1,1)", "drop(2,1,2)", "drop(2,2,0)",
                     "drop(2,2,2)", "drop(2,3,2)"}
    state = play(game, state, "drop(2,3,2)")         # on Gote's home row: it stays a chick
    assert state == board_state(game, ["ELG", "...", ".e.", "glC"], ((0, 0, 0), (0, 0, 1)), "Gote")


def test_a_chick_on_the_far_row_becomes_a_hen_and_a_captured_hen_a_chick():
    game = load()
    state = board_state(game, ["L..", "...", "C..", "..l"])
    state = play(game, state, "move(2,0,1,0)")
    assert state == board_state(game, ["L..", "...", "...", "H.l"], mover="Gote")
    # the hen moves like a gold general: forward, sideways and straight back, not back diagonally
    hen = board_state(game, ["L..", ".H.", "...", "..l"])
    steps = {name for name in legal(game, hen) if name.startswith("move(1,1,")}
    assert steps == {"move(1,1,1,-1)", "move(1,1,1,0)", "move(1,1,1,1)", "move(1,1,0,-1)",
                     "move(1,1,0,1)", "move(1,1,-1,0)"}
    # Gote's lion takes the hen: it goes to Gote's hand as a chick
    state = board_state(game, ["L..", "...", "...", "Hl."], mover="Gote")
    state = play(game, state, "move(3,1,0,-1)")
    assert state == board_state(game, ["L..", "...", "...", "l.."], ((0, 0, 0), (0, 0, 1)))


def test_a_chick_dropped_on_the_far_row_cannot_move():
    game = load()
    state = board_state(game, ["L..", "...", "...", "C.l"])
    assert not any(name.startswith("move(3,0,") for name in legal(game, state))


def test_a_safe_try_wins_and_an_unsafe_one_loses():
    game = load()
    # Sente's lion steps onto Gote's home row where nothing attacks it: Gote, to move, has lost
    state = board_state(game, ["...", "...", "L..", "..l"])
    after = play(game, state, "move(2,0,1,0)")
    assert game.is_terminal(after) and game.returns(after) == (1, -1)
    # onto a square Gote's lion attacks: Gote, to move, takes the lion and wins
    state = board_state(game, ["...", "...", "L..", "..l"])
    after = play(game, state, "move(2,0,1,1)")
    assert game.is_terminal(after) and game.returns(after) == (-1, 1)


def test_a_lion_that_can_be_taken_ends_the_game_for_the_taker():
    game = load()
    # Gote's giraffe (b2) attacks Sente's lion (b3): Gote to move wins
    state = board_state(game, [".G.", ".L.", ".g.", "..l"], mover="Gote")
    assert game.is_terminal(state) and game.returns(state) == (-1, 1)
    # the same board with Sente to move: it is not over (Sente's giraffe cannot reach Gote's lion)
    state = board_state(game, [".G.", ".L.", ".g.", "..l"], mover="Sente")
    assert not game.is_terminal(state)


def test_endless_play_is_a_draw():
    assert load().info.endless_value == (0, 0)


@pytest.mark.parametrize("rows, steps", [
    (["L..", "...", "...", "..l"], 3),       # a lion in a corner: up, right, diagonally
    (["...", ".L.", "...", "..l"], 8),       # in the middle: every direction
    # giraffe a4: a3, b4; elephant b3: a2, c2 (a4, c4 are its own); lion c4: b4, c3
    (["G.L", ".E.", "...", "..l"], 2 + 2 + 2),
])
def test_steps_against_the_model(rows, steps):
    game = load()
    board = "".join(rows)
    assert len(children((board, (0, 0, 0), (0, 0, 0)))) == steps
    assert len(legal(game, board_state(game, rows))) == steps


def test_the_start_comes_back_with_the_other_player_to_move():
    # Sente loses a move: its giraffe steps aside (c4-c3-c2), the lion goes round the triangle
    # b4-c4-c3 and the giraffe comes home, 7 moves, while Gote's giraffe steps out and back 3
    # times (6 moves). Nothing can take a lion on the way. So every position is reachable with
    # either player to move (the half turn of the board maps the game to itself and the start to
    # itself), and a walk that tells the player to move apart meets twice Tanaka's positions
    # turned to the first player (docs/dobutsu.md).
    game = load()
    sente = ["move(0,2,1,0)", "move(1,2,1,0)", "move(0,1,0,1)", "move(0,2,1,0)",
             "move(1,2,-1,-1)", "move(2,2,-1,0)", "move(1,2,-1,0)"]
    gote = ["move(3,0,-1,0)", "move(2,0,1,0)"] * 3
    moves = [m for pair in zip(sente, gote) for m in pair] + sente[-1:]
    state = play(game, game.initial_state(), *moves)
    assert state == position(game, {"mover": "Gote"})


def test_the_mirror_image_of_the_start_is_reachable():
    # The chicks are exchanged (b3 x b2, recaptured by the elephant from c1), then Sente walks
    # its elephant a4-b3-c4 and its giraffe c4-c3-b3-a3-a4, Gote its elephant b2-a1 and its
    # giraffe a1-a2-b2-c2-c1, and both drop their chick back: the start mirrored, Gote to move.
    # No lion is ever attacked on the way. With the previous test, every position's mirror
    # image and half turn are reachable too, so a walk that tells them apart meets exactly
    # 4 x Tanaka's positions - 2 x the boards that are their own mirror image (docs/dobutsu.md).
    game = load()
    moves = ["move(1,1,1,0)", "move(3,2,-1,-1)", "move(0,2,1,0)", "move(3,0,-1,0)",
             "move(0,0,1,1)", "move(2,1,1,-1)", "move(1,1,-1,1)", "move(2,0,0,1)",
             "move(1,2,0,-1)", "move(2,1,0,1)", "move(1,1,0,-1)", "move(2,2,1,0)",
             "move(1,0,-1,0)", "drop(2,2,1)", "drop(2,1,1)"]
    state = play(game, game.initial_state(), *moves)
    assert state == board_state(game, ["GLE", ".C.", ".c.", "elg"], mover="Gote")
