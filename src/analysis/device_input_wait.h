// "Device waiting for host" (docs/ARCHITECTURE.md §5.2), for GPUs: a device that sits idle inside a step
// until the host sends it input. The time from when the device ran out of work (or the step
// began) to the start of a host-to-device copy counts, when the host issued that copy only
// after then: the device was waiting for the host's input, whatever the host was doing
// meanwhile (reading, decoding, batching). A copy queued earlier that waited on something
// else is not the host's doing and counts nothing.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/interval_union.h"
#include "analysis/step_grouping.h"
#include "model/profile.h"

namespace mlprof::analysis {

class DeviceInputWait {
 public:
  DeviceInputWait(const model::Profile& profile, const StepGrouping& grouping);

  // The waits of step `group` within [begin, end), appended to `out`.
  void add_waits(uint32_t group, int64_t begin, int64_t end, std::vector<TimeInterval>* out) const;

 private:
  struct InputCopy {
    uint32_t plane;
    int64_t start_ps;
    int64_t issued_ps;  // when the host call that started it began; INT64_MIN when unknown
  };

  std::unordered_map<uint32_t, std::vector<TimeInterval>> busy_;       // per device plane: its work, merged
  std::unordered_map<uint32_t, std::vector<InputCopy>> copies_;        // per group: its host-to-device copies
};

}  // namespace mlprof::analysis
