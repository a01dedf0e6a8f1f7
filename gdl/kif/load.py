"""A KIF rule file as a game: checked, translated into gdl's language and built by gdl's own
loader (so every back end, solver and tool serves it), or, where it cannot be translated,
run by the Datalog interpreter with a note that says why.

gdl.backends.load calls ``load`` for a file named ``*.kif``, handing it the loader of rule text
(``build``), so that this package needs nothing from the back ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gdl.errors import Diagnostic, GdlError, Source
from gdl.kif import game_name, stored
from gdl.kif.check import Description, read_description
from gdl.kif.interpreter import KifGame, choosers_at_start, static_facts
from gdl.kif.translate import NotTranslatable, Translation, translate
from gdl.protocol import Game
from gdl.span import NOWHERE


def translated_name(filename: str) -> str:
    """The name the translated rules go by in messages: they are not the file's own lines."""
    return f"{filename} (as .game)"


def check_kif(text: str, filename: str, params: Mapping | None = None) -> Description:
    if params:
        names = ", ".join(sorted(params))
        raise GdlError(Diagnostic("E215", f"a KIF game has no parameters to set ({names})",
                                  NOWHERE, hint="leave out --set", excerpt=False),
                       Source(filename, text))
    return read_description(text, filename)


def translation(text: str, filename: str) -> Translation:
    """The KIF text as gdl rule text (NotTranslatable, with the reason, where it cannot be),
    from the per-user store when this text was translated before (gdl.kif.stored)."""
    key = stored.key(text, filename)
    entry = stored.read(key)
    if entry is not None:
        if "untranslatable" in entry:
            raise NotTranslatable(entry["untranslatable"])
        return _restored(entry)
    description = check_kif(text, filename)
    static = static_facts(description)
    game = KifGame(description, game_name(filename), static, walk=False)
    try:
        choosers = choosers_at_start(game)
        if len(choosers) > 1:
            # simultaneous from the start: no need to ground the rules to find it out
            raise NotTranslatable(f"{' and '.join(choosers)} choose at once at the start "
                                  "(simultaneous moves)")
        result = translate(description, static, game_name(filename), filename)
    except NotTranslatable as why:
        stored.write(key, {"untranslatable": str(why)})
        why.read = game         # the interpreter runs it instead: what it worked out is kept
        raise
    stored.write(key, {"text": result.text,
                       "moves": [[stored.as_json(m), n] for m, n in result.move_names.items()],
                       "roles": result.role_names,
                       "variables": {name: [[v, stored.as_json(p)] for v, p in values.items()]
                                     for name, values in result.variables.items()}})
    return result


def _restored(entry: dict) -> Translation:
    return Translation(entry["text"],
                       {stored.from_json(m): n for m, n in entry["moves"]},
                       dict(entry["roles"]),
                       variables={name: {v: stored.from_json(p) for v, p in values}
                                  for name, values in entry["variables"].items()})


def load(text: str, filename: str, params: Mapping | None, backend: str,
         build: Callable[..., Game]) -> Game:
    """The game of KIF text. ``backend="interpret"`` is the Datalog interpreter (the reference);
    the others translate the rules and give the text to ``build(text, filename, params,
    backend)``, gdl's loader of rule text. A game that cannot be translated runs in the
    interpreter, with ``native_note`` saying why (the command line prints it)."""
    if backend == "interpret" or params:
        description = check_kif(text, filename, params)
        return KifGame(description, game_name(filename), static_facts(description))
    try:
        result = translation(text, filename)
    except NotTranslatable as why:
        return _instead(text, filename, str(why), why.read)
    try:
        built = build(result.text, translated_name(filename), None, backend)
    except GdlError as error:
        # rule text gdl's own checks refuse (a limit of the language, such as defines nested
        # more than 48 deep): the game is still a game, run by the interpreter, with the reason
        first = error.diagnostics[0]
        return _instead(text, filename, f"its translation is refused by gdl's checks "
                                        f"({first.code}: {first.message})")
    built.kif = result         # type: ignore[attr-defined]
    return built


def _instead(text: str, filename: str, why: str, game: KifGame | None = None) -> KifGame:
    """The game run by the Datalog interpreter, with the note that says why (``game``: the
    interpreter's game as the translation left it, its static facts worked out, not walked)."""
    if game is None:
        description = check_kif(text, filename)
        game = KifGame(description, game_name(filename), static_facts(description), walk=False)
    game.walk()
    game.native_note = f"note: {filename} runs in gdl's Datalog interpreter, which is slow: {why}"
    game.native_route_missing = True       # say so whatever --backend was asked for
    return game

