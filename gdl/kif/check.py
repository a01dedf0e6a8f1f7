"""The checks a game description must pass before anything reasons with it, as the GDL
specification states them (Love, Hinrichs, Genesereth et al., 2008) and ggp-base's validators
apply them. Every problem is collected, located and given a hint; the codes are stable:

  K200  not a sentence (a variable or a literal where a fact or a rule belongs)
  K201  one name used with two numbers of arguments
  K202  an unsafe variable: in the head, under `not` or in `distinct`, but in no positive literal
  K203  not stratified: a relation depends on itself through `not` (the cycle is named)
  K204  the recursion restriction: a recursive literal whose argument is bound by nothing finite
  K205  a reserved relation used against its rules (`true` or `does` in a head, `next` or `init`
        read in a body, `role` not a ground fact, `init` depending on the state, `legal`, `goal`
        or `terminal` depending on `does`, a reserved relation with the wrong arity)
  K206  a part every game needs is missing (roles, `terminal`, `legal`, `goal`)
  K207  a goal value that is not an integer from 0 to 100
  K208  a connective with the wrong number of parts (`not`, `distinct`, `or`, `<=`)
  K209  not a relation or a term (a variable or a bracket where a name belongs)
  K210  too large (a rule's `or`s, a static relation, the grounding)
  K211  a role declared twice

E100-E103 are syntax errors, as in the rule language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

from gdl.errors import Diagnostic, GdlError, Source
from gdl.kif.datalog import components, dependencies, reaching
from gdl.kif.program import Literal, Program, Rule, read_program
from gdl.kif.syntax import parse_kif
from gdl.kif.terms import Var, arguments, is_ground, is_integer, relation, variables
from gdl.span import NOWHERE, Span

RESERVED_ARITY = {"role": 1, "init": 1, "true": 1, "next": 1, "does": 2, "legal": 2, "goal": 2,
                  "terminal": 0, "base": 1, "input": 2}
STATE = frozenset({"true", "does"})


@dataclass
class Description:
    """A checked game description: its rules (with `or` taken apart), its roles in order, and
    which relations depend on the state (``true``) and on the moves (``does``)."""
    rules: list[Rule]
    roles: tuple[str, ...]
    source: Source
    on_state: set[str] = field(default_factory=set)    # depend on true or does
    on_moves: set[str] = field(default_factory=set)    # depend on does

    @property
    def static(self) -> set[str]:
        """Relations that depend on neither: evaluated once, when the game is loaded."""
        heads = {relation(r.head) for r in self.rules}
        return {name for name in heads if name not in self.on_state}


def read_description(text: str, filename: str = "<input>") -> Description:
    """Parse and check KIF text. Raises GdlError with every problem found."""
    nodes, source = parse_kif(text, filename)
    program = read_program(nodes)
    return check_program(program, source)


def check_program(program: Program, source: Source) -> Description:
    problems = list(program.problems)
    rules = program.rules
    problems += _arity(program)
    problems += _reserved_places(rules)
    problems += _safety(rules)
    graph = dependencies(rules)
    cycles = _stratified(rules, graph)
    if cycles:
        # a relation may depend on itself through `not` only for other arguments, as in
        # (<= (goal robot 100) (not (goal robot 0))): split by the arguments of its heads
        split = _split_by_pattern(rules, graph)
        if split is not None and not _stratified(split, dependencies(split)):
            rules, cycles = split, []
            graph = dependencies(rules)
    problems += cycles
    problems += _recursion(rules, graph)
    on_state = reaching(graph, set(STATE))
    on_moves = reaching(graph, {"does"})
    problems += _dependency_rules(rules, graph, on_state, on_moves)
    roles, role_problems = _roles(rules)
    problems += role_problems
    problems += _parts(rules, roles)
    problems += _goal_values(rules)
    if problems:
        raise GdlError(_unique(problems), source)
    return Description(rules, roles, source, on_state - STATE, on_moves - {"does"})


def _unique(problems: list[Diagnostic]) -> list[Diagnostic]:
    """One report per problem (rules taken apart at an `or` repeat their literals)."""
    seen = set()
    kept = []
    for problem in problems:
        key = (problem.code, problem.message, problem.span)
        if key not in seen:
            seen.add(key)
            kept.append(problem)
    return kept


# ---- arities -------------------------------------------------------------------------------------

def _arity(program: Program) -> list[Diagnostic]:
    problems = []
    first: dict[tuple[str, str], tuple[int, Span]] = {}
    for use in program.uses:
        if use.kind == "relation" and use.name in RESERVED_ARITY \
                and use.arity != RESERVED_ARITY[use.name]:
            want = RESERVED_ARITY[use.name]
            problems.append(Diagnostic(
                "K205", f"`{use.name}` takes {want} argument{'s' if want != 1 else ''}, not "
                f"{use.arity}", use.span, hint=_RESERVED_HINTS.get(use.name)))
            continue
        known = first.setdefault((use.name, use.kind), (use.arity, use.span))
        if known[0] != use.arity:
            problems.append(Diagnostic(
                "K201", f"the {use.kind} `{use.name}` has {use.arity} argument"
                f"{'s' if use.arity != 1 else ''} here and {known[0]} at {known[1]}", use.span,
                hint="a name has one number of arguments everywhere: rename one of the two"))
    return problems


_RESERVED_HINTS = {
    "role": "(role white)", "init": "(init (cell 1 1 b))", "true": "(true (cell ?x ?y b))",
    "next": "(next (cell ?x ?y ?p))", "does": "(does ?player (mark ?x ?y))",
    "legal": "(legal ?player (mark ?x ?y))", "goal": "(goal white 100)", "terminal": "terminal",
    "base": "(base (cell ?x ?y b))", "input": "(input ?player (mark ?x ?y))",
}


# ---- where reserved relations may stand ------------------------------------------------------------

def _reserved_places(rules: list[Rule]) -> list[Diagnostic]:
    problems = []
    for rule in rules:
        head = relation(rule.head)
        if head in STATE:
            problems.append(Diagnostic(
                "K205", f"`{head}` cannot be a rule's head: it is read, never derived",
                rule.head_span, hint="the state is written with `init` and `next`; moves are "
                "chosen by the players (`legal` says which)"))
        if head == "role" and (rule.body or not is_ground(rule.head)):
            problems.append(Diagnostic(
                "K205", "a role is a ground fact, not a rule", rule.head_span,
                hint="write each role as a fact: (role white)"))
        for literal in rule.body:
            if literal.kind in ("pos", "neg") and relation(literal.atom) in ("next", "init"):
                name = relation(literal.atom)
                problems.append(Diagnostic(
                    "K205", f"`{name}` is read in a rule's body; it is only ever a head",
                    literal.span, hint="read the current state with `true`"))
    return problems


def _dependency_rules(rules, graph, on_state: set[str], on_moves: set[str]) -> list[Diagnostic]:
    problems = []
    for rule in rules:
        head = relation(rule.head)
        if head in ("init", "role", "base", "input"):
            forbidden, why = on_state, "the state or the moves"
        elif head in ("legal", "goal", "terminal"):
            forbidden, why = on_moves, "the moves (`does`)"
        else:
            continue
        for literal in rule.body:
            if literal.kind in ("pos", "neg") and relation(literal.atom) in forbidden:
                problems.append(Diagnostic(
                    "K205", f"`{head}` depends on {why}, through `{relation(literal.atom)}`",
                    literal.span,
                    hint=("`init`, `role`, `base` and `input` are fixed before play starts"
                          if head in ("init", "role", "base", "input")
                          else f"`{head}` is decided by the state alone, before anybody moves")))
    return problems


# ---- safety ----------------------------------------------------------------------------------------

def _safety(rules: list[Rule]) -> list[Diagnostic]:
    problems = []
    for rule in rules:
        safe = {v for literal in rule.body if literal.kind == "pos"
                for v in variables(literal.atom)}
        places: list[tuple[tuple[tuple[Var, Span], ...], str]] = [(rule.head_where, "the head")]
        places += [(literal.where, _where_word(literal)) for literal in rule.body
                   if literal.kind != "pos"]
        for where, word in places:
            for variable, span in where:
                if variable not in safe:
                    problems.append(Diagnostic(
                        "K202", f"unsafe variable {variable.name}: it is in {word} but in no "
                        "positive literal of the rule's body", span,
                        hint=f"bind {variable.name} in a positive literal of the body, e.g. a "
                             f"relation listing its values"))
    return problems


def _where_word(literal: Literal) -> str:
    return {"neg": "a `not`", "distinct": "a `distinct`", "same": "a negated `distinct`"}[literal.kind]


# ---- stratification --------------------------------------------------------------------------------

def _stratified(rules: list[Rule], graph) -> list[Diagnostic]:
    problems = []
    component_of = {name: i for i, part in enumerate(components(graph)) for name in part}
    for rule in rules:
        head = relation(rule.head)
        for literal in rule.body:
            if literal.kind != "neg":
                continue
            name = relation(literal.atom)
            if component_of.get(name) != component_of.get(head):
                continue
            cycle = _path(graph, head, name, set(component_of_members(component_of, head)))
            shown = " → ".join([f"`{head}`", f"not `{name}`"] + [f"`{n}`" for n in cycle[1:]])
            problems.append(Diagnostic(
                "K203", f"not stratified: {shown}", literal.span,
                hint=f"`{head}` depends on its own negation, so the rules have no single meaning; "
                     f"define `{name}` without `{head}`"))
    return problems


def component_of_members(component_of: dict[str, int], name: str) -> list[str]:
    number = component_of[name]
    return [n for n, c in component_of.items() if c == number]


def _path(graph, target: str, start: str, within: set[str]) -> list[str]:
    """A shortest chain of relations from ``start`` to ``target`` in which each depends on the
    next (the reason ``start`` depends on ``target``), within one component."""
    # graph[head] holds the relations head depends on: walk from start along those edges
    previous: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            if node == target:
                chain = []
                current: str | None = node
                while current is not None:
                    chain.append(current)
                    current = previous[current]
                return list(reversed(chain))
            for body in sorted(graph.get(node, {})):
                if body in within and body not in previous:
                    previous[body] = node
                    following.append(body)
        frontier = following
    return [start, target]


def _split_by_pattern(rules: list[Rule], graph) -> list[Rule] | None:
    """The rules with each relation that depends on itself through `not` split into one
    relation per pattern of its heads' arguments (constants kept, the rest any value):
    ``(goal ?r 100)`` and ``(goal ?r 0)`` become ``goal__0`` and ``goal__1``, each literal that
    reads the relation reads every part its arguments may match (a positive literal one of them,
    in a rule of its own; a negative literal none of them), and the relation itself is the union
    of its parts. The program means the same; it may be stratified where the original is not.
    None when no relation can be split."""
    component_of = {name: i for i, part in enumerate(components(graph)) for name in part}
    bad = {relation(rule.head) for rule in rules for literal in rule.body
           if literal.kind == "neg"
           and component_of.get(relation(literal.atom)) == component_of.get(relation(rule.head))}
    patterns: dict[str, list[tuple]] = {}
    for rule in rules:
        name = relation(rule.head)
        if name in bad and isinstance(rule.head, tuple):
            pattern = _pattern(rule.head)
            if pattern not in patterns.setdefault(name, []):
                patterns[name].append(pattern)
    patterns = {name: found for name, found in patterns.items() if len(found) > 1}
    if not patterns:
        return None
    taken = set(graph)

    def part(name: str, k: int) -> str:
        label = f"{name}__{k}"
        while label in taken:
            label += "_"
        return label

    parts = {name: [part(name, k) for k in range(len(found))] for name, found in patterns.items()}
    split: list[Rule] = []
    for rule in rules:
        head = rule.head
        name = relation(head)
        if name in patterns:
            head = (parts[name][patterns[name].index(_pattern(head))],) + head[1:]
        choices: list[list[list[Literal]]] = []
        for literal in rule.body:
            used = relation(literal.atom) if literal.kind in ("pos", "neg") else None
            if used not in patterns or not isinstance(literal.atom, tuple):
                choices.append([[literal]])
                continue
            matching = [parts[used][k] for k, pattern in enumerate(patterns[used])
                        if _may_match(pattern, literal.atom)]
            renamed = [Literal(literal.kind, ((label,) + literal.atom[1:],), literal.span,
                               literal.where) for label in matching]
            # a positive literal: one of the parts (none: the rule never holds); a negative
            # one: none of them
            choices.append([[r] for r in renamed] if literal.kind == "pos" else [renamed])
        for way in product(*choices):
            body = tuple(literal for group in way for literal in group)
            split.append(Rule(head, body, rule.span, rule.head_span, rule.head_where,
                              rule.sentence))
    for name, labels in parts.items():
        arity = len(patterns[name][0])
        arguments_ = tuple(Var(f"?a{i}") for i in range(arity))
        for label in labels:
            split.append(Rule((name,) + arguments_,
                              (Literal("pos", ((label,) + arguments_,), NOWHERE),), NOWHERE,
                              NOWHERE))
    return split


def _pattern(atom) -> tuple:
    return tuple(a if is_ground(a) else None for a in arguments(atom))


def _may_match(pattern: tuple, atom) -> bool:
    return all(p is None or not is_ground(a) or p == a for p, a in zip(pattern, arguments(atom)))


# ---- the recursion restriction -----------------------------------------------------------------------

def _recursion(rules: list[Rule], graph) -> list[Diagnostic]:
    problems = []
    component_of = {name: i for i, part in enumerate(components(graph)) for name in part}
    for rule in rules:
        head = relation(rule.head)
        head_arguments = set(arguments(rule.head))
        lower = {v for literal in rule.body if literal.kind == "pos"
                 and component_of.get(relation(literal.atom)) != component_of.get(head)
                 for v in variables(literal.atom)}
        for literal in rule.body:
            if literal.kind != "pos" or relation(literal.atom) in STATE:
                continue
            if component_of.get(relation(literal.atom)) != component_of.get(head):
                continue
            for argument in arguments(literal.atom):
                if is_ground(argument) or argument in head_arguments:
                    continue
                loose = [v for v in variables(argument) if v not in lower]
                if loose:
                    span = dict(literal.where).get(loose[0], literal.span)
                    problems.append(Diagnostic(
                        "K204", f"recursion restriction: {loose[0].name} in this recursive "
                        f"literal is neither an argument of the head nor bound by a "
                        "non-recursive literal", span,
                        hint="bind it with a relation outside the recursion (a finite table), "
                             "so the recursion cannot build ever larger terms"))
    return problems


# ---- roles and the parts of a game ---------------------------------------------------------------------

def _roles(rules: list[Rule]) -> tuple[tuple[str, ...], list[Diagnostic]]:
    roles: list[str] = []
    problems = []
    for rule in rules:
        if relation(rule.head) == "role" and not rule.body and is_ground(rule.head):
            name = rule.head[1]
            if type(name) is not str:
                problems.append(Diagnostic("K205", "a role is a constant, not a compound term",
                                           rule.head_span, hint="(role white)"))
            elif name in roles:
                problems.append(Diagnostic("K211", f"the role {name} is declared twice",
                                           rule.head_span, hint="remove one of the two"))
            else:
                roles.append(name)
    return tuple(roles), problems


def _parts(rules: list[Rule], roles: tuple[str, ...]) -> list[Diagnostic]:
    heads = {relation(r.head) for r in rules}
    problems = []
    needs = [("role", "no role: a game needs at least one player", "(role white)"),
             ("terminal", "no rule for `terminal`: the game could never end", "(<= terminal ...)"),
             ("legal", "no rule for `legal`: nobody could ever move", "(<= (legal ?p ...) ...)"),
             ("goal", "no rule for `goal`: no outcome is worth anything", "(<= (goal white 100) ...)")]
    for name, message, example in needs:
        if name not in heads:
            problems.append(Diagnostic("K206", message, NOWHERE, hint=f"add it, e.g. {example}"))
    return problems


def _goal_values(rules: list[Rule]) -> list[Diagnostic]:
    problems = []
    for rule in rules:
        if relation(rule.head) != "goal":
            continue
        value = rule.head[2]
        if type(value) is str and not (is_integer(value) and 0 <= int(value) <= 100):
            problems.append(Diagnostic("K207", f"the goal value {value} is not an integer from 0 "
                                       "to 100", rule.head_span,
                                       hint="a goal is a number of points: 0 to 100"))
        elif isinstance(value, tuple):
            problems.append(Diagnostic("K207", "a goal value is a number, not a compound term",
                                       rule.head_span, hint="(goal white 100)"))
    return problems
