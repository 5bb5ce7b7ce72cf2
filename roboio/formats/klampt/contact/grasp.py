"""Klamp't grasp XML (root ``<Grasp>`` with a capital G, extension ``.xml``).

``<Grasp object="i" robot="j" fixed="dof value dof value ...">`` with ``<IKGoal data="IK
objective text"/>`` and ``<contact link="i" x="x y z" n="nx ny nz" kFriction="f"
[force="fx fy fz"]/>`` children. Defaults as Klamp't: object -1, robot 0. Klamp't silently
drops an odd trailing ``fixed`` value and keeps defaults for unreadable numbers; roboio
raises a FormatError for both. Unknown children are ignored with a warning.
"""
from __future__ import annotations

from ....errors import OutputError
from ....model.contact import ContactPoint, Grasp
from ... import xmlutil
from ...fileio import as_bytes, atomic_write, fmt_float, read_bytes
from .._sniff import sniff_grasp as sniff
from .._text import Tokens, Where, fmt_vec3, parse_int, xml_escape
from .ikgoal import ik_text, parse_ik_text

__all__ = ["sniff", "loads", "read", "dumps", "write", "grasp_xml"]


def _int_attr(el, name, default, ctx):
    text = el.get(name)
    if text is None:
        return default
    v = parse_int(text.strip())
    if v is None:
        raise ctx.error(f"<{xmlutil.local_name(el)} {name}={text!r}>: expected an integer", xmlutil.where(el))
    return v


def _floats_attr(el, name, path, count):
    text = el.get(name)
    if text is None:
        return None
    tokens = Tokens(text, Where(path, xmlutil.where(el), f"<{xmlutil.local_name(el)} {name}>"))
    v = tokens.floats(count, name)
    if not tokens.at_end:
        raise tokens.error(f"expected {count} numbers, got more")
    return v


def loads(data, ctx) -> Grasp:
    path = ctx.path
    root = xmlutil.parse_bytes(as_bytes(data), path, ctx)
    if xmlutil.local_name(root) != "Grasp":
        raise ctx.error(f"root element is <{xmlutil.local_name(root)}>, not <Grasp>", xmlutil.where(root))
    g = Grasp(_int_attr(root, "object", -1, ctx), _int_attr(root, "robot", 0, ctx))
    g.source = path
    fixed = root.get("fixed")
    if fixed is not None:
        tokens = Tokens(fixed, Where(path, xmlutil.where(root), "<Grasp fixed>"))
        while not tokens.at_end:
            g.fixed_dofs.append(tokens.next_int("a DOF index"))
            g.fixed_values.append(tokens.next_float(f"the value of DOF {g.fixed_dofs[-1]}"))
    for c in xmlutil.children(root):
        name, line = xmlutil.local_name(c), xmlutil.where(c)
        if name == "IKGoal":
            data = c.get("data")
            if data is None:
                raise ctx.error("<IKGoal> without a data attribute", line)
            g.constraints.append(parse_ik_text(data, Where(path, line, "<IKGoal data>"), ctx))
        elif name == "contact":
            for required in ("link", "x", "n", "kFriction"):
                if c.get(required) is None:
                    raise ctx.error(f"<contact> without a {required} attribute", line)
            g.contact_links.append(_int_attr(c, "link", None, ctx))
            g.contacts.append(ContactPoint(_floats_attr(c, "x", path, 3), _floats_attr(c, "n", path, 3),
                                           _floats_attr(c, "kFriction", path, 1)[0]))
            g.forces.append(_floats_attr(c, "force", path, 3))
        else:
            ctx.warn(f"unknown element <{name}> in <Grasp> ignored", line, kind="ignored")
    return g


def read(path: str, ctx) -> Grasp:
    return loads(read_bytes(path, ctx), ctx)


def grasp_xml(g: Grasp, report) -> str:
    if len(g.fixed_dofs) != len(g.fixed_values):
        raise OutputError(None, f"grasp has {len(g.fixed_dofs)} fixed DOFs but {len(g.fixed_values)} values")
    if len(g.contact_links) != len(g.contacts):
        raise OutputError(None, f"grasp has {len(g.contacts)} contacts but {len(g.contact_links)} contact links")
    attrs = f'object="{int(g.object_index)}" robot="{int(g.robot_index)}"'
    if g.fixed_dofs:
        pairs = "  ".join(f"{int(d)} {fmt_float(v)}" for d, v in zip(g.fixed_dofs, g.fixed_values))
        attrs += f' fixed="{pairs}"'
    out = [f"<Grasp {attrs}>"]
    out += [f'  <IKGoal data="{xml_escape(ik_text(ik, report))}" />' for ik in g.constraints]
    for i, (c, link) in enumerate(zip(g.contacts, g.contact_links)):
        force = g.forces[i] if i < len(g.forces) else None
        f = "" if force is None else f' force="{fmt_vec3(force)}"'
        out.append(f'  <contact link="{int(link)}" x="{fmt_vec3(c.x)}" n="{fmt_vec3(c.n)}" '
                   f'kFriction="{fmt_float(c.kFriction)}"{f} />')
    out.append("</Grasp>")
    return "\n".join(out) + "\n"


def dumps(g: Grasp, report, path=None) -> str:
    return grasp_xml(g, report)


def write(g: Grasp, path: str, report) -> None:
    atomic_write(path, dumps(g, report, path))
