"""The mlprof package's API (README, "Profile from Python"): sessions, annotations, step markers, thread
names, and bad input as Python exceptions with one-line messages. The written runs are read
back with the mlprof command, as a user would."""
from __future__ import annotations

import os
import threading
import time
import unittest

import mlprof
from support import ScratchTest, chrome_events, one_line, recorded_events, report, run_dirs, xplane_files


def train_steps(count: int) -> None:
    for step in range(count):
        with mlprof.StepTrace("train", step):
            with mlprof.Trace("work"):
                pass


def step_numbers(events: list) -> list:
    return sorted(e["args"]["step_num"] for e in events if e["name"] == "train")


def wait_until_inactive(timeout_s: float = 20) -> bool:
    """A session that ends on its own writes its run on its own thread; then it is over."""
    give_up = time.monotonic() + timeout_s
    while mlprof.is_active() and time.monotonic() < give_up:
        time.sleep(0.001)
    return not mlprof.is_active()


class SessionTest(ScratchTest):
    def test_start_stop_writes_one_run_and_returns_it(self) -> None:
        logdir = self.path("logs")
        mlprof.start(logdir)
        self.assertTrue(mlprof.is_active())
        with mlprof.Trace("work"):
            pass
        run_dir = mlprof.stop()
        self.assertFalse(mlprof.is_active())
        self.assertEqual(run_dirs(logdir), [run_dir])
        self.assertEqual(len(xplane_files(logdir)), 1)
        # TensorBoard lists the logdir only with its event file.
        self.assertTrue(any(n.startswith("events.out.tfevents.") for n in os.listdir(logdir)))

    def test_profile_context_manager_and_run_name(self) -> None:
        with mlprof.Profile(self.path("logs"), run_name="first") as p:
            with mlprof.Trace("inside"):
                pass
        self.assertEqual(os.path.basename(p.run_dir), "first")
        self.assertFalse(mlprof.is_active())

    def test_tensorflow_style_options(self) -> None:
        options = mlprof.ProfilerOptions(host_tracer_level=3, python_tracer_level=1)
        with mlprof.Profile(self.path("logs"), options=options) as p:
            sorted([3, 1, 2])
        self.assertTrue(p.run_dir)
        with self.assertRaises(ValueError) as caught:
            mlprof.start(self.path("logs"), options=mlprof.ProfilerOptions(delay_ms=500))
        self.assertIn("delay_ms is not supported", one_line(caught.exception))
        with self.assertRaises(TypeError):
            mlprof.start(self.path("logs"), options={"host_tracer_level": 3})
        self.assertFalse(mlprof.is_active())

    def test_a_run_name_that_holds_this_hosts_profile_is_refused_not_overwritten(self) -> None:
        logdir = self.path("logs")
        with mlprof.Profile(logdir, run_name="baseline") as first:
            with mlprof.Trace("first_capture"):
                pass
        [written] = xplane_files(logdir)
        with open(written, "rb") as f:
            before = f.read()
        for again in (lambda: mlprof.Profile(logdir, run_name="baseline").__enter__(),
                      lambda: mlprof.start(logdir, run_name="baseline")):
            with self.assertRaises(mlprof.ProfilerError) as caught:
                again()
            message = one_line(caught.exception)
            self.assertIn("run_name 'baseline' is taken", message)
            self.assertIn(written, message)
            self.assertFalse(mlprof.is_active())
        with open(written, "rb") as f:
            self.assertEqual(f.read(), before)  # the first capture is intact
        # Another host's file in the run is a run of several hosts: this host joins it.
        os.rename(written, os.path.join(first.run_dir, "otherhost.xplane.pb"))
        with mlprof.Profile(logdir, run_name="baseline") as joined:
            pass
        self.assertEqual(joined.run_dir, first.run_dir)
        self.assertEqual(len(xplane_files(logdir)), 2)

    def test_profile_stops_when_the_block_raises(self) -> None:
        with self.assertRaises(KeyError):
            with mlprof.Profile(self.path("logs")):
                raise KeyError("boom")
        self.assertFalse(mlprof.is_active())
        self.assertEqual(len(xplane_files(self.path("logs"))), 1)

    def test_a_session_whose_steps_are_over_has_ended(self) -> None:
        logdir = self.path("logs")
        mlprof.start(logdir, steps=(1, 2), run_name="ranged")
        train_steps(5)
        self.assertTrue(wait_until_inactive())
        self.assertEqual(run_dirs(logdir), [os.path.join(logdir, "plugins", "profile", "ranged")])
        # A script that always calls stop() gets the run, once.
        run_dir = mlprof.stop()
        self.assertEqual(run_dirs(logdir), [run_dir])
        self.assertEqual(step_numbers(chrome_events(run_dir, self.dir)), [1, 2])
        with self.assertRaises(mlprof.ProfilerError) as caught:
            mlprof.stop()
        self.assertIn("no profiling session is running", one_line(caught.exception))

    def test_a_new_session_starts_right_after_the_steps_of_the_last(self) -> None:
        logdir = self.path("logs")
        mlprof.start(logdir, steps=0, run_name="first", python_tracer_level=1)
        train_steps(1)
        # No wait and no stop(): start() waits for the first run to be written.
        mlprof.start(logdir, run_name="second")
        self.assertTrue(mlprof.is_active())
        train_steps(3)
        second_run = mlprof.stop()
        first_run = os.path.join(logdir, "plugins", "profile", "first")
        self.assertEqual(run_dirs(logdir), [first_run, second_run])
        self.assertEqual(step_numbers(chrome_events(first_run, self.dir)), [0])
        second = chrome_events(second_run, self.dir)
        self.assertEqual(step_numbers(second), [0, 1, 2])
        # The second session asked for no Python tracer: the first one's is gone.
        self.assertFalse([e["name"] for e in second if e["name"].startswith("$")])

    def test_a_session_whose_duration_is_over_has_ended(self) -> None:
        logdir = self.path("logs")
        mlprof.start(logdir, duration_ms=20, run_name="timed")
        self.assertTrue(wait_until_inactive())
        mlprof.start(logdir, run_name="next")
        self.assertEqual(os.path.basename(mlprof.stop()), "next")
        self.assertEqual([os.path.basename(d) for d in run_dirs(logdir)], ["next", "timed"])


# Commas, '#', '=', quotes and unbalanced brackets: TraceMe's metadata encoding would split or
# end on them unless they are quoted (docs/ARCHITECTURE.md §3.3).
PUNCTUATED = 'say "hi", #1 [x=(y\'\' 50%'


class AnnotationTest(ScratchTest):
    def test_trace_metadata_steps_decorator_and_thread_names(self) -> None:
        @mlprof.Trace("decorated", kind="fn")
        def work(x: int) -> int:
            return x + 1

        def body() -> None:
            for step in range(3):
                with mlprof.StepTrace("train", step):
                    with mlprof.Trace("forward", batch=32, lr=0.5, tag="warm", ok=True):
                        self.assertEqual(work(step), step + 1)
            with mlprof.Trace("tf_style_step", step_num=7, _r=1):
                pass
            with mlprof.Trace("odd_metadata", _r=10**40, big=2**70, obj=object()):  # kept as text
                pass
            with mlprof.Trace("punctuated", tag="a,b", text=PUNCTUATED, after=3):  # read back whole
                pass

            def loader() -> None:
                mlprof.set_thread_name("loader thread")
                with mlprof.Trace("load"):
                    pass
            t = threading.Thread(target=loader)
            t.start()
            t.join()

        events = recorded_events(self, body)
        names = [e["name"] for e in events]
        self.assertEqual(names.count("decorated"), 3)
        forwards = [e for e in events if e["name"] == "forward"]
        self.assertEqual(len(forwards), 3)
        self.assertEqual(forwards[0]["args"].get("batch"), 32)
        self.assertEqual(forwards[0]["args"].get("tag"), "warm")
        steps = [e for e in events if e["name"] == "train"]
        self.assertEqual(sorted(e["args"]["step_num"] for e in steps), [0, 1, 2])
        self.assertTrue(any(e["name"] == "tf_style_step" and e["args"].get("step_num") == 7 for e in events))
        self.assertIn("load", names)
        punctuated = [e["args"] for e in events if e["name"] == "punctuated"]
        self.assertEqual(punctuated, [{**punctuated[0], "tag": "a,b", "text": PUNCTUATED, "after": 3}])

    def test_python_tracer_on_threads_started_before_and_during_the_session(self) -> None:
        go, started = threading.Event(), threading.Event()

        def early_work() -> None:
            return None

        def early() -> None:
            started.set()
            go.wait()
            early_work()

        def late_work() -> None:
            return None

        before = threading.Thread(target=early)
        before.start()
        started.wait()
        logdir = self.path("logs")
        mlprof.start(logdir, python_tracer_level=1)
        go.set()
        before.join()
        late = threading.Thread(target=late_work)
        late.start()
        late.join()
        events = chrome_events(mlprof.stop(), self.dir)
        names = {e["name"] for e in events}
        self.assertTrue(any(n.startswith("$test_package_api.py:") and n.endswith("early_work") for n in names), names)
        self.assertTrue(any(n.endswith("late_work") for n in names), names)
        # The hook is gone with the session: nothing of it stays installed.
        import sys
        self.assertIsNone(sys.getprofile())
        self.assertIsNone(threading.getprofile())

    def test_python_tracer_covers_time_in_python_code(self) -> None:
        def python_heavy() -> int:
            return sum(i * i for i in range(20000))

        other = []
        for level in (0, 1):
            logdir = self.path(f"logs{level}")
            mlprof.start(logdir, python_tracer_level=level)
            for step in range(6):
                with mlprof.StepTrace("train", step):
                    python_heavy()
            mlprof.stop()
            other.append(report(logdir, "overview_page")["summary"]["breakdown_pct"]["other"])
        # Without the tracer the step is "not covered by any traced activity"; with it, it is.
        self.assertGreater(other[0], 90)
        self.assertLess(other[1], 10)

    def test_step_range_records_only_those_steps(self) -> None:
        logdir = self.path("logs")
        mlprof.start(logdir, steps=(2, 3))
        for step in range(6):
            with mlprof.StepTrace("train", step):
                with mlprof.Trace("work"):
                    pass
        events = chrome_events(mlprof.stop(), self.dir)
        self.assertEqual(sorted(e["args"]["step_num"] for e in events if e["name"] == "train"), [2, 3])

    def test_disabled_trace_records_nothing_and_costs_no_error(self) -> None:
        with mlprof.Trace("outside", x=1):
            pass
        self.assertFalse(mlprof.is_active())


class BadInputTest(ScratchTest):
    def test_wrong_argument_types(self) -> None:
        cases = [
            (lambda: mlprof.start(42), TypeError, "logdir must be a str"),
            (lambda: mlprof.start(self.path("l"), host_tracer_level="2"), TypeError, "host_tracer_level must be an int"),
            (lambda: mlprof.start(self.path("l"), host_tracer_level=7), ValueError, "between 0 and 3"),
            (lambda: mlprof.start(self.path("l"), python_tracer_level=2), ValueError, "between 0 and 1"),
            (lambda: mlprof.start(self.path("l"), steps="a:b"), ValueError, "expected FIRST:LAST"),
            (lambda: mlprof.start(self.path("l"), steps=(5, 2)), ValueError, "first <= last"),
            (lambda: mlprof.start(self.path("l"), steps=1.5), TypeError, "steps must be"),
            (lambda: mlprof.start(self.path("l"), duration_ms="1s"), TypeError, "duration_ms must be an int"),
            (lambda: mlprof.start(self.path("l"), run_name="a/b"), ValueError, "run_name"),
            (lambda: mlprof.start(self.path("l"), run_name=5), TypeError, "mlprof.start: run_name must be a str"),
            (lambda: mlprof.start(self.path("l"), run_name=""), ValueError, "run_name must be a directory name"),
            (lambda: mlprof.start(self.path("l"), run_name="a\0b"), ValueError, "run_name holds a NUL"),
            (lambda: mlprof.start(self.path("l\0x")), ValueError, "logdir holds a NUL"),
            (lambda: mlprof.start(self.path("l\udc80")), ValueError, "logdir holds a lone surrogate"),
            (lambda: mlprof.start(b"logs"), TypeError, "logdir must be a str or os.PathLike"),
            (lambda: mlprof.start(self.path("l"), device_tracer_level=None), TypeError, "device_tracer_level must be an int"),
            (lambda: mlprof.start(self.path("l"), python_tracer_level=1.0), TypeError, "python_tracer_level must be an int"),
            (lambda: mlprof.start(self.path("l"), duration_ms=0), ValueError, "duration_ms must be >= 1"),
            (lambda: mlprof.start(self.path("l"), steps=True), TypeError, "steps must be"),
            (lambda: mlprof.start(self.path("l"), options=mlprof.ProfilerOptions(host_tracer_level="3")), TypeError,
             "ProfilerOptions.host_tracer_level must be an int"),
            (lambda: mlprof.start(self.path("l"), options=mlprof.ProfilerOptions(delay_ms="0")), TypeError,
             "ProfilerOptions.delay_ms must be an int"),
            # Profile checks its arguments when made, as start() does.
            (lambda: mlprof.Profile(self.path("l"), run_name=5), TypeError, "mlprof.Profile: run_name must be a str"),
            (lambda: mlprof.Profile(self.path("l"), host_tracer_level=9), ValueError, "mlprof.Profile: host_tracer_level"),
            (lambda: mlprof.set_thread_name("a\ud800"), ValueError, "lone surrogate"),
            (lambda: mlprof.start_server(True), TypeError, "port must be an int"),
            (lambda: mlprof.start_server(0, 5), TypeError, "bind_address must be a str"),
            (lambda: mlprof.Trace(3), TypeError, "name must be a str"),
            (lambda: mlprof.Trace("a", "b"), TypeError, "takes a name"),
            (lambda: mlprof.StepTrace("train", "1"), TypeError, "step must be an int"),
            (lambda: mlprof.Trace("s", step_num="x", _r=1), TypeError, "step_num must be an int"),
            (lambda: mlprof.set_thread_name(None), TypeError, "name must be a str"),
            (lambda: mlprof.start_server("6009"), TypeError, "port must be an int"),
            (lambda: mlprof.start_server(70000), ValueError, "between 0 and 65535"),
            (lambda: mlprof.Trace("x")(5), TypeError, "one function"),
        ]
        for call, kind, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(kind) as caught:
                    call()
                self.assertIn(message, one_line(caught.exception))
                self.assertFalse(mlprof.is_active())

    def test_second_start_and_stop_without_start(self) -> None:
        # The messages name the Python API, never the C++ one (mlprof::stop()).
        with self.assertRaises(mlprof.ProfilerError) as caught:
            mlprof.stop()
        self.assertEqual(one_line(caught.exception), "mlprof.stop: no profiling session is running")
        mlprof.start(self.path("a"))
        try:
            with self.assertRaises(mlprof.ProfilerError) as caught:
                mlprof.start(self.path("b"))
            message = one_line(caught.exception)
            self.assertTrue(message.startswith("mlprof.start: a profiling session is already running"), message)
            self.assertIn("call mlprof.stop() before starting another", message)
            self.assertNotIn("::", message)
            self.assertIsInstance(caught.exception, RuntimeError)
        finally:
            mlprof.stop()

    def test_unwritable_logdir(self) -> None:
        blocker = self.path("a_file")
        open(blocker, "w").close()
        logdir = os.path.join(blocker, "logs")
        with self.assertRaises(mlprof.ProfilerError) as caught:
            mlprof.start(logdir)
        self.assertIn(f"mlprof.start: cannot write to the logdir {logdir}: Not a directory", one_line(caught.exception))
        self.assertFalse(mlprof.is_active())

    def test_logdir_that_exists_but_cannot_be_written_is_refused_at_start(self) -> None:
        # /proc/self is a directory no one may create files in, root included.
        with self.assertRaises(mlprof.ProfilerError) as caught:
            mlprof.start("/proc/self")
        self.assertIn("cannot write to the logdir /proc/self: ", one_line(caught.exception))
        self.assertFalse(mlprof.is_active())
        mlprof.start(self.path("good"))  # a refused start leaves nothing behind
        self.assertTrue(os.path.isdir(mlprof.stop()))

    def test_start_creates_the_logdir_and_leaves_nothing_else_there(self) -> None:
        logdir = self.path("new", "nested", "logs")
        mlprof.start(logdir)
        try:
            self.assertTrue(os.path.isdir(logdir))
            self.assertEqual(os.listdir(logdir), [])  # the probe file is gone
        finally:
            mlprof.stop()

    def test_logdir_that_goes_away_fails_at_stop_with_one_line(self) -> None:
        logdir = self.path("gone")
        mlprof.start(logdir)
        os.rmdir(logdir) if os.path.isdir(logdir) else None
        open(logdir, "w").close()  # a file where the logdir should be
        with self.assertRaises(mlprof.ProfilerError) as caught:
            mlprof.stop()
        one_line(caught.exception)
        self.assertFalse(mlprof.is_active())


class TypeHintsTest(unittest.TestCase):
    def test_package_is_typed_and_documented(self) -> None:
        package = os.path.dirname(mlprof.__file__)
        self.assertTrue(os.path.exists(os.path.join(package, "py.typed")))
        self.assertTrue(os.path.exists(os.path.join(package, "_mlprof.pyi")))
        for name in mlprof.__all__:
            with self.subTest(name=name):
                self.assertTrue(getattr(mlprof, name).__doc__, name)


class HelpTest(unittest.TestCase):
    def test_help_shows_plain_types(self) -> None:
        """help(mlprof) prints the annotations as written (`int`), not ForwardRef('int'), which a
        module-wide `from __future__ import annotations` makes of a NamedTuple's fields."""
        import pydoc
        text = pydoc.render_doc(mlprof, renderer=pydoc.plaintext)
        self.assertNotIn("ForwardRef", text)
        self.assertIn("host_tracer_level: int = 2", text)


if __name__ == "__main__":
    unittest.main()
