"""Geometry of COLLADA ``<geometry>`` elements as OpenRAVE reads them (spec §10).

* Mesh vertex positions come from the mesh's own ``<vertices>`` element (its ``POSITION``
  input's ``<source>``), never through the primitives' ``VERTEX`` input URI (broken in
  katana); they are scaled by the source's unit. The accessor's ``stride``/``offset`` are
  honoured (OpenRAVE assumes 3 and 0; identical for every corpus file).
* Primitive sets are read in OpenRAVE's order: all ``<triangles>``, then ``<trifans>``,
  ``<tristrips>``, ``<polylist>``; each becomes its own geometry with the material its
  ``material=`` symbol binds. ``<polygons>`` (which OpenRAVE skips with a warning) are read
  too, holes ``<ph>`` ignored with a warning; ``<lines>``/``<linestrips>`` are ignored.
  Each set keeps the source positions its faces use, in file order, faces renumbered
  (roboio keeps the file's vertex sharing within a set; OpenRAVE copies three vertices per
  triangle, the same surface).
* ``<extra type="geometry_info"><technique profile="OpenRAVE">`` gives the geometry frame
  (its transform children) and optionally a primitive, which then replaces the mesh:
  ``box``, ``sphere``, ``cylinder`` (along y: turned onto z like OpenRAVE does),
  ``cylinderz``, ``calibration_board``, ``container``, ``cage``; ``capsule``/``plane`` are
  unsupported (warning); ``visible`` sets visibility.
* Colours: only ``phong`` effects are read (the first phong of the material's effect);
  ``ambient``/``diffuse`` RGB; alpha 4th components then ``<transparency>`` set the
  transparency (1 - value); a transparency >= 1 is reset to opaque (OpenRAVE does the same
  and warns; the 2011-2014 writers wrote alpha 0 meaning opaque).
"""
from __future__ import annotations

import math

import numpy as np

from ...xmlutil import where
from ....transforms import compose
from ._body import CGeometry
from ._dom import child, kids, ln, text

__all__ = ["extract_geometry", "material_map", "fill_color"]

_PRIMITIVE_ORDER = ("triangles", "trifans", "tristrips", "polylist", "polygons")


def material_map(doc, instance_geometry) -> dict:
    """``symbol -> <material>`` from an ``instance_geometry``'s ``bind_material``."""
    out = {}
    bm = child(instance_geometry, "bind_material")
    tc = child(bm, "technique_common") if bm is not None else None
    if tc is None:
        return out
    for im in kids(tc, "instance_material"):
        mat = doc.url_or_none(im, "target")
        if mat is not None and ln(mat) == "material":
            out[im.get("symbol")] = mat
    return out


def fill_color(doc, material, geom: CGeometry) -> None:
    """OpenRAVE's FillGeometryColor: colours and transparency from a phong effect."""
    if material is None:
        return
    ie = child(material, "instance_effect")
    if ie is None:
        return
    effect = doc.url_or_none(ie, "url")
    if effect is None:
        return
    phong = next((e for e in effect.iter() if isinstance(e.tag, str) and ln(e) == "phong"), None)
    if phong is None:
        return
    for name in ("ambient", "diffuse"):
        col = child(child(phong, name), "color")
        if col is None:
            continue
        v = doc.floats(col)
        if len(v) < 3:
            raise doc.error(f"<{name}><color>: expected 3 or 4 numbers, got {len(v)}", col)
        if name == "ambient":
            geom.ambient = tuple(v[:3])
        else:
            geom.diffuse = tuple(v[:3])
        if len(v) >= 4:
            geom.transparency = 1.0 - v[3]
    tr = child(child(phong, "transparency"), "float")
    if tr is not None:
        geom.transparency = 1.0 - doc.float1(tr)
    if geom.transparency >= 1.0:
        geom.transparency = 0.0      # OpenRAVE: "must be a mistake", made opaque


def _first_material(doc, geom_el, materials):
    mesh = child(geom_el, "mesh")
    if mesh is not None:
        for kind in _PRIMITIVE_ORDER:
            for prim in kids(mesh, kind):
                m = materials.get(prim.get("material"))
                if m is not None:
                    return m
    return None


def _vec(doc, el, n):
    return np.array(doc.floats(el, count=n), dtype=float)


def _geometry_info(doc, geom_el):
    """``(technique element, geometry frame)`` of the OpenRAVE geometry_info, or (None, I)."""
    for ex in kids(geom_el, "extra"):
        if ex.get("type") != "geometry_info":
            continue
        for tec in kids(ex, "technique"):
            if tec.get("profile") == "OpenRAVE":
                return tec, doc.transform(tec)
    return None, np.eye(4)


def _primitive(doc, tec, frame, name):
    """The OpenRAVE primitive of a geometry_info technique, or None; and the visibility."""
    visible = True
    geom = None
    for c in kids(tec):
        k = ln(c)
        if k == "box":
            he = child(c, "half_extents")
            if he is not None:
                geom = CGeometry(name, "box", frame.copy(), {"half_extents": _vec(doc, he, 3)}, line=where(c))
        elif k == "sphere":
            r = child(c, "radius")
            if r is not None:
                geom = CGeometry(name, "sphere", frame.copy(), {"radius": doc.float1(r)}, line=where(c))
        elif k in ("cylinder", "cylinderz"):
            r, h = child(c, "radius"), child(c, "height")
            if r is not None and h is not None:
                T = frame.copy()
                if k == "cylinder":
                    # OpenRAVE turns its z-axis cylinder onto y: rotation taking z to y
                    T = compose(T, np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, -1.0, 0, 0], [0, 0, 0, 1.0]]))
                geom = CGeometry(name, "cylinder", T, {"radius": doc.float1(r), "height": doc.float1(h)},
                                 line=where(c))
        elif k == "calibration_board":
            geom = _calibration_board(doc, c, frame, name) or geom
        elif k == "container":
            params = {}
            for key in ("outer_extents", "inner_extents", "bottom_cross", "bottom"):
                e = child(c, key)
                if e is not None:
                    params[key] = _vec(doc, e, 3)
            if params:
                for key in ("outer_extents", "inner_extents", "bottom_cross", "bottom"):
                    params.setdefault(key, np.zeros(3))
                geom = CGeometry(name, "container", frame.copy(), params, line=where(c))
        elif k == "cage":
            params = {"half_extents": np.zeros(3), "inner_size": np.zeros(3), "sidewalls": []}
            found = False
            he = child(c, "half_extents")
            if he is not None:
                params["half_extents"] = _vec(doc, he, 3)
                found = True
            for i, key in enumerate(("inner_size_x", "inner_size_y", "inner_size_z")):
                e = child(c, key)
                if e is not None:
                    params["inner_size"][i] = doc.float1(e)
                    found = True
            for sw in kids(c, "sidewall"):
                wall = {"transform": doc.transform(sw), "half_extents": np.zeros(3), "type": 0}
                e = child(sw, "half_extents")
                if e is not None:
                    wall["half_extents"] = _vec(doc, e, 3)
                t = child(sw, "type")
                if t is not None:
                    try:
                        wall["type"] = int(text(t).split()[0])
                    except (ValueError, IndexError):
                        raise doc.error(f"<type>{text(t)}</type>: expected an integer", t) from None
                params["sidewalls"].append(wall)
                found = True
            if found:
                geom = CGeometry(name, "cage", frame.copy(), params, line=where(c))
        elif k in ("capsule", "plane"):
            doc.warn(f"OpenRAVE geometry_info <{k}> is not supported (OpenRAVE ignores it too)", c, kind="ignored")
        elif k == "visible":
            b = child(c, "bool")
            if b is not None:
                visible = doc.boolean(b)
    return geom, visible


def _calibration_board(doc, c, frame, name):
    params_el = child(c, "parameters")
    he = child(c, "half_extents")
    if params_el is None or he is None:
        return None
    keys = ("num_dots_x", "num_dots_y", "dots_distance_x", "dots_distance_y", "dot_color",
            "pattern_name", "dot_diameter_distance_ratio", "big_dot_diameter_distance_ratio")
    els = {k: child(params_el, k) for k in keys}
    if any(v is None for v in els.values()):
        return None        # OpenRAVE needs all of them
    p = {"half_extents": _vec(doc, he, 3)}
    for k in ("num_dots_x", "num_dots_y"):
        try:
            p[k] = int(text(els[k]).split()[0])
        except (ValueError, IndexError):
            raise doc.error(f"<{k}>: expected an integer", els[k]) from None
    for k in ("dots_distance_x", "dots_distance_y", "dot_diameter_distance_ratio",
              "big_dot_diameter_distance_ratio"):
        p[k] = doc.float1(els[k])
    p["dot_color"] = tuple(doc.floats(els["dot_color"], count=4))
    p["pattern_name"] = (text(els["pattern_name"]).split() or [""])[0]
    return CGeometry(name, "calibration_board", frame.copy(), p, line=where(c))


def _positions(doc, mesh):
    """``(N, 3)`` positions of the mesh's ``<vertices>`` (unit applied), from the POSITION
    source's float_array with the accessor's stride and offset."""
    verts = child(mesh, "vertices")
    if verts is None:
        raise doc.error("<mesh> has no <vertices>", mesh)
    src = None
    for inp in kids(verts, "input"):
        if inp.get("semantic") == "POSITION":
            src = doc.url(inp, "source")
            break
    if src is None:
        raise doc.error("<vertices> has no POSITION input", verts)
    if ln(src) != "source":
        raise doc.error(f"POSITION input names a <{ln(src)}>, not a <source>", verts)
    fa = child(src, "float_array")
    if fa is None:
        raise doc.error("<source> of the positions has no <float_array>", src)
    stride, offset, count = 3, 0, None
    acc = child(child(src, "technique_common"), "accessor")
    if acc is not None:
        try:
            stride = int(acc.get("stride", "1"))
            offset = int(acc.get("offset", "0"))
            count = int(acc.get("count")) if acc.get("count") is not None else None
        except ValueError:
            raise doc.error("<accessor>: count/offset/stride must be integers", acc) from None
        if stride < 3 or offset < 0:
            raise doc.error(f"<accessor stride=\"{stride}\" offset=\"{offset}\">: positions need stride >= 3", acc)
    claimed = fa.get("count")
    if claimed is not None:
        try:
            doc.ctx.check_claim("vertices", int(claimed) // 3, where(fa), what="<float_array count>")
        except ValueError:
            raise doc.error(f"<float_array count=\"{claimed}\">: not an integer", fa) from None
    data = doc.array(fa, "positions")
    n = max(0, (len(data) - offset) // stride) if count is None else count
    if offset + (n - 1) * stride + 3 > len(data) and n > 0:
        raise doc.error(f"<accessor count=\"{n}\">: the float_array holds only {len(data)} numbers", acc)
    doc.ctx.charge("vertices", n, where(fa), what="COLLADA mesh positions")
    idx = offset + stride * np.arange(n)[:, None] + np.arange(3)[None, :]
    pts = data[idx] if n else np.zeros((0, 3))
    return pts * doc.unit(src)


def _layout(doc, prim):
    """``(index slots per vertex, offset of the VERTEX input)`` of a primitive element."""
    stride, voff = 0, None
    for inp in kids(prim, "input"):
        try:
            off = int(inp.get("offset", "0"))
        except ValueError:
            raise doc.error("<input offset>: not an integer", inp) from None
        if inp.get("semantic") == "VERTEX":
            voff = off
        stride = max(stride, off)
    if voff is None:
        raise doc.error(f"<{ln(prim)}> has no VERTEX input", prim)
    return stride + 1, voff


def _indices(doc, p_el, nverts, voff, stride):
    """The position indices of a ``<p>`` (the VERTEX slot of every vertex), checked."""
    idx = doc.int_array(p_el)[voff::stride]
    if len(idx) and (idx.min() < 0 or idx.max() >= nverts):
        bad = idx[(idx < 0) | (idx >= nverts)][0]
        raise doc.error(f"<p>: vertex index {bad} out of range (the mesh has {nverts} positions)", p_el)
    return idx


def _faces(doc, prim, kind, nverts):
    stride, voff = _layout(doc, prim)
    count = prim.get("count")
    try:
        count = int(count) if count is not None else None
    except ValueError:
        raise doc.error(f"<{kind} count=\"{count}\">: not an integer", prim) from None
    if kind == "triangles":
        p = child(prim, "p")
        if p is None or count is None or count == 0:
            return np.zeros((0, 3), np.int64)
        doc.ctx.check_claim("triangles", count, where(prim), what="<triangles count>")
        v = _indices(doc, p, nverts, voff, stride)
        n = min(count, len(v) // 3)
        if n < count:
            doc.warn(f"<triangles count=\"{count}\"> but <p> holds {len(v) // 3} complete triangles "
                     "(the rest is dropped, as OpenRAVE does)", prim, kind="invalid value")
        return v[:3 * n].reshape(-1, 3)
    if kind in ("trifans", "tristrips"):
        ps = kids(prim, "p")
        if count is not None:
            ps = ps[:count]
        out = []
        for p in ps:
            v = _indices(doc, p, nverts, voff, stride)
            if len(v) < 3:
                continue
            i = np.arange(2, len(v))
            if kind == "trifans":
                tri = np.stack([np.full(len(i), v[0]), v[i - 1], v[i]], axis=1)
            else:
                flip = (i - 2) % 2 == 1
                tri = np.stack([v[i - 2], np.where(flip, v[i], v[i - 1]), np.where(flip, v[i - 1], v[i])], axis=1)
            out.append(tri)
        return np.concatenate(out) if out else np.zeros((0, 3), np.int64)
    if kind == "polylist":
        p, vc = child(prim, "p"), child(prim, "vcount")
        if p is None or vc is None:
            return np.zeros((0, 3), np.int64)
        counts = doc.int_array(vc, "vertex counts")
        v = _indices(doc, p, nverts, voff, stride)
        return _fan_polygons(doc, prim, v, counts)
    # polygons: each <p> one polygon; <ph> (with holes) ignored
    out = []
    for ph in kids(prim, "ph"):
        doc.warn("<polygons><ph>: polygons with holes are not read", ph, kind="unsupported")
    for p in kids(prim, "p"):
        v = _indices(doc, p, nverts, voff, stride)
        out.append(_fan_polygons(doc, prim, v, np.array([len(v)])))
    return np.concatenate(out) if out else np.zeros((0, 3), np.int64)


def _fan_polygons(doc, prim, v, counts):
    if len(counts) and counts.min() < 0:
        raise doc.error("<vcount>: negative vertex count", prim)
    total = int(counts.sum()) if len(counts) else 0
    doc.ctx.check_claim("triangles", max(0, total), where(prim), what=f"<{ln(prim)}> vertex counts")
    tris = []
    k = 0
    for c in counts.tolist():
        if c > 0 and k + c <= len(v):
            poly = v[k:k + c]
            for i in range(2, c):
                tris.append((poly[0], poly[i - 1], poly[i]))
        k += c
    if k > len(v):
        doc.warn(f"<{ln(prim)}>: vertex counts need {k} indices, <p> holds {len(v)} "
                 "(incomplete polygons dropped, as OpenRAVE does)", prim, kind="invalid value")
    return np.array(tris, dtype=np.int64).reshape(-1, 3)


def compact(pts: np.ndarray, faces: np.ndarray) -> tuple:
    """``(vertices, faces)`` of one primitive set: the positions its faces use, in file
    order, with the faces renumbered (the sharing of vertices between its triangles kept).
    A mesh's primitive sets index one shared position array; each set keeping all of it
    made ``zange.zae`` (1.7 MB, 3,000 sets) hold 3.2e8 vertices."""
    if len(faces) == 0:
        return pts[:0], faces
    used = np.unique(faces)
    if len(used) == len(pts):
        return pts, faces
    return pts[used], np.searchsorted(used, faces).astype(np.int64)


def extract_geometry(doc, geom_el, materials: dict) -> list:
    """The geometries (``CGeometry``, frames relative to the visual node that instances it;
    mesh vertices in that node's frame) of one ``<geometry>`` element."""
    name = geom_el.get("name") or ""
    tec, frame = _geometry_info(doc, geom_el)
    visible = True
    if tec is not None:
        prim, visible = _primitive(doc, tec, frame, name)
        if prim is not None:
            fill_color(doc, _first_material(doc, geom_el, materials), prim)
            prim.visible = visible
            return [prim]
    mesh = child(geom_el, "mesh")
    if mesh is not None:
        out = []
        pts = None
        for kind in _PRIMITIVE_ORDER:
            for prim in kids(mesh, kind):
                if kind == "polygons":
                    doc.warn("<polygons> read by roboio; OpenRAVE skips them (\"openrave does not "
                             "support collada polygons\")", prim, kind="read differently")
                if pts is None:
                    pts = _positions(doc, mesh)
                faces = _faces(doc, prim, kind, len(pts))
                doc.ctx.charge("triangles", len(faces), where(prim), what="COLLADA mesh triangles")
                verts, faces = compact(pts, faces)
                g = CGeometry(name, "trimesh", np.eye(4), vertices=verts, faces=faces, visible=visible,
                              line=where(prim))
                fill_color(doc, materials.get(prim.get("material")), g)
                out.append(g)
        return out
    if child(geom_el, "convex_mesh") is not None:
        raise doc.error("<convex_mesh> is not supported (OpenRAVE's convex hull computation is a stub)",
                        child(geom_el, "convex_mesh"))
    return []


def scale_primitive(g: CGeometry, s: float) -> None:
    """Multiply a primitive's sizes by ``s`` (the unit at the visual node, OpenRAVE's vscale)."""
    if s == 1.0:
        return
    p = g.params
    for k in ("half_extents", "outer_extents", "inner_extents", "bottom_cross", "bottom", "inner_size"):
        if k in p:
            p[k] = np.asarray(p[k]) * s
    for k in ("radius", "height", "dots_distance_x", "dots_distance_y"):
        if k in p:
            p[k] = p[k] * s
    for wall in p.get("sidewalls", ()):
        wall["half_extents"] = np.asarray(wall["half_extents"]) * s
        wall["transform"] = wall["transform"].copy()
        wall["transform"][:3, 3] *= s


def is_identity(T, tol: float = 1e-12) -> bool:
    return bool(np.max(np.abs(np.asarray(T) - np.eye(4))) <= tol) and math.isfinite(float(np.sum(T)))
