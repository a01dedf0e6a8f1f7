"""Textbook solvers over the reference games (values from MAX's point of view, MAX = the player
to move at the root's ``to_move`` value ``max_player``). Each returns (value, nodes): ``nodes``
counts every call of the recursion (every state visited, root included), as gdl's solvers do.

To visit exactly the nodes gdl's solvers visit, the children are searched in the order
``actions`` gives (gdl's declaration order), and alpha-beta is the fail-soft variant with a
transposition table of two-entry buckets and the replacement rule gdl's engine uses (so states
must hash alike: reference.connect4 numbers its tuples as gdl does); at the root it finds the
*set* of optimal moves the way gdl's engine does (the first child with a full window, each later
one with the window (best - 1, best + 1), searched again with (best, +inf) if it fails high).
"""

import math

EXACT, LOWER, UPPER = 0, 1, 2


def minimax(game, state, max_player):
    """Plain minimax: every node is visited."""
    terminal, utility, actions, result, to_move = (game.terminal, game.utility, game.actions,
                                                   game.result, game.to_move)
    nodes = 0

    def value(state):
        nonlocal nodes
        nodes += 1
        if terminal(state):
            return utility(state)
        values = [value(result(state, a)) for a in actions(state)]
        return max(values) if to_move(state) == max_player else min(values)

    return value(state), nodes


def alphabeta_tt(game, root, max_player, size=1 << 20):
    """Fail-soft alpha-beta with a transposition table; the root finds every optimal move.
    Returns (value, optimal moves, nodes).

    The table has ``size`` entries in buckets of two, at ``hash(state) % (size // 2)``, with
    the "TwoBig" replacement of Breuker, Uiterwijk and van den Herik (1994): the first slot
    keeps the entry whose subtree took the most nodes, the second slot takes the rest. An entry
    is (state, value, EXACT / LOWER / UPPER relative to the window it was searched with, nodes
    below it); it answers when it is exact, or a bound on the right side of the window."""
    terminal, utility, actions, result, to_move = (game.terminal, game.utility, game.actions,
                                                   game.result, game.to_move)
    buckets = size // 2
    first, second = [None] * buckets, [None] * buckets
    nodes = 0

    def search(state, alpha, beta):
        nonlocal nodes
        nodes += 1
        if terminal(state):
            return utility(state)
        i = hash(state) % buckets
        entry = first[i]
        if entry is None or entry[0] != state:
            entry = second[i]
        if entry is not None and entry[0] == state:
            v, flag = entry[1], entry[2]
            if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                return v
        alpha0, beta0, nodes0 = alpha, beta, nodes
        if to_move(state) == max_player:
            best = -math.inf
            for a in actions(state):
                v = search(result(state, a), alpha, beta)
                if v > best:
                    best = v
                    if v >= beta:
                        break
                    if v > alpha:
                        alpha = v
        else:
            best = math.inf
            for a in actions(state):
                v = search(result(state, a), alpha, beta)
                if v < best:
                    best = v
                    if v <= alpha:
                        break
                    if v < beta:
                        beta = v
        flag = LOWER if best >= beta0 else UPPER if best <= alpha0 else EXACT
        new = (state, best, flag, nodes - nodes0)
        old = first[i]
        if old is None or old[0] == state:
            first[i] = new
        elif new[3] >= old[3]:
            first[i], second[i] = new, old
        else:
            second[i] = new
        return best

    assert to_move(root) == max_player, "the root search is written for MAX to move"
    nodes += 1
    best, optimal = None, []
    for a in actions(root):
        child = result(root, a)
        if best is None:
            best, optimal = search(child, -math.inf, math.inf), [a]
            continue
        v = search(child, best - 1, best + 1)
        if v <= best - 1:
            continue                                  # proven worse
        if v >= best + 1:
            v = search(child, best, math.inf)         # better: its exact value
        if v == best:
            optimal.append(a)
        elif v > best:
            best, optimal = v, [a]
    return best, optimal, nodes


def expectiminimax(game, state, depth, max_player):
    """Expectiminimax to ``depth`` decision plies (chance nodes do not count), then
    ``game.evaluate``; exact (Fraction) expectations."""
    terminal, utility, actions, result, to_move = (game.terminal, game.utility, game.actions,
                                                   game.result, game.to_move)
    is_chance, outcomes, evaluate = game.is_chance, game.chance_outcomes, game.evaluate
    nodes = 0

    def value(state, depth):
        nonlocal nodes
        nodes += 1
        if terminal(state):
            return utility(state)
        if depth <= 0:
            return evaluate(state)
        if is_chance(state):
            return sum(p * value(result(state, o), depth) for o, p in outcomes(state))
        values = [value(result(state, a), depth - 1) for a in actions(state)]
        return max(values) if to_move(state) == max_player else min(values)

    return value(state, depth), nodes


def playouts(game, count, rng):
    """``count`` random games from the start (uniform legal moves); (sum of MAX's utilities,
    nodes visited)."""
    terminal, utility, actions, result, choice = (game.terminal, game.utility, game.actions,
                                                  game.result, rng.choice)
    total = nodes = 0
    for _ in range(count):
        state = game.initial()
        while True:
            nodes += 1
            if terminal(state):
                total += utility(state)
                break
            state = result(state, choice(actions(state)))
    return total, nodes
