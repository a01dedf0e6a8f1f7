"""The general-game-playing corpus through gdl: every KIF game read, checked, and solved where
it can be, with the reason where it cannot.

    python benchmarks/kif_corpus.py PATH                  # every *.kif under PATH
    python benchmarks/kif_corpus.py PATH --only ticTacToe nim
    python benchmarks/kif_corpus.py PATH --markdown docs/kif-catalogue.md --json results.json

PATH is a checkout of a corpus, fetched by the user (the Tiltyard collection is the
``ggp-org/ggp-repository`` repository on GitHub: its games are ``war/root/games/<name>/<name>.kif``);
gdl ships none of its files. Each game runs in a fresh process, in three stages, each reported:

1. **read**: parsed and checked as the GDL specification requires (gdl.kif.check), or refused
   with the error's code and message;
2. **load**: translated into gdl's rule language and built (gdl.kif.translate), or run by the
   Datalog interpreter (with the reason it was not translated), or refused as a simultaneous-
   move game (K303); the roles, and whether the turns alternate;
3. **solve**: ``gdl solve FILE --strong --json`` with ``--max-states``: the positions, the start's
   value and class, the seconds; or why not (more positions than the limit, the time limit).

A stage that runs past its time limit is stopped and reported as such. The machine's load is
recorded with the results: the times are wall seconds on a machine other work may share.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def games_under(path: Path) -> list[tuple[str, Path]]:
    """(name, file) for every game under ``path``. The corpus keeps each game in a folder of its
    own name, ``<name>/<name>.kif`` (older versions in ``<name>/v0/``... are left out); a folder
    holding a file of another name, such as ``futoshiki4/futoshiki.kif``, names the game. The
    checkout's root will do: its ``war/root/games`` is used. A folder of .kif files, each a game,
    too."""
    if (path / "war" / "root" / "games").is_dir():
        path = path / "war" / "root" / "games"
    nested = sorted(path.glob("*/*.kif"))
    if nested:
        return [(file.parent.name, file) for file in nested]
    return [(file.stem, file) for file in sorted(path.glob("*.kif"))]


# ---- one game, in a child process ----------------------------------------------------------------

def emit(record: dict) -> None:
    print(json.dumps(record), flush=True)


def one(file: str, max_states: int, memory: int, cpu: int) -> None:
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if cpu:         # the kernel stops the game at this many seconds of processor time (SIGXCPU)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    sys.path.insert(0, str(ROOT))
    from gdl.errors import GdlError
    from gdl.kif.check import read_description

    started = time.perf_counter()
    text = Path(file).read_text(encoding="utf-8")
    try:
        description = read_description(text, file)
    except GdlError as error:
        first = error.diagnostics[0]
        emit({"stage": "read", "ok": False, "code": first.code, "reason": first.message,
              "problems": len(error.diagnostics), "seconds": time.perf_counter() - started})
        return
    emit({"stage": "read", "ok": True, "roles": list(description.roles),
          "seconds": time.perf_counter() - started})

    import gdl

    started = time.perf_counter()
    try:
        game = gdl.loads(text, file, backend="native")
    except GdlError as error:
        first = error.diagnostics[0]
        emit({"stage": "load", "ok": False, "code": first.code, "reason": first.message,
              "seconds": time.perf_counter() - started})
        return
    translated = getattr(game, "kif", None)
    record = {"stage": "load", "ok": True, "seconds": time.perf_counter() - started,
              "path": "translated" if translated is not None else "interpreter",
              "sum": game.info.sum_kind, "simultaneous": game.info.simultaneous}
    if translated is None:
        note = getattr(game, "native_note", "") or ""
        record["reason"] = note.split("which is slow: ", 1)[-1]
    else:
        record["variables"] = len(translated.variables)
        record["native"] = getattr(game, "native", None) is not None
        if not record["native"]:
            record["native_note"] = getattr(game, "native_note", None)
    emit(record)

    import contextlib
    import io

    from gdl.cli import main

    started = time.perf_counter()
    output, errors = io.StringIO(), io.StringIO()
    if game.info.simultaneous:
        # roles choose at once: the whole game's equilibrium (the exact solver where the game
        # is two-player constant-sum), not a strong solve
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(errors):
            code = main(["solve", file, "--json"])
        seconds = time.perf_counter() - started
        if code == 0:
            document = json.loads(output.getvalue())
            emit({"stage": "solve", "ok": True, "seconds": seconds, "equilibrium": True,
                  "algorithm": document["algorithm"], "exact": document["exact"],
                  "values": document["values"],
                  "information_states": document.get("information_states")})
            return
    else:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(errors):
            code = main(["solve", file, "--strong", "--json", "--max-states", str(max_states)])
        seconds = time.perf_counter() - started
    if code == 0:
        document = json.loads(output.getvalue())
        emit({"stage": "solve", "ok": True, "seconds": seconds,
              "positions": document["census"]["positions"], "values": document["values"],
              "class": document.get("class"), "remoteness": document.get("remoteness"),
              "enumeration": document.get("enumeration")})
    else:
        message = [line for line in errors.getvalue().strip().splitlines()
                   if not line.startswith("note:")]
        emit({"stage": "solve", "ok": False, "seconds": seconds,
              "reason": message[0] if message else f"exit {code}"})


# ---- the whole corpus ---------------------------------------------------------------------------------

def run_game(file: Path, args) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--one", str(file),
               "--max-states", str(args.max_states), "--memory", str(args.memory),
               "--cpu", str(args.cpu)]
    result: dict = {"file": str(file), "load_average": os.getloadavg()[0],
                    "limits": {"cpu": args.cpu, "timeout": args.timeout}}
    started = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=ROOT) as child:
        try:
            out, err = child.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
            result["timeout"] = True
        for line in out.splitlines():
            if line.startswith("{"):
                record = json.loads(line)
                result[record.pop("stage")] = record
        if child.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and args.cpu:
            result["timeout"] = True        # the processor-time limit (SIGKILL past the hard one)
        if child.returncode not in (0, None) and not result.get("timeout"):
            tail = [line for line in err.strip().splitlines() if line.strip()]
            result["crash"] = tail[-1] if tail else f"exit {child.returncode}"
    result["seconds"] = time.perf_counter() - started
    return result


def simultaneous(result: dict) -> bool:
    """Two roles choose at once: found at load (gdl.kif.survey), or refused later in play
    (K303, a game taken as alternating)."""
    load, solve = result.get("load") or {}, result.get("solve") or {}
    return bool(load.get("simultaneous")) or load.get("code") == "K303" or \
        "K303" in solve.get("reason", "")


def status(result: dict) -> str:
    """One word for the table: refused, solved, approximate, read, timeout, crash."""
    read = result.get("read")
    if read is None:
        return "crash" if "crash" in result else "timeout"
    if not read["ok"]:
        return "refused"
    load = result.get("load")
    if load is None:
        return "timeout" if result.get("timeout") else "crash"
    if not load["ok"]:
        return "refused"
    solve = result.get("solve")
    if solve is not None and solve["ok"]:
        # an iterative solver's equilibrium is near one, not one: said as such
        return "approximate" if solve.get("equilibrium") and not solve["exact"] else "solved"
    return "read"


def moves(result: dict) -> str:
    """alternating, simultaneous or one role; blank where the game was not loaded in time."""
    roles = (result.get("read") or {}).get("roles") or []
    if simultaneous(result):
        return "simultaneous"
    if len(roles) == 1:
        return "one role"
    load = result.get("load") or {}
    return "alternating" if load.get("ok") else ""


def limit_text(result: dict, args) -> str:
    """Which limit stopped the game: the processor time (the kernel's SIGXCPU, before the wall
    clock's limit) or the wall clock; the limits the game ran with (``args``' if not kept)."""
    limits = result.get("limits") or {"cpu": args.cpu, "timeout": args.timeout}
    if limits["cpu"] and result["seconds"] < limits["timeout"]:
        return f"the {limits['cpu']} s processor-time limit"
    return f"the {limits['timeout']:.0f} s wall-clock limit"


def reason(result: dict, args) -> str:
    read, load, solve = result.get("read"), result.get("load"), result.get("solve")
    stopped = result.get("timeout")
    if "crash" in result and not (solve and solve.get("ok")):
        return f"crash: {result['crash']}"
    if read is None:
        return f"not read within {limit_text(result, args)}" if stopped else "no answer"
    if not read["ok"]:
        return f"{read['code']}: {read['reason']}"
    if load is None:
        return f"not translated and built within {limit_text(result, args)}"
    if not load["ok"]:
        return f"{load['code']}: {load['reason']}"
    if solve is None:
        solver = "equilibrium solve" if load.get("simultaneous") else "strong solve"
        return f"{solver} stopped by {limit_text(result, args)}"
    if not solve["ok"]:
        text = solve["reason"]
        if text.startswith("note:"):
            return f"strong solve stopped by {limit_text(result, args)}"
        if "more than" in text and "reachable positions" in text:
            return f"more than {args.max_states:,} positions"
        # an error in play, located in the translated rules: its code and message
        text = re.sub(r"^.*(?: \(as \.game\):\d+:\d+|\.kif): error\[(\w+)\]: ", r"\1 in play: ",
                      text)
        return text.removeprefix("gdl solve: error: ")
    return ""


def group(result: dict, args) -> str:
    """The reason a game is not solved, as one of a few kinds (for the totals)."""
    kind = status(result)
    if kind == "refused":
        if not result["read"]["ok"]:
            return f"refused by the checks ({result['read']['code']})"
        return f"read, but refused when loaded ({result['load']['code']})"
    if kind == "crash":
        return "crash: " + result["crash"].split(":")[0]
    interpreted = (result.get("load") or {}).get("path") == "interpreter"
    where = " (in the Datalog interpreter: not translated)" if interpreted else ""
    text = reason(result, args)
    if text.startswith("not read") or text.startswith("not translated"):
        return "reading, translating and building take longer than the limit"
    if text.startswith("strong solve stopped"):
        return "strong solve longer than the limit" + where
    if text.startswith("equilibrium solve stopped"):
        return "simultaneous moves: the equilibrium takes longer than the limit"
    if text.startswith("more than"):
        return f"more than {args.max_states:,} positions" + where
    if "can repeat positions" in text:
        return ("positions repeat, and the rules do not say what endless play is worth (GDL "
                "assumes games end; gdl asks for `when endless`)" + where)
    if " in play: " in text:
        code, message = text.split(" in play: ", 1)
        return f"{code} in play: {message.split(', but')[0].split(' (')[0]}" + where
    return "solve refused: " + text.split(":")[0] + where


def outcome(result: dict) -> str:
    solve = result["solve"]
    values = solve["values"]
    if solve.get("equilibrium") and not solve["exact"]:
        # an approximate equilibrium's value on a fine grid says no more than its first digits
        values = {role: f"≈{float(Fraction(str(v))):.2f}" for role, v in values.items()}
    shown = ", ".join(f"{role} {values.get(role)}" for role in values)
    if solve.get("equilibrium"):
        shown += f" ({solve['algorithm']}, {'exact' if solve['exact'] else 'approximate'})"
    if solve.get("class"):
        shown += f" ({solve['class']})"
    return shown


def markdown(results: list[tuple[str, dict]], args, started: str, load: str) -> str:
    counts: dict[str, int] = {}
    for _, result in results:
        counts[status(result)] = counts.get(status(result), 0) + 1
    exact_equilibria = sum(1 for _, r in results if (r.get("solve") or {}).get("equilibrium")
                           and r["solve"]["exact"])
    read = sum(1 for _, r in results if (r.get("read") or {}).get("ok"))
    translated = sum(1 for _, r in results if (r.get("load") or {}).get("path") == "translated")
    interpreted = sum(1 for _, r in results if (r.get("load") or {}).get("path") == "interpreter")
    kinds: dict[str, int] = {}
    for _, result in results:
        kind = moves(result) or "not known (not loaded within the limit)"
        kinds[kind] = kinds.get(kind, 0) + 1
    groups: dict[str, list[str]] = {}
    for name, result in results:
        if status(result) not in ("solved", "approximate"):
            groups.setdefault(group(result, args), []).append(name)
    loads = [r["load_average"] for _, r in results if "load_average" in r]
    if loads:           # the machine's load average while the games ran (else at the end)
        load = f"{min(loads):.1f} to {max(loads):.1f}"
    used: dict[tuple, int] = {}       # the limits the games ran with, and how many each
    for _, result in results:
        kept = result.get("limits") or {"cpu": args.cpu, "timeout": args.timeout}
        used[(kept["cpu"], kept["timeout"])] = used.get((kept["cpu"], kept["timeout"]), 0) + 1
    limits = "; ".join(
        f"{count} games with " + (f"`--cpu {cpu}` seconds of processor time and " if cpu else "")
        + f"`--timeout {timeout:.0f}` wall seconds" for (cpu, timeout), count in sorted(used.items()))
    limits += f", `--max-states {args.max_states:,}`"
    lines = [
        "# The general-game-playing corpus, read and solved by gdl",
        "",
        "Every game of the Tiltyard collection (`ggp-org/ggp-repository`, `war/root/games`), as "
        f"`python benchmarks/kif_corpus.py PATH` found it on {started}, a game at a time: {limits} (load "
        f"average {load} on this 2-core machine, shared with other work: the seconds are wall "
        "time, and a game stopped by a limit might finish with more time). Facts about each "
        "game, not the game: gdl ships none of the corpus's files.",
        "",
        "## Totals",
        "",
        f"- **{len(results)} games**; **{read} read and checked** "
        f"({len(results) - read} refused by the checks, each with its reason);",
        f"- {translated} translated into gdl's rule language, {interpreted} run by the Datalog "
        "interpreter (the reason is given in the table);",
        "- turns: " + ", ".join(f"{count} {kind}" for kind, count in
                                sorted(kinds.items(), key=lambda item: -item[1])) + ";",
        f"- **{counts.get('solved', 0)} solved**: {counts.get('solved', 0) - exact_equilibria} "
        "strong-solved (every reachable position valued) and "
        f"{exact_equilibria} simultaneous-move game{'' if exact_equilibria == 1 else 's'} with "
        "the exact value of an equilibrium; "
        f"{counts.get('approximate', 0)} more simultaneous-move games with an approximate "
        "equilibrium (CFR's average strategy after 1,000 iterations: a game of more than two "
        "roles, or whose goals do not always add up alike).",
        "",
        "Why the other games are not solved:",
        "",
        "| reason | games | for example |",
        "|---|---|---|",
    ]
    for why, names in sorted(groups.items(), key=lambda item: -len(item[1])):
        lines.append(f"| {why} | {len(names)} | {', '.join(names[:4])} |")
    lines += [
        "",
        "## Every game",
        "",
        "Status: *solved* (strong solve complete; for a simultaneous-move game, the whole "
        "game's exact equilibrium), *approximate* (a simultaneous-move game's equilibrium found "
        "approximately, by CFR), *read* (read and checked, not "
        "solved within the limits), *refused* (the check that fails), *timeout* / *crash*. "
        "Path: *translated* into gdl's rule language, or run by the Datalog *interpreter*.",
        "",
        "| game | roles | turns | status | path | positions | start's value | seconds | reason |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, result in results:
        roles = (result.get("read") or {}).get("roles", [])
        load_record = result.get("load") or {}
        path = load_record.get("path", "")
        solve = result.get("solve") or {}
        positions = f"{solve['positions']:,}" if solve.get("positions") is not None else ""
        value = outcome(result) if solve.get("ok") else ""
        seconds = f"{result['seconds']:.1f}"
        why = reason(result, args).replace("|", "\\|")
        if path == "interpreter" and load_record.get("reason"):
            because = load_record["reason"].split("which is slow: ", 1)[-1]
            why = (why + "; " if why else "") + "interpreter: " + because.replace("|", "\\|")
        lines.append(f"| {name} | {len(roles) or ''} | {moves(result)} | {status(result)} | "
                     f"{path} | {positions} | {value} | {seconds} | {why} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="a checkout of a KIF corpus")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="*", default=[], help="only these games (by name)")
    parser.add_argument("--max-states", type=int, default=20_000_000,
                        help="the strong solve's limit on positions (default 20,000,000)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds for one game, all stages (default 300)")
    parser.add_argument("--cpu", type=int, default=0,
                        help="seconds of processor time for one game, all stages (default: "
                             "no limit but --timeout)")
    parser.add_argument("--memory", type=int, default=6 * 1024**3,
                        help="bytes of address space for one game (default 6 GiB)")
    parser.add_argument("--markdown", help="write the catalogue here")
    parser.add_argument("--json", help="write every result here (and read those already "
                                       "there: games already done are not run again)")
    args = parser.parse_args(argv)
    if args.one:
        one(args.one, args.max_states, args.memory, args.cpu)
        return 0
    if not args.path:
        parser.error("give the PATH of a corpus checkout")
    games = games_under(Path(args.path))
    if args.only:
        games = [(n, f) for n, f in games if n in args.only]
    done: dict = {}
    if args.json and Path(args.json).exists():
        done = json.loads(Path(args.json).read_text())
    started = time.strftime("%Y-%m-%d")
    load = f"{os.getloadavg()[0]:.1f}"
    results = []
    for name, file in games:
        if name in done:
            result = done[name]
        else:
            result = run_game(file, args)
            done[name] = result
            if args.json:
                Path(args.json).write_text(json.dumps(done, indent=1))
        results.append((name, result))
        print(f"{name:32s} {status(result):12s} {result['seconds']:7.1f}s "
              f"{reason(result, args)[:90]}", flush=True)
    if args.markdown:
        Path(args.markdown).write_text(markdown(results, args, started, load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
