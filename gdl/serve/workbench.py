"""What the page shows and does, as plain data: one game being played and explored.

``Workbench`` holds the rule text, the game built from it, a play session (gdl.tools.session)
and which seats a person plays. Every method returns a JSON-ready ``dict``; nothing here knows
HTTP (gdl.serve.server does) and nothing prints.

Values of moves come from gdl's solvers (``gdl.solvers.analysis.analyze_position``): exact
value vectors, shown as integers or fractions, never rounded. In a two-player constant-sum game
without chance an exactly solved move is also labelled ``win`` / ``draw`` / ``loss`` for the
player to move (its value above, equal to or below the opponent's); elsewhere the moves are
ranked by the mover's value (``best`` / ``worse`` / ``worst``).

With a position database (gdl.graph.database, opened by the caller and bound to the rules) each
move also carries what the database says of it, as GamesmanUni shows it: its ``class`` for the
player to move (``win`` / ``lose`` / ``tie``: the game ends level / ``draw``: endless play, as
in docs/graph.md) and its ``remoteness``, the number of moves to the end of the game when this
move is played and both then play optimally, the move itself counted (the remoteness of the
position it leads to, plus one): ``win in 3``. Edited rules are no longer the database's, so the
database is set aside until the original rules are loaded again.

A game with simultaneous moves or hidden information (docs/imperfect.md) is played from one
seat, and the page gets only what that seat may see: the board drawn from its observation (the
others' private cells and the hidden variables as ``?``), the moves as it saw them (``?`` for
an action hidden from it, no name for a chance outcome it sees only through the state), and
its own legal actions with the probability the equilibrium gives each at its information
state. Chance moves by itself (seeded), since choosing the deal would be choosing the others'
cards; the computer plays the equilibrium strategy of the solver `gdl solve` chooses, drawn
with a seeded generator, and where players choose at once the person's move is sent alone and
the computer's are drawn without it, then the joint move is applied and shown. No value of a
position is sent (each would be computed with every card face up), only the game's value.

Rule text given to ``load_rules`` is parsed and checked like a file; it is never run as Python
(the compiled backend turns only numbers and compiler-chosen names into code).
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from gdl.errors import GameRuntimeError, GdlError
from gdl.protocol import CHANCE, SIMULTANEOUS, TERMINAL, format_value, json_value

TREE_DEPTH = 2            # the tree view tries depths up to TREE_DEPTH + 2 when the whole is too big
ANALYSIS_CACHE = 4096     # positions whose move values are remembered
STEP_LIMIT = 2000         # nodes a search may visit to be stepped through (as `gdl step`'s --limit)


class WorkbenchError(Exception):
    """A request the page should not have made (an unknown move, nothing to undo...)."""


class _TooLarge(WorkbenchError):
    """The tree asked for has more nodes than a drawing can show."""


class _Unsolved(WorkbenchError):
    """A game that can repeat a position whose strong solve was refused (too big, more
    players): the message says what works instead."""


class Workbench:
    """One game on the page. Thread-safe: the server calls it from several threads."""

    def __init__(self, text: str, filename: str, *, params: Mapping | None = None,
                 human: Sequence[int] = (0,), depth: int | None = None, seed: int | None = None,
                 backend: str = "compile", database: Any = None):
        self.filename = filename
        self.database = database        # a PositionDatabase bound to ``text``, or None
        self._database_text = text
        self.params = dict(params or {})
        self.depth = depth
        self.seed = seed
        self.backend = backend
        self._lock = threading.RLock()
        self._install(text, self._build(text))
        self.human = [i for i in human if 0 <= i < len(self.game.info.players)]
        if self.wide:
            self.human = self.human[:1] or [0]      # played from one seat

    # ---- the rules -----------------------------------------------------------------------------

    def _build(self, text: str):
        from gdl.backends.load import loads

        return loads(text, self.filename, self.params, backend=self.backend)

    def _install(self, text: str, game) -> None:
        from gdl.serve.board import Boards
        from gdl.solvers.wide import is_wide
        from gdl.tools.session import Session, strategy_seed

        self.text = text
        self.game = game
        self.wide = is_wide(game.info)
        self.boards = Boards(game, self.filename)
        self.session = Session(game, seed=self.seed)
        self._equilibrium: Any = None       # the computer's strategy (a wide game), once solved
        self._equilibrium_refusal: str | None = None
        self._chooser = strategy_seed(self.seed)
        if self.wide:
            self._chance()
        # The database holds the positions of the rules it was saved for, and of no others.
        self._database = self.database if text == self._database_text else None
        self._analyses: dict = {}
        # A game that can repeat a position has no exact tree search: its values come from every
        # position's value (``_positions``). None: not looked at yet; then True or False.
        self._cyclic: bool | None = None
        self._solved: Any = None        # the strong solve in memory (SolvedPositions), once made
        self._refusal: str | None = None    # why there is none, where it was refused

    def load_rules(self, text: str) -> dict:
        """Check edited rule text; when it is sound, play it from the start. The answer lists
        every located problem, rendered as `gdl check` prints them, when it is not."""
        try:
            game = self._build(text)
        except GdlError as error:
            return {"ok": False, "errors": error.render(),
                    "diagnostics": [_diagnostic(d) for d in error.diagnostics]}
        with self._lock:
            self._install(text, game)
            self.human = [i for i in self.human if i < len(game.info.players)] or [0]
            if self.wide:
                self.human = self.human[:1]     # played from one seat
            return {"ok": True, "state": self.state()}

    # ---- reading the position ------------------------------------------------------------------

    def state(self) -> dict:
        """Everything the page draws: the game, the board, whose turn, every legal move with its
        value, the moves so far, and the result when the game is over."""
        with self._lock:
            if self.wide:
                return self._wide_state()
            game, session = self.game, self.session
            info = game.info
            mover = session.to_move
            document: dict[str, Any] = {
                "game": info.name or self.filename, "file": self.filename, "rules": self.text,
                "players": list(info.players), "human": list(self.human),
                "to_move": _mover(mover, info.players), "over": mover == TERMINAL,
                "board": self._board(session.state),
                "history": [{"player": _mover(m.player, info.players), "move": m.name,
                             "probability": None if m.probability is None
                             else format_value(m.probability)} for m in session.moves],
                "moves": [], "values": None, "result": None, "error": None,
                "database": None if self.database is None else {
                    "path": self.database.path, "in_use": self._database is not None},
            }
            self._decide(document, mover)
            if mover not in (TERMINAL, CHANCE):
                for item in document["moves"]:
                    cells = self.boards.cells(session.state, item.pop("action"))
                    if cells is not None:
                        item["cells"] = cells
            for item in document["moves"]:
                item.pop("action", None)
            document["value_history"] = self._value_history()
            if self.boards.problems:
                document["board_problems"] = list(self.boards.problems)
            return document

    def _decide(self, document: dict, mover: int) -> None:
        """The result at the end, else every move with its value (each move's ``action`` too,
        taken out before the document is sent)."""
        game, session, info = self.game, self.session, self.game.info
        if mover == TERMINAL:
            returns = session.returns()
            document["result"] = _vector(info.players, returns)
            from gdl.tools.session import outcome_sentence

            if info.is_constant_sum and len(info.players) > 1:
                document["verdict"] = outcome_sentence(info.players, returns)
            return
        try:
            positions = self._positions()
            if positions is not None:
                self._state_from_positions(document, positions, mover)
                return
            analysis = self._analysis(session.state)
        except (GameRuntimeError, _Unsolved) as error:
            document["error"] = (error.render() if isinstance(error, GameRuntimeError)
                                 else str(error))
            document["moves"] = [{"index": i, "name": game.action_name(a), "action": a}
                                 for i, a in enumerate(session.legal())]
            return
        document["solver_to_move"] = mover != CHANCE and mover not in self.human
        document["values"] = _vector(info.players, analysis.values)
        document["proven"] = analysis.proven
        document["moves"] = self._moves(analysis, mover)
        if self._database is not None and mover != CHANCE:
            self._mark_remoteness(document["moves"], [e.action for e in analysis.entries],
                                  mover, self._database)

    def _value_history(self) -> list[dict]:
        """The value of every position of the play so far, the current one last, for the player
        to move there, as the moves are labelled (``win`` / ``draw`` / ``loss``, with the
        remoteness where the values come from every position's: GamesmanUni's value history);
        ``label`` is None where values are no win or loss (chance, more players, estimates).
        Each entry names the move played from it. It stops at a position without a value."""
        game, session, players = self.game, self.session, self.game.info.players
        states = [session.root]
        for move in session.moves:
            states.append(game.apply(states[-1], move.action))
        history: list[dict] = []
        for number, state in enumerate(states):
            played = session.moves[number].name if number < len(session.moves) else None
            mover = game.current_player(state)
            entry: dict[str, Any] = {"mover": _mover(mover, players), "move": played,
                                     "label": None, "remoteness": None}
            try:
                if mover == TERMINAL:
                    entry["text"] = "the end: " + _vector_text(players, game.returns(state))
                else:
                    entry.update(self._position_value(state, mover))
            except (GameRuntimeError, _Unsolved):
                break
            history.append(entry)
        return history

    def _position_value(self, state, mover: int) -> dict:
        """One position's value for ``_value_history``."""
        from gdl.tools.database_advice import level

        info, who = self.game.info, _mover(mover, self.game.info.players)
        positions = self._positions()
        if positions is None and self.depth is None:
            # a game without repeats, with --db: the database has the same exact values, and
            # the remoteness the search has not (GamesmanUni's strip shows it)
            positions = self._database
        if positions is not None:
            found = positions.lookup(state)
            if found is None:
                raise _Unsolved("not in the database")
            even = None if info.has_chance else level(self.game)
            value_class = getattr(positions, "value_class", None)
            if found.values is None or (value_class is not None and value_class(state) == "draw"):
                return {"label": "draw", "text": f"{who} to move: draw (endless play)"}
            if mover == CHANCE or even is None:
                return {"text": f"{who}: " + _vector_text(info.players, found.values)}
            own = found.values[mover]
            label = "win" if own > even else "loss" if own < even else "draw"
            remoteness = found.remoteness if found.remoteness >= 0 else None
            far = f" in {remoteness}" if remoteness is not None else ""
            word = {"win": "win", "loss": "lose", "draw": "tie"}[label]
            return {"label": label, "remoteness": remoteness, "text": f"{who} to move: {word}{far}"}
        analysis = self._analysis(state)
        values = analysis.values
        decisive = (mover != CHANCE and analysis.proven and not info.has_chance
                    and info.num_players == 2 and info.is_constant_sum)
        if not decisive:
            estimate = "" if analysis.proven else " (an estimate)"
            return {"text": f"{who}: " + _vector_text(info.players, values) + estimate}
        own, other = values[mover], values[1 - mover]
        label = "win" if own > other else "loss" if own < other else "draw"
        return {"label": label, "text": f"{who} to move: {label}"}

    def _board(self, state) -> list[dict]:
        read = getattr(self.game, "variables", None)
        return [] if read is None else self.boards.blocks(read(state))

    def _analysis(self, state):
        """Every legal move's value at ``state`` (remembered: undo and redraws cost nothing)."""
        from gdl.solvers.analysis import analyze_position
        from gdl.tools.session import NeutralEvaluation, needs_neutral_evaluation

        found = self._analyses.get(state)
        if found is None:
            searched = self.game
            if needs_neutral_evaluation(self.game, self.depth, None):
                searched = NeutralEvaluation(self.game)
            from gdl.solvers.repetition import RepetitionError

            try:
                found = analyze_position(searched, state, depth=self.depth)
            except RepetitionError as error:
                # a cycle the search for one (``_positions``) did not reach: say what works
                raise _Unsolved(f"{error} (gdl serve answers from a strong solve where it finds "
                                "the cycle before searching)") from None
            if len(self._analyses) >= ANALYSIS_CACHE:
                self._analyses.clear()
            self._analyses[state] = found
        return found

    # ---- games with simultaneous moves or hidden information ------------------------------------

    @property
    def viewer(self) -> int:
        """The seat whose view the page shows (a wide game is played from one seat)."""
        return self.human[0] if self.human else 0

    def _wide_state(self) -> dict:
        """``state`` for a game with simultaneous moves or hidden information: only what the
        person's seat may see (module docstring)."""
        from gdl.solvers import information
        from gdl.tools.session import outcome_sentence, seen_variables

        game, session, viewer = self.game, self.session, self.viewer
        info = game.info
        players = info.players
        kind = session.to_move
        acting = list(session.acting)
        seen = seen_variables(game, viewer, information.observation(game, session.state, viewer))
        history = []
        for move, parts in session.seen_history(viewer):
            if move.player == SIMULTANEOUS:
                # (a joint move is always seen, if only as `?` for each hidden action)
                shown = ", ".join(f"{players[p]} {part}" for p, part in zip(move.players, parts or ()))
                history.append({"player": "together", "move": shown, "probability": None})
            else:
                probability = (format_value(move.probability)
                               if parts and move.probability is not None else None)
                history.append({"player": _mover(move.player, players),
                                "move": parts[0] if parts else "(unseen)",
                                "probability": probability})
        document: dict[str, Any] = {
            "game": info.name or self.filename, "file": self.filename, "rules": self.text,
            "players": list(players), "human": list(self.human), "wide": True,
            "seat": players[viewer], "hidden": info.hidden,
            "to_move": (None if kind == TERMINAL else
                        " and ".join(players[p] for p in acting) if acting else "chance"),
            "together": kind == SIMULTANEOUS, "over": kind == TERMINAL,
            "board": [] if seen is None else self.boards.blocks(seen),
            "history": history, "moves": [], "values": None, "result": None, "error": None,
            "database": None,
            "solver_to_move": kind not in (TERMINAL, CHANCE) and viewer not in acting,
        }
        if kind == TERMINAL:
            returns = session.returns()
            document["result"] = _vector(players, returns)
            if info.is_constant_sum and len(players) > 1:
                document["verdict"] = outcome_sentence(players, returns)
        solved = self._solved_equilibrium()
        if solved is None:
            document["error"] = self._equilibrium_refusal
        else:
            document["values"] = _vector(players, solved.result.values)
            document["proven"] = solved.exact
            document["equilibrium"] = {"algorithm": solved.algorithm, "exact": solved.exact,
                                       "note": solved.result.extra.get("note", "")}
        if viewer in acting:
            mix = dict(solved.mix(session, viewer)) if solved is not None else {}
            for index, action in enumerate(session.legal_of(viewer)):
                item: dict[str, Any] = {"index": index, "name": game.action_name(action)}
                if action in mix:
                    item["strategy"] = format_value(mix[action])
                    item["label"] = "mixed" if mix[action] else "unplayed"
                document["moves"].append(item)
        return document

    def _solved_equilibrium(self):
        """The computer's equilibrium strategy (``gdl.tools.session.Equilibrium``), solved once
        per rules; None when the solver refuses the game (``_equilibrium_refusal`` says why)."""
        from gdl.solvers.result import SolverError
        from gdl.tools.session import Equilibrium

        if self._equilibrium is None and self._equilibrium_refusal is None:
            try:
                self._equilibrium = Equilibrium.solve(self.game, seed=self.seed or 0)
            except SolverError as error:
                self._equilibrium_refusal = str(error)
        return self._equilibrium

    def _chance(self) -> None:
        """A wide game: chance moves at once, seeded (a person who chose outcomes would be
        choosing the cards it must not see)."""
        with _rule_failures():
            while self.session.to_move == CHANCE:
                self.session.roll()

    def _wide_move(self, index: int) -> dict:
        """The person plays its legal action number ``index``; where others choose at the same
        time, theirs are drawn from the equilibrium without it, and all apply together."""
        session, viewer = self.session, self.viewer
        acting = session.acting
        if viewer not in acting:
            raise WorkbenchError("it is not your move")
        legal = session.legal_of(viewer)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
            raise WorkbenchError(f"there is no move number {index}")
        self._play_acting({viewer: legal[index]})
        return self.state()

    def _play_acting(self, chosen: dict) -> None:
        """Every acting player not in ``chosen`` draws its action from the equilibrium; the
        move is applied (jointly where several choose), then chance moves."""
        session = self.session
        acting = session.acting
        if len(chosen) < len(acting):
            solved = self._solved_equilibrium()
            if solved is None:
                raise WorkbenchError(self._equilibrium_refusal or "no equilibrium")
            for player in acting:
                if player not in chosen:
                    chosen[player] = solved.sample(self._chooser, session, player)
        with _rule_failures():
            if session.to_move == SIMULTANEOUS:
                session.play_joint(tuple(chosen[p] for p in acting))
            else:
                session.play(chosen[acting[0]])
        self._chance()

    # ---- games that can repeat a position --------------------------------------------------------

    def _positions(self):
        """Where the game can repeat a position (no exact tree search), what answers instead:
        the position database when there is one for these rules, else a strong solve of every
        position reachable from the start, made once per rules (gdl.tools.graph_advice). None
        for any other game, and with --depth (a depth-limited search works on any game).
        Raises ``_Unsolved`` when the strong solve is refused (too big, more players)."""
        from gdl.solvers.result import SolverError
        from gdl.tools.graph_advice import (
            CYCLIC_LIMIT,
            SolvedPositions,
            cyclic_refusal,
            solve_positions,
        )

        if self.depth is not None or not self._repeats():
            return None
        if self._database is not None:
            return self._database
        if self._solved is None and self._refusal is None:
            try:
                self._solved = SolvedPositions(solve_positions(self.game,
                                                               self.game.initial_state()))
            except SolverError as error:
                self._refusal = (cyclic_refusal(self.game.info, error, CYCLIC_LIMIT,
                                                self.filename)
                                 + "; `gdl serve --depth N` shows depth-limited values")
        if self._solved is None:
            raise _Unsolved(self._refusal)
        return self._solved

    def solver_note(self) -> str | None:
        """For a game that can repeat a position, which solver answers, or why none can (one
        line, for `gdl serve` to print at start); for a game with simultaneous moves or
        hidden information, whose equilibrium the computer plays; None for any other game.
        Solves it now."""
        with self._lock:
            if self.wide:
                solved = self._solved_equilibrium()
                if solved is None:
                    return f"warning: {self._equilibrium_refusal}"
                how = "exact" if solved.exact else "approximate"
                return (f"the computer plays the equilibrium strategy of {solved.algorithm} "
                        f"({how}), drawn at random; the page shows only what your seat may see")
            try:
                positions = self._positions()
            except _Unsolved as error:
                return f"warning: {error}"
            if positions is None:
                return None
            describe = getattr(positions, "describe", None)
            return ("the game can repeat a position, so the page's values come from "
                    + ("the position database" if describe is None
                       else f"a strong solve ({describe()}), as gdl solve's do"))

    def _repeats(self) -> bool:
        """Whether a tree search from the start can meet a repeated position (looked at once
        per rules)."""
        from gdl.tools.graph_advice import can_repeat

        if self._cyclic is None:
            self._cyclic = can_repeat(self.game, self.game.initial_state()) is not None
        return self._cyclic

    def _state_from_positions(self, document: dict, positions, mover: int) -> dict:
        """The page's values from every position's value (``_positions``): each move with its
        value, class and remoteness; a draw without a value shown as a draw."""
        from gdl.tools.database_advice import level, move_entries, ranked_best

        game, state, info = self.game, self.session.state, self.game.info
        here = positions.lookup(state)
        if here is None:
            raise _Unsolved(f"{positions.path}: this position is not in it")
        entries = move_entries(positions, game, state)
        optimal: set = set()
        if mover != CHANCE:
            given = getattr(positions, "optimal", None)
            optimal = {id(e) for e in ranked_best(game, mover, entries,
                                                  given(state) if given else None,
                                                  draw=here.values is None)}
        describe = getattr(positions, "describe", None)
        document["solver"] = {
            "name": "position database" if describe is None else describe(),
            "note": "The game can repeat a position, so no tree search can solve it: every value "
                    + ("comes from the position database." if describe is None else
                       "comes from a strong solve of every position reachable from the start, "
                       "as gdl solve does.")}
        document["solver_to_move"] = mover != CHANCE and mover not in self.human
        document["values"] = None if here.values is None else _vector(info.players, here.values)
        document["draw"] = here.values is None
        document["proven"] = positions.exact
        decisive = not info.has_chance and level(game) is not None
        probabilities = dict(game.chance_outcomes(state)) if mover == CHANCE else {}
        moves = []
        for index, entry in enumerate(entries):
            item: dict[str, Any] = {
                "index": index, "name": game.action_name(entry.action), "action": entry.action,
                "values": None if entry.values is None else _vector(info.players, entry.values),
                "optimal": id(entry) in optimal}
            if mover == CHANCE:
                item["probability"] = format_value(probabilities[entry.action])
                item["label"] = "chance"
            elif entry.values is None:
                item["label"], item["value"] = "draw", "draw"
            else:
                own = entry.values[mover]
                if decisive:
                    other = entry.values[1 - mover]
                    item["label"] = "win" if own > other else "draw" if own == other else "loss"
                else:
                    item["label"] = "best" if item["optimal"] else "worse"
                item["value"] = format_value(own)
            moves.append(item)
        document["moves"] = moves
        if mover != CHANCE:
            self._mark_remoteness(moves, [e.action for e in entries], mover, positions)
        return document

    def _moves(self, analysis, mover: int) -> list[dict]:
        game, info = self.game, self.game.info
        decisive = (mover != CHANCE and analysis.proven and not info.has_chance
                    and info.num_players == 2 and info.is_constant_sum)
        scores = sorted({e.values[mover] for e in analysis.entries}) if mover != CHANCE else []
        moves = []
        for index, entry in enumerate(analysis.entries):
            item = {"index": index, "name": game.action_name(entry.action), "action": entry.action,
                    "values": _vector(info.players, entry.values), "optimal": entry.optimal}
            if mover == CHANCE:
                item["probability"] = format_value(entry.probability)
                item["label"] = "chance"
            else:
                own, other = entry.values[mover], entry.values[1 - mover] if decisive else None
                if decisive:
                    item["label"] = "win" if own > other else "draw" if own == other else "loss"
                elif entry.optimal:
                    item["label"] = "best"
                else:
                    item["label"] = "worst" if own == scores[0] else "worse"
                item["value"] = format_value(own)
            moves.append(item)
        return moves

    def _mark_remoteness(self, moves: list[dict], actions: list, mover: int, positions) -> None:
        """Each move's class and remoteness from the database or the strong solve (``None``
        where it has none: a draw, a game with chance or more players, a position it does not
        hold)."""
        from gdl.tools.database_advice import level

        game, state, even = self.game, self.session.state, level(self.game)
        if game.info.has_chance:
            even = None         # a value is an expectation there, not a win or a loss
        value_class = getattr(positions, "value_class", None)
        for item, action in zip(moves, actions):
            child = game.apply(state, action)
            found = positions.lookup(child)
            kind = remoteness = None
            if found is not None:
                if found.values is None or (value_class is not None
                                            and value_class(child) == "draw"):
                    kind = "draw"
                elif even is not None:
                    own = found.values[mover]
                    kind = "win" if own > even else "lose" if own < even else "tie"
                if found.remoteness >= 0 and kind != "draw":
                    remoteness = found.remoteness + 1
            item["class"] = kind
            item["remoteness"] = remoteness
            item["remoteness_text"] = _remoteness_text(kind, remoteness, found is not None)

    # ---- changing the position -----------------------------------------------------------------

    def move(self, index: int) -> dict:
        """Play the legal move (or choose the chance outcome) numbered ``index`` (from 0)."""
        with self._lock:
            if self.wide:
                return self._wide_move(index)
            legal = self.session.legal()
            if not isinstance(index, int) or not 0 <= index < len(legal):
                raise WorkbenchError(f"there is no move number {index}")
            with _rule_failures():
                self.session.play(legal[index])
            return self.state()

    def solver_move(self) -> dict:
        """The solver plays for the player to move: the first optimal move that ends the game at
        once, else the first optimal one (the moves the page shows as best); from every
        position's value (a game that can repeat a position), the fastest win or slowest loss."""
        from gdl.tools.session import choose, pick

        with self._lock:
            mover = self.session.to_move
            if mover in (TERMINAL, CHANCE):
                raise WorkbenchError("no player is to move")
            if self.wide:
                if self.viewer in self.session.acting:
                    raise WorkbenchError("it is your move (the computer chooses with you, "
                                         "without seeing your choice)")
                self._play_acting({})
                return self.state()
            game, state = self.game, self.session.state
            with _rule_failures(), _unsolved():
                positions = self._positions()
                if positions is not None:
                    from gdl.tools.database_advice import DatabaseAdvisor

                    action = pick(game, state, DatabaseAdvisor(positions).advise(game, state))
                else:
                    action = choose(game, state, self._analysis(state).best_actions)
                self.session.play(action)
            return self.state()

    def roll(self) -> dict:
        """At a chance node, draw an outcome with its exact probability (seeded by --seed)."""
        with self._lock:
            if self.session.to_move != CHANCE:
                raise WorkbenchError("this is not a chance node")
            with _rule_failures():
                self.session.roll()
            return self.state()

    def undo(self) -> dict:
        """Back to the person's previous decision (the solver's and chance's replies too); with
        no person's move to take back, one move."""
        with self._lock:
            if not self.session.moves:
                raise WorkbenchError("nothing to undo")
            if not self.session.undo_turn(self.human):
                if self.wide:       # the deal and the computer's moves stay as they were
                    raise WorkbenchError("nothing of yours to undo")
                self.session.undo()
            return self.state()

    def restart(self) -> dict:
        with self._lock:
            from gdl.tools.session import Session

            previous = self.session
            self.session = Session(self.game, seed=self.seed)
            if self.wide:
                # chance draws on from where it was: a new deal, not the last one again (which
                # a person who changed seats, or saw the last game end, would know something of)
                self.session.rng = previous.rng
                self._chance()
            return self.state()

    def set_human(self, seats: Sequence[int]) -> dict:
        """Which players a person plays (the solver plays the others); the new state."""
        self.choose_seats(seats)
        return self.state()

    def choose_seats(self, seats: Sequence[int]) -> None:
        with self._lock:
            players = self.game.info.players
            if not all(isinstance(i, int) and 0 <= i < len(players) for i in seats):
                raise WorkbenchError("a seat is not a player of this game")
            chosen = sorted(set(seats))
            if self.wide and len(chosen) != 1:
                raise WorkbenchError("a game with simultaneous moves or hidden information is "
                                     "played from one seat: choose one player")
            if self.wide and self.game.info.hidden and chosen != self.human:
                # the new seat must not see what was dealt to the old one's opponents
                self.human = chosen
                self.restart()
                return
            self.human = chosen

    # ---- the search tree -----------------------------------------------------------------------

    def tree(self, depth: int | None = None) -> dict:
        """The tree the solver explores from the current position (gdl tree's recorder): as SVG
        when Graphviz is installed, and always as text; pruned branches are marked in both.
        Without a depth the search goes to the end when that tree is small enough to draw, and
        otherwise as deep as fits (a note says so)."""
        from gdl.tools.search_tree import to_dot, to_text

        if depth is not None and (not isinstance(depth, int) or depth < 1):
            raise WorkbenchError("the depth must be a whole number of at least 1")
        if self.wide:
            raise WorkbenchError("no search tree for a game with simultaneous moves or hidden "
                                 "information: its solvers solve the whole game at once (gdl "
                                 "solve shows the strategies), and a tree of positions would "
                                 "show what your seat may not see")
        with self._lock:
            game, state = self.game, self.session.state
            positions, refusal = None, None
            if game.current_player(state) != TERMINAL:
                try:
                    positions = self._positions()
                except _Unsolved as error:
                    refusal = str(error)
                if positions is None and refusal is None and self._repeats():
                    refusal = "with --depth the page searches, it does not solve strongly"
        if game.current_player(state) == TERMINAL:
            return {"text": "The game is over.", "svg": None, "nodes": 0, "pruned": 0, "note": ""}
        note = ""
        if positions is not None or refusal is not None:
            # The game can repeat a position: its tree never ends and cannot be drawn whole.
            if positions is not None:
                make = lambda tried: self._graph_tree(game, state, positions, tried)
                source = ("the strong solve" if getattr(positions, "describe", None)
                          else "the position database")
                what = ("the game tree to depth {}, cut where a position repeats, every node "
                        "valued by " + source)
            else:
                make = lambda tried: self._record(game, state, tried)
                what = f"the search to depth {{}}, positions at the limit estimated ({refusal})"
            tree, tried = _deepest(make, [depth] if depth is not None
                                   else range(TREE_DEPTH + 2, 0, -1))
            note = ("The game can repeat a position, so its tree never ends: this is "
                    + what.format(tried) + ".")
        elif depth is not None:
            tree = self._record(game, state, depth)
        else:
            tree, tried = _deepest(lambda tried: self._record(game, state, tried),
                                   (None, *range(TREE_DEPTH + 2, 0, -1)))
            if tried is not None:
                note = (f"The whole tree is too big to draw; this is the search to depth {tried}. "
                        "Play on, or choose a depth.")
        return {"text": to_text(tree), "svg": _svg(to_dot(tree)), "nodes": tree.nodes,
                "pruned": tree.pruned, "note": note, "tree": _tree_nodes(tree)}

    # ---- stepping through a search -------------------------------------------------------------

    def step(self, algorithm: str = "auto", depth: int | None = None, table: bool = False,
             ordering: bool = False) -> dict:
        """The search from the current position with its trace (gdl.tools.trace.run, the solver's
        own events), every event in words and fields (gdl.tools.step.trace_json), for the page
        to step through: forward, back, to the end. Alpha-beta is the textbook's (no table, no
        ordering) unless asked; at most ``STEP_LIMIT`` nodes."""
        from gdl.solvers import SolverError
        from gdl.solvers.trace import TraceTooLong
        from gdl.tools.step import heading, trace_json
        from gdl.tools.trace import ALGORITHMS, run

        if algorithm not in ("auto", *ALGORITHMS):
            raise WorkbenchError(f"the searches that step are {', '.join(ALGORITHMS)}")
        if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool)
                                  or depth < 0):
            raise WorkbenchError("the depth must be a whole number of at least 0")
        if not isinstance(table, bool) or not isinstance(ordering, bool):
            raise WorkbenchError("table and ordering are true or false")
        if self.wide:
            raise WorkbenchError("no search to step through in a game with simultaneous moves or "
                                 "hidden information: its solvers solve the whole game at once, "
                                 "and a tree of positions would show what your seat may not see")
        with self._lock:
            game, state = self.game, self.session.state
            if game.current_player(state) == TERMINAL:
                raise WorkbenchError("the game is over: there is nothing to search")
            if depth is None and self._repeats():
                raise WorkbenchError("the game can repeat a position, so a search without a "
                                     "depth would not end: choose a depth")
        try:
            traced = run(game, algorithm, depth=depth, table=table, ordering=ordering, root=state,
                         limit=STEP_LIMIT)
        except TraceTooLong as error:
            raise WorkbenchError(f"{error}, too many to step through: choose a smaller depth, or "
                                 "play on first") from None
        except SolverError as error:
            raise WorkbenchError(str(error)) from None
        except GameRuntimeError as error:
            raise WorkbenchError(error.render()) from None
        document = trace_json(traced)
        document["heading"] = heading(traced)
        if self.backend == "native":
            document["notes"].append("the search runs in Python, where it tells each step (the "
                                     "native tier's searches are C and tell none)")
        return document

    @staticmethod
    def _graph_tree(game, state, positions, depth: int):
        from gdl.tools.search_tree import DEFAULT_LIMIT, TreeTooLarge, graph_tree

        try:
            return graph_tree(game, positions, depth=depth, root=state, limit=DEFAULT_LIMIT)
        except TreeTooLarge as error:
            raise _TooLarge(f"{error}: choose a smaller depth, or play on first") from None

    @staticmethod
    def _record(game, state, depth: int | None):
        from gdl.solvers import SolverError
        from gdl.tools.search_tree import DEFAULT_LIMIT, TreeTooLarge, record
        from gdl.tools.session import NeutralEvaluation, needs_neutral_evaluation

        searched = NeutralEvaluation(game) if needs_neutral_evaluation(game, depth, None) else game
        try:
            return record(searched, "auto", depth=depth, root=state, limit=DEFAULT_LIMIT)
        except TreeTooLarge as error:
            raise _TooLarge(f"{error}: choose a smaller depth, or play on first") from None
        except SolverError as error:
            raise WorkbenchError(str(error)) from None
        except GameRuntimeError as error:
            raise WorkbenchError(error.render()) from None


# ---- helpers -----------------------------------------------------------------------------------

@contextmanager
def _rule_failures():
    """A rule that fails in play (E3xx) refuses the move, located as `gdl play` reports it."""
    try:
        yield
    except GameRuntimeError as error:
        raise WorkbenchError(error.render()) from None


def _deepest(make, depths):
    """``(make(depth), depth)`` for the first depth whose tree is small enough to draw; the
    last one's ``_TooLarge`` when none is."""
    depths = list(depths)
    for tried in depths:
        try:
            return make(tried), tried
        except _TooLarge:
            if tried == depths[-1]:
                raise
    raise _TooLarge("no depth to try")


@contextmanager
def _unsolved():
    """A solver that cannot answer refuses the request with its reason (a game that can repeat
    a position: what works instead)."""
    from gdl.solvers.result import SolverError

    try:
        yield
    except SolverError as error:
        raise WorkbenchError(str(error)) from None


def _remoteness_text(kind: str | None, remoteness: int | None, known: bool) -> str:
    """``win in 3``, ``tie in 9``, ``draw``; ``not in the database`` for a position it lacks."""
    if not known:
        return "not in the database"
    if kind == "draw":
        return "draw"
    if remoteness is None:
        return kind or ""
    return f"{kind} in {remoteness}" if kind else f"ends in {remoteness}"


def _mover(player: int, players: Sequence[str]) -> str | None:
    if player == TERMINAL:
        return None
    return "chance" if player == CHANCE else players[player]


def _vector(players: Sequence[str], values: Sequence) -> list[dict]:
    """A value vector as ``[{player, value (exact JSON), text}]``."""
    return [{"player": p, "value": json_value(v), "text": format_value(v)}
            for p, v in zip(players, values)]


def _tree_nodes(tree) -> dict:
    """A search tree for the page's tree view, flat (a deep tree is no deep JSON): every node
    in visit order with its ``parent`` (an index in the list, -1 for the root), the edge's
    ``name``, the mover ``who``, the ``value`` as gdl tree writes it, the principal variation
    and the optimal root actions, and the children a cut-off left (``pruned``)."""
    from gdl.tools.search_tree import CUT_TEXT, edge_text, heading, value_text, who

    nodes: list[dict] = []
    stack: list[tuple[Any, int]] = [(tree.root, -1)]
    while stack:
        node, parent = stack.pop()
        if node.player == CHANCE:
            kind = "chance"
        elif node.player == TERMINAL or node.evaluated or node.cut:
            kind = "leaf"
        elif tree.two_player:
            kind = "max" if node.player == 0 else "min"     # the textbook's triangles
        else:
            kind = "player"
        item: dict[str, Any] = {
            "parent": parent, "name": edge_text(node.name, node.probability) if parent >= 0 else "",
            "who": who(tree, node), "kind": kind, "value": value_text(tree, node),
            "principal": node.principal, "optimal": node.optimal,
            "pruned": [edge_text(name, p) for _, name, p in node.pruned]}
        notes = [n for n in ("(re-search)" if node.repeat else "",
                             "(evaluated)" if node.evaluated else "",
                             CUT_TEXT.get(node.cut, "")) if n]
        if notes:
            item["note"] = " ".join(notes)
        nodes.append(item)
        here = len(nodes) - 1
        stack.extend((child, here) for child in reversed(node.children))
    return {"heading": heading(tree), "nodes": nodes}


def _vector_text(players: Sequence[str], values: Sequence) -> str:
    return ", ".join(f"{p} {format_value(v)}" for p, v in zip(players, values))


def _diagnostic(d) -> dict:
    return {"code": d.code, "message": d.message, "line": d.span.line, "column": d.span.column,
            "end_line": d.span.end_line, "end_column": d.span.end_column, "hint": d.hint}


def _svg(dot: str) -> str | None:
    """Graphviz's drawing of DOT text, or None when `dot` is not installed or fails."""
    program = shutil.which("dot")
    if program is None:
        return None
    try:
        done = subprocess.run([program, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8") if done.returncode == 0 else None
