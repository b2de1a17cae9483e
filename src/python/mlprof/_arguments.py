"""Argument checks of the public functions: a wrong type is a TypeError, a wrong value of the
right type a ValueError, each with one line that names the function and the argument."""
from __future__ import annotations

import os
from typing import Optional, Sequence, Tuple, Union

PathLike = Union[str, os.PathLike]
Steps = Union[None, int, str, Tuple[int, int], Sequence[int]]


def writable_text(value: str, where: str, what: str) -> str:
    """A str the C++ side can take whole: UTF-8 (no lone surrogate) and no NUL, which would cut it."""
    if "\0" in value:
        raise ValueError(f"{where}: {what} holds a NUL character: {value!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{where}: {what} holds a lone surrogate, which cannot be written as UTF-8: {value!r}") from None
    return value


def text(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: {what} must be a str, not {type(value).__name__}")
    return writable_text(value, where, what)


def path(value: object, where: str, what: str) -> str:
    if isinstance(value, (str, os.PathLike)):
        fs_path = os.fspath(value)
        if isinstance(fs_path, str):
            if not fs_path:
                raise ValueError(f"{where}: {what} is empty")
            return writable_text(fs_path, where, what)
    raise TypeError(f"{where}: {what} must be a str or os.PathLike, not {type(value).__name__}")


def integer(value: object, where: str, what: str, low: int, high: Optional[int] = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{where}: {what} must be an int, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValueError(f"{where}: {what} must be {bounds}, not {value}")
    return value


def run_name(value: object, where: str) -> str:
    """A run directory's name ("" for the default, the local time)."""
    if value is None:
        return ""
    name = text(value, where, "run_name")
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"{where}: run_name must be a directory name without '/', not {name!r}")
    return name


def step_range(steps: Steps, where: str) -> Tuple[int, int]:
    """None: every step (-1, -1); N: step N; (A, B), [A, B], "A:B" or "A,B": steps A to B (Keras' profile_batch)."""
    if steps is None:
        return -1, -1
    if isinstance(steps, str):
        parts = steps.replace(",", ":").split(":")
        try:
            numbers = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"{where}: steps {steps!r}: expected FIRST:LAST, e.g. '10:15'") from None
    elif isinstance(steps, int) and not isinstance(steps, bool):
        numbers = [steps]
    elif isinstance(steps, (tuple, list)) and all(isinstance(s, int) and not isinstance(s, bool) for s in steps):
        numbers = list(steps)
    else:
        raise TypeError(f"{where}: steps must be None, an int, (first, last) or 'first:last', not {type(steps).__name__}")
    if len(numbers) == 1:
        numbers = numbers * 2
    if len(numbers) != 2 or numbers[0] < 0 or numbers[1] < numbers[0]:
        raise ValueError(f"{where}: steps {steps!r}: expected 0 <= first <= last")
    return numbers[0], numbers[1]
