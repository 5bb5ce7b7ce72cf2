"""The two implementations of the .seq frame parser (``_seq_fast.parse_block``): the C
extension and the numpy path give the same arrays bit for bit, the same None (frames left to
YAML) and the same ``on_bad`` calls, on the corpus, on roboio's own files and on generated
hostile blocks; numbers equal Python's ``float()`` of their text."""
import glob
import math
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import warnings

import numpy as np
import pytest

import roboio
from roboio.formats.choreonoid import _seq_fast
from roboio.model.body_motion import BodyMotion, Seq

from conftest import CORPUS, ROOT


def bits(a):
    return np.ascontiguousarray(a, dtype=float).view(np.int64)


class Rejected(Exception):
    pass


def run(parser, data, block, sig, per_frame, reject):
    """parse_block with ``parser``: (array bits or None or the exception, on_bad calls)."""
    calls = []

    def on_bad(frame, text):
        calls.append((frame, text))
        try:
            return float(text)
        except ValueError:
            if reject:
                raise Rejected(frame, text)
            return -7.0

    previous = _seq_fast.set_parser(parser)
    try:
        out = _seq_fast.parse_block(data, block, sig, per_frame, on_bad)
    except Rejected as e:
        out = e.args
    finally:
        _seq_fast.set_parser(previous)
    if isinstance(out, np.ndarray):
        out = (out.shape, bits(out).tobytes())
    return out, calls


def block_of(data: bytes, start: int, indent=b"  "):
    return _seq_fast.Block(start, len(data), 1, data.count(b"\n", start), indent)


# -- generated frames ---------------------------------------------------------------------------

def random_decimal(rng: random.Random) -> str:
    """A decimal Python's float() reads: signs, leading dots, '1.', '-0', exponents of every
    size, mantissas of 1 to 25 digits (around the fast path's 16 characters and 2**53)."""
    k = rng.random()
    if k < 0.05:
        return rng.choice(["0", "-0", "+0", "1.", ".5", "-.5", "1e5", "1E+05", "0.0", "-0.0e-0",
                           "9007199254740992", "9007199254740993", "-9007199254740991",
                           "1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "1.7976931348623157e308",
                           "1e999", "-1e-999", "00012.5000", "1.42337517e-20"])
    sign = rng.choice(["", "", "-", "+"])
    ni, nf = rng.randint(0, 18), rng.randint(0, 18)
    if ni + nf == 0:
        ni = 1
    digits = "".join(rng.choice("0123456789") for _ in range(ni + nf))
    form = rng.random()
    if nf == 0 and form < 0.5:
        mant = digits
    elif ni == 0:
        mant = "." + digits
    else:
        mant = digits[:ni] + "." + digits[ni:]
    if rng.random() < 0.35:
        e = rng.choice(["e", "E"]) + rng.choice(["", "+", "-"])
        n = rng.choice([rng.randint(0, 30), rng.randint(0, 400)])
        e += str(n).zfill(rng.choice([1, 1, 2, 3, 4]))
        mant += e
    return sign + mant


HOSTILE = ["inf", "-inf", "nan", "NaN", "0x10", "", "e5", "1e", "1e+", "--1", "+-1", "1.2.3",
           "1e5e5", "+", "-", ".", "-.e1", "1e-0000", "1_0", "1e5.5", "0.1e-", "1-2", "e",
           "1e0001", "\u00e9", "1\t", "1 2", "#1", "1e+-5", "..5", "5..", "E1", "1E5E"]


def random_signature(rng):
    kind = rng.choice(["MultiValueSeq", "MultiValueSeq", "MultiSE3Seq", "Vector3Seq"])
    has_time = rng.random() < 0.3
    if kind == "MultiSE3Seq":
        parts, width = rng.randint(1, 3), rng.choice([6, 7])
        per = parts * width
    elif kind == "Vector3Seq":
        parts, width, per = 3, 0, 3
    else:
        parts, width = rng.randint(1, 8), 0
        per = parts
    return _seq_fast.frame_signature(kind, parts, width, has_time), per + has_time


def frame_line(sig: bytes, tokens, style, rng) -> str:
    """One frame: the signature's brackets and commas, ``tokens`` in its number slots,
    spaced as Choreonoid, PyYAML, compactly or randomly."""
    sig = sig.decode()
    it = iter(tokens)
    out = []
    for k, ch in enumerate(sig):
        if 0 < k and sig[k - 1] in "[," and ch in ",]":
            out.append(next(it))
        if style == "choreonoid":
            out.append({"[": "[ ", ",": ", ", "]": " ]"}[ch])
        elif style == "pyyaml":
            out.append(ch + " " if ch == "," else ch)
        elif style == "compact":
            out.append(ch)
        else:
            out.append(" " * rng.choice([0, 0, 1, 2]) + ch + " " * rng.choice([0, 0, 1, 2]))
    return "".join(out)


def mutate(line: str, rng) -> str:
    """One damage a hand-edited file might have."""
    i = rng.randint(0, len(line))
    return rng.choice([
        lambda: line.replace("[", "7[", 1),
        lambda: line.replace("]", "]8", 1),
        lambda: line.rstrip() + " 9",
        lambda: line.replace(",", " 1,", 1),
        lambda: line.replace(",", "", 1),
        lambda: line.replace(",", ",,", 1),
        lambda: line.replace(",", ", 3,", 1),
        lambda: line[:i] + "\t" + line[i:],
        lambda: line + "\r",
        lambda: line + "   ",
        lambda: line + " # note",
        lambda: line[:i],
        lambda: line[:i] + "  " + line[i:],
        lambda: line[:i] + "\u00e9" + line[i:],
        lambda: line + ", [ 1, 2 ]",
        lambda: line.replace("- ", "", 1),
        lambda: line.replace("- ", " - ", 1),
        lambda: line.replace("- ", "-  ", 1),
    ])()


def random_case(rng):
    """(data, block, signature, per_frame, float_tokens): float_tokens, the expected numbers'
    texts when the block is undamaged and every number is one float() reads, else None."""
    sig, per = random_signature(rng)
    style = rng.choice(["choreonoid", "choreonoid", "pyyaml", "compact", "random"])
    hostile = rng.random() < 0.4
    damaged = rng.random() < 0.3
    lines, texts = [], []
    for _ in range(rng.randint(1, 12)):
        toks = [rng.choice(HOSTILE) if hostile and rng.random() < 0.15 else random_decimal(rng)
                for _ in range(per)]
        texts += toks
        lines.append("- " + frame_line(sig, toks, style, rng))
    if damaged:
        j = rng.randrange(len(lines))
        lines[j] = mutate(lines[j], rng)
    prefix = b"frames:\n"
    body = "".join("  " + ln + "\n" for ln in lines).encode("utf-8")
    if damaged and rng.random() < 0.2:
        body = body[:-1]                                    # truncated last line
    data = prefix + body
    ok = not damaged and not hostile
    return data, block_of(data, len(prefix)), sig, per, texts if ok else None


def check_case(data, block, sig, per, expected_texts):
    """Every parser gives the same result and on_bad calls, with an on_bad that rejects
    what float() does not read and with one that accepts everything; undamaged frames of
    decimals give float() of each text."""
    for reject in (False, True):
        results = [run(p, data, block, sig, per, reject) for p in _seq_fast.available_parsers()]
        assert all(r == results[-1] for r in results), data
    if expected_texts is not None:
        shape_bits, calls = results[-1]
        assert shape_bits is not None and not calls, data
        shape, raw = shape_bits
        want = np.array([float(t) for t in expected_texts])
        assert shape == (len(expected_texts) // per, per)
        assert np.array_equal(np.frombuffer(raw, dtype=np.int64), bits(want)), data


@pytest.mark.parametrize("chunk", [1 << 18, 48, 150])
def test_generated_blocks_both_parsers_and_float(chunk, monkeypatch):
    """Random frames (every layout, decimals of every length and exponent, hostile tokens,
    damaged lines), with chunks of a few lines too (a chunk's tokens outside the fast path
    are converted together): both parsers agree with each other and with float()."""
    monkeypatch.setattr(_seq_fast, "CHUNK_BYTES", chunk)
    rng = random.Random(chunk)
    for _ in range(400):
        check_case(*random_case(rng))


def test_hand_picked_blocks():
    """Boundaries of the exact fast path and tokens on both sides of it, with hand-worked
    values (each number's double as float() reads it)."""
    rows = [["9007199254740992", "9007199254740993", "1e22", "1e23"],
            ["1.42337517e-20", "-0", "1234567890123456", "12345678901234567"],
            [".5", "1.", "-1E+05", "0.0000000000000001"],
            ["4.9e-324", "2.2250738585072014e-308", "1e1000000000000000000000", "-1e-999"]]
    text = "".join("  - [ " + ", ".join(r) + " ]\n" for r in rows)
    data = b"frames:\n" + text.encode()
    block = block_of(data, 8)
    sig = _seq_fast.frame_signature("MultiValueSeq", 4, 0, False)
    want = [9007199254740992.0, 9007199254740992.0, 1e22, 1e23,
            1.42337517e-20, -0.0, 1234567890123456.0, 12345678901234568.0,
            0.5, 1.0, -100000.0, 1e-16,
            5e-324, 2.2250738585072014e-308, math.inf, -0.0]
    for p in _seq_fast.available_parsers():
        (shape, raw), calls = run(p, data, block, sig, 4, True)
        assert shape == (4, 4) and not calls
        assert np.array_equal(np.frombuffer(raw, np.int64), bits(want))
    check_case(data, block, sig, 4, None)


@pytest.mark.parametrize("line, calls", [
    ("[ 1e, 2, 3 ]", [(1, "1e")]),
    ("[ 1, , 3 ]", [(1, "")]),
    ("[ --1, 1.2.3, 1e5e5 ]", [(1, "--1"), (1, "1.2.3"), (1, "1e5e5")]),
    # a plain decimal outside the fast path goes with them when a chunk has a bad token
    ("[ 1e-30, 1e, 2 ]", [(1, "1e-30"), (1, "1e")]),
])
def test_bad_tokens_reach_on_bad_in_order(line, calls):
    """Tokens no parser converts go to on_bad with their frame, in order, in both."""
    data = ("frames:\n  - [ 1, 2, 3 ]\n  - " + line + "\n").encode()
    block = block_of(data, 8)
    sig = _seq_fast.frame_signature("MultiValueSeq", 3, 0, False)
    for p in _seq_fast.available_parsers():
        out, got = run(p, data, block, sig, 3, False)
        assert out is not None and got == calls
    check_case(data, block, sig, 3, None)


def test_a_line_of_100k_digits():
    digits = "".join(random.Random(5).choice("0123456789") for _ in range(100_000))
    for tok in ("0." + digits, digits, "-" + digits[:50_000] + "." + digits[50_000:] + "e-49990"):
        data = ("frames:\n  - [ 1.5, " + tok + " ]\n").encode()
        block = block_of(data, 8)
        sig = _seq_fast.frame_signature("MultiValueSeq", 2, 0, False)
        check_case(data, block, sig, 2, ["1.5", tok])


# -- real files -----------------------------------------------------------------------------

def _seq_files():
    if not os.path.isdir(CORPUS):
        return []
    return sorted(glob.glob(os.path.join(CORPUS, "choreonoid", "**", "*.seq"), recursive=True))


def _load_both(path):
    out = {}
    for p in _seq_fast.available_parsers():
        previous = _seq_fast.set_parser(p)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[p] = roboio.load(path)
        finally:
            _seq_fast.set_parser(previous)
    return out


def _same_motions(a, b):
    assert len(a.components) == len(b.components)
    for x, y in zip(a.components, b.components):
        assert (x.data is None) == (y.data is None)
        if x.data is not None:
            assert x.data.shape == y.data.shape and np.array_equal(bits(x.data), bits(y.data))
        assert (x.times is None) == (y.times is None)
        if x.times is not None:
            assert np.array_equal(bits(x.times), bits(y.times))
    assert a.warnings == b.warnings


@pytest.mark.parametrize("path", _seq_files(), ids=lambda p: os.path.basename(p))
def test_corpus_seq_same_bits_with_both_parsers(path):
    m = _load_both(path)
    if "compiled" not in m:
        pytest.skip("the compiled .seq parser is not built here")
    _same_motions(m["compiled"], m["numpy"])


def test_corpus_has_seq_files():
    if not os.path.isdir(CORPUS):
        pytest.skip("corpus ../shared/corpus not present")
    assert len(_seq_files()) >= 3


def _awkward_values(rng, shape):
    v = np.array([rng.uniform(-4, 4) for _ in range(int(np.prod(shape)))])
    special = [0.1 + 0.2, -0.0, 5e-324, 1e-300, 1.7976931348623157e308, 2.0 ** 53 + 2,
               1.42337517e-20, 1 / 3, 123456789.123456789, 1e22, 1e23]
    for i in range(0, v.size, 3):
        v[i] = special[(i // 3) % len(special)]
    return v.reshape(shape)


@pytest.mark.parametrize("writer", ["choreonoid-seq", "choreonoid-seq-v4"])
def test_written_files_read_back_exactly_with_both_parsers(tmp_path, writer):
    """roboio's own .seq files (every component type, frame times): each parser reads back
    the very doubles written."""
    rng = random.Random(3)
    F = 40
    q = _awkward_values(rng, (F, 5))
    lp = _awkward_values(rng, (F, 2, 7))
    zmp = _awkward_values(rng, (F, 3))
    times = np.cumsum(np.full(F, 0.01)) + 1e-17
    m = BodyMotion([Seq("MultiValueSeq", "JointDisplacement", q, frame_rate=100, times=times,
                        role="joint_displacement"),
                    Seq("MultiSE3Seq", "LinkPosition", lp, frame_rate=100, role="link_position"),
                    Seq("Vector3Seq", "ZMP", zmp, frame_rate=100, role="zmp")], frame_rate=100)
    path = str(tmp_path / "m.seq")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(m, path, format=writer)
    both = _load_both(path)
    for back in both.values():
        for want, got in ((q, back.joint_displacement), (lp, back.link_positions),
                          (zmp, back.zmp)):
            assert got.shape == want.shape and np.array_equal(bits(got), bits(want))
        assert np.array_equal(bits(back.component("joint_displacement").times), bits(times))
    if "compiled" in both:
        _same_motions(both["compiled"], both["numpy"])


# -- choosing the implementation ----------------------------------------------------------------

def test_set_parser_and_names():
    before = _seq_fast.get_parser()
    assert _seq_fast.set_parser("numpy") == before
    assert _seq_fast.get_parser() == "numpy"
    _seq_fast.set_parser(before)
    with pytest.raises(ValueError, match="unknown .seq parser"):
        _seq_fast.set_parser("fortran")


PROBE = ("import sys\n"
         "if sys.argv[1:] == ['hide']: sys.modules['roboio.formats.choreonoid._seq_c'] = None\n"
         "import roboio\n"
         "from roboio.formats.choreonoid import _seq_fast\n"
         "m = roboio.load('roboio/data/samples/choreonoid/arm_timed.seq')\n"
         "print(_seq_fast.get_parser())\n")


def _probe(hide=False, **env):
    """(parser used, stderr) of a fresh process loading a shipped .seq."""
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.pop(_seq_fast.ENV, None)
    e.update(env)
    p = subprocess.run([sys.executable, "-W", "default", "-c", PROBE] + (["hide"] if hide else []),
                       capture_output=True, text=True, env=e, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip(), p.stderr


def test_environment_variable_and_fallback():
    """ROBOIO_SEQ_PARSER=numpy forces the numpy path; by default the extension is used when
    it imports, and its absence falls back silently (same results); asking for it when it is
    missing, or a value that means nothing, is said once."""
    assert _probe(ROBOIO_SEQ_PARSER="numpy") == ("numpy", "")
    name, err = _probe(ROBOIO_SEQ_PARSER="cuda")
    assert name in _seq_fast.available_parsers() and "ROBOIO_SEQ_PARSER='cuda'" in err
    assert _probe(hide=True) == ("numpy", "")
    name, err = _probe(ROBOIO_SEQ_PARSER="compiled", hide=True)
    assert name == "numpy" and err.count("compiled .seq parser is not available") == 1
    if "compiled" in _seq_fast.available_parsers():
        assert _probe()[0] == "compiled"


def test_import_roboio_does_not_load_the_extension():
    code = ("import sys, roboio\n"
            "roboio.formats()\n"
            "print(any('_seq' in m for m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "False"


def test_install_from_this_checkout_built_the_parser():
    """``pip install -e .`` builds the extension where a C compiler exists (CI), so that the
    comparisons above test it at all."""
    from test_kinematics_backends import _installed_from_this_checkout
    if not _installed_from_this_checkout():
        pytest.skip("roboio was not pip-installed from this checkout")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) here: the numpy path is expected")
    assert "compiled" in _seq_fast.available_parsers(), (
        "pip installed roboio from this checkout with a C compiler present, but the "
        "compiled .seq parser is missing: see the build output of setup.py")
