"""The ranked passes on several threads (gdl/backends/native/rank.c, ``ranked_solve(workers=N)``,
``gdl solve --strong --workers N``): the same tables, codes, census, failures and database on
any number of threads, and the answers the position graph gives.

Each game is solved on one thread with rank.c's own chunks, and on two and three threads with
chunks of one bitmap word (64 slots: ``ranked.CHUNK_WORDS``), so that even a small game is
cut into many chunks handed over between threads, with new tiers met in the middle of them.
The expected values are the one-thread run's (every byte of it) and, independently, the
position graph's answers (tests/test_rank.py's ``assert_same``, tests/test_rank_cyclic.py's
``differences``: solvers that share nothing with the ranked passes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_rank import assert_same
from test_rank_cyclic import differences

from gdl.backends.load import load
from gdl.backends.native import ranked as ranked_module
from gdl.cli import main
from gdl.graph import rank, rank_solve, strong_solve
from gdl.graph.database import save

GAMES = Path(__file__).resolve().parent.parent / "games"
THREADS = (1, 2, 3)


def solved_on(game, threads: int, directory: Path, monkeypatch):
    monkeypatch.setattr(ranked_module, "CHUNK_WORDS", 0 if threads == 1 else 1)
    return rank_solve.ranked_solve(game, directory=directory / f"t{threads}", workers=threads)


def fingerprint(solution, directory: Path) -> dict:
    """Everything a ranked solve leaves: per tier its figures, its bitmap's and codes' files;
    the scores, the encoding, the census; the database's bytes."""
    tiers = []
    for r in solution.records:
        tiers.append((r.value, r.size, r.target, r.fixed, r.reached, r.terminal, r.edges,
                      r.inside, tuple(r.reaches),
                      solution.files.path(r.value, "bits").read_bytes(),
                      solution.files.path(r.value, "codes").read_bytes()))
    database = directory / "solved.db"
    save(solution, database, {"test": 1})
    return {"tiers": tiers, "table": solution.table, "M": solution.M, "width": solution.width,
            "hist": solution.hist.tolist(), "layout": repr(solution.layout),
            "database": database.read_bytes()}


def assert_same_on_any_threads(game, tmp_path, monkeypatch):
    """Solved on 1, 2 and 3 threads: the same in every byte; returns the last solve."""
    found = {}
    for threads in THREADS:
        solution = solved_on(game, threads, tmp_path, monkeypatch)
        found[threads] = fingerprint(solution, tmp_path / f"t{threads}")
        assert found[threads] == found[1], f"{threads} threads differ from one"
    return solution


# A tier declared (Connect Four), found from the moves (tic-tac-toe, Nim's heaps), a mover that
# varies inside a tier (Nim), and many tiers reached from one (Chomp).
ACYCLIC = [
    ("connect4.game", {"columns": 4, "rows": 3}),
    ("connect4.game", {"columns": 5, "rows": 3}),
    ("tictactoe.game", {}),
    ("nim.game", {}),
    ("chomp.game", {}),
]


@pytest.mark.parametrize("file, params", ACYCLIC, ids=[f"{f}{p}" for f, p in ACYCLIC])
def test_any_number_of_threads_gives_the_same_tables_and_answers(file, params, tmp_path,
                                                                  monkeypatch):
    game = load(GAMES / file, params, "native")
    solution = assert_same_on_any_threads(game, tmp_path, monkeypatch)
    assert_same(solution, strong_solve(game, ranked=False))


# Moves inside a tier: the forward pass goes by rounds. Three men's morris has cycles inside its
# tiers; the rook ending's tier found from a sample is lowered by a move (-5, at the same move
# on any number of threads), and the whole game becomes one tier.
CYCLIC = [
    ("cyclic/three-mens-morris.game", {}),
    ("cyclic/rook-ending.game", {"size": 5}),
    ("cyclic/rounds.game", {}),
]


@pytest.mark.parametrize("file, params", CYCLIC, ids=[f"{f}{p}" for f, p in CYCLIC])
def test_moves_inside_a_tier_give_the_same_tables_on_any_threads(file, params, tmp_path,
                                                                  monkeypatch):
    game = load(GAMES / file, params, "native")
    solution = assert_same_on_any_threads(game, tmp_path, monkeypatch)
    assert any(r.inside for r in solution.records)       # the rounds were exercised
    assert not differences(solution, strong_solve(game, ranked=False))


def test_a_poor_sample_is_refined_the_same_way_on_any_threads(tmp_path, monkeypatch):
    # a misleading sample: the walk meets states the layout does not fit, each time the one at
    # the lowest slot (and move), so the refinements and the final layout are the same
    monkeypatch.setattr(rank, "BFS_SAMPLE", 12)
    monkeypatch.setattr(rank, "PLAYOUTS", 1)
    monkeypatch.setattr(rank, "PLAYOUT_PLIES", 1)
    real = rank.refine
    met: list = []

    def recorded(layout, declared, state, fixed, target, tables):
        met.append((state, fixed, target))
        return real(layout, declared, state, fixed, target, tables)

    monkeypatch.setattr(rank, "refine", recorded)
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 3}, "native")
    failures = {}
    for threads in THREADS:
        met.clear()
        solution = solved_on(game, threads, tmp_path, monkeypatch)
        failures[threads] = (list(met), repr(solution.layout))
    assert failures[1][0], "the sample was meant to mislead the first layout"
    assert failures[2] == failures[1] and failures[3] == failures[1]
    assert_same(solution, strong_solve(game, ranked=False))


def test_the_command_line_takes_the_ranked_tables_on_workers(tmp_path, capsys, monkeypatch):
    import gdl.graph

    monkeypatch.setattr(gdl.graph, "RANKED_MIN", 1000)      # Connect Four 4 x 3: 12,031
    rules = str(GAMES / "connect4.game")
    sets = ["--set", "columns=4", "--set", "rows=3"]
    documents = {}
    for workers in ("1", "2"):
        assert main(["solve", rules, *sets, "--strong", "--workers", workers, "--json",
                     "--save", str(tmp_path / f"{workers}.db")]) == 0
        documents[workers] = json.loads(capsys.readouterr().out)
    two = documents["2"]
    assert two["keys"] == "ranked" and two["workers"] == 2
    assert two["positions"] == 12031 and two["values"] == documents["1"]["values"]
    # the serial share: per pass, the threads' CPU seconds and the rest of the process's
    assert set(two["cpu"]) == {"forward", "backward"}
    assert all(set(lap) == {"coordinator", "tasks"} for lap in two["cpu"].values())
    assert (tmp_path / "2.db").read_bytes() == (tmp_path / "1.db").read_bytes()
