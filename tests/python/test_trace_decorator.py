"""@mlprof.Trace(name) times each call of a plain function, the whole call; a coroutine or
generator function, whose call only makes the coroutine or generator, is refused at decoration
with one line saying how to trace it instead."""
from __future__ import annotations

import asyncio
import time
import unittest

import mlprof
from support import ScratchTest, chrome_events, one_line

SLEEP_S = 0.02


class DecoratorTest(ScratchTest):
    def test_each_call_of_a_function_is_timed_whole(self) -> None:
        @mlprof.Trace("slow_call", kind="fn")
        def slow(x: int) -> int:
            time.sleep(SLEEP_S)
            return x + 1

        class Model:
            @mlprof.Trace("method_call")
            def forward(self) -> str:
                time.sleep(SLEEP_S)
                return "done"

        mlprof.start(self.path("logs"))
        try:
            self.assertEqual([slow(1), slow(2)], [2, 3])
            self.assertEqual(Model().forward(), "done")
        finally:
            events = chrome_events(mlprof.stop(), self.dir)
        self.assertEqual(slow.__name__, "slow")  # functools.wraps
        calls = [e for e in events if e["name"] == "slow_call"]
        self.assertEqual(len(calls), 2)
        for event in calls + [e for e in events if e["name"] == "method_call"]:
            self.assertGreaterEqual(event["dur"], SLEEP_S * 1e6)  # µs: the sleep, not just the call's start

    def test_coroutine_and_generator_functions_are_refused_with_the_way_to_trace_them(self) -> None:
        async def fetch() -> int:
            await asyncio.sleep(SLEEP_S)
            return 1

        def read():
            yield 1

        async def stream():
            yield 1

        class Handler:
            async def __call__(self) -> None:
                await asyncio.sleep(0)

        cases = [
            (fetch, "coroutine function", "around work with no await"),
            (read, "generator function", "around work with no yield"),
            (stream, "async generator function", "around work with no await"),
            (Handler(), "coroutine function", "around work with no await"),
            (Handler().__call__, "coroutine function", "around work with no await"),
        ]
        for function, kind, advice in cases:
            with self.subTest(kind=kind, function=function):
                with self.assertRaises(TypeError) as caught:
                    mlprof.Trace("load")(function)
                message = one_line(caught.exception)
                self.assertIn(f"cannot decorate {kind}", message)
                self.assertIn("put `with mlprof.Trace('load'):` inside it", message)
                self.assertIn(advice, message)

    def test_the_advice_works_for_a_coroutine(self) -> None:
        async def fetch() -> int:
            with mlprof.Trace("fetch_work"):
                time.sleep(SLEEP_S)  # work with no await
            await asyncio.sleep(0)
            return 1

        async def main() -> list:
            return await asyncio.gather(fetch(), fetch())

        mlprof.start(self.path("logs"))
        try:
            self.assertEqual(asyncio.run(main()), [1, 1])
        finally:
            events = chrome_events(mlprof.stop(), self.dir)
        work = [e for e in events if e["name"] == "fetch_work"]
        self.assertEqual(len(work), 2)
        self.assertTrue(all(e["dur"] >= SLEEP_S * 1e6 for e in work))


if __name__ == "__main__":
    unittest.main()
