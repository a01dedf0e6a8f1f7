"""The rule-file generator of the fuzzer (`rule_games(full_language=True)`, what `gdl fuzz`
draws) writes every construct of the language's second edition, in games that check and that
both back ends run alike: a construct the generator never writes is never fuzzed."""

from pathlib import Path

from gdl.generators.rules import rule_games
from gdl.lang import ast
from gdl.tools.fuzz import backend_problems, run_property


def nodes(node):
    """Every syntax node under ``node``, itself included."""
    if isinstance(node, tuple):
        for item in node:
            yield from nodes(item)
    elif hasattr(node, "__dataclass_fields__") and not isinstance(node, ast.Span):
        yield node
        for name in node.__dataclass_fields__:
            if name != "span":
                yield from nodes(getattr(node, name))


def dependent(binder):
    """A binder whose range starts or ends at a name (an outer binder, a parameter)."""
    domain = binder.domain
    return isinstance(domain, ast.RangeDomain) and any(
        isinstance(end, ast.Name) for end in (domain.low, domain.high))


CONSTRUCTS = {
    "parameter guard": lambda n: isinstance(n, ast.ActionDecl) and any(
        g is not None for g in n.guards),
    "action parameter ranging from another": lambda n: isinstance(n, ast.ActionDecl) and any(
        dependent(b) for b in n.params),
    "quantifier range from an outer binder": lambda n: isinstance(n, ast.Quantifier) and any(
        dependent(b) for b in n.binders[1:]),
    "quantifier range from a define parameter": lambda n: isinstance(n, ast.DefineDecl)
    and bool(n.params) and any(isinstance(q, ast.Quantifier) and dependent(q.binders[0])
                               for q in nodes(n.body)),
    "membership in symbols": lambda n: isinstance(n, ast.Member) and n.symbols is not None,
    "membership in a range": lambda n: isinstance(n, ast.Member) and n.range is not None,
    "map from symbols": lambda n: isinstance(n, ast.MapLit),
    "symbol variable": lambda n: isinstance(n, ast.VarDecl)
    and isinstance(n.domain, ast.SymbolDomain),
    "init": lambda n: isinstance(n, ast.InitDecl),
    "chance at the root": lambda n: isinstance(n, ast.InitDecl) and any(
        isinstance(s, ast.Random) for s in n.body),
    "when stuck lose": lambda n: isinstance(n, ast.StuckDecl) and n.outcome.name == "lose",
    "when stuck win": lambda n: isinstance(n, ast.StuckDecl) and n.outcome.name == "win",
    "when stuck pass": lambda n: isinstance(n, ast.StuckDecl) and n.outcome.name == "pass",
    "let": lambda n: isinstance(n, ast.LetStmt),
    "repeat": lambda n: isinstance(n, ast.Repeat),
    "exact division": lambda n: isinstance(n, ast.Binary) and n.op == "/",
    "floor division": lambda n: isinstance(n, ast.Binary) and n.op == "//",
}


def test_the_fuzzers_generator_writes_every_construct():
    found = {name: 0 for name in CONSTRUCTS}

    def record(example):
        rules = example
        for node in nodes(rules.tree):
            for name, matches in CONSTRUCTS.items():
                if matches(node):
                    found[name] += 1
        # valid by construction: it checks, and the compiled game agrees with the interpreter
        return backend_problems(rules.load("compile"), rules.load("interpret"))[0]

    outcome = run_property(rule_games(full_language=True, probes=True), record, examples=100,
                           seed=15, shrink=False)
    assert outcome.first_failure is None, outcome.problems
    assert outcome.examples == 100
    assert [name for name, seen in found.items() if not seen] == []


def test_renaming_keeps_the_words_of_when_stuck():
    # the fuzz's metamorphic renaming once turned `when stuck lose` into `when stuck n4` (E201)
    # (found here and on main at the same time; main's fix is the one kept)
    import gdl
    from gdl.lang.format import format_file
    from gdl.lang.parse import parse
    from gdl.tools.fuzz import rename_identifiers

    text = (Path(__file__).resolve().parent.parent / "games" / "chomp.game").read_text()
    renamed, mapping = rename_identifiers(parse(text), seed=3)
    assert "bite" in mapping
    renamed_text = format_file(renamed)
    assert "when stuck lose" in renamed_text
    # 3 x 4 Chomp is a first-player win (strategy stealing), under any names
    assert gdl.solve(gdl.loads(renamed_text)).values == (1, -1)


STUCK_LOSE = """game "g"
players P0, P1
var moves in 0..2 = 0
var x0 in 0..1 = 0
action a0(k in 0..1)
    requires mover == P0 or moves < 1
    effect   moves = moves + 1; x0 = min(max(x0 + (k if mover == P0 else -k), 0), 1)
terminal moves == 2
utility P0 = x0
zero-sum
when stuck lose
"""


def test_the_affine_check_leaves_stuck_endings_alone():
    # Found by `gdl fuzz --seed 20261123` once the generator wrote `when stuck lose`: P1 is stuck
    # at once and loses, worth (1, -1) by the language's rule, whatever the utility expressions
    # say; `utilities * 3 + 1` cannot make that (4, -2), so the fuzz no longer expects it.
    import gdl
    from gdl.lang.parse import parse
    from gdl.tools.fuzz import affine_applies, metamorphic_problems

    tree = parse(STUCK_LOSE)
    assert gdl.solve(gdl.loads(STUCK_LOSE)).values == (1, -1)
    assert not affine_applies(tree)
    for seed in range(8):       # every affine change the check may draw
        assert metamorphic_problems(tree, seed=seed)[0] == []
    assert affine_applies(parse(STUCK_LOSE.replace("when stuck lose", "when stuck pass")))


def test_affine_utilities_carry_the_utilities_of_endless_play():
    from gdl.lang.format import format_file
    from gdl.lang.parse import parse
    from gdl.tools.fuzz import affine_utilities

    text = ('game "g"\nplayers A, B\nvar x in 0..1 = 0\naction go effect x = 1 - x\n'
            "terminal false\nutility A = x\nzero-sum\nwhen endless (2, -2)\n")
    shifted = format_file(affine_utilities(parse(text), add=1, scale=3))
    assert "constant-sum 2" in shifted
    assert "when endless (3 * 2 + 1, 3 * -2 + 1)" in shifted       # (7, -5): sums to 2
    import gdl

    assert gdl.loads(shifted).info.endless_value == (7, -5)


def test_renaming_keeps_the_built_in_opponent():
    # games/hexapawn.game uses the built-in `opponent`; renaming it made it an unknown name (E201)
    import gdl
    from gdl.lang.format import format_file
    from gdl.lang.parse import parse
    from gdl.tools.fuzz import rename_identifiers

    text = (Path(__file__).resolve().parent.parent / "games" / "hexapawn.game").read_text()
    renamed, mapping = rename_identifiers(parse(text), seed=1)
    assert "opponent" not in mapping and "cell" in mapping
    # Gardner's hexapawn is a second-player win (FACTS.md), under any names
    assert gdl.solve(gdl.loads(format_file(renamed))).values == (-1, 1)
    # a file that declares its own `opponent` has it renamed like any other name
    own = text.replace("players White, Black\n",
                       "players White, Black\ndefine opponent = Black if mover == White else White\n")
    assert "opponent" in rename_identifiers(parse(own), seed=1)[1]
