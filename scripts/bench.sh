#!/usr/bin/env bash
# make bench: runs every benchmark; each prints its figures as readable one-line summaries.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
status=0
for b in "$build"/bench/*_bench; do
  [[ -x "$b" ]] || continue
  echo "== $(basename "$b") =="
  "$b" || status=1
  echo
done
# Ingest on a machine without AVX-512: the same binary with its run-time kernels held to AVX2,
# so that one run shows both kinds of machine.
if grep -qw avx512f /proc/cpuinfo && [[ -x "$build/bench/parallel_ingest_bench" ]]; then
  echo "== parallel_ingest_bench, AVX2 kernels (as on a machine without AVX-512) =="
  SIMDJSON_FORCE_IMPLEMENTATION=haswell MLPROF_JSON_SCANNER_BITS=256 \
    "$build/bench/parallel_ingest_bench" gzip_report plain_json_report || status=1
  echo
fi
exit $status
