"""`gdl serve`: play and explore a game in a local web page (gdl.serve)."""

from __future__ import annotations

import sys
from pathlib import Path

from gdl.cli import UsageError, add_common, parse_sets

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def cmd_serve(args) -> int:
    from gdl.cli.play import _seat_indices
    from gdl.serve.server import GameServer
    from gdl.serve.workbench import Workbench, WorkbenchError

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{args.file}: no such file")
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    database = None
    if args.db is not None:
        from gdl.cli.strong import open_bound_database
        from gdl.graph.database import DatabaseError

        try:
            database = open_bound_database(args)
        except DatabaseError as error:      # stale, corrupt or missing: the module says which
            raise UsageError(str(error)) from None
    bench = Workbench(path.read_text(encoding="utf-8"), args.file, params=parse_sets(args.set),
                      depth=args.depth, seed=args.seed, backend=args.backend, database=database)
    players = bench.game.info.players
    if bench.wide and (args.depth is not None or args.db is not None):
        raise UsageError(f"{'--depth' if args.depth is not None else '--db'}: a game with "
                         "simultaneous moves or hidden information is played from one solve of "
                         "the whole game (its equilibrium strategy), not by search or a "
                         "position database")
    try:
        bench.choose_seats(_seat_indices(args.seat, players) if args.seat else [0])
    except WorkbenchError as error:
        raise UsageError(f"--as: {error}") from None
    if args.depth is None:
        note = bench.solver_note()      # a game that can repeat a position: solved strongly
        if note is not None:
            print(f"gdl serve: {note}", file=sys.stderr)
        else:
            _warn_if_large(bench.game)
    try:
        server = GameServer(bench, args.host, args.port)
    except OSError as error:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    if args.host not in LOOPBACK:
        print(f"gdl serve: warning: listening on {args.host}: anyone who can reach this machine "
              "can use the page", file=sys.stderr)
    try:
        # Inside the try: a Ctrl-C that arrives as soon as the address is printed (a script
        # reading it, say) still stops the server cleanly.
        print(f"gdl serve: {bench.game.info.name or args.file} at {server.url}  (Ctrl-C stops)",
              flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(server.url)
        server.serve_forever()
    except KeyboardInterrupt:
        print("gdl serve: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0


def _warn_if_large(game) -> None:
    """The page solves every move exactly unless --depth is given: say so before a game whose
    estimated search is beyond the budget `gdl solve` warns about (gdl.tools.validate)."""
    from gdl.cli.deep import declared_state_bound
    from gdl.solvers import choose
    from gdl.tools.validate import budget_problem, estimate

    estimated = estimate(game, root=game.initial_state(), declared_states=declared_state_bound(game))
    problem = budget_problem(estimated, choose(game.info), depth=None, info=game.info)
    if problem is not None:
        print(f"gdl serve: warning: {problem}; the page solves every move exactly, so give "
              "--depth N for values from an N-ply search", file=sys.stderr)


def register(commands) -> None:
    sub = commands.add_parser(
        "serve", help="play and explore a game in a local web page",
        epilog="Example: gdl serve games/tictactoe.game   (then open the address it prints)")
    add_common(sub)
    sub.add_argument("--as", dest="seat", action="append", metavar="PLAYER",
                     help="a seat you play (repeatable; default: the first player)")
    sub.add_argument("--depth", type=int, metavar="N",
                     help="value moves by searching N plies (for games too big to solve exactly)")
    sub.add_argument("--db", metavar="DB",
                     help="a position database (gdl solve FILE --strong --save DB): every move "
                          "is marked with its remoteness, such as 'win in 3'")
    sub.add_argument("--seed", type=int, metavar="S", help="seed for chance rolls (reproducible)")
    sub.add_argument("--host", default="127.0.0.1",
                     help="the address to listen on (default 127.0.0.1: this machine only)")
    sub.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0 picks a free one)")
    sub.add_argument("--open", action="store_true", help="open the page in a web browser")
    sub.set_defaults(run=cmd_serve)
