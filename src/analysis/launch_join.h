// Device work joined to the host calls that launched it (docs/ARCHITECTURE.md §5.1): a call on
// a host thread and the work it launched carry one correlation id, unique on their host. Found
// once, by the step grouping, for the joins after it (the steps' device work, the end of the
// work their spans launched, the GPU timeline's launches), which each searched every call before.
#pragma once

#include <cstdint>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

class LaunchJoin {
 public:
  LaunchJoin() = default;  // joins nothing
  explicit LaunchJoin(const model::Profile& p);

  // The first of the calls carrying device event `work`'s host and correlation id that
  // `take(call)` takes, outermost first (in event order); kNone when none does, or `work`
  // (on device line `line`) carries no id.
  template <typename Take>
  model::EventIndex launch_of(uint32_t line, model::EventIndex work, Take&& take) const {
    uint32_t i = first_call(line, work);
    if (i == kNoCall) return model::kNone;
    const Call& first = calls_[i];
    for (; i < calls_.size() && calls_[i].host == first.host && calls_[i].correlation == first.correlation; ++i)
      if (take(calls_[i].event)) return calls_[i].event;
    return model::kNone;
  }
  model::EventIndex launch_of(uint32_t line, model::EventIndex work) const {
    return launch_of(line, work, [](model::EventIndex) { return true; });
  }

  // The calls on the host's threads that carry a correlation id.
  size_t calls_on_host(uint32_t host) const { return host < calls_of_host_.size() ? calls_of_host_[host] : 0; }

 private:
  static constexpr uint32_t kNoCall = UINT32_MAX;
  struct Call {  // 16 bytes: there can be millions
    uint64_t correlation;
    uint32_t host;
    model::EventIndex event;
  };

  uint32_t first_call(uint32_t line, model::EventIndex work) const {
    if (line >= line_offset_.size() || line_offset_[line] == kNotDevice) return kNoCall;
    return first_call_[size_t(line_offset_[line] + int64_t(work))];
  }

  std::vector<Call> calls_;                      // by host, correlation id, event
  static constexpr int64_t kNotDevice = INT64_MIN;
  // Per line of a device: its events' entries in first_call_ less its first event (the entry of
  // event e is first_call_[offset + e]); kNotDevice for the others.
  std::vector<int64_t> line_offset_;
  std::vector<uint32_t> first_call_;  // per event of a device line: its first call, or kNoCall
  std::vector<size_t> calls_of_host_;
};

}  // namespace mlprof::analysis
