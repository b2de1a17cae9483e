// Theoretical occupancy of a kernel launch: the share of a multiprocessor's warp slots its
// blocks can fill, limited by warps, blocks, registers and shared memory per multiprocessor,
// as CUDA's occupancy calculator computes it. CUPTI does not report occupancy; kernel_details
// carries this estimate (occ_pct), as TensorFlow's tracer does.
#pragma once

#include "capture/cupti/gpu_activity.h"

namespace mlprof::capture::gpu {

// 0 to 100, or -1 when the device's limits are unknown or the launch is empty.
double theoretical_occupancy_pct(const KernelActivity& kernel, const DeviceProperties& device);

}  // namespace mlprof::capture::gpu
