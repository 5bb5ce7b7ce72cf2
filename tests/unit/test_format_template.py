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
from format_samples import sample_file
from roboio.context import LoadContext
from roboio.describe import summary
from roboio.formats.fileio import read_bytes
from roboio.model import Grasp, Hold, IKObjective, PointCloud, Stance, TriangleMesh
from roboio.report import ConversionReport

FORMATS = roboio.formats()


def test_listing_the_formats_imports_no_format_code():
    code = ("import sys, roboio; roboio.formats(); "
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('roboio.formats.', "
            "'lxml', 'yaml', 'trimesh')))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT}, check=True).stdout.split()
    packages = {os.path.relpath(d, ROOT).replace(os.sep, ".")
                for d, _, files in os.walk(os.path.join(ROOT, "roboio", "formats")) if "__init__.py" in files}
    shared = {"roboio.formats._all", "roboio.formats.registry", "roboio.formats.loading",
              "roboio.formats.fileio"}
    # declarations (package __init__ modules) and sniffers only; no parser library
    heavy = [m for m in out if not (m in shared or m in packages or m.endswith("sniff"))]
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
    path = sample_file(info.name, tmp_path)
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
    "klampt-rob", "urdf", "choreonoid-body", "openrave", "collada-robot", "graspit", "gltf", "klampt-path", "klampt-config", "klampt-configs",
    "klampt-milestones", "klampt-multipath", "klampt-json-motion", "klampt-hold",
    "klampt-stance", "klampt-ikgoal", "klampt-grasp", "choreonoid-seq")]


@pytest.mark.parametrize("info", WRITABLE, ids=[f.name for f in WRITABLE])
def test_write_stores_what_dumps_returns(info, tmp_path):
    src = sample_file(info.name, tmp_path)
    obj = roboio.load(src, info.name)
    mod = importlib.import_module(info.module)
    out = str(tmp_path / ("again" + os.path.splitext(src)[1]))
    mod.write(obj, out, ConversionReport())
    text = mod.dumps(obj, ConversionReport(), out)
    data = text.encode("utf-8") if isinstance(text, str) else text
    assert read_bytes(out) == data
