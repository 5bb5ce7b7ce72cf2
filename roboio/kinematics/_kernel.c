/* Compiled forward kinematics and Jacobians: roboio's "compiled" kinematics backend.
 *
 * The numpy backend (roboio/kinematics/_numpy.py) is the reference; this file computes the
 * same quantities with the same conventions (Klamp't's, see roboio/kinematics/model.py):
 *
 *     W(i) = W(parent(i)) @ T0(i) @ J_i(q_i),     W(-1) = identity,
 *
 * J_i a rotation by q_i * |axis_i| about axis_i (revolute; the axis is not normalised) or a
 * translation by q_i * axis_i (prismatic). Everything that does not depend on q is prepared
 * in Python (roboio/kinematics/_compiled.py) and handed to Model(): per link its parent,
 * joint kind, the constant rotation A = R0(i) (and whether it is exactly the identity), the
 * translation t0, and for general revolute axes B = A K and C = A K K (K the cross matrix
 * of the unit axis), so that the local rotation is A + sin(theta) B + (1 - cos(theta)) C,
 * the numpy backend's expression.
 *
 * Frames are 3x4 affine blocks with a row stride of 4 doubles, i.e. the top three rows of
 * a row-major 4x4 matrix: the batch kernel writes straight into a (N, n, 4, 4) float64
 * output and reads each parent's frame back from it.
 *
 * No numpy C API (so the build needs no numpy headers): arrays arrive through the buffer
 * protocol, and new results are allocated by calling the `empty` callable given to Model()
 * (numpy.empty). The batch functions release the GIL while they compute. Work buffers come
 * from PyMem_RawMalloc: usable without the GIL, and counted by tracemalloc.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#define HAVE_STREAM 1
#else
#define HAVE_STREAM 0
#endif

/* Joint kinds (the numbering is shared with _compiled.py). Axis-aligned revolute joints are
 * the common case in real robots: their rotation only mixes two columns. */
enum { REV_GENERAL = 0, REV_X = 1, REV_Y = 2, REV_Z = 3, PRISMATIC = 4 };

typedef struct {
    int parent;          /* link index, -1 = world */
    int kind;
    int a_identity;      /* A is exactly the identity: skip the product with it */
    double rate;         /* theta = q * rate: |axis|, or the signed component when aligned */
    double A[9], B[9], C[9];   /* row-major 3x3 */
    double t0[3];
    double slide[3];     /* A @ axis: translation per unit q of a prismatic joint */
    double axis[3];      /* the axis as given (Jacobian columns use it unnormalised) */
} LinkData;

/* Configurations are processed in blocks: the sines and cosines of a whole block first (one
 * vectorisable pass), then the frames of each configuration. */
#define BLOCK 32

/* Outputs larger than this (bytes) are written with non-temporal stores: they cannot stay
 * in cache anyway, and streaming them saves the read of every destination line (half the
 * memory traffic of a large batch). Smaller ones stay in cache for the caller. */
#define STREAM_BYTES (16 << 20)

/* ===================================================================================== */
/* sin and cos of an array                                                               */
/*
 * Cody-Waite range reduction x = k pi/2 + r with |r| <= pi/4, then Taylor polynomials of
 * sin (to r^17) and cos (to r^16). On |r| <= pi/4 the truncation error is below 1e-18, so
 * the results are within about one ulp of the correctly rounded values (the unit tests
 * measure it against libm). pi/2 is split into three parts, the first two with 33
 * significant bits, so that k * part is exact for |k| < 2^20. Finite |x| > TRIG_LIMIT go
 * to libm; inf and nan give nan, as libm does.
 *
 * The main loop has no branches and no calls, so the compiler vectorises it. It needs
 * round-to-nearest doubles without excess precision (FLT_EVAL_METHOD == 0); elsewhere libm
 * does everything.
 */
/* Decimal literals that read back as exactly these doubles (hex floats, e.g. 0x1.921fb544p+0
 * for PIO2_1, are not understood by every C compiler roboio may meet). */
#define PIO2_1 1.5707963267341256       /* first 33 bits of pi/2: 0x1.921fb54400000p+0 */
#define PIO2_2 6.077100506303966e-11    /* next 33 bits: 0x1.0b4611a600000p-34 */
#define PIO2_3 2.0222662487959506e-21   /* the rest, rounded: 0x1.3198a2e037073p-69 */
#define TWO_OVER_PI 0.6366197723675814
#define ROUND_MAGIC 6755399441055744.0  /* 1.5 * 2^52: v + magic - magic rounds v */
#define TRIG_LIMIT 1e5

/* Taylor coefficients (-1)^k / (2k+1)! and (-1)^k / (2k)!, k = 1..8 */
#define S1 (-1.0 / 6.0)
#define S2 (1.0 / 120.0)
#define S3 (-1.0 / 5040.0)
#define S4 (1.0 / 362880.0)
#define S5 (-1.0 / 39916800.0)
#define S6 (1.0 / 6227020800.0)
#define S7 (-1.0 / 1307674368000.0)
#define S8 (1.0 / 355687428096000.0)
#define C1 (-1.0 / 2.0)
#define C2 (1.0 / 24.0)
#define C3 (-1.0 / 720.0)
#define C4 (1.0 / 40320.0)
#define C5 (-1.0 / 3628800.0)
#define C6 (1.0 / 479001600.0)
#define C7 (-1.0 / 87178291200.0)
#define C8 (1.0 / 20922789888000.0)

static inline uint64_t bits_of(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double double_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* With GCC >= 12 on x86-64 Linux the loop is also compiled for the x86-64-v3 (AVX2, FMA)
 * and v4 (AVX-512) levels, and the loader picks the best the CPU has (ifunc): 2.5-4x
 * faster than the SSE2 baseline. FMA changes roundings, not the accuracy. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__) && \
    defined(__linux__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void sincos_array(const double *x, double *s, double *c, Py_ssize_t n)
{
    Py_ssize_t i;
#if FLT_EVAL_METHOD == 0
    for (i = 0; i < n; i++) {
        double xi = x[i];
        double t = xi * TWO_OVER_PI + ROUND_MAGIC;
        double k = t - ROUND_MAGIC;
        double r = ((xi - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
        double z = r * r;
        double ps = S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * (S6 + z * (S7 + z * S8))))));
        double pc = C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * (C6 + z * (C7 + z * C8))))));
        double sr = r + r * z * ps;
        double cr = 1.0 + z * pc;
        /* quadrant k mod 4 is in the low bits of t: odd k swaps sin and cos, then signs */
        uint64_t q = bits_of(t) & 3;
        uint64_t swap = (uint64_t)0 - (q & 1);
        uint64_t bs = bits_of(sr), bc = bits_of(cr);
        uint64_t so = (bs & ~swap) | (bc & swap);
        uint64_t co = (bc & ~swap) | (bs & swap);
        s[i] = double_of(so ^ ((q & 2) << 62));
        c[i] = double_of(co ^ (((q + 1) & 2) << 62));
    }
    /* Large arguments: libm. (A separate loop: a flag in the loop above would stop the
     * vectoriser on SSE2. inf and nan already came out as nan, as from libm.) */
    for (i = 0; i < n; i++) {
        if (fabs(x[i]) > TRIG_LIMIT && x[i] - x[i] == 0.0) {
            s[i] = sin(x[i]);
            c[i] = cos(x[i]);
        }
    }
#else
    for (i = 0; i < n; i++) {
        s[i] = sin(x[i]);
        c[i] = cos(x[i]);
    }
#endif
}

/* ===================================================================================== */
/* one link                                                                              */

static const double IDENTITY34[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

/* W = P @ T0 @ J(q) for one link; P and W are 3x4 blocks with row stride 4; s and c are
 * sin and cos of q * rate (unused by prismatic joints). */
static inline void link_frame(const LinkData *L, const double *P, double q, double s,
                              double c, double *W)
{
    double M[9];                 /* P's rotation @ the joint-moved local rotation */
    double tl[3] = {L->t0[0], L->t0[1], L->t0[2]};     /* local translation */
    int i;
    if (L->kind == REV_GENERAL) {
        double R[9];
        double c1 = 1.0 - c;
        for (i = 0; i < 9; i++)
            R[i] = L->A[i] + s * L->B[i] + c1 * L->C[i];
        for (i = 0; i < 3; i++) {
            const double *p = P + 4 * i;
            M[3 * i + 0] = p[0] * R[0] + p[1] * R[3] + p[2] * R[6];
            M[3 * i + 1] = p[0] * R[1] + p[1] * R[4] + p[2] * R[7];
            M[3 * i + 2] = p[0] * R[2] + p[1] * R[5] + p[2] * R[8];
        }
    } else {
        double PA[9];            /* P's rotation @ A */
        if (L->a_identity) {
            for (i = 0; i < 3; i++) {
                PA[3 * i + 0] = P[4 * i + 0];
                PA[3 * i + 1] = P[4 * i + 1];
                PA[3 * i + 2] = P[4 * i + 2];
            }
        } else {
            const double *A = L->A;
            for (i = 0; i < 3; i++) {
                const double *p = P + 4 * i;
                PA[3 * i + 0] = p[0] * A[0] + p[1] * A[3] + p[2] * A[6];
                PA[3 * i + 1] = p[0] * A[1] + p[1] * A[4] + p[2] * A[7];
                PA[3 * i + 2] = p[0] * A[2] + p[1] * A[5] + p[2] * A[8];
            }
        }
        switch (L->kind) {
        case REV_X:      /* @ [1 0 0; 0 c -s; 0 s c] */
            for (i = 0; i < 3; i++) {
                const double *a = PA + 3 * i;
                M[3 * i + 0] = a[0];
                M[3 * i + 1] = c * a[1] + s * a[2];
                M[3 * i + 2] = c * a[2] - s * a[1];
            }
            break;
        case REV_Y:      /* @ [c 0 s; 0 1 0; -s 0 c] */
            for (i = 0; i < 3; i++) {
                const double *a = PA + 3 * i;
                M[3 * i + 0] = c * a[0] - s * a[2];
                M[3 * i + 1] = a[1];
                M[3 * i + 2] = s * a[0] + c * a[2];
            }
            break;
        case REV_Z:      /* @ [c -s 0; s c 0; 0 0 1] */
            for (i = 0; i < 3; i++) {
                const double *a = PA + 3 * i;
                M[3 * i + 0] = c * a[0] + s * a[1];
                M[3 * i + 1] = c * a[1] - s * a[0];
                M[3 * i + 2] = a[2];
            }
            break;
        default:         /* PRISMATIC: rotation A, translation t0 + q (A @ axis) */
            memcpy(M, PA, sizeof M);
            tl[0] += q * L->slide[0];
            tl[1] += q * L->slide[1];
            tl[2] += q * L->slide[2];
            break;
        }
    }
    for (i = 0; i < 3; i++) {
        const double *p = P + 4 * i;
        double *w = W + 4 * i;
        w[0] = M[3 * i + 0];
        w[1] = M[3 * i + 1];
        w[2] = M[3 * i + 2];
        w[3] = p[0] * tl[0] + p[1] * tl[1] + p[2] * tl[2] + p[3];
    }
}

/* ===================================================================================== */
/* evaluation plans: which links to evaluate and which of them need a sin/cos            */

typedef struct {
    Py_ssize_t n;        /* links of the model */
    Py_ssize_t neval;    /* links to evaluate */
    Py_ssize_t ntrig;    /* of which revolute */
    int *eval;           /* [neval] links, parents first */
    int *trig_link;      /* [ntrig] link of each sin/cos slot */
    int *slot;           /* [n] sin/cos slot of each link, -1 = none */
} Plan;

static void plan_free(Plan *p)
{
    PyMem_RawFree(p->eval);
    p->eval = p->trig_link = p->slot = NULL;
}

/* The links with need[i] != 0 (closed under parents by the caller), in `order`. */
static int plan_make(Plan *p, const LinkData *links, const int *order, Py_ssize_t n,
                     const char *need)
{
    Py_ssize_t k;
    p->n = n;
    p->neval = p->ntrig = 0;
    p->eval = PyMem_RawMalloc(sizeof(int) * (size_t)(3 * n + 1));
    if (!p->eval)
        return -1;
    p->trig_link = p->eval + n;
    p->slot = p->eval + 2 * n;
    for (k = 0; k < n; k++) {
        int i = order[k];
        p->slot[i] = -1;
        if (need && !need[i])
            continue;
        p->eval[p->neval++] = i;
        if (links[i].kind != PRISMATIC) {
            p->slot[i] = (int)p->ntrig;
            p->trig_link[p->ntrig++] = i;
        }
    }
    return 0;
}

/* Frames of the plan's links for configuration q (stride qs) into W (16 doubles per link;
 * the bottom row is left alone); s and c hold the plan's sines and cosines. */
static void eval_frames(const LinkData *links, const Plan *p, const double *q, Py_ssize_t qs,
                        const double *s, const double *c, double *W)
{
    for (Py_ssize_t k = 0; k < p->neval; k++) {
        int i = p->eval[k];
        const LinkData *L = links + i;
        int sl = p->slot[i];
        link_frame(L, L->parent < 0 ? IDENTITY34 : W + 16 * L->parent, q[i * qs],
                   sl >= 0 ? s[sl] : 0.0, sl >= 0 ? c[sl] : 1.0, W + 16 * i);
    }
}

/* Angles of `count` configurations (rows of Q, strides rs and cs in doubles) for the plan. */
static void gather_angles(const LinkData *links, const Plan *p, const double *Q,
                          Py_ssize_t count, Py_ssize_t rs, Py_ssize_t cs, double *x)
{
    for (Py_ssize_t b = 0; b < count; b++) {
        const double *q = Q + b * rs;
        for (Py_ssize_t r = 0; r < p->ntrig; r++) {
            int i = p->trig_link[r];
            x[b * p->ntrig + r] = q[i * cs] * links[i].rate;
        }
    }
}

/* Jacobian (6 x n, row-major, rows 0-2 angular, 3-5 linear) of the point pl (local frame
 * of `link`) from the frames W of the chain root..link (chain[0..len-1]). */
static void jacobian_columns(const LinkData *links, const int *chain, Py_ssize_t len,
                             Py_ssize_t n, const double *W, int link, const double *pl,
                             double *J)
{
    const double *F = W + 16 * link;
    double P[3];
    int r;
    for (r = 0; r < 3; r++)
        P[r] = F[4 * r] * pl[0] + F[4 * r + 1] * pl[1] + F[4 * r + 2] * pl[2] + F[4 * r + 3];
    memset(J, 0, sizeof(double) * (size_t)(6 * n));
    for (Py_ssize_t k = 0; k < len; k++) {
        int j = chain[k];
        const LinkData *L = links + j;
        const double *G = W + 16 * j;
        double w[3];
        for (r = 0; r < 3; r++)
            w[r] = G[4 * r] * L->axis[0] + G[4 * r + 1] * L->axis[1] + G[4 * r + 2] * L->axis[2];
        if (L->kind == PRISMATIC) {
            for (r = 0; r < 3; r++)
                J[(3 + r) * n + j] = w[r];
        } else {
            double d0 = P[0] - G[3], d1 = P[1] - G[7], d2 = P[2] - G[11];
            J[0 * n + j] = w[0];
            J[1 * n + j] = w[1];
            J[2 * n + j] = w[2];
            J[3 * n + j] = w[1] * d2 - w[2] * d1;
            J[4 * n + j] = w[2] * d0 - w[0] * d2;
            J[5 * n + j] = w[0] * d1 - w[1] * d0;
        }
    }
}

/* ===================================================================================== */
/* writing frames out                                                                    */

static void write_bottom_rows(double *W, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        double *b = W + 16 * i + 12;
        b[0] = b[1] = b[2] = 0.0;
        b[3] = 1.0;
    }
}

/* The 4x4 matrix of frame F (3x4, row stride 4) into o: float64 or float32, optionally with
 * non-temporal stores (o then 16-byte aligned). */
static inline void put_frame(void *o, int f32, int stream, const double *F)
{
    int e;
    if (f32) {
        float *d = o;
#if HAVE_STREAM
        if (stream) {
            for (e = 0; e < 12; e += 4)
                _mm_stream_ps(d + e, _mm_movelh_ps(_mm_cvtpd_ps(_mm_loadu_pd(F + e)),
                                                   _mm_cvtpd_ps(_mm_loadu_pd(F + e + 2))));
            _mm_stream_ps(d + 12, _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f));
            return;
        }
#endif
        for (e = 0; e < 12; e++)
            d[e] = (float)F[e];
        d[12] = d[13] = d[14] = 0.0f;
        d[15] = 1.0f;
        return;
    }
    double *d = o;
#if HAVE_STREAM
    if (stream) {
        for (e = 0; e < 12; e += 2)
            _mm_stream_pd(d + e, _mm_loadu_pd(F + e));
        _mm_stream_pd(d + 12, _mm_setzero_pd());
        _mm_stream_pd(d + 14, _mm_set_pd(1.0, 0.0));
        return;
    }
#endif
    memcpy(d, F, 12 * sizeof(double));
    d[12] = d[13] = d[14] = 0.0;
    d[15] = 1.0;
}

/* count (even) doubles from src to dst, streamed (dst 16-byte aligned) or copied. */
static inline void copy_out(double *dst, const double *src, size_t count, int stream)
{
#if HAVE_STREAM
    if (stream) {
        for (size_t e = 0; e < count; e += 2)
            _mm_stream_pd(dst + e, _mm_loadu_pd(src + e));
        return;
    }
#endif
    memcpy(dst, src, count * sizeof(double));
}

/* ===================================================================================== */
/* the Model object                                                                      */

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;
    LinkData *links;
    int *order;            /* parents first */
    Plan full;             /* every link */
    double *scratch;       /* single-configuration work area (used under the GIL only) */
    int *chain;            /* the same, for a link's chain */
    PyObject *empty;       /* allocator, numpy.empty */
    PyObject *frames_shape;   /* (n, 4, 4) */
    PyObject *jac_shape;      /* (6, n) */
} Model;

static void Model_dealloc(Model *self)
{
    plan_free(&self->full);
    PyMem_RawFree(self->links);
    PyMem_RawFree(self->order);
    PyMem_RawFree(self->scratch);
    PyMem_RawFree(self->chain);
    Py_XDECREF(self->empty);
    Py_XDECREF(self->frames_shape);
    Py_XDECREF(self->jac_shape);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* --- argument checking: every array goes through these, with messages naming it -------- */

static char buffer_type(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (f[0] == '\0' || f[1] != '\0')
        return '?';
    if (*f == 'd' && v->itemsize == 8)
        return 'd';
    if (*f == 'f' && v->itemsize == 4)
        return 'f';
    if ((*f == 'q' || *f == 'l') && v->itemsize == 8)
        return 'q';
    return '?';
}

static int c_contiguous(const Py_buffer *v)
{
    Py_ssize_t expected = v->itemsize;
    for (int d = v->ndim - 1; d >= 0; d--) {
        if (v->shape[d] > 1 && v->strides[d] != expected)
            return 0;
        expected *= v->shape[d];
    }
    return 1;
}

static int aligned(const Py_buffer *v)
{
    int ok = ((uintptr_t)v->buf % (uintptr_t)v->itemsize) == 0;
    for (int d = 0; d < v->ndim; d++)
        ok = ok && v->strides[d] % v->itemsize == 0;
    return ok;
}

static const char *type_name(char t)
{
    return t == 'd' ? "float64" : t == 'f' ? "float32" : "int64";
}

/* "(2, N, 4)" for error messages: dims with -1 shown as N. */
static void shape_text(char *buf, size_t size, int ndim, const Py_ssize_t *dims)
{
    size_t pos = 0;
    pos += (size_t)PyOS_snprintf(buf, size, "(");
    for (int d = 0; d < ndim && pos + 24 < size; d++)
        pos += (size_t)(dims[d] < 0 ? PyOS_snprintf(buf + pos, size - pos, d ? ", N" : "N")
                        : PyOS_snprintf(buf + pos, size - pos, d ? ", %zd" : "%zd", dims[d]));
    PyOS_snprintf(buf + pos, size - pos, ndim == 1 ? ",)" : ")");
}

/* A buffer of one of the types in `types` with exactly `ndim` dimensions whose extents match
 * dims (-1 = any), aligned, and C-contiguous if `contiguous`. */
static int get_array(PyObject *obj, Py_buffer *v, int writable, const char *types, int ndim,
                     const Py_ssize_t *dims, int contiguous, const char *what)
{
    char want[128];
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, v, flags) < 0) {
        PyErr_Clear();
        shape_text(want, sizeof want, ndim, dims);
        PyErr_Format(PyExc_ValueError, "%s must be a %s%s array of shape %s, got %.80s", what,
                     writable ? "writeable " : "", type_name(types[0]), want,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    char t = buffer_type(v);
    int ok = t != '?' && strchr(types, t) != NULL;
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s must have dtype %s%s%s, got format %.20s", what,
                     type_name(types[0]), types[1] ? " or " : "",
                     types[1] ? type_name(types[1]) : "", v->format ? v->format : "B");
        goto fail;
    }
    ok = v->ndim == ndim;
    for (int d = 0; ok && d < ndim; d++)
        ok = dims[d] < 0 || v->shape[d] == dims[d];
    if (!ok) {
        shape_text(want, sizeof want, ndim, dims);
        PyErr_Format(PyExc_ValueError, "%s must have shape %s", what, want);
        goto fail;
    }
    if (contiguous && !c_contiguous(v)) {
        PyErr_Format(PyExc_ValueError, "%s must be C-contiguous", what);
        goto fail;
    }
    if (!aligned(v)) {
        PyErr_Format(PyExc_ValueError, "%s must be aligned", what);
        goto fail;
    }
    return 0;
fail:
    PyBuffer_Release(v);
    return -1;
}

/* A configuration of n values: a float64 vector (any stride) or a sequence of numbers. */
static int get_config(Model *self, PyObject *obj, double *q)
{
    Py_ssize_t n = self->n, i;
    if (PyObject_CheckBuffer(obj)) {
        Py_buffer v;
        if (PyObject_GetBuffer(obj, &v, PyBUF_STRIDES | PyBUF_FORMAT) == 0) {
            if (buffer_type(&v) == 'd' && v.ndim == 1 && v.shape[0] == n && aligned(&v)) {
                Py_ssize_t st = v.strides[0] / 8;
                for (i = 0; i < n; i++)
                    q[i] = ((const double *)v.buf)[i * st];
                PyBuffer_Release(&v);
                return 0;
            }
            PyBuffer_Release(&v);
        } else {
            PyErr_Clear();
        }
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "configuration must be a sequence of %zd numbers, "
                     "got %.80s", n, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "configuration must have %zd values, got %zd", n,
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (i = 0; i < n; i++) {
        q[i] = PyFloat_AsDouble(items[i]);
        if (q[i] == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "configuration value %zd is not a number (%.80s)",
                         i, Py_TYPE(items[i])->tp_name);
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static int get_point(PyObject *obj, double *p)
{
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq || PySequence_Fast_GET_SIZE(seq) != 3) {
        PyErr_Clear();
        Py_XDECREF(seq);
        PyErr_SetString(PyExc_ValueError, "point must have 3 values");
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        p[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (p[i] == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "point must have 3 numbers");
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static int get_link(Model *self, PyObject *obj, int *link)
{
    Py_ssize_t k = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (k == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "link must be an integer index");
        return -1;
    }
    if (k < 0 || k >= self->n) {
        PyErr_Format(PyExc_IndexError, "link %zd out of range for %zd links", k, self->n);
        return -1;
    }
    *link = (int)k;
    return 0;
}

/* The result array: `out` itself (checked) or a new one from numpy.empty. */
static PyObject *result(Model *self, PyObject *out, PyObject *shape, Py_buffer *v, int ndim,
                        const Py_ssize_t *dims, const char *what)
{
    PyObject *arr;
    if (out == NULL || out == Py_None) {
        arr = PyObject_CallOneArg(self->empty, shape);
        if (!arr)
            return NULL;
        /* numpy.empty(shape) is a C-contiguous float64 array of that shape: only its memory
         * is asked for (a buffer request with format and strides makes numpy build a format
         * string for every new array, more time than a small evaluation takes) */
        if (PyObject_GetBuffer(arr, v, PyBUF_SIMPLE | PyBUF_WRITABLE) < 0) {
            Py_DECREF(arr);
            return NULL;
        }
        Py_ssize_t count = 1;
        for (int d = 0; d < ndim; d++)
            count *= dims[d];
        if (v->len != count * (Py_ssize_t)sizeof(double)) {
            PyBuffer_Release(v);
            Py_DECREF(arr);
            PyErr_Format(PyExc_RuntimeError, "%s: the allocator returned %zd bytes, expected %zd",
                         what, v->len, count * (Py_ssize_t)sizeof(double));
            return NULL;
        }
        return arr;
    } else {
        arr = out;
        Py_INCREF(arr);
    }
    if (get_array(arr, v, 1, "d", ndim, dims, 1, what) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* The chain root..link (parents first) into chain; returns its length. */
static Py_ssize_t chain_of(const Model *self, int link, int *chain)
{
    Py_ssize_t len = 0;
    for (int j = link; j >= 0; j = self->links[j].parent)
        chain[len++] = j;
    for (Py_ssize_t a = 0, b = len - 1; a < b; a++, b--) {
        int t = chain[a];
        chain[a] = chain[b];
        chain[b] = t;
    }
    return len;
}

/* --- Model(parent, order, kind, a_identity, rate, A, B, C, t0, slide, axis, empty) ----- */

static int Model_init(Model *self, PyObject *args, PyObject *kwds)
{
    PyObject *o[11], *empty;
    static const char *names[] = {"parent", "order", "kind", "a_identity", "rate", "A", "B",
                                  "C", "t0", "slide", "axis"};
    static const int width[] = {1, 1, 1, 1, 1, 9, 9, 9, 3, 3, 3};
    Py_buffer v[11];
    int got = 0, ok = -1;
    if (self->links) {
        PyErr_SetString(PyExc_RuntimeError, "Model is already initialised");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOO:Model", &o[0], &o[1], &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &empty))
        return -1;
    if (!PyCallable_Check(empty)) {
        PyErr_SetString(PyExc_TypeError, "empty must be callable (numpy.empty)");
        return -1;
    }
    Py_ssize_t n = -1;
    for (; got < 11; got++) {
        Py_ssize_t dims[1] = {-1};
        if (get_array(o[got], &v[got], 0, got < 4 ? "q" : "d", 1, dims, 1, names[got]) < 0)
            goto done;
        Py_ssize_t count = v[got].shape[0] / width[got];
        if (v[got].shape[0] % width[got] || (n >= 0 && count != n)) {
            PyErr_Format(PyExc_ValueError, "%s has %zd values, expected %zd per link",
                         names[got], v[got].shape[0], (Py_ssize_t)width[got]);
            got++;
            goto done;
        }
        n = count;
    }
    if (n > INT32_MAX / 4) {
        PyErr_SetString(PyExc_ValueError, "too many links");
        goto done;
    }
    self->n = n;
    self->links = PyMem_RawCalloc((size_t)(n ? n : 1), sizeof(LinkData));
    self->order = PyMem_RawMalloc(sizeof(int) * (size_t)(n ? n : 1));
    self->scratch = PyMem_RawMalloc(sizeof(double) * (size_t)(19 * n + 1));
    self->chain = PyMem_RawMalloc(sizeof(int) * (size_t)(n + 1));
    if (!self->links || !self->order || !self->scratch || !self->chain) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *parent = v[0].buf, *order = v[1].buf, *kind = v[2].buf, *ident = v[3].buf;
    char *seen = PyMem_RawCalloc((size_t)(n ? n : 1), 1);
    if (!seen) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t i = order[k];
        /* `order` must list every link once, each after its parent */
        if (i < 0 || i >= n || seen[i] || parent[i] < -1 || parent[i] >= n ||
            (parent[i] >= 0 && !seen[parent[i]]) || kind[i] < 0 || kind[i] > PRISMATIC) {
            PyMem_RawFree(seen);
            PyErr_Format(PyExc_ValueError, "invalid link order or parent at position %zd", k);
            goto done;
        }
        seen[i] = 1;
        self->order[k] = (int)i;
    }
    PyMem_RawFree(seen);
    for (Py_ssize_t i = 0; i < n; i++) {
        LinkData *L = self->links + i;
        L->parent = (int)parent[i];
        L->kind = (int)kind[i];
        L->a_identity = ident[i] != 0;
        L->rate = ((const double *)v[4].buf)[i];
        memcpy(L->A, (const double *)v[5].buf + 9 * i, sizeof L->A);
        memcpy(L->B, (const double *)v[6].buf + 9 * i, sizeof L->B);
        memcpy(L->C, (const double *)v[7].buf + 9 * i, sizeof L->C);
        memcpy(L->t0, (const double *)v[8].buf + 3 * i, sizeof L->t0);
        memcpy(L->slide, (const double *)v[9].buf + 3 * i, sizeof L->slide);
        memcpy(L->axis, (const double *)v[10].buf + 3 * i, sizeof L->axis);
    }
    if (plan_make(&self->full, self->links, self->order, n, NULL) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    self->frames_shape = Py_BuildValue("(nii)", n, 4, 4);
    self->jac_shape = Py_BuildValue("(in)", 6, n);
    if (!self->frames_shape || !self->jac_shape)
        goto done;
    Py_INCREF(empty);
    self->empty = empty;
    ok = 0;
done:
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    return ok;
}

/* --- single configuration ------------------------------------------------------------- */

/* Scratch layout: angles / sin / cos [n each], frames [16 n]; chain [n ints]. Only touched
 * by pure C code after every argument is parsed (parsing can run Python code, which could
 * call this model again). */
#define SCR_X(self) ((self)->scratch)
#define SCR_S(self) ((self)->scratch + (self)->n)
#define SCR_C(self) ((self)->scratch + 2 * (self)->n)
#define SCR_W(self) ((self)->scratch + 3 * (self)->n)

/* The configuration is parsed into a stack buffer when it is small (no allocation). */
#define STACK_LINKS 64

static int ready(Model *self)
{
    if (self->links == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Model is not initialised");
        return 0;
    }
    return 1;
}

static double *config_buffer(Model *self, double *local)
{
    if (self->n <= STACK_LINKS)
        return local;
    double *q = PyMem_RawMalloc(sizeof(double) * (size_t)self->n);
    if (!q)
        PyErr_NoMemory();
    return q;
}

static void frames_single(Model *self, const double *q, double *W)
{
    const Plan *p = &self->full;
    gather_angles(self->links, p, q, 1, 0, 1, SCR_X(self));
    sincos_array(SCR_X(self), SCR_S(self), SCR_C(self), p->ntrig);
    eval_frames(self->links, p, q, 1, SCR_S(self), SCR_C(self), W);
}

PyDoc_STRVAR(fk_doc, "fk(q, out=None) -> (n, 4, 4) world transforms of every link.");

static PyObject *Model_fk(Model *self, PyObject *const *args, Py_ssize_t nargs)
{
    double local[STACK_LINKS], *q;
    PyObject *arr = NULL;
    Py_buffer v;
    Py_ssize_t dims[3] = {self->n, 4, 4};
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "fk(q, out=None)");
        return NULL;
    }
    if (!ready(self) || !(q = config_buffer(self, local)))
        return NULL;
    if (get_config(self, args[0], q) == 0) {
        arr = result(self, nargs > 1 ? args[1] : NULL, self->frames_shape, &v, 3, dims, "out");
        if (arr) {
            frames_single(self, q, v.buf);
            write_bottom_rows(v.buf, self->n);
            PyBuffer_Release(&v);
        }
    }
    if (q != local)
        PyMem_RawFree(q);
    return arr;
}

PyDoc_STRVAR(jacobian_doc,
             "jacobian(q, link, point, out=None) -> (6, n) Jacobian of point (link frame).");

static PyObject *Model_jacobian(Model *self, PyObject *const *args, Py_ssize_t nargs)
{
    double local[STACK_LINKS], *q, pl[3];
    int link;
    PyObject *arr = NULL;
    Py_buffer v;
    Py_ssize_t dims[2] = {6, self->n};
    if (nargs < 3 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "jacobian(q, link, point, out=None)");
        return NULL;
    }
    if (!ready(self) || !(q = config_buffer(self, local)))
        return NULL;
    if (get_config(self, args[0], q) == 0 && get_link(self, args[1], &link) == 0 &&
        get_point(args[2], pl) == 0) {
        arr = result(self, nargs > 3 ? args[3] : NULL, self->jac_shape, &v, 2, dims, "out");
        if (arr) {
            Py_ssize_t len = chain_of(self, link, self->chain);
            frames_single(self, q, SCR_W(self));
            jacobian_columns(self->links, self->chain, len, self->n, SCR_W(self), link, pl,
                             v.buf);
            PyBuffer_Release(&v);
        }
    }
    if (q != local)
        PyMem_RawFree(q);
    return arr;
}

PyDoc_STRVAR(jacobian_frames_doc,
             "jacobian_frames(W, link, point, out=None) -> (6, n) Jacobian from the world\n"
             "transforms W (n, 4, 4) of every link (which may have been set by hand).");

static PyObject *Model_jacobian_frames(Model *self, PyObject *const *args, Py_ssize_t nargs)
{
    int link;
    double pl[3];
    if (nargs < 3 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "jacobian_frames(W, link, point, out=None)");
        return NULL;
    }
    if (!ready(self) || get_link(self, args[1], &link) < 0 || get_point(args[2], pl) < 0)
        return NULL;
    Py_buffer w, v;
    Py_ssize_t wdims[3] = {self->n, 4, 4}, dims[2] = {6, self->n};
    if (get_array(args[0], &w, 0, "d", 3, wdims, 1, "frames") < 0)
        return NULL;
    PyObject *arr = result(self, nargs > 3 ? args[3] : NULL, self->jac_shape, &v, 2, dims,
                           "out");
    if (arr) {
        Py_ssize_t len = chain_of(self, link, self->chain);
        jacobian_columns(self->links, self->chain, len, self->n, w.buf, link, pl, v.buf);
        PyBuffer_Release(&v);
    }
    PyBuffer_Release(&w);
    return arr;
}

/* --- batches ---------------------------------------------------------------------------- */

/* Q as a 2-D float64 array (N, n), any strides; its row and column strides in doubles. */
static int get_configs(Model *self, PyObject *obj, Py_buffer *v, Py_ssize_t *rs,
                       Py_ssize_t *cs)
{
    Py_ssize_t dims[2] = {-1, self->n};
    if (get_array(obj, v, 0, "d", 2, dims, 0, "Q") < 0)
        return -1;
    *rs = v->strides[0] / 8;
    *cs = v->strides[1] / 8;
    return 0;
}

/* Work area of one batch call: angles, sines and cosines of a block, one set of frames and
 * one Jacobian. */
typedef struct {
    double *x, *s, *c, *W, *J;
} Work;

static int work_alloc(Work *w, Py_ssize_t ntrig, Py_ssize_t n)
{
    size_t t = (size_t)(BLOCK * ntrig);
    w->x = PyMem_RawMalloc(sizeof(double) * (3 * t + 22 * (size_t)n + 1));
    if (!w->x)
        return -1;
    w->s = w->x + t;
    w->c = w->s + t;
    w->W = w->c + t;
    w->J = w->W + 16 * (size_t)n;
    return 0;
}

PyDoc_STRVAR(fk_batch_doc,
             "fk_batch(Q, out, links=None): world transforms for every row of Q (N, n) into\n"
             "out (N, L, 4, 4), float64 or float32; links (int64 indices) selects L links.");

static void rotation_quat(const double *R, double *q);

/* fk_batch (columns = 0) and fk_pose_columns (columns = 1): the same frames, written as 4x4
 * transforms (N, nl, 4, 4) or as pose_vectors columns (nl, 7, N) */
static PyObject *fk_rows(Model *self, PyObject *const *args, Py_ssize_t nargs, int columns)
{
    const char *usage = columns ? "fk_pose_columns(Q, out, links=None)" : "fk_batch(Q, out, links=None)";
    Py_buffer qv, ov, lv;
    Py_ssize_t rs, cs, nl, n = self->n;
    PyObject *links = nargs > 2 ? args[2] : Py_None;
    const int64_t *sel = NULL;
    int have_links = 0;
    if (nargs < 2 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    if (!ready(self))
        return NULL;
    if (get_configs(self, args[0], &qv, &rs, &cs) < 0)
        return NULL;
    Py_ssize_t N = qv.shape[0];
    nl = n;
    if (links != Py_None) {
        Py_ssize_t ldims[1] = {-1};
        if (get_array(links, &lv, 0, "q", 1, ldims, 1, "links") < 0)
            goto fail_q;
        have_links = 1;
        nl = lv.shape[0];
        sel = lv.buf;
        for (Py_ssize_t k = 0; k < nl; k++) {
            if (sel[k] < 0 || sel[k] >= n) {
                PyErr_Format(PyExc_IndexError, "link %lld out of range for %zd links",
                             (long long)sel[k], n);
                goto fail_l;
            }
        }
    }
    Py_ssize_t odims[4] = {N, nl, 4, 4}, cdims[3] = {nl, 7, N};
    /* columns: out may be a slice of rows of a larger (nl, 7, N') array (a thread's share),
     * each column's rows contiguous */
    if (columns ? get_array(args[1], &ov, 1, "d", 3, cdims, 0, "out") < 0
                : get_array(args[1], &ov, 1, "df", 4, odims, 1, "out") < 0)
        goto fail_l;
    if (columns && ov.strides[2] != (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "out's rows (last axis) must be contiguous");
        PyBuffer_Release(&ov);
        goto fail_l;
    }
    Py_ssize_t link_step = columns ? ov.strides[0] / (Py_ssize_t)sizeof(double) : 0;
    Py_ssize_t part_step = columns ? ov.strides[1] / (Py_ssize_t)sizeof(double) : 0;
    int f32 = buffer_type(&ov) == 'f';
    int stream = !columns && HAVE_STREAM
                 && (size_t)N * (size_t)nl * 16 * (size_t)ov.itemsize > STREAM_BYTES
                 && ((uintptr_t)ov.buf & 15) == 0;
    int direct = !columns && !have_links && !f32 && !stream;   /* frames computed in place in out */

    /* plan: the selected links and their ancestors */
    Plan plan;
    char *need = NULL;
    if (have_links) {
        need = PyMem_RawCalloc((size_t)(n ? n : 1), 1);
        if (!need)
            goto nomem;
        for (Py_ssize_t k = 0; k < nl; k++)
            for (int j = (int)sel[k]; j >= 0 && !need[j]; j = self->links[j].parent)
                need[j] = 1;
    }
    int bad = plan_make(&plan, self->links, self->order, n, need);
    PyMem_RawFree(need);
    if (bad)
        goto nomem;
    Work w;
    if (work_alloc(&w, plan.ntrig, n) < 0) {
        plan_free(&plan);
        goto nomem;
    }
    const double *Q = qv.buf;
    char *obuf = ov.buf;
    size_t frame_bytes = 16 * (size_t)ov.itemsize;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t b0 = 0; b0 < N; b0 += BLOCK) {
        Py_ssize_t nb = N - b0 < BLOCK ? N - b0 : BLOCK;
        gather_angles(self->links, &plan, Q + b0 * rs, nb, rs, cs, w.x);
        sincos_array(w.x, w.s, w.c, nb * plan.ntrig);
        for (Py_ssize_t b = 0; b < nb; b++) {
            Py_ssize_t row = b0 + b;
            const double *q = Q + row * rs;
            const double *s = w.s + b * plan.ntrig, *c = w.c + b * plan.ntrig;
            if (direct) {
                double *W = (double *)obuf + row * 16 * n;
                eval_frames(self->links, &plan, q, cs, s, c, W);
                write_bottom_rows(W, n);
                continue;
            }
            eval_frames(self->links, &plan, q, cs, s, c, w.W);
            if (columns) {
                /* link k's seven columns: out[k, a, row], a = x, y, z, qw, qx, qy, qz */
                double *col = (double *)obuf + row;
                Py_ssize_t P = part_step;
                for (Py_ssize_t k = 0; k < nl; k++, col += link_step) {
                    const double *m = w.W + 16 * (have_links ? sel[k] : k);
                    double qq[4];
                    rotation_quat(m, qq);
                    col[0] = m[3]; col[P] = m[7]; col[2 * P] = m[11];
                    col[3 * P] = qq[0]; col[4 * P] = qq[1]; col[5 * P] = qq[2]; col[6 * P] = qq[3];
                }
                continue;
            }
            for (Py_ssize_t k = 0; k < nl; k++)
                put_frame(obuf + (size_t)(row * nl + k) * frame_bytes, f32, stream,
                          w.W + 16 * (have_links ? sel[k] : k));
        }
    }
#if HAVE_STREAM
    if (stream)
        _mm_sfence();     /* make the streamed stores visible before returning */
#endif
    Py_END_ALLOW_THREADS
    PyMem_RawFree(w.x);
    plan_free(&plan);
    PyBuffer_Release(&ov);
    if (have_links)
        PyBuffer_Release(&lv);
    PyBuffer_Release(&qv);
    Py_RETURN_NONE;
nomem:
    PyErr_NoMemory();
    PyBuffer_Release(&ov);
fail_l:
    if (have_links)
        PyBuffer_Release(&lv);
fail_q:
    PyBuffer_Release(&qv);
    return NULL;
}

static PyObject *Model_fk_batch(Model *self, PyObject *const *args, Py_ssize_t nargs)
{
    return fk_rows(self, args, nargs, 0);
}

PyDoc_STRVAR(fk_pose_columns_doc,
             "fk_pose_columns(Q, out, links=None): for every row of Q (N, n), the pose_vectors\n"
             "of the selected links' world transforms as columns: out (nl, 7, N) float64,\n"
             "out[k, :, row] = (x, y, z, qw, qx, qy, qz) (the bits of fk_batch then\n"
             "pose_columns, without the (N, nl, 4, 4) array).");

static PyObject *Model_fk_pose_columns(Model *self, PyObject *const *args, Py_ssize_t nargs)
{
    return fk_rows(self, args, nargs, 1);
}

PyDoc_STRVAR(jacobian_batch_doc,
             "jacobian_batch(Q, link, point, out): (6, n) Jacobians of point (link frame)\n"
             "for every row of Q (N, n) into out (N, 6, n) float64.");

static PyObject *Model_jacobian_batch(Model *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer qv, ov;
    Py_ssize_t rs, cs, n = self->n;
    int link;
    double pl[3];
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "jacobian_batch(Q, link, point, out)");
        return NULL;
    }
    if (!ready(self))
        return NULL;
    if (get_link(self, args[1], &link) < 0 || get_point(args[2], pl) < 0)
        return NULL;
    if (get_configs(self, args[0], &qv, &rs, &cs) < 0)
        return NULL;
    Py_ssize_t N = qv.shape[0];
    Py_ssize_t odims[3] = {N, 6, n};
    if (get_array(args[3], &ov, 1, "d", 3, odims, 1, "out") < 0) {
        PyBuffer_Release(&qv);
        return NULL;
    }
    /* only the chain root..link moves the point */
    Plan plan;
    Work w;
    int *chain = PyMem_RawMalloc(sizeof(int) * (size_t)(n + 1));
    char *need = PyMem_RawCalloc((size_t)(n ? n : 1), 1);
    int bad = !chain || !need;
    Py_ssize_t len = 0;
    if (!bad) {
        len = chain_of(self, link, chain);
        for (Py_ssize_t k = 0; k < len; k++)
            need[chain[k]] = 1;
        bad = plan_make(&plan, self->links, self->order, n, need) < 0;
        if (!bad && work_alloc(&w, plan.ntrig, n) < 0) {
            plan_free(&plan);
            bad = 1;
        }
    }
    PyMem_RawFree(need);
    if (bad) {
        PyMem_RawFree(chain);
        PyBuffer_Release(&ov);
        PyBuffer_Release(&qv);
        return PyErr_NoMemory();
    }
    const double *Q = qv.buf;
    /* large outputs: each Jacobian is assembled in the work area and streamed out */
    int stream = HAVE_STREAM && (size_t)N * 6 * (size_t)n * sizeof(double) > STREAM_BYTES
                 && ((uintptr_t)ov.buf & 15) == 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t b0 = 0; b0 < N; b0 += BLOCK) {
        Py_ssize_t nb = N - b0 < BLOCK ? N - b0 : BLOCK;
        gather_angles(self->links, &plan, Q + b0 * rs, nb, rs, cs, w.x);
        sincos_array(w.x, w.s, w.c, nb * plan.ntrig);
        for (Py_ssize_t b = 0; b < nb; b++) {
            Py_ssize_t row = b0 + b;
            double *J = (double *)ov.buf + row * 6 * n;
            eval_frames(self->links, &plan, Q + row * rs, cs, w.s + b * plan.ntrig,
                        w.c + b * plan.ntrig, w.W);
            jacobian_columns(self->links, chain, len, n, w.W, link, pl, stream ? w.J : J);
            if (stream)
                copy_out(J, w.J, 6 * (size_t)n, 1);
        }
    }
#if HAVE_STREAM
    if (stream)
        _mm_sfence();
#endif
    Py_END_ALLOW_THREADS
    PyMem_RawFree(w.x);
    PyMem_RawFree(chain);
    plan_free(&plan);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&qv);
    Py_RETURN_NONE;
}

static PyMethodDef Model_methods[] = {
    {"fk", (PyCFunction)(void (*)(void))Model_fk, METH_FASTCALL, fk_doc},
    {"fk_batch", (PyCFunction)(void (*)(void))Model_fk_batch, METH_FASTCALL, fk_batch_doc},
    {"fk_pose_columns", (PyCFunction)(void (*)(void))Model_fk_pose_columns, METH_FASTCALL,
     fk_pose_columns_doc},
    {"jacobian", (PyCFunction)(void (*)(void))Model_jacobian, METH_FASTCALL, jacobian_doc},
    {"jacobian_frames", (PyCFunction)(void (*)(void))Model_jacobian_frames, METH_FASTCALL,
     jacobian_frames_doc},
    {"jacobian_batch", (PyCFunction)(void (*)(void))Model_jacobian_batch, METH_FASTCALL,
     jacobian_batch_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "roboio.kinematics._kernel.Model",
    .tp_basicsize = sizeof(Model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A kinematic tree prepared for evaluation (see roboio/kinematics/_compiled.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Model_init,
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
};

/* ===================================================================================== */
/* dynamics                                                                              */
/*
 * The numpy reference is roboio/kinematics/_numpy_dynamics.py; the formulation (world
 * coordinates, spatial vectors in Plücker coordinates about the world origin, angular part
 * first) is described there. Per link:
 *
 *   S (6)  joint motion: (w, o x w) revolute, (0, w) prismatic; w = R axis (not normalised)
 *   B (10) inertia about the world origin: m, h = m c (3), I_O (6: xx yy zz xy xz yz)
 *
 * Composite rigid bodies: B summed from the leaves up; M[i][j] = S_j . (B_i S_i) for every
 * ancestor j of i. Newton-Euler: V_i = V_p + S_i dq_i, A_i = A_p + S_i ddq_i +
 * (V_i x S_i) dq_i with A_root = (0, -g), F_i = B_i A_i + V_i x* (B_i V_i), then
 * tau_i = S_i . F_i and F_p += F_i from the leaves up.
 */

typedef struct {
    double m, com[3];
    double I[6];           /* about the COM, link axes: xx yy zz xy xz yz (symmetrised) */
    int massless;          /* m == 0 and I == 0: contributes nothing */
} BodyData;

typedef struct {
    PyObject_HEAD
    Model *kin;            /* the kinematic model (strong reference) */
    Py_ssize_t n;
    BodyData *bodies;
    double total_mass;
    double *scratch;       /* single-configuration work area (used under the GIL only) */
    PyObject *mm_shape;    /* (n, n) */
    PyObject *vec_shape;   /* (n,) */
    PyObject *com_shape;   /* (3,) */
    PyObject *comj_shape;  /* (3, n) */
} Dynamics;

/* Work area of one evaluation: angles, sines, cosines (n each), frames (16 n), joint motions
 * (6 n), inertias (10 n), and V, A, F (6 n each). */
#define DYN_WORK(n) ((size_t)(3 + 16 + 6 + 10 + 18) * (size_t)(n) + 1)

typedef struct {
    double *x, *s, *c, *W, *S, *B, *V, *A, *F;
} DynWork;

static void dyn_work_set(DynWork *w, double *base, Py_ssize_t n)
{
    w->x = base;
    w->s = w->x + n;
    w->c = w->s + n;
    w->W = w->c + n;
    w->S = w->W + 16 * n;
    w->B = w->S + 6 * n;
    w->V = w->B + 10 * n;
    w->A = w->V + 6 * n;
    w->F = w->A + 6 * n;
}

static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Frames of every link for configuration q (stride qs) into w->W. */
static void dyn_frames(const Model *m, const double *q, Py_ssize_t qs, DynWork *w)
{
    const Plan *p = &m->full;
    gather_angles(m->links, p, q, 1, 0, qs, w->x);
    sincos_array(w->x, w->s, w->c, p->ntrig);
    eval_frames(m->links, p, q, qs, w->s, w->c, w->W);
}

/* Batches: the sines and cosines of a block of configurations first (one vectorisable
 * pass, as fk_batch), then each configuration's frames. x, s, c hold BLOCK * n doubles. */
typedef struct {
    double *x, *s, *c;
} TrigBlock;

static void dyn_block_trig(const Model *m, const double *Q, Py_ssize_t nb, Py_ssize_t rs,
                           Py_ssize_t cs, TrigBlock *t)
{
    const Plan *p = &m->full;
    gather_angles(m->links, p, Q, nb, rs, cs, t->x);
    sincos_array(t->x, t->s, t->c, nb * p->ntrig);
}

static void dyn_block_frames(const Model *m, const double *q, Py_ssize_t cs, const TrigBlock *t,
                             Py_ssize_t b, DynWork *w)
{
    const Plan *p = &m->full;
    eval_frames(m->links, p, q, cs, t->s + b * p->ntrig, t->c + b * p->ntrig, w->W);
}

/* Joint motions S and inertias B about the world origin of every link, from the frames. */
static void dyn_bodies(const Dynamics *d, DynWork *w)
{
    const LinkData *links = d->kin->links;
    for (Py_ssize_t i = 0; i < d->n; i++) {
        const double *F = w->W + 16 * i;
        const LinkData *L = links + i;
        const BodyData *b = d->bodies + i;
        double *S = w->S + 6 * i, *B = w->B + 10 * i;
        double o[3] = {F[3], F[7], F[11]}, ax[3];
        int r;
        for (r = 0; r < 3; r++)
            ax[r] = F[4 * r] * L->axis[0] + F[4 * r + 1] * L->axis[1] + F[4 * r + 2] * L->axis[2];
        if (L->kind == PRISMATIC) {
            S[0] = S[1] = S[2] = 0.0;
            S[3] = ax[0];
            S[4] = ax[1];
            S[5] = ax[2];
        } else {
            S[0] = ax[0];
            S[1] = ax[1];
            S[2] = ax[2];
            cross3(o, ax, S + 3);
        }
        if (b->massless) {
            memset(B, 0, 10 * sizeof(double));
            continue;
        }
        double m = b->m, c[3], RI[9], Ic[6];
        const double *I = b->I;
        for (r = 0; r < 3; r++)
            c[r] = F[4 * r] * b->com[0] + F[4 * r + 1] * b->com[1] + F[4 * r + 2] * b->com[2] + o[r];
        /* R I (I symmetric: rows xx xy xz / xy yy yz / xz yz zz) */
        for (r = 0; r < 3; r++) {
            const double *R = F + 4 * r;
            RI[3 * r + 0] = R[0] * I[0] + R[1] * I[3] + R[2] * I[4];
            RI[3 * r + 1] = R[0] * I[3] + R[1] * I[1] + R[2] * I[5];
            RI[3 * r + 2] = R[0] * I[4] + R[1] * I[5] + R[2] * I[2];
        }
        /* (R I) R^T: entries xx yy zz xy xz yz */
        Ic[0] = RI[0] * F[0] + RI[1] * F[1] + RI[2] * F[2];
        Ic[1] = RI[3] * F[4] + RI[4] * F[5] + RI[5] * F[6];
        Ic[2] = RI[6] * F[8] + RI[7] * F[9] + RI[8] * F[10];
        Ic[3] = RI[0] * F[4] + RI[1] * F[5] + RI[2] * F[6];
        Ic[4] = RI[0] * F[8] + RI[1] * F[9] + RI[2] * F[10];
        Ic[5] = RI[3] * F[8] + RI[4] * F[9] + RI[5] * F[10];
        double sq = dot3(c, c);
        B[0] = m;
        B[1] = m * c[0];
        B[2] = m * c[1];
        B[3] = m * c[2];
        B[4] = Ic[0] + m * (sq - c[0] * c[0]);
        B[5] = Ic[1] + m * (sq - c[1] * c[1]);
        B[6] = Ic[2] + m * (sq - c[2] * c[2]);
        B[7] = Ic[3] - m * c[0] * c[1];
        B[8] = Ic[4] - m * c[0] * c[2];
        B[9] = Ic[5] - m * c[1] * c[2];
    }
}

/* The momentum (n, f) = (I w + h x v, m v + w x h) of inertia B for motion (w, v). */
static inline void inertia_apply(const double *B, const double *w, const double *v, double *nf)
{
    double m = B[0];
    const double *h = B + 1, *I = B + 4;
    double hv[3], wh[3];
    cross3(h, v, hv);
    cross3(w, h, wh);
    nf[0] = I[0] * w[0] + I[3] * w[1] + I[4] * w[2] + hv[0];
    nf[1] = I[3] * w[0] + I[1] * w[1] + I[5] * w[2] + hv[1];
    nf[2] = I[4] * w[0] + I[5] * w[1] + I[2] * w[2] + hv[2];
    nf[3] = m * v[0] + wh[0];
    nf[4] = m * v[1] + wh[1];
    nf[5] = m * v[2] + wh[2];
}

static inline double dot6(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* Composite inertias: w->B summed from the leaves up (in place). */
static void dyn_composites(const Dynamics *d, DynWork *w)
{
    const LinkData *links = d->kin->links;
    const int *order = d->kin->order;
    for (Py_ssize_t k = d->n - 1; k >= 0; k--) {
        int i = order[k], p = links[i].parent;
        if (p >= 0) {
            double *Bp = w->B + 10 * p;
            const double *Bi = w->B + 10 * i;
            for (int e = 0; e < 10; e++)
                Bp[e] += Bi[e];
        }
    }
}

/* Mass matrix (n x n, row-major) from S and the composite inertias; lin (3 x n, row-major,
 * may be NULL) gets each column's composite linear momentum (the COM Jacobian times the
 * total mass). */
static void dyn_crba(const Dynamics *d, DynWork *w, double *M, double *lin)
{
    const LinkData *links = d->kin->links;
    Py_ssize_t n = d->n;
    memset(M, 0, sizeof(double) * (size_t)(n * n));
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *Si = w->S + 6 * i;
        double nf[6];
        inertia_apply(w->B + 10 * i, Si, Si + 3, nf);
        if (lin) {
            lin[i] = nf[3];
            lin[n + i] = nf[4];
            lin[2 * n + i] = nf[5];
        }
        M[i * n + i] = dot6(Si, nf);
        for (int j = links[i].parent; j >= 0; j = links[j].parent) {
            double v = dot6(w->S + 6 * j, nf);
            M[i * n + j] = v;
            M[j * n + i] = v;
        }
    }
}

/* Motion cross product (w, v) x (a, b) = (w x a, w x b + v x a). */
static inline void motion_cross(const double *V, const double *X, double *o)
{
    double t[3];
    cross3(V, X, o);
    cross3(V, X + 3, o + 3);
    cross3(V + 3, X, t);
    o[3] += t[0];
    o[4] += t[1];
    o[5] += t[2];
}

/* Torques M ddq + C dq + G (recursive Newton-Euler) from S and the body inertias; dq and
 * ddq have stride qs (NULL: zero); g is gravity (3). */
static void dyn_rnea(const Dynamics *d, DynWork *w, const double *dq, const double *ddq,
                     Py_ssize_t qs, const double *g, double *tau)
{
    const LinkData *links = d->kin->links;
    const int *order = d->kin->order;
    Py_ssize_t n = d->n;
    double a0[6] = {0.0, 0.0, 0.0, -g[0], -g[1], -g[2]}, zero6[6] = {0, 0, 0, 0, 0, 0};
    for (Py_ssize_t k = 0; k < n; k++) {
        int i = order[k], p = links[i].parent, e;
        const double *S = w->S + 6 * i, *B = w->B + 10 * i;
        const double *Vp = p >= 0 ? w->V + 6 * p : zero6, *Ap = p >= 0 ? w->A + 6 * p : a0;
        double *V = w->V + 6 * i, *A = w->A + 6 * i, *F = w->F + 6 * i;
        double vi = dq ? dq[i * qs] : 0.0, ai = ddq ? ddq[i * qs] : 0.0;
        for (e = 0; e < 6; e++) {
            V[e] = Vp[e] + S[e] * vi;
            A[e] = Ap[e] + S[e] * ai;
        }
        if (vi != 0.0) {
            double vs[6];
            motion_cross(V, S, vs);
            for (e = 0; e < 6; e++)
                A[e] += vs[e] * vi;
        }
        if (B[0] == 0.0 && B[4] == 0.0 && B[5] == 0.0 && B[6] == 0.0 && B[7] == 0.0 &&
            B[8] == 0.0 && B[9] == 0.0) {
            memset(F, 0, 6 * sizeof(double));
            continue;
        }
        double fa[6], fv[6], t[3];
        inertia_apply(B, A, A + 3, fa);
        inertia_apply(B, V, V + 3, fv);
        /* F = B A + V x* (B V), with (w, v) x* (n, f) = (w x n + v x f, w x f) */
        cross3(V, fv, F);
        cross3(V + 3, fv + 3, t);
        F[0] += fa[0] + t[0];
        F[1] += fa[1] + t[1];
        F[2] += fa[2] + t[2];
        cross3(V, fv + 3, F + 3);
        F[3] += fa[3];
        F[4] += fa[4];
        F[5] += fa[5];
    }
    for (Py_ssize_t k = n - 1; k >= 0; k--) {
        int i = order[k], p = links[i].parent;
        const double *F = w->F + 6 * i;
        tau[i] = dot6(w->S + 6 * i, F);
        if (p >= 0) {
            double *Fp = w->F + 6 * p;
            for (int e = 0; e < 6; e++)
                Fp[e] += F[e];
        }
    }
}

static void Dynamics_dealloc(Dynamics *self)
{
    PyMem_RawFree(self->bodies);
    PyMem_RawFree(self->scratch);
    Py_XDECREF(self->kin);
    Py_XDECREF(self->mm_shape);
    Py_XDECREF(self->vec_shape);
    Py_XDECREF(self->com_shape);
    Py_XDECREF(self->comj_shape);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Dynamics(model, masses (n), coms (3 n), inertias (9 n, symmetric)) */
static int Dynamics_init(Dynamics *self, PyObject *args, PyObject *kwds)
{
    PyObject *model, *o[3];
    Py_buffer v[3];
    static const char *names[] = {"masses", "coms", "inertias"};
    static const int width[] = {1, 3, 9};
    int got = 0, ok = -1;
    if (self->kin) {
        PyErr_SetString(PyExc_RuntimeError, "Dynamics is already initialised");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "O!OOO:Dynamics", &ModelType, &model, &o[0], &o[1], &o[2]))
        return -1;
    Model *kin = (Model *)model;
    if (!ready(kin))
        return -1;
    Py_ssize_t n = kin->n;
    for (; got < 3; got++) {
        Py_ssize_t dims[1] = {n * width[got]};
        if (get_array(o[got], &v[got], 0, "d", 1, dims, 1, names[got]) < 0)
            goto done;
    }
    self->bodies = PyMem_RawCalloc((size_t)(n ? n : 1), sizeof(BodyData));
    self->scratch = PyMem_RawMalloc(sizeof(double) * (DYN_WORK(n) + 3 * (size_t)n));
    if (!self->bodies || !self->scratch) {
        PyErr_NoMemory();
        goto done;
    }
    self->total_mass = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        BodyData *b = self->bodies + i;
        const double *I = (const double *)v[2].buf + 9 * i;
        b->m = ((const double *)v[0].buf)[i];
        memcpy(b->com, (const double *)v[1].buf + 3 * i, sizeof b->com);
        b->I[0] = I[0];
        b->I[1] = I[4];
        b->I[2] = I[8];
        b->I[3] = 0.5 * (I[1] + I[3]);
        b->I[4] = 0.5 * (I[2] + I[6]);
        b->I[5] = 0.5 * (I[5] + I[7]);
        b->massless = b->m == 0.0;
        for (int e = 0; e < 6; e++)
            b->massless = b->massless && b->I[e] == 0.0;
        self->total_mass += b->m;
    }
    self->n = n;
    self->mm_shape = Py_BuildValue("(nn)", n, n);
    self->vec_shape = Py_BuildValue("(n)", n);
    self->com_shape = Py_BuildValue("(i)", 3);
    self->comj_shape = Py_BuildValue("(in)", 3, n);
    if (!self->mm_shape || !self->vec_shape || !self->com_shape || !self->comj_shape)
        goto done;
    Py_INCREF(model);
    self->kin = kin;
    ok = 0;
done:
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    return ok;
}

static int dyn_ready(Dynamics *self)
{
    if (self->kin == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Dynamics is not initialised");
        return 0;
    }
    return 1;
}

/* A vector of n values (velocity, acceleration) into buf; what names it in errors. */
static int get_vector(Model *kin, PyObject *obj, double *buf, const char *what)
{
    if (get_config(kin, obj, buf) == 0)
        return 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *msg = value ? PyObject_Str(value) : NULL;
    const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
    if (text && strncmp(text, "configuration", 13) == 0)
        PyErr_Format(PyExc_ValueError, "%s%s", what, text + 13);
    else
        PyErr_Restore(type, value, tb), type = value = tb = NULL;
    if (!text)
        PyErr_Clear();
    Py_XDECREF(msg);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return -1;
}

PyDoc_STRVAR(mass_matrix_doc, "mass_matrix(q, out=None) -> (n, n) joint-space inertia matrix.");

static PyObject *Dynamics_mass_matrix(Dynamics *self, PyObject *const *args, Py_ssize_t nargs)
{
    double local[STACK_LINKS], *q;
    PyObject *arr = NULL;
    Py_buffer v;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "mass_matrix(q, out=None)");
        return NULL;
    }
    if (!dyn_ready(self) || !(q = config_buffer(self->kin, local)))
        return NULL;
    Py_ssize_t dims[2] = {self->n, self->n};
    if (get_config(self->kin, args[0], q) == 0) {
        arr = result(self->kin, nargs > 1 ? args[1] : NULL, self->mm_shape, &v, 2, dims, "out");
        if (arr) {
            DynWork w;
            dyn_work_set(&w, self->scratch, self->n);
            dyn_frames(self->kin, q, 1, &w);
            dyn_bodies(self, &w);
            dyn_composites(self, &w);
            dyn_crba(self, &w, v.buf, NULL);
            PyBuffer_Release(&v);
        }
    }
    if (q != local)
        PyMem_RawFree(q);
    return arr;
}

PyDoc_STRVAR(inverse_dynamics_doc,
             "inverse_dynamics(q, dq, ddq, gravity, out=None) -> (n,) torques M ddq + C dq + G.");

static PyObject *Dynamics_inverse_dynamics(Dynamics *self, PyObject *const *args,
                                           Py_ssize_t nargs)
{
    double local[3 * STACK_LINKS], *q, g[3];
    PyObject *arr = NULL;
    Py_buffer v;
    Py_ssize_t n = self->n;
    if (nargs < 4 || nargs > 5) {
        PyErr_SetString(PyExc_TypeError, "inverse_dynamics(q, dq, ddq, gravity, out=None)");
        return NULL;
    }
    if (!dyn_ready(self))
        return NULL;
    if (n <= STACK_LINKS) {
        q = local;
    } else if (!(q = PyMem_RawMalloc(3 * sizeof(double) * (size_t)n))) {
        return PyErr_NoMemory();
    }
    Py_ssize_t dims[1] = {n};
    if (get_config(self->kin, args[0], q) == 0 &&
        get_vector(self->kin, args[1], q + n, "velocity") == 0 &&
        get_vector(self->kin, args[2], q + 2 * n, "acceleration") == 0 &&
        get_point(args[3], g) == 0) {
        arr = result(self->kin, nargs > 4 ? args[4] : NULL, self->vec_shape, &v, 1, dims, "out");
        if (arr) {
            DynWork w;
            dyn_work_set(&w, self->scratch, n);
            dyn_frames(self->kin, q, 1, &w);
            dyn_bodies(self, &w);
            dyn_rnea(self, &w, q + n, q + 2 * n, 1, g, v.buf);
            PyBuffer_Release(&v);
        }
    } else if (PyErr_ExceptionMatches(PyExc_ValueError) && nargs > 3) {
        /* get_point names a point: say gravity */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *msg = value ? PyObject_Str(value) : NULL;
        const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
        if (text && strncmp(text, "point", 5) == 0)
            PyErr_Format(PyExc_ValueError, "gravity%s", text + 5);
        else
            PyErr_Restore(type, value, tb), type = value = tb = NULL;
        if (!text)
            PyErr_Clear();
        Py_XDECREF(msg);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
    if (q != local)
        PyMem_RawFree(q);
    return arr;
}

PyDoc_STRVAR(com_doc, "com(q, out=None) -> (3,) centre of mass, world frame (zeros if massless).");

static PyObject *Dynamics_com(Dynamics *self, PyObject *const *args, Py_ssize_t nargs)
{
    double local[STACK_LINKS], *q;
    PyObject *arr = NULL;
    Py_buffer v;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "com(q, out=None)");
        return NULL;
    }
    if (!dyn_ready(self) || !(q = config_buffer(self->kin, local)))
        return NULL;
    Py_ssize_t dims[1] = {3};
    if (get_config(self->kin, args[0], q) == 0) {
        arr = result(self->kin, nargs > 1 ? args[1] : NULL, self->com_shape, &v, 1, dims, "out");
        if (arr) {
            DynWork w;
            double *c = v.buf, acc[3] = {0.0, 0.0, 0.0};
            dyn_work_set(&w, self->scratch, self->n);
            dyn_frames(self->kin, q, 1, &w);
            for (Py_ssize_t i = 0; i < self->n; i++) {
                const BodyData *b = self->bodies + i;
                const double *F = w.W + 16 * i;
                for (int r = 0; r < 3; r++)
                    acc[r] += b->m * (F[4 * r] * b->com[0] + F[4 * r + 1] * b->com[1] +
                                      F[4 * r + 2] * b->com[2] + F[4 * r + 3]);
            }
            for (int r = 0; r < 3; r++)
                c[r] = self->total_mass > 0.0 ? acc[r] / self->total_mass : 0.0;
            PyBuffer_Release(&v);
        }
    }
    if (q != local)
        PyMem_RawFree(q);
    return arr;
}

PyDoc_STRVAR(com_jacobian_doc, "com_jacobian(q, out=None) -> (3, n) Jacobian of the centre of mass.");

static PyObject *Dynamics_com_jacobian(Dynamics *self, PyObject *const *args, Py_ssize_t nargs)
{
    double local[STACK_LINKS], *q;
    PyObject *arr = NULL;
    Py_buffer v;
    Py_ssize_t n = self->n;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "com_jacobian(q, out=None)");
        return NULL;
    }
    if (!dyn_ready(self) || !(q = config_buffer(self->kin, local)))
        return NULL;
    Py_ssize_t dims[2] = {3, n};
    if (get_config(self->kin, args[0], q) == 0) {
        arr = result(self->kin, nargs > 1 ? args[1] : NULL, self->comj_shape, &v, 2, dims, "out");
        if (arr) {
            DynWork w;
            double *J = v.buf;
            const LinkData *links = self->kin->links;
            dyn_work_set(&w, self->scratch, n);
            dyn_frames(self->kin, q, 1, &w);
            dyn_bodies(self, &w);
            dyn_composites(self, &w);
            for (Py_ssize_t i = 0; i < n; i++) {
                double nf[6];
                inertia_apply(w.B + 10 * i, w.S + 6 * i, w.S + 6 * i + 3, nf);
                for (int r = 0; r < 3; r++)
                    J[r * n + i] = self->total_mass > 0.0 ? nf[3 + r] / self->total_mass : 0.0;
            }
            (void)links;
            PyBuffer_Release(&v);
        }
    }
    if (q != local)
        PyMem_RawFree(q);
    return arr;
}

PyDoc_STRVAR(mass_matrix_batch_doc,
             "mass_matrix_batch(Q, out): mass matrices of every row of Q (N, n) into out\n"
             "(N, n, n) float64; releases the GIL.");

static PyObject *Dynamics_mass_matrix_batch(Dynamics *self, PyObject *const *args,
                                            Py_ssize_t nargs)
{
    Py_buffer qv, ov;
    Py_ssize_t rs, cs, n = self->n;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "mass_matrix_batch(Q, out)");
        return NULL;
    }
    if (!dyn_ready(self) || get_configs(self->kin, args[0], &qv, &rs, &cs) < 0)
        return NULL;
    Py_ssize_t N = qv.shape[0];
    Py_ssize_t odims[3] = {N, n, n};
    if (get_array(args[1], &ov, 1, "d", 3, odims, 1, "out") < 0) {
        PyBuffer_Release(&qv);
        return NULL;
    }
    size_t tb = (size_t)BLOCK * (size_t)n, nn = (size_t)n * (size_t)n;
    double *work = PyMem_RawMalloc(sizeof(double) * (DYN_WORK(n) + 3 * tb + nn + 1));
    if (!work) {
        PyBuffer_Release(&ov);
        PyBuffer_Release(&qv);
        return PyErr_NoMemory();
    }
    const double *Q = qv.buf;
    double *out = ov.buf;
    /* large outputs: each matrix is assembled in the work area (in cache) and streamed out,
     * which saves reading every destination line before writing it */
    int stream = HAVE_STREAM && (size_t)N * nn * sizeof(double) > STREAM_BYTES &&
                 ((uintptr_t)out & 15) == 0;
    Py_BEGIN_ALLOW_THREADS
    DynWork w;
    TrigBlock t = {work + DYN_WORK(n), work + DYN_WORK(n) + tb, work + DYN_WORK(n) + 2 * tb};
    double *Mw = work + DYN_WORK(n) + 3 * tb;
    dyn_work_set(&w, work, n);
    for (Py_ssize_t b0 = 0; b0 < N; b0 += BLOCK) {
        Py_ssize_t nb = N - b0 < BLOCK ? N - b0 : BLOCK;
        dyn_block_trig(self->kin, Q + b0 * rs, nb, rs, cs, &t);
        for (Py_ssize_t b = 0; b < nb; b++) {
            Py_ssize_t row = b0 + b;
            double *M = out + row * n * n;
            dyn_block_frames(self->kin, Q + row * rs, cs, &t, b, &w);
            dyn_bodies(self, &w);
            dyn_composites(self, &w);
            if (!stream) {
                dyn_crba(self, &w, M, NULL);
                continue;
            }
            dyn_crba(self, &w, Mw, NULL);
            /* rows start 16-byte aligned only when n n is even: stream the aligned even part */
            size_t skip = ((uintptr_t)M & 15) ? 1 : 0;
            if (skip)
                M[0] = Mw[0];
            size_t even = (nn - skip) & ~(size_t)1;
            copy_out(M + skip, Mw + skip, even, 1);
            for (size_t e = skip + even; e < nn; e++)
                M[e] = Mw[e];
        }
    }
#if HAVE_STREAM
    if (stream)
        _mm_sfence();
#endif
    Py_END_ALLOW_THREADS
    PyMem_RawFree(work);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&qv);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(inverse_dynamics_batch_doc,
             "inverse_dynamics_batch(Q, dQ, ddQ, gravity, out): torques of every row of Q,\n"
             "dQ, ddQ (N, n) into out (N, n) float64; releases the GIL.");

static PyObject *Dynamics_inverse_dynamics_batch(Dynamics *self, PyObject *const *args,
                                                 Py_ssize_t nargs)
{
    Py_buffer qv, dv, av, ov;
    Py_ssize_t rs, cs, drs, dcs, ars, acs, n = self->n;
    double g[3];
    PyObject *res = NULL;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "inverse_dynamics_batch(Q, dQ, ddQ, gravity, out)");
        return NULL;
    }
    if (!dyn_ready(self) || get_point(args[3], g) < 0)
        return NULL;
    if (get_configs(self->kin, args[0], &qv, &rs, &cs) < 0)
        return NULL;
    if (get_configs(self->kin, args[1], &dv, &drs, &dcs) < 0)
        goto fail_q;
    if (get_configs(self->kin, args[2], &av, &ars, &acs) < 0)
        goto fail_d;
    Py_ssize_t N = qv.shape[0];
    if (dv.shape[0] != N || av.shape[0] != N) {
        PyErr_SetString(PyExc_ValueError, "Q, dQ and ddQ must have the same number of rows");
        goto fail_a;
    }
    Py_ssize_t odims[2] = {N, n};
    if (get_array(args[4], &ov, 1, "d", 2, odims, 1, "out") < 0)
        goto fail_a;
    size_t tb = (size_t)BLOCK * (size_t)n;
    double *work = PyMem_RawMalloc(sizeof(double) * (DYN_WORK(n) + 2 * (size_t)n + 3 * tb));
    if (!work) {
        PyErr_NoMemory();
        goto fail_o;
    }
    const double *Q = qv.buf, *dQ = dv.buf, *ddQ = av.buf;
    double *out = ov.buf;
    Py_BEGIN_ALLOW_THREADS
    DynWork w;
    dyn_work_set(&w, work, n);
    double *dq = work + DYN_WORK(n), *ddq = dq + n;
    TrigBlock t = {ddq + n, ddq + n + tb, ddq + n + 2 * tb};
    for (Py_ssize_t b0 = 0; b0 < N; b0 += BLOCK) {
        Py_ssize_t nb = N - b0 < BLOCK ? N - b0 : BLOCK;
        dyn_block_trig(self->kin, Q + b0 * rs, nb, rs, cs, &t);
        for (Py_ssize_t b = 0; b < nb; b++) {
            Py_ssize_t row = b0 + b;
            for (Py_ssize_t i = 0; i < n; i++) {
                dq[i] = dQ[row * drs + i * dcs];
                ddq[i] = ddQ[row * ars + i * acs];
            }
            dyn_block_frames(self->kin, Q + row * rs, cs, &t, b, &w);
            dyn_bodies(self, &w);
            dyn_rnea(self, &w, dq, ddq, 1, g, out + row * n);
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(work);
    res = Py_None;
    Py_INCREF(res);
fail_o:
    PyBuffer_Release(&ov);
fail_a:
    PyBuffer_Release(&av);
fail_d:
    PyBuffer_Release(&dv);
fail_q:
    PyBuffer_Release(&qv);
    return res;
}

/* --- articulated bodies (forward dynamics, held links) ----------------------------------- */

/* The 6x6 spatial inertia (row-major, angular rows first) of B = (m, h, I_O): [[I_O, h x],
 * [(h x)^T, m E]]. */
static void inertia6(const double *B, double *X)
{
    const double m = B[0], hx = B[1], hy = B[2], hz = B[3];
    const double *I = B + 4;
    double H[9] = {0.0, -hz, hy, hz, 0.0, -hx, -hy, hx, 0.0};
    memset(X, 0, 36 * sizeof(double));
    X[0] = I[0], X[1] = I[3], X[2] = I[4];
    X[6] = I[3], X[7] = I[1], X[8] = I[5];
    X[12] = I[4], X[13] = I[5], X[14] = I[2];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            X[6 * r + 3 + c] = H[3 * r + c];
            X[6 * (3 + c) + r] = H[3 * r + c];
        }
    X[21] = X[28] = X[35] = m;
}

static inline void mat6_vec(const double *X, const double *v, double *o)
{
    for (int r = 0; r < 6; r++)
        o[r] = dot6(X + 6 * r, v);
}

/* Accelerations ddq of the articulated-body algorithm with the links where held[i] != 0
 * kept rigid (acceleration 0: their torque is not used). Work: w (frames, S, B, V, A as
 * c and accelerations, F as p), IA (36 n), U (6 n), D and u (n each). Returns the first
 * moving link whose articulated inertia about its joint is not positive (no mass or inertia
 * beyond it), or -1. */
static int dyn_aba(const Dynamics *d, DynWork *w, const double *dq, const double *tau,
                   const int64_t *held, const double *g, double *IA, double *U, double *D,
                   double *u, double *ddq)
{
    const LinkData *links = d->kin->links;
    const int *order = d->kin->order;
    Py_ssize_t n = d->n;
    double zero6[6] = {0, 0, 0, 0, 0, 0};
    int e;
    /* velocities, velocity-product accelerations c (in A) and bias forces p (in F) */
    for (Py_ssize_t k = 0; k < n; k++) {
        int i = order[k], p = links[i].parent;
        const double *S = w->S + 6 * i, *Vp = p >= 0 ? w->V + 6 * p : zero6;
        double *V = w->V + 6 * i, *c = w->A + 6 * i, *pb = w->F + 6 * i, *X = IA + 36 * i;
        for (e = 0; e < 6; e++)
            V[e] = Vp[e] + S[e] * dq[i];
        motion_cross(V, S, c);
        for (e = 0; e < 6; e++)
            c[e] *= dq[i];
        inertia6(w->B + 10 * i, X);
        double fv[6], t[3];
        mat6_vec(X, V, fv);
        cross3(V, fv, pb);
        cross3(V + 3, fv + 3, t);
        pb[0] += t[0], pb[1] += t[1], pb[2] += t[2];
        cross3(V, fv + 3, pb + 3);
    }
    /* articulated inertias from the leaves up */
    for (Py_ssize_t k = n - 1; k >= 0; k--) {
        int i = order[k], p = links[i].parent;
        const double *S = w->S + 6 * i, *c = w->A + 6 * i;
        double *X = IA + 36 * i, *pb = w->F + 6 * i, *Ui = U + 6 * i;
        double Xc[6];
        mat6_vec(X, c, Xc);
        if (held[i]) {
            if (p >= 0) {
                double *Xp = IA + 36 * p, *pp = w->F + 6 * p;
                for (e = 0; e < 36; e++)
                    Xp[e] += X[e];
                for (e = 0; e < 6; e++)
                    pp[e] += pb[e] + Xc[e];
            }
            continue;
        }
        mat6_vec(X, S, Ui);
        D[i] = dot6(S, Ui);
        u[i] = tau[i] - dot6(S, pb);
        double scale = 0.0;
        for (e = 0; e < 36; e++)
            scale = fabs(X[e]) > scale ? fabs(X[e]) : scale;
        double s2 = dot6(S, S);
        if (!(D[i] > 1e-12 * scale * s2) || !(D[i] > 0.0))
            return i;
        if (p >= 0) {
            double *Xp = IA + 36 * p, *pp = w->F + 6 * p, ud = u[i] / D[i];
            for (int r = 0; r < 6; r++)
                for (int col = 0; col < 6; col++)
                    Xp[6 * r + col] += X[6 * r + col] - Ui[r] * Ui[col] / D[i];
            /* p + Ia c + U u / D, with Ia c = X c - U (U . c) / D */
            double uc = dot6(Ui, c) / D[i];
            for (e = 0; e < 6; e++)
                pp[e] += pb[e] + Xc[e] - Ui[e] * uc + Ui[e] * ud;
        }
    }
    /* accelerations from the root down (A holds c, then the acceleration) */
    double a0[6] = {0.0, 0.0, 0.0, -g[0], -g[1], -g[2]};
    for (Py_ssize_t k = 0; k < n; k++) {
        int i = order[k], p = links[i].parent;
        const double *ap = p >= 0 ? w->A + 6 * p : a0, *S = w->S + 6 * i;
        double *a = w->A + 6 * i;
        for (e = 0; e < 6; e++)
            a[e] += ap[e];
        if (held[i]) {
            ddq[i] = 0.0;
            continue;
        }
        ddq[i] = (u[i] - dot6(U + 6 * i, a)) / D[i];
        for (e = 0; e < 6; e++)
            a[e] += S[e] * ddq[i];
    }
    return -1;
}

PyDoc_STRVAR(forward_dynamics_doc,
             "forward_dynamics(q, dq, tau, gravity, held, out=None) -> (n,) accelerations\n"
             "(articulated bodies); links with held[i] != 0 (int64) are kept rigid.\n"
             "ValueError naming the first moving link that carries no mass or inertia.");

static PyObject *Dynamics_forward_dynamics(Dynamics *self, PyObject *const *args,
                                           Py_ssize_t nargs)
{
    double g[3];
    Py_ssize_t n = self->n;
    Py_buffer hv, v;
    PyObject *arr = NULL;
    if (nargs < 5 || nargs > 6) {
        PyErr_SetString(PyExc_TypeError, "forward_dynamics(q, dq, tau, gravity, held, out=None)");
        return NULL;
    }
    if (!dyn_ready(self))
        return NULL;
    Py_ssize_t hdims[1] = {n};
    if (get_array(args[4], &hv, 0, "q", 1, hdims, 1, "held") < 0)
        return NULL;
    /* q, dq, tau (3 n) and the articulated-body work area (36 n + 8 n) */
    double *buf = PyMem_RawMalloc(sizeof(double) * (47 * (size_t)n + 1));
    if (!buf) {
        PyBuffer_Release(&hv);
        return PyErr_NoMemory();
    }
    double *q = buf, *dq = buf + n, *tau = buf + 2 * n, *IA = buf + 3 * n, *U = IA + 36 * n;
    double *D = U + 6 * n, *u = D + n;
    Py_ssize_t dims[1] = {n};
    if (get_config(self->kin, args[0], q) == 0 &&
        get_vector(self->kin, args[1], dq, "velocity") == 0 &&
        get_vector(self->kin, args[2], tau, "torque") == 0) {
        if (get_point(args[3], g) < 0) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "gravity must have 3 numbers");
        } else if ((arr = result(self->kin, nargs > 5 ? args[5] : NULL, self->vec_shape, &v, 1,
                                 dims, "out")) != NULL) {
            DynWork w;
            dyn_work_set(&w, self->scratch, n);
            dyn_frames(self->kin, q, 1, &w);
            dyn_bodies(self, &w);
            int bad = dyn_aba(self, &w, dq, tau, hv.buf, g, IA, U, D, u, v.buf);
            PyBuffer_Release(&v);
            if (bad >= 0) {
                Py_DECREF(arr);
                arr = NULL;
                PyErr_Format(PyExc_ValueError, "link %d moves no mass or inertia", bad);
            }
        }
    }
    PyMem_RawFree(buf);
    PyBuffer_Release(&hv);
    return arr;
}

static PyMethodDef Dynamics_methods[] = {
    {"mass_matrix", (PyCFunction)(void (*)(void))Dynamics_mass_matrix, METH_FASTCALL,
     mass_matrix_doc},
    {"inverse_dynamics", (PyCFunction)(void (*)(void))Dynamics_inverse_dynamics, METH_FASTCALL,
     inverse_dynamics_doc},
    {"forward_dynamics", (PyCFunction)(void (*)(void))Dynamics_forward_dynamics, METH_FASTCALL,
     forward_dynamics_doc},
    {"com", (PyCFunction)(void (*)(void))Dynamics_com, METH_FASTCALL, com_doc},
    {"com_jacobian", (PyCFunction)(void (*)(void))Dynamics_com_jacobian, METH_FASTCALL,
     com_jacobian_doc},
    {"mass_matrix_batch", (PyCFunction)(void (*)(void))Dynamics_mass_matrix_batch,
     METH_FASTCALL, mass_matrix_batch_doc},
    {"inverse_dynamics_batch", (PyCFunction)(void (*)(void))Dynamics_inverse_dynamics_batch,
     METH_FASTCALL, inverse_dynamics_batch_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject DynamicsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "roboio.kinematics._kernel.Dynamics",
    .tp_basicsize = sizeof(Dynamics),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Inertial data over a kernel Model (see roboio/kinematics/_compiled.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Dynamics_init,
    .tp_dealloc = (destructor)Dynamics_dealloc,
    .tp_methods = Dynamics_methods,
};

/* ===================================================================================== */
/* module                                                                                */

PyDoc_STRVAR(sincos_doc,
             "sincos(x, s, c): s[:] = sin(x), c[:] = cos(x) with the kernel's own routine\n"
             "(float64 vectors of one length; for tests).");

static PyObject *kernel_sincos(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer x, s, c;
    Py_ssize_t dims[1] = {-1};
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "sincos(x, s, c)");
        return NULL;
    }
    if (get_array(args[0], &x, 0, "d", 1, dims, 1, "x") < 0)
        return NULL;
    dims[0] = x.shape[0];
    if (get_array(args[1], &s, 1, "d", 1, dims, 1, "s") < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (get_array(args[2], &c, 1, "d", 1, dims, 1, "c") < 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&s);
        return NULL;
    }
    sincos_array(x.buf, s.buf, c.buf, dims[0]);
    PyBuffer_Release(&x);
    PyBuffer_Release(&s);
    PyBuffer_Release(&c);
    Py_RETURN_NONE;
}

/* ===================================================================================== */
/* poses as position and quaternion                                                      */

PyDoc_STRVAR(pose_vectors_doc,
             "pose_vectors(T, out): out[k] = (x, y, z, qw, qx, qy, qz) of the rigid transform\n"
             "T[k] ((N, 4, 4) float64, C-contiguous; out (N, 7)): the translation, and the unit\n"
             "quaternion of the rotation block with qw >= 0, by the arithmetic of\n"
             "roboio.transforms.matrix_to_quat (Shepperd's method). Releases the GIL.");

/* One rotation (row-major 3x3 with a row stride of 4) to (w, x, y, z): the branch of the
 * largest of trace, R00, R11, R22 (first on ties, as numpy's argmax), sign so that w >= 0,
 * then divided by its length: the same operations as matrix_to_quat, in the same order. */
static void rotation_quat(const double *R, double *q)
{
    double r00 = R[0], r01 = R[1], r02 = R[2];
    double r10 = R[4], r11 = R[5], r12 = R[6];
    double r20 = R[8], r21 = R[9], r22 = R[10];
    double tr = r00 + r11 + r22, s;
    int k = 0;
    double best = tr;
    if (r00 > best) { best = r00; k = 1; }
    if (r11 > best) { best = r11; k = 2; }
    if (r22 > best) { k = 3; }
    switch (k) {
    case 0:
        s = sqrt(1.0 + tr) * 2;
        q[0] = 0.25 * s; q[1] = (r21 - r12) / s; q[2] = (r02 - r20) / s; q[3] = (r10 - r01) / s;
        break;
    case 1:
        s = sqrt(1.0 + r00 - r11 - r22) * 2;
        q[0] = (r21 - r12) / s; q[1] = 0.25 * s; q[2] = (r01 + r10) / s; q[3] = (r02 + r20) / s;
        break;
    case 2:
        s = sqrt(1.0 + r11 - r00 - r22) * 2;
        q[0] = (r02 - r20) / s; q[1] = (r01 + r10) / s; q[2] = 0.25 * s; q[3] = (r12 + r21) / s;
        break;
    default:
        s = sqrt(1.0 + r22 - r00 - r11) * 2;
        q[0] = (r10 - r01) / s; q[1] = (r02 + r20) / s; q[2] = (r12 + r21) / s; q[3] = 0.25 * s;
        break;
    }
    if (q[0] < 0) {
        q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2]; q[3] = -q[3];
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n;
}

static PyObject *kernel_pose_vectors(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer T, out;
    Py_ssize_t tdims[3] = {-1, 4, 4}, odims[2] = {-1, 7};
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pose_vectors(T, out)");
        return NULL;
    }
    if (get_array(args[0], &T, 0, "d", 3, tdims, 1, "T") < 0)
        return NULL;
    odims[0] = T.shape[0];
    if (get_array(args[1], &out, 1, "d", 2, odims, 1, "out") < 0) {
        PyBuffer_Release(&T);
        return NULL;
    }
    const double *t = T.buf;
    double *o = out.buf;
    Py_ssize_t n = T.shape[0];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < n; k++, t += 16, o += 7) {
        o[0] = t[3]; o[1] = t[7]; o[2] = t[11];
        rotation_quat(t, o + 3);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&T);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(pose_columns_doc,
             "pose_columns(T, out): the rows of pose_vectors laid out by column: for the\n"
             "transforms T ((F, L, 4, 4) float64, C-contiguous: F frames of L links) out ((L, 7, F)\n"
             "float64, C-contiguous) gets out[l, :, f] = pose_vectors(T[f, l]), the same bits.\n"
             "Each (link, component) is then one contiguous column (a table's). Releases the GIL.");

static PyObject *kernel_pose_columns(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer T, out;
    Py_ssize_t tdims[4] = {-1, -1, 4, 4}, odims[3] = {-1, 7, -1};
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pose_columns(T, out)");
        return NULL;
    }
    if (get_array(args[0], &T, 0, "d", 4, tdims, 1, "T") < 0)
        return NULL;
    odims[0] = T.shape[1];
    odims[2] = T.shape[0];
    if (get_array(args[1], &out, 1, "d", 3, odims, 1, "out") < 0) {
        PyBuffer_Release(&T);
        return NULL;
    }
    const double *t = T.buf;
    double *o = out.buf;
    Py_ssize_t F = T.shape[0], L = T.shape[1];
    Py_BEGIN_ALLOW_THREADS
    /* link by link: the transforms are read with a constant stride, the 7 columns of the link
     * written sequentially */
    for (Py_ssize_t l = 0; l < L; l++) {
        double *col = o + l * 7 * F;
        for (Py_ssize_t f = 0; f < F; f++) {
            const double *m = t + (f * L + l) * 16;
            double q[4];
            rotation_quat(m, q);
            col[f] = m[3]; col[F + f] = m[7]; col[2 * F + f] = m[11];
            col[3 * F + f] = q[0]; col[4 * F + f] = q[1]; col[5 * F + f] = q[2];
            col[6 * F + f] = q[3];
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&T);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"sincos", (PyCFunction)(void (*)(void))kernel_sincos, METH_FASTCALL, sincos_doc},
    {"pose_vectors", (PyCFunction)(void (*)(void))kernel_pose_vectors, METH_FASTCALL,
     pose_vectors_doc},
    {"pose_columns", (PyCFunction)(void (*)(void))kernel_pose_columns, METH_FASTCALL,
     pose_columns_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "Compiled forward kinematics and Jacobians (roboio's 'compiled' kinematics backend).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    if (PyType_Ready(&ModelType) < 0 || PyType_Ready(&DynamicsType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&kernel_module);
    if (!m)
        return NULL;
    Py_INCREF(&ModelType);
    if (PyModule_AddObject(m, "Model", (PyObject *)&ModelType) < 0) {
        Py_DECREF(&ModelType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&DynamicsType);
    if (PyModule_AddObject(m, "Dynamics", (PyObject *)&DynamicsType) < 0) {
        Py_DECREF(&DynamicsType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "BLOCK", BLOCK) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
