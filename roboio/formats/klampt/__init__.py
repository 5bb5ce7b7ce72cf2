"""Klamp't formats: robots (``.rob``), worlds (``<world>`` XML), rigid objects (``.obj``),
terrains (``.env``), geometry (``.geom``, ``.group``, ``.tri`` and inline ``{...}`` streams),
motions (``.config``, ``.configs``, ``.milestones``, ``.path``, MultiPath XML, JSON) and
contacts (``.hold``, ``.stance``, ``.ikgoal``, ``<Grasp>`` XML).

Entry modules: :mod:`.rob`, :mod:`.world` (sub-packages), :mod:`.rigid_object`,
:mod:`.terrain`, :mod:`.geometry` (``geom``, ``group``, ``tri``), :mod:`.motion`
(``config``, ``configs``, ``milestones``, ``path``, ``multipath``, ``json_motion``),
:mod:`.contact` (``hold``, ``stance``, ``ikgoal``, ``grasp``). Content tests are in the
light :mod:`._sniff`; :mod:`.mount` (mount and self-collision rules) is public because the
URDF reader applies it to the ``<klampt>`` element.
"""
from ..loading import register_inline_geometry
from ..registry import FormatInfo, register
from ._sniff import (sniff_config, sniff_configs, sniff_geom, sniff_grasp, sniff_hold, sniff_json,
                     sniff_milestones, sniff_multipath, sniff_object, sniff_path, sniff_stance,
                     sniff_world)

DECLARES_FORMATS = True

_M = "roboio.formats.klampt."


def _declare(name, module, extensions, kinds, writes, description, sniff=None, priority=0,
             read="read", write="write"):
    register(FormatInfo(
        name=name, extensions=extensions, kinds=kinds, description=description, ecosystem="klampt",
        sniff=sniff, read=f"{_M}{module}:{read}" if read else None,
        write=f"{_M}{module}:{write}" if write else None, writes=writes, priority=priority))


_declare("klampt-rob", "rob", (".rob",), ("robot",), ("Robot",), "Klamp't robot file (.rob)")
_declare("klampt-world", "world", (".xml",), ("world",), ("World",),
         "Klamp't world (<world> with robots, rigid objects, terrains, simulation settings)",
         sniff_world, priority=1)
# Klamp't's own meaning of .obj (priority over Wavefront): broken files get its located errors
_declare("klampt-object", "rigid_object", (".obj",), ("rigid_object",), ("RigidObject",),
         "Klamp't rigid object (.obj SimpleFile: mesh, T, mass, inertia, contact parameters)",
         sniff_object, priority=1)
_declare("klampt-terrain", "terrain", (".env",), ("terrain",), ("Terrain",),
         "Klamp't terrain (.env SimpleFile: mesh, kFriction)")

_declare("klampt-geom", "geometry.geom", (".geom",), ("geometry",), ("Geometry",),
         "Klamp't geometric primitive (.geom); written without the legacy 'Primitive' line",
         sniff_geom, priority=1)
_declare("klampt-geom-legacy", "geometry.geom", (".geom",), ("geometry",), ("Geometry",),
         "Klamp't .geom with the 'Primitive' header line that Klamp't <= 0.10.1 requires",
         read=None, write="write_legacy")
_declare("klampt-group", "geometry.group", (".group",), ("geometry",), ("Geometry",),
         "Klamp't geometry group (.group): count, then typed geometry streams")
_declare("klampt-tri", "geometry.tri", (".tri",), ("geometry",), ("Geometry",),
         "Klamp't .tri triangle mesh (vertex and triangle count blocks)")

_declare("klampt-config", "motion.config", (".config",), ("trajectory",), ("Trajectory",),
         "Klamp't configuration (N q1 ... qN)", sniff_config)
_declare("klampt-configs", "motion.configs", (".configs",), ("trajectory",), ("Trajectory",),
         "Klamp't configuration list (N q... per line, no count)", sniff_configs)
_declare("klampt-milestones", "motion.milestones", (".milestones",), ("trajectory",),
         ("Trajectory",), "Klamp't milestones (N q...  N dq... per line)", sniff_milestones)
_declare("klampt-path", "motion.path", (".path", ".txt"), ("trajectory",), ("Trajectory",),
         "Klamp't linear path (t N q1 ... qN per line)", sniff_path)
_declare("klampt-multipath", "motion.multipath", (".xml",), ("multipath",),
         ("MultiPath", "Trajectory"), "Klamp't MultiPath (XML root <multipath>)", sniff_multipath)
_declare("klampt-json-motion", "motion.json_motion", (".json",),
         ("trajectory", "ik_objective", "contact_point", "hold", "stance", "grasp"),
         ("Trajectory", "IKObjective", "ContactPoint", "Hold", "Stance", "Grasp"),
         "Klamp't JSON: configs, trajectories, IK objectives, contacts, holds, stances, grasps",
         sniff_json, priority=5)

_declare("klampt-hold", "contact.hold", (".hold",), ("hold",), ("Hold",),
         "Klamp't hold (begin hold ... end)", sniff_hold)
_declare("klampt-stance", "contact.stance", (".stance",), ("stance",), ("Stance",),
         "Klamp't stance (begin stance, holds, end)", sniff_stance)
_declare("klampt-ikgoal", "contact.ikgoal", (".ikgoal",), ("ik_objective",), ("IKObjective",),
         "Klamp't IK objective (LINK DEST P ... R ...)")
_declare("klampt-grasp", "contact.grasp", (".xml",), ("grasp",), ("Grasp",),
         "Klamp't grasp (XML root <Grasp>)", sniff_grasp)

# Klamp't references may hold a geometry inline: {TypeName data...}
register_inline_geometry("{", "}", "roboio.formats.klampt.geometry.stream:parse_stream")
