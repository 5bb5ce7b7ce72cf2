"""Top-level load / save functions."""
from __future__ import annotations

import contextlib
import contextvars
import os

from .errors import FormatError, OutputError
from .context import LoadContext
from .formats import registry
from .formats.fileio import require_file
from .formats.loading import realpath
from .model import Geometry, RigidObject, Robot, Terrain, World
from .report import ConversionReport

__all__ = ["load", "load_world", "save", "restate", "file_format", "formats",
           "default_search_paths", "default_package_dirs", "default_flavor", "default_check_meshes",
           "input_paths", "load_defaults"]

_SEARCH_PATHS: contextvars.ContextVar = contextvars.ContextVar("roboio_search_paths", default=())
_PACKAGE_DIRS: contextvars.ContextVar = contextvars.ContextVar("roboio_package_dirs", default=None)
_FLAVOR: contextvars.ContextVar = contextvars.ContextVar("roboio_flavor", default=None)
_CHECK_MESHES: contextvars.ContextVar = contextvars.ContextVar("roboio_check_meshes", default=False)


@contextlib.contextmanager
def default_check_meshes(check: bool):
    """Within the ``with`` block, :func:`load` calls that give no ``check_meshes`` use this
    value (the command line checks every mesh a file references when it loads it)."""
    token = _CHECK_MESHES.set(bool(check))
    try:
        yield
    finally:
        _CHECK_MESHES.reset(token)


@contextlib.contextmanager
def default_flavor(flavor):
    """Within the ``with`` block, :func:`load` calls that give no ``flavor`` use this one
    (the command line's ``--flavor``)."""
    token = _FLAVOR.set(flavor)
    try:
        yield
    finally:
        _FLAVOR.reset(token)


@contextlib.contextmanager
def default_search_paths(paths):
    """Within the ``with`` block, :func:`load` calls that give no ``search_paths`` use
    ``paths`` (the command line's ``--data-path`` options)."""
    token = _SEARCH_PATHS.set(tuple(os.fspath(p) for p in (paths or ())))
    try:
        yield
    finally:
        _SEARCH_PATHS.reset(token)


@contextlib.contextmanager
def default_package_dirs(dirs):
    """Within the ``with`` block, :func:`load` calls that give no ``package_dirs`` use
    ``dirs`` (the command line's ``--package-path`` options; None or empty: none)."""
    token = _PACKAGE_DIRS.set([os.fspath(p) for p in dirs] if dirs else None)
    try:
        yield
    finally:
        _PACKAGE_DIRS.reset(token)


def load_defaults() -> dict:
    """The defaults the ``default_*`` blocks in force give :func:`load` (``search_paths``,
    ``package_dirs``, ``flavor``, ``check_meshes``), to hand to loads in another process
    (the batch commands' workers)."""
    return {"search_paths": list(_SEARCH_PATHS.get()), "package_dirs": _PACKAGE_DIRS.get(),
            "flavor": _FLAVOR.get(), "check_meshes": _CHECK_MESHES.get()}


def formats():
    """Every format roboio knows: ``FormatInfo(name, extensions, kinds, can_read, can_write)``."""
    return registry.formats()


def load(path, format=None, *, strict: bool = False, search_paths=None, package_dirs=None,
         limits=None, flavor=None, check_meshes=None):
    """Read ``path`` into the model: World, Robot, RigidObject, Terrain, Geometry,
    Trajectory, MultiPath, BodyMotion, ... depending on what the file holds.

    The format is chosen by extension, then by content, unless ``format`` names it.
    ``strict=True`` turns every warning into a :class:`FormatError`. Warnings are also
    collected on the result as ``obj.warnings``.

    ``search_paths``: extra roots for referenced files (OpenRAVE data directories,
    ``$GRASPIT``), tried after the referring file's directory. ``package_dirs``:
    ``package://`` roots, a mapping NAME -> directory or a list of directories holding
    packages. ``limits``: resource limits (:class:`roboio.limits.Limits` or a mapping such
    as ``{"max_triangles": 10**8}``). ``flavor="klampt"`` reads files as Klamp't does where
    it differs from the format's specification (URDF: axes kept unnormalised, mimics of later
    joints ignored, ``package://`` through ``<klampt package_root>`` only; see
    docs/conversion.md); the default follows the specification and mainstream readers.

    Meshes referenced by the file are lazy: a load finds them (a missing file is a warning
    and an empty ``missing`` geometry) but opens a mesh file only when its data are first
    used, where a broken file raises its :class:`FormatError`. ``check_meshes=True`` (the
    default of the command line, and of ``strict``) opens each one during the load to check
    its header, as Klamp't does: one that fails is then a warning and a ``missing``
    geometry (see docs/urdf.md, "Loading speed").
    """
    path = os.fspath(path)
    require_file(path)
    if package_dirs is None:
        package_dirs = _PACKAGE_DIRS.get()
    if flavor is None:
        flavor = _FLAVOR.get()
    if check_meshes is None:
        check_meshes = _CHECK_MESHES.get()
    info = registry.find_reader(path, format)
    if search_paths is None:
        search_paths = _SEARCH_PATHS.get()
    ctx = LoadContext(path, strict, limits=limits, search_paths=search_paths,
                      package_dirs=package_dirs, flavor=flavor, check_meshes=check_meshes)
    ctx.stack.push_pending(lambda: realpath(path, ctx))   # (needed once a file references one)
    ctx.note_file(path)
    if flavor == "klampt":
        _klampt_extension_case(path, info, ctx)
    # Readers raise located FormatErrors for every problem of the input; any other exception
    # is a bug in roboio and propagates as it is (the CLI reports it as an internal error).
    # Recursion on input nesting is bounded by max_depth; raised far above the default, it
    # can reach Python's own stack limit, which is then the input's nesting too.
    try:
        obj = info.read(path, ctx)
        if isinstance(obj, Geometry):
            _touch(obj)
    except RecursionError:
        raise FormatError(path, None, None, f"nested too deeply for roboio to follow (max_depth="
                          f"{ctx.limits.max_depth:,} is above what the readers can recurse into; "
                          "lower it)") from None
    try:
        obj.warnings = list(ctx.warnings)
        obj.input_files = list(ctx.files)
    except AttributeError:
        pass
    return obj


def _klampt_extension_case(path: str, info, ctx) -> None:
    """Klamp't picks a robot or world loader by the exact, lower-case extension: it refuses
    ``ROBOT.ROB`` or ``ARM.URDF`` that roboio reads by their content."""
    ext = os.path.splitext(path)[1]
    if ext != ext.lower() and info.ecosystem in ("klampt", "urdf") and ext.lower() in info.extensions:
        ctx.warn(f"extension {ext!r} is not lower case: Klamp't refuses the file (it knows "
                 f"{ext.lower()!r} only); read as {info.name}", kind="read differently")


def _touch(geom):
    """A top-level geometry file is loaded eagerly, so that errors surface at load time."""
    from .model import Group, TriangleMesh
    if isinstance(geom, TriangleMesh):
        geom.load()
    elif isinstance(geom, Group):
        for c in geom.children:
            _touch(c)


def load_world(path, *, strict: bool = False, **options) -> World:
    """Like :func:`load`, but always a :class:`World`: a robot, object, terrain or geometry
    file is wrapped in a one-element world (a bare geometry becomes a terrain, as Klamp't's
    ``loadElement`` does)."""
    obj = load(path, strict=strict, **options)
    if isinstance(obj, World):
        return obj
    world = World(os.path.splitext(os.path.basename(os.fspath(path)))[0])
    world.source = os.fspath(path)
    world.warnings = list(getattr(obj, "warnings", []))
    if isinstance(obj, (Robot, RigidObject, Terrain)):
        world.add(obj)
    elif isinstance(obj, Geometry):
        world.add(Terrain(world.name, obj))
    else:
        raise FormatError(os.fspath(path), None, None,
                          f"holds a {type(obj).__name__}, not a world, robot, object, terrain or geometry")
    return world


def input_paths(obj) -> list:
    """The files ``obj`` was read from: ``input_files`` and ``source`` of the object, of a
    world's elements and of every geometry it holds (lazy meshes read theirs later)."""
    from .model import Group
    out: list = []
    seen: set = set()

    def add(p):
        if isinstance(p, (str, os.PathLike)) and p not in seen:
            seen.add(p)
            out.append(os.fspath(p))

    def geom(g, depth=0):
        if g is None or depth > 64:
            return
        src = getattr(g, "source", None)
        add(getattr(src, "path", None))
        if isinstance(g, Group):
            for c in g.children:
                geom(c, depth + 1)

    def element(e):
        for p in getattr(e, "input_files", None) or ():
            add(p)
        add(getattr(e, "source", None))
        geom(getattr(e, "geometry", None))
        for link in getattr(e, "links", None) or ():
            geom(getattr(link, "geometry", None))
            geom(getattr(link, "visual_geometry", None))

    element(obj)
    if isinstance(obj, World):
        for e in list(obj.robots) + list(obj.rigid_objects) + list(obj.terrains):
            element(e)
    return out


def _adaptable(obj, info) -> bool:
    from .convert import adapt
    try:
        adapt(obj, info, ConversionReport())
    except (ValueError, TypeError):
        return False
    return True


def _source_format(obj, path):
    """The format ``obj`` was read from, when it writes ``path``'s extension as well as any
    other format does (``.xml``: an MJCF robot saved as ``.xml`` stays MJCF, an OpenRAVE one
    OpenRAVE), else None (the extension and the registry's priorities decide)."""
    src = getattr(obj, "source", None)
    if not isinstance(src, (str, os.PathLike)):
        return None
    try:
        info = registry.find_reader(os.fspath(src))
    except (ValueError, OSError):
        return None
    if not info.can_write:
        return None
    best = max((f.matches_extension(path) for f in registry.formats() if f.can_write), default=0)
    return info.name if best and info.matches_extension(path) == best else None


def save(obj, path, format=None, *, meshes=None, package=None, actuators=None,
         overwrite_input: bool = False) -> ConversionReport:
    """Write ``obj`` to ``path`` (format by name, else by extension). Returns the
    :class:`ConversionReport` listing everything the target format could not hold.

    Where several formats write the extension (``.xml``), the format ``obj`` was read from
    wins when it is one of them; otherwise the registry's priorities decide (pass ``format``
    to choose).

    ``meshes``: how writers that convert meshes for their target (URDF, MJCF, Klamp't) treat mesh files:
    ``"keep"`` (reference readable sources where they are), ``"copy"`` (copy them beside the
    output) or ``"convert"`` (write every mesh anew); None: the format's default.

    ``package``: a ROS package name for a URDF output: mesh references become
    ``package://NAME/...`` URIs of files inside the package (its root: the output's nearest
    directory named NAME or holding a ``package.xml`` naming it, else the output's
    directory), and a minimal ``package.xml`` is written at the root (see ``docs/urdf.md``).

    ``actuators``: the actuators of an MJCF output, one per driver: ``"position"``
    (position servos with the drivers' gains and limits), ``"motor"`` (force actuators) or
    ``"none"``; not given (None): a driver read from MJCF and unchanged since keeps the
    actuators it was read with, every other driver gets a position servo (see
    ``docs/mjcf.md``).

    The files ``obj`` was read from (``obj.input_files`` set by :func:`load`, the sources
    of its elements and geometries) are not overwritten, neither as ``path`` nor as a side
    file (a robot of a world, a mesh), whatever the path, symlink or hard link naming them:
    that raises :class:`~roboio.errors.OutputError` unless ``overwrite_input=True``. Writes
    are atomic and keep an existing file's mode (:func:`roboio.formats.fileio.atomic_write`).
    """
    from .convert import adapt
    from .formats.fileio import protect_inputs, write_target
    from .formats.mesh_export import MODES
    path = os.fspath(path)
    if meshes is not None and meshes not in MODES:
        raise ValueError(f"meshes must be one of {', '.join(MODES)}, not {meshes!r}")
    if format is None:
        format = _source_format(obj, path)
    info = registry.find_writer(obj, path, format, adaptable=lambda f: _adaptable(obj, f))
    report = ConversionReport(path, info.name)
    if meshes is not None:
        report.options["meshes"] = meshes
    if actuators is not None:
        if info.name != "mjcf":
            raise ValueError(f"actuators= (--actuators) applies to MJCF outputs, not {info.name}")
        if actuators not in ("position", "motor", "none"):
            raise ValueError(f"actuators must be one of position, motor, none, not {actuators!r}")
        report.options["actuators"] = actuators
    if package is not None:
        if info.name != "urdf":
            raise ValueError(f"package= (--package) applies to URDF outputs, not {info.name}")
        report.options["package"] = package      # (the URDF writer checks the name)
    with protect_inputs(input_paths(obj), allow=overwrite_input):
        write_target(path)          # refuse a device or an input before converting anything
        try:
            obj = adapt(obj, info, report)
            info.write(obj, path, report)
        except OutputError as e:    # the target format cannot hold this object
            if e.path is None:
                raise OutputError(path, e.message) from None
            raise
    if path not in report.files:
        report.files.insert(0, path)
    return report


def file_format(path) -> str:
    """The roboio format name of the file at ``path``, as :func:`load` would choose it (an
    MJCF file by its ``<mujoco>`` root element)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        head = b""
    if b"<mujoco" in head:
        return "mjcf"
    return registry.find_reader(path).name


def restate(obj, path, format=None) -> ConversionReport:
    """The :class:`ConversionReport` that saving ``obj`` as ``path`` gives -- its renames
    (``renamed``) and the FK change it states (``fk_error``) -- without writing at ``path``:
    the writer of ``format`` (default: the format of the file at ``path``) runs into a
    temporary directory, under ``path``'s file name (GraspIt! names a robot after its file),
    which is removed afterwards. ``roboio verify`` uses it to know what a conversion A -> B
    states. Meshes are referenced where they are (``meshes="keep"``), not copied."""
    import tempfile
    path = os.fspath(path)
    fmt = format or file_format(path)
    with tempfile.TemporaryDirectory(prefix="roboio-restate-") as d:
        return save(obj, os.path.join(d, os.path.basename(path)), format=fmt, meshes="keep")
