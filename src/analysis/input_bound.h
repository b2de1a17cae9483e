// The input rule (DESIGN.md §5.2), in one place: which events are the step waiting for its
// input, and the input-bound verdict with its named thresholds. The step breakdown, the input
// pipeline analyzer and the overview page all ask here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mlprof::analysis {

// An input-pipeline event the training loop waits on: a tf.data iterator, TensorFlow's
// IteratorGetNext* or PyTorch's "enumerate(DataLoader)#...".
struct InputWaitName {
  bool input_request = false;  // waiting when on the step's own thread (see waits_for_input)
  bool iterator = false;       // a tf.data iterator: waiting only on the step's own thread
};
InputWaitName input_wait_name(std::string_view name);

// Whether an event with that name is time the step waits for input. `on_step_thread`: the event
// runs on the step root's thread (or no step marks the profile, so any thread may wait). An
// IteratorGetNext op waits wherever the step's executor runs it; an iterator on a loader thread
// is loading ahead, not waiting.
inline bool waits_for_input(const InputWaitName& n, bool on_step_thread) {
  return n.input_request && (on_step_thread || !n.iterator);
}

// The verdict, from the share of the step time waiting for input (and the untraced "other").
enum class InputBoundVerdict : uint8_t { kNot, kPotentially, kModerately, kHighly };
inline constexpr double kHighlyInputBoundPct = 20;     // input ≥ 20 % of the step
inline constexpr double kModeratelyInputBoundPct = 5;  // input ≥ 5 %
inline constexpr double kPotentiallyOtherPct = 3;      // else untraced time ≥ 3 % may hide input
std::string_view verdict_name(InputBoundVerdict v);    // "HIGHLY", "MODERATELY", "POTENTIALLY", "NOT"

struct InputBound {
  InputBoundVerdict verdict = InputBoundVerdict::kNot;
  double input_pct = 0;
  double other_pct = 0;
  std::string explanation;

  // Input is a visible share of the step (moderately or highly).
  bool input_bound() const { return verdict >= InputBoundVerdict::kModerately; }
};
InputBound input_bound_verdict(double input_pct, double other_pct);

}  // namespace mlprof::analysis
