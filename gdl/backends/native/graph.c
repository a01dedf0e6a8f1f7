/* ---- the strong solver's passes over packed positions (gdl/backends/native/graph.c) ----
   Appended after search.c. A position is a packed key: each cell's value minus its domain's
   low end, in that cell's bits, cell 0 (the mover) highest, so the order of keys is the order
   of state tuples (gdl.backends.native.codec computes the layout and hands it over once).
   Keys use at most 63 bits: all ones is never a key, and marks an empty hash slot. */

#define EMPTY_KEY UINT64_MAX

static V codec_low[CELLS];
static int codec_shift[CELLS];
static uint64_t codec_span[CELLS];       /* largest value - low that fits in the cell's bits */

/* The layout: per cell its low end and its number of bits (the total at most 63). */
void gdl_graph_codec(const V *low, const int *bits) {
    int shift = 0;
    for (int i = CELLS - 1; i >= 0; i--) {
        codec_low[i] = low[i];
        codec_shift[i] = shift;
        codec_span[i] = bits[i] ? (((uint64_t)1 << bits[i]) - 1) : 0;
        shift += bits[i];
    }
}

/* A state outside the layout (a value beyond a cell's domain) is an error, never a wrong key. */
static uint64_t encode_key(const V *s) {
    uint64_t key = 0;
    for (int i = 0; i < CELLS; i++) {
        uint64_t d = (uint64_t)s[i] - (uint64_t)codec_low[i];
        if (s[i] < codec_low[i] || d > codec_span[i]) { gdl_err = 1; return 0; }
        key |= d << codec_shift[i];
    }
    return key;
}

static void decode_key(uint64_t key, V *s) {
    for (int i = 0; i < CELLS; i++)
        s[i] = codec_low[i] + (V)((key >> codec_shift[i]) & codec_span[i]);
}

/* One position's moves: its player (or TERMINAL_PLAYER), its children's keys in the order of
   its legal actions (written to child, at most ACTIONS), or its returns. Returns the number of
   children. */
static int expand_one(uint64_t key, signed char *player, uint64_t *child, V *returns) {
    V s[CELLS], t[CELLS];
    int actions[ACTIONS];
    decode_key(key, s);
    if (game_terminal(s)) {
        *player = TERMINAL_PLAYER;
        rule_returns(s, returns);
        return 0;
    }
    *player = (signed char)s[0];
    int n = game_legal(s, actions);
    for (int a = 0; a < n; a++) {
        game_apply(s, actions[a], t);
        child[a] = encode_key(t);
    }
    for (int p = 0; p < PLAYERS; p++) returns[p] = 0;
    return n;
}

/* ---- exported: expand a batch of keys (the primitive of gdl.backends.native.graph) ----
   For keys[0..n): player[i], the offsets first[0..n] (first[0] = 0) of each position's
   children in child[], and returns[i * PLAYERS ..] (zeros where not terminal). Stops early,
   before a position whose children would not fit in child_capacity. Returns how many positions
   were expanded, or -1 after a rule error (the caller redoes the work in Python). */
long long gdl_graph_expand(const uint64_t *keys, long long n, signed char *player, long long *first,
                           uint64_t *child, long long child_capacity, V *returns) {
    gdl_err = 0;
    long long used = 0;
    first[0] = 0;
    for (long long i = 0; i < n; i++) {
        if (used + ACTIONS > child_capacity) return i;
        used += expand_one(keys[i], player + i, child + used, returns + i * PLAYERS);
        first[i + 1] = used;
        POLL_STOP(i);
        if (gdl_err) return -1;
    }
    return n;
}

/* ---- exported: every key reachable from a root, breadth-first, with a hash set ----
   A handle keeps the walk between calls, so Python shows progress and takes Ctrl-C between
   steps. keys[] is both the queue and the answer (discovery order); the set is open
   addressing with linear probing, at most 3/4 full. */
typedef struct {
    uint64_t *slots;
    uint64_t mask;
    uint64_t *keys;
    long long found, capacity, done, edges;
} Reach;

static inline uint64_t mix_key(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ (k >> 33);
}

static int reach_grow(Reach *r) {
    uint64_t size = (r->mask + 1) * 2;
    uint64_t *slots = malloc(size * sizeof(uint64_t));
    if (!slots) return 1;
    memset(slots, 0xff, size * sizeof(uint64_t));
    for (uint64_t i = 0; i <= r->mask; i++) {
        uint64_t k = r->slots[i];
        if (k == EMPTY_KEY) continue;
        uint64_t j = mix_key(k) & (size - 1);
        while (slots[j] != EMPTY_KEY) j = (j + 1) & (size - 1);
        slots[j] = k;
    }
    free(r->slots);
    r->slots = slots;
    r->mask = size - 1;
    return 0;
}

/* 1: the key is new (and now in the set and the queue), 0: seen before, -1: out of memory. */
static int reach_add(Reach *r, uint64_t key) {
    uint64_t j = mix_key(key) & r->mask;
    while (r->slots[j] != EMPTY_KEY) {
        if (r->slots[j] == key) return 0;
        j = (j + 1) & r->mask;
    }
    if (r->found == r->capacity) {
        long long capacity = r->capacity * 2;
        uint64_t *keys = realloc(r->keys, (size_t)capacity * sizeof(uint64_t));
        if (!keys) return -1;
        r->keys = keys;
        r->capacity = capacity;
    }
    r->slots[j] = key;
    r->keys[r->found++] = key;
    if ((uint64_t)r->found * 4 > (r->mask + 1) * 3 && reach_grow(r)) return -1;
    return 1;
}

void gdl_reach_free(Reach *r) {
    if (!r) return;
    free(r->slots);
    free(r->keys);
    free(r);
}

Reach *gdl_reach_new(uint64_t root) {
    Reach *r = calloc(1, sizeof(Reach));
    if (!r) return NULL;
    r->mask = (1 << 12) - 1;
    r->capacity = 1 << 12;
    r->slots = malloc((r->mask + 1) * sizeof(uint64_t));
    r->keys = malloc((size_t)r->capacity * sizeof(uint64_t));
    if (!r->slots || !r->keys) { gdl_reach_free(r); return NULL; }
    memset(r->slots, 0xff, (r->mask + 1) * sizeof(uint64_t));
    reach_add(r, root);
    return r;
}

/* Expands up to `budget` positions of the queue. Returns 0 when every reachable position is
   found, 1 when there is more to do, -1 after a rule error, -2 when more than `limit`
   positions exist, -3 when memory ran out. */
int gdl_reach_step(Reach *r, long long budget, long long limit) {
    uint64_t child[ACTIONS];
    V returns[PLAYERS];
    signed char player;
    gdl_err = 0;
    for (long long step = 0; step < budget; step++) {
        if (r->done == r->found) return 0;
        int n = expand_one(r->keys[r->done], &player, child, returns);
        if (gdl_err) return -1;
        r->edges += n;
        for (int a = 0; a < n; a++) {
            int added = reach_add(r, child[a]);
            if (added < 0) return -3;
            if (r->found > limit) return -2;
        }
        r->done++;
    }
    return r->done == r->found ? 0 : 1;
}

/* found, done (positions expanded) and edges (moves out of the expanded positions). */
void gdl_reach_counts(const Reach *r, long long *out) { out[0] = r->found; out[1] = r->done; out[2] = r->edges; }

/* Frees the set, then copies the keys in discovery order (the root first) to out[0..found). */
void gdl_reach_take(Reach *r, uint64_t *out) {
    free(r->slots);
    r->slots = NULL;
    memcpy(out, r->keys, (size_t)r->found * sizeof(uint64_t));
}
