"""KIF files on the command line: every command that reads a .game file reads a .kif file, and
`gdl import` writes one as the other."""

import json
from pathlib import Path

import pytest

from gdl.cli import main

KIF = Path(__file__).resolve().parent / "data" / "kif"
TICTACTOE = str(KIF / "tictactoe.kif")


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_solve_strong_prints_the_draw_and_5478_positions(capsys):
    code, out, _ = run(capsys, "solve", TICTACTOE, "--strong")
    assert code == 0
    assert "value         x 50, o 50" in out
    assert "class         tie for x, remoteness 9" in out        # ends level, after 9 moves
    assert "positions     5,478 (4,520 decision, 0 chance, 958 terminal)" in out


def test_solve_json_finds_every_first_move_optimal(capsys):
    code, out, _ = run(capsys, "solve", TICTACTOE, "--json")
    document = json.loads(out)
    assert code == 0 and document["values"] == {"x": 50, "o": 50}
    assert document["algorithm"] == "alphabeta"        # the goals mirror: constant sum 100
    assert sorted(document["best_actions"]) == sorted(f"place_{r}_{c}" for r in (1, 2, 3)
                                                      for c in (1, 2, 3))


def test_count_and_analyze(capsys):
    code, out, _ = run(capsys, "count", TICTACTOE, "--json")
    document = json.loads(out)
    assert (document["nodes"], document["games"], document["states"]) == (549_946, 255_168, 5_478)
    # x in the centre, o on an edge: x wins (OpenSpiel's position, cells numbered from 1 here)
    code, out, _ = run(capsys, "analyze", TICTACTOE, "--moves", "place_2_2 place_1_2", "--json")
    assert code == 0
    assert json.loads(out)["values"]["x"] == 100


def test_play_through_a_pipe(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("place_2_2\nquit\n"))
    code, out, _ = run(capsys, "play", TICTACTOE, "--as", "x")
    assert code == 0
    assert "x to move" in out and "o plays" in out


def test_check_reports_kif_mistakes_located(capsys, tmp_path):
    bad = tmp_path / "bad.kif"
    bad.write_text((KIF / "tictactoe.kif").read_text().replace("(index ?r) (index ?c))",
                                                               "(index ?r))", 1))
    code, out, err = run(capsys, "check", TICTACTOE, str(bad))
    assert code == 1
    assert "tictactoe.kif: ok (tictactoe, 2 player(s): x, o)" in out
    assert f"{bad}:13:" in err and "error[K202]" in err and "?c" in err


def test_a_kif_game_has_no_parameters(capsys):
    code, _, err = run(capsys, "solve", TICTACTOE, "--set", "size=4")
    assert code == 1 and "E215" in err


def test_import_round_trip(capsys, tmp_path):
    target = tmp_path / "ttt.game"
    code, _, err = run(capsys, "import", TICTACTOE, "-o", str(target))
    assert code == 0 and "10 moves" in err
    text = target.read_text()
    assert "var cell_1_1 in {blank, o, x, none} = blank" in text
    assert "action place_2_2 by x, o" in text
    # the written rule file solves to what the KIF file solves to
    code, out, _ = run(capsys, "solve", str(target), "--strong", "--json")
    document = json.loads(out)
    assert document["values"] == {"x": 50, "o": 50}
    assert document["census"]["positions"] == 5478
    # it is never overwritten by accident; -o - prints it
    code, _, err = run(capsys, "import", TICTACTOE, "-o", str(target))
    assert code == 2 and "--force" in err
    code, out, _ = run(capsys, "import", TICTACTOE, "-o", "-")
    assert code == 0 and out == text


@pytest.mark.parametrize("name", ["nim.kif", "orchard.kif"])
def test_imported_games_solve_alike(capsys, tmp_path, name):
    target = tmp_path / name.replace(".kif", ".game")
    assert run(capsys, "import", str(KIF / name), "-o", str(target))[0] == 0
    _, kif, _ = run(capsys, "solve", str(KIF / name), "--strong", "--json")
    _, game, _ = run(capsys, "solve", str(target), "--strong", "--json")
    kif, game = json.loads(kif), json.loads(game)
    assert kif["values"] == game["values"]
    assert kif["census"] == game["census"]
    assert kif["best_actions"] == game["best_actions"]


def test_import_refuses_a_simultaneous_game_by_name(capsys):
    # gdl's language says who moves; a game where two roles choose at once is not translated,
    # and the message says the other commands still solve it
    code, _, err = run(capsys, "import", str(KIF / "pennies.kif"), "-o", "-")
    assert code == 1 and "simultaneous moves" in err and "simultaneous-move solvers" in err


def test_solve_a_simultaneous_game(capsys):
    # matching pennies: 50 each (the textbook value), found exactly
    code, out, _ = run(capsys, "solve", str(KIF / "pennies.kif"), "--json")
    result = json.loads(out)
    assert code == 0 and result["exact"] and result["values"] == {"even": 50, "odd": 50}
    assert result["strategies"]["even"] == [{"at": "start",
                                             "actions": {"show_heads": "1/2", "show_tails": "1/2"}}]


def test_the_interpreter_backend_runs_kif_too(capsys):
    code, out, _ = run(capsys, "solve", str(KIF / "nim.kif"), "--strong", "--backend", "interpret",
                       "--json")
    assert code == 0 and json.loads(out)["values"] == {"first": 100, "second": 0}


@pytest.mark.parametrize("command", ["fmt", "show"])
def test_commands_of_the_rule_language_send_kif_to_import(capsys, command):
    # they read gdl's language only: a KIF file is a usage error that names `gdl import`,
    # not a syntax error at its first ';'
    code, out, err = run(capsys, command, TICTACTOE)
    assert code == 2 and out == ""
    assert "not GDL-KIF" in err and f"gdl import {TICTACTOE}" in err and "E100" not in err


def test_import_writes_no_rules_gdl_would_refuse(capsys, tmp_path):
    # a chain of 60 views translates into defines nested deeper than gdl's checks allow
    # (E103): no .game file is written, and the message says the .kif file itself still plays
    from test_kif_games import chain_of_views

    source = tmp_path / "deep.kif"
    source.write_text(chain_of_views(60))
    code, _, err = run(capsys, "import", str(source))
    assert code == 1 and "E103" in err and "gdl solve" in err
    assert not (tmp_path / "deep.game").exists()


def test_fuzz_compares_the_translation_with_the_interpreter_and_the_solvers(capsys, tmp_path):
    code, out, _ = run(capsys, "fuzz", str(KIF / "nim.kif"), "--examples", "3", "--json",
                       "--out", str(tmp_path))
    report = json.loads(out)
    (target,) = report["runs"][0]["targets"].values()
    assert code == 0 and report["ok"]
    assert target["backend_states"] > 0 and "alphabeta" in target["solvers"]


def test_fuzz_solves_a_simultaneous_kif_game_as_a_whole(capsys, tmp_path):
    code, out, _ = run(capsys, "fuzz", str(KIF / "pennies.kif"), "--json", "--out", str(tmp_path))
    report = json.loads(out)
    (target,) = report["runs"][0]["targets"].values()
    assert code == 0 and report["ok"]
    assert {"simultaneous", "sequence-form"} <= set(target["solvers"])


def test_fuzz_writes_a_kif_counterexample_when_the_translation_is_wrong(capsys, tmp_path,
                                                                         monkeypatch):
    # a planted mistake in the translation: every effect forgets its first assignment
    from gdl.kif import translate

    original = translate._Writer.statements
    monkeypatch.setattr(translate._Writer, "statements",
                        lambda self, assigned, rotate: original(self, assigned[1:], rotate))
    monkeypatch.setenv("GDL_NO_CACHE", "1")
    game = tmp_path / "nim.kif"
    game.write_text((KIF / "nim.kif").read_text())
    code, _, err = run(capsys, "fuzz", str(game), "--examples", "1", "--out", str(tmp_path))
    assert code == 1 and "states differ" in err
    (written,) = [p for p in tmp_path.glob("fuzz-counterexample-*") if p.suffix == ".kif"]
    lines = written.read_text().splitlines()
    assert lines[0].startswith("; gdl fuzz counterexample") and "(role" in written.read_text()
    assert any(line.startswith(f"; reproduce: gdl fuzz {game}") for line in lines)


def test_fuzz_says_why_an_untranslated_game_has_nothing_to_compare(capsys, monkeypatch):
    from gdl.kif import load as kif_load
    from gdl.kif.translate import NotTranslatable

    def refuse(*_):
        raise NotTranslatable("a planted reason")

    monkeypatch.setattr(kif_load, "translate", refuse)
    monkeypatch.setenv("GDL_NO_CACHE", "1")
    code, _, err = run(capsys, "fuzz", str(KIF / "nim.kif"), "--examples", "1")
    assert code == 2 and "no second reasoner" in err and "a planted reason" in err
