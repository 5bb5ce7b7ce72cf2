"""The names of a Klamp't floating base's five virtual links survive URDF and Choreonoid
.body round trips (``<roboio><virtual_link>`` / ``roboio_virtual_links``), so that
``verify`` matches every link by name; Klamp't's own reading (``flavor="klampt"``) still
names them base0..base4. Expected values: the names and frames of the hand-built model."""
import os
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.cli.main import main
from roboio.model import Driver, Joint, Link, Robot
from roboio.verify import verify

from conftest import corpus_path

AXES = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
VIRTUAL = ["tx", "ty", "tz", "yaw", "pitch"]


def floating_robot(names=VIRTUAL):
    links = [Link(nm, i - 1, "prismatic" if i < 3 else "revolute", AXES[i], np.eye(4), mass=0.0,
                  inertia=np.zeros((3, 3))) for i, nm in enumerate(list(names) + ["body"])]
    links[5].mass, links[5].inertia = 2.0, np.eye(3)
    T = np.eye(4)
    T[:3, 3] = (0.1, 0.0, 0.2)
    links.append(Link("arm", 5, "revolute", (0, 1, 0), T, mass=1.0, inertia=np.eye(3)))
    r = Robot("floater")
    inf = np.inf
    r.set_links(links, qmin=[-inf] * 6 + [-1], qmax=[inf] * 6 + [1], vmin=[-inf] * 6 + [-2],
                vmax=[inf] * 6 + [2], amax=[inf] * 6 + [10], tmax=[0.0] * 6 + [3])
    r.pmax[5] = 0.0
    r.joints = [Joint("floating", list(range(6))), Joint("normal", [6])]
    r.drivers = [Driver("arm", "normal", [6], qmin=-1, qmax=1, vmin=-2, vmax=2, tmin=-3, tmax=3,
                        amin=-10, amax=10, servo_p=100, servo_d=10)]
    return r


def reread(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path, **kw)


@pytest.mark.parametrize("ext", ["urdf", "body"])
def test_virtual_link_names_round_trip(tmp_path, ext):
    r = floating_robot()
    out = tmp_path / f"f.{ext}"
    rep = roboio.save(r, out)
    assert not any("name" in x for x in rep.lost), rep.lost
    back = reread(out)
    assert back.link_names == r.link_names
    assert [j.type for j in back.joints] == ["floating", "normal"]
    res = verify(r, back, 20)
    assert res.ok and res.space == "links" and not res.only_a and not res.only_b
    # write -> read -> write is a fixed point
    first = out.read_bytes()
    roboio.save(back, out, overwrite_input=True)
    assert out.read_bytes() == first


def test_urdf_virtual_names_are_roboio_only(tmp_path):
    out = tmp_path / "f.urdf"
    roboio.save(floating_robot(), out)
    root = etree.parse(str(out)).getroot()
    assert [e.get("name") for e in root.iter("virtual_link")] == VIRTUAL
    # Klamp't's reading names the virtual links as Klamp't does
    assert reread(out, flavor="klampt").link_names[:5] == [f"base{i}" for i in range(5)]
    # default names are not written at all
    roboio.save(floating_robot([f"base{i}" for i in range(5)]), out)
    assert etree.parse(str(out)).getroot().find("roboio") is None


def test_unusable_virtual_names_fall_back_with_a_warning(tmp_path):
    out = tmp_path / "f.urdf"
    roboio.save(floating_robot(), out)
    text = out.read_text().replace('name="ty"/>', 'name="arm"/>')   # clashes with a URDF link
    out.write_text(text)
    with pytest.warns(roboio.RoboioWarning, match="virtual_link"):
        back = roboio.load(out)
    assert back.link_names[:5] == [f"base{i}" for i in range(5)]


def test_free_cube_verifies_through_urdf_and_body(tmp_path, capsys):
    src = corpus_path("klampt", "robots", "free_cube.rob")
    for ext in ("urdf", "body"):
        out = str(tmp_path / f"cube.{ext}")
        assert main(["convert", src, out]) == 0
        assert main(["verify", src, out]) == 0, capsys.readouterr().out
        assert "only in A: 0, only in B: 0" in capsys.readouterr().out


def test_reference_readers_accept_the_roboio_element(tmp_path):
    pin = pytest.importorskip("pinocchio")
    out = tmp_path / "f.urdf"
    roboio.save(floating_robot(), out)
    model = pin.buildModelFromUrdf(str(out))
    assert list(model.names)[1:] == ["arm_joint"]      # the free base is the caller's choice in pin
