// Reads allocator events out of the Profile model for the memory profile (docs/ARCHITECTURE.md §5.5).
// Every source writes them the way TensorFlow does: events named MemoryAllocation /
// MemoryDeallocation with stats (allocator_name, bytes_allocated, ...); TensorFlow's own,
// the capture SDK's (record_allocation and LibTorch's allocator) and the PyTorch importer's
// "[memory]" events all come through here, so one reader serves them all.
//
// Memory events can be tens of millions: one pass reads each event's numbers in time order per
// memory (the allocator's state carries over what an event leaves out) and keeps a few bytes
// an event (MemorySeries); what describes an event (op, region, type, shape: strings, and the
// enclosing events for the op) is read only for the few events the profile shows.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// One allocation or deallocation with the allocator's state after it. Byte counts the
// event did not carry come from the state before it (see MemoryEventReader::read).
struct AllocatorEvent {
  model::EventIndex event = model::kNone;
  bool allocation = true;
  uint64_t address = 0;
  int64_t allocation_bytes = 0;  // the block handed out or returned (positive)
  int64_t requested_bytes = 0;   // what the caller asked for (positive)
  int64_t stack_bytes = 0;       // bytes_reserved: TensorFlow's stack reservation
  int64_t heap_bytes = 0;        // bytes_allocated: in use by allocations
  int64_t free_bytes = 0;        // bytes_available: held by the allocator, not in use
  int64_t peak_bytes_in_use = -1;  // the allocator's own peak since the program started, or -1
  int64_t pool_bytes = -1;       // a caching allocator's pool (PyTorch's "Total Reserved"), or -1
  bool free_known = false;       // free_bytes is the allocator's word, not a default
  double fragmentation_pct = 0;  // (free − largest free chunk) / free, as a percentage
  int64_t step = -1;             // the `id` stat: the step it happened in
  // Filled by MemoryEventReader::describe only.
  std::string_view op;           // the op that asked (tf_op, else the enclosing event)
  std::string_view region_type;  // "output", "temp", "persist", "dynamic"
  std::string_view data_type;    // "float", "half", ...
  std::string_view shape;        // "[4,384,1024]"

  int64_t in_use_bytes() const { return stack_bytes + heap_bytes; }
};

// The allocator's state after an event; what the next event leaves out keeps these values.
struct AllocatorState {
  int64_t heap_bytes = 0, stack_bytes = 0, free_bytes = 0;
  int64_t pool_bytes = -1;  // -1: the allocator keeps no pool (or does not say)
  bool free_known = false;  // the allocator has reported its free memory (bytes_available)
  double fragmentation_pct = 0;
};

// One memory (an allocator on a host): its events in time order and what the memory profile
// keeps of each after one pass over them, a few bytes an event; the full state after any event
// is read again from the nearest checkpoint.
struct MemorySeries {
  static constexpr size_t kCheckpointEvery = 64;

  std::string memory_id;  // the allocator's name; "<host>/<allocator>" when several hosts have one
  std::string_view allocator;  // the allocator's name alone ("cuda:0", "GPU_0_bfc")
  uint32_t host = 0;           // index into Profile::hosts
  std::vector<model::EventIndex> events;
  // Per event, kept only when asked (MemoryEventReader::series):
  std::vector<int64_t> in_use_bytes;        // stack + heap after it
  std::vector<uint64_t> addresses;
  std::vector<bool> allocations;            // allocation or deallocation
  std::vector<AllocatorState> checkpoints;  // the state before event k * kCheckpointEvery
  // Over all events:
  uint64_t num_allocs = 0;
  uint64_t num_deallocs = 0;
  int64_t lifetime_peak_heap_bytes = 0;  // the allocator's own peak or heap, the highest seen
  size_t peak = 0;                       // the first event after which the most was in use
  AllocatorEvent at_peak;
};

class MemoryEventReader {
 public:
  explicit MemoryEventReader(const model::Profile& profile);

  // All memories of the profile, sorted by memory id; per-event columns and checkpoints only
  // if `keep_columns`. One pass over the memory events' stats when each memory's events come
  // in time order (one thread per allocator, as most sources write them), two otherwise.
  std::vector<MemorySeries> series(bool keep_columns) const;

  // Event `position` of `series` with the allocator's state after it (needs checkpoints):
  // read on from the checkpoint before it, or from where `cursor` left off when that is nearer.
  struct SeriesCursor {
    size_t next = 0;  // the event `state` comes before
    AllocatorState state;
  };
  AllocatorEvent event_at(const MemorySeries& series, size_t position, SeriesCursor& cursor) const;

  // Event `e`'s numbers and the allocator's state after it, which `state` holds before and
  // after. A byte count the event leaves out keeps the allocator's last value, except the
  // heap, which then follows the allocations themselves (a user allocator may report only sizes).
  AllocatorEvent read(model::EventIndex e, AllocatorState& state) const;

  // Adds what describes the event: op, region type, data type and shape. String views point
  // into the profile.
  void describe(AllocatorEvent& event) const;

  // The stats a memory event may carry, in the order of kFieldStats.
  enum Field : uint8_t {
    kAllocator, kAddress, kAllocationBytes, kRequestedBytes, kHeap, kFree, kStack, kPeak, kFragmentation,
    kLargestFreeChunk, kOp, kStep, kRegionType, kDataType, kShape, kPool, kNumFields
  };

 private:
  // What one event says, before the allocator's state fills the gaps. Values are set only
  // where `present` says so (an event reads tens of millions of these).
  struct RawEvent {
    RawEvent() {}  // leaves `value` uninitialised
    union {
      std::array<model::StatValue, kNumFields> value;
    };
    uint32_t present = 0;  // bit per Field
    bool has(Field f) const { return (present >> f) & 1; }
    // As StatValue::as_int, inline: it runs for several stats of every event.
    int64_t number(Field f, int64_t otherwise) const {
      if (!has(f)) return otherwise;
      const model::StatValue& v = value[f];
      switch (v.type) {
        case model::StatType::kInt64: return v.i64;
        case model::StatType::kUint64: return int64_t(v.u64);
        case model::StatType::kDouble: return int64_t(v.f64);
        case model::StatType::kString: return 0;
      }
      return 0;
    }
  };

  static constexpr uint32_t kAllFields = (1u << kNumFields) - 1;
  // What the allocator's state and the summary need; the rest is read again where shown.
  static constexpr uint32_t kStateFields = 1u << kAllocator | 1u << kAddress | 1u << kAllocationBytes |
                                           1u << kHeap | 1u << kFree | 1u << kStack | 1u << kPeak |
                                           1u << kFragmentation | 1u << kLargestFreeChunk | 1u << kPool;

  void decode(model::EventIndex e, RawEvent& raw, uint32_t wanted) const;
  void take(RawEvent& raw, const model::StatTable& table, model::StatRange range, uint32_t wanted) const;
  AllocatorEvent apply(model::EventIndex e, const RawEvent& raw, AllocatorState& state) const;
  void add(MemorySeries& series, model::EventIndex e, const RawEvent& raw, AllocatorState& state,
           bool keep_columns) const;
  std::string_view text(const RawEvent& raw, Field f) const;

  const model::Profile& p_;
  std::vector<uint8_t> kind_of_name_;              // by name index: 0, 1 allocation, 2 deallocation
  std::array<model::StringId, kNumFields> key_of_field_;  // kNoString for names the profile lacks
  std::vector<uint8_t> field_of_key_;              // by string id: its Field, or kNumFields
};

// Whether the profile holds any memory event (cheap: stops at the first).
bool has_memory_events(const model::Profile& profile);

// TensorFlow writes data_type as its DataType enum: 1 -> "float", 19 -> "half", ...
std::string_view tensorflow_data_type_name(int64_t data_type);

}  // namespace mlprof::analysis
