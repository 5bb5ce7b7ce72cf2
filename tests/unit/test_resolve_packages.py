"""package:// and file:// references: URL forms and the order of the places searched."""
import os

from roboio.resolve import package_candidates, resolve, split_url


def tree(tmp_path):
    """ws/src/talos_data/meshes/a.stl, prefix/share/talos_data/meshes/a.stl, and a URDF
    inside the first package and a copy outside both."""
    files = {}
    for root in ("ws/src/talos_data", "prefix/share/talos_data", "other/talos_data"):
        d = tmp_path / root / "meshes"
        d.mkdir(parents=True)
        (d / "a.stl").write_bytes(b"solid a\nendsolid a\n")
        files[root] = str(d / "a.stl")
    (tmp_path / "ws/src/talos_data/robots").mkdir()
    inside = tmp_path / "ws/src/talos_data/robots/talos.urdf"
    inside.write_text("<robot name='t'/>")
    outside = tmp_path / "copy/talos.urdf"
    outside.parent.mkdir()
    outside.write_text("<robot name='t'/>")
    return files, str(inside), str(outside)


def test_split_url():
    assert split_url("package://talos_data/meshes/a.stl") == ("package", "talos_data", "meshes/a.stl")
    assert split_url("package:///talos_data/meshes/a.stl") == ("package", "talos_data", "meshes/a.stl")
    assert split_url("file:///abs/a.stl") == ("file", "/abs/a.stl")
    assert split_url("file://localhost/abs/a.stl") == ("file", "/abs/a.stl")
    assert split_url("meshes/a.stl") == (None, "meshes/a.stl")


def test_three_slash_package_through_package_dirs(tmp_path):
    files, inside, outside = tree(tmp_path)
    ref = "package:///talos_data/meshes/a.stl"
    assert resolve(ref, outside, packages=[str(tmp_path / "ws/src")], environ={}).path == files["ws/src/talos_data"]
    got = resolve(ref, outside, packages={"talos_data": str(tmp_path / "other/talos_data")}, environ={})
    assert got.path == files["other/talos_data"]
    # a root that is the package itself
    got = resolve(ref, outside, packages=[str(tmp_path / "other/talos_data")], environ={})
    assert got.path == files["other/talos_data"]


def test_environment_then_ancestors(tmp_path):
    files, inside, outside = tree(tmp_path)
    ref = "package://talos_data/meshes/a.stl"
    env = {"ROS_PACKAGE_PATH": str(tmp_path / "ws/src")}
    assert resolve(ref, outside, environ=env).path == files["ws/src/talos_data"]
    env = {"ROS_PACKAGE_PATH": str(tmp_path / "ws")}          # packages one level down
    assert resolve(ref, outside, environ=env).path == files["ws/src/talos_data"]
    env = {"AMENT_PREFIX_PATH": os.pathsep.join(["/nonexistent", str(tmp_path / "prefix")])}
    assert resolve(ref, outside, environ=env).path == files["prefix/share/talos_data"]
    # the URDF's own package, found among its ancestors
    assert resolve(ref, inside, environ={}).path == files["ws/src/talos_data"]
    # nothing says where talos_data is for the copy outside
    res = resolve(ref, outside, environ={})
    assert not res and res.tried == []


def test_order_of_places(tmp_path):
    files, inside, outside = tree(tmp_path)
    env = {"ROS_PACKAGE_PATH": str(tmp_path / "ws/src"), "AMENT_PREFIX_PATH": str(tmp_path / "prefix")}
    c = package_candidates("talos_data", inside, [str(tmp_path / "other")], env)
    assert c == [str(tmp_path / "other/talos_data"), str(tmp_path / "ws/src/talos_data"),
                 str(tmp_path / "prefix/share/talos_data")]
    res = resolve("package://talos_data/meshes/a.stl", inside, packages=[str(tmp_path / "other")], environ=env)
    assert res.path == files["other/talos_data"]
