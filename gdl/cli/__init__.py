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
import errno
import importlib
import json
import math
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from gdl.errors import GameRuntimeError, GdlError, terminal_safe
from gdl.version import __version__

USAGE_ERROR = 2
_OUTPUT_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE)


class UsageError(Exception):
    """A mistake in the command line itself."""


# ---- shared helpers ----------------------------------------------------------------------------

def parse_sets(pairs: Sequence[str]) -> dict[str, int | bool | str]:
    """``NAME=VALUE`` pairs: an integer, true/false, or a symbol's name (kept as written)."""
    params: dict[str, int | bool | str] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set expects NAME=VALUE, not {pair!r}")
        text = text.strip()
        if text.lower() in ("true", "false"):
            params[name.strip()] = text.lower() == "true"
            continue
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
            params[name.strip()] = text          # a symbol: the checker looks it up
            continue
        try:
            params[name.strip()] = int(text)
        except ValueError:
            raise UsageError(f"--set {name}: {text!r} is not an integer, true/false or a "
                             "symbol") from None
    return params


def seconds(text: str) -> float:
    """An argparse type: a finite, positive number of seconds (``nan`` and ``inf`` are not)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive, finite number of seconds")
    return value


def whole(low: int, high: int | None = None):
    """An argparse type: an integer from ``low`` to ``high`` (ASCII digits only)."""
    def parse(text: str) -> int:
        stripped = text.strip()
        if not stripped.lstrip("+-").isascii() or not stripped.lstrip("+-").isdigit() \
                or len(stripped) > 30:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        value = int(stripped)
        if value < low or (high is not None and value > high):
            bound = f"from {low:,} to {high:,}" if high is not None else f"at least {low:,}"
            raise argparse.ArgumentTypeError(f"{value:,} is out of range: give a number {bound}")
        return value

    parse.__name__ = "whole number"
    return parse


# The backend chosen with --backend for this run; main() sets it, load_game() uses it.
_backend = "compile"
_backend_explicit = False
# Where --backend is not given: native code for `solve` (the searches it runs natively) and
# `count` (the position walk a whole count runs over), the compiled Python tier elsewhere (their
# work is in Python anyway, and a first load would pay for a C compile that nothing uses).
NATIVE_BY_DEFAULT = ("solve", "count")


def read_rule_text(path: str) -> str:
    """A rule file's text (gdl.lang.text); a file that cannot be read is a usage error, the
    same in every command (exit 2)."""
    from gdl.lang.text import read_rule_file

    try:
        return read_rule_file(path)
    except OSError as error:
        reason = "no such file" if isinstance(error, FileNotFoundError) else (
            "a directory, not a rule file" if isinstance(error, IsADirectoryError)
            else error.strerror or str(error))
        raise UsageError(f"{terminal_safe(path)}: {reason}") from None


def refuse_kif(path: str, command: str) -> None:
    """A usage error for a command that reads gdl's rule language only, given a GDL-KIF file
    (which would otherwise fail on its first ';' or '(' with a misleading syntax error)."""
    from gdl.kif import is_kif

    if is_kif(path):
        raise UsageError(f"{terminal_safe(path)}: gdl {command} reads gdl's rule language, not "
                         f"GDL-KIF; `gdl import {terminal_safe(path)} -o GAME.game` writes the "
                         "game in it")


def load_game(path: str, params: dict | None = None, backend: str | None = None):
    """Load a rule file with the command line's --backend (or ``backend``, when given)."""
    from gdl.backends.load import loads

    game = loads(read_rule_text(path), path, params, backend=backend or _backend)
    found = getattr(game, "__dict__", {})
    # The note when native code was asked for, or when it is the default and cannot run here
    # (no C compiler); a game the native tier does not cover just runs in Python by default.
    if found.get("native_note") and (_backend_explicit or found.get("native_route_missing")):
        print(found["native_note"], file=sys.stderr)
    return game


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` over ``path`` without ever leaving it truncated: a temporary file in the
    same directory, flushed to disk, then renamed over the original, whose mode it keeps. When
    anything fails (a full disk, a quota, a file-size limit) the original is untouched."""
    import stat
    import tempfile

    refuse_foreign_links(path)
    path = Path(os.path.realpath(path))     # a symlink stays a symlink; its target is rewritten
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise



def refuse_foreign_links(path: Path) -> None:
    """Refuse (PermissionError) to write through a symbolic link another user (not root) owns,
    anywhere on the way to ``path``: in a shared directory such as /tmp they could point it at a
    file of ours and have us overwrite it (the kernel's protected_symlinks would refuse it, but
    the link is resolved here, in user space)."""
    import stat

    step = Path(os.path.abspath(path))
    seen = 0
    while True:
        for part in [step, *step.parents]:
            try:
                info = os.lstat(part)
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                if info.st_uid not in (0, os.getuid()):
                    raise PermissionError(1, f"{part} is a symbolic link another user owns; "
                                          "gdl will not write through it")
                seen += 1
                if seen > 40:                      # a loop of links: let the write fail
                    return
                step = Path(os.path.join(part.parent, os.readlink(part)), step.relative_to(part))
                break
        else:
            return


def write_output(path: str, data: bytes, option: str = "--output") -> None:
    """Write a file the user named on the command line; a path that cannot be written (a
    missing folder, a directory, no permission, a full disk) is a usage error."""
    try:
        if Path(path).is_dir():
            raise IsADirectoryError(21, "a directory, not a file")
        replace_file(Path(path), data)
    except OSError as error:
        raise UsageError(f"{option} {terminal_safe(path)}: {error.strerror or error}") from None

def add_position(parser) -> None:
    """--position, the same for every command that starts somewhere (solve, count, analyze, play)."""
    parser.add_argument("--position", action="append", default=[], metavar="NAME=VALUE;...",
                        help='start from this position: state variables by name, e.g. '
                             '--position "heap=[1, 2, 3]; mover=Second" (then --moves, if given)')


def start_state(args, game, moves: list[str] | None = None):
    """The state that --position, then --moves (or ``moves``), describe: the initial state
    without either. A mistake in either is a usage error."""
    from gdl.moves import MoveError, play

    root = None
    if getattr(args, "position", None):
        from gdl.backends.position import PositionError, parse_assignments, position

        try:
            root = position(game, parse_assignments("; ".join(args.position)))
        except PositionError as error:
            raise UsageError(f"--position: {error}") from None
    try:
        return play(game, moves_arg(args) if moves is None else moves, state=root)
    except MoveError as error:
        raise UsageError(str(error)) from None


def moves_arg(args) -> list[str]:
    """--moves, in `gdl play`'s syntax: ``"place(1,1) place(0, 0)"`` or ``"place 1 1; 3"``."""
    from gdl.moves import split_moves

    return split_moves(" ".join(args.moves or []))


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

COMMAND_MODULES = ("basic", "analyze", "play", "tree", "step", "exercise", "grade", "fmt", "fuzz",
                   "show", "serve", "lsp", "kif_import")


def add_common(sub, many: bool = False, kif: bool = True) -> None:
    """The FILE argument(s) and --set, as every command that loads a game takes them (``kif``:
    GDL-KIF files too)."""
    kinds = "(.game or .kif)" if kif else "(.game)"
    if many:
        sub.add_argument("files", nargs="+", metavar="FILE", help=f"rule files {kinds}")
    else:
        sub.add_argument("file", metavar="FILE", help=f"a rule file {kinds}")
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
    # numpy's OpenBLAS starts a spinning thread per core when numpy is imported (later, lazily);
    # gdl's arrays are indices and counts, its one linear solve a few small systems, so one
    # thread does: about 0.1 CPU s less a command (a Connect Four 5x4 strong solve: 1.17 ->
    # 1.06 CPU s, measured). A user's own setting stands.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not hasattr(sys, "set_int_max_str_digits"):
        return _main(argv)
    # Exact values are printed in full, however long: the rules bound how large they get
    # (literals and constants, E232), and a traceback is no way to show a big utility. The
    # process-wide limit is put back afterwards (main() is also called as a function).
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return _main(argv)
    finally:
        sys.set_int_max_str_digits(previous)


def _main(argv: list[str]) -> int:
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:     # argparse's usage errors (and --help, --version): a code, not an exit
        return exit.code if isinstance(exit.code, int) else USAGE_ERROR
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
        code = args.run(args)
        sys.stdout.flush()    # a full disk or a closed pipe is met here, not at interpreter exit
        return code
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
    except MemoryError:
        print(f"gdl {args.command}: error: out of memory (the game or the table asked for is too "
              "large for this machine)", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # `gdl ... | head`: the reader left; that is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        if error.errno not in _OUTPUT_ERRORS:
            raise
        # stdout is full or gone (`gdl ... > /dev/full`): say so once, and drop what is buffered
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"gdl {args.command}: error: cannot write the output: {error.strerror}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
