"""`make install` puts the package where Debian's python3 finds it, and the installed package
works on its own: it loads the installed libmlprof, and the installed LibTorch integration
once torch is imported. `pip install .` (offline, with the system's pip and setuptools) installs
it into a plain venv, with `__version__` and the `mlprof` command on the venv's PATH."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import unittest

from support import PYTHON, ScratchTest, run

BUILD = os.environ.get("MLPROF_BINARY_DIR", "")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """
import sys, torch, mlprof
assert mlprof.__file__.startswith(sys.argv[2]), mlprof.__file__
model = torch.nn.Linear(8, 2)
with mlprof.Profile(sys.argv[1]) as p:
    model(torch.randn(4, 8)).sum().backward()
print(p.run_dir)
"""


def cache_value(name: str) -> str:
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(rf"{name}:[A-Z]+=(.*)", line.strip())
            if m:
                return m.group(1)
    raise AssertionError(f"{name} is not in the CMake cache")


@unittest.skipUnless(BUILD, "MLPROF_BINARY_DIR (the build folder) is not set")
class InstallTest(ScratchTest):
    def test_install_dir_is_on_debian_python_path(self) -> None:
        prefix, folder = cache_value("CMAKE_INSTALL_PREFIX"), cache_value("MLPROF_PYTHON_INSTALL_DIR")
        path = subprocess.run([PYTHON, "-c", "import sys; print('\\n'.join(sys.path))"], capture_output=True,
                              text=True, env={"PATH": os.environ.get("PATH", "")}).stdout.split()
        self.assertIn(os.path.join(prefix, folder), path)

    def test_installed_package_profiles_torch(self) -> None:
        prefix = self.path("prefix")
        run(["cmake", "--install", BUILD, "--prefix", prefix])
        site = os.path.join(prefix, cache_value("MLPROF_PYTHON_INSTALL_DIR"))
        script = self.write_script("train.py", SCRIPT)
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": site}
        run_dir = run([PYTHON, script, self.path("logs"), site], env=env).stdout.strip()
        info = run([os.path.join(prefix, "bin", "mlprof"), "report", run_dir, "--tool", "framework_op_stats"],
                   env=env).stdout
        self.assertIn("aten::addmm", info)

    def test_pip_installs_into_a_plain_venv(self) -> None:
        venv = self.path("venv")
        run([PYTHON, "-m", "venv", venv])
        # The CMake build folder is kept beside the build tree (at its depth, for ccache's hits):
        # a later run rebuilds what changed.
        env = {"PATH": os.environ.get("PATH", ""), "MLPROF_PIP_BUILD_DIR": BUILD.rstrip("/") + "-pip"}
        run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index", SOURCE], env=env,
            timeout=900)
        env = {"PATH": os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", "")}
        version = run([os.path.join(venv, "bin", "python"), "-c", "import mlprof; print(mlprof.__version__, mlprof.__file__)"],
                      env=env).stdout.split()
        self.assertEqual(version[0], cache_value("CMAKE_PROJECT_VERSION"))
        self.assertTrue(version[1].startswith(venv), version)
        # The command on the venv's PATH profiles a torch script with no code change (run by the
        # system's python3, which has torch; the plain venv has not).
        script = self.write_script("plain.py", "import torch\ntorch.nn.Linear(8, 2)(torch.randn(4, 8)).sum().backward()\n")
        logs = self.path("pip-logs")
        run(["mlprof", "run", "--logdir", logs, "--", PYTHON, script], env=env)
        ops = run(["mlprof", "report", logs, "--tool", "framework_op_stats"], env=env).stdout
        self.assertIn("aten::addmm", ops)


if __name__ == "__main__":
    unittest.main()
