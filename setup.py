"""`pip install .`: builds mlprof with CMake for the Python running pip and installs the package
`mlprof` (the extension, libmlprof, the LibTorch integration when LibTorch is found) and the
`mlprof` command into that environment, a venv included.

Offline, with the build tools the system provides (Debian: python3-pip, python3-setuptools,
pybind11-dev, and the packages scripts/bootstrap.sh installs):

    python3 -m venv env && env/bin/pip install --no-build-isolation .

The CMake build folder is build-pip (MLPROF_PIP_BUILD_DIR to change it): a second install
rebuilds only what changed."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def version() -> str:
    """The project's version, written once: in CMakeLists.txt's project()."""
    with open(os.path.join(HERE, "CMakeLists.txt")) as f:
        found = re.search(r"project\(mlprof VERSION ([0-9.]+)", f.read())
    if found is None:
        raise RuntimeError("CMakeLists.txt: no `project(mlprof VERSION x.y.z`")
    return found.group(1)


class BuildWithCMake(build_py):
    """Builds the package's native parts with CMake and copies them beside its Python files."""

    def run(self) -> None:
        # Beside build/ (not inside it), so that ccache, which keys on paths relative to the build
        # folder, finds what that build compiled.
        build = os.environ.get("MLPROF_PIP_BUILD_DIR", os.path.join(HERE, "build-pip"))
        configure = [
            "cmake", "-S", HERE, "-B", build,
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DMLPROF_BUILD_TESTS=OFF", "-DMLPROF_BUILD_BENCH=OFF",
            # Everything the package loads sits in its one folder, the "library folder" of this
            # build, and finds its siblings there through the rpaths an install would have.
            "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON", "-DMLPROF_PYTHON_INSTALL_DIR=.", "-DCMAKE_INSTALL_LIBDIR=mlprof",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        if not os.path.isdir(os.path.join(HERE, "ui", "node_modules")):
            configure.append("-DMLPROF_WITH_UI=OFF")  # offline: no npm packages to build the web UI with
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build, "--target", "mlprof_python", "mlprof_cli"])
        super().run()
        package = os.path.join(self.build_lib, "mlprof")
        os.makedirs(os.path.join(package, "_bin"), exist_ok=True)
        built = os.path.join(build, "python", "mlprof")
        for name in os.listdir(built):
            if name.endswith(".so") or name == "_version.py":
                shutil.copy2(os.path.join(built, name), package)
        libraries = {
            "libmlprof.so.0": os.path.join(build, "src", "capture", "libmlprof.so.0"),
            "libmlprof_torch.so": os.path.join(build, "src", "capture", "torch", "libmlprof_torch.so"),
            "libmlprof_rpc.so": os.path.join(build, "src", "rpc", "libmlprof_rpc.so"),
        }
        for name, path in libraries.items():
            if os.path.exists(path):
                shutil.copyfile(os.path.realpath(path), os.path.join(package, name))
        command = os.path.join(package, "_bin", "mlprof")
        shutil.copyfile(os.path.join(build, "src", "cli", "mlprof"), command)
        os.chmod(command, 0o755)


setup(
    name="mlprof",
    version=version(),
    description="Profiler for ML training and inference, with the TensorFlow profiler's API",
    python_requires=">=3.9",
    packages=["mlprof"],
    package_dir={"mlprof": "src/python/mlprof"},
    package_data={"mlprof": ["py.typed", "_mlprof.pyi"]},
    entry_points={"console_scripts": ["mlprof = mlprof._command:main"]},
    cmdclass={"build_py": BuildWithCMake},
    zip_safe=False,
)
