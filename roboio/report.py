"""ConversionReport: what a save could not keep."""
from __future__ import annotations

from .diagnostics import SHOWN, as_diagnostics, by_severity, count_line, counts, fold, name_list, plural
from .errors import Diagnostic, kind_severity, severity_of

__all__ = ["ConversionReport"]


class _Loss:
    """One entry of :attr:`ConversionReport.lost`: an item, or a group of items of one sort
    with what each concerns (``concerning``, an ordered set), and the largest error any of
    them causes (``largest``, in ``unit``)."""

    __slots__ = ("text", "concerning", "severity", "kind", "hint", "noun", "largest", "unit")

    def __init__(self, text, grouped, severity, kind, hint, noun, unit):
        self.text = text
        self.concerning = {} if grouped else None
        self.severity = severity
        self.kind = kind
        self.hint = hint
        self.noun = noun
        self.largest = None
        self.unit = unit

    def head(self) -> str:
        if self.largest is None:
            return self.text
        return f"{self.text}, largest change {self.largest:.1e}" + (f" {self.unit}" if self.unit else "")

    def diagnostic(self) -> Diagnostic:
        text = self.head() if self.concerning is None else f"{self.head()}: {', '.join(self.concerning)}"
        return Diagnostic(text, self.severity, self.kind, self.hint)

    def line(self, verbose: bool) -> str:
        """``lost (warning): unbounded maxvel (29 joints: WAIST_P, WAIST_R, CHEST, +26 more)``."""
        head = f"lost ({self.severity}): {self.head()}"
        if not self.concerning:
            return head
        names = list(self.concerning)
        shown = names if verbose else names[:SHOWN]
        more = len(names) - len(shown)
        what = f"{plural(len(names), self.noun)}: " if self.noun and len(names) > 1 else (
            f"{self.noun} " if self.noun else (f"{len(names)}: " if more else ""))
        return f"{head} ({what}{name_list(shown, more)})"

    def to_dict(self) -> dict:
        d = self.diagnostic().to_dict()
        d["type"] = "lost"
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
    """

    def __init__(self, path=None, format=None):
        self.path = path
        self.format = format
        self._lost: dict = {}             # ("item" | "group", text) -> _Loss
        self.warnings: list[str] = []
        self._warned: set = set()
        self.files: list[str] = []
        self.options: dict = {}           # writer options (e.g. meshes="copy"), see roboio.save
        # largest FK change (metres, radians) the writer measured for what it approximated
        self.fk_error: tuple = (0.0, 0.0)

    @property
    def lost(self) -> list[str]:
        """The losses in the order first recorded (a group as ``"kind: a, b, c"``), each a
        :class:`~roboio.errors.Diagnostic` carrying its severity."""
        return [loss.diagnostic() for loss in self._lost.values()]

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
        tolerance, a mesh is missing), ``"warning"`` (the default: something is not kept) or
        ``"note"`` (nothing to act on, such as a rounding far below any tolerance); a group
        keeps its most severe. ``largest``: the size of the error (in ``unit``) this item
        causes; a group keeps the largest."""
        sev = kind_severity(kind, severity)
        key = ("item", item) if concerning is None else ("group", item)
        loss = self._lost.get(key)
        if loss is None:
            loss = self._lost[key] = _Loss(item, concerning is not None, sev, kind, hint, noun, unit)
        else:
            loss.severity = _most_severe(loss.severity, sev)
            loss.hint = loss.hint or hint
            loss.kind = loss.kind or kind
        if concerning is not None:
            loss.concerning[concerning] = None
        if largest is not None:
            loss.largest = largest if loss.largest is None else max(loss.largest, largest)

    def warn(self, item: str, *, severity=None, kind=None, hint=None) -> None:
        """Record a remark that is not a loss (``severity``, ``kind`` and ``hint`` default to
        the item's own, a :class:`~roboio.errors.Diagnostic`'s; a plain string is a
        ``"warning"``)."""
        if item not in self._warned:
            self._warned.add(item)
            kind = kind or getattr(item, "kind", None)
            self.warnings.append(Diagnostic(str(item), severity or (
                severity_of(item) if isinstance(item, Diagnostic) else None), kind,
                hint or getattr(item, "hint", None)))

    def note(self, item: str, *, kind=None) -> None:
        """:meth:`warn` a ``"note"``."""
        self.warn(item, severity="note", kind=kind)

    @property
    def lossless(self) -> bool:
        return not self._lost

    def counts(self) -> dict:
        """``{"error": n, "warning": n, "note": n}`` over the losses (a group counts once)
        and the remarks."""
        return counts(self.lost + self.warnings)

    def to_dict(self) -> dict:
        """What ``roboio convert --json`` prints: ``lost`` and ``warnings`` as texts, and
        ``items``: every loss and remark with its severity, kind, hint (and for a group the
        names it concerns, for a rounding its largest change)."""
        items = [loss.to_dict() for loss in self._lost.values()]
        items += [dict(w.to_dict(), type="remark") for w in as_diagnostics(self.warnings)]
        return {"path": self.path, "format": self.format, "lost": list(self.lost),
                "warnings": list(self.warnings), "files": list(self.files),
                "fk_error": {"position": self.fk_error[0], "rotation": self.fk_error[1]},
                "counts": self.counts(), "items": by_severity(items, key=lambda d: d["severity"])}

    def render(self, verbose: bool = False) -> str:
        """The report as ``roboio convert`` prints it: the files written, then every loss and
        remark, errors first, then warnings, then notes; a group of losses with its number
        and first few names, remarks of one kind beyond the first few counted (``verbose``:
        every name and remark); a last line counting them by severity."""
        lines = [f"wrote {self.path}" + (f" ({self.format})" if self.format else "")]
        lines += [f"  also wrote {f}" for f in self.files if f != self.path]
        if not self._lost:
            lines.append("  lossless")
        losses = by_severity(self._lost.values(), key=lambda x: x.severity)
        remarks = as_diagnostics(self.warnings)
        for severity in ("error", "warning", "note"):
            lines += [f"  {x.line(verbose)}" for x in losses if x.severity == severity]
            lines += [f"  {x}" for x in fold([w for w in remarks if w.severity == severity], verbose)]
        c = self.counts()
        if any(c.values()):
            lines.append(f"  {count_line(c)}")
        return "\n".join(lines)

    def __str__(self):
        return self.render()

    __repr__ = __str__


def _most_severe(a, b) -> str:
    from .errors import SEVERITIES
    if a is None:
        return b
    return min(a, b, key=SEVERITIES.index)
