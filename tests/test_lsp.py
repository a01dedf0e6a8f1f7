"""`gdl lsp` through the protocol: the server runs as a subprocess and this test speaks JSON-RPC
to it over stdin/stdout, as an editor does (Content-Length framing, initialize, didOpen...).

Expected positions are computed from the test's own text, not copied from the server's output.
"""

from __future__ import annotations

import json
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

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        answer = self.wait_for(lambda m: m.get("id") == ident and "method" not in m, method)
        assert "error" not in answer, answer
        return answer["result"]

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


@pytest.fixture(scope="module")
def client():
    client = Client()
    try:
        capabilities = client.request("initialize", {"processId": None, "rootUri": None,
                                                     "capabilities": {}})["capabilities"]
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
