"""The alpha-beta engine's switches on the command line (`gdl solve`), and how its results read.

``add_engine_arguments(parser)`` adds ``--time``, ``--nodes``, ``--tt-size`` and one
``--X/--no-X`` pair per technique (argparse.BooleanOptionalAction; a switch not given keeps the
default of ``gdl.solvers.default_options``). ``engine_settings(args, algorithm)`` turns them into
``(SearchOptions | None, Budget | None)``, refusing them (UsageError, exit 2) for any algorithm
but alpha-beta, except ``--tt/--no-tt``, which ``table_switch`` gives every other tree solver.
``proof_note`` / ``stats_lines`` / ``stats_document`` render a result's
statistics (the warning about a full transposition table is ``deep.solve_result_notes``), with the
tier that computed it (``tier_of``: native or python); ``tier_note`` is the line that says when
a switch keeps a search out of the native tier, and why.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from gdl.cli import UsageError, seconds, whole

# (flag, SearchOptions field, help)
TECHNIQUES = (
    ("tt", "tt", "transposition table (alpha-beta: on by default; every other tree solver: a "
            "table keyed by position and depth left, off by default)"),
    ("ordering", "ordering", "move ordering: the table's move, then children by the game's evaluate"),
    ("killers", "killers", "killer moves (two per ply)"),
    ("history", "history", "history heuristic"),
    ("id", "iterative_deepening", "iterative deepening (needs the game's evaluate)"),
    ("aspiration", "aspiration", "aspiration windows around the previous iteration's value"),
    ("pvs", "pvs", "principal variation search (null-window tests after the first child)"),
    ("quiescence", "quiescence", "search on past the horizon where the rules say `quiet when` is false"),
    ("optimal-set", "optimal_set", "prove every optimal first move (on by default; --no-optimal-set: "
                                   "the value and one optimal move, in fewer nodes)"),
)


# Two lists of this many slots are allocated up front (8 bytes a slot): 1 GiB at the most.
MAX_TT_SIZE = 1 << 26

def add_engine_arguments(parser) -> None:
    group = parser.add_argument_group(
        "alpha-beta engine (switches not given keep the defaults: gdl.solvers.default_options; "
        "the native tier runs --tt, --tt-size, --ordering, --pvs, --optimal-set and "
        "--evaluation-plies, the others keep the search in the Python tier and say so)")
    group.add_argument("--time", type=seconds, metavar="SECONDS",
                       help="stop after SECONDS; answer with the deepest completed iteration")
    group.add_argument("--nodes", type=whole(1), metavar="N",
                       help="stop after N nodes; answer with the deepest completed iteration")
    for flag, field, text in TECHNIQUES:
        group.add_argument(f"--{flag}", dest=f"engine_{field}", default=None,
                           action=argparse.BooleanOptionalAction, help=text)
    group.add_argument("--tt-size", type=whole(2, MAX_TT_SIZE), metavar="N",
                       help=f"transposition table entries (default 1,048,576; at most {MAX_TT_SIZE:,})")
    group.add_argument("--evaluation-plies", type=whole(0), metavar="PLY",
                       help="with --ordering: from this ply on, order moves by the root's order "
                            "rather than by evaluating every child (an exact solve's default: "
                            "8; elsewhere every ply is evaluated)")


def given_switches(args) -> list[str]:
    """The engine flags on this command line, as typed (for error messages)."""
    given = []
    if getattr(args, "time", None) is not None:
        given.append("--time")
    if getattr(args, "nodes", None) is not None:
        given.append("--nodes")
    for flag, field, _ in TECHNIQUES:
        value = getattr(args, f"engine_{field}", None)
        if value is not None:
            given.append(f"--{flag}" if value else f"--no-{flag}")
    if getattr(args, "tt_size", None) is not None:
        given.append("--tt-size")
    if getattr(args, "evaluation_plies", None) is not None:
        given.append("--evaluation-plies")
    return given


def engine_settings(args, algorithm: str):
    """``(options, budget)`` for ``gdl.solvers.solve``; ``(None, None)`` when no switch is given
    (solve then picks its defaults). ``algorithm`` is the resolved one (not ``auto``)."""
    from gdl.solvers import default_options
    from gdl.solvers.alphabeta import Budget

    given = given_switches(args)
    if algorithm != "alphabeta":   # --tt / --no-tt is every tree solver's (table_switch)
        given = [flag for flag in given if flag not in ("--tt", "--no-tt")]
    if not given:
        return None, None
    if algorithm != "alphabeta":
        raise UsageError(f"{' '.join(given)}: these switches apply to alpha-beta only (two-player "
                         f"zero-sum games without chance), and this search uses {algorithm}")
    if args.time is not None and not args.time > 0:
        raise UsageError("--time must be a positive number of seconds")
    if args.nodes is not None and args.nodes < 1:
        raise UsageError("--nodes must be at least 1")
    if args.tt_size is not None and args.tt_size < 2:
        raise UsageError("--tt-size must be at least 2")
    budget = None
    if args.time is not None or args.nodes is not None:
        budget = Budget(time=args.time, nodes=args.nodes)
    options = default_options(args.depth, budget)
    changes: dict[str, Any] = {field: getattr(args, f"engine_{field}")
                               for _, field, _ in TECHNIQUES
                               if getattr(args, f"engine_{field}") is not None}
    if args.tt_size is not None:
        changes["tt_size"] = args.tt_size
    if args.evaluation_plies is not None:
        changes["evaluation_plies"] = args.evaluation_plies
    return replace(options, **changes), budget


def table_switch(args, algorithm: str) -> bool | None:
    """``--tt`` / ``--no-tt`` for a tree solver other than alpha-beta (whose table is in its
    SearchOptions): the ``table`` argument of ``gdl.solvers.solve``; None when not given."""
    if algorithm == "alphabeta":
        return None
    return getattr(args, "engine_tt", None)


# What the native alpha-beta lacks (gdl.tools.native_solve.python_only_settings), and the
# switch that asks for it.
PYTHON_ONLY_FLAGS = {"killers": ("killer moves", "--killers"),
                     "history": ("the history heuristic", "--history"),
                     "iterative_deepening": ("iterative deepening", "--id"),
                     "aspiration": ("aspiration windows", "--aspiration"),
                     "quiescence": ("quiescence", "--quiescence")}


def tier_of(result) -> str:
    """Which tier computed ``result``: "native" (the generated C) or "python"."""
    return "native" if (result.extra or {}).get("backend") == "native" else "python"


def tier_note(args, game, algorithm: str, options, budget, table) -> str | None:
    """One line for stderr when an engine switch on the command line keeps a search that would
    run natively in the Python tier (same answer, slower), naming the switch and why; None
    when the switches change no tier (every one at its default value, or one the native tier
    implements: --tt-size, --evaluation-plies, --tt/--ordering/--pvs/--optimal-set)."""
    from gdl.tools.native_solve import NATIVE_ALGORITHMS, native_rules, python_only_settings

    if native_rules(game) is None or algorithm not in NATIVE_ALGORITHMS:
        return None     # the Python tier runs whatever the switches say
    lead = "gdl solve: note: the Python tier runs this search: "
    if table:
        return lead + f"the native {algorithm} keeps no transposition table (--tt)"
    if algorithm != "alphabeta":
        return None
    missing = python_only_settings(game.info, args.depth, options, budget)
    reasons = []
    if "budget" in missing:
        given = " and ".join(flag for flag, value in (("--time", args.time),
                                                      ("--nodes", args.nodes))
                             if value is not None)
        reasons.append(f"a clock or node limit, and the iterative deepening it needs ({given})")
    for field, (what, flag) in PYTHON_ONLY_FLAGS.items():
        if field in missing and getattr(args, f"engine_{field}", None):
            reasons.append(f"{what} ({flag})")
    if not reasons:
        return None     # (quiescence at a horizon by default: no switch to name)
    return lead + "the native alpha-beta lacks " + ", ".join(reasons)


STOPPED = {"time": "stopped by --time", "nodes": "stopped by --nodes", "stop": "interrupted"}


def proof_note(result) -> str:
    """'' for a proven result, else why it is an estimate, e.g.
    ' (not proven: stopped by --time; deepest completed iteration: depth 9)'."""
    if result.proven:
        return ""
    stopped = (result.extra or {}).get("stopped")
    if stopped in STOPPED:
        return (f" (not proven: {STOPPED[stopped]}; deepest completed iteration: "
                f"depth {result.depth})")
    if result.depth is not None:
        return f" (not proven: depth-limited to {result.depth})"
    return " (not proven)"


def stats_lines(result, elapsed: float) -> list[str]:
    """The statistics, human-readable: counters on one line, the search's shape on the next."""
    stats = result.stats
    extra = result.extra or {}
    lines = [f"  nodes {stats.nodes:,}  leaves {stats.leaves:,}  cut-offs {stats.cutoffs:,}"
             + (f"  tt hits {stats.tt_hits:,}/{stats.tt_probes:,}" if stats.tt_probes else "")
             + f"  time {elapsed:.2f} s  tier {tier_of(result)}"]
    if result.algorithm == "alphabeta":
        parts = [f"depth reached {stats.depth_reached}", f"re-searches {stats.researches:,}"]
        if extra.get("ebf") is not None:
            parts.append(f"ebf {extra['ebf']}")
        iterations = extra.get("iteration_nodes") or []
        if len(iterations) > 1:
            parts.append(f"iterations {len(iterations)}")
        if "tt_capacity" in extra:
            parts.append(f"tt entries {extra['tt_entries']:,}/{extra['tt_capacity']:,}"
                         + (f" ({extra['tt_replaced']:,} replaced)" if extra.get("tt_replaced")
                            else ""))
        lines.append("  " + "  ".join(parts))
    return lines


def stats_document(result, elapsed: float) -> dict:
    """The statistics for --json: the Stats counters, seconds, and the engine's extras."""
    document: dict[str, Any] = {**result.stats.as_dict(), "seconds": round(elapsed, 6)}
    extra = result.extra or {}
    for key in ("ebf", "iteration_nodes", "stopped", "tt_capacity", "tt_entries", "tt_replaced",
                "tt_full"):
        if key in extra:
            document[key] = extra[key]
    return document

