"""`mlprof run` of a job of several processes on one machine writes one run, one file each.

A parent that records nothing starts four ranks (torch.multiprocessing spawn, gloo, a few
all_reduce steps): the run holds <host>.<rank>.xplane.pb for the four ranks and nothing for the
parent, and the pod viewer lists four workers named by the rank each file records. Children that know no rank write files named by
their process id (which they report themselves); torchrun's workers are named by their RANK;
and with MLPROF_LOGDIR set for a launcher that does not load mlprof, its workers still agree on
one run.
"""
from __future__ import annotations

import glob
import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from support import MLPROF, PYTHON, ScratchTest, report, run, run_dirs, xplane_files  # noqa: E402

HOST = socket.gethostname()

# argv: world size, port, "rank" (set RANK as init_process_group's env:// expects) or "pid",
# and a folder where each rank writes its process id.
SPAWN_JOB = r'''
import os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp

def rank_main(rank, world, port, naming, pids):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if naming == "rank":
        os.environ.update(RANK=str(rank), WORLD_SIZE=str(world))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    weights, grads = torch.randn(64, 64), torch.ones(4096)
    for _ in range(4):
        torch.mm(weights, weights)
        dist.all_reduce(grads)
    dist.destroy_process_group()
    with open(os.path.join(pids, str(rank)), "w") as f:
        f.write(str(os.getpid()))
    time.sleep(1.1 * rank)  # each rank's file written in a second of its own: still one run

if __name__ == "__main__":
    world, port, naming, pids = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    mp.spawn(rank_main, args=(world, port, naming, pids), nprocs=world)
'''

# A torchrun worker: RANK and WORLD_SIZE come from the launcher. With MLPROF_TORCH_LIBRARY set,
# the worker loads the integration itself (its launcher has not loaded it).
TORCHRUN_WORKER = r'''
import ctypes, os, time
import torch, torch.distributed as dist
if os.environ.get("MLPROF_TORCH_LIBRARY"):
    ctypes.CDLL(os.environ["MLPROF_TORCH_LIBRARY"])
torch.set_num_threads(1)
dist.init_process_group("gloo")
weights, grads = torch.randn(64, 64), torch.ones(4096)
for _ in range(4):
    torch.mm(weights, weights)
    dist.all_reduce(grads)
dist.destroy_process_group()
time.sleep(1.1 * int(os.environ["RANK"]))  # each rank's file written in a second of its own
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def file_names(logdir: str) -> list:
    return sorted(os.path.basename(f) for f in xplane_files(logdir))


class RunJob(ScratchTest):
    def spawn_job(self, naming: str) -> tuple[str, dict]:
        """Four spawned ranks under `mlprof run`: the logdir, and each rank's process id."""
        script = self.write_script("job.py", SPAWN_JOB)
        logdir, pids = self.path("logs"), self.path("pids")
        os.makedirs(pids)
        done = run([MLPROF, "run", "--logdir", logdir, "--", PYTHON, script, "4", str(free_port()), naming, pids],
                   timeout=300)
        self.assertIn("mlprof run: read the profile with", done.stderr)
        rank_pids = {}
        for rank in range(4):
            with open(os.path.join(pids, str(rank))) as f:
                rank_pids[rank] = int(f.read())
        return logdir, rank_pids

    def test_spawned_ranks_write_one_run_with_a_file_per_rank(self) -> None:
        logdir, _ = self.spawn_job("rank")
        self.assertEqual(len(run_dirs(logdir)), 1, run_dirs(logdir))
        # The parent recorded nothing: no <host>.xplane.pb, no file named by its id.
        self.assertEqual(file_names(logdir), [f"{HOST}.{rank}.xplane.pb" for rank in range(4)])
        pods = report(logdir, "pod_viewer")
        self.assertEqual(pods["worker_count"], 4)
        # Each file records its process's RANK, so the workers are named by rank, the files beside them.
        self.assertEqual(sorted((w["host"], w["file"]) for w in pods["workers"]),
                         [(f"rank {rank}", f"{HOST}.{rank}") for rank in range(4)])
        text = run([MLPROF, "report", logdir, "--tool", "pod_viewer"]).stdout
        self.assertIn("Pod viewer (4 workers)", text)
        # Each file holds its own rank's work: the four all_reduce calls the script makes.
        calls = {row["host"]: row["count"] for row in report(logdir, "collectives")["rows"]
                 if row["collective"] == "all_reduce"}
        self.assertEqual(calls, {f"rank {rank}": 4 for rank in range(4)})

    def test_children_with_no_rank_are_named_by_process_id(self) -> None:
        logdir, pids = self.spawn_job("pid")
        self.assertEqual(len(run_dirs(logdir)), 1, run_dirs(logdir))
        self.assertEqual(file_names(logdir), sorted(f"{HOST}.{pid}.xplane.pb" for pid in pids.values()))

    def torchrun(self, logdir: str, *command: str, env: dict | None = None) -> None:
        script = self.write_script("worker.py", TORCHRUN_WORKER)
        # --redirects/--tee 1: torch 1.13's torchrun on Python 3.11 reads the default "0" as None and fails.
        launcher = [PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                    "--redirects", "1", "--tee", "1", script]
        run([*command, *launcher], env=env, timeout=300)

    def test_torchrun_workers_are_named_by_rank(self) -> None:
        logdir = self.path("logs")
        self.torchrun(logdir, MLPROF, "run", "--logdir", logdir, "--")
        self.assertEqual(len(run_dirs(logdir)), 1, run_dirs(logdir))
        self.assertEqual(file_names(logdir), [f"{HOST}.0.xplane.pb", f"{HOST}.1.xplane.pb"])

    @unittest.skipUnless(os.environ.get("MLPROF_BINARY_DIR"), "MLPROF_BINARY_DIR (the build folder) is not set")
    def test_workers_of_a_launcher_with_mlprof_logdir_share_one_run(self) -> None:
        library = glob.glob(os.path.join(os.environ["MLPROF_BINARY_DIR"], "src", "capture", "torch",
                                         "libmlprof_torch.so"))
        if not library:
            self.skipTest("libmlprof_torch.so is not built")
        logdir = self.path("logs")
        env = dict(os.environ, MLPROF_LOGDIR=logdir, MLPROF_TORCH_LIBRARY=library[0])
        for name in ("MLPROF_RUN_NAME", "MLPROF_RUN_PID", "LD_PRELOAD"):
            env.pop(name, None)
        self.torchrun(logdir, env=env)
        self.assertEqual(len(run_dirs(logdir)), 1, run_dirs(logdir))
        self.assertEqual(file_names(logdir), [f"{HOST}.0.xplane.pb", f"{HOST}.1.xplane.pb"])


if __name__ == "__main__":
    unittest.main()
