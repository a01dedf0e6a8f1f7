"""gdl's language server (pygls): diagnostics as you type, hover, go to definition, completion
and formatting, for any editor that speaks the Language Server Protocol. `gdl lsp` runs it on
stdin/stdout.

The answers come from gdl.lsp.index (the parser and checker) and gdl.lang.format; this module
only translates positions: gdl counts lines and columns from 1, the protocol from 0. Columns are
taken as characters, which is exact for the ASCII that rule files are written in.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from gdl.errors import Diagnostic, GdlError
from gdl.lsp.index import Index, completions, problems
from gdl.span import Span

COMPLETION_KINDS = {
    "keyword": types.CompletionItemKind.Keyword, "player": types.CompletionItemKind.EnumMember,
    "parameter": types.CompletionItemKind.Constant, "constant": types.CompletionItemKind.Constant,
    "variable": types.CompletionItemKind.Variable, "action": types.CompletionItemKind.Function,
    "definition": types.CompletionItemKind.Function, "symbol": types.CompletionItemKind.EnumMember,
}


def to_range(span: Span) -> types.Range:
    """A gdl span as a protocol range (a span without a place marks the file's first character)."""
    if not span.line:
        return types.Range(types.Position(0, 0), types.Position(0, 1))
    start = types.Position(span.line - 1, max(span.column - 1, 0))
    end_line, end_column = span.end_line or span.line, span.end_column or span.column + 1
    if (end_line, end_column) <= (span.line, span.column):
        end_line, end_column = span.line, span.column + 1
    return types.Range(start, types.Position(end_line - 1, end_column - 1))


def to_diagnostic(problem: Diagnostic) -> types.Diagnostic:
    """The message with its notes and hint, as `gdl check` prints them under the caret."""
    lines = [problem.message] + [f"note: {note}" for note in problem.notes]
    if problem.hint:
        lines.append(f"hint: {problem.hint}")
    severity = (types.DiagnosticSeverity.Warning if problem.code == "E412"
                else types.DiagnosticSeverity.Error)
    return types.Diagnostic(range=to_range(problem.span), message="\n".join(lines),
                            severity=severity, code=problem.code, source="gdl")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gdl")
    except PackageNotFoundError:
        return "unknown"


class GdlLanguageServer(LanguageServer):
    """Remembers the last index of each open document that parsed, so that hover and go to
    definition keep working while a line is half typed."""

    def __init__(self):
        super().__init__("gdl", _version(), text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.indexes: dict[str, Index] = {}
        self.shutdown_requested = False

    def refresh(self, uri: str) -> None:
        document = self.workspace.get_text_document(uri)
        text = document.source
        filename = document.path or uri
        index = Index.build(text, filename)
        if index is not None:
            self.indexes[uri] = index
        found = [to_diagnostic(p) for p in problems(text, filename)]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=document.version))

    def index(self, uri: str) -> Index | None:
        return self.indexes.get(uri)


server = GdlLanguageServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GdlLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GdlLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GdlLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GdlLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.indexes.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: GdlLanguageServer, params: types.HoverParams) -> types.Hover | None:
    index = ls.index(params.text_document.uri)
    if index is None:
        return None
    line, column = params.position.line + 1, params.position.character + 1
    definition = index.lookup(line, column)
    if definition is None:
        return None
    word = index.word_at(line, column)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=index.describe(definition)),
        range=to_range(word[1]) if word else None)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: GdlLanguageServer, params: types.DefinitionParams) -> types.Location | None:
    index = ls.index(params.text_document.uri)
    if index is None:
        return None
    found = index.lookup(params.position.line + 1, params.position.character + 1)
    if found is None:
        return None
    return types.Location(uri=params.text_document.uri, range=to_range(found.span))


@server.feature(types.TEXT_DOCUMENT_COMPLETION)
def completion(ls: GdlLanguageServer, params: types.CompletionParams) -> types.CompletionList:
    items = [types.CompletionItem(label=label, kind=COMPLETION_KINDS.get(kind), detail=kind)
             for label, kind in completions(ls.index(params.text_document.uri))]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: GdlLanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    """The whole document in `gdl fmt`'s layout; nothing while it has a syntax error."""
    from gdl.lang.format import FormatError, format_text

    document = ls.workspace.get_text_document(params.text_document.uri)
    text = document.source
    try:
        result = format_text(text, document.path or params.text_document.uri)
    except (GdlError, FormatError, RecursionError):
        return None
    if result == text:
        return []
    lines = text.split("\n")
    end = types.Position(len(lines) - 1, len(lines[-1]))
    return [types.TextEdit(range=types.Range(types.Position(0, 0), end), new_text=result)]


@server.feature(types.SHUTDOWN)
def shutdown(ls: GdlLanguageServer, params: None) -> None:
    ls.shutdown_requested = True


def main() -> int:
    """Serve on stdin and stdout until the client says `exit` (or closes stdin); the exit code
    the protocol asks for: 0 when a `shutdown` request came first, 1 otherwise.

    pygls ends its loop on `exit` by closing the stream it writes to and raising SystemExit,
    which it then swallows, code and all. So it is given a stream of its own (a duplicate of
    the standard output's descriptor: sys.stdout stays open for the command line's final
    flush), and the code is worked out here from what the client sent. While the server runs,
    sys.stdout is the standard error, so that nothing printed by mistake can break the
    protocol's framing."""
    import os
    import sys

    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    standard_output, sys.stdout = sys.stdout, sys.stderr
    try:
        server.start_io(sys.stdin.buffer, channel)
    finally:
        sys.stdout = standard_output
        if not channel.closed:
            channel.close()
    return 0 if server.shutdown_requested else 1
