// Names the analysis looks for (docs/ARCHITECTURE.md §3.2), interned first in every StringTable so that
// their ids are compile-time constants. Append only: the order fixes the ids. The names
// themselves are the XSpace schema's (format/xspace_schema.h).
#pragma once

#include <array>
#include <string_view>

#include "format/xspace_schema.h"
#include "model/string_table.h"

namespace mlprof::model {

#define MLPROF_WELL_KNOWN_STRINGS(X)                                    \
  X(kStepNum, format::xspace::kStatStepNum)                             \
  X(kIterNum, format::xspace::kStatIterNum)                             \
  X(kIsRoot, format::xspace::kStatIsRoot)                               \
  X(kGroupId, format::xspace::kStatGroupId)                             \
  X(kStepName, format::xspace::kStatStepName)                           \
  X(kProducerType, format::xspace::kStatProducerType)                   \
  X(kProducerId, format::xspace::kStatProducerId)                       \
  X(kConsumerType, format::xspace::kStatConsumerType)                   \
  X(kConsumerId, format::xspace::kStatConsumerId)                       \
  X(kIsAsync, format::xspace::kStatIsAsync)                             \
  X(kCorrelationId, format::xspace::kStatCorrelationId)                 \
  X(kContextId, format::xspace::kStatContextId)                         \
  X(kKernelDetails, format::xspace::kStatKernelDetails)                 \
  X(kMemcpyDetails, format::xspace::kStatMemcpyDetails)                 \
  X(kTfOp, format::xspace::kStatTfOp)                                   \
  X(kLongName, format::xspace::kStatLongName)                           \
  X(kIsEager, format::xspace::kStatIsEager)                             \
  X(kClockRate, format::xspace::kStatClockRate)                         \
  X(kCoreCount, format::xspace::kStatCoreCount)                         \
  X(kMemoryBandwidth, format::xspace::kStatMemoryBandwidth)             \
  X(kMemorySize, format::xspace::kStatMemorySize)                       \
  X(kComputeCapMajor, format::xspace::kStatComputeCapMajor)             \
  X(kComputeCapMinor, format::xspace::kStatComputeCapMinor)             \
  X(kProfileStartTime, format::xspace::kStatProfileStartTime)           \
  X(kProfileStopTime, format::xspace::kStatProfileStopTime)             \
  X(kElementId, format::xspace::kStatElementId)                         \
  X(kParentId, format::xspace::kStatParentId)                           \
  X(kId, format::xspace::kStatId)                                       \
  X(kDeviceOrdinal, format::xspace::kStatDeviceOrdinal)                 \
  X(kDeviceTypeString, format::xspace::kStatDeviceTypeString)           \
  X(kCpuCores, format::xspace::kStatCpuCores)                           \
  X(kHostName, format::xspace::kStatHostName)                           \
  X(kRank, format::xspace::kStatRank)

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
