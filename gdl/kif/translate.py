"""A checked KIF description → an equivalent rule file of gdl's own language (``.game`` text),
which gdl's checker, compilers and solvers then take as they take any rule file.

The rules are grounded (gdl.kif.ground) and what the translation relies on is proved first
(gdl.kif.analysis): the state variables (a group of propositions that holds one value at a
time becomes one variable), the passive moves, and that the turns alternate. Then:

- each state-dependent relation instance (``(line x)``, ``(legal x (place 1 1))``) becomes a
  ``define`` over the variables;
- each move becomes an ``action`` whose ``requires`` is its legality, and whose ``effect``
  assigns the variables that ``next`` changes when that move is made, the other roles playing
  their only legal move. Each ``next`` is simplified under what the move's legality implies, so
  a variable the move cannot change is not assigned at all;
- the player to move is computed from the new state (``next to_move``): the role with a
  non-passive legal move (the proof that the turns alternate says there is at most one);
- ``terminal`` is the terminal relation, each role's utility its goal value (0..100).

A description that cannot be translated (a relation that depends on itself through the state,
turns that could not be proved to alternate, a grounding too large) raises NotTranslatable with
the reason; gdl then runs it with the Datalog interpreter (gdl.kif.interpreter).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gdl.kif import datalog
from gdl.kif.analysis import WHOLE, Analysis, analyse, prop_of, value_of
from gdl.kif.check import Description
from gdl.kif.ground import GroundGame, TooLarge, ground
from gdl.kif.names import Names, identifier, term_identifier
from gdl.kif.terms import is_integer, kif_text, order_key, relation

LINE = 100            # wrap long expressions near this column
MAX_TEXT = 900_000    # characters of translated rules (gdl reads rule files up to 1,000,000)
INLINE_VIEW = 48      # a view whose definition is at most this big is looked into when simplifying


class NotTranslatable(Exception):
    """The description is sound but not translated: the reason is the message. ``read`` is
    the interpreter's game (gdl.kif.interpreter.KifGame, not yet walked) where it was built
    on the way, so that the interpreter, which runs the game instead, need not start over."""

    read: Any = None


@dataclass
class Translation:
    text: str                                   # the rule file, in gdl's language
    move_names: dict = field(default_factory=dict)   # KIF move -> action name
    role_names: dict = field(default_factory=dict)   # role -> player name
    ground: GroundGame | None = None
    analysis: Analysis | None = None
    # variable -> the propositions it stands for: {value as the rule file shows it: proposition}
    variables: dict = field(default_factory=dict)

    def facts(self, values: dict) -> frozenset:
        """The KIF state (its true base propositions) of a translated state, given its
        variables' values by name (``game.variables(state)``)."""
        found = set()
        for name, value in values.items():
            props = self.variables.get(name)
            if props is not None:
                prop = props.get(str(value).lower() if isinstance(value, bool) else str(value))
                if prop is not None:
                    found.add(prop)
        return frozenset(found)


def translate(description: Description, static: datalog.Facts, name: str,
              origin: str = "") -> Translation:
    try:
        grounded = ground(description, static)
    except TooLarge as large:
        raise NotTranslatable(str(large)) from None
    cycles = _cycles(grounded, description.on_moves)
    analysis = analyse(grounded)
    if not analysis.alternating:
        raise NotTranslatable(analysis.why_not)
    return _Writer(description, grounded, analysis, name, origin, cycles).write()


UNROLLED = 60_000     # atoms times levels, for all the cycles together


def _cycles(grounded: GroundGame, moving: set[str]) -> dict:
    """Ground atoms that depend on themselves (through the state: a path, a group of stones),
    each with the atoms of its cycle. A recursive relation whose instances do not form cycles
    (``(openPath a b)`` from ``(openPath a c)``, c nearer to b) needs nothing: every instance
    is a define of its own. Cycles are unrolled: the least fixpoint of n atoms is reached in n
    rounds, so each atom gets n levels, each reading the level before."""
    graph: dict = {}
    for atom, bodies in grounded.rules.items():
        graph[atom] = {a: False for body in bodies for _, a in body if a in grounded.rules}
    found: dict = {}
    total = 0
    for component in datalog.components(graph):
        if len(component) == 1 and component[0] not in graph.get(component[0], {}):
            continue
        members = frozenset(component)
        names = sorted({relation(a) for a in members})
        if any(n in moving for n in names):
            raise NotTranslatable(f"{', '.join(f'`{n}`' for n in names)} depend on themselves "
                                  "through the moves, in a cycle")
        total += len(members) ** 2
        if total > UNROLLED:
            raise NotTranslatable(f"{', '.join(f'`{n}`' for n in names)} depend on themselves "
                                  f"through the state in a cycle of {len(members):,} instances, "
                                  "too many to unroll")
        for atom in members:
            found[atom] = members
    return found


# ---- expressions -----------------------------------------------------------------------------------
# ("T",) true, ("F",) false, ("p", prop) a proposition of the state, ("v", atom) a view of the
# state (a define), ("d", role, move) a move, ("not", e), ("and", parts), ("or", parts)

TRUE, FALSE = ("T",), ("F",)
MAX_LETS = 200       # `let` statements in one effect (each nests the rest: see statements)
CHAIN = 16           # terms of one `and`/`or` chain before it is bracketed in parts
LEVEL = "@round"     # (LEVEL, atom, k): round k of an atom of a cycle (see _cycles)


def _and(parts) -> tuple:
    kept = []
    for part in parts:
        if part == FALSE:
            return FALSE
        if part == TRUE:
            continue
        for piece in (part[1] if part[0] == "and" else (part,)):
            if piece not in kept:
                kept.append(piece)
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else ("and", tuple(kept))


def _or(parts) -> tuple:
    kept = []
    for part in parts:
        if part == TRUE:
            return TRUE
        if part == FALSE:
            continue
        for piece in (part[1] if part[0] == "or" else (part,)):
            if piece not in kept:
                kept.append(piece)
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else ("or", tuple(kept))


def _not(part) -> tuple:
    if part == TRUE:
        return FALSE
    if part == FALSE:
        return TRUE
    if part[0] == "not":
        return part[1]
    return ("not", part)


def _factored(e) -> tuple:
    """An `or` of `and`s with the literals all of them share taken out:
    ``(a and b) or (a and c)`` is ``a and (b or c)`` (shorter to read, and to evaluate)."""
    if e[0] != "or":
        return e
    conjuncts = [part[1] if part[0] == "and" else (part,) for part in e[1]]
    common = [c for c in conjuncts[0] if all(c in others for others in conjuncts[1:])]
    if not common:
        return e
    rest = [_and(c for c in parts if c not in common) for parts in conjuncts]
    return _and(common + [_factored(_or(rest))])


def _size(e, limit: int) -> int:
    """The number of nodes of ``e``, counting at most to ``limit``."""
    count, stack = 0, [e]
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        if node[0] in ("and", "or"):
            stack.extend(node[1])
        elif node[0] == "not":
            stack.append(node[1])
    return count


class _Writer:
    def __init__(self, description: Description, grounded: GroundGame, analysis: Analysis,
                 name: str, origin: str, cycles: dict | None = None):
        self.cycles = cycles or {}
        self.description = description
        self.g = grounded
        self.a = analysis
        self.name = name
        self.origin = origin
        self.moving = description.on_moves          # relations that read `does`
        self.names = Names()
        self._expr_cache: dict = {}
        self._reads: dict = {}
        self.used_views: set = set()
        self._extra: list[str] = []
        self._int_groups: dict = {}
        self._tables: dict = {}
        self._written = 0
        self._extra_names: set[str] = set()

    # ---- names ---------------------------------------------------------------------------------

    def symbol(self, constant) -> str:
        return self.names.name(("symbol", constant), lambda: term_identifier(constant))

    def group_var(self, key) -> str:
        functor, _position, rest = key
        return self.names.name(("var", key),
                               lambda: term_identifier((functor,) + rest if rest else functor))

    def bool_var(self, prop) -> str:
        return self.names.name(("var", prop), lambda: term_identifier(prop))

    def define_name(self, atom) -> str:
        if isinstance(atom, tuple) and atom[0] == LEVEL:      # a level of an unrolled cycle
            return self.names.name(("define", atom),
                                   lambda: f"{term_identifier(atom[1])}_round{atom[2]}")
        return self.names.name(("define", atom), lambda: term_identifier(atom))

    def value_text(self, key, value) -> str:
        if key[1] == WHOLE:          # (turn white move) as the symbol white_move
            return self.names.name(("symbol", value), lambda: term_identifier(value[1:]))
        return value if self.int_group(key) else self.symbol(value)

    def int_group(self, key) -> bool:
        known = self._int_groups.get(key)
        if known is None:
            known = self._int_groups[key] = all(is_integer(v) for v in self.a.groups[key])
        return known

    def none_value(self, key) -> str:
        if self.int_group(key):
            return str(min(int(v) for v in self.a.groups[key]) - 1)
        return self.names.name(("no value",), "none")      # not the KIF constant none

    # ---- building expressions -------------------------------------------------------------------

    def view(self, atom, within: frozenset | None = None, level: int = 0) -> tuple:
        """The expression that reads a view: its define, or for an atom of a cycle the last
        round (read from inside its own cycle at round ``level``: the round before)."""
        members = self.cycles.get(atom)
        if members is None:
            return ("v", atom)
        if within is members:
            return ("v", (LEVEL, atom, level - 1)) if level > 1 else FALSE
        return ("v", (LEVEL, atom, len(members)))

    def literal(self, positive: bool, atom, within=None, level: int = 0) -> tuple:
        name = relation(atom)
        if name == "true":
            node: tuple = ("p", atom[1])
        elif name == "does":
            node = ("d", atom[1], atom[2])
        elif name in self.moving:
            node = self.moving_view(atom)
        else:
            node = self.view(atom, within, level)
        return node if positive else _not(node)

    def bodies_expr(self, atom, within=None, level: int = 0) -> tuple:
        return _factored(_or(_and(self.literal(p, a, within, level) for p, a in body)
                             for body in self.g.bodies(atom)))

    def moving_view(self, atom) -> tuple:
        """A view that reads the moves is expanded where it is used (a define cannot read them)."""
        cached = self._expr_cache.get(("moving", atom))
        if cached is None:
            self._expr_cache[("moving", atom)] = FALSE   # no recursion through the state here
            cached = self.bodies_expr(atom)
            self._expr_cache[("moving", atom)] = cached
        return cached

    def definition(self, atom) -> tuple:
        cached = self._expr_cache.get(("view", atom))
        if cached is None:
            if isinstance(atom, tuple) and atom[0] == LEVEL:
                _, inner, level = atom
                cached = self.bodies_expr(inner, self.cycles[inner], level)
            else:
                cached = self.bodies_expr(atom)
            self._expr_cache[("view", atom)] = cached
        return cached

    # ---- simplifying under what is known -----------------------------------------------------------

    def knowledge(self, role, move) -> dict:
        """What holds wherever ``role`` may make ``move``: the literals its legality implies,
        with every other value of a group whose value is known."""
        closed = self._prover.implied(("legal", role, move))
        known: dict = {}
        for key, props in closed.values.items():
            for value in self.a.groups[key]:
                if self.prop_of(key, value) not in props:
                    known[("p", self.prop_of(key, value))] = False
        for positive, atom in closed.literals:
            if relation(atom) == "true":
                known[("p", atom[1])] = positive
                key = self.a.group_of.get(atom[1])
                if positive and key is not None:
                    for value in self.a.groups[key]:
                        other = self.prop_of(key, value)
                        if other != atom[1]:
                            known[("p", other)] = False
            elif relation(atom) != "does":
                known[("v", atom)] = positive
        return known

    def prop_of(self, key, value):
        return prop_of(key, value)

    def simplify(self, e, known: dict, moves, memo: dict) -> tuple:
        """``e`` with what ``known`` says folded in; ``moves(role, move)`` gives what a move
        literal is in this action (TRUE, FALSE or an expression of the state)."""
        kind = e[0]
        if kind in ("T", "F"):
            return e
        if kind == "p":
            value = known.get(e)
            return e if value is None else (TRUE if value else FALSE)
        if kind == "d":
            return self.simplify(moves(e[1], e[2]), known, moves, memo)
        if kind == "v":
            value = known.get(e)
            if value is not None:
                return TRUE if value else FALSE
            if e in memo:
                return memo[e]
            memo[e] = e
            definition = self.definition(e[1])
            result = e
            if definition in (TRUE, FALSE):
                result = definition
            elif _size(definition, INLINE_VIEW) <= INLINE_VIEW:
                folded = self.simplify(definition, known, moves, memo)
                if folded in (TRUE, FALSE):
                    result = folded
            memo[e] = result
            return result
        if kind == "not":
            return _not(self.simplify(e[1], known, moves, memo))
        # a node of the rules' expressions (never one built here) is simplified once per action:
        # the views that read the moves are shared by many propositions
        done = memo.get(id(e))
        if done is not None:
            return done
        stop = FALSE if kind == "and" else TRUE
        parts = []
        for part in e[1]:
            simple = self.simplify(part, known, moves, memo)
            if simple == stop:
                parts = [stop]
                break
            parts.append(simple)
        result = _and(parts) if kind == "and" else _or(parts)
        memo[id(e)] = result
        return result

    # ---- writing ---------------------------------------------------------------------------------

    def write(self) -> Translation:
        self._prover = self.a.prover      # type: ignore[attr-defined]

        roles = self.g.roles
        role_names = {role: self.names.name(("symbol", role), identifier(role)) for role in roles}
        for key in self.a.groups:
            for value in self.a.groups[key]:
                if not self.int_group(key):
                    self.value_text(key, value)
        out: list[str] = []
        origin = f" from {self.origin}" if self.origin else ""
        out.append(f"# Translated{origin} by gdl from GDL-KIF: every rule grounded, each group of")
        out.append("# propositions that holds one value at a time as one variable, each move an action.")
        out.append(f'game "{self.name}"' if _printable_title(self.name) else 'game "KIF game"')
        out.append("players " + ", ".join(role_names[r] for r in roles))
        out.append("")
        out += self.variables()
        out.append("")
        actions = self.actions(role_names)      # fills self.used_views as it goes
        mover = self.mover(role_names)
        terminal = self.expression_text(self.bodies_expr("terminal"), 9)
        utilities = self.utilities(role_names)
        if len(roles) > 1:
            out.append("init { next to_move }")
            out.append("")
        out += self.defines() + self._extra
        if mover:
            out.append("")
            out += mover
        out.append("")
        out += actions
        out.append("")
        out.append(f"terminal {terminal}")
        out += utilities
        out.append("utility in 0..100")
        text = "\n".join(out) + "\n"
        if len(text) > MAX_TEXT:
            raise NotTranslatable(f"its translation would be {len(text):,} characters long, more "
                                  "than a rule file may hold")
        moves = {move: self.names.name(("action", move), term_identifier(move))
                 for role in roles for move in self.g.moves[role]}
        return Translation(text, moves, role_names, self.g, self.a, self._variables)

    def variables(self) -> list[str]:
        self._variables: dict = {}
        lines = []
        init = self.g.init
        for key, values in self.a.groups.items():
            name = self.group_var(key)
            start = next((v for v in values if self.prop_of(key, v) in init), None)
            none = self.none_value(key)
            if self.int_group(key):
                low = min(int(v) for v in values) - 1
                domain = f"{low}..{max(int(v) for v in values)}"
            else:
                domain = "{" + ", ".join([self.value_text(key, v) for v in values] + [none]) + "}"
            first = self.value_text(key, start) if start is not None else none
            self._variables[name] = {self.value_text(key, v): self.prop_of(key, v) for v in values}
            shown = kif_text(self.prop_of(key, "?")) if key[1] != WHOLE else f"({key[0]} ...)"
            lines.append(f"var {name} in {domain} = {first}    # {shown}; {none}: none holds")
        for prop in self.g.base:
            if prop not in self.a.group_of:
                value = "true" if prop in init else "false"
                self._variables[self.bool_var(prop)] = {"true": prop}
                lines.append(f"var {self.bool_var(prop)} in bool = {value}    # {kif_text(prop)}")
        return lines

    def prop_text(self, prop) -> str:
        key = self.a.group_of.get(prop)
        if key is None:
            return self.bool_var(prop)
        value = value_of(key, prop)
        return f"{self.group_var(key)} == {self.value_text(key, value)}"

    def expression_text(self, e, indent: int) -> str:
        text = self._text(e, 0)
        return _wrap(text, indent) if len(text) + indent > LINE else text

    def _text(self, e, level: int) -> str:
        """``level``: 0 anywhere, 1 inside `and`/`not` (an `or` needs brackets), 2 inside `not`
        (an `and` too)."""
        kind = e[0]
        if kind == "T":
            return "true"
        if kind == "F":
            return "false"
        if kind == "p":
            text = self.prop_text(e[1])
            return f"({text})" if level >= 2 and " == " in text else text
        if kind == "v":
            self.used_views.add(e[1])
            return self.define_name(e[1])
        if kind == "d":
            raise AssertionError("a move left in an expression of the state")
        if kind == "not":
            inner = e[1]
            if inner[0] == "p" and inner[1] in self.a.group_of:     # cell_1_1 != b
                key = self.a.group_of[inner[1]]
                text = f"{self.group_var(key)} != {self.value_text(key, value_of(key, inner[1]))}"
                return f"({text})" if level >= 2 else text
            return "not " + self._text(inner, 2)
        word = " and " if kind == "and" else " or "
        pieces: list[str] = []
        if kind == "or":
            pieces, parts = self._memberships(e[1], level)
        else:
            parts = list(e[1])
        # an `and` inside an `or` gets brackets too: the language does not need them, readers do
        pieces += [f"({self._text(part, 0)})" if kind == "or" and part[0] == "and"
                   else self._text(part, 1) for part in parts]
        if len(pieces) == 1:
            return pieces[0]
        # gdl's parser nests `a or b or c ...` one level a term, and refuses more than 256
        # levels (E103): a long chain is written as bracketed chains of at most CHAIN terms
        while len(pieces) > CHAIN:
            pieces = [f"({word.join(pieces[i:i + CHAIN])})" if len(pieces[i:i + CHAIN]) > 1
                      else pieces[i] for i in range(0, len(pieces), CHAIN)]
        text = word.join(pieces)
        if (kind == "or" and level >= 1) or (kind == "and" and level >= 2):
            return f"({text})"
        return text

    def _memberships(self, parts, level: int) -> tuple[list[str], list]:
        """The parts of an `or` that test one variable for several values, written as one test
        (``cell_1_1 in {x, o}``, ``step in 3..7``), and the other parts."""
        tested: dict = {}
        for part in parts:
            if part[0] == "p" and part[1] in self.a.group_of:
                tested.setdefault(self.a.group_of[part[1]], []).append(part)
        pieces, rest = [], []
        for part in parts:
            key = self.a.group_of.get(part[1]) if part[0] == "p" else None
            if key is None or len(tested[key]) < 2:
                rest.append(part)
                continue
            if part is not tested[key][0]:
                continue
            values = [value_of(key, p[1]) for p in tested[key]]
            var = self.group_var(key)
            if self.int_group(key):
                numbers = sorted(int(v) for v in values)
                runs: list[list[int]] = []
                for n in numbers:
                    if runs and runs[-1][1] == n - 1:
                        runs[-1][1] = n
                    else:
                        runs.append([n, n])
                pieces += [f"{var} == {low}" if low == high else f"{var} in {low}..{high}"
                           for low, high in runs]
            else:
                shown = ", ".join(self.value_text(key, v) for v in values)
                pieces.append(f"{var} in {{{shown}}}")
        return pieces, rest

    def defines(self) -> list[str]:
        lines = []
        done: set = set()
        pending = sorted(self.used_views, key=order_key)
        while pending:
            atom = pending.pop(0)
            if atom in done:
                continue
            done.add(atom)
            before = set(self.used_views)
            body = self.expression_text(self.definition(atom), 8 + len(self.define_name(atom)))
            lines.append(f"define {self.define_name(atom)} = {body}")
            pending += sorted(self.used_views - before - done, key=order_key)
        lines.sort(key=lambda line: line.split(" ", 2)[1])
        return lines

    def mover(self, role_names: dict) -> list[str]:
        roles = self.g.roles
        if len(roles) == 1:
            return []
        lines = []
        branches = []
        for role in roles:
            choosing = [m for m in self.g.moves[role]
                        if m not in self.a.passive[role] and self.g.bodies(("legal", role, m))]
            if not choosing:
                continue
            guarded = self.a.guard[role]
            guard = TRUE if guarded is None else _or(
                ("p", p) for p in sorted(guarded[1], key=order_key))
            has = _and([guard, _or(self.view(("legal", role, m)) for m in choosing)])
            name = self.names.name(("chooses", role), f"chooses_{role_names[role]}")
            text = self.expression_text(has, 8 + len(name))
            lines.append(f"define {name} = {text}")
            branches.append(f"{role_names[role]} if {name} else")
        lines.append("# the player to move: the role with a move to choose (at most one, proved)")
        lines.append(f"define to_move = {' '.join(branches)} {role_names[roles[0]]}")
        return lines

    def utilities(self, role_names: dict) -> list[str]:
        lines = []
        conditions: dict = {}
        for role in self.g.roles:
            goals = sorted((atom for atom in self.g.atoms_of("goal") if atom[1] == role),
                           key=lambda atom: -int(atom[2]) if is_integer(atom[2]) else 0)
            name = role_names[role]
            parts = []
            for atom in goals:
                if not (is_integer(atom[2]) and 0 <= int(atom[2]) <= 100):
                    raise NotTranslatable(f"a goal value of {role}, {kif_text(atom[2])}, is not "
                                          "an integer from 0 to 100")
                condition = self.bodies_expr(atom)
                if condition == FALSE:
                    continue
                conditions.setdefault(role, {})[int(atom[2])] = condition
                parts.append((int(atom[2]), self._text(condition, 1)))
            missing = self.names.name(("no goal", role), f"no_goal_for_{name}")
            lines.append(f"const {missing} = [0]    # read past its end where {name} has no goal "
                         "(an ill-formed game)")
            chain = " ".join(f"{value} if {text} else" for value, text in parts)
            lines.append(_wrap(f"utility {name} = {chain} {missing}[{self.past_the_end()}]"
                               .replace("  ", " "), 10))
        total = _mirrored(conditions, self.g.roles)
        if total is not None:
            lines.append(f"constant-sum {total}    # each goal of one role has the other's "
                         f"{total} - goal under the same condition")
        return lines

    def past_the_end(self) -> str:
        """A define whose value is always 1, which the checker cannot fold: the index of a
        goal that does not exist, so that reading it is an error in play (E303), not a value."""
        name = self.names.name(("one",), "one")
        if name not in self._extra_names:
            self._extra_names.add(name)
            bound = self.names.name(("one", "player"), "p")     # not a KIF name's (p: untwisty)
            self._extra.append(f"define {name} = count {bound} in players: {bound} == mover"
                               "    # always 1")
        return name

    # ---- actions -----------------------------------------------------------------------------------

    def actions(self, role_names: dict) -> list[str]:
        roles = self.g.roles
        by_move: dict = {}
        for role in roles:
            for move in self.g.moves[role]:
                if self.g.bodies(("legal", role, move)):
                    by_move.setdefault(move, []).append(role)
        passive = self.a.passive
        # per proposition: its next-expression with the moves left in, and which moves it reads
        self._next = {p: self.bodies_expr(("next", p)) for p in self.g.base}
        self._reads_moves = {p: _moves_in(e) for p, e in self._next.items()}
        self._quiet: dict = {}
        lines = []
        for move in sorted(by_move, key=order_key):
            movers = by_move[move]
            name = self.names.name(("action", move), term_identifier(move))
            requires = []
            branches = []
            for role in movers:
                legal = self.view(("legal", role, move))
                requires.append(self._text(legal, 1) if len(movers) == 1 else
                                f"(mover == {role_names[role]} and {self._text(legal, 1)})")
                branches.append((role, self.effect(role, move, passive)))
            head = f"action {name} by {', '.join(role_names[r] for r in movers)}"
            self._written += sum(len(b) for _, effect in branches for b in effect) + len(head)
            if self._written > MAX_TEXT:
                raise NotTranslatable(f"its translation would be longer than {MAX_TEXT:,} "
                                      "characters, more than a rule file may hold")
            lines.append(head)
            lines.append("    requires " + _wrap(" or ".join(requires), 13))
            if len(branches) == 1:
                statements = branches[0][1]
            else:
                statements = []
                for i, (role, effect) in enumerate(branches):
                    word = "if" if i == 0 else "else if"
                    if i == len(branches) - 1:
                        statements.append("else {")
                    else:
                        statements.append(f"{word} mover == {role_names[role]} {{")
                    statements += ["    " + s for s in effect]
                    statements.append("}")
                statements = _join_branches(statements)
            if statements:
                lines.append("    effect " + statements[0])
                lines += ["           " + s for s in statements[1:]]
        return lines

    def effect(self, role, move, passive) -> list[str]:
        known = self.knowledge(role, move)
        known[self.view(("legal", role, move))] = True

        def moves(who, what) -> tuple:
            if who == role:
                return TRUE if what == move else FALSE
            if what in passive[who]:
                return self.view(("legal", who, what))
            return FALSE          # only the mover has a move to choose (proved)

        memo: dict = {}
        assigned: list[tuple[str, tuple]] = []     # (variable, new value: ("value", text) or expr)
        for key, values in self.a.groups.items():
            props = [self.prop_of(key, v) for v in values]
            if not any(self._may_change(p, role, move) for p in props):
                continue
            options = []
            same = True
            for value, prop in zip(values, props):
                e = self.simplify(self._next[prop], known, moves, memo)
                current = known.get(("p", prop))
                if not (e == ("p", prop) or (e == FALSE and current is False)
                        or (e == TRUE and current is True)):
                    same = False
                options.append((value, e))
            if same:
                continue
            assigned.append((self.group_var(key), self._choice(key, options) + (key,)))
        for prop in self.g.base:
            if prop in self.a.group_of or not self._may_change(prop, role, move):
                continue
            e = self.simplify(self._next[prop], known, moves, memo)
            if e == ("p", prop) or (e in (TRUE, FALSE) and known.get(("p", prop)) == (e == TRUE)):
                continue
            assigned.append((self.bool_var(prop), ("bool", e)))
        return self.statements(assigned, len(self.g.roles) > 1)

    def _may_change(self, prop, role, move) -> bool:
        """False where the proposition is sure to keep its value when ``role`` makes ``move``."""
        reads = self._reads_moves[prop]
        if reads is None:          # reads no move: the same expression after every move
            return self._next[prop] != ("p", prop)
        if (role, move) in reads:
            return True
        # the move is not read: the expression is the one for any other move of this role
        quiet = self._quiet.get((prop, role))
        if quiet is None:
            passive = self.a.passive

            def moves(who, what) -> tuple:
                if who == role:
                    return FALSE
                return self.view(("legal", who, what)) if what in passive[who] else FALSE

            quiet = self.simplify(self._next[prop], {}, moves, {}) == ("p", prop)
            self._quiet[(prop, role)] = quiet
        return not quiet

    def _choice(self, key, options) -> tuple:
        """The new value of a group's variable: the value whose proposition holds next."""
        chain = [(value, e) for value, e in options if e != FALSE]
        if not chain:
            return ("value", self.none_value(key), [])
        for value, e in chain:
            if e == TRUE:
                return ("value", self.value_text(key, value), [(value, e)])
        return ("chain", self.none_value(key), chain)

    def table(self, key, chain) -> tuple[str, set] | None:
        """Where a variable's next value depends on its own value, a table looked up with the
        old value: ``step_after[step + 1]`` (a step counter, whose turn it is); and where it
        depends on its own value and one condition (a counter that counts captures), one table
        where the condition holds and one where it does not:
        ``capture_after[capture + 1] if captured else capture_same[capture + 1]``. The text and
        the variables the condition reads; None for any other chain."""
        values = self.a.groups[key]
        props = {self.prop_of(key, v): v for v in values}
        cases: dict = {}            # condition -> {old value: new value}, first in chain order
        for new, e in chain:
            for part in (e[1] if e[0] == "or" else (e,)):
                conjuncts = part[1] if part[0] == "and" else (part,)
                own = [c for c in conjuncts if c[0] == "p" and c[1] in props]
                if len(own) != 1:
                    return None
                rest = _and(c for c in conjuncts if c is not own[0])
                cases.setdefault(rest, {}).setdefault(props[own[0][1]], new)
        conditions = list(cases)
        var = self.group_var(key)
        if conditions == [TRUE]:
            return self.lookup(key, cases[TRUE]), set()
        if TRUE in conditions or len(conditions) > 2:
            return None
        first = conditions[0]
        reads = self._reads_of(first) - {var}
        test = self._text(first, 1)
        if len(conditions) == 1:      # where the condition fails, no value holds
            return f"{self.lookup(key, cases[first])} if {test} else {self.none_value(key)}", reads
        if conditions[1] != _not(first):
            return None
        return (f"{self.lookup(key, cases[first])} if {test} else "
                f"{self.lookup(key, cases[conditions[1]])}"), reads

    def lookup(self, key, mapping: dict) -> str:
        """``name[index]`` of the table of ``mapping`` (old value -> new value; the others go to
        none), declared once however often it is used."""
        values = self.a.groups[key]
        var = self.group_var(key)
        none = self.none_value(key)
        if all(mapping.get(v) == v for v in values):
            return var                    # the identity: the variable keeps its value
        if self.int_group(key):
            low = int(none)
            entries = [mapping.get(str(v), none) for v in range(low, max(int(v) for v in values) + 1)]
            body = "[" + ", ".join(entries) + "]"
            index = f"{var} - {low}" if low > 0 else f"{var} + {-low}" if low < 0 else var
        else:
            keys = [self.value_text(key, v) for v in values] + [none]
            shown = {self.value_text(key, v): self.value_text(key, w) for v, w in mapping.items()}
            body = "{" + ", ".join(f"{k}: {shown.get(k, none)}" for k in keys) + "}"
            index = var
        name = self._tables.get((key[0], body))
        if name is None:
            name = self.names.name(("table", key[0], body), f"{identifier(key[0])}_after")
            self._tables[(key[0], body)] = name
            self._extra.append(_wrap(f"const {name} = {body}", 8 + len(name)))
        return f"{name}[{index}]"

    def statements(self, assigned, rotate: bool) -> list[str]:
        texts = []
        changed = {name for name, _ in assigned}
        lets, sets = [], []
        for name, new in assigned:
            if new[0] == "value":
                sets.append(f"{name} = {new[1]}")
                continue
            if new[0] == "bool":
                text = self._text(new[1], 0)
                reads = self._reads_of(new[1])
            else:
                _, none, chain, key = new
                table = self.table(key, chain)
                if table is not None:
                    # its own variable's old value is read by its own assignment only
                    text, reads = table
                else:
                    text = " ".join(f"{self.value_text(key, value)} if {self._text(e, 1)} else"
                                    for value, e in chain) + f" {none}"
                    reads = set().union(*(self._reads_of(e) for _, e in chain)) if chain else set()
            if reads & changed:
                lets.append(f"let next_{name} = {text}")
                sets.append(f"{name} = next_{name}")
            else:
                sets.append(f"{name} = {text}")
        if len(lets) > MAX_LETS:
            # each `let` nests the rest of the effect inside it, and gdl's builders recurse once
            # a level: hundreds of them overflow Python's stack (pancakes' 720 permutations)
            raise NotTranslatable(f"a move changes {len(lets):,} variables that read each "
                                  f"other's old values, more than the {MAX_LETS} `let` "
                                  "statements an effect may nest")
        texts = lets + sets
        if rotate:
            texts.append("next to_move")
        return [_wrap(t, 11) + ";" if i < len(texts) - 1 else _wrap(t, 11)
                for i, t in enumerate(texts)]

    def _reads_of(self, e) -> set:
        """The variables an expression of the state reads, through its defines too."""
        found: set = set()
        stack = [e]
        while stack:
            node = stack.pop()
            kind = node[0]
            if kind == "p":
                key = self.a.group_of.get(node[1])
                found.add(self.group_var(key) if key is not None else self.bool_var(node[1]))
            elif kind == "v":
                cached = self._reads.get(node[1])
                if cached is None:
                    self._reads[node[1]] = set()       # views are not recursive (checked)
                    cached = self._reads_of(self.definition(node[1]))
                    self._reads[node[1]] = cached
                found |= cached
            elif kind == "not":
                stack.append(node[1])
            elif kind in ("and", "or"):
                stack.extend(node[1])
        return found


def _mirrored(conditions: dict, roles) -> int | None:
    """The constant sum of a two-player game whose goals mirror each other: wherever the first
    role's goal is v, the second's is K - v, under the very same condition (so in every
    terminal state, each role having its one goal value, the two add up to K). None where
    that is not so: the game is then taken as general-sum, which is never wrong."""
    if len(roles) != 2 or any(role not in conditions for role in roles):
        return None
    first, second = conditions[roles[0]], conditions[roles[1]]
    if len(first) != len(second):
        return None
    totals = {value + other for value, e in first.items()
              for other, f in second.items() if e == f}
    if len(totals) != 1:
        return None
    total = totals.pop()
    if all(second.get(total - value) == e for value, e in first.items()):
        return total
    return None


def _moves_in(e) -> set | None:
    """The moves an expression reads, or None when it reads none."""
    found = set()
    stack = [e]
    while stack:
        node = stack.pop()
        if node[0] == "d":
            found.add((node[1], node[2]))
        elif node[0] == "not":
            stack.append(node[1])
        elif node[0] in ("and", "or"):
            stack.extend(node[1])
    return found or None


def _join_branches(lines: list[str]) -> list[str]:
    """``}`` followed by ``else ...`` on one line, as the rule language reads an if-chain."""
    joined: list[str] = []
    for line in lines:
        if line.startswith("else") and joined and joined[-1] == "}":
            joined[-1] = "} " + line
        else:
            joined.append(line)
    return joined


def _printable_title(name: str) -> bool:
    return name.isprintable() and '"' not in name and "\\" not in name


def _wrap(text: str, indent: int) -> str:
    """A long line broken before ` or ` / ` and ` / ` else ` near LINE columns (the language's
    layout is free: a newline is white space)."""
    if len(text) + indent <= LINE:
        return text
    pieces: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) + indent > LINE and word in ("or", "and", "else"):
            pieces.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    pieces.append(line)
    return ("\n" + " " * indent).join(pieces)
