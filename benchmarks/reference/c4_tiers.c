/* Hand-written strong solver of Connect Four W x H in C, a tier at a time over ranked tables:
 * the second yardstick of benchmarks/growth.py (c4_strong.c is the first: a depth-first search
 * over one table of the whole board's mixed-radix rank, whose reads miss the cache on big boards).
 *
 * Tier t holds the boards of t discs. Within it a board is ranked densely: the column heights
 * (a composition of t into W parts of at most H, numbered in lexicographic order) times which
 * of the t discs, in column-major order from the bottom, are the first player's (a subset of
 * ceil(t/2) of them, by the combinatorial number system). Connect Four 6 x 4 has 160 million
 * such slots for its 94,910,577 positions.
 *
 *   forward, t = 0, 1, ...: every reached slot of tier t is unranked; unless the game is over
 *     there, its children are ranked and marked in tier t + 1's bitmap (a bit a slot);
 *   backward, t = W*H, ..., 0: every reached slot gets its value for the player to move
 *     (2 bits: loss, draw, win), read by its parents from tier t + 1's values.
 *
 * All the bitmaps stay in memory (1 bit a slot), values for two tiers at a time. Values only,
 * no remoteness (gdl's ranked tables keep it as well).
 *
 * Build: gcc -O2 -o c4_tiers c4_tiers.c      Run: c4_tiers W H
 * Prints one JSON line: positions (reachable, terminal included), the value of the empty board
 * for the first player, and the slots. Written for this benchmark.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 64
static int W, H, H1, CELLS;
static uint64_t binom[MAXC + 1][MAXC + 1];
static uint64_t comps[17][MAXC + 1];     /* comps[k][s]: ways for columns k..W-1 to hold s discs */
static uint64_t *bits[MAXC + 1];          /* per tier: a bit a slot, reached */
static uint64_t size_[MAXC + 1];          /* per tier: slots */
static uint64_t colourings[MAXC + 1];     /* per tier: C(t, ceil(t/2)) */

static inline int won(uint64_t pos) {
    const int sh[4] = {1, H1, H1 - 1, H1 + 1};
    for (int i = 0; i < 4; i++) {
        uint64_t m = pos & (pos >> sh[i]);
        if (m & (m >> (2 * sh[i]))) return 1;
    }
    return 0;
}

/* Per column, what it adds to a rank, so a rank is W table reads: contrib[I][K][cfg], a column
 * in configuration cfg = 2^h - 1 + its first-player bits p, after I discs of which K are the
 * first player's, adds the terms C(I + r, K + j) of its j-th first-player disc at height r;
 * hpart[c][left][h], column c of height h with `left` discs for it and the later columns, adds
 * the compositions ranked before it. */
static uint64_t contrib[MAXC + 1][MAXC / 2 + 2][128];
static uint64_t hpart[16][MAXC + 1][8];
static uint8_t ones[128];                   /* bits set, below 2^7: without -mpopcnt, a call */

static void tables(void) {
    for (int p = 1; p < 128; p++) ones[p] = (uint8_t)(ones[p >> 1] + (p & 1));
    for (int i = 0; i <= CELLS; i++)
        for (int k = 0; k <= CELLS / 2 + 1; k++)
            for (int h = 0; h <= H; h++)
                for (int p = 0; p < (1 << h); p++) {
                    uint64_t sum = 0;
                    int j = k;
                    for (int r = 0; r < h; r++)
                        if (p >> r & 1 && i + r <= MAXC && j + 1 <= MAXC) sum += binom[i + r][++j];
                    contrib[i][k][(1 << h) - 1 + p] = sum;
                }
    for (int c = 0; c < W; c++)
        for (int left = 0; left <= CELLS; left++)
            for (int h = 0; h <= H && h <= left; h++) {
                uint64_t sum = 0;
                for (int g = 0; g < h; g++) sum += comps[c + 1][left - g];
                hpart[c][left][h] = sum;
            }
}

/* The slot of a board of t discs in its tier; `first`: the first player's stones. */
static inline uint64_t rank_of(uint64_t first, uint64_t mask, int t) {
    uint64_t heights = 0, subset = 0;
    int left = t, before = 0, firsts = 0;
    for (int c = 0; c < W; c++) {
        uint64_t column = (mask >> (c * H1)) & ((1ULL << H1) - 1);
        int h = __builtin_ctzll(~column);           /* a column's discs fill it from the bottom */
        uint64_t p = (first >> (c * H1)) & column;
        heights += hpart[c][left][h];
        subset += contrib[before][firsts][(1 << h) - 1 + p];
        left -= h;
        before += h;
        firsts += ones[p];
    }
    return heights * colourings[t] + subset;
}

/* The board of a slot of tier t. */
static void unrank(uint64_t slot, int t, uint64_t *first, uint64_t *mask) {
    uint64_t heights = slot / colourings[t], subset = slot % colourings[t];
    int h[16], left = t;
    for (int c = 0; c < W; c++) {
        int g = 0;
        while (heights >= comps[c + 1][left - g]) { heights -= comps[c + 1][left - g]; g++; }
        h[c] = g;
        left -= g;
    }
    /* the subset: the largest index first, as the combinatorial number system decodes */
    int f = (t + 1) / 2;
    uint64_t chosen_bits = 0;                   /* bit i: disc i (column-major) is the first's */
    for (int i = t - 1; i >= 0 && f > 0; i--)
        if (subset >= binom[i][f]) { subset -= binom[i][f]; chosen_bits |= 1ULL << i; f--; }
    uint64_t m = 0, p = 0;
    int index = 0;
    for (int c = 0; c < W; c++)
        for (int r = 0; r < h[c]; r++, index++) {
            m |= 1ULL << (c * H1 + r);
            if (chosen_bits >> index & 1) p |= 1ULL << (c * H1 + r);
        }
    *first = p;
    *mask = m;
}

/* Over: the player who just moved made a line, or the board is full. */
static inline int over(uint64_t first, uint64_t mask, int t) {
    if (t == CELLS) return 1;
    return t > 0 && won(t & 1 ? first : first ^ mask);
}

static inline uint64_t child_first(uint64_t first, uint64_t mask, int t, int c) {
    uint64_t stone = (mask + (1ULL << (c * H1))) & (((1ULL << H) - 1) << (c * H1));
    return t & 1 ? first : first | stone;      /* t even: the first player moves */
}

static inline int get2(const uint8_t *v, uint64_t r) { return (v[r >> 2] >> ((r & 3) * 2)) & 3; }
static inline void put2(uint8_t *v, uint64_t r, int x) { v[r >> 2] |= (uint8_t)(x << ((r & 3) * 2)); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: c4_tiers W H\n"); return 2; }
    W = atoi(argv[1]); H = atoi(argv[2]); H1 = H + 1; CELLS = W * H;
    if (W < 1 || H < 1 || W > 16 || W * H1 > 63 || CELLS > MAXC) {
        fprintf(stderr, "board too large\n");
        return 2;
    }
    for (int n = 0; n <= MAXC; n++) {
        binom[n][0] = 1;
        for (int k = 1; k <= n; k++) binom[n][k] = binom[n - 1][k - 1] + (k <= n - 1 ? binom[n - 1][k] : 0);
    }
    /* comps[k][s] for s < 0 never read: the loops stop at left - g >= 0 by construction */
    comps[W][0] = 1;
    for (int k = W - 1; k >= 0; k--)
        for (int s = 0; s <= CELLS; s++)
            for (int g = 0; g <= H && g <= s; g++) comps[k][s] += comps[k + 1][s - g];
    tables();
    uint64_t slots = 0;
    for (int t = 0; t <= CELLS; t++) {
        colourings[t] = binom[t][(t + 1) / 2];
        size_[t] = comps[0][t] * colourings[t];
        slots += size_[t];
        bits[t] = calloc((size_[t] + 63) / 64, 8);
        if (!bits[t]) { fprintf(stderr, "no memory\n"); return 1; }
    }
    bits[0][0] = 1;
    long long positions = 0;
    for (int t = 0; t <= CELLS; t++) {                          /* forward */
        for (uint64_t w = 0; w < (size_[t] + 63) / 64; w++)
            for (uint64_t word = bits[t][w]; word; word &= word - 1) {
                uint64_t slot = w * 64 + (uint64_t)__builtin_ctzll(word), first, mask;
                positions++;
                unrank(slot, t, &first, &mask);
                if (over(first, mask, t)) continue;
                for (int c = 0; c < W; c++) {
                    if (mask >> (c * H1 + H - 1) & 1) continue;
                    uint64_t m = mask | (mask + (1ULL << (c * H1)));
                    uint64_t r = rank_of(child_first(first, mask, t, c), m, t + 1);
                    bits[t + 1][r >> 6] |= 1ULL << (r & 63);
                }
            }
    }
    uint8_t *above = NULL;
    int root = 0;
    for (int t = CELLS; t >= 0; t--) {                          /* backward */
        uint8_t *here = calloc((size_[t] + 3) / 4, 1);
        if (!here) { fprintf(stderr, "no memory\n"); return 1; }
        for (uint64_t w = 0; w < (size_[t] + 63) / 64; w++)
            for (uint64_t word = bits[t][w]; word; word &= word - 1) {
                uint64_t slot = w * 64 + (uint64_t)__builtin_ctzll(word), first, mask;
                unrank(slot, t, &first, &mask);
                int v;                                          /* -1, 0, 1 for the mover */
                if (t == CELLS && !won(t & 1 ? first : first ^ mask)) v = 0;
                else if (over(first, mask, t)) v = -1;
                else {
                    v = -1;
                    for (int c = 0; c < W && v < 1; c++) {
                        if (mask >> (c * H1 + H - 1) & 1) continue;
                        uint64_t m = mask | (mask + (1ULL << (c * H1)));
                        int child = get2(above, rank_of(child_first(first, mask, t, c), m, t + 1)) - 2;
                        if (-child > v) v = -child;
                    }
                }
                put2(here, slot, v + 2);
                if (t == 0) root = v;
            }
        free(above);
        free(bits[t]);
        above = here;
    }
    free(above);
    printf("{\"positions\": %lld, \"value\": %d, \"slots\": %llu}\n", positions, root,
           (unsigned long long)slots);
    return 0;
}
