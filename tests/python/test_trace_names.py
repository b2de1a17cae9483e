"""A Trace records what it was given or raises: names read back as written (or are refused with one
line), and each Trace ends its own event (exits out of order are refused, never recorded cut)."""
from __future__ import annotations

import threading
import time
import unittest
from typing import List

import mlprof
from support import ScratchTest, chrome_events, one_line, recorded_events


class NamesTest(ScratchTest):
    def test_names_read_back_as_given(self) -> None:
        names = ["op:1 (fused), x=y", "  spaced  ", "ünïcødé → 名前", "tab\there", "50% [done"]

        def body() -> None:
            for name in names:
                with mlprof.Trace(name, path="x"):
                    pass
                with mlprof.Trace(name):
                    pass

        recorded = [e["name"] for e in recorded_events(self, body)]
        for name in names:
            self.assertEqual(recorded.count(name), 2, (name, recorded))

    def test_names_the_format_cannot_hold_are_refused_with_one_line(self) -> None:
        # '#' starts TraceMe's metadata: "op#1" would become op "op" with a key "1#path".
        cases = [
            (lambda: mlprof.Trace("op#1", path="x"), "name 'op#1' holds '#'"),
            (lambda: mlprof.Trace("plain#x"), "name 'plain#x' holds '#'"),
            (lambda: mlprof.StepTrace("train#2", 1), "name 'train#2' holds '#'"),
            (lambda: mlprof.Trace("bad\ud800"), "lone surrogate"),
            (lambda: mlprof.Trace("k", **{"\udc80": 1}), "metadata key"),
            (lambda: mlprof.Trace("k", **{f"k{i}": i for i in range(17)}), "at most 16 metadata items"),
        ]
        mlprof.start(self.path("logs"))
        try:
            for make, message in cases:
                with self.subTest(message=message):
                    with self.assertRaises(ValueError) as caught:
                        make()
                    self.assertIn(message, one_line(caught.exception))
        finally:
            mlprof.stop()

    def test_metadata_keys_and_odd_values_are_kept(self) -> None:
        def body() -> None:
            with mlprof.Trace("kept", **{"a#b": 1, "c=d": "v", "text": "lone \ud800 surrogate"}):
                pass

        [event] = [e for e in recorded_events(self, body) if e["name"] == "kept"]
        self.assertEqual(event["args"]["a#b"], 1)
        self.assertEqual(event["args"]["c=d"], "v")
        self.assertEqual(event["args"]["text"], "lone \\ud800 surrogate")  # written escaped, not left out


class NestingTest(ScratchTest):
    def test_crossed_exit_is_refused_and_the_other_trace_keeps_its_own_times(self) -> None:
        mlprof.start(self.path("logs"))
        outer, inner = mlprof.Trace("outer"), mlprof.Trace("inner")
        outer.__enter__()
        inner.__enter__()
        time.sleep(0.02)
        with self.assertRaises(mlprof.ProfilerError) as caught:
            outer.__exit__(None, None, None)
        self.assertIn("'outer' was not recorded: it ended while 'inner', entered inside it, is still open",
                      one_line(caught.exception))
        time.sleep(0.03)
        inner.__exit__(None, None, None)
        with mlprof.Trace("after"):  # the thread's Traces are in order again
            pass
        events = chrome_events(mlprof.stop(), self.dir)
        names = [e["name"] for e in events]
        self.assertNotIn("outer", names)
        [inner_event] = [e for e in events if e["name"] == "inner"]
        self.assertGreaterEqual(inner_event["dur"], 50_000)  # µs: both sleeps, not cut where 'outer' ended
        self.assertIn("after", names)

    def test_a_block_ending_while_a_generator_holds_a_trace_open_is_refused(self) -> None:
        def batches():
            for i in range(3):
                with mlprof.Trace("load"):
                    yield i

        it = batches()
        with self.assertRaises(mlprof.ProfilerError) as caught:
            with mlprof.Trace("epoch"):
                self.assertEqual(next(it), 0)  # 'load' opens inside 'epoch' and outlives it
        self.assertIn("'epoch' was not recorded", one_line(caught.exception))
        self.assertEqual(list(it), [1, 2])  # the generator's own Traces still end in order

    def test_entering_an_open_trace_and_ending_one_elsewhere_are_refused(self) -> None:
        trace = mlprof.Trace("once")
        with trace:
            with self.assertRaises(mlprof.ProfilerError) as caught:
                trace.__enter__()
            self.assertIn("already open", one_line(caught.exception))
        with self.assertRaises(mlprof.ProfilerError) as caught:
            trace.__exit__(None, None, None)
        self.assertIn("without being entered", one_line(caught.exception))

        moved = mlprof.Trace("moved")
        moved.__enter__()
        errors: List[BaseException] = []

        def end_here() -> None:
            try:
                moved.__exit__(None, None, None)
            except mlprof.ProfilerError as e:
                errors.append(e)

        thread = threading.Thread(target=end_here)
        thread.start()
        thread.join()
        self.assertEqual(len(errors), 1)
        self.assertIn("on a thread other than the one it was entered on", one_line(errors[0]))
        moved.__exit__(None, None, None)  # where it began, it still ends

    def test_nesting_is_checked_whether_or_not_a_session_records(self) -> None:
        self.assertFalse(mlprof.is_active())
        outer, inner = mlprof.Trace("outer"), mlprof.Trace("inner")
        outer.__enter__()
        inner.__enter__()
        with self.assertRaises(mlprof.ProfilerError):
            outer.__exit__(None, None, None)
        inner.__exit__(None, None, None)


if __name__ == "__main__":
    unittest.main()
