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
    assert state["board"] == [{"kind": "grid", "name": "cell", "rows": [["."] * 3] * 3}]
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


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.game")), ids=lambda p: p.name)
def test_every_bundled_game_can_be_shown_played_and_drawn(path):
    wb = Workbench(path.read_text(encoding="utf-8"), path.name, depth=2)
    state = wb.state()
    players = state["players"]
    assert state["error"] is None and state["moves"]
    for move in state["moves"]:
        assert move["label"] in {"win", "draw", "loss", "best", "worse", "worst", "chance"}
        assert [v["player"] for v in move["values"]] == players
    assert {block["kind"] for block in state["board"]} <= {"grid", "scalar", "table"}
    json.dumps(state)                                   # everything the page gets is JSON
    after = wb.roll() if state["to_move"] == "chance" else wb.solver_move()
    assert len(after["history"]) == 1
    tree = wb.tree(1)
    assert tree["nodes"] >= 1 or after["over"]
