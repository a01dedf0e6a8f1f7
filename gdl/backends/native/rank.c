/* ---- ranked position tables (gdl/backends/native/rank.c) ----
   Appended after graph.c. A position is a *rank*: its tier, and its index among the states of
   that tier a layout allows (gdl/graph/rank.py derives the layout and builds its tables; this
   file only reads them). The layout splits a state's cells into

   - fixed cells, whose value is the same everywhere in a tier (the mover, when the tier says
     whose turn it is): each tier keeps the values of the first state it met;
   - components, each a few cells with a list of allowed configurations (a column of Connect
     Four: its height and the discs below it), numbered 0.. in a code table;
   - weights: each configuration adds a small vector (discs of each colour, the tier's own
     sum), and a tier holds only states whose components add up to one target vector, again
     the first state's.

   The states of a tier are ranked by the combinatorial number system over those components:
   prefix[c][rem][i] counts the states whose components before c are the given ones and whose
   component c is a configuration before i, with rem the weight left for components c.. .
   A tier of Connect Four 6 x 4 thus has one slot per way to fill columns with as many red
   discs as the tier says, not one per mixed-radix key.

   The passes over a tier: forward (every reached slot expanded, each child ranked and marked
   reached in its tier's bitmap) and backward (every reached slot valued from its children's
   codes, one or two bytes each). A state that does not fit the layout (a fixed cell that
   differs, a configuration not in the list, weights off target) stops the pass with the state
   kept: the layout was guessed from a sample, Python refines it and starts again. */

#include <limits.h>
#include <pthread.h>
#include <time.h>

#define RANK_FAIL_FIXED 1       /* detail: the cell */
#define RANK_FAIL_CONFIG 2      /* detail: the component */
#define RANK_FAIL_WEIGHT 3      /* the weights are off the tier's target */
#define RANK_FAIL_RANGE 4       /* a cell's value is beyond its codec digit: detail the cell */
#define MAX_SCORES 4096         /* distinct terminal values the backward pass encodes */
#define RANK_MAX_THREADS 256    /* threads a pass may run on */

typedef struct {
    long long value, rem0, size;
    V *fixed;                   /* the fixed cells' values in this tier */
    uint64_t *bits;             /* reached slots (NULL when handed to Python's file) */
    void *values;               /* the backward pass's codes, width bytes a slot */
    long long reached, terminal, edges;
    int inside;                 /* a move stays in this tier */
    long long *reaches;         /* later tiers its moves reach */
    int nreaches, capreaches;
} RankTier;

/* One component, its offsets into the tables gathered in one place (the hot loops read them
   together). */
typedef struct {
    int first, cells, nconf, pad;
    long long code_start, conf_start, value_start, pre_start;
} RankComp;

typedef struct {
    /* the layout (arrays owned by the caller, alive as long as the context) */
    int ncomp, nfixed, ndims;
    long long nrem;
    const int *fixed_cells;
    const int *comp_cell_start;         /* ncomp + 1 */
    const int *comp_cells;
    const long long *cell_stride;       /* per component cell: its stride in the code */
    const long long *comp_code_start;   /* per component: offset in idx_table */
    const int *idx_table;               /* code -> configuration, -1 where none */
    const long long *comp_nconf;
    const long long *conf_start;        /* per component: its first configuration (global) */
    const long long *conf_value_start;  /* per component: offset in conf_values */
    const V *conf_values;
    const long long *conf_w;            /* per configuration: ndims weights */
    long long *conf_flat;               /* per configuration: its weights as a flat offset */
    const long long *rem_stride;        /* ndims */
    const long long *pre_start;         /* per component: offset in prefix (nrem x (n + 1)) */
    const long long *next_start;        /* per component: offset in nextrem (nrem x n) */
    const uint32_t *prefix;             /* capped at 2^32 - 1: no tier has that many slots */
    const int *nextrem;
    const long long *tier_size;         /* nrem: the slots of a tier with that target */
    /* the tier function (graph.c's tier_of) */
    const int *tier_cells;
    int nplus, nminus;
    int cell_comp[CELLS];               /* each cell's component, -1 for a fixed cell */
    int act_start[ACTIONS + 1];         /* per action: the components its effect may change */
    int *act_comps;
    uint64_t act_mask[ACTIONS];         /* the same as a bit mask (all ones past 64 components) */
    RankComp *comps;
    long long total;                    /* the constant sum: scores are 2 u0 - total */
    long long slot_limit;               /* the most slots a tier may have */
    long long budget, used;             /* bytes the tables may take, and take */
    RankTier **tiers;                   /* sorted by value */
    int ntiers, captiers;
    /* the last failure */
    int fail_kind;
    long long fail_detail, fail_tier, fail_to_tier;
    int fail_action;
    V fail_state[CELLS];
    /* terminal scores met by the forward pass */
    long long scores[MAX_SCORES];
    int nscores;
    /* the backward pass's encoding: code = 1 + value index * M + remoteness, 0 = unreached */
    int width, M;
    long long ncodes;
    long long *code_score;              /* per code: the centred score, times sign 1 */
    int *code_rem, *code_vi;
    const long long *table;             /* sorted distinct scores */
    int ntable;
    long long *hist;                    /* 3 x ncodes: decision positions of player 0, 1; terminals */
    /* cyclic mode (gdl_rank_cyclic_encoding): a value index is a pair (lo, hi) of indices
       into the extended scores (0: no end can be forced, 1..ntable: table, ntable + 1: none
       either); a remoteness of M - 1 is none (a draw, or not known yet) */
    int cyclic;
    int npairs;
    int *pair_lo, *pair_hi;             /* per pair: extended indices */
    long long *pair_value;              /* per pair: player 0's centred value, where known */
    int *pair_flags;                    /* per pair: 1 known, 2 forced by player 0, 4 by 1 */
    int *pair_of;                       /* (ntable + 2)^2: the pair of (lo, hi), -1 none */
    /* the passes' threads (gdl_rank_threads), and the CPU seconds they spent in the passes */
    int nthreads;
    long long chunk_words;
    double pass_cpu;
} RankCtx;

/* A table of a few megabytes or more (a large tier's bitmap or codes, read at random by its
   parents' passes) in huge pages where the system offers them (search.c's table_alloc): fewer
   page faults and TLB misses. Smaller ones from malloc. Zeroed either way. */
#define RANK_HUGE ((size_t)4 << 20)

static void *rank_alloc(RankCtx *x, size_t bytes) {
    if (x->used + (long long)bytes > x->budget) return NULL;
    void *p = bytes >= RANK_HUGE ? table_alloc(bytes) : calloc(1, bytes ? bytes : 1);
    if (p) x->used += (long long)bytes;
    return p;
}

static void rank_release(RankCtx *x, void *p, size_t bytes) {
    if (!p) return;
    if (bytes >= RANK_HUGE) munmap(p, bytes);
    else free(p);
    x->used -= (long long)bytes;
}

static size_t bits_bytes(long long size) { return (size_t)((size + 63) / 64) * 8; }
static size_t values_bytes(const RankCtx *x, long long size) { return (size_t)size * (size_t)x->width; }

/* The tier with this value, or NULL; x->tiers is sorted. */
static RankTier *rank_find(const RankCtx *x, long long value) {
    int low = 0, high = x->ntiers - 1;
    while (low <= high) {
        int mid = (low + high) / 2;
        long long v = x->tiers[mid]->value;
        if (v == value) return x->tiers[mid];
        if (v < value) low = mid + 1; else high = mid - 1;
    }
    return NULL;
}

/* Each component's configuration index in s, or a failure (kind, detail). */
static inline int rank_config(const RankCtx *x, int c, const V *s, int *kind, long long *detail) {
    const RankComp *cp = &x->comps[c];
    const int *cells = x->comp_cells + cp->first;
    const long long *stride = x->cell_stride + cp->first;
    long long code = 0;
    for (int e = 0; e < cp->cells; e++) {
        int cell = cells[e];
        uint64_t d = (uint64_t)(s[cell] - codec_low[cell]);
        if (d >= codec_size[cell]) { *kind = RANK_FAIL_RANGE; *detail = cell; return -1; }
        code += (long long)d * stride[e];
    }
    int i = x->idx_table[cp->code_start + code];
    if (i < 0) { *kind = RANK_FAIL_CONFIG; *detail = c; }
    return i;
}

/* The rank of s in tier t, or -1 with the failure's kind and detail. */
static inline long long rank_in(const RankCtx *x, const RankTier *t, const V *s, int *kind,
                                long long *detail) {
    for (int f = 0; f < x->nfixed; f++) {
        int cell = x->fixed_cells[f];
        if (s[cell] != t->fixed[f]) { *kind = RANK_FAIL_FIXED; *detail = cell; return -1; }
    }
    long long rem = t->rem0, r = 0;
    for (int c = 0; c < x->ncomp; c++) {
        int i = rank_config(x, c, s, kind, detail);
        if (i < 0) return -1;
        long long n = x->comp_nconf[c];
        r += x->prefix[x->pre_start[c] + rem * (n + 1) + i];
        rem = x->nextrem[x->next_start[c] + rem * n + i];
        if (rem < 0) { *kind = RANK_FAIL_WEIGHT; *detail = c; return -1; }
    }
    if (rem != 0) { *kind = RANK_FAIL_WEIGHT; *detail = x->ncomp; return -1; }
    return r;
}

/* The state of rank r in tier t. */
static inline void unrank_in(const RankCtx *x, const RankTier *t, long long r, V *s) {
    for (int f = 0; f < x->nfixed; f++) s[x->fixed_cells[f]] = t->fixed[f];
    long long rem = t->rem0;
    for (int c = 0; c < x->ncomp; c++) {
        long long n = x->comp_nconf[c];
        const uint32_t *p = x->prefix + x->pre_start[c] + rem * (n + 1);
        long long low = 0, high = n - 1;          /* the last i with p[i] <= r */
        while (low < high) {
            long long mid = (low + high + 1) / 2;
            if (p[mid] <= r) low = mid; else high = mid - 1;
        }
        r -= p[low];
        int first = x->comp_cell_start[c], cells = x->comp_cell_start[c + 1] - first;
        const V *values = x->conf_values + x->conf_value_start[c] + low * cells;
        for (int e = 0; e < cells; e++) s[x->comp_cells[first + e]] = values[e];
        rem = x->nextrem[x->next_start[c] + rem * n + low];
    }
}

static int rank_fail(RankCtx *x, int kind, long long detail, long long tier, const V *s) {
    x->fail_kind = kind;
    x->fail_detail = detail;
    x->fail_tier = tier;
    memcpy(x->fail_state, s, sizeof(V) * CELLS);
    return -2;
}

/* A new tier for state s (its first state met): the fixed cells' values and the target are
   s's. 0, or -2 (s fits no configuration), -3 (out of the memory budget), -6 (too many slots). */
static int rank_new_tier(RankCtx *x, long long value, const V *s, RankTier **out) {
    long long w[64] = {0};
    int kind = 0;
    long long detail = 0;
    for (int c = 0; c < x->ncomp; c++) {
        int i = rank_config(x, c, s, &kind, &detail);
        if (i < 0) return rank_fail(x, kind, detail, value, s);
        const long long *cw = x->conf_w + (x->conf_start[c] + i) * x->ndims;
        for (int k = 0; k < x->ndims; k++) w[k] += cw[k];
    }
    long long rem = 0;
    for (int k = 0; k < x->ndims; k++) rem += w[k] * x->rem_stride[k];
    if (rem < 0 || rem >= x->nrem) return rank_fail(x, RANK_FAIL_WEIGHT, x->ncomp, value, s);
    long long size = x->tier_size[rem];
    if (size > x->slot_limit) { x->fail_tier = value; x->fail_detail = size; return -6; }
    if (x->ntiers == x->captiers) {
        int cap = x->captiers ? 2 * x->captiers : 16;
        RankTier **grown = realloc(x->tiers, (size_t)cap * sizeof(RankTier *));
        if (!grown) return -3;
        x->tiers = grown;
        x->captiers = cap;
    }
    RankTier *t = calloc(1, sizeof(RankTier));
    if (!t) return -3;
    t->fixed = calloc((size_t)(x->nfixed ? x->nfixed : 1), sizeof(V));
    t->bits = rank_alloc(x, bits_bytes(size));
    if (!t->fixed || !t->bits) { free(t->fixed); rank_release(x, t->bits, bits_bytes(size)); free(t); return -3; }
    t->value = value;
    t->rem0 = rem;
    t->size = size;
    for (int f = 0; f < x->nfixed; f++) t->fixed[f] = s[x->fixed_cells[f]];
    int at = x->ntiers;
    while (at > 0 && x->tiers[at - 1]->value > value) { x->tiers[at] = x->tiers[at - 1]; at--; }
    x->tiers[at] = t;
    x->ntiers++;
    *out = t;
    return 0;
}

/* ---- exported: each cell's declared values (a bit mask over its codec digit, all ones past
   64 values) and the variable it belongs to (0: the mover), as the emitter wrote them ---- */
void gdl_rank_domains(uint64_t *mask, long long *var) {
    for (int i = 0; i < CELLS; i++) { mask[i] = codec_mask[i]; var[i] = codec_var[i]; }
}

/* ---- exported: the context ----
   header: ncomp, nfixed, ndims, nrem, nplus, nminus, total, slot_limit, budget, width of the
   codes (0 until the backward pass), then the tables in the order of RankCtx. */
void *gdl_rank_new(const long long *header, const void *const *tables) {
    RankCtx *x = calloc(1, sizeof(RankCtx));
    if (!x) return NULL;
    x->ncomp = (int)header[0];
    x->nfixed = (int)header[1];
    x->ndims = (int)header[2];
    x->nrem = header[3];
    x->nplus = (int)header[4];
    x->nminus = (int)header[5];
    x->total = header[6];
    x->slot_limit = header[7];
    x->budget = header[8];
    x->nthreads = 1;
    if (x->ndims > 64) { free(x); return NULL; }
    int k = 0;
    x->fixed_cells = tables[k++];
    x->comp_cell_start = tables[k++];
    x->comp_cells = tables[k++];
    x->cell_stride = tables[k++];
    x->comp_code_start = tables[k++];
    x->idx_table = tables[k++];
    x->comp_nconf = tables[k++];
    x->conf_start = tables[k++];
    x->conf_value_start = tables[k++];
    x->conf_values = tables[k++];
    x->conf_w = tables[k++];
    x->rem_stride = tables[k++];
    x->pre_start = tables[k++];
    x->next_start = tables[k++];
    x->prefix = tables[k++];
    x->nextrem = tables[k++];
    x->tier_size = tables[k++];
    x->tier_cells = tables[k++];
    long long nconf = 0;
    for (int c = 0; c < x->ncomp; c++) nconf += x->comp_nconf[c];
    x->conf_flat = calloc((size_t)(nconf ? nconf : 1), sizeof(long long));
    if (!x->conf_flat) { free(x); return NULL; }
    for (long long i = 0; i < nconf; i++)
        for (int d = 0; d < x->ndims; d++) x->conf_flat[i] += x->conf_w[i * x->ndims + d] * x->rem_stride[d];
    for (int i = 0; i < CELLS; i++) x->cell_comp[i] = -1;
    for (int c = 0; c < x->ncomp; c++)
        for (int e = x->comp_cell_start[c]; e < x->comp_cell_start[c + 1]; e++)
            x->cell_comp[x->comp_cells[e]] = c;
    x->act_comps = malloc(((size_t)effect_start[ACTIONS] + 1) * sizeof(int));
    if (!x->act_comps) { free(x->conf_flat); free(x); return NULL; }
    int used = 0;
    for (int a = 0; a < ACTIONS; a++) {
        x->act_start[a] = used;
        for (int e = effect_start[a]; e < effect_start[a + 1]; e++) {
            int comp = x->cell_comp[effect_cells[e]];
            if (comp < 0) continue;
            int seen = 0;
            for (int j = x->act_start[a]; j < used; j++) if (x->act_comps[j] == comp) seen = 1;
            if (!seen) x->act_comps[used++] = comp;
        }
    }
    x->act_start[ACTIONS] = used;
    for (int a = 0; a < ACTIONS; a++) {
        uint64_t mask = 0;
        for (int e = x->act_start[a]; e < x->act_start[a + 1]; e++)
            mask |= x->ncomp > 64 ? ~0ULL : 1ULL << x->act_comps[e];
        x->act_mask[a] = mask;
    }
    x->comps = calloc((size_t)x->ncomp + 1, sizeof(RankComp));
    if (!x->comps) { free(x->act_comps); free(x->conf_flat); free(x); return NULL; }
    for (int c = 0; c < x->ncomp; c++) {
        RankComp *cp = &x->comps[c];
        cp->first = x->comp_cell_start[c];
        cp->cells = x->comp_cell_start[c + 1] - cp->first;
        cp->nconf = (int)x->comp_nconf[c];
        cp->code_start = x->comp_code_start[c];
        cp->conf_start = x->conf_start[c];
        cp->value_start = x->conf_value_start[c];
        cp->pre_start = x->pre_start[c];
    }
    return x;
}

void gdl_rank_free(RankCtx *x) {
    if (!x) return;
    for (int i = 0; i < x->ntiers; i++) {
        RankTier *t = x->tiers[i];
        free(t->fixed);
        rank_release(x, t->bits, bits_bytes(t->size));
        rank_release(x, t->values, values_bytes(x, t->size));
        free(t->reaches);
        free(t);
    }
    free(x->tiers);
    free(x->comps);
    free(x->act_comps);
    free(x->conf_flat);
    free(x->code_score);
    free(x->code_rem);
    free(x->code_vi);
    free(x->pair_lo); free(x->pair_hi); free(x->pair_value); free(x->pair_flags);
    free(x->pair_of);
    free(x);
}

/* The passes' threads (1 to RANK_MAX_THREADS) and the words of bitmap a chunk holds (0: about
   64 chunks a thread, for them to even out; tests ask for 1, many chunks on a small game). */
void gdl_rank_threads(RankCtx *x, int n, long long chunk_words) {
    x->nthreads = n < 1 ? 1 : n > RANK_MAX_THREADS ? RANK_MAX_THREADS : n;
    x->chunk_words = chunk_words > 0 ? chunk_words : 0;
}

/* The CPU seconds the threads have spent in the threaded passes so far (rank_cyclic_tier's
   sweeps, on the calling thread, not included). */
double gdl_rank_cpu(const RankCtx *x) { return x->pass_cpu; }

/* The tiers' values in order (at most cap); returns how many there are. */
int gdl_rank_tiers(const RankCtx *x, long long *out, int cap) {
    for (int i = 0; i < x->ntiers && i < cap; i++) out[i] = x->tiers[i]->value;
    return x->ntiers;
}

/* One tier's figures: size, target, reached, terminal, edges, inside, reaches (count), then
   the reaches and the fixed values in their own arrays (room for cap reaches). -1: no tier. */
int gdl_rank_tier_info(const RankCtx *x, long long value, long long *out, long long *reaches,
                       int cap, V *fixed) {
    const RankTier *t = rank_find(x, value);
    if (!t) return -1;
    out[0] = t->size; out[1] = t->rem0; out[2] = t->reached; out[3] = t->terminal;
    out[4] = t->edges; out[5] = t->inside; out[6] = t->nreaches;
    for (int i = 0; i < t->nreaches && i < cap; i++) reaches[i] = t->reaches[i];
    for (int f = 0; f < x->nfixed; f++) fixed[f] = t->fixed[f];
    return 0;
}

/* The failure: kind, detail, tier, the tier it went to, the action; the state in s. */
void gdl_rank_failure(const RankCtx *x, long long *out, V *s) {
    out[0] = x->fail_kind; out[1] = x->fail_detail; out[2] = x->fail_tier;
    out[3] = x->fail_to_tier; out[4] = x->fail_action;
    memcpy(s, x->fail_state, sizeof(V) * CELLS);
}

/* A tier's table (which 0: the reached bits, 1: the codes) for Python to read or write; NULL
   when it has none. */
void *gdl_rank_buffer(const RankCtx *x, long long value, int which) {
    const RankTier *t = rank_find(x, value);
    if (!t) return NULL;
    return which == 0 ? (void *)t->bits : t->values;
}

/* Allocate a tier's table (zeroed), or free it. 0, -1 no such tier, -3 out of the budget. */
int gdl_rank_alloc(RankCtx *x, long long value, int which) {
    RankTier *t = rank_find(x, value);
    if (!t) return -1;
    if (which == 0 && !t->bits) t->bits = rank_alloc(x, bits_bytes(t->size));
    if (which == 1 && !t->values) t->values = rank_alloc(x, values_bytes(x, t->size));
    return (which == 0 ? (void *)t->bits : t->values) ? 0 : -3;
}

int gdl_rank_drop(RankCtx *x, long long value, int which) {
    RankTier *t = rank_find(x, value);
    if (!t) return -1;
    if (which == 0) { rank_release(x, t->bits, bits_bytes(t->size)); t->bits = NULL; }
    else { rank_release(x, t->values, values_bytes(x, t->size)); t->values = NULL; }
    return 0;
}

/* The rank of one state: its tier in *tier; -1 when it has none (no such tier, or it does not
   fit the layout), -4 after a rule error in the tier. */
long long gdl_rank_state(const RankCtx *x, const V *s, long long *tier) {
    gdl_err = 0;
    long long value = tier_of(s, x->tier_cells, x->nplus, x->nminus);
    if (gdl_err) return -4;
    *tier = value;
    const RankTier *t = rank_find(x, value);
    if (!t) return -1;
    int kind;
    long long detail;
    return rank_in(x, t, s, &kind, &detail);
}

/* The state of a rank: 0, or -1 (no such tier, or a rank beyond it). */
int gdl_rank_unrank(const RankCtx *x, long long value, long long r, V *s) {
    const RankTier *t = rank_find(x, value);
    if (!t || r < 0 || r >= t->size) return -1;
    unrank_in(x, t, r, s);
    return 0;
}

/* Start the walk at a state: its tier made, its slot marked reached. */
int gdl_rank_seed(RankCtx *x, const V *s) {
    gdl_err = 0;
    long long value = tier_of(s, x->tier_cells, x->nplus, x->nminus);
    if (gdl_err) return -1;
    RankTier *t = rank_find(x, value);
    if (!t) {
        int status = rank_new_tier(x, value, s, &t);
        if (status) return status;
    }
    int kind;
    long long detail;
    long long r = rank_in(x, t, s, &kind, &detail);
    if (r < 0) return rank_fail(x, kind, detail, value, s);
    t->bits[r >> 6] |= 1ULL << (r & 63);
    return 0;
}

static int rank_add_score(RankCtx *x, long long score) {
    for (int i = 0; i < x->nscores; i++) if (x->scores[i] == score) return 0;
    if (x->nscores == MAX_SCORES) return -1;
    x->scores[x->nscores++] = score;
    return 0;
}

/* The distinct terminal scores the forward passes met (at most cap); returns how many. */
int gdl_rank_scores(const RankCtx *x, long long *out, int cap) {
    for (int i = 0; i < x->nscores && i < cap; i++) out[i] = x->scores[i];
    return x->nscores;
}

/* ---- a scan through a tier ----
   The cursor remembers the state s holds: its rank, each component's configuration, the weight
   left before each component and the rank the components before it account for. The next
   reached slot usually differs in the last components only: only they are unranked again. A
   child differs from its parent in a few cells: only the components holding them get a new
   configuration index (those holding a cell the action's effect may write: the emitter's
   effect_cells, an over-approximation found from the rules), and the rank is the sum along the
   components as in rank_in. */
typedef struct {
    long long rank;
    int *idx;                   /* ncomp */
    long long *rem, *cum;       /* ncomp + 1 */
    long long *hi;              /* ncomp: the ranks below this keep component c's configuration */
} RankCursor;

static int cursor_open(const RankCtx *x, RankCursor *k) {
    k->rank = -1;
    k->idx = calloc((size_t)x->ncomp + 1, sizeof(int));
    k->rem = calloc((size_t)x->ncomp + 1, sizeof(long long));
    k->cum = calloc((size_t)x->ncomp + 1, sizeof(long long));
    k->hi = calloc((size_t)x->ncomp + 1, sizeof(long long));
    return k->idx && k->rem && k->cum && k->hi ? 0 : -3;
}

static void cursor_close(RankCursor *k) {
    free(k->idx); free(k->rem); free(k->cum); free(k->hi);
}

/* s becomes the state of rank R in tier t (the cursor's tier). */
static inline void cursor_seek(const RankCtx *restrict x, const RankTier *t, RankCursor *k,
                               long long R, V *restrict s) {
    int c = 0;
    const int ncomp = x->ncomp;
    long long *restrict cum = k->cum, *restrict hi = k->hi, *restrict rem = k->rem;
    int *restrict idx = k->idx;
    if (k->rank < 0) {
        for (int f = 0; f < x->nfixed; f++) s[x->fixed_cells[f]] = t->fixed[f];
        rem[0] = t->rem0;
        cum[0] = 0;
    } else {
        while (c < ncomp && R >= cum[c + 1] && R < hi[c]) c++;
    }
    const RankComp *comps = x->comps;
    const uint32_t *prefix = x->prefix;
    const long long *flat = x->conf_flat;
    for (; c < ncomp; c++) {
        const RankComp *cp = &comps[c];
        const uint32_t *p = prefix + cp->pre_start + rem[c] * (cp->nconf + 1);
        long long res = R - cum[c];
        /* The last i with p[i] <= res (p[0] = 0 <= res < p[nconf]), without branches:
           base[0] <= res < base[n] holds throughout. */
        const uint32_t *base = p;
        int n = cp->nconf;
        while (n > 1) {
            int half = n / 2;
            base = (long long)base[half] <= res ? base + half : base;
            n -= half;
        }
        int low = (int)(base - p);
        idx[c] = low;
        cum[c + 1] = cum[c] + p[low];
        hi[c] = cum[c] + p[low + 1];
        rem[c + 1] = rem[c] - flat[cp->conf_start + low];
        const int *cells = x->comp_cells + cp->first;
        const V *values = x->conf_values + cp->value_start + (long long)low * cp->cells;
        for (int e = 0; e < cp->cells; e++) s[cells[e]] = values[e];
    }
    k->rank = R;
}

/* The rank in tier u of child c (of the cursor's state, by action), or -1 with the failure. */
static inline long long rank_child(const RankCtx *restrict x, const RankTier *u,
                                   const RankCursor *k, int action, const V *restrict c,
                                   int *kind, long long *detail) {
    for (int f = 0; f < x->nfixed; f++) {
        int cell = x->fixed_cells[f];
        if (c[cell] != u->fixed[f]) { *kind = RANK_FAIL_FIXED; *detail = cell; return -1; }
    }
    /* The weight left goes down by each configuration's flat weight: no table lookup on the
       chain from one component to the next. A state off the tier's target may pass through
       a flat index whose coordinates are not its own (read in bounds, a wrong rank), but then
       the weight left at the end is not 0, and the state fails. */
    const uint64_t mark = x->act_mask[action];
    const RankComp *comps = x->comps;
    const uint32_t *prefix = x->prefix;
    const long long *flat = x->conf_flat;
    const int *idx = k->idx;
    const int ncomp = x->ncomp;
    long long rem = u->rem0, r = 0;
    for (int comp = 0; comp < ncomp; comp++) {
        const RankComp *cp = &comps[comp];
        int i = idx[comp];
        if ((mark >> (comp & 63)) & 1) {
            i = rank_config(x, comp, c, kind, detail);
            if (i < 0) return -1;
        }
        if (rem < 0) { *kind = RANK_FAIL_WEIGHT; *detail = comp; return -1; }
        r += prefix[cp->pre_start + rem * (cp->nconf + 1) + i];
        rem -= flat[cp->conf_start + i];
    }
    if (rem != 0) { *kind = RANK_FAIL_WEIGHT; *detail = ncomp; return -1; }
    return r;
}

/* Slots a pass takes at a time: their children are ranked first and their tables' lines
   prefetched, then read (the tables of a large tier are far larger than the caches). */
static int rank_batch(void) {
    int b = 4096 / ACTIONS;
    return b < 1 ? 1 : b > 64 ? 64 : b;
}

typedef struct {
    RankTier *tier;
    long long rank;
} RankChild;

/* The next slot of a scan over a tier's bitmap (seen: the bits of word *w taken), or -1. */
static inline long long scan_next(const RankTier *t, long long words, long long *w,
                                  uint64_t *seen) {
    while (*w < words) {
        uint64_t m = t->bits[*w] & ~*seen;
        if (m) {
            int b = __builtin_ctzll(m);
            *seen |= 1ULL << b;
            return *w * 64 + b;
        }
        (*w)++;
        *seen = 0;
    }
    return -1;
}

/* ---- the passes on several threads ----
   A pass visits a tier's reached slots in chunks of whole bitmap words, which the threads take
   in increasing order (an atomic counter); each chunk remembers the next slot it has to visit.
   The threads share only bitmaps, set with atomic ORs, and count into counters of their own,
   added up after the join: each slot is visited once, so the sums do not depend on which
   thread visited it. What stops a chunk (an event: a child in a tier not made yet, or a
   failure) is kept with its slot and the index of its move, and a thread leaves the chunks
   past the lowest event met so far for later. After the join every slot below the lowest
   event has been visited, so that event is the one a single thread visiting the slots in rank
   order meets first: a new tier is made from it (its fixed values and target are that child's,
   as on one thread) and the chunks go on; a failure is the pass's. The results, the failure
   that makes Python refine a layout included, are thus the same on any number of threads.
   Moves inside a tier (its own bits set during the pass) go by rounds: the slots a round
   reaches first make the next round's scan, so a slot is still visited once. */

#define RANK_NEW_TIER 1

typedef struct {
    int status;                 /* 0: none; RANK_NEW_TIER; else the pass's status */
    long long slot;             /* where: the slot, and the index of its move */
    int action;
    /* the failure as x->fail_* hold it; RANK_NEW_TIER: the child in state, its tier */
    int kind, fail_action;
    long long detail, tier, to_tier;
    V state[CELLS];
} RankEvent;

typedef struct RankPass RankPass;

typedef struct {
    RankPass *pass;
    long long reached, terminal, edges;     /* forward */
    int inside, overflow;
    long long *reaches;                     /* later tiers the moves reach */
    int nreaches, capreaches;
    long long *scores;                      /* MAX_SCORES terminal scores met */
    int nscores;
    long long *hist;                        /* backward: 3 x ncodes, as x->hist */
    RankEvent event;                        /* the lowest this thread met */
    RankEvent spare;                        /* one not kept; not a thread-local: with
                                               gdl_err initial-exec, a library's thread-locals
                                               all come from the process's small static TLS
                                               area, which a few loaded games would exhaust */
    double cpu;                             /* CPU seconds this thread spent on the pass */
} RankWorker;

struct RankPass {
    RankCtx *x;
    RankTier *t;
    const uint64_t *scan;       /* the slots to visit */
    uint64_t *fresh;            /* forward: slots of t first reached in this round */
    long long words, chunk_words, nchunks;
    long long *resume;          /* per chunk: the next slot to visit */
    long long next_chunk;       /* atomic: the next chunk to take */
    long long lowest;           /* atomic: the slot of the lowest event met */
    int abort;                  /* atomic: -3 out of memory, -4 stopped */
    int nthreads;
    RankWorker *workers;
};

/* Per thread: the cursor and a batch's slots and children. */
typedef struct {
    RankCursor k;
    long long *slots;
    int *counts, *movers;
    unsigned *codes;
    RankChild *children;
    RankTier *last;
} RankScratch;

static int scratch_open(const RankCtx *x, RankScratch *sc) {
    int batch = rank_batch();
    memset(sc, 0, sizeof(*sc));
    int status = cursor_open(x, &sc->k);
    sc->slots = malloc((size_t)batch * sizeof(long long));
    sc->counts = malloc((size_t)batch * sizeof(int));
    sc->movers = malloc((size_t)batch * sizeof(int));
    sc->codes = malloc((size_t)batch * sizeof(unsigned));
    sc->children = malloc((size_t)batch * ACTIONS * sizeof(RankChild));
    return status || !sc->slots || !sc->counts || !sc->movers || !sc->codes || !sc->children
        ? -3 : 0;
}

static void scratch_close(RankScratch *sc) {
    cursor_close(&sc->k);
    free(sc->slots); free(sc->counts); free(sc->movers); free(sc->codes); free(sc->children);
}

static int tier_reach_add(long long **list, int *n, int *cap, long long value) {
    for (int i = *n - 1; i >= 0; i--) if ((*list)[i] == value) return 0;
    if (*n == *cap) {
        int grown_cap = *cap ? 2 * *cap : 8;
        long long *grown = realloc(*list, (size_t)grown_cap * sizeof(long long));
        if (!grown) return -3;
        *list = grown;
        *cap = grown_cap;
    }
    (*list)[(*n)++] = value;
    return 0;
}

/* An event at (slot, action): kept when it is the lowest this thread met, and the pass's
   lowest lowered to it. Returns the event to fill in (a scratch one when it is not kept). */
static RankEvent *pass_event(RankPass *p, RankWorker *wk, int status, long long slot,
                             int action) {
    RankEvent *e = &wk->event;
    if (e->status && (e->slot < slot || (e->slot == slot && e->action <= action))) e = &wk->spare;
    e->status = status;
    e->slot = slot;
    e->action = action;
    e->kind = 0; e->detail = 0; e->tier = 0; e->to_tier = 0; e->fail_action = 0;
    long long seen = __atomic_load_n(&p->lowest, __ATOMIC_RELAXED);
    while (slot < seen && !__atomic_compare_exchange_n(&p->lowest, &seen, slot, 1,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return e;
}

/* A child state that does not fit the layout (-2): the event keeps why (kind, detail), its
   tier and the state itself, from which Python refines the layout. */
static RankEvent *misfit_event(RankPass *p, RankWorker *wk, long long slot, int action, int kind,
                               long long detail, long long tier, const V *state) {
    RankEvent *e = pass_event(p, wk, -2, slot, action);
    e->kind = kind;
    e->detail = detail;
    e->tier = tier;
    memcpy(e->state, state, sizeof(V) * CELLS);
    return e;
}

static void pass_abort(RankPass *p, int status) {
    int none = 0;
    __atomic_compare_exchange_n(&p->abort, &none, status, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The next set bit of bits[*w..end) not yet taken (seen: the bits of word *w taken), or -1. */
static inline long long scan_bits(const uint64_t *bits, long long end, long long *w,
                                  uint64_t *seen) {
    while (*w < end) {
        uint64_t m = bits[*w] & ~*seen;
        if (m) {
            int b = __builtin_ctzll(m);
            *seen |= 1ULL << b;
            return *w * 64 + b;
        }
        (*w)++;
        *seen = 0;
    }
    return -1;
}

/* The next batch of a chunk's slots from p->resume[chunk] on: how many (0: the chunk is
   done), or -1 when they lie past the lowest event (left for later). */
static int pass_batch(RankPass *p, long long chunk, long long *slots, int batch) {
    long long from = p->resume[chunk];
    long long end = (chunk + 1) * p->chunk_words;
    if (end > p->words) end = p->words;
    long long w = from >> 6;
    uint64_t seen = (from & 63) ? ~0ULL >> (64 - (from & 63)) : 0;
    int taken = 0;
    long long r;
    while (taken < batch && (r = scan_bits(p->scan, end, &w, &seen)) >= 0) slots[taken++] = r;
    if (taken == 0) p->resume[chunk] = end * 64;
    else if (slots[0] > __atomic_load_n(&p->lowest, __ATOMIC_RELAXED)) {
        p->resume[chunk] = slots[0];
        return -1;
    }
    return taken;
}

/* The forward pass over one chunk: each slot expanded, its children ranked (their bits'
   lines prefetched), then marked. */
static void forward_chunk(RankPass *p, RankWorker *wk, RankScratch *sc, long long chunk) {
    RankCtx *x = p->x;
    RankTier *t = p->t;
    const long long value = t->value;
    V s[CELLS], returns[PLAYERS];
    PADDED_STATE(c);
    int actions[ACTIONS];
    const V limit = (V)1 << 60;
    const int batch = rank_batch();
    long long *slots = sc->slots;
    int *counts = sc->counts;
    RankChild *children = sc->children;
    sc->k.rank = -1;
    gdl_err = 0;
    for (;;) {
        if (__atomic_load_n(&p->abort, __ATOMIC_RELAXED)) return;
        if (gdl_stop_flag) { pass_abort(p, -4); return; }
        int taken = pass_batch(p, chunk, slots, batch);
        if (taken <= 0) return;
        long long used = 0;
        int done = taken;
        for (int b = 0; b < taken && done == taken; b++) {
            long long first = used;
            RankEvent *e = NULL;
            cursor_seek(x, t, &sc->k, slots[b], s);
            counts[b] = -1;
            if (game_terminal(s)) {
                rule_returns(s, returns);
                if (gdl_err || returns[0] >= limit || returns[0] <= -limit) {
                    e = pass_event(p, wk, -1, slots[b], 0);
                } else {
                    long long score = 2 * returns[0] - x->total;
                    int i = 0;
                    while (i < wk->nscores && wk->scores[i] != score) i++;
                    if (i == wk->nscores) {
                        if (i < MAX_SCORES) wk->scores[wk->nscores++] = score;
                        else wk->overflow = 1;
                    }
                }
            } else {
                int n = game_legal(s, actions);
                if (gdl_err) e = pass_event(p, wk, -1, slots[b], 0);
                else counts[b] = n;
                for (int a = 0; a < n && !e; a++) {
                    game_apply(s, actions[a], c);
                    long long cu = tier_of(c, x->tier_cells, x->nplus, x->nminus);
                    if (gdl_err) { e = pass_event(p, wk, -1, slots[b], a); break; }
                    if (cu < value) {
                        e = pass_event(p, wk, -5, slots[b], a);
                        e->tier = value;
                        e->fail_action = a;
                        e->to_tier = cu;
                        memcpy(e->state, s, sizeof(V) * CELLS);
                        break;
                    }
                    RankTier *u = t;
                    if (cu != value) {
                        if (sc->last && sc->last->value == cu) u = sc->last;
                        else {
                            u = rank_find(x, cu);
                            if (!u) {
                                e = pass_event(p, wk, RANK_NEW_TIER, slots[b], a);
                                e->tier = cu;
                                memcpy(e->state, c, sizeof(V) * CELLS);
                                break;
                            }
                            if (!u->bits) { e = pass_event(p, wk, -8, slots[b], a); break; }
                            /* noted once a change of the tier looked up: sc->last is */
                            if (tier_reach_add(&wk->reaches, &wk->nreaches, &wk->capreaches,
                                               cu)) {
                                pass_abort(p, -3);
                                return;
                            }
                            sc->last = u;
                        }
                    } else wk->inside = 1;
                    int kind;
                    long long detail;
                    long long cr = rank_child(x, u, &sc->k, actions[a], c, &kind, &detail);
                    if (cr < 0) { e = misfit_event(p, wk, slots[b], a, kind, detail, cu, c); break; }
                    __builtin_prefetch(u->bits + (cr >> 6), 1);
                    children[used].tier = u;
                    children[used].rank = cr;
                    used++;
                }
            }
            if (e) { done = b; used = first; gdl_err = 0; }
        }
        for (int b = 0; b < done; b++) {
            wk->reached++;
            if (counts[b] < 0) wk->terminal++;
            else wk->edges += counts[b];
        }
        /* mark them reached; a slot of this tier first reached now goes to the next round */
        for (long long e = 0; e < used; e++) {
            RankTier *u = children[e].tier;
            long long cr = children[e].rank;
            uint64_t bit = 1ULL << (cr & 63), *word = u->bits + (cr >> 6);
            if (__atomic_load_n(word, __ATOMIC_RELAXED) & bit) continue;
            uint64_t old = __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
            if (u == t && !(old & bit))
                __atomic_fetch_or(p->fresh + (cr >> 6), bit, __ATOMIC_RELAXED);
        }
        if (done < taken) { p->resume[chunk] = slots[done]; return; }
        p->resume[chunk] = slots[taken - 1] + 1;
    }
}

static double thread_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

typedef void (*RankChunkPass)(RankPass *, RankWorker *, RankScratch *, long long);

typedef struct {
    RankWorker *worker;
    RankChunkPass chunk;
} RankJob;

static void *pass_thread(void *arg) {
    RankJob *job = arg;
    RankWorker *wk = job->worker;
    RankPass *p = wk->pass;
    double started = thread_seconds();
    RankScratch sc;
    if (scratch_open(p->x, &sc)) pass_abort(p, -3);
    else {
        for (;;) {
            long long chunk = __atomic_fetch_add(&p->next_chunk, 1, __ATOMIC_RELAXED);
            if (chunk >= p->nchunks || __atomic_load_n(&p->abort, __ATOMIC_RELAXED)) break;
            long long end = (chunk + 1) * p->chunk_words;
            if (end > p->words) end = p->words;
            if (p->resume[chunk] >= end * 64) continue;
            job->chunk(p, wk, &sc, chunk);
        }
    }
    scratch_close(&sc);
    wk->cpu += thread_seconds() - started;
    return NULL;
}

/* One run of the threads over the chunks not done: 0, or the abort status. The calling thread
   is one of them; a thread that cannot be started leaves its share to the others. */
static int pass_run(RankPass *p, RankChunkPass chunk) {
    pthread_t threads[RANK_MAX_THREADS];
    RankJob jobs[RANK_MAX_THREADS];
    int started[RANK_MAX_THREADS];
    p->next_chunk = 0;
    p->lowest = LLONG_MAX;
    p->abort = 0;
    for (int i = 0; i < p->nthreads; i++) {
        p->workers[i].event.status = 0;
        jobs[i].worker = &p->workers[i];
        jobs[i].chunk = chunk;
    }
    for (int i = 1; i < p->nthreads; i++)
        started[i] = pthread_create(&threads[i], NULL, pass_thread, &jobs[i]) == 0;
    pass_thread(&jobs[0]);
    for (int i = 1; i < p->nthreads; i++) if (started[i]) pthread_join(threads[i], NULL);
    return p->abort;
}

/* The lowest event of the run (NULL: none). */
static const RankEvent *pass_lowest(const RankPass *p) {
    const RankEvent *best = NULL;
    for (int i = 0; i < p->nthreads; i++) {
        const RankEvent *e = &p->workers[i].event;
        if (e->status && (!best || e->slot < best->slot
                          || (e->slot == best->slot && e->action < best->action))) best = e;
    }
    return best;
}

/* The pass's failure becomes the context's (gdl_rank_failure). */
static int pass_fail(RankCtx *x, const RankEvent *e) {
    x->fail_kind = e->kind;
    x->fail_detail = e->detail;
    x->fail_tier = e->tier;
    x->fail_to_tier = e->to_tier;
    x->fail_action = e->fail_action;
    memcpy(x->fail_state, e->state, sizeof(V) * CELLS);
    return e->status;
}

static int pass_open(RankCtx *x, RankTier *t, RankPass *p, int scores, int hist) {
    memset(p, 0, sizeof(*p));
    p->x = x;
    p->t = t;
    p->nthreads = x->nthreads < 1 ? 1 : x->nthreads;
    p->words = (t->size + 63) / 64;
    /* enough chunks for the threads to even out (a chunk's slots take unequal time) */
    p->chunk_words = p->nthreads == 1 ? p->words : p->words / (64 * (long long)p->nthreads);
    if (p->chunk_words < 16) p->chunk_words = 16;
    if (x->chunk_words) p->chunk_words = x->chunk_words;
    p->nchunks = (p->words + p->chunk_words - 1) / p->chunk_words;
    p->resume = malloc((size_t)(p->nchunks ? p->nchunks : 1) * sizeof(long long));
    p->workers = calloc((size_t)p->nthreads, sizeof(RankWorker));
    if (!p->resume || !p->workers) return -3;
    for (int i = 0; i < p->nthreads; i++) {
        RankWorker *wk = &p->workers[i];
        wk->pass = p;
        if (scores && !(wk->scores = malloc(MAX_SCORES * sizeof(long long)))) return -3;
        if (hist && !(wk->hist = calloc((size_t)(3 * x->ncodes), sizeof(long long)))) return -3;
    }
    return 0;
}

static void pass_rewind(RankPass *p) {
    for (long long i = 0; i < p->nchunks; i++) p->resume[i] = i * p->chunk_words * 64;
}

static void pass_close(RankPass *p) {
    if (p->workers)
        for (int i = 0; i < p->nthreads; i++) {
            RankWorker *wk = &p->workers[i];
            p->x->pass_cpu += wk->cpu;
            free(wk->reaches); free(wk->scores); free(wk->hist);
        }
    free(p->workers);
    free(p->resume);
}

static int reach_order(const void *a, const void *b) {
    long long u = *(const long long *)a, v = *(const long long *)b;
    return (u > v) - (u < v);
}

/* ---- exported: the forward pass of one tier ----
   Every reached slot of the tier is expanded (slots a move inside the tier reaches too, by
   rounds: above); each child is ranked in its tier (made when first met) and marked reached
   there. The tier's counts (reached, terminal, edges), the later tiers it reaches and whether
   a move stays inside it are recorded; each terminal's centred score is added to the scores
   met. On x->nthreads threads (gdl_rank_threads), with the same results. Returns 0; -1 after
   a rule error, a stuck position or a score beyond 2^60; -2 a state that does not fit the
   layout (gdl_rank_failure); -3 out of the memory budget; -4 stopped; -5 a move that lowers
   the tier (the state, action and tier in the failure); -6 a tier with too many slots; -8 no
   such tier, or its bits are not here. */
int gdl_rank_forward(RankCtx *x, long long value) {
    RankTier *t = rank_find(x, value);
    if (!t || !t->bits) return -8;
    RankPass p;
    int status = pass_open(x, t, &p, 1, 0);
    size_t bytes = bits_bytes(t->size);
    uint64_t *scan = status ? NULL : rank_alloc(x, bytes);
    uint64_t *fresh = scan ? rank_alloc(x, bytes) : NULL;
    if (!fresh) status = -3;
    if (!status) memcpy(scan, t->bits, bytes);
    while (!status) {                               /* rounds */
        p.scan = scan;
        p.fresh = fresh;
        pass_rewind(&p);
        for (;;) {                                  /* runs, until no chunk is left */
            status = pass_run(&p, forward_chunk);
            const RankEvent *e = status ? NULL : pass_lowest(&p);
            if (!e) break;
            if (e->status != RANK_NEW_TIER) { status = pass_fail(x, e); break; }
            RankTier *u;
            status = rank_new_tier(x, e->tier, e->state, &u);
            if (status) break;
        }
        long long more = 0;
        for (long long i = 0; i < p.words && !status; i++) more |= (long long)fresh[i];
        if (!more) break;
        uint64_t *swap = scan;
        scan = fresh;
        fresh = swap;
        memset(fresh, 0, bytes);
    }
    for (int i = 0; i < p.nthreads && p.workers; i++) {
        RankWorker *wk = &p.workers[i];
        t->reached += wk->reached;
        t->terminal += wk->terminal;
        t->edges += wk->edges;
        t->inside |= wk->inside;
        for (int j = 0; j < wk->nreaches; j++)
            if (!status && tier_reach_add(&t->reaches, &t->nreaches, &t->capreaches, wk->reaches[j]))
                status = -3;
        if (wk->overflow && !status) status = -1;
        for (int j = 0; j < wk->nscores && !status; j++)
            if (rank_add_score(x, wk->scores[j])) status = -1;
    }
    if (t->nreaches > 1) qsort(t->reaches, (size_t)t->nreaches, sizeof(long long), reach_order);
    rank_release(x, scan, bytes);
    rank_release(x, fresh, bytes);
    pass_close(&p);
    return status;
}

/* ---- exported: the backward pass's encoding ----
   table: the sorted distinct terminal scores (centred: 2 u0 - total); a code is
   1 + index * M + remoteness, width bytes a slot (1 or 2), 0 for a slot never reached;
   hist (3 x ncodes, zeroed by the caller) counts the codes of decision positions of player 0,
   of player 1, and of terminals. 0, or -3 out of memory, -1 codes beyond the width. */
int gdl_rank_encoding(RankCtx *x, const long long *table, int ntable, int M, int width,
                      long long *hist) {
    long long ncodes = 1 + (long long)ntable * M;
    if (width != 1 && width != 2) return -1;
    if (ncodes > (width == 1 ? 256 : 65536)) return -1;
    x->table = table;
    x->ntable = ntable;
    x->M = M;
    x->width = width;
    x->ncodes = ncodes;
    x->hist = hist;
    free(x->code_score); free(x->code_rem); free(x->code_vi);
    x->code_score = calloc((size_t)ncodes, sizeof(long long));
    x->code_rem = calloc((size_t)ncodes, sizeof(int));
    x->code_vi = calloc((size_t)ncodes, sizeof(int));
    if (!x->code_score || !x->code_rem || !x->code_vi) return -3;
    for (long long code = 1; code < ncodes; code++) {
        x->code_vi[code] = (int)((code - 1) / M);
        x->code_rem[code] = (int)((code - 1) % M);
        x->code_score[code] = table[x->code_vi[code]];
    }
    return 0;
}

static inline unsigned rank_get(const void *v, int width, long long i) {
    return width == 1 ? ((const unsigned char *)v)[i] : ((const uint16_t *)v)[i];
}

static inline void rank_put(void *v, int width, long long i, unsigned code) {
    if (width == 1) ((unsigned char *)v)[i] = (unsigned char)code;
    else ((uint16_t *)v)[i] = (uint16_t)code;
}

static int rank_score_index(const RankCtx *x, long long score) {
    int low = 0, high = x->ntable - 1;
    while (low <= high) {
        int mid = (low + high) / 2;
        if (x->table[mid] == score) return mid;
        if (x->table[mid] < score) low = mid + 1; else high = mid - 1;
    }
    return -1;
}

/* ---- exported: the encoding of tiers whose moves may stay inside them ----
   Two players, constant sum, no chance, positions that may repeat (docs/graph.md, "What the
   answers mean when a position can repeat"). A code is 1 + pair * M + remoteness, where a pair
   is a position's (lo, hi): the best end player 0 can force and the best player 1 can, as
   indices into the extended scores (0: no end can be forced; 1..ntable: the table's scores;
   ntable + 1: no end either, for hi). Python lists the pairs and, per pair, the value the
   rules give it (what endless play is worth clamped to [lo, hi], or the same whatever it is
   worth between the game's least and greatest end) and whether it is known and which side
   can force the end at that value. A remoteness of M - 1 is none. Called after
   gdl_rank_encoding (the scores, M, the width); hist (3 x (1 + npairs * M)) counts the codes
   as there. 0, -1 a bad pair or codes beyond the width, -3 out of memory. */
int gdl_rank_cyclic_encoding(RankCtx *x, const long long *lo, const long long *hi,
                             const long long *value, const long long *flags, int npairs,
                             long long *hist) {
    int side = x->ntable + 2;
    if (!x->M || 1 + (long long)npairs * x->M > (x->width == 1 ? 256 : 65536)) return -1;
    free(x->pair_lo); free(x->pair_hi); free(x->pair_value); free(x->pair_flags);
    free(x->pair_of);
    x->pair_lo = calloc((size_t)npairs + 1, sizeof(int));
    x->pair_hi = calloc((size_t)npairs + 1, sizeof(int));
    x->pair_value = calloc((size_t)npairs + 1, sizeof(long long));
    x->pair_flags = calloc((size_t)npairs + 1, sizeof(int));
    x->pair_of = malloc((size_t)side * (size_t)side * sizeof(int));
    if (!x->pair_lo || !x->pair_hi || !x->pair_value || !x->pair_flags || !x->pair_of) return -3;
    for (long long i = 0; i < (long long)side * side; i++) x->pair_of[i] = -1;
    for (int p = 0; p < npairs; p++) {
        if (lo[p] < 0 || lo[p] >= side || hi[p] < 0 || hi[p] >= side || lo[p] > hi[p]) return -1;
        x->pair_lo[p] = (int)lo[p];
        x->pair_hi[p] = (int)hi[p];
        x->pair_value[p] = value[p];
        x->pair_flags[p] = (int)flags[p];
        x->pair_of[lo[p] * side + hi[p]] = p;
    }
    if (x->pair_of[0 * side + side - 1] < 0) return -1;     /* the open pair: nothing forced */
    x->npairs = npairs;
    x->ncodes = 1 + (long long)npairs * x->M;
    x->hist = hist;
    x->cyclic = 1;
    return 0;
}

/* One slot of a cyclic tier: its mover and its children's codes (a child of this tier whose
   slot has no code yet reads 0); a terminal gives n = -1 and its own code (remoteness 0).
   0, or a status as gdl_rank_backward's. */
static int cyclic_expand(RankCtx *x, RankTier *t, RankCursor *k, long long slot, int *mover,
                         int *n_out, unsigned *codes, RankTier **last) {
    V s[CELLS], returns[PLAYERS];
    PADDED_STATE(c);                    /* an effect writes it: see STATE_PAD in search.c */
    int actions[ACTIONS];
    const V limit = (V)1 << 60;
    cursor_seek(x, t, k, slot, s);
    if (game_terminal(s)) {
        rule_returns(s, returns);
        if (gdl_err || returns[0] >= limit || returns[0] <= -limit) return -1;
        int vi = rank_score_index(x, 2 * returns[0] - x->total);
        if (vi < 0) return -9;
        int pair = x->pair_of[(vi + 1) * (x->ntable + 2) + vi + 1];
        if (pair < 0) return -9;
        codes[0] = 1 + (unsigned)pair * (unsigned)x->M;
        *n_out = -1;
        return 0;
    }
    int n = game_legal(s, actions);
    if (gdl_err) return -1;
    *mover = (int)s[0];
    for (int a = 0; a < n; a++) {
        game_apply(s, actions[a], c);
        long long cu = tier_of(c, x->tier_cells, x->nplus, x->nminus);
        if (gdl_err) return -1;
        RankTier *u = cu == t->value ? t
            : *last && (*last)->value == cu ? *last : rank_find(x, cu);
        if (!u || !u->values) return -8;
        if (u != t) *last = u;
        int kind;
        long long detail;
        long long cr = rank_child(x, u, k, actions[a], c, &kind, &detail);
        if (cr < 0) return rank_fail(x, kind, detail, cu, c);
        codes[a] = rank_get(u->values, x->width, cr);
        if (codes[a] == 0 && u != t) return -9;
    }
    *n_out = n;
    return 0;
}

/* The backward pass of a tier whose moves may stay inside it, by sweeps over its slots in
   rank order, each recomputing a slot from its children until a sweep changes nothing (no
   parents, no counters: gdl.graph.rank_solve says why). First the pairs: lo and hi start at
   "no end forced" and only rise (lo) or fall (hi), player 0 taking the greatest of its
   children's, player 1 the least, so they settle at the least fixed point: the attractors of
   retrograde analysis. Then the remoteness, from none: where a side can force the end at the
   position's value, over its optimal moves (to a child of known, equal value), the hurrying
   side one more than the least of its children's, the delaying side one more than the
   greatest (none while one is none). Both only fall, to the ranks of the attractor along
   optimal moves (gdl.graph.retrograde.remoteness). Then a last scan counts the codes. */
static int rank_cyclic_tier(RankCtx *x, long long value) {
    RankTier *t = rank_find(x, value);
    if (!t || !t->bits) return -8;
    if (!t->values && gdl_rank_alloc(x, value, 1)) return -3;
    const int width = x->width, M = x->M, side = x->ntable + 2;
    const unsigned none = (unsigned)M - 1;
    const unsigned open = 1 + (unsigned)x->pair_of[side - 1] * (unsigned)M + none;
    const long long words = (t->size + 63) / 64;
    unsigned *codes = malloc((size_t)ACTIONS * sizeof(unsigned));
    RankTier *last = NULL;
    RankCursor k;
    int status = cursor_open(x, &k);
    if (!codes) status = -3;
    gdl_err = 0;
    for (int phase = 0; phase < 3 && !status; phase++) {
        int changed = 1;
        while (changed && !status) {
            changed = 0;
            long long w = 0;
            uint64_t seen = 0;
            long long r;
            k.rank = -1;
            while (!status && (r = scan_next(t, words, &w, &seen)) >= 0 && r < t->size) {
                unsigned mine = rank_get(t->values, width, (long long)r);
                unsigned pair = mine ? (mine - 1) / (unsigned)M : 0;
                if (phase == 0 && mine && x->pair_lo[pair] == x->pair_hi[pair]) continue;
                if (phase == 1 && (!(x->pair_flags[pair] & 6) || (mine - 1) % M == 0)) continue;
                int mover = 0, n = 0;
                status = cyclic_expand(x, t, &k, (long long)r, &mover, &n, codes, &last);
                if (status) break;
                unsigned code;
                if (phase == 2) {
                    if (n < 0) x->hist[2 * x->ncodes + mine]++;
                    else x->hist[(mover == 1 ? x->ncodes : 0) + mine]++;
                    continue;
                }
                if (n < 0) code = codes[0];
                else if (phase == 0) {
                    int lo = -1, hi = -1;
                    for (int a = 0; a < n; a++) {
                        unsigned cp = (codes[a] ? codes[a] : open) - 1;
                        int clo = x->pair_lo[cp / M], chi = x->pair_hi[cp / M];
                        if (a == 0) { lo = clo; hi = chi; }
                        else if (mover == 0) { if (clo > lo) lo = clo; if (chi > hi) hi = chi; }
                        else { if (clo < lo) lo = clo; if (chi < hi) hi = chi; }
                    }
                    int p = n ? x->pair_of[lo * side + hi] : -1;
                    if (p < 0) { status = -9; break; }
                    code = 1 + (unsigned)p * (unsigned)M + none;
                } else {
                    long long v = x->pair_value[pair];
                    int f = x->pair_flags[pair];
                    long long mine_value = mover == 1 ? -v : v;
                    int hurries = (f & 6) == 6 ? mine_value >= 0 : mover == 1 ? (f & 4) != 0
                                                                              : (f & 2) != 0;
                    unsigned best = none;
                    int first = 1;
                    for (int a = 0; a < n; a++) {
                        unsigned cp = (codes[a] - 1) / M, rem = (codes[a] - 1) % M;
                        if (!(x->pair_flags[cp] & 1) || x->pair_value[cp] != v) continue;
                        if (first) best = rem;
                        else if (hurries ? rem < best : (best != none && (rem == none || rem > best)))
                            best = rem;
                        first = 0;
                    }
                    if (best != none && best + 1 >= none) { status = -10; break; }
                    unsigned rem = best == none ? none : best + 1;
                    code = 1 + pair * (unsigned)M + rem;
                }
                if (code != mine) {
                    rank_put(t->values, width, (long long)r, code);
                    changed = 1;
                }
            }
            if (phase == 2) break;
            if (!t->inside) changed = 0;        /* every child in a later tier: one sweep */
            if (gdl_stop_flag) status = -4;
        }
    }
    cursor_close(&k);
    free(codes);
    return status;
}

/* The backward pass over one chunk (a tier whose moves all leave it): each slot's children
   ranked (their codes' lines prefetched), then its code from theirs. */
static void backward_chunk(RankPass *p, RankWorker *wk, RankScratch *sc, long long chunk) {
    RankCtx *x = p->x;
    RankTier *t = p->t;
    const long long value = t->value;
    V s[CELLS], returns[PLAYERS];
    PADDED_STATE(c);
    int actions[ACTIONS];
    const V limit = (V)1 << 60;
    const int width = x->width, M = x->M, batch = rank_batch();
    const long long ncodes = x->ncodes;
    long long *slots = sc->slots, *hist = wk->hist;
    int *counts = sc->counts, *movers = sc->movers;
    unsigned *codes = sc->codes;
    RankChild *children = sc->children;
    sc->k.rank = -1;
    gdl_err = 0;
    for (;;) {
        if (__atomic_load_n(&p->abort, __ATOMIC_RELAXED)) return;
        if (gdl_stop_flag) { pass_abort(p, -4); return; }
        int taken = pass_batch(p, chunk, slots, batch);
        if (taken <= 0) return;
        long long used = 0;
        int done = taken;
        for (int b = 0; b < taken && done == taken; b++) {
            RankEvent *e = NULL;
            cursor_seek(x, t, &sc->k, slots[b], s);
            counts[b] = -1;
            if (game_terminal(s)) {
                rule_returns(s, returns);
                int vi = -1;
                if (gdl_err || returns[0] >= limit || returns[0] <= -limit)
                    e = pass_event(p, wk, -1, slots[b], 0);
                else if ((vi = rank_score_index(x, 2 * returns[0] - x->total)) < 0)
                    e = pass_event(p, wk, -9, slots[b], 0);
                else codes[b] = 1 + (unsigned)vi * (unsigned)M;
            } else {
                int n = game_legal(s, actions);
                if (gdl_err) e = pass_event(p, wk, -1, slots[b], 0);
                else { counts[b] = n; movers[b] = (int)s[0]; }
                for (int a = 0; a < n && !e; a++) {
                    game_apply(s, actions[a], c);
                    long long cu = tier_of(c, x->tier_cells, x->nplus, x->nminus);
                    if (gdl_err) { e = pass_event(p, wk, -1, slots[b], a); break; }
                    if (cu == value) { e = pass_event(p, wk, -7, slots[b], a); break; }
                    RankTier *u = sc->last && sc->last->value == cu ? sc->last : rank_find(x, cu);
                    if (!u || !u->values) { e = pass_event(p, wk, -8, slots[b], a); break; }
                    sc->last = u;
                    int kind;
                    long long detail;
                    long long cr = rank_child(x, u, &sc->k, actions[a], c, &kind, &detail);
                    if (cr < 0) { e = misfit_event(p, wk, slots[b], a, kind, detail, cu, c); break; }
                    __builtin_prefetch((const char *)u->values + cr * width);
                    children[used].tier = u;
                    children[used].rank = cr;
                    used++;
                }
            }
            if (e) { done = b; gdl_err = 0; }
        }
        long long e = 0;
        for (int b = 0; b < done; b++) {
            unsigned code;
            if (counts[b] < 0) {
                code = codes[b];
                hist[2 * ncodes + code]++;
            } else {
                long long sign = movers[b] == 1 ? -1 : 1, best = 0;
                int fastest = 0, slowest = 0, best_vi = 0, bad = -1;
                for (int a = 0; a < counts[b]; a++, e++) {
                    unsigned cc = rank_get(children[e].tier->values, width, children[e].rank);
                    if (cc == 0) { bad = a; break; }
                    long long mine = x->code_score[cc] * sign;
                    int rem = x->code_rem[cc];
                    if (a == 0 || mine > best) {
                        best = mine; fastest = slowest = rem; best_vi = x->code_vi[cc];
                    } else if (mine == best) {
                        if (rem < fastest) fastest = rem;
                        if (rem > slowest) slowest = rem;
                    }
                }
                int rem = 1 + (best < 0 ? slowest : fastest);
                if (bad < 0 && rem >= M) bad = counts[b];
                if (bad >= 0) {             /* a child never reached, or a remoteness past M */
                    pass_event(p, wk, -9, slots[b], bad);
                    done = b;
                    break;
                }
                code = 1 + (unsigned)best_vi * (unsigned)M + (unsigned)rem;
                hist[(movers[b] == 1 ? ncodes : 0) + code]++;
            }
            rank_put(t->values, width, slots[b], code);
        }
        if (done < taken) { p->resume[chunk] = slots[done]; return; }
        p->resume[chunk] = slots[taken - 1] + 1;
    }
}

/* ---- exported: the backward pass of one tier whose moves all leave it ----
   Two players, constant sum, no chance: every reached slot valued as gdl_tier_solve values a
   position (the first best child for the mover; remoteness one more than the fastest optimal
   child's when the mover wins or ties, the slowest's when it loses; a terminal scores its
   returns, remoteness 0), each child's code read from its tier's table; on x->nthreads
   threads (above: a slot's code depends only on codes of other tiers), the failure reported
   the one at the lowest slot. A tier whose moves may stay inside it goes to
   rank_cyclic_tier, on one thread (its sweeps read codes the same sweep writes). Returns 0;
   -1 after a rule error; -2 a child that does not fit the layout; -3 out of memory; -4
   stopped; -7 a move inside the tier; -8 a table missing; -9 a child never reached, or a
   remoteness beyond M. */
int gdl_rank_backward(RankCtx *x, long long value) {
    if (x->cyclic) return rank_cyclic_tier(x, value);
    RankTier *t = rank_find(x, value);
    if (!t || !t->bits) return -8;
    if (!t->values && gdl_rank_alloc(x, value, 1)) return -3;
    RankPass p;
    int status = pass_open(x, t, &p, 0, 1);
    if (!status) {
        p.scan = t->bits;
        pass_rewind(&p);
        status = pass_run(&p, backward_chunk);
        const RankEvent *e = status ? NULL : pass_lowest(&p);
        if (e) status = pass_fail(x, e);
    }
    for (int i = 0; i < p.nthreads && p.workers && !status; i++)
        for (long long code = 0; code < 3 * x->ncodes; code++) x->hist[code] += p.workers[i].hist[code];
    pass_close(&p);
    return status;
}
