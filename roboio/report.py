"""ConversionReport: what a save could not keep."""
from __future__ import annotations

from .diagnostics import SHOWN, by_severity, count_line, counts, fold, name_list, plural
from .errors import SEVERITIES, Diagnostic, kind_severity

__all__ = ["ConversionReport", "extras_text"]


class _Entry:
    """One loss (``type`` ``"lost"``) or remark (``"remark"``) of a report: an item, or a
    group of items of one sort with what each concerns (``concerning``, an ordered set), and
    the largest error any of them causes (``largest``, in ``unit``)."""

    __slots__ = ("type", "text", "concerning", "severity", "kind", "hint", "noun", "largest", "unit")

    def __init__(self, type, text, grouped, severity, kind, hint, noun, unit):
        self.type = type
        self.text = text
        self.concerning = {} if grouped else None
        self.severity = severity
        self.kind = kind
        self.hint = hint
        self.noun = noun
        self.largest = None
        self.unit = unit

    def add(self, concerning, severity, kind, hint, largest) -> None:
        self.severity = _most_severe(self.severity, severity)
        self.hint = self.hint or hint
        self.kind = self.kind or kind
        if concerning is not None:
            self.concerning[concerning] = None
        if largest is not None:
            self.largest = largest if self.largest is None else max(self.largest, largest)

    def head(self) -> str:
        if self.largest is None:
            return self.text
        return f"{self.text}, largest change {self.largest:.1e}" + (f" {self.unit}" if self.unit else "")

    def diagnostic(self) -> Diagnostic:
        text = self.head() if self.concerning is None else f"{self.head()}: {', '.join(self.concerning)}"
        return Diagnostic(text, self.severity, self.kind, self.hint)

    def line(self, verbose: bool) -> str:
        """``lost (warning): unbounded maxvel (29 joints: WAIST_P, WAIST_R, CHEST, +26 more)``
        (a remark: ``warning: ...``)."""
        head = (f"lost ({self.severity}): " if self.type == "lost" else f"{self.severity}: ") + self.head()
        if not self.concerning:
            return head
        names = list(self.concerning)
        shown = names if verbose else names[:SHOWN]
        more = len(names) - len(shown)
        if self.noun:
            what = f"{plural(len(names), self.noun)}: " if len(names) > 1 else f"{self.noun} "
        else:
            what = f"{len(names)}: " if more else ""
        return f"{head} ({what}{name_list(shown, more)})"

    def to_dict(self) -> dict:
        d = dict(self.diagnostic().to_dict(), type=self.type)
        if self.concerning is not None:
            d["concerning"] = list(self.concerning)
        if self.largest is not None:
            d["largest"] = self.largest
            d["unit"] = self.unit
        return d


class ConversionReport:
    """Result of :func:`roboio.save`.

    ``lost``: human-readable items the target format cannot represent (never dropped
    silently); ``warnings``: other remarks; ``path``: the file written; ``files``: every file
    written (a world may write robot and mesh files next to it). ``bool(report.lost)`` is
    False for a lossless save. Every item is a :class:`~roboio.errors.Diagnostic` with a
    severity (``error``, ``warning``, ``note``) and a kind; ``str(report)`` lists them most
    severe first, items of one sort grouped (:meth:`render`).

    ``renamed``: every name the writer had to change because the target forbids it (or a
    change made a clash), ``{"links": {old: new}, "joints": {old: new}}``; a name the source
    uses several times (a gripper mounted twice) maps to the list of its occurrences' new
    names, in link order. Renames are not losses: the same things are there, named as the
    target allows (``roboio verify`` matches through them).
    """

    def __init__(self, path=None, format=None):
        self.path = path
        self.format = format
        self._entries: dict = {}          # (type, "item" | "group", text) -> _Entry
        self.files: list[str] = []
        self.options: dict = {}           # writer options (e.g. meshes="copy"), see roboio.save
        # largest FK change (metres, radians) the writer measured for what it approximated
        self.fk_error: tuple = (0.0, 0.0)
        self.renamed: dict = {"links": {}, "joints": {}}

    def _of(self, type) -> list:
        return [e for e in self._entries.values() if e.type == type]

    @property
    def lost(self) -> list[str]:
        """The losses in the order first recorded (a group as ``"item: a, b, c"``), each a
        :class:`~roboio.errors.Diagnostic` carrying its severity."""
        return [e.diagnostic() for e in self._of("lost")]

    @property
    def warnings(self) -> list[str]:
        """The remarks that are not losses (a group as ``"item: a, b, c"``), each a
        :class:`~roboio.errors.Diagnostic`."""
        return [e.diagnostic() for e in self._of("remark")]

    def rename(self, kind: str, old: str, new) -> None:
        """Record that ``old`` (a ``kind`` name: "links", "joints") is written as ``new``
        (a list: the new names of every occurrence of a name the source repeats)."""
        self.renamed.setdefault(kind, {})[old] = new

    def _record(self, type, item, concerning, severity, kind, hint, noun, largest, unit):
        key = (type, "item" if concerning is None else "group", str(item))
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry(type, str(item), concerning is not None, severity,
                                                kind, hint, noun, unit)
        entry.add(concerning, severity, kind, hint, largest)

    def lose(self, item: str, concerning: str | None = None, *, severity: str | None = None,
             kind: str | None = None, hint: str | None = None, noun: str | None = None,
             largest: float | None = None, unit: str = "") -> None:
        """Record a loss.

        With ``concerning`` (a link, joint, file, ... name), losses of the same ``item`` are
        one group ``"item: a, b, c"``, printed with their number and the first few names
        (``noun``: what each is, ``"joint"``, to print ``29 joints``). (Ordered dicts, not
        lists: a robot of thousands of links may lose something on each.) ``kind``: the sort
        of loss (:data:`roboio.errors.KINDS`: ``"not written"``, ``"approximated"``,
        ``"rounding"``, ...), which gives the severity unless ``severity`` does:
        ``"error"`` (the output is wrong where it matters: link poses change beyond
        tolerance, a mesh is missing), ``"warning"`` (something is not kept) or ``"note"``
        (nothing to act on, such as a rounding far below any tolerance); a group keeps its
        most severe. ``largest``: the size of the error (in ``unit``) this item causes; a
        group keeps the largest."""
        self._record("lost", item, concerning, kind_severity(kind, severity), kind, hint, noun,
                     largest, unit)

    def warn(self, item: str, concerning: str | None = None, *, severity=None, kind=None,
             hint=None, noun=None) -> None:
        """Record a remark that is not a loss (what a reader of the output will do with it,
        an input's warning), grouped by ``item`` with ``concerning`` as :meth:`lose` does.
        ``severity``, ``kind`` and ``hint`` default to the item's own (a
        :class:`~roboio.errors.Diagnostic`'s; a plain string is a ``"warning"``)."""
        kind = kind or getattr(item, "kind", None)
        if severity is None and isinstance(item, Diagnostic):
            severity = item.severity
        self._record("remark", item, concerning, kind_severity(kind, severity), kind,
                     hint or getattr(item, "hint", None), noun, None, "")

    def note(self, item: str, concerning: str | None = None, *, kind=None, noun=None) -> None:
        """:meth:`warn` a ``"note"``."""
        self.warn(item, concerning, severity="note", kind=kind, noun=noun)

    @property
    def lossless(self) -> bool:
        return not self._of("lost")

    def counts(self) -> dict:
        """``{"error": n, "warning": n, "note": n}`` over the losses and remarks (a group
        counts once)."""
        return counts(self.lost + self.warnings)

    def to_dict(self) -> dict:
        """What ``roboio convert --json`` prints: ``lost`` and ``warnings`` as texts, and
        ``items``: every loss and remark, most severe first, with its severity, kind, hint
        (and for a group the names it concerns, for an approximation its largest change)."""
        items = by_severity([e.to_dict() for e in self._entries.values()],
                            key=lambda d: d["severity"])
        return {"path": self.path, "format": self.format, "lost": list(self.lost),
                "warnings": list(self.warnings), "files": list(self.files),
                "renamed": {k: dict(v) for k, v in self.renamed.items()},
                "fk_error": {"position": self.fk_error[0], "rotation": self.fk_error[1]},
                "counts": self.counts(), "items": items}

    def render(self, verbose: bool = False) -> str:
        """The report as ``roboio convert`` prints it: the files written (beyond the first few
        counted), then every loss and remark, errors first, then warnings, then notes; a group with its number and first
        few names, ungrouped remarks of one kind beyond the first few counted (``verbose``:
        every name and remark); a last line counting them by severity."""
        lines = [f"wrote {self.path}" + (f" ({self.format})" if self.format else "")]
        others = [f for f in self.files if f != self.path]
        shown = others if verbose or len(others) <= SHOWN + 1 else others[:SHOWN]
        lines += [f"  also wrote {f}" for f in shown]
        if len(shown) < len(others):
            lines.append(f"  also wrote {plural(len(others) - len(shown), 'more file')} "
                         "(--verbose lists them)")
        if self.lossless:
            lines.append("  lossless")
        for severity in SEVERITIES:
            mine = [e for e in self._entries.values() if e.severity == severity]
            lines += [f"  {e.line(verbose)}" for e in mine if e.type == "lost" or e.concerning]
            lines += [f"  {x}" for x in fold([e.diagnostic() for e in mine
                                              if e.type == "remark" and not e.concerning], verbose)]
        lines += self._rename_lines(verbose)
        c = self.counts()
        if any(c.values()):
            lines.append(f"  {count_line(c)}")
        return "\n".join(lines)

    def _rename_lines(self, verbose: bool, first: int = 3) -> list[str]:
        """``renamed link 'a b' -> 'a_b'`` lines, the first few of each kind (``verbose``:
        all) and a count of the rest."""
        lines = []
        for kind, names in self.renamed.items():
            noun = kind[:-1] if kind.endswith("s") else kind
            shown = list(names.items()) if verbose else list(names.items())[:first]
            for old, new in shown:
                lines.append(f"  renamed {noun} {old!r} -> "
                             + (", ".join(map(repr, new)) if isinstance(new, list) else repr(new)))
            if len(names) > len(shown):
                rest = len(names) - len(shown)
                lines.append(f"  renamed {rest} more {noun}{'s' * (rest != 1)} (--verbose lists them)")
        return lines

    def __str__(self):
        return self.render()

    __repr__ = __str__


def _most_severe(a, b) -> str:
    if a is None:
        return b
    return min(a, b, key=SEVERITIES.index)


def extras_text(extras: dict, skip=()) -> str:
    """What a model element's ``extras`` hold, for a report: each ecosystem's key with the
    names of what it keeps (``"mjcf (equality, keyframes)"``), ``skip`` left out."""
    out = []
    for k in sorted(k for k in extras if k not in skip):
        v = extras[k]
        out.append(f"{k} ({', '.join(sorted(map(str, v)))})" if isinstance(v, dict) and v else k)
    return ", ".join(out)
