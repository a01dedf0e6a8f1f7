"""Published facts about games that can repeat a position (games/cyclic/), held against the
strong solver: the value, and with it the class, the remoteness and the set of optimal moves, at
the start, at positions derived by hand (the derivation in a comment), and at every position
against a brute force written here (each game's rules coded again in Python, solved by a
retrograde analysis of its own; the two are walked in step by the actions' names, so the rule
file and the brute force must also offer the same moves everywhere).

Sources (each rule file's header says the same):

- Mū tōrere: GamesCrafters' analysis, as quoted by Wikipedia, "Mū tōrere", section Analysis
  (https://en.wikipedia.org/wiki/M%C5%AB_t%C5%8Drere): "Mū tōrere has 1180 reachable positions.
  Out of those, 208 are winning, 128 are losing, and 844 are draws. The initial position is a
  draw." The rules are GamesCrafters' (GamesmanClassic, src/mtore.c, Joe Jing, Jeff Chou,
  Jingfan Xia, 2004; https://github.com/GamesCrafters/GamesmanClassic): positions are a board
  and a player to move, no symmetry folded, counted with the blocked ones (a loss for the
  blocked mover). Its help text (kHelpExample) plays a game down the line tested in
  `test_mu_torere_a_line_won_in_five`, printing "Win in 5", "Lose in 4", "Win in 3", "Lose in 2",
  "Win in 1" and the winning moves at each step.
- Three men's morris: Wikipedia, "Three men's morris" (https://en.wikipedia.org/wiki/
  Three_men%27s_morris), on H. J. R. Murray's rules (A History of Chess, 1913, p. 614: moves
  to an adjacent point along the lines): "there is a winning strategy for the player who goes
  first, unless the first player is not allowed to place the first piece in the centre, in
  which case neither player has a winning strategy."
- King and rook (queen) against king on an n x n board: OEIS A225552, "Longest checkmate in
  king and rook versus king endgame on an n X n chessboard" (https://oeis.org/A225552), and
  A225551 for the queen (https://oeis.org/A225551), Vaclav Kotesovec, May 10 2013; counted in
  White's moves with White to move (the 8 x 8 example: Ka1 Rb2 - Kc3, 16 moves).

Larger boards for the endings run on demand: GDL_LARGE_ENDINGS=1 pytest tests/test_cyclic_facts.py
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Hashable
from functools import cache

import pytest
from helpers import GAMES

import gdl
from gdl.graph import strong_solve
from gdl.protocol import TERMINAL

ENDLESS = "when endless draw\n"
LARGE = os.environ.get("GDL_LARGE_ENDINGS", "") not in ("", "0")


# ---- loading, playing and reading the solver's answers -------------------------------------------

def rules(name: str, endless: bool) -> str:
    """The bundled rule file, with its `when endless draw` line or without it."""
    text = (GAMES / "cyclic" / name).read_text(encoding="utf-8")
    assert text.count(ENDLESS) == 1
    return text if endless else text.replace(ENDLESS, "")


@cache
def solved(name: str, endless: bool = True, params: tuple = ()):
    game = gdl.loads(rules(name, endless), f"games/cyclic/{name}", dict(params))
    return game, strong_solve(game)


def names(game, actions) -> set[str]:
    return {game.action_name(a) for a in actions}


def play(game, moves: list[str], state=None):
    """The state after the actions named, from the start (or from ``state``)."""
    state = game.initial_state() if state is None else state
    for move in moves:
        by_name = {game.action_name(a): a for a in game.legal_actions(state)}
        assert move in by_name, (move, sorted(by_name))
        state = game.apply(state, by_name[move])
    return state


def answer(game, solution, state) -> tuple:
    """(value, class, remoteness, optimal moves) of a state, as the solver gives them."""
    position = solution.graph.position_id(state)
    assert position is not None
    return (solution.value(position), solution.value_class(position),
            solution.remoteness(position), names(game, solution.best_actions(position)))


def fastest(game, solution, state) -> set[str]:
    """The optimal moves that bring the end one move nearer (remoteness one less)."""
    position = solution.graph.position_id(state)
    target = solution.remoteness(position) - 1
    return {game.action_name(a) for a in solution.best_actions(position)
            if solution.remoteness(solution.graph.position_id(game.apply(state, a))) == target}


# ---- the brute force ------------------------------------------------------------------------------

Moves = Callable[[Hashable], dict]


def retrograde(root, moves: Moves, player: Callable, outcome: Callable) -> tuple[dict, dict]:
    """Every position reachable from ``root`` in a game given by ``moves(p)`` (action name ->
    next position; empty at an end), ``player(p)`` (0 or 1) and ``outcome(p)`` (player 0's
    utility at an end: 1, 0 or -1). Returns the graph and, for each position, (v, r): v = 1 where
    player 0 can force a win, -1 where player 1 can, 0 elsewhere, and r the number of moves to
    the end when the winner hurries and the loser delays (None where v = 0). Computed a move at a
    time: a position is won for its mover in k moves when one of its moves leads to a position
    lost in at most k - 1, lost in k when every move leads to one won in at most k - 1."""
    graph, queue = {root: moves(root)}, deque([root])
    while queue:
        for child in graph[queue.popleft()].values():
            if child not in graph:
                graph[child] = moves(child)
                queue.append(child)
    known = {p: (outcome(p), 0) for p, out in graph.items() if not out and outcome(p) != 0}
    rounds = 0
    while True:
        rounds += 1
        found = {}
        for p, out in graph.items():
            if p in known or not out:
                continue
            for v in (1, -1):
                forcer = 0 if v == 1 else 1
                ok = [c in known and known[c][0] == v for c in out.values()]
                if any(ok) if player(p) == forcer else all(ok):
                    found[p] = (v, rounds)
        if not found:
            break
        known.update(found)
    return graph, {p: known.get(p, (0, None)) for p in graph}


def disagreements(name: str, root, moves: Moves, player: Callable, outcome: Callable, *,
                  endless: bool = True, params: tuple = (), level_classes=("draw",),
                  level_remoteness: bool = True) -> list[str]:
    """Where the solver and the brute force differ: the moves offered, and at each decision
    position the value, the class, the remoteness and the optimal moves. Positions the brute force
    leaves level (v = 0) are worth 0 with `when endless draw`, and draws (no value) without it;
    their class is one of ``level_classes``; their remoteness is none when ``level_remoteness``
    (a draw's), unchecked otherwise."""
    game, solution = solved(name, endless, params)
    graph, truth = retrograde(root, moves, player, outcome)
    pairs, queue, wrong = {game.initial_state(): root}, deque([game.initial_state()]), []
    while queue:
        state = queue.popleft()
        p = pairs[state]
        offered = ({} if game.current_player(state) == TERMINAL
                   else {game.action_name(a): a for a in game.legal_actions(state)})
        if set(offered) != set(graph[p]):
            wrong.append(f"{p}: moves {sorted(offered)}, brute force {sorted(graph[p])}")
            continue
        for move, action in offered.items():
            child = game.apply(state, action)
            if child not in pairs:
                pairs[child] = graph[p][move]
                queue.append(child)
            elif pairs[child] != graph[p][move]:
                wrong.append(f"{p} {move}: two positions for one state")
    for state, p in pairs.items():
        if not graph[p]:
            if game.returns(state)[0] != outcome(p):
                wrong.append(f"{p}: returns {game.returns(state)}, brute force {outcome(p)}")
            continue
        v, r = truth[p]
        mine = v if player(p) == 0 else -v
        best = {m for m, c in graph[p].items() if truth[c][0] == v}
        value, kind, remoteness, optimal = answer(game, solution, state)
        expected_value = (v, -v) if v != 0 or endless else None
        kinds = ("win",) if mine > 0 else ("lose",) if mine < 0 else level_classes
        checks = [("value", value, expected_value, value == expected_value),
                  ("class", kind, kinds, kind in kinds),
                  ("best", sorted(optimal), sorted(best), optimal == best)]
        if v != 0 or level_remoteness:
            checks.append(("remoteness", remoteness, r, remoteness == (-1 if r is None else r)))
        wrong += [f"{p}: {what} {got}, expected {want}" for what, got, want, ok in checks if not ok]
    return wrong


def assert_agrees(wrong: list[str]) -> None:
    assert not wrong, f"{len(wrong)} disagreement(s), e.g.\n" + "\n".join(wrong[:12])


# ---- Mū tōrere ------------------------------------------------------------------------------------
# Points 0 (the centre) and 1..8 round the star; Black ('B') on 5..8 moves first, White ('W') on
# 1..4. A position is (board, mover), the board a tuple of 9 of '.', 'B', 'W'.

TORERE = "mu-torere.game"
TORERE_START = ((".",) + ("W",) * 4 + ("B",) * 4, "B")


def torere_moves(position) -> dict:
    board, mover = position
    enemy = "W" if mover == "B" else "B"
    hole = board.index(".")
    result = {}
    for f in range(9):
        if board[f] != mover:
            continue
        ring = {(f - 2) % 8 + 1, f % 8 + 1} if f else set()
        # out of the centre anywhere; along the ring; into the centre next to an enemy
        if f == 0 or hole in ring or (hole == 0 and any(board[k] == enemy for k in ring)):
            child = list(board)
            child[hole], child[f] = mover, "."
            result[f"move({f},{hole})"] = (tuple(child), enemy)
    return result


def torere_player(position) -> int:
    return 0 if position[1] == "B" else 1


def torere_outcome(position) -> int:
    return -1 if position[1] == "B" else 1          # the blocked mover loses


@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_mu_torere_census_is_gamescrafters(endless):
    # 1,180 positions: 208 won, 128 lost, 844 drawn for the mover (Wikipedia, quoting
    # GamesCrafters). Here the 80 blocked positions are terminal, so 128 = 48 + 80.
    _, solution = solved(TORERE, endless)
    census = solution.census()
    assert (census["positions"], census["terminal"], census["decision"]) == (1180, 80, 1100)
    assert census["classes"] == {"win": 208, "lose": 128 - 80, "tie": 0, "draw": 844}


@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_mu_torere_start_is_a_draw(endless):
    # Published: a draw. Black's only moves are 5 or 8 into the centre (6 and 7 have no enemy
    # neighbour, and the centre is the only empty point); the two are mirror images (the star's
    # reflection 1 <-> 4, 2 <-> 3, 5 <-> 8, 6 <-> 7 fixes the start), so both keep the draw.
    game, solution = solved(TORERE, endless)
    value, kind, remoteness, best = answer(game, solution, game.initial_state())
    assert value == ((0, 0) if endless else None)
    assert (kind, remoteness, best) == ("draw", -1, {"move(5,0)", "move(8,0)"})


@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_mu_torere_a_line_won_in_five(endless):
    # GamesmanClassic's help example reaches, after Black 8-0, White 1-8, Black 0-1, White 8-0,
    # the board: centre White; 1 Black; 2, 3, 4 White; 5, 6, 7 Black; 8 empty; Black to move,
    # printed "Win in 5". By hand: Black can fill 8 from 1 or from 7. From 1, White plays 2-1
    # and Black (on 5-8) has no piece next to the hole at 2: lost. From 7, White's one move is
    # the centre to 7; Black then puts 6 (or 8) into the centre; White's one move is 7-6 (7-8);
    # Black plays 8-7 (6-7) and White is blocked: five moves. No faster: after White's reply,
    # each of Black's moves into the centre leaves a White piece next to the point it empties.
    # Down that line the remoteness falls 5, 4, 3, 2, 1, and the optimal moves are:
    line = [("move(7,8)", "win", 5, {"move(7,8)"}),
            ("move(0,7)", "lose", 4, {"move(0,7)"}),
            # centre empty: Black's 6 and 8 (next to White's 7) win; 1 and 5 into the centre
            # do not (GamesmanClassic prints them as draws; so does the brute force below)
            ("move(6,0)", "win", 3, {"move(6,0)", "move(8,0)"}),
            ("move(7,6)", "lose", 2, {"move(7,6)"}),   # White's only move
            # 8-7 blocks White (7 and 1 Black round the hole); centre-7 lets White's 6 into
            # the centre (printed a draw)
            ("move(8,7)", "win", 1, {"move(8,7)"})]
    game, solution = solved(TORERE, endless)
    state = play(game, ["move(8,0)", "move(1,8)", "move(0,1)", "move(8,0)"])
    for move, kind, remoteness, best in line:
        # Black (player 0) wins all along: the value is Black's +1 whoever is to move
        assert answer(game, solution, state) == ((1, -1), kind, remoteness, best), move
        assert fastest(game, solution, state) == best     # here every winning move is fastest
        state = play(game, [move], state)
    assert game.current_player(state) == TERMINAL and game.returns(state) == (1, -1)
    # and from the start of that line, the other filling of 8 loses at once
    start = play(game, ["move(8,0)", "move(1,8)", "move(0,1)", "move(8,0)", "move(1,8)"])
    assert answer(game, solution, start)[1:3] == ("win", 1)          # White to move wins in 1


@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_mu_torere_every_position_against_a_brute_force(endless):
    assert_agrees(disagreements(TORERE, TORERE_START, torere_moves, torere_player,
                                torere_outcome, endless=endless))


def test_mu_torere_brute_force_agrees_with_gamescrafters():
    # The brute force itself, on the published census: 1,180 positions, for the player to move
    # 208 won, 128 lost (the 80 blocked ones among them), 844 drawn; the start drawn.
    graph, truth = retrograde(TORERE_START, torere_moves, torere_player, torere_outcome)
    mover = [v if torere_player(p) == 0 else -v for p, (v, _) in truth.items()]
    assert len(graph) == 1180 and sum(not out for out in graph.values()) == 80
    assert (mover.count(1), mover.count(-1), mover.count(0)) == (208, 128, 844)
    assert truth[TORERE_START] == (0, None)


def test_mu_torere_without_the_centre_rule_black_blocks_at_once():
    # Free entry to the centre: Black moves 6 or 7 (between two Black pieces) into the centre;
    # the hole is then walled by Black on both sides and White has no piece in the centre:
    # White is blocked. 5 or 8 into the centre leave White 4 or 1 next to the hole.
    game, solution = solved(TORERE, True, (("centre_rule_moves", 0),))
    assert answer(game, solution, game.initial_state()) == (
        (1, -1), "win", 1, {"move(6,0)", "move(7,0)"})


@pytest.mark.parametrize("lapse", [1, 2])
def test_mu_torere_when_the_centre_rule_lapses_black_loses_in_four(lapse):
    # The centre rule for the first move only (Best's informant: "the first move must allow the
    # second player to move", which here is the same thing) or the first two: Black 5-0 (or
    # 8-0, the mirror image), then White's only move 4-5 (1-8), Black's only move 0-4 (0-1);
    # now White enters the centre freely with 2 (3), whose neighbours 1 and 3 (2 and 4) are
    # White, and Black has no piece next to the hole: lost, 4 moves, whatever Black does.
    game, solution = solved(TORERE, True, (("centre_rule_moves", lapse),))
    assert answer(game, solution, game.initial_state()) == (
        (-1, 1), "lose", 4, {"move(5,0)", "move(8,0)"})
    state = play(game, ["move(5,0)", "move(4,5)", "move(0,4)"])
    value, kind, remoteness, best = answer(game, solution, state)
    assert (value, kind, remoteness) == ((-1, 1), "win", 1) and "move(2,0)" in best
    # 1, 3 and 5 into the centre each leave a Black piece next to the hole: not at once
    assert fastest(game, solution, state) == {"move(2,0)"}


# ---- three men's morris ---------------------------------------------------------------------------
# Points 0..8 row by row ((r, c) is 3r + c); First ('F') places first. A position is (board,
# mover), the board a tuple of 9 of '.', 'F', 'S'.

MORRIS = "three-mens-morris.game"
MORRIS_START = ((".",) * 9, "F")
STRAIGHT = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8)]
DIAGONALS = [(0, 4, 8), (2, 4, 6)]


def morris_moves(bar_centre: bool = False, diagonal_lines: bool = True,
                 diagonal_moves: bool = False) -> Moves:
    lines = STRAIGHT + (DIAGONALS if diagonal_lines else [])

    def neighbours(i):
        r, c = divmod(i, 3)
        for j in range(9):
            dr, dc = abs(j // 3 - r), abs(j % 3 - c)
            if dr + dc == 1 or (diagonal_moves and dr == dc == 1 and 4 in (i, j)):
                yield j

    def moves(position) -> dict:
        board, mover = position
        other = "S" if mover == "F" else "F"
        if any(all(board[i] == other for i in line) for line in lines):
            return {}                                       # the last move made a line
        result = {}
        for i in range(9):
            if board.count(mover) < 3 and board[i] == ".":
                if not (bar_centre and i == 4 and "F" not in board):
                    result[f"place({i // 3},{i % 3})"] = (board[:i] + (mover,) + board[i + 1:],
                                                          other)
            elif board.count(mover) == 3 and board[i] == mover:
                for j in neighbours(i):
                    if board[j] == ".":
                        child = list(board)
                        child[i], child[j] = ".", mover
                        result[f"slide({i // 3},{i % 3},{j // 3},{j % 3})"] = (tuple(child), other)
        return result
    return moves


def morris_player(position) -> int:
    return 0 if position[1] == "F" else 1


def morris_outcome(position) -> int:
    # the player not to move made a line, or the mover is blocked: the player not to move wins
    return 1 if position[1] == "S" else -1


@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_morris_first_player_wins_by_the_centre(endless):
    # Published: the first player wins, but not when barred from the centre at the first
    # placement; so the centre is the first player's only winning first move. The remoteness
    # (not published) is the brute force's: 9, the win made by First's fifth move.
    game, solution = solved(MORRIS, endless)
    _, truth = retrograde(MORRIS_START, morris_moves(), morris_player, morris_outcome)
    assert answer(game, solution, game.initial_state()) == (
        (1, -1), "win", truth[MORRIS_START][1], {"place(1,1)"})


@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_morris_with_the_centre_barred_nobody_wins(endless):
    game, solution = solved(MORRIS, endless, (("bar_centre", True),))
    start = game.initial_state()
    assert "place(1,1)" not in names(game, game.legal_actions(start))
    value, kind, remoteness, best = answer(game, solution, start)
    assert (value, kind, remoteness) == ((0, 0) if endless else None, "draw", -1) and best


def test_morris_a_line_completed_by_the_last_man():
    # First places (0,0), Second (1,0), First (0,1), Second (1,1): First places its last man.
    # (0,2) completes the top row: a win in 1. Anything but (0,2) or the block at (1,2) lets
    # Second complete the middle row with its own last man: those moves lose.
    game, solution = solved(MORRIS)
    state = play(game, ["place(0,0)", "place(1,0)", "place(0,1)", "place(1,1)"])
    value, kind, remoteness, best = answer(game, solution, state)
    assert (value, kind, remoteness) == ((1, -1), "win", 1)
    assert "place(0,2)" in best and best <= {"place(0,2)", "place(1,2)"}
    assert fastest(game, solution, state) == {"place(0,2)"}
    lost = play(game, ["place(2,2)"], state)                  # Second wins at once
    assert answer(game, solution, lost)[:3] == ((-1, 1), "win", 1)


VARIANTS = [(), (("bar_centre", True),), (("diagonal_lines", False),),
            (("diagonal_moves", True),), (("diagonal_moves", True), ("bar_centre", True))]


@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: "-".join(k for k, _ in p) or "murray")
@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_morris_every_position_against_a_brute_force(params, endless):
    assert_agrees(disagreements(MORRIS, MORRIS_START, morris_moves(**dict(params)),
                                morris_player, morris_outcome, endless=endless, params=params))


def test_morris_brute_force_agrees_with_the_published_solution():
    # The brute force itself, on the published facts: the start won for First (with the centre
    # its only winning first placement), in 9 moves; a draw when the centre is barred.
    for bar, value, remoteness in [(False, 1, 9), (True, 0, None)]:
        graph, truth = retrograde(MORRIS_START, morris_moves(bar_centre=bar), morris_player,
                                  morris_outcome)
        assert truth[MORRIS_START] == (value, remoteness)
        if value:
            assert {m for m, c in graph[MORRIS_START].items() if truth[c][0] == 1} == {"place(1,1)"}


# ---- king and rook (or queen) against king --------------------------------------------------------
# A position is (phase, black king, white king, rook, taken, mover), squares (row, column);
# phases 0-2 are White's setup (black king, white king, rook), 3 is play.

ENDING = "rook-ending.game"
ENDING_START = (0, None, None, None, False, "W")
STEPS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
ROOK_LINES = [(1, 0), (-1, 0), (0, 1), (0, -1)]
QUEEN_LINES = ROOK_LINES + [(1, 1), (1, -1), (-1, 1), (-1, -1)]
# OEIS A225552 (rook) and A225551 (queen), offset 3: the longest mate in White's moves
LONGEST_MATE = {"rook": [3, 7, 10, 12, 14, 16, 18, 21], "queen": [1, 4, 6, 7, 8, 10, 11, 12]}


def ending(size: int, queen: bool) -> tuple[Moves, Callable]:
    """The moves and the end values (White's: 1 mate, 0 stalemate or the rook taken)."""
    squares = [(r, c) for r in range(size) for c in range(size)]
    lines = QUEEN_LINES if queen else ROOK_LINES

    def near(a, b):
        return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1

    def ray(origin, line, stop):
        """The squares from ``origin`` along ``line`` up to the edge or to ``stop`` (left out)."""
        r, c = origin[0] + line[0], origin[1] + line[1]
        while 0 <= r < size and 0 <= c < size and (r, c) not in stop:
            yield r, c
            r, c = r + line[0], c + line[1]

    def attacked(square, rook, king):       # the white king blocks, the black king never does
        return any(square in ray(rook, line, {king}) for line in lines)

    def black_steps(bk, wk, rook):
        for dr, dc in STEPS:
            t = (bk[0] + dr, bk[1] + dc)
            if t in squares and not near(t, wk) and not attacked(t, rook, wk):
                yield (dr, dc), t

    def moves(position) -> dict:
        phase, bk, wk, rook, taken, mover = position
        if phase == 0:
            return {f"place_black({r},{c})": (1, (r, c), None, None, False, "W")
                    for r, c in squares if any(not near((r, c), s) for s in squares)}
        if phase == 1:
            return {f"place_king({r},{c})": (2, bk, (r, c), None, False, "W")
                    for r, c in squares if not near((r, c), bk)}
        if phase == 2:
            return {f"place_rook({r},{c})": (3, bk, wk, (r, c), False, "W")
                    for r, c in squares
                    if (r, c) not in (wk, bk) and not attacked(bk, (r, c), wk)}
        if taken:
            return {}
        if mover == "B":
            return {f"black_king({dr},{dc})": (3, t, wk, rook, t == rook, "W")
                    for (dr, dc), t in black_steps(bk, wk, rook)}
        result = {}
        for dr, dc in STEPS:
            t = (wk[0] + dr, wk[1] + dc)
            if t in squares and not near(t, bk) and t != rook:
                result[f"white_king({dr},{dc})"] = (3, bk, t, rook, False, "B")
        for line in lines:
            for r, c in ray(rook, line, {wk, bk}):
                result[f"rook({r},{c})"] = (3, bk, wk, (r, c), False, "B")
        return result

    def outcome(position) -> int:
        _, bk, wk, rook, taken, _ = position
        return 0 if taken else 1 if attacked(bk, rook, wk) else 0   # mate, or stalemate
    return moves, outcome


def ending_player(position) -> int:
    return 0 if position[5] == "W" else 1


def white_to_move(game, solution) -> dict:
    """The class and remoteness of every legal position of the ending with White to move (the
    ends of the setup): {class: [remoteness, ...]}."""
    found: dict = {}
    start = game.initial_state()
    for a in game.legal_actions(start):
        one = game.apply(start, a)
        for b in game.legal_actions(one):
            two = game.apply(one, b)
            for c in game.legal_actions(two):
                position = solution.graph.position_id(game.apply(two, c))
                found.setdefault(solution.value_class(position), []).append(
                    solution.remoteness(position))
    return found


def ending_sizes(fast: int) -> list[int]:
    """3 to ``fast``, and on demand to 8 (7 and 8 take seconds each: 406,353 positions on 8 x 8)."""
    return list(range(3, (8 if LARGE else fast) + 1))


@pytest.mark.parametrize("piece", ["rook", "queen"])
@pytest.mark.parametrize("size", ending_sizes(6))
@pytest.mark.parametrize("endless", [True, False], ids=["when-endless-draw", "undeclared"])
def test_longest_mate_is_oeis(piece, size, endless):
    # OEIS: the longest forced mate, White to move, is a(n) moves of White's, 2 a(n) - 1 plies.
    # Every position with White to move is a win (the brute force below checks it on 4 x 4).
    game, solution = solved(ENDING, endless, (("size", size), ("queen", piece == "queen")))
    found = white_to_move(game, solution)
    assert set(found) == {"win"}
    assert max(found["win"]) == 2 * LONGEST_MATE[piece][size - 3] - 1
    # the start: White sets up a mate in one, three setup moves and the mate (none is faster).
    # One exists on every board: black king (0,0), white king (2,1), rook or queen (1,n-1), which
    # moves to (0,n-1): check along row 0, (0,1) attacked, (1,0) and (1,1) next to the king.
    value, kind, remoteness, _ = answer(game, solution, game.initial_state())
    assert (value, kind, remoteness) == ((1, -1), "win", 4)


@pytest.mark.parametrize("queen", [False, True], ids=["rook", "queen"])
def test_the_ending_against_a_brute_force(queen):
    moves, outcome = ending(4, queen)
    assert_agrees(disagreements(ENDING, ENDING_START, moves, ending_player, outcome,
                                params=(("size", 4), ("queen", queen)),
                                level_classes=("tie", "draw"), level_remoteness=False))


def test_the_brute_force_finds_the_published_longest_mates():
    # The brute force alone, against OEIS, on the boards it solves quickly.
    for size in (3, 4):
        for piece in ("rook", "queen"):
            moves, outcome = ending(size, piece == "queen")
            graph, truth = retrograde(ENDING_START, moves, ending_player, outcome)
            white = [truth[p] for p in graph if p[0] == 3 and p[5] == "W" and not p[4]]
            assert {v for v, _ in white} == {1}
            assert max(r for _, r in white) == 2 * LONGEST_MATE[piece][size - 3] - 1


def setup(black, king, rook) -> list[str]:
    """The setup moves placing the black king, the white king and the rook on those squares."""
    return [f"place_black({black[0]},{black[1]})", f"place_king({king[0]},{king[1]})",
            f"place_rook({rook[0]},{rook[1]})"]


def test_ending_mate_in_one_on_four_by_four():
    # (row, column), row 0 at the bottom: black king a1 = (0,0), white king b3 = (2,1), rook
    # d4 = (3,3), White to move. The rook to (0,3) checks along the bottom row and guards (0,1);
    # (1,0) and (1,1) touch the white king: mate. No other move checks with (0,1) guarded, and
    # none loses the rook or stalemates (the rook never lands next to the black king, and the
    # black king keeps a square after any king move), so every move keeps the win (with White
    # to move the ending is always won: checked above), the mate being the fastest.
    game, solution = solved(ENDING, True, (("size", 4),))
    state = play(game, setup((0, 0), (2, 1), (3, 3)))
    value, kind, remoteness, best = answer(game, solution, state)
    assert (value, kind, remoteness) == ((1, -1), "win", 1)
    assert best == names(game, game.legal_actions(state)) and len(best) == 12
    assert fastest(game, solution, state) == {"rook(0,3)"}
    mated = play(game, ["rook(0,3)"], state)
    assert game.current_player(mated) == TERMINAL and game.returns(mated) == (1, -1)


def test_ending_a_stalemate_is_not_an_optimal_move():
    # Black king (0,0), white king (2,0), rook (2,3), White to move. The rook to (0,3) mates
    # ((1,0) and (1,1) touch the white king). The rook to (2,1) guards (0,1) from below without
    # check: the black king has no move and is not in check, a stalemate (level). Every other
    # move of the eight keeps the win.
    game, solution = solved(ENDING, True, (("size", 4),))
    state = play(game, setup((0, 0), (2, 0), (2, 3)))
    legal = names(game, game.legal_actions(state))
    assert len(legal) == 8
    value, kind, remoteness, best = answer(game, solution, state)
    assert (value, kind, remoteness, best) == ((1, -1), "win", 1, legal - {"rook(2,1)"})
    assert fastest(game, solution, state) == {"rook(0,3)"}
    stalemate = play(game, ["rook(2,1)"], state)
    assert game.current_player(stalemate) == TERMINAL and game.returns(stalemate) == (0, 0)


def test_ending_the_lone_king_takes_an_unguarded_rook():
    # Black king (0,0), white king (3,3), White plays the rook from (1,2) to (1,1): the rook
    # guards (0,1) and (1,0), so Black's only move is to take it (the white king is two rows
    # away): kings only, level, at once.
    game, solution = solved(ENDING, True, (("size", 4),))
    state = play(game, setup((0, 0), (3, 3), (1, 2)) + ["rook(1,1)"])
    assert answer(game, solution, state) == ((0, 0), "tie", 1, {"black_king(1,1)"})
    taken = play(game, ["black_king(1,1)"], state)
    assert game.current_player(taken) == TERMINAL and game.returns(taken) == (0, 0)
