"""Every GraspIt! corpus robot converts to URDF and Klamp't .rob: ``roboio verify`` passes
(link frames by name), and in driver space: for random GraspIt! DOF values, the converted
model's drivers reproduce the same coupled link configuration (``config_from_drivers`` /
``drivers_from_config``), so the converted robot moves like GraspIt!'s."""
import glob
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import CORPUS
from roboio.cli.main import main
from roboio.convert import verify

GRASPIT = os.path.join(CORPUS, "graspit")
ROBOTS = [p for p in sorted(glob.glob(os.path.join(GRASPIT, "models", "robots", "*", "*.xml")))
          if not p.endswith("ShadowHand.xml")]          # GraspIt! refuses ShadowHand.xml (Fixed links)

pytestmark = [pytest.mark.skipif(not os.path.isdir(GRASPIT), reason="corpus ../shared/corpus/graspit absent"),
              pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")]


def _load(p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(p)


def _ids(p):
    return os.path.relpath(p, os.path.join(GRASPIT, "models", "robots"))


@pytest.mark.parametrize("ext", ["urdf", "rob"])
@pytest.mark.parametrize("path", ROBOTS, ids=_ids)
def test_converts_and_verifies(path, ext, tmp_path):
    r = _load(path)
    out = tmp_path / f"{r.name}.{ext}"
    roboio.save(r, out)
    r2 = _load(out)
    res = verify(r, r2, samples=20)
    assert res.ok and not res.only_a, (res.max_position_error, res.max_rotation_error, res.only_a)
    # driver space: the target's drivers reproduce GraspIt!'s couplings
    idx = {n: i for i, n in enumerate(r2.link_names)}
    rng = np.random.default_rng(3)
    for _ in range(5):
        u = [rng.uniform(d.qmin, d.qmax) for d in r.drivers]
        q = r.config_from_drivers(u)
        q2 = np.array(r2.config)
        for i, n in enumerate(r.link_names):
            q2[idx[n]] = q[i]
        np.testing.assert_allclose(r2.config_from_drivers(r2.drivers_from_config(q2), q2), q2, atol=1e-12)
        Ta, Tb = r.fk(q), r2.fk(q2)
        for i, n in enumerate(r.link_names):
            np.testing.assert_allclose(Tb[idx[n]], Ta[i], atol=1e-12)


@pytest.mark.parametrize("name", ["Barrett/Barrett.xml", "HumanHand/HumanHand20DOF.xml"])
def test_verify_command(name, tmp_path, capsys):
    src = os.path.join(GRASPIT, "models", "robots", name)
    out = str(tmp_path / "out.urdf")
    assert main(["convert", src, out]) == 0
    assert main(["verify", src, out]) == 0
    assert "OK" in capsys.readouterr().out
