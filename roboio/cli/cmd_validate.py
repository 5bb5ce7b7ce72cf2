"""roboio validate: load a file and report every problem."""
from ._common import dump_json, format_option, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "validate", help="load a file and report every problem (exit 1 if any)",
        description="Load a file, every mesh it references and every robot in it, and list "
        "every problem: warnings of the readers (what the original program ignores or stops "
        "at), missing or unreadable files, inconsistent limits, NaNs, negative masses, links "
        "in no joint. Exit status 0 when clean, 1 when there is a problem.",
        examples=["roboio validate roboio/data/samples/mobile_gripper.urdf",
                  "roboio validate roboio/data/samples/world.xml --json",
                  "roboio validate roboio/data/samples/planar_arm.rob --strict   # stop at the first warning",
                  "roboio validate MY_ROBOT --format urdf   # a file without its extension"])
    p.add_argument("path", help="file to check (any format roboio reads)")
    p.add_argument("--strict", action="store_true", help="warnings are errors (stop at the first)")
    p.add_argument("--format", metavar="FORMAT",
                   help="read as this format (default: by extension and content; see "
                        "`roboio formats`)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: path, ok, problems")
    p.set_defaults(func=run)


def run(args):
    format_option(args.format, "--format", "read")
    obj = load(args.path, args.format, strict=args.strict)
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
