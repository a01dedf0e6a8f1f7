"""What an editor asks about a rule file, answered from gdl's own parser and checker.

Nothing here knows the language-server protocol (gdl.lsp.server does); positions are gdl's
(1-based line and column, as in ``gdl.span.Span``).

- ``problems(text, filename)``: every located diagnostic of ``gdl check`` (parse, then check).
- ``Index.build(text)``: every name the file declares — players, parameters, constants,
  variables, actions, definitions, the symbols of `{...}` domains, and local names (action
  parameters, quantifier and `for` variables, `random` picks, definition parameters) with the
  part of the file where they are visible — so ``lookup`` can answer hover and go-to-definition.
- ``completions(index)``: the language's keywords and the file's names.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from gdl.errors import Diagnostic, GdlError, Source
from gdl.lang import ast
from gdl.span import Span

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DETAIL_LINES = 4       # lines of a declaration shown on hover


def problems(text: str, filename: str = "<input>") -> list[Diagnostic]:
    """Every diagnostic `gdl check` gives for ``text`` (none when it is sound)."""
    from gdl.lang.check import check
    from gdl.lang.parse import parse

    try:
        check(parse(text, filename), Source(filename, text))
    except GdlError as error:
        return list(error.diagnostics)
    except RecursionError:
        return [Diagnostic("E103", "the file is nested too deeply to check")]
    return []


@dataclass(frozen=True)
class Definition:
    """A declared name: where its name is written (``span``), its whole declaration
    (``declaration``), what it is (``kind``), its domain as written, and for a local name the
    part of the file where it is visible (``scope``; None for file-wide names)."""

    name: str
    kind: str
    span: Span
    declaration: Span
    domain: str | None = None
    scope: Span | None = None


def _contains(span: Span, line: int, column: int) -> bool:
    if not span.line:
        return False
    after_start = (line, column) >= (span.line, span.column)
    before_end = (line, column) <= (span.end_line, span.end_column)
    return after_start and before_end


def _size(span: Span) -> tuple[int, int]:
    return (span.end_line - span.line, span.end_column - span.column)


class Index:
    """The names of one rule file (from its syntax tree; unchecked files work too)."""

    def __init__(self, text: str, definitions: list[Definition]):
        self.text = text
        self.lines = text.split("\n")
        self.definitions = definitions

    @classmethod
    def build(cls, text: str, filename: str = "<input>") -> Index | None:
        """The index of ``text``, or None when it does not parse."""
        from gdl.lang.parse import parse

        try:
            tree = parse(text, filename)
        except (GdlError, RecursionError):
            return None
        index = cls(text, [])
        index._collect(tree)
        return index

    # ---- reading the tree -------------------------------------------------------------------

    def excerpt(self, span: Span, max_lines: int = DETAIL_LINES) -> str:
        """The source text of ``span`` (its first ``max_lines`` lines)."""
        if not span.line:
            return ""
        lines = self.lines[span.line - 1:min(span.end_line, span.line - 1 + max_lines)]
        if not lines:
            return ""
        if len(lines) == 1 and span.end_line == span.line:
            return lines[0][span.column - 1:span.end_column - 1]
        lines[0] = lines[0][span.column - 1:]
        if span.end_line - span.line < max_lines:
            lines[-1] = lines[-1][:span.end_column - 1]
        else:
            lines.append("...")
        return "\n".join(line.rstrip() for line in lines)

    def _add(self, ident: ast.Ident, kind: str, declaration: Span, domain=None, scope=None):
        text = self.excerpt(domain.span) if domain is not None and hasattr(domain, "span") else None
        if isinstance(domain, ast.PlayersDomain):
            text = "players"
        elif isinstance(domain, ast.BoolDomain):
            text = "bool"
        self.definitions.append(Definition(ident.name, kind, ident.span, declaration, text, scope))

    def _collect(self, tree: ast.GameFile) -> None:
        for decl in tree.declarations:
            if isinstance(decl, ast.PlayersDecl):
                for player in decl.players:
                    self.definitions.append(Definition(player.name, "player", player.span,
                                                       decl.span, "players"))
            elif isinstance(decl, ast.ParamDecl):
                self._add(decl.name, "parameter", decl.span)
            elif isinstance(decl, ast.ConstDecl):
                if isinstance(decl.value, ast.MapLit):     # hover names the keys it may be read at
                    keys = ", ".join(key.name for key, _ in decl.value.entries)
                    self.definitions.append(Definition(decl.name.name, "map", decl.name.span,
                                                       decl.span, f"keys {{{keys}}}"))
                else:
                    self._add(decl.name, "constant", decl.span)
            elif isinstance(decl, ast.VarDecl):
                self._add(decl.name, "variable", decl.span, decl.domain)
            elif isinstance(decl, ast.ActionDecl):
                self._add(decl.name, "action", decl.span)
                for binder in decl.params:
                    self._add(binder.name, "action parameter", decl.span, binder.domain, decl.span)
            elif isinstance(decl, ast.DefineDecl):
                self._add(decl.name, "definition", decl.span)
                for param in decl.params:
                    self._add(param, "definition parameter", decl.span, scope=decl.span)
            self._locals(decl, decl)

    def _locals(self, node, decl) -> None:
        """Quantifier, `for`, `let` and `random` names inside ``node``, and the symbols of domains."""
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, (ast.Quantifier, ast.For)):
                for binder in item.binders:
                    self._add(binder.name, "bound variable", binder.span, binder.domain, item.span)
            elif isinstance(item, ast.Let):
                for name, _value in item.bindings:
                    self._add(name, "local name", name.span, scope=item.span)
            elif isinstance(item, ast.LetStmt):
                # visible for the rest of its block: approximated by the whole declaration
                self._add(item.name, "local name", item.span, scope=decl.span)
            elif isinstance(item, ast.Random):
                # visible for the rest of its block: approximated by the whole declaration
                self._add(item.name, "chance pick", item.span, item.uniform, decl.span)
            elif isinstance(item, ast.SymbolDomain):
                for symbol in item.symbols:
                    if not any(d.name == symbol.name and d.scope is None for d in self.definitions):
                        self._add(symbol, "symbol", item.span, item)
            if dataclasses.is_dataclass(item):
                for field in dataclasses.fields(item):
                    stack.extend(_children(getattr(item, field.name)))

    # ---- questions --------------------------------------------------------------------------

    def word_at(self, line: int, column: int) -> tuple[str, Span] | None:
        """The name under (or just before) the cursor at 1-based ``line``, ``column``."""
        if not 0 < line <= len(self.lines):
            return None
        for found in NAME.finditer(self.lines[line - 1]):
            if found.start() + 1 <= column <= found.end() + 1:
                return found[0], Span(line, found.start() + 1, line, found.end() + 1)
        return None

    def lookup(self, line: int, column: int) -> Definition | None:
        """The declaration of the name at the cursor: the innermost local name in scope, else the
        file-wide one."""
        word = self.word_at(line, column)
        if word is None:
            return None
        name = word[0]
        local = [d for d in self.definitions if d.name == name and d.scope is not None
                 and _contains(d.scope, line, column)]
        if local:
            return min(local, key=lambda d: _size(d.scope or d.declaration))
        return next((d for d in self.definitions if d.name == name and d.scope is None), None)

    def describe(self, definition: Definition) -> str:
        """Hover text (Markdown): what the name is, its declaration, its domain."""
        parts = [f"**{definition.name}** — {definition.kind}"]
        code = self.excerpt(definition.declaration)
        if code:
            parts.append(f"```gdl\n{code}\n```")
        if definition.domain:
            parts.append(f"domain: `{definition.domain}`")
        parts.append(f"declared at line {definition.span.line}, column {definition.span.column}")
        return "\n\n".join(parts)


def _children(value) -> list:
    if isinstance(value, tuple):
        return [v for item in value for v in _children(item)]
    return [value] if dataclasses.is_dataclass(value) and not isinstance(value, Span) else []


KIND_ORDER = ("player", "parameter", "constant", "map", "variable", "action", "definition",
              "symbol")


def completions(index: Index | None) -> list[tuple[str, str]]:
    """(label, kind) for every keyword and every file-wide name (``kind`` "keyword" or the kind
    of declaration), names first, each once."""
    seen: dict[str, str] = {}
    if index is not None:
        for definition in sorted(index.definitions, key=lambda d: KIND_ORDER.index(d.kind)
                                 if d.kind in KIND_ORDER else len(KIND_ORDER)):
            if definition.scope is None:
                seen.setdefault(definition.name, definition.kind)
    for word in keywords():
        seen.setdefault(word, "keyword")
    return list(seen.items())


def keywords() -> list[str]:
    """Every word of the language, from the grammar: the reserved words and the hyphenated
    declarations (`zero-sum`, `max-length`...)."""
    import lark

    from gdl.lang.grammar import build_parser

    words = {t.pattern.value for t in build_parser().terminals
             if isinstance(t.pattern, lark.lexer.PatternStr)
             and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*", t.pattern.value)}
    return sorted(words)
