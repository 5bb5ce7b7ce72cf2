"""collada-dom addressing as OpenRAVE relies on it: SID paths, newparam chains,
instance_node copies, units and transform elements."""
import math

import numpy as np
import pytest

from roboio.context import LoadContext
from roboio.errors import FormatError
from roboio.formats.openrave.collada._dom import Document, elpath
from roboio.formats.xmlutil import parse_bytes

NS = "http://www.collada.org/2008/03/COLLADASchema"


def make(body: str) -> Document:
    text = f'<COLLADA xmlns="{NS}">{body}</COLLADA>'
    return Document(parse_bytes(text.encode(), "a.dae"), "a.dae", LoadContext("a.dae"))


def tag_of(el):
    return el.tag.rsplit("}", 1)[-1] if el is not None else None


DOC = """
<library_kinematics_models>
  <kinematics_model id="km"><technique_common>
    <joint sid="j0"><revolute sid="axis0"><axis>0 0 1</axis></revolute></joint>
    <link sid="l0"><attachment_full joint="km/j0"><link sid="deep"><x sid="j0"/></link></attachment_full></link>
  </technique_common></kinematics_model>
</library_kinematics_models>
<library_articulated_systems>
  <articulated_system id="kin"><kinematics>
    <instance_kinematics_model url="#km" sid="km_inst">
      <newparam sid="p_axis"><SIDREF>kin/km_inst/j0/axis0</SIDREF></newparam>
    </instance_kinematics_model>
  </kinematics></articulated_system>
  <articulated_system id="mot"><motion>
    <instance_articulated_system url="#kin">
      <newparam sid="p2"><SIDREF>kin/p_axis</SIDREF></newparam>
    </instance_articulated_system>
  </motion></articulated_system>
</library_articulated_systems>
<library_kinematics_scenes><kinematics_scene id="ks">
  <instance_articulated_system url="#mot" sid="ias">
    <newparam sid="p3"><SIDREF>mot/p2</SIDREF></newparam>
    <newparam sid="loop1"><SIDREF>ks/ias/loop2</SIDREF></newparam>
    <newparam sid="loop2"><SIDREF>ks/ias/loop1</SIDREF></newparam>
  </instance_articulated_system>
</kinematics_scene></library_kinematics_scenes>
"""


def test_id_first_then_breadth_first_sid():
    d = make(DOC)
    j0 = d.resolve_sid("km/j0", d.by_id("km"))
    assert tag_of(j0) == "joint"                        # the shallowest j0, not the <x> deeper down
    assert tag_of(d.resolve_sid("km/j0/axis0", d.root)) == "revolute"
    assert d.resolve_sid("km/missing", d.root) is None


def test_dot_slash_relative_path_wins():
    d = make(DOC)
    att = next(e for e in d.root.iter() if tag_of(e) == "attachment_full")
    # "./deep/j0" from the attachment reaches the <x sid="j0"> below it
    assert tag_of(d.resolve_sid("deep/j0", att)) == "x"
    assert tag_of(d.resolve_sid("./deep/j0", att)) == "x"


def test_instance_url_is_followed_and_newparam_chains_resolve():
    d = make(DOC)
    ks = d.by_id("ks")
    # kscene newparam -> motion newparam -> kinematics newparam -> the axis element
    assert tag_of(d.resolve_sid("ks/ias/p3", d.root)) == "revolute"
    assert tag_of(d.resolve_sid("kin/km_inst/j0", d.root)) == "joint"     # crosses instance url
    with pytest.raises(FormatError, match="SIDREF"):
        d.resolve_sid("ks/ias/loop1", ks)


def test_instance_node_copies_keep_or_suffix_ids():
    d = make("""
<library_nodes><node id="lib" sid="libsid"><node id="inner" sid="innersid"/></node></library_nodes>
<library_visual_scenes><visual_scene id="vs"><node id="top" sid="top">
  <instance_node url="#lib"/>
  <instance_node url="#lib"><extra type="idsuffix" name=".b"/></instance_node>
</node></visual_scene></library_visual_scenes>""")
    d.expand_instance_nodes(d.by_id("vs"))
    top = d.by_id("top")
    kids = [c for c in top if isinstance(c.tag, str)]
    assert [c.get("id") for c in kids] == ["lib", "lib.b"]
    assert d.by_id("inner").getparent() is kids[0]         # ids now name the copy in the scene
    assert d.by_id("inner.b").getparent() is kids[1]
    assert tag_of(d.resolve_sid("top/innersid", d.root)) == "node"


def test_instance_node_dangling_and_cycle():
    d = make('<library_visual_scenes><visual_scene id="vs"><node id="a"><instance_node url="#zz"/>'
             '</node></visual_scene></library_visual_scenes>')
    with pytest.raises(FormatError, match="no element has id 'zz'"):
        d.expand_instance_nodes(d.by_id("vs"))
    d = make('<library_nodes><node id="n1"><instance_node url="#n2"/></node>'
             '<node id="n2"><instance_node url="#n1"/></node></library_nodes>'
             '<library_visual_scenes><visual_scene id="vs"><node id="a"><instance_node url="#n1"/>'
             '</node></visual_scene></library_visual_scenes>')
    with pytest.raises(FormatError, match="cyclic"):
        d.expand_instance_nodes(d.by_id("vs"))


def test_transform_elements():
    d = make("""<asset><unit meter="0.01"/></asset>
<node id="n"><translate>1 2 3</translate><rotate>0 0 2 90</rotate><scale>1 2 3</scale></node>
<node id="m"><matrix>0 -1 0 10  1 0 0 20  0 0 1 30  0 0 0 1</matrix></node>
<node id="l"><lookat>0 0 0  0 0 5  0 1 0</lookat></node>
<node id="u"><extra><asset><unit meter="1"/></asset></extra><translate>1 0 0</translate></node>""")
    T = d.transform(d.by_id("n"))
    Rz90 = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])
    expect = np.eye(4)
    expect[:3, 3] = [0.01, 0.02, 0.03]
    expect[:3, :3] = Rz90 @ np.diag([1, 2, 3])
    assert np.allclose(T, expect, atol=1e-15)
    M = d.transform(d.by_id("m"))
    assert np.allclose(M[:3, :3], Rz90) and np.allclose(M[:3, 3], [0.1, 0.2, 0.3])
    L = d.transform(d.by_id("l"))                     # z towards the target, y = up, x = y cross z
    assert np.allclose(L[:3, :3], np.eye(3))
    assert np.allclose(d.transform(d.by_id("u"))[:3, 3], [1, 0, 0])   # extra/asset/unit wins locally


def test_bad_numbers_name_the_element():
    d = make('<node id="n"><translate>1 x 3</translate></node>')
    with pytest.raises(FormatError, match="'x' is not a number") as e:
        d.transform(d.by_id("n"))
    assert e.value.line == 1 and "translate" in str(e.value)
    d = make('<node id="n"><rotate>1 0 0</rotate></node>')
    with pytest.raises(FormatError, match="expected 4 numbers"):
        d.transform(d.by_id("n"))


def test_element_path_names_ids_and_sids():
    d = make(DOC)
    j0 = d.resolve_sid("km/j0", d.root)
    assert elpath(j0) == "COLLADA/library_kinematics_models/kinematics_model#km/technique_common/joint@j0"


def test_instance_node_cycle_through_suffixed_copies():
    d = make('<library_nodes><node id="n1"><instance_node url="#n1"><extra type="idsuffix" name=".x"/>'
             '</instance_node></node></library_nodes>'
             '<library_visual_scenes><visual_scene id="vs"><node id="a"><instance_node url="#n1"/>'
             '</node></visual_scene></library_visual_scenes>')
    with pytest.raises(FormatError, match="cyclic"):
        d.expand_instance_nodes(d.by_id("vs"))
