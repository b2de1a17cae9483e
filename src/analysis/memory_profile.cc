#include "analysis/memory_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "analysis/csv.h"
#include "analysis/memory_profile_blocks.h"
#include "analysis/memory_profile_events.h"
#include "analysis/memory_profile_timeline.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

MemoryTimelinePoint point_of(const model::Profile& p, const AllocatorEvent& e) {
  MemoryTimelinePoint point;
  point.time_ps = p.start_ps(e.event);
  point.stack_bytes = e.stack_bytes;
  point.heap_bytes = e.heap_bytes;
  point.free_bytes = e.free_bytes;
  point.fragmentation_pct = e.fragmentation_pct;
  point.allocation = e.allocation;
  point.requested_bytes = e.requested_bytes;
  point.allocation_bytes = e.allocation_bytes;
  point.address = e.address;
  point.step = e.step;
  point.op = e.op;
  point.region_type = e.region_type;
  point.data_type = e.data_type;
  point.shape = e.shape;
  return point;
}

// Deallocations of blocks the profile never saw allocated (or saw freed already).
struct UnmatchedFrees {
  uint64_t count = 0;
  int64_t bytes = 0;
  size_t first = 0;  // position of the first one
};

// Blocks alive at the peak: their positions among the memory's events, and those the
// profile never saw allocated (freed after the peak, at an address no event named before).
struct AliveAtPeak {
  std::vector<uint32_t> positions;  // of allocations the profile saw, ascending
  uint64_t before_count = 0;
  int64_t before_bytes = 0;
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void sort_and_filter(std::vector<MemoryBreakdownRow>& rows, const MemoryProfileOptions& o) {
  if (!o.breakdown_filter.empty()) {
    const std::string needle = lower(o.breakdown_filter);
    std::erase_if(rows, [&](const MemoryBreakdownRow& r) { return lower(r.op).find(needle) == std::string::npos; });
  }
  auto key = [&](const MemoryBreakdownRow& r) -> int64_t {
    if (o.breakdown_sort == "requested") return r.requested_bytes;
    if (o.breakdown_sort == "occurrences") return int64_t(r.occurrences);
    return r.allocation_bytes;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const MemoryBreakdownRow& a, const MemoryBreakdownRow& b) {
    if (o.breakdown_sort == "op") return a.op < b.op;
    const int64_t ka = key(a), kb = key(b);
    return ka != kb ? ka > kb : a.op < b.op;
  });
}

// The allocations alive at the peak, by op and kind of tensor.
std::vector<MemoryBreakdownRow> breakdown_of(const MemoryEventReader& reader, const MemorySeries& m,
                                             const AliveAtPeak& alive, int64_t heap_bytes) {
  using Key = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  std::map<Key, MemoryBreakdownRow> by_key;
  int64_t seen_bytes = 0;
  AllocatorState scratch;  // sizes and descriptions do not depend on the state
  for (uint32_t position : alive.positions) {
    AllocatorEvent e = reader.read(m.events[position], scratch);
    reader.describe(e);
    MemoryBreakdownRow& row = by_key[{e.op, e.region_type, e.data_type, e.shape}];
    if (row.occurrences == 0) {
      row.op = e.op;
      row.region_type = e.region_type;
      row.data_type = e.data_type;
      row.shape = e.shape;
    }
    row.allocation_bytes += e.allocation_bytes;
    row.requested_bytes += e.requested_bytes;
    ++row.occurrences;
    seen_bytes += e.allocation_bytes;
  }
  std::vector<MemoryBreakdownRow> rows;
  rows.reserve(by_key.size() + 1);
  for (auto& [key, row] : by_key) rows.push_back(std::move(row));
  // The allocator's heap counts blocks allocated before the profile began; so does the table.
  const int64_t unseen = heap_bytes - seen_bytes > 0 ? heap_bytes - seen_bytes : alive.before_bytes;
  if (unseen > 0) {
    MemoryBreakdownRow row;
    row.op = kAllocatedBeforeProfile;
    row.allocation_bytes = row.requested_bytes = unseen;
    row.occurrences = alive.before_count;
    rows.push_back(std::move(row));
  }
  return rows;
}

// The memory of the device an allocator named like PyTorch's ("cuda:0") serves, from its
// plane's memory_size stat (deviceProperties' totalGlobalMem); 0 when the profile does not say.
int64_t device_memory_bytes(const model::Profile& p, const MemorySeries& m) {
  const size_t colon = m.allocator.rfind(':');
  if (colon == std::string_view::npos || m.allocator.substr(0, colon) != "cuda") return 0;
  const std::string plane_name = "/device:GPU:" + std::string(m.allocator.substr(colon + 1));
  for (uint32_t i = 0; i < p.planes.size(); ++i) {
    const auto& plane = p.planes[i];
    if (plane.kind != model::PlaneKind::kDevice || plane.host != m.host || p.strings.view(plane.name) != plane_name)
      continue;
    if (auto v = p.plane_stat(i, model::kMemorySize)) return v->as_int();
  }
  return 0;
}

MemorySummary summary_of(const model::Profile& p, const MemorySeries& m) {
  MemorySummary s;
  s.memory_id = m.memory_id;
  if (m.events.empty()) return s;
  const AllocatorEvent& at_peak = m.at_peak;
  s.num_allocs = m.num_allocs;
  s.num_deallocs = m.num_deallocs;
  s.lifetime_peak_heap_bytes = m.lifetime_peak_heap_bytes;
  s.peak_heap_bytes = at_peak.in_use_bytes();
  s.peak_time_ps = p.start_ps(at_peak.event);
  s.peak_step = at_peak.step;
  s.stack_bytes = at_peak.stack_bytes;
  s.heap_bytes = at_peak.heap_bytes;
  s.free_bytes = at_peak.free_bytes;
  s.fragmentation_pct = at_peak.fragmentation_pct;
  if (at_peak.pool_bytes >= 0) {  // a caching pool is not the memory's size (§5.5)
    s.reserved_bytes = at_peak.pool_bytes;
    s.capacity_bytes = device_memory_bytes(p, m);
    if (s.capacity_bytes > 0) s.capacity_source = "device memory";
  } else if (at_peak.free_known) {  // an allocator that says what it has free (TensorFlow's BFC)
    s.capacity_bytes = at_peak.stack_bytes + at_peak.heap_bytes + at_peak.free_bytes;
    s.capacity_source = "allocator limit";
  }  // else unknown: the heap alone is no capacity
  return s;
}

MemoryIdProfile analyze(const model::Profile& p, const MemoryEventReader& reader, MemorySeries& m,
                        const MemoryProfileOptions& o, std::vector<std::string>* warnings) {
  MemoryIdProfile out;
  MemorySummary& s = out.summary = summary_of(p, m);
  if (m.events.empty()) return out;
  MemoryEventReader::SeriesCursor cursor;
  for (size_t i : select_timeline_points(m.in_use_bytes, o.max_timeline_points)) {
    AllocatorEvent e = reader.event_at(m, i, cursor);
    reader.describe(e);
    out.timeline.push_back(point_of(p, e));
  }
  m.in_use_bytes = {};  // done with: room for the table below

  // Which blocks are alive where, from the addresses alone. Every free with no live
  // allocation at its address counts as unmatched.
  MemoryBlockTable blocks;
  AliveAtPeak alive;
  UnmatchedFrees unmatched;
  AllocatorState scratch;  // a size does not depend on the state
  for (size_t i = 0; i < m.events.size(); ++i) {
    bool added = false;
    uint32_t& live = blocks.at(m.addresses[i], &added);
    const bool allocation = m.allocations[i];
    if (!allocation && live == MemoryBlockTable::kNotLive) {  // rare: kept apart from the unpredictable choice below
      const int64_t bytes = reader.read(m.events[i], scratch).allocation_bytes;
      if (unmatched.count++ == 0) unmatched.first = i;
      unmatched.bytes += bytes;
      if (added && i > m.peak) {  // alive at the peak, allocated before the profile began
        ++alive.before_count;
        alive.before_bytes += bytes;
      }
    }
    live = allocation ? uint32_t(i) : MemoryBlockTable::kNotLive;
    if (i == m.peak) blocks.for_each_live([&](uint32_t position) { alive.positions.push_back(position); });
  }
  std::sort(alive.positions.begin(), alive.positions.end());
  s.live_allocations = alive.positions.size();
  out.breakdown = breakdown_of(reader, m, alive, s.heap_bytes);
  if (unmatched.count > 0) {
    const AllocatorEvent first = reader.read(m.events[unmatched.first], scratch);
    warnings->push_back(fmt::format(
        "{}: {} deallocation{} ({} bytes) had no matching allocation in the profile (blocks allocated before it "
        "began, or allocation events lost); the first at {:.3f} ms, address {:#x}.",
        m.memory_id, unmatched.count, unmatched.count == 1 ? "" : "s", unmatched.bytes, ms(p.start_ps(first.event)),
        first.address));
  }
  sort_and_filter(out.breakdown, o);
  return out;
}

}  // namespace

MemoryProfile compute_memory_profile(const model::Profile& profile, const MemoryProfileOptions& options) {
  MemoryProfile out;
  const MemoryEventReader reader(profile);
  for (MemorySeries& m : reader.series(/*keep_columns=*/true)) {
    if (!options.memory_id.empty() && m.memory_id != options.memory_id) continue;
    out.memory_ids.push_back(analyze(profile, reader, m, options, &out.warnings));
    m = {};  // its columns are done with
  }
  // The memory closest to running out first: the largest peak.
  std::stable_sort(out.memory_ids.begin(), out.memory_ids.end(), [](const MemoryIdProfile& a, const MemoryIdProfile& b) {
    return a.summary.peak_heap_bytes > b.summary.peak_heap_bytes;
  });
  return out;
}

std::vector<MemorySummary> compute_memory_peaks(const model::Profile& profile) {
  std::vector<MemorySummary> out;
  for (const MemorySeries& m : MemoryEventReader(profile).series(/*keep_columns=*/false))
    out.push_back(summary_of(profile, m));
  std::stable_sort(out.begin(), out.end(), [](const MemorySummary& a, const MemorySummary& b) {
    return a.peak_heap_bytes > b.peak_heap_bytes;
  });
  return out;
}

nlohmann::json to_json(const MemoryProfile& m) {
  nlohmann::json ids = nlohmann::json::array();
  for (const MemoryIdProfile& id : m.memory_ids) {
    const MemorySummary& s = id.summary;
    nlohmann::json timeline = nlohmann::json::array();
    for (const MemoryTimelinePoint& p : id.timeline) {
      const int64_t sign = p.allocation ? 1 : -1;
      timeline.push_back({
          {"time_ms", ms(p.time_ps)},
          {"stack_bytes", p.stack_bytes},
          {"heap_bytes", p.heap_bytes},
          {"free_bytes", p.free_bytes},
          {"memory_in_use_bytes", p.stack_bytes + p.heap_bytes},
          {"fragmentation_pct", p.fragmentation_pct},
          {"event", p.allocation ? "allocation" : "deallocation"},
          {"requested_bytes", sign * p.requested_bytes},
          {"allocation_bytes", sign * p.allocation_bytes},
          {"address", p.address},
          {"op", p.op},
          {"step", p.step},
          {"region_type", p.region_type},
          {"data_type", p.data_type},
          {"shape", p.shape},
      });
    }
    nlohmann::json breakdown = nlohmann::json::array();
    for (const MemoryBreakdownRow& r : id.breakdown) {
      breakdown.push_back({
          {"op", r.op},
          {"allocation_bytes", r.allocation_bytes},
          {"requested_bytes", r.requested_bytes},
          {"occurrences", r.occurrences},
          {"region_type", r.region_type},
          {"data_type", r.data_type},
          {"shape", r.shape},
      });
    }
    ids.push_back({
        {"memory_id", s.memory_id},
        {"summary",
         {
             {"memory_id", s.memory_id},
             {"num_allocs", s.num_allocs},
             {"num_deallocs", s.num_deallocs},
             {"capacity_bytes", s.capacity_bytes},
             {"capacity_source", s.capacity_source},
             {"reserved_bytes", s.reserved_bytes},
             {"peak_bytes", s.peak_heap_bytes},
             {"lifetime_peak_heap_bytes", s.lifetime_peak_heap_bytes},
             {"peak_heap_bytes", s.peak_heap_bytes},
             {"peak_time_ms", ms(s.peak_time_ps)},
             {"peak_step", s.peak_step},
             {"stack_bytes", s.stack_bytes},
             {"heap_bytes", s.heap_bytes},
             {"free_bytes", s.free_bytes},
             {"fragmentation_pct", s.fragmentation_pct},
             {"live_allocations", s.live_allocations},
         }},
        {"timeline", timeline},
        {"breakdown", breakdown},
    });
  }
  return {{"memory_ids", ids}, {"warnings", m.warnings}};
}

std::string to_csv(const MemoryProfile& m) {
  std::string out;
  append_csv_row(out, {"memory_id", "op", "allocation_bytes", "requested_bytes", "occurrences", "region_type",
                       "data_type", "shape"});
  for (const MemoryIdProfile& id : m.memory_ids)
    for (const MemoryBreakdownRow& r : id.breakdown)
      append_csv_row(out, {id.summary.memory_id, r.op, std::to_string(r.allocation_bytes),
                           std::to_string(r.requested_bytes), std::to_string(r.occurrences), r.region_type,
                           r.data_type, r.shape});
  return out;
}

}  // namespace mlprof::analysis
