#!/usr/bin/env bash
# make demo: profile the bundled example training program twice (healthy input, then slow
# input), print what mlprof finds, and serve the web UI.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mlprof="$build/src/cli/mlprof"
logdir=demo-logdir
rm -rf "$logdir"

echo "== Profiling examples/train_loop (30 steps, healthy input) =="
"$build/examples/train_loop" --logdir "$logdir" --run-name healthy_input --steps 30
echo
echo "== Profiling examples/train_loop --slow-input (30 steps) =="
"$build/examples/train_loop" --logdir "$logdir" --run-name slow_input --steps 30 --slow-input
echo

if "$mlprof" report --help >/dev/null 2>&1; then
  echo "== mlprof report $logdir --run slow_input =="
  "$mlprof" report "$logdir" --run slow_input
  echo
  echo "== mlprof report $logdir --run healthy_input =="
  "$mlprof" report "$logdir" --run healthy_input
  echo
  echo "== mlprof diff (healthy -> slow input) =="
  "$mlprof" diff "$logdir/plugins/profile/healthy_input" "$logdir/plugins/profile/slow_input"
else
  echo "== mlprof info $logdir =="
  "$mlprof" info "$logdir"
fi

if "$mlprof" serve --help >/dev/null 2>&1; then
  port=${MLPROF_DEMO_PORT:-6006}
  echo
  echo "== Web UI: http://127.0.0.1:$port/ (Ctrl-C to stop) =="
  exec "$mlprof" serve "$logdir" --port "$port"
fi
