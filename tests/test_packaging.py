"""The grammar ships inside the package: a wheel holds it, and gdl loads it from there; so does the
page of `gdl serve`."""

import subprocess
import sys
import zipfile

import pytest
from helpers import GAMES, ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of this checkout, built once for the tests of this module."""
    dist = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    return next(dist.glob("gdl-*.whl"))


def test_wheel_contains_the_grammar_and_loads_it(tmp_path, wheel):
    with zipfile.ZipFile(wheel) as archive:
        assert "gdl/grammars/game.lark" in archive.namelist()
        for page in ("index.html", "app.js", "style.css"):       # the page of `gdl serve`
            assert f"gdl/serve/static/{page}" in archive.namelist()
        archive.extractall(tmp_path / "site")
    # Run from an unrelated directory with only the unpacked wheel on the path: the grammar must
    # come from the package, not from the repository.
    script = ("import gdl, gdl.lang.parse; from pathlib import Path; "
              f"assert Path(gdl.__file__).parent == Path({str(tmp_path / 'site' / 'gdl')!r}); "
              f"g = gdl.load({str(GAMES / 'splitting.game')!r}); "
              "from gdl.solvers import solve; print(solve(g).values[0])")
    done = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, "
                           f"{str(tmp_path / 'site')!r}); " + script.replace("import gdl, ", "import gdl, ", 1)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={"GDL_NO_CACHE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "12"


def test_an_installed_gdl_fuzzes_says_its_version_and_ships_types(tmp_path, wheel):
    # A plain install: the wheel with its declared dependencies only (no test extra). `gdl fuzz`
    # is part of gdl, so hypothesis must be a runtime requirement of the wheel, and the fuzzer
    # must run from the unpacked wheel.
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(archive.read(n).decode() for n in names if n.endswith("METADATA"))
        archive.extractall(tmp_path / "site")
    assert "gdl/py.typed" in names
    requirements = [line.split(":", 1)[1].strip() for line in metadata.splitlines()
                    if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert any(r.startswith("hypothesis") for r in requirements), requirements
    assert any(r.startswith("lark") for r in requirements), requirements
    version = next(line.split(":", 1)[1].strip() for line in metadata.splitlines()
                   if line.startswith("Version:"))

    def run(*args):
        return subprocess.run(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); "
             "from gdl.cli import main; sys.exit(main(sys.argv[1:]))", *args],
            capture_output=True, text=True, cwd=tmp_path, timeout=300,
            env={"GDL_NO_CACHE": "1", "PATH": "/usr/bin:/bin"})

    shown = run("--version")
    assert shown.returncode == 0 and shown.stdout.strip() == f"gdl {version}", shown
    fuzzed = run("fuzz", "--examples", "5")
    assert fuzzed.returncode == 0, fuzzed.stderr
    assert "no disagreement" in fuzzed.stdout
