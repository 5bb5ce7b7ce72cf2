"""Issue 21: couplings that are not affine -- OpenRAVE/COLLADA mimic formulas (SASA pistons
of kr210l180/kr150/zange), spherical joints' rotation vectors -- read, evaluated by
config_from_drivers/drivers_from_config/joint_space, and written by every writer (as
formulas, as MJCF polynomials, or as the nearest affine coupling with the error stated).
Expected values are computed here by hand from the formulas."""
import math
import warnings

import numpy as np
import pytest

import roboio
from collada_docs import robot_dae
from roboio.model import Driver, Link, Robot
from roboio.model.coupling import Arg, Const, ExpressionCoupling, Op


def _load(p, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(p), **kw)


def H(R=np.eye(3), t=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = t
    return T


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def sasa(a, gamma, b):          # OpenRAVE's fparser_sasa
    return math.atan2(a * math.sin(gamma), b - a * math.cos(gamma))


# a crank (joint 1) and a piston rod (joint 2) whose angle follows OpenRAVE's SASA, as the
# kuka kr210l180/kr150/zange files write it: SASA(185, 90 * 0.0174533 + Joint_2, 697.271)
PISTON = ('<formula sid="f"><target><param>kmodel1/joint2</param></target><technique_common>'
          '<math xmlns="http://www.w3.org/1998/Math/MathML"><apply>'
          '<csymbol encoding="text/xml">SASA</csymbol><cn>185</cn>'
          '<apply><plus/><apply><times/><cn>90</cn><cn>0.0174533</cn></apply>'
          '<csymbol encoding="COLLADA">kmodel1/joint1</csymbol></apply><cn>697.271</cn>'
          '</apply></math></technique_common></formula>')
LINKS = [{"name": "base", "parent": None},
         {"name": "crank", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "Joint_2",
          "limits": [(-150, 150)], "att": "<translate>1 0 0</translate>"},
         {"name": "rod", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "piston",
          "limits": [(-180, 180)], "att": "<translate>0 2 0</translate>"}]


@pytest.fixture
def piston(tmp_path):
    (tmp_path / "piston.dae").write_text(robot_dae(LINKS, formulas=PISTON))
    return tmp_path / "piston.dae"


def test_collada_sasa_formula_is_evaluated_as_openrave(piston):
    r = _load(piston)
    (d,) = r.drivers
    assert d.type == "nonlinear" and d.name == "Joint_2"
    for u in (-1.0, 0.0, 0.7):
        q = r.config_from_drivers([u])
        want = H(t=(0, 2, 0)) @ H(rz(sasa(185, 90 * 0.0174533 + u, 697.271)))
        np.testing.assert_allclose(r.fk(q)[r.link_index("rod")], want, atol=1e-12)
        np.testing.assert_allclose(r.fk(q)[r.link_index("crank")], H(rz(u), (1, 0, 0)), atol=1e-12)
        assert r.drivers_from_config(q)[0] == pytest.approx(u, abs=1e-15)
        # joint space by name, and a batch of samples, give the same coupling
        np.testing.assert_allclose(r.config_from_joints(Joint_2=u), q, atol=1e-15)
    Q = r.joint_space.sample(5, seed=3)
    for q in Q:
        assert q[2] == pytest.approx(sasa(185, 90 * 0.0174533 + q[1], 697.271), abs=1e-12)
    # the initial configuration is OpenRAVE's (the formula at Joint_2 = 0)
    assert r.config[2] == pytest.approx(sasa(185, 90 * 0.0174533, 697.271), abs=1e-12)


@pytest.mark.parametrize("ext", [".dae", ".robot.xml"])
def test_formula_writers_keep_the_coupling_exactly(piston, tmp_path, ext):
    r = _load(piston)
    out = tmp_path / ("back" + ext)
    report = roboio.save(r, str(out))
    assert not [x for x in report.lost if "coupling" in x]
    b = _load(out)
    for u in (-1.0, 0.4):
        qa, qb = r.config_from_drivers([u]), b.config_from_drivers([u])
        np.testing.assert_allclose(b.fk(qb)[b.link_index("rod")], r.fk(qa)[r.link_index("rod")], atol=1e-9)


@pytest.mark.parametrize("ext", [".urdf", ".rob"])
def test_other_writers_state_the_error_of_the_affine_coupling_they_write(piston, tmp_path, ext):
    r = _load(piston)
    report = roboio.save(r, str(tmp_path / ("out" + ext)))
    (msg,) = [x for x in report.lost if "non-affine coupling" in x]
    assert "'rod' follows joint 'Joint_2'" in msg and "largest error" in msg
    err = float(msg.split("largest error ")[1].split()[0])
    # independent check: the written affine line's error over the joint's range
    b = _load(tmp_path / ("out" + ext))
    u = np.linspace(-150, 150, 301) * math.pi / 180
    lead = [d for d in b.drivers if b.link_index("crank") in d.dofs][0]
    k = lead.dofs.index(b.link_index("rod"))
    truth = np.array([sasa(185, 90 * 0.0174533 + x, 697.271) for x in u])
    worst = np.abs(lead.offset[k] + lead.scale[k] * u - truth).max()
    assert worst == pytest.approx(err, rel=0.05)


def test_polynomial_coupling_written_as_mjcf_polycoef():
    mujoco = pytest.importorskip("mujoco")
    r = Robot("poly")
    r.add_link(Link("a", -1, "revolute", (0, 0, 1), mass=1.0), qmin=-1, qmax=1)
    r.add_link(Link("b", 0, "revolute", (0, 1, 0), mass=1.0, parent_transform=H(t=(1, 0, 0))), qmin=-2, qmax=2)
    x = Arg(0)
    quad = Op("+", [Const(0.1), Op("+", [Op("*", [Const(0.5), x]), Op("*", [Const(-0.25), Op("pow", [x, Const(2)])])])])
    r.drivers = [Driver("a", "nonlinear", [0, 1], coupling=ExpressionCoupling([0], [x, quad]), leader=0)]
    u = 0.6
    assert r.config_from_drivers([u])[1] == pytest.approx(0.1 + 0.5 * u - 0.25 * u * u, abs=1e-15)
    import tempfile, os
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "poly.xml")
        report = roboio.save(r, p, format="mjcf")
        assert not [x for x in report.lost if "coupling" in x]
        m = mujoco.MjModel.from_xml_path(p)
    assert m.neq == 1
    np.testing.assert_allclose(m.eq_data[0][:5], [0.1, 0.5, -0.25, 0, 0], atol=1e-15)


BALL = """<KinBody name="ball">
  <Body name="b0"/>
  <Body name="b1"><translation>2 0 0</translation></Body>
  <Joint name="j" type="spherical"><Body>b0</Body><Body>b1</Body><anchor>1 0 0</anchor></Joint>
</KinBody>"""


def _rotvec(v):
    v = np.asarray(v, float)
    th = np.linalg.norm(v)
    if th == 0:
        return np.eye(3)
    k = v / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def test_spherical_joint_dofs_are_openraves_rotation_vector(tmp_path):
    """balljoint.kinbody.xml: config_from_drivers(u) treated u as three angles (0.317 off)."""
    (tmp_path / "ball.kinbody.xml").write_text(BALL)
    r = _load(tmp_path / "ball.kinbody.xml")
    assert len(r.drivers) == 3 and all(d.type == "nonlinear" for d in r.drivers)
    rng = np.random.default_rng(5)
    for u in [(0.3, -0.2, 0.4), (2.5, 0.1, -1.0)] + list(rng.uniform(-2, 2, (5, 3))):
        q = r.config_from_drivers(u)
        # OpenRAVE: b1 = Trans(anchor) R(u) Trans(-anchor) T_b1(load)
        want = H(t=(1, 0, 0)) @ H(_rotvec(u)) @ H(t=(-1, 0, 0)) @ H(t=(2, 0, 0))
        np.testing.assert_allclose(r.fk(q)[r.link_index("b1")], want, atol=1e-12)
        back = r.drivers_from_config(q)
        np.testing.assert_allclose(_rotvec(back), _rotvec(u), atol=1e-12)
    report = roboio.save(r, str(tmp_path / "ball.urdf"))
    assert any("rotation-vector DOF" in x for x in report.lost)
