"""Couplings that are not affine: link values as functions of driver values.

A ``nonlinear`` :class:`~roboio.model.robot.Driver` moves its links (``dofs``) by a
:class:`Coupling`: ``coupling.inputs`` are the indices of the drivers whose values the
functions read (argument ``k`` is the value of ``robot.drivers[inputs[k]]``), and
``coupling.evaluate(args)`` gives one value per link of the driver, in ``dofs`` order.
Two kinds:

* :class:`ExpressionCoupling`: one :class:`Expr` per link -- OpenRAVE/COLLADA mimic
  formulas (with OpenRAVE's clamp to the mimic joint's limits, its ``SSSA``/``SASA``/``SASS``
  triangle functions and the rest of its function parser), MJCF's ``<equality joint
  polycoef>`` polynomials, a driver's own value (``Arg``);
* :class:`RotationVectorCoupling`: an OpenRAVE spherical joint, whose three DOF values are
  a rotation vector, moving three revolute links about orthogonal axes (exact Euler angles
  of the rotation, for every value).

Every function is vectorised: arguments may be arrays of any (common) shape, so a batch of
configurations is evaluated at once (:meth:`~roboio.model.robot.Robot.config_from_drivers`
and :meth:`~roboio.model.joint_space.JointSpace.sample`). Units are the model's (radians,
metres). ``invert(link_values)`` gives the inputs back where the coupling can say them
(the rotation vector of a spherical joint); an expression coupling returns None (the
driver's value is then its leader link's value).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

__all__ = ["Expr", "Const", "Arg", "Op", "Coupling", "ExpressionCoupling",
           "RotationVectorCoupling", "FUNCTIONS", "affine_fit", "linearized", "expression_text",
           "polynomial_in_range", "without_clamp", "rebase", "couple", "polynomial", "without_driver"]

# name -> number of arguments (None: any number >= 1)
FUNCTIONS = {
    "+": 2, "-": 2, "*": 2, "/": 2, "%": 2, "neg": 1, "pow": 2,
    "<": 2, "<=": 2, ">": 2, ">=": 2, "=": 2, "!=": 2, "and": 2, "or": 2, "not": 1, "if": 3,
    "sin": 1, "cos": 1, "tan": 1, "asin": 1, "acos": 1, "atan": 1, "atan2": 2, "sinh": 1,
    "cosh": 1, "tanh": 1, "asinh": 1, "acosh": 1, "atanh": 1, "exp": 1, "exp2": 1, "log": 1,
    "log2": 1, "log10": 1, "sqrt": 1, "cbrt": 1, "abs": 1, "floor": 1, "ceil": 1, "trunc": 1,
    "int": 1, "min": 2, "max": 2, "hypot": 2, "cot": 1, "sec": 1, "csc": 1,
    "SSSA": 3, "SASA": 3, "SASS": 3, "clamp": 3,
}
_EPS = 1e-14          # OpenRAVE's function parser compares doubles within this
_SHOWN_INFIX = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "=", "!=", "and", "or"}


class Expr:
    """A function of the arguments ``args`` (a sequence of arrays or floats)."""

    def evaluate(self, args):
        raise NotImplementedError

    def args_used(self) -> set:
        out: set = set()
        self._collect(out)
        return out

    def _collect(self, out: set) -> None:
        pass

    def polynomial(self, max_degree: int = 4) -> Optional[tuple]:
        """``(k, coefficients c0..cn)`` when the expression is ``sum c_i x_k^i`` in one
        argument ``k`` with n <= ``max_degree`` (k None for a constant), else None."""
        r = _poly(self, max_degree)
        if r is None:
            return None
        k, c = r
        while len(c) > 1 and c[-1] == 0.0:
            c = c[:-1]
        return k, tuple(float(x) for x in c)


class Const(Expr):
    __slots__ = ("value",)

    def __init__(self, value: float):
        self.value = float(value)

    def evaluate(self, args):
        return self.value

    def __eq__(self, other):
        return isinstance(other, Const) and other.value == self.value

    def __repr__(self):
        return format(self.value, ".12g")


class Arg(Expr):
    """The value of argument ``k`` (the driver ``coupling.inputs[k]``)."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = int(k)

    def evaluate(self, args):
        return args[self.k]

    def _collect(self, out):
        out.add(self.k)

    def __eq__(self, other):
        return isinstance(other, Arg) and other.k == self.k

    def __repr__(self):
        return f"x{self.k}"


class Op(Expr):
    """``name(*children)``; ``name`` one of :data:`FUNCTIONS`."""

    __slots__ = ("name", "children")

    def __init__(self, name: str, children: Sequence[Expr]):
        if name not in FUNCTIONS:
            raise ValueError(f"unknown function {name!r}")
        if len(children) != FUNCTIONS[name]:
            raise ValueError(f"{name} takes {FUNCTIONS[name]} arguments, got {len(children)}")
        self.name = name
        self.children = tuple(children)

    def evaluate(self, args):
        v = [c.evaluate(args) for c in self.children]
        with np.errstate(all="ignore"):
            return _apply(self.name, v)

    def _collect(self, out):
        for c in self.children:
            c._collect(out)

    def __eq__(self, other):
        return isinstance(other, Op) and other.name == self.name and other.children == self.children

    def __repr__(self):
        if self.name in _SHOWN_INFIX:
            return f"({self.children[0]!r} {self.name} {self.children[1]!r})"
        if self.name == "neg":
            return f"-{self.children[0]!r}"
        if self.name == "pow":
            return f"({self.children[0]!r} ^ {self.children[1]!r})"
        return f"{self.name}({', '.join(map(repr, self.children))})"


def _fint(x):
    return np.where(np.asarray(x) >= 0, np.floor(np.asarray(x) + 0.5), np.ceil(np.asarray(x) - 0.5))


def _b(x):
    return np.where(x, 1.0, 0.0)


def _apply(name, v):
    a = v[0]
    b = v[1] if len(v) > 1 else None
    if name == "+":
        return a + b
    if name == "-":
        return a - b
    if name == "*":
        return a * b
    if name == "/":
        return np.divide(a, b)
    if name == "%":
        return np.fmod(a, b)
    if name == "neg":
        return -a
    if name == "pow":
        return np.power(np.asarray(a, float), b)
    if name == "clamp":
        return np.minimum(np.maximum(a, b), v[2])
    if name in ("<", "<=", ">", ">=", "=", "!="):
        d = np.asarray(a, float) - b
        return _b({"<": d < -_EPS, "<=": d <= _EPS, ">": d > _EPS, ">=": d >= -_EPS,
                   "=": np.abs(d) <= _EPS, "!=": np.abs(d) > _EPS}[name])
    if name == "and":
        return _b((_fint(a) != 0) & (_fint(b) != 0))
    if name == "or":
        return _b((_fint(a) != 0) | (_fint(b) != 0))
    if name == "not":
        return _b(_fint(a) == 0)
    if name == "if":
        return np.where(_fint(a) != 0, b, v[2])
    if name == "SSSA":        # OpenRAVE: angle opposite side a of the triangle of sides a, b, c
        c = v[2]
        f = (a * a + b * b - c * c) / (2 * b)
        return np.arctan2(np.sqrt(a * a - f * f), b - f)
    if name == "SASA":        # sides a, b and the angle gamma between them: the angle at b
        a_, gamma, b_ = a, b, v[2]
        return np.arctan2(a_ * np.sin(gamma), b_ - a_ * np.cos(gamma))
    if name == "SASS":        # the third side
        a_, gamma, b_ = a, b, v[2]
        return np.sqrt(a_ * a_ + b_ * b_ - 2 * a_ * b_ * np.cos(gamma))
    fn = _UNARY.get(name)
    if fn is not None:
        return fn(np.asarray(a, float))
    fn = _BINARY[name]
    return fn(np.asarray(a, float), b)


_UNARY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
          "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
          "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp,
          "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10, "sqrt": np.sqrt,
          "cbrt": np.cbrt, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
          "int": _fint, "cot": lambda x: 1.0 / np.tan(x), "sec": lambda x: 1.0 / np.cos(x),
          "csc": lambda x: 1.0 / np.sin(x)}
_BINARY = {"atan2": np.arctan2, "min": np.minimum, "max": np.maximum, "hypot": np.hypot}


def _pmul(p, q):
    out = [0.0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out


def _padd(p, q, s=1.0):
    n = max(len(p), len(q))
    return [(p[i] if i < len(p) else 0.0) + s * (q[i] if i < len(q) else 0.0) for i in range(n)]


def _poly(e, max_degree):
    """``(arg or None, coefficients)`` of a polynomial in at most one argument, else None."""
    if isinstance(e, Const):
        return None, [e.value]
    if isinstance(e, Arg):
        return e.k, [0.0, 1.0]
    if not isinstance(e, Op):
        return None
    if e.name in ("+", "-", "*", "neg", "pow"):
        parts = [_poly(c, max_degree) for c in e.children]
        if any(p is None for p in parts):
            if e.name == "pow":
                return None
            return None
        ks = {p[0] for p in parts if p[0] is not None}
        if len(ks) > 1:
            return None
        k = ks.pop() if ks else None
        if e.name == "neg":
            return k, [-c for c in parts[0][1]]
        if e.name == "+":
            return k, _padd(parts[0][1], parts[1][1])
        if e.name == "-":
            return k, _padd(parts[0][1], parts[1][1], -1.0)
        if e.name == "*":
            c = _pmul(parts[0][1], parts[1][1])
            return (k, c) if len(c) - 1 <= max_degree else None
        # pow: a constant non-negative integer exponent
        base, ex = parts
        if ex[0] is not None or len(ex[1]) != 1:
            return None
        n = ex[1][0]
        if n != int(n) or n < 0 or n > max_degree:
            return None
        c = [1.0]
        for _ in range(int(n)):
            c = _pmul(c, base[1])
        return (k, c) if len(c) - 1 <= max_degree else None
    if e.name == "/":
        num, den = _poly(e.children[0], max_degree), _poly(e.children[1], max_degree)
        if num is None or den is None or den[0] is not None or len(den[1]) != 1 or den[1][0] == 0:
            return None
        return num[0], [c / den[1][0] for c in num[1]]
    return None


class Coupling:
    """Link values as functions of driver values (see the module docstring)."""

    inputs: tuple = ()

    def evaluate(self, args):
        """Values of the driver's links (a list, one array per link) for ``args`` (one value
        or array per input)."""
        raise NotImplementedError

    def invert(self, link_values) -> Optional[list]:
        """The inputs that give ``link_values`` (one per link), or None when the coupling
        cannot say (the driver's value is then its leader link's value)."""
        return None

    def remap(self, old_to_new: dict) -> "Coupling":
        """A copy reading driver ``old_to_new[i]`` where this one reads driver ``i``."""
        raise NotImplementedError


class ExpressionCoupling(Coupling):
    """One :class:`Expr` per link of the driver. ``inputs``: driver indices."""

    def __init__(self, inputs: Sequence[int], functions: Sequence[Expr]):
        self.inputs = tuple(int(i) for i in inputs)
        self.functions = list(functions)
        for f in self.functions:
            bad = [k for k in f.args_used() if not 0 <= k < len(self.inputs)]
            if bad:
                raise ValueError(f"function {f!r} reads argument {bad[0]}, but the coupling has "
                                 f"{len(self.inputs)} inputs")

    def evaluate(self, args):
        shape = np.broadcast(*[np.asarray(a) for a in args]).shape if args else ()
        return [np.broadcast_to(np.asarray(f.evaluate(args), float), shape) for f in self.functions]

    def direct(self, own: int) -> Optional[int]:
        """The position of the link whose function is the value of driver ``own`` itself."""
        if own not in self.inputs:
            return None
        k = self.inputs.index(own)
        for pos, f in enumerate(self.functions):
            if f == Arg(k):
                return pos
        return None

    def remap(self, old_to_new: dict) -> "ExpressionCoupling":
        return ExpressionCoupling([old_to_new[i] for i in self.inputs], self.functions)

    def __repr__(self):
        return f"ExpressionCoupling(inputs={self.inputs}, functions={self.functions})"


def rebase(e: Expr, args) -> Expr:
    """``e`` with every ``Arg(k)`` replaced by the expression ``args[k]``."""
    if isinstance(e, Arg):
        return args[e.k]
    if isinstance(e, Op):
        return Op(e.name, [rebase(c, args) for c in e.children])
    return e


def polynomial(coefficients, x: Expr) -> Expr:
    """``c0 + c1 x + c2 x^2 + ...`` as an expression (terms with a zero coefficient left
    out; an all-zero polynomial is ``Const(0)``)."""
    terms = []
    for n, c in enumerate(float(c) for c in coefficients):
        if c == 0.0:
            continue
        power = Const(1.0) if n == 0 else (x if n == 1 else Op("pow", [x, Const(n)]))
        terms.append(Const(c) if n == 0 else (power if c == 1.0 else Op("*", [Const(c), power])))
    if not terms:
        return Const(0.0)
    out = terms[0]
    for t in terms[1:]:
        out = Op("+", [out, t])
    return out


def couple(drivers: list, link: int, expr: Expr, inputs: Sequence[int]) -> None:
    """Make link ``link`` follow ``expr`` of the values of the drivers ``inputs`` (``Arg(k)``
    is the value of ``drivers[inputs[k]]``): the link joins the driver ``inputs[0]``, which
    becomes a ``nonlinear`` driver whose own links keep their functions (a normal link its
    value, an affine one its scale and offset) and whose leader stays its leader. Links are
    kept in model order (the order a file declares couplings in changes when it is written;
    the link order does not)."""
    own = inputs[0]
    d = drivers[own]
    if d.type == "nonlinear":
        fns, ins = list(d.coupling.functions), list(d.coupling.inputs)
    else:
        ins = [own]
        if d.type == "affine":
            fns = [Arg(0) if (s == 1.0 and o == 0.0) else
                   Op("+", [Op("*", [Const(s), Arg(0)]), Const(o)])
                   for s, o in zip(d.scale, d.offset)]
        else:
            fns = [Arg(0) for _ in d.dofs]
    for x in inputs:
        if x not in ins:
            ins.append(x)
    fn = rebase(expr, [Arg(ins.index(x)) for x in inputs])
    leader = d.leader if d.leader is not None else (d.dofs[0] if d.dofs else None)
    dofs = list(d.dofs)
    at = len(dofs)
    while at > 1 and dofs[at - 1] > link:
        at -= 1
    dofs.insert(at, link)
    fns.insert(at, fn)
    d.type, d.scale, d.offset = "nonlinear", [], []
    d.dofs = dofs
    d.coupling = ExpressionCoupling(ins, fns)
    d.leader = leader


def without_driver(drivers: list, gone) -> list:
    """``drivers`` without the driver ``gone``, every coupling reading the same drivers as
    before at their new indices (couplings name their inputs by index: removing a driver
    before an input left them reading the next one). ``ValueError`` if a coupling reads
    ``gone`` itself."""
    new_index, kept = {}, []
    for i, d in enumerate(drivers):
        if d is gone:
            continue
        new_index[i] = len(kept)
        kept.append(d)
    for d in kept:
        c = getattr(d, "coupling", None)
        if c is None:
            continue
        if any(i not in new_index for i in c.inputs):
            raise ValueError(f"driver {getattr(d, 'name', '?')!r} reads the driver removed")
        d.coupling = c.remap(new_index)
    return kept


class RotationVectorCoupling(Coupling):
    """An OpenRAVE spherical joint: inputs ``(u0, u1, u2)`` are three drivers whose values
    ``u`` give the rotation vector ``v = basis @ u`` (rotation by ``|v|`` about ``v``, in
    the joint frame); the driver's three links rotate about ``sign * Mp[:, k]`` (``Mp`` the
    proper rotation ``sign * basis``) by ``sign`` times the x-y-z Euler angles of
    ``Mp^T R(v) Mp``: together exactly ``R(v)``, for every value."""

    def __init__(self, inputs: Sequence[int], basis=np.eye(3)):
        self.inputs = tuple(int(i) for i in inputs)
        if len(self.inputs) != 3:
            raise ValueError("a rotation-vector coupling has three inputs")
        self.basis = np.array(basis, float).reshape(3, 3)
        self.sign = -1.0 if np.linalg.det(self.basis) < 0 else 1.0

    def evaluate(self, args):
        u = np.stack(np.broadcast_arrays(*[np.asarray(a, float) for a in args]), axis=-1)
        Mp = self.sign * self.basis
        v = u @ self.basis.T
        R = _exp_so3(v)
        E = _euler_xyz(np.swapaxes(Mp, -1, -2) @ R @ Mp)
        return [self.sign * E[..., k] for k in range(3)]

    def invert(self, link_values):
        q = np.stack(np.broadcast_arrays(*[np.asarray(a, float) for a in link_values]), axis=-1)
        Mp = self.sign * self.basis
        e = self.sign * q
        Rp = _rot(0, e[..., 0]) @ _rot(1, e[..., 1]) @ _rot(2, e[..., 2])
        v = _log_so3(Mp @ Rp @ Mp.T)
        u = v @ np.linalg.inv(self.basis).T
        return [u[..., k] for k in range(3)]

    def remap(self, old_to_new: dict) -> "RotationVectorCoupling":
        return RotationVectorCoupling([old_to_new[i] for i in self.inputs], self.basis)

    def __repr__(self):
        return f"RotationVectorCoupling(inputs={self.inputs})"


def _rot(axis: int, a):
    a = np.asarray(a, float)
    c, s = np.cos(a), np.sin(a)
    R = np.zeros(a.shape + (3, 3))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R[..., axis, axis] = 1.0
    R[..., i, i], R[..., i, j], R[..., j, i], R[..., j, j] = c, -s, s, c
    return R


def _exp_so3(v):
    """Rotation matrices of rotation vectors ``v`` (..., 3) (Rodrigues)."""
    th = np.linalg.norm(v, axis=-1)
    safe = np.where(th > 0, th, 1.0)
    k = v / safe[..., None]
    K = np.zeros(v.shape[:-1] + (3, 3))
    K[..., 0, 1], K[..., 0, 2] = -k[..., 2], k[..., 1]
    K[..., 1, 0], K[..., 1, 2] = k[..., 2], -k[..., 0]
    K[..., 2, 0], K[..., 2, 1] = -k[..., 1], k[..., 0]
    s, c = np.sin(th)[..., None, None], np.cos(th)[..., None, None]
    R = np.eye(3) + s * K + (1 - c) * (K @ K)
    return np.where((th > 0)[..., None, None], R, np.eye(3))


def _log_so3(R):
    """Rotation vectors of rotation matrices (..., 3, 3), angle in [0, pi] (from the unit
    quaternion, as OpenRAVE measures a spherical joint)."""
    R = np.asarray(R, float)
    tr = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    # quaternion, Shepperd's method (robust everywhere)
    w = np.sqrt(np.maximum(0.0, 1 + tr)) / 2
    x = np.sqrt(np.maximum(0.0, 1 + R[..., 0, 0] - R[..., 1, 1] - R[..., 2, 2])) / 2
    y = np.sqrt(np.maximum(0.0, 1 - R[..., 0, 0] + R[..., 1, 1] - R[..., 2, 2])) / 2
    z = np.sqrt(np.maximum(0.0, 1 - R[..., 0, 0] - R[..., 1, 1] + R[..., 2, 2])) / 2
    x = np.copysign(x, R[..., 2, 1] - R[..., 1, 2])
    y = np.copysign(y, R[..., 0, 2] - R[..., 2, 0])
    z = np.copysign(z, R[..., 1, 0] - R[..., 0, 1])
    vec = np.stack([x, y, z], axis=-1)
    s = np.linalg.norm(vec, axis=-1)
    ang = 2 * np.arctan2(s, w)
    mult = np.where(s > 1e-300, ang / np.where(s > 1e-300, s, 1.0), 2.0)
    return vec * mult[..., None]


def _euler_xyz(R):
    """Angles (a, b, c) with ``Rx(a) Ry(b) Rz(c) = R`` (..., 3)."""
    b = np.arcsin(np.clip(R[..., 0, 2], -1.0, 1.0))
    regular = np.abs(R[..., 0, 2]) < 1 - 1e-12
    a = np.where(regular, np.arctan2(-R[..., 1, 2], R[..., 2, 2]), np.arctan2(R[..., 2, 1], R[..., 1, 1]))
    c = np.where(regular, np.arctan2(-R[..., 0, 1], R[..., 0, 0]), 0.0)
    return np.stack([a, b, c], axis=-1)


def affine_fit(f, lo: float, hi: float, samples: int = 201) -> tuple:
    """``(scale, offset, max_error)``: the least-squares line through ``f`` (a function of
    one value, vectorised) over ``[lo, hi]`` (+-pi where a bound is infinite), and the
    largest distance between ``f`` and that line there (NaN values of ``f`` ignored)."""
    lo = lo if math.isfinite(lo) else -math.pi
    hi = hi if math.isfinite(hi) else math.pi
    if hi < lo:
        lo, hi = hi, lo
    x = np.linspace(lo, hi, samples)
    y = np.asarray(f(x), float) * np.ones_like(x)
    ok = np.isfinite(y)
    if ok.sum() < 2 or hi == lo:
        c = float(y[ok][0]) if ok.any() else 0.0
        return 0.0, c, float(np.max(np.abs(y[ok] - c))) if ok.any() else math.inf
    # the normal equations of a line, centred (numpy's pairwise sums, no LAPACK: the
    # coefficients written to files have the same bits on every machine)
    xs, ys = x[ok], y[ok]
    dx, dy = xs - xs.mean(), ys - ys.mean()
    s = float(np.sum(dx * dy) / np.sum(dx * dx))
    o = float(ys.mean() - s * xs.mean())
    return s, o, float(np.max(np.abs(ys - (s * xs + o))))


def linearized(robot, keep=lambda driver, index: False, silent=lambda driver, index: False) -> tuple:
    """``(robot', notes)``: ``robot`` with every nonlinear driver that ``keep(driver,
    index)`` rejects replaced by what formats without such couplings hold -- an affine
    driver with each link's least-squares line over the driver's range (other inputs at
    their initial values), or, for a spherical joint, three normal drivers of its three
    links (the same motions, other joint values). ``notes``: ``(what, largest error)`` per
    replaced coupling, for the conversion report (none for the drivers ``silent(driver,
    index)`` names: a target that restores what the replacement changes). ``robot`` itself
    is not changed (a copy is made when anything is replaced)."""
    todo = [i for i, d in enumerate(robot.drivers) if d.type == "nonlinear" and not keep(d, i)]
    if not todo:
        return robot, []
    out = robot.copy()
    u0 = robot.drivers_from_config(robot.config)
    notes = []
    for i in todo:
        d = out.drivers[i]
        c = d.coupling
        names = [robot.drivers[j].name for j in c.inputs]
        if isinstance(c, RotationVectorCoupling):
            pos = c.inputs.index(i) if i in c.inputs else 0
            link = d.dofs[pos]
            quiet = silent(robot.drivers[i], i)
            d.type, d.dofs, d.coupling, d.leader = "normal", [link], None, link
            if quiet:
                continue
            notes.append((f"driver {d.name!r} ({robot.links[link].name}): a rotation-vector DOF of "
                          f"the spherical joint {', '.join(names)}, written as the Euler angle of its "
                          "link (the same rotations, other joint values)", None))
            continue
        own = c.inputs.index(i) if i in c.inputs else 0
        lo, hi = d.qmin, d.qmax            # the driver's range, else its leader link's
        lead = d.leader if d.leader is not None else (d.dofs[0] if d.dofs else None)
        if lead is not None:
            lo = lo if math.isfinite(lo) else float(robot.qmin[lead])
            hi = hi if math.isfinite(hi) else float(robot.qmax[lead])
        scale, offset, worst = [], [], 0.0
        for pos, f in enumerate(c.functions):
            def g(x, f=f):
                args = [np.full_like(x, u0[j]) for j in c.inputs]
                args[own] = x
                return f.evaluate(args)
            s, o, err = affine_fit(g, lo, hi)
            if f == Arg(own):
                s, o, err = 1.0, 0.0, 0.0
            scale.append(s)
            offset.append(o)
            if err > 0 or len(c.inputs) > 1:
                link = robot.links[d.dofs[pos]]
                unit = "m" if link.is_prismatic else "rad"
                others = (f" (other joints {', '.join(n for k, n in enumerate(names) if k != own)} "
                          "held at their initial values)") if len(c.inputs) > 1 else ""
                notes.append((f"link {link.name!r} follows joint {d.name!r} by {expression_text(f, names)}: "
                              f"written as the nearest affine coupling {s:.6g} x {'-' if o < 0 else '+'} "
                              f"{abs(o):.6g}{others}",
                              (err, unit)))
                worst = max(worst, err)
        leader = d.leader
        d.type, d.scale, d.offset, d.coupling = "affine", scale, offset, None
        d.leader = leader
    return out, notes


def expression_text(f: Expr, names) -> str:
    """``f`` as text with its arguments named (``names[k]`` for argument k)."""
    text = repr(f)
    for k in sorted(range(len(names)), reverse=True):
        text = text.replace(f"x{k}", names[k])
    return text


def polynomial_in_range(f: Expr, lo: float, hi: float, max_degree: int = 4) -> Optional[tuple]:
    """:meth:`Expr.polynomial` of ``f``, where an outer ``clamp`` that the polynomial does not
    reach for arguments in ``[lo, hi]`` (+-pi where infinite) is ignored; else None."""
    p = f.polynomial(max_degree)
    if p is None and isinstance(f, Op) and f.name == "clamp":
        inner = f.children[0]
        p = inner.polynomial(max_degree)
        if p is not None:
            x = np.linspace(lo if math.isfinite(lo) else -math.pi, hi if math.isfinite(hi) else math.pi, 201)
            y = np.asarray(inner.evaluate([x]), float) * np.ones_like(x)
            if y.min() < f.children[1].evaluate([]) or y.max() > f.children[2].evaluate([]):
                return None
    return p


def without_clamp(f: Expr, lo: float, hi: float) -> Expr:
    """``f`` without an outer ``clamp`` to exactly ``[lo, hi]`` (OpenRAVE clamps a mimic
    joint to its limits by itself: a writer for it leaves that clamp implicit)."""
    if isinstance(f, Op) and f.name == "clamp" and f.children[1] == Const(lo) and f.children[2] == Const(hi):
        return f.children[0]
    return f
