"""The `mlprof` command of an installed package (pip): runs the mlprof binary installed inside
the package, and has `mlprof run` preload the LibTorch integration installed beside it."""
from __future__ import annotations

import os
import sys


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    binary = os.path.join(here, "_bin", "mlprof")
    if not os.path.exists(binary):
        sys.exit(f"mlprof: {binary}: not installed (this package was not installed by pip)")
    for library in ("libmlprof_torch.so", "libmlprof.so.0"):
        path = os.path.join(here, library)
        if os.path.exists(path):
            os.environ.setdefault("MLPROF_PRELOAD_LIBRARY", path)
            break
    os.execv(binary, [binary, *sys.argv[1:]])
