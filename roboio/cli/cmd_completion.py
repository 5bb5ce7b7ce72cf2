"""roboio completion: a shell completion script made from the command line's own parser."""
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "completion", help="print a bash or zsh completion script",
        description="Print a script that completes roboio's commands, options, option values "
        "(format names for --to, --from and --format; the choices of --view, --method, ...) and "
        "file names. Made from the parser itself, so it follows the installed version.",
        examples=['eval "$(roboio completion bash)"          # this shell; add it to ~/.bashrc',
                  "roboio completion bash > ~/.local/share/bash-completion/completions/roboio",
                  'eval "$(roboio completion zsh)"           # in ~/.zshrc',
                  "roboio completion zsh                      # print the script"])
    p.add_argument("shell", choices=("bash", "zsh"), help="the shell: bash (4 or later) or zsh")
    p.set_defaults(func=run)


def run(args):
    from ._completion import completion_script
    from .main import build_parser
    print(completion_script(build_parser(), args.shell), end="")
    return 0
