"""The long mutation-fuzzing run: mutants of every bundled game and docs example through the
formatter, the checker and both back ends (gdl/tools/mutate.py says what is compared).

    python benchmarks/mutation_fuzz.py                      # 5,000 mutants, seed 0 (~15 min)
    python benchmarks/mutation_fuzz.py --mutants 20000 --seed 3 --json report.json

Prints the figures the hardening issue asks for (tracebacks, unbounded runs, back-end
disagreements; all must be 0) and the first findings in full, and exits 1 if there are any.
The CI test (tests/test_mutation_fuzz.py) runs a bounded number of the same mutants.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gdl.generators.mutants import corpus
from gdl.tools.mutate import run_mutants

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=30.0,
                        help="seconds one mutant may take before it counts as unbounded")
    parser.add_argument("--states", type=int, default=200, help="states compared per mutant")
    parser.add_argument("--json", metavar="PATH", help="also write the figures and findings here")
    args = parser.parse_args(argv)
    sources = corpus(ROOT)
    print(f"{len(sources)} source files, {args.mutants:,} mutants, seed {args.seed}", flush=True)

    def progress(report) -> None:
        print(f"  {report.mutants:>6,} mutants  {report.seconds:7.0f} s  tracebacks {report.tracebacks}"
              f"  unbounded {report.unbounded}  disagreements {report.disagreements}",
              file=sys.stderr, flush=True)

    report = run_mutants(sources, args.mutants, seed=args.seed, time_limit=args.time_limit,
                         states=args.states, keep=20, progress=progress)
    figures = report.as_dict()
    print("  ".join(f"{key} {value:,}" if isinstance(value, int) else f"{key} {value}"
                    for key, value in figures.items()))
    for finding in report.findings:
        print(f"\n== {finding.kind} ({finding.origin}: {finding.mutation})\n{finding.detail}")
        print("-- mutant --\n" + finding.text)
    if args.json:
        Path(args.json).write_text(json.dumps({**figures, "seed": args.seed, "findings": [
            vars(f) for f in report.findings]}, indent=2), encoding="utf-8")
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
