"""Klamp't ``.rob`` logical lines -> records (:mod:`._records`).

Nothing here knows about kinematics: each keyword line is read with the number flavour
Klamp't uses for it and appended to its record. List keywords accumulate over lines
(``q`` and ``qdeg`` share one list, ``inertia`` and ``inertiaDiag`` too); the link count,
sizes and defaults are decided later by :mod:`._build`.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ....context import LoadContext
from ._lexer import LexError, LogicalLine, Scanner
from ._records import (DriverRec, GeomTransformRec, JointRec, ListRecord, MountRec, Occurrence,
                       PairRec, PropertyRec, RobRecords, Scalar)

__all__ = ["parse_records", "is_keyword"]

_DEG = math.pi / 180.0

# keyword -> (record, reader, conversion). Readers: "safe" (F), "stream" (S), "int" (I),
# "qstring" (Q). Conversion "deg" multiplies every value by pi/180; "degq" is the
# qmindeg/qmaxdeg rule (no conversion where jointtype already said "p").
_LIST_KEYWORDS = {
    "parents": ("parents", "int", None), "links": ("links", "qstring", None),
    "drivers": ("drivers", "qstring", None), "geometry": ("geometry", "qstring", None),
    "collision": ("collision", "qstring", None), "nocollision": ("nocollision", "qstring", None),
    "q": ("q", "safe", None), "qdeg": ("q", "safe", "deg"),
    "qmin": ("qmin", "safe", None), "qmindeg": ("qmin", "safe", "degq"),
    "qmax": ("qmax", "safe", None), "qmaxdeg": ("qmax", "safe", "degq"),
    "velmax": ("velmax", "safe", None), "velmaxdeg": ("velmax", "safe", "deg"),
    "velmin": ("velmin", "safe", None), "velmindeg": ("velmin", "safe", "deg"),
    "accmax": ("accmax", "safe", None), "accmaxdeg": ("accmax", "safe", "deg"),
    "torquemax": ("torquemax", "safe", None), "powermax": ("powermax", "safe", None),
    "servop": ("servop", "stream", None), "servoi": ("servoi", "stream", None),
    "servod": ("servod", "stream", None), "dryfriction": ("dryfriction", "stream", None),
    "viscousfriction": ("viscousfriction", "stream", None),
    "alpha": ("alpha", "stream", None), "alphadeg": ("alpha", "stream", "deg"),
    "a": ("a", "stream", None), "d": ("d", "stream", None),
    "theta": ("theta", "stream", None), "thetadeg": ("theta", "stream", "deg"),
    "mass": ("mass", "stream", None), "geomscale": ("geomscale", "stream", None),
    "geommargin": ("geommargin", "stream", None),
}
_GROUP_KEYWORDS = {"tparent": 12, "axis": 3, "com": 3, "inertiadiag": 3, "inertia": 9}
_SCALAR_KEYWORDS = {"translation": 3, "rotation": 9, "scale": 1, "autotorque": 1}


def is_keyword(word: str) -> bool:
    """Whether ``word`` is a .rob keyword (any case)."""
    w = word.lower()
    return (w in _LIST_KEYWORDS or w in _GROUP_KEYWORDS or w in _SCALAR_KEYWORDS
            or w in ("jointtype", "automass", "selfcollision", "noselfcollision")
            or hasattr(_LineParser, "kw_" + w))


class _LineParser:
    """Parses one logical line into ``records``; errors are located FormatErrors."""

    def __init__(self, ll: LogicalLine, records: RobRecords, ctx: LoadContext):
        self.ll = ll
        self.rec = records
        self.ctx = ctx
        self.sc = Scanner(ll.text)

    def error(self, message: str, pos: Optional[int] = None):
        line = self.ll.line if pos is None else self.ll.line_at(pos)
        return self.ctx.error(message, line)

    def warn(self, message: str, pos: Optional[int] = None, **kind):
        line = self.ll.line if pos is None else self.ll.line_at(pos)
        self.ctx.warn(message, line, **kind)

    def warn_trailing(self, spelled: str, what: str = "ignored"):
        """Warn about text left on the line after the values Klamp't reads."""
        if not self.sc.failed:
            self.sc.skip_ws()
        rest = self.sc.remainder()
        if rest:
            pos = self.sc.fail_pos if self.sc.fail_pos is not None else self.sc.pos
            self.warn(f"{spelled}: text {_clip(rest)!r} after the values is {what}, as Klamp't does", pos,
                      kind="ignored")

    # -- dispatch -----------------------------------------------------------------------
    def parse(self) -> None:
        spelled = self.sc.word()
        if spelled is None:
            return                      # blank or comment-only line
        key = spelled.lower()
        if self.rec.first_line is None:
            self.rec.first_line = self.ll.line
        try:
            if key in _LIST_KEYWORDS:
                self.list_keyword(key, spelled)
            elif key in _GROUP_KEYWORDS:
                self.group_keyword(key, spelled)
            elif key == "jointtype":
                self.jointtype(spelled)
            elif key in _SCALAR_KEYWORDS:
                self.scalar(key, spelled)
            elif key == "automass":
                # bare "automass" keeps an earlier surface fraction (default 1)
                v = self.sc.stream_float()
                old = self.rec.scalars.get("automass")
                sf = v if v is not None else (old.value if old is not None else 1.0)
                self.warn_trailing(spelled)
                self.rec.scalars["automass"] = Scalar(sf, self.ll.line, spelled)
            elif key in ("selfcollision", "noselfcollision"):
                self.pairs(key, spelled)
            else:
                handler = getattr(self, "kw_" + key, None)
                if handler is None:
                    raise self.error(f"unknown keyword {spelled!r} (Klamp't rejects the file: "
                                     f"\"Invalid robot property\")")
                handler(spelled)
        except LexError as e:
            raise self.error(f"{spelled}: {e.message}", e.pos) from None

    # -- list keywords ------------------------------------------------------------------
    def list_keyword(self, key: str, spelled: str) -> None:
        name, reader, conv = _LIST_KEYWORDS[key]
        rec = self.rec.list(name)
        read = {"safe": self.sc.safe_float, "stream": self.sc.stream_float,
                "int": self.sc.int_, "qstring": self.sc.qstring}[reader]
        start = len(rec.items)
        while True:
            v = read()
            if v is None:
                break
            rec.items.append(v)
        if conv == "deg":
            rec.items[start:] = [v * _DEG for v in rec.items[start:]]
        elif conv == "degq":
            # qmindeg/qmaxdeg: the k-th value *of this line* stays unconverted if jointtype
            # entry k was already read as "p" when the line is parsed (spec §3.5; the
            # index counts from the line's start, as measured with klampt 0.10.1)
            jt = self.rec.values("jointtype")
            rec.items[start:] = [v if (k < len(jt) and jt[k] == "p") else v * _DEG
                                 for k, v in enumerate(rec.items[start:])]
        self._occurrence(rec, spelled, len(rec.items) - start, 0)

    def group_keyword(self, key: str, spelled: str) -> None:
        k = _GROUP_KEYWORDS[key]
        rec = self.rec.list("inertia" if key == "inertiadiag" else key)
        nums = []
        while True:
            v = self.sc.stream_float()
            if v is None:
                break
            nums.append(v)
        n_items = len(nums) // k
        for g in range(n_items):
            vals = nums[g * k:(g + 1) * k]
            if key == "tparent":
                T = np.eye(4)
                T[:3, :3] = np.reshape(vals[:9], (3, 3))      # rotation row by row
                T[:3, 3] = vals[9:]
                rec.items.append(T)
            elif key == "inertiadiag":
                rec.items.append(np.diag(vals))
            elif key == "inertia":
                rec.items.append(np.reshape(vals, (3, 3)).T)   # three column vectors
            else:
                rec.items.append(np.array(vals, dtype=float))
        self._occurrence(rec, spelled, n_items, len(nums) - n_items * k)

    def _occurrence(self, rec: ListRecord, spelled: str, items: int, leftover: int) -> None:
        stopped = stop_line = None
        if self.sc.failed:
            stopped = self.sc.next_token_text() or None
            stop_line = self.ll.line_at(self.sc.fail_pos)
        rec.occurrences.append(Occurrence(self.ll.line, spelled, items, leftover, stopped, stop_line))

    def jointtype(self, spelled: str) -> None:
        rec = self.rec.list("jointtype")
        start = len(rec.items)
        while True:
            at = self.sc.pos
            w = self.sc.word()
            if w is None:
                break
            if w not in ("r", "p"):
                raise self.error(f"{spelled}: invalid joint type {w!r} (expected 'r' or 'p', "
                                 f"lower case)", at)
            rec.items.append(w)
        rec.occurrences.append(Occurrence(self.ll.line, spelled, len(rec.items) - start))

    def scalar(self, key: str, spelled: str) -> None:
        k = _SCALAR_KEYWORDS[key]
        nums = []
        while len(nums) < k:
            v = self.sc.stream_float()
            if v is None:
                break
            nums.append(v)
        if key == "scale" and nums != [1.0]:
            raise self.error(f"{spelled}: whole-robot scaling is not implemented in Klamp't (any "
                             f"value other than 1 aborts it); use geomscale and scaled tparent")
        if key == "autotorque" and not nums:
            nums = [0.0]                # C++ reads a failed number as 0: autotorque off
        if len(nums) < k:
            what = f"{k} numbers" if k > 1 else "a number"
            raise self.error(f"{spelled} expects {what}, got {len(nums)}"
                             + _stop_note(self.sc))
        self.warn_trailing(spelled)
        value = nums[0] if k == 1 else np.array(nums)
        self.rec.scalars[key] = Scalar(value, self.ll.line, spelled)

    def pairs(self, key: str, spelled: str) -> None:
        out = getattr(self.rec, key)
        while True:
            a = self.sc.qstring()
            if a is None:
                break
            b = self.sc.qstring()
            if b is None:
                self.warn(f"{spelled}: odd trailing item {a!r} ignored (items come in pairs)", kind="invalid value")
                break
            out.append(PairRec(a, b, self.ll.line))

    # -- structured keywords ------------------------------------------------------------
    def kw_geomtransform(self, spelled: str) -> None:
        idx = self.sc.int_()
        nums = []
        while idx is not None and len(nums) < 16:
            v = self.sc.stream_float()
            if v is None:
                break
            nums.append(v)
        if idx is None or len(nums) < 16:
            got = "no link index" if idx is None else f"{len(nums)} numbers"
            raise self.error(f"{spelled} expects a link index and 16 numbers (a 4x4 matrix, "
                             f"row by row), got {got}" + _stop_note(self.sc))
        self.warn_trailing(spelled)
        self.rec.geomtransforms.append(GeomTransformRec(idx, np.reshape(nums, (4, 4)), self.ll.line))

    def kw_joint(self, spelled: str) -> None:
        t = self.sc.word()
        if t is None:
            self.warn(f"{spelled}: line without a joint type ignored, as Klamp't does", kind="invalid value")
            return
        t = t.lower()
        if t in ("normal", "weld", "spin"):
            link = self.sc.int_()
            if link is None:
                self.warn(f"{spelled} {t}: no link index; line ignored, as Klamp't does", kind="invalid value")
                return
            base = -1
        elif t in ("floating", "floatingplanar", "ballandsocket"):
            link = self.sc.int_()
            if link is None or link <= 0:
                raise self.error(f"{spelled} {t}: the link index must be an integer > 0, got "
                                 f"{self.sc.next_token_text() if link is None else link!r}")
            base = self.sc.int_()
            if base is None:
                base = -1
                self.sc.failed = False
                self.sc.pos = self.sc.fail_pos
                self.sc.fail_pos = None
        else:
            raise self.error(f"{spelled}: invalid joint type {t!r} (expected normal, spin, "
                             f"weld, floating, floatingplanar or ballandsocket)")
        self.warn_trailing(f"{spelled} {t}")
        self.rec.joints.append(JointRec(t, link, base, self.ll.line))

    def kw_driver(self, spelled: str) -> None:
        sc = self.sc
        t = sc.word()
        if t not in ("normal", "affine", "translation", "rotation"):
            if t is None:
                raise self.error(f"{spelled}: missing driver type")
            raise self.error(f"{spelled}: invalid driver type {t!r} (expected normal, affine, "
                             f"translation or rotation, lower case)")
        line = self.ll.line
        if t == "normal":
            l = sc.int_()
            if l is None:
                raise self.error(f"{spelled} normal expects a link index" + _stop_note(sc))
            rec = DriverRec(t, [l], line)
        elif t in ("translation", "rotation"):
            l, b = sc.int_(), sc.int_()
            if b is None:
                raise self.error(f"{spelled} {t} expects two link indices (the driven DOF and "
                                 f"the link receiving the force)" + _stop_note(sc))
            rec = DriverRec(t, [l], line, force_link=b)
        else:
            k = sc.int_()
            if k is None or k <= 0:
                raise self.error(f"{spelled} affine expects a positive number of links, got "
                                 f"{sc.next_token_text() if k is None else k!r}")
            dofs = [sc.int_() for _ in range(k)]
            scale = [sc.stream_float() for _ in range(k)]
            offset = [sc.stream_float() for _ in range(k)]
            limits = [sc.safe_float() for _ in range(6)]
            if sc.failed:
                raise self.error(
                    f"{spelled} affine {k} expects {k} link indices, {k} scales, {k} offsets and "
                    f"6 limits (qmin qmax vmin vmax tmin tmax)" + _stop_note(sc))
            rec = DriverRec(t, dofs, line, scale, offset, tuple(limits))
        self.warn_trailing(f"{spelled} {t}")
        self.rec.drivers.append(rec)

    def kw_mount(self, spelled: str) -> None:
        sc = self.sc
        link = sc.qstring()
        path = sc.qstring()
        if link is None or path is None:
            raise self.error(f"{spelled} expects a link and a file name")
        T = np.eye(4)
        nums = []
        while len(nums) < 12:
            v = sc.stream_float()
            if v is None:
                break
            nums.append(v)
        if len(nums) == 12:
            T[:3, :3] = np.reshape(nums[:9], (3, 3))
            T[:3, 3] = nums[9:]
        else:
            if nums:
                self.warn(f"{spelled}: transform has {len(nums)} numbers, not 12; Klamp't "
                          f"uses the identity", sc.fail_pos, kind="invalid value")
            sc.failed = False           # Klamp't clears the stream and reads on
            sc.pos = sc.fail_pos if sc.fail_pos is not None else sc.pos
            sc.fail_pos = None
        name = ""
        if not sc.at_end():
            op_at = sc.pos
            op = sc.word()
            if op == "as":
                n = sc.qstring()
                if n is None:
                    self.warn(f"{spelled}: 'as' without a name ignored", kind="invalid value")
                else:
                    name = n
            else:
                sc.pos = op_at
        self.warn_trailing(spelled)
        self.rec.mounts.append(MountRec(link, path, T, name, self.ll.line))

    def kw_property(self, spelled: str) -> None:
        name = self.sc.qstring()
        if name is None:
            raise self.error(f"{spelled} expects a name and a value")
        self.rec.properties.append(PropertyRec(name, self.sc.rest(), self.ll.line))


def _clip(s: str, n: int = 40) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


def _stop_note(sc: Scanner) -> str:
    tok = sc.next_token_text() if sc.failed else ""
    return f" (reading stopped at {_clip(tok)!r}, not a number)" if tok else ""


def parse_records(lines: list, ctx: LoadContext) -> RobRecords:
    """Read every logical line into :class:`RobRecords` (unknown keyword -> FormatError)."""
    rec = RobRecords()
    for ll in lines:
        _LineParser(ll, rec, ctx).parse()
    return rec
