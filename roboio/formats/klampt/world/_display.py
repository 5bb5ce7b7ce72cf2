"""``<display>`` / ``<appearance>`` attributes of Klamp't worlds (spec §5.6) <-> Appearance.

Reading (attributes applied in this order):

=================  ==========================================================================
``color``          rgb[a] (a default 1) -> ``color`` and ``vertex_color`` (no draw flags)
``faceColor``      rgb[a] -> ``color``; a = 0 hides faces (``draw_faces = False``), otherwise
                   faces are drawn (Klamp't's default: ``draw_faces`` True if it was False)
``vertexColor``    rgb[a] -> ``vertex_color``; ``draw_vertices = (a != 0)``
``edgeColor``      rgb[a] -> ``edge_color``; ``draw_edges = (a != 0)``
``emissiveColor``  rgb[a] -> ``emissive_color``;  ``specularColor`` -> ``specular_color``
``shininess``      -> ``shininess``
``vertexSize``     (or ``pointSize``) pixels -> ``vertex_size``; ``draw_vertices = True``
``edgeSize``       -> ``edge_size``; ``draw_edges = True``
``silhouette``     ``width [r g b [a]]`` -> ``silhouette = (width, r, g, b, a)`` (black, a 1)
``texture``        procedural name (noise, checker, gradient, colorgradient) kept as is, else
                   an image file: Klamp't prepends the world file's directory, and so does
                   roboio (``texture`` holds that path)
``texture_projection``  xy, z or conformal (anything else: a warning, ``xy``)
=================  ==========================================================================

Other attributes are ignored by Klamp't; roboio warns and keeps them in
``appearance.extras["klampt_display"]`` so that a world written back still has them.

Writing chooses attributes that read back as the same appearance; whatever cannot be
expressed is reported as lost.
"""
from __future__ import annotations

import os

from ....context import LoadContext
from ....model import Appearance
from ...fileio import fmt_float, fmt_floats
from ...xmlutil import local_name, where
from . import _attrs as A
from .._geometry_refs import relative_reference

__all__ = ["apply_display", "display_attrs", "lost_fields", "read_back", "Quiet",
           "PROCEDURAL_TEXTURES", "DISPLAY_ATTRS"]

PROCEDURAL_TEXTURES = ("noise", "checker", "gradient", "colorgradient")
_PROJECTIONS = ("xy", "z", "conformal")
DISPLAY_ATTRS = ("color", "faceColor", "vertexColor", "edgeColor", "emissiveColor",
                 "specularColor", "shininess", "vertexSize", "pointSize", "edgeSize",
                 "silhouette", "texture", "texture_projection")
EXTRAS_KEY = "klampt_display"


def _rgba(ctx, el, name):
    vals = A.numbers(ctx, el, name)
    if vals is None:
        return None
    if len(vals) < 3:
        raise ctx.error(f"<{local_name(el)} {name}>: expected r g b [a], got {len(vals)} number(s)", where(el))
    if len(vals) > 4:
        ctx.warn(f"<{local_name(el)} {name}>: {len(vals) - 4} extra number(s) ignored", where(el), kind="ignored")
    return tuple(vals[:4]) if len(vals) >= 4 else tuple(vals) + (1.0,)


def apply_display(ctx, el, app: Appearance, world_path: str, skip=()) -> None:
    """Apply the display attributes of element ``el`` to ``app`` (see module docstring).
    ``skip``: attribute names handled by the caller (``link``, ``background``)."""
    line = where(el)
    c = _rgba(ctx, el, "color")
    if c is not None:
        app.color = c
        app.vertex_color = c
    c = _rgba(ctx, el, "faceColor")
    if c is not None:
        app.color = c
        if c[3] == 0:
            app.draw_faces = False
        elif app.draw_faces is False:
            app.draw_faces = True
    for name, field, flag in (("vertexColor", "vertex_color", "draw_vertices"),
                              ("edgeColor", "edge_color", "draw_edges")):
        c = _rgba(ctx, el, name)
        if c is not None:
            setattr(app, field, c)
            setattr(app, flag, c[3] != 0)
    for name, field in (("emissiveColor", "emissive_color"), ("specularColor", "specular_color")):
        c = _rgba(ctx, el, name)
        if c is not None:
            setattr(app, field, c)
    v = A.double(ctx, el, "shininess")
    if v is not None:
        app.shininess = v
    v = A.double(ctx, el, "vertexSize")
    if v is None:
        v = A.double(ctx, el, "pointSize")
    if v is not None:
        app.vertex_size = v
        app.draw_vertices = True
    v = A.double(ctx, el, "edgeSize")
    if v is not None:
        app.edge_size = v
        app.draw_edges = True
    s = A.numbers(ctx, el, "silhouette")
    if s is not None:
        if not s:
            raise ctx.error(f"<{local_name(el)} silhouette>: expected width [r g b [a]]", line)
        rgba = list(s[1:5]) + [0.0, 0.0, 0.0, 1.0][len(s[1:5]):]
        app.silhouette = (s[0], *rgba)
    tex = el.get("texture")
    if tex is not None:
        if tex in PROCEDURAL_TEXTURES:
            app.texture = tex
        else:
            if os.path.isabs(tex):
                ctx.warn(f"<{local_name(el)} texture>: absolute file name; Klamp't prepends the "
                         "world file's directory to it", line, kind="quirk")
            app.texture = os.path.normpath(os.path.join(os.path.dirname(world_path), tex))
        proj = el.get("texture_projection")
        if proj is not None:
            if proj not in _PROJECTIONS:
                ctx.warn(f"<{local_name(el)} texture_projection=\"{proj}\">: unknown, Klamp't uses xy", line, kind="ignored")
                proj = "xy"
            app.texture_projection = proj
    elif el.get("texture_projection") is not None:
        ctx.warn(f"<{local_name(el)} texture_projection>: ignored without texture", line, kind="ignored")
    unknown = {k: v for k, v in el.attrib.items() if k not in DISPLAY_ATTRS and k not in skip}
    if unknown:
        ctx.warn(f"<{local_name(el)}>: attribute(s) {', '.join(unknown)} ignored by Klamp't", line, kind="ignored")
        app.extras.setdefault(EXTRAS_KEY, {}).update(unknown)


# Appearance fields written as they are, in writing order.
_PLAIN_FIELDS = (("edge_color", "edgeColor"), ("emissive_color", "emissiveColor"),
                 ("specular_color", "specularColor"), ("shininess", "shininess"),
                 ("vertex_size", "vertexSize"), ("edge_size", "edgeSize"),
                 ("silhouette", "silhouette"))


def _c(rgba) -> str:
    return fmt_floats(rgba)


def display_attrs(app: Appearance, world_out: str) -> dict:
    """Attributes (name -> text, in writing order) for ``app`` in a world written at
    ``world_out``."""
    out = {}
    if app.color is not None:
        if (app.vertex_color is not None and tuple(app.vertex_color) == tuple(app.color)
                and app.draw_faces is None and app.draw_vertices is None):
            out["color"] = _c(app.color)
        else:
            out["faceColor"] = _c(app.color)
    elif app.draw_faces is False:
        out["faceColor"] = "0 0 0 0"
    if app.vertex_color is not None and "color" not in out:
        out["vertexColor"] = _c(app.vertex_color)
    for field, attr in _PLAIN_FIELDS:
        v = getattr(app, field)
        if v is not None:
            out[attr] = fmt_floats(v) if isinstance(v, (tuple, list)) else fmt_float(v)
    if app.texture is not None:
        out["texture"] = (app.texture if app.texture in PROCEDURAL_TEXTURES
                          else relative_reference(app.texture, world_out))
        if app.texture_projection is not None:
            out["texture_projection"] = app.texture_projection
    for k, v in app.extras.get(EXTRAS_KEY, {}).items():
        out.setdefault(k, v)
    return out


class Quiet(LoadContext):
    """A load context that drops warnings (for applying an already checked element again)."""

    def warn(self, *args, **kw):
        pass


def read_back(attrs: dict, path: str) -> Appearance:
    """The appearance the display attributes ``attrs`` give when read (no warnings)."""
    from lxml import etree
    app = Appearance()
    apply_display(Quiet(path), etree.Element("display", attrs), app, path, skip=("link",))
    return app


def lost_fields(app: Appearance, readback: Appearance) -> list:
    """Fields set in ``app`` that ``readback`` (the written attributes read again) does not
    reproduce; fields left unset in ``app`` (viewer defaults) are not compared."""
    out = []
    for name in ("color", "vertex_color", "edge_color", "emissive_color", "specular_color",
                 "shininess", "vertex_size", "edge_size", "silhouette", "texture_projection",
                 "draw_faces", "draw_edges", "draw_vertices"):
        v = getattr(app, name)
        if v is None:
            continue
        r = getattr(readback, name)
        if (tuple(v) if isinstance(v, (tuple, list)) else v) != (tuple(r) if isinstance(r, (tuple, list)) else r):
            out.append(name)
    if app.texture is not None and readback.texture is None:
        out.append("texture")
    extra = {k: v for k, v in app.extras.items() if k != EXTRAS_KEY}
    out += [f"extras[{k!r}]" for k in extra]
    return out
