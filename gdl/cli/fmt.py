"""`gdl fmt`: print rule files in the canonical layout (gdl.lang.format), comments included."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from gdl.errors import GdlError


def cmd_fmt(args) -> int:
    from gdl.lang.format import FormatError, format_text

    failed = changed = 0
    for path in args.files:
        file = Path(path)
        if not file.is_file():
            print(f"{path}: no such file", file=sys.stderr)
            failed += 1
            continue
        text = file.read_text(encoding="utf-8")
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
        differs = result != text
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
                file.write_text(result, encoding="utf-8")
                print(f"reformatted {path}", file=sys.stderr)
        elif not args.diff:
            sys.stdout.write(result)
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
