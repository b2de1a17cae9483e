// Waits on recorded CUDA events (docs/ARCHITECTURE.md §5.9b): cudaEventRecord on stream A marks
// the work launched to A before it; cudaStreamWaitEvent makes stream B's next work wait for
// that work, and cudaEventSynchronize makes the host wait for it. Kineto says which record a
// wait is on in its cuda_sync events ("Stream Wait Event", "Event Sync": the record's
// correlation id and stream, and the waiting stream), which the PyTorch reader keeps as stats.
#pragma once

#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct EventWaits {
  // Stream B's first work launched after the wait (from the waiting thread) waits for the work.
  struct StreamWait {
    uint32_t source = 0, dest = 0;  // indices into HostGpuActivity::work
  };
  // The host call returns when the work is done.
  struct HostWait {
    uint32_t source = 0;            // index into HostGpuActivity::work
    model::EventIndex call = model::kNone;
  };
  std::vector<StreamWait> streams;
  std::vector<HostWait> hosts;
};

// The waits of one host's work on recorded events, or none when its trace does not say.
EventWaits find_event_waits(const model::Profile& p, const HostGpuActivity& h);

}  // namespace mlprof::analysis
