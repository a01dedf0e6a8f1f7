"""`gdl exercise` and `gdl grade`: exercises drawn from a seed or taken from textbook figures,
their keys, and grading (answer files, and students' searches run on the tree).

The keys of the course kit (docs/teaching.md) are checked against the literature (FACTS.md,
Knuth & Moore); the keys of random exercises against a minimax, an expectimax and a max^n
written here, and the partition of the tree into visited nodes and pruned subtrees; the grader
against students' searches written here, right and wrong."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ElementTree
from fractions import Fraction
from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from gdl.lang.text import read_rule_file
from gdl.protocol import CHANCE, TERMINAL
from gdl.tools.exercise import Shape, key_json, make_exercise, random_exercise
from gdl.tools.exercise_svg import exercise_svg

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def kit(name, algorithm):
    path = GAMES / f"{name}.game"
    text = read_rule_file(path)
    return make_exercise(gdl.loads(text), text, name, algorithm, source=str(path))


# ---- the course kit: keys from the literature ------------------------------------------------

def test_kit_minimax_on_figure_5_2():
    # FACTS.md / AIMA Fig. 5.2: MIN's nodes are worth 3, 2, 2; MAX takes 3 through a1.
    e = kit("aima-fig5-2", "minimax")
    assert e.values == {"root": 3, "a1": 3, "a2": 2, "a3": 2}
    assert e.order == ["root", "a1", "b1", "b2", "b3", "a2", "c1", "c2", "c3",
                       "a3", "d1", "d2", "d3"]
    assert e.pruned == [] and e.best == "a1"


def test_kit_alphabeta_on_figure_5_2_is_figure_5_5():
    # AIMA Fig. 5.5: C (a2) is worth at most 2 once c1 = 2 is seen, and c2, c3 are never looked
    # at; D (a3) is worth exactly 2 after its three leaves; the root 3 through a1.
    e = kit("aima-fig5-2", "alphabeta")
    assert e.values == {"root": 3, "a1": 3, "a2": "<=2", "a3": 2}
    assert e.order == ["root", "a1", "b1", "b2", "b3", "a2", "c1", "a3", "d1", "d2", "d3"]
    assert e.pruned == ["c2", "c3"] and e.best == "a1"


def test_kit_maxn_on_figure_5_4():
    # FACTS.md: C's nodes (1,2,6) (6,1,2) (1,5,2) (5,4,5); B's (1,2,6) (1,5,2); root (1,2,6),
    # both of A's moves optimal (1 = 1), the first taken.
    e = kit("aima-fig5-4", "maxn")
    assert e.values == {"root": [1, 2, 6], "a1": [1, 2, 6], "a2": [1, 5, 2],
                        "b1": [1, 2, 6], "b2": [6, 1, 2], "b3": [1, 5, 2], "b4": [5, 4, 5]}
    assert e.best == "a1" and e.optimal == ["a1", "a2"] and e.pruned == []


def test_kit_expectiminimax_on_the_expectation_example():
    # FACTS.md: (1/2)·8 + (1/3)·24 + (1/6)·(−12) = 10.
    e = kit("chance-example", "expectiminimax")
    assert e.values == {"root": 10} and e.best is None
    assert "4. Which move" not in __import__("gdl.tools.exercise", fromlist=["x"]).exercise_text(e)


def test_kit_knuth_moore_minimal_tree():
    # Knuth & Moore (1975): on a perfectly ordered uniform tree alpha-beta evaluates
    # b^ceil(d/2) + b^floor(d/2) - 1 leaves: 3^2 + 3^1 - 1 = 11 for b = 3, d = 3.
    e = kit("knuth-moore", "alphabeta")
    leaves = [n for n in e.order if n[0] in "efghijklm"]
    assert len(leaves) == 11 == 3 ** 2 + 3 ** 1 - 1
    assert e.values["root"] == 5 and e.best == "a1"


def test_the_teaching_guide_names_the_five_kit_exercises():
    text = (ROOT / "docs" / "teaching.md").read_text()
    for command in ("gdl exercise games/aima-fig5-2.game --algorithm minimax",
                    "gdl exercise games/aima-fig5-2.game --algorithm alphabeta",
                    "gdl exercise games/aima-fig5-4.game",
                    "gdl exercise games/chance-example.game",
                    "gdl exercise games/knuth-moore.game"):
        assert command in text
    assert "runs the student's" in text       # grading runs code: the guide says so


# ---- random exercises: keys checked independently --------------------------------------------

def _walk(game, state, path=()):
    yield path, state
    player = game.current_player(state)
    if player == TERMINAL:
        return
    moves = ([o for o, _ in game.chance_outcomes(state)] if player == CHANCE
             else game.legal_actions(state))
    for move in moves:
        yield from _walk(game, game.apply(state, move), path + (move,))


def _value(game, state):
    """Minimax / expectimax / max^n (first best), written here, on the whole tree."""
    player = game.current_player(state)
    if player == TERMINAL:
        return tuple(game.returns(state))
    if player == CHANCE:
        total = None
        for outcome, p in game.chance_outcomes(state):
            v = _value(game, game.apply(state, outcome))
            total = [p * x for x in v] if total is None else [t + p * x for t, x in zip(total, v)]
        return tuple(total)
    best = None
    for action in game.legal_actions(state):
        v = _value(game, game.apply(state, action))
        if best is None or v[player] > best[player]:
            best = v
    return best


@pytest.mark.parametrize("seed", range(1, 13))
@pytest.mark.parametrize("shape", [Shape(), Shape(branching=2, depth=4),
                                   Shape(branching=2, depth=2, chance=True),
                                   Shape(branching=2, depth=3, players=3, low=0)],
                         ids=["ab-3x3", "ab-2x4", "chance", "three"])
def test_random_keys_agree_with_a_search_written_here(seed, shape):
    e = random_exercise(seed, shape)
    game = e.game
    true = _value(game, game.initial_state())
    root = e.values["root"]
    if e.two_player:
        assert Fraction(root) == true[0]
    else:
        assert tuple(root) == true
    names = e.names
    nodes = dict(_walk(game, game.initial_state()))
    # Visited nodes and pruned subtrees partition the tree: a node is visited exactly when no
    # pruned top lies on its path.
    pruned = set(e.pruned)
    for path in nodes:
        under = any(names[path[:k]] in pruned for k in range(1, len(path) + 1))
        assert (names[path] in e.order) != under
    assert len(e.order) == len(set(e.order)) == e.nodes
    # Every key value is true of the node: exact, or the right bound.
    for path, state in nodes.items():
        name = names[path]
        if name not in e.values or not e.two_player:
            continue
        v = _value(game, state)[0]
        given = e.values[name]
        if isinstance(given, str) and given.startswith("<="):
            assert v <= Fraction(given[2:])
        elif isinstance(given, str) and given.startswith(">="):
            assert v >= Fraction(given[2:])
        else:
            assert v == Fraction(given)
    if shape.chance or shape.players > 2:
        assert e.pruned == []                   # expectiminimax and max^n prune nothing
    if e.best is not None:
        best_value = _value(game, game.apply(game.initial_state(), e.best))
        mover = game.current_player(game.initial_state())
        assert best_value[mover] == true[mover]


def test_a_seed_gives_the_same_exercise(capsys):
    first = run(capsys, ["exercise", "--seed", "7", "--key"])
    assert first == run(capsys, ["exercise", "--seed", "7", "--key"])
    assert first[1] != run(capsys, ["exercise", "--seed", "8", "--key"])[1]


def test_labels_follow_the_textbook():
    e = random_exercise(3, Shape(branching=3, depth=2))
    assert sorted(n for n in e.names.values() if n != "root") == sorted(
        [f"a{i}" for i in (1, 2, 3)] + [f"{c}{i}" for c in "bcd" for i in (1, 2, 3)])
    text = e.rules
    assert "a1: MIN { b1:" in text and "a3: MIN { d1:" in text


# ---- the forms: text, JSON, SVG, files ---------------------------------------------------------

def test_svg_has_blanks_and_the_key_fills_them():
    e = kit("aima-fig5-2", "alphabeta")
    blank = exercise_svg(e)
    key = exercise_svg(e, with_key=True)
    ElementTree.fromstring(blank)
    tree = ElementTree.fromstring(key)
    ns = "{http://www.w3.org/2000/svg}"
    assert len(tree.findall(f"{ns}polygon")) == 4            # MAX's root and MIN's three nodes
    texts = [t.text for t in tree.iter(f"{ns}text")]
    assert "≤ 2" in texts and "≤ 2" not in [t.text for t in
                                           ElementTree.fromstring(blank).iter(f"{ns}text")]
    assert 'stroke-dasharray' in key and 'stroke-dasharray' not in blank   # c2, c3 greyed


def test_output_dir_writes_every_form_and_grade_round_trips(tmp_path, capsys):
    code, out, err = run(capsys, ["exercise", "--seed", "1", "--output-dir", str(tmp_path)])
    assert code == 0, err
    written = {Path(line).name for line in out.split()}
    assert written == {f"exercise-1.{s}" for s in ("game", "txt", "key.txt", "key.json",
                                                    "answers.json", "svg", "key.svg")}
    key = tmp_path / "exercise-1.key.json"
    document = json.loads(key.read_text())
    assert document["gdl_exercise"] == 1 and document["seed"] == 1
    # The tree file is the exercise's: it loads, and solves to the key's root value.
    game = gdl.load(tmp_path / "exercise-1.game")
    assert gdl.solve(game).values[0] == document["answers"]["values"]["root"]
    # The key as the answers: everything right.
    code, out, err = run(capsys, ["grade", str(key), "--answers", str(key)])
    assert code == 0, err and out
    assert "WRONG" not in out and out.splitlines()[-1].startswith("Score: ")
    right, of = out.splitlines()[-1].split()[1::2][:2]
    assert right == of
    # The blank answer file: nothing right.
    code, out, _ = run(capsys, ["grade", str(key), "--answers",
                                str(tmp_path / "exercise-1.answers.json")])
    assert code == 1 and "Score: 0 of" in out


def test_an_answer_file_with_mistakes(tmp_path, capsys):
    e = kit("aima-fig5-2", "alphabeta")
    key = tmp_path / "fig.key.json"
    key.write_text(json.dumps(key_json(e)))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({
        "values": {"root": 3, "a1": "3", "a2": 2, "a3": "2", "c2": 4},
        "order": "root a1 b1 b2 b3 a2 c1 c2 a3 d1 d2 d3",
        "pruned": ["c3"], "best": "a1"}))
    code, out, err = run(capsys, ["grade", str(key), "--answers", str(answers), "--json"])
    assert code == 1, err
    results = {r["what"]: r for r in json.loads(out)["results"]}
    assert results["value at root"]["ok"] and results["value at a3"]["ok"]
    assert not results["value at a2"]["ok"]
    assert "only bounds it" in results["value at a2"]["details"][0]
    assert not results["value at c2"]["ok"]                  # the search never visits c2
    order = results["order of expansion"]
    assert not order["ok"] and "they part at visit 8: the search visits a3, the answer c2" \
        in order["details"][0]
    assert results["pruned branches"]["details"] == ["pruned, not listed: c2"]
    assert results["best move"]["ok"]


# ---- students' searches ------------------------------------------------------------------------

ALPHABETA = '''
from gdl.protocol import TERMINAL

def search(game, state):
    def value(s, alpha, beta):
        player = game.current_player(s)
        if player == TERMINAL:
            return game.returns(s)[0]
        best = float("-inf") if player == 0 else float("inf")
        for a in game.legal_actions(s):
            v = value(game.apply(s, a), alpha, beta)
            if player == 0:
                best = max(best, v)
                if best >= beta:
                    return best
                alpha = max(alpha, best)
            else:
                best = min(best, v)
                if best <= alpha:
                    return best
                beta = min(beta, best)
        return best
    game.current_player(state)
    best, move, alpha = float("-inf"), None, float("-inf")
    for a in game.legal_actions(state):
        v = value(game.apply(state, a), alpha, float("inf"))
        if v > best:
            best, move = v, a
        alpha = max(alpha, best)
    return best, move
'''

MINIMAX = '''
from gdl.protocol import TERMINAL

def search(game, state):
    print("student output")
    def value(s):
        player = game.current_player(s)
        if player == TERMINAL:
            return game.returns(s)[0]
        values = [value(game.apply(s, a)) for a in game.legal_actions(s)]
        return max(values) if player == 0 else min(values)
    moves = game.legal_actions(state)
    values = [value(game.apply(state, a)) for a in moves]
    return max(values), moves[values.index(max(values))]
'''

EXPECTIMAX = '''
from gdl.protocol import CHANCE, TERMINAL

def search(game, state):
    def value(s):
        player = game.current_player(s)
        if player == TERMINAL:
            return float(game.returns(s)[0])
        if player == CHANCE:
            return sum(float(p) * value(game.apply(s, o)) for o, p in game.chance_outcomes(s))
        values = [value(game.apply(s, a)) for a in game.legal_actions(s)]
        return max(values) if player == 0 else min(values)
    return value(state)
'''


@pytest.fixture
def fig52_key(tmp_path):
    key = tmp_path / "fig.key.json"
    key.write_text(json.dumps(key_json(kit("aima-fig5-2", "alphabeta"))))
    return key


def _student(tmp_path, name, code):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return path


def test_a_right_alphabeta_passes(tmp_path, capsys, fig52_key):
    student = _student(tmp_path, "ab.py", ALPHABETA)
    code, out, err = run(capsys, ["grade", str(fig52_key), "--search", str(student)])
    assert code == 0, out + err
    assert "Score: 4 of 4 checks right" in out


def test_minimax_fails_the_expansion_order_of_alphabeta(tmp_path, capsys, fig52_key):
    student = _student(tmp_path, "mm.py", MINIMAX)
    code, out, err = run(capsys, ["grade", str(fig52_key), "--search", str(student), "--json"])
    assert code == 1
    doc = json.loads(out)
    results = {r["what"]: r for r in doc["results"]}
    assert results["value at root"]["ok"] and results["best move"]["ok"]
    order = results["order of expansion"]
    assert not order["ok"]
    assert order["got"] == "root a1 b1 b2 b3 a2 c1 c2 c3 a3 d1 d2 d3"
    assert "visited, but the search never visits them: c2 c3" in order["details"]
    assert results["pruned branches"]["got"] == "(none)"
    assert doc["output"].strip() == "student output"


def test_a_float_expectimax_is_graded_against_the_exact_key(tmp_path, capsys):
    e = kit("chance-example", "expectiminimax")
    key = tmp_path / "chance.key.json"
    key.write_text(json.dumps(key_json(e)))
    student = _student(tmp_path, "ex.py", EXPECTIMAX)
    code, out, err = run(capsys, ["grade", str(key), "--search", str(student), "--json"])
    results = {r["what"]: r for r in json.loads(out)["results"]}
    assert results["value at root"]["ok"]                # 10.0 (in floats) is 10
    assert results["order of expansion"]["ok"]
    assert not results["best move"]["ok"] or results["best move"]["expected"] == "(none)"


def test_a_crashing_or_endless_student_is_reported(tmp_path, capsys, fig52_key):
    crash = _student(tmp_path, "crash.py", "def search(game, state):\n    return 1 / 0\n")
    code, out, err = run(capsys, ["grade", str(fig52_key), "--search", str(crash)])
    assert code == 1 and "ZeroDivisionError" in out and "crash.py" in out
    endless = _student(tmp_path, "loop.py", "def search(game, state):\n    while True:\n"
                                            "        pass\n")
    code, out, err = run(capsys, ["grade", str(fig52_key), "--search", str(endless),
                                  "--timeout", "1"])
    assert code == 1 and "did not return within 1 s" in out
    code, out, err = run(capsys, ["grade", str(fig52_key), "--search", str(crash),
                                  "--function", "minimax_decision"])
    assert code == 1 and "defines no function minimax_decision()" in out


# ---- mistakes of the user: said, with a way out ------------------------------------------------

def test_usage_errors(tmp_path, capsys):
    code, _, err = run(capsys, ["exercise", str(GAMES / "tictactoe.game")])
    assert code == 2 and "explicit trees" in err
    code, _, err = run(capsys, ["exercise", str(GAMES / "aima-fig5-2.game"), "--seed", "3"])
    assert code == 2 and "a tree file has its own shape" in err
    code, _, err = run(capsys, ["exercise", "--branching", "9", "--depth", "5"])
    assert code == 2 and "too many to work by hand" in err
    code, _, err = run(capsys, ["exercise", "--values", "9..1"])
    assert code == 2 and "the low end is above the high end" in err
    code, _, err = run(capsys, ["exercise", "--chance", "--algorithm", "alphabeta"])
    assert code == 2 and "chance" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  \"gdl_exercise\": 1,\n  oops\n}")
    code, _, err = run(capsys, ["grade", str(bad), "--answers", str(bad)])
    assert code == 2 and f"{bad}:3:3: the key is not valid JSON" in err
    code, _, err = run(capsys, ["grade", str(bad)])
    assert code == 2 and "--answers FILE.json or --search FILE.py" in err
    other = tmp_path / "other.json"
    other.write_text("{}")
    code, _, err = run(capsys, ["grade", str(other), "--answers", str(other)])
    assert code == 2 and "not an exercise key" in err
    for argv in (["exercise", "--seed", "2", "--format", "svg"], ["grade", "--help"]):
        code, out, err = run(capsys, argv)
        assert code == 0 and "Traceback" not in out + err
    code, out, _ = run(capsys, ["grade", "--help"])
    assert "not in a sandbox" in " ".join(out.split())
