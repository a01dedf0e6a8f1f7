"""`gdl check`, `gdl solve`, `gdl count`."""

from __future__ import annotations

import argparse
import sys
import time

import gdl.cli as cli
from gdl.cli import (
    USAGE_ERROR,
    UsageError,
    add_common,
    add_position,
    load_game,
    parse_sets,
    print_json,
    read_rule_text,
    report_runtime,
    start_state,
    whole,
)
from gdl.errors import GameRuntimeError, GdlError, terminal_safe
from gdl.protocol import format_value, json_value


def cmd_check(args) -> int:
    from gdl.backends.load import loads

    if args.deep or args.json:  # playing the game (gdl.tools.validate): see gdl/cli/deep.py
        from gdl.cli.deep import check_files

        return check_files(args)
    failed = unreadable = 0
    params = parse_sets(args.set)
    for path in args.files:
        try:
            game = loads(read_rule_text(path), path, params, backend=args.backend)
        except UsageError as error:
            print(f"gdl check: error: {error}", file=sys.stderr)
            unreadable += 1
            continue
        except GdlError as error:
            print(error.render(), file=sys.stderr)
            failed += 1
            continue
        if not args.quiet:
            info = game.info
            print(f"{terminal_safe(path)}: ok ({info.name or 'untitled'}, {len(info.players)} "
                  f"player(s): {', '.join(info.players)})")
    return USAGE_ERROR if unreadable else 1 if failed else 0


def cmd_solve(args) -> int:
    from gdl.solvers import solve
    from gdl.tools.progress import with_progress

    solve = with_progress(solve)    # a status line on stderr when it is a terminal (gdl/tools/progress.py)

    _announce_slow_compiles()
    game = load_game(args.file, parse_sets(args.set))
    root = start_state(args, game)
    if args.strong:
        from gdl.cli.strong import cmd_strong
        from gdl.cli.tiers import cmd_tiered, wants_tiers

        if wants_tiers(args):
            return cmd_tiered(args, game)
        return cmd_strong(args, game, root)
    if args.workers or args.scheduler or args.tier_dir or args.resume:
        raise UsageError("--workers, --scheduler, --tier-dir and --resume need --strong")
    if args.save is not None:
        raise UsageError("--save needs --strong")
    from gdl.cli.wide import cmd_solve_wide, wants_wide

    if wants_wide(args, game):      # simultaneous moves, hidden information: their own solvers
        return cmd_solve_wide(args, game, root)
    from gdl.cli.deep import solve_result_notes, solve_size_check
    from gdl.cli.engine import (
        engine_settings,
        proof_note,
        stats_document,
        stats_lines,
        table_switch,
        tier_of,
    )
    from gdl.solvers import choose
    from gdl.solvers.repetition import RepetitionError

    algorithm = choose(game.info) if args.algorithm == "auto" else args.algorithm
    options, budget = engine_settings(args, algorithm)   # --time, --nodes, --tt/--no-tt, ...
    table = table_switch(args, algorithm)   # --tt/--no-tt for the other tree solvers
    from gdl.cli.engine import tier_note
    from gdl.tools.native_solve import (
        NATIVE_ALGORITHMS,
        native_rules,
        python_only_settings,
        solve_native,
    )

    native = (native_rules(game) is not None and algorithm in NATIVE_ALGORITHMS and not table
              and not (algorithm == "alphabeta"
                       and python_only_settings(game.info, args.depth, options, budget)))
    note = tier_note(args, game, algorithm, options, budget, table)
    if note:    # an engine switch the native tier lacks: say which tier runs, and why
        print(note, file=sys.stderr)
    size = None
    if budget is None:  # a --time / --nodes budget bounds the work itself
        def count_nodes(depth: int) -> int:     # the same search, shallower: its nodes
            from gdl.solvers import solve as plain

            fast = None if table else solve_native(game, algorithm, depth=depth,
                                                   root_state=root, options=options)
            return (fast or plain(game, algorithm, depth=depth, root_state=root, options=options,
                             player=_player_index(game, args.player), table=table)).stats.nodes

        # warns, or refuses with --strict
        size = solve_size_check(game, args, root, args.algorithm, native=native,
                                count_nodes=count_nodes)
    searched = game
    if budget is not None and not game.info.has_evaluate:
        # A budget may stop the search before it proves anything; without an evaluation there
        # would be no shallower answer to give. Positions at the horizon count as even, and the
        # answer is labelled not proven (gdl.tools.session.NeutralEvaluation).
        from gdl.tools.session import NeutralEvaluation

        searched = NeutralEvaluation(game)
        print(f"gdl solve: note: '{game.info.name}' declares no evaluate: a search the budget "
              "stops counts positions at its horizon as even", file=sys.stderr)
    started = time.perf_counter()

    stopped: list[bool] = []
    try:
        # The searches the native tier implements run in C (the default backend of solve);
        # anything else, or a native search stopped by a rule error, runs the Python solver.
        # (A table asked for is the Python solvers': the native searches keep none.)
        fast = None if searched is not game or table else solve_native(
            game, algorithm, depth=args.depth, root_state=root, options=options,
            budget=budget, on_stop=lambda: stopped.append(True))
        result = fast or solve(searched, args.algorithm, depth=args.depth, root_state=root,
                               options=options, budget=budget,
                               player=_player_index(game, args.player), table=table)
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1
    except RepetitionError as error:   # the game can repeat positions: solve its state graph
        from gdl.cli.strong import solve_cyclic

        return solve_cyclic(args, game, root, error)
    elapsed = time.perf_counter() - started
    if stopped:     # the Python tier answered where the native search stopped: say why
        print("gdl solve: note: the native search stopped (a value beyond 64 bits, a fraction "
              "the C integers cannot hold, or a line deeper than 1024 plies); the Python tier "
              "computed the answer exactly", file=sys.stderr)
    for note in solve_result_notes(result):
        print(note, file=sys.stderr)
    names = game.action_name
    players = game.info.players
    if args.json:
        print_json({
            "game": game.info.name, "players": list(players),
            "values": {p: json_value(v) for p, v in zip(players, result.values)},
            "best_actions": [names(a) for a in result.best_actions],
            "optimal_set": result.extra.get("optimal_set", True),
            "pv": [names(a) for a in result.pv],
            "algorithm": result.algorithm, "proven": result.proven, "depth": result.depth,
            "tier": tier_of(result),
            "stats": stats_document(result, elapsed),
            **({} if size is None else {"estimate": size.document(result.stats.nodes)}),
        })
        return 0
    values = ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, result.values))
    print(f"{args.file}: {game.info.name}")
    print(f"  algorithm     {result.algorithm}{proof_note(result)}")
    print(f"  value         {values}")
    from gdl.protocol import CHANCE

    empty = "(chance moves first)" if game.current_player(root) == CHANCE else "(game over)"
    # (--no-optimal-set: one optimal action, not the set)
    label = "best actions" if result.extra.get("optimal_set", True) else "a best action"
    print(f"  {label:<13} {' '.join(names(a) for a in result.best_actions) or empty}")
    print(f"  pv            {' '.join(names(a) for a in result.pv) or empty}")
    for line in stats_lines(result, elapsed):
        print(line)
    if size is not None:
        print(size.line(result.stats.nodes))
    return 0


def _announce_slow_compiles() -> None:
    """A first load's C compile that runs long says so on stderr (when it passes its time limit,
    the note that the Python tier runs says why: gdl.backends.native.build)."""
    if getattr(cli, "_backend", None) != "native":
        return
    from gdl.backends.native.build import set_compile_notice

    set_compile_notice(lambda message: print(message, file=sys.stderr, flush=True))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _player_index(game, name: str | None) -> int:
    players = game.info.players
    if name is None:
        return 0
    if name not in players:
        raise UsageError(f"--player {name}: the players are {', '.join(players)}")
    return players.index(name)


def cmd_count(args) -> int:
    from gdl.tools.count import EndlessGame, count

    game = load_game(args.file, parse_sets(args.set))
    root = start_state(args, game)
    status = sys.stderr.isatty() and not args.json

    def progress(ply: int, layer: int) -> None:   # a long count says where it is
        print(f"\r  counting: ply {ply:,}, {layer:,} distinct states in it", end="",
              file=sys.stderr, flush=True)

    try:
        result = count(game, args.depth, progress=progress if status else None, root=root)
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1
    except EndlessGame as endless:
        raise UsageError(f"{endless}; the tree is infinite: give --depth N to count N plies") from None
    finally:
        if status:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    if args.json:
        print_json(result.as_dict())
        return 0
    print(f"{args.file}: {game.info.name}")
    for ply, nodes in enumerate(result.per_ply):
        print(f"  ply {ply:>3}  {nodes:>14,}")
    print(f"  nodes {result.nodes:,}  complete games {result.games:,}")
    print(f"  distinct states {result.states:,} ({result.states - result.terminal_states:,} "
          f"non-terminal, {result.terminal_states:,} terminal)"
          + ("" if result.complete else f"  [stopped at depth {args.depth}]"))
    return 0


def register(commands) -> None:
    from gdl.solvers import ALL_ALGORITHMS

    check = commands.add_parser("check", help="check rule files; report every problem")
    add_common(check, many=True)
    check.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    deep = check.add_argument_group("deep check (play the game: gdl.tools.validate)")
    deep.add_argument("--deep", action="store_true",
                      help="also play: random playouts, and every reachable state when few")
    deep.add_argument("--playouts", type=whole(0), default=100, metavar="N", help="random playouts (100)")
    deep.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    deep.add_argument("--max-length", type=int, metavar="L",
                      help="report plays longer than L moves (besides the declared max-length)")
    deep.add_argument("--exhaustive", action=argparse.BooleanOptionalAction, default=None,
                      help="visit every reachable state (default: when there are at most 20,000)")
    check.add_argument("--json", action="store_true", help="one JSON document on stdout")
    check.set_defaults(run=cmd_check)

    solve = commands.add_parser(
        "solve", help="solve a game: values, best actions, principal variation",
        epilog="Example (depth-limited expectiminimax): gdl solve games/pig.game --depth 2")
    add_common(solve)
    solve.add_argument("--algorithm", default="auto", choices=("auto",) + ALL_ALGORITHMS,
                       help="default: chosen from the game (alphabeta, expectiminimax/star2, "
                            "maxn; with simultaneous moves or hidden information, simultaneous, "
                            "sequence-form or cfr: docs/imperfect.md)")
    solve.add_argument("--iterations", type=_positive, metavar="N",
                       help="cfr+, cfr, mccfr: how many iterations (default 1,000; mccfr 100,000)")
    solve.add_argument("--seed", type=int, default=0, metavar="S",
                       help="mccfr: the random seed of its samples (0)")
    solve.add_argument("--depth", type=int, metavar="N",
                       help="search N decision plies, then use the game's `evaluate`")
    solve.add_argument("--player", metavar="NAME",
                       help="paranoid: the player searched against the coalition of the others "
                            "(default: the first player)")
    solve.add_argument("--moves", nargs="+", metavar="MOVE",
                       help='play these actions first, e.g. --moves "place(1,1) place(0,0)"')
    add_position(solve)
    solve.add_argument("--json", action="store_true", help="one JSON document on stdout")
    from gdl.cli.engine import add_engine_arguments

    add_engine_arguments(solve)   # --time, --nodes, --tt/--no-tt, ... (gdl/cli/engine.py)
    graph = solve.add_argument_group("strong solving (every reachable position: gdl.graph)")
    graph.add_argument("--strong", action="store_true",
                       help="value every reachable position: the root's value and remoteness, "
                            "and a census by value and remoteness")
    graph.add_argument("--max-states", type=_positive, metavar="N",
                       help="refuse a game with more than N reachable positions (default: what "
                            "fits in half the available memory)")
    graph.add_argument("--save", metavar="DB",
                       help="with --strong: write the position database DB (docs/graph.md), for "
                            "gdl analyze --db and gdl play --db")
    tiers = solve.add_argument_group("strong solving by tiers (docs/tiers.md)")
    tiers.add_argument("--workers", type=_positive, metavar="N",
                       help="with --strong: solve a tier at a time, the work spread over N "
                            "cores of this machine (threads of the ranked tables where they "
                            "apply, else N processes)")
    tiers.add_argument("--scheduler", metavar="ADDRESS",
                       help="with --strong: solve a tier at a time on the Dask cluster whose "
                            "scheduler is at ADDRESS (pip install 'gdl[dask]'); --tier-dir must "
                            "then be on storage every worker can read")
    tiers.add_argument("--tier-dir", metavar="DIR",
                       help="with --strong: solve a tier at a time, keeping the tier files in "
                            "DIR (default: DB.tiers beside --save DB, removed when done)")
    tiers.add_argument("--resume", action="store_true",
                       help="with --strong: go on with an interrupted solve by tiers from its "
                            "last finished tier")
    solve.add_argument("--strict", action="store_true",
                       help="refuse (exit 2) when the estimated search is over budget, not just warn")
    solve.add_argument("--force", action="store_true",
                       help="search even when the estimate says it would take more than an hour")
    solve.set_defaults(run=cmd_solve)

    count = commands.add_parser("count", help="perft: nodes per ply, complete games, distinct states")
    add_common(count)
    count.add_argument("--depth", type=whole(0), metavar="N", help="stop after N plies")
    add_position(count)
    count.add_argument("--moves", nargs="+", metavar="MOVE",
                       help='count from the position after these actions, e.g. --moves "place(1,1)"')
    count.add_argument("--json", action="store_true", help="one JSON document on stdout")
    count.set_defaults(run=cmd_count)
