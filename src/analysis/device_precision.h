// The number format of device compute (docs/ARCHITECTURE.md §5.11), in this order: the op's recorded input
// types (Kineto's `Input type` on the op that launched the kernel, or an enclosing one), the
// HLO instruction's shapes (XLA ops' long_name: "%dot.3 = bf16[8,128]{1,0} dot(...)"), then
// tokens of the kernel's name (device_work.h's precision_of_kernel_name).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/device_work.h"
#include "analysis/launch_ops.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

class WorkPrecision {
 public:
  explicit WorkPrecision(const model::Profile& p);
  // With the names' precisions shared with other analyses of the profile (null: its own).
  WorkPrecision(const model::Profile& p, std::shared_ptr<const DeviceWorkNames> names);
  // The precision of device event e; launch_op is the op that launched it when the caller knows
  // it (LaunchOps::op_of), else it is looked up.
  Precision of(model::EventIndex e, model::EventIndex launch_op);
  Precision of(model::EventIndex e) {
    // The launching op is looked up only where ops record their input types.
    return of(e, input_type_ == model::kNoString ? model::kNone : launch_ops_.op_of(e));
  }

 private:
  const model::Profile& p_;
  LaunchOps launch_ops_;
  const model::StringId input_type_, long_name_;
  std::shared_ptr<const DeviceWorkNames> names_;  // the precision from the name's tokens
};

// Device compute time by precision (Precision order) in the analysed steps' windows (the whole
// profile when there are none), each compute event's time clipped to them; memsets are not compute.
std::array<int64_t, kNumPrecisions> device_compute_precision_ps(const model::Profile& profile,
                                                                const StepAnalysis& steps);

}  // namespace mlprof::analysis
