"""fileio.read_bytes reads what stat reported, and on when the file grew after stat, up to
the load's max_document_bytes (documents) or max_file_bytes (meshes: ``document=False``)."""
import os

import pytest

from roboio.context import LoadContext
from roboio.errors import FormatError
from roboio.formats import fileio
from roboio.limits import Limits


def _grown(tmp_path, monkeypatch, before: bytes, after: bytes):
    """A file whose stat (as read_bytes sees it) was taken when it held ``before``."""
    p = tmp_path / "f.txt"
    p.write_bytes(before)
    st = os.stat(p)
    p.write_bytes(before + after)
    monkeypatch.setattr(fileio, "check_regular_input", lambda path: st)
    return str(p)




def test_small_file_read_exactly(tmp_path):
    p = tmp_path / "f.txt"
    data = bytes(range(256)) * 3
    p.write_bytes(data)
    assert fileio.read_bytes(str(p), LoadContext(str(p))) == data
    p.write_bytes(b"")
    assert fileio.read_bytes(str(p), LoadContext(str(p))) == b""


LIMITS = [(True, "max_document_bytes", "document size"), (False, "max_file_bytes", "file size")]


@pytest.mark.parametrize("document,field,what", LIMITS)
def test_file_grown_after_stat_read_to_its_end(tmp_path, monkeypatch, document, field, what):
    path = _grown(tmp_path, monkeypatch, b"a" * 100, b"b" * 100)
    ctx = LoadContext(path, limits=Limits(**{field: 1000}))
    assert fileio.read_bytes(path, ctx, document=document) == b"a" * 100 + b"b" * 100


@pytest.mark.parametrize("document,field,what", LIMITS)
def test_file_grown_past_the_limit_after_stat_refused(tmp_path, monkeypatch, document, field, what):
    path = _grown(tmp_path, monkeypatch, b"a" * 100, b"b" * 100)
    ctx = LoadContext(path, limits=Limits(**{field: 150}))
    with pytest.raises(FormatError, match=f"{what}.*{field}=150"):
        fileio.read_bytes(path, ctx, document=document)
