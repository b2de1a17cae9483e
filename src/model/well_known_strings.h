// Names the analysis looks for (docs/ARCHITECTURE.md §3.2), interned first in every StringTable so that
// their ids are compile-time constants. Append only: the order fixes the ids.
#pragma once

#include <array>
#include <string_view>

#include "model/string_table.h"

namespace mlprof::model {

#define MLPROF_WELL_KNOWN_STRINGS(X)                 \
  X(kStepNum, "step_num")                            \
  X(kIterNum, "iter_num")                            \
  X(kIsRoot, "_r")                                   \
  X(kGroupId, "group_id")                            \
  X(kStepName, "step_name")                          \
  X(kProducerType, "_pt")                            \
  X(kProducerId, "_p")                               \
  X(kConsumerType, "_ct")                            \
  X(kConsumerId, "_c")                               \
  X(kIsAsync, "_a")                                  \
  X(kCorrelationId, "correlation_id")                \
  X(kContextId, "context_id")                        \
  X(kKernelDetails, "kernel_details")                \
  X(kMemcpyDetails, "memcpy_details")                \
  X(kTfOp, "tf_op")                                  \
  X(kLongName, "long_name")                          \
  X(kIsEager, "is_eager")                            \
  X(kClockRate, "clock_rate")                        \
  X(kCoreCount, "core_count")                        \
  X(kMemoryBandwidth, "memory_bandwidth")            \
  X(kMemorySize, "memory_size")                      \
  X(kComputeCapMajor, "compute_cap_major")           \
  X(kComputeCapMinor, "compute_cap_minor")           \
  X(kProfileStartTime, "profile_start_time")         \
  X(kProfileStopTime, "profile_stop_time")           \
  X(kElementId, "element_id")                        \
  X(kParentId, "parent_id")                          \
  X(kId, "id")                                       \
  X(kDeviceOrdinal, "device_ordinal")                \
  X(kDeviceTypeString, "device_type_string")         \
  X(kCpuCores, "cpu_cores")                          \
  X(kHostName, "host_name")

enum WellKnownString : StringId {
  kEmptyString = 0,
#define MLPROF_ENUM_ENTRY(id, text) id,
  MLPROF_WELL_KNOWN_STRINGS(MLPROF_ENUM_ENTRY)
#undef MLPROF_ENUM_ENTRY
  kNumWellKnownStrings
};

inline constexpr std::array<std::string_view, kNumWellKnownStrings> kWellKnownStrings = {
    "",
#define MLPROF_TEXT_ENTRY(id, text) text,
    MLPROF_WELL_KNOWN_STRINGS(MLPROF_TEXT_ENTRY)
#undef MLPROF_TEXT_ENTRY
};

}  // namespace mlprof::model
