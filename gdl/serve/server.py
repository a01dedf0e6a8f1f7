"""The local web server behind `gdl serve`: the standard library's ThreadingHTTPServer, one
static page (gdl/serve/static, shipped as package data) and a small JSON API over a Workbench.

    GET  /                   the page (index.html, app.js, tree.js, style.css)
    GET  /api/state          the position, its moves and their values (Workbench.state)
    POST /api/move           {"index": i}   play move i (or choose chance outcome i)
    POST /api/solver         the solver moves for the player to move
    POST /api/roll           roll the dice at a chance node
    POST /api/undo           back to the person's previous decision
    POST /api/restart        a new game from the initial position
    POST /api/seats          {"human": [i, ...]}   the players a person plays
    POST /api/tree           {"depth": n | null}   the search tree from here (nodes, SVG, text)
    POST /api/step           {"algorithm": a, "depth": n | null, "table": b, "ordering": b}
                             a search from here with every event of its trace, to step through
    POST /api/rules          {"text": "..."}  check edited rules; load them when sound

Safety (docs/security.md): it listens on 127.0.0.1 unless told otherwise; there it answers only
connections from the user who started it (on Linux, where /proc/net/tcp names each
connection's owner: another user of the machine can reach 127.0.0.1 too) and only requests
addressed to a loopback name (a web page elsewhere cannot reach it through DNS rebinding); a
POST must carry a JSON body (so another site's form cannot post to it without a CORS preflight,
which is never granted) of at most ``MAX_BODY`` bytes; a connection that sends nothing for
``TIMEOUT`` seconds is closed; the page's Content-Security-Policy allows only its own script,
and the script puts every text from the game into the page as text, never as markup.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from gdl.serve.workbench import Workbench, WorkbenchError

MAX_BODY = 1 << 20          # the largest request body accepted (rule text), in bytes
# The deepest nesting of arrays and objects accepted in a request body (the page sends 2). Checked
# before parsing: while a search runs, the process's recursion limit is raised for it
# (gdl.solvers.deep), and the parser recursing that deep in a request thread would overflow the
# thread's stack and kill the server instead of raising RecursionError.
MAX_NESTING = 32
TIMEOUT = 60                # seconds a connection may wait between bytes before it is closed
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/tree.js": ("tree.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                               "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _static(name: str) -> bytes:
    return resources.files("gdl.serve").joinpath("static", name).read_bytes()


class _Handler(BaseHTTPRequestHandler):
    server: GameServer
    protocol_version = "HTTP/1.1"
    # Without a timeout a connection that never finishes its request holds a thread forever:
    # enough of them and the server has no memory left (slowloris).
    timeout = TIMEOUT

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the command line says what matters (gdl/cli is the only place that prints)."""

    # -- answering
    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, document: Any, status: int = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(document).encode("utf-8"), "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json({"error": message}, status)

    def _host_allowed(self) -> bool:
        if self.server.allowed_hosts is None:
            return True
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
        return host in self.server.allowed_hosts

    # -- requests
    def do_GET(self) -> None:
        if not self._host_allowed():
            return self._error(HTTPStatus.FORBIDDEN, "unexpected Host header")
        path = self.path.split("?", 1)[0]
        if path in STATIC:
            name, content_type = STATIC[path]
            return self._send(HTTPStatus.OK, _static(name), content_type)
        if path == "/api/state":
            return self._answer(lambda bench, body: bench.state(), {})
        self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    do_HEAD = do_GET

    def do_POST(self) -> None:
        if not self._host_allowed():
            return self._error(HTTPStatus.FORBIDDEN, "unexpected Host header")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type != "application/json":
            return self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (application/json)")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            return self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body too large")
        data = self.rfile.read(length) or b"{}"
        if _nesting(data) > MAX_NESTING:
            return self._error(HTTPStatus.BAD_REQUEST, "the request body is not JSON the page "
                               f"sends: nested more than {MAX_NESTING} deep")
        try:
            body = json.loads(data)
        except (ValueError, UnicodeError, RecursionError):
            return self._error(HTTPStatus.BAD_REQUEST, "the request body is not JSON")
        if not isinstance(body, dict):
            return self._error(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
        action = ACTIONS.get(self.path)
        if action is None:
            return self._error(HTTPStatus.NOT_FOUND, f"no such action: {self.path}")
        self._answer(action, body)

    def _answer(self, action, body: dict) -> None:
        try:
            document = action(self.server.workbench, body)
        except WorkbenchError as error:
            return self._error(HTTPStatus.CONFLICT, str(error))
        except (KeyError, TypeError, ValueError) as error:
            return self._error(HTTPStatus.BAD_REQUEST, f"bad request: {error}")
        self._json(document)


def _rules(bench: Workbench, body: dict) -> dict:
    text = body["text"]
    if not isinstance(text, str):
        raise TypeError("'text' must be a string")
    return bench.load_rules(text)


ACTIONS = {
    "/api/move": lambda bench, body: bench.move(body["index"]),
    "/api/solver": lambda bench, body: bench.solver_move(),
    "/api/roll": lambda bench, body: bench.roll(),
    "/api/undo": lambda bench, body: bench.undo(),
    "/api/restart": lambda bench, body: bench.restart(),
    "/api/seats": lambda bench, body: bench.set_human(list(body["human"])),
    "/api/tree": lambda bench, body: bench.tree(body.get("depth")),
    "/api/step": lambda bench, body: bench.step(body.get("algorithm", "auto"), body.get("depth"),
                                                body.get("table", False),
                                                body.get("ordering", False)),
    "/api/rules": _rules,
}


class GameServer(ThreadingHTTPServer):
    """A threaded HTTP server over one Workbench. ``port=0`` picks a free port."""

    daemon_threads = True

    def __init__(self, workbench: Workbench, host: str = "127.0.0.1", port: int = 0):
        super().__init__((host, port), _Handler)
        self.workbench = workbench
        # On a loopback address only requests addressed to it are answered; a server the user
        # chose to expose (--host 0.0.0.0) is reached under names it cannot know.
        loopback = {"127.0.0.1", "localhost", "::1"}
        self.allowed_hosts: set[str] | None = loopback if host.lower() in loopback else None
        # On a loopback address every user of this machine can connect: only the user who
        # started the server is answered. Elsewhere (--host) the peer is another machine.
        self.owner_only = self.allowed_hosts is not None

    def verify_request(self, request, client_address) -> bool:
        """Whether to answer a connection: on loopback, only one whose other end belongs to
        this user (checked before a thread is started for it). Another user gets a 403 and the
        connection is closed."""
        if not self.owner_only:
            return True
        owner = connection_owner(client_address, self.server_address)
        if owner is None or owner == os.getuid():
            return True
        try:
            request.settimeout(5)
            body = b'{"error": "this page answers only the user who started gdl serve"}'
            request.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
                            b"Content-Length: " + str(len(body)).encode() + b"\r\n"
                            b"Connection: close\r\n\r\n" + body)
        except OSError:
            pass
        return False

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def serve_in_thread(self) -> threading.Thread:
        """Serve from a daemon thread (for tests and embedding); ``shutdown()`` stops it."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread


# ---- who is at the other end of a loopback connection ---------------------------------------------

def connection_owner(client: tuple, server: tuple, tables: str = "/proc/net") -> int | None:
    """The user id owning the client's end of a TCP connection between two addresses of this
    machine, from Linux's socket tables (``tcp`` for IPv4, ``tcp6`` for IPv6). -1 where that end
    belongs to no process any more (a client that sent its request and closed at once: the
    kernel lists it with no inode, and once its FIN is answered under root, which a server run
    by root must not take for itself) or is gone while the server's end is listed: nobody can
    be named, and the connection is refused. None where the platform has no such
    table, or one that lists neither end (a system that emulates Linux in part): the caller
    then cannot tell, and answers."""
    host, port = client[0], client[1]
    table = os.path.join(tables, "tcp6" if ":" in host else "tcp")
    try:
        with open(table, encoding="ascii") as handle:
            lines = handle.read().splitlines()[1:]
        local = _table_address(host, port)
        remote = _table_address(server[0], server[1])
    except (OSError, ValueError, UnicodeError):
        return None
    ours_listed = False
    for line in lines:
        # sl, local address, remote address, state, queues, timer, retransmits, uid, timeout,
        # inode, ...
        fields = line.split()
        if len(fields) < 10:
            continue
        if fields[1] == local and fields[2] == remote:
            if fields[9] == "0":
                return -1
            try:
                return int(fields[7])
            except ValueError:
                return -1
        if fields[1] == remote and fields[2] == local:
            ours_listed = True
    return -1 if ours_listed else None


def _table_address(host: str | bytes, port: int) -> str:
    """An address as the kernel writes it in /proc/net/tcp[6]: the address as 32-bit words in
    the machine's byte order, in hex, a colon, then the port in hex."""
    if isinstance(host, bytes):
        host = host.decode()
    packed = ipaddress.ip_address(host.split("%")[0]).packed
    words = [packed[i:i + 4] for i in range(0, len(packed), 4)]
    if sys.byteorder == "little":
        words = [word[::-1] for word in words]
    return "".join(word.hex() for word in words).upper() + f":{port:04X}"


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(rb"[\[\]{}]")


def _nesting(data: bytes) -> int:
    """How deep arrays and objects nest in a JSON text (brackets inside strings do not count),
    without parsing it: cheap when it has few brackets, linear in any case."""
    if data.count(b"[") + data.count(b"{") <= MAX_NESTING:
        return 0
    depth = deepest = 0
    for bracket in _BRACKET.finditer(_JSON_STRING.sub(b"", data)):
        if bracket[0] in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest
