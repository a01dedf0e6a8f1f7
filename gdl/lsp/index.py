"""What an editor asks about a rule file, answered from gdl's own parser and checker.

Nothing here knows the language-server protocol (gdl.lsp.server does); positions are gdl's
(1-based line and column, as in ``gdl.span.Span``).

- ``problems(text, filename)``: every located diagnostic of ``gdl check`` (parse, then check).
- ``Index.build(text)``: every name the file declares — players, parameters, constants,
  variables, actions, definitions, the symbols of `{...}` domains, and local names (action
  parameters, quantifier and `for` variables, `random` picks, definition parameters) with the
  part of the file where they are visible — so ``lookup`` can answer hover and go-to-definition.
- ``Index.references(definition)``: every place the file names a declaration (its own name
  included), for references, highlights and rename.
- ``Index.outline``: the declarations as an editor's outline (players, parameters, constants,
  variables with their symbols, actions and definitions with their parameters, and the rules,
  `simultaneous`, `private` and `hidden` among them, each listing the names it declares so).
- Hover on a variable or action a `private` or `hidden` declaration names says who sees it,
  and where that is declared; the names in those lists are references like any other use.
- ``Index.signature(name)`` and ``call_at(text, line, column)``: the parameters of the
  definition, action or built-in whose call the cursor is in, and which one it is at.
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
    # an action's or a definition's parameters as written (`r in 0..2`, `p`); None for others
    params: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Symbol:
    """One entry of the outline: a name (or a rule, `utility X`), what it is, a short detail
    (a domain, a parameter list), where its name is (``span``), the whole declaration, and the
    entries inside it."""

    name: str
    kind: str
    span: Span
    declaration: Span
    detail: str = ""
    children: tuple[Symbol, ...] = ()


@dataclass(frozen=True)
class Signature:
    """What a call's parentheses take: ``label`` as shown (`line(p)`), one label per parameter,
    and what the name is."""

    name: str
    kind: str
    params: tuple[str, ...]
    documentation: str = ""

    @property
    def label(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


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
        self.occurrences: list[tuple[str, Span]] = []   # every name the file writes, where
        self.outline: list[Symbol] = []
        self._block_scopes: dict[int, Span] = {}       # id of a `let`/`random` statement: its scope
        # who sees a name: `private` or `hidden`, with the span of the name in that declaration
        self.visibility: dict[str, tuple[str, Span]] = {}

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

    def _add(self, ident: ast.Ident, kind: str, declaration: Span, domain=None, scope=None,
             params=None) -> Definition:
        text = self.excerpt(domain.span) if domain is not None and hasattr(domain, "span") else None
        if isinstance(domain, ast.PlayersDomain):
            text = "players"
        elif isinstance(domain, ast.BoolDomain):
            text = "bool"
        definition = Definition(ident.name, kind, ident.span, declaration, text, scope, params)
        self.definitions.append(definition)
        return definition

    def _collect(self, tree: ast.GameFile) -> None:
        for decl in tree.declarations:
            symbols_before = len(self.definitions)
            children: tuple[Symbol, ...] = ()
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
                params = tuple(self.excerpt(binder.span, 1) for binder in decl.params)
                self._add(decl.name, "action", decl.span, params=params)
                children = tuple(self._symbol(self._add(binder.name, "action parameter", decl.span,
                                                        binder.domain, decl.span), binder.span)
                                 for binder in decl.params)
            elif isinstance(decl, (ast.PrivateDecl, ast.HiddenDecl)):
                word = "private" if isinstance(decl, ast.PrivateDecl) else "hidden"
                for name in decl.names:
                    self.visibility.setdefault(name.name, (word, name.span))
            elif isinstance(decl, ast.DisplayMoveDecl):
                # `display drop(c) as cell[c]`: c names drop's parameter in this line only
                for name in decl.names or ():
                    self._add(name, "move parameter", decl.span, scope=decl.span)
            elif isinstance(decl, ast.DefineDecl):
                self._add(decl.name, "definition", decl.span,
                          params=tuple(param.name for param in decl.params))
                children = tuple(self._symbol(self._add(param, "definition parameter", decl.span,
                                                        scope=decl.span), param.span)
                                 for param in decl.params)
            self._block_scopes.update(_block_scopes(decl))
            self._locals(decl, decl)
            self._occurrences(decl)
            self.outline.extend(self._outline_entries(decl, self.definitions[symbols_before:],
                                                      children))

    def _symbol(self, definition: Definition, declaration: Span | None = None) -> Symbol:
        detail = definition.domain or ""
        if definition.params is not None:
            detail = f"({', '.join(definition.params)})"
        return Symbol(definition.name, definition.kind, definition.span,
                      declaration or definition.declaration, detail)

    def _outline_entries(self, decl, added: list[Definition], children: tuple[Symbol, ...]
                         ) -> list[Symbol]:
        """The outline entries of one declaration: its names (the symbols its domains declare
        first listed inside it), or, for a rule, one entry named after the rule."""
        named = [d for d in added if d.scope is None and d.kind != "symbol"]
        symbols = tuple(self._symbol(d, d.span) for d in added if d.kind == "symbol")
        if isinstance(decl, ast.PlayersDecl):
            return [self._symbol(d, d.span) for d in named]
        if named:
            return [dataclasses.replace(self._symbol(named[0]), children=children + symbols)]
        rule = _rule_name(decl)
        if rule is None:
            return []
        name, where = rule
        first_line = self.excerpt(decl.span, 1).split("\n")[0]
        detail = first_line[len(name):].strip() if first_line.startswith(name) else ""
        return [Symbol(name, "rule", where or Span(decl.span.line, decl.span.column, decl.span.line,
                                                   decl.span.column + len(name.split()[0])),
                       decl.span, detail[:60], symbols)]

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
                # visible for the rest of its block
                self._add(item.name, "local name", item.span,
                          scope=self._block_scopes.get(id(item), decl.span))
            elif isinstance(item, ast.Random):
                # visible for the rest of its block
                self._add(item.name, "chance pick", item.span, item.uniform,
                          self._block_scopes.get(id(item), decl.span))
            elif isinstance(item, ast.SymbolDomain):
                for symbol in item.symbols:
                    if not any(d.name == symbol.name and d.scope is None for d in self.definitions):
                        self._add(symbol, "symbol", item.span, item)
            if dataclasses.is_dataclass(item):
                for field in dataclasses.fields(item):
                    stack.extend(_children(getattr(item, field.name)))

    def _occurrences(self, decl) -> None:
        """Every name ``decl`` writes that may name a declaration: identifiers in the syntax
        tree, and the keys of a `display`'s glyphs (kept as text by the parser). The words of
        `when stuck` and `when endless` and the edge labels of an explicit tree name nothing."""
        found = self.occurrences
        if isinstance(decl, ast.DisplayDecl):
            found.append((decl.name.name, decl.name.span))
            found.extend(self._glyph_keys(decl))
            return
        stack: list = [decl]
        if isinstance(decl, ast.StuckDecl):
            return
        if isinstance(decl, ast.EndlessDecl):
            stack = list(decl.values)
        while stack:
            item = stack.pop()
            if isinstance(item, (ast.Ident, ast.Name)):
                if item.span.line:
                    found.append((item.name, item.span))
                continue
            if isinstance(item, ast.TreeDecision):
                stack.append(item.player)
                stack.extend(child for _, child in item.edges)
                continue
            if isinstance(item, ast.ChanceEdge):
                stack.append(item.child)
                continue
            if dataclasses.is_dataclass(item):
                for field in dataclasses.fields(item):
                    stack.extend(_children(getattr(item, field.name)))

    def _glyph_keys(self, decl: ast.DisplayDecl) -> list[tuple[str, Span]]:
        """The names before ':' in `display cell as {empty: ".", X: "X"}`, outside strings."""
        keys: list[tuple[str, Span]] = []
        text = self.excerpt(decl.span, max_lines=decl.span.end_line - decl.span.line + 1)
        opening = text.find("{")
        if opening < 0:
            return keys
        for found in _GLYPH_KEY.finditer(text, opening):
            if found.group(1) is None:
                continue        # a string
            before = text[:found.start(1)]
            line = decl.span.line + before.count("\n")
            column = (len(before) - before.rfind("\n") if "\n" in before
                      else decl.span.column + len(before))
            keys.append((found.group(1), Span(line, column, line, column + len(found.group(1)))))
        return keys

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

    def references(self, definition: Definition) -> list[Span]:
        """Every place the file names ``definition``, its declaration included, in order."""
        return sorted((span for name, span in self.occurrences
                       if name == definition.name and self.lookup(span.line, span.column) is definition),
                      key=lambda span: (span.line, span.column))

    def signature(self, name: str) -> Signature | None:
        """The parameters of the definition or action called ``name``, or of a built-in."""
        found = next((d for d in self.definitions if d.name == name and d.scope is None
                      and d.params is not None), None)
        if found is not None:
            what = ("a definition: the parameters take any value" if found.kind == "definition"
                    else f"an action: its moves are written {name}(...) (gdl play, --moves)")
            return Signature(name, found.kind, found.params or (), what)
        return BUILTINS.get(name)

    def describe(self, definition: Definition) -> str:
        """Hover text (Markdown): what the name is, its declaration, its domain."""
        parts = [f"**{definition.name}** — {definition.kind}"]
        code = self.excerpt(definition.declaration)
        if code:
            parts.append(f"```gdl\n{code}\n```")
        if definition.domain:
            parts.append(f"domain: `{definition.domain}`")
        seen = self.visibility.get(definition.name) if definition.scope is None else None
        if seen is not None and definition.kind in ("variable", "action"):
            word, where = seen
            meaning = ("each player sees its own entry only" if word == "private" else
                       "no player sees it" if definition.kind == "variable" else
                       "the other players do not see that it was chosen, nor its parameters")
            parts.append(f"{word}: {meaning} (`{word} {definition.name}`, line {where.line})")
        parts.append(f"declared at line {definition.span.line}, column {definition.span.column}")
        return "\n\n".join(parts)


# A name followed by ':' (a glyph's key), or a string (skipped: its text is no name).
_GLYPH_KEY = re.compile(r'"[^"\n]*"|([A-Za-z_][A-Za-z0-9_]*)\s*:')

BUILTINS = {
    "abs": Signature("abs", "built-in", ("x",), "the absolute value of a number"),
    "min": Signature("min", "built-in", ("a", "b", "..."), "the least of two or more numbers"),
    "max": Signature("max", "built-in", ("a", "b", "..."), "the greatest of two or more numbers"),
}

# Words that start a declaration: an unclosed '(' before one of them is no call the cursor is in.
_DECLARATION_WORDS = frozenset({"game", "param", "const", "var", "action", "define", "terminal",
                                "utility", "evaluate", "quiet", "tier", "when", "display", "tree",
                                "init", "zero-sum", "constant-sum", "max-length", "simultaneous",
                                "private", "hidden"})
_CALL_TOKENS = re.compile(r'"[^"\n]*"?|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*|[()\[\]{},]')


def call_at(text: str, line: int, column: int) -> tuple[str, int] | None:
    """The name whose call's parentheses hold the cursor at 1-based ``line``, ``column``, and
    the 0-based number of the argument it is in: from the text as it is, parsed or not (a call
    being typed does not parse). Comments and strings are skipped; brackets nest."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return None
    offset = sum(len(item) + 1 for item in lines[:line - 1]) + min(column - 1, len(lines[line - 1]))
    stack: list[list] = []      # open brackets: [bracket, name before it, commas]
    previous = None
    for token in _CALL_TOKENS.finditer(text, 0, offset):
        word = token.group()
        if word in _DECLARATION_WORDS:
            stack.clear()
        elif word in "([{":
            stack.append([word, previous if word == "(" else None, 0])
        elif word in ")]}":
            if stack:
                stack.pop()
        elif word == "," and stack:
            stack[-1][2] += 1
        previous = word if NAME.fullmatch(word) else None
    for bracket, name, commas in reversed(stack):
        if bracket == "(":
            return (name, commas) if name is not None else None
    return None


def _block_scopes(decl) -> dict[int, Span]:
    """For each `let` and `random` statement in ``decl``: where its name is visible, from the
    statement to the end of its block (the last statement of the same list)."""
    scopes: dict[int, Span] = {}
    stack = [decl]
    while stack:
        item = stack.pop()
        if not dataclasses.is_dataclass(item) or isinstance(item, Span):
            continue
        for field in dataclasses.fields(item):
            value = getattr(item, field.name)
            if isinstance(value, tuple) and value and any(
                    isinstance(v, (ast.LetStmt, ast.Random)) for v in value):
                last = value[-1].span
                for statement in value:
                    if isinstance(statement, (ast.LetStmt, ast.Random)):
                        scopes[id(statement)] = Span(statement.span.line, statement.span.column,
                                                     last.end_line, last.end_column)
            stack.extend(_children(value))
    return scopes


def _rule_name(decl) -> tuple[str, Span | None] | None:
    """The outline's name for a declaration that names nothing new, or None to leave it out."""
    if isinstance(decl, ast.GameDecl):
        return f'game "{decl.title}"', None
    if isinstance(decl, (ast.UtilityDecl, ast.EvaluateDecl)):
        word = "utility" if isinstance(decl, ast.UtilityDecl) else "evaluate"
        return f"{word} {decl.player.name}", decl.player.span
    if isinstance(decl, ast.DisplayDecl):
        return f"display {decl.name.name}", decl.name.span
    if isinstance(decl, ast.DisplayMoveDecl):
        return f"display {decl.action.name}", decl.action.span
    if isinstance(decl, (ast.PrivateDecl, ast.HiddenDecl)):
        word = "private" if isinstance(decl, ast.PrivateDecl) else "hidden"
        return f"{word} {', '.join(name.name for name in decl.names)}", None
    for kind, word in ((ast.TerminalDecl, "terminal"), (ast.InitDecl, "init"),
                       (ast.TierDecl, "tier"), (ast.TreeDecl, "tree"),
                       (ast.SimultaneousDecl, "simultaneous")):
        if isinstance(decl, kind):
            return word, None
    return None


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
