/* ---- the protocol and the search loops, shared by every game (gdl/backends/native/search.c) ----
   The same semantics as gdl.backends.interpret and gdl.solvers: see gdl/backends/native/emit.py. */
#include <stdlib.h>
#include <sys/mman.h>

/* Large zeroed tables (the transposition table: tens of megabytes probed at random) in huge
   pages where the system offers them: a probe then costs a cache miss without a page walk. */
static void *table_alloc(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

#define TERMINAL_PLAYER (-2)

/* Every state an effect writes (game_apply's out, game_advance's s) lies in a buffer with
   STATE_PAD cells on either side of it: emit.py lets an effect's eager load (computed whether
   or not what proves its index holds) go without a clamp where it cannot read further than
   that outside the state, and the value it reads there is thrown away. Buffers of such states
   come from states_alloc (zeroed, the pads too) or are declared with PADDED_STATE. */
#ifndef STATE_PAD
#define STATE_PAD 0
#endif
static V *states_alloc(size_t count) {
    V *p = calloc(count * CELLS + 2 * STATE_PAD, sizeof(V));
    return p ? p + STATE_PAD : NULL;
}
static void states_free(V *p) { if (p) free(p - STATE_PAD); }
static inline void pads_clear(V *room) {
    if (STATE_PAD) {
        memset(room, 0, sizeof(V) * STATE_PAD);
        memset(room + STATE_PAD + CELLS, 0, sizeof(V) * STATE_PAD);
    }
}
#define PADDED_STATE(name) \
    V name##_room[CELLS + 2 * STATE_PAD]; V *name = name##_room + STATE_PAD; pads_clear(name##_room)

/* Set by gdl_stop() from another thread (Ctrl-C in Python): every search polls it and stops
   with an error, which leaves nothing half-done (all its memory is its own and freed). */
static volatile int gdl_stop_flag;
void gdl_stop(void) { gdl_stop_flag = 1; }
void gdl_go(void) { gdl_stop_flag = 0; }
#define POLL_STOP(nodes) do { if (((nodes) & 4095) == 0 && gdl_stop_flag) gdl_err = 1; } while (0)
#define MAX_PLY 1024   /* deeper searches stop with an error and run in Python (cycles too) */

static int game_terminal(const V *s) { return rule_terminal(s) != 0; }

static int game_current(const V *s) { return game_terminal(s) ? TERMINAL_PLAYER : (int)s[0]; }

/* The legal actions of a non-terminal state; none is the dead end E304 (an error). */
static int game_legal(const V *s, int *out) {
    int n = rule_legal(s, out);
    if (n == 0) gdl_err = 1;
    return n;
}

/* `when stuck pass`: a player without a legal action is skipped, in rotation. */
static void game_settle(V *s) {
    if (!STUCK_PASS || game_terminal(s)) return;
    int scratch[ACTIONS];
    V first = s[0];
    for (int step = 0; step < PLAYERS; step++) {
        s[0] = (first + step) % PLAYERS;
        if (rule_legal(s, scratch) > 0) return;
    }
    s[0] = first;
}

/* The action's effect on s itself (effects change the cells in place; s[0], the mover, is no
   variable's), then the next mover. */
static void game_advance(V *s, int action) {
    V turn = -1, mover = s[0];
    rule_effect(s, action, &turn);
    V following = turn == -1 ? (mover + 1) % PLAYERS : turn;
    if (following < 0 || following >= PLAYERS) { gdl_err = 1; following = 0; }
    s[0] = following;
    game_settle(s);
}

/* (out: a padded state, see STATE_PAD) */
static void game_apply(const V *s, int action, V *out) {
    memcpy(out, s, sizeof(V) * CELLS);
    game_advance(out, action);
}

/* A leaf's value for player 0; the vector must keep the declared sum (as gdl.solvers' Frontier checks). */
static V leaf_value(const V *s, int terminal) {
    V u[PLAYERS];
    if (terminal) rule_returns(s, u); else rule_evaluate(s, u);
    if (CONSTANT_SUM) {
        V total = 0;
        for (int p = 0; p < PLAYERS; p++) total = gdl_add(total, u[p]);
        if (total != SUM_TOTAL) gdl_err = 1;
    }
    return u[0];
}

/* ---- exported: one step of the protocol, for the agreement tests ---- */
int gdl_cells(void) { return CELLS; }
int gdl_actions(void) { return ACTIONS; }
int gdl_current(const V *s, int *player) { gdl_err = 0; *player = game_current(s); return gdl_err; }
int gdl_legal(const V *s, int *out, int *count) { gdl_err = 0; *count = game_legal(s, out); return gdl_err; }
int gdl_apply(const V *s, int action, V *out) {
    gdl_err = 0;
    if (action < 0 || action >= ACTIONS) return 1;
    PADDED_STATE(child);
    game_apply(s, action, child);
    memcpy(out, child, sizeof(V) * CELLS);
    return gdl_err;
}
int gdl_returns(const V *s, V *out) { gdl_err = 0; rule_returns(s, out); return gdl_err; }

/* ---- minimax (gdl.solvers.minimax): two players, constant sum, every node visited ----
   Player 0 maximises v0, player 1 maximises total - v0, i.e. minimises v0; the first best child
   in declaration order wins ties and extends the principal variation. */
typedef struct {
    V *states;                 /* one state per ply */
    int *actions;              /* ACTIONS per ply */
    int *pv;                   /* triangular: MAX_PLY x MAX_PLY */
    int *pv_len;
    long long nodes, leaves, evaluations;
    V *root_values;
} Search;

static V minimax_node(Search *x, int ply, int depth_left) {
    const V *s = x->states + (size_t)ply * CELLS;
    x->nodes++;
    POLL_STOP(x->nodes);
    x->pv_len[ply] = 0;
    int player = game_current(s);
    if (gdl_err) return 0;
    if (player == TERMINAL_PLAYER || depth_left == 0) {
        x->leaves++;
        if (player != TERMINAL_PLAYER) x->evaluations++;
        return leaf_value(s, player == TERMINAL_PLAYER);
    }
    if (ply + 1 >= MAX_PLY) { gdl_err = 1; return 0; }
    int *actions = x->actions + (size_t)ply * ACTIONS;
    int n = game_legal(s, actions);
    if (gdl_err) return 0;
    V best = 0;
    int have = 0;
    V *child = x->states + (size_t)(ply + 1) * CELLS;
    for (int i = 0; i < n; i++) {
        game_apply(s, actions[i], child);
        if (gdl_err) return 0;
        V v = minimax_node(x, ply + 1, depth_left > 0 ? depth_left - 1 : -1);
        if (gdl_err) return 0;
        if (ply == 0) x->root_values[i] = v;
        if (!have || (player == 0 ? v > best : v < best)) {
            best = v;
            have = 1;
            int *row = x->pv + (size_t)ply * MAX_PLY, *below = x->pv + (size_t)(ply + 1) * MAX_PLY;
            row[0] = actions[i];
            memcpy(row + 1, below, sizeof(int) * x->pv_len[ply + 1]);
            x->pv_len[ply] = x->pv_len[ply + 1] + 1;
        }
    }
    return best;
}

/* Returns 0 and fills the outputs, or 1 when a rule error, an overflow or a too deep line
   stopped the search (then nothing is filled in but the counters). depth < 0: no limit.
   root_actions/root_values: the root's legal actions and their values (root_count of them);
   stats: nodes, leaves, evaluations. */
int gdl_minimax(const V *root, int depth, V *value0, int *root_actions, V *root_values,
                int *root_count, int *pv, int *pv_len, long long *stats) {
    gdl_err = 0;
    Search x = {0};
    x.states = states_alloc(MAX_PLY);
    x.actions = malloc(sizeof(int) * ACTIONS * (size_t)MAX_PLY);
    x.pv = malloc(sizeof(int) * (size_t)MAX_PLY * MAX_PLY);
    x.pv_len = malloc(sizeof(int) * (size_t)MAX_PLY);
    x.root_values = root_values;
    int failed = 1;
    if (x.states && x.actions && x.pv && x.pv_len) {
        memcpy(x.states, root, sizeof(V) * CELLS);
        *value0 = minimax_node(&x, 0, depth);
        failed = gdl_err != 0;
        if (!failed) {
            int player = game_current(root);
            *root_count = player == TERMINAL_PLAYER || depth == 0 ? 0 : rule_legal(root, root_actions);
            *pv_len = x.pv_len[0];
            memcpy(pv, x.pv, sizeof(int) * x.pv_len[0]);
        }
    }
    stats[0] = x.nodes; stats[1] = x.leaves; stats[2] = x.evaluations;
    states_free(x.states); free(x.actions); free(x.pv); free(x.pv_len);
    return failed;
}

/* ---- random playouts: splitmix64, an unbiased pick among the legal actions ----
   gdl.backends.native.playouts_python runs the same loop over the protocol, with the same
   generator, so both tiers make the same choices. */
static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* An index below n, every one equally likely (Lemire, "Fast random integer generation in an
   interval", 2019): the high word of r * n, drawing again while the low word falls below
   2^64 mod n. A multiply instead of a division: in a playout the move's dispatch, which a
   random move makes the processor mispredict nearly every time, waits for this index, so its
   latency is paid at every ply (a 64-bit division made playouts about 15% slower). */
static int pick(uint64_t *rng, int n) {
    __uint128_t m = (__uint128_t)splitmix(rng) * (uint64_t)n;
    uint64_t low = (uint64_t)m;
    if (low < (uint64_t)n) {
        uint64_t threshold = (0 - (uint64_t)n) % (uint64_t)n;
        while (low < threshold) {
            m = (__uint128_t)splitmix(rng) * (uint64_t)n;
            low = (uint64_t)m;
        }
    }
    return (int)(m >> 64);
}

/* `count` playouts from root; sums: total utility per player; stats: plies played. Returns 1 on
   a rule error or overflow, or when a playout exceeds max_plies. */
int gdl_playouts(const V *root, long long count, uint64_t seed, long long max_plies, V *sums,
                 long long *stats) {
    gdl_err = 0;
    V u[PLAYERS];
    PADDED_STATE(s);
    int actions[ACTIONS];
    uint64_t rng = seed;
    long long plies = 0;
    for (int p = 0; p < PLAYERS; p++) sums[p] = 0;
    for (long long k = 0; k < count && !gdl_err; k++) {
        memcpy(s, root, sizeof(V) * CELLS);
        long long length = 0;
        while (!gdl_err && !game_terminal(s)) {
            if (length++ >= max_plies) { gdl_err = 1; break; }
            int n = game_legal(s, actions);
            if (gdl_err) break;
            game_advance(s, actions[pick(&rng, n)]);      /* a playout needs no copy */
            plies++;
            POLL_STOP(plies);
        }
        if (gdl_err) break;
        rule_returns(s, u);
        for (int p = 0; p < PLAYERS; p++) sums[p] = gdl_add(sums[p], u[p]);
    }
    stats[0] = plies;
    return gdl_err != 0;
}

/* ---- alpha-beta, as gdl.solvers.alphabeta with its exact defaults: a TwoBig transposition
   table keyed by Python's own hash of the state tuple (so the same buckets, the same
   replacements and the same node counts), the table's move first, then the children by the
   static evaluation (when the game declares one), PVS, and the root's exact set of optimal
   actions by the tightest tie window. Integer values only; the window ends are sentinels beyond
   every value a leaf may have (|v| < 2^62, else an error and the Python tier). Each of the
   table, the ordering, PVS and the optimal set can be switched off (SWITCH_*), as the engine's
   SearchOptions tt, ordering, pvs and optimal_set; killers, history, iterative deepening,
   aspiration, quiescence and budgets are the Python tier's only. ---- */

#define SWITCH_TABLE 1
#define SWITCH_ORDERING 2
#define SWITCH_PVS 4
#define SWITCH_OPTIMAL_SET 8

#define NEG_INF (-(1LL << 62))
#define POS_INF (1LL << 62)
#define FULL_DEPTH (1 << 30)
#define BOUND_EXACT 0
#define BOUND_LOWER 1
#define BOUND_UPPER 2
#define NO_ACTION (-1)

/* CPython's hash of an int (modular, P = 2^61 - 1; -1 becomes -2) and of a tuple (xxHash). */
static inline int64_t py_int_hash(V v) {
    const uint64_t P = (1ULL << 61) - 1;
    if (v > -(int64_t)P && v < (int64_t)P) return v == -1 ? -2 : v;   /* every small int */
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int64_t r = (int64_t)(a % P);
    if (v < 0) r = -r;
    return r == -1 ? -2 : r;
}

/* Python's hash of the state tuple. A cell's lane is Python's hash of its int; HASH_CELLS (emit.py,
   from the declared domains) says what that takes for the values a cell may hold: 2, the int
   itself (small, never -1); 1, the same but -1 hashes as -2; 0, the general modular hash. Every
   state the rules make keeps the domains (a store outside one stops the search), and the searches
   that hash check their root (in_domains), so the search hashes with PY_LANE. Unrolled: the
   lanes' products are independent, only the add-rotate-multiply is a chain. */
#if HASH_CELLS == 2
#define PY_LANE(v) ((uint64_t)(v))
#elif HASH_CELLS == 1
#define PY_LANE(v) ((uint64_t)((v) == -1 ? -2 : (v)))
#else
#define PY_LANE(v) ((uint64_t)py_int_hash(v))
#endif
#define PY_TUPLE_HASH(lane) {                                                     \
    uint64_t acc = 2870177450012600261ULL;                                        \
    _Pragma("GCC unroll 64")                                                      \
    for (int i = 0; i < CELLS; i++) {                                             \
        acc += lane(s[i]) * 14029467366897019727ULL;                              \
        acc = (acc << 31) | (acc >> 33);                                          \
        acc *= 11400714785074694791ULL;                                           \
    }                                                                             \
    acc += (uint64_t)CELLS ^ (2870177450012600261ULL ^ 3527539ULL);               \
    return acc == (uint64_t)-1 ? 1546275796 : (int64_t)acc; }
#define ANY_LANE(v) ((uint64_t)py_int_hash(v))

static int64_t py_tuple_hash(const V *s) PY_TUPLE_HASH(PY_LANE)
static int64_t py_tuple_hash_any(const V *s) PY_TUPLE_HASH(ANY_LANE)

/* Whether every cell holds a value of its declared domain (CELL_RANGES: emit.py knows them). */
static int in_domains(const V *s) {
#if CELL_RANGES
    for (int i = 0; i < CELLS; i++) if (s[i] < cell_low[i] || s[i] > cell_high[i]) return 0;
#endif
    (void)s;
    return 1;
}

/* Python's hash of any state, through the search's own hash where that is the one it uses. */
int64_t gdl_hash(const V *s) { return in_domains(s) ? py_tuple_hash(s) : py_tuple_hash_any(s); }

static void pack(const V *s, K *k) {
#pragma GCC unroll 64
    for (int i = 0; i < CELLS; i++) k[i] = (K)s[i];
}
static int same(const K *k, const V *s) {
    V differ = 0;               /* no early exit: one branch instead of one a cell */
#pragma GCC unroll 64
    for (int i = 0; i < CELLS; i++) differ |= (V)k[i] ^ s[i];
    return differ == 0;
}

/* A table entry. Where the rules have a mixed-radix key that fits in 63 bits (TT_KEYED, emit.py:
   the codec of gdl.backends.native.codec, one state one key), an entry names its state by the
   key plus one (0: empty). Compact (TT_COMPACT, emit.py chose it: the key and the values a leaf
   may have leave room), it is 16 bytes, two words: the tag in the low TT_TAG_BITS of the first
   and the value (signed) in the rest of it; the bound, the best action plus one, the depth and
   the work in the second. So the table, which the search probes at random (its cost is cache
   misses), is half the size of 32-byte entries, four buckets to a 64-byte line. The depth takes
   16 bits, all ones for FULL_DEPTH (an exact subtree); an inexact one has an evaluation at most
   MAX_PLY plies below, so its depth is less than MAX_PLY. The work takes the rest, at least 40
   bits (a subtree larger than that stops the search); a value that would not fit, which
   emit.py's bounds rule out, stops it too. Else, with a key and actions that fit in
   16 bits, an entry is 32 bytes, a bucket of two one cache line. Else the entry keeps the state
   itself, a byte a cell where every cell fits in one (K). Either way the buckets, the
   replacements and so the node counts are the Python tier's. */
#if TT_KEYED && (TT_COMPACT || ACTIONS < 32768)
#define TT_TAGGED 1
typedef uint64_t Tag;
/* The state's key (sum of digit times the weight of its place, as codec.py's encode) plus one. */
static inline Tag tt_tag(const V *s) {
    uint64_t key = 0;
#pragma GCC unroll 64
    for (int i = 0; i < CELLS; i++) key += (uint64_t)s[i] * tt_weight[i];
    return key - TT_KEY_BIAS + 1;
}
#else
#define TT_TAGGED 0
typedef int Tag;
#define tt_tag(s) 0
#endif

#if TT_TAGGED && TT_COMPACT
typedef struct { uint64_t w0, w1; } Entry;
_Static_assert(sizeof(Entry) == 16, "four entries to a cache line");
#define TAG_MASK ((1ULL << TT_TAG_BITS) - 1)
#define VALUE_BITS (64 - TT_TAG_BITS)
#define BEST_SHIFT 2
#define DEPTH_SHIFT (BEST_SHIFT + TT_BEST_BITS)
#define WORK_SHIFT (DEPTH_SHIFT + 16)
#define DEPTH_FULL_CODE 0xFFFF
#define ENTRY_USED(e) (((e)->w0 & TAG_MASK) != 0)
#define ENTRY_IS(e, s, t) (((e)->w0 & TAG_MASK) == (t))
#define ENTRY_VALUE(e) ((V)((int64_t)(e)->w0 >> TT_TAG_BITS))
#define ENTRY_BOUND(e) ((int)((e)->w1 & 3))
#define ENTRY_BEST(e) ((int)(((e)->w1 >> BEST_SHIFT) & ((1ULL << TT_BEST_BITS) - 1)) - 1)
#define ENTRY_WORK(e) ((long long)((e)->w1 >> WORK_SHIFT))
static inline int entry_depth(const Entry *e) {
    int code = (int)((e->w1 >> DEPTH_SHIFT) & 0xFFFF);
    return code == DEPTH_FULL_CODE ? FULL_DEPTH : code;
}
#define ENTRY_DEPTH(e) entry_depth(e)
/* The entry, or an error where a field does not fit (see above). */
static inline Entry entry_make(const V *s, Tag tag, V value, int bound, int depth, int best,
                               long long work) {
    (void)s;
    Entry e;
    const V top = (V)1 << (VALUE_BITS - 1);
    if (value < -top || value >= top || work >= (1LL << (64 - WORK_SHIFT))
        || (depth < FULL_DEPTH && depth >= DEPTH_FULL_CODE)) gdl_err = 1;
    e.w0 = tag | ((uint64_t)value << TT_TAG_BITS);
    e.w1 = (uint64_t)bound | ((uint64_t)(best + 1) << BEST_SHIFT)
        | ((uint64_t)(depth >= FULL_DEPTH ? DEPTH_FULL_CODE : depth & 0xFFFF) << DEPTH_SHIFT)
        | ((uint64_t)work << WORK_SHIFT);
    return e;
}
#else
typedef struct {
#if TT_TAGGED
    uint64_t tag;               /* the state's key + 1; 0: empty */
#endif
    V value;
    long long work;
    int depth;
#if TT_TAGGED
    short best;
    signed char bound;
#else
    int best;
    signed char bound, used;
    K state[CELLS];
#endif
} Entry;
#if TT_TAGGED
_Static_assert(sizeof(Entry) == 32, "two entries to a cache line");
#define ENTRY_USED(e) ((e)->tag != 0)
#define ENTRY_IS(e, s, t) ((e)->tag == (t))
#else
#define ENTRY_USED(e) ((e)->used)
#define ENTRY_IS(e, s, t) same((e)->state, (s))
#endif
#define ENTRY_VALUE(e) ((e)->value)
#define ENTRY_BOUND(e) ((int)(e)->bound)
#define ENTRY_BEST(e) ((int)(e)->best)
#define ENTRY_WORK(e) ((e)->work)
#define ENTRY_DEPTH(e) ((e)->depth)
static inline Entry entry_make(const V *s, Tag tag, V value, int bound, int depth, int best,
                               long long work) {
    (void)s; (void)tag;
    Entry e;
#if TT_TAGGED
    e.tag = tag;
#else
    pack(s, e.state);
    e.used = 1;
#endif
    e.value = value; e.bound = (signed char)bound; e.depth = depth; e.best = best; e.work = work;
    return e;
}
#endif

typedef struct { K state[CELLS]; int action, used; } PvSlot;

#define NO_PLY (1 << 30)

typedef struct {
    V *states;                  /* one state per ply */
    int *actions;               /* ACTIONS per ply */
    V **children;               /* per ply, built on first use: ACTIONS children */
    V *scores;                  /* ACTIONS per ply */
    int64_t *keys;              /* ACTIONS per ply: the hash of each child built by ordering */
    unsigned char *terminal;    /* ACTIONS per ply: whether each child built by ordering is terminal */
    int *order;                 /* ACTIONS per ply */
    Entry *table;
    long long buckets;
    PvSlot *pv;                 /* state -> best action where its value was exact */
    long long pv_capacity, pv_used;
    int has_evaluate;
    int use_table, ordering, pvs;   /* the switches (SWITCH_*) */
    int evaluation_plies;       /* from this ply on, rank by the root's order (NO_PLY: never) */
    int *rank_of;               /* ACTIONS: each action's place in the root's order */
    long long nodes, leaves, cutoffs, probes, hits, researches, inexact, used, replaced;
    int max_ply;
} AB;

static long long bucket_of(AB *x, int64_t key) {
    /* Python's key % buckets; for a power of two (the default) that is a mask, whatever the
       sign, and a mask costs a cycle where a division costs dozens */
    if ((x->buckets & (x->buckets - 1)) == 0) return (long long)((uint64_t)key & (uint64_t)(x->buckets - 1));
    long long i = key % x->buckets;
    return i < 0 ? i + x->buckets : i;
}

static Entry *tt_find(AB *x, const V *s, int64_t key, Tag tag) {
    (void)s; (void)tag;         /* one of the two names the entry, as TT_TAGGED says */
    Entry *slot = x->table + 2 * bucket_of(x, key);
    if (ENTRY_USED(&slot[0]) && ENTRY_IS(&slot[0], s, tag)) return &slot[0];
    if (ENTRY_USED(&slot[1]) && ENTRY_IS(&slot[1], s, tag)) return &slot[1];
    return NULL;
}

static void tt_store(AB *x, const V *s, int64_t key, Tag tag, V value, int bound, int depth,
                     int best, long long work) {
    (void)s; (void)tag;
    Entry e = entry_make(s, tag, value, bound, depth, best, work);
    Entry *slot = x->table + 2 * bucket_of(x, key);
    Entry *first = &slot[0], *second = &slot[1];
    if (!ENTRY_USED(first)) { *first = e; x->used++; return; }
    if (ENTRY_IS(first, s, tag)) { if (depth >= ENTRY_DEPTH(first)) *first = e; return; }
    if (!ENTRY_USED(second)) x->used++;
    else if (!ENTRY_IS(second, s, tag)) x->replaced++;
    if (work >= ENTRY_WORK(first)) { *second = *first; *first = e; }
    else *second = e;
}

static uint64_t mix(int64_t key) { uint64_t z = (uint64_t)key * 0x9E3779B97F4A7C15ULL; return z ^ (z >> 29); }

static int pv_grow(AB *x);

static void pv_put(AB *x, const V *s, int64_t key, int action) {
    if (2 * (x->pv_used + 1) > x->pv_capacity && !pv_grow(x)) { gdl_err = 1; return; }
    uint64_t i = mix(key) & (uint64_t)(x->pv_capacity - 1);
    while (x->pv[i].used && !same(x->pv[i].state, s)) i = (i + 1) & (uint64_t)(x->pv_capacity - 1);
    if (!x->pv[i].used) { x->pv[i].used = 1; pack(s, x->pv[i].state); x->pv_used++; }
    x->pv[i].action = action;
}

static int pv_get(AB *x, const V *s) {
    uint64_t i = mix(py_tuple_hash(s)) & (uint64_t)(x->pv_capacity - 1);
    while (x->pv[i].used) {
        if (same(x->pv[i].state, s)) return x->pv[i].action;
        i = (i + 1) & (uint64_t)(x->pv_capacity - 1);
    }
    return NO_ACTION;
}

static int pv_grow(AB *x) {
    long long old_capacity = x->pv_capacity;
    PvSlot *old = x->pv;
    PvSlot *fresh = calloc((size_t)old_capacity * 2, sizeof(PvSlot));
    if (!fresh) return 0;
    x->pv = fresh; x->pv_capacity = old_capacity * 2; x->pv_used = 0;
    V s[CELLS];
    for (long long j = 0; j < old_capacity; j++) {
        if (!old[j].used) continue;
        for (int i = 0; i < CELLS; i++) s[i] = (V)old[j].state[i];
        uint64_t i = mix(py_tuple_hash(s)) & (uint64_t)(x->pv_capacity - 1);
        while (x->pv[i].used) i = (i + 1) & (uint64_t)(x->pv_capacity - 1);
        x->pv[i] = old[j];
        x->pv_used++;
    }
    free(old);
    return 1;
}

static V checked_value(V v) { if (v <= NEG_INF || v >= POS_INF) gdl_err = 1; return v; }

static V first_value(const V *s, int terminal) {
    V u[PLAYERS];
    if (terminal) rule_returns(s, u); else rule_evaluate(s, u);
    return checked_value(u[0]);
}

/* The search order of a node's actions (gdl.solvers.ordering with table_move_first and, when
   the game has an evaluation, by_evaluation): the table's move, then the rest by the child's
   evaluation for the mover (returns for a terminal child), a move that wins at once first, ties
   by declaration order. From ply evaluation_plies on (an exact solve) the children are not
   evaluated: a move that wins at once first, then the rest by the root's order (rank_of, set
   when the root is ordered), as gdl.solvers.ordering's _ranked does. When children are built
   here they are kept: returns 1, and children[ply][i] is action i's child. */
static int order_actions(AB *x, int ply, const V *s, int *actions, int n, int mover, int table_move) {
    int *order = x->order + (size_t)ply * ACTIONS;
    int firsts = 0;
    if (!x->ordering) {         /* declaration order, children built by the search */
        for (int i = 0; i < n; i++) order[i] = i;
        return 0;
    }
    if (table_move != NO_ACTION) {
        for (int i = 0; i < n; i++) if (actions[i] == table_move) { order[firsts++] = i; break; }
    }
    if (!x->has_evaluate) {
        int k = firsts;
        for (int i = 0; i < n; i++) if (!(firsts && order[0] == i)) order[k++] = i;
        return 0;
    }
    if (!x->children[ply]) {
        x->children[ply] = states_alloc(ACTIONS);
        if (!x->children[ply]) { gdl_err = 1; return 0; }
    }
    V *kids = x->children[ply];
    V *scores = x->scores + (size_t)ply * ACTIONS;
    unsigned char ranks[ACTIONS];
    int by_root_order = ply >= x->evaluation_plies;
    int k = firsts;
    for (int i = 0; i < n; i++) {
        V *child = kids + (size_t)i * CELLS;
        game_apply(s, actions[i], child);
        if (gdl_err) return 0;
        int terminal = game_terminal(child);
        x->terminal[(size_t)ply * ACTIONS + i] = (unsigned char)terminal;
        /* a child that is not terminal will be a node that probes the table: its bucket is
           fetched from memory while the others are built, and its hash kept for it (a terminal
           child is a leaf, which never hashes) */
        if (!terminal) {
            int64_t key = py_tuple_hash(child);
            x->keys[(size_t)ply * ACTIONS + i] = key;
            if (x->use_table) __builtin_prefetch(x->table + 2 * bucket_of(x, key));
        }
        if (firsts && order[0] == i) continue;
        V value;
        int rank = 1;   /* 0: the move wins at once (the mover ends with more than the other) */
        if (by_root_order) {
            if (terminal) {
                V u[PLAYERS];
                rule_returns(child, u);
                if (mover > 0 ? u[0] > u[1] : u[1] > u[0]) rank = 0;
            }
            value = x->rank_of[actions[i]];
        } else if (terminal) {
            V u[PLAYERS];
            rule_returns(child, u);
            value = checked_value(u[0]);
            if (mover > 0 ? u[0] > u[1] : u[1] > u[0]) rank = 0;
        } else {
            value = first_value(child, 0);
        }
        if (gdl_err) return 0;
        scores[i] = by_root_order || mover < 0 ? value : -value;
        ranks[i] = (unsigned char)rank;
        /* insertion sort, stable: (rank, score, declaration order) ascending */
        int j = k++;
        while (j > firsts && (ranks[order[j - 1]] > ranks[i] || (ranks[order[j - 1]] == ranks[i]
                                                  && scores[order[j - 1]] > scores[i]))) {
            order[j] = order[j - 1]; j--;
        }
        order[j] = i;
    }
    /* as in gdl.solvers.ordering: only a root ordered by evaluation sets the ranks */
    if (ply == 0 && !by_root_order && x->evaluation_plies != NO_PLY) {
        for (int a = 0; a < ACTIONS; a++) x->rank_of[a] = ACTIONS;   /* not at the root: last */
        for (int r = 0; r < n; r++) x->rank_of[actions[order[r]]] = r;
    }
    return 1;
}

/* The node `s` at `ply`: a state in the ply's own slot of x->states or a child ordering built in
   x->children[ply - 1], searched where it lies (neither is written while it is searched). A
   child ordering built is `known` (its place in x->keys and x->terminal: its hash and whether
   it is terminal are known), else known is -1. */
static V ab_search(AB *x, int ply, const V *s, int depth, V alpha, V beta, int sign, long known) {
    x->nodes++;
    POLL_STOP(x->nodes);
    int p;
    if (known >= 0) p = x->terminal[known] ? TERMINAL_PLAYER : (int)s[0];
    else {
        p = game_current(s);
        if (gdl_err) return 0;
    }
    if (p == TERMINAL_PLAYER || depth <= 0) {
        x->leaves++;
        if (p != TERMINAL_PLAYER) x->inexact++;
        if (ply > x->max_ply) x->max_ply = ply;
        V v = first_value(s, p == TERMINAL_PLAYER);
        return sign > 0 ? v : -v;
    }
    if (ply + 1 >= MAX_PLY) { gdl_err = 1; return 0; }
    int m = p ? -1 : 1;
    int flip = m != sign;
    if (flip) { V t = alpha; alpha = -beta; beta = -t; }
    int table_move = NO_ACTION;
    int64_t key = known >= 0 ? x->keys[known] : py_tuple_hash(s);
    if (x->use_table) x->probes++;
    Tag tag = x->use_table ? tt_tag(s) : 0;
    Entry *entry = x->use_table ? tt_find(x, s, key, tag) : NULL;
    if (entry) {
        V value = ENTRY_VALUE(entry);
        int bound = ENTRY_BOUND(entry), stored = ENTRY_DEPTH(entry);
        int answers = stored >= depth && (bound == BOUND_EXACT
            || (bound == BOUND_LOWER && value >= beta)
            || (bound == BOUND_UPPER && value <= alpha));
        if (answers) {
            x->hits++;
            if (stored < FULL_DEPTH) x->inexact++;
            return flip ? -value : value;
        }
        table_move = ENTRY_BEST(entry);
    }
    long long inexact0 = x->inexact, nodes0 = x->nodes;
    V alpha0 = alpha, best = NEG_INF;
    int best_move = NO_ACTION;
    int *actions = x->actions + (size_t)ply * ACTIONS;
    int n = game_legal(s, actions);
    if (gdl_err) return 0;
    int built = order_actions(x, ply, s, actions, n, m, table_move);
    if (gdl_err) return 0;
    int *order = x->order + (size_t)ply * ACTIONS;
    V *slot = x->states + (size_t)(ply + 1) * CELLS;
    int scout = 0;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        const V *child = built ? x->children[ply] + (size_t)i * CELLS : slot;
        if (!built) { game_apply(s, actions[i], slot); if (gdl_err) return 0; }
        long hint = built ? (long)ply * ACTIONS + i : -1;
        V v;
        if (scout) {
            V nb = alpha + 1;
            if (nb < beta) {
                v = ab_search(x, ply + 1, child, depth - 1, alpha, nb, m, hint);
                if (gdl_err) return 0;
                if (nb <= v && v < beta) {
                    x->researches++;
                    v = ab_search(x, ply + 1, child, depth - 1, alpha, beta, m, hint);
                }
            } else {
                v = ab_search(x, ply + 1, child, depth - 1, alpha, beta, m, hint);
            }
        } else {
            v = ab_search(x, ply + 1, child, depth - 1, alpha, beta, m, hint);
            scout = x->pvs;
        }
        if (gdl_err) return 0;
        if (v > best) {
            best = v;
            best_move = actions[i];
            if (v > alpha) {
                if (v >= beta) { x->cutoffs++; break; }
                alpha = v;
            }
        }
    }
    int bound = best >= beta ? BOUND_LOWER : best <= alpha0 ? BOUND_UPPER : BOUND_EXACT;
    if (x->use_table)
        tt_store(x, s, key, tag, best, bound, x->inexact == inexact0 ? FULL_DEPTH : depth,
                 best_move, x->nodes - nodes0);
    if (alpha0 < best && best < beta && best_move != NO_ACTION) pv_put(x, s, key, best_move);
    return flip ? -best : best;
}

/* The root with the exact set of optimal actions (Engine._root): the first child searched with
   the full window, every later one with the tightest window that still sees a tie, searched
   again above it when it is better. The value in the mover's perspective; the optimal actions
   as flags over the root's legal list (*n of them). */
static V ab_root_set(AB *x, const V *root, int search_depth, int m, int *actions,
                     int *best_flags, int *n_out) {
    x->nodes++;
    int n = game_legal(root, actions);
    *n_out = n;
    int built = gdl_err ? 0 : order_actions(x, 0, root, actions, n, m, NO_ACTION);
    int *order = x->order;
    V *slot = x->states + CELLS;
    V best = NEG_INF;
    int have_ties = 0, first_tie = NO_ACTION;
    for (int i = 0; i < n; i++) best_flags[i] = 0;
    for (int k = 0; k < n && !gdl_err; k++) {
        int i = order[k];
        const V *child = built ? x->children[0] + (size_t)i * CELLS : slot;
        if (!built) game_apply(root, actions[i], slot);
        if (gdl_err) break;
        long hint = built ? i : -1;
        V v;
        if (!have_ties) {
            v = ab_search(x, 1, child, search_depth - 1, NEG_INF, POS_INF, m, hint);
            if (v > best) best = v;
            have_ties = 1;
            best_flags[i] = 1;
            first_tie = actions[i];
            continue;
        }
        V lo = best - 1, hi = best + 1;
        v = ab_search(x, 1, child, search_depth - 1, lo, hi, m, hint);
        if (gdl_err) break;
        if (v <= lo) continue;
        if (v >= hi) {
            x->researches++;
            v = ab_search(x, 1, child, search_depth - 1, best, POS_INF, m, hint);
            if (gdl_err) break;
        }
        if (v == best) best_flags[i] = 1;
        else if (v > best) {
            best = v;
            for (int j = 0; j < n; j++) best_flags[j] = 0;
            best_flags[i] = 1;
            first_tie = actions[i];
        }
    }
    if (!gdl_err) pv_put(x, root, py_tuple_hash(root), first_tie);
    return best;
}

/* The value-only root (Engine._root_value, --no-optimal-set): the root searched as any other
   node; its one best action is the one recorded for it (exact: the window is infinite), else
   the table's exact entry's, else an error (the Python tier then takes its own fallback). */
static V ab_root_value(AB *x, const V *root, int search_depth, int m, int *actions,
                       int *best_flags, int *n_out) {
    V best = ab_search(x, 0, x->states, search_depth, NEG_INF, POS_INF, m, -1);
    *n_out = 0;
    if (gdl_err) return best;
    int action = pv_get(x, root);
    if (action == NO_ACTION && x->use_table) {
        Entry *e = tt_find(x, root, py_tuple_hash(root), tt_tag(root));
        if (e && ENTRY_BOUND(e) == BOUND_EXACT) action = ENTRY_BEST(e);
    }
    if (action == NO_ACTION) { gdl_err = 1; return best; }
    int n = game_legal(root, actions);
    *n_out = n;
    for (int i = 0; i < n; i++) best_flags[i] = actions[i] == action;
    return best;
}

/* The root (gdl.solvers.alphabeta Engine._root and solve_root, no aspiration): the exact value
   for player 0, the optimal actions as flags over the root's legal list, the principal
   variation (pv_from), and the counters: nodes, leaves, cutoffs, probes, hits, researches,
   max ply, entries used, entries replaced, proven. Without SWITCH_OPTIMAL_SET the root is
   searched as any other node (Engine._root_value): the value and the one best action found.
   Returns 1 when it stopped (an error). */
int gdl_alphabeta(const V *root, int depth, long long tt_size, int evaluation_plies,
                  int switches, V *value0, int *best_flags, int *legal_count, int *pv,
                  int *pv_len, long long *stats) {
    gdl_err = 0;
    AB x;
    memset(&x, 0, sizeof x);
    x.has_evaluate = HAS_EVALUATE;
    x.use_table = (switches & SWITCH_TABLE) != 0;
    x.ordering = (switches & SWITCH_ORDERING) != 0;
    x.pvs = (switches & SWITCH_PVS) != 0;
    x.evaluation_plies = evaluation_plies < 0 ? NO_PLY : evaluation_plies;
    x.rank_of = malloc(sizeof(int) * ACTIONS);
    if (x.rank_of) for (int a = 0; a < ACTIONS; a++) x.rank_of[a] = ACTIONS;
    x.buckets = tt_size / 2 > 0 ? tt_size / 2 : 1;
    x.states = states_alloc(MAX_PLY);
    x.actions = malloc(sizeof(int) * ACTIONS * (size_t)MAX_PLY);
    x.order = malloc(sizeof(int) * ACTIONS * (size_t)MAX_PLY);
    x.scores = malloc(sizeof(V) * ACTIONS * (size_t)MAX_PLY);
    x.keys = malloc(sizeof(int64_t) * ACTIONS * (size_t)MAX_PLY);
    x.terminal = malloc(ACTIONS * (size_t)MAX_PLY);
    x.children = calloc(MAX_PLY, sizeof(V *));
    x.table = x.use_table ? table_alloc((size_t)x.buckets * 2 * sizeof(Entry)) : NULL;
    x.pv_capacity = 1024;
    x.pv = calloc((size_t)x.pv_capacity, sizeof(PvSlot));
    int failed = 1;
    /* The table's hash and keys rely on the declared domains, which every state the rules make
       keeps: a root outside them is the Python tier's. */
    if (!in_domains(root)) gdl_err = 1;
    if (!gdl_err && x.states && x.actions && x.order && x.scores && x.keys && x.terminal
        && x.children && (x.table || !x.use_table) && x.pv && x.rank_of) {
        failed = 0;
        int search_depth = depth < 0 ? FULL_DEPTH : depth;
        memcpy(x.states, root, sizeof(V) * CELLS);
        int mover = game_current(root);
        int m = mover ? -1 : 1;
        int *actions = x.actions;
        int n = 0;
        V best = (switches & SWITCH_OPTIMAL_SET)
            ? ab_root_set(&x, root, search_depth, m, actions, best_flags, &n)
            : ab_root_value(&x, root, search_depth, m, actions, best_flags, &n);
        failed = gdl_err != 0;
        if (!failed) {
            *value0 = m > 0 ? best : -best;
            *legal_count = n;
            /* pv_from: the first optimal action in declaration order, then the recorded exact
               best actions, else the table's exact entries, until the end or a repetition. */
            int first = NO_ACTION;
            for (int i = 0; i < n && first == NO_ACTION; i++) if (best_flags[i]) first = actions[i];
            V *line = x.states;             /* reuse: line[j] is the j-th state of the line */
            int length = 0;
            pv[length++] = first;
            game_apply(line, first, line + CELLS);
            int at = 1;
            while (!gdl_err && at < MAX_PLY - 1 && game_current(line + (size_t)at * CELLS) >= 0) {
                V *s = line + (size_t)at * CELLS;
                int repeated = 0;
                for (int j = 0; j < at && !repeated; j++)
                    repeated = memcmp(line + (size_t)j * CELLS, s, sizeof(V) * CELLS) == 0;
                if (repeated) break;
                int a = pv_get(&x, s);
                if (a == NO_ACTION && x.use_table) {
                    Entry *e = tt_find(&x, s, py_tuple_hash(s), tt_tag(s));
                    if (e && ENTRY_BOUND(e) == BOUND_EXACT) a = ENTRY_BEST(e);
                }
                if (a == NO_ACTION) break;
                pv[length++] = a;
                game_apply(s, a, s + CELLS);
                at++;
            }
            *pv_len = length;
            failed = gdl_err != 0;
        }
    }
    stats[0] = x.nodes; stats[1] = x.leaves; stats[2] = x.cutoffs; stats[3] = x.probes;
    stats[4] = x.hits; stats[5] = x.researches; stats[6] = x.max_ply; stats[7] = x.used;
    stats[8] = x.replaced; stats[9] = x.inexact == 0;
    if (x.children) for (int i = 0; i < MAX_PLY; i++) states_free(x.children[i]);
    free(x.children); states_free(x.states); free(x.actions); free(x.order); free(x.scores); free(x.keys);
    free(x.terminal);
    free(x.rank_of);
    if (x.table) munmap(x.table, (size_t)x.buckets * 2 * sizeof(Entry));
    free(x.pv);
    return failed;
}

/* ---- max^n (gdl.solvers.maxn) without chance: any number of players, integer vectors ----
   A decision keeps the first child best for its mover; with shallow pruning (Korf: a constant
   sum S, utilities within declared non-negative bounds, checked at every leaf as the Python
   frontier does) a child told (parent, S - b) stops once its mover can get that much (more than
   that at the root, where ties must be searched). Node, leaf and cut-off counts as in Python. */
typedef struct {
    V *states;                 /* one state per ply */
    int *actions;              /* ACTIONS per ply */
    V *vectors;                /* PLAYERS per ply: the vector of the child being searched */
    int *pv, *pv_len;
    long long nodes, leaves, evaluations, cutoffs;
    V *root_values;            /* PLAYERS per root action */
    int pruning;
    V total, low, high;
} MX;

static void mx_node(MX *x, int ply, int depth_left, int has_cap, int cap_player, V cap_limit,
                    int cap_strict, V *out) {
    const V *s = x->states + (size_t)ply * CELLS;
    x->nodes++;
    POLL_STOP(x->nodes);
    x->pv_len[ply] = 0;
    int player = game_current(s);
    if (gdl_err) return;
    if (player == TERMINAL_PLAYER || depth_left == 0) {
        x->leaves++;
        if (player == TERMINAL_PLAYER) rule_returns(s, out);
        else { x->evaluations++; rule_evaluate(s, out); }
        if (x->pruning) {
            V sum = 0;
            for (int p = 0; p < PLAYERS; p++) {
                sum = gdl_add(sum, out[p]);
                if (out[p] < x->low || out[p] > x->high) gdl_err = 1;
            }
            if (sum != x->total) gdl_err = 1;
        }
        return;
    }
    if (ply + 1 >= MAX_PLY) { gdl_err = 1; return; }
    int *actions = x->actions + (size_t)ply * ACTIONS;
    int n = game_legal(s, actions);
    if (gdl_err) return;
    V *child = x->states + (size_t)(ply + 1) * CELLS;
    V *values = x->vectors + (size_t)(ply + 1) * PLAYERS;
    int have = 0;
    for (int i = 0; i < n; i++) {
        game_apply(s, actions[i], child);
        if (gdl_err) return;
        int child_cap = x->pruning && have;
        V limit = child_cap ? gdl_sub(x->total, out[player]) : 0;
        mx_node(x, ply + 1, depth_left > 0 ? depth_left - 1 : -1, child_cap, player, limit,
                ply == 0, values);
        if (gdl_err) return;
        if (ply == 0) memcpy(x->root_values + (size_t)i * PLAYERS, values, sizeof(V) * PLAYERS);
        if (!have || values[player] > out[player]) {
            memcpy(out, values, sizeof(V) * PLAYERS);
            have = 1;
            int *row = x->pv + (size_t)ply * MAX_PLY, *below = x->pv + (size_t)(ply + 1) * MAX_PLY;
            row[0] = actions[i];
            memcpy(row + 1, below, sizeof(int) * x->pv_len[ply + 1]);
            x->pv_len[ply] = x->pv_len[ply + 1] + 1;
        }
        if (has_cap && cap_player != player
                && (cap_strict ? out[player] > cap_limit : out[player] >= cap_limit)) {
            x->cutoffs++;
            break;
        }
    }
}

/* As gdl_minimax, with vectors: value (PLAYERS), root_values (PLAYERS per root action), stats:
   nodes, leaves, evaluations, cut-offs. pruning: shallow pruning with the constant sum `total`
   and utilities within [low, high]. Returns 1 when it stopped. */
int gdl_maxn(const V *root, int depth, int pruning, V total, V low, V high, V *value,
             int *root_actions, V *root_values, int *root_count, int *pv, int *pv_len,
             long long *stats) {
    gdl_err = 0;
    MX x;
    memset(&x, 0, sizeof x);
    x.pruning = pruning; x.total = total; x.low = low; x.high = high;
    x.states = states_alloc(MAX_PLY);
    x.actions = malloc(sizeof(int) * ACTIONS * (size_t)MAX_PLY);
    x.vectors = malloc(sizeof(V) * PLAYERS * (size_t)(MAX_PLY + 1));
    x.pv = malloc(sizeof(int) * (size_t)MAX_PLY * MAX_PLY);
    x.pv_len = malloc(sizeof(int) * (size_t)MAX_PLY);
    x.root_values = root_values;
    int failed = 1;
    if (x.states && x.actions && x.vectors && x.pv && x.pv_len) {
        memcpy(x.states, root, sizeof(V) * CELLS);
        mx_node(&x, 0, depth, 0, 0, 0, 0, value);
        failed = gdl_err != 0;
        if (!failed) {
            int player = game_current(root);
            *root_count = player == TERMINAL_PLAYER || depth == 0 ? 0 : rule_legal(root, root_actions);
            *pv_len = x.pv_len[0];
            memcpy(pv, x.pv, sizeof(int) * x.pv_len[0]);
        }
    }
    stats[0] = x.nodes; stats[1] = x.leaves; stats[2] = x.evaluations; stats[3] = x.cutoffs;
    states_free(x.states); free(x.actions); free(x.vectors); free(x.pv); free(x.pv_len);
    return failed;
}

#if HAS_CHANCE
/* ---- expectiminimax (gdl.solvers.expectiminimax, no table): two players, constant sum, exact.
   A node is a state plus, while chance is pending, the action being resolved and the outcomes
   chosen so far (the interpreter's state + (action,) + outcomes): a child of a chance node
   replays that action's effect from the state before it with one outcome more. Every node is
   counted, chance nodes included; depth counts decisions only; a node with no depth left is
   evaluated, chance or not; values are exact rationals (chance.h) for player 0, and a decision
   keeps its first best child in declaration order. The distribution of a chance node is the one
   its parent's effect handed back when it stopped at the `random` (a replay would find the same).
   `frac` marks a value that came through a chance node: a Fraction in Python, else an int. */
#define CHANCE_PLAYER (-1)
#define MAX_OUTS 64            /* outcomes pending in one effect; more stop with an error */

typedef struct { Q v; int frac; } EV;

typedef struct {
    V *states;                 /* per ply: the cells (before the pending action, at chance) */
    int *pending;              /* per ply: the action waiting for chance, or -1 */
    int *nouts;                /* per ply: the outcomes chosen so far */
    V *outs;                   /* per ply: MAX_OUTS outcomes */
    Dist *dists;               /* per ply: a chance node's distribution */
    int *actions;              /* ACTIONS per ply */
    int *pv, *pv_len;          /* triangular, as minimax */
    long long nodes, leaves, evaluations;
    V *root_values;            /* two per root action: numerator, denominator */
    int *root_fracs;
} EX;

/* The child at ply + 1 of the state at ply: `action` run with `nout` outcomes `outs` (those of
   ply + 1, already in place). Either the effect finishes (a decision or terminal state, the
   turn passed as in game_apply) or it waits for another outcome (a chance node). */
static void ex_child(EX *x, int ply, int action, int nout) {
    const V *base = x->states + (size_t)ply * CELLS;
    V *child = x->states + (size_t)(ply + 1) * CELLS;
    memcpy(child, base, sizeof(V) * CELLS);
    V turn = -1;
    if (rule_effect_chance(child, action, &turn, x->outs + (size_t)(ply + 1) * MAX_OUTS, nout,
                           x->dists + ply + 1)) {
        memcpy(child, base, sizeof(V) * CELLS);        /* a chance node keeps the state before */
        x->pending[ply + 1] = action;
        x->nouts[ply + 1] = nout;
        return;
    }
    x->pending[ply + 1] = -1;
    V following = turn == -1 ? (base[0] + 1) % PLAYERS : turn;
    if (following < 0 || following >= PLAYERS) { gdl_err = 1; following = 0; }
    child[0] = following;
    game_settle(child);
}

static EV ex_node(EX *x, int ply, int depth_left) {
    EV result = {{0, 1}, 0};
    const V *s = x->states + (size_t)ply * CELLS;
    x->nodes++;
    POLL_STOP(x->nodes);
    x->pv_len[ply] = 0;
    int pending = x->pending[ply];
    int player = pending >= 0 ? CHANCE_PLAYER : game_current(s);
    if (gdl_err) return result;
    if (player == TERMINAL_PLAYER || depth_left == 0) {
        x->leaves++;
        if (player != TERMINAL_PLAYER) x->evaluations++;
        result.v.n = leaf_value(s, player == TERMINAL_PLAYER);
        return result;
    }
    if (ply + 1 >= MAX_PLY) { gdl_err = 1; return result; }
    if (player == CHANCE_PLAYER) {
        /* The expectation: the sum of probability x value, exact. */
        const Dist *dist = x->dists + ply;
        int nout = x->nouts[ply];
        if (nout + 1 > MAX_OUTS) { gdl_err = 1; return result; }
        V *outs = x->outs + (size_t)(ply + 1) * MAX_OUTS;
        memcpy(outs, x->outs + (size_t)ply * MAX_OUTS, sizeof(V) * (size_t)nout);
        /* As the Python solver: the values of consecutive outcomes with the same probability
           are added first, p·a + p·b = p·(a + b), so a fair die costs one product, not six. */
        Q sum = q_of(0), subtotal = q_of(0);
        for (int i = 0; i < dist->n; i++) {
            outs[nout] = dist->value[i];
            ex_child(x, ply, pending, nout + 1);
            if (gdl_err) return result;
            EV v = ex_node(x, ply + 1, depth_left);
            if (gdl_err) return result;
            if (i > 0 && (dist->p[i].n != dist->p[i - 1].n || dist->p[i].d != dist->p[i - 1].d)) {
                sum = q_add(sum, q_mul(dist->p[i - 1], subtotal));
                subtotal = v.v;
            } else subtotal = q_add(subtotal, v.v);
        }
        if (dist->n > 0) sum = q_add(sum, q_mul(dist->p[dist->n - 1], subtotal));
        result.v = sum;
        result.frac = 1;
        return result;
    }
    int *actions = x->actions + (size_t)ply * ACTIONS;
    int n = game_legal(s, actions);
    if (gdl_err) return result;
    int have = 0;
    for (int i = 0; i < n; i++) {
        ex_child(x, ply, actions[i], 0);
        if (gdl_err) return result;
        EV v = ex_node(x, ply + 1, depth_left > 0 ? depth_left - 1 : -1);
        if (gdl_err) return result;
        if (ply == 0) {
            x->root_values[2 * i] = v.v.n; x->root_values[2 * i + 1] = v.v.d;
            x->root_fracs[i] = v.frac;
        }
        int order = have ? q_cmp(v.v, result.v) : 0;
        if (!have || (player == 0 ? order > 0 : order < 0)) {
            result = v;
            have = 1;
            int *row = x->pv + (size_t)ply * MAX_PLY, *below = x->pv + (size_t)(ply + 1) * MAX_PLY;
            row[0] = actions[i];
            memcpy(row + 1, below, sizeof(int) * x->pv_len[ply + 1]);
            x->pv_len[ply] = x->pv_len[ply + 1] + 1;
        }
    }
    return result;
}

/* As gdl_minimax, from a decision or terminal root, values as fractions (value: numerator,
   denominator, frac; root_values: the same per root action). Returns 1 when it stopped. */
int gdl_expectiminimax(const V *root, int depth, V *value, int *root_actions, V *root_values,
                       int *root_fracs, int *root_count, int *pv, int *pv_len, long long *stats) {
    gdl_err = 0;
    EX x;
    memset(&x, 0, sizeof x);
    x.states = states_alloc(MAX_PLY);
    x.pending = malloc(sizeof(int) * (size_t)MAX_PLY);
    x.nouts = malloc(sizeof(int) * (size_t)MAX_PLY);
    x.outs = malloc(sizeof(V) * MAX_OUTS * (size_t)MAX_PLY);
    x.dists = malloc(sizeof(Dist) * (size_t)MAX_PLY);
    x.actions = malloc(sizeof(int) * ACTIONS * (size_t)MAX_PLY);
    x.pv = malloc(sizeof(int) * (size_t)MAX_PLY * MAX_PLY);
    x.pv_len = malloc(sizeof(int) * (size_t)MAX_PLY);
    x.root_values = root_values;
    x.root_fracs = root_fracs;
    int failed = 1;
    if (x.states && x.pending && x.nouts && x.outs && x.dists && x.actions && x.pv && x.pv_len) {
        memcpy(x.states, root, sizeof(V) * CELLS);
        x.pending[0] = -1;
        x.nouts[0] = 0;
        EV v = ex_node(&x, 0, depth);
        failed = gdl_err != 0;
        if (!failed) {
            value[0] = v.v.n; value[1] = v.v.d; value[2] = v.frac;
            int player = game_current(root);
            *root_count = player == TERMINAL_PLAYER || depth == 0 ? 0 : rule_legal(root, root_actions);
            *pv_len = x.pv_len[0];
            memcpy(pv, x.pv, sizeof(int) * x.pv_len[0]);
        }
    }
    stats[0] = x.nodes; stats[1] = x.leaves; stats[2] = x.evaluations;
    states_free(x.states); free(x.pending); free(x.nouts); free(x.outs); free(x.dists); free(x.actions);
    free(x.pv); free(x.pv_len);
    return failed;
}

/* ---- Star1 and Star2 (gdl.solvers.star), step for step: the same windows, the same order,
   the same cut-offs, so the same nodes, leaves and cut-offs as the Python tier. Nodes are those
   of expectiminimax above (a chance node is the state before the pending action). Values are
   exact rationals for player 0 (EV); a node's value for player p is S - v for p = 1.
   A window end is a number plus a multiple of an infinitesimal ε (gdl.solvers.window.Bound).
   Only the sign of that multiple is kept: the searches compare window ends with numbers (where
   only the sign decides a tie of the numbers), and the one comparison of two ends, at the root,
   compares ends whose multiples are both -1. Dividing by a positive probability, adding numbers
   and negating keep or flip the sign, so the order is the Python tier's, exactly. */
typedef struct { Q r; int e; } WB;     /* r + e·ε, e in {-1, 0, 1} */

typedef struct {
    EX x;                      /* the nodes, as expectiminimax's */
    V total;                   /* S: player 1's value is S - player 0's */
    Q low, high;               /* L and U: every value of either player lies in [L, U] */
    V lo, hi;                  /* the declared utility bounds, checked at every leaf */
    int probing;               /* Star2 */
    Q *floors;                 /* DIST_MAX per ply: a successor's lower bound from its probe */
    EV *probed;                /* DIST_MAX per ply: the probe's result for the first child */
    long long cutoffs;
} ST;

static inline WB wb(Q r, int e) { WB b = {r, e}; return b; }
static inline int wb_cmp(WB a, WB b) {
    int c = q_cmp(a.r, b.r);
    return c ? c : (a.e > b.e) - (a.e < b.e);
}
/* A value against a window end: v + 0·ε against r + e·ε. */
static inline int v_cmp(Q v, WB b) {
    int c = q_cmp(v, b.r);
    return c ? c : (b.e < 0) - (b.e > 0);
}
static inline WB wb_max(WB a, WB b) { return wb_cmp(b, a) > 0 ? b : a; }
static inline WB wb_min(WB a, WB b) { return wb_cmp(b, a) < 0 ? b : a; }
static inline WB wb_sub(WB a, Q q) { return wb(q_sub(a.r, q), a.e); }
static inline WB wb_div(WB a, Q p) { return wb(q_div(a.r, p), a.e); }     /* p > 0 */
static inline WB wb_from(Q q, WB a) {                                     /* q - a */
    return wb(q.d == 1 ? q_int_sub(q.n, a.r) : q_sub(q, a.r), -a.e);
}

/* Player p's value from player 0's (the same map turns it back). */
static inline Q st_own(const ST *t, Q v, int p) { return p == 0 ? v : q_int_sub(t->total, v); }

static EV st_result(const ST *t, Q own, int frame) {
    EV r = {st_own(t, own, frame), 1};       /* through a chance node: a Fraction in Python */
    return r;
}

/* A leaf as gdl.solvers.common.Frontier checks it: the declared sum and the declared bounds. */
static V st_leaf(const ST *t, const V *s, int terminal) {
    V v = leaf_value(s, terminal);
    V other = gdl_sub(t->total, v);
    if (v < t->lo || v > t->hi || other < t->lo || other > t->hi) gdl_err = 1;
    return v;
}

static EV st_search(ST *t, int ply, int frame, WB alpha, WB beta, int depth_left);

/* `first`: the first child's result from a Star2 probe (no PV: the parent is a chance node). */
static EV st_decision(ST *t, int ply, int player, int frame, WB alpha, WB beta, int depth_left,
                      const EV *first) {
    EX *x = &t->x;
    EV best = {{0, 1}, 0};
    const V *s = x->states + (size_t)ply * CELLS;
    if (player != frame) {      /* the same window, seen from the mover's side */
        WB a = wb_from(q_of(t->total), beta), b = wb_from(q_of(t->total), alpha);
        alpha = a; beta = b;
    }
    int at_root = ply == 0 && first == NULL;
    int *actions = x->actions + (size_t)ply * ACTIONS;
    int n = game_legal(s, actions);
    if (gdl_err) return best;
    int have = 0;
    Q best_own = q_of(0);
    for (int i = 0; i < n; i++) {
        EV v;
        if (i == 0 && first != NULL) {
            v = *first;
            x->pv_len[ply + 1] = 0;
        } else {
            WB floor = alpha;
            if (have) {     /* at the root a tie must still be recognised: just below the best */
                WB mark = wb(best_own, at_root ? -1 : 0);
                if (wb_cmp(mark, alpha) > 0) floor = mark;
            }
            ex_child(x, ply, actions[i], 0);
            if (gdl_err) return best;
            v = st_search(t, ply + 1, player, floor, beta, depth_left > 0 ? depth_left - 1 : -1);
        }
        if (gdl_err) return best;
        if (at_root) {
            x->root_values[2 * i] = v.v.n; x->root_values[2 * i + 1] = v.v.d;
            x->root_fracs[i] = v.frac;
        }
        Q own = st_own(t, v.v, player);
        if (gdl_err) return best;
        if (!have || q_cmp(own, best_own) > 0) {       /* strict: the first best wins ties */
            best = v; best_own = own; have = 1;
            int *row = x->pv + (size_t)ply * MAX_PLY, *below = x->pv + (size_t)(ply + 1) * MAX_PLY;
            row[0] = actions[i];
            memcpy(row + 1, below, sizeof(int) * x->pv_len[ply + 1]);
            x->pv_len[ply] = x->pv_len[ply + 1] + 1;
        }
        if (!at_root && (v_cmp(best_own, beta) >= 0 || q_cmp(best_own, t->high) >= 0)) {
            t->cutoffs++;
            break;
        }
    }
    return best;
}

/* The player q if every successor of the chance node at ply is a decision node of q, else -1. */
static int st_probe_player(ST *t, int ply) {
    EX *x = &t->x;
    const Dist *dist = x->dists + ply;
    int nout = x->nouts[ply], mover = -1;
    V *outs = x->outs + (size_t)(ply + 1) * MAX_OUTS;
    for (int i = 0; i < dist->n; i++) {
        outs[nout] = dist->value[i];
        ex_child(x, ply, x->pending[ply], nout + 1);
        if (gdl_err) return -1;
        int kind = x->pending[ply + 1] >= 0 ? CHANCE_PLAYER
                   : game_current(x->states + (size_t)(ply + 1) * CELLS);
        if (kind < 0 || (i > 0 && kind != mover)) return -1;
        mover = kind;
    }
    return mover;
}

/* Star2's probe phase in the frame of the successors' mover: fills the floors and the probes;
   returns 1 and *proved (a lower bound >= beta) when the probes prove a fail-high. */
static int st_probe(ST *t, int ply, int frame, WB alpha, WB beta, int depth_left, Q *proved) {
    EX *x = &t->x;
    const Dist *dist = x->dists + ply;
    int nout = x->nouts[ply];
    Q *floors = t->floors + (size_t)ply * DIST_MAX;
    EV *probed = t->probed + (size_t)ply * DIST_MAX;
    V *outs = x->outs + (size_t)(ply + 1) * MAX_OUTS;
    Q known = q_of(0), rest = q_of(1);
    for (int i = 0; i < dist->n && !gdl_err; i++) {
        Q p = dist->p[i];
        rest = q_sub(rest, p);
        /* The successor is visited here (and only here) to find its first child; expanded, not
           evaluated: the chance node itself was expanded, so depth is left. */
        x->nodes++;
        POLL_STOP(x->nodes);
        outs[nout] = dist->value[i];
        ex_child(x, ply, x->pending[ply], nout + 1);
        if (gdl_err) return 0;
        int *actions = x->actions + (size_t)(ply + 1) * ACTIONS;
        game_legal(x->states + (size_t)(ply + 1) * CELLS, actions);
        if (gdl_err) return 0;
        if (ply + 2 >= MAX_PLY) { gdl_err = 1; return 0; }
        WB fail_high_at = wb_div(wb_sub(wb_sub(beta, known), q_mul(rest, t->low)), p);
        WB low_end = wb_max(wb(t->low, 0), wb_from(t->high, wb_div(wb_from(t->high, alpha), p)));
        ex_child(x, ply + 1, actions[0], 0);
        if (gdl_err) return 0;
        EV v = st_search(t, ply + 2, frame, low_end, wb_min(fail_high_at, wb(t->high, 0)),
                         depth_left > 0 ? depth_left - 1 : -1);
        if (gdl_err) return 0;
        Q own = st_own(t, v.v, frame);
        if (v_cmp(own, fail_high_at) >= 0) {
            t->cutoffs++;
            *proved = q_add(q_add(known, q_mul(p, own)), q_mul(rest, t->low));
            return 1;
        }
        floors[i] = v_cmp(own, low_end) > 0 ? own : t->low;
        known = q_add(known, q_mul(p, floors[i]));
        probed[i] = v;
    }
    return 0;
}

static EV st_chance(ST *t, int ply, int frame, WB alpha, WB beta, int depth_left) {
    EX *x = &t->x;
    EV none = {{0, 1}, 0};
    const Dist *dist = x->dists + ply;
    int nout = x->nouts[ply];
    if (nout + 1 > MAX_OUTS) { gdl_err = 1; return none; }
    V *outs = x->outs + (size_t)(ply + 1) * MAX_OUTS;
    memcpy(outs, x->outs + (size_t)ply * MAX_OUTS, sizeof(V) * (size_t)nout);
    Q *floors = t->floors + (size_t)ply * DIST_MAX;
    EV *probed = t->probed + (size_t)ply * DIST_MAX;
    int prober = t->probing ? st_probe_player(t, ply) : -1;
    if (gdl_err) return none;
    if (prober >= 0) {
        if (prober != frame) {
            WB a = wb_from(q_of(t->total), beta), b = wb_from(q_of(t->total), alpha);
            alpha = a; beta = b;
            frame = prober;
        }
        for (int i = 0; i < dist->n; i++) floors[i] = t->low;
        Q proved;
        if (st_probe(t, ply, frame, alpha, beta, depth_left, &proved)) return st_result(t, proved, frame);
        if (gdl_err) return none;
    }
    /* rest_floor: the floors of the successors not searched yet, weighted; without probes
       every floor is L, and it is rest·L (the same number, in one product instead of two). */
    Q known = q_of(0), rest = q_of(1), rest_floor = q_of(0);
    if (prober >= 0)
        for (int i = 0; i < dist->n; i++) rest_floor = q_add(rest_floor, q_mul(dist->p[i], floors[i]));
    for (int i = 0; i < dist->n && !gdl_err; i++) {
        Q p = dist->p[i];
        rest = q_sub(rest, p);
        rest_floor = prober >= 0 ? q_sub(rest_floor, q_mul(p, floors[i])) : q_mul(rest, t->low);
        WB fail_low_at = wb_div(wb_sub(wb_sub(alpha, known), q_mul(rest, t->high)), p);
        WB fail_high_at = wb_div(wb_sub(wb_sub(beta, known), rest_floor), p);
        WB low_end = wb_max(fail_low_at, wb(t->low, 0));
        WB high_end = wb_min(fail_high_at, wb(t->high, 0));
        outs[nout] = dist->value[i];
        ex_child(x, ply, x->pending[ply], nout + 1);
        if (gdl_err) return none;
        EV v;
        if (prober >= 0)        /* counted as visited by its probe: resume it */
            v = st_decision(t, ply + 1, prober, frame, low_end, high_end, depth_left, probed + i);
        else
            v = st_search(t, ply + 1, frame, low_end, high_end, depth_left);
        if (gdl_err) return none;
        Q own = st_own(t, v.v, frame);
        known = q_add(known, q_mul(p, own));
        if (v_cmp(own, fail_low_at) <= 0) {
            t->cutoffs++;
            return st_result(t, q_add(known, q_mul(rest, t->high)), frame);
        }
        if (v_cmp(own, fail_high_at) >= 0) {
            t->cutoffs++;
            return st_result(t, q_add(known, rest_floor), frame);
        }
    }
    x->pv_len[ply] = 0;
    return st_result(t, known, frame);
}

/* Fail-soft: a result <= alpha is an upper bound on player frame's value, >= beta a lower bound,
   anything between exact. The value returned is player 0's. */
static EV st_search(ST *t, int ply, int frame, WB alpha, WB beta, int depth_left) {
    EX *x = &t->x;
    EV result = {{0, 1}, 0};
    const V *s = x->states + (size_t)ply * CELLS;
    x->nodes++;
    POLL_STOP(x->nodes);
    x->pv_len[ply] = 0;
    int pending = x->pending[ply];
    int player = pending >= 0 ? CHANCE_PLAYER : game_current(s);
    if (gdl_err) return result;
    if (player == TERMINAL_PLAYER || depth_left == 0) {
        x->leaves++;
        if (player != TERMINAL_PLAYER) x->evaluations++;
        result.v.n = st_leaf(t, s, player == TERMINAL_PLAYER);
        return result;
    }
    if (ply + 1 >= MAX_PLY) { gdl_err = 1; return result; }
    if (player == CHANCE_PLAYER) {
        result = st_chance(t, ply, frame, alpha, beta, depth_left);
        x->pv_len[ply] = 0;     /* the principal variation stops at the first chance node */
        return result;
    }
    return st_decision(t, ply, player, frame, alpha, beta, depth_left, NULL);
}

/* As gdl_expectiminimax (the same outputs) for Star1 (probing 0) or Star2 (probing 1) with the
   constant sum `total`, player values within [low, high] (L and U, low < high) and the declared
   utility bounds [lo, hi] checked at every leaf; stats: nodes, leaves, evaluations, cut-offs. */
int gdl_star(const V *root, int depth, int probing, V total, V low, V high, V lo, V hi,
             V *value, int *root_actions, V *root_values, int *root_fracs, int *root_count,
             int *pv, int *pv_len, long long *stats) {
    gdl_err = 0;
    ST t;
    memset(&t, 0, sizeof t);
    EX *x = &t.x;
    t.total = total; t.low = q_of(low); t.high = q_of(high); t.lo = lo; t.hi = hi;
    t.probing = probing;
    x->states = states_alloc(MAX_PLY);
    x->pending = malloc(sizeof(int) * (size_t)MAX_PLY);
    x->nouts = malloc(sizeof(int) * (size_t)MAX_PLY);
    x->outs = malloc(sizeof(V) * MAX_OUTS * (size_t)MAX_PLY);
    x->dists = malloc(sizeof(Dist) * (size_t)MAX_PLY);
    x->actions = malloc(sizeof(int) * ACTIONS * (size_t)MAX_PLY);
    x->pv = malloc(sizeof(int) * (size_t)MAX_PLY * MAX_PLY);
    x->pv_len = malloc(sizeof(int) * (size_t)MAX_PLY);
    t.floors = malloc(sizeof(Q) * DIST_MAX * (size_t)MAX_PLY);
    t.probed = malloc(sizeof(EV) * DIST_MAX * (size_t)MAX_PLY);
    x->root_values = root_values;
    x->root_fracs = root_fracs;
    int failed = 1;
    if (x->states && x->pending && x->nouts && x->outs && x->dists && x->actions && x->pv
        && x->pv_len && t.floors && t.probed) {
        memcpy(x->states, root, sizeof(V) * CELLS);
        x->pending[0] = -1;
        x->nouts[0] = 0;
        EV v = st_search(&t, 0, 0, wb(t.low, -1), wb(t.high, 1), depth);
        failed = gdl_err != 0;
        if (!failed) {
            value[0] = v.v.n; value[1] = v.v.d; value[2] = v.frac;
            int player = game_current(root);
            *root_count = player == TERMINAL_PLAYER || depth == 0 ? 0 : rule_legal(root, root_actions);
            *pv_len = x->pv_len[0];
            memcpy(pv, x->pv, sizeof(int) * x->pv_len[0]);
        }
    }
    stats[0] = x->nodes; stats[1] = x->leaves; stats[2] = x->evaluations; stats[3] = t.cutoffs;
    states_free(x->states); free(x->pending); free(x->nouts); free(x->outs); free(x->dists);
    free(x->actions); free(x->pv); free(x->pv_len); free(t.floors); free(t.probed);
    return failed;
}
#endif

/* ---- a cycle, if any (gdl.tools.count.find_cycle, step for step) ----
   A depth-first walk from root in declaration order. Every state met is kept once, in order of
   meeting, with a mark: > 0 on the current path at index mark - 1, < 0 finished. It stops at the
   first child already on the path (found: path holds the actions from the root to that child,
   *start where the cycle begins), or when more than `limit` states were met (nobody knows,
   cheaply: found 0). `gdl solve` runs it on games that declare max-length, whose searches keep
   no repetition check; games with chance stay in Python. The memory it touches is what the walk
   needs (states packed in order, a table of 32-bit indices): in a small game page faults, not
   rules, are most of the time. */
typedef struct {
    V *states;                 /* every state met, CELLS apiece, in order of meeting */
    long long *mark;           /* per state met: path index + 1, or -1 once finished */
    int *table;                /* open addressing: state index + 1, 0 empty */
    long long mask, count, room;
    int *pending;              /* the actions of every ply on the path, one after another */
    long long pending_used, pending_room;
} Walk;

/* Room for `need` items of `item` bytes in *block (doubling); 0 without memory. */
static int walk_grow(void **block, long long *room, long long need, size_t item) {
    if (need <= *room) return 1;
    long long bigger = *room * 2 > need ? *room * 2 : need;
    void *grown = realloc(*block, item * (size_t)bigger);
    if (!grown) return 0;
    *block = grown;
    *room = bigger;
    return 1;
}

/* The table slot of s: where it is, or the empty slot where it goes. */
static long long walk_slot(const Walk *w, const V *s) {
    long long i = (long long)(mix(py_tuple_hash(s)) & (uint64_t)w->mask);
    while (w->table[i] != 0
           && memcmp(w->states + (long long)(w->table[i] - 1) * CELLS, s, sizeof(V) * CELLS) != 0)
        i = (i + 1) & w->mask;
    return i;
}

/* Keep s (not met before) at table slot `slot`; its index, or -1 without memory. */
static long long walk_add(Walk *w, long long slot, const V *s, long long mark) {
    if (w->count == w->room) {
        long long room = w->room, mark_room = w->room;
        void *states = w->states, *marks = w->mark;
        int ok = walk_grow(&states, &room, w->count + 1, sizeof(V) * CELLS);
        w->states = states;
        ok = ok && walk_grow(&marks, &mark_room, w->count + 1, sizeof(long long));
        w->mark = marks;
        if (!ok) return -1;
        w->room = room;
    }
    memcpy(w->states + w->count * CELLS, s, sizeof(V) * CELLS);
    w->mark[w->count] = mark;
    w->table[slot] = (int)(w->count + 1);
    return w->count++;
}

int gdl_find_cycle(const V *root, long long limit, int *path, long long *length,
                   long long *start, int *found) {
    gdl_err = 0;
    *found = 0; *length = 0; *start = 0;
    if (limit < 0) limit = 0;
    if (limit > (1LL << 30)) limit = 1LL << 30;           /* indices are 32-bit */
    long long capacity = 16;
    while (capacity < 2 * (limit + 2)) capacity <<= 1;     /* at most half full: short probes */
    Walk w;
    memset(&w, 0, sizeof w);
    w.mask = capacity - 1;
    w.table = calloc((size_t)capacity, sizeof(int));
    long long *on_path = malloc(sizeof(long long) * (size_t)(limit + 2));  /* state index a ply */
    long long *base = malloc(sizeof(long long) * (size_t)(limit + 2));     /* its actions, */
    int *left = malloc(sizeof(int) * (size_t)(limit + 2));                 /* how many to try */
    int *next = malloc(sizeof(int) * (size_t)(limit + 2));                 /* and the next one */
    V *child = states_alloc(1);
    long long depth = 0, nodes = 0;
    if (!w.table || !on_path || !base || !left || !next || !child) { gdl_err = 1; goto done; }
    on_path[0] = walk_add(&w, walk_slot(&w, root), root, 1);
    if (on_path[0] < 0) { gdl_err = 1; goto done; }
    base[0] = 0; left[0] = -1; next[0] = 0;
    while (depth >= 0) {
        const V *s = w.states + on_path[depth] * CELLS;
        if (left[depth] < 0) {          /* first visit: its actions go on the pending stack */
            void *pending = w.pending;
            int ok = walk_grow(&pending, &w.pending_room, base[depth] + ACTIONS, sizeof(int));
            w.pending = pending;
            if (!ok) { gdl_err = 1; goto done; }
            left[depth] = game_current(s) == TERMINAL_PLAYER ? 0 : game_legal(s, w.pending + base[depth]);
            POLL_STOP(++nodes);
            if (gdl_err) goto done;
        }
        int advanced = 0;
        while (next[depth] < left[depth]) {
            int action = w.pending[base[depth] + next[depth]++];
            game_apply(s, action, child);
            if (gdl_err) goto done;
            long long slot = walk_slot(&w, child);
            long long met = w.table[slot] - 1;
            if (met >= 0 && w.mark[met] > 0) {    /* back on the path: a cycle */
                path[depth] = action;
                *length = depth + 1;
                *start = w.mark[met] - 1;
                *found = 1;
                goto done;
            }
            if (met >= 0) continue;               /* finished before: no cycle through it */
            if (w.count > limit) goto done;       /* too many to know cheaply */
            long long index = walk_add(&w, slot, child, depth + 2);
            if (index < 0) { gdl_err = 1; goto done; }
            path[depth] = action;
            depth++;
            on_path[depth] = index;
            base[depth] = base[depth - 1] + left[depth - 1];
            left[depth] = -1;
            next[depth] = 0;
            advanced = 1;
            break;
        }
        if (!advanced) { w.mark[on_path[depth]] = -1; depth--; }
    }
done:
    free(w.states); free(w.mark); free(w.table); free(w.pending);
    free(on_path); free(base); free(left); free(next); states_free(child);
    return gdl_err != 0;
}
