"""Node types the Inventor / VRML reader knows, with the types of their fields.

Two dialect tables: :data:`INVENTOR` (Open Inventor 1.0-2.1 and VRML 1.0, which share their
node set) and :data:`VRML2` (VRML97). Each :class:`NodeSpec` gives the node's fields with
their Inventor field types and says whether the node

* ``group`` -- holds child nodes (Inventor: directly in its body; VRML 2.0 uses MFNode
  fields instead), or
* ``skip`` -- has no effect on geometry, so the ASCII parser steps over its body without
  interpreting it (the binary parser still needs the field types to read past it), or
* ``warn`` -- would produce geometry this reader does not build (reported, then skipped).

Field types follow Coin's names (``SFVec3f``, ``MFInt32`` ...). The tables are data only;
what nodes do is in :mod:`._scene`.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NodeSpec", "FIELD_TYPES", "INVENTOR", "VRML2", "lookup"]

# field type -> (multiple values?, scalar kind, numbers per value)
FIELD_TYPES = {
    "SFFloat": (False, "float", 1), "SFDouble": (False, "float", 1), "SFTime": (False, "float", 1),
    "SFInt32": (False, "int", 1), "SFUInt32": (False, "int", 1), "SFShort": (False, "int", 1),
    "SFUShort": (False, "int", 1), "SFLong": (False, "int", 1), "SFULong": (False, "int", 1),
    "SFBool": (False, "bool", 1),
    "SFVec2f": (False, "float", 2), "SFVec3f": (False, "float", 3), "SFVec3d": (False, "float", 3),
    "SFColor": (False, "float", 3), "SFRotation": (False, "float", 4), "SFVec4f": (False, "float", 4),
    "SFPlane": (False, "float", 4), "SFMatrix": (False, "float", 16),
    "SFEnum": (False, "enum", 1), "SFBitMask": (False, "bitmask", 1),
    "SFName": (False, "string", 1), "SFString": (False, "string", 1),
    "SFNode": (False, "node", 1), "SFImage": (False, "image", 1), "SFTrigger": (False, "none", 0),
    "MFFloat": (True, "float", 1), "MFDouble": (True, "float", 1), "MFTime": (True, "float", 1),
    "MFInt32": (True, "int", 1), "MFUInt32": (True, "int", 1), "MFLong": (True, "int", 1),
    "MFULong": (True, "int", 1), "MFShort": (True, "int", 1), "MFUShort": (True, "int", 1),
    "MFBool": (True, "bool", 1),
    "MFVec2f": (True, "float", 2), "MFVec3f": (True, "float", 3), "MFVec3d": (True, "float", 3),
    "MFColor": (True, "float", 3), "MFRotation": (True, "float", 4), "MFVec4f": (True, "float", 4),
    "MFPlane": (True, "float", 4), "MFMatrix": (True, "float", 16),
    "MFEnum": (True, "enum", 1), "MFBitMask": (True, "bitmask", 1),
    "MFName": (True, "string", 1), "MFString": (True, "string", 1), "MFNode": (True, "node", 1),
}


@dataclass(frozen=True)
class NodeSpec:
    name: str
    fields: dict
    group: bool = False
    skip: bool = False
    warn: str = ""


def _fields(spec: str) -> dict:
    words = spec.split()
    return {words[i]: words[i + 1] for i in range(0, len(words), 2)}


def _table(entries) -> dict:
    out = {}
    for name, fields, flags in entries:
        out[name] = NodeSpec(name, _fields(fields), group="group" in flags, skip="skip" in flags,
                             warn=flags.split("warn:", 1)[1] if "warn:" in flags else "")
    return out


_SEPARATOR = "renderCaching SFEnum boundingBoxCaching SFEnum renderCulling SFEnum pickCulling SFEnum"
_SHAPE_INDEXED = ("coordIndex MFInt32 materialIndex MFInt32 normalIndex MFInt32 "
                  "textureCoordIndex MFInt32 vertexProperty SFNode")
_SHAPE_SEQUENTIAL = "startIndex SFInt32 numVertices MFInt32 vertexProperty SFNode"
_LIGHT = "on SFBool intensity SFFloat color SFColor"
_CAMERA = ("viewportMapping SFEnum position SFVec3f orientation SFRotation aspectRatio SFFloat "
           "nearDistance SFFloat farDistance SFFloat focalDistance SFFloat")

INVENTOR = _table([
    # grouping
    ("Separator", _SEPARATOR, "group"),
    ("Annotation", _SEPARATOR, "group"),
    ("Selection", _SEPARATOR + " policy SFEnum", "group"),
    ("TransformSeparator", "", "group"),
    ("Group", "", "group"),
    ("Switch", "whichChild SFInt32", "group"),
    ("LOD", "range MFFloat center SFVec3f", "group"),
    ("LevelOfDetail", "screenArea MFFloat", "group"),
    ("WWWAnchor", "name SFString description SFString map SFEnum", "group"),
    ("File", "name SFString", ""),
    ("WWWInline", "name SFString bboxSize SFVec3f bboxCenter SFVec3f", ""),
    # transformations
    ("Transform", "translation SFVec3f rotation SFRotation scaleFactor SFVec3f "
                  "scaleOrientation SFRotation center SFVec3f", ""),
    ("Translation", "translation SFVec3f", ""),
    ("Rotation", "rotation SFRotation", ""),
    ("RotationXYZ", "axis SFEnum angle SFFloat", ""),
    ("Scale", "scaleFactor SFVec3f", ""),
    ("MatrixTransform", "matrix SFMatrix", ""),
    ("ResetTransform", "whatToReset SFBitMask", ""),
    ("Units", "units SFEnum", ""),
    # coordinates and appearance
    ("Coordinate3", "point MFVec3f", ""),
    ("Coordinate4", "point MFVec4f", ""),
    ("VertexProperty", "vertex MFVec3f normal MFVec3f texCoord MFVec2f texCoord3 MFVec3f "
                       "orderedRGBA MFUInt32 materialBinding SFEnum normalBinding SFEnum", ""),
    ("Material", "ambientColor MFColor diffuseColor MFColor specularColor MFColor "
                 "emissiveColor MFColor shininess MFFloat transparency MFFloat", ""),
    ("BaseColor", "rgb MFColor", ""),
    ("PackedColor", "orderedRGBA MFUInt32 rgba MFUInt32", ""),
    ("MaterialBinding", "value SFEnum", ""),
    ("ShapeHints", "vertexOrdering SFEnum shapeType SFEnum faceType SFEnum creaseAngle SFFloat "
                   "hints SFBitMask", ""),
    # shapes
    ("Cube", "width SFFloat height SFFloat depth SFFloat", ""),
    ("Sphere", "radius SFFloat", ""),
    ("Cylinder", "parts SFBitMask radius SFFloat height SFFloat", ""),
    ("Cone", "parts SFBitMask bottomRadius SFFloat height SFFloat", ""),
    ("IndexedFaceSet", _SHAPE_INDEXED, ""),
    ("IndexedTriangleStripSet", _SHAPE_INDEXED, ""),
    ("FaceSet", _SHAPE_SEQUENTIAL, ""),
    ("TriangleStripSet", _SHAPE_SEQUENTIAL, ""),
    ("QuadMesh", "verticesPerColumn SFInt32 verticesPerRow SFInt32 startIndex SFInt32 "
                 "vertexProperty SFNode", ""),
    # no geometric effect
    ("Normal", "vector MFVec3f", "skip"),
    ("NormalBinding", "value SFEnum", "skip"),
    ("Complexity", "type SFEnum value SFFloat textureQuality SFFloat", "skip"),
    ("Texture2", "filename SFString image SFImage wrapS SFEnum wrapT SFEnum model SFEnum "
                 "blendColor SFColor", "skip"),
    ("Texture2Transform", "translation SFVec2f rotation SFFloat scaleFactor SFVec2f "
                          "center SFVec2f", "skip"),
    ("TextureCoordinate2", "point MFVec2f", "skip"),
    ("TextureCoordinateBinding", "value SFEnum", "skip"),
    ("TextureCoordinateDefault", "", "skip"),
    ("Info", "string SFString", "skip"),
    ("Label", "label SFString", "skip"),
    ("LightModel", "model SFEnum", "skip"),
    ("DrawStyle", "style SFEnum pointSize SFFloat lineWidth SFFloat linePattern SFUShort", "skip"),
    ("PickStyle", "style SFEnum", "skip"),
    ("EventCallback", "", "skip"),
    ("Callback", "", "skip"),
    ("Font", "name SFName size SFFloat", "skip"),
    ("FontStyle", "size SFFloat family SFEnum style SFBitMask", "skip"),
    ("Environment", "ambientIntensity SFFloat ambientColor SFColor attenuation SFVec3f "
                    "fogType SFEnum fogColor SFColor fogVisibility SFFloat", "skip"),
    ("PerspectiveCamera", _CAMERA + " heightAngle SFFloat", "skip"),
    ("OrthographicCamera", _CAMERA + " height SFFloat", "skip"),
    ("DirectionalLight", _LIGHT + " direction SFVec3f", "skip"),
    ("PointLight", _LIGHT + " location SFVec3f", "skip"),
    ("SpotLight", _LIGHT + " location SFVec3f direction SFVec3f dropOffRate SFFloat "
                           "cutOffAngle SFFloat", "skip"),
    ("PointSet", "startIndex SFInt32 numPoints SFInt32 vertexProperty SFNode", "skip"),
    ("LineSet", _SHAPE_SEQUENTIAL, "skip"),
    ("IndexedLineSet", _SHAPE_INDEXED, "skip"),
    ("Text2", "string MFString spacing SFFloat justification SFEnum", "skip"),
    ("Text3", "string MFString spacing SFFloat justification SFEnum parts SFBitMask",
     "skip warn:3D text is not tessellated"),
    ("AsciiText", "string MFString spacing SFFloat justification SFEnum width MFFloat",
     "skip warn:3D text is not tessellated"),
])

VRML2 = _table([
    ("Transform", "center SFVec3f children MFNode rotation SFRotation scale SFVec3f "
                  "scaleOrientation SFRotation translation SFVec3f bboxCenter SFVec3f "
                  "bboxSize SFVec3f", "group"),
    ("Group", "children MFNode bboxCenter SFVec3f bboxSize SFVec3f", "group"),
    ("Collision", "children MFNode collide SFBool proxy SFNode bboxCenter SFVec3f "
                  "bboxSize SFVec3f", "group"),
    ("Anchor", "children MFNode description SFString parameter MFString url MFString "
               "bboxCenter SFVec3f bboxSize SFVec3f", "group"),
    ("Billboard", "axisOfRotation SFVec3f children MFNode bboxCenter SFVec3f bboxSize SFVec3f",
     "group"),
    ("Switch", "choice MFNode whichChoice SFInt32", "group"),
    ("LOD", "level MFNode center SFVec3f range MFFloat", "group"),
    ("Inline", "url MFString bboxCenter SFVec3f bboxSize SFVec3f", ""),
    ("Shape", "appearance SFNode geometry SFNode", ""),
    ("Appearance", "material SFNode texture SFNode textureTransform SFNode", ""),
    ("Material", "ambientIntensity SFFloat diffuseColor SFColor emissiveColor SFColor "
                 "shininess SFFloat specularColor SFColor transparency SFFloat", ""),
    ("IndexedFaceSet", "color SFNode coord SFNode normal SFNode texCoord SFNode ccw SFBool "
                       "colorIndex MFInt32 colorPerVertex SFBool convex SFBool coordIndex MFInt32 "
                       "creaseAngle SFFloat normalIndex MFInt32 normalPerVertex SFBool "
                       "solid SFBool texCoordIndex MFInt32", ""),
    ("ElevationGrid", "color SFNode normal SFNode texCoord SFNode height MFFloat ccw SFBool "
                      "colorPerVertex SFBool creaseAngle SFFloat normalPerVertex SFBool "
                      "solid SFBool xDimension SFInt32 xSpacing SFFloat zDimension SFInt32 "
                      "zSpacing SFFloat", ""),
    ("Coordinate", "point MFVec3f", ""),
    ("Color", "color MFColor", ""),
    ("Box", "size SFVec3f", ""),
    ("Sphere", "radius SFFloat", ""),
    ("Cylinder", "bottom SFBool height SFFloat radius SFFloat side SFBool top SFBool", ""),
    ("Cone", "bottomRadius SFFloat height SFFloat side SFBool bottom SFBool", ""),
    # no geometric effect (bodies skipped unread)
    *[(n, "", "skip") for n in (
        "Normal", "TextureCoordinate", "ImageTexture", "PixelTexture", "MovieTexture",
        "TextureTransform", "Viewpoint", "NavigationInfo", "Background", "WorldInfo", "Fog",
        "DirectionalLight", "PointLight", "SpotLight", "Sound", "AudioClip", "FontStyle",
        "TimeSensor", "TouchSensor", "PlaneSensor", "SphereSensor", "CylinderSensor",
        "ProximitySensor", "VisibilitySensor", "ColorInterpolator", "CoordinateInterpolator",
        "NormalInterpolator", "OrientationInterpolator", "PositionInterpolator",
        "ScalarInterpolator")],
    # lines and points draw no surface, but are read: a Coordinate DEF-named in them may be
    # USEd by a later IndexedFaceSet (Choreonoid's DoubleArmV7 parts)
    ("IndexedLineSet", "color SFNode coord SFNode colorIndex MFInt32 colorPerVertex SFBool "
                       "coordIndex MFInt32", ""),
    ("PointSet", "color SFNode coord SFNode", ""),
    ("Script", "", "skip warn:scripts are not run"),
    ("Text", "", "skip warn:text is not tessellated"),
    ("Extrusion", "beginCap SFBool ccw SFBool convex SFBool creaseAngle SFFloat "
                  "crossSection MFVec2f endCap SFBool orientation MFRotation scale MFVec2f "
                  "solid SFBool spine MFVec3f", ""),
])


def lookup(table: dict, name: str):
    """The spec of node type ``name`` (Coin also accepts an ``So`` prefix: ``SoScale``)."""
    spec = table.get(name)
    if spec is None and name.startswith("So") and len(name) > 2:
        spec = table.get(name[2:])
    return spec
