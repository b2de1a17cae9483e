"""mlprof.start_server: sampling mode for a running Python job (`mlprof capture`, the UI's
Capture dialog), and its bad input: a port in use, a second server."""
from __future__ import annotations

import socket
import threading
import time
import unittest

import mlprof
from support import MLPROF, PYTHON, ScratchTest, chrome_events, run, xplane_files


class ServerTest(ScratchTest):
    def tearDown(self) -> None:
        mlprof.stop_server()
        super().tearDown()

    def test_capture_a_running_python_job(self) -> None:
        mlprof.start_server(0)
        port = mlprof.server_port()
        self.assertGreater(port, 0)
        stop = threading.Event()

        def train() -> None:
            step = 0
            while not stop.is_set():
                with mlprof.StepTrace("train", step):
                    with mlprof.Trace("python_work", step=step):
                        time.sleep(0.002)
                step += 1

        worker = threading.Thread(target=train)
        worker.start()
        try:
            logdir = self.path("logs")
            run([MLPROF, "capture", f"127.0.0.1:{port}", "--logdir", logdir, "--duration-ms", "300"])
        finally:
            stop.set()
            worker.join()
        files = xplane_files(logdir)
        self.assertEqual(len(files), 1)
        names = {e["name"] for e in chrome_events(files[0], self.dir)}
        self.assertIn("python_work", names)
        self.assertIn("train", names)

    def test_port_in_use_and_second_server(self) -> None:
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        try:
            with self.assertRaises(mlprof.ProfilerError) as caught:
                mlprof.start_server(taken.getsockname()[1])
            self.assertIn("the port is in use", str(caught.exception))
            self.assertNotIn("\n", str(caught.exception))
        finally:
            taken.close()
        mlprof.start_server(0)
        with self.assertRaises(mlprof.ProfilerError) as caught:
            mlprof.start_server(0)
        self.assertIn("already listens", str(caught.exception))

    def test_port_in_use_is_one_line_and_nothing_on_stderr(self) -> None:
        # gRPC's own log goes to the process' stderr (fd 2), so a separate process is watched.
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        try:
            script = self.write_script("bind.py", f"""
                import mlprof
                try:
                    mlprof.start_server({taken.getsockname()[1]})
                except mlprof.ProfilerError as e:
                    print("refused:", e)
                mlprof.start_server(0)  # gRPC is usable afterwards
                print("then listening:", mlprof.server_port() > 0)
                mlprof.stop_server()
                """)
            done = run([PYTHON, script])
        finally:
            taken.close()
        self.assertEqual(done.stderr, "")
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 2, done.stdout)
        self.assertTrue(lines[0].startswith("refused: mlprof.start_server: cannot listen on 127.0.0.1:"), lines[0])
        self.assertIn("the port is in use", lines[0])
        self.assertEqual(lines[1], "then listening: True")


if __name__ == "__main__":
    unittest.main()
