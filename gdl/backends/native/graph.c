/* ---- the strong solver's passes over packed positions (gdl/backends/native/graph.c) ----
   Appended after search.c. A position is a packed key: a mixed-radix number whose digits are
   each cell's value minus its domain's low end, in base the domain's size, cell 0 (the mover)
   most significant, so the order of keys is the order of state tuples
   (gdl.backends.native.codec computes the layout; emit.py writes it as constants). Keys are below
   2^63 - 1: all ones is never a key, and marks an empty hash slot. */

#define EMPTY_KEY UINT64_MAX

/* The layout (codec_low, codec_size: constants the emitter wrote before the prelude), for
   Python: 1 and the layout when the states have 63-bit keys, else 0. */
int gdl_graph_layout(long long *low, long long *size) {
    for (int i = 0; i < CELLS; i++) { low[i] = codec_low[i]; size[i] = (long long)codec_size[i]; }
    return GRAPH_CODEC;
}
int gdl_players(void) { return PLAYERS; }

/* A state outside the layout (a value beyond a cell's domain) is an error, never a wrong key. */
static uint64_t encode_key(const V *s) {
    uint64_t key = 0;
#pragma GCC unroll 64
    for (int i = 0; i < CELLS; i++) {
        uint64_t d = (uint64_t)s[i] - (uint64_t)codec_low[i];
        if (s[i] < codec_low[i] || d >= codec_size[i]) { gdl_err = 1; return 0; }
        key = key * codec_size[i] + d;
    }
    return key;
}

/* Unrolled, each division is by a constant: a multiplication. */
static void decode_key(uint64_t key, V *s) {
#pragma GCC unroll 64
    for (int i = CELLS - 1; i >= 0; i--) {
        s[i] = codec_low[i] + (V)(key % codec_size[i]);
        key /= codec_size[i];
    }
}

/* One position's moves: its player (or TERMINAL_PLAYER), its children's keys in the order of
   its legal actions (written to child, at most ACTIONS), or its returns. Returns the number of
   children. */
static int expand_one(uint64_t key, signed char *player, uint64_t *child, V *returns) {
    V s[CELLS];
    PADDED_STATE(t);
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

/* ---- exported: expand positions of a numbered graph and give each child its id ----
   keys[0..n) are every position's key: the root first, the others sorted, so a child's id is
   0 for the root and 1 + its rank among keys[1..n) (a binary search). Expands positions
   [start, stop), writing player[i], first[i + 1] (absolute edge offsets; first[start] is
   read), child[first[i]..] (ids) and returns[(i - start) * PLAYERS ..]. Returns 0, -1 after a
   rule error, -2 when a child is not among the keys or the moves overflow child_capacity. */
int gdl_graph_number(const uint64_t *keys, long long n, long long start, long long stop,
                     signed char *player, long long *first, int *child, long long child_capacity,
                     V *returns) {
    /* zeroed once per batch: expand_one writes the first `count`, which gcc cannot see
       (-Wmaybe-uninitialized) */
    uint64_t children[ACTIONS] = {0};
    const uint64_t *rest = keys + 1;
    long long size = n - 1;
    gdl_err = 0;
    for (long long i = start; i < stop; i++) {
        int count = expand_one(keys[i], player + i, children, returns + (i - start) * PLAYERS);
        if (gdl_err) return -1;
        long long edge = first[i];
        if (edge + count > child_capacity) return -2;
        for (int a = 0; a < count; a++) {
            uint64_t key = children[a];
            long long id;
            if (key == keys[0]) id = 0;
            else {
                long long low = 0, width = size;       /* the first index with rest[.] >= key */
                while (width > 0) {
                    long long half = width / 2;
                    if (rest[low + half] < key) { low += half + 1; width -= half + 1; }
                    else width = half;
                }
                if (low >= size || rest[low] != key) return -2;
                id = low + 1;
            }
            child[edge + a] = (int)id;
        }
        first[i + 1] = edge + count;
        POLL_STOP(i);
    }
    return gdl_err ? -1 : 0;
}

/* ---- exported: every key reachable from a root, breadth-first, with a hash set ----
   A handle keeps the walk between calls, so Python shows progress and takes Ctrl-C between
   steps. keys[] is both the queue and the answer (discovery order); the set is open
   addressing with linear probing, at most 3/4 full. */
#define REACH_CHUNK 64      /* positions expanded before their children are added */

typedef struct {
    uint64_t *slots;
    uint64_t mask;
    uint64_t *keys;
    long long found, capacity, done, edges;
    uint64_t *children;         /* REACH_CHUNK * ACTIONS: one chunk's children */
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
    free(r->children);
    free(r);
}

Reach *gdl_reach_new(uint64_t root) {
    Reach *r = calloc(1, sizeof(Reach));
    if (!r) return NULL;
    r->mask = (1 << 12) - 1;
    r->capacity = 1 << 12;
    r->slots = malloc((r->mask + 1) * sizeof(uint64_t));
    r->keys = malloc((size_t)r->capacity * sizeof(uint64_t));
    r->children = malloc((size_t)REACH_CHUNK * ACTIONS * sizeof(uint64_t));
    if (!r->slots || !r->keys || !r->children) { gdl_reach_free(r); return NULL; }
    memset(r->slots, 0xff, (r->mask + 1) * sizeof(uint64_t));
    reach_add(r, root);
    return r;
}

/* Expands up to `budget` positions of the queue. Returns 0 when every reachable position is
   found, 1 when there is more to do, -1 after a rule error, -2 when more than `limit`
   positions exist, -3 when memory ran out.
   A chunk of queued positions is expanded first and its children's slots prefetched, then the
   children are added in the same order as one position at a time would add them (so the
   discovery order is the same): the set's cache misses overlap instead of following each
   other. */
int gdl_reach_step(Reach *r, long long budget, long long limit) {
    uint64_t *child = r->children;
    int count[REACH_CHUNK];
    V returns[PLAYERS];
    signed char player;
    gdl_err = 0;
    long long stop = r->done + budget;
    while (r->done < r->found && r->done < stop) {
        long long chunk = r->found - r->done;
        if (chunk > REACH_CHUNK) chunk = REACH_CHUNK;
        if (chunk > stop - r->done) chunk = stop - r->done;
        long long used = 0;
        for (long long i = 0; i < chunk; i++) {
            count[i] = expand_one(r->keys[r->done + i], &player, child + used, returns);
            used += count[i];
        }
        if (gdl_err) return -1;
        for (long long j = 0; j < used; j++) __builtin_prefetch(r->slots + (mix_key(child[j]) & r->mask));
        used = 0;
        for (long long i = 0; i < chunk; i++) {
            for (int a = 0; a < count[i]; a++) {
                if (reach_add(r, child[used + a]) < 0) return -3;
                if (r->found > limit) return -2;
            }
            used += count[i];
            r->edges += count[i];
            r->done++;
        }
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

/* ---- exported: backward induction, two players, constant sum, no chance ----
   The numpy pass of gdl.graph.induction.two_player_induction, depth-first instead of a level
   at a time, so it needs no reversed edges: a byte a position (unseen, on the path, done) and
   the path itself. score[] holds on entry each terminal's value for player 0 (centred and
   scaled), on exit every position's; remoteness[] is written. A position's value is its best
   child's for the mover; its remoteness one more than the fastest optimal child's when the
   mover wins or ties, the slowest's when it loses. Returns 0, 1 when a cycle is met (the
   caller then uses retrograde analysis), -3 when memory ran out. */
int gdl_graph_induction(long long n, const long long *first, const int *child,
                        const signed char *player, long long *score, int *remoteness) {
    unsigned char *mark = calloc((size_t)n, 1);          /* 0 unseen, 1 on the path, 2 done */
    long long capacity = 1024, depth = 0;
    long long *path = malloc((size_t)capacity * sizeof(long long));
    long long *next = malloc((size_t)capacity * sizeof(long long));  /* the edge to try next */
    int status = 0;
    if (!mark || !path || !next) { status = -3; goto out; }
    for (long long start = 0; start < n && status == 0; start++) {
        if (mark[start]) continue;
        path[0] = start; next[0] = first[start]; mark[start] = 1; depth = 1;
        while (depth > 0) {
            long long v = path[depth - 1];
            if (next[depth - 1] < first[v + 1]) {            /* descend into the next child */
                long long c = child[next[depth - 1]++];
                if (mark[c] == 2) continue;
                if (mark[c] == 1) { status = 1; goto out; }
                if (depth == capacity) {
                    capacity *= 2;
                    long long *p = realloc(path, (size_t)capacity * sizeof(long long));
                    if (p) path = p;
                    long long *q = realloc(next, (size_t)capacity * sizeof(long long));
                    if (q) next = q;
                    if (!p || !q) { status = -3; goto out; }
                }
                path[depth] = c; next[depth] = first[c]; mark[c] = 1; depth++;
                continue;
            }
            /* every child done: value v */
            depth--;
            mark[v] = 2;
            if (player[v] == TERMINAL_PLAYER) { remoteness[v] = 0; continue; }
            long long sign = player[v] == 1 ? -1 : 1, best = 0;
            int fastest = 0, slowest = 0, seen = 0;
            for (long long e = first[v]; e < first[v + 1]; e++) {
                long long c = child[e], mine = score[c] * sign;
                int r = remoteness[c];
                if (!seen || mine > best) { best = mine; fastest = slowest = r; seen = 1; }
                else if (mine == best) { if (r < fastest) fastest = r; if (r > slowest) slowest = r; }
            }
            remoteness[v] = 1 + (best < 0 ? slowest : fastest);
            score[v] = best * sign;
        }
        if (gdl_stop_flag) { status = -4; goto out; }
    }
out:
    free(mark); free(path); free(next);
    return status;
}

/* ---- exported: the tier passes (gdl.graph.tiers on packed keys) ----
   A position's tier is the declared `tier` (rule_tier, when HAS_TIER and nplus < 0) or the sum
   of the cells cells[0..nplus) minus the sum of cells[nplus..nplus + nminus) (a tier inferred
   from components that only grow or only shrink; none: every position in tier 0). */
static V tier_of(const V *s, const int *cells, int nplus, int nminus) {
#if HAS_TIER
    if (nplus < 0) return rule_tier(s);
#endif
    if (nplus < 0) { gdl_err = 1; return 0; }
    V t = 0;
    for (int i = 0; i < nplus; i++) t += s[cells[i]];
    for (int i = 0; i < nminus; i++) t -= s[cells[nplus + i]];
    return t;
}

/* The tier of each of keys[0..n) in out[]. 0, or -1 after a rule error. */
int gdl_tier_keys(const uint64_t *keys, long long n, const int *cells, int nplus, int nminus,
                  long long *out) {
    V s[CELLS];
    gdl_err = 0;
    for (long long i = 0; i < n && !gdl_err; i++) {
        decode_key(keys[i], s);
        out[i] = tier_of(s, cells, nplus, nminus);
    }
    return gdl_err ? -1 : 0;
}

/* The first index of sorted a[0..n) holding key, or -1. */
static long long find_key(const uint64_t *a, long long n, uint64_t key) {
    long long low = 0, width = n;
    while (width > 0) {
        long long half = width / 2;
        if (a[low + half] < key) { low += half + 1; width -= half + 1; }
        else width = half;
    }
    return low < n && a[low] == key ? low : -1;
}

/* One tier's backward step when every move leaves the tier (two players, constant sum, no
   chance): each position of keys[0..n) is expanded, each child found by binary search in the
   solved later tier it belongs to (side j: side_tier[j], its sorted keys side_keys[j], each
   key's value-table index side_index[j] and remoteness side_remoteness[j], the table's values
   side_table[j] as scores), and the position valued as gdl_graph_induction values it: score
   is player 0's value centred (2 u0 - total), remoteness one more than the fastest optimal
   child's when the mover wins or ties, the slowest's when it loses; a terminal scores its
   returns, remoteness 0. Returns 0; -1 after a rule error (or a stuck position, or a score
   beyond 2^60); -2 when a child is in no side (a move inside the tier, or a tier not given):
   the caller then builds the tier's graph instead; -4 when stopped. */
int gdl_tier_solve(const uint64_t *keys, long long n, const int *cells, int nplus, int nminus,
                   int sides, const long long *side_tier, const long long *side_n,
                   const uint64_t *const *side_keys, const int *const *side_index,
                   const long long *const *side_table, const int *const *side_remoteness,
                   long long total, long long *score, int *remoteness) {
    V s[CELLS], returns[PLAYERS];
    PADDED_STATE(t);
    int actions[ACTIONS];
    const V limit = (V)1 << 60;
    gdl_err = 0;
    for (long long i = 0; i < n; i++) {
        decode_key(keys[i], s);
        if (game_terminal(s)) {
            rule_returns(s, returns);
            if (gdl_err || returns[0] >= limit || returns[0] <= -limit) return -1;
            score[i] = 2 * returns[0] - total;
            remoteness[i] = 0;
            continue;
        }
        int count = game_legal(s, actions);
        if (gdl_err || count == 0) return -1;
        long long sign = s[0] == 1 ? -1 : 1, best = 0;
        int fastest = 0, slowest = 0;
        for (int a = 0; a < count; a++) {
            game_apply(s, actions[a], t);
            V tier = tier_of(t, cells, nplus, nminus);
            uint64_t key = encode_key(t);
            if (gdl_err) return -1;
            int j = 0;
            while (j < sides && side_tier[j] != tier) j++;
            if (j == sides) return -2;
            long long at = find_key(side_keys[j], side_n[j], key);
            if (at < 0) return -2;
            long long mine = side_table[j][side_index[j][at]] * sign;
            int r = side_remoteness[j][at];
            if (a == 0 || mine > best) { best = mine; fastest = slowest = r; }
            else if (mine == best) { if (r < fastest) fastest = r; if (r > slowest) slowest = r; }
        }
        remoteness[i] = 1 + (best < 0 ? slowest : fastest);
        score[i] = best * sign;
        POLL_STOP(i);
        if (gdl_err) return gdl_stop_flag ? -4 : -1;
    }
    return 0;
}

/* 1 when the rules declare `tier` (rule_tier exists), else 0. */
int gdl_has_tier(void) { return HAS_TIER; }

/* Each key's state as CELLS bytes, one a cell (the position database's "u8" keys; the caller
   knows every cell's domain lies in 0..255). */
void gdl_key_bytes(const uint64_t *keys, long long n, unsigned char *out) {
    V s[CELLS];
    for (long long i = 0; i < n; i++) {
        decode_key(keys[i], s);
        for (int c = 0; c < CELLS; c++) out[i * CELLS + c] = (unsigned char)s[c];
    }
}
