"""Choreonoid formats: body models (``.body``, YAML ``format: ChoreonoidBody``; OpenHRP
VRML97 robot models, ``.wrl`` with ``PROTO Humanoid``/``Joint``/``Segment``; descriptions
that name their model with ``modelFile:``), standard body motions (``.seq``, format versions
1 to 4; written as version 2 or 4) and pose sequences (``.pseq``). Entry modules
:mod:`.body` and :mod:`.vrml` (sub-packages), :mod:`.model_file`, :mod:`.seq`, :mod:`.pseq`;
the YAML reading shared by the YAML formats in :mod:`._yaml`; content tests in
:mod:`._sniff`. Converting body motions to Klamp't trajectories and back is a model-level
operation: :mod:`roboio.model.motion_convert`."""
from ..registry import FormatInfo, register
from ._sniff import sniff_body, sniff_model_file, sniff_openhrp_vrml, sniff_pseq, sniff_seq

DECLARES_FORMATS = True

_M = "roboio.formats.choreonoid."

register(FormatInfo(
    name="choreonoid-body", extensions=(".body",), kinds=("robot",),
    description="Choreonoid body model (YAML, format ChoreonoidBody)", ecosystem="choreonoid",
    sniff=sniff_body, read=_M + "body:read", write=_M + "body:write", writes=("Robot",)))
register(FormatInfo(
    name="choreonoid-model", extensions=(".yaml", ".yml", ".body"), kinds=("robot",),
    description="Choreonoid body description naming its model with modelFile (the model "
                "loaded, the YAML's keys kept)", ecosystem="choreonoid",
    sniff=sniff_model_file, read=_M + "model_file:read", priority=-1))
register(FormatInfo(
    name="openhrp-vrml", extensions=(".wrl", ".vrml"), kinds=("robot",),
    description="OpenHRP VRML97 robot model (PROTO Humanoid, Joint, Segment), read as "
                "Choreonoid does", ecosystem="choreonoid",
    sniff=sniff_openhrp_vrml, read=_M + "vrml:read", priority=1))
register(FormatInfo(
    name="choreonoid-seq", extensions=(".seq", ".yaml", ".yml"), kinds=("body_motion",),
    description="Choreonoid standard body motion (YAML, .seq or .yaml as Choreonoid loads "
                "them); writes format version 2, camelCase keys",
    ecosystem="choreonoid", sniff=sniff_seq, read=_M + "seq:read", write=_M + "seq:write",
    # below choreonoid-model's priority: a .yaml neither recognises gets the body
    # description's error; the write-only v4 is lower still (a .seq is written as version 2)
    writes=("BodyMotion",), priority=-2))
register(FormatInfo(
    name="choreonoid-seq-v4", extensions=(".seq",), kinds=("body_motion",),
    description="Choreonoid standard body motion, format version 4 (snake_case keys, as current "
                "Choreonoid writes)", ecosystem="choreonoid",
    write=_M + "seq:write_v4", writes=("BodyMotion",), priority=-3))
register(FormatInfo(
    name="choreonoid-pseq", extensions=(".pseq",), kinds=("pose_sequence",),
    description="Choreonoid pose sequence (key poses, YAML)", ecosystem="choreonoid",
    sniff=sniff_pseq, read=_M + "pseq:read", write=_M + "pseq:write", writes=("PoseSeq",)))
