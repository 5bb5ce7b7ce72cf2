"""Hand-written COLLADA 1.5 robot documents for the COLLADA tests.

:func:`robot_dae` assembles a complete, minimal OpenRAVE-style robot document from a chain
description, with every part written out literally (visual nodes, kinematics model,
articulated systems, kinematics scene bindings): the tests state the numbers, this module
only saves typing the skeleton. Nothing here uses roboio.
"""
from __future__ import annotations

import io
import zipfile

NS = "http://www.collada.org/2008/03/COLLADASchema"


def _node_xml(i, links, indent):
    l = links[i]
    pad = "  " * indent
    parts = [f'{pad}<node id="v.node{i}" name="{l["name"]}" sid="node{i}">']
    if i > 0:
        parts.append(pad + "  " + l.get("att", ""))
        for k, (kind, ax) in enumerate(zip(l["types"], l["axes"])):
            tag = "rotate" if kind == "revolute" else "translate"
            vals = f'{ax} 0' if kind == "revolute" else "0 0 0"
            parts.append(f'{pad}  <{tag} sid="node_joint{i}_axis{k}">{vals}</{tag}>')
    parts.append(pad + "  " + l.get("own", ""))
    for g in l.get("geoms", []):
        parts.append(f'{pad}  <instance_geometry url="#{g}"><bind_material><technique_common>'
                     f'<instance_material symbol="mat0" target="#{g}_mat"/></technique_common>'
                     f'</bind_material></instance_geometry>')
    for j, other in enumerate(links):
        if other.get("parent") == i:
            parts.append(_node_xml(j, links, indent + 1))
    parts.append(f"{pad}</node>")
    return "\n".join(parts)


def _link_xml(i, links, indent):
    l = links[i]
    pad = "  " * indent
    parts = [f'{pad}<link sid="link{i}" name="{l["name"]}">', pad + "  " + l.get("own", "")]
    for j, other in enumerate(links):
        if other.get("parent") == i:
            parts.append(f'{pad}  <attachment_full joint="kmodel1/joint{j}">')
            parts.append(pad + "    " + other.get("att", ""))
            parts.append(_link_xml(j, links, indent + 2))
            parts.append(f"{pad}  </attachment_full>")
    parts.append(f"{pad}</link>")
    return "\n".join(parts)


def robot_dae(links, *, authoring="roboio tests", unit="", name="testbot", formulas="",
              kinematics_extras="", system_extras="", axis_info=None, motion_info=None,
              geometries="", effects="", physics="", visual_root="", library_nodes=False,
              kmodel_asset="", bind_values=None, interface="robot"):
    """A robot document. ``links``: list of dicts with ``name``, ``parent`` (index, None for
    the root), ``types`` (per axis, ``revolute``/``prismatic``), ``axes`` (per axis, text
    "x y z"), ``att``/``own`` (transform elements as text), ``limits`` (per axis, None or
    (min, max) in file units), ``jname``. ``axis_info``: {link index: extra XML inside the
    kinematics axis_info of axis 0}; ``motion_info`` likewise for the motion axis_info."""
    axis_info = axis_info or {}
    motion_info = motion_info or {}
    bind_values = bind_values or {}
    joints = []
    for i, l in enumerate(links):
        if i == 0:
            continue
        axes = []
        for k, (kind, ax) in enumerate(zip(l["types"], l["axes"])):
            lim = (l.get("limits") or [None] * len(l["types"]))[k]
            lim_xml = f"<limits><min>{lim[0]}</min><max>{lim[1]}</max></limits>" if lim is not None else ""
            axes.append(f'<{kind} sid="axis{k}"><axis>{ax}</axis>{lim_xml}</{kind}>')
        jname = l.get("jname", f"J{i}")
        joints.append(f'<joint name="{jname}" sid="joint{i}">{"".join(axes)}</joint>')
    kinfos, minfos, binds = [], [], []
    for i, l in enumerate(links):
        if i == 0:
            continue
        for k in range(len(l["types"])):
            extra = axis_info.get(i, "") if k == 0 else ""
            kinfos.append(f'<axis_info sid="kai{i}_{k}" axis="kmodel1/joint{i}/axis{k}">{extra}</axis_info>')
            mextra = motion_info.get(i, "") if k == 0 else ""
            minfos.append(f'<axis_info sid="mai{i}_{k}" axis="body1_kinematics/kai{i}_{k}">{mextra}</axis_info>')
            value = bind_values.get((i, k), 0)
            binds.append(f'<bind_joint_axis target="visual1/node_joint{i}_axis{k}">'
                         f'<axis><SIDREF>body1_kinematics/kmodel1_inst/joint{i}/axis{k}</SIDREF></axis>'
                         f'<value><float>{value}</float></value></bind_joint_axis>')
    unit_xml = f"<unit{unit}/>"
    tree = _node_xml(0, links, 3)
    if library_nodes:
        vis = f'<instance_node url="#v.node0" sid="node0"/>'
        libnodes = f"<library_nodes>\n{tree}\n</library_nodes>"
    else:
        vis, libnodes = tree, ""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="{NS}" version="1.5.0">
  <asset><contributor><authoring_tool>{authoring}</authoring_tool></contributor>{unit_xml}<up_axis>Z_UP</up_axis></asset>
  <library_visual_scenes><visual_scene id="vscene">
    <node id="visual1" sid="visual1" name="{name}">{visual_root}
{vis}
    </node>
  </visual_scene></library_visual_scenes>
  {libnodes}
  <library_geometries>{geometries}</library_geometries>
  <library_effects>{effects}</library_effects>
  <library_kinematics_models><kinematics_model id="kmodel1" name="{name}">{kmodel_asset}<technique_common>
    {"".join(joints)}
{_link_xml(0, links, 2)}
    {formulas}
  </technique_common>{kinematics_extras}</kinematics_model></library_kinematics_models>
  <library_articulated_systems>
    <articulated_system id="body1_kinematics"><kinematics>
      <instance_kinematics_model url="#kmodel1" sid="kmodel1_inst"/>
      <technique_common>{"".join(kinfos)}</technique_common>
    </kinematics></articulated_system>
    <articulated_system id="body1_motion"><motion>
      <instance_articulated_system url="#body1_kinematics"/>
      <technique_common>{"".join(minfos)}</technique_common>
    </motion>
    <extra type="interface_type"><technique profile="OpenRAVE"><interface type="{interface}">GenericRobot</interface></technique></extra>
    {system_extras}
    </articulated_system>
  </library_articulated_systems>
  <library_kinematics_scenes><kinematics_scene id="kscene">
    <instance_articulated_system url="#body1_motion" sid="inst" name="{name}"/>
  </kinematics_scene></library_kinematics_scenes>
  {physics}
  <scene>
    <instance_visual_scene url="#vscene"/>
    <instance_kinematics_scene url="#kscene">
      <bind_kinematics_model node="visual1/node0"><SIDREF>body1_kinematics/kmodel1_inst</SIDREF></bind_kinematics_model>
      {"".join(binds)}
    </instance_kinematics_scene>
  </scene>
</COLLADA>
"""


def zae_bytes(members: dict, comment: bytes = b"") -> bytes:
    """A ZIP archive (``name -> bytes``) in memory."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
        z.comment = comment
    return buf.getvalue()


def manifest(name: str) -> bytes:
    return f'<?xml version="1.0" encoding="utf-8"?>\n<dae_root>./{name}</dae_root>\n'.encode()
