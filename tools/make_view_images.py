"""Regenerate the images of docs/viewer.md and the README (docs/images/*.png).

    python tools/make_view_images.py        # from the repository root, corpus at ../shared/corpus

Each image is what the documented command writes (``roboio render`` / ``roboio plot``).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from roboio.cli.main import main  # noqa: E402

C = "../shared/corpus"
IMAGES = [
    ["render", f"{C}/klampt/tx90cups.xml", "-o", "docs/images/tx90cups.png", "--size", "400x300"],
    ["render", f"{C}/choreonoid/share/model/SR1/SR1.body", "-o", "docs/images/sr1.png", "--view", "iso",
     "--size", "300x300", "--config", "LARM_SHOULDER_P=-1.2 RARM_SHOULDER_P=0.6 LARM_ELBOW=-1.0"],
    ["render", f"{C}/klampt/robots/baxter.rob", "-o", "docs/images/baxter.png", "--size", "300x300"],
    ["plot", f"{C}/choreonoid/sample/SimpleController/SR1WalkPattern1.seq", "-o", "docs/images/sr1_walk_plot.png",
     "--model", f"{C}/choreonoid/share/model/SR1/SR1.body", "--title", "SR1WalkPattern1.seq"],
]


def run():
    from PIL import Image
    os.chdir(ROOT)
    for args in IMAGES:
        rc = main(args)
        if rc:
            sys.exit(rc)
        out = args[args.index("-o") + 1]
        Image.open(out).convert("RGB").quantize(colors=96).save(out, optimize=True)   # small files in git


if __name__ == "__main__":
    run()
