#!/usr/bin/env bash
# Behaviour check for refactors: runs two mlprof binaries (A, the reference, and B, the
# candidate) over the same inputs and reports every output that is not byte-identical.
#
#   scripts/compare_outputs.sh A B [--demo BUILD] [--keep DIR] [EXTRA_INPUT...]
#
# Inputs: every profile in ../shared/testdata, wild/ included (relative to the project root;
# MLPROF_TESTDATA names another place; wild/'s JSON files that are no profiles are compared
# as refused inputs), the fuzz
# corpora's XSpace and PyTorch files in tests/fuzz/corpus, and any EXTRA_INPUT (a file, a run
# or a logdir). --demo BUILD first records the demo's two train_loop runs (healthy and slow
# input) with BUILD/examples/train_loop into a temporary logdir, once, and adds them.
#
# Per input: `mlprof info`; `mlprof report` with every tool A lists in `report --help`, in
# text, JSON and CSV (plus the tools' options that change the output); `mlprof convert` to
# xplane, chrome and perfetto (the written file is compared too); `mlprof diff` between the
# two trace_compare traces and between the demo runs. Stdout, stderr and the exit status are
# compared. TOOLS="a b c" overrides the tool list.
#
# Prints one line per differing output ("DIFF <case>: <what>") and a summary; exits 1 when any
# output differs, 2 on a usage error. Run it with A twice (`A A`) to check A is deterministic.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '4,5p' "$0" | sed 's/^# *//' >&2; exit 2; }
[[ $# -ge 2 ]] || usage
bin_a=$(readlink -f "$1"); bin_b=$(readlink -f "$2"); shift 2
for b in "$bin_a" "$bin_b"; do
  [[ -x "$b" ]] || { echo "compare_outputs: $b is not an executable" >&2; exit 2; }
done

demo_build=""; keep=""; extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --demo) demo_build=${2:?--demo needs a build folder}; shift 2 ;;
    --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
    -h|--help) usage ;;
    *) extra+=("$(readlink -f "$1")"); shift ;;
  esac
done

work=$(mktemp -d /tmp/mlprof-compare.XXXXXX)
cleanup() { [[ -n "$keep" ]] && { mkdir -p "$keep"; cp -r "$work"/. "$keep"/; }; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/A" "$work/B" "$work/out"

testdata=${MLPROF_TESTDATA:-../shared/testdata}
inputs=()
if [[ -d "$testdata" ]]; then
  while IFS= read -r f; do inputs+=("$(readlink -f "$f")"); done < <(
    find "$testdata/tensorflow" "$testdata/pytorch" "$testdata/wild" -type f \
      \( -name '*.xplane.pb' -o -name '*.json' -o -name '*.json.gz' \) | sort)
  inputs+=("$(readlink -f "$testdata/tensorflow")")   # the folder as a run
else
  echo "compare_outputs: $testdata is absent; comparing the repository's corpus files only" >&2
fi
while IFS= read -r f; do inputs+=("$(readlink -f "$f")"); done < <(
  find tests/fuzz/corpus -type f \( -name '*.xplane.pb' -o -name '*.json.gz' \) | sort)

demo_logdir=""
if [[ -n "$demo_build" ]]; then
  demo_logdir="$work/demo-logdir"
  for run in healthy_input slow_input; do
    flag=(); [[ $run == slow_input ]] && flag=(--slow-input)
    "$demo_build/examples/train_loop" --logdir "$demo_logdir" --run-name "$run" --steps 30 \
      "${flag[@]}" > /dev/null || { echo "compare_outputs: demo run $run failed" >&2; exit 2; }
    inputs+=("$demo_logdir/plugins/profile/$run")
  done
fi
inputs+=("${extra[@]}")

if [[ -z "${TOOLS:-}" ]]; then
  # The tool list is the line after "--tool" in A's help: "a, b, c or d".
  TOOLS=$("$bin_a" report --help | sed -n '/--tool/{n;p;}' | sed 's/,/ /g; s/ or / /')
fi
read -r -a tools <<< "$TOOLS"
[[ ${#tools[@]} -gt 0 ]] || { echo "compare_outputs: no tool list from $bin_a" >&2; exit 2; }

cases=0; diffs=0
# run_case NAME ARGS...: runs A then B with the same arguments; "@OUT@" in an argument is a
# scratch folder both write into in turn (same path, so messages naming it are equal); what
# they write there is compared too.
run_case() {
  local name=$1; shift
  local side bin args a out
  cases=$((cases + 1))
  for side in A B; do
    [[ $side == A ]] && bin=$bin_a || bin=$bin_b
    out="$work/out/$name"; rm -rf "$out"; mkdir -p "$out"
    args=(); for a in "$@"; do args+=("${a//@OUT@/$out}"); done
    "$bin" "${args[@]}" > "$work/$side/$name.stdout" 2> "$work/$side/$name.stderr"
    echo $? > "$work/$side/$name.status"
    mv "$out" "$work/$side/$name.written"
  done
  local what=()
  for part in stdout stderr status written; do
    if [[ -e "$work/A/$name.$part" || -e "$work/B/$name.$part" ]]; then
      diff -r -q "$work/A/$name.$part" "$work/B/$name.$part" > /dev/null || what+=("$part")
    fi
  done
  if [[ ${#what[@]} -gt 0 ]]; then
    diffs=$((diffs + 1))
    echo "DIFF $name: ${what[*]} ($*)"
  fi
}

key() { echo "$(basename "$(dirname "$1")")/$(basename "$1")" | sed 's/[^A-Za-z0-9_.-]/_/g'; }
for in in "${inputs[@]}"; do
  k=$(key "$in")
  run_case "$k.info" info "$in"
  for tool in "${tools[@]}"; do
    for fmt in text json csv; do
      run_case "$k.$tool.$fmt" report "$in" --tool "$tool" --format "$fmt"
    done
  done
  run_case "$k.framework_op_stats.idle" report "$in" --tool framework_op_stats --include-idle
  for sort in requested occurrences op; do
    run_case "$k.memory_profile.$sort" report "$in" --tool memory_profile --sort "$sort" --format json
  done
  run_case "$k.memory_profile.filter" report "$in" --tool memory_profile --filter Conv
  [[ -f "$in" ]] && run_case "$k.to-xplane" convert "$in" --to xplane -o @OUT@/out.xplane.pb
  run_case "$k.to-chrome" convert "$in" --to chrome -o @OUT@/out.json
  run_case "$k.to-perfetto" convert "$in" --to perfetto -o @OUT@/out.pftrace
done

if [[ -d "$testdata/pytorch" ]]; then
  run_case "diff.trace_compare" diff "$(readlink -f "$testdata/pytorch/trace_compare__base__base.json.gz")" \
    "$(readlink -f "$testdata/pytorch/trace_compare__test__test.json.gz")"
fi
if [[ -n "$demo_logdir" ]]; then
  run_case "diff.demo" diff "$demo_logdir/plugins/profile/healthy_input" \
    "$demo_logdir/plugins/profile/slow_input"
  run_case "demo.logdir" report "$demo_logdir" --run slow_input
fi

echo "compare_outputs: $cases outputs compared over ${#inputs[@]} inputs and ${#tools[@]} tools, $diffs differ"
[[ $diffs -eq 0 ]]
