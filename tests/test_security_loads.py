"""Every place in gdl that turns bytes into code (unpickling, unmarshalling, exec, loading a shared
library) is one of the few docs/security.md names, each reading only what gdl itself wrote into
its private cache; every numpy load refuses pickles. A new one fails here until it is justified
there. Read from the source (Python's ast), so no code path is missed for want of a test that
reaches it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gdl"
SECURITY = ROOT / "docs" / "security.md"

# (file, call) -> why it may turn bytes into code: each reads only a private cache entry (or
# gdl's own generated text) and is described in docs/security.md.
CODE_LOADERS = {
    ("gdl/backends/load.py", "marshal.loads"): "compiled module cache, opened through gdl.cache",
    ("gdl/backends/runtime.py", "compile"): "the compiler's own Python text (or the cache's)",
    ("gdl/backends/runtime.py", "exec"): "the compiler's own Python text (or the cache's)",
    ("gdl/lang/grammar.py", "lark.Lark.load"): "the parser tables' pickle, through gdl.cache",
    ("gdl/backends/native/build.py", "ctypes.CDLL"): "the native library, checked then loaded",
}
UNPICKLERS = {"pickle", "marshal", "dill", "cloudpickle", "shelve", "yaml", "joblib"}
RUNNERS = {"exec", "eval", "compile", "__import__"}


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def calls() -> list[tuple[str, str, ast.Call]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = dotted(node.func)
                if name is not None:
                    found.append((relative, name, node))
    return found


def test_numpy_refuses_pickles_unless_asked_and_gdl_never_asks():
    # numpy >= 1.16.3 (gdl needs >= 1.24): allow_pickle is False unless a caller says True.
    assert inspect.signature(np.load).parameters["allow_pickle"].default is False
    loads = [(path, node) for path, name, node in calls()
             if name in ("np.load", "numpy.load")]
    assert loads                                       # the scan sees them
    for path, node in loads:
        for keyword in node.keywords:
            if keyword.arg == "allow_pickle":
                assert isinstance(keyword.value, ast.Constant) and keyword.value.value is False, (
                    f"{path}:{node.lineno} loads numpy data with pickles allowed")
        assert not any(isinstance(k, ast.keyword) and k.arg is None for k in node.keywords), (
            f"{path}:{node.lineno}: **options could allow pickles")


def test_every_place_that_turns_bytes_into_code_is_known_and_documented():
    seen = set()
    for path, name, node in calls():
        head, _, last = name.rpartition(".")
        loader = ((head.split(".")[0] in UNPICKLERS and last in ("load", "loads", "open",
                                                                 "Unpickler", "unsafe_load"))
                  or name in RUNNERS or name.endswith(("CDLL", "LoadLibrary", "PyDLL"))
                  or name.endswith("Lark.load"))
        if loader:
            assert (path, name) in CODE_LOADERS, (
                f"{path}:{node.lineno}: {name} turns bytes into code; say in docs/security.md why "
                "only gdl can have written them, then list it in CODE_LOADERS")
            seen.add((path, name))
    assert seen == set(CODE_LOADERS)                  # each listed place still exists
    documented = SECURITY.read_text(encoding="utf-8")
    for path, _ in CODE_LOADERS:
        assert path in documented, f"docs/security.md does not discuss {path}"


def test_no_module_imports_pickle():
    # Lark unpickles its own cache given bytes (gdl.lang.grammar); gdl itself never imports a
    # module that turns bytes into objects of the bytes' choosing.
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in UNPICKLERS - {"marshal"}, (
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")


def test_the_language_server_never_builds_a_game():
    # The editor hands it any rule file it opens: parsing and checking run nothing, building
    # does (a compiled module, a native library). Lazy imports inside functions count too.
    allowed = ("gdl.lang", "gdl.errors", "gdl.span", "gdl.lsp", "gdl.version")
    for path in sorted((PACKAGE / "lsp").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [])
            for name in names:
                if name == "gdl" or name.startswith("gdl."):
                    assert name.startswith(allowed), (
                        f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
