#include "analysis/memory_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/csv.h"
#include "analysis/memory_profile_events.h"
#include "analysis/memory_profile_timeline.h"

namespace mlprof::analysis {
namespace {

double ms(int64_t ps) { return double(ps) / 1e9; }

MemoryTimelinePoint point_of(const AllocatorEvent& e) {
  MemoryTimelinePoint p;
  p.time_ps = e.time_ps;
  p.stack_bytes = e.stack_bytes;
  p.heap_bytes = e.heap_bytes;
  p.free_bytes = e.free_bytes;
  p.fragmentation_pct = e.fragmentation_pct;
  p.allocation = e.allocation;
  p.requested_bytes = e.requested_bytes;
  p.allocation_bytes = e.allocation_bytes;
  p.address = e.address;
  p.step = e.step;
  p.op = e.op;
  p.region_type = e.region_type;
  p.data_type = e.data_type;
  p.shape = e.shape;
  return p;
}

// Deallocations of blocks the profile never saw allocated (or saw freed already).
struct UnmatchedFrees {
  uint64_t count = 0;
  int64_t bytes = 0;
  size_t first = 0;  // event index of the first one
};

// The blocks alive just after event `peak`, as (index of their allocation event). Blocks
// freed later that the profile never saw allocated were alive too, allocated before it
// began: their count and bytes go to `before_count` and `before_bytes`. Every free with no
// live allocation at its address is counted in `unmatched`.
std::vector<size_t> alive_at(const std::vector<AllocatorEvent>& events, size_t peak, uint64_t* before_count,
                             int64_t* before_bytes, UnmatchedFrees* unmatched) {
  std::unordered_map<uint64_t, size_t> live;  // address -> allocation event
  std::unordered_set<uint64_t> seen;          // every address up to the peak
  live.reserve(4096);
  seen.reserve(4096);
  auto free_block = [&](const AllocatorEvent& e, size_t i) {
    if (live.erase(e.address) != 0) return;
    if (unmatched->count++ == 0) unmatched->first = i;
    unmatched->bytes += e.allocation_bytes;
  };
  for (size_t i = 0; i <= peak; ++i) {
    const AllocatorEvent& e = events[i];
    seen.insert(e.address);
    if (e.allocation) live[e.address] = i;
    else free_block(e, i);
  }
  std::vector<size_t> out;
  out.reserve(live.size());
  for (const auto& [address, index] : live) out.push_back(index);
  std::sort(out.begin(), out.end());
  for (size_t i = peak + 1; i < events.size(); ++i) {
    const AllocatorEvent& e = events[i];
    if (e.allocation) live[e.address] = i;
    else free_block(e, i);
    if (!seen.insert(e.address).second) continue;
    if (!e.allocation) {
      ++*before_count;
      *before_bytes += e.allocation_bytes;
    }
  }
  return out;
}

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

std::vector<MemoryBreakdownRow> breakdown_at(const std::vector<AllocatorEvent>& events, size_t peak,
                                             MemorySummary* summary, UnmatchedFrees* unmatched) {
  uint64_t before_count = 0;
  int64_t before_bytes = 0;
  const std::vector<size_t> alive = alive_at(events, peak, &before_count, &before_bytes, unmatched);
  summary->live_allocations = alive.size();
  using Key = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  std::map<Key, MemoryBreakdownRow> by_key;
  int64_t seen_bytes = 0;
  for (size_t i : alive) {
    const AllocatorEvent& e = events[i];
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
  const int64_t unseen = summary->heap_bytes - seen_bytes > 0 ? summary->heap_bytes - seen_bytes : before_bytes;
  if (unseen > 0) {
    MemoryBreakdownRow row;
    row.op = kAllocatedBeforeProfile;
    row.allocation_bytes = row.requested_bytes = unseen;
    row.occurrences = before_count;
    rows.push_back(std::move(row));
  }
  return rows;
}

MemoryIdProfile analyze(const AllocatorEvents& a, const MemoryProfileOptions& o, std::vector<std::string>* warnings) {
  MemoryIdProfile out;
  MemorySummary& s = out.summary;
  s.memory_id = a.memory_id;
  const std::vector<AllocatorEvent>& events = a.events;
  if (events.empty()) return out;
  std::vector<int64_t> in_use(events.size());
  size_t peak = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocatorEvent& e = events[i];
    (e.allocation ? s.num_allocs : s.num_deallocs)++;
    in_use[i] = e.in_use_bytes();
    if (in_use[i] > in_use[peak]) peak = i;
    s.lifetime_peak_heap_bytes = std::max({s.lifetime_peak_heap_bytes, e.peak_bytes_in_use, e.heap_bytes});
  }
  const AllocatorEvent& at_peak = events[peak];
  s.peak_heap_bytes = at_peak.in_use_bytes();
  s.peak_time_ps = at_peak.time_ps;
  s.peak_step = at_peak.step;
  s.stack_bytes = at_peak.stack_bytes;
  s.heap_bytes = at_peak.heap_bytes;
  s.free_bytes = at_peak.free_bytes;
  s.fragmentation_pct = at_peak.fragmentation_pct;
  s.capacity_bytes = at_peak.stack_bytes + at_peak.heap_bytes + at_peak.free_bytes;

  for (size_t i : select_timeline_points(in_use, o.max_timeline_points)) out.timeline.push_back(point_of(events[i]));
  UnmatchedFrees unmatched;
  out.breakdown = breakdown_at(events, peak, &s, &unmatched);
  if (unmatched.count > 0) {
    const AllocatorEvent& first = events[unmatched.first];
    warnings->push_back(fmt::format(
        "{}: {} deallocation{} ({} bytes) had no matching allocation in the profile (blocks allocated before it "
        "began, or allocation events lost); the first at {:.3f} ms, address {:#x}.",
        a.memory_id, unmatched.count, unmatched.count == 1 ? "" : "s", unmatched.bytes, ms(first.time_ps),
        first.address));
  }
  sort_and_filter(out.breakdown, o);
  return out;
}

}  // namespace

bool is_memory_breakdown_sort(const std::string& sort) {
  return sort == "allocation" || sort == "requested" || sort == "occurrences" || sort == "op";
}

MemoryProfile compute_memory_profile(const model::Profile& profile, const MemoryProfileOptions& options) {
  MemoryProfile out;
  for (const AllocatorEvents& a : read_memory_events(profile)) {
    if (!options.memory_id.empty() && a.memory_id != options.memory_id) continue;
    out.memory_ids.push_back(analyze(a, options, &out.warnings));
  }
  // The memory closest to running out first: the largest peak.
  std::stable_sort(out.memory_ids.begin(), out.memory_ids.end(), [](const MemoryIdProfile& a, const MemoryIdProfile& b) {
    return a.summary.peak_heap_bytes > b.summary.peak_heap_bytes;
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
