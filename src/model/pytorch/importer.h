// Reads PyTorch profiler traces (Kineto's Chrome-trace JSON, plain or .gz, every schema from
// 2021 on) into the Profile model, in the vocabulary the XSpace importer uses, so that every
// tool reads both formats the same way:
//   - host threads become lines of "/host:CPU" (named by the trace's thread_name events);
//     Python stack events go to a "/host:python" plane of their own;
//   - kernels, copies and memsets become "Stream #<id>(<kinds>)" lines of "/device:GPU:<n>",
//     whose plane stats carry the device's properties; GPU user annotations go to its
//     "Framework Name Scope" line and stream synchronisations to a line of their own;
//   - runtime and driver calls and the GPU work they started share `correlation_id`; GPU work
//     names the op that launched it (`External id`) in `tf_op`, and kernels carry
//     `kernel_details`, copies `memcpy_details`, memsets `memset_details`;
//   - ProfilerStep#N carries `step_num` and `_r`; work on other threads of its process (the
//     autograd engine) is tied to the step running when it starts by producer/consumer stats;
//   - "[memory]" instants become MemoryAllocation / MemoryDeallocation events with the memory
//     profile's stats (docs/ARCHITECTURE.md §5.5: allocator_name, addr, allocation_bytes, bytes_allocated
//     = Total Allocated, bytes_available = Total Reserved − Total Allocated); the op that
//     asked is the event's parent;
//   - the host's hostname is "rank<N>" from distributedInfo, so one file per rank makes a pod.
#pragma once

#include <string>
#include <string_view>

#include "model/ingest_stages.h"
#include "model/load_progress.h"
#include "model/profile.h"

namespace mlprof::model {

// Appends the file as one more host of `profile`. On failure returns false, sets `error` to a
// one-line reason (without the path) and leaves `profile` without that host. The file is read
// piece by piece (a .gz inflated as it is read); `progress` hears the fraction read so far.
// `parse_ahead`: a .gz inflated and the JSON parsed on threads of their own a few pieces ahead
// (kineto::JsonSource::open_file's and kineto::read_trace's); false for a file read while others are.
// `stages`, when given, hears the CPU time of each stage of the read.
bool import_pytorch_trace_file(const std::string& path, std::string_view host, Profile* profile,
                               std::string* error, const LoadProgress& progress = {}, bool parse_ahead = true,
                               IngestStages* stages = nullptr);

// The same for bytes already in memory (JSON, or gzip-compressed JSON).
bool import_pytorch_trace_bytes(const void* data, size_t size, std::string_view host, Profile* profile,
                                std::string* error);

}  // namespace mlprof::model
