#include "analysis/gpu_work_kind.h"

#include <array>

#include "model/string_contains.h"

namespace mlprof::analysis {
namespace {

using model::contains;

bool is_communication(std::string_view n) {
  return n.starts_with("nccl") || n.starts_with("hip") || n.starts_with("hccl") || contains(n, "ncclKernel");
}

bool is_memory(std::string_view n) {
  if (n.starts_with("hip")) n.remove_prefix(3);
  return n.starts_with("Memcpy") || n.starts_with("Memset") || n.starts_with("dma");
}

// HTA's "not computation" pattern: (^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|
// (^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|(^hip)|(^job_exe)|(^packet)|
// (^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution).
bool is_not_computation(std::string_view n) {
  static constexpr std::array<std::string_view, 10> kPrefixes = {
      "nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe", "cpum_exe_subgraph",
      "hccl", "collective_subgraph_execution"};
  for (auto p : kPrefixes)
    if (n.starts_with(p)) return true;
  if (contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "dma") || contains(n, "Sync")) return true;
  return n.starts_with("cuda") && contains(n.substr(4), "LaunchKernel");
}

}  // namespace

GpuWorkKind gpu_work_kind(std::string_view name) {
  if (is_communication(name)) return GpuWorkKind::kCommunication;
  if (is_memory(name)) return GpuWorkKind::kMemory;
  if (!is_not_computation(name)) return GpuWorkKind::kComputation;
  return GpuWorkKind::kOther;
}

std::string_view gpu_work_kind_key(GpuWorkKind kind) {
  static constexpr std::array<std::string_view, kNumGpuWorkKinds> kKeys = {"computation", "communication", "memory",
                                                                          "other"};
  return kKeys[size_t(kind)];
}

}  // namespace mlprof::analysis
