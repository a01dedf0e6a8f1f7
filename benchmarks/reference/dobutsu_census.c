/* Tanaka's census of Dobutsu shogi, walked with gdl's own compiled rules (games/dobutsu.game).

   Built and run by benchmarks/dobutsu_census.py, which passes the path of the native library gdl
   generated for the rule file (it exports gdl_graph_expand: packed keys in, player, children's
   keys and returns out; gdl/backends/native/graph.py states the contract). This file knows only
   the key layout of games/dobutsu.game, which the Python side checks before running it:

     digit 0       the mover (0 Sente, 1 Gote), base 2, the most significant
     digits 1..12  cell[r][c] at 1 + 3r + c, base 11: 0 empty, 1..5 Sente's L G E C H,
                   6..10 Gote's L G E C H
     digits 13..18 hand[Sente][0..2], hand[Gote][0..2], base 3

   Tanaka (2009) counts a position once for the player to move and once for a board and its
   mirror image: every position is turned to Sente to move (a half turn of the board with the
   colours swapped, and the hands swapped), then the smaller key of it and its mirror image
   (columns a and c exchanged) stands for both. The walk is breadth-first over those canonical
   keys with an open-addressing hash set; a terminal position (the player to move can take the
   enemy lion, or has lost to a try) is counted and not expanded, as in his count.

   Printed: the canonical positions (Tanaka: 246,803,167), of which terminal with a win for the
   player to move (he calls them lion captures: 140,298,614) and with a loss (tries: 7,018,985),
   the non-terminal ones (99,485,568), the moves out of the non-terminal ones, and how many
   canonical boards are their own mirror image: gdl's own walk, which tells apart the player to
   move and the mirror image, then has 4 x positions - 2 x symmetric states. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CELLS 19
#define EMPTY_KEY UINT64_MAX
#define BATCH 4096

typedef long long (*expand_fn)(const uint64_t *, long long, signed char *, long long *,
                               uint64_t *, long long, long long *);

static const int BASE[CELLS] = {2, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
                                3, 3, 3, 3, 3, 3};

static void decode(uint64_t key, int *d) {
    for (int i = CELLS - 1; i >= 0; i--) { d[i] = (int)(key % BASE[i]); key /= BASE[i]; }
}

static uint64_t encode(const int *d) {
    uint64_t key = 0;
    for (int i = 0; i < CELLS; i++) key = key * BASE[i] + (uint64_t)d[i];
    return key;
}

static int swap_colour(int piece) { return piece == 0 ? 0 : piece <= 5 ? piece + 5 : piece - 5; }

/* the canonical key of a state; *symmetric: its board is its own mirror image */
static uint64_t canonical(uint64_t key, int *symmetric) {
    int d[CELLS], t[CELLS], m[CELLS];
    decode(key, d);
    if (d[0] == 1) {            /* Gote to move: a half turn, colours and hands swapped */
        t[0] = 0;
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 3; c++) t[1 + 3 * r + c] = swap_colour(d[1 + 3 * (3 - r) + 2 - c]);
        for (int k = 0; k < 3; k++) { t[13 + k] = d[16 + k]; t[16 + k] = d[13 + k]; }
    } else {
        memcpy(t, d, sizeof t);
    }
    memcpy(m, t, sizeof m);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 3; c++) m[1 + 3 * r + c] = t[1 + 3 * r + 2 - c];
    uint64_t a = encode(t), b = encode(m);
    *symmetric = a == b;
    return a < b ? a : b;
}

typedef struct {
    uint64_t *slots, mask, *keys;
    long long found, capacity;
} Set;

static uint64_t mix(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ (k >> 33);
}

static void die(const char *what) { fprintf(stderr, "dobutsu_census: %s\n", what); exit(2); }

static void grow(Set *s) {
    uint64_t size = (s->mask + 1) * 2;
    uint64_t *slots = malloc(size * sizeof(uint64_t));
    if (!slots) die("out of memory (hash set)");
    memset(slots, 0xff, size * sizeof(uint64_t));
    for (uint64_t i = 0; i <= s->mask; i++) {
        uint64_t k = s->slots[i];
        if (k == EMPTY_KEY) continue;
        uint64_t j = mix(k) & (size - 1);
        while (slots[j] != EMPTY_KEY) j = (j + 1) & (size - 1);
        slots[j] = k;
    }
    free(s->slots);
    s->slots = slots;
    s->mask = size - 1;
}

static int add(Set *s, uint64_t key) {
    uint64_t j = mix(key) & s->mask;
    while (s->slots[j] != EMPTY_KEY) {
        if (s->slots[j] == key) return 0;
        j = (j + 1) & s->mask;
    }
    if (s->found == s->capacity) {
        s->capacity *= 2;
        s->keys = realloc(s->keys, (size_t)s->capacity * sizeof(uint64_t));
        if (!s->keys) die("out of memory (queue)");
    }
    s->slots[j] = key;
    s->keys[s->found++] = key;
    if ((uint64_t)s->found * 4 > (s->mask + 1) * 3) grow(s);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4) die("usage: dobutsu_census LIBRARY ROOT_KEY ACTIONS");
    void *library = dlopen(argv[1], RTLD_NOW);
    if (!library) die(dlerror());
    expand_fn expand = (expand_fn)dlsym(library, "gdl_graph_expand");
    if (!expand) die("the library has no gdl_graph_expand");
    uint64_t root = strtoull(argv[2], NULL, 10);
    long long actions = atoll(argv[3]);

    Set set = {0};
    set.mask = (1u << 20) - 1;
    set.slots = malloc((set.mask + 1) * sizeof(uint64_t));
    set.capacity = 1 << 20;
    set.keys = malloc((size_t)set.capacity * sizeof(uint64_t));
    if (!set.slots || !set.keys) die("out of memory");
    memset(set.slots, 0xff, (set.mask + 1) * sizeof(uint64_t));
    int symmetric;
    add(&set, canonical(root, &symmetric));

    signed char player[BATCH];
    long long first[BATCH + 1], returns[BATCH * 2];
    uint64_t *child = malloc((size_t)BATCH * actions * sizeof(uint64_t));
    uint64_t batch[BATCH];
    if (!child) die("out of memory");
    long long done = 0, wins = 0, losses = 0, moves = 0, mirror = 0;
    clock_t start = clock();
    while (done < set.found) {
        long long n = set.found - done < BATCH ? set.found - done : BATCH;
        memcpy(batch, set.keys + done, (size_t)n * sizeof(uint64_t));
        long long got = expand(batch, n, player, first, child, (long long)BATCH * actions, returns);
        if (got != n) die("the rules failed to expand a position");
        for (long long i = 0; i < n; i++) {
            canonical(batch[i], &symmetric);
            mirror += symmetric;
            if (player[i] == -2) {           /* terminal: Sente is to move in a canonical key */
                if (returns[2 * i] > 0) wins++; else losses++;
                continue;
            }
            for (long long e = first[i]; e < first[i + 1]; e++) add(&set, canonical(child[e], &symmetric));
            moves += first[i + 1] - first[i];
        }
        done += n;
        if (done % (1 << 24) < n)
            fprintf(stderr, "%8.1f s  expanded %lld  found %lld\n",
                    (double)(clock() - start) / CLOCKS_PER_SEC, done, set.found);
    }
    printf("positions %lld\nterminal_win %lld\nterminal_loss %lld\nnon_terminal %lld\n"
           "moves %lld\nsymmetric %lld\ncpu_seconds %.1f\n", set.found, wins, losses,
           set.found - wins - losses, moves, mirror, (double)(clock() - start) / CLOCKS_PER_SEC);
    return 0;
}
