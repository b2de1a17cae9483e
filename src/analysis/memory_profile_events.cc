#include "analysis/memory_profile_events.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

namespace mlprof::analysis {
namespace {

using model::Profile;
using model::StatValue;
using model::StringId;

constexpr std::string_view kAllocation = "MemoryAllocation";
constexpr std::string_view kDeallocation = "MemoryDeallocation";

// The stats a memory event may carry, in the order of `Field`.
enum Field : uint8_t {
  kAllocator, kAddress, kAllocationBytes, kRequestedBytes, kHeap, kFree, kStack, kPeak, kFragmentation,
  kLargestFreeChunk, kOp, kStep, kRegionType, kDataType, kShape, kNumFields
};
constexpr std::array<std::string_view, kNumFields> kFieldStats = {
    "allocator_name", "addr", "allocation_bytes", "requested_bytes", "bytes_allocated", "bytes_available",
    "bytes_reserved", "peak_bytes_in_use", "fragmentation", "largest_free_chunk", "tf_op", "id", "region_type",
    "data_type", "shape"};

// What one event says, before the allocator's running state fills the gaps.
struct RawEvent {
  std::array<StatValue, kNumFields> value;
  uint32_t present = 0;  // bit per Field
  bool has(Field f) const { return (present >> f) & 1; }
  int64_t number(Field f, int64_t otherwise) const { return has(f) ? value[f].as_int() : otherwise; }
};

class MemoryEventReader {
 public:
  explicit MemoryEventReader(const Profile& p) : p_(p), field_of_key_(p.strings.size(), kNumFields) {
    for (size_t f = 0; f < kNumFields; ++f) {
      key_of_field_[f] = p.strings.find(kFieldStats[f]);
      if (key_of_field_[f] < field_of_key_.size()) field_of_key_[key_of_field_[f]] = uint8_t(f);
    }
  }

  // Only the allocator's name (the first pass groups events by it).
  std::string_view allocator(model::EventIndex e) const {
    const StringId key = key_of_field_[kAllocator];
    if (key == model::kNoString) return {};
    const model::StatRange own = p_.event_stat_range(e);
    for (uint32_t i = own.first; i < own.first + own.count; ++i)
      if (p_.event_stats.key(i) == key) return p_.string_of(p_.event_stats.value(i));
    const model::StatRange named = p_.names[p_.events.name[e]].stats;
    for (uint32_t i = named.first; i < named.first + named.count; ++i)
      if (p_.metadata_stats.key(i) == key) return p_.string_of(p_.metadata_stats.value(i));
    return {};
  }

  RawEvent read(model::EventIndex e) const {
    RawEvent raw;
    // The event's own stats win over its name's (TraceMe-encoded names carry theirs there).
    const model::StatRange own = p_.event_stat_range(e);
    take(raw, p_.event_stats, own.first, own.count);
    const model::StatRange named = p_.names[p_.events.name[e]].stats;
    take(raw, p_.metadata_stats, named.first, named.count);
    return raw;
  }

  std::string_view text(const RawEvent& raw, Field f) const {
    return raw.has(f) ? p_.string_of(raw.value[f]) : std::string_view();
  }

 private:
  void take(RawEvent& raw, const model::StatTable& table, uint32_t first, uint32_t count) const {
    for (uint32_t i = first; i < first + count; ++i) {
      const StringId key = table.key(i);
      const uint32_t f = key < field_of_key_.size() ? field_of_key_[key] : kNumFields;
      if (f < kNumFields && !raw.has(Field(f))) {
        raw.value[f] = table.value(i);
        raw.present |= 1u << f;
      }
    }
  }

  const Profile& p_;
  std::array<StringId, kNumFields> key_of_field_;  // kNoString for names the profile lacks
  std::vector<uint8_t> field_of_key_;              // by string id: its Field, or kNumFields
};

// Name indices of MemoryAllocation (1) and MemoryDeallocation (2) events; 0 for the others.
std::vector<uint8_t> memory_name_kinds(const Profile& p) {
  const StringId allocation = p.strings.find(kAllocation), deallocation = p.strings.find(kDeallocation);
  std::vector<uint8_t> kind(p.names.size(), 0);
  if (allocation == model::kNoString && deallocation == model::kNoString) return {};
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n) {
    kind[n] = p.names[n].name == allocation ? 1 : p.names[n].name == deallocation ? 2 : 0;
    any |= kind[n] != 0;
  }
  return any ? kind : std::vector<uint8_t>();
}

std::string_view data_type_of(const MemoryEventReader& reader, const RawEvent& raw) {
  if (!raw.has(kDataType)) return {};
  if (raw.value[kDataType].is_number()) return tensorflow_data_type_name(raw.value[kDataType].as_int());
  return reader.text(raw, kDataType);
}

// The op that asked: tf_op, else the event the memory event happened in (PyTorch's "[memory]"
// instants sit inside the op that allocated), passing over aten::empty and its kin, which
// only allocate for the op that called them.
std::string_view op_of(const Profile& p, const MemoryEventReader& reader, const RawEvent& raw, model::EventIndex e) {
  if (std::string_view op = reader.text(raw, kOp); !op.empty()) return op;
  std::string_view op;
  for (model::EventIndex at = p.events.parent[e]; at != model::kNone; at = p.events.parent[at]) {
    op = p.name(at);
    if (!op.starts_with("aten::empty")) break;
  }
  return op;
}

struct PendingEvent {
  int64_t time_ps;
  model::EventIndex event;
};

// Turns one allocator's events (in time order) into AllocatorEvents, carrying the running
// state over events that leave numbers out.
std::vector<AllocatorEvent> complete(const Profile& p, const MemoryEventReader& reader,
                                     std::vector<PendingEvent>& pending, const std::vector<uint8_t>& kinds) {
  auto earlier = [](const PendingEvent& a, const PendingEvent& b) { return a.time_ps < b.time_ps; };
  if (!std::is_sorted(pending.begin(), pending.end(), earlier)) std::stable_sort(pending.begin(), pending.end(), earlier);
  std::vector<AllocatorEvent> out;
  out.reserve(pending.size());
  int64_t heap = 0, stack = 0, free = 0;
  double fragmentation_pct = 0;
  for (const PendingEvent& pe : pending) {
    const RawEvent r = reader.read(pe.event);  // read again rather than held: memory events can be millions
    AllocatorEvent a;
    a.event = pe.event;
    a.time_ps = pe.time_ps;
    a.allocation = kinds[p.events.name[pe.event]] == 1;
    a.address = r.has(kAddress) ? r.value[kAddress].as_uint() : 0;
    a.allocation_bytes = std::abs(r.number(kAllocationBytes, 0));
    a.requested_bytes = std::abs(r.number(kRequestedBytes, a.allocation_bytes));
    heap = r.has(kHeap) ? r.number(kHeap, 0) : std::max<int64_t>(0, heap + (a.allocation ? 1 : -1) * a.allocation_bytes);
    stack = r.number(kStack, stack);
    free = r.number(kFree, free);
    if (r.has(kLargestFreeChunk)) {
      const int64_t largest = std::min(free, r.number(kLargestFreeChunk, 0));
      fragmentation_pct = free > 0 ? 100.0 * double(free - largest) / double(free) : 0.0;
    } else if (r.has(kFragmentation)) {
      fragmentation_pct = 100.0 * r.value[kFragmentation].as_double();  // TensorFlow's is a fraction
    }
    a.heap_bytes = heap;
    a.stack_bytes = stack;
    a.free_bytes = free;
    a.fragmentation_pct = fragmentation_pct;
    a.peak_bytes_in_use = r.number(kPeak, -1);
    a.step = std::max<int64_t>(-1, r.number(kStep, -1));  // TensorFlow 2's step ids are 64-bit hashes: no step
    a.op = op_of(p, reader, r, pe.event);
    a.region_type = reader.text(r, kRegionType);
    a.data_type = data_type_of(reader, r);
    a.shape = reader.text(r, kShape);
    out.push_back(a);
  }
  return out;
}

}  // namespace

std::string_view tensorflow_data_type_name(int64_t data_type) {
  // tensorflow/core/framework/types.proto, DataType (DT_INVALID = 0 has no name here).
  static constexpr std::array<std::string_view, 24> kNames = {
      "",       "float",   "double", "int32",  "uint8",   "int16",  "int8",    "string",
      "complex64", "int64", "bool",  "qint8",  "quint8",  "qint32", "bfloat16", "qint16",
      "quint16", "uint16", "complex128", "half", "resource", "variant", "uint32", "uint64"};
  if (data_type >= 0 && data_type < int64_t(kNames.size())) return kNames[size_t(data_type)];
  if (data_type > 100 && data_type - 100 < int64_t(kNames.size())) return kNames[size_t(data_type - 100)];  // _REF types
  return "unknown";
}

bool has_memory_events(const model::Profile& profile) {
  const std::vector<uint8_t> kinds = memory_name_kinds(profile);
  if (kinds.empty()) return false;
  for (model::NameIndex n : profile.events.name)
    if (kinds[n] != 0) return true;
  return false;
}

std::vector<AllocatorEvents> read_memory_events(const model::Profile& p) {
  const std::vector<uint8_t> kinds = memory_name_kinds(p);
  if (kinds.empty()) return {};
  const MemoryEventReader reader(p);
  // Keyed by (host, allocator name): the same allocator name on two hosts is two memories.
  std::map<std::pair<uint32_t, std::string_view>, std::vector<PendingEvent>> by_allocator;
  // Consecutive events mostly name the same allocator (the same interned string): skip the map then.
  std::pair<uint32_t, const char*> last_key{UINT32_MAX, nullptr};
  std::vector<PendingEvent>* last = nullptr;
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    if (kinds[p.events.name[e]] == 0) continue;
    std::string_view allocator = reader.allocator(e);
    if (allocator.empty()) allocator = "allocator";
    const uint32_t host = p.plane_of(e).host;
    if (last == nullptr || last_key.first != host || last_key.second != allocator.data()) {
      last = &by_allocator[{host, allocator}];
      last_key = {host, allocator.data()};
    }
    last->push_back({p.start_ps(e), e});
  }
  std::set<uint32_t> hosts;
  for (const auto& [key, events] : by_allocator) hosts.insert(key.first);
  std::vector<AllocatorEvents> out;
  for (auto& [key, pending] : by_allocator) {
    AllocatorEvents a;
    a.memory_id = std::string(key.second);
    if (hosts.size() > 1) a.memory_id = std::string(p.strings.view(p.hosts[key.first].name)) + "/" + a.memory_id;
    a.events = complete(p, reader, pending, kinds);
    out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const AllocatorEvents& a, const AllocatorEvents& b) { return a.memory_id < b.memory_id; });
  return out;
}

}  // namespace mlprof::analysis
