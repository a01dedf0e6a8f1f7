"""The per-user cache holds pickles and compiled code: nothing in it may run unless it is the
user's own, reached without following a link someone else could have planted."""

import os
import pickle
import stat

import pytest

from gdl import cache
from gdl.backends import load as loader
from gdl.lang import grammar

TINY = 'game "tiny"\nplayers A\nvar n in 0..1 = 0\naction go effect n = 1\nterminal n == 1\nutility A = n\n'


class _Planted:
    """Unpickling this creates a file: proof that the cache ran code it should have refused."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _planted_bytes(marker) -> bytes:
    # Lark's own cache format reads a line, then unpickles; ours unpickles at once: this file
    # runs code under either reading.
    return b"0\n" + pickle.dumps(_Planted(marker))


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    grammar.build_parser.cache_clear()
    yield tmp_path / "xdg"
    grammar.build_parser.cache_clear()


def _grammar_cache_names(tmp_path, monkeypatch) -> list[str]:
    """The names the grammar cache uses, learnt from a clean run in another directory."""
    clean = tmp_path / "clean"
    monkeypatch.setenv("XDG_CACHE_HOME", str(clean))
    grammar.build_parser.cache_clear()
    grammar.build_parser()
    grammar.build_parser.cache_clear()
    names = [p.name for p in (clean / "gdl").iterdir() if p.name.startswith("grammar-")]
    assert names
    return names


def test_a_symlinked_cache_directory_is_never_read(tmp_path, monkeypatch):
    names = _grammar_cache_names(tmp_path, monkeypatch)
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    marker = tmp_path / "code-ran"
    for name in names:
        (target / name).write_bytes(_planted_bytes(marker))
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (xdg / "gdl").symlink_to(target)      # swapped in by someone who can write the parent
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    grammar.build_parser.cache_clear()
    try:
        grammar.build_parser()
    finally:
        grammar.build_parser.cache_clear()
    assert not marker.exists()
    assert cache.open_private_dir() is None


def test_a_symlinked_cache_file_is_never_read(tmp_path, monkeypatch):
    names = _grammar_cache_names(tmp_path, monkeypatch)
    xdg = tmp_path / "xdg"
    (xdg / "gdl").mkdir(parents=True, mode=0o700)
    marker = tmp_path / "code-ran"
    planted = tmp_path / "planted"
    planted.write_bytes(_planted_bytes(marker))
    for name in names:
        (xdg / "gdl" / name).symlink_to(planted)
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    grammar.build_parser.cache_clear()
    try:
        grammar.build_parser()
    finally:
        grammar.build_parser.cache_clear()
    assert not marker.exists()


def test_a_cache_file_others_can_write_is_never_read(fresh_cache):
    loader.loads(TINY)            # writes a compiled entry
    directory = fresh_cache / "gdl" / "compiled"
    entries = list(directory.glob("*.json"))
    assert entries
    for entry in entries:
        entry.write_text('{"format": 1, "descriptor": {}, "source": "raise SystemExit(3)"}')
        os.chmod(entry, 0o666)
    assert loader._cache_read(entries[0].stem) is None


def test_every_cache_directory_is_created_private(fresh_cache):
    previous = os.umask(0o022)
    try:
        directory = cache.open_private_dir("compiled")
    finally:
        os.umask(previous)
    assert directory is not None
    directory.close()
    for path in (fresh_cache / "gdl", fresh_cache / "gdl" / "compiled"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path


def test_an_existing_cache_directory_readable_by_others_is_made_private(fresh_cache):
    (fresh_cache / "gdl").mkdir(parents=True)
    os.chmod(fresh_cache / "gdl", 0o755)
    directory = cache.open_private_dir()
    assert directory is not None
    directory.close()
    assert stat.S_IMODE((fresh_cache / "gdl").stat().st_mode) == 0o700


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    directory = cache.open_private_dir()
    assert directory is not None
    directory.close()
    assert not (tmp_path / "relative-cache").exists()
    assert (tmp_path / "home" / ".cache" / "gdl").is_dir()


def test_a_damaged_grammar_cache_is_rebuilt(fresh_cache):
    grammar.build_parser()
    grammar.build_parser.cache_clear()
    files = [p for p in (fresh_cache / "gdl").iterdir() if p.name.startswith("grammar-")]
    for path in files:
        path.write_bytes(b"not a pickle")
        os.chmod(path, 0o600)
    parser = grammar.build_parser()
    assert parser.parse(TINY) is not None


def test_native_code_is_not_loaded_from_a_cache_others_can_rename_things_in(tmp_path,
                                                                          monkeypatch):
    # A cache base that other users may write to (group-writable, no sticky bit): they could
    # rename the directories on the way to a checked library before the loader opens it by
    # name. gdl builds nothing there and runs the Python tier, saying why and how to fix it.
    from gdl.backends.native import build

    base = tmp_path / "shared-cache"
    base.mkdir()
    os.chmod(base, 0o775)
    monkeypatch.setenv("XDG_CACHE_HOME", str(base))
    monkeypatch.delenv("GDL_NO_CACHE", raising=False)
    with pytest.raises(build.NativeUnavailable, match=r"writable by other users.*chmod go-w"):
        build.library_for("int answer(void) { return 42; }")
    assert not list((base / "gdl" / "native").glob("*.so"))
    os.chmod(base, 0o1775)                 # sticky: others can no longer rename our entries
    assert build.library_for("int answer(void) { return 42; }").answer() == 42
