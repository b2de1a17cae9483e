// The XSpace vocabulary, written once (docs/ARCHITECTURE.md §3.1, §3.2): the field numbers of
// xplane.proto with their wire types, the ids of derived lines, and the names of planes, lines
// and stats that writers put into a space and readers look for. The wire encoder, the importer,
// the capture exporters and the analysis' well-known strings all read it from here;
// tests/format/xspace_schema_test.cc checks every field against xplane.proto's descriptor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "format/protobuf_wire.h"

namespace mlprof::format::xspace {

// ---- Fields ------------------------------------------------------------------------------

struct Field {
  std::string_view message;  // the message in xplane.proto ("" for a map entry)
  std::string_view name;     // the field's name there
  uint32_t number;
  wire::WireType wire_type;
  constexpr uint32_t tag() const { return wire::tag_of(number, wire_type); }
};

using wire::kFixed64;
using wire::kLengthDelimited;
using wire::kVarint;

inline constexpr Field kSpacePlanes{"XSpace", "planes", 1, kLengthDelimited};
inline constexpr Field kSpaceErrors{"XSpace", "errors", 2, kLengthDelimited};
inline constexpr Field kSpaceWarnings{"XSpace", "warnings", 3, kLengthDelimited};
inline constexpr Field kSpaceHostnames{"XSpace", "hostnames", 4, kLengthDelimited};

inline constexpr Field kPlaneId{"XPlane", "id", 1, kVarint};
inline constexpr Field kPlaneName{"XPlane", "name", 2, kLengthDelimited};
inline constexpr Field kPlaneLines{"XPlane", "lines", 3, kLengthDelimited};
inline constexpr Field kPlaneEventMetadata{"XPlane", "event_metadata", 4, kLengthDelimited};
inline constexpr Field kPlaneStatMetadata{"XPlane", "stat_metadata", 5, kLengthDelimited};
inline constexpr Field kPlaneStats{"XPlane", "stats", 6, kLengthDelimited};

inline constexpr Field kLineId{"XLine", "id", 1, kVarint};
inline constexpr Field kLineDisplayId{"XLine", "display_id", 10, kVarint};
inline constexpr Field kLineName{"XLine", "name", 2, kLengthDelimited};
inline constexpr Field kLineDisplayName{"XLine", "display_name", 11, kLengthDelimited};
inline constexpr Field kLineTimestampNs{"XLine", "timestamp_ns", 3, kVarint};  // ns since the epoch
inline constexpr Field kLineDurationPs{"XLine", "duration_ps", 9, kVarint};
inline constexpr Field kLineEvents{"XLine", "events", 4, kLengthDelimited};

inline constexpr Field kEventMetadataId{"XEvent", "metadata_id", 1, kVarint};
inline constexpr Field kEventOffsetPs{"XEvent", "offset_ps", 2, kVarint};  // from the line's timestamp_ns
inline constexpr Field kEventNumOccurrences{"XEvent", "num_occurrences", 5, kVarint};
inline constexpr Field kEventDurationPs{"XEvent", "duration_ps", 3, kVarint};
inline constexpr Field kEventStats{"XEvent", "stats", 4, kLengthDelimited};

inline constexpr Field kStatMetadataId{"XStat", "metadata_id", 1, kVarint};
inline constexpr Field kStatDouble{"XStat", "double_value", 2, kFixed64};
inline constexpr Field kStatUint64{"XStat", "uint64_value", 3, kVarint};
inline constexpr Field kStatInt64{"XStat", "int64_value", 4, kVarint};
inline constexpr Field kStatString{"XStat", "str_value", 5, kLengthDelimited};
inline constexpr Field kStatBytes{"XStat", "bytes_value", 6, kLengthDelimited};
inline constexpr Field kStatRef{"XStat", "ref_value", 7, kVarint};  // an XStatMetadata id naming the value

inline constexpr Field kEventMetaId{"XEventMetadata", "id", 1, kVarint};
inline constexpr Field kEventMetaName{"XEventMetadata", "name", 2, kLengthDelimited};
inline constexpr Field kEventMetaDisplayName{"XEventMetadata", "display_name", 4, kLengthDelimited};
inline constexpr Field kEventMetaMetadata{"XEventMetadata", "metadata", 3, kLengthDelimited};
inline constexpr Field kEventMetaStats{"XEventMetadata", "stats", 5, kLengthDelimited};
inline constexpr Field kEventMetaChildId{"XEventMetadata", "child_id", 6, kLengthDelimited};  // packed

inline constexpr Field kStatMetaId{"XStatMetadata", "id", 1, kVarint};
inline constexpr Field kStatMetaName{"XStatMetadata", "name", 2, kLengthDelimited};
inline constexpr Field kStatMetaDescription{"XStatMetadata", "description", 3, kLengthDelimited};

// Every entry of a map<int64, V> (XPlane's event_metadata and stat_metadata).
inline constexpr Field kMapKey{"", "key", 1, kVarint};
inline constexpr Field kMapValue{"", "value", 2, kLengthDelimited};

inline constexpr Field kAllFields[] = {
    kSpacePlanes, kSpaceErrors, kSpaceWarnings, kSpaceHostnames,
    kPlaneId, kPlaneName, kPlaneLines, kPlaneEventMetadata, kPlaneStatMetadata, kPlaneStats,
    kLineId, kLineDisplayId, kLineName, kLineDisplayName, kLineTimestampNs, kLineDurationPs, kLineEvents,
    kEventMetadataId, kEventOffsetPs, kEventNumOccurrences, kEventDurationPs, kEventStats,
    kStatMetadataId, kStatDouble, kStatUint64, kStatInt64, kStatString, kStatBytes, kStatRef,
    kEventMetaId, kEventMetaName, kEventMetaDisplayName, kEventMetaMetadata, kEventMetaStats, kEventMetaChildId,
    kStatMetaId, kStatMetaName, kStatMetaDescription,
    kMapKey, kMapValue,
};

// Every tag fits in one byte, which the encoder relies on.
constexpr bool every_tag_is_one_byte() {
  for (const Field& f : kAllFields)
    if (f.tag() >= 0x80) return false;
  return true;
}
static_assert(every_tag_is_one_byte());

// ---- Planes and lines --------------------------------------------------------------------

inline constexpr std::string_view kHostPlaneName = "/host:CPU";  // one line per thread, id = tid
inline constexpr std::string_view kHostMetadataPlaneName = "/host:metadata";
inline constexpr std::string_view kTaskEnvironmentPlaneName = "Task Environment";
inline constexpr std::string_view kDevicePlanePrefix = "/device:";  // "/device:GPU:0"
// "/device:<type>:<ordinal>".
std::string device_plane_name(std::string_view type, int64_t ordinal);

// Lines TensorFlow derives on a device plane. Their ids are 0xdeadbeef + k, stored sign-extended
// from 32 bits.
inline constexpr int64_t kDerivedLineIdBase = int64_t(int32_t(0xdeadbeefu));
enum class DerivedLine : int64_t {
  kSteps = 0, kKernelLaunch = 1, kNameScope = 2, kFrameworkOps = 3, kXlaModules = 4, kXlaOps = 5,
};
constexpr int64_t derived_line_id(DerivedLine line) { return kDerivedLineIdBase + int64_t(line); }
// mlprof's own line of stream synchronisations, clear of TensorFlow's derived lines.
inline constexpr int64_t kSyncLineId = kDerivedLineIdBase + 0x100;

inline constexpr std::string_view kStepsLineName = "Steps";
inline constexpr std::string_view kFrameworkOpsLineName = "Framework Ops";
inline constexpr std::string_view kTensorFlowOpsLineName = "TensorFlow Ops";  // older files
inline constexpr std::string_view kNameScopeLineName = "Framework Name Scope";
inline constexpr std::string_view kTensorFlowNameScopeLineName = "TensorFlow Name Scope";  // older files
inline constexpr std::string_view kXlaModulesLineName = "XLA Modules";
inline constexpr std::string_view kXlaOpsLineName = "XLA Ops";
inline constexpr std::string_view kSyncLineName = "Stream Synchronization";

// A GPU stream's line is "Stream #<id>(<what ran on it>)", e.g. "Stream #7(Compute,MemcpyH2D)",
// in TensorFlow's spelling; its id is the stream's.
inline constexpr std::string_view kStreamLinePrefix = "Stream #";
enum StreamActivity : uint8_t {
  kStreamCompute = 1, kStreamMemcpyH2D = 2, kStreamMemcpyD2H = 4, kStreamMemcpyD2D = 8, kStreamMemcpyP2P = 16,
  kStreamMemcpyH2H = 32, kStreamMemcpyOther = 64, kStreamMemset = 128,
};
// The name of one activity ("MemcpyH2D"), also the name of a copy event of that kind.
std::string_view stream_activity_name(StreamActivity activity);
// "Stream #<id>(<names of the activities set in `activities`>)".
std::string stream_line_name(int64_t stream_id, uint8_t activities);

// ---- Event names -------------------------------------------------------------------------

// Which way a copy event went, from its name in any format mlprof reads: "MemcpyH2D",
// "Memcpy HtoD (Pageable -> Device)", "MEMCPY_D2H", ...
enum class CopyDirection : uint8_t {
  kNotACopy, kHostToDevice, kDeviceToHost, kDeviceToDevice, kPeerToPeer, kHostToHost, kUnknown,
};
CopyDirection copy_direction(std::string_view name);
// The stream activity a copy adds to its stream's name.
StreamActivity stream_activity_of(CopyDirection direction);

// PyTorch's step annotation "ProfilerStep#<n>".
inline constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
// The n of "ProfilerStep#<n>"; false when `name` is not one (n must be all digits).
bool profiler_step_number(std::string_view name, int64_t* n);

// ---- Stat names --------------------------------------------------------------------------

inline constexpr std::string_view kStatStepNum = "step_num";
inline constexpr std::string_view kStatIterNum = "iter_num";
inline constexpr std::string_view kStatIsRoot = "_r";  // marks a step's root event
inline constexpr std::string_view kStatGroupId = "group_id";
inline constexpr std::string_view kStatStepName = "step_name";
inline constexpr std::string_view kStatProducerType = "_pt";
inline constexpr std::string_view kStatProducerId = "_p";
inline constexpr std::string_view kStatConsumerType = "_ct";
inline constexpr std::string_view kStatConsumerId = "_c";
inline constexpr std::string_view kStatIsAsync = "_a";
inline constexpr std::string_view kStatCorrelationId = "correlation_id";
inline constexpr std::string_view kStatContextId = "context_id";
inline constexpr std::string_view kStatKernelDetails = "kernel_details";
inline constexpr std::string_view kStatMemcpyDetails = "memcpy_details";
inline constexpr std::string_view kStatTfOp = "tf_op";
inline constexpr std::string_view kStatLongName = "long_name";
inline constexpr std::string_view kStatIsEager = "is_eager";
// Device capabilities, on a device plane, in TensorFlow's units.
inline constexpr std::string_view kStatClockRate = "clock_rate";  // kHz
inline constexpr std::string_view kStatCoreCount = "core_count";  // SMs (NVIDIA), compute units (AMD)
inline constexpr std::string_view kStatMemoryBandwidth = "memory_bandwidth";  // bytes/s
inline constexpr std::string_view kStatMemorySize = "memory_size";  // bytes
inline constexpr std::string_view kStatComputeCapMajor = "compute_cap_major";
inline constexpr std::string_view kStatComputeCapMinor = "compute_cap_minor";
// Who made the GPU: TensorFlow's ROCm tracer writes "AMD" (and its GFX version as the compute
// capability), its CUDA tracer "Nvidia".
inline constexpr std::string_view kStatDeviceVendor = "device_vendor";
inline constexpr std::string_view kDeviceVendorAmd = "AMD";
inline constexpr std::string_view kDeviceVendorNvidia = "Nvidia";
// Task Environment plane: the profile's window, ns since the epoch.
inline constexpr std::string_view kStatProfileStartTime = "profile_start_time";
inline constexpr std::string_view kStatProfileStopTime = "profile_stop_time";
// Task Environment plane, mlprof's own: the process's rank in its job and the job's size where
// the job says them (RANK and WORLD_SIZE, as torchrun and torch.distributed set them), as
// PyTorch's traces do in distributedInfo. Other readers pass over stats they do not know.
inline constexpr std::string_view kStatRank = "rank";
inline constexpr std::string_view kStatWorldSize = "world_size";
inline constexpr std::string_view kStatElementId = "element_id";
inline constexpr std::string_view kStatParentId = "parent_id";
inline constexpr std::string_view kStatId = "id";  // an allocator event's step
inline constexpr std::string_view kStatDeviceOrdinal = "device_ordinal";
inline constexpr std::string_view kStatDeviceTypeString = "device_type_string";
inline constexpr std::string_view kStatCpuCores = "cpu_cores";
inline constexpr std::string_view kStatHostName = "host_name";

// Allocator events (docs/ARCHITECTURE.md §5.5), on the thread that allocated, as TensorFlow's
// allocators write them; mlprof's capture and its PyTorch importer write the same.
inline constexpr std::string_view kMemoryAllocationEventName = "MemoryAllocation";
inline constexpr std::string_view kMemoryDeallocationEventName = "MemoryDeallocation";
inline constexpr std::string_view kStatAllocatorName = "allocator_name";
inline constexpr std::string_view kStatAddr = "addr";
inline constexpr std::string_view kStatAllocationBytes = "allocation_bytes";
inline constexpr std::string_view kStatRequestedBytes = "requested_bytes";
inline constexpr std::string_view kStatBytesAllocated = "bytes_allocated";  // heap in use
inline constexpr std::string_view kStatBytesAvailable = "bytes_available";  // free
inline constexpr std::string_view kStatBytesReserved = "bytes_reserved";    // stack
inline constexpr std::string_view kStatPeakBytesInUse = "peak_bytes_in_use";
inline constexpr std::string_view kStatFragmentation = "fragmentation";
inline constexpr std::string_view kStatLargestFreeChunk = "largest_free_chunk";
inline constexpr std::string_view kStatRegionType = "region_type";
inline constexpr std::string_view kStatDataType = "data_type";
inline constexpr std::string_view kStatShape = "shape";
// mlprof's: a caching allocator's pool (PyTorch's Total Reserved), never the capacity.
inline constexpr std::string_view kStatPoolBytes = "pool_bytes";

}  // namespace mlprof::format::xspace
