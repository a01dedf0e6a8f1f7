"""Shared by the KIF tests: the two reasoners side by side on every reachable state."""

from collections import deque

import gdl
from gdl.protocol import TERMINAL


def load_both(text, filename="game.kif"):
    """The Datalog interpreter's game and the translated game of the same KIF text."""
    interpreted = gdl.loads(text, filename, backend="interpret")
    compiled = gdl.loads(text, filename, backend="compile")
    assert hasattr(compiled, "kif"), getattr(compiled, "native_note", "not translated")
    return interpreted, compiled


def disagreements(text, filename="game.kif", limit=20_000):
    """Walk every state reachable in the interpreter (up to ``limit``), the translated game in
    step, and list every difference: the state itself (as KIF facts), terminal or not, the
    goals, each role's legal moves where a role has a choice, the player to move there, and
    the state after every move. Returns (problems, states visited)."""
    interpreted, compiled = load_both(text, filename)
    translation = compiled.kif
    names = translation.move_names
    problems = []
    start = (interpreted.initial_state(), compiled.initial_state())
    seen = {start[0]}
    queue = deque([start])
    while queue and len(seen) <= limit and len(problems) < 5:
        mine, theirs = queue.popleft()
        facts = translation.facts(compiled.variables(theirs))
        if facts != mine:
            problems.append(f"states differ: {sorted(mine ^ facts)}")
            continue
        over = interpreted.is_terminal(mine)
        if over != (compiled.current_player(theirs) == TERMINAL):
            problems.append(f"terminal differs at {sorted(mine)}")
            continue
        if over:
            if tuple(interpreted.returns(mine)) != tuple(compiled.returns(theirs)):
                problems.append(f"goals differ at {sorted(mine)}")
            continue
        moves = interpreted.legal_moves(mine)
        player = compiled.current_player(theirs)
        actions = compiled.legal_actions(theirs)
        shown = [compiled.action_name(a) for a in actions]
        if any(len(row) > 1 for row in moves):
            if player != interpreted.current_player(mine):
                problems.append(f"player to move differs at {sorted(mine)}")
                continue
        # the mover's moves, by name, in the same order
        if shown != [names[m] for m in moves[player]]:
            problems.append(f"legal moves differ at {sorted(mine)}: {shown}")
            continue
        for move, action in zip(moves[player], actions):
            joint = [move if i == player else row[0] for i, row in enumerate(moves)]
            after = interpreted.next_state(mine, joint)
            if after not in seen:
                seen.add(after)
                queue.append((after, compiled.apply(theirs, action)))
    return problems, len(seen)
