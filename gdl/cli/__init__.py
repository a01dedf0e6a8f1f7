"""The `gdl` command line: the only package that prints.

Each subcommand lives in its own module of this package with a ``register(commands)`` function
that adds its argparse subparser; ``COMMAND_MODULES`` lists them in the order of `gdl --help`.
This module holds what they share: parameter parsing, loading, error reporting.

Exit codes: 0 success, 1 a problem in the game (a failed check, a rule failing in play, a game
that can go on forever), 2 a usage error (bad arguments, an algorithm that does not apply),
130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gdl.errors import GameRuntimeError, GdlError
from gdl.version import __version__

USAGE_ERROR = 2


class UsageError(Exception):
    """A mistake in the command line itself."""


# ---- shared helpers ----------------------------------------------------------------------------

def parse_sets(pairs: Sequence[str]) -> dict[str, int | bool]:
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


# The backend chosen with --backend for this run; main() sets it, load_game() uses it.
_backend = "compile"
_backend_explicit = False
# Where --backend is not given: native code for `solve` (the searches it runs natively), the
# compiled Python tier elsewhere (their work is in Python anyway, and a first load would pay
# for a C compile that nothing uses).
NATIVE_BY_DEFAULT = ("solve",)


def load_game(path: str, params: dict | None = None, backend: str | None = None):
    """Load a rule file with the command line's --backend (or ``backend``, when given)."""
    from gdl.backends.load import load

    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    game = load(path, params, backend=backend or _backend)
    found = getattr(game, "__dict__", {})
    # The note when native code was asked for, or when it is the default and cannot run here
    # (no C compiler); a game the native tier does not cover just runs in Python by default.
    if found.get("native_note") and (_backend_explicit or found.get("native_route_missing")):
        print(found["native_note"], file=sys.stderr)
    return game


def moves_arg(args) -> list[str]:
    return " ".join(args.moves or []).split()


def report_runtime(error: GameRuntimeError, game) -> str:
    """The error, with the sequence of actions that reaches the state where it happened."""
    from gdl.moves import path_to

    text = error.render()
    state = getattr(error, "state", None)
    if state is not None and game is not None:
        path = path_to(game, state, limit=200_000)
        if path is not None:
            action = getattr(error, "action", None)
            shown = " ".join(path + ([action] if action else [])) or "(the initial state)"
            text += f"\n  reached by: {shown}"
    return text


def print_json(document) -> None:
    print(json.dumps(document, indent=2))


# ---- the parser --------------------------------------------------------------------------------

COMMAND_MODULES = ("basic", "analyze", "play", "tree", "fmt", "fuzz", "show", "serve", "lsp")


def add_common(sub, many: bool = False) -> None:
    """The FILE argument(s) and --set, as every command that loads a game takes them."""
    if many:
        sub.add_argument("files", nargs="+", metavar="FILE", help="rule files (.game)")
    else:
        sub.add_argument("file", metavar="FILE", help="a rule file (.game)")
    sub.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                     help="override a `param` of the game (repeatable)")
    sub.add_argument("--backend", choices=("native", "compile", "interpret"), default=None,
                     help="run the rules and the searches it implements as generated C (native, "
                          "the default of `solve`; where it cannot run, the compiled Python tier "
                          "with a note), as generated Python (compile, the default elsewhere) or "
                          "with the reference interpreter (interpret); the results are the same")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``command``, only the command modules up to the one that defines
    it are imported and registered (start-up time), all of them when none does."""
    parser = argparse.ArgumentParser(
        prog="gdl", description="Games written as text, solved by generic search.",
        epilog="Example: gdl solve games/tictactoe.game --json")
    parser.add_argument("--version", action="version", version=f"gdl {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(commands)
        if command is not None and command in commands.choices:
            break
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = parser.parse_args(argv)
    global _backend, _backend_explicit
    _backend_explicit = getattr(args, "backend", None) is not None
    if hasattr(args, "backend") and args.backend is None:
        args.backend = "native" if args.command in NATIVE_BY_DEFAULT else "compile"
    _backend = getattr(args, "backend", None) or "compile"
    if not getattr(args, "run", None):
        parser.print_help()
        return USAGE_ERROR
    from gdl.solvers.repetition import RepetitionError
    from gdl.solvers.result import SolverError

    try:
        return args.run(args)
    except GdlError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except RepetitionError as error:  # the game itself can go on forever: a problem in it
        print(f"gdl {args.command}: error: {error}", file=sys.stderr)
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
