// What the host's Python code was doing while the step waited for input: the frame that holds
// most of the wait, named from the trace's Python stacks (PyTorch's python_function events,
// TraceMe's "$file.py" frames). The input ops alone can miss it: a Hugging Face pipeline that
// preprocesses on the step's thread before copying its batch shows only the copy as an input op,
// while the device waits for the whole preprocessing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct InputWaitCallee {
  int64_t wait_ps = 0;  // the steps' input wait (host waiting for input, device waiting for the host), merged
  // The outermost frame that is input work (nearly all of its time falls in the wait), and the
  // innermost one that still holds at least half of the wait; the same frame when they agree.
  std::string stage;
  int64_t stage_ps = 0;  // its time in the wait
  std::string callee;
  int64_t callee_ps = 0;
};

// Empty when the profile has no Python frames, no steps or no input wait, or no frame holds
// at least half of the wait.
std::optional<InputWaitCallee> find_input_wait_callee(const model::Profile& profile, const StepAnalysis& steps);

}  // namespace mlprof::analysis
