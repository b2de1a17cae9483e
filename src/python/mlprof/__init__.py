"""mlprof for Python: profile training scripts with the TensorFlow profiler's API.

    import mlprof

    mlprof.start("logs")                          # tf.profiler.experimental.start
    for step, (x, y) in mlprof.steps(loader):     # StepTrace("train", step) around fetch and step
        with mlprof.Trace("forward", batch=len(x)):
            ...
    run = mlprof.stop()                           # the run directory; `mlprof report logs` reads it

A step must include fetching its batch, or the time waiting for input falls between steps where
no tool sees it. ``mlprof.steps`` does that for any iterable; by hand, as TensorFlow's guide:

    batches = iter(loader)
    for step in range(num_steps):
        with mlprof.StepTrace("train", step):     # Trace("train", step_num=step, _r=1)
            x, y = next(batches)
            ...

Once ``torch`` is imported, every ATen op (and at host_tracer_level=3 every allocation) is
traced while a session runs, with no LD_PRELOAD. Errors are raised as ``mlprof.ProfilerError``
(a RuntimeError) with one-line messages naming the Python API, as TypeError or ValueError for
arguments of the wrong type or value; profiling never takes the program down.
"""

import functools
import inspect
import os
import sys
from typing import Any, Callable, NamedTuple, Optional, Tuple, TypeVar

from . import _arguments, _mlprof, _torch_hook
from ._arguments import PathLike, Steps
from ._mlprof import ProfilerError, StepTrace, Trace, is_active
from ._steps import steps
from ._version import __version__

__all__ = [
    "start", "stop", "Profile", "ProfilerOptions", "Trace", "StepTrace", "steps", "start_server", "stop_server",
    "server_port", "set_thread_name", "is_active", "ProfilerError", "__version__",
]

_F = TypeVar("_F", bound=Callable[..., Any])


class ProfilerOptions(NamedTuple):
    """Levels as tf.profiler.experimental.ProfilerOptions, for code written against TensorFlow:
    ``mlprof.start(logdir, options=mlprof.ProfilerOptions(host_tracer_level=3))``."""

    host_tracer_level: int = 2
    python_tracer_level: int = 0
    device_tracer_level: int = 1
    delay_ms: Optional[int] = None  # TensorFlow's field; mlprof starts at once and refuses a delay


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
        The session ends after the last of them: its run is written, is_active() turns False,
        and stop() returns the run.
      duration_ms: end the session after this many milliseconds, as steps do.
      device_tracer_level: 0 turns GPU tracing off (where mlprof is built with CUDA).
      run_name: the run directory's name (default: the local time, YYYY_MM_DD_HH_MM_SS). A name
        whose run already holds this host's profile is refused: a capture never overwrites one.
      options: a ProfilerOptions, as TensorFlow's start() takes; its levels replace the ones above.

    Under ``mlprof run`` (or MLPROF_LOGDIR), the session the environment started gives way to
    this one, with one line on stderr: the program's start() and stop() choose what is recorded.

    Raises:
      ProfilerError: a session already runs, the logdir cannot be written, or run_name is taken.
      TypeError, ValueError: an argument of the wrong type or value.
    """
    where = "mlprof.start"
    _start(_session(where, logdir, host_tracer_level, python_tracer_level, steps, duration_ms, device_tracer_level,
                    run_name, options))


class _Session(NamedTuple):
    """start()'s arguments, checked, as _mlprof._start takes them."""

    logdir: str
    host_tracer_level: int
    device_tracer_level: int
    python_tracer_level: int
    first_step: int
    last_step: int
    duration_ms: int  # 0: no limit
    run_name: str  # "": the local time


def _session(where: str, logdir: object, host_tracer_level: object, python_tracer_level: object, steps: object,
             duration_ms: object, device_tracer_level: object, run_name: object, options: object) -> _Session:
    prefix = ""  # where the levels come from, for messages
    if options is not None:
        if not isinstance(options, ProfilerOptions):
            raise TypeError(f"{where}: options must be a mlprof.ProfilerOptions, not {type(options).__name__}")
        if options.delay_ms is not None and _arguments.integer(options.delay_ms, where, "ProfilerOptions.delay_ms", 0):
            raise ValueError(f"{where}: ProfilerOptions.delay_ms is not supported: start the session when it should begin")
        prefix = "ProfilerOptions."
        host_tracer_level, python_tracer_level = options.host_tracer_level, options.python_tracer_level
        device_tracer_level = options.device_tracer_level
    logdir = _arguments.path(logdir, where, "logdir")
    first, last = _arguments.step_range(steps, where)  # type: ignore[arg-type]
    return _Session(
        logdir=logdir,
        host_tracer_level=_arguments.integer(host_tracer_level, where, prefix + "host_tracer_level", 0, 3),
        device_tracer_level=_arguments.integer(device_tracer_level, where, prefix + "device_tracer_level", 0, 1),
        python_tracer_level=_arguments.integer(python_tracer_level, where, prefix + "python_tracer_level", 0, 1),
        first_step=first, last_step=last,
        duration_ms=0 if duration_ms is None else _arguments.integer(duration_ms, where, "duration_ms", 1),
        run_name=_arguments.run_name(run_name, where))


def _start(session: _Session) -> None:
    # A run_name whose run already holds this host's profile is refused by the SDK's start().
    _torch_hook.load_if_imported()
    _mlprof._start(*session)


def stop() -> str:
    """Stops the session and writes it, as tf.profiler.experimental.stop; returns the run directory.

    After a session that ended on its own (steps, duration_ms), returns the run it wrote.

    Raises:
      ProfilerError: no session ran since the last stop(), or the run could not be written (the
        message says why).
    """
    run_dir, _xspace, _events, _dropped = _mlprof._stop()
    return run_dir


class Profile:
    """A session for the duration of a ``with`` block, as tf.profiler.experimental.Profile.

        with mlprof.Profile("logs", host_tracer_level=3) as p:
            train()
        print(p.run_dir)

    Takes start()'s arguments, checked here (TypeError, ValueError); the session starts when the
    block begins (ProfilerError as start's) and is stopped and written however the block ends.
    """

    def __init__(self, logdir: PathLike, host_tracer_level: int = 2, python_tracer_level: int = 0,
                 steps: Steps = None, duration_ms: Optional[int] = None, *, device_tracer_level: int = 1,
                 run_name: Optional[str] = None, options: Optional[ProfilerOptions] = None) -> None:
        self._session = _session("mlprof.Profile", logdir, host_tracer_level, python_tracer_level, steps, duration_ms,
                                 device_tracer_level, run_name, options)
        self.run_dir: Optional[str] = None

    def __enter__(self) -> "Profile":
        _start(self._session)
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
    _mlprof._set_thread_name(_arguments.text(name, "mlprof.set_thread_name", "name"))


def start_server(port: int, bind_address: str = "127.0.0.1") -> None:
    """Starts the profiler server for sampling mode, as tf.profiler.experimental.server.start.

    ``mlprof capture 127.0.0.1:PORT --logdir logs --duration-ms 2000``, the web UI's Capture
    dialog and TensorFlow's profiler client then capture this job while it trains. Port 0
    takes any free port (see server_port()).

    Raises:
      ProfilerError: the port is in use, a server already runs, or the server is not installed.
    """
    where = "mlprof.start_server"
    _arguments.integer(port, where, "port", 0, 65535)
    _arguments.text(bind_address, where, "bind_address")
    _torch_hook.load_if_imported()
    _mlprof._start_server(port, bind_address)


def stop_server() -> None:
    """Stops the profiler server (a capture in progress is still written)."""
    _mlprof._stop_server()


def server_port() -> int:
    """The port the profiler server listens on, or 0 when none runs."""
    return _mlprof._server_port()


def _trace_python_in_environment_session() -> None:
    """Under ``mlprof run --python-tracer-level 1`` (MLPROF_PYTHON_TRACER_LEVEL=1), every Python call
    is recorded in the session the environment started, from this import on. A session the program
    starts itself has its own python_tracer_level."""
    level = os.environ.get("MLPROF_PYTHON_TRACER_LEVEL", "")
    if level in ("", "0"):
        return
    if level != "1":
        print(f"mlprof: ignoring MLPROF_PYTHON_TRACER_LEVEL={level}: expected 0 or 1", file=sys.stderr)
        return
    if not is_active():
        return
    try:
        _mlprof._start_python_tracer()
    except Exception as error:  # profiling never takes the program down
        print(f"mlprof: Python calls are not traced: {error}", file=sys.stderr)


_torch_hook.install()
_trace_python_in_environment_session()
