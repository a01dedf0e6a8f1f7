"""`gdl solve --strong` by tiers (`--workers N`, `--scheduler ADDRESS`, `--tier-dir DIR`,
`--resume`): the command-line side of gdl.graph.tiers (docs/tiers.md)."""

from __future__ import annotations

import functools
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from gdl.cli import UsageError, load_game, parse_sets, print_json
from gdl.protocol import format_value, json_value


def wants_tiers(args) -> bool:
    return bool(args.workers or args.scheduler or args.tier_dir or args.resume)


def tier_violation(game, error):
    """A move that lowers the tier, as a located error at the `tier` declaration, with the
    moves that reach the position it leaves."""
    from gdl.errors import Diagnostic, GdlError
    from gdl.moves import path_to
    from gdl.span import NOWHERE

    ir = getattr(game, "ir", None)
    span = ir.spans.get("tier", NOWHERE) if ir is not None else NOWHERE
    path = path_to(game, error.state)
    reached = ("the start" if path == [] else "moves " + " ".join(path) if path
               else "a position more than a million positions from the start")
    notes = (f"the position is reached by: {reached}",
             f"then {game.action_name(error.action)} leads to tier {error.to_tier}")
    return GdlError(Diagnostic("E413", str(error), span, notes=notes,
                               hint="declare a tier that no move lowers (a count that only "
                                    "grows), or remove `tier`"),
                    getattr(game, "source", None))


def resumable(directory: Path) -> str:
    """What an interrupted solve leaves in its tier directory, and how to go on."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"nothing to resume was written to {directory} yet"
    if "tiers" not in manifest:
        found = len(manifest.get("found", []))
        done = f"the forward pass had found {found} tier(s)"
    else:
        done = f"{len(manifest.get('solved', {}))} of {len(manifest['tiers'])} tiers were solved"
    return (f"{done}; they are kept in {directory}: run the same command with --resume to go "
            "on from there")


def cmd_tiered(args, game) -> int:
    from gdl.cli import moves_arg
    from gdl.cli.strong import DRAW, binding, certified_json, certified_lines, progress_line
    from gdl.graph.executor import make_executor
    from gdl.graph.tiers import TierViolation, byte_passes, merge_database, tiered_solve

    if moves_arg(args) or args.position:
        raise UsageError("a solve by tiers (--workers, --scheduler, --tier-dir, --resume) "
                         "covers the whole game; it cannot start after --moves or --position")
    params = parse_sets(args.set)
    bound = binding(args.file, params)
    explicit = args.tier_dir is not None
    if explicit:
        directory = Path(args.tier_dir)
    elif args.save is not None:
        directory = Path(args.save + ".tiers")     # kept when interrupted: --resume finds it
    else:
        directory = Path(tempfile.mkdtemp(prefix="gdl-tiers-"))
    if args.resume and not (directory / "manifest.json").exists():
        raise UsageError(f"--resume: {directory} holds no interrupted solve (no manifest.json)")
    source = functools.partial(load_game, args.file, params, args.backend)
    report, erase = progress_line()
    started = time.perf_counter()
    executor = None
    try:
        executor = make_executor(args.workers or 1, args.scheduler)
        solution = tiered_solve(game, directory, binding=bound, source=source,
                                executor=executor, resume=args.resume, progress=report,
                                prepare_merge=args.save is not None)
    except TierViolation as error:
        erase()
        raise tier_violation(game, error) from None
    except OSError as error:
        erase()
        raise UsageError(f"{directory}: {error.strerror or error}") from None
    except BaseException as error:   # Ctrl-C included: a temporary directory cannot be resumed
        if not explicit and args.save is None:
            shutil.rmtree(directory, ignore_errors=True)
        elif isinstance(error, KeyboardInterrupt):
            erase()
            print(f"gdl solve: {resumable(directory)}", file=sys.stderr)
        raise
    finally:
        erase()
        if executor is not None:
            executor.close()
    elapsed = time.perf_counter() - started
    size = None
    if args.save is not None:
        try:
            size = merge_database(solution, args.save, bound, source=args.file)
        except OSError as error:
            raise UsageError(f"--save {args.save}: {error.strerror or error}") from None
    from gdl.graph.chance_tiers import certified_interval, win_probability

    root = solution.lookup(game.initial_state())
    interval = certified_interval(solution, game.initial_state())   # read from the tier files
    chance_of_win = win_probability(solution, game.initial_state())
    if not explicit:
        shutil.rmtree(directory, ignore_errors=True)
    values, remoteness = root if root is not None else (None, -1)
    players = game.info.players
    workers = ("a Dask cluster" if args.scheduler
               else f"{args.workers or 1} thread(s)" if solution.ranked is not None
               else f"{args.workers or 1} worker(s)")
    if args.json:
        print_json({
            "game": game.info.name, "players": list(players),
            "values": None if values is None else {p: json_value(v)
                                                   for p, v in zip(players, values)},
            "remoteness": None if remoteness < 0 else remoteness,
            "algorithm": solution.method, "exact": solution.exact, "proven": solution.exact,
            "strong": True, "tiers": len(solution.tiers), "positions": solution.positions,
            "keys": solution.run.manifest.get("keys"),
            "workers": args.workers or 1, "scheduler": args.scheduler,
            "seconds": {k: round(v, 6) for k, v in solution.seconds.items()},
            # per pass: the coordinator's CPU seconds and its tasks' (the serial share); on
            # ranked tables the tasks are the threaded passes in C, the rest the coordinator
            "cpu": solution.cpu,
            **certified_json(players, interval, chance_of_win, width=True),
        })
    else:
        print(f"{args.file}: {game.info.name}")
        label = solution.method + ("" if solution.exact else f" (not exact: {solution.note})")
        keys = ("ranked tables (native rules, a code of 1-2 bytes a position)"
                if solution.ranked is not None
                else "native rules on packed keys" if solution.run.native is not None
                else "native rules on byte keys" if byte_passes(game) is not None
                else "the protocol")
        print(f"  algorithm     {label}, a tier at a time on {workers}, through {keys}")
        if values is None:
            print(f"  value         {DRAW}")
        else:
            print("  value         " + ", ".join(f"{p} {format_value(v)}"
                                                 for p, v in zip(players, values)))
        for line in certified_lines(players, interval, chance_of_win, width=True):
            print(line)
        if remoteness >= 0:
            print(f"  remoteness    {remoteness}")
        print(f"  positions     {solution.positions:,} in {len(solution.tiers)} tiers")
        times = "  ".join(f"{k} {v:.2f} s" for k, v in solution.seconds.items())
        print(f"  time          {times}  total {elapsed:.2f} s")
    if size is not None:
        print(f"  saved         {args.save}: {solution.positions:,} positions, {size:,} bytes "
              f"({size / max(1, solution.positions):.2f} bytes a position)",
              file=sys.stderr if args.json else sys.stdout)
    return 0
