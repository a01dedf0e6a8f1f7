"""`display`: how a board is drawn (pictures, layout words) and which clicks play a move
(docs/language.md, "display"). The checker's messages, `gdl fmt`, and the board `gdl serve`
sends the page (gdl/serve/board.py): where each cell goes, and which cells play each move.

The expected places are written from what each word means (a comment at each), not read from
gdl's output.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

import gdl
from gdl.errors import GdlError
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.serve.board import MAX_IMAGE, Boards
from gdl.serve.workbench import Workbench

GAMES = Path(__file__).resolve().parent.parent / "games"

# A board of two rows of three cells, and a one-index array of six pits (a mancala of 2 + 2 pits).
BASE = """game "board"
players A, B
var cell[2][3] in {empty, A, B} = empty
var pit[6] in 0..9 = 1
action put(r in 0..1, c in 0..2) requires cell[r][c] == empty effect cell[r][c] = mover
terminal all r in 0..1, c in 0..2: cell[r][c] != empty
utility A = 0
zero-sum
"""
LINE = BASE.count("\n") + 1          # the line of the first declaration added to BASE


def rules(extra: str, filename: str = "board.game"):
    return gdl.loads(BASE + extra + "\n", filename).ir


def problems(extra: str) -> list[tuple]:
    with pytest.raises(GdlError) as caught:
        rules(extra)
    return [(d.code, d.span.line, d.span.column, d.message, d.hint or "")
            for d in caught.value.diagnostics]


# ---- the checker ---------------------------------------------------------------------------------

def test_every_word_of_a_display_is_read():
    board = rules('display cell as {empty: "." blank, A: "a" disc red, B: star "#c03"} '
                  "transpose flip mirror checkered on green").boards["cell"]
    assert (board.transpose, board.flip, board.mirror, board.checkered) == (True, True, True, True)
    assert board.background == "green" and board.layout == "grid" and not board.plain
    # the pictures by value: empty, A and B are the symbols 2, 0 and 1 (the players first)
    shapes = {value: (p.shape, p.colour) for value, p in board.pictures}
    assert shapes == {2: ("blank", None), 0: ("disc", "red"), 1: ("star", "#c03")}
    game = gdl.loads(BASE + 'display cell as {empty: "." blank, A: "a" disc red, B: star "#c03"}\n',
                     "board.game")
    # the terminals' texts: B has a picture and no text, so it is written as it is
    assert game.ir.display["cell"] == {2: ".", 0: "a"}
    assert rules("display pit mancala").boards["pit"].layout == "mancala"
    assert rules("display cell hex").boards["cell"].layout == "hex"
    assert rules('display cell as {empty: ".", A: "a"}').boards["cell"].plain


def test_a_click_names_cells_by_the_actions_parameters():
    found = rules("display cell\ndisplay put(r, c) as cell[r][c] -> cell[1 - r][c]").clicks
    (click,) = found
    assert click.action.name == "put" and click.names == ("r", "c")
    assert [cell.variable.name for cell in click.cells] == ["cell", "cell"]
    assert [len(cell.indices) for cell in click.cells] == [2, 2]
    assert len(rules("display cell\ndisplay put(r, c) as cell[c]").clicks[0].cells[0].indices) == 1


@pytest.mark.parametrize("extra, code, line, column, message, hint", [
    # pictures
    ('display cell as {A: "a" dsic red}', "E223", 0, 25, "no picture is called 'dsic'", "'disc'"),
    ('display cell as {A: fill}', "E223", 0, 21, "`fill` needs a colour", "fill green"),
    ('display cell as {A: blank red}', "E223", 0, 27, "`blank` draws nothing", "write `fill`"),
    ('display cell as {A: disc redd}', "E223", 0, 26, "no colour is called 'redd'", "'red'"),
    ('display cell as {A: disc "#12"}', "E223", 0, 26, "'#12' is not a colour", '"#rrggbb"'),
    ('display cell as {A: image}', "E223", 0, 21, "`image` needs its file", "pieces/"),
    ('display cell as {A: image a}', "E223", 0, 27, "written in quotes", "pieces/"),
    ('display cell as {A: image "../a.svg"}', "E223", 0, 27, "not a file under the rule file's",
     ".svg or .png"),
    ('display cell as {A: image "/etc/a.svg"}', "E223", 0, 27, "not a file under", ""),
    ('display cell as {A: image "a.gif"}', "E223", 0, 27, "neither .svg nor .png", ""),
    # layout words
    ("display cell flpi", "E223", 0, 14, "'flpi' is no word of a display", "'flip'"),
    ("display cell flip flip", "E223", 0, 19, "says again what this display already says", "once"),
    ("display cell on", "E223", 0, 14, "`on` needs the board's colour", "on green"),
    ("display cell on grene", "E223", 0, 17, "no colour is called 'grene'", "'green'"),
    ("display pit hex", "E223", 0, 13, "`hex` draws a board of two indices", "'pit' has 1"),
    ("display cell mancala", "E223", 0, 14, "`mancala` draws a one-index array", "[2, 3]"),
    ("display cell hex mancala", "E223", 0, 18, "says again", ""),
    # a misspelt declaration after a display is read as a word of it, and named
    ("display cell flip\nterminl", "E223", 1, 1, "'terminl' is no word of a display",
     "did you mean 'terminal'? A declaration starts a line of its own"),
    # what is displayed
    ("display cell\ndisplay cell flip", "E200", 1, 9, "a second display of 'cell'", "one `display`"),
    ("display put", "E223", 0, 9, "'put' is not a variable to display", "display put(...) as cell"),
    # clicks
    ("display put(r, c) as cell[r][c]", "E223", 0, 22, "'cell' is not displayed", "display cell"),
    ("display cell\ndisplay put(r) as cell[r]", "E202", 1, 9, "'put' has 2 parameter(s), and 1",
     "display put(r, c) as"),
    ("display cell\ndisplay put as cell[0]", "E202", 1, 9, "'put' has 2 parameter(s), and 0", ""),
    ("display cell\ndisplay put(r, c) as cell[r][c][0]", "E214", 1, 22,
     "'cell' takes 2 index(es), given 3", "cell[c]"),
    ("display cell\ndisplay cell(r) as cell[r]", "E223", 1, 9,
     "'cell' is a variable, and a click plays an action", "display cell as"),
    ("display cell\ndisplay put(r, c) as pit[r]", "E223", 1, 22, "'pit' is not displayed", ""),
    ("display cell\ndisplay put(r, c) as cell[r][x]", "E201", 1, 30, "'x'", ""),
    ("display cell\ndisplay put(r, c) as cell[r][c]\ndisplay put(r, c) as cell[r][c]", "E200", 2, 9,
     "a second display of the action 'put'", f"line {LINE + 1}"),
])
def test_each_mistake_is_located_and_its_hint_names_the_fix(extra, code, line, column, message, hint):
    # ``line`` counts from the first line added to BASE; columns were counted by hand
    first = problems(extra)[0]
    assert first[:3] == (code, LINE + line, column), first
    assert message in first[3] and hint in first[4], first


def test_gdl_check_prints_a_display_mistake_with_its_place(tmp_path, capsys):
    from gdl.cli import main

    path = tmp_path / "board.game"
    path.write_text(BASE + 'display cell as {A: disc redd}\n', encoding="utf-8")
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:{LINE}:26: error[E223]: no colour is called 'redd'" in err
    assert "Traceback" not in err and "^" in err


# ---- gdl fmt -------------------------------------------------------------------------------------

def test_fmt_keeps_every_word_and_is_stable():
    source = (BASE + 'display   cell as {empty: "."   blank, A: "a" disc  red, B: star "#c03"}'
              "  transpose   flip mirror checkered on  \"#2e7d32\"\n"
              "display pit   mancala\n"
              "display put( r , c ) as cell[ r ][c]->cell[1 - r][ c ]\n")
    formatted = format_text(source, "board.game")
    assert parse(formatted) == parse(source)
    assert format_text(formatted, "board.game") == formatted
    assert ('display cell as {empty: "." blank, A: "a" disc red, B: star "#c03"} transpose flip '
            'mirror checkered on "#2e7d32"') in formatted
    assert "display put(r, c) as cell[r][c] -> cell[1 - r][c]" in formatted


@pytest.mark.parametrize("name", ["connect4", "hexapawn", "breakthrough", "hex", "kalah", "othello",
                                  "tictactoe"])
def test_the_bundled_boards_are_formatted_as_they_are_written(name):
    text = (GAMES / f"{name}.game").read_text(encoding="utf-8")
    displays = [line for line in text.splitlines() if line.startswith("display")]
    assert displays
    formatted = format_text(text, f"{name}.game").splitlines()
    assert all(line in formatted for line in displays)


# ---- where the page draws each cell --------------------------------------------------------------

def places(extra: str, name: str = "cell") -> dict[tuple, tuple]:
    """Each cell's indices -> (row, column[, height]) on the drawn board, for the start."""
    game = gdl.loads(BASE + extra + "\n", "board.game")
    values = game.variables(game.initial_state())
    (block,) = [b for b in Boards(game).blocks(values) if b["name"] == name]
    assert block["kind"] == "board"
    return {tuple(c["at"]): (c["row"], c["column"]) + ((c["height"],) if "height" in c else ())
            for c in block["cells"]}


# cell[i][j] of the 2 x 3 board; every word in its meaning:
@pytest.mark.parametrize("words, where", [
    ("checkered", lambda i, j: (i, j)),            # first index down, second across
    ("flip", lambda i, j: (1 - i, j)),             # rows upward: row 0 at the bottom
    ("mirror", lambda i, j: (i, 2 - j)),           # columns leftward
    ("transpose", lambda i, j: (j, i)),            # the first index across
    ("transpose flip", lambda i, j: (2 - j, i)),   # Connect Four: columns across, row 0 down
    ("transpose flip mirror", lambda i, j: (2 - j, 1 - i)),
    ("flip mirror", lambda i, j: (1 - i, 2 - j)),  # turned half a turn
])
def test_the_layout_words_place_each_cell(words, where):
    assert places(f"display cell {words}") == {(i, j): where(i, j) for i in range(2) for j in range(3)}


def test_a_mancala_board_sows_anticlockwise():
    # pit[0..5]: the first player's houses 0 and 1 left to right along the bottom, its store
    # (2) on the right, two rows high; the second player's houses 3 and 4 right to left along
    # the top, its store (5) on the left. Sowing 0, 1, 2, 3, 4, 5 goes round anticlockwise.
    assert places("display pit mancala", "pit") == {
        (0,): (1, 1), (1,): (1, 2), (2,): (0, 3, 2), (3,): (0, 2), (4,): (0, 1), (5,): (0, 0, 2)}


def test_kalahs_board_has_its_stores_at_the_ends():
    wb = Workbench((GAMES / "kalah.game").read_text(encoding="utf-8"), "games/kalah.game")
    (block,) = wb.state()["board"]
    tall = sorted((c["column"], c["at"]) for c in block["cells"] if c.get("height") == 2)
    assert len(tall) == 2 and tall[0][0] == 0 and tall[1][0] == block["columns"] - 1


def test_pictures_and_texts_reach_the_page_by_value():
    game = gdl.loads(BASE + 'display cell as {empty: "." blank, A: "a" disc red} on "#1f4fa8"\n',
                     "board.game")
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
    (block,) = [b for b in Boards(game).blocks(game.variables(state)) if b["name"] == "cell"]
    assert block["background"] == "#1f4fa8" and (block["rows"], block["columns"]) == (2, 3)
    played = [c for c in block["cells"] if c["value"] == "A"]
    assert len(played) == 1 and played[0]["text"] == "a"
    assert played[0]["picture"] == {"shape": "disc", "colour": "red"}
    empty = [c for c in block["cells"] if c["value"] == "empty"]
    assert len(empty) == 5 and all(c["picture"] == {"shape": "blank", "colour": None} for c in empty)


# ---- which cells play each move ------------------------------------------------------------------

def bench(name: str) -> Workbench:
    return Workbench((GAMES / name).read_text(encoding="utf-8"), f"games/{name}", human=(0, 1))


def test_connect_four_plays_a_column_from_any_of_its_cells():
    # `display drop(c) as cell[c]`: one index of two, so every cell of column c plays drop(c)
    state = bench("connect4.game").state()
    assert {m["name"]: m["cells"] for m in state["moves"]} == {
        f"drop({c})": [["cell", [c]]] for c in range(4)}


def test_hexapawns_moves_go_forward_for_each_side():
    # White moves up the rows (forward +1), Black down (-1): a move's cells are where the pawn
    # is, then where it goes
    wb = bench("hexapawn.game")
    state = wb.state()
    assert {m["name"]: m["cells"] for m in state["moves"]} == {
        f"advance(0,{c})": [["cell", [0, c]], ["cell", [1, c]]] for c in range(3)}
    index = next(m["index"] for m in state["moves"] if m["name"] == "advance(0,1)")
    state = wb.move(index)
    cells = {m["name"]: m["cells"] for m in state["moves"]}
    assert cells["advance(2,0)"] == [["cell", [2, 0]], ["cell", [1, 0]]]
    assert cells["capture(2,0,1)"] == [["cell", [2, 0]], ["cell", [1, 1]]]     # onto the pawn
    assert cells["capture(2,2,1)"] == [["cell", [2, 2]], ["cell", [1, 1]]]
    assert "advance(2,1)" not in cells                                         # it is blocked


def test_a_board_without_clicks_still_has_its_moves_listed():
    game = gdl.loads(BASE + "display cell flip\n", "board.game")
    boards = Boards(game)
    assert not boards.clickable
    assert boards.cells(game.initial_state(), game.legal_actions(game.initial_state())[0]) is None


# ---- images shipped with the game ----------------------------------------------------------------

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>'


def image_board(directory: Path, name: str, data: bytes | None = SVG):
    """The start's board of a game whose A is drawn as the image ``name``, written with ``data``
    (None: not written) in ``directory``; the blocks, and what could not be drawn."""
    path = directory / "board.game"
    path.write_text(BASE + f'display cell as {{empty: ".", A: "a" image "{name}"}}\n', encoding="utf-8")
    if data is not None:
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
    game = gdl.load(path)
    boards = Boards(game, str(path))
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[0])
    (block,) = [b for b in boards.blocks(game.variables(state)) if b["name"] == "cell"]
    (cell,) = [c for c in block["cells"] if c["value"] == "A"]
    return cell, boards.problems


def test_an_image_next_to_the_rules_is_sent_as_data(tmp_path):
    cell, trouble = image_board(tmp_path, "pieces/a.svg")
    assert trouble == []
    prefix = "data:image/svg+xml;base64,"
    assert cell["picture"]["shape"] == "image" and cell["picture"]["src"].startswith(prefix)
    assert base64.b64decode(cell["picture"]["src"][len(prefix):]) == SVG
    assert cell["text"] == "a"


@pytest.mark.parametrize("name, data, why", [
    ("a.svg", None, "No such file"),
    ("a.svg", b"<html>not a picture</html>", "not an SVG image"),
    ("a.png", b"GIF89a....", "not a PNG image"),
    ("a.svg", b"<svg>" + b" " * MAX_IMAGE + b"</svg>", "larger than 256 KiB"),
])
def test_an_image_that_cannot_be_shown_leaves_the_text_and_says_why(tmp_path, name, data, why):
    cell, trouble = image_board(tmp_path, name, data)
    assert "picture" not in cell and cell["text"] == "a"
    assert len(trouble) == 1 and f"image {name!r}" in trouble[0] and why in trouble[0]


def test_a_link_out_of_the_games_directory_is_not_followed(tmp_path):
    outside = tmp_path / "secret.svg"
    outside.write_bytes(SVG)
    games = tmp_path / "game"
    games.mkdir()
    (games / "a.svg").symlink_to(outside)
    cell, trouble = image_board(games, "a.svg", data=None)
    assert "picture" not in cell
    assert len(trouble) == 1 and "not a .svg or .png file under" in trouble[0]


# ---- the terminal (gdl play) turns the board as the page does ------------------------------------

def drawn(name: str, moves: list[str] = ()) -> str:
    from gdl.tools.session import render

    game = gdl.load(GAMES / name)
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, next(a for a in game.legal_actions(state)
                                       if game.action_name(a) == move))
    return render(game, state)


def test_connect_four_stands_upright_in_the_terminal():
    # Red drops in column 0, Yellow on top of it, Red in column 1: the columns across, numbered
    # 0-3, row 0 at the bottom
    assert drawn("connect4.game", ["drop(0)", "drop(0)", "drop(1)"]) == "\n".join([
        "cell",
        "  0 1 2 3",
        "3 . . . .",
        "2 . . . .",
        "1 Y . . .",
        "0 R R . ."])


def test_hexapawn_has_white_at_the_bottom_and_hex_is_a_rhombus():
    assert drawn("hexapawn.game") == "cell\n  0 1 2\n2 B B B\n1 . . .\n0 W W W"
    assert drawn("hex.game", ["play(1,1)"]) == "cell\n  0 1 2\n0 . . .\n1  . R .\n2   . . ."


def test_mirror_and_transpose_number_the_turned_board():
    game = gdl.loads(BASE + 'display cell as {empty: ".", A: "a", B: "b"} mirror\n', "board.game")
    from gdl.tools.session import render

    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[1])   # put(0,1)
    assert render(game, state) == "cell\n  2 1 0\n0 . a .\n1 . . ."
    game = gdl.loads(BASE + 'display cell as {empty: ".", A: "a", B: "b"} transpose\n', "board.game")
    state = game.apply(game.initial_state(), game.legal_actions(game.initial_state())[1])
    assert render(game, state) == "cell\n  0 1\n0 . .\n1 a .\n2 . ."


def test_kalah_sits_between_its_stores_in_the_terminal():
    # South's houses 0-2 along the bottom left to right and its store 3 on the right; North's
    # houses 4-6 right to left along the top and its store 7 on the left; each under its number
    assert drawn("kalah.game", ["sow(0)"]) == "\n".join([
        "pit",
        "   6 5 4",
        "   3 3 3",
        "7         3",
        "0         1",
        "   0 4 4",
        "   0 1 2"])
