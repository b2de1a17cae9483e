#!/usr/bin/env bash
# Installs mlprof into a scratch prefix, then builds and runs an outside project that uses
# find_package(mlprof) and target_link_libraries(app mlprof::mlprof).
set -euo pipefail
build_dir=$1
source_dir=$2
sanitize_flags=${3:-}  # the build's -fsanitize flags, for the consumer too
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/mlprof"
test -f "$work/prefix/include/mlprof/mlprof.h"

cmake -S "$source_dir/tests/install/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$sanitize_flags" -DCMAKE_EXE_LINKER_FLAGS="$sanitize_flags" >/dev/null
cmake --build "$work/build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer" "$work/logdir"

ls "$work"/logdir/plugins/profile/*/*.xplane.pb >/dev/null
ls "$work"/logdir/events.out.tfevents.*.profile-empty >/dev/null
# The installed CLI reads what the installed SDK wrote.
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/prefix/bin/mlprof" info "$work/logdir" | grep -q '/host:CPU'
echo "install test: find_package(mlprof) project built, ran and wrote a profile"
