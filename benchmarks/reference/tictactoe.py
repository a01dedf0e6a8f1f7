"""Tic-tac-toe, written by hand the textbook way: a state is (player to move, board), the board
a tuple of nine cells numbered 0..8 row by row. X (MAX) moves first."""

EMPTY, X, O = 0, 1, 2

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),      # rows
         (0, 3, 6), (1, 4, 7), (2, 5, 8),      # columns
         (0, 4, 8), (2, 4, 6))                 # diagonals


def initial():
    return (X, (EMPTY,) * 9)


def to_move(state):
    return state[0]


def actions(state):
    """The empty cells, in order."""
    board = state[1]
    return [i for i in range(9) if board[i] == EMPTY]


def result(state, move):
    player, board = state
    return (O if player == X else X, board[:move] + (player,) + board[move + 1:])


def winner(board):
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return EMPTY


def terminal(state):
    board = state[1]
    return winner(board) != EMPTY or EMPTY not in board


def utility(state):
    """+1 if X has a line, -1 if O has, 0 otherwise (X's point of view)."""
    w = winner(state[1])
    return 1 if w == X else -1 if w == O else 0
