"""`gdl solve --strong`, and `gdl solve` on a game that can repeat positions: the command-line
side of gdl.graph (value every reachable position, then report the root and a census)."""

from __future__ import annotations

import sys
import time

from gdl.cli import print_json
from gdl.protocol import CHANCE, TERMINAL, format_value, json_value
from gdl.tools.graph_advice import CYCLIC_LIMIT, Rooted
from gdl.tools.progress import wants_progress


def progress_line(stream=None):
    """A progress callback drawing ``enumerating  1,234,567 positions  3.1 s`` on a terminal
    (None when ``stream`` is not one), and a function that erases the line."""
    stream = sys.stderr if stream is None else stream
    if not wants_progress(stream):
        return None, lambda: None
    started = time.monotonic()
    drawn = []

    def report(stage: str, done: int, found: int) -> None:
        stream.write(f"\r{stage}  {done:,}/{found:,} positions  {time.monotonic() - started:.1f} s"
                     "\033[K")
        stream.flush()
        drawn.append(1)

    def erase() -> None:
        if drawn:
            stream.write("\r\033[K")
            stream.flush()

    return report, erase


def strong(game, root, max_states: int | None, graph=None):
    """Strong-solve ``game`` from ``root`` (over ``graph`` when its positions are already
    enumerated), with a progress line on a terminal."""
    from gdl.graph import strong_solve

    report, erase = progress_line()
    try:
        solution = strong_solve(Rooted(game, root), max_states=max_states, progress=report,
                                graph=graph)
    finally:
        erase()
    note = solution.graph.stats.get("enumeration_note")
    if note and getattr(game, "native", None) is not None:     # native rules, yet no native walk
        print(note, file=sys.stderr)
    return solution


def print_strong(args, game, solution, elapsed: float, census: bool = True) -> int:
    names = game.action_name
    players = game.info.players
    values = solution.value(0)
    kind = int(solution.graph.player[0])
    best = [names(a) for a in solution.best_actions(0)]
    value_class = solution.value_class(0)
    remoteness = solution.remoteness(0)
    if args.json:
        document = {
            "game": game.info.name, "players": list(players),
            "values": None if values is None else {p: json_value(v)
                                                   for p, v in zip(players, values)},
            "class": value_class, "remoteness": None if remoteness < 0 else remoteness,
            "best_actions": best, "algorithm": solution.method, "exact": solution.exact,
            "proven": solution.exact, "strong": True,
            "enumeration": solution.graph.stats.get("enumeration", "protocol"),
            "seconds": {k: round(v, 6) for k, v in solution.seconds.items()},
        }
        if not solution.exact:
            document["residual"] = solution.residual
        if solution.note:
            document["note"] = solution.note
        document.update(certified_json(players, solution.interval(0),
                                       solution.win_probability(0)))
        if census:
            document["census"] = _json_census(solution.census())
        print_json(document)
        return 0
    print(f"{args.file}: {game.info.name}")
    label = solution.method + ("" if solution.exact else f" (not exact: {solution.note})")
    ranked = solution.graph.stats.get("enumeration") == "ranked"
    print(f"  algorithm     {label} over every reachable position"
          + (", on ranked tables (a code of 1-2 bytes a position)" if ranked else ""))
    if solution.exact and solution.note:     # e.g. which of several equilibria this is
        print(f"  note          {solution.note}")
    if values is None:
        print(f"  value         {NO_WINNER if game.info.num_players > 2 else DRAW}")
    else:
        shown = ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, values))
        if solution.interval(0) is not None:
            shown += "  (approximate: the middle of the certified interval below)"
        elif not solution.exact and solution.residual is not None:
            shown += (f"  (approximate: value iteration's last change {solution.residual:.1e}, "
                      "not an error bound)")
        print(f"  value         {shown}")
    for line in certified_lines(players, solution.interval(0), solution.win_probability(0)):
        print(line)
    if value_class is not None:
        print(f"  class         {value_class} for {players[kind]}"
              + (f", remoteness {remoteness}" if remoteness >= 0 else ""))
    empty = ("(chance moves first)" if kind == CHANCE else "(game over)" if kind == TERMINAL
             else "")
    print(f"  best actions  {' '.join(best) or empty}")
    if census:
        document = solution.census()
        print(f"  positions     {document['positions']:,} ({document['decision']:,} decision, "
              f"{document['chance']:,} chance, {document['terminal']:,} terminal), "
              f"{document['edges']:,} moves")
        if "classes" in document:
            print("  mover's value " + "  ".join(f"{k} {v:,}" for k, v in document["classes"].items()))
            print("  remoteness    " + "  ".join(f"{r}: {c:,}" for r, c in document["remoteness"].items()))
            print("  terminal      " + "  ".join(f"{players[0]} {k}: {v:,}"
                                                 for k, v in document["terminal_outcomes"].items()))
    times = "  ".join(f"{k} {v:.2f} s" for k, v in solution.seconds.items())
    print(f"  time          {times}  total {elapsed:.2f} s")
    return 0


DECIMALS = 12


def _decimal(value, up: bool) -> str:
    """``value`` (a Fraction) to DECIMALS places, rounded down or up: an outward rounding keeps
    a proven interval proven."""
    from fractions import Fraction

    scaled = Fraction(value) * 10 ** DECIMALS
    whole = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    sign = "-" if whole < 0 else ""
    digits = str(abs(whole)).rjust(DECIMALS + 1, "0")
    return f"{sign}{digits[:-DECIMALS]}.{digits[-DECIMALS:]}"


def certified_lines(players, interval, chance_of_win, *, width: bool = False) -> list[str]:
    """The text lines of a certified (not exact) answer: each player's interval, optionally its
    width, and player 0's chance of winning where it applies; none where ``interval`` is None."""
    if interval is None:
        return []
    lines = ["  interval      " + ", ".join(f"{p} {_shown_interval(ends)}"
                                          for p, ends in zip(players, interval))
             + "  (certified: value iteration from below and from above)"]
    if width:
        low, high = interval[0]
        lines.append(f"  width         {float(high - low):.1e}")
    if chance_of_win is not None:
        lines.append(f"  P({players[0]} wins)  {_shown_interval(chance_of_win)}")
    return lines


def certified_json(players, interval, chance_of_win, *, width: bool = False) -> dict:
    """The same for --json: proven bounds as exact fractions, and decimals rounded outwards."""
    if interval is None:
        return {}
    document: dict = {"interval": {p: _json_interval(ends) for p, ends in zip(players, interval)}}
    if width:
        document["width"] = float(interval[0][1] - interval[0][0])
    if chance_of_win is not None:
        document["win_probability"] = {"player": players[0], **_json_interval(chance_of_win)}
    return document


def _shown_interval(ends) -> str:
    low, high = ends
    return f"∈ [{_decimal(low, up=False)}, {_decimal(high, up=True)}]"


def _json_interval(ends) -> dict:
    low, high = ends
    return {"low": json_value(low), "high": json_value(high),
            "low_decimal": _decimal(low, up=False), "high_decimal": _decimal(high, up=True)}


def _json_census(document: dict) -> dict:
    out = dict(document)
    if "remoteness" in out:
        out["remoteness"] = {str(k): v for k, v in out["remoteness"].items()}
    return out


def binding(path: str, params: dict) -> dict:
    """What a position database is bound to: the rule file's exact bytes and the --set values."""
    import hashlib
    from pathlib import Path

    return {"rules_sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
            "params": {k: params[k] for k in sorted(params)}}


def open_bound_database(args):
    """The database named by --db, refused (DatabaseError) unless it was saved for this rule
    file with these --set values."""
    from gdl.cli import parse_sets
    from gdl.graph.database import open_database

    return open_database(args.db, binding(args.file, parse_sets(args.set)))


def cmd_strong(args, game, root) -> int:
    from gdl.cli import UsageError, moves_arg, parse_sets

    if args.save is not None and moves_arg(args):
        raise UsageError("--save stores the whole game; it cannot be combined with --moves")
    started = time.perf_counter()
    graph = None
    info = game.info
    if (getattr(game, "tier", None) is not None and args.max_states is None
            and not moves_arg(args) and not args.position
            and info.num_players == 2 and info.is_constant_sum):
        # The rules declare a tier: past AUTO_TIERS positions a tier at a time is the faster
        # and smaller way (Pig to 100: a minute by tiers; as one graph, not in nine minutes)
        from gdl.cli.tiers import cmd_tiered
        from gdl.graph import TooManyPositions, enumerate_positions

        try:
            graph = enumerate_positions(Rooted(game, root), max_states=AUTO_TIERS)
        except TooManyPositions:
            print(f"note: more than {AUTO_TIERS:,} positions, and the rules declare a tier: "
                  "solving a tier at a time (docs/tiers.md; --workers N spreads the work over N "
                  "cores, --max-states N solves the whole graph at once)", file=sys.stderr)
            return cmd_tiered(args, game)
    solution = strong(game, root, args.max_states, graph)
    code = print_strong(args, game, solution, time.perf_counter() - started)
    if args.save is not None:
        from gdl.graph.database import save

        try:
            size = save(solution, args.save, binding(args.file, parse_sets(args.set)),
                        source=args.file)
        except OSError as error:
            raise UsageError(f"--save {args.save}: {error.strerror or error}") from None
        print(f"  saved         {args.save}: {len(solution.graph):,} positions, {size:,} bytes "
              f"({size / max(1, len(solution.graph)):.2f} bytes a position)",
              file=sys.stderr if args.json else sys.stdout)
    return code


def solve_cyclic(args, game, root, repetition) -> int:
    """`gdl solve` met a cycle: solve over the state graph when it is small enough. A start
    that is a draw without a value, or a graph too big or refused, is refused with what works
    instead, and the cycle as witness."""
    from gdl.graph import TooManyPositions
    from gdl.solvers.result import SolverError
    from gdl.tools.graph_advice import cyclic_refusal

    limit = args.max_states if args.max_states is not None else CYCLIC_LIMIT
    started = time.perf_counter()
    lead = repetition.path[:len(repetition.path) - len(repetition.cycle)]
    witness = (f"after {' '.join(lead) or 'the start'}, the moves {' '.join(repetition.cycle)} "
               "come back to the same state")
    try:
        solution = strong(game, root, limit)
    except TooManyPositions:
        bound, remedy = (("--max-states", "raise --max-states N") if args.max_states is not None
                         else ("the bound of `gdl solve` without --strong",
                               "`gdl solve --strong` solves it within this machine's memory"))
        raise type(repetition)(
            f"game {game.info.name!r} can repeat a position ({witness}), so a tree search cannot "
            f"solve it, and it has more than {limit:,} positions ({bound}): {remedy} (by tiers "
            "with --workers N where the rules declare a `tier`; --save DB keeps it for --db DB), "
            "or search to a depth limit (--depth N)", repetition.path, repetition.cycle) from None
    except SolverError as error:
        raise type(repetition)(f"{cyclic_refusal(game.info, error)} ({witness})",
                               repetition.path, repetition.cycle) from None
    if solution.value(0) is None:
        raise type(repetition)(
            f"game {game.info.name!r} can repeat a position ({witness}), and solved over its "
            f"{len(solution.graph):,} positions its start is {DRAW}, so it has no value. "
            "`gdl solve --strong` shows every position's class (win, lose, tie, draw); "
            "`when endless draw` (or one utility per player) in the rules gives draws a value",
            repetition.path, repetition.cycle) from None
    return print_strong(args, game, solution, time.perf_counter() - started, census=False)


# Positions beyond which `gdl solve --strong` on a game that declares a tier solves it a tier
# at a time by itself (the exact check of a chance game with cycles stops here, too).
AUTO_TIERS = 300_000

# What the value line says where nobody of more than two players can force a win
# (docs/multiplayer.md).
NO_WINNER = ("a draw: no player can force a win, and the rules do not say what endless play "
             "is worth (`when endless`)")

# What the value line says at a draw without a value (docs/graph.md).
DRAW = ("a draw: neither player can force an end worth as much to it as endless play may be, "
        "and the rules do not say what that is worth (`when endless`)")
