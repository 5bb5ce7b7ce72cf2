"""Evaluate a parsed Inventor / VRML scene into one triangle mesh in the file's frame.

Inventor and VRML 1.0 (:class:`_InventorWalk`) follow Coin's traversal state: ``Separator``
works on a copy of the state, ``Group``/``File`` share it (changes leak to later siblings),
``TransformSeparator`` restores only the matrix. Transform nodes post-multiply the current
matrix ``M`` (column vectors: a point p of a shape lands at ``M @ p``)::

    Transform:       M <- M T(translation) T(center) R(rotation) R(scaleOrientation)
                              S(scaleFactor) R(scaleOrientation)^-1 T(-center)
    MatrixTransform: M <- M A^T     (A = the 16 numbers row by row; Inventor matrices act
                                     on row vectors, the translation is in A's last row)

VRML 2.0 (:class:`_Vrml2Walk`): ``Transform`` applies the same product to its children;
grouping nodes have no other state; each ``Shape`` carries its own appearance.

Colours (RGBA per triangle, alpha = 1 - transparency) follow the material binding: OVERALL,
PER_PART, PER_FACE (and ``_INDEXED`` variants through ``materialIndex``), PER_VERTEX(_INDEXED);
a per-vertex binding gives each triangle the mean colour of its three corners. A mesh has
colours only when some shape is coloured by a Material / BaseColor / PackedColor /
VertexProperty (VRML 2.0: Material or Color); its other shapes get Inventor's default
diffuse grey (0.8).
"""
from __future__ import annotations

import numpy as np

from . import _shapes as shapes
from ....model import tessellate as tess
from ....transforms import compose
from ._geometry import (DEFAULT_RGBA, Shape, Sink, indexed, palette_colors, sequential, to_rgba,
                           transform_matrix)
from ._parse import Header
from ....limits import describe as over_limit, recursion_room

__all__ = ["build_mesh", "build_node_mesh", "build_nodes_mesh", "find_named", "transform_matrix", "MAX_TRIANGLES",
           "UNIT_METERS"]

MAX_TRIANGLES = 50_000_000       # when no limit is given (readers pass the load's max_triangles)
MAX_WALK_DEPTH = 256             # nested groups across File/Inline includes, when no limit is given

UNIT_METERS = {
    "METERS": 1.0, "CENTIMETERS": 0.01, "MILLIMETERS": 0.001, "MICROMETERS": 1e-6,
    "MICRONS": 1e-6, "NANOMETERS": 1e-9, "ANGSTROMS": 1e-10, "KILOMETERS": 1000.0,
    "INCHES": 0.0254, "FEET": 0.3048, "YARDS": 0.9144, "MILES": 1609.344,
    "NAUTICAL_MILES": 1852.0, "POINTS": 0.0254 / 72.0,
}


# -- Inventor / VRML 1.0 ------------------------------------------------------------------
class _State:
    __slots__ = ("M", "coords", "palette", "colored", "binding", "convex", "units")

    def __init__(self):
        self.M = np.eye(4)
        self.coords = None
        self.palette = DEFAULT_RGBA[None, :].copy()
        self.colored = False
        self.binding = "OVERALL"
        self.convex = True
        self.units = 1.0

    def copy(self) -> "_State":
        s = _State.__new__(_State)
        s.M, s.coords, s.palette, s.colored = self.M, self.coords, self.palette, self.colored
        s.binding, s.convex, s.units = self.binding, self.convex, self.units
        return s


class _Walk:
    def __init__(self, sink: Sink, include, warn, max_depth: int = MAX_WALK_DEPTH):
        self.sink = sink
        self.include = include        # include(reference, node, field, visit)
        self.warn = warn              # warn(message, node)
        self.depth = 0
        self.max_depth = max_depth

    def included(self, reference, node, field: str, visit):
        """Walk the file ``reference`` names (``visit(scene)``), if it can be loaded."""
        self.enter(node)
        self.include(reference, node, field, visit)
        self.depth -= 1

    def enter(self, node):
        self.depth += 1
        if self.depth > self.max_depth:
            raise node.error(over_limit("depth", self.depth, self.max_depth,
                                        "Inventor/VRML groups nested through File/Inline includes"))

    def scene(self, scene, M=None, state=None):
        """Walk a (possibly included) scene from matrix ``M`` or Inventor ``state``."""
        if scene.header.dialect == "vrml2":
            if M is None:
                M = state.M if state is not None else np.eye(4)
            _Vrml2Walk(self).nodes(scene.roots, M)
        else:
            inv = _InventorWalk(self, scene.header)
            inv.nodes(scene.roots, state if state is not None else _state_with(M))


def _state_with(M) -> _State:
    s = _State()
    if M is not None:
        s.M = M
    return s


class _InventorWalk:
    def __init__(self, walk: _Walk, header):
        self.w = walk
        self.v1 = header.dialect == "inventor" and header.version < 2.0
        self.vrml1 = header.dialect == "vrml1"

    def nodes(self, nodes, st: _State):
        for node in nodes:
            handler = getattr(self, "n_" + node.type, None)
            if handler is not None:
                handler(node, st)

    # grouping
    def _separator(self, node, st):
        self.w.enter(node)
        self.nodes(node.children, st.copy())
        self.w.depth -= 1

    n_Separator = n_Annotation = n_Selection = n_WWWAnchor = _separator

    def n_Group(self, node, st):
        self.w.enter(node)
        self.nodes(node.children, st)
        self.w.depth -= 1

    def n_TransformSeparator(self, node, st):
        M = st.M
        self.n_Group(node, st)
        st.M = M

    def n_Switch(self, node, st):
        which = int(node.get("whichChild", -1))
        if which == -3:
            self.n_Group(node, st)
        elif 0 <= which < len(node.children):
            self.w.enter(node)
            self.nodes([node.children[which]], st)
            self.w.depth -= 1

    def n_LOD(self, node, st):        # the most detailed child (no viewer distance here)
        if node.children:
            self.w.enter(node)
            self.nodes(node.children[:1], st)
            self.w.depth -= 1

    n_LevelOfDetail = n_LOD

    def n_File(self, node, st):          # the included scene acts as a Group
        self.w.included(node.get("name", ""), node, "name", lambda sc: self.w.scene(sc, state=st))

    def n_WWWInline(self, node, st):     # VRML 1.0: like a Separator
        inner = st.copy()
        self.w.included(node.get("name", ""), node, "name", lambda sc: self.w.scene(sc, state=inner))

    # transformations
    def _post(self, st, local):
        st.M = compose(st.M, local)

    def n_Transform(self, node, st):
        g = node.get
        self._post(st, transform_matrix(g("translation"), g("rotation"), g("scaleFactor"),
                                        g("scaleOrientation"), g("center")))

    def n_Translation(self, node, st):
        self._post(st, transform_matrix(translation=node.get("translation")))

    def n_Rotation(self, node, st):
        self._post(st, transform_matrix(rotation=node.get("rotation")))

    def n_RotationXYZ(self, node, st):
        axis = node.get("axis", "X")
        if axis not in ("X", "Y", "Z"):
            raise node.error(f"RotationXYZ axis must be X, Y or Z, not {axis!r}", "axis")
        r = np.zeros(4)
        r["XYZ".index(axis)] = 1.0
        r[3] = node.get("angle", 0.0)
        self._post(st, transform_matrix(rotation=r))

    def n_Scale(self, node, st):
        self._post(st, transform_matrix(scale=node.get("scaleFactor")))

    def n_MatrixTransform(self, node, st):
        m = node.get("matrix")
        if m is not None:
            self._post(st, np.asarray(m, float).reshape(4, 4).T)

    def n_ResetTransform(self, node, st):
        if "TRANSFORM" in node.get("whatToReset", frozenset(["TRANSFORM"])):
            st.M = np.eye(4)

    def n_Units(self, node, st):
        name = node.get("units", "METERS")
        if name not in UNIT_METERS:
            raise node.error(f"unknown units {name!r}", "units")
        factor = UNIT_METERS[name]
        s = factor / st.units
        st.units = factor
        self._post(st, np.diag([s, s, s, 1.0]))

    # properties
    def n_Coordinate3(self, node, st):
        st.coords = node.get("point", np.zeros((0, 3)))

    def n_Coordinate4(self, node, st):
        p = node.get("point", np.zeros((0, 4)))
        with np.errstate(divide="ignore", invalid="ignore"):
            st.coords = p[:, :3] / p[:, 3:4]

    def n_VertexProperty(self, node, st):
        v = node.get("vertex")
        if v is not None and len(v):
            st.coords = v
        rgba = node.get("orderedRGBA")
        if rgba is not None and len(rgba):
            st.palette, st.colored = _packed(rgba), True
            st.binding = _binding(node.get("materialBinding", "OVERALL"))

    def n_Material(self, node, st):
        diffuse = node.get("diffuseColor", np.array([[0.8, 0.8, 0.8]]))
        emissive = node.get("emissiveColor", np.zeros((1, 3)))
        if self.vrml1 and len(emissive) > len(diffuse):
            diffuse = emissive           # Coin: a VRML 1.0 "emissive only" material
        if len(diffuse):
            st.palette = to_rgba(diffuse, node.get("transparency", np.zeros(1)))
        st.colored = True

    def n_BaseColor(self, node, st):
        rgb = node.get("rgb", np.array([[0.8, 0.8, 0.8]]))
        if len(rgb):
            st.palette = to_rgba(rgb, 1.0 - st.palette[:1, 3])
        st.colored = True

    def n_PackedColor(self, node, st):
        rgba = node.get("orderedRGBA")
        if rgba is None or not len(rgba):
            rgba = node.get("rgba")
        if rgba is not None and len(rgba):
            st.palette, st.colored = _packed(rgba), True

    def n_MaterialBinding(self, node, st):
        st.binding = _binding(node.get("value", "OVERALL"))

    def n_ShapeHints(self, node, st):
        if "hints" in node.fields or self.v1:
            # Inventor 1.0 ShapeHints (Coin's upgrader): default hints are CONCAVE
            st.convex = "CONVEX" in node.get("hints", frozenset())
        else:
            st.convex = node.get("faceType", "CONVEX") != "UNKNOWN_FACE_TYPE"

    # shapes
    def _emit(self, st, points, faces, rgba, node):
        self.w.sink.add(points, st.M, faces, rgba, node.error)

    def _primitive(self, st, node, vf):
        v, f = vf
        rgba = np.tile(st.palette[0], (len(f), 1)) if st.colored else None
        self._emit(st, v, f, rgba, node)

    def n_Cube(self, node, st):
        g = node.get
        self._primitive(st, node, tess.box(g("width", 2.0), g("height", 2.0), g("depth", 2.0)))

    def n_Sphere(self, node, st):
        self._primitive(st, node, tess.sphere(node.get("radius", 1.0)))

    def n_Cylinder(self, node, st):
        parts = _parts(node, ("SIDES", "TOP", "BOTTOM"))
        self._primitive(st, node, tess.cylinder(node.get("radius", 1.0), node.get("height", 2.0),
                                                "SIDES" in parts, "TOP" in parts, "BOTTOM" in parts))

    def n_Cone(self, node, st):
        parts = _parts(node, ("SIDES", "BOTTOM"))
        self._primitive(st, node, tess.cone(node.get("bottomRadius", 1.0), node.get("height", 2.0),
                                            "SIDES" in parts, "BOTTOM" in parts))

    def _vertex_source(self, node, st):
        """Coordinates and colour palette/binding of a shape: its own ``vertexProperty`` if
        set, else the traversal state."""
        points, palette, binding, colored = st.coords, st.palette, st.binding, st.colored
        vp = node.get("vertexProperty")
        if vp is not None and not vp.skipped:
            v = vp.get("vertex")
            if v is not None and len(v):
                points = v
            rgba = vp.get("orderedRGBA")
            if rgba is not None and len(rgba):
                palette, colored = _packed(rgba), True
                binding = _binding(vp.get("materialBinding", "OVERALL"))
        return points, palette, binding, colored

    def _indexed_shape(self, node, st, strip):
        points, palette, binding, colored = self._vertex_source(node, st)
        stream = node.get("coordIndex", np.zeros(0, np.int64))
        if len(stream) == 0:
            return
        shape = indexed(stream, points, st.convex, strip, node, "coordIndex")
        self._color_and_emit(node, st, points, shape, palette, binding, colored,
                             node.get("materialIndex"))

    def n_IndexedFaceSet(self, node, st):
        self._indexed_shape(node, st, strip=False)

    def n_IndexedTriangleStripSet(self, node, st):
        self._indexed_shape(node, st, strip=True)

    def _sequential_shape(self, node, st, strip):
        points, palette, binding, colored = self._vertex_source(node, st)
        counts = node.get("numVertices", np.array([-1]))
        n = 0 if points is None else len(points)
        shape = sequential(int(node.get("startIndex", 0)), counts, n, st.convex, strip, points, node)
        self._color_and_emit(node, st, points, shape, palette, binding.replace("_INDEXED", ""),
                             colored, None)

    def n_FaceSet(self, node, st):
        self._sequential_shape(node, st, strip=False)

    def n_TriangleStripSet(self, node, st):
        self._sequential_shape(node, st, strip=True)

    def n_QuadMesh(self, node, st):
        points, palette, binding, colored = self._vertex_source(node, st)
        cols, rows = int(node.get("verticesPerRow", 1)), int(node.get("verticesPerColumn", 1))
        start = int(node.get("startIndex", 0))
        n = 0 if points is None else len(points)
        if cols < 0 or rows < 0 or start < 0 or start + cols * rows > n:
            raise node.error(f"QuadMesh of {rows} x {cols} vertices from {start} needs more than "
                             f"the {n} coordinates")
        if rows < 2 or cols < 2:
            return
        _, faces = shapes.grid(np.zeros(rows * cols), cols, rows, 1.0, 1.0)
        faces = faces + start
        quad = np.tile(np.arange((rows - 1) * (cols - 1)), 2)
        row = quad // (cols - 1)
        shape = Shape(faces, faces - start, quad, row, np.arange(start, start + rows * cols),
                       faces - start)
        self._color_and_emit(node, st, points, shape, palette, binding.replace("_INDEXED", ""),
                             colored, None)

    def _color_and_emit(self, node, st, points, shape, palette, binding, colored, index):
        rgba = None
        if colored and len(shape.faces):
            warn = lambda m, **kind: self.w.warn(m, node, **kind)    # noqa: E731
            rgba = palette_colors(palette, shape.color_indices(binding, index, warn), warn)
        self._emit(st, points, shape.faces, rgba, node)


def _packed(values) -> np.ndarray:
    v = np.asarray(values, dtype=np.int64).reshape(-1) & 0xFFFFFFFF
    return np.stack([(v >> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255], axis=1) / 255.0


def _binding(value: str) -> str:
    return "OVERALL" if value in ("DEFAULT", "NONE") else value


def _parts(node, all_parts) -> frozenset:
    parts = node.get("parts", frozenset(["ALL"]))
    return frozenset(all_parts) if "ALL" in parts else parts


# -- VRML 2.0 -------------------------------------------------------------------------------
_NO_SURFACE = ("IndexedLineSet", "PointSet")     # VRML 2.0 geometry that draws no triangles


class _Vrml2Walk:
    def __init__(self, walk: _Walk, exclude=frozenset()):
        self.w = walk
        self.inventor = _InventorWalk(walk, Header("inventor", 2.1, "ascii", ""))
        self.exclude = exclude          # DEF names whose nodes (and subtrees) are left out

    def nodes(self, nodes, M):
        state = None       # Inventor nodes among VRML ones share a state within one group
        for node in nodes:
            if node.name is not None and node.name in self.exclude:
                continue
            handler = getattr(self, "n_" + node.type, None)
            if handler is not None:
                handler(node, M)
            elif hasattr(self.inventor, "n_" + node.type):
                state = state or _state_with(M)
                self.inventor.nodes([node], state)

    def _children(self, node, M, field="children"):
        self.w.enter(node)
        self.nodes(node.get(field, []), M)
        self.w.depth -= 1

    def n_Transform(self, node, M):
        g = node.get
        local = transform_matrix(g("translation"), g("rotation"), g("scale"),
                                 g("scaleOrientation"), g("center"))
        self._children(node, compose(M, local))

    def _group(self, node, M):
        self._children(node, M)

    n_Group = n_Collision = n_Anchor = n_Billboard = _group

    def n_Switch(self, node, M):
        which = int(node.get("whichChoice", -1))
        choice = node.get("choice", [])
        if 0 <= which < len(choice):
            self.w.enter(node)
            self.nodes([choice[which]], M)
            self.w.depth -= 1

    def n_LOD(self, node, M):          # the most detailed level
        level = node.get("level", [])
        if level:
            self.w.enter(node)
            self.nodes(level[:1], M)
            self.w.depth -= 1

    def n_Inline(self, node, M):
        self.w.included(node.get("url", []), node, "url", lambda sc: self.w.scene(sc, M=M))

    def n_Shape(self, node, M):
        geom = node.get("geometry")
        if geom is None or geom.skipped or geom.type in _NO_SURFACE:
            return
        handler = getattr(self, "g_" + geom.type, None)
        if handler is None:
            self.w.warn(f"{geom.type} is not a geometry node; shape skipped", geom, kind="invalid value")
            return
        rgba = None
        app = node.get("appearance")
        if app is not None and not app.skipped and app.type == "Appearance":
            mat = app.get("material")
            if mat is not None and not mat.skipped and mat.type == "Material":
                rgba = to_rgba(mat.get("diffuseColor", np.array([0.8, 0.8, 0.8])),
                             mat.get("transparency", 0.0))
        handler(geom, M, rgba)

    def _emit(self, M, points, faces, rgba, node):
        self.w.sink.add(points, M, faces, rgba, node.error)

    def _primitive(self, M, vf, rgba, node):
        v, f = vf
        self._emit(M, v, f, None if rgba is None else np.tile(rgba[0], (len(f), 1)), node)

    def g_Box(self, node, M, rgba):
        s = node.get("size", np.array([2.0, 2.0, 2.0]))
        self._primitive(M, tess.box(*s), rgba, node)

    def g_Sphere(self, node, M, rgba):
        self._primitive(M, tess.sphere(node.get("radius", 1.0)), rgba, node)

    def g_Cylinder(self, node, M, rgba):
        g = node.get
        self._primitive(M, tess.cylinder(g("radius", 1.0), g("height", 2.0), g("side", True),
                                         g("top", True), g("bottom", True)), rgba, node)

    def g_Cone(self, node, M, rgba):
        g = node.get
        self._primitive(M, tess.cone(g("bottomRadius", 1.0), g("height", 2.0), g("side", True),
                                     g("bottom", True)), rgba, node)

    def g_IndexedFaceSet(self, node, M, rgba):
        coord = node.get("coord")
        points = coord.get("point") if coord is not None and not coord.skipped else None
        stream = node.get("coordIndex", np.zeros(0, np.int64))
        if len(stream) == 0:
            return
        shape = indexed(stream, points, node.get("convex", True), False, node, "coordIndex")
        faces_rgba = None if rgba is None else np.tile(rgba[0], (len(shape.faces), 1))
        color = node.get("color")
        if color is not None and not color.skipped and len(shape.faces):
            alpha = 1.0 if rgba is None else rgba[0, 3]
            palette = to_rgba(color.get("color", np.zeros((0, 3))), 1.0 - alpha)
            per_vertex = node.get("colorPerVertex", True)
            warn = lambda m, **kind: self.w.warn(m, node, **kind)    # noqa: E731
            idx = shape.color_indices("PER_VERTEX_INDEXED" if per_vertex else "PER_FACE_INDEXED",
                                      node.get("colorIndex"), warn)
            colors = palette_colors(palette, idx, warn)
            if colors is not None:
                faces_rgba = colors
        self._emit(M, points, shape.faces, faces_rgba, node)

    def g_ElevationGrid(self, node, M, rgba):
        nx, nz = int(node.get("xDimension", 0)), int(node.get("zDimension", 0))
        heights = node.get("height", np.zeros(0))
        if nx < 0 or nz < 0 or len(heights) < nx * nz:
            raise node.error(f"ElevationGrid of {nx} x {nz} needs {nx * nz} heights, "
                             f"got {len(heights)}", "height")
        if nx < 2 or nz < 2:
            return
        v, f = shapes.grid(heights, nx, nz, node.get("xSpacing", 1.0), node.get("zSpacing", 1.0))
        self._primitive(M, (v, f), rgba, node)


    def g_Extrusion(self, node, M, rgba):
        g = node.get
        cross = g("crossSection", np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [-1.0, 1.0],
                                            [1.0, 1.0]]))
        spine = g("spine", np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
        scale = g("scale", np.ones((1, 2)))
        orientation = g("orientation", np.array([[0.0, 0.0, 1.0, 0.0]]))
        if len(scale) == 0 or len(orientation) == 0:
            self.w.warn("Extrusion with an empty scale or orientation: shape skipped", node, kind="invalid value")
            return
        sink = self.w.sink
        n = tess.extrusion_triangles(len(spine), len(cross))
        if sink.nf + n > sink.limit:
            raise node.error(over_limit("triangles", sink.nf + n, sink.limit,
                                        "Inventor/VRML triangles (an Extrusion)"))
        v, f = tess.extrusion(cross, spine, scale, orientation, g("beginCap", True),
                              g("endCap", True))
        self._primitive(M, (v, f), rgba, node)


def build_mesh(scene, include, warn, limit=None, max_depth=None) -> dict:
    """Triangles of every shape of ``scene`` in the file frame, as a TriangleMesh loader dict.

    ``include(reference, node, field, visit)`` loads the file a ``File``/``Inline`` node
    names and calls ``visit(scene)`` on it (or reports why it cannot);
    ``warn(message, node)`` reports a problem. ``limit``: most triangles; ``max_depth``:
    deepest nesting of groups, includes counted (the walk recurses that deep)."""
    sink = Sink(MAX_TRIANGLES if limit is None else limit)
    depth = MAX_WALK_DEPTH if max_depth is None else max_depth
    with recursion_room(depth):
        _Walk(sink, include, warn, depth).scene(scene)
    return sink.result()


# -- one named node of a VRML 2.0 scene -----------------------------------------------------
_V2_CHILD_FIELDS = ("children", "choice", "level")


def find_named(scene, name: str):
    """(node, matrix of its parent frame) of the first node ``DEF``-named ``name`` in a
    pre-order walk of a VRML 2.0 scene (Transforms compose on the way down), or None."""
    stack = [(n, np.eye(4)) for n in reversed(scene.roots)]
    while stack:
        node, M = stack.pop()
        if node.name == name:
            return node, M
        if node.type == "Transform":
            g = node.get
            inner = compose(M, transform_matrix(g("translation"), g("rotation"), g("scale"),
                                                g("scaleOrientation"), g("center")))
        else:
            inner = M
        for f in _V2_CHILD_FIELDS:
            for child in reversed(node.get(f, []) or []):
                stack.append((child, inner))
    return None


def build_node_mesh(node, parent: np.ndarray, compose, include, warn, limit=None,
                    max_depth=None, exclude=frozenset()) -> dict:
    """Triangles of one VRML 2.0 node's subtree, less the nodes ``DEF``-named in
    ``exclude``. ``compose(parent, local)`` gives the matrix applied to the node's contents
    from its parent frame and its own Transform matrix (``local`` is the identity for other
    nodes); ``parent @ local`` is the file frame."""
    sink = Sink(MAX_TRIANGLES if limit is None else limit)
    depth = MAX_WALK_DEPTH if max_depth is None else max_depth
    walk = _Vrml2Walk(_Walk(sink, include, warn, depth), frozenset(exclude) - {node.name})
    with recursion_room(depth):
        if node.type == "Transform":
            g = node.get
            local = transform_matrix(g("translation"), g("rotation"), g("scale"),
                                     g("scaleOrientation"), g("center"))
            walk.nodes(node.get("children", []), compose(parent, local))
        else:
            walk.nodes([node], compose(parent, np.eye(4)))
    return sink.result()


def build_nodes_mesh(nodes, matrix: np.ndarray, include, warn, limit=None, max_depth=None) -> dict:
    """Triangles of VRML 2.0 ``nodes`` (siblings of one scene), walked from the 4x4 ``matrix``
    as the children of a grouping node at that frame are."""
    sink = Sink(MAX_TRIANGLES if limit is None else limit)
    depth = MAX_WALK_DEPTH if max_depth is None else max_depth
    with recursion_room(depth):
        _Vrml2Walk(_Walk(sink, include, warn, depth)).nodes(nodes, np.asarray(matrix, float))
    return sink.result()
