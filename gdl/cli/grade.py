"""`gdl grade`: a student's answers, or a student's search, against an exercise's key."""

from __future__ import annotations

from gdl.cli import UsageError, print_json
from gdl.errors import terminal_safe

RUNS_CODE = ("--search runs the student's Python file (in a separate process, with a time "
             "limit, but not in a sandbox: it can do whatever you can); grade only code you "
             "are willing to run")


def cmd_grade(args) -> int:
    from gdl.tools.grade import GradeError, grade_answers, grade_search, read_answers, read_key

    if (args.answers is None) == (args.search is None):
        raise UsageError("give the student's --answers FILE.json or --search FILE.py")
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    try:
        key = read_key(args.key)
        if args.answers is not None:
            grade = grade_answers(key, read_answers(args.answers), args.answers)
        else:
            grade = grade_search(key, args.search, args.function, args.timeout)
    except GradeError as error:
        raise UsageError(str(error)) from None
    if args.json:
        print_json({"key": args.key, "graded": grade.source, "error": grade.error,
                    "passed": grade.passed, "checks": len(grade.checks),
                    "output": grade.output,
                    "results": [{"what": c.what, "ok": c.ok, "expected": c.expected,
                                 "got": c.got, "details": c.details} for c in grade.checks]})
        return 0 if grade.perfect else 1
    print(f"Grading {terminal_safe(grade.source)} against {terminal_safe(args.key)} "
          f"({key['algorithm']}, {terminal_safe(str(key.get('title', '')))})")
    if grade.output:
        print("the search printed:")
        for line in grade.output.rstrip().splitlines()[-20:]:
            print(f"  | {terminal_safe(line)}")
    if grade.error is not None:
        print(f"no answer to grade: {terminal_safe(grade.error)}")
        return 1
    width = max(len(c.what) for c in grade.checks)
    for check in grade.checks:
        mark = "ok   " if check.ok else "WRONG"
        shown = check.got if check.ok else f"expected {check.expected}, got {check.got}"
        print(f"  {mark}  {check.what:<{width}}  {terminal_safe(shown)}")
        for detail in check.details:
            print(f"  {'':5}  {'':<{width}}  {terminal_safe(detail)}")
    print(f"Score: {grade.passed} of {len(grade.checks)} checks right")
    return 0 if grade.perfect else 1


def register(commands) -> None:
    from gdl.tools.grade import DEFAULT_TIMEOUT

    sub = commands.add_parser(
        "grade", help="grade a student's answers or search against an exercise's key",
        description="Check a student's work against the key of `gdl exercise`, as Berkeley's "
                    "CS188 autograder checks its game trees: the values and the order of "
                    "expansion. --answers reads an answer file (JSON in the layout of the "
                    "exercise's .answers.json: values, order, pruned, best). --search runs the "
                    "student's search(game, state) from a Python file on the exercise's tree "
                    "and watches which nodes it expands, in which order; it returns (value, "
                    "move). " + RUNS_CODE + ". Exit status 0 when everything is right, 1 "
                    "otherwise.",
        epilog="Example: gdl grade kit/exercise-1.key.json --search student.py")
    sub.add_argument("key", metavar="KEY", help="the exercise's key (NAME.key.json)")
    sub.add_argument("--answers", metavar="FILE", help="the student's answer file (JSON)")
    sub.add_argument("--search", metavar="FILE.py",
                     help="the student's search, a Python file defining search(game, state) "
                          "(it is run: see above)")
    sub.add_argument("--function", default="search", metavar="NAME",
                     help="the name of the student's function (default search)")
    sub.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                     help=f"stop the student's search after this long (default "
                          f"{DEFAULT_TIMEOUT:g} s)")
    sub.add_argument("--json", action="store_true", help="the grade as JSON")
    sub.set_defaults(run=cmd_grade)
