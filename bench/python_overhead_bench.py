"""What profiling costs a Python training loop, against torch.profiler in the same run.

A loop of small ops (a 12-layer MLP of width 32 and its SGD step: about 640 ATen ops per step)
runs under each mode in turn, round after round, so that drift in machine speed cancels; each
figure is the median over rounds of a mode's cost against the unprofiled loop of the same
round. The main figure is the training thread's CPU time (PyTorch runs on one thread here),
which other load on the machine blurs less than wall time; beside it the process's CPU time
(which also counts the profilers' own threads, such as mlprof's session thread preparing buffer
pages ahead of the writers) and wall time. A round runs 60 steps: a session spans many steps.

  time added per step      the mlprof package (mlprof.start), and torch.profiler (CPU), each
                           against no profiling; target: mlprof <= 0.45x torch.profiler.
                           Beside it, LibTorch's callback mechanism alone (an empty
                           RecordFunction callback, bench/empty_op_callback.cc): the floor
                           both profilers stand on.
                           Also per step of a whole window, start and stop included.
                           `mlprof run` (no code change) is measured in a process of its own,
                           against torch.profiler recording a process of its own the same way.
  with mlprof.Trace        an enabled Trace against torch.profiler.record_function while
                           torch.profiler records (target <= 0.5x), and a disabled Trace (no
                           session) against an empty loop (target <= 100 ns).
  python tracer            what python_tracer_level=1 adds to a Python function call.
  same ops                 each profiler on 5 steps of the same loop: op names and counts must
                           be equal (PyTorch folds some calls nested in a call of the same name:
                           those are allowed for) and the ops' total self time within 10 %.

    python3 bench/python_overhead_bench.py       (make bench runs it with the build's package)
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List

import torch

import mlprof

try:  # built beside this script (bench/empty_op_callback.cc); the wrapper puts it on the path
    import _empty_op_callback as empty_op_callback
except ImportError:
    empty_op_callback = None

MLPROF_CLI = os.environ.get("MLPROF_CLI", "mlprof")
ROUNDS, STEPS, WARM_UP = 7, 60, 10
OPS_PER_STEP = 641  # ATen ops in a step of make_loop() (the "same ops" figure counts them)
TRACE_LOOPS = 100_000
# Each profiler's total self time moves by about 10 % from round to round here: the least of
# this many rounds.
SAME_OPS_ROUNDS = 9


def make_loop() -> Callable[[int], None]:
    torch.manual_seed(0)
    layers: List[torch.nn.Module] = []
    for _ in range(12):
        layers += [torch.nn.Linear(32, 32), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 32), torch.randn(8, 32)

    def steps(n: int) -> None:
        for _ in range(n):
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    return steps


def cpu_ns_per(n: int, work: Callable[[int], None]) -> float:
    """CPU time of the calling (training) thread: what a step costs it, as its wall time would
    on a machine with a core to spare, without other load's noise."""
    begin = time.thread_time_ns()
    work(n)
    return (time.thread_time_ns() - begin) / n


def process_cpu_ns_per(n: int, work: Callable[[int], None]) -> float:
    """CPU time of every thread: also what profilers do on threads of their own."""
    begin = time.process_time_ns()
    work(n)
    return (time.process_time_ns() - begin) / n


def child_main(under_torch_profiler: bool) -> None:
    """`--child`: the loop alone, timed, for the `mlprof run` figure (run bare, under `mlprof run`,
    and with torch.profiler recording the whole process the same way)."""
    torch.set_num_threads(1)
    recording = (torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) if under_torch_profiler
                 else contextlib.nullcontext())
    with recording:
        steps = make_loop()
        steps(3)
        print(json.dumps([cpu_ns_per(STEPS, steps) for _ in range(ROUNDS)]))


def wall_ns_per(n: int, work: Callable[[int], None]) -> float:
    begin = time.perf_counter_ns()
    work(n)
    return (time.perf_counter_ns() - begin) / n


def step_costs(scratch: str, clock: Callable[[int, Callable[[int], None]], float]) -> Dict[str, float]:
    steps = make_loop()
    steps(3)  # warm up
    modes = ["none", "mlprof", "torch.profiler"] + (["callback mechanism"] if empty_op_callback else [])
    per_round: Dict[str, List[float]] = {m: [] for m in modes}
    logdir = tempfile.mkdtemp(prefix="steps-", dir=scratch)  # a logdir per call: run names are not reused
    for r in range(ROUNDS):
        per_round["none"].append(clock(STEPS, steps))
        if empty_op_callback:
            empty_op_callback.enable()
            steps(WARM_UP)
            per_round["callback mechanism"].append(clock(STEPS, steps))
            empty_op_callback.disable()
        # Each profiler runs WARM_UP steps before the measured ones: a steady state, as in a
        # long profiled window (the window's start and stop are measured by session_costs).
        mlprof.start(logdir, run_name=f"round{r}")
        steps(WARM_UP)
        per_round["mlprof"].append(clock(STEPS, steps))
        mlprof.stop()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            steps(WARM_UP)
            per_round["torch.profiler"].append(clock(STEPS, steps))
    added = {m: statistics.median(per_round[m][r] - per_round["none"][r] for r in range(ROUNDS)) for m in modes[1:]}
    added["none"] = statistics.median(per_round["none"])
    return added


def session_costs(scratch: str) -> Dict[str, float]:
    """Per step, what a whole profiled window costs the training thread: starting, the steps,
    and stopping (mlprof writes its run; torch.profiler builds its events on exit)."""
    steps = make_loop()
    steps(3)
    costs: Dict[str, List[float]] = {"none": [], "mlprof": [], "torch.profiler": []}
    for r in range(3):
        begin = time.thread_time_ns()
        steps(STEPS)
        costs["none"].append(time.thread_time_ns() - begin)
        begin = time.thread_time_ns()
        mlprof.start(os.path.join(scratch, "window"), run_name=f"round{r}")
        steps(STEPS)
        mlprof.stop()
        costs["mlprof"].append(time.thread_time_ns() - begin)
        begin = time.thread_time_ns()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            steps(STEPS)
        costs["torch.profiler"].append(time.thread_time_ns() - begin)
    base = statistics.median(costs["none"])
    return {m: (statistics.median(costs[m]) - base) / STEPS for m in ("mlprof", "torch.profiler")}


def run_command_cost() -> Dict[str, float]:
    """Time `mlprof run` adds per step, against the same child process without it; and, measured
    the same way, what torch.profiler adds when it records the whole child. Figures taken across
    processes come out higher than the paired rounds of one process (for every profiler, and for
    an empty callback too), so the ratio is of like with like."""
    me = os.path.abspath(__file__)

    def child(prefix: List[str], *args: str) -> float:
        out = subprocess.run(prefix + [sys.executable, me, "--child", *args], check=True, capture_output=True,
                             text=True).stdout
        return statistics.median(json.loads(out))

    with tempfile.TemporaryDirectory() as logdir:
        bare = child([])
        return {"mlprof run": child([MLPROF_CLI, "run", "--logdir", logdir, "--"]) - bare,
                "torch.profiler": child([], "torch.profiler") - bare}


def trace_costs(scratch: str) -> Dict[str, float]:
    n = TRACE_LOOPS
    trace, record_function = mlprof.Trace, torch.profiler.record_function

    def empty() -> None:
        for _ in range(n):
            pass

    def traced() -> None:
        for _ in range(n):
            with trace("step_part"):
                pass

    def recorded(count: int) -> None:
        for _ in range(count):
            with record_function("step_part"):
                pass

    costs: Dict[str, List[float]] = {"disabled": [], "enabled": [], "record_function": []}
    for r in range(ROUNDS):
        base = cpu_ns_per(1, lambda _: empty()) / n
        costs["disabled"].append(cpu_ns_per(1, lambda _: traced()) / n - base)
        mlprof.start(os.path.join(scratch, "trace"), run_name=f"round{r}")
        costs["enabled"].append(cpu_ns_per(1, lambda _: traced()) / n - base)
        mlprof.stop()
        few = n // 20  # record_function costs microseconds: fewer iterations
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            costs["record_function"].append(cpu_ns_per(few, recorded) - base)
    return {k: statistics.median(v) for k, v in costs.items()}


def calls_in_same_name_parent(run_dir: str, scratch: str) -> Dict[str, int]:
    """Per op name, the calls made directly inside a call of the same name that has no other
    child (aten::div_ calling aten::div_): PyTorch's EventList._remove_dup_nodes folds those into
    their parent when its microsecond-rounded times nest them, so torch.profiler counts them
    only sometimes."""
    out = os.path.join(scratch, "events.json")
    subprocess.run([MLPROF_CLI, "convert", run_dir, "--to", "chrome", "-o", out], check=True, capture_output=True)
    with open(out) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    events.sort(key=lambda e: (e["pid"], e["tid"], e["ts"], -e["dur"]))
    children: Dict[int, List[int]] = {}
    parent_of: Dict[int, int] = {}
    stack: List[int] = []
    for i, e in enumerate(events):
        while stack and (events[stack[-1]]["tid"] != e["tid"] or events[stack[-1]]["pid"] != e["pid"] or
                         events[stack[-1]]["ts"] + events[stack[-1]]["dur"] < e["ts"] + e["dur"]):
            stack.pop()
        if stack:
            parent_of[i] = stack[-1]
            children.setdefault(stack[-1], []).append(i)
        stack.append(i)
    folded: Dict[str, int] = {}
    for i, p in parent_of.items():
        if events[p]["name"] == events[i]["name"] and len(children[p]) == 1:
            folded[events[i]["name"]] = folded.get(events[i]["name"], 0) + 1
    return folded


def op_table(run_dir: str) -> Dict[str, List[float]]:
    stats = json.loads(subprocess.run([MLPROF_CLI, "report", run_dir, "--tool", "framework_op_stats", "--format",
                                       "json"], check=True, capture_output=True, text=True).stdout)
    return {row["operation"]: [row["occurrences"], row["total_self_time_ms"]] for row in stats["ops"]}


def python_call_cost(scratch: str) -> Dict[str, float]:
    """What python_tracer_level=1 adds to a call of a small Python function."""
    def small() -> int:
        return 1

    def calls(n: int) -> None:
        for _ in range(n):
            small()

    costs: Dict[str, List[float]] = {"none": [], "traced": []}
    for r in range(ROUNDS):
        costs["none"].append(cpu_ns_per(TRACE_LOOPS, calls))
        mlprof.start(os.path.join(scratch, "python"), python_tracer_level=1, run_name=f"round{r}")
        costs["traced"].append(cpu_ns_per(TRACE_LOOPS, calls))
        mlprof.stop()
    return {k: statistics.median(v) for k, v in costs.items()}


def same_ops(scratch: str) -> List[str]:
    """Each profiler on 5 steps of the same loop, in turns over rounds; returns what differs."""
    steps = make_loop()
    steps(2)
    ours: Dict[str, List[float]] = {}
    theirs: Dict[str, List[float]] = {}
    self_ours: List[float] = []
    self_theirs: List[float] = []
    for r in range(SAME_OPS_ROUNDS):
        mlprof.start(os.path.join(scratch, "same"), run_name=f"round{r}")
        steps(5)
        run_dir = mlprof.stop()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            steps(5)
        ours = op_table(run_dir)
        theirs = {}
        for e in prof.key_averages():
            name = e.key.split("#")[0]  # "Optimizer.step#SGD.step": mlprof's op stats name the part before '#'
            count, self_ms = theirs.get(name, [0, 0.0])
            theirs[name] = [count + e.count, self_ms + e.self_cpu_time_total / 1000]
        self_ours.append(sum(v[1] for v in ours.values()))
        self_theirs.append(sum(v[1] for v in theirs.values()))
    folded = calls_in_same_name_parent(run_dir, scratch)
    problems = [f"only torch.profiler: {n}" for n in sorted(set(theirs) - set(ours))]
    problems += [f"only mlprof: {n}" for n in sorted(set(ours) - set(theirs))]
    for n in sorted(set(ours) & set(theirs)):
        if not theirs[n][0] <= ours[n][0] <= theirs[n][0] + folded.get(n, 0):
            problems.append(f"{n}: {ours[n][0]} calls in mlprof, {theirs[n][0]} in torch.profiler")
    # Other load only ever adds time (a preempted op looks longer): the least of the rounds.
    a, b = min(self_ours), min(self_theirs)
    calls = sum(int(v[0]) for v in ours.values())
    print(f"same ops (each profiler on 5 steps): {len(ours)} op names and {calls} calls in mlprof, "
          f"{len(theirs)} names and {sum(int(v[0]) for v in theirs.values())} calls in torch.profiler, which folds "
          f"{sum(folded.values())} calls made inside a call of the same name; ops' self time (least of "
          f"{SAME_OPS_ROUNDS} rounds) {a:.3f} ms vs {b:.3f} ms ({100 * (a / b - 1):+.1f} %, target within 10 %: "
          f"{verdict(abs(a / b - 1) <= 0.10)})")
    # Names and counts must match; times are reported (other load on the machine moves them).
    return problems


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def main() -> int:
    torch.set_num_threads(1)
    print(f"PyTorch {torch.__version__} (Kineto: {torch.autograd.kineto_available()}), {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as scratch:
        for clock_name, clock in (("training thread's CPU time", cpu_ns_per),
                                  ("process CPU time", process_cpu_ns_per), ("wall time", wall_ns_per)):
            added = step_costs(scratch, clock)
            ratio = added["mlprof"] / added["torch.profiler"]
            print(f"step of ~640 ATen ops, {clock_name}: {added['none'] / 1e3:.1f} us unprofiled; added per step: "
                  f"mlprof package {added['mlprof'] / 1e3:.1f} us, torch.profiler {added['torch.profiler'] / 1e3:.1f} "
                  f"us -> {ratio:.2f}x (target <= 0.45x: {verdict(ratio <= 0.45)})")
            if "callback mechanism" in added:
                floor = added["callback mechanism"]
                print(f"  of which LibTorch's callback mechanism alone (an empty RecordFunction callback, which both "
                      f"profilers pay): {floor / 1e3:.1f} us = {floor / added['torch.profiler']:.2f}x torch.profiler's; "
                      f"mlprof's own work above it {(added['mlprof'] - floor) / 1e3:.1f} us, "
                      f"{(added['mlprof'] - floor) / OPS_PER_STEP:.0f} ns per op")
        window = session_costs(scratch)
        print(f"a profiled window of {STEPS} steps, start to stop (training thread's CPU time): added per step "
              f"mlprof package {window['mlprof'] / 1e3:.1f} us (writing the run included), torch.profiler "
              f"{window['torch.profiler'] / 1e3:.1f} us (building its events included) -> "
              f"{window['mlprof'] / window['torch.profiler']:.2f}x")
        run = run_command_cost()
        print(f"mlprof run (no code change), each profiler over a whole process of its own: added per step "
              f"{run['mlprof run'] / 1e3:.1f} us, torch.profiler {run['torch.profiler'] / 1e3:.1f} us -> "
              f"{run['mlprof run'] / run['torch.profiler']:.2f}x (training thread's CPU time)")
        t = trace_costs(scratch)
        print(f"with mlprof.Trace: enabled {t['enabled']:.0f} ns vs torch.profiler.record_function "
              f"{t['record_function']:.0f} ns -> {t['enabled'] / t['record_function']:.3f}x (target <= 0.5x: "
              f"{verdict(t['enabled'] <= 0.5 * t['record_function'])}); disabled {t['disabled']:.0f} ns (target <= 100 ns: "
              f"{verdict(t['disabled'] <= 100)})")
        c = python_call_cost(scratch)
        print(f"python_tracer_level=1: a call of a small Python function {c['none']:.0f} ns, "
              f"+{c['traced'] - c['none']:.0f} ns traced")
        problems = same_ops(scratch)
    for p in problems:
        print(f"  differs: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    if "--child" in sys.argv:
        child_main("torch.profiler" in sys.argv)
    else:
        sys.exit(main())
