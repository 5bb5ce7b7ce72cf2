"""Robots from outside the corpus x every robot writer, checked as the corpus is.

The robots: every URDF of the installed ``example-robot-data`` package (loaded with
``package_dirs`` at its robots folder) and the URDFs other installed packages ship, where
installed: MuJoCo's test model, ``upkie_description``, ``pybullet_data`` (but its 1000
generated ``random_urdfs``). For each robot and writer (the writers of
:mod:`tools.conversion_matrix`, Klamp't world XML and MJCF):

* convert, read back, ``verify`` within 1e-9 or within what the report states, and
  write -> read -> write gives the same bytes (:func:`conversion_matrix.check`);
* URDF outputs are loaded by pinocchio: FK by link name within 1e-9 of the read-back
  model and the same total mass;
* MJCF outputs are compiled by MuJoCo: FK by body name, masses, inertias, couplings and
  collision filtering as roboio's model (``tests/reference/test_mjcf_mujoco.check_model``),
  and writing the same model twice gives the same bytes. When the source is MJCF itself
  (a path given on the command line), like is compared with like: its actuators (muscles,
  motors, tendon and site transmissions) are the source's written back, not one position
  actuator per driver, so they are compared with MuJoCo's compilation of the source (each
  that moves a body of the written robot kept, or named by the report), and so are the
  masses and the poses at ``qpos0`` of the bodies both models have
  (:func:`source_differences`);
* ``--cli``: the same conversion through ``roboio convert IN OUT --to FMT`` followed by
  ``roboio verify IN OUT`` (exit status and a traceback-free output).

Statuses: ``OK``; ``LOSS`` (differs only as the report states); ``REFUSED`` (the target
cannot hold the robot and says so in one line); ``FAIL`` (a wrong frame, mass, unstable
rewrite or unstated loss); ``ERROR`` (a traceback).

Usage: ``python tools/outside_robots.py [--writers a,b] [--cli] [--meshes MODE] [ROBOT ...]``
(ROBOT: paths, or substrings of the default robots' paths). Prints one line per pair and
the counts per writer.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import glob
import importlib.util
import io
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np
from lxml import etree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tools"), os.path.join(ROOT, "tests"),
                os.path.join(ROOT, "tests", "reference")]

import conversion_matrix as cm  # noqa: E402

import roboio  # noqa: E402
from roboio.errors import OutputError  # noqa: E402

cm.WRITERS.setdefault("klampt-world", "w.xml")      # conversion_matrix.check names outputs by it
WRITERS = {**cm.WRITERS, "mjcf": "m.xml"}
STATUSES = ("OK", "LOSS", "REFUSED", "FAIL", "ERROR")


def example_robot_data_root():
    """The ``robots`` folder of the installed ``example-robot-data`` distribution, or None."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        d = distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots")
    except (ImportError, PackageNotFoundError):
        return None
    return str(d) if os.path.isdir(str(d)) else None


def outside_robots() -> list:
    """[(path, package_dirs)] of the installed robots that are not in the corpus."""
    out = []
    erd = example_robot_data_root()
    if erd:
        out += [(p, [erd]) for p in sorted(glob.glob(os.path.join(erd, "**", "*.urdf"), recursive=True))]
    for module, pattern in (("mujoco", "testdata/model.urdf"), ("upkie_description", "urdf/*.urdf"),
                            ("pybullet_data", "**/*.urdf")):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        base = list(spec.submodule_search_locations)[0]
        out += [(p, []) for p in sorted(glob.glob(os.path.join(base, pattern), recursive=True))
                if "random_urdfs" not in p]       # pybullet's 1000 generated single bodies
    return out


def load(path, package_dirs=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = roboio.load(path, package_dirs=package_dirs, **kw)
    return obj.robots[0] if isinstance(obj, roboio.World) else obj


def pinocchio_check(out, back, package_dirs=()) -> str:
    """'' when pinocchio reads ``out`` with the FK (by link name, 1e-9) and total mass of
    ``back`` (the model roboio reads from ``out``), else what differs. ``package_dirs``:
    where the source's ``package://`` meshes are (the written URDF keeps those references)."""
    from test_urdf_reference import pinocchio_fk, urdf_structure
    import pinocchio as pin
    names = back.link_names
    written = set(urdf_structure(out)[0])      # not the virtual links of a floating base
    links = [i for i, n in enumerate(names) if n in written and names.count(n) == 1]
    Q = cm_sample(back, 4)
    ours = back.fk_batch(Q)[:, links]
    theirs = pinocchio_fk(out, back, Q, links)
    err = np.abs(theirs - ours).max(initial=0.0)
    model = pin.buildModelFromUrdf(os.fspath(out))
    mass = sum(model.inertias[i].mass for i in range(model.njoints))
    total = sum(l.mass for l in back.links)
    msgs = []
    # pinocchio finds relative mesh references through package_dirs only (not beside the file)
    try:
        _, cgeom, vgeom = pin.buildModelsFromUrdf(os.fspath(out), package_dirs=[os.path.dirname(os.fspath(out)), *package_dirs])
        root = etree.parse(os.fspath(out)).getroot()
        want = (len(root.findall("link/collision")), len(root.findall("link/visual")))
        if (cgeom.ngeoms, vgeom.ngeoms) != want:
            msgs.append(f"pinocchio reads {cgeom.ngeoms} collision / {vgeom.ngeoms} visual geometries of {want}")
    except (ValueError, RuntimeError) as e:
        msgs.append(f"pinocchio cannot read the geometry: {str(e)[:120]}")
    if err > 1e-9:
        k = np.unravel_index(np.argmax(np.abs(theirs - ours)), theirs.shape)[1]
        msgs.append(f"pinocchio FK differs by {err:.1e} at {names[links[k]]!r}")
    if abs(mass - total) > 1e-9 * max(1.0, total):
        msgs.append(f"pinocchio mass {mass!r} != {total!r}")
    return "; ".join(msgs)


def cm_sample(robot, n, seed=7):
    from test_mjcf_mujoco import sample
    return sample(robot, n, seed)


def is_mjcf(path) -> bool:
    from roboio.formats.registry import find_reader
    try:
        return find_reader(path).name == "mjcf"
    except Exception:  # noqa: BLE001  (no reader: not MJCF)
        return False


def _stated(report) -> str:
    """Every loss of ``report`` with all the names it concerns, as one text."""
    return "\n".join(str(d) for d in report.lost)


def _names(stated: str, name: str, about: str) -> bool:
    """Whether a loss of ``stated`` about ``about`` ("actuator", "mass") names ``name`` (as
    a group's item: ``name (...)``, ``name,`` or at the end)."""
    pattern = re.compile(r"(^|[:,(]\s*|\s)" + re.escape(name) + r"(\s\(|,|\)|$)")
    return any(about in line and pattern.search(line) for line in stated.splitlines())


def source_differences(src, out, report, tol=1e-9) -> list:
    """What differs between MuJoCo's compilations of an MJCF source ``src`` and of roboio's
    output ``out`` (names mapped through ``report.renamed``): actuators (type of
    transmission and its target's name, gear, dynamics, gain and bias, control and force
    ranges; one the output lacks must be named by a loss of the report), masses (relative
    1e-9) and world poses at ``qpos0`` (``tol`` plus the report's FK error) of the bodies
    both models have."""
    import mujoco
    a, b = mujoco.MjModel.from_xml_path(src), mujoco.MjModel.from_xml_path(out)
    obj = mujoco.mjtObj
    renamed = {k: {old: new for old, new in v.items() if isinstance(new, str)}
               for k, v in report.renamed.items()}
    stated = _stated(report)
    msgs = []

    def named(m, kind, k, fallback):
        return mujoco.mj_id2name(m, kind, k) or fallback

    trn_kind = {int(mujoco.mjtTrn.mjTRN_JOINT): (obj.mjOBJ_JOINT, "joints"),
                int(mujoco.mjtTrn.mjTRN_JOINTINPARENT): (obj.mjOBJ_JOINT, "joints"),
                int(mujoco.mjtTrn.mjTRN_TENDON): (obj.mjOBJ_TENDON, None),
                int(mujoco.mjtTrn.mjTRN_SITE): (obj.mjOBJ_SITE, None),
                int(mujoco.mjtTrn.mjTRN_BODY): (obj.mjOBJ_BODY, "links")}

    def target(m, k, mapped):
        kind, space = trn_kind.get(int(m.actuator_trntype[k]), (None, None))
        if kind is None:
            return None
        n = named(m, kind, int(m.actuator_trnid[k][0]), f"#{int(m.actuator_trnid[k][0])}")
        return renamed.get(space, {}).get(n, n) if mapped and space else n

    links = renamed.get("links", {})
    bodies_b = {named(b, obj.mjOBJ_BODY, k, ""): k for k in range(1, b.nbody)}

    def written(k) -> bool:
        """Whether source actuator ``k`` moves a body the output has (the tool writes one
        robot of a world: the others' actuators are not expected)."""
        kind = int(a.actuator_trntype[k])
        i = int(a.actuator_trnid[k][0])
        if kind == int(mujoco.mjtTrn.mjTRN_TENDON):
            wraps = range(a.tendon_adr[i], a.tendon_adr[i] + a.tendon_num[i])
            ids = [int(a.jnt_bodyid[a.wrap_objid[w]]) if a.wrap_type[w] == mujoco.mjtWrap.mjWRAP_JOINT
                   else int(a.site_bodyid[a.wrap_objid[w]]) if a.wrap_type[w] == mujoco.mjtWrap.mjWRAP_SITE
                   else -1 for w in wraps]
        elif kind in (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_JOINTINPARENT)):
            ids = [int(a.jnt_bodyid[i])]
        elif kind == int(mujoco.mjtTrn.mjTRN_SITE):
            ids = [int(a.site_bodyid[i])]
        elif kind == int(mujoco.mjtTrn.mjTRN_BODY):
            ids = [i]
        else:
            return True
        names = [named(a, obj.mjOBJ_BODY, j, "") for j in ids if j > 0]
        return not names or any(links.get(n, n) in bodies_b for n in names)

    acts_a = {named(a, obj.mjOBJ_ACTUATOR, k, f"#{k}"): k for k in range(a.nu) if written(k)}
    acts_b = {named(b, obj.mjOBJ_ACTUATOR, k, f"#{k}"): k for k in range(b.nu)}
    for n, k in acts_a.items():
        j = acts_b.get(n)
        if j is None:
            if not _names(stated, n, "actuator"):
                msgs.append(f"actuator {n!r} of the source is not written and the report does not say so")
            continue
        if int(a.actuator_trntype[k]) != int(b.actuator_trntype[j]) or target(a, k, True) != target(b, j, False):
            msgs.append(f"actuator {n!r} drives {target(b, j, False)!r}, the source's {target(a, k, True)!r}")
            continue
        for field in ("actuator_gear", "actuator_dyntype", "actuator_dynprm", "actuator_gaintype",
                      "actuator_gainprm", "actuator_biastype", "actuator_biasprm", "actuator_ctrllimited",
                      "actuator_forcelimited"):
            x, y = np.asarray(getattr(a, field)[k], float), np.asarray(getattr(b, field)[j], float)
            if not np.allclose(x, y, rtol=1e-12, atol=0):
                msgs.append(f"actuator {n!r}: {field} {y.tolist()} != the source's {x.tolist()}")
        for field, flag in (("actuator_ctrlrange", "actuator_ctrllimited"),
                            ("actuator_forcerange", "actuator_forcelimited")):
            if getattr(a, flag)[k] and not np.allclose(getattr(a, field)[k], getattr(b, field)[j], rtol=1e-12, atol=0):
                msgs.append(f"actuator {n!r}: {field} {getattr(b, field)[j]} != the source's {getattr(a, field)[k]}")
    for n in acts_b:
        if n not in acts_a:
            msgs.append(f"actuator {n!r} is not the source's")
    # bodies both have: masses and poses at qpos0
    da, db = mujoco.MjData(a), mujoco.MjData(b)
    mujoco.mj_kinematics(a, da)
    mujoco.mj_kinematics(b, db)
    tol_pos = tol + 2 * report.fk_error[0]
    tol_rot = tol + 2 * report.fk_error[1]
    for k in range(1, a.nbody):
        n = named(a, obj.mjOBJ_BODY, k, "")
        j = bodies_b.get(links.get(n, n))
        if not n or j is None:
            continue
        if abs(a.body_mass[k] - b.body_mass[j]) > 1e-9 * max(a.body_mass[k], 1e-300) and not _names(stated, n, "mass"):
            msgs.append(f"body {n!r}: mass {b.body_mass[j]!r} != the source's {a.body_mass[k]!r}")
        if (np.abs(da.xpos[k] - db.xpos[j]).max() > tol_pos
                or np.abs(da.xmat[k] - db.xmat[j]).max() > tol_rot):
            msgs.append(f"body {n!r}: pose at qpos0 differs from the source's")
    return msgs


def check_mjcf(src, package_dirs, tmp, meshes=None):
    """(status, message) of ``src`` written as MJCF and checked by MuJoCo."""
    from test_mjcf_mujoco import check_collisions, check_model
    robot = load(src, package_dirs)
    out = os.path.join(tmp, WRITERS["mjcf"])
    rep = roboio.save(robot, out, format="mjcf", meshes=meshes)
    s1 = open(out, "rb").read()
    from_mjcf = is_mjcf(src)
    src_path = os.path.abspath(src)
    cwd = os.getcwd()
    os.chdir(tmp)                          # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    try:
        m = check_model(robot, out, rep, from_mjcf=from_mjcf)
        check_collisions(m, robot)
        bad = source_differences(src_path, out, rep) if from_mjcf else []
    finally:
        os.chdir(cwd)
    if bad:
        return "FAIL", "; ".join(bad[:4]) + (f" (+{len(bad) - 4} more)" if len(bad) > 4 else "")
    roboio.save(load(src, package_dirs), out, format="mjcf", meshes=meshes, overwrite_input=True)
    if open(out, "rb").read() != s1:
        return "FAIL", "writing the same model twice gives different bytes"
    return ("LOSS" if rep.lost else "OK"), f"fk_error={max(rep.fk_error):.1e} lost={len(rep.lost)}"


def check_pair(src, package_dirs, fmt, tmp, meshes=None):
    if fmt == "mjcf":
        return check_mjcf(src, package_dirs, tmp, meshes)
    old = os.environ.get("ROS_PACKAGE_PATH")
    if package_dirs:                       # conversion_matrix.check loads without options
        os.environ["ROS_PACKAGE_PATH"] = os.pathsep.join(package_dirs)
    try:
        status, msg = cm.check(src, fmt, tmp)
    finally:
        if old is None:
            os.environ.pop("ROS_PACKAGE_PATH", None)
        else:
            os.environ["ROS_PACKAGE_PATH"] = old
    if fmt == "urdf":
        out = os.path.join(tmp, WRITERS[fmt])
        bad = pinocchio_check(out, load(out, package_dirs), package_dirs)
        if bad:
            status, msg = "FAIL", f"{bad}; {msg}"
    return status, msg


def run_cli(argv) -> tuple:
    """(exit status, output) of ``roboio ARGV`` run in this process."""
    from roboio.cli.main import main
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
    return rc, buf.getvalue()


def check_cli(src, package_dirs, fmt, tmp, meshes=None):
    """``roboio convert SRC OUT --to FMT`` then ``roboio verify SRC OUT`` (not for MJCF,
    which roboio does not read)."""
    out = os.path.join(tmp, "cli", WRITERS[fmt])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    pp = [a for d in package_dirs for a in ("--package-path", d)]
    rc, text = run_cli(["convert", src, out, "--to", fmt, *pp] + (["--meshes", meshes] if meshes else []))
    if "Traceback" in text:
        return "ERROR", "convert: " + text.strip().splitlines()[-1]
    if rc != 0:
        return "REFUSED", "convert: " + " | ".join(text.strip().splitlines()[-2:])
    if fmt == "mjcf":
        return "OK", "converted"
    tol = 1e-9
    m = re.search(r"fk error[^0-9]*([0-9.eE+-]+)", text)
    if m:
        tol += 2 * float(m.group(1))
    rc, vtext = run_cli(["verify", src, out, "--tol", repr(tol), *pp])   # verify picks its space
    if "Traceback" in vtext:
        return "ERROR", "verify: " + vtext.strip().splitlines()[-1]
    status = "FAIL" if rc != 0 else ("LOSS" if "lost:" in text or "up to what B" in vtext else "OK")
    return status, "verify: " + " | ".join(vtext.strip().splitlines()[-2:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robots", nargs="*", help="paths, or substrings of the default robots' paths")
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--cli", action="store_true", help="convert and verify through the command line")
    ap.add_argument("--meshes", choices=("keep", "copy", "convert"))
    ap.add_argument("--package-path", action="append", default=[], metavar="DIR")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")          # lazily read meshes warn outside load()
    writers = args.writers.split(",")
    robots = outside_robots()
    if args.robots:
        given = [(p, args.package_path) for p in args.robots if os.path.isfile(p)]
        robots = given + [(p, d) for p, d in robots if any(s in p for s in args.robots if not os.path.isfile(s))]
    counts = collections.defaultdict(collections.Counter)
    tmp_root = tempfile.mkdtemp(prefix="roboio-outside-")
    try:
        _run(robots, writers, args, counts, tmp_root)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)   # every pair's outputs (hundreds of MB)
    print()
    print(f"{'writer':16} " + " ".join(f"{s:>7}" for s in STATUSES))
    for fmt in writers:
        c = counts[fmt]
        print(f"{fmt:16} " + " ".join(f"{c[s]:7d}" for s in STATUSES))
    return 0


def _run(robots, writers, args, counts, tmp_root) -> None:
    """Every (robot, writer) pair, one line each; outputs under ``tmp_root``."""
    for src, dirs in robots:
        name = src if len(src) < 60 else "..." + src[-57:]
        try:
            load(src, dirs)
        except Exception as e:  # noqa: BLE001  (a robot roboio refuses, as its programs do)
            print(f"SKIP  {name}: {str(e)[-120:]}")
            continue
        for fmt in writers:
            t0 = time.time()
            tmp = tempfile.mkdtemp(dir=tmp_root)
            try:
                if args.cli:
                    status, msg = check_cli(src, dirs, fmt, tmp, args.meshes)
                else:
                    status, msg = check_pair(src, dirs, fmt, tmp, args.meshes)
            except OutputError as e:
                status, msg = "REFUSED", str(e)[:200]
            except AssertionError as e:
                tb = traceback.extract_tb(e.__traceback__)[-1]
                status, msg = "FAIL", f"{str(e)[:300]} at {os.path.basename(tb.filename)}:{tb.lineno}"
            except Exception as e:  # noqa: BLE001
                tb = traceback.extract_tb(e.__traceback__)[-1]
                status, msg = "ERROR", f"{type(e).__name__}: {str(e)[:200]} at {tb.filename}:{tb.lineno}"
            counts[fmt][status] += 1
            print(f"{status:7} {os.path.basename(src)} -> {fmt}: {msg} ({time.time() - t0:.1f}s)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
