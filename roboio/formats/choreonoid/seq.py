"""Choreonoid standard body motion files (``.seq``), format versions 1 to 4.

Reading follows Choreonoid's code: both key spellings, every top-level key inherited
by components that lack it, ``MultiValueSeq`` / ``MultiSE3Seq`` / ``Vector3Seq`` components
(any other type or content is kept verbatim), SE3 formats ``XYZQWQXQYQZ``, ``XYZRPY`` and (in
version 1 only) ``XYZQXQYQZQW``, stored as ``x y z qw qx qy qz``; frame times
(``hasFrameTime``, version >= 2) are kept as :attr:`BodyMotion.times` — use
:meth:`BodyMotion.resampled` for Choreonoid's fixed-rate import. Quaternions are kept as
written (normalised when turned into rotations).

The frame data go through the exact frame parser of :mod:`._seq_fast` (a C extension, or its
numpy twin); only the header (and frame data in an unusual layout) goes through the YAML
parser.

Writing: version 2 with camelCase keys (format ``choreonoid-seq``, read by every Choreonoid
version, like the shipped SR1 files) or version 4 with snake_case keys (format
``choreonoid-seq-v4``, what current Choreonoid writes); one flow-style list per frame; numbers
that read back as exactly the same doubles (:func:`dumps` and :func:`write` take ``version=``).
"""
from __future__ import annotations

import os

import numpy as np
import yaml

from ... import transforms as tf
from ...errors import FormatError, RoboioError
from ...context import LoadContext
from ...model.body_motion import ROLES, BodyMotion, Seq
from ..fileio import as_bytes, atomic_write, fmt_float, read_bytes
from . import _seq_fast
from . import _yaml as Y
from ._sniff import sniff_seq as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "write_v4", "seq_text", "MAX_BYTES",
           "MAX_YAML_BYTES"]

MAX_BYTES = 512 << 20
"""Largest ``.seq`` file read (bytes); bigger files are refused with a FormatError (the frame
arrays and the parser's buffers need about twice the file size in memory)."""
MAX_YAML_BYTES = 32 << 20
"""Largest text given to the general YAML parser (frames in a layout the fast path does not
read, e.g. JSON or one number per line); its node tree needs ~100x the text in memory."""

SE3_WIDTH = {"XYZQWQXQYQZ": 7, "XYZQXQYQZQW": 7, "XYZRPY": 6}
_SE3_TYPES = {"MultiSE3Seq": "MultiSE3Seq", "MultiSe3Seq": "MultiSE3Seq", "MultiAffine3Seq": "MultiSE3Seq"}
_KNOWN_TYPES = ("MultiValueSeq", "MultiSE3Seq", "Vector3Seq")
# content names of the three roles per format version (spec §2.2)
_CONTENTS = {
    1: {"joint_displacement": {"JointPosition"}, "link_position": {"LinkPosition"},
        "zmp": {"ZMP", "RelativeZMP", "RelativeZmp"}},
    2: {"joint_displacement": {"JointDisplacement"}, "link_position": {"LinkPosition"},
        "zmp": {"ZMP"}},
    3: {"joint_displacement": {"MultiJointDisplacementSeq"},
        "link_position": {"MultiLinkPositionSeq"}, "zmp": {"ZMPSeq"}},
    4: {"joint_displacement": {"JointDisplacement"}, "link_position": {"LinkPosition"},
        "zmp": {"ZMP"}},
}
_ROLE_TYPE = {"joint_displacement": "MultiValueSeq", "link_position": "MultiSE3Seq",
              "zmp": "Vector3Seq"}
# keys the reader interprets (the rest of a component is kept in Seq.extra)
_CONSUMED = {"type", "content", "purpose", "frame_rate", "frameRate", "num_frames", "numFrames",
             "num_parts", "numParts", "part_labels", "partLabels", "has_frame_time",
             "hasFrameTime", "frames", "SE3Format", "format", "isRootRelative",
             "is_root_relative", "format_version", "formatVersion"}
_TOP_CONSUMED = {"type", "content", "format_version", "formatVersion", "frame_rate", "frameRate",
                 "num_frames", "numFrames", "has_frame_time", "hasFrameTime", "components"}


# -- reading ----------------------------------------------------------------------------------

def _decode(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 1 << 20 else f"{n} bytes"


def _check_size(size: int, ctx: LoadContext) -> None:
    if size > MAX_BYTES:
        raise ctx.error(f"file is {_size(size)}, more than the {_size(MAX_BYTES)} "
                        "roboio reads from a .seq file (raise roboio.formats.choreonoid.seq."
                        "MAX_BYTES if the memory is there: about 2x the file size)")


def read(path: str, ctx: LoadContext) -> BodyMotion:
    """Read a ``.seq`` file into a :class:`BodyMotion` (the size is checked before reading)."""
    _check_size(os.path.getsize(path), ctx)
    return loads(read_bytes(path, ctx), ctx)


def loads(data, ctx: LoadContext) -> BodyMotion:
    """The :class:`BodyMotion` of ``.seq`` text (see the module docstring)."""
    raw = as_bytes(data)
    _check_size(len(raw), ctx)
    path = ctx.path
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n")
    if not raw.endswith(b"\n"):
        raw += b"\n"
    blocks = _seq_fast.split_frame_blocks(raw)
    keep: set = set()
    while True:
        header = _seq_fast.cut_blocks(raw, {k: b for k, b in blocks.items() if k not in keep})
        if len(header) > MAX_YAML_BYTES:
            raise ctx.error(f"{_size(len(header))} of this file are not in the one-frame-per-line "
                            "layout Choreonoid writes, too much for the general YAML parser (limit "
                            f"roboio.formats.choreonoid.seq.MAX_YAML_BYTES = {_size(MAX_YAML_BYTES)})")
        top = Y.load(_decode(header), path, raw_keys={"frames"}, ctx=ctx)
        reader = _SeqReader(path, ctx, raw, {k: v for k, v in blocks.items() if k not in keep})
        unclaimed = reader.unclaimed_blocks(top)
        if not unclaimed:
            try:
                return reader.motion(top)
            except _Uncut as e:
                unclaimed = {e.line}
        keep |= unclaimed


class _Uncut(Exception):
    """The text cut out after the ``frames:`` key at ``line`` holds more than frame lines:
    read the file again with that text left to the YAML parser."""

    def __init__(self, line):
        self.line = line


class _SeqReader:
    def __init__(self, path, ctx, raw, blocks):
        self.path, self.ctx, self.raw, self.blocks = path, ctx, raw, blocks
        self.frame_lines: dict = {}      # id(component node) -> line of each frame (YAML path)

    def err(self, node, msg, line=None):
        return FormatError(self.path, line if line is not None else Y.line_of(node), None, msg)

    def warn(self, msg, line=None, **kind):
        self.ctx.warn(msg, line, **kind)

    # which cut-out frame blocks belong to components whose data we convert ourselves
    def unclaimed_blocks(self, top) -> set:
        claimed = set()
        comps = top.get("components") if isinstance(top, dict) else None
        if isinstance(comps, list):
            for c in comps:
                if not isinstance(c, dict) or "frames" not in c:
                    continue
                line = c.key_lines.get("frames")
                node = c["frames"]
                t = c.get("type", top.get("type"))
                if (line in self.blocks and isinstance(node, yaml.ScalarNode) and node.value == ""
                        and _SE3_TYPES.get(str(t), str(t)) in _KNOWN_TYPES):
                    claimed.add(line)
        return set(self.blocks) - claimed

    # -- top level -------------------------------------------------------------------------
    def motion(self, top) -> BodyMotion:
        if not isinstance(top, dict):
            raise self.err(top, "a .seq file must hold a YAML mapping (type, formatVersion, components, ...)", 1)
        _, vnode = Y.get_key(top, "format_version", "formatVersion")
        version = 1.0 if vnode is None else Y.to_float(vnode, self.path, "formatVersion")
        if not version < 5:
            raise self.err(vnode, f"format version {fmt_float(version)} is not supported (1 to 4)")
        v = 1 if version < 2 else min(int(version), 4)
        tnode = top.get("type")
        if tnode is None:
            raise self.err(top, "the top node has no 'type' (CompositeSeq)")
        want = "CompositeSeq" if v >= 2 else "BodyMotion"
        if Y.to_str(tnode, self.path, "type") != want:
            hint = " (formatVersion missing?)" if v == 1 and str(tnode) == "CompositeSeq" else ""
            raise self.err(tnode, f"type must be {want} for format version {fmt_float(version)}, "
                                  f"got {str(tnode)!r}{hint}")
        comps = top.get("components")
        if comps is None:
            raise self.err(top, "the top node has no 'components' list")
        Y.to_list(comps, self.path, "components")
        m = BodyMotion()
        m.format_version = version
        m.source = self.path
        rate = Y.get(top, "frame_rate", "frameRate")
        if rate is not None:
            m._frame_rate = Y.to_float(rate, self.path, "frameRate", self.warn)
        for k, val in top.items():
            if k not in _TOP_CONSUMED:
                m.extra[k] = val if not isinstance(val, yaml.Node) else Y.convert(val, self.path)
        for c in comps:
            m.components.append(self.component(Y.to_map(c, self.path, "component"), top, v))
        self.check_motion(m)
        return m

    def check_motion(self, m: BodyMotion):
        lp, jd = m.component("link_position"), m.component("joint_displacement")
        if lp is None and jd is None:
            self.warn("the motion has neither LinkPosition nor JointDisplacement components "
                      "(Choreonoid cannot load it); read as extra components only", kind="read differently")
        elif lp is not None and jd is not None and lp.num_frames != jd.num_frames:
            self.warn(f"LinkPosition has {lp.num_frames} frames but JointDisplacement has "
                      f"{jd.num_frames}; the shorter one is padded with its last frame when applied",
                      jd.line, kind="guessed")

    # -- one component ---------------------------------------------------------------------
    def component(self, c, top, v: int) -> Seq:
        own = c
        c = Y.YMap(c)
        c.line, c.key_lines = own.line, dict(own.key_lines)
        for k, val in top.items():
            if k not in c and k != "components":
                c[k] = val
        tnode = c.get("type")
        if tnode is None:
            raise self.err(own, "component has no 'type'")
        typ = Y.to_str(tnode, self.path, "type")
        content = Y.get(c, "content", "purpose") if v == 1 else c.get("content")
        content = None if content is None else Y.to_str(content, self.path, "content")
        extra = {k: (Y.convert(x, self.path) if isinstance(x, yaml.Node) else x)
                 for k, x in own.items() if k not in _CONSUMED}
        kind = _SE3_TYPES.get(typ, typ) if v == 1 else typ
        if kind not in _KNOWN_TYPES:
            self.warn(f"component type {typ!r} is not one Choreonoid reads (it reports "
                      "'Unknown type'); kept verbatim", own.line, kind="ignored")
            raw = {k: (Y.convert(x, self.path) if isinstance(x, yaml.Node) else x) for k, x in own.items()}
            return Seq(typ, content, None, extra=extra, raw=raw, line=own.line)
        role = self.role(kind, content, v, own)
        _, ftnode = Y.get_key(c, "has_frame_time", "hasFrameTime")
        if ftnode is not None and v == 1:
            raise self.err(ftnode, "hasFrameTime is not allowed in format version 1 (set formatVersion: 2)")
        has_time = False if ftnode is None else Y.to_bool(ftnode, self.path, "hasFrameTime")
        rnode = Y.get(c, "frame_rate", "frameRate")
        rate = None
        if rnode is not None:
            rate = Y.to_float(rnode, self.path, "frameRate", self.warn)
            if not rate > 0:
                raise self.err(rnode, f"frameRate must be positive, got {str(rnode)!r}")
        elif not has_time:
            raise self.err(own, "component has no frameRate (neither its own nor inherited)")
        else:
            raise self.err(own, "component with frame times has no frameRate to resample to "
                                "(Choreonoid requires one)")
        width, se3_format = 3, None
        if kind == "MultiValueSeq":
            parts = self.num_parts(c, own)
        elif kind == "MultiSE3Seq":
            parts = self.num_parts(c, own)
            se3_format = self.se3_format(c, own, v)
            width = SE3_WIDTH[se3_format]
        else:
            parts = 1
        labels = Y.get(c, "part_labels", "partLabels")
        if labels is not None:
            labels = [Y.to_str(x, self.path, "partLabels") for x in Y.to_list(labels, self.path, "partLabels")]
        frames = self.frames(c, own, kind, parts, width, has_time)
        times = None
        if has_time:
            times, frames = frames[:, 0].copy(), frames[:, 1:]
            self.check_times(times, own)
        data = frames
        if kind == "MultiSE3Seq":
            data = _canonical_se3(frames.reshape(len(frames), parts, width), se3_format)
        root_rel = False
        if kind == "Vector3Seq":
            rr = Y.get(c, "is_root_relative", "isRootRelative")
            root_rel = Y.to_bool(rr, self.path, "isRootRelative") if rr is not None else False
            if v == 1 and content in ("RelativeZMP", "RelativeZmp"):
                root_rel = True
        return Seq(kind, content, data, frame_rate=rate, times=times, role=role,
                   part_labels=labels, is_root_relative=root_rel, se3_format=se3_format,
                   extra=extra, line=own.line)

    def role(self, kind, content, v, node):
        for role, names in _CONTENTS[v].items():
            if content in names and _ROLE_TYPE[role] == kind:
                return role
        for vv, table in _CONTENTS.items():
            for role, names in table.items():
                if content in names and vv != v and _ROLE_TYPE[role] == kind:
                    self.warn(f"content {content!r} belongs to format version {vv}, not to this "
                              f"file's version {v}; kept as an extra component as Choreonoid does",
                              node.line, kind="ignored")
                    return None
        return None

    def num_parts(self, c, own):
        node = Y.get(c, "num_parts", "numParts")
        if node is None:
            raise self.err(own, "component has no numParts")
        n = Y.to_int(node, self.path, "numParts", self.warn)
        if n < 1:
            raise self.err(node, f"numParts must be at least 1, got {n}")
        return n

    def se3_format(self, c, own, v):
        node = c.get("SE3Format") if v >= 2 else c.get("format")
        if node is None:
            raise self.err(own, "MultiSE3Seq component has no " + ("SE3Format" if v >= 2 else "format"))
        f = Y.to_str(node, self.path, "SE3Format")
        if f not in SE3_WIDTH:
            raise self.err(node, f"unknown SE3Format {f!r} (expected XYZQWQXQYQZ"
                                 + (", XYZQXQYQZQW" if v < 2 else "") + " or XYZRPY)")
        if f == "XYZQXQYQZQW" and v >= 2:
            raise self.err(node, "SE3Format XYZQXQYQZQW is accepted only in format version 1 "
                                 "files (Choreonoid rejects it in version 2 and later)")
        return f

    def check_times(self, times, own):
        neg = np.flatnonzero(times < 0)
        if len(neg):
            i = int(neg[0])
            raise self.err(own, f"frame {i} has negative time {fmt_float(times[i])} "
                                "(frame times must be >= 0)", self.frame_line(own, i))
        if not np.all(np.isfinite(times)):
            i = int(np.flatnonzero(~np.isfinite(times))[0])
            raise self.err(own, f"frame {i} has time {fmt_float(times[i])}", self.frame_line(own, i))
        back = np.flatnonzero(np.diff(times) < 0)
        if len(back):
            i = int(back[0]) + 1
            self.warn(f"frame times decrease at frame {i} ({fmt_float(times[i - 1])} -> "
                      f"{fmt_float(times[i])}); Choreonoid's import lets the later sample "
                      "overwrite the earlier frame", self.frame_line(own, i), kind="invalid value")

    def frame_line(self, own, i):
        """Line of frame ``i`` of component ``own`` (one frame per line in fast blocks)."""
        lines = self.frame_lines.get(id(own))
        if lines is not None:
            return lines[i] if i < len(lines) else None
        line = own.key_lines.get("frames")
        b = self.blocks.get(line)
        return b.first_line + i if b is not None else line

    # -- frame data --------------------------------------------------------------------------
    def frames(self, c, own, kind, parts, width, has_time) -> np.ndarray:
        """(F, per_frame) array of the frame numbers (time first when has_time)."""
        node = c.get("frames")
        if node is None:
            raise self.err(own, "component has no 'frames'")
        per_frame = (parts * width if kind == "MultiSE3Seq" else (parts if kind == "MultiValueSeq" else 3)) \
            + (1 if has_time else 0)
        line = own.key_lines.get("frames")
        if 2 * per_frame > len(self.raw) + 1:
            # a header's count against the bytes present, before anything is sized by it
            pnode = Y.get(c, "num_parts", "numParts")
            raise self.err(pnode if pnode is not None else own,
                           f"numParts {parts:,} needs frames of {per_frame:,} numbers, at least "
                           f"{2 * per_frame:,} bytes each; the file has {len(self.raw):,} bytes")
        block = self.blocks.get(line)
        if block is not None and isinstance(node, yaml.ScalarNode) and node.value == "":
            self.claim_frames(block.num_lines, per_frame, line)
            sig = _seq_fast.frame_signature(kind, parts if kind != "Vector3Seq" else 3, width, has_time)

            def on_bad(frame, text):
                return self.number(text, block.first_line + frame, frame)

            out = _seq_fast.parse_block(self.raw, block, sig, per_frame, on_bad)
            if out is not None:
                if len(out) == 0:
                    raise self.err(own, "frames must not be empty", line)
                return out
            if _seq_fast.exact_end(self.raw, block) != block.end:
                raise _Uncut(line)
            text = _decode(self.raw[block.start:block.end])
            if len(text) > MAX_YAML_BYTES:
                raise self.err(own, f"frames (line {block.first_line}) are not in the one-frame-"
                                    f"per-line layout roboio reads fast, and at {_size(len(text))} "
                                    "are too large for the general YAML parser (MAX_YAML_BYTES)")
            node = Y.compose(text, self.path, block.first_line - 1, ctx=self.ctx)
            if node is None:
                raise self.err(own, "frames must not be empty", line)
            offset = block.first_line - 1
        else:
            offset = 0
        return self.generic_frames(node, own, kind, parts, width, has_time, per_frame, offset, line)

    def claim_frames(self, frames: int, per_frame: int, line) -> None:
        """The budget of a component's frame array, before it is allocated."""
        self.ctx.charge("frames", frames * per_frame, line, what=f"{frames:,} frames of {per_frame:,} values")
        self.ctx.check_claim("alloc_bytes", 8 * frames * per_frame, line, what="the frame array")

    def number(self, text, line, frame):
        r = Y.strtod(text)
        if r is None or not text.strip():
            raise FormatError(self.path, line, None,
                              f"frame {frame}: {text.strip()!r} is not a number")
        v, end = r
        if text[end:].strip():
            self.warn(f"frame {frame}: trailing characters {text[end:].strip()!r} after the "
                      "number ignored (as Choreonoid does)", line, kind="ignored")
        return v

    def generic_frames(self, node, own, kind, parts, width, has_time, per_frame, offset, key_line):
        """Frames from a PyYAML node (any YAML layout), checked like Choreonoid checks them."""
        if not isinstance(node, yaml.SequenceNode):
            if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
                raise self.err(own, "frames must not be empty", key_line)
            raise self.err(own, "frames must be a list of frames", node.start_mark.line + 1 + offset)
        items = node.value
        if not items:
            raise self.err(own, "frames must not be empty", node.start_mark.line + 1 + offset)
        self.claim_frames(len(items), per_frame, key_line)
        out = np.empty((len(items), per_frame))
        lines = []
        n_head = 1 if has_time else 0
        for i, fr in enumerate(items):
            ln = fr.start_mark.line + 1 + offset
            lines.append(ln)
            vals = self.frame_values(fr, ln, i, kind, parts, width, n_head)
            out[i] = vals
        self.frame_lines[id(own)] = lines
        return out

    def frame_values(self, fr, ln, i, kind, parts, width, n_head):
        offset = ln - fr.start_mark.line - 1          # node line -> file line

        def scalar(n, what):
            line = n.start_mark.line + 1 + offset
            if not isinstance(n, yaml.ScalarNode):
                raise FormatError(self.path, line, None,
                                  f"frame {i}: {what} must be a number, got a list or mapping")
            return self.number(n.value, line, i)

        if not isinstance(fr, yaml.SequenceNode):
            raise FormatError(self.path, ln, None, f"frame {i} must be a list")
        items = fr.value
        if kind == "MultiSE3Seq":
            if len(items) != parts + n_head:
                raise FormatError(self.path, ln, None,
                                  f"frame {i} has {len(items) - n_head} SE3 values, numParts is {parts}"
                                  + (" (plus the frame time)" if n_head else ""))
            vals = [scalar(items[0], "the frame time")] if n_head else []
            for p in items[n_head:]:
                if not isinstance(p, yaml.SequenceNode) or len(p.value) != width:
                    got = len(p.value) if isinstance(p, yaml.SequenceNode) else "a scalar"
                    raise FormatError(self.path, ln, None,
                                      f"frame {i}: each SE3 value must be a list of {width} numbers, got {got}")
                vals.extend(scalar(x, "an SE3 element") for x in p.value)
            return vals
        want = (parts if kind == "MultiValueSeq" else 3) + n_head
        if len(items) != want:
            what = f"numParts is {parts}" if kind == "MultiValueSeq" else "Vector3Seq frames hold 3"
            raise FormatError(self.path, ln, None,
                              f"frame {i} has {len(items)} values, expected {want} ({what}"
                              + (", plus the frame time)" if n_head else ")"))
        return [scalar(x, "a value") for x in items]


def _canonical_se3(p: np.ndarray, fmt: str) -> np.ndarray:
    """(F, P, 6|7) in ``fmt`` -> (F, P, 7) as x y z qw qx qy qz."""
    if fmt == "XYZQWQXQYQZ":
        return p
    out = np.empty(p.shape[:2] + (7,))
    out[..., :3] = p[..., :3]
    if fmt == "XYZQXQYQZQW":
        out[..., 3] = p[..., 6]
        out[..., 4:7] = p[..., 3:6]
    else:                                   # XYZRPY: R = Rz(yaw) Ry(pitch) Rx(roll)
        out[..., 3:7] = tf.matrix_to_quat(tf.rpy_to_matrix(p[..., 3:6]))
    return out


# -- writing -------------------------------------------------------------------------------

_KEYS = {
    2: dict(format_version="formatVersion", frame_rate="frameRate", num_frames="numFrames",
            num_parts="numParts", part_labels="partLabels", has_frame_time="hasFrameTime",
            is_root_relative="isRootRelative"),
    4: dict(format_version="format_version", frame_rate="frame_rate", num_frames="num_frames",
            num_parts="num_parts", part_labels="part_labels", has_frame_time="has_frame_time",
            is_root_relative="is_root_relative"),
}


def _ordered(components):
    """Choreonoid's order: LinkPosition, JointDisplacement, then the others by content name."""
    lp = [c for c in components if c.role == "link_position"]
    jd = [c for c in components if c.role == "joint_displacement"]
    rest = [c for c in components if c.role not in ("link_position", "joint_displacement")]
    rest.sort(key=lambda c: str(_content(c, 2) or ""))
    return lp + jd + rest


def _content(c: Seq, version: int):
    if c.role in ROLES:
        return ROLES[c.role][1]
    return c.content


def seq_text(motion: BodyMotion, version: int = 2, report=None) -> str:
    """The ``.seq`` text of ``motion`` in format version 2 (camelCase) or 4 (snake_case)."""
    if version not in (2, 4):
        raise ValueError("roboio writes .seq format version 2 or 4")
    K = _KEYS[version]
    rate = motion.frame_rate
    if not rate:    # (ValueError like every "cannot hold"; a RoboioError: a clean refusal)
        raise RoboioError("a .seq needs a frame rate and this motion has none (its components "
                          "were read without one)")
    out = ["type: CompositeSeq\n", "content: BodyMotion\n",
           f"{K['format_version']}: {version}\n", f"{K['frame_rate']}: {fmt_float(rate)}\n",
           f"{K['num_frames']}: {motion.num_frames}\n"]
    if motion.extra:
        out.append(Y.emit(motion.extra))
    out.append("components:\n")
    for c in _ordered(motion.components):
        out.append("  -\n")
        if c.data is None:
            out.append(Y.emit(c.raw or {"type": c.type}, indent=4))
            continue
        out.append(_component_text(c, version, K, rate, report))
    return "".join(out)


def _component_text(c: Seq, version, K, rate, report) -> str:
    pad = "    "
    content = _content(c, version)
    lines = [f"{pad}type: {c.type}\n"]
    if content is not None:
        lines.append(f"{pad}content: {Y.scalar_text(content)}\n")
    lines.append(f"{pad}{K['frame_rate']}: {fmt_float(c.frame_rate or rate)}\n")
    lines.append(f"{pad}{K['num_frames']}: {c.num_frames}\n")
    F = c.num_frames
    timed = c.times is not None
    if c.type == "MultiSE3Seq":
        P = c.data.shape[1]
        lines.append(f"{pad}{K['num_parts']}: {P}\n")
        lines.append(f"{pad}SE3Format: XYZQWQXQYQZ\n")
        if c.se3_format not in (None, "XYZQWQXQYQZ") and report is not None:
            report.warn(f"link positions read as {c.se3_format} are written as XYZQWQXQYQZ", kind="restructured")
        values = c.data.reshape(F, P * 7)
        seps = [", [ "] if timed else []
        for p in range(P):
            seps += ([" ], [ "] if p else []) + [", "] * 6
        pieces = ["      - [ " + ("" if timed else "[ ")] + seps + [" ] ]\n"]
    elif c.type == "MultiValueSeq":
        P = c.data.shape[1]
        lines.append(f"{pad}{K['num_parts']}: {P}\n")
        values = c.data
        pieces = ["      - [ "] + [", "] * (P - 1 + timed) + [" ]\n"]
    else:
        values = c.data
        pieces = ["      - [ "] + [", "] * (2 + timed) + [" ]\n"]
        if c.is_root_relative:
            lines.append(f"{pad}{K['is_root_relative']}: true\n")
    if c.part_labels is not None:
        lines.append(f"{pad}{K['part_labels']}: [ " + ", ".join(Y.scalar_text(s) for s in c.part_labels) + " ]\n")
    if timed:
        lines.append(f"{pad}{K['has_frame_time']}: true\n")
        values = np.concatenate([c.times[:, None], values], axis=1)
    if c.extra:
        lines.append(Y.emit(c.extra, indent=4))
    lines.append(f"{pad}frames:\n")
    if F:
        lines.append(_seq_fast.format_frames(values, pieces))
    return "".join(lines)


def dumps(motion: BodyMotion, report=None, path=None, version: int = 2) -> str:
    """The ``.seq`` text of ``motion``, format version 2 (default) or 4."""
    if not isinstance(motion, BodyMotion):
        raise TypeError(f"expected a BodyMotion, got {type(motion).__name__}")
    return seq_text(motion, version, report)


def write(motion: BodyMotion, path: str, report=None, version: int = 2) -> None:
    """Write ``motion`` to ``path`` atomically, in format version 2 (default) or 4."""
    atomic_write(path, dumps(motion, report, path, version))


def write_v4(motion: BodyMotion, path: str, report=None) -> None:
    """Format version 4 (snake_case keys, as current Choreonoid writes)."""
    write(motion, path, report, version=4)
