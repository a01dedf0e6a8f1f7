"""Bottom-up evaluation of a stratified Datalog program with function terms.

Relations are evaluated a strongly connected component of the dependency graph at a time, in
topological order, so that a relation read under ``not`` is complete before it is read (the
checker has refused programs where that is impossible). A component that depends on itself is
iterated semi-naively: each round joins at least one fact new in the round before, until a
round adds nothing. This module is both the plain interpreter of the rules (gdl.kif.interpreter,
per state) and the engine of the grounder's relaxed pass (gdl.kif.ground); it knows nothing of
games.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from gdl.kif.program import Literal, Rule
from gdl.kif.terms import is_ground, match, order_key, relation, substitute, variables


class TooManyFacts(Exception):
    """The evaluation derived more facts than its budget allows."""

    def __init__(self, relation_name: str, count: int):
        super().__init__(relation_name, count)
        self.relation = relation_name
        self.count = count


# ---- the dependency graph ------------------------------------------------------------------------

def dependencies(rules: Iterable[Rule]) -> dict[str, dict[str, bool]]:
    """head relation → {body relation: read under `not` somewhere}."""
    graph: dict[str, dict[str, bool]] = {}
    for rule in rules:
        edges = graph.setdefault(relation(rule.head), {})
        for literal in rule.body:
            if literal.kind in ("pos", "neg"):
                name = relation(literal.atom)
                graph.setdefault(name, {})
                edges[name] = edges.get(name, False) or literal.kind == "neg"
    return graph


def components(graph: dict[str, dict[str, bool]]) -> list[list[str]]:
    """Strongly connected components, each after every component it depends on (Tarjan's
    algorithm, iterative; nodes taken in sorted order so the result is the same every run)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for root in sorted(graph, key=order_key):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root], key=order_key)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {}), key=order_key))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(sorted(component, key=order_key))
    return result


def reaching(graph: dict[str, dict[str, bool]], sources: set[str]) -> set[str]:
    """Every relation that depends, directly or not, on one of ``sources`` (sources included)."""
    readers: dict[str, set[str]] = {}
    for head, edges in graph.items():
        for body in edges:
            readers.setdefault(body, set()).add(head)
    found = set(sources)
    frontier = list(sources)
    while frontier:
        for reader in readers.get(frontier.pop(), ()):
            if reader not in found:
                found.add(reader)
                frontier.append(reader)
    return found


# ---- facts -------------------------------------------------------------------------------------

class Facts:
    """Ground atoms by relation, with indexes on argument positions built when first asked for
    and kept up to date as facts are added. ``shared`` is another Facts whose relations this
    one reads through without copying (the static relations, evaluated once)."""

    def __init__(self, shared: Facts | None = None, shared_relations: frozenset[str] = frozenset()):
        self.sets: dict[str, set] = {}
        self._index: dict[tuple[str, tuple], dict] = {}
        self._indexes: dict[str, list] = {}     # relation -> [(positions, index)]
        self.shared = shared
        self.shared_relations = shared_relations

    def of(self, name: str) -> AbstractSet:
        if self.shared is not None and name in self.shared_relations:
            return self.shared.of(name)
        return self.sets.get(name, _EMPTY)

    def add(self, atom) -> bool:
        name = relation(atom)
        facts = self.sets.setdefault(name, set())
        if atom in facts:
            return False
        facts.add(atom)
        for positions, index in self._indexes.get(name, ()):
            index.setdefault(tuple(atom[p] for p in positions), []).append(atom)
        return True

    def __contains__(self, atom) -> bool:
        return atom in self.of(relation(atom))

    def candidates(self, pattern) -> Iterable:
        """Facts that may match ``pattern``: those that agree with it on every ground argument
        (through an index on exactly those positions, built when first asked for)."""
        name = relation(pattern)
        if self.shared is not None and name in self.shared_relations:
            return self.shared.candidates(pattern)
        if not isinstance(pattern, tuple):
            return self.sets.get(name, _EMPTY)
        positions = tuple(p for p in range(1, len(pattern)) if is_ground(pattern[p]))
        if not positions:
            return self.sets.get(name, _EMPTY)
        index = self._index.get((name, positions))
        if index is None:
            index = {}
            for fact in self.sets.get(name, _EMPTY):
                if len(fact) == len(pattern):
                    index.setdefault(tuple(fact[p] for p in positions), []).append(fact)
            self._index[(name, positions)] = index
            self._indexes.setdefault(name, []).append((positions, index))
        return index.get(tuple(pattern[p] for p in positions), _EMPTY_LIST)

    def count(self) -> int:
        return sum(len(s) for s in self.sets.values())


_EMPTY: frozenset = frozenset()
_EMPTY_LIST: list = []


# ---- rules as plans ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """A rule's body ready to join: its positive literals (``first``, when given, is joined
    first: the semi-naive round's new facts) and its tests (`not`, `distinct`), each with the
    variables it needs bound."""
    head: object
    positives: tuple[Literal, ...]
    tests: tuple[tuple[Literal, frozenset], ...]
    first: Literal | None
    rule: Rule


def plan(rule: Rule, first: int | None = None, skip_negative: bool = False) -> Plan:
    """The join of a rule's body; ``first`` (an index into the body) is joined first;
    ``skip_negative`` drops the tests of `not` (the grounder's over-approximation)."""
    positives = tuple(lit for i, lit in enumerate(rule.body) if lit.kind == "pos" and i != first)
    tests = tuple((lit, frozenset(v for t in lit.terms for v in variables(t)))
                  for lit in rule.body
                  if lit.kind != "pos" and not (skip_negative and lit.kind == "neg"))
    return Plan(rule.head, positives, tests, rule.body[first] if first is not None else None, rule)


def solutions(p: Plan, facts: Facts, binding: dict,
              first_from: Iterable | None = None) -> Iterator[dict]:
    """Every binding that satisfies the plan's body. The positive literals are joined in the
    order the facts suggest, each time the one with the fewest candidate facts under the
    bindings so far (a lookup through an index rather than a scan); each test as soon as its
    variables are bound. ``first_from``: the facts the plan's ``first`` literal reads."""
    if p.first is not None:
        pool = first_from if first_from is not None else facts.candidates(p.first.atom)
        for fact in pool:
            extended = match(p.first.atom, fact, binding)
            if extended is not None:
                yield from _join(p.positives, p.tests, facts, extended)
        return
    yield from _join(p.positives, p.tests, facts, binding)


def _join(positives: tuple, tests: tuple, facts: Facts, binding: dict) -> Iterator[dict]:
    if tests:
        waiting = []
        for test in tests:
            literal, needs = test
            if all(v in binding for v in needs):
                if not _holds(literal, facts, binding):
                    return
            else:
                waiting.append(test)
        tests = tuple(waiting)
    if not positives:
        if not tests:             # (a test whose variables nothing binds: an unsafe rule)
            yield binding
        return
    best, pool, best_size = 0, None, -1
    for i, literal in enumerate(positives):
        pattern = substitute(literal.atom, binding)
        if is_ground(pattern):
            size = 1 if pattern in facts else 0
            candidates: Any = (pattern,) if size else ()
        else:
            candidates = facts.candidates(pattern)
            size = len(candidates)
        if best_size < 0 or size < best_size:
            best, pool, best_size = i, (pattern, candidates), size
            if size <= 1:
                break
    if best_size == 0:
        return
    rest = positives[:best] + positives[best + 1:]
    pattern, candidates = pool          # type: ignore[misc]
    for fact in candidates:
        extended = match(pattern, fact, binding)
        if extended is not None:
            yield from _join(rest, tests, facts, extended)


def _holds(literal: Literal, facts: Facts, binding: dict) -> bool:
    if literal.kind == "neg":
        return substitute(literal.atom, binding) not in facts
    left, right = (substitute(t, binding) for t in literal.terms)
    return (left != right) == (literal.kind == "distinct")


class Program:
    """Rules ready to evaluate: grouped by component, in dependency order."""

    def __init__(self, rules: list[Rule], skip_negative: bool = False):
        self.rules = rules
        self.graph = dependencies(rules)
        self.order = components(self.graph)
        self.skip_negative = skip_negative
        by_head: dict[str, list[Rule]] = {}
        for rule in rules:
            by_head.setdefault(relation(rule.head), []).append(rule)
        self.by_head = by_head
        self._plans: dict[int, tuple] = {}

    def recursive(self, component: list[str]) -> bool:
        return len(component) > 1 or component[0] in self.graph.get(component[0], {})

    def _plans_of(self, number: int, component: list[str]):
        cached = self._plans.get(number)
        if cached is None:
            members = set(component)
            rules = [r for name in component for r in self.by_head.get(name, [])]
            full = [plan(r, skip_negative=self.skip_negative) for r in rules]
            seminaive = [(plan(r, i, self.skip_negative), relation(r.body[i].atom))
                         for r in rules for i, lit in enumerate(r.body)
                         if lit.kind == "pos" and relation(lit.atom) in members]
            cached = self._plans[number] = (full, seminaive)
        return cached

    def evaluate(self, facts: Facts, relations: set[str] | None = None,
                 limit: int | None = None) -> None:
        """Derive every fact of ``relations`` (all relations with rules, when None) into
        ``facts``, whose other relations are taken as given. ``limit`` bounds the number of
        facts derived here (TooManyFacts beyond it)."""
        derived = 0
        for number, component in enumerate(self.order):
            if relations is not None and not any(name in relations for name in component):
                continue
            if not any(name in self.by_head for name in component):
                continue
            full, seminaive = self._plans_of(number, component)
            delta: dict[str, list] = {}
            for p in full:
                # derived first, added after: the join may be reading the relation it adds to
                found = _derived(p, facts, None, limit, derived)
                for atom in found:
                    if facts.add(atom):
                        delta.setdefault(relation(atom), []).append(atom)
                        derived += 1
                        if limit is not None and derived > limit:
                            raise TooManyFacts(relation(atom), derived)
            if not self.recursive(component):
                continue
            while delta:
                new: dict[str, list] = {}
                for p, name in seminaive:
                    pool = delta.get(name)
                    if not pool:
                        continue
                    found = _derived(p, facts, list(pool), limit, derived)
                    for atom in found:
                        if facts.add(atom):
                            new.setdefault(relation(atom), []).append(atom)
                            derived += 1
                            if limit is not None and derived > limit:
                                raise TooManyFacts(relation(atom), derived)
                delta = new


def _derived(p: Plan, facts: Facts, pool: list | None, limit: int | None, derived: int) -> list:
    """The heads of a plan's solutions, collected before any is added (the join may be reading
    the relation they go to); TooManyFacts as soon as they alone pass the limit."""
    found = []
    room = None if limit is None else limit - derived
    for binding in solutions(p, facts, {}, first_from=pool):
        found.append(substitute(p.head, binding))
        if room is not None and len(found) > 2 * room + 1000:     # (some may be repeats)
            raise TooManyFacts(relation(p.head), derived + len(found))
    return found
