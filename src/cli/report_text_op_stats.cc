#include <fmt/format.h>

#include <algorithm>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {

// Types named in the "by type" line; --format json has them all.
constexpr size_t kTypesShown = 5;
// A type's name in that line: kernels named as types are long.
constexpr size_t kTypeNameWidth = 40;

// "by type: MatMul 40.1%, Conv2D 20.3%, ...", wrapped under its first type.
std::string by_type_text(const std::vector<PieSlice>& by_type) {
  if (by_type.empty()) return "";
  std::vector<std::string> names;
  for (size_t i = 0; i < by_type.size() && i < kTypesShown; ++i) names.push_back(by_type[i].name);
  names = shorten_names(names, kTypeNameWidth);
  std::string types;
  for (size_t i = 0; i < names.size(); ++i) types += fmt::format("{}{} {}", i ? ", " : "", names[i], format_pct(by_type[i].pct));
  return wrap_text(types, text_width(), "  by type: ", "           ");
}

// One row per rank first, on one scale (ms over the whole profile).
std::string ranks_text(const std::vector<OpStatsRankRow>& ranks) {
  if (ranks.empty()) return "";
  TextTable t({"rank", "host ops", "device ops", "top op", "on", "its self time", "share"},
              {false, true, true, false, false, true, true}, 48);
  for (const OpStatsRankRow& r : ranks)
    t.add_row({r.host, format_ms(r.host_self_ms), format_ms(r.device_self_ms), r.top_op.empty() ? "-" : r.top_op,
               r.top_on_device ? "device" : "host", format_ms(r.top_self_ms), format_pct(r.top_self_pct)});
  return "\nRanks (one row each; the ops' self time over the whole profile, and the op each spent most in)\n" +
         t.render();
}

}  // namespace

bool name_says_type(const std::string& name, const std::string& type) {
  return name == type || (name.size() > type.size() && name.ends_with(type) && name[name.size() - type.size() - 1] == ':');
}

std::string render_text(const FrameworkOpStats& s, std::string_view no_data, size_t max_rows) {
  std::string out = "Framework op stats\n";
  out += ranks_text(s.ranks);
  for (bool device : {true, false}) {
    size_t count = 0;
    for (const auto& r : s.rows) count += r.on_device == device;
    if (count == 0) continue;
    out += fmt::format("\n{} ops: {} ops, {} self time{}\n", device ? "Device" : "Host", count,
                       format_ms(double(device ? s.device_self_ps : s.host_self_ps) / 1e9),
                       s.include_idle ? " (idle included)" : "");
    out += by_type_text(device ? s.device_by_type : s.host_by_type);
    std::vector<const OpStatsRow*> shown;
    for (const auto& r : s.rows)
      if (r.on_device == device && shown.size() < max_rows) shown.push_back(&r);
    const bool show_type =
        std::any_of(shown.begin(), shown.end(), [](const OpStatsRow* r) { return !name_says_type(r->name, r->type); });
    // On a device: count is calls that launched work, kernels the work items in total.
    std::vector<std::string> header = {"rank", "count", "total", "avg", "self", "self %", "cumul. %", "op"};
    std::vector<bool> right = {true, true, true, true, true, true, true, false};
    if (device) header.insert(header.begin() + 2, "kernels"), right.insert(right.begin() + 2, true);
    if (show_type) header.insert(header.end() - 1, "type"), right.insert(right.end() - 1, false);
    TextTable table(header, right);
    size_t rank = 0;
    for (const OpStatsRow* r : shown) {
      const double occ = double(std::max<uint64_t>(r->occurrences, 1));
      std::vector<std::string> row = {std::to_string(++rank), std::to_string(r->occurrences),
                                      format_ms(double(r->total_ps) / 1e9), format_ms(double(r->total_ps) / 1e9 / occ),
                                      format_ms(double(r->self_ps) / 1e9), format_pct(r->self_pct),
                                      format_pct(r->cumulative_self_pct), r->name};
      if (device) row.insert(row.begin() + 2, std::to_string(r->kernel_count));
      if (show_type) row.insert(row.end() - 1, r->type);
      table.add_row(row);
    }
    out += table.render();
    if (count > max_rows) out += fmt::format("  ... {} more (see --format csv)\n", count - max_rows);
  }
  if (s.rows.empty()) out += no_data;
  return out;
}

}  // namespace mlprof::cli
