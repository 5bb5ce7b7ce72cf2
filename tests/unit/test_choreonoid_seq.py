"""Choreonoid .seq reader/writer on hand-written files (expected arrays written by hand)."""
import math
import textwrap
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.formats.choreonoid import _seq_fast, seq as seqmod
from roboio.model.body_motion import BodyMotion, Seq


def write(tmp_path, text, name="m.seq"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(p)


def load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path, **kw)


def bits(a):
    return np.asarray(a, dtype=float).view(np.int64)


@pytest.fixture(autouse=True)
def both_frame_parsers(seq_parser):
    """Every test here runs with the compiled frame parser and with the numpy one."""
    return seq_parser


@pytest.fixture(params=["fast", "yaml"])
def path_kind(request, monkeypatch):
    """Run a test with the fast frame parser and with the general YAML path only."""
    if request.param == "yaml":
        monkeypatch.setattr(_seq_fast, "parse_block", lambda *a, **k: None)
    return request.param


V2 = """
type: CompositeSeq
content: BodyMotion
formatVersion: 2
frameRate: 100
numFrames: 999
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 3
    frames:
      - [ 0, -0.5, 1e-05 ]
      - [ 3, .5, -0 ]
      - [ +2.5, 1.5E+2, 0.000123 ]
"""


def test_v2_joint_displacement_and_inherited_rate(tmp_path, path_kind):
    m = load(write(tmp_path, V2))
    assert isinstance(m, BodyMotion)
    assert m.format_version == 2 and m.frame_rate == 100 and m.num_frames == 3   # numFrames ignored
    expected = np.array([[0, -0.5, 0.00001], [3, 0.5, -0.0], [2.5, 150, 0.000123]])
    assert np.array_equal(bits(m.joint_displacement), bits(expected))
    assert math.copysign(1, m.joint_displacement[1, 2]) == -1          # "-0" keeps its sign
    assert m.link_positions is None and m.zmp is None and m.times is None
    assert m.duration == pytest.approx(0.03)


V4 = """
type: CompositeSeq
content: BodyMotion
format_version: 4
frame_rate: 50
num_frames: 2
components:
  -
    type: MultiSE3Seq
    content: LinkPosition
    frame_rate: 50
    num_frames: 2
    num_parts: 2
    SE3Format: XYZQWQXQYQZ
    frames:
      - [ [ 0, 0, 0.7135, 1, 0, 0, 0 ], [ 1, 2, 3, 0, 1, 0, 0 ] ]
      - [ [ 0.1, 0, 0.7, 0.5, 0.5, 0.5, 0.5 ], [ 1, 2, 3, 0, 0, 1, 0 ] ]
  -
    type: MultiValueSeq
    content: JointDisplacement
    frame_rate: 50
    num_frames: 2
    num_parts: 2
    part_labels: [ "J0", "J1" ]
    frames:
      - [ 0.1, 0.2 ]
      - [ 0.3, 0.4 ]
  -
    type: Vector3Seq
    content: ZMP
    frame_rate: 50
    num_frames: 2
    is_root_relative: true
    frames:
      - [ 0.01, 0.02, -0.7 ]
      - [ 0.03, 0.04, -0.7 ]
"""


def test_v4_snake_case_all_roles(tmp_path, path_kind):
    m = load(write(tmp_path, V4))
    assert m.format_version == 4 and m.frame_rate == 50 and m.num_frames == 2
    lp = np.array([[[0, 0, 0.7135, 1, 0, 0, 0], [1, 2, 3, 0, 1, 0, 0]],
                   [[0.1, 0, 0.7, 0.5, 0.5, 0.5, 0.5], [1, 2, 3, 0, 0, 1, 0]]])
    assert np.array_equal(m.link_positions, lp)
    assert np.array_equal(m.joint_displacement, [[0.1, 0.2], [0.3, 0.4]])
    assert np.array_equal(m.zmp, [[0.01, 0.02, -0.7], [0.03, 0.04, -0.7]])
    assert m.component("zmp").is_root_relative
    assert m.component("joint_displacement").part_labels == ["J0", "J1"]


V1 = """
type: BodyMotion
frameRate: 10
components:
  -
    type: MultiAffine3Seq
    purpose: LinkPosition
    numParts: 1
    format: XYZQXQYQZQW
    frames:
      - [ [ 1, 2, 3, 0.1, 0.2, 0.3, 0.9 ] ]
  -
    type: MultiValueSeq
    purpose: JointPosition
    numParts: 1
    frames:
      - [ 0.25 ]
  -
    type: Vector3Seq
    purpose: RelativeZMP
    frames:
      - [ 1, 2, 3 ]
"""


def test_v1_old_names_and_qx_first_quaternions(tmp_path, path_kind):
    m = load(write(tmp_path, V1))
    assert m.format_version == 1
    assert np.array_equal(m.link_positions, [[[1, 2, 3, 0.9, 0.1, 0.2, 0.3]]])   # reordered w first
    assert m.component("link_position").se3_format == "XYZQXQYQZQW"
    assert np.array_equal(m.joint_displacement, [[0.25]])
    assert m.component("zmp").is_root_relative


@pytest.mark.parametrize("name", ["walk.yaml", "walk.yml"])
def test_motions_named_yaml_are_read_as_choreonoid_loads_them(tmp_path, name):
    # Choreonoid's BodyMotionItem loads "seq;yaml": old walks were saved as .yaml (format
    # version 1, top type BodyMotion); before, roboio read them as body descriptions
    # ("neither format nor modelFile is specified")
    m1 = load(write(tmp_path, V1, name))
    assert m1.format_version == 1 and np.array_equal(m1.joint_displacement, [[0.25]])
    m2 = load(write(tmp_path, V2, "v2" + name))
    assert m2.format_version == 2 and m2.joint_displacement.shape == (3, 3)
    # a YAML file that is no motion is still a body description's error
    other = write(tmp_path, "materials:\n  - name: default\n", "materials.yaml")
    with pytest.raises(FormatError, match="neither format nor modelFile"):
        load(other)


def test_v3_content_names(tmp_path):
    text = """
    type: CompositeSeq
    formatVersion: 3
    frameRate: 10
    components:
      - { type: MultiValueSeq, content: MultiJointDisplacementSeq, numParts: 1, frames: [[1], [2]] }
      - { type: Vector3Seq, content: ZMPSeq, frames: [[1, 2, 3], [4, 5, 6]] }
    """
    m = load(write(tmp_path, text))
    assert np.array_equal(m.joint_displacement, [[1], [2]])
    assert np.array_equal(m.zmp, [[1, 2, 3], [4, 5, 6]])


def test_content_of_another_version_is_an_extra(tmp_path):
    text = V2.replace("JointDisplacement", "JointPosition")
    with pytest.warns(roboio.RoboioWarning, match="JointPosition"):
        m = roboio.load(write(tmp_path, text))
    assert m.joint_displacement is None
    assert m.components[0].content == "JointPosition" and m.components[0].role is None


def test_xyzrpy_becomes_quaternion(tmp_path, path_kind):
    text = """
    type: CompositeSeq
    formatVersion: 2
    frameRate: 1
    components:
      -
        type: MultiSE3Seq
        content: LinkPosition
        numParts: 1
        SE3Format: XYZRPY
        frames:
          - [ [ 1, 2, 3, 0, 0, 1.5707963267948966 ] ]
          - [ [ 0, 0, 0, 1.0471975511965976, 0, 0 ] ]
    """
    m = load(write(tmp_path, text))
    s = math.sqrt(0.5)
    assert np.allclose(m.link_positions[0, 0], [1, 2, 3, s, 0, 0, s], atol=1e-15)     # yaw 90 deg
    assert np.allclose(m.link_positions[1, 0], [0, 0, 0, math.cos(math.pi / 6), math.sin(math.pi / 6), 0, 0],
                       atol=1e-15)                                                      # roll 60 deg


def test_rpy_order_is_z_y_x(tmp_path):
    r, p, y = 0.3, -0.4, 1.1
    text = f"""
    type: CompositeSeq
    formatVersion: 2
    frameRate: 1
    components:
      - {{ type: MultiSE3Seq, content: LinkPosition, numParts: 1, SE3Format: XYZRPY,
          frames: [ [ [ 0, 0, 0, {r!r}, {p!r}, {y!r} ] ] ] }}
    """
    m = load(write(tmp_path, text))
    q = m.link_positions[0, 0, 3:]

    def qmul(a, b):
        w1, x1, y1, z1 = a
        w2, x2, y2, z2 = b
        return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                         w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])

    qz = [math.cos(y / 2), 0, 0, math.sin(y / 2)]
    qy = [math.cos(p / 2), 0, math.sin(p / 2), 0]
    qx = [math.cos(r / 2), math.sin(r / 2), 0, 0]
    assert np.allclose(q, qmul(qmul(qz, qy), qx), atol=1e-15)


TIMED = """
type: CompositeSeq
formatVersion: 2
frameRate: 10
hasFrameTime: true
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 2
    frames:
      - [ 0, 0, 10 ]
      - [ 0.1, 1, 11 ]
      - [ 0.3, 2, 12 ]
      - [ 0.4, 3, 13 ]
      - [ 0.7, 4, 14 ]
"""


def test_frame_times_inherited_and_choreonoid_resampling(tmp_path, path_kind):
    m = load(write(tmp_path, TIMED))
    assert np.array_equal(m.times, [0, 0.1, 0.3, 0.4, 0.7])
    assert np.array_equal(m.joint_displacement, [[0, 10], [1, 11], [2, 12], [3, 13], [4, 14]])
    r = m.resampled()                      # spec §2.6: [s0, s1, s1, s2, s3, s3, s3, s4]
    assert r.times is None and r.frame_rate == 10
    s = [[0, 10], [1, 11], [2, 12], [3, 13], [4, 14]]
    assert np.array_equal(r.joint_displacement, [s[0], s[1], s[1], s[2], s[3], s[3], s[3], s[4]])


def test_component_level_frame_time_se3_and_vector3(tmp_path, path_kind):
    text = """
    type: CompositeSeq
    formatVersion: 4
    frame_rate: 100
    components:
      -
        type: MultiSE3Seq
        content: LinkPosition
        num_parts: 1
        SE3Format: XYZQWQXQYQZ
        has_frame_time: true
        frames:
          - [ 0.02, [ 1, 0, 0, 1, 0, 0, 0 ] ]
          - [ 0.29, [ 2, 0, 0, 0, 0, 0, 1 ] ]
      -
        type: Vector3Seq
        content: ZMP
        hasFrameTime: true
        frames:
          - [ 0.05, 1, 2, 3 ]
    """
    m = load(write(tmp_path, text))
    assert np.array_equal(m.times, [0.02, 0.29])
    assert np.array_equal(m.link_positions[:, 0], [[1, 0, 0, 1, 0, 0, 0], [2, 0, 0, 0, 0, 0, 1]])
    assert np.array_equal(m.component("zmp").times, [0.05])
    r = m.resampled()
    lp = r.link_positions[:, 0]
    # 0.29 * 100 = 28.999999999999996 -> frame 28 (truncation); 0.02 -> frame 2; frames 0, 1
    # default (identity pose), 3..27 hold frame 2
    assert lp.shape == (29, 7)
    assert np.array_equal(lp[0], [0, 0, 0, 1, 0, 0, 0]) and np.array_equal(lp[1], lp[0])
    assert np.array_equal(lp[2:28], np.repeat([[1, 0, 0, 1, 0, 0, 0]], 26, axis=0))
    assert np.array_equal(lp[28], [2, 0, 0, 0, 0, 0, 1])
    assert np.array_equal(r.zmp, [[0, 0, 0]] * 5 + [[1, 2, 3]])


def test_decreasing_times_warn_and_overwrite(tmp_path):
    text = TIMED.replace("[ 0.3, 2, 12 ]", "[ 0.05, 2, 12 ]")
    with pytest.warns(roboio.RoboioWarning, match=r"decrease at frame 2"):
        m = roboio.load(write(tmp_path, text))
    assert m.warnings and ":13:" in m.warnings[0]          # line of that frame
    r = m.resampled()      # sample 2 (t=0.05) overwrites frame 0: the later sample wins
    assert np.array_equal(r.joint_displacement[:2], [[2, 12], [1, 11]])


def test_linear_resampling_values_and_slerp(tmp_path):
    c = Seq("MultiSE3Seq", "LinkPosition", [[[0, 0, 0, 1, 0, 0, 0]], [[2, 4, 0, 0, 0, 0, 1]]],
            times=[0, 1], frame_rate=4, role="link_position")
    j = Seq("MultiValueSeq", "JointDisplacement", [[0.0], [1.0]], times=[0, 1], frame_rate=4,
            role="joint_displacement")
    m = BodyMotion([c, j])
    r = m.resampled(4, method="linear")
    assert np.allclose(r.joint_displacement[:, 0], [0, 0.25, 0.5, 0.75, 1.0])
    lp = r.link_positions[:, 0]
    assert np.allclose(lp[:, :3], [[0, 0, 0], [0.5, 1, 0], [1, 2, 0], [1.5, 3, 0], [2, 4, 0]])
    ang = [0, math.pi / 4, math.pi / 2, 3 * math.pi / 4, math.pi]       # about z, uniform speed
    assert np.allclose(lp[:, 3:], [[math.cos(a / 2), 0, 0, math.sin(a / 2)] for a in ang], atol=1e-12)


def test_flow_json_comments_anchors_merge(tmp_path, path_kind):
    flow = """
    type: CompositeSeq
    formatVersion: 2
    frameRate: 30
    components: [ { type: MultiValueSeq, content: JointDisplacement, numParts: 2,
                    frames: [ [ 1, 2 ], [ 3, 4 ] ] } ]
    """
    js = ('{"type": "CompositeSeq", "formatVersion": 2, "frameRate": 30, "components": '
          '[{"type": "MultiValueSeq", "content": "JointDisplacement", "numParts": 2, '
          '"frames": [[1, 2], [3, 4]]}]}')
    commented = """
    # a comment
    type: CompositeSeq   # trailing comment
    formatVersion: 2
    defaults: &d
      frameRate: 30
      numParts: 2
    components:
      -
        <<: *d
        type: MultiValueSeq
        content: JointDisplacement
        frames:
          # first frame
          - [ 1, 2 ]  # one
          - [ 3,
              4 ]
    """
    for text in (flow, commented):
        m = load(write(tmp_path, text))
        assert m.frame_rate == 30 and np.array_equal(m.joint_displacement, [[1, 2], [3, 4]])
    p = tmp_path / "j.seq"
    p.write_text(js)
    assert np.array_equal(load(str(p)).joint_displacement, [[1, 2], [3, 4]])


def test_merge_key_precedence(tmp_path):
    text = """
    type: CompositeSeq
    formatVersion: 2
    base: &b { frameRate: 10, numParts: 1 }
    components:
      -
        frameRate: 20
        <<: *b
        numParts: 2
        type: MultiValueSeq
        content: JointDisplacement
        frames: [ [ 1, 2 ] ]
    """
    m = load(write(tmp_path, text))
    assert m.frame_rate == 20                 # present before '<<': kept
    assert m.joint_displacement.shape == (1, 2)   # after '<<': overwrites


def test_number_forms_strtod(tmp_path, path_kind):
    text = V2.replace("[ +2.5, 1.5E+2, 0.000123 ]", "[ inf, 0x1.8p1, -nan ]")
    m = load(write(tmp_path, text))
    row = m.joint_displacement[2]
    assert row[0] == math.inf and row[1] == 3.0 and math.isnan(row[2])


def test_trailing_garbage_is_ignored_with_warning(tmp_path, path_kind):
    text = V2.replace("[ 3, .5, -0 ]", "[ 3, 1.5abc, -0 ]")
    with pytest.warns(roboio.RoboioWarning, match="trailing characters 'abc'"):
        m = roboio.load(write(tmp_path, text))
    assert m.joint_displacement[1, 1] == 1.5


def test_many_digits_and_extreme_exponents(tmp_path, path_kind):
    vals = [0.1 + 0.2, 1e-300, 5e-324, 1.7976931348623157e308, 123456789012345678, -2.5e-23,
            1.42337517e-20, 9007199254740993, 0.30000000000000004]
    text = V2.replace("[ +2.5, 1.5E+2, 0.000123 ]", "[ " + ", ".join(repr(float(v)) for v in vals[:3]) + " ]")
    text = text.replace("numParts: 3", "numParts: 3")
    m = load(write(tmp_path, text))
    assert np.array_equal(bits(m.joint_displacement[2]), bits(vals[:3]))
    rows = "\n".join("      - [ " + ", ".join(repr(float(v)) for v in vals[i:i + 3]) + " ]"
                     for i in range(0, 9, 3))
    text2 = V2.split("    frames:\n")[0] + "    frames:\n" + rows + "\n"
    m2 = load(write(tmp_path, text2, "b.seq"))
    assert np.array_equal(bits(m2.joint_displacement.ravel()), bits([float(v) for v in vals]))


def test_extra_components_kept_and_written_back(tmp_path):
    text = V2 + """  -
    type: MultiValueSeq
    content: JointEffort
    numParts: 1
    frames:
      - [ 7 ]
      - [ 8 ]
      - [ 9 ]
  -
    type: MultiVector3Seq
    content: Forces
    numParts: 1
    myKey: keep me
    frames:
      - [ [ 1, 2, 3 ] ]
"""
    with pytest.warns(roboio.RoboioWarning, match="MultiVector3Seq"):
        m = roboio.load(write(tmp_path, text))
    eff = [c for c in m.components if c.content == "JointEffort"][0]
    assert eff.role is None and np.array_equal(eff.data, [[7], [8], [9]])
    raw = [c for c in m.components if c.type == "MultiVector3Seq"][0]
    assert raw.data is None and raw.raw["myKey"] == "keep me"
    out = tmp_path / "out.seq"
    rep = roboio.save(m, str(out))
    assert rep.lossless
    with pytest.warns(roboio.RoboioWarning):
        m2 = roboio.load(str(out))
    raw2 = [c for c in m2.components if c.type == "MultiVector3Seq"][0]
    assert raw2.raw["myKey"] == "keep me" and raw2.raw["frames"] == [["1", "2", "3"]] or \
        raw2.raw["frames"] == [[["1", "2", "3"]]]
    eff2 = [c for c in m2.components if c.content == "JointEffort"][0]
    assert np.array_equal(eff2.data, eff.data)


# -- writing ----------------------------------------------------------------------------------

def _random_motion(rng, timed=False):
    F = 7
    lp = rng.standard_normal((F, 2, 7))
    jd = rng.standard_normal((F, 5)) * 10.0 ** rng.integers(-30, 30, (F, 5))
    jd[0, :3] = [0.0, -0.0, 0.5]
    z = np.round(rng.standard_normal((F, 3)), 9)
    times = np.sort(rng.uniform(0, 1, F)) if timed else None
    comps = [Seq("MultiValueSeq", "JointDisplacement", jd, frame_rate=200, times=times, role="joint_displacement"),
             Seq("MultiSE3Seq", "LinkPosition", lp, frame_rate=200, times=times, role="link_position"),
             Seq("Vector3Seq", "ZMP", z, frame_rate=200, role="zmp", is_root_relative=True)]
    return BodyMotion(comps, frame_rate=200)


@pytest.mark.parametrize("fmt,version", [(None, 2), ("choreonoid-seq-v4", 4)])
def test_write_read_bit_identical(tmp_path, fmt, version):
    rng = np.random.default_rng(5)
    for timed in (False, True):
        m = _random_motion(rng, timed)
        out = str(tmp_path / f"w{timed}.seq")
        rep = roboio.save(m, out, format=fmt)
        assert not rep.lost
        text = open(out).read()
        if version == 2:
            assert "formatVersion: 2\n" in text and "frameRate: 200" in text and "numParts: 5" in text
            assert "isRootRelative: true" in text and "format_version" not in text
        else:
            assert "format_version: 4\n" in text and "frame_rate: 200" in text and "num_parts: 5" in text
            assert "is_root_relative: true" in text and "formatVersion" not in text
        assert text.index("LinkPosition") < text.index("JointDisplacement") < text.index("ZMP")
        back = load(out)
        assert back.format_version == version
        for role in ("joint_displacement", "link_position", "zmp"):
            assert np.array_equal(bits(getattr(m, role if role != "link_position" else "link_positions")),
                                  bits(getattr(back, role if role != "link_position" else "link_positions")))
        if timed:
            assert np.array_equal(bits(back.times), bits(m.times))


def test_written_file_is_plain_yaml_with_same_numbers(tmp_path):
    yaml = pytest.importorskip("yaml")
    m = _random_motion(np.random.default_rng(1))
    out = str(tmp_path / "w.seq")
    roboio.save(m, out)
    d = yaml.load(open(out).read(), Loader=yaml.BaseLoader)     # strings, read like Choreonoid
    jd = np.array([[float(x) for x in row] for row in d["components"][1]["frames"]])
    assert np.array_equal(bits(jd), bits(m.joint_displacement))
    assert d["components"][0]["SE3Format"] == "XYZQWQXQYQZ"
    line = open(out).read().split("frames:\n")[1].splitlines()[0]
    assert line.startswith("      - [ [ ") and line.endswith(" ] ]")


def test_format_frames_uses_short_exact_text():
    txt = _seq_fast.format_frames(np.array([[0.1, -0.0, 1e-05, 0.1 + 0.2, math.inf]]), ["[ ", ", ", ", ", ", ", ", ", " ]"])
    assert txt == "[ 0.1, -0, 1e-05, 0.30000000000000004, inf ]"


def test_write_is_atomic(tmp_path, monkeypatch):
    out = tmp_path / "keep.seq"
    out.write_text("old")
    m = _random_motion(np.random.default_rng(2))

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(_seq_fast, "format_frames", boom)
    with pytest.raises(RuntimeError):
        roboio.save(m, str(out))
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.seq"]


# -- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("old,new,line,msg", [
    ("[ 3, .5, -0 ]", "[ 3, .5 ]", 13, "frame 1 has 2 values, expected 3"),
    ("[ 3, .5, -0 ]", "[ 3, abc, -0 ]", 13, "'abc' is not a number"),
    ("[ 3, .5, -0 ]", "[ 3, , -0 ]", 13, "not a number|did not find expected node content"),
    ("      - [ 0, -0.5, 1e-05 ]\n", "", 11, "frames must not be empty"),
])
def test_bad_frames(tmp_path, path_kind, old, new, line, msg):
    text = textwrap.dedent(V2).lstrip("\n")
    if new == "" and old.startswith("      -"):
        text = text.split("    frames:\n")[0] + "    frames:\n"
    else:
        text = text.replace(old, new)
    p = tmp_path / "bad.seq"
    p.write_text(text)
    with pytest.raises(FormatError, match=msg) as e:
        load(str(p))
    assert e.value.line == line and e.value.path == str(p)
    assert str(e.value).startswith(f"{p}:{line}")


@pytest.mark.parametrize("old,new,msg", [
    ("SE3Format: XYZQWQXQYQZ", "SE3Format: XYZABC", "unknown SE3Format 'XYZABC'"),
    ("SE3Format: XYZQWQXQYQZ", "SE3Format: XYZQXQYQZQW", "only in format version 1"),
    ("[ [ 0, 0, 0.7135, 1, 0, 0, 0 ], [ 1, 2, 3, 0, 1, 0, 0 ] ]", "[ [ 0, 0, 0.7135, 1, 0, 0 ], [ 1, 2, 3, 0, 1, 0, 0 ] ]",
     "each SE3 value must be a list of 7 numbers"),
    ("[ [ 0, 0, 0.7135, 1, 0, 0, 0 ], [ 1, 2, 3, 0, 1, 0, 0 ] ]", "[ [ 0, 0, 0.7135, 1, 0, 0, 0 ] ]",
     "frame 0 has 1 SE3 values, numParts is 2"),
    ("format_version: 4", "format_version: 5", "format version 5 is not supported"),
    ("format_version: 4\n", "", "type must be BodyMotion for format version 1"),
    ("type: Vector3Seq", "type: Vector3Seq\n    has_frame_time: maybe", "must be a boolean"),
])
def test_bad_header(tmp_path, old, new, msg):
    text = textwrap.dedent(V4).lstrip("\n")
    assert old in text
    p = tmp_path / "bad.seq"
    p.write_text(text.replace(old, new, 1))
    with pytest.raises(FormatError, match=msg) as e:
        load(str(p))
    assert e.value.line is not None


def test_frame_time_not_allowed_in_version_1(tmp_path):
    p = write(tmp_path, V1.replace("frameRate: 10", "frameRate: 10\nhasFrameTime: false"))
    with pytest.raises(FormatError, match="hasFrameTime is not allowed in format version 1") as e:
        load(p)
    assert e.value.line == 3


def test_negative_time_is_an_error(tmp_path, path_kind):
    p = write(tmp_path, TIMED.replace("[ 0.4, 3, 13 ]", "[ -0.4, 3, 13 ]"))
    with pytest.raises(FormatError, match="negative time") as e:
        load(p)
    assert e.value.line == 14


def test_missing_frame_rate(tmp_path):
    p = write(tmp_path, V2.replace("frameRate: 100\n", ""))
    with pytest.raises(FormatError, match="no frameRate"):
        load(p)


def test_not_yaml(tmp_path):
    p = write(tmp_path, "type: CompositeSeq\ncomponents: [ [\n")
    with pytest.raises(FormatError, match="invalid YAML") as e:
        load(p)
    assert e.value.line is not None


def test_size_guards(tmp_path, monkeypatch):
    p = write(tmp_path, V2)
    monkeypatch.setattr(seqmod, "MAX_BYTES", 100)
    with pytest.raises(FormatError, match="more than the 100 bytes roboio reads"):
        load(p)
    monkeypatch.setattr(seqmod, "MAX_BYTES", 1 << 30)
    monkeypatch.setattr(seqmod, "MAX_YAML_BYTES", 400)
    flow = tmp_path / "f.seq"
    flow.write_text("{type: CompositeSeq, formatVersion: 2, frameRate: 1, components: [{type: MultiValueSeq,"
                    " content: JointDisplacement, numParts: 1, frames: [" + "[1], " * 100 + "[3]]}]}")
    with pytest.raises(FormatError, match="MAX_YAML_BYTES"):
        load(str(flow))
    assert load(p).num_frames == 3          # the fast path needs no YAML for the frames


def test_fast_path_rejects_what_yaml_reads_differently(tmp_path):
    # "1 2" is one YAML scalar (strtod reads 1, ignores " 2"); brackets glued to numbers
    text = V2.replace("[ 3, .5, -0 ]", "[ 3, .5 7, -0 ]")
    with pytest.warns(roboio.RoboioWarning, match="trailing"):
        m = roboio.load(write(tmp_path, text))
    assert m.joint_displacement[1, 1] == 0.5
    m2 = load(write(tmp_path, V2.replace("- [ 3, .5, -0 ]", "- [ 3, .5, -0 ] # c"), "c.seq"))
    assert np.array_equal(m2.joint_displacement[1], [3, 0.5, 0])


def test_info_summary(tmp_path, capsys):
    from roboio.cli.main import main
    p = write(tmp_path, V4)
    assert main(["info", p, "--json"]) == 0
    import json
    s = json.loads(capsys.readouterr().out)
    assert s["kind"] == "body_motion" and s["num_frames"] == 2 and s["frame_rate"] == 50
    assert [c["role"] for c in s["components"]] == ["link_position", "joint_displacement", "zmp"]


def test_frame_lines_followed_by_other_items(tmp_path, path_kind):
    """Text after the frame lines that is not a frame (a comment, an item of another list, a
    block scalar holding 'frames:') must reach the YAML parser unchanged."""
    text = V2 + """    # a comment between frames and the next component
  -
    type: MultiValueSeq
    content: Notes
    numParts: 1
    frames:
      - [ 1 ]
      -   [ 2 ]
      - [ 3 ]
    note: |
      frames:
        - [ 9, 9 ]
"""
    m = load(write(tmp_path, text))
    assert np.array_equal(m.joint_displacement, [[0, -0.5, 0.00001], [3, 0.5, -0.0], [2.5, 150, 0.000123]])
    notes = m.components[1]
    assert np.array_equal(notes.data, [[1], [2], [3]]) and notes.extra["note"] == "frames:\n  - [ 9, 9 ]\n"


@pytest.mark.parametrize("line", ["- [ 1, -2.5, 3e-05 ]", "- [1, -2.5, 3e-05]", "- [1,-2.5,3e-05]",
                                  "- [ 1, -2.5 ,3e-05 ]"])
def test_fast_path_layouts(line):
    """Choreonoid's (and roboio's) `- [ a, b ]`, PyYAML's `- [a, b]` and any other spacing
    YAML allows (2014's SR1WalkPattern3.yaml: no spaces after commas) take the fast path;
    glued or space-separated numbers do not."""
    data = ("frames:\n" + "\n".join("  " + line for _ in range(3)) + "\n").encode()
    blocks = _seq_fast.split_frame_blocks(data)
    b = blocks[1]
    sig = _seq_fast.frame_signature("MultiValueSeq", 3, 0, False)
    out = _seq_fast.parse_block(data, b, sig, 3, lambda f, t: float(t))
    assert out is not None and np.array_equal(out, [[1, -2.5, 3e-05]] * 3)
    for bad in (line.replace("1,", "1 7,"), line.replace("- [", "- 9["), line.replace("]", "]9")):
        d2 = ("frames:\n" + "  " + line + "\n  " + bad + "\n").encode()
        b2 = _seq_fast.split_frame_blocks(d2)[1]
        assert b2.num_lines == 2
        assert _seq_fast.parse_block(d2, b2, sig, 3, lambda f, t: float(t)) is None


@pytest.mark.parametrize("lines", [
    ["- [ 1, 2, 3 ] 5", "- [ 4, 5, 6 ]"],            # a number after the closing bracket
    ["- [ 1, 2, 3 ]  5"],
    ["- [ 4, 5, 6 ]", "- 5 [ 1, 2, 3 ]"],             # ... before the opening one
    ["- [ 1  2, 3, 4 ]"],                              # two numbers apart by two spaces
    ["- [1,2,3],[4,5,6]", "- [7,8,9]"],               # two frames on one line
    ["- [1,2,3],[4,5,6]", "- [7,8,9]", "- [1,2,3]"],
    ["- [ 1, 2", "- 3 ], [ 4, 5, 6 ]"],              # a frame across lines
    ["- [1,2,3]", "[4,5,6]", "- [7,8,9]"],           # a line without its "- "
])
def test_fast_path_one_frame_per_line(lines):
    """Each line is one frame of the signature, numbers only where it has them; anything
    else goes to YAML (these were read as merged numbers, 1 2 ] 5 -> 25, or raised a
    ValueError on two frames per line)."""
    data = ("frames:\n" + "".join("  " + ln + "\n" for ln in lines)).encode()
    b = _seq_fast.split_frame_blocks(data)[1]
    sig = _seq_fast.frame_signature("MultiValueSeq", 3, 0, False)
    assert _seq_fast.parse_block(data, b, sig, 3, lambda f, t: float(t)) is None


def test_two_frames_on_one_line_is_a_format_error(tmp_path):
    text = V2.replace("      - [ 3, .5, -0 ]\n", "      - [ 3, .5, -0 ], [ 3, .5, -0 ]\n")
    with pytest.raises(FormatError):
        load(write(tmp_path, text))


# -- every version x type x SE3 format x frame-time combination -------------------------------

def _q_rpy(r, p, y):
    """Quaternion (w, x, y, z) of Rz(y) Ry(p) Rx(r), from half-angle products (independent of
    roboio.transforms)."""
    cr, sr, cp, sp, cy, sy = (math.cos(r / 2), math.sin(r / 2), math.cos(p / 2), math.sin(p / 2),
                              math.cos(y / 2), math.sin(y / 2))
    q = [cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr, cy * sp * cr + sy * cp * sr,
         sy * cp * cr - cy * sp * sr]
    return q if q[0] >= 0 else [-x for x in q]


_CONTENT = {1: ("JointPosition", "LinkPosition", "ZMP"), 2: ("JointDisplacement", "LinkPosition", "ZMP"),
            3: ("MultiJointDisplacementSeq", "MultiLinkPositionSeq", "ZMPSeq"),
            4: ("JointDisplacement", "LinkPosition", "ZMP")}


def _combos():
    for v in (1, 2, 3, 4):
        for timed in ((False, True) if v >= 2 else (False,)):
            yield v, "MultiValueSeq", None, timed
            yield v, "Vector3Seq", None, timed
            for fmt in ("XYZQWQXQYQZ", "XYZRPY") + (("XYZQXQYQZQW",) if v == 1 else ()):
                yield v, "MultiSE3Seq", fmt, timed


@pytest.mark.parametrize("v,typ,fmt,timed", list(_combos()), ids=lambda x: str(x))
def test_every_combination(tmp_path, v, typ, fmt, timed, path_kind):
    camel = v != 4
    k = (lambda c, s: c if camel else s)
    rows = {"MultiValueSeq": [[0.5, -1.25], [2.0, 1e-05], [-0.0, 3.5]],
            "Vector3Seq": [[0.1, 0.2, -0.7], [0.3, 0.4, -0.7], [0.5, 0.6, -0.7]],
            "MultiSE3Seq": {"XYZQWQXQYQZ": [[1, 2, 3, 0.5, 0.5, 0.5, 0.5], [0, 0, 1, 1, 0, 0, 0], [4, 5, 6, 0, 0, 0, 1]],
                            "XYZQXQYQZQW": [[1, 2, 3, 0.5, 0.5, 0.5, 0.5], [0, 0, 1, 0, 0, 0, 1], [4, 5, 6, 0, 0, 1, 0]],
                            "XYZRPY": [[1, 2, 3, 0.25, -0.5, 1.0], [0, 0, 1, 0, 0, 0], [4, 5, 6, 0, 0, 3.0]]}}
    data = rows[typ] if typ != "MultiSE3Seq" else rows[typ][fmt]
    times = [0.0, 0.05, 0.3]
    if typ == "MultiSE3Seq":
        frames = [("[ " + (f"{t!r}, " if timed else "") + "[ " + ", ".join(repr(float(x)) for x in r) + " ] ]")
                  for t, r in zip(times, data)]
    else:
        frames = ["[ " + ", ".join(repr(float(x)) for x in (([t] if timed else []) + r)) + " ]"
                  for t, r in zip(times, data)]
    content = _CONTENT[v][("MultiValueSeq", "MultiSE3Seq", "Vector3Seq").index(typ)]
    top = ["type: " + ("BodyMotion" if v == 1 else "CompositeSeq"), f"{k('frameRate', 'frame_rate')}: 20"]
    if v > 1:
        top.append(f"{k('formatVersion', 'format_version')}: {v}")
    comp = [f"type: {typ}", f"{'purpose' if v == 1 else 'content'}: {content}"]
    if typ != "Vector3Seq":
        comp.append(f"{k('numParts', 'num_parts')}: {2 if typ == 'MultiValueSeq' else 1}")
    if fmt:
        comp.append(f"{'format' if v == 1 else 'SE3Format'}: {fmt}")
    if timed:
        comp.append(f"{k('hasFrameTime', 'has_frame_time')}: true")
    text = "\n".join(top) + "\ncomponents:\n  -\n" + "".join(f"    {c}\n" for c in comp) + \
        "    frames:\n" + "".join(f"      - {f}\n" for f in frames)
    p = tmp_path / "c.seq"
    p.write_text(text)
    m = load(str(p))
    assert m.format_version == v and m.frame_rate == 20
    c = m.components[0]
    role = {"MultiValueSeq": "joint_displacement", "MultiSE3Seq": "link_position", "Vector3Seq": "zmp"}[typ]
    assert c.role == role and c.content == content
    if typ == "MultiSE3Seq":
        if fmt == "XYZQWQXQYQZ":
            want = data
        elif fmt == "XYZQXQYQZQW":
            want = [r[:3] + [r[6]] + r[3:6] for r in data]
        else:
            want = [r[:3] + _q_rpy(*r[3:]) for r in data]
        assert np.allclose(c.data[:, 0], want, atol=1e-15, rtol=0)
        if fmt != "XYZRPY":
            assert np.array_equal(bits(c.data[:, 0]), bits(want))
    else:
        assert np.array_equal(bits(c.data), bits(data))
    if timed:
        assert np.array_equal(c.times, times)
    else:
        assert c.times is None
    out = tmp_path / "w.seq"                                   # and through the writer
    roboio.save(m, str(out))
    back = load(str(out))
    assert np.array_equal(bits(back.components[0].data), bits(c.data))
