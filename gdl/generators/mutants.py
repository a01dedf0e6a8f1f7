"""Near-miss rule files: small edits to real ones, such as a careless or hostile user might write.

``corpus`` gathers the real files (every bundled game, every whole game in the docs); ``mutate``
makes one mutant of a file: a token deleted, duplicated or swapped, a number made huge or
negative, a name or operator replaced, a control character, a stray line ending or a lone quote
inserted, lines dropped or repeated, an expression probe spliced into a utility... Each edit is
drawn from a ``random.Random`` the caller seeds, so a seed gives the same mutants every time.
What is done with them is ``gdl.tools.mutate``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from pathlib import Path

_TOKEN = re.compile(r'"[^"\n]*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\d+|\.\.|[<>!=]=|\s+|.', re.S)
_NUMBERS = ["0", "1", "-1", "2", "3", "7", "-7", "100", "1000000", "1000001", "999999999999",
            "9" * 5000, "000", "2147483648"]
_WORDS = ["players", "var", "action", "define", "const", "param", "any", "all", "sum", "count",
          "min", "max", "mover", "true", "false", "if", "else", "not", "in", "requires",
          "effect", "random", "terminal", "utility", "evaluate", "zero-sum", "max-length",
          "display", "tree", "game", "pass"]
_OPERATORS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "and", "or", "..", "=",
              ",", ":", ";", "(", ")", "[", "]", "{", "}"]
_CHARACTERS = ["\r", "\r\n", "\x1b", "\x00", "\x07", "\ufeff", "\u202e", "²", "①", "٣", '"', "#",
               "(", ")", "{", "}", "\u2028", "\t", "/", "..", "\\", "é", "\x0c"]
# Expressions worth computing on both back ends (the compiler folds constants, reorders guards
# and unrolls quantifiers; the interpreter does none of that): {v} is an integer variable.
_PROBES = [
    "({v} - 5) / -3", "({v} - 5) % -3", "-{v} / 2", "-{v} % 2", "7 / ({v} + 1)",
    "(0 - {v}) % 4", "(2 < {v}) == (2 <= {v} - 1)", "(1 if 3 < {v} else 0)",
    "(1 if 3 <= {v} else 0)", "(1 if {v} >= 2 and {v} >= 3 else 0)",
    "(1 if {v} > 2 or {v} < -2 else 0)", "(count i in 0..3: 2 < i)",
    "(sum i in 0..3: ({v} - i) / 2)", "(1 if any i in 0..2: 3 <= 2 else 0)",
    "(1 if all i in 0..2: i < 5 else 0)", "(max i in 0..3: i - {v})",
    "(min({v}, 2) % 3)", "abs({v} - 9) / 4", "(1 if 5 > {v} + 1 else 0)",
]


# ---- the corpus ------------------------------------------------------------------------------

def corpus(root: Path) -> list[tuple[str, str]]:
    """(name, text) of every bundled game and every rule-file example in the docs that loads."""
    from gdl.backends.load import loads

    found: list[tuple[str, str]] = []
    for path in sorted((root / "games").glob("*.game")):
        found.append((path.name, path.read_text(encoding="utf-8")))
    for doc in sorted((root / "docs").glob("*.md")):
        blocks = re.findall(r"```[a-z]*\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
        for number, block in enumerate(blocks):
            if "players" not in block and "tree" not in block:
                continue
            try:
                loads(block, backend="interpret")
            except Exception:   # fragments of rules, shell sessions: not whole games
                continue
            found.append((f"{doc.name}#{number}", block))
    return found


# ---- mutations -------------------------------------------------------------------------------

def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _solid(tokens: Sequence[str]) -> list[int]:
    return [i for i, t in enumerate(tokens) if not t.isspace()]


def mutate(text: str, rng: random.Random, others: Sequence[str] = ()) -> tuple[str, str]:
    """One mutant of ``text`` and a short description of the edit."""
    tokens = _tokens(text)
    solid = _solid(tokens) or [0]
    kind = rng.choice(["delete", "duplicate", "swap", "number", "name", "operator", "character",
                       "line", "line", "truncate", "splice", "range", "probe", "probe", "twice"])
    if kind == "twice":
        once, first = mutate(text, rng, others)
        again, second = mutate(once, rng, others)
        return again, f"{first}; {second}"
    if kind in ("delete", "duplicate", "swap"):
        i = rng.choice(solid)
        if kind == "delete":
            tokens[i] = ""
        elif kind == "duplicate":
            tokens[i] = tokens[i] + " " + tokens[i]
        else:
            j = solid[min(solid.index(i) + 1, len(solid) - 1)]
            tokens[i], tokens[j] = tokens[j], tokens[i]
        return "".join(tokens), f"{kind} token {i}"
    if kind == "number":
        numbers = [i for i in solid if tokens[i].isdigit()] or solid
        i = rng.choice(numbers)
        tokens[i] = rng.choice(_NUMBERS)
        return "".join(tokens), f"number {i} -> {tokens[i][:12]}"
    if kind == "name":
        names = [i for i in solid if re.fullmatch(r"[A-Za-z_]\w*", tokens[i])] or solid
        i = rng.choice(names)
        pool = [tokens[j] for j in names] + _WORDS
        tokens[i] = rng.choice(pool)
        return "".join(tokens), f"name {i} -> {tokens[i]}"
    if kind == "operator":
        i = rng.choice(solid)
        tokens[i] = rng.choice(_OPERATORS)
        return "".join(tokens), f"operator {i} -> {tokens[i]}"
    if kind == "character":
        position = rng.randrange(len(text) + 1)
        char = rng.choice(_CHARACTERS)
        return text[:position] + char + text[position:], f"insert {char!r} at {position}"
    if kind == "line":
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        how = rng.choice(["drop", "repeat", "swap"])
        if how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines), f"{how} line {i + 1}"
    if kind == "truncate":
        position = rng.randrange(len(text) + 1)
        return text[:position], f"truncate at {position}"
    if kind == "splice" and others:
        donor = rng.choice(others).split("\n")
        line = rng.choice(donor)
        lines = text.split("\n")
        lines.insert(rng.randrange(len(lines) + 1), line)
        return "\n".join(lines), f"splice {line[:40]!r}"
    if kind == "range":
        ranges = list(re.finditer(r"(-?\w+)\s*\.\.\s*(-?\w+)", text))
        if ranges:
            found = rng.choice(ranges)
            swapped = f"{found[2]}..{found[1]}" if rng.random() < 0.5 else f"{found[1]}..{found[1]}"
            return text[:found.start()] + swapped + text[found.end():], f"range {swapped}"
    # a probe: an expression spliced into a utility or an evaluation, over an integer variable
    variables = re.findall(r"^var\s+(\w+)\s+in\s+-?\d+\s*\.\.", text, re.M)
    targets = list(re.finditer(r"^(utility|evaluate)\s+\w+\s*=\s*", text, re.M))
    if variables and targets:
        target = rng.choice(targets)
        probe = rng.choice(_PROBES).format(v=rng.choice(variables))
        return text[:target.end()] + f"{probe} + " + text[target.end():], f"probe {probe}"
    return mutate(text, rng, others) if kind != "probe" else (text + "\n#", "append a comment")

