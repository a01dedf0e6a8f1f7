"""Located errors. Every problem in a rule file becomes a Diagnostic with a stable code and a span;
``GdlError`` carries one or more of them and renders gcc-style with a caret excerpt.

Codes (stable; tests assert codes and positions, never wording):

  E1xx syntax      E100 unexpected token, E101 unexpected character, E102 unexpected end of file,
                   E103 nested too deeply, E104 not UTF-8 text, E105 rule text too large
  E2xx checking    E200 duplicate declaration, E201 unknown name, E202 wrong number of arguments,
                   E203 type mismatch, E204 value outside its declared domain, E205 no players,
                   E206 no terminal condition, E207 missing utility, E208 utility or evaluation for
                   an unknown player, E209 unknown player in `by`, E210 empty (or too large)
                   range, E211 not a constant, E212 recursive definition, E213 cannot assign to
                   this name, E214 wrong number of indices, E215 bad parameter override, E216 bad
                   explicit tree, E217 invalid probabilities, E218 tree and rules mixed, E219 no
                   actions, E220 index out of range, E221 division by zero, E223 nothing to display,
                   E224 a reserved word used as a name, E225 `when stuck lose | win` without
                   two players, E226 `mover` in `init`, E227 `random` inside `repeat`, E228 `when
                   endless` without a sum or off the declared sum or bounds, E229 `private`
                   or `hidden` naming what they cannot hide, E231 `when stuck` with
                   `simultaneous`, E230 a
                   control character in a string, E232 a number too large (a literal, or a
                   constant's value)
  E3xx run time    E301 value leaves its domain, E302 division by zero, E303 index out of range,
                   E304 no legal action and no pass rule, E305 invalid probabilities at a chance
                   node
  E4xx playing     (`gdl check --deep`, gdl.tools.validate; each with the actions that reach it)
                   E400 a non-terminal state without a legal action (a dead end; E304 in play),
                   E401 legal actions at a terminal state, E402 legal actions or chance outcomes
                   duplicated or in an unstable order, E403 apply not deterministic, E404 invalid
                   chance outcomes (E305 in play), E405 utilities not one exact value per player,
                   E406 a utility outside the declared bounds, E407 utilities that break the
                   declared zero-sum / constant-sum, E408 a play longer than the length bound,
                   E409 a cycle with no length bound (the game may not terminate), E410 a rule
                   failed in play (E301-E303, E306), E411 an invalid player to move,
                   E412 (warning) a one-player game whose declared best utility is unreachable,
                   E413 a move that lowers the declared `tier` (gdl solve --strong by tiers),
                   E414 (warning) an action that is never legal, E415 (warning) a comparison
                   in a `requires` that is always false (or always true) where it is evaluated,
                   E416 an information state whose positions offer different actions, E417 a
                   game without perfect recall (a player forgets what it saw)

A diagnostic whose fix is one edit of the text also carries it, machine-readable, as ``fix``
(a ``Fix``: the span to replace and the text to put there; ``None`` otherwise), so that an
editor can offer it as a quick fix; the hint says the same in words. The field is optional and
comes last, so code that builds or reads diagnostics without it is unchanged.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from gdl.span import NOWHERE, Span

EXCERPT_WIDTH = 120   # characters of a source line shown under an error

# Bidirectional overrides and isolates reorder what a terminal shows ("Trojan Source").
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def is_control(char: str) -> bool:
    """A character a terminal acts on rather than shows: C0/C1 controls, DEL, bidi controls."""
    return unicodedata.category(char) == "Cc" or char in _BIDI_CONTROLS


def terminal_safe(text: str, keep: str = "\n", width_one: bool = False) -> str:
    """``text`` with every control character but those in ``keep`` made harmless: escaped as
    ``\\x1b`` (or, with ``width_one``, replaced by U+FFFD so that columns stay aligned). Text a
    rule file or a command line supplies passes through here before it reaches a terminal."""
    if not any(is_control(c) for c in text):
        return text
    return "".join(c if c in keep or not is_control(c)
                   else "\ufffd" if width_one else ascii(c)[1:-1] for c in text)


@dataclass(frozen=True)
class Source:
    filename: str
    text: str

    def lines(self) -> list[str]:
        """The text's lines as the lexer counts them: split at '\\n' only (str.splitlines would
        also split at form feeds and other separators inside comments and strings)."""
        lines = [line.rstrip("\r") for line in self.text.split("\n")]
        if len(lines) > 1 and not lines[-1]:
            lines.pop()     # the final newline ends the last line; it does not start another
        return lines

    def line(self, number: int) -> str:
        lines = self.lines()
        return lines[number - 1] if 0 < number <= len(lines) else ""


@dataclass(frozen=True)
class Fix:
    """One edit that fixes a diagnostic: replace the text at ``span`` (on one line; the end
    column is exclusive, columns count from 1) with ``replacement`` (an empty span inserts)."""

    span: Span
    replacement: str

    def apply(self, text: str) -> str:
        """``text`` with the edit made (lines split at '\\n', as the lexer counts them)."""
        lines = text.split("\n")
        line = lines[self.span.line - 1]
        lines[self.span.line - 1] = (line[:self.span.column - 1] + self.replacement
                                     + line[self.span.end_column - 1:])
        return "\n".join(lines)


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    span: Span = NOWHERE
    hint: str | None = None
    notes: tuple[str, ...] = field(default=())
    # False for a mistake made on the command line (`--set`): the position names the declaration
    # concerned, but the file's line is not where the mistake is, so no caret points into it
    excerpt: bool = True
    # the single edit that fixes it, where there is one (a quick fix for editors; see above)
    fix: Fix | None = None

    def render(self, source: Source | None) -> str:
        where = terminal_safe(source.filename) if source else "<input>"
        if self.span.line:
            where += f":{self.span.line}:{self.span.column}"
        out = [f"{where}: error[{self.code}]: {terminal_safe(self.message)}"]
        if source is not None and self.span.line and self.excerpt:
            text = terminal_safe(source.line(self.span.line).expandtabs(1), keep="", width_one=True)
            width = 1
            if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                width = self.span.end_column - self.span.column
            column = self.span.column
            if len(text) > EXCERPT_WIDTH:   # a window of a long line, not the whole of it
                start = max(0, min(column - 1 - EXCERPT_WIDTH // 4, len(text) - EXCERPT_WIDTH))
                text = ("…" if start else "") + text[start:start + EXCERPT_WIDTH] + (
                    "…" if start + EXCERPT_WIDTH < len(text) else "")
                column = column - start + (1 if start else 0)
                width = max(1, min(width, len(text) - column + 1))
            gutter = f"{self.span.line:>4} | "
            out.append(gutter + text)
            out.append(" " * (len(gutter) + column - 1) + "^" + "~" * (width - 1))
        out.extend(f"  note: {terminal_safe(note)}" for note in self.notes)
        if self.hint:
            out.append(f"  hint: {terminal_safe(self.hint)}")
        return "\n".join(out)


class GdlError(Exception):
    """A user's mistake (or a rule that misbehaves in play), located in the rule file."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic, source: Source | None = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.span.line, d.span.column))
        self.source = source
        super().__init__(self.render())

    @property
    def code(self) -> str:
        return self.diagnostics[0].code

    @property
    def span(self) -> Span:
        return self.diagnostics[0].span

    def with_source(self, source: Source) -> GdlError:
        return type(self)(self.diagnostics, source) if self.source is None else self

    def render(self) -> str:
        return "\n".join(d.render(self.source) for d in self.diagnostics)


class GameRuntimeError(GdlError):
    """A rule misbehaved while the game was played (E3xx); names the actions that led there."""

    state: object = None            # the state where it happened (set by the back end)
    action: str | None = None       # the action being applied then, by name


def did_you_mean(name: str, candidates) -> str | None:
    import difflib

    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
