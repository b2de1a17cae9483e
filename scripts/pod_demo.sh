#!/usr/bin/env bash
# make pod-demo: sampling mode with several workers. Starts three copies of the example
# training program, each with a profiler server on a free loopback port (the second one with
# slow input: the straggler), captures all three at once into one run with `mlprof capture`,
# and shows the pod viewer, which names the slowest worker and why.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mlprof="$build/src/cli/mlprof"
train_loop="$build/examples/train_loop"
logdir=pod-demo-logdir
work=$(mktemp -d)
rm -rf "$logdir"

pids=()
stop_workers() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop_workers EXIT

# Each worker prints "profiler server listening on 127.0.0.1:PORT" once it serves.
start_worker() {
  local name=$1; shift
  "$train_loop" --server-port 0 --steps 100000 "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}
port_of() {
  local log="$work/$1.log"
  for _ in $(seq 300); do
    local port
    port=$(sed -n 's/^profiler server listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    sleep 0.1
  done
  echo "pod_demo: worker $1 did not start:" >&2
  cat "$log" >&2
  return 1
}

echo "== Starting three workers (worker 2 with slow input) =="
start_worker worker1
start_worker worker2 --slow-input
start_worker worker3
addresses=""
for w in worker1 worker2 worker3; do
  port=$(port_of "$w")
  echo "  $w: 127.0.0.1:$port"
  addresses="${addresses:+$addresses,}127.0.0.1:$port"
done
sleep 1  # let every worker get past its first steps

echo
echo "== mlprof capture $addresses --logdir $logdir --duration-ms 2000 =="
"$mlprof" capture "$addresses" --logdir "$logdir" --duration-ms 2000

echo
echo "== mlprof report $logdir --tool pod_viewer =="
"$mlprof" report "$logdir" --tool pod_viewer

echo
echo "See it in the browser: $mlprof serve $logdir (the Pod viewer tool, with All hosts)."

# Many ranks of one job: torch.distributed on the CPU (gloo), rank 2 of 4 doing 30 ms of extra work
# before its all_reduces; the stragglers tool names it from the ranks' arrival at the collectives.
if /usr/bin/python3 -c "import torch.distributed" 2>/dev/null; then
  traces="$logdir/gloo_job"
  echo
  echo "== python3 examples/python_distributed/train_gloo.py --ranks 4 --slow-rank 2 (torch.distributed, gloo) =="
  /usr/bin/python3 -W ignore examples/python_distributed/train_gloo.py --out "$traces" --ranks 4 --slow-rank 2
  echo
  echo "== mlprof report $traces --tool stragglers =="
  "$mlprof" report "$traces" --tool stragglers
fi
