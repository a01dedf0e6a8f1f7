"""Start-up of `gdl solve games/tictactoe.game` against `python -c pass`, side by side in one run
(issue 16: under 5x on a cache hit), and the first load and native compile time of every bundled
game (a first load should stay under 2 s).

    python benchmarks/startup.py                 # about a minute
    python benchmarks/startup.py --repeat 21     # more runs, a steadier minimum
    python benchmarks/startup.py --no-games      # the start-up rows only
    python benchmarks/startup.py --against DIR   # also gdl from another checkout (A/B)

Wall-clock time of whole processes. The commands run in turn, round after round (A, B, C, A, B,
C, ...), and each row is the minimum over the rounds: on a shared machine other load only ever
adds time, so the minimum is the best estimate of the cost itself, and alternating spreads any
burst of load over every row alike. The load average is printed with the table.

Python's bytecode cache is on, as in a normal installation (this environment sets
PYTHONDONTWRITEBYTECODE=1: it is unset here, and the cache goes to a scratch directory through
PYTHONPYCACHEPREFIX); the row "bytecode off" shows what that costs. gdl's own cache is a fresh
private directory, filled once before the timed rounds, so every timed `gdl solve` is a cache
hit. "first load" is `gdl solve` with an empty gdl cache: parse, check, generate Python and C,
compile with the system C compiler, then solve.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAMES = ROOT / "games"
_SCRIPT = Path(sys.executable).parent / "gdl"
GDL = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "gdl"]


# `gdl ARGS` with the gdl of the checkout in argv[1] (for --against), first on the path: ahead
# of the working directory, which `python -m` puts first.
FROM_CHECKOUT = ("import runpy, sys\n"
                 "sys.path.insert(0, sys.argv.pop(1))\n"
                 "sys.argv[0] = 'gdl'\n"
                 "runpy.run_module('gdl', run_name='__main__', alter_sys=True)\n")


def wall(argv: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, env=env, cwd=ROOT)
    return time.perf_counter() - started


def first_load_seconds(path: Path, env: dict, scratch: Path,
                       template: Path | None = None) -> tuple[float, float | None]:
    """Whole-process wall time of loading ``path`` natively with no compiled game or library in
    the gdl cache (a copy of ``template``: the grammar's parser tables, built once per user), and
    the C compiler's share of it (None where the game has no native rules)."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
    if template is not None:
        shutil.rmtree(cache)
        shutil.copytree(template, cache)
    script = ("import sys, time\n"
              "import gdl.backends.native.build as build\n"
              "spent = [0.0]\n"
              "compile_ = build._compile\n"
              "def timed(*args):\n"
              "    started = time.perf_counter()\n"
              "    try:\n"
              "        return compile_(*args)\n"
              "    finally:\n"
              "        spent[0] += time.perf_counter() - started\n"
              "build._compile = timed\n"
              "from gdl.backends.load import load\n"
              "game = load(sys.argv[1], backend='native')\n"
              "print(spent[0] if game.native is not None else -1)\n")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, check=True, env=dict(env, XDG_CACHE_HOME=str(cache)), cwd=ROOT)
    elapsed = time.perf_counter() - started
    shutil.rmtree(cache, ignore_errors=True)
    compiled = float(done.stdout.strip() or -1)
    return elapsed, (compiled if compiled >= 0 else None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="rounds (default 15)")
    parser.add_argument("--no-games", action="store_true", help="skip the per-game first loads")
    parser.add_argument("--against", metavar="DIR",
                        help="another gdl checkout: its `gdl solve` timed in the same rounds")
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="gdl-startup-"))
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(XDG_CACHE_HOME=str(scratch / "cache"), PYTHONPYCACHEPREFIX=str(scratch / "pyc"))
        # Off, as this environment runs: nothing written, the installed __pycache__ read as usual
        # (the standard library's; gdl's own sources are then compiled on every start).
        no_bytecode = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"}
        no_bytecode["PYTHONDONTWRITEBYTECODE"] = "1"
        tictactoe = str(GAMES / "tictactoe.game")
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], env),
            "gdl solve games/tictactoe.game (cache hit)": ([*GDL, "solve", tictactoe], env),
            "  the same, --backend compile": ([*GDL, "solve", tictactoe, "--backend", "compile"], env),
            "  the same, bytecode off": ([*GDL, "solve", tictactoe], no_bytecode),
            "python -c pass, bytecode off": ([sys.executable, "-c", "pass"], no_bytecode),
            "benchmarks/startup_reference.py": ([sys.executable, str(HERE / "startup_reference.py")], env),
        }
        if args.against:    # A/B: each checkout first on the path
            for label, checkout in (("this checkout", ROOT), (args.against, Path(args.against))):
                commands[f"  gdl solve from {label}"] = (
                    [sys.executable, "-c", FROM_CHECKOUT, str(checkout.resolve()), "solve", tictactoe],
                    dict(env, XDG_CACHE_HOME=str(scratch / f"cache-{len(commands)}")))
        for argv_, env_ in commands.values():       # warm: bytecode, compiled game, library
            wall(argv_, env_)
        best = {name: float("inf") for name in commands}
        for _ in range(args.repeat):
            for name, (argv_, env_) in commands.items():
                best[name] = min(best[name], wall(argv_, env_))
        first = min(wall([*GDL, "solve", tictactoe],
                         dict(env, XDG_CACHE_HOME=str(Path(tempfile.mkdtemp(dir=scratch)))))
                    for _ in range(3))
        bare, bare_off = best["python -c pass"], best["python -c pass, bytecode off"]
        print(f"load average {os.getloadavg()[0]:.2f}; wall seconds, min of {args.repeat} "
              "alternating rounds")
        for name, seconds in best.items():
            base = bare_off if "bytecode off" in name else bare
            print(f"  {name:<46} {seconds:7.3f} s  {seconds / base:5.1f}x python -c pass")
        print(f"  {'gdl solve games/tictactoe.game, first load':<46} {first:7.3f} s  "
              f"{first / bare:5.1f}x python -c pass (min of 3, empty gdl cache)")
        if not args.no_games:
            # The grammar's tables are built once per user: the template cache holds them only.
            template = scratch / "template"
            subprocess.run([sys.executable, "-c",
                            "import gdl.lang.parse as p; p.parse('game \"t\" players A, B "
                            "var n in 0..1 = 0 action go effect n = 1 terminal n == 1 "
                            "utility A = 0 zero-sum')"],
                           check=True, capture_output=True, env=dict(env, XDG_CACHE_HOME=str(template)),
                           cwd=ROOT)
            print("first load per bundled game (load(path, backend='native'), whole process, the "
                  "grammar's tables cached but no compiled game or library; the C compiler's share)")
            for path in sorted(GAMES.glob("*.game")):
                seconds, compiled = first_load_seconds(path, env, scratch, template)
                share = f"gcc {compiled:.2f} s" if compiled is not None else "no native rules"
                print(f"  {path.name:<26} {seconds:6.2f} s  {share}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
