"""What the grounded rules guarantee, proved before the translation relies on it.

- **State variables.** A base relation such as ``(cell ?x ?y ?mark)`` often holds one value at a
  time for each key (here each cell holds one mark), or holds one fact at a time altogether
  (``(turn white move)``). Such a group becomes one variable of gdl's rule language,
  ``cell_1_1 in {b, x, o}``, instead of one boolean per proposition: fewer bits per state, and
  facts the simplifier can use. That a group holds at most one value is proved by induction: it
  holds at the start, and if every group holds at most one value in a state, then no two of its
  propositions can both be made true by ``next`` (every pair of ground bodies is contradictory).
  The groups that fail are dropped and the rest proved again, to a fixpoint.
- **Passive moves.** A move that is only ever legal alone (``noop`` when it is the other
  player's turn): when it is legal, its role has no choice.
- **Turns.** The game alternates when no two roles can have a non-passive legal move at once:
  then at most one role ever has a choice, and gdl's solvers apply.

Contradictions are found in the closure of a set of literals: a view implies every literal
common to all of its bodies, and, for each proved group, the values its bodies allow (the union
over its bodies: ``(legal white noop)`` may hold under ``(turn black move)`` or ``(turn black
fire)``); a move implies what its legality implies. A set is contradictory when it holds a
literal and its negation, leaves a group no value, holds two moves of one role, or holds the
negation of a view one of whose bodies it holds entirely. Every step only derives what must
hold, so "contradictory" is a proof; the converse is not claimed (a failed proof only costs a
boolean variable, or the translation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdl.kif.ground import GroundGame
from gdl.kif.terms import order_key, relation

PAIR_BUDGET = 6_000_000      # contradiction checks for all the proofs together
CANDIDATE_BUDGET = 1_000_000   # ... for the proof of one candidate group
WHOLE = 0                    # the position of a group that is a whole relation: (turn white move)


class _OutOfBudget(Exception):
    pass


@dataclass
class Analysis:
    # group key -> sorted values; the key is (functor, position, other arguments), and a value
    # is the argument at that position, or the whole proposition when the position is WHOLE
    groups: dict[tuple, list] = field(default_factory=dict)
    group_of: dict[object, tuple] = field(default_factory=dict)     # proposition -> group key
    passive: dict[str, set] = field(default_factory=dict)           # role -> passive moves
    alternating: bool = False
    why_not: str = ""              # why the turns could not be proved
    # role -> (group key, the propositions one of which holds wherever the role has a choice)
    guard: dict[str, tuple | None] = field(default_factory=dict)


def prop_of(key: tuple, value):
    """The proposition of a group's value."""
    functor, position, rest = key
    if position == WHOLE:
        return value
    arguments = list(rest)
    arguments.insert(position - 1, value)
    return (functor, *arguments)


def value_of(key: tuple, prop):
    return prop if key[1] == WHOLE else prop[key[1]]


def _candidates(base: list) -> dict[tuple, dict[tuple, list]]:
    """(functor, position) -> {the other arguments: propositions}, for every way of reading a
    base relation as a key and a value (position WHOLE: the relation holds one fact at a time)."""
    found: dict[tuple, dict[tuple, list]] = {}
    for prop in base:
        if isinstance(prop, tuple):
            for position in range(1, len(prop)):
                rest = prop[1:position] + prop[position + 1:]
                found.setdefault((prop[0], position), {}).setdefault(rest, []).append(prop)
            if len(prop) > 2:
                found.setdefault((prop[0], WHOLE), {}).setdefault((), []).append(prop)
    return found


@dataclass(frozen=True)
class Closed:
    """What a set of literals implies: the literals, and per proved group the propositions
    that may hold (None: the group is not constrained)."""
    literals: frozenset
    values: dict = field(default_factory=dict)      # group -> frozenset; never changed

    def merged(self, other: Closed) -> Closed:
        if not other.values:
            return Closed(self.literals | other.literals, self.values)
        values = dict(self.values)
        for group, props in other.values.items():
            known = values.get(group)
            values[group] = props if known is None else known & props
        return Closed(self.literals | other.literals, values)


class Prover:
    def __init__(self, game: GroundGame):
        self.game = game
        self.rules = game.rules
        self._implied: dict = {}
        self.budget = PAIR_BUDGET
        # proposition -> the groups it belongs to under the current hypothesis
        self.readings: dict = {}
        # proposition -> its proved group, once the groups are known (values are then tracked)
        self.fixed: dict = {}
        self._signatures: dict = {}
        self._version = 0

    def spend(self, count: int = 1) -> None:
        self.budget -= count
        if self.budget < 0:
            raise _OutOfBudget

    # ---- closure ---------------------------------------------------------------------------------

    def implied(self, atom) -> Closed:
        """What holds wherever ``atom`` (a view, or a move by way of its legality) holds."""
        known = self._implied.get(atom)
        if known is not None:
            return known
        self._implied[atom] = Closed(frozenset())      # a cycle implies nothing more
        if relation(atom) == "does":
            result = self.implied(("legal", atom[1], atom[2])).merged(
                Closed(frozenset({(True, atom)})))
        else:
            common: Closed | None = None
            for body in self.rules.get(atom) or ():
                self.spend()
                closed = self.close(body)
                common = closed if common is None else _either(common, closed)
            result = (common or Closed(frozenset())).merged(Closed(frozenset({(True, atom)})))
        self._implied[atom] = result
        return result

    def close(self, literals) -> Closed:
        closed = Closed(frozenset(literals), self._values_of(literals))
        for positive, atom in literals:
            if positive and relation(atom) != "true":
                closed = closed.merged(self.implied(atom))
        return closed

    def _values_of(self, literals) -> dict:
        values: dict = {}
        if self.fixed:
            for positive, atom in literals:
                if positive and relation(atom) == "true":
                    group = self.fixed.get(atom[1])
                    if group is not None:
                        values[group] = values.get(group, frozenset({atom[1]})) & {atom[1]}
        return values

    def contradictory(self, closed: Closed) -> bool:
        """Whether the literals cannot hold at once (see the module's docstring)."""
        return self.exclusive(closed, _NOTHING)

    def _signature(self, closed: Closed) -> tuple:
        """(positive atoms, negative atoms, move per role, proposition per group under the
        hypothesis, contradictory in itself), kept per closure (closures are shared)."""
        cached = self._signatures.get(id(closed))
        if cached is not None and cached[0] is closed and cached[1] == self._version:
            return cached[2]
        positive: set = set()
        negative: set = set()
        moves: dict = {}
        groups: dict = {}
        alone = any(not props for props in closed.values.values())
        for sign, atom in closed.literals:
            if not sign:
                negative.add(atom)
                continue
            positive.add(atom)
            name = relation(atom)
            if name == "true":
                for group in self.readings.get(atom[1], ()):
                    if groups.setdefault(group, atom[1]) != atom[1]:
                        alone = True
            elif name == "does":
                if moves.setdefault(atom[1], atom[2]) != atom[2]:
                    alone = True
        alone = alone or not positive.isdisjoint(negative)
        signature = (positive, negative, moves, groups, alone)
        self._signatures[id(closed)] = (closed, self._version, signature)
        return signature

    def exclusive(self, first: Closed, second: Closed) -> bool:
        """Whether the two closed sets of literals cannot hold at once."""
        self.spend()
        p1, n1, m1, g1, alone1 = self._signature(first)
        p2, n2, m2, g2, alone2 = self._signature(second)
        if alone1 or alone2:
            return True
        for role, move in m1.items():
            if m2.get(role, move) != move:
                return True
        small, large = (g1, g2) if len(g1) <= len(g2) else (g2, g1)
        for group, prop in small.items():
            if large.get(group, prop) != prop:
                return True
        if not p1.isdisjoint(n2) or not p2.isdisjoint(n1):
            return True
        if first.values and second.values:
            for group, props in first.values.items():
                other = second.values.get(group)
                if other is not None and not props & other:
                    return True
        literals = first.literals | second.literals if second.literals else first.literals
        for negatives in (n1, n2):
            for atom in negatives:
                if relation(atom) in ("true", "does"):
                    continue
                for body in self.rules.get(atom, ()):
                    if all(literal in literals for literal in body):
                        return True
        return False

    # ---- groups ----------------------------------------------------------------------------------

    def groups(self) -> dict[tuple, dict[tuple, list]]:
        """The candidate groups that are proved, one reading per base relation."""
        candidates = _candidates(self.game.base)
        alive = {c: groups for c, groups in candidates.items()
                 if all(sum(1 for p in props if p in self.game.init) <= 1
                        for props in groups.values())
                 and any(len(props) > 1 for props in groups.values())}
        next_bodies = {p: [self.close(body) for body in self.rules.get(("next", p), ())]
                       for p in self.game.base}
        while alive:
            self.hypothesis({(c, rest): props for c, groups in alive.items()
                             for rest, props in groups.items()})
            failed = [c for c, groups in alive.items() if not self._holds_within(groups, next_bodies)]
            if not failed:
                break
            for c in failed:
                del alive[c]
        # one reading per relation: the one with fewest groups (a whole relation, then the value
        # last: (cell x y mark))
        chosen: dict[str, tuple] = {}
        for candidate in sorted(alive, key=lambda c: (-len(alive[c]), c[1])):
            chosen[candidate[0]] = candidate
        return {c: alive[c] for c in chosen.values()}

    def hypothesis(self, groups: dict) -> None:
        """Assume that each group (id -> propositions) holds at most one value."""
        self._version += 1
        self.readings = {}
        for group, props in groups.items():
            for prop in props:
                self.readings.setdefault(prop, []).append(group)

    def _holds_within(self, groups, next_bodies) -> bool:
        """Whether the group is proved, within a share of the budget (past it: not proved)."""
        saved = self.budget
        self.budget = min(saved, CANDIDATE_BUDGET)
        try:
            return self._holds(groups, next_bodies)
        except _OutOfBudget:
            return False
        finally:
            self.budget = saved - (min(saved, CANDIDATE_BUDGET) - self.budget)

    def _holds(self, groups, next_bodies) -> bool:
        for props in groups.values():
            for i, p in enumerate(props):
                for q in props[i + 1:]:
                    for first in next_bodies[p]:
                        for second in next_bodies[q]:
                            if not self.exclusive(first, second):
                                return False
        return True


_NOTHING = Closed(frozenset())


def _either(first: Closed, second: Closed) -> Closed:
    """What holds in either case: the common literals, and per group the union of what each
    allows (a group constrained in only one case is not constrained)."""
    mine = first.values
    values = {group: mine[group] | props for group, props in second.values.items() if group in mine}
    return Closed(first.literals & second.literals, values)


def analyse(game: GroundGame) -> Analysis:
    prover = Prover(game)
    result = Analysis()
    try:
        proved = prover.groups()
    except _OutOfBudget:
        proved = {}
    for (functor, position), groups in proved.items():
        for rest, props in groups.items():
            key = (functor, position, rest)
            result.groups[key] = sorted((value_of(key, p) for p in props), key=order_key)
            for prop in props:
                result.group_of[prop] = key
    # the proved groups alone, one reading each, their values tracked through views
    members: dict = {}
    for prop, key in result.group_of.items():
        members.setdefault(key, []).append(prop)
    prover.hypothesis(members)
    prover.fixed = dict(result.group_of)
    prover._implied = {}
    prover.budget = PAIR_BUDGET
    try:
        _turns(prover, game, result)
    except _OutOfBudget:
        result.alternating = False
        result.why_not = "the proof that the turns alternate ran out of time"
    result.prover = prover         # type: ignore[attr-defined]
    return result


SPLIT = 12    # a legality with at most this many bodies is reasoned about body by body


def _cases(prover: Prover, atom) -> list[Closed]:
    """Where ``atom`` holds, one of these holds: each of its bodies, closed (a legality that
    holds for two reasons, as `noop` for the role in control that has no other move and for
    the others, is exclusive with a move when each reason is); its closure alone when it has
    many bodies."""
    bodies = prover.rules.get(atom) or ()
    if 1 < len(bodies) <= SPLIT:
        extra = Closed(frozenset({(True, atom)}))
        return [prover.close(body).merged(extra) for body in bodies]
    return [prover.implied(atom)]


def _exclusive(prover: Prover, first: list[Closed], second: list[Closed]) -> bool:
    return all(prover.exclusive(x, y) for x in first for y in second)


def _turns(prover: Prover, game: GroundGame, result: Analysis) -> None:
    legal = {role: {m: _cases(prover, ("legal", role, m)) for m in game.moves[role]
                    if game.rules.get(("legal", role, m))} for role in game.roles}
    choosing: dict[str, list[Closed]] = {}
    for role in game.roles:
        moves = legal[role]
        passive = set()
        for move, cases in moves.items():
            if all(_exclusive(prover, cases, other) for m, other in moves.items() if m != move):
                passive.add(move)
        result.passive[role] = passive
        choosing[role] = [case for m, cases in moves.items() if m not in passive for case in cases]
        # a group that every choice constrains: the union of what they allow is the guard
        guard = None
        if choosing[role]:
            common = choosing[role][0]
            for closed in choosing[role][1:]:
                common = _either(common, closed)
            if common.values:
                guard = min(common.values.items(), key=lambda item: (len(item[1]), repr(item[0])))
        result.guard[role] = guard
    roles = game.roles
    for i, first in enumerate(roles):
        for second in roles[i + 1:]:
            a, b = choosing[first], choosing[second]
            if not a or not b:
                continue
            g1, g2 = result.guard[first], result.guard[second]
            if g1 is not None and g2 is not None and g1[0] == g2[0] and not g1[1] & g2[1]:
                continue
            for x in a:
                for y in b:
                    if not prover.exclusive(x, y):
                        result.alternating = False
                        result.why_not = (f"{first} and {second} may both have a move to "
                                          "choose at once (simultaneous moves)")
                        return
    result.alternating = True
