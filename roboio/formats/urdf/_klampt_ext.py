"""The ``<klampt>`` extension element of URDF files, read as Klamp't reads it.

Only the first ``<klampt>`` child of ``<robot>`` counts. Attribute values are read the
way TinyXML's ``QueryValueAttribute`` reads them (a C++ stream extraction): a leading
number is taken and the rest ignored, and a value that does not start with a number
(``true``, ``inf``) is ignored -- roboio warns where Klamp't is silent.

Settings are per file. (Klamp't keeps ``use_vis_geom``, ``flip_yz`` and
``package_root`` in process-global variables that stick from one URDF load to the next;
roboio deliberately does not replicate that.)
"""
from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...errors import FormatError
from ...context import LoadContext
from ...transforms import rows12_to_transform
from ..fileio import read_text
from ..numeric_text import int64_or_none
from ..xmlutil import children, local_name, where

__all__ = ["KlamptSettings", "parse_klampt", "split_qstrings", "LINK_ATTRIBUTES"]

_INT = re.compile(r"\s*[+-]?\d+")
_FLOAT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

#: ``<klampt><link>`` attributes (besides ``name``) and whether they are integers.
LINK_ATTRIBUTES = {"physical": True, "accMax": False, "servoP": False, "servoI": False,
                   "servoD": False, "dryFriction": False, "viscousFriction": False}
_TOP_ATTRIBUTES = {"use_vis_geom", "flip_yz", "package_root", "world_frame", "freeze_root_link",
                   "default_mass", "default_inertia", "default_acc_max", "sensors", "controller"}
_PAIR_ELEMENTS = ("selfcollision", "noselfcollision")


@dataclass
class KlamptSettings:
    """What a ``<klampt>`` element says (defaults: Klamp't 0.10.1's actual ones)."""

    use_vis_geom: bool = False
    flip_yz: bool = False
    package_root: Optional[str] = None      # as written (None: not given)
    world_frame: str = "world"
    freeze_root_link: bool = False
    default_mass: float = 0.0001
    default_inertia: np.ndarray = field(default_factory=lambda: np.eye(3) * 1e-8)
    default_acc_max: float = 10.0
    links: dict = field(default_factory=dict)           # name -> {attribute: value}
    selfcollision: list = field(default_factory=list)   # (a, b, line) items as written
    noselfcollision: list = field(default_factory=list)
    mounts: list = field(default_factory=list)          # (link, file, T 4x4, prefix, line)
    properties: dict = field(default_factory=dict)      # sensors/controller -> XML text
    present: bool = False
    explicit: set = field(default_factory=set)          # settings the element gives


def _stream(text: Optional[str], integer: bool):
    """What ``istringstream >> int/double`` extracts from ``text`` (None if nothing)."""
    if text is None:
        return None
    m = (_INT if integer else _FLOAT).match(text)
    if not m:
        return None
    if integer:
        return int64_or_none(m.group())      # None beyond the range: >> int fails
    return float(m.group())


def _stream_many(text: str, count: int):
    """``count`` numbers extracted one after the other, or None if the stream runs dry."""
    out = []
    pos = 0
    for _ in range(count):
        m = _FLOAT.match(text, pos)
        if not m:
            return None
        out.append(float(m.group()))
        pos = m.end()
    return out


def split_qstrings(text: str) -> list:
    """Klamp't's ``SafeInputString`` tokens: whitespace-separated words, or ``"..."``
    strings with backslash escapes."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        if text[i] == '"':
            i += 1
            buf = []
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                buf.append(text[i])
                i += 1
            i += 1
            out.append("".join(buf))
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            out.append(text[i:j])
            i = j
    return out


def _pairs(el, path, ctx, what):
    """(a, b, line) pairs of a ``<selfcollision>``/``<noselfcollision>`` element."""
    line = where(el)
    if el.get("pairs") is not None:
        items = split_qstrings(el.get("pairs"))
        return [(items[k], items[k + 1], line) for k in range(0, len(items) - 1, 2)]
    if el.get("group1") is not None and el.get("group2") is not None:
        g1, g2 = split_qstrings(el.get("group1")), split_qstrings(el.get("group2"))
        return [(a, b, line) for a in g1 for b in g2]
    ctx.warn(f"<{what}> has neither 'pairs' nor 'group1' and 'group2'; ignored", line, kind="ignored")
    return []


def _element_text(el) -> str:
    """The XML text of ``el`` (namespace declarations it does not use removed)."""
    from lxml import etree
    c = copy.deepcopy(el)
    c.tail = None
    etree.cleanup_namespaces(c)
    return etree.tostring(c, encoding="unicode")


def _property(el, prop, path, ctx) -> Optional[str]:
    value = el.get(prop)
    if value is None:
        kids = children(el, prop)
        return _element_text(kids[0]) if kids else None
    toks = split_qstrings(value)
    file = toks[0] if toks else ""
    if os.path.splitext(file)[1] == ".xml":
        fn = file if os.path.isabs(file) else os.path.join(os.path.dirname(path), file)
        if not os.path.isfile(fn):
            raise FormatError(path, where(el), None,
                              f"<klampt {prop}=\"{value}\">: file not found (looked for {fn})")
        return read_text(fn)
    ctx.warn(f"<klampt {prop}=...> should name an .xml file; the value is kept as the "
             f"{prop} property as written", where(el), kind="guessed")
    return value


def _number_attr(el, name, integer, ctx, path):
    text = el.get(name)
    if text is None:
        return None
    v = _stream(text, integer)
    if v is None:
        ctx.warn(f"<{local_name(el)} {name}=\"{text}\">: not {'an integer' if integer else 'a number'}; "
                 f"ignored (as Klamp't does)", where(el), kind="invalid value")
    return v


def parse_klampt(robot_el, path: str, ctx: LoadContext) -> KlamptSettings:
    """Settings from the first ``<klampt>`` child of ``robot_el`` (defaults without one)."""
    s = KlamptSettings()
    els = children(robot_el, "klampt")
    if not els:
        return s
    k = els[0]
    s.present = True
    for a in k.attrib:
        if a not in _TOP_ATTRIBUTES and not a.startswith("{"):
            ctx.warn(f"<klampt> attribute {a!r} is not a Klamp't setting; ignored", where(k), kind="ignored")
    for name in ("use_vis_geom", "flip_yz", "freeze_root_link"):
        v = _number_attr(k, name, True, ctx, path)
        if v is not None:
            setattr(s, name, v != 0)
    if k.get("world_frame") is not None:
        s.world_frame = k.get("world_frame")
    if k.get("package_root") is not None:
        s.package_root = k.get("package_root")
    for name in ("default_acc_max", "default_mass"):
        v = _number_attr(k, name, False, ctx, path)
        if v is not None:
            setattr(s, name, v)
            s.explicit.add(name)
    text = k.get("default_inertia")
    if text is not None:
        m9, m3, m1 = _stream_many(text, 9), _stream_many(text, 3), _stream(text, False)
        if m9 is not None:
            s.default_inertia = np.array(m9).reshape(3, 3)
        elif m3 is not None:
            # Klamp't's quirk: the third value lands at (2, 1) and (2, 2) stays 1
            H = np.eye(3)
            H[0, 0], H[1, 1], H[2, 1] = m3
            s.default_inertia = H
        elif m1 is not None:
            s.default_inertia = np.eye(3) * m1
        else:
            ctx.warn(f"<klampt default_inertia=\"{text}\">: not 1, 3 or 9 numbers; ignored", where(k), kind="invalid value")
        if m9 is not None or m3 is not None or m1 is not None:
            s.explicit.add("default_inertia")
    for prop in ("sensors", "controller"):
        v = _property(k, prop, path, ctx)
        if v is not None:
            s.properties[prop] = v
    for c in children(k):
        tag = local_name(c)
        if tag == "link":
            _link_settings(c, s, path, ctx)
        elif tag in _PAIR_ELEMENTS:
            getattr(s, tag).extend(_pairs(c, path, ctx, tag))
        elif tag == "mount":
            s.mounts.append(_mount(c, path))
        elif tag not in ("sensors", "controller"):
            ctx.warn(f"<{tag}> in <klampt> ignored", where(c), kind="ignored")
    return s


def _link_settings(el, s: KlamptSettings, path, ctx):
    name = el.get("name")
    if name is None:
        ctx.warn("<klampt><link> without a 'name' attribute; ignored", where(el), kind="invalid value")
        return
    entry = s.links.setdefault(name, {"line": where(el)})
    for a in el.attrib:
        if a != "name" and a not in LINK_ATTRIBUTES:
            ctx.warn(f"<klampt><link {a}=...> is not a Klamp't link setting; ignored", where(el), kind="ignored")
    for a, integer in LINK_ATTRIBUTES.items():
        v = _number_attr(el, a, integer, ctx, path)
        if v is not None:
            entry[a] = v


def _mount(el, path):
    line = where(el)
    link = el.get("link")
    if link is None:
        raise FormatError(path, line, None, "<mount> needs a 'link' attribute (Klamp't 0.10.1)")
    file = el.get("file")
    if file is None:
        raise FormatError(path, line, None, "<mount> needs a 'file' attribute")
    T = np.eye(4)
    text = el.get("transform")
    if text is not None:
        vals = _stream_many(text, 12)
        if vals is None:
            raise FormatError(path, line, None, f"<mount transform=\"{text}\">: expected 12 numbers "
                              "(rotation row by row, then translation)")
        T = rows12_to_transform(vals)
    prefix = el.get("as", el.get("prefix", ""))
    return (link, file, T, prefix, line)
