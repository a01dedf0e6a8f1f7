"""The two reasoners agree: on generated KIF games, the plain Datalog interpreter
(gdl.kif.interpreter) and the translated game (gdl.kif.translate, through gdl's compiler) give
the same states, the same legal moves in the same order, the same player to move, the same
goals, at every reachable state. The interpreter guards the translation the way gdl's reference
interpreter guards its compiler.

The games are small but use what the corpus uses: a step counter and whose turn it is read
from static tables, cells that hold one value at a time, boolean flags, views built with `or`,
`not` and `distinct`, a view that reads the moves (a frame rule with `not`), a relation defined
by recursion through a static one, noop moves, one to three roles, and sometimes a second role
that can choose at the same time (the translation must then refuse the game, never
mistranslate it).
"""

from hypothesis import given
from hypothesis import strategies as st
from kif_helpers import disagreements

import gdl

VALUES = ("a", "b", "c")


@st.composite
def kif_games(draw):
    roles = [f"r{i}" for i in range(draw(st.integers(1, 3)))]
    cells = draw(st.integers(1, 3))
    flags = draw(st.integers(0, 2))
    steps = draw(st.integers(2, 5))
    lines = [f"(role {r})" for r in roles]
    lines += [f"(succ {i} {i + 1})" for i in range(steps)]
    lines += [f"(after {r} {roles[(i + 1) % len(roles)]})" for i, r in enumerate(roles)]
    lines += [f"(val {v})" for v in VALUES]
    lines += [f"(cellno {i})" for i in range(1, cells + 1)]
    lines += ["(less a b)", "(less b c)", "(<= (below ?x ?z) (less ?x ?z))",
              "(<= (below ?x ?z) (less ?x ?y) (below ?y ?z))"]    # recursion through a table
    allowed = draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=3, unique=True))
    lines += [f"(allowed {v})" for v in allowed]
    lines += ["(init (step 0))", f"(init (control {roles[0]}))", "(init (tally 0))"]
    lines += [f"(init (cell {i} {draw(st.sampled_from(VALUES))}))" for i in range(1, cells + 1)]
    lines += [f"(init (flag {j}))" for j in range(1, flags + 1) if draw(st.booleans())]

    # moves: the role in control sets a cell to an allowed value, flips a flag, or waits;
    # the others play noop
    condition = draw(st.sampled_from([
        "(distinct ?v ?w)", "(below ?w ?v)", "(or (below ?w ?v) (below ?v ?w))",
        "(not (below ?v ?w))"]))
    lines.append(f"(<= (legal ?p (set ?i ?v)) (true (control ?p)) (true (cell ?i ?w)) "
                 f"(allowed ?v) {condition})")
    if flags:
        lines.append("(<= (legal ?p (flip ?j)) (true (control ?p)) (flagno ?j))")
        lines += [f"(flagno {j})" for j in range(1, flags + 1)]
    lines.append("(<= (legal ?p wait) (true (control ?p)))")       # never without a move
    lines.append("(<= (legal ?p noop) (role ?p) (not (true (control ?p))))")
    simultaneous = len(roles) > 1 and draw(st.booleans()) and draw(st.booleans())
    if simultaneous:
        # a second role may also choose, on steps past the first: a simultaneous move
        lines.append(f"(<= (legal {roles[1]} (set ?i a)) (true (step ?n)) (distinct ?n 0) "
                     f"(true (cell ?i ?w)) (distinct ?w a) (not (true (control {roles[1]}))))")

    # the state after a move: a frame rule through a view that reads the moves
    lines += ["(<= (next (cell ?i ?v)) (does ?p (set ?i ?v)))",
              "(<= (touched ?i) (does ?p (set ?i ?v)))",
              "(<= (next (cell ?i ?w)) (true (cell ?i ?w)) (not (touched ?i)))",
              "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))",
              "(<= (next (control ?q)) (true (control ?p)) (after ?p ?q))",
              # a counter of the states where `good` holds (a table per case of a condition)
              "(<= (next (tally ?m)) (true (tally ?n)) good (succ ?n ?m))",
              "(<= (next (tally ?n)) (true (tally ?n)) (not good))"]
    if flags:
        lines += ["(<= (next (flag ?j)) (does ?p (flip ?j)) (not (true (flag ?j))))",
                  "(<= (next (flag ?j)) (true (flag ?j)) (not (flipped ?j)))",
                  "(<= (flipped ?j) (does ?p (flip ?j)))"]

    # views, and what they decide
    atoms = ["(true (cell 1 a))", "(true (cell 1 b))", f"(true (cell {cells} c))",
             "(true (step 1))"] + [f"(true (flag {j}))" for j in range(1, flags + 1)]
    literal = st.sampled_from(atoms).flatmap(
        lambda a: st.sampled_from([a, f"(not {a})"]))
    for name in ("good", "bad"):
        for _ in range(draw(st.integers(1, 3))):
            body = draw(st.lists(literal, min_size=1, max_size=3))
            if draw(st.booleans()) and len(body) > 1:
                body = [f"(or {body[0]} {body[1]})"] + body[2:]
            lines.append(f"(<= {name} {' '.join(body)})")
    lines.append("(<= (same ?i ?j) (cellno ?i) (cellno ?j) (true (cell ?i ?v)) (true (cell ?j ?v)))")
    lines.append(f"(<= terminal (true (step {steps})))")
    if draw(st.booleans()):
        lines.append("(<= terminal bad (not good))")
    # each role has exactly one goal: 100 when it is its turn and `good` holds, 50 when the
    # cells all agree, 0 otherwise
    lines += ["(<= (goal ?p 100) (true (control ?p)) good (not (true (tally 3))))",
              "(<= (goal ?p 100) (true (control ?p)) good (true (tally 3)))",
              "(<= (goal ?p 50) (role ?p) (not (wins ?p)) (agree))",
              "(<= (goal ?p 0) (role ?p) (not (wins ?p)) (not (agree)))",
              "(<= (wins ?p) (true (control ?p)) good)",
              f"(<= (agree) (same 1 {cells}))"]
    return "\n".join(lines) + "\n"


@given(kif_games())
def test_the_translation_agrees_with_the_interpreter(text):
    interpreted = gdl.loads(text, "generated.kif", backend="interpret")
    game = gdl.loads(text, "generated.kif", backend="compile")
    if interpreted.info.simultaneous:
        # two roles choose at once somewhere: the translation must not have proved otherwise
        assert not hasattr(game, "kif"), "a simultaneous-move game was translated"
        return
    if not hasattr(game, "kif"):
        # not translated: the interpreter runs it, and said why
        assert "interpreter" in game.native_note
        return
    # translated: the proof said at most one role chooses at a time, so the walk below meets
    # no simultaneous move in the interpreter (it would raise K303), and every state agrees
    problems, _ = disagreements(text, "generated.kif", limit=3000)
    assert problems == [], problems
    assert interpreted.info.players == game.info.players


def test_the_comparison_has_teeth(monkeypatch):
    # A planted mistake in the translation (every effect forgets its first assignment) must
    # show up as a disagreement, or the property above proves nothing.
    from pathlib import Path

    from gdl.kif import translate

    original = translate._Writer.statements

    def forgetful(self, assigned, rotate):
        return original(self, assigned[1:], rotate)

    monkeypatch.setattr(translate._Writer, "statements", forgetful)
    monkeypatch.setenv("GDL_NO_CACHE", "1")
    text = (Path(__file__).resolve().parent / "data" / "kif" / "tictactoe.kif").read_text()
    problems, _ = disagreements(text, "planted.kif", limit=500)
    assert problems and "states differ" in problems[0]
