"""How commands present themselves in ``--help``: a description, every option described, and
an ``examples:`` epilog of two or three command lines (kept as written).

This module imports nothing but :mod:`argparse`, so that registering every command (which
``roboio --help`` and shell completion need) stays cheap.
"""
from __future__ import annotations

import argparse

__all__ = ["HelpFormatter", "add_command", "examples_epilog"]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' line breaks; option help wrapped to the terminal (at most 100
    columns), option names in a column wide enough for the longest usual ones."""

    def __init__(self, prog, indent_increment=2, max_help_position=30, width=None):
        if width is None:
            import shutil
            width = min(shutil.get_terminal_size((100, 24)).columns, 100) - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def add_argument(self, action):
        super().add_argument(action)
        # argparse measures the commands of a sub-parser action at the section's indent but
        # draws them one step further in, so the longest command name ("completion") would
        # push its help onto the next line
        if isinstance(action, argparse._SubParsersAction) and action.help is not argparse.SUPPRESS:
            longest = max((len(self._format_action_invocation(a))
                           for a in action._get_subactions()), default=0)
            self._action_max_length = max(self._action_max_length,
                                          longest + self._current_indent + self._indent_increment)

    def _fill_text(self, text, width, indent):
        """Paragraphs are wrapped; lines that start with a blank (examples) are kept."""
        import textwrap
        out, para = [], []

        def flush():
            if para:
                out.append(textwrap.fill(" ".join(para), width, initial_indent=indent,
                                         subsequent_indent=indent))
                para.clear()
        for line in text.splitlines():
            if not line.strip():
                flush()
                out.append("")
            elif line[0].isspace():
                flush()
                out.append(indent + line)
            else:
                para.append(line.strip())
        flush()
        return "\n".join(out)


def examples_epilog(examples) -> str:
    """``examples:`` followed by one indented line per example; an example is a command line,
    optionally followed by ``#`` and what it does."""
    return "examples:\n" + "\n".join(f"  {e}" for e in examples)


def add_command(sub, name: str, *, help: str, description: str = None, examples=(),
                **kwargs) -> argparse.ArgumentParser:
    """``sub.add_parser(name, ...)`` with the shared formatter and an examples epilog.
    ``help`` is the one line ``roboio --help`` shows; ``description`` (default: ``help``) opens
    the command's own help."""
    if description is None:
        description = help[:1].upper() + help[1:] + ("" if help.endswith(".") else ".")
    return sub.add_parser(name, help=help, description=description,
                          epilog=examples_epilog(examples) if examples else None,
                          formatter_class=HelpFormatter, **kwargs)
