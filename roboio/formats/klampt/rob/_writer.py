"""Robot -> Klamp't ``.rob`` text (spec klampt.md §3.16, §10.1, §10.6).

Everything is written explicitly, in radians, with full-precision numbers, so that Klamp't
and roboio read back the same model: link transforms (the base transform and mounts are
already folded in), axes, joint types, configuration, every limit (``velmin`` and
``accmax`` included), masses (inertia written column by column, as Klamp't reads it),
geometry (references rewritten relative to the new file, scale and placement as
``geomtransform``, merged geometry as geometry ``mount`` lines), joints, drivers with their
names and gains, the self-collision pair set, and properties. What a ``.rob`` cannot hold
goes to ``report.lose``.
"""
from __future__ import annotations

import math

import numpy as np

from ....errors import OutputError
from ....limits import check_alloc
from ....model import Group, Primitive, Robot
from ....transforms import compose, det3
from ...fileio import fmt_float
from ...naming import Namespace
from .._geometry_refs import GeometryWriter
from ._build import MULTI_DOF, affine_acc_limits
from ._lexer import file_extension
from ..geometry.stream import bake_primitive, primitive_text

__all__ = ["rob_text"]

_PER_LINE = 10       # scalar values per physical line in long lists


def rob_text(robot: Robot, path: str, report) -> str:
    """The ``.rob`` text of ``robot`` as it will be stored at ``path`` (references to
    geometry files are made relative to ``path``'s directory)."""
    return _Writer(robot, path, report).text()


def _ints(values) -> str:
    return " ".join(str(int(v)) for v in values)


class _Writer:
    def __init__(self, robot: Robot, path: str, report):
        self.r = robot
        self.path = path
        self.report = report
        self.out: list[str] = []
        protected = [robot.source] if robot.source else []
        self.geom_writer = GeometryWriter(report, protected)

    # -- helpers ------------------------------------------------------------------------
    def finite(self, values, what: str) -> list:
        """Values for a stream-number keyword, which cannot hold inf/nan."""
        vals = [float(v) for v in np.ravel(values)]
        if not all(math.isfinite(v) for v in vals):
            raise OutputError(None, f"cannot write {what} to a .rob: it holds non-finite values "
                             f"({vals}), which Klamp't cannot read there")
        return vals

    def emit_list(self, keyword: str, items: list, per_line: int = _PER_LINE) -> None:
        """``keyword`` and its items (strings), ``per_line`` to a continued line."""
        if not items:
            return
        chunks = [" ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        self.out.append(f"{keyword}\t" + " \\\n\t".join(chunks))

    def names(self, items, kind: str) -> list:
        """Quoted link or driver names: what a .rob cannot quote becomes ``_``
        (``report.renamed[kind]``; a .rob holds a name several times)."""
        got = Namespace(self.report, kind, quotable, unique=False).assign(
            [n or None for n in items], [""] * len(items))
        return [f'"{t}"' for t in got]

    # -- sections -----------------------------------------------------------------------
    def text(self) -> str:
        r = self.r
        if r.num_links == 0:
            raise OutputError(None, "cannot write a robot without links to a .rob file")
        # (no robot name: a .rob holds none, Klamp't names the robot after the file, and a
        # rewrite of what is read back must give the same text)
        self.out.append("# Klamp't robot, written by roboio")
        self.structure()
        self.limits()
        self.masses()
        self.geometry()
        self.joints()
        self.drivers()
        self.self_collision()
        self.properties()
        for l in r.links:
            if not l.appearance.is_default():
                self.report.lose("appearance (a .rob has no colours)", l.name, kind="not written",
                                 noun="link")
            if l.visual_geometry is not None:
                self.report.lose("separate visual geometry (a .rob has one geometry per link, the "
                                 "collision geometry)", l.name, kind="not written", noun="link")
        # a .rob names links and drivers: a moving joint's name lives on as its driver's,
        # the others (fixed joints, mimic followers; addressed by their link names) are said
        kept = {d.name for d in r.drivers}
        gone = [f"{l.joint_name} ({l.name})" for l in r.links
                if l.joint_name and l.joint_name not in kept and l.joint_name != l.name]
        for name in gone:
            self.report.warn("joint names a .rob cannot hold (it names links and drivers; these "
                             "joints are addressed by their links' names)", name,
                             kind="not written", noun="joint")
        self.geom_writer.finish()
        return "\n".join(self.out) + "\n"

    def structure(self) -> None:
        r = self.r
        self.emit_list("links", self.names([l.name for l in r.links], "links"))
        self.emit_list("parents", [str(int(p)) for p in r.parents])
        self.emit_list("jointtype", ["p" if l.is_prismatic else "r" for l in r.links])
        rows = []
        for l in r.links:
            T = np.asarray(l.parent_transform, dtype=float)
            if np.any(T[3] != (0, 0, 0, 1)):
                raise OutputError(None, f"link {l.name!r}: parent_transform is not a rigid transform")
            R = self.finite(T[:3, :3], f"link {l.name!r} parent transform")
            t = self.finite(T[:3, 3], f"link {l.name!r} parent transform")
            rows.append("   ".join(" ".join(fmt_float(x) for x in R[3 * k:3 * k + 3])
                                   for k in range(3)) + "   " + " ".join(map(fmt_float, t)))
        self.emit_list("Tparent", rows, 1)
        self.emit_list("axis", [" ".join(map(fmt_float, self.finite(l.axis, f"link {l.name!r} axis")))
                                for l in r.links], 4)

    def limits(self) -> None:
        r = self.r
        for kw, arr in (("q", r.config), ("qmin", r.qmin), ("qmax", r.qmax), ("velmin", r.vmin),
                        ("velmax", r.vmax), ("accmax", r.amax), ("torquemax", r.tmax),
                        ("powermax", r.pmax)):
            self.emit_list(kw, [fmt_float(x) for x in arr])

    def masses(self) -> None:
        r = self.r
        self.emit_list("mass", [fmt_float(x) for x in self.finite([l.mass for l in r.links], "masses")])
        self.emit_list("com", [" ".join(map(fmt_float, self.finite(l.com, f"link {l.name!r} com")))
                               for l in r.links], 1)
        # Klamp't reads the 9 numbers as three columns: write the columns
        self.emit_list("inertia", [" ".join(map(fmt_float, self.finite(
            np.asarray(l.inertia).T, f"link {l.name!r} inertia"))) for l in r.links], 1)

    # -- geometry -----------------------------------------------------------------------
    def geometry(self) -> None:
        r = self.r
        refs, margins, gtrans, mounts = [], [], [], []
        scales = [1.0] * r.num_links
        self.has_geom = []
        for l in r.links:
            parts = self._parts(l.geometry, np.eye(4), f"link {l.name!r} geometry")
            written = []
            for g, T in parts:
                ref, T = self._reference(g, T, f"link {l.name!r} geometry")
                if ref and ("#" in ref or '"' in ref or "\n" in ref):
                    self.report.lose(f"link {l.name!r}: geometry reference {ref!r} cannot be "
                                     "written in a .rob ('#', '\"' or a line break)", kind="not written")
                    continue
                if ref:
                    written.append((ref.replace("\n", " "), T))
            self.has_geom.append(bool(written))
            g0 = l.geometry
            margins.append(g0.margin if g0 is not None else 0.0)
            if not written:
                refs.append('""')
                continue
            (ref0, T0), rest = written[0], written[1:]
            if file_extension(ref0) in ("rob", "urdf") and not ref0.startswith("{"):
                self.report.lose(f"link {l.name!r}: geometry file {ref0!r} has a robot "
                                 "extension Klamp't would not load as geometry", kind="read differently")
            refs.append(f'"{ref0}"')
            s = T0[0, 0]
            if np.array_equal(T0, np.diag([s, s, s, 1.0])):
                scales[l.index] = s
            else:
                gtrans.append((l.index, T0))
            for ref, T in rest:
                if not _is_rigid(T):
                    self.report.lose(f"link {l.name!r}: a merged geometry part {ref!r} is "
                                     "scaled or sheared; a .rob mount takes a rigid transform",
                                     kind="not written")
                    continue
                if file_extension(ref) in ("rob", "urdf"):
                    self.report.lose(f"link {l.name!r}: merged geometry {ref!r} cannot be "
                                     "mounted (its extension makes it a robot mount)", kind="not written")
                    continue
                mounts.append((l.index, ref, T))
        self.emit_list("geometry", refs, 1)
        if any(x != 1 for x in scales):
            self.emit_list("geomscale", [fmt_float(x) for x in self.finite(scales, "geometry scales")])
        if any(m != 0 for m in margins):
            self.emit_list("geommargin", [fmt_float(m) for m in self.finite(margins, "geometry margins")])
        for i, M in gtrans:
            vals = self.finite(M, f"link {i} geometry transform")
            self.out.append(f"geomtransform\t{i}\t" + "   ".join(
                " ".join(map(fmt_float, vals[4 * k:4 * k + 4])) for k in range(4)))
        for i, ref, T in mounts:
            vals = self.finite(T[:3, :3], "mount rotation") + self.finite(T[:3, 3], "mount translation")
            self.out.append(f'mount\t{i} "{ref}"\t' + " ".join(map(fmt_float, vals)))

    def _reference(self, g, T, what: str) -> tuple:
        """(reference as written in this file, data->link transform) for one part: a
        primitive without a file becomes inline text (placement baked in when it stays a
        primitive), a missing file keeps its reference (rewritten relative to this file),
        anything else is referenced or written by the shared GeometryWriter."""
        src = g.source
        if isinstance(g, Primitive) and (src is None or (not src.path and src.format != "inline")):
            baked = bake_primitive(g, T)
            for p, M in ((baked, np.eye(4)), (g, T if _is_rigid(T) else None)):
                if p is not None and M is not None:
                    try:
                        return "{Primitive " + primitive_text(p) + "}", M
                    except ValueError:      # a kind Klamp't has no text form for
                        pass
        if g.missing:
            # Klamp't refuses a .rob whose geometry file it cannot load: no reference at all
            ref = src.reference if src is not None else "?"
            self.report.lose("geometry whose file was not found on reading (written without "
                             "geometry; Klamp't refuses a robot file naming a missing mesh)",
                             f"{what} ({ref})", kind="missing file")
            return "", T
        return self.geom_writer.data_reference(g, self.path, what, allow_none=True), T

    def _parts(self, g, T, what: str) -> list:
        """(geometry, data->link transform) of every part written for ``g``: the geometry
        itself when it has a file (or inline text, or can be written to a new file), else
        the parts of a group."""
        if g is None:
            return []
        M = compose(T, np.asarray(g.transform, dtype=float))
        if isinstance(g, Group) and (g.source is None or not g.source.path):
            out = []
            for c in g.children:
                out += self._parts(c, M, what)
            return out
        # cylinders, capsules, cones: meshes (Klamp't cannot collide them as primitives)
        return [(self.geom_writer.collidable(g, what), M)]

    # -- joints, drivers ----------------------------------------------------------------
    def joints(self) -> None:
        r = self.r
        if not r.joints:
            self.report.warn("the robot has no joint groups; Klamp't will give every link a "
                             "default one (weld or normal)", kind="target default")
            return
        parents = r.parents
        for j in r.joints:
            if j.type in MULTI_DOF:
                chain, k = [], j.links[-1]
                while k != j.base and k >= 0:
                    chain.append(k)
                    k = int(parents[k])
                if chain[::-1] != list(j.links) or k != j.base or len(chain) != MULTI_DOF[j.type]:
                    self.report.lose(f"{j.type} joint over links {j.links} (a .rob needs the "
                                     f"{MULTI_DOF[j.type]} links from the base down a chain)",
                                     kind="not written")
                    continue
                self.out.append(f"joint {j.type} {j.links[-1]} {j.base}")
            else:
                for k in j.links:
                    self.out.append(f"joint {j.type} {k}")

    def drivers(self) -> None:
        r = self.r
        if not r.drivers:
            if any(j.type in ("normal", "spin") for j in r.joints) or not r.joints:
                self.report.warn("the robot has no drivers; Klamp't will create one per "
                                 "normal or spin joint", kind="target default")
            return
        self.emit_list("drivers", self.names([d.name for d in r.drivers], "joints"))
        for d in r.drivers:
            self.out.append(self.driver_line(d))
        for kw, attr in (("servoP", "servo_p"), ("servoI", "servo_i"), ("servoD", "servo_d"),
                         ("dryFriction", "dry_friction"), ("viscousFriction", "viscous_friction")):
            vals = []
            for d in r.drivers:
                v = float(getattr(d, attr))
                if not (math.isfinite(v) and v >= 0):
                    self.report.lose(f"driver {d.name!r}: {attr} {v!r} (Klamp't needs a finite "
                                     "value >= 0); written as 0", kind="changed")
                    v = 0.0
                vals.append(fmt_float(v))
            self.emit_list(kw, vals)

    def driver_line(self, d) -> str:
        r = self.r
        if d.type == "affine":
            k = len(d.dofs)
            scale = self.finite(d.scale, f"driver {d.name!r} scales")
            offset = self.finite(d.offset, f"driver {d.name!r} offsets")
            amin, amax = affine_acc_limits(scale, [r.amax[i] for i in d.dofs])
            if not (_same(d.amin, amin) and _same(d.amax, amax)):
                self.report.lose(f"driver {d.name!r}: acceleration limits [{d.amin}, {d.amax}] "
                                 "(Klamp't derives them from the links' accmax)", kind="not written")
            return (f"driver affine {k}\t{_ints(d.dofs)}\t{' '.join(map(fmt_float, scale))}\t"
                    f"{' '.join(map(fmt_float, offset))}\t" + " ".join(
                        fmt_float(v) for v in (d.qmin, d.qmax, d.vmin, d.vmax, d.tmin, d.tmax)))
        L = d.dofs[0]
        link = dict(qmin=r.qmin[L], qmax=r.qmax[L], vmin=r.vmin[L], vmax=r.vmax[L],
                    tmin=-r.tmax[L], tmax=r.tmax[L], amin=-r.amax[L], amax=r.amax[L])
        differ = [k for k, v in link.items() if not _same(getattr(d, k), v)]
        if differ:
            self.report.lose(f"driver {d.name!r}: limits {', '.join(differ)} differ from link "
                             f"{L}'s (a .rob {d.type} driver takes the link's limits)", kind="not written")
        if d.type == "normal":
            if len(d.dofs) > 1:
                self.report.lose(f"driver {d.name!r}: a normal driver moves one link only", kind="not written")
            return f"driver normal {L}"
        if d.force_link < 0:
            raise OutputError(None, f"driver {d.name!r}: a {d.type} driver needs the link that "
                             "receives the force (force_link)")
        return f"driver {d.type} {L} {d.force_link}"

    # -- self-collision -----------------------------------------------------------------
    def self_collision(self) -> None:
        r = self.r
        has = self.has_geom
        parents = r.parents
        # Klamp't's default: every pair of links with geometry but a parent and its child
        # (built over the links with geometry only: a robot of 20,000 bare links is no
        # 200-million-pair loop; a robot of thousands of links with geometry asks for the set)
        geo = [i for i in range(r.num_links) if has[i]]
        check_alloc(len(geo) * (len(geo) - 1) / 2 * 120.0, f"the self-collision pairs of {len(geo):,} "
                    "links with geometry")
        default = {(i, j) for a, j in enumerate(geo) for i in geo[:a]
                   if parents[j] != i and parents[i] != j}
        wanted = set()
        for i, j in r.self_collision_pairs:
            i, j = min(i, j), max(i, j)
            if has[i] and has[j]:
                wanted.add((i, j))
            else:
                self.report.lose("self-collision pairs of a link without geometry",
                                 f"({r.link_names[i]!r}, {r.link_names[j]!r})", kind="not written",
                                 noun="pair")
        if wanted == default:
            return
        if wanted <= default:
            self._pairs("noselfcollision", default - wanted)
        else:
            self._pairs("selfcollision", wanted)

    def _pairs(self, kw: str, pairs: set) -> None:
        by_first: dict = {}
        for i, j in sorted(pairs):
            by_first.setdefault(i, []).append(f"{i} {j}")
        for items in by_first.values():
            self.out.append(f"{kw}\t" + "   ".join(items))

    # -- properties ---------------------------------------------------------------------
    def properties(self) -> None:
        for name, value in self.r.properties.items():
            name = str(name)
            value = "" if value is None else str(value)
            if not name or any(c in name for c in ' \t"#\n\r\\'):
                self.report.lose(f"property {name!r}: the name cannot be written in a .rob", kind="not written")
                continue
            text = _escape_value(value.strip())
            first = text.split(None, 1)[0] if text.split() else ""
            if name in ("sensors", "controller") and file_extension(first) == "xml":
                self.report.lose(f"property {name!r}: its value would be read as an XML file name",
                                 kind="not written")
                continue
            self.out.append(f"property {name} {text}")


def quotable(s: str) -> str:
    """``s`` as a .rob can quote it: ``"``, ``#`` and line breaks, and a trailing
    backslash, become ``_``."""
    t = "".join("_" if c in '"#\n\r' else c for c in s)
    return t[:-1] + "_" if t.endswith("\\") else t


def _escape_value(v: str) -> str:
    """An unquoted property value that Klamp't's escape translation turns back into ``v``
    (backslashes, line breaks, ``#`` and a leading quote escaped)."""
    out = v.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("#", "\\#")
    if out.startswith('"'):
        out = "\\" + out
    return out


def _same(a, b) -> bool:
    a, b = float(a), float(b)
    return a == b or (math.isnan(a) and math.isnan(b))


def _is_rigid(T, tol: float = 1e-12) -> bool:
    T = np.asarray(T, dtype=float)
    R = T[:3, :3]
    return (np.all(T[3] == (0, 0, 0, 1)) and np.abs(compose(R.T, R) - np.eye(3)).max() <= tol
            and det3(R) > 0)
