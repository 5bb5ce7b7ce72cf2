"""Mutations and seed files for ``tools/fuzz_readers.py``.

Byte-level mutations (deletions, troublesome tokens, flips, truncation, repeated chunks,
interesting numbers) work on every file; grammar-aware ones keep a file parseable enough to
reach deep into a reader:

* XML (URDF, Klamp't world/multipath/grasp, COLLADA, OpenRAVE, GraspIt!): element
  deletion, duplication, transplanting, deep wrapping, attribute and text values;
* YAML (Choreonoid ``.seq``/``.body``/``.pseq``): node replacement, deletion, duplication,
  aliases of other nodes (PyYAML emits anchors for shared nodes), deep wrapping;
* Klamp't ``.rob``: keyword lines duplicated, dropped, lengthened, shortened, extra mounts;
* Inventor/VRML: node blocks duplicated, DEF/USE chains, nesting, ``File`` includes.

:func:`build_seeds` writes one or more seed files for every readable format from the
samples shipped with roboio (through roboio's writers, trimesh's exporters and a few
hand-written texts), so that the fuzzer covers every reader without the corpus.
"""
from __future__ import annotations

import os
import random
import re
import shutil

NUMBERS = [b"0", b"-1", b"1", b"-0", b"1e308", b"-1e308", b"1e-320", b"nan", b"inf", b"-inf",
           b"2147483647", b"2147483648", b"4294967295", b"4294967296", b"9223372036854775807",
           b"18446744073709551616", b"1e999", b"0x10", b"1.5", b"99999999999999999999", b"",
           b"1000000000000", b"-2147483649", b"3e9", b"1e6"]
TOKENS = [b"x", b"-1", b"1e999", b'"', b"'", b"<", b">", b"{", b"}", b"[", b"]", b"\\\n", b"nan",
          b"999999999", b"\x00", b" 0 ", b"&", b"- ", b": ", b"*", b"&a ", b"*a", b"\xff\xfe",
          b"<!--", b"]]>", b"\t", b"\r", b"#", b"USE ", b"DEF ", b"\n"]
_NUM_RE = re.compile(rb"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


# -- generic -----------------------------------------------------------------------------

def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(b) + 1)
        op = rng.random()
        if op < 0.2 and b:
            del b[i:i + rng.randint(1, 64)]
        elif op < 0.45:
            b[i:i] = rng.choice(TOKENS)
        elif op < 0.6 and b:
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op < 0.7:
            del b[i:]                                   # truncation
        elif op < 0.8 and b:
            j = min(len(b), i + rng.randint(1, 200))
            b[i:i] = bytes(b[i:j]) * rng.randint(2, 50)   # repeated chunk
        else:
            b = bytearray(mutate_numbers(bytes(b), rng))
    return bytes(b)


def mutate_numbers(data: bytes, rng: random.Random, count: int = 0) -> bytes:
    spans = [m.span() for m in _NUM_RE.finditer(data[:2_000_000])]
    if not spans:
        return data
    out = data
    for start, end in sorted(rng.sample(spans, min(len(spans), count or rng.randint(1, 3))), reverse=True):
        out = out[:start] + rng.choice(NUMBERS) + out[end:]
    return out


def mutate_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.random()
        if op < 0.25:
            del lines[i]
        elif op < 0.5:
            lines[i:i] = [lines[i]] * rng.randint(1, 20)
        elif op < 0.65:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op < 0.8:
            words = lines[i].split(b" ")
            k = rng.randrange(len(words))
            if rng.random() < 0.5 and len(words) > 1:
                del words[k]
            else:
                words.insert(k, rng.choice(NUMBERS + TOKENS))
            lines[i] = b" ".join(words)
        else:
            lines[i] = mutate_numbers(lines[i], rng)
    return b"\n".join(lines)


# -- XML ---------------------------------------------------------------------------------

def mutate_xml(data: bytes, rng: random.Random) -> bytes:
    from lxml import etree
    try:
        root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True,
                                                      remove_comments=False, huge_tree=False))
    except (etree.XMLSyntaxError, ValueError):
        return mutate_bytes(data, rng)
    elems = [e for e in root.iter() if isinstance(e.tag, str)]
    tags = sorted({e.tag for e in elems})
    attrs = sorted({(k, v) for e in elems for k, v in e.attrib.items()})
    for _ in range(rng.randint(1, 3)):
        e = rng.choice(elems)
        op = rng.random()
        parent = e.getparent()
        if op < 0.12 and parent is not None:
            parent.remove(e)
            elems = [x for x in root.iter() if isinstance(x.tag, str)]
        elif op < 0.25 and parent is not None:
            idx = parent.index(e)
            for _ in range(rng.choice([1, 2, 5, 50, 500])):
                parent.insert(idx, _copy(e))
        elif op < 0.32:
            other = rng.choice(elems)
            if e is not other and not _is_ancestor(e, other):
                other.append(_copy(e))
        elif op < 0.38:
            inner = e
            for _ in range(rng.choice([2, 10, 300, 3000])):
                wrapper = etree.Element(e.tag)
                wrapper.append(inner if inner is not e else _copy(e))
                inner = wrapper
            e.append(inner)
        elif op < 0.6 and e.attrib:
            k = rng.choice(list(e.attrib))
            e.set(k, _value(rng, e.get(k)))
        elif op < 0.68 and e.attrib:
            del e.attrib[rng.choice(list(e.attrib))]
        elif op < 0.76 and attrs:
            k, v = rng.choice(attrs)
            e.set(k, v if rng.random() < 0.5 else _value(rng, v))
        elif op < 0.86:
            e.text = _value(rng, e.text or "")
        elif op < 0.93 and tags:
            e.tag = rng.choice(tags)
        else:
            e.tail = (e.tail or "") + rng.choice(["&amp;", "<![CDATA[x]]>", "\u00e9", " 1 2 3 "])
        elems = elems or [root]
    out = etree.tostring(root, xml_declaration=data.lstrip().startswith(b"<?xml"), encoding="utf-8")
    if rng.random() < 0.1:
        out = out[:rng.randrange(len(out) + 1)]
    return out


def _copy(e):
    import copy
    return copy.deepcopy(e)


def _is_ancestor(a, b) -> bool:
    while b is not None:
        if b is a:
            return True
        b = b.getparent()
    return False


def _value(rng, old: str) -> str:
    nums = old.split()
    op = rng.random()
    if op < 0.35 and nums:
        nums[rng.randrange(len(nums))] = rng.choice(NUMBERS).decode()
        return " ".join(nums)
    if op < 0.5:
        return " ".join(nums[:-1]) if nums else ""
    if op < 0.6:
        return old + " " + rng.choice(NUMBERS).decode()
    if op < 0.7:
        return old * rng.choice([2, 100, 10000])
    return rng.choice(["", " ", "nan", "-1", "1e999", "../../../etc/passwd", "package://x/y.stl",
                       "file:///dev/zero", "a" * 300, "0 0", "1 2 3 4 5 6 7 8 9 10 11 12 13"])


# -- YAML --------------------------------------------------------------------------------

def mutate_yaml(data: bytes, rng: random.Random) -> bytes:
    import yaml
    if len(data) > 40_000 or rng.random() < 0.25:
        return mutate_lines(data, rng) if rng.random() < 0.6 else mutate_bytes(data, rng)
    try:
        root = yaml.compose(data.decode("utf-8", "replace"), Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return mutate_bytes(data, rng)
    if root is None:
        return mutate_bytes(data, rng)
    nodes = list(_yaml_nodes(root))
    for _ in range(rng.randint(1, 3)):
        n = rng.choice(nodes)
        op = rng.random()
        if op < 0.3 and isinstance(n, yaml.ScalarNode):
            n.value = _value(rng, n.value)
        elif op < 0.45 and isinstance(n, yaml.MappingNode) and n.value:
            del n.value[rng.randrange(len(n.value))]
        elif op < 0.6 and isinstance(n, yaml.SequenceNode) and n.value:
            i = rng.randrange(len(n.value))
            n.value[i:i] = [n.value[i]] * rng.choice([1, 3, 30])      # shared node: an alias
        elif op < 0.72:
            other = rng.choice(nodes)
            if isinstance(n, yaml.MappingNode) and n.value:
                k, _ = n.value[rng.randrange(len(n.value))]
                n.value.append((k, other))
            elif isinstance(n, yaml.SequenceNode):
                n.value.append(other)          # may create a cycle: a recursive alias
        elif op < 0.8:
            inner = n
            for _ in range(rng.choice([2, 50, 500])):
                inner = yaml.SequenceNode("tag:yaml.org,2002:seq", [inner])
            _replace_child(root, n, inner)
        elif isinstance(n, yaml.MappingNode) and n.value:
            k, v = n.value[rng.randrange(len(n.value))]
            k.value = rng.choice(["numParts", "numFrames", "frameRate", "frames", "type", "content",
                                  "links", "joints", "elements", "refs", "<<", "format",
                                  "formatVersion", "hasFrameTime", "SE3Format", k.value + "x"])
    if rng.random() < 0.3:
        flow = rng.random() < 0.5
        for n in _yaml_nodes(root):
            if isinstance(n, (yaml.SequenceNode, yaml.MappingNode)):
                n.flow_style = flow
    try:
        text = yaml.serialize(root, Dumper=yaml.SafeDumper, width=rng.choice([80, 10**6]))
    except (yaml.YAMLError, RecursionError, ValueError):
        return mutate_bytes(data, rng)
    return text.encode("utf-8")


def _yaml_nodes(root):
    import yaml
    seen, stack = set(), [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        if isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                stack.extend((k, v))


def _replace_child(root, old, new):
    import yaml
    for n in _yaml_nodes(root):
        if isinstance(n, yaml.SequenceNode):
            n.value = [new if c is old else c for c in n.value]
        elif isinstance(n, yaml.MappingNode):
            n.value = [(k, new if v is old else v) for k, v in n.value]


# -- Klamp't .rob --------------------------------------------------------------------------

def mutate_rob(data: bytes, rng: random.Random, siblings=()) -> bytes:
    lines = data.split(b"\n")
    keyed = [i for i, l in enumerate(lines) if l[:1].isalpha()]
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if op < 0.2 and keyed:
            i = rng.choice(keyed)
            lines[i:i] = [lines[i]] * rng.randint(1, 5)
        elif op < 0.35 and keyed:
            lines[rng.choice(keyed)] = b""
        elif op < 0.55 and keyed:
            i = rng.choice(keyed)
            words = lines[i].split()
            if words:
                k = rng.randrange(1, len(words) + 1)
                if rng.random() < 0.5 and len(words) > 1:
                    del words[min(k, len(words) - 1)]
                else:
                    words.insert(k, rng.choice(NUMBERS + [b'"x"', b'"*"', b"\\"]))
                lines[i] = b" ".join(words)
        elif op < 0.7:
            target = rng.choice(list(siblings) + [b"self"]) if siblings else b"self"
            link = rng.choice([b"0", b"-1", b"1", b"999999", b'"x"'])
            lines.append(b"mount " + link + b' "' + target + b'"' +
                         rng.choice([b"", b" 1 0 0 0 1 0 0 0 1 0 0 0", b" as m"]))
        elif op < 0.8:
            lines.append(rng.choice([b"parents -1 0 0 1", b"links a b", b"geometry \"\" \"\"",
                                     b"noselfcollision 0 1", b"joint normal 0", b"driver normal 0",
                                     b"property sim \"x.xml\"", b"servoP 1 1", b"automass",
                                     b"geomscale 1e308", b"include \"self.rob\""]))
        else:
            lines = mutate_numbers(b"\n".join(lines), rng).split(b"\n")
    return b"\n".join(lines)


# -- Inventor / VRML -------------------------------------------------------------------------

_NODE_RE = re.compile(rb"([A-Z][A-Za-z0-9_]*)\s*\{")


def mutate_inventor(data: bytes, rng: random.Random, siblings=()) -> bytes:
    starts = [m for m in _NODE_RE.finditer(data[:1_000_000])]
    if not starts:
        return mutate_bytes(data, rng)
    for _ in range(rng.randint(1, 3)):
        starts = [m for m in _NODE_RE.finditer(data[:1_000_000])]
        if not starts:
            break
        m = rng.choice(starts)
        end = _block_end(data, m.end() - 1)
        block = data[m.start():end]
        op = rng.random()
        if op < 0.2:
            data = data[:end] + (b" " + block) * rng.choice([1, 3, 20]) + data[end:]
        elif op < 0.35:
            name = b"N%d" % rng.randrange(1000)
            uses = b" USE " + name
            data = data[:m.start()] + b"DEF " + name + b" " + block + uses * rng.choice([1, 2, 10]) + data[end:]
        elif op < 0.45:
            depth = rng.choice([2, 20, 300, 5000])
            data = data[:m.start()] + b"Separator { " * depth + block + b" }" * depth + data[end:]
        elif op < 0.55:
            data = data[:m.start()] + data[end:]
        elif op < 0.65:
            target = rng.choice(list(siblings) + [b"self"]) if siblings else b"self"
            data = data[:end] + b' File { name "' + target + b'" }' + data[end:]
        elif op < 0.8:
            data = data[:m.start()] + mutate_numbers(block, rng, rng.randint(1, 4)) + data[end:]
        else:
            data = mutate_bytes(data, rng)
    return data


def _block_end(data: bytes, open_at: int) -> int:
    depth = 0
    for i in range(open_at, min(len(data), open_at + 2_000_000)):
        c = data[i]
        if c == 0x7B:
            depth += 1
        elif c == 0x7D:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(data)


# -- dispatch ----------------------------------------------------------------------------------

XML_FORMATS = {"urdf", "klampt-world", "klampt-multipath", "klampt-grasp", "collada", "openrave",
               "graspit", "collada-robot", "mjcf"}
YAML_FORMATS = {"choreonoid-body", "choreonoid-seq", "choreonoid-pseq", "choreonoid-seq-v4"}
BRACE_FORMATS = {"inventor", "vrml"}


def mutate(fmt: str, data: bytes, rng: random.Random, siblings=()) -> bytes:
    """A mutation of ``data``, a file of format ``fmt`` (a registry name)."""
    try:
        return _mutate(fmt, data, rng, siblings)
    except (RecursionError, ValueError, TypeError, KeyError, IndexError):
        return mutate_bytes(data, rng)        # a mutator's own limits: still an input


def _mutate(fmt: str, data: bytes, rng: random.Random, siblings=()) -> bytes:
    r = rng.random()
    if r < 0.25:
        return mutate_bytes(data, rng)
    if r < 0.35:
        return mutate_numbers(data, rng)
    is_xml = fmt in XML_FORMATS or fmt.startswith(("openrave", "graspit", "collada")) \
        or data.lstrip()[:1] == b"<"
    if is_xml and not data[:2] == b"PK":
        return mutate_xml(data, rng)
    if fmt in YAML_FORMATS:
        return mutate_yaml(data, rng)
    if fmt == "klampt-rob":
        return mutate_rob(data, rng, siblings)
    if fmt in BRACE_FORMATS:
        return mutate_inventor(data, rng, siblings)
    return mutate_lines(data, rng) if rng.random() < 0.5 else mutate_bytes(data, rng)


# -- seeds -----------------------------------------------------------------------------------

HANDWRITTEN = {
    "grasp.xml": '<Grasp object="2" robot="1" fixed="3 0.5  7 -1.25  ">\n'
                 '  <IKGoal data="12 -1&#x0A;F 0 0 0   1 2 3&#x0A;F 0 0 0.25&#x0A;" />\n'
                 '  <contact link="12" x="0.1 0.2 0.3" n="0 0 1" kFriction="0.8" force="1 2 3" />\n'
                 '</Grasp>\n',
    "a.hold": "begin hold\nlink = 56\ncontacts = 0.07 -0.02 -0.005\t\t0 0 1\t\t0  \\\n"
              "           0.06 -0.02 -0.005\t\t0 0 1\t\t0.5\nposition = -0.05 0.002 -0.06  \\\n"
              "           -0.01 0.03 0.03\nrotation = -0.0006 0.02 0.13\nend\n",
    "a.ikgoal": "12 -1\nF 0 0 0   1 2 3\nN\n",
    "k.group": "2\nPrimitive\nSphere 0 0 0  1TriangleMesh\n3\n0 0 0\n1 0 0\n0 1 0\n1\n0 1 2\n\n",
    "p.geom": "Primitive\nSphere 0 0 0 0.5\n",
    "a.stance": "begin stance\nbegin hold\nlink = 5\ncontacts = 0 0 0 0 0 1 0.5\nposition = 0 0 0 0 0 0\nend\nend\n",
    "a.configs": "3\t0 0.1 0.2\n3\t0.3 0.4 0.5\n",
    "a.config": "3\t0 0.1 0.2\n",
    "a.path": "0\t3\t0 0.1 0.2\n1\t3\t0.3 0.4 0.5\n",
    "a.tri": "3\n0 0 0\n1 0 0\n0 1 0\n1\n0 1 2\n",
    "a.pseq": "type: PoseSeq\nname: p\ntargetBody: arm\nrefs:\n  - time: 0\n    refer:\n"
              "      type: Pose\n      name: \"\"\n      joints: [ 0, 1 ]\n      q: [ 0.1, 0.2 ]\n"
              "  - time: 1.5\n    refer:\n      type: Pose\n      name: b\n      joints: [ 1 ]\n"
              "      q: [ -0.3 ]\n      ikLinks:\n        - name: l\n          index: 1\n"
              "          translation: [ 0, 0, 0.1 ]\n          rotation: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n",
    "a.milestones": "2\t1 2 \t2 0.5 -0.5\n2 3 4 2 0 0\n",
    "mp.xml": '<?xml version="1.0"?>\n<multipath program="test" resolution="0.01">\n'
              '  <section name="first">\n'
              '    <ikgoal>41 -1&#x0A;F 0.184 0 0   0.5 -0.25 0.125&#x0A;F 0 0 1.5&#x0A;</ikgoal>\n'
              '    <milestone time="0" config="2&#x09;0 1 " velocity="2 0 0"/>\n'
              '    <milestone time="0.5" config="2\t0.5 1" velocity="2 1 -1"/>\n  </section>\n'
              '  <section>\n    <milestone time="0.5" config="2 0.5 1" velocity="2 1 -1"/>\n'
              '    <milestone time="2" config="2 2 2" velocity="2 0 0"/>\n  </section>\n</multipath>\n',
    "a.iv": "#Inventor V2.1 ascii\n\nSeparator {\n  Material { diffuseColor 0.8 0.2 0.2 }\n"
            "  DEF T Transform { translation 0 0 1 }\n  Cube { width 1 height 2 depth 3 }\n"
            "  Separator { USE T Sphere { radius 0.5 } }\n  Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] }\n"
            "  IndexedFaceSet { coordIndex [ 0, 1, 2, -1 ] }\n  Cylinder { radius 0.2 height 1 }\n}\n",
    "a.json": '{"type": "Trajectory", "times": [0, 1], "milestones": [[0, 0.5], [1, 1.5]]}\n',
}


def build_seeds(out_dir: str, samples_dir: str) -> list:
    """Write seed files for every readable format into ``out_dir`` (a copy of the samples,
    plus files converted by roboio's writers, trimesh exports and hand-written texts).
    Returns the list of files."""
    import warnings
    import roboio
    warnings.simplefilter("ignore")
    shutil.copytree(samples_dir, out_dir, dirs_exist_ok=True)
    for root, dirs, files in os.walk(out_dir):
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    for name, text in HANDWRITTEN.items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
    conv = os.path.join(out_dir, "converted")
    os.makedirs(conv, exist_ok=True)
    jobs = [("planar_arm.rob", "arm.urdf", None), ("planar_arm.rob", "arm.body", None),
            ("planar_arm.rob", "arm2.rob", None), ("world.xml", "world2.xml", None),
            ("meshes/crate.off", "crate.stl", None), ("meshes/crate.off", "crate.ply", None),
            ("meshes/crate.off", "crate.obj", "wavefront-obj"), ("meshes/crate.off", "crate.pcd", None),
            ("meshes/crate.off", "crate.tri", None), ("choreonoid/arm_wave.seq", "wave.seq", None),
            ("choreonoid/arm_timed.seq", "timed.seq", None),
            ("planar_arm.rob", "graspit/arm.xml", "graspit"), ("crate.obj", "graspit/crate.xml", "graspit"),
            ("world.xml", "graspit/world.xml", "graspit"),
            ("planar_arm.rob", "openrave/arm.robot.xml", "openrave"),
            ("world.xml", "openrave/world.env.xml", "openrave"),
            ("planar_arm.rob", "collada/arm.dae", "collada-robot")]
    for src, dst, fmt in jobs:
        os.makedirs(os.path.dirname(os.path.join(conv, dst)), exist_ok=True)
        try:
            roboio.save(roboio.load(os.path.join(out_dir, src)), os.path.join(conv, dst), fmt)
        except Exception:      # noqa: BLE001 - a seed less is not fatal
            pass
    try:
        import trimesh
        m = trimesh.creation.box((1, 2, 3))
        for ext in ("glb", "gltf", "dae", "ply"):
            data = m.export(file_type=ext)
            if isinstance(data, dict):          # gltf: file name -> bytes
                for k, v in data.items():
                    with open(os.path.join(conv, "box.gltf" if k == "model.gltf" else k), "wb") as f:
                        f.write(v)
                continue
            with open(os.path.join(conv, f"box_{ext}.{ext}"), "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())
    except Exception:          # noqa: BLE001
        pass
    out = []
    for root, dirs, files in os.walk(out_dir):
        out += [os.path.join(root, f) for f in files]
    return sorted(out)
