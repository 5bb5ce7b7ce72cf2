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


#: what each optional extension speeds up, and what roboio uses without it
FALLBACKS = {
    "roboio.kinematics._kernel": ("kinematics kernel", "its numpy kinematics backend"),
    "roboio.collision._cull": ("collision broad phase", "its numpy broad phase"),
    "roboio.formats.choreonoid._seq_c": (".seq frame reader", "its numpy .seq frame reader"),
}


class optional_build_ext(build_ext):
    """build_ext that never fails the installation: a missing or broken compiler skips an
    extension with a warning (roboio falls back to numpy for it)."""

    def run(self):
        try:
            super().run()
        except Exception as e:    # no compiler at all, or a platform setuptools cannot drive
            for ext in self.extensions:
                self._skipped(ext.name, e)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:    # compile or link failure
            self._skipped(ext.name, e)

    @staticmethod
    def _skipped(name, e):
        what, fallback = FALLBACKS.get(name, (name, "pure Python code"))
        sys.stderr.write(
            f"WARNING: roboio's compiled {what} ({name}) was not built ({type(e).__name__}: "
            f"{e}); roboio is installed and uses {fallback} instead (slower). Install a C "
            "compiler and reinstall for the fast one.\n")


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
