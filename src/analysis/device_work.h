// What each piece of device work is (docs/ARCHITECTURE.md §5.11, §5.9): one kind for
// every event on a device's streams, for NVIDIA and AMD GPUs, TPUs (XLA) and MTIA, from the
// event's name, its stats (memcpy_details) and its device. Every tool that splits device time
// (the step breakdown of the overview, diff and pod viewer; kernel stats; the GPU timeline
// tools) reads it here, so that a copy or a collective is one on every page.
//
// Names are compared as the vendors write them:
//   collective: NCCL/RCCL/HCCL kernels, symmetric-memory (`multimem`) all-reduce, XLA's
//               all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute (and their
//               -start/-done halves), send/recv;
//   copy:       Memcpy* (CUDA, Kineto), hipMemcpy*, XLA's CopyHostToDevice/CopyDeviceToDevice...,
//               events with memcpy_details, XLA copy-start/copy-done (an asynchronous copy into
//               another memory space: host offloading, its own kind);
//   memset:     Memset*, hipMemset*;
//   dma:        a DMA engine's requests (MTIA's dma_request);
//   sync:       stream waits and synchronisations;
//   other:      runtime and scheduler records on a device line (HTA's not-computation names
//               that are none of the above), and nameless events: warned about, once a name.
//   compute:    every other kernel or XLA op.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

enum class DeviceWork : uint8_t {
  kCompute,
  kCollective,
  kCopyHostToDevice,
  kCopyDeviceToHost,
  kCopyDeviceToDevice,  // peer-to-peer copies included
  kCopyHostToHost,
  kCopyHostOffload,  // an XLA program's copy between device memory and the host's memory space
  kCopyUnknown,      // a copy whose direction nothing records
  kMemset,
  kDma,
  kSync,
  kOther,
};
inline constexpr size_t kNumDeviceWorks = 12;

std::string_view device_work_key(DeviceWork kind);  // "compute", "collective", "copy_h2d", ...

// The kind from the name alone (what a name cannot tell, such as memcpy_details, is the
// classifier's).
DeviceWork device_work_of_name(std::string_view name);
// A copy's kind from a direction written in words ("DEVICE_TO_HOST", "HtoD", "kind_src:device
// kind_dst:host"...), kCopyUnknown when none is given.
DeviceWork copy_kind_of_text(std::string_view text);

// The device's maker and family, per device plane: a trace mixing vendors is classified per device.
enum class DeviceFamily : uint8_t { kNone, kNvidiaGpu, kAmdGpu, kTpu, kMtia, kOtherDevice };
DeviceFamily plane_device_family(const model::Profile& profile, uint32_t plane);

class DeviceWorkNames;

// Classifies the events of one profile, each name once; thread-compatible, not thread-safe.
class DeviceWorkClassifier {
 public:
  explicit DeviceWorkClassifier(const model::Profile& profile);
  // With the names' kinds shared with other analyses of the profile (null: its own).
  DeviceWorkClassifier(const model::Profile& profile, std::shared_ptr<const DeviceWorkNames> names);
  // The kind of device event e (on a device plane's line).
  DeviceWork of(model::EventIndex e);
  // A DMA request's copy kind, from its recorded direction ("DEVICE_TO_HOST"); kCopyUnknown
  // when it records none.
  DeviceWork dma_direction(model::EventIndex e) const;
  // "Device work of unknown kind read as other: <name>, ..." (each name once), or empty.
  std::vector<std::string> warnings() const;

 private:
  static constexpr int8_t kNotStated = -1;
  // The copy or set the event's stats state (memcpy_details, memset_details), or kNotStated.
  int8_t copy_or_set_of(model::EventIndex e) const;

  const model::Profile& p_;
  std::shared_ptr<const DeviceWorkNames> names_;
  std::vector<int8_t> by_name_;       // DeviceWork of each name, -1 until first asked
  std::vector<uint8_t> stats_matter_; // whether the name's events' stats are read
  model::StringId memset_details_, direction_;
  // copy_kind_of_text of each memcpy_details text seen: a trace writes one per copy, mostly
  // the same few.
  mutable std::unordered_map<model::StringId, int8_t> copy_of_details_;
  std::vector<std::string> unknown_names_;
};

// ---- Precision and matrix units -----------------------------------------------------------

// The number format of the compute, lowest first in cost.
enum class Precision : uint8_t { kUnknown, kFp64, kFp32, kTf32, kBits16, kFp8, kFp4, kInteger };
inline constexpr size_t kNumPrecisions = 8;
std::string_view precision_key(Precision p);   // "unknown", "fp64", "fp32", "tf32", "bits16", "fp8", "fp4", "int"
std::string_view precision_label(Precision p); // "64-bit", "32-bit", "TF32", "16-bit (BF16/FP16)", ...
// From a list of recorded input types (Kineto's `Input type`: "c10::BFloat16", "float", ...) or an
// HLO shape ("bf16[8,128]{1,0}", "f8e4m3fn[...]"): the narrowest floating type named, else the
// integer or 32-bit one; kUnknown when none is named.
Precision precision_of_types(std::string_view types);
// From tokens of a kernel's name, compared without case: "bf16", "half", "e4m3", "e2m1", "tf32",
// "float", Tensile's data-type letters ("_BBS_", "_HHS_", "_SB_") ...; kUnknown when none.
Precision precision_of_kernel_name(std::string_view name);

// The units that run matrix products, by vendor.
enum class MatrixUnit : uint8_t { kNone, kTensorCores, kMatrixCores, kMxu };
std::string_view matrix_unit_label(MatrixUnit unit);  // "Tensor Cores", "matrix cores", "MXU"
// Whether the kernel (or XLA op) ran on its device's matrix units, from its name: NVIDIA's
// Tensor Core kernels (h884, xmma, wgmma, tcgen05, nvjet, bmm_Mx..., fmha...Sm100), AMD's
// MFMA kernels (Tensile's _MI<m>x<n>x<k> tile, "mfma"), a TPU's convolution and dot fusions.
bool runs_on_matrix_units(std::string_view name, DeviceFamily family);
MatrixUnit matrix_unit_of(DeviceFamily family);

}  // namespace mlprof::analysis
