"""KIF games written for these tests from the GDL specification, solved by both reasoners:
the plain Datalog interpreter (gdl.kif.interpreter) and the translated game (gdl.kif.translate),
against values known from outside gdl."""

import re
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from kif_helpers import disagreements

import gdl
from gdl.errors import GdlError
from gdl.graph import strong_solve

KIF = Path(__file__).resolve().parent / "data" / "kif"


def text_of(name):
    return (KIF / name).read_text()


def test_tictactoe_has_5478_positions_and_is_a_draw():
    # Published: 5,478 reachable positions, 4,520 of them with a move to make; a draw (each
    # player's goal 50 in GDL's terms).
    game = gdl.load(KIF / "tictactoe.kif")
    assert game.kif is not None          # the translated path, not the interpreter
    solution = strong_solve(game)
    positions = len(solution.graph.keys)
    assert positions == 5478
    assert sum(1 for p in solution.graph.player if p >= 0) == 4520
    assert tuple(solution.value(0)) == (50, 50)


def test_the_interpreter_agrees_with_the_translation_on_every_tictactoe_state():
    problems, states = disagreements(text_of("tictactoe.kif"), "tictactoe.kif")
    assert problems == [] and states == 5478


def nim(heaps):
    text = text_of("nim.kif")
    for name, size in zip("abc", heaps):
        text = re.sub(rf"\(init \(size {name} \d+\)\)", f"(init (size {name} {size}))", text)
    return text


@pytest.mark.parametrize("heaps", [(1, 2, 4), (5, 8, 13), (3, 5, 6), (0, 7, 7), (2, 3, 15)])
def test_nim_follows_boutons_rule_at_every_position(heaps):
    # Bouton: the player to move loses exactly when the XOR of the heaps is 0. Checked at every
    # reachable position of the translated game, from its KIF facts.
    game = gdl.loads(nim(heaps), "nim.kif")
    solution = strong_solve(game)
    players = game.info.players
    checked = 0
    for index, state in enumerate(solution.graph.keys):
        facts = game.kif.facts(game.variables(state))
        sizes = {f[1]: int(f[2]) for f in facts if f[0] == "size"}
        mover = next(f[1] for f in facts if f[0] == "control")
        xor = sizes["a"] ^ sizes["b"] ^ sizes["c"]
        value = solution.value(index)[players.index(mover)]
        assert value == (0 if xor == 0 else 100), (sizes, mover, value)
        checked += 1
    assert checked == len(solution.graph.keys)


def test_nim_in_the_interpreter_too():
    game = gdl.loads(nim((1, 2, 3)), "nim.kif", backend="interpret")
    assert tuple(strong_solve(game).value(0)) == (0, 100)    # 1 ^ 2 ^ 3 = 0: first loses
    game = gdl.loads(nim((1, 2, 4)), "nim.kif", backend="interpret")
    assert tuple(strong_solve(game).value(0)) == (100, 0)


# ---- the orchard: `or` and `distinct`, against a direct model of its rules --------------------

@cache
def orchard_value(at, fruit, ripe, mover):
    """Red's goal with best play, from the rules as the file's comment states them: a move
    steps one or two trees on, or picks the ripe fruit overhead when the other gatherer is not
    there; two fruits win (100), a gatherer who cannot move ends the game (50 each unless
    someone has won)."""
    other = 1 - mover
    if 2 in fruit:
        return 100 if fruit[0] == 2 else 0
    children = []
    for to in (at[mover] + 1, at[mover] + 2):
        if to <= 5:
            place = list(at)
            place[mover] = to
            children.append((tuple(place), fruit, ripe))
    if at[mover] in ripe and at[other] != at[mover]:
        gained = list(fruit)
        gained[mover] += 1
        children.append((at, tuple(gained), ripe - {at[mover]}))
    if not children:
        return 50
    values = [orchard_value(a, f, r, other) for a, f, r in children]
    return max(values) if mover == 0 else min(values)


@cache
def orchard_positions():
    seen, stack = set(), [((1, 1), (0, 0), frozenset(range(1, 6)), 0)]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        at, fruit, ripe, mover = state
        if 2 in fruit:
            continue
        other = 1 - mover
        for to in (at[mover] + 1, at[mover] + 2):
            if to <= 5:
                place = list(at)
                place[mover] = to
                stack.append((tuple(place), fruit, ripe, other))
        if at[mover] in ripe and at[other] != at[mover]:
            gained = list(fruit)
            gained[mover] += 1
            stack.append((at, tuple(gained), ripe - {at[mover]}, other))
    return len(seen)


@pytest.mark.parametrize("backend", ["interpret", "compile"])
def test_the_orchard_against_a_direct_model(backend):
    game = gdl.load(KIF / "orchard.kif", backend=backend)
    solution = strong_solve(game)
    red = orchard_value((1, 1), (0, 0), frozenset(range(1, 6)), 0)
    assert tuple(solution.value(0)) == (red, 100 - red)
    assert len(solution.graph.keys) == orchard_positions()


def test_the_orchard_agrees_state_by_state():
    problems, _ = disagreements(text_of("orchard.kif"), "orchard.kif")
    assert problems == []


def test_not_stratified_is_refused_with_the_cycle():
    with pytest.raises(GdlError) as caught:
        gdl.load(KIF / "unstratified.kif")
    assert {d.code for d in caught.value.diagnostics} == {"K203"}
    assert caught.value.diagnostics[0].span.line == 5


MATRIX = """
; A 2x2 matrix game written for this test: the row and column roles choose at once; the row
; role's goal is the matrix entry, the column role's is 100 minus it (constant sum 100).
(role row)
(role column)
(init start)
(<= (legal row (pick ?r)) (true start) (index ?r))
(<= (legal column (pick ?c)) (true start) (index ?c))
(index 1)
(index 2)
(entry 1 1 100)
(entry 1 2 0)
(entry 2 1 20)
(entry 2 2 60)
(<= (next (chose ?p ?i)) (does ?p (pick ?i)))
(<= terminal (true (chose row ?r)))
(<= (goal row ?v) (true (chose row ?r)) (true (chose column ?c)) (entry ?r ?c ?v))
(<= (goal column ?w) (true (chose row ?r)) (true (chose column ?c)) (entry ?r ?c ?v)
    (minus 100 ?v ?w))
(minus 100 100 0)
(minus 100 0 100)
(minus 100 20 80)
(minus 100 60 40)
"""


@pytest.mark.parametrize("backend", ["interpret", "compile", "native"])
def test_matching_pennies_goes_to_the_simultaneous_move_solvers(backend):
    # Matching pennies: even wins (100) when the sides match, odd otherwise. Its value is the
    # textbook one: 50 each, both players showing each side with probability 1/2.
    from gdl.protocol import CONSTANT_SUM, SIMULTANEOUS
    from gdl.solvers import solve

    game = gdl.load(KIF / "pennies.kif", backend=backend)
    assert game.info.simultaneous
    assert (game.info.sum_kind, game.info.utility_sum) == (CONSTANT_SUM, 100)
    start = game.initial_state()
    assert game.current_player(start) == SIMULTANEOUS
    assert game.acting_players(start) == (0, 1)
    result = solve(game, "auto")
    assert result.extra["exact"] and tuple(result.values) == (50, 50)
    for player in game.info.players:
        (strategy,) = result.extra["strategies"][player].values()
        assert set(strategy.values()) == {Fraction(1, 2)}


def test_a_matrix_game_solves_to_its_mixed_value():
    # The matrix [[100, 0], [20, 60]] has no saddle point (the row maximin is 20, the column
    # minimax 60), so its value is (ad - bc) / (a + d - b - c) = 6000 / 140 = 300/7, the row
    # role playing its first row with probability (d - c) / (a + d - b - c) = 40/140 = 2/7.
    from gdl.solvers import solve

    game = gdl.loads(MATRIX, "matrix.kif")
    result = solve(game, "auto")
    assert result.extra["exact"]
    assert tuple(result.values) == (Fraction(300, 7), 100 - Fraction(300, 7))
    (row,) = result.extra["strategies"]["row"].values()
    assert row == {"pick_1": Fraction(2, 7), "pick_2": Fraction(5, 7)}


def test_goals_that_do_not_add_up_alike_leave_the_game_general_sum():
    # The same matrix with the column role's goal 100 at one end: the sums differ (200 and
    # 100), so the game is not constant-sum, and the solver for general-sum games is chosen.
    from gdl.protocol import GENERAL_SUM
    from gdl.solvers import choose

    text = MATRIX.replace("(minus 100 100 0)", "(minus 100 100 100)")
    game = gdl.loads(text, "matrix.kif")
    assert game.info.simultaneous and game.info.sum_kind == GENERAL_SUM
    assert choose(game.info) == "cfr"


def test_a_simultaneous_move_after_the_walk_is_refused_by_name():
    # One role counts 0, 1, ... 299 (gdl.kif.survey walks 200 positions looking for roles
    # that choose at once, and finds none); at 300 both roles choose. The game was taken as
    # alternating, so the state where both choose is refused by name, saying why.
    from gdl.graph import strong_solve
    from gdl.kif.survey import TURN_STATES

    steps = TURN_STATES + 100
    lines = ["(role counter)", "(role other)", "(init (count 0))",
             *(f"(succ {i} {i + 1})" for i in range(steps)),
             "(<= (legal counter (up ?k)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k))",
             "(<= (legal counter step) (true (count ?n)) (succ ?n ?m))",
             f"(<= (legal counter (last ?x)) (true (count {steps})) (side ?x))",
             f"(<= (legal other (last ?x)) (true (count {steps})) (side ?x))",
             "(<= (legal other noop) (true (count ?n)) (succ ?n ?m))",
             "(side a)", "(side b)",
             "(<= (next (count ?k)) (does counter (up ?k)))",
             "(<= (next (count ?m)) (does counter step) (true (count ?n)) (succ ?n ?m))",
             "(<= (next over) (does counter (last ?x)))",
             "(<= terminal (true over))",
             "(<= (goal ?r 50) (role ?r))"]
    game = gdl.loads("\n".join(lines) + "\n", "late.kif", backend="interpret")
    assert not game.info.simultaneous
    with pytest.raises(GdlError) as caught:
        strong_solve(game)
    assert caught.value.code == "K303"
    assert "counter, other each have a choice here" in caught.value.diagnostics[0].message
    assert f"first {TURN_STATES:,} positions" in caught.value.diagnostics[0].message


def test_a_relation_may_read_its_own_negation_for_other_arguments():
    # (goal solo 100) reads (not (goal solo 0)): not stratified relation by relation, but each
    # pattern of goal's heads reads only the other one, so gdl splits goal by pattern (as
    # corpus puzzles such as the queens and futoshiki games need) and reads it.
    text = """
    (role solo)
    (init (at 0))
    (succ 0 1) (succ 1 2) (succ 2 3)
    (<= (legal solo step) (true (at ?n)) (succ ?n ?m))
    (<= (legal solo stay) (true (at ?n)))
    (<= (next (at ?m)) (does solo step) (true (at ?n)) (succ ?n ?m))
    (<= (next (at ?n)) (does solo stay) (true (at ?n)))
    (<= (next done) (does solo stay))
    (<= terminal (true done))
    (<= terminal (true (at 3)))
    (<= (goal solo 0) (true (at ?n)) (distinct ?n 2))
    (<= (goal solo 100) (not (goal solo 0)))
    """
    for backend in ("interpret", "compile"):
        game = gdl.loads(text, "split.kif", backend=backend)
        # stepping to 2 and staying there is the only way to 100
        assert strong_solve(game).value(0) == (100,)
    problems, states = disagreements(text, "split.kif")
    assert problems == [] and states == 7     # at 0..3, and done at 0..2


def test_a_relation_that_holds_one_fact_at_a_time_read_in_a_view():
    # (focus ?i ?j) holds for exactly one pair at a time, so the translation keeps it as one
    # variable whose values are the pairs; the view `closed` reads it positively together with
    # another relation (as nineBoardTicTacToe's currentBoardClosed does), which the translation
    # writes as a test of that variable for each pair.
    text = """
    (role solo)
    (index 1) (index 2)
    (succ 0 1) (succ 1 2) (succ 2 3)
    (init (focus 1 1))
    (init (step 0))
    (<= (legal solo (go ?i ?j)) (index ?i) (index ?j) (not (true (focus ?i ?j))))
    (<= (legal solo mark) (not closed))
    (<= (next (focus ?i ?j)) (does solo (go ?i ?j)))
    (<= (next (focus ?i ?j)) (does solo mark) (true (focus ?i ?j)))
    (<= (next (marked ?i ?j)) (does solo mark) (true (focus ?i ?j)))
    (<= (next (marked ?i ?j)) (true (marked ?i ?j)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= closed (true (focus ?i ?j)) (true (marked ?i ?j)))
    (<= won (true (marked 1 1)) (true (marked 2 2)))
    (<= terminal (true (step 3)))
    (<= (goal solo 100) won)
    (<= (goal solo 0) (not won))
    """
    game = gdl.loads(text, "focus.kif", backend="compile")
    # three moves: mark (1 1) where the focus starts, go to (2 2), mark it
    assert strong_solve(game).value(0) == (100,)
    problems, _ = disagreements(text, "focus.kif")
    assert problems == []


def test_a_view_recursive_through_the_state():
    # reach is recursive and reads the state (true (open ?y)): the translation unrolls the
    # cycle into rounds, and writes the rounds' definitions in a stable order.
    text = """
    (role solo)
    (adj a b) (adj b c) (adj c d) (adj b a) (adj c b) (adj d c)
    (cell a) (cell b) (cell c) (cell d)
    (succ 0 1) (succ 1 2) (succ 2 3)
    (init (open a))
    (init (step 0))
    (<= (legal solo (open ?x)) (cell ?x) (not (true (open ?x))))
    (<= (legal solo wait) (true (step ?n)))
    (<= (next (open ?x)) (does solo (open ?x)))
    (<= (next (open ?x)) (true (open ?x)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= (reach a) (true (open a)))
    (<= (reach ?y) (reach ?x) (adj ?x ?y) (true (open ?y)))
    (<= terminal (true (step 3)))
    (<= terminal (reach d))
    (<= (goal solo 100) (reach d))
    (<= (goal solo 0) (not (reach d)))
    """
    game = gdl.loads(text, "reach.kif", backend="compile")
    # d is reached through b and c only: opening b, c, d, the three moves there are, wins
    assert strong_solve(game).value(0) == (100,)
    problems, _ = disagreements(text, "reach.kif")
    assert problems == []


def test_a_view_with_hundreds_of_cases_is_written_in_parts():
    # `other` holds when any of 298 flags does: 298 cases, more than gdl's parser nests (E103
    # past 256 levels), so the translation brackets the chain in parts
    numbers = " ".join(f"(num {n})" for n in range(300))
    text = f"""
    (role solo)
    {numbers}
    (init (on 0))
    (init (step 0))
    (<= (legal solo (set ?n)) (num ?n) (not (true (on ?n))))
    (<= (next (on ?n)) (does solo (set ?n)))
    (<= (next (on ?n)) (true (on ?n)))
    (<= (next (step 1)) (true (step 0)))
    (<= terminal (true (step 1)))
    (<= other (true (on ?n)) (distinct ?n 0) (distinct ?n 7))
    (<= (goal solo 100) other)
    (<= (goal solo 0) (not other))
    """
    game = gdl.loads(text, "flags.kif", backend="compile")
    assert " or " in game.kif.text     # the flags are variables of their own, the view a chain
    # any flag but 0 (already on) and 7 wins; the start and the 299 states after one move
    assert strong_solve(game).value(0) == (100,)
    problems, states = disagreements(text, "flags.kif")
    assert problems == [] and states == 300


def test_the_constant_none_is_not_the_absence_of_a_fact():
    # (cell none) is a fact; no cell fact at all is another state: the translated variable
    # keeps the two apart (circlesolitaire's disks)
    text = """
    (role solo)
    (succ 0 1) (succ 1 2)
    (init (cell none))
    (init (step 0))
    (<= (legal solo keep) (true (step ?n)))
    (<= (legal solo paint) (true (step ?n)))
    (<= (legal solo erase) (true (cell ?c)))
    (<= (next (cell red)) (does solo paint))
    (<= (next (cell ?c)) (does solo keep) (true (cell ?c)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= empty (not (true (cell none))) (not (true (cell red))))
    (<= terminal (true (step 2)))
    (<= (goal solo 100) (true (cell none)))
    (<= (goal solo 50) empty)
    (<= (goal solo 0) (true (cell red)))
    """
    game = gdl.loads(text, "none.kif", backend="compile")
    assert strong_solve(game).value(0) == (100,)      # keep, keep
    problems, states = disagreements(text, "none.kif")
    # step 0: none; step 1: none, red, empty; step 2: the same three
    assert problems == [] and states == 7


def test_a_move_that_permutes_hundreds_of_facts_runs_in_the_interpreter():
    # swap exchanges (a i) and (b i) for 400 indices: 800 variables each read another's old
    # value, one `let` each, nested deeper than gdl's builders recurse (RecursionError before);
    # the translation says so and the interpreter runs the game
    n = 400
    facts = " ".join(f"(index {i})" for i in range(n))
    inits = " ".join(f"(init (a {i}))" for i in range(n)) + " " + \
        " ".join(f"(init (b {i}))" for i in range(0, n, 2))
    text = f"""
    (role solo) {facts} {inits} (init (step 0)) (succ 0 1) (succ 1 2)
    (<= (legal solo swap) (true (step ?n)))
    (<= (legal solo stay) (true (step ?n)))
    (<= (next (a ?i)) (does solo swap) (true (b ?i)))
    (<= (next (b ?i)) (does solo swap) (true (a ?i)))
    (<= (next (a ?i)) (does solo stay) (true (a ?i)))
    (<= (next (b ?i)) (does solo stay) (true (b ?i)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= terminal (true (step 2)))
    (<= (goal solo 100) (true (a 1)))
    (<= (goal solo 0) (not (true (a 1))))
    """
    game = gdl.loads(text, "swap.kif", backend="compile")
    assert not hasattr(game, "kif") and "`let`" in game.native_note
    # (a 1) holds at the start and (b 1) does not: an even number of swaps (none, or two) wins
    assert strong_solve(game).value(0) == (100,)


def chain_of_views(length: int) -> str:
    """A game whose terminal and goal read a chain of ``length`` views, each reading the one
    before (as the corpus's ruleDepthLinear does): go twice to win, stop to lose."""
    views = "\n".join(f"(<= v{i} v{i - 1} (true (step ?n)))" for i in range(1, length + 1))
    return f"""
    (role solo)
    (init (step 0))
    (succ 0 1) (succ 1 2)
    (<= (legal solo go) (true (step ?n)))
    (<= (legal solo stop) (true (step ?n)))
    (<= (next (step ?m)) (does solo go) (true (step ?n)) (succ ?n ?m))
    (<= (next (step ?n)) (does solo stop) (true (step ?n)))
    (<= (next stopped) (does solo stop))
    (<= v0 (true (step 2)) (not (true stopped)))
    {views}
    (<= terminal v{length})
    (<= terminal (true stopped))
    (<= (goal solo 100) v{length})
    (<= (goal solo 0) (not v{length}))
    """


def test_a_translation_gdl_refuses_runs_in_the_interpreter():
    # 60 views, each a define reading the one before: deeper than gdl's checks allow (E103,
    # 48), so the game runs in the interpreter, and the note says why
    game = gdl.loads(chain_of_views(60), "deep.kif", backend="compile")
    assert not hasattr(game, "kif") and "E103" in game.native_note
    assert strong_solve(game).value(0) == (100,)      # go, go
    shallow = gdl.loads(chain_of_views(10), "shallow.kif", backend="compile")
    assert hasattr(shallow, "kif") and strong_solve(shallow).value(0) == (100,)


def test_a_proposition_named_p_keeps_its_name_apart():
    # the translation's helper `one` counts over the players with a name of its own: a KIF
    # proposition p (untwistycomplex2) made it 'p is already used in this scope' (E200)
    text = """
    (role solo)
    (init (step 0))
    (succ 0 1)
    (<= (legal solo on) (true (step 0)))
    (<= (legal solo off) (true (step 0)))
    (<= (next p) (does solo on))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= terminal (true (step 1)))
    (<= (goal solo 100) (true p))
    (<= (goal solo 0) (not (true p)))
    """
    game = gdl.loads(text, "p.kif", backend="compile")
    assert hasattr(game, "kif") and strong_solve(game).value(0) == (100,)     # on
    problems, states = disagreements(text, "p.kif")
    assert problems == [] and states == 3
