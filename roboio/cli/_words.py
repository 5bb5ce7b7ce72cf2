"""Messages in the command line's words.

roboio's messages serve Python callers and the command line at once ("pass --body MODEL.body
(in Python: obj.body = ...)"); the command line shows only its own words. Imports nothing of
roboio, so that ``main`` can use it.
"""
from __future__ import annotations

__all__ = ["cli_words", "did_you_mean", "name_list"]

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


def did_you_mean(word: str, choices, n: int = 3) -> str:
    """`` (did you mean 'a' or 'b'?)`` for the choices closest to a mistyped ``word`` (none
    close: an empty string); case-insensitive, as users mistype case too."""
    import difflib
    choices = [str(c) for c in choices]
    lower = {}
    for c in choices:
        lower.setdefault(c.lower(), c)
    close = difflib.get_close_matches(str(word).lower(), list(lower), n=n, cutoff=0.6)
    if not close:
        return ""
    quoted = [repr(lower[c]) for c in close]
    return " (did you mean " + (" or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1
                                else quoted[0]) + "?)"


def name_list(names, limit: int = 12) -> str:
    """``'a', 'b', 'c', ... (40 in all)``: the first ``limit`` names of a list, quoted (names
    may hold blanks and commas), for messages."""
    names = [str(x) for x in names]
    if not names:
        return "none"
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")
