"""Changes the language server offers to make to a rule file: renaming a name everywhere, and the
quick fixes that the hints of gdl's diagnostics name. Every change is checked before it is
offered: the changed text is parsed and checked again, and a rename that would add a problem is
refused (with the problem), a quick fix that would not remove its diagnostic is not offered.

Positions are gdl's (1-based line and column); an edit is (span, new text).

Quick fixes are read off what a diagnostic already carries, its hint and its span:
- "did you mean 'X'?" (unknown names, players, rules): the name becomes X;
- "write `NEW` (not `OLD`)" (`||`, `&&`, `<>`): OLD at the caret becomes NEW;
- "write `NEW`" (`=` to compare, `True`, `elif`, `!`, ...): the text at the caret becomes NEW;
- "`/` divides exactly ...; write `//`": the one `/` in the expression becomes `//`;
- "a block is written in braces, with no ':' before it": the ':' goes;
- "end the statement before `let` with ';'": a ';' after the statement before;
- "call it something else, e.g. 'X'" (a reserved word as a name): the name becomes X everywhere;
- "declare `zero-sum`": a `zero-sum` line at the end.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from gdl.errors import Diagnostic
from gdl.lsp.index import NAME, Index, keywords, problems
from gdl.span import Span

Edit = tuple[Span, str]


class RenameRefused(Exception):
    """The rename asked for would break the file, or names nothing the file declares."""


@dataclass(frozen=True)
class Fix:
    """A quick fix: what the editor shows, the edits, and whether it is *the* fix (a hint
    names one replacement) rather than one of several."""

    title: str
    edits: tuple[Edit, ...]
    preferred: bool = True


def apply(text: str, edits: list[Edit] | tuple[Edit, ...]) -> str:
    """``text`` with ``edits`` made (spans of ``text``, not overlapping)."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)

    def offset(line: int, column: int) -> int:
        return min(starts[line - 1] + column - 1, len(text))

    out, at = [], 0
    for span, new in sorted(edits, key=lambda edit: (edit[0].line, edit[0].column)):
        begin, end = offset(span.line, span.column), offset(span.end_line, span.end_column)
        out.append(text[at:begin])
        out.append(new)
        at = end
    out.append(text[at:])
    return "".join(out)


# ---- rename ---------------------------------------------------------------------------------

def reserved() -> set[str]:
    """Words no name may take: the language's keywords, and `opponent` (the built-in other
    player of a two-player game, which a declaration of that name would hide)."""
    from gdl.lang.grammar import reserved_words

    return set(keywords()) | set(reserved_words()) | {"opponent"}


def rename(index: Index, line: int, column: int, new_name: str, filename: str = "<input>"
           ) -> list[Edit]:
    """The edits that rename the name at the cursor, declaration and every use, to
    ``new_name``; RenameRefused, saying why, when the name is not declared in the file or the
    new name is not a name, is a reserved word, is taken where the renamed name is visible, or
    would make the file check worse."""
    found = index.lookup(line, column)
    if found is None:
        word = index.word_at(line, column)
        raise RenameRefused(f"'{word[0]}' is not declared in this file" if word
                            else "there is no name at the cursor")
    if not NAME.fullmatch(new_name):
        raise RenameRefused(f"'{new_name}' is not a name: a letter or '_', then letters, "
                            "digits or '_'")
    if new_name in reserved():
        raise RenameRefused(f"'{new_name}' is a reserved word and cannot be a name")
    if new_name == found.name:
        return []
    for other in index.definitions:
        if other.name != new_name:
            continue
        if found.scope is None or other.scope is None or _overlap(found.scope, other.scope):
            raise RenameRefused(f"'{new_name}' is already the name of a {other.kind} "
                                f"(line {other.span.line}, column {other.span.column})")
    edits = [(span, new_name) for span in index.references(found)]
    after = problems(apply(index.text, edits), filename)
    added = Counter(p.code for p in after) - Counter(p.code for p in problems(index.text, filename))
    new = [p for p in after if added[p.code] > 0]
    if new:
        raise RenameRefused(f"renaming '{found.name}' to '{new_name}' would give: {new[0].message}")
    return edits


def _overlap(a: Span, b: Span) -> bool:
    return (a.line, a.column) <= (b.end_line, b.end_column) and (
        b.line, b.column) <= (a.end_line, a.end_column)


# ---- quick fixes ----------------------------------------------------------------------------

DID_YOU_MEAN = re.compile(r"did you mean [`'\"]([^`'\"]+)[`'\"]")
WRITE_NOT = re.compile(r"write `([^`]+)`[^;`]*\(not `([^`]+)`\)")
WRITE = re.compile(r"write `([^`]+)`")
SOMETHING_ELSE = re.compile(r"call it something else, e\.g\. '([^']+)'")
DIVIDES = "`/` divides exactly"
NO_COLON = "with no ':' before it"
SEMICOLON_BEFORE_LET = "end the statement before `let` with ';'"
DECLARE_ZERO_SUM = "declare `zero-sum`"


def quick_fixes(text: str, problem: Diagnostic, index: Index | None = None,
                filename: str = "<input>") -> list[Fix]:
    """The fixes ``problem``'s hint names, each checked to remove the problem from ``text``
    (``index``: the index of ``text``, needed for a fix that renames)."""
    hint = problem.hint or ""
    span = problem.span
    if not hint or not span.line:
        return []
    lines = text.split("\n")
    if span.line > len(lines):
        return []
    at = _text_at(lines, span)
    candidates: list[Fix] = []
    meant = DID_YOU_MEAN.search(hint)
    if meant and NAME.fullmatch(at or ""):
        candidates.append(Fix(f"Replace '{at}' with '{meant[1]}'", ((span, meant[1]),)))
    instead = SOMETHING_ELSE.search(hint)
    if instead and index is not None and index.text == text:
        try:
            edits = rename(index, span.line, span.column, instead[1], filename)
        except RenameRefused:
            edits = []
        if edits:
            candidates.append(Fix(f"Rename '{at}' to '{instead[1]}'", tuple(edits)))
    if DIVIDES in hint and at is not None:
        slashes = [m.start() for m in re.finditer(r"(?<!/)/(?!/)", at)]
        if len(slashes) == 1 and span.line == span.end_line:
            where = span.column + slashes[0]
            candidates.append(Fix("Write `//` (floor division)",
                                  ((Span(span.line, where, span.line, where + 1), "//"),), False))
    swapped = WRITE_NOT.search(hint)
    if swapped:
        old_span = _find_around(lines, span, swapped[2])
        if old_span is not None:
            candidates.append(Fix(f"Write `{swapped[1]}`",
                                  ((old_span, _spaced(lines, old_span, swapped[1])),)))
    elif WRITE.search(hint) and at and not any(c.isspace() for c in at):
        new = WRITE.search(hint)[1]         # type: ignore[index]  # searched just above
        target = span
        if new == "else if" and at != "elif":
            target = _word_before(lines, span, "elif") or span
        candidates.append(Fix(f"Write `{new}`", ((target, _spaced(lines, target, new)),)))
    if NO_COLON in hint and at == ":":
        candidates.append(Fix("Remove the ':'", ((span, ""),)))
    if SEMICOLON_BEFORE_LET in hint:
        end = _end_of_text_before(lines, span)
        if end is not None:
            candidates.append(Fix("Add ';' before `let`", ((end, ";"),)))
    if DECLARE_ZERO_SUM in hint:
        end_of_file = Span(len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 1)
        line = "zero-sum\n" if lines[-1] == "" else "\nzero-sum\n"    # on a line of its own
        candidates.append(Fix("Add `zero-sum`", ((end_of_file, line),), False))
    return [fix for fix in candidates if _removes(text, fix, problem, filename)]


def _removes(text: str, fix: Fix, problem: Diagnostic, filename: str) -> bool:
    """Whether the fixed text no longer has ``problem`` (same code, message and place)."""
    after = problems(apply(text, fix.edits), filename)
    return not any(p.code == problem.code and p.message == problem.message
                   and (p.span.line, p.span.column) == (problem.span.line, problem.span.column)
                   for p in after)


def _text_at(lines: list[str], span: Span) -> str | None:
    """The text of a one-line span, None for a longer one."""
    if span.end_line != span.line or span.end_column <= span.column:
        return None
    return lines[span.line - 1][span.column - 1:span.end_column - 1]


def _find_around(lines: list[str], span: Span, old: str) -> Span | None:
    """The occurrence of ``old`` on the caret's line that overlaps the caret."""
    text = lines[span.line - 1]
    for found in re.finditer(re.escape(old), text):
        if found.start() + 1 <= span.column <= found.end():
            return Span(span.line, found.start() + 1, span.line, found.end() + 1)
    return None


def _word_before(lines: list[str], span: Span, word: str) -> Span | None:
    """``word`` as the last word before the caret on its line."""
    before = lines[span.line - 1][:span.column - 1]
    found = re.search(rf"\b{re.escape(word)}\s*$", before)
    if found is None:
        return None
    return Span(span.line, found.start() + 1, span.line, found.start() + 1 + len(word))


def _spaced(lines: list[str], span: Span, new: str) -> str:
    """``new`` with a space on each side where it would otherwise run into a name (`a||b` to
    `a or b`, `!x` to `not x`)."""
    text = lines[span.line - 1]
    before = text[span.column - 2] if span.column > 1 else " "
    after = text[span.end_column - 1] if span.end_column - 1 < len(text) else " "
    word = NAME.fullmatch(new.split()[0]) if new.strip() else None
    if word and (before.isalnum() or before in "_)]"):
        new = " " + new
    if word and (after.isalnum() or after in "_(["):
        new = new + " "
    return new


def _end_of_text_before(lines: list[str], span: Span) -> Span | None:
    """An empty span just after the last character before the caret that is not white space."""
    line, column = span.line, span.column - 1
    while line >= 1:
        text = lines[line - 1][:column] if line == span.line else lines[line - 1]
        stripped = text.split("#")[0].rstrip() if "#" in text else text.rstrip()
        if stripped:
            return Span(line, len(stripped) + 1, line, len(stripped) + 1)
        line -= 1
    return None
