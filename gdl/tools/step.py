"""Stepping through a search: each event of a trace (gdl.tools.trace) in words, a cursor that
moves forward and back over them, and the whole trace as JSON.

The words say what the solver did and why, in the terms of the textbooks: the window
(α, β) on the first player's value, the value a node backs up and whether it is exact or a
bound (fail-soft alpha-beta returns ``≤ v`` when it stopped early), the test that made a cut-off
and the children it left, the weighted sum a chance node takes. Values of a two-player search are
the first player's (MAX's); max^n shows vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gdl.protocol import CHANCE, TERMINAL, format_value, json_value
from gdl.solvers.trace import (
    ALPHA,
    AVERAGE,
    BEST_POSSIBLE,
    BETA,
    CHANCE_HIGH,
    CHANCE_LOW,
    CUTOFF,
    ENTER,
    EXACT,
    EXIT,
    LEAF,
    LOWER,
    PARTIAL,
    PROBE,
    PROBE_HIGH,
    PROBE_LOW,
    RESUME,
    SHALLOW,
    STAND_PAT,
    TABLE,
    UPPER,
    Event,
)
from gdl.tools.trace import TracedSearch


def end_text(x: Any) -> str:
    """A window end: ``−∞``, ``+∞``, ``3``, ``7/2``, ``3−ε`` (an infinitesimal below 3)."""
    if isinstance(x, float):
        return "−∞" if x < 0 else "+∞"
    infinite = getattr(x, "infinite", None)
    if infinite is not None:        # gdl.solvers.window.Bound
        if infinite:
            return "−∞" if infinite < 0 else "+∞"
        real, eps = x.real, x.eps
        text = format_value(real)
        if eps:
            size = abs(eps)
            shown = "ε" if size == 1 else f"{format_value(Fraction(size))}ε"
            text += ("+" if eps > 0 else "−") + shown
        return text
    return format_value(x)


def end_json(x: Any) -> Any:
    """A window end in JSON: a number (``"p/q"`` for a fraction), ``"-inf"``, ``"+inf"``, or
    text such as ``"3-ε"``."""
    if isinstance(x, float):
        return "-inf" if x < 0 else "+inf"
    if getattr(x, "infinite", None) is not None:
        return end_text(x).replace("−", "-").replace("∞", "inf")
    return json_value(x)


class Narrator:
    """The words for the events of one traced search."""

    def __init__(self, traced: TracedSearch):
        self.traced = traced
        self.game = traced.game
        self.players = traced.players
        self.two_player = len(self.players) == 2 or traced.algorithm == "paranoid"
        self.paranoid = traced.algorithm == "paranoid"
        chosen = traced.settings.get("player", 0)
        self.first = self.players[chosen] if self.paranoid else self.players[0]

    # -- names ----------------------------------------------------------------------------------

    def name(self, action: Any) -> str:
        return str(self.game.action_name(action))

    def where(self, path: tuple) -> str:
        """A node by the action that leads to it (the lines are indented by depth, which
        places it); the whole path is in the JSON form."""
        return self.name(path[-1]) if path else "the root"

    def mover(self, event: Event) -> str:
        player = event.player
        if player == CHANCE:
            return "chance"
        if player is None or player == TERMINAL:
            return ""
        if self.paranoid:
            real = self.game.current_player(event.state) if event.state is not None else None
            if player == 0:
                return self.first
            return (f"{self.players[real]} (coalition)" if real is not None and real >= 0
                    else "the coalition")
        return self.players[player]

    def value(self, values: tuple | None, bound: str | None = EXACT) -> str:
        if values is None:
            return "?"
        if self.two_player:
            text = format_value(values[0])
            return {UPPER: "≤ ", LOWER: "≥ "}.get(bound or EXACT, "") + text
        return "(" + ", ".join(format_value(v) for v in values) + ")"

    def window(self, window: tuple | None) -> str:
        if window is None:
            return ""
        return f"α = {end_text(window[0])}, β = {end_text(window[1])}"

    # -- the events -----------------------------------------------------------------------------

    def describe(self, event: Event) -> str:
        kind = event.kind
        where = self.where(event.path)
        if kind == ENTER:
            return self._enter(event, where)
        if kind == LEAF:
            what = ("evaluated at the depth limit" if event.evaluated else "a leaf")
            return f"{where} is {what}: {self.value(event.values)}"
        if kind == EXIT:
            text = f"{where} backs up {self.value(event.values, event.bound)}"
            if event.action is not None:
                text += f" from {self.name(event.action)}"
            return text + self._bound_note(event.bound)
        if kind == CUTOFF:
            return self._cutoff(event, where)
        if kind == TABLE:
            value = self.value(event.values, event.bound)
            if event.node < 0:
                return (f"{where}: the transposition table answers {value} "
                        "(a position searched before, not searched again)")
            return f"{where}: the transposition table answers {value}"
        if kind == AVERAGE:
            terms = " + ".join(f"{format_value(p)}·{self._term(v)}" for _, p, v in event.terms)
            if event.terms and sum(p for _, p, _ in event.terms) != 1:   # a cut-off
                return (f"{where}: the outcomes searched give {terms or 'nothing yet'}; the "
                        f"node returns the bound {self.value(event.values)}")
            if not event.terms:
                return f"{where}: the probes alone bound it: {self.value(event.values)}"
            return f"{where}: chance averages {terms} = {self.value(event.values)}"
        if kind == PROBE:
            floor = event.limit
            got = self.value(event.values)
            after = (f"{self.mover(event)} can get at least {format_value(floor)} here"
                     if floor is not None else "no lower bound (it fell below the window)")
            return f"{where} probed: its first reply gives {got}; {after}"
        if kind == RESUME:
            window = self.window(event.window)
            return f"back to {where} after its probe" + (f", window {window}" if window else "")
        return f"{kind} at {where}"

    def _enter(self, event: Event, where: str) -> str:
        if event.player == TERMINAL:
            text = f"enter {where}: the end of the game"
        elif event.player == CHANCE:
            text = f"enter {where}: a chance node"
        else:
            text = f"enter {where}: {self.mover(event)} to move"
        if event.probability is not None:
            text += f" (probability {format_value(event.probability)})"
        window = self.window(event.window)
        if window:
            text += f", window {window}"
        if event.cap is not None:
            parent, limit, strict = event.cap
            text += (f"; it stops once {self.mover(event)} gets "
                     f"{'more than' if strict else 'at least'} {format_value(limit)} "
                     f"({self.players[parent]} above already has a child worth "
                     f"{self._complement(limit)} to it)")
        if event.again:
            text += " — searched again, with a wider window"
        return text

    def _complement(self, limit: Any) -> str:
        info = self.game.info
        total = 0 if info.utility_sum is None else info.utility_sum
        return format_value(total - limit)

    def _term(self, value: Any) -> str:
        if isinstance(value, tuple):
            return "(" + ", ".join(format_value(v) for v in value) + ")"
        text = format_value(value)
        return f"({text})" if text.startswith("-") or "/" in text else text

    def _bound_note(self, bound: str | None) -> str:
        if bound == UPPER:
            return " (at most that: it is at or below α, so the node matters no further)"
        if bound == LOWER:
            return " (at least that: it is at or above β, so the node matters no further)"
        if bound == PARTIAL:
            return " (cut short: the player above will not choose it)"
        return ""

    def _cutoff(self, event: Event, where: str) -> str:
        test, v, limit = event.test, event.value, event.limit
        first = self.first
        second = self.players[1] if not self.paranoid else "the coalition"
        vt = format_value(v) if v is not None and not isinstance(v, tuple) else str(v)
        lt = end_text(limit) if limit is not None else "?"
        after = self.name(event.action) if event.action is not None else None
        if test == BETA:
            why = (f"{first} can get {vt} ≥ β = {lt} here, and {second} can already hold "
                   f"{first} to β elsewhere")
        elif test == ALPHA:
            why = (f"{second} can hold {first} to {vt} ≤ α = {lt} here, and {first} can "
                   "already get α elsewhere")
        elif test == STAND_PAT:
            why = f"the evaluation {vt} already reaches {lt}"
        elif test == BEST_POSSIBLE:
            why = f"{self.mover(event)} already has the best value the utility bounds allow"
        elif test == CHANCE_LOW:
            why = (f"outcome {after} gives {vt} ≤ {lt}: even if every outcome left gave "
                   f"{first} the most, the average stays at or below α")
        elif test == CHANCE_HIGH:
            why = (f"outcome {after} gives {vt} ≥ {lt}: even if every outcome left gave "
                   f"{first} the least, the average is at or above β")
        elif test in (PROBE_HIGH, PROBE_LOW):
            side = "at or above β" if test == PROBE_HIGH else "at or below α"
            why = (f"the probes (each outcome's first reply) already put the average {side}")
        elif test == SHALLOW:
            why = (f"{self.mover(event)} gets {vt}, at least {lt}: the player above cannot gain "
                   "from this node any more (shallow pruning)")
        else:
            why = f"{test}: {vt} against {lt}"
        skipped = ", ".join(self.name(a) for a in event.skipped)
        text = f"cut-off at {where}"
        if after is not None and test not in (CHANCE_LOW, CHANCE_HIGH):
            text += f" after {after}"
        text += f": {why}"
        return text + (f"; pruned: {skipped}" if skipped else "; (no child was left to prune)")

    # -- JSON -----------------------------------------------------------------------------------

    def event_json(self, index: int, event: Event) -> dict[str, Any]:
        out: dict[str, Any] = {"step": index + 1, "kind": event.kind, "node": event.node,
                               "path": [self.name(a) for a in event.path],
                               "depth": len(event.path)}
        if event.player is not None:
            out["player"] = (self.mover(event) if event.player >= 0 else
                             "chance" if event.player == CHANCE else "terminal")
        if event.window is not None:
            out["window"] = [end_json(event.window[0]), end_json(event.window[1])]
        if event.probability is not None:
            out["probability"] = json_value(event.probability)
        if event.again:
            out["again"] = True
        if event.cap is not None:
            out["cap"] = {"player": self.players[event.cap[0]],
                          "limit": json_value(event.cap[1]), "strict": event.cap[2]}
        if event.values is not None:
            out["values"] = [json_value(v) for v in event.values]
        if event.bound is not None:
            out["bound"] = event.bound
        if event.evaluated:
            out["evaluated"] = True
        if event.kind == EXIT and event.action is not None:
            out["best"] = self.name(event.action)
        if event.kind == CUTOFF:
            out["test"] = event.test
            out["value"] = json_value(event.value) if event.value is not None else None
            out["limit"] = end_json(event.limit) if event.limit is not None else None
            out["after"] = self.name(event.action) if event.action is not None else None
            out["skipped"] = [self.name(a) for a in event.skipped]
        if event.kind == PROBE:
            out["floor"] = json_value(event.limit) if event.limit is not None else None
        if event.terms:
            out["terms"] = [{"outcome": self.name(a), "probability": json_value(p),
                             "value": ([json_value(x) for x in v] if isinstance(v, tuple)
                                       else json_value(v))} for a, p, v in event.terms]
        out["text"] = self.describe(event)
        return out


def heading(traced: TracedSearch) -> str:
    """What was searched, how, and what it found."""
    result = traced.result
    info = traced.game.info
    settings = traced.settings
    how = [traced.algorithm]
    if traced.algorithm == "alphabeta":
        how.append("with a transposition table" if settings.get("table") else "no table")
        how.append("ordered moves" if settings.get("ordering") else "children in rule order")
        how.append("the root proves every optimal action" if settings.get("all_best")
                   else "the textbook's root (one best action)")
    elif settings.get("table"):
        how.append("with a transposition table")
    if settings.get("shallow_pruning"):
        how.append("shallow pruning")
    if traced.algorithm == "paranoid":
        how.append(f"for {traced.players[settings.get('player', 0)]}")
    if settings.get("depth") is not None:
        how.append(f"depth {settings['depth']}")
    values = ", ".join(f"{p} {format_value(v)}" for p, v in zip(info.players, result.values))
    if traced.algorithm == "paranoid":
        values = (f"{traced.players[settings.get('player', 0)]} can guarantee "
                  f"{format_value(result.extra['paranoid_value'])}")
    best = " ".join(str(traced.game.action_name(a)) for a in result.best_actions)
    lines = [f"{info.name}: {', '.join(how)}",
             f"value {values}" + (f"; best: {best}" if best else "")
             + f"; {result.stats.nodes:,} node(s), {len(traced.events):,} event(s)"]
    if len(info.players) == 2 or traced.algorithm == "paranoid":
        first = traced.players[settings.get("player", 0)] if traced.algorithm == "paranoid" \
            else info.players[0]
        lines.append(f"values and windows (α, β) are {first}'s")
    lines.extend(f"note: {n}" for n in traced.notes)
    return "\n".join(lines)


def trace_json(traced: TracedSearch) -> dict[str, Any]:
    """The whole trace, for scripts and the web page: the search, its answer, every event (with
    its words in ``text``)."""
    narrator = Narrator(traced)
    result = traced.result
    info = traced.game.info
    document: dict[str, Any] = {
        "game": info.name,
        "players": list(info.players),
        "algorithm": traced.algorithm,
        "settings": {k: v for k, v in traced.settings.items() if v is not None},
        "solver": "python",
        "values": {p: json_value(v) for p, v in zip(info.players, result.values)},
        "best_actions": [str(traced.game.action_name(a)) for a in result.best_actions],
        "nodes": result.stats.nodes,
        "notes": list(traced.notes),
        "events": [narrator.event_json(i, e) for i, e in enumerate(traced.events)],
    }
    if traced.algorithm == "paranoid":
        document["paranoid_value"] = json_value(result.extra["paranoid_value"])
    return document


@dataclass
class Cursor:
    """A position in a list of events: ``at`` events have been shown (0: none yet)."""

    total: int
    at: int = 0

    def forward(self) -> bool:
        if self.at >= self.total:
            return False
        self.at += 1
        return True

    def back(self) -> bool:
        if self.at <= 0:
            return False
        self.at -= 1
        return True

    def to_end(self) -> None:
        self.at = self.total

    @property
    def done(self) -> bool:
        return self.at >= self.total
