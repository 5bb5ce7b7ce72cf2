"""ConversionReport: what a save could not keep."""
from __future__ import annotations

from .errors import Diagnostic, severity_of


class ConversionReport:
    """Result of :func:`roboio.save`.

    ``lost``: human-readable items the target format cannot represent (never dropped
    silently); ``warnings``: other remarks; ``path``: the file written; ``files``: every file
    written (a world may write robot and mesh files next to it). ``bool(report.lost)`` is
    False for a lossless save.

    ``renamed``: every name the writer had to change because the target forbids it (or a
    change made a clash), ``{"links": {old: new}, "joints": {old: new}}``; a name the source
    uses several times (a gripper mounted twice) maps to the list of its occurrences' new
    names, in link order. Renames are not losses: the same things are there, named as the
    target allows (``roboio verify`` matches through them).
    """

    def __init__(self, path=None, format=None):
        self.path = path
        self.format = format
        self._lost: dict = {}             # ("item", text) -> None, ("group", kind) -> {item: None}
        self._severity: dict = {}         # ("item" | "group", text) -> severity
        self.warnings: list[str] = []
        self._warned: set = set()
        self.files: list[str] = []
        self.options: dict = {}           # writer options (e.g. meshes="copy"), see roboio.save
        # largest FK change (metres, radians) the writer measured for what it approximated
        self.fk_error: tuple = (0.0, 0.0)
        self.renamed: dict = {"links": {}, "joints": {}}

    @property
    def lost(self) -> list[str]:
        """The losses in the order first recorded (a group as ``"kind: a, b, c"``), each a
        :class:`~roboio.errors.Diagnostic` carrying its severity."""
        return [Diagnostic(k if items is None else f"{k}: {', '.join(items)}",
                           self._severity.get((g, k), "warning"), None if items is None else k)
                for (g, k), items in self._lost.items()]

    def lose(self, item: str, concerning: str | None = None, *, severity: str = "warning") -> None:
        """Record a loss. With ``concerning`` (a link, file, ... name), losses of the same
        kind are grouped into one item ``"kind: a, b, c"``. (Ordered dicts, not lists: a
        robot of thousands of links may lose something on each.) ``severity``: ``"error"``
        (the output is wrong where it matters: link poses change beyond tolerance),
        ``"warning"`` (the default: something is not kept) or ``"note"`` (nothing to act
        on, such as a rounding far below any tolerance); a group keeps its most severe."""
        key = ("item", item) if concerning is None else ("group", item)
        if concerning is None:
            self._lost.setdefault(key, None)
        else:
            self._lost.setdefault(key, {})[concerning] = None
        self._severity[key] = _most_severe(self._severity.get(key), severity)

    def rename(self, kind: str, old: str, new) -> None:
        """Record that ``old`` (a ``kind`` name: "links", "joints") is written as ``new``
        (a list: the new names of every occurrence of a name the source repeats)."""
        self.renamed.setdefault(kind, {})[old] = new

    def warn(self, item: str, *, severity=None) -> None:
        """Record a remark that is not a loss (``severity`` defaults to the item's own, a
        :class:`~roboio.errors.Diagnostic`'s, else ``"warning"``)."""
        if item not in self._warned:
            self._warned.add(item)
            self.warnings.append(Diagnostic(str(item), severity or severity_of(item),
                                            getattr(item, "kind", None), getattr(item, "hint", None)))

    def note(self, item: str) -> None:
        """:meth:`warn` a ``"note"``."""
        self.warn(item, severity="note")

    @property
    def lossless(self) -> bool:
        return not self.lost

    def to_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "lost": list(self.lost),
                "warnings": list(self.warnings), "files": list(self.files),
                "renamed": {k: dict(v) for k, v in self.renamed.items()},
                "fk_error": {"position": self.fk_error[0], "rotation": self.fk_error[1]}}

    def __str__(self):
        lines = [f"wrote {self.path}" + (f" ({self.format})" if self.format else "")]
        lines += [f"  also wrote {f}" for f in self.files if f != self.path]
        lines += [f"  lost: {x}" for x in self.lost] or ["  lossless"]
        for kind, names in self.renamed.items():
            for old, new in names.items():
                lines.append(f"  renamed {kind[:-1] if kind.endswith('s') else kind} {old!r} -> "
                             + (", ".join(map(repr, new)) if isinstance(new, list) else repr(new)))
        lines += [f"  warning: {x}" for x in self.warnings]
        return "\n".join(lines)

    __repr__ = __str__


def _most_severe(a, b) -> str:
    from .errors import SEVERITIES
    if a is None:
        return b
    return min(a, b, key=SEVERITIES.index)
