"""Compatibility layers: other libraries' Python APIs on top of roboio's model.

* :mod:`roboio.compat.klampt` -- Klamp't's modeling API (``WorldModel``, ``RobotModel``,
  ``Geometry3D``, ``so3``/``se3``, ...), so that scripts written against ``klampt`` run with
  one changed import line.
"""
