// What a PyTorch trace (Kineto's Chrome-trace JSON, docs/ARCHITECTURE.md §3.6) says, read in one pass
// and kept close to the file: events with the few arguments the analysis needs, the threads
// and streams they ran on, flows, device properties and the distributed setup. Names are
// interned into the profile's string table as they are read. pytorch/importer.cc turns this
// into the Profile model.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/ingest_stages.h"
#include "model/pytorch/trace_file.h"
#include "model/load_progress.h"
#include "model/string_table.h"
#include "model/well_known_strings.h"

namespace mlprof::model::kineto {

inline constexpr int64_t kNoId = INT64_MIN;

// The `cat` of an event, with the names every Kineto version used for it; events without a
// `cat` are classified by their name and arguments.
enum class Category : uint8_t {
  kCpuOp,              // cpu_op (Operator in 2021)
  kUserAnnotation,     // user_annotation: record_function ranges, ProfilerStep#N
  kPythonFunction,     // python_function (with_stack)
  kRuntime,            // cuda_runtime, and other runtimes' API calls
  kDriver,             // cuda_driver
  kKernel,             // kernel
  kMemcpy,             // gpu_memcpy
  kMemset,             // gpu_memset
  kGpuUserAnnotation,  // gpu_user_annotation: a user range projected onto a stream
  kSync,               // cuda_sync: a host waiting on a stream or event
  kMemory,             // "[memory]" instants (cpu_instant_event)
  kInstant,            // other instants on a thread
  kOther,              // an unknown category: kept as a host event
};
inline constexpr size_t kNumCategories = 13;

bool is_device_category(Category c);

// A thread (pid, tid) or, for device work, a stream (device, stream).
struct Track {
  int64_t pid = 0;
  int64_t tid = 0;
  bool device = false;            // (device, stream)
  bool mtia = false;              // its work came as MTIA's ("mtia_ccp_events"): an MTIA, not a GPU
  StringId name = kEmptyString;   // the "thread_name" metadata event, if any
};

struct Event {
  int64_t ts_ns = 0;              // ts × 1000, without baseTimeNanoseconds (the importer then
                                  // rewrites it as the start in ps, to hold no second copy)
  int64_t dur_ps = 0;             // 0 for instants
  int64_t correlation = kNoId;    // args.correlation: a runtime call and the GPU work it started
  int64_t external_id = kNoId;    // args["External id"]: GPU work and the op that launched it
  StringId name = kEmptyString;
  uint32_t track = 0;             // index into Trace::tracks
  Category category = Category::kOther;
  uint32_t detail = UINT32_MAX;   // kKernel: kernels[], kMemcpy/kMemset: copies[], kMemory: memory[],
                                  // any other: op_args[] (each distinct record is kept once however
                                  // often it repeats)
};

struct KernelLaunch {
  int64_t registers = -1;            // registers per thread
  int64_t shared_memory = -1;        // bytes per block, static and dynamic together
  int64_t grid[3] = {0, 0, 0};
  int64_t block[3] = {0, 0, 0};
  double occupancy_pct = -1;         // est. achieved occupancy %
  int64_t op_args = -1;              // index into Trace::op_args: a collective kernel's arguments
  bool operator==(const KernelLaunch&) const = default;
};

// What PyTorch records about an op's inputs (cpu_op) and a collective's call (record_param_comms
// ops and NCCL kernels), under Kineto's own key names. Strings are as written; an array (`Input
// type`, `Input Dims`) is kept as its JSON text. A training step repeats them, so each distinct
// record is kept once, as interned strings: a few bytes per event.
struct OpArgs {
  StringId input_types = kEmptyString;  // "Input type": ["c10::BFloat16", "float", "Scalar"]
  StringId input_dims = kEmptyString;   // "Input Dims": [[4, 3], [3], []]
  StringId collective = kEmptyString;   // "Collective name": allreduce, _allgather_base, send
  StringId dtype = kEmptyString;        // "dtype": Float, BFloat16
  StringId in_split = kEmptyString;     // "In split size": "[]" or the all_to_all splits
  StringId out_split = kEmptyString;    // "Out split size"
  StringId group_name = kEmptyString;   // "Process Group Name": "0"
  StringId group_ranks = kEmptyString;  // "Process Group Ranks": "[0, 1]"
  int64_t in_nelems = -1;               // "In msg nelems"
  int64_t out_nelems = -1;              // "Out msg nelems"
  int64_t group_size = -1;              // "Group size"
  bool operator==(const OpArgs&) const = default;
};

struct Copy {
  int64_t bytes = -1;
};

// A cuda_sync event's wait on a CUDA event: the cudaEventRecord call's correlation id and the
// stream it recorded on.
struct EventWait {
  int64_t record_correlation = kNoId;
  int64_t recorded_stream = kNoId;
};

struct MemoryRecord {
  int64_t addr = 0;
  int64_t bytes = 0;             // negative when freed
  int64_t total_allocated = -1;  // after this event, on its device
  int64_t total_reserved = -1;
  int64_t device_type = -1;      // c10::DeviceType: 0 CPU, 1 CUDA, ...
  int64_t device_id = -1;
  bool operator==(const MemoryRecord&) const = default;
};

// One end of a CPU-to-GPU flow arrow (ac2g, async_cpu_to_gpu, launch): older traces may link
// a launch and its kernel only this way.
struct FlowPoint {
  int64_t pid = 0;  // as written: a thread, or (device, stream) for the GPU end
  int64_t tid = 0;
  int64_t ts_ns = 0;
  int64_t id = 0;
};

struct DeviceProperties {
  int64_t id = -1;
  StringId name = kEmptyString;
  int64_t total_global_mem = -1;
  int64_t num_sms = -1;
  int64_t compute_major = -1;
  int64_t compute_minor = -1;
};

struct Trace {
  std::vector<Event> events;
  std::vector<Track> tracks;
  std::vector<KernelLaunch> kernels;
  std::vector<Copy> copies;
  std::vector<MemoryRecord> memory;
  std::vector<OpArgs> op_args;
  std::vector<EventWait> event_waits;  // few: cuda_sync events that wait on a recorded event
  std::deque<FlowPoint> flow_starts, flow_ends;  // many, and seldom needed: grown without copying
  std::vector<DeviceProperties> devices;
  std::unordered_map<int64_t, StringId> process_names;

  std::optional<int64_t> base_time_ns;  // baseTimeNanoseconds
  std::optional<int64_t> rank;          // distributedInfo
  std::optional<int64_t> world_size;
  StringId backend = kEmptyString;
  StringId host_name = kEmptyString;    // a top-level "host_name", written by some launchers

  uint64_t skipped_events = 0;          // phases and shapes that carry no work (B/E pairs, counters)
  uint64_t unknown_device_events = 0;   // on a device stream, in a category not known here: read as kernels
  std::string unknown_device_category;  // the first such category
  std::array<uint64_t, kNumCategories> count_by_category{};
};

// Reads the JSON text from `source`. Returns false with a one-line reason when it is not a trace.
// `parse_ahead`: the text is scanned and parsed on threads of their own, a few batches ahead;
// false: all on the caller's thread with one batch's buffers, for a file read while others are
// (their threads keep the cores busy, and each file in flight costs its buffers). `stages`, when
// given, hears the CPU time of each stage. `guess_cuts`: the event array is cut where its layout
// suggests (walk_trace_json's), when the source can be read again from its start (false: tests
// compare with a read that scans every byte).
bool read_trace(JsonSource& source, StringTable* strings, Trace* trace, const LoadProgress& progress,
                std::string* error, bool parse_ahead = true, IngestStages* stages = nullptr, bool guess_cuts = true);

}  // namespace mlprof::model::kineto
