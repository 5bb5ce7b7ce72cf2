"""A small valid file of every format, for the tests that run every reader: shipped samples
(roboio/data/samples), files written by roboio's writers, and hand-written ones."""
import os
import pathlib
from typing import Optional

import numpy as np

import roboio
from conftest import SAMPLES
from roboio.model import (ContactPoint, Grasp, Group, Hold, IKObjective, MultiPath, PointCloud,
                          Primitive, Stance, Trajectory, TriangleMesh)

__all__ = ["sample_file"]


def _save(tmp_path, obj, name, fmt):
    path = str(tmp_path / name)
    roboio.save(obj, path, fmt)
    return path


def _trajectory(timed=True, velocities=False):
    q = np.array([[0.0, 0.5, -1.25], [0.1, 0.25, 3.0]])
    return Trajectory(np.array([0.0, 1.5]) if timed else None, q, q * 2 if velocities else None)


def _hold():
    ik = IKObjective(3, -1, "fixed", np.array([0.0, 0.0, 0.1]), np.array([1.0, 2.0, 3.0]),
                     rot_constraint="fixed", end_rotation=np.array([0.0, 0.0, 0.5]))
    return Hold(3, [ContactPoint(np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]), 0.5)], ik)


def sample_file(name: str, tmp_path) -> Optional[str]:
    """A small file of format ``name`` (None when there is no sample for it): a shipped sample,
    or one written into ``tmp_path`` by roboio's writer or by hand."""
    tmp_path = pathlib.Path(tmp_path)
    tmp_path.mkdir(parents=True, exist_ok=True)
    s = lambda *p: os.path.join(SAMPLES, *p)
    mesh = TriangleMesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]),
                        np.array([[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]]))
    fixed = {"klampt-rob": s("planar_arm.rob"), "klampt-world": s("world.xml"),
             "klampt-terrain": s("floor.env"), "klampt-object": s("crate.obj"),
             "off": s("meshes", "crate.off"), "vrml": s("meshes", "bracket.wrl"),
             "choreonoid-body": s("choreonoid", "arm.body"),
             "choreonoid-seq": s("choreonoid", "arm_timed.seq"),
             "openhrp-vrml": s("choreonoid", "arm_vrml.wrl"),
             "choreonoid-model": s("choreonoid", "arm_model.yaml"),
             "mjcf": s("mjcf", "arm.xml")}
    if name in fixed:
        return fixed[name]
    written = {
        "urdf": (lambda: roboio.load(s("planar_arm.rob")), "r.urdf"),
        "openrave": (lambda: roboio.load(s("planar_arm.rob")), "r.robot.xml"),
        "collada-robot": (lambda: roboio.load(s("planar_arm.rob")), "r.dae"),
        "graspit": (lambda: roboio.load(s("planar_arm.rob")), "r.xml"),
        "stl": (lambda: mesh, "m.stl"), "ply": (lambda: mesh, "m.ply"),
        "wavefront-obj": (lambda: mesh, "m.obj"), "klampt-tri": (lambda: mesh, "m.tri"),
        "pcd": (lambda: PointCloud(mesh.vertices), "p.pcd"),
        "klampt-geom": (lambda: Primitive("Sphere", {"center": [0, 0, 1.0], "radius": 0.5}), "s.geom"),
        "klampt-group": (lambda: Group([mesh, Primitive("Sphere", {"center": [0, 0, 1.0],
                                                                               "radius": 0.5})]), "g.group"),
        "klampt-config": (lambda: Trajectory(None, np.array([[0.0, 0.5, -1.25]])), "q.config"),
        "klampt-configs": (lambda: _trajectory(False), "q.configs"),
        "klampt-milestones": (lambda: _trajectory(False, True), "q.milestones"),
        "klampt-path": (lambda: _trajectory(), "q.path"),
        "klampt-multipath": (lambda: MultiPath.from_trajectory(_trajectory()), "q.xml"),
        "klampt-json-motion": (lambda: _trajectory(), "q.json"),
        "klampt-hold": (_hold, "h.hold"), "klampt-stance": (lambda: Stance([_hold()]), "s.stance"),
        "klampt-ikgoal": (lambda: _hold().ik_constraint, "g.ikgoal"),
        "klampt-grasp": (lambda: Grasp(constraints=[_hold().ik_constraint]), "g.xml"),
    }
    if name in written:
        make, fname = written[name]
        return _save(tmp_path, make(), fname, name)
    if name == "choreonoid-pseq":
        p = tmp_path / "k.pseq"
        p.write_text("type: PoseSeq\nname: walk\ntargetBody: arm\nrefs:\n  - time: 0.5\n"
                     "    refer:\n      type: Pose\n      name: k0\n      joints: [ 0, 1 ]\n"
                     "      q: [ 0.1, -0.2 ]\n")
        return str(p)
    if name in ("gltf", "collada"):
        import trimesh
        p = tmp_path / ("m.glb" if name == "gltf" else "m.dae")
        trimesh.Trimesh(mesh.vertices, mesh.faces, process=False).export(str(p))
        return str(p)
    if name == "inventor":
        p = tmp_path / "c.iv"
        p.write_text("#Inventor V2.1 ascii\nSeparator { Cube { width 2 } }\n")
        return str(p)
    return None
