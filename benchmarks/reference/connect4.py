"""Connect Four, written by hand the textbook way: the winner is found when a disc lands, by
counting the run through it in each direction (Russell & Norvig's ``k_in_row``).

A state is one flat tuple of ints: (player to move, the cells column by column with row 0 at the
bottom, the height of each column, the winner). Red (MAX) moves first. The numbers are the ones
gdl gives these symbols (players first: RED 0, YELLOW 1, then EMPTY 2, NOBODY 3), so a position
is the very same tuple, with the same ``hash``, on both sides of the benchmark: the two
transposition tables then put each position in the same bucket (see solvers.alphabeta_tt)."""

RED, YELLOW, EMPTY, NOBODY = 0, 1, 2, 3
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class ConnectFour:
    def __init__(self, columns=7, rows=6):
        self.columns, self.rows = columns, rows
        self.cells = columns * rows        # state[1 : 1 + cells] are the cells
        self.heights = 1 + self.cells      # state[heights + c] is the height of column c
        self.win = self.heights + columns  # state[win] is the winner

    def initial(self):
        return (RED,) + (EMPTY,) * self.cells + (0,) * self.columns + (NOBODY,)

    def to_move(self, state):
        return state[0]

    def actions(self, state):
        """The columns that are not full, left to right."""
        heights, rows = self.heights, self.rows
        return [c for c in range(self.columns) if state[heights + c] < rows]

    def result(self, state, column):
        player = state[0]
        row = state[self.heights + column]
        board = list(state)
        board[0] = YELLOW if player == RED else RED
        board[1 + column * self.rows + row] = player
        board[self.heights + column] = row + 1
        if any(self.k_in_row(board, column, row, player, d) for d in DIRECTIONS):
            board[self.win] = player
        return tuple(board)

    def k_in_row(self, board, column, row, player, direction, k=4):
        """Is there a line of k of player's discs through (column, row) in this direction?"""
        dx, dy = direction
        columns, rows = self.columns, self.rows
        n = 0
        x, y = column, row
        while 0 <= x < columns and 0 <= y < rows and board[1 + x * rows + y] == player:
            n += 1
            x, y = x + dx, y + dy
        x, y = column - dx, row - dy
        while 0 <= x < columns and 0 <= y < rows and board[1 + x * rows + y] == player:
            n += 1
            x, y = x - dx, y - dy
        return n >= k

    def terminal(self, state):
        return state[self.win] != NOBODY or EMPTY not in state[1:self.heights]

    def utility(self, state):
        w = state[self.win]
        return 1 if w == RED else -1 if w == YELLOW else 0
