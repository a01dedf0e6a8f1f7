"""`gdl serve` against other users and hostile requests (docs/security.md): on 127.0.0.1 every
user of the machine can connect, so the server answers only the user who started it; a request
nested too deep for the JSON parser, or a connection that never finishes its request, ends
cleanly instead of killing or holding a thread. tests/test_serve.py covers the Host header,
content types, sizes and paths."""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
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


def test_the_owner_of_a_table_entry_is_read_from_the_clients_side(tmp_path):
    # A made-up /proc/net/tcp: the kernel lists both ends of a loopback connection; the client's
    # end (local = the client's address) carries the client's user id, here 1234; the server's
    # end carries the server's, 0. 127.0.0.1 is 0100007F in little-endian hex; ports 8000 and
    # 40000 are 1F40 and 9C40.
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
    rows = ("   0: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0 0 1\n"
            "   1: 0100007F:9C40 0100007F:1F40 01 00000000:00000000 00:00000000 00000000  1234 0 2\n")
    (tmp_path / "tcp").write_text(header + rows, encoding="ascii")
    if sys.byteorder == "little":
        assert served_module.connection_owner(("127.0.0.1", 40000), ("127.0.0.1", 8000), str(tmp_path)) == 1234
        assert served_module.connection_owner(("127.0.0.1", 8000), ("127.0.0.1", 40000), str(tmp_path)) == 0
    assert served_module.connection_owner(("127.0.0.1", 40001), ("127.0.0.1", 8000), str(tmp_path)) == -1
    assert served_module.connection_owner(("::1", 40000), ("::1", 8000), str(tmp_path)) is None  # no tcp6


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


def exchange(address, request: bytes) -> bytes:
    with socket.create_connection(address, timeout=60) as client:
        client.sendall(request)
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
