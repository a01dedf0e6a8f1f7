"""The solvers of hidden information and simultaneous moves against the issue's goals (issue 27):

- Kuhn's poker solved exactly (goal: under 1 s);
- Leduc poker (936 information states): the sequence-form LP's value (goal: under 60 s) and its
  exact verification (goal: within 5 minutes);
- CFR+ to exploitability 10^-3 on Leduc (goal: under 60 s);
- CFR iterations per second on Leduc, gdl's numpy CFR against OpenSpiel's C++ CFR
  (``pyspiel.CFRSolver``) side by side, with both NashConv figures after the same iterations
  (the same algorithm on the same game must give the same number);
- outcome-sampling MCCFR iterations per second on Leduc, against OpenSpiel's Python one;
- Goofspiel with 5 cards (simultaneous moves) by exact backward induction.

The games are the Python protocol games of ``tests/imperfect_games.py`` (the rule language
cannot say them yet). Wall-clock seconds (``time.perf_counter``) of one run, except the
iteration rates, which are CPU time (``time.process_time``), median of three.

    python benchmarks/imperfect.py            # needs the imperfect extra; openspiel for the comparison
    python benchmarks/imperfect.py --quick    # fewer iterations, no OpenSpiel MCCFR
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from imperfect_games import Goofspiel, KuhnPoker, LeducPoker  # noqa: E402

from gdl.solvers import extensive  # noqa: E402
from gdl.solvers.cfr import cfr, cfr_plus  # noqa: E402
from gdl.solvers.mccfr import outcome_sampling  # noqa: E402
from gdl.solvers.sequence_form import solve_sequence_form  # noqa: E402
from gdl.solvers.simultaneous import solve_simultaneous  # noqa: E402


def wall(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - start, result


def cpu_median(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)

    seconds, kuhn = wall(solve_sequence_form, KuhnPoker())
    print(f"Kuhn poker, sequence-form LP: value {kuhn.value} ({'exact' if kuhn.exact else 'NOT'}"
          f" verified), exploitability {kuhn.exploitability.exploitability}, {seconds:.3f} s")

    seconds, leduc = wall(solve_sequence_form, LeducPoker())
    parts = ", ".join(f"{k} {v:.2f} s" for k, v in leduc.seconds.items())
    value = leduc.value if leduc.exact else None
    print(f"Leduc poker, sequence-form LP: {leduc.form.num_infosets} information states, "
          f"{leduc.form.histories:,} histories; LP value {leduc.lp_value:.12f}")
    if value is not None:
        print(f"  exact value {value} = {float(value):.12f}")
    else:
        print(f"  NOT verified exactly; certified bounds {[float(b) for b in leduc.bounds]}")
    print(f"  {leduc.note}; exploitability {leduc.exploitability.exploitability}")
    print(f"  total {seconds:.2f} s ({parts})")

    form = extensive.build(LeducPoker())
    seconds, plus = wall(cfr_plus, LeducPoker(), iterations=20_000, target=1e-3, form=form,
                         check_every=10)
    print(f"Leduc poker, CFR+ to exploitability 1e-3: {plus.iterations} iterations, "
          f"exploitability {float(plus.exploitability.exploitability):.6f} (exact for the "
          f"strategy returned), {seconds:.2f} s ({plus.iteration_seconds:.2f} s iterating)")

    n = 100 if args.quick else 500
    ours = cpu_median(lambda: cfr(LeducPoker(), iterations=n, form=form, check_every=n))
    mine = cfr(LeducPoker(), iterations=n, form=form, check_every=n)
    print(f"Leduc poker, CFR, {n} iterations: gdl (numpy) {n / mine.iteration_seconds:,.0f} "
          f"iterations/s in the loop ({ours:.2f} s CPU for the whole call, exact check included); "
          f"NashConv {float(mine.exploitability.nash_conv):.12f}")
    try:
        import pyspiel
        from open_spiel.python.algorithms import exploitability
    except ImportError:
        print("  OpenSpiel not installed: no comparison")
        pyspiel = None
    if pyspiel is not None:
        game = pyspiel.load_game("leduc_poker")
        holder = {}

        def theirs_run():
            solver = pyspiel.CFRSolver(game)
            for _ in range(n):
                solver.evaluate_and_update_policy()
            holder["solver"] = solver

        theirs = cpu_median(theirs_run)
        conv = exploitability.nash_conv(game, holder["solver"].average_policy())
        ratio = (n / mine.iteration_seconds) / (n / theirs)
        print(f"  OpenSpiel C++ CFRSolver: {n / theirs:,.0f} iterations/s ({theirs:.2f} s CPU); "
              f"NashConv {conv:.12f}; gdl/OpenSpiel rate {ratio:.1f}x")

    iterations = 2_000 if args.quick else 10_000
    rate = cpu_median(lambda: outcome_sampling(LeducPoker(), iterations=iterations, seed=1,
                                               max_histories=1), repeat=1)
    print(f"Leduc poker, outcome-sampling MCCFR: {iterations / rate:,.0f} iterations/s "
          f"(one sampled play per player each)")
    if pyspiel is not None and not args.quick:
        from open_spiel.python.algorithms import outcome_sampling_mccfr

        solver = outcome_sampling_mccfr.OutcomeSamplingSolver(pyspiel.load_game("leduc_poker"))
        spent = cpu_median(lambda: [solver.iteration() for _ in range(2_000)], repeat=1)
        print(f"  OpenSpiel's Python OutcomeSamplingSolver: {2_000 / spent:,.0f} iterations/s")

    seconds, goof = wall(solve_simultaneous, Goofspiel(5))
    print(f"Goofspiel 5 (simultaneous moves), exact backward induction: value {goof.value}, "
          f"{len(goof.bounds):,} positions, {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
