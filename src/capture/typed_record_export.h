// Exports typed records (typed_records.h) as events of the /host:CPU plane: ops with their
// sequence number, forward thread and input shapes; MemoryAllocation / MemoryDeallocation
// events with the stats of docs/ARCHITECTURE.md §5.5, as TensorFlow's allocators write them; inferred
// steps as step roots that say how they were found (step_source).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "capture/arena.h"
#include "capture/plane_names.h"
#include "capture/typed_records.h"
#include "format/xspace_encoder.h"

namespace mlprof::capture {

class TypedRecordExport {
 public:
  // `host` and `names` must outlive the object; strings it creates live as long as it does,
  // so keep it until the XSpace is written. Records that began before `first_tick` (in an
  // earlier session) are left out; ops still open at `stop_tick` end there.
  TypedRecordExport(format::WirePlane* host, PlaneNames* names, const Arena* arena, uint64_t first_tick,
                    uint64_t stop_tick);

  // Reads the typed record at `p` in a chunk of thread `tid`; returns its size, or 0 when it
  // is malformed or runs past `end` (the caller stops reading the chunk).
  size_t collect(uint32_t tid, const char* p, const char* end);
  // A thread's segment of a chunk begins: its op records' times start over (OpTimeRecord).
  void begin_segment();

  // Adds every collected event through add(tid, event), times still in ticks (offset_ps
  // holds the start tick and duration_ps the end tick, as the exporter expects).
  void emit(const std::function<void(uint32_t, const format::WireEvent&)>& add);

 private:
  struct PendingOp {
    uint32_t tid;
    const OpRecord* record;
    uint64_t start;           // ticks
    std::string_view inputs;  // its own, or those it repeats (kOpRecordSameInputs)
  };
  struct PendingMemory {
    uint32_t tid;
    const MemoryRecord* record;
  };
  struct PendingStep {
    uint32_t tid;
    InferredStepRecord record;
  };

  void emit_op(const PendingOp& op, const std::function<void(uint32_t, const format::WireEvent&)>& add);
  void emit_memory(const std::function<void(uint32_t, const format::WireEvent&)>& add);
  uint32_t finish_stats(uint32_t first);
  // A string stat value stored once in the plane (XStat.ref_value).
  format::WireStat ref_stat(uint32_t key, std::string_view value);
  const std::string& keep(std::string s);
  bool is_op_record(const OpRecord* r) const;
  // The input description of op record `r`, whether it carries it or repeats it.
  std::string_view inputs_of(const OpRecord* r) const;

  format::WirePlane* host_;
  PlaneNames* names_;
  const Arena* arena_;
  uint64_t tick_base_;
  uint64_t op_time_high_ = kNoOpTimeHigh;  // of the segment being collected
  std::unordered_map<uint16_t, std::string_view> last_inputs_;  // by name id, in that segment
  uint64_t first_tick_;
  uint64_t stop_tick_;
  std::vector<PendingOp> ops_;
  std::vector<PendingMemory> memory_;
  std::vector<PendingStep> steps_;
  std::unordered_map<uint64_t, uint32_t> tid_of_logical_;
  std::unordered_map<const OpRecord*, uint64_t> long_op_ends_;  // from OpEndRecords
  std::deque<std::string> strings_;  // stat values and names the plane refers to
  std::unordered_map<std::string_view, uint32_t> string_ids_;
};

}  // namespace mlprof::capture
