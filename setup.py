"""Build of roboio's optional C extensions (the compiled kinematics kernel, the collision
broad phase and the Choreonoid .seq frame parser).

Everything else is declared in pyproject.toml. The extensions are optional: without a working
C compiler the build prints one warning and installs the pure-Python package, whose
kinematics then run on the numpy backend (roboio says so once, on first use), as do the
collision broad phase and the .seq frame parser (same results, slower).
"""
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class optional_build_ext(build_ext):
    """build_ext that never fails the installation: a missing or broken compiler skips the
    kernel with a warning (roboio falls back to numpy)."""

    def run(self):
        try:
            super().run()
        except Exception as e:    # no compiler at all, or a platform setuptools cannot drive
            self._skipped(e)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:    # compile or link failure
            self._skipped(e)

    @staticmethod
    def _skipped(e):
        sys.stderr.write(
            "WARNING: roboio's compiled kinematics kernel was not built "
            f"({type(e).__name__}: {e}); roboio is installed and uses its numpy kinematics "
            "backend instead (slower). Install a C compiler and reinstall for the fast one.\n")


def _compile_args():
    if os.name == "nt":
        return ["/O2"]
    # -O3 lets GCC vectorise the sin/cos loop; -fno-math-errno keeps libm calls inline-able;
    # -ffp-contract=off: no fused multiply-adds where the target has them (aarch64 does by
    # default), so that link poses, and the files written from them, have the same bits on
    # every machine.
    return ["-O3", "-fno-math-errno", "-ffp-contract=off"]


setup(
    ext_modules=[Extension("roboio.kinematics._kernel", ["roboio/kinematics/_kernel.c"],
                           extra_compile_args=_compile_args(), optional=True),
                 Extension("roboio.collision._cull", ["roboio/collision/_cull.c"],
                           extra_compile_args=_compile_args(), optional=True),
                 Extension("roboio.formats.choreonoid._seq_c",
                           ["roboio/formats/choreonoid/_seq_c.c"],
                           extra_compile_args=_compile_args(), optional=True)],
    cmdclass={"build_ext": optional_build_ext},
)
