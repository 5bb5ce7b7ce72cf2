"""Messages in the command line's words.

roboio's messages serve Python callers and the command line at once ("pass --body MODEL.body
(in Python: obj.body = ...)"); the command line shows only its own words. Imports nothing of
roboio, so that ``main`` can use it.
"""
from __future__ import annotations

__all__ = ["cli_words"]

# What roboio's messages add for Python callers ("(in Python: obj.body = ...)", "or format=
# in Python", "package_dirs= / --package-path"): the command line shows only its own words.
_PYTHON_ALTERNATIVES = (r",? or [\w=\[\]]+ in Python", r"\b\w+= / (?=--)")


def cli_words(message: str) -> str:
    """``message`` without the hints meant for Python callers."""
    import re
    for opening in (" (in Python:", " (Python:"):
        while opening in message:
            i = message.index(opening)
            depth, j = 0, i + 1
            for j in range(i + 1, len(message)):        # to the matching parenthesis
                depth += {"(": 1, ")": -1}.get(message[j], 0)
                if depth == 0:
                    break
            message = message[:i] + message[j + 1:]
    for pattern in _PYTHON_ALTERNATIVES:
        message = re.sub(pattern, "", message)
    return message
