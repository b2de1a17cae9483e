#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

std::string render_text(const FrameworkOpStats& s, size_t max_rows) {
  std::string out = "Framework op stats\n";
  for (bool device : {true, false}) {
    size_t count = 0;
    for (const auto& r : s.rows) count += r.on_device == device;
    if (count == 0) continue;
    out += fmt::format("\n{} ops: {} ops, {} self time{}\n", device ? "Device" : "Host", count,
                       format_ms(double(device ? s.device_self_ps : s.host_self_ps) / 1e9),
                       s.include_idle ? " (idle included)" : "");
    const auto& by_type = device ? s.device_by_type : s.host_by_type;
    std::string types;
    for (size_t i = 0; i < by_type.size() && i < 5; ++i)
      types += fmt::format("{}{} {}", i ? ", " : "", by_type[i].name, format_pct(by_type[i].pct));
    if (!types.empty()) out += "  by type: " + types + "\n";
    // On a device: count is calls that launched work, kernels the work items in total.
    std::vector<std::string> header = {"rank", "count", "total", "avg", "self", "self %", "cumul. %", "type", "op"};
    std::vector<bool> right = {true, true, true, true, true, true, true, false, false};
    if (device) header.insert(header.begin() + 2, "kernels"), right.insert(right.begin() + 2, true);
    TextTable table(header, right);
    size_t rank = 0;
    for (const auto& r : s.rows) {
      if (r.on_device != device) continue;
      if (++rank > max_rows) break;
      const double occ = double(std::max<uint64_t>(r.occurrences, 1));
      std::vector<std::string> row = {std::to_string(rank), std::to_string(r.occurrences),
                                      format_ms(double(r.total_ps) / 1e9), format_ms(double(r.total_ps) / 1e9 / occ),
                                      format_ms(double(r.self_ps) / 1e9), format_pct(r.self_pct),
                                      format_pct(r.cumulative_self_pct), r.type, r.name};
      if (device) row.insert(row.begin() + 2, std::to_string(r.kernel_count));
      table.add_row(row);
    }
    out += table.render();
    if (count > max_rows) out += fmt::format("  ... {} more (see --format csv)\n", count - max_rows);
  }
  if (s.rows.empty()) out += no_data_note("framework_op_stats");
  return out;
}

}  // namespace mlprof::cli
