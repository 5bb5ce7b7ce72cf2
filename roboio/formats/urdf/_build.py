"""URDF records -> roboio Robot, as the URDF specification and its mainstream readers
(urdfdom/KDL, pinocchio, MuJoCo) read them, or -- with ``flavor="klampt"`` -- exactly as
Klamp't 0.10.1 converts them (``klampt.md`` §4). The two readings differ in these places,
and the standard reading warns where Klamp't would read the file otherwise:

* axes: normalised (Klamp't keeps ``<axis xyz>`` as written and turns a joint by
  ``q |axis|``);
* mimics: every ``<mimic>`` is kept, whatever the order of the joints (Klamp't ignores a
  mimic of a joint that comes later in its link order);
* inertia of a rotated ``<inertial>``: ``R I Rᵀ`` (Klamp't computes ``Rᵀ I R``);
* geometry: every ``<collision>`` (a Group when several) and the ``<visual>`` elements as
  ``visual_geometry`` (Klamp't keeps the first collision element only);
* a ``<roboio><virtual_link name>`` element names the floating base's virtual links
  (Klamp't names them ``base0..base4``);
* ``package://NAME`` (and ``package:///NAME``) meshes: found through
  :func:`roboio.resolve.package_candidates` (``package_dirs``, ``ROS_PACKAGE_PATH``,
  ``AMENT_PREFIX_PATH``, the URDF's ancestors), one warning per package that is missing
  (Klamp't only looks below ``<klampt package_root>``).

Common to both:

* Link order: pre-order depth-first from the root, the children of a link visited in byte
  order of their parent joints' names (document order is irrelevant).
* Base: a root link named ``world_frame`` (default ``world``) is dropped and its children
  become roots (fixed base); any other root becomes link 5 behind five massless virtual
  links ``base0..base4`` joined by a ``floating`` joint (six ``weld`` joints with
  ``freeze_root_link``).
* Joints: revolute/prismatic -> ``normal``, continuous -> ``spin`` (q unbounded), fixed ->
  ``weld`` (q, velocity and acceleration limits 0), floating -> six links in a ``floating``
  group (as pinocchio's free-flyer and MuJoCo's free joint; Klamp't refuses the file, so
  ``flavor="klampt"`` warns); planar joints are rejected (Klamp't cannot load them either).
* Mass: ``<inertial>`` (its inertia rotated by the origin's ``rpy`` as listed above), else
  zero mass and inertia as the URDF specification, urdfdom and pinocchio say (Klamp't's
  ``default_mass`` / ``default_inertia``, 0.0001 kg and 1e-8 I, with ``flavor="klampt"`` or
  when a ``<klampt>`` element sets them); ``<klampt><link physical="0">`` zeroes them.
* Names: every link keeps its URDF joint's name (``Link.joint_name``).
* Drivers: one ``normal`` driver per revolute/prismatic/continuous joint, named after the
  joint (Klamp't, and ``flavor="klampt"``, name it after the joint's child link), servo
  gains 100/0/10, friction from ``<dynamics>``; ``<mimic>`` joints join the driver of the
  joint they mimic as an affine driver (see :meth:`_Builder.add_mimic`), whose
  ``leader`` stays the mimicked (actuated) joint's link.
"""
from __future__ import annotations

import functools
import os
from collections import defaultdict

import numpy as np

from ...errors import HINT_PACKAGE_PATH, FormatError
from ...transforms import UNIT_TOL, compose, rotate_tensor, unit_vector
from ...context import LoadContext
from ...model import (Appearance, Driver, GeometrySource, Group, Joint, Link, Primitive, Robot,
                      TriangleMesh)
from ..klampt.mount import (charge_mount, default_pairs, has_geometry, is_robot_file,
                             link_index, mount_robot, mounted_geometry, read_mounted_robot)
from ._klampt_ext import KlamptSettings
from ._records import UrdfModel
from .. import loading
from ..xmlutil import children, where

__all__ = ["link_order", "build_robot", "mesh_candidates", "affine_driver_limits"]

_PATH_MAX = 4096      # Linux PATH_MAX: a longer path names nothing (the call fails ENAMETOOLONG)
INF = np.inf
_FLIP_YZ = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
_VIRTUAL_AXES = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0))


def _read_only(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


# read-only constants Link shares instead of copying (see roboio.model.robot._frozen)
_FROZEN_AXES = tuple(_read_only(a) for a in _VIRTUAL_AXES)
_FROZEN_ZERO3 = _read_only((0.0, 0.0, 0.0))
_FROZEN_ZERO33 = _read_only(np.zeros((3, 3)))


def link_order(model: UrdfModel, path: str) -> list:
    """``[(link name, parent joint record or None, parent position or -1)]`` in Klamp't's
    order; FormatError for a joint naming a missing link, a link with two parents, no or
    several roots, or links not connected to the root."""
    parent_joint = {}
    for j in model.joints.values():
        for end in (j.parent, j.child):
            if end not in model.links:
                raise FormatError(path, j.line, None, f"joint {j.name!r} refers to link {end!r}, "
                                  "which is not defined")
        if j.child in parent_joint:
            raise FormatError(path, j.line, None, f"link {j.child!r} has two parent joints "
                              f"({parent_joint[j.child].name!r} and {j.name!r})")
        parent_joint[j.child] = j
    roots = [n for n in model.links if n not in parent_joint]
    if len(roots) > 1:
        raise FormatError(path, model.links[roots[1]].line, None,
                          f"several root links ({', '.join(repr(r) for r in roots)}): every link "
                          "but one needs a parent joint")
    if not roots:
        raise FormatError(path, None, None, "no root link: every link has a parent joint (the "
                          "joints form a cycle)")
    kids = defaultdict(list)
    for name in sorted(model.joints):
        j = model.joints[name]
        kids[j.parent].append(j)
    out = []
    stack = [(roots[0], None, -1)]
    while stack:
        name, joint, parent = stack.pop()
        pos = len(out)
        out.append((name, joint, parent))
        for j in reversed(kids[name]):
            stack.append((j.child, j, pos))
    if len(out) < len(model.links):
        seen = {o[0] for o in out}
        lost = [n for n in model.links if n not in seen]
        raise FormatError(path, model.links[lost[0]].line, None,
                          f"links {', '.join(repr(n) for n in lost)} are not connected to the root "
                          f"link {roots[0]!r} (their joints form a cycle)")
    return out


def _named_by_klampt_file(ctx) -> bool:
    """Whether the file that refers to this one (a mount, a world's robot) is a Klamp't
    robot or world file, which has Klamp't read the URDF."""
    stack = getattr(ctx, "stack", None)
    if stack is None or len(stack) < 2:
        return False
    referrer = stack[len(stack) - 2] or ""
    return referrer.lower().endswith((".rob", ".xml"))


def affine_driver_limits(dofs, scales, lim) -> tuple:
    """Klamp't's derived limits (qmin, qmax, vmin, vmax, tmin, tmax, amin, amax) of an
    affine driver over ``dofs`` with ``scales``, from per-link limit arrays ``lim``: the
    intersection over the DOFs of the DOF limits divided by the scale (offsets ignored,
    zero scales skipped); velocity as Klamp't computes it, [max_k v_k/|s_k|, min_k
    v_k/|s_k|] (its sign slip, kept)."""
    qlo, qhi, vlo, vhi, t, a = -INF, INF, -INF, INF, INF, INF
    for dof, s in zip(dofs, scales):
        if s == 0:
            continue
        lo, hi = sorted((lim["qmin"][dof] / s, lim["qmax"][dof] / s))
        qlo, qhi = max(qlo, lo), min(qhi, hi)
        vlo = max(vlo, -lim["vmin"][dof] / abs(s))
        vhi = min(vhi, lim["vmax"][dof] / abs(s))
        t = min(t, lim["tmax"][dof] / abs(s))
        a = min(a, lim["amax"][dof] / abs(s))
    return qlo, qhi, vlo, vhi, -t, t, -a, a


_EYE3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


@functools.lru_cache(maxsize=256)
def _named_ancestors(d: str, name: str) -> tuple:
    """The directories named ``name`` among ``d`` and its ancestors, nearest first."""
    out = []
    while True:
        if os.path.basename(d) == name:
            out.append(d)
        nd = os.path.dirname(d)
        if nd == d:
            return tuple(out)
        d = nd


def mesh_candidates(filename: str, path: str, package_root, first_only: bool = False) -> list:
    """Paths to try for a ``<mesh filename>``: ``package://PKG/rest`` -> ``package_root/PKG/
    rest`` (package_root relative to the URDF's directory; without it Klamp't looks for
    ``/PKG/rest``, and roboio also for ``rest`` below a directory named PKG that contains
    the URDF); a relative name -> relative to the URDF's directory."""
    base = os.path.dirname(path)
    if filename.startswith("package://"):
        rest = filename[len("package://"):]
        if package_root is not None:
            root = package_root if os.path.isabs(package_root) else os.path.join(base, package_root)
            return [os.path.normpath(os.path.join(root, rest))]
        cands = [os.path.normpath("/" + rest)]
        if first_only:          # (the one Klamp't opens; the rest cost a walk up the tree)
            return cands
        pkg, _, sub = rest.partition("/")
        cands += [os.path.join(d, sub) for d in _named_ancestors(os.path.abspath(base), pkg)]
        return cands
    if filename.startswith("file://"):
        return [filename[len("file://"):]]
    if os.path.isabs(filename):
        return [filename]
    return [os.path.normpath(os.path.join(base, filename))]


def _unit_along_frame(axis) -> bool:
    """Whether ``axis`` is +-x, +-y or +-z exactly (its norm is 1 however computed)."""
    x, y, z = axis.tolist()
    return (x == y == 0.0 and abs(z) == 1.0) or (x == z == 0.0 and abs(y) == 1.0) or \
        (y == z == 0.0 and abs(x) == 1.0)


def _same_geometry(a: list, b: list) -> bool:
    """Whether two lists of ``<visual>``/``<collision>`` records describe the same shapes."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        gx, gy = x.geometry, y.geometry
        if (gx.kind, gx.filename, tuple(gx.scale), tuple(gx.size), gx.radius, gx.length) != \
                (gy.kind, gy.filename, tuple(gy.scale), tuple(gy.size), gy.radius, gy.length):
            return False
        if gx.origin.tolist() != gy.origin.tolist():     # (as np.array_equal, cheaper)
            return False
    return True


class _ExistingDirs:
    """The candidate directories of one package that exist, in the candidates' order,
    found as far as they are needed (each mesh of the package looks through the same ones:
    most robots have one package directory, the first that exists)."""

    __slots__ = ("candidates", "_rest", "_found", "_is_dir")

    def __init__(self, candidates, is_dir):
        self.candidates = candidates            # (LazyCandidates: read on as far as needed)
        self._rest = iter(candidates)
        self._found: list = []
        self._is_dir = is_dir

    def holding(self, sub: str):
        """The first existing candidate holding the file ``sub``, or None."""
        isfile, join = os.path.isfile, os.path.join
        for d in self._found:
            if isfile(join(d, sub)):
                return d
        if self._rest is not None:
            for d in self._rest:
                if self._is_dir(d):
                    self._found.append(d)
                    if isfile(join(d, sub)):
                        return d
            self._rest = None
        return None


class _Builder:
    def __init__(self, model: UrdfModel, s: KlamptSettings, path: str, ctx: LoadContext):
        self.model, self.s, self.path, self.ctx = model, s, path, ctx
        self.klampt = getattr(ctx, "flavor", None) == "klampt"
        # Klamp't's mass defaults where Klamp't reads the file: its flavor, a <klampt> element
        # that sets them, or a URDF that a Klamp't robot or world file mounts or names
        self.klampt_mass = (self.klampt or bool(s.explicit & {"default_mass", "default_inertia"})
                            or _named_by_klampt_file(ctx))
        self.packages: dict = {}            # package name -> (directory or None, places tried)
        self.package_dirs: dict = {}        # package name -> _ExistingDirs of its candidates
        self.dir_exists: dict = {}          # directory -> whether it exists (see _isfile)
        self.candidate_dirs: dict = {}      # package directory candidate -> whether it exists
        self.meshes_found: dict = {}        # <mesh filename> -> what _locate_mesh found
        self.scales: dict = {}              # <mesh scale> -> its 4x4 matrix (with flip_yz)
        self.package_notes = defaultdict(list)   # (kind, package) -> link names
        self.scaled_axes: list = []         # links whose axis was normalised
        self.negative_limits: list = []     # (line, 'joint (effort=.., velocity=..)') read as written
        self.rotated_inertia: list = []     # links whose inertia differs from Klamp't's
        self.deferred: list = []            # (link, joint, name, type) of mimic joints
        self.links: list = []
        self.lim = {k: [] for k in ("qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax")}
        self.held: dict = {}                # link -> constant value (mimics of fixed joints)
        self.joints: list = []
        self.drivers: list = []
        self.urdf_links: dict = {}          # roboio index -> URDF link name
        self.materials = dict(model.materials)
        self.colors = self._link_colors()

    # -- pieces ---------------------------------------------------------------------------
    def add(self, link: Link, qmin=-INF, qmax=INF, vmax=INF, amax=INF, tmax=INF, pmax=INF):
        L = self.lim
        L["qmin"].append(float(qmin))
        L["qmax"].append(float(qmax))
        L["vmin"].append(float(0.0 - vmax))
        L["vmax"].append(float(vmax))
        L["amax"].append(float(amax))
        L["tmax"].append(float(tmax))
        L["pmax"].append(float(pmax))
        i = len(self.links)
        object.__setattr__(link, "index", i)     # (not a kinematic field: nothing to invalidate)
        self.links.append(link)
        return i

    def mass(self, name: str) -> tuple:
        """``(mass, com, inertia)`` of link ``name`` (Link's constructor arguments)."""
        rec = self.model.links[name]
        over = self.s.links.get(name)
        if over is not None and over.get("physical", 1) == 0:
            return 0.0, _FROZEN_ZERO3, _FROZEN_ZERO33
        if rec.inertial is not None:
            R = rec.inertial.origin[:3, :3]
            com = rec.inertial.origin[:3, 3]
            I0 = rec.inertial.inertia
            if R.tolist() == _EYE3:                 # no rpy (the common case): I0 exactly
                return rec.inertial.mass, com, I0
            quirk = rotate_tensor(R.T, I0)          # Klamp't's quirk (R I Rᵀ is physical)
            I = quirk if self.klampt else rotate_tensor(R, I0)
            if not self.klampt and np.abs(I - quirk).max() > 1e-12 * max(np.abs(I).max(), 1e-300):
                self.rotated_inertia.append(name)
            return rec.inertial.mass, com, (I + I.T) / 2    # symmetric again after rounding
        if self.klampt_mass:
            return self.s.default_mass, _FROZEN_ZERO3, self.s.default_inertia
        # the URDF specification (urdfdom, pinocchio): no <inertial> is zero mass and inertia
        return 0.0, _FROZEN_ZERO3, _FROZEN_ZERO33

    def _link_colors(self) -> dict:
        """Colour of every default-group ``<visual>`` per link (None where a visual has no
        ``<material>``), resolved the way urdfdom does in document order (a material
        defined inline in a visual becomes visible by name to later visuals and links; an
        undefined name gives opaque black)."""
        out = {}
        for name, rec in self.model.links.items():
            colors = []
            for v in rec.visuals:
                if v.group != "default":
                    continue
                if v.material_name is None:
                    colors.append(None)
                    continue
                if v.material_name and v.material_name in self.materials:
                    rgba = self.materials[v.material_name]
                else:
                    rgba = v.color
                    if v.material_name:
                        if rgba is None:
                            # urdfdom keeps a name-only material (black, opaque: its
                            # Color's default) since 2013; older releases refused the model
                            self.ctx.warn(f"link {name!r}: material {v.material_name!r} is not "
                                          "defined: read as opaque black, as urdfdom, pinocchio and "
                                          "Klamp't read it", v.geometry.line, kind="guessed")
                        self.materials[v.material_name] = rgba
                colors.append(tuple(rgba) if rgba is not None else (0.0, 0.0, 0.0, 1.0))
            if any(c is not None for c in colors):
                out[name] = colors
        return out

    def geometry(self, link: Link, name: str):
        """Collision geometry (``<visual>`` with ``use_vis_geom``) and, in the standard
        reading, visual geometry. Klamp't keeps the first element of the default group
        only; the standard reading keeps every element (several become a Group) and fills
        ``visual_geometry`` with the ``<visual>`` elements where they differ from the
        collision ones. The link's colour is its first visual's (as Klamp't draws it); in
        the standard reading, visuals of different colours keep each its own
        (``appearance`` of each visual piece)."""
        rec = self.model.links[name]
        cols = [e for e in rec.collisions if e.group == "default"]
        vis = [e for e in rec.visuals if e.group == "default"]
        main = vis if self.s.use_vis_geom else cols
        if self.klampt:
            main = main[:1]
        if main:
            link.geometry = self._pieces(main, name)
        if not self.klampt and vis and not self.s.use_vis_geom and not _same_geometry(vis, cols):
            link.visual_geometry = self._pieces(vis, name)
        colors = self.colors.get(name)
        if colors and (link.geometry is not None or link.visual_geometry is not None):
            if colors[0] is not None:
                link.appearance = Appearance(color=colors[0])
            if not self.klampt and len(set(colors)) > 1:
                drawn = link.visual_geometry if link.visual_geometry is not None else link.geometry
                pieces = drawn.children if isinstance(drawn, Group) and len(vis) > 1 else [drawn]
                for piece, rgba in zip(pieces, colors):
                    piece.appearance = Appearance(color=rgba)      # color None: no material

    def _pieces(self, els, name: str):
        pieces = [self._piece(e.geometry, name) for e in els]
        return pieces[0] if len(pieces) == 1 else Group(pieces)

    def _piece(self, g, name: str):
        if g.kind == "mesh":
            S = self.scales.get(g.scale)
            if S is None:          # (one per scale in a file; most meshes are not scaled)
                S = np.diag([*g.scale, 1.0])
                if self.s.flip_yz:
                    S = compose(S, _FLIP_YZ)
                if 0.0 not in g.scale:      # (0.0 and -0.0 are equal keys, not equal zeros)
                    self.scales[g.scale] = S
            geom = self.mesh(g.filename, name, g.line)
            geom.apply_transform(compose(g.origin, S))
        elif g.kind == "box":
            h = np.array(g.size) / 2
            geom = Primitive("AABB", {"bmin": -h, "bmax": h}, transform=g.origin)
        elif g.kind == "cylinder":
            geom = Primitive("Cylinder", {"center": (0, 0, -g.length / 2), "axis": (0, 0, 1),
                                          "radius": g.radius, "height": g.length}, transform=g.origin)
        else:
            geom = Primitive("Sphere", {"center": (0, 0, 0), "radius": g.radius}, transform=g.origin)
        return geom

    def mesh(self, filename: str, link_name: str, line):
        found, cands = self._find_mesh(filename, link_name)
        if found is None:
            if cands is not None:          # the package was found, the file in it was not
                self.ctx.warn(f"mesh {filename!r} of link {link_name!r} not found (looked for: "
                              f"{', '.join(cands)})", line, kind="missing file", hint=loading.missing_file_hint(filename))
            return TriangleMesh(source=GeometrySource(filename, None, None), missing=True)
        try:
            geom = loading.load_geometry(found, self.ctx)
        except FormatError as e:
            if self.ctx.strict:
                raise
            self.ctx.warn(f"mesh {filename!r} of link {link_name!r} cannot be loaded: {e}", line, kind="unreadable file")
            return TriangleMesh(source=GeometrySource(filename, found, None), missing=True)
        fmt = geom.source.format if geom.source is not None else None
        geom.source = GeometrySource(filename, found, fmt)
        return geom

    def _find_mesh(self, filename: str, link_name: str):
        """``(path or None, candidates tried or None)``; None candidates: a package that
        was not found (reported once per package by :meth:`package_warnings`)."""
        known = self.meshes_found.get(filename)
        if known is None:          # (robots reuse a mesh on several links: looked for once)
            known = self.meshes_found[filename] = self._locate_mesh(filename)
        found, cands, note = known
        if note is not None:
            self.package_notes[note].append(link_name)
        return found, cands

    def _locate_mesh(self, filename: str):
        """``(path or None, candidates or None, package note key or None)`` of a mesh."""
        from ...resolve import LazyCandidates, iter_package_candidates, split_url
        kind, *parts = split_url(filename)
        klampt_cands = mesh_candidates(filename, self.path, self.s.package_root,
                                       first_only=kind == "package" and not self.klampt)
        # Klamp't itself opens only the first candidate (package_root, or "/NAME/rest")
        klampt_finds = klampt_cands[0] if self._isfile(klampt_cands[0]) else None
        if kind == "file":
            cands = [parts[0]]
            return next((c for c in cands if os.path.isfile(c)), None), cands, None
        if kind != "package":      # (the first candidate was looked at just above)
            found = klampt_finds or next((c for c in klampt_cands[1:] if os.path.isfile(c)), None)
            return found, klampt_cands, None
        name, sub = parts
        if klampt_finds is not None and (self.klampt or self.s.package_root is not None):
            return klampt_finds, None, None
        if self.klampt:
            dirs = []
            found = next((c for c in klampt_cands[1:] if os.path.isfile(c)), None)
            hit = os.path.dirname(found) if found else None
        else:
            known = self.package_dirs.get(name)
            if known is None:      # the same for every mesh of the package in this file
                known = self.package_dirs[name] = _ExistingDirs(LazyCandidates(
                    iter_package_candidates(name, self.path, self.ctx.package_dirs)), self._is_dir)
            dirs = known.candidates
            hit = known.holding(sub)
            found = None if hit is None else os.path.normpath(os.path.join(hit, sub))
        if found is None:
            dirs = dirs if isinstance(dirs, list) else dirs.all()
            existing = [d for d in dirs if os.path.isdir(d)]
            if not existing:
                # (Klamp't's reading: the places Klamp't looks; else the directories tried)
                self.packages.setdefault(name, (None, (dirs or klampt_cands) if self.klampt else dirs))
                return None, None, ("missing", name)
            return None, [os.path.join(d, sub) for d in existing], None
        self.packages.setdefault(name, (hit, dirs))
        return found, None, (("klampt-misses", name) if klampt_finds is None else None)

    def _is_dir(self, d: str) -> bool:
        """``os.path.isdir(d)`` of a package directory candidate, once per load (every mesh
        of a package tries the same candidates)."""
        known = self.candidate_dirs.get(d)
        if known is None:
            known = self.candidate_dirs[d] = os.path.isdir(d)
        return known

    def _isfile(self, path: str) -> bool:
        """``os.path.isfile(path)``, without a system call when the load already found that
        its directory does not exist (the ``/NAME/...`` paths Klamp't tries rarely do)."""
        return self._dir_exists(os.path.dirname(path)) and os.path.isfile(path)

    def _dir_exists(self, d: str) -> bool:
        """Whether directory ``d`` exists, remembered per load with its ancestors (walked in a
        loop: a fuzzed file name held thousands of components)."""
        start = d
        if not d:                           # the working directory
            return True
        if len(d) > _PATH_MAX:              # the system refuses it (ENAMETOOLONG): not a
            return False                    # directory, and its ancestors are never copied
        known = self.dir_exists.get(d)
        if known is not None:
            return known
        up = os.path.dirname(d)
        while up and up != d and up not in self.dir_exists:    # (dictionary look-ups only)
            d, up = up, os.path.dirname(up)
        if self.dir_exists.get(up) is False:                      # a missing ancestor hides it
            self.dir_exists[start] = False
            return False
        d = start
        if os.path.isdir(d):                # (then so are its ancestors: not walked)
            self.dir_exists[d] = True
            return True
        unknown = []
        known = None
        while known is None:
            unknown.append(d)
            parent = os.path.dirname(d)
            if parent == d or not parent:   # the root, or the top of a relative path
                known = True
                break
            d = parent
            known = self.dir_exists.get(d)
        for x in reversed(unknown):         # outermost first: a missing one hides the rest
            known = self.dir_exists[x] = known and os.path.isdir(x)
        return known

    def package_warnings(self):
        """One warning per package: missing (with the places tried), or found where Klamp't
        would not look."""
        for (kind, name), links in self.package_notes.items():
            d, tried = self.packages[name]
            links = sorted(set(links))
            if kind == "missing":
                where = (f"looked in: {', '.join(tried)}" if tried else
                         f"no package directory given holds it, nor is there a directory {name!r} "
                         "at or above the file")
                self.ctx.warn(f"package {name!r} not found ({where}); the meshes of "
                              f"{len(links)} link(s) are missing: {', '.join(links)}. Give its "
                              "directory with package_dirs= / --package-path, ROS_PACKAGE_PATH or "
                              "AMENT_PREFIX_PATH", kind="missing file", hint=HINT_PACKAGE_PATH)
            else:
                self.ctx.warn(f"package {name!r} found at {d} for the meshes of {len(links)} "
                              "link(s); Klamp't itself needs <klampt package_root=...> to find them", kind="read differently")

    # -- drivers --------------------------------------------------------------------------
    def normal_driver(self, li: int, joint, name: str):
        """The driver of the joint that moves link ``li`` (named ``name``): named after the
        joint (the name ROS, pinocchio and MuJoCo use), or after the link as Klamp't names
        it with ``flavor="klampt"``."""
        over = self.s.links.get(name, {})
        friction, damping = (joint.dynamics[1], joint.dynamics[0]) if joint.dynamics else (0.0, 0.0)
        L = self.lim
        self.drivers.append(Driver(
            name if self.klampt else joint.name, "normal", [li], qmin=L["qmin"][li], qmax=L["qmax"][li], vmin=L["vmin"][li],
            vmax=L["vmax"][li], tmin=-L["tmax"][li], tmax=L["tmax"][li], amin=-L["amax"][li],
            amax=L["amax"][li], servo_p=over.get("servoP", 100.0), servo_i=over.get("servoI", 0.0),
            servo_d=over.get("servoD", 10.0), dry_friction=over.get("dryFriction", friction),
            viscous_friction=over.get("viscousFriction", damping)))

    def add_mimic(self, li: int, joint, done: dict) -> bool:
        """Make link ``li`` follow the joint its ``<mimic>`` names. Klamp't 0.10.1 handles a
        mimic while it walks the links in order, so the mimicked joint must come earlier
        (else the mimic is ignored: returns False). The mimicked joint's driver becomes
        affine (or grows), with ``q_li = offset + multiplier * q_target``; a mimic of a
        mimic is collapsed through the target's own scale and offset."""
        target, m, o, line = joint.mimic
        tl = done.get(target)
        if tl is None:
            why = ("no joint of that name" if target not in self.model.joints else
                   "it comes later in link order, and Klamp't only honours mimics of earlier joints")
            self.ctx.warn(f"joint {joint.name!r}: <mimic joint={target!r}> ignored ({why})", line, kind="dropped" if why.startswith("it comes later") else "invalid value")
            return False
        d = next((d for d in self.drivers if tl in d.dofs), None)
        if d is None:
            self.hold_constant(li, joint, target, o)
            return True
        self._follow(d, tl, li, m, o)
        return True

    def hold_constant(self, li: int, joint, target: str, value: float):
        """Link ``li`` mimics a fixed joint: it holds ``offset + multiplier * 0`` (yourdfpy's
        reading; pinocchio and MuJoCo ignore the mimic) as its initial value, with no driver."""
        self.held[li] = float(value)
        self.ctx.warn(f"joint {joint.name!r} mimics the fixed joint {target!r}: held at its "
                      f"constant value {value:g} (offset + multiplier * 0), with no driver",
                      joint.mimic[3], kind="guessed")

    def _follow(self, d: Driver, tl: int, li: int, m: float, o: float):
        """Link ``li`` joins driver ``d`` with ``q_li = o + m * q_tl`` (``tl`` one of its DOFs)."""
        if d.type == "normal":
            d.type, d.scale, d.offset = "affine", [1.0], [0.0]
        k = d.dofs.index(tl)
        d.dofs.append(li)
        d.scale.append(m * d.scale[k])
        d.offset.append(o + m * d.offset[k])
        self._affine_limits(d)

    def resolve_mimics(self, done: dict):
        """Every ``<mimic>`` (standard reading), in link order: the follower joins the driver
        of the joint at the end of its mimic chain, ``q = offset + multiplier * q_leader``
        composed along the chain. A mimic of a missing or fixed joint (or a cycle) is
        ignored with a warning and the joint keeps its own driver."""
        by_name = {j.name: (li, j) for li, j, _, _ in self.deferred}
        order = {j.name: li for j in self.model.joints.values() for li in [done.get(j.name)] if li is not None}
        later = []
        for li, joint, name, jtype in self.deferred:
            m, o, target, seen, why = 1.0, 0.0, joint.name, {joint.name}, None
            while target in by_name:                       # walk the chain to its leader
                t, tm, to, _ = by_name[target][1].mimic
                m, o = m * tm, o + m * to
                target = t
                if target in seen:
                    why = "the mimics form a cycle"
                    break
                seen.add(target)
            tl = done.get(target)
            d = None if tl is None else next((d for d in self.drivers if tl in d.dofs), None)
            if why is None and tl is None:
                why = "no joint of that name"
            elif why is None and d is None:
                self.hold_constant(li, joint, target, o)
                continue
            if why is not None:
                self.ctx.warn(f"joint {joint.name!r}: <mimic joint={joint.mimic[0]!r}> ignored ({why}); "
                              "it keeps its own driver", joint.mimic[3], kind="invalid value")
                if jtype in ("normal", "spin"):
                    self.normal_driver(li, joint, name)
                continue
            if order.get(joint.mimic[0], -1) > li:
                later.append(joint.name)
            self._follow(d, tl, li, m, o)
        if later:
            self.ctx.warn(f"mimic joints of later joints kept: {', '.join(later)} (Klamp't's "
                          "importer ignores a mimic of a joint that comes later in its link order)", kind="read differently")

    def reading_notes(self):
        """Where the standard reading differs from Klamp't's, said once each; negative
        efforts and velocities (urdfdom and Klamp't keep them, pinocchio refuses the file)."""
        if self.negative_limits:
            self.ctx.warn("negative <limit effort> or <limit velocity> of joint(s) "
                          + ", ".join(t for _, t in self.negative_limits)
                          + ": read as written (urdfdom and Klamp't keep them), which makes their torque "
                          "[-effort, effort] or velocity [-velocity, velocity] limits inverted; pinocchio "
                          "refuses the file, and SDF's convention reads -1 as 'no limit'",
                          self.negative_limits[0][0], kind="invalid value")
        if self.scaled_axes:
            self.ctx.warn("joint axes normalised as the URDF specification says: "
                          f"{', '.join(self.scaled_axes)} (Klamp't keeps them and turns these "
                          "joints at q |axis|)", kind="read differently")
        if self.rotated_inertia:
            self.ctx.warn("rotated <inertial> of " + ", ".join(self.rotated_inertia) + " read as "
                          "R I Rᵀ (Klamp't computes Rᵀ I R)", kind="read differently")

    def _affine_limits(self, d: Driver):
        (d.qmin, d.qmax, d.vmin, d.vmax, d.tmin, d.tmax, d.amin, d.amax) = \
            affine_driver_limits(d.dofs, d.scale, self.lim)

    # -- the whole robot ------------------------------------------------------------------
    def virtual_names(self) -> list:
        """Names of the five virtual floating-base links: ``base0..base4`` (Klamp't's), or
        the names a ``<roboio><virtual_link name>`` element gives (written by roboio to keep
        a model's names; the standard reading only)."""
        default = [f"base{i}" for i in range(5)]
        root = self.model.root_element
        els = [] if self.klampt or root is None else [
            c for r in children(root, "roboio") for c in children(r, "virtual_link")]
        if not els:
            return default
        names = [c.get("name") for c in els]
        if (len(names) != 5 or None in names or "" in names or len(set(names)) != 5
                or set(names) & set(self.model.links)):
            self.ctx.warn("<roboio><virtual_link> names ignored (five unique names that are not "
                          "URDF links are needed); the floating base links are base0..base4",
                          where(els[0]), kind="guessed")
            return default
        return names

    def base(self, root_name: str):
        """The floating base: five virtual links, then the URDF root as link 5."""
        for i, name in enumerate(self.virtual_names()):
            self.add(Link(name, i - 1, "prismatic" if i < 3 else "revolute", _FROZEN_AXES[i],
                          None, 0.0, _FROZEN_ZERO3, _FROZEN_ZERO33), tmax=0.0)
        root = Link(root_name, 4, "revolute", _FROZEN_AXES[5], None, *self.mass(root_name))
        self.urdf_links[self.add(root, tmax=0.0, pmax=0.0)] = root_name
        if self.s.freeze_root_link:
            self.joints += [Joint("weld", [i]) for i in range(6)]
        else:
            self.joints.append(Joint("floating", list(range(6)), -1))

    def floating_joint(self, name: str, joint, parent: int, done: dict):
        """A ``floating`` joint: Klamp't's floating joint, six links (x, y, z translations,
        then rotations about z, y, x) in the joint frame -- five massless virtual links
        ``<joint>_base0..4`` and link ``name`` -- as pinocchio's free-flyer and MuJoCo's
        free joint move the child. No drivers (a floating base has none either)."""
        taken = set(self.model.links)
        for i in range(5):
            vname = f"{joint.name}_base{i}"
            while vname in taken:
                vname += "_"
            taken.add(vname)
            self.add(Link(vname, parent if i == 0 else len(self.links) - 1,
                          "prismatic" if i < 3 else "revolute", _FROZEN_AXES[i],
                          joint.origin if i == 0 else None, 0.0, _FROZEN_ZERO3, _FROZEN_ZERO33))
        link = Link(name, len(self.links) - 1, "revolute", _FROZEN_AXES[5], None, *self.mass(name),
                    joint_name=joint.name)
        link.extras["urdf_joint"] = joint.name
        li = self.add(link)
        self.urdf_links[li] = name
        self.joints.append(Joint("floating", list(range(li - 5, li + 1)), parent))
        if joint.mimic is not None:
            self.ctx.warn(f"floating joint {joint.name!r}: <mimic> ignored (it mimics one value "
                          "and a floating joint has six)", joint.mimic[3], kind="dropped")
        done[joint.name] = li
        return li

    def joint_link(self, name: str, joint, parent: int, done: dict):
        if joint.type == "floating":
            if self.klampt:
                self.ctx.warn(f"joint {joint.name!r} is floating: Klamp't cannot load URDF "
                              "floating joints; read as its floating joint (six links)", joint.line,
                              kind="read differently")
            return self.floating_joint(name, joint, parent, done)
        if joint.type == "planar":
            raise FormatError(self.path, joint.line, None, f"joint {joint.name!r} is planar: "
                              "Klamp't cannot load URDF planar joints (model the DOFs as "
                              "prismatic and revolute joints)")
        axis = _FROZEN_AXES[2] if joint.axis is None or not joint.axis.any() else joint.axis
        if joint.type != "fixed" and not self.klampt and not _unit_along_frame(axis):
            axis, n = unit_vector(axis)       # (a unit vector to rounding is kept as written)
            if abs(n - 1.0) > UNIT_TOL:
                self.scaled_axes.append(f"{name} (|axis| = {n!r})")
        link = Link(name, parent, "prismatic" if joint.type == "prismatic" else "revolute", axis,
                    joint.origin, *self.mass(name), joint_name=joint.name)
        lim = joint.limit or {}
        qmin, qmax = lim.get("lower", -INF), lim.get("upper", INF)
        vmax, tmax = lim.get("velocity", INF), lim.get("effort", INF)
        if joint.type != "fixed" and (vmax < 0 or tmax < 0):
            self.negative_limits.append((joint.line, f"{joint.name} (effort={tmax!r}, velocity={vmax!r})"))
        amax = self.s.links.get(name, {}).get("accMax", self.s.default_acc_max)
        jtype = {"revolute": "normal", "prismatic": "normal", "continuous": "spin",
                 "fixed": "weld"}[joint.type]
        if jtype == "spin":
            qmin, qmax = -INF, INF
        elif jtype == "weld":
            qmin = qmax = vmax = amax = 0.0
        li = self.add(link, qmin, qmax, vmax, amax, tmax)
        self.urdf_links[li] = name
        self.joints.append(Joint(jtype, [li]))
        if joint.mimic is not None and jtype == "weld" and not self.klampt:
            self.ctx.warn(f"fixed joint {joint.name!r}: <mimic joint={joint.mimic[0]!r}> ignored "
                          "(a fixed joint does not move; pinocchio, yourdfpy and MuJoCo ignore it "
                          "too)", joint.mimic[3], kind="ignored")
        elif joint.mimic is not None and not self.klampt:
            self.deferred.append((li, joint, name, jtype))   # every mimic, after every joint
        else:
            mimicked = joint.mimic is not None and self.add_mimic(li, joint, done)
            if not mimicked and jtype in ("normal", "spin"):
                self.normal_driver(li, joint, name)
        done[joint.name] = li
        return li

    def build(self) -> Robot:
        order = link_order(self.model, self.path)
        root = order[0][0]
        floating = root != self.s.world_frame
        if floating:
            self.base(root)
        at = [5 if floating else -1]         # roboio index of each position of the order
        done: dict = {}
        for name, joint, parent in order[1:]:
            at.append(self.joint_link(name, joint, at[parent], done))
        self.resolve_mimics(done)
        for name in self.s.links:
            if name not in self.model.links:
                self.ctx.warn(f"<klampt><link name={name!r}>: no such link; ignored",
                              self.s.links[name]["line"], kind="invalid value")
        robot = Robot(self.model.name)
        robot.set_links(self.links, **self.lim)
        for li, value in self.held.items():
            robot.config[li] = value
        robot.joints = self.joints
        robot.drivers = self.drivers
        robot.properties = dict(self.s.properties)
        for li, name in self.urdf_links.items():
            self.geometry(robot.links[li], name)
        self.reading_notes()
        self.package_warnings()
        self.mounts_and_collisions(robot)
        return robot

    def mounts_and_collisions(self, robot: Robot):
        """Geometry mounts, self-collision pairs, robot mounts, then the pairs that name
        mounted links -- Klamp't's order."""
        from .. import loading
        from ...resolve import resolve
        mounts = []
        for key, file, T, prefix, line in self.s.mounts:
            li = link_index(robot.link_names, key)
            if li < -1 or li >= robot.num_links or (li == -1 and key != "-1"):
                raise FormatError(self.path, line, None, f"<mount link={key!r}>: no such link")
            res = resolve(file, self.path)
            if not res:
                raise FormatError(self.path, line, None, f"<mount file={file!r}>: file not found "
                                  f"(looked for: {res.describe_tried()})")
            if not is_robot_file(file):
                if li < 0:
                    raise FormatError(self.path, line, None, "a geometry cannot be mounted on the world (-1)")
                lk = robot.links[li]
                lk.geometry = mounted_geometry(lk.geometry, loading.load_geometry(res.path, self.ctx), T)
            else:
                if li < 0:
                    self.ctx.warn("<mount link=\"-1\">: mounting on the world; Klamp't 0.10.1 "
                                  "rejects this", line, kind="read differently")
                mounts.append((li, res.path, file, T, prefix, line))
        pending_on = self.s.selfcollision
        pairs = set()
        if not pending_on:
            has = [has_geometry(l.geometry) for l in robot.links]
            k = sum(has)
            self.ctx.check_claim("pairs", k * (k - 1) // 2, None,
                                 what=f"default self-collision pairs of {k:,} links with geometry")
            pairs = default_pairs(robot.parents, has)
        pending_on = self._apply_pairs(robot, pairs, pending_on, enable=True, final=False)
        pending_off = self._apply_pairs(robot, pairs, self.s.noselfcollision, enable=False, final=False)
        robot.self_collision_pairs = pairs
        for li, fn, file, T, prefix, line in mounts:
            sub = read_mounted_robot(fn, file, self.ctx, line)
            charge_mount(self.ctx, robot, sub, file, line)
            mount_robot(robot, sub, li, T, prefix,
                        warn=lambda m, l=line, **kind: self.ctx.warn(m, l, **kind))
        pairs = set(robot.self_collision_pairs)
        self._apply_pairs(robot, pairs, pending_on, enable=True, final=True)
        self._apply_pairs(robot, pairs, pending_off, enable=False, final=True)
        robot.self_collision_pairs = pairs

    def _apply_pairs(self, robot, pairs: set, items, enable: bool, final: bool) -> list:
        """Enable/disable the pairs ``items`` that resolve now; returns those that do not
        (before robot mounts) or raises for them (after)."""
        if not items:
            return []
        names = robot.link_names
        n = robot.num_links
        geo = [has_geometry(l.geometry) for l in robot.links]
        rest = []
        for a, b, line in items:
            i, j = link_index(names, a), link_index(names, b)
            if not (0 <= i < n and 0 <= j < n):
                if final:
                    what = "selfcollision" if enable else "noselfcollision"
                    raise FormatError(self.path, line, None, f"<{what}> pair ({a}, {b}): no such "
                                      f"link (links are 0..{n - 1} or their names)")
                rest.append((a, b, line))
                continue
            i, j = min(i, j), max(i, j)
            if i == j:
                if enable and not final:
                    raise FormatError(self.path, line, None, f"<selfcollision> pair ({a}, {b}) "
                                      "names the same link twice")
                continue
            if enable:
                if geo[i] and geo[j]:
                    pairs.add((i, j))
            else:
                pairs.discard((i, j))
        return rest


def build_robot(model: UrdfModel, settings: KlamptSettings, path: str, ctx: LoadContext) -> Robot:
    """The roboio Robot Klamp't makes of ``model`` with ``settings``."""
    return _Builder(model, settings, path, ctx).build()
