"""Grading against an exercise's key (gdl.tools.exercise): a student's answer file, or a
student's search run on the exercise's tree, checked for values *and* the order of expansion
(as Berkeley's CS188 autograder checks its game-tree tests).

**A student's search is a Python file, and grading runs it**: that is the point, and also why it
runs in a separate Python process with a time limit, so that a crash or an endless loop in it
cannot take the grader down. That process is not a sandbox: the code can do anything the user
running `gdl grade` can. Grade only code you are willing to run.

The student's file defines ``search(game, state)`` (another name with ``function``), which is
given the exercise's tree as a gdl game (gdl.protocol: ``current_player``, ``legal_actions``,
``apply``, ``chance_outcomes``, ``returns``; ``CHANCE`` and ``TERMINAL`` from gdl.protocol) and
its root, and returns ``(value, action)``: the root's value (the first player's, or a vector
with more players) and the move chosen; a bare number is taken as the value alone, a bare
string as the move alone. A node counts as visited, in the order of expansion, the first time
the search asks anything about it (``current_player``, ``legal_actions``, ``chance_outcomes``,
``returns``); applying a move to reach it is free.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from gdl.tools.exercise import FORMAT, parse_value, value_text

DEFAULT_TIMEOUT = 10.0
OUTPUT_KEPT = 4000          # characters of the student's own printing shown


class GradeError(Exception):
    """A key or an answer file that cannot be read (the message says which and why)."""


@dataclass
class Check:
    """One thing graded: ``what`` (e.g. "value at a2", "order of expansion"), whether it is
    right, what the key says and what the student gave, and details where they differ."""

    what: str
    ok: bool
    expected: str
    got: str
    details: list[str] = field(default_factory=list)


@dataclass
class Grade:
    checks: list[Check]
    source: str                         # what was graded
    output: str = ""                    # what the student's search printed
    error: str | None = None            # why the student's search gave no answer

    @property
    def passed(self) -> int:
        return sum(c.ok for c in self.checks)

    @property
    def perfect(self) -> bool:
        return self.error is None and all(c.ok for c in self.checks)


def read_key(path: str) -> dict[str, Any]:
    """An exercise key written by `gdl exercise` (``*.key.json``)."""
    document = _read_json(path, "key")
    if not isinstance(document, dict) or document.get("gdl_exercise") != FORMAT:
        raise GradeError(f"{path}: not an exercise key of gdl exercise (format {FORMAT}); "
                         "write one with `gdl exercise --output-dir DIR`")
    for name in ("rules", "answers", "nodes", "algorithm"):
        if name not in document:
            raise GradeError(f"{path}: the key has no {name!r}")
    return document


def read_answers(path: str) -> dict[str, Any]:
    document = _read_json(path, "answer file")
    if not isinstance(document, dict):
        raise GradeError(f"{path}: an answer file is a JSON object with values, order, "
                         "pruned and best (the layout of the exercise's *.answers.json)")
    if "answers" in document and isinstance(document["answers"], dict):
        document = document["answers"]      # a whole key given as the answers
    unknown = set(document) - {"values", "order", "pruned", "best", "optimal"}
    if unknown:
        raise GradeError(f"{path}: unknown field(s) {', '.join(sorted(unknown))}; an answer "
                         "file has values, order, pruned and best")
    return document


def _read_json(path: str, what: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise GradeError(f"{path}: cannot read the {what}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise GradeError(f"{path}: the {what} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise GradeError(f"{path}:{error.lineno}:{error.colno}: the {what} is not valid JSON: "
                         f"{error.msg}") from None


# ---- an answer file ------------------------------------------------------------------------------

def grade_answers(key: dict[str, Any], given: dict[str, Any], source: str) -> Grade:
    """The student's answers (values, order, pruned, best) against the key's."""
    expected = key["answers"]
    checks: list[Check] = []
    values = given.get("values") or {}
    if not isinstance(values, dict):
        raise GradeError(f"{source}: values must be an object: node name -> value")
    for name, want in expected["values"].items():
        got = values.get(name)
        checks.append(_value_check(f"value at {name}", want, got))
    for name in values:
        if name not in expected["values"] and values[name] is not None:
            if name in key["nodes"]:
                checks.append(Check(f"value at {name}", False, "(not visited: no value)",
                                    _shown(values[name]),
                                    ["the search never computes a value here"]))
            else:
                checks.append(Check(f"value at {name}", False, "(no such node)",
                                    _shown(values[name]),
                                    [f"the tree has no node {name!r}"]))
    checks.append(order_check(expected["order"], _names(given.get("order"), source, "order")))
    checks.append(pruned_check(expected["pruned"], _names(given.get("pruned"), source,
                                                          "pruned")))
    checks.append(best_check(expected, given.get("best")))
    return Grade(checks, source)


def _names(value: Any, source: str, field_name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GradeError(f"{source}: {field_name} must be a list of node names")
    return value


def _shown(value: Any) -> str:
    if value is None:
        return "(blank)"
    return value_text(value)


def _value_check(what: str, want: Any, got: Any) -> Check:
    expected = parse_value(want)
    try:
        answer = parse_value(got)
    except ValueError as error:
        return Check(what, False, _shown(want), _shown(got), [str(error)])
    ok = answer is not None and expected is not None and answer[0] == expected[0] \
        and _same(answer[1], expected[1])
    details = []
    if answer is not None and expected is not None and not ok:
        if answer[0] != expected[0] and _same(answer[1], expected[1]):
            details.append("the right number, but the search only bounds it here"
                           if expected[0] != "exact" else
                           "the right number, and the search knows it exactly here")
    return Check(what, ok, _shown(want), _shown(got), details)


def _same(a: Any, b: Any) -> bool:
    """Equal values; a float (a student's own arithmetic) within 1e-9 of the exact value."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, float) or isinstance(b, float):
        return abs(float(a) - float(b)) <= 1e-9
    return Fraction(a) == Fraction(b)


def order_check(expected: list[str], got: list[str]) -> Check:
    """The order of expansion: the first place the student's differs, and what was visited
    that should not have been (and the other way round)."""
    ok = expected == got
    details = []
    if not ok:
        first = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
                     min(len(expected), len(got)))
        want = expected[first] if first < len(expected) else "(nothing more)"
        gave = got[first] if first < len(got) else "(nothing more)"
        details.append(f"they part at visit {first + 1}: the search visits {want}, the "
                       f"answer {gave}")
        extra = [n for n in got if n not in expected]
        missing = [n for n in expected if n not in got]
        if extra:
            details.append(f"visited, but the search never visits them: {' '.join(extra)}")
        if missing:
            details.append(f"not visited, but the search visits them: {' '.join(missing)}")
    return Check("order of expansion", ok, " ".join(expected), " ".join(got) or "(blank)",
                 details)


def pruned_check(expected: list[str], got: list[str]) -> Check:
    want, gave = set(expected), set(got)
    details = []
    if want - gave:
        details.append("pruned, not listed: " + " ".join(n for n in expected if n not in gave))
    if gave - want:
        details.append("listed, but not pruned: " + " ".join(n for n in got if n not in want))
    return Check("pruned branches", want == gave, " ".join(expected) or "(none)",
                 " ".join(got) or "(none)", details)


def best_check(expected: dict[str, Any], got: Any) -> Check:
    want = expected.get("best")
    ok = got == want
    details = []
    if not ok and got in (expected.get("optimal") or []):
        details.append(f"{got} is optimal too, but the search chooses {want} (the first best "
                       "in order)")
    return Check("best move", ok, want or "(none)", str(got) if got is not None else "(blank)",
                 details)


# ---- a student's search --------------------------------------------------------------------------

def grade_search(key: dict[str, Any], student: str, function: str = "search",
                 timeout: float = DEFAULT_TIMEOUT) -> Grade:
    """Run the student's ``function`` from the file ``student`` on the exercise's tree (in a
    separate Python process, at most ``timeout`` seconds: see the module notes) and grade what
    it returns and the order in which it expanded the nodes."""
    source = f"{student} ({function})"
    if not Path(student).is_file():
        raise GradeError(f"{student}: no such file (the student's search, a Python file)")
    request = {"rules": key["rules"], "student": str(Path(student).resolve()),
               "function": function}
    with tempfile.TemporaryDirectory(prefix="gdl-grade-") as folder:
        answer_path = Path(folder) / "answer.json"
        request["answer"] = str(answer_path)
        env = dict(os.environ)
        here = str(Path(__file__).resolve().parent.parent.parent)   # where gdl can be imported
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
        try:
            done = subprocess.run([sys.executable, "-c",
                                   "from gdl.tools.grade import run_student; run_student()"],
                                  input=json.dumps(request), capture_output=True, text=True,
                                  timeout=timeout, env=env, cwd=str(Path(student).parent))
        except subprocess.TimeoutExpired as expired:
            output = _text(expired.stdout)
            return Grade([], source, output[-OUTPUT_KEPT:],
                         f"the search did not return within {timeout:g} s (an endless loop? "
                         "a bigger --timeout?)")
        output = (done.stdout or "")[-OUTPUT_KEPT:]
        if not answer_path.exists():
            why = (done.stderr or "").strip() or f"it exited with status {done.returncode}"
            return Grade([], source, output, f"the search process stopped: {why[-2000:]}")
        answer = json.loads(answer_path.read_text(encoding="utf-8"))
    if answer.get("error"):
        return Grade([], source, output, answer["error"])
    return _grade_run(key, answer, source, output)


def _text(data: Any) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)


def _grade_run(key: dict[str, Any], answer: dict[str, Any], source: str, output: str) -> Grade:
    expected = key["answers"]
    checks: list[Check] = []
    returned = answer.get("returned") or {}
    if "value" in returned:
        value = returned["value"]
        if len(key.get("players", ())) == 2 and isinstance(value, list) and value:
            value = value[0]            # both players' values: the key has the first's
        checks.append(_value_check("value at root", expected["values"].get("root"), value))
    else:
        checks.append(Check("value at root", False, _shown(expected["values"].get("root")),
                            "(not returned)", ["return (value, move) to have it graded"]))
    if "action" in returned:
        checks.append(best_check(expected, returned["action"]))
    else:
        checks.append(Check("best move", False, expected.get("best") or "(none)",
                            "(not returned)", ["return (value, move) to have it graded"]))
    checks.append(order_check(expected["order"], answer["visits"]))
    pruned = answer.get("unvisited", [])
    checks.append(pruned_check(expected["pruned"], pruned))
    if answer.get("strange"):
        checks[-1].details.append("asked about states that are not nodes of the tree: "
                                  + ", ".join(answer["strange"][:5]))
    return Grade(checks, source, output)


class Watched:
    """The exercise's game, noting the nodes a search asks about, in order (see the module
    notes); a node is named by the path of moves that reaches it."""

    def __init__(self, game: Any):
        self._game = game
        self.info = game.info
        root = game.initial_state()
        self.paths: dict[Any, tuple] = {root: ()}
        self.visits: list[tuple] = []
        self.strange: list[str] = []
        self._seen: set = set()

    def initial_state(self):
        return self._game.initial_state()

    def apply(self, state, action):
        child = self._game.apply(state, action)
        if state in self.paths and child not in self.paths:
            self.paths[child] = self.paths[state] + (action,)
        return child

    def _visit(self, state) -> None:
        if state in self._seen:
            return
        self._seen.add(state)
        path = self.paths.get(state)
        if path is None:
            self.strange.append(repr(state))
        else:
            self.visits.append(path)

    def current_player(self, state):
        self._visit(state)
        return self._game.current_player(state)

    def legal_actions(self, state):
        self._visit(state)
        return self._game.legal_actions(state)

    def chance_outcomes(self, state):
        self._visit(state)
        return self._game.chance_outcomes(state)

    def returns(self, state):
        self._visit(state)
        return self._game.returns(state)

    def evaluate(self, state):
        self._visit(state)
        return self._game.evaluate(state)

    def action_name(self, action):
        return self._game.action_name(action)


def run_student() -> None:
    """In the separate process: load the tree and the student's file, run the search, write
    what it returned and what it visited (JSON) where the grader asked."""
    import runpy
    import traceback

    from gdl.backends.load import loads
    from gdl.tools.exercise import names_of, node_paths

    request = json.loads(sys.stdin.read())
    answer: dict[str, Any] = {}
    try:
        game = loads(request["rules"], "exercise.game")
        paths = node_paths(game)
        names = names_of(paths, game)
        watched = Watched(game)
        student = request["student"]
        sys.path.insert(0, str(Path(student).parent))
        try:
            space = runpy.run_path(student, run_name="student")
            function = space.get(request["function"])
            if not callable(function):
                raise LookupError(f"{student} defines no function {request['function']}() "
                                  "(name another with --function)")
            returned = function(watched, watched.initial_state())
        except LookupError as error:
            answer["error"] = str(error)
        except BaseException as error:     # the student's code: say what it raised, where
            frames = [f for f in traceback.extract_tb(error.__traceback__)
                      if f.filename == student]
            where = "".join(traceback.format_list(frames[-5:]))
            answer["error"] = (f"the search raised {type(error).__name__}: {error}\n"
                               + where.rstrip())
        else:
            answer["returned"] = _returned(returned, game)
            visited = set(watched.visits)
            answer["visits"] = [names[p] for p in watched.visits if p in names]
            # the tops of the subtrees it never entered
            answer["unvisited"] = [names[p] for p in paths
                                   if p and p not in visited and p[:-1] in visited]
            answer["strange"] = watched.strange
    except BaseException as error:      # loading the tree: not the student's doing
        answer["error"] = f"the exercise's tree could not be loaded: {error}"
    Path(request["answer"]).write_text(json.dumps(answer), encoding="utf-8")


def _returned(returned: Any, game: Any) -> dict[str, Any]:
    """What the student's search returned: (value, move), a value (a number, or a vector of
    them), or a move (a string: the tree's moves are their labels)."""
    def value(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return [_number_json(x) for x in v]
        return _number_json(v)

    if isinstance(returned, str):
        return {"action": returned}
    if isinstance(returned, (tuple, list)) and len(returned) == 2 \
            and (returned[1] is None or isinstance(returned[1], str)):
        v, action = returned
        out: dict[str, Any] = {"value": value(v)}
        if action is not None:
            out["action"] = str(game.action_name(action))
        return out
    return {"value": value(returned)}


def _number_json(v: Any) -> Any:
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    return str(v)
