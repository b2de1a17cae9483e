"""Stragglers of a torch.distributed job on the CPU (gloo), read from its torch.profiler traces.

One chosen rank does extra work (a sleep inside `record_function("extra_work")`) before each
all_reduce; the program itself measures how long that work took. `mlprof report --tool
stragglers` must name that rank, find it late at gloo:all_reduce by that time (within 20 %),
and give the extra work as the cause, for 2, 4 and 8 ranks.
"""
from __future__ import annotations

import glob
import json
import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from support import MLPROF, PYTHON, ScratchTest, run  # noqa: E402

EXTRA_S = 0.05  # the slow rank's extra work before each all_reduce
STEPS = 4       # profiled steps (after one to wait and one to warm up)

JOB = r'''
import json, os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

def rank_main(rank, world, port, out, slow, extra_s, steps):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    grads = torch.ones(4096)
    weights = torch.randn(64, 64)
    extra = []
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=steps),
                 on_trace_ready=tensorboard_trace_handler(out, worker_name=f"rank{rank}")) as prof:
        for step in range(steps + 2):
            torch.mm(weights, weights)
            if rank == slow:
                start = time.perf_counter()
                with record_function("extra_work"):
                    time.sleep(extra_s)
                if step >= 2:
                    extra.append(time.perf_counter() - start)
            dist.all_reduce(grads)
            prof.step()
    dist.destroy_process_group()
    if rank == slow:
        with open(os.path.join(out, "extra_work_s.json"), "w") as f:
            json.dump(extra, f)

if __name__ == "__main__":
    world, port, out, slow, extra_s, steps = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    mp.spawn(rank_main, args=(world, port, out, slow, extra_s, steps), nprocs=world)
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_of(host: str) -> str:
    """"rank1" from "rank 1" (a trace that records its rank) or "rank1.1795844602081" (a file name)."""
    return host.split(".")[0].replace(" ", "")


class GlooStragglerChecks:
    """What a traced gloo job with a slow rank must show, however it was traced: `job` runs it
    and returns the stragglers' JSON and the slow rank's measured extra work per step (ms), and
    sets `collectives` to the collectives tool's JSON."""

    rank_of = staticmethod(rank_of)
    collectives: dict
    # Whether the trace holds exactly the profiled steps' calls (torch.profiler's schedule);
    # a whole-program trace also holds the warm-up steps'.
    only_profiled_steps = True

    def check_collectives(self, world: int, slow: int, extra_ms: float) -> None:
        """Every rank calls all_reduce once per profiled step; the others wait in it for the slow rank."""
        rows = self.collectives["rows"]
        self.assertEqual(sorted(self.rank_of(r["host"]) for r in rows), sorted(f"rank{r}" for r in range(world)), rows)
        for r in rows:
            self.assertEqual((r["collective"], r["timed_on"]), ("all_reduce", "host"), r)
            (self.assertEqual if self.only_profiled_steps else self.assertGreaterEqual)(r["count"], STEPS, r)
            if self.rank_of(r["host"]) != f"rank{slow}":
                self.assertGreater(r["mean_ms"], 0.8 * extra_ms, r)
        # Each rank's wait share: the others wait out the slow rank's extra work; it waits least.
        ranks = {self.rank_of(r["host"]): r for r in self.collectives["ranks"]}
        self.assertEqual(sorted(ranks), sorted(f"rank{r}" for r in range(world)), self.collectives["ranks"])
        slow_share = ranks[f"rank{slow}"]["wait_share_pct"]
        for name, r in ranks.items():
            if name == f"rank{slow}":
                self.assertLess(r["wait_ms"], 0.2 * extra_ms, r)
            else:
                self.assertAlmostEqual(r["wait_ms"], extra_ms, delta=0.2 * extra_ms, msg=str(r))
                # Not a fixed share: on a loaded machine gloo's own transfer time grows with the
                # number of ranks per core, and the wait is then a smaller part of the call.
                self.assertGreater(r["wait_share_pct"], slow_share + 10, (r, slow_share))

    def check(self, world: int, slow: int) -> None:
        result, extra_ms = self.job(world, slow)
        self.check_collectives(world, slow, extra_ms)
        straggler = result["straggler"]
        self.assertIsNotNone(straggler, json.dumps(result)[:2000])
        self.assertEqual(self.rank_of(straggler), f"rank{slow}", (straggler, result["summary"]))
        self.assertEqual(result["late_at"], "gloo:all_reduce")
        self.assertGreaterEqual(result["matched_calls"], STEPS)
        late = result["late_ms"]
        self.assertAlmostEqual(late, extra_ms, delta=0.2 * extra_ms,
                               msg=f"late {late:.1f} ms, extra work {extra_ms:.1f} ms: {result['summary']}")
        causes = {c["name"]: c["excess_ms"] for c in result["causes"]}
        self.assertIn("extra_work", causes, result["summary"])
        self.assertAlmostEqual(causes["extra_work"], extra_ms, delta=0.2 * extra_ms, msg=result["summary"])
        # The sentence a user reads names the rank, the call and the cause.
        self.assertIn("arrives", result["summary"])
        self.assertIn("extra_work", result["summary"])


class GlooStragglers(GlooStragglerChecks, ScratchTest):
    def job(self, world: int, slow: int) -> tuple[dict, float]:
        script = self.write_script("job.py", JOB)
        out = self.path("traces")
        os.makedirs(out)
        run([PYTHON, script, str(world), str(free_port()), out, str(slow), str(EXTRA_S), str(STEPS)], timeout=600)
        traces = glob.glob(os.path.join(out, "*.pt.trace.json"))
        self.assertEqual(len(traces), world, traces)
        with open(os.path.join(out, "extra_work_s.json")) as f:
            extra = json.load(f)
        self.assertEqual(len(extra), STEPS)
        # The traces' folder, without the program's own file.
        os.remove(os.path.join(out, "extra_work_s.json"))
        done = run([MLPROF, "report", out, "--tool", "stragglers", "--format", "json"])
        self.collectives = json.loads(run([MLPROF, "report", out, "--tool", "collectives", "--format", "json"]).stdout)
        return json.loads(done.stdout), sum(extra) / len(extra) * 1e3

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
