/* Hand-written Connect Four in C that finds what `gdl solve` finds: the value *and the exact set
 * of optimal first moves*. The yardstick of benchmarks/native.py's row "Connect Four 5x4 solve vs C
 * with the set": ../shared/bench/ref/c4.c (bitboards, an open-addressing table that never
 * drops an entry, centre-first order) finds the value alone, which is less work than the set.
 *
 * The search is c4.c's, unchanged (same bitboards, table, order and node counting); only the
 * root differs, and it is gdl's (gdl/backends/native/search.c, ab_root_set): the first move,
 * centre first, searched with the full window, every later one with the tightest window that
 * still sees a tie, (best - 1, best + 1), and searched again above it when it is better. Values
 * are -1, 0, 1, so a tie needs the proof that the move reaches the value and that it does not
 * exceed it, and a worse move the proof that it loses; the value alone needs neither.
 *
 * Build: gcc -O2 -o c4_set c4_set.c      Run: c4_set W H [repeat]
 * Prints one JSON line: the value for the first player, the optimal first moves (columns), the
 * nodes (the root counted once, as gdl does), the median time of `repeat` runs after one warm-up.
 * Written for this benchmark.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int W, H, H1, CELLS;
static int order[16];
static uint64_t bottom_[16], top_[16];
static long long nodes;

static inline int won(uint64_t pos) {
    int sh[4] = {1, H1, H1 - 1, H1 + 1};
    for (int i = 0; i < 4; i++) {
        uint64_t m = pos & (pos >> sh[i]);
        if (m & (m >> (2 * sh[i]))) return 1;
    }
    return 0;
}

static int TT_BITS = 23;
#define TT_SIZE (1u << TT_BITS)
static uint64_t *tt_key;           /* 0: empty (a key is the position's cur + mask + 1) */
static unsigned char *tt_fv;

enum { EXACT = 1, LOWER = 2, UPPER = 3 };

static inline uint32_t slot(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ULL) >> (64 - TT_BITS)); }
static inline int tt_get(uint64_t k, int *flag, int *val) {
    uint32_t i = slot(k);
    while (tt_key[i]) {
        if (tt_key[i] == k) { *flag = tt_fv[i] >> 2; *val = (int)(tt_fv[i] & 3) - 1; return 1; }
        i = (i + 1) & (TT_SIZE - 1);
    }
    return 0;
}
static inline void tt_put(uint64_t k, int flag, int val) {
    uint32_t i = slot(k);
    while (tt_key[i] && tt_key[i] != k) i = (i + 1) & (TT_SIZE - 1);
    tt_key[i] = k;
    tt_fv[i] = (unsigned char)((flag << 2) | (val + 1));
}

/* The value for the first player (player 0, MAX); cur holds the stones of the player to move. */
static int ab(uint64_t cur, uint64_t mask, int n, int alpha, int beta) {
    nodes++;
    uint64_t k = cur + mask + 1;
    int f, v;
    if (tt_get(k, &f, &v)) {
        if (f == EXACT) return v;
        if (f == LOWER) { if (v >= beta) return v; if (v > alpha) alpha = v; }
        else { if (v <= alpha) return v; if (v < beta) beta = v; }
    }
    if (n > 0 && won(cur ^ mask)) { v = ((n - 1) & 1) == 0 ? 1 : -1; tt_put(k, EXACT, v); return v; }
    if (n == CELLS) { tt_put(k, EXACT, 0); return 0; }
    int a0 = alpha, b0 = beta, maxp = (n & 1) == 0;
    int best = maxp ? -2 : 2;
    for (int i = 0; i < W; i++) {
        int c = order[i];
        if (mask & top_[c]) continue;
        v = ab(cur ^ mask, mask | (mask + bottom_[c]), n + 1, alpha, beta);
        if (maxp) { if (v > best) { best = v; if (best >= beta) break; if (best > alpha) alpha = best; } }
        else { if (v < best) { best = v; if (best <= alpha) break; if (best < beta) beta = best; } }
    }
    tt_put(k, best <= a0 ? UPPER : (best >= b0 ? LOWER : EXACT), best);
    return best;
}

/* The root with the exact optimal set (bit c: column c), as gdl's ab_root_set; the first player
   moves first, so the root maximises. */
static int root_set(unsigned *set) {
    nodes++;
    int best = -2, first = 1;
    *set = 0;
    for (int i = 0; i < W; i++) {
        int c = order[i];
        uint64_t mask = bottom_[c];           /* after the move: no stone of the mover (cur 0) */
        int v;
        if (first) { best = ab(0, mask, 1, -2, 2); *set = 1u << c; first = 0; continue; }
        v = ab(0, mask, 1, best - 1, best + 1);
        if (v <= best - 1) continue;
        if (v >= best + 1) v = ab(0, mask, 1, best, 2);
        if (v == best) *set |= 1u << c;
        else if (v > best) { best = v; *set = 1u << c; }
    }
    return best;
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: c4_set W H [repeat]\n"); return 2; }
    W = atoi(argv[1]); H = atoi(argv[2]); H1 = H + 1; CELLS = W * H;
    if (W < 4 || H < 4 || W > 16 || W * H1 > 63) { fprintf(stderr, "board too big or too small\n"); return 2; }
    int repeat = argc > 3 ? atoi(argv[3]) : 5;
    if (repeat < 1) repeat = 1;
    for (int i = 0; i < W; i++) order[i] = i;         /* centre first, ties by lower column */
    for (int i = 0; i < W; i++) for (int j = i + 1; j < W; j++) {
        int di = abs(2 * order[i] - (W - 1)), dj = abs(2 * order[j] - (W - 1));
        if (dj < di || (dj == di && order[j] < order[i])) { int t = order[i]; order[i] = order[j]; order[j] = t; }
    }
    for (int c = 0; c < W; c++) { bottom_[c] = 1ULL << (c * H1); top_[c] = 1ULL << (c * H1 + H - 1); }
    TT_BITS = CELLS <= 16 ? 17 : (CELLS <= 20 ? 20 : 24);   /* c4.c's sizes (one bit more was slower) */
    tt_key = malloc(sizeof(uint64_t) * TT_SIZE); tt_fv = malloc(TT_SIZE);
    double *t = malloc(sizeof(double) * (size_t)repeat);
    if (!tt_key || !tt_fv || !t) { fprintf(stderr, "out of memory\n"); return 1; }
    int value = 0; unsigned set = 0;
    for (int r = -1; r < repeat; r++) {
        nodes = 0;
        double t0 = now();
        memset(tt_key, 0, sizeof(uint64_t) * TT_SIZE);
        value = root_set(&set);
        double dt = now() - t0;
        if (r >= 0) t[r] = dt;
    }
    qsort(t, (size_t)repeat, sizeof(double), cmpd);
    double med = repeat % 2 ? t[repeat / 2] : (t[repeat / 2 - 1] + t[repeat / 2]) / 2;
    printf("{\"bench\": \"solve_set_%dx%d\", \"lang\": \"c\", \"value\": %d, \"optimal\": [", W, H, value);
    for (int c = 0, k = 0; c < W; c++) if (set >> c & 1) printf("%s%d", k++ ? ", " : "", c);
    printf("], \"nodes\": %lld, \"runs\": %d, \"s_min\": %.6f, \"s_median\": %.6f, \"s_max\": %.6f}\n",
           nodes, repeat, t[0], med, t[repeat - 1]);
    return 0;
}
