"""Inventor/VRML lexer: tokens, comments, strings, bulk number blocks, error locations."""
import numpy as np
import pytest

from roboio.errors import FormatError
from roboio.formats.meshes.inventor._lexer import EOF, PUNCT, STRING, WORD, Lexer


def tokens(text):
    lex = Lexer(text, "t.iv")
    out = []
    while True:
        kind, value, off = lex.next()
        if kind == EOF:
            return out
        out.append((kind, value))


def test_words_punctuation_strings_and_comments():
    text = 'DEF leg+0 Separator { # a comment { [ "\n name "a \\"b\\" c", x } [1,2] (A|B)'
    assert tokens(text) == [
        (WORD, "DEF"), (WORD, "leg+0"), (WORD, "Separator"), (PUNCT, "{"),
        (WORD, "name"), (STRING, 'a "b" c'), (WORD, "x"), (PUNCT, "}"),
        (PUNCT, "["), (WORD, "1"), (WORD, "2"), (PUNCT, "]"),
        (PUNCT, "("), (WORD, "A"), (PUNCT, "|"), (WORD, "B"), (PUNCT, ")")]


def test_strings_may_span_lines_and_hold_hashes():
    assert tokens('Info { string "line 1 # not a comment\nline 2" }')[3] == \
        (STRING, "line 1 # not a comment\nline 2")


def test_unterminated_string_is_located():
    lex = Lexer('Info {\n  string "abc\n}', "t.iv")
    lex.next(), lex.next(), lex.next()
    with pytest.raises(FormatError) as e:
        lex.next()
    assert (e.value.line, e.value.column) == (2, 10)


def test_number_block_in_bulk_with_commas_newlines_and_exponents():
    text = "[ 1, 2.5 -8.2e-005,\n .5 +3 1. ] tail"
    lex = Lexer(text, "t.iv")
    assert lex.next()[1] == "["
    arr = lex.numbers_until_bracket(False, "point")
    np.testing.assert_array_equal(arr, [1, 2.5, -8.2e-5, 0.5, 3, 1.0])
    assert lex.next() == (WORD, "tail", text.index("tail"))


def test_number_block_with_comments_inside():
    lex = Lexer("[ 1 2 # three ] four\n 5 ] x", "t.iv")
    lex.next()
    np.testing.assert_array_equal(lex.numbers_until_bracket(False, "point"), [1, 2, 5])
    assert lex.next()[1] == "x"


def test_integer_block_and_hex_values():
    lex = Lexer("[ 0, 1, 2, -1 ] [ 0xff0000ff 16 ]", "t.iv")
    lex.next()
    np.testing.assert_array_equal(lex.numbers_until_bracket(True, "coordIndex"), [0, 1, 2, -1])
    lex.next()
    np.testing.assert_array_equal(lex.numbers_until_bracket(True, "orderedRGBA"), [0xFF0000FF, 16])


def test_empty_and_blank_blocks():
    lex = Lexer("[] [ \n ]", "t.iv")
    lex.next()
    assert len(lex.numbers_until_bracket(False, "point")) == 0
    lex.next()
    assert len(lex.numbers_until_bracket(True, "coordIndex")) == 0


@pytest.mark.parametrize("bad,line,col", [("1 2 x3 4", 2, 5), ("1 2 - 3", 2, 5), ("1 2 1e", 2, 5)])
def test_malformed_number_reported_at_its_line_and_column(bad, line, col):
    lex = Lexer("[\n" + bad + " ]", "t.iv")
    lex.next()
    with pytest.raises(FormatError) as e:
        lex.numbers_until_bracket(False, "point")
    assert (e.value.line, e.value.column) == (line, col)
    assert "t.iv:" in str(e.value)


def test_fractional_index_is_an_error():
    lex = Lexer("[ 0 1 2.5 ]", "t.iv")
    lex.next()
    with pytest.raises(FormatError, match="integer"):
        lex.numbers_until_bracket(True, "coordIndex")


def test_unclosed_number_block():
    lex = Lexer("point [ 1 2 3", "t.iv")
    lex.next(), lex.next()
    with pytest.raises(FormatError, match="never closed"):
        lex.numbers_until_bracket(False, "point")


def test_skip_block_balances_nested_braces_strings_comments_and_collects_defs():
    text = 'X { a [ 1 2 ] B { c "}" # }\n DEF inner Y { } } } after'
    lex = Lexer(text, "t.iv")
    lex.next()
    off = lex.expect("{", "")
    names = set()
    lex.skip_block("{", off, "X", names)
    assert names == {"inner"}
    assert lex.next()[1] == "after"


def test_skip_block_reports_mismatch_and_unclosed():
    lex = Lexer("X { a [ 1 } ", "t.iv")
    lex.next()
    with pytest.raises(FormatError, match="does not match"):
        lex.skip_block("{", lex.expect("{", ""), "X")
    lex = Lexer("X {\n  Y { \n", "t.iv")
    lex.next()
    with pytest.raises(FormatError) as e:
        lex.skip_block("{", lex.expect("{", ""), "X")
    assert (e.value.line, e.value.column) == (2, 5)


def test_crlf_line_numbers():
    lex = Lexer("#Inventor V2.1 ascii\r\n\r\nSeparator {\r\n  bad$ }", "t.iv", 20)
    kinds = [lex.next() for _ in range(3)]
    assert kinds[2][1] == "bad$"
    assert lex.where(kinds[2][2]) == (4, 3)
