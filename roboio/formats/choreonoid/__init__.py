"""Choreonoid formats: body models (``.body``, YAML ``format: ChoreonoidBody``), standard
body motions (``.seq``, format versions 1 to 4; written as version 2 or 4) and pose
sequences (``.pseq``). Entry modules :mod:`.body` (a sub-package), :mod:`.seq`,
:mod:`.pseq`; the YAML reading shared by all three in :mod:`._yaml`; content tests in
:mod:`._sniff`. Converting body motions to Klamp't trajectories and back is a model-level
operation: :mod:`roboio.model.motion_convert`."""
from ..registry import FormatInfo, register
from ._sniff import sniff_body, sniff_pseq, sniff_seq

DECLARES_FORMATS = True

_M = "roboio.formats.choreonoid."

register(FormatInfo(
    name="choreonoid-body", extensions=(".body",), kinds=("robot",),
    description="Choreonoid body model (YAML, format ChoreonoidBody)", ecosystem="choreonoid",
    sniff=sniff_body, read=_M + "body:read", write=_M + "body:write", writes=("Robot",)))
register(FormatInfo(
    name="choreonoid-seq", extensions=(".seq",), kinds=("body_motion",),
    description="Choreonoid standard body motion (YAML); writes format version 2, camelCase keys",
    ecosystem="choreonoid", sniff=sniff_seq, read=_M + "seq:read", write=_M + "seq:write",
    writes=("BodyMotion",)))
register(FormatInfo(
    name="choreonoid-seq-v4", extensions=(".seq",), kinds=("body_motion",),
    description="Choreonoid standard body motion, format version 4 (snake_case keys, as current "
                "Choreonoid writes)", ecosystem="choreonoid",
    write=_M + "seq:write_v4", writes=("BodyMotion",), priority=-1))
register(FormatInfo(
    name="choreonoid-pseq", extensions=(".pseq",), kinds=("pose_sequence",),
    description="Choreonoid pose sequence (key poses, YAML)", ecosystem="choreonoid",
    sniff=sniff_pseq, read=_M + "pseq:read", write=_M + "pseq:write", writes=("PoseSeq",)))
