"""A position database is a file anyone may hand gdl (`--db`, another user's directory, a
download): opening it must never run code, never take memory out of proportion to its size,
never block, and end every problem in a DatabaseError that says the file is damaged, never in a
traceback (docs/security.md)."""

from __future__ import annotations

import json
import os
import struct
import threading
import tracemalloc
import zlib

import pytest
from helpers import GAMES

import gdl
from gdl.cli import main
from gdl.graph import strong_solve
from gdl.graph.database import MAGIC, DatabaseError, open_database, save

# The format (gdl/graph/database.py's docstring): magic, uint32 header length, the header's JSON,
# uint32 section count, then per section a uint64 length and zlib data.


def pack(header: dict | bytes, sections: list[bytes]) -> bytes:
    blob = header if isinstance(header, bytes) else json.dumps(header).encode("utf-8")
    out = [MAGIC, struct.pack("<I", len(blob)), blob, struct.pack("<I", len(sections))]
    for data in sections:
        out += [struct.pack("<Q", len(data)), data]
    return b"".join(out)


def unpack(data: bytes) -> tuple[dict, list[bytes]]:
    offset = len(MAGIC)
    (length,) = struct.unpack_from("<I", data, offset)
    header = json.loads(data[offset + 4:offset + 4 + length])
    offset += 4 + length
    (count,) = struct.unpack_from("<I", data, offset)
    offset += 4
    sections = []
    for _ in range(count):
        (size,) = struct.unpack_from("<Q", data, offset)
        sections.append(data[offset + 8:offset + 8 + size])
        offset += 8 + size
    return header, sections


@pytest.fixture(scope="module")
def nim_database(tmp_path_factory):
    """A real database (Nim), as save writes it: its header and its sections."""
    path = tmp_path_factory.mktemp("db") / "nim.db"
    save(strong_solve(gdl.load(GAMES / "nim.game")), path, {"rules": "nim"})
    return unpack(path.read_bytes())


def test_the_packing_helpers_read_what_save_writes(nim_database, tmp_path):
    header, sections = nim_database
    path = tmp_path / "same.db"
    path.write_bytes(pack(header, sections))
    database = open_database(path, {"rules": "nim"})
    assert len(database) == header["positions"] > 0


def changed(header: dict, **fields) -> dict:
    return {**header, **fields}


HOSTILE_HEADERS = {
    # each would have raised something other than DatabaseError (a traceback at the command
    # line) or been believed
    "a list, not an object": lambda h: [1],
    "a binding that is a list": lambda h: changed(h, binding=[[1]]),
    "a value 1/0": lambda h: changed(h, values=[["1/0", "-1/0"]] * len(h["values"])),
    "a value of 10^999999999": lambda h: changed(h, values=[["1e999999999", 0]] * len(h["values"])),
    "a value that is an object": lambda h: changed(h, values=[[{"x": 1}, 0]] * len(h["values"])),
    "a key width given as text": lambda h: changed(h, key_width=str(h["key_width"])),
    "positions as a float": lambda h: changed(h, positions=float(h["positions"])),
    "a negative count of positions": lambda h: changed(h, positions=-1),
    "remoteness bits of 10^9": lambda h: changed(h, record={"layout": "packed16",
                                                             "remoteness_bits": 10**9}),
    "an object dtype for the index": lambda h: changed(h, record={"layout": "split",
                                                                   "index_dtype": "O"}),
    "a signed dtype for the index": lambda h: changed(h, record={"layout": "split",
                                                                  "index_dtype": "<i1"}),
    "an unknown key encoding": lambda h: changed(h, key="zz"),
    "a record layout that is a list": lambda h: changed(h, record=[]),
    "no format": lambda h: {k: v for k, v in h.items() if k != "format"},
    "exact given as text": lambda h: changed(h, exact="yes"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_HEADERS))
def test_a_hostile_header_is_a_damaged_database(nim_database, tmp_path, name):
    header, sections = nim_database
    path = tmp_path / "hostile.db"
    path.write_bytes(pack(HOSTILE_HEADERS[name](header), sections))
    with pytest.raises(DatabaseError, match="not a valid gdl position database, or damaged"):
        open_database(path)


def test_a_header_nested_too_deep_for_json_is_a_damaged_database(tmp_path):
    path = tmp_path / "deep.db"
    path.write_bytes(pack(b"[" * 100_000 + b"]" * 100_000, []))
    with pytest.raises(DatabaseError, match="damaged"):
        open_database(path)


def test_the_sections_must_be_the_ones_the_layout_has(nim_database, tmp_path):
    header, sections = nim_database
    path = tmp_path / "short.db"
    for wrong in ([], sections[:1], [*sections, sections[-1]]):
        path.write_bytes(pack(header, wrong))
        with pytest.raises(DatabaseError, match="damaged"):
            open_database(path)


def test_a_remoteness_below_minus_one_is_refused(nim_database, tmp_path):
    # The split layout stores the remoteness as int32, -1 meaning none: anything lower is no
    # remoteness gdl wrote.
    header, sections = nim_database
    n = header["positions"]
    split = changed(header, record={"layout": "split", "index_dtype": "<u1"})
    remoteness = struct.pack(f"<{n}i", *([-5] + [0] * (n - 1)))
    path = tmp_path / "remoteness.db"
    path.write_bytes(pack(split, [sections[0], zlib.compress(bytes(n)), zlib.compress(remoteness)]))
    with pytest.raises(DatabaseError, match="remoteness below -1"):
        open_database(path)
    fine = struct.pack(f"<{n}i", *([-1] * n))
    path.write_bytes(pack(split, [sections[0], zlib.compress(bytes(n)), zlib.compress(fine)]))
    game = gdl.load(GAMES / "nim.game")
    entry = open_database(path).lookup(game.initial_state())    # -1 is "none": it opens
    assert entry is not None and entry.remoteness == -1


def test_a_zip_bomb_is_not_inflated_past_what_its_header_gives(nim_database, tmp_path):
    # 256 MiB of zeros compress to about 250 KB. Before the check the whole section was
    # inflated before its length was compared with the header's: a quarter of a gigabyte from
    # a file a thousand times smaller.
    header, sections = nim_database
    bomb = zlib.compress(bytes(256 << 20), 9)
    path = tmp_path / "bomb.db"
    path.write_bytes(pack(header, [bomb, *sections[1:]]))
    tracemalloc.start()
    try:
        with pytest.raises(DatabaseError, match="damaged"):
            open_database(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak:,} bytes at the peak"


def test_a_header_claiming_more_than_zlib_can_make_is_refused_before_inflating(
        nim_database, tmp_path, monkeypatch):
    # A header that claims a billion positions over a few hundred compressed bytes: deflate
    # makes at most 1032 bytes of one, so the file is refused without inflating anything.
    header, sections = nim_database
    path = tmp_path / "claims.db"
    path.write_bytes(pack(changed(header, positions=10**9), sections))
    inflated = []
    real = zlib.decompressobj
    monkeypatch.setattr(zlib, "decompressobj", lambda *a: inflated.append(1) or real(*a))
    with pytest.raises(DatabaseError, match="cannot hold"):
        open_database(path)
    assert inflated == []


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    # Opening a FIFO for reading blocks until someone writes; reading /dev/zero never ends.
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    outcome: list = []

    def open_it():
        try:
            open_database(fifo)
        except DatabaseError as error:
            outcome.append(str(error))

    thread = threading.Thread(target=open_it, daemon=True)
    thread.start()
    thread.join(60)
    if thread.is_alive():                 # release the blocked reader before failing
        with open(fifo, "wb"):
            pass
        thread.join(60)
    assert outcome and "not a regular file" in outcome[0]


def test_a_stale_databases_message_shows_its_text_inert(nim_database, tmp_path):
    # The message quotes the rule file the database was saved for, from the header: an escape
    # sequence there must reach the terminal as text.
    header, sections = nim_database
    path = tmp_path / "stale.db"
    hostile = changed(header, source="games/\x1b]0;owned\x07nim.game",
                      binding={"rules": "other", "params": {"\x1b[2J": 1}})
    path.write_bytes(pack(hostile, sections))
    with pytest.raises(DatabaseError, match="other rules") as caught:
        open_database(path, {"rules": "nim", "params": {}})
    message = str(caught.value)
    assert "\x1b" not in message and "\x07" not in message
    assert "\\x1b]0;owned\\x07nim.game" in message


def test_the_command_line_reports_a_hostile_database_without_a_traceback(nim_database, tmp_path,
                                                                         capsys):
    header, sections = nim_database
    path = tmp_path / "hostile.db"
    path.write_bytes(pack(changed(header, values=[["1/0", 0]] * len(header["values"])), sections))
    code = main(["analyze", str(GAMES / "nim.game"), "--db", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "not a valid gdl position database" in err and "Traceback" not in err


def test_a_deep_header_is_refused_whatever_the_recursion_limit(tmp_path):
    """A deep search raises the interpreter's recursion limit for its thread's sake; json's C
    parser then recursed 100,000 levels on the main thread's stack and crashed the process."""
    import sys

    path = tmp_path / "deep.db"
    path.write_bytes(pack(b"[" * 100_000 + b"]" * 100_000, []))
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(200_000)
    try:
        with pytest.raises(DatabaseError, match="nested 100000 levels deep"):
            open_database(path)
    finally:
        sys.setrecursionlimit(before)


def test_brackets_inside_header_strings_are_not_nesting():
    from gdl.graph.database import _shallow_json

    assert _shallow_json('{"note": "' + "[" * 100 + '\\\\", "x": [[1]]}') == {"note": "[" * 100 + "\\", "x": [[1]]}
