"""Which reader a ``.dae`` goes to: every COLLADA file of the corpus, both directions.
OpenRAVE's robots and bodies (an instantiated kinematics scene) are ``collada-robot``; the
meshes (Klamp't's, which have none) stay ``collada`` meshes; a mesh referenced from a robot
file is a mesh whatever it holds."""
import glob
import os

import pytest

from conftest import CORPUS
from roboio.formats import registry

DAES = sorted(glob.glob(os.path.join(CORPUS, "**", "*.dae"), recursive=True))
ZAES = sorted(glob.glob(os.path.join(CORPUS, "**", "*.zae"), recursive=True))


def has_kinematics_scene(path):
    with open(path, "rb") as f:
        return b"<instance_kinematics_scene" in f.read()


def test_corpus_has_both_kinds():
    if not DAES:
        pytest.skip("corpus ../shared/corpus not present")
    robots = [p for p in DAES if has_kinematics_scene(p)]
    assert len(robots) == 2 and len(DAES) - len(robots) > 20 and len(ZAES) == 8


@pytest.mark.parametrize("path", DAES + ZAES, ids=lambda p: os.path.relpath(p, CORPUS))
def test_reader_by_content(path):
    expect = "collada-robot" if path.endswith(".zae") or has_kinematics_scene(path) else "collada"
    assert registry.find_reader(path).name == expect
    if path.endswith(".dae"):
        assert registry.find_reader(path, kinds=("geometry",)).name == "collada"
