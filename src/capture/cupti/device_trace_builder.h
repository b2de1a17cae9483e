// GPU activity -> XSpace (docs/ARCHITECTURE.md §3.2), as a pure function of the records, so that it is
// tested with synthetic records on machines without a GPU:
//   - one "/device:GPU:<n>" plane per device, with its capabilities as plane stats
//     (clock_rate, core_count, memory_bandwidth, memory_size, compute_cap_major/minor);
//   - one "Stream #<id>(<kinds>)" line per stream (line id = stream id) with kernels
//     (kernel_details "regs:N static_shared:N dynamic_shared:N grid:x,y,z block:x,y,z occ_pct:F"),
//     copies ("MemcpyH2D"... with memcpy_details) and memsets, each with correlation_id,
//     context_id and, when a framework op launched it, tf_op;
//   - host synchronisations on the device's "Stream Synchronization" line (as PyTorch's
//     importer files them);
//   - the CUDA calls of each host thread, for its /host:CPU line; those that started device
//     work carry its correlation_id. A driver call made inside a runtime call is folded into
//     it: the work it started links to the runtime call the program made.
#pragma once

#include <cstdint>

#include "capture/cupti/device_tracer.h"
#include "capture/cupti/gpu_activity.h"

namespace mlprof::capture::gpu {

// The tracer's clock against the session's clocks.
struct GpuClock {
  int64_t session_start_ns = 0;       // the session's start on the tracer's clock
  int64_t session_start_unix_ns = 0;  // the same instant since the Unix epoch: device lines' timestamp_ns
  uint64_t session_start_ticks = 0;   // the same instant on the capture clock
  double ticks_per_ns = 1.0;          // the capture clock's rate
};

// Fills `out` (planes, host calls, warnings) from the log.
void build_device_trace(const GpuActivityLog& log, const GpuClock& clock, DeviceTrace* out);

// "regs:32 static_shared:0 dynamic_shared:1024 grid:80,1,1 block:256,1,1 occ_pct:100.0";
// occ_pct only when the device's properties are known (a negative occupancy_pct).
std::string kernel_details(const KernelActivity& k, double occupancy_pct);

}  // namespace mlprof::capture::gpu
