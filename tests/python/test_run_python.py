"""`mlprof run -- python3 train.py`: an unmodified PyTorch training script (Debian's
python3-torch) profiled with no code change (README "Profile a program without
changing it").

Expected values come from outside mlprof: the script times its own iterations and its waits
in next() with time.perf_counter (train_script.py), and its dataset sleeps a known time per
batch, so the input share mlprof reports must match the script's own clock (±3 points)."""
from __future__ import annotations

import json
import os
import shutil
import unittest

from support import MLPROF, PYTHON, ScratchTest, chrome_events, op_rows, report, run, run_dirs, xplane_files

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "train_script.py")


class RunPythonTest(ScratchTest):
    def profile(self, sleep_ms: int, workers: int, steps: int, device_ms: int, *options: str) -> dict:
        logdir, out = self.path("logs"), self.path("iterations.json")
        done = run([MLPROF, "run", "--logdir", logdir, *options, "--", PYTHON, SCRIPT, str(sleep_ms), str(workers),
                    str(steps), out, str(device_ms)])
        self.assertIn("mlprof run: read the profile with", done.stderr)
        # Forked loader workers write nothing: one run, one host file.
        self.assertEqual(len(run_dirs(logdir)), 1, run_dirs(logdir))
        self.assertEqual(len(xplane_files(logdir)), 1, xplane_files(logdir))
        with open(out) as f:
            measured = json.load(f)["iterations"]
        return {"logdir": logdir, "iterations": measured}

    def script_input_pct(self, iterations: list, steps: list) -> float:
        chosen = [iterations[s] for s in steps if s < len(iterations)]
        self.assertGreaterEqual(len(chosen), len(steps) - 1)
        return 100 * sum(i["wait_s"] for i in chosen) / sum(i["total_s"] for i in chosen)

    def test_input_bound_loader_ops_labels_and_steps(self) -> None:
        sleep_ms, steps = 8, 16
        p = self.profile(sleep_ms, 0, steps, 8)
        overview = report(p["logdir"], "overview_page")
        summary = overview["summary"]
        # One step per DataLoader batch, numbered from 0 as the script counts its iterations.
        self.assertIn("DataLoader batch", summary["step_marker"])
        step_numbers = [s["step"] for s in overview["steps"]]
        self.assertGreaterEqual(len(step_numbers), steps - 3)
        expected = self.script_input_pct(p["iterations"], step_numbers)
        # The dataset's sleep is what the script waited for.
        self.assertGreaterEqual(sum(i["wait_s"] for i in p["iterations"]), (steps - 1) * sleep_ms / 1000)
        self.assertAlmostEqual(overview["input_bound"]["input_pct"], expected, delta=3.0)
        self.assertGreater(expected, 10)  # a share worth measuring
        # ATen ops and the record_function label, in op stats with the loader's wait.
        ops = op_rows_by_name(report(p["logdir"], "framework_op_stats"))
        # The loader's scope is named as torch.profiler names it, with the iterator's class.
        for name in ("aten::linear", "aten::addmm", "aten::mse_loss", "model_forward",
                     "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"):
            self.assertIn(name, ops)
        self.assertEqual(ops["model_forward"]["occurrences"], steps)
        self.assertEqual(ops["aten::mse_loss"]["occurrences"], steps)

    def test_enough_workers_take_the_input_off_the_step(self) -> None:
        # Whether 4 workers hide the loading is PyTorch's doing and needs free cores: on a
        # machine too loaded to run them the script's own clock shows the wait, and the run is
        # tried again (mlprof must still agree with that clock).
        measured = []
        for attempt in range(3):
            # Steps 4 to 15: after the workers started (as Keras' profile_batch skips warm-up).
            p = self.profile(4, 4, 20, 50, "--steps", "4:15")
            overview = report(p["logdir"], "overview_page")
            step_numbers = [s["step"] for s in overview["steps"]]
            self.assertTrue(step_numbers and min(step_numbers) >= 4 and max(step_numbers) <= 15, step_numbers)
            expected = self.script_input_pct(p["iterations"], step_numbers)
            reported = overview["input_bound"]["input_pct"]
            self.assertAlmostEqual(reported, expected, delta=3.0)
            if expected < 4.0:
                self.assertLess(reported, 5.0)
                return
            measured.append(f"{expected:.1f}%")
            shutil.rmtree(p["logdir"])
        self.skipTest(f"the machine was too loaded to feed the loop: its own clock measured {', '.join(measured)} input")

    def test_memory_at_host_tracer_level_3(self) -> None:
        p = self.profile(1, 0, 6, 0, "--host-tracer-level", "3")
        memory = report(p["logdir"], "memory_profile")
        text = json.dumps(memory)
        self.assertIn("cpu", text)
        self.assertGreater(memory_peak_bytes(memory), 128 * 256 * 4)  # the first layer's weights are live

    def test_exit_with_the_session_running_is_clean_whatever_the_import_order(self) -> None:
        # LibTorch makes its callback registry on mlprof's first addGlobalCallback and destroys
        # it at exit before earlier exit handlers run; the session written at exit then removed
        # its callbacks from a destroyed registry (LibTorch said "Requested callback is not
        # found", or worse). Both ways a session outlives the script: `mlprof run`, and a
        # package session never stopped.
        for first, second in (("torch", "mlprof"), ("mlprof", "torch")):
            for under_run in (True, False):
                with self.subTest(first=first, under_run=under_run):
                    logdir = self.path(f"logs_{first}_{under_run}")
                    start = "" if under_run else f"mlprof.start({logdir!r})"
                    script = self.write_script("exit.py", f"""
                        import {first}
                        import {second}
                        {start}
                        x = torch.randn(16, 16)
                        with mlprof.Trace("matmul", tag="a"):
                            y = x @ x
                        """)
                    args = [MLPROF, "run", "--logdir", logdir, "--", PYTHON, script] if under_run else [PYTHON, script]
                    done = run(args)
                    self.assertNotIn("callback", done.stderr.lower(), done.stderr)
                    self.assertIn("mlprof: ", done.stderr)
                    self.assertIn("wrote", done.stderr)
                    self.assertEqual(len(xplane_files(logdir)), 1, xplane_files(logdir))
                    ops = op_rows_by_name(report(logdir, "framework_op_stats"))
                    self.assertIn("aten::mm", ops)
                    self.assertIn("matmul", ops)

    def test_a_script_with_its_own_session_runs_and_chooses_what_is_recorded(self) -> None:
        # The script's start()/stop() (or Profile block) take over from the session `mlprof run`
        # started: the script's run is written whole, nothing of the environment's, exit 0.
        sessions = {
            "start_stop": "mlprof.start(own_logdir)\ntrain(6)\nprint('run:', mlprof.stop())",
            "profile_block": "with mlprof.Profile(own_logdir) as p:\n    train(6)\nprint('run:', p.run_dir)",
            "profile_steps": "with mlprof.Profile(own_logdir, steps=(2, 4)) as p:\n    train(6)\nprint('run:', p.run_dir)",
        }
        expected_steps = {"start_stop": [0, 1, 2, 3, 4, 5], "profile_block": [0, 1, 2, 3, 4, 5],
                          "profile_steps": [2, 3, 4]}
        for name, session in sessions.items():
            with self.subTest(session=name):
                run_logdir, own_logdir = self.path(f"run_{name}"), self.path(f"own_{name}")
                script = self.write_script(f"{name}.py", "import mlprof\n\n"
                                           "def train(steps):\n"
                                           "    for step in range(steps):\n"
                                           "        with mlprof.StepTrace('train', step):\n"
                                           "            sum(range(1000))\n\n"
                                           f"own_logdir = {own_logdir!r}\n" + session + "\n"
                                           "print('active:', mlprof.is_active())\n")
                done = run([MLPROF, "run", "--logdir", run_logdir, "--", PYTHON, script])  # exit status 0
                self.assertIn("active: False", done.stdout)
                self.assertEqual(len(run_dirs(own_logdir)), 1, done.stderr)
                self.assertIn(f"run: {run_dirs(own_logdir)[0]}\n", done.stdout)
                self.assertEqual(xplane_files(run_logdir), [], done.stderr)
                self.assertIn(f"the program starts its own profiling session (writing to {own_logdir})", done.stderr)
                self.assertEqual(train_step_numbers(own_logdir, self.dir), expected_steps[name])


def train_step_numbers(logdir: str, scratch: str) -> list:
    return sorted(e["args"]["step_num"] for e in chrome_events(xplane_files(logdir)[0], scratch) if e["name"] == "train")


def op_rows_by_name(stats: dict) -> dict:
    return {row["operation"]: row for row in stats["ops"]}


def memory_peak_bytes(memory: dict) -> float:
    peaks = []

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, (int, float)) and "peak" in key and "bytes" in key:
            peaks.append(value)
        elif isinstance(value, (int, float)) and "peak" in key and key.endswith("_mib"):
            peaks.append(value * 2**20)

    walk(memory)
    return max(peaks) if peaks else 0


if __name__ == "__main__":
    unittest.main()
