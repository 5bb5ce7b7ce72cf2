"""Klamp't holds (``.hold``) and the hold text grammar, shared with stances (``.stance``, a
list of holds: :mod:`.stance`). The same text appears inside multipath ``<hold>`` elements
and JSON holds; the IK constraint of a hold is written as in :mod:`.ikgoal`.

Holds are read with the rules of Klamp't's C++ line parser, which accepts more than the
Python ``loader.read_Hold``: ``#`` comments outside right-hand sides, ``destLink``,
``axis``, the words ``begin hold`` split over lines. Outside a right-hand side, tokens are
runs of ASCII letters/digits and runs of other non-blank characters (punctuation). After an
item name comes ``=``, which must be followed by white space (Klamp't misreads ``link =56``
and rejects ``destLink =-1``); the right-hand side is the rest of the physical line, where a
backslash before the line break joins the next line **without** inserting a space and a
backslash before any other character stands for that character. Where Klamp't would silently
read garbage (too few numbers, a contact list that is not a multiple of 7) roboio raises a
FormatError; surplus values after ``link``/``position``/... are ignored with a warning, as
both Klamp't readers ignore them.

Writers emit Klamp't's own layout with full-precision numbers and a space before every
continuation backslash.
"""
from __future__ import annotations

import numpy as np

from ....errors import OutputError
from ....model.contact import ContactPoint, Hold, IKObjective, Stance
from ...fileio import as_text, atomic_write, fmt_float, line_of, read_bytes
from .._sniff import sniff_hold as sniff
from .._text import Where, fmt_vec3, is_number, parse_int

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_hold_text", "hold_text",
           "parse_stance_text", "stance_text", "stance_holds"]

# --------------------------------------------------------------------------- line scanner

def _is_word_char(c: str) -> bool:
    return c.isascii() and c.isalnum()


class _Scanner:
    """Klamp't's SimpleParser over hold/stance text (see the module docstring)."""

    def __init__(self, text: str, where: Where):
        self.text = text
        self.pos = 0
        self.where = where

    def at(self, pos):
        return line_of(self.text, pos)

    def error(self, message, pos=None):
        line, col = self.at(self.pos if pos is None else pos)
        return self.where.error(message, line, col)

    def token(self):
        """Next ``(kind, text, start)`` with kind ``word`` or ``punct``; None at the end."""
        text, n = self.text, len(self.text)
        p = self.pos
        while p < n:
            c = text[p]
            if c.isspace():
                p += 1
            elif c == "#":
                e = text.find("\n", p)
                p = n if e < 0 else e + 1
            else:
                break
        if p >= n:
            self.pos = n
            return None
        start = p
        word = _is_word_char(text[p])
        while p < n and not text[p].isspace() and text[p] != "#" and _is_word_char(text[p]) == word:
            p += 1
        self.pos = p
        return ("word" if word else "punct", text[start:p], start)

    def rest_of_line(self) -> str:
        """The rest of the physical line with backslash continuations joined (a backslash
        and the character after it -- a newline, or ``\\r\\n`` -- give that character, or
        nothing for a newline). Scans by slices between backslashes: linear with a small
        constant (holds of a fuzzed multipath held megabytes of contacts)."""
        text, n = self.text, len(self.text)
        out, p = [], self.pos
        while True:
            nl = text.find("\n", p)
            nl = n if nl < 0 else nl
            bs = text.find("\\", p, nl)
            if bs < 0:
                out.append(text[p:nl])
                p = nl
                break
            out.append(text[p:bs])
            p = bs + 1
            if p < n and text[p] == "\r":
                p += 1
            if p >= n:
                raise self.error("backslash at the end of the text", p - 1)
            if text[p] != "\n":
                out.append(text[p])
            p += 1
        self.pos = min(p + 1, n)
        return "".join(out)

    def trailing(self, ctx, what):
        tok = self.token()
        if tok is not None:
            line, col = self.at(tok[2])
            self.where.warn(ctx, f"text after {what} ignored (from {tok[1]!r})", line, col, kind="ignored")


# --------------------------------------------------------------------------- holds

_HOLD_ITEMS = ("link", "destLink", "contacts", "position", "rotation", "axis")


def _rhs_numbers(rhs: str, count, item: str, line: int, where: Where, ctx):
    toks = rhs.split()
    for t in toks[:count] if count is not None else toks:
        if not is_number(t):
            raise where.error(f"{item}: expected a number, got {t!r}", line)
    if count is None:
        return np.array(toks, dtype=float)
    if len(toks) < count:
        raise where.error(f"{item}: expected {count} numbers, got {len(toks)}", line)
    if len(toks) > count:
        where.warn(ctx, f"{item}: {len(toks) - count} values after the first {count} ignored", line, kind="ignored")
    return np.array(toks[:count], dtype=float)


def _assign(item: str, rhs: str, line: int, where: Where, ctx, h: dict) -> None:
    """Apply ``item = rhs`` to the hold under construction ``h`` (Klamp't's semantics:
    contacts accumulate, a later ``rotation``/``axis`` replaces an earlier one)."""
    if item in ("link", "destLink"):
        toks = rhs.split()
        value = parse_int(toks[0]) if toks else None
        if value is None:
            raise where.error(f"{item}: expected an integer link index, got {rhs.strip()!r}", line)
        if len(toks) > 1:
            where.warn(ctx, f"{item}: values after {toks[0]} ignored", line, kind="ignored")
        h[item] = value
    elif item == "contacts":
        vals = _rhs_numbers(rhs, None, item, line, where, ctx)
        if len(vals) % 7:
            raise where.error(f"contacts: {len(vals)} numbers is not a multiple of 7 "
                              f"(x y z nx ny nz kFriction per contact)", line)
        h["contacts"] += [ContactPoint(c[:3], c[3:6], c[6]) for c in vals.reshape(-1, 7)]
    elif item == "position":
        h["position"] = _rhs_numbers(rhs, 6, item, line, where, ctx)
    elif item in ("rotation", "axis"):
        h["rotation"] = (item, _rhs_numbers(rhs, 3 if item == "rotation" else 6, item, line, where, ctx))
    elif item == "ikparams":
        raise where.error("ikparams is not supported (Klamp't's own reader fails on it)", line)
    else:
        raise where.error(f"unknown hold item {item!r} (expected one of {', '.join(_HOLD_ITEMS)})", line)


def _build_hold(h: dict, end_line: int, where: Where, ctx) -> Hold:
    if h["link"] < 0:
        raise where.error("hold without a valid 'link' (a link index >= 0 is required)", end_line)
    if h["position"] is None:
        raise where.error("hold without 'position' (Klamp't requires a position constraint)", end_line)
    if not h["contacts"]:
        where.warn(ctx, "hold with no contacts", end_line, kind="empty")
    kw = {}
    if h["rotation"] is not None:
        kind, r = h["rotation"]
        kw = ({"rot_constraint": "fixed", "end_rotation": r} if kind == "rotation"
              else {"rot_constraint": "axis", "local_axis": r[:3], "end_rotation": r[3:]})
    pos = h["position"]
    return Hold(h["link"], h["contacts"], IKObjective(h["link"], h["destLink"], "fixed", pos[:3], pos[3:], **kw))


def _read_hold_body(sc: _Scanner, ctx, begin_pos: int) -> Hold:
    """The hold after its ``begin`` token: ``hold``, ``item = value`` lines, ``end``."""
    tok = sc.token()
    if tok is None or tok[:2] != ("word", "hold"):
        raise sc.error(f"expected 'hold' after 'begin', got {tok[1] if tok else 'end of text'!r}",
                       tok[2] if tok else None)
    extra = sc.rest_of_line().split("#", 1)[0].strip()
    if extra:
        sc.where.warn(ctx, f"text after 'begin hold' ignored: {extra!r}", sc.at(tok[2])[0], kind="ignored")
    h = {"link": -1, "destLink": -1, "contacts": [], "position": None, "rotation": None}
    while True:
        tok = sc.token()
        if tok is None:
            raise sc.error("hold not closed: expected 'end'", begin_pos)
        kind, item, start = tok
        if kind == "word" and item == "end":
            return _build_hold(h, sc.at(start)[0], sc.where, ctx)
        if kind != "word":
            raise sc.error(f"expected a hold item or 'end', got {item!r}", start)
        eq = sc.token()
        if eq is None or eq[:2] != ("punct", "="):
            got = eq[1] if eq else "end of text"
            raise sc.error(f"expected '=' after {item!r}, got {got!r}", eq[2] if eq else None)
        if sc.pos < len(sc.text) and not sc.text[sc.pos].isspace():
            raise sc.error(f"'=' after {item!r} must be followed by a space "
                           f"(Klamp't misreads '{item} ={sc.text[sc.pos]}...')", sc.pos)
        _assign(item, sc.rest_of_line(), sc.at(start)[0], sc.where, ctx, h)


def _expect_begin(sc: _Scanner, what: str) -> int:
    tok = sc.token()
    if tok is None or tok[:2] != ("word", "begin"):
        raise sc.error(f"expected 'begin {what}', got {tok[1] if tok else 'an empty text'!r}",
                       tok[2] if tok else None)
    return tok[2]


def parse_hold_text(text: str, where: Where, ctx) -> Hold:
    sc = _Scanner(text, where)
    hold = _read_hold_body(sc, ctx, _expect_begin(sc, "hold"))
    sc.trailing(ctx, "the hold's 'end'")
    return hold


def parse_stance_text(text: str, where: Where, ctx) -> Stance:
    sc = _Scanner(text, where)
    _expect_begin(sc, "stance")
    tok = sc.token()
    if tok is None or tok[:2] != ("word", "stance"):
        raise sc.error(f"expected 'stance' after 'begin', got {tok[1] if tok else 'end of text'!r}",
                       tok[2] if tok else None)
    stance = Stance()
    while True:
        tok = sc.token()
        if tok is None:
            raise sc.error("stance not closed: expected 'end'")
        if tok[:2] == ("word", "end"):
            break
        if tok[:2] != ("word", "begin"):
            raise sc.error(f"expected 'begin hold' or 'end' in a stance, got {tok[1]!r}", tok[2])
        hold = _read_hold_body(sc, ctx, tok[2])
        if stance.add(hold) is not None:
            where.warn(ctx, f"a second hold on link {hold.link} replaces the first (a stance keeps one "
                            f"hold per link)", sc.at(tok[2])[0], kind="dropped")
    sc.trailing(ctx, "the stance's 'end'")
    return stance


def hold_text(hold: Hold, report=None) -> str:
    """Klamp't's hold layout (C++ writer) with full precision; ends with ``end\\n``."""
    ik = hold.ik_constraint
    if ik is None or ik.pos_constraint != "fixed":
        kind = "no" if ik is None else f"a {ik.pos_constraint}"
        raise OutputError(None, f"hold on link {hold.link} has {kind} position constraint; hold files "
                         f"need a fixed one")
    if report is not None:
        if ik.link != hold.link:
            report.lose(f"IK constraint link {ik.link} of the hold on link {hold.link} "
                        f"(hold files constrain the hold's own link)", kind="not written")
        if ik.rot_constraint == "twoaxis":
            report.lose(f"two-axis rotation constraint of the hold on link {hold.link}", kind="not written")
        if ik.dest_link >= 0 or ik.rot_constraint == "axis":
            report.warn("holds with destLink or an axis constraint are read by Klamp't's C++ "
                        "reader only (not by Python loader.read_Hold)", kind="read differently")
    lines = ["begin hold", f"link = {hold.link}"]
    if ik.dest_link >= 0:
        lines.append(f"destLink = {ik.dest_link}")
    cps = [f"{fmt_vec3(c.x)}\t\t{fmt_vec3(c.n)}\t\t{fmt_float(c.kFriction)}" for c in hold.contacts]
    lines.append("contacts = " + "  \\\n           ".join(cps))
    lines.append(f"position = {fmt_vec3(ik.local_position)}  \\\n           {fmt_vec3(ik.end_position)}")
    if ik.rot_constraint == "fixed":
        lines.append(f"rotation = {fmt_vec3(ik.end_rotation)}")
    elif ik.rot_constraint == "axis":
        lines.append(f"axis = {fmt_vec3(ik.local_axis)}  \\\n       {fmt_vec3(ik.end_rotation)}")
    lines.append("end")
    return "\n".join(lines) + "\n"


def stance_holds(stance: Stance, report=None) -> list:
    """The stance's holds sorted by link, the last one per link (Klamp't keeps a map)."""
    by_link = {}
    for h in stance.holds:
        if h.link in by_link and report is not None:
            report.lose(f"an earlier hold on link {h.link} (a stance keeps one hold per link)",
                        kind="not written")
        by_link[h.link] = h
    return [by_link[k] for k in sorted(by_link)]


def stance_text(stance: Stance, report=None) -> str:
    return "begin stance\n" + "".join(hold_text(h, report) for h in stance_holds(stance, report)) + "end\n"


# --------------------------------------------------------------------------- the .hold file

def loads(data, ctx) -> Hold:
    hold = parse_hold_text(as_text(data), Where(ctx.path), ctx)
    hold.source = ctx.path
    return hold


def read(path: str, ctx) -> Hold:
    return loads(read_bytes(path, ctx), ctx)


def dumps(hold: Hold, report, path=None) -> str:
    return hold_text(hold, report)


def write(hold: Hold, path: str, report) -> None:
    atomic_write(path, dumps(hold, report, path))
