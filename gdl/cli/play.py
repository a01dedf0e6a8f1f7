"""`gdl play`: a person plays one or more seats against the solver (or watches it play itself).

Input is read a line at a time with ``sys.stdin.readline``, so a pipe works as well as a
terminal: ``printf 'place(1,1)\\nhint\\n' | gdl play games/tictactoe.game --as X``. When the input
is not a terminal each line read is echoed after the prompt, so the transcript reads like a
session. End of input leaves the game cleanly (exit 0).

A game with simultaneous moves or hidden information is played from one solve of the whole
game (``_play_wide``): the person sees its observation only, the computer plays the equilibrium.
"""

from __future__ import annotations

import sys
from typing import Any

from gdl.cli import (
    UsageError,
    add_common,
    add_position,
    load_game,
    parse_sets,
    report_runtime,
    seconds,
    start_state,
    whole,
)
from gdl.errors import GameRuntimeError
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, format_value

COMMANDS = {
    "hint": "the solver's best actions here, with their values (where players hide things or "
            "choose at once: the equilibrium's mix where you are)",
    "undo": "take back your last move (and the moves made after it)",
    "board": "draw the position again",
    "help": "this list",
    "quit": "leave the game",
}
ALIASES = {"?": "help", "exit": "quit", "q": "quit", "show": "board"}


def _seat_indices(names: list[str], players: tuple[str, ...]) -> list[int]:
    seats = []
    for text in names:
        for name in text.replace(",", " ").split():
            matches = [i for i, p in enumerate(players) if p == name]
            if not matches:
                matches = [i for i, p in enumerate(players) if p.lower() == name.lower()]
            if len(matches) != 1:
                raise UsageError(f"--as {name}: no such player; the players are "
                                 f"{', '.join(players)}")
            if matches[0] not in seats:
                seats.append(matches[0])
    return seats


class _Console:
    """Where the game talks: stdout for the game, the input stream for the person."""

    def __init__(self, stdin, stdout):
        self.stdin, self.stdout = stdin, stdout
        isatty = getattr(stdin, "isatty", None)
        self.echo = not (isatty() if isatty else False)

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str | None:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if line == "":
            self.say()
            return None
        if self.echo:
            self.say(line.rstrip("\n"))
        return line.strip()


def cmd_play(args) -> int:
    from gdl.tools.progress import watch
    from gdl.tools.session import Advisor, Session, describe_values, outcome_sentence, pick, render

    game = load_game(args.file, parse_sets(args.set))
    players = game.info.players
    seats = _seat_indices(args.seat or [], players)
    from gdl.solvers.wide import is_wide

    if is_wide(game.info):
        return _play_wide(args, game, seats)
    if args.ai in _wide_algorithms():
        raise UsageError(f"--ai {args.ai} is a solver of simultaneous moves and hidden "
                         f"information, and {game.info.name or args.file!r} has neither: leave "
                         "--ai out (the solver is chosen from the game)")
    if args.iterations is not None:
        raise UsageError("--iterations is for the iterative solvers of simultaneous moves and "
                         "hidden information (--ai cfr, cfr+, mccfr)")
    root = start_state(args, game)
    cyclic_note = None      # why a game that repeats positions is played by a bounded search
    advisor: Any
    if args.db is not None:
        if args.depth is not None or args.time is not None or args.ai != "auto":
            raise UsageError("--db answers from the database; it takes no --ai, --depth or --time")
        from gdl.cli.strong import open_bound_database
        from gdl.tools.database_advice import DatabaseAdvisor

        advisor = DatabaseAdvisor(open_bound_database(args))
    else:
        advisor = Advisor(args.ai, args.depth, args.time)
        advisor.watch = lambda searched: watch(searched, label="thinking")   # a status line on a tty
        if args.depth is None and args.time is None:
            # A game that can repeat a position has no exact tree search: the solver answers
            # from a strong solve of every position reachable from here, as `gdl solve` does.
            from gdl.cli.strong import progress_line
            from gdl.tools.graph_advice import cyclic_advisor

            report, erase = progress_line()
            try:
                solved, cyclic_note = cyclic_advisor(game, root, file=args.file, progress=report)
            finally:
                erase()
            advisor = solved or advisor
    if len(seats) < len(players):
        advisor.check(game)      # refuse up front what the AI could not do
    session = Session(game, seed=args.seed, state=root)
    console = _Console(sys.stdin, sys.stdout)
    names = game.action_name

    def draw() -> None:
        board = render(game, session.state)
        if board:
            console.say(board)
        elif session.moves:
            console.say("moves so far: " + " ".join(m.name for m in session.moves))

    def announce_result() -> None:
        values = session.returns()
        verdict = (f" ({outcome_sentence(players, values)})" if game.info.is_constant_sum
                   and len(players) > 1 else "")
        console.say(f"Game over: {describe_values(players, values)}{verdict}.")

    def solver_label() -> str:
        label = advisor.resolved(game)
        limits = []
        if advisor.depth is not None:
            limits.append(f"depth {advisor.depth}")
        if advisor.time is not None:
            limits.append(f"{advisor.time:g} s per move")
        return label + (f", {', '.join(limits)}" if limits else "")

    title = game.info.name or args.file
    ai_seats = [p for i, p in enumerate(players) if i not in seats]
    if seats:
        who = ", ".join(players[i] for i in seats)
        console.say(f"{title}: you play {who}"
                    + (f"; the solver ({solver_label()}) plays {', '.join(ai_seats)}." if ai_seats
                       else "."))
        console.say("Type an action (its name, a unique prefix, or its number), "
                    "or: hint, undo, board, help, quit.")
    else:
        console.say(f"{title}: the solver ({solver_label()}) plays every seat.")
    if getattr(advisor, "db", None) is not None and args.db is None:
        console.say("The game can repeat a position, so the solver answers from a strong solve of "
                    "every position reachable from here (as gdl solve does): it wins fastest and "
                    "loses slowest.")
    elif cyclic_note is not None:
        console.say(f"Note: {cyclic_note}. Meanwhile the solver plays by depth-limited search "
                    "(estimates).")
    if ai_seats and advisor.depth is None and advisor.time is None and advisor.default_time:
        console.say(f"The solver thinks up to {advisor.default_time:g} s a move, then answers with "
                    "its deepest finished search (--time, --depth change that; Ctrl-C stops it).")
    if args.seed is not None and game.info.has_chance:
        console.say(f"Chance is drawn with seed {args.seed}.")
    console.say()
    draw()

    drawn: set = set()      # the solver playing itself: draws it has been at (endless play)
    met: dict = {}          # ... and how often it has been at each position
    try:
        while True:
            player = session.to_move
            if player == TERMINAL:
                announce_result()
                return 0
            if player == CHANCE:
                move = session.roll()
                console.say(f"chance: {move.name} (probability {format_value(move.probability)})")
                if session.to_move != CHANCE:
                    draw()
                continue
            if player not in seats:
                advice = advisor.advise(game, session.state)
                result = advice.result
                extra = getattr(result, "extra", {}) or {}
                if not seats and (extra.get("draw") or extra.get("class") == "draw"):
                    if session.state in drawn:
                        console.say("The position has come back, and with best play neither side "
                                    "can force an end: a draw, the game would go on for ever. "
                                    "Stopped.")
                        return 0
                    drawn.add(session.state)
                elif not seats and not game.info.has_chance:
                    # a search's choices (a game too big to solve strongly) can cycle too
                    met[session.state] = met.get(session.state, 0) + 1
                    if met[session.state] == 3:
                        console.say("The position has come back a third time with the solver "
                                    "playing every seat: its moves would repeat for ever. "
                                    "Stopped.")
                        return 0
                action = pick(game, session.state, advice)
                note = "" if result.proven else ", an estimate"
                if advisor.interrupted:
                    note += ": the search was interrupted"
                console.say(f"{players[player]} plays {names(action)} "
                            f"({_value_text(players, result)}{note})")
                session.play(action)
                if session.to_move != CHANCE:
                    draw()
                continue
            if not _human_turn(session, console, advisor, seats, players, draw):
                return 0
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1


def _human_turn(session, console: _Console, advisor, seats, players, draw) -> bool:
    """One decision of a person: prompt until a legal action is played. False to stop."""
    from gdl.solvers import SolverError
    from gdl.tools.session import describe_values

    game = session.game
    player = session.to_move

    def hint() -> None:
        try:
            advice = advisor.advise(game, session.state, values_per_action=True)
        except SolverError as error:   # a solver that cannot handle the game says why
            console.say(f"  no hint: {error}")
            return
        _show_hint(console, game, players, advice, describe_values)

    names = session.names()
    console.say(f"{players[player]} to move. Legal: " + _numbered(names))
    kind, got = _ask(console, players[player], names, session, seats, draw, hint, session.find)
    if kind == "stop":
        return False
    if kind == "undone":
        console.say("undone: " + " ".join(m.name for m in reversed(got)))
        draw()
        return True
    session.play(got)
    if session.to_move != CHANCE:
        draw()
    return True


def _numbered(names: list[str]) -> str:
    return "  ".join(f"{i}:{n}" for i, n in enumerate(names, start=1))


def _ask(console: _Console, name: str, names: list[str], session, seats, draw, hint,
         find) -> tuple[str, Any]:
    """Prompt a person until they choose: ("move", the action ``find`` gives for their text),
    ("undone", the moves taken back) or ("stop", None); help, board and hint are answered
    here (``hint()`` says the hint), and a word that is also an action's name is the action."""
    from gdl.moves import MoveError

    while True:
        text = console.ask(f"{name}> ")
        if text is None:
            console.say("End of input: the game is left unfinished.")
            return "stop", None
        if not text:
            continue
        command = ALIASES.get(text.lower(), text.lower())
        if text not in names and command in COMMANDS:
            if command == "quit":
                console.say("Game abandoned.")
                return "stop", None
            if command == "help":
                for word, meaning in COMMANDS.items():
                    console.say(f"  {word:<6} {meaning}")
                console.say("  an action: its full name, a unique prefix of it, or its number; "
                            "'place 1 1' means place(1,1)")
                continue
            if command == "board":
                draw()
                console.say("Legal: " + _numbered(names))
                continue
            if command == "undo":
                undone = session.undo_turn(seats)
                if not undone:
                    console.say("  nothing to undo")
                    continue
                return "undone", undone
            if command == "hint":
                hint()
                continue
        try:
            return "move", find(text)
        except MoveError as error:
            console.say(f"  {error}")


def _show_hint(console: _Console, game, players, advice, describe_values) -> None:
    result = advice.result
    best = " ".join(game.action_name(a) for a in advice.best_actions)
    qualifier = ""
    if not result.proven:
        qualifier = " (an estimate: the search was depth- or time-limited"
        qualifier += (", and the game declares no evaluation, so unresolved positions count as even)"
                      if advice.neutral else ")")
    console.say(f"  hint: best {best}; {_value_text(players, result)}{qualifier}")
    entries = getattr(advice, "entries", None)
    if entries is not None:      # from every position's value: every move, with its remoteness
        for entry in entries:
            shown = ("a draw (endless play, no value)" if entry.values is None
                     else describe_values(players, entry.values))
            far = f"  remoteness {entry.remoteness}" if entry.remoteness >= 0 else ""
            console.say(f"    {game.action_name(entry.action):<16} {shown}{far}")
        return
    for action, values in advice.action_values:
        console.say(f"    {game.action_name(action):<16} {describe_values(players, values)}")


def _value_text(players, result) -> str:
    """``value X 1, O -1``, with the remoteness where known (``win in 3`` for the mover is
    what the ranking plays for); a draw without a value says so instead of showing numbers."""
    from gdl.tools.session import describe_values

    extra = getattr(result, "extra", {}) or {}
    if extra.get("draw"):
        return "a draw: neither side can force an end, and endless play has no value"
    remoteness = extra.get("remoteness", -1)
    far = f", {remoteness} move(s) to the end" if remoteness is not None and remoteness >= 0 else ""
    if extra.get("class") == "draw":
        far = ": a draw, neither side can force an end, and the rules value endless play"
    return f"value {describe_values(players, result.values)}{far}"


# ---- games with simultaneous moves or hidden information ------------------------------------------

def _wide_algorithms() -> tuple[str, ...]:
    from gdl.solvers import WIDE_ALGORITHMS

    return tuple(WIDE_ALGORITHMS)


def _play_wide(args, game, seats: list[int]) -> int:
    """`gdl play` on a game with simultaneous moves or hidden information: the person sees only
    what its seat may see (its observation), the computer plays an equilibrium strategy, drawn
    at its information state with a seeded generator, and where players choose at once the
    person chooses first, the computer without seeing it, and then the joint move is shown."""
    from gdl.solvers.wide import refuse_wide, what_is_wide
    from gdl.tools.session import (
        UNSEEN,
        Equilibrium,
        Session,
        describe_values,
        outcome_sentence,
        strategy_seed,
    )

    info = game.info
    players = info.players
    what = what_is_wide(info)
    if args.db is not None or args.depth is not None or args.time is not None:
        option = "--db" if args.db is not None else "--depth" if args.depth is not None else "--time"
        raise UsageError(f"{option}: a game with {what} is played from one solve of the whole "
                         "game (its equilibrium strategy), not by search or a position database")
    if args.moves or getattr(args, "position", None):
        raise UsageError(f"a game with {what} is played from its start: what a player knows "
                         "depends on the whole play (drop --moves and --position)")
    if args.ai != "auto" and args.ai not in _wide_algorithms():
        refuse_wide(info, args.ai)      # the wrong tool, and which to use instead
    if info.hidden and len(seats) > 1:
        raise UsageError(f"a game with hidden information is played from one seat (--as once): "
                         f"each of {', '.join(players[i] for i in seats)} would see what the "
                         "other may not")
    viewer = seats[0] if seats else None
    console = _Console(sys.stdin, sys.stdout)
    session = Session(game, seed=args.seed)
    chooser = strategy_seed(args.seed)
    algorithm = args.ai
    found: list = []

    def equilibrium() -> Equilibrium:
        if not found:
            found.append(Equilibrium.solve(game, algorithm, iterations=args.iterations,
                                           seed=args.seed or 0))
        return found[0]

    def view() -> str:
        from gdl.solvers import information
        from gdl.tools.session import render, render_view

        if viewer is None:
            return render(game, session.state)
        return render_view(game, viewer, information.observation(game, session.state, viewer))

    def draw() -> None:
        board = view()
        if board:
            console.say(board)

    title = info.name or args.file
    computer = [p for i, p in enumerate(players) if i not in seats]
    if computer:
        solved = equilibrium()       # before the first move: a refusal ends the game at once
        console.say(f"{title}: " + (f"you play {', '.join(players[i] for i in seats)}; " if seats
                                    else "") + f"the computer plays {', '.join(computer)} "
                    f"with its equilibrium strategy ({_equilibrium_text(solved, players)}), "
                    "drawing its mixed choices at random"
                    + (f" (seed {args.seed})." if args.seed is not None else "."))
    else:
        console.say(f"{title}: you play {', '.join(players[i] for i in seats)}.")
    if viewer is not None and info.hidden:
        console.say(f"You see what {players[viewer]} may see: the others' private and hidden "
                    "parts show as ?, and so do the moves hidden from you.")
    elif viewer is None and info.hidden:
        console.say("You watch: everything is shown, the hidden parts too.")
    if info.simultaneous and seats:
        console.say("Where players choose at once you choose first; the computer chooses "
                    "without seeing your choice, then both are shown.")
    if seats:
        console.say("Type an action (its name, a unique prefix, or its number), "
                    "or: hint, undo, board, help, quit.")
    if args.seed is not None and info.has_chance:
        console.say(f"Chance is drawn with seed {args.seed}.")
    console.say()
    if session.to_move != CHANCE:
        draw()

    def said(move) -> list[str] | None:
        return session.seen_history(viewer)[-1][1]

    try:
        while True:
            kind = session.to_move
            if kind == TERMINAL:
                values = session.returns()
                verdict = (f" ({outcome_sentence(players, values)})"
                           if info.is_constant_sum and len(players) > 1 else "")
                console.say(f"Game over: {describe_values(players, values)}{verdict}.")
                return 0
            if kind == CHANCE:
                move = session.roll()
                shown = said(move)
                console.say(f"chance: {shown[0]} (probability {format_value(move.probability)})"
                            if shown else "chance moves (you see only what it changes)")
                if session.to_move != CHANCE:
                    draw()
                continue
            acting = session.acting
            chosen: dict[int, Any] = {}
            for player in acting:
                if player not in seats:
                    continue
                answer = _wide_choice(session, console, player, seats, equilibrium, draw,
                                      together=len(acting) > 1)
                if answer is _STOP:
                    return 0
                if answer is _UNDONE:
                    break
                chosen[player] = answer
            else:
                for player in acting:
                    if player not in chosen:
                        chosen[player] = equilibrium().sample(chooser, session, player)
                if kind == SIMULTANEOUS:
                    move = session.play_joint(tuple(chosen[p] for p in acting))
                    parts = said(move) or []
                    console.say("together: " + ", ".join(
                        f"{players[p]} {part}" for p, part in zip(acting, parts)))
                else:
                    player = acting[0]
                    move = session.play(chosen[player])
                    if player not in seats:
                        seen_as = (said(move) or [UNSEEN])[0]
                        console.say(f"{players[player]} plays {seen_as}"
                                    + (" (hidden from you)" if seen_as == UNSEEN else ""))
                if session.to_move != CHANCE:
                    draw()
    except GameRuntimeError as error:
        print(report_runtime(error, game), file=sys.stderr)
        return 1


_STOP = object()      # the person left the game
_UNDONE = object()    # the person took moves back: the position changed


def _wide_choice(session, console: _Console, player: int, seats, equilibrium, draw,
                 together: bool):
    """The action a person chooses for ``player`` (or _STOP, _UNDONE)."""
    from gdl.solvers import SolverError

    game = session.game
    players = game.info.players
    names = [game.action_name(a) for a in session.legal_of(player)]
    others = [players[p] for p in session.acting if p != player]
    at_once = f" (at the same time as {', '.join(others)})" if together else ""

    def hint() -> None:
        try:
            solved = equilibrium()
        except SolverError as error:
            console.say(f"  no hint: {error}")
            return
        _wide_hint(console, session, solved, player)

    console.say(f"{players[player]} to move{at_once}. Legal: " + _numbered(names))
    kind, got = _ask(console, players[player], names, session, seats, draw, hint,
                     lambda text: session.find_for(player, text))
    if kind == "stop":
        return _STOP
    if kind == "undone":
        console.say(f"undone: {len(got)} move(s)")
        draw()
        return _UNDONE
    return got


def _wide_hint(console: _Console, session, solved, player: int) -> None:
    """The equilibrium's mix at the person's information state, and the values known there."""
    from gdl.cli.wide import describe
    from gdl.tools.session import describe_values

    game = session.game
    players = game.info.players
    where = describe(game, player, solved.key(session, player))
    mix = ", ".join(f"{game.action_name(a)} {format_value(p)}"
                    for a, p in solved.mix(session, player) if p)
    unknown = "" if solved.known(session, player) else (
        " (the solver's strategy never reaches this information state: any choice is as good, "
        "so every action is shown alike)")
    console.say(f"  hint: {where}: the equilibrium plays {mix}{unknown}")
    here = solved.position_value(session.state)
    if here is not None:
        console.say(f"  value here: {describe_values(players, here)}")
    console.say(f"  the game's value: {_equilibrium_text(solved, players)}")


def _equilibrium_text(solved, players) -> str:
    """``sequence-form, exact: value First -1/18, Second 1/18`` (with the exploitability of an
    approximate strategy)."""
    from gdl.tools.session import describe_values

    result = solved.result
    extra = result.extra
    if solved.exact:
        return f"{result.algorithm}, exact: value {describe_values(players, result.values)}"
    shown = ", ".join(f"{p} {float(v):.6g}" for p, v in zip(players, result.values))
    parts = [f"{result.algorithm}, approximate: value about {shown}"]
    if extra.get("iterations"):
        parts.append(f"after {extra['iterations']:,} iterations")
    if extra.get("exploitability") is not None and len(players) == 2:
        parts.append(f"exploitability {float(extra['exploitability']):.3g}")
    elif extra.get("nash_conv") is not None:
        parts.append(f"NashConv {float(extra['nash_conv']):.3g}")
    return ", ".join(parts)


def register(commands) -> None:
    from gdl.solvers import ALGORITHMS

    sub = commands.add_parser(
        "play", help="play a game against the solver (or watch it play itself)",
        epilog="Example: gdl play games/tictactoe.game --as X   "
               "(Connect Four 7x6: gdl play games/connect4.game --set columns=7 --set rows=6 "
               "--as Red --time 5)")
    add_common(sub)
    sub.add_argument("--as", dest="seat", action="append", metavar="PLAYER",
                     help="a seat you play (repeatable); with none the solver plays every seat")
    sub.add_argument("--ai", default="auto", choices=("auto",) + ALGORITHMS + _wide_algorithms(),
                     help="the solver's algorithm (default: chosen from the game; on a game with "
                          "simultaneous moves or hidden information the solver whose equilibrium "
                          "strategy the computer plays)")
    sub.add_argument("--iterations", type=whole(1), metavar="N",
                     help="iterations of cfr, cfr+ or mccfr (--ai) before the computer plays")
    sub.add_argument("--depth", type=whole(1), metavar="N",
                     help="the solver searches N decision plies, then uses the game's evaluate")
    sub.add_argument("--time", type=seconds, metavar="S",
                     help="seconds per move for the solver (alphabeta; deepens iteratively)")
    sub.add_argument("--moves", nargs="+", metavar="MOVE", help="start after these actions")
    add_position(sub)
    sub.add_argument("--seed", type=int, metavar="S",
                     help="seed for chance rolls and the computer's mixed choices (reproducible)")
    sub.add_argument("--db", metavar="DB",
                     help="answer from a position database (gdl solve --strong --save DB): at "
                          "once, winning fastest and losing slowest; hint shows remoteness")
    sub.set_defaults(run=cmd_play)
