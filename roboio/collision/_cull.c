/* Pair culling for collision queries: roboio's broad phase (the narrow phase is the engine's).
 *
 * Every body (a robot link, an object) has a box fixed in its own frame: centre c and half
 * extents h (inflated by the body's collision margin), the axis-aligned box of its geometry
 * in the body frame. Given the bodies' world frames (an (L, 4, 4) float64 array, row-major,
 * as Robot.fk returns them), a pair of bodies can only collide when their two boxes, moved by
 * the frames, overlap: tested exactly with the separating-axis theorem (15 axes), with a
 * small slack so that rounding never rejects a pair whose boxes touch. The numpy
 * implementation (roboio/collision/cull.py) is the reference and computes the same verdicts.
 *
 * Culler(centers (L*3,), halves (L*3,), radii (L,), pairs (2P,) int64): the bodies' boxes, the
 * radii of their bounding spheres about the box centres, and the candidate pairs.
 *   overlapping(frames) -> list of the indices of the pairs whose boxes overlap.
 *   lower_bounds(frames, out): out[k] = |c_a - c_b| - r_a - r_b (world box centres), a lower
 *   bound of the distance between the two bodies' geometries (minus their margins).
 *
 * No numpy C API: arrays arrive through the buffer protocol.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    Py_ssize_t nbodies, npairs;
    double *center;     /* 3 per body, body frame */
    double *half;       /* 3 per body */
    double *radius;     /* 1 per body */
    long long *pairs;   /* 2 per pair */
    double *world;      /* scratch: 12 per body (rotation, then centre in the world) */
} Culler;

#define SLACK_ABS 1e-9
#define SLACK_REL 1e-9

static void Culler_dealloc(Culler *self)
{
    PyMem_Free(self->center);
    PyMem_Free(self->half);
    PyMem_Free(self->radius);
    PyMem_Free(self->pairs);
    PyMem_Free(self->world);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int get_buffer(PyObject *obj, Py_buffer *v, const char *fmt, Py_ssize_t itemsize,
                      const char *what)
{
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = v->format ? v->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (v->itemsize != itemsize || strchr(fmt, *f) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous array of %s", what,
                     itemsize == 8 && fmt[0] == 'd' ? "float64" : "int64");
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

static int copy_array(PyObject *obj, void **dst, const char *fmt, Py_ssize_t count,
                      const char *what)
{
    Py_buffer v;
    if (get_buffer(obj, &v, fmt, 8, what) < 0)
        return -1;
    if (v.len != count * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd values, got %zd", what, count, v.len / 8);
        PyBuffer_Release(&v);
        return -1;
    }
    *dst = PyMem_Malloc(count > 0 ? (size_t)count * 8 : 8);
    if (!*dst) {
        PyBuffer_Release(&v);
        PyErr_NoMemory();
        return -1;
    }
    if (count > 0)
        memcpy(*dst, v.buf, (size_t)count * 8);
    PyBuffer_Release(&v);
    return 0;
}

static int Culler_init(Culler *self, PyObject *args, PyObject *kwds)
{
    PyObject *c, *h, *r, *p;
    if (!PyArg_ParseTuple(args, "OOOO", &c, &h, &r, &p))
        return -1;
    PyMem_Free(self->center);
    PyMem_Free(self->half);
    PyMem_Free(self->radius);
    PyMem_Free(self->pairs);
    PyMem_Free(self->world);
    self->center = self->half = self->radius = self->world = NULL;
    self->pairs = NULL;
    self->nbodies = self->npairs = 0;
    Py_buffer v;
    if (get_buffer(r, &v, "d", 8, "radii") < 0)
        return -1;
    Py_ssize_t n = v.len / 8;
    PyBuffer_Release(&v);
    if (get_buffer(p, &v, "qlL", 8, "pairs") < 0)
        return -1;
    Py_ssize_t np2 = v.len / 8;
    PyBuffer_Release(&v);
    if (np2 % 2) {
        PyErr_SetString(PyExc_ValueError, "pairs: expected an even number of indices");
        return -1;
    }
    self->nbodies = n;
    self->npairs = np2 / 2;
    if (copy_array(c, (void **)&self->center, "d", 3 * n, "centers") < 0 ||
        copy_array(h, (void **)&self->half, "d", 3 * n, "halves") < 0 ||
        copy_array(r, (void **)&self->radius, "d", n, "radii") < 0 ||
        copy_array(p, (void **)&self->pairs, "qlL", np2, "pairs") < 0)
        return -1;
    for (Py_ssize_t k = 0; k < np2; k++) {
        if (self->pairs[k] < 0 || self->pairs[k] >= n) {
            PyErr_Format(PyExc_ValueError, "pairs: body index %lld out of range (%zd bodies)",
                         self->pairs[k], n);
            return -1;
        }
    }
    self->world = PyMem_Malloc(n > 0 ? (size_t)n * 12 * sizeof(double) : 8);
    if (!self->world) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* World rotation (row-major 3x3) and box centre of every body from its frame. */
static int place(Culler *self, PyObject *frames_obj)
{
    Py_buffer v;
    if (get_buffer(frames_obj, &v, "d", 8, "frames") < 0)
        return -1;
    if (v.len != self->nbodies * 16 * 8) {
        PyErr_Format(PyExc_ValueError, "frames: expected (%zd, 4, 4) float64", self->nbodies);
        PyBuffer_Release(&v);
        return -1;
    }
    const double *F = (const double *)v.buf;
    for (Py_ssize_t i = 0; i < self->nbodies; i++) {
        const double *M = F + 16 * i;
        const double *c = self->center + 3 * i;
        double *W = self->world + 12 * i;
        for (int r = 0; r < 3; r++) {
            W[3 * r + 0] = M[4 * r + 0];
            W[3 * r + 1] = M[4 * r + 1];
            W[3 * r + 2] = M[4 * r + 2];
            W[9 + r] = M[4 * r] * c[0] + M[4 * r + 1] * c[1] + M[4 * r + 2] * c[2] + M[4 * r + 3];
        }
    }
    PyBuffer_Release(&v);
    return 0;
}

/* Separating-axis test of two oriented boxes; 1 when they may overlap. Ra, Rb row-major
 * rotations (columns: the box axes in the world), ca, cb world centres, a, b half extents. */
static int boxes_overlap(const double *Ra, const double *ca, const double *a,
                         const double *Rb, const double *cb, const double *b)
{
    double R[3][3], AR[3][3], t[3], d[3];
    for (int k = 0; k < 3; k++)
        d[k] = cb[k] - ca[k];
    double scale = fabs(d[0]) + fabs(d[1]) + fabs(d[2]) + a[0] + a[1] + a[2] + b[0] + b[1] + b[2];
    double slack = SLACK_ABS + SLACK_REL * scale;
    for (int i = 0; i < 3; i++) {
        t[i] = Ra[i] * d[0] + Ra[3 + i] * d[1] + Ra[6 + i] * d[2];
        for (int j = 0; j < 3; j++) {
            R[i][j] = Ra[i] * Rb[j] + Ra[3 + i] * Rb[3 + j] + Ra[6 + i] * Rb[6 + j];
            AR[i][j] = fabs(R[i][j]) + 1e-12;
        }
    }
    for (int i = 0; i < 3; i++)
        if (fabs(t[i]) > a[i] + b[0] * AR[i][0] + b[1] * AR[i][1] + b[2] * AR[i][2] + slack)
            return 0;
    for (int j = 0; j < 3; j++) {
        double tj = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        if (fabs(tj) > a[0] * AR[0][j] + a[1] * AR[1][j] + a[2] * AR[2][j] + b[j] + slack)
            return 0;
    }
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = a[i1] * AR[i2][j] + a[i2] * AR[i1][j];
            double rb = b[j1] * AR[i][j2] + b[j2] * AR[i][j1];
            if (fabs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) > ra + rb + slack)
                return 0;
        }
    }
    return 1;
}

static PyObject *Culler_overlapping(Culler *self, PyObject *frames)
{
    if (place(self, frames) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (Py_ssize_t k = 0; k < self->npairs; k++) {
        long long i = self->pairs[2 * k], j = self->pairs[2 * k + 1];
        const double *Wi = self->world + 12 * i, *Wj = self->world + 12 * j;
        if (!boxes_overlap(Wi, Wi + 9, self->half + 3 * i, Wj, Wj + 9, self->half + 3 * j))
            continue;
        PyObject *v = PyLong_FromSsize_t(k);
        if (!v || PyList_Append(out, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    return out;
}

static PyObject *Culler_lower_bounds(Culler *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "lower_bounds(frames, out)");
        return NULL;
    }
    if (place(self, args[0]) < 0)
        return NULL;
    Py_buffer v;
    if (get_buffer(args[1], &v, "d", 8, "out") < 0)
        return NULL;
    if (v.readonly || v.len != self->npairs * 8) {
        PyErr_Format(PyExc_ValueError, "out: expected a writable (%zd,) float64 array", self->npairs);
        PyBuffer_Release(&v);
        return NULL;
    }
    double *out = (double *)v.buf;
    for (Py_ssize_t k = 0; k < self->npairs; k++) {
        long long i = self->pairs[2 * k], j = self->pairs[2 * k + 1];
        const double *ci = self->world + 12 * i + 9, *cj = self->world + 12 * j + 9;
        double dx = ci[0] - cj[0], dy = ci[1] - cj[1], dz = ci[2] - cj[2];
        out[k] = sqrt(dx * dx + dy * dy + dz * dz) - self->radius[i] - self->radius[j];
    }
    PyBuffer_Release(&v);
    Py_RETURN_NONE;
}

static PyMethodDef Culler_methods[] = {
    {"overlapping", (PyCFunction)Culler_overlapping, METH_O,
     "overlapping(frames) -> list of the indices of the pairs whose boxes overlap"},
    {"lower_bounds", (PyCFunction)(void (*)(void))Culler_lower_bounds, METH_FASTCALL,
     "lower_bounds(frames, out): bounding-sphere distance lower bound of every pair"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CullerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "roboio.collision._cull.Culler",
    .tp_basicsize = sizeof(Culler),
    .tp_dealloc = (destructor)Culler_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Culler(centers, halves, radii, pairs): oriented-box pair culling",
    .tp_methods = Culler_methods,
    .tp_init = (initproc)Culler_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef cull_module = {
    PyModuleDef_HEAD_INIT, "_cull",
    "Oriented-box pair culling of collision queries (roboio's compiled broad phase).", -1, NULL,
};

PyMODINIT_FUNC PyInit__cull(void)
{
    if (PyType_Ready(&CullerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&cull_module);
    if (!m)
        return NULL;
    Py_INCREF(&CullerType);
    if (PyModule_AddObject(m, "Culler", (PyObject *)&CullerType) < 0) {
        Py_DECREF(&CullerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
