// Steps of a program that marks none (docs/ARCHITECTURE.md §5.1): found from the device's
// repeated module runs (an XLA program run once a step), else from the program's repeated jit
// calls (JAX's PjitFunction dispatches), else from the step thread's repeated DataLoader fetches
// (the natural PyTorch loop), else from the repeated sequence of the device's kernels (of the
// host's top-level ops where there is no device). step_grouping.cc reads them where a host has
// no step markers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// The step_marker keys of inferred steps (OverviewPage::step_marker).
inline constexpr std::string_view kModuleRunSteps = "module runs";
inline constexpr std::string_view kJitCallSteps = "jit calls";
inline constexpr std::string_view kDataLoaderFetchSteps = "DataLoader fetches";
// Steps from a repeated sequence: the key is a phrase, "a repeated sequence of 39 kernels".
inline constexpr std::string_view kRepeatedSequenceSteps = "a repeated sequence of ";

struct InferredSteps {
  std::vector<model::EventIndex> roots;  // one event a step, in time order: a module run, a call, a fetch
  std::vector<int64_t> end_ps;           // each step's end: the next step's start (the last: see below)
  // kModuleRunSteps, kJitCallSteps, kDataLoaderFetchSteps, or kRepeatedSequenceSteps and what
  // repeats ("a repeated sequence of 39 kernels"); empty: none
  std::string kind;
  // Where the last step ends is unknown (no next run or fetch ends it: the capture stopped
  // first): it is incomplete.
  bool last_incomplete = false;
};

InferredSteps infer_steps(const model::Profile& profile, uint32_t host);

// The period of a sequence of names: the shortest one whose repeats (two at least, back to
// back) cover the most items, and two thirds of them at least; a repeat holds two items and
// two names at least. `first` is where the repeats start, `covered` how many items they take;
// period 0 when nothing repeats so.
struct SequencePeriod {
  size_t period = 0, first = 0, covered = 0;
};
SequencePeriod find_sequence_period(const std::vector<uint32_t>& names);

}  // namespace mlprof::analysis
