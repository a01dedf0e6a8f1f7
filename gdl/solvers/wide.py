"""Which solver a game with simultaneous moves or hidden information needs, and the refusal
every perfect-information solver gives such a game.

Minimax, alpha-beta, expectiminimax, Star1/2, max^n, paranoid and the strong solver all value a
position by letting the player to move answer what came before with full knowledge of it. With
simultaneous moves a player would be answering a move it has not seen; with hidden information
it would be choosing on cards it cannot see. Both give a value no player can obtain (Kuhn's
poker is worth -1/18 to the first player, but 0 when both hands are open), so those solvers
refuse such games and name the one to use instead (``wide_algorithm``).
"""

from __future__ import annotations

from gdl.protocol import GameInfo, Value
from gdl.solvers.common import constant_sum_total
from gdl.solvers.result import SolverError

SIMULTANEOUS_SOLVER = "simultaneous"   # perfect information, moves at once, two players, zero-sum
SEQUENCE_FORM = "sequence-form"        # hidden information, two players, zero-sum: exact LP
CFR_PLUS = "cfr+"                      # two players, zero-sum: approximate, vectorised
MCCFR = "mccfr"                        # two players, zero-sum, too big to write out: sampled
CFR = "cfr"                            # any number of players, any sum: approximate (NashConv)


def is_wide(info: GameInfo) -> bool:
    """Some player chooses without seeing everything: moves at once, or hidden information."""
    return info.hidden or info.simultaneous


def wide_algorithm(info: GameInfo) -> str:
    """The solver ``auto`` uses for a game with simultaneous moves or hidden information."""
    two_constant = info.num_players == 2 and info.is_constant_sum
    if not two_constant:
        return CFR
    return SEQUENCE_FORM if info.hidden else SIMULTANEOUS_SOLVER


def what_is_wide(info: GameInfo) -> str:
    """``hidden information``, ``simultaneous moves`` or both, as a phrase."""
    parts = [p for p, on in (("hidden information", info.hidden),
                             ("simultaneous moves", info.simultaneous)) if on]
    return " and ".join(parts)


def refuse_wide(info: GameInfo, algorithm: str) -> None:
    """Raise SolverError when a perfect-information solver meets a wider game: why it is the
    wrong tool, and which solver to use."""
    if not is_wide(info):
        return
    if info.hidden:
        why = ("it lets every player see the whole position, so on a game of hidden "
               "information it values the game with the cards face up")
    else:
        why = ("it lets one player answer the other's move, so on simultaneous moves it "
               "values a game in which one player sees the other's choice before making its own")
    raise SolverError(f"{algorithm}: game {info.name!r} has {what_is_wide(info)}; {algorithm} is "
                      f"the wrong tool: {why}. Use the {wide_algorithm(info)!r} solver "
                      f"({_alternatives(info)})")


def _alternatives(info: GameInfo) -> str:
    if info.num_players == 2 and info.is_constant_sum:
        if info.hidden:
            return (f"the exact sequence-form linear program; or {CFR_PLUS!r} / {MCCFR!r} for an "
                    "approximate equilibrium of a bigger game")
        return ("exact matrix games by backward induction, Shapley's iteration where positions "
                f"repeat; or {CFR_PLUS!r} for an approximate equilibrium")
    return ("counterfactual regret minimisation: an approximate equilibrium with its NashConv, "
            f"since {info.num_players} players or a general sum have no single value")



def require_two_zero_sum(info: GameInfo, algorithm: str) -> Value:
    """A solver of two-player zero-sum (or constant-sum) games checks its game, pointing to
    ``cfr`` for the others; returns the constant sum."""
    if info.num_players != 2 or not info.is_constant_sum:
        what = (f"{info.num_players} players" if info.num_players != 2
                else f"a {info.sum_kind} game")
        raise SolverError(f"{algorithm}: game {info.name!r} has {what}; {algorithm} needs two "
                          f"players and a constant sum (use {CFR!r}, which reports NashConv)")
    return constant_sum_total(info, algorithm)
