"""The C compile's time limit (gdl/backends/native/build.py, issue 31).

A compile that passes its limit must leave no process behind: ``cc`` is only a driver, and
killing it alone leaves ``cc1`` compiling on (the orphans piled up on a busy machine until no
compile finished in time). The compiler here is a fake, a shell script set through ``$CC`` that
starts a child sleeping "forever", as ``cc`` starts ``cc1``, and records both process ids; after
the limit, neither, nor any other process of their group, may be alive. The limit is shrunk to
two seconds so that the test is quick (the real one is a minute and more). A timed-out compile
is remembered: the next load does not run the compiler again, and says why; a larger limit, or
another compiler, tries again.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

import gdl.backends.native.build as build
from gdl.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"
REAL_CC = shutil.which("cc") or shutil.which("gcc")
SOURCE = "int gdl_answer(void) { return 42; }\n"


def fake_compiler(folder: Path, name: str = "slowcc") -> Path:
    """A compiler that never finishes (its child sleeps), unless ``folder/fast`` exists: then it
    hands its arguments to the real compiler."""
    script = folder / name
    script.write_text(f"""#!/bin/sh
echo run >> '{folder}/runs'
if [ -e '{folder}/fast' ]; then exec '{REAL_CC}' "$@"; fi
sleep 100000 &
echo $! > '{folder}/child.tmp' && mv '{folder}/child.tmp' '{folder}/child'
echo $$ > '{folder}/leader.tmp' && mv '{folder}/leader.tmp' '{folder}/leader'
wait
""")
    script.chmod(0o700)
    return script


def runs(folder: Path) -> int:
    path = folder / "runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


def state_of(pid: int) -> tuple[str, int] | None:
    """(state letter, process group) of a live process from /proc, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[2])


def alive(pid: int) -> bool:
    """Not gone and not a zombie (a killed process whose parent has not reaped it yet)."""
    found = state_of(pid)
    return found is not None and found[0] != "Z"


def group_members(group: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            found = state_of(int(entry.name))
            if found is not None and found[1] == group and found[0] != "Z":
                members.append(int(entry.name))
    return members


def settled(pids, seconds: float = 10.0) -> bool:
    """Whether every pid is dead, waiting up to ``seconds`` for SIGKILL to land (a bound on
    the wait for the kernel, not a measure of speed)."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def slow(tmp_path, monkeypatch):
    """A private cache in tmp_path, the fake compiler as $CC and a two-second limit."""
    if REAL_CC is None or not Path("/proc/self/stat").exists():
        pytest.skip("needs a C compiler and /proc")
    folder = tmp_path / "cc"
    folder.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", str(fake_compiler(folder)))
    monkeypatch.delenv(build.LIMIT_VARIABLE, raising=False)
    monkeypatch.setattr(build, "COMPILE_SECONDS", 2.0)
    monkeypatch.setattr(build, "COMPILE_SECONDS_PER_MB", 0.0)
    return folder


def test_a_compile_past_its_limit_leaves_no_process_of_its_group(slow):
    with pytest.raises(build.CompileTimedOut) as stopped:
        build.library_for(SOURCE, key="a game")
    message = str(stopped.value)
    assert "passed its time limit of 2 s" in message and "was stopped" in message
    assert "remembered" in message and build.LIMIT_VARIABLE in message
    leader = int((slow / "leader").read_text())
    child = int((slow / "child").read_text())
    assert settled([leader, child]), (state_of(leader), state_of(child))
    assert group_members(leader) == []          # the group was the leader's (a session of its own)
    assert runs(slow) == 1
    # no half-written file is left in the cache: only the remembered limit
    left = sorted(p.name for p in (slow.parent / "cache" / "gdl" / "native").iterdir())
    assert len(left) == 1 and left[0].endswith(".timeout"), left


def test_a_timed_out_compile_is_remembered_until_the_limit_grows(slow, monkeypatch):
    with pytest.raises(build.CompileTimedOut):
        build.library_for(SOURCE, key="a game")
    assert runs(slow) == 1
    # The next load does not run the compiler, and says why.
    assert build.is_cached("a game")
    with pytest.raises(build.CompileTimedOut) as again:
        build.library_for(lambda: pytest.fail("the C is not made again"), key="a game")
    assert runs(slow) == 1
    assert "passed its time limit of 2 s" in str(again.value)
    assert "earlier load" in str(again.value)
    # The same limit given explicitly: still remembered.
    monkeypatch.setenv(build.LIMIT_VARIABLE, "2")
    with pytest.raises(build.CompileTimedOut):
        build.library_for(SOURCE, key="a game")
    assert runs(slow) == 1
    # A larger limit tries again; this time the compiler finishes, and the memory is dropped.
    monkeypatch.setenv(build.LIMIT_VARIABLE, "600")
    (slow / "fast").touch()
    library = build.library_for(SOURCE, key="a game")
    assert runs(slow) == 2 and library.gdl_answer() == 42
    assert not list((slow.parent / "cache" / "gdl" / "native").glob("*.timeout"))


def test_another_compiler_tries_again(slow, monkeypatch):
    with pytest.raises(build.CompileTimedOut):
        build.library_for(SOURCE, key="a game")
    assert build.is_cached("a game")
    other = fake_compiler(slow, "othercc")
    monkeypatch.setenv("CC", str(other))
    assert not build.is_cached("a game")
    (slow / "fast").touch()
    assert build.library_for(SOURCE, key="a game").gdl_answer() == 42
    assert runs(slow) == 2


def test_ctrl_c_kills_the_compilers_group(slow, monkeypatch):
    # The compile runs in a thread on a first load (attach.EarlyLibrary); Ctrl-C in the main
    # thread sets ``cancel``. The limit is long here: only the cancel may stop it.
    monkeypatch.setattr(build, "COMPILE_SECONDS", 600.0)
    cancel = threading.Event()
    outcome: list = []

    def compile_it() -> None:
        try:
            build.library_for(SOURCE, key="a game", cancel=cancel)
        except BaseException as error:      # handed to the test's thread
            outcome.append(error)

    worker = threading.Thread(target=compile_it)
    worker.start()
    deadline = time.monotonic() + 60
    while not (slow / "leader").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (slow / "leader").exists(), "the fake compiler never started"
    cancel.set()
    worker.join(60)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], KeyboardInterrupt)
    leader = int((slow / "leader").read_text())
    child = int((slow / "child").read_text())
    assert settled([leader, child]) and group_members(leader) == []
    # An interrupted compile is not a timed-out one: nothing is remembered.
    assert not build.is_cached("a game")


def test_the_limit_grows_with_the_c_and_the_variable_sets_it(monkeypatch):
    monkeypatch.delenv(build.LIMIT_VARIABLE, raising=False)
    assert build.compile_limit(0) == build.COMPILE_SECONDS == 60
    assert build.compile_limit(1_000_000) == 60 + 240
    assert build.compile_limit(250_000) == 60 + 60
    monkeypatch.setenv(build.LIMIT_VARIABLE, "7.5")
    assert build.compile_limit(1_000_000) == 7.5
    for wrong in ("soon", "0", "-3", "nan", "inf"):
        monkeypatch.setenv(build.LIMIT_VARIABLE, wrong)
        with pytest.raises(build.NativeUnavailable, match="not a positive number of seconds"):
            build.compile_limit(10)


def test_gdl_solve_says_why_and_answers_from_the_python_tier(slow, monkeypatch, capsys):
    monkeypatch.setattr(build, "SLOW_COMPILE_SECONDS", 0.0)
    path = str(GAMES / "tictactoe.game")
    assert main(["solve", path, "--json"]) == 0
    first = capsys.readouterr()
    assert "compiling the native rules" in first.err and "is taking a while" in first.err
    assert "native backend unavailable (the C compiler passed its time limit of 2 s" in first.err
    assert '"tier": "python"' in first.out
    assert '"X": 0' in first.out                # FACTS: tic-tac-toe is a draw
    assert runs(slow) == 1
    assert settled([int((slow / "leader").read_text()), int((slow / "child").read_text())])
    # The second run does not compile (nor wait) and says why.
    assert main(["solve", path, "--json"]) == 0
    second = capsys.readouterr()
    assert runs(slow) == 1
    assert "on an earlier load" in second.err and "taking a while" not in second.err
    assert '"X": 0' in second.out


def test_a_malformed_limit_is_said_and_the_python_tier_answers(tmp_path, monkeypatch, capsys):
    if REAL_CC is None:
        pytest.skip("needs a C compiler")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(build.LIMIT_VARIABLE, "soon")
    assert main(["solve", str(GAMES / "nim.game"), "--json"]) == 0
    captured = capsys.readouterr()
    assert f"{build.LIMIT_VARIABLE}='soon' is not a positive number of seconds" in captured.err
    assert '"tier": "python"' in captured.out
