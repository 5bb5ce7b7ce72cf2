"""SR1.body and SR1.urdf (spec §8) give the same link poses, by link name, for every 100th
frame of SR1WalkPattern1.seq (joint displacement applied by joint id to both models, the
URDF's joints named after the body's links; both roots at the body's initial pose)."""
import warnings

import numpy as np
import pytest

import roboio

from conftest import corpus_path

MODEL = ("choreonoid", "share", "model", "SR1")


def test_sr1_body_and_urdf_agree_along_walk():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = roboio.load(corpus_path(*MODEL, "SR1.body"))
        urdf = roboio.load(corpus_path(*MODEL, "SR1.urdf"))
    motion = roboio.load(corpus_path("choreonoid", "sample", "SimpleController", "SR1WalkPattern1.seq"))
    info = body.extras["choreonoid"]
    joint_map = {j: body.links[i].name for j, i in enumerate(body.joint_id_links)}
    Tb = motion.link_transforms(body)[::100]
    Tu = motion.link_transforms(urdf, joint_map=joint_map, root=info["root_pose"])[::100]
    names = [body.links[i].name for i in body.source_link_order]
    assert len(names) == 30 and all(n in urdf.link_names for n in names)
    ib = [body.link_index(n) for n in names]
    iu = [urdf.link_index(n) for n in names]
    assert Tb.shape[0] == 68
    assert np.abs(Tb[:, ib] - Tu[:, iu]).max() < 1e-12
    # the joint columns really moved the URDF model: compare against the zero pose
    assert np.abs(Tu[1:, iu] - Tu[:1, iu]).max() > 0.05


def test_sr1_body_and_urdf_verify():
    """Spec §8: `roboio verify SR1.body SR1.urdf` agrees on every link (the floating bases
    carry the same names, base0..base4, so random configurations match DOF by DOF)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = roboio.load(corpus_path(*MODEL, "SR1.body"))
        urdf = roboio.load(corpus_path(*MODEL, "SR1.urdf"))
    v = roboio.verify(body, urdf, samples=50, tol=1e-12)
    assert not v.only_a and not v.only_b and len(v.matched) == 35
    assert v.ok, (v.max_position_error, v.max_rotation_error)
