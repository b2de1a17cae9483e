"""mlprof.steps(iterable): enumerate's (step, batch), each step a StepTrace that begins before its
batch is fetched, so the fetch is inside the step (as waiting for input), and ends when the next
fetch begins or the loop is left."""
from __future__ import annotations

import time
import unittest
from typing import Any, Dict, Iterator

import mlprof
from support import ScratchTest, chrome_events, recorded_events

FETCH_S = 0.01


def slow_batches(count: int) -> Iterator[str]:
    for i in range(count):
        time.sleep(FETCH_S)  # the loader's time: must fall inside step i
        yield f"batch{i}"


def inside(inner: Dict[str, Any], outer: Dict[str, Any]) -> bool:
    return outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]


class StepsTest(ScratchTest):
    def test_yields_what_enumerate_yields(self) -> None:
        self.assertEqual(list(mlprof.steps("abc")), list(enumerate("abc")))
        self.assertEqual(list(mlprof.steps(["x", "y"], name="eval", start=5)), [(5, "x"), (6, "y")])
        self.assertEqual(list(mlprof.steps([])), [])

    def test_each_step_holds_its_fetch_and_no_step_is_made_of_the_last_fetch(self) -> None:
        seen = []

        def body() -> None:
            for step, batch in mlprof.steps(slow_batches(4), start=10):
                with mlprof.Trace("compute"):
                    seen.append((step, batch))

        events = recorded_events(self, body)
        self.assertEqual(seen, [(10 + i, f"batch{i}") for i in range(4)])
        steps = sorted((e for e in events if e["name"] == "train"), key=lambda e: e["ts"])
        self.assertEqual([e["args"]["step_num"] for e in steps], [10, 11, 12, 13])  # not 14: the iterable was done
        fetches = [e for e in events if e["name"] == "IteratorGetNext"]
        for step in steps:
            [fetch] = [f for f in fetches if inside(f, step)]
            self.assertGreaterEqual(fetch["dur"], FETCH_S * 1e6)  # µs: the loader's sleep
            self.assertLess(fetch["ts"], min(e["ts"] for e in events if e["name"] == "compute" and inside(e, step)))

    def test_leaving_the_loop_ends_the_open_step(self) -> None:
        def body() -> None:
            for step, _ in mlprof.steps(range(10)):
                if step == 2:
                    break
            with self.assertRaises(KeyError):
                for step, _ in mlprof.steps(range(10), name="failing"):
                    if step == 1:
                        raise KeyError(step)
            with mlprof.Trace("after"):  # no step is left open around it
                pass

        events = recorded_events(self, body)
        self.assertEqual(sorted(e["args"]["step_num"] for e in events if e["name"] == "train"), [0, 1, 2])
        self.assertEqual(sorted(e["args"]["step_num"] for e in events if e["name"] == "failing"), [0, 1])
        [after] = [e for e in events if e["name"] == "after"]
        self.assertFalse(any(inside(after, e) for e in events if e["name"] in ("train", "failing")))

    def test_step_range_sessions_count_its_steps(self) -> None:
        mlprof.start(self.path("logs"), steps=(2, 3))
        for _step, _ in mlprof.steps(range(6)):
            pass
        events = chrome_events(mlprof.stop(), self.dir)
        self.assertEqual(sorted(e["args"]["step_num"] for e in events if e["name"] == "train"), [2, 3])

    def test_bad_arguments(self) -> None:
        cases = [
            (lambda: mlprof.steps(5), TypeError, "mlprof.steps: iterable must be iterable, not int"),
            (lambda: mlprof.steps([], name=3), TypeError, "mlprof.steps: name must be a str"),
            (lambda: mlprof.steps([], start="0"), TypeError, "mlprof.steps: start must be an int"),
            (lambda: mlprof.steps([], start=-1), ValueError, "mlprof.steps: start must be >= 0"),
            (lambda: mlprof.steps([], name="a#b"), ValueError, "holds '#'"),
        ]
        for call, kind, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(kind) as caught:
                    call()
                self.assertIn(message, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
