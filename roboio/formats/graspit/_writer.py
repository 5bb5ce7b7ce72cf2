"""Model -> GraspIt! files that GraspIt! reads back with the same kinematics.

* **Bodies** (:meth:`GraspitWriter.body_text`): ``<material>``, ``<mass>`` (g), ``<cog>``
  (mm), ``<inertia_matrix>`` (per unit mass, mm^2) and ``<geometryFile>``: the source file
  when GraspIt! reads it (Inventor/VRML), placed by ``<geometryScaling>`` and
  ``<geometryOffset>``; otherwise a new Inventor file in millimetres next to the body.
* **Robots**: a robot read from a GraspIt! file and still matching it is written back from
  its records (DH values, DOF expressions, DOF parameters, eigengrasps, virtual contacts,
  ...) with the model's limits, masses and geometry (:mod:`._robot_out`); any other robot is
  converted into DH chains (:mod:`._robot_generic`). Link body files go to ``<dir>/iv/``.
* **Worlds**: ``<obstacle>`` (terrains), ``<graspableBody>`` (rigid objects), ``<robot>``
  (with ``<dofValues>`` and breakaway flags), ``<connection>``, ``<camera>``. The world's
  GraspIt! root is the folder it is written to (load the world in GraspIt! with ``GRASPIT``
  set to it); its robots and bodies are files under ``models/`` there. One that the world
  read from GraspIt!'s own layout and left unchanged keeps that file (the same bytes for
  every world naming it); any other goes to a folder named after the world file,
  ``models/robots/<world>/<Name>/<Name>.xml``, ``models/obstacles/<world>/``,
  ``models/objects/<world>/`` (:meth:`GraspitWriter._kept_place`), so that worlds written
  side by side never replace each other's robots or bodies.

Everything a GraspIt! file cannot hold is reported with ``report.lose``.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict

import numpy as np

from ...errors import RoboioError
from ...model import RigidObject, Robot, Terrain, TriangleMesh, World
from ...report import ConversionReport
from ...transforms import compose, vector_norm
from .. import static_mass
from ..fileio import atomic_write, safe_file_stem
from ._build import GRAMS, MM, com_m, geometry_transform_si, inertia_si, mass_kg
from ._iv_out import inventor_text
from ._load import body_name, load_on_its_own
from ._records import BodyRec
from ._text import esc, folder_name, keep_or, num, same, transform_for, transform_lines
from ._transform import is_rotation

__all__ = ["GraspitWriter"]

_READABLE = ("inventor", "vrml")


def _rel(target: str, base_dir: str) -> str:
    try:
        return os.path.relpath(os.path.abspath(target), os.path.abspath(base_dir)).replace(os.sep, "/")
    except ValueError:
        return os.path.abspath(target).replace(os.sep, "/")


class GraspitWriter:
    """Collects the files of one save (``self.files``: path -> text), then writes them."""

    def __init__(self, report):
        self.report = report
        self.files: dict = {}
        self.protected: set = set()
        self.zero_mass: list = []
        self.kept: set = set()          # files of GraspIt!'s layout that other worlds may name

    # -- files -----------------------------------------------------------------------
    def add_file(self, path: str, text: str, what: str) -> str:
        """Register ``text`` for ``path``; a different text for a path already taken goes
        to ``<stem>_1<ext>``, ... Returns the path used."""
        path = os.path.normpath(os.path.abspath(path))
        stem, ext = os.path.splitext(path)
        k = 0
        while True:
            p = path if k == 0 else f"{stem}_{k}{ext}"
            key = p.lower()
            if key in self.protected:
                k += 1
                continue
            if p in self.files:
                if self.files[p] == text:
                    return p
                k += 1
                continue
            if any(q.lower() == key for q in self.files):
                k += 1
                continue
            self.files[p] = text
            return p

    def finish(self):
        if self.zero_mass:
            names = self.zero_mass
            self.report.lose(f"zero mass of {len(names)} link(s)/bod(ies) ({', '.join(names[:5])}"
                             f"{', ...' if len(names) > 5 else ''}): GraspIt! needs a positive mass, "
                             "1e-6 kg is written", kind="target default")

    def flush(self, main: str):
        for p, text in self.files.items():
            if p in self.kept:
                self._check_kept(p, text)
            if p != main:
                atomic_write(p, text)
                self.report.files.append(p)
        atomic_write(main, self.files[main])

    def _check_kept(self, path: str, text: str) -> None:
        """A kept file (GraspIt!'s layout, unchanged) is the same bytes for every world that
        names it, unless two GraspIt! trees hold different files of one name: say so when
        the file already there holds other bytes."""
        try:
            with open(path, "rb") as f:
                old = f.read()
        except OSError:
            return
        if old != text.encode("utf-8"):
            self.report.warn(f"{path}: replaced a file that held other bytes (GraspIt!'s own layout; "
                             "a world written into this folder before may name it)", kind="changed")

    def _protect(self, obj):
        geoms = []
        if isinstance(obj, Robot):
            geoms = [l.geometry for l in obj.links]
        elif isinstance(obj, World):
            geoms = [l.geometry for r in obj.robots for l in r.links]
            geoms += [o.geometry for o in obj.rigid_objects + obj.terrains]
        elif isinstance(obj, (RigidObject, Terrain)):
            geoms = [obj.geometry]
        for g in geoms:
            for x in _walk(g):
                if x.source is not None and x.source.path:
                    self.protected.add(os.path.normpath(os.path.abspath(x.source.path)).lower())

    # -- entry points ----------------------------------------------------------------
    def plan(self, obj, path: str) -> str:
        path = os.path.normpath(os.path.abspath(path))
        self._protect(obj)
        if isinstance(obj, Robot):
            from ._robot_out import robot_files
            text = robot_files(self, obj, path)
        elif isinstance(obj, World):
            text = self.world_text(obj, path)
        elif isinstance(obj, (RigidObject, Terrain)):
            text = self.element_body_text(obj, path)
        else:
            raise TypeError(f"GraspIt! files hold robots, worlds and bodies, not {type(obj).__name__}")
        self.files[path] = text
        self.finish()
        return path

    def write(self, obj, path: str):
        main = self.plan(obj, path)
        self.flush(main)

    def main_text(self, obj, path=None) -> str:
        main = self.plan(obj, path or "out.xml")
        return self.files[main]

    # -- bodies ----------------------------------------------------------------------
    def element_body_text(self, obj, path: str) -> str:
        gx = obj.extras.get("graspit", {})
        dynamic = isinstance(obj, RigidObject)
        if not np.array_equal(obj.transform, np.eye(4)):
            self.report.lose(f"{obj.name}: pose (a GraspIt! body file has none; worlds place bodies)", kind="not written")
        if dynamic:
            self._lose_object_fields(obj)
        return self.body_text(obj.geometry, getattr(obj, "mass", None), getattr(obj, "com", None),
                              getattr(obj, "inertia", None), gx, path, obj.name, dynamic)

    def _lose_object_fields(self, o):
        if np.any(o.velocity != 0) or np.any(o.angular_velocity != 0):
            self.report.lose(f"{o.name}: initial velocity", kind="not written")
        if "graspit" not in o.extras and (o.kFriction != 0.5 or o.kRestitution != 0.5
                                          or np.isfinite(o.kStiffness) or np.isfinite(o.kDamping)):
            self.report.lose(f"{o.name}: contact parameters (GraspIt! derives friction from materials)", kind="not written")

    def body_text(self, geometry, mass, com, inertia, gx: dict, path: str, what: str, dynamic: bool) -> str:
        """The body XML for a body at ``path`` (its geometry file is placed next to it)."""
        rec: BodyRec = gx.get("body")
        base = os.path.dirname(path)
        lines = ['<?xml version="1.0" ?>', "<root>"]
        material = gx.get("material", "wood")
        if rec is not None and rec.material is not None and (rec.material or "wood") == material:
            lines.append(f"    <material>{esc(rec.material)}</material>")
        elif material != "wood" or rec is not None and rec.material is not None:
            lines.append(f"    <material>{esc(material)}</material>")
        if rec is not None:
            for tag, attr in (("youngs", "youngs"), ("normalCompliance", "normal_compliance"),
                              ("shearCompliance", "shear_compliance"), ("useFlockOfBirds", "flock_of_birds")):
                v = getattr(rec, attr)
                if v is not None:
                    lines.append(f"    <{tag}>{esc(v.text)}</{tag}>")
        ref, placement, reused = self.geometry_placement(geometry, rec, gx, base, path, what)
        if dynamic:
            lines += self._mass_lines(mass, com, inertia, rec, gx, reused, what)
        elif rec is not None:
            for tag, attr in (("mass", "mass"),):
                v = getattr(rec, attr)
                if v is not None:
                    lines.append(f"    <{tag}>{esc(v.text)}</{tag}>")
            if rec.cog is not None:
                lines.append(f"    <cog>{' '.join(esc(v.text) for v in rec.cog)}</cog>")
            if rec.inertia is not None:
                lines.append(f"    <inertia_matrix>{' '.join(esc(v.text) for v in rec.inertia)}</inertia_matrix>")
        lines.append(f'    <geometryFile type="Inventor">{esc(ref)}</geometryFile>')
        lines += placement
        lines.append("</root>")
        return "\n".join(lines) + "\n"

    def _mass_lines(self, mass, com, inertia, rec, gx, reused, what) -> list:
        out = []
        if mass is None or not mass > 0:
            self.zero_mass.append(what)
            mass = 1e-6
        if rec is not None and rec.mass is None and same(mass, mass_kg(rec)):
            pass                                        # the 300 g default, as the file had it
        else:
            r = rec.mass if rec is not None else None
            out.append(f"    <mass>{keep_or(r, mass, lambda g: g * GRAMS, lambda kg: kg / GRAMS)}</mass>")
        com = np.asarray(com, float)
        if rec is not None and rec.cog is not None and same(com_m([v.value for v in rec.cog]), com):
            out.append(f"    <cog>{' '.join(v.text for v in rec.cog)}</cog>")
        elif rec is not None and rec.cog is None and reused and "computed_com" in gx and same(gx["computed_com"], com):
            pass                                        # GraspIt! computes it again from the same mesh
        else:
            out.append(f"    <cog>{' '.join(num(v / MM) for v in com)}</cog>")
        inertia = np.asarray(inertia, float)
        if rec is not None and rec.inertia is not None and same(
                inertia_si(mass, [v.value for v in rec.inertia]), inertia):
            out.append(f"    <inertia_matrix>{' '.join(v.text for v in rec.inertia)}</inertia_matrix>")
        elif (rec is not None and rec.inertia is None and reused and "computed_inertia" in gx
              and same(gx["computed_inertia"] * (mass / gx.get("computed_mass", mass)), inertia)):
            pass
        else:
            per_unit = inertia / mass / (MM * MM)
            out.append(f"    <inertia_matrix>{' '.join(num(v) for v in per_unit.reshape(9))}</inertia_matrix>")
        return out

    def geometry_placement(self, geometry, rec, gx, base, body_path, what):
        """``(reference, placement lines, reused)``: the geometry file as referenced from
        ``base`` and the ``<geometryScaling>``/``<geometryOffset>`` lines placing it;
        ``reused`` when the record's placement was kept (same file, same transform)."""
        src = getattr(geometry, "source", None)
        if (isinstance(geometry, TriangleMesh) and not geometry.missing and src is not None
                and src.path and os.path.isfile(src.path) and src.format in _READABLE):
            if (rec is not None and gx.get("geometry_path") == src.path
                    and np.array_equal(geometry_transform_si(rec), geometry.transform)):
                return _rel(src.path, base), self._record_placement(rec), True
            split = _split(geometry.transform)
            if split is not None:
                s, T = split
                lines = []
                if s[0] == s[1] == s[2]:
                    if s[0] != 1:
                        lines.append(f"    <geometryScaling>{num(s[0])}</geometryScaling>")
                else:
                    for a, v in zip("XYZ", s):
                        lines.append(f"    <geometryScaling{a}>{num(v)}</geometryScaling{a}>")
                if not np.array_equal(T, np.eye(4)):
                    lines.append("    <geometryOffset>")
                    lines += transform_lines(transform_for(None, T), "        ")
                    lines.append("    </geometryOffset>")
                return _rel(src.path, base), lines, False
        if geometry is not None and getattr(geometry, "missing", False):
            self.report.lose(f"{what}: geometry {src.reference if src else ''!r} was missing when read "
                             "(an empty Inventor file is written)", kind="missing file")
        text = inventor_text(None if geometry is None or getattr(geometry, "missing", False) else geometry,
                             np.diag([1 / MM, 1 / MM, 1 / MM, 1.0]), self.report, what)
        stem = os.path.splitext(os.path.basename(body_path))[0]
        p = self.add_file(os.path.join(base, stem + ".iv"), text, what)
        return _rel(p, base), [], False

    @staticmethod
    def _record_placement(rec: BodyRec) -> list:
        lines = []
        if rec.scaling is not None:
            lines.append(f"    <geometryScaling>{esc(rec.scaling.text)}</geometryScaling>")
        else:
            for a, v in zip("XYZ", rec.scaling_xyz):
                if v is not None:
                    lines.append(f"    <geometryScaling{a}>{esc(v.text)}</geometryScaling{a}>")
        if rec.offset is not None:
            lines.append("    <geometryOffset>")
            lines += transform_lines(rec.offset, "        ")
            lines.append("    </geometryOffset>")
        return lines

    # -- worlds ----------------------------------------------------------------------
    def world_text(self, world: World, path: str) -> str:
        """The world XML; its robots and bodies are planned under ``models/`` (see
        :meth:`_kept_place` for which keep the file the world read them from)."""
        from ._robot_out import robot_files, dof_values_text
        root = os.path.dirname(path)
        own = folder_name(path, "world")
        # the folder the world read its own robots and bodies from, if roboio wrote it
        mine = folder_name(world.source, "world") if isinstance(world.source, str) else None
        gx = world.extras.get("graspit", {})
        lines = ['<?xml version="1.0" ?>', "<world>"]
        for kind, items, folder in (("obstacle", world.terrains, "obstacles"),
                                    ("graspableBody", world.rigid_objects, "objects")):
            dynamic = kind == "graspableBody"
            for el in items:
                ex = el.extras.get("graspit", {})
                bpath = (self._kept_place(el, kind, root, ex, el.name, dynamic, mine)
                         or os.path.join(root, "models", folder, own, safe_file_stem(el.name) + ".xml"))
                if isinstance(el, RigidObject):
                    self._lose_object_fields(el)
                else:
                    static_mass.say_lost(el, self.report, "a terrain is written as an obstacle without mass")
                bpath = self.add_file(bpath, self._element_body(el, bpath, dynamic), el.name)
                lines += [f"    <{kind}>", f"        <filename>{esc(_rel(bpath, root))}</filename>"]
                lines += transform_lines(transform_for(ex.get("transform"), el.transform), "        ")
                lines.append(f"    </{kind}>")
        dofmaps = []
        for r in world.robots:
            name = safe_file_stem(r.name)
            own_dir = os.path.join(root, "models", "robots", own, name)
            rx = r.extras.get("graspit", {})
            rpath = (self._kept_place(r, "robot", root, rx, r.name, False, mine)
                     or os.path.join(own_dir, name + ".xml"))
            info = {}
            text = robot_files(self, r, rpath, world=True, info=info)
            planned, rpath = rpath, self.add_file(rpath, text, r.name)
            if rpath != planned:        # another robot of this world took the name
                self.report.rename("robots", r.name, body_name(rpath))
            mount = rx.get("mount")
            if mount:
                link = r.links[mount["link"]]
                mpath = (self._kept_place(link, "mount", root, mount, None, True, mine) or
                         os.path.join(own_dir, "iv", os.path.basename(mount.get("filename") or "mount.xml")))
                info["mount_file"] = self.add_file(mpath, self._element_body(link, mpath, True), link.name)
            dofmaps.append(info)
            lines += ["    <robot>", f"        <filename>{esc(_rel(rpath, root))}</filename>",
                      f"        <dofValues>{dof_values_text(r, info)}</dofValues>"]
            lines += transform_lines(transform_for(rx.get("world_transform"), r.links[0].parent_transform),
                                     "        ")
            lines.append("    </robot>")
        for con in gx.get("connections", []):
            lines += self._connection(world, con, dofmaps, root)
        cam = gx.get("camera")
        if cam is not None:
            lines += ["    <camera>", f"        <position>{' '.join(num(v) for v in cam.position)}</position>",
                      f"        <orientation>{' '.join(num(v) for v in cam.orientation)}</orientation>",
                      f"        <focalDistance>{esc(cam.focal_distance.text)}</focalDistance>", "    </camera>"]
        lines.append("</world>")
        for key in sorted(k for k in world.extras if k != "graspit"):
            self.report.lose(f"world data of another format: {key}", kind="kept as data")
        return "\n".join(lines) + "\n"

    def _element_body(self, el, path: str, dynamic: bool) -> str:
        """The body file text of ``el`` (a Terrain, RigidObject or link) at ``path``."""
        return self.body_text(el.geometry, getattr(el, "mass", None), getattr(el, "com", None),
                                getattr(el, "inertia", None), el.extras.get("graspit", {}), path,
                                el.name, dynamic)

    def _planned(self, obj, kind: str, path: str, dynamic: bool) -> dict:
        """Every file writing ``obj`` alone at ``path`` gives (path -> text), planned aside."""
        from ._robot_out import robot_files
        aside = GraspitWriter(ConversionReport())
        aside.protected = self.protected
        if kind == "robot":
            aside.files[path] = robot_files(aside, obj, path, world=True)
        else:
            aside.files[path] = aside._element_body(obj, path, dynamic)
        return aside.files

    def _kept_place(self, obj, kind: str, root: str, gx: dict, name, dynamic: bool, mine):
        """``<root>/<filename>`` for a robot, body or mount piece (``kind`` "robot",
        "obstacle", "graspableBody", "mount") a GraspIt! world read from ``filename`` in
        GraspIt!'s own layout (:func:`_graspit_layout`), still under the name the file gives
        it, when writing it gives exactly what writing that file as it reads on its own gives:
        the world left it unchanged, so every world that holds it writes the same bytes there.
        None otherwise: the world writes it into a folder of its own (a robot, body or mount
        piece of one name may differ from world to world, and worlds written side by side
        share ``models/``). ``mine``: the name of the folders roboio wrote for the world
        being written again (its source file's name), which stay its own."""
        filename, source = gx.get("filename"), gx.get("path")
        if kind == "robot":
            source = getattr(obj, "source", None)
        if not (filename and isinstance(source, str) and _graspit_layout(filename, mine)):
            return None
        if name is not None and body_name(filename) != name:
            return None
        path = os.path.normpath(os.path.abspath(os.path.join(root, filename)))
        alone = _on_its_own(source, kind)
        if alone is None:
            return None
        planned = self._planned(obj, kind, path, dynamic)
        if planned != self._planned(alone, kind, path, dynamic):
            return None
        self.kept.update(planned)
        return path

    def _connection(self, world, con, dofmaps, root) -> list:
        n = len(world.robots)
        p, c, ch = con.get("parent"), con.get("child"), con.get("chain")
        if not (isinstance(p, int) and isinstance(c, int) and 0 <= p < n and 0 <= c < n):
            self.report.lose(f"connection {con!r}: robot index out of range", kind="not written")
            return []
        chains = dofmaps[p].get("chains", 0)
        if not 0 <= ch < chains:
            self.report.lose(f"connection of robot {world.robots[c].name!r}: parent chain {ch} does not exist", kind="not written")
            return []
        out = ["    <connection>", f"        <parentRobot>{p}</parentRobot>",
               f"        <parentChain>{ch}</parentChain>", f"        <childRobot>{c}</childRobot>"]
        mount = dofmaps[c].get("mount_file")
        if mount:
            out.append(f"        <mountFilename>{esc(_rel(mount, root))}</mountFilename>")
        rec = None if con.get("stale_transform") else con.get("transform")
        out += transform_lines(transform_for(rec, con["offset"]), "        ")
        out.append("    </connection>")
        return out


_ALONE: "OrderedDict" = OrderedDict()   # (real path, size, mtime, kind) -> model, newest last
_ALONE_MAX = 64
_ALONE_LOCK = threading.Lock()


def _on_its_own(path: str, kind: str):
    """:func:`load_on_its_own`, or None when the file does not read. The last few are kept
    while their files are unchanged: worlds written one after another (``convert DIR``, a
    batch worker) mostly name the same robots. The models are only planned, never changed.
    (Only the named file's own size and time are checked: a link body edited in between
    makes the world's robot differ from the cached one, which writes it into the world's
    folder, the safe side.)"""
    try:
        st = os.stat(path)
        key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, kind)
    except OSError:
        return None
    with _ALONE_LOCK:
        if key in _ALONE:
            _ALONE.move_to_end(key)
            return _ALONE[key]
    try:
        obj = load_on_its_own(path, kind)
    except (RoboioError, OSError, ValueError):
        return None
    with _ALONE_LOCK:
        _ALONE[key] = obj
        while len(_ALONE) > _ALONE_MAX:
            _ALONE.popitem(last=False)
    return obj


def _graspit_layout(filename: str, mine) -> bool:
    """Whether a world's ``<filename>`` names a file of its GraspIt! tree that may be kept:
    a relative path inside a folder below the root (``models/robots/Barrett/Barrett.xml``,
    ``models/objects/ch3_shapes/cup.xml``, a mount piece in a robot's ``iv/``), not one of the
    folders roboio writes for the world itself when it was written as ``<mine>.xml``
    (``models/*/<mine>/...``: those stay the world's own)."""
    parts = filename.split("/")
    if (not filename.endswith(".xml") or os.path.isabs(filename) or "\\" in filename or len(parts) < 2
            or any(p in ("", ".", "..") for p in parts)):
        return False
    return not (mine is not None and len(parts) > 3 and parts[0] == "models" and parts[2] == mine)


def _walk(g):
    if g is not None:
        yield g
        for c in getattr(g, "children", ()):
            yield from _walk(c)


def _split(M):
    """``(scale(3), T_mm)`` with ``M = mm->m * T_mm * diag(scale)``, ``T_mm`` rigid and the
    scales positive; None when ``M`` has no such form."""
    M = np.asarray(M, float)
    if np.any(M[3] != (0, 0, 0, 1)):
        return None
    A = M[:3, :3] / MM
    s = vector_norm(A.T)
    if np.any(s == 0) or not np.all(np.isfinite(s)):
        return None
    R = A / s
    if not is_rotation(R, 1e-12):
        return None
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = M[:3, 3] / MM
    back = compose(compose(np.diag([MM, MM, MM, 1.0]), T), np.diag([s[0], s[1], s[2], 1.0]))
    if not same(back, M):
        return None
    return s, T
