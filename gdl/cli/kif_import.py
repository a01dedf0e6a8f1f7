"""`gdl import FILE.kif`: a GDL-KIF game written as an equivalent rule file of gdl's language.

The translation is the one every command runs a KIF file through (gdl.kif.translate): the rules
grounded, each group of propositions that holds one value at a time a variable, each move an
action, the player to move computed from the state; names kept (``(mark 1 1)`` is the action
``mark_1_1``, ``(cell 1 1 b)`` the variable ``cell_1_1`` with the value ``b``), self-mapping
updates as tables. The file it writes solves to the same values, and authors can start from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gdl.cli import UsageError, read_rule_text, write_output
from gdl.errors import terminal_safe


def cmd_import(args) -> int:
    from gdl.kif import is_kif
    from gdl.kif.load import translation
    from gdl.kif.translate import NotTranslatable

    if not is_kif(args.file):
        raise UsageError(f"{terminal_safe(args.file)}: gdl import reads GDL-KIF files, named *.kif")
    text = read_rule_text(args.file)
    try:
        result = translation(text, args.file)
        refused_by_checks(result.text, args.file)
    except NotTranslatable as why:
        # the other commands run such a game in the interpreter: load it there, so that rules
        # it cannot play either (a role without a legal move, K301) are reported as such
        from gdl.kif import interpreted

        game = interpreted(text, args.file)
        solvers = " (with the simultaneous-move solvers)" if game.info.simultaneous else ""
        print(f"{terminal_safe(args.file)}: not translated: {why}; gdl still plays and solves "
              f"it{solvers}, with its Datalog interpreter (gdl solve, play, ... take the .kif "
              "file itself)", file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(result.text)
        return 0
    output = args.output or str(Path(args.file).with_suffix(".game"))
    if Path(output).exists() and not args.force:
        raise UsageError(f"{terminal_safe(output)} exists: give --force to replace it, or -o "
                         "another file (-o - prints the rules)")
    write_output(output, result.text.encode("utf-8"), "--output")
    print(f"{terminal_safe(output)}: {len(result.text.splitlines()):,} lines, "
          f"{len(result.move_names):,} moves, {len(result.variables):,} variables "
          f"(from {terminal_safe(args.file)})", file=sys.stderr)
    return 0


def refused_by_checks(text: str, filename: str) -> None:
    """NotTranslatable when gdl's own checks refuse the translated rules (a limit of the
    language, such as defines nested more than 48 deep): no .game file that gdl cannot read."""
    from gdl.backends.load import loads
    from gdl.errors import GdlError
    from gdl.kif.load import translated_name
    from gdl.kif.translate import NotTranslatable

    try:
        loads(text, translated_name(filename), backend="interpret")
    except GdlError as error:
        first = error.diagnostics[0]
        raise NotTranslatable(f"its translation is refused by gdl's checks ({first.code}: "
                              f"{first.message})") from None


def register(commands) -> None:
    command = commands.add_parser(
        "import", help="write a GDL-KIF game (.kif) as an equivalent rule file (.game)",
        epilog="Example: gdl import ticTacToe.kif -o tictactoe.game")
    command.add_argument("file", metavar="FILE", help="a GDL-KIF rule file (.kif)")
    command.add_argument("-o", "--output", metavar="OUT",
                         help="where to write the rules (default: FILE with the suffix .game; "
                              "- prints them)")
    command.add_argument("--force", action="store_true", help="replace OUT if it exists")
    command.set_defaults(run=cmd_import)
