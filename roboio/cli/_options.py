"""Options every command shares (``--limit``), and argument types that reject bad values as
usage errors (exit status 2, one line)."""
from __future__ import annotations

import argparse

from ..limits import Limits, parse_limit

__all__ = ["add_shared_options", "limits_of", "positive_int", "OneLineParser"]


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (exit status 2), that takes no
    abbreviated option (``--tre`` is not ``--tree``: a script that relies on an abbreviation
    breaks when an option is added) and suggests the closest option or choice to a mistyped
    one."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}{self._suggestion(message)} "
                     f"(see '{self.prog} --help')\n")

    def _suggestion(self, message: str) -> str:
        import re
        from ._words import did_you_mean
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            return did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)) or
                                [c.strip() for c in m.group(2).split(",")])
        m = re.search(r"unrecognized arguments: (.*)", message)
        if m:
            options = sorted({o for p in _all_parsers(self) for a in p._actions
                              for o in a.option_strings if o.startswith("--")})
            for word in m.group(1).split():
                if word.startswith("--"):
                    hint = did_you_mean(word.split("=")[0], options)
                    if hint:
                        return hint
        return ""


def _all_parsers(parser: argparse.ArgumentParser):
    yield parser
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for p in dict.fromkeys(a.choices.values()):
                yield from _all_parsers(p)


def _limit(text: str) -> tuple:
    try:
        return parse_limit(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def positive_int(text: str) -> int:
    """An integer >= 1 (sample counts, random configurations)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _leaves(parser: argparse.ArgumentParser):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield parser
        return
    for action in subs:
        for p in dict.fromkeys(action.choices.values()):
            yield from _leaves(p)


def add_shared_options(subparsers: argparse._SubParsersAction) -> None:
    """Add ``--limit NAME=VALUE`` (repeatable) to every command and action."""
    names = ", ".join(n[len("max_"):] for n in Limits.names())
    for top in dict.fromkeys(subparsers.choices.values()):
        for p in _leaves(top):
            if any("--limit" in a.option_strings for a in p._actions):
                continue
            p.add_argument("--limit", action="append", type=_limit, default=None,
                           metavar="NAME=VALUE",
                           help=f"raise or lower a resource limit of the loads ({names}; "
                                "'max_' prefix optional; VALUE may be 1e6, 500M, 2Gi); repeatable")


def limits_of(args) -> dict:
    """The ``--limit`` values of the parsed command line as a mapping for
    :func:`roboio.limits.using` (empty when none were given)."""
    return dict(getattr(args, "limit", None) or ())
