#include "analysis/memory_profile_events.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "analysis/sort_runs.h"
#include "format/xspace_schema.h"

namespace mlprof::analysis {
namespace {

using model::Profile;
using model::StringId;

namespace xs = format::xspace;
constexpr std::string_view kAllocation = xs::kMemoryAllocationEventName;
constexpr std::string_view kDeallocation = xs::kMemoryDeallocationEventName;

constexpr std::array<std::string_view, MemoryEventReader::kNumFields> kFieldStats = {
    xs::kStatAllocatorName,  xs::kStatAddr,           xs::kStatAllocationBytes, xs::kStatRequestedBytes,
    xs::kStatBytesAllocated, xs::kStatBytesAvailable, xs::kStatBytesReserved,   xs::kStatPeakBytesInUse,
    xs::kStatFragmentation,  xs::kStatLargestFreeChunk, xs::kStatTfOp,          xs::kStatId,
    xs::kStatRegionType,     xs::kStatDataType,       xs::kStatShape,           xs::kStatPoolBytes};

// Name indices of MemoryAllocation (1) and MemoryDeallocation (2) events; 0 for the others;
// empty when the profile has neither.
std::vector<uint8_t> memory_name_kinds(const Profile& p) {
  const StringId allocation = p.strings.find(kAllocation), deallocation = p.strings.find(kDeallocation);
  if (allocation == model::kNoString && deallocation == model::kNoString) return {};
  std::vector<uint8_t> kind(p.names.size(), 0);
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n) {
    kind[n] = p.names[n].name == allocation ? 1 : p.names[n].name == deallocation ? 2 : 0;
    any |= kind[n] != 0;
  }
  return any ? kind : std::vector<uint8_t>();
}

}  // namespace

MemoryEventReader::MemoryEventReader(const Profile& p)
    : p_(p), kind_of_name_(memory_name_kinds(p)), field_of_key_(p.strings.size(), kNumFields) {
  for (size_t f = 0; f < kNumFields; ++f) {
    key_of_field_[f] = p.strings.find(kFieldStats[f]);
    if (key_of_field_[f] < field_of_key_.size()) field_of_key_[key_of_field_[f]] = uint8_t(f);
  }
}

void MemoryEventReader::take(RawEvent& raw, const model::StatTable& table, model::StatRange range,
                             uint32_t wanted) const {
  for (uint32_t i = range.first; i < range.first + range.count; ++i) {
    const StringId key = table.key(i);
    const uint32_t f = key < field_of_key_.size() ? field_of_key_[key] : uint32_t(kNumFields);
    if (((wanted & ~raw.present) >> f) & 1) {  // wanted has no bit kNumFields
      raw.value[f] = table.value(i);
      raw.present |= 1u << f;
    }
  }
}

void MemoryEventReader::decode(model::EventIndex e, RawEvent& raw, uint32_t wanted) const {
  raw.present = 0;
  // The event's own stats win over its name's (TraceMe-encoded names carry theirs there).
  take(raw, p_.event_stats, p_.event_stat_range(e), wanted);
  const model::StatRange named = p_.names[p_.events.name[e]].stats;
  if (named.count > 0) take(raw, p_.metadata_stats, named, wanted);
}

std::string_view MemoryEventReader::text(const RawEvent& raw, Field f) const {
  // XLA's allocator writes "(null)" for an allocation with no op or region: none is known.
  const std::string_view t = raw.has(f) ? p_.string_of(raw.value[f]) : std::string_view();
  return t == "(null)" ? std::string_view() : t;
}

AllocatorEvent MemoryEventReader::apply(model::EventIndex e, const RawEvent& r, AllocatorState& s) const {
  AllocatorEvent a;
  a.event = e;
  a.allocation = kind_of_name_[p_.events.name[e]] == 1;
  a.address = r.has(kAddress) ? r.value[kAddress].as_uint() : 0;
  a.allocation_bytes = std::abs(r.number(kAllocationBytes, 0));
  a.requested_bytes = std::abs(r.number(kRequestedBytes, a.allocation_bytes));
  s.heap_bytes = r.has(kHeap) ? r.number(kHeap, 0)
                              : std::max<int64_t>(0, s.heap_bytes + (a.allocation ? 1 : -1) * a.allocation_bytes);
  s.stack_bytes = r.number(kStack, s.stack_bytes);
  s.free_bytes = r.number(kFree, s.free_bytes);
  s.pool_bytes = r.number(kPool, s.pool_bytes);
  s.free_known = s.free_known || r.has(kFree);
  if (r.has(kLargestFreeChunk)) {
    const int64_t largest = std::min(s.free_bytes, r.number(kLargestFreeChunk, 0));
    s.fragmentation_pct = s.free_bytes > 0 ? 100.0 * double(s.free_bytes - largest) / double(s.free_bytes) : 0.0;
  } else if (r.has(kFragmentation)) {
    s.fragmentation_pct = 100.0 * r.value[kFragmentation].as_double();  // TensorFlow's is a fraction
  }
  a.heap_bytes = s.heap_bytes;
  a.stack_bytes = s.stack_bytes;
  a.free_bytes = s.free_bytes;
  a.pool_bytes = s.pool_bytes;
  a.free_known = s.free_known;
  a.fragmentation_pct = s.fragmentation_pct;
  a.peak_bytes_in_use = r.number(kPeak, -1);
  a.step = std::max<int64_t>(-1, r.number(kStep, -1));  // TensorFlow 2's step ids are 64-bit hashes: no step
  return a;
}

AllocatorEvent MemoryEventReader::read(model::EventIndex e, AllocatorState& state) const {
  RawEvent r;
  decode(e, r, kAllFields);
  return apply(e, r, state);
}

void MemoryEventReader::add(MemorySeries& m, model::EventIndex e, const RawEvent& r, AllocatorState& state,
                            bool keep_columns) const {
  const size_t position = m.events.size();
  if (keep_columns && position % MemorySeries::kCheckpointEvery == 0) m.checkpoints.push_back(state);
  const AllocatorEvent a = apply(e, r, state);
  m.events.push_back(e);
  (a.allocation ? m.num_allocs : m.num_deallocs)++;
  m.lifetime_peak_heap_bytes = std::max({m.lifetime_peak_heap_bytes, a.peak_bytes_in_use, a.heap_bytes});
  if (position == 0 || a.in_use_bytes() > m.at_peak.in_use_bytes()) {
    m.peak = position;
    m.at_peak = a;
  }
  if (keep_columns) {
    m.in_use_bytes.push_back(a.in_use_bytes());
    m.addresses.push_back(a.address);
    m.allocations.push_back(a.allocation);
  }
}

namespace {

// Room for `n` events; at least half as much again as now, so that growing line by line stays linear.
void reserve(MemorySeries& m, size_t n, bool columns) {
  if (n <= m.events.capacity()) return;
  n = std::max(n, m.events.capacity() + m.events.capacity() / 2);
  m.events.reserve(n);
  if (!columns) return;
  m.in_use_bytes.reserve(n);
  m.addresses.reserve(n);
  m.allocations.reserve(n);
  m.checkpoints.reserve(n / MemorySeries::kCheckpointEvery + 1);
}

}  // namespace

std::vector<MemorySeries> MemoryEventReader::series(bool keep_columns) const {
  if (kind_of_name_.empty()) return {};
  // One memory while its events come in time order: the state is carried as they come.
  struct Building {
    MemorySeries series;
    AllocatorState state;
    bool in_order = true;  // else only `series.events` is filled here, and sorted afterwards
    uint32_t line = UINT32_MAX;  // of the last event
  };
  // Memory events per line, to size a memory's columns once per line it is found on rather
  // than doubling them (tens of millions of events: copies and page faults).
  std::vector<size_t> memory_events_of_line(p_.lines.size(), 0);
  for (size_t l = 0; l < p_.lines.size(); ++l)
    for (uint32_t e = p_.lines[l].first_event; e < p_.lines[l].first_event + p_.lines[l].num_events; ++e)
      memory_events_of_line[l] += kind_of_name_[p_.events.name[e]] != 0;
  // Keyed by (host, allocator name): the same allocator name on two hosts is two memories.
  std::map<std::pair<uint32_t, std::string_view>, Building> by_allocator;
  // Consecutive events mostly name the same allocator (the same interned string) on the same
  // host: skip the map then.
  std::pair<uint32_t, StringId> last_key{UINT32_MAX, model::kNoString};
  Building* last = nullptr;
  uint32_t line = UINT32_MAX, host = 0;
  model::LineCursor lines(p_);
  const std::vector<model::NameIndex>& names = p_.events.name;
  // An event with no stats of its own says what its name says (a trace's repeated records
  // share a name that carries them): decoded once per name.
  std::vector<uint32_t> decoded_of_name(p_.names.size(), UINT32_MAX);
  std::vector<RawEvent> decoded;
  RawEvent own;
  auto decoded_event = [&](model::EventIndex e) -> const RawEvent& {
    if (p_.events.first_stat[e] != p_.events.first_stat[e + 1]) {
      decode(e, own, kStateFields);
      return own;
    }
    uint32_t& slot = decoded_of_name[names[e]];
    if (slot == UINT32_MAX) {
      slot = uint32_t(decoded.size());
      decoded.emplace_back();
      decode(e, decoded.back(), kStateFields);
    }
    return decoded[slot];
  };
  for (model::EventIndex e = 0; e < p_.num_events(); ++e) {
    if (kind_of_name_[names[e]] == 0) continue;
    const RawEvent& r = decoded_event(e);
    if (const uint32_t l = lines.line_of(e); l != line) {
      line = l;
      host = p_.planes[p_.lines[line].plane].host;
    }
    const bool named = r.has(kAllocator) && r.value[kAllocator].type == model::StatType::kString;
    const StringId allocator_id = named ? r.value[kAllocator].str : model::kNoString;
    if (last == nullptr || last_key.first != host || last_key.second != allocator_id) {
      std::string_view allocator_name = named ? p_.strings.view(allocator_id) : std::string_view();
      if (allocator_name.empty()) allocator_name = "allocator";
      last = &by_allocator[{host, allocator_name}];
      last_key = {host, allocator_id};
    }
    MemorySeries& m = last->series;
    if (last->in_order && !m.events.empty() && p_.start_ps(e) < p_.start_ps(m.events.back())) last->in_order = false;
    if (line != last->line) {
      last->line = line;
      reserve(m, m.events.size() + memory_events_of_line[line], keep_columns && last->in_order);
    }
    if (last->in_order) add(m, e, r, last->state, keep_columns);
    else m.events.push_back(e);
  }
  std::set<uint32_t> hosts;
  for (const auto& [key, building] : by_allocator) hosts.insert(key.first);
  auto earlier = [&](model::EventIndex a, model::EventIndex b) { return p_.start_ps(a) < p_.start_ps(b); };
  std::vector<MemorySeries> out;
  for (auto& [key, building] : by_allocator) {
    MemorySeries m;
    if (building.in_order) {
      m = std::move(building.series);
    } else {  // events from several threads: ordered by start, then a second pass
      std::vector<model::EventIndex>& events = building.series.events;
      // They come line by line, each line's in start order: those runs merged, which keeps
      // events of one start in index order, as a stable sort would.
      std::vector<size_t> runs{0};
      for (size_t i = 1; i < events.size(); ++i)
        if (earlier(events[i], events[i - 1])) runs.push_back(i);
      sort_runs(events, std::move(runs), earlier);
      reserve(m, events.size(), keep_columns);
      AllocatorState state;
      for (model::EventIndex e : events) add(m, e, decoded_event(e), state, keep_columns);
    }
    if (!m.events.empty()) {  // the fields left out above
      AllocatorState scratch;
      const AllocatorEvent full = read(m.at_peak.event, scratch);
      m.at_peak.requested_bytes = full.requested_bytes;
      m.at_peak.step = full.step;
    }
    m.memory_id = std::string(key.second);
    m.allocator = key.second;
    m.host = key.first;
    if (hosts.size() > 1) m.memory_id = std::string(p_.strings.view(p_.hosts[key.first].name)) + "/" + m.memory_id;
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const MemorySeries& a, const MemorySeries& b) { return a.memory_id < b.memory_id; });
  return out;
}

AllocatorEvent MemoryEventReader::event_at(const MemorySeries& m, size_t position, SeriesCursor& cursor) const {
  const size_t checkpoint = position - position % MemorySeries::kCheckpointEvery;
  if (cursor.next <= checkpoint || cursor.next > position) {
    cursor.next = checkpoint;
    cursor.state = m.checkpoints[checkpoint / MemorySeries::kCheckpointEvery];
  }
  for (; cursor.next < position; ++cursor.next) read(m.events[cursor.next], cursor.state);
  ++cursor.next;
  return read(m.events[position], cursor.state);
}

void MemoryEventReader::describe(AllocatorEvent& a) const {
  RawEvent r;
  decode(a.event, r, 1u << kOp | 1u << kRegionType | 1u << kDataType | 1u << kShape);
  a.region_type = text(r, kRegionType);
  a.shape = text(r, kShape);
  if (r.has(kDataType))
    a.data_type = r.value[kDataType].is_number() ? tensorflow_data_type_name(r.value[kDataType].as_int())
                                                 : text(r, kDataType);
  // The op that asked: tf_op, else the event the memory event happened in (PyTorch's
  // "[memory]" instants sit inside the op that allocated), passing over aten::empty and its
  // kin, which only allocate for the op that called them.
  a.op = text(r, kOp);
  if (!a.op.empty()) return;
  for (model::EventIndex at = p_.events.parent[a.event]; at != model::kNone; at = p_.events.parent[at]) {
    a.op = p_.name(at);
    if (!a.op.starts_with("aten::empty")) break;
  }
}

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

}  // namespace mlprof::analysis
