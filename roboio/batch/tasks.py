"""The work on one file (or one chunk of a motion), the same in a Dask worker and in the
single-process ``roboio convert DIR``: :func:`convert_file`, :func:`validate_file`,
:func:`fk_first`, :func:`fk_part`.

Each returns an :class:`Outcome`, a small structured record (kind ``ok``/``failed``/
``skipped``, a one-line message, seconds, the files written with their size and time), and
never raises for a problem of the file: one bad file is one failed outcome. Everything is
read with :func:`roboio.load` and written with :func:`roboio.save` (or, for Parquet parts,
:func:`roboio.formats.fileio.atomic_write`): no second reader, writer or kinematics.

Models and motions are kept in a small per-process cache keyed by path, file size and time
and load options (:func:`cached_load`), so that a worker loads the model of ``batch fk``
once, not once per task. Imports no Dask.
"""
from __future__ import annotations

import os
import threading
import time
import zlib
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Optional

__all__ = ["Options", "Outcome", "convert_file", "validate_file", "fk_first", "fk_part",
           "cached_load", "stamp"]


@dataclass(frozen=True)
class Options:
    """How files are read (the options of the single-file commands), in a form that travels
    to worker processes: ``strict``, ``search_paths`` (``--data-path``), ``package_dirs``
    (``--package-path``), ``flavor``, ``check_meshes``, ``limits`` (a
    :class:`roboio.limits.Limits`: the budget of each file's load), ``meshes`` (how writers
    treat mesh files), ``package`` (a URDF output's ROS package), ``actuators`` (an MJCF
    output's actuators; see :func:`roboio.save`)."""
    strict: bool = False
    search_paths: tuple = ()
    package_dirs: Optional[tuple] = None
    flavor: Optional[str] = None
    check_meshes: bool = True
    limits: object = None
    meshes: Optional[str] = None
    package: Optional[str] = None
    actuators: Optional[str] = None

    @classmethod
    def current(cls, *, strict=False, search_paths=None, package_dirs=None, flavor=None,
                limits=None, meshes=None, check_meshes=None, package=None,
                actuators=None) -> "Options":
        """The given options, each missing one taken from the defaults in force in this
        process (the command line's ``--data-path``, ``--package-path``, ``--flavor``,
        ``--limit`` blocks; see :func:`roboio.api.load_defaults`)."""
        from ..api import load_defaults
        from ..limits import as_limits
        d = load_defaults()
        pd = package_dirs if package_dirs is not None else d["package_dirs"]
        if isinstance(pd, dict):
            pd = tuple(sorted((str(k), os.fspath(v)) for k, v in pd.items()))
        elif pd is not None:
            pd = tuple(os.fspath(p) for p in pd)
        return cls(strict=bool(strict),
                   search_paths=tuple(os.fspath(p) for p in (search_paths if search_paths is not None
                                                              else d["search_paths"])),
                   package_dirs=pd, flavor=flavor if flavor is not None else d["flavor"],
                   check_meshes=bool(d["check_meshes"] if check_meshes is None else check_meshes),
                   limits=as_limits(limits), meshes=meshes, package=package,
                   actuators=actuators)

    def load_kwargs(self) -> dict:
        pd = self.package_dirs
        if pd and isinstance(pd[0], tuple):
            pd = dict(pd)
        return {"strict": self.strict, "search_paths": list(self.search_paths),
                "package_dirs": list(pd) if isinstance(pd, tuple) else pd, "flavor": self.flavor,
                "check_meshes": self.check_meshes, "limits": self.limits}


@dataclass
class Outcome:
    """What became of one file (or one chunk of a motion).

    ``kind``: ``"ok"``, ``"failed"`` or ``"skipped"``; ``message``: one line (why it failed
    or was skipped; for ``ok`` a remark such as losses, else empty); ``seconds``: wall time
    of the work; ``written``: ``[{"path", "size", "mtime_ns"}]`` of every file written (the
    output first); ``input_stamp``: the input's size and time when it was read (``--resume``
    redoes a file changed since), ``input_files``: ``[{"path", "size", "mtime_ns"}]`` of the
    other files its load read (included files, meshes; likewise); ``lost``/``warnings``/``problems``: the conversion
    report's losses, the reader's warnings, ``validate``'s problems; ``frames``: frames
    computed (``batch fk``), ``frame_range`` ``[start, stop, motion's frames]`` of the chunk;
    ``shared``: files this task wrote that another input of the run wrote too; ``loaded``:
    files this task loaded (not found in the cache); ``counts``: the problems (validate) or
    the report's items (convert) by severity, ``{"error": n, "warning": n, "note": n}``;
    ``format``, ``object_kind``, ``holds``: the file's format, the kind of object it holds
    (``robot``, ``world``, ...) and what is in it (validate)."""
    input: str
    kind: str
    message: str = ""
    output: Optional[str] = None
    seconds: float = 0.0
    written: list = field(default_factory=list)
    input_stamp: Optional[dict] = None
    input_files: list = field(default_factory=list)
    lost: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    frames: int = 0
    frame_range: Optional[list] = None
    shared: list = field(default_factory=list)
    loaded: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    format: Optional[str] = None
    object_kind: str = ""
    holds: str = ""

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    def to_dict(self) -> dict:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in ([], None, 0, {}, "") or k in ("kind", "seconds")}

    @classmethod
    def from_dict(cls, d: dict) -> "Outcome":
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})


def stamp(path: str, digest: bool = False) -> Optional[dict]:
    """``{"path", "size", "mtime_ns"}`` of a file, or None when it does not exist; with
    ``digest``, also ``"crc32"`` of its bytes (a written file: two inputs that write the same
    bytes to one path do not conflict)."""
    try:
        st = os.stat(path)
        out = {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        if digest:
            crc = 0
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    crc = zlib.crc32(block, crc)
            out["crc32"] = crc
    except OSError:
        return None
    return out


def note_shared_writes(outcome: "Outcome", writers: dict) -> None:
    """Record in ``writers`` (real path -> (input, crc32)) the files ``outcome`` wrote,
    noting in ``outcome.shared`` each one another input of the run also wrote with other
    bytes (a side file such as a world's robot file: the later write replaced the earlier).
    The same bytes written for two inputs (a GraspIt! robot file two worlds name unchanged)
    are no conflict."""
    for w in outcome.written:
        key = os.path.realpath(w["path"])
        other, crc = writers.setdefault(key, (outcome.input, w.get("crc32")))
        if other != outcome.input and (crc is None or crc != w.get("crc32")):
            outcome.shared.append(f"{w['path']} was also written for {other}: "
                                  f"the later write replaced the earlier")


MAX_PROBLEMS = 100      # problems of one file an outcome carries (the rest are counted)


def one_line(e: BaseException) -> str:
    """An exception as the one line a report gives it (a bug named as one)."""
    from ..errors import RoboioError
    if isinstance(e, MemoryError):
        return "out of memory (lower the limits with --limit NAME=VALUE; see docs/limits.md)"
    if isinstance(e, OSError) and e.filename:
        what = "file not found" if isinstance(e, FileNotFoundError) else (e.strerror or str(e))
        return f"{e.filename}: {what}"
    text = " ".join(str(e).split())
    if isinstance(e, (RoboioError, ValueError, OSError, TimeoutError)):
        return text
    return f"internal error in roboio (please report it): {type(e).__name__}: {text}"


def _quiet(fn):
    """Run a task with roboio's warnings not printed: they are collected on what ``load``
    returns and go into the outcome (as the command line does for one file); and its
    kinematics batches on its own thread (a worker runs as many tasks as it has threads)."""
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        import warnings
        from ..errors import RoboioWarning
        from ..kinematics.threads import limited
        with warnings.catch_warnings(), limited(1):
            warnings.simplefilter("ignore", RoboioWarning)
            return fn(*args, **kwargs)
    return run


# -- the per-process cache of loaded models and motions ----------------------------------------

_CACHE: "OrderedDict[tuple, object]" = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHE_SIZE = 8          # models and motions kept per process (least recently used dropped)


def cached_load(path: str, options: Options, loaded: Optional[list] = None):
    """:func:`roboio.load` of ``path``, shared by the tasks of this process while the file
    is unchanged (key: real path, size, modification time, options). Appends ``path`` to
    ``loaded`` when it was read now. The object is shared: callers must not modify it."""
    from ..api import load
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, options)
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    obj = load(path, **options.load_kwargs())
    if loaded is not None:
        loaded.append(path)
    with _CACHE_LOCK:
        _CACHE[key] = obj
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return obj


# -- convert --------------------------------------------------------------------------------

def cannot_hold(obj, target) -> Optional[str]:
    """Why ``target`` (a FormatInfo) cannot hold ``obj`` at all (a GraspIt! body file among
    robots into URDF), or None when it can (perhaps with losses the report lists)."""
    from ..convert import adapt
    from ..errors import OutputError
    from ..report import ConversionReport
    try:
        adapt(obj, target, ConversionReport())
    except OutputError as e:
        return e.message
    except ValueError:
        return None              # needs an option: save reports it as the failure it is
    return None


@_quiet
def convert_file(src: str, dst: str, reader: Optional[str], to: str, options: Options) -> Outcome:
    """Read ``src`` (with the format ``reader``, or by extension and content) and write
    ``dst`` in the format ``to``; creates ``dst``'s directory. A file ``to`` cannot hold at
    all (or one read only with the model that names it) is skipped."""
    from ..api import load, save
    from ..errors import CompanionFile
    from ..formats.registry import get
    t0 = time.perf_counter()
    out = Outcome(src, "ok", output=dst, input_stamp=_input_stamp(src))
    try:
        obj = load(src, reader, **options.load_kwargs())
        why = cannot_hold(obj, get(to))
        if why is None:
            os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
            report = save(obj, dst, to, meshes=options.meshes, package=options.package,
                          actuators=options.actuators)
    except CompanionFile as e:
        why = e.message          # read with the model that names it: not a model
    except Exception as e:       # noqa: BLE001 -- one bad file is one failed outcome
        out.kind, out.message, out.output = "failed", one_line(e), None
        out.seconds = time.perf_counter() - t0
        return out
    if why is not None:
        out.kind, out.message, out.output = "skipped", " ".join(why.split()), None
    else:
        out.lost = list(report.lost)
        out.warnings = list(getattr(obj, "warnings", []))
        out.input_files = [st for st in map(stamp, _others(obj, src)) if st is not None]
        files = [dst] + [f for f in report.files if f != dst]
        out.written = [s for s in (stamp(f, digest=True) for f in files) if s is not None]
        from ..diagnostics import count_line, counts
        out.counts = counts(list(report.lost) + list(report.warnings) + out.warnings)
        # the losses, the writer's remarks and the input's warnings, by severity
        out.message = count_line(out.counts) if any(out.counts.values()) else ""
    out.seconds = time.perf_counter() - t0
    return out


def _others(obj, src: str) -> list:
    """The files the load of ``src`` read besides ``src`` itself (each once)."""
    real = os.path.realpath(src)
    return list(dict.fromkeys(p for p in getattr(obj, "input_files", [])
                              if os.path.realpath(p) != real))


def _input_stamp(path: str) -> Optional[dict]:
    s = stamp(path)
    return None if s is None else {"size": s["size"], "mtime_ns": s["mtime_ns"]}


# -- validate -------------------------------------------------------------------------------

@_quiet
def validate_file(path: str, reader: Optional[str], options: Options) -> Outcome:
    """``roboio validate`` of one file: ``failed`` when it does not load or has an error
    (with ``options.strict`` a warning too; notes never fail it), else ``ok``. ``problems``
    lists each problem (``{"text", "severity", "kind", "hint"}``, at most
    :data:`MAX_PROBLEMS`), ``counts`` counts them by severity; ``format`` and ``holds`` say
    what the file is. The file is read as ``validate`` reads it (never a strict load, whose
    first note would stop it)."""
    from ..api import load
    from ..describe import holds, summary
    from ..diagnostics import as_diagnostics, count_line, counts
    from ..errors import CompanionFile, Diagnostic
    from ..validation import fails, problems
    t0 = time.perf_counter()
    out = Outcome(path, "ok", input_stamp=_input_stamp(path), format=reader)
    try:
        obj = load(path, reader, **dict(options.load_kwargs(), strict=False))
        found = as_diagnostics(problems(obj))
        out.object_kind, out.holds = _holds(obj, summary, holds)
    except CompanionFile as e:
        out.kind, out.message = "skipped", " ".join(e.message.split())
    except Exception as e:       # noqa: BLE001 -- one bad file is one failed outcome
        out.kind, out.message = "failed", one_line(e)
        out.counts = counts([Diagnostic(out.message, "error")])
    else:
        out.counts = counts(found)
        out.problems = [d.to_dict() for d in found[:MAX_PROBLEMS]]
        if len(found) > MAX_PROBLEMS:
            out.problems.append({"text": f"... and {len(found) - MAX_PROBLEMS} more",
                                 "severity": "note", "kind": None, "hint": None})
        out.message = count_line(out.counts) if found else ""
        if fails(found, options.strict):
            out.kind = "failed"
            worst = next(d for d in found if d.severity in ("error", "warning")
                         and (options.strict or d.severity == "error"))
            out.message += ": " + " ".join(worst.split())
    out.seconds = time.perf_counter() - t0
    return out


def _holds(obj, summary, holds) -> tuple:
    """``(kind, what it holds)`` of a loaded object, as ``roboio info`` says them."""
    try:
        s = summary(obj)
    except (ValueError, OSError):      # (a summary that needs a mesh that does not load)
        return type(obj).__name__, ""
    return str(s.get("kind", "")), holds(s)


# -- fk -------------------------------------------------------------------------------------

def _robot_of(obj, path: str):
    from ..model import Robot, World
    if isinstance(obj, World) and obj.robots:
        return obj.robots[0]
    if isinstance(obj, Robot):
        return obj
    raise ValueError(f"{path}: holds a {type(obj).__name__}, not a robot (--model needs one)")


def _motion_of(obj, path: str):
    """A motion as what the frames are computed from: a BodyMotion, or a Trajectory (a
    MultiPath is concatenated as Klamp't's ``getTrajectory`` does; an MJCF model's keyframes
    are one milestone each)."""
    from ..model import MultiPath, Trajectory
    from ..model.body_motion import BodyMotion
    from ..model.timeline import as_motion
    m = as_motion(obj)
    if isinstance(m, MultiPath):
        return m.to_trajectory()
    if isinstance(m, (Trajectory, BodyMotion)):
        return m
    raise ValueError(f"{path}: holds a {type(obj).__name__}, not a motion (a Choreonoid .seq, "
                     f"a Klamp't .path, .configs or multipath, an MJCF model with keyframes)")


def _frame_count(motion) -> int:
    from ..model.body_motion import BodyMotion
    return motion.num_frames if isinstance(motion, BodyMotion) else motion.num_milestones


@_quiet
def fk_first(motion_path: str, model_path: str, options: Options, chunk: int, part: str,
             links: Optional[tuple], metadata: dict) -> tuple:
    """The first task of a motion: read it, count its frames, compute its first ``chunk``
    frames into ``part`` (a motion no longer than a chunk is then done, read once). Returns
    ``(frames of the motion, Outcome)``; ``(0, failed Outcome)`` when the motion cannot be
    read. The chunks that follow (:func:`fk_part`) can go to any worker."""
    t0 = time.perf_counter()
    loaded: list = []
    try:
        total = _frame_count(_motion_of(cached_load(motion_path, options, loaded), motion_path))
    except Exception as e:       # noqa: BLE001 -- one bad file is one failed outcome
        return 0, Outcome(motion_path, "failed", one_line(e), seconds=time.perf_counter() - t0,
                          input_stamp=_input_stamp(motion_path), loaded=loaded)
    out = fk_part(motion_path, model_path, options, 0, min(total, chunk), total, part, links,
                  metadata)
    out.loaded = loaded + out.loaded
    out.seconds = time.perf_counter() - t0
    return total, out


def poses(motion, robot, start: int, stop: int, links=None) -> tuple:
    """``(times (F,), P (L, 7, F))`` of frames ``start:stop``: the pose columns
    (:func:`~roboio.kinematics.pose_vectors.pose_columns`) of the links ``links`` (indices;
    None: every link) of a BodyMotion
    (:meth:`~roboio.model.body_motion.BodyMotion.link_pose_columns`) or a Trajectory (its
    milestones through :meth:`~roboio.model.Robot.fk_pose_columns`). Times in seconds: the
    motion's frame times, else frame / frame rate; a Trajectory's times, else its milestone
    index (Klamp't's rule)."""
    import numpy as np
    from ..model.body_motion import BodyMotion
    frames = slice(start, stop)
    if isinstance(motion, BodyMotion):
        t = motion.times
        if t is not None:
            times = np.asarray(t, dtype=float)[frames]
        elif motion.frame_rate:
            times = np.arange(start, stop, dtype=float) / motion.frame_rate
        else:
            times = np.full(stop - start, np.nan)
        return times, motion.link_pose_columns(robot, links, frames=frames)
    Q = motion.milestones[frames]
    if Q.shape[1] != robot.num_links:
        raise ValueError(f"milestones have {Q.shape[1]} values, the model {robot.name!r} has "
                         f"{robot.num_links} links")
    times = motion.times[frames] if motion.times is not None else np.arange(start, stop, dtype=float)
    return np.asarray(times, dtype=float), robot.fk_pose_columns(Q, links)


@_quiet
def fk_part(motion_path: str, model_path: str, options: Options, start: int, stop: int,
            total: int, part: str, links: Optional[tuple], metadata: dict) -> Outcome:
    """Link poses of frames ``start:stop`` of ``motion_path`` on the robot of
    ``model_path`` (``total``: the motion's frame count), written atomically as the Parquet
    file ``part`` (see :mod:`roboio.batch.parquet`); ``links``: names or indices (None: every
    link)."""
    from . import parquet
    t0 = time.perf_counter()
    out = Outcome(motion_path, "ok", output=part, input_stamp=_input_stamp(motion_path),
                  frame_range=[start, stop, total])
    try:
        robot = _robot_of(cached_load(model_path, options, out.loaded), model_path)
        motion = _motion_of(cached_load(motion_path, options, out.loaded), motion_path)
        pick = parquet.link_columns(robot, links)
        index = [i for i, _ in pick]
        times, P = poses(motion, robot, start, stop,
                         None if index == list(range(robot.num_links)) else index)
        parquet.write_part(part, start, times, P, [n for _, n in pick],
                           dict(metadata, model=robot.name, model_links=list(robot.link_names),
                                frames=[start, stop]))
    except Exception as e:       # noqa: BLE001 -- one bad file is one failed outcome
        out.kind, out.message, out.output = "failed", one_line(e), None
    else:
        out.frames = stop - start
        out.written = [stamp(part)]
    out.seconds = time.perf_counter() - t0
    return out
