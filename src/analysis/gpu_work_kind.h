// What a piece of GPU work is, from its name, with Holistic Trace Analysis' kernel types
// (its utils.get_kernel_type and the patterns of common/types.py, anchored at the start of the
// name as Python's re.match is), so that GPU time splits compare with HTA's:
//   communication: nccl*, hip*, hccl*, or containing "ncclKernel";
//   memory:        Memcpy*, hipMemcpy*, Memset*, hipMemset*, dma*;
//   computation:   everything that names no copy, set, sync, launch or collective;
//   other:         the rest (synchronisations, waits, "Memcpy" inside a longer name...).
#pragma once

#include <cstdint>
#include <string_view>

namespace mlprof::analysis {

enum class GpuWorkKind : uint8_t { kComputation, kCommunication, kMemory, kOther };
inline constexpr size_t kNumGpuWorkKinds = 4;

GpuWorkKind gpu_work_kind(std::string_view name);
std::string_view gpu_work_kind_key(GpuWorkKind kind);  // "computation", "communication", ...

}  // namespace mlprof::analysis
