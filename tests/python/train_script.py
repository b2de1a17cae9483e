"""A small PyTorch training script the tests profile (written to run as a program).

    train_script.py SLEEP_MS WORKERS STEPS OUT_JSON [DEVICE_MS] [--package]

A DataLoader over a dataset that sleeps SLEEP_MS per batch (in its first item) feeds a small
MLP, whose step then waits DEVICE_MS as if for an accelerator (so that loader workers find a
free core on a small machine); the script measures, with its own clock, how long each iteration waited in next() and
how long it took, and writes that to OUT_JSON: the input share that profilers must report.
--package profiles with the mlprof package (mlprof.Profile around the loop, logdir from
TRAIN_LOGDIR) instead of `mlprof run`.
"""
import json
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

SLEEP_S = float(sys.argv[1]) / 1000
WORKERS = int(sys.argv[2])
STEPS = int(sys.argv[3])
OUT = sys.argv[4]
DEVICE_S = float(sys.argv[5]) / 1000 if len(sys.argv) > 5 and sys.argv[5] != "--package" else 0.0
BATCH = 16


class SleepyDataset(Dataset):
    def __len__(self) -> int:
        return STEPS * BATCH

    def __getitem__(self, i: int):
        if i % BATCH == 0:
            time.sleep(SLEEP_S)
        return torch.full((128,), float(i % 7)), torch.ones(1)


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    # Workers load well ahead (prefetch_factor) while the step waits for its device.
    ahead = {"prefetch_factor": 8} if WORKERS > 0 else {}
    loader = DataLoader(SleepyDataset(), batch_size=BATCH, num_workers=WORKERS, **ahead)
    iterations = []
    batches = iter(loader)
    while True:
        begin = time.perf_counter()
        try:
            x, y = next(batches)
        except StopIteration:
            break
        got = time.perf_counter()
        with torch.profiler.record_function("model_forward"):
            loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if DEVICE_S > 0:
            with torch.profiler.record_function("device_wait"):
                time.sleep(DEVICE_S)
        iterations.append({"wait_s": got - begin, "begin_s": begin})
    for k in range(len(iterations) - 1):
        iterations[k]["total_s"] = iterations[k + 1]["begin_s"] - iterations[k]["begin_s"]
    with open(OUT, "w") as f:
        json.dump({"iterations": iterations[:-1], "pid": os.getpid()}, f)


if __name__ == "__main__":
    if "--package" in sys.argv:
        import mlprof
        with mlprof.Profile(os.environ["TRAIN_LOGDIR"]):
            main()
    else:
        main()
