"""Grounding: the rules instantiated with every constant they can ever take, so that what is left
is a propositional network: each ground atom that depends on the state is true when one of its
ground bodies holds, and a body is a conjunction of ground literals over ``(true p)``,
``(does r m)`` and other such atoms.

Which instances can matter is found by a relaxed evaluation (as ggp-base's propositional-network
factory and planning systems' grounders do): the rules are evaluated with every `not` of a
state-dependent relation left out, and with ``(true p)`` for every p that ``init`` or ``next``
can give and ``(does r m)`` for every m that ``legal`` can give, to a fixpoint. Leaving out
tests only adds facts, so every atom that is true in some reachable state, and every move legal
in one, is among those found; the grounded rules, evaluated on a state, give exactly what the
rules give (static relations are complete and evaluated exactly, `distinct` exactly).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdl.kif import datalog
from gdl.kif.check import STATE, Description
from gdl.kif.program import Literal, Rule
from gdl.kif.terms import Var, order_key, relation, substitute
from gdl.span import NOWHERE

RELAXED_FACTS = 250_000       # atoms the relaxed evaluation may find
GROUND_LITERALS = 1_500_000   # literals in all ground bodies together

# A ground literal: (True, atom) or (False, atom), atom a ground term of a dynamic relation,
# ``("true", p)`` or ``("does", r, m)`` included.
GroundLiteral = tuple


class TooLarge(Exception):
    """The grounding would exceed its budget; the message says what grew."""


@dataclass
class GroundGame:
    roles: tuple[str, ...]
    init: frozenset                          # base propositions true at the start
    base: list                               # every base proposition that can ever be true
    moves: dict[str, list]                   # role -> every move it can ever make
    rules: dict[object, list[tuple[GroundLiteral, ...]]] = field(default_factory=dict)

    def bodies(self, atom) -> list[tuple[GroundLiteral, ...]]:
        return self.rules.get(atom, [])

    def atoms_of(self, name: str) -> list:
        return sorted((a for a in self.rules if relation(a) == name), key=order_key)

    @property
    def size(self) -> int:
        return sum(len(body) + 1 for bodies in self.rules.values() for body in bodies)


def _bridges() -> list[Rule]:
    """What the relaxed evaluation adds: a state holds what init or next can give, and a move
    can be made where it can be legal."""
    p, r, m = Var("?p"), Var("?r"), Var("?m")

    def rule(head, *body) -> Rule:
        return Rule(head, tuple(Literal("pos", (atom,), NOWHERE) for atom in body), NOWHERE,
                    NOWHERE)

    return [rule(("true", p), ("init", p)), rule(("true", p), ("next", p)),
            rule(("does", r, m), ("legal", r, m))]


def relaxed_facts(description: Description, static: datalog.Facts) -> datalog.Facts:
    """Every atom of a state-dependent relation that can be true somewhere (an over-
    approximation; see the module's docstring)."""
    dynamic = description.on_state | set(STATE)
    rules = [_without_dynamic_negation(rule, dynamic) for rule in description.rules
             if relation(rule.head) in dynamic] + _bridges()
    program = datalog.Program(rules)
    facts = datalog.Facts(static, frozenset(description.static))
    try:
        program.evaluate(facts, dynamic, limit=RELAXED_FACTS)
    except datalog.TooManyFacts as too_many:
        raise TooLarge(f"the relation `{too_many.relation}` can hold more than "
                       f"{RELAXED_FACTS:,} facts in some state") from None
    return facts


def _without_dynamic_negation(rule: Rule, dynamic: set[str]) -> Rule:
    kept = tuple(lit for lit in rule.body
                 if not (lit.kind == "neg" and relation(lit.atom) in dynamic))
    return Rule(rule.head, kept, rule.span, rule.head_span, rule.head_where, rule.sentence)


def ground(description: Description, static: datalog.Facts) -> GroundGame:
    """The propositional network of a checked description (TooLarge past the budgets)."""
    dynamic = description.on_state | set(STATE)
    relaxed = relaxed_facts(description, static)
    roles = description.roles
    init = frozenset(atom[1] for atom in static.of("init"))
    base = sorted({atom[1] for atom in relaxed.of("true")}, key=order_key)
    moves: dict[str, list] = {role: [] for role in roles}
    for atom in relaxed.of("does"):
        if atom[1] in moves:
            moves[atom[1]].append(atom[2])
    for role in roles:
        moves[role].sort(key=order_key)

    rules: dict[object, set[tuple]] = {}
    literals = 0
    for rule in description.rules:
        if relation(rule.head) not in dynamic:
            continue
        # join the positive literals over the relaxed facts; static tests exactly; the
        # dynamic `not`s are kept as literals of the ground body
        searched = _without_dynamic_negation(rule, dynamic)
        joined = datalog.plan(searched)
        dynamic_literals = [lit for lit in rule.body
                            if lit.kind in ("pos", "neg") and relation(lit.atom) in dynamic]
        for binding in datalog.solutions(joined, relaxed, {}):
            head = substitute(rule.head, binding)
            body = []
            for literal in dynamic_literals:
                atom = substitute(literal.atom, binding)
                if literal.kind == "neg":
                    if atom not in relaxed:
                        continue          # never true, so its negation always holds
                    body.append((False, atom))
                else:
                    body.append((True, atom))
            bodies = rules.setdefault(head, set())
            entry = tuple(sorted(set(body), key=_literal_key))
            if entry not in bodies:
                bodies.add(entry)
                literals += len(entry) + 1
                if literals > GROUND_LITERALS:
                    raise TooLarge(f"the ground rules have more than {GROUND_LITERALS:,} "
                                   "literals")
    # legal, goal, terminal or next may read no state at all: they are static, and their facts
    # hold in every state
    for name in ("legal", "goal", "terminal", "next"):
        if name not in dynamic:
            for atom in static.of(name):
                rules.setdefault(atom, set()).add(())
    ordered = {atom: sorted(bodies, key=lambda b: tuple(_literal_key(lit) for lit in b))
               for atom, bodies in sorted(rules.items(), key=lambda item: order_key(item[0]))}
    return GroundGame(roles, init, base, moves, ordered)


def _literal_key(literal: GroundLiteral) -> tuple:
    return (order_key(literal[1]), literal[0])
