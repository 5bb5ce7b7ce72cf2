"""Datasets: convert, validate and compute link poses over whole trees of files, on Dask.

``roboio.batch.convert(src, dst, to)``, ``roboio.batch.validate(src)`` and
``roboio.batch.fk(motions, model, out)`` mirror ``roboio batch convert|validate|fk``: one task
per file (per chunk of frames for long motions) on a local cluster of worker processes, or
on an existing cluster (``client=`` a ``distributed.Client``, or ``scheduler=`` its
address). Each returns a :class:`~roboio.batch.commands.Summary` (``.ok``, ``.failed``,
``.skipped``). The work on each file is :mod:`roboio.batch.tasks` (``roboio.load`` /
``roboio.save`` / ``Robot.fk_batch``, as everywhere else); which files and what outputs are
called is :mod:`roboio.batch.walk`, shared with ``roboio convert DIR``.

Needs the ``roboio[batch]`` extra (dask[distributed], pyarrow), imported only when a
function runs; ``import roboio`` imports nothing of this package. See docs/batch.md.
"""
from __future__ import annotations

from .commands import Summary, convert, fk, validate

__all__ = ["convert", "validate", "fk", "Summary"]
