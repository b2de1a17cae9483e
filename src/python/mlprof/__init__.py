"""mlprof for Python: profile training scripts with the TensorFlow profiler's API.

    import mlprof

    mlprof.start("logs")                      # tf.profiler.experimental.start
    for step, batch in enumerate(loader):
        with mlprof.StepTrace("train", step):  # tf.profiler.experimental.Trace(..., step_num=, _r=1)
            with mlprof.Trace("forward", batch=len(batch)):
                ...
    run = mlprof.stop()                       # the run directory; `mlprof report logs` reads it

Once ``torch`` is imported, every ATen op (and at host_tracer_level=3 every allocation) is
traced while a session runs, with no LD_PRELOAD. Errors are raised as ``mlprof.ProfilerError``
(a RuntimeError) with the capture SDK's one-line messages, as TypeError or ValueError for
arguments of the wrong type or value; profiling never takes the program down.
"""
from __future__ import annotations

import functools
import inspect
import os
from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple, TypeVar, Union

from . import _mlprof, _torch_hook
from ._mlprof import ProfilerError, StepTrace, Trace, is_active

__all__ = [
    "start", "stop", "Profile", "ProfilerOptions", "Trace", "StepTrace", "start_server", "stop_server",
    "server_port", "set_thread_name", "is_active", "ProfilerError",
]

PathLike = Union[str, "os.PathLike[str]"]
Steps = Union[None, int, str, Tuple[int, int], Sequence[int]]
_F = TypeVar("_F", bound=Callable[..., Any])


class ProfilerOptions(NamedTuple):
    """Levels as tf.profiler.experimental.ProfilerOptions, for code written against TensorFlow:
    ``mlprof.start(logdir, options=mlprof.ProfilerOptions(host_tracer_level=3))``."""

    host_tracer_level: int = 2
    python_tracer_level: int = 0
    device_tracer_level: int = 1
    delay_ms: Optional[int] = None  # TensorFlow's field; mlprof starts at once and refuses a delay


def _path(value: object, where: str, what: str) -> str:
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str) and path:
            return path
        if isinstance(path, str):
            raise ValueError(f"{where}: {what} is empty")
    raise TypeError(f"{where}: {what} must be a str or os.PathLike, not {type(value).__name__}")


def _int(value: object, where: str, what: str, low: int, high: Optional[int] = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{where}: {what} must be an int, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValueError(f"{where}: {what} must be {bounds}, not {value}")
    return value


def _steps(steps: Steps) -> Tuple[int, int]:
    """None: every step; N: step N; (A, B), [A, B], "A:B" or "A,B": steps A to B (Keras' profile_batch)."""
    where = "mlprof.start"
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


def start(logdir: PathLike, host_tracer_level: int = 2, python_tracer_level: int = 0, steps: Steps = None,
          duration_ms: Optional[int] = None, *, device_tracer_level: int = 1, run_name: Optional[str] = None,
          options: Optional[ProfilerOptions] = None) -> None:
    """Starts a profiling session that writes into ``logdir``, as tf.profiler.experimental.start.

    Args:
      logdir: the run goes to ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``.
      host_tracer_level: 1 user annotations and steps, 2 also framework (ATen) ops, 3 also
        input shapes and memory (allocations and frees).
      python_tracer_level: 1 records every Python function call (through the interpreter's
        C-level profile hook), so time in Python code is covered by traced activity.
      steps: record only these steps, as Keras' profile_batch: N, (first, last) or "first:last".
        Steps are what StepTrace marks, or what mlprof infers from a PyTorch training loop.
      duration_ms: stop recording after this many milliseconds.
      device_tracer_level: 0 turns GPU tracing off (where mlprof is built with CUDA).
      run_name: the run directory's name (default: the local time, YYYY_MM_DD_HH_MM_SS).
      options: a ProfilerOptions, as TensorFlow's start() takes; its levels replace the ones above.

    Raises:
      ProfilerError: a session already runs, or the logdir cannot be written.
      TypeError, ValueError: an argument of the wrong type or value.
    """
    where = "mlprof.start"
    if options is not None:
        if not isinstance(options, ProfilerOptions):
            raise TypeError(f"{where}: options must be a mlprof.ProfilerOptions, not {type(options).__name__}")
        if options.delay_ms:
            raise ValueError(f"{where}: ProfilerOptions.delay_ms is not supported: start the session when it should begin")
        host_tracer_level, python_tracer_level = options.host_tracer_level, options.python_tracer_level
        device_tracer_level = options.device_tracer_level
    path = _path(logdir, where, "logdir")
    host = _int(host_tracer_level, where, "host_tracer_level", 0, 3)
    python = _int(python_tracer_level, where, "python_tracer_level", 0, 1)
    device = _int(device_tracer_level, where, "device_tracer_level", 0, 1)
    first, last = _steps(steps)
    duration = 0 if duration_ms is None else _int(duration_ms, where, "duration_ms", 1)
    if run_name is not None and (not isinstance(run_name, str) or not run_name or "/" in run_name
                                 or run_name in (".", "..")):
        raise ValueError(f"{where}: run_name must be a directory name without '/', not {run_name!r}")
    _torch_hook.load_if_imported()
    _mlprof._start(path, host, device, python, first, last, duration, run_name or "")


def stop() -> str:
    """Stops the session and writes it, as tf.profiler.experimental.stop; returns the run directory.

    Raises:
      ProfilerError: no session runs, or the run could not be written (the message says why).
    """
    run_dir, _xspace, _events, _dropped = _mlprof._stop()
    return run_dir


class Profile:
    """A session for the duration of a ``with`` block, as tf.profiler.experimental.Profile.

        with mlprof.Profile("logs", host_tracer_level=3) as p:
            train()
        print(p.run_dir)

    Takes start()'s arguments. The session is stopped and written however the block ends.
    """

    def __init__(self, logdir: PathLike, host_tracer_level: int = 2, python_tracer_level: int = 0,
                 steps: Steps = None, duration_ms: Optional[int] = None, *, device_tracer_level: int = 1,
                 run_name: Optional[str] = None, options: Optional[ProfilerOptions] = None) -> None:
        self._arguments = dict(logdir=logdir, host_tracer_level=host_tracer_level,
                               python_tracer_level=python_tracer_level, steps=steps, duration_ms=duration_ms,
                               device_tracer_level=device_tracer_level, run_name=run_name, options=options)
        self.run_dir: Optional[str] = None

    def __enter__(self) -> "Profile":
        start(**self._arguments)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.run_dir = stop()


def _decorate(trace: Trace, function: _F) -> _F:
    """Trace(name, **metadata) used as a decorator: each call of the function is traced.

    A call of a coroutine or generator function only makes the coroutine or generator, whose work
    runs later, a piece at each resumption, while other code runs on the thread in between: no
    one span is that work, so such functions are refused (TypeError) rather than timed wrongly.
    """
    name, metadata = trace.name, trace.metadata
    if isinstance(trace, StepTrace):
        raise TypeError("mlprof.StepTrace: not a decorator; use it as `with mlprof.StepTrace(name, step):`")
    suspends = _suspending_kind(function)
    if suspends is not None:
        kind, point = suspends
        what = getattr(function, "__qualname__", type(function).__name__)
        raise TypeError(f"mlprof.Trace: cannot decorate {kind} {what}: a call only makes it and its work runs later, "
                        f"between {point}s; put `with mlprof.Trace({name!r}):` inside it, around work with no {point}")

    @functools.wraps(function)
    def traced(*args: Any, **kwargs: Any) -> Any:
        with Trace(name, **metadata):
            return function(*args, **kwargs)

    return traced  # type: ignore[return-value]


def _suspending_kind(function: Callable[..., Any]) -> Optional[Tuple[str, str]]:
    """("coroutine function", "await") and the like, for a function whose calls suspend; else None."""
    call = function
    if not (inspect.isroutine(function) or isinstance(function, functools.partial) or inspect.isclass(function)):
        call = getattr(function, "__call__", function)  # an object whose __call__ may be async
    if inspect.isasyncgenfunction(call):
        return "async generator function", "await"
    if inspect.iscoroutinefunction(call):
        return "coroutine function", "await"
    if inspect.isgeneratorfunction(call):
        return "generator function", "yield"
    return None


def set_thread_name(name: str) -> None:
    """Names the calling thread's line in the trace (this and later sessions)."""
    if not isinstance(name, str):
        raise TypeError(f"mlprof.set_thread_name: name must be a str, not {type(name).__name__}")
    _mlprof._set_thread_name(name)


def start_server(port: int, bind_address: str = "127.0.0.1") -> None:
    """Starts the profiler server for sampling mode, as tf.profiler.experimental.server.start.

    ``mlprof capture 127.0.0.1:PORT --logdir logs --duration-ms 2000``, the web UI's Capture
    dialog and TensorFlow's profiler client then capture this job while it trains. Port 0
    takes any free port (see server_port()).

    Raises:
      ProfilerError: the port is in use, a server already runs, or the server is not installed.
    """
    where = "mlprof.start_server"
    _int(port, where, "port", 0, 65535)
    if not isinstance(bind_address, str):
        raise TypeError(f"{where}: bind_address must be a str, not {type(bind_address).__name__}")
    _torch_hook.load_if_imported()
    _mlprof._start_server(port, bind_address)


def stop_server() -> None:
    """Stops the profiler server (a capture in progress is still written)."""
    _mlprof._stop_server()


def server_port() -> int:
    """The port the profiler server listens on, or 0 when none runs."""
    return _mlprof._server_port()


_torch_hook.install()
