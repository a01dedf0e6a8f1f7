"""The model and the HTTP layer behind `gdl serve`, without a browser (tests/test_serve_browser.py
drives the page itself). Expected values are textbook facts (/work/shared/FACTS.md)."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest

from gdl.cli import main
from gdl.serve.server import GameServer
from gdl.serve.workbench import Workbench, WorkbenchError

GAMES = Path(__file__).resolve().parent.parent / "games"


def bench(name: str, **options) -> Workbench:
    path = GAMES / name
    return Workbench(path.read_text(encoding="utf-8"), f"games/{name}", **options)


def labels(state: dict) -> dict[str, str]:
    return {m["name"]: m["label"] for m in state["moves"]}


def test_tictactoe_values_follow_the_facts():
    wb = bench("tictactoe.game")
    state = wb.state()
    assert state["to_move"] == "X" and not state["solver_to_move"]
    assert set(labels(state).values()) == {"draw"} and len(state["moves"]) == 9
    # `display place(r, c) as cell[r][c]`: the board is drawn cell by cell, and each move names
    # the cell a click plays it on, the one its name's numbers give
    (board,) = state["board"]
    assert board["kind"] == "board" and (board["rows"], board["columns"]) == (3, 3)
    assert {(c["row"], c["column"]): c["text"] for c in board["cells"]} == {
        (r, c): "." for r in range(3) for c in range(3)}
    assert all(m["cells"] == [["cell", [int(m["name"][6]), int(m["name"][8])]]]
               for m in state["moves"])
    # cells numbered 0-8 row by row: X 4, O 1 is a win for X
    state = wb.move(4)                         # place(1,1)
    assert labels(state)["place(0,1)"] == "loss"
    state = wb.move(1)                         # place(0,1): the moves left are renumbered
    assert state["values"][0] == {"player": "X", "value": 1, "text": "1"}
    assert "win" in labels(state).values()
    # X 5, O 4, X 3, O 8 is a loss for X
    wb.restart()
    for name in ("place(1,2)", "place(1,1)", "place(1,0)", "place(2,2)"):
        state = wb.move(next(m["index"] for m in wb.state()["moves"] if m["name"] == name))
    assert [v["value"] for v in state["values"]] == [-1, 1]
    assert set(labels(state).values()) == {"loss"}


def test_the_solver_plays_a_best_move_and_undo_returns_to_the_persons_decision():
    wb = bench("tictactoe.game")
    wb.move(4)
    state = wb.solver_move()
    # O answers the centre with a corner: the edges lose (FACTS: after X 4, O 1 X wins)
    assert state["history"][-1]["move"] in {"place(0,0)", "place(0,2)", "place(2,0)", "place(2,2)"}
    state = wb.undo()
    assert state["history"] == [] and state["to_move"] == "X"
    with pytest.raises(WorkbenchError):
        wb.undo()


def test_chance_outcomes_carry_exact_probabilities_and_the_expectation():
    # (1/2)·8 + (1/3)·24 + (1/6)·(-12) = 10
    state = bench("chance-example.game").state()
    assert state["to_move"] == "chance"
    assert [(m["probability"], m["values"][0]["value"]) for m in state["moves"]] == [
        ("1/2", 8), ("1/3", 24), ("1/6", -12)]
    assert state["values"][0]["value"] == 10


def test_depth_limited_values_are_exact_fractions():
    # Pig with a three-sided die to depth 2: A 5/3, best action roll (OpenSpiel's test)
    state = bench("pig.game", depth=2).state()
    by_name = {m["name"]: m for m in state["moves"]}
    assert by_name["roll"]["value"] == "5/3" and by_name["roll"]["optimal"]
    assert not by_name["stop"]["optimal"] and state["proven"] is False


def test_the_tree_view_marks_the_branches_alpha_beta_prunes():
    # AIMA Figure 5.2: alpha-beta never looks at c2 and c3
    tree = bench("aima-fig5-2.game").tree(None)
    assert tree["pruned"] == 2 and tree["nodes"] == 11
    assert "c2  (pruned)" in tree["text"] and "c3  (pruned)" in tree["text"]
    assert tree["note"] == ""                 # searched to the end
    with pytest.raises(WorkbenchError):
        bench("aima-fig5-2.game").tree(0)


def test_a_tree_too_big_to_draw_is_searched_as_deep_as_fits():
    # tic-tac-toe's whole tree has 549,946 nodes (FACTS): far above the drawing limit
    from gdl.tools.search_tree import DEFAULT_LIMIT

    tree = bench("tictactoe.game").tree(None)
    assert "depth" in tree["note"] and 9 < tree["nodes"] <= DEFAULT_LIMIT


def test_edited_rules_are_checked_and_their_errors_located():
    wb = bench("tictactoe.game")
    text = wb.text.replace("= empty\n", "= empty\nvar turn in 0..3 = 7\n", 1)
    answer = wb.load_rules(text)
    line = text.split("\n").index("var turn in 0..3 = 7") + 1
    column = "var turn in 0..3 = 7".index("7") + 1
    assert answer["ok"] is False
    assert [(d["code"], d["line"], d["column"]) for d in answer["diagnostics"]] == [("E204", line, column)]
    assert answer["errors"].startswith(f"games/tictactoe.game:{line}:{column}: error[E204]")
    assert wb.game.info.name == "Tic-tac-toe" and wb.text != text     # the old rules stay
    renamed = wb.text.replace('game "Tic-tac-toe"', 'game "Noughts"')
    answer = wb.load_rules(renamed)
    assert answer["ok"] and answer["state"]["game"] == "Noughts"


def test_a_game_without_display_hints_is_shown_as_a_table():
    state = bench("nim.game").state()
    assert [block["kind"] for block in state["board"]] == ["table"]
    assert all(len(row) == 2 for row in state["board"][0]["rows"])


@pytest.fixture
def served():
    server = GameServer(bench("tictactoe.game"))
    server.serve_in_thread()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def request(server, method: str, path: str, body=None, headers=None):
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=30)
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    connection.request(method, path, body=data, headers=headers or {})
    response = connection.getresponse()
    content = response.read()
    connection.close()
    return response, content


def test_the_page_and_its_api(served):
    response, content = request(served, "GET", "/")
    assert response.status == 200 and b'<script src="/app.js"' in content
    assert "script-src 'self'" in response.getheader("Content-Security-Policy")
    response, content = request(served, "GET", "/api/state")
    assert response.status == 200 and json.loads(content)["game"] == "Tic-tac-toe"
    response, content = request(served, "POST", "/api/move", {"index": 4},
                                {"Content-Type": "application/json"})
    assert response.status == 200 and json.loads(content)["history"][0]["move"] == "place(1,1)"


def test_requests_the_page_would_not_make_are_refused(served):
    json_type = {"Content-Type": "application/json"}
    # another site's form posts text/plain: refused, never acted on
    response, _ = request(served, "POST", "/api/move", b'{"index": 0}', {"Content-Type": "text/plain"})
    assert response.status == 415
    # a name that resolves to this machine from elsewhere (DNS rebinding): refused
    response, _ = request(served, "GET", "/api/state", headers={"Host": "attacker.example:80"})
    assert response.status == 403
    response, content = request(served, "POST", "/api/move", {"index": 99}, json_type)
    assert response.status == 409 and "no move number 99" in json.loads(content)["error"]
    response, _ = request(served, "POST", "/api/move", b"not json", json_type)
    assert response.status == 400
    response, _ = request(served, "POST", "/api/rules", {"text": 5}, json_type)
    assert response.status == 400
    response, _ = request(served, "GET", "/../pyproject.toml")
    assert response.status == 404
    assert served.workbench.state()["history"] == []       # nothing was played


def test_serve_refuses_a_missing_file_and_reports_bad_rules(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "missing.game")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.game"
    bad.write_text('game "bad"\nplayers A\nvar z in 0..3 = 5\n', encoding="utf-8")
    assert main(["serve", str(bad)]) == 1
    assert f"{bad}:3:17: error[E204]" in capsys.readouterr().err


def test_ctrl_c_stops_the_server_cleanly():
    import signal
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "gdl", "serve", "games/tictactoe.game",
                                "--port", "0"], cwd=GAMES.parent, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert "http://127.0.0.1:" in process.stdout.readline()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0 and "stopped" in err and "Traceback" not in err


def test_a_rule_that_fails_in_play_is_reported_located_and_the_move_refused():
    # tests/data/runtime/E301-leaves-domain.game: n in 0..2, and the third `inc` sets it to 3
    path = GAMES.parent / "tests" / "data" / "runtime" / "E301-leaves-domain.game"
    text = path.read_text(encoding="utf-8")
    line = next(i for i, row in enumerate(text.split("\n"), 1) if row.startswith("action inc"))
    wb = Workbench(text, "overflow.game")
    assert wb.state()["error"].startswith(f"overflow.game:{line}:")     # the search met it
    wb.move(0)
    wb.move(0)
    with pytest.raises(WorkbenchError, match=rf"overflow.game:{line}:\d+: error\[E301\]"):
        wb.move(0)
    assert len(wb.state()["history"]) == 2


# Games whose equilibrium the page would take minutes to compute, served smaller: Liar's dice with
# six faces has 24,576 information states (its exact solve takes about a minute of CPU).
SERVE_SETTINGS = {"liars-dice.game": {"faces": 3}}


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.game")), ids=lambda p: p.name)
def test_every_bundled_game_can_be_shown_played_and_drawn(path):
    wb = Workbench(path.read_text(encoding="utf-8"), path.name, depth=2,
                   params=SERVE_SETTINGS.get(path.name))
    state = wb.state()
    players = state["players"]
    if state.get("wide"):
        # simultaneous moves or hidden information (tests/test_tools_imperfect.py): the
        # person's own moves with the equilibrium's probabilities, never a value
        assert state["error"] is None and state["values"] is not None
        for move in state["moves"]:
            assert move["label"] in {"mixed", "unplayed"} and "values" not in move
        json.dumps(state)
        after = wb.solver_move() if state["solver_to_move"] else wb.move(0)
        assert len(after["history"]) > len(state["history"])
        with pytest.raises(WorkbenchError):
            wb.tree(1)
        return
    assert state["error"] is None and state["moves"]
    for move in state["moves"]:
        assert move["label"] in {"win", "draw", "loss", "best", "worse", "worst", "chance"}
        assert [v["player"] for v in move["values"]] == players
    assert {block["kind"] for block in state["board"]} <= {"grid", "scalar", "table", "board"}
    # where the rules say which click plays each action, every move has its cells, and each
    # is on the board drawn (a cell whose indices begin with the ones the move names)
    drawn = {(block["variable"], tuple(cell["at"])) for block in state["board"]
             if block["kind"] == "board" for cell in block["cells"]}
    rules = getattr(wb.game, "ir", None)        # (an explicit tree has no rules to click)
    if rules is not None and {c.action.name for c in rules.clicks} >= {
            a.name for a in rules.actions if a.name not in ("init", "then")}:
        for move in state["moves"]:
            assert move["cells"], move["name"]
            for variable, prefix in move["cells"]:
                assert any(v == variable and at[:len(prefix)] == tuple(prefix) for v, at in drawn)
    json.dumps(state)                                   # everything the page gets is JSON
    after = wb.roll() if state["to_move"] == "chance" else wb.solver_move()
    assert len(after["history"]) == 1
    tree = wb.tree(1)
    assert tree["nodes"] >= 1 or after["over"]


# ---- remoteness from a position database (gdl serve --db) ---------------------------------------

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def brute_force(board: str, mover: str) -> tuple[int, int]:
    """Tic-tac-toe by hand, not by gdl: (the mover's result -1/0/1, moves to the end) with the
    winner winning as fast as possible and the loser losing as slowly as possible. Cells 0-8 row
    by row, "." empty."""
    other = "O" if mover == "X" else "X"
    if any(board[a] == board[b] == board[c] == other for a, b, c in LINES):
        return -1, 0
    if "." not in board:
        return 0, 0
    outcomes = []
    for cell in (i for i, c in enumerate(board) if c == "."):
        result, length = brute_force(board[:cell] + mover + board[cell + 1:], other)
        outcomes.append((-result, length + 1))
    best = max(result for result, _ in outcomes)
    lengths = [length for result, length in outcomes if result == best]
    return best, (min(lengths) if best >= 0 else max(lengths))


def cell_of(name: str) -> int:
    """place(r,c) -> r * 3 + c."""
    row, column = name[len("place("):-1].split(",")
    return int(row) * 3 + int(column)


@pytest.fixture(scope="module")
def tictactoe_db(tmp_path_factory):
    """Tic-tac-toe's strong solve saved as gdl solve --strong --save writes it (5,478 positions)."""
    path = tmp_path_factory.mktemp("db") / "tictactoe.db"
    assert main(["solve", str(GAMES / "tictactoe.game"), "--strong", "--save", str(path)]) == 0
    return path


def bench_with_db(path: Path) -> Workbench:
    from gdl.cli.strong import binding
    from gdl.graph.database import open_database

    game = GAMES / "tictactoe.game"
    return bench("tictactoe.game", database=open_database(path, binding(str(game), {})))


def test_every_first_move_is_a_tie_that_fills_the_board(tictactoe_db):
    # FACTS: tic-tac-toe is a draw (it ends level: a "tie" in the database's words, which keep
    # "draw" for endless play) and every first move has value 0; a level end fills all 9 cells.
    state = bench_with_db(tictactoe_db).state()
    assert state["database"] == {"path": str(tictactoe_db), "in_use": True}
    assert len(state["moves"]) == 9
    for move in state["moves"]:
        assert move["value"] == "0" and move["class"] == "tie"
        assert move["remoteness"] == 9 and move["remoteness_text"] == "tie in 9"


def test_a_winning_moves_remoteness_is_the_shortest_forced_win(tictactoe_db):
    wb = bench_with_db(tictactoe_db)
    wb.move(4)                                  # X 4
    state = wb.move(1)                          # O 1 (cells 0-8 row by row): X wins
    board = "".join("X" if i == 4 else "O" if i == 1 else "." for i in range(9))
    result, shortest = brute_force(board, "X")
    assert result == 1 and shortest == 5        # X, O, X (a fork), O, X
    wins = [m for m in state["moves"] if m["class"] == "win"]
    assert wins and min(m["remoteness"] for m in wins) == shortest
    assert f"win in {shortest}" in {m["remoteness_text"] for m in wins}
    for move in state["moves"]:                 # every move, against the hand search
        cell = cell_of(move["name"])
        after, length = brute_force(board[:cell] + "X" + board[cell + 1:], "O")
        assert move["class"] == {1: "lose", 0: "tie", -1: "win"}[after], move
        assert move["remoteness"] == length + 1, move
        assert move["label"] == {"win": "win", "tie": "draw"}[move["class"]]


def test_without_a_database_no_remoteness_and_edited_rules_set_it_aside(tictactoe_db):
    assert all("remoteness" not in m for m in bench("tictactoe.game").state()["moves"])
    assert bench("tictactoe.game").state()["database"] is None
    wb = bench_with_db(tictactoe_db)
    answer = wb.load_rules(wb.text + "\n# edited\n")
    assert answer["ok"] and answer["state"]["database"]["in_use"] is False
    assert all("remoteness" not in m for m in answer["state"]["moves"])
    answer = wb.load_rules((GAMES / "tictactoe.game").read_text(encoding="utf-8"))
    assert answer["state"]["database"]["in_use"] is True
    assert answer["state"]["moves"][0]["remoteness_text"] == "tie in 9"


def test_serve_refuses_a_stale_or_damaged_database(tictactoe_db, tmp_path, capsys):
    other = tmp_path / "tictactoe.game"         # other rules: O moves first
    text = (GAMES / "tictactoe.game").read_text(encoding="utf-8")
    assert "players X, O" in text
    other.write_text(text.replace("players X, O", "players O, X"), encoding="utf-8")
    assert main(["serve", str(other), "--db", str(tictactoe_db), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "built from other rules" in err and "solve again with --save" in err
    assert "Traceback" not in err
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(tictactoe_db.read_bytes()[:200])
    assert main(["serve", str(GAMES / "tictactoe.game"), "--db", str(damaged), "--port", "0"]) == 2
    assert "not a valid gdl position database" in capsys.readouterr().err
    assert main(["serve", str(GAMES / "tictactoe.game"), "--db", str(tmp_path / "no.db")]) == 2
    assert "no such database" in capsys.readouterr().err


# ---- stepping through a search -------------------------------------------------------------------

def test_stepping_alpha_beta_on_figure_5_2_follows_figure_5_5():
    # Russell & Norvig, Figure 5.5: the leaves are read in the order b1 b2 b3 (3 12 8), c1 (2),
    # then d1 d2 d3 (14 5 2); c1 = 2 is at most alpha = 3, so MIN's a2 is cut off there and c2,
    # c3 are never read; the root backs up 3 from a1. 11 nodes (13 less the two pruned).
    document = bench("aima-fig5-2.game").step("alphabeta")
    events = document["events"]
    assert document["values"] == {"MAX": 3, "MIN": -3} and document["best_actions"] == ["a1"]
    assert document["nodes"] == 11 and "11 node(s)" in document["heading"]
    assert [e["step"] for e in events] == list(range(1, len(events) + 1))
    leaves = [(e["path"][-1], e["values"][0]) for e in events if e["kind"] == "leaf"]
    assert leaves == [("b1", 3), ("b2", 12), ("b3", 8), ("c1", 2), ("d1", 14), ("d2", 5), ("d3", 2)]
    # two cut-offs: at a2 after c1, pruning c2 and c3; and at a3 after its last leaf d3 = 2
    # (2 <= alpha as well, with no child left to prune)
    cut, last = [e for e in events if e["kind"] == "cutoff"]
    assert (cut["path"], cut["after"], cut["skipped"]) == (["a2"], "c1", ["c2", "c3"])
    assert (last["path"], last["after"], last["skipped"]) == (["a3"], "d3", [])
    assert cut["step"] == 1 + next(e["step"] for e in events if e["kind"] == "leaf"
                                   and e["path"] == ["a2", "c1"])
    assert "c2" in cut["text"] and "c3" in cut["text"] and "≤ α = 3" in cut["text"]
    entered = [e for e in events if e["kind"] == "enter"]
    assert len(entered) == 11 and entered[0]["path"] == [] and entered[0]["window"] == ["-inf", "+inf"]
    for name in ("a2", "a3"):                          # a1's 3 is MAX's alpha from then on
        assert next(e for e in entered if e["path"] == [name])["window"] == [3, "+inf"]
    assert events[-1]["kind"] == "exit" and events[-1]["path"] == [] and events[-1]["values"][0] == 3


def test_minimax_reads_every_leaf_and_cuts_nothing():
    document = bench("aima-fig5-2.game").step("minimax")
    kinds = [e["kind"] for e in document["events"]]
    assert document["nodes"] == 13 and kinds.count("leaf") == 9 and "cutoff" not in kinds


def test_stepping_expectiminimax_averages_the_chance_node():
    # games/chance-example.game: (1/2)·8 + (1/3)·24 + (1/6)·(-12) = 10, read leaf by leaf
    document = bench("chance-example.game").step("expectiminimax")
    kinds = [e["kind"] for e in document["events"]]
    assert kinds == ["enter", "enter", "leaf", "enter", "leaf", "enter", "leaf", "average", "exit"]
    assert [e["values"][0] for e in document["events"] if e["kind"] == "leaf"] == [8, 24, -12]
    assert document["values"] == {"MAX": 10, "MIN": -10}


def test_the_page_steps_the_solvers_own_trace_from_the_current_position():
    # what the page steps through is the trace the solver tells (gdl.tools.trace.run), from the
    # position on the board, not from the start
    from gdl.tools.step import trace_json
    from gdl.tools.trace import run

    wb = bench("hexapawn.game", human=(0, 1))
    state = wb.move(next(m["index"] for m in wb.state()["moves"] if m["name"] == "advance(0,1)"))
    document = wb.step("alphabeta", depth=3)
    root = wb.session.state
    expected = trace_json(run(wb.game, "alphabeta", depth=3, root=root))
    assert document["events"] == expected["events"] and document["nodes"] == expected["nodes"]
    # the root's children are Black's replies, one entered for each move the page lists
    # (alpha-beta may cut some off: then fewer)
    children = {e["path"][0] for e in document["events"] if e["kind"] == "enter" and len(e["path"]) == 1}
    assert children <= {m["name"] for m in state["moves"]} and children
    assert document["players"] == ["White", "Black"] and document["events"][0]["player"] == "Black"


@pytest.mark.parametrize("name, options, message", [
    ("aima-fig5-2.game", {"algorithm": "negamax"}, "the searches that step are minimax, alphabeta"),
    ("aima-fig5-2.game", {"depth": -1}, "the depth must be a whole number"),
    ("aima-fig5-2.game", {"depth": True}, "the depth must be a whole number"),
    ("aima-fig5-2.game", {"table": "yes"}, "table and ordering are true or false"),
    ("cyclic/ring-chase.game", {}, "can repeat a position, so a search without a depth"),
    ("kuhn.game", {}, "no search to step through in a game with simultaneous moves or hidden"),
    ("tictactoe.game", {"algorithm": "minimax"}, "more than 2,000 nodes, too many to step through"),
])
def test_a_search_that_cannot_be_stepped_is_refused_with_the_reason(name, options, message):
    with pytest.raises(WorkbenchError, match=message.replace("^", r"\^")):
        bench(name).step(**options)


def test_stepping_a_finished_game_is_refused():
    wb = bench("aima-fig5-2.game", human=(0, 1))
    wb.move(0)
    wb.move(0)
    with pytest.raises(WorkbenchError, match="the game is over"):
        wb.step()


def test_the_step_api_answers_json(served):
    json_type = {"Content-Type": "application/json"}
    response, content = request(served, "POST", "/api/move", {"index": 4}, json_type)
    assert response.status == 200
    response, content = request(served, "POST", "/api/step", {"algorithm": "alphabeta", "depth": 1},
                                json_type)
    document = json.loads(content)
    # from X's centre, O's eight replies at depth 1: the root and its eight children
    assert response.status == 200 and document["nodes"] == 9
    assert sum(e["kind"] == "enter" for e in document["events"]) == 9
    response, content = request(served, "POST", "/api/step", {"algorithm": "nope"}, json_type)
    assert response.status == 409 and "the searches that step" in json.loads(content)["error"]


# ---- the value history ---------------------------------------------------------------------------

def test_the_value_history_gives_each_position_for_its_mover():
    # FACTS: the empty board is a draw, so is X's centre for O; after O's edge X wins
    wb = bench("tictactoe.game", human=(0, 1))
    assert [(e["mover"], e["label"]) for e in wb.state()["value_history"]] == [("X", "draw")]
    wb.move(4)
    history = wb.move(1)["value_history"]
    assert [(e["mover"], e["label"], e["move"]) for e in history] == [
        ("X", "draw", "place(1,1)"), ("O", "draw", "place(0,1)"), ("X", "win", None)]


def test_with_a_database_the_value_history_has_remoteness(tictactoe_db):
    # tic-tac-toe: 9 moves to a full board from the start; after X 4, O 1 X wins in 5 (the
    # brute force above finds the same)
    wb = bench_with_db(tictactoe_db)
    wb.move(4)
    history = wb.move(1)["value_history"]
    assert [(e["label"], e["remoteness"]) for e in history] == [("draw", 9), ("draw", 8), ("win", 5)]
