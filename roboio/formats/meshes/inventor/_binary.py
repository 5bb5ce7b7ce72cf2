"""Binary Open Inventor (``#Inventor V2.x binary``) -> the same :class:`Node` tree as the
ASCII parser.

The format (as Coin reads it): big-endian 32-bit words, everything padded to 4 bytes.
Strings are a length word plus the characters. A node is its class name (or ``DEF`` name
class, ``USE`` name, ``NULL``); from V2.1 a word of I/O flags follows (2 = group, 1 =
engine); then a word whose low byte is the number of fields written (higher bits flag a
non-built-in node, whose field declarations -- type and name strings -- come next); each
field is its name, its value and a word of field flags (1 = ignored, 2 = connected); a group
ends with the number of children and the children. Values: floats as IEEE float32, integers
and booleans as int32, enums as their name string, bit masks as name strings ended by an
empty string, multiple-value fields as a count followed by the values.

Field values are not self-describing, so every node read must be known with its field types
(:data:`._nodes.INVENTOR`), unless the file declares them.
"""
from __future__ import annotations

import numpy as np

from ._nodes import FIELD_TYPES, INVENTOR, lookup
from ._parse import MAX_DEPTH, Header, Node, NodeNames, Notes, Scene, Source

__all__ = ["parse_binary"]

_IO_ENGINE, _IO_GROUP = 1, 2
_FIELD_IGNORED, _FIELD_CONNECTED = 1, 2


def parse_binary(data: bytes, path: str, header: Header, max_depth: int = MAX_DEPTH) -> Scene:
    source = Source(path)
    start = data.index(b"\n") + 1
    reader = _Reader(data, start, source, header.version, max_depth)
    roots = []
    while reader.pos < len(data):
        if not data[reader.pos:].strip(b"\0 \n\r\t"):
            break                      # trailing padding
        node = reader.node()
        if node is not None and not node.skipped:
            roots.append(node)
    return Scene(header, roots, source, reader.notes.as_list())


class _Reader:
    def __init__(self, data: bytes, pos: int, source: Source, version: float, max_depth: int = MAX_DEPTH):
        self.data = data
        self.pos = pos
        self.source = source
        self.has_ioflags = version > 2.0
        self.names = NodeNames(self.error, max_depth)
        self.notes = Notes()

    def error(self, message, offset=None):
        return self.source.error(message, self.pos if offset is None else offset)

    def _need(self, nbytes: int, what: str):
        if nbytes < 0 or self.pos + nbytes > len(self.data):
            raise self.error(f"file ends inside {what} (needs {nbytes} more bytes)")

    def word(self, what: str, signed: bool = False) -> int:
        self._need(4, what)
        v = int.from_bytes(self.data[self.pos:self.pos + 4], "big", signed=signed)
        self.pos += 4
        return v

    def string(self, what: str) -> str:
        n = self.word(f"the length of {what}")
        padded = (n + 3) & ~3
        self._need(padded, what)
        s = self.data[self.pos:self.pos + n].decode("latin-1")
        self.pos += padded
        return s

    def array(self, dtype: str, count: int, what: str) -> np.ndarray:
        self._need(4 * count, what)
        a = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos)
        self.pos += 4 * count
        return a.astype(np.float64 if "f" in dtype else np.int64)

    # -- nodes --------------------------------------------------------------------------------
    def node(self):
        off = self.pos
        name = self.string("a node name")
        if name == "NULL":
            return None
        if name == "USE":
            return self.names.use(self.string("a USE name"), off)
        defname = None
        if name == "DEF":
            defname = self.string("a DEF name")
            name = self.string("a node name")
        ioflags = self.word(f"the flags of {name}") if self.has_ioflags else None
        if ioflags is not None and ioflags & _IO_ENGINE:
            raise self.error(f"{name}: engines are not supported", off)
        spec = lookup(INVENTOR, name)
        counts = self.word(f"the field count of {name}")
        nfields, builtin = counts & 0xFF, (counts >> 8) == 0
        declared = {}
        if not builtin:
            for _ in range(nfields):
                ftype = self.string(f"a field type of {name}")
                fname = self.string(f"a field name of {name}")
                if ftype not in FIELD_TYPES:
                    raise self.error(f"{name}: unknown field type {ftype!r}", off)
                declared[fname] = ftype
        if spec is None and builtin:
            raise self.error(f"unknown node type {name!r} (a binary file cannot be read past it)", off)
        self.names.enter(defname, off)
        node = Node(spec.name if spec else name, off, self.source,
                    skipped=spec is None or spec.skip)
        self.notes.skipped(name, spec, off)
        for _ in range(nfields):
            foff = self.pos
            fname = self.string(f"a field name of {name}")
            ftype = declared.get(fname) or (spec.fields.get(fname) if spec else None)
            if ftype is None:
                raise self.error(f"unknown field {fname!r} of {name}", foff)
            value = self.value(ftype, f"{fname} of {name}")
            flags = self.word(f"the flags of field {fname}")
            if flags & _FIELD_CONNECTED:
                raise self.error(f"{fname} of {name}: field connections are not supported", foff)
            if not flags & _FIELD_IGNORED:
                node.fields[fname] = value
                node.field_offsets[fname] = foff
        group = bool(ioflags & _IO_GROUP) if ioflags is not None else bool(spec and spec.group)
        if group:
            nchildren = self.word(f"the child count of {name}", signed=True)
            if nchildren < 0 or nchildren > len(self.data):
                raise self.error(f"{name}: bad child count {nchildren}", off)
            for _ in range(nchildren):
                child = self.node()
                if child is not None and not child.skipped:
                    node.children.append(child)
        return self.names.leave(node, defname)

    def value(self, ftype: str, what: str):
        multi, kind, n = FIELD_TYPES[ftype]
        if kind == "none":
            return None
        if kind == "image":
            raise self.error(f"{what}: images in binary files are not supported")
        unsigned = "UInt32" in ftype or "ULong" in ftype
        if multi:
            count = self.word(f"the value count of {what}", signed=True)
            if count < 0 or count * max(n, 1) * 4 > len(self.data):
                raise self.error(f"{what}: bad value count {count}")
            if kind == "float":
                a = self.array(">f4", count * n, what)
                return a.reshape(-1, n) if n > 1 else a
            if kind in ("int", "bool"):
                if "Short" in ftype:
                    raise self.error(f"{what}: {ftype} values in binary files are not supported")
                a = self.array(">u4" if unsigned else ">i4", count, what)
                return a.astype(bool) if kind == "bool" else a
            if kind == "node":
                out = []
                for _ in range(count):
                    child = self.node()
                    if child is not None and not child.skipped:
                        out.append(child)
                return out
            return [self.single(kind, what) for _ in range(count)]
        if kind == "float":
            a = self.array(">f4", n, what)
            return float(a[0]) if n == 1 else a
        if kind == "int":
            return self.word(what, signed=not unsigned)
        if kind == "node":
            return self.node()
        return self.single(kind, what)

    def single(self, kind: str, what: str):
        if kind == "bool":
            return self.word(what) != 0
        if kind == "bitmask":
            names = set()
            while True:
                s = self.string(what)
                if not s:
                    return frozenset(names)
                names.add(s)
        return self.string(what)      # enum, name, string
