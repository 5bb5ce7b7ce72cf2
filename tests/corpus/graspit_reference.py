"""An independent GraspIt! forward-kinematics computation for the tests, written from the
spec (``graspit.md`` §3, §6-§8), not from roboio's code: it reads the robot XML with lxml,
scans DOF slots with a regular expression, composes transforms and standard DH matrices in
millimetres, and returns the palm-frame pose of every link ``(chain, link)``."""
import math
import re

import numpy as np
from lxml import etree

_SLOT = re.compile(r"\s*.(\d+)(?:\*([0-9.\-]+))?(?:\+([-+]?[0-9.]+(?:[eE][-+]?\d+)?))?")


def _rot(axis, deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        R = [[1, 0, 0], [0, c, -s], [0, s, c]]
    elif axis == "y":
        R = [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    else:
        R = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    T = np.eye(4)
    T[:3, :3] = R
    return T


def _quat_matrix(w, x, y, z):
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]])


def _matrix_to_quat_eigen(m):
    """Eigen's Quaternion(Matrix3): trace branch, else the largest diagonal element."""
    t = np.trace(m)
    if t > 0:
        r = math.sqrt(t + 1)
        return (r / 2, (m[2, 1] - m[1, 2]) / (2 * r), (m[0, 2] - m[2, 0]) / (2 * r), (m[1, 0] - m[0, 1]) / (2 * r))
    i = 1 if m[1, 1] > m[0, 0] else 0
    if m[2, 2] > m[i, i]:
        i = 2
    j, k = (i + 1) % 3, (i + 2) % 3
    r = math.sqrt(m[i, i] - m[j, j] - m[k, k] + 1)
    q = [0.0, 0.0, 0.0]
    q[i] = r / 2
    q[j] = (m[j, i] + m[i, j]) / (2 * r)
    q[k] = (m[k, i] + m[i, k]) / (2 * r)
    return ((m[k, j] - m[j, k]) / (2 * r), q[0], q[1], q[2])


def transform(el):
    """``<transform>`` (mm): children multiplied on the right in document order."""
    T = np.eye(4)
    if el is None:
        return T
    for c in el:
        if not isinstance(c.tag, str):
            continue
        v = c.text.split()
        P = np.eye(4)
        if c.tag == "translation":
            P[:3, 3] = [float(x) for x in v]
        elif c.tag == "rotation":
            P = _rot(v[1], float(v[0]))
        elif c.tag == "rotationMatrix":
            M = np.array([float(x) for x in v]).reshape(3, 3).T          # column by column
            P[:3, :3] = _quat_matrix(*_matrix_to_quat_eigen(M))
        elif c.tag == "fullTransform":
            nums = [float(x) for x in re.findall(r"[-+]?[0-9.]+(?:[eE][-+]?\d+)?", c.text)]
            P[:3, :3] = _quat_matrix(*nums[:4])
            P[:3, 3] = nums[4:7]
        T = T @ P
    return T


def dh(theta, d, a, alpha):
    """Standard DH: Rz(theta) Tz(d) Tx(a) Rx(alpha)."""
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                     [0, sa, ca, d], [0, 0, 0, 1.0]])


def robot(path):
    """Parse the robot file into chains of joints; returns ``(dof_types, chains)`` with each
    chain ``(T_chain_mm, joints, consumed)`` and each joint a dict."""
    root = etree.parse(path, etree.XMLParser(recover=True, remove_comments=True)).getroot()
    dof_types = [d.get("type").strip() for d in root.findall("dof")]
    chains = []
    for ch in root.findall("chain"):
        joints = []
        for j in ch.findall("joint"):
            rev = j.get("type") == "Revolute"
            slot = j.find("theta" if rev else "d").text
            m = _SLOT.match(slot)
            ss = j.find("springStiffness")
            joints.append({
                "revolute": rev, "dof": int(m.group(1)),
                "ratio": float(m.group(2)) if m.group(2) else 1.0,
                "offset": float(m.group(3)) if m.group(3) else 0.0,
                "fixed": float(j.find("d" if rev else "theta").text),
                "a": float(j.find("a").text), "alpha": float(j.find("alpha").text),
                "k": float(ss.text) if ss is not None else 0.0})
        n = {"Revolute": 1, "Prismatic": 1, "Universal": 2, "Ball": 3}
        consumed = [n[l.get("dynamicJointType").strip()] for l in ch.findall("link")]
        chains.append((transform(ch.find("transform")), joints, consumed))
    return dof_types, chains


def static_ratios(dof_types, chains):
    """Per joint (global order): the ratio that multiplies the DOF value; compliant DOFs use
    GraspIt!'s hard-coded formula for joints other than 0, 2, 4, 6."""
    flat = [j for _, joints, _ in chains for j in joints]
    out = [j["ratio"] for j in flat]
    for k, t in enumerate(dof_types):
        if t != "c":
            continue
        mine = [n for n, j in enumerate(flat) if j["dof"] == k]
        if not mine:
            continue
        r1, kref = flat[mine[0]]["ratio"], flat[mine[0]]["k"]
        for n in mine:
            if n in (0, 2, 4, 6):
                continue
            kj = flat[n]["k"] or kref
            rj = flat[n]["ratio"]
            out[n] = (kref / kj) * (r1 * rj) / (r1 + rj)
    return out


def link_frames(path, dof_values):
    """``{(chain, link): 4x4 in the palm frame, metres}`` for DOF values in GraspIt! units
    (radians, millimetres)."""
    dof_types, chains = robot(path)
    ratios = static_ratios(dof_types, chains)
    out = {}
    n = 0
    for c, (T, joints, consumed) in enumerate(chains):
        last = np.cumsum(consumed) - 1
        frames = []
        for j in joints:
            q = ratios[n] * dof_values[j["dof"]]
            n += 1
            if j["revolute"]:
                T = T @ dh(q + math.radians(j["offset"]), j["fixed"], j["a"], math.radians(j["alpha"]))
            else:
                T = T @ dh(math.radians(j["fixed"]), q + j["offset"], j["a"], math.radians(j["alpha"]))
            frames.append(T)
        for l, jl in enumerate(last):
            F = frames[jl].copy()
            F[:3, 3] *= 1e-3
            out[(c, l)] = F
    return out


def dof_count_and_units(path):
    """Number of DOFs and, per DOF, whether its first joint is prismatic (mm)."""
    dof_types, chains = robot(path)
    prismatic = [None] * len(dof_types)
    for _, joints, _ in chains:
        for j in joints:
            if prismatic[j["dof"]] is None:
                prismatic[j["dof"]] = not j["revolute"]
    return len(dof_types), [bool(p) for p in prismatic]
