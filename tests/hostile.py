"""Hostile inputs (issue 9), as generators shared by the hardening tests and the fuzzer
(``tools/fuzz_readers.py``).

Each generator writes its file(s) into a directory and returns a :class:`Hostile`: the file
to load, the ``roboio`` command line that misbehaved, and a regular expression the one-line
error must match. Sizes default to the ones of the issue; the fuzzer varies them. Nothing
here reads the corpus.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from typing import Callable, Optional

__all__ = ["Hostile", "GENERATORS", "generate"]


@dataclass
class Hostile:
    name: str
    path: str                        # the file roboio.load reads
    argv: list                       # roboio command line (without "roboio")
    expect: Optional[str]            # regex the error line must match; None: loads cleanly
    load_kwargs: dict = field(default_factory=dict)
    python: Optional[str] = None     # a Python statement to run instead of roboio.load(path)


def _write(d, name, text, mode="w"):
    p = os.path.join(d, name)
    with open(p, mode) as f:
        f.write(text)
    return p


# -- YAML (Choreonoid .seq/.body/.pseq) ----------------------------------------------------

def deep_yaml(d, ext="seq", depth=30_000, style="flow"):
    """A 60 KB file nested 30,000 levels (PyYAML's C composer recursed until it crashed)."""
    head = {"seq": "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 10\nx: ",
            "body": "format: ChoreonoidBody\nformatVersion: 2.0\nx: ",
            "pseq": "type: PoseSeq\nname: p\nrefs: "}[ext]
    if style == "flow":
        body = "[" * depth + "]" * depth
    elif style == "map":
        body = "{a: " * depth + "1" + "}" * depth
    else:                           # compact block sequences: "- - - - 1"
        body = "\n  " + "- " * depth + "1"
    p = _write(d, f"deep_{style}.{ext}", head + body + "\n")
    return Hostile(f"deep YAML .{ext} ({style}, {depth})", p, ["info", p], r"max_depth")


def yaml_alias_bomb(d, levels=9, fanout=10):
    """Anchors referring to anchors: tiny as a graph, 10^9 nodes when expanded (by the
    writer of ``convert``)."""
    lines = ["type: CompositeSeq", "content: BodyMotion", "formatVersion: 2", "frameRate: 10",
             "numFrames: 1", "components:", "  - type: MultiValueSeq", "    content: JointDisplacement",
             "    numParts: 1", "    frames: [[0]]", "bomb:"]
    lines.append("  a0: &a0 [" + ", ".join(["x"] * fanout) + "]")
    for k in range(1, levels + 1):
        lines.append(f"  a{k}: &a{k} [" + ", ".join([f"*a{k-1}"] * fanout) + "]")
    p = _write(d, "bomb.seq", "\n".join(lines) + "\n")
    out = os.path.join(d, "bomb_out.seq")
    return Hostile("YAML alias bomb (convert)", p, ["convert", p, out], r"alias|max_nodes|nodes",
                   python=f"roboio.save(roboio.load({p!r}), {out!r})")


def seq_claim(d, key="numParts", value=10**12):
    """A header claiming 10^12 parts/frames for one value."""
    other = {"numParts": ("numFrames", 1), "numFrames": ("numParts", 1)}[key]
    text = ("type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 10\n"
            "components:\n  - type: MultiValueSeq\n    content: JointDisplacement\n"
            f"    {key}: {value}\n    {other[0]}: {other[1]}\n    frames:\n      - [ 0 ]\n")
    p = _write(d, f"claim_{key}.seq", text)
    # numFrames is informational (Choreonoid ignores it): the file loads; numParts sizes rows
    expect = None if key == "numFrames" else r"numParts|max_frames|parts"
    return Hostile(f".seq {key}: {value:.0e}", p, ["info", p], expect)


def seq_frame_time(d, t=1e12):
    """A frame time of 10^12 s: resampling would need 10^13 frames."""
    text = ("type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 10\n"
            "hasFrameTime: true\ncomponents:\n  - type: MultiValueSeq\n"
            "    content: JointDisplacement\n    numParts: 1\n    frames:\n"
            f"      - [ 0, 0 ]\n      - [ {t!r}, 1 ]\n")
    p = _write(d, "far.seq", text)
    out = os.path.join(d, "far_out.seq")
    return Hostile("frame time 1e12 s, resample", p, ["motion", "resample", p, out],
                   r"max_frames|max_alloc_bytes", python=f"roboio.load({p!r}).resampled()")


def small_seq(d, frames=8, parts=2, rate=10):
    rows = "".join(f"      - [ {', '.join(str(0.01 * (i + j)) for j in range(parts))} ]\n"
                   for i in range(frames))
    text = ("type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\n"
            f"frameRate: {rate}\nnumFrames: {frames}\ncomponents:\n  - type: MultiValueSeq\n"
            f"    content: JointDisplacement\n    numParts: {parts}\n    frames:\n" + rows)
    return _write(d, "small.seq", text)


def resample_rate(d, rate=1e9):
    p = small_seq(d, frames=8)
    out = os.path.join(d, "fast.seq")
    return Hostile(f"motion resample --rate {rate:g}", p,
                   ["motion", "resample", p, out, "--rate", repr(rate)],
                   r"max_frames|max_alloc_bytes", python=f"roboio.load({p!r}).resampled({rate!r})")


# -- Inventor ---------------------------------------------------------------------------

def inventor_def_use(d, levels=21):
    """DEF/USE doubling: 1 KB, 2^21 cubes when expanded."""
    lines = ["#Inventor V2.1 ascii", "", "DEF N0 Separator { Cube { } }"]
    for k in range(1, levels + 1):
        lines.append(f"DEF N{k} Separator {{ USE N{k-1} USE N{k-1} }}")
    p = _write(d, "doubling.iv", "\n".join(lines) + "\n")
    return Hostile(f"Inventor DEF/USE doubling ({levels} levels)", p, ["info", p],
                   r"max_copies|max_nodes|max_triangles")


def inventor_file_fanout(d, files=8, fanout=10):
    """Each file includes the next one ``fanout`` times: 10^7 copies of the last."""
    for k in range(files):
        if k == files - 1:
            body = "Cube { }"
        else:
            body = " ".join(f'File {{ name "f{k+1}.iv" }}' for _ in range(fanout))
        _write(d, f"f{k}.iv", f"#Inventor V2.1 ascii\n\nSeparator {{ {body} }}\n")
    p = os.path.join(d, "f0.iv")
    return Hostile(f"Inventor File fan-out ({files} x {fanout})", p, ["info", p],
                   r"max_copies|max_files|max_nodes")


def inventor_deep(d, depth=100_000):
    p = _write(d, "deep.iv", "#Inventor V2.1 ascii\n\n" + "Separator { " * depth + "}" * depth + "\n")
    return Hostile(f"Inventor nesting {depth}", p, ["info", p], r"max_depth")


# -- Klamp't ----------------------------------------------------------------------------

_ROB_ONE = ('links "a"\nparents -1\naxis 0 0 1\njointtype r\nTparent 1 0 0 0 1 0 0 0 1 0 0 0\n'
            'q 0\nqmin 0\nqmax 0\n')


def rob_mount_fanout(d, files=8, fanout=10):
    """Each .rob mounts the next one ``fanout`` times: 10^7 links from 8 small files."""
    for k in range(files):
        mounts = "" if k == files - 1 else "".join(f'mount 0 "r{k+1}.rob"\n' for _ in range(fanout))
        _write(d, f"r{k}.rob", _ROB_ONE + mounts)
    p = os.path.join(d, "r0.rob")
    return Hostile(f".rob mount fan-out ({files} x {fanout})", p, ["info", p],
                   r"max_links|max_files|links|files|mount")


def rob_flat(d, links=11_000):
    """A flat robot of 11,000 links; ``fk --link`` on its last link (was 17 s and 814 MB)."""
    n = links
    text = ("links " + " ".join(f"l{i}" for i in range(n)) + "\n"
            "parents " + " ".join(str(i - 1) for i in range(n)) + "\n"
            "axis " + " 0 0 1" * n + "\njointtype" + " r" * n + "\n"
            "Tparent " + " 1 0 0 0 1 0 0 0 1 0 0 0.01" * n + "\n"
            "q" + " 0" * n + "\nqmin" + " -1" * n + "\nqmax" + " 1" * n + "\n")
    p = _write(d, "flat.rob", text)
    return Hostile(f"flat .rob ({n} links) fk --link", p, ["fk", p, "--link", f"l{n - 1}"], None)


def geom_group_deep(d, depth=50_000):
    """A Klamp't geometry group (``.group``: count, then streams) nested ``depth`` levels."""
    text = "1\n" + "Group 1\n" * depth + "Primitive Point 0 0 0\n"
    p = _write(d, "deep.group", text)
    return Hostile(f"Klamp't Group nesting {depth}", p, ["info", p], r"max_depth")


# -- XML --------------------------------------------------------------------------------

def xml_deep(d, depth=100_000, root="robot", ext="urdf"):
    text = (f'<?xml version="1.0"?>\n<{root} name="r">' + "<a>" * depth + "</a>" * depth
            + f"</{root}>\n")
    p = _write(d, f"deep.{ext}", text)
    return Hostile(f"XML nesting {depth} (.{ext})", p, ["info", p], r"max_depth")


def openrave_include_fanout(d, files=8, fanout=10):
    """Each OpenRAVE KinBody includes the next one ``fanout`` times: 10^7 bodies from 8 files."""
    for k in range(files):
        inner = ("".join(f'<KinBody file="k{k + 1}.kinbody.xml"/>\n' for _ in range(fanout))
                 if k < files - 1 else '<Body name="b"><Geom type="box"><extents>1 1 1</extents></Geom></Body>\n')
        _write(d, f"k{k}.kinbody.xml", f'<KinBody name="k{k}">\n{inner}</KinBody>\n')
    p = os.path.join(d, "k0.kinbody.xml")
    return Hostile(f"OpenRAVE include fan-out ({files} x {fanout})", p, ["info", p],
                   r"max_files|max_nodes|max_links|max_copies")


def xml_entity_bomb(d, ext="urdf"):
    ents = ['<!ENTITY e0 "aaaaaaaaaa">'] + [
        f'<!ENTITY e{k} "{("&e%d;" % (k - 1)) * 10}">' for k in range(1, 10)]
    text = ('<?xml version="1.0"?>\n<!DOCTYPE robot [\n' + "\n".join(ents) + "\n]>\n"
            '<robot name="&e9;"><link name="a"/></robot>\n')
    p = _write(d, f"bomb.{ext}", text)
    return Hostile(f"XML entity bomb (.{ext})", p, ["info", p], r"entit|DOCTYPE|DTD")


def truncated_urdf(d):
    text = ('<?xml version="1.0"?>\n<robot name="r">\n  <link name="base"/>\n  <link name="l1"/>\n'
            '  <joint name="j1" type="revolute">\n    <parent link="base"/><child link="l1"/>\n'
            '    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>\n'
            '  </joint>\n  <link name="l2"/>\n  <joint name="j2" type="revolute">\n'
            '    <parent link="l1"/><child link="l2"/>\n  </joint>\n</robot>\n')
    cut = text.index("<link name=\"l2\"/>") + 8
    p = _write(d, "cut.urdf", text[:cut])
    return Hostile("truncated URDF", p, ["info", p], r"truncat|ends|end of|premature")


# -- meshes -----------------------------------------------------------------------------

def ply_claim(d, count=10**12, fmt="ascii"):
    head = (f"ply\nformat {fmt} 1.0\nelement vertex {count}\nproperty float x\nproperty float y\n"
            "property float z\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n")
    if fmt == "ascii":
        p = _write(d, f"claim_{fmt}.ply", head + "0 0 0\n1 0 0\n")
    else:
        p = _write(d, f"claim_{fmt}.ply", head.encode() + bytes(24), "wb")
    return Hostile(f"PLY ({fmt}) claiming {count:.0e} vertices", p, ["info", p],
                   r"vertex|vertices|truncat|claims|max_vertices")


def off_claim(d, count=10**12):
    p = _write(d, "claim.off", f"OFF\n{count} 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    return Hostile(f"OFF claiming {count:.0e} vertices", p, ["info", p],
                   r"vertices|max_vertices|claims|truncat|expected")


def stl_claim(d, count=2**32 - 1):
    import struct
    p = _write(d, "claim.stl", b"\0" * 80 + struct.pack("<I", count) + bytes(50), "wb")
    return Hostile(f"binary STL claiming {count} triangles", p, ["info", p],
                   r"triangles|truncat|claims|max_triangles|bytes")


def pcd_claim(d, count=10**12, data="ascii"):
    text = ("VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\n"
            f"WIDTH {count}\nHEIGHT 1\nPOINTS {count}\nDATA {data}\n0 0 0\n")
    p = _write(d, "claim.pcd", text)
    return Hostile(f"PCD ({data}) claiming {count:.0e} points", p, ["info", p],
                   r"points|POINTS|max_vertices|truncat|claims")


def truncated_obj(d):
    obj = "# cube\n" + "".join(f"v {x} {y} {z}\n" for x in (0, 1) for y in (0, 1) for z in (0, 1))
    obj += "f 1 2 4\nf 1 4 3\nf 5 6 8\nf 5 8 7\n"
    p = _write(d, "cut.obj", obj[:len(obj) - 3])      # ends inside "f 5 8 7"
    return Hostile("truncated OBJ", p, ["info", p], r"truncat|ends|end of|incomplete")


# -- COLLADA --------------------------------------------------------------------------------

def collada_groups(d, groups=2000, vertices=30000, robot=True):
    """A COLLADA mesh of ``groups`` one-triangle ``<triangles>`` sets over one shared array of
    ``vertices`` positions (zange.zae's layout, which once made each set copy the whole
    array: 7.5 GB). ``robot``: the mesh on a link of a COLLADA robot, else a bare mesh."""
    vertices = max(3, int(vertices))
    pos = " ".join(f"{k * 0.001} {k % 7} {k % 5}" for k in range(vertices))
    sets = "".join(f'<triangles count="1" material="mat0"><input semantic="VERTEX" source="#g_v" '
                   f'offset="0"/><p>{(3 * k) % vertices} {(3 * k + 1) % vertices} '
                   f'{(3 * k + 2) % vertices}</p></triangles>' for k in range(int(groups)))
    mesh = (f'<geometry id="g" name="g"><mesh><source id="g_pos"><float_array id="g_arr" '
            f'count="{3 * vertices}">{pos}</float_array><technique_common><accessor source="#g_arr" '
            f'count="{vertices}" stride="3"><param name="X" type="float"/><param name="Y" type="float"/>'
            f'<param name="Z" type="float"/></accessor></technique_common></source>'
            f'<vertices id="g_v"><input semantic="POSITION" source="#g_pos"/></vertices>{sets}</mesh></geometry>')
    if robot:
        from collada_docs import robot_dae
        links = [{"name": "base", "parent": None, "geoms": ["g"]},
                 {"name": "arm", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"],
                  "att": "<translate>0 0 1</translate>"}]
        p = _write(d, "groups_robot.dae", robot_dae(links, geometries=mesh))
    else:
        p = _write(d, "groups.dae", '<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/'
                   f'2005/11/COLLADASchema" version="1.4.1"><library_geometries>{mesh}'
                   '</library_geometries><library_visual_scenes><visual_scene id="vs"><node id="n" '
                   'name="n"><instance_geometry url="#g"/></node></visual_scene></library_visual_scenes>'
                   '<scene><instance_visual_scene url="#vs"/></scene></COLLADA>')
    return Hostile(f"COLLADA mesh of {groups} triangle groups over {vertices} positions", p,
                   ["info", p], None)


# -- special files ----------------------------------------------------------------------

def fifo(d):
    p = os.path.join(d, "pipe.urdf")
    os.mkfifo(p)
    return Hostile("FIFO input", p, ["info", p], r"FIFO")


def dev_zero(d):
    return Hostile("/dev/zero --format urdf", "/dev/zero", ["info", "/dev/zero", "--format", "urdf"],
                   r"character device", load_kwargs={"format": "urdf"})


#: name -> (generator, keyword sets for the acceptance tests)
GENERATORS: dict[str, tuple[Callable, list]] = {
    "deep_yaml": (deep_yaml, [dict(ext="seq"), dict(ext="body"), dict(ext="pseq"),
                              dict(ext="seq", style="map"), dict(ext="body", style="block")]),
    "yaml_alias_bomb": (yaml_alias_bomb, [{}]),
    "seq_claim": (seq_claim, [dict(key="numParts"), dict(key="numFrames"),
                              dict(key="numParts", value=3 * 10**8)]),
    "seq_frame_time": (seq_frame_time, [{}]),
    "resample_rate": (resample_rate, [{}]),
    "inventor_def_use": (inventor_def_use, [dict(levels=21), dict(levels=23)]),
    "inventor_file_fanout": (inventor_file_fanout, [{}]),
    "inventor_deep": (inventor_deep, [{}]),
    "rob_mount_fanout": (rob_mount_fanout, [{}]),
    "rob_flat": (rob_flat, [{}]),
    "geom_group_deep": (geom_group_deep, [{}]),
    "xml_deep": (xml_deep, [dict(), dict(root="world", ext="xml"), dict(root="KinBody", ext="kinbody.xml"),
                            dict(root="COLLADA", ext="dae")]),
    "openrave_include_fanout": (openrave_include_fanout, [{}]),
    "xml_entity_bomb": (xml_entity_bomb, [dict(), dict(ext="xml")]),
    "truncated_urdf": (truncated_urdf, [{}]),
    "ply_claim": (ply_claim, [dict(), dict(fmt="binary_little_endian")]),
    "off_claim": (off_claim, [{}]),
    "stl_claim": (stl_claim, [{}]),
    "pcd_claim": (pcd_claim, [dict(), dict(data="binary")]),
    "truncated_obj": (truncated_obj, [{}]),
    "collada_groups": (collada_groups, [dict(), dict(robot=False)]),
    "fifo": (fifo, [{}]),
    "dev_zero": (dev_zero, [{}]),
}


def generate(d, rng: random.Random) -> tuple:
    """``(generator name, Hostile)``: a random hostile input with randomised sizes (for the
    fuzzer)."""
    name = rng.choice([n for n in GENERATORS if n not in ("fifo", "dev_zero")])
    gen, variants = GENERATORS[name]
    kw = dict(rng.choice(variants))
    scale = {"depth": (200, 60_000), "levels": (5, 30), "fanout": (2, 16), "files": (2, 10),
             "links": (100, 20_000), "count": (10**5, 10**15), "value": (10**6, 10**15),
             "groups": (10, 3000), "vertices": (10, 40_000)}
    import inspect
    for param in inspect.signature(gen).parameters:
        if param in scale and rng.random() < 0.7:
            lo, hi = scale[param]
            kw[param] = int(lo * (hi / lo) ** rng.random())
    if name == "stl_claim" and kw.get("count", 0) >= 2**32:
        kw["count"] = 2**32 - 1
    return name, gen(d, **kw)


# -- running one case under a time and memory guard ---------------------------------------

@dataclass
class Outcome:
    returncode: int            # negative: killed by that signal
    stdout: str
    stderr: str
    seconds: float             # wall time
    peak_mb: float             # peak resident memory of the process (ru_maxrss)
    timed_out: bool
    cpu_seconds: float = 0.0   # user + system CPU time (what the process cost, load or not)


def run_guarded(args, timeout=30.0, address_space_mb=3000, env=None, cwd=None,
                cpu_seconds=None) -> Outcome:
    """Run ``python args...`` in a subprocess with RLIMIT_AS, optionally RLIMIT_CPU (the
    process gets SIGXCPU past ``cpu_seconds``), and a wall-clock timeout; measure its wall
    time, CPU time and peak RSS.

    A bare interpreter forks the process and reports its ``wait4`` usage: the peak RSS of a
    child counts the memory of its parent from before the exec, so the parent must be small
    (the test process is not)."""
    import json
    import signal
    import subprocess
    import sys
    import threading
    import time
    full_env = dict(os.environ if env is None else env)
    full_env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    full_env["PYTHONPATH"] = root + os.pathsep + full_env.get("PYTHONPATH", "")
    rfd, wfd = os.pipe()
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-S", "-c", _MEASURE, str(wfd), str(address_space_mb),
                             str(int(cpu_seconds or 0)), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=full_env, cwd=cwd, pass_fds=(wfd,),
                            start_new_session=True)
    os.close(wfd)
    chunks = {"out": [], "err": [], "report": []}
    readers = [threading.Thread(target=lambda f, k: chunks[k].append(f.read()), args=(f, k), daemon=True)
               for f, k in ((proc.stdout, "out"), (proc.stderr, "err"),
                            (os.fdopen(rfd, "rb"), "report"))]
    for r in readers:
        r.start()
    timed_out = False
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    seconds = time.monotonic() - t0
    for r in readers:
        r.join(5)
    report = json.loads(b"".join(chunks["report"]) or b"{}")
    status = report.get("status", -9 if timed_out else proc.returncode)
    return Outcome(status, b"".join(chunks["out"]).decode(errors="replace"),
                   b"".join(chunks["err"]).decode(errors="replace"), seconds,
                   report.get("maxrss_kb", 0) / 1024.0, timed_out, report.get("cpu", 0.0))


_MEASURE = """
import json, os, resource, sys
fd, as_mb, cpu = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (as_mb << 20, as_mb << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu + 1, cpu + 3))
    os.execv(sys.executable, [sys.executable] + sys.argv[4:])
_, status, ru = os.wait4(pid, 0)
code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
os.write(fd, json.dumps({"status": code, "maxrss_kb": ru.ru_maxrss,
                         "cpu": ru.ru_utime + ru.ru_stime}).encode())
"""
