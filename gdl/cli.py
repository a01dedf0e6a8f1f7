"""The `gdl` command. The only module that prints.

Exit codes: 0 success, 1 a problem in the game (or a failed check), 2 a usage error (bad
arguments, an algorithm that does not apply), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Sequence

from .errors import GameRuntimeError, GdlError
from .protocol import format_value, json_value

USAGE_ERROR = 2


class UsageError(Exception):
    """A mistake in the command line itself."""


# ---- shared helpers ----------------------------------------------------------------------------

def _parse_sets(pairs: Sequence[str]) -> dict[str, int | bool]:
    params: dict[str, int | bool] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set expects NAME=VALUE, not {pair!r}")
        text = text.strip().lower()
        if text in ("true", "false"):
            params[name.strip()] = text == "true"
            continue
        try:
            params[name.strip()] = int(text)
        except ValueError:
            raise UsageError(f"--set {name}: {text!r} is not an integer or true/false") from None
    return params


def _load(path: str, params: dict | None = None):
    from . import load

    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    return load(path, params)


def _moves(args) -> list[str]:
    return " ".join(args.moves or []).split()


def _report_runtime(error: GameRuntimeError, game) -> str:
    """The error, with the sequence of actions that reaches the state where it happened."""
    from .moves import path_to

    text = error.render()
    state = getattr(error, "state", None)
    if state is not None and game is not None:
        path = path_to(game, state, limit=200_000)
        if path is not None:
            action = getattr(error, "action", None)
            shown = " ".join(path + ([action] if action else [])) or "(the initial state)"
            text += f"\n  reached by: {shown}"
    return text


def _json(document) -> None:
    print(json.dumps(document, indent=2))


# ---- commands ----------------------------------------------------------------------------------

def cmd_check(args) -> int:
    from . import load

    failed = 0
    params = _parse_sets(args.set)
    for path in args.files:
        if not Path(path).is_file():
            print(f"{path}: no such file", file=sys.stderr)
            failed += 1
            continue
        try:
            game = load(path, params)
        except GdlError as error:
            print(error.render(), file=sys.stderr)
            failed += 1
            continue
        if not args.quiet:
            info = game.info
            print(f"{path}: ok ({info.name or 'untitled'}, {len(info.players)} player(s): "
                  f"{', '.join(info.players)})")
    return 1 if failed else 0


def cmd_solve(args) -> int:
    from .moves import MoveError, play
    from .solvers import solve

    game = _load(args.file, _parse_sets(args.set))
    try:
        root = play(game, _moves(args))
    except MoveError as error:
        raise UsageError(str(error)) from None
    started = time.perf_counter()
    try:
        result = solve(game, args.algorithm, depth=args.depth, root_state=root)
    except GameRuntimeError as error:
        print(_report_runtime(error, game), file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    names = game.action_name
    players = game.info.players
    if args.json:
        _json({
            "game": game.info.name, "players": list(players),
            "values": {p: json_value(v) for p, v in zip(players, result.values)},
            "best_actions": [names(a) for a in result.best_actions],
            "pv": [names(a) for a in result.pv],
            "algorithm": result.algorithm, "proven": result.proven,
            "stats": {**result.stats.as_dict(), "seconds": round(elapsed, 6)},
        })
        return 0
    values = ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, result.values))
    stats = result.stats
    print(f"{args.file}: {game.info.name}")
    print(f"  algorithm     {result.algorithm}{'' if result.proven else ' (not proven: depth-limited)'}")
    print(f"  value         {values}")
    print(f"  best actions  {' '.join(names(a) for a in result.best_actions) or '(game over)'}")
    print(f"  pv            {' '.join(names(a) for a in result.pv) or '(game over)'}")
    print(f"  nodes {stats.nodes:,}  leaves {stats.leaves:,}  cut-offs {stats.cutoffs:,}"
          + (f"  tt hits {stats.tt_hits:,}/{stats.tt_probes:,}" if stats.tt_probes else "")
          + f"  time {elapsed:.2f} s")
    return 0


def cmd_count(args) -> int:
    from .count import count

    game = _load(args.file, _parse_sets(args.set))
    try:
        result = count(game, args.depth)
    except GameRuntimeError as error:
        print(_report_runtime(error, game), file=sys.stderr)
        return 1
    if args.json:
        _json(result.as_dict())
        return 0
    print(f"{args.file}: {game.info.name}")
    for ply, nodes in enumerate(result.per_ply):
        print(f"  ply {ply:>3}  {nodes:>14,}")
    print(f"  nodes {result.nodes:,}  complete games {result.games:,}")
    print(f"  distinct states {result.states:,} ({result.states - result.terminal_states:,} "
          f"non-terminal, {result.terminal_states:,} terminal)"
          + ("" if result.complete else f"  [stopped at depth {args.depth}]"))
    return 0


# ---- the parser --------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    from .solvers import ALGORITHMS

    parser = argparse.ArgumentParser(
        prog="gdl", description="Games written as text, solved by generic search.",
        epilog="Example: gdl solve games/tictactoe.game --json")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def common(sub, many=False):
        if many:
            sub.add_argument("files", nargs="+", metavar="FILE", help="rule files (.game)")
        else:
            sub.add_argument("file", metavar="FILE", help="a rule file (.game)")
        sub.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                         help="override a `param` of the game (repeatable)")

    check = commands.add_parser("check", help="check rule files; report every problem")
    common(check, many=True)
    check.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    check.set_defaults(run=cmd_check)

    solve = commands.add_parser(
        "solve", help="solve a game: values, best actions, principal variation",
        epilog="Example (depth-limited expectiminimax): gdl solve games/pig.game --depth 2")
    common(solve)
    solve.add_argument("--algorithm", default="auto", choices=("auto",) + ALGORITHMS,
                       help="default: chosen from the game (alphabeta, expectiminimax/star2, maxn)")
    solve.add_argument("--depth", type=int, metavar="N",
                       help="search N decision plies, then use the game's `evaluate`")
    solve.add_argument("--moves", nargs="+", metavar="MOVE",
                       help='play these actions first, e.g. --moves "place(1,1) place(0,0)"')
    solve.add_argument("--json", action="store_true", help="one JSON document on stdout")
    solve.set_defaults(run=cmd_solve)

    count = commands.add_parser("count", help="perft: nodes per ply, complete games, distinct states")
    common(count)
    count.add_argument("--depth", type=int, metavar="N", help="stop after N plies")
    count.add_argument("--json", action="store_true", help="one JSON document on stdout")
    count.set_defaults(run=cmd_count)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return USAGE_ERROR
    from .solvers.result import SolverError

    try:
        return args.run(args)
    except GdlError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except (UsageError, SolverError) as error:
        print(f"gdl {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `gdl ... | head`: the reader left; that is not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
