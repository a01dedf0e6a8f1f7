"""`gdl tree`: the search tree a solver explored, as Graphviz DOT, SVG or indented text."""

from __future__ import annotations

import shutil
import subprocess
import sys

from gdl.cli import UsageError, add_common, load_game, moves_arg, parse_sets, report_runtime, write_output
from gdl.errors import GameRuntimeError

NO_GRAPHVIZ = ("gdl tree: SVG needs Graphviz's `dot` program, which is not installed.\n"
               "  Install it (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz)\n"
               "  or write DOT text and render it elsewhere: --format dot")


def cmd_tree(args) -> int:
    from gdl.moves import MoveError, play
    from gdl.solvers.repetition import RepetitionError
    from gdl.tools.search_tree import TreeTooLarge, record, to_dot, to_text
    from gdl.tools.session import NeutralEvaluation, needs_neutral_evaluation

    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.format == "svg" and shutil.which("dot") is None:
        print(NO_GRAPHVIZ, file=sys.stderr)
        return 2
    game = load_game(args.file, parse_sets(args.set))
    try:
        root = play(game, moves_arg(args))
    except MoveError as error:
        raise UsageError(str(error)) from None
    from gdl.tools.graph_advice import can_repeat

    notes: list[str] = []
    try:
        tree = None
        if args.db is not None:
            tree = _database_tree(args, game, root)
        cycle = can_repeat(game, root) if tree is None else None
        if cycle is not None:
            tree = _cyclic_tree(args, game, root, cycle, notes)
        if tree is None:
            searched = game
            if needs_neutral_evaluation(game, args.depth, None):
                searched = NeutralEvaluation(game)
                notes.append("the game declares no evaluation: positions at the depth limit "
                             "count as even for everyone")
            tree = record(searched, args.algorithm, depth=args.depth, root=root, limit=args.limit)
    except RepetitionError as error:    # a cycle the search for one did not reach
        lead = list(error.path[:len(error.path) - len(error.cycle)])
        raise UsageError(_endless_tree(game, (lead, list(error.cycle)), None)) from None
    except TreeTooLarge as error:
        hint = ("search fewer plies with --depth N" if args.depth is None
                else f"try a depth below {args.depth}")
        raise UsageError(f"{error}; {hint}, start later with --moves, or raise --limit "
                         f"(a drawing of thousands of nodes is hard to read)") from None
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1
    tree.notes.extend(notes)
    text = to_text(tree) + "\n" if args.format == "txt" else to_dot(tree)
    if args.format == "svg":
        done = subprocess.run(["dot", "-Tsvg"], input=text.encode("utf-8"), capture_output=True)
        if done.returncode != 0:
            print(f"gdl tree: dot failed: {done.stderr.decode(errors='replace').strip()}",
                  file=sys.stderr)
            return 1
        data = done.stdout
    else:
        data = text.encode("utf-8")
    if args.output:
        write_output(args.output, data)
        print(f"{args.output}: {tree.nodes:,} node(s), {tree.pruned:,} pruned ({args.format})",
              file=sys.stderr)
    else:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()
    return 0


def _endless_tree(game, cycle, refusal: str | None) -> str:
    """A game that can repeat a position has no whole tree to draw: say so, and what works."""
    path, around = cycle
    text = (f"game {game.info.name!r} can repeat a position (after {' '.join(path) or 'the start'}, "
            f"the moves {' '.join(around)} come back to it), so its tree never ends and cannot be "
            "drawn whole: give --depth N")
    if refusal is None:
        return (text + " for the game tree to N plies, cut where a position repeats, every node "
                "valued by a strong solve of the game (as gdl solve does; where the game is too "
                "big to solve here, the tree of a search to N plies)")
    return (text + " for the tree of a search to N plies, positions at the limit estimated (no "
            f"strong solve values them: {refusal})")


def _database_tree(args, game, root):
    """--db: the game tree to --depth plies, every node valued by the position database."""
    from gdl.cli.strong import open_bound_database
    from gdl.graph.database import DatabaseError
    from gdl.tools.search_tree import graph_tree

    if args.depth is None:
        raise UsageError("--db draws the game tree valued by the database: give --depth N")
    if args.algorithm != "auto":
        raise UsageError("--db answers from the database; it takes no --algorithm")
    try:
        database = open_bound_database(args)
    except DatabaseError as error:      # stale, corrupt or missing: the module says which
        raise UsageError(str(error)) from None
    if database.lookup(root) is None:
        raise UsageError(f"--db {args.db}: this position is not in the database")
    return graph_tree(game, database, depth=args.depth, root=root, limit=args.limit)


def _cyclic_tree(args, game, root, cycle, notes: list[str]):
    """The tree of a game that can repeat a position: with --depth and the default algorithm,
    the game tree to that depth valued by a strong solve (gdl.tools.search_tree.graph_tree);
    None where a search's tree is wanted (an algorithm named, or no strong solve: a note says
    why); without --depth, a refusal naming what works."""
    from gdl.cli.strong import progress_line
    from gdl.solvers.repetition import strong_refusal
    from gdl.solvers.result import SolverError
    from gdl.tools.graph_advice import CYCLIC_LIMIT, SolvedPositions, solve_positions
    from gdl.tools.search_tree import graph_tree

    if args.algorithm != "auto" and args.depth is not None:
        notes.append("the game can repeat a position: values at the depth limit are estimates, "
                     "not the game's (without --algorithm, a strong solve values every node)")
        return None
    if args.depth is None:      # nothing to draw whole; say what works without solving first
        raise UsageError(_endless_tree(game, cycle, strong_refusal(game.info)))
    report, erase = progress_line()
    try:
        solution = solve_positions(game, root, progress=report)
    except SolverError as error:
        from gdl.graph import TooManyPositions

        why = (f"more than {CYCLIC_LIMIT:,} positions to solve here; `gdl solve {args.file} "
               "--strong --save DB` (by tiers with --workers N where the rules declare a `tier`), "
               "then `gdl tree --db DB --depth N`" if isinstance(error, TooManyPositions)
               else strong_refusal(game.info) or str(error))
        notes.append(f"the game can repeat a position, and no strong solve values this tree "
                     f"({why}): it is the tree of a search to depth {args.depth}, positions at "
                     "the limit estimated")
        return None
    finally:
        erase()
    return graph_tree(game, SolvedPositions(solution), depth=args.depth, root=root,
                      limit=args.limit)


def register(commands) -> None:
    from gdl.tools.search_tree import ALGORITHMS, DEFAULT_LIMIT

    sub = commands.add_parser(
        "tree", help="draw the search tree a solver explores (DOT, SVG or text)",
        epilog="Example: gdl tree games/aima-fig5-2.game --format txt   "
               "(SVG: gdl tree games/aima-fig5-2.game --format svg --output tree.svg)")
    add_common(sub)
    sub.add_argument("--algorithm", default="auto", choices=("auto",) + ALGORITHMS,
                     help="default: alphabeta for two-player games, expectiminimax with chance, "
                          "maxn for more players (textbook versions: no table, no reordering)")
    sub.add_argument("--depth", type=int, metavar="N",
                     help="search N decision plies (positions there are evaluated); a game that "
                          "can repeat a position needs it: its game tree to N plies, valued by a "
                          "strong solve")
    sub.add_argument("--format", default="dot", choices=("dot", "svg", "txt"),
                     help="dot (Graphviz text, the default), svg (needs Graphviz), txt (indented)")
    sub.add_argument("--output", "-o", metavar="PATH", help="write to PATH instead of stdout")
    sub.add_argument("--moves", nargs="+", metavar="MOVE", help="start after these actions")
    sub.add_argument("--db", metavar="DB",
                     help="a position database (gdl solve FILE --strong --save DB): with --depth "
                          "N, the game tree to N plies, every node valued by the database")
    sub.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                     help=f"refuse trees of more than N nodes (default {DEFAULT_LIMIT:,})")
    sub.set_defaults(run=cmd_tree)
