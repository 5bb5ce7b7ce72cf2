"""Inventor ASCII / VRML 1.0 / VRML 2.0 text -> a tree of :class:`Node` records.

The parser knows the field types of the nodes that matter for geometry (see
:mod:`._nodes`) and reads their fields; nodes without geometric effect and unknown nodes
are stepped over structurally (braces and brackets balanced, ``DEF`` names inside noted),
unknown ones with a warning. ``DEF``/``USE`` share one :class:`Node` object: a ``USE`` puts
the same record at a second place of the tree, as Coin does. Nothing is interpreted here:
transforms, coordinates and shapes are evaluated by :mod:`._scene`.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

import numpy as np

from ....errors import Diagnostic, FormatError
from ....limits import describe as over_limit
from ....context import LoadContext
from ...fileio import line_of
from ._lexer import EOF, PUNCT, STRING, WORD, Lexer, describe
from ._nodes import FIELD_TYPES, INVENTOR, VRML2, lookup
from .._sniff import InventorHeader as Header
from .._sniff import read_inventor_header as read_header

__all__ = ["Node", "Source", "Scene", "Header", "Notes", "NodeNames", "Proto", "ProtoField",
           "read_header", "parse_text", "report_notes", "MAX_DEPTH"]

MAX_DEPTH = 256          # nested nodes when no limit is given (readers pass the load's max_depth)

class Source:
    """A parsed file, for locating errors: text offsets (ASCII) or byte offsets (binary)."""

    def __init__(self, path: str, text=None):
        self.path = path
        self.text = text
        self._calls = 0
        self._newlines = None

    def where(self, offset):
        if offset is None:
            return None, None
        if self.text is None:
            return None, None
        self._calls += 1
        if self._calls <= 8:             # a few lookups (an error, some warnings): count
            return line_of(self.text, offset)
        if self._newlines is None:       # many (a robot reader's records): index once
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        k = bisect.bisect_left(self._newlines, offset)
        return k + 1, offset - (self._newlines[k - 1] + 1 if k else 0) + 1

    def error(self, message: str, offset) -> FormatError:
        line, col = self.where(offset)
        if self.text is None and offset is not None:
            message = f"{message} (at byte {offset})"
        return FormatError(self.path, line, col, message)


class Node:
    """One node as read: ``type`` name, ``fields`` (name -> value), Inventor ``children``,
    ``name`` (DEF), ``offset`` of its type name and ``field_offsets`` for error messages."""

    __slots__ = ("type", "fields", "children", "offset", "field_offsets", "source", "skipped", "name",
                 "proto")

    def __init__(self, type_: str, offset, source: Source, skipped: bool = False):
        self.type = type_
        self.name = None              # the DEF name, if any
        self.fields: dict = {}
        self.children: list = []
        self.offset = offset
        self.field_offsets: dict = {}
        self.source = source
        self.skipped = skipped
        self.proto = None             # the Proto of a PROTO instance (parse_text(protos=True))

    def get(self, name, default=None):
        return self.fields.get(name, default)

    def error(self, message: str, field_name=None) -> FormatError:
        off = self.field_offsets.get(field_name, self.offset) if field_name else self.offset
        return self.source.error(message, off)

    def __repr__(self):
        return f"<Node {self.type}{' (skipped)' if self.skipped else ''}>"


@dataclass
class ProtoField:
    """One field of a PROTO/EXTERNPROTO interface: ``kind`` (``field``, ``exposedField``,
    ``eventIn``, ``eventOut``), Inventor field ``type``, ``default`` value as parsed (None for
    events and for every field of an EXTERNPROTO, whose defaults live in another file)."""

    kind: str
    type: str
    name: str
    default: object = None
    offset: int = 0


@dataclass
class Proto:
    """A VRML 2.0 ``PROTO`` or ``EXTERNPROTO`` declaration: its interface (``fields``, in
    declaration order), ``urls`` of an EXTERNPROTO; the body of a PROTO is not kept."""

    name: str
    fields: dict
    external: bool = False
    urls: list = field(default_factory=list)
    offset: int = 0

    def value(self, node: "Node", name: str):
        """The value of field ``name`` of instance ``node``: as written, else the default."""
        if name in node.fields:
            return node.fields[name]
        f = self.fields.get(name)
        return None if f is None else f.default


@dataclass
class Scene:
    """A parsed file: its header, top-level nodes and where it came from; ``protos`` the
    PROTO/EXTERNPROTO declarations by name when parsed with ``protos=True``."""

    header: Header
    roots: list
    source: Source
    notes: list = field(default_factory=list)   # (Diagnostic, offset) warnings, reported once
    protos: dict = field(default_factory=dict)


class Notes:
    """Warnings collected while parsing, reported once per kind with the first location."""

    def __init__(self):
        self.items: dict = {}

    def add(self, key: str, message: str, offset, kind: str):
        """Note ``message`` (a diagnostic of ``kind``, see :data:`roboio.errors.KINDS`) once
        per ``key``, counting repeats."""
        if key in self.items:
            self.items[key][1] += 1
        else:
            self.items[key] = [message, 1, offset, kind]

    def skipped(self, type_: str, spec, offset, proto: bool = False):
        """Note a node that is stepped over: unknown, a PROTO instance, or known to make
        geometry this reader does not build (``spec.warn``)."""
        if spec is None:
            what = "instance of PROTO" if proto else "unknown node type"
            self.add("unknown:" + type_, f"{what} {type_} skipped", offset, "unsupported")
        elif spec.warn:
            self.add("warn:" + type_, f"{type_} skipped: {spec.warn}", offset, "unsupported")

    def as_list(self):
        """``[(Diagnostic, offset)]``: each note once, with its count."""
        out = []
        for message, count, offset, kind in self.items.values():
            out.append((Diagnostic(message + (f" ({count} times)" if count > 1 else ""), kind=kind),
                        offset))
        return out


class NodeNames:
    """``DEF``/``USE`` names and node nesting of one file, for the text and binary readers:
    ``USE X`` gives the node last defined as ``DEF X`` before it, and may not stand inside
    that node's own definition (a cycle); nodes nest at most ``max_depth`` deep (the load's
    ``max_depth``, checked before each level). ``error(message, offset)`` builds the reader's
    exception."""

    def __init__(self, error, max_depth: int = MAX_DEPTH):
        self.error = error
        self.max_depth = max_depth
        self.defs: dict = {}
        self.defining: set = set()
        self.depth = 0

    def use(self, name: str, offset):
        if name in self.defining:
            raise self.error(f"USE {name} inside the definition of {name} (a cycle)", offset)
        node = self.defs.get(name)
        if node is None:
            raise self.error(f"USE {name}: no node was defined with DEF {name} before", offset)
        return node

    def enter(self, name, offset) -> None:
        """Start reading the body of a node (``name``: its DEF name or None)."""
        if self.depth >= self.max_depth:
            raise self.error(over_limit("depth", self.depth + 1, self.max_depth,
                                        "Inventor/VRML node nesting"), offset)
        self.depth += 1
        if name is not None:
            self.defining.add(name)

    def leave(self, node, name):
        """The node's body is read: from now on ``USE name`` gives it."""
        self.depth -= 1
        if name is not None:
            self.defining.discard(name)
            self.defs[name] = node
            node.name = name
        return node


def parse_text(text: str, path: str, header: Header, max_depth: int = MAX_DEPTH,
               protos: bool = False) -> Scene:
    """Parse a whole ASCII Inventor / VRML file (``header`` already recognised); nodes may
    nest ``max_depth`` deep.

    ``protos``: read VRML 2.0 ``PROTO``/``EXTERNPROTO`` interfaces (field kinds, types and
    defaults; PROTO bodies are stepped over, not expanded) and parse every instance of a
    declared prototype as a :class:`Node` of that type (``node.proto`` its :class:`Proto`,
    fields typed by the interface). Without it, declarations and instances are skipped with
    a note, which is what a geometry reader wants."""
    source = Source(path, text)
    start = 0
    if header.text:
        # what follows the header on its line is a comment ("#VRML V2.0 utf8 CosmoWorlds V1.0")
        end = text.find("\n")
        start = len(text) if end < 0 else end + 1
    parser = _Parser(Lexer(text, path, start), header, source, max_depth, protos)
    roots = parser.parse_file()
    return Scene(header, roots, source, parser.notes.as_list(), parser.declared)


_PROTO_FIELD_KINDS = ("field", "exposedField", "eventIn", "eventOut")


class _Parser:
    def __init__(self, lexer: Lexer, header: Header, source: Source, max_depth: int = MAX_DEPTH,
                 protos: bool = False):
        self.lex = lexer
        self.vrml2 = header.dialect == "vrml2"
        self.table = VRML2 if self.vrml2 else INVENTOR
        self.source = source
        self.names = NodeNames(lexer.error, max_depth)
        self.protos: set = set()
        self.keep_protos = protos and self.vrml2
        self.declared: dict = {}      # name -> Proto (keep_protos)
        self.notes = Notes()

    # -- statements ------------------------------------------------------------------------
    def parse_file(self) -> list:
        roots = []
        lex = self.lex
        while True:
            kind, value, off = lex.peek()
            if kind == EOF:
                return roots
            if kind == PUNCT and value in "}]":
                # Coin reads the scene and reports the surplus ("Extra characters found in
                # input"); GraspIt ships files ending with an extra '}' and loads them.
                self.notes.add("extra", f"extra '{value}' after the last node; the rest of the "
                                        "file is ignored", off, "ignored")
                return roots
            node = self.statement()
            if node is not None and not node.skipped:
                roots.append(node)

    def statement(self, allow_null: bool = False):
        """One node, ``USE``, ``NULL`` (where allowed) or a VRML 2.0 PROTO/ROUTE statement.
        Returns a Node, or None for statements that produce no node."""
        lex = self.lex
        kind, value, off = lex.next()
        if kind != WORD:
            raise lex.error(f"expected a node, found {describe((kind, value, off))}", off)
        if value == "USE":
            return self.use()
        if value == "NULL" and allow_null:
            return None
        if self.vrml2 and value in ("PROTO", "EXTERNPROTO"):
            if self.keep_protos:
                self.read_proto(value, off)
            else:
                self.skip_proto(value, off)
            return None
        if self.vrml2 and value == "ROUTE":
            for what in ("source of ROUTE", "TO", "destination of ROUTE"):
                k, v, o = lex.next()
                if k != WORD:
                    raise lex.error(f"expected the {what}, found {describe((k, v, o))}", o)
            self.notes.add("ROUTE", "ROUTE statements ignored (animation only)", off, "ignored")
            return None
        name = None
        if value == "DEF":
            k, name, o = lex.next()
            if k != WORD:
                raise lex.error(f"expected a name after DEF, found {describe((k, name, o))}", o)
            kind, value, off = lex.peek()
            if kind == PUNCT and value == "{" and lookup(self.table, name) is not None:
                # "DEF Transform {" (Choreonoid's tank.wrl): Choreonoid reads the name as
                # both the DEF name and the node type
                self.notes.add("defnotype", f"'DEF {name} {{' has no node type; read as a {name} "
                                            f"node named {name} (as Choreonoid does)", off, "quirk")
                value = name
            else:
                lex.next()
                if kind != WORD:
                    raise lex.error(f"expected a node type after 'DEF {name}', found "
                                    f"{describe((kind, value, off))}", off)
        node = self.node(value, off, name)
        return node

    def use(self):
        lex = self.lex
        k, name, o = lex.next()
        if k != WORD:
            raise lex.error(f"expected a name after USE, found {describe((k, name, o))}", o)
        return self.names.use(name, o)

    def skip_proto(self, keyword: str, off: int):
        lex = self.lex
        k, name, o = lex.next()
        if k != WORD:
            raise lex.error(f"expected a name after {keyword}, found {describe((k, name, o))}", o)
        self.protos.add(name)
        o = lex.expect("[", f"(interface of {keyword} {name})")
        lex.skip_block("[", o, f"{keyword} {name}")
        if keyword == "PROTO":
            o = lex.expect("{", f"(body of PROTO {name})")
            lex.skip_block("{", o, f"PROTO {name}")
        else:
            self.field_value("MFString", f"url of EXTERNPROTO {name}", o)
        self.notes.add("proto", f"{keyword} {name}: prototypes are not expanded; their "
                                "instances are skipped", off, "unsupported")

    def read_proto(self, keyword: str, off: int):
        """A PROTO/EXTERNPROTO declaration: its interface is kept (``self.declared``), a PROTO
        body is stepped over, an EXTERNPROTO's URLs are kept."""
        lex = self.lex
        k, name, o = lex.next()
        if k != WORD:
            raise lex.error(f"expected a name after {keyword}, found {describe((k, name, o))}", o)
        external = keyword == "EXTERNPROTO"
        open_off = lex.expect("[", f"(interface of {keyword} {name})")
        fields: dict = {}
        while not lex.at_punct("]"):
            kind, value, foff = lex.next()
            if kind == EOF:
                raise lex.error(f"'[' of the interface of {keyword} {name} is never closed", open_off)
            if kind != WORD or value not in _PROTO_FIELD_KINDS:
                raise lex.error(f"{keyword} {name}: expected field, exposedField, eventIn or "
                                f"eventOut, found {describe((kind, value, foff))}", foff)
            ftype = self.word(f"the type of a field of {keyword} {name}")
            if ftype not in FIELD_TYPES:
                raise lex.error(f"{keyword} {name}: unknown field type {ftype!r}", foff)
            fname = self.word(f"the name of a field of {keyword} {name}")
            default = None
            if not external and value in ("field", "exposedField"):
                default = self.field_value(ftype, f"default of {fname} in PROTO {name}", foff)
            fields[fname] = ProtoField(value, ftype, fname, default, foff)
        lex.next()
        urls: list = []
        if external:
            urls = self.field_value("MFString", f"url of EXTERNPROTO {name}", off)
        else:
            o = lex.expect("{", f"(body of PROTO {name})")
            lex.skip_block("{", o, f"PROTO {name}")
        self.protos.add(name)
        self.declared[name] = Proto(name, fields, external, list(urls), off)

    def proto_instance(self, proto: Proto, off: int, name):
        """An instance of a declared prototype, its fields typed by the interface."""
        lex = self.lex
        open_off = lex.expect("{", f"after node type {proto.name}")
        self.names.enter(name, off)
        node = Node(proto.name, off, self.source)
        node.proto = proto
        while True:
            kind, value, foff = lex.peek()
            if kind == PUNCT and value == "}":
                lex.next()
                break
            if kind == EOF:
                raise lex.error(f"'{{' of {proto.name} node is never closed (missing '}}')", open_off)
            f = proto.fields.get(value) if kind == WORD else None
            if f is not None and f.kind in ("field", "exposedField"):
                lex.next()
                node.fields[value] = self.field_value(f.type, f"{value} of {proto.name}", foff)
                node.field_offsets[value] = foff
            elif kind == WORD and value in ("ROUTE", "PROTO", "EXTERNPROTO"):
                self.statement()
            elif kind == WORD:
                what = "an event, not a field," if f is not None else "not a field"
                raise lex.error(f"{value!r} is {what} of PROTO {proto.name}", foff)
            else:
                raise lex.error(f"expected a field of {proto.name} or '}}', found "
                                f"{describe((kind, value, foff))}", foff)
        return self.names.leave(node, name)

    # -- nodes -----------------------------------------------------------------------------
    def node(self, type_: str, off: int, name):
        lex = self.lex
        declared = self.declared.get(type_) if self.keep_protos else None
        if declared is not None:
            return self.proto_instance(declared, off, name)
        spec = lookup(self.table, type_)
        inventor_style = not self.vrml2
        if spec is None and self.vrml2:
            # Coin builds Inventor nodes met in a VRML 2.0 file (GraspIt!'s ashtray.IV
            # has a Cube among VRML nodes); their children sit in the body, Inventor style
            spec = lookup(INVENTOR, type_)
            inventor_style = spec is not None
            if spec is not None and not spec.skip:
                self.notes.add("mixed:" + type_, f"Inventor node {type_} in a VRML 2.0 file "
                                                 "(read as Coin does)", off, "quirk")
        open_off = lex.expect("{", f"after node type {type_}")
        if spec is None or spec.skip:
            inner = set()
            lex.skip_block("{", open_off, f"{type_} node", inner)
            self.notes.skipped(type_, spec, off, type_ in self.protos)
            node = Node(type_, off, self.source, skipped=True)
            for n in inner:
                self.names.defs.setdefault(n, Node("?", off, self.source, skipped=True))
            if name is not None:
                self.names.defs[name] = node
            return node
        self.names.enter(name, off)
        node = Node(spec.name, off, self.source)
        fields = spec.fields
        while True:
            kind, value, foff = lex.peek()
            if kind == PUNCT and value == "}":
                lex.next()
                break
            if kind == EOF:
                raise lex.error(f"'{{' of {type_} node is never closed (missing '}}')", open_off)
            if kind == WORD and value in fields:
                lex.next()
                result = self.field_value(fields[value], f"{value} of {type_}", foff)
                if self.ignored_marker():
                    node.fields.pop(value, None)
                else:
                    node.fields[value] = result
                    node.field_offsets[value] = foff
            elif kind == WORD and value == "fields" and inventor_style:
                lex.next()     # an extension node's field declarations, "fields [ SFFloat a ]"
                o = lex.expect("[", "after 'fields'")
                lex.skip_block("[", o, "field declarations")
            elif spec.group and inventor_style and kind == WORD:
                child = self.statement()
                if child is not None and not child.skipped:
                    node.children.append(child)
            elif self.vrml2 and kind == WORD and value in ("ROUTE", "PROTO", "EXTERNPROTO"):
                self.statement()
            else:
                if kind == WORD:
                    msg = f"unknown field {value!r} of {type_}"
                else:
                    msg = f"expected a field of {type_} or '}}', found {describe((kind, value, foff))}"
                raise lex.error(msg, foff)
        return self.names.leave(node, name)

    def ignored_marker(self) -> bool:
        """Inventor's ``~`` after a value marks the field as ignored; ``=`` connects it."""
        kind, value, off = self.lex.peek()
        if kind == WORD and value == "~":
            self.lex.next()
            return True
        if kind == WORD and value.startswith("="):
            raise self.lex.error("field connections ('=') are not supported", off)
        return False

    # -- field values ----------------------------------------------------------------------
    def field_value(self, ftype: str, what: str, off: int):
        multi, kind, n = FIELD_TYPES[ftype]
        lex = self.lex
        if kind in ("float", "int"):
            integer = kind == "int"
            if multi:
                if lex.at_punct("["):
                    lex.next()
                    arr = lex.numbers_until_bracket(integer, what)
                else:
                    arr = self.numbers(n, integer, what)
                if n > 1:
                    if len(arr) % n:
                        raise lex.error(f"{what} needs groups of {n} numbers, got {len(arr)}", off)
                    arr = arr.reshape(-1, n)
                return arr
            arr = self.numbers(n, integer, what)
            return arr[0] if n == 1 else arr
        if kind == "node":
            if not multi:
                return self.statement(allow_null=True)
            if lex.at_punct("["):
                nodes = self.bracket_list(lambda _: self.statement(), what, off)
            else:
                nodes = [self.statement()]
            return [n for n in nodes if n is not None and not n.skipped]
        if kind == "none":
            return None
        if kind == "image":
            w, h, nc = (int(x) for x in self.numbers(3, True, what))
            if w < 0 or h < 0 or w * h > 1 << 26:
                raise lex.error(f"{what}: bad image size {w} x {h}", off)
            self.numbers(w * h, True, what)
            return (w, h, nc)
        single = {"bool": self.boolean, "enum": self.word, "string": self.string,
                  "bitmask": self.bitmask}[kind]
        if multi:
            return self.bracket_list(single, what, off) if lex.at_punct("[") else [single(what)]
        return single(what)

    def bracket_list(self, read_one, what: str, off: int) -> list:
        """``[ item item ... ]`` (the ``[`` is next), each item read by ``read_one(what)``."""
        lex = self.lex
        lex.next()
        out = []
        while not lex.at_punct("]"):
            if lex.peek()[0] == EOF:
                raise lex.error(f"'[' of {what} is never closed", off)
            out.append(read_one(what))
        lex.next()
        return out

    def numbers(self, n: int, integer: bool, what: str) -> np.ndarray:
        get = self.lex.integer if integer else self.lex.number
        off = self.lex.peek()[2]
        values = [get(what) for _ in range(n)]
        if integer and any(not -2**63 <= x < 2**63 for x in values):
            raise self.lex.error(f"{what}: integer out of range", off)
        return np.array(values, dtype=np.int64 if integer else np.float64)

    def boolean(self, what: str) -> bool:
        kind, value, off = self.lex.next()
        if kind == WORD and value in ("TRUE", "FALSE", "true", "false", "0", "1"):
            return value in ("TRUE", "true", "1")
        raise self.lex.error(f"expected TRUE or FALSE for {what}, found {describe((kind, value, off))}", off)

    def word(self, what: str) -> str:
        kind, value, off = self.lex.next()
        if kind != WORD:
            raise self.lex.error(f"expected a name for {what}, found {describe((kind, value, off))}", off)
        return value

    def string(self, what: str) -> str:
        kind, value, off = self.lex.next()
        if kind not in (STRING, WORD):
            raise self.lex.error(f"expected a string for {what}, found {describe((kind, value, off))}", off)
        return value

    def bitmask(self, what: str) -> frozenset:
        lex = self.lex
        if not lex.at_punct("("):
            return frozenset([self.word(what)])
        lex.next()
        names = set()
        while True:
            kind, value, off = lex.next()
            if kind == PUNCT and value == ")":
                return frozenset(names)
            if kind == PUNCT and value == "|":
                continue
            if kind != WORD:
                raise lex.error(f"expected a flag name or ')' in {what}, found "
                                f"{describe((kind, value, off))}", off)
            names.add(value)


def report_notes(scene: Scene, ctx: LoadContext):
    """Pass the parse warnings of ``scene`` to ``ctx`` (each once, with its location)."""
    for message, offset in scene.notes:
        line, col = scene.source.where(offset)
        ctx.warn(message, line, col, path=scene.source.path, kind=getattr(message, "kind", None))
