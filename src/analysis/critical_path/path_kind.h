// What a piece of the critical path is (docs/ARCHITECTURE.md §5.9b): the kinds the overview's headline
// names, and how the step breakdown's categories (§5.2) map onto them, so that a what-if can
// name either.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mlprof::analysis {

enum class PathKind : uint8_t {
  kInput,            // loader work, the step's own input events
  kHost,             // host compute: framework, Python, CPU ops
  kKernelLaunch,     // launch calls and the latency from a launch to its kernel
  kDeviceCompute,
  kCollectives,
  kCopies,
  kWaitingForRank,   // the path runs through another rank's work: this rank waited for it
  kIdle,             // nothing traced runs
  kWaiting,          // a blocked call: weighs nothing, its length follows from its dependencies
};
inline constexpr size_t kNumPathKinds = 8;  // the kinds time is reported in (not kWaiting)

inline constexpr std::array<std::string_view, kNumPathKinds> kPathKindKeys = {
    "input", "host", "kernel_launch", "device_compute", "collectives", "copies", "waiting_for_rank", "idle"};

inline std::string_view path_kind_key(PathKind k) {
  return size_t(k) < kNumPathKinds ? kPathKindKeys[size_t(k)] : "waiting";
}

// A kind by its key, or a step-breakdown category by its key (input, output, compilation,
// kernel_launch, host_compute, device_to_device, device_collectives, device_compute, other).
std::optional<PathKind> path_kind_of_target(std::string_view target);

}  // namespace mlprof::analysis
