"""The long agreement run on games that can repeat a position: the strong solver against the
independent oracle of tests/oracle_cyclic.py, at every position of every generated game.

    python benchmarks/fuzz_cyclic.py                         # 10,000 games, seed 0
    python benchmarks/fuzz_cyclic.py --games 2000 --seed 3 --workers 2 --out findings/

The games are shared among six kinds (explicit graphs without and with `when endless`, graphs
with chance that stop and that may not, rule files without and with chance; see KINDS). For
each it prints the games and positions checked and the games with a disagreement, by what
disagreed (value, class, remoteness, optimal actions, census, the exact label); then, for each
kind and each thing that disagreed, a minimal reproduction: the example shrunk by hypothesis,
as a rule file (written to --out), with the disagreements on it. Exits 1 if there is any.
tests/test_cyclic_agreement.py runs the same comparison with a small budget.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from oracle_cyclic import OracleError, TooBig, disagreements, judge  # noqa: E402

from gdl.graph import strong_solve  # noqa: E402
from gdl.tools.fuzz import Problem, run_property  # noqa: E402


def kinds() -> dict:
    from gdl.generators.cyclic import cyclic_graphs, cyclic_rule_games

    return {
        "graphs": cyclic_graphs(chance=False, endless=False),
        "graphs, when endless": cyclic_graphs(chance=False, endless=True),
        "graphs with chance that stop": cyclic_graphs(chance=True, stopping=True),
        "graphs with chance": cyclic_graphs(chance=True),
        "rule files": cyclic_rule_games(chance=False),
        "rule files with chance": cyclic_rule_games(chance=True),
    }


KINDS = ("graphs", "graphs, when endless", "graphs with chance that stop", "graphs with chance",
         "rule files", "rule files with chance")

CATEGORY = re.compile(r"^position .*?: (value|class|remoteness|optimal actions) ")


def category(problem: str) -> str:
    found = CATEGORY.match(problem)
    if found:
        return found[1]
    for word in ("census", "values labelled not exact", "values labelled exact", "missing"):
        if word in problem:
            return word
    return "other"


def game_of(example):
    """The game to solve: an explicit graph is its own game, a rule file is interpreted."""
    return example if hasattr(example, "kinds") else example.game


def check(example, only: str | None = None) -> tuple[list[str], int, str | None]:
    """(disagreements, positions, the oracle's own failure if any) on one example."""
    game = game_of(example)
    try:
        verdict = judge(game)
    except TooBig as big:
        return [], 0, f"too big for the oracle: {big}"
    except OracleError as error:
        return [], 0, f"oracle error: {error}"
    problems = disagreements(game, strong_solve(game), verdict)
    if only is not None:
        problems = [p for p in problems if category(p) == only]
    return problems, len(verdict.nodes), None


def run_kind(name: str, games: int, seed: int) -> dict:
    """Check ``games`` examples of one kind; every example is run, failing or not."""
    tally: dict = {"games": 0, "positions": 0, "disagreeing": 0, "by": Counter(),
                   "oracle": [], "seconds": 0.0}
    started = time.perf_counter()

    def record(example) -> list:
        problems, positions, trouble = check(example)
        tally["games"] += 1
        tally["positions"] += positions
        if trouble is not None:
            tally["oracle"].append((trouble, text_of(example)))
        if problems:
            tally["disagreeing"] += 1
            tally["by"].update({category(p) for p in problems})
        return []          # never stop: every example is counted

    run_property(kinds()[name], record, examples=games, seed=seed, shrink=False)
    tally["seconds"] = time.perf_counter() - started
    return tally


def text_of(example) -> str:
    return example.text


def shrunk(name: str, what: str, games: int, seed: int):
    """The smallest example of kind ``name`` on which ``what`` disagrees (hypothesis shrinks)."""

    def failing(example) -> list:
        problems, _, _ = check(example, only=what)
        return [Problem("cyclic", "graph", p) for p in problems]

    return run_property(kinds()[name], failing, examples=games, seed=seed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in all (default 10,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1,
                        help="processes; worker w uses seed S + w (default 1)")
    parser.add_argument("--kind", action="append", choices=KINDS,
                        help="only these kinds (repeatable)")
    parser.add_argument("--out", default="fuzz-cyclic", metavar="DIR",
                        help="where the minimal reproductions are written (default fuzz-cyclic/)")
    args = parser.parse_args(argv)
    chosen = list(args.kind or KINDS)
    share = [args.games // len(chosen) + (i < args.games % len(chosen))
             for i in range(len(chosen))]
    print(f"{args.games:,} generated games, seed {args.seed}, {args.workers} worker(s)",
          flush=True)
    jobs = [(name, count // args.workers + (w < count % args.workers), args.seed + w)
            for name, count in zip(chosen, share) for w in range(args.workers)]
    jobs = [job for job in jobs if job[1] > 0]
    if args.workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=args.workers, mp_context=context) as pool:
            results = list(pool.map(run_kind, *zip(*jobs)))
    else:
        results = [run_kind(*job) for job in jobs]
    totals: dict = {}
    for (name, _, _), tally in zip(jobs, results):
        total = totals.setdefault(name, {"games": 0, "positions": 0, "disagreeing": 0,
                                         "by": Counter(), "oracle": [], "seconds": 0.0})
        for key in ("games", "positions", "disagreeing", "seconds"):
            total[key] += tally[key]
        total["by"] += tally["by"]
        total["oracle"] += tally["oracle"]
    clean = True
    for name, total in totals.items():
        by = ", ".join(f"{what} {count:,}" for what, count in sorted(total["by"].items()))
        print(f"  {name:<30} {total['games']:>6,} games {total['positions']:>8,} positions  "
              f"disagreeing {total['disagreeing']:,}" + (f" ({by})" if by else "")
              + (f"  oracle errors {len(total['oracle'])}" if total["oracle"] else "")
              + f"  {total['seconds']:.0f} s", flush=True)
        clean = clean and not total["disagreeing"] and not total["oracle"]
    out = Path(args.out)
    for name, total in totals.items():
        for trouble, text in total["oracle"][:3]:
            print(f"\n== {name}: {trouble}\n{text}")
        shown: set[str] = set()
        for what in sorted(total["by"]):
            outcome = shrunk(name, what, min(total["games"], 2000), args.seed)
            if outcome.example is None:
                print(f"\n== {name}: {what} (seen, but not found again with seed {args.seed})")
                continue
            out.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^a-z0-9]+", "-", f"{name} {what}".lower()).strip("-")
            path = out / f"{stem}.game"
            text = outcome.example.text
            path.write_text("".join(f"# {p.message}\n" for p in outcome.problems[:12]) + text,
                            encoding="utf-8")
            print(f"\n== {name}: {what} (minimal example, written to {path}; "
                  f"gdl solve {path} --strong shows the solver's answer)")
            if text not in shown:       # the same example may show several things
                shown.add(text)
                if hasattr(outcome.example, "kinds"):
                    print(repr(outcome.example))
                print(text.rstrip())
            else:
                print("(the example above)")
            for problem in outcome.problems[:12]:
                print(f"  {problem.message}")
    print("\nno disagreement" if clean else "\nDISAGREEMENT")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
