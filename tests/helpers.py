"""Small helpers shared by the test modules."""

import re
from collections import deque
from pathlib import Path

from gdl.protocol import TERMINAL

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
DATA = Path(__file__).resolve().parent / "data"
# Every bundled rule file: games/*.game and the games that can go on for ever, games/cyclic/.
BUNDLED = sorted(GAMES.glob("*.game")) + sorted((GAMES / "cyclic").glob("*.game"))


def expectation(path: Path) -> dict:
    """Read the `# expect: CODE LINE:COL [path: ...]`, `# set: NAME=VALUE` and `# hint: PHRASE`
    header of a data file (the hint phrase must appear in the first diagnostic's hint)."""
    text = path.read_text()
    found = re.search(r"^# expect: (E\d+) (\d+):(\d+)(?: path: (.*))?$", text, re.M)
    sets = re.findall(r"^# set: (\S+)$", text, re.M)
    hint = re.search(r"^# hint: (.*)$", text, re.M)
    return {"code": found[1], "line": int(found[2]), "column": int(found[3]),
            "path": found[4].split() if found[4] else None, "sets": sets,
            "hint": hint[1].strip() if hint else None}


def first_location(stderr: str) -> tuple[str, int, int]:
    found = re.search(r":(\d+):(\d+): error\[(E\d+)\]", stderr)
    return found[3], int(found[1]), int(found[2])


def reachable_states(game, cap: int) -> set:
    """The first ``cap`` or so states reachable from the start, breadth first."""
    start = game.initial_state()
    seen, queue = {start}, deque([start])
    while queue and len(seen) < cap:
        state = queue.popleft()
        if game.current_player(state) == TERMINAL:
            continue
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return seen
