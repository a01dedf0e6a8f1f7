"""The two reasoners side by side: the Datalog interpreter (gdl.kif.interpreter, the reference)
and the translated game (gdl.kif.translate, built by gdl's compiler) must agree at every state
reachable from the start, the way gdl's reference interpreter guards its compiler. Used by the
tests and by `gdl fuzz FILE.kif`."""

from __future__ import annotations

from collections import deque

from gdl.kif.terms import kif_text, order_key
from gdl.protocol import TERMINAL

SHOWN_PROBLEMS = 5          # the walk stops after this many differences


def _facts(state) -> str:
    return " ".join(kif_text(fact) for fact in sorted(state, key=order_key)) or "(no facts)"


def disagreements(interpreted, compiled, limit: int = 20_000) -> tuple[list[str], int]:
    """Walk every state reachable in ``interpreted`` (a KifGame; up to ``limit`` states),
    ``compiled`` (the translated game: ``compiled.kif`` is its translation) in step, and list
    every difference: the state itself (as KIF facts), terminal or not, the goals, each role's
    legal moves where a role has a choice, the player to move there, and the state after every
    move. Returns (problems, states visited)."""
    translation = compiled.kif
    names = translation.move_names
    problems: list[str] = []
    start = (interpreted.initial_state(), compiled.initial_state())
    seen = {start[0]}
    queue = deque([start])
    while queue and len(seen) <= limit and len(problems) < SHOWN_PROBLEMS:
        mine, theirs = queue.popleft()
        facts = translation.facts(compiled.variables(theirs))
        if facts != mine:
            problems.append(f"states differ: the translation has {_facts(facts - mine)} and "
                            f"lacks {_facts(mine - facts)}")
            continue
        over = interpreted.is_terminal(mine)
        if over != (compiled.current_player(theirs) == TERMINAL):
            problems.append(f"terminal differs at {_facts(mine)}")
            continue
        if over:
            if tuple(interpreted.returns(mine)) != tuple(compiled.returns(theirs)):
                problems.append(f"goals differ at {_facts(mine)}")
            continue
        moves = interpreted.legal_moves(mine)
        player = compiled.current_player(theirs)
        actions = compiled.legal_actions(theirs)
        shown = [compiled.action_name(a) for a in actions]
        if any(len(row) > 1 for row in moves) and player != interpreted.current_player(mine):
            problems.append(f"player to move differs at {_facts(mine)}")
            continue
        # the mover's moves, by name, in the same order
        if shown != [names[m] for m in moves[player]]:
            problems.append(f"legal moves differ at {_facts(mine)}: {shown}")
            continue
        for move, action in zip(moves[player], actions):
            joint = [move if i == player else row[0] for i, row in enumerate(moves)]
            after = interpreted.next_state(mine, joint)
            if after not in seen:
                seen.add(after)
                queue.append((after, compiled.apply(theirs, action)))
    return problems, len(seen)
