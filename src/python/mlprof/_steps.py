"""mlprof.steps: a training loop whose steps include fetching their batch.

A step marker opened after the batch is fetched (``for step, b in enumerate(loader): with
StepTrace(...)``) leaves the loader's time between steps, where no tool counts it as input. Here
each step opens before its fetch and closes when the next fetch starts, as TensorFlow's guide
writes it by hand (``with Trace("train", step_num=step, _r=1): batch = next(it)``).
"""
from __future__ import annotations

from typing import Iterable, Iterator, Tuple, TypeVar

from ._mlprof import StepTrace, Trace

_Batch = TypeVar("_Batch")

# The fetch's own annotation: TensorFlow's name for a step asking for its next batch, which the
# analysis counts as waiting for input (docs/ARCHITECTURE.md §5.2) whatever the iterable is.
FETCH_NAME = "IteratorGetNext"


def steps(iterable: Iterable[_Batch], name: str = "train", start: int = 0) -> Iterator[Tuple[int, _Batch]]:
    """Yields ``(step, batch)`` like ``enumerate(iterable, start)``, each step marked with its fetch.

        for step, (x, y) in mlprof.steps(loader):
            loss = model(x).sum()
            loss.backward()

    Step ``step`` is ``StepTrace(name, step)`` (``Trace(name, step_num=step, _r=1)``): it begins
    before the batch is fetched, so time spent waiting for the loader is the step's input time
    (the fetch is traced as ``IteratorGetNext``), and it ends when the loop asks for the next
    batch, or leaves. The fetch that finds the iterable exhausted is no step and is not recorded.
    Steps are marked whether or not a session records, so ``start(steps=(10, 15))`` counts them.

    Leaving the loop (``break``, an exception) ends the open step when the iterator is closed: at
    once for ``for ... in mlprof.steps(...)``; call ``close()`` on an iterator kept in a variable.

    Raises:
      TypeError: iterable is not iterable, name is not a str or start not an int.
      ValueError: name cannot be written (see Trace), or start is negative.
    """
    where = "mlprof.steps"
    if not isinstance(name, str):
        raise TypeError(f"{where}: name must be a str, not {type(name).__name__}")
    if not isinstance(start, int) or isinstance(start, bool):
        raise TypeError(f"{where}: start must be an int, not {type(start).__name__}")
    if start < 0:
        raise ValueError(f"{where}: start must be >= 0, not {start}")
    StepTrace(name, start)  # the name's checks, now rather than at the first step
    try:
        batches = iter(iterable)
    except TypeError:
        raise TypeError(f"{where}: iterable must be iterable, not {type(iterable).__name__}") from None
    return _marked_steps(batches, name, start)


def _marked_steps(batches: Iterator[_Batch], name: str, step: int) -> Iterator[Tuple[int, _Batch]]:
    while True:
        marker = StepTrace(name, step)
        marker.__enter__()
        try:
            with Trace(FETCH_NAME):
                batch = next(batches)
        except StopIteration:
            marker._discard()  # the iterable is done: no step ran
            return
        except BaseException:
            marker.__exit__(None, None, None)
            raise
        try:
            yield step, batch
        finally:
            marker.__exit__(None, None, None)
        step += 1
