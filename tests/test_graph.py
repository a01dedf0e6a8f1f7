"""Strong solving (gdl.graph): every reachable position valued, checked against the tree
solvers at every position, against published counts, and against brute force written here."""

import json
import re
import sys
import types
from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest
from graph_games import GraphGame, evaluate_exactly
from helpers import GAMES
from hypothesis import given, settings
from hypothesis import strategies as st

import gdl
from gdl.cli import main
from gdl.generators.rules import rule_games
from gdl.generators.trees import trees
from gdl.graph import BACKWARD_INDUCTION, RETROGRADE, VALUE_ITERATION, TooManyPositions, strong_solve
from gdl.graph.retrograde import retrograde
from gdl.graph.solution import NO_END_HIGH, NO_END_LOW
from gdl.moves import play as play_moves
from gdl.protocol import CHANCE, TERMINAL
from gdl.solvers import default_options, solve


def load(name, **params):
    return gdl.load(GAMES / name, params)


def tree_answer(game, state):
    """The tree solvers' value vector and optimal actions from ``state``."""
    info = game.info
    if info.num_players == 2 and info.is_constant_sum:
        result = solve(game, "expectiminimax", root_state=state)
    else:
        result = solve(game, "maxn", root_state=state, shallow_pruning=False)
    return tuple(result.values), tuple(result.best_actions)


def agrees_everywhere(game):
    solution = strong_solve(game)
    graph = solution.graph
    for position in range(len(graph)):
        state = graph.state(position)
        values, best = tree_answer(game, state)
        assert solution.value(position) == values, (position, state)
        assert solution.best_actions(position) == best, (position, state)
    return solution


# ---- tic-tac-toe: FACTS counts, and every position against alpha-beta ---------------------------

def test_tictactoe_census_and_every_position_against_alphabeta():
    game = load("tictactoe.game")
    solution = strong_solve(game)
    census = solution.census()
    # FACTS: 5,478 positions, 4,520 non-terminal, 958 terminal; the empty board is a draw (a tie
    # in strong-solving terms: the game ends level) and a drawn game fills the board (9 moves).
    assert (census["positions"], census["decision"], census["terminal"]) == (5478, 4520, 958)
    assert solution.method == BACKWARD_INDUCTION and solution.exact
    assert solution.value(0) == (0, 0) and solution.value_class(0) == "tie"
    assert solution.remoteness(0) == 9
    graph = solution.graph
    # the default table (a million entries) would cost more to allocate than these searches
    small_table = replace(default_options(None, None), tt_size=4096)
    for position in range(len(graph)):
        state = graph.state(position)
        if graph.player[position] == TERMINAL:
            assert solution.value(position) == tuple(game.returns(state))
            continue
        result = solve(game, "alphabeta", root_state=state, options=small_table)
        assert solution.value(position) == tuple(result.values), state
        assert solution.best_actions(position) == tuple(result.best_actions), state


def test_tictactoe_published_positions():
    # FACTS (OpenSpiel): cells 0-8 row by row; after X 4, O 1 X wins; after X 5, O 4, X 3, O 8
    # X loses.
    game = load("tictactoe.game")
    solution = strong_solve(game)

    def after(*cells):
        return play_moves(game, [f"place({c // 3},{c % 3})" for c in cells])

    won = solution.graph.position_id(after(4, 1))
    lost = solution.graph.position_id(after(5, 4, 3, 8))
    assert solution.value(won)[0] == 1 and solution.value_class(won) == "win"
    assert solution.value(lost)[0] == -1 and solution.value_class(lost) == "lose"


def test_nim_losing_positions_are_the_xor_zero_ones():
    # FACTS: the player to move loses exactly when the XOR of the heaps is 0.
    game = load("nim.game", a=2, b=3, c=5)
    assert game.initial_state()[1:5] == (2, 3, 5, 0)    # the state: the mover, then the heaps
    solution = strong_solve(game)
    graph = solution.graph
    for position in range(len(graph)):
        if graph.player[position] < 0:
            continue
        heaps = graph.state(position)[1:5]
        xor = heaps[0] ^ heaps[1] ^ heaps[2] ^ heaps[3]
        assert solution.value_class(position) == ("lose" if xor == 0 else "win"), heaps


def test_connect_four_4x4_count_and_value():
    # FACTS (Tromp): 161,029 positions on 4 x 4, and the empty board is a draw (a tie here).
    solution = strong_solve(load("connect4.game"))
    assert len(solution.graph) == 161_029
    assert solution.value(0) == (0, 0) and solution.value_class(0) == "tie"


# ---- generated acyclic games: the graph equals the tree solvers at every position ---------------

@settings(max_examples=40)
@given(rule_games())
def test_generated_rule_games_agree_with_tree_solvers(rules):
    agrees_everywhere(rules.game)


@settings(max_examples=40)
@given(trees(players=3, chance=True, sum_kind="general-sum"))
def test_generated_trees_agree_with_maxn(game):
    agrees_everywhere(game)


@settings(max_examples=40)
@given(rule_games(players=2, sum_kinds=("zero-sum",), chance=False))
def test_retrograde_equals_backward_induction_on_acyclic_games(rules):
    # On a graph without cycles both methods must give the same values and remoteness.
    solution = strong_solve(rules.game)
    other = retrograde(solution.graph, 0)
    assert (other.lower == solution.values.lower).all()
    assert (other.upper == solution.values.upper).all()
    assert (other.remoteness == solution.values.remoteness).all()


# ---- a cyclic game of our own against a brute force -----------------------------------------------

CUT = 100


def brute_force_bounds(game, horizon):
    """For every state reachable from the start: (low, high), player 0's value in the game cut
    off after ``horizon`` moves, the cut-off valued -100 (below every result) or +100 (above). After
    more moves than there are states, ``low`` is what player 0 can force with the game ending,
    ``high`` what player 1 can hold it to: equal where the game is decided, apart at a draw."""

    @cache
    def value(state, left, cutoff):
        player = game.current_player(state)
        if player == TERMINAL:
            return game.returns(state)[0]
        if left == 0:
            return cutoff
        children = [value(game.apply(state, a), left - 1, cutoff) for a in game.legal_actions(state)]
        return max(children) if player == 0 else min(children)

    states, frontier = set(), [game.initial_state()]
    while frontier:
        state = frontier.pop()
        if state in states:
            continue
        states.add(state)
        if game.current_player(state) >= 0:
            frontier.extend(game.apply(state, a) for a in game.legal_actions(state))
    return {s: (value(s, horizon, -CUT), value(s, horizon, CUT)) for s in states}


def brute_force_undeclared(game, horizon):
    """For every state reachable from the start: player 0's value where the rules do not say
    what endless play is worth, or None (a draw). Endless play may then be worth anything
    between the least and the greatest result the game's ends give player 0 (docs/graph.md), so
    a state has a value exactly when the game cut off after ``horizon`` moves gives the same
    with the cut-off valued either extreme."""
    states = brute_force_bounds(game, 0)
    ends = {game.returns(s)[0] for s in states if game.current_player(s) == TERMINAL}
    if not ends:
        return dict.fromkeys(states)
    low = brute_force_cut(game, horizon, min(ends))
    high = brute_force_cut(game, horizon, max(ends))
    return {s: (low[s] if low[s] == high[s] else None) for s in low}


def brute_force_cut(game, horizon, cutoff):
    """Player 0's value of every reachable state in the game cut off after ``horizon`` moves,
    the cut-off valued ``cutoff``."""
    @cache
    def value(state, left):
        player = game.current_player(state)
        if player == TERMINAL:
            return game.returns(state)[0]
        if left == 0:
            return cutoff
        children = [value(game.apply(state, a), left - 1) for a in game.legal_actions(state)]
        return max(children) if player == 0 else min(children)

    return {s: value(s, horizon) for s in brute_force_bounds(game, 0)}


@pytest.mark.parametrize("tokens, share_at", [(3, 0), (3, 3), (4, 3), (5, 2), (6, 3), (7, 0), (8, 5)])
def test_give_and_take_counts_match_brute_force(tokens, share_at):
    game = load("cyclic/give-and-take.game", tokens=tokens, share_at=share_at)
    solution = strong_solve(game)
    assert solution.method == RETROGRADE
    graph = solution.graph
    values = brute_force_undeclared(game, horizon=2 * len(graph) + 2)
    expected = {"win": 0, "lose": 0, "tie": 0, "draw": 0}
    for state, v in values.items():
        player = game.current_player(state)
        if player < 0:
            continue
        if v is None:
            expected["draw"] += 1
            assert solution.value(graph.position_id(state)) is None
            continue
        mine = v if player == 0 else -v
        expected["win" if mine > 0 else "lose" if mine < 0 else "tie"] += 1
        assert solution.value(graph.position_id(state))[0] == v
    assert solution.census()["classes"] == expected
    assert len(graph) == len(values)


def test_give_and_take_has_all_four_classes_somewhere():
    # The brute-force test above means little if every position were a draw.
    seen = set()
    for tokens, share_at in [(3, 0), (3, 3), (4, 3), (5, 2), (6, 3), (7, 0), (8, 5)]:
        game = load("cyclic/give-and-take.game", tokens=tokens, share_at=share_at)
        classes = strong_solve(game).census()["classes"]
        seen |= {k for k, v in classes.items() if v}
    assert seen == {"win", "lose", "tie", "draw"}


def test_remoteness_wins_fastest_and_loses_slowest():
    # Give and take with 3 tokens, no sharing and... Nim with one heap of 4 is simpler: the mover
    # takes everything at once (remoteness 1); with heaps 1 and 1 the mover loses in 2 moves.
    solution = strong_solve(load("nim.game", a=4, b=0, c=0))
    assert solution.value_class(0) == "win" and solution.remoteness(0) == 1
    solution = strong_solve(load("nim.game", a=1, b=1, c=0))
    assert solution.value_class(0) == "lose" and solution.remoteness(0) == 2


def test_too_many_positions_is_refused():
    with pytest.raises(TooManyPositions, match="more than 100"):
        strong_solve(load("tictactoe.game"), max_states=100)


def test_cyclic_many_player_games_are_refused_by_name():
    from gdl.backends.load import loads
    from gdl.solvers.result import SolverError

    text = """game "Round"
players A, B, C
var x in 0..2 = 0
action go effect x = (x + 1) % 3
action stop requires x == 2 effect x = x
terminal x == 2 and mover == A
utility A = 1
utility B = 0
utility C = 0
"""
    game = loads(text)
    with pytest.raises(SolverError, match="3 players"):
        strong_solve(game)


# ---- the command line ---------------------------------------------------------------------------

def test_cli_strong_json(capsys):
    assert main(["solve", str(GAMES / "tictactoe.game"), "--strong", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == {"X": 0, "O": 0}
    assert document["class"] == "tie" and document["remoteness"] == 9
    assert document["census"]["positions"] == 5478 and document["census"]["terminal"] == 958
    assert document["exact"] is True


def test_cli_solves_a_cyclic_game_that_has_a_value(capsys):
    # Give and take with 3 tokens: sharing at once is the best First can do (taking one or two
    # leaves the opponent the last tokens), so the value is a tie although the game can cycle.
    path = str(GAMES / "cyclic" / "give-and-take.game")
    assert main(["solve", path, "--set", "tokens=3", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == {"First": 0, "Second": 0}
    assert document["algorithm"] == RETROGRADE and document["best_actions"] == ["share"]


def test_cli_max_states_is_refused_cleanly(capsys):
    assert main(["solve", str(GAMES / "tictactoe.game"), "--strong", "--max-states", "10"]) == 2
    assert "more than 10 reachable positions" in capsys.readouterr().err


def test_cli_chance_position_strong(capsys):
    assert main(["solve", str(GAMES / "chance-example.game"), "--strong", "--json"]) == 0
    # FACTS: (1/2)·8 + (1/3)·24 + (1/6)·(−12) = 10.
    assert json.loads(capsys.readouterr().out)["values"]["MAX"] == 10


# ---- chance with cycles: Piglet by hand, generated stochastic graphs by brute force --------------

@pytest.mark.parametrize("goal, first_player_wins", [(1, Fraction(2, 3)), (2, Fraction(4, 7))])
def test_piglet_exact_values_derived_by_hand(goal, first_player_wins):
    # p(i, j, k): the mover's chance to win with score i, the opponent's j, turn total k; a flip
    # is heads (+1) or tails (the turn total is lost and the turn passes) with probability 1/2;
    # holding (k > 0 only) gives 1 - p(j, i + k, 0).
    # Goal 1: p(0,0,0) = 1/2 + 1/2 (1 - p(0,0,0))  =>  p = 2/3.
    # Goal 2: p(1,1,0) = 1/2 + 1/2 (1 - p(1,1,0)) = 2/3. With a = p(1,0,0), b = p(0,1,0),
    #   c = p(0,1,1): a = 1 - b/2; c = max(1/2 + (1 - a)/2, hold: 1 - p(1,1,0) = 1/3);
    #   b = c/2 + (1 - a)/2. Rolling at c: c = 1 - a/2, b = 1 - 3a/4, a = 1/2 + 3a/8, so
    #   a = 4/5, b = 2/5, c = 3/5 > 1/3 (rolling is right). With e = p(0,0,0), f = p(0,0,1):
    #   f = max(1/2 + (1 - e)/2, hold: 1 - b = 3/5), e = f/2 + (1 - e)/2. Rolling at f:
    #   e = 4/7, f = 5/7 > 3/5 (right again). The first player wins with probability 4/7.
    solution = strong_solve(load("cyclic/piglet.game", goal=goal))
    assert solution.exact and solution.method == VALUE_ITERATION
    # utility +1 for a win, -1 for a loss: the value is P(win) - P(loss) = 2 P(win) - 1
    assert solution.value(0) == (2 * first_player_wins - 1, 1 - 2 * first_player_wins)


def test_pig_to_two_by_hand():
    # Goal 2 with a six-sided die: any face but 1 wins at once, so p = 5/6 + 1/6 (1 - p), p = 6/7.
    solution = strong_solve(load("cyclic/pig100.game", goal=2))
    assert solution.exact and solution.value(0) == (Fraction(5, 7), Fraction(-5, 7))


@st.composite
def cyclic_graphs(draw, chance: bool):
    """Small graphs with cycles. With chance, every decision leads to a chance node and every
    chance node may end the game (a terminal outcome with positive probability), so every play
    ends with probability 1 (a stopping game)."""
    deciders = draw(st.integers(1, 4))
    terminals = draw(st.integers(1, 3))
    chances = draw(st.integers(1, 3)) if chance else 0
    kinds = [draw(st.integers(0, 1)) for _ in range(deciders)] + [CHANCE] * chances \
        + [TERMINAL] * terminals
    chance_ids = list(range(deciders, deciders + chances))
    terminal_ids = list(range(deciders + chances, len(kinds)))
    moves, payoff = [], {}
    for s, kind in enumerate(kinds):
        if kind == TERMINAL:
            payoff[s] = draw(st.integers(-2, 2))
            moves.append([])
        elif kind == CHANCE:
            targets = [draw(st.sampled_from(terminal_ids))] + draw(
                st.lists(st.integers(0, deciders - 1), min_size=1, max_size=2))
            weights = [draw(st.integers(1, 3)) for _ in targets]
            moves.append([(t, Fraction(w, sum(weights))) for t, w in zip(targets, weights)])
        else:
            pool = chance_ids if chance else list(range(len(kinds)))
            moves.append(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3)))
    return GraphGame(kinds, moves, payoff, chance)


@settings(max_examples=60)
@given(cyclic_graphs(chance=False))
def test_retrograde_equals_a_brute_force_on_generated_cyclic_graphs(game):
    solution = strong_solve(game)
    graph = solution.graph
    horizon = 2 * len(graph) + 2
    values = brute_force_undeclared(game, horizon)
    for state, (low, high) in brute_force_bounds(game, horizon).items():
        position = graph.position_id(state)
        # what each side can force, centred (2 u0) and with "cannot force an end"
        lower, upper = solution.values.lower[position], solution.values.upper[position]
        assert lower == (2 * low if low > -CUT else NO_END_LOW)
        assert upper == (2 * high if high < CUT else NO_END_HIGH)
        v = values[state]
        assert solution.value(position) == (None if v is None else (v, -v)), state


@settings(max_examples=40)
@given(cyclic_graphs(chance=True))
def test_value_iteration_equals_a_brute_force_on_generated_stochastic_graphs(game):
    # Perfect-information stochastic games have optimal pure stationary strategies, the same
    # from every state; so the value of each state is max over player 0's stationary strategies
    # of min over player 1's, every pair evaluated exactly.
    import itertools

    solution = strong_solve(game)
    assert solution.exact
    graph = solution.graph
    states = [graph.state(p) for p in range(len(graph))]
    def options(player):
        return [[(s, t) for t in dict.fromkeys(game.moves[s])] for s in states
                if game.current_player(s) == player]
    mine, theirs = options(0), options(1)
    best = {s: None for s in states}
    for a in itertools.product(*mine):
        worst = {s: None for s in states}
        for b in itertools.product(*theirs):
            values = evaluate_exactly(game, states, dict(a + b))
            worst = {s: values[s] if worst[s] is None else min(worst[s], values[s]) for s in states}
        best = {s: worst[s] if best[s] is None else max(best[s], worst[s]) for s in states}
    for position, state in enumerate(states):
        assert solution.value(position)[0] == best[state], state


# ---- the position database ---------------------------------------------------------------------

def test_database_round_trips_every_position(tmp_path):
    from gdl.graph.database import open_database, save

    for name, params in [("tictactoe.game", {}), ("cyclic/give-and-take.game", {"tokens": 5}),
                         ("cyclic/piglet.game", {"goal": 2})]:
        solution = strong_solve(load(name, **params))
        path = tmp_path / "positions.db"
        save(solution, path, {"test": name})
        db = open_database(path, {"test": name})
        assert len(db) == len(solution.graph)
        for position in range(len(solution.graph)):
            entry = db.lookup(solution.graph.state(position))
            assert entry.values == solution.value(position)
            assert entry.remoteness == solution.remoteness(position)
        assert db.lookup((99,) * 30) is None


def test_database_records_take_two_bytes_a_position(tmp_path):
    # Tic-tac-toe has three values (X wins, draws, loses) and remoteness below 2^14: the packed
    # record is one uint16 a position; with the sorted keys, zlib brings the file under 4 bytes
    # a position.
    from gdl.graph.database import open_database, save

    solution = strong_solve(load("tictactoe.game"))
    size = save(solution, tmp_path / "t.db", {})
    assert open_database(tmp_path / "t.db").header["record"]["layout"] == "packed16"
    assert size < 4 * len(solution.graph)


def test_corrupt_or_stale_databases_are_refused(tmp_path):
    from gdl.graph.database import DatabaseError, open_database, save

    solution = strong_solve(load("tictactoe.game"))
    path = tmp_path / "t.db"
    save(solution, path, {"rules": "a"})
    with pytest.raises(DatabaseError, match="other rules"):
        open_database(path, {"rules": "b"})
    data = path.read_bytes()
    for broken in (data[:len(data) // 2], b"hello" + data[5:],
                   data[:-10] + bytes(10), data + b"x"):
        path.write_bytes(broken)
        with pytest.raises(DatabaseError, match="not a valid gdl position database"):
            open_database(path)
    with pytest.raises(DatabaseError, match="no such database"):
        open_database(tmp_path / "missing.db")


def test_an_interrupted_save_leaves_nothing(tmp_path, monkeypatch):
    import gdl.graph.database as database

    solution = strong_solve(load("tictactoe.game"))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(database.zlib, "compress", interrupted)
    with pytest.raises(KeyboardInterrupt):
        database.save(solution, tmp_path / "t.db", {})
    assert list(tmp_path.iterdir()) == []


def test_cli_save_analyze_and_play_from_the_database(tmp_path, capsys, monkeypatch):
    import io

    db = str(tmp_path / "ttt.db")
    game = str(GAMES / "tictactoe.game")
    assert main(["solve", game, "--strong", "--save", db]) == 0
    capsys.readouterr()
    # FACTS (OpenSpiel): after X 4 (centre), O 1 (top edge), X wins; the winning replies are the
    # tree search's (alpha-beta on every reply), not the database's own word.
    assert main(["analyze", game, "--db", db, "--moves", "place(1,1) place(0,1)", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == {"X": 1, "O": -1}
    tictactoe = load("tictactoe.game")
    position = play_moves(tictactoe, ["place(1,1)", "place(0,1)"])
    winning = [tictactoe.action_name(a) for a in tictactoe.legal_actions(position)
               if solve(tictactoe, "alphabeta", root_state=tictactoe.apply(position, a)).values[0] == 1]
    assert [a["action"] for a in document["actions"] if a["optimal"]] == winning
    # The computer as X against itself as O: the database says the game is a tie, so it ends
    # level, and a drawn game fills the board.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", game, "--db", db]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^[XO] plays ", out, re.M)) == 9 and "Game over: X 0, O 0" in out
    # bound to the rule file and the --set values
    assert main(["analyze", str(GAMES / "nim.game"), "--db", db]) == 2
    assert "other rules" in capsys.readouterr().err
    (tmp_path / "bad.db").write_bytes(b"junk")
    assert main(["analyze", game, "--db", str(tmp_path / "bad.db")]) == 2
    assert "not a valid gdl position database" in capsys.readouterr().err


# ---- gdl fuzz compares the strong solver too ---------------------------------------------------

def test_fuzz_compares_the_graph_solver_and_catches_a_planted_bug(monkeypatch):
    from gdl.graph.solution import GraphSolution
    from gdl.tools.fuzz import compare_position

    # Nim with heaps 1 and 1: the mover loses whatever it does, so both moves are optimal.
    game = load("nim.game", a=1, b=1, c=0)
    clean = compare_position(game)
    assert "graph" in clean.solvers and not clean.problems
    real = GraphSolution.best_actions
    monkeypatch.setattr(GraphSolution, "best_actions", lambda self, p: real(self, p)[:1])
    planted = compare_position(game)
    assert [(p.kind, p.solver) for p in planted.problems] == [("best_actions", "graph")]


# ---- gdl check --deep on games that repeat positions -------------------------------------------

def test_check_deep_notes_a_cycle_that_ends_with_probability_one(capsys):
    # Pig to 10: exhaustive (under 20,000 states), and every play ends with probability 1 (a
    # turn starts with a roll, and a 1 or a hold moves the scores or the turn on): a note.
    path = str(GAMES / "cyclic" / "pig100.game")
    assert main(["check", "--deep", "--playouts", "5", path, "--set", "goal=10"]) == 0
    assert "note[E409]" in capsys.readouterr().err
    assert main(["check", "--deep", "--playouts", "5", str(GAMES / "cyclic" / "piglet.game")]) == 0


def test_check_deep_still_refuses_endless_play(capsys):
    # Give and take: a player can give a token back for ever; nothing declares what that is worth.
    assert main(["check", "--deep", "--playouts", "5",
                 str(GAMES / "cyclic" / "give-and-take.game")]) == 1
    assert "error[E409]" in capsys.readouterr().err


def test_cyclic_games_are_in_the_canonical_layout():
    assert main(["fmt", "--check", *map(str, sorted((GAMES / "cyclic").glob("*.game")))]) == 0


def test_beyond_the_exact_check_values_are_labelled_approximate(monkeypatch, capsys):
    import gdl.graph.iteration as iteration

    monkeypatch.setattr(iteration, "EXACT_LIMIT", 10)
    solution = strong_solve(load("cyclic/piglet.game", goal=2))
    assert not solution.exact and "not attempted" in solution.note
    assert abs(solution.value(0)[0] - 1 / 7) < 1e-9        # the exact value, derived above
    assert main(["solve", str(GAMES / "cyclic" / "piglet.game"), "--set", "goal=2", "--strong", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["exact"] is False and document["proven"] is False
    assert "not attempted" in document["note"]


# ---- expectiminimax with a transposition table (item 8, expectiminimax only) -------------------

PIGLET_WITH_HORIZON = """game "Piglet with a horizon"
players A, B
param goal = 3
param horizon = 18
var score[players] in 0..goal - 1 = 0
var turn_total in 0..goal - 1 = 0
var winner in {nobody, A, B} = nobody
var moves in 0..horizon = 0
action flip
    effect moves = moves + 1; random heads in 0..1;
           if heads == 0 { turn_total = 0; pass }
           else if score[mover] + turn_total + 1 >= goal { winner = mover }
           else { turn_total = turn_total + 1; next mover }
action hold
    requires turn_total > 0
    effect score[mover] = score[mover] + turn_total; turn_total = 0; moves = moves + 1; pass
terminal winner != nobody or moves == horizon
utility A = 1 if winner == A else -1 if winner == B else 0
zero-sum
max-length 2 * horizon
"""


def test_expectiminimax_with_a_table_costs_what_the_states_cost():
    from gdl.backends.load import loads
    from gdl.graph import enumerate_positions
    from gdl.solvers.expectiminimax import expectiminimax

    game = loads(PIGLET_WITH_HORIZON.replace("param horizon = 18", "param horizon = 8"))
    plain, tabled = expectiminimax(game), expectiminimax(game, table=True)
    assert (tabled.values, tabled.best_actions) == (plain.values, plain.best_actions)
    # each distinct position (counted independently by the graph's enumeration) expanded once
    assert tabled.stats.nodes == len(enumerate_positions(game)) < plain.stats.nodes
    game = loads(PIGLET_WITH_HORIZON)          # Piglet to 3, 18 moves: millions of histories
    tabled = expectiminimax(game, table=True)
    assert tabled.stats.nodes == len(enumerate_positions(game))
    assert tabled.values == strong_solve(game).value(0)


def test_maxn_with_a_table_gives_the_same_answer_in_fewer_nodes():
    from gdl.solvers.maxn import maxn
    from gdl.solvers.result import SolverError

    # Take-away for three players (a transposition: the same pile after different takes).
    game = load("takeaway3.game")
    plain, tabled = maxn(game), maxn(game, table=True)
    assert (tabled.values, tabled.best_actions, tabled.pv) == (plain.values, plain.best_actions,
                                                                plain.pv)
    assert tabled.stats.nodes == len(strong_solve(game).graph) < plain.stats.nodes
    with pytest.raises(SolverError, match="shallow pruning off"):
        maxn(game, table=True, shallow_pruning=True)


# ---- OpenSpiel (optional: pip install -e '.[openspiel]') ---------------------------------------

def test_pig_to_20_agrees_with_openspiel_value_iteration(monkeypatch):
    # OpenSpiel's pig (six-sided die, winscore 20, its own rules: it also lets a player stop at a
    # turn total of 0, which never helps) solved by its value iteration for cyclic games; our
    # exact value for games/cyclic/pig100.game with goal 20 must agree to its tolerance.
    pyspiel = pytest.importorskip("pyspiel")
    # value_iteration imports its LP solver (and cvxpy) for simultaneous moves only; pig has
    # none, so an empty stand-in will do (as in tests/test_openspiel.py)
    name = "open_spiel.python.algorithms.lp_solver"
    if name not in sys.modules:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    value_iteration = pytest.importorskip("open_spiel.python.algorithms.value_iteration")
    game = pyspiel.load_game("pig", {"winscore": 20})
    theirs = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-9,
                                             cyclic_game=True)
    ours = strong_solve(load("cyclic/pig100.game", goal=20))
    assert ours.exact
    assert abs(float(ours.value(0)[0]) - theirs[str(game.new_initial_state())]) < 1e-6


WIN_AT_ONCE = """game "Win at once"
players A, B
var n in 0..3 = 0
var won in bool = false
action win by A effect won = true
action wait by A effect n = (n + 1) % 4
action stall by B effect n = (n + 1) % 4
terminal won
utility A = 1
zero-sum
"""


def test_a_side_that_can_force_the_best_end_wins_though_the_other_could_go_on():
    # A can end the game at once with the only result there is (A wins); B could only go on
    # for ever, if A let it. Whatever endless play is worth (nobody says), A's win is worth at
    # least as much to A: every position is decided. A, to move, wins in 1; B, to move, loses
    # in 2 (it stalls, then A wins).
    game = gdl.loads(WIN_AT_ONCE)
    solution = strong_solve(game)
    graph = solution.graph
    for position in range(len(graph)):
        player = int(graph.player[position])
        if player < 0:
            continue
        assert solution.value(position) == (1, -1)
        assert solution.value_class(position) == ("win" if player == 0 else "lose")
        assert solution.remoteness(position) == (1 if player == 0 else 2)
    assert "win" in {game.action_name(a) for a in solution.best_actions(0)}
    assert solution.census()["classes"] == {"win": 2, "lose": 2, "tie": 0, "draw": 0}
