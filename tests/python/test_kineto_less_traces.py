"""PyTorch traces without Kineto (docs/ARCHITECTURE.md §3.6): Debian's PyTorch 1.13 is built without
Kineto, and its torch.profiler and torch.autograd.profiler write the Chrome trace's array form
("[{"name": ..., "pid": "CPU functions", ...}, ...]"), with no cat, no baseTimeNanoseconds and
no ProfilerStep. The test has that PyTorch write one, then every tool reads it, as the object
form without Kineto's fields ({"traceEvents": [...]}) too. Expected op names and counts are
PyTorch's own (key_averages() of the same profiler)."""
from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import unittest

from support import MLPROF, PYTHON, ScratchTest, report, run

WRITER = """
import json, sys, torch
import torch.profiler as tp
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 32)
assert not torch.autograd.kineto_available()  # the build these traces come from
with tp.profile(activities=[tp.ProfilerActivity.CPU]) as prof:
    for _ in range(3):
        with tp.record_function("train_block"):
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
prof.export_chrome_trace(sys.argv[1])
with torch.autograd.profiler.profile() as legacy:
    model(x).sum().backward()
legacy.export_chrome_trace(sys.argv[2])
counts = {e.key: e.count for e in prof.key_averages()}
totals = {e.key: e.cpu_time_total for e in prof.key_averages()}
json.dump({"counts": counts, "totals_us": totals}, open(sys.argv[3], "w"))
"""


def every_tool(path: str) -> list:
    """The tool ids the command knows: an unknown one is a usage error that lists them all."""
    done = run([MLPROF, "report", path, "--tool", "no_such_tool"], check=False)
    match = re.search(r"\(tools: ([a-z_, ]+)\)", done.stderr)
    assert done.returncode != 0 and match, done.stderr
    tools = [t.strip() for t in match.group(1).split(",")]
    assert "framework_op_stats" in tools and "memory_profile" in tools, tools
    return tools


class KinetoLessTraceTest(ScratchTest):
    @classmethod
    def setUpClass(cls) -> None:
        # One PyTorch run writes the traces all the tests read.
        cls._traces = tempfile.TemporaryDirectory(prefix="mlprof-py-traces-")
        folder = cls._traces.name
        script = os.path.join(folder, "write_trace.py")
        with open(script, "w") as f:
            f.write(WRITER)
        cls.array_form, cls.legacy, expected = (os.path.join(folder, n) for n in
                                                ("torch_profiler.json", "autograd.json", "expected.json"))
        run([PYTHON, script, cls.array_form, cls.legacy, expected])
        with open(expected) as f:
            cls.expected = json.load(f)
        with open(cls.array_form) as f:
            cls.events = json.load(f)

    @classmethod
    def tearDownClass(cls) -> None:
        cls._traces.cleanup()

    def test_debian_torch_writes_the_array_form(self) -> None:
        self.assertIsInstance(self.events, list)
        self.assertEqual({e["pid"] for e in self.events}, {"CPU functions"})
        self.assertFalse(any("cat" in e for e in self.events))

    def check_every_tool(self, path: str) -> None:
        for tool in every_tool(path):
            with self.subTest(tool=tool, path=os.path.basename(path)):
                report(path, tool)
                run([MLPROF, "report", path, "--tool", tool])
        run([MLPROF, "info", path])
        for to, name in (("xplane", "out.xplane.pb"), ("chrome", "out.json"), ("perfetto", "out.perfetto-trace")):
            run([MLPROF, "convert", path, "--to", to, "-o", self.path(name)])
        run([MLPROF, "info", self.path("out.xplane.pb")])

    def check_ops_match_pytorch(self, path: str) -> None:
        ops = {row["operation"]: row for row in report(path, "framework_op_stats")["ops"]}
        for name, count in self.expected["counts"].items():
            with self.subTest(op=name):
                self.assertIn(name, ops)
                self.assertEqual(ops[name]["occurrences"], count)
                # The file rounds each event to whole microseconds.
                total_us = self.expected["totals_us"][name]
                self.assertAlmostEqual(ops[name]["total_time_ms"] * 1000, total_us, delta=max(0.02 * total_us, count))
        self.assertEqual(set(ops), set(self.expected["counts"]))

    def test_array_form_is_read_by_every_tool(self) -> None:
        self.check_ops_match_pytorch(self.array_form)
        self.check_every_tool(self.array_form)
        self.check_every_tool(self.legacy)

    def test_object_form_without_kineto_fields_and_gzip(self) -> None:
        object_form = self.path("object_form.json")
        with open(object_form, "w") as f:
            json.dump({"traceEvents": self.events}, f)
        gzipped = self.path("array_form.json.gz")
        with open(self.array_form, "rb") as f, gzip.open(gzipped, "wb") as g:
            g.write(f.read())
        for path in (object_form, gzipped):
            self.check_ops_match_pytorch(path)
        self.check_every_tool(object_form)
        run([MLPROF, "diff", self.array_form, object_form])


if __name__ == "__main__":
    unittest.main()
