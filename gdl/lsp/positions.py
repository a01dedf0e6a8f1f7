"""Where a position of one version of a text is in another: the answers of an older version's
index, given at the right places of the text being edited.

While a line is half typed the file does not parse, so the language server answers from the
index of the last version that did. Its positions are that version's: an edit above the cursor
moves everything below it. ``PositionMap(old, new)`` diffs the two texts (difflib, lines first,
then the characters of the lines that changed) and maps a position through the characters the
two have in common. A position inside text that was typed or deleted since has no counterpart,
and maps to None: no answer there is better than an answer about other text.

Positions are gdl's (1-based line and column, as in ``gdl.span.Span``).
"""

from __future__ import annotations

from bisect import bisect_right
from difflib import SequenceMatcher

from gdl.lsp.index import NAME, Definition, Index, Symbol
from gdl.span import Span

# A changed region longer than this is not diffed character by character (difflib's cost grows
# with the product of the lengths): its positions are left unmapped.
MAX_CHANGED_CHARS = 20_000


class PositionMap:
    """Positions of ``old`` mapped to ``new`` and back, through the characters both keep."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new
        self._old_starts = _line_starts(old)
        self._new_starts = _line_starts(new)
        # Runs of unchanged characters: (start in old, start in new, length), sorted both ways.
        self._runs = _common_runs(old, new)
        self._old_keys = [run[0] for run in self._runs]
        by_new = sorted(self._runs, key=lambda run: run[1])
        self._by_new = by_new
        self._new_keys = [run[1] for run in by_new]

    def to_old(self, line: int, column: int) -> tuple[int, int] | None:
        """Where the character at ``line``, ``column`` of the new text was in the old one."""
        offset = _offset(self._new_starts, self.new, line, column)
        found = None if offset is None else _through(self._by_new, self._new_keys, offset, 1, 0)
        return None if found is None else _line_column(self._old_starts, found)

    def to_new(self, line: int, column: int) -> tuple[int, int] | None:
        """Where the character at ``line``, ``column`` of the old text is in the new one."""
        offset = _offset(self._old_starts, self.old, line, column)
        found = None if offset is None else _through(self._runs, self._old_keys, offset, 0, 1)
        return None if found is None else _line_column(self._new_starts, found)

    def span_to_new(self, span: Span, same_text: bool = True) -> Span | None:
        """A span of the old text in the new one, when its first and last characters are both
        still there (and, with ``same_text``, the text between them is unchanged: a name);
        else None. Without ``same_text``, a declaration whose inside is being edited still
        maps, from where it starts to where it ends."""
        if not span.line or span.end_column < 2:
            return None
        start = self.to_new(span.line, span.column)
        last = self.to_new(span.end_line, span.end_column - 1)
        if start is None or last is None or last < start:
            return None
        mapped = Span(start[0], start[1], last[0], last[1] + 1)
        if same_text and _text(self._new_starts, self.new, mapped) != _text(
                self._old_starts, self.old, span):
            return None
        return mapped


def _text(starts: list[int], text: str, span: Span) -> str | None:
    begin = _offset(starts, text, span.line, span.column)
    last = _offset(starts, text, span.end_line, span.end_column - 1)
    return None if begin is None or last is None else text[begin:last + 1]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _offset(starts: list[int], text: str, line: int, column: int) -> int | None:
    if not 0 < line <= len(starts) or column < 1:
        return None
    offset = starts[line - 1] + column - 1
    end = starts[line] - 1 if line < len(starts) else len(text)    # the line's '\n' or the end
    return offset if offset <= end else None


def _line_column(starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _through(runs: list[tuple[int, int, int]], keys: list[int], offset: int, source: int,
             target: int) -> int | None:
    """``offset`` (in the ``source`` text of the runs) in the ``target`` text, if a run keeps it."""
    at = bisect_right(keys, offset) - 1
    if at < 0:
        return None
    run = runs[at]
    if offset < run[source] + run[2]:
        return run[target] + offset - run[source]
    return None


def _common_runs(old: str, new: str) -> list[tuple[int, int, int]]:
    """The characters ``old`` and ``new`` share, in order: whole unchanged lines from a diff of
    the lines, then, inside each changed region, the characters a diff of that region keeps."""
    old_lines = old.split("\n")
    new_lines = new.split("\n")
    old_starts = _line_starts(old)
    new_starts = _line_starts(new)

    def start(starts: list[int], text: str, line: int) -> int:    # 0-based line, may be past the end
        return starts[line] if line < len(starts) else len(text) + 1

    runs: list[tuple[int, int, int]] = []
    lines = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in lines.get_opcodes():
        a, b = start(old_starts, old, i1), start(new_starts, new, j1)
        if tag == "equal":
            length = min(start(old_starts, old, i2), len(old) + 1) - a
            runs.append((a, b, length))
            continue
        if tag != "replace":
            continue
        a_end, b_end = start(old_starts, old, i2), start(new_starts, new, j2)
        if (a_end - a) + (b_end - b) > MAX_CHANGED_CHARS:
            continue
        characters = SequenceMatcher(None, old[a:a_end], new[b:b_end], autojunk=False)
        for block in characters.get_matching_blocks():
            if block.size:
                runs.append((a + block.a, b + block.b, block.size))
    return [run for run in runs if run[2] > 0]


class View:
    """An index's answers at the positions of the current ``text``: the index of this very
    text, or of the last version that parsed, its positions mapped through a PositionMap.

    A name is looked up where it now is: the word under the cursor is read from the current
    text, its place found in the indexed version (where the same word must stand), and the
    answer's places mapped back. Whatever falls in text edited since (the cursor's word, or a
    declaration's name) gets no answer."""

    def __init__(self, index: Index, text: str):
        self.index = index
        self.text = text
        self.current = index.text == text
        self.map = None if self.current else PositionMap(index.text, text)
        self.lines = text.split("\n")

    def word_at(self, line: int, column: int) -> tuple[str, Span] | None:
        """The name under (or just before) the cursor in the current text."""
        if not 0 < line <= len(self.lines):
            return None
        for found in NAME.finditer(self.lines[line - 1]):
            if found.start() + 1 <= column <= found.end() + 1:
                return found[0], Span(line, found.start() + 1, line, found.end() + 1)
        return None

    def _indexed(self, span: Span) -> tuple[int, int] | None:
        """Where the current text's name at ``span`` stands in the indexed version."""
        if self.map is None:
            return span.line, span.column
        return self.map.to_old(span.line, span.column)

    def lookup(self, line: int, column: int) -> tuple[Definition, Span] | None:
        """The declaration of the name at the cursor (in the indexed version's terms, for
        ``Index.describe``) and the name's span in the current text."""
        word = self.word_at(line, column)
        if word is None:
            return None
        name, span = word
        place = self._indexed(span)
        if place is None:
            return None
        indexed = self.index.word_at(*place)
        if indexed is None or indexed[0] != name:
            return None
        found = self.index.lookup(*place)
        return None if found is None else (found, span)

    def to_current(self, span: Span, same_text: bool = True) -> Span | None:
        """A span of the indexed version in the current text (None where it was edited)."""
        if self.map is None:
            return span
        return self.map.span_to_new(span, same_text)

    def definition(self, line: int, column: int) -> Span | None:
        found = self.lookup(line, column)
        return None if found is None else self.to_current(found[0].span)

    def references(self, line: int, column: int) -> list[Span]:
        """Every place the current text names what the cursor's name names (those still there)."""
        found = self.lookup(line, column)
        if found is None:
            return []
        mapped = (self.to_current(span) for span in self.index.references(found[0]))
        return [span for span in mapped if span is not None]

    def outline(self) -> list[Symbol]:
        """The outline, at the current text's positions: an entry whose name was edited since
        the last parse is left out; one whose extent cannot be mapped spans its name alone."""
        def place(symbol: Symbol) -> Symbol | None:
            name = self.to_current(symbol.span)
            if name is None:
                return None
            whole = self.to_current(symbol.declaration, same_text=False)
            if whole is None or not (_before(whole, name) and _before_end(name, whole)):
                whole = name
            children = tuple(c for c in (place(child) for child in symbol.children) if c is not None)
            return Symbol(symbol.name, symbol.kind, name, whole, symbol.detail, children)

        return [s for s in (place(symbol) for symbol in self.index.outline) if s is not None]


def _before(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column)


def _before_end(inner: Span, outer: Span) -> bool:
    return (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)
