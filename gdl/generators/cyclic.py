"""Hypothesis strategies for games that can repeat a position, for the strong solver.

Two generators of two-player constant-sum games with cycles (the tree solvers cannot take them):
``cyclic_graphs()``, explicit graphs of a few positions, any shape (with chance, plays that may
never end, a declared value for endless play), each also written as a rule file; and
``cyclic_rule_games()``, small rule files of counters that go up and down, so positions repeat
the way they do in real rule files. Both print as rule files, and what a failure shows is that
text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from hypothesis import strategies as st

from gdl.protocol import CHANCE, CONSTANT_SUM, TERMINAL, ZERO_SUM, GameInfo, Value

_ENDLESS_CHOICES = {
    # player 0's utility for endless play, by the kind of utilities: the equal share first
    # (`when endless draw`), then values at an end, between ends and outside them
    "margins": (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-3, 2),
                Fraction(2), Fraction(-2)),
    "win-lose": (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2)),
    "constant-sum": (Fraction(1, 2), Fraction(0), Fraction(1), Fraction(1, 3)),
}
_OUTCOMES = {"margins": (tuple(range(-2, 3)), 0), "win-lose": ((-1, 1), 0),
             "constant-sum": ((0, 1), 1)}
OUTCOME_KINDS = tuple(_OUTCOMES)


def _rational(v: Fraction) -> str:
    v = Fraction(v)
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _endless_lines(endless: Fraction | None, total: int) -> list[str]:
    if endless is None:
        return []
    if endless * 2 == total:
        return ["when endless draw"]
    return [f"when endless ({_rational(endless)}, {_rational(total - endless)})"]


def _sum_line(total: int) -> str:
    return "zero-sum" if total == 0 else f"constant-sum {total}"


class GeneratedGraph:
    """A two-player constant-sum game given as an explicit graph, cycles allowed: node ``s`` is
    a decision of player ``kinds[s]`` (0 or 1), a chance node (CHANCE) or an end (TERMINAL); the
    start is node 0, a decision. A decision's actions ``move(0)``, ``move(1)``, ... lead to
    ``moves[s]`` (two may lead to the same node); a chance node's outcomes ``r=0``, ``r=1``, ...
    to ``moves[s]`` with probabilities proportional to ``weights[s]``; an end gives player 0
    ``payoff[s]`` and player 1 ``total - payoff[s]``. ``endless``: player 0's utility for a play
    that never ends, where declared.

    States are the node numbers. ``text`` is the same game as a rule file (the node in a
    variable, the moves and probabilities in tables) and ``load(backend)`` builds it, so the
    graphs go through the front end and every back end too; its positions are not numbered the
    same (a chance node is the state after the move into it), but every value is the same."""

    def __init__(self, kinds, moves, weights, payoff, total: int = 0, endless=None,
                 name: str = "generated graph"):
        self.kinds, self.moves = tuple(kinds), tuple(tuple(m) for m in moves)
        self.weights = tuple(tuple(w) for w in weights)
        self.payoff, self.total = tuple(payoff), total
        self.endless = None if endless is None else Fraction(endless)
        endless_value = None if self.endless is None else (_plain(self.endless),
                                                           _plain(total - self.endless))
        self.info = GameInfo(
            name=name, players=("P0", "P1"), has_chance=CHANCE in self.kinds,
            sum_kind=ZERO_SUM if total == 0 else CONSTANT_SUM,
            utility_sum=None if total == 0 else total,
            endless_value=endless_value)
        self._games: dict = {}

    # ---- the protocol
    def initial_state(self) -> int:
        return 0

    def current_player(self, state: int) -> int:
        return self.kinds[state]

    def legal_actions(self, state: int) -> tuple:
        return tuple(("move", k) for k in range(len(self.moves[state])))

    def chance_outcomes(self, state: int) -> tuple:
        whole = sum(self.weights[state])
        return tuple((("r", k), Fraction(w, whole)) for k, w in enumerate(self.weights[state]))

    def apply(self, state: int, action) -> int:
        return self.moves[state][action[1]]

    def returns(self, state: int) -> tuple:
        u = self.payoff[state]
        return (u, self.total - u)

    def action_name(self, action) -> str:
        kind, k = action
        return f"move({k})" if kind == "move" else f"r={k}"

    def is_quiet(self, state: int) -> bool:
        return True

    # ---- as a rule file
    @property
    def text(self) -> str:
        from gdl.lang.format import format_text
        codes = [2 if k == CHANCE else 3 if k == TERMINAL else k for k in self.kinds]
        width = max(1, max(len(m) for m in self.moves))

        def table(rows) -> str:
            return "[" + ", ".join("[" + ", ".join(map(str, list(r) + [0] * (width - len(r))))
                                   + "]" for r in rows) + "]"

        has_chance = 2 in codes
        lines = [f'game "{self.info.name}"', "players P0, P1",
                 f"const kind = [{', '.join(map(str, codes))}]",
                 f"const degree = [{', '.join(str(len(m)) for m in self.moves)}]",
                 f"const succ = {table(self.moves)}",
                 f"const pay = [{', '.join(map(str, self.payoff))}]"]
        if has_chance:
            lines += [f"const weight = {table(self.weights)}",
                      f"const weights = [{', '.join(str(sum(w) or 1) for w in self.weights)}]"]
        lines.append(f"var at in 0..{len(self.kinds) - 1} = 0")
        if self.kinds[0] == 1:
            lines.append("init { next P1 }")
        effect = ["at = succ[at][k];"]
        if has_chance:
            outcomes = ", ".join(f"{r}: weight[at][{r}] / weights[at]" for r in range(width))
            effect.append(f"if kind[at] == 2 {{ random r in {{{outcomes}}}; at = succ[at][r] }}")
        effect.append("if kind[at] == 1 { next P1 } else { next P0 }")
        lines += [f"action move(k in 0..{width - 1})", "    requires k < degree[at]",
                  "    effect " + " ".join(effect),
                  "terminal kind[at] == 3", "utility P0 = pay[at]", _sum_line(self.total)]
        lines += _endless_lines(self.endless, self.total)
        return format_text("\n".join(lines) + "\n", "<generated>")

    def load(self, backend: str = "interpret"):
        """The rule file's game, built by ``backend``."""
        if backend not in self._games:
            from gdl.backends.load import loads

            self._games[backend] = loads(self.text, "<generated>", backend=backend)
        return self._games[backend]

    def __repr__(self) -> str:
        parts = []
        for s, kind in enumerate(self.kinds):
            if kind == TERMINAL:
                parts.append(f"{s}: end {self.payoff[s]}")
            elif kind == CHANCE:
                parts.append(f"{s}: ?[" + ", ".join(f"{t} {w}" for t, w in
                                                    zip(self.moves[s], self.weights[s])) + "]")
            else:
                parts.append(f"{s}: P{kind}{list(self.moves[s])}")
        tail = "" if self.endless is None else f"; endless {_rational(self.endless)}"
        return f"GeneratedGraph({'; '.join(parts)}; sum {self.total}{tail})"


def _plain(v: Fraction) -> Value:
    return v.numerator if v.denominator == 1 else v


@st.composite
def cyclic_graphs(draw, chance: bool | None = False, stopping: bool = False,
                  endless: bool | None = None, outcomes: str | None = None,
                  max_deciders: int = 5) -> GeneratedGraph:
    """Small explicit graphs with cycles (most of them): 1 to ``max_deciders`` decision nodes
    of either player (node 0 among them), 1 to 3 chance nodes with ``chance`` (None: drawn), 1
    to 3 ends. A decision has 1 to 3 moves to any node; a chance node 1 to 3 outcomes (weights
    1 to 3) to decisions or ends. With ``stopping`` (and chance), every decision leads to a
    chance node and every chance node may end the game, so every play ends with probability 1;
    without it the players may be able to keep a play going for ever. ``outcomes``: the ends'
    utilities, "margins" (-2..2, zero-sum), "win-lose" (±1, zero-sum) or "constant-sum" (0 or
    1, summing to 1); None: drawn. ``endless``: whether the game declares a value for endless
    play (None: drawn), drawn among the equal share, values at an end, between ends and beyond
    them. Everything shrinks towards fewer nodes, fewer moves and no declaration."""
    kind_name = OUTCOME_KINDS[draw(st.integers(0, len(OUTCOME_KINDS) - 1))] \
        if outcomes is None else outcomes
    values, total = _OUTCOMES[kind_name]
    has_chance = draw(st.booleans()) if chance is None else chance
    deciders = draw(st.integers(1, max_deciders))
    chances = draw(st.integers(1, 3)) if has_chance else 0
    ends = draw(st.integers(1, 3))
    kinds = [draw(st.integers(0, 1)) for _ in range(deciders)] + [CHANCE] * chances \
        + [TERMINAL] * ends
    chance_ids = list(range(deciders, deciders + chances))
    end_ids = list(range(deciders + chances, len(kinds)))
    targets = chance_ids if has_chance and stopping else list(range(len(kinds)))
    settle = list(range(deciders)) + end_ids          # where chance leads
    moves: list[list[int]] = []
    weights: list[list[int]] = []
    payoff = [0] * len(kinds)

    def pick(pool):
        return pool[draw(st.integers(0, len(pool) - 1))]

    for s, kind in enumerate(kinds):
        if kind == TERMINAL:
            payoff[s] = pick(values)
            moves.append([])
            weights.append([])
        elif kind == CHANCE:
            out = [pick(end_ids)] if stopping else []
            out += [pick(settle) for _ in range(draw(st.integers(0 if out else 1, 3 - len(out))))]
            moves.append(out)
            weights.append([draw(st.integers(1, 3)) for _ in out])
        else:
            moves.append([pick(targets) for _ in range(draw(st.integers(1, 3)))])
            weights.append([])
    # every decision and chance node reachable from the start (so the graphs are as big as
    # drawn): each one is also the target of a move of an earlier node that can lead to it
    kept = {(s, 0) for s in chance_ids} if stopping else set()   # a stopping game's ends

    def lead(node: int, pool: list[int]) -> None:
        source = pool[draw(st.integers(0, len(pool) - 1))]
        if node in moves[source]:
            kept.add((source, moves[source].index(node)))
            return
        free = [i for i in range(len(moves[source])) if (source, i) not in kept]
        if free:        # replace a move that no earlier node needs
            at = free[draw(st.integers(0, len(free) - 1))]
            moves[source][at] = node
        else:
            at = len(moves[source])
            moves[source].append(node)
            if kinds[source] == CHANCE:
                weights[source].append(draw(st.integers(1, 3)))
        kept.add((source, at))

    for c in chance_ids:                       # chance nodes are entered by decisions only
        lead(c, list(range(deciders)))
    for d in range(1, deciders):
        lead(d, chance_ids if has_chance and stopping else list(range(d)))
    declared = None
    if draw(st.booleans()) if endless is None else endless:
        declared = pick(_ENDLESS_CHOICES[kind_name])
    # only the nodes the start reaches, numbered in their order: the same game, read at a glance
    order = [0]
    for s in order:
        order += [t for t in dict.fromkeys(moves[s]) if t not in order]
    order.sort()            # node 0 stays the start; the order of kinds is kept
    number = {s: i for i, s in enumerate(order)}
    return GeneratedGraph([kinds[s] for s in order], [[number[t] for t in moves[s]] for s in order],
                          [weights[s] for s in order], [payoff[s] for s in order], total, declared)


@dataclass
class GeneratedCyclicRules:
    """A generated rule file that can repeat positions: its text, and the game built from it."""

    text: str
    _games: dict = field(default_factory=dict, repr=False, compare=False)

    def load(self, backend: str = "interpret"):
        """The game, built by ``backend`` ("interpret", "compile" or "native")."""
        if backend not in self._games:
            from gdl.backends.load import loads

            self._games[backend] = loads(self.text, "<generated>", backend=backend)
        return self._games[backend]

    @property
    def game(self):
        return self.load("interpret")

    def __repr__(self) -> str:
        return "GeneratedCyclicRules(\n" + self.text + ")"


@st.composite
def cyclic_rule_games(draw, chance: bool | None = None, endless: bool | None = None,
                      outcomes: str | None = None) -> GeneratedCyclicRules:
    """Small two-player rule files whose positions repeat: a counter ``x`` that actions move up
    and down (taken modulo its range, or held in it with ``min``/``max``), perhaps a second one
    ``y`` and a flag ``f``, actions restricted to a player (``by``) or a condition, effects with
    ``if``/``else``, ``next mover`` (an extra turn) and, with ``chance`` (None: drawn), a
    ``random`` event; a terminal condition, utilities of the kind ``outcomes`` ("margins",
    "win-lose", "constant-sum"; None: drawn), and perhaps (``endless``, None: drawn) `when
    endless draw` or `when endless (u, v)`. Nothing bounds the length of a play, and the first
    action is open to both players always, so nobody is ever stuck. With chance the game stays
    small (one counter, few moves) so that a brute force over strategy profiles can check it."""
    def pick(options):
        options = tuple(options)
        return options[draw(st.integers(0, len(options) - 1))]

    kind_name = pick(OUTCOME_KINDS) if outcomes is None else outcomes
    _, total = _OUTCOMES[kind_name]
    has_chance = draw(st.booleans()) if chance is None else chance
    top = draw(st.integers(1, 2 if has_chance else 3))          # x in 0..top
    tops = {"x": top}
    if not has_chance and draw(st.booleans()):
        tops["y"] = draw(st.integers(1, 2))
    has_flag = not has_chance and draw(st.booleans())
    names = list(tops)

    def number(name: str) -> int:
        return draw(st.integers(0, tops[name]))

    def condition(depth: int = 0) -> str:
        kinds = ["compare", "compare", "mover"] + (["flag"] if has_flag else []) \
            + (["and", "or"] if depth == 0 else [])
        kind = pick(kinds)
        if kind == "compare":
            name = pick(names)
            return f"{name} {pick(['==', '!=', '<=', '>=', '<', '>'])} {number(name)}"
        if kind == "mover":
            return f"mover {pick(['==', '!='])} {pick(['P0', 'P1'])}"
        if kind == "flag":
            return pick(["f", "not f"])
        return f"({condition(1)}) {kind} ({condition(1)})"

    def step(name: str, amount: str) -> str:
        """``name`` moved by ``amount``, staying in its range."""
        size = tops[name] + 1
        how = pick(["wrap up", "wrap down", "up", "down"])
        if how == "wrap up":
            return f"{name} = ({name} + {amount}) % {size}"
        if how == "wrap down":
            return f"{name} = ({name} + {size} - {amount}) % {size}"
        if how == "up":
            return f"{name} = min({name} + {amount}, {tops[name]})"
        return f"{name} = max({name} - {amount}, 0)"

    def statement(depth: int = 0) -> str:
        kinds = ["step", "step", "set"] + (["flag"] if has_flag else []) \
            + (["if", "extra turn"] if depth == 0 else [])
        kind = pick(kinds)
        if kind == "step":
            return step(pick(names), str(draw(st.integers(1, 2))))
        if kind == "set":
            name = pick(names)
            return f"{name} = {number(name)}"
        if kind == "flag":
            return pick(["f = not f", f"f = {condition(1)}"])
        if kind == "extra turn":
            return f"if {condition(1)} {{ next mover }}"
        otherwise = f" else {{ {statement(1)} }}" if draw(st.booleans()) else ""
        return f"if {condition(1)} {{ {statement(1)} }}{otherwise}"

    def chance_event() -> list[str]:
        if draw(st.booleans()):
            low = draw(st.integers(0, 1))
            event = f"random r in {low}..{low + 1}"
        else:
            first = draw(st.integers(1, 3))
            event = f"random r in {{0: {first}/4, 1: {4 - first}/4}}"
        return [event, step("x", "r")]

    lines = ['game "generated cyclic"', "players P0, P1"]
    lines += [f"var {name} in 0..{tops[name]} = {number(name)}" for name in names]
    if has_flag:
        lines.append("var f in bool = false")
    widest = draw(st.integers(1, 2))
    first = [step("x", "k")] + ([statement()] if draw(st.booleans()) else [])
    events = 0
    if has_chance and draw(st.booleans()):
        first += chance_event()
        events += 1
    lines.append(f"action a0(k in 1..{widest}) effect {'; '.join(first)}")
    for index in range(1, draw(st.integers(1, 2 if has_chance else 3)) + 1):
        header = f"action a{index}"
        if draw(st.booleans()):
            header += f" by {pick(['P0', 'P1'])}"
        if draw(st.booleans()):
            header += f" requires {condition()}"
        body = [statement() for _ in range(draw(st.integers(1, 2)))]
        if has_chance and (events == 0 or draw(st.booleans())):
            body += chance_event()
            events += 1
        lines.append(f"{header} effect {'; '.join(body)}")
    start = int(lines[2].rsplit("=", 1)[1])                   # x's initial value
    end = pick([c for c in range(top + 1) if c != start])      # so the start is not an end
    terminal = [f"x == {end}", f"x == {end} and ({condition(1)})", f"x == {end} or ({condition(1)})"]
    lines.append(f"terminal {pick(terminal)}")
    if kind_name == "margins":
        base = pick(["x - {c}", "{c} - x", "x - y" if "y" in tops else "x - {c}",
                     "(x + 1) * (1 if mover == P0 else -1)"]).format(c=number("x"))
        lines.append(f"utility P0 = max(-2, min(2, {base}))")
    elif kind_name == "win-lose":
        lines.append(f"utility P0 = 1 if {condition()} else -1")
    else:
        lines.append(f"utility P0 = 1 if {condition()} else 0")
    lines.append(_sum_line(total))
    if draw(st.booleans()) if endless is None else endless:
        lines += _endless_lines(pick(_ENDLESS_CHOICES[kind_name]), total)
    from gdl.lang.format import format_text

    return GeneratedCyclicRules(format_text("\n".join(lines) + "\n", "<generated>"))
