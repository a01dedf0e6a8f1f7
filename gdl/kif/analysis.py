"""What the grounded rules guarantee, proved before the translation relies on it.

- **State variables.** A base relation such as ``(cell ?x ?y ?mark)`` often holds one value at a
  time for each key (here each cell holds one mark). Such a group becomes one variable of gdl's
  rule language, ``cell_1_1 in {b, x, o}``, instead of one boolean per proposition: fewer bits
  per state, and facts the simplifier can use. That a group holds at most one value is proved by
  induction: it holds at the start, and if every group holds at most one value in a state, then
  no two of its propositions can both be made true by ``next`` (every pair of ground bodies is
  contradictory). The groups that fail are dropped and the rest proved again, to a fixpoint.
- **Passive moves.** A move that is only ever legal alone (``noop`` when it is the other
  player's turn): when it is legal, its role has no choice.
- **Turns.** The game alternates when no two roles can have a non-passive legal move at once:
  then at most one role ever has a choice, and gdl's solvers apply.

Contradictions are found in the closure of a set of literals: a view implies every literal
common to all of its bodies, a move implies what its legality implies, and a set is
contradictory when it holds a literal and its negation, two values of one group, two moves of
one role, or the negation of a view one of whose bodies it holds entirely. Every step only
derives what must hold, so "contradictory" is a proof; the converse is not claimed (a failed
proof only costs a boolean variable, or the translation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdl.kif.ground import GroundGame
from gdl.kif.terms import order_key, relation

PAIR_BUDGET = 3_000_000      # contradiction checks for all the proofs together


class _OutOfBudget(Exception):
    pass


@dataclass
class Analysis:
    # group key -> sorted values; the key is (functor, position, other arguments)
    groups: dict[tuple, list] = field(default_factory=dict)
    group_of: dict[object, tuple] = field(default_factory=dict)     # proposition -> group key
    passive: dict[str, set] = field(default_factory=dict)           # role -> passive moves
    alternating: bool = False
    why_not: str = ""              # why the turns could not be proved
    guard: dict[str, frozenset] = field(default_factory=dict)       # role -> implied by any choice


def value_of(prop, key: tuple):
    return prop[key[1]]


def _candidates(base: list) -> dict[tuple, dict[tuple, list]]:
    """(functor, position) -> {the other arguments: propositions}, for every way of reading
    a base relation as a key and a value."""
    found: dict[tuple, dict[tuple, list]] = {}
    for prop in base:
        if isinstance(prop, tuple):
            for position in range(1, len(prop)):
                rest = prop[1:position] + prop[position + 1:]
                found.setdefault((prop[0], position), {}).setdefault(rest, []).append(prop)
    return found


class Prover:
    def __init__(self, game: GroundGame):
        self.game = game
        self.rules = game.rules
        self._implied: dict = {}
        self.budget = PAIR_BUDGET
        # proposition -> the groups it belongs to under the current hypothesis
        self.readings: dict = {}

    def spend(self, count: int = 1) -> None:
        self.budget -= count
        if self.budget < 0:
            raise _OutOfBudget

    # ---- closure ---------------------------------------------------------------------------------

    def implied(self, atom) -> frozenset:
        """Literals that hold wherever ``atom`` (a view, or a move by way of its legality) holds."""
        known = self._implied.get(atom)
        if known is not None:
            return known
        self._implied[atom] = frozenset()          # a cycle implies nothing more
        if relation(atom) == "does":
            result = frozenset({(True, atom)}) | self.implied(("legal", atom[1], atom[2]))
        else:
            bodies = self.rules.get(atom)
            common: frozenset | None = None
            for body in bodies or ():
                self.spend()
                closed = self.close(body)
                common = closed if common is None else common & closed
                if not common:
                    break
            result = (common or frozenset()) | {(True, atom)}
        self._implied[atom] = result
        return result

    def close(self, literals) -> frozenset:
        closed = set(literals)
        for positive, atom in literals:
            if positive and relation(atom) != "true":
                closed |= self.implied(atom)
        return frozenset(closed)

    def contradictory(self, closed: frozenset) -> bool:
        """Whether the closed set of literals cannot hold at once (see the module's docstring)."""
        self.spend()
        values: dict = {}
        moves: dict = {}
        for positive, atom in closed:
            if not positive:
                if (True, atom) in closed:
                    return True
                continue
            name = relation(atom)
            if name == "true":
                for group in self.readings.get(atom[1], ()):
                    if values.setdefault(group, atom[1]) != atom[1]:
                        return True
            elif name == "does":
                if moves.setdefault(atom[1], atom[2]) != atom[2]:
                    return True
        for positive, atom in closed:
            if not positive and relation(atom) not in ("true", "does"):
                for body in self.rules.get(atom, ()):
                    if all(literal in closed for literal in body):
                        return True
        return False

    def exclusive(self, first: frozenset, second: frozenset) -> bool:
        return self.contradictory(first | second)

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
            failed = [c for c, groups in alive.items() if not self._holds(groups, next_bodies)]
            if not failed:
                break
            for c in failed:
                del alive[c]
        # one reading per relation: the value last (cell x y mark) where several are proved
        chosen: dict[str, tuple] = {}
        for functor, position in sorted(alive):
            chosen[functor] = (functor, position)
        return {c: alive[c] for c in chosen.values()}

    def hypothesis(self, groups: dict) -> None:
        """Assume that each group (id -> propositions) holds at most one value."""
        self.readings = {}
        for group, props in groups.items():
            for prop in props:
                self.readings.setdefault(prop, []).append(group)

    def _holds(self, groups, next_bodies) -> bool:
        for props in groups.values():
            for i, p in enumerate(props):
                for q in props[i + 1:]:
                    for first in next_bodies[p]:
                        for second in next_bodies[q]:
                            if not self.exclusive(first, second):
                                return False
        return True


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
            result.groups[key] = sorted((p[position] for p in props), key=order_key)
            for prop in props:
                result.group_of[prop] = key
    # the proved groups alone, one reading each, for the proofs below
    members: dict = {}
    for prop, key in result.group_of.items():
        members.setdefault(key, []).append(prop)
    prover.hypothesis(members)
    prover.budget = PAIR_BUDGET
    try:
        _turns(prover, game, result)
    except _OutOfBudget:
        result.alternating = False
        result.why_not = "the proof that the turns alternate ran out of time"
    return result


def _turns(prover: Prover, game: GroundGame, result: Analysis) -> None:
    legal = {role: {m: prover.implied(("legal", role, m)) for m in game.moves[role]
                    if game.rules.get(("legal", role, m))} for role in game.roles}
    for role in game.roles:
        moves = legal[role]
        passive = set()
        for move, closed in moves.items():
            if all(prover.exclusive(closed, other) for m, other in moves.items() if m != move):
                passive.add(move)
        result.passive[role] = passive
        choosing = [closed for m, closed in moves.items() if m not in passive]
        common = frozenset.intersection(*choosing) if choosing else frozenset()
        result.guard[role] = frozenset(lit for lit in common if relation(lit[1]) == "true")
    roles = game.roles
    for i, first in enumerate(roles):
        for second in roles[i + 1:]:
            a = [c for m, c in legal[first].items() if m not in result.passive[first]]
            b = [c for m, c in legal[second].items() if m not in result.passive[second]]
            if not a or not b:
                continue
            if prover.exclusive(result.guard[first], result.guard[second]):
                continue
            for x in a:
                for y in b:
                    if not prover.exclusive(x, y):
                        result.alternating = False
                        result.why_not = (f"{first} and {second} may both have a move to "
                                          "choose at once (simultaneous moves)")
                        return
    result.alternating = True
