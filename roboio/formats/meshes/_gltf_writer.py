"""Writing glTF 2.0 (binary ``.glb``, or ``.gltf`` with the buffer embedded) through trimesh.

Every triangle mesh of the geometry becomes one node (named after ``extras["name"]`` when a
posed scene set it, see :mod:`roboio.model.posed`), with its transform applied to the vertices. A mesh
of one colour gets a PBR material (``baseColorFactor``); a mesh with several colours keeps
them as vertex colours (``COLOR_0``). Vertices are written in the model's own coordinates
(no Y-up conversion): Klamp't (Assimp), trimesh and the ROS tools read glTF meshes in the
file's coordinates, and so does roboio, so a file written here reads back where it was
(a viewer that assumes glTF's Y-up shows the model's z axis as its y). A point cloud
child of a posed scene becomes a node whose mesh is a ``POINTS`` primitive, with its
colours (:meth:`~roboio.model.PointCloud.colors`) as ``COLOR_0``. Coordinates
are stored as float32 and colours as bytes; the report says so when that rounds anything.
"""
from __future__ import annotations

import numpy as np

from ...model import Geometry, Group, PointCloud, TriangleMesh
from ...transforms import transform_points
from ..meshfile import flatten_for_writing, rounding_kind

__all__ = ["gltf_bytes"]


def _parts(geom: Geometry, report) -> list:
    """(name, baked TriangleMesh) per node: the children of a posed scene, else the whole
    geometry flattened into one mesh."""
    if isinstance(geom, Group) and geom.children and all(
            isinstance(c, (TriangleMesh, PointCloud)) and "name" in c.extras for c in geom.children):
        out = []
        for c in geom.children:
            if isinstance(c, PointCloud):
                b = c.baked()
                b.points = transform_points(geom.transform, b.points)
                out.append((str(c.extras["name"]), b))
                continue
            b = c.baked()
            b = b if np.allclose(geom.transform, np.eye(4)) else TriangleMesh(
                transform_points(geom.transform, b.vertices), b.faces,
                vertex_colors=b.vertex_colors, face_colors=b.face_colors)
            out.append((str(c.extras["name"]), b))
        return out
    m = flatten_for_writing(geom, report, "glTF")
    return [("mesh", TriangleMesh(m.vertices, m.faces, face_colors=m.face_colors,
                                  vertex_colors=m.vertex_colors))]


def _visual(mesh: TriangleMesh, report):
    import trimesh
    vc, fc = mesh.vertex_colors, mesh.face_colors
    cols = vc if vc is not None else fc
    if cols is None:
        return None, None
    cols = np.asarray(cols, float).reshape(-1, 4)
    q = np.clip(np.round(cols * 255), 0, 255)
    if np.any(q / 255 != cols):
        report.lose("colours rounded to 1/255 steps (glTF stores them as bytes here)", kind="rounding")
    q = q.astype(np.uint8)
    if len(q) and np.all(q == q[0]):
        mat = trimesh.visual.material.PBRMaterial(baseColorFactor=q[0], metallicFactor=0.0,
                                                  roughnessFactor=0.8, doubleSided=True)
        return trimesh.visual.TextureVisuals(material=mat), None
    return None, q if vc is not None else np.repeat(q, 3, axis=0)


def _scene(geom: Geometry, report):
    import trimesh
    scene = trimesh.Scene()
    used = set()
    for name, mesh in _parts(geom, report):
        v = np.asarray(mesh.vertices, float)
        if isinstance(mesh, PointCloud):
            _add(scene, used, name, _points(mesh, v, report), v, report)
            continue
        f = np.asarray(mesh.faces, np.int64)
        if len(f) == 0:
            if len(v):
                report.lose(f"{name}: {len(v)} vertices without triangles (glTF meshes are triangles here)", kind="not written")
            continue
        visual, vcols = _visual(mesh, report)
        if vcols is not None and mesh.vertex_colors is None:     # face colours: unshare vertices
            v, f = v[f].reshape(-1, 3), np.arange(3 * len(f)).reshape(-1, 3)
        tm = trimesh.Trimesh(v, f, process=False, visual=visual)
        if vcols is not None:
            tm.visual = trimesh.visual.ColorVisuals(tm, vertex_colors=vcols)
        _add(scene, used, name, tm, v, report)
    return scene


def _add(scene, used: set, name: str, geometry, v, report) -> None:
    key = name
    k = 1
    while key in used:
        k += 1
        key = f"{name}#{k}"
    used.add(key)
    scene.add_geometry(geometry, node_name=key, geom_name=key)
    if np.any(v.astype(np.float32).astype(float) != v):
        err = float(np.abs(v.astype(np.float32).astype(float) - v).max())
        report.lose("vertex coordinates rounded to 32-bit floats (glTF stores float32)", name,
                    kind=rounding_kind(err), largest=err, unit="m", noun="mesh")


def _points(cloud: PointCloud, v, report):
    """A trimesh PointCloud (written as a POINTS primitive) of ``cloud`` at ``v``."""
    import trimesh
    cols = cloud.colors()
    other = cloud.other_fields()
    if other:
        report.lose(f"point cloud properties {other} (glTF keeps positions and colours)", kind="not written")
    if cols is None:
        return trimesh.PointCloud(v)
    q = np.clip(np.round(cols * 255), 0, 255)
    if np.any(q / 255 != cols):
        report.lose("colours rounded to 1/255 steps (glTF stores them as bytes here)", kind="rounding")
    return trimesh.PointCloud(v, colors=q.astype(np.uint8))


def gltf_bytes(geom: Geometry, report, path: str | None = None) -> bytes:
    """The file's bytes: GLB unless ``path`` ends with ``.gltf`` (JSON, embedded buffer)."""
    from trimesh.exchange.gltf import export_glb, export_gltf
    scene = _scene(geom, report)
    if path is not None and path.lower().endswith(".gltf"):
        files = export_gltf(scene, embed_buffers=True)
        return files["model.gltf"]
    return export_glb(scene)
