"""Klamp't .rob lexing: logical lines and the three number flavours (spec klampt.md §1, §3.1).

Expected values are hand-worked from the spec and from what klampt 0.10.1 was measured to
read (e.g. ``mass 1.5abc 2`` reads one mass, ``qmin +1`` none, ``mass 1e999`` none).
"""
import math

import pytest

from roboio.formats.klampt.rob._lexer import (LexError, Scanner, is_integer_text,
                                              logical_lines, translate_escapes)


def texts(src):
    return [(l.text, l.line) for l in logical_lines(src)]


def test_comment_and_plain_lines():
    assert texts("a 1\n# only a comment\nb 2 # tail\n") == [
        ("a 1", 1), ("", 2), ("b 2 ", 3), ("", 4)]


def test_backslash_newline_continues_and_keeps_whitespace():
    [first, second] = logical_lines("tparent 1 2\\\n3 4\nq 0")
    assert first.text == "tparent 1 2\n3 4" and first.line == 1 and first.last_line == 2
    assert second.line == 3
    assert first.line_at(first.text.index("3")) == 2


def test_crlf_continuation():
    # backslash + CR + LF: backslash and CR dropped, the newline kept
    [a, b, _] = logical_lines("x 1 \\\r\n2\r\ny 3\r\n")
    assert a.text == "x 1 \n2\r" and a.line == 1
    assert b.text == "y 3\r" and b.line == 3


def test_backslash_blank_newline_is_not_a_continuation():
    lines = logical_lines("x 1 \\ \ny 2")
    assert [l.text for l in lines] == ["x 1 \\ ", "y 2"]


def test_backslash_inside_comment_does_not_continue():
    lines = logical_lines("x 1 # note \\\ny 2")
    assert [l.text for l in lines] == ["x 1 ", "y 2"]


def test_escaped_hash_is_not_a_comment():
    assert logical_lines("links a\\#b c")[0].text == "links a\\#b c"


def test_trailing_backslash_at_eof():
    assert logical_lines("x 1 \\")[0].text == "x 1 \\"


@pytest.mark.parametrize("text,values", [
    ("1 2.5 -3 +4 .5 1. 1e3 -2E-2", [1, 2.5, -3, 4, 0.5, 1.0, 1000.0, -0.02]),
    ("1.5abc 2", [1.5]),           # reads 1.5, then stops at "abc"
    ("1.5.5", [1.5, 0.5]),
    ("0x10", [0.0]),
    ("1e 3", []),                  # "1e" is not a number
    ("1e5x", [1e5]),
    ("1e999 2", []),               # overflow fails (libstdc++)
    ("1e-400", [0.0]),             # underflow does not
    ("inf 1", []),                 # stream numbers have no inf
    ("- 1", []),
])
def test_stream_float(text, values):
    sc = Scanner(text)
    got = []
    while (v := sc.stream_float()) is not None:
        got.append(v)
    assert got == values


@pytest.mark.parametrize("text,values", [
    ("inf -inf INF Infinity -Infinity 3 -.5", [math.inf, -math.inf, math.inf, math.inf, -math.inf, 3, -0.5]),
    ("+1 2", []),                  # no leading + in SafeInputFloat
    ("infx 2", []),
    ("1 - 2", [1.0]),
    ("1e999", []),
])
def test_safe_float(text, values):
    sc = Scanner(text)
    got = []
    while (v := sc.safe_float()) is not None:
        got.append(v)
    assert got == values


def test_safe_float_nan():
    sc = Scanner("nan -NaN")
    assert math.isnan(sc.safe_float()) and math.isnan(sc.safe_float())


def test_int_reads_prefix_like_a_stream():
    sc = Scanner("-1 +3 0.0 7")
    assert [sc.int_(), sc.int_(), sc.int_(), sc.int_()] == [-1, 3, 0, None]
    assert sc.next_token_text() == ".0"


def test_qstrings():
    sc = Scanner(' "hex x"  plain "" x"a b" "c\\"d" ')
    assert [sc.qstring() for _ in range(6)] == ["hex x", "plain", "", 'x"a', 'b"', 'c\\"d']
    assert sc.qstring() is None


def test_unbalanced_quote_is_an_error():
    sc = Scanner('a "b c')
    assert sc.qstring() == "a"
    with pytest.raises(LexError) as e:
        sc.qstring()
    assert e.value.pos == 2


def test_helpers():
    assert is_integer_text("-1") and is_integer_text("+3") and not is_integer_text("3.0")
    assert translate_escapes(r"a\nb\tc\\d\#e\"") == 'a\nb\tc\\d#e"'
