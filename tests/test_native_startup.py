"""Start-up work done natively, and the shortcuts a cache hit takes (issue 16).

`gdl solve` on a game that declares max-length first looks for a cycle (gdl/cli/deep.py): in C
where the game has native rules (search.c, ``gdl_find_cycle``). The oracle is the Python walk,
gdl.tools.count.find_cycle, an independent implementation of the same depth-first walk: the
answers must be equal, cycle and path included, at every limit (the limit decides when the walk
gives up, so it is the easiest place for the two to drift apart).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl.backends.native.attach as attach_module
from gdl.backends.load import load
from gdl.backends.native.build import compiler
from gdl.cli import main
from gdl.tools.count import find_cycle
from gdl.tools.native_solve import native_rules

HERE = Path(__file__).resolve().parent
GAMES = HERE.parent / "games"
DEEP = HERE / "data" / "deep"
needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler: the native tier cannot run")


def native_cycle(game, root, limit):
    """The native walk's answer in find_cycle's form (names), or None."""
    found = native_rules(game).find_cycle(root, limit)
    assert found is not None, "the native walk stopped on a rule error"
    if found is False:
        return None
    actions, start = found
    names = [game.action_name(a) for a in actions]
    return names[:start], names[start:]


@needs_cc
@pytest.mark.parametrize("path, params", [
    (DEEP / "ping-pong.game", {}),
    (DEEP / "ping-pong-bounded.game", {}),
    (GAMES / "cyclic" / "ring-chase.game", {}),
    (GAMES / "cyclic" / "ring-chase.game", {"cells": 3}),
    (GAMES / "tictactoe.game", {}),
    (GAMES / "connect4.game", {"columns": 4, "rows": 4}),
    (GAMES / "takeaway3.game", {}),
])
def test_the_native_cycle_walk_is_the_python_walk(path, params):
    game = load(path, params, backend="native")
    assert native_rules(game) is not None, game.native_note
    root = game.initial_state()
    for limit in (0, 1, 2, 3, 5, 10, 100, 5_477, 5_478, 20_000):
        assert native_cycle(game, root, limit) == find_cycle(game, root, limit), limit


@needs_cc
def test_ping_pong_cycle_is_the_one_the_file_describes():
    # The file's comment: serve, then around the cycle hit hit.
    game = load(DEEP / "ping-pong-bounded.game", backend="native")
    assert native_cycle(game, game.initial_state(), 20_000) == (["serve"], ["hit", "hit"])


@needs_cc
def test_tictactoe_has_no_cycle_and_5478_states():
    # FACTS: 5,478 reachable positions, and every move fills a cell, so there is no cycle; a
    # limit of 5,478 lets the walk meet them all.
    game = load(GAMES / "tictactoe.game", backend="native")
    root = game.initial_state()
    assert native_rules(game).find_cycle(root, 20_000) is False
    assert native_rules(game).find_cycle(root, 5_478) is False


@needs_cc
@pytest.mark.parametrize("backend", ["native", "compile"])
def test_solve_reports_a_false_length_bound_the_same_on_both_tiers(backend, capsys):
    assert main(["solve", str(DEEP / "ping-pong-bounded.game"), "--backend", backend]) == 2
    err = capsys.readouterr().err
    assert "declares max-length 10, but it can go on forever" in err
    assert "after serve, the moves hit hit come back" in err


# ---- the size check's shortcut (gdl/cli/deep.py solve_size_check) ---------------------------

@pytest.mark.parametrize("name", ["tictactoe", "takeaway3", "centipede", "splitting", "nim"])
def test_a_table_search_within_the_declared_bound_is_never_over_budget(name):
    # The shortcut skips the playouts when the declared state bound is within the budget and the
    # search keeps a table. Its argument, checked on the estimate it skips: a table search costs
    # at most the estimate's distinct states, which are at most the declared bound.
    import gdl.tools.validate as v
    from gdl.cli.deep import declared_state_bound

    game = load(GAMES / f"{name}.game")
    declared = declared_state_bound(game)
    assert declared is not None and declared <= v.BUDGET
    est = v.estimate(game, declared_states=declared)
    assert v.search_cost(est, "alphabeta")[0] <= declared
    assert v.budget_problem(est, "alphabeta", info=game.info) is None


def test_the_shortcut_still_warns_over_a_smaller_budget(monkeypatch, capsys):
    import gdl.tools.validate as v

    monkeypatch.setattr(v, "BUDGET", 10)     # below tic-tac-toe's 39,366 declared states
    assert main(["solve", str(GAMES / "tictactoe.game")]) == 0
    captured = capsys.readouterr()
    assert "warning: alphabeta would visit" in captured.err
    assert "X 0, O 0" in captured.out       # FACTS: a draw


@needs_cc
def test_a_first_load_compiles_the_c_while_it_builds_the_python(tmp_path, monkeypatch):
    # An empty cache: the checked game's C goes to the compiler before its Python is built
    # (gdl.backends.native.attach.EarlyLibrary), and the game comes out native all the same.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    started = []
    real = attach_module.EarlyLibrary.__init__

    def spy(self, *args, **kwargs):
        started.append(args[1])
        real(self, *args, **kwargs)

    monkeypatch.setattr(attach_module.EarlyLibrary, "__init__", spy)
    path = GAMES / "tictactoe.game"
    first = load(path, backend="native")
    assert started == [str(path)] and first.native is not None, first.native_note
    libraries = sorted((tmp_path / "gdl" / "native").glob("*.so"))
    assert len(libraries) == 1
    again = load(path, backend="native")            # both caches hit: no early compiler
    assert started == [str(path)] and again.native is not None
    assert sorted((tmp_path / "gdl" / "native").glob("*.so")) == libraries
    root = first.initial_state()
    assert first.native.legal_actions(root) == again.native.legal_actions(root) == list(range(9))
    # An explicit tree has no C: nothing is compiled, and no refusal is written for it.
    tree = load(GAMES / "aima-fig5-2.game", backend="native")
    assert tree.native is None and "not compiled" in tree.native_note
    assert not list((tmp_path / "gdl" / "native").glob("*.refused"))


def test_a_first_load_that_finds_the_library_cached_makes_no_c(tmp_path, monkeypatch):
    # Only the Python cache missed (cleared): the library is read from the native cache without
    # generating the C text again, and the game comes out native.
    import shutil

    import gdl.backends.native.emit as emit

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = GAMES / "connect4.game"
    first = load(path, backend="native")
    assert first.native is not None, first.native_note
    shutil.rmtree(tmp_path / "gdl" / "compiled")
    made: list = []
    real = emit.generate
    monkeypatch.setattr(emit, "generate", lambda *args: made.append(args) or real(*args))
    again = load(path, backend="native")
    assert again.native is not None and made == []
    root = again.initial_state()
    assert again.native.legal_actions(root) == first.native.legal_actions(root)
    for library in (tmp_path / "gdl" / "native").glob("*.so"):   # now the library is gone:
        library.unlink()                                           # the C is made after all
    shutil.rmtree(tmp_path / "gdl" / "compiled")
    assert load(path, backend="native").native is not None and len(made) == 1
