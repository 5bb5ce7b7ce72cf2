"""Shell completion scripts generated from the argparse parser (``roboio completion bash``).

The script holds tables made from the parser -- the commands and actions of every level,
their options, which options take a value, the values some take (``--to`` and ``--from``
take format names from the registry, ``--view`` its choices, directories for ``DIR``
options) -- and a small function that finds the command being typed and completes
commands, options, option values or file names. zsh runs the same function through its
``bashcompinit`` layer (with 0-based arrays inside the function).
"""
from __future__ import annotations

import argparse

__all__ = ["completion_script", "command_table", "SHELLS"]

SHELLS = ("bash", "zsh")


def _subparsers(parser):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a
    return None


def _format_names(write: bool) -> list:
    from ..formats.registry import formats
    return sorted(f.name for f in formats() if (f.can_write if write else f.can_read))


def command_table(parser) -> dict:
    """``{command path: {"subs": [...], "opts": [...], "valopts": [...], "values": {opt:
    [...] or "dirs" or "files"}, "positional": [...] or "files"}}`` for every level of the
    parser (path ``""`` is the top)."""
    table = {}

    def walk(p, path):
        entry = {"subs": [], "opts": [], "valopts": [], "values": {}, "positional": "files"}
        sub = _subparsers(p)
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                continue
            if not a.option_strings:
                if a.choices:
                    entry["positional"] = sorted(map(str, a.choices))
                continue
            entry["opts"].extend(a.option_strings)
            if a.nargs != 0:
                entry["valopts"].extend(a.option_strings)
                if a.choices:
                    vals = sorted(map(str, a.choices))
                elif a.metavar == "FORMAT":
                    vals = _format_names(write="--to" in a.option_strings)
                elif a.metavar == "DIR":
                    vals = "dirs"
                else:
                    vals = "files"
                for o in a.option_strings:
                    entry["values"][o] = vals
        if sub is not None:
            entry["subs"] = list(dict.fromkeys(sub.choices))
            entry["positional"] = []
        table[path] = entry
        if sub is not None:
            for name, sp in sub.choices.items():
                walk(sp, f"{path} {name}".strip())

    walk(parser, "")
    return table


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _assoc(name: str, items: dict) -> list:
    # ``NAME+=( ["key"]=value )`` reads the same in bash and zsh
    out = [f"    local -A {name}"]
    for k, v in items.items():
        out.append(f'    {name}+=( ["{k}"]={_q(v)} )')
    return out


def bash_function(parser, prog: str = "roboio") -> str:
    table = {f"{prog} {k}".strip(): v for k, v in command_table(parser).items()}
    subs = {k: " ".join(v["subs"]) for k, v in table.items() if v["subs"]}
    opts = {k: " ".join(v["opts"]) for k, v in table.items()}
    valopts = {k: " " + " ".join(v["valopts"]) + " " for k, v in table.items()}
    values = {}
    for k, v in table.items():
        for o, vals in v["values"].items():
            if vals != "files":           # the default
                values[f"{k}|{o}"] = vals if isinstance(vals, str) else "=" + " ".join(vals)
        if isinstance(v["positional"], list) and v["positional"]:
            values[f"{k}|"] = "=" + " ".join(v["positional"])
    fn = "_" + prog.replace("-", "_")
    lines = [f"{fn}() {{",
             "    [ -n \"${ZSH_VERSION-}\" ] && setopt localoptions ksharrays",
             *_assoc("subs", subs), *_assoc("opts", opts), *_assoc("valopts", valopts),
             *_assoc("values", values),
             f'    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" cpath={prog} w i skip=0',
             '    [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"',
             "    for ((i = 1; i < COMP_CWORD; i++)); do",
             '        w="${COMP_WORDS[i]}"',
             '        if [ "$skip" = 1 ]; then skip=0; continue; fi',
             '        case "$w" in',
             '            -*) case "${valopts[$cpath]}" in *" $w "*) skip=1;; esac; continue;;',
             "        esac",
             '        case " ${subs[$cpath]-} " in',
             '            *" $w "*) cpath="$cpath $w";;',
             "        esac",
             "    done",
             '    local spec=""',
             '    if [ "$skip" = 1 ]; then',
             '        spec="${values[$cpath|$prev]-files}"',
             '    elif [[ "$cur" == -* ]]; then',
             '        spec="=${opts[$cpath]}"',
             '    elif [ -n "${subs[$cpath]}" ]; then',
             '        spec="=${subs[$cpath]}"',
             "    else",
             '        spec="${values[$cpath|]-files}"',
             "    fi",
             '    case "$spec" in',
             '        "="*) COMPREPLY=($(compgen -W "${spec#=}" -- "$cur"));;',
             '        dirs) COMPREPLY=($(compgen -d -- "$cur"));;',
             '        *) COMPREPLY=($(compgen -f -- "$cur"));;',
             "    esac",
             "}"]
    return "\n".join(lines)


def completion_script(parser, shell: str, prog: str = "roboio") -> str:
    """The completion script for ``shell`` (see :data:`SHELLS`)."""
    fn = "_" + prog.replace("-", "_")
    body = bash_function(parser, prog)
    if shell == "bash":
        return (f"# bash completion for {prog} (generated by `{prog} completion bash`)\n"
                f"{body}\ncomplete -o filenames -o bashdefault -F {fn} {prog}\n")
    if shell == "zsh":
        return (f"#compdef {prog}\n# zsh completion for {prog} (generated by `{prog} completion "
                f"zsh`), through zsh's bash-completion layer\n"
                "autoload -U +X compinit && compinit\n"
                "autoload -U +X bashcompinit && bashcompinit\n"
                f"{body}\ncomplete -o filenames -o bashdefault -F {fn} {prog}\n")
    raise ValueError(f"no completion for shell {shell!r} (shells: {', '.join(SHELLS)})")
