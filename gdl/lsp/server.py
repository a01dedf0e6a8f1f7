"""gdl's language server (pygls): diagnostics as you type, hover, go to definition, references
and highlights, the outline, rename, signature help, quick fixes, completion and formatting, for
any editor that speaks the Language Server Protocol. `gdl lsp` runs it on stdin/stdout.

The answers come from gdl.lsp.index (the parser and checker), gdl.lsp.positions (the last
version that parsed, while the text does not), gdl.lsp.edits (rename, quick fixes) and
gdl.lang.format; this module only translates: gdl counts lines and columns from 1, the protocol
from 0. Columns are taken as characters, which is exact for the ASCII that rule files are
written in.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from gdl.errors import Diagnostic, GdlError
from gdl.lsp.edits import Edit, RenameRefused, quick_fixes, rename
from gdl.lsp.index import BUILTINS, Index, Signature, Symbol, call_at, completions, problems
from gdl.lsp.positions import View
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


SYMBOL_KINDS = {
    "player": types.SymbolKind.Object, "parameter": types.SymbolKind.Constant,
    "constant": types.SymbolKind.Constant, "map": types.SymbolKind.Struct,
    "variable": types.SymbolKind.Variable, "action": types.SymbolKind.Method,
    "definition": types.SymbolKind.Function, "action parameter": types.SymbolKind.TypeParameter,
    "definition parameter": types.SymbolKind.TypeParameter,
    "symbol": types.SymbolKind.EnumMember, "rule": types.SymbolKind.Event,
}

# Where the file does not parse, a rename could change text the last parse never saw.
NO_RENAME_UNPARSED = ("the file does not parse: fix its syntax error first (a rename works on "
                      "the names of a file that parses)")


def to_edit_range(span: Span) -> types.Range:
    """A span to replace, exactly (an empty span inserts)."""
    return types.Range(types.Position(span.line - 1, span.column - 1),
                       types.Position(span.end_line - 1, span.end_column - 1))


def to_text_edits(edits: list[Edit] | tuple[Edit, ...]) -> list[types.TextEdit]:
    return [types.TextEdit(range=to_edit_range(span), new_text=new) for span, new in edits]


def refused(message: str) -> JsonRpcException:
    """An answer the editor shows as an error: a request that cannot be done, and why."""
    return JsonRpcException(message, code=types.LSPErrorCodes.RequestFailed)


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
    """Remembers, for each open document, the problems of its current text and the index of its
    last version that parsed: hover, go to definition, references and the outline keep working
    while a line is half typed, at the positions of the text being edited (gdl.lsp.positions)."""

    def __init__(self) -> None:
        super().__init__("gdl", _version(), text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.indexes: dict[str, Index] = {}
        self.checked: dict[str, tuple[str, list[Diagnostic]]] = {}   # text, its problems
        self.views: dict[str, View] = {}
        self.shutdown_requested = False

    def document(self, uri: str):
        """An open document, or None. Only what the client opened is read: pygls would read any
        other URI from the disk, and a request must not make the server open files."""
        from urllib.parse import unquote

        return self.workspace.text_documents.get(unquote(uri))

    def text(self, uri: str) -> tuple[str, str] | None:
        """An open document's current text and the file name its diagnostics carry."""
        document = self.document(uri)
        return None if document is None else (document.source, document.path or uri)

    def refresh(self, uri: str) -> None:
        document = self.document(uri)
        if document is None:
            return
        text, filename = document.source, document.path or uri
        index = Index.build(text, filename)
        if index is not None:
            self.indexes[uri] = index
        found = problems(text, filename)
        self.checked[uri] = (text, found)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=[to_diagnostic(p) for p in found], version=document.version))

    def forget(self, uri: str) -> None:
        for table in (self.indexes, self.checked, self.views):
            table.pop(uri, None)

    def index(self, uri: str) -> Index | None:
        """The index of the last version that parsed (perhaps not the current text)."""
        return self.indexes.get(uri)

    def view(self, uri: str) -> View | None:
        """The index's answers at the current text's positions."""
        index = self.indexes.get(uri)
        current = self.text(uri)
        if index is None or current is None:
            return None
        text = current[0]
        view = self.views.get(uri)
        if view is None or view.index is not index or view.text != text:
            view = self.views[uri] = View(index, text)
        return view

    def problems(self, uri: str) -> tuple[str, list[Diagnostic]] | None:
        """An open document's text and its problems (checked again if the text changed unseen)."""
        current = self.text(uri)
        if current is None:
            return None
        text, filename = current
        checked = self.checked.get(uri)
        if checked is None or checked[0] != text:
            checked = self.checked[uri] = (text, problems(text, filename))
        return checked


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
    ls.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


def _cursor(position: types.Position) -> tuple[int, int]:
    return position.line + 1, position.character + 1


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: GdlLanguageServer, params: types.HoverParams) -> types.Hover | None:
    view = ls.view(params.text_document.uri)
    found = None if view is None else view.lookup(*_cursor(params.position))
    if view is None or found is None:
        return None
    definition, word = found
    text = view.index.describe(definition)
    if not view.current:
        text += "\n\n(from the last version of the file that parsed)"
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=to_range(word))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: GdlLanguageServer, params: types.DefinitionParams) -> types.Location | None:
    view = ls.view(params.text_document.uri)
    found = None if view is None else view.definition(*_cursor(params.position))
    if found is None:
        return None
    return types.Location(uri=params.text_document.uri, range=to_range(found))


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: GdlLanguageServer, params: types.ReferenceParams) -> list[types.Location]:
    view = ls.view(params.text_document.uri)
    if view is None:
        return []
    cursor = _cursor(params.position)
    found = view.references(*cursor)
    if not params.context.include_declaration:
        declared = view.definition(*cursor)
        found = [span for span in found if span != declared]
    return [types.Location(uri=params.text_document.uri, range=to_range(span)) for span in found]


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
def highlight(ls: GdlLanguageServer, params: types.DocumentHighlightParams
              ) -> list[types.DocumentHighlight]:
    view = ls.view(params.text_document.uri)
    found = [] if view is None else view.references(*_cursor(params.position))
    return [types.DocumentHighlight(range=to_range(span), kind=types.DocumentHighlightKind.Text)
            for span in found]


def _document_symbol(symbol: Symbol) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=symbol.name, detail=symbol.detail or symbol.kind,
        kind=SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Variable),
        range=to_range(symbol.declaration), selection_range=to_range(symbol.span),
        children=[_document_symbol(child) for child in symbol.children])


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: GdlLanguageServer, params: types.DocumentSymbolParams
                     ) -> list[types.DocumentSymbol]:
    view = ls.view(params.text_document.uri)
    return [] if view is None else [_document_symbol(s) for s in view.outline()]


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: GdlLanguageServer, params: types.PrepareRenameParams
                   ) -> types.PrepareRenamePlaceholder | None:
    view = ls.view(params.text_document.uri)
    if view is None or not view.current:
        raise refused(NO_RENAME_UNPARSED)
    found = view.lookup(*_cursor(params.position))
    if found is None:
        word = view.word_at(*_cursor(params.position))
        raise refused(f"'{word[0]}' is not declared in this file: only the file's own names can "
                      "be renamed" if word else "there is no name at the cursor")
    return types.PrepareRenamePlaceholder(range=to_range(found[1]), placeholder=found[0].name)


@server.feature(types.TEXT_DOCUMENT_RENAME)
def rename_name(ls: GdlLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit:
    view = ls.view(params.text_document.uri)
    if view is None or not view.current:
        raise refused(NO_RENAME_UNPARSED)
    filename = (ls.text(params.text_document.uri) or ("", "<input>"))[1]
    try:
        edits = rename(view.index, *_cursor(params.position), params.new_name, filename)
    except RenameRefused as error:
        raise refused(str(error)) from None
    return types.WorkspaceEdit(changes={params.text_document.uri: to_text_edits(edits)})


@server.feature(types.TEXT_DOCUMENT_SIGNATURE_HELP,
                types.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","]))
def signature_help(ls: GdlLanguageServer, params: types.SignatureHelpParams
                   ) -> types.SignatureHelp | None:
    """From the current text (a call being typed does not parse) and the declarations of the
    last version that parsed."""
    current = ls.text(params.text_document.uri)
    if current is None:
        return None
    call = call_at(current[0], *_cursor(params.position))
    if call is None:
        return None
    name, argument = call
    index = ls.index(params.text_document.uri)
    found: Signature | None = index.signature(name) if index is not None else BUILTINS.get(name)
    if found is None:
        return None
    last = max(len(found.params) - 1, 0)
    return types.SignatureHelp(
        signatures=[types.SignatureInformation(
            label=found.label, documentation=found.documentation,
            parameters=[types.ParameterInformation(label=p) for p in found.params])],
        active_signature=0, active_parameter=min(argument, last))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_actions(ls: GdlLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The quick fixes of the problems in the range asked about: those whose hint names the
    fix (gdl.lsp.edits), each checked to remove its problem."""
    only = params.context.only
    if only is not None and types.CodeActionKind.QuickFix not in only:
        return []
    uri = params.text_document.uri
    checked, current = ls.problems(uri), ls.text(uri)
    if checked is None or current is None:
        return []
    (text, found), filename = checked, current[1]
    view = ls.view(uri)
    index = view.index if view is not None and view.current else None
    wanted = params.range
    actions = []
    for problem in found:
        where = to_range(problem.span)
        if (where.end.line, where.end.character) < (wanted.start.line, wanted.start.character) or (
                (where.start.line, where.start.character) > (wanted.end.line, wanted.end.character)):
            continue
        for fix in quick_fixes(text, problem, index, filename):
            actions.append(types.CodeAction(
                title=fix.title, kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_diagnostic(problem)], is_preferred=fix.preferred,
                edit=types.WorkspaceEdit(changes={uri: to_text_edits(fix.edits)})))
    return actions


@server.feature(types.TEXT_DOCUMENT_COMPLETION)
def completion(ls: GdlLanguageServer, params: types.CompletionParams) -> types.CompletionList:
    items = [types.CompletionItem(label=label, kind=COMPLETION_KINDS.get(kind), detail=kind)
             for label, kind in completions(ls.index(params.text_document.uri))]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: GdlLanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    """The whole document in `gdl fmt`'s layout; nothing while it has a syntax error."""
    from gdl.lang.format import FormatError, format_text

    current = ls.text(params.text_document.uri)
    if current is None:
        return None
    text, filename = current
    try:
        result = format_text(text, filename)
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
