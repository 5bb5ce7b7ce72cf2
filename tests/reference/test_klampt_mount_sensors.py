"""Mounted robots' sensors against klampt 0.10.1: names, links, Tsensor and indices after
a ``.rob`` ``mount`` (spec klampt.md §3.12)."""
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio import RoboioWarning

klampt = pytest.importorskip("klampt")

ID = "1 0 0 0 1 0 0 0 1 0 0 0 "
SUB = ("links s0 s1\nparents -1 0\ntparent " + ID + "1 0 0 0 1 0 0 0 1 0 0 1\n"
       "axis 0 0 1 0 1 0\nqmin 0 0\nqmax 1 1\n"
       "property sensors <sensors>"
       '<Accelerometer name="world" link="-1" Tsensor="0 1 0 -1 0 0 0 0 1 1 2 3"/>'
       '<Accelerometer name="bare" link="-1"/>'
       '<Accelerometer name="tip" link="1" Tsensor="1 0 0 0 0 -1 0 1 0 0 0 0.5"/>'
       '<Accelerometer name="named" link="s1"/>'
       '<JointPositionSensor name="enc" indices="1 0"/>'
       "</sensors>\n")
TOP = ("links a b c\nparents -1 0 1\ntparent " + ID * 3 + "\nqmin 0 0 0\nqmax 1 1 1\n"
       'property sensors <sensors><Accelerometer name="own" link="2"/></sensors>\n'
       'mount 1 sub.rob 0 0 1  1 0 0  0 1 0  0.5 -1 2 as "m"\n')


def _rows12(text):
    v = [float(x) for x in text.split()]
    T = np.eye(4)
    T[:3, :3] = np.reshape(v[:9], (3, 3))
    T[:3, 3] = v[9:12]
    return T


def test_mounted_sensors_match_klampt(tmp_path):
    (tmp_path / "sub.rob").write_text(SUB)
    (tmp_path / "top.rob").write_text(TOP)
    world = klampt.WorldModel()
    assert world.readFile(str(tmp_path / "top.rob"))
    k = world.robot(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        r = roboio.load(tmp_path / "top.rob")

    ours = {e.get("name"): e for e in etree.fromstring(r.properties["sensors"])}
    theirs = {k.sensor(i).name: k.sensor(i) for i in range(k.numSensors())}
    assert list(ours) == list(theirs) == ["own", "m:world", "m:bare", "m:tip", "m:named", "m:enc"]
    for name, el in ours.items():
        s = theirs[name]
        assert el.tag == s.type
        if el.get("link") is not None:
            link = el.get("link")
            index = int(link) if link.lstrip("-").isdigit() else r.link_names.index(link)
            assert index == int(s.getSetting("link")), name
            ours_T = _rows12(el.get("Tsensor")) if el.get("Tsensor") else np.eye(4)
            assert np.allclose(ours_T, _rows12(s.getSetting("Tsensor")), atol=1e-12), name
        else:
            assert [int(x) for x in el.get("indices").split()] == \
                [int(x) for x in s.getSetting("indices").split()]
