"""Klamp't MultiPath XML (root ``<multipath>``, extension ``.xml``).

Read: root attributes -> ``settings``; each ``<section>`` (attributes -> section settings)
with ``<ikgoal>`` texts, ``<hold>`` (inline text, or ``index=`` / ``name=`` references into
the global holds, checked in that order as Klamp't does), and ``<milestone config= [time=]
[velocity=]>``; root-level ``<hold [name=]>`` elements form the global hold list (document
order, so ``index`` counts every global hold, named or not, as Klamp't's C++ reader does).
Hold and IK texts keep their whitespace (``&#x0A;``/``&#x09;`` escapes are newlines/tabs).

Errors where Klamp't's readers disagree or read garbage: a milestone Vector whose count does
not match (Python rejects it), ``time``/``velocity`` on some milestones of a section but not
all, a hold index out of range or an unknown hold name, different milestone dimensions.
Unknown elements are ignored with a warning, as Klamp't ignores them.

Write: Klamp't's layout (settings, per section: IK goals, holds in their original order with
references kept as references, milestones ``time``/``config``/``velocity``; global holds
last), full-precision numbers, newlines and tabs inside attributes and texts escaped as
``&#x0A;``/``&#x09;``. A Trajectory is written as a one-section multipath.
"""
from __future__ import annotations

import re

import numpy as np

from ....errors import FormatError
from ....model import Trajectory
from ....model.multipath import MultiPath, Section
from ... import xmlutil
from ...fileio import as_bytes, atomic_write, fmt_float, read_bytes
from .._sniff import sniff_multipath as sniff
from .._text import Tokens, Where, fmt_vector, parse_int, xml_escape
from ..contact.hold import hold_text, parse_hold_text
from ..contact.ikgoal import ik_text, parse_ik_text
from ._vectors import report_nonfinite

__all__ = ["sniff", "loads", "read", "dumps", "write", "multipath_xml"]


def _milestone_attr(el, name: str, path: str, read):
    """``read(tokens)`` of attribute ``name`` (None if absent); nothing may follow."""
    text = el.get(name)
    if text is None:
        return None
    fast = _fast_value(text, read)
    if fast is not None:
        return fast
    tokens = Tokens(text, Where(path, xmlutil.where(el), f"<milestone {name}>"))
    value = read(tokens)
    if not tokens.at_end:
        raise tokens.error(f"{name}: more values than expected in {text!r}")
    return value


def _fast_value(text: str, read):
    """What ``read`` gives for a well-formed ``text`` (a vector ``N v1 .. vN`` or one number),
    converted exactly as :class:`Tokens` converts it, without its bookkeeping (a multipath
    has hundreds of thousands of milestones); None when the text needs the full reader (to
    report an error at its token)."""
    toks = text.split()
    if not toks or "_" in text:
        return None
    if read is _number:
        if len(toks) != 1:
            return None
        try:
            return float(np.array(toks, dtype=float)[0])
        except ValueError:
            return None
    n = parse_int(toks[0])
    if n is None or n != len(toks) - 1:
        return None
    try:
        return np.array(toks[1:], dtype=float)
    except ValueError:
        return None


def _vector(tokens):
    return tokens.vector("the vector")


def _number(tokens):
    return tokens.next_float("a number")


def _text_of(el, path: str) -> str:
    text = el.text
    if text is None or not text.strip():
        raise FormatError(path, xmlutil.where(el), None, f"<{xmlutil.local_name(el)}> has no text")
    return text


def _section_hold(c, line, holds: list, path: str, ctx):
    """``(hold, ref)`` of a section's ``<hold>``: ``index`` first, then ``name``, else the
    hold text (Klamp't's order)."""
    index, name = c.get("index"), c.get("name")
    if index is not None:
        i = parse_int(index.strip())
        if i is None:
            raise ctx.error(f"<hold index={index!r}>: expected an integer", line)
        if not 0 <= i < len(holds):
            raise ctx.error(f"<hold index=\"{i}\"> out of range: the multipath has {len(holds)} global holds", line)
        return holds[i], i
    if name is not None:
        found = [h for h in holds if h.name == name]
        if not found:
            known = ", ".join(repr(h.name) for h in holds if h.name is not None) or "none"
            raise ctx.error(f"<hold name={name!r}>: no global hold has that name (named: {known})", line)
        if len(found) > 1:
            raise ctx.error(f"<hold name={name!r}> is ambiguous: {len(found)} global holds have that name", line)
        return found[0], name
    return parse_hold_text(_text_of(c, path), Where(path, line, "<hold>"), ctx), None


def _milestone_arrays(k: int, configs, times, vels, rows, ctx):
    """(milestones, times or None, velocities or None) of section ``k``."""
    for what, values in (("time", times), ("velocity", vels)):
        have = [v is not None for v in values]
        if any(have) and not all(have):
            bad = have.index(not have[0])
            raise ctx.error(f"section {k + 1}: milestone {bad + 1} {'has no' if have[0] else 'has a'} "
                            f"{what}, milestone 1 {'has one' if have[0] else 'has none'} (mixed: a "
                            f"section's milestones must all have a {what} or none)", rows[bad])
    d = len(configs[0]) if configs else 0
    for q, v, row in zip(configs, vels, rows):
        if len(q) != d:
            raise ctx.error(f"milestone has {len(q)} values, the first of its section {d}", row)
        if v is not None and len(v) != d:
            raise ctx.error(f"velocity has {len(v)} values, the config {d}", row)
    m = np.vstack(configs) if configs and d else np.zeros((len(configs), d))
    t = np.array(times, dtype=float) if configs and times[0] is not None else None
    v = (np.vstack(vels) if d else np.zeros((len(vels), 0))) if configs and vels[0] is not None else None
    return m, t, v


def _read_section(el, k: int, path: str, ctx, holds: list) -> Section:
    ik_goals, sec_holds, refs = [], [], []
    configs, times, vels, rows = [], [], [], []
    for c in xmlutil.children(el):
        name, line = xmlutil.local_name(c), xmlutil.where(c)
        if name == "ikgoal":
            ik_goals.append(parse_ik_text(_text_of(c, path), Where(path, line, "<ikgoal>"), ctx))
        elif name == "hold":
            hold, ref = _section_hold(c, line, holds, path, ctx)
            sec_holds.append(hold)
            refs.append(ref)
        elif name == "milestone":
            if c.get("config") is None:
                raise ctx.error("<milestone> without a config attribute", line)
            configs.append(_milestone_attr(c, "config", path, _vector))
            times.append(_milestone_attr(c, "time", path, _number))
            vels.append(_milestone_attr(c, "velocity", path, _vector))
            rows.append(line)
        else:
            ctx.warn(f"unknown element <{name}> in <section> ignored", line, kind="ignored")
    if len(configs) < 2:
        ctx.warn(f"section {k + 1} has {len(configs)} milestone(s); Klamp't needs at least 2", xmlutil.where(el), kind="invalid value")
    m, t, v = _milestone_arrays(k, configs, times, vels, rows, ctx)
    if t is not None and np.any(np.diff(t) < 0):
        ctx.warn(f"section {k + 1}: times decrease", xmlutil.where(el), kind="invalid value")
    return Section(m, t, v, sec_holds, refs, ik_goals, dict(el.attrib))


def loads(data, ctx) -> MultiPath:
    path = ctx.path
    root = xmlutil.parse_bytes(as_bytes(data), path, ctx)
    if xmlutil.local_name(root) != "multipath":
        raise ctx.error(f"root element is <{xmlutil.local_name(root)}>, not <multipath>", xmlutil.where(root))
    holds, section_els = [], []
    for el in xmlutil.children(root):
        name = xmlutil.local_name(el)
        if name == "section":
            section_els.append(el)
        elif name == "hold":
            hold = parse_hold_text(_text_of(el, path), Where(path, xmlutil.where(el), "<hold>"), ctx)
            hold.name = el.get("name")
            holds.append(hold)
        else:
            ctx.warn(f"unknown element <{name}> in <multipath> ignored", xmlutil.where(el), kind="ignored")
    sections = [_read_section(el, k, path, ctx, holds) for k, el in enumerate(section_els)]
    dims = [s.dimension for s in sections if s.num_milestones]
    for s, el in zip(sections, section_els):
        if s.num_milestones and s.dimension != dims[0]:
            raise ctx.error(f"section milestones have {s.dimension} values, the first section's "
                            f"{dims[0]}", xmlutil.where(el))
    timed = {s.times is not None for s in sections}
    if len(timed) > 1:
        ctx.warn("some sections are timed and some are not", kind="guessed")
    return MultiPath(sections, holds, dict(root.attrib), source=path)


def read(path: str, ctx) -> MultiPath:
    return loads(read_bytes(path, ctx), ctx)


_XML_NAME = re.compile(r"[A-Za-z_][\w.\-]*\Z")


def _attrs(settings: dict, report, where: str) -> str:
    out = []
    for k, v in settings.items():
        if not _XML_NAME.match(str(k)):
            report.lose(f"{where} setting {k!r} (not a valid XML attribute name)", kind="not written")
            continue
        out.append(f' {k}="{xml_escape(str(v))}"')
    return "".join(out)


def multipath_xml(mp: MultiPath, report) -> str:
    names = [h.name for h in mp.holds]
    out = ['<?xml version="1.0"?>', f"<multipath{_attrs(mp.settings, report, 'multipath')}>"]
    for k, s in enumerate(mp.sections):
        out.append(f"  <section{_attrs(s.settings, report, f'section {k + 1}')}>")
        out += [f"    <ikgoal>{xml_escape(ik_text(ik, report))}</ikgoal>" for ik in s.ik_goals]
        for i, h in enumerate(s.holds):
            ref = s.ref(i)
            if isinstance(ref, str) and names.count(ref) == 1 and mp.holds[names.index(ref)] is h:
                out.append(f'    <hold name="{xml_escape(ref)}" />')
            elif isinstance(ref, int) and 0 <= ref < len(mp.holds) and mp.holds[ref] is h:
                out.append(f'    <hold index="{ref}" />')
            else:
                if ref is not None:
                    report.warn(f"section {k + 1}: hold reference {ref!r} does not match the global "
                                f"holds; the hold is written inline", kind="changed")
                out.append(f"    <hold>{xml_escape(hold_text(h, report))}</hold>")
        for j, q in enumerate(s.milestones):
            attrs = "" if s.times is None else f' time="{fmt_float(s.times[j])}"'
            attrs += f' config="{xml_escape(fmt_vector(q))}"'
            if s.velocities is not None:
                attrs += f' velocity="{xml_escape(fmt_vector(s.velocities[j]))}"'
            out.append(f"    <milestone{attrs} />")
        report_nonfinite(s.milestones, report)
        report_nonfinite(s.velocities, report)
        out.append("  </section>")
    for h in mp.holds:
        name = "" if h.name is None else f' name="{xml_escape(h.name)}"'
        out.append(f"  <hold{name}>{xml_escape(hold_text(h, report))}</hold>")
    out.append("</multipath>")
    return "\n".join(out) + "\n"


def dumps(obj, report, path=None) -> str:
    """Multipath XML of a MultiPath (a Trajectory is written as a one-section multipath)."""
    mp = MultiPath.from_trajectory(obj) if isinstance(obj, Trajectory) else obj
    return multipath_xml(mp, report)


def write(obj, path: str, report) -> None:
    atomic_write(path, dumps(obj, report, path))
