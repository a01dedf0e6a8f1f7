/* ---- the protocol and the search loops, shared by every game (gdl/backends/native/search.c) ----
   The same semantics as gdl.backends.interpret and gdl.solvers: see gdl/backends/native/emit.py. */
#include <stdlib.h>

#define TERMINAL_PLAYER (-2)
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

static void game_apply(const V *s, int action, V *out) {
    memcpy(out, s, sizeof(V) * CELLS);
    V turn = -1;
    rule_effect(out, action, &turn);
    V following = turn == -1 ? (s[0] + 1) % PLAYERS : turn;
    if (following < 0 || following >= PLAYERS) { gdl_err = 1; following = 0; }
    out[0] = following;
    game_settle(out);
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
    game_apply(s, action, out);
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
    x.states = malloc(sizeof(V) * CELLS * (size_t)MAX_PLY);
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
    free(x.states); free(x.actions); free(x.pv); free(x.pv_len);
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

static int pick(uint64_t *rng, int n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % (uint64_t)n;   /* rejection: every index equally likely */
    uint64_t r;
    do r = splitmix(rng); while (r >= limit);
    return (int)(r % (uint64_t)n);
}

/* `count` playouts from root; sums: total utility per player; stats: plies played. Returns 1 on
   a rule error or overflow, or when a playout exceeds max_plies. */
int gdl_playouts(const V *root, long long count, uint64_t seed, long long max_plies, V *sums,
                 long long *stats) {
    gdl_err = 0;
    V a[CELLS], b[CELLS], u[PLAYERS];
    int actions[ACTIONS];
    uint64_t rng = seed;
    long long plies = 0;
    for (int p = 0; p < PLAYERS; p++) sums[p] = 0;
    for (long long k = 0; k < count && !gdl_err; k++) {
        V *s = a, *t = b;
        memcpy(s, root, sizeof(V) * CELLS);
        long long length = 0;
        while (!gdl_err && !game_terminal(s)) {
            if (length++ >= max_plies) { gdl_err = 1; break; }
            int n = game_legal(s, actions);
            if (gdl_err) break;
            game_apply(s, actions[pick(&rng, n)], t);
            V *swap = s; s = t; t = swap;
            plies++;
        }
        if (gdl_err) break;
        rule_returns(s, u);
        for (int p = 0; p < PLAYERS; p++) sums[p] = gdl_add(sums[p], u[p]);
    }
    stats[0] = plies;
    return gdl_err != 0;
}
