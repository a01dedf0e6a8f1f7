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
