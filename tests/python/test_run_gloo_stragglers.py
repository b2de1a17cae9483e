"""Stragglers of a torch.distributed job on the CPU (gloo), traced by `mlprof run`.

The same job as test_gloo_stragglers.py, without torch.profiler: `mlprof run` traces every
rank (RANK set, so each writes <host>.<rank>.xplane.pb into one run), the steps are marked with
mlprof.StepTrace, and one chosen rank does extra work (a sleep inside
`record_function("extra_work")`) before each all_reduce. The report must name that rank, find
it late at gloo:all_reduce by the measured extra work (within 20 %) and give the extra work as
the cause, for 2, 4 and 8 ranks.
"""
from __future__ import annotations

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from support import MLPROF, PYTHON, ScratchTest, report, run, run_dirs, xplane_files  # noqa: E402
from test_gloo_stragglers import EXTRA_S, STEPS, GlooStragglerChecks, free_port  # noqa: E402

# STEPS + 2 steps, all analysed: the capture cuts none (the checks allow more calls than STEPS).
JOB = r'''
import json, os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp
from torch.profiler import record_function
import mlprof

def rank_main(rank, world, port, out, slow, extra_s, steps):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    grads = torch.ones(4096)
    weights = torch.randn(64, 64)
    extra = []
    for step in range(steps + 2):
        with mlprof.StepTrace("train", step):
            torch.mm(weights, weights)
            if rank == slow:
                start = time.perf_counter()
                with record_function("extra_work"):
                    time.sleep(extra_s)
                extra.append(time.perf_counter() - start)
            dist.all_reduce(grads)
    dist.destroy_process_group()
    if rank == slow:
        with open(os.path.join(out, "extra_work_s.json"), "w") as f:
            json.dump(extra, f)

if __name__ == "__main__":
    world, port, out, slow, extra_s, steps = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    mp.spawn(rank_main, args=(world, port, out, slow, extra_s, steps), nprocs=world)
'''


def rank_of(host: str) -> str:
    """"rank2" from "<host>.2", the file of the process whose RANK was 2 (or "rank 2")."""
    return "rank" + (host.split(" ")[1] if host.startswith("rank ") else host.rsplit(".", 1)[1])


class RunGlooStragglers(GlooStragglerChecks, ScratchTest):
    rank_of = staticmethod(rank_of)
    only_profiled_steps = False

    def job(self, world: int, slow: int) -> tuple[dict, float]:
        script = self.write_script("job.py", JOB)
        logdir, out = self.path("logs"), self.path("out")
        os.makedirs(out)
        run([MLPROF, "run", "--logdir", logdir, "--", PYTHON, script, str(world), str(free_port()), out, str(slow),
             str(EXTRA_S), str(STEPS)], timeout=600)
        runs = run_dirs(logdir)
        self.assertEqual(len(runs), 1, runs)
        self.assertEqual(len(xplane_files(logdir)), world, xplane_files(logdir))
        with open(os.path.join(out, "extra_work_s.json")) as f:
            extra = json.load(f)
        self.assertEqual(len(extra), STEPS + 2)
        self.collectives = report(runs[0], "collectives")
        return report(runs[0], "stragglers"), sum(extra) / len(extra) * 1e3

    def test_two_ranks(self) -> None:
        self.check(2, 1)

    def test_four_ranks(self) -> None:
        self.check(4, 2)

    def test_eight_ranks(self) -> None:
        self.check(8, 5)


if __name__ == "__main__":
    try:
        import torch.distributed  # noqa: F401
    except ImportError:
        print("skipped: torch.distributed is not installed")
        sys.exit(0)
    unittest.main()
