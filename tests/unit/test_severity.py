"""Severity of warnings and report items: ``error``, ``warning``, ``note``; plain strings
still (``obj.warnings`` is a list of str), pickled with their severity (batch runs send them
between processes)."""
import pickle
import warnings

import pytest

import roboio
from roboio.context import LoadContext
from roboio.errors import Diagnostic, RoboioNote, RoboioWarning, severity_of
from roboio.report import ConversionReport


def test_a_diagnostic_is_a_string_with_a_severity():
    d = Diagnostic("f.rob:3: x ignored", "note", "ignored")
    assert d == "f.rob:3: x ignored" and isinstance(d, str)
    assert (d.severity, d.kind, d.hint) == ("note", "ignored", None)
    back = pickle.loads(pickle.dumps(d))
    assert back == d and (back.severity, back.kind) == ("note", "ignored")
    assert severity_of("plain text") == "warning"
    with pytest.raises(ValueError):
        Diagnostic("x", "fatal")


def test_context_warnings_carry_their_severity_and_category():
    ctx = LoadContext("f.xml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx.warn("mesh missing", 4, severity="error", kind="missing file", hint="--data-path DIR")
        ctx.note("<foo> ignored by Klamp't", 7)
        ctx.warn("guessed", 9)
    assert [severity_of(w) for w in ctx.warnings] == ["error", "note", "warning"]
    assert ctx.warnings[0] == "f.xml:4: mesh missing" and ctx.warnings[0].hint == "--data-path DIR"
    assert [type(w.message) for w in caught] == [RoboioWarning, RoboioNote, RoboioWarning]
    assert issubclass(RoboioNote, RoboioWarning)      # filtering RoboioWarning still catches notes
    strict = LoadContext("f.xml", strict=True)
    with pytest.raises(roboio.FormatError):
        strict.note("even a note stops a strict load", 1)


def test_report_items_keep_the_most_severe_of_a_group():
    r = ConversionReport("out.urdf")
    r.lose("limits lost", "a", severity="note")
    r.lose("limits lost", "b", severity="error")
    r.lose("colour clamped")
    r.warn("one remark")
    r.note("rounded to float32")
    assert [(str(x), x.severity) for x in r.lost] == [("limits lost: a, b", "error"),
                                                      ("colour clamped", "warning")]
    assert [x.severity for x in r.warnings] == ["warning", "note"]
    assert r.to_dict()["lost"] == ["limits lost: a, b", "colour clamped"]
