"""Joint trajectories over time (``roboio plot``), drawn with matplotlib (Agg, no display).

One small panel per joint that moves, titled with its name (the robot's link name when a
model is given, else the DOF index or Choreonoid joint id), the region outside the joint
limits shaded grey. Key poses of a ``.pseq`` are drawn as steps with markers. Joints whose
values stay within ``constant_tol`` (rad or m; default :data:`CONSTANT_TOL`, so that 1e-8
rounding noise is not motion) over the whole motion are listed under the figure instead
of drawn. Every panel shares one time axis.
"""
from __future__ import annotations

import numpy as np

from . import require
from .motion import motion_columns

__all__ = ["plot_motion", "motion_figure", "CONSTANT_TOL"]

CONSTANT_TOL = 1e-6     # rad or m: a joint moving less than this over the motion is constant


def plot_motion(motion, path: str, robot=None, *, columns: int = 4, title: str = "",
                constant_tol: float = CONSTANT_TOL) -> dict:
    """Write the plot of ``motion`` to ``path`` (PNG, or any format matplotlib writes by
    extension). Returns ``{"plotted": [names], "constant": [names]}``."""
    fig, out = motion_figure(motion, robot, columns=columns, title=title, constant_tol=constant_tol)
    import io
    buf = io.BytesIO()
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else "png"
    fig.savefig(buf, format=ext)
    from ..formats.fileio import atomic_write
    atomic_write(path, buf.getvalue())
    return out


def motion_figure(motion, robot=None, *, columns: int = 4, title: str = "",
                  constant_tol: float = CONSTANT_TOL):
    """The matplotlib Figure :func:`plot_motion` writes, and its ``{"plotted", "constant"}``."""
    mpl = require("matplotlib", "roboio plot")
    mpl.use("Agg", force=True)
    from matplotlib.figure import Figure
    times, values, names, limits, units, step = motion_columns(motion, robot)
    moving = [j for j in range(values.shape[1])
              if np.nanmax(values[:, j], initial=-np.inf) - np.nanmin(values[:, j], initial=np.inf)
              > constant_tol]
    constant = [names[j] for j in range(values.shape[1]) if j not in moving]
    cols = max(1, min(columns, len(moving)))
    rows = max(1, -(-len(moving) // cols))
    fig = Figure(figsize=(3.2 * cols, 1.9 * rows + 0.9), dpi=100)
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True)
    for k, ax in enumerate(axes.ravel()):
        if k >= len(moving):
            ax.axis("off")
            continue
        j = moving[k]
        v = values[:, j]
        ok = ~np.isnan(v)
        if step:
            ax.step(times[ok], v[ok], where="post", marker="o", ms=3, lw=1.2, color="C0")
        else:
            ax.plot(times[ok], v[ok], lw=1.2, color="C0")
        lo, hi = limits[j]
        vmin, vmax = float(np.nanmin(v)), float(np.nanmax(v))
        ymin = min(vmin, lo) if np.isfinite(lo) else vmin
        ymax = max(vmax, hi) if np.isfinite(hi) else vmax
        pad = 0.08 * max(ymax - ymin, 1e-6)
        ax.set_ylim(ymin - pad, ymax + pad)
        if np.isfinite(lo):
            ax.axhspan(ymin - pad, lo, color="0.6", alpha=0.35, lw=0)
        if np.isfinite(hi):
            ax.axhspan(hi, ymax + pad, color="0.6", alpha=0.35, lw=0)
        ax.set_title(names[j], fontsize=9)
        ax.set_xlim(times[0], times[-1] if times[-1] > times[0] else times[0] + 1.0)
        ax.tick_params(labelbottom=True)
        ax.tick_params(labelsize=7)
        if units[j]:
            ax.set_ylabel(units[j], fontsize=7)
        if k // cols == rows - 1 or k + cols >= len(moving):
            ax.set_xlabel("time (s)", fontsize=7)
    head = title or "joint trajectories"
    shaded = any(np.isfinite(limits[j]).any() for j in moving)
    fig.suptitle(f"{head}  ({len(moving)} moving joints, {len(times)} frames, "
                 f"{times[-1] - times[0]:.3g} s" + ("; grey: outside the joint limits)" if shaded
                                                     else ")"), fontsize=10)
    if constant:
        import textwrap
        shown = ", ".join(constant[:24]) + (f", ... ({len(constant)} in all)" if len(constant) > 24 else "")
        fig.text(0.01, 0.005, textwrap.fill(f"constant: {shown}", 32 * cols), fontsize=7, color="0.3")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    return fig, {"plotted": [names[j] for j in moving], "constant": constant}
