"""`gdl serve`, `analyze`, `play` and `tree` on games that can repeat a position
(games/cyclic/): a strong solve answers where a tree search cannot, as `gdl solve` does, and
what cannot be done is refused with a message that names what works.

Expected values come from independent arguments written here: a retrograde analysis of the
ring chase by hand (``ring_chase``), a minimax over plays cut at a horizon for Give and take
(``horizon_values``), Piglet's two-state equations (``PIGLET_1``, ``PIGLET_2``), never from gdl's
output."""

from __future__ import annotations

import http.client
import io
import json
import re
import sys
from fractions import Fraction
from functools import cache

import pytest
from helpers import GAMES

import gdl
from gdl.cli import main
from gdl.protocol import TERMINAL
from gdl.serve.server import GameServer
from gdl.serve.workbench import Workbench

CYCLIC = GAMES / "cyclic"
RING = str(CYCLIC / "ring-chase.game")
GIVE = str(CYCLIC / "give-and-take.game")
PIGLET = str(CYCLIC / "piglet.game")

# Piglet (a fair coin; heads adds 1, tails loses the turn) to 1 point: the mover wins at once
# with heads, else the other player is in the same place: P = 1/2 + (1 - P)/2, so P = 2/3 and
# the first player's value is 2P - 1 = 1/3. To 2 points, P(first wins) = 4/7 (derived by hand
# in tests/test_graph.py), value 2 * 4/7 - 1 = 1/7.
PIGLET_1 = Fraction(1, 3)
PIGLET_2 = Fraction(1, 7)


def run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---- independent answers ------------------------------------------------------------------------

def ring_chase(cells: int) -> dict:
    """The ring chase by hand: position (cat, mouse, cat to move?) -> (Cat's value, remoteness),
    remoteness None for a draw (the mouse runs for ever: worth 0, `when endless draw`). The cat
    wins where it can force a catch: a retrograde from the catches, level by level, a cat
    position entering at the first level one of its steps reaches (fastest win), a mouse
    position when the last of its moves is known to lose (slowest loss)."""
    def steps(x):
        return {(x + 1) % cells, (x - 1) % cells}

    def children(cat, mouse, cat_moves):
        if cat_moves:
            return [("caught",) if c == mouse else (c, mouse, False) for c in steps(cat)]
        return [(cat, m, True) for m in steps(mouse) | {mouse} if m != cat]

    positions = [(c, m, t) for c in range(cells) for m in range(cells) if c != m
                 for t in (True, False)]
    won: dict = {("caught",): 0}
    level = 0
    while True:
        level += 1
        new = {}
        for p in positions:
            if p in won:
                continue
            kids = children(*p)
            if p[2] and any(won.get(k) == level - 1 for k in kids):
                new[p] = level
            if not p[2] and all(k in won for k in kids) and max(won[k] for k in kids) == level - 1:
                new[p] = level
        if not new:
            break
        won.update(new)
    return {p: (1, won[p]) if p in won else (0, None) for p in positions}


def horizon_values(game, endless: int) -> dict:
    """Player 0's value of every reachable position of a two-player game without chance when a
    play that never ends is worth ``endless``: minimax over plays cut after twice as many moves
    as there are positions, the cut scored ``endless`` (whatever a side can force, it forces
    within as many moves as there are positions)."""
    states, frontier = set(), [game.initial_state()]
    while frontier:
        state = frontier.pop()
        if state not in states:
            states.add(state)
            if game.current_player(state) >= 0:
                frontier.extend(game.apply(state, a) for a in game.legal_actions(state))

    @cache
    def value(state, left):
        if game.current_player(state) == TERMINAL:
            return game.returns(state)[0]
        if left == 0:
            return endless
        children = [value(game.apply(state, a), left - 1) for a in game.legal_actions(state)]
        return max(children) if game.current_player(state) == 0 else min(children)

    horizon = 2 * len(states) + 2
    return {s: value(s, horizon) for s in states}


def ring_state(game, cat: int, mouse: int, cat_moves: bool):
    """The ring chase's state for (cat, mouse, whose move), found among the reachable states."""
    frontier, seen = [game.initial_state()], set()
    while frontier:
        state = frontier.pop()
        if state in seen:
            continue
        seen.add(state)
        v = game.variables(state)
        player = game.current_player(state)
        if player >= 0 and (v["cat"], v["mouse"], player == 0) == (cat, mouse, cat_moves):
            return state
        if player >= 0:
            frontier.extend(game.apply(state, a) for a in game.legal_actions(state))
    raise AssertionError("not reachable")


def bench(path: str, **options) -> Workbench:
    with open(path, encoding="utf-8") as rules:
        return Workbench(rules.read(), path, **options)


# ---- gdl serve ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, params", [("ring-chase", {}), ("give-and-take", {}),
                                          ("rounds", {}), ("piglet", {"goal": 2}),
                                          ("pig100", {"goal": 10})])
def test_serve_answers_on_every_cyclic_game(name, params):
    # Until now every request raised inside the server (a tree search met a repeated position)
    # and the page said "Failed to fetch".
    wb = bench(str(CYCLIC / f"{name}.game"), params=params)
    state = wb.state()
    assert state["error"] is None and state["moves"]
    assert "repeat a position" in state["solver"]["note"]
    assert "positions" in state["solver"]["name"]         # the solver named: "... over N positions"
    json.dumps(state)
    after = wb.roll() if state["to_move"] == "chance" else wb.solver_move()
    assert len(after["history"]) == 1 and after["error"] is None
    tree = wb.tree(None)
    assert tree["nodes"] >= 1 and "repeat a position" in tree["note"]
    assert wb.tree(2)["nodes"] >= 1


def test_serve_values_the_ring_chase_as_the_hand_retrograde_does():
    # A ring of 3: the mouse is always next to the cat, so the cat wins; stepping onto the
    # mouse at once is a win in 1, the other way round a win in 3.
    for cells in (3, 5):
        wb = bench(RING, params={"cells": cells})
        game = wb.game
        truth = ring_chase(cells)
        state = wb.state()
        start = (0, cells // 2, True)
        assert [v["value"] for v in state["values"]] == [truth[start][0], -truth[start][0]]
        for move in state["moves"]:
            child = game.apply(game.initial_state(), next(
                a for a in game.legal_actions(game.initial_state()) if game.action_name(a) == move["name"]))
            v = game.variables(child)
            value, remoteness = (1, 0) if v["caught"] else truth[(v["cat"], v["mouse"], False)]
            assert move["values"][0]["value"] == value
            assert move["label"] == ("win" if value else "draw")
            assert move["remoteness"] == (None if remoteness is None else remoteness + 1)
    wb = bench(RING, params={"cells": 3})
    assert {m["name"]: m["remoteness_text"] for m in wb.state()["moves"]} == {
        "cat_step(1)": "win in 1", "cat_step(2)": "win in 3"}
    after = wb.solver_move()                    # the fastest win
    assert after["over"] and after["history"][0]["move"] == "cat_step(1)"


def test_a_draw_without_a_value_shows_as_a_draw_and_the_solver_keeps_playing():
    # Give and take: the start is a draw (neither side can force an end). Brute force with
    # endless play worth -1, 0 and +1 to the first player: a position is a draw when the
    # value depends on it. The solver must move at a draw, and its move must be optimal for
    # at least one value endless play could have.
    wb = bench(GIVE)
    game = wb.game
    values = {e: horizon_values(game, e) for e in (-1, 0, 1)}
    state = wb.state()
    assert state["values"] is None and state["draw"] is True
    assert all(m["label"] == "draw" and m["values"] is None for m in state["moves"])
    wb.choose_seats([])
    for _ in range(12):
        before = wb.session.state
        mover = game.current_player(before)
        after = wb.solver_move()
        child = wb.session.state
        sign = 1 if mover == 0 else -1
        assert any(sign * values[e][child] == max(sign * values[e][game.apply(before, a)]
                                                  for a in game.legal_actions(before))
                   for e in (-1, 0, 1)), after["history"][-1]
        if after["over"]:
            break


def test_piglet_on_the_page_is_worth_its_hand_value():
    for goal, value in ((1, PIGLET_1), (2, PIGLET_2)):
        state = bench(PIGLET, params={"goal": goal}).state()
        shown = state["values"][0]["value"]
        assert Fraction(shown) == value


def test_serve_reads_a_cyclic_database(tmp_path):
    from gdl.cli.strong import binding
    from gdl.graph.database import open_database

    db = tmp_path / "ring.db"
    assert main(["solve", RING, "--strong", "--set", "cells=3", "--save", str(db)]) == 0
    wb = bench(RING, params={"cells": 3},
               database=open_database(db, binding(RING, {"cells": 3})))
    state = wb.state()
    assert state["solver"]["name"] == "position database"
    assert {m["name"]: m["remoteness_text"] for m in state["moves"]} == {
        "cat_step(1)": "win in 1", "cat_step(2)": "win in 3"}


def test_the_server_answers_state_requests_on_a_cyclic_game():
    server = GameServer(bench(GIVE))
    server.serve_in_thread()
    try:
        connection = http.client.HTTPConnection(*server.server_address[:2], timeout=60)
        connection.request("GET", "/api/state")
        response = connection.getresponse()
        document = json.loads(response.read())
        connection.close()
    finally:
        server.shutdown()
        server.server_close()
    assert response.status == 200 and document["draw"] is True


def test_with_a_depth_the_page_searches_and_its_tree_view_says_why_it_is_cut():
    # --depth: the page values moves by a depth-limited search, which works on any game; the
    # tree view cannot search to the end (it would never end), so it searches to a depth.
    wb = bench(RING, depth=2)
    state = wb.state()
    assert state["error"] is None and state["proven"] is False and "solver" not in state
    tree = wb.tree(None)
    assert "repeat a position" in tree["note"] and tree["nodes"] > 1


def test_a_cyclic_game_too_big_to_solve_says_what_works(monkeypatch):
    import gdl.tools.graph_advice as advice

    monkeypatch.setattr(advice, "CYCLIC_LIMIT", 10)       # the ring of 5 has 45 positions
    state = bench(RING).state()
    assert "more than 10 positions" in state["error"]
    assert "--strong --save DB" in state["error"] and "--db DB" in state["error"]
    assert "--depth N" in state["error"]
    assert state["moves"] and "max-length" not in state["error"]


# ---- gdl analyze --------------------------------------------------------------------------------

@pytest.mark.parametrize("cells", [3, 4, 5])
def test_analyze_the_ring_chase_against_the_hand_retrograde(capsys, cells):
    game = gdl.load(RING, params={"cells": cells})
    truth = ring_chase(cells)
    for moves in ([], ["cat_step(2)"]):
        code, out, err = run(capsys, ["analyze", RING, "--set", f"cells={cells}", "--json"]
                             + (["--moves", *moves] if moves else []))
        assert code == 0, err
        document = json.loads(out)
        assert "retrograde" in document["algorithm"]
        start = (0, cells // 2, True) if not moves else ((cells - 1), cells // 2, False)
        assert document["values"]["Cat"] == truth[start][0]
        assert document["remoteness"] == truth[start][1]
        here = game.initial_state() if not moves else gdl.moves.play(game, moves)
        mover = game.current_player(here)
        scores = []
        for entry, action in zip(document["actions"], game.legal_actions(here)):
            v = game.variables(game.apply(here, action))
            value, remoteness = (1, 0) if v["caught"] else truth[(v["cat"], v["mouse"], mover == 1)]
            assert entry["values"]["Cat"] == value and entry["remoteness"] == remoteness
            scores.append(value if mover == 0 else -value)
        assert [e["optimal"] for e in document["actions"]] == [s == max(scores) for s in scores]


def test_analyze_says_which_solver_answered_in_one_line(capsys):
    code, out, err = run(capsys, ["analyze", RING])
    assert code == 0, err
    assert len(re.findall(r"repeat a position", out)) == 1
    assert re.search(r"value\s+Cat 0, Mouse 0.*retrograde analysis over 45 positions", out)
    code, out, err = run(capsys, ["analyze", GIVE])
    assert code == 0, err
    assert "a draw (endless play, no value)" in out and "max-length" not in out + err


def test_analyze_piglet_and_refuse_a_strategy_with_the_reason(capsys):
    code, out, err = run(capsys, ["analyze", PIGLET, "--set", "goal=1", "--json"])
    assert code == 0, err
    assert Fraction(json.loads(out)["values"]["A"]) == PIGLET_1
    code, out, err = run(capsys, ["analyze", RING, "--strategy", "never-written.json"])
    assert code == 2 and "repeat a position" in err and "--db DB" in err


# ---- gdl play -----------------------------------------------------------------------------------

def test_play_the_ring_chase_the_cat_wins_fastest(monkeypatch, capsys):
    # A ring of 3: both of the cat's first steps win, stepping onto the mouse in 1 move.
    code, out, err = run(capsys, ["play", RING, "--set", "cells=3", "--as", "Mouse"], "",
                         monkeypatch)
    assert code == 0, err
    assert "Cat plays cat_step(1)" in out and "Game over: Cat 1, Mouse -1 (Cat wins)." in out
    assert "the solver (retrograde analysis over 15 positions) plays Cat" in out
    assert "max-length" not in out + err


def test_play_hint_on_a_declared_draw(monkeypatch, capsys):
    # A ring of 5: the mouse can always step away (the hand retrograde: the start is no win for
    # the cat), so stepping away is worth the declared draw, 0, and sitting next to the cat
    # loses at once.
    truth = ring_chase(5)
    assert truth[(0, 2, True)] == (0, None)
    code, out, err = run(capsys, ["play", RING, "--as", "Mouse"], "hint\nquit\n", monkeypatch)
    assert code == 0, err
    hint = out.split("hint: best ")[1]
    assert hint.split(";")[0].strip() in {"mouse_step(1)", "mouse_step(2)"}
    assert re.search(r"sit\s+Cat 1, Mouse -1\s+remoteness 1", hint)


def test_the_solver_moves_at_a_draw_and_stops_when_it_comes_back(monkeypatch, capsys):
    # Give and take played by the solver alone: a draw, so the game would go on for ever.
    code, out, err = run(capsys, ["play", GIVE], "", monkeypatch)
    assert code == 0, err
    assert "First plays " in out and "Second plays " in out
    assert "a draw" in out and out.rstrip().endswith("Stopped.")


def test_play_piglet_needs_no_depth(monkeypatch, capsys):
    code, out, err = run(capsys, ["play", PIGLET, "--set", "goal=1", "--seed", "1"], "",
                         monkeypatch)
    assert code == 0, err
    assert "A plays flip (value A 1/3, B -1/3)" in out and "Game over" in out


def test_the_first_of_a_ranked_list_is_played_even_when_another_ends_the_game():
    # A losing mover with a slow loss and one that ends the game at once: the database's
    # ranking puts the slow one first, and the solver plays it (choose() would have ended it).
    from gdl.tools.database_advice import MoveEntry, ranked_best
    from gdl.tools.session import pick

    game = gdl.load(GIVE)
    quick, slow = MoveEntry("quick", (-1, 1), 0), MoveEntry("slow", (-1, 1), 5)
    draw = MoveEntry("endless", None, -1)
    assert [e.action for e in ranked_best(game, 0, [quick, slow])] == ["slow", "quick"]
    assert [e.action for e in ranked_best(game, 0, [MoveEntry("a", (1, -1), 3),
                                                    MoveEntry("b", (1, -1), 1)])] == ["b", "a"]
    # at a draw, a draw is kept before a level end
    assert [e.action for e in ranked_best(game, 0, [MoveEntry("tie", (0, 0), 0), draw],
                                          draw=True)] == ["endless", "tie"]

    class Advice:
        ranked = True
        best_actions = ("slow", "quick")

    assert pick(game, game.initial_state(), Advice()) == "slow"


# ---- gdl tree -----------------------------------------------------------------------------------

def test_tree_of_a_cyclic_game_needs_a_depth_and_says_so(capsys):
    code, out, err = run(capsys, ["tree", GIVE, "--format", "txt"])
    assert code == 2
    assert "--depth N" in err and "cut where a position repeats" in err
    assert "max-length" not in err


def test_tree_to_a_depth_is_valued_by_the_strong_solve(capsys):
    truth = ring_chase(3)
    code, out, err = run(capsys, ["tree", RING, "--set", "cells=3", "--depth", "2",
                                  "--format", "txt"])
    assert code == 0, err
    lines = out.splitlines()
    assert "from a strong solve" in lines[0]
    assert lines[2] == f"Cat 1, {truth[(0, 1, True)][1]} to the end"
    # cat_step(2): cat 2, mouse 1, the mouse to move (win in 2 more for the cat)
    assert any(re.search(rf"\+ cat_step\(2\)\s+Mouse 1, {truth[(2, 1, False)][1]} to the end$", line)
               for line in lines)
    assert any(re.search(r"\* cat_step\(1\)\s+1$", line) for line in lines)   # the catch
    assert any("(depth limit: cut)" in line for line in lines)


def test_tree_cuts_a_repeated_position(capsys):
    # Give and take, take(1) then give: the pile is full again with First to move, the start.
    code, out, err = run(capsys, ["tree", GIVE, "--depth", "2", "--format", "txt"])
    assert code == 0, err
    assert re.search(r"give\s+First draw \(repeats: cut\)", out)


def test_a_search_tree_on_a_cyclic_game_hangs_every_node_where_it_was_searched():
    # With an algorithm named, the tree of a depth-limited search: a position met twice on a
    # path (take(1) take(1) give comes back to the position after the first take(1)) was
    # mistaken for its first visit, so later moves hung under the wrong node, and the root's
    # question after the search made a node without a value (a traceback).
    from gdl.tools.search_tree import record, to_text
    from gdl.tools.session import NeutralEvaluation

    plain = gdl.load(GIVE)
    tree = record(NeutralEvaluation(plain), "alphabeta", depth=3)
    assert tree.nodes == tree.result.stats.nodes        # one recorded node per node searched

    def position(node):
        return node.state[0]     # (the recorder's states carry the visit's number)

    for node in tree.walk():
        assert node.value is not None
        for child in node.children:
            assert plain.apply(position(node), child.action) == position(child)
        depth, up = 0, node
        while up.parent is not None:
            depth, up = depth + 1, up.parent
        assert depth <= 3
    assert "(evaluated)" in to_text(tree)


# ---- messages -----------------------------------------------------------------------------------

THREE_PLAYERS = """game "Three in a ring"
players A, B, C
var done in bool = false
action pass
action stop effect done = true
terminal done
utility A = 1 if mover == A else 0
utility B = 1 if mover == B else 0
utility C = 1 if mover == C else 0
when endless (0, 0, 0)
"""


def test_check_deep_promises_what_solve_does(tmp_path, capsys):
    # Three players passing round a ring, endless play declared: the deep check notes the
    # cycle and promises what gdl solve does (an equilibrium over the state graph).
    three = tmp_path / "three.game"
    three.write_text(THREE_PLAYERS, encoding="utf-8")
    for path, sets, solves in ((str(three), [], True), (RING, [], True),
                               (PIGLET, ["--set", "goal=2"], True)):
        code, out, err = run(capsys, ["check", "--deep", path, *sets])
        assert code == 0, err
        promise = "gdl solve solves its state graph" in err
        refusal = "gdl solve refuses it" in err
        assert promise != refusal
        solved, _, solve_err = run(capsys, ["solve", path, *sets])
        assert (solved == 0) == promise == solves, solve_err
        assert "max-length, so give it one" not in solve_err


def test_refusals_name_what_works(capsys):
    code, out, err = run(capsys, ["solve", GIVE])
    assert code == 1
    assert "--strong" in err and "when endless draw" in err and "give it one" not in err
    code, out, err = run(capsys, ["check", "--deep", GIVE])
    assert code == 1 and "when endless draw" in err and "gdl solve --strong" in err
    code, out, err = run(capsys, ["solve", RING, "--max-states", "10"])
    assert code == 1 and "more than 10 positions" in err and "--workers N" in err


def test_the_repetition_error_names_the_strong_solver():
    from gdl.solvers.repetition import RepetitionError

    with pytest.raises(RepetitionError) as caught:
        gdl.solve(gdl.load(GIVE), "alphabeta")
    message = str(caught.value)
    assert "gdl solve --strong" in message and "--db DB" in message and "--workers N" in message
    assert "when endless draw" in message
    # three players, endless play declared: the strong solver looks for an equilibrium
    three = gdl.loads(THREE_PLAYERS)
    with pytest.raises(RepetitionError) as caught:
        gdl.solve(three, "maxn")
    assert "--strong" in str(caught.value) and "no single value" not in str(caught.value)
    # and without the declaration (nor a declared constant sum) it has no single value
    undeclared = gdl.loads(THREE_PLAYERS.replace("when endless (0, 0, 0)\n", ""))
    with pytest.raises(RepetitionError) as caught:
        gdl.solve(undeclared, "maxn")
    assert "no single value" in str(caught.value) and "--strong" not in str(caught.value)


def test_a_search_playing_itself_round_a_cycle_is_stopped(monkeypatch, capsys):
    # With --depth the solver searches (no strong solve): on a ring of 5 the cat never catches
    # the mouse, so its choices come round to a position again and again; the game stops.
    code, out, err = run(capsys, ["play", RING, "--depth", "2"], "", monkeypatch)
    assert code == 0, err
    assert out.rstrip().endswith("Stopped.") and "Game over" not in out
