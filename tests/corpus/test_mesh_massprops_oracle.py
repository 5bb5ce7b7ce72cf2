"""Automass against what real Klamp't computed (oracle link masses and rigid objects).

Tolerance: Klamp't stores mesh vertices as float32 (relative rounding ~6e-8 per
coordinate), and the second moments are quadratic in them, so values agree to ~1e-7
relative; we allow 1e-6 of the largest inertia entry (and 1e-9 m on the COM, which the
symmetric meshes put at exact values).
"""
import glob
import os
import shlex

import numpy as np
import pytest

import roboio
from roboio.model.massprops import geometry_moments, inertia_from_moments

from conftest import KLAMPT, ORACLE, corpus_path, load_oracle


def close_inertia(I, ref):
    ref = np.asarray(ref, float).reshape(3, 3)
    return np.abs(I - ref).max() <= 1e-6 * np.abs(ref).max()


def test_planar3R_thincube_automass():
    o = load_oracle("robots/planar3R.rob")
    mesh = roboio.load(corpus_path("klampt", "objects", "thincube.off"))
    com, C = geometry_moments(mesh)
    for link in o["link_masses"]:
        assert np.allclose(com, link["com"], atol=1e-9)
        assert close_inertia(inertia_from_moments(link["mass"], C), link["inertia"])


def object_oracles():
    return sorted(glob.glob(os.path.join(ORACLE, "objects", "**", "*.obj.json"), recursive=True))


def test_rigid_object_automass_matches_klampt():
    files = object_oracles()
    if not files:
        pytest.skip("corpus absent")
    checked = 0
    for oj in files:
        o = load_oracle(os.path.relpath(oj, ORACLE)[:-5])
        src = os.path.join(KLAMPT, o["source"])
        # the few .obj keywords that place the mesh, read here independently of roboio
        kw = {}
        with open(src) as f:
            for line in f:
                t = shlex.split(line, comments=True)
                if t:
                    kw[t[0].lower()] = t[1:]
        if "automass" not in kw:
            continue
        g = roboio.load(os.path.join(os.path.dirname(src), kw["mesh"][0]))
        T = np.eye(4)
        if "geomscale" in kw:
            T[:3, :3] = np.diag([float(x) for x in kw["geomscale"]])
        if "geomtranslate" in kw:
            T[:3, 3] = [float(x) for x in kw["geomtranslate"]]
        g.transform = T
        com, C = geometry_moments(g)
        assert np.allclose(com, o["mass"]["com"], atol=1e-9), src
        assert close_inertia(inertia_from_moments(o["mass"]["mass"], C), o["mass"]["inertia"]), src
        checked += 1
    assert checked >= 12
