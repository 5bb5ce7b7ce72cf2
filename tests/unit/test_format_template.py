"""Every format package follows the template of docs/development.md.

* Listing the formats imports no format code: only the ecosystem packages' ``__init__``
  declarations and their light ``_sniff`` modules (and no lxml, PyYAML or trimesh).
* Every format's entry module exposes the template's functions: ``loads``/``read`` for a
  readable format, ``dumps``/``write`` for a writable one, ``sniff`` when the format has a
  content test (defined in a light ``_sniff`` module).
* ``loads(bytes)`` and ``read(path)`` give the same object, for a file of every readable
  format.
"""
import importlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import roboio
from conftest import ROOT
from roboio.context import LoadContext
from roboio.describe import summary
from roboio.formats import registry
from roboio.formats.fileio import read_bytes
from roboio.model import (ContactPoint, Grasp, Hold, IKObjective, MultiPath, PointCloud, Primitive,
                          Stance, Trajectory, TriangleMesh)
from roboio.report import ConversionReport

FORMATS = roboio.formats()
SAMPLES = os.path.join(ROOT, "roboio", "data", "samples")


def test_listing_the_formats_imports_no_format_code():
    code = ("import sys, roboio; roboio.formats(); "
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('roboio.formats.', "
            "'lxml', 'yaml', 'trimesh')))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT}, check=True).stdout.split()
    formats_dir = os.path.join(ROOT, "roboio", "formats")
    ecosystems = {f"roboio.formats.{d}" for d in os.listdir(formats_dir)
                  if os.path.isfile(os.path.join(formats_dir, d, "__init__.py"))}
    shared = {"roboio.formats._all", "roboio.formats.registry", "roboio.formats.loading",
              "roboio.formats.fileio"}
    heavy = [m for m in out if not (m in shared or m in ecosystems or m.endswith("._sniff"))]
    assert not heavy, f"imported by roboio.formats(): {heavy}"


@pytest.mark.parametrize("info", FORMATS, ids=[f.name for f in FORMATS])
def test_entry_module_exposes_the_template(info):
    mod = importlib.import_module(info.module)
    entries = info._entries
    if info.can_read:
        assert entries["read"] == f"{info.module}:read"
        assert callable(getattr(mod, "loads", None)), f"{info.module} has no loads()"
    if info.can_write:
        assert isinstance(entries["write"], str) and entries["write"].startswith(info.module + ":")
        writer = entries["write"].partition(":")[2]
        dumps = "dumps" + writer[len("write"):]             # write_legacy -> dumps_legacy
        assert callable(getattr(mod, writer)) and (callable(getattr(mod, dumps, None))
                                                   or callable(getattr(mod, "dumps", None)))
    if info.has_sniff:
        assert info.sniff.__module__.endswith("._sniff"), info.sniff.__module__
        assert getattr(mod, "sniff", None) is info.sniff, f"{info.module}.sniff is not the registered one"


# -- loads(bytes) == read(path) -------------------------------------------------------------

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


def _sample(info, tmp_path):
    """A file of format ``info`` (None when the test has no sample for it)."""
    name = info.name
    s = lambda *p: os.path.join(SAMPLES, *p)
    mesh = TriangleMesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]),
                        np.array([[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]]))
    fixed = {"klampt-rob": s("planar_arm.rob"), "klampt-world": s("world.xml"),
             "klampt-terrain": s("floor.env"), "klampt-object": s("crate.obj"),
             "off": s("meshes", "crate.off"), "vrml": s("meshes", "bracket.wrl"),
             "choreonoid-body": s("choreonoid", "arm.body"),
             "choreonoid-seq": s("choreonoid", "arm_timed.seq")}
    if name in fixed:
        return fixed[name]
    written = {
        "urdf": (lambda: roboio.load(s("planar_arm.rob")), "r.urdf"),
        "stl": (lambda: mesh, "m.stl"), "ply": (lambda: mesh, "m.ply"),
        "wavefront-obj": (lambda: mesh, "m.obj"), "klampt-tri": (lambda: mesh, "m.tri"),
        "pcd": (lambda: PointCloud(mesh.vertices), "p.pcd"),
        "klampt-geom": (lambda: Primitive("Sphere", {"center": [0, 0, 1.0], "radius": 0.5}), "s.geom"),
        "klampt-group": (lambda: roboio.model.Group([mesh, Primitive("Sphere", {"center": [0, 0, 1.0],
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


def _same(a, b):
    if isinstance(a, TriangleMesh):
        return (np.array_equal(a.vertices, b.vertices) and np.array_equal(a.faces, b.faces)
                and np.array_equal(a.transform, b.transform))
    if isinstance(a, PointCloud):
        return np.array_equal(a.points, b.points)
    if isinstance(a, (Hold, Stance, Grasp, IKObjective)):
        return a == b
    return summary(a) == summary(b)


READABLE = [f for f in FORMATS if f.can_read]


@pytest.mark.parametrize("info", READABLE, ids=[f.name for f in READABLE])
def test_loads_bytes_equals_read_path(info, tmp_path):
    path = _sample(info, tmp_path)
    if path is None:
        pytest.skip(f"no sample file for {info.name} in this test")
    mod = importlib.import_module(info.module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_path = mod.read(path, LoadContext(path))
        from_bytes = mod.loads(read_bytes(path), LoadContext(path))
    assert type(from_bytes) is type(from_path)
    assert _same(from_bytes, from_path)


WRITABLE = [f for f in FORMATS if f.can_write and f.name in (
    "off", "stl", "ply", "wavefront-obj", "pcd", "klampt-tri", "klampt-geom", "klampt-group",
    "klampt-rob", "urdf", "choreonoid-body", "klampt-path", "klampt-config", "klampt-configs",
    "klampt-milestones", "klampt-multipath", "klampt-json-motion", "klampt-hold",
    "klampt-stance", "klampt-ikgoal", "klampt-grasp", "choreonoid-seq")]


@pytest.mark.parametrize("info", WRITABLE, ids=[f.name for f in WRITABLE])
def test_write_stores_what_dumps_returns(info, tmp_path):
    src = _sample(info, tmp_path)
    obj = roboio.load(src, info.name)
    mod = importlib.import_module(info.module)
    out = str(tmp_path / ("again" + os.path.splitext(src)[1]))
    mod.write(obj, out, ConversionReport())
    text = mod.dumps(obj, ConversionReport(), out)
    data = text.encode("utf-8") if isinstance(text, str) else text
    assert read_bytes(out) == data
