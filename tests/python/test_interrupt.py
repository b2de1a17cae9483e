"""A profiled Python program interrupted (Ctrl-C's SIGINT, a scheduler's SIGTERM): the run is
written, and the program ends as it would have without mlprof: Python raises KeyboardInterrupt,
which the script sees, and the process ends by the signal (exit status 130 or 143 in a shell).
The same with `mlprof run`, which passes the signal on to the program and ends as it did.

Expected values come from the scripts: they trace a known number of events before saying
"ready", and print what they catch."""
from __future__ import annotations

import os
import signal
import subprocess
import unittest
from typing import Dict, List, Sequence, Tuple

from support import MLPROF, PYTHON, ScratchTest, chrome_events, python_env, run_dirs, xplane_files

# Traces 100 "before_signal" events (around `work`), says "ready", then loops until a signal;
# says what it caught.
WITH_MLPROF_START = """
import sys, time
{imports}
import mlprof
mlprof.start(sys.argv[1])
for i in range(100):
    with mlprof.Trace("before_signal"):
        {work}
try:
    print("ready", flush=True)
    while True:
        {work}
        time.sleep(0.001)
except KeyboardInterrupt:
    print("caught KeyboardInterrupt", flush=True)
    raise
"""

# Knows nothing of mlprof: `mlprof run` profiles it.
WITHOUT_MLPROF = """
import time
import torch
x = torch.ones(16, 16)
for i in range(20):
    x = torch.mm(x, x) / 16
try:
    print("ready", flush=True)
    while True:
        x = torch.mm(x, x) / 16
        time.sleep(0.001)
except KeyboardInterrupt:
    print("caught KeyboardInterrupt", flush=True)
    raise
"""


class InterruptTest(ScratchTest):
    def interrupt(self, args: Sequence[str], sig: int) -> Tuple[int, str, str]:
        """Runs args until it says "ready", sends `sig`, and returns its status, stdout and stderr."""
        child = subprocess.Popen(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=python_env())
        try:
            first = child.stdout.readline()  # type: ignore[union-attr]
            self.assertEqual(first, "ready\n", child.stderr.read() if first == "" else first)  # type: ignore
            child.send_signal(sig)
            out, err = child.communicate(timeout=120)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        return child.returncode, first + out, err

    def counts(self, logdir: str) -> Dict[str, int]:
        files = xplane_files(logdir)
        self.assertEqual(len(files), 1, files)
        counts: Dict[str, int] = {}
        for e in chrome_events(run_dirs(logdir)[0], self.dir):
            counts[e["name"]] = counts.get(e["name"], 0) + 1
        return counts

    def check_start(self, sig: int, imports: str = "", work: str = "pass") -> Dict[str, int]:
        script = self.write_script("script.py", WITH_MLPROF_START.format(imports=imports, work=work))
        logdir = self.path("logs")
        status, out, err = self.interrupt([PYTHON, script, logdir], sig)
        self.assertEqual(status, -sig, err)  # ended by the signal, as without mlprof
        if sig == signal.SIGINT:
            self.assertIn("caught KeyboardInterrupt", out)
            self.assertIn("KeyboardInterrupt", err)
        self.assertIn("during a profiling session: wrote", err)
        counts = self.counts(logdir)
        self.assertEqual(counts.get("before_signal"), 100, counts)
        return counts

    def test_sigint_to_a_script_that_called_start(self) -> None:
        self.check_start(signal.SIGINT)

    def test_sigterm_to_a_script_that_called_start(self) -> None:
        self.check_start(signal.SIGTERM)

    def test_sigint_to_a_torch_script_that_called_start(self) -> None:
        counts = self.check_start(signal.SIGINT, imports="import torch", work="torch.mm(torch.ones(8, 8), torch.ones(8, 8))")
        self.assertGreaterEqual(counts.get("aten::mm", 0), 100, counts)

    def check_run(self, sig: int) -> None:
        script = self.write_script("train.py", WITHOUT_MLPROF)
        logdir = self.path("logs")
        status, out, err = self.interrupt([MLPROF, "run", "--logdir", logdir, "--", PYTHON, script], sig)
        self.assertEqual(status, -sig, err)  # mlprof run ends as the program did
        if sig == signal.SIGINT:
            self.assertIn("caught KeyboardInterrupt", out)
        self.assertIn(f"mlprof run: read the profile with: mlprof report {run_dirs(logdir)[0]}\n", err)
        counts = self.counts(logdir)
        self.assertGreaterEqual(counts.get("aten::mm", 0), 20, counts)

    def test_sigint_to_mlprof_run(self) -> None:
        self.check_run(signal.SIGINT)

    def test_sigterm_to_mlprof_run(self) -> None:
        self.check_run(signal.SIGTERM)


if __name__ == "__main__":
    unittest.main()
