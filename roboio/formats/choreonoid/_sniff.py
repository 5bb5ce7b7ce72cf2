"""Content tests of the Choreonoid formats (cheap: standard library only)."""
from __future__ import annotations

import re

__all__ = ["sniff_body", "sniff_seq", "sniff_pseq", "sniff_openhrp_vrml", "sniff_model_file"]

# an OpenHRP robot model declares the prototypes its robot is made of
_OPENHRP_PROTO = re.compile(rb"(?m)^[^#\n]*?\b(?:EXTERN)?PROTO\s+(?:Humanoid|Joint|Segment)\s*\[")
_MODEL_FILE = re.compile(rb"(?m)^(?:modelFile|model_file)\s*:")
# the YAML key and value, in block or flow style, quoted or not ("PoseSeq" alone is also a
# word of READMEs and file lists: a corpus MANIFEST.tsv naming .pseq files)
_BODY = re.compile(rb"\bformat['\"]?[ \t]*:[ \t]*['\"]?ChoreonoidBody\b")
_SEQ = re.compile(rb"\btype['\"]?[ \t]*:[ \t]*['\"]?CompositeSeq\b")
_BODY_MOTION = re.compile(rb"\b(?:content|type)['\"]?[ \t]*:[ \t]*['\"]?BodyMotion\b")
_PSEQ = re.compile(rb"\btype['\"]?[ \t]*:[ \t]*['\"]?PoseSeq\b")


def sniff_body(head: bytes, path: str) -> bool:
    return _BODY.search(head) is not None


def sniff_seq(head: bytes, path: str) -> bool:
    """A body motion: ``type: CompositeSeq`` (format version 2 and later), or ``content:`` or
    (format version 1) ``type: BodyMotion`` with ``components``."""
    return _SEQ.search(head) is not None or (
        _BODY_MOTION.search(head) is not None and b"components" in head)


def sniff_pseq(head: bytes, path: str) -> bool:
    return _PSEQ.search(head) is not None


def sniff_openhrp_vrml(head: bytes, path: str) -> bool:
    """A VRML 2.0 file (header, or a VRML extension) declaring the OpenHRP ``Humanoid``,
    ``Joint`` or ``Segment`` prototype (plain VRML geometry declares none of them)."""
    vrml = head.lstrip(b"\xef\xbb\xbf").startswith(b"#VRML V2.0") or \
        str(path).lower().endswith((".wrl", ".vrml"))
    return vrml and _OPENHRP_PROTO.search(head) is not None


def sniff_model_file(head: bytes, path: str) -> bool:
    """A Choreonoid body description that names its model with ``modelFile:`` instead of
    being a ``format: ChoreonoidBody`` file."""
    return b"ChoreonoidBody" not in head and _MODEL_FILE.search(head) is not None
