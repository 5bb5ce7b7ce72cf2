"""Corrupted geometry files (truncated, bytes overwritten, numbers inserted) give a
FormatError or load; never another exception. Deterministic mutations of small samples."""
import random

import numpy as np
import pytest

from roboio import FormatError
from roboio.context import LoadContext
from roboio.formats import registry

SAMPLES = {
    "off": b"OFF\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3 255 0 0\n3 0 2 3\n",
    "tri": b"4\n0\t0\t0\n1\t0\t0\n0\t1\t0\n0\t0\t1\n2\n0\t1\t2\n0\t2\t3\n",
    "obj": b"mtllib a.mtl\no x\nv 0 0 0\nv 1 0 0\nv 0 1 0 1 0 0\nvt 0 0\nusemtl m\nf 1/1 2/1 3/1\nf 3 2 1\n",
    "pcd": (b"VERSION 0.7\nFIELDS x y z rgb\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\nPOINTS 2\n"
            b"DATA ascii\n1 2 3 0.5\n4 5 6 7\n"),
    "geom": b"Primitive\nBox 0 0 0 1 0 0 0 1 0 0 0 1 1 2 3",
    "group": b"2\nPrimitive\nSphere 0 0 0  1TriangleMesh\n3\n0 0 0\n1 0 0\n0 1 0\n1\n0 1 2\n",
    "ply": (b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
            b"element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
    "dae": (b'<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema"><library_geometries><geometry id="g"><mesh><source id="p"><float_array id="a" '
            b'count="9">0 0 0 1 0 0 0 1 0</float_array><technique_common><accessor count="3" stride="3">'
            b'<param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>'
            b'</accessor></technique_common></source><vertices id="v"><input semantic="POSITION" source="#p"/>'
            b'</vertices><triangles><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>'
            b'</mesh></geometry></library_geometries><library_visual_scenes><visual_scene id="s"><node id="n">'
            b'<translate>1 2 3</translate><instance_geometry url="#g"/></node></visual_scene>'
            b'</library_visual_scenes><scene><instance_visual_scene url="#s"/></scene></COLLADA>'),
}
FORMAT = {"off": "off", "tri": "klampt-tri", "obj": "wavefront-obj", "pcd": "pcd", "geom": "klampt-geom",
          "group": "klampt-group", "ply": "ply", "dae": "collada", "stl": "stl", "glb": "gltf"}


def _binary_samples():
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], "<f4").tobytes()
    stl = b"x" * 80 + (2).to_bytes(4, "little") + 2 * (b"\0" * 12 + tri + b"\0\0")
    trimesh = pytest.importorskip("trimesh")
    glb = trimesh.Scene([trimesh.creation.box()]).export(file_type="glb")
    return {"stl": stl, "glb": glb}


def mutations(data: bytes, seed: int, n: int = 40):
    rng = random.Random(seed)
    for _ in range(n):
        b = bytearray(data)
        op = rng.random()
        if op < 0.3:
            b = b[:rng.randrange(len(b))]
        elif op < 0.7:
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.choice(b'0123456789 -.\nx#/\t\x00\xff{}<>"')
        else:
            i = rng.randrange(len(b))
            b[i:i] = rng.choice([b" 999999999", b"-1", b"\n\n", b"nan", b"1e999"])
        yield bytes(b)


@pytest.mark.parametrize("ext", sorted(FORMAT))
@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")
def test_corrupted_files_fail_cleanly(tmp_path, ext):
    data = SAMPLES.get(ext) or _binary_samples()[ext]
    info = registry.get(FORMAT[ext])
    path = str(tmp_path / f"f.{ext}")
    for bad in mutations(data, seed=sum(ext.encode())):
        with open(path, "wb") as f:
            f.write(bad)
        try:
            g = info.read(path, LoadContext(path))
            for part in [g] + list(getattr(g, "children", [])):
                if hasattr(part, "load"):
                    part.load()
        except FormatError:
            pass
