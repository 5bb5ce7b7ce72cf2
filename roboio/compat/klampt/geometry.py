"""Klamp't's ``Geometry3D`` (and the ``TriangleMesh``, ``PointCloud`` and
``GeometricPrimitive`` values it hands out) on roboio's geometry model.

A ``Geometry3D`` is either *standalone* (it owns its data and a current transform) or a
*reference* to the geometry of a robot link, rigid object or terrain: then editing it edits
that element in the roboio model, and its current transform is the element's pose.

Klamp't's "data" of a geometry is roboio's geometry with its ``transform`` applied (data
coordinates -> owner frame). The modifiers ``transform``, ``translate``, ``rotate`` and
``scale`` compose onto roboio's ``transform`` instead of rewriting vertices, so a saved
world can still refer to the original mesh file with the transform written next to it.
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from ...errors import RoboioError, RoboioWarning
from ...formats.klampt.terrain import element_count
from ...model import Geometry, Group, PRIMITIVE_KINDS, Primitive
from ...model import PointCloud as ModelPointCloud, TriangleMesh as ModelMesh
from ._bounds import bounds
from ._io import load_file, save_file
from ._common import (bounds_or_empty, floats, matrix_to_se3, opengl_methods, se3_to_matrix,
                      so3_to_matrix, unsupported, vec3)

__all__ = ["Geometry3D", "TriangleMesh", "PointCloud", "GeometricPrimitive", "DistanceQueryResult"]

# Current transforms set on element geometries with setCurrentTransform, by owner (a Link,
# RigidObject or Terrain); forgotten when the owner is posed again (setConfig, setTransform).
_POSE_OVERRIDES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def clear_pose_override(owner) -> None:
    _POSE_OVERRIDES.pop(owner, None)


def clear_pose_overrides(owners) -> None:
    """clear_pose_override of each owner (nothing to do, quickly, when none is set)."""
    if _POSE_OVERRIDES:
        for owner in owners:
            _POSE_OVERRIDES.pop(owner, None)


# -- where a Geometry3D's data lives ---------------------------------------------------------
class _StandaloneSlot:
    def __init__(self, geometry=None, pose=None):
        self.geometry = geometry
        self.pose = np.eye(4) if pose is None else np.array(pose, dtype=float)

    def get(self):
        return self.geometry

    def set(self, g):
        self.geometry = g

    def get_pose(self):
        return self.pose

    def set_pose(self, T):
        self.pose = np.array(T, dtype=float)


class _ElementSlot:
    """The ``geometry`` attribute of ``owner``; ``pose()`` gives the owner's world pose."""

    def __init__(self, owner, pose):
        self.owner = owner
        self._pose = pose

    def get(self):
        return self.owner.geometry

    def set(self, g):
        self.owner.geometry = g

    def get_pose(self):
        T = _POSE_OVERRIDES.get(self.owner)
        return self._pose() if T is None else T

    def set_pose(self, T):
        _POSE_OVERRIDES[self.owner] = np.array(T, dtype=float)


# -- values handed out by Geometry3D ------------------------------------------------------------
class TriangleMesh:
    """An indexed triangle mesh value: ``vertices`` (n, 3) float64, ``indices`` (m, 3) int32.

    Unlike Klamp't's, the mesh returned by ``Geometry3D.getTriangleMesh()`` is a copy:
    write changes back with ``Geometry3D.setTriangleMesh(mesh)``.
    """

    def __init__(self, *args):
        self._v = np.zeros((0, 3))
        self._i = np.zeros((0, 3), dtype=np.int32)
        if args:
            self.set(args[0])

    vertices = property(lambda self: self._v, lambda self, v: self.setVertices(v))
    indices = property(lambda self: self._i, lambda self, i: self.setIndices(i))

    def getVertices(self) -> np.ndarray:
        return self._v

    def setVertices(self, np_array2):
        self._v = np.array(np_array2, dtype=float).reshape(-1, 3)

    def getIndices(self) -> np.ndarray:
        return self._i

    def setIndices(self, np_array2):
        self._i = np.array(np_array2, dtype=np.int32).reshape(-1, 3)

    def addVertex(self, p):
        self._v = np.vstack([self._v, vec3(p, "vertex")])

    def addTriangleIndices(self, t):
        self._i = np.vstack([self._i, np.array(t, dtype=np.int32).reshape(1, 3)])

    def triangle(self, i) -> tuple:
        return tuple(tuple(float(x) for x in self._v[k]) for k in self._i[i])

    def translate(self, t):
        self._v = self._v + vec3(t, "translation")

    def transform(self, R, t):
        T = se3_to_matrix(R, t)
        self._v = self._v @ T[:3, :3].T + T[:3, 3]

    def copy(self) -> "TriangleMesh":
        return TriangleMesh(self)

    def set(self, other: "TriangleMesh"):
        self._v = np.array(other.vertices, dtype=float).reshape(-1, 3)
        self._i = np.array(other.indices, dtype=np.int32).reshape(-1, 3)

    def _model(self) -> ModelMesh:
        return ModelMesh(self._v.copy(), self._i.astype(np.int64))

    def __repr__(self):
        return f"<TriangleMesh {len(self._v)} vertices, {len(self._i)} triangles>"


class PointCloud:
    """A point cloud value: ``points`` (n, 3); ``getPoints``/``setPoints``/``addPoint``."""

    def __init__(self, *args):
        self._p = np.zeros((0, 3))
        if args:
            self.set(args[0])

    points = property(lambda self: self._p, lambda self, p: self.setPoints(p))
    vertices = points

    def getPoints(self) -> np.ndarray:
        return self._p

    def setPoints(self, np_array2):
        self._p = np.array(np_array2, dtype=float).reshape(-1, 3)

    def numPoints(self) -> int:
        return len(self._p)

    def addPoint(self, p) -> int:
        self._p = np.vstack([self._p, vec3(p, "point")])
        return len(self._p) - 1

    def getPoint(self, index) -> list:
        return [float(x) for x in self._p[index]]

    def setPoint(self, index, p):
        self._p = self._p.copy()
        self._p[index] = vec3(p, "point")

    def translate(self, t):
        self._p = self._p + vec3(t, "translation")

    def transform(self, R, t):
        T = se3_to_matrix(R, t)
        self._p = self._p @ T[:3, :3].T + T[:3, 3]

    def copy(self) -> "PointCloud":
        return PointCloud(self)

    def set(self, other):
        self._p = np.array(other.points, dtype=float).reshape(-1, 3)

    def _model(self) -> ModelPointCloud:
        return ModelPointCloud(self._p.copy())

    def __repr__(self):
        return f"<PointCloud {len(self._p)} points>"


# Klamp't primitive type names <-> roboio kinds (parameters flattened in roboio's order).
_PRIM_TYPES = {"point": "Point", "sphere": "Sphere", "segment": "Segment",
               "triangle": "Triangle", "polygon": "Polygon", "aabb": "AABB", "box": "Box",
               "cylinder": "Cylinder", "ellipsoid": "Ellipsoid", "capsule": "Capsule",
               "cone": "Cone"}
_PRIM_NAMES = {v: k for k, v in _PRIM_TYPES.items()}


class GeometricPrimitive:
    """A primitive value: ``type`` (``"point"``, ``"sphere"``, ``"segment"``,
    ``"triangle"``, ``"polygon"``, ``"aabb"``, ``"box"``, ...) and ``properties`` (flat
    array: e.g. sphere ``[cx, cy, cz, r]``, box ``[origin(3), R column-major(9), dims(3)]``).
    """

    def __init__(self, *args):
        self.type = ""
        self.properties = np.zeros(0)
        if args:
            self.set(args[0])

    def _put(self, kind, *parts):
        self.type = kind
        self.properties = np.concatenate([np.asarray(p, dtype=float).reshape(-1) for p in parts])

    def setPoint(self, pt):
        self._put("point", vec3(pt))

    def setSphere(self, c, r):
        self._put("sphere", vec3(c), [r])

    def setSegment(self, a, b):
        self._put("segment", vec3(a), vec3(b))

    def setTriangle(self, a, b, c):
        self._put("triangle", vec3(a), vec3(b), vec3(c))

    def setPolygon(self, verts):
        v = np.asarray(verts, dtype=float).reshape(-1)
        if v.size % 3:
            raise ValueError("polygon vertices must be a flat list of 3D points")
        self._put("polygon", v)

    def setAABB(self, bmin, bmax):
        self._put("aabb", vec3(bmin), vec3(bmax))

    def setBox(self, ori, R, dims):
        self._put("box", vec3(ori), floats(R, 9, "rotation"), vec3(dims))

    def getType(self) -> str:
        return self.type

    def getProperties(self) -> np.ndarray:
        return self.properties

    def setProperties(self, np_array):
        self.properties = np.array(np_array, dtype=float).reshape(-1)

    def copy(self) -> "GeometricPrimitive":
        return GeometricPrimitive(self)

    def set(self, other):
        self.type = other.type
        self.properties = np.array(other.properties, dtype=float)

    def saveString(self) -> str:
        """The Klamp't ``.geom`` text of the primitive (e.g. ``"Sphere 1 2 3  4"``)."""
        from ...formats.klampt.geometry.stream import primitive_text
        return primitive_text(self._model())

    def loadString(self, str) -> bool:
        """Read a ``.geom`` primitive string; False when it is not one."""
        from ...formats.klampt.geometry.stream import parse_primitive_text
        try:
            self.set(GeometricPrimitive._from_model(parse_primitive_text(str)))
        except (RoboioError, ValueError):
            return False
        return True

    # -- roboio model <-> value (properties = the model's parameters, flattened in order) --
    def _model(self) -> Primitive:
        kind = _PRIM_TYPES.get(self.type)
        if kind is None:
            raise ValueError(f"invalid primitive type {self.type!r}")
        v, params, at = self.properties, {}, 0
        for name in PRIMITIVE_KINDS[kind]:
            size = {"radius": 1, "height": 1, "vertices": len(v) - at}.get(name, 3)
            params[name] = v[at:at + size].reshape(-1, 3) if name == "vertices" else (
                v[at] if size == 1 else v[at:at + size])
            at += size
        if at != len(v):
            raise ValueError(f"a {self.type} primitive needs {at} properties, got {len(v)}")
        return Primitive(kind, params)

    @classmethod
    def _from_model(cls, prim: Primitive) -> "GeometricPrimitive":
        """The primitive with its transform applied (Klamp't primitives are data, without a
        transform of their own)."""
        from ...formats.klampt.geometry.stream import bake_primitive
        baked = bake_primitive(prim, prim.transform)
        if baked is None:
            raise ValueError(f"this {prim.primitive} (under its transform) is not a primitive "
                             "type Klamp't has")
        out = cls()
        out._put(_PRIM_NAMES[baked.primitive],
                 *[baked.params[name] for name in PRIMITIVE_KINDS[baked.primitive]])
        return out

    def __repr__(self):
        return f"<GeometricPrimitive {self.type} {list(self.properties)}>"


_TYPE_NAMES = {ModelMesh: "TriangleMesh", ModelPointCloud: "PointCloud",
               Primitive: "GeometricPrimitive", Group: "Group"}


def _is_empty(g) -> bool:
    return g is None or g.missing


def _as_klampt(g):
    """The geometry as Klamp't holds it: a link's own mesh and the meshes mounted on it
    are one merged triangle mesh in Klamp't, which roboio's .rob reader keeps as a Group
    marked ``klampt_merged`` (so that each part keeps its file)."""
    if (isinstance(g, Group) and g.extras.get("klampt_merged") and g.children
            and all(isinstance(c, ModelMesh) and not c.missing for c in g.children)):
        verts, faces, base = [], [], 0
        for c in g.children:
            verts.append(_apply(g.transform @ c.transform, c.vertices))
            faces.append(c.faces + base)
            base += len(c.vertices)
        return ModelMesh(np.concatenate(verts), np.concatenate(faces))
    return g


def _model_of(data) -> Geometry:
    """A roboio geometry for a Geometry3D constructor / set* argument."""
    if isinstance(data, Geometry3D):
        g = data._slot.get()
        return None if g is None else g.copy()
    if isinstance(data, (TriangleMesh, PointCloud, GeometricPrimitive)):
        return data._model()
    if isinstance(data, Geometry):
        return data.copy()
    raise TypeError(f"cannot make a Geometry3D from {type(data).__name__}")


class Geometry3D:
    """Klamp't's geometry container (see the module docstring).

    ``Geometry3D()`` is empty; ``Geometry3D(x)`` copies ``x`` (a Geometry3D, TriangleMesh,
    PointCloud, GeometricPrimitive or roboio Geometry).
    """

    def __init__(self, *args):
        if len(args) > 1:
            raise TypeError("Geometry3D() takes at most one argument")
        self._slot = _StandaloneSlot()
        if args:
            self._slot.set(_model_of(args[0]))
            if isinstance(args[0], Geometry3D):
                self._slot.set_pose(args[0]._slot.get_pose())

    @classmethod
    def _view(cls, owner, pose) -> "Geometry3D":
        """A reference to ``owner.geometry`` whose current transform is ``pose()``."""
        g = cls.__new__(cls)
        g._slot = _ElementSlot(owner, pose)
        return g

    @property
    def _geom(self):
        return self._slot.get()

    def _require(self):
        g = self._geom
        if _is_empty(g):
            raise RuntimeError("Geometry is empty")
        return g

    # -- type and content ------------------------------------------------------------------
    def isStandalone(self) -> bool:
        return isinstance(self._slot, _StandaloneSlot)

    def type(self) -> str:
        """``"TriangleMesh"``, ``"PointCloud"``, ``"GeometricPrimitive"``, ``"Group"``, or
        ``""`` when empty."""
        g = self._geom
        return "" if _is_empty(g) else _TYPE_NAMES[type(_as_klampt(g))]

    def empty(self) -> bool:
        g = self._geom
        return _is_empty(g) or g.is_empty

    def numElements(self) -> int:
        """Triangles of a mesh, points of a cloud, children of a group, 1 for a primitive."""
        return element_count(_as_klampt(self._require()))

    def getElement(self, element: int) -> "Geometry3D":
        """A standalone copy of element ``element``, in this geometry's local coordinates:
        a child of a group, or a triangle / point primitive of a mesh / point cloud."""
        g = _as_klampt(self._require())
        i = int(element)
        if not 0 <= i < self.numElements() or isinstance(g, Primitive):
            raise RuntimeError("Invalid element specified")
        if isinstance(g, Group):
            child = g.children[i].copy()
            child.apply_transform(g.transform)
            return Geometry3D(child)
        prim = GeometricPrimitive()
        if isinstance(g, ModelMesh):
            a, b, c = _apply(g.transform, g.vertices[g.faces[i]])
            prim.setTriangle(a, b, c)
        else:
            prim.setPoint(_apply(g.transform, g.points[i:i + 1])[0])
        return Geometry3D(prim)

    def setGroup(self):
        """Make this an empty group; add elements with ``setElement(0)``, ``(1)``, ..."""
        self._slot.set(Group())

    def setElement(self, element: int, data: "Geometry3D"):
        """Set group element ``element`` (an existing index or the next one) to a copy of
        ``data`` (in this geometry's local coordinates)."""
        g = self._geom
        if not isinstance(g, Group):
            raise RuntimeError("setElement needs a Group geometry (call setGroup() first); "
                               "setting mesh triangles or cloud points is not supported")
        i = int(element)
        if not 0 <= i <= len(g.children):
            raise RuntimeError("Invalid element specified")
        if not np.array_equal(g.transform, np.eye(4)):
            for c in g.children:          # bring children to the group's local coordinates
                c.apply_transform(g.transform)
            g.transform = np.eye(4)
        child = _model_of(data)
        if child is None:
            child = Group()
        if i == len(g.children):
            g.children.append(child)
        else:
            g.children[i] = child

    def set(self, arg2: "Geometry3D"):
        """Copy the data of ``arg2`` into this geometry (a standalone one also takes its
        current transform)."""
        self._slot.set(_model_of(arg2))
        if self.isStandalone() and isinstance(arg2, Geometry3D):
            self._slot.set_pose(arg2._slot.get_pose())

    def copy(self) -> "Geometry3D":
        """A standalone copy (data and current transform)."""
        return Geometry3D(self)

    def free(self):
        if self.isStandalone():
            self._slot.set(None)

    def setTriangleMesh(self, arg2: TriangleMesh):
        self._slot.set(arg2._model())

    def setPointCloud(self, arg2: PointCloud):
        self._slot.set(arg2._model())

    def setGeometricPrimitive(self, arg2: GeometricPrimitive):
        self._slot.set(arg2._model())

    def getTriangleMesh(self) -> TriangleMesh:
        """A copy of the mesh data (transform applied)."""
        g = self._typed(ModelMesh, "TriangleMesh", merged=True)
        m = TriangleMesh()
        m.setVertices(_apply(g.transform, g.vertices))
        m.setIndices(g.faces)
        return m

    def getPointCloud(self) -> PointCloud:
        g = self._typed(ModelPointCloud, "PointCloud")
        pc = PointCloud()
        pc.setPoints(_apply(g.transform, g.points))
        return pc

    def getGeometricPrimitive(self) -> GeometricPrimitive:
        return GeometricPrimitive._from_model(self._typed(Primitive, "GeometricPrimitive"))

    def _typed(self, cls, name, merged=False):
        g = _as_klampt(self._geom) if merged else self._geom
        if not isinstance(g, cls) or g.missing:
            raise RuntimeError(f"Geometry3D is not {name} type")
        return g

    # -- modifiers of the data ---------------------------------------------------------------
    def _compose(self, M):
        from ...formats.klampt.geometry.stream import bake_primitive
        g = self._geom
        if isinstance(g, Primitive) and bake_primitive(g, M @ g.transform) is None:
            # Klamp't refuses too ("Nonuniform scaling of sphere not supported yet")
            warnings.warn(f"Geometry3D: a {g.primitive} primitive cannot take this transform "
                          "(e.g. a non-uniform scaling); the geometry is unchanged",
                          RoboioWarning, stacklevel=3)
            return
        if g is not None:
            g.apply_transform(M)

    def transform(self, R, t):
        """Apply ``x -> R x + t`` to the data (R may scale: any 3x3, column-major)."""
        self._compose(se3_to_matrix(R, t))

    def translate(self, t):
        M = np.eye(4)
        M[:3, 3] = vec3(t, "translation")
        self._compose(M)

    def rotate(self, R):
        M = np.eye(4)
        M[:3, :3] = so3_to_matrix(R)
        self._compose(M)

    def scale(self, *args):
        """``scale(s)`` or ``scale(sx, sy, sz)``."""
        if len(args) == 1:
            s = [float(args[0])] * 3
        elif len(args) == 3:
            s = floats(args)
        else:
            raise TypeError("scale(s) or scale(sx, sy, sz)")
        self._compose(np.diag(s + [1.0]))

    def setCollisionMargin(self, margin: float):
        g = self._geom
        if g is not None:
            g.margin = float(margin)

    def getCollisionMargin(self) -> float:
        g = self._geom
        return 0.0 if g is None else float(g.margin)

    # -- current transform and bounds ---------------------------------------------------------
    def setCurrentTransform(self, R, t):
        """Pose the geometry in the world without changing its data."""
        self._slot.set_pose(se3_to_matrix(R, t))

    def getCurrentTransform(self) -> tuple:
        return matrix_to_se3(self._slot.get_pose())

    def getBB(self) -> tuple:
        """``(bmin, bmax)``: Klamp't's quick box, the axis-aligned box around the data's box
        moved by the current transform (not tight under rotations; once Klamp't has built
        collision structures its own quick box can be looser still)."""
        g = self._geom
        b = None if _is_empty(g) else bounds(g)
        if b is None:
            return bounds_or_empty(None)
        corners = np.array([[b[i][0], b[j][1], b[k][2]] for i in (0, 1) for j in (0, 1) for k in (0, 1)])
        moved = _apply(self._slot.get_pose(), corners)
        return bounds_or_empty((moved.min(axis=0), moved.max(axis=0)))

    def getBBTight(self) -> tuple:
        """``(bmin, bmax)``: the tight axis-aligned box under the current transform."""
        g = self._geom
        return bounds_or_empty(None if _is_empty(g) else bounds(g, self._slot.get_pose()))

    # -- proximity queries (roboio.collision; pip install "roboio[collision]") -----------------
    def _placed(self):
        g = self._geom
        return (None if _is_empty(g) else g), self._slot.get_pose()

    def collides(self, other: "Geometry3D") -> bool:
        """Whether the two geometries, at their current transforms, are within the sum of
        their collision margins (meshes are surfaces, primitives solids, as in Klamp't)."""
        from ...collision import collides
        (a, Ta), (b, Tb) = self._placed(), other._placed()
        return collides(a, b, Ta, Tb)

    def withinDistance(self, other: "Geometry3D", tol: float) -> bool:
        """Whether the distance (margins subtracted) is at most ``tol``."""
        from ...collision import within_distance
        (a, Ta), (b, Tb) = self._placed(), other._placed()
        return within_distance(a, b, float(tol), Ta, Tb)

    def distance(self, other: "Geometry3D") -> "DistanceQueryResult":
        """The distance (margins subtracted; the engine's exact distance) and the closest
        points, world frame."""
        from ...collision import distance
        (a, Ta), (b, Tb) = self._placed(), other._placed()
        if a is None or b is None:
            raise RuntimeError("distance: a geometry is empty")
        res = distance(a, b, Ta, Tb)
        return DistanceQueryResult(res.distance, res.point_a, res.point_b)

    def distance_simple(self, other: "Geometry3D", relErr: float = 0, absErr: float = 0) -> float:
        """:meth:`distance` without the closest points (computed exactly: the error
        allowances are accepted and not needed)."""
        return self.distance(other).d

    def rayCast(self, s, d) -> tuple:
        """``(hit, point)``: the first point of the geometry, at its current transform, on
        the ray from ``s`` along ``d`` (world frame); ``(False, [0, 0, 0])`` on a miss."""
        from ...collision import ray_cast
        g, T = self._placed()
        if g is None:
            return False, [0.0, 0.0, 0.0]
        hit, pt = ray_cast(g, vec3(s, "ray source"), vec3(d, "ray direction"), T)
        return (True, floats(pt)) if hit else (False, [0.0, 0.0, 0.0])

    # -- files -----------------------------------------------------------------------------
    def loadFile(self, fn: str) -> bool:
        """Load a geometry file (any geometry format roboio reads); False on failure (the
        reason is issued as a RoboioWarning)."""
        g = load_file(fn, ("geometry",))
        if g is None:
            return False
        self._slot.set(g)
        return True

    def saveFile(self, fn: str) -> bool:
        """Save the data (transform applied) with roboio's writer for ``fn``'s extension."""
        g = self._geom
        if _is_empty(g):
            return False
        if isinstance(g, (ModelMesh, ModelPointCloud)):
            g = g.baked()
        return save_file(g, fn)

    def __repr__(self):
        return f"<Geometry3D {self.type() or 'empty'}{'' if self.isStandalone() else ' (reference)'}>"


def _apply(M, pts):
    return np.asarray(pts, dtype=float).reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]


class DistanceQueryResult:
    """Klamp't's distance result: ``d`` (m), ``hasClosestPoints``, ``cp1``/``cp2`` (world
    closest points, lists), ``hasGradients`` (False: not computed), ``elem1``/``elem2``
    (-1: not given)."""

    def __init__(self, d, cp1, cp2):
        self.d = float(d)
        self.hasClosestPoints = cp1 is not None and cp2 is not None
        self.cp1 = floats(cp1) if cp1 is not None else [0.0, 0.0, 0.0]
        self.cp2 = floats(cp2) if cp2 is not None else [0.0, 0.0, 0.0]
        self.hasGradients = False
        self.grad1 = [0.0, 0.0, 0.0]
        self.grad2 = [0.0, 0.0, 0.0]
        self.elem1 = self.elem2 = -1

    def __repr__(self):
        return f"<DistanceQueryResult d={self.d!r}>"


opengl_methods(Geometry3D, ["drawGL"])
unsupported(Geometry3D, [
    "collides_ext", "withinDistance_ext",
    "distance_ext", "distance_point", "distance_point_ext", "contacts",
    "contains_point", "rayCast_ext", "support", "roi", "slice", "merge",
    "convert", "getConvexHull", "setConvexHull", "setConvexHullGroup", "getImplicitSurface",
    "setImplicitSurface", "getOccupancyGrid", "setOccupancyGrid", "getHeightmap",
    "setHeightmap"],
    "roboio's proximity queries are collides, withinDistance, distance, distance_simple and "
    "rayCast; it does no other ones, no geometry conversions and no volumetric geometry "
    "(use klampt for those)")
