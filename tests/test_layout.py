"""The house's shape, enforced: imports point one way (see ARCHITECTURE.md).

Every ``import`` in ``gdl/`` is read with ``ast``, lazy imports inside functions included, and
each must stay within what its package may see. A new package must be added to LAYERS (and to
ARCHITECTURE.md) before anything in it can import gdl at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gdl"

FOUNDATION = {"gdl.protocol", "gdl.moves", "gdl.errors", "gdl.span", "gdl.cache", "gdl.version"}
# What each part may import, besides itself and the standard library / third-party packages.
# Parts are listed bottom-up: each may see (some of) what stands above it, never below.
LAYERS: dict[str, set[str]] = {
    "foundation": FOUNDATION,
    "gdl.lang": FOUNDATION | {"gdl.grammars"},
    # GDL-KIF, the second front end: parsed and checked like the rule language, translated into it.
    "gdl.kif": FOUNDATION | {"gdl.lang", "gdl.grammars"},
    "gdl.backends": FOUNDATION | {"gdl.lang", "gdl.kif"},
    # Solvers and the graph solver see only the game protocol (and protocol-level helpers).
    "gdl.solvers": {"gdl.protocol", "gdl.moves"},
    # (and the private-directory checks of gdl.cache, for the tier files)
    "gdl.graph": {"gdl.protocol", "gdl.moves", "gdl.solvers", "gdl.cache"},
    # The test-game generators build rule files and trees; they solve nothing.
    "gdl.generators": FOUNDATION | {"gdl.lang", "gdl.backends"},
    "gdl.tools": FOUNDATION | {"gdl.lang", "gdl.kif", "gdl.backends", "gdl.solvers", "gdl.graph",
                               "gdl.generators"},
    "gdl.bridges": FOUNDATION | {"gdl.lang", "gdl.kif", "gdl.backends", "gdl.solvers", "gdl.graph",
                                 "gdl.generators", "gdl.tools"},
    "gdl.serve": FOUNDATION | {"gdl.lang", "gdl.kif", "gdl.backends", "gdl.solvers", "gdl.graph",
                               "gdl.generators", "gdl.tools"},
    "gdl.lsp": FOUNDATION | {"gdl.lang", "gdl.kif", "gdl.backends", "gdl.tools"},
    "gdl.cli": FOUNDATION | {"gdl.lang", "gdl.kif", "gdl.backends", "gdl.solvers", "gdl.graph",
                             "gdl.generators", "gdl.tools", "gdl.bridges", "gdl.serve", "gdl.lsp"},
    # The public API (gdl/__init__.py) gathers what users need; python -m gdl runs the CLI.
    "gdl": FOUNDATION | {"gdl.lang", "gdl.kif", "gdl.backends", "gdl.solvers", "gdl.graph", "gdl.tools"},
    "gdl.__main__": {"gdl.cli"},
}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(module: str) -> str:
    """The part of the house a gdl module belongs to (a key of LAYERS)."""
    if module in FOUNDATION:
        return "foundation"
    if module in ("gdl", "gdl.__main__"):
        return module
    return ".".join(module.split(".")[:2])


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module) for every import of a gdl module in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "gdl" or (node.level and not node.module):
                # `from gdl import x` / `from . import x`: x may be a submodule
                found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, target))
    return [(line, name) for line, name in found if name == "gdl" or name.startswith("gdl.")]


def allowed(source: str, target: str) -> bool:
    mine, theirs = part_of(source), part_of(target)
    if theirs == "gdl" and target == "gdl":
        return False                      # nothing inside gdl imports the public façade
    if mine == theirs and mine != "foundation":
        return True
    permitted = LAYERS.get(mine)
    if permitted is None:
        return False
    return any(target == p or target.startswith(p + ".") for p in permitted)


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_part_of_the_house_is_known():
    unknown = {part_of(module_name(p)) for p in SOURCES} - set(LAYERS)
    assert not unknown, f"add these packages to LAYERS and ARCHITECTURE.md: {sorted(unknown)}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_one_way(path):
    source = module_name(path)
    wrong = [f"{path.relative_to(ROOT)}:{line}: {source} imports {target}"
             for line, target in imported_modules(path) if not allowed(source, target)]
    assert not wrong, "imports against the layering (see ARCHITECTURE.md):\n" + "\n".join(wrong)


def test_the_checker_catches_an_upward_import(tmp_path):
    # The test itself must be able to fail: a solver importing the compiler is refused, and
    # so is a lazy import inside a function, and a relative one.
    assert not allowed("gdl.solvers.minimax", "gdl.backends.compiler")
    assert not allowed("gdl.lang.check", "gdl.backends.interpret")
    assert not allowed("gdl.tools.fuzz", "gdl")
    assert not allowed("gdl.backends.load", "gdl.cli")
    assert allowed("gdl.cli.basic", "gdl.tools.count")
    assert allowed("gdl.tools.fuzz", "gdl.generators.rules")
    assert not allowed("gdl.generators.rules", "gdl.tools.fuzz")
    assert not allowed("gdl.generators.rules", "gdl.solvers")
    fake = tmp_path / "gdl" / "solvers" / "sneaky.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("import lark\n\ndef f():\n    from ..backends import compiler\n")
    found = imported_modules(fake, root=tmp_path)
    assert found == [(4, "gdl.backends")]
    assert not allowed("gdl.solvers.sneaky", found[0][1])


def test_architecture_lists_every_module():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [str(p.relative_to(ROOT)) for p in SOURCES
               if p.name != "__main__.py" and str(p.relative_to(ROOT)) not in text]
    assert not missing, f"ARCHITECTURE.md has no line for: {missing}"


def test_every_package_ships():
    # setuptools lists packages by hand (the grammar lives outside gdl/): a package missing
    # there would work from a checkout and be absent from an installed wheel.
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert packages <= listed, f"add to [tool.setuptools] packages: {sorted(packages - listed)}"


# ---- the tiered solve's rooms ---------------------------------------------------------------------

# gdl/graph/tiers.py and its rooms, bottom-up (ARCHITECTURE.md): a room imports only rooms of a
# lower level, so they form a line, not a circle (rooms of one level import none of each other).
TIER_ROOMS: list[tuple[str, ...]] = [
    ("gdl.graph.tier_keys",),
    ("gdl.graph.tier_expand",),
    ("gdl.graph.tier_run",),
    ("gdl.graph.tier_store",),
    ("gdl.graph.tier_pass",),
    ("gdl.graph.packed_tiers", "gdl.graph.chance_tiers"),
    ("gdl.graph.tier_solve",),
    ("gdl.graph.tier_solution",),
    ("gdl.graph.tier_merge",),
    ("gdl.graph.tiers",),
]


def upward_room_imports(source: str, imports: list[tuple[int, str]]) -> list[str]:
    """The imports of tier room ``source`` that reach a room of its own level or above."""
    level = {room: number for number, rooms in enumerate(TIER_ROOMS) for room in rooms}
    return [f"{source}:{line} imports {target}" for line, target in imports
            if target in level and target != source and level[target] >= level[source]]


def test_the_tier_rooms_form_a_line():
    rooms = [room for level in TIER_ROOMS for room in level]
    paths = {module_name(p): p for p in SOURCES}
    assert set(rooms) <= set(paths), "a tier room listed here is gone: update TIER_ROOMS"
    unlisted = sorted(m for m in paths if m.startswith("gdl.graph.tier_") and m not in rooms)
    assert not unlisted, f"add these rooms to TIER_ROOMS (and ARCHITECTURE.md): {unlisted}"
    wrong = [found for room in rooms
             for found in upward_room_imports(room, imported_modules(paths[room]))]
    assert not wrong, "a tier room imports one above it (a circle):\n" + "\n".join(wrong)


def test_the_room_checker_catches_an_import_upwards():
    assert upward_room_imports("gdl.graph.tier_store", [(3, "gdl.graph.tiers")])
    assert upward_room_imports("gdl.graph.chance_tiers", [(5, "gdl.graph.packed_tiers")])
    assert not upward_room_imports("gdl.graph.tier_store", [(3, "gdl.graph.tier_keys"),
                                                            (4, "gdl.graph.database")])

# ---- function length ------------------------------------------------------------------------------

MAX_FUNCTION_LINES = 150
# Functions over the limit today, with their length in lines: each may only shrink, and must
# leave this list once it fits (the hot recursive searches, where a split costs a call per node).
LONG_FUNCTIONS: dict[str, int] = {
    "gdl/solvers/expectiminimax.py:_search": 284,
    "gdl/solvers/alphabeta.py:Engine._negamax": 201,
    "gdl/solvers/alphabeta.py:Engine._negamax.search": 162,
}


def function_lengths(source: str, filename: str = "<source>") -> list[tuple[str, int, int]]:
    """(qualified name, line, length in lines from ``def`` to the last line) of every function
    and method in ``source``, nested ones included (``outer.inner``, ``Class.method``)."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    assert child.end_lineno is not None
                    found.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source, filename), "")
    return found


def too_long(path: Path, source: str) -> list[str]:
    where = path.relative_to(ROOT).as_posix() if path.is_absolute() else path.as_posix()
    wrong = []
    for name, line, length in function_lengths(source, where):
        allowed_length = LONG_FUNCTIONS.get(f"{where}:{name}", MAX_FUNCTION_LINES)
        if length > allowed_length:
            wrong.append(f"{where}:{line}: {name} is {length} lines (at most {allowed_length})")
    return wrong


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_is_longer_than_150_lines(path):
    wrong = too_long(path, path.read_text(encoding="utf-8"))
    assert not wrong, "split these functions (one job each):\n" + "\n".join(wrong)


def test_the_long_functions_listed_are_still_long():
    # the list only shrinks: a function split below the limit must leave it
    lengths = {f"{p.relative_to(ROOT).as_posix()}:{name}": length
               for p in SOURCES for name, _, length in function_lengths(p.read_text("utf-8"))}
    fits = [key for key in LONG_FUNCTIONS if lengths.get(key, 0) <= MAX_FUNCTION_LINES]
    assert not fits, f"remove from LONG_FUNCTIONS (gone or short enough now): {fits}"


def test_the_length_check_can_fail():
    # a method of exactly 151 lines: its `def` and 150 statements
    source = "class C:\n    def long(self):\n" + "".join(
        f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert function_lengths(source) == [("C.long", 2, MAX_FUNCTION_LINES + 1)]
    assert too_long(Path("gdl/x.py"), source) == [
        f"gdl/x.py:2: C.long is {MAX_FUNCTION_LINES + 1} lines (at most {MAX_FUNCTION_LINES})"]
    fits = "def short():\n" + "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    assert too_long(Path("gdl/x.py"), fits) == []


def test_mypy_checks_the_whole_package():
    # CI runs mypy with the files of [tool.mypy]: a package left out there goes unchecked
    import tomllib

    files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    assert files == ["gdl"], f"mypy checks only {files}: list the whole package, \"gdl\""
