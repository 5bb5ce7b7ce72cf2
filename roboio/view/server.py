"""The browser viewer behind ``roboio view``, built on viser (a three.js client bundled in
its wheel: the page loads nothing from the network).

Scene layout (viser node names): model ``m`` (0 = the first file, 1 = the second) is the
node ``/m{m}``; its robot ``r`` link ``i`` is ``/m{m}/r{r}/L{i}``, placed at its world
transform from roboio's forward kinematics (``robot.fk``), with children ``visual``,
``collision`` (the meshes ``visual/k``, point clouds ``visual/points{k}``, in the link
frame), ``axes`` and ``label``; rigid objects and terrains are ``/m{m}/o{k}`` and
``/m{m}/t{k}``. Point clouds are viser point clouds (round points, float32 positions) in
their own colours, else the element's, with the diameter
:func:`roboio.model.posed.point_size` gives in metres. A second model is shown overlaid (same
place, translucent) or side by side (``/m1`` shifted to the right of the first as the
initial camera sees it).

GUI, top to bottom: for a motion, its timeline (play/pause, time, speed) first, so that Play
is on the first screen whatever the number of joints; the view options (link frames, link
names, visual / collision geometry, the layout of two models, colliding links drawn in red
(their collision geometry, ``/m{m}/r{r}/L{i}/hit/k``) and listed when the collision engine is
installed, ``roboio[collision]``); one slider per driver of each
robot (joint space, limits respected: the driver's, else the link's, else +-180 deg / +-1 m),
in degrees for revolute joints and metres for prismatic ones, with the limits marked and a
number field for exact values; the pose is updated through ``robot.config_from_drivers`` and
``robot.fk``. A joint name too long for the panel is cut with an ellipsis; the whole name,
its unit and limits are the slider's tooltip. Links whose origins coincide in every
configuration (a multi-axis joint, a floating base's six links) share one name label. For
two models, the per-link error of :func:`roboio.convert.verify` and the live error at the
current pose. The initial camera frames the robots and objects (a floor is not framed).
"""
from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..model.posed import scene_elements
from ..model import Geometry, Robot, Terrain, World
from ..transforms import matrix_to_quat
from . import require

__all__ = ["Viewer", "free_port", "check_port", "SliderSpec", "slider_specs", "short_label",
           "display_scale", "label_groups", "LABEL_WIDTH"]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on at ``host`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def check_port(host: str, port: int) -> None:
    """Raise OSError unless ``port`` at ``host`` is free to listen on (a port asked for
    explicitly must be that port: an ssh tunnel or a bookmark points at it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, int(port)))
        except OSError as e:
            raise OSError(f"port {port} on {host} is in use or not available ({e.strerror}); "
                          "choose another --port, or leave it out for a free one") from None


def _rgb8(c) -> tuple:
    return tuple(int(round(255 * max(0.0, min(1.0, float(x))))) for x in c[:3])


@dataclass
class SliderSpec:
    """One slider: ``label``, range ``lo``..``hi`` and how its value maps to and from a
    link configuration, all in the model's units (radians, metres); ``unit`` is ``"rad"``
    or ``"m"``. The GUI shows radians as degrees (:func:`display_scale`)."""

    label: str
    lo: float
    hi: float
    get: Callable[[np.ndarray], float]
    set: Callable[[np.ndarray, float], np.ndarray]
    unit: str = "rad"


#: widest joint name shown whole beside a slider, in widths of a capital letter (the GUI's
#: label column holds about ten; a longer label wraps, at underscores)
LABEL_WIDTH = 10.2
_NARROW = set("iIl.,:;|!'`() ")
_LOWER = set("abcdeghknopqsuvxyz0123456789")


def _width(text: str) -> float:
    return sum(0.45 if c in _NARROW else 0.62 if c in "fjrt-_" else 0.78 if c in _LOWER
               else 1.0 for c in text)


def short_label(name: str, width: float = LABEL_WIDTH) -> str:
    """``name`` as the label column shows it: whole when it fits, else its start and its
    end around an ellipsis (``LARM_SHOULDER_P`` -> ``LARM_…DER_P``: the end tells joints of
    a limb apart). The slider's tooltip has the whole name."""
    if _width(name) <= width:
        return name
    head, tail = "", ""
    budget = width - 1.0                    # the ellipsis
    i, j = 0, len(name)
    while i < j:
        take_tail = _width(tail) < _width(head)
        c = name[j - 1] if take_tail else name[i]
        if _width(c) > budget:
            break
        budget -= _width(c)
        if take_tail:
            tail, j = c + tail, j - 1
        else:
            head, i = head + c, i + 1
    return head + "…" + tail


def display_scale(unit: str) -> tuple:
    """(factor, suffix, step) of the GUI for a value in ``unit``: degrees in 0.01 deg steps
    for radians, metres in 0.1 mm steps."""
    return (180.0 / np.pi, "°", 0.01) if unit == "rad" else (1.0, " m", 1e-4)


def slider_specs(robot: Robot) -> list[SliderSpec]:
    """One :class:`SliderSpec` per driver (``robot.drivers``); a robot without drivers
    gets one per link that can move (qmin < qmax)."""
    specs = []
    drivers = list(robot.drivers)
    for k, d in enumerate(drivers):
        if d.type not in ("normal", "affine", "nonlinear") or not d.dofs:
            continue
        link = robot.links[d.dofs[0]]
        lo, hi = d.qmin, d.qmax
        if not (np.isfinite(lo) and np.isfinite(hi)) and d.type == "normal":
            lo, hi = robot.qmin[d.dofs[0]], robot.qmax[d.dofs[0]]
        span = 1.0 if link.joint_type == "prismatic" else np.pi
        lo = float(lo) if np.isfinite(lo) else -span
        hi = float(hi) if np.isfinite(hi) else span
        specs.append(SliderSpec(d.name or f"driver {k}", lo, hi,
                                (lambda q, k=k: float(robot.drivers_from_config(q)[k])),
                                (lambda q, u, k=k: _set_driver(robot, q, k, u)),
                                "m" if link.joint_type == "prismatic" else "rad"))
    if specs or drivers:
        return specs
    for link in robot.links:
        i = link.index
        if robot.qmin[i] < robot.qmax[i]:
            span = 1.0 if link.joint_type == "prismatic" else np.pi
            lo = float(robot.qmin[i]) if np.isfinite(robot.qmin[i]) else -span
            hi = float(robot.qmax[i]) if np.isfinite(robot.qmax[i]) else span
            specs.append(SliderSpec(link.name, lo, hi, (lambda q, i=i: float(q[i])),
                                    (lambda q, u, i=i: _set_dof(q, i, u)),
                                    "m" if link.joint_type == "prismatic" else "rad"))
    return specs


def _set_driver(robot, q, k, u):
    values = robot.drivers_from_config(q)
    values[k] = u
    return robot.config_from_drivers(values, q)


def _set_dof(q, i, u):
    q = np.array(q, float)
    q[i] = u
    return q


def as_world(obj) -> World:
    """``obj`` in a World: a robot, rigid object or terrain added as it is, a bare geometry
    (a mesh or point cloud file) as a terrain named ``geometry``."""
    if isinstance(obj, World):
        return obj
    w = World(getattr(obj, "name", "model"))
    w.add(Terrain("geometry", obj) if isinstance(obj, Geometry) else obj)
    return w


EYE = np.array([1.0, -1.0, 0.7]) / np.linalg.norm([1.0, -1.0, 0.7])   # scene -> initial camera
SIDE = np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)     # the initial camera's right, horizontal


def label_groups(robot: Robot, q=None, samples: int = 4, tol: float = 1e-9) -> list:
    """``[(first link, [links])]``: links whose origins coincide at ``q`` and at ``samples``
    random configurations (a floating base's six links, a multi-axis joint) grouped, so that
    their name labels are drawn once (``a / b / c``) instead of on top of each other; each
    group is labelled at its first link. Links in no group are their own."""
    n = robot.num_links
    if n == 0:
        return []
    rng = np.random.default_rng(0)
    lo = np.where(np.isfinite(robot.qmin), robot.qmin, -np.pi)
    hi = np.where(np.isfinite(robot.qmax), robot.qmax, np.pi)
    Q = [np.array(robot.config if q is None else q, float)]
    Q += [rng.uniform(np.minimum(lo, hi), np.maximum(lo, hi)) for _ in range(samples)]
    origins = np.stack([robot.fk(x)[:, :3, 3] for x in Q], axis=1)      # (n, S, 3)
    scale = max(float(np.ptp(origins.reshape(-1, 3), axis=0).max()), 1e-3)
    keys = np.round(origins.reshape(n, -1) / (tol * scale))
    _, group_of = np.unique(keys, axis=0, return_inverse=True)
    members: dict = {}
    for i, g in enumerate(group_of.reshape(-1)):
        members.setdefault(int(g), []).append(i)
    return sorted((m[0], m) for m in members.values())


@dataclass
class _Model:
    world: World
    label: str
    root: object = None
    links: dict = field(default_factory=dict)      # (robot, link) -> frame handle
    groups: dict = field(default_factory=dict)     # "visual"/"collision"/"axes"/"label" -> handles
    configs: dict = field(default_factory=dict)    # robot index -> q
    hits: dict = field(default_factory=dict)       # (robot, link) -> red collision meshes
    size: float = 1.0
    bounds: Optional[np.ndarray] = None


class Viewer:
    """A running viewer. ``models``: one or two loaded objects (World, Robot, RigidObject,
    Terrain, Geometry); ``configs``: initial configurations per robot of the first model
    ({robot index: q}); ``motion``: a motion played on the first model's first robot."""

    def __init__(self, models, labels=None, *, configs=None, motion=None, port: Optional[int] = None,
                 verify_samples: int = 100, tol: float = 1e-6):
        viser = require("viser", "roboio view")
        self.host = "127.0.0.1"
        if port is not None:
            check_port(self.host, port)     # viser would quietly take another one
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):    # viser prints a banner; we print the URL
            self.server = viser.ViserServer(host=self.host, port=port or free_port(), verbose=False)
        self.server.gui.configure_theme(show_share_button=False, show_logo=False, control_width="large")
        self.server.scene.set_up_direction("+z")
        labels = labels or [f"model {k}" for k in range(len(models))]
        self.models = [_Model(as_world(m), labels[k]) for k, m in enumerate(models)]
        self.lock = threading.RLock()
        self._syncing = False
        self.tol = tol
        self.timeline = None
        self._playing = False
        self._stop = threading.Event()
        self.latency = []           # seconds from a slider event to the poses sent
        for k, m in enumerate(self.models):
            for r, robot in enumerate(m.world.robots):
                q = (configs or {}).get(r) if k == 0 else None
                m.configs[r] = np.array(robot.config if q is None else q, float)
        self.matches = self._match_links()
        self._sync_second()
        for k, m in enumerate(self.models):
            self._build_scene(k, m)
        self.sliders = []
        if motion is not None:
            self._build_timeline(motion)
        self._build_gui(verify_samples)
        if motion is not None:
            self.show_frame(0)
            threading.Thread(target=self._player, daemon=True).start()
        self._place_camera()

    # -- scene -----------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.server.get_port()}"

    def _match_links(self):
        """(robot of model 1, [(link in A, link in B)]) matched by name, verify's rule."""
        if len(self.models) < 2 or not self.models[0].world.robots or not self.models[1].world.robots:
            return None
        ra, rb = self.models[0].world.robots[0], self.models[1].world.robots[0]
        idx_b = {}
        for i, n in enumerate(rb.link_names):
            idx_b.setdefault(n, i)
        pairs = [(i, idx_b[n]) for i, n in enumerate(ra.link_names) if n in idx_b]
        return pairs or None

    def _sync_second(self):
        """Model B's first robot takes model A's values on every link whose name matches."""
        if self.matches:
            qa, qb = self.models[0].configs[0], self.models[1].configs[0]
            for i, j in self.matches:
                qb[j] = qa[i]

    def _build_scene(self, k: int, m: _Model):
        sc = self.server.scene
        m.root = sc.add_frame(f"/m{k}", show_axes=False)
        elements = scene_elements(m.world, m.configs)
        focus = any(em.kind != "terrain" for em in elements)   # frame robots and objects
        labels = {}
        for r, robot in enumerate(m.world.robots):
            for first, group in label_groups(robot, m.configs[r]):
                labels[(r, first)] = " / ".join(robot.links[i].name for i in group)
        pts, framing = [], []
        opacity = 0.55 if k == 1 else None
        counts = {"rigid_object": 0, "terrain": 0}     # scene_elements keeps file order per kind
        for em in elements:
            if em.kind == "link":
                name = f"/m{k}/r{em.robot}/L{em.link}"
            else:
                name = f"/m{k}/{'o' if em.kind == 'rigid_object' else 't'}{counts[em.kind]}"
                counts[em.kind] += 1
            frame = sc.add_frame(name, show_axes=False, wxyz=matrix_to_quat(em.transform[:3, :3]),
                                 position=em.transform[:3, 3])
            n_before = len(pts)
            if em.kind == "link":
                m.links[(em.robot, em.link)] = frame
            same = em.visual is em.collision
            for group in ("visual", "collision"):
                parts = em.visual if group == "visual" else em.collision
                clouds = em.visual_points if group == "visual" else em.collision_points
                for p_i, part in enumerate(parts):
                    h = self._add_part(f"{name}/{group}/{p_i}", part, opacity,
                                       visible=(group == "visual"))
                    m.groups.setdefault(group, []).append(h)
                    if group == "visual" or not same:
                        pts.append(part.vertices @ em.transform[:3, :3].T + em.transform[:3, 3])
                for p_i, cloud in enumerate(clouds):
                    h = self._add_points(f"{name}/{group}/points{p_i}", cloud, visible=(group == "visual"))
                    m.groups.setdefault(group, []).append(h)
                    if group == "visual" or not same:
                        pts.append(cloud.points @ em.transform[:3, :3].T + em.transform[:3, 3])
            if em.kind == "link":
                m.hits[(em.robot, em.link)] = [
                    sc.add_mesh_simple(f"{name}/hit/{p_i}", part.vertices, part.faces,
                                       color=(230, 30, 30), opacity=0.7, side="double", visible=False)
                    for p_i, part in enumerate(em.collision)]
                m.groups.setdefault("axes", []).append(
                    sc.add_frame(f"{name}/axes", show_axes=True, axes_length=0.1, axes_radius=0.004,
                                 visible=False))
                text = labels.get((em.robot, em.link))
                if text:
                    m.groups.setdefault("label", []).append(
                        sc.add_label(f"{name}/label", text, visible=False, font_screen_scale=0.8,
                                     anchor="bottom-left"))
            if em.kind != "terrain" or not focus:
                framing.extend(pts[n_before:])
        pts = framing
        allpts = np.concatenate(pts) if pts else np.zeros((1, 3))
        allpts = allpts[np.all(np.isfinite(allpts), axis=1)]
        allpts = allpts if len(allpts) else np.zeros((1, 3))
        m.bounds = np.stack([allpts.min(axis=0), allpts.max(axis=0)])
        m.size = float(max(np.linalg.norm(m.bounds[1] - m.bounds[0]), 1e-3))

    def _add_part(self, name, part, opacity, visible):
        sc = self.server.scene
        if part.vertex_colors is None:
            return sc.add_mesh_simple(name, part.vertices, part.faces, color=_rgb8(part.color),
                                      opacity=opacity, side="double", visible=visible,
                                      flat_shading=False)
        import trimesh
        vc = np.clip(np.round(np.asarray(part.vertex_colors) * 255), 0, 255).astype(np.uint8)
        tm = trimesh.Trimesh(part.vertices, part.faces, vertex_colors=vc, process=False)
        return sc.add_mesh_trimesh(name, tm, visible=visible)

    def _add_points(self, name, cloud, visible):
        if cloud.point_colors is not None:
            colors = np.clip(np.round(cloud.point_colors[:, :3] * 255), 0, 255).astype(np.uint8)
        else:
            colors = _rgb8(cloud.color)
        pts = np.nan_to_num(np.asarray(cloud.points, np.float32))
        return self.server.scene.add_point_cloud(name, pts, colors, point_size=float(cloud.size),
                                                 point_shape="circle", precision="float32",
                                                 visible=visible)

    def _place_camera(self):
        b = self.models[0].bounds
        if len(self.models) > 1 and self._layout == "side by side":
            b = np.stack([np.minimum(b[0], self.models[1].bounds[0] + self._offset()),
                          np.maximum(b[1], self.models[1].bounds[1] + self._offset())])
        c = (b[0] + b[1]) / 2
        d = max(np.linalg.norm(b[1] - b[0]), 0.2)
        cam = self.server.initial_camera
        cam.look_at = tuple(c)
        cam.position = tuple(c + d * EYE * 1.4)
        cam.up = (0.0, 0.0, 1.0)

    def _offset(self):
        """Where model B goes side by side: to the right of A as the initial camera sees it
        (along ``SIDE``, horizontal and square to the view), a fifth of A's width apart."""
        a, b = self.models[0].bounds, self.models[1].bounds

        def extent(bounds):      # the box's extent along SIDE
            corners = np.array([[x, y] for x in bounds[:, 0] for y in bounds[:, 1]])
            s = corners @ SIDE[:2]
            return s.min(), s.max()
        a0, a1 = extent(a)
        b0, b1 = extent(b)
        return SIDE * ((a1 - b0) + 0.2 * (a1 - a0 + 0.1))

    # -- poses -----------------------------------------------------------------------
    def set_poses(self, k: int, r: int, T: np.ndarray):
        m = self.models[k]
        for i in range(len(T)):
            h = m.links.get((r, i))
            if h is not None:
                h.wxyz = matrix_to_quat(T[i, :3, :3])
                h.position = T[i, :3, 3]

    def update(self, transforms: Optional[np.ndarray] = None):
        """Send every link pose (model A's robot 0 from ``transforms`` when a motion gives
        them, else from FK of the current configuration)."""
        with self.lock, self.server.atomic():
            self._sync_second()
            for k, m in enumerate(self.models):
                for r, robot in enumerate(m.world.robots):
                    T = transforms if (transforms is not None and k == 0 and r == 0) else robot.fk(m.configs[r])
                    self.set_poses(k, r, T)
                    self._update_hits(k, r, T)
            self._update_errors()

    def _update_hits(self, k: int, r: int, T: np.ndarray):
        """Show the red copies of the links of robot ``r`` of model ``k`` that collide at
        link frames ``T``: with another of its links (its self-collision pairs) or, in a world,
        with a rigid object, terrain or another robot."""
        m = self.models[k]
        if not getattr(self, "highlight", False) or not m.hits:
            hit = set()
        else:
            robot = m.world.robots[r]
            hit = {i for pair in self._collision_model(robot).collisions_at(np.ascontiguousarray(T))
                   for i in pair}
            if len(m.world.robots) > 1 or m.world.rigid_objects or m.world.terrains:
                links = {id(l): i for i, l in enumerate(robot.links)}
                for a, b in m.world.collisions(m.configs):
                    hit |= {links[id(e)] for e in (a, b) if id(e) in links}
        names = []
        for (rr, i), handles in m.hits.items():
            if rr != r:
                continue
            on = i in hit
            for h in handles:
                if h.visible != on:
                    h.visible = on
            if on:
                names.append(m.world.robots[r].link_names[i])
        if k == 0 and r == 0 and getattr(self, "hit_md", None) is not None:
            self.hit_md.content = ("**colliding links**: " + ", ".join(f"`{n}`" for n in names)
                                   if names else "no colliding links")

    def _collision_model(self, robot):
        from ..collision import model_for
        return model_for(robot)

    # -- GUI -------------------------------------------------------------------------
    def _build_gui(self, verify_samples):
        gui = self.server.gui
        self._layout = "overlay"
        self.highlight, self.hit_md = False, None
        with gui.add_folder("Collisions"):
            try:
                from ..collision import get_engine
                get_engine()
            except ImportError as e:
                gui.add_markdown(f"collision highlighting: {e}")
            else:
                box = gui.add_checkbox("Highlight colliding links", True)
                self.highlight = True
                self.hit_md = gui.add_markdown("")

                @box.on_update
                def _(_):
                    self.highlight = bool(box.value)
                    self.update()
        with gui.add_folder("View"):
            frames = gui.add_checkbox("Link frames", False)
            names = gui.add_checkbox("Link names", False)
            geom = gui.add_dropdown("Geometry", ("visual", "collision", "both"), initial_value="visual")

            @frames.on_update
            def _(_):
                self._show("axes", frames.value)

            @names.on_update
            def _(_):
                self._show("label", names.value)

            @geom.on_update
            def _(_):
                self._show("visual", geom.value in ("visual", "both"))
                self._show("collision", geom.value in ("collision", "both"))
            if len(self.models) > 1:
                layout = gui.add_dropdown("Layout", ("overlay", "side by side"), initial_value="overlay")

                @layout.on_update
                def _(_):
                    self._layout = layout.value
                    off = self._offset() if layout.value == "side by side" else np.zeros(3)
                    self.models[1].root.position = off
                    self._place_camera()
        for k, m in enumerate(self.models):
            for r, robot in enumerate(m.world.robots):
                if k == 1 and r == 0 and self.matches:
                    continue      # follows model A by link name
                specs = slider_specs(robot)
                if not specs:
                    continue
                title = f"Joints: {robot.name}" + (f" ({m.label})" if len(self.models) > 1 else "")
                with gui.add_folder(title):
                    for spec in specs:
                        self._add_slider(k, r, spec)
                    reset = gui.add_button("Reset")

                    @reset.on_click
                    def _(_, k=k, r=r, robot=robot):
                        self.models[k].configs[r] = np.array(robot.config, float)
                        self._refresh_sliders()
                        self.update()
        self.error_md = None
        if len(self.models) > 1 and self.matches:
            from ..convert import verify
            ra, rb = self.models[0].world.robots[0], self.models[1].world.robots[0]
            res = verify(ra, rb, samples=verify_samples)
            self.verify_result = res
            with gui.add_folder("Compare"):
                rows = sorted(res.per_link.items(), key=lambda kv: -max(kv[1]))
                lines = [f"**verify** ({res.samples} random configurations): max position error "
                         f"{res.max_position_error:.3g} m, rotation {res.max_rotation_error:.3g} rad, "
                         f"worst link `{res.worst_link}`; only in A: {len(res.only_a)}, only in B: "
                         f"{len(res.only_b)}", "", "| link | position (m) | rotation (rad) |",
                         "|---|---|---|"]
                lines += [f"| `{n}` | {p:.3g} | {a:.3g} |" for n, (p, a) in rows[:40]]
                gui.add_markdown("\n".join(lines))
                self.error_md = gui.add_markdown("")
        self.update()

    def _add_slider(self, k, r, spec: SliderSpec):
        gui = self.server.gui
        q = self.models[k].configs[r]
        f, suffix, step = display_scale(spec.unit)
        u = spec.get(q)
        lo, hi = min(spec.lo, u) * f, max(spec.hi, u) * f
        if hi <= lo:
            hi = lo + step
        marks = ((lo, f"{lo:.4g}{suffix}"), (hi, f"{hi:.4g}{suffix}"))
        hint = (f"{spec.label} ({'degrees' if spec.unit == 'rad' else 'metres'}): "
                f"{lo:.6g}{suffix} .. {hi:.6g}{suffix}")
        s = gui.add_slider(short_label(spec.label), lo, hi, step, float(np.clip(u * f, lo, hi)),
                           marks=marks, hint=hint)
        self.sliders.append((k, r, spec, s))

        @s.on_update
        def _(_):
            if self._syncing:
                return
            t0 = time.perf_counter()
            with self.lock:
                m = self.models[k]
                m.configs[r] = spec.set(m.configs[r], float(s.value) / f)
            self.update()
            self.latency.append(time.perf_counter() - t0)

    def _refresh_sliders(self):
        self._syncing = True
        try:
            for k, r, spec, s in self.sliders:
                f = display_scale(spec.unit)[0]
                u = spec.get(self.models[k].configs[r]) * f
                s.value = float(min(max(u, s.min), s.max))
        finally:
            self._syncing = False

    def _show(self, group, visible):
        with self.server.atomic():
            for m in self.models:
                for h in m.groups.get(group, []):
                    h.visible = visible

    def _update_errors(self):
        if self.error_md is None:
            return
        ra, rb = self.models[0].world.robots[0], self.models[1].world.robots[0]
        Ta, Tb = ra.fk(self.models[0].configs[0]), rb.fk(self.models[1].configs[0])
        errs = [(ra.link_names[i], float(np.linalg.norm(Ta[i, :3, 3] - Tb[j, :3, 3]))) for i, j in self.matches]
        errs.sort(key=lambda e: -e[1])
        worst = ", ".join(f"`{n}` {e:.3g} m" for n, e in errs[:3])
        self.error_md.content = f"**at this pose**: largest link position differences: {worst}"

    # -- motion ----------------------------------------------------------------------
    def _build_timeline(self, motion):
        from .motion import timeline
        robot = self.models[0].world.robots[0]
        tl = timeline(motion, robot)
        self.timeline = tl
        gui = self.server.gui
        with gui.add_folder("Motion"):
            self.play = gui.add_button("Play / pause", icon="player-play")
            dt = 1.0 / tl.rate
            end = tl.end if tl.end > tl.start else tl.start + dt
            self.time_slider = gui.add_slider("Time (s)", tl.start, end, dt, tl.start)
            self.speed = gui.add_number("Speed", 1.0, min=0.01, max=100.0, step=0.1)
            self.frame_md = gui.add_markdown("")

        @self.play.on_click
        def _(_):
            self._playing = not self._playing

        @self.time_slider.on_update
        def _(_):
            self.show_frame(tl.frame_at(float(self.time_slider.value) + 1e-9))

    def show_frame(self, i: int):
        tl = self.timeline
        with self.lock:
            if tl.configs is not None:
                self.models[0].configs[0] = np.array(tl.configs[i], float)
                self._refresh_sliders()
            self.update(tl.transforms(i))
        self.frame_md.content = f"frame {i + 1} / {tl.num_frames}, t = {tl.times[i]:.4g} s"

    def _player(self):
        tl = self.timeline
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(max(1.0 / min(tl.rate, 60.0), 0.005))
            now = time.perf_counter()
            if self._playing:
                t = float(self.time_slider.value) + (now - last) * float(self.speed.value)
                if t > tl.end:
                    t = tl.start
                self.time_slider.value = t
            last = now

    def stop(self):
        self._stop.set()
        self.server.stop()
