// Steps of a program that marks none (docs/ARCHITECTURE.md §5.1): found from the device's
// repeated module runs (an XLA program run once a step), else from the program's repeated jit
// calls (JAX's PjitFunction dispatches), else from the step thread's repeated DataLoader fetches
// (the natural PyTorch loop). step_grouping.cc reads them where a host has no step markers.
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

struct InferredSteps {
  std::vector<model::EventIndex> roots;  // one event a step, in time order: a module run, a call, a fetch
  std::vector<int64_t> end_ps;           // each step's end: the next step's start (the last: see below)
  std::string kind;                      // kModuleRunSteps, kJitCallSteps, kDataLoaderFetchSteps; empty: none
  // Where the last step ends is unknown (no next run or fetch ends it: the capture stopped
  // first): it is incomplete.
  bool last_incomplete = false;
};

InferredSteps infer_steps(const model::Profile& profile, uint32_t host);

}  // namespace mlprof::analysis
