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
exit $status
