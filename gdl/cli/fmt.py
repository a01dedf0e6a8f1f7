"""`gdl fmt`: print rule files in the canonical layout (gdl.lang.format), comments included."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from gdl.cli import USAGE_ERROR, UsageError, read_rule_text, refuse_kif, replace_file
from gdl.errors import GdlError, terminal_safe


def cmd_fmt(args) -> int:
    from gdl.lang.format import FormatError, format_text

    failed = changed = unreadable = 0
    for path in args.files:
        try:
            refuse_kif(path, "fmt")
            text = read_rule_text(path)
        except UsageError as error:
            print(f"gdl fmt: error: {error}", file=sys.stderr)
            unreadable += 1
            continue
        except GdlError as error:
            print(error.render(), file=sys.stderr)
            failed += 1
            continue
        try:
            original = Path(path).read_bytes().decode("utf-8")
        except (OSError, UnicodeError):
            original = text
        try:
            result = format_text(text, path)
        except GdlError as error:
            print(error.render(), file=sys.stderr)
            failed += 1
            continue
        except FormatError as error:  # a formatter bug: never write such a result
            print(f"gdl fmt: internal error: {error}", file=sys.stderr)
            failed += 1
            continue
        differs = result != original
        changed += differs
        if args.diff and differs:
            sys.stdout.writelines(difflib.unified_diff(
                _lines(text), _lines(result),
                fromfile=path, tofile=f"{path} (formatted)"))
        if args.check:
            if differs:
                print(f"would reformat {path}", file=sys.stderr)
        elif args.write:
            if differs:
                try:
                    replace_file(Path(path), result.encode("utf-8"))
                except OSError as error:
                    print(f"gdl fmt: error: {terminal_safe(path)}: not rewritten, left as it was: "
                          f"{error.strerror or error}", file=sys.stderr)
                    failed += 1
                    continue
                print(f"reformatted {terminal_safe(path)}", file=sys.stderr)
        elif not args.diff:
            sys.stdout.write(result)
    if unreadable:
        return USAGE_ERROR
    if failed:
        return 1
    if args.check and changed:
        print(f"{changed} file(s) would be reformatted", file=sys.stderr)
        return 1
    return 0


def _lines(text: str) -> list[str]:
    # at '\n' only, as the lexer counts lines (form feeds in comments stay where they are)
    return [line + "\n" for line in text.split("\n")[:-1]] + ([text.rsplit("\n", 1)[-1]]
                                                                if not text.endswith("\n") else [])


def register(commands) -> None:
    fmt = commands.add_parser(
        "fmt", help="print rule files in the canonical layout (comments are kept)",
        epilog="Example: gdl fmt --check games/*.game")
    fmt.add_argument("files", nargs="+", metavar="FILE", help="rule files (.game)")
    mode = fmt.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="change nothing; exit 1 if any file is not in the canonical layout")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    fmt.add_argument("--diff", action="store_true", help="print a unified diff instead of the text")
    fmt.set_defaults(run=cmd_fmt)
