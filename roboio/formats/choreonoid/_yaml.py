"""Choreonoid's YAML dialect (``.seq``, ``.body``, ``.pseq``), read the way Choreonoid reads it.

Choreonoid parses YAML with libyaml into a tree whose scalars are *strings*, converted only
when a field is read (C ``strtod`` for numbers, a fixed word list for booleans). PyYAML's
``safe_load`` types scalars by YAML 1.1 rules instead (``1e-05`` stays a string, ``no`` becomes
False), so this module composes the node graph with the string-only loader
(``yaml.CBaseLoader`` when libyaml is available, else ``yaml.BaseLoader``) and converts it to
:class:`YMap` / :class:`YSeq` / :class:`YStr`, which remember their source line. Merge keys
(``<<: *a``) are applied the way Choreonoid does (keys present before the ``<<`` line win, keys
after it overwrite); anchors are shared, not copied, so alias-heavy files stay linear in size.

Accessors (:func:`get`, :func:`to_float`, :func:`to_floats`, :func:`to_bool`, ...) raise
:class:`~roboio.errors.FormatError` located at the offending line. :func:`emit` writes a tree
back as block-style YAML with flow-style number lists.
"""
from __future__ import annotations

import json
import math
import re

import yaml

from ...errors import FormatError
from ..fileio import fmt_float
from ..fileio import line_of as text_position

__all__ = ["YMap", "YSeq", "YStr", "load", "compose", "convert", "get", "get_key", "line_of",
           "strtod", "to_float", "to_int", "to_bool", "to_str", "to_floats", "to_map", "to_list",
           "emit", "scalar_text", "TRUE_WORDS", "FALSE_WORDS", "LOADER"]

LOADER = getattr(yaml, "CBaseLoader", None) or yaml.BaseLoader

TRUE_WORDS = frozenset("y Y yes Yes YES true True TRUE on On ON".split())
FALSE_WORDS = frozenset("n N no No NO false False FALSE off Off OFF".split())


class YMap(dict):
    """A YAML mapping (insertion-ordered); ``line`` of the mapping, ``key_lines[key]``."""

    line = None

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.key_lines = {}


class YSeq(list):
    """A YAML sequence; ``line`` where it starts."""

    line = None


class YStr(str):
    """A YAML scalar, kept as text; ``line`` and ``style`` (None = plain, ``'"'``, ``"'"``,
    ``"|"``, ``">"``)."""

    line = None
    style = None


def _mark_line(node):
    return node.start_mark.line + 1 if node.start_mark is not None else None


def _located(e, path, text: str = "") -> FormatError:
    if isinstance(e, yaml.reader.ReaderError):     # bad characters: a position, no mark
        line, col = text_position(text, e.position) if text else (None, None)
        code = ord(e.character) if isinstance(e.character, str) else int(e.character)
        return FormatError(path, line, col, f"invalid YAML: character U+{code:04X} is not "
                           f"allowed ({e.reason})")
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    ctx = getattr(e, "context", None)
    msg = f"invalid YAML: {problem}" + (f" ({ctx})" if ctx else "")
    if "maximum nesting depth" in str(problem):
        # libyaml >= 0.2.5 (PyYAML >= 6.0.4 wheels) stops at 1000 levels of flow nesting
        # before roboio's own max_depth check sees the events
        msg = (f"YAML nested deeper than libyaml reads ({problem}: 1000 levels), refused as "
               "nesting over max_depth is")
    if mark is not None:
        return FormatError(path, mark.line + 1, mark.column + 1, msg)
    return FormatError(path, None, None, msg)


def compose(text: str, path=None, line_offset: int = 0, ctx=None):
    """The YAML node graph of ``text`` (one document), or FormatError with the location
    (``line_offset`` is added to line numbers when ``text`` is a piece of a file).

    Composed here from libyaml's events, without recursion: PyYAML's C composer recurses once
    per nesting level and crashes the interpreter on a few kilobytes of ``[[[[...``. Nesting
    is checked against ``max_depth`` before each level (``ctx``'s limits, else the limits in
    force), so a hostile file is refused before anything deep is built."""
    budget = _Budget(ctx, path, line_offset)
    try:
        loader = LOADER(text)
        try:
            return _compose_events(loader, budget)
        finally:
            loader.dispose()
    except yaml.YAMLError as e:
        err = _located(e, path, text)
        if err.line is not None:
            err = FormatError(path, err.line + line_offset, err.column, err.message)
        raise err from None


class _Budget:
    """Depth and node checks of one YAML text against a context's (or the current) limits."""

    def __init__(self, ctx, path, line_offset):
        from ...limits import current
        self.ctx, self.path, self.offset = ctx, path, line_offset
        self.limits = ctx.limits if ctx is not None else current()

    def where(self, mark):
        return (mark.line + 1 + self.offset, mark.column + 1) if mark is not None else (None, None)

    def depth(self, depth, mark):
        if depth > self.limits.max_depth:
            from ...limits import describe
            line, col = self.where(mark)
            raise FormatError(self.path if self.ctx is None else self.ctx.path if self.path is None else self.path,
                              line, col, describe("depth", depth, self.limits.max_depth, "YAML nesting"))

    def nodes(self, n, mark, what, counter="nodes"):
        line, col = self.where(mark)
        if self.ctx is not None:
            err = None
            try:
                self.ctx.charge(counter, n, line, col, what=what)
            except FormatError as e:
                err = e
            if err is not None:
                raise FormatError(self.path, err.line, err.column, err.message)
        else:
            from ...limits import describe, limit_name
            limit = getattr(self.limits, limit_name(counter))
            if n > limit:
                raise FormatError(self.path, line, col, describe(counter, n, limit, what))

    def copies(self, n, mark, what):
        self.nodes(n, mark, what, counter="copies")


_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
_STR_TAG = "tag:yaml.org,2002:str"


def _compose_events(loader, budget: _Budget):
    """PyYAML's composer (``get_single_node``) as a loop over events with an explicit stack;
    the same nodes, anchors shared (an alias of a node being composed makes a cycle, which
    :func:`convert` reports), the same errors for undefined or duplicate anchors."""
    ev = loader.get_event()                          # StreamStart
    if loader.check_event(yaml.StreamEndEvent):
        loader.get_event()
        return None
    loader.get_event()                               # DocumentStart
    anchors: dict = {}
    stack: list = []                                 # open collection nodes
    keys: list = []                                  # pending mapping key per open mapping
    root = None
    count = 0
    while True:
        ev = loader.get_event()
        if isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            node = stack.pop()
            node.end_mark = ev.end_mark
            if isinstance(node, yaml.MappingNode):
                keys.pop()
            if not stack:
                root = node
                break
            continue
        if isinstance(ev, yaml.AliasEvent):
            if ev.anchor not in anchors:
                raise yaml.composer.ComposerError(None, None, f"found undefined alias {ev.anchor!r}",
                                                  ev.start_mark)
            node = anchors[ev.anchor]
        else:
            anchor = ev.anchor
            if anchor is not None and anchor in anchors:
                raise yaml.composer.ComposerError(
                    f"found duplicate anchor {anchor!r}; first occurrence",
                    anchors[anchor].start_mark, "second occurrence", ev.start_mark)
            tag = ev.tag
            if isinstance(ev, yaml.ScalarEvent):
                if tag is None or tag == "!":
                    tag = _STR_TAG
                node = yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, style=ev.style)
            elif isinstance(ev, yaml.SequenceStartEvent):
                budget.depth(len(stack) + 1, ev.start_mark)
                node = yaml.SequenceNode(_SEQ_TAG if tag is None or tag == "!" else tag, [],
                                         ev.start_mark, None, flow_style=ev.flow_style)
            elif isinstance(ev, yaml.MappingStartEvent):
                budget.depth(len(stack) + 1, ev.start_mark)
                node = yaml.MappingNode(_MAP_TAG if tag is None or tag == "!" else tag, [],
                                        ev.start_mark, None, flow_style=ev.flow_style)
            else:
                raise yaml.composer.ComposerError(None, None, f"unexpected {type(ev).__name__}",
                                                  ev.start_mark)
            if anchor is not None:
                anchors[anchor] = node
            count += 1
        if stack:
            parent = stack[-1]
            if isinstance(parent, yaml.SequenceNode):
                parent.value.append(node)
            elif keys[-1] is None:
                keys[-1] = node
            else:
                parent.value.append((keys[-1], node))
                keys[-1] = None
        if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            stack.append(node)
            if isinstance(node, yaml.MappingNode):
                keys.append(None)
        elif not stack:
            root = node
            break
    loader.get_event()                               # DocumentEnd
    if not loader.check_event(yaml.StreamEndEvent):
        ev = loader.get_event()
        raise yaml.composer.ComposerError("expected a single document in the stream",
                                          root.start_mark, "but found another document",
                                          ev.start_mark)
    loader.get_event()
    expanded = expanded_size(root)
    budget.copies(expanded - count, root.start_mark, "YAML nodes copied by aliases")
    budget.nodes(expanded, root.start_mark, "YAML nodes after expanding aliases")
    return root


def expanded_size(root) -> int:
    """Number of nodes of ``root`` with every alias expanded (what a writer emits; a shared
    node counts once per reference), computed on the graph without expanding it. Cycles
    (an alias inside its own anchor) count once; :func:`convert` reports them."""
    size: dict = {}
    stack = [(root, False)]
    on_path: set = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1
            if isinstance(node, yaml.SequenceNode):
                total += sum(size.get(id(c), 1) for c in node.value)
            elif isinstance(node, yaml.MappingNode):
                total += sum(size.get(id(k), 1) + size.get(id(v), 1) for k, v in node.value)
            size[key] = total
            continue
        if key in size or key in on_path:
            continue
        if isinstance(node, yaml.ScalarNode):
            size[key] = 1
            continue
        on_path.add(key)
        stack.append((node, True))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((c, False) for c in node.value)
        else:
            for k, v in node.value:
                stack.append((k, False))
                stack.append((v, False))
    return size[id(root)]


def convert(node, path=None, raw_keys=frozenset(), line_offset=0):
    """Convert a composed node graph to YMap/YSeq/YStr. Values of mapping keys listed in
    ``raw_keys`` are left as PyYAML nodes (the caller converts them specially)."""
    memo: dict = {}
    active: set = set()

    def conv(n):
        key = id(n)
        if key in memo:
            if key in active:
                raise FormatError(path, _mark_line(n) + line_offset, None,
                                  "recursive alias: a node contains an alias of itself")
            return memo[key]
        line = _mark_line(n) + line_offset
        if isinstance(n, yaml.ScalarNode):
            out = YStr(n.value)
            out.line = line
            out.style = n.style or None      # libyaml reports plain as ''
            memo[key] = out
            return out
        if isinstance(n, yaml.SequenceNode):
            out = YSeq()
            out.line = line
            memo[key] = out
            active.add(key)
            out.extend(conv(c) for c in n.value)
            active.discard(key)
            return out
        if isinstance(n, yaml.MappingNode):
            out = YMap()
            out.line = line
            memo[key] = out
            active.add(key)
            for kn, vn in n.value:
                if not isinstance(kn, yaml.ScalarNode):
                    raise FormatError(path, _mark_line(kn) + line_offset, None,
                                      "mapping keys must be plain scalars")
                k = kn.value
                if k == "<<" and not kn.style:
                    _merge(out, vn, conv)
                    continue
                out[k] = vn if k in raw_keys else conv(vn)
                out.key_lines[k] = _mark_line(kn) + line_offset
            active.discard(key)
            return out
        raise FormatError(path, line, None, f"unsupported YAML node {type(n).__name__}")

    def _merge(target, vn, conv):
        sources = vn.value if isinstance(vn, yaml.SequenceNode) else [vn]
        for s in sources:
            m = conv(s)
            if not isinstance(m, YMap):
                raise FormatError(path, _mark_line(s) + line_offset, None,
                                  "a merge key '<<' needs a mapping or a list of mappings")
            for k, v in m.items():
                if k not in target:
                    target[k] = v
                    target.key_lines[k] = m.key_lines.get(k)

    try:
        return conv(node)
    except RecursionError:
        raise FormatError(path, None, None, "YAML nesting too deep") from None


def load(text: str, path=None, raw_keys=frozenset(), ctx=None):
    """Compose and convert ``text``; an empty document is a FormatError. ``ctx``: the load's
    context, whose budget the nesting depth and the expanded node count are charged to."""
    node = compose(text, path, ctx=ctx)
    if node is None:
        raise FormatError(path, 1, None, "the file is empty (no YAML document)")
    return convert(node, path, raw_keys)


# -- accessors -------------------------------------------------------------------------------

def line_of(node, default=None):
    line = getattr(node, "line", None)
    return line if line is not None else default


def get_key(m: YMap, *names):
    """(key, value) of the first of ``names`` present in ``m`` (aliases, preferred first),
    or (None, None)."""
    for n in names:
        if n in m:
            return n, m[n]
    return None, None


def get(m: YMap, *names, default=None):
    """Value of the first of ``names`` present in ``m`` (aliases, preferred first)."""
    for n in names:
        if n in m:
            return m[n]
    return default


_NUMBER = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN](?:\([0-9A-Za-z_]*\))?))")


def strtod(text: str):
    """C ``strtod``: ``(value, end)`` for the longest number at the start of ``text``
    (after leading white space), or None when there is none. Accepts ``1e-05``, ``.5``,
    ``+3``, ``-0``, ``inf``, ``nan``, hex floats (``0x1.8p1``)."""
    m = _NUMBER.match(text)
    if m is None:
        return None
    s = m.group(1)
    body = s.lstrip("+-")
    if body[:2] in ("0x", "0X"):
        v = float.fromhex(s)
    elif body[:1] in "nN":
        v = -math.nan if s.startswith("-") else math.nan
    else:
        v = float(s)
    return v, m.end()


def _fail(path, node, what):
    return FormatError(path, line_of(node), None, what)


def to_float(node, path=None, what="value", warn=None) -> float:
    """A number the way Choreonoid reads one (strtod; trailing characters ignored, with a
    warning through ``warn(msg, line, kind=...)`` when given)."""
    if not isinstance(node, str):
        raise _fail(path, node, f"{what} must be a number, got a {_kind(node)}")
    r = strtod(node)
    if r is None:
        raise _fail(path, node, f"{what} must be a number, got {str(node)!r}")
    v, end = r
    if warn is not None and node[end:].strip():
        warn(f"{what}: trailing characters {node[end:].strip()!r} after the number ignored "
             "(as Choreonoid does)", line_of(node), kind="ignored")
    return v


def to_int(node, path=None, what="value", warn=None) -> int:
    """An integer (``strtol``-like: leading integer; a fractional part is ignored with a warning)."""
    if not isinstance(node, str):
        raise _fail(path, node, f"{what} must be an integer, got a {_kind(node)}")
    m = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", node)
    if m is None:
        raise _fail(path, node, f"{what} must be an integer, got {str(node)!r}")
    if warn is not None and node[m.end():].strip():
        warn(f"{what}: trailing characters {node[m.end():].strip()!r} after the integer ignored",
             line_of(node), kind="ignored")
    digits = m.group(1).strip().lstrip("+-").lstrip("0")
    value = int(digits or "0") if len(digits) <= 19 else 2 ** 64   # (int() refuses 4,300+ digits)
    value = -value if m.group(1).strip().startswith("-") else value
    if not -2 ** 63 <= value < 2 ** 63:     # beyond strtol's long (it would saturate)
        raise _fail(path, node, f"{what} {m.group(1).strip()[:40]} is out of the range of a 64-bit integer")
    return value


def to_bool(node, path=None, what="value") -> bool:
    if isinstance(node, str):
        if node in TRUE_WORDS:
            return True
        if node in FALSE_WORDS:
            return False
    raise _fail(path, node, f"{what} must be a boolean (true/false, yes/no, on/off), got "
                + (repr(str(node)) if isinstance(node, str) else f"a {_kind(node)}"))


def to_str(node, path=None, what="value") -> str:
    if not isinstance(node, str):
        raise _fail(path, node, f"{what} must be a string, got a {_kind(node)}")
    return str(node)


def to_map(node, path=None, what="value") -> YMap:
    if not isinstance(node, dict):
        raise _fail(path, node, f"{what} must be a mapping, got a {_kind(node)}")
    return node


def to_list(node, path=None, what="value") -> YSeq:
    if not isinstance(node, list):
        raise _fail(path, node, f"{what} must be a list, got a {_kind(node)}")
    return node


def to_floats(node, path=None, what="value", n=None, warn=None) -> list:
    """A flat list of numbers (of length ``n`` when given)."""
    seq = to_list(node, path, what)
    if n is not None and len(seq) != n:
        raise _fail(path, node, f"{what} must have {n} numbers, got {len(seq)}")
    return [to_float(x, path, what, warn) for x in seq]


def _kind(node) -> str:
    if isinstance(node, dict):
        return "mapping"
    if isinstance(node, list):
        return "list"
    if node is None:
        return "missing value"
    return "scalar"


# -- writing ----------------------------------------------------------------------------------

_PLAIN = re.compile(r"[A-Za-z0-9_./+\-$][A-Za-z0-9_./+\-$()~ ]*\Z")
_RESERVED = frozenset(["~", "null", "Null", "NULL", ""])


def scalar_text(v) -> str:
    """One scalar as YAML text: numbers repr-exact, booleans ``true``/``false``, strings
    plain when that reads back as the same string, else double-quoted."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt_float(v)
    if v is None:
        return "null"
    if hasattr(v, "dtype"):
        return fmt_float(float(v)) if v.dtype.kind == "f" else str(v)
    s = str(v)
    style = getattr(v, "style", None)
    if style is None and _PLAIN.match(s) and not s.endswith(" ") and s not in _RESERVED \
            and not s.startswith("- ") and s != "-":
        return s
    return json.dumps(s, ensure_ascii=False)


def _is_scalar(v) -> bool:
    return not isinstance(v, (dict, list, tuple)) and not (hasattr(v, "ndim") and v.ndim > 0)


def emit(tree, indent: int = 0, quote_strings: bool = False) -> str:
    """Block-style YAML for ``tree`` (dict / list / scalars / numpy arrays). Lists of
    scalars are written in flow style ``[ a, b ]``; a list of mappings as ``-`` items.
    ``quote_strings`` double-quotes every string value (Choreonoid's writers quote names)."""
    out: list[str] = []
    _emit_value(tree, indent, out, quote_strings, top=True)
    return "".join(out)


def _flow(seq, quote) -> str:
    return "[ " + ", ".join(_scalar(x, quote) for x in seq) + " ]" if len(seq) else "[ ]"


def _scalar(v, quote):
    if quote and isinstance(v, str):
        return json.dumps(str(v), ensure_ascii=False)
    return scalar_text(v)


def _emit_value(v, indent, out, quote, top=False):
    pad = " " * indent
    if isinstance(v, dict):
        if not v:
            out.append(" { }\n" if not top else "")     # (after "key:": "key: { }")
            return
        if not top:
            out.append("\n")
        for k, x in v.items():
            out.append(f"{pad}{scalar_text(str(k))}:")
            if _is_scalar(x):
                out.append(" " + _scalar(x, quote) + "\n")
            elif isinstance(x, (list, tuple)) or hasattr(x, "ndim"):
                _emit_list(x, indent, out, quote)
            else:
                _emit_value(x, indent + 2, out, quote)
    elif isinstance(v, (list, tuple)) or hasattr(v, "ndim"):
        _emit_list(v, indent - 2 if not top else indent, out, quote)
    else:
        out.append(_scalar(v, quote) + "\n")


def _emit_list(x, indent, out, quote):
    items = x.tolist() if hasattr(x, "tolist") else list(x)
    if all(_is_scalar(i) for i in items):
        out.append(" " + _flow(items, quote) + "\n")
        return
    if all(isinstance(i, (list, tuple)) and all(_is_scalar(j) for j in i) for i in items):
        out.append("\n")
        for i in items:
            out.append(" " * (indent + 2) + "- " + _flow(i, quote) + "\n")
        return
    out.append("\n")
    for i in items:
        out.append(" " * (indent + 2) + "-")
        if _is_scalar(i):
            out.append(" " + _scalar(i, quote) + "\n")
        elif isinstance(i, dict):
            _emit_value(i, indent + 4, out, quote)
        else:
            _emit_list(i, indent + 2, out, quote)
