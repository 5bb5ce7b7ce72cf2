"""Robots, objects and worlds as coloured triangle meshes: per element (for viewers and
renderers that move links) and as one posed scene (for mesh files: ``.glb``, ``.obj``,
``.stl``, ``.ply``).

A :class:`MeshPart` is one triangle mesh in the frame of the element that owns it (a robot
link, a rigid object, a terrain): the geometry transform (which may scale) is applied,
groups are flattened in order, primitives are tessellated (spheres, cylinders, cones and
capsules approximately; boxes exactly), missing meshes are left out and listed in
:attr:`ElementMeshes.skipped`. Colours: the mesh's own vertex or face colours when its file
has them, else the piece's own ``appearance.color`` (a URDF visual's material; see
:func:`roboio.model.geometry.piece_appearance`), else the element's ``appearance.color``,
else a default grey (robots), blue-grey (rigid objects) or brown (terrains).

A :class:`PointPart` is one point cloud in its owner's frame: a
:class:`~roboio.model.PointCloud`, or a mesh file with vertices and no triangles (a PLY
without faces). Its colours are the cloud's own (:meth:`PointCloud.colors`: PCD
``rgb``/``rgba``, ``r g b``; a faceless PLY's vertex colours), else the element's colour.
Its ``size`` (point diameter, m) follows :func:`point_size`.

:func:`scene_elements` lists every element of a world (or of a robot, object, terrain or
bare geometry) with its meshes and its world pose; :func:`posed_geometry` turns them into
one :class:`~roboio.model.Group` of baked, coloured meshes at the robots' configurations
(``robot.config``), which every mesh writer accepts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..transforms import compose, det3, transform_points, vector_norm
from .geometry import Geometry, Group, PointCloud, Primitive, TriangleMesh
from .robot import Robot
from .tessellate import primitive_to_mesh
from .world import RigidObject, Terrain, World

__all__ = ["MeshPart", "PointPart", "ElementMeshes", "geometry_parts", "scene_elements",
           "posed_geometry", "point_size", "DEFAULT_COLORS"]

DEFAULT_COLORS = {"link": (0.5, 0.5, 0.5, 1.0), "rigid_object": (0.45, 0.55, 0.7, 1.0),
                  "terrain": (0.6, 0.5, 0.4, 1.0)}


@dataclass
class MeshPart:
    """A triangle mesh in its owner's frame: ``vertices`` (V, 3) m, ``faces`` (F, 3),
    ``color`` (RGBA in [0, 1], the part's single colour) and ``vertex_colors`` (V, 4) when
    the file coloured the mesh itself (face colours are turned into vertex colours by
    giving every triangle its own three vertices)."""

    vertices: np.ndarray
    faces: np.ndarray
    color: tuple
    vertex_colors: Optional[np.ndarray] = None

    @property
    def num_triangles(self) -> int:
        return len(self.faces)


def point_size(points) -> float:
    """A drawing diameter (m) for the points of one cloud (N, 3): the diagonal ``d`` of
    their bounding box divided by sqrt(N) (the spacing of N points spread over a d x d
    surface, so a scanned surface looks closed), kept within [d / 1000, d / 20]; 0.01 m
    when the points do not span any extent (one point, or all at the same place)."""
    pts = np.asarray(points, float).reshape(-1, 3)
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    if len(pts) == 0:
        return 0.01
    d = float(vector_norm(pts.max(axis=0) - pts.min(axis=0)))
    if not d > 0:
        return 0.01
    return float(min(max(d / np.sqrt(len(pts)), d / 1000), d / 20))


@dataclass
class PointPart:
    """A point cloud in its owner's frame: ``points`` (N, 3) m, ``color`` (RGBA in [0, 1],
    used when the cloud has no colours of its own), ``point_colors`` (N, 4) when it has,
    and ``size``, the diameter (m) to draw each point with (see :func:`point_size`)."""

    points: np.ndarray
    color: tuple
    point_colors: Optional[np.ndarray] = None
    size: float = 0.01
    properties: tuple = ()      # the cloud's other per-point properties (normals, ...), names

    @property
    def num_points(self) -> int:
        return len(self.points)

    def rgba(self) -> np.ndarray:
        """(N, 4) colours: the cloud's own, else ``color`` for every point."""
        if self.point_colors is not None:
            return self.point_colors
        return np.tile(np.asarray(self.color, float), (len(self.points), 1))


@dataclass
class ElementMeshes:
    """The meshes of one element. ``kind``: ``"link"``, ``"rigid_object"`` or ``"terrain"``;
    ``name``: the element's (link) name; ``robot``: index of the robot in the world (links
    only), ``link``: link index; ``visual``/``collision``: mesh parts in the element frame;
    ``visual_points``/``collision_points``: its point clouds (:class:`PointPart`), same
    frame; ``transform``: the element's world pose (4x4) at the robot's configuration;
    ``skipped``: geometry left out (missing files), as text."""

    kind: str
    name: str
    transform: np.ndarray
    visual: list = field(default_factory=list)
    collision: list = field(default_factory=list)
    robot: int = -1
    link: int = -1
    skipped: list = field(default_factory=list)
    visual_points: list = field(default_factory=list)
    collision_points: list = field(default_factory=list)


def _rgba(c) -> Optional[tuple]:
    if c is None:
        return None
    c = tuple(float(x) for x in c)
    return c + (1.0,) * (4 - len(c)) if len(c) in (3, 4) else None


def geometry_parts(geom: Optional[Geometry], color, skipped: Optional[list] = None,
                   points: Optional[list] = None) -> list[MeshPart]:
    """``geom`` as coloured triangle meshes in its owner's frame (see the module docstring).
    ``color``: the owner's RGBA colour. Point clouds are appended to ``points`` as
    :class:`PointPart` when that list is given, else described in ``skipped``; what cannot
    be drawn is appended to ``skipped``."""
    out: list[MeshPart] = []
    skipped = skipped if skipped is not None else []
    if geom is not None:
        _collect(geom, np.eye(4), tuple(color), out, skipped, points)
    return out


def _transform_points(T, pts) -> np.ndarray:
    """(N, 3) points mapped by the 4x4 affine ``T``, element-wise (no BLAS: a mesh file
    written from a robot has the same bits on every machine)."""
    return transform_points(T, np.asarray(pts, float).reshape(-1, 3))


def _point_part(pts, T, colors, color, skipped, points, what, properties=()) -> None:
    if points is None:
        skipped.append(f"{what} of {len(pts)} points (no surface)")
        return
    pts = np.asarray(pts, float).reshape(-1, 3)
    cols = None if colors is None else np.asarray(colors, float).reshape(-1, 4)
    finite = np.all(np.isfinite(pts), axis=1)
    if not finite.all():            # organised PCD scans mark missing returns with NaN
        skipped.append(f"{int((~finite).sum())} of {len(pts)} points with non-finite coordinates")
        pts = pts[finite]
        cols = None if cols is None else cols[finite]
    if len(pts) == 0:
        return
    v = _transform_points(T, pts)
    points.append(PointPart(np.ascontiguousarray(v), color, cols, point_size(v), tuple(properties)))


def _collect(geom: Geometry, T: np.ndarray, color, out: list, skipped: list, points=None) -> None:
    T = compose(T, geom.transform)
    own = _rgba(getattr(geom.appearance, "color", None)) if geom.appearance is not None else None
    if own is not None:             # the piece's own colour (a URDF visual's material)
        color = own
    if geom.missing:
        skipped.append(f"missing geometry {geom.source.reference if geom.source else '?'!r}")
        return
    if isinstance(geom, Group):
        for c in geom.children:
            _collect(c, T, color, out, skipped, points)
        return
    if isinstance(geom, PointCloud):
        _point_part(geom.points, T, geom.colors(), color, skipped, points, "point cloud",
                    geom.other_fields())
        return
    if isinstance(geom, Primitive):
        mesh = primitive_to_mesh(geom)
    elif isinstance(geom, TriangleMesh):
        mesh = geom
    else:
        skipped.append(f"{type(geom).__name__} geometry")
        return
    faces = np.asarray(mesh.faces, dtype=np.int64)
    if len(faces) == 0:
        if len(mesh.vertices):      # a PLY without faces: its vertices are a point cloud
            vc = mesh.vertex_colors
            _point_part(mesh.vertices, T, vc if vc is not None and len(vc) == len(mesh.vertices) else None,
                        color, skipped, points, "vertices without triangles")
        return
    v = _transform_points(T, mesh.vertices)
    if det3(T[:3, :3]) < 0:              # a mirror flips the winding
        faces = faces[:, ::-1]
    vcols = mesh.vertex_colors
    fcols = mesh.face_colors
    if vcols is None and fcols is not None:
        fcols = np.asarray(fcols, float).reshape(-1, 4)
        v = v[faces].reshape(-1, 3)
        faces = np.arange(len(v), dtype=np.int64).reshape(-1, 3)
        vcols = np.repeat(fcols, 3, axis=0)
    if vcols is not None:
        vcols = np.asarray(vcols, float).reshape(-1, 4)
        color = tuple(float(x) for x in vcols.mean(axis=0))
    out.append(MeshPart(np.ascontiguousarray(v), np.ascontiguousarray(faces), color, vcols))


def framed(elements: list) -> list:
    """The elements a view of the scene should frame: its robots and rigid objects when it
    has any (a terrain, often a floor many times their size, is drawn but not framed), else
    everything."""
    focus = [em for em in elements if em.kind != "terrain"]
    return focus or list(elements)


def _color(appearance, kind) -> tuple:
    c = _rgba(getattr(appearance, "color", None)) if appearance is not None else None
    return c if c is not None else DEFAULT_COLORS[kind]


def _as_world(obj) -> World:
    if isinstance(obj, World):
        return obj
    w = World(getattr(obj, "name", "World"))
    if isinstance(obj, Geometry):
        w.add(Terrain("geometry", obj))
    elif isinstance(obj, (Robot, RigidObject, Terrain)):
        w.add(obj)
    else:
        raise ValueError(f"a {type(obj).__name__} has no geometry to show")
    return w


def scene_elements(obj, configs: Optional[dict] = None) -> list[ElementMeshes]:
    """Every element of ``obj`` (World, Robot, RigidObject, Terrain or Geometry) with its
    visual and collision meshes and its world pose. Robots are posed at
    ``configs[robot_index]`` when given, else at ``robot.config``. Terrains first, then
    rigid objects, then robot links (Klamp't's ID order)."""
    world = _as_world(obj)
    out: list[ElementMeshes] = []
    for kind, items in (("terrain", world.terrains), ("rigid_object", world.rigid_objects)):
        for e in items:
            color = _color(e.appearance, kind)
            em = ElementMeshes(kind, e.name, np.array(e.transform, float))
            em.collision = geometry_parts(e.geometry, color, em.skipped, em.collision_points)
            em.visual, em.visual_points = em.collision, em.collision_points
            out.append(em)
    for r_index, robot in enumerate(world.robots):
        q = (configs or {}).get(r_index)
        T = robot.fk(None if q is None else np.asarray(q, float))
        for link in robot.links:
            color = _color(link.appearance, "link")
            em = ElementMeshes("link", link.name, T[link.index], robot=r_index, link=link.index)
            em.collision = geometry_parts(link.geometry, color, em.skipped, em.collision_points)
            if link.visual_geometry is not None:
                em.visual = geometry_parts(link.visual_geometry, color, em.skipped, em.visual_points)
            else:
                em.visual, em.visual_points = em.collision, em.collision_points
            out.append(em)
    return out


def posed_geometry(obj, report=None, *, visual: bool = True) -> Group:
    """One Group of baked triangle meshes (world coordinates, vertex colours) and point
    clouds (world coordinates, colours as ``r g b a`` fields in [0, 1]) of ``obj`` posed at
    its robots' ``config``: what a mesh file holds of a robot or world. Each child is named
    ``extras["name"]`` after its element (``robot/link``; ``#k`` appended when the element
    has several parts, point clouds after its meshes). ``report`` (a
    :class:`~roboio.report.ConversionReport`) gets what a mesh scene cannot hold."""
    world = _as_world(obj)
    elements = scene_elements(world)
    children = []
    for em in elements:
        parts = em.visual if visual else em.collision
        clouds = em.visual_points if visual else em.collision_points
        owner = (f"{world.robots[em.robot].name}/{em.name}" if em.kind == "link" else em.name)
        for k, p in enumerate(parts + clouds):
            if isinstance(p, PointPart):
                if p.properties and report is not None:
                    report.lose(f"{em.kind.replace('_', ' ')} {owner!r}: point cloud properties "
                                f"{list(p.properties)} (a mesh scene keeps positions and colours)",
                                kind="not written")
                c = p.rgba()
                m = PointCloud(_transform_points(em.transform, p.points),
                               {"r": c[:, 0], "g": c[:, 1], "b": c[:, 2], "a": c[:, 3]})
            else:
                vc = p.vertex_colors if p.vertex_colors is not None else np.tile(p.color, (len(p.vertices), 1))
                m = TriangleMesh(_transform_points(em.transform, p.vertices), p.faces, vertex_colors=vc)
            m.extras["name"] = owner if len(parts) + len(clouds) == 1 else f"{owner}#{k}"
            children.append(m)
        if report is not None:
            for s in em.skipped:
                report.lose(f"{em.kind.replace('_', ' ')} {owner!r}: {s} (not in the mesh scene)",
                            kind="not written")
    if report is not None:
        for robot in world.robots:
            report.lose(f"robot {robot.name!r}: kinematics (links, joints, limits, drivers, masses) "
                        "- written as one posed mesh at its configuration", kind="not written")
            if visual and any(l.visual_geometry is not None for l in robot.links):
                report.lose(f"robot {robot.name!r}: collision geometry (the visual geometry is written)",
                            kind="not written")
        for o in world.rigid_objects:
            report.lose(f"rigid object {o.name!r}: mass, inertia and contact parameters (geometry only)",
                        kind="not written")
    return Group(children)
