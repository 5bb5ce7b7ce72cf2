"""Hardened XML parsing shared by every XML format.

lxml with entity expansion, DTD loading and network access off. ``parse`` first parses
strictly; where the original program's parser (TinyXML) tolerates broken files, readers pass
``recover=True`` and a recovering parse is used instead, with a warning naming the first
error. Elements keep ``sourceline`` for error messages.
"""
from __future__ import annotations

import threading

from lxml import etree

from ..errors import FormatError
from ..context import LoadContext

__all__ = ["parse", "parse_bytes", "where", "attr_floats", "children", "local_name"]


_PARSERS = threading.local()      # lxml parsers may be reused, but by one thread at a time


def _parser(recover: bool, large_text: bool = False) -> etree.XMLParser:
    """The hardened parser for these options (made once per thread: making one costs about
    a third of parsing a small file)."""
    cache = _PARSERS.__dict__
    key = (recover, large_text)
    p = cache.get(key)
    if p is None:
        p = cache[key] = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                                         dtd_validation=False, huge_tree=large_text,
                                         recover=recover, remove_comments=True, remove_pis=True)
    return p


def parse_bytes(data: bytes, path: str, ctx: LoadContext | None = None, recover: bool = False,
                large_text: bool = False):
    """Root element of ``data``; FormatError(path, line, col) on malformed XML unless
    ``recover`` (then a warning in ``ctx``). ``large_text`` lifts libxml2's 10 MB limit on one
    text node (COLLADA keeps a whole mesh in one ``<float_array>``); entities, DTDs and the
    network stay off, and the file itself is bounded by the load's ``max_file_bytes``."""
    try:
        return etree.fromstring(data, _parser(False, large_text))
    except etree.XMLSyntaxError as e:
        line, col = e.position if e.position else (None, None)
        msg = e.msg or str(e)
        if not recover:
            raise FormatError(path, line, col, f"malformed XML: {msg}") from None
        try:
            root = etree.fromstring(data, _parser(True, large_text))
        except etree.XMLSyntaxError:
            root = None
        if root is None:
            raise FormatError(path, line, col, f"malformed XML: {msg}") from None
        if ctx is not None:
            ctx.warn(f"malformed XML ({msg}); read what a tolerant parser recovers", line, col)
        return root
    except ValueError as e:  # e.g. unicode strings with an encoding declaration
        raise FormatError(path, None, None, f"malformed XML: {e}") from None


def parse(path: str, ctx: LoadContext | None = None, recover: bool = False):
    with open(path, "rb") as f:
        data = f.read()
    return parse_bytes(data, path, ctx, recover)


def where(el) -> int | None:
    """Source line of an element (None if unknown)."""
    line = getattr(el, "sourceline", None)
    return int(line) if line else None


def local_name(el) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def children(el, name: str | None = None, ignore_case: bool = False):
    """Element children (comments and processing instructions skipped), optionally only
    those named ``name``."""
    if not ignore_case:          # the common case, on every reader's path: lxml filters
        # ("{*}name": that name in any namespace or none; etree.Element: elements only)
        return list(el.iterchildren(etree.Element if name is None else "{*}" + name))
    out = []
    low = name.lower() if (name and ignore_case) else name
    for c in el:
        if not isinstance(c.tag, str):
            continue
        n = local_name(c)
        if name is None or n == name or (ignore_case and n.lower() == low):
            out.append(c)
    return out


def attr_floats(el, name: str, path: str, count: int | None = None, minimum: int | None = None):
    """The numbers in attribute ``name`` (None if absent); FormatError with the line when a
    token is not a number or the count is wrong."""
    text = el.get(name)
    if text is None:
        return None
    try:
        vals = [float(x) for x in text.split()]
    except ValueError:
        raise FormatError(path, where(el), None,
                          f"<{local_name(el)} {name}=\"{text}\">: expected numbers") from None
    if count is not None and len(vals) != count:
        raise FormatError(path, where(el), None,
                          f"<{local_name(el)} {name}>: expected {count} numbers, got {len(vals)}")
    if minimum is not None and len(vals) < minimum:
        raise FormatError(path, where(el), None,
                          f"<{local_name(el)} {name}>: expected at least {minimum} numbers, got {len(vals)}")
    return vals
