"""A tier directory is checked once and then read by name (tier files, checkpoints, `--resume`'s
manifest): that is only safe where nobody else can rename anything on the way to it, or they
could swap in a directory of their own after the check (docs/security.md). These complete
tests/test_tier_security.py, which covers the directory itself."""

from __future__ import annotations

import os

import pytest
from helpers import GAMES

from gdl.backends.load import load
from gdl.graph.tiers import tiered_solve
from gdl.solvers.result import SolverError


@pytest.fixture(scope="module")
def game():
    return load(GAMES / "nim.game")


def test_a_tier_directory_in_a_parent_of_ours_others_can_write_is_refused(tmp_path, game):
    # Ours, but open to everyone without the sticky bit: anyone may rename `tiers` away after
    # the check and put a directory of their own there. Being ours does not close it.
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(SolverError, match=r"lies in .*shared, which is writable by other users "
                                          r"without the sticky bit.*chmod go-w"):
        tiered_solve(game, shared / "tiers", binding={})
    os.chmod(shared, 0o1777)              # sticky, as /tmp is: only we can rename our entries
    tiered_solve(game, shared / "tiers", binding={})


def test_any_directory_on_the_way_counts_not_only_the_parent(tmp_path, game):
    top = tmp_path / "top"
    (top / "a" / "b").mkdir(parents=True)
    os.chmod(top, 0o777)
    with pytest.raises(SolverError, match=r"lies in .*top, which is writable by other users"):
        tiered_solve(game, top / "a" / "b" / "tiers", binding={})
    assert not (top / "a" / "b" / "tiers").exists()          # nothing made there


def test_a_symbolic_link_on_the_way_is_judged_by_where_it_leads(tmp_path, game):
    # The way as written is private; the directory it resolves to is not.
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    os.chmod(open_to_all, 0o777)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "link").symlink_to(open_to_all)
    with pytest.raises(SolverError, match=r"lies in .*open, which is writable by other users"):
        tiered_solve(game, private / "link" / "tiers", binding={})


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_parent_that_is_another_users_is_refused_even_with_the_sticky_bit(tmp_path, game):
    # The owner of a sticky directory may still rename every entry in it.
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chmod(theirs, 0o1777)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(SolverError, match=r"lies in .*theirs, which belongs to another user"):
        tiered_solve(game, theirs / "tiers", binding={})


def test_missing_parents_are_created_private_whatever_the_umask(tmp_path, game):
    # With umask 002 (common where each user has a group of their own) a parent made the
    # ordinary way is group-writable, and the check would then refuse gdl's own directory.
    previous = os.umask(0o002)
    try:
        tiered_solve(game, tmp_path / "new" / "deeper" / "tiers", binding={})
    finally:
        os.umask(previous)
    for made in (tmp_path / "new", tmp_path / "new" / "deeper", tmp_path / "new" / "deeper" / "tiers"):
        assert made.stat().st_mode & 0o777 == 0o700, made
