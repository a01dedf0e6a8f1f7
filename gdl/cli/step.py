"""`gdl step`: step through a search, one event per key, in the terminal (or all of it as JSON)."""

from __future__ import annotations

import os
import sys

from gdl.cli import UsageError, add_common, load_game, parse_sets, print_json, report_runtime
from gdl.errors import GameRuntimeError, terminal_safe

KEYS = ("keys: space, Enter or n: next event · b: back · e: run to the end · "
        "q: quit · h: help")
LINE_KEYS = ("commands, one a line: (empty) or n: next event · b: back · e: run to the end · "
             "q: quit")


def cmd_step(args) -> int:
    from gdl.solvers.trace import TraceTooLong
    from gdl.tools.step import Narrator, heading, trace_json
    from gdl.tools.trace import run

    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.depth is not None and args.depth < 0:
        raise UsageError("--depth must be 0 or more")
    game = load_game(args.file, parse_sets(args.set))
    from gdl.cli import start_state

    root = start_state(args, game)
    player = 0
    if args.player is not None:
        if args.player not in game.info.players:
            raise UsageError(f"--player {args.player}: the players are "
                             f"{', '.join(game.info.players)}")
        player = game.info.players.index(args.player)
    try:
        traced = run(game, args.algorithm, depth=args.depth, table=args.table,
                     ordering=args.ordering, all_best=args.all_best, player=player,
                     shallow_pruning=False if args.no_shallow else None, root=root,
                     limit=args.limit)
    except TraceTooLong as error:
        hint = ("search fewer plies with --depth N" if args.depth is None
                else f"try a depth below {args.depth}")
        raise UsageError(f"{error}; {hint}, start later with --moves, or raise --limit (a "
                         "search of thousands of nodes is long to step through)") from None
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1
    if args.backend == "native":
        traced.notes.append("the search runs in Python, where it tells each step (the native "
                            "tier's searches are C and tell none); the rules run natively")
    if args.json:
        print_json(trace_json(traced))
        return 0
    narrator = Narrator(traced)
    lines = [_line(i, e, narrator.describe(e)) for i, e in enumerate(traced.events)]
    top = heading(traced)
    if args.all:
        print(top)
        for line in lines:
            print(line)
        return 0
    if sys.stdin.isatty() and sys.stdout.isatty() and _has_termios():
        return _interactive(top, lines)
    return _by_lines(top, lines)


def _line(index: int, event, text: str) -> str:
    return f"{index + 1:>5}  {'  ' * event.depth}{terminal_safe(text)}"


def _by_lines(top: str, lines: list[str]) -> int:
    """Commands read a line at a time (a pipe, a script): each shown step printed once."""
    from gdl.tools.step import Cursor

    print(top)
    print(LINE_KEYS)
    cursor = Cursor(len(lines))
    for raw in sys.stdin:
        command = raw.strip().lower()
        if command in ("", "n", "next", " "):
            if cursor.forward():
                print(lines[cursor.at - 1])
            else:
                print("(the end of the search)")
        elif command in ("b", "back"):
            if cursor.back():
                print(f"back to step {cursor.at}: " + (lines[cursor.at - 1].strip()
                                                      if cursor.at else "the start"))
            else:
                print("(the start of the search)")
        elif command in ("e", "end"):
            for line in lines[cursor.at:]:
                print(line)
            cursor.to_end()
        elif command in ("q", "quit"):
            break
        else:
            print(f"unknown command {command!r}; {LINE_KEYS}")
        sys.stdout.flush()
    return 0


def _has_termios() -> bool:
    try:
        import termios  # noqa: F401
        import tty  # noqa: F401
    except ImportError:
        return False
    return True


def _read_key() -> str:
    """One key press, without waiting for Enter (the terminal is in cbreak mode)."""
    key = os.read(sys.stdin.fileno(), 1).decode("latin-1")
    if key == "\x1b":                       # an arrow key: ESC [ A/B/C/D
        more = os.read(sys.stdin.fileno(), 2).decode("latin-1")
        return {"[C": "n", "[B": "n", "[D": "b", "[A": "b"}.get(more, "q")
    return key


def _interactive(top: str, lines: list[str]) -> int:
    """The screen redrawn at every key: the heading, the events so far (the last that fit),
    the current one marked."""
    import shutil
    import termios
    import tty

    from gdl.tools.step import Cursor

    cursor = Cursor(len(lines))
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    message = ""
    try:
        tty.setcbreak(fd)
        while True:
            size = shutil.get_terminal_size()
            room = max(3, size.lines - top.count("\n") - 5)
            shown = lines[:cursor.at][-room:]
            out = ["\x1b[H\x1b[2J", top, ""]
            for i, line in enumerate(shown):
                mark = "▶" if i == len(shown) - 1 else " "
                out.append(mark + line[1:][: size.columns - 1])
            if not shown:
                out.append("  (press space for the first event)")
            status = f"step {cursor.at} of {cursor.total}"
            if cursor.done:
                status += " — the end of the search"
            out += ["", status + (f"  {message}" if message else ""), KEYS]
            sys.stdout.write("\n".join(out) + "\n")
            sys.stdout.flush()
            message = ""
            key = _read_key()
            if key in (" ", "\n", "\r", "n", "j"):
                if not cursor.forward():
                    message = "(nothing further)"
            elif key in ("b", "k", "\x7f"):
                if not cursor.back():
                    message = "(at the start)"
            elif key in ("e", "G"):
                cursor.to_end()
            elif key in ("q", "\x04", "\x03"):
                break
            elif key in ("h", "?"):
                message = KEYS
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    return 0


def register(commands) -> None:
    from gdl.tools.trace import ALGORITHMS, DEFAULT_LIMIT

    sub = commands.add_parser(
        "step", help="step through a search event by event (windows, values, cut-offs)",
        description="Step through a tree search one event at a time: a node entered and its "
                    "window (α, β), a leaf's value, a value backed up (exact or a bound), a "
                    "cut-off and its reason, a table hit, a chance node's average. The events "
                    "come from the solver itself, run in Python (the native tier's searches "
                    "emit none). On a terminal, one event per key; from a pipe, one command a "
                    "line; --all prints every event, --json all of them as JSON.",
        epilog="Example: gdl step games/aima-fig5-2.game --algorithm alphabeta   "
               "(Russell & Norvig's Figure 5.5, event by event)")
    add_common(sub)
    sub.add_argument("--algorithm", default="auto", choices=("auto",) + ALGORITHMS,
                     help="the search to step through (default: the one `gdl solve` chooses); "
                          "alpha-beta is the textbook's unless --table, --ordering or "
                          "--all-best")
    sub.add_argument("--depth", type=int, metavar="N",
                     help="search N decision plies (positions there are evaluated, or count as "
                          "even when the game declares no evaluation)")
    sub.add_argument("--moves", nargs="+", metavar="MOVE", help="start after these actions")
    sub.add_argument("--table", action="store_true",
                     help="with a transposition table (each position searched once per depth)")
    sub.add_argument("--ordering", action="store_true",
                     help="alphabeta: order moves (the table's move first, then by evaluation)")
    sub.add_argument("--all-best", action="store_true",
                     help="alphabeta: the root proves every optimal action (gdl solve's root: "
                          "narrower windows after the first child) instead of one")
    sub.add_argument("--player", metavar="NAME",
                     help="paranoid: the player searched against the coalition of the others")
    sub.add_argument("--no-shallow", action="store_true",
                     help="maxn: without shallow pruning")
    sub.add_argument("--all", action="store_true", help="print every event at once")
    sub.add_argument("--json", action="store_true", help="print every event as JSON")
    sub.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                     help=f"refuse searches of more than N nodes (default {DEFAULT_LIMIT:,})")
    sub.set_defaults(run=cmd_step, position=[])
