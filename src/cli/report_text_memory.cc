// memory_profile for a terminal: per memory, the summary at the peak first, then what was
// alive there, largest first.
#include <fmt/format.h>

#include <cstdlib>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {

// "512 B", "1.50 KiB", "12.3 MiB", "1.23 GiB"
std::string format_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  size_t u = 0;
  while (std::abs(v) >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
  if (u == 0) return fmt::format("{} B", bytes);
  const int decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
  return fmt::format("{:.{}f} {}", v, decimals, units[u]);
}

std::string render_summary(const MemorySummary& s, size_t timeline_points) {
  std::string out = fmt::format("{}\n", s.memory_id);
  out += fmt::format("  Allocations: {}   Deallocations: {}\n", s.num_allocs, s.num_deallocs);
  out += fmt::format("  Capacity: {}   Peak heap since the program started: {}\n",
                     s.capacity_bytes > 0 ? format_bytes(s.capacity_bytes) + (s.capacity_source.empty() ? "" : " (" + s.capacity_source + ")")
                                          : "unknown",
                     format_bytes(s.lifetime_peak_heap_bytes));
  if (s.reserved_bytes > 0)
    out += fmt::format("  Reserved by the caching allocator at the peak: {}\n", format_bytes(s.reserved_bytes));
  out += fmt::format("  Peak memory in use in the profile: {} at {}{}\n", format_bytes(s.peak_heap_bytes),
                     format_ms(double(s.peak_time_ps) / 1e9), s.peak_step >= 0 ? fmt::format(" (step {})", s.peak_step) : "");
  out += fmt::format("    stack {} · heap {} · free {} · fragmentation {}\n", format_bytes(s.stack_bytes),
                     format_bytes(s.heap_bytes), format_bytes(s.free_bytes), format_pct(s.fragmentation_pct));
  out += fmt::format("  Timeline: {} points (see --format json)\n", timeline_points);
  return out;
}

}  // namespace

std::string render_text(const MemoryProfile& m, std::string_view no_data, size_t max_rows) {
  std::string out = fmt::format("Memory profile ({} memor{})\n", m.memory_ids.size(), m.memory_ids.size() == 1 ? "y" : "ies");
  if (m.memory_ids.empty()) {
    return out + std::string(no_data);
  }
  for (const std::string& w : m.warnings) out += "  Warning: " + w + "\n";
  for (const MemoryIdProfile& id : m.memory_ids) {
    out += "\n" + render_summary(id.summary, id.timeline.size());
    out += fmt::format("\n  Alive at the peak ({} allocations):\n", id.summary.live_allocations);
    TextTable table({"allocated", "requested", "count", "region", "type", "shape", "op"},
                    {true, true, true, false, false, false, false}, 50);
    for (size_t i = 0; i < id.breakdown.size() && i < max_rows; ++i) {
      const MemoryBreakdownRow& r = id.breakdown[i];
      table.add_row({format_bytes(r.allocation_bytes), format_bytes(r.requested_bytes), r.occurrences > 0 ? std::to_string(r.occurrences) : "?",
                     r.region_type, r.data_type, r.shape, r.op.empty() ? "(no op)" : r.op});
    }
    out += table.empty() ? "  (none)\n" : table.render();
    if (id.breakdown.size() > max_rows)
      out += fmt::format("  ... {} more (see --format csv)\n", id.breakdown.size() - max_rows);
  }
  return out;
}

}  // namespace mlprof::cli
