"""`gdl serve` in a real headless browser: Debian's Chromium driven by Selenium.

CI installs the browser with `.ci/install-browser` (packages chromium and chromium-driver). The
expected values are facts about tic-tac-toe (/work/shared/FACTS.md): the empty board is a draw and
so is every first move; after X takes the centre (cell 4) and O an edge (cell 1), X wins.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
GAME = "games/tictactoe.game"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def serve(*options: str, game: str = GAME):
    """`gdl serve` itself, as a user starts it, on a free port; its first line names the page."""
    process = subprocess.Popen([sys.executable, "-m", "gdl", "serve", game, "--port", "0", *options],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, f"gdl serve did not print its address: {line!r} {process.stderr.read()}"
        yield found[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def server():
    yield from serve()


@pytest.fixture(scope="module")
def browser():
    assert os.path.exists(CHROMIUM) and os.path.exists(DRIVER), (
        "the browser test needs Chromium and its driver: run .ci/install-browser "
        "(Debian packages chromium and chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def settle(driver) -> None:
    """Wait until the page has no request under way (the solver's reply included)."""
    WebDriverWait(driver, 60).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "false")


def moves(driver) -> list[tuple[str, str]]:
    """The listed moves as (name, label)."""
    return [(item.get_attribute("data-name"), item.get_attribute("data-label"))
            for item in driver.find_elements(By.CSS_SELECTOR, "#moves li")]


def click_move(driver, name: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f'#moves li[data-name="{name}"] button').click()
    settle(driver)


def text(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def cells(driver) -> list[str]:
    """The texts of the board's cells (tic-tac-toe's display draws the texts)."""
    return [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#board .drawn .cell")]


def open_page(driver, url: str) -> None:
    """The page, with a new game (the tests share one server)."""
    driver.get(url)
    settle(driver)
    driver.find_element(By.ID, "restart").click()
    settle(driver)


def test_a_full_game_against_the_solver_shows_every_moves_value(server, browser):
    open_page(browser, server)
    assert text(browser, "title") == "Tic-tac-toe"
    assert "X to move (you)" in text(browser, "status")
    # Every first move of X is a draw (FACTS: every one of X's nine first moves has value 0).
    first = moves(browser)
    assert len(first) == 9 and {label for _, label in first} == {"draw"}
    assert "X 0, O 0" in text(browser, "position-value")

    turns = 0
    while "Game over" not in text(browser, "status"):
        listed = moves(browser)
        labels = {label for _, label in listed}
        # Against a perfect opponent from a drawn start the value stays a draw at every turn:
        # some move keeps it, and none can win.
        assert "draw" in labels and "win" not in labels and labels <= {"draw", "loss"}
        filled = sum(c != "." for c in cells(browser))
        assert filled == 2 * turns          # the solver answered each move of X
        click_move(browser, next(name for name, label in listed if label == "draw"))
        turns += 1
    # Both sides played their best: a draw, and X moved five times on a full board.
    assert turns == 5 and "." not in cells(browser)
    assert "a draw" in text(browser, "status") and "X 0, O 0" in text(browser, "status")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history li")) == 9


def test_values_change_after_a_mistake_and_undo_takes_it_back(server, browser):
    open_page(browser, server)
    # Play O too for one move, to make the mistake the solver would not make.
    browser.find_element(By.CSS_SELECTOR, '#seats input[data-player="O"]').click()
    settle(browser)
    click_move(browser, "place(1,1)")        # X takes the centre (cell 4)
    assert "O to move (you)" in text(browser, "status")
    labels = dict(moves(browser))
    # For O the edges lose and the corners draw (FACTS: after X 4, O 1 X wins).
    assert labels["place(0,1)"] == "loss" and labels["place(0,0)"] == "draw"
    click_move(browser, "place(0,1)")        # O's mistake: an edge (cell 1)
    assert "X 1, O -1" in text(browser, "position-value")
    assert "win" in {label for _, label in moves(browser)}

    browser.find_element(By.CSS_SELECTOR, '#seats input[data-player="O"]').click()   # solver plays O
    settle(browser)
    while "Game over" not in text(browser, "status"):
        listed = moves(browser)
        assert "win" in {label for _, label in listed}    # a won position stays won
        click_move(browser, next(name for name, label in listed if label == "win"))
    assert "X wins" in text(browser, "status") and "X 1, O -1" in text(browser, "status")

    browser.find_element(By.ID, "undo").click()            # back to X's last decision
    settle(browser)
    assert "X to move (you)" in text(browser, "status")
    assert "win" in {label for _, label in moves(browser)}


def test_an_edited_rule_file_shows_its_located_error(server, browser):
    open_page(browser, server)
    area = browser.find_element(By.ID, "rules")
    original = area.get_attribute("value")
    assert original == (ROOT / GAME).read_text(encoding="utf-8")
    broken = original.replace("cell[r][c] = mover", "cell[r][c] = movr")
    line = next(i for i, row in enumerate(broken.split("\n"), 1) if "movr" in row)
    column = broken.split("\n")[line - 1].index("movr") + 1
    browser.execute_script("arguments[0].value = arguments[1];", area, broken)
    browser.find_element(By.ID, "load-rules").click()
    settle(browser)
    errors = text(browser, "rule-errors")
    assert f"{GAME}:{line}:{column}: error[E201]" in errors    # as `gdl check` prints it
    assert "movr" in errors                                    # with the line and a caret
    # the caret in the editor is put on the mistake
    start, end = browser.execute_script(
        "return [arguments[0].selectionStart, arguments[0].selectionEnd];", area)
    assert broken[start:end] == "movr"
    assert len(moves(browser)) == 9 and "X to move" in text(browser, "status")   # the game stays


def test_the_search_tree_from_the_current_position_shows_pruned_branches(server, browser):
    open_page(browser, server)
    browser.find_element(By.CSS_SELECTOR, '#seats input[data-player="O"]').click()
    settle(browser)
    for name in ("place(1,1)", "place(0,1)", "place(0,0)", "place(2,2)"):
        click_move(browser, name)
    browser.find_element(By.CSS_SELECTOR, '#seats input[data-player="O"]').click()
    settle(browser)
    browser.find_element(By.ID, "tree-depth").clear()          # to the end: five cells are left
    browser.find_element(By.ID, "show-tree").click()
    WebDriverWait(browser, 60).until(lambda d: "node(s) visited" in text(d, "tree-note"))
    tree = text(browser, "tree-text")
    # X has a won position here (it took the centre and a corner against an edge), so the root
    # value is X 1; and once a reply of O is refuted, alpha-beta skips O's other replies there.
    assert tree.splitlines()[0].startswith("Tic-tac-toe: alphabeta, value X 1, O -1")
    assert "(pruned)" in tree
    pruned = int(re.search(r"(\d+) pruned", text(browser, "tree-note"))[1])
    drawn = sum(line.endswith(" (pruned)") for line in tree.splitlines()[2:])   # after the legend
    assert pruned == drawn > 0


def test_with_a_position_database_every_move_shows_its_remoteness(browser, tmp_path):
    database = tmp_path / "tictactoe.db"
    from gdl.cli import main

    assert main(["solve", str(ROOT / GAME), "--strong", "--save", str(database)]) == 0
    for url in serve("--db", str(database), "--as", "X", "--as", "O"):
        open_page(browser, url)
        # Every first move ends level with the board full: nine moves away (FACTS: all draw).
        shown = browser.find_elements(By.CSS_SELECTOR, "#moves li .remoteness")
        assert [s.text for s in shown] == ["tie in 9"] * 9
        click_move(browser, "place(1,1)")
        click_move(browser, "place(0,1)")           # X 4, O 1: X wins, fastest in 5 moves
        far = {item.get_attribute("data-name"): item.get_attribute("data-remoteness")
               for item in browser.find_elements(By.CSS_SELECTOR, "#moves li")}
        assert far["place(0,0)"] == "win in 5" and far["place(2,1)"] == "tie in 7"
        # the board: each empty cell coloured as its move is listed
        for cell in browser.find_elements(By.CSS_SELECTOR, "#board .cell.playable"):
            r, c = cell.get_attribute("data-at").split(",")
            word, _, count = far[f"place({r},{c})"].split()
            label = {"win": "win", "tie": "draw", "lose": "loss"}[word]
            assert (cell.get_attribute("data-label"), cell.get_attribute("data-remoteness")) == (
                label, count)
        # X 0, O 1, X 3: X threatens the left column. O loses whatever it does, in 2 moves
        # unless it blocks at (2,0) (X completes the column), in 4 if it does (X then takes
        # the centre, threatening the diagonal and the middle row at once). GamesmanUni's
        # shading: the same red, darker the nearer the end.
        open_page(browser, url)
        for name in ("place(0,0)", "place(0,1)", "place(1,0)"):
            click_move(browser, name)

        def lightness(cell) -> float:
            rgb = [int(x) for x in re.findall(r"\d+", cell.value_of_css_property("background-color"))[:3]]
            return (max(rgb) + min(rgb)) / 2

        shown = {tuple(cell.get_attribute("data-at").split(",")): cell
                 for cell in browser.find_elements(By.CSS_SELECTOR, "#board .cell.playable")}
        assert set(shown) == {("0", "2"), ("1", "1"), ("1", "2"), ("2", "0"), ("2", "1"), ("2", "2")}
        assert {(c.get_attribute("data-label"), c.get_attribute("data-remoteness"))
                for at, c in shown.items() if at != ("2", "0")} == {("loss", "2")}
        block = shown[("2", "0")]
        assert (block.get_attribute("data-label"), block.get_attribute("data-remoteness")) == ("loss", "4")
        assert all(hue(c.value_of_css_property("background-color")) == "red" for c in shown.values())
        near = {lightness(c) for at, c in shown.items() if at != ("2", "0")}
        assert len(near) == 1 and near.pop() < lightness(block)


def test_a_game_that_repeats_positions_is_played_from_a_strong_solve(browser):
    # The ring chase on a ring of 5 (games/cyclic/ring-chase.game): the mouse can always step
    # away, and the rules call endless play a draw. Sitting next to the cat loses at once
    # (the cat steps onto it: a loss in 2 counting the sit); stepping away keeps the draw. No
    # tree search can value it (positions repeat): the page says what answered instead, and
    # the tree view draws the game tree to a depth, cut where a position repeats.
    for url in serve("--as", "Mouse", game="games/cyclic/ring-chase.game"):
        open_page(browser, url)
        assert text(browser, "error") == ""
        assert "repeat a position" in text(browser, "position-value")
        assert "retrograde analysis over 45 positions" in text(browser, "position-value")
        assert "Mouse to move (you)" in text(browser, "status")     # the cat has stepped
        labels = dict(moves(browser))
        assert labels["sit"] == "loss"
        assert {label for name, label in labels.items() if name != "sit"} == {"draw"}
        far = {item.get_attribute("data-name"): item.get_attribute("data-remoteness")
               for item in browser.find_elements(By.CSS_SELECTOR, "#moves li")}
        assert far["sit"] == "lose in 2"
        browser.find_element(By.ID, "tree-depth").clear()
        browser.find_element(By.ID, "show-tree").click()
        WebDriverWait(browser, 60).until(lambda d: "node(s)" in text(d, "tree-note"))
        assert "repeat a position" in text(browser, "tree-note")
        assert "from a strong solve" in text(browser, "tree-text").splitlines()[0]


# ---- stepping through a search ----------------------------------------------------------------

def test_stepping_alpha_beta_to_its_first_cut_shows_the_window_and_the_pruned_children(browser):
    # Russell & Norvig's Figure 5.5 on the tree of Figure 5.2 (games/aima-fig5-2.game): a1
    # backs up 3, so MAX's alpha is 3 when a2 is entered, and its window is (3, +inf); a2's
    # first leaf, c1 = 2, is at most alpha: MIN can hold MAX to 2 there, and c2 and c3 are never
    # looked at. The search visits 11 nodes (the root, a1-a3, b1-b3, c1, d1-d3).
    from selenium.webdriver.support.ui import Select

    for url in serve(game="games/aima-fig5-2.game"):
        open_page(browser, url)
        Select(browser.find_element(By.ID, "step-algorithm")).select_by_value("alphabeta")
        browser.find_element(By.ID, "step-start").click()
        settle(browser)
        assert "11 node(s)" in text(browser, "step-heading")
        forward = browser.find_element(By.ID, "step-forward")
        steps = 0
        while browser.find_element(By.ID, "step-event").get_attribute("data-kind") != "cutoff":
            forward.click()
            steps += 1
            assert steps < 30, "no cut-off"
        node = browser.find_element(By.ID, "step-node")
        assert node.get_attribute("data-window") == "α = 3, β = +∞"
        assert "Current node: a2" in node.text and "MIN to move" in node.text
        assert "pruned: c2, c3" in text(browser, "step-event")
        assert "≤ α = 3" in text(browser, "step-event")          # the reason: 2 ≤ α
        tree = browser.find_element(By.ID, "step-tree")
        pruned = [g.get_attribute("data-pruned") for g in tree.find_elements(By.CSS_SELECTOR, "g.pruned")]
        assert pruned == ["c2", "c3"]
        current = tree.find_element(By.CSS_SELECTOR, "g.node.current")
        assert current.get_attribute("data-name") == "a2"
        # the tree grows as the search goes: the root, a1 with its three leaves, a2 and c1
        assert len(tree.find_elements(By.CSS_SELECTOR, "g.node")) == 7
        assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#step-cuts li")] == [
            f"event {steps}: " + text(browser, "step-event").split(". ", 1)[1]]
        # back one event: the cut-off is undone
        browser.find_element(By.ID, "step-back").click()
        assert browser.find_element(By.ID, "step-event").get_attribute("data-kind") == "leaf"
        assert not tree.find_elements(By.CSS_SELECTOR, "g.pruned")
        # to the end: every node of the search, the root backing up 3 from a1
        browser.find_element(By.ID, "step-end").click()
        assert text(browser, "step-event").endswith("the root backs up 3 from a1")
        assert len(tree.find_elements(By.CSS_SELECTOR, "g.node")) == 11
        assert browser.find_element(By.ID, "step-forward").get_attribute("disabled")


def test_the_tree_view_opens_on_the_root_zooms_pans_and_folds(browser):
    for url in serve(game="games/aima-fig5-2.game"):
        open_page(browser, url)
        browser.find_element(By.ID, "show-tree").click()
        WebDriverWait(browser, 60).until(lambda d: "node(s) visited" in text(d, "tree-note"))
        box = browser.find_element(By.ID, "tree-box")
        view = box.find_element(By.CSS_SELECTOR, "svg.tree-svg")
        frame = view.rect
        root = box.find_element(By.CSS_SELECTOR, 'g.node[data-id="0"]')
        # it opens on the root: the root is inside the drawing, near its top
        where = root.rect
        assert frame["x"] <= where["x"] and where["x"] + where["width"] <= frame["x"] + frame["width"]
        assert frame["y"] <= where["y"] <= frame["y"] + frame["height"] / 3
        assert len(box.find_elements(By.CSS_SELECTOR, "g.node")) == 11
        # a click on a2 folds its subtree (c1, and the two pruned children), a second unfolds it
        # (a click on the node's shape: the group's box also spans its labels, with gaps between)
        box.find_element(By.CSS_SELECTOR, 'g.node[data-name="a2"] polygon').click()
        assert len(box.find_elements(By.CSS_SELECTOR, "g.node")) == 10
        assert not box.find_elements(By.CSS_SELECTOR, "g.pruned")
        assert box.find_element(By.CSS_SELECTOR, 'g.node[data-name="a2"]').get_attribute("class").split()[-1] == "folded"
        box.find_element(By.CSS_SELECTOR, 'g.node[data-name="a2"] polygon').click()
        assert len(box.find_elements(By.CSS_SELECTOR, "g.node")) == 11
        layer = view.find_element(By.TAG_NAME, "g")

        def transform(layer=layer):
            numbers = re.findall(r"-?[\d.]+", layer.get_attribute("transform"))
            return [float(n) for n in numbers]

        x, y, scale = transform()
        box.find_element(By.XPATH, './/button[text()="+"]').click()
        assert transform()[2] == pytest.approx(scale * 1.25)
        from selenium.webdriver import ActionChains

        before = transform()
        ActionChains(browser).move_to_element_with_offset(view, 5, 150).click_and_hold() \
            .move_by_offset(80, 40).release().perform()
        after = transform()
        assert after[0] == pytest.approx(before[0] + 80, abs=2)
        assert after[1] == pytest.approx(before[1] + 40, abs=2)
        assert len(box.find_elements(By.CSS_SELECTOR, "g.node")) == 11    # a drag folds nothing


# ---- playing on the board ------------------------------------------------------------------------

def connect_four_values(moves: list[int], columns: int = 4, rows: int = 4):
    """Each playable column's value for the player to move after ``moves`` (columns, Red first):
    a negamax over every position, memoised, written here (not gdl's): 1 win, 0 draw, -1 loss,
    four in a row across, up or diagonally winning."""
    from functools import cache

    def four(cells, c, r, p):
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                k = 1
                while True:
                    x, y = c + sign * k * dc, r + sign * k * dr
                    if 0 <= x < columns and 0 <= y < len(cells[x]) and cells[x][y] == p:
                        run += 1
                        k += 1
                    else:
                        break
            if run >= 4:
                return True
        return False

    def after(cells, p, c):
        column = cells[c]
        new = cells[:c] + (column + (p,),) + cells[c + 1:]
        if four(new, c, len(column), p):
            return 1
        if all(len(x) == rows for x in new):
            return 0
        return -value(new, 1 - p)

    @cache
    def value(cells, p):
        return max(after(cells, p, c) for c in range(columns) if len(cells[c]) < rows)

    cells: tuple = ((),) * columns
    for number, c in enumerate(moves):
        cells = cells[:c] + (cells[c] + (number % 2,),) + cells[c + 1:]
    p = len(moves) % 2
    return {c: after(cells, p, c) for c in range(columns) if len(cells[c]) < rows}, \
        (value(cells, p) if any(len(x) < rows for x in cells) else None)


def column_colours(driver) -> dict[int, set]:
    """Each column's labels as the board shows them (all its cells), and its cells' colours."""
    found: dict[int, set] = {}
    for cell in driver.find_elements(By.CSS_SELECTOR, '#board .drawn[data-variable="cell"] .cell'):
        column = int(cell.get_attribute("data-at").split(",")[0])
        found.setdefault(column, set()).add((cell.get_attribute("data-label"),
                                             cell.value_of_css_property("background-color")))
    return found


def hue(colour: str) -> str:
    """green, yellow or red: the dominant channels of an rgb() colour."""
    r, g, b = (int(x) for x in re.findall(r"\d+", colour)[:3])
    if g > r + 40:
        return "green"
    if r > g + 40:
        return "red"
    return "yellow" if r > b + 40 and g > b + 40 else "other"


def test_connect_four_is_played_by_clicking_columns_each_coloured_by_its_value(browser):
    # Both seats are the person's, so every position is a decision of the page. The columns
    # clicked reach a position where the mover's columns are worth all three values (found by
    # the negamax above: after 0 0 1 3 1, Yellow wins by column 1, draws by 0, loses by 2 or
    # 3); then each side takes a winning column when it has one, else the first it may.
    words = {1: "win", 0: "draw", -1: "loss"}
    colour = {"win": "green", "draw": "yellow", "loss": "red"}
    for url in serve("--as", "Red", "--as", "Yellow", game="games/connect4.game"):
        open_page(browser, url)
        played: list[int] = []
        seen_all_three = False
        while "Game over" not in text(browser, "status"):
            values, position = connect_four_values(played)
            shown = column_colours(browser)
            for column in range(4):
                labels = {label for label, _ in shown[column]}
                if column in values:        # playable: every cell of the column, one colour
                    assert labels == {words[values[column]]}, (played, column, shown[column])
                    assert {hue(c) for _, c in shown[column]} == {colour[words[values[column]]]}
                else:                       # full: nothing to click
                    assert labels == {None}
            seen_all_three |= set(values.values()) == {1, 0, -1}
            # the value history: one square per position so far, each the value for its mover
            strip = browser.find_elements(By.CSS_SELECTOR, "#value-history .vh")
            assert len(strip) == len(played) + 1
            for number, square in enumerate(strip):
                assert square.get_attribute("data-label") == words[connect_four_values(played[:number])[1]]
            opening = [0, 0, 1, 3, 1]
            if len(played) < len(opening):
                column = opening[len(played)]
            else:
                column = next((c for c, v in values.items() if v == 1), min(values))
            # a click on the column's bottom cell drops the disc on top of the column
            height = sum(1 for c in played if c == column)
            browser.find_element(By.CSS_SELECTOR, f'#board .cell[data-at="{column},0"]').click()
            settle(browser)
            played.append(column)
            dropped = browser.find_element(By.CSS_SELECTOR, f'#board .cell[data-at="{column},{height}"]')
            assert dropped.get_attribute("data-value") == ("Red" if len(played) % 2 else "Yellow")
        assert seen_all_three
        # gravity: row 0 is drawn at the bottom, the columns across
        bottom = browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="0,0"]').rect
        top = browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="0,3"]').rect
        right = browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="3,0"]').rect
        assert bottom["y"] > top["y"] and right["x"] > bottom["x"] and right["y"] == bottom["y"]
        # Yellow had a win after the opening and took a winning column at every turn since
        assert "Yellow wins" in text(browser, "status")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#history li")) == len(played)


def test_hexapawn_moves_take_two_clicks_from_and_to(browser):
    # Gardner's hexapawn: the second player wins (FACTS), so every first move of White loses.
    # White's pawns start on its home row, drawn at the bottom (`flip`); a click on a pawn shows
    # where it can go, each destination coloured by the move's value; a second click plays it.
    for url in serve(game="games/hexapawn.game"):
        open_page(browser, url)
        home = browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="0,1"]')
        far = browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="2,1"]')
        assert home.rect["y"] > far.rect["y"] and home.get_attribute("data-value") == "White"
        assert home.get_attribute("data-label") == "loss"
        home.click()
        destination = browser.find_element(By.CSS_SELECTOR, '#board .cell.destination')
        assert destination.get_attribute("data-at") == "1,1"
        assert destination.get_attribute("data-label") == "loss"
        assert destination.get_attribute("data-moves") == "advance(0,1)"
        destination.click()
        settle(browser)
        history = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")]
        assert history[0] == "White: advance(0,1)" and len(history) == 2   # the solver answered
        assert "White to move (you)" in text(browser, "status")


PROMOTION = """game "Promotion"
# One pawn, one step to the far row, where it becomes a queen or a knight: two moves on the same
# two clicks. Either wins for the only player.
players A
var cell[2][1] in {empty, pawn, queen, knight} = empty
init { cell[0][0] = pawn }
action promote(to in 0..1)
    requires cell[0][0] == pawn
    effect   cell[0][0] = empty; cell[1][0] = queen if to == 0 else knight
terminal cell[0][0] == empty
utility A = 1
display cell as {empty: "." blank, pawn: "P" pawn, queen: "Q" queen, knight: "N" knight} flip
display promote(to) as cell[0][0] -> cell[1][0]
"""


def test_two_moves_on_the_same_clicks_are_named_and_left_to_the_list(browser, tmp_path):
    path = tmp_path / "promotion.game"
    path.write_text(PROMOTION, encoding="utf-8")
    for url in serve(game=str(path)):
        open_page(browser, url)
        browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="0,0"]').click()
        destination = browser.find_element(By.CSS_SELECTOR, "#board .cell.destination")
        assert destination.get_attribute("data-at") == "1,0"
        assert destination.get_attribute("data-moves") == "promote(0) promote(1)"
        destination.click()
        assert text(browser, "board-note") == ("Several moves go there: promote(0), promote(1); "
                                               "pick one from the list.")
        assert browser.find_elements(By.CSS_SELECTOR, "#history li") == []    # nothing played
        click_move(browser, "promote(1)")
        assert browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="1,0"]').get_attribute(
            "data-value") == "knight"
        assert "Game over" in text(browser, "status")


def test_an_image_shipped_with_the_game_is_drawn(browser, tmp_path):
    # the promotion game with the queen drawn by an SVG file next to the rules: the page shows
    # it (the browser decodes it: its natural width is the file's 40 pixels)
    (tmp_path / "pieces").mkdir()
    (tmp_path / "pieces" / "queen.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" '
        'r="18" fill="purple"/></svg>', encoding="utf-8")
    path = tmp_path / "promotion.game"
    path.write_text(PROMOTION.replace('queen: "Q" queen', 'queen: "Q" image "pieces/queen.svg"'),
                    encoding="utf-8")
    for url in serve(game=str(path)):
        open_page(browser, url)
        assert browser.find_elements(By.CSS_SELECTOR, "#board img") == []
        click_move(browser, "promote(0)")
        (image,) = browser.find_elements(By.CSS_SELECTOR, '#board .cell[data-at="1,0"] img')
        assert image.get_attribute("src").startswith("data:image/svg+xml;base64,")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth",
                                      image) == 40
        assert text(browser, "board-problems") == ""


def centre(cell) -> tuple[float, float]:
    box = cell.rect
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_hex_is_drawn_as_a_rhombus_whose_touching_cells_are_the_rules_neighbours(browser):
    # games/hex.game joins a cell to (r + dr, c + dc) for dr, dc in -1..1 with dr != dc: six
    # neighbours. Drawn as a rhombus (each row half a cell right of the one above), those six
    # are exactly the cells whose centres are one cell width away, and no other.
    for url in serve("--as", "Red", "--as", "Blue", game="games/hex.game"):
        open_page(browser, url)
        found = {tuple(int(i) for i in cell.get_attribute("data-at").split(",")): cell
                 for cell in browser.find_elements(By.CSS_SELECTOR, '#board .cell[data-at]')}
        assert set(found) == {(r, c) for r in range(3) for c in range(3)}
        where = {at: centre(cell) for at, cell in found.items()}
        width = found[(0, 0)].rect["width"]
        for (r, c), (x, y) in where.items():
            near = {other for other, (u, v) in where.items()
                    if other != (r, c) and ((u - x) ** 2 + (v - y) ** 2) ** 0.5 < 1.25 * width}
            rules = {(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                     if dr != dc and (r + dr, c + dc) in where}
            assert near == rules, ((r, c), near, rules)
        assert where[(1, 0)][0] > where[(0, 0)][0] and where[(1, 0)][1] > where[(0, 0)][1]
        # Nash: the first player wins Hex; on 3 x 3 the centre is a winning first move
        assert found[(1, 1)].get_attribute("data-label") == "win"
        found[(1, 1)].click()
        settle(browser)
        assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")] == [
            "Red: play(1,1)"]
        assert browser.find_element(By.CSS_SELECTOR, '#board .cell[data-at="1,1"]').get_attribute(
            "data-value") == "Red"


def test_kalah_is_sown_anticlockwise_by_clicking_a_house(browser):
    # Kalah(3, 3): pits 0-2 South's houses, 3 its store, 4-6 North's houses, 7 North's store.
    for url in serve("--as", "South", "--as", "North", game="games/kalah.game"):
        open_page(browser, url)

        def pit(i):
            return browser.find_element(By.CSS_SELECTOR, f'#board .cell[data-at="{i}"]')

        x = {i: centre(pit(i))[0] for i in range(8)}
        y = {i: centre(pit(i))[1] for i in range(8)}
        # South's houses left to right along the bottom, then its store at the right end; North's
        # houses right to left along the top, then its store at the left end
        assert x[7] < x[0] < x[1] < x[2] < x[3] and x[7] < x[6] < x[5] < x[4] < x[3]
        assert y[0] == y[1] == y[2] > y[4] == y[5] == y[6]
        assert pit(3).rect["height"] > 1.5 * pit(0).rect["height"]          # a store: two rows
        # sowing house 0's three seeds drops one in each of pits 1, 2 and the store: the last in
        # the store, so South moves again
        pit(0).click()
        settle(browser)
        assert [pit(i).get_attribute("data-value") for i in range(8)] == [
            "0", "4", "4", "1", "3", "3", "3", "0"]
        assert "South to move (you)" in text(browser, "status")


def test_a_tree_of_a_thousand_nodes_opens_on_its_root(server, browser):
    # tic-tac-toe from the empty board to depth 5: well over a thousand nodes, far wider than
    # the view; the view opens with the root in sight, at the top, centred across
    open_page(browser, server)
    browser.find_element(By.ID, "tree-depth").clear()
    browser.find_element(By.ID, "tree-depth").send_keys("5")
    browser.find_element(By.ID, "show-tree").click()
    WebDriverWait(browser, 60).until(lambda d: "node(s) visited" in text(d, "tree-note"))
    nodes = int(re.search(r"(\d[\d,]*) node\(s\) visited", text(browser, "tree-note"))[1].replace(",", ""))
    assert nodes > 1000
    box = browser.find_element(By.ID, "tree-box")
    frame = box.find_element(By.CSS_SELECTOR, "svg.tree-svg").rect
    root = box.find_element(By.CSS_SELECTOR, 'g.node[data-id="0"] polygon').rect
    middle = root["x"] + root["width"] / 2
    assert abs(middle - (frame["x"] + frame["width"] / 2)) < 2
    assert frame["y"] <= root["y"] <= frame["y"] + frame["height"] / 4
