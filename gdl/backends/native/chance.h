/* gdl's native chance: exact rationals and the distribution of a `random` statement
   (gdl/backends/native/chance.h, emitted only for games with chance).
   A value is a reduced fraction of two int64s, computed through 128 bits and reduced; a result
   that does not fit (or a zero denominator) sets gdl_err, and the caller then runs the search in
   Python, which is exact with Fraction. So a native chance value is exact or there is none. */

typedef struct { V n, d; } Q;          /* d > 0 and gcd(|n|, d) == 1 */

static inline unsigned __int128 q_gcd(unsigned __int128 a, unsigned __int128 b) {
    /* Binary gcd in 64 bits where both fit (nearly always): no 128-bit division. */
    if ((a >> 64) == 0 && (b >> 64) == 0) {
        uint64_t x = (uint64_t)a, y = (uint64_t)b;
        if (x == 0) return y;
        if (y == 0) return x;
        int shift = __builtin_ctzll(x | y);
        x >>= __builtin_ctzll(x);
        do {
            y >>= __builtin_ctzll(y);
            if (x > y) { uint64_t t = x; x = y; y = t; }
            y -= x;
        } while (y != 0);
        return (unsigned __int128)(x << shift);
    }
    while (b != 0) { unsigned __int128 t = a % b; a = b; b = t; }
    return a;
}

static Q q_make(__int128 n, __int128 d) {
    Q r = {0, 1};
    if (d == 0) { gdl_err = 1; return r; }
    if (d < 0) { n = -n; d = -d; }
    if (n == 0) return r;
    if (d != 1 && (n < 0 ? -n : n) <= INT64_MAX && d <= INT64_MAX) {
        /* Both fit in 64 bits (nearly always): the gcd and the divisions in 64 bits too, since a
           128-bit division is a library call costing tens of cycles. */
        uint64_t magnitude = n < 0 ? (uint64_t)(-n) : (uint64_t)n;
        uint64_t g = (uint64_t)q_gcd(magnitude, (uint64_t)d);
        r.n = (V)(magnitude / g); r.d = (V)((uint64_t)d / g);
        if (n < 0) r.n = -r.n;
        return r;
    }
    if (d != 1) {
        unsigned __int128 g = q_gcd(n < 0 ? (unsigned __int128)(-n) : (unsigned __int128)n,
                                    (unsigned __int128)d);
        if (g > 1) { n /= (__int128)g; d /= (__int128)g; }
    }
    if (n > INT64_MAX || n < -INT64_MAX || d > INT64_MAX) { gdl_err = 1; return r; }
    r.n = (V)n; r.d = (V)d;
    return r;
}

static inline Q q_of(V v) { Q r = {v, 1}; return r; }
static inline Q q_add(Q a, Q b) {
    if (a.d == b.d) return q_make((__int128)a.n + b.n, a.d);
    return q_make((__int128)a.n * b.d + (__int128)b.n * a.d, (__int128)a.d * b.d);
}
/* k - a for a whole number k: (k·d - n)/d is already reduced (gcd(k·d - n, d) = gcd(n, d) = 1). */
static inline Q q_int_sub(V k, Q a) {
    __int128 n = (__int128)k * a.d - a.n;
    Q r = {0, 1};
    if (n > INT64_MAX || n < -INT64_MAX) { gdl_err = 1; return r; }
    r.n = (V)n; r.d = a.d;
    return r;
}
static inline Q q_neg(Q a) { return q_make(-(__int128)a.n, a.d); }
static inline Q q_sub(Q a, Q b) { return q_add(a, q_neg(b)); }
static inline Q q_mul(Q a, Q b) { return q_make((__int128)a.n * b.n, (__int128)a.d * b.d); }
static inline Q q_div(Q a, Q b) { return q_make((__int128)a.n * b.d, (__int128)a.d * b.n); }
static inline int q_cmp(Q a, Q b) {    /* exact: each product is below 2^126 */
    __int128 x = (__int128)a.n * b.d, y = (__int128)b.n * a.d;
    return (x > y) - (x < y);
}

/* The live outcomes of one `random` (probability not 0), in the rule's order, checked as
   gdl.protocol.distribution_problem checks them: each in (0, 1], no value twice, sum exactly 1.
   A problem sets gdl_err: the Python tier then reports it located (E305). */
typedef struct { int n; V value[DIST_MAX]; Q p[DIST_MAX]; } Dist;

static inline void dist_add(Dist *dist, V value, Q p) {
    if (p.n == 0) return;
    if (p.n < 0 || p.n > p.d) { gdl_err = 1; return; }
    for (int i = 0; i < dist->n; i++) if (dist->value[i] == value) { gdl_err = 1; return; }
    dist->value[dist->n] = value;
    dist->p[dist->n++] = p;
}

static inline void dist_done(const Dist *dist) {
    Q total = q_of(0);
    for (int i = 0; i < dist->n; i++) total = q_add(total, dist->p[i]);
    if (total.n != 1 || total.d != 1) gdl_err = 1;
}
