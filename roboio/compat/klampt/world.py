"""Klamp't's ``WorldModel``, ``RigidObjectModel`` and ``TerrainModel`` as views on a
:class:`roboio.model.World`.

IDs are numbered as Klamp't numbers them: terrains ``0..T-1``, rigid objects
``T..T+O-1``, then for each robot one ID for the robot followed by one per link. Files are
read and written with roboio's readers and writers (``roboio.load`` / ``roboio.save``), so
every format roboio knows can be loaded into a world.
"""
from __future__ import annotations

import copy
import os
import warnings

import numpy as np

from ...errors import RoboioWarning
from ...model import Geometry, Link, RigidObject, Robot, Terrain, World
from ._io import load_file, save_file
from ._common import NotSupportedError, floats, matrix_to_se3, opengl_methods, se3_to_matrix, vec3
from .appearance import GREY, Appearance
from .geometry import Geometry3D, clear_pose_override
from .mass import Mass
from .robot import RobotModel, RobotModelLink, _update_frames

__all__ = ["WorldModel", "RigidObjectModel", "TerrainModel", "ContactParameters"]


def _stem(fn) -> str:
    return os.path.splitext(os.path.basename(os.fspath(fn)))[0]


def _object_from_geometry(geom: Geometry, name: str) -> RigidObject:
    """A rigid object made of a bare geometry file, as Klamp't makes it: identity pose,
    mass 1, com and inertia computed from the geometry (surface fraction 1)."""
    from ...model.massprops import mass_properties
    obj = RigidObject(name, geom)
    obj.com, obj.inertia = mass_properties(geom, 1.0, 1.0)
    return obj


def _adopt(obj, kind: str, name: str):
    """The element of kind ``kind`` held by a loaded file (None when it holds another)."""
    if kind == "robot":
        return obj if isinstance(obj, Robot) else None
    if kind == "rigid_object":
        if isinstance(obj, RigidObject):
            return obj
        return _object_from_geometry(obj, name) if isinstance(obj, Geometry) else None
    if isinstance(obj, Terrain):
        return obj
    return Terrain(name, obj) if isinstance(obj, Geometry) else None


_KINDS = {"robot": ("robot",), "rigid_object": ("rigid_object", "geometry"),
          "terrain": ("terrain", "geometry")}


# -- element views ----------------------------------------------------------------------------
class ContactParameters:
    """Surface properties of a rigid object: ``kFriction``, ``kRestitution``,
    ``kStiffness``, ``kDamping`` (a value, not a view)."""

    def __init__(self):
        self.kFriction = 0.5
        self.kRestitution = 0.5
        self.kStiffness = float("inf")
        self.kDamping = float("inf")

    def __repr__(self):
        return (f"ContactParameters(kFriction={self.kFriction}, kRestitution={self.kRestitution}, "
                f"kStiffness={self.kStiffness}, kDamping={self.kDamping})")


class _Element:
    """Shared part of the rigid-object and terrain views."""

    _KIND = ""

    @classmethod
    def _view(cls, obj, world):
        v = cls.__new__(cls)
        v._obj = obj
        v._world = world
        return v

    def __eq__(self, other):
        return type(other) is type(self) and other._obj is self._obj

    def __hash__(self):
        return id(self._obj)

    @property
    def model(self):
        """The underlying roboio model element."""
        return self._obj

    def getID(self) -> int:
        return -1 if self._world is None else self._world.id_of(self._obj)

    id = property(getID)

    def getName(self) -> str:
        return self._obj.name

    def setName(self, name: str):
        self._obj.name = str(name)

    name = property(getName, setName)

    @property
    def index(self) -> int:
        items = self._world.rigid_objects if self._KIND == "rigid_object" else self._world.terrains
        return next(i for i, x in enumerate(items) if x is self._obj)

    def geometry(self) -> Geometry3D:
        obj = self._obj
        return Geometry3D._view(obj, lambda: obj.transform)

    def appearance(self) -> Appearance:
        return Appearance._view(self._obj, self._KIND)

    def loadFile(self, fn: str) -> bool:
        """Replace this element's content (not its name) by the one in ``fn``; False on
        failure."""
        loaded = load_file(fn, _KINDS[self._KIND])
        new = None if loaded is None else _adopt(loaded, self._KIND, self._obj.name)
        if new is None:
            return False
        name = self._obj.name
        vars(self._obj).update(vars(new))
        self._obj.name = name
        clear_pose_override(self._obj)
        return True

    def saveFile(self, fn: str, geometryName: str = None) -> bool:
        """Save with roboio's writer for ``fn``'s extension (``.obj`` / ``.env``); the
        geometry stays referenced by its file. ``geometryName`` is not supported."""
        if geometryName is not None:
            raise NotSupportedError(f"{type(self).__name__}.saveFile(fn, geometryName): writing "
                                    "the geometry to a new file is not supported; omit geometryName")
        return save_file(self._obj, fn)

    def __repr__(self):
        return f"<{type(self).__name__} {self._obj.name!r}>"


class RigidObjectModel(_Element):
    """A rigid object of a world: pose, velocity, mass and contact parameters."""

    _KIND = "rigid_object"

    def getTransform(self) -> tuple:
        """``(R, t)``: the object's pose in the world."""
        return matrix_to_se3(self._obj.transform)

    def setTransform(self, R, t):
        self._obj.transform = se3_to_matrix(R, t)
        clear_pose_override(self._obj)

    transform = property(getTransform)

    def getVelocity(self) -> tuple:
        """``(angular velocity, velocity)``, world frame."""
        return (floats(self._obj.angular_velocity), floats(self._obj.velocity))

    def setVelocity(self, angularVelocity, velocity):
        self._obj.angular_velocity = vec3(angularVelocity, "angular velocity")
        self._obj.velocity = vec3(velocity, "velocity")

    def getMass(self) -> Mass:
        o = self._obj
        return Mass.from_model(o.mass, o.com, o.inertia)

    def setMass(self, mass: Mass):
        o = self._obj
        o.mass = mass.getMass()
        o.com = np.array(mass.getCom())
        o.inertia = mass.inertia_matrix()

    mass = property(getMass, setMass)

    def getContactParameters(self) -> ContactParameters:
        p = ContactParameters()
        for k in ("kFriction", "kRestitution", "kStiffness", "kDamping"):
            setattr(p, k, float(getattr(self._obj, k)))
        return p

    def setContactParameters(self, params: ContactParameters):
        for k in ("kFriction", "kRestitution", "kStiffness", "kDamping"):
            setattr(self._obj, k, float(getattr(params, k)))


class TerrainModel(_Element):
    """A terrain (static geometry) of a world."""

    _KIND = "terrain"

    def setFriction(self, friction: float):
        self._obj.kFriction = float(friction)


# -- the world ----------------------------------------------------------------------------------
class WorldModel:
    """Robots, rigid objects and terrains (a view on a :class:`roboio.model.World`).

    ``WorldModel()`` is empty; ``WorldModel("file.xml")`` reads a file (raising on failure);
    ``WorldModel(other)`` refers to the same world as ``other`` (use :meth:`copy` to copy);
    ``WorldModel(roboio_world)`` wraps a roboio World.
    """

    def __init__(self, *args):
        self._load_geometry = True
        if not args:
            self._world = World()
        elif len(args) == 1 and isinstance(args[0], WorldModel):
            self._world = args[0]._world
        elif len(args) == 1 and isinstance(args[0], World):
            self._world = args[0]
        elif len(args) == 1 and isinstance(args[0], (str, os.PathLike)):
            from ...api import load_world
            self._world = load_world(args[0])
        else:
            raise TypeError("WorldModel(), WorldModel(filename), WorldModel(world)")

    @property
    def model(self) -> World:
        """The underlying :class:`roboio.model.World`."""
        return self._world

    # -- counts and IDs -------------------------------------------------------------------
    def numRobots(self) -> int:
        return len(self._world.robots)

    def numRigidObjects(self) -> int:
        return len(self._world.rigid_objects)

    def numTerrains(self) -> int:
        return len(self._world.terrains)

    def numIDs(self) -> int:
        return self._world.num_ids

    def numRobotLinks(self, robot: int) -> int:
        return self._world.robots[int(robot)].num_links

    def getName(self, id: int) -> str:
        """Name of the element with ID ``id`` (a link is named ``robot[link]``)."""
        element = self._world.element(id)
        if isinstance(element, Link):
            robot = next(r for r in self._world.robots if any(l is element for l in r.links))
            return f"{robot.name}[{element.name}]"
        return element.name

    def _view_of(self, element):
        if isinstance(element, Robot):
            return RobotModel._view(element, self._world)
        if isinstance(element, RigidObject):
            return RigidObjectModel._view(element, self._world)
        if isinstance(element, Terrain):
            return TerrainModel._view(element, self._world)
        robot = next(r for r in self._world.robots if any(l is element for l in r.links))
        return RobotModelLink._view(RobotModel._view(robot, self._world), element.index)

    def geometry(self, id: int) -> Geometry3D:
        """Geometry of the terrain, rigid object or robot link with ID ``id``."""
        element = self._world.element(id)
        if isinstance(element, Robot):
            raise ValueError(f"ID {id} is robot {element.name!r}, which has no geometry "
                             "(its links do)")
        return self._view_of(element).geometry()

    def appearance(self, id: int) -> Appearance:
        element = self._world.element(id)
        if isinstance(element, Robot):
            raise ValueError(f"ID {id} is robot {element.name!r}, which has no appearance")
        return self._view_of(element).appearance()

    # -- elements -----------------------------------------------------------------------------
    def robot(self, index_or_name) -> RobotModel:
        return RobotModel._view(self._world.robot(index_or_name), self._world)

    def rigidObject(self, index_or_name) -> RigidObjectModel:
        return RigidObjectModel._view(self._world.rigid_object(index_or_name), self._world)

    def terrain(self, index_or_name) -> TerrainModel:
        return TerrainModel._view(self._world.terrain(index_or_name), self._world)

    def robotLink(self, robot, index_or_name) -> RobotModelLink:
        return self.robot(robot).link(index_or_name)

    def getRobots(self) -> tuple:
        return tuple(self.robot(i) for i in range(self.numRobots()))

    def getRigidObjects(self) -> tuple:
        return tuple(self.rigidObject(i) for i in range(self.numRigidObjects()))

    def getTerrains(self) -> tuple:
        return tuple(self.terrain(i) for i in range(self.numTerrains()))

    def getRobotsDict(self) -> dict:
        return {r.getName(): r for r in self.getRobots()}

    def getRigidObjectsDict(self) -> dict:
        return {o.getName(): o for o in self.getRigidObjects()}

    def getTerrainsDict(self) -> dict:
        return {t.getName(): t for t in self.getTerrains()}

    robots = property(getRobots)
    rigidObjects = property(getRigidObjects)
    terrains = property(getTerrains)
    robotsDict = property(getRobotsDict)
    rigidObjectsDict = property(getRigidObjectsDict)
    terrainsDict = property(getTerrainsDict)

    def makeRobot(self, name: str) -> RobotModel:
        """A new robot without links."""
        return RobotModel._view(self._world.add(Robot(str(name))), self._world)

    def makeRigidObject(self, name: str) -> RigidObjectModel:
        """A new rigid object without geometry (Klamp't's defaults: mass 1, identity
        inertia, kFriction 0.5, kRestitution 0, grey)."""
        obj = RigidObject(str(name))
        obj.kRestitution = 0.0
        obj.appearance.color = GREY
        return RigidObjectModel._view(self._world.add(obj), self._world)

    def makeTerrain(self, name: str) -> TerrainModel:
        """A new terrain without geometry (grey)."""
        t = Terrain(str(name))
        t.appearance.color = GREY
        return TerrainModel._view(self._world.add(t), self._world)

    def add(self, name: str, element):
        """Add a copy of a robot, rigid object or terrain (from any world) named ``name``."""
        if not isinstance(element, (RobotModel, RigidObjectModel, TerrainModel)):
            raise TypeError("add(name, robot | rigid object | terrain)")
        model = element._robot if isinstance(element, RobotModel) else element._obj
        new = copy.deepcopy(model)
        new.name = str(name)
        return self._view_of(self._world.add(new))

    def remove(self, element):
        """Remove a robot, rigid object or terrain of this world."""
        model = element._robot if isinstance(element, RobotModel) else getattr(element, "_obj", None)
        for items in (self._world.robots, self._world.rigid_objects, self._world.terrains):
            for i, x in enumerate(items):
                if x is model:
                    del items[i]
                    return
        raise ValueError(f"{element!r} is not in this world")

    def copy(self) -> "WorldModel":
        """A deep copy (robot configurations and link transforms included)."""
        return WorldModel(copy.deepcopy(self._world))

    # -- files ------------------------------------------------------------------------------
    def enableGeometryLoading(self, enabled: bool):
        """With False, elements loaded afterwards get no geometry (kinematics only)."""
        self._load_geometry = bool(enabled)

    def enableInitCollisions(self, enabled: bool):
        """Accepted for compatibility: roboio builds no collision structures."""

    def _add_loaded(self, element):
        if not self._load_geometry:
            for g_owner in (element.links if isinstance(element, Robot) else [element]):
                g_owner.geometry = None
        self._world.add(element)
        if isinstance(element, Robot):
            _update_frames(element)
        return element

    def readFile(self, fn: str) -> bool:
        """Add the elements of a world file (or of a single robot / object / terrain /
        geometry file) to this world; False on failure."""
        if not str(fn).lower().endswith(".xml"):
            return self.loadElement(fn) >= 0
        loaded = load_file(fn, ("world",))
        if not isinstance(loaded, World):
            if loaded is not None:
                warnings.warn(f"{fn}: not a world file", RoboioWarning, stacklevel=2)
            return False
        for element in loaded.robots + loaded.rigid_objects + loaded.terrains:
            self._add_loaded(element)
        if not self._world.source:
            self._world.source = loaded.source
            self._world.extras = dict(loaded.extras, **self._world.extras)
        return True

    loadFile = readFile

    def loadElement(self, fn: str) -> int:
        """Load a robot (.rob, .urdf), rigid object (.obj) or terrain (.env, or any
        geometry file); returns the new element's ID, or -1 on failure."""
        loaded = load_file(fn)
        if isinstance(loaded, Geometry):
            loaded = Terrain(_stem(fn), loaded)
        if not isinstance(loaded, (Robot, RigidObject, Terrain)):
            if loaded is not None:
                warnings.warn(f"{fn}: holds a {type(loaded).__name__}, not a robot, rigid "
                              "object, terrain or geometry", RoboioWarning, stacklevel=2)
            return -1
        return self._world.id_of(self._add_loaded(loaded))

    def _load_kind(self, fn, kind):
        loaded = load_file(fn, _KINDS[kind])
        new = None if loaded is None else _adopt(loaded, kind, _stem(fn))
        return None if new is None else self._add_loaded(new)

    def loadRobot(self, fn: str) -> RobotModel:
        """Load a robot file; on failure an empty robot (ID -1) that is not in the world."""
        r = self._load_kind(fn, "robot")
        return RobotModel() if r is None else RobotModel._view(r, self._world)

    def loadRigidObject(self, fn: str) -> RigidObjectModel:
        """Load a .obj rigid object or a geometry file (mass 1, inertia from the geometry);
        on failure an empty object that is not in the world."""
        o = self._load_kind(fn, "rigid_object")
        return RigidObjectModel._view(o if o is not None else RigidObject(""),
                                      self._world if o is not None else None)

    def loadTerrain(self, fn: str) -> TerrainModel:
        """Load a .env terrain or a geometry file; on failure an empty terrain that is not
        in the world."""
        t = self._load_kind(fn, "terrain")
        return TerrainModel._view(t if t is not None else Terrain(""),
                                  self._world if t is not None else None)

    def saveFile(self, fn: str, elementDir: str = None) -> bool:
        """Write a Klamp't world file, its robots, objects and terrains going to the folder
        named after ``fn`` (``dir/name.xml`` -> ``dir/name/``). Only that folder is
        supported for ``elementDir``."""
        default = os.path.splitext(os.fspath(fn))[0]
        if elementDir is not None and os.path.abspath(elementDir) != os.path.abspath(default):
            raise NotSupportedError(f"WorldModel.saveFile: element files always go to {default!r}; "
                                    "another elementDir is not supported")
        return save_file(self._world, fn)

    def __repr__(self):
        return (f"<WorldModel: {self.numRobots()} robots, {self.numRigidObjects()} rigid "
                f"objects, {self.numTerrains()} terrains>")


opengl_methods(WorldModel, ["drawGL"])
opengl_methods(RigidObjectModel, ["drawGL"])
opengl_methods(TerrainModel, ["drawGL"])
