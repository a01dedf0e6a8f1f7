"""The corpus catalogue's harness, on a checkout of a KIF corpus named by GDL_KIF_CORPUS (the
``ggp-org/ggp-repository`` checkout, or its ``war/root/games``). gdl ships no corpus file, so
without the variable this test is skipped: it is for the machine that makes
docs/kif-catalogue.md (benchmarks/kif_corpus.py)."""

import json
import os
import sys
from pathlib import Path

import pytest

CORPUS = os.environ.get("GDL_KIF_CORPUS")
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not CORPUS, reason="GDL_KIF_CORPUS names no corpus checkout")


def harness():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import kif_corpus

    return kif_corpus


def test_every_game_is_read_or_refused_with_a_reason():
    from gdl.errors import GdlError
    from gdl.kif.check import read_description

    games = harness().games_under(Path(CORPUS))
    assert games
    read = 0
    for name, file in games:
        try:
            read_description(file.read_text(encoding="utf-8"), str(file))
            read += 1
        except GdlError as error:       # a refusal has a code and a message, never a traceback
            assert error.code[0] in "EK" and error.diagnostics[0].message, name
    assert read >= 0.8 * len(games)


def test_tictactoe_through_the_harness(tmp_path):
    kif_corpus = harness()
    games = dict(kif_corpus.games_under(Path(CORPUS)))
    if "ticTacToe" not in games:
        pytest.skip("no ticTacToe in this corpus")
    results = tmp_path / "results.json"
    catalogue = tmp_path / "catalogue.md"
    assert kif_corpus.main([CORPUS, "--only", "ticTacToe", "--timeout", "300",
                            "--json", str(results), "--markdown", str(catalogue)]) == 0
    result = json.loads(results.read_text())["ticTacToe"]
    assert result["solve"]["positions"] == 5478
    assert result["solve"]["values"] == {"xplayer": 50, "oplayer": 50}
    assert "| ticTacToe | 2 | alternating | solved | translated | 5,478 |" in catalogue.read_text()
