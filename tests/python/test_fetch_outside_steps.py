"""The natural PyTorch loop, `for x in loader: ...; prof.step()`, fetches each batch before its
ProfilerStep#N opens: the DataLoader's wait lies outside every step. The overview says how much of
the time it is. Expected values come from outside mlprof: the dataset's sleep, and the loop's own
clock (time.perf_counter around each fetch and each iteration)."""
from __future__ import annotations

import re
import time
import unittest

import torch
from torch.utils.data import DataLoader, Dataset

import mlprof
from support import ScratchTest, report

SLEEP_S = 0.040    # the dataset's wait per batch
COMPUTE_S = 0.010  # the step's own work: about 80 % of the loop is the fetch
STEPS = 12


class SleepyDataset(Dataset):
    def __len__(self) -> int:
        return STEPS

    def __getitem__(self, i: int) -> torch.Tensor:
        time.sleep(SLEEP_S)
        return torch.full((64,), float(i))


def share_told(test: unittest.TestCase, overview: dict) -> float:
    """The share of the time the overview says is in enumerate(DataLoader) outside every step."""
    texts = [r["text"] for r in overview["recommendations"]]
    told = [r for r in texts if "outside every step" in r]
    test.assertEqual(len(told), 1, texts)
    test.assertEqual(told[0], texts[0])  # said first
    return float(re.match(r"(\d+) % of the time is in enumerate\(DataLoader\), outside every step", told[0]).group(1))


class FetchOutsideStepsTest(ScratchTest):
    def test_step_marker_after_the_fetch_is_told(self) -> None:
        """mlprof.StepTrace around the step's work only: the batch is fetched between steps."""
        logdir = self.path("logs")
        loader = DataLoader(SleepyDataset(), batch_size=1, num_workers=0)
        fetch_s = step_s = 0.0
        with mlprof.Profile(logdir):
            last = time.perf_counter()
            for step, x in enumerate(loader):
                got = time.perf_counter()
                with mlprof.StepTrace("train", step):
                    (x * 2).sum()
                    time.sleep(COMPUTE_S)
                done = time.perf_counter()
                fetch_s += got - last
                step_s += done - got
                last = done
        expected = 100 * fetch_s / (fetch_s + step_s)
        self.assertAlmostEqual(expected, 100 * SLEEP_S / (SLEEP_S + COMPUTE_S), delta=10)  # about 80 %
        overview = report(logdir, "overview_page")
        self.assertAlmostEqual(share_told(self, overview), expected, delta=5)

    def test_loop_without_step_markers_gets_steps_from_its_fetches(self) -> None:
        """torch.profiler without Kineto writes no ProfilerStep#N: each fetch begins a step."""
        trace = self.path("loop.pt.trace.json")
        loader = DataLoader(SleepyDataset(), batch_size=1, num_workers=0)
        fetch_s = step_s = 0.0
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            last = time.perf_counter()
            for x in loader:
                got = time.perf_counter()
                (x * 2).sum()
                time.sleep(COMPUTE_S)
                prof.step()
                done = time.perf_counter()
                fetch_s += got - last
                step_s += done - got
                last = done
        prof.export_chrome_trace(trace)
        overview = report(trace, "overview_page")
        summary = overview["summary"]
        if summary["step_marker"] == "ProfilerStep#N":
            self.skipTest("this torch writes ProfilerStep#N: the loop's steps are marked")
        self.assertEqual(summary["step_marker"], "DataLoader fetches")
        self.assertEqual(summary["step_source"], "found from the loop's repeated DataLoader fetches")
        self.assertEqual(summary["steps_found"], STEPS + 1)  # the loader's last call ends the loop
        self.assertIsNotNone(summary["steps_left_out"])
        self.assertAlmostEqual(overview["input_bound"]["input_pct"], 100 * fetch_s / (fetch_s + step_s), delta=5)


if __name__ == "__main__":
    unittest.main()
