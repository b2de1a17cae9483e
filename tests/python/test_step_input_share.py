"""The documented training loops (README "Profile from Python") report the time a DataLoader keeps
the step waiting: a dataset that sleeps a known time per batch, num_workers=0, so the loop waits
for every batch. Expected values come from outside mlprof: the sleep, and the loop's own clock
(time.perf_counter around each fetch and each iteration), which mlprof's input share must match
within 3 points."""
from __future__ import annotations

import time
import unittest
from typing import Dict, List

import torch
from torch.utils.data import DataLoader, Dataset

import mlprof
from support import ScratchTest, report

SLEEP_S = 0.02     # the dataset's wait per batch (long beside scheduling delays on a busy machine)
COMPUTE_S = 0.02   # the step's own work after the fetch: about half of each step is input
STEPS = 16


class SleepyDataset(Dataset):
    def __len__(self) -> int:
        return STEPS

    def __getitem__(self, i: int) -> torch.Tensor:
        time.sleep(SLEEP_S)
        return torch.full((64,), float(i))


def compute(x: torch.Tensor) -> None:
    (x * 2).sum()
    time.sleep(COMPUTE_S)


class StepInputShareTest(ScratchTest):
    def check(self, logdir: str, clock: List[Dict[str, float]]) -> None:
        overview = report(logdir, "overview_page")
        reported = [s["step"] for s in overview["steps"]]
        self.assertGreaterEqual(len(reported), STEPS - 3, reported)
        chosen = [clock[s] for s in reported]
        self.assertTrue(all(c["wait_s"] >= SLEEP_S for c in chosen))  # the fetch waited for the dataset's sleep
        expected = 100 * sum(c["wait_s"] for c in chosen) / sum(c["total_s"] for c in chosen)
        self.assertAlmostEqual(expected, 100 * SLEEP_S / (SLEEP_S + COMPUTE_S), delta=10)  # about half
        self.assertAlmostEqual(overview["input_bound"]["input_pct"], expected, delta=3.0)

    def test_the_steps_helper(self) -> None:
        logdir = self.path("logs")
        loader = DataLoader(SleepyDataset(), batch_size=1, num_workers=0)
        clock: List[Dict[str, float]] = []
        with mlprof.Profile(logdir):
            last = time.perf_counter()
            for step, x in mlprof.steps(loader):
                got = time.perf_counter()
                compute(x)
                done = time.perf_counter()
                clock.append({"wait_s": got - last, "total_s": done - last})
                last = done
        self.assertEqual(len(clock), STEPS)
        self.check(logdir, clock)

    def test_tensorflow_style_fetch_inside_the_step(self) -> None:
        logdir = self.path("logs")
        batches = iter(DataLoader(SleepyDataset(), batch_size=1, num_workers=0))
        clock: List[Dict[str, float]] = []
        with mlprof.Profile(logdir):
            for step in range(STEPS):
                with mlprof.StepTrace("train", step):  # Trace("train", step_num=step, _r=1)
                    begin = time.perf_counter()
                    x = next(batches)
                    got = time.perf_counter()
                    compute(x)
                    clock.append({"wait_s": got - begin, "total_s": time.perf_counter() - begin})
        self.check(logdir, clock)


if __name__ == "__main__":
    unittest.main()
