// GPU activity as the CUPTI tracer collects it, in plain structs that need no CUPTI header:
// the decoder (cupti_record_decoder.h) fills them from CUPTI's versioned records and the
// callbacks, and device_trace_builder.h turns them into XSpace planes. Keeping this seam
// free of CUPTI is what lets the conversion be tested with synthetic records, without a GPU.
//
// Times are nanoseconds on the tracer's clock (GpuClock says which one).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mlprof::capture::gpu {

// Interned strings (kernel and API names): records refer to them by index; 0 is "".
class NameTable {
 public:
  NameTable() { intern(""); }
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;
  uint32_t intern(std::string_view name) {
    auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    const uint32_t id = uint32_t(names_.size());
    names_.emplace_back(name);
    index_.emplace(names_.back(), id);
    return id;
  }
  std::string_view operator[](uint32_t id) const { return id < names_.size() ? std::string_view(names_[id]) : ""; }
  size_t size() const { return names_.size(); }

 private:
  std::deque<std::string> names_;  // a deque: the map's views stay valid as it grows
  std::unordered_map<std::string_view, uint32_t> index_;
};

struct KernelActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t correlation_id = 0;
  uint32_t name = 0;  // NameTable index; as CUPTI gives it (mangled)
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
};

enum class CopyKind : uint8_t { kUnknown, kHostToDevice, kDeviceToHost, kDeviceToDevice, kHostToHost, kPeerToPeer, kArray };
enum class MemoryKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kArray, kManaged };

struct MemcpyActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t correlation_id = 0;
  uint64_t bytes = 0;
  CopyKind kind = CopyKind::kUnknown;
  MemoryKind source = MemoryKind::kUnknown, destination = MemoryKind::kUnknown;
  uint32_t destination_device = 0;  // the other device of a peer-to-peer copy, else `device`
  bool async = false;
};

struct MemsetActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t correlation_id = 0;
  uint64_t bytes = 0;
  MemoryKind memory = MemoryKind::kUnknown;
  bool async = false;
};

enum class SyncKind : uint8_t { kUnknown, kEventSynchronize, kStreamWaitEvent, kStreamSynchronize, kContextSynchronize };

// A host call that waits for the device (or makes a stream wait for an event). CUPTI times
// it on the host and names its context, not its thread.
struct SyncActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t context = 0;
  uint32_t stream = UINT32_MAX;  // UINT32_MAX: the whole context
  uint32_t correlation_id = 0;
  SyncKind kind = SyncKind::kUnknown;
};

enum class ApiDomain : uint8_t { kRuntime, kDriver };

// A CUDA runtime or driver call on a host thread.
struct ApiActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t thread = 0;  // CUPTI's thread id (ThreadOfCall maps it to the OS thread id)
  uint32_t correlation_id = 0;
  uint32_t name = 0;    // NameTable index: "cudaLaunchKernel", "cuMemcpyHtoDAsync", ...
  ApiDomain domain = ApiDomain::kRuntime;
};

// Time CUPTI or the driver spent on its own work (buffer flushes, JIT compilation...).
struct OverheadActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t name = 0;       // NameTable index: "CUPTI buffer flush", ...
  bool on_thread = false;  // a host thread's (then `object` is CUPTI's thread id), else a device's
  uint32_t object = 0;
};

// CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: an id a framework pushed around the call
// `correlation_id`.
struct ExternalCorrelation {
  uint32_t correlation_id = 0;
  uint32_t kind = 0;  // CUpti_ExternalCorrelationKind
  uint64_t external_id = 0;
};

// What the device tells about itself (CUPTI_ACTIVITY_KIND_DEVICE).
struct DeviceProperties {
  uint32_t id = 0;
  uint32_t name = 0;  // NameTable index (0: unknown)
  uint32_t compute_capability_major = 0, compute_capability_minor = 0;
  uint32_t multiprocessors = 0;
  uint32_t core_clock_khz = 0;
  uint64_t memory_bandwidth_bytes_per_s = 0;
  uint64_t memory_bytes = 0;
  uint32_t max_warps_per_multiprocessor = 0;
  uint32_t max_blocks_per_multiprocessor = 0;
  uint32_t max_shared_memory_per_multiprocessor = 0;
  uint32_t max_registers_per_multiprocessor = 0;
  uint32_t threads_per_warp = 32;
};

// From the callback API, on the calling thread at the call's entry:
// the framework op open on the thread when it launched work (its name lives for the process)...
struct LaunchOp {
  uint32_t correlation_id = 0;
  const char* op = nullptr;
};
// ...and, once per thread and session, the OS thread id behind CUPTI's thread id.
struct ThreadOfCall {
  uint32_t correlation_id = 0;
  uint32_t os_thread = 0;
};

// Everything one session collected.
struct GpuActivityLog {
  NameTable names;
  std::vector<KernelActivity> kernels;
  std::vector<MemcpyActivity> memcpys;
  std::vector<MemsetActivity> memsets;
  std::vector<SyncActivity> syncs;
  std::vector<ApiActivity> api_calls;
  std::vector<OverheadActivity> overheads;
  std::vector<ExternalCorrelation> external_correlations;
  std::vector<DeviceProperties> devices;
  std::vector<LaunchOp> launch_ops;
  std::vector<ThreadOfCall> threads_of_calls;
  uint64_t dropped_records = 0;  // lost to full buffers (CUPTI's count and ours)
};

}  // namespace mlprof::capture::gpu
