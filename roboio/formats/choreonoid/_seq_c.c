/* Frame lines of Choreonoid .seq files in one pass: the compiled twin of parse_block's
 * numpy path (roboio/formats/choreonoid/_seq_fast.py, the reference), same results bit for
 * bit.
 *
 * parse_lines(data, start, stop, first, signature, per_frame, out, base)
 *   reads the lines data[start:stop] (stop just after a '\n'), each of which must be
 *   `first` (the block's indent and "- ") followed by one frame: the brackets and commas of
 *   `signature` (e.g. "[,[,,],[,,]]"), spaces anywhere, and a number in every slot the
 *   signature has for one ("[ ," ", ," ", ]" "[ ]"), none elsewhere. Frame f's numbers go
 *   to out[base + f * per_frame ...] (out: a C-contiguous float64 array, written in place).
 *   Returns None when a line is not such a frame (the numpy path's None: YAML decides),
 *   else (lines, slow): `slow` lists (index, a, b), in order, for the numbers Python must
 *   convert (index counted from `base`, text data[a:b], empty for an empty slot).
 *
 * The lines are converted in the chunks of the numpy path (parse_block calls this once per
 * chunk), with its choices, so that the same texts reach the same code:
 *  - A number is a run of the characters 0-9 . e E + - (what the numpy path's layout check
 *    treats as number text).
 *  - Clinger's fast path (1990): an optional sign, a mantissa of at most 16 characters
 *    (digits and at most one '.', at least one digit) and an optional exponent ('e' or 'E',
 *    an optional sign, 1 to 3 digits), whose integer mantissa M < 2**53 and decimal
 *    exponent |e| <= 22 once the dot is moved to the mantissa's end. M and 10**|e| are then
 *    exact doubles, and one correctly rounded IEEE multiplication or division gives the
 *    correctly rounded value of the decimal: the double strtod and Python's float() give.
 *    These are the numbers the numpy path converts itself.
 *  - The others of a chunk (1.42337517e-20: |e| = 28), when every one is a plain decimal
 *    (the fast path's form without its limits), are converted by PyOS_string_to_double,
 *    Python's correctly rounded parser, which numpy's parser calls too. Otherwise all of
 *    them go back to Python, whose on_bad converts or rejects them one by one.
 *
 * The scan runs without the GIL: `data` is immutable bytes and `out` is held as a buffer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { OTHER, NUMBER, SPACE, OPEN, CLOSE, COMMA, NEWLINE };
static unsigned char char_class[256];

/* 10**k for k = 0..22: every one is exactly representable as a double */
static const double POW10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#define MAX_MANTISSA_CHARS 16    /* digits and dot after the sign: < 10**16, fits uint64 */
#define MAX_EXPONENT_DIGITS 3
#define TWO53 (UINT64_C(1) << 53)

typedef struct {
    int plain;               /* [+-]? mantissa ([eE] [+-]? digits+)? and nothing else, where
                                the mantissa has at least one digit and at most one '.' */
    int fast;                /* plain and within Clinger's fast path: value is set */
    double value;
} Number;

/* Reads the run of number characters at p (it ends before a '\n' at the latest); returns
 * the run's end. */
static const unsigned char *read_number(const unsigned char *p, Number *n)
{
    int negative = 0, dot = 0;
    Py_ssize_t digits = 0, decimals = 0;
    uint64_t mantissa = 0;       /* wraps past 19 digits: only used within 16 characters */
    if (*p == '+' || *p == '-')
        negative = *p++ == '-';
    const unsigned char *m = p;
    for (;; p++) {
        unsigned d = (unsigned)*p - '0';
        if (d < 10) {
            mantissa = mantissa * 10 + d;
            digits++;
            decimals += dot;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    Py_ssize_t mantissa_chars = p - m;
    Py_ssize_t exponent = 0, exponent_digits = 0;
    int negative_exponent = 0, exponent_ok = 1;
    if ((*p | 0x20) == 'e' && digits) {
        p++;
        if (*p == '+' || *p == '-')
            negative_exponent = *p++ == '-';
        for (unsigned d; (d = (unsigned)*p - '0') < 10; p++, exponent_digits++)
            if (exponent < 1000)                 /* beyond 3 digits only the count matters */
                exponent = exponent * 10 + d;
        exponent_ok = exponent_digits > 0;
    }
    n->plain = digits && exponent_ok && char_class[*p] != NUMBER;
    while (char_class[*p] == NUMBER)             /* "1.2.3", "1e5e5", "--1": not plain */
        p++;
    Py_ssize_t e = (negative_exponent ? -exponent : exponent) - decimals;
    n->fast = n->plain && mantissa_chars <= MAX_MANTISSA_CHARS
              && exponent_digits <= MAX_EXPONENT_DIGITS && mantissa < TWO53 && e >= -22 && e <= 22;
    if (n->fast) {
        double v = (double)mantissa;             /* exact */
        if (negative)
            v = -v;                              /* "-0" is -0.0, as float("-0") */
        n->value = e >= 0 ? v * POW10[e] : v / POW10[-e];
    }
    return p;
}

/* Whether the signature has a number between its characters k-1 and k. */
static int number_slot(const unsigned char *sig, Py_ssize_t n, Py_ssize_t k)
{
    return k > 0 && k < n && (sig[k - 1] == '[' || sig[k - 1] == ',')
        && (sig[k] == ',' || sig[k] == ']');
}

typedef struct {            /* the numbers outside the fast path: (index, start, end) */
    Py_ssize_t *v;
    Py_ssize_t len, cap;    /* in triples */
    int all_plain;          /* every one a plain decimal */
    int failed;             /* out of memory */
} SlowList;

static void slow_add(SlowList *s, Py_ssize_t index, Py_ssize_t a, Py_ssize_t b)
{
    if (s->len == s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 64;
        Py_ssize_t *v = PyMem_RawRealloc(s->v, (size_t)cap * 3 * sizeof(Py_ssize_t));
        if (!v) {
            s->failed = 1;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    Py_ssize_t *t = s->v + 3 * s->len++;
    t[0] = index;
    t[1] = a;
    t[2] = b;
}

/* The lines [start, stop) of data (data[stop - 1] == '\n'); returns the number of lines,
 * or -1 when one is not a frame of the signature. */
static Py_ssize_t scan_lines(const unsigned char *data, Py_ssize_t start, Py_ssize_t stop,
                             const unsigned char *first, Py_ssize_t first_len,
                             const unsigned char *sig, Py_ssize_t sig_len, Py_ssize_t per_frame,
                             double *out, Py_ssize_t capacity, SlowList *slow)
{
    const unsigned char *p = data + start, *end = data + stop;
    Py_ssize_t lines = 0, index = 0;
    while (p < end) {
        if (end - p < first_len || memcmp(p, first, (size_t)first_len) != 0)
            return -1;
        if (index + per_frame > capacity)
            return -1;
        p += first_len;
        Py_ssize_t k = 0;        /* sig[k]: the next bracket or comma expected */
        int filled = 0;          /* a number was read since sig[k - 1] */
        for (;;) {               /* every line ends with '\n' before `end` */
            unsigned char c = *p;
            switch (char_class[c]) {
            case SPACE:
                p++;
                continue;
            case NUMBER: {
                /* a second number in one slot ("1 2": one YAML scalar) or a number
                 * where the signature has none ("]5", "5[") */
                if (filled || !number_slot(sig, sig_len, k))
                    return -1;
                const unsigned char *a = p;
                Number n;
                p = read_number(p, &n);
                if (n.fast)
                    out[index] = n.value;
                else {
                    slow_add(slow, index, a - data, p - data);
                    slow->all_plain &= n.plain;
                }
                index++;
                filled = 1;
                continue;
            }
            case OPEN:
            case CLOSE:
            case COMMA:
                if (k >= sig_len || sig[k] != c)
                    return -1;
                if (!filled && number_slot(sig, sig_len, k)) {    /* an empty slot */
                    slow_add(slow, index, p - data, p - data);
                    slow->all_plain = 0;
                    index++;
                }
                k++;
                filled = 0;
                p++;
                continue;
            case NEWLINE:
                if (k != sig_len)
                    return -1;
                p++;
                break;
            default:             /* tab, '\r', '#', letters: not the fast path's layout */
                return -1;
            }
            break;
        }
        lines++;
    }
    return lines;
}

static int get_out(PyObject *obj, Py_buffer *v)
{
    if (PyObject_GetBuffer(obj, v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = v->format ? v->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (v->itemsize != 8 || *f != 'd' || (uintptr_t)v->buf % sizeof(double) != 0) {
        PyErr_SetString(PyExc_TypeError, "out: expected an aligned C-contiguous float64 array");
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* The slow numbers by Python's correctly rounded parser when all are plain decimals (as
 * the numpy path's np.fromstring, which calls the same parser); 0 when Python must see them. */
static int convert_plain(const unsigned char *data, const SlowList *s, double *out)
{
    if (!s->all_plain)
        return 0;
    for (Py_ssize_t i = 0; i < s->len; i++) {
        const Py_ssize_t *t = s->v + 3 * i;
        char *end;
        /* overflow_exception NULL: 1e999 is inf, as in numpy; the number's run ends at a
         * character no number continues with, so the parser stops at its end */
        double v = PyOS_string_to_double((const char *)data + t[1], &end, NULL);
        if (v == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (end != (const char *)data + t[2])
            return 0;
        out[t[0]] = v;
    }
    return 1;
}

static PyObject *slow_tuples(const SlowList *s)
{
    PyObject *list = PyList_New(s->len);
    if (!list)
        return NULL;
    for (Py_ssize_t i = 0; i < s->len; i++) {
        const Py_ssize_t *t = s->v + 3 * i;
        PyObject *item = Py_BuildValue("(nnn)", t[0], t[1], t[2]);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *parse_buffers(const Py_buffer *data, Py_ssize_t start, Py_ssize_t stop,
                               const Py_buffer *first, const Py_buffer *sig,
                               Py_ssize_t per_frame, const Py_buffer *out, Py_ssize_t base)
{
    const unsigned char *d = data->buf, *s = sig->buf;
    Py_ssize_t slots = 0;
    for (Py_ssize_t k = 0; k <= sig->len; k++)
        slots += number_slot(s, sig->len, k);
    Py_ssize_t capacity = out->len / 8 - base;
    if (start < 0 || stop > data->len || start >= stop || d[stop - 1] != '\n'
        || first->len < 1 || slots != per_frame || per_frame < 1 || base < 0 || capacity < 0) {
        PyErr_SetString(PyExc_ValueError, "parse_lines: lines, signature or out inconsistent");
        return NULL;
    }
    SlowList slow = {NULL, 0, 0, 1, 0};
    Py_ssize_t lines;
    Py_BEGIN_ALLOW_THREADS
    lines = scan_lines(d, start, stop, first->buf, first->len, s, sig->len, per_frame,
                       (double *)out->buf + base, capacity, &slow);
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (slow.failed)
        PyErr_NoMemory();
    else if (lines < 0)
        result = Py_NewRef(Py_None);
    else {
        if (convert_plain(d, &slow, (double *)out->buf + base))
            slow.len = 0;
        PyObject *tuples = slow_tuples(&slow);
        if (tuples)
            result = Py_BuildValue("(nN)", lines, tuples);
    }
    PyMem_RawFree(slow.v);
    return result;
}

static PyObject *parse_lines(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer data, first, sig, out;
    Py_ssize_t start, stop, per_frame, base;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "y*nny*y*nOn:parse_lines", &data, &start, &stop, &first, &sig,
                          &per_frame, &out_obj, &base))
        return NULL;
    PyObject *result = NULL;
    if (get_out(out_obj, &out) == 0) {
        result = parse_buffers(&data, start, stop, &first, &sig, per_frame, &out, base);
        PyBuffer_Release(&out);
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&first);
    PyBuffer_Release(&sig);
    return result;
}

static PyMethodDef methods[] = {
    {"parse_lines", parse_lines, METH_VARARGS,
     "parse_lines(data, start, stop, first, signature, per_frame, out, base) -> None or "
     "(lines, [(index, a, b), ...]): frame lines into out (see the module source)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef seq_module = {
    PyModuleDef_HEAD_INIT, "_seq_c",
    "Frame lines of Choreonoid .seq files, parsed in C (the numpy path's compiled twin).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__seq_c(void)
{
    for (const char *c = "0123456789.eE+-"; *c; c++)
        char_class[(unsigned char)*c] = NUMBER;
    char_class[' '] = SPACE;
    char_class['['] = OPEN;
    char_class[']'] = CLOSE;
    char_class[','] = COMMA;
    char_class['\n'] = NEWLINE;
    return PyModule_Create(&seq_module);
}
