"""`gdl fuzz`: do all the solvers agree? (The engine is gdl.tools.fuzz; this module only prints.)"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from gdl.cli import UsageError, parse_sets, print_json, read_rule_text, whole

TARGET_WORDS = {"trees2": "trees, two players", "chance": "trees with chance",
                "trees3": "trees, three players", "rules": "rule files",
                "transpositions": "transpositions", "cyclic": "cyclic games"}


def _output_directory(directory: Path) -> Path:
    """``--out``, created 0700 where missing (and its missing parents), when nobody else can
    change what is in it: it is this user's, writable by nobody else, on a way where nobody
    else can rename anything (gdl.cache.unsafe_ancestor). Elsewhere (a shared directory,
    /tmp itself, another user's) a planted symbolic link would take the counterexample
    wherever its owner chose, so it goes to a fresh private directory instead, and stderr
    says where and why (docs/security.md)."""
    import os
    import stat
    import tempfile

    from gdl.cache import unsafe_ancestor
    from gdl.errors import terminal_safe

    missing = []
    place = directory
    while not os.path.lexists(place) and place != place.parent:
        missing.append(place)
        place = place.parent
    problem = unsafe_ancestor(place)
    if problem is None:
        try:
            for made in reversed(missing):
                try:
                    made.mkdir(mode=0o700)
                except FileExistsError:
                    pass
            info = os.stat(directory)
        except OSError as error:
            raise UsageError(f"--out {terminal_safe(str(directory))}: "
                             f"{error.strerror or error}") from None
        problem = (f"{directory} is not a directory" if not stat.S_ISDIR(info.st_mode) else
                   f"{directory} belongs to another user" if info.st_uid != os.getuid() else
                   f"{directory} is writable by other users"
                   if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) else
                   unsafe_ancestor(directory))
    if problem is None:
        return directory
    fallback = Path(tempfile.mkdtemp(prefix="gdl-fuzz-"))
    print(f"gdl fuzz: --out: {terminal_safe(problem)}, so another user could redirect what is "
          f"written there; counterexamples go to {fallback} instead (give --out a directory of "
          "yours that nobody else can write)", file=sys.stderr)
    return fallback


def _write_counterexample(directory: Path, stem: str, failure, args, kind: str) -> tuple[Path, str]:
    generated = kind == "generated"
    suffix = failure.suffix
    comment = ";" if suffix == ".kif" else "#"
    path = directory / f"{stem}{suffix}"
    number = 1
    while path.exists():
        number += 1
        path = directory / f"{stem}-{number}{suffix}"
    if generated:
        reproduce = f"gdl fuzz {shlex.quote(str(path))}"
    else:
        reproduce = (f"gdl fuzz {shlex.quote(failure.target)} --examples {args.examples} "
                     f"--seed {failure.seed}" + (" --openspiel" if kind == "openspiel" else "")
                     + "".join(f" --set {shlex.quote(s)}" for s in args.set))
    header = [f"{comment} gdl fuzz counterexample ({failure.target}, seed {failure.seed})"]
    if failure.position:
        header.append(f"{comment} position: after {' '.join(failure.position)}")
    elif failure.every_position:
        header.append(f"{comment} positions: every one (the game can repeat a position)")
    elif not generated:
        header.append(f"{comment} position: the initial state")
    if failure.depth is not None:
        header.append(f"{comment} depth limit: {failure.depth}")
    header += [f"{comment}   {line}" for p in failure.problems[:12] for line in str(p).splitlines()]
    header.append(f"{comment} reproduce: {reproduce}")
    path.write_text("\n".join(header) + "\n" + failure.text, encoding="utf-8")
    return path, reproduce


def cmd_fuzz(args) -> int:
    try:
        import hypothesis  # noqa: F401 - the generators (gdl.generators) draw with it

        from gdl.tools.fuzz import NothingToCompare, TooBigToCheck, fuzz_file, fuzz_generated
    except ImportError as error:
        raise UsageError(f"gdl fuzz needs the hypothesis package ({error}); "
                         "install it with: pip install hypothesis") from None
    from gdl.tools.count import EndlessGame

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    params = parse_sets(args.set)
    out = Path(args.out)
    summaries = []
    crosscheck = _openspiel_crosscheck() if args.openspiel else None
    if args.openspiel and not args.files:
        raise UsageError("--openspiel needs FILE arguments")
    if args.files:
        for file in args.files:
            read_rule_text(file)    # a file that cannot be read is a usage error, before any work
        for file in args.files:
            wide = _is_wide(file, params)
            try:
                summaries.append(("file", fuzz_file(file, args.examples, args.seed, args.workers,
                                                    args.budget, params or None,
                                                    openspiel_cfr if wide and args.openspiel
                                                    else None)))
            except EndlessGame as endless:
                raise UsageError(f"{file}: {endless}, and it has more than two players or no "
                                 "constant sum: no solver of gdl values such a game, so there is "
                                 "nothing to compare (give it a max-length)") from None
            except TooBigToCheck as big:
                raise UsageError(f"{file}: {big}; make it smaller with --set") from None
            except NothingToCompare as nothing:
                raise UsageError(str(nothing)) from None
            if crosscheck is not None and not wide:     # a wide game's CFR is compared above
                summaries.append(("openspiel", _run_crosscheck(crosscheck, file, args, params)))
    else:
        if params:
            raise UsageError("--set needs FILE arguments")
        targets = [TARGET_WORDS[t] for t in args.target] if args.target else None
        summaries.append(("generated", fuzz_generated(args.examples, args.seed, args.workers,
                                                      targets)))
    written = []
    if any(summary.failures for _, summary in summaries):
        out = _output_directory(out)          # once: a fallback is made and explained once
    for kind, summary in summaries:
        for failure in summary.failures:
            stem = f"fuzz-counterexample-seed{failure.seed}"
            path, reproduce = _write_counterexample(out, stem, failure, args, kind)
            written.append((failure, path, reproduce))
    ok = all(summary.ok for _, summary in summaries)

    if args.json:
        print_json({
            "ok": ok, "seed": args.seed, "examples": args.examples, "workers": args.workers,
            "runs": [{
                "kind": kind, "seconds": round(summary.seconds, 3),
                "targets": {name: {
                    "examples": r.examples, "games": r.games, "positions": r.positions,
                    "depth_limited": r.depth_limited, "skipped": r.skipped,
                    "solver_comparisons": r.comparisons, "metamorphic_comparisons": r.metamorphic,
                    "backend_states": r.backend_states, "solvers": sorted(r.solvers),
                    "every_position": r.cyclic,
                    "whole_game": _wide_document(r.wide),
                    "seconds": round(r.seconds, 3)} for name, r in summary.targets.items()},
            } for kind, summary in summaries],
            "failures": [{"target": f.target, "seed": f.seed, "first_failure": f.first_failure,
                          "position": list(f.position), "depth": f.depth,
                          "problems": [{"kind": p.kind, "solver": p.solver, "message": p.message}
                                       for p in f.problems],
                          "file": str(path), "reproduce": reproduce}
                         for f, path, reproduce in written],
        })
        return 0 if ok else 1

    for kind, summary in summaries:
        what = {"generated": "generated games", "openspiel": "positions against OpenSpiel"}.get(
            kind, "positions")
        if kind == "file" and all(r.wide for r in summary.targets.values()):
            print(f"gdl fuzz: {len(summary.targets)} game(s) with simultaneous moves or hidden "
                  f"information, seed {summary.seed}")
        elif kind == "file" and all(r.cyclic for r in summary.targets.values()):
            print(f"gdl fuzz: {len(summary.targets)} game(s) that can repeat a position, "
                  f"{summary.workers} worker(s)")
        else:
            print(f"gdl fuzz: {summary.examples} {what}, seed {summary.seed}, "
                  f"{summary.workers} worker(s)")
        solvers = set()
        for name, r in summary.targets.items():
            solvers |= r.solvers
            if r.wide is not None:
                _print_wide(name, r, any(f.target == name for f in summary.failures))
                continue
            if r.cyclic:
                print(f"  {name}: the game can repeat a position: its strong solve checked at "
                      f"every position ({r.positions:,}) against the reference, the interpreter "
                      f"and the position database; {r.backend_states:,} states compiled vs "
                      "interpreted")
                continue
            line = (f"  {name:<22} {r.games:>6,} game(s) {r.positions:>7,} position(s) "
                    f"{r.comparisons:>9,} solver runs vs the oracle")
            if r.metamorphic:
                line += f"  {r.metamorphic:,} after renaming/reordering/affine changes"
            if r.backend_states:
                line += f"  {r.backend_states:,} states compiled vs interpreted"
            if r.depth_limited or r.skipped:
                line += f"  ({r.depth_limited:,} depth-limited, {r.skipped:,} too big, skipped)"
            print(line)
        print(f"  solvers: {', '.join(sorted(solvers))}")
        print(f"  {'no disagreement' if summary.ok else 'DISAGREEMENT'} "
              f"({summary.seconds:.1f} s)")
    for failure, path, reproduce in written:
        where = (f", first seen at example {failure.first_failure}, shrunk"
                 if failure.first_failure else "")
        if failure.position:
            where += f", after {' '.join(failure.position)}"
        if failure.depth is not None:
            where += f", depth {failure.depth}"
        print(f"\ndisagreement in {failure.target} (seed {failure.seed}{where}):", file=sys.stderr)
        for problem in failure.problems[:12]:
            print(f"  {problem}", file=sys.stderr)
        if len(failure.problems) > 12:
            print(f"  ... and {len(failure.problems) - 12} more", file=sys.stderr)
        print(f"  counterexample: {path}", file=sys.stderr)
        print(f"  reproduce: {reproduce}", file=sys.stderr)
    return 0 if ok else 1


def _is_wide(file: str, params: dict) -> bool:
    """Whether a rule file has simultaneous moves or hidden information (a file that does not
    check is left for the fuzzer to report)."""
    from gdl.backends.load import loads
    from gdl.errors import GdlError

    try:
        info = loads(read_rule_text(file), file, params or None, backend="interpret").info
    except GdlError:
        return False
    return info.hidden or info.simultaneous


def _wide_figure(value) -> str:
    from fractions import Fraction

    from gdl.protocol import format_value

    if isinstance(value, (int, Fraction)):
        return format_value(value)
    return f"{value:.6g}"


def _print_wide(name: str, r, failed: bool) -> None:
    """What each solver gave on a game with simultaneous moves or hidden information."""
    figures = r.wide
    print(f"  {name}: the whole game written out ({figures.histories:,} histories, "
          f"{figures.information_states:,} information states), its solvers compared")
    if r.backend_states:
        print(f"    {r.backend_states:,} states compiled vs interpreted, observations included")
    for run in figures.runs:
        label = "exact" if run.exact else (f"{run.iterations:,} iterations" if run.iterations
                                           else "approximate")
        gap = "exploitability" if r.wide.exact_value is not None else "NashConv"
        print(f"    {run.solver:<15} {label:<17} value {_wide_figure(run.value):<12} "
              f"{gap} {_wide_figure(run.exploitability)}")
    if figures.exact_value is not None and not failed:
        print(f"    every iterative answer brackets the exact value "
              f"{_wide_figure(figures.exact_value)}, as it must, and CFR+ converges")
    for note in figures.notes:
        print(f"    {note}")


def _wide_document(figures) -> dict | None:
    if figures is None:
        return None
    from gdl.protocol import json_value

    def number(value):
        return value if isinstance(value, float) else json_value(value)

    return {"information_states": figures.information_states, "histories": figures.histories,
            "exact_value": None if figures.exact_value is None else json_value(figures.exact_value),
            "runs": [{"solver": run.solver, "iterations": run.iterations, "exact": run.exact,
                      "value": number(run.value), "exploitability": number(run.exploitability)}
                     for run in figures.runs],
            "notes": list(figures.notes)}


def openspiel_cfr(game, iterations: int):
    """OpenSpiel's own CFR (``pyspiel.CFRSolver``) on ``game`` through the bridge, for `gdl
    fuzz --openspiel` on a game with simultaneous moves or hidden information: (NashConv,
    expected values) of its average policy after ``iterations``. NotCompared, with the reason,
    where OpenSpiel or the bridge cannot take the game as it is (a bridge that showed every
    player the whole state would hand OpenSpiel another game)."""
    from gdl.tools.fuzz import NotCompared

    try:
        import pyspiel

        from gdl.bridges.openspiel import from_game
    except ImportError as error:
        raise NotCompared(f"OpenSpiel is not installed ({error}; pip install "
                          "'gdl[openspiel]')") from None
    try:
        spiel = from_game(game)
    except Exception as error:
        raise NotCompared(f"the OpenSpiel bridge cannot take the game ({error})") from None
    kind = spiel.get_type()
    if game.info.hidden and kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        raise NotCompared("the OpenSpiel bridge gives OpenSpiel this game with perfect "
                          "information (every player seeing the whole state), so OpenSpiel's "
                          "CFR would solve another game")
    simultaneous = kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    if (game.info.simultaneous and not simultaneous
            and kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION):
        raise NotCompared("the OpenSpiel bridge gives OpenSpiel this game's moves one after the "
                          "other, in the open, so OpenSpiel's CFR would solve another game")
    if simultaneous:
        spiel = pyspiel.convert_to_turn_based(spiel)
    solver = pyspiel.CFRSolver(spiel)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    return (pyspiel.nash_conv(spiel, policy),
            tuple(pyspiel.expected_returns(spiel.new_initial_state(), policy, -1, True)))


def _openspiel_crosscheck():
    """gdl.bridges.crosscheck.crosscheck_file, or a usage error naming the extra to install."""
    try:
        from gdl.bridges.crosscheck import crosscheck_file
    except ImportError as error:
        raise UsageError(f"--openspiel needs OpenSpiel ({error}); install it with "
                         "pip install 'gdl[openspiel]'") from None
    return crosscheck_file


def _run_crosscheck(crosscheck_file, file: str, args, params):
    from gdl.bridges.encoding import EncodingError

    try:
        return crosscheck_file(file, args.examples, args.seed, args.budget, params or None)
    except EncodingError as error:
        raise UsageError(f"--openspiel: {error}") from None


def register(commands) -> None:
    fuzz = commands.add_parser(
        "fuzz", help="check that every solver agrees, on generated games or on FILEs",
        description="Without FILE: generate explicit trees and rule files (hypothesis, fixed "
                    "seed) and check that every applicable solver and engine option gives the "
                    "oracle's values and optimal actions, that renaming, reordering and affine "
                    "changes of utilities behave, and that compiled equals interpreted; and "
                    "games that can repeat a position, whose strong solve is checked at every "
                    "position. With FILEs: the same at positions reached by seeded random "
                    "playouts of each game, or, for a game that can repeat a position, its "
                    "strong solve at every position, or, for a game with simultaneous moves or "
                    "hidden information, its solvers on the whole game (the exact sequence form "
                    "and simultaneous solver, CFR+, CFR, MCCFR; OpenSpiel's CFR with "
                    "--openspiel). A disagreement is shrunk and written as a .game file; exit "
                    "status 1.",
        epilog="Example: gdl fuzz --examples 2000 --seed 1 --workers 2")
    fuzz.add_argument("files", nargs="*", metavar="FILE", help="rule files to fuzz (optional)")
    fuzz.add_argument("--examples", type=whole(1), default=200, metavar="N",
                      help="generated games in all, or positions per FILE (default 200)")
    fuzz.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    fuzz.add_argument("--workers", type=whole(1), default=1, metavar="N",
                      help="processes; worker w uses seed S + w (default 1)")
    fuzz.add_argument("--budget", type=whole(1), default=2000, metavar="NODES",
                      help="FILE mode: largest game tree solved in full at a position "
                           "(default 2000 nodes)")
    fuzz.add_argument("--target", action="append", choices=sorted(TARGET_WORDS),
                      help="generated mode: only these kinds of game (repeatable)")
    fuzz.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                      help="override a `param` of the FILEs")
    fuzz.add_argument("--out", default=".", metavar="DIR",
                      help="where counterexamples are written (default: the current directory)")
    fuzz.add_argument("--openspiel", action="store_true",
                      help="FILE mode: also solve the positions with OpenSpiel's own searches "
                           "through gdl.bridges.openspiel (two-player zero-sum games; needs the "
                           "openspiel extra); on a game with simultaneous moves or hidden "
                           "information, OpenSpiel's CFR")
    fuzz.add_argument("--json", action="store_true", help="one JSON document on stdout")
    fuzz.set_defaults(run=cmd_fuzz)
