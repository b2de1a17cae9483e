"""`mlprof run --python-tracer-level 1 -- python3 script.py`: the Python calls of a program that
imports mlprof (and starts no session of its own) are recorded in the run `mlprof run` started,
named "$script.py:LINE function" as mlprof.start(python_tracer_level=1) names them. Without the
option, no Python call is recorded.

Expected values come from the script: it calls its function a known number of times, at a
known line."""
from __future__ import annotations

import unittest

from support import MLPROF, PYTHON, ScratchTest, chrome_events, run, run_dirs

SCRIPT = """\
import mlprof


def known_python_function(n):
    return sum(range(n))


for _ in range(7):
    known_python_function(1000)
"""
FRAME = "$script.py:4 known_python_function"  # the line of its `def`


class RunPythonTracerTest(ScratchTest):
    def python_calls(self, *options: str) -> list:
        script = self.write_script("script.py", SCRIPT)
        logdir = self.path("logs")
        run([MLPROF, "run", "--logdir", logdir, *options, "--", PYTHON, script])
        runs = run_dirs(logdir)
        self.assertEqual(len(runs), 1, runs)
        return [e["name"] for e in chrome_events(runs[0], self.dir) if e["name"].startswith("$")]

    def test_the_level_reaches_the_program(self) -> None:
        calls = self.python_calls("--python-tracer-level", "1")
        self.assertEqual(calls.count(FRAME), 7, sorted(set(calls))[:20])

    def test_without_it_no_python_call_is_recorded(self) -> None:
        self.assertEqual(self.python_calls(), [])


if __name__ == "__main__":
    unittest.main()
