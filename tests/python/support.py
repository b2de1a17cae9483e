"""What the Python tests share: the mlprof command, scratch folders, scripts they write."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from typing import Any, Callable, Dict, List, Sequence

MLPROF = os.environ.get("MLPROF_CLI", "mlprof")
PYTHON = sys.executable  # Debian's /usr/bin/python3, as ctest runs these files
TIMEOUT_S = 120


class ScratchTest(unittest.TestCase):
    """A test with its own scratch folder, removed afterwards."""

    def setUp(self) -> None:
        self._scratch = tempfile.TemporaryDirectory(prefix="mlprof-py-")
        self.dir = self._scratch.name

    def tearDown(self) -> None:
        self._scratch.cleanup()

    def path(self, *parts: str) -> str:
        return os.path.join(self.dir, *parts)

    def write_script(self, name: str, text: str) -> str:
        path = self.path(name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path


def python_env() -> Dict[str, str]:
    """The environment a script needs to import the mlprof package from the build tree."""
    return dict(os.environ)


def run(args: Sequence[str], env: Dict[str, str] | None = None, timeout: float = TIMEOUT_S,
        check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(list(args), capture_output=True, text=True, env=env or python_env(), timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def report(path: str, tool: str, *extra: str) -> Any:
    return json.loads(run([MLPROF, "report", path, "--tool", tool, "--format", "json", *extra]).stdout)


def run_dirs(logdir: str) -> List[str]:
    return sorted(glob.glob(os.path.join(logdir, "plugins", "profile", "*")))


def xplane_files(logdir: str) -> List[str]:
    return sorted(glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb")))


def chrome_events(profile: str, scratch: str) -> List[Dict[str, Any]]:
    """The profile's events as `mlprof convert --to chrome` writes them (complete events only)."""
    out = os.path.join(scratch, "converted.json")
    run([MLPROF, "convert", profile, "--to", "chrome", "-o", out])
    with open(out) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]


def op_rows(stats: Any) -> Dict[str, Any]:
    """framework_op_stats rows by op name."""
    return {row["name"]: row for row in stats["rows"]}


def recorded_events(test: ScratchTest, body: Callable[[], None]) -> List[Dict[str, Any]]:
    """The Chrome trace events of a session of this process around `body`."""
    import mlprof  # the package under test: only tests that profile in their own process need it

    mlprof.start(test.path("logs"))
    try:
        body()
    finally:
        run_dir = mlprof.stop()
    return chrome_events(run_dir, test.dir)


def one_line(error: BaseException) -> str:
    """The error's message, which must be one line."""
    text = str(error)
    assert "\n" not in text, text
    return text
