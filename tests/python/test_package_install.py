"""`make install` puts the package where Debian's python3 finds it, and the installed package
works on its own: it loads the installed libmlprof, and the installed LibTorch integration
once torch is imported."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import unittest

from support import PYTHON, ScratchTest, run

BUILD = os.environ.get("MLPROF_BINARY_DIR", "")

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


if __name__ == "__main__":
    unittest.main()
