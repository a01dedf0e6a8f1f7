"""S-expressions → a Datalog program: rules whose bodies are conjunctions of literals.

A sentence is a fact ``(cell 1 1 b)`` or a rule ``(<= head literal ...)``. A literal is an atom,
``(not L)``, ``(distinct a b)``, ``(or L ...)`` or ``(and L ...)``. ``or`` is taken apart here: a
rule whose body has disjunctions becomes one rule per way of choosing a disjunct (the rules mean
the same, and every later stage sees plain conjunctions). ``not`` is pushed inward: ``(not (not
L))`` is L, ``(not (distinct a b))`` is the equality of a and b, ``(not (or ...))`` a conjunction
of negations. Each literal keeps its span, and each variable where it occurs, so the checker can
point at the mistake.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any

from gdl.errors import Diagnostic
from gdl.kif.syntax import Group, Node, Variable, Word, node_text
from gdl.kif.terms import Var
from gdl.span import Span

MAX_DISJUNCTS = 4096    # ways through the `or`s of one rule


@dataclass(frozen=True, slots=True)
class Literal:
    """``pos``/``neg``: ``terms`` is ``(atom,)``; ``distinct``/``same``: ``terms`` is ``(a, b)``."""
    kind: str
    terms: tuple
    span: Span
    # every variable of the literal with the span of its first occurrence in it
    where: tuple[tuple[Var, Span], ...] = ()

    @property
    def atom(self):
        return self.terms[0]


@dataclass(frozen=True, slots=True)
class Rule:
    head: Any                  # a term: a constant (str) or a tuple (relation, arguments...)
    body: tuple[Literal, ...]
    span: Span                 # the whole sentence
    head_span: Span
    head_where: tuple[tuple[Var, Span], ...] = ()
    sentence: int = 0          # which sentence of the file it comes from (rules from one `or` share it)


@dataclass(frozen=True, slots=True)
class Use:
    """One use of a relation or function name with a number of arguments, for the arity check."""
    name: str
    arity: int
    kind: str     # "relation" or "function"
    span: Span


@dataclass
class Program:
    rules: list[Rule] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)


class _TooMany(Exception):
    pass


class _Refused(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


# Formulas before `or` is taken apart: a literal, or ("and"|"or", [formulas])
_Formula = Literal | tuple


def read_program(nodes: list[Node]) -> Program:
    program = Program()
    reader = _Reader(program)
    for number, node in enumerate(nodes):
        try:
            reader.sentence(node, number)
        except _Refused as refused:
            program.problems.append(refused.diagnostic)
    return program


def _keyword(node: Node) -> str | None:
    """The connective a group starts with (``<=``, ``not``, ``or``, ``and``, ``distinct``),
    whatever its case; None for anything else."""
    if isinstance(node, Group) and node.items and isinstance(node.items[0], Word):
        word = node.items[0].text.lower()
        if word in ("<=", "not", "or", "and", "distinct"):
            return word
    return None


class _Reader:
    def __init__(self, program: Program):
        self.program = program

    # ---- sentences -------------------------------------------------------------------------

    def sentence(self, node: Node, number: int) -> None:
        if isinstance(node, Variable):
            raise _Refused(Diagnostic("K200", f"a variable, {node.text}, cannot stand alone as a "
                                      "sentence", node.span,
                                      hint="a sentence is a fact like (role white) or a rule "
                                           "(<= head body...)"))
        if _keyword(node) == "<=":
            assert isinstance(node, Group)
            if len(node.items) < 2:
                raise _Refused(Diagnostic("K208", "a rule without a head", node.span,
                                          hint="write (<= head literal ...)"))
            head, head_where = self.atom(node.items[1], "the head of a rule")
            body = self.conjunction(node.items[2:])
            try:
                ways = _disjuncts(body)
            except _TooMany:
                raise _Refused(Diagnostic("K210", f"this rule's `or`s make more than "
                                          f"{MAX_DISJUNCTS:,} rules", node.span,
                                          hint="split it into several rules")) from None
            for way in ways:
                self.program.rules.append(Rule(head, tuple(way), node.span, node.items[1].span,
                                               head_where, number))
            return
        if _keyword(node) is not None:
            word = node.items[0].text    # type: ignore[union-attr]
            raise _Refused(Diagnostic("K200", f"'{word}' starts a literal, not a sentence",
                                      node.span, hint="put it in the body of a rule: (<= head ...)"))
        head, head_where = self.atom(node, "a fact")
        self.program.rules.append(Rule(head, (), node.span, node.span, head_where, number))

    # ---- atoms and terms ---------------------------------------------------------------------

    def atom(self, node: Node, what: str):
        """An atomic sentence: a relation name alone, or a group starting with one."""
        where: dict[Var, Span] = {}
        if isinstance(node, Word):
            self.program.uses.append(Use(node.text, 0, "relation", node.span))
            return node.text, ()
        if isinstance(node, Variable):
            raise _Refused(Diagnostic("K209", f"{what} is a variable, {node.text}", node.span,
                                      hint="a relation's name is a constant: (cell ?x ?y) reads "
                                           "the relation cell; a variable cannot name one"))
        if not node.items:
            raise _Refused(Diagnostic("K209", f"{what} is empty: ()", node.span,
                                      hint="write a relation's name and its arguments: (cell 1 2)"))
        name = node.items[0]
        if not isinstance(name, Word):
            raise _Refused(Diagnostic("K209", f"{what} starts with {node_text(name)}, not with a "
                                      "relation's name", name.span,
                                      hint="a relation's name is a constant, written first: (cell 1 2)"))
        arguments = tuple(self.term(item, where) for item in node.items[1:])
        self.program.uses.append(Use(name.text, len(arguments), "relation", name.span))
        return (name.text,) + arguments, tuple(where.items())

    def term(self, node: Node, where: dict):
        if isinstance(node, Word):
            return node.text
        if isinstance(node, Variable):
            variable = Var(node.text)
            where.setdefault(variable, node.span)
            return variable
        if not node.items or not isinstance(node.items[0], Word):
            shown = node_text(node.items[0]) if node.items else "()"
            raise _Refused(Diagnostic("K209", f"a term starts with {shown}, not with a function's "
                                      "name", node.span,
                                      hint="a compound term is a name and its arguments: (piece white king)"))
        if _keyword(node) is not None:
            raise _Refused(Diagnostic("K209", f"'{node.items[0].text}' inside a term: a connective "
                                      "is a literal, not an argument", node.span,
                                      hint="write it as a literal of the rule's body"))
        arguments = tuple(self.term(item, where) for item in node.items[1:])
        self.program.uses.append(Use(node.items[0].text, len(arguments), "function",
                                     node.items[0].span))
        return (node.items[0].text,) + arguments

    # ---- literals ----------------------------------------------------------------------------

    def conjunction(self, nodes) -> tuple:
        return ("and", [self.formula(node) for node in nodes])

    def formula(self, node: Node, negated: bool = False) -> _Formula:
        keyword = _keyword(node)
        if keyword == "not":
            assert isinstance(node, Group)
            if len(node.items) != 2:
                raise _Refused(Diagnostic("K208", f"`not` takes one literal, not {len(node.items) - 1}",
                                          node.span, hint="write (not (p ?x)); for several, one `not` each"))
            return self.formula(node.items[1], not negated)
        if keyword in ("or", "and"):
            assert isinstance(node, Group)
            if len(node.items) < 2:
                raise _Refused(Diagnostic("K208", f"`{keyword}` without literals", node.span,
                                          hint=f"write ({keyword} literal literal ...)"))
            parts = [self.formula(item, negated) for item in node.items[1:]]
            # De Morgan: a negated `or` is an `and` of negations, and the other way round
            return ("or" if (keyword == "or") != negated else "and", parts)
        if keyword == "distinct":
            assert isinstance(node, Group)
            if len(node.items) != 3:
                raise _Refused(Diagnostic("K208", f"`distinct` compares two terms, not "
                                          f"{len(node.items) - 1}", node.span,
                                          hint="write (distinct ?x ?y); for more, one `distinct` per pair"))
            where: dict[Var, Span] = {}
            terms = (self.term(node.items[1], where), self.term(node.items[2], where))
            return Literal("same" if negated else "distinct", terms, node.span, tuple(where.items()))
        if keyword == "<=":
            raise _Refused(Diagnostic("K208", "a rule inside a rule", node.span,
                                      hint="a body holds literals; write the inner rule on its own"))
        atom, where_items = self.atom(node, "a literal")
        return Literal("neg" if negated else "pos", (atom,), node.span, where_items)


def _disjuncts(formula: _Formula) -> list[list[Literal]]:
    """The formula as a disjunction of conjunctions (lists of literals)."""
    if isinstance(formula, Literal):
        return [[formula]]
    kind, parts = formula
    alternatives = [_disjuncts(part) for part in parts]
    total = 0 if kind == "or" else 1
    for choices in alternatives:
        total = total + len(choices) if kind == "or" else total * len(choices)
        if total > MAX_DISJUNCTS:
            raise _TooMany
    if kind == "or":
        return [way for choices in alternatives for way in choices]
    return [[literal for way in combination for literal in way] for combination in product(*alternatives)]
