"""The compiled backend: hands a :class:`KinematicModel`'s arrays to the C kernel
(``_kernel.c``). Importing this module raises ImportError when the extension was not built.

The kernel's ``Model`` object is the evaluator itself: its methods ``fk``, ``fk_batch``,
``jacobian``, ``jacobian_frames`` and ``jacobian_batch`` have the signatures documented in
:mod:`roboio.kinematics._numpy`.
"""
from __future__ import annotations

import numpy as np

from . import _kernel

NAME = "compiled"
pose_vectors = _kernel.pose_vectors
pose_columns = _kernel.pose_columns

# joint kinds, as numbered in _kernel.c
REV_GENERAL, REV_X, REV_Y, REV_Z, PRISMATIC = range(5)


def joint_kinds(axes, prismatic):
    """Kernel joint kind and angle rate of every link: an axis with one nonzero component
    is axis-aligned (rate = that signed component, as a rotation by q |a| about a/|a| is a
    rotation by q a_k about e_k); any other revolute axis is general (rate |a|)."""
    n = len(axes)
    kind = np.full(n, REV_GENERAL, dtype=np.int64)
    rate = np.linalg.norm(axes, axis=1) if n else np.zeros(0)
    for i in range(n):
        if prismatic[i]:
            kind[i], rate[i] = PRISMATIC, 0.0
            continue
        nonzero = np.flatnonzero(axes[i])
        if len(nonzero) == 1:
            k = int(nonzero[0])
            kind[i], rate[i] = REV_X + k, axes[i, k]
    return kind, rate


def evaluator(model):
    """The kernel's ``Model`` for a :class:`~roboio.kinematics.KinematicModel`."""
    kind, rate = joint_kinds(model.axes, model.prismatic)
    A = model._A
    identity = np.all(A == np.eye(3), axis=(1, 2)).astype(np.int64)

    def flat(a):
        return np.ascontiguousarray(a, dtype=np.float64).reshape(-1)

    return _kernel.Model(np.ascontiguousarray(model.parents, dtype=np.int64),
                         np.ascontiguousarray(model.order, dtype=np.int64), kind, identity,
                         flat(rate), flat(A), flat(model._B), flat(model._C), flat(model._t0),
                         flat(model._slide), flat(model.axes), np.empty)


def dynamics_evaluator(dyn):
    """The kernel's ``Dynamics`` for a :class:`~roboio.kinematics.dynamics.DynamicModel`
    (over the kernel ``Model`` of its kinematic model)."""
    return _kernel.Dynamics(dyn.kin.evaluator(), dyn.masses, dyn.coms.reshape(-1),
                            dyn.inertias.reshape(-1))
