#include "analysis/gpu_timeline/gpu_work_kind.h"

#include <array>

namespace mlprof::analysis {

GpuWorkKind gpu_work_kind(DeviceWork work) {
  switch (work) {
    case DeviceWork::kCompute: return GpuWorkKind::kComputation;
    case DeviceWork::kCollective: return GpuWorkKind::kCommunication;
    case DeviceWork::kSync:
    case DeviceWork::kOther: return GpuWorkKind::kOther;
    default: return GpuWorkKind::kMemory;  // copies, memsets, DMA
  }
}

std::string_view gpu_work_kind_key(GpuWorkKind kind) {
  static constexpr std::array<std::string_view, kNumGpuWorkKinds> kKeys = {"computation", "communication", "memory",
                                                                          "other"};
  return kKeys[size_t(kind)];
}

}  // namespace mlprof::analysis
