"""roboio validate: load a file and report every problem."""
from ._common import dump_json, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "validate", help="load a file and report every problem (exit 1 if any)",
        description="Load a file, every mesh it references and every robot in it, and list "
        "every problem: warnings of the readers (what the original program ignores or stops "
        "at), missing or unreadable files, inconsistent limits, NaNs, negative masses, links "
        "in no joint. Exit status 0 when clean, 1 when there is a problem.",
        examples=["roboio validate ur5.urdf", "roboio validate tx90cuptable.xml --json",
                  "roboio validate robot.rob --strict   # stop at the first warning"])
    p.add_argument("path", help="file to check (any format roboio reads)")
    p.add_argument("--strict", action="store_true", help="warnings are errors (stop at the first)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: path, ok, problems")
    p.set_defaults(func=run)


def run(args):
    obj = load(args.path, strict=args.strict)
    from ..validation import problems as find_problems
    from . import _progress
    problems = find_problems(obj, bar=lambda n: _progress.bar(n, "loading meshes", "mesh"))
    if args.json:
        print(dump_json({"path": args.path, "ok": not problems, "problems": problems}))
    else:
        from ._common import cli_words
        for p in problems:
            print(cli_words(p))
        print(f"{args.path}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 0 if not problems else 1
