""".zae archives: manifest, single-document fallback, and the refusals (zip bombs, member
counts, paths leaving the archive, archives without a document)."""
import warnings
import zipfile

import pytest

from collada_docs import manifest, robot_dae, zae_bytes
from roboio.context import LoadContext
from roboio.errors import FormatError
from roboio.formats.openrave.collada._container import MAX_MEMBERS, read_document_bytes
from roboio.formats.openrave.collada._load import read_body

ARM = [{"name": "base", "parent": None},
       {"name": "tip", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "att": "<translate>0 0 1</translate>"}]
DAE = robot_dae(ARM).encode()


def doc(data, path="x.zae", **limits):
    ctx = LoadContext(path, limits=limits or None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = read_document_bytes(data, ctx)
    return out, ctx.warnings


def test_manifest_names_the_root_document():
    data = zae_bytes({"other.dae": b"<COLLADA/>", "robot.dae": DAE, "manifest.xml": manifest("robot.dae")})
    (got, where), warns = doc(data)
    assert got == DAE and where == "x.zae!/robot.dae" and not warns


def test_single_document_without_manifest_is_read_with_a_warning():
    (got, where), warns = doc(zae_bytes({"robot.dae": DAE}))
    assert got == DAE and len(warns) == 1 and "no manifest.xml" in warns[0]


@pytest.mark.parametrize("members, message", [
    ({"readme.txt": b"hi"}, "holds no .dae"),
    ({"a.dae": DAE, "b.dae": DAE}, "several .dae"),
    ({"robot.dae": DAE, "manifest.xml": manifest("gone.dae")}, "not in the archive"),
    ({"robot.dae": DAE, "manifest.xml": b"<root>robot.dae</root>"}, "expected <dae_root>"),
    ({"robot.dae": DAE, "manifest.xml": b"<dae_root>../robot.dae</dae_root>"}, "outside the archive"),
    ({"../evil.dae": DAE}, "leaves the archive"),
])
def test_broken_archives_are_errors(members, message):
    with pytest.raises(FormatError, match=message) as e:
        doc(zae_bytes(members))
    assert str(e.value).startswith("x.zae")


def test_not_a_zip():
    with pytest.raises(FormatError, match="not a readable ZIP"):
        doc(b"PK\x03\x04 garbage")


def test_zip_bomb_refused_by_declared_size():
    big = b"\0" * (5 << 20)                      # compresses to a few kilobytes
    data = zae_bytes({"robot.dae": big})
    assert len(data) < 100_000
    with pytest.raises(FormatError, match="alloc bytes") as e:
        doc(data, alloc_bytes=1 << 20)
    assert "uncompressed size" in str(e.value)


def test_zip_bomb_refused_by_compression_ratio():
    big = b"\0" * (20 << 20)                    # 20 MiB of zeros: about 1000:1
    with pytest.raises(FormatError, match="zip bomb"):
        doc(zae_bytes({"robot.dae": big}))


def test_lying_size_header_refused(tmp_path):
    data = bytearray(zae_bytes({"robot.dae": DAE}))
    # shrink the declared uncompressed size in the local and central headers
    z = zipfile.ZipFile(__import__("io").BytesIO(bytes(data)))
    info = z.infolist()[0]
    size = info.file_size.to_bytes(4, "little")
    small = (100).to_bytes(4, "little")
    data = bytes(data).replace(size, small)
    with pytest.raises(FormatError, match="more than|cannot read"):
        doc(data)


def test_too_many_members():
    members = {f"f{i}.txt": b"" for i in range(MAX_MEMBERS + 1)}
    members["robot.dae"] = DAE
    with pytest.raises(FormatError, match="members"):
        doc(zae_bytes(members))


def test_zae_reads_into_a_body():
    ctx = LoadContext("arm.zae")
    body = read_body(zae_bytes({"arm.dae": DAE, "manifest.xml": manifest("arm.dae")}), ctx)
    assert [l.name for l in body.links] == ["base", "tip"]
    bad = robot_dae(ARM).replace('joint="kmodel1/joint1"', 'joint="kmodel1/nope"').encode()
    with pytest.raises(FormatError) as e:
        read_body(zae_bytes({"arm.dae": bad, "manifest.xml": manifest("arm.dae")}), LoadContext("arm.zae"))
    assert str(e.value).startswith("arm.zae!/arm.dae:")
