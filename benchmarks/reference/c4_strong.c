/* Hand-written strong solver of Connect Four W x H in C: the yardstick of benchmarks/growth.py.
 *
 * Every reachable position gets its value (win, loss or draw for the player to move) in a table
 * of 2 bits a slot, indexed by a ranking of the board: a column of height h whose discs are the
 * bits p (first player's discs set) is the number (2^h - 1) + p, one of 2^(H+1) - 1, and the
 * board is the mixed-radix number of its columns. Connect Four 5 x 4 takes 31^5 slots (7 MB),
 * 6 x 4 31^6 (222 MB). The search is a depth-first negamax that stores each position's value
 * the first time it meets it, so each reachable position is expanded once. Terminal positions
 * (a line of four just made, or a full board) are counted and stored too, as in Tromp's counts.
 * Values only: no remoteness (gdl's ranked tables keep it as well).
 *
 * Bitboards as in /work/shared/bench/ref/c4.c: W*(H+1) bits, column c's cells at bits
 * c*(H+1) .. c*(H+1)+H-1; `cur` holds the stones of the player to move, `mask` all stones.
 *
 * Build: gcc -O2 -o c4_strong c4_strong.c      Run: c4_strong W H
 * Prints one JSON line: positions (reachable, terminal included), the value of the empty board
 * for the first player (1, 0, -1) and the table's bytes. Written for this benchmark.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int W, H, H1, CELLS;
static uint64_t bottom_[16], top_[16], radix_pow[16];
static uint8_t *table;              /* 2 bits a slot: 0 not reached, 1 loss, 2 draw, 3 win */
static long long positions;

static inline int won(uint64_t pos) {
    const int sh[4] = {1, H1, H1 - 1, H1 + 1};
    for (int i = 0; i < 4; i++) {
        uint64_t m = pos & (pos >> sh[i]);
        if (m & (m >> (2 * sh[i]))) return 1;
    }
    return 0;
}

/* The slot of a board: `first` holds the first player's stones. */
static inline uint64_t rank_of(uint64_t first, uint64_t mask) {
    uint64_t r = 0;
    const uint64_t column = (1ULL << H1) - 1;
    for (int c = 0; c < W; c++) {
        uint64_t m = (mask >> (c * H1)) & column;
        int h = __builtin_popcountll(m);
        uint64_t p = (first >> (c * H1)) & ((1ULL << h) - 1);
        r += (((1ULL << h) - 1) + p) * radix_pow[c];
    }
    return r;
}

static inline int get(uint64_t r) { return (table[r >> 2] >> ((r & 3) * 2)) & 3; }
static inline void put(uint64_t r, int v) { table[r >> 2] |= (uint8_t)(v << ((r & 3) * 2)); }

/* The value for the player to move (-1, 0, 1); n stones on the board. */
static int solve(uint64_t cur, uint64_t mask, int n) {
    uint64_t r = rank_of(n & 1 ? cur ^ mask : cur, mask);
    int stored = get(r);
    if (stored) return stored - 2;
    positions++;
    int v;
    if (n > 0 && won(cur ^ mask)) v = -1;          /* the player who just moved made a line */
    else if (n == CELLS) v = 0;
    else {
        v = -1;                 /* every child, even after a win: each gets its value */
        for (int c = 0; c < W; c++) {
            if (mask & top_[c]) continue;
            int child = -solve(cur ^ mask, mask | (mask + bottom_[c]), n + 1);
            if (child > v) v = child;
        }
    }
    put(r, v + 2);
    return v;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: c4_strong W H\n"); return 2; }
    W = atoi(argv[1]); H = atoi(argv[2]); H1 = H + 1; CELLS = W * H;
    if (W < 1 || H < 1 || W * H1 > 63 || W > 16) { fprintf(stderr, "board too large\n"); return 2; }
    uint64_t slots = 1, radix = (1ULL << H1) - 1;
    for (int c = 0; c < W; c++) {
        bottom_[c] = 1ULL << (c * H1);
        top_[c] = 1ULL << (c * H1 + H - 1);
        radix_pow[c] = slots;
        slots *= radix;
    }
    size_t bytes = (size_t)((slots + 3) / 4);
    table = calloc(bytes, 1);
    if (!table) { fprintf(stderr, "no memory for %zu bytes\n", bytes); return 1; }
    int v = solve(0, 0, 0);
    printf("{\"positions\": %lld, \"value\": %d, \"slots\": %llu, \"table_bytes\": %zu}\n",
           positions, v, (unsigned long long)slots, bytes);
    free(table);
    return 0;
}
