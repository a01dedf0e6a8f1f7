/* gdl's native prelude: checked arithmetic with the rule language's meaning.
   Any rule error or 64-bit overflow sets gdl_err; the caller then redoes the work in Python,
   which reports the error located or computes with unbounded integers. After an error every
   helper still returns a value that is safe to use (an index in range), so nothing runs wild. */
/* Thread-local (ctypes releases the GIL, so two threads may search at once), in the initial-exec
   model: a plain offset from the thread pointer instead of a call per access. */
static __thread int gdl_err __attribute__((tls_model("initial-exec")));

static inline V gdl_add(V a, V b) { V r; if (__builtin_add_overflow(a, b, &r)) { gdl_err = 1; return 0; } return r; }
static inline V gdl_sub(V a, V b) { V r; if (__builtin_sub_overflow(a, b, &r)) { gdl_err = 1; return 0; } return r; }
static inline V gdl_mul(V a, V b) { V r; if (__builtin_mul_overflow(a, b, &r)) { gdl_err = 1; return 0; } return r; }
static inline V gdl_neg(V a) { return gdl_sub(0, a); }
static inline V gdl_abs(V a) { return a < 0 ? gdl_neg(a) : a; }
static inline V gdl_min(V a, V b) { return a <= b ? a : b; }
static inline V gdl_max(V a, V b) { return a >= b ? a : b; }
/* `/` is floor division and `%` its remainder, as in Python: -7 / 2 == -4, -7 % 2 == 1. */
static inline V gdl_div(V a, V b) {
    if (b == 0 || (b == -1 && a == INT64_MIN)) { gdl_err = 1; return 0; }
    V q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) q--;
    return q;
}
/* `/` is exact: the native tier has integers only, so a quotient that is not whole stops the
   search (the Python tier then computes the rational exactly). */
static inline V gdl_quot(V a, V b) {
    if (b == 0 || (b == -1 && a == INT64_MIN) || a % b != 0) { gdl_err = 1; return 0; }
    return a / b;
}
static inline V gdl_mod(V a, V b) {
    if (b == 0) { gdl_err = 1; return 0; }
    if (b == -1) return 0;
    V r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline V gdl_idx(V i, V extent) { if (i < 0 || i >= extent) { gdl_err = 1; return 0; } return i; }
/* For an eagerly evaluated operand (emit.py, eager_expr), which may run where what proves its
   indices and bounds is false: an offset into the state (a table) is taken as 0 where it is out
   of range, so every read is within the array, and arithmetic wraps (unsigned) instead of
   overflowing; where the proof holds the values are the exact ones. */
#define GDL_U(x) ((unsigned long long)(x))
static inline V gdl_wadd(V a, V b) { return (V)((unsigned long long)a + (unsigned long long)b); }
static inline V gdl_wsub(V a, V b) { return (V)((unsigned long long)a - (unsigned long long)b); }
static inline V gdl_wmul(V a, V b) { return (V)((unsigned long long)a * (unsigned long long)b); }
#define GDL_CELL(o) ((unsigned long long)(o) < (unsigned long long)CELLS ? (o) : 0)
#define GDL_CLAMP(o, n) ((unsigned long long)(o) < (unsigned long long)(n) ? (o) : 0)
