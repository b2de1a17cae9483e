// The GPU timeline tools' four kinds of device work (Holistic Trace Analysis' kernel types, so
// that GPU time splits compare with HTA's), folded from the one classification of device work
// (device_work.h):
//   computation:   compute;
//   communication: collectives;
//   memory:        copies, memsets and DMA requests;
//   other:         synchronisations and runtime records.
// Where HTA's name rules differ, mlprof's classification wins and the difference is stated:
// HTA takes symmetric-memory all-reduce kernels (`multimem_all_reduce`) and XLA's copies
// (`CopyDeviceToDevice`, copy-start/copy-done) for computation, and any name starting with
// "hip" for communication.
#pragma once

#include <cstdint>
#include <string_view>

#include "analysis/device_work.h"

namespace mlprof::analysis {

enum class GpuWorkKind : uint8_t { kComputation, kCommunication, kMemory, kOther };
inline constexpr size_t kNumGpuWorkKinds = 4;

GpuWorkKind gpu_work_kind(DeviceWork work);
std::string_view gpu_work_kind_key(GpuWorkKind kind);  // "computation", "communication", ...

}  // namespace mlprof::analysis
