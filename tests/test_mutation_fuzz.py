"""Mutation fuzzing, bounded for CI: mutants of the bundled games and docs examples must give
located errors or games on which both back ends agree, never a traceback or an endless run
(gdl/tools/mutate.py; the long run is benchmarks/mutation_fuzz.py). The fuzzer's teeth are
tested too: each kind of failure, planted, is found."""

import time

import pytest
from helpers import ROOT

from gdl.generators import mutants
from gdl.tools import mutate

TINY = ('game "tiny"\nplayers A, B\nvar n in 0..5 = 0\naction go requires n < 5 effect n = n + 1\n'
        'terminal n == 5\nutility A = n - 2\nzero-sum\n')


@pytest.fixture(scope="module")
def sources():
    found = mutants.corpus(ROOT)
    assert len(found) >= 12          # every bundled game, and the docs' whole examples
    return found


def test_mutants_give_no_traceback_no_hang_no_disagreement(sources):
    report = mutate.run_mutants(sources, 150, seed=2024, time_limit=30.0, states=100)
    details = "\n\n".join(f"{f.kind} {f.origin} ({f.mutation}): {f.detail}\n{f.text}"
                          for f in report.findings)
    assert report.clean, details
    assert report.mutants == 150
    assert report.loaded >= 20 and report.refused >= 20     # both paths were exercised


def test_mutations_are_deterministic(sources):
    import random

    text = sources[0][1]
    first = [mutants.mutate(text, random.Random(f"7:{i}"), [text]) for i in range(20)]
    again = [mutants.mutate(text, random.Random(f"7:{i}"), [text]) for i in range(20)]
    assert first == again
    assert len({m for m, _ in first}) > 10


def test_a_planted_traceback_is_found(monkeypatch):
    import gdl.lang.parse as parse

    huge = TINY.replace("0..5 = 0", "0..5 = 0\nconst K = 1" + "0" * 5000)
    assert mutate.check_mutant(huge)[0] == "refused"
    monkeypatch.setattr(parse, "MAX_LITERAL_DIGITS", 10 ** 9)   # the bound the fix added, gone
    result, detail, _ = mutate.check_mutant(huge)
    assert result == "traceback"
    assert "ValueError" in detail


def test_a_planted_disagreement_is_found(monkeypatch):
    from gdl.backends.runtime import CompiledGame

    assert mutate.check_mutant(TINY)[0] == "loaded"
    original = CompiledGame.__init__

    def off_by_one(self, *args, **kwargs):
        original(self, *args, **kwargs)
        returns = self.returns
        self.returns = lambda state: tuple(v + 1 for v in returns(state))

    monkeypatch.setattr(CompiledGame, "__init__", off_by_one)
    result, detail, _ = mutate.check_mutant(TINY)
    assert result == "disagreement"
    assert "returns" in detail


def test_a_planted_hang_is_found(monkeypatch):
    import gdl.lang.check as check

    original = check.check

    def slow(*args, **kwargs):
        time.sleep(5)
        return original(*args, **kwargs)

    monkeypatch.setattr(check, "check", slow)
    report = mutate.run_mutants([("tiny", TINY)], 1, time_limit=0.5)
    assert report.unbounded == 1
    assert report.findings[0].kind == "unbounded"
