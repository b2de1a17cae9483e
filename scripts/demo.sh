#!/usr/bin/env bash
# make demo: profile the bundled example training program twice (healthy input, then slow
# input), the LibTorch autoencoder twice (512/128 filters, then 16/8) and a PyTorch script twice
# (DataLoader without, then with workers), print what mlprof finds, and serve the web UI.
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

echo "== mlprof report $logdir --run slow_input =="
"$mlprof" report "$logdir" --run slow_input
echo
echo "== mlprof report $logdir --run healthy_input =="
"$mlprof" report "$logdir" --run healthy_input
echo
echo "== mlprof diff (healthy -> slow input) =="
"$mlprof" diff "$logdir/plugins/profile/healthy_input" "$logdir/plugins/profile/slow_input"

# LibTorch (built when LibTorch is found): the seeds' convolutional autoencoder, profiled with
# no profiling code by `mlprof run`, then the article's fix (16 and 8 filters) against it.
autoencoder="$build/examples/torch_autoencoder"
if [[ -x "$autoencoder" ]] && "$mlprof" run --help >/dev/null 2>&1; then
  echo
  echo "== mlprof run --steps 3:6 -- torch_autoencoder (LibTorch, Conv2D 512/128 filters) =="
  "$mlprof" run --logdir "$logdir" --run-name autoencoder_512_128 --steps 3:6 -- "$autoencoder" --steps 8
  echo
  echo "== mlprof run --steps 3:6 -- torch_autoencoder --filters small (16/8 filters) =="
  "$mlprof" run --logdir "$logdir" --run-name autoencoder_16_8 --steps 3:6 -- "$autoencoder" --steps 8 --filters small
  echo
  echo "== mlprof report $logdir --run autoencoder_512_128 =="
  "$mlprof" report "$logdir" --run autoencoder_512_128
  echo
  echo "== mlprof diff (512/128 filters -> 16/8) =="
  "$mlprof" diff "$logdir/plugins/profile/autoencoder_512_128" "$logdir/plugins/profile/autoencoder_16_8"
fi

# Python (built when Python's headers and pybind11 are found): a PyTorch script profiled with the
# mlprof package, input-bound with num_workers=0, then fixed with loader workers.
if [[ -d "$build/python/mlprof" ]] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  for workers in 0 4; do
    echo
    echo "== python3 examples/python_train/train.py --workers $workers (PyTorch DataLoader, mlprof package) =="
    PYTHONPATH="$build/python" /usr/bin/python3 -W ignore examples/python_train/train.py --logdir "$logdir" \
      --run-name "python_workers_$workers" --workers "$workers"
  done
  echo
  echo "== mlprof report $logdir --run python_workers_0 =="
  "$mlprof" report "$logdir" --run python_workers_0
  echo
  echo "== mlprof diff (num_workers=0 -> 4) =="
  "$mlprof" diff "$logdir/plugins/profile/python_workers_0" "$logdir/plugins/profile/python_workers_4"
fi

port=${MLPROF_DEMO_PORT:-6006}
echo
echo "== Web UI: http://127.0.0.1:$port/ (Ctrl-C to stop) =="
exec "$mlprof" serve "$logdir" --port "$port"
