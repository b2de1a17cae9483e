"""Scopes the Python tracer must not change, and names kept whole. With python_tracer_level=1 a
torch.profiler.record_function around a 50 ms sleep lasts 50 ms (it begins in its __enter__ and
ends in its __exit__, two Python calls), and so does each step of mlprof.steps around a loop body
of known length (the step a generator's yield leaves open). Scopes PyTorch names
"<kind>#<class>.<method>" keep the part after '#', as torch.profiler writes them.

Expected values come from the script: the sleeps it makes, and PyTorch's own scope names."""
from __future__ import annotations

import unittest
from typing import Any, Dict, List

from support import PYTHON, ScratchTest, chrome_events, report, run, run_dirs

SCRIPT = """
import sys, time
import torch
import mlprof
from torch.utils.data import DataLoader, TensorDataset

logdir, workers = sys.argv[1], int(sys.argv[2])
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(data, batch_size=4, num_workers=workers)
mlprof.start(logdir, python_tracer_level=1)
with torch.profiler.record_function("sleep_50ms"):
    time.sleep(0.05)
for step, (x, y) in mlprof.steps(loader):
    time.sleep(0.02)
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
mlprof.stop()
"""


class PythonTracerScopesTest(ScratchTest):
    def events(self, workers: int) -> List[Dict[str, Any]]:
        script = self.write_script("script.py", SCRIPT)
        logdir = self.path("logs")
        run([PYTHON, script, logdir, str(workers)])
        self.run_dir = run_dirs(logdir)[0]
        return chrome_events(self.run_dir, self.dir)

    def test_scopes_across_python_calls_keep_their_length(self) -> None:
        events = self.events(0)
        sleep = [e for e in events if e["name"] == "sleep_50ms"]
        self.assertEqual(len(sleep), 1, sleep)
        self.assertGreaterEqual(sleep[0]["dur"], 50_000)  # µs
        self.assertLess(sleep[0]["dur"], 500_000)
        steps = [e for e in events if e["name"] == "train"]
        self.assertEqual(len(steps), 4, [e["name"] for e in events if not e["name"].startswith("$")][:50])
        for step in steps:
            self.assertGreaterEqual(step["dur"], 20_000, step)
        # Python frames were traced too, and cut, never the scopes.
        self.assertTrue(any(e["name"].startswith("$") for e in events))

    def test_pytorch_scope_names_are_kept_whole(self) -> None:
        names = {e["name"] for e in self.events(2) if not e["name"].startswith("$")}
        scopes = sorted(n for n in names if not n.startswith("aten::"))
        self.assertIn("Optimizer.step#SGD.step", names, scopes)
        self.assertIn("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", names, scopes)
        # So the input page sees a loop that waits for its two workers, not one that loads in-process.
        categories = report(self.run_dir, "input_pipeline_analyzer")["host_side"]["categories"]
        self.assertEqual(categories["waiting_for_input_from_workers"]["pct"], 100.0, categories)
        self.assertEqual(categories["data_preprocessing"]["pct"], 0.0, categories)


if __name__ == "__main__":
    unittest.main()
