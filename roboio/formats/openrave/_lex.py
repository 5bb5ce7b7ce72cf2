"""Lexical rules of OpenRAVE XML (``openrave.md`` §2).

OpenRAVE reads element text with C++ stream extraction: numbers separated by whitespace,
standard float syntax, reading stops at the first character that cannot continue a number
(so ``1,2,3`` reads ``1`` and stops), values not read keep their defaults. roboio reads the
same numbers and says what OpenRAVE would silently skip: a token that is not a number where
numbers are expected is a :class:`~roboio.errors.FormatError` naming file and line; too few
numbers is a warning (the rest keep their defaults, as in OpenRAVE).

Element and attribute names are lower-cased by the reader (``Element``); attribute values and
text keep their case. Booleans follow the exact tests of OpenRAVE's readers.
"""
from __future__ import annotations

import re
from typing import Optional

from ..xmlutil import where

__all__ = ["Element", "scan_numbers", "is_false", "is_true", "first_token", "element_text"]

_WS = re.compile(r"\s*")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def scan_numbers(text: str, limit: Optional[int] = None) -> tuple:
    """``(values, stop)``: the numbers C++ stream extraction reads from ``text`` (at most
    ``limit``), and the text where reading stopped (``""`` when everything was read)."""
    values = []
    pos = 0
    n = len(text)
    while limit is None or len(values) < limit:
        pos = _WS.match(text, pos).end()
        if pos >= n:
            return values, ""
        m = _NUMBER.match(text, pos)
        if not m:
            return values, text[pos:]
        values.append(float(m.group(0)))
        pos = m.end()
    rest = text[pos:].strip()
    return values, rest


def is_false(value: str) -> bool:
    """OpenRAVE's test for ``enable``, ``circular``, ``render``, ``modifiable``: false iff
    ``false`` (any case) or ``0``."""
    return value.lower() == "false" or value == "0"


def is_true(value: str) -> bool:
    """The test for ``skipgeometry``: true iff ``true`` (any case) or ``1``."""
    return value.lower() == "true" or value == "1"


def first_token(text: str) -> str:
    """What ``stream >> string`` reads: the first whitespace-delimited token, or ``""``."""
    parts = text.split()
    return parts[0] if parts else ""


def element_text(el) -> str:
    """All character data inside ``el`` (OpenRAVE concatenates the chunks)."""
    return "".join(el.itertext())


class Element:
    """An lxml element seen the way OpenRAVE's SAX reader sees it: ``tag`` and attribute
    names lower-cased, attribute order kept, ``text``, ``line`` and child ``Element``s
    (comments and processing instructions skipped)."""

    __slots__ = ("el", "tag", "attrs", "line")

    def __init__(self, el):
        self.el = el
        tag = el.tag if isinstance(el.tag, str) else ""
        self.tag = tag.rsplit("}", 1)[-1].lower()
        self.attrs = [(k.rsplit("}", 1)[-1].lower(), v) for k, v in el.attrib.items()]
        self.line = where(el)

    def get(self, name: str, default=None):
        """The last attribute called ``name`` (OpenRAVE's loops let later ones win)."""
        out = default
        for k, v in self.attrs:
            if k == name:
                out = v
        return out

    @property
    def children(self):
        return [Element(c) for c in self.el if isinstance(c.tag, str)]

    @property
    def text(self) -> str:
        return element_text(self.el)
