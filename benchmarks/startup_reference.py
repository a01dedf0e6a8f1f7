"""The start-up yardstick: a bare hand-written script that solves tic-tac-toe with alpha-beta and
a transposition table, and prints the value. `gdl solve games/tictactoe.game` is timed against
running this file as a whole process (see README.md)."""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def winner(board):
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return 0


def search(board, player, alpha, beta, table):
    """Value for X (+1 win, 0 draw, -1 loss), X = 1 maximises, O = -1 minimises."""
    w = winner(board)
    if w or 0 not in board:
        return w
    key = (board, player)
    if key in table:
        return table[key]
    best = -2 if player == 1 else 2
    for i in range(9):
        if board[i] == 0:
            v = search(board[:i] + (player,) + board[i + 1:], -player, alpha, beta, table)
            if player == 1:
                best, alpha = max(best, v), max(alpha, v)
            else:
                best, beta = min(best, v), min(beta, v)
            if alpha >= beta:
                break
    if alpha < best < beta or (best in (-1, 1) and (best == 1) == (player == 1)):
        table[key] = best   # only exact values (or wins for the mover) go in the table
    return best


print("tic-tac-toe value:", search((0,) * 9, 1, -2, 2, {}))
