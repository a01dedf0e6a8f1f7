"""KIF text → s-expressions with spans, through Lark's LALR parser (grammars/kif.lark).

What the s-expressions mean (rules, literals, terms) is read by gdl.kif.program; here a syntax
error is located like the rule language's (E100 an unexpected bracket, E101 an unexpected
character, E102 a bracket left open at the end of the file, E103 nested too deeply), through
gdl.errors with a caret and a hint.
"""

from __future__ import annotations

from dataclasses import dataclass

import lark
from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from gdl.errors import Diagnostic, GdlError, Source
from gdl.kif.grammar import build_parser
from gdl.lang.text import normalize
from gdl.span import Span

# Rules are shallow (a rule, a literal, a term, a few nested terms); deeper input is refused
# with its position before anything recurses over it.
MAX_NESTING = 64


@dataclass(frozen=True, slots=True)
class Word:
    """A constant as written: ``cell``, ``1``, ``map+``."""
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Variable:
    """A variable as written, with its ``?``: ``?x``."""
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Group:
    """A bracketed list ``( ... )``; its span runs from the opening to the closing bracket."""
    items: tuple[Node, ...]
    span: Span


Node = Word | Variable | Group


def _token_span(token: Token) -> Span:
    return Span(token.line or 0, token.column or 0, token.end_line or token.line or 0,
                token.end_column or (token.column or 0) + len(token))


def _open_bracket(text: str) -> tuple[int, int] | None:
    """(line, column) of the last '(' that is never closed, outside comments."""
    stack: list[tuple[int, int]] = []
    line, column, comment = 1, 0, False
    for char in text:
        column += 1
        if char == "\n":
            line, column, comment = line + 1, 0, False
        elif comment:
            continue
        elif char == ";":
            comment = True
        elif char == "(":
            stack.append((line, column))
        elif char == ")" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _syntax_error(error: UnexpectedInput, source: Source) -> GdlError:
    line, column = getattr(error, "line", 0) or 0, getattr(error, "column", 0) or 0
    if isinstance(error, UnexpectedCharacters):
        where = error.pos_in_stream or 0
        char = source.text[where] if where < len(source.text) else "?"
        hint: str | None = ("KIF has no strings: a constant is a run of letters, digits and signs"
                if char == '"' else "a rule file holds brackets, words, ?variables and ;comments")
        return GdlError(Diagnostic("E101", f"unexpected character {char!r}",
                                   Span(line, column, line, column + 1), hint=hint), source)
    if isinstance(error, UnexpectedEOF) or (
            isinstance(error, UnexpectedToken) and error.token.type == "$END"):
        opened = _open_bracket(source.text)
        if opened is not None:
            span = Span(opened[0], opened[1], opened[0], opened[1] + 1)
            return GdlError(Diagnostic("E102", "this '(' is never closed", span,
                                       hint="add the missing ')' where the sentence ends"), source)
        lines = source.lines() or [""]
        span = Span(len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 1)
        return GdlError(Diagnostic("E102", "unexpected end of file", span), source)
    assert isinstance(error, UnexpectedToken)
    token = error.token
    hint = ("this ')' closes nothing: remove it, or add the '(' it was meant to close"
            if token.type == "RPAR" else None)
    return GdlError(Diagnostic("E100", f"unexpected {str(token.value)!r}", _token_span(token),
                               hint=hint), source)


def parse_kif(text: str, filename: str = "<input>") -> tuple[list[Node], Source]:
    """The top-level s-expressions of KIF text, and the text's Source for later errors. Raises
    GdlError (E1xx) at the first syntax error."""
    text = normalize(text, filename)
    source = Source(filename, text)
    try:
        tree = build_parser().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(error, source) from None
    return _nodes(tree, source), source


def _nodes(tree: lark.Tree, source: Source) -> list[Node]:
    """The tree's items as Words, Variables and Groups, built without recursion (the depth is
    checked here, before anything else walks the items)."""
    done: dict[int, Node] = {}
    # (tree, depth, visited) on an explicit stack: children first, then the group itself
    stack: list[tuple[lark.Tree, int, bool]] = [(tree, 0, False)]
    while stack:
        node, depth, visited = stack.pop()
        children = node.children
        if not visited:
            if depth > MAX_NESTING:
                opening = children[0] if children and isinstance(children[0], Token) else None
                span = _token_span(opening) if opening is not None else Span(1, 1, 1, 2)
                raise GdlError(Diagnostic("E103", f"nested more than {MAX_NESTING} levels deep",
                                          span, hint="no game needs terms this deep"), source)
            stack.append((node, depth, True))
            stack.extend((child, depth + 1, False) for child in children
                         if isinstance(child, lark.Tree))
            continue
        items: list[Node] = []
        for child in children:
            if isinstance(child, lark.Tree):
                items.append(done.pop(id(child)))
            elif child.type == "WORD":
                items.append(Word(str(child), _token_span(child)))
            elif child.type == "VARIABLE":
                items.append(Variable(str(child), _token_span(child)))
        if node.data == "list":
            first, last = children[0], children[-1]
            assert isinstance(first, Token) and isinstance(last, Token)
            span = Span(first.line or 0, first.column or 0, last.end_line or 0, last.end_column or 0)
            done[id(node)] = Group(tuple(items), span)
        else:
            return items
    raise AssertionError("the parse tree has no root")


def node_text(node: Node) -> str:
    """A node written back as KIF (one line), for messages."""
    if isinstance(node, Group):
        return "(" + " ".join(node_text(item) for item in node.items) + ")"
    return node.text
