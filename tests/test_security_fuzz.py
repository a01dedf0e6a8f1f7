"""`gdl fuzz --out DIR` writes its counterexamples by name: in a directory another user can write,
a symbolic link planted under the name gdl will choose sends the file wherever its owner likes
(docs/security.md). Counterexamples go only to a directory nobody else can change, and a
directory gdl makes for them is private whatever the umask."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import gdl.solvers.expectiminimax as expectiminimax_module
from gdl.cli import main

ARGS = ["fuzz", "--examples", "20", "--seed", "5", "--target", "chance"]


@pytest.fixture
def planted_bug(monkeypatch):
    """Expectiminimax halving every chance probability: the fuzzer's chance target catches it
    (tests/test_fuzz_teeth.py does the same) and writes a counterexample."""
    original = expectiminimax_module.chance_outcomes
    monkeypatch.setattr(expectiminimax_module, "chance_outcomes",
                        lambda game, state: [(o, p / 2) for o, p in original(game, state)])


def test_a_symlink_planted_in_a_shared_out_directory_is_not_followed(planted_bug, tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)                      # anyone may add names here
    victim = tmp_path / "victim.txt"             # a file of ours the planted link points at
    for number in ("", *(f"-{n}" for n in range(2, 6))):
        (shared / f"fuzz-counterexample-seed5{number}.game").symlink_to(victim)
    assert main([*ARGS, "--out", str(shared)]) == 1
    err = capsys.readouterr().err
    assert not victim.exists()                   # nothing was written through the links
    assert "writable by other users" in err and "counterexamples go to" in err
    written = [line.split("counterexample: ", 1)[1] for line in err.splitlines()
               if "counterexample: " in line]
    assert written and all(not path.startswith(str(shared)) for path in written)
    for path in written:
        assert open(path, encoding="utf-8").read().startswith("# gdl fuzz counterexample")
        assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700


def test_an_out_directory_gdl_makes_is_private_whatever_the_umask(planted_bug, tmp_path, capsys):
    out = tmp_path / "found" / "here"
    previous = os.umask(0o002)                   # group-writable by default
    try:
        assert main([*ARGS, "--out", str(out)]) == 1
    finally:
        os.umask(previous)
    err = capsys.readouterr().err
    assert "counterexamples go to" not in err    # its own directory is fine
    assert list(out.glob("*.game"))
    for made in (tmp_path / "found", out):
        assert made.stat().st_mode & 0o777 == 0o700, made


def test_an_out_path_that_is_a_file_is_a_usage_error_without_a_traceback(planted_bug, tmp_path,
                                                                          capsys):
    taken = tmp_path / "file"
    taken.write_text("x", encoding="utf-8")
    code = main([*ARGS, "--out", str(taken / "below")])
    err = capsys.readouterr().err
    assert code == 2 and "--out" in err and "Traceback" not in err


def test_an_output_is_not_written_through_another_users_link(tmp_path, capsys):
    # In a shared, sticky directory another user plants `tree.txt` as a link to a file of ours:
    # `gdl tree --output` refuses it rather than overwrite the file it points at; a link of our
    # own is followed as before.
    import pwd

    from gdl.cli import main

    try:
        nobody = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        pytest.skip("no user 'nobody' to own the link")
    if os.getuid() != 0:
        pytest.skip("only root can make a link another user owns")
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    planted = shared / "tree.txt"
    planted.symlink_to(victim)
    os.lchown(planted, nobody, nobody)
    game = str(Path(__file__).resolve().parent.parent / "games" / "tictactoe.game")
    code = main(["tree", game, "--depth", "1", "--format", "txt", "--output", str(planted)])
    assert code == 2 and "another user owns" in capsys.readouterr().err
    assert victim.read_text() == "keep me"
    os.lchown(planted, os.getuid(), os.getgid())        # our own link: followed
    assert main(["tree", game, "--depth", "1", "--format", "txt", "--output", str(planted)]) == 0
    assert victim.read_text() != "keep me"
