"""Traces PyTorch's ATen ops and memory once ``torch`` is imported, without LD_PRELOAD.

The LibTorch integration (libmlprof_torch.so) is loaded into the process as soon as torch's
native library is: at ``import mlprof`` when torch came first, else from an import hook that
sees torch's own submodules being imported after ``torch._C``. Loading it costs nothing
while no session runs; it joins sessions by itself.
"""
from __future__ import annotations

import sys
import warnings
from typing import Optional, Sequence

from . import _mlprof

_loaded = False


def _torch_native_loaded() -> bool:
    return "torch._C" in sys.modules


def load() -> None:
    """Loads the integration once; a warning says why when it cannot be."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    why = _mlprof._load_torch_integration()
    if why:
        warnings.warn(f"mlprof: PyTorch ops are not traced: {why}", RuntimeWarning, stacklevel=3)


def load_if_imported() -> None:
    if not _loaded and _torch_native_loaded():
        load()


class _TorchWatcher:
    """A meta path finder that finds nothing: it only watches for torch's submodules."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target: object = None) -> None:
        # It stays in sys.meta_path once done: the import system is iterating that list now.
        if not _loaded and fullname.startswith("torch.") and _torch_native_loaded():
            load()
        return None

    def invalidate_caches(self) -> None:
        pass


_watcher = _TorchWatcher()


def install() -> None:
    if _torch_native_loaded():
        load()
    elif _watcher not in sys.meta_path:
        sys.meta_path.insert(0, _watcher)
