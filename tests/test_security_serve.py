"""`gdl serve` against other users and hostile requests (docs/security.md): on 127.0.0.1 every
user of the machine can connect, so the server answers only the user who started it; a request
nested too deep for the JSON parser, or a connection that never finishes its request, ends
cleanly instead of killing or holding a thread. tests/test_serve.py covers the Host header,
content types, sizes and paths."""

from __future__ import annotations

import functools
import http.client
import json
import os
import socket
import socketserver
import sys
import threading
import time
from pathlib import Path

import pytest

from gdl.serve import server as served_module
from gdl.serve.server import GameServer
from gdl.serve.workbench import Workbench

GAMES = Path(__file__).resolve().parent.parent / "games"
LINUX_TABLES = Path("/proc/net/tcp").exists()


@pytest.fixture
def served():
    text = (GAMES / "nim.game").read_text(encoding="utf-8")
    server = GameServer(Workbench(text, "games/nim.game"))
    server.serve_in_thread()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def post(server, path: str, body: bytes):
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=60)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_a_body_nested_past_the_json_parser_is_a_bad_request(served, capsys):
    # 100,000 open brackets (100 KB, well under the size limit): json.loads raises
    # RecursionError, which used to escape the handler: a traceback on the server's stderr and
    # the connection dropped without an answer.
    status, content = post(served, "/api/move", b"[" * 100_000)
    assert status == 400 and "not JSON" in json.loads(content)["error"]
    assert "Traceback" not in capsys.readouterr().err
    status, _ = post(served, "/api/move", json.dumps({"index": 0}).encode())
    assert status == 200                                      # the server goes on answering


NESTED_WHILE_SEARCHING = """
import http.client, json, sys
from pathlib import Path
from gdl.serve.server import GameServer
from gdl.serve.workbench import Workbench

game = Path(sys.argv[1])
server = GameServer(Workbench(game.read_text(encoding="utf-8"), str(game)))
server.serve_in_thread()
# what every search does while it runs (gdl.solvers.deep.run_deep), for the whole process
sys.setrecursionlimit(200_000)
connection = http.client.HTTPConnection(*server.server_address[:2], timeout=60)
connection.request("POST", "/api/move", body=b"[" * 100_000,
                   headers={"Content-Type": "application/json"})
response = connection.getresponse()
print(response.status, json.loads(response.read())["error"])
server.shutdown()
"""


def test_a_nested_body_during_a_search_is_refused_without_a_crash():
    # A search raises the process's recursion limit while it runs, so that deep games can be
    # searched (in a thread with a large stack); a request thread has the usual stack, and a
    # parser that recursed 100,000 brackets deep under that limit would overflow it: the
    # server would die of a segmentation fault. The body's nesting is looked at first.
    import subprocess

    done = subprocess.run([sys.executable, "-c", NESTED_WHILE_SEARCHING,
                           str(GAMES / "tictactoe.game")], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.startswith("400 ") and "nested" in done.stdout


@pytest.mark.parametrize("body, depth", [
    (b'{"index": 0}', 0),                                   # few brackets: not even counted
    (b'{"text": "' + b"cell[r][c] " * 1000 + b'"}', 1),   # rule text: brackets in a string
    (b'{"text": "\\" [[[[' + b"[" * 100 + b'"}', 1),      # an escaped quote keeps the string
    (b"[" * 40 + b"]" * 40, 40),
    (b"[" * 30 + b'{"a": [1, [2]]}' + b"]" * 30, 33),
])
def test_the_nesting_of_a_body_is_counted_outside_its_strings(body, depth):
    assert served_module._nesting(body) == depth


def test_a_connection_is_given_a_finite_time_to_send_its_request():
    # Python's handler waits forever by default: every connection that never finishes a
    # request keeps a thread, and a few thousand of them exhaust the server.
    assert isinstance(served_module._Handler.timeout, (int, float))
    assert 0 < served_module._Handler.timeout <= 300


def test_a_connection_that_stops_sending_is_closed(served, monkeypatch):
    monkeypatch.setattr(served_module._Handler, "timeout", 0.5)
    with socket.create_connection(served.server_address[:2], timeout=60) as client:
        client.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # never finished
        assert client.recv(1024) == b""                        # closed by the server


HEADER = ("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
          "timeout inode\n")


def row(local: str, remote: str, uid: int, inode: int) -> str:
    return (f"   0: {local} {remote} 01 00000000:00000000 00:00000000 00000000 {uid:>5} "
            f"       0 {inode} 1 0000000000000000 20 4 30 10 -1\n")


# 127.0.0.1 is 0100007F in the kernel's little-endian hex; ports 8000 and 40000 are 1F40, 9C40.
SERVER, CLIENT = "0100007F:1F40", "0100007F:9C40"


def owner(tmp_path, *rows: str, client=("127.0.0.1", 40000)):
    (tmp_path / "tcp").write_text(HEADER + "".join(rows), encoding="ascii")
    return served_module.connection_owner(client, ("127.0.0.1", 8000), str(tmp_path))


@pytest.mark.skipif(sys.byteorder != "little", reason="the made-up table is little-endian")
def test_the_owner_of_a_connection_is_read_from_the_clients_end(tmp_path):
    # The kernel lists both ends of a loopback connection: the client's end (local = the
    # client's address) carries the client's user id, 1234; the server's end carries the
    # server's, 0.
    both = (row(SERVER, CLIENT, 0, 555), row(CLIENT, SERVER, 1234, 556))
    assert owner(tmp_path, *both) == 1234
    assert owner(tmp_path, *reversed(both)) == 1234
    # A client that sent its request and closed: its end belongs to no process (inode 0), and
    # the kernel shows it under root; it cannot be told from root's own, so nobody is named.
    assert owner(tmp_path, row(SERVER, CLIENT, 0, 555), row(CLIENT, SERVER, 0, 0)) == -1
    # The client's end gone while the server's is listed: refused as well.
    assert owner(tmp_path, row(SERVER, CLIENT, 0, 555)) == -1
    # Neither end listed (a system that emulates Linux's tables in part): nobody can tell.
    assert owner(tmp_path, row("0100007F:0050", "0100007F:0051", 7, 9)) is None
    # No table at all for IPv6 here.
    assert served_module.connection_owner(("::1", 40000), ("::1", 8000), str(tmp_path)) is None


@pytest.mark.skipif(not LINUX_TABLES, reason="the kernel's socket tables are Linux's")
def test_a_real_connection_of_ours_is_ours(served):
    with socket.create_connection(served.server_address[:2], timeout=60) as client:
        assert served_module.connection_owner(client.getsockname(), served.server_address) == os.getuid()


@pytest.mark.skipif(not LINUX_TABLES or os.geteuid() != 0,
                    reason="connecting as another user needs root (and Linux's socket tables)")
def test_another_user_of_the_machine_is_refused(served):
    # A second user on the same machine reaches 127.0.0.1 as easily as the owner does: they
    # could play, load rules of their own and set the owner's machine solving.
    body = b'{"index": 0}'
    request = (b"POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    answer = as_another_user(lambda: exchange(served.server_address[:2], request))
    assert answer.startswith(b"HTTP/1.1 403 ") and b"only the user who started" in answer, answer
    assert served.workbench.state()["history"] == []           # nothing was played
    status, _ = post(served, "/api/move", json.dumps({"index": 0}).encode())
    assert status == 200                                       # the owner still is answered


@pytest.mark.skipif(not LINUX_TABLES or os.geteuid() != 0,
                    reason="connecting as another user needs root (and Linux's socket tables)")
def test_another_user_who_sends_and_closes_at_once_is_not_taken_for_root():
    # Once a client closes, the kernel lists its end under uid 0 with no inode: a server run
    # by root must not take that for its own user, or anyone could act on its page by sending
    # a request and closing before the server accepts it. The server here accepts by hand,
    # after the client is gone, and handles each request before handle_request returns.
    text = (GAMES / "nim.game").read_text(encoding="utf-8")
    server = GameServer(Workbench(text, "games/nim.game"))
    server.process_request = functools.partial(socketserver.BaseServer.process_request, server)
    server.timeout = 60
    body = b'{"index": 0}'
    request = (b"POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
               + body)
    address = server.server_address[:2]
    try:
        port = int(as_another_user(lambda: exchange(address, request, wait=False)))
        # The kernel names the closed end's former owner while its FIN is unanswered, then
        # (FIN_WAIT2, state 05) lists it under root: wait for that, the case to refute.
        deadline = time.monotonic() + 30
        while client_state(port) != "05" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client_state(port) == "05"
        server.handle_request()                    # accepted only now: the client is gone
        assert server.workbench.state()["history"] == []       # nothing was played
        # the same request from the owner, who waits for the answer, is played: the harness
        # does handle requests
        answers: list = []
        client = threading.Thread(target=lambda: answers.append(exchange(address, request)))
        client.start()
        server.handle_request()
        client.join(60)
        assert answers and answers[0].startswith(b"HTTP/1.1 200 ")
        assert len(server.workbench.state()["history"]) == 1
    finally:
        server.server_close()


def client_state(port: int) -> str | None:
    """The TCP state (hex, as /proc/net/tcp gives it) of the local socket on ``port``."""
    for line in Path("/proc/net/tcp").read_text(encoding="ascii").splitlines()[1:]:
        fields = line.split()
        if fields[1].endswith(f":{port:04X}"):
            return fields[3]
    return None


def exchange(address, request: bytes, wait: bool = True) -> bytes:
    """Send ``request`` from a plain socket (no name lookup) and read to the end; without
    ``wait``, close at once instead, before the server has read a byte."""
    with socket.socket() as client:
        client.settimeout(60)
        client.connect(address)
        client.sendall(request)
        if not wait:
            return str(client.getsockname()[1]).encode()      # its port
        received = b""
        while chunk := client.recv(65536):              # to the end: the request says close
            received += chunk
        return received


def as_another_user(work) -> bytes:
    """``work()`` in a child process running as user and group 65534 (nobody); its bytes."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:                                   # pragma: no cover - the child
        try:
            os.close(reading)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.write(writing, work())
        finally:
            os._exit(0)
    os.close(writing)
    with os.fdopen(reading, "rb") as handle:
        data = handle.read()
    os.waitpid(child, 0)
    return data


def test_an_exposed_server_does_not_ask_who_connects():
    # --host 0.0.0.0: the peers are other machines, whose users mean nothing here (the
    # command line warns that anyone who can reach the machine can use the page).
    text = (GAMES / "nim.game").read_text(encoding="utf-8")
    exposed = GameServer(Workbench(text, "nim.game"), host="0.0.0.0")
    try:
        assert not getattr(exposed, "owner_only", True) and exposed.allowed_hosts is None
    finally:
        exposed.server_close()
    local = GameServer(Workbench(text, "nim.game"))
    try:
        assert getattr(local, "owner_only", False)
    finally:
        local.server_close()
