"""Compiled games at run time: the generated module, executed, behind the game protocol.

The compiler (gdl.backends.compiler) writes the module; gdl.backends.load caches it. This module
is imported on every ``gdl`` command, so it stays light: no Lark, no checker, no IR. A compiled
game is built from the generated source and a *descriptor*, a small JSON-able dict (game info,
action names, symbols, where each run-time error is located); the checked IR is rebuilt from the
rule text only when something asks for it (``game.ir``, or the interpreter the helpers for
people come from).
"""

from __future__ import annotations

import hashlib
import linecache
from fractions import Fraction

from gdl.errors import Diagnostic, GameRuntimeError, Source
from gdl.lang.values import exact_quotient, live_outcomes, show_value
from gdl.protocol import GameInfo
from gdl.span import NOWHERE, Span


class RuleError(Exception):
    """A rule failed while the compiled game ran; ``_fail`` turns it into a located
    GameRuntimeError (the interpreter's EvalError plays the same part there)."""

    def __init__(self, code: str, message: str, span: Span | None = None):
        super().__init__(message)
        self.code, self.message, self.span = code, message, span


def _span(value) -> Span:
    return Span(*value) if value else NOWHERE


def _exact_vector(texts) -> tuple | None:
    """Exact numbers written as text ("1/2", "-1") back to ints and Fractions."""
    if texts is None:
        return None
    numbers = (Fraction(t) for t in texts)
    return tuple(n.numerator if n.denominator == 1 else n for n in numbers)


class CompiledGame:
    """The game protocol (gdl.protocol) over generated Python; the same semantics as
    gdl.backends.interpret.InterpretedGame, state for state.

    The protocol methods are plain functions stored on the instance (no ``self``), so a solver's
    ``game.apply(s, a)`` is a single call. ``python_source`` holds the generated module.
    Attributes the compiled code does not provide (helpers for people, such as ``variables``
    or ``display``) come from a reference interpreter built on first use."""

    backend = "compile"

    def __init__(self, descriptor: dict, python_source: str, source: Source | None = None,
                 params: dict | None = None, game=None, code=None):
        self.source = source
        self.python_source = python_source
        self._params = dict(params or {})
        self._ir = game
        self._reference_game = None
        d = descriptor
        info = d["info"]
        self.info = GameInfo(
            name=info["name"], players=tuple(info["players"]), has_chance=info["has_chance"],
            sum_kind=info["sum_kind"], utility_sum=info["utility_sum"],
            utility_bounds=tuple(info["utility_bounds"]) if info["utility_bounds"] else None,
            has_evaluate=info["has_evaluate"], has_quiescence=info["has_quiescence"],
            max_length=info["max_length"], endless_value=_exact_vector(info.get("endless_value")),
            hidden=d.get("hidden") is not None)
        hidden = d.get("hidden") or {"visible": [], "actions": []}
        self._visible = tuple(tuple(cells) for cells in hidden["visible"])
        self._hidden_actions = frozenset(hidden["actions"])
        self.num_players = len(self.info.players)
        self._symbols = tuple(d["symbols"])
        bound = max(1, self.num_players)
        for values, cells in d.get("domains", ()):
            bound *= values ** cells
        # the player to move times every variable's values per cell (as gdl.cli.deep computes
        # it from the IR), known here without rebuilding the IR
        self.declared_state_bound = bound
        self._names = list(d["names"])
        self._random_names = {int(k): tuple(v) for k, v in d["random_names"].items()}
        digest = hashlib.sha256(python_source.encode()).hexdigest()[:12]
        base_name = (source.filename if source is not None else "input").replace("\\", "/")
        base_name = _printable(base_name.rsplit("/", 1)[-1])[:60]
        self.pseudo_filename = f"<gdl:{base_name}:{digest}>"
        namespace = self._namespace(d)
        lines = python_source.splitlines(keepends=True)
        linecache.cache[self.pseudo_filename] = (len(python_source), None, lines,
                                                 self.pseudo_filename)
        if code is None or code.co_filename != self.pseudo_filename:
            code = compile(python_source, self.pseudo_filename, "exec")
        self._code = code
        exec(code, namespace)
        self.current_player = namespace["current_player"]
        self.is_terminal = namespace["is_terminal"]
        self.legal_actions = namespace["legal_actions"]
        self.apply = namespace["apply"]
        self.chance_outcomes = namespace["chance_outcomes"]
        self.returns = namespace["returns"]
        self.evaluate = namespace["evaluate"]
        self.is_quiet = namespace["is_quiet"]
        if "tier" in namespace:         # `tier` declared (gdl.graph.tiers)
            self.tier = namespace["tier"]
        initial = tuple(d["initial"])
        if d.get("setup") is not None:   # `init`: the set-up effect (perhaps a chance node)
            self._initial = self.apply(initial, d["setup"])
        else:
            self._initial = namespace["_settle"](initial) if d["stuck_pass"] and initial else initial

    def _namespace(self, d: dict) -> dict:
        """What the generated module may see: its helpers, and a few builtins."""
        sites = [tuple(entry[:-1]) + (_span(entry[-1]),) for entry in d["sites"]]
        show, source, players = self.show, self.source, self.info.players
        terminal_span = _span(d["terminal_span"])

        def fail(error: RuleError, state, action=None) -> GameRuntimeError:
            failure = GameRuntimeError(Diagnostic(error.code, error.message, error.span or NOWHERE),
                                       source)
            failure.state = state
            failure.action = None if action is None else self.action_name(action)
            return failure

        def e303(i, site):
            _, extent, what, span = sites[site]
            raise RuleError("E303", f"index {i} is out of range 0..{extent - 1} for '{what}'", span)

        def e301(v, site):
            _, what, type_, span = sites[site]
            raise RuleError("E301", f"'{what}' would become {show(v, type_)}, outside its domain",
                            span)

        def enext(v, site):
            raise RuleError("E301", f"`next` names {show(v, 'sym')}, which is not a player",
                            sites[site][1])

        def div(a, b, site):
            if b == 0:
                raise RuleError("E302", sites[site][1], sites[site][2])
            return a // b

        def mod(a, b, site):
            if b == 0:
                raise RuleError("E302", sites[site][1], sites[site][2])
            return a % b

        def exact(a, b, site):
            if b == 0:
                raise RuleError("E302", sites[site][1], sites[site][2])
            return exact_quotient(a, b)

        def dist(site, pairs):
            _, index, type_, span = sites[site]
            live, problem = live_outcomes(pairs, lambda v: show(v, type_))
            if problem:
                raise RuleError("E305", problem, span)
            return [((index, v), p) for v, p in live]

        def stuck(state) -> RuleError:
            return RuleError(
                "E304", f"{players[state[0]]} is to move and has no legal action, but the "
                "terminal condition is false (add `when stuck lose` or `when stuck pass`, or make "
                "`terminal` cover this)",
                terminal_span)

        def slow(method: str, *args):
            # Inputs the generated code does not specialise for (an action id outside the
            # game's, a mover that is not a player): the reference interpreter decides.
            return getattr(self._reference(), method)(*args)

        builtins = {"len": len, "list": list, "tuple": tuple, "type": type, "bool": bool,
                    "min": min, "max": max, "abs": abs, "any": any, "all": all, "range": range,
                    "AssertionError": AssertionError}
        return {"__builtins__": builtins, "__name__": "gdl.backends.generated", "_EvalError": RuleError,
                "_fail": fail, "_e303": e303, "_e301": e301, "_enext": enext, "_div": div,
                "_mod": mod,
                "_exact": exact, "_dist": dist, "_stuck": stuck, "_Fraction": Fraction,
                "_sum": sum, "_ValueError": ValueError, "_slow": slow}

    # -- the parts of the protocol that are not generated
    def initial_state(self):
        return self._initial

    def show(self, value, type_: str) -> str:
        return show_value(value, type_, self._symbols)

    # -- hidden information (as gdl.backends.interpret defines it)
    def observation(self, state, player: int) -> tuple:
        """What ``player`` sees of ``state``: the cells it may see."""
        return tuple(state[i] for i in self._visible[player])

    def move_observation(self, state, player: int, move):
        """What ``player`` sees of ``move`` made at ``state``: its own actions and the others'
        that are not hidden (-1 for a hidden one); chance outcomes only through the state."""
        kind = self.current_player(state)
        if kind < 0:
            return None
        return move if kind == player or move not in self._hidden_actions else -1

    def action_name(self, action) -> str:
        if isinstance(action, tuple):
            name_, type_ = self._random_names[action[0]]
            return f"{name_}={self.show(action[1], type_)}"
        return self._names[action]

    @property
    def ir(self):
        """The checked game (gdl.lang.ir), rebuilt from the rule text when the game came from the
        cache."""
        if self._ir is None:
            from gdl.lang.check import check
            from gdl.lang.parse import parse

            self._ir = check(parse(self.source.text, self.source.filename), self.source,
                             self._params)
        return self._ir

    def _reference(self):
        """The reference interpreter for the same game, built on first use."""
        if self.__dict__.get("_reference_game") is None:
            from gdl.backends.interpret import InterpretedGame

            self.__dict__["_reference_game"] = InterpretedGame(self.ir, self.source)
        return self.__dict__["_reference_game"]

    def __getattr__(self, attribute: str):
        # Helpers for people (variables(), display, ...) that only the interpreter defines. Only
        # those are forwarded: building the interpreter costs a parse and a check, so asking for
        # an attribute that neither defines (``getattr(game, "x", None)``) must not build it.
        from gdl.backends.interpret import InterpretedGame

        if attribute.startswith("_") or not (attribute == "display"
                                             or hasattr(InterpretedGame, attribute)):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attribute!r}")
        return getattr(self._reference(), attribute)


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)
