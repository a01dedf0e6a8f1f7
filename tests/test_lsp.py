"""`gdl lsp` through the protocol: the server runs as a subprocess and this test speaks JSON-RPC
to it over stdin/stdout, as an editor does (Content-Length framing, initialize, didOpen...).

Expected positions are computed from the test's own text, not copied from the server's output.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue

import pytest

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = (ROOT / "games" / "tictactoe.game").read_text(encoding="utf-8")
URI = "file:///tmp/gdl-lsp-test/tictactoe.game"


class Client:
    """A minimal language client: requests with ids, notifications kept in a queue."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "gdl", "lsp"], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.messages: Queue = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def wait_for(self, accept, what: str, timeout: float = 30) -> dict:
        while True:
            try:
                message = self.messages.get(timeout=timeout)
            except Empty:
                raise AssertionError(f"no {what} from the server within {timeout} s: "
                                     f"{self.process.stderr.peek() if self.process.poll() else ''}"
                                     ) from None
            if accept(message):
                return message

    def answer(self, method: str, params: dict) -> dict:
        """The whole response: a ``result`` or an ``error``."""
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == ident and "method" not in m, method)

    def request(self, method: str, params: dict) -> dict:
        answer = self.answer(method, params)
        assert "error" not in answer, answer
        return answer["result"]

    def refusal(self, method: str, params: dict) -> str:
        """The message of the error a request is answered with (it must be one)."""
        answer = self.answer(method, params)
        assert "error" in answer, answer
        return answer["error"]["message"]

    def diagnostics(self, uri: str) -> list[dict]:
        message = self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == uri, "diagnostics")
        return message["params"]["diagnostics"]

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


# What the test client says it supports (as an editor does): renames are prepared first.
EDITOR = {"textDocument": {"rename": {"prepareSupport": True}}}


@pytest.fixture(scope="module")
def client():
    client = Client()
    try:
        capabilities = client.request("initialize", {"processId": None, "rootUri": None,
                                                     "capabilities": EDITOR})["capabilities"]
        client.notify("initialized", {})
        yield client, capabilities
    finally:
        client.close()


def position_of(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """0-based (line, character) of the first ``needle`` in ``text``, plus ``offset`` characters."""
    before = text[:text.index(needle)]
    return before.count("\n"), len(before) - (before.rfind("\n") + 1) + offset


def open_document(client: Client, uri: str, text: str, version: int = 1) -> list[dict]:
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "gdl", "version": version, "text": text}})
    return client.diagnostics(uri)


def test_the_server_says_what_it_offers(client):
    _, capabilities = client
    for feature in ("hoverProvider", "definitionProvider", "completionProvider",
                    "documentFormattingProvider"):
        assert capabilities.get(feature) not in (None, False), feature   # {} means "yes, no options"


def test_a_broken_rule_file_gets_a_located_diagnostic_as_you_type(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/broken.game"
    assert open_document(client, uri, TICTACTOE) == []     # a sound file: no problems
    broken = TICTACTOE.replace("cell[r][c] = mover", "cell[r][c] = movr")
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]})
    found = client.diagnostics(uri)
    assert [d["code"] for d in found] == ["E201"]          # an unknown name
    line, character = position_of(broken, "movr")
    assert found[0]["range"]["start"] == {"line": line, "character": character}
    assert found[0]["range"]["end"] == {"line": line, "character": character + len("movr")}
    assert found[0]["source"] == "gdl" and "movr" in found[0]["message"]


def test_a_diagnostic_carries_its_hint(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/range.game"
    broken = TICTACTOE.replace("var cell[3][3] in {empty, X, O} = empty",
                               "var cell[3][3] in {empty, X, O} = empty\nvar turn in 0..3 = 7")
    found = open_document(client, uri, broken)
    assert [d["code"] for d in found] == ["E204"]          # 7 is outside 0..3
    line, character = position_of(broken, "= 7", offset=2)
    assert found[0]["range"]["start"] == {"line": line, "character": character}
    assert "hint:" in found[0]["message"]


def test_hover_on_a_variable_shows_its_declaration_and_domain(client):
    client, _ = client
    open_document(client, URI, TICTACTOE)
    line, character = position_of(TICTACTOE, "requires cell", offset=len("requires c"))
    hover = client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": line, "character": character}})
    text = hover["contents"]["value"]
    assert "var cell[3][3] in {empty, X, O} = empty" in text and "variable" in text
    assert "domain: `{empty, X, O}`" in text


def test_hover_on_an_action_parameter_shows_its_domain(client):
    client, _ = client
    open_document(client, URI, TICTACTOE)
    line, character = position_of(TICTACTOE, "requires cell[r]", offset=len("requires cell["))
    hover = client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": line, "character": character}})
    assert "action parameter" in hover["contents"]["value"]
    assert "domain: `0..2`" in hover["contents"]["value"]


def test_go_to_definition_finds_the_declaration(client):
    client, _ = client
    open_document(client, URI, TICTACTOE)
    line, character = position_of(TICTACTOE, "terminal line(X)", offset=len("terminal l"))
    location = client.request("textDocument/definition", {
        "textDocument": {"uri": URI}, "position": {"line": line, "character": character}})
    declared_line, declared_character = position_of(TICTACTOE, "define line", offset=len("define "))
    assert location["uri"] == URI
    assert location["range"]["start"] == {"line": declared_line, "character": declared_character}


def test_completion_offers_keywords_and_the_files_names(client):
    client, _ = client
    open_document(client, URI, TICTACTOE)
    result = client.request("textDocument/completion", {
        "textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}})
    labels = {item["label"] for item in result["items"]}
    assert {"cell", "place", "line", "empty", "X", "O"} <= labels      # declared in the file
    assert {"action", "requires", "effect", "terminal", "utility", "display"} <= labels


def test_formatting_gives_the_canonical_layout(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/messy.game"
    from gdl.lang.format import format_text

    messy = TICTACTOE.replace("requires cell[r][c] == empty", "requires   cell[ r ][ c ]==empty")
    assert format_text(messy) != messy
    open_document(client, uri, messy)
    edits = client.request("textDocument/formatting", {
        "textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}})
    assert len(edits) == 1 and edits[0]["range"]["start"] == {"line": 0, "character": 0}
    # the bundled file is already in `gdl fmt`'s layout (tests/test_format.py holds it there)
    assert edits[0]["newText"] == format_text(TICTACTOE)


def test_without_pygls_the_command_says_what_to_install(monkeypatch, capsys):
    from gdl.cli import main

    monkeypatch.delitem(sys.modules, "gdl.lsp.server", raising=False)
    monkeypatch.setitem(sys.modules, "lsprotocol", None)     # as if it were not installed
    monkeypatch.setitem(sys.modules, "pygls", None)
    assert main(["lsp"]) == 2
    assert "pip install 'gdl[lsp]'" in capsys.readouterr().err


def test_a_half_typed_line_gets_a_syntax_error_and_hover_still_answers(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/typing.game"
    open_document(client, uri, TICTACTOE)
    typing = TICTACTOE.replace("zero-sum\n", "zero-sum\nutility O =\n")
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": typing}]})
    found = client.diagnostics(uri)
    assert [d["code"] for d in found] in (["E100"], ["E102"])     # unexpected token / end of file
    assert found[0]["range"]["start"]["line"] >= typing.split("\n").index("utility O =")
    line, character = position_of(typing, "requires cell", offset=len("requires c"))
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line, "character": character}})
    assert "var cell[3][3]" in hover["contents"]["value"]       # from the last version that parsed


def test_local_names_resolve_to_the_innermost_declaration():
    from gdl.lsp.index import Index

    index = Index.build(TICTACTOE)
    lines = TICTACTOE.split("\n")
    # `p` in the body of `define line(p)` is the definition's parameter
    row = next(i for i, text in enumerate(lines) if "cell[r][c] == p" in text)
    found = index.lookup(row + 1, lines[row].index("== p") + 4)
    assert found.kind == "definition parameter" and found.span.line == row   # declared a line above
    # the `r` of `cell[r][c]` in that line is the quantifier's, not the action's parameter
    found = index.lookup(row + 1, lines[row].index("cell[r]") + 6)
    assert found.kind == "bound variable" and found.span.line == row + 1 and found.domain == "0..2"
    # a symbol of a domain
    terminal = next(i for i, text in enumerate(lines) if text.startswith("terminal"))
    found = index.lookup(terminal + 1, lines[terminal].index("empty") + 1)
    assert found.kind == "symbol" and found.domain == "{empty, X, O}"


def test_let_names_resolve_to_their_binding():
    from gdl.lsp.index import Index

    text = ('game "lets"\nplayers A, B\nvar pit[4] in 0..9 = 1\n'
            "action sow(k in 0..3)\n    requires pit[k] > 0\n"
            "    effect   let hand = pit[k];\n             pit[k] = 0;\n"
            "             pit[(k + 1) % 4] = pit[(k + 1) % 4] + hand % 2\n"
            "terminal all k in 0..3: pit[k] == 0\n"
            "utility A = let far = pit[3], near = pit[0]: far - near\nzero-sum\n")
    index = Index.build(text)
    assert index is not None
    lines = text.split("\n")
    use = next(i for i, line in enumerate(lines) if "+ hand" in line)
    found = index.lookup(use + 1, lines[use].index("+ hand") + 3)
    declared = next(i for i, line in enumerate(lines) if "let hand" in line)
    assert found.kind == "local name" and found.span.line == declared + 1
    utility = next(i for i, line in enumerate(lines) if line.startswith("utility"))
    found = index.lookup(utility + 1, lines[utility].index("- near") + 3)
    assert found.kind == "local name" and found.span.line == utility + 1
    assert found.span.column == lines[utility].index("near") + 1


def test_names_in_parameter_guards_and_map_keys_resolve():
    from gdl.lsp.index import Index

    text = ('game "guards"\nplayers A, B\n'
            "var piece in {pawn, knight, queen} = pawn\n"
            "const worth = {pawn: 1, knight: 3, queen: 9}\n"
            "var cell[3] in {empty, full} = empty\n"
            "action promote(to in {knight, queen},\n"
            "               i in 0..2 if cell[i] == empty and worth[to] > 2) by A\n"
            "    effect piece = to; cell[i] = full\n"
            "terminal piece != pawn\nutility A = worth[piece]\nzero-sum\n")
    index = Index.build(text)
    assert index is not None
    lines = text.split("\n")
    guard = next(n for n, line in enumerate(lines) if " if cell[i]" in line)
    header = next(n for n, line in enumerate(lines) if line.startswith("action promote"))
    # `i` and `to` inside the guard are the action's parameters
    found = index.lookup(guard + 1, lines[guard].index("cell[i]") + 6)
    assert (found.kind, found.span.line, found.domain) == ("action parameter", guard + 1, "0..2")
    found = index.lookup(guard + 1, lines[guard].index("worth[to]") + 7)
    assert (found.kind, found.span.line) == ("action parameter", header + 1)
    assert found.domain == "{knight, queen}"
    # `worth` is a map whose hover names its keys; a key is the symbol declared in `piece`
    found = index.lookup(guard + 1, lines[guard].index("worth") + 1)
    assert found.kind == "map" and found.domain == "keys {pawn, knight, queen}"
    assert "keys {pawn, knight, queen}" in index.describe(found)
    key = lines[3].index("knight")
    found = index.lookup(4, key + 1)
    assert (found.kind, found.span.line, found.span.column) == (
        "symbol", 3, lines[2].index("knight") + 1)


# ---- ending: the protocol's exit codes ----------------------------------------------------------

def _started() -> Client:
    client = Client()
    client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    client.notify("initialized", {})
    return client


def test_shutdown_then_exit_ends_the_server_with_status_0():
    # The protocol: "The server should exit with success code 0 if the shutdown request has
    # been received before; otherwise with error code 1."
    client = _started()
    try:
        assert client.request("shutdown", None) is None
        client.notify("exit", None)
        assert client.process.wait(timeout=30) == 0
        assert client.process.stderr.read() == b""        # no traceback, no closed-file error
    finally:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


def test_exit_without_shutdown_ends_the_server_with_status_1():
    client = _started()
    try:
        client.notify("exit", None)
        assert client.process.wait(timeout=30) == 1
        assert b"Traceback" not in client.process.stderr.read()
    finally:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


# ---- helpers for the features below: an independent reading of the text -----------------------

WORD = re.compile(r'"[^"\n]*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*')


def words(text: str, name: str) -> list[tuple[int, int]]:
    """0-based (line, character) of every ``name`` written as a word, outside strings and
    comments: what a reference to it can be, read without gdl."""
    found = []
    for number, line in enumerate(text.split("\n")):
        for match in WORD.finditer(line):
            if match.group() == name:
                found.append((number, match.start()))
    return found


def replace_words(text: str, name: str, new: str) -> str:
    """``text`` with every word ``name`` outside strings and comments written ``new``."""
    lines = text.split("\n")
    for number, character in reversed(words(text, name)):
        line = lines[number]
        lines[number] = line[:character] + new + line[character + len(name):]
    return "\n".join(lines)


def starts(locations: list[dict]) -> list[tuple[int, int]]:
    return sorted((item["range"]["start"]["line"], item["range"]["start"]["character"])
                  for item in locations)


def apply_edits(text: str, edits: list[dict]) -> str:
    """``text`` with LSP text edits made (0-based lines and characters)."""
    lines = text.split("\n")

    def offset(position: dict) -> int:
        return sum(len(line) + 1 for line in lines[:position["line"]]) + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        begin, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:begin] + edit["newText"] + text[end:]
    return text


def change(client: Client, uri: str, text: str, version: int) -> list[dict]:
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
    return client.diagnostics(uri)


def at(uri: str, line: int, character: int, **more) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}, **more}


def test_the_server_offers_what_editors_expect(client):
    _, capabilities = client
    for feature in ("referencesProvider", "documentSymbolProvider", "documentHighlightProvider",
                    "renameProvider", "signatureHelpProvider", "codeActionProvider"):
        assert capabilities.get(feature) not in (None, False), feature
    assert capabilities["renameProvider"]["prepareProvider"] is True
    assert "(" in capabilities["signatureHelpProvider"]["triggerCharacters"]
    assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix"]


# ---- positions while the text does not parse ------------------------------------------------------

def test_hover_and_definition_follow_lines_typed_above_while_the_file_does_not_parse(client):
    # Two lines inserted near the top, one of them half typed: everything below moves down two
    # lines. Answers come from the last version that parsed, at the positions of this text.
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/shifted.game"
    open_document(client, uri, TICTACTOE)
    typing = TICTACTOE.replace("players X, O", "players X, O\nvar turn in 0..9 =\n", 1)
    assert [d["code"] for d in change(client, uri, typing, 2)] in (["E100"], ["E102"])
    line, character = position_of(typing, "requires cell", offset=len("requires c"))
    hover = client.request("textDocument/hover", at(uri, line, character))
    assert "var cell[3][3] in {empty, X, O} = empty" in hover["contents"]["value"]
    assert hover["range"]["start"] == {"line": line, "character": character - 1}
    line, character = position_of(typing, "terminal line(X)", offset=len("terminal l"))
    location = client.request("textDocument/definition", at(uri, line, character))
    assert location["range"]["start"] == dict(zip(("line", "character"), position_of(
        typing, "define line", offset=len("define "))))


def test_a_name_being_edited_gets_no_answer_from_the_old_text(client):
    # `cell` on the line being typed is now `cel`: no declaration of `cel` exists, and the old
    # text's word at that place is another one, so there is no answer (not the old word's).
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/edited.game"
    open_document(client, uri, TICTACTOE)
    typing = TICTACTOE.replace("requires cell[r][c] == empty", "requires cel[r][c] ==")
    assert change(client, uri, typing, 2)
    line, character = position_of(typing, "requires cel", offset=len("requires c"))
    assert client.request("textDocument/hover", at(uri, line, character)) is None
    assert client.request("textDocument/definition", at(uri, line, character)) is None


# ---- references, highlights, outline --------------------------------------------------------------

def test_references_find_every_use_and_the_declaration(client):
    client, _ = client
    open_document(client, URI, TICTACTOE)
    for name in ("line", "cell", "X", "empty"):
        line, character = words(TICTACTOE, name)[-1]      # from the last use
        found = client.request("textDocument/references", at(
            URI, line, character, context={"includeDeclaration": True}))
        assert starts(found) == words(TICTACTOE, name), name
        assert all(item["uri"] == URI for item in found)
    # without the declaration: `define line` is left out
    line, character = words(TICTACTOE, "line")[-1]
    found = client.request("textDocument/references", at(
        URI, line, character, context={"includeDeclaration": False}))
    declared = position_of(TICTACTOE, "define line", offset=len("define "))
    assert starts(found) == [w for w in words(TICTACTOE, "line") if w != declared]


def test_references_of_a_local_name_stay_in_its_scope(client):
    # `r` is an action parameter in `place` and a quantifier's variable in `line` and `terminal`:
    # the references of the parameter are those inside `action place` only.
    client, _ = client
    open_document(client, URI, TICTACTOE)
    lines = TICTACTOE.split("\n")
    action = next(n for n, text in enumerate(lines) if text.startswith("action place"))
    inside = [w for w in words(TICTACTOE, "r") if action <= w[0] <= action + 2]
    assert len(inside) == 3     # place(r in ...), requires cell[r]..., effect cell[r]...
    found = client.request("textDocument/references", at(
        URI, *inside[-1], context={"includeDeclaration": True}))
    assert starts(found) == inside
    highlights = client.request("textDocument/documentHighlight", at(URI, *inside[0]))
    assert starts(highlights) == inside


def test_the_outline_lists_the_declarations(client):
    client, _ = client
    open_document(client, URI, TICTACTOE)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    assert [s["name"] for s in symbols] == ['game "Tic-tac-toe"', "X", "O", "cell", "place",
                                            "line", "terminal", "utility X", "display cell",
                                            "display place"]
    by_name = {s["name"]: s for s in symbols}
    # LSP SymbolKind: 5 Class... 6 Method, 12 Function, 13 Variable, 22 EnumMember, 26 TypeParameter
    assert (by_name["cell"]["kind"], by_name["place"]["kind"], by_name["line"]["kind"]) == (13, 6, 12)
    assert [(c["name"], c["kind"]) for c in by_name["place"]["children"]] == [("r", 26), ("c", 26)]
    assert [c["name"] for c in by_name["line"]["children"]] == ["p"]
    assert [(c["name"], c["kind"]) for c in by_name["cell"]["children"]] == [("empty", 22)]
    assert by_name["cell"]["detail"] == "{empty, X, O}"
    assert by_name["place"]["detail"] == "(r in 0..2, c in 0..2)"
    # where: the name is the selection; the range runs over the whole declaration
    place = by_name["place"]
    line, character = position_of(TICTACTOE, "action place", offset=len("action "))
    assert place["selectionRange"]["start"] == {"line": line, "character": character}
    assert place["range"]["start"] == {"line": line, "character": 0}
    effect_line, _ = position_of(TICTACTOE, "effect   cell")
    assert place["range"]["end"]["line"] == effect_line


def test_the_outline_keeps_its_places_while_a_line_is_half_typed(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/outline.game"
    open_document(client, uri, TICTACTOE)
    typing = "# a comment\n# another\n" + TICTACTOE + "define half(x) =\n"
    assert change(client, uri, typing, 2)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    by_name = {s["name"]: s for s in symbols}
    line, character = position_of(typing, "define line", offset=len("define "))
    assert by_name["line"]["selectionRange"]["start"] == {"line": line, "character": character}


# ---- rename -------------------------------------------------------------------------------------

def test_rename_changes_the_declaration_and_every_use(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/rename.game"
    open_document(client, uri, TICTACTOE)
    import gdl

    for name, new in (("line", "won"), ("X", "Cross"), ("empty", "blank")):
        line, character = words(TICTACTOE, name)[0]
        prepared = client.request("textDocument/prepareRename", at(uri, line, character))
        assert prepared["placeholder"] == name
        assert prepared["range"]["start"] == {"line": line, "character": character}
        edit = client.request("textDocument/rename", at(uri, line, character, newName=new))
        renamed = apply_edits(TICTACTOE, edit["changes"][uri])
        # every word `name` outside strings and comments, and nothing else, became `new`
        assert renamed == replace_words(TICTACTOE, name, new)
        assert words(renamed, name) == []
        assert renamed.count('"X"') == TICTACTOE.count('"X"')      # the glyph's string stays
        assert "# X moves first" in renamed                          # so does the comment
        assert gdl.loads(renamed).info.num_players == 2              # and the file checks


def test_rename_refuses_a_clash_a_reserved_word_and_a_non_name(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/refuse.game"
    open_document(client, uri, TICTACTOE)
    line, character = words(TICTACTOE, "line")[0]
    assert "already the name of a variable" in client.refusal(
        "textDocument/rename", at(uri, line, character, newName="cell"))
    assert "reserved word" in client.refusal(
        "textDocument/rename", at(uri, line, character, newName="terminal"))
    assert "not a name" in client.refusal(
        "textDocument/rename", at(uri, line, character, newName="9lives"))
    # `p` to `r`: a quantifier inside line's body binds `r`, so the parameter would be captured
    p_line, p_character = position_of(TICTACTOE, "define line(p)", offset=len("define line("))
    assert "already the name of a bound variable" in client.refusal(
        "textDocument/rename", at(uri, p_line, p_character, newName="r"))
    # ... while `p` to `who` changes `p` inside the definition only
    edit = client.request("textDocument/rename", at(uri, p_line, p_character, newName="who"))
    renamed = apply_edits(TICTACTOE, edit["changes"][uri])
    assert len(words(renamed, "who")) == 5 and words(renamed, "p") == []
    # a keyword is no name of the file's
    keyword_line, keyword_character = position_of(TICTACTOE, "terminal")
    assert "not declared in this file" in client.refusal(
        "textDocument/prepareRename", at(uri, keyword_line, keyword_character))


def test_rename_is_refused_while_the_file_does_not_parse(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/rename-typing.game"
    open_document(client, uri, TICTACTOE)
    typing = TICTACTOE + "utility O =\n"
    assert change(client, uri, typing, 2)
    line, character = words(typing, "line")[0]
    assert "does not parse" in client.refusal(
        "textDocument/rename", at(uri, line, character, newName="won"))


# ---- signature help ---------------------------------------------------------------------------

def test_signature_help_for_a_definition_an_action_and_a_built_in_being_typed(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/signature.game"
    open_document(client, uri, TICTACTOE)
    for typed, label, active in (("quiet when line(", "line(p)", 0),
                                 ("quiet when place(1, ", "place(r in 0..2, c in 0..2)", 1),
                                 ("quiet when max(1, abs(2), ", "max(a, b, ...)", 2)):
        typing = TICTACTOE + typed       # an unfinished call: the file does not parse
        assert change(client, uri, typing, 2)
        lines = typing.split("\n")
        help = client.request("textDocument/signatureHelp", at(uri, len(lines) - 1, len(lines[-1])))
        assert help["signatures"][0]["label"] == label
        assert [p["label"] for p in help["signatures"][0]["parameters"]] == \
            label[label.index("(") + 1:-1].split(", ")
        assert help["activeParameter"] == active
    # outside any call's parentheses, or inside a comment's: none
    typing = TICTACTOE + "quiet when line(X) # line(\n"
    change(client, uri, typing, 3)
    lines = typing.split("\n")
    assert client.request("textDocument/signatureHelp", at(uri, len(lines) - 2, len(lines[-2]))) is None


# ---- quick fixes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("good,broken,fixed,title", [
    ("cell[r][c] = mover", "cell[r][c] = movr", "cell[r][c] = mover", "Replace 'movr' with 'mover'"),
    ("requires cell[r][c] == empty", "requires cell[r][c] = empty", "requires cell[r][c] == empty",
     "Write `==`"),
    ("requires cell[r][c] == empty", "requires cell[r][c] <> empty", "requires cell[r][c] != empty",
     "Write `!=`"),
    ("line(X) or line(O) or", "line(X) || line(O) or", "line(X) or line(O) or", "Write `or`"),
    ("line(X) or line(O) or", "line(X) or line(O) or True and", "line(X) or line(O) or true and",
     "Write `true`"),
    ("utility X =", "utility Xx =", "utility X =", "Replace 'Xx' with 'X'"),
    ("max-length 9", "max-length 9\nwhen stuck pas", "max-length 9\nwhen stuck pass",
     "Replace 'pas' with 'pass'"),
    ("line(X) or line(O) or", "line(X) && line(O) or", "line(X) and line(O) or", "Write `and`"),
    ("terminal line(X)", "terminal !line(X)", "terminal not line(X)", "Write `not`"),
    ("effect   cell[r][c] = mover",
     "effect   if r == 0 { cell[r][c] = mover } elif r > 0 { cell[r][c] = mover }",
     "effect   if r == 0 { cell[r][c] = mover } else if r > 0 { cell[r][c] = mover }",
     "Write `else if`"),
    ("effect   cell[r][c] = mover", "effect   if r >= 0: { cell[r][c] = mover }",
     "effect   if r >= 0 { cell[r][c] = mover }", "Remove the ':'"),
    ("effect   cell[r][c] = mover", "effect   cell[r][c] = mover let a = 1",
     "effect   cell[r][c] = mover; let a = 1", "Add ';' before `let`"),
    ("max-length 9", "max-length 19 / 2", "max-length 19 // 2", "Write `//` (floor division)"),
    # the file's last lines: `zero-sum` is added at its end
    ("zero-sum\nmax-length 9\ndisplay cell as {empty: \".\", X: \"X\", O: \"O\"}\n"
     "display place(r, c) as cell[r][c]\n",
     "max-length 9\ndisplay cell as {empty: \".\", X: \"X\", O: \"O\"}\n"
     "display place(r, c) as cell[r][c]\n",
     "max-length 9\ndisplay cell as {empty: \".\", X: \"X\", O: \"O\"}\n"
     "display place(r, c) as cell[r][c]\nzero-sum\n",
     "Add `zero-sum`"),
])
def test_a_quick_fix_makes_the_change_the_hint_names(client, good, broken, fixed, title):
    # Each broken file is the game with one mistake whose hint names the fix; the fix must make
    # exactly the change the hint names, and nothing else.
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/fix.game"
    text = TICTACTOE.replace(good, broken)
    assert text != TICTACTOE
    found = open_document(client, uri, text)
    assert len(found) == 1
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": found[0]["range"],
        "context": {"diagnostics": found}})
    assert [a["title"] for a in actions] == [title]
    assert actions[0]["kind"] == "quickfix" and actions[0]["diagnostics"][0]["code"] == found[0]["code"]
    assert apply_edits(text, actions[0]["edit"]["changes"][uri]) == TICTACTOE.replace(good, fixed)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []


def test_a_reserved_word_as_a_name_is_fixed_by_renaming_it_everywhere(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/reserved.game"
    text = re.sub(r"\bline\b", "next", TICTACTOE)        # `next` is a statement's keyword
    found = open_document(client, uri, text)
    reserved = [d for d in found if d["code"] == "E224"]
    assert len(reserved) == 1
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": reserved[0]["range"],
        "context": {"diagnostics": reserved}})
    assert [a["title"] for a in actions] == ["Rename 'next' to 'next_'"]
    fixed = apply_edits(text, actions[0]["edit"]["changes"][uri])
    assert fixed == re.sub(r"\bline\b", "next_", TICTACTOE)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []


def test_no_quick_fix_where_the_hint_names_none(client):
    client, _ = client
    uri = "file:///tmp/gdl-lsp-test/nofix.game"
    text = TICTACTOE.replace("var cell[3][3] in {empty, X, O} = empty",
                             "var cell[3][3] in {empty, X, O} = empty\nvar turn in 0..3 = 7")
    found = open_document(client, uri, text)
    assert [d["code"] for d in found] == ["E204"]          # its hint lists the domain: no edit
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": found[0]["range"],
        "context": {"diagnostics": found}})
    assert actions == []
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []


# ---- the pieces, directly ------------------------------------------------------------------------

@pytest.mark.parametrize("cut,inserted,removed", [
    (0, "new line\n", 0), (37, "XY", 0), (40, "", 5), (60, "a\nb\nc", 3), (70, "", 30),
    (len(TICTACTOE), "\n#", 0)])
def test_positions_map_through_an_edit(cut, inserted, removed):
    # One edit at offset `cut`. Every character on a line the edit does not touch keeps its
    # place relative to its line's neighbours: before the edit unchanged, after it moved by
    # len(inserted) - removed characters. On the edited lines a character may stay unmapped
    # (in a run of equal characters, which of them was removed is anybody's guess), but one
    # that maps lands on the same character. Every map goes back where it came from.
    from gdl.lsp.positions import PositionMap

    old = TICTACTOE
    new = old[:cut] + inserted + old[cut + removed:]
    mapping = PositionMap(old, new)

    def place(text, offset):
        before = text[:offset]
        return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1

    first_line, last_line = place(old, cut)[0], place(old, cut + removed)[0]
    shift = len(inserted) - removed
    new_lines = new.split("\n")
    for offset in range(len(old)):
        line = place(old, offset)[0]
        got = mapping.to_new(*place(old, offset))
        if line < first_line or line > last_line:
            expected = offset if offset < cut else offset + shift
            assert got == place(new, expected), offset
        if got is not None:
            assert (new_lines[got[0] - 1] + "\n")[got[1] - 1] == old[offset], offset
            assert mapping.to_old(*got) == place(old, offset), offset


def test_a_let_in_one_block_is_not_the_let_of_another():
    from gdl.lsp.index import Index

    text = ('game "lets"\nplayers A, B\nvar n in 0..9 = 0\n'
            "action step(k in 0..1)\n"
            "    effect if k == 0 { let x = 1; n = n + x } else { let x = 2; n = n + x }\n"
            "terminal n > 5\nutility A = n\nzero-sum\n")
    index = Index.build(text)
    assert index is not None
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if "let x = 1" in line)
    first, second = lines[row].index("let x = 1") + 5, lines[row].index("let x = 2") + 5
    uses = [i + 2 for i in range(len(lines[row])) if lines[row].startswith("+ x", i)][:2]
    assert index.lookup(row + 1, uses[0] + 1).span.column == first
    assert index.lookup(row + 1, uses[1] + 1).span.column == second


def test_a_file_the_editor_did_not_open_is_not_read(client, tmp_path):
    # A request may name any URI; the server answers only about documents the client opened
    # (pygls itself would read the file from the disk).
    client, _ = client
    path = tmp_path / "unopened.game"
    path.write_text(TICTACTOE.replace("requires cell[r][c] == empty", "requires cell[r][c]==empty"))
    uri = path.as_uri()
    assert client.request("textDocument/formatting", {
        "textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}) is None
    assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}) == []
    line, character = position_of(TICTACTOE, "requires cell", offset=len("requires c"))
    assert client.request("textDocument/hover", at(uri, line, character)) is None
    assert client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                                                "end": {"line": 30, "character": 0}},
        "context": {"diagnostics": []}}) == []
    assert client.request("textDocument/signatureHelp", at(uri, 10, 12)) is None


# ---- simultaneous moves and hidden information ----------------------------------------------------

KUHN = (ROOT / "games" / "kuhn.game").read_text(encoding="utf-8")
# A hides a number (a hidden variable and a hidden action); both then choose at once.
SEALED = """game "Sealed"
players A, B
var secret in 0..2 = 0
var bid[players] in 0..2 = 0
hidden secret, choose
simultaneous if secret != 0
action choose(n in 1..2) by A requires secret == 0 effect secret = n; next A
action offer(k in 1..2) requires secret != 0 and bid[mover] == 0 effect bid[mover] = k
terminal bid[A] != 0
utility A = bid[A] - bid[B] + (1 if secret == bid[B] else 0)
zero-sum
"""


def test_the_outline_and_hover_know_simultaneous_private_and_hidden(client):
    client, _ = client
    kuhn, sealed = "file:///tmp/gdl-lsp-test/kuhn.game", "file:///tmp/gdl-lsp-test/sealed.game"
    assert open_document(client, kuhn, KUHN) == []
    assert open_document(client, sealed, SEALED) == []
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": kuhn}})
    names = [s["name"] for s in symbols]
    assert names.index("over") < names.index("private card") < names.index("init")
    private = next(s for s in symbols if s["name"] == "private card")
    line = next(n for n, text in enumerate(KUHN.split("\n")) if text.startswith("private card"))
    assert private["selectionRange"]["start"] == {"line": line, "character": 0}
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": sealed}})
    assert [s["name"] for s in symbols][5:7] == ["hidden secret, choose", "simultaneous"]
    simultaneous = symbols[6]
    assert simultaneous["detail"] == "if secret != 0"
    hover = client.request("textDocument/hover", at(kuhn, *position_of(KUHN, "card[First] =",
                                                                         offset=1)))
    declared = line + 1
    assert (f"private: each player sees its own entry only (`private card`, line {declared})"
            in hover["contents"]["value"])
    hover = client.request("textDocument/hover", at(sealed, *position_of(SEALED, "secret == 0",
                                                                           offset=1)))
    assert "hidden: no player sees it (`hidden secret`, line 5)" in hover["contents"]["value"]
    hover = client.request("textDocument/hover", at(sealed, *position_of(SEALED, "choose(n",
                                                                           offset=1)))
    assert ("hidden: the other players do not see that it was chosen, nor its parameters "
            "(`hidden choose`, line 5)") in hover["contents"]["value"]


def test_references_and_rename_reach_the_private_and_hidden_lists(client):
    client, _ = client
    import gdl

    for uri, text, name, new in (("file:///tmp/gdl-lsp-test/kuhn-rename.game", KUHN, "card", "hand"),
                                 ("file:///tmp/gdl-lsp-test/sealed-rename.game", SEALED, "secret",
                                  "kept"),
                                 ("file:///tmp/gdl-lsp-test/sealed-rename2.game", SEALED, "choose",
                                  "pick")):
        open_document(client, uri, text)
        line, character = words(text, name)[-1]
        found = client.request("textDocument/references", at(
            uri, line, character, context={"includeDeclaration": True}))
        assert starts(found) == words(text, name), name     # the list's entry among them
        edit = client.request("textDocument/rename", at(uri, line, character, newName=new))
        renamed = apply_edits(text, edit["changes"][uri])
        assert renamed == replace_words(text, name, new)
        game = gdl.loads(renamed)            # the lists renamed too, or the file would not check
        assert game.info.hidden


def test_rename_reaches_a_boards_display_and_leaves_its_words(client):
    # Connect Four's displays: `display cell as {empty: "." disc white, Red: "R" disc red, ...}
    # transpose flip on "#1f4fa8"` and `display drop(c) as cell[c]`. Renaming the variable, the
    # action or the player Red changes them there too; the picture's colour `red` and the
    # layout words are words of the display, not names, and stay.
    client, _ = client
    import gdl

    text = (ROOT / "games" / "connect4.game").read_text(encoding="utf-8")
    for number, (name, new) in enumerate((("cell", "square"), ("drop", "play"), ("Red", "Crimson"))):
        uri = f"file:///tmp/gdl-lsp-test/connect4-{number}.game"
        open_document(client, uri, text)
        line, character = words(text, name)[0]
        edit = client.request("textDocument/rename", at(uri, line, character, newName=new))
        renamed = apply_edits(text, edit["changes"][uri])
        assert renamed == replace_words(text, name, new), name
        display = [row for row in renamed.splitlines() if row.startswith("display")]
        assert any(new in row for row in display), name
        assert all(" red," in row and "transpose flip" in row for row in display[:1])
        gdl.loads(renamed)                   # the displays still name what they draw
    # `c` in `display drop(c) as cell[c]` is that line's own: renaming it changes that line only
    uri = "file:///tmp/gdl-lsp-test/connect4-c.game"
    open_document(client, uri, text)
    line = next(i for i, row in enumerate(text.split("\n")) if row.startswith("display drop"))
    character = text.split("\n")[line].index("(c)") + 1
    edit = client.request("textDocument/rename", at(uri, line, character, newName="column"))
    renamed = apply_edits(text, edit["changes"][uri])
    before, after = text.split("\n"), renamed.split("\n")
    assert [i for i, (a, b) in enumerate(zip(before, after)) if a != b] == [line]
    assert after[line] == "display drop(column) as cell[column]"
