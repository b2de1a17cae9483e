"""A PyTorch training script profiled with the mlprof package (what `make demo` runs).

    PYTHONPATH=build/python python3 examples/python_train/train.py --logdir logs --workers 0
    PYTHONPATH=build/python python3 examples/python_train/train.py --logdir logs --workers 4

Its dataset reads each batch from slow storage (a 20 ms wait): with --workers 0 the training
loop waits for every batch and mlprof calls the run input-bound; with loader workers the batches
are read ahead, in parallel, and the wait is gone. `mlprof diff` shows the gain.

Each step is marked by mlprof.steps, which opens the step before its batch is fetched: the wait
for the loader is then inside the step, where the input-bound verdict counts it.
"""
import argparse
import time

import mlprof
import torch
from torch.utils.data import DataLoader, Dataset

BATCH = 32


class SlowStorageDataset(Dataset):
    """Images behind a slow read: the first item of each batch waits for the storage."""

    def __init__(self, batches: int, read_ms: float) -> None:
        self.size = batches * BATCH
        self.read_s = read_ms / 1000

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        if i % BATCH == 0:
            time.sleep(self.read_s)
        return torch.rand(3, 32, 32), i % 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logdir", default="logs")
    parser.add_argument("--run-name", default=None)
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--read-ms", type=float, default=20.0, help="the storage's wait per batch")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 8, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(SlowStorageDataset(args.batches, args.read_ms), batch_size=BATCH, num_workers=args.workers,
                        **({"prefetch_factor": 4, "persistent_workers": True} if args.workers > 0 else {}))

    # Steps 5 to 34: one step per batch, fetch included, after warm-up.
    with mlprof.Profile(args.logdir, run_name=args.run_name, steps=(5, args.batches - 6)) as profile:
        for step, (images, labels) in mlprof.steps(loader):
            with mlprof.Trace("forward", batch=len(images)):
                loss = torch.nn.functional.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print(f"wrote {profile.run_dir}")


if __name__ == "__main__":
    main()
