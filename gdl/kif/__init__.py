"""GDL-KIF, the Stanford Game Description Language, as a second front end of gdl.

A ``.kif`` file is parsed (gdl.kif.syntax, grammars/kif.lark), read as a Datalog program
(gdl.kif.program) and checked as the GDL specification requires (gdl.kif.check). It is then run
either by the plain interpreter of its rules (gdl.kif.interpreter, the reference), or grounded
(gdl.kif.ground) and translated into an equivalent rule file of gdl's own language
(gdl.kif.translate), which every back end, solver and tool then serves unchanged.
"""

from __future__ import annotations

SUFFIX = ".kif"


def is_kif(filename: str) -> bool:
    """Whether a file name names a KIF rule file (by its suffix, in any case)."""
    return str(filename).lower().endswith(SUFFIX)


def interpreted(text: str, filename: str = "<input>"):
    """The game of KIF text, run by the Datalog interpreter (gdl.kif.interpreter.KifGame)."""
    from gdl.kif.check import read_description
    from gdl.kif.interpreter import KifGame

    description = read_description(text, filename)
    return KifGame(description, game_name(filename))


def game_name(filename: str) -> str:
    """A KIF file has no title: the game is named after its file (``ticTacToe``)."""
    from pathlib import PurePath

    stem = PurePath(str(filename)).name
    return stem[:-len(SUFFIX)] if stem.lower().endswith(SUFFIX) else stem
