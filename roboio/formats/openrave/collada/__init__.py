"""COLLADA 1.5 robots (``.dae``/``.zae``) as OpenRAVE reads and writes them (spec ``collada.md``).

The entry module is :mod:`.robot` (format ``collada-robot``: ``read``, ``loads``, ``dumps``,
``write``). :func:`append_collada` is the seam OpenRAVE XML includes use
(``<Robot file="x.zae">``): it reads a COLLADA file *into* the body record being built.
This package module imports nothing heavy, so that sniffing stays cheap.
"""

__all__ = ["append_collada"]


def append_collada(body, path, ctx, attributes=None, element="robot"):
    """Read the COLLADA file ``path`` into ``body`` (a ``BodyRecord``); ``ctx`` is the
    context of that file, ``attributes`` the including element's other attributes
    (``prefix``, ``skipgeometry``, ``scalegeometry``, ``readoptions``; ``name`` is ignored),
    ``element`` the including element (``robot``: OpenRAVE's ReadRobotURI, ``kinbody``: its
    ReadKinBodyURI, which ignores ``prefix`` and reads a file without kinematics as one link)."""
    from .robot import append_collada as _append
    return _append(body, path, ctx, attributes, element)
