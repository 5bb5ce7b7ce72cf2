"""Content tests of the Klamp't formats (cheap: standard library only, no parser imported).

Each ``sniff_<format>(head, path)`` gets the first bytes of a file (see
:data:`roboio.formats.registry.HEAD_BYTES`) and says whether they look like that format.
``.rob``, ``.env``, ``.group``, ``.tri`` and ``.ikgoal`` have no content signature: their
extension decides.
"""
from __future__ import annotations

import re

from ..xmlsniff import root_element

__all__ = ["sniff_world", "sniff_object", "sniff_geom", "sniff_config", "sniff_configs",
           "sniff_milestones", "sniff_path", "sniff_multipath", "sniff_grasp", "sniff_hold",
           "sniff_stance", "sniff_json", "is_number", "parse_int", "xml_root_name",
           "OBJECT_ITEMS", "PRIMITIVE_TYPES"]

_INT = re.compile(r"[+-]?[0-9]+\Z")
_NUM = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z|[+-]?(?:inf|infinity|nan)\Z", re.I)


def is_number(tok: str) -> bool:
    """A number as Klamp't's C++ (iostream) or Python (``float``) readers accept it."""
    return _NUM.match(tok) is not None


def parse_int(tok: str):
    """int(tok) for a plain integer token, else None. A token of more than 100 digits (out
    of every C++ integer's range; Python refuses to convert beyond 4,300) gives +-10**100."""
    if not _INT.match(tok):
        return None
    digits = tok.lstrip("+-").lstrip("0") or "0"
    negative = tok.startswith("-")
    if len(digits) > 100:
        return -10 ** 100 if negative else 10 ** 100
    return -int(digits) if negative else int(digits)


_XML_ROOT = re.compile(r"<([A-Za-z_][\w.\-:]*)")


def xml_root_name(head: bytes):
    """Name of the root element of an XML document whose first bytes are ``head`` (None if
    it does not look like XML). Skips the declaration, comments, processing instructions and
    a DOCTYPE."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    pos, n = 0, len(text)
    while pos < n:
        while pos < n and text[pos].isspace():
            pos += 1
        for opening, closing in (("<?", "?>"), ("<!--", "-->"), ("<!", ">")):
            if text.startswith(opening, pos):
                end = text.find(closing, pos + len(opening))
                if end < 0:
                    return None
                pos = end + len(closing)
                break
        else:
            m = _XML_ROOT.match(text, pos)
            return m.group(1) if m else None
    return None


# -- world ----------------------------------------------------------------------------------

# Children that only GraspIt! worlds have (their root is <world> too).
_GRASPIT = (b"<graspableBody", b"<obstacle", b"<filename>")


def sniff_world(head: bytes, path: str) -> bool:
    """Root element ``<world>`` and no GraspIt!-only content in the first bytes; or a robot's
    ``<sensors>`` file (the reader refuses it, saying it is read with the robot)."""
    root = root_element(head)
    if root is not None and root[0] == b"sensors":
        return True
    if root is None or root[0] != b"world":
        return False
    return not any(g in head for g in _GRASPIT)


# -- rigid objects (SimpleFile) -------------------------------------------------------------

OBJECT_ITEMS = ("mesh", "geomscale", "geomtranslate", "T", "position", "velocity",
                "angularVelocity", "mass", "inertia", "com", "kFriction", "kRestitution",
                "kStiffness", "kDamping", "autoMass")
_OBJECT_LOWER = {n.lower() for n in OBJECT_ITEMS}


def sniff_object(head: bytes, path: str) -> bool:
    """True when every complete line of ``head`` starts with an item Klamp't allows
    (any capitalisation) or is blank/a comment -- never for Wavefront ``v``/``f`` files."""
    text = head.decode("latin-1")
    lines = text.splitlines()
    if len(head) >= 4096 and lines:
        lines = lines[:-1]          # possibly cut off
    seen = False
    for line in lines:
        tok = line.split("#", 1)[0].split(None, 1)
        if not tok:
            continue
        if tok[0].lower() not in _OBJECT_LOWER:
            return False
        seen = True
    return seen


# -- geometry -------------------------------------------------------------------------------

PRIMITIVE_TYPES = ("Point", "Segment", "Triangle", "Polygon", "Sphere", "Ellipsoid", "Cylinder",
                   "AABB", "Box")


def sniff_geom(head: bytes, path: str) -> bool:
    words = head.decode("latin-1").split()
    if words[:1] == ["Primitive"]:
        words = words[1:]
    return bool(words) and words[0] in PRIMITIVE_TYPES


# -- motions ----------------------------------------------------------------------------------

def _numbers_with_extension(head: bytes, path: str, ext: str) -> bool:
    # These extensions are the only evidence: a file of numbers is not recognised by content.
    if not path.lower().endswith(ext):
        return False
    tok = head.split(None, 1)[:1]
    return bool(tok) and parse_int(tok[0].decode("ascii", "replace")) is not None


def sniff_config(head: bytes, path: str) -> bool:
    return _numbers_with_extension(head, path, ".config")


def sniff_configs(head: bytes, path: str) -> bool:
    return _numbers_with_extension(head, path, ".configs")


def sniff_milestones(head: bytes, path: str) -> bool:
    return _numbers_with_extension(head, path, ".milestones")


def sniff_path(head: bytes, path: str) -> bool:
    """First line ``t N q1 ... qN`` (possibly cut off by the end of ``head``)."""
    lines = head.decode("utf-8", "replace").split("\n")
    idx = next((i for i, line in enumerate(lines) if line.strip()), None)
    if idx is None:
        return False
    toks = lines[idx].split()
    if len(toks) < 2 or not is_number(toks[0]):
        return False
    whole_line = idx < len(lines) - 1      # else it may be cut off by the end of head
    n = parse_int(toks[1])
    if n is None or n < 0 or not all(is_number(t) for t in toks[2:len(toks) if whole_line else -1]):
        return False
    return len(toks) == n + 2 if whole_line else len(toks) <= n + 2


def sniff_multipath(head: bytes, path: str) -> bool:
    return xml_root_name(head) == "multipath"


_KLAMPT_TYPE = re.compile(rb'"type"\s*:\s*"([A-Za-z0-9_]*)"')
_KLAMPT_KEYS = re.compile(rb'"(times|milestones|kFriction|posConstraint|rotConstraint|localPosition|'
                          rb'endRotation|holds|objectIndex|robotIndex|contactLinks|ik)"\s*:')
_NUMERIC_ARRAY = re.compile(rb"\s*\[\s*(\[\s*)*([-+0-9.]|NaN|-?Infinity|\])")


def sniff_json(head: bytes, path: str) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"["):
        return _NUMERIC_ARRAY.match(text) is not None
    if not text.startswith(b"{"):
        return False
    m = _KLAMPT_TYPE.search(text)
    if m:
        kind = m.group(1).decode()
        return kind.endswith("Trajectory") or kind in ("LinearPath", "IKObjective", "IKGoal",
                                                       "ContactPoint", "Hold", "Stance", "Grasp")
    return _KLAMPT_KEYS.search(text) is not None


# -- contacts ---------------------------------------------------------------------------------

def _starts_with_words(head: bytes, words) -> bool:
    lines = [l.split("#", 1)[0] for l in head.decode("utf-8", "replace").split("\n")]
    return " ".join(" ".join(lines).split()[:len(words)]) == " ".join(words)


def sniff_hold(head: bytes, path: str) -> bool:
    return _starts_with_words(head, ("begin", "hold"))


def sniff_stance(head: bytes, path: str) -> bool:
    return _starts_with_words(head, ("begin", "stance"))


def sniff_grasp(head: bytes, path: str) -> bool:
    return xml_root_name(head) == "Grasp"
