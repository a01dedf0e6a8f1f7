/* ---- positions as byte keys, and tiers with chance and cycles (gdl/backends/native/chance_graph.c) ----
   Appended after graph.c. Two parts:

   1. gdl_bytes_expand: the moves of positions given as the tiered solve's byte keys (its
      length, then the state's components, one byte each: gdl.graph.tier_keys.key_of), chance
      included: a chance position is, as in the Python tier, the state before the action, the
      action waiting for chance, and the outcomes chosen so far (state + (action,) + outcomes);
      its children replay the action from the state before it with one outcome more (as
      search.c's ex_child does). The answer is the Python tier's `expand`, move for move.

   2. The solve of a tier with chance and cycles inside it (gdl.graph.chance_tiers) over its
      arrays, piece by piece: the pieces no move inside the tier joins (gdl_chance_layout), and
      each piece's certified interval (gdl_chance_pieces): policy iteration in floats over the
      piece's few cut positions, then a certificate (an outward-rounded sweep that proves the
      bounds a sub- and a super-solution of the Bellman equations), or, where the cut does not
      apply or the certificate fails, plain value iteration from the least and greatest end,
      rounded outwards. Everything about a piece depends on that piece alone. */

/* ---- 1. byte keys ---- */

#define BYTES_OUTS_MAX 32      /* outcomes pending in one effect, at most (more: declined) */

/* The state of a key row: its cells, and for a chance position the pending action and the
   outcomes so far. Bytes past `width` are zeros (numpy drops trailing zeros of a key).
   Returns the number of outcomes (0 at a decision or terminal state), or -1 when the row is
   not a state of this game's layout. */
static int bytes_state(const unsigned char *row, int width, V *s, int *pending, V *outs) {
    int length = row[0];
    for (int i = 0; i < CELLS; i++) s[i] = 1 + i < width ? row[1 + i] : 0;
    *pending = -1;
    if (length == CELLS) return 0;
    if (!HAS_CHANCE || length < CELLS + 1 || length > CELLS + 1 + BYTES_OUTS_MAX) return -1;
    *pending = 1 + CELLS < width ? row[1 + CELLS] : 0;
    int nout = length - CELLS - 1;
    for (int i = 0; i < nout; i++) outs[i] = 2 + CELLS + i < width ? row[2 + CELLS + i] : 0;
    return nout;
}

/* A child's key row (zero-padded to out_width) and its length; -1 when a component does not
   fit in a byte (the Python tier then reports it) or the row would be wider than out_width. */
static int bytes_child(unsigned char *row, int out_width, const V *s, int pending,
                       const V *outs, int nout) {
    int length = pending < 0 ? CELLS : CELLS + 1 + nout;
    if (1 + length > out_width) return -1;
    memset(row, 0, (size_t)out_width);
    row[0] = (unsigned char)length;
    for (int i = 0; i < CELLS; i++) {
        if (s[i] < 0 || s[i] > 255) return -1;
        row[1 + i] = (unsigned char)s[i];
    }
    if (pending >= 0) {
        if (pending > 255) return -1;
        row[1 + CELLS] = (unsigned char)pending;
        for (int i = 0; i < nout; i++) {
            if (outs[i] < 0 || outs[i] > 255) return -1;
            row[2 + CELLS + i] = (unsigned char)outs[i];
        }
    }
    return 1 + length;
}

#if HAS_CHANCE
/* `action` played from `base` with the outcomes `outs[0..nout)`: either the effect finishes
   (the child state in t, the turn passed as game_apply passes it; returns 0) or it waits for
   another outcome (its distribution in dist; returns 1). */
static int bytes_play(const V *base, int action, const V *outs, int nout, V *t, Dist *dist) {
    memcpy(t, base, sizeof(V) * CELLS);
    V turn = -1;
    if (rule_effect_chance(t, action, &turn, outs, nout, dist)) return 1;
    V following = turn == -1 ? (base[0] + 1) % PLAYERS : turn;
    if (following < 0 || following >= PLAYERS) { gdl_err = 1; following = 0; }
    t[0] = following;
    game_settle(t);
    return 0;
}
#endif

/* ---- exported: expand positions given as byte keys ----
   rows[i * width ..] for i in [0, n). For each position: player[i] (a player, -1 chance, -2
   terminal), count[i], returns[i * PLAYERS ..] (zeros unless terminal); for each move, in the
   order of the legal actions (the distribution's order at chance), the child's key row
   (out[e * out_width ..], its length in child_length[e]), its tier (tier_of, as graph.c:
   declared for nplus < 0, else cells) and at chance its probability prob_n[e] / prob_d[e]
   (0 / 0 for a decision's move). Stops before a position whose moves would pass `capacity`;
   returns how many positions were expanded, or -1 after a rule error or a state the byte keys
   cannot hold (the caller then expands them in Python, which reports it). */
long long gdl_bytes_expand(const unsigned char *rows, long long n, int width, const int *cells,
                           int nplus, int nminus, signed char *player, long long *count,
                           V *returns, unsigned char *out, int out_width, long long capacity,
                           int *child_length, long long *child_tier, long long *prob_n,
                           long long *prob_d) {
    V s[CELLS], outs[BYTES_OUTS_MAX + 1];
    PADDED_STATE(t);
    int actions[ACTIONS];
    long long used = 0;
    gdl_err = 0;
    for (long long i = 0; i < n; i++) {
        int pending;
        int nout = bytes_state(rows + i * width, width, s, &pending, outs);
        if (nout < 0) return -1;
        V *r = returns + i * PLAYERS;
        for (int p = 0; p < PLAYERS; p++) r[p] = 0;
        count[i] = 0;
        if (pending < 0 && game_terminal(s)) {
            player[i] = TERMINAL_PLAYER;
            rule_returns(s, r);
            if (gdl_err) return -1;
            continue;
        }
#if HAS_CHANCE
        Dist dist, next;
        if (pending >= 0) {
            /* the distribution this chance position waits on: the effect replayed */
            if (!bytes_play(s, pending, outs, nout, t, &dist) || gdl_err) return -1;
            if (nout + 1 > BYTES_OUTS_MAX) return -1;
            if (used + dist.n > capacity) return i;
            player[i] = -1;
            for (int o = 0; o < dist.n; o++) {
                outs[nout] = dist.value[o];
                int waits = bytes_play(s, pending, outs, nout + 1, t, &next);
                if (gdl_err) return -1;
                long long e = used + o;
                int length = waits ? bytes_child(out + e * out_width, out_width, s, pending,
                                                 outs, nout + 1)
                                   : bytes_child(out + e * out_width, out_width, t, -1, outs, 0);
                if (length < 0) return -1;
                child_length[e] = length;
                child_tier[e] = tier_of(waits ? s : t, cells, nplus, nminus);
                prob_n[e] = dist.p[o].n;
                prob_d[e] = dist.p[o].d;
            }
            count[i] = dist.n;
            used += dist.n;
            if (gdl_err) return -1;
            POLL_STOP(i);
            if (gdl_err) return -1;
            continue;
        }
#endif
        if (pending >= 0) return -1;
        player[i] = (signed char)s[0];
        int moves = game_legal(s, actions);
        if (gdl_err) return -1;
        if (used + moves > capacity) return i;
        for (int a = 0; a < moves; a++) {
            long long e = used + a;
            int length;
#if HAS_CHANCE
            int waits = bytes_play(s, actions[a], outs, 0, t, &dist);
            if (gdl_err) return -1;
            length = waits ? bytes_child(out + e * out_width, out_width, s, actions[a], outs, 0)
                           : bytes_child(out + e * out_width, out_width, t, -1, outs, 0);
            child_tier[e] = tier_of(waits ? s : t, cells, nplus, nminus);
#else
            game_apply(s, actions[a], t);
            if (gdl_err) return -1;
            length = bytes_child(out + e * out_width, out_width, t, -1, outs, 0);
            child_tier[e] = tier_of(t, cells, nplus, nminus);
#endif
            if (length < 0) return -1;
            child_length[e] = length;
            prob_n[e] = 0;
            prob_d[e] = 0;
        }
        count[i] = moves;
        used += moves;
        POLL_STOP(i);
        if (gdl_err) return -1;
    }
    return n;
}

/* The widest key row a child can have: the state, the pending action and the outcomes. */
int gdl_bytes_width(void) { return HAS_CHANCE ? 2 + CELLS + BYTES_OUTS_MAX : 1 + CELLS; }

/* ---- exported: rows of 64-bit words told apart, in order of first use ----
   rows[i * width ..] for i in [0, n): group[i] is the number of row i's first equal row among
   the distinct rows in order of first use, first[g] that row's index. Returns the number of
   distinct rows, or -3 when memory ran out. (A value table of floats, their bits: the caller
   makes -0.0 0.0 first.) An open-addressing hash set of row indices. */
long long gdl_first_use_rows(const uint64_t *rows, long long n, int width, long long *group,
                             long long *first) {
    uint64_t size = 16;
    while (size < (uint64_t)n * 2) size *= 2;
    long long *slot = malloc(sizeof(long long) * size);
    if (!slot) return -3;
    for (uint64_t j = 0; j < size; j++) slot[j] = -1;
    long long count = 0;
    for (long long i = 0; i < n; i++) {
        const uint64_t *row = rows + i * width;
        uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (int w = 0; w < width; w++) h = mix_key(h ^ row[w]);
        uint64_t j = h & (size - 1);
        while (slot[j] >= 0 && memcmp(rows + slot[j] * width, row, sizeof(uint64_t) * (size_t)width))
            j = (j + 1) & (size - 1);
        if (slot[j] < 0) {
            slot[j] = i;
            first[count] = i;
            group[i] = count++;
        } else group[i] = group[slot[j]];
    }
    free(slot);
    return count;
}

#if HAS_CHANCE
/* ---- 2. a tier with chance and cycles, piece by piece ----
   The tier's arrays (gdl.graph.chance_tiers.LocalTier): positions 0..n-1 of the tier, then
   stand-ins n..size-1 (terminals carrying a later tier's interval); player[] (a player, -1
   chance, -2 terminal), the moves first[] / child[], each move's probability weight[] (0 for
   a decision's), a terminal's bounds low[] / high[]. */

#define MAX_CUT_SOLVE 8        /* cut positions a piece may have for the fast way, at most */

static inline double magnitude(double x) { return x < 0 ? -x : x; }

/* Weakly connected components of the tier's positions over the moves inside it (child < n),
   each named by its smallest position (label[]), and each position's breadth-first distance
   inside its component (level[]) from the component's smallest position; positions that one
   does not reach start again from the smallest of them, as often as needed. The same numbers
   as gdl.graph.order.weak_components and chance_tiers._distances. Returns 0, or -3 when memory
   ran out. */
int gdl_chance_layout(long long n, const long long *first, const long long *child,
                      long long *label, long long *level) {
    long long *by = malloc(sizeof(long long) * (size_t)(n + 1));
    long long *queue = malloc(sizeof(long long) * (size_t)(n + 1));
    long long *start = malloc(sizeof(long long) * (size_t)(n + 2));
    if (!by || !queue || !start) { free(by); free(queue); free(start); return -3; }
    /* union-find, every root the smallest position of its set */
    for (long long p = 0; p < n; p++) label[p] = p;
    for (long long p = 0; p < n; p++) {
        for (long long e = first[p]; e < first[p + 1]; e++) {
            long long c = child[e];
            if (c < 0 || c >= n) continue;
            long long a = p, b = c;
            while (label[a] != a) { label[a] = label[label[a]]; a = label[a]; }
            while (label[b] != b) { label[b] = label[label[b]]; b = label[b]; }
            if (a < b) label[b] = a; else if (b < a) label[a] = b;
        }
    }
    for (long long p = 0; p < n; p++) {
        long long a = p;
        while (label[a] != a) a = label[a];
        label[p] = a;
    }
    /* the positions of each component, ascending (a counting sort by label) */
    for (long long p = 0; p <= n + 1; p++) start[p] = 0;
    for (long long p = 0; p < n; p++) start[label[p] + 2]++;
    for (long long p = 2; p <= n + 1; p++) start[p] += start[p - 1];
    for (long long p = 0; p < n; p++) by[start[label[p] + 1]++] = p;
    for (long long p = 0; p < n; p++) level[p] = -1;
    for (long long root = 0; root < n; root++) {
        if (label[root] != root) continue;
        /* members by[start[root] .. start[root + 1]) hold this component (start shifted by one) */
        long long a = root == 0 ? 0 : start[root], b = start[root + 1];
        for (long long k = a; k < b; k++) {
            long long from = by[k];
            if (level[from] >= 0) continue;
            long long head = 0, tail = 0;
            queue[tail++] = from;
            level[from] = 0;
            while (head < tail) {
                long long v = queue[head++];
                for (long long e = first[v]; e < first[v + 1]; e++) {
                    long long c = child[e];
                    if (c < 0 || c >= n || level[c] >= 0) continue;
                    level[c] = level[v] + 1;
                    queue[tail++] = c;
                }
            }
        }
    }
    free(by); free(queue); free(start);
    return 0;
}

/* 1 when the graph of positions 0..size-1 has a cycle, 0 when not, -3 when memory ran out
   (Kahn's algorithm: a position is done once all its children are). */
int gdl_chance_has_cycle(long long size, const long long *first, const long long *child) {
    long long *left = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *into = malloc(sizeof(long long) * (size_t)(size + 2));
    long long *edge = malloc(sizeof(long long) * (size_t)(first[size] + 1));
    long long *queue = malloc(sizeof(long long) * (size_t)(size + 1));
    int status = 0;
    if (!left || !into || !edge || !queue) { status = -3; goto out; }
    for (long long p = 0; p <= size + 1; p++) into[p] = 0;
    for (long long e = 0; e < first[size]; e++) into[child[e] + 2]++;
    for (long long p = 2; p <= size + 1; p++) into[p] += into[p - 1];
    long long head = 0, tail = 0;
    for (long long p = 0; p < size; p++) {
        left[p] = first[p + 1] - first[p];
        if (!left[p]) queue[tail++] = p;
        for (long long e = first[p]; e < first[p + 1]; e++) edge[into[child[e] + 1]++] = p;
    }
    while (head < tail) {
        long long c = queue[head++];
        for (long long k = into[c]; k < into[c + 1]; k++)
            if (--left[edge[k]] == 0) queue[tail++] = edge[k];
    }
    status = tail < size;
out:
    free(left); free(into); free(edge); free(queue);
    return status;
}

/* How many positions of 0..size-1 the players together can keep the play going for ever
   from (gdl.graph.iteration.endless_positions): those never reached by the growth back from
   the terminals, in which a chance position joins once one of its moves leads in, any other
   once all of its moves do. -3 when memory ran out. */
long long gdl_chance_endless(long long size, const signed char *player, const long long *first,
                             const long long *child) {
    long long *left = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *into = malloc(sizeof(long long) * (size_t)(size + 2));
    long long *edge = malloc(sizeof(long long) * (size_t)(first[size] + 1));
    long long *queue = malloc(sizeof(long long) * (size_t)(size + 1));
    long long status = 0;
    if (!left || !into || !edge || !queue) { status = -3; goto out; }
    for (long long p = 0; p <= size + 1; p++) into[p] = 0;
    for (long long e = 0; e < first[size]; e++) into[child[e] + 2]++;
    for (long long p = 2; p <= size + 1; p++) into[p] += into[p - 1];
    long long head = 0, tail = 0;
    for (long long p = 0; p < size; p++) {
        left[p] = player[p] == -1 ? 1 : first[p + 1] - first[p];
        if (player[p] == TERMINAL_PLAYER) { left[p] = 0; queue[tail++] = p; }
        for (long long e = first[p]; e < first[p + 1]; e++) edge[into[child[e] + 1]++] = p;
    }
    while (head < tail) {
        long long c = queue[head++];
        for (long long k = into[c]; k < into[c + 1]; k++) {
            long long p = edge[k];
            if (left[p] > 0 && --left[p] == 0) queue[tail++] = p;
        }
    }
    status = size - tail;
out:
    free(left); free(into); free(edge); free(queue);
    return status;
}

/* What a piece's solve needs, allocated once for the largest piece. */
typedef struct {
    long long size, members;   /* the tier's positions and stand-ins; this piece's positions */
    const signed char *player;
    const long long *first, *child;
    const double *weight, *low, *high;
    double floor, ceiling, margin;
    long long *local;          /* per tier position: its index in the piece, or -1 */
    const long long *member;   /* the piece's positions, ascending */
    double *lo, *hi;           /* per member: the bounds being computed */
    long long *topo, ntopo;    /* the members other than the cut, children first */
    long long *cut, ncut;
    long long *policy;         /* per member: the move chosen (an offset into its moves) */
    double *form;              /* per member: 1 + ncut coefficients (constant, then the cut's) */
    double *value;             /* per member: the policy's values */
    long long *remaining, *queue, *into, *edge;   /* scratch */
} Piece;

static inline double clip(double x, double low, double high) {
    return x < low ? low : x > high ? high : x;
}

/* A child's bounds: the piece's current ones, or a terminal's (a stand-in, or a terminal of
   the tier outside the piece). */
static inline double child_lo(const Piece *q, long long c) {
    long long k = q->local[c];
    return k >= 0 ? q->lo[k] : q->low[c];
}
static inline double child_hi(const Piece *q, long long c) {
    long long k = q->local[c];
    return k >= 0 ? q->hi[k] : q->high[c];
}

/* One Bellman update of member k from the current bounds, rounded outwards: a chance mean
   pushed down (up) by more than its rounding error, a decision's max (min) exact; both kept
   within the least and greatest end. The order of the sums is fixed (the moves' order). */
static void piece_update(const Piece *q, long long k, double *new_lo, double *new_hi) {
    long long p = q->member[k];
    signed char who = q->player[p];
    double a = 0.0, b = 0.0;
    if (who == -1) {
        for (long long e = q->first[p]; e < q->first[p + 1]; e++) {
            a += q->weight[e] * child_lo(q, q->child[e]);
            b += q->weight[e] * child_hi(q, q->child[e]);
        }
        a -= q->margin;
        b += q->margin;
    } else {
        for (long long e = q->first[p]; e < q->first[p + 1]; e++) {
            double x = child_lo(q, q->child[e]), y = child_hi(q, q->child[e]);
            if (e == q->first[p]) { a = x; b = y; }
            else if (who == 1) { if (x < a) a = x; if (y < b) b = y; }
            else { if (x > a) a = x; if (y > b) b = y; }
        }
    }
    *new_lo = clip(a, q->floor, q->ceiling);
    *new_hi = clip(b, q->floor, q->ceiling);
}

/* The members other than the cut in an order children first, over the moves inside the
   piece; 0, or 1 when some cycle avoids the cut (then the fast way does not apply). */
static int piece_order(Piece *q, const signed char *is_cut) {
    long long m = q->members;
    for (long long k = 0; k <= m + 1; k++) q->into[k] = 0;
    /* moves between movers of the piece that are not cut: a counter per position */
    for (long long k = 0; k < m; k++) {
        long long p = q->member[k];
        q->remaining[k] = 0;
        if (q->player[p] == TERMINAL_PLAYER || is_cut[k]) continue;
        for (long long e = q->first[p]; e < q->first[p + 1]; e++) {
            long long c = q->local[q->child[e]];
            if (c < 0 || is_cut[c] || q->player[q->member[c]] == TERMINAL_PLAYER) continue;
            q->remaining[k]++;
            q->into[c + 2]++;
        }
    }
    for (long long k = 2; k <= m + 1; k++) q->into[k] += q->into[k - 1];
    for (long long k = 0; k < m; k++) {
        long long p = q->member[k];
        if (q->player[p] == TERMINAL_PLAYER || is_cut[k]) continue;
        for (long long e = q->first[p]; e < q->first[p + 1]; e++) {
            long long c = q->local[q->child[e]];
            if (c < 0 || is_cut[c] || q->player[q->member[c]] == TERMINAL_PLAYER) continue;
            q->edge[q->into[c + 1]++] = k;
        }
    }
    long long head = 0, tail = 0, movers = 0;
    for (long long k = 0; k < m; k++) {
        if (q->player[q->member[k]] == TERMINAL_PLAYER || is_cut[k]) continue;
        movers++;
        if (!q->remaining[k]) q->queue[tail++] = k;
    }
    while (head < tail) {
        long long c = q->queue[head++];
        q->topo[q->ntopo++] = c;
        for (long long j = q->into[c]; j < q->into[c + 1]; j++)
            if (--q->remaining[q->edge[j]] == 0) q->queue[tail++] = q->edge[j];
    }
    return q->ntopo < movers;
}

/* A member's affine form under the policy (a chance mean, or the chosen move's form), from
   the forms of its children; a child outside the piece is a constant (its bounds' middle). */
static void form_update(const Piece *q, long long k, double *out) {
    long long p = q->member[k], width = 1 + q->ncut;
    for (long long j = 0; j < width; j++) out[j] = 0.0;
    long long e0 = q->first[p], e1 = q->first[p + 1];
    if (q->player[p] != -1) { e0 += q->policy[k]; e1 = e0 + 1; }
    for (long long e = e0; e < e1; e++) {
        double w = q->player[p] == -1 ? q->weight[e] : 1.0;
        long long c = q->child[e], l = q->local[c];
        if (l >= 0 && q->player[c] != TERMINAL_PLAYER) {
            for (long long j = 0; j < width; j++) out[j] += w * q->form[l * width + j];
        } else {
            out[0] += w * (q->low[c] + q->high[c]) / 2;
        }
    }
}

/* Solve (I - A) x = b for the cut's values, A and b from the cut's forms (rows of `rows`:
   constant then coefficients), by Gaussian elimination with partial pivoting. 0, or 1 when
   the matrix is singular (a policy that never ends). */
static int cut_solve(long long k, const double *rows, double *x) {
    double a[MAX_CUT_SOLVE][MAX_CUT_SOLVE + 1];
    for (long long i = 0; i < k; i++) {
        for (long long j = 0; j < k; j++) a[i][j] = (i == j ? 1.0 : 0.0) - rows[i * (k + 1) + 1 + j];
        a[i][k] = rows[i * (k + 1)];
    }
    for (long long c = 0; c < k; c++) {
        long long pivot = c;
        for (long long r = c + 1; r < k; r++) if (magnitude(a[r][c]) > magnitude(a[pivot][c])) pivot = r;
        if (a[pivot][c] == 0.0 || a[pivot][c] != a[pivot][c]) return 1;
        if (pivot != c)
            for (long long j = 0; j <= k; j++) { double t = a[c][j]; a[c][j] = a[pivot][j]; a[pivot][j] = t; }
        for (long long r = c + 1; r < k; r++) {
            double f = a[r][c] / a[c][c];
            for (long long j = c; j <= k; j++) a[r][j] -= f * a[c][j];
        }
    }
    for (long long i = k - 1; i >= 0; i--) {
        double sum = a[i][k];
        for (long long j = i + 1; j < k; j++) sum -= a[i][j] * x[j];
        x[i] = sum / a[i][i];
    }
    return 0;
}

/* Switch each decision to its best move where that beats the current one by more than
   rounding noise (the first move reaching the best value); 1 if any changed. */
static int piece_improve(Piece *q, const long long *which, long long count) {
    int changed = 0;
    for (long long i = 0; i < count; i++) {
        long long k = which[i], p = q->member[k];
        if (q->player[p] < 0) continue;
        double sign = q->player[p] == 1 ? -1.0 : 1.0;
        long long e0 = q->first[p], moves = q->first[p + 1] - e0;
        double best = 0.0;
        for (long long j = 0; j < moves; j++) {
            long long c = q->child[e0 + j], l = q->local[c];
            double v = sign * (l >= 0 && q->player[c] != TERMINAL_PLAYER ? q->value[l]
                               : (q->low[c] + q->high[c]) / 2);
            if (j == 0 || v > best) best = v;
        }
        long long c = q->child[e0 + q->policy[k]], l = q->local[c];
        double current = sign * (l >= 0 && q->player[c] != TERMINAL_PLAYER ? q->value[l]
                                 : (q->low[c] + q->high[c]) / 2);
        if (best > current + 1e-12) {
            for (long long j = 0; j < moves; j++) {
                long long d = q->child[e0 + j], m = q->local[d];
                double v = sign * (m >= 0 && q->player[d] != TERMINAL_PLAYER ? q->value[m]
                                   : (q->low[d] + q->high[d]) / 2);
                if (v >= best) { q->policy[k] = j; break; }
            }
            changed = 1;
        }
    }
    return changed;
}

/* Policy iteration in floats over the cut: the policy's values in q->value. Returns 0, or 1
   when not even the first policy's system could be solved (q->value then holds the starting
   values: the members' bounds' middles). */
static int piece_policy(Piece *q, int rounds) {
    long long width = 1 + q->ncut;
    double rows[MAX_CUT_SOLVE * (MAX_CUT_SOLVE + 1)], x[MAX_CUT_SOLVE];
    for (long long k = 0; k < q->members; k++) q->policy[k] = 0;
    for (long long k = 0; k < q->members; k++) {
        long long p = q->member[k];
        q->value[k] = (q->low[p] + q->high[p]) / 2;   /* a terminal's stays its middle */
    }
    for (int round = 0; round < rounds; round++) {
        for (long long j = 0; j < q->ncut; j++) {
            double *f = q->form + q->cut[j] * width;
            for (long long i = 0; i < width; i++) f[i] = 0.0;
            f[1 + j] = 1.0;
        }
        for (long long i = 0; i < q->ntopo; i++)
            form_update(q, q->topo[i], q->form + q->topo[i] * width);
        for (long long j = 0; j < q->ncut; j++) form_update(q, q->cut[j], rows + j * width);
        if (cut_solve(q->ncut, rows, x)) return round == 0;   /* left to the certificate */
        for (long long i = 0; i < q->ntopo + q->ncut; i++) {
            long long k = i < q->ntopo ? q->topo[i] : q->cut[i - q->ntopo];
            const double *f = q->form + k * width;
            double v = f[0];
            for (long long j = 0; j < q->ncut; j++) v += f[1 + j] * x[j];
            q->value[k] = v;
        }
        int changed = piece_improve(q, q->topo, q->ntopo);
        changed |= piece_improve(q, q->cut, q->ncut);
        if (!changed) break;
    }
    return 0;
}

/* One sweep children first from the cut's bounds; the cut's updates in new_lo / new_hi (not
   written). */
static void piece_sweep(Piece *q, double *new_lo, double *new_hi) {
    for (long long i = 0; i < q->ntopo; i++) {
        long long k = q->topo[i];
        piece_update(q, k, q->lo + k, q->hi + k);
    }
    for (long long j = 0; j < q->ncut; j++) piece_update(q, q->cut[j], new_lo + j, new_hi + j);
}

/* The fast way: the certificate from the policy's values. Returns the sweeps taken, or -1
   when the certificate failed every round (the bounds are then not set). */
static long long piece_certify(Piece *q, int rounds, double widen, int tighten) {
    double new_lo[MAX_CUT_SOLVE], new_hi[MAX_CUT_SOLVE];
    double scale = magnitude(q->floor) > magnitude(q->ceiling) ? magnitude(q->floor) : magnitude(q->ceiling);
    if (scale < 1.0) scale = 1.0;
    double delta = scale * 0x1p-44;
    long long sweeps = 0;
    int passed = 0;
    for (int round = 0; round < rounds && !passed; round++) {
        for (long long j = 0; j < q->ncut; j++) {
            long long k = q->cut[j];
            q->lo[k] = clip(q->value[k] - delta, q->floor, q->ceiling);
            q->hi[k] = clip(q->value[k] + delta, q->floor, q->ceiling);
        }
        piece_sweep(q, new_lo, new_hi);
        sweeps++;
        passed = 1;
        for (long long j = 0; j < q->ncut; j++) {
            long long k = q->cut[j];
            if (!(new_lo[j] >= q->lo[k] && new_hi[j] <= q->hi[k])) passed = 0;
        }
        if (!passed) delta *= widen;
    }
    if (!passed) return -1;
    /* a sub-solution's update is one too, and tighter: the cut takes it, then more sweeps */
    for (int round = 0; ; round++) {
        for (long long j = 0; j < q->ncut; j++) {
            long long k = q->cut[j];
            q->lo[k] = new_lo[j];
            q->hi[k] = new_hi[j];
        }
        if (round == tighten) break;
        piece_sweep(q, new_lo, new_hi);
        sweeps++;
    }
    return sweeps;
}

/* Plain iteration: every mover from the least (greatest) end, the deepest level first, each
   update written at once, until no bound moves more than `tolerance`; the sweeps taken. */
static long long piece_plain(Piece *q, const long long *level, double tolerance,
                             long long max_sweeps) {
    long long m = q->members, count = 0;
    for (long long k = 0; k < m; k++) {
        long long p = q->member[k];
        if (q->player[p] == TERMINAL_PLAYER) continue;
        q->lo[k] = q->floor;
        q->hi[k] = q->ceiling;
        q->topo[count++] = k;
    }
    /* deepest level first, then by position (an insertion sort on a piece: small) */
    for (long long i = 1; i < count; i++) {
        long long k = q->topo[i], j = i;
        long long d = level[q->member[k]];
        while (j > 0) {
            long long before = q->topo[j - 1];
            long long e = level[q->member[before]];
            if (e > d || (e == d && before < k)) break;
            q->topo[j] = before;
            j--;
        }
        q->topo[j] = k;
    }
    long long sweeps = 0;
    double change;
    do {
        change = 0.0;
        for (long long i = 0; i < count; i++) {
            long long k = q->topo[i];
            double a, b;
            piece_update(q, k, &a, &b);
            double moved = magnitude(a - q->lo[k]);
            if (magnitude(b - q->hi[k]) > moved) moved = magnitude(b - q->hi[k]);
            if (moved > change) change = moved;
            q->lo[k] = a;
            q->hi[k] = b;
        }
        sweeps++;
        if ((sweeps & 63) == 0 && gdl_stop_flag) return -4;
    } while (change > tolerance && sweeps < max_sweeps);
    return sweeps;
}

/* ---- exported: certified bounds of the pieces [start, stop) of a tier ----
   Piece c is order[piece_first[c] .. piece_first[c + 1]) (ascending positions); level[] as
   gdl_chance_layout gives it. For each member position p: low_out[p], high_out[p]; for each
   piece, sweeps[c - start] and fast[c - start] (1: the policy and certificate, 0: plain
   iteration). For a piece that took the fast way, the order its exact check may follow:
   sequence[piece_first[c] - piece_first[start] ..] holds its movers other than the cut,
   children first (tops[c - start] of them), then its cut positions (cuts[c - start]); both
   counts are 0 for the others. Returns 0, -2 when a move of a piece leads to a non-terminal
   position outside it, -3 when memory ran out, -4 when stopped. */
int gdl_chance_pieces(long long size, const signed char *player, const long long *first,
                      const long long *child, const double *weight, const double *low,
                      const double *high, const long long *level, const long long *order,
                      const long long *piece_first, long long start, long long stop,
                      double floor, double ceiling, double margin, int max_cut, int policy_rounds,
                      int certify_rounds, double widen, int tighten, double tolerance,
                      long long max_sweeps, double *low_out, double *high_out,
                      long long *sweeps_out, signed char *fast_out, long long *sequence,
                      long long *tops, long long *cuts) {
    Piece q;
    memset(&q, 0, sizeof q);
    q.size = size; q.player = player; q.first = first; q.child = child; q.weight = weight;
    q.low = low; q.high = high; q.floor = floor; q.ceiling = ceiling; q.margin = margin;
    if (max_cut > MAX_CUT_SOLVE) max_cut = MAX_CUT_SOLVE;
    long long largest = 1;
    for (long long c = start; c < stop; c++)
        if (piece_first[c + 1] - piece_first[c] > largest) largest = piece_first[c + 1] - piece_first[c];
    long long edges = 1;
    for (long long c = start; c < stop; c++) {
        long long here = 0;
        for (long long i = piece_first[c]; i < piece_first[c + 1]; i++)
            here += first[order[i] + 1] - first[order[i]];
        if (here > edges) edges = here;
    }
    size_t m = (size_t)largest;
    q.local = malloc(sizeof(long long) * (size_t)size);
    q.lo = malloc(sizeof(double) * m); q.hi = malloc(sizeof(double) * m);
    q.topo = malloc(sizeof(long long) * m); q.cut = malloc(sizeof(long long) * m);
    q.policy = malloc(sizeof(long long) * m);
    q.form = malloc(sizeof(double) * m * (MAX_CUT_SOLVE + 1));
    q.value = malloc(sizeof(double) * m);
    q.remaining = malloc(sizeof(long long) * m); q.queue = malloc(sizeof(long long) * m);
    q.into = malloc(sizeof(long long) * (m + 2)); q.edge = malloc(sizeof(long long) * (size_t)edges);
    signed char *is_cut = malloc(m);
    int status = 0;
    if (!q.local || !q.lo || !q.hi || !q.topo || !q.cut || !q.policy || !q.form || !q.value
        || !q.remaining || !q.queue || !q.into || !q.edge || !is_cut) { status = -3; goto out; }
    for (long long p = 0; p < size; p++) q.local[p] = -1;
    for (long long c = start; c < stop && status == 0; c++) {
        q.member = order + piece_first[c];
        q.members = piece_first[c + 1] - piece_first[c];
        for (long long k = 0; k < q.members; k++) q.local[q.member[k]] = k;
        /* a move leaving the piece must reach a terminal (a stand-in, or the tier's own) */
        for (long long k = 0; k < q.members && status == 0; k++) {
            long long p = q.member[k];
            for (long long e = first[p]; e < first[p + 1]; e++)
                if (q.local[child[e]] < 0 && player[child[e]] != TERMINAL_PLAYER) { status = -2; break; }
        }
        if (status) break;
        q.ncut = 0;
        q.ntopo = 0;
        for (long long k = 0; k < q.members; k++) {
            long long p = q.member[k];
            is_cut[k] = player[p] != TERMINAL_PLAYER && level[p] == 0;
            if (is_cut[k]) q.cut[q.ncut++] = k;
            q.lo[k] = low[p];          /* a terminal member keeps its bounds */
            q.hi[k] = high[p];
        }
        long long sweeps = -1;
        int fast = 0;
        if (q.ncut >= 1 && q.ncut <= max_cut && !piece_order(&q, is_cut)) {
            piece_policy(&q, policy_rounds);
            sweeps = piece_certify(&q, certify_rounds, widen, tighten);
            fast = sweeps >= 0;
        }
        if (!fast) {
            for (long long k = 0; k < q.members; k++) { q.lo[k] = low[q.member[k]]; q.hi[k] = high[q.member[k]]; }
            sweeps = piece_plain(&q, level, tolerance, max_sweeps);
            if (sweeps == -4) status = -4;
        }
        for (long long k = 0; k < q.members; k++) {
            low_out[q.member[k]] = q.lo[k];
            high_out[q.member[k]] = q.hi[k];
        }
        sweeps_out[c - start] = sweeps;
        fast_out[c - start] = (signed char)fast;
        tops[c - start] = cuts[c - start] = 0;
        if (fast) {
            long long *out_sequence = sequence + (piece_first[c] - piece_first[start]);
            for (long long i = 0; i < q.ntopo; i++) out_sequence[i] = q.member[q.topo[i]];
            for (long long j = 0; j < q.ncut; j++) out_sequence[q.ntopo + j] = q.member[q.cut[j]];
            tops[c - start] = q.ntopo;
            cuts[c - start] = q.ncut;
        }
        for (long long k = 0; k < q.members; k++) q.local[q.member[k]] = -1;
    }
out:
    free(q.local); free(q.lo); free(q.hi); free(q.topo); free(q.cut); free(q.policy);
    free(q.form); free(q.value); free(q.remaining); free(q.queue); free(q.into); free(q.edge);
    free(is_cut);
    return status;
}
/* ---- 3. a whole position graph with chance and cycles (gdl.graph.iteration) ----
   The one-graph solve of a stopping game values every position exactly (policy iteration in
   exact arithmetic, in Python); what it needs from here is a good first policy and an order to
   evaluate it in. gdl_chance_graph_guess gives both, component by component:

   - the strongly connected components (Tarjan's algorithm, iteratively), which come out sinks
     first: every move out of a component leads to one already valued;
   - in each, a *cut*: the targets of the back edges of a depth-first search inside the
     component from its first position found (Tarjan's root), so that every cycle of the
     component passes through the cut (in Pig the search enters a pair of banked scores at a
     turn start, which every cycle of the pair passes through: a cut of one);
   - the other positions children first over the moves inside the component (piece_order),
     and float policy iteration over the cut's values (piece_policy, as for a tier's piece);
     a component whose cut has more than `max_cut` positions, or whose first policy's system
     is singular, is iterated plainly instead (Gauss-Seidel in the search's post-order, until
     no value moves more than `tolerance`). */

/* A Gauss-Seidel sweep over `count` positions of `order` (positions), in place; the largest
   change. */
static double graph_sweep(const signed char *player, const long long *first, const long long *child,
                          const double *weight, double *value, const long long *order,
                          long long count) {
    double change = 0.0;
    for (long long i = 0; i < count; i++) {
        long long p = order[i];
        double v = 0.0;
        if (player[p] == -1) {
            for (long long e = first[p]; e < first[p + 1]; e++) v += weight[e] * value[child[e]];
        } else {
            for (long long e = first[p]; e < first[p + 1]; e++) {
                double x = value[child[e]];
                if (e == first[p] || (player[p] == 1 ? x < v : x > v)) v = x;
            }
        }
        double moved = magnitude(v - value[p]);
        if (moved > change) change = moved;
        value[p] = v;
    }
    return change;
}

/* Every position's value guessed (a float: player 0's centred value; `value` holds the
   terminals' on entry, and is written everywhere else), and the order for the exact check:
   the non-terminal positions component by component, sinks first, in `sequence`, component c
   at sequence[component_first[c] .. component_first[c + 1]); there, when cuts[c] >= 0, its
   positions other than the cut children first, then its cuts[c] cut positions; when cuts[c]
   is -1 (iterated plainly), its positions in no particular order. *components is set to the
   number of components. Returns 0, -3 when memory ran out, -4 when stopped. */
int gdl_chance_graph_guess(long long size, const signed char *player, const long long *first,
                           const long long *child, const double *weight, double *value,
                           int max_cut, int policy_rounds, double tolerance,
                           long long max_sweeps, long long *sequence, long long *component_first,
                           long long *cuts, long long *components) {
    long long *index = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *lowlink = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *next = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *call = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *stack = malloc(sizeof(long long) * (size_t)(size + 1));
    long long *root = malloc(sizeof(long long) * (size_t)(size + 1));
    signed char *on = malloc((size_t)(size + 1));
    Piece q;
    memset(&q, 0, sizeof q);
    signed char *is_cut = NULL, *state = NULL;
    long long *post = NULL, *path = NULL, *path_next = NULL;
    int status = 0;
    long long count = 0;                        /* components written */
    if (!index || !lowlink || !next || !call || !stack || !root || !on) { status = -3; goto out; }
    if (max_cut > MAX_CUT_SOLVE) max_cut = MAX_CUT_SOLVE;
    /* 1. the components, sinks first (Tarjan), each's positions in `sequence` */
    long long counter = 0, depth = 0, top = 0, written = 0;
    component_first[0] = 0;
    for (long long p = 0; p < size; p++) { index[p] = -1; on[p] = 0; }
    for (long long s = 0; s < size; s++) {
        if (index[s] >= 0) continue;
        index[s] = lowlink[s] = counter++;
        stack[top++] = s; on[s] = 1; next[s] = first[s]; call[depth++] = s;
        while (depth > 0) {
            long long v = call[depth - 1];
            if (next[v] < first[v + 1]) {
                long long w = child[next[v]++];
                if (index[w] < 0) {
                    index[w] = lowlink[w] = counter++;
                    stack[top++] = w; on[w] = 1; next[w] = first[w]; call[depth++] = w;
                } else if (on[w] && index[w] < lowlink[v]) {
                    lowlink[v] = index[w];
                }
                continue;
            }
            depth--;
            if (depth > 0 && lowlink[v] < lowlink[call[depth - 1]])
                lowlink[call[depth - 1]] = lowlink[v];
            if (lowlink[v] != index[v]) continue;
            if (stack[top - 1] == v && player[v] == TERMINAL_PLAYER) {   /* a terminal: known */
                on[v] = 0; top--;
                continue;
            }
            long long w;
            do {
                w = stack[--top];
                on[w] = 0;
                sequence[written++] = w;
            } while (w != v);
            root[count] = v;
            component_first[++count] = written;
        }
        if (gdl_stop_flag) { status = -4; goto out; }
    }
    *components = count;
    /* 2. each component valued, sinks first */
    long long largest = 1, edges = 1;
    for (long long c = 0; c < count; c++) {
        long long m = component_first[c + 1] - component_first[c], here = 0;
        if (m > largest) largest = m;
        for (long long i = component_first[c]; i < component_first[c + 1]; i++)
            here += first[sequence[i] + 1] - first[sequence[i]];
        if (here > edges) edges = here;
    }
    size_t m = (size_t)largest;
    q.size = size; q.player = player; q.first = first; q.child = child; q.weight = weight;
    q.low = value; q.high = value;            /* a child outside the component: its value */
    q.local = index;                          /* reused: -1 outside the component */
    long long *member = malloc(sizeof(long long) * m);
    q.member = member;
    q.topo = malloc(sizeof(long long) * m); q.cut = malloc(sizeof(long long) * m);
    q.policy = malloc(sizeof(long long) * m);
    q.form = malloc(sizeof(double) * m * (MAX_CUT_SOLVE + 1));
    q.value = malloc(sizeof(double) * m);
    q.remaining = malloc(sizeof(long long) * m); q.queue = malloc(sizeof(long long) * m);
    q.into = malloc(sizeof(long long) * (m + 2)); q.edge = malloc(sizeof(long long) * (size_t)edges);
    is_cut = malloc(m); state = malloc(m);
    post = malloc(sizeof(long long) * m); path = malloc(sizeof(long long) * m);
    path_next = malloc(sizeof(long long) * m);
    if (!member || !q.topo || !q.cut || !q.policy || !q.form || !q.value || !q.remaining
        || !q.queue || !q.into || !q.edge || !is_cut || !state || !post || !path || !path_next) {
        free(member); status = -3; goto out;
    }
    for (long long p = 0; p < size; p++) {
        index[p] = -1;
        if (player[p] != TERMINAL_PLAYER) value[p] = 0.0;
    }
    for (long long c = 0; c < count && status == 0; c++) {
        long long *mine = sequence + component_first[c];
        long long members = component_first[c + 1] - component_first[c];
        /* the root first: the search inside the component starts there */
        long long at = 0;
        for (long long k = 0; k < members; k++) {
            member[k] = mine[k];
            if (mine[k] == root[c]) at = k;
        }
        member[at] = member[0];
        member[0] = root[c];
        q.members = members;
        for (long long k = 0; k < members; k++) { index[member[k]] = k; is_cut[k] = 0; state[k] = 0; }
        /* a depth-first search inside the component: back edges' targets are the cut */
        long long ncut = 0, npost = 0, height = 0;
        path[height] = 0; path_next[height++] = first[member[0]]; state[0] = 1;
        while (height > 0) {
            long long k = path[height - 1], p = member[k];
            if (path_next[height - 1] < first[p + 1]) {
                long long j = index[child[path_next[height - 1]++]];
                if (j < 0) continue;
                if (state[j] == 0) {
                    state[j] = 1;
                    path[height] = j; path_next[height++] = first[member[j]];
                } else if (state[j] == 1 && !is_cut[j]) {
                    is_cut[j] = 1;
                    q.cut[ncut++] = j;
                }
                continue;
            }
            state[k] = 2;
            post[npost++] = k;
            height--;
        }
        int fast = 0;
        q.ncut = ncut;
        q.ntopo = 0;
        if (ncut <= max_cut && !piece_order(&q, is_cut) && !piece_policy(&q, policy_rounds)) {
            fast = 1;
            for (long long k = 0; k < members; k++) value[member[k]] = q.value[k];
            for (long long i = 0; i < q.ntopo; i++) mine[i] = member[q.topo[i]];
            for (long long j = 0; j < ncut; j++) mine[q.ntopo + j] = member[q.cut[j]];
            cuts[c] = ncut;
        }
        if (!fast) {
            for (long long i = 0; i < npost; i++) mine[i] = member[post[i]];
            long long sweeps = 0;
            while (graph_sweep(player, first, child, weight, value, mine, members) > tolerance
                   && ++sweeps < max_sweeps)
                if ((sweeps & 63) == 0 && gdl_stop_flag) { status = -4; break; }
            cuts[c] = -1;
        }
        for (long long k = 0; k < members; k++) index[member[k]] = -1;
        if ((c & 255) == 0 && gdl_stop_flag) status = -4;
    }
    free(member);
out:
    free(index); free(lowlink); free(next); free(call); free(stack); free(root); free(on);
    free(q.topo); free(q.cut); free(q.policy); free(q.form); free(q.value); free(q.remaining);
    free(q.queue); free(q.into); free(q.edge); free(is_cut); free(state); free(post);
    free(path); free(path_next);
    return status;
}
#endif
