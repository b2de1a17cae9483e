"""The mlprof package in a PyTorch script: ATen ops and memory traced with no LD_PRELOAD
(whether torch is imported before or after mlprof), Python function calls at
python_tracer_level=1, and forked DataLoader workers that record and write nothing."""
from __future__ import annotations

import json
import os
import unittest

from support import PYTHON, ScratchTest, chrome_events, op_rows, report, run, run_dirs, xplane_files

# A tiny training loop; {order} decides whether torch or mlprof is imported first.
SCRIPT = """
import os, sys
{order}
from torch.utils.data import DataLoader, TensorDataset

def train_step(model, optimizer, x, y):
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

def main(logdir, level, python_level, workers):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.randn(64, 16), torch.randn(64, 1))
    with mlprof.Profile(logdir, host_tracer_level=level, python_tracer_level=python_level):
        for step, (x, y) in enumerate(DataLoader(data, batch_size=8, num_workers=workers)):
            with mlprof.StepTrace("train", step):
                with torch.profiler.record_function("labelled_forward"):
                    train_step(model, optimizer, x, y)
    print("pid", os.getpid())

main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
"""
TORCH_FIRST = "import torch\nimport mlprof"
MLPROF_FIRST = "import mlprof\nimport torch"


class PackageTorchTest(ScratchTest):
    def train(self, order: str, level: int = 2, python_level: int = 0, workers: int = 0) -> str:
        script = self.write_script("train.py", SCRIPT.format(order=order))
        logdir = self.path("logs")
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        run([PYTHON, script, logdir, str(level), str(python_level), str(workers)], env=env)
        self.assertEqual(len(xplane_files(logdir)), 1, xplane_files(logdir))
        return run_dirs(logdir)[0]

    def check_ops(self, run_dir: str) -> None:
        ops = {row["operation"]: row for row in report(run_dir, "framework_op_stats")["ops"]}
        for name in ("aten::linear", "aten::addmm", "aten::mse_loss", "labelled_forward"):
            self.assertIn(name, ops)
        self.assertEqual(ops["labelled_forward"]["occurrences"], 8)
        overview = report(run_dir, "overview_page")
        self.assertEqual(overview["summary"]["steps_found"], 8)

    def test_ops_traced_when_torch_is_imported_first(self) -> None:
        self.check_ops(self.train(TORCH_FIRST))

    def test_ops_traced_when_torch_is_imported_after_mlprof(self) -> None:
        self.check_ops(self.train(MLPROF_FIRST))

    def test_memory_at_host_tracer_level_3(self) -> None:
        run_dir = self.train(TORCH_FIRST, level=3)
        text = json.dumps(report(run_dir, "memory_profile"))
        self.assertIn("cpu", text)
        self.assertIn("aten::", text)

    def test_python_tracer_records_function_calls(self) -> None:
        run_dir = self.train(TORCH_FIRST, python_level=1)
        events = chrome_events(run_dir, self.dir)
        steps = [e for e in events if e["name"].startswith("$train.py:") and e["name"].endswith(" train_step")]
        self.assertEqual(len(steps), 8)
        # Its ATen ops run inside it, on the same thread.
        linear = [e for e in events if e["name"] == "aten::linear"]
        self.assertTrue(any(s["tid"] == l["tid"] and s["ts"] <= l["ts"] and l["ts"] + l["dur"] <= s["ts"] + s["dur"]
                            for s in steps for l in linear))
        # Python calls made by torch (nn.Module.__call__ and the like) too.
        self.assertTrue(any("_call_impl" in e["name"] for e in events))

    def test_forked_workers_neither_crash_hang_nor_write(self) -> None:
        run_dir = self.train(TORCH_FIRST, level=3, python_level=1, workers=2)
        self.check_ops(run_dir)

    def test_the_demo_example_script(self) -> None:
        example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python_train", "train.py")
        logdir = self.path("logs")
        run([PYTHON, example, "--logdir", logdir, "--run-name", "example", "--batches", "14", "--read-ms", "5"])
        overview = report(os.path.join(logdir, "plugins", "profile", "example"), "overview_page")
        self.assertEqual(overview["summary"]["step_marker"], "_r")  # mlprof.steps marks them, fetch included
        self.assertGreater(overview["input_bound"]["input_pct"], 10)  # the 5 ms read of every batch


if __name__ == "__main__":
    unittest.main()
