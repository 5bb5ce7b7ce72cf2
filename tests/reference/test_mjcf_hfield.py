"""MJCF height fields against MuJoCo: the grid points of roboio's mesh of an ``<hfield>``
geom equal MuJoCo's (its compiled ``hfield_data`` scaled by the size, placed by the geom's
world pose) for elevation data given inline, MuJoCo's binary file, and PNG images of every
colour type and bit depth (written here by a small independent PNG encoder, with every row
filter); the solid is closed (a flat field's volume is its box)."""
import struct
import warnings
import zlib

import numpy as np
import pytest

import roboio

mujoco = pytest.importorskip("mujoco")
rng = np.random.default_rng(0)
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _filtered(raw, h, bpp):
    """Rows of ``raw`` with PNG filter r % 5 on row r (0 none, 1 sub, 2 up, 3 average, 4 Paeth)."""
    stride = len(raw) // h
    prev, rows = bytes(stride), []
    for r in range(h):
        line, f, out = raw[r * stride:(r + 1) * stride], r % 5, bytearray()
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, ul = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 0:
                pred = 0
            elif f == 1:
                pred = left
            elif f == 2:
                pred = up
            elif f == 3:
                pred = (left + up) >> 1
            else:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
            out.append((line[i] - pred) & 255)
        rows.append(bytes([f]) + bytes(out))
        prev = line
    return b"".join(rows)


def write_png(path, img, ctype, depth, palette=None):
    h, w = img.shape[:2]
    if depth >= 8:
        raw = img.astype(">u2" if depth == 16 else np.uint8).tobytes()
        rows = _filtered(raw, h, max(1, CHANNELS[ctype] * depth // 8))
    else:
        bits = ((img[..., None] >> np.arange(depth - 1, -1, -1)) & 1).astype(np.uint8).reshape(h, -1)
        packed = np.packbits(np.pad(bits, ((0, 0), (0, (-bits.shape[1]) % 8))), axis=1)
        rows = b"".join(b"\x00" + r.tobytes() for r in packed)
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))
    if palette is not None:
        data += _chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    path.write_bytes(data + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b""))


def check(tmp_path, asset, geom='pos="1 2 0.3" euler="0 0 30"'):
    path = tmp_path / "m.xml"
    path.write_text(f'<mujoco><asset>{asset}</asset><worldbody><geom type="hfield" hfield="t" '
                    f'{geom}/></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        world = roboio.load(str(path))
    nr, nc = int(m.hfield_nrow[0]), int(m.hfield_ncol[0])
    data = m.hfield_data[m.hfield_adr[0]:m.hfield_adr[0] + nr * nc].reshape(nr, nc)
    s = m.hfield_size[0]
    X, Y = np.meshgrid(np.arange(nc) * (2 * s[0] / (nc - 1)) - s[0], np.arange(nr) * (2 * s[1] / (nr - 1)) - s[1])
    P = np.stack([X.ravel(), Y.ravel(), (data * s[2]).ravel()], 1)
    expected = P @ d.geom_xmat[0].reshape(3, 3).T + d.geom_xpos[0]
    g = world.terrains[0].geometry
    V = np.asarray(g.vertices)[:nr * nc]
    got = V @ g.transform[:3, :3].T + g.transform[:3, 3]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    return g


@pytest.mark.parametrize("ctype,depth", [(0, 8), (2, 8), (6, 8), (4, 8), (0, 16), (6, 16), (3, 8),
                                         (0, 1), (0, 2), (0, 4), (3, 1), (3, 2), (3, 4)])
def test_png_height_fields_as_mujoco_reads_them(tmp_path, ctype, depth):
    shape = (5, 7) if CHANNELS[ctype] == 1 else (5, 7, CHANNELS[ctype])
    top = 2 ** depth if ctype != 3 else (2 ** depth if depth < 8 else 16)
    img = rng.integers(0, top, size=shape)
    palette = rng.integers(0, 256, size=(top, 3)) if ctype == 3 else None
    write_png(tmp_path / "h.png", img, ctype, depth, palette)
    check(tmp_path, '<hfield name="t" file="h.png" size="2 1 0.5 0.1"/>')


def test_inline_binary_and_flat_height_fields(tmp_path):
    check(tmp_path, '<hfield name="t" nrow="3" ncol="4" size="2 1 0.5 0.1" '
                    'elevation="1 2 3 4 5 7 1 1 0 2 9 3"/>')
    data = rng.random((4, 3)).astype("<f4")
    (tmp_path / "c.bin").write_bytes(struct.pack("<ii", 4, 3) + data.tobytes())
    check(tmp_path, '<hfield name="t" file="c.bin" size="2 1 0.5 0.1"/>', geom="")
    g = check(tmp_path, '<hfield name="t" nrow="3" ncol="4" size="2 1 0.5 0.1"/>', geom="")
    import trimesh
    mesh = trimesh.Trimesh(np.asarray(g.vertices), np.asarray(g.faces), process=False)
    assert mesh.is_watertight and mesh.volume == pytest.approx(4 * 2 * 0.1, rel=1e-12)


def test_bad_height_fields_are_located_errors(tmp_path):
    from roboio.errors import FormatError
    for asset, message in [('<hfield name="t" nrow="2" ncol="2" size="1 1 1 0.1" elevation="1 2 3"/>', "length"),
                           ('<hfield name="t" nrow="2" ncol="2" size="1 1 0 0.1"/>', "not positive"),
                           ('<hfield name="t" file="none.png" size="1 1 1 0.1"/>', "not found")]:
        path = tmp_path / "bad.xml"
        path.write_text(f'<mujoco>\n<asset>\n{asset}\n</asset>\n<worldbody><geom type="hfield" '
                        'hfield="t"/></worldbody></mujoco>')
        with pytest.raises(FormatError, match=rf"bad\.xml:3: .*{message}"):
            roboio.load(str(path))
