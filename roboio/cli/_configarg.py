"""``--config`` for the viewer commands: a robot configuration given as the link vector
(one value per link), the driver vector (one value per driver, in ``robot.drivers`` order),
or ``name=value`` pairs (driver names, then link names; the rest at ``robot.config``)."""
from __future__ import annotations

import numpy as np

from .main import UsageError

__all__ = ["parse_config"]


def parse_config(robot, text: str) -> np.ndarray:
    """The link configuration ``text`` describes (see the module docstring)."""
    words = text.replace(",", " ").split()
    if words and all("=" in w for w in words):
        q = np.array(robot.config, float)
        drivers = {d.name: k for k, d in enumerate(robot.drivers)}
        u = robot.drivers_from_config(q) if robot.drivers else None
        for w in words:
            name, _, value = w.partition("=")
            try:
                v = float(value)
            except ValueError:
                raise UsageError(f"--config: {value!r} is not a number") from None
            if name in drivers:
                u[drivers[name]] = v
                q = robot.config_from_drivers(u, q)
            elif name in robot.link_names:
                q[robot.link_index(name)] = v
            else:
                raise UsageError(f"--config: robot {robot.name!r} has no driver or link named {name!r}")
        return q
    try:
        values = np.array([float(w) for w in words], dtype=float)
    except ValueError:
        raise UsageError("--config must be numbers separated by spaces, or name=value pairs") from None
    if len(values) == robot.num_links:
        return values
    if robot.drivers and len(values) == len(robot.drivers):
        return robot.config_from_drivers(values)
    raise UsageError(f"--config has {len(values)} values; robot {robot.name!r} has {robot.num_links} "
                     f"links and {len(robot.drivers)} drivers")
