"""URDF read as the specification and its mainstream readers read it (the default), against
Klamp't's reading (``flavor="klampt"``): package:// and package:/// meshes found through
package_dirs / --package-path / ROS_PACKAGE_PATH / AMENT_PREFIX_PATH / the URDF's ancestors
with one warning per missing package, every <mimic> kept, axes normalised, rotated inertials.
Expected values are worked out by hand."""
import json
import os
import struct
import warnings

import numpy as np
import pytest

import roboio
from roboio.cli.main import main

from conftest import Rx

TET = [[[0, 0, 0], [0, 1, 0], [1, 0, 0]], [[0, 0, 0], [1, 0, 0], [0, 0, 1]],
       [[0, 0, 0], [0, 0, 1], [0, 1, 0]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]]
LIM = '<limit effort="1" velocity="1" lower="-1" upper="1"/>'


def stl(path):
    tris = np.asarray(TET, np.float32)
    rec = np.zeros(len(tris), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = tris
    path.write_bytes(b" " * 80 + struct.pack("<I", len(tris)) + rec.tobytes())


def talos_like(tmp_path, slashes="///"):
    """ws/mypkg/{meshes/a.stl, meshes/b.stl, robots/r.urdf} with package:///mypkg meshes (the
    spelling of talos), and a copy of the URDF outside the package (copy/r.urdf)."""
    pkg = tmp_path / "ws" / "mypkg"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "robots").mkdir()
    stl(pkg / "meshes" / "a.stl")
    stl(pkg / "meshes" / "b.stl")
    text = f"""<robot name="r">
  <link name="base"><collision><geometry><mesh filename="package:{slashes}mypkg/meshes/a.stl"/></geometry></collision></link>
  <link name="arm"><collision><geometry><mesh filename="package:{slashes}mypkg/meshes/b.stl"/></geometry></collision></link>
  <link name="hand"><collision><geometry><mesh filename="package:{slashes}mypkg/meshes/b.stl"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>{LIM}</joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="hand"/><axis xyz="0 0 1"/>{LIM}</joint>
</robot>"""
    inside = pkg / "robots" / "r.urdf"
    inside.write_text(text)
    copy = tmp_path / "copy" / "r.urdf"
    copy.parent.mkdir()
    copy.write_text(text)
    return str(inside), str(copy), str(tmp_path / "ws")


def load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path, **kw)


def missing(r):
    return [l.name for l in r.links if l.geometry is not None and l.geometry.missing]


@pytest.mark.parametrize("slashes", ["//", "///"])
def test_package_urdf_inside_its_package(tmp_path, monkeypatch, slashes):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    inside, copy, ws = talos_like(tmp_path, slashes)
    r = load(inside)
    assert missing(r) == []
    assert r.links[5].geometry.source.path == os.path.join(ws, "mypkg", "meshes", "a.stl")
    # one note for the package, not one per mesh
    notes = [w for w in r.warnings if "package 'mypkg'" in w]
    assert len(notes) == 1 and "3 link(s)" in notes[0] and "package_root" in notes[0]
    # Klamp't's reading: Klamp't itself looks in /mypkg/... only; roboio's Klamp't flavor also
    # among the URDF's ancestors for package://, but package:/// is not Klamp't's syntax
    k = load(inside, flavor="klampt")
    assert missing(k) == ([] if slashes == "//" else ["base", "arm", "hand"])
    assert len([w for w in k.warnings if "package 'mypkg'" in w]) == 1


def test_copied_urdf_needs_a_package_path(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    inside, copy, ws = talos_like(tmp_path)
    r = load(copy)
    assert missing(r) == ["base", "arm", "hand"]
    [w] = [w for w in r.warnings if "mypkg" in w]            # one warning for three meshes
    assert "package 'mypkg' not found" in w and "3 link(s)" in w and "--package-path" in w
    assert missing(load(copy, package_dirs=[ws])) == []
    assert missing(load(copy, package_dirs={"mypkg": os.path.join(ws, "mypkg")})) == []
    monkeypatch.setenv("ROS_PACKAGE_PATH", ws)
    assert missing(load(copy)) == []
    monkeypatch.delenv("ROS_PACKAGE_PATH")
    prefix = tmp_path / "install"
    (prefix / "share").mkdir(parents=True)
    os.symlink(os.path.join(ws, "mypkg"), prefix / "share" / "mypkg")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    assert missing(load(copy)) == []
    monkeypatch.delenv("AMENT_PREFIX_PATH")
    # the command line
    assert main(["info", "--json", "--package-path", ws, copy]) == 0
    info = json.loads(capsys.readouterr().out)
    assert not [w for w in info.get("warnings", []) if "not found" in w]


def test_unresolved_meshes_are_lost_not_copied(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    inside, copy, ws = talos_like(tmp_path)
    r = load(copy)
    for out in ("out.rob", "out.urdf"):
        rep = roboio.save(r, str(tmp_path / out))
        text = open(tmp_path / out).read()
        assert "package:" not in text and "a.stl" not in text, out
        assert any("not found on reading" in x and "package:///mypkg/meshes/a.stl" in x for x in rep.lost), out
    rep = roboio.save(r, str(tmp_path / "out.mjcf"))
    assert "a.stl" not in open(tmp_path / "out.mjcf").read()
    assert any("not found on reading" in x for x in rep.lost)


def urdf(tmp_path, body):
    p = tmp_path / "m.urdf"
    p.write_text(f'<robot name="m"><link name="world"/>{body}</robot>')
    return str(p)


# link order is depth first by joint name: "a_follow" is numbered before "b_lead"
MIMIC = f"""
  <link name="base"/><link name="f"/><link name="l"/><link name="g"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="a_follow" type="revolute"><parent link="base"/><child link="f"/><axis xyz="0 0 1"/>{LIM}
    <mimic joint="b_lead" multiplier="-2" offset="0.5"/></joint>
  <joint name="b_lead" type="revolute"><parent link="base"/><child link="l"/><axis xyz="0 0 1"/>{LIM}</joint>
  <joint name="c_chain" type="revolute"><parent link="base"/><child link="g"/><axis xyz="0 0 1"/>{LIM}
    <mimic joint="a_follow" multiplier="3"/></joint>
"""


def test_every_mimic_is_kept_whatever_the_order(tmp_path):
    p = urdf(tmp_path, MIMIC)
    r = load(p)
    assert r.link_names == ["base", "f", "l", "g"]
    [d] = [d for d in r.drivers if d.type == "affine"]
    # q_f = 0.5 - 2 q_l;  q_g = 3 q_f = 1.5 - 6 q_l
    assert (d.dofs, d.scale, d.offset) == ([2, 1, 3], [1.0, -2.0, -6.0], [0.0, 0.5, 1.5])
    assert any("mimic joints of later joints kept: a_follow" in w for w in r.warnings)
    q = r.config_from_drivers([0.3])
    assert q[1] == pytest.approx(0.5 - 0.6) and q[3] == pytest.approx(1.5 - 1.8)
    # Klamp't ignores the mimic of a later joint: f keeps its own driver, which g then follows
    k = load(p, flavor="klampt")
    assert [(d.type, d.dofs) for d in k.drivers] == [("affine", [1, 3]), ("normal", [2])]
    # written to URDF and .rob and read back, the coupling is still there
    for out in ("m2.urdf", "m2.rob"):
        roboio.save(r, str(tmp_path / out))
        back = load(str(tmp_path / out))
        q2 = back.config_from_drivers(back.drivers_from_config(q))
        assert np.allclose(back.fk(q2)[:, :3, 3], r.fk(q)[:, :3, 3], atol=1e-12), out


def test_axes_are_normalised_and_inertials_rotated(tmp_path):
    p = urdf(tmp_path, f"""
  <link name="a"><inertial><origin xyz="0 0 0" rpy="0.5 0 0"/><mass value="1"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/></inertial></link>
  <joint name="j" type="revolute"><parent link="world"/><child link="a"/><axis xyz="0 0 2"/>{LIM}</joint>""")
    r = load(p)
    assert np.array_equal(r.links[0].axis, [0, 0, 1])
    assert any("joint axes normalised" in w and "a (|axis| = 2.0)" in w for w in r.warnings)
    I = np.diag([1.0, 2.0, 3.0])
    assert np.allclose(r.links[0].inertia, Rx(0.5) @ I @ Rx(0.5).T, atol=1e-15)
    k = load(p, flavor="klampt")
    assert np.array_equal(k.links[0].axis, [0, 0, 2])
    assert np.allclose(k.links[0].inertia, Rx(0.5).T @ I @ Rx(0.5), atol=1e-15)
    # the same file, read both ways, turns the link at q and at 2 q
    assert np.allclose(r.fk([0.4])[0][:3, :3], k.fk([0.2])[0][:3, :3], atol=1e-15)


# halodi's eve_r3.urdf writes SDF's "no limit" (-1) into every <limit effort velocity>
NEGATIVE = """
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="a"/><limit effort="-1" velocity="-1"/></joint>
  <joint name="neg" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="-1.0" velocity="-2.5"/></joint>
  <joint name="pos" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>{LIM}</joint>
"""


@pytest.mark.parametrize("flavor", [None, "klampt"])
def test_negative_effort_and_velocity_read_as_written_and_said_to_be_invalid(tmp_path, flavor):
    from roboio.errors import severity_of
    path = urdf(tmp_path, NEGATIVE.format(LIM=LIM))
    r = load(path, **({"flavor": flavor} if flavor else {}))
    b = r.link_names.index("b")
    # as written (urdfdom and Klamp't: torque [-effort, effort], velocity [-velocity, velocity])
    assert r.tmax[b] == -1.0 and r.vmax[b] == -2.5 and r.vmin[b] == 2.5
    bad = [w for w in r.warnings if "negative <limit" in w]
    assert len(bad) == 1 and severity_of(bad[0]) == "error" and bad[0].kind == "invalid value"
    assert "neg (effort=-1.0, velocity=-2.5)" in bad[0] and "fix" not in bad[0] and "pos" not in bad[0]
    assert bad[0].startswith(f"{path}:4:")      # the line of joint neg
    assert main(["validate", path]) == 1


def test_gazebo_model_uris_are_found_as_packages(tmp_path, monkeypatch):
    """rtmros_tutorials' Gazebo models: robot_models/LIP/model.urdf names its meshes
    model://LIP/meshes/...; DRCTestbedValve_fixed/model.urdf those of its sibling model
    DRCTestbedValve; elsewhere, GAZEBO_MODEL_PATH holds the model directories."""
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("GAZEBO_MODEL_PATH", raising=False)
    models = tmp_path / "models"
    (models / "LIP" / "meshes").mkdir(parents=True)
    stl(models / "LIP" / "meshes" / "a.stl")
    text = ('<robot name="lip"><link name="a"><collision><geometry>'
            '<mesh filename="model://LIP/meshes/a.stl"/></geometry></collision></link></robot>')
    for where in (models / "LIP", models / "LIP_fixed"):
        where.mkdir(exist_ok=True)
        (where / "model.urdf").write_text(text)
        r = load(str(where / "model.urdf"))
        assert not missing(r) and len(r.links[-1].geometry.faces) == 4
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "lip.urdf").write_text(text)
    assert missing(load(str(tmp_path / "elsewhere" / "lip.urdf"))) == ["a"]
    monkeypatch.setenv("GAZEBO_MODEL_PATH", str(models))
    assert not missing(load(str(tmp_path / "elsewhere" / "lip.urdf")))
