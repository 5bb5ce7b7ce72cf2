"""The names a writer gives links and joints: the source's own, wherever the target can hold
them.

* :func:`joint_names` says, per link, which source name its joint should be written with:
  ``Link.joint_name`` (the source file's joint name), else the name of the driver whose
  actuated link it is (a GraspIt! ``dof<k>``, the second axis ``<joint>_1`` of an OpenRAVE
  universal joint), else None (the writer makes one up, e.g. ``<link>_joint``).
* :class:`Namespace` gives each name of one namespace of the target (links, joints, MuJoCo
  bodies, ...) a unique name the target accepts. Only what the target forbids changes
  (``legal(name)`` returns the nearest name it accepts); names that need no change keep
  theirs first, so a name changed by sanitising never takes a name the source uses
  (``a b`` -> ``a_b`` beside a link already called ``a_b`` becomes ``a_b_2``); then clashes
  are resolved in order with ``_2``, ``_3``, ... Every change of a source name goes into
  ``report.renamed`` (made-up names for what the source left unnamed are not renames).

The result depends only on the names and their order: the same robot is always written
with the same names.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence

__all__ = ["joint_names", "Namespace", "no_whitespace", "say_unwritten"]


def no_whitespace(name: str) -> str:
    """``name`` with every run of whitespace made one ``_`` (for targets that read a name up
    to its first space)."""
    return "_".join(name.split()) if name and any(c.isspace() for c in name) else name


def joint_names(robot) -> list:
    """Per link, the source's name for the joint that moves (or attaches) it, or None.

    ``Link.joint_name`` first. Several consecutive links (each the parent of the next) with
    the same joint name are one source joint spread over several links (an OpenRAVE joint
    whose axis is off its child's origin, a multi-axis joint): the name goes to the link its
    driver (named so) actuates, else to the first moving one of them, else to the first;
    the others count as unnamed. An unnamed link that is the actuated link of a driver
    (``Driver.leader``, set to exactly the driver's value) takes the driver's name, unless
    that name is a link's name (Klamp't names drivers after links: no joint name there) or
    a joint's already."""
    links = robot.links
    out = [l.joint_name if l.joint_name else None for l in links]
    welded = {i for j in robot.joints if j.type == "weld" for i in j.links}
    actuated = {}                     # link -> driver that sets it to its own value
    for d in robot.drivers:
        lead = d.leader
        if lead is None or lead not in d.dofs or d.type not in ("normal", "affine"):
            continue
        if d.type == "affine":
            k = d.dofs.index(lead)
            if float(d.scale[k]) != 1.0 or float(d.offset[k]) != 0.0:
                continue
        actuated.setdefault(lead, d)
    # runs of links sharing one joint name: keep it on one of them
    run_of = {}
    for i, l in enumerate(links):
        p = l.parent
        if out[i] is not None and p >= 0 and out[p] == out[i]:
            run_of[i] = run_of.get(p, p)
    runs: dict = {}
    for i, head in run_of.items():
        runs.setdefault(head, [head]).append(i)
    for head, run in runs.items():
        name = out[head]
        keep = next((i for i in run if i in actuated and actuated[i].name == name), None)
        if keep is None:
            keep = next((i for i in run if i not in welded), run[0])
        for i in run:
            if i != keep:
                out[i] = None
    link_names = {l.name for l in links}
    taken = {n for n in out if n is not None}
    for i, d in actuated.items():
        if out[i] is None and d.name and d.name not in link_names and d.name not in taken:
            out[i] = d.name
            taken.add(d.name)
    return out


def say_unwritten(robot, written, report, why: str, names=None) -> None:
    """Warn about the source joint names (:func:`joint_names`, or ``names`` when the writer
    moved some: one per link) of links whose joint the target does not write (``written``:
    the link indices whose joints it writes), saying ``why`` the target has no place for
    them (a root's joint to the world, a fixed joint in MuJoCo)."""
    names = joint_names(robot) if names is None else names
    gone = [f"{n} ({robot.links[i].name})" for i, n in enumerate(names)
            if n is not None and i not in written]
    for name in gone:
        report.warn(f"joint names not written ({why})", name, kind="not written", noun="joint")


class Namespace:
    """Unique, legal names in one namespace of a target (see the module docstring).

    ``kind``: the ``report.renamed`` key ("links", "joints"); ``legal(name)``: the nearest
    name the target accepts (default: any non-empty name); ``reserved``: names the writer
    uses itself; ``unique=False`` for a target that holds a name several times (a ``.rob``:
    then only what ``legal`` changes is changed). :meth:`assign` names a whole list at once;
    call it again for the next robot of a world sharing the namespace."""

    def __init__(self, report, kind: str, legal: Optional[Callable[[str], str]] = None,
                 reserved: Iterable[str] = (), unique: bool = True):
        self.report = report
        self.kind = kind
        self.unique = unique            # False: a target that holds repeated names (a .rob)
        self.legal = legal or (lambda s: s)
        self.taken: set = set(reserved)
        self.results: dict = {}        # kind -> source name -> new names of every occurrence

    def assign(self, names: Sequence[Optional[str]], invented: Sequence[str],
               kind: Optional[str] = "") -> list:
        """A unique legal name for each of ``names`` (None: the source has none; then
        ``invented[k]`` is used, made legal and unique too), in order. ``kind``: the
        ``report.renamed`` key for these names when not the namespace's own (None: names
        whose changes are not recorded, e.g. a rigid object's joint)."""
        kind = self.kind if kind == "" else kind
        out: list = [None] * len(names)
        fixed = [self.legal(n) if n else "" for n in names]
        for k, n in enumerate(names):          # names the target holds as they are
            if n and fixed[k] == n and (n not in self.taken or not self.unique):
                out[k] = n
                self.taken.add(n)
        for k, n in enumerate(names):
            if out[k] is not None:
                continue
            base = fixed[k] or self.legal(invented[k]) or invented[k]
            out[k] = self._unique(base)
        if kind is None or self.report is None:
            return out
        results = self.results.setdefault(kind, {})
        for k, n in enumerate(names):
            if n is not None:
                results.setdefault(n, []).append(out[k])
        for n in dict.fromkeys(x for x in names if x is not None):
            new = results[n]
            if len(new) == 1:
                if new[0] != n:
                    self.report.rename(kind, n, new[0])
            elif any(x != n for x in new):
                self.report.rename(kind, n, list(new))
        return out

    def take(self, name: Optional[str], invented: str, kind: Optional[str] = "") -> str:
        """One name (see :meth:`assign`)."""
        return self.assign([name], [invented], kind)[0]

    def _unique(self, base: str) -> str:
        if not self.unique:
            return base
        name, k = base, 2
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name
