"""ConversionReport: what a save could not keep."""
from __future__ import annotations


class ConversionReport:
    """Result of :func:`roboio.save`.

    ``lost``: human-readable items the target format cannot represent (never dropped
    silently); ``warnings``: other remarks; ``path``: the file written; ``files``: every file
    written (a world may write robot and mesh files next to it). ``bool(report.lost)`` is
    False for a lossless save.
    """

    def __init__(self, path=None, format=None):
        self.path = path
        self.format = format
        self.lost: list[str] = []
        self.warnings: list[str] = []
        self.files: list[str] = []

    def lose(self, item: str) -> None:
        if item not in self.lost:
            self.lost.append(item)

    def warn(self, item: str) -> None:
        if item not in self.warnings:
            self.warnings.append(item)

    @property
    def lossless(self) -> bool:
        return not self.lost

    def to_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "lost": list(self.lost),
                "warnings": list(self.warnings), "files": list(self.files)}

    def __str__(self):
        lines = [f"wrote {self.path}" + (f" ({self.format})" if self.format else "")]
        lines += [f"  also wrote {f}" for f in self.files if f != self.path]
        lines += [f"  lost: {x}" for x in self.lost] or ["  lossless"]
        lines += [f"  warning: {x}" for x in self.warnings]
        return "\n".join(lines)

    __repr__ = __str__
