#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets of tests/fuzz with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer) in build-fuzz and runs each for FUZZ_SECONDS, seeded with the
# committed corpus and, when ../shared/testdata exists, real profiles copied from it. Prints
# one line per target; exits non-zero when a target found a crash (saved under
# build-fuzz/fuzz/<target>/crashes/: fix it, then commit the input to
# tests/fuzz/regressions/<target>/ so that fuzz_regression_test replays it).
#
#   FUZZ_SECONDS=60      time per target
#   FUZZ_TARGETS="a b"   only these targets (names without _fuzzer)
#   FUZZ_BUILD=build-fuzz
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}
TESTDATA=../shared/testdata

if [[ ! -f $BUILD/build.ninja ]]; then
  mkdir -p "$BUILD"
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLPROF_FUZZ=ON \
    -DMLPROF_WITH_TORCH=OFF -DMLPROF_WITH_UI=OFF -DMLPROF_WITH_CUDA=OFF -DMLPROF_BUILD_BENCH=OFF \
    > "$BUILD/configure.log" 2>&1 || { cat "$BUILD/configure.log"; exit 1; }
fi

# Every tests/fuzz/<name>_fuzzer.cc that this build has a target for (gRPC's is optional).
available=$(cmake --build "$BUILD" --target help | sed -n 's/^\([a-z_]*\)_fuzzer:.*/\1/p')
targets=()
for source in tests/fuzz/*_fuzzer.cc; do
  name=$(basename "$source" _fuzzer.cc)
  if [[ -n ${FUZZ_TARGETS:-} && " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
  if grep -qx "$name" <<<"$available"; then targets+=("$name"); else echo "fuzz: $name is not built here (optional part missing)"; fi
done
[[ ${#targets[@]} -gt 0 ]] || { echo "fuzz: no target to run"; exit 1; }
cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]/%/_fuzzer}"

# Real files worth seeding each target with, and the largest size taken (bigger inputs make
# each execution slow).
testdata_seeds() {
  case $1 in
    xspace_reader|xspace_importer) find "$TESTDATA/tensorflow" -name '*.xplane.pb' -size -4097k 2>/dev/null ;;
    pytorch_importer) find "$TESTDATA/pytorch" -name '*.json*' -size -257k 2>/dev/null ;;
  esac
}

found=0
for name in "${targets[@]}"; do
  work=$BUILD/fuzz/$name
  rm -rf "$work/crashes" "$work/testdata"
  mkdir -p "$work/corpus" "$work/crashes" "$work/testdata"
  cp tests/fuzz/corpus/"$name"/* "$work/corpus/" 2>/dev/null || true
  if [[ -d $TESTDATA ]]; then
    while IFS= read -r f; do [[ -n $f ]] && cp "$f" "$work/testdata/"; done < <(testdata_seeds "$name")
  fi
  dict=()
  [[ -f tests/fuzz/$name.dict ]] && dict=(-dict="tests/fuzz/$name.dict")
  # The work corpus grows across runs; the real files are read as seeds, never written.
  "$BUILD/tests/fuzz/${name}_fuzzer" "$work/corpus" "$work/testdata" "${dict[@]}" \
    -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" > "$work/fuzz.log" 2>&1 && status=0 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log" | tail -1)
  corpus=$(find "$work/corpus" -type f | wc -l)
  crashes=$(find "$work/crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-17s %10s executions %7s exec/s  corpus %5d  findings %d%s\n' "$name" "${execs:-?}" "${rate:-?}" \
    "$corpus" "$crashes" "$([[ $crashes -gt 0 ]] && echo "  (see $work/fuzz.log and $work/crashes/)")"
  [[ $crashes -eq 0 ]] || found=1
  if [[ $status -ne 0 && $crashes -eq 0 ]]; then
    echo "fuzz: ${name}_fuzzer stopped with status $status and no finding saved (see $work/fuzz.log)"
    found=1
  fi
done
exit $found
