"""Hardened XML parsing shared by every XML format.

lxml with entity expansion, DTD loading and network access off. ``parse`` first parses
strictly; where the original program's parser (TinyXML) tolerates broken files, readers pass
``recover=True`` and a recovering parse is used instead, with a warning naming the first
error. Elements keep ``sourceline`` for error messages.
"""
from __future__ import annotations

import threading

from lxml import etree

from ..context import LoadContext
from ..errors import FormatError
from ..limits import current, describe
from .fileio import read_bytes

__all__ = ["parse", "parse_bytes", "where", "attr_floats", "children", "local_name"]


_LXML_MAX_DEPTH = 256          # libxml2's nesting limit without XML_PARSE_HUGE (2048 with it)
_PREMATURE_END = 77            # XML_ERR_TAG_NOT_FINISHED: "Premature end of data in tag"
_TAG_MISMATCH = 76             # XML_ERR_TAG_NAME_MISMATCH: "Opening and ending tag mismatch"
# errors that change no element: "--" inside a comment, an XML declaration after blanks
LEXICAL_ERRORS = frozenset({64, 80})
_PARSERS = threading.local()   # lxml parsers may be reused, but by one thread at a time


def _parser(recover: bool, huge: bool = False) -> etree.XMLParser:
    """The hardened parser for these options (made once per thread: making one costs about
    a third of parsing a small file)."""
    cache = _PARSERS.__dict__
    key = (recover, huge)
    p = cache.get(key)
    if p is None:
        p = cache[key] = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                                         dtd_validation=False, huge_tree=huge, recover=recover,
                                         remove_comments=True, remove_pis=True)
    return p


def _count_elements() -> etree.XPath:
    """``count(//*)`` compiled once per thread (``root.xpath(...)`` compiles it per call,
    which costs more than counting a small document)."""
    x = _PARSERS.__dict__.get("count")
    if x is None:
        x = _PARSERS.count = etree.XPath("count(//*)")
    return x


def parse_bytes(data: bytes, path: str, ctx: LoadContext | None = None, recover: bool = False,
                large_text: bool = False, charge_nodes: bool = True, recover_note: str = "",
                recover_only=None):
    """Root element of ``data``; FormatError(path, line, col) on malformed XML unless
    ``recover`` (then a warning in ``ctx``, ending with ``recover_note``; ``recover_only``:
    the libxml2 error codes recovered from, e.g. :data:`LEXICAL_ERRORS`). ``large_text`` lifts libxml2's 10 MB limit on one
    text node (COLLADA keeps a whole mesh in one ``<float_array>``); entities, DTDs and the
    network stay off, and the file itself is bounded by the load's ``max_file_bytes``.

    A document cut short (the error is where the data ends) is an error even with
    ``recover``: a tolerant parse would read only part of it. Nesting deeper than
    ``max_depth`` is refused and the elements are charged to ``max_nodes`` (``ctx``'s limits,
    else the limits in force) unless ``charge_nodes`` is False (a reader that charges the
    elements it visits itself, includes expanded)."""
    limits = ctx.limits if ctx is not None else current()
    huge = large_text or limits.max_depth > _LXML_MAX_DEPTH
    try:
        root = etree.fromstring(data, _parser(False, huge))
    except etree.XMLSyntaxError as e:
        line, col = e.position if e.position else (None, None)
        msg = e.msg or str(e)
        if "Excessive depth" in msg:
            depth = (2048 if huge else _LXML_MAX_DEPTH) + 1
            raise FormatError(path, line, col, describe("depth", depth, limits.max_depth, "XML nesting")
                              + (" (libxml2 reads at most 2048 levels)" if huge else "")) from None
        if _at_end(data, e):
            raise FormatError(path, line, col, f"malformed XML: the file ends inside the document (truncated?): "
                              f"{msg}") from None
        if not recover or (recover_only is not None and e.code not in recover_only):
            raise FormatError(path, line, col, f"malformed XML: {msg}") from None
        try:
            root = etree.fromstring(data, _parser(True, huge))
        except etree.XMLSyntaxError:
            root = None
        if root is None:
            raise FormatError(path, line, col, f"malformed XML: {msg}") from None
        if ctx is not None:
            ctx.warn(f"malformed XML ({msg}); read what a tolerant parser recovers{recover_note}",
                     line, col, kind="guessed")
    except ValueError as e:  # e.g. unicode strings with an encoding declaration
        raise FormatError(path, None, None, f"malformed XML: {e}") from None
    _check_tree(root, path, ctx if charge_nodes else None, limits, charge_nodes,
                walk=huge or limits.max_depth < _LXML_MAX_DEPTH)
    return root


def _at_end(data: bytes, e: etree.XMLSyntaxError) -> bool:
    """Whether a syntax error lies where the data ends (nothing but blanks after it)."""
    if e.code == _PREMATURE_END:
        return True
    if not e.position or e.code == _TAG_MISMATCH:    # a wrong closing tag, not a cut
        return False
    line, col = e.position
    end = data.rstrip()
    last = end.count(b"\n") + 1
    last_len = len(end[end.rfind(b"\n") + 1:].decode("utf-8", "replace"))
    return line > last or (line == last and col >= last_len - 1)


def _check_tree(root, path, ctx, limits, count_nodes=True, walk=True) -> None:
    """Nesting depth (with ``max_depth`` below lxml's own limit) and element count.
    ``walk=False``: the parser itself refused nesting deeper than ``max_depth`` (libxml2
    reads 256 levels without XML_PARSE_HUGE), so only the elements are counted, by libxml2
    (no Python object per element)."""
    if not walk:
        count = int(_count_elements()(root))
        if ctx is not None:
            ctx.charge("nodes", count, what="XML elements")
        elif count_nodes and count > limits.max_nodes:
            raise FormatError(path, None, None, describe("nodes", count, limits.max_nodes, "XML elements"))
        return
    stack = [(root, 1)]
    count = 0
    max_depth = limits.max_depth
    while stack:
        el, d = stack.pop()
        count += 1
        if d > max_depth:
            raise FormatError(path, where(el), None, describe("depth", d, max_depth, "XML nesting"))
        if len(el):
            stack.extend((c, d + 1) for c in el)
    if ctx is not None:
        ctx.charge("nodes", count, what="XML elements")
    elif count_nodes and count > limits.max_nodes:
        raise FormatError(path, None, None, describe("nodes", count, limits.max_nodes, "XML elements"))


def parse(path: str, ctx: LoadContext | None = None, recover: bool = False):
    return parse_bytes(read_bytes(path, ctx), path, ctx, recover)


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
