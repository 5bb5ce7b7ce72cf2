"""GraspIt! robot data that has no place in the kinematic model, kept on
``robot.extras["graspit"]`` and written back by the GraspIt! writer:

* :class:`EigenGrasps` -- the eigengrasp file (spec §9), values as written (GraspIt! DOF
  units: radians, millimetres for prismatic DOFs);
* :class:`VirtualContact` -- one entry of the virtual-contact file (spec §10), millimetres;
* :class:`Approach` -- ``<approachDirection>`` (millimetres in the file, the frame in SI).

:func:`parse_eigengrasps`, :func:`parse_virtual_contacts` read the files' root elements;
:func:`eigengrasps_xml`, :func:`virtual_contacts_xml` write them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...transforms import compose, matrix_vector, vector_norm
from ..fileio import fmt_float

__all__ = ["EigenGrasp", "EigenGrasps", "VirtualContact", "Approach", "parse_eigengrasps",
           "parse_virtual_contacts", "eigengrasps_xml", "virtual_contacts_xml"]


class DataFileError(ValueError):
    """A problem in an eigengrasp or virtual-contact file: ``(message, line)``."""

    def __init__(self, message: str, line=None):
        super().__init__(message)
        self.line = line


@dataclass
class EigenGrasp:
    """One ``<EG>`` (or the ``<ORIGIN>``/``<NORM>``): ``values`` per DOF as written (missing
    ``d<i>`` attributes are 0), ``eigenvalue`` (None: absent, GraspIt! uses 0.5), optional
    amplitude ``limits`` (min, max)."""

    values: list
    eigenvalue: Optional[float] = None
    limits: Optional[tuple] = None

    def unit(self) -> np.ndarray:
        """The direction GraspIt! uses: ``values`` normalised to unit length."""
        v = np.asarray(self.values, float)
        n = float(vector_norm(v))
        return v / n if n > 0 else v


@dataclass
class EigenGrasps:
    """An eigengrasp file: ``dimensions`` (should equal the robot's DOF count), the
    ``grasps`` (each a DOF-space direction), an optional ``origin`` and ``norm``."""

    dimensions: int
    grasps: list = field(default_factory=list)
    origin: Optional[EigenGrasp] = None
    norm: Optional[EigenGrasp] = None

    def matrix(self) -> np.ndarray:
        """``(n_eigengrasps, dimensions)``: the unit directions, one per row."""
        return np.array([g.unit() for g in self.grasps]).reshape(len(self.grasps), self.dimensions)

    def norm_vector(self) -> np.ndarray:
        return np.ones(self.dimensions) if self.norm is None else np.asarray(self.norm.values, float)

    def to_dofs(self, amplitudes, origin) -> np.ndarray:
        """DOF values (GraspIt! units) for eigengrasp ``amplitudes``:
        ``(E^T a) * norm + origin``. ``origin`` is the ORIGIN (or GraspIt!'s default, the
        middle of each DOF range, which the caller supplies)."""
        a = np.asarray(amplitudes, float)
        return matrix_vector(self.matrix().T, a) * self.norm_vector() + np.asarray(origin, float)

    def from_dofs(self, dofs, origin) -> np.ndarray:
        """Amplitudes whose :meth:`to_dofs` is closest to ``dofs`` (least squares, as
        GraspIt!'s ``(E E^T)^-1 E ((dof - origin) / norm)``)."""
        E = self.matrix()
        x = (np.asarray(dofs, float) - np.asarray(origin, float)) / self.norm_vector()
        return np.linalg.solve(compose(E, E.T), matrix_vector(E, x))


@dataclass
class VirtualContact:
    """A predefined contact: on link ``link`` of chain ``finger`` (-1: the palm);
    ``location``/``translation`` in mm (link frame), ``rotation`` a quaternion w x y z,
    ``normal``, ``friction_edges`` (n x 6 wrench-space edges), ``sCof``."""

    finger: int
    link: int
    friction_edges: list
    location: tuple
    rotation: tuple
    translation: tuple
    normal: tuple
    sCof: float
    num_friction_edges: Optional[int] = None


@dataclass
class Approach:
    """``<approachDirection>``: ``reference_location`` (mm) and ``direction`` as written;
    :meth:`transform` gives the approach frame in the palm frame (metres), z along the
    (normalised) direction, x from (1, 0, 0) (or (0, 1, 0) if the direction is within ~26°
    of x), as GraspIt! builds it (roboio also normalises x and y)."""

    reference_location: tuple
    direction: tuple

    def transform(self) -> np.ndarray:
        z = np.asarray(self.direction, float)
        z = z / vector_norm(z)
        x = np.array([0.0, 1.0, 0.0]) if abs(z[0]) > 0.9 else np.array([1.0, 0.0, 0.0])
        y = np.cross(z, x)
        x = np.cross(y, z)
        T = np.eye(4)
        T[:3, 0] = x / vector_norm(x)
        T[:3, 1] = y / vector_norm(y)
        T[:3, 2] = z
        T[:3, 3] = np.asarray(self.reference_location, float) * 1e-3
        return T


# -- reading -------------------------------------------------------------------------------
def _children(el, name):
    return [c for c in el if isinstance(c.tag, str) and c.tag == name]


def _line(el):
    return getattr(el, "sourceline", None)


def _float(text, what, el) -> float:
    from ._scan import qt_double
    v, ok = qt_double(text)
    if not ok:
        raise DataFileError(f"{what}: {text!r} is not a number", _line(el))
    return v


def _eg(el, dims: int) -> EigenGrasp:
    ev = _children(el, "EigenValue")
    eigenvalue = None
    if ev:
        t = ev[0].get("value")
        if t is None:
            raise DataFileError("<EigenValue> without value", _line(ev[0]))
        eigenvalue = _float(t, "<EigenValue value>", ev[0])
    dv = _children(el, "DimVals")
    if not dv:
        raise DataFileError(f"<{el.tag}> without <DimVals>", _line(el))
    values = []
    for i in range(dims):
        t = dv[0].get(f"d{i}")
        values.append(0.0 if not t else _float(t, f"<DimVals d{i}>", dv[0]))
    lim = _children(el, "Limits")
    limits = None
    if lim:
        limits = (_float(lim[0].get("min"), "<Limits min>", lim[0]),
                  _float(lim[0].get("max"), "<Limits max>", lim[0]))
    return EigenGrasp(values, eigenvalue, limits)


def parse_eigengrasps(root) -> EigenGrasps:
    """An ``<EigenGrasps>`` root; DataFileError where GraspIt! fails the file."""
    from ._scan import qt_double
    t = root.get("dimensions")
    dims, ok = qt_double(t)
    if not ok or dims <= 0 or dims != int(dims):
        raise DataFileError(f"<EigenGrasps dimensions={t!r}>: expected a positive number of DOFs",
                            _line(root))
    dims = int(dims)
    egs = _children(root, "EG")
    if not egs:
        raise DataFileError("no <EG> in the eigengrasp file", _line(root))
    out = EigenGrasps(dims, [_eg(e, dims) for e in egs])
    for name in ("ORIGIN", "NORM"):
        els = _children(root, name)
        if len(els) > 1:
            raise DataFileError(f"more than one <{name}>", _line(els[1]))
        if els:
            setattr(out, name.lower(), _eg(els[0], dims))
    return out


def _vec(el, name, n, sep_any=True):
    c = _children(el, name)
    if not c:
        raise DataFileError(f"<virtual_contact> without <{name}> (GraspIt! crashes)", _line(el))
    tokens = (c[0].text or "").split()
    if len(tokens) != n:
        raise DataFileError(f"<{name}>: expected {n} numbers, got {len(tokens)}", _line(c[0]))
    return tuple(_float(t, f"<{name}>", c[0]) for t in tokens)


def parse_virtual_contacts(root) -> list:
    """The ``<virtual_contact>`` entries of a ``<virtual_contacts>`` root."""
    out = []
    for el in _children(root, "virtual_contact"):
        finger, link, nedges = (int(v) for v in (_vec(el, n, 1)[0] for n in
                                                  ("finger_number", "link_number", "num_friction_edges")))
        fe = _children(el, "friction_edges")
        edges = []
        if nedges > 0:
            if not fe:
                raise DataFileError("<virtual_contact> without <friction_edges>", _line(el))
            items = _children(fe[0], "friction_edge")
            if len(items) < nedges:
                raise DataFileError(f"<num_friction_edges> is {nedges} but {len(items)} "
                                    "<friction_edge> follow", _line(fe[0]))
            for it in items[:nedges]:
                tokens = (it.text or "").split()
                if len(tokens) < 6:
                    raise DataFileError(f"<friction_edge>: expected 6 numbers, got {len(tokens)}",
                                        _line(it))
                edges.append(tuple(_float(t, "<friction_edge>", it) for t in tokens[:6]))
        out.append(VirtualContact(finger, link, edges, _vec(el, "location", 3), _vec(el, "rotation", 4),
                                  _vec(el, "translation", 3), _vec(el, "normal", 3),
                                  _vec(el, "sCof", 1)[0], nedges))
    return out


# -- writing -------------------------------------------------------------------------------
def _eg_xml(tag: str, g: EigenGrasp, indent: str) -> list:
    lines = [f"{indent}<{tag}>"]
    if g.eigenvalue is not None:
        lines.append(f'{indent}\t<EigenValue value="{fmt_float(g.eigenvalue)}"/>')
    if g.limits is not None:
        lines.append(f'{indent}\t<Limits min="{fmt_float(g.limits[0])}" max="{fmt_float(g.limits[1])}"/>')
    attrs = " ".join(f'd{i}="{fmt_float(v)}"' for i, v in enumerate(g.values) if v != 0)
    lines.append(f"{indent}\t<DimVals{' ' + attrs if attrs else ''}/>")
    lines.append(f"{indent}</{tag}>")
    return lines


def eigengrasps_xml(eg: EigenGrasps) -> str:
    lines = ['<?xml version="1.0" ?>', f'<EigenGrasps dimensions="{eg.dimensions}">']
    for g in eg.grasps:
        lines += _eg_xml("EG", g, "\t")
    if eg.origin is not None:
        lines += _eg_xml("ORIGIN", eg.origin, "\t")
    if eg.norm is not None:
        lines += _eg_xml("NORM", eg.norm, "\t")
    lines.append("</EigenGrasps>")
    return "\n".join(lines) + "\n"


def virtual_contacts_xml(contacts: list, robot_name: str) -> str:
    def v(vals):
        return " ".join(fmt_float(x) for x in vals)
    lines = ['<?xml version="1.0" ?>', "<virtual_contacts>", f"  <robot_name>{robot_name}</robot_name>",
             f"  <num_contacts>{len(contacts)}</num_contacts>"]
    for c in contacts:
        lines += ["  <virtual_contact>", f"    <finger_number>{c.finger}</finger_number>",
                  f"    <link_number>{c.link}</link_number>",
                  f"    <num_friction_edges>{len(c.friction_edges)}</num_friction_edges>",
                  "    <friction_edges>"]
        lines += [f"      <friction_edge>{v(e)}</friction_edge>" for e in c.friction_edges]
        lines += ["    </friction_edges>", f"    <location>{v(c.location)}</location>",
                  f"    <rotation>{v(c.rotation)}</rotation>",
                  f"    <translation>{v(c.translation)}</translation>",
                  f"    <normal>{v(c.normal)}</normal>", f"    <sCof>{fmt_float(c.sCof)}</sCof>",
                  "  </virtual_contact>"]
    lines.append("</virtual_contacts>")
    return "\n".join(lines) + "\n"
