/* Dobutsu shogi strongly solved over Tanaka's positions, with gdl's own compiled rules.

   Not gdl's solver: a reference, as benchmarks/reference/c4_tiers.c is for Connect Four, that
   shows what the rule file games/dobutsu.game gives when its ~4 x 247 million states are folded
   as Tanaka folded them (dobutsu_census.c says how: every position turned to Sente to move, a
   board and its mirror image counted once), which gdl's own solvers do not do. Built and run by
   benchmarks/dobutsu_census.py --solve with the native library gdl generated for the rule file.

   1. The census walk (breadth-first over canonical keys, terminal positions not expanded) also
      numbers the positions (discovery order; a hash set of 32-bit ids into the key array) and
      keeps each position's number of moves (one byte) and, at a terminal, its result.
   2. Each move's child id, kept by the walk (4 bytes a move), is laid out reversed: a
      position's parents (4 bytes a move), the keys and the hash set freed first.
   3. Retrograde analysis, a remoteness at a time, with a counter per position (the moves not yet
      known to lose for it): a position joins as a win when one move leads to a loss for the
      opponent, as a loss when every move leads to a win for the opponent; its remoteness is
      one more than that child's (the smallest for a win, the largest for a loss, since the
      levels are taken in order). What never joins is a draw (endless play: `when endless draw`).
   All values are for the player to move, Sente in every canonical key, so a child's value is
   the opponent's: the half turn swaps the sides.

   With a fourth argument, every position's key, value and remoteness are written to that file
   (benchmarks/dobutsu_census.py --against-gdl compares them with gdl's own answers).

   Printed: the census (as dobutsu_census.c), the non-terminal positions won, lost and drawn
   for the player to move (Tanaka: 56,474,473 / 40,328,395 / 2,682,700), the start's value and
   remoteness, the longest remoteness, and the CPU seconds of each stage. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CELLS 19
#define NONE UINT32_MAX
#define BATCH 4096
enum { UNKNOWN = 0, WIN = 1, LOSS = 2 };

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

static uint64_t canonical(uint64_t key) {
    int d[CELLS], t[CELLS], m[CELLS];
    decode(key, d);
    if (d[0] == 1) {
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
    return a < b ? a : b;
}

static void die(const char *what) { fprintf(stderr, "dobutsu_solve: %s\n", what); exit(2); }

static void *grow_array(void *p, size_t bytes) {
    p = realloc(p, bytes);
    if (!p) die("out of memory");
    return p;
}

/* the positions: keys in discovery order, a hash set of ids into them */
static uint64_t *keys;
static uint32_t *slots;
static uint64_t mask;
static long long found, capacity;

static uint64_t mix(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ (k >> 33);
}

static void rehash(void) {
    uint64_t size = (mask + 1) * 2;
    free(slots);
    slots = malloc(size * sizeof(uint32_t));
    if (!slots) die("out of memory (hash set)");
    memset(slots, 0xff, size * sizeof(uint32_t));
    mask = size - 1;
    for (long long i = 0; i < found; i++) {
        uint64_t j = mix(keys[i]) & mask;
        while (slots[j] != NONE) j = (j + 1) & mask;
        slots[j] = (uint32_t)i;
    }
}

/* the id of a key, added (and queued) when new and `add` */
static uint32_t id_of(uint64_t key, int add) {
    uint64_t j = mix(key) & mask;
    while (slots[j] != NONE) {
        if (keys[slots[j]] == key) return slots[j];
        j = (j + 1) & mask;
    }
    if (!add) die("a child the walk did not find");
    if (found == capacity) {
        capacity *= 2;
        keys = grow_array(keys, (size_t)capacity * sizeof(uint64_t));
    }
    if (found >= (long long)NONE) die("more positions than 32-bit ids");
    keys[found] = key;
    slots[j] = (uint32_t)found;
    found++;
    if ((uint64_t)found * 4 > (mask + 1) * 3) rehash();
    return (uint32_t)(found - 1);
}

static double seconds(clock_t since) { return (double)(clock() - since) / CLOCKS_PER_SEC; }

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) die("usage: dobutsu_solve LIBRARY ROOT_KEY ACTIONS [DUMP]");
    const char *dump = argc == 5 ? argv[4] : NULL;
    void *library = dlopen(argv[1], RTLD_NOW);
    if (!library) die(dlerror());
    expand_fn expand = (expand_fn)dlsym(library, "gdl_graph_expand");
    if (!expand) die("the library has no gdl_graph_expand");
    uint64_t root = strtoull(argv[2], NULL, 10);
    long long actions = atoll(argv[3]);

    mask = (1u << 20) - 1;
    slots = malloc((mask + 1) * sizeof(uint32_t));
    capacity = 1 << 20;
    keys = malloc((size_t)capacity * sizeof(uint64_t));
    long long value_capacity = capacity;
    uint8_t *value = malloc((size_t)value_capacity), *degree = malloc((size_t)value_capacity);
    if (!slots || !keys || !value || !degree) die("out of memory");
    memset(slots, 0xff, (mask + 1) * sizeof(uint32_t));
    uint32_t start_id = id_of(canonical(root), 1);

    signed char player[BATCH];
    long long first[BATCH + 1], returns[BATCH * 2];
    uint64_t *child = malloc((size_t)BATCH * actions * sizeof(uint64_t));
    uint64_t batch[BATCH];
    if (!child) die("out of memory");

    /* 1. the walk, keeping each move's child id (4 bytes a move) */
    clock_t clock0 = clock();
    long long done = 0, moves = 0, wins = 0, losses = 0, move_capacity = 1 << 20;
    uint32_t *forward = malloc((size_t)move_capacity * sizeof(uint32_t));
    if (!forward) die("out of memory");
    while (done < found) {
        long long n = found - done < BATCH ? found - done : BATCH;
        memcpy(batch, keys + done, (size_t)n * sizeof(uint64_t));
        if (expand(batch, n, player, first, child, (long long)BATCH * actions, returns) != n)
            die("the rules failed to expand a position");
        if (found + n * actions > value_capacity) {
            while (found + n * actions > value_capacity) value_capacity *= 2;
            value = grow_array(value, (size_t)value_capacity);
            degree = grow_array(degree, (size_t)value_capacity);
        }
        if (moves + first[n] > move_capacity) {
            while (moves + first[n] > move_capacity) move_capacity *= 2;
            forward = grow_array(forward, (size_t)move_capacity * sizeof(uint32_t));
        }
        for (long long i = 0; i < n; i++) {
            long long p = done + i;
            if (player[i] == -2) {
                value[p] = returns[2 * i] > 0 ? WIN : LOSS;
                degree[p] = 0;
                if (value[p] == WIN) wins++; else losses++;
                continue;
            }
            long long count = first[i + 1] - first[i];
            if (count > 255) die("more than 255 moves");
            value[p] = UNKNOWN;
            degree[p] = (uint8_t)count;
            for (long long e = first[i]; e < first[i + 1]; e++)
                forward[moves++] = id_of(canonical(child[e]), 1);
        }
        done += n;
    }
    if (moves >= (long long)UINT32_MAX) die("more moves than 32-bit offsets");
    double walk_seconds = seconds(clock0);
    fprintf(stderr, "walk: %lld positions, %lld moves, %.0f s\n", found, moves, walk_seconds);
    free(slots);            /* the keys are not needed any more, but to be dumped */
    if (!dump) free(keys);

    /* 2. the moves reversed: each position's parents, by counting then filling */
    clock_t clock1 = clock();
    uint32_t *parent_first = calloc((size_t)found + 1, sizeof(uint32_t));
    uint32_t *parents = malloc((size_t)moves * sizeof(uint32_t));
    if (!parent_first || !parents) die("out of memory (parents)");
    for (long long e = 0; e < moves; e++) parent_first[forward[e] + 1]++;
    for (long long i = 0; i < found; i++) parent_first[i + 1] += parent_first[i];
    for (long long p = 0, e = 0; p < found; p++)
        for (int k = 0; k < degree[p]; k++, e++) parents[parent_first[forward[e]]++] = (uint32_t)p;
    free(forward);
    for (long long i = found; i > 0; i--) parent_first[i] = parent_first[i - 1];   /* back */
    parent_first[0] = 0;
    double parent_seconds = seconds(clock1);
    fprintf(stderr, "parents: %.0f s\n", parent_seconds);

    /* 3. retrograde analysis, a remoteness at a time */
    clock_t clock2 = clock();
    uint8_t *remoteness = calloc((size_t)found, 1);
    uint32_t *frontier = malloc((size_t)found * sizeof(uint32_t));
    uint32_t *next = malloc((size_t)found * sizeof(uint32_t));
    if (!remoteness || !frontier || !next) die("out of memory (retrograde)");
    long long size = 0;
    for (long long p = 0; p < found; p++) if (value[p] != UNKNOWN) frontier[size++] = (uint32_t)p;
    int level = 0;
    while (size) {
        long long next_size = 0;
        for (long long f = 0; f < size; f++) {
            uint32_t c = frontier[f];
            for (uint32_t e = parent_first[c]; e < parent_first[c + 1]; e++) {
                uint32_t p = parents[e];
                if (value[p] != UNKNOWN) continue;
                if (value[c] == LOSS) {
                    value[p] = WIN;
                } else if (--degree[p] == 0) {
                    value[p] = LOSS;
                } else {
                    continue;
                }
                if (level + 1 > 255) die("remoteness beyond 255");
                remoteness[p] = (uint8_t)(level + 1);
                next[next_size++] = p;
            }
        }
        uint32_t *swap = frontier; frontier = next; next = swap;
        size = next_size;
        level++;
    }
    long long won = 0, lost = 0, drawn = 0;
    int longest = 0;
    for (long long p = 0; p < found; p++) {
        if (degree[p] == 0 && remoteness[p] == 0 && value[p] != UNKNOWN) continue;   /* terminal */
        if (value[p] == WIN) won++; else if (value[p] == LOSS) lost++; else drawn++;
        if (value[p] != UNKNOWN && remoteness[p] > longest) longest = remoteness[p];
    }
    double solve_seconds = seconds(clock2);
    if (dump) {             /* every position: its key, value (0 draw, 1 win, 2 loss), remoteness */
        FILE *out = fopen(dump, "wb");
        if (!out || fwrite(keys, sizeof(uint64_t), (size_t)found, out) != (size_t)found
            || fwrite(value, 1, (size_t)found, out) != (size_t)found
            || fwrite(remoteness, 1, (size_t)found, out) != (size_t)found || fclose(out))
            die("cannot write the dump");
    }
    const char *name[] = {"draw", "win", "loss"};
    printf("positions %lld\nterminal_win %lld\nterminal_loss %lld\nnon_terminal %lld\n"
           "moves %lld\nwon %lld\nlost %lld\ndrawn %lld\nstart %s\nstart_remoteness %d\n"
           "longest %d\nwalk_seconds %.1f\nparents_seconds %.1f\nsolve_seconds %.1f\n",
           found, wins, losses, found - wins - losses, moves, won, lost, drawn,
           name[value[start_id]], remoteness[start_id], longest, walk_seconds, parent_seconds,
           solve_seconds);
    return 0;
}
