"""A data-parallel training job on the CPU with torch.distributed (gloo), one process per rank,
profiled by torch.profiler: each rank writes its trace into one folder, which `mlprof report
FOLDER --tool stragglers` (or pod_viewer) reads as one run with a host per rank.

With --slow-rank R, rank R does extra work (--extra-ms) before each all_reduce, as a rank with a
bigger data shard or a busier host would: the other ranks wait for it in the all_reduce, and
mlprof names it, how late it arrives, and what it did meanwhile.

    python3 examples/python_distributed/train_gloo.py --out traces --ranks 4 --slow-rank 2
    mlprof report traces --tool stragglers
"""
import argparse
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler


def train(rank: int, args: argparse.Namespace, port: int) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(64, 256)
    labels = torch.randint(0, 10, (64,))
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=args.steps),
                 on_trace_ready=tensorboard_trace_handler(args.out, worker_name=f"rank{rank}")) as prof:
        for _ in range(args.steps + 2):
            loss = torch.nn.functional.cross_entropy(model(data), labels)
            optimizer.zero_grad()
            loss.backward()
            if rank == args.slow_rank:
                with record_function("extra_work"):
                    time.sleep(args.extra_ms / 1000)
            for p in model.parameters():  # average the gradients over the ranks
                dist.all_reduce(p.grad)
                p.grad /= args.ranks
            optimizer.step()
            prof.step()
    dist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the folder the ranks write their traces into")
    parser.add_argument("--ranks", type=int, default=4, help="processes (ranks) of the job")
    parser.add_argument("--steps", type=int, default=5, help="training steps profiled")
    parser.add_argument("--slow-rank", type=int, default=-1, help="the rank that does extra work (-1: none)")
    parser.add_argument("--extra-ms", type=float, default=30, help="its extra work before each all_reduce, in ms")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.makedirs(args.out, exist_ok=True)
    mp.spawn(train, args=(args, port), nprocs=args.ranks)


if __name__ == "__main__":
    main()
