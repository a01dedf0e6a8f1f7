"""`gdl check --deep` and the size warning of `gdl solve` (the command-line side of gdl.tools.validate).

gdl.tools.validate knows only the game protocol; this module adds what needs the rule file: the
declared state-space bound (from the checked game's variables), the positions of declarations
(``ir.Game.spans``) to point at, and gcc-style rendering.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from gdl.cli import USAGE_ERROR, UsageError, parse_sets, print_json, read_rule_text
from gdl.errors import Diagnostic, GdlError, Source, terminal_safe
from gdl.lang.text import read_rule_file
from gdl.span import NOWHERE


def declared_state_bound(game) -> int | None:
    """An upper bound on the decision and terminal states from the declarations: the player to
    move times the product of every variable's domain size per cell. An explicit tree: its number
    of nodes. None when the game does not say."""
    known = getattr(game, "declared_state_bound", None)   # compiled games: without their IR
    if isinstance(known, int):
        return known
    rules = getattr(game, "ir", None)
    if rules is not None and rules.tree is None:
        bound = max(1, len(rules.players))
        for var in rules.variables:
            bound *= len(var.values) ** var.size
        return bound
    states = getattr(game, "num_states", None)
    return states if isinstance(states, int) else None


def rule_spans(game) -> dict:
    rules = getattr(game, "ir", None)
    return dict(getattr(rules, "spans", {}) or {})


def _source(path: str, game) -> Source | None:
    source = getattr(game, "source", None)
    if source is not None:
        return source
    try:
        return Source(path, read_rule_file(path))
    except (OSError, GdlError):
        return None


def _span_of(violation, spans: dict):
    if violation.span is not None:
        return violation.span, None
    for rule in violation.rules:
        span = spans.get(rule)
        if span is not None and span.line:
            return span, rule
    return NOWHERE, None


def render(violation, source: Source | None, spans: dict) -> str:
    """gcc style: ``file:line:col: error[E4xx]: message``, the line and a caret, the witness."""
    span, _ = _span_of(violation, spans)
    notes = list(violation.notes)
    if violation.cycle:
        notes.append(f"reached by: {_moves(violation.path)}")
        notes.append(f"then around the cycle: {' '.join(violation.cycle)} "
                     f"({len(violation.cycle)} move(s))")
    else:
        notes.append(f"reached by: {_moves(violation.path)}")
    if violation.count > 1:
        notes.append(f"found at {violation.count} states in all; a first one is shown")
    text = Diagnostic(violation.code, violation.message, span, None, tuple(notes)).render(source)
    if violation.severity != "error":
        text = text.replace(f": error[{violation.code}]", f": {violation.severity}[{violation.code}]", 1)
    return text


def _moves(path) -> str:
    if not path:
        return "(the initial state)"
    return f"{' '.join(path)} ({len(path)} move(s))"


def violation_document(violation, source: Source | None, spans: dict) -> dict:
    span, rule = _span_of(violation, spans)
    out = violation.as_dict()
    out["file"] = source.filename if source else None
    out["line"] = span.line or None
    out["column"] = span.column or None
    if rule:
        out["rule"] = rule
    return out


def summary(report) -> list[str]:
    lines = []
    census = report.census
    if census is not None:
        longest = ("cycles" if census.longest_play is None else f"{census.longest_play:,}")
        together = (f", {census.simultaneous:,} of them simultaneous"
                    if census.simultaneous else "")
        lines.append(f"  exhaustive: {census.states:,} states ({census.decision:,} decision"
                     f"{together}, {census.chance:,} chance, {census.terminal:,} terminal), "
                     f"{census.moves:,} moves, longest play {longest}")
        if census.cyclic_states:
            lines.append(f"  {census.cyclic_states:,} state(s) on cycles, {census.stuck_states:,} "
                         "from which no terminal state can be reached")
        if census.best_utility is not None:
            from gdl.protocol import format_value

            lines.append(f"  best utility reachable: {format_value(census.best_utility)}")
    elif report.explored:
        from gdl.tools.validate import MAX_STATES

        hint = ("" if report.explored >= MAX_STATES
                else " (use --exhaustive to visit them all)")
        lines.append(f"  not exhaustive: more than {report.explored:,} reachable states{hint}")
    if report.information_states is not None:
        counts = ", ".join(f"{player} {count:,}"
                           for player, count in report.information_states.items())
        how = (f"over all {report.histories:,} histories" if report.information_complete else
               f"at least: the first {report.histories:,} histories, breadth first, not all")
        lines.append(f"  information states (where each player chooses): {counts} ({how})")
    cut = f", {report.cut_playouts} cut at the safety limit" if report.cut_playouts else ""
    lines.append(f"  {report.playouts:,} playouts ({report.playout_moves:,} moves, longest "
                 f"{report.longest_playout:,}{cut}), {report.states_visited:,} states visited")
    def counted(severity: str) -> int:
        return sum(1 for v in report.violations if v.severity == severity)

    # a note (e.g. a cycle whose endless play the rules declare) is neither a problem nor a warning
    parts = [f"{n} {label}" for n, label in ((counted("error"), "problem(s)"),
                                              (counted("warning"), "warning(s)"),
                                              (counted("note"), "note(s)")) if n]
    verdict = ", ".join(parts) if counted("error") or counted("warning") else (
        "no problems found" + (f" ({parts[0]})" if parts else ""))
    lines.append(f"  deep check: {verdict}")
    return lines


def check_files(args) -> int:
    """`gdl check` with --deep and/or --json: static checks, then (with --deep) play."""
    from gdl.backends.load import loads
    from gdl.tools.validate import validate

    deep = getattr(args, "deep", False)
    as_json = getattr(args, "json", False)
    if deep and args.playouts < 0:
        raise UsageError("--playouts must be at least 0")
    if deep and args.max_length is not None and args.max_length < 1:
        raise UsageError("--max-length must be at least 1")
    params = parse_sets(args.set)
    failed = unreadable = 0
    documents = []
    for path in args.files:
        document: dict = {"file": path}
        documents.append(document)
        try:
            game = loads(read_rule_text(path), path, params, backend=getattr(args, "backend", "compile"))
        except UsageError as error:
            print(f"gdl check: error: {error}", file=sys.stderr)
            document.update(ok=False, errors=[{"message": str(error)}])
            unreadable += 1
            continue
        except GdlError as error:
            print(error.render(), file=sys.stderr)
            document.update(ok=False, errors=[
                {"code": d.code, "message": d.message, "line": d.span.line or None,
                 "column": d.span.column or None} for d in error.diagnostics])
            failed += 1
            continue
        info = game.info
        document.update(ok=True, game=info.name, players=list(info.players))
        if not deep:
            if not args.quiet and not as_json:
                print(f"{terminal_safe(path)}: ok ({info.name or 'untitled'}, {len(info.players)} player(s): "
                      f"{', '.join(info.players)})")
            continue
        exhaustive = getattr(args, "exhaustive", None)
        report = validate(game, playouts=args.playouts, seed=args.seed, max_length=args.max_length,
                          exhaustive=exhaustive, declared_states=declared_state_bound(game))
        source, spans = _source(path, game), rule_spans(game)
        for violation in report.violations:
            print(render(violation, source, spans), file=sys.stderr)
        deep_doc = report.as_dict()
        deep_doc["violations"] = [violation_document(v, source, spans) for v in report.violations]
        document.update(ok=report.ok, deep=deep_doc)
        if not report.ok:
            failed += 1
        if not as_json and (not args.quiet or report.violations):
            verdict = "ok" if report.ok else "FAILED"
            print(f"{path}: {verdict} ({info.name or 'untitled'}, {len(info.players)} player(s): "
                  f"{', '.join(info.players)})")
            for line in summary(report):
                print(line)
    if as_json:
        print_json({"ok": not (failed or unreadable), "files": documents})
    return USAGE_ERROR if unreadable else 1 if failed else 0


REFUSE_SECONDS = 3600.0   # `gdl solve` refuses a search estimated longer than this (unless --force)

def _check_declared_length(game, root) -> None:
    """A game that declares max-length is searched without repetition checks: if it can in
    fact cycle, say so now rather than after a search 200,000 plies deep."""
    from gdl.tools.graph_advice import find_cycle

    found = find_cycle(game, root, limit=20_000)
    if found is not None:
        path, cycle = found
        raise UsageError(f"the game declares max-length {game.info.max_length}, but it can go on "
                         f"forever: after {' '.join(path) or 'the start'}, the moves "
                         f"{' '.join(cycle)} come back to the same state (gdl check --deep shows it)")


# What a search node costs, nominally, for the time a message quotes and for the refusal: the
# Python tier 5 µs (alpha-beta on Connect Four 5x4: 286,126 nodes in 1.6 CPU s), the native tier
# 0.5 µs (the same search in 0.15 s; Star2 on Pig, 5.0e9 nodes in 1,000 s on a loaded machine:
# 0.2 µs). Fixed figures, not a measurement: the decision to refuse is the same on every run of
# the same command (a measured cost decided it before, and a busy machine refused a search on
# one run in two). A game's rules may make its nodes a few times dearer or cheaper.
NODE_SECONDS = {"native": 0.5e-6, "python": 5e-6}
# How many nodes the shallower searches of a depth-limited one may visit to measure it
# (gdl.solvers.size.probe): a fraction of a second in either tier.
PROBE_NODES = {"native": 2_000_000, "python": 50_000}


@dataclass(frozen=True)
class SizeEstimate:
    """What `gdl solve` expected a search to visit before it ran, and how: reported with the
    result (the stats line and --json), with how far off it was."""

    nodes: float
    how: str

    def document(self, visited: int) -> dict:
        return {"nodes": _rounded(self.nodes), "from": self.how,
                "visited_over_estimate": _ratio(visited, self.nodes)}

    def line(self, visited: int) -> str:
        return (f"  estimate {self.nodes:,.0f} nodes, from {self.how}: the search visited "
                f"{_ratio(visited, self.nodes)}x that")


def _rounded(nodes: float) -> int | float:
    return int(nodes) if nodes < 2 ** 53 else float(f"{nodes:.4g}")


def _ratio(visited: int, nodes: float) -> float:
    return float(f"{visited / max(nodes, 1.0):.3g}")


def solve_size_check(game, args, root, algorithm: str, native: bool = False,
                     count_nodes=None) -> SizeEstimate:
    """Before `gdl solve`: estimate the search's nodes; warn on stderr when that is over the
    budget (gdl.tools.validate.BUDGET), refuse (UsageError, exit 2) with --strict, or when it
    would take more than REFUSE_SECONDS at NODE_SECONDS a node unless --force. ``native``: the
    search runs in the native tier. ``count_nodes(depth)``, when given, runs the search to a
    shallower depth and counts its nodes: a depth-limited search is then measured by its own
    shallower runs (gdl.solvers.size) rather than modelled. Every figure is counted or drawn
    from seeded playouts, so the same command always makes the same estimate and decision.
    Returns the estimate, for the report after the search."""
    import gdl.tools.validate as validate

    if algorithm == "auto":
        from gdl.solvers import choose

        algorithm = choose(game.info)
    if args.depth is None and game.info.max_length is not None:
        _check_declared_length(game, root)
    transpositions = getattr(args, "engine_tt", None)   # --tt / --no-tt
    declared = declared_state_bound(game)
    budget = validate.BUDGET
    tier = "native" if native else "python"
    if (declared is not None and declared <= budget
            and (algorithm in validate.TRANSPOSITIONS if transpositions is None else transpositions)):
        # A search with a table costs about the distinct states (validate.search_cost), and
        # those are at most the declared bound: within the budget whatever the playouts would
        # say, so they are not played (start-up).
        return SizeEstimate(declared, "the declared state bound (a search with a "
                                      "transposition table visits each state about once)")
    est = validate.estimate(game, root=root, declared_states=declared)
    if est.cycles and args.depth is None and game.info.max_length is None:
        # A game that cycles is no problem here: where the tree search meets a repetition,
        # `gdl solve` solves the state graph instead, within its own bound (gdl/cli/strong.py).
        return SizeEstimate(est.states, "the distinct states of a game that cycles (its "
                                        "state graph is solved)")
    ordering = getattr(args, "engine_ordering", None) is not False    # alpha-beta's, on by default
    nodes, what = _modelled(est, algorithm, args.depth, transpositions, ordering)
    how = _knuth(est, what)
    by_depth = {d: _modelled(est, algorithm, d, transpositions, ordering)[0]
                for d in range(1, len(est.tree_by_depth))}
    if (count_nodes is not None and args.depth is not None and args.depth >= 1
            and est.nodes_within(args.depth) > PROBE_NODES[tier]):
        # Measured rather than modelled: how much a search prunes is what the model guesses
        # worst (Star2 on Pig: 80x off), and the probe counts it.
        measured = _probe(count_nodes, args.depth, PROBE_NODES[tier])
        if measured is not None:
            nodes, how = measured.nodes, measured.describe()
            what = "nodes"
            by_depth = {d: float(n) for d, n in enumerate(measured.counts, 1)}
            by_depth.update({d: extrapolate(measured.counts, d)
                             for d in range(len(measured.counts) + 1, args.depth)})
    estimate_made = SizeEstimate(nodes, how)
    if nodes <= budget:
        return estimate_made
    seconds = nodes * NODE_SECONDS[tier]
    problem = (f"{algorithm} would visit about {nodes:.3g} {what}, over the budget of "
               f"{budget:.0e}: about {validate.duration_text(seconds)} at a nominal "
               f"{NODE_SECONDS[tier] * 1e6:.2g} µs a node in the {tier} tier; estimated from "
               f"{how}"
               + validate.suggestion(game.info, algorithm, args.depth, by_depth, budget,
                                     lambda: _modelled(est, "alphabeta", args.depth, None,
                                                       True)[0]))
    if seconds > REFUSE_SECONDS and not getattr(args, "force", False):
        raise UsageError(f"refusing to search: {problem}; --force searches anyway")
    if getattr(args, "strict", False):
        raise UsageError(f"refusing to search: {problem}")
    print(f"gdl solve: warning: {problem}", file=sys.stderr)
    return estimate_made


def _probe(count_nodes, depth: int, budget: int):
    """gdl.solvers.size.probe, or None where a shallower search fails (a rule error: the search
    itself reports it)."""
    from gdl.solvers.size import probe

    try:
        return probe(count_nodes, depth, budget)
    except Exception:       # the search proper reports what went wrong, located
        return None


def extrapolate(counts, depth: int) -> float:
    from gdl.solvers.size import extrapolate as extrapolated

    return extrapolated(tuple(counts), depth)[0]


def _modelled(est, algorithm: str, depth: int | None, transpositions: bool | None,
              ordering: bool) -> tuple[float, str]:
    """gdl.tools.validate.search_cost, except that alpha-beta's move ordering, not its table,
    earns the well-ordered figure (n^0.5 of the n nodes at each depth): without a table the
    engine still orders by the table's move and the evaluation (Connect Four 5x4 --no-tt:
    3.6e6 nodes visited, 8.5e8 by the random-ordering figure)."""
    from gdl.tools.validate import PRUNING, TRANSPOSITIONS, search_cost

    if algorithm != "alphabeta" or not ordering:
        return search_cost(est, algorithm, depth, transpositions)
    table = algorithm in TRANSPOSITIONS if transpositions is None else transpositions
    nodes = est.nodes_within(depth, pruning=algorithm in PRUNING, ordered=True)
    if table and est.states < nodes:
        return est.states, "distinct states (transposition table)"
    return nodes, "nodes (alpha-beta pruning, estimated)"


def _knuth(est, what: str) -> str:
    """How the playouts' estimate was made, in words (``what``: validate.search_cost's)."""
    text = f"{est.samples} seeded random playouts (Knuth's estimator of a tree's size)"
    if "distinct states" in what:
        return text + ", capped by the distinct states a table keeps"
    if "pruning" in what:
        return text + (", pruning modelled as n^0.75 of the n nodes at each depth (n^0.5 "
                       "where alpha-beta orders its moves; Knuth and Moore)")
    return text


def solve_result_notes(result) -> list[str]:
    """Notes to print after a solve: a bounded transposition table that had to overwrite entries."""
    extra = getattr(result, "extra", {}) or {}
    # A few overwrites happen in any two-way bucketed table; say so only once it is filling.
    if extra.get("tt_full") and extra.get("tt_entries", 0) * 2 >= extra.get("tt_capacity", 0):
        return [f"gdl solve: note: the transposition table (room for {extra.get('tt_capacity', 0):,} "
                f"entries, {extra.get('tt_entries', 0):,} in use) overwrote "
                f"{extra.get('tt_replaced', 0):,} entries; an overwritten position met again is "
                "searched again, which costs nodes but never changes the answer (--tt-size N "
                "gives it more room)"]
    return []
