"""The critical path across the ranks of a torch.distributed job on the CPU (gloo).

The gloo job of test_gloo_stragglers.py: one rank does extra work (a sleep inside
`record_function("extra_work")`) before each all_reduce, and measures how long it took. Read
together, the other rank's critical path must show it waiting for that rank
(`waiting_for_rank`) about as long as the extra work (within 20 %), and the what-if
`extra_work=0` must predict the step of the same job run without the extra work: measured by
running it, the prediction's error within 20 % of the time the extra work took.
"""
from __future__ import annotations

import glob
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from support import MLPROF, PYTHON, ScratchTest, run  # noqa: E402
from test_gloo_stragglers import JOB, free_port, rank_of  # noqa: E402

EXTRA_S = 0.05
STEPS = 6
SLOW = 1


class CriticalPathRanks(ScratchTest):
    def job(self, name: str, extra_s: float) -> tuple[str, list[float]]:
        script = self.path("job.py")
        if not os.path.exists(script):
            self.write_script("job.py", JOB)
        out = self.path(name)
        os.makedirs(out)
        run([PYTHON, script, "2", str(free_port()), out, str(SLOW), str(extra_s), str(STEPS)], timeout=600)
        with open(os.path.join(out, "extra_work_s.json")) as f:
            extra = json.load(f)
        os.remove(os.path.join(out, "extra_work_s.json"))
        self.assertEqual(len(glob.glob(os.path.join(out, "*.pt.trace.json"))), 2)
        return out, extra

    def critical_path(self, traces: str, *what_if: str) -> dict:
        args = [MLPROF, "report", traces, "--tool", "critical_path", "--format", "json"]
        for w in what_if:
            args += ["--what-if", w]
        return json.loads(run(args).stdout)

    def test_fast_rank_waits_for_the_slow_one_and_the_what_if_predicts_the_job_without(self) -> None:
        with_extra, extra = self.job("with", EXTRA_S)
        extra_ms = sum(extra) / len(extra) * 1e3
        path = self.critical_path(with_extra, "extra_work=0")
        fast = [s for s in path["steps"] if rank_of(s["host"]) != f"rank{SLOW}"]
        self.assertEqual(len(fast), STEPS, path["steps"])
        waiting = sum(s["kind_ms"]["waiting_for_rank"] for s in fast) / len(fast)
        self.assertAlmostEqual(waiting, extra_ms, delta=0.2 * extra_ms,
                               msg=f"waiting for the slow rank {waiting:.1f} ms, its extra work {extra_ms:.1f} ms")
        slow = [s for s in path["steps"] if rank_of(s["host"]) == f"rank{SLOW}"]
        self.assertLess(sum(s["kind_ms"]["waiting_for_rank"] for s in slow) / len(slow), 0.2 * extra_ms)

        predicted = path["what_if"][0]["step_ms"]
        without, _ = self.job("without", 0.0)
        measured = self.critical_path(without)["average"]["step_ms"]
        self.assertLess(predicted, path["average"]["step_ms"] - 0.5 * extra_ms)
        self.assertAlmostEqual(predicted, measured, delta=0.2 * extra_ms,
                               msg=f"predicted {predicted:.1f} ms a step without the extra work, measured {measured:.1f} ms")


if __name__ == "__main__":
    try:
        import torch.distributed  # noqa: F401
    except ImportError:
        print("skipped: torch.distributed is not installed")
        sys.exit(0)
    unittest.main()
