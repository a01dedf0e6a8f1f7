"""`gdl solve` on a game with simultaneous moves or hidden information (docs/imperfect.md):
the solver chosen for it (or asked for), its value, how exact, its exploitability, and each
player's strategy where it first chooses; `--json` gives every information state's."""

from __future__ import annotations

import sys
import time

from gdl.cli import UsageError, print_json
from gdl.protocol import CHANCE, SIMULTANEOUS, format_value, json_value

# Lines of a player's strategy shown in the text output (--json has them all).
SHOWN = 12


def wants_wide(args, game) -> bool:
    """Whether `gdl solve` runs one of the solvers for simultaneous moves and hidden
    information: the game has them, or one was asked for by name."""
    from gdl.solvers import WIDE_ALGORITHMS

    return (game.info.hidden or game.info.simultaneous
            or getattr(args, "algorithm", "auto") in WIDE_ALGORITHMS)


def cmd_solve_wide(args, game, root) -> int:
    from gdl.solvers import choose, solve

    if root != game.initial_state():
        raise UsageError("a game with simultaneous moves or hidden information is solved from "
                         "its start: what a player knows depends on the whole play (drop "
                         "--moves and --position)")
    if args.depth is not None:
        raise UsageError("--depth: the solvers of simultaneous moves and hidden information "
                         "solve the whole game; write a max-length to bound it")
    algorithm = choose(game.info) if args.algorithm == "auto" else args.algorithm
    status = sys.stderr.isatty() and not args.json

    def progress(what: str, count: int) -> None:        # a long solve says where it is
        print(f"\r  {algorithm}: {count:,} {what}", end="", file=sys.stderr, flush=True)

    started = time.perf_counter()
    try:
        result = solve(game, algorithm, iterations=args.iterations, seed=args.seed,
                       progress=progress if status else None)
    finally:
        if status:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    extra = result.extra
    players = game.info.players
    strategies = extra.get("strategies", {})
    if args.json:
        print_json({
            "game": game.info.name, "players": list(players), "algorithm": result.algorithm,
            "values": {p: json_value(v) for p, v in zip(players, result.values)},
            "exact": bool(extra.get("exact")), "proven": result.proven,
            "bounds": [json_value(v) for v in extra["bounds"]] if extra.get("bounds") else None,
            "exploitability": _number(extra.get("exploitability")),
            "nash_conv": _number(extra.get("nash_conv")),
            "iterations": extra.get("iterations"),
            "information_states": extra.get("information_states"),
            "note": extra.get("note", ""),
            "strategies": {p: [{"at": describe(game, players.index(p), key),
                                "actions": {a: json_value(q) for a, q in probs.items()}}
                               for key, probs in strategies.get(p, {}).items()]
                           for p in players},
            "seconds": round(elapsed, 6),
        })
        return 0
    print(f"{args.file}: {game.info.name}")
    how = "exact" if extra.get("exact") else "approximate"
    note = extra.get("note", "")
    note = note[len(how) + 2:] if note.startswith(how + ": ") else note
    print(f"  algorithm     {result.algorithm} ({how}{': ' + note if note else ''})")
    values = ", ".join(f"{p} {format_value(v) if extra.get('exact') else _shown(float(v))}"
                       for p, v in zip(players, result.values))
    print(f"  value         {values}")
    if not extra.get("exact") and extra.get("bounds"):
        low, high = extra["bounds"]
        print(f"  bounds        {players[0]} in [{format_value(low)}, {format_value(high)}]")
    if extra.get("exploitability") is not None:
        iterations = f" after {extra['iterations']:,} iterations" if extra.get("iterations") else ""
        print(f"  exploitability {_shown(extra['exploitability'])}{iterations}")
    if extra.get("information_states") is not None:
        print(f"  information states {extra['information_states']:,}")
    for p in players:
        table = strategies.get(p, {})
        if not table:
            continue
        print(f"  {p}'s strategy ({len(table):,} place(s) it chooses)")
        for key, probs in list(table.items())[:SHOWN]:
            mix = ", ".join(f"{a} {_shown(q)}" for a, q in probs.items() if q)
            print(f"    {describe(game, players.index(p), key)}: {mix}")
        if len(table) > SHOWN:
            print(f"    ... {len(table) - SHOWN:,} more (--json lists them all)")
    print(f"  time          {elapsed:.2f} s")
    return 0


def describe(game, player: int, key) -> str:
    """A player's information state (``gdl.solvers.information``) or a position (the
    simultaneous solver's strategies), as a person reads it: what the player sees of its own
    private variables, then the moves it saw ("?" for one hidden from it)."""
    # an information state is a tuple that starts with an observation (a tuple of cells; a
    # KIF game's state, a frozenset of facts); anything else is a position
    if not (isinstance(key, tuple) and key and isinstance(key[0], (tuple, frozenset))):
        return _position(game, key)
    seen = [_move(game, m) if m is not None else _public_outcome(game, player, key[i], key[i + 2])
            for i, m in zip(range(0, len(key), 2), key[1::2])]
    moves = " ".join(m for m in seen if m) or "the start"
    own = _own_private(game, player, key[-1])
    return f"{own}, after {moves}" if own else f"after {moves}"


def _move(game, move) -> str:
    if move is None:                       # chance, seen only through the state
        return ""
    if isinstance(move, tuple):            # a joint move
        return "(" + " ".join("?" if a == -1 else game.action_name(a) for a in move) + ")"
    return "?" if move == -1 else game.action_name(move)


def _public_outcome(game, player: int, before, after) -> str:
    """A chance outcome as the player saw it: the shared variables it changed (``public=3``), in
    brackets; its own private entries are named once, in front (``_own_private``). Two states
    that differ only by such an outcome (Leduc's public card) must not read alike."""
    checked = getattr(game, "ir", None)
    if checked is None or not isinstance(before, tuple) or not isinstance(after, tuple):
        return ""
    from gdl.backends.interpret import visible_cells

    cells = visible_cells(checked)[player]
    changed = []
    for var in checked.variables:
        if var.name in checked.private_vars:
            continue
        for cell in range(var.slot, var.slot + var.size):
            if cell not in cells:
                continue
            i = cells.index(cell)
            if before[i] != after[i]:
                index = "" if var.size == 1 else f"[{cell - var.slot}]"
                changed.append(f"{var.name}{index}={game.show(after[i], var.type)}")
    return "[" + " ".join(changed) + "]" if changed else ""


def _own_private(game, player: int, observation) -> str:
    """``v[p]=value`` for each private variable's entry of the player, read off its last
    observation (the cells it sees, in state order)."""
    checked = getattr(game, "ir", None)
    if checked is None or not checked.private_vars:
        return ""
    from gdl.backends.interpret import visible_cells

    cells = visible_cells(checked)[player]
    where = {cell: i for i, cell in enumerate(cells)}
    parts = []
    for var in checked.variables:
        if var.name not in checked.private_vars:
            continue
        share = var.size // var.shape[0]
        start = var.slot + player * share
        values = [observation[where[c]] for c in range(start, start + share)]
        shown = [game.show(v, var.type) for v in values]
        text = shown[0] if share == 1 else "[" + ", ".join(shown) + "]"
        parts.append(f"{var.name}[{game.info.players[player]}]={text}")
    return " ".join(parts)


def _position(game, state) -> str:
    """A position of the simultaneous solver, by its variables."""
    variables = getattr(game, "variables", None)
    if variables is None:
        facts = getattr(game, "state_text", None)        # a KIF game: its true facts
        return " ".join(facts(state).splitlines()) if facts is not None else str(state)
    try:
        shown = variables(state)
    except Exception:
        return str(state)
    kind = game.current_player(state)
    lead = "together" if kind == SIMULTANEOUS else "chance" if kind == CHANCE else ""
    text = "; ".join(f"{name}={value}" for name, value in shown.items())
    return f"{text} ({lead})" if lead else text


def _number(value):
    if value is None:
        return None
    return json_value(value) if not isinstance(value, float) else value


def _shown(value) -> str:
    return f"{value:.10g}" if isinstance(value, float) else format_value(value)
