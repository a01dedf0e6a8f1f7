"""`gdl exercise`: an exercise in adversarial search (a random tree from a seed, or a tree file)
with its answer key, as text, JSON, SVG or files."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from gdl.cli import UsageError, load_game, read_rule_text, write_output
from gdl.errors import terminal_safe

SHAPE_OPTIONS = ("branching", "depth", "players", "chance", "outcomes", "values")


def cmd_exercise(args) -> int:
    from gdl.solvers import SolverError
    from gdl.tools.exercise import (
        ExerciseError,
        Shape,
        blank_answers,
        exercise_text,
        key_json,
        make_exercise,
        random_exercise,
    )
    from gdl.tools.exercise_svg import exercise_svg

    try:
        if args.file is not None:
            given = [f"--{name}" for name in SHAPE_OPTIONS
                     if getattr(args, name) not in (None, False)]
            if given or args.seed is not None:
                raise UsageError(f"{' '.join(given + (['--seed'] if args.seed is not None else []))}"
                                 ": a tree file has its own shape; give either FILE or the shape "
                                 "of a random tree")
            rules = read_rule_text(args.file)
            game = load_game(args.file)
            name = Path(args.file).stem
            exercise = make_exercise(game, rules, game.info.name or name, args.algorithm,
                                     source=args.file)
        else:
            low, high = _values(args.values)
            shape = Shape(branching=args.branching or (2 if args.chance else 3),
                          depth=args.depth or (2 if args.chance else 3),
                          players=args.players or 2, chance=args.chance,
                          outcomes=args.outcomes or 2, low=low, high=high)
            seed = 1 if args.seed is None else args.seed
            name = f"exercise-{seed}"
            exercise = random_exercise(seed, shape, args.algorithm)
    except ExerciseError as error:
        raise UsageError(str(error)) from None
    except SolverError as error:
        raise UsageError(f"--algorithm {args.algorithm}: {error}") from None
    texts = {
        "game": exercise.rules,
        "txt": exercise_text(exercise),
        "key.txt": exercise_text(exercise, with_key=True),
        "key.json": json.dumps(key_json(exercise), indent=2) + "\n",
        "answers.json": json.dumps(blank_answers(exercise), indent=2) + "\n",
        "svg": exercise_svg(exercise),
        "key.svg": exercise_svg(exercise, with_key=True),
    }
    if args.output_dir is not None:
        folder = Path(args.output_dir)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--output-dir {terminal_safe(str(folder))}: "
                             f"{error.strerror or error}") from None
        for suffix, text in texts.items():
            if suffix == "game" and args.file is not None:
                continue            # the tree is the file given
            path = folder / f"{name}.{suffix}"
            write_output(str(path), text.encode("utf-8"), "--output-dir")
            print(path)
        return 0
    chosen = {"text": "key.txt" if args.key else "txt", "json": "key.json",
              "svg": "key.svg" if args.key else "svg", "game": "game",
              "answers": "answers.json"}[args.format]
    sys.stdout.write(texts[chosen])
    return 0


def _values(text: str | None) -> tuple[int, int]:
    if text is None:
        return -9, 9
    found = re.fullmatch(r"\s*(-?\d{1,6})\s*\.\.\s*(-?\d{1,6})\s*", text)
    if not found:
        raise UsageError(f"--values {text!r}: give a range LOW..HIGH, e.g. 0..20")
    return int(found[1]), int(found[2])


def register(commands) -> None:
    from gdl.tools.trace import ALGORITHMS

    sub = commands.add_parser(
        "exercise", help="an exercise in adversarial search and its answer key",
        description="Draw a random game tree from a seed (or take a tree file, e.g. a textbook "
                    "figure), and write the exercise: apply a search to it, give the value at "
                    "every node it visits, the order of its visits, the branches it prunes and "
                    "the best move. The answer key comes from the search's own trace. As text "
                    "(--key: with the key), JSON (the key `gdl grade` reads), SVG (the tree "
                    "with blanks; --key: filled in), the tree file, or a blank answer file; "
                    "--output-dir writes them all.",
        epilog="Example: gdl exercise --seed 1 --output-dir kit   "
               "(then: gdl grade kit/exercise-1.key.json --answers answers.json)")
    sub.add_argument("file", nargs="?", metavar="FILE",
                     help="a tree file (`tree { ... }`) to make the exercise of, instead of a "
                          "random tree")
    sub.add_argument("--seed", type=int, metavar="N", help="the random tree's seed (default 1)")
    sub.add_argument("--branching", type=int, metavar="B",
                     help="moves at every decision (default 3; 2 with --chance)")
    sub.add_argument("--depth", type=int, metavar="D",
                     help="decision plies (default 3; 2 with --chance)")
    sub.add_argument("--players", type=int, metavar="N",
                     help="players taking turns (default 2; more: max^n, vectors at the leaves)")
    sub.add_argument("--chance", action="store_true",
                     help="a chance node after every move (expectiminimax)")
    sub.add_argument("--outcomes", type=int, metavar="K",
                     help="outcomes of every chance node (default 2)")
    sub.add_argument("--values", metavar="LOW..HIGH", help="leaf values (default -9..9)")
    sub.add_argument("--algorithm", default="auto", choices=("auto",) + ALGORITHMS,
                     help="the search to apply (default: alphabeta for two players, "
                          "expectiminimax with chance, maxn for more players)")
    sub.add_argument("--format", default="text", choices=("text", "json", "svg", "game",
                                                          "answers"),
                     help="text (the default), json (the key), svg (the tree), game (the tree "
                          "file), answers (a blank answer file to fill in)")
    sub.add_argument("--key", action="store_true",
                     help="text and svg: with the answers filled in")
    sub.add_argument("--output-dir", metavar="DIR",
                     help="write every form to DIR: NAME.game, .txt, .key.txt, .key.json, "
                          ".answers.json, .svg, .key.svg")
    sub.set_defaults(run=cmd_exercise)
