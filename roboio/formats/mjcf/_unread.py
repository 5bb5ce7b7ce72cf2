"""What an MJCF reading leaves out, said in warnings (nothing is dropped silently).

roboio's model holds kinematics, masses, geometry, drivers and their actuators. MuJoCo's
simulation parameters of joints, geoms and bodies (armature, springs, contact softness,
a robot link's friction, ...) and the model sections roboio has no model element for (tendons,
sensors, custom data; tendons but fixed ones) are not read, and the MJCF writer does not write them. Each one the
file sets to other than MuJoCo's default is named in one warning per element kind and
attribute, with how many elements set it and the first of their names, located at the
first of them (:class:`Unread`).
"""
from __future__ import annotations

__all__ = ["Unread", "UNREAD_SECTIONS"]

# attribute -> MuJoCo's default (numbers; a shorter value given is compared by its prefix,
# as MuJoCo fills the rest from the default), None: any value is reported
_UNREAD = {
    "joint": {"armature": (0.0,), "stiffness": (0.0,), "springref": (0.0,), "springdamper": (0.0, 0.0),
              "margin": (0.0,), "solreflimit": (0.02, 1.0), "solimplimit": (0.9, 0.95, 0.001, 0.5, 2.0),
              "solreffriction": (0.02, 1.0), "solimpfriction": (0.9, 0.95, 0.001, 0.5, 2.0),
              "actuatorgravcomp": "false", "user": None},
    "geom": {"condim": (3.0,), "priority": (0.0,), "solmix": (1.0,),
             "solref": (0.02, 1.0), "solimp": (0.9, 0.95, 0.001, 0.5, 2.0), "margin": (0.0,),
             "gap": (0.0,), "fluidshape": "none", "user": None},
    "body": {"gravcomp": (0.0,), "user": None},
}
# (a geom's friction is read as its terrain's or rigid object's kFriction: :meth:`Unread.friction`)
FRICTION = (1.0, 0.005, 0.0001)
# section children a reading keeps (_tendons)
_READ_CHILDREN = {("tendon", "fixed")}
# what a reading takes of <contact> children (the self-collision pairs)
_READ_CONTACT = {"pair": ("name", "geom1", "geom2"), "exclude": ("name", "body1", "body2")}
# top-level sections whose elements roboio has no model element for
UNREAD_SECTIONS = ("tendon", "sensor", "custom", "deformable")


def _is_default(text: str, default) -> bool:
    if default is None:
        return False
    if isinstance(default, str):
        return text.strip() == default
    try:
        vals = [float(x) for x in text.split()]
    except ValueError:
        return False
    return 0 < len(vals) <= len(default) and all(v == d for v, d in zip(vals, default))


class Unread:
    """Collects the attributes of joints, geoms and bodies a reading leaves out."""

    def __init__(self):
        self.found: dict = {}        # (element, attribute) -> [first node, names, count]

    def check(self, element: str, attrs, name) -> None:
        """Note the attributes of ``element`` (resolved ``attrs``, own over its class's)
        that a reading leaves out and that differ from MuJoCo's default."""
        for key, default in _UNREAD[element].items():
            text = attrs.text(key)
            if text is not None and not _is_default(text, default):
                self.note(element, key, attrs.node, name)

    def note(self, element: str, key: str, node, name) -> None:
        """Note attribute ``key`` of ``element`` (at ``node``, named ``name``) as left out."""
        entry = self.found.setdefault((element, key), [node, [], 0])
        entry[2] += 1
        if name and len(entry[1]) < 3:
            entry[1].append(name)

    def friction(self, geoms: list, whole: bool) -> "float | None":
        """The sliding friction of ``geoms`` (GeomRec) that set one, as the kFriction of
        the terrain or rigid object they make (``whole``: a value is kept), else None;
        what is not kept (a robot link's friction, torsional and rolling friction, a
        second value) is noted."""
        kept = None
        for g in geoms:
            if g.friction is None or g.visual:
                continue
            f = tuple(g.friction) + FRICTION[len(g.friction):]
            if whole and (kept is None or f[0] == kept) and f[1:] == FRICTION[1:]:
                kept = f[0]
            elif f != FRICTION or whole:
                self.note("geom", "friction", g.node, g.name)
        return kept

    def warn(self, doc) -> None:
        """One warning per element kind and attribute, then one per unread section."""
        for (element, key), (node, names, count) in self.found.items():
            who = f"{count} {element}{'s' if count > 1 else ''}"
            if names:
                who += ": " + ", ".join(names) + (", ..." if count > len(names) else "")
            doc.warn(node, f"<{element} {key}> not read ({who}): roboio's model does not hold "
                           "it, and the MJCF writer does not write it", kind="dropped")
        for sec in doc.sections.get("contact", []):
            for n in doc.kids(sec, 2):
                extra = sorted(k for k in n.el.attrib if k not in _READ_CONTACT.get(n.tag, ()))
                if extra:
                    doc.warn(n, f"<contact><{n.tag}> {', '.join(extra)} not read (roboio keeps which "
                                "pairs collide, not how)", kind="dropped")
        for tag in UNREAD_SECTIONS:
            for sec in doc.sections.get(tag, []):
                kids = [n.tag for n in doc.kids(sec, 2) if (tag, n.tag) not in _READ_CHILDREN]
                if kids:
                    doc.warn(sec, f"<{tag}> not read ({len(kids)} elements: "
                                  f"{', '.join(sorted(set(kids)))}): roboio's model has no such "
                                  "element", kind="dropped")
