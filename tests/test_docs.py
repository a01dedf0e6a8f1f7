"""Every rule-file example in the docs parses and checks; the ones that state a value solve to it.

- A fenced block marked ```game is a complete rule file.
- A block marked ```game-fragment shows one construct; it is wrapped in a minimal game: the
  fragment plus whatever it lacks of a title, two players A and B, one action, a terminal
  condition and utilities.
- ``# value: P v, Q w`` in a block: solving the game gives each player that value (the docs argue
  it next to the example). ``# best: a b`` : the set of optimal first actions, in declaration
  order. ``# perft: 1 5 20 ...``: the number of positions at each ply (gdl count).

Docs that mention other commands (``gdl fuzz``, ``gdl play``) are checked here only for their
rule files.
"""

import re
from fractions import Fraction
from pathlib import Path

import pytest

import gdl
from gdl.lang.format import format_text
from gdl.lang.parse import parse
from gdl.solvers import solve

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"^```(game|game-fragment)[ \t]*\n(.*?)^```", re.M | re.S)


def examples():
    found = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(pytest.param(match[1], match[2], id=f"{path.name}:{line}"))
    return found


def _has(text: str, keyword: str) -> bool:
    return re.search(rf"^\s*{re.escape(keyword)}\b", text, re.M) is not None


def wrap(fragment: str) -> str:
    """A minimal complete game around a fragment (see the module docstring)."""
    parts = []
    if not _has(fragment, "game"):
        parts.append('game "fragment"')
    players = re.search(r"^\s*players\s+(.+)$", fragment, re.M)
    names = [p.strip() for p in players[1].split("#")[0].split(",")] if players else ["A", "B"]
    if not players:
        parts.append("players A, B")
    parts.append(fragment)
    if not _has(fragment, "tree"):
        parts.append("var fragment_done in bool = false")
        if not _has(fragment, "action"):
            parts.append("action fragment_move effect fragment_done = true")
        if not _has(fragment, "terminal"):
            parts.append("terminal fragment_done")
        if not _has(fragment, "utility"):
            if len(names) == 2 and not (_has(fragment, "zero-sum")
                                        or _has(fragment, "constant-sum")):
                parts += [f"utility {names[0]} = 0", "zero-sum"]
            else:
                parts += [f"utility {name} = 0" for name in names]
    return "\n".join(parts) + "\n"


def _value(text: str):
    return Fraction(text)


@pytest.mark.parametrize("kind, text", examples())
def test_doc_example(kind, text):
    source = text if kind == "game" else wrap(text)
    game = gdl.loads(source, "<docs>")        # raises GdlError, with its position, if it fails
    stated = re.search(r"^#\s*value:\s*(.+)$", text, re.M)
    best = re.search(r"^#\s*best:\s*(.+)$", text, re.M)
    perft = re.search(r"^#\s*perft:\s*(.+)$", text, re.M)
    if perft is not None:
        from gdl.tools.count import count

        assert list(count(game).per_ply) == [int(n) for n in perft[1].split()]
    if stated is None and best is None:
        return
    result = solve(game)
    if stated is not None:
        expected = {}
        for pair in stated[1].split(","):
            player, value = pair.split()
            expected[player] = _value(value)
        assert dict(zip(game.info.players, result.values)) == expected
    if best is not None:
        assert [game.action_name(a) for a in result.best_actions] == best[1].split()


@pytest.mark.parametrize("kind, text", examples())
def test_doc_example_formats_back_and_runs_alike_in_both_backends(kind, text):
    """Every construct the docs show survives `gdl fmt` (the same syntax tree, and stable), and
    the interpreter gives the same start as the compiler: player to move, legal actions, and,
    where the docs state a value, the same value."""
    source = text if kind == "game" else wrap(text)
    formatted = format_text(source, "<docs>")
    assert parse(formatted) == parse(source)
    assert format_text(formatted, "<docs>") == formatted
    compiled = gdl.loads(source, "<docs>", backend="compile")
    interpreted = gdl.loads(source, "<docs>", backend="interpret")
    for game in (compiled, interpreted):
        assert game.info == compiled.info
    root = compiled.initial_state()
    assert interpreted.initial_state() == root
    assert interpreted.current_player(root) == compiled.current_player(root)
    if compiled.current_player(root) >= 0:
        assert interpreted.legal_actions(root) == compiled.legal_actions(root)
    if re.search(r"^#\s*value:", text, re.M):
        assert solve(interpreted).values == solve(compiled).values


def test_there_are_examples_and_claims():
    found = examples()
    assert len(found) >= 20
    claims = [p for p in found if "# value:" in p.values[1]]
    assert len(claims) >= 8


def test_the_wrapper_makes_a_complete_game():
    game = gdl.loads(wrap("var x in 0..3 = 1"))
    assert game.info.players == ("A", "B")


def test_every_error_code_is_documented():
    import gdl.errors

    codes = set(re.findall(r"\bE\d{3}\b", gdl.errors.__doc__))
    documented = set(re.findall(r"\bE\d{3}\b", (DOCS / "language.md").read_text(encoding="utf-8")))
    assert codes - documented == set()
