"""KrisLibrary's string rules as Klamp't applies them to names and references (used by the
``.rob`` reader and writer and by the mount rules)."""
from __future__ import annotations

import re
from typing import Optional

__all__ = ["is_integer_text", "file_extension", "translate_escapes"]

_INT = re.compile(r"[+-]?[0-9]+")


def is_integer_text(s: str) -> bool:
    """KrisLibrary's ``IsValidInteger``: optional sign and digits, nothing else."""
    return _INT.fullmatch(s) is not None


def file_extension(path: str) -> Optional[str]:
    """Klamp't's ``FileExtension``: the text after the last ``.`` of the whole string
    (compared case-sensitively: ``rob``/``urdf`` make a robot mount, ``xml`` a property file)."""
    i = path.rfind(".")
    return path[i + 1:] if i >= 0 else None


_ESCAPES = {"a": "\a", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def translate_escapes(s: str) -> str:
    """``\\n \\t \\r \\a \\b \\v`` -> control characters, ``\\x`` -> ``x`` (KrisLibrary's
    ``TranslateEscapes``, without its bug of repeating the last character)."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s, flags=re.S)
