"""The sniffers of the XML formats agree on every XML (and URDF) file of every corpus
ecosystem: the format that should read a file (decided here from its root element and
children with lxml, independently of the sniffers) accepts it, and no other format's sniffer
does. Formats not registered (yet) are skipped for their files."""
import glob
import os

import pytest
from lxml import etree

from conftest import CORPUS
from roboio.formats import registry
from roboio.formats.registry import HEAD_BYTES

FILES = sorted(p for eco in ("klampt", "graspit", "openrave", "choreonoid")
               for p in glob.glob(os.path.join(CORPUS, eco, "**", "*"), recursive=True)
               if p.lower().endswith((".xml", ".urdf")) and os.path.isfile(p))

pytestmark = pytest.mark.skipif(not FILES, reason="corpus ../shared/corpus absent")


def expected(path):
    """The format name that should read ``path``, by the document's structure."""
    root = etree.parse(path, etree.XMLParser(recover=True, remove_comments=True)).getroot()
    if root is None:
        return None
    tag = root.tag if isinstance(root.tag, str) else ""
    kids = [c.tag for c in root if isinstance(c.tag, str)]
    if tag == "robot" and any(k in ("palm", "dof", "chain") for k in kids):
        return "graspit"
    if tag == "world":
        graspit = any(k in ("obstacle", "graspableBody", "connection", "camera") for k in kids) or any(
            c.tag == "robot" and c.find("filename") is not None for c in root if isinstance(c.tag, str))
        return "graspit" if graspit else "klampt-world"
    if tag in ("root", "EigenGrasps", "virtual_contacts") and "graspit" in path:
        return "graspit"
    if tag == "multipath":
        return "klampt-multipath"
    if tag == "sensors" and os.sep + "klampt" + os.sep in path:
        return "klampt-world"    # a robot's sensors file: the world reader names it a companion
    if tag.lower() in ("robot", "kinbody", "environment", "sensor") and os.sep + "openrave" + os.sep in path:
        return "openrave"
    if tag == "robot" and path.endswith(".urdf"):
        return "urdf"
    return None                  # a Gazebo SDF: no reader


XML_FORMATS = [f for f in registry.formats() if f.has_sniff and (".xml" in f.extensions or ".urdf" in f.extensions)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, CORPUS))
def test_sniffers_agree(path):
    want = expected(path)
    names = {f.name for f in registry.formats()}
    if want is not None and want not in names:
        pytest.skip(f"format {want} not registered")
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    accepting = sorted(f.name for f in XML_FORMATS if f.sniff(head, path))
    assert accepting == ([want] if want else []), accepting
    if want is not None:
        assert registry.find_reader(path).name == want
