"""Geometry -> Open Inventor 2.1 text in millimetres (the style of GraspIt!'s own model
files), for geometry GraspIt! cannot read from its source file.

Meshes become ``Coordinate3`` + ``IndexedFaceSet`` (with a per-face ``Material`` when the
mesh has face colours); Klamp't primitives become Inventor shapes (``Cube``, ``Sphere``,
``Cylinder``, ``Cone``) under a ``MatrixTransform``; groups become ``Separator``s. What
Inventor has no triangles for (points, segments, point clouds) is reported as lost.
"""
from __future__ import annotations

import numpy as np

from ...model import Group, PointCloud, Primitive, TriangleMesh
from ...transforms import compose, transform_points, vector_norm
from ..fileio import fmt_float

__all__ = ["inventor_text"]

HEADER = "#Inventor V2.1 ascii\n"


def _nums(values) -> str:
    return " ".join(fmt_float(float(v) + 0.0) for v in values)


def _matrix(T) -> str:
    """``MatrixTransform``: Inventor matrices act on row vectors, so the rows written are
    the columns of ``T``."""
    return "MatrixTransform { matrix " + " ".join(_nums(T[:, i]) for i in range(4)) + " }"


def _frame(z_axis, center) -> np.ndarray:
    """A rigid frame at ``center`` whose y axis is ``z_axis`` (Inventor's cylinders and
    cones stand on y)."""
    y = np.asarray(z_axis, float)
    y = y / vector_norm(y)
    x = np.cross(y, [0.0, 0.0, 1.0]) if abs(y[2]) < 0.9 else np.cross(y, [1.0, 0.0, 0.0])
    x /= vector_norm(x)
    z = np.cross(x, y)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, y, z, center
    return T


def _mesh(m: TriangleMesh, T, out: list, indent: str):
    v = transform_points(T, m.vertices)
    f = m.faces
    if m.face_colors is not None and len(f):
        fc = np.asarray(m.face_colors, float).reshape(-1, 4)
        out.append(f"{indent}MaterialBinding {{ value PER_FACE }}")
        out.append(f"{indent}Material {{")
        out.append(f"{indent}  diffuseColor [ " + ", ".join(_nums(c[:3]) for c in fc) + " ]")
        if np.any(fc[:, 3] != 1):
            out.append(f"{indent}  transparency [ " + ", ".join(fmt_float(1 - c[3]) for c in fc) + " ]")
        out.append(f"{indent}}}")
    out.append(f"{indent}Coordinate3 {{ point [")
    out.extend(f"{indent}  {_nums(p)}," for p in v)
    out.append(f"{indent}] }}")
    out.append(f"{indent}IndexedFaceSet {{ coordIndex [")
    out.extend(f"{indent}  {a}, {b}, {c}, -1," for a, b, c in f.tolist())
    out.append(f"{indent}] }}")


def _primitive(p: Primitive, T, out: list, indent: str, report, what: str):
    k, q = p.primitive, p.params
    shapes = []      # (4x4 frame in the owner's frame before T, Inventor node text)
    if k == "Sphere":
        F = np.eye(4)
        F[:3, 3] = q["center"]
        shapes.append((F, f"Sphere {{ radius {fmt_float(q['radius'])} }}"))
    elif k == "AABB":
        lo, hi = np.asarray(q["bmin"]), np.asarray(q["bmax"])
        F = np.eye(4)
        F[:3, 3] = (lo + hi) / 2
        d = hi - lo
        shapes.append((F, f"Cube {{ width {fmt_float(d[0])} height {fmt_float(d[1])} depth {fmt_float(d[2])} }}"))
    elif k in ("Box", "Ellipsoid"):
        axes = np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1)
        d = np.asarray(q["dims"], float)
        F = np.eye(4)
        F[:3, :3] = axes
        if k == "Box":
            F[:3, 3] = q["origin"] + compose(axes, (d / 2).reshape(3, 1))[:, 0]
            shapes.append((F, f"Cube {{ width {fmt_float(d[0])} height {fmt_float(d[1])} depth {fmt_float(d[2])} }}"))
        else:
            F[:3, 3] = q["center"]
            F[:3, :3] = axes * d
            shapes.append((F, "Sphere { radius 1 }"))
    elif k in ("Cylinder", "Cone", "Capsule"):
        a = np.asarray(q["axis"], float)
        a = a / vector_norm(a)
        r, h = q["radius"], q["height"]
        c = np.asarray(q["center"], float)
        F = _frame(a, c + a * h / 2)
        if k == "Cone":
            shapes.append((F, f"Cone {{ bottomRadius {fmt_float(r)} height {fmt_float(h)} }}"))
        else:
            shapes.append((F, f"Cylinder {{ radius {fmt_float(r)} height {fmt_float(h)} }}"))
        if k == "Capsule":
            for end in (c, c + a * h):
                E = np.eye(4)
                E[:3, 3] = end
                shapes.append((E, f"Sphere {{ radius {fmt_float(r)} }}"))
    elif k in ("Triangle", "Polygon"):
        pts = np.stack([q["a"], q["b"], q["c"]]) if k == "Triangle" else np.asarray(q["vertices"]).reshape(-1, 3)
        n = len(pts)
        faces = np.array([[0, i, i + 1] for i in range(1, n - 1)], np.int64).reshape(-1, 3)
        _mesh(TriangleMesh(pts, faces), T, out, indent)
        return
    else:
        report.lose(f"{what}: {k} primitive (no surface; Inventor has no triangles for it)", kind="not written")
        return
    for F, node in shapes:
        out.append(f"{indent}Separator {{")
        out.append(f"{indent}  {_matrix(compose(T, F))}")
        out.append(f"{indent}  {node}")
        out.append(f"{indent}}}")


def _walk(g, T, out: list, indent: str, report, what: str):
    T = compose(T, g.transform)
    if isinstance(g, TriangleMesh):
        if g.missing:
            report.lose(f"{what}: geometry {g.source.reference if g.source else ''!r} was missing when read", kind="missing file")
            return
        out.append(f"{indent}Separator {{")
        _mesh(g, T, out, indent + "  ")
        out.append(f"{indent}}}")
    elif isinstance(g, Primitive):
        _primitive(g, T, out, indent, report, what)
    elif isinstance(g, Group):
        for c in g.children:
            _walk(c, T, out, indent, report, what)
    elif isinstance(g, PointCloud):
        report.lose(f"{what}: point cloud geometry (GraspIt! bodies are surfaces)", kind="not written")
    else:
        report.lose(f"{what}: {type(g).__name__} geometry", kind="not written")


def inventor_text(geometry, T_mm, report, what: str) -> str:
    """Inventor text of ``geometry`` placed by ``T_mm`` (owner frame -> file coordinates,
    e.g. metres -> millimetres); ``None`` gives an empty (header-only) file."""
    out = [HEADER.rstrip("\n")]
    if geometry is not None:
        _walk(geometry, np.asarray(T_mm, float), out, "", report, what)
    return "\n".join(out) + "\n"
