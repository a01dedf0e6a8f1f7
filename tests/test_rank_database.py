"""The position database of format 2 (gdl/graph/rank_database.py): a ranked solve's codes in
chunks compressed apart, read back without the game; format 1 still read; a damaged or foreign
file refused by name."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest
from test_security_database import unpack  # the same frame: magic, header, sections

from gdl.backends.load import load
from gdl.graph import rank_database, strong_solve
from gdl.graph.database import MAGIC, DatabaseError, open_database, save

GAMES = Path(__file__).resolve().parent.parent / "games"
BINDING = {"test": 2}


@pytest.fixture(scope="module")
def connect_four():
    """Connect Four 4 x 4 solved both ways, and both databases."""
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, "native")
    return game, strong_solve(game, ranked=True), strong_solve(game, ranked=False)


@pytest.fixture(scope="module")
def saved(connect_four, tmp_path_factory):
    _, ranked, graph = connect_four
    directory = tmp_path_factory.mktemp("db")
    save(ranked, directory / "ranked.db", BINDING)
    save(graph, directory / "graph.db", BINDING)
    return directory


def test_format_two_answers_as_format_one_at_every_position(connect_four, saved):
    game, _, graph = connect_four
    two = open_database(saved / "ranked.db", BINDING)
    one = open_database(saved / "graph.db", BINDING)
    assert (saved / "ranked.db").read_bytes().startswith(rank_database.MAGIC)
    assert (saved / "graph.db").read_bytes().startswith(MAGIC)       # format 1, unchanged
    assert len(two) == len(one) == 161_029 and two.exact
    for position in range(len(graph.graph)):
        state = graph.graph.state(position)
        assert two.lookup(state) == one.lookup(state), state
    # a state no play reaches: red discs only, two of them
    unreachable = list(game.initial_state())
    assert two.lookup(tuple(unreachable[:1] + [9] + unreachable[2:])) is None


def test_the_file_is_smaller_than_format_one(saved):
    assert (saved / "ranked.db").stat().st_size < (saved / "graph.db").stat().st_size / 3


def test_saving_twice_and_by_tiers_gives_the_same_bytes(connect_four, saved, tmp_path,
                                                        monkeypatch):
    import gdl.graph
    from gdl.graph.tiers import merge_database, tiered_solve

    game, ranked, _ = connect_four
    save(ranked, tmp_path / "again.db", BINDING)
    assert (tmp_path / "again.db").read_bytes() == (saved / "ranked.db").read_bytes()
    monkeypatch.setattr(gdl.graph, "RANKED_MIN", 1000)     # small enough to rank by tiers
    solution = tiered_solve(game, tmp_path / "t", binding=BINDING)
    assert solution.ranked is not None and solution.run.manifest["keys"] == "ranked"
    assert solution.positions == 161_029
    assert solution.lookup(game.initial_state()) == ((0, 0), 16)
    merge_database(solution, tmp_path / "tiers.db", BINDING)
    assert (tmp_path / "tiers.db").read_bytes() == (saved / "ranked.db").read_bytes()


def test_other_rules_are_refused_by_name(saved):
    with pytest.raises(DatabaseError, match="built from other rules"):
        open_database(saved / "ranked.db", {"test": 3})


def test_a_later_format_is_refused_by_name(saved, tmp_path):
    data = (saved / "ranked.db").read_bytes()
    path = tmp_path / "later.db"
    path.write_bytes(b"GDLPOS3\n" + data[8:])
    with pytest.raises(DatabaseError, match=r"another format.*reads formats 1 and 2"):
        open_database(path)


def pack(header, sections: list[bytes]) -> bytes:
    blob = header if isinstance(header, bytes) else json.dumps(header).encode("utf-8")
    out = [rank_database.MAGIC, struct.pack("<I", len(blob)), blob,
           struct.pack("<I", len(sections))]
    for data in sections:
        out += [struct.pack("<Q", len(data)), data]
    return b"".join(out)


def test_the_packing_helpers_read_what_save_writes(saved, tmp_path):
    header, sections = unpack((saved / "ranked.db").read_bytes())
    path = tmp_path / "same.db"
    path.write_bytes(pack(header, sections))
    assert path.read_bytes() == (saved / "ranked.db").read_bytes().replace(
        json.dumps(header, sort_keys=True).encode(), json.dumps(header).encode())
    assert len(open_database(path)) == 161_029


def changed(header: dict, **fields) -> dict:
    return {**header, **fields}


def tier0(header: dict, **fields) -> dict:
    return changed(header, tiers=[{**header["tiers"][0], **fields}] + header["tiers"][1:])


HOSTILE = {
    "a list, not an object": lambda h: [1],
    "no ranking": lambda h: {k: v for k, v in h.items() if k != "ranking"},
    "a ranking that is a list": lambda h: changed(h, ranking=[]),
    "a cell of size 0": lambda h: changed(h, ranking={**h["ranking"], "size": [0] * len(
        h["ranking"]["size"])}),
    "a key of more than 63 bits": lambda h: changed(h, ranking={**h["ranking"], "size": [
        1 << 40] * len(h["ranking"]["size"])}),
    "a component of a billion values": lambda h: changed(h, ranking={
        **h["ranking"], "size": [1 << 31] + h["ranking"]["size"][1:],
        "fixed": h["ranking"]["fixed"][1:],
        "components": h["ranking"]["components"] + [
            {"kind": "cell", "cell": 0, "values": list(range(1 << 21))}]}),
    "a cell ranked twice": lambda h: changed(h, ranking={
        **h["ranking"], "components": h["ranking"]["components"] * 2}),
    "an unknown component": lambda h: changed(h, ranking={
        **h["ranking"], "components": [{"kind": "tree"}]}),
    "a weight over no cell": lambda h: changed(h, ranking={
        **h["ranking"], "weights": [{"kind": "count", "cells": [10 ** 6], "value": 1}]}),
    "a tier of the wrong size": lambda h: tier0(h, size=h["tiers"][0]["size"] + 1),
    "a target out of range": lambda h: tier0(h, target=-1),
    "chunks that do not match": lambda h: tier0(h, chunks=2),
    "a width of 3 bytes": lambda h: changed(h, record={**h["record"], "width": 3}),
    "a span of 0": lambda h: changed(h, record={**h["record"], "span": 0}),
    "a chunk of 0 slots": lambda h: changed(h, record={**h["record"], "chunk": 0}),
    "another record layout": lambda h: changed(h, record={"layout": "packed16",
                                                            "remoteness_bits": 8}),
    "more positions than reached": lambda h: changed(h, positions=h["positions"] + 1),
    "a value table too small for the codes": lambda h: changed(h, values=h["values"][:1]),
    "format 1 under the mark of format 2": lambda h: changed(h, format=1),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_header_is_a_damaged_database(saved, tmp_path, name):
    header, sections = unpack((saved / "ranked.db").read_bytes())
    path = tmp_path / "hostile.db"
    path.write_bytes(pack(HOSTILE[name](header), sections))
    with pytest.raises(DatabaseError, match="not a valid gdl position database, or damaged"):
        open_database(path)


def test_damaged_chunks_are_refused(saved, tmp_path):
    header, sections = unpack((saved / "ranked.db").read_bytes())
    path = tmp_path / "damaged.db"
    cases = {
        "a chunk missing": sections[:-1],
        "a chunk cut short": sections[:-1] + [sections[-1][:-3]],
        "a code beyond the table": [zlib.compress(b"\xff" * len(zlib.decompress(sections[0])))]
        + sections[1:],
        "a zip bomb": [zlib.compress(bytes(1 << 24))] + sections[1:],
    }
    for why, wrong in cases.items():
        path.write_bytes(pack(header, wrong))
        with pytest.raises(DatabaseError, match="damaged"):
            open_database(path)
        assert why


def test_the_command_line_saves_and_reads_format_two(tmp_path, capsys, monkeypatch):
    import gdl.graph
    from gdl.cli import main

    monkeypatch.setattr(gdl.graph, "RANKED_MIN", 1000)
    rules = str(GAMES / "connect4.game")
    sets = ["--set", "columns=4", "--set", "rows=4"]
    database = tmp_path / "c4.db"
    assert main(["solve", rules, *sets, "--strong", "--max-states", "1000000", "--save",
                 str(database)]) == 0
    out = capsys.readouterr().out
    assert "161,029 positions" in out and database.read_bytes().startswith(rank_database.MAGIC)
    assert "over every reachable position, on ranked tables" in out
    assert main(["analyze", rules, *sets, "--db", str(database), "--json"]) == 0
    two = json.loads(capsys.readouterr().out)
    # the same analysis from a database of format 1 (the position graph's, RANKED_MIN back up)
    monkeypatch.setattr(gdl.graph, "RANKED_MIN", 10 ** 9)
    old = tmp_path / "c4-format1.db"
    assert main(["solve", rules, *sets, "--strong", "--max-states", "1000000", "--save",
                 str(old)]) == 0
    capsys.readouterr()
    assert old.read_bytes().startswith(MAGIC)
    assert main(["analyze", rules, *sets, "--db", str(old), "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert two["exact"] is True and two["algorithm"] == "position database"
    assert {m["action"] for m in two["actions"]} == {"drop(0)", "drop(1)", "drop(2)", "drop(3)"}
    assert two == one


def test_the_command_line_by_tiers_says_it_ran_on_ranked_tables(tmp_path, capsys, monkeypatch):
    # past AUTO_TIERS positions a game that declares a tier is solved a tier at a time, and
    # there the ranked tables take it: the line must say so, not "packed keys"
    import gdl.cli.strong
    import gdl.graph
    from gdl.cli import main

    monkeypatch.setattr(gdl.graph, "RANKED_MIN", 1000)
    monkeypatch.setattr(gdl.cli.strong, "AUTO_TIERS", 1000)
    rules = str(GAMES / "connect4.game")
    database = tmp_path / "c4.db"
    assert main(["solve", rules, "--set", "columns=4", "--set", "rows=4", "--strong",
                 "--save", str(database)]) == 0
    captured = capsys.readouterr()
    assert "solving a tier at a time" in captured.err
    assert "a tier at a time on 1 thread(s), through ranked tables" in captured.out
    assert "161,029 positions" in captured.out
    assert database.read_bytes().startswith(rank_database.MAGIC)
    # a draw (FACTS: Tromp), and a drawn game ends on the full board: 16 plies away
    game = load(GAMES / "connect4.game", {"columns": 4, "rows": 4}, "native")
    entry = open_database(database).lookup(game.initial_state())
    assert (entry.values, entry.remoteness) == ((0, 0), 16)
