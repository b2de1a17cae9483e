// The input rule (docs/ARCHITECTURE.md §5.2), in one place: which events are the step waiting for its
// input, and the input-bound verdict with its named thresholds. The step breakdown, the input
// pipeline analyzer and the overview page all ask here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mlprof::analysis {

// An input-pipeline event: a tf.data iterator (at any depth of its name), TensorFlow's
// IteratorGetNext* or PyTorch's "enumerate(DataLoader)#...".
struct InputWaitName {
  bool input_request = false;  // a root iterator, IteratorGetNext* or a DataLoader iteration
  bool iterator = false;       // a tf.data iterator
};
InputWaitName input_wait_name(std::string_view name);

// Where an event runs, for the rule below.
enum class StepThread : uint8_t {
  kYes,     // on the thread of its step's root
  kNo,      // on another thread of its step
  kNoSteps  // no step marks the profile (any thread may wait)
};

// Whether an event with that name is time the step waits for input (the outermost such event
// counts: nested ones add nothing). On the step's own thread every input-pipeline event is the
// step waiting, whatever the depth of its name: the loop asking for its next batch, or loading
// it synchronously. IteratorGetNext and a DataLoader iteration wait wherever the step runs
// them. An iterator on another thread is a loader working ahead, not waiting; without steps
// only root iterators are taken for the wait.
inline bool waits_for_input(const InputWaitName& n, StepThread where) {
  if (!n.iterator) return n.input_request;
  if (where == StepThread::kYes) return true;
  return where == StepThread::kNoSteps && n.input_request;
}

// A root iterator on the step's thread only asks the loader threads for the next batch: its
// time is waiting, and the work shows on those threads. Every other input-pipeline event also
// counts as input processing on the host (input_pipeline_analyzer).
inline bool only_waits_for_input(const InputWaitName& n, bool on_step_thread) {
  return on_step_thread && n.iterator && n.input_request;
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

// The verdict of a profile's steps: the average input and other time over the average step
// time. Every tool that speaks of being input-bound asks here.
struct StepAnalysis;
InputBound input_bound_of(const StepAnalysis& steps);

}  // namespace mlprof::analysis
