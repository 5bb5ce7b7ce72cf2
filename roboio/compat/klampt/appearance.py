"""Klamp't's ``Appearance``: colours and drawing flags of a world element or of a
standalone appearance, as a view on a :class:`roboio.model.Appearance` (editing the view
edits the model).

Colours are kept in the model exactly as given and returned rounded to single precision,
as Klamp't (which stores them as 32-bit floats) returns them. Where the model leaves a
colour unset, the getters return Klamp't's default for that kind of element.
"""
from __future__ import annotations

import copy

from ...model import Appearance as ModelAppearance
from ._common import float32, floats, opengl_methods, unsupported

__all__ = ["Appearance"]

GREY = (0.5, 0.5, 0.5, 1.0)
WHITE = (1.0, 1.0, 1.0, 1.0)
BLACK = (0.0, 0.0, 0.0, 1.0)

# Klamp't's look of a freshly loaded element (0.10.1): face colour, specular colour,
# shininess. Vertex and edge colours default to white, emissive to black.
DEFAULTS = {
    "standalone": (GREY, (0.1, 0.1, 0.1, 1.0), 0.0),
    "link": (GREY, (0.2, 0.2, 0.2, 1.0), 20.0),
    "rigid_object": ((0.4, 0.2, 0.8, 1.0), (0.1, 0.1, 0.1, 1.0), 20.0),
    "terrain": ((0.8, 0.6, 0.2, 1.0), (0.1, 0.1, 0.1, 1.0), 0.0),
}


class _Holder:
    """Owner of a standalone appearance."""

    def __init__(self, appearance=None):
        self.appearance = appearance if appearance is not None else ModelAppearance()


class Appearance:
    """View on the appearance of a world element (or a standalone one: ``Appearance()``).

    Feature constants as Klamp't's: ``ALL``, ``VERTICES``, ``EDGES``, ``FACES``,
    ``EMISSIVE``, ``SPECULAR``.
    """

    ALL, VERTICES, EDGES, FACES, EMISSIVE, SPECULAR = range(6)
    _FIELDS = {VERTICES: "vertex_color", EDGES: "edge_color", FACES: "color",
               EMISSIVE: "emissive_color", SPECULAR: "specular_color"}
    _DRAW_FIELDS = {VERTICES: "draw_vertices", EDGES: "draw_edges", FACES: "draw_faces"}

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], Appearance):
            self._owner = _Holder(copy.deepcopy(args[0]._model))
            self._kind = args[0]._kind
        elif not args:
            self._owner = _Holder()
            self._kind = "standalone"
        else:
            raise TypeError("Appearance() takes no argument or another Appearance")

    @classmethod
    def _view(cls, owner, kind: str) -> "Appearance":
        """A view on ``owner.appearance`` (a Link, RigidObject or Terrain)."""
        a = cls.__new__(cls)
        a._owner = owner
        a._kind = kind
        if owner.appearance is None:
            owner.appearance = ModelAppearance()
        return a

    @property
    def _model(self) -> ModelAppearance:
        return self._owner.appearance

    def isStandalone(self) -> bool:
        return isinstance(self._owner, _Holder)

    def clone(self) -> "Appearance":
        """A standalone copy."""
        return Appearance(self)

    def set(self, other: "Appearance"):
        """Copy ``other``'s appearance into this one."""
        self._owner.appearance = copy.deepcopy(other._model)

    def free(self):
        """Release a standalone appearance's data (it becomes the default appearance)."""
        if self.isStandalone():
            self._owner.appearance = ModelAppearance()

    def refresh(self, deep: bool = True):
        """No effect: roboio keeps no display buffers to rebuild."""

    # -- colours ------------------------------------------------------------------------
    def _default(self, feature: int) -> tuple:
        face, specular, _ = DEFAULTS[self._kind]
        return {self.FACES: face, self.VERTICES: WHITE, self.EDGES: WHITE,
                self.EMISSIVE: BLACK, self.SPECULAR: specular}[feature]

    def setColor(self, *args):
        """``setColor(r, g, b, a=1)`` sets the face, vertex and edge colour;
        ``setColor(feature, r, g, b, a)`` the colour of one feature (``ALL``: all three)."""
        if len(args) in (3, 4):
            features, rgba = (self.FACES, self.VERTICES, self.EDGES), args
        elif len(args) == 5:
            feature = int(args[0])
            if feature == self.ALL:
                features = (self.FACES, self.VERTICES, self.EDGES)
            elif feature in self._FIELDS:
                features = (feature,)
            else:
                raise ValueError(f"invalid feature {feature}")
            rgba = args[1:]
        else:
            raise TypeError("setColor(r, g, b, a=1) or setColor(feature, r, g, b, a)")
        rgba = tuple(floats(rgba)) + ((1.0,) if len(rgba) == 3 else ())
        for f in features:
            setattr(self._model, self._FIELDS[f], rgba)

    def getColor(self, *args) -> list:
        """The face colour, or with one argument the colour of a feature (RGBA list)."""
        feature = self.FACES if not args or int(args[0]) == self.ALL else int(args[0])
        if feature not in self._FIELDS:
            raise ValueError(f"invalid feature {feature}")
        c = getattr(self._model, self._FIELDS[feature])
        if c is None:
            c = self._default(feature)
        c = tuple(c) + (1.0,) * (4 - len(c))
        return [float32(v) for v in c]

    # -- drawing flags, sizes, shininess --------------------------------------------------
    def setDraw(self, *args):
        """``setDraw(draw)`` shows/hides the element; ``setDraw(feature, draw)`` a feature."""
        if len(args) == 1:
            self._model.extras["draw"] = bool(args[0])
        elif len(args) == 2:
            feature, draw = int(args[0]), bool(args[1])
            names = (self._DRAW_FIELDS.values() if feature == self.ALL
                     else [self._DRAW_FIELDS[feature]])
            for name in names:
                setattr(self._model, name, draw)
        else:
            raise TypeError("setDraw(draw) or setDraw(feature, draw)")

    def getDraw(self, *args) -> bool:
        standalone = self._kind == "standalone"
        if not args:
            return bool(self._model.extras.get("draw", not standalone))
        feature = int(args[0])
        if feature == self.ALL:
            feature = self.FACES
        value = getattr(self._model, self._DRAW_FIELDS[feature])
        if value is None:
            return feature == self.FACES and not standalone
        return bool(value)

    def setShininess(self, shininess: float, strength: float = None):
        self._model.shininess = float(shininess)
        if strength is not None:
            s = float(strength)
            self._model.specular_color = (s, s, s, 1.0)

    def getShininess(self) -> float:
        s = self._model.shininess
        return float32(DEFAULTS[self._kind][2] if s is None else s)

    def setPointSize(self, size: float):
        self._model.vertex_size = float(size)

    def setSilhouette(self, radius: float, r: float = 0, g: float = 0, b: float = 0, a: float = 1):
        self._model.silhouette = (float(radius), float(r), float(g), float(b), float(a))

    def __repr__(self):
        return f"<Appearance {self._kind} color={self.getColor()}>"


opengl_methods(Appearance, ["drawGL", "drawWorldGL"])
unsupported(Appearance, [
    "setElementColor", "getElementColor", "setColors", "getColors", "setTintColor",
    "getTintColor", "getTintStrength", "setCreaseAngle", "setTexture1D", "setTexture1D_b",
    "setTexture1D_i", "setTexture1D_channels", "setTexture2D", "setTexture2D_b",
    "setTexture2D_i", "setTexture2D_channels", "getTexture1D_format", "getTexture2D_format",
    "getTexture1D_channels", "getTexture2D_channels", "setTexcoords", "setTexcoords1D",
    "setTexcoords2D", "getTexcoords1D", "getTexcoords2D", "setTexgen", "getTexgenMatrix",
    "isTexgenWorld", "setTexWrap"],
    "per-element colours, tints and textures are rendering state that roboio does not model")
