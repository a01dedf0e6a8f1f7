"""`gdl analyze`: the exact value of every legal action at a position, and optimal strategies.

    gdl analyze games/tictactoe.game --moves "place(1,1) place(0,1)"
    gdl analyze games/tictactoe.game --strategy tictactoe-strategy.json

The work is gdl.solvers.analysis (``analyze_position``, ``strategy_document``, whose docstring
gives the JSON schema of ``--strategy``); this module parses, prints and writes.
"""

from __future__ import annotations

import json
import sys
import time

from gdl.cli import (
    UsageError,
    add_common,
    add_position,
    load_game,
    moves_arg,
    parse_sets,
    print_json,
    report_runtime,
    start_state,
)
from gdl.errors import GameRuntimeError
from gdl.protocol import CHANCE, TERMINAL, format_value, json_value

DEFAULT_MAX_STATES = 200_000


def cmd_analyze(args) -> int:
    from gdl.solvers.analysis import analyze_position
    from gdl.solvers.repetition import RepetitionError
    from gdl.solvers.result import SolverError

    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    if args.db is not None:
        if args.depth is not None or args.strategy is not None or args.algorithm != "auto":
            raise UsageError("--db answers from the database; it takes no --depth, --strategy "
                             "or --algorithm")
        from gdl.cli.strong import open_bound_database

        game = load_game(args.file, parse_sets(args.set))
        moves = moves_arg(args)
        return _analyze_positions(args, game, open_bound_database(args),
                                  start_state(args, game, moves), moves)
    if args.strategy is not None and args.depth is not None:
        raise UsageError("--strategy is exact; it cannot be combined with --depth")
    if args.max_states < 1:
        raise UsageError("--max-states must be at least 1")
    game = load_game(args.file, parse_sets(args.set))
    moves = moves_arg(args)
    root = start_state(args, game, moves)
    players = game.info.players
    player = 0
    if args.player is not None:
        if args.player not in players:
            raise UsageError(f"--player {args.player}: not a player of this game "
                             f"({', '.join(players)})")
        player = players.index(args.player)
    if args.depth is None:
        # A game that can repeat a position has no exact tree search: answer from a strong solve
        # of every position reachable from here, as `gdl solve` does.
        from gdl.tools.graph_advice import can_repeat

        cycle = can_repeat(game, root)
        if cycle is not None:
            return _analyze_cyclic(args, game, root, moves, cycle)
    if args.strategy is not None:
        from gdl.solvers.alphabeta import check_game

        try:
            check_game(game.info)
        except SolverError as error:
            raise UsageError(f"--strategy is for two-player zero-sum games without chance: "
                             f"{error}") from None
    started = time.perf_counter()
    known: list[tuple] = []      # (action, values) as each is found: shown if the run is cut short
    status = sys.stderr.isatty() and not args.json

    def progress(action, values, done: int, total: int) -> None:
        known.append((action, values))
        if status:
            shown = ", ".join(f"{p} {format_value(v)}" for p, v in zip(game.info.players, values))
            print(f"\r\033[K  {done}/{total}: {game.action_name(action)}  {shown}", end="",
                  file=sys.stderr, flush=True)

    try:
        analysis = analyze_position(game, root, depth=args.depth, algorithm=args.algorithm,
                                    player=player, progress=progress)
        written = None
        if args.strategy is not None:
            written = _write_strategy(game, root, moves, args)
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if status:
            print("\r\033[K", end="", file=sys.stderr)
        print(f"interrupted after {len(known)} action(s); their values:", file=sys.stderr)
        for action, values in known:
            shown = ", ".join(f"{p} {format_value(v)}" for p, v in zip(game.info.players, values))
            print(f"  {game.action_name(action)}  {shown}", file=sys.stderr)
        return 130
    except RepetitionError as error:     # a cycle the search for one did not reach in time
        if args.depth is not None:
            raise
        if status:
            print("\r\033[K", end="", file=sys.stderr)
        cycle = (list(error.path[:len(error.path) - len(error.cycle)]), list(error.cycle))
        return _analyze_cyclic(args, game, root, moves, cycle)
    except SolverError as error:
        if str(error).startswith("more than"):
            raise UsageError(f"--strategy: {str(error).split(';')[0]} (the cap is --max-states "
                             f"{args.max_states:,}); analyse a later position (--moves), a smaller "
                             "variant (--set), or raise --max-states") from None
        raise
    elapsed = time.perf_counter() - started
    if status and known:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    names = game.action_name

    def mover_name(m: int) -> str:
        return "chance" if m == CHANCE else "nobody (game over)" if m == TERMINAL else players[m]

    if args.json:
        document = {
            "game": game.info.name, "players": list(players), "moves": moves,
            "mover": mover_name(analysis.mover), "algorithm": analysis.algorithm,
            "depth": args.depth, "proven": analysis.proven,
            "values": {p: json_value(v) for p, v in zip(players, analysis.values)},
            "best_actions": [names(a) for a in analysis.best_actions],
            "actions": [
                {"action": names(e.action),
                 "values": {p: json_value(v) for p, v in zip(players, e.values)},
                 "optimal": e.optimal,
                 **({"probability": json_value(e.probability)} if e.probability is not None
                    else {})}
                for e in analysis.entries],
            "seconds": round(elapsed, 6),
        }
        if written is not None:
            document["strategy"] = {"path": args.strategy, "states": written}
        print_json(document)
        return 0

    after = f" after {' '.join(moves)}" if moves else ""
    print(f"{args.file}: {game.info.name}, {mover_name(analysis.mover)} to move{after}")
    kind = "exact" if analysis.proven else f"to depth {args.depth}, not proven"
    values = ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, analysis.values))
    print(f"  value  {values}  ({analysis.algorithm}, {kind})")
    if analysis.entries:
        chance = analysis.mover == CHANCE
        head = ["outcome" if chance else "action"] + (["probability"] if chance else []) \
            + list(players)
        rows = [[names(e.action)] + ([format_value(e.probability)] if chance else [])
                + [format_value(v) for v in e.values] for e in analysis.entries]
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]

        def line(mark: str, cells: list[str]) -> str:
            return (f"  {mark} " + "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                                             for i, c in enumerate(cells))).rstrip()

        print(line(" ", head))
        for entry, row in zip(analysis.entries, rows):
            print(line("*" if entry.optimal else " ", row))
        if not chance:
            print(f"  optimal ({len(analysis.best_actions)} of {len(analysis.entries)}, marked *): "
                  + " ".join(names(a) for a in analysis.best_actions))
    if written is not None:
        print(f"  strategy: {written:,} non-terminal states written to {args.strategy}")
    print(f"  time {elapsed:.2f} s")
    return 0


def _analyze_cyclic(args, game, root, moves, cycle) -> int:
    """The game can repeat a position (``cycle``: the moves to a state and around back to it):
    every move's value from a strong solve of every position reachable from ``root``."""
    from gdl.cli.strong import progress_line
    from gdl.solvers.result import SolverError
    from gdl.tools.graph_advice import CYCLIC_LIMIT, SolvedPositions, cyclic_refusal, solve_positions

    path, around = cycle
    if args.strategy is not None:
        raise UsageError(f"--strategy: game {game.info.name!r} can repeat a position (after "
                         f"{' '.join(path) or 'the start'}, the moves {' '.join(around)} come "
                         "back to it), where optimal play is not a finite tree; `gdl solve "
                         "--strong --save DB` keeps every position's value and remoteness "
                         "instead, read with `gdl analyze --db DB`")
    report, erase = progress_line()
    try:
        solution = solve_positions(game, root, progress=report)
    except SolverError as error:
        raise UsageError(cyclic_refusal(game.info, error, CYCLIC_LIMIT, args.file)) from None
    finally:
        erase()
    return _analyze_positions(args, game, SolvedPositions(solution), root, moves)


def _analyze_positions(args, game, db, root, moves) -> int:
    """Every move's value and remoteness from every position's value: a position database
    (--db) or a strong solve held in memory (gdl.tools.graph_advice.SolvedPositions)."""
    from gdl.tools.database_advice import move_entries, ranked_best

    here = db.lookup(root)
    if here is None:
        raise UsageError(f"--db {args.db}: this position is not in the database")
    players = game.info.players
    mover = game.current_player(root)
    entries = move_entries(db, game, root)
    optimal_of = getattr(db, "optimal", None)
    optimal = ({id(e) for e in ranked_best(game, mover, entries,
                                           optimal_of(root) if optimal_of else None,
                                           draw=here.values is None)}
               if mover >= 0 else set())
    describe = getattr(db, "describe", None)
    solver = "position database" if describe is None else describe()
    names = game.action_name

    def shown(values):
        return None if values is None else {p: json_value(v) for p, v in zip(players, values)}

    if args.json:
        print_json({
            "game": game.info.name, "players": list(players), "moves": moves,
            "mover": players[mover] if mover >= 0 else ("chance" if mover == CHANCE else None),
            "algorithm": solver, "exact": db.exact, "proven": db.exact,
            "values": shown(here.values),
            "remoteness": here.remoteness if here.remoteness >= 0 else None,
            "actions": [{"action": names(e.action), "values": shown(e.values),
                         "remoteness": e.remoteness if e.remoteness >= 0 else None,
                         "optimal": id(e) in optimal} for e in entries],
        })
        return 0
    after = f" after {' '.join(moves)}" if moves else ""
    who = players[mover] if mover >= 0 else "chance" if mover == CHANCE else "nobody (game over)"
    print(f"{args.file}: {game.info.name}, {who} to move{after}")

    def text(values):
        return ("a draw (endless play, no value)" if values is None
                else ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, values)))

    far = f", remoteness {here.remoteness}" if here.remoteness >= 0 else ""
    value_class = getattr(db, "value_class", None)
    kind = value_class(root) if value_class is not None else None
    if kind == "draw" and here.values is not None:
        far += ", a draw valued by the rules' `when endless`"
    why = "" if describe is None else ": the game can repeat a position, so it is solved strongly"
    print(f"  value  {text(here.values)}{far}  ({solver}{why}"
          + ("" if db.exact or describe is not None else ", not exact") + ")")
    for entry in entries:
        mark = "*" if id(entry) in optimal else " "
        distance = f"  remoteness {entry.remoteness}" if entry.remoteness >= 0 else ""
        print(f"  {mark} {names(entry.action):<16} {text(entry.values)}{distance}")
    if mover >= 0:
        print(f"  optimal ({len(optimal)} of {len(entries)}, marked *)")
    return 0


def _write_strategy(game, root, moves, args) -> int:
    from gdl.cli import write_output
    from gdl.solvers.analysis import strategy_document

    document = strategy_document(game, root, root_moves=moves, max_states=args.max_states)
    data = (json.dumps(document, separators=(",", ":")) + "\n").encode("utf-8")
    write_output(args.strategy, data, "--strategy")     # atomic; no other user's link followed
    return document["states"]


def register(commands) -> None:
    from gdl.solvers import ALGORITHMS

    sub = commands.add_parser(
        "analyze", help="the value of every legal action at a position; optimal strategies",
        epilog='Example: gdl analyze games/tictactoe.game --moves "place(1,1) place(0,1)"')
    add_common(sub)
    sub.add_argument("--moves", nargs="+", metavar="MOVE",
                     help='analyse the position after these actions, e.g. --moves "place(1,1)"')
    add_position(sub)
    sub.add_argument("--depth", type=int, metavar="N",
                     help="search N decision plies (the action analysed counts), then evaluate")
    sub.add_argument("--algorithm", default="auto", choices=("auto",) + ALGORITHMS,
                     help="default: chosen from the game, as gdl solve")
    sub.add_argument("--player", metavar="PLAYER", help="paranoid's player (default: the first)")
    sub.add_argument("--json", action="store_true", help="one JSON document on stdout")
    sub.add_argument("--strategy", metavar="PATH",
                     help="write an optimal strategy (every reachable non-terminal state and its "
                          "optimal actions) as JSON to PATH; two-player zero-sum games without "
                          "chance")
    sub.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                     help=f"refuse --strategy above N non-terminal states "
                          f"(default {DEFAULT_MAX_STATES:,})")
    sub.add_argument("--db", metavar="DB",
                     help="answer from a position database (gdl solve --strong --save DB): every "
                          "move's value and remoteness, at once")
    sub.set_defaults(run=cmd_analyze)
