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
    searched = game
    notes = []
    if needs_neutral_evaluation(game, args.depth, None):
        searched = NeutralEvaluation(game)
        notes.append("the game declares no evaluation: positions at the depth limit count as "
                     "even for everyone")
    try:
        tree = record(searched, args.algorithm, depth=args.depth, root=root, limit=args.limit)
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
                     help="search N decision plies (positions there are evaluated)")
    sub.add_argument("--format", default="dot", choices=("dot", "svg", "txt"),
                     help="dot (Graphviz text, the default), svg (needs Graphviz), txt (indented)")
    sub.add_argument("--output", "-o", metavar="PATH", help="write to PATH instead of stdout")
    sub.add_argument("--moves", nargs="+", metavar="MOVE", help="start after these actions")
    sub.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                     help=f"refuse trees of more than N nodes (default {DEFAULT_LIMIT:,})")
    sub.set_defaults(run=cmd_tree)
